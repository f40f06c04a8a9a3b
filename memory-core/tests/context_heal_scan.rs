//! Heal and verify over a directory of many entity files, read on every core: the rows,
//! the unreadable files (in file-name order, whatever thread read them), links neither
//! followed nor indexed, and hand-written shapes (CRLF, BOM, comments, quoting, Unicode).

use std::path::Path;

use memory_core::context_memory::{ContextMemory, Namespace};

fn entity(i: usize, tags: &str) -> String {
    format!(
        "---\nentity_name: org.global.decision.{i:03}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: {tags}\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nDecision {i}.\n"
    )
}

/// 300 files (enough for several threads): every 7th does not read, every 11th is
/// written by hand in another shape.
fn many(dir: &Path) -> (Vec<String>, Vec<String>) {
    let ns = dir.join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for i in 1..=300 {
        let name = format!("decision-{i:03}-x.md");
        let text = if i % 7 == 0 {
            bad.push(name.clone());
            format!("---\nentity_name: org.global.decision.{i:03}\nstatus: [unclosed\n---\n")
        } else if i % 11 == 0 {
            good.push(format!("org.global.decision.{i:03}"));
            format!(
                "\u{feff}{}",
                entity(i, "[\"登入\", 'it''s']  # hand-kept").replace('\n', "\r\n")
            )
        } else {
            good.push(format!("org.global.decision.{i:03}"));
            entity(i, "[api, db]")
        };
        std::fs::write(ns.join(name), text).unwrap();
    }
    (good, bad)
}

#[test]
fn heal_reads_every_file_and_reports_the_unreadable_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = many(dir.path());
    let memory = ContextMemory::builder(dir.path())
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let ns = Namespace::org_global();
    let report = memory.heal(&ns).unwrap();
    let added: Vec<&str> = report.added.iter().map(|n| n.as_str()).collect();
    assert_eq!(added, good);
    let unreadable: Vec<String> = report
        .unreadable
        .iter()
        .map(|w| w.path.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    assert_eq!(unreadable, bad);
    assert!(
        report.unreadable.iter().all(|w| w.line >= 2),
        "{:?}",
        report.unreadable
    );
    let verify = memory.verify(&ns).unwrap();
    assert_eq!(verify.rows, good.len());
    assert_eq!(verify.files, 300);
    assert!(
        verify.missing_files.is_empty()
            && verify.unindexed_files.is_empty()
            && verify.mismatched.is_empty(),
        "{verify:?}"
    );
    assert_eq!(verify.unreadable.len(), bad.len());
    assert!(
        verify.has_drift(),
        "files that do not read are drift to report until fixed by hand"
    );
    let index = std::fs::read_to_string(dir.path().join("org/global/_index.md")).unwrap();
    assert!(index.contains("| org.global.decision.011 | decision | Decision 11. | 登入, it's | accepted | decision-011-x.md |"), "{index}");
    assert!(
        !memory.heal(&ns).unwrap().written,
        "a second heal finds nothing to do"
    );
}

#[test]
fn heal_of_an_existing_index_keeps_summaries_and_order() {
    let dir = tempfile::tempdir().unwrap();
    many(dir.path());
    let memory = ContextMemory::open(dir.path()).unwrap();
    let ns = Namespace::org_global();
    memory.heal(&ns).unwrap();
    let path = dir.path().join("org/global/_index.md");
    let index = std::fs::read_to_string(&path).unwrap();
    let index = index.replace("| Decision 5. |", "| Kept by hand |");
    std::fs::write(&path, &index).unwrap();
    std::fs::remove_file(dir.path().join("org/global/decision-003-x.md")).unwrap();
    std::fs::write(
        dir.path().join("org/global/decision-005-x.md"),
        entity(5, "[ops, ui]"),
    )
    .unwrap();
    let report = memory.heal(&ns).unwrap();
    assert_eq!(report.removed.len(), 1);
    assert_eq!(report.removed[0].as_str(), "org.global.decision.003");
    assert_eq!(report.updated.len(), 1);
    let healed = std::fs::read_to_string(&path).unwrap();
    assert!(
        healed.contains("| org.global.decision.005 | decision | Kept by hand | ops, ui |"),
        "{healed}"
    );
    assert!(!healed.contains("decision.003"));
}

#[cfg(unix)]
#[test]
fn a_linked_entity_file_is_neither_followed_nor_indexed() {
    let dir = tempfile::tempdir().unwrap();
    many(dir.path());
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("secret.md");
    std::fs::write(&target, entity(999, "[a, b]")).unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("org/global/decision-999-x.md")).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let report = memory.heal(&Namespace::org_global()).unwrap();
    assert!(
        report
            .added
            .iter()
            .all(|n| n.as_str() != "org.global.decision.999")
    );
    assert!(
        report
            .unreadable
            .iter()
            .all(|w| !w.path.ends_with("decision-999-x.md"))
    );
}

#[cfg(unix)]
#[test]
fn a_linked_namespace_directory_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    many(outside.path());
    std::fs::create_dir_all(dir.path().join("org")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("org/global"),
        dir.path().join("org/global"),
    )
    .unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let err = memory.heal(&Namespace::org_global()).unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput, "{err}");
    assert!(
        err.to_string().contains("passes through a symbolic link"),
        "{err}"
    );
    assert!(!outside.path().join("org/global/_index.md").exists());
}

/// Two files naming one entity, among many (read on several threads): the one its row
/// points at is kept, else the first by file name; the other is reported by path and
/// its `entity_name` line, kept out of the index, never touched.
#[test]
fn a_second_file_of_one_entity_is_reported_by_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    many(dir.path());
    let ns_dir = dir.path().join("org/global");
    let copy = entity(1, "[api, db]").replace("entity_name", "# a copy\nentity_name");
    std::fs::write(ns_dir.join("decision-250-copy.md"), &copy).unwrap();
    let memory = ContextMemory::open(dir.path()).unwrap();
    let ns = Namespace::org_global();
    let report = memory.heal(&ns).unwrap();
    let second: Vec<_> = report
        .unreadable
        .iter()
        .filter(|w| w.message.contains("holds too"))
        .collect();
    assert_eq!(second.len(), 1, "{:?}", report.unreadable);
    assert_eq!(second[0].path, ns_dir.join("decision-250-copy.md"));
    assert_eq!(second[0].line, 3);
    assert_eq!(
        second[0].message,
        "names org.global.decision.001, which decision-001-x.md holds too; one entity has one \
         file, so this one is kept out of the index (rename or remove one of them)"
    );
    let paths: Vec<_> = report.unreadable.iter().map(|w| w.path.clone()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "reported in path order");
    // The row pointed at the copy: the copy is the entity's file, the first one is not.
    let index_path = ns_dir.join("_index.md");
    let index = std::fs::read_to_string(&index_path).unwrap();
    let index = index.replace("| decision-001-x.md |", "| decision-250-copy.md |");
    std::fs::write(&index_path, &index).unwrap();
    let report = memory.verify(&ns).unwrap();
    let second: Vec<_> = report
        .unreadable
        .iter()
        .filter(|w| w.message.contains("holds too"))
        .collect();
    assert_eq!(second.len(), 1, "{:?}", report.unreadable);
    assert_eq!(second[0].path, ns_dir.join("decision-001-x.md"));
    assert_eq!(second[0].line, 2);
    assert!(
        second[0]
            .message
            .contains("which decision-250-copy.md holds too"),
        "{:?}",
        second[0]
    );
    assert_eq!(
        std::fs::read_to_string(ns_dir.join("decision-250-copy.md")).unwrap(),
        copy,
        "never touched"
    );
}
