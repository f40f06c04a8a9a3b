//! A comment opened on a hand-written line of `MEMORY.md` and never closed (`%%` anywhere
//! outside code, a list item's line too; `<!--`) hides every later line in Obsidian:
//! `check` reports it as `unclosed_comment` at the line it opens on, naming the lines and
//! pointer lines it hides, and a session start still loads the whole index and warns
//! naming the line.

use memory_core::structured_memory::StructuredMemory;

/// A directory with `MEMORY.md` as `index` and a topic file for each of `a.md`, `b.md`,
/// `c.md` (so that only the comment is wrong).
fn directory(index: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("MEMORY.md"), index).unwrap();
    for file in ["a.md", "b.md", "c.md"] {
        std::fs::write(dir.path().join(file), "- 2026-07-01: a fact\n").unwrap();
    }
    dir
}

fn unclosed(dir: &tempfile::TempDir) -> Vec<(usize, String)> {
    StructuredMemory::open(dir.path())
        .unwrap()
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "unclosed_comment")
        .map(|v| {
            assert_eq!(v.file, "MEMORY.md");
            (v.line, v.message)
        })
        .collect()
}

#[test]
fn an_unclosed_comment_is_reported_at_its_line_naming_what_it_hides() {
    for (index, line, says) in [
        // On a hand-written list item: memory-core reads on, Obsidian hides b and c.
        (
            "- [A](a.md) — a\n- note to self %% private\n- [B](b.md) — b\n- [C](c.md) — c\n",
            2,
            "the pointer lines of b.md (line 3), c.md (line 4)",
        ),
        // In a hook: the rest of the index is hidden in Obsidian.
        (
            "- [A](a.md) — a %% draft\n- [B](b.md) — b\n- [C](c.md) — c\n",
            1,
            "lines 2–3 — the pointer lines of b.md (line 2), c.md (line 3)",
        ),
        // On a line of prose, hiding prose only: the index reads.
        (
            "- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\nA note %% never closed\nmore\n",
            4,
            "line 5 (no pointer line among them)",
        ),
        // `<!--` on its own line at the end: nothing after it yet.
        (
            "- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n<!-- todo\n",
            4,
            "`<!--` opens a comment here",
        ),
    ] {
        let dir = directory(index);
        let found = unclosed(&dir);
        assert_eq!(found.len(), 1, "{index:?}: {found:#?}");
        assert_eq!(found[0].0, line, "{index:?}: {found:#?}");
        assert!(found[0].1.contains(says), "{index:?}: {}", found[0].1);
        assert!(found[0].1.contains("Obsidian hides"), "{}", found[0].1);
    }
}

#[test]
fn closed_comments_and_code_are_not_reported() {
    let index = "---\ndescription: a %% b\n---\n%% a note\nover two lines %%\n- [A](a.md) — a %% aside %%\n<!-- x -->\n```\n%% code\n```\n- [B](b.md) — b\n## Notes\n    %% indented code\n- [C](c.md) — c\n";
    let dir = directory(index);
    assert_eq!(unclosed(&dir), []);
    // The code is content (lines 8–10, 13), and the index reads: nothing else is wrong.
    let found = StructuredMemory::open(dir.path()).unwrap().check().unwrap();
    let other: Vec<(&str, usize)> = found.iter().map(|v| (v.kind.as_str(), v.line)).collect();
    let content = |line| ("content_in_index", line);
    assert_eq!(other, [content(8), content(9), content(10), content(13)]);
}

#[test]
fn one_that_hides_a_pointer_from_the_reader_stays_unreadable_index() {
    // The reader takes a `%%` on a line of text for a comment: a pointer after it is lost
    // to it, so the index does not read; it is reported once, as that.
    let dir = directory("- [A](a.md) — a\nnote %% open\n- [B](b.md) — b\n- [C](c.md) — c\n");
    let found = StructuredMemory::open(dir.path()).unwrap().check().unwrap();
    let kinds: Vec<(&str, usize)> = found
        .iter()
        .filter(|v| v.file == "MEMORY.md")
        .map(|v| (v.kind.as_str(), v.line))
        .collect();
    assert_eq!(kinds, [("unreadable_index", 2)], "{found:#?}");
}

#[test]
fn a_session_start_loads_the_whole_index_and_warns_naming_the_line() {
    let index = "- [A](a.md) — a\n- note to self %% private\n- [B](b.md) — b\n";
    let dir = directory(index);
    let start = StructuredMemory::open(dir.path())
        .unwrap()
        .session_index()
        .unwrap();
    assert_eq!(start.text, index);
    assert!(start.damaged.is_none());
    let files: Vec<&str> = start
        .index
        .as_ref()
        .unwrap()
        .lines
        .iter()
        .map(|l| l.file.as_str())
        .collect();
    assert_eq!(files, ["a.md", "b.md"], "the index still reads");
    let comment = start.unclosed_comment.as_ref().unwrap();
    assert_eq!(comment.line, 2);
    let warnings = start.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("MEMORY.md:2: `%%` opens a comment"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("b.md (line 3)"), "{warnings:?}");
    // The JSON form keeps its shape: the warning is in `warnings`.
    let json = serde_json::to_value(&start).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 5, "{keys:?}");
    assert_eq!(json["warnings"][0], warnings[0].as_str());
    // A sound index has no such warning.
    let dir = directory("- [A](a.md) — a %% aside %%\n");
    let start = StructuredMemory::open(dir.path())
        .unwrap()
        .session_index()
        .unwrap();
    assert!(start.unclosed_comment.is_none() && start.warnings().is_empty());
}
