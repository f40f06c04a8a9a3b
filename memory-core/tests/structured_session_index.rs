//! `session_index()`: what a SessionStart hook loads. A `MEMORY.md` that `index()`
//! refuses (a comment, fence or frontmatter block never closed) comes back whole as text
//! with the file and line of the damage; a missing one is empty and not created; a file
//! that is not text stays an error.

use memory_core::Error;
use memory_core::structured_memory::{Budgets, StructuredMemory};

#[test]
fn every_damage_index_refuses_comes_back_whole_with_its_line() {
    for (text, line) in [
        ("- [A](a.md) — a\n<!-- open\n- [B](b.md) — b\n", 2),
        ("- [A](a.md) — a\r\n~~~\r\n- [B](b.md) — b\r\n", 2),
        ("---\ntitle: x\n- [A](a.md) — a\n", 1),
        ("# Index\n\n<pre>\n- [Ü](ü.md) — ünïcode", 3),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("MEMORY.md"), text).unwrap();
        let m = StructuredMemory::builder(dir.path())
            .budgets(Budgets::default().index_lines(2))
            .open()
            .unwrap();
        let refused = m.index().unwrap_err();
        assert!(matches!(refused, Error::Malformed { .. }), "{refused}");
        let start = m.session_index().unwrap();
        assert_eq!(start.text, text);
        assert!(start.index.is_none());
        let damaged = start.damaged.clone().unwrap();
        assert_eq!(damaged.line, line, "{text:?}");
        assert!(damaged.path.ends_with("MEMORY.md"));
        assert_eq!(start.budget.lines, text.lines().count(), "{text:?}");
        let warnings = start.warnings();
        assert_eq!(warnings.len(), 2, "damage, then budget: {warnings:?}");
        assert!(
            warnings[0].contains(&format!("MEMORY.md:{line}: ")),
            "{warnings:?}"
        );
    }
}

#[test]
fn a_missing_index_is_empty_and_not_created_and_binary_stays_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let m = StructuredMemory::open(dir.path()).unwrap();
    let start = m.session_index().unwrap();
    assert_eq!(start.text, "");
    assert!(start.index.unwrap().lines.is_empty());
    assert!(start.damaged.is_none() && start.budget.warning().is_none());
    assert!(!dir.path().join("MEMORY.md").exists());
    std::fs::write(dir.path().join("MEMORY.md"), b"- [A](a.md) \xff\n").unwrap();
    assert!(matches!(
        m.session_index(),
        Err(Error::Malformed { line: 1, .. })
    ));
}
