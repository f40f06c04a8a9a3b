//! `memcore topics --index-lines N compact` brings an over-budget `MEMORY.md` back under
//! its budget by itself: content lines a topic's title and hook clearly match move there,
//! near-duplicate topics merge, both archived first; what has no clear home stays, and the
//! report says the index needs judgment by its exact overage.

mod common;

use std::fs;
use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend(args);
    run(command(dir).args(&all))
}

fn fixture(d: &Path, extra: &str) {
    let m = d.join("memory");
    fs::create_dir(&m).unwrap();
    fs::write(
        m.join("MEMORY.md"),
        format!(
            "# Memory\n\n\
             - [Deploy](memory-deploy.md) — pipeline order, release hooks\n\
             - [Infra](memory-infra.md) — hosts, databases, backups\n\
             - [Infra](memory-infra-2.md) — hosts, databases, backups\n\
             - [User](USER.md) — role, preferences\n\
             \n\
             The deploy hook must run before the version bump\n\
             - the user prefers terse answers\n\
             {extra}"
        ),
    )
    .unwrap();
    fs::write(
        m.join("memory-deploy.md"),
        "# Deploy\n\n- 2026-07-01: uses GitHub Actions\n",
    )
    .unwrap();
    fs::write(
        m.join("memory-infra.md"),
        "# Infra\n\n- 2026-07-01 [web]: web1 runs nginx\n",
    )
    .unwrap();
    fs::write(
        m.join("memory-infra-2.md"),
        "# Infra\n\n- 2026-07-02 [db]: db1 runs Postgres 16\n",
    )
    .unwrap();
    fs::write(m.join("USER.md"), "# User\n\n- 2026-07-01: a developer\n").unwrap();
}

#[test]
fn compact_moves_clear_lines_and_merges_near_duplicates_until_the_index_is_under_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture(d, "");
    // 9 lines, 6 allowed: two lines routed and one topic merged leave 6.
    let dry = topics(d, &["--index-lines", "6", "compact", "--dry-run"]).ok();
    assert!(dry.contains("MEMORY.md: 9 -> 6 lines"), "{dry}");
    assert!(!dry.contains("needs judgment"), "{dry}");
    let out = topics(d, &["--index-lines", "6", "compact"]).ok();
    assert!(out.contains("MEMORY.md: 9 -> 6 lines"), "{out}");
    assert!(
        out.contains("index-content: MEMORY.md:8 -> memory-deploy.md:"),
        "{out}"
    );
    assert!(
        out.contains("index-content: MEMORY.md:9 -> USER.md:"),
        "{out}"
    );
    assert!(
        out.contains("merge-topics: memory-infra-2.md:3 -> memory-infra.md:"),
        "{out}"
    );
    assert!(!out.contains("needs judgment"), "{out}");
    let index = fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "# Memory\n\n- [Deploy](memory-deploy.md) — pipeline order, release hooks\n- [Infra](memory-infra.md) — hosts, databases, backups\n- [User](USER.md) — role, preferences\n\n"
    );
    assert!(!d.join("memory/memory-infra-2.md").exists());
    let infra = fs::read_to_string(d.join("memory/memory-infra.md")).unwrap();
    assert!(
        infra.contains("- 2026-07-02 [db]: db1 runs Postgres 16"),
        "{infra}"
    );
    let archive = fs::read_to_string(d.join("memory/memory-archive.md")).unwrap();
    assert!(
        archive.contains("The deploy hook must run before the version bump"),
        "{archive}"
    );
    // Under budget, and nothing for `check` to report.
    topics(d, &["--index-lines", "6", "check"]).ok();
}

#[test]
fn a_line_with_no_clear_home_stays_and_the_overage_is_said_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The plants match no topic; the deploy steps match Deploy and User as well (a
    // title word each).
    fixture(
        d,
        "\nRemember to water the plants\nDeploy steps the user asked for\n",
    );
    let out = topics(d, &["--index-lines", "6", "compact"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("MEMORY.md: 12 -> 9 lines"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "needs judgment: 3 lines over; MEMORY.md is still over its budget: 2 content lines no topic clearly matches (lines 11, 12)"
        ),
        "{}",
        out.stdout
    );
    let index = fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    assert!(
        index.ends_with("\nRemember to water the plants\nDeploy steps the user asked for\n"),
        "{index}"
    );
    let json = topics(d, &["--index-lines", "6", "--json", "compact", "--dry-run"]);
    assert_eq!(json.code, 0, "{json:?}");
    let value: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let index_file = value["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "MEMORY.md")
        .unwrap();
    assert_eq!(index_file["needs_judgment"]["over_by_lines"], 3, "{value}");
}
