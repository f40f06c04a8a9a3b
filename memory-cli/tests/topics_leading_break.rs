//! `memcore topics …` on topic files that start with a `---` thematic break, not
//! frontmatter: their entries are shown, merged on write and checked, and a `---` never
//! closed with no `key:` line after it is body (every command reads it; none exits 5).

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

#[test]
fn a_leading_thematic_break_is_body_on_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = d.join("memory");
    std::fs::create_dir(&m).unwrap();
    std::fs::write(
        m.join("MEMORY.md"),
        "- [K](memory-k.md) — k facts\n- [T](memory-t.md) — titled\n",
    )
    .unwrap();
    let k = "---\r\n\r\n- 2026-11-01 [k]: first entry\r\n\r\n---\r\n\r\n- 2026-11-02 [j]: second entry\r\n";
    std::fs::write(m.join("memory-k.md"), k).unwrap();
    std::fs::write(m.join("memory-t.md"), "---\n# Title\n").unwrap();

    let shown = topics(d, &["--json", "show", "memory-k.md"]).json();
    let lines: Vec<u64> = shown["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 7]);
    assert!(shown["frontmatter_not_yaml"].is_null(), "{shown}");
    assert!(topics(d, &["show", "memory-t.md"]).ok().contains("# Title"));
    assert_eq!(topics(d, &["check"]).ok().trim(), "No violations.");
    topics(d, &["index"]).ok();
    topics(d, &["recall", "title"]).ok();

    let out = topics(
        d,
        &[
            "--json",
            "remember",
            "--topic",
            "memory-k.md",
            "--text",
            "newer",
            "--subject",
            "k",
            "--date",
            "2026-11-05",
        ],
    )
    .json();
    assert_eq!(out["replaced"][0]["text"], "first entry", "{out}");
    assert_eq!(
        std::fs::read_to_string(m.join("memory-k.md")).unwrap(),
        "---\r\n\r\n- 2026-11-05 [k]: newer\r\n\r\n---\r\n\r\n- 2026-11-02 [j]: second entry\r\n"
    );
    topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-t.md",
            "--text",
            "a fact",
            "--subject",
            "t",
        ],
    )
    .ok();
    let t = std::fs::read_to_string(m.join("memory-t.md")).unwrap();
    assert!(t.starts_with("---\n# Title\n"), "{t:?}");
}

#[test]
fn an_unclosed_frontmatter_with_a_key_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = d.join("memory");
    std::fs::create_dir(&m).unwrap();
    std::fs::write(m.join("MEMORY.md"), "- [T](memory-t.md) — a topic\n").unwrap();
    std::fs::write(
        m.join("memory-t.md"),
        "---\nname: T\n- 2026-06-01: a fact\n",
    )
    .unwrap();
    let err = topics(d, &["show", "memory-t.md"]).fails(5);
    assert!(err.contains("memory-t.md:1"), "{err}");
}
