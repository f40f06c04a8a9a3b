//! Hand-kept context memory is the normal case: an `_index.md` that does not read is
//! refused (never rewritten by a query or a write) and only `heal` rebuilds it, keeping
//! the old text verbatim and every summary it can; a file that does not read keeps its
//! row; a leftover journal does not make a reader wait for itself; queries rank by the
//! index's row order and carry the file-only fields; a `README.md` or a known broken
//! file triggers no heal; a linked index leaves only its own namespace out.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memory_core::ErrorKind;
use memory_core::context_memory::{
    Category, ContextMemory, EntityName, Namespace, NewEntry, Query,
};
use memory_core::durable::{JOURNAL_FILE_NAME, LOCK_FILE_NAME, MemoryLock};
use proptest::prelude::*;

fn open(root: &Path) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn write(memory: &ContextMemory, ns: &str, tags: [&str; 2], body: &str) -> EntityName {
    memory
        .write(NewEntry::new(ns, Category::Decision, tags, body).unwrap())
        .unwrap()
        .entry
        .entity_name
}

/// Every file under `root` (but the lock file) with its bytes, sorted.
fn tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap() != LOCK_FILE_NAME {
                let bytes = if meta.is_symlink() {
                    Vec::new()
                } else {
                    std::fs::read(&path).unwrap()
                };
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// A namespace `org.global` with two entries whose index holds a curated summary for
/// the first (only the index holds summaries).
fn curated(root: &Path) -> (ContextMemory, PathBuf) {
    let memory = open(root);
    write(
        &memory,
        "org.global",
        ["auth", "security"],
        "Auth uses JWT.",
    );
    write(
        &memory,
        "org.global",
        ["cache", "redis"],
        "Redis caches sessions.",
    );
    let index = root.join("org/global/_index.md");
    let text = std::fs::read_to_string(&index).unwrap().replace(
        "| Auth uses JWT. |",
        "| Curated: JWT everywhere \\| RS256 |",
    );
    std::fs::write(&index, text).unwrap();
    (memory, index)
}

/// A way a hand edit breaks an index: its name, the edit, the line the reader must name.
type Breakage = (&'static str, fn(&str) -> String, usize);

/// The ways a hand edit breaks an index.
fn breakages() -> Vec<Breakage> {
    vec![
        (
            "a typo'd status",
            |t| t.replacen("| accepted |", "| accpeted |", 1),
            7,
        ),
        (
            "an extra Owner column",
            |t| {
                t.replace("| File |", "| File | Owner |")
                    .replace("|---|---|---|---|---|---|", "|---|---|---|---|---|---|---|")
                    .replace(".md |\n", ".md | ann |\n")
            },
            5,
        ),
        (
            "a row after a blank line",
            |t| {
                let at = t.find("| org.global.decision.002").unwrap();
                format!("{}\n{}", &t[..at], &t[at..])
            },
            9,
        ),
        (
            "a row inside another table",
            |t| {
                let at = t.find("| org.global.decision.002").unwrap();
                let end = at + t[at..].find('\n').unwrap() + 1;
                format!(
                    "{}{}\n| Note | By |\n|---|---|\n{}",
                    &t[..at],
                    &t[end..],
                    &t[at..end]
                )
            },
            11,
        ),
        (
            "a typo in a CRLF file with a BOM",
            |t| {
                format!(
                    "\u{feff}{}",
                    t.replacen("| accepted |", "| Accpeted |", 1)
                        .replace('\n', "\r\n")
                )
            },
            7,
        ),
    ]
}

#[test]
fn an_index_that_does_not_read_is_refused_by_readers_and_writers_and_never_overwritten() {
    for (what, breaks, line) in breakages() {
        let dir = tempfile::tempdir().unwrap();
        let (memory, index) = curated(dir.path());
        let broken = breaks(&std::fs::read_to_string(&index).unwrap());
        std::fs::write(&index, &broken).unwrap();
        let before = tree(dir.path());
        for query in [Query::new(), Query::new().namespace("org.global").unwrap()] {
            let err = memory.query(&query).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Malformed, "{what}: {err}");
            assert_eq!(err.path(), Some(index.as_path()), "{what}: {err}");
            assert_eq!(err.line().unwrap_or(0), line, "{what}: {err}");
        }
        let err = memory.get("org.global.decision.001").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{what}: {err}");
        let err = memory
            .write(
                NewEntry::new("org.global", Category::Risk, ["ops", "pager"], "Thin rota.")
                    .unwrap(),
            )
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{what}: {err}");
        assert_eq!(err.line().unwrap_or(0), line, "{what}: {err}");
        let drift = memory.verify(&Namespace::org_global()).unwrap();
        assert!(
            drift.unreadable_index.is_some() && drift.has_drift(),
            "{what}"
        );
        assert_eq!(tree(dir.path()), before, "{what}: nothing may be written");

        let report = memory.heal(&Namespace::org_global()).unwrap();
        let backup = report.backup.clone().expect("the old index is kept");
        assert_eq!(
            backup,
            Path::new("org/global/_index.md.bak-20260403T100000Z"),
            "{what}"
        );
        let backup = dir.path().join(backup);
        assert_eq!(
            std::fs::read_to_string(&backup).unwrap(),
            broken,
            "{what}: verbatim"
        );
        assert!(
            report.written && report.unreadable_index.is_some(),
            "{what}"
        );
        let hits = memory
            .query(&Query::new().tags(["auth"]))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(hits.len(), 1, "{what}");
        assert_eq!(
            hits[0].summary, "Curated: JWT everywhere | RS256",
            "{what}: the curated summary survives the rebuild"
        );
        assert!(
            !memory.verify(&Namespace::org_global()).unwrap().has_drift(),
            "{what}"
        );
        assert!(
            memory.namespaces().unwrap().len() == 1,
            "{what}: a backup is not an entity file nor a namespace"
        );
    }
}

#[test]
fn a_second_rebuild_in_the_same_second_keeps_both_backups() {
    let dir = tempfile::tempdir().unwrap();
    let (memory, index) = curated(dir.path());
    let mut backups = Vec::new();
    for n in 0..3 {
        std::fs::write(&index, format!("# Index: org.global\n\nbroken {n}\n")).unwrap();
        backups.push(
            memory
                .heal(&Namespace::org_global())
                .unwrap()
                .backup
                .unwrap(),
        );
    }
    let names: Vec<_> = backups
        .iter()
        .map(|b| b.file_name().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "_index.md.bak-20260403T100000Z",
            "_index.md.bak-20260403T100000Z-2",
            "_index.md.bak-20260403T100000Z-3"
        ]
    );
    for (n, backup) in backups.iter().enumerate() {
        assert!(
            std::fs::read_to_string(dir.path().join(backup))
                .unwrap()
                .contains(&format!("broken {n}"))
        );
    }
}

#[test]
fn a_leftover_journal_and_drift_do_not_make_a_reader_wait_for_itself() {
    let dir = tempfile::tempdir().unwrap();
    let memory = open(dir.path()).with_lock_timeout(Duration::from_secs(3));
    write(
        &memory,
        "org.global",
        ["auth", "security"],
        "Auth uses JWT.",
    );
    let gone = memory
        .write(
            NewEntry::new(
                "project.app",
                Category::Decision,
                ["api", "rest"],
                "REST over gRPC.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry;
    write(&memory, "project.app", ["db", "sql"], "Postgres only.");
    let journal = r#"{"version":1,"state":"apply","steps":[]}"#;
    for op in ["query", "get"] {
        let _ = std::fs::remove_file(dir.path().join(&gone.file));
        std::fs::write(dir.path().join(JOURNAL_FILE_NAME), journal).unwrap();
        let started = Instant::now();
        if op == "query" {
            let hits = memory.query(&Query::new()).unwrap();
            assert_eq!(hits.len(), 2, "the row whose file is gone is healed away");
        } else {
            memory.get("project.app.decision.002").unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{op} waited for itself"
        );
        assert!(
            !dir.path().join(JOURNAL_FILE_NAME).exists(),
            "{op}: recovered"
        );
        assert!(!memory.verify(&gone.namespace).unwrap().has_drift());
        // Put the row back for the next round.
        let index = dir.path().join("projects/app/_index.md");
        let text = std::fs::read_to_string(&index).unwrap();
        if !text.contains("decision.001") {
            std::fs::write(
                &index,
                format!("{text}| project.app.decision.001 | decision | REST over gRPC. | api, rest | accepted | decision-001-rest-over-grpc.md |\n"),
            )
            .unwrap();
        }
    }
}

#[test]
fn heal_keeps_the_row_of_a_file_that_does_not_read_and_removes_only_rows_of_gone_files() {
    let dir = tempfile::tempdir().unwrap();
    let (memory, _) = curated(dir.path());
    let file = dir.path().join("org/global/decision-001-auth-uses-jwt.md");
    let good = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, good.replace("status: accepted", "status: accpeted")).unwrap();
    let report = memory.heal(&Namespace::org_global()).unwrap();
    assert!(report.removed.is_empty() && !report.written, "{report:?}");
    assert_eq!(report.unreadable.len(), 1);
    assert_eq!(report.unreadable[0].path, file);
    assert_eq!(report.unreadable[0].line, 5, "the status line");
    let drift = memory.verify(&Namespace::org_global()).unwrap();
    assert!(drift.has_drift(), "an unreadable file is drift to report");
    assert_eq!((drift.rows, drift.files), (2, 2));
    // The typo fixed, the curated summary is still there.
    std::fs::write(&file, &good).unwrap();
    let hits = memory.query(&Query::new().tags(["auth"])).unwrap();
    assert_eq!(hits[0].summary, "Curated: JWT everywhere | RS256");
    assert!(!memory.verify(&Namespace::org_global()).unwrap().has_drift());
    // A file that is gone loses its row.
    std::fs::remove_file(&file).unwrap();
    let report = memory.heal(&Namespace::org_global()).unwrap();
    assert_eq!(report.removed.len(), 1);
    assert_eq!(report.removed[0].as_str(), "org.global.decision.001");
}

#[test]
fn hits_carry_created_at_updated_at_and_supersedes_from_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let memory = open(dir.path());
    let old = write(
        &memory,
        "org.global",
        ["auth", "security"],
        "Auth uses cookies.",
    );
    let new = memory
        .supersede(
            old.as_str(),
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "jwt"],
                "Auth uses JWT now.",
            )
            .unwrap(),
        )
        .unwrap()
        .new;
    let hits = memory.query(&Query::new().include_history(true)).unwrap();
    let hit = hits
        .iter()
        .find(|h| h.entity_name == new.entity_name)
        .unwrap();
    assert_eq!(hit.created_at.as_deref(), Some("2026-04-03T10:00:00Z"));
    assert_eq!(hit.supersedes.as_deref(), Some(std::slice::from_ref(&old)));
    let old_hit = hits.iter().find(|h| h.entity_name == old).unwrap();
    assert_eq!(old_hit.updated_at.as_deref(), Some("2026-04-03T10:00:00Z"));
    // A hit whose file does not read: answered from its row, with a warning.
    let file = dir.path().join(&new.file);
    std::fs::write(&file, "---\nentity_name: [\n---\n").unwrap();
    let answer = memory.query_answer(&Query::new()).unwrap();
    assert_eq!(answer.hits.len(), 1);
    assert_eq!(answer.hits[0].created_at, None);
    assert_eq!(answer.hits[0].supersedes, None);
    assert_eq!(answer.warnings.len(), 1, "{:?}", answer.warnings);
    assert_eq!(answer.warnings[0].path, file);
    assert!(answer.warnings[0].line > 0);
}

#[test]
fn the_most_recent_is_the_last_row_whatever_its_short_id() {
    let dir = tempfile::tempdir().unwrap();
    let memory = open(dir.path());
    write(
        &memory,
        "org.global",
        ["auth", "security"],
        "First decision.",
    );
    write(
        &memory,
        "org.global",
        ["auth", "tokens"],
        "Second decision.",
    );
    memory
        .write(
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "sso"],
                "Single sign-on.",
            )
            .unwrap()
            .slug("sso"),
        )
        .unwrap();
    let names = |hits: Vec<memory_core::context_memory::Hit>| -> Vec<String> {
        hits.into_iter()
            .map(|h| h.entity_name.to_string())
            .collect()
    };
    assert_eq!(
        names(memory.query(&Query::new().tags(["auth"])).unwrap()),
        [
            "org.global.decision.sso",
            "org.global.decision.002",
            "org.global.decision.001"
        ],
        "a descriptive id written last is the most recent"
    );
    // A hand-kept index: .010 (from 2020) was listed before .002 (from 2026).
    let ns = dir.path().join("org/security");
    std::fs::create_dir_all(&ns).unwrap();
    let mut index = "# Index: org.security\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n".to_string();
    for (id, year) in [("010", 2020), ("002", 2026)] {
        let file = format!("decision-{id}-x.md");
        std::fs::write(
            ns.join(&file),
            format!("---\nentity_name: org.security.decision.{id}\nnamespace: org.security\ncategory: decision\nstatus: accepted\ntags: [tls, keys]\ncreated_at: {year}-01-01T00:00:00Z\n---\n\nEntry {id}.\n"),
        )
        .unwrap();
        index.push_str(&format!(
            "| org.security.decision.{id} | decision | Entry {id}. | tls, keys | accepted | {file} |\n"
        ));
    }
    std::fs::write(ns.join("_index.md"), index).unwrap();
    let hits = memory
        .query(&Query::new().namespace("org.security").unwrap())
        .unwrap();
    assert_eq!(
        names(hits.clone()),
        ["org.security.decision.002", "org.security.decision.010"]
    );
    assert_eq!(hits[0].created_at.as_deref(), Some("2026-01-01T00:00:00Z"));
}

#[test]
fn a_readme_or_a_known_broken_file_triggers_no_heal_and_no_lock() {
    let dir = tempfile::tempdir().unwrap();
    let (memory, index) = curated(dir.path());
    let ns = dir.path().join("org/global");
    std::fs::write(ns.join("README.md"), "# What this directory is\n").unwrap();
    // Broken with a row, and broken without one (named like an entity file).
    let with_row = ns.join("decision-002-redis-caches-sessions.md");
    let text = std::fs::read_to_string(&with_row).unwrap();
    std::fs::write(&with_row, text.replace("status: accepted", "status: ?")).unwrap();
    std::fs::write(ns.join("risk-001-draft.md"), "---\nentity_name: [\n---\n").unwrap();
    let before = tree(dir.path());
    // Another holder of the lock: a reader that tried to take it would time out.
    let _held = MemoryLock::acquire(&dir.path().join(LOCK_FILE_NAME), Duration::ZERO).unwrap();
    let reader = memory.with_lock_timeout(Duration::from_millis(200));
    for _ in 0..3 {
        let hits = reader.query(&Query::new()).unwrap();
        assert_eq!(hits.len(), 2);
        reader.get("org.global.decision.001").unwrap();
    }
    assert_eq!(tree(dir.path()), before, "no read wrote anything");
    assert!(std::fs::read_to_string(&index).unwrap().contains("Curated"));
}

#[test]
fn a_linked_index_leaves_out_only_its_namespace_unless_it_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let memory = open(dir.path());
    write(
        &memory,
        "org.global",
        ["auth", "security"],
        "Auth uses JWT.",
    );
    write(&memory, "project.app", ["api", "rest"], "REST over gRPC.");
    let index = dir.path().join("projects/app/_index.md");
    let elsewhere = dir.path().join("elsewhere.md");
    std::fs::rename(&index, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &index).unwrap();
    let answer = memory.query_answer(&Query::new()).unwrap();
    let names: Vec<&str> = answer.hits.iter().map(|h| h.entity_name.as_str()).collect();
    assert_eq!(names, ["org.global.decision.001"]);
    assert_eq!(answer.warnings.len(), 1, "{:?}", answer.warnings);
    assert_eq!(answer.warnings[0].path, index);
    let err = memory
        .query(&Query::new().namespace("project.app").unwrap())
        .unwrap_err();
    assert!(
        matches!(err, memory_core::Error::LinkRefused { .. }),
        "{err}"
    );
    assert!(
        std::fs::symlink_metadata(&index).unwrap().is_symlink(),
        "left alone"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever a hand edit does to one line of the index, a query and a write either
    /// read it whole or refuse it without writing; heal then keeps the old text
    /// verbatim (when it rebuilds) and leaves an index that reads.
    #[test]
    fn no_reader_or_writer_overwrites_an_index_and_heal_keeps_its_text(
        line in 0usize..10,
        edit in prop_oneof![
            Just("| accpeted |".to_string()),
            Just("".to_string()),
            Just("| x | y |".to_string()),
            "[a-z|. ]{0,12}",
        ],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (memory, index) = curated(dir.path());
        let text = std::fs::read_to_string(&index).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let at = line % (lines.len() + 1);
        lines.insert(at, edit);
        let edited = lines.join("\n") + "\n";
        std::fs::write(&index, &edited).unwrap();
        let query = memory.query(&Query::new());
        let write = memory.write(NewEntry::new("org.global", Category::Risk, ["ops", "pager"], "Thin rota.").unwrap());
        if query.is_err() {
            prop_assert!(write.is_err());
            prop_assert_eq!(std::fs::read_to_string(&index).unwrap(), edited.clone());
        }
        let report = memory.heal(&Namespace::org_global()).unwrap();
        if let Some(backup) = &report.backup {
            prop_assert!(query.is_err());
            prop_assert_eq!(std::fs::read_to_string(dir.path().join(backup)).unwrap(), edited);
        }
        prop_assert!(memory.query(&Query::new()).is_ok());
        prop_assert!(memory.verify(&Namespace::org_global()).unwrap().unreadable_index.is_none());
    }
}
