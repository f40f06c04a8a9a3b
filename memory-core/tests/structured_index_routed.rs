//! Content lines of `MEMORY.md` the index pass routes into a topic file become entries
//! there, dated the day they moved (a line that is a dated entry already keeps its date),
//! so that they are compactable afterwards; a line that cannot be an entry's text (a
//! fence, a table row) is moved as it is. `restore` of the pass finds them live.

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, MemoryIndex, StructuredMemory,
};
use std::fs;

/// Routes every content line to `memory-a.md`.
struct ToA;

impl Compactor for ToA {
    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok((0..index.content.len())
            .map(|i| (i, "memory-a.md".to_string()))
            .collect())
    }
}

#[test]
fn every_shape_of_content_line_becomes_a_compactable_entry() {
    // (content line, the entry's text, its date)
    let cases = [
        (
            "Deploy runs before the bump.",
            "Deploy runs before the bump.",
            "2026-07-10",
        ),
        ("- the VPN is needed", "the VPN is needed", "2026-07-10"),
        ("* starred note", "starred note", "2026-07-10"),
        ("+ plus note", "plus note", "2026-07-10"),
        ("1. numbered note", "numbered note", "2026-07-10"),
        ("- [ ] a task", "a task", "2026-07-10"),
        ("- [x] done task", "done task", "2026-07-10"),
        (
            "**Important:** keep it short",
            "**Important:** keep it short",
            "2026-07-10",
        ),
        ("- 2026-06-01: dated already", "dated already", "2026-06-01"),
        (
            "- 2026-06-02 [db]: with a subject",
            "with a subject",
            "2026-06-02",
        ),
        ("> quoted advice", "> quoted advice", "2026-07-10"),
        ("日本語のメモ", "日本語のメモ", "2026-07-10"),
    ];
    for (line, text, date) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("memory-a.md"), "# A\n\n- 2026-07-01: first\n").unwrap();
        fs::write(
            d.join("MEMORY.md"),
            format!("- [A](memory-a.md) — a\n{line}\n"),
        )
        .unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .fixed_time("2026-07-10T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        let report = m.compact(None, &ToA, false).unwrap();
        let topic = m.topic("memory-a.md").unwrap();
        assert!(
            topic.unparsed_lines().is_empty(),
            "{line:?}: {}",
            topic.text
        );
        assert_eq!(topic.entries.len(), 2, "{line:?}: {}", topic.text);
        let routed = &topic.entries[1];
        assert_eq!(
            (routed.text.as_str(), routed.date.to_string().as_str()),
            (text, date),
            "{line:?}"
        );
        let index_report = report.files.iter().find(|f| f.file == "MEMORY.md").unwrap();
        assert_eq!(index_report.passes[0].written.len(), 1, "{line:?}");
        assert!(m.check().unwrap().is_empty(), "{line:?}: {:?}", m.check());
        // Restore finds it live where it went, and puts nothing back twice.
        let restored = m.restore(report.id.as_deref().unwrap()).unwrap();
        assert_eq!(
            restored.not_restored[0].live_in,
            ["memory-a.md"],
            "{line:?}"
        );
    }
}

#[test]
fn a_routed_line_is_compacted_like_any_entry_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("memory-a.md"), "- 2026-06-01 [db]: Postgres 15\n").unwrap();
    fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — a\n- 2026-07-01 [db]: Postgres 16\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().index_lines(1).topic_lines(1))
        .open()
        .unwrap();
    m.compact(None, &ToA, false).unwrap();
    assert_eq!(m.topic("memory-a.md").unwrap().entries.len(), 2);
    // The next compaction collapses the routed generation with the other.
    m.compact(None, &ToA, false).unwrap();
    let topic = m.topic("memory-a.md").unwrap();
    assert_eq!(topic.entries.len(), 1, "{}", topic.text);
    assert_eq!(topic.entries[0].text, "Postgres 16");
}

#[test]
fn a_fence_or_table_line_moved_leaves_every_file_readable() {
    for line in ["| a | b |", "```", "~~~ rust", "<div>"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(
            d.join("memory-a.md"),
            "- 2026-07-01: first
",
        )
        .unwrap();
        fs::write(
            d.join("MEMORY.md"),
            format!("- [A](memory-a.md) — a\n{line}\n"),
        )
        .unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .open()
            .unwrap();
        let before = m.topic("memory-a.md").unwrap();
        if m.compact(None, &ToA, false).is_ok() {
            let topic = m.topic("memory-a.md").unwrap();
            assert!(topic.text.contains(line), "{line:?}: {}", topic.text);
            assert_eq!(topic.entries[0], before.entries[0], "{line:?}");
            m.index().unwrap();
        }
    }
}
