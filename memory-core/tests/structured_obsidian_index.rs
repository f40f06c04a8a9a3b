//! Obsidian habits in a memory directory: `[[wikilinks]]` in `MEMORY.md` are pointers
//! (the linked file is a topic, not an orphan); a `%% … %%` comment in a hook is not part of
//! the hook; copies sync clients make (`memory-x.sync-conflict-….md`, `memory-x (conflicted
//! copy ….).md`, `memory-x (1).md`) are reported as such, naming the original, not as
//! orphan topics.

use memory_core::structured_memory::{StructuredMemory, ViolationKind};
use std::fs;

#[test]
fn wikilinks_are_pointers() {
    // (line, file, title, hook)
    let cases = [
        (
            "- [[memory-x]] — hook x",
            "memory-x.md",
            "memory-x",
            "hook x",
        ),
        (
            "- [[memory-x.md]] — hook x",
            "memory-x.md",
            "memory-x",
            "hook x",
        ),
        (
            "- [[memory-x|Project X]] — hook x",
            "memory-x.md",
            "Project X",
            "hook x",
        ),
        (
            "- [[memory-x.md|Project X]]: hook x",
            "memory-x.md",
            "Project X",
            "hook x",
        ),
        (
            "- [[memory-x#Deploy]] - hook x",
            "memory-x.md",
            "memory-x",
            "hook x",
        ),
        (
            "* **[[memory-x]]** — hook x",
            "memory-x.md",
            "memory-x",
            "hook x",
        ),
        (
            "1. [[topics/memory-x]] — hook x",
            "topics/memory-x.md",
            "memory-x",
            "hook x",
        ),
        (
            "- [[v1.2 notes]] — hook x",
            "v1.2 notes.md",
            "v1.2 notes",
            "hook x",
        ),
        ("- [[memory-x]]", "memory-x.md", "memory-x", ""),
        (
            "- [[memory 50%]] — hook",
            "memory 50%.md",
            "memory 50%",
            "hook",
        ),
    ];
    for (line, file, title, hook) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        if let Some((sub, _)) = file.rsplit_once('/') {
            fs::create_dir_all(d.join(sub)).unwrap();
        }
        fs::write(d.join(file), "- 2026-07-01: a fact\n").unwrap();
        fs::write(d.join("MEMORY.md"), format!("{line}\n")).unwrap();
        let m = StructuredMemory::open(d).unwrap();
        let index = m.index().unwrap();
        assert!(index.content.is_empty(), "{line:?}: {:?}", index.content);
        let l = &index.lines[0];
        assert_eq!(
            (l.file.as_str(), l.title.as_str(), l.hook.as_str()),
            (file, title, hook),
            "{line:?}"
        );
        let found = m.check().unwrap();
        assert!(
            found
                .iter()
                .all(|v| v.kind != ViolationKind::OrphanTopic
                    && v.kind != ViolationKind::ContentInIndex),
            "{line:?}: {found:?}"
        );
        assert_eq!(m.topic(file).unwrap().entries.len(), 1);
    }
}

#[test]
fn wikilinks_to_attachments_and_embeds_are_content() {
    for line in [
        "- [[diagram.png]] — a picture",
        "- [[spec.pdf]] — a pdf",
        "- ![[memory-x]] — an embed",
        "- [[]] — empty",
        "- [[memory-x — never closed",
    ] {
        let index =
            memory_core::structured_memory::MemoryIndex::parse("MEMORY.md", format!("{line}\n"))
                .unwrap();
        assert!(index.lines.is_empty(), "{line:?}: {:?}", index.lines);
        assert_eq!(index.content.len(), 1, "{line:?}");
    }
}

#[test]
fn an_obsidian_comment_is_no_part_of_a_hook() {
    for (line, hook) in [
        (
            "- [Z](memory-z.md) — zed things %% private %%",
            "zed things",
        ),
        (
            "- [Z](memory-z.md) — %% private %% zed things",
            "zed things",
        ),
        ("- [Z](memory-z.md) — zed %%a%% things %%b%%", "zed  things"),
        (
            "- [Z](memory-z.md) — zed things %% never closed",
            "zed things",
        ),
        ("- [[memory-z]] — zed things %%note%%", "zed things"),
        ("- [Z](memory-z.md) — 50% off", "50% off"),
    ] {
        let index =
            memory_core::structured_memory::MemoryIndex::parse("MEMORY.md", format!("{line}\n"))
                .unwrap();
        assert_eq!(index.lines[0].hook, hook, "{line:?}");
    }
    // A hook that is only a comment is empty, and `check` says so.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("memory-z.md"), "- 2026-07-01: a\n").unwrap();
    fs::write(d.join("MEMORY.md"), "- [Z](memory-z.md) — %% todo %%\n").unwrap();
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    assert_eq!(found[0].kind, ViolationKind::EmptyHook, "{found:?}");
    // Recall does not match words in the comment.
    fs::write(
        d.join("MEMORY.md"),
        "- [Z](memory-z.md) — zed %% secretword %%\n",
    )
    .unwrap();
    assert!(
        StructuredMemory::open(d)
            .unwrap()
            .recall("secretword")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn sync_conflict_copies_are_their_own_kind_naming_the_original() {
    let copies = [
        (
            "memory-z.sync-conflict-20260701-120000-ABCDEF7.md",
            "memory-z.md",
        ),
        ("memory-z (conflicted copy 2026-07-01).md", "memory-z.md"),
        (
            "memory-z (Ann's conflicted copy 2026-07-01).md",
            "memory-z.md",
        ),
        (
            "memory-z (conflicted copy 2026-07-01 120000).md",
            "memory-z.md",
        ),
        ("memory-z (1).md", "memory-z.md"),
        ("memory-z (12).md", "memory-z.md"),
        ("USER (2).md", "USER.md"),
        (
            "my notes.sync-conflict-20260701-120000-XYZ.md",
            "my notes.md",
        ),
        ("memory-gone (1).md", "memory-gone.md"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["memory-z.md", "USER.md", "my notes.md"] {
        fs::write(d.join(f), "- 2026-07-01: a\n").unwrap();
    }
    for (copy, _) in copies {
        fs::write(d.join(copy), "- 2026-07-01: b\n").unwrap();
    }
    // Not copies: ordinary names with parentheses or the word.
    for f in [
        "memory-z (draft).md",
        "memory-sync-conflict.md",
        "memory-(1).md",
    ] {
        fs::write(d.join(f), "- 2026-07-01: c\n").unwrap();
    }
    fs::write(
        d.join("MEMORY.md"),
        "- [Z](memory-z.md) — z\n- [User](USER.md) — u\n",
    )
    .unwrap();
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    for (copy, original) in copies {
        let v = found
            .iter()
            .find(|v| v.file == copy)
            .unwrap_or_else(|| panic!("{copy}: {found:?}"));
        assert_eq!(v.kind, ViolationKind::SyncConflictCopy, "{copy}");
        assert!(v.message.contains(original), "{copy}: {}", v.message);
    }
    let unlinked = found
        .iter()
        .find(|v| v.file == "my notes.sync-conflict-20260701-120000-XYZ.md")
        .unwrap();
    assert!(
        unlinked.message.contains("itself not linked"),
        "{}",
        unlinked.message
    );
    let gone = found
        .iter()
        .find(|v| v.file == "memory-gone (1).md")
        .unwrap();
    assert!(gone.message.contains("which is gone"), "{}", gone.message);
    for f in [
        "memory-z (draft).md",
        "memory-sync-conflict.md",
        "memory-(1).md",
        "my notes.md",
    ] {
        let v = found.iter().find(|v| v.file == f).unwrap();
        assert_eq!(v.kind, ViolationKind::OrphanTopic, "{f}");
    }
    assert_eq!(
        ViolationKind::SyncConflictCopy.as_str(),
        "sync_conflict_copy"
    );
}

/// A write that adds an index line after a `%%` left open on a hand-written line (which
/// Obsidian hides everything after) goes ahead — memory-core and agents read the line —
/// and warns naming the line to close; a write adding no line does not warn.
#[test]
fn a_line_added_after_an_open_obsidian_comment_is_written_with_a_warning() {
    use memory_core::structured_memory::Fact;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts\n- a note %% private, never closed\n",
    )
    .unwrap();
    fs::write(d.join("memory-infra.md"), "# Infra\n\n- 2026-07-01: web1\n").unwrap();
    let m = StructuredMemory::builder(d)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let same = m
        .remember(Fact::new("memory-infra.md", "web2 runs nginx"))
        .unwrap();
    assert!(same.warnings.is_empty(), "{:?}", same.warnings);
    let out = m
        .remember(Fact::new("memory-build.md", "cargo needs --locked").hook("build quirks"))
        .unwrap();
    assert!(out.linked);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("MEMORY.md:2") && w.contains("Obsidian hides")),
        "{:?}",
        out.warnings
    );
    assert!(m.index().unwrap().line_for("memory-build.md").is_some());
}
