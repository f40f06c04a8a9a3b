//! A dated line nested under a hand-written list item (an undated note, an ordered item,
//! a dated line that is not an entry) is part of that item, as CommonMark nests it: never
//! an entry, never merged, compacted or moved — the whole item is someone else's and is
//! flagged as such. A line at the item's margin or left of its text is the next item.

mod structured_support;

use memory_core::structured_memory::{DefaultCompactor, Fact, Topic};

/// Hand-written items that open a container, each with the column its text starts at.
const PARENTS: &[(&str, usize)] = &[
    ("- Hand note about the db migration:", 2),
    ("* a starred note", 2),
    ("+ a plus note", 2),
    ("1. first step", 3),
    ("12) a numbered step", 4),
    ("- 2026-01-05 (db): a dated line that is no entry", 2),
    ("-   wide gap note", 4),
];

/// Dated children at `column` or deeper, in every indentation spelling.
fn children(column: usize) -> Vec<String> {
    let pad = " ".repeat(column);
    vec![
        format!("{pad}- 2026-01-01 [db]: step one"),
        format!("{pad}  - 2026-01-02 [db]: a deeper step"),
        format!(
            "{}- 2026-01-03 [db]: a child six columns in",
            " ".repeat(column + 4)
        ),
    ]
}

#[test]
fn dated_lines_nested_under_a_hand_item_are_its_own() {
    for &(parent, column) in PARENTS {
        for blank_between in [false, true] {
            let mut text = format!("# W\n\n{parent}\n");
            if blank_between {
                text.push('\n');
            }
            for child in children(column) {
                text.push_str(&child);
                text.push('\n');
            }
            text.push_str("- 2026-01-04 [db]: current\n");
            let topic = Topic::parse("memory-w.md", text.as_str()).unwrap();
            let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
            assert_eq!(
                texts,
                ["current"],
                "{parent:?} blank={blank_between}\n{text}"
            );
            // Every line of the item is someone else's.
            let unparsed = topic.unparsed_lines();
            let first_child = if blank_between { 5 } else { 4 };
            for line in first_child..first_child + 3 {
                assert!(
                    unparsed.contains(&line),
                    "{parent:?}: line {line} {unparsed:?}"
                );
            }
        }
    }
}

#[test]
fn a_line_left_of_the_items_text_is_the_next_item() {
    // One space: not under `- note` (its text starts at column 2): an entry of its own.
    let topic = Topic::parse("t.md", "- note\n - 2026-01-01: an entry\n").unwrap();
    assert_eq!(topic.entries.len(), 1);
    // A tab reaches column 4, under `- note` (its text at 2): the note's.
    let topic = Topic::parse("t.md", "- note\n\t- 2026-01-01: its own\n").unwrap();
    assert!(topic.entries.is_empty());
    // A heading or a paragraph at the margin ends the note.
    let topic = Topic::parse(
        "t.md",
        "- note\n  - 2026-01-01: its own\n\n## Later\n- 2026-01-02: an entry\n",
    )
    .unwrap();
    assert_eq!(topic.entries.len(), 1);
    assert_eq!(topic.entries[0].text, "an entry");
}

#[test]
fn merge_on_write_and_compaction_leave_a_hand_items_children_alone() {
    let note = "- Hand note about the db migration:\n  - 2026-01-01 [db]: step one\n  - 2026-01-02 [db]: step two\n";
    let text = format!("# W\n\n{note}- 2026-01-03 [db]: current\n");
    for compact in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("MEMORY.md"), "- [W](memory-w.md) — w\n").unwrap();
        std::fs::write(d.join("memory-w.md"), &text).unwrap();
        let m = structured_support::memory_at(d, Some(4));
        if compact {
            m.compact(Some("memory-w.md"), &DefaultCompactor, false)
                .unwrap();
        } else {
            m.remember(Fact::new("memory-w.md", "newest").subject("db"))
                .unwrap();
        }
        let after = std::fs::read_to_string(d.join("memory-w.md")).unwrap();
        assert!(after.contains(note), "compact={compact}: {after}");
        let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap_or_default();
        assert!(
            !archive.contains("step one"),
            "compact={compact}: {archive}"
        );
    }
}
