//! When the passes of one step meet: a write whose own entry the triggered split moves
//! straight out, two topics split in one compaction into the same wanted name, a split
//! file that the index pass of the same step merges into another topic. Each was found
//! by `structured_no_fact_lost.rs`; each step must land whole and report what is on disk.

use std::path::Path;

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Entry, Fact, MemoryIndex, SplitPart, StructuredMemory,
    Topic,
};

fn memory(dir: &Path, topic_lines: usize, index_lines: usize) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .budgets(
            Budgets::default()
                .topic_lines(topic_lines)
                .index_lines(index_lines),
        )
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// Splits the newest entry of an overgrown topic into `memory-split.md` (wanted name),
/// and, when `merge` is set, merges every topic but the first into the first.
struct SplitNewest {
    merge: bool,
}

impl Compactor for SplitNewest {
    fn split(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok(vec![SplitPart::new(
            "memory-split.md",
            "Split",
            "the split part",
            [entries.len() - 1],
        )])
    }
    fn merge_topics(&self, index: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        if !self.merge {
            return Ok(Vec::new());
        }
        let first = index.lines[0].file.clone();
        Ok(index.lines[1..]
            .iter()
            .map(|l| (l.file.clone(), first.clone()))
            .collect())
    }
}

fn live_texts(m: &StructuredMemory) -> Vec<String> {
    let mut out = Vec::new();
    for line in m.index().unwrap().lines {
        out.extend(
            m.topic(&line.file)
                .unwrap()
                .entries
                .into_iter()
                .map(|e| e.text),
        );
    }
    out.sort();
    out
}

#[test]
fn a_write_whose_entry_the_split_moves_straight_out_reports_both_files_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d, 4, 10);
    let c = SplitNewest { merge: false };
    for text in ["first", "second"] {
        m.remember_with(
            Fact::new("memory-t.md", text)
                .hook("t things")
                .date("2026-06-01"),
            &c,
        )
        .unwrap();
    }
    let before = std::fs::read(d.join("memory-t.md")).unwrap();
    let out = m
        .remember_with(Fact::new("memory-t.md", "third").date("2026-06-02"), &c)
        .unwrap();
    // The topic is back to what it was: the entry went straight on to the split file.
    assert_eq!(std::fs::read(d.join("memory-t.md")).unwrap(), before);
    assert_eq!(out.file, "memory-split.md");
    assert_eq!(out.entry.text, "third");
    for file in ["memory-split.md", "memory-t.md"] {
        let reported = out.budgets.iter().find(|b| b.file == file).unwrap();
        assert_eq!(
            reported,
            &m.topic(file).unwrap().budget,
            "the outcome reports {file} as it is on disk"
        );
    }
}

#[test]
fn two_topics_split_in_one_compaction_into_the_same_name_get_distinct_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — a things\n- [B](memory-b.md) — b things\n",
    )
    .unwrap();
    for (file, title) in [("memory-a.md", "A"), ("memory-b.md", "B")] {
        let mut text = format!("# {title}\n\n");
        for day in 1..=4 {
            text.push_str(&format!("- 2026-06-0{day}: {title} fact {day}\n"));
        }
        std::fs::write(d.join(file), text).unwrap();
    }
    let m = memory(d, 5, 10);
    let report = m
        .compact(None, &SplitNewest { merge: false }, false)
        .unwrap();
    assert_eq!(report.created, ["memory-split.md", "memory-split-2.md"]);
    let split: Vec<&str> = report
        .files
        .iter()
        .flat_map(|f| &f.passes)
        .map(|p| p.to.as_str())
        .collect();
    assert_eq!(split, ["memory-split.md", "memory-split-2.md"]);
    assert_eq!(
        m.topic("memory-split.md").unwrap().entries[0].text,
        "A fact 4"
    );
    assert_eq!(
        m.topic("memory-split-2.md").unwrap().entries[0].text,
        "B fact 4"
    );
    let mut want: Vec<String> = ["A", "B"]
        .iter()
        .flat_map(|t| (1..=4).map(move |d| format!("{t} fact {d}")))
        .collect();
    want.sort();
    assert_eq!(live_texts(&m), want, "every fact once, nothing lost");
    let index = m.index().unwrap();
    let linked: Vec<&str> = index.lines.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(
        linked,
        [
            "memory-a.md",
            "memory-b.md",
            "memory-split.md",
            "memory-split-2.md"
        ]
    );
}

#[test]
fn a_split_file_the_index_pass_merges_away_is_never_created_and_its_facts_live_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [A](memory-a.md) — a things\n").unwrap();
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01: one\n- 2026-06-02: two\n- 2026-06-03: three\n",
    )
    .unwrap();
    // Index budget 1: the split's line takes MEMORY.md over, and the index pass merges
    // the split file (not yet on disk) back into memory-a.md in the same step.
    let m = memory(d, 4, 1);
    let report = m
        .compact(None, &SplitNewest { merge: true }, false)
        .unwrap();
    assert!(!d.join("memory-split.md").exists());
    assert!(report.created.is_empty(), "{:?}", report.created);
    assert!(
        report.files.iter().all(|f| f.file != "memory-split.md"),
        "no budget report for a file that was never written: {:?}",
        report.files
    );
    let a = m.topic("memory-a.md").unwrap();
    let texts: Vec<&str> = a.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["one", "two", "three"]);
    // The merged topic's title is the section heading, not a second `# ` title.
    assert_eq!(
        a.text,
        "# A\n\n- 2026-06-01: one\n- 2026-06-02: two\n\n## Split\n\n- 2026-06-03: three\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("MEMORY.md")).unwrap(),
        "- [A](memory-a.md) — a things\n"
    );
    // The topic is over its budget again, and the report says so, exactly.
    let nj = report
        .files
        .iter()
        .find(|f| f.file == "memory-a.md")
        .and_then(|f| f.needs_judgment.clone())
        .unwrap();
    assert_eq!(nj.over_by_lines, a.budget.over_by_lines);
}

/// Never splits; merges every topic but the first into the first.
struct MergeOnly;

impl Compactor for MergeOnly {
    fn merge_topics(&self, index: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        let first = index.lines[0].file.clone();
        Ok(index.lines[1..]
            .iter()
            .map(|l| (l.file.clone(), first.clone()))
            .collect())
    }
}

#[test]
fn a_topic_merged_away_is_reported_gone_not_over_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [B](memory-b.md) — b things\n- [A](memory-a.md) — a things\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-b.md"), "# B\n\n- 2026-06-01: b one\n").unwrap();
    // Over its budget of 4 lines, with nothing the passes can take: it needs judgment,
    // then the index pass (MEMORY.md over its budget of 1) merges it into memory-b.md.
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01 [x]: a one\n- 2026-06-02 [y]: a two\n- 2026-06-03 [z]: a three\n",
    )
    .unwrap();
    let m = memory(d, 4, 1);
    let report = m.compact(None, &MergeOnly, false).unwrap();
    assert!(!d.join("memory-a.md").exists());
    let a = report
        .files
        .iter()
        .find(|f| f.file == "memory-a.md")
        .unwrap();
    assert_eq!((a.after.lines, a.after.bytes), (0, 0), "{a:?}");
    assert!(a.needs_judgment.is_none(), "{a:?}");
    let b = m.topic("memory-b.md").unwrap();
    let reported = report
        .files
        .iter()
        .find(|f| f.file == "memory-b.md")
        .unwrap();
    assert_eq!(
        reported.after, b.budget,
        "memory-b.md reported as it is on disk"
    );
    assert_eq!(
        reported.needs_judgment.as_ref().map(|n| n.over_by_lines),
        Some(b.budget.over_by_lines)
    );
    let texts: Vec<&str> = b.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["b one", "a one", "a two", "a three"]);
}

#[test]
fn a_merged_topic_with_a_byte_order_mark_and_crlf_joins_as_the_other_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [B](memory-b.md) — b things\n- [A](memory-a.md) — a things\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-b.md"), "# B\n\n- 2026-06-01: b one\n").unwrap();
    let a = "\u{feff}# A\r\n\r\n- 2026-06-01: a one\r\n- 2026-06-02: a two\r\n";
    std::fs::write(d.join("memory-a.md"), a).unwrap();
    let m = memory(d, 150, 1);
    m.compact(None, &MergeOnly, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.join("memory-b.md")).unwrap(),
        "# B\n\n- 2026-06-01: b one\n\n## A\n\n- 2026-06-01: a one\n- 2026-06-02: a two\n"
    );
    // The archive keeps the merged file's lines as they were.
    let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(archive.contains("- 2026-06-01: a one"), "{archive}");
}

/// Routes every content line of the index to the first topic.
struct RouteToFirst;

impl Compactor for RouteToFirst {
    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        let first = index.lines[0].file.clone();
        Ok((0..index.content.len())
            .map(|i| (i, first.clone()))
            .collect())
    }
}

#[test]
fn content_routed_out_of_the_index_is_its_own_paragraph_not_part_of_the_last_entry() {
    for (topic, le) in [
        ("# Ops\n\n- 2026-01-01 [ops]: ops fact\n", "\n"),
        ("# Ops\r\n\r\n- 2026-01-01 [ops]: ops fact", "\r\n"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("MEMORY.md"),
            "- [Ops](memory-ops.md) — ops\nDeploy with make deploy.\nThen check the dashboard.\n",
        )
        .unwrap();
        std::fs::write(d.join("memory-ops.md"), topic).unwrap();
        let m = memory(d, 150, 1);
        m.compact(None, &RouteToFirst, false).unwrap();
        let text = std::fs::read_to_string(d.join("memory-ops.md")).unwrap();
        // Each routed line an entry of its own, dated the day it moved (compactable).
        let want = format!(
            "{}{le}- 2026-07-10: Deploy with make deploy.{le}- 2026-07-10: Then check the dashboard.{le}",
            topic.trim_end_matches(['\r', '\n']).to_string() + le
        );
        assert_eq!(text, want);
        let ops = m.topic("memory-ops.md").unwrap();
        assert_eq!(ops.entries.len(), 3);
        assert_eq!(ops.entries[0].text, "ops fact", "the entry reads as it did");
        // A newer generation of the subject replaces the entry only, not the routed lines.
        m.remember(
            Fact::new("memory-ops.md", "ops fact, newer")
                .subject("ops")
                .date("2026-02-01"),
        )
        .unwrap();
        let text = std::fs::read_to_string(d.join("memory-ops.md")).unwrap();
        assert!(text.contains("Deploy with make deploy."), "{text}");
        assert!(text.contains("Then check the dashboard."), "{text}");
        assert!(
            !text.contains("[ops]: ops fact\n") && !text.contains("[ops]: ops fact\r\n"),
            "{text}"
        );
    }
}

#[test]
fn a_dry_run_in_a_directory_never_written_to_creates_nothing_not_even_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [A](memory-a.md) — a things\n").unwrap();
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01 [x]: one\n- 2026-06-02 [x]: two\n- 2026-06-03 [y]: three\n",
    )
    .unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    let m = memory(d, 4, 10);
    let dry = m
        .compact(
            None,
            &memory_core::structured_memory::DefaultCompactor,
            true,
        )
        .unwrap();
    assert!(dry.dry_run);
    assert_eq!(dry.files[0].passes.len(), 1, "{dry:?}");
    assert_eq!(listing(), before, "nothing created");
    // The real run does what the dry run said, under the lock.
    let real = m
        .compact(
            None,
            &memory_core::structured_memory::DefaultCompactor,
            false,
        )
        .unwrap();
    assert_eq!(real.files, dry.files);
    assert!(d.join(".memcore.lock").exists());
}

/// A compaction, a restore (refused: there is no archive) and a dry run of a directory
/// that does not exist leave it not existing: no directory, no lock.
#[test]
fn commands_on_a_directory_that_does_not_exist_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("memory");
    let m = memory(&d, 4, 10);
    let compactor = memory_core::structured_memory::DefaultCompactor;
    for dry_run in [true, false] {
        let report = m.compact(None, &compactor, dry_run).unwrap();
        assert_eq!(report.dry_run, dry_run);
        assert!(report.id.is_none() && report.files.iter().all(|f| f.passes.is_empty()));
        assert!(!d.exists(), "dry run {dry_run}");
    }
    assert!(m.compact(Some("memory-a.md"), &compactor, false).is_err());
    assert!(!d.exists());
    let err = m.restore("c-20260601-001").unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::NotFound, "{err}");
    assert!(!d.exists());
    // An archive without the id: refused under the lock, nothing else written.
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("memory-archive.md"), "# Memory archive\n").unwrap();
    assert_eq!(
        m.restore("c-20260601-001").unwrap_err().kind(),
        memory_core::ErrorKind::NotFound
    );
    assert_eq!(
        read_text(&d.join("memory-archive.md")),
        "# Memory archive\n"
    );
}

fn read_text(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// Splits every entry out, in parts of one entry each.
struct SplitEach;

impl Compactor for SplitEach {
    fn split(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok((0..entries.len())
            .map(|i| {
                SplitPart::new(
                    format!("memory-part{i}.md"),
                    format!("Part {i}"),
                    "a part",
                    [i],
                )
            })
            .collect())
    }
}

#[test]
fn a_new_topic_whose_only_entry_its_split_would_move_out_keeps_it_and_needs_judgment() {
    for eol_bom in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = memory(d, 1, 10);
        if eol_bom {
            // An existing index in CRLF with a BOM: the new topic's line joins it.
            std::fs::write(d.join("MEMORY.md"), "\u{feff}# Memory\r\n").unwrap();
        }
        let out = m
            .remember_with(
                Fact::new("memory-n.md", "the only fact")
                    .hook("n things")
                    .date("2026-06-01"),
                &SplitNewest { merge: false },
            )
            .unwrap();
        assert_eq!(out.file, "memory-n.md");
        let topic = m.topic("memory-n.md").unwrap();
        assert_eq!(
            topic.entries.len(),
            1,
            "the entry stays where it was written"
        );
        assert!(!d.join("memory-split.md").exists(), "no file split out");
        let compaction = out.compaction.as_ref().unwrap();
        let n = compaction
            .files
            .iter()
            .find(|f| f.file == "memory-n.md")
            .and_then(|f| f.needs_judgment.as_ref())
            .unwrap();
        assert!(
            n.message.contains("memory-split.md was not made"),
            "{}",
            n.message
        );
        assert!(n.over_by_lines > 0);
        assert!(compaction.created.is_empty());
        let kinds: Vec<String> = m
            .check()
            .unwrap()
            .iter()
            .map(|v| v.kind.as_str().to_string())
            .collect();
        assert_eq!(
            kinds,
            ["over_budget"],
            "no husk, no orphan, no dangling line"
        );
        assert_eq!(m.index().unwrap().lines.len(), 1);
    }
}

#[test]
fn a_split_keeps_the_last_entry_of_a_topic_of_headings_only_but_may_empty_one_with_prose() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — a\n- [B](memory-b.md) — b\n",
    )
    .unwrap();
    let entries = "- 2026-06-01: one\n- 2026-06-02: two\n- 2026-06-03: three\n";
    std::fs::write(
        d.join("memory-a.md"),
        format!("# A\r\n\r\n## Facts\r\n{}", entries.replace('\n', "\r\n")),
    )
    .unwrap();
    std::fs::write(
        d.join("memory-b.md"),
        format!("# B\n\nKept by hand.\n\n{entries}"),
    )
    .unwrap();
    let m = memory(d, 2, 10);
    let report = m.compact(None, &SplitEach, false).unwrap();
    // memory-a.md: two parts split out, the last entry kept, needs judgment.
    let a = m.topic("memory-a.md").unwrap();
    assert_eq!(a.entries.len(), 1);
    let fa = report
        .files
        .iter()
        .find(|f| f.file == "memory-a.md")
        .unwrap();
    assert!(
        fa.needs_judgment
            .as_ref()
            .unwrap()
            .message
            .contains("was not made")
    );
    // memory-b.md holds prose of its own: every entry may leave it.
    let b = m.topic("memory-b.md").unwrap();
    assert!(b.entries.is_empty());
    assert!(b.text.contains("Kept by hand."));
    for v in m.check().unwrap() {
        assert!(
            !matches!(v.kind.as_str(), "orphan_topic" | "dangling_index_line"),
            "{v:?}"
        );
    }
}
