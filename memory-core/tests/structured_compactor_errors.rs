//! What a compactor raises is the source of `Error::CompactorFailed` itself, in every
//! pass (the index passes too), so that a binding can give its caller back the very
//! exception its callable raised; nothing is written.

mod structured_support;
use structured_support::tree;

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Entry, MemoryIndex, StructuredMemory, Topic,
};

/// The error a compactor raises, recognisable by type and value.
#[derive(Debug, PartialEq)]
struct Raised(&'static str);

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "raised in {}", self.0)
    }
}

impl std::error::Error for Raised {}

/// Raises [`Raised`] in the pass named.
struct RaisesIn(&'static str);

impl RaisesIn {
    fn raise<T>(&self, pass: &'static str) -> Result<T, CompactorError> {
        Err(Box::new(Raised(pass)))
    }
}

impl Compactor for RaisesIn {
    fn dead(&self, _: &Topic, _: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        if self.0 == "dead" {
            return self.raise("dead");
        }
        Ok(Vec::new())
    }
    fn route_content(&self, _: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        if self.0 == "route_content" {
            return self.raise("route_content");
        }
        Ok(Vec::new())
    }
    fn merge_topics(&self, _: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        if self.0 == "merge_topics" {
            return self.raise("merge_topics");
        }
        Ok(Vec::new())
    }
}

#[test]
fn the_error_a_compactor_raises_is_the_source_in_every_pass_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — notes\nThe deploy hook runs first.\n",
    )
    .unwrap();
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01: a fact\n- 2026-06-02: another\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-b.md"), "# B\n\n- 2026-06-03: b fact\n").unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().index_lines(1).topic_lines(2))
        .open()
        .unwrap();
    let before = tree(d);
    for (pass, file) in [
        ("route_content", "MEMORY.md"),
        ("merge_topics", "MEMORY.md"),
        ("dead", "memory-a.md"),
    ] {
        let err = m.compact(Some(file), &RaisesIn(pass), false).unwrap_err();
        assert!(
            matches!(err, memory_core::Error::CompactorFailed { .. }),
            "{pass}: {err}"
        );
        let source = std::error::Error::source(&err).expect("a source");
        assert_eq!(
            source.downcast_ref::<Raised>(),
            Some(&Raised(pass)),
            "{pass}: the raised error itself, not its text"
        );
        assert_eq!(tree(d), before, "{pass}: nothing written");
    }
}

/// Condenses the first two entries into one lesson about `subject`.
struct LessonAbout(&'static str);

impl Compactor for LessonAbout {
    fn summarize(
        &self,
        _: &Topic,
        entries: &[Entry],
    ) -> Result<Vec<memory_core::structured_memory::Condensed>, CompactorError> {
        assert!(entries.len() >= 2);
        Ok(vec![
            memory_core::structured_memory::Condensed::new(vec![0, 1], "the lesson")
                .subject(self.0),
        ])
    }
}

/// A lesson's subject is held to what `remember` holds a subject to: one that would read
/// back as another subject and text (`a]: b`, a line break), an empty one, one with
/// brackets or one far too long is the compactor's failure, nothing written; a clean one,
/// trimmed, is the lesson's subject.
#[test]
fn a_lessons_subject_is_checked_as_a_given_subject_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [A](memory-a.md) — deploys\n").unwrap();
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01: one\n- 2026-06-02: two\n- 2026-06-03: three\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(4))
        .open()
        .unwrap();
    let before = tree(d);
    let long = "x".repeat(500);
    let long: &'static str = Box::leak(long.into_boxed_str());
    for subject in [
        "a]: b\nc",
        "x] y",
        "",
        "  ",
        "[k",
        "a\rb",
        "tab\u{7}bell",
        long,
    ] {
        let err = m
            .compact(Some("memory-a.md"), &LessonAbout(subject), false)
            .unwrap_err();
        assert!(
            matches!(err, memory_core::Error::CompactorFailed { pass, .. } if pass == "summarize-episodic"),
            "{subject:?}: {err}"
        );
        assert!(err.to_string().contains("subject"), "{subject:?}: {err}");
        assert_eq!(tree(d), before, "{subject:?}: nothing is written");
    }
    m.compact(Some("memory-a.md"), &LessonAbout("  deploys  "), false)
        .unwrap();
    let topic = m.topic("memory-a.md").unwrap();
    let lesson = topic
        .entries
        .iter()
        .find(|e| e.text == "the lesson")
        .expect("the lesson is written");
    assert_eq!(lesson.subject.as_deref(), Some("deploys"));
}
