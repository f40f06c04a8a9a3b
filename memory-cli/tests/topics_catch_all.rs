//! `memcore topics remember` and `check` with catch-all ("misc") topics: a name, title or
//! hook made only of catch-all and filler words exits 2 and writes nothing; an index line
//! with one is reported by `check` (`misc_topic`, exit 4) at that line; a name or hook
//! with a word that says what it holds is written.

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend(args);
    run(command(dir).args(&all))
}

#[test]
fn catch_all_names_titles_and_hooks_exit_2_and_check_reports_one_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let remember = |topic: &str, extra: &[&str]| {
        let mut args = vec!["remember", "--topic", topic, "--text", "a fact"];
        args.extend(extra);
        topics(d, &args)
    };
    remember("memory-infra.md", &["--hook", "hosts, databases"]).ok();
    let index = std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    for (topic, extra) in [
        ("memory-misc-2.md", &["--hook", "build flags"][..]),
        ("memory-miscellany.md", &["--hook", "build flags"]),
        ("memory-uncategorized.md", &["--hook", "build flags"]),
        ("memory-unsorted.md", &["--hook", "build flags"]),
        ("memory-z.md", &["--title", "Misc", "--hook", "misc"]),
        ("memory-z.md", &["--hook", "miscellaneous stuff"]),
        ("memory-infra.md", &["--hook", "other notes"]),
        ("memory-infra.md", &["--title", "Misc"]),
    ] {
        let stderr = remember(topic, extra).fails(2);
        assert!(stderr.contains("catch-all"), "{topic} {extra:?}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap(),
            index,
            "{topic} {extra:?} wrote"
        );
        assert!(!d.join("memory").join(topic).exists() || topic == "memory-infra.md");
    }
    // A real word: written.
    remember("memory-general-ledger.md", &["--hook", "other teams' APIs"]).ok();
    topics(d, &["check"]).ok();

    // An index line a hand wrote with a catch-all title and hook.
    let mut index = std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    index.push_str("- [Misc](memory-x.md) — miscellaneous stuff\n");
    let line = index.lines().count();
    std::fs::write(d.join("memory/MEMORY.md"), &index).unwrap();
    std::fs::write(d.join("memory/memory-x.md"), "- 2026-07-01: a fact\n").unwrap();
    let out = topics(d, &["check"]);
    assert_eq!(out.code, 4, "{}", out.stdout);
    assert!(
        out.stdout.starts_with(&format!(
            "MEMORY.md:{line}: misc_topic: memory-x.md has a catch-all title"
        )),
        "{}",
        out.stdout
    );
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
}
