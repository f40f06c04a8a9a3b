//! A refused `remember` creates nothing: not the memory directory, not its lock file,
//! not `MEMORY.md`, not the topic — whatever the refusal (a secret, a vague date, a bad
//! topic name, a missing hook, a compactor that fails) and whether the directory is
//! missing, empty, or a hand-kept one memory-core never wrote to.

use std::path::{Path, PathBuf};

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Entry, Fact, StructuredMemory, Topic,
};

fn memory(root: &Path, topic_lines: usize) -> StructuredMemory {
    StructuredMemory::builder(root)
        .budgets(Budgets::default().topic_lines(topic_lines))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// Every file and directory under `root`, with the files' bytes (`None` when `root` does
/// not exist).
fn tree(root: &Path) -> Option<Vec<(PathBuf, Option<Vec<u8>>)>> {
    if !root.exists() {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                out.push((path.clone(), None));
                stack.push(path);
            } else {
                out.push((path.clone(), Some(std::fs::read(&path).unwrap())));
            }
        }
    }
    out.sort();
    Some(out)
}

/// Fails every pass it is asked about.
struct Failing;

impl Compactor for Failing {
    fn dead(&self, _t: &Topic, _e: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        Err("the judge is out".into())
    }
}

/// Every way a write is refused, each a new topic so that nothing exists before it.
fn refusals() -> Vec<(&'static str, Fact, usize)> {
    let long_text = "x".repeat(70_000);
    let long_subject = "s".repeat(81);
    vec![
        (
            "vague date",
            Fact::new("memory-t.md", "moved it")
                .date("last week")
                .hook("h"),
            150,
        ),
        (
            "bad date",
            Fact::new("memory-t.md", "moved it")
                .date("2026-02-30")
                .hook("h"),
            150,
        ),
        (
            "vague text",
            Fact::new("memory-t.md", "we moved it recently").hook("h"),
            150,
        ),
        (
            "secret text",
            Fact::new("memory-t.md", "key AKIAZ7QX3RT5WVB2KMNP").hook("h"),
            150,
        ),
        (
            "secret hook",
            Fact::new("memory-t.md", "ok").hook("token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
            150,
        ),
        (
            "secret subject",
            Fact::new("memory-t.md", "ok")
                .subject("AKIAZ7QX3RT5WVB2KMNP")
                .hook("h"),
            150,
        ),
        (
            "secret title",
            Fact::new("memory-t.md", "ok")
                .title("AKIAZ7QX3RT5WVB2KMNP")
                .hook("h"),
            150,
        ),
        (
            "misc topic",
            Fact::new("memory-misc.md", "x").hook("misc"),
            150,
        ),
        ("the index", Fact::new("MEMORY.md", "x").hook("h"), 150),
        (
            "the archive",
            Fact::new("memory-archive.md", "x").hook("h"),
            150,
        ),
        (
            "agent memory's index",
            Fact::new("index.md", "x").hook("h"),
            150,
        ),
        (
            "agent memory's sessions",
            Fact::new("sessions/x.md", "x").hook("h"),
            150,
        ),
        ("outside", Fact::new("../outside.md", "x").hook("h"), 150),
        ("absolute", Fact::new("/tmp/abs.md", "x").hook("h"), 150),
        ("not markdown", Fact::new("notes.txt", "x").hook("h"), 150),
        ("empty name", Fact::new("", "x").hook("h"), 150),
        (
            "no hook for a new topic",
            Fact::new("memory-t.md", "x"),
            150,
        ),
        (
            "an empty hook for a new topic",
            Fact::new("memory-t.md", "x").hook("  "),
            150,
        ),
        (
            "two-line hook",
            Fact::new("memory-t.md", "x").hook("a\nb"),
            150,
        ),
        (
            "two-line title",
            Fact::new("memory-t.md", "x").title("a\nb").hook("h"),
            150,
        ),
        ("empty text", Fact::new("memory-t.md", "  ").hook("h"), 150),
        (
            "two paragraphs",
            Fact::new("memory-t.md", "one\n\ntwo").hook("h"),
            150,
        ),
        (
            "control character",
            Fact::new("memory-t.md", "a\u{7}b").hook("h"),
            150,
        ),
        (
            "an unclosed fence",
            Fact::new("memory-t.md", "x\n```").hook("h"),
            150,
        ),
        (
            "bracket in subject",
            Fact::new("memory-t.md", "x").subject("a]b").hook("h"),
            150,
        ),
        (
            "long subject",
            Fact::new("memory-t.md", "x")
                .subject(long_subject)
                .hook("h"),
            150,
        ),
        (
            "huge text",
            Fact::new("memory-t.md", long_text).hook("h"),
            150,
        ),
        (
            "a compactor that fails on the new topic",
            Fact::new("memory-t.md", "line one\nline two\nline three").hook("h"),
            2,
        ),
    ]
}

#[test]
fn a_refused_write_to_a_missing_directory_creates_nothing() {
    for (what, fact, lines) in refusals() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project").join("memory");
        let err = memory(&root, lines).remember_with(fact, &Failing);
        assert!(err.is_err(), "{what}: accepted");
        assert!(!root.exists(), "{what}: made {}", root.display());
        assert!(
            !dir.path().join("project").exists(),
            "{what}: made the parent"
        );
    }
}

#[test]
fn a_refused_write_to_an_empty_or_hand_kept_directory_changes_nothing() {
    for hand_kept in [false, true] {
        for (what, fact, lines) in refusals() {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            if hand_kept {
                std::fs::write(
                    root.join("MEMORY.md"),
                    "# Memory\n\n- [User](USER.md) — role\n",
                )
                .unwrap();
                std::fs::write(
                    root.join("USER.md"),
                    "- 2026-06-01: prefers terse answers\n",
                )
                .unwrap();
            }
            let before = tree(root);
            let err = memory(root, lines).remember_with(fact, &Failing);
            assert!(err.is_err(), "{what}: accepted");
            assert_eq!(tree(root), before, "{what} (hand kept: {hand_kept})");
        }
    }
}

#[test]
fn a_topic_that_does_not_read_refuses_the_write_without_a_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), "- [T](memory-t.md) — a topic\n").unwrap();
    std::fs::write(root.join("memory-t.md"), "---\nname: T\n- 2026-06-01: x\n").unwrap();
    let before = tree(root);
    let err = memory(root, 150)
        .remember(Fact::new("memory-t.md", "y"))
        .unwrap_err();
    assert_eq!(err.line(), Some(1), "{err}");
    assert_eq!(tree(root), before);
}

#[test]
fn the_first_write_that_is_accepted_creates_the_directory_and_everything_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let m = memory(&root, 150);
    assert!(m.remember(Fact::new("memory-t.md", "x")).is_err());
    let out = m
        .remember(Fact::new("memory-t.md", "Postgres 16").hook("hosts"))
        .unwrap();
    assert!(out.created_index && out.created_topic && out.linked);
    for file in ["MEMORY.md", "memory-t.md", ".memcore.lock"] {
        assert!(root.join(file).exists(), "{file}");
    }
    // Later writes (the lock file exists) plan once, under the lock.
    let out = m
        .remember(Fact::new("memory-t.md", "Debian 13").subject("os"))
        .unwrap();
    assert!(!out.created_index);
    assert_eq!(m.topic("memory-t.md").unwrap().entries.len(), 2);
}

#[test]
fn an_empty_hook_keeps_the_hook_the_line_has() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), 150);
    m.remember(Fact::new("memory-t.md", "a").hook("hosts, databases"))
        .unwrap();
    for empty in ["", "   "] {
        m.remember(Fact::new("memory-t.md", "b").hook(empty))
            .unwrap();
        assert_eq!(m.index().unwrap().lines[0].hook, "hosts, databases");
    }
    m.remember(Fact::new("memory-t.md", "c").hook("hosts only"))
        .unwrap();
    assert_eq!(m.index().unwrap().lines[0].hook, "hosts only");
}
