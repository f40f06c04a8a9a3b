//! `compact` of every file when some do not read (a frontmatter never closed, not UTF-8,
//! a fence or comment hiding entries, a symbolic link, a directory): each is reported with
//! file, line and kind in `not_compacted`, every other file is compacted, and nothing of
//! the unreadable ones changes. `compact FILE` of one of them is still its error.

use memory_core::ErrorKind;
use memory_core::structured_memory::{Budgets, DefaultCompactor, StructuredMemory};
use std::fs;

/// Bytes that do not read as a topic file, the line the reader names and the kind.
fn unreadable() -> Vec<(&'static str, Vec<u8>, usize, ErrorKind)> {
    vec![
        (
            "frontmatter",
            b"---\nname: b\n- 2026-07-01: x\n".to_vec(),
            1,
            ErrorKind::Malformed,
        ),
        (
            "not-utf8",
            b"- 2026-07-01: caf\xe9\n".to_vec(),
            1,
            ErrorKind::Malformed,
        ),
        (
            "comment",
            b"- 2026-07-01: x\n\n<!-- open\n\n- 2026-07-02: hidden\n".to_vec(),
            3,
            ErrorKind::Malformed,
        ),
    ]
}

#[test]
fn one_unreadable_topic_does_not_block_the_others() {
    for (what, bytes, line, kind) in unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let stale: String = (1..=4)
            .map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n"))
            .collect();
        // The unreadable file first and last: its place in the index does not matter.
        fs::write(d.join("memory-a.md"), &stale).unwrap();
        fs::write(d.join("memory-bad.md"), &bytes).unwrap();
        fs::write(d.join("memory-z.md"), &stale).unwrap();
        fs::write(
            d.join("MEMORY.md"),
            "- [Bad](memory-bad.md) — bad\n- [A](memory-a.md) — a\n- [Z](memory-z.md) — z\n",
        )
        .unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(2))
            .open()
            .unwrap();
        let dry = m.compact(None, &DefaultCompactor, true).unwrap();
        assert_eq!(dry.not_compacted.len(), 1, "{what}");
        let report = m.compact(None, &DefaultCompactor, false).unwrap();
        let n = &report.not_compacted[0];
        assert_eq!(
            (n.file.as_str(), n.line, n.kind),
            ("memory-bad.md", line, kind),
            "{what}: {n:?}"
        );
        assert!(!n.message.is_empty() && !n.message.contains(&d.display().to_string()));
        assert_eq!(report.files.len(), 2, "{what}: {report:?}");
        for f in ["memory-a.md", "memory-z.md"] {
            let topic = m.topic(f).unwrap();
            assert_eq!(topic.entries.len(), 1, "{what}: {f}");
        }
        assert_eq!(fs::read(d.join("memory-bad.md")).unwrap(), bytes, "{what}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["not_compacted"][0]["kind"], kind.as_str(), "{json}");
        // Compacting it alone is its error, as before.
        let err = m
            .compact(Some("memory-bad.md"), &DefaultCompactor, false)
            .unwrap_err();
        assert_eq!(err.kind(), kind, "{what}: {err}");
    }
}

#[test]
fn a_link_or_a_directory_in_place_of_a_topic_is_reported_and_the_rest_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stale: String = (1..=4)
        .map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n"))
        .collect();
    fs::write(d.join("memory-a.md"), &stale).unwrap();
    fs::create_dir(d.join("memory-dir.md")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("t.md"), &stale).unwrap();
    std::os::unix::fs::symlink(outside.path().join("t.md"), d.join("memory-link.md")).unwrap();
    fs::write(
        d.join("MEMORY.md"),
        "- [Dir](memory-dir.md) — d\n- [Link](memory-link.md) — l\n- [A](memory-a.md) — a\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(2))
        .open()
        .unwrap();
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let skipped: Vec<&str> = report
        .not_compacted
        .iter()
        .map(|n| n.file.as_str())
        .collect();
    assert_eq!(skipped, ["memory-dir.md", "memory-link.md"], "{report:?}");
    assert_eq!(m.topic("memory-a.md").unwrap().entries.len(), 1);
    assert_eq!(
        fs::read_to_string(outside.path().join("t.md")).unwrap(),
        stale
    );
    assert!(
        d.join("memory-archive.md").exists(),
        "memory-a.md's generations archived"
    );
}
