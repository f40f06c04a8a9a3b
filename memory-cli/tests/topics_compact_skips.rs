//! `memcore topics compact` with one topic that does not read: the others are compacted,
//! the report names the unreadable file and line (text and `--json`), and the exit code is
//! that file's (5, malformed); `show` and `compact FILE` take a name in another case as
//! `remember` does.

mod common;

use std::path::Path;

use common::{command, run};

/// `memcore --root memory [--json] topics --topic-lines 2 ARGS` (args after `topics`).
fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory"];
    let args = match args.first() {
        Some(&"--json") => {
            all.push("--json");
            &args[1..]
        }
        _ => args,
    };
    all.extend(["topics", "--topic-lines", "2"]);
    all.extend_from_slice(&args[1..]);
    run(command(dir).args(&all))
}

fn setup(d: &Path) {
    let m = d.join("memory");
    std::fs::create_dir(&m).unwrap();
    let stale: String = (1..=4)
        .map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n"))
        .collect();
    std::fs::write(m.join("memory-a.md"), &stale).unwrap();
    std::fs::write(m.join("memory-bad.md"), "---\nname: b\n- 2026-07-01: x\n").unwrap();
    std::fs::write(
        m.join("MEMORY.md"),
        "- [Bad](memory-bad.md) — bad\n- [A](memory-a.md) — a\n",
    )
    .unwrap();
}

#[test]
fn compact_goes_on_past_an_unreadable_topic_and_exits_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let text = topics(d, &["topics", "compact", "--dry-run"]);
    assert_eq!(text.code, 5, "{text:?}");
    assert!(
        text.stdout
            .contains("memory-bad.md:1: not compacted (malformed)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("memory-a.md: 4 -> 1 line\n"),
        "{}",
        text.stdout
    );
    let json = topics(d, &["--json", "topics", "compact"]);
    assert_eq!(json.code, 5, "{json:?}");
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["not_compacted"][0]["file"], "memory-bad.md");
    assert_eq!(report["not_compacted"][0]["line"], 1);
    assert_eq!(report["not_compacted"][0]["kind"], "malformed");
    assert_eq!(report["files"][0]["file"], "memory-a.md");
    let a = std::fs::read_to_string(d.join("memory/memory-a.md")).unwrap();
    assert_eq!(a, "- 2026-07-04 [db]: Postgres 14\n");
    // Once repaired, compact exits 0.
    std::fs::write(d.join("memory/memory-bad.md"), "- 2026-07-01: x\n").unwrap();
    assert_eq!(topics(d, &["topics", "compact"]).code, 0);
}

#[test]
fn show_and_compact_file_take_another_case() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let parse = |run: common::Run| -> serde_json::Value {
        assert_eq!(run.code, 0, "{run:?}");
        serde_json::from_str(&run.stdout).unwrap()
    };
    let shown = parse(topics(d, &["--json", "topics", "show", "MEMORY-A.md"]));
    assert_eq!(shown["file"], "memory-a.md");
    let compacted = parse(topics(d, &["--json", "topics", "compact", "Memory-A.md"]));
    assert_eq!(compacted["files"][0]["file"], "memory-a.md");
}
