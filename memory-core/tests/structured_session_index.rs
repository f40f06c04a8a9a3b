//! `session_index()`: what a SessionStart hook loads. A `MEMORY.md` that `index()`
//! refuses (a comment, fence or frontmatter block never closed) comes back whole as text
//! with the file and line of the damage; a missing one is empty and not created; a file
//! that is not UTF-8 is printed as well as it decodes, with the line of its first bad byte.

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
fn a_missing_index_is_empty_and_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let m = StructuredMemory::open(dir.path()).unwrap();
    let start = m.session_index().unwrap();
    assert_eq!(start.text, "");
    assert!(start.index.unwrap().lines.is_empty());
    assert!(start.damaged.is_none() && start.budget.warning().is_none());
    assert!(!dir.path().join("MEMORY.md").exists());
}

/// `MEMORY.md` in another encoding (Windows-1252's `\x97` dash, Latin-1), with a NUL
/// byte, or in UTF-16 (either byte order, with its byte-order mark): the session start
/// prints it as well as it decodes and names the line of the first byte that does not
/// read; every other command still refuses it naming the file and that line, and nothing
/// is written.
#[test]
fn an_index_that_is_not_utf8_is_printed_lossily_with_its_line() {
    let utf16 = |big: bool| -> Vec<u8> {
        let mut out = if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for unit in "- [A](a.md) — ä\n- [B](b.md) — b\n".encode_utf16() {
            out.extend(if big {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    };
    let cases: Vec<(Vec<u8>, &str, usize, &str)> = vec![
        (
            b"- [A](a.md) \xe2\x80\x94 a\n- [U](u.md) \x97 dash\n".to_vec(),
            "- [A](a.md) — a\n- [U](u.md) \u{fffd} dash\n",
            2,
            "not valid UTF-8",
        ),
        (
            b"# Memory\n\n- [C](caf\xe9.md) \xe9t\xe9\n".to_vec(),
            "# Memory\n\n- [C](caf\u{fffd}.md) \u{fffd}t\u{fffd}\n",
            3,
            "not valid UTF-8",
        ),
        (
            b"- [A](a.md) \xe2\x80\x94 a\n- [V](v.md) \x00 nul\n".to_vec(),
            "- [A](a.md) — a\n- [V](v.md) \u{fffd} nul\n",
            2,
            "NUL byte",
        ),
        (
            utf16(false),
            "- [A](a.md) — ä\n- [B](b.md) — b\n",
            1,
            "UTF-16",
        ),
        (
            utf16(true),
            "- [A](a.md) — ä\n- [B](b.md) — b\n",
            1,
            "UTF-16",
        ),
    ];
    for (bytes, printed, line, why) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        std::fs::write(&path, &bytes).unwrap();
        let m = StructuredMemory::open(dir.path()).unwrap();
        let start = m.session_index().unwrap();
        assert_eq!(start.text, printed, "{bytes:?}");
        assert!(start.index.is_none());
        let damaged = start.damaged.clone().unwrap();
        assert_eq!(damaged.line, line, "{bytes:?}");
        assert!(damaged.message.contains(why), "{damaged}");
        assert!(
            start.warnings()[0].contains(&format!("MEMORY.md:{line}: ")),
            "{:?}",
            start.warnings()
        );
        // The other commands refuse it, naming the file and a line; nothing is written.
        let refused = m.index().unwrap_err();
        assert!(
            matches!(&refused, Error::Malformed { line: l, .. } if *l >= 1),
            "{refused}"
        );
        assert!(refused.to_string().contains("MEMORY.md:"), "{refused}");
        let write =
            m.remember(memory_core::structured_memory::Fact::new("memory-x.md", "x").hook("x"));
        assert!(matches!(write, Err(Error::Malformed { .. })), "{write:?}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert!(!dir.path().join("memory-x.md").exists());
    }
}

/// A `MEMORY.md` that is a symbolic link (a dotfiles checkout, a synced folder) is loaded
/// by the SessionStart hook through the link, with a warning saying where it leads; the
/// commands that write still refuse the link and leave it and its target as they were.
#[cfg(unix)]
#[test]
fn a_symlinked_index_is_read_through_by_the_hook_and_refused_by_writes() {
    use memory_core::structured_memory::Fact;
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("dotfiles");
    let d = dir.path().join("memory");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&d).unwrap();
    let text = "- [X](memory-x.md) — x things\n";
    std::fs::write(elsewhere.join("MEMORY.md"), text).unwrap();
    std::os::unix::fs::symlink("../dotfiles/MEMORY.md", d.join("MEMORY.md")).unwrap();
    let m = StructuredMemory::open(&d).unwrap();
    let start = m.session_index().unwrap();
    assert_eq!(start.text, text);
    assert_eq!(start.index.as_ref().unwrap().lines[0].file, "memory-x.md");
    assert!(start.damaged.is_none());
    let warnings = start.warnings();
    assert!(
        warnings[0].contains("symbolic link") && warnings[0].contains("dotfiles"),
        "{warnings:?}"
    );
    let json = serde_json::to_value(&start).unwrap();
    assert_eq!(json["warnings"][0], warnings[0].as_str());
    let err = m
        .remember(Fact::new("memory-x.md", "a fact").hook("x things"))
        .unwrap_err();
    assert!(matches!(err, Error::LinkRefused { .. }), "{err}");
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("MEMORY.md")).unwrap(),
        text
    );
    assert!(
        std::fs::symlink_metadata(d.join("MEMORY.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Every read reads a symlinked `MEMORY.md` through the link and says so — `index()`
/// (`through_link`), `recall` (its warning), `check` (`linked_index`, the rest checked as
/// usual), the session start — while every write (remember, compact, a dry run too,
/// restore) still refuses it and leaves the link and its target as they were.
#[cfg(unix)]
#[test]
fn every_read_goes_through_a_symlinked_index_and_every_write_refuses_it() {
    use memory_core::structured_memory::{DefaultCompactor, Fact};
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("dotfiles");
    let d = dir.path().join("memory");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&d).unwrap();
    let text = "- [Infra](memory-infra.md) — hosts, databases\n- [Gone](memory-gone.md) — lost\n";
    std::fs::write(elsewhere.join("MEMORY.md"), text).unwrap();
    std::fs::write(
        d.join("memory-infra.md"),
        "# Infra\n\n- 2026-07-01 [db]: Postgres 16\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../dotfiles/MEMORY.md", d.join("MEMORY.md")).unwrap();
    let m = StructuredMemory::open(&d).unwrap();

    let index = m.index().unwrap();
    assert_eq!(index.lines.len(), 2);
    let target = std::path::PathBuf::from("../dotfiles/MEMORY.md");
    assert_eq!(index.through_link.as_ref(), Some(&target));
    assert!(
        index
            .link_warning()
            .unwrap()
            .contains("../dotfiles/MEMORY.md")
    );
    assert_eq!(
        serde_json::to_value(&index).unwrap()["through_link"],
        "../dotfiles/MEMORY.md"
    );
    let (hits, warnings) = m.recall_with_warnings("databases").unwrap();
    assert_eq!(hits[0].line.file, "memory-infra.md");
    let messages: Vec<_> = warnings
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    assert_eq!(messages, [(0, index.link_warning().unwrap().as_str())]);
    assert_eq!(m.recall("databases").unwrap(), hits);
    let found = m.check().unwrap();
    let kinds: Vec<_> = found
        .iter()
        .map(|v| (v.kind.as_str(), v.file.as_str(), v.line))
        .collect();
    assert_eq!(
        kinds,
        [
            ("linked_index", "MEMORY.md", 0),
            ("dangling_index_line", "MEMORY.md", 2)
        ]
    );
    let start = m.session_index().unwrap();
    assert_eq!(
        start.index.as_ref().unwrap().through_link.as_ref(),
        Some(&target)
    );
    assert_eq!(m.topic("memory-infra.md").unwrap().entries.len(), 1);

    let before = std::fs::read(elsewhere.join("MEMORY.md")).unwrap();
    let topic_before = std::fs::read(d.join("memory-infra.md")).unwrap();
    let refused = [
        m.remember(Fact::new("memory-infra.md", "Postgres 17").subject("db"))
            .unwrap_err(),
        m.compact(None, &DefaultCompactor, true).unwrap_err(),
        m.compact(Some("memory-infra.md"), &DefaultCompactor, false)
            .unwrap_err(),
    ];
    for err in refused {
        assert!(matches!(err, Error::LinkRefused { .. }), "{err}");
    }
    assert_eq!(std::fs::read(elsewhere.join("MEMORY.md")).unwrap(), before);
    assert_eq!(
        std::fs::read(d.join("memory-infra.md")).unwrap(),
        topic_before
    );
    assert!(
        std::fs::symlink_metadata(d.join("MEMORY.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A plain index says nothing of links.
    std::fs::remove_file(d.join("MEMORY.md")).unwrap();
    std::fs::write(d.join("MEMORY.md"), text).unwrap();
    assert_eq!(m.index().unwrap().through_link, None);
    assert!(m.recall_with_warnings("databases").unwrap().1.is_empty());
    assert!(
        !m.check()
            .unwrap()
            .iter()
            .any(|v| v.kind.as_str() == "linked_index")
    );
}
