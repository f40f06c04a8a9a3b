//! What a write puts on a `MEMORY.md` line — a hook and a title, given or taken from a
//! topic's frontmatter, and the topic file's name — gets the same checks whatever its
//! source: one line, no control characters, no secret, and the line reads back as one
//! pointer. A refused value writes nothing.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};
use proptest::prelude::*;

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != ".memcore.lock")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Frontmatter descriptions that cannot be a hook, and the 1-based line the description
/// is on (after the BOM / CRLF variants keep it).
const BAD_DESCRIPTIONS: &[(&str, usize, &str)] = &[
    ("description: \"line\\nbreak\"\n", 3, "one line"),
    ("description: \"line\\rbreak\"\n", 3, "one line"),
    (
        "description: |\n  - [X](memory-x.md) — injected\n  second\n",
        3,
        "one line",
    ),
    ("description: >-\n  a\n\n  b\n", 3, "one line"),
    ("description: \"\\u0007 bell\"\n", 3, "control characters"),
    ("description: \"\\a bell\"\n", 3, "control characters"),
    (
        "description: \"esc \\e[31m red\"\n",
        3,
        "control characters",
    ),
    ("description: \"nul \\0 here\"\n", 3, "control characters"),
    ("description: has AKIAIOSFODNN7EXAMPLE\n", 3, "secret"),
    (
        "description: 'token ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123'\n",
        3,
        "secret",
    ),
    // Not YAML (read line by line): still checked.
    (
        "description: key: AKIAIOSFODNN7EXAMPLE: oops\n",
        3,
        "secret",
    ),
];

fn topic_with(description: &str, crlf: bool, bom: bool) -> String {
    let text = format!(
        "---\nname: Infra\n{description}type: project\n---\n# Infra\n\n- 2026-07-01: web1 runs nginx\n"
    );
    let text = if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    };
    if bom { format!("\u{feff}{text}") } else { text }
}

#[test]
fn a_description_that_cannot_be_a_hook_is_refused_naming_file_and_line() {
    for (description, line, why) in BAD_DESCRIPTIONS {
        for (crlf, bom) in [(false, false), (true, false), (false, true), (true, true)] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            std::fs::write(
                d.join("MEMORY.md"),
                "- [User](USER.md) — role, preferences\n",
            )
            .unwrap();
            std::fs::write(d.join("USER.md"), "- 2026-07-01: terse\n").unwrap();
            std::fs::write(
                d.join("memory-infra.md"),
                topic_with(description, crlf, bom),
            )
            .unwrap();
            let before = tree(d);
            let err = memory(d)
                .remember(Fact::new("memory-infra.md", "db1 runs Postgres"))
                .unwrap_err();
            let shown = err.to_string();
            assert_eq!(
                err.kind(),
                ErrorKind::InvalidInput,
                "{description:?}: {err}"
            );
            assert!(
                matches!(err, memory_core::Error::InvalidInput { .. }),
                "{err:?}"
            );
            assert!(
                shown.contains(&format!("memory-infra.md:{line}:")),
                "{description:?}: {shown}"
            );
            assert!(shown.contains("--hook"), "{shown}");
            assert!(shown.contains(why), "{description:?}: {shown}");
            assert!(!shown.contains("AKIA"), "the secret is not echoed: {shown}");
            assert!(!shown.contains("ghp_"), "the secret is not echoed: {shown}");
            assert_eq!(tree(d), before, "{description:?}: nothing written");
            // Given a hook, the same write goes through.
            let out = memory(d)
                .remember(Fact::new("memory-infra.md", "db1 runs Postgres").hook("hosts, db"))
                .unwrap();
            assert!(out.linked);
            let index = memory(d).index().unwrap();
            assert_eq!(index.lines.len(), 2, "{description:?}");
            assert_eq!(index.lines[1].hook, "hosts, db");
            assert!(index.content.is_empty());
        }
    }
}

#[test]
fn a_description_that_is_one_clean_line_is_the_hook() {
    for (description, hook) in [
        ("description: hosts, databases\n", "hosts, databases"),
        ("description: \"  padded  \"\n", "padded"),
        ("description: |\n  one line only\n", "one line only"),
        ("description: >\n  folded\n  into one\n", "folded into one"),
        ("description: \"tab\\there\"\n", "tab\there"),
        ("description: Ünïcødé — 日本語\n", "Ünïcødé — 日本語"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("memory-infra.md"),
            topic_with(description, false, false),
        )
        .unwrap();
        let out = memory(d)
            .remember(Fact::new("memory-infra.md", "db1 runs Postgres"))
            .unwrap();
        assert!(out.linked && out.created_index);
        let index = memory(d).index().unwrap();
        assert_eq!(index.lines.len(), 1, "{description:?}");
        assert_eq!(index.lines[0].hook, hook, "{description:?}");
        assert_eq!(index.lines[0].title, "Infra");
    }
}

#[test]
fn a_frontmatter_name_that_cannot_be_a_title_is_refused_unless_a_title_is_given() {
    for name in [
        "name: \"two\\nlines\"\n",
        "name: \"bell \\a\"\n",
        "name: AKIAIOSFODNN7EXAMPLE\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let text = format!("---\n{name}description: hosts\n---\n- 2026-07-01: a\n");
        std::fs::write(d.join("memory-infra.md"), &text).unwrap();
        let err = memory(d)
            .remember(Fact::new("memory-infra.md", "b"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name:?}");
        let shown = err.to_string();
        assert!(shown.contains("memory-infra.md:2:"), "{shown}");
        assert!(shown.contains("--title"), "{shown}");
        assert!(!d.join("MEMORY.md").exists());
        memory(d)
            .remember(Fact::new("memory-infra.md", "b").title("Infra"))
            .unwrap();
        assert_eq!(memory(d).index().unwrap().lines[0].title, "Infra");
    }
}

const CONTROL: &[&str] = &[
    "a\u{7}b",
    "a\u{0}b",
    "a\u{1b}[31mb",
    "a\u{7f}b",
    "a\u{85}b",
    "a\u{8}b",
    "a\u{c}b",
    "a\u{b}b",
];

#[test]
fn control_characters_are_refused_in_hook_title_and_subject() {
    for bad in CONTROL {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        let m = memory(&root);
        for fact in [
            Fact::new("memory-t.md", "x").hook(*bad),
            Fact::new("memory-t.md", "x").hook("h").title(*bad),
            Fact::new("memory-t.md", "x").hook("h").subject(*bad),
        ] {
            let err = m.remember(fact.clone()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{fact:?}");
            assert!(!root.exists(), "{fact:?}: nothing written");
        }
        // Replacing the hook of a linked topic: refused too, the index unchanged.
        m.remember(Fact::new("memory-t.md", "x").hook("h")).unwrap();
        let index = std::fs::read(root.join("MEMORY.md")).unwrap();
        let err = m
            .remember(Fact::new("memory-t.md", "y").hook(*bad))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(std::fs::read(root.join("MEMORY.md")).unwrap(), index);
        assert_eq!(m.topic("memory-t.md").unwrap().entries.len(), 1);
    }
}

#[test]
fn a_secret_in_the_topic_file_name_is_refused() {
    for file in [
        "memory-AKIAIOSFODNN7EXAMPLE.md",
        "AKIAIOSFODNN7EXAMPLE.md",
        "notes/ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123.md",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        for fact in [
            Fact::new(file, "x").hook("h"),
            Fact::new(file, "x").hook("h").title("A clean title"),
        ] {
            let err = memory(&root).remember(fact).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{file}");
            assert!(err.secret_kind().is_some(), "{file}: {err}");
            assert_eq!(err.field(), Some("topic file"));
            assert!(!root.exists(), "{file}: nothing written");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Whatever the hook (any characters, line breaks and controls included), the write is
    /// refused with nothing written, or the index gains exactly one line reading back with
    /// that hook, trimmed, and nothing else changes.
    #[test]
    fn any_hook_is_refused_or_reads_back_as_itself(
        hook in "(\\PC|[\\n\\r\\t\\x00-\\x1f\\x7f\\x{85}]|- \\[X\\]\\(memory-x\\.md\\)){0,12}",
        from_frontmatter in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("MEMORY.md"), "- [User](USER.md) — role\n").unwrap();
        std::fs::write(d.join("USER.md"), "- 2026-07-01: terse\n").unwrap();
        let (fact, hook) = if from_frontmatter {
            // A YAML double-quoted scalar holding the hook, escaped as JSON (a subset);
            // the hook expected is the description as the topic reads it.
            let quoted = serde_json::to_string(&hook).unwrap();
            std::fs::write(d.join("memory-t.md"), format!("---\ndescription: {quoted}\n---\n- 2026-07-01: a\n")).unwrap();
            let read = memory(d).topic("memory-t.md").unwrap().meta.and_then(|m| m.description);
            (Fact::new("memory-t.md", "b"), read.unwrap_or_default())
        } else {
            (Fact::new("memory-t.md", "b").hook(hook.as_str()), hook)
        };
        let before = tree(d);
        match memory(d).remember(fact) {
            Err(err) => {
                prop_assert_eq!(err.kind(), ErrorKind::InvalidInput);
                prop_assert_eq!(tree(d), before);
            }
            Ok(_) => {
                let index = memory(d).index().unwrap();
                prop_assert_eq!(index.lines.len(), 2);
                prop_assert!(index.content.is_empty());
                prop_assert_eq!(&index.lines[1].file, "memory-t.md");
                prop_assert_eq!(index.lines[1].hook.as_str(), hook.trim());
                prop_assert!(!hook.trim().is_empty());
                prop_assert!(!hook.trim().contains(['\n', '\r']));
                // (A raw NEL or DEL makes the block not YAML: reported, and read leniently.)
                let found = memory(d).check().unwrap();
                prop_assert!(found.iter().all(|v| v.kind.as_str() == "frontmatter_not_yaml"), "{:?}", found);
            }
        }
    }
}

/// A hook or title far longer than a line a session reads — given, from the frontmatter or
/// from a compactor's split — is refused before anything is written; one at the limit is
/// written.
#[test]
fn hooks_and_titles_are_held_to_a_length() {
    use memory_core::structured_memory::{Fact, StructuredMemory};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = StructuredMemory::open(d).unwrap();
    let long_hook = "h".repeat(301);
    let err = m
        .remember(Fact::new("memory-a.md", "x").hook(long_hook.as_str()))
        .unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("at most 300"), "{err}");
    let err = m
        .remember(
            Fact::new("memory-a.md", "x")
                .hook("h")
                .title("t".repeat(121)),
        )
        .unwrap_err();
    assert!(err.to_string().contains("at most 120"), "{err}");
    assert!(!d.join("MEMORY.md").exists(), "nothing written");
    // A frontmatter description too long to be the hook: refused, naming the file.
    std::fs::write(
        d.join("memory-b.md"),
        format!("---\ndescription: {}\n---\n# B\n", "d".repeat(400)),
    )
    .unwrap();
    let err = m.remember(Fact::new("memory-b.md", "x")).unwrap_err();
    assert!(err.to_string().contains("memory-b.md:2"), "{err}");
    // At the limits, in characters (not bytes).
    m.remember(
        Fact::new("memory-c.md", "x")
            .hook("日".repeat(300))
            .title("題".repeat(120)),
    )
    .unwrap();
    assert_eq!(m.index().unwrap().lines[0].hook.chars().count(), 300);
}

/// What would open a comment in Obsidian — `%%` anywhere — is refused on an index line, and
/// a fact's text may not leave a `%%` open (it would hide every entry after it there); a
/// closed pair, a lone `%`, or an inline `<!--` (text in CommonMark) is written.
#[test]
fn comment_openers_never_reach_the_index_and_facts_close_them() {
    use memory_core::structured_memory::{Fact, StructuredMemory};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = StructuredMemory::open(d).unwrap();
    for hook in ["b %% hidden", "50%% off", "%%"] {
        let err = m
            .remember(Fact::new("memory-b.md", "x").hook(hook))
            .unwrap_err();
        assert_eq!(
            err.kind(),
            memory_core::ErrorKind::InvalidInput,
            "{hook}: {err}"
        );
    }
    let err = m
        .remember(
            Fact::new("memory-b.md", "x")
                .hook("b things")
                .title("T %% x"),
        )
        .unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput, "{err}");
    for text in ["50%% off", "a %%b%% c %% d", "%%"] {
        let err = m
            .remember(Fact::new("memory-b.md", text).hook("b things"))
            .unwrap_err();
        assert_eq!(
            err.kind(),
            memory_core::ErrorKind::InvalidInput,
            "{text}: {err}"
        );
    }
    assert!(!d.join("MEMORY.md").exists(), "nothing written");
    for text in [
        "50% off",
        "a %%note%% b",
        "closed <!-- x --> comment",
        "open <!-- as text",
    ] {
        m.remember(Fact::new("memory-b.md", text).hook("b things"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}
