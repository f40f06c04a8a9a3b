//! A compactor that evicts every entry of a topic holding nothing else of its own (a
//! frontmatter block and headings at most): the topic file and its index line are removed
//! in the same step as the rest of the compaction, both archived first; `restore ID`
//! brings back the file as it was and its own index line. A topic with prose or hand notes
//! left is kept.

mod structured_support;
use structured_support::tree;

use memory_core::structured_memory::{
    ArchivePass, Budgets, Compactor, CompactorError, Entry, StructuredMemory, Topic,
};
use std::fs;

/// Evicts every entry it is shown.
struct EvictAll;

impl Compactor for EvictAll {
    fn dead(&self, _: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        Ok((0..entries.len()).collect())
    }
}

/// Topic texts that are nothing but entries once they are gone.
fn husks() -> Vec<&'static str> {
    vec![
        "- 2026-07-01: a\n- 2026-07-02: b\n- 2026-07-03: c\n",
        "# Old project\n\n- 2026-07-01: a\n- 2026-07-02: b\n\n## More\n- 2026-07-03: c\n",
        "---\nname: Old\ndescription: gone\n---\n\n- 2026-07-01: a\n- 2026-07-02 [s]: b\n  with a second line\n- 2026-07-03: c\n",
        "- 2026-07-01: a\r\n- 2026-07-02: b\r\n- 2026-07-03: c\r\n",
    ]
}

#[test]
fn an_emptied_topic_goes_with_its_index_line_and_restore_brings_both_back() {
    for text in husks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("memory-old.md"), text).unwrap();
        fs::write(d.join("memory-keep.md"), "- 2026-07-01: kept\n").unwrap();
        let index = "<!-- memory index -->\n- [Old](memory-old.md) — the old project\n- [Keep](memory-keep.md) — kept\n";
        fs::write(d.join("MEMORY.md"), index).unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(2))
            .open()
            .unwrap();
        let dry_before = tree(d);
        let dry = m.compact(None, &EvictAll, true).unwrap();
        assert_eq!(tree(d), dry_before, "a dry run writes nothing");
        let report = m.compact(None, &EvictAll, false).unwrap();
        assert_eq!(report.files, dry.files, "the dry run said exactly this");
        assert!(!d.join("memory-old.md").exists(), "{text:?}");
        assert_eq!(
            fs::read_to_string(d.join("MEMORY.md")).unwrap(),
            "<!-- memory index -->\n- [Keep](memory-keep.md) — kept\n"
        );
        let f = &report.files[0];
        assert_eq!((f.file.as_str(), f.after.lines), ("memory-old.md", 0));
        assert!(f.needs_judgment.is_none());
        let passes: Vec<ArchivePass> = f.passes.iter().map(|p| p.pass).collect();
        assert_eq!(passes, [ArchivePass::EvictDead, ArchivePass::RemoveEmpty]);
        assert_eq!(f.passes[1].from_lines, [2]);
        assert!(m.check().unwrap().is_empty(), "no dangling line, no orphan");
        let archive = fs::read_to_string(d.join("memory-archive.md")).unwrap();
        assert!(archive.contains("- [Old](memory-old.md) — the old project"));

        let id = report.id.unwrap();
        m.restore(&id).unwrap();
        assert_eq!(
            fs::read_to_string(d.join("memory-old.md")).unwrap(),
            text.replace("\r\n", "\n"),
            "the file as it was (line endings as the archive keeps them)"
        );
        let back = m.index().unwrap();
        let old = back.line_for("memory-old.md").unwrap();
        assert_eq!(
            (old.title.as_str(), old.hook.as_str()),
            ("Old", "the old project")
        );
        assert_eq!(back.lines.len(), 2, "its own line, not a second one");
    }
}

#[test]
fn a_topic_with_prose_or_hand_notes_left_is_kept() {
    for text in [
        "Why we kept this project.\n\n- 2026-07-01: a\n- 2026-07-02: b\n- 2026-07-03: c\n",
        "- 2026-07-01: a\n- 2026-07-02: b\n- 2026-07-03: c\n- a hand note\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("memory-old.md"), text).unwrap();
        fs::write(d.join("MEMORY.md"), "- [Old](memory-old.md) — old\n").unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(2))
            .open()
            .unwrap();
        m.compact(None, &EvictAll, false).unwrap();
        assert!(d.join("memory-old.md").exists(), "{text:?}");
        assert!(m.index().unwrap().line_for("memory-old.md").is_some());
        assert!(m.topic("memory-old.md").unwrap().entries.is_empty());
    }
}

#[test]
fn emptying_two_topics_at_once_removes_both_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["memory-a.md", "memory-b.md", "memory-c.md"] {
        fs::write(
            d.join(f),
            "- 2026-07-01: a\n- 2026-07-02: b\n- 2026-07-03: c\n",
        )
        .unwrap();
    }
    fs::write(d.join("memory-keep.md"), "- 2026-07-01: kept\n").unwrap();
    fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — a\n- [Keep](memory-keep.md) — k\n- [B](memory-b.md) — b\n- [C](memory-c.md) — c\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(2))
        .open()
        .unwrap();
    m.compact(None, &EvictAll, false).unwrap();
    assert_eq!(
        fs::read_to_string(d.join("MEMORY.md")).unwrap(),
        "- [Keep](memory-keep.md) — k\n"
    );
    let names: Vec<String> = tree(d).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["MEMORY.md", "memory-archive.md", "memory-keep.md"]);
}

/// A write that takes a topic over its budget, with a compactor that evicts every entry
/// (the one written included): the topic and its line go in the write's own step, the
/// fact is in the archive (never lost), and `restore` brings the file back with it; a new
/// topic so emptied is never created, nor linked.
#[test]
fn a_write_whose_compaction_evicts_every_entry_leaves_no_husk() {
    use memory_core::structured_memory::Fact;
    for text in husks() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("memory-old.md"), text).unwrap();
        let index = "<!-- memory index -->\n- [Old](memory-old.md) — the old project\n- [Keep](memory-keep.md) — kept\n";
        fs::write(d.join("memory-keep.md"), "- 2026-07-01: kept\n").unwrap();
        fs::write(d.join("MEMORY.md"), index).unwrap();
        let m = structured_support::memory_at(d, Some(2));
        let out = m
            .remember_with(Fact::new("memory-old.md", "the last word"), &EvictAll)
            .unwrap();
        assert!(!d.join("memory-old.md").exists(), "{text:?}");
        assert_eq!(
            fs::read_to_string(d.join("MEMORY.md")).unwrap(),
            "<!-- memory index -->\n- [Keep](memory-keep.md) — kept\n"
        );
        assert!(!out.created_topic && !out.linked);
        let compaction = out.compaction.unwrap();
        let f = &compaction.files[0];
        assert_eq!((f.file.as_str(), f.after.lines), ("memory-old.md", 0));
        assert!(f.needs_judgment.is_none());
        let archive = fs::read_to_string(d.join("memory-archive.md")).unwrap();
        assert!(archive.contains("the last word"), "{archive}");
        assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
        m.restore(compaction.id.as_deref().unwrap()).unwrap();
        let back = m.topic("memory-old.md").unwrap();
        assert!(back.entries.iter().any(|e| e.text == "the last word"));
        assert_eq!(m.index().unwrap().lines.len(), 2);
    }

    // A new topic whose first write is evicted at once.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = structured_support::memory_at(d, Some(2));
    let out = m
        .remember_with(
            Fact::new("memory-new.md", "a fact").hook("new things"),
            &EvictAll,
        )
        .unwrap();
    assert!(!out.created_topic && !out.linked);
    assert!(!d.join("memory-new.md").exists());
    assert!(m.index().unwrap().lines.is_empty());
    let archive = fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(archive.contains("a fact"), "{archive}");
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
}
