//! The default index pass on real files (the seed: "MEMORY.md over budget: index lines
//! only; move any content into topic files; merge near-duplicate topics"): near-duplicate
//! topics merged, the later into the earlier; a content line moved to the topic whose
//! title and hook clearly match it; an ambiguous line, or one no topic matches, left with
//! the index reported as needing judgment by its exact overage; everything moved archived
//! first.

use std::fs;
use std::path::Path;

use memory_core::structured_memory::{
    ArchivePass, Budgets, DefaultCompactor, StructuredMemory, parse_archive,
};

fn memory(dir: &Path, index_lines: usize) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .budgets(Budgets::default().index_lines(index_lines))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap()
}

/// Deploy and Infra topics, a near-duplicate of Infra, a Databases topic and a catch-all
/// one; content lines for Deploy (clear), for Databases (clear), for Infra or
/// Databases (a tie), for nothing, and a two-line list item naming deploys.
fn directory() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("MEMORY.md"),
        "# Memory\n\n\
         - [Deploy](memory-deploy.md) — pipeline order, release hooks\n\
         - [Infra](memory-infra.md) — hosts, backups\n\
         - [infra](memory-infra-2.md) —  Hosts, backups\n\
         - [Databases](memory-db.md) — postgres, replicas\n\
         - [Misc](memory-m.md) — deploy stuff\n\
         \n\
         The deploy hook must run before the version bump\n\
         Backups of postgres run nightly\n\
         Remember to water the plants\n\
         \n\
         - Postgres replicas lag under load\n\
         - deploy freeze on Fridays\n  \
         and deploys need a ticket\n",
    )
    .unwrap();
    fs::write(
        d.join("memory-deploy.md"),
        "# Deploy\n\n- 2026-07-01: uses GitHub Actions\n",
    )
    .unwrap();
    fs::write(
        d.join("memory-infra.md"),
        "# Infra\n\n- 2026-07-01 [web]: web1 runs nginx\n",
    )
    .unwrap();
    fs::write(
        d.join("memory-infra-2.md"),
        "# Infra\n\n- 2026-07-02 [dns]: dns is at the registrar\n",
    )
    .unwrap();
    fs::write(
        d.join("memory-db.md"),
        "# Databases\n\n- 2026-07-03: db1 runs Postgres 16\n",
    )
    .unwrap();
    fs::write(d.join("memory-m.md"), "- 2026-07-04: a thing\n").unwrap();
    dir
}

#[test]
fn clear_lines_move_near_duplicates_merge_and_the_rest_needs_judgment_by_its_exact_overage() {
    let dir = directory();
    let d = dir.path();
    // 15 lines; 8 allowed.
    let m = memory(d, 8);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let index_report = report.files.iter().find(|f| f.file == "MEMORY.md").unwrap();
    assert_eq!(index_report.before.lines, 15);

    // The deploy line to Deploy, the replicas item to Databases, as dated entries.
    let deploy = m.topic("memory-deploy.md").unwrap();
    assert_eq!(
        deploy.entries.last().unwrap().text,
        "The deploy hook must run before the version bump"
    );
    assert_eq!(
        deploy.entries.last().unwrap().date.to_string(),
        "2026-07-10"
    );
    let db = m.topic("memory-db.md").unwrap();
    assert_eq!(
        db.entries.last().unwrap().text,
        "Postgres replicas lag under load"
    );
    // The near-duplicate merged into the first Infra, its file gone.
    assert!(!d.join("memory-infra-2.md").exists());
    let infra = m.topic("memory-infra.md").unwrap();
    let texts: Vec<&str> = infra.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["web1 runs nginx", "dns is at the registrar"]);

    // Left: the tie (backups: Infra's hook; postgres: Databases'), the plants, and the
    // two-line item (never cut in two); the catch-all topic took nothing.
    let index = read(d, "MEMORY.md");
    for stays in [
        "Backups of postgres run nightly",
        "Remember to water the plants",
        "- deploy freeze on Fridays",
        "  and deploys need a ticket",
    ] {
        assert!(
            index.lines().any(|l| l == stays),
            "{stays:?} left:\n{index}"
        );
    }
    assert_eq!(read(d, "memory-m.md"), "- 2026-07-04: a thing\n");
    assert!(!index.contains("memory-infra-2.md"), "{index}");
    // 15 - 2 routed - 1 merged = 12 lines: 4 over, said exactly.
    assert_eq!(index.lines().count(), 12, "{index}");
    assert_eq!(index_report.after.lines, 12);
    let n = index_report.needs_judgment.as_ref().unwrap();
    assert_eq!((n.over_by_lines, n.over_by_bytes), (4, 0));
    // Numbered as before the pass.
    assert_eq!(n.unparsed_lines, [10, 11, 14, 15]);
    assert!(
        n.message
            .contains("4 content lines no topic clearly matches (lines 10, 11, 14, 15)"),
        "{}",
        n.message
    );

    // Archived first: the routed lines as they were, and the merged file whole.
    let archive = read(d, "memory-archive.md");
    let sections = parse_archive(&archive);
    let passes: Vec<ArchivePass> = sections.iter().map(|s| s.pass).collect();
    assert!(passes.contains(&ArchivePass::IndexContent), "{passes:?}");
    assert!(passes.contains(&ArchivePass::MergeTopics), "{passes:?}");
    for archived in [
        "The deploy hook must run before the version bump",
        "- Postgres replicas lag under load",
        "- 2026-07-02 [dns]: dns is at the registrar",
    ] {
        assert!(archive.contains(archived), "{archived:?} not in\n{archive}");
    }
}

#[test]
fn the_pass_meets_the_budget_when_every_content_line_has_a_clear_home() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("MEMORY.md"),
        "- [Deploy](memory-deploy.md) — pipeline order\n\
         - [Deploy](memory-deploy-2.md) — pipeline order\n\
         - [User](USER.md) — role, preferences\n\
         the deploy hook runs first\n\
         - the user prefers terse answers\n",
    )
    .unwrap();
    fs::write(d.join("memory-deploy.md"), "- 2026-07-01: a\n").unwrap();
    fs::write(d.join("memory-deploy-2.md"), "- 2026-07-02: b\n").unwrap();
    fs::write(d.join("USER.md"), "- 2026-07-03: c\n").unwrap();
    let m = memory(d, 2);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let index_report = report.files.iter().find(|f| f.file == "MEMORY.md").unwrap();
    assert!(index_report.needs_judgment.is_none(), "{index_report:?}");
    assert_eq!(
        read(d, "MEMORY.md"),
        "- [Deploy](memory-deploy.md) — pipeline order\n- [User](USER.md) — role, preferences\n"
    );
    assert_eq!(
        read(d, "memory-deploy.md"),
        "- 2026-07-01: a\n\n- 2026-07-10: the deploy hook runs first\n\n## Deploy\n\n- 2026-07-02: b\n"
    );
    assert_eq!(
        read(d, "USER.md"),
        "- 2026-07-03: c\n\n- 2026-07-10: the user prefers terse answers\n"
    );
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
}

#[test]
fn a_dangling_or_damaged_topic_is_neither_merged_nor_routed_into_and_the_pass_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("MEMORY.md"),
        "- [Hosts](memory-hosts.md) — web servers\n\
         - [Hosts](memory-gone.md) — web servers\n\
         - [Deploy](memory-deploy.md) — pipeline order\n\
         - [Broken](memory-broken.md) — broken comment\n\
         the deploy hook runs first\n\
         the broken comment is someone's\n",
    )
    .unwrap();
    fs::write(d.join("memory-hosts.md"), "- 2026-07-01: web1\n").unwrap();
    fs::write(d.join("memory-deploy.md"), "- 2026-07-01: a\n").unwrap();
    fs::write(
        d.join("memory-broken.md"),
        "<!-- never closed\n- 2026-07-01: a\n",
    )
    .unwrap();
    let m = memory(d, 4);
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    let index_report = report.files.iter().find(|f| f.file == "MEMORY.md").unwrap();
    let index = read(d, "MEMORY.md");
    assert!(index.contains("memory-gone.md"), "{index}");
    assert!(!index.contains("the deploy hook runs first"), "{index}");
    assert!(index.contains("the broken comment is someone's"), "{index}");
    assert_eq!(
        read(d, "memory-broken.md"),
        "<!-- never closed\n- 2026-07-01: a\n"
    );
    let n = index_report.needs_judgment.as_ref().unwrap();
    assert_eq!(n.over_by_lines, 1);
    assert!(
        n.message
            .contains("1 content line no topic clearly matches (line 6)"),
        "{}",
        n.message
    );
}
