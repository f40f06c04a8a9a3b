//! The seed's compaction pass on real files: the passes in order and only while over
//! budget, everything removed or condensed archived in the same step, hostile compactors
//! refused without a byte changed, hand-written lines never compacted, restore by id.
//! The property test that no fact is ever lost is `structured_no_fact_lost.rs`.

mod structured_support;
use structured_support::tree;

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{
    ArchivePass, Budgets, Compactor, CompactorError, Condensed, DefaultCompactor, Entry, Fact,
    SplitPart, StructuredMemory, Topic,
};

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

/// Evicts entries mentioning a word; condenses entries mentioning another.
struct Judge {
    dead: &'static str,
    story: &'static str,
}

impl Compactor for Judge {
    fn dead(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        Ok(entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.text.contains(self.dead))
            .map(|(i, _)| i)
            .collect())
    }
    fn summarize(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<Condensed>, CompactorError> {
        let story: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.text.contains(self.story))
            .map(|(i, _)| i)
            .collect();
        Ok(if story.len() >= 2 {
            vec![Condensed::new(
                story,
                "staging deploys need the VPN up first",
            )]
        } else {
            vec![]
        })
    }
}

#[test]
fn the_passes_run_in_order_and_stop_under_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(
        d,
        "# Infra\n\n- 2026-06-01: the legacy FTP box runs backups\n- 2026-06-02 [db]: Postgres 15\n- 2026-06-03 [db]: Postgres 16\n- 2026-06-04: deploy failed on staging\n- 2026-06-05: deploy on staging timed out\n- 2026-06-06: deploy on staging worked with VPN\n- a hand note\n",
    );
    let m = memory(d, 6);
    let judge = Judge {
        dead: "FTP",
        story: "staging",
    };
    let dry = m.compact(Some("memory-infra.md"), &judge, true).unwrap();
    assert!(dry.dry_run);
    let before = tree(d);
    let report = m.compact(Some("memory-infra.md"), &judge, false).unwrap();
    assert_eq!(
        report.files, dry.files,
        "a dry run says exactly what happens"
    );
    assert_ne!(tree(d), before);
    let f = &report.files[0];
    let passes: Vec<ArchivePass> = f.passes.iter().map(|p| p.pass).collect();
    assert_eq!(
        passes,
        [
            ArchivePass::EvictDead,
            ArchivePass::CollapseSuperseded,
            ArchivePass::SummarizeEpisodic
        ]
    );
    assert_eq!((f.before.lines, f.after.lines), (9, 5));
    assert!(f.needs_judgment.is_none());
    // Each pass says where what it took was in the file as it was (not as the passes
    // before it left it), and the entries' lines agree.
    let from: Vec<Vec<usize>> = f.passes.iter().map(|p| p.from_lines.clone()).collect();
    assert_eq!(from, [vec![3], vec![4], vec![6, 7, 8]]);
    for p in &f.passes {
        let lines: Vec<usize> = p.entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, p.from_lines);
        assert_eq!(p.from, "memory-infra.md");
    }
    let topic = m.topic("memory-infra.md").unwrap();
    let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Postgres 16", "staging deploys need the VPN up first"]
    );
    assert!(
        topic.text.contains("- a hand note\n"),
        "hand-written lines are never compacted"
    );
    let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
    let id = report.id.clone().unwrap();
    for line in [
        "the legacy FTP box",
        "Postgres 15",
        "deploy failed on staging",
        "timed out",
        "worked with VPN",
    ] {
        assert!(archive.contains(line), "{line} not archived:\n{archive}");
    }
    for pass in ["evict-dead", "collapse-superseded", "summarize-episodic"] {
        assert!(
            archive.contains(&format!(
                "## {id} · {pass} · memory-infra.md · 2026-07-10T09:00:00Z"
            )),
            "{archive}"
        );
    }
    insta::assert_snapshot!("archive_after_compaction", archive);
    insta::assert_snapshot!("topic_after_compaction", topic.text);

    // restore brings back what the compaction archived; the archive stays as it was.
    let restored = m.restore(&id).unwrap();
    assert_eq!(restored.restored.len(), 3);
    assert_eq!(
        std::fs::read_to_string(d.join("memory-archive.md")).unwrap(),
        archive
    );
    let topic = m.topic("memory-infra.md").unwrap();
    assert_eq!(topic.entries.len(), 2 + 5);
    let again = m.restore(&id).unwrap();
    assert!(
        again.restored.iter().all(|r| r.lines.is_empty()),
        "not restored twice"
    );
    assert_eq!(
        m.restore("c-19990101-001").unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn the_default_splits_an_overgrown_topic_and_links_each_part() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(
        d,
        "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n- 2026-06-02: web2 runs nginx\n\n## Databases\n- 2026-06-03: Postgres 16 on db1\n- 2026-06-04: backups nightly\n",
    );
    let m = memory(d, 7);
    // A dry run says the line it would add, exactly as the real run writes it.
    let dry = m.compact(None, &DefaultCompactor, true).unwrap();
    assert_eq!(dry.index_lines.len(), 1);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    assert_eq!(report.index_lines, dry.index_lines);
    let index_text = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
    assert!(
        index_text.lines().any(|l| l == report.index_lines[0].text),
        "{index_text}"
    );
    assert_eq!(report.index_lines[0].file, "memory-infra-databases.md");
    assert_eq!(report.created, ["memory-infra-databases.md"]);
    assert!(
        report.id.is_none(),
        "a split archives nothing: every entry stays live"
    );
    let index = m.index().unwrap();
    assert_eq!(index.lines.len(), 2);
    assert_eq!(index.lines[1].file, "memory-infra-databases.md");
    assert_eq!(index.lines[1].hook, "Databases");
    insta::assert_snapshot!(
        "memory_index_after_compaction",
        std::fs::read_to_string(d.join("MEMORY.md")).unwrap()
    );
    let moved = m.topic("memory-infra-databases.md").unwrap();
    assert_eq!(moved.entries.len(), 2);
    let old = m.topic("memory-infra.md").unwrap();
    assert!(old.line_count <= 7);
    assert!(
        !old.text.contains("## Databases"),
        "the heading moved with its entries: {}",
        old.text
    );
    assert!(
        moved
            .text
            .starts_with("# Infra: Databases\n\n## Databases\n")
    );
    insta::assert_snapshot!("split_out_file", moved.text);
    insta::assert_snapshot!("file_split_from", old.text);
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
}

#[test]
fn a_topic_without_headings_is_split_by_groups_of_related_subjects_after_the_collapse() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No `##` heading; `db-primary` has two generations (collapsed first), and each
    // subject then has one live entry: the split groups them by their first word.
    seed(
        d,
        "# Infra\n\n- 2026-06-01 [db-primary]: Postgres 15 on db1\n- 2026-06-02 [dns-zone]: example.org at Route 53\n- 2026-06-03 [db-primary]: Postgres 16 on db1\n- 2026-06-04 [dns-ttl]: TTL 300 everywhere\n- 2026-06-05 [db-replica]: db2 follows db1\n- 2026-06-06 [db backups]: nightly to S3\n- 2026-06-07 [cdn]: Cloudflare in front\n",
    );
    let m = memory(d, 7);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let passes: Vec<&str> = report.files[0]
        .passes
        .iter()
        .map(|p| p.pass.as_str())
        .collect();
    assert_eq!(
        passes,
        ["collapse-superseded", "split-overgrown"],
        "{report:?}"
    );
    assert_eq!(report.created, ["memory-infra-dns.md"]);
    let index = m.index().unwrap();
    assert_eq!(index.lines[1].hook, "dns: dns-zone, dns-ttl");
    let dns = m.topic("memory-infra-dns.md").unwrap();
    assert_eq!(dns.entries.len(), 2);
    let old = m.topic("memory-infra.md").unwrap();
    assert!(old.line_count <= 7, "{}", old.text);
    assert_eq!(
        old.entries.len(),
        4,
        "db-primary (newest), db-replica, db backups, cdn"
    );
    // The superseded generation is archived, not lost.
    let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(archive.contains("Postgres 15 on db1"), "{archive}");
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
}

#[test]
fn a_split_keeps_a_heading_with_hand_prose_under_it_and_takes_crlf_sections_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The second section keeps its prose (and so its heading); the third goes whole.
    seed(
        d,
        "\u{feff}# Infra\r\n\r\n## Hosts\r\n- 2026-06-01: web1 runs nginx\r\n- 2026-06-02: web2 runs nginx\r\n\r\n## Databases\r\nOur databases, by hand.\r\n- 2026-06-03: Postgres 16 on db1\r\n- 2026-06-04: backups nightly\r\n\r\n## Caches\r\n- 2026-06-05: redis on cache1\r\n- 2026-06-06: memcached retired\r\n",
    );
    let m = memory(d, 9);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    assert_eq!(
        report.created,
        ["memory-infra-databases.md", "memory-infra-caches.md"]
    );
    let old = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
    assert_eq!(
        old,
        "\u{feff}# Infra\r\n\r\n## Hosts\r\n- 2026-06-01: web1 runs nginx\r\n- 2026-06-02: web2 runs nginx\r\n\r\n## Databases\r\nOur databases, by hand.\r\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra-caches.md")).unwrap(),
        "# Infra: Caches\r\n\r\n## Caches\r\n- 2026-06-05: redis on cache1\r\n- 2026-06-06: memcached retired\r\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra-databases.md")).unwrap(),
        "# Infra: Databases\r\n\r\n## Databases\r\n- 2026-06-03: Postgres 16 on db1\r\n- 2026-06-04: backups nightly\r\n"
    );
}

/// Splits every entry but the first into one new file (every entry would leave a husk:
/// that split is not made).
struct AllInOne;

impl Compactor for AllInOne {
    fn split(&self, _t: &Topic, e: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok(vec![SplitPart::new(
            "memory-everything.md",
            "Everything",
            "all of it",
            1..e.len(),
        )])
    }
}

#[test]
fn a_split_file_over_its_budget_gets_its_own_needs_judgment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let entries: String = (1..=6)
        .map(|i| format!("- 2026-06-0{i}: fact {i}\n"))
        .collect();
    seed(d, &entries);
    let m = memory(d, 4);
    let report = m
        .compact(Some("memory-infra.md"), &AllInOne, false)
        .unwrap();
    assert_eq!(report.created, ["memory-everything.md"]);
    let split = report
        .files
        .iter()
        .find(|f| f.file == "memory-everything.md")
        .expect("the split file is reported");
    // `# Everything`, a blank line, five entries: 7 lines against 4.
    assert_eq!((split.before.lines, split.after.lines), (0, 7));
    let n = split.needs_judgment.clone().expect("over its budget");
    assert_eq!(
        (n.file.as_str(), n.over_by_lines),
        ("memory-everything.md", 3)
    );
    let old = &report.files[0];
    assert_eq!(old.file, "memory-infra.md");
    assert!(old.needs_judgment.is_none());
}

#[test]
fn what_needs_judgment_is_reported_with_the_exact_overage_and_nothing_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "# Infra\n\n- note one\n- note two\n- note three\n- 2026-06-01: web1 runs nginx\n";
    seed(d, text);
    let m = memory(d, 3);
    let report = m
        .compact(Some("memory-infra.md"), &DefaultCompactor, false)
        .unwrap();
    let n = report.files[0].needs_judgment.clone().unwrap();
    assert_eq!(n.over_by_lines, 3);
    assert_eq!(n.unparsed_lines, [3, 4, 5]);
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra.md")).unwrap(),
        text,
        "never truncated"
    );
}

struct Hostile(u8);

impl Compactor for Hostile {
    fn dead(&self, _t: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        match self.0 {
            0 => Ok(vec![entries.len() + 3]),
            1 => Ok(vec![0, 0]),
            2 => Err("model unavailable".into()),
            _ => Ok(vec![]),
        }
    }
    fn summarize(&self, _t: &Topic, _e: &[Entry]) -> Result<Vec<Condensed>, CompactorError> {
        match self.0 {
            3 => Ok(vec![Condensed::new([0, 1], "key AKIAZ7QX3RT5WVB2KMNP")]),
            4 => Ok(vec![Condensed::new([0, 1], "  ")]),
            5 => Ok(vec![Condensed::new([0], "one entry is no story")]),
            6 => Ok(vec![
                Condensed::new([0, 1], "a"),
                Condensed::new([1, 2], "b"),
            ]),
            // A lesson opening a fence it never closes would hide every later entry.
            11 => Ok(vec![Condensed::new([0, 1], "the lesson\n```")]),
            _ => Ok(vec![]),
        }
    }
    fn split(&self, _t: &Topic, _e: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        match self.0 {
            7 => Ok(vec![SplitPart::new("../escape.md", "X", "x", [0])]),
            8 => Ok(vec![SplitPart::new("MEMORY.md", "X", "x", [0])]),
            9 => Ok(vec![SplitPart::new("memory-infra.md", "X", "x", [0])]),
            10 => Ok(vec![SplitPart::new("memory-part.md", "X", "", [0])]),
            // A catch-all topic, which `remember` refuses and `check` flags.
            12 => Ok(vec![SplitPart::new("memory-misc.md", "Misc", "x", [0])]),
            13 => Ok(vec![SplitPart::new("Stuff.md", "Stuff", "x", [0])]),
            _ => Ok(vec![]),
        }
    }
}

#[test]
fn a_hostile_compactor_changes_nothing() {
    for case in 0..=13 {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        seed(
            d,
            "- 2026-06-01: a\n- 2026-06-02: b\n- 2026-06-03: c\n- 2026-06-04: d\n",
        );
        let m = memory(d, 2);
        let before = tree(d);
        let err = m
            .compact(Some("memory-infra.md"), &Hostile(case), false)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Aborted, "case {case}: {err}");
        assert_eq!(tree(d), before, "case {case} wrote something");
    }
}

/// Routes every content line of the index to the first topic, and merges `b` into `a`.
struct IndexJudge;

impl Compactor for IndexJudge {
    fn route_content(
        &self,
        index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok((0..index.content.len())
            .map(|i| (i, "memory-a.md".to_string()))
            .collect())
    }
    fn merge_topics(
        &self,
        _index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(String, String)>, CompactorError> {
        Ok(vec![("memory-b.md".into(), "memory-a.md".into())])
    }
}

#[test]
fn an_index_over_budget_moves_content_and_merges_topics_with_a_compactor_and_reports_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\nStaging needs the VPN.\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-a.md"), "# A\n\n- 2026-06-01: a fact\n").unwrap();
    std::fs::write(
        d.join("memory-b.md"),
        "---\nname: B\n---\n# B\n\n- 2026-06-02: b fact\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().index_lines(2))
        .open()
        .unwrap();
    // The default judges nothing: the exact overage and the content lines are reported.
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let n = report.files[0].needs_judgment.clone().unwrap();
    assert_eq!(
        (n.file.as_str(), n.over_by_lines, n.unparsed_lines.clone()),
        ("MEMORY.md", 2, vec![3, 4])
    );
    // A compactor that routes the content and merges B into A brings it to one line.
    let report = m.compact(Some("MEMORY.md"), &IndexJudge, false).unwrap();
    let f = &report.files[0];
    assert_eq!(f.after.lines, 1, "{f:?}");
    assert!(f.needs_judgment.is_none());
    assert!(!d.join("memory-b.md").exists());
    let a = m.topic("memory-a.md").unwrap();
    // Routed lines are entries there, dated the day they moved.
    let routed: Vec<&str> = a.entries.iter().map(|e| e.text.as_str()).collect();
    assert!(
        routed.contains(&"The deploy hook runs first.")
            && routed.contains(&"Staging needs the VPN."),
        "{}",
        a.text
    );
    assert_eq!(
        a.entries.len(),
        4,
        "two of its own and merged, two routed: {}",
        a.text
    );
    let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(
        archive.contains("· index-content · MEMORY.md ·"),
        "{archive}"
    );
    assert!(
        archive.contains("· merge-topics · memory-b.md ·") && archive.contains("name: B"),
        "{archive}"
    );
    let found = m.check().unwrap();
    assert!(
        !found.iter().any(|v| v.kind.as_str() != "undated_entry"),
        "{found:?}"
    );
}

/// Records the budget use the compactor is shown.
struct Seen(std::cell::RefCell<Vec<(usize, usize)>>);

impl Compactor for Seen {
    fn dead(&self, t: &Topic, _e: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        self.0
            .borrow_mut()
            .push((t.budget.line_budget, t.budget.over_by_lines));
        Ok(Vec::new())
    }
}

#[test]
fn the_compactor_is_shown_the_handles_budget_not_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(d, INFRA_FOR_BUDGET);
    let seen = Seen(std::cell::RefCell::new(Vec::new()));
    memory(d, 2)
        .compact(Some("memory-infra.md"), &seen, true)
        .unwrap();
    assert_eq!(seen.0.borrow().as_slice(), [(2, 1)]);
}

const INFRA_FOR_BUDGET: &str = "- 2026-06-01: a\n- 2026-06-02: b\n- 2026-06-03: c\n";

#[test]
fn a_split_into_a_name_already_taken_takes_the_next_free_one_and_the_write_lands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts, databases\n- [Old](memory-infra-databases.md) — older split\n").unwrap();
    std::fs::write(
        d.join("memory-infra.md"),
        "# Infra\n## Hosts\n- 2026-06-01: web1\n## Databases\n- 2026-06-02: pg on db1\n",
    )
    .unwrap();
    std::fs::write(
        d.join("memory-infra-databases.md"),
        "- 2026-05-01: an older split\n",
    )
    .unwrap();
    let m = memory(d, 4);
    let out = m
        .remember(Fact::new("memory-infra.md", "backups run nightly").section("Databases"))
        .unwrap();
    let compaction = out.compaction.unwrap();
    assert_eq!(compaction.created, ["memory-infra-databases-2.md"]);
    assert_eq!(
        std::fs::read_to_string(d.join("memory-infra-databases.md")).unwrap(),
        "- 2026-05-01: an older split\n"
    );
    assert!(
        m.topic("memory-infra-databases-2.md")
            .unwrap()
            .text
            .contains("backups run nightly")
    );
    assert!(
        !m.check()
            .unwrap()
            .iter()
            .any(|v| matches!(v.kind.as_str(), "orphan_topic" | "dangling_index_line"))
    );
}

#[test]
fn after_a_triggered_split_the_outcome_names_where_the_entry_lives_and_every_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(
        d,
        "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n\n## Databases\n- 2026-06-02: db1 runs Postgres\n",
    );
    let m = memory(d, 7);
    // Under `## Databases`: the split takes it with its section.
    let out = m
        .remember(
            Fact::new("memory-infra.md", "backups run nightly")
                .subject("backups")
                .section("databases"),
        )
        .unwrap();
    assert_eq!(
        out.compaction.as_ref().unwrap().created,
        ["memory-infra-databases.md"]
    );
    assert_eq!(out.file, "memory-infra-databases.md");
    let live = m.topic("memory-infra-databases.md").unwrap();
    assert_eq!(
        out.entry, live.entries[1],
        "the entry as it reads there now"
    );
    assert_eq!(out.entry.line, 5);
    let files: Vec<&str> = out.budgets.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(
        files,
        ["memory-infra-databases.md", "memory-infra.md", "MEMORY.md"]
    );
    assert_eq!(out.budgets[0].lines, live.line_count);
    assert_eq!(
        out.budgets[1].lines,
        m.topic("memory-infra.md").unwrap().line_count
    );
    assert_eq!(out.budgets[2].lines, m.index().unwrap().line_count);

    // A write the split leaves where it was: its file first, the split file's budget too.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    seed(
        d,
        "- 2026-06-01: web1 runs nginx\n- 2026-06-02: web2 runs nginx\n",
    );
    let m = memory(d, 2);
    let out = m
        .remember_with(
            Fact::new("memory-infra.md", "db1 runs Postgres"),
            &SplitFirst,
        )
        .unwrap();
    assert_eq!(out.file, "memory-infra.md");
    assert_eq!(out.entry, m.topic("memory-infra.md").unwrap().entries[1]);
    let files: Vec<&str> = out.budgets.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(files, ["memory-infra.md", "memory-old.md", "MEMORY.md"]);
}

/// Splits the first entry into `memory-old.md`.
struct SplitFirst;

impl Compactor for SplitFirst {
    fn split(&self, _t: &Topic, _e: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok(vec![SplitPart::new(
            "memory-old.md",
            "Old",
            "the first fact",
            [0],
        )])
    }
}

/// Routes every content line of the index to `memory-a.md`; merges nothing.
struct RouteToA;

impl Compactor for RouteToA {
    fn route_content(
        &self,
        index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok((0..index.content.len())
            .map(|i| (i, "memory-a.md".to_string()))
            .collect())
    }
}

fn index_at_budget(d: &Path) -> StructuredMemory {
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — deploys\nThe deploy hook runs first.\nStaging needs the VPN.\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-a.md"), "# A\n\n- 2026-06-01: a fact\n").unwrap();
    StructuredMemory::builder(d)
        .budgets(Budgets::default().index_lines(3))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

#[test]
fn a_new_topic_past_the_index_budget_runs_the_index_pass_in_the_same_step() {
    // With a compactor that routes content: the content moves, the line lands, within.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = index_at_budget(d);
    let out = m
        .remember_with(
            Fact::new("memory-ü-ñotes.md", "ñ is written ñ").hook("Unicode notes"),
            &RouteToA,
        )
        .unwrap();
    let compaction = out.compaction.clone().expect("the index pass ran");
    let index_pass = compaction
        .files
        .iter()
        .find(|f| f.file == "MEMORY.md")
        .expect("reported");
    assert_eq!((index_pass.before.lines, index_pass.after.lines), (4, 2));
    assert!(index_pass.needs_judgment.is_none());
    let index = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [A](memory-a.md) — deploys\n- [Ü ñotes](memory-ü-ñotes.md) — Unicode notes\n"
    );
    assert!(m.topic("memory-a.md").unwrap().text.ends_with(
        "- 2026-07-10: The deploy hook runs first.\n- 2026-07-10: Staging needs the VPN.\n"
    ));
    let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(
        archive.contains(&format!(
            "## {} · index-content · MEMORY.md ·",
            compaction.id.clone().unwrap()
        )),
        "{archive}"
    );
    assert_eq!(out.archive_id, compaction.id);
    let files: Vec<&str> = out.budgets.iter().map(|b| b.file.as_str()).collect();
    assert_eq!(files, ["memory-ü-ñotes.md", "memory-a.md", "MEMORY.md"]);
    assert_eq!(out.budgets[2].lines, 2);

    // With the default (no judgment): the line lands, the overage is reported exactly.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = index_at_budget(d);
    let out = m
        .remember(Fact::new("memory-b.md", "b fact").hook("b things"))
        .unwrap();
    let n = out
        .compaction
        .expect("the index pass ran")
        .files
        .iter()
        .find_map(|f| f.needs_judgment.clone())
        .expect("needs judgment");
    assert_eq!(
        (n.file.as_str(), n.over_by_lines, n.unparsed_lines),
        ("MEMORY.md", 1, vec![2, 3])
    );
    assert_eq!(m.index().unwrap().lines.len(), 2);
    assert!(
        out.warnings.iter().any(|w| w.contains("MEMORY.md")),
        "{:?}",
        out.warnings
    );

    // A write that adds no index line does not run it.
    let out = m
        .remember(Fact::new("memory-b.md", "another b fact"))
        .unwrap();
    assert!(out.compaction.is_none());
}

#[test]
fn restore_brings_back_what_was_removed_says_where_moved_lines_live_and_reports_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\n",
    )
    .unwrap();
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-06-02 [db]: Postgres 16\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-b.md"), "# B\n\n- 2026-06-03: b fact\n").unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().index_lines(2).topic_lines(3))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let report = m.compact(None, &IndexJudge, false).unwrap();
    let id = report.id.clone().unwrap();
    let restored = m.restore(&id).unwrap();
    // The superseded generation comes back…
    assert_eq!(restored.restored.len(), 1);
    assert_eq!(restored.restored[0].file, "memory-a.md");
    assert_eq!(
        restored.restored[0].lines,
        ["- 2026-06-01 [db]: Postgres 15"]
    );
    // …the moved content line and the merged topic do not: they are live in memory-a.md.
    let moved: Vec<(&str, ArchivePass, Vec<String>)> = restored
        .not_restored
        .iter()
        .map(|n| (n.file.as_str(), n.pass, n.live_in.clone()))
        .collect();
    assert_eq!(
        moved,
        [
            (
                "MEMORY.md",
                ArchivePass::IndexContent,
                vec!["memory-a.md".to_string()]
            ),
            (
                "memory-b.md",
                ArchivePass::MergeTopics,
                vec!["memory-a.md".to_string()]
            ),
        ]
    );
    assert!(
        restored.not_restored[0]
            .reason
            .contains("still live in memory-a.md"),
        "{}",
        restored.not_restored[0].reason
    );
    let a = m.topic("memory-a.md").unwrap();
    assert_eq!(a.text.matches("The deploy hook runs first.").count(), 1);
    assert_eq!(a.text.matches("b fact").count(), 1);
    // The budgets of what it wrote.
    assert_eq!(restored.budgets.len(), 1);
    assert_eq!(restored.budgets[0].file, "memory-a.md");
    assert_eq!(restored.budgets[0].lines, a.line_count);
    assert_eq!(restored.budgets[0].line_budget, 3);

    // A moved line edited away since: the archive is its only copy, and it says so.
    std::fs::write(
        d.join("memory-a.md"),
        "# A\n\n- 2026-06-02 [db]: Postgres 16\n",
    )
    .unwrap();
    let again = m.restore(&id).unwrap();
    let n = &again.not_restored[0];
    assert!(n.live_in.is_empty());
    assert!(
        n.reason.contains("no linked topic file holds them"),
        "{}",
        n.reason
    );
}

/// Merges every topic the index links into the first one (found by the proptest: a write
/// creating a topic past the index budget, merged away by the same step).
struct MergeIntoFirst;

impl Compactor for MergeIntoFirst {
    fn merge_topics(
        &self,
        index: &memory_core::structured_memory::MemoryIndex,
    ) -> Result<Vec<(String, String)>, CompactorError> {
        let first = index.lines[0].file.clone();
        Ok(index.lines[1..]
            .iter()
            .map(|l| (l.file.clone(), first.clone()))
            .collect())
    }
}

#[test]
fn a_new_topic_the_index_pass_merges_away_in_the_same_write_lands_in_the_other_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = index_at_budget(d);
    let out = m
        .remember_with(
            Fact::new("memory-b.md", "b fact")
                .hook("b things")
                .date("2026-07-01"),
            &MergeIntoFirst,
        )
        .unwrap();
    assert!(
        !d.join("memory-b.md").exists(),
        "merged away, never left behind"
    );
    let index = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
    assert!(!index.contains("memory-b.md"), "{index}");
    let a = m.topic("memory-a.md").unwrap();
    assert!(a.entries.iter().any(|e| e.text == "b fact"), "{}", a.text);
    assert_eq!(out.file, "memory-a.md");
    assert!(m.check().unwrap().iter().all(|v| !matches!(
        v.kind,
        memory_core::structured_memory::ViolationKind::OrphanTopic
            | memory_core::structured_memory::ViolationKind::DanglingIndexLine
    )));
}

/// Merging topics is a write into the topic merged into, and merge on write holds: of
/// the generations of one subject the two topics held, only the newest-dated stays live,
/// whichever file it came from; the others are in the archive (the merged file whole,
/// and the target's own older generation in a `merge` section), the dry run says so, and
/// `check` finds no contradicting generations.
#[test]
fn merging_topics_leaves_one_live_generation_per_subject() {
    for (a_date, b_date, live) in [
        ("2026-06-01", "2026-06-05", "from b"),
        ("2026-06-05", "2026-06-01", "from a"),
        ("2026-06-03", "2026-06-03", "from b"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("MEMORY.md"),
            "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\n",
        )
        .unwrap();
        std::fs::write(
            d.join("memory-a.md"),
            format!("# A\n\n- {a_date} [k]: from a\n- 2026-06-02 [other]: kept a\n"),
        )
        .unwrap();
        std::fs::write(
            d.join("memory-b.md"),
            format!("# B\n\n- {b_date} [K]: from b\n- 2026-06-04: kept b\n"),
        )
        .unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .open()
            .unwrap();
        let dry = m.compact(Some("MEMORY.md"), &IndexJudge, true).unwrap();
        let report = m.compact(Some("MEMORY.md"), &IndexJudge, false).unwrap();
        assert_eq!(dry.files[0].passes, report.files[0].passes);
        let a = m.topic("memory-a.md").unwrap();
        let k: Vec<&str> = a
            .entries
            .iter()
            .filter(|e| {
                e.subject
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case("k"))
            })
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(k, [live], "{}", a.text);
        assert!(
            a.text.contains("kept a") && a.text.contains("kept b"),
            "{}",
            a.text
        );
        let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
        let stale = if live == "from a" { "from b" } else { "from a" };
        assert!(archive.contains(stale), "{archive}");
        let merged_out: Vec<_> = report.files[0]
            .passes
            .iter()
            .filter(|p| p.pass.as_str() == "merge")
            .flat_map(|p| p.entries.iter().map(|e| e.text.clone()))
            .collect();
        assert_eq!(merged_out.len(), 1, "{:?}", report.files[0].passes);
        assert_ne!(merged_out[0], live);
        let found = m.check().unwrap();
        assert!(
            !found
                .iter()
                .any(|v| v.kind.as_str() == "contradicting_generations"),
            "{found:?}"
        );
    }
}
