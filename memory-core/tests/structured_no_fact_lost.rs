//! The seed's promise that compaction never loses a fact, as a property: whatever is
//! remembered and however it is compacted — by an honest compactor or a hostile one
//! (duplicates, rewrites, reserved or escaping split paths, silent drops, merges of
//! topics a split of the same step just made) — every fact is live or archived whole,
//! every file meets its budget or a needs-judgment names its exact overage, index lines
//! and topic files stay one-to-one, and no read truncates.

mod structured_support;
use structured_support::tree;

use memory_core::ErrorKind;
use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Condensed, DefaultCompactor, Entry, Fact, SplitPart,
    StructuredMemory, Topic,
};
use proptest::prelude::*;

/// A compactor proptest drives: honest (evicts, condenses and splits what it is told),
/// or hostile in one way — it duplicates entries or facts, rewrites them (changed text,
/// a fence it never closes, a secret), splits into reserved or escaping paths, drops
/// facts silently from its lessons, evicts everything, moves the index's content and
/// merges topics, or fails.
#[derive(Debug, Clone)]
struct Chaos {
    kind: u8,
    picks: Vec<usize>,
}

/// Split targets a hostile compactor tries: reserved files, Agent Memory's tree, paths
/// out of the directory; and Unicode names, which are fine.
const SPLIT_NAMES: &[&str] = &[
    "memory-archive.md",
    "index.md",
    "sessions/x.md",
    "archive/y.md",
    "../x.md",
    "MEMORY.md",
    "/abs.md",
    "memory-ünï-日本.md",
    "memory-t0.md",
];

impl Chaos {
    fn pick(&self, len: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .picks
            .iter()
            .filter(|_| len > 0)
            .map(|i| i % len.max(1))
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

impl Compactor for Chaos {
    fn dead(&self, _t: &Topic, e: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        Ok(match self.kind {
            0 => self.pick(e.len()).into_iter().take(2).collect(),
            // The same entry twice.
            1 if !e.is_empty() => vec![0, 0],
            // Everything, silently.
            7 => (0..e.len()).collect(),
            12 => return Err("the model is down".into()),
            _ => Vec::new(),
        })
    }
    fn collapse(
        &self,
        _t: &Topic,
        _s: &str,
        generations: &[Entry],
    ) -> Result<Option<String>, CompactorError> {
        Ok(match self.kind {
            // Another entry's fact, written a second time.
            3 => Some(generations[0].text.clone()),
            4 => Some("folded\n```".to_string()),
            11 => Some("token ghp_Z9xY8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c".to_string()),
            13 => Some(format!("rewritten: {}", generations[0].text)),
            _ => None,
        })
    }
    fn summarize(&self, _t: &Topic, e: &[Entry]) -> Result<Vec<Condensed>, CompactorError> {
        let g = self.pick(e.len());
        Ok(match self.kind {
            0 if g.len() >= 2 => vec![Condensed::new(g, "the lesson")],
            // One entry in two lessons.
            2 if e.len() >= 3 => vec![Condensed::new([0, 1], "one"), Condensed::new([1, 2], "two")],
            5 if e.len() >= 2 => vec![Condensed::new([0, 1], "lesson\n~~~")],
            // A lesson that keeps none of the facts it condenses.
            8 if e.len() >= 2 => vec![Condensed::new(0..e.len(), "it went fine")],
            _ => Vec::new(),
        })
    }
    fn split(&self, _t: &Topic, e: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        let g = self.pick(e.len());
        if g.is_empty() {
            return Ok(Vec::new());
        }
        Ok(match self.kind {
            0 | 10 => vec![SplitPart::new(
                "memory-split.md",
                "Split",
                "the split part",
                g,
            )],
            // Two parts moving the same entries.
            1 => vec![
                SplitPart::new("memory-p1.md", "P1", "part one", g.clone()),
                SplitPart::new("memory-p2.md", "P2", "part two", g),
            ],
            6 | 9 => {
                let name =
                    SPLIT_NAMES[self.picks.first().copied().unwrap_or(0) % SPLIT_NAMES.len()];
                let name = if self.kind == 9 {
                    "memory-ünï-日本.md"
                } else {
                    name
                };
                vec![SplitPart::new(name, "Ünïcode 日本", "split, by name", g)]
            }
            _ => Vec::new(),
        })
    }
    fn route_content(
        &self,
        index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok(match (self.kind, index.lines.first()) {
            (10, Some(first)) => (0..index.content.len())
                .map(|i| (i, first.file.clone()))
                .collect(),
            _ => Vec::new(),
        })
    }
    fn merge_topics(
        &self,
        index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(String, String)>, CompactorError> {
        Ok(match (self.kind, index.lines.as_slice()) {
            (10, [a, b, ..]) => vec![(b.file.clone(), a.file.clone())],
            _ => Vec::new(),
        })
    }
}

const TOPICS: &[&str] = &["memory-t0.md", "memory-ünï-1.md", "memory-日本.md"];
const SUBJECTS: &[&str] = &["s0", "Sübject one", "主題", "s-3"];

/// Every budget over its limit in `budgets` has a needs-judgment in `report` for the
/// same file with the exact overage.
fn explained(
    budgets: &[memory_core::structured_memory::BudgetUse],
    report: Option<&memory_core::structured_memory::CompactionReport>,
) -> Result<(), TestCaseError> {
    for b in budgets
        .iter()
        .filter(|b| b.state == memory_core::structured_memory::BudgetState::Over)
    {
        let n = report
            .into_iter()
            .flat_map(|r| &r.files)
            .filter(|f| f.file == b.file)
            .find_map(|f| f.needs_judgment.clone());
        prop_assert!(
            n.is_some(),
            "{} is over its budget and nothing says why: {report:?}",
            b.file
        );
        let n = n.unwrap();
        prop_assert_eq!(
            (n.over_by_lines, n.over_by_bytes),
            (b.over_by_lines, b.over_by_bytes),
            "{}",
            b.file
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever is remembered and however it is compacted — by an honest compactor or a
    /// hostile one — every fact ever written is live (in some topic file) or in the
    /// archive, whole; every live file meets its budget or a needs-judgment report names
    /// it with the exact overage; index lines and topic files stay one-to-one; no read
    /// truncates.
    #[test]
    fn no_fact_is_ever_lost(
        facts in proptest::collection::vec((0usize..4, 0usize..3, 1u32..28), 1..14),
        topic_budget in 3usize..8,
        index_budget in 2usize..5,
        compactor in (0u8..14, proptest::collection::vec(0usize..20, 0..4))
            .prop_map(|(kind, picks)| Chaos { kind, picks }),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(topic_budget).index_lines(index_budget))
            .fixed_time("2026-07-10T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        let mut written = Vec::new();
        for (n, (subject, topic, day)) in facts.iter().enumerate() {
            let text = format!("fact #{n}# about {}", SUBJECTS[*subject]);
            let fact = Fact::new(TOPICS[*topic], &text)
                .subject(SUBJECTS[*subject])
                .date(format!("2026-06-{day:02}"))
                .hook(format!("topic {topic}, ünïcode"));
            match m.remember_with(fact, &compactor) {
                Ok(out) => {
                    explained(&out.budgets, out.compaction.as_ref())?;
                    written.push(text);
                }
                Err(e) => prop_assert!(e.kind() == ErrorKind::Aborted || e.kind() == ErrorKind::InvalidInput, "{e}"),
            }
        }
        let report = match m.compact(None, &compactor, false) {
            Ok(report) => report,
            // A hostile compactor is refused and changes nothing; the default then runs.
            Err(e) => {
                prop_assert_eq!(e.kind(), ErrorKind::Aborted, "{}", e);
                m.compact(None, &DefaultCompactor, false).unwrap()
            }
        };
        let mut all = String::new();
        let mut topic_files = Vec::new();
        for (name, bytes) in tree(d) {
            if name.ends_with(".md") {
                let text = String::from_utf8(bytes).unwrap();
                if name != "MEMORY.md" && name != "memory-archive.md" {
                    // No read truncates: the topic comes back byte for byte.
                    prop_assert_eq!(&m.topic(&name).unwrap().text, &text);
                    topic_files.push(name.to_lowercase());
                }
                all.push_str(&text);
            }
        }
        for text in &written {
            prop_assert!(all.contains(text.as_str()), "{text} is lost");
        }
        let index = m.index().unwrap();
        prop_assert_eq!(&index.text, &std::fs::read_to_string(d.join("MEMORY.md")).unwrap());
        // Index lines and topic files one-to-one.
        let mut linked: Vec<String> = index.lines.iter().map(|l| l.file.to_lowercase()).collect();
        linked.sort();
        let before = linked.len();
        linked.dedup();
        prop_assert_eq!(before, linked.len(), "a file linked twice");
        topic_files.sort();
        prop_assert_eq!(&linked, &topic_files);
        // Every live file meets its budget or the report says why, exactly.
        let mut budgets = vec![index.budget.clone()];
        for line in &index.lines {
            let topic = m.topic(&line.file).unwrap();
            // No split leaves an empty husk: a linked topic holds an entry or lines of
            // its own (an eviction of every entry, kinds 0 and 7, is the compactor's word
            // that they are dead, not that the topic is).
            prop_assert!(
                matches!(compactor.kind, 0 | 7)
                    || !topic.entries.is_empty() || !topic.unparsed_lines().is_empty() || !topic.undated.is_empty(),
                "{} is a husk: {:?}", line.file, topic.text
            );
            budgets.push(topic.budget);
        }
        explained(&budgets, Some(&report))?;
        let found = m.check().unwrap();
        prop_assert!(!found.iter().any(|v| v.kind.as_str() == "orphan_topic" || v.kind.as_str() == "dangling_index_line"), "{found:?}");
    }
}
