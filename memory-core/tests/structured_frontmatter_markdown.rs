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
