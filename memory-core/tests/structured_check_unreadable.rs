//! `check` reports what it cannot read instead of failing: an index line pointing at a
//! symbolic link, a directory or a path through a file is an `unreadable_topic`, a
//! `memory-archive.md` that does not read (or a section of it that does not) an
//! `unreadable_archive` — and the check goes on to every other file. The other commands
//! keep their typed refusal.

use std::path::Path;

use memory_core::Error;
use memory_core::structured_memory::{Fact, StructuredMemory, Violation};

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// A directory with one good topic (`memory-ok.md`, holding an undated hand note so that
/// the check has something to find after the broken line) and `extra` index lines.
fn seed(dir: &Path, extra: &str) {
    std::fs::write(
        dir.join("memory-ok.md"),
        "- 2026-07-01: fine\n- a hand note\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("MEMORY.md"),
        format!("{extra}- [Ok](memory-ok.md) — fine things\n"),
    )
    .unwrap();
}

fn kinds(found: &[Violation]) -> Vec<(&str, &str, usize)> {
    found
        .iter()
        .map(|v| (v.kind.as_str(), v.file.as_str(), v.line))
        .collect()
}

#[test]
fn a_symlinked_topic_is_reported_and_the_check_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(d, "- [L](memory-l.md) — linked\n");
    std::os::unix::fs::symlink("memory-ok.md", d.join("memory-l.md")).unwrap();
    let m = memory(d);
    let found = m.check().unwrap();
    assert_eq!(
        kinds(&found),
        [
            ("unreadable_topic", "memory-l.md", 0),
            ("undated_entry", "memory-ok.md", 2)
        ]
    );
    let message = &found[0].message;
    assert!(message.contains("symbolic link"), "{message}");
    assert!(message.contains("MEMORY.md line 1"), "{message}");
    // Every other command keeps its typed refusal.
    assert!(matches!(
        m.topic("memory-l.md"),
        Err(Error::LinkRefused { .. })
    ));
    assert!(m.remember(Fact::new("memory-l.md", "x")).is_err());
}

#[test]
fn a_directory_or_a_path_through_a_file_is_reported_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(
        d,
        "- [D](subdir.md) — a directory\n- [F](plain/x.md) — through a file\n",
    );
    std::fs::create_dir(d.join("subdir.md")).unwrap();
    std::fs::write(d.join("plain"), "not a directory\n").unwrap();
    let m = memory(d);
    let found = m.check().unwrap();
    assert_eq!(
        kinds(&found),
        [
            ("undated_entry", "memory-ok.md", 2),
            ("unreadable_topic", "plain/x.md", 0),
            ("unreadable_topic", "subdir.md", 0),
        ]
    );
    assert!(found[1].message.contains("MEMORY.md line 2"), "{found:?}");
    assert!(
        found[2].message.to_lowercase().contains("directory"),
        "{found:?}"
    );
    assert!(found[2].message.contains("MEMORY.md line 1"), "{found:?}");
    assert!(
        !found[2].message.contains(&*d.to_string_lossy()),
        "no absolute path: {found:?}"
    );
    assert!(matches!(m.topic("subdir.md"), Err(Error::Io { .. })));
}

#[test]
fn a_topic_that_is_not_utf8_is_reported_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(d, "- [B](memory-b.md) — binary\n");
    std::fs::write(d.join("memory-b.md"), b"- 2026-07-01: ok\n\xff\xfe\n").unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(found[0].kind.as_str(), "unreadable_topic");
    assert_eq!((found[0].file.as_str(), found[0].line), ("memory-b.md", 2));
}

fn archive_violations(archive: &[u8]) -> Vec<Violation> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(d, "");
    std::fs::write(d.join("memory-archive.md"), archive).unwrap();
    memory(d)
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.file == "memory-archive.md")
        .collect()
}

#[test]
fn an_archive_that_does_not_read_is_reported_with_its_line() {
    for (archive, line, says) in [
        (&b"# Memory archive\n\xff\xfe bad\n"[..], 2, "UTF-8"),
        (&b"# Memory archive\n\na\x00b\n"[..], 3, "NUL"),
    ] {
        let found = archive_violations(archive);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind.as_str(), "unreadable_archive");
        assert_eq!(found[0].line, line, "{found:?}");
        assert!(found[0].message.contains(says), "{found:?}");
        assert!(found[0].message.contains("every write"), "{found:?}");
    }
}

#[test]
fn an_archive_that_is_a_directory_or_a_link_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(d, "");
    std::fs::create_dir(d.join("memory-archive.md")).unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(
        kinds(&found),
        [
            ("unreadable_archive", "memory-archive.md", 0),
            ("undated_entry", "memory-ok.md", 2)
        ]
    );
    std::fs::remove_dir(d.join("memory-archive.md")).unwrap();
    std::fs::write(d.join("elsewhere.txt"), "# Memory archive\n").unwrap();
    std::os::unix::fs::symlink("elsewhere.txt", d.join("memory-archive.md")).unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(found[0].kind.as_str(), "unreadable_archive");
    assert!(found[0].message.contains("symbolic link"), "{found:?}");
}

#[test]
fn an_archive_section_that_does_not_parse_is_reported_at_its_heading() {
    let archive = "# Memory archive\n\n\
        ## c-20260710-001 · merge · memory-ok.md · 2026-07-10T09:00:00Z\n\n- 2026-06-01: fine\n\n\
        ## c-20260710-002 · bogus-pass · memory-ok.md · 2026-07-10T09:00:00Z\n\n- 2026-06-02: a\n\n\
        ## c-20260710-003\n\n- 2026-06-03: b\n\n\
        ## c-20260710-004 · collapse-superseded · memory-ok.md · 2026-07-10T09:00:00Z\n\n- 2026-06-04: c\n<!-- never closed\n- 2026-06-05: d\n\n\
        ## My own notes\n\nkept by hand\n";
    let found = archive_violations(archive.as_bytes());
    let lines: Vec<usize> = found.iter().map(|v| v.line).collect();
    assert_eq!(lines, [7, 11, 15], "{found:?}");
    assert!(
        found
            .iter()
            .all(|v| v.kind.as_str() == "unreadable_archive")
    );
    assert!(found[0].message.contains("bogus-pass"), "{found:?}");
    assert!(
        found[2].message.contains("restore c-20260710-004"),
        "{found:?}"
    );
}

#[test]
fn an_archive_memory_core_wrote_breaks_no_rule() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d);
    for (text, date) in [("pg15", "2026-06-01"), ("pg16", "2026-06-02")] {
        m.remember(
            Fact::new("memory-db.md", text)
                .subject("db")
                .date(date)
                .hook("databases"),
        )
        .unwrap();
    }
    assert!(d.join("memory-archive.md").exists());
    assert_eq!(m.check().unwrap(), []);
}

/// A damaged `MEMORY.md` in every shape the reader refuses: `check` reports it with its
/// line and still checks every topic file and the archive; the other commands refuse it.
#[test]
fn a_damaged_index_is_reported_and_every_topic_and_the_archive_still_checked() {
    for (index, line) in [
        (&b"- [Ok](memory-ok.md) - fine\n<!-- a note never closed\n- [B](memory-b.md) - b\n"[..], 2),
        (&b"\xef\xbb\xbf- [Ok](memory-ok.md) \xe2\x80\x94 fine\r\n```\r\n- [B](memory-b.md) \xe2\x80\x94 b\r\n"[..], 2),
        (&b"%% open\n- [Ok](memory-ok.md) - fine\n"[..], 1),
        (&b"- [Ok](memory-ok.md) - fine\n\xff\xfe\n"[..], 2),
        (&b"- [Ok](memory-ok.md) - fine\na\x00b\n"[..], 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        seed(d, "");
        std::fs::write(d.join("MEMORY.md"), index).unwrap();
        std::fs::write(d.join("memory-misc.md"), "- 2026-07-01: a thing\n").unwrap();
        std::fs::write(d.join("memory-archive.md"), b"# Memory archive\n\xff\n").unwrap();
        std::fs::write(d.join("index.md"), "agent memory's own\n").unwrap();
        let m = memory(d);
        let found = m.check().unwrap();
        assert_eq!(
            kinds(&found),
            [
                ("unreadable_index", "MEMORY.md", line),
                ("unreadable_archive", "memory-archive.md", 2),
                ("misc_topic", "memory-misc.md", 0),
                ("undated_entry", "memory-ok.md", 2),
            ],
            "{:?}",
            String::from_utf8_lossy(index)
        );
        assert!(found[0].message.contains("does not read"), "{found:?}");
        assert!(!found[0].message.contains(&*d.to_string_lossy()), "{found:?}");
        assert!(m.index().is_err());
        assert!(m.remember(Fact::new("memory-ok.md", "x")).is_err());
    }
}

#[test]
fn an_index_that_is_a_directory_or_a_link_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("memory-ok.md"),
        "- 2026-07-01: fine\n- a hand note\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("MEMORY.md")).unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(
        kinds(&found),
        [
            ("unreadable_index", "MEMORY.md", 0),
            ("undated_entry", "memory-ok.md", 2)
        ]
    );
    std::fs::remove_dir(d.join("MEMORY.md")).unwrap();
    std::fs::write(d.join("elsewhere.txt"), "- [Ok](memory-ok.md) — fine\n").unwrap();
    std::os::unix::fs::symlink("elsewhere.txt", d.join("MEMORY.md")).unwrap();
    // A link is read through (and reported: writes refuse it); the index it leads to is
    // checked as any other.
    let found = memory(d).check().unwrap();
    assert_eq!(
        kinds(&found),
        [
            ("linked_index", "MEMORY.md", 0),
            ("undated_entry", "memory-ok.md", 2)
        ]
    );
    assert!(
        found[0].message.contains("symbolic link to elsewhere.txt"),
        "{found:?}"
    );
    // A link that leads nowhere is unreadable, not an empty index.
    std::fs::remove_file(d.join("elsewhere.txt")).unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(found[0].kind.as_str(), "unreadable_index", "{found:?}");
    assert!(found[0].message.contains("symbolic link"), "{found:?}");
}
