//! Topic names that are one file on another system, or that cannot be read as written:
//! canonically equivalent spellings (`café` with `é`, or `e` and U+0301) are one topic as
//! case twins are (a write goes into the existing file; `check` links exact, then but for
//! case, then canonically equivalent); names holding invisible or reordering characters,
//! Windows device names and characters, edge spaces or dots, or more than 255 bytes are
//! refused as `InvalidInput` naming why — from `remember` and from a compactor's split and
//! merge names alike — and nothing is written.

use std::path::Path;

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Entry, Fact, MemoryIndex, SplitPart, StructuredMemory,
    Topic,
};
use memory_core::{Error, ErrorKind};
use proptest::prelude::*;

const NFC: &str = "memory-caf\u{e9}.md";
const NFD: &str = "memory-cafe\u{301}.md";

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".memcore.lock")
        .collect();
    out.sort();
    out
}

#[test]
fn canonically_equivalent_names_are_one_topic_in_either_order() {
    for (first, second) in [(NFC, NFD), (NFD, NFC), ("memory-CAF\u{c9}.md", NFD)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = memory(d);
        m.remember(
            Fact::new(first, "beans from Kenya")
                .subject("beans")
                .hook("coffee"),
        )
        .unwrap();
        let out = m
            .remember(Fact::new(second, "beans from Peru").subject("beans"))
            .unwrap();
        assert_eq!(out.file, first, "{second:?}");
        assert_eq!(out.replaced.len(), 1);
        assert_eq!(names(d), {
            let mut v = vec![
                "MEMORY.md".to_string(),
                "memory-archive.md".to_string(),
                first.to_string(),
            ];
            v.sort();
            v
        });
        assert_eq!(m.index().unwrap().lines.len(), 1);
        assert_eq!(m.check().unwrap(), []);
    }
}

#[test]
fn an_unlinked_file_in_the_other_form_takes_the_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(NFD), "- 2026-07-01 [beans]: Kenya\n").unwrap();
    let m = memory(d);
    let orphans: Vec<String> = m.check().unwrap().into_iter().map(|v| v.file).collect();
    assert_eq!(orphans, [NFD]);
    let out = m
        .remember(Fact::new(NFC, "Peru").subject("beans").hook("coffee"))
        .unwrap();
    assert_eq!(out.file, NFD);
    assert!(out.linked && !out.created_topic);
    assert_eq!(names(d), ["MEMORY.md", "memory-archive.md", NFD]);
    assert_eq!(m.check().unwrap(), []);
}

#[test]
fn check_links_exact_then_case_then_canonical_equivalence() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A line in NFC whose file is on disk in NFD: it dangles here (the disk does not fold
    // normalisation), says why, and the file is no orphan.
    std::fs::write(d.join("MEMORY.md"), format!("- [Café]({NFC}) — coffee\n")).unwrap();
    std::fs::write(d.join(NFD), "- 2026-07-01: Kenya\n").unwrap();
    let found = memory(d).check().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind.as_str(), "dangling_index_line");
    assert!(
        found[0].message.contains("normalisation"),
        "{}",
        found[0].message
    );
    // With the exact file there too, the other form is the orphan; a case twin wins over
    // a canonical one.
    std::fs::write(d.join(NFC), "- 2026-07-01: Kenya\n").unwrap();
    let kinds: Vec<(String, String)> = memory(d)
        .check()
        .unwrap()
        .into_iter()
        .map(|v| (v.kind.as_str().to_string(), v.file))
        .collect();
    assert_eq!(kinds, [("orphan_topic".to_string(), NFD.to_string())]);
    std::fs::remove_file(d.join(NFC)).unwrap();
    std::fs::write(d.join("memory-CAF\u{c9}.md"), "- 2026-07-01: Kenya\n").unwrap();
    let found = memory(d).check().unwrap();
    let orphans: Vec<&str> = found
        .iter()
        .filter(|v| v.kind.as_str() == "orphan_topic")
        .map(|v| v.file.as_str())
        .collect();
    assert_eq!(orphans, [NFD]);
    // Two lines naming one topic in two forms are a duplicate.
    std::fs::write(
        d.join("MEMORY.md"),
        format!("- [Café]({NFC}) — coffee\n- [Café]({NFD}) — again\n"),
    )
    .unwrap();
    let found = memory(d).check().unwrap();
    assert!(
        found
            .iter()
            .any(|v| v.kind.as_str() == "duplicate_index_line" && v.line == 2),
        "{found:?}"
    );
}

/// Names no write may give a topic, and words the refusal must hold.
fn refused() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = [
        ("memory-x\u{200b}.md", "U+200B"),
        ("memory-x\u{200c}.md", "U+200C"),
        ("memory-x\u{200f}.md", "U+200F"),
        ("memory-x\u{2060}.md", "U+2060"),
        ("memory-x\u{feff}.md", "U+FEFF"),
        ("memory-\u{202e}x.md", "U+202E"),
        ("memory-\u{2067}x.md", "U+2067"),
        ("memory-x\u{ad}.md", "U+00AD"),
        ("memory-x\u{1b}.md", "control"),
        ("CON.md", "device name"),
        ("prn.md", "device name"),
        ("Aux.notes.md", "device name"),
        ("nul.md", "device name"),
        ("COM1.md", "device name"),
        ("lpt9.md", "device name"),
        ("memory-a*b.md", "Windows"),
        ("memory-a<b.md", "Windows"),
        ("memory-a>b.md", "Windows"),
        ("memory-a|b.md", "Windows"),
        ("memory-\"a\".md", "Windows"),
        (" memory-x.md", "space"),
        ("topics./x.md", "dot"),
        ("topics /x.md", "space"),
        ("memory-%41.md", "escape"),
        ("memory-100%.md", "escape"),
        ("memory-a&amp;b.md", "escape"),
        ("memory-&copy;.md", "escape"),
    ]
    .into_iter()
    .map(|(n, w)| (n.to_string(), w))
    .collect();
    out.push((format!("{}.md", "x".repeat(297)), "255 bytes"));
    out.push((format!("{}.md", "é".repeat(200)), "255 bytes"));
    out
}

#[test]
fn remember_refuses_hidden_and_unportable_names_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d);
    m.remember(Fact::new("memory-x.md", "a fact").hook("x"))
        .unwrap();
    let before = names(d);
    let index = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
    for (name, words) in refused() {
        let err = m
            .remember(Fact::new(name.as_str(), "another fact").hook("x"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name:?}: {err}");
        assert!(err.to_string().contains(words), "{name:?}: {err}");
        assert_eq!(names(d), before, "{name:?}");
        assert_eq!(std::fs::read_to_string(d.join("MEMORY.md")).unwrap(), index);
    }
}

/// Splits every entry of an overgrown topic into one part named `self.0`.
struct SplitInto(String);

impl Compactor for SplitInto {
    fn split(&self, _: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok(vec![SplitPart::new(
            self.0.as_str(),
            "Part",
            "the part",
            (1..entries.len()).collect::<Vec<_>>(),
        )])
    }
}

/// Merges `from` into `into`, as given.
struct Merge(String, String);

impl Compactor for Merge {
    fn merge_topics(&self, _: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        Ok(vec![(self.0.clone(), self.1.clone())])
    }
}

fn overgrown(d: &Path) {
    std::fs::write(d.join("MEMORY.md"), "- [T](memory-t.md) — topic\n").unwrap();
    std::fs::write(
        d.join("memory-t.md"),
        "- 2026-07-01 [a]: a\n- 2026-07-02 [b]: b\n- 2026-07-03 [c]: c\n",
    )
    .unwrap();
}

#[test]
fn a_split_name_is_held_to_the_same_rules() {
    for (name, words) in refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        overgrown(d);
        let before = names(d);
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(2))
            .open()
            .unwrap();
        let err = m
            .compact(None, &SplitInto(name.clone()), false)
            .unwrap_err();
        assert!(
            matches!(err, Error::CompactorFailed { .. }),
            "{name:?}: {err}"
        );
        assert!(err.to_string().contains(words), "{name:?}: {err}");
        assert_eq!(names(d), before, "{name:?}");
    }
}

#[test]
fn a_split_into_a_canonical_twin_of_a_file_takes_a_free_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    overgrown(d);
    // An unlinked file in NFD: a split named in NFC must not make its twin.
    std::fs::write(d.join(NFD), "- 2026-06-01: hand kept\n").unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(2))
        .open()
        .unwrap();
    let report = m.compact(None, &SplitInto(NFC.to_string()), false).unwrap();
    assert_eq!(report.created, ["memory-café-2.md"]);
    assert_eq!(
        std::fs::read_to_string(d.join(NFD)).unwrap(),
        "- 2026-06-01: hand kept\n"
    );
    assert!(!d.join(NFC).exists());
}

#[test]
fn a_merge_named_in_another_form_merges_the_linked_files_and_a_hidden_name_is_refused() {
    let setup = |d: &Path| {
        std::fs::write(
            d.join("MEMORY.md"),
            format!("- [Café]({NFC}) — coffee\n- [Coffee](memory-coffee.md) — coffee too\n"),
        )
        .unwrap();
        std::fs::write(d.join(NFC), "- 2026-07-01 [beans]: Kenya\n").unwrap();
        std::fs::write(d.join("memory-coffee.md"), "- 2026-07-02 [grind]: fine\n").unwrap();
        StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .open()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = setup(d);
    m.compact(
        None,
        &Merge(NFD.to_string(), "memory-coffee.md".into()),
        false,
    )
    .unwrap();
    assert!(!d.join(NFC).exists());
    let merged = std::fs::read_to_string(d.join("memory-coffee.md")).unwrap();
    assert!(merged.contains("Kenya"), "{merged}");
    assert_eq!(m.index().unwrap().lines.len(), 1);

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = setup(d);
    let before = names(d);
    let err = m
        .compact(
            None,
            &Merge("memory-coffee\u{200b}.md".into(), NFC.to_string()),
            false,
        )
        .unwrap_err();
    assert!(matches!(err, Error::CompactorFailed { .. }), "{err}");
    assert_eq!(names(d), before);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any name is judged without a panic, and one spelled in the other normalisation form
    /// or case is judged the same (a refusal never depends on the form).
    #[test]
    fn every_name_is_judged_and_every_form_alike(stem in "\\PC{0,80}", pick in 0usize..4) {
        use unicode_normalization::UnicodeNormalization;
        let name = format!("{stem}.md");
        let forms: [String; 4] = [
            name.nfc().collect(),
            name.nfd().collect(),
            name.to_ascii_uppercase(),
            name.clone(),
        ];
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let a = m.remember(Fact::new(name.as_str(), "a fact").hook("h")).map(|o| o.file);
        let b = m.remember(Fact::new(forms[pick].as_str(), "a fact").hook("h")).map(|o| o.file);
        match (&a, &b) {
            (Ok(first), Ok(second)) => {
                // One topic: the second write went into the first's file (or an error
                // the name made, never a second file beside it).
                prop_assert_eq!(first, second);
                prop_assert_eq!(m.index().unwrap().lines.len(), 1);
            }
            (Err(e), _) => prop_assert_ne!(e.kind(), ErrorKind::Io, "{:?}: {}", name, e),
            (Ok(_), Err(e)) => prop_assert_ne!(e.kind(), ErrorKind::Io, "{:?}: {}", forms[pick], e),
        }
    }
}

#[test]
fn the_longest_accepted_name_is_written_with_its_temporary_file_and_one_more_byte_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d);
    // 218 bytes: its `.<name>.tmp-<pid>-<n>` staging file still fits 255.
    for longest in [
        format!("{}.md", "x".repeat(215)),
        format!("{}x.md", "é".repeat(107)),
    ] {
        assert_eq!(longest.len(), 218);
        let out = m
            .remember(Fact::new(longest.as_str(), "a fact").hook("h"))
            .unwrap();
        assert_eq!(out.file, longest);
        m.remember(Fact::new(longest.as_str(), "a second fact"))
            .unwrap();
        assert_eq!(m.topic(&longest).unwrap().entries.len(), 2);
    }
    let err = m
        .remember(Fact::new(format!("{}.md", "x".repeat(216)), "a fact").hook("h"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        err.to_string()
            .contains("at most 218 bytes; this one has 219"),
        "{err}"
    );
}
