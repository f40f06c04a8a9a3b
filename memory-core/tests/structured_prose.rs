//! Prose in a topic file — paragraphs, comments, hand notes between and after the
//! entries — is someone else's: compaction never moves, removes or rewrites it, and when a
//! file stays over its budget the needs-judgment report and `check` count those lines.

use std::path::Path;

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, DefaultCompactor, Entry, StructuredMemory, Topic,
};
use proptest::prelude::*;

fn memory(dir: &Path, topic_lines: usize) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .budgets(Budgets::default().topic_lines(topic_lines))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn seed(dir: &Path, topic: &str) {
    std::fs::write(dir.join("memory-infra.md"), topic).unwrap();
    std::fs::write(
        dir.join("MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts, databases\n",
    )
    .unwrap();
}

/// Says every entry is dead.
struct AllDead;

impl Compactor for AllDead {
    fn dead(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        Ok((0..entries.len()).collect())
    }
}

#[test]
fn prose_is_counted_where_a_file_needs_judgment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "# Infra\n\nWhy this file exists,\nin two lines.\n\n- 2026-06-01: web1 runs nginx\n- 2026-06-02: web2 runs nginx\n\n<!-- kept by hand -->\n\nA closing paragraph.\n";
    seed(d, text);
    let m = memory(d, 5);
    let found = m.check().unwrap();
    assert_eq!(found[0].kind.as_str(), "over_budget");
    assert!(
        found[0]
            .message
            .contains("4 of its lines are not entries (hand notes, prose, comments: lines 3-4, line 9, line 11)"),
        "{}",
        found[0].message
    );
    let report = m
        .compact(Some("memory-infra.md"), &DefaultCompactor, false)
        .unwrap();
    let n = report.files[0].needs_judgment.clone().unwrap();
    assert_eq!(n.unparsed_lines, [3, 4, 9, 11]);
    assert!(
        n.message.contains("4 lines are not entries")
            && n.message
                .contains("lines 3-4, 9, 11 before this compaction"),
        "{}",
        n.message
    );
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra.md")).unwrap(),
        text
    );

    // Every entry dead: the prose is all that is left, where it was.
    let report = m.compact(Some("memory-infra.md"), &AllDead, false).unwrap();
    let n = report.files[0].needs_judgment.clone().unwrap();
    // Lines of the file as it was before this compaction.
    assert_eq!(n.unparsed_lines, [3, 4, 9, 11]);
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra.md")).unwrap(),
        "# Infra\n\nWhy this file exists,\nin two lines.\n\n\n<!-- kept by hand -->\n\nA closing paragraph.\n"
    );
}

/// One block of a generated topic file.
#[derive(Debug, Clone)]
enum Block {
    /// A paragraph of this many lines.
    Prose(usize),
    Heading,
    Comment,
    /// A hand-written list item without a date.
    HandNote,
    /// A dated entry about subject `0..3`, with this many continuation lines.
    Entry(usize, usize),
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        (1..4usize).prop_map(Block::Prose),
        Just(Block::Heading),
        Just(Block::Comment),
        Just(Block::HandNote),
        (0..3usize, 0..2usize).prop_map(|(s, c)| Block::Entry(s, c)),
        (0..3usize, 0..2usize).prop_map(|(s, c)| Block::Entry(s, c)),
    ]
}

/// The file's text, and for each line whether it is someone else's (not blank, not a
/// heading, not an entry).
fn render(blocks: &[Block]) -> (String, Vec<(String, bool)>) {
    // A title first: the file is over a one-line budget whatever follows.
    let mut lines: Vec<(String, bool)> = vec![("# Infra".into(), false), (String::new(), false)];
    let mut prev_item = None;
    for (i, b) in blocks.iter().enumerate() {
        let item = matches!(b, Block::HandNote | Block::Entry(..));
        if prev_item.is_some() && !(item && prev_item == Some(true)) {
            lines.push((String::new(), false));
        }
        prev_item = Some(item);
        match b {
            Block::Prose(n) => {
                for k in 0..*n {
                    lines.push((format!("Prose {i} line {k}: why — ünïcødé."), true));
                }
            }
            Block::Heading => lines.push((format!("## Section {i}"), false)),
            Block::Comment => lines.push((format!("<!-- note {i} -->"), true)),
            Block::HandNote => lines.push((format!("- hand note {i}"), true)),
            Block::Entry(s, c) => {
                lines.push((
                    format!("- 2026-06-{:02} [s{s}]: fact {i}", i % 28 + 1),
                    false,
                ));
                for k in 0..*c {
                    lines.push((format!("  more of fact {i}, {k}"), false));
                }
            }
        }
    }
    let text: String = lines.iter().map(|(l, _)| format!("{l}\n")).collect();
    (text, lines)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn compaction_never_moves_prose_and_counts_it(blocks in proptest::collection::vec(block(), 1..14)) {
        let (text, lines) = render(&blocks);
        let theirs: Vec<usize> = lines.iter().enumerate().filter(|(_, l)| l.1).map(|(i, _)| i + 1).collect();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        seed(d, &text);
        let topic = memory(d, 150).topic("memory-infra.md").unwrap();
        prop_assert_eq!(topic.unparsed_lines(), &theirs[..]);

        // Every entry evicted: exactly the other lines are left, in order, and counted.
        let report = memory(d, 1).compact(Some("memory-infra.md"), &AllDead, false).unwrap();
        let left: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, _)| !topic.entries.iter().any(|e| (e.line..=e.end_line).contains(&(i + 1))))
            .map(|(_, l)| l)
            .collect();
        if theirs.is_empty() && !topic.entries.is_empty() {
            // Nothing of its own left (headings at most): the emptied topic is removed
            // with its index line, both archived.
            prop_assert!(!d.join("memory-infra.md").exists());
            prop_assert!(memory(d, 150).index().unwrap().lines.is_empty());
        } else {
            let after = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
            prop_assert_eq!(after.lines().collect::<Vec<_>>(), left);
            let after_topic = memory(d, 150).topic("memory-infra.md").unwrap();
            prop_assert!(after_topic.entries.is_empty());
            prop_assert_eq!(after_topic.unparsed_lines().len(), theirs.len());
            if let Some(n) = report.files.first().and_then(|f| f.needs_judgment.clone()) {
                // Counted in the file as it was before the compaction.
                prop_assert_eq!(&n.unparsed_lines[..], &theirs[..]);
            }
        }

        // The default (collapse, split by subject): the other lines stay in the file, in
        // order, and none goes to a split file.
        seed(d, &text);
        for f in std::fs::read_dir(d).unwrap() {
            let f = f.unwrap();
            let name = f.file_name().to_string_lossy().into_owned();
            if name != "memory-infra.md" && name != "MEMORY.md" && name.ends_with(".md") {
                std::fs::remove_file(f.path()).unwrap();
            }
        }
        let report = memory(d, 3).compact(Some("memory-infra.md"), &DefaultCompactor, false).unwrap();
        let after = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
        let others = |t: &str| -> Vec<String> {
            let topic = Topic::parse("t.md", t).unwrap();
            topic.unparsed_lines().iter().map(|&n| t.lines().nth(n - 1).unwrap().to_string()).collect()
        };
        prop_assert_eq!(others(&after), others(&text));
        for created in &report.created {
            let t = std::fs::read_to_string(d.join(created)).unwrap();
            prop_assert!(others(&t).is_empty(), "{}", t);
        }
    }
}
