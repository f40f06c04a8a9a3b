//! Two spellings of one subject are one subject: composed or decomposed (as macOS input
//! gives it), in any case, `ß` or `ss` — a write replaces the other spelling's entry and
//! `check` sees one generation.

use memory_core::structured_memory::{Fact, StructuredMemory};

#[test]
fn spellings_of_one_subject_merge_on_write() {
    for (first, second) in [
        ("caf\u{e9}", "cafe\u{301}"),
        ("Caf\u{c9} menu", "cafe\u{301}_MENU"),
        ("Stra\u{df}e", "STRASSE"),
        ("\u{3a3}\u{3a3}", "\u{3c3}\u{3c2}"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let m = StructuredMemory::builder(dir.path())
            .fixed_time("2026-07-10T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        m.remember(
            Fact::new("memory-t.md", "old")
                .subject(first)
                .hook("t")
                .date("2026-07-01"),
        )
        .unwrap();
        let out = m
            .remember(Fact::new("memory-t.md", "new").subject(second))
            .unwrap();
        assert_eq!(out.replaced.len(), 1, "{first:?} / {second:?}");
        let topic = m.topic("memory-t.md").unwrap();
        assert_eq!(topic.entries.len(), 1);
        assert_eq!(topic.entries[0].text, "new");
        assert!(
            m.check()
                .unwrap()
                .iter()
                .all(|v| v.kind.as_str() != "contradicting_generations"),
            "{first:?}"
        );
    }
}
