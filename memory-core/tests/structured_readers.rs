//! Properties of the structured-memory readers on hand-kept files: `MEMORY.md` and topic
//! files are read whole or refused naming a line, never partly; every pointer line written
//! reads back as written; no line is both a pointer and content, none is lost.

use memory_core::structured_memory::{MemoryIndex, Topic, render_pointer};
use proptest::prelude::*;

/// Lines of every shape people keep in these files.
fn shaped_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("- [User](USER.md) — role, preferences".to_string()),
        Just("* [Infra](memory-infra.md) - hosts".to_string()),
        Just("- [Out](../x.md) — outside".to_string()),
        Just("- 2026-07-10: deploy hook first".to_string()),
        Just("- 2026-07-10 [db]: Postgres 16".to_string()),
        Just("  continuation".to_string()),
        Just("  - nested".to_string()),
        Just("- a hand note".to_string()),
        Just("# Heading".to_string()),
        Just(String::new()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("%%".to_string()),
        Just("```".to_string()),
        Just("> quoted".to_string()),
        Just("---".to_string()),
        Just("Prose line.".to_string()),
        "\\PC{0,30}",
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(shaped_line(), 0..24),
        prop_oneof![Just("\n"), Just("\r\n")],
        any::<bool>(),
    )
        .prop_map(|(lines, eol, final_eol)| {
            let mut text = lines.join(eol);
            if final_eol && !text.is_empty() {
                text.push_str(eol);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every line of an index that reads is a pointer, an unusable link, content or
    /// structure — exactly one — and refusals name a line of the file.
    #[test]
    fn an_index_is_read_whole_or_refused_with_a_line(text in document()) {
        match MemoryIndex::parse("MEMORY.md", text.clone()) {
            Ok(index) => {
                let mut seen = std::collections::BTreeSet::new();
                for line in index.lines.iter().map(|l| l.line)
                    .chain(index.unusable.iter().map(|u| u.line))
                    .chain(index.content.iter().map(|c| c.line))
                {
                    prop_assert!(seen.insert(line), "line {line} counted twice");
                    prop_assert!(line >= 1 && line <= index.line_count);
                }
                prop_assert_eq!(index.byte_count, text.len());
            }
            Err(e) => {
                let line = e.line().expect("a refusal names the line");
                prop_assert!(line >= 1 && line <= text.lines().count().max(1));
            }
        }
    }

    /// Entries and undated items never overlap, and each entry's lines are in the file.
    #[test]
    fn a_topic_is_read_whole_or_refused_with_a_line(text in document()) {
        match Topic::parse("t.md", text.clone()) {
            Ok(topic) => {
                let mut last_end = 0;
                for e in &topic.entries {
                    prop_assert!(e.line > last_end && e.end_line >= e.line);
                    prop_assert!(e.end_line <= topic.line_count);
                    last_end = e.end_line;
                    prop_assert!(!topic.undated.iter().any(|u| u.line >= e.line && u.line <= e.end_line));
                }
            }
            Err(e) => prop_assert!(e.line().is_some(), "{e}"),
        }
    }

    /// A pointer memory-core writes reads back with the same title, file and hook,
    /// whatever the title holds.
    #[test]
    fn a_written_pointer_reads_back(
        title in "[^\\r\\n\\u{85}\\u{2028}\\u{2029}]{1,40}",
        file in "[a-zA-Z0-9_\\- ()]{1,20}",
        hook in "[^\\r\\n\\u{85}\\u{2028}\\u{2029}]{0,60}",
    ) {
        let file = format!("memory-{}.md", file.trim());
        prop_assume!(!title.trim().is_empty());
        // A hook holding `%%` is never written (an Obsidian comment, not read as hook).
        prop_assume!(!hook.contains("%%"));
        let line = render_pointer(&title, &file, &hook);
        let index = MemoryIndex::parse("MEMORY.md", format!("{line}\n")).unwrap();
        prop_assert_eq!(index.lines.len(), 1, "{:?}", line);
        prop_assert_eq!(&index.lines[0].title, &title);
        prop_assert_eq!(&index.lines[0].file, &file);
        prop_assert_eq!(&index.lines[0].hook, hook.trim());
    }
}
