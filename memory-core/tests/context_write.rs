//! The seed's write protocol (context-memory "Write Protocol"), one test per step, on real
//! files; the secrets and size screen; and writers in separate processes losing nothing
//! and never reusing a short id.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{Role, Worker, report, wait_for_go};
use memory_core::ErrorKind;
use memory_core::context_memory::{Category, ContextMemory, NewEntry, Query};

fn memory(root: &std::path::Path) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .lock_timeout(Duration::from_secs(60))
        .open()
        .unwrap()
}

fn entry(ns: &str, category: Category, body: &str) -> NewEntry {
    NewEntry::new(ns, category, ["alpha", "beta"], body).unwrap()
}

/// Steps 1–2: the namespace's directory and `_index.md` are made when missing.
#[test]
fn a_missing_directory_is_made_with_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let out = m
        .write(entry(
            "project.myapp.api",
            Category::Decision,
            "REST over gRPC.",
        ))
        .unwrap();
    let ns_dir = dir.path().join("projects/myapp/api");
    assert!(ns_dir.join("_index.md").is_file());
    assert!(ns_dir.join("decision-001-rest-over-grpc.md").is_file());
    let index = std::fs::read_to_string(ns_dir.join("_index.md")).unwrap();
    insta::assert_snapshot!("index_after_first_write", index);
    assert_eq!(out.namespace_entries, 1);
    assert!(!out.over_threshold);
}

/// Step 3: an entry of the same category with a similar summary refuses the write,
/// naming it; another category, a history entry or `force_new` does not.
#[test]
fn duplicates_are_refused_by_category_and_similar_summary() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.write(entry(
        "org.global",
        Category::Decision,
        "Use Postgres for the main store.",
    ))
    .unwrap();
    let err = m
        .write(entry(
            "org.global",
            Category::Decision,
            "use postgres for the main store!",
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(err.id(), Some("org.global.decision.001"));
    assert_eq!(err.line(), Some(7));
    m.write(entry(
        "org.global",
        Category::Constraint,
        "Use Postgres for the main store.",
    ))
    .unwrap();
    m.write(entry(
        "org.global",
        Category::Decision,
        "Use Redis for the cache.",
    ))
    .unwrap();
    m.write(
        entry(
            "org.global",
            Category::Decision,
            "Use Postgres for the main store.",
        )
        .force_new(true),
    )
    .unwrap();
}

/// Step 4: the short id is the next number of the category (from rows and from file
/// names), or a descriptive slug; a slug in use is a conflict.
#[test]
fn short_ids_are_sequential_per_category_or_a_slug() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let names: Vec<String> = ["One thing.", "Two things.", "Three things."]
        .iter()
        .map(|b| {
            m.write(entry("org.global", Category::Todo, b))
                .unwrap()
                .entry
                .entity_name
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "org.global.todo.001",
            "org.global.todo.002",
            "org.global.todo.003"
        ]
    );
    let risk = m
        .write(entry("org.global", Category::Risk, "A risk."))
        .unwrap();
    assert_eq!(risk.entry.entity_name.as_str(), "org.global.risk.001");
    // A hand-added file that does not read keeps its number.
    std::fs::write(
        dir.path().join("org/global/todo-009-broken.md"),
        "no frontmatter\n",
    )
    .unwrap();
    let next = m
        .write(entry("org.global", Category::Todo, "Four things."))
        .unwrap();
    assert_eq!(next.entry.entity_name.as_str(), "org.global.todo.010");
    let slug = m
        .write(entry("org.global", Category::Principle, "Boring tech.").slug("boring-tech"))
        .unwrap();
    assert_eq!(
        slug.entry.entity_name.as_str(),
        "org.global.principle.boring-tech"
    );
    assert_eq!(
        slug.entry.file,
        std::path::Path::new("org/global/principle-boring-tech.md")
    );
    let again = m
        .write(
            entry(
                "org.global",
                Category::Principle,
                "Something else entirely.",
            )
            .slug("boring-tech"),
        )
        .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Conflict);
}

/// Step 6: the index row has the summary (≤ 100 characters, the body's first sentence
/// when not given), tags, status and file.
#[test]
fn the_row_carries_the_summary_within_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let long = format!("{} done.", "word ".repeat(40));
    m.write(entry("org.global", Category::Assumption, &long))
        .unwrap();
    m.write(
        entry("org.global", Category::Assumption, "Users are on Linux.").summary("Linux users"),
    )
    .unwrap();
    let hits = m.query(&Query::new().limit(usize::MAX)).unwrap();
    assert!(hits.iter().all(|h| h.summary.chars().count() <= 100));
    assert!(hits.iter().any(|h| h.summary == "Linux users"));
    let err = m
        .write(entry("org.global", Category::Assumption, "x.").summary("y".repeat(101)))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

/// Steps 5 and 6 are one step: the new file reads back as the entry, and every text
/// field is screened for secrets first — a refusal writes nothing at all.
#[test]
fn secrets_are_refused_in_every_field_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let token = "ghp_Q7x9Lm2Kp4Vt8Rz1Nb6Hc3Wd5Fg0Jy2Sa4Ue";
    let cases = [
        (
            "body",
            entry(
                "org.global",
                Category::Decision,
                &format!("Deploy with {token}."),
            ),
        ),
        (
            "rationale",
            entry("org.global", Category::Decision, "Deploy.").rationale(format!("token {token}")),
        ),
        (
            "source_path",
            entry("org.global", Category::Decision, "Deploy.")
                .source_path(format!("https://x:{token}@github.com/a/b")),
        ),
        (
            "summary",
            entry("org.global", Category::Decision, "Deploy.").summary(token),
        ),
    ];
    for (field, new) in cases {
        let err = m.write(new).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{field}: {err}");
        assert_eq!(err.field(), Some(field), "{err}");
        assert!(
            !err.to_string().contains(&token[4..20]),
            "the secret is not echoed: {err}"
        );
    }
    let mut tagged = entry("org.global", Category::Decision, "Deploy.");
    tagged.tags = vec!["ok".into(), token.into()];
    assert_eq!(m.write(tagged).unwrap_err().field(), Some("tags"));
    assert!(!dir.path().join("org").exists(), "nothing was written");
}

#[test]
fn a_long_body_is_flagged_and_a_huge_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let chatty = "One. Two. Three. Four. Five.";
    let out = m
        .write(entry("org.global", Category::Decision, chatty))
        .unwrap();
    assert_eq!(out.body.flags[0].code(), "many-sentences");
    let huge = "a".repeat(memory_core::hygiene::MAX_BODY_BYTES + 1);
    assert_eq!(
        m.write(entry("org.global", Category::Risk, &huge))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn supersedes_and_related_links_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let ghost = memory_core::context_memory::EntityName::parse("org.global.decision.404").unwrap();
    let err = m
        .write(entry("org.global", Category::Decision, "New.").supersedes(ghost))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(!dir.path().join("org").exists());
}

/// Writers in separate processes, into one namespace at once: every acknowledged entry
/// is there, with its own short id and row.
#[test]
fn concurrent_writers_in_processes_lose_nothing_and_never_reuse_a_short_id() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    std::fs::create_dir_all(&root).unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut workers: Vec<Worker> = (0..4)
        .map(|w| Worker::spawn("worker", "write", &root, &[w.to_string(), "5".to_string()]))
        .collect();
    for w in &mut workers {
        w.wait_for("ready", deadline);
    }
    for w in &mut workers {
        w.go();
    }
    let mut acknowledged = BTreeSet::new();
    for w in workers {
        let finished = w.finish(deadline);
        finished.assert_success();
        for r in finished.reports_of("wrote") {
            assert!(
                acknowledged.insert(r[0].clone()),
                "short id reused: {}",
                r[0]
            );
        }
    }
    assert_eq!(acknowledged.len(), 20);
    let m = memory(&root);
    let hits: BTreeSet<String> = m
        .query(&Query::new().limit(usize::MAX))
        .unwrap()
        .into_iter()
        .map(|h| h.entity_name.to_string())
        .collect();
    assert_eq!(hits, acknowledged);
    let ns = memory_core::context_memory::Namespace::parse("project.shared").unwrap();
    assert!(!m.verify(&ns).unwrap().has_drift());
}

#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    assert_eq!(role.name, "write");
    let (child, count): (usize, usize) = (role.arg(0), role.arg(1));
    let m = ContextMemory::builder(&role.root)
        .lock_timeout(Duration::from_secs(60))
        .open()
        .expect("open");
    report(&["ready"]);
    if !wait_for_go() {
        return;
    }
    for k in 0..count {
        let body = format!(
            "Worker {child} wrote fact number {k} about subsystem {}.",
            child * 100 + k
        );
        let out = m
            .write(
                NewEntry::new("project.shared", Category::Decision, ["w", "shared"], body)
                    .expect("entry")
                    .force_new(true),
            )
            .expect("write");
        report(&["wrote", out.entry.entity_name.as_str()]);
    }
}
