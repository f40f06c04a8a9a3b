//! `memcore topics` human output says what happened: a fact older than the live entry
//! about its subject is reported archived (not "Remembered"), and `restore` lists what it
//! put back with each written file's budget.

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

#[test]
fn an_older_fact_is_reported_archived_and_restore_reports_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let newer = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 16",
            "--subject",
            "db",
            "--date",
            "2026-07-01",
            "--hook",
            "databases",
        ],
    )
    .ok();
    assert!(
        newer.starts_with("Remembered in memory-db.md: 2026-07-01 (line 3)"),
        "{newer}"
    );
    let older = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 15",
            "--subject",
            "db",
            "--date",
            "2026-06-01",
        ],
    )
    .ok();
    assert!(
        older.starts_with(
            "Archived as older: memory-db.md keeps the newer entry about its subject, 2026-07-01 (line 3)"
        ),
        "{older}"
    );
    assert!(!older.contains("Remembered"), "{older}");
    let json = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-db.md",
        "--text",
        "Postgres 14",
        "--subject",
        "db",
        "--date",
        "2026-05-01",
    ]))
    .json();
    let id = json["archive_id"].as_str().unwrap().to_string();
    let restored = topics(d, &["restore", &id]).ok();
    assert!(restored.contains("memory-db.md: 1 line back"), "{restored}");
    assert!(
        restored.contains("  memory-db.md: 4 of 150 lines (146 left)"),
        "{restored}"
    );
}

/// A replaced entry of several lines is one line of the report, its further lines
/// indented under it: no line of the report starts at column 0 but the first.
#[test]
fn a_replaced_multi_line_entry_is_reported_indented() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [Db](memory-db.md) — databases\n",
    )
    .unwrap();
    std::fs::write(
        d.join("memory/memory-db.md"),
        "# Db\n\n- 2026-06-01 [db]: Postgres 15\n  on db1\n  with replicas\n",
    )
    .unwrap();
    let out = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 16",
            "--subject",
            "db",
            "--date",
            "2026-07-01",
        ],
    )
    .ok();
    let report: Vec<&str> = out.lines().collect();
    assert!(report.iter().skip(1).all(|l| l.starts_with("  ")), "{out}");
    let at = report
        .iter()
        .position(|l| l.starts_with("  replaced (archived): 2026-06-01: Postgres 15"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(report[at + 1].starts_with("      "), "{out}");
}
