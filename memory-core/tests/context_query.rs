//! The seed's read protocol (context-memory "Read Protocol") as `ContextMemory::query`,
//! on real `_index.md` files: namespaces and their domains, category, tags, keywords,
//! the order of preference, history, the limit, and `session.current` only when named.

use std::path::Path;

use memory_core::context_memory::{Category, ContextMemory, EntryStatus, Query};

const HEADER: &str =
    "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n";

/// Writes `_index.md` with `rows` and, for each row, the entity file it points at (so
/// that the index does not drift from the directory and get healed away).
fn write_index(root: &Path, dir: &str, namespace: &str, rows: &[&str]) {
    let dir = root.join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text =
        format!("# Index: {namespace}\n\n> Last updated: 2026-04-03T10:00:00Z\n\n{HEADER}");
    for row in rows {
        text.push_str(row);
        text.push('\n');
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let (entity, category, summary, tags, status, file) =
            (cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]);
        std::fs::write(
            dir.join(file),
            format!(
                "---\nentity_name: {entity}\nnamespace: {namespace}\ncategory: {category}\nstatus: {status}\ntags: [{tags}]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\n{summary}\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(dir.join("_index.md"), text).unwrap();
}

fn names(hits: &[memory_core::context_memory::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.entity_name.as_str()).collect()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_index(
        root,
        "org/global",
        "org.global",
        &[
            "| org.global.decision.001 | decision | Auth uses JWT | auth, security | accepted | decision-001-auth.md |",
            "| org.global.decision.002 | decision | Sessions expire after 1h | auth, sessions | experimental | decision-002-sessions.md |",
            "| org.global.decision.003 | decision | Tokens are rotated daily | auth, security, tokens | accepted | decision-003-tokens.md |",
            "| org.global.principle.001 | principle | Prefer boring tech | style, tech | accepted | principle-001-boring.md |",
            "| org.global.decision.004 | decision | Auth used cookies | auth, security | superseded | decision-004-cookies.md |",
            "| org.global.risk.001 | risk | Old auth SDK | auth, sdk | deprecated | risk-001-sdk.md |",
        ],
    );
    write_index(
        root,
        "projects/myapp",
        "project.myapp",
        &[
            "| project.myapp.constraint.001 | constraint | Node 20 only | runtime, node | accepted | constraint-001-node.md |",
        ],
    );
    write_index(
        root,
        "projects/myapp/api",
        "project.myapp.api",
        &[
            "| project.myapp.api.decision.001 | decision | REST over gRPC for auth | api, auth | accepted | decision-001-rest.md |",
        ],
    );
    write_index(
        root,
        "session/current",
        "session.current",
        &[
            "| session.current.todo.001 | todo | Fix the auth test | auth, tests | experimental | todo-001-fix.md |",
        ],
    );
    dir
}

#[test]
fn accepted_before_experimental_more_shared_tags_first_then_newest() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let hits = memory
        .query(
            &Query::new()
                .namespace("org.global")
                .unwrap()
                .tags(["auth", "security"]),
        )
        .unwrap();
    assert_eq!(
        names(&hits),
        [
            "org.global.decision.003",
            "org.global.decision.001",
            "org.global.decision.002"
        ]
    );
    assert_eq!(hits[0].tag_overlap, 2);
    assert_eq!(hits[2].status, EntryStatus::Experimental);
    assert_eq!(hits[0].file, Path::new("org/global/decision-003-tokens.md"));
}

#[test]
fn history_is_left_out_unless_asked_for() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let q = Query::new()
        .namespace("org.global")
        .unwrap()
        .tags(["auth"])
        .limit(usize::MAX);
    assert!(!names(&memory.query(&q).unwrap()).contains(&"org.global.decision.004"));
    let all = memory.query(&q.clone().include_history(true)).unwrap();
    let all = names(&all);
    assert_eq!(
        &all[all.len() - 2..],
        ["org.global.risk.001", "org.global.decision.004"]
    );
}

#[test]
fn at_most_five_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<String> = (1..=9)
        .map(|n| format!("| org.global.todo.{n:03} | todo | Task {n} | work, later | accepted | todo-{n:03}.md |"))
        .collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    write_index(dir.path(), "org/global", "org.global", &rows);
    let memory = ContextMemory::open(dir.path()).unwrap();
    let hits = memory.query(&Query::new()).unwrap();
    assert_eq!(
        names(&hits),
        [
            "org.global.todo.009",
            "org.global.todo.008",
            "org.global.todo.007",
            "org.global.todo.006",
            "org.global.todo.005"
        ]
    );
}

#[test]
fn session_current_is_read_only_when_named() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let everything = memory
        .query(&Query::new().tags(["auth"]).limit(usize::MAX))
        .unwrap();
    assert!(
        everything
            .iter()
            .all(|h| h.namespace.as_str() != "session.current")
    );
    let session = memory
        .query(&Query::new().namespace("session.current").unwrap())
        .unwrap();
    assert_eq!(names(&session), ["session.current.todo.001"]);
}

#[test]
fn a_project_namespace_includes_its_domains_and_a_domain_only_itself() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let project = memory
        .query(&Query::new().namespace("project.myapp").unwrap())
        .unwrap();
    assert_eq!(
        names(&project),
        [
            "project.myapp.api.decision.001",
            "project.myapp.constraint.001"
        ]
    );
    let api = memory
        .query(&Query::new().namespace("project.myapp.api").unwrap())
        .unwrap();
    assert_eq!(names(&api), ["project.myapp.api.decision.001"]);
}

#[test]
fn category_and_keywords_filter() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let hits = memory
        .query(&Query::new().category(Category::Principle))
        .unwrap();
    assert_eq!(names(&hits), ["org.global.principle.001"]);
    let hits = memory.query(&Query::new().text("ROTATED tokens")).unwrap();
    assert_eq!(names(&hits), ["org.global.decision.003"]);
    let hits = memory.query(&Query::new().text("grpc")).unwrap();
    assert_eq!(names(&hits), ["project.myapp.api.decision.001"]);
    assert!(
        memory
            .query(&Query::new().text("kubernetes"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_namespace_without_a_directory_has_no_memory() {
    let dir = fixture();
    let memory = ContextMemory::open(dir.path()).unwrap();
    assert!(
        memory
            .query(&Query::new().namespace("project.other").unwrap())
            .unwrap()
            .is_empty()
    );
    let empty = tempfile::tempdir().unwrap();
    let memory = ContextMemory::open(empty.path().join("missing")).unwrap();
    assert!(memory.query(&Query::new()).unwrap().is_empty());
    assert!(
        !empty.path().join("missing").exists(),
        "reading creates nothing"
    );
}

#[test]
fn a_row_whose_file_is_gone_and_a_file_without_a_row_are_healed_on_read() {
    let dir = fixture();
    let ns_dir = dir.path().join("org/global");
    std::fs::remove_file(ns_dir.join("principle-001-boring.md")).unwrap();
    std::fs::write(
        ns_dir.join("risk-002-hand.md"),
        "---\nentity_name: org.global.risk.002\nnamespace: org.global\ncategory: risk\nstatus: accepted\ntags: [ops, pager]\ncreated_at: 2026-04-04\nowner: alice # hand-kept\n---\n\nThe pager rota is thin.\n",
    )
    .unwrap();
    let hand = std::fs::read(ns_dir.join("risk-002-hand.md")).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let hits = memory.query(&Query::new().limit(usize::MAX)).unwrap();
    let found = names(&hits);
    assert!(!found.contains(&"org.global.principle.001"));
    assert!(found.contains(&"org.global.risk.002"));
    assert_eq!(
        std::fs::read(ns_dir.join("risk-002-hand.md")).unwrap(),
        hand,
        "the file is untouched"
    );
    let ns = memory_core::context_memory::Namespace::org_global();
    let drift = memory.verify(&ns).unwrap();
    assert!(!drift.has_drift(), "{drift:?}");
}

#[test]
fn a_repeated_row_is_healed_away_one_file_one_row() {
    let dir = tempfile::tempdir().unwrap();
    let row = "| org.global.risk.001 | risk | The rota is thin. | ops, pager | accepted | risk-001-rota.md |";
    write_index(dir.path(), "org/global", "org.global", &[row]);
    let index = dir.path().join("org/global/_index.md");
    let text = std::fs::read_to_string(&index).unwrap();
    // A sync merge pasted the row twice: two rows, one file.
    std::fs::write(&index, format!("{text}{row}\n")).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let ns = memory_core::context_memory::Namespace::org_global();
    let drift = memory.verify(&ns).unwrap();
    assert!(
        drift.has_drift(),
        "two rows for one file is drift: {drift:?}"
    );
    assert_eq!((drift.rows, drift.files), (2, 1));
    let report = memory.heal(&ns).unwrap();
    assert!(report.written);
    assert_eq!(report.removed.len(), 1, "{report:?}");
    assert_eq!(report.removed[0].as_str(), "org.global.risk.001");
    assert_eq!(
        std::fs::read_to_string(&index)
            .unwrap()
            .matches(row)
            .count(),
        1
    );
    assert!(!memory.verify(&ns).unwrap().has_drift());
    let hits = memory.query(&Query::new()).unwrap();
    assert_eq!(names(&hits), ["org.global.risk.001"]);
}

#[test]
fn a_second_file_naming_the_same_entity_is_kept_out_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let row = "| org.global.risk.001 | risk | The rota is thin. | ops, pager | accepted | risk-001-rota.md |";
    write_index(dir.path(), "org/global", "org.global", &[row]);
    let ns_dir = dir.path().join("org/global");
    // A copy made by hand, sorting before the original: the index row decides.
    let original = std::fs::read(ns_dir.join("risk-001-rota.md")).unwrap();
    std::fs::write(ns_dir.join("risk-001-a-copy.md"), &original).unwrap();
    let index_before = std::fs::read(ns_dir.join("_index.md")).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let ns = memory_core::context_memory::Namespace::org_global();
    let drift = memory.verify(&ns).unwrap();
    assert!(
        drift.has_drift()
            && drift.missing_files.is_empty()
            && drift.unindexed_files.is_empty()
            && drift.mismatched.is_empty(),
        "the copy is reported as drift for a person to settle, nothing else: {drift:?}"
    );
    assert_eq!(drift.unreadable.len(), 1, "{drift:?}");
    assert_eq!(drift.unreadable[0].path, ns_dir.join("risk-001-a-copy.md"));
    assert_eq!(drift.unreadable[0].line, 2, "the entity_name line");
    assert!(
        drift.unreadable[0].message.contains("risk-001-rota.md"),
        "{}",
        drift.unreadable[0].message
    );
    let report = memory.heal(&ns).unwrap();
    assert!(!report.written, "{report:?}");
    assert_eq!(report.unreadable.len(), 1);
    assert_eq!(
        std::fs::read(ns_dir.join("_index.md")).unwrap(),
        index_before
    );
    let hits = memory.query(&Query::new()).unwrap();
    assert_eq!(names(&hits), ["org.global.risk.001"]);
    assert_eq!(
        memory.get("org.global.risk.001").unwrap().file,
        Path::new("org/global/risk-001-rota.md")
    );
    assert_eq!(
        std::fs::read(ns_dir.join("risk-001-a-copy.md")).unwrap(),
        original,
        "never rewritten"
    );

    // Without an index, the first by file name is the entity's, and one row is written.
    std::fs::remove_file(ns_dir.join("_index.md")).unwrap();
    let report = memory.heal(&ns).unwrap();
    assert_eq!(report.added.len(), 1, "{report:?}");
    let index = std::fs::read_to_string(ns_dir.join("_index.md")).unwrap();
    assert_eq!(
        index.matches("| org.global.risk.001 |").count(),
        1,
        "{index}"
    );
    assert!(index.contains("| risk-001-a-copy.md |"), "{index}");
    let drift = memory.verify(&ns).unwrap();
    assert_eq!(
        drift.unreadable.len(),
        1,
        "the other copy, still reported: {drift:?}"
    );
    assert!(drift.missing_files.is_empty() && drift.unindexed_files.is_empty());
}

#[test]
fn namespaces_lists_the_table_s_directories_and_nothing_else() {
    let dir = fixture();
    std::fs::create_dir_all(dir.path().join("archive/org/global")).unwrap();
    std::fs::write(dir.path().join("archive/org/global/_index.md"), "x").unwrap();
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/decision-001.md"), "x").unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let found: Vec<String> = memory
        .namespaces()
        .unwrap()
        .into_iter()
        .map(|i| i.namespace.to_string())
        .collect();
    assert_eq!(
        found,
        [
            "org.global",
            "project.myapp",
            "project.myapp.api",
            "session.current"
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_namespace_directory_is_not_followed() {
    let dir = fixture();
    let outside = tempfile::tempdir().unwrap();
    write_index(outside.path(), "x", "org.security", &[]);
    std::os::unix::fs::symlink(outside.path().join("x"), dir.path().join("org/security")).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    assert!(
        memory
            .namespaces()
            .unwrap()
            .iter()
            .all(|i| i.namespace.as_str() != "org.security")
    );
    let err = memory
        .query(&Query::new().namespace("org.security").unwrap())
        .map(|hits| hits.len());
    assert_eq!(err.unwrap(), 0, "a link is neither listed nor read");
}

/// "Answered from `_index.md` alone": a query opens no entity file (a file whose content
/// no longer reads is still answered from its row while the listing agrees), and
/// `verify` reports without writing.
#[test]
fn a_query_reads_only_the_index_and_verify_writes_nothing() {
    let dir = fixture();
    let file = dir.path().join("org/global/decision-001-auth.md");
    std::fs::write(&file, "not an entity any more\n").unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let hits = memory
        .query(&Query::new().namespace("org.global").unwrap().tags(["auth"]))
        .unwrap();
    assert!(names(&hits).contains(&"org.global.decision.001"));
    let before = common_tree(dir.path());
    let drift = memory
        .verify(&memory_core::context_memory::Namespace::org_global())
        .unwrap();
    assert!(
        drift
            .unreadable
            .iter()
            .any(|w| w.path == file && w.line == 1),
        "{drift:?}"
    );
    assert_eq!(common_tree(dir.path()), before, "verify wrote something");
}

fn common_tree(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != ".memcore.lock") {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn verify_all_and_heal_all_cover_every_namespace_and_only_heal_writes() {
    let dir = fixture();
    let root = dir.path();
    std::fs::remove_file(root.join("org/global/decision-002-sessions.md")).unwrap();
    let memory = ContextMemory::open(root).unwrap();
    let before = memory
        .namespaces()
        .unwrap()
        .into_iter()
        .map(|i| i.namespace)
        .collect::<Vec<_>>();
    let index = std::fs::read(root.join("org/global/_index.md")).unwrap();

    let drift = memory.verify_all().unwrap();
    assert_eq!(
        drift
            .iter()
            .map(|r| r.namespace.clone())
            .collect::<Vec<_>>(),
        before.iter().cloned().map(Some).collect::<Vec<_>>()
    );
    let drifted: Vec<_> = drift.iter().filter(|r| r.has_drift()).collect();
    assert_eq!(drifted.len(), 1, "{drift:?}");
    assert_eq!(drifted[0].missing_files.len(), 1, "{drift:?}");
    assert_eq!(
        std::fs::read(root.join("org/global/_index.md")).unwrap(),
        index
    );

    let healed = memory.heal_all().unwrap();
    assert_eq!(healed.len(), before.len());
    assert_eq!(healed.iter().filter(|r| r.written).count(), 1, "{healed:?}");
    let after = memory.verify_all().unwrap();
    assert!(after.iter().all(|r| !r.has_drift()), "{after:?}");
}
