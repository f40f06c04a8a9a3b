//! `memcore topics remember --topic NAME` with names that are one file elsewhere or cannot
//! be read as written: canonical twins go into one file; invisible characters, Windows
//! device names and a name over 255 bytes exit 2 (invalid input) naming why, never 1.

mod common;

use std::path::Path;

use common::{command, run};

fn remember(dir: &Path, topic: &str, json: bool) -> common::Run {
    let mut args = vec!["--root", "memory"];
    if json {
        args.push("--json");
    }
    args.extend([
        "topics", "remember", "--topic", topic, "--text", "a fact", "--hook", "h",
    ]);
    run(command(dir).args(&args))
}

#[test]
fn canonical_twins_are_one_file_and_unportable_names_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(remember(d, "memory-caf\u{e9}.md", false).code, 0);
    let second = remember(d, "memory-cafe\u{301}.md", true).json();
    assert_eq!(second["file"], "memory-caf\u{e9}.md", "{second}");
    let mut files: Vec<String> = std::fs::read_dir(d.join("memory"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["MEMORY.md", "memory-archive.md", "memory-caf\u{e9}.md"]
    );

    let long = format!("{}.md", "x".repeat(297));
    for (name, words) in [
        (long.as_str(), "at most 255 bytes"),
        ("memory-caf\u{e9}\u{200b}.md", "U+200B (ZERO WIDTH SPACE)"),
        ("CON.md", "Windows device name"),
        ("lpt1.notes.md", "Windows device name"),
        ("memory-a|b.md", "Windows does not allow"),
        ("memory-\u{202e}x.md", "U+202E"),
    ] {
        let err = remember(d, name, false).fails(2);
        assert!(err.contains(words), "{name:?}: {err}");
        let json = remember(d, name, true).fails_json(2);
        assert!(
            json["message"].as_str().unwrap().contains(words),
            "{name:?}: {json}"
        );
    }
    let index = std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    assert_eq!(
        index.lines().filter(|l| l.starts_with("- [")).count(),
        1,
        "{index}"
    );
}
