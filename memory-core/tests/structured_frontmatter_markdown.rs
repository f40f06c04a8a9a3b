//! A topic's frontmatter is YAML, not Markdown: whatever its values hold — an HTML
//! comment opener, a fence, an Obsidian `%%`, an HTML tag, a list marker, a heading, a
//! table row — nothing in it opens a block that hides the body, and the body reads,
//! takes writes and compacts as without it.

use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory};
use proptest::prelude::*;

const MARKUP: &[&str] = &[
    "<!-- open",
    "```",
    "~~~ fence",
    "%% obsidian",
    "<div>",
    "<script>",
    "- [ ] task",
    "# not a heading",
    "| a | b |",
    "> quote",
    "    indented code",
    "-->",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn markup_in_frontmatter_values_never_hides_the_body(
        picks in proptest::collection::vec(0usize..MARKUP.len(), 1..4),
        crlf in any::<bool>(),
        quoted in any::<bool>(),
    ) {
        let le = if crlf { "\r\n" } else { "\n" };
        let value = picks.iter().map(|&i| MARKUP[i]).collect::<Vec<_>>().join(" ");
        let value = if quoted { format!("{value:?}") } else { value };
        let lines = [
            "---".to_string(),
            "name: Infra".to_string(),
            format!("description: {value}"),
            format!("notes: {}", MARKUP[picks[0]]),
            "---".to_string(),
            String::new(),
            "# Infra".to_string(),
            String::new(),
            "- 2026-06-01 [db]: Postgres 15".to_string(),
            "- 2026-06-02 [dns]: CoreDNS".to_string(),
        ];
        let text = lines.join(le) + le;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("memory-infra.md"), &text).unwrap();
        std::fs::write(d.join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts\n").unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(11))
            .fixed_time("2026-07-10T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        let topic = m.topic("memory-infra.md").unwrap();
        prop_assert_eq!(&topic.text, &text);
        let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
        prop_assert_eq!(texts, ["Postgres 15", "CoreDNS"]);
        // A write merges and compacts as without the frontmatter; its bytes stay.
        m.remember(Fact::new("memory-infra.md", "Postgres 16").subject("db").date("2026-07-01"))
            .unwrap();
        m.compact(None, &DefaultCompactor, false).unwrap();
        let after = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
        let front: String = lines[..5].join(le) + le;
        prop_assert!(after.starts_with(&front), "{after:?}");
        let topic = m.topic("memory-infra.md").unwrap();
        let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
        prop_assert_eq!(texts, ["Postgres 16", "CoreDNS"]);
    }
}

/// Body lines a hand-written topic starts with after a leading `---`: entries (some with
/// lines under them), prose, hand notes, headings, comments, more `---` breaks, YAML-ish
/// lines that are not a frontmatter's first line.
const BODY: &[&str] = &[
    "- 2026-11-01 [k]: first entry",
    "- 2026-11-02 [j]: second entry\n  more of it",
    "- 2026-11-03: café ✓ 日本語",
    "",
    "---",
    "# Title",
    "## Section",
    "Some prose: with a colon",
    "- a hand note",
    "1. ordered",
    "<!-- a comment -->",
    "> a quote",
    "tags:",
];

/// What `text` reads as when its first line is no frontmatter fence: that `---` spelled
/// `***`, the other thematic break, which never opens frontmatter (the same length, so
/// lines and offsets hold).
fn as_markdown(text: &str) -> String {
    let at = usize::from(text.starts_with('\u{feff}')) * 3;
    format!("{}***{}", &text[..at], &text[at + 3..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A topic file that starts with a `---` thematic break (closed by a later `---` or
    /// not) whose lines are not a mapping reads as Markdown: every entry is seen, at its
    /// line, merge on write replaces it (one generation), and the bytes stay as written.
    #[test]
    fn a_leading_thematic_break_is_markdown_not_frontmatter(
        picks in proptest::collection::vec(0usize..BODY.len(), 0..8),
        blank_first in any::<bool>(),
        closed in any::<bool>(),
        crlf in any::<bool>(),
        bom in any::<bool>(),
    ) {
        let le = if crlf { "\r\n" } else { "\n" };
        let mut lines = vec!["---".to_string()];
        if blank_first {
            lines.push(String::new());
        }
        // The first body line is an entry or a heading: never a `key:` line.
        lines.push(BODY[0].to_string());
        lines.extend(picks.iter().map(|&i| BODY[i].to_string()));
        if closed {
            lines.push("---".to_string());
        }
        lines.push("- 2026-11-04 [last]: after the break".to_string());
        let mut text = lines.join("\n").replace('\n', le) + le;
        if bom {
            text.insert(0, '\u{feff}');
        }
        let yaml_mapping = memory_core::markdown::Frontmatter::locate(&text)
            .ok()
            .flatten()
            .is_some_and(|fm| fm.mapping(&text).is_ok_and(|m| !m.is_empty()));
        prop_assume!(!yaml_mapping);
        let expected = memory_core::structured_memory::Topic::parse("memory-k.md", as_markdown(&text)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("memory-k.md"), &text).unwrap();
        std::fs::write(d.join("MEMORY.md"), "- [K](memory-k.md) — k facts\n").unwrap();
        let m = StructuredMemory::builder(d)
            .fixed_time("2026-12-01T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        let topic = m.topic("memory-k.md").unwrap();
        prop_assert_eq!(&topic.text, &text);
        prop_assert!(topic.meta.is_none());
        prop_assert!(topic.frontmatter_not_yaml.is_none());
        prop_assert_eq!(&topic.entries, &expected.entries);
        prop_assert_eq!(topic.unparsed_lines(), expected.unparsed_lines());
        let found = m.check().unwrap();
        prop_assert!(!found.iter().any(|v| v.kind.as_str() == "frontmatter_not_yaml"), "{:?}", found);

        // Merge on write sees the first entry: it is replaced, not given a second generation.
        let out = m.remember(Fact::new("memory-k.md", "newer").subject("k")).unwrap();
        let replaced: Vec<&str> = out.replaced.iter().map(|e| e.text.as_str()).collect();
        let wanted: Vec<&str> = expected
            .entries
            .iter()
            .filter(|e| e.subject.as_deref() == Some("k"))
            .map(|e| e.text.as_str())
            .collect();
        prop_assert!(!wanted.is_empty());
        prop_assert_eq!(replaced, wanted);
        let after = m.topic("memory-k.md").unwrap();
        prop_assert_eq!(after.entries.iter().filter(|e| e.subject.as_deref() == Some("k")).count(), 1);
        let first = &text[..topic.entries[0].span().start];
        prop_assert!(after.text.starts_with(first), "{:?}", after.text);
    }
}

#[test]
fn the_acceptance_files_read_as_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [K](memory-k.md) — k facts\n- [T](memory-t.md) — titled\n",
    )
    .unwrap();
    let k = "---\n\n- 2026-11-01 [k]: first entry\n\n---\n\n- 2026-11-02 [j]: second entry\n";
    std::fs::write(d.join("memory-k.md"), k).unwrap();
    std::fs::write(d.join("memory-t.md"), "---\n# Title\n").unwrap();
    let m = StructuredMemory::builder(d)
        .fixed_time("2026-12-01T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let topic = m.topic("memory-k.md").unwrap();
    let lines: Vec<usize> = topic.entries.iter().map(|e| e.line).collect();
    assert_eq!(lines, [3, 7]);
    assert!(topic.frontmatter_not_yaml.is_none());
    let titled = m.topic("memory-t.md").unwrap();
    assert!(titled.meta.is_none() && titled.entries.is_empty());
    assert_eq!(m.check().unwrap(), []);
    m.remember(Fact::new("memory-t.md", "a fact").subject("t"))
        .unwrap();
    let t = std::fs::read_to_string(d.join("memory-t.md")).unwrap();
    assert!(t.starts_with("---\n# Title\n"), "{t:?}");
    let out = m
        .remember(Fact::new("memory-k.md", "newer").subject("k"))
        .unwrap();
    assert_eq!(out.replaced[0].text, "first entry");
    assert_eq!(
        std::fs::read_to_string(d.join("memory-k.md")).unwrap(),
        "---\n\n- 2026-12-01 [k]: newer\n\n---\n\n- 2026-11-02 [j]: second entry\n"
    );
}

#[test]
fn an_index_that_starts_with_a_thematic_break_keeps_its_pointers() {
    let text = "---\n\n- [A](a.md) — first\n\n---\n- [B](b.md) — second\n";
    let index = memory_core::structured_memory::MemoryIndex::parse("MEMORY.md", text).unwrap();
    let files: Vec<&str> = index.lines.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(files, ["a.md", "b.md"]);
    let index =
        memory_core::structured_memory::MemoryIndex::parse("MEMORY.md", "---\n# Index\n").unwrap();
    assert!(index.lines.is_empty());
}
