//! `memcore topics` and a comment opened on a hand-written line of `MEMORY.md` and never
//! closed (Obsidian then hides every later line): `check` reports `unclosed_comment` at
//! its line and exits 4; `index` (the SessionStart hook) still prints the index whole,
//! warns on stderr naming the line and exits 0. And a topic file's heading of relative
//! time is `relative_date` at its line.

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

/// `memory/` with `MEMORY.md` as `index` and a sound topic file for `a.md` and `b.md`.
fn directory(index: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let memory = dir.path().join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("MEMORY.md"), index).unwrap();
    for file in ["a.md", "b.md"] {
        std::fs::write(memory.join(file), "- 2026-07-01: a fact\n").unwrap();
    }
    dir
}

#[test]
fn check_reports_an_unclosed_comment_and_the_hook_prints_the_index_and_warns() {
    for (index, line, opener) in [
        (
            "- [A](a.md) — a\n- aside %% private\n- [B](b.md) — b\n",
            2,
            "%%",
        ),
        ("- [A](a.md) — a %% draft\n- [B](b.md) — b\n", 1, "%%"),
        (
            "- [A](a.md) — a\n- [B](b.md) — b\nnotes %% open\nmore\n",
            3,
            "%%",
        ),
        ("- [A](a.md) — a\n- [B](b.md) — b\n<!-- todo\n", 3, "<!--"),
    ] {
        let dir = directory(index);
        let d = dir.path();
        let out = topics(d, &["check"]);
        assert_eq!(out.code, 4, "{out:?}");
        let expected = format!("MEMORY.md:{line}: unclosed_comment: `{opener}` opens a comment");
        assert!(out.stdout.contains(&expected), "{index:?}: {out:?}");
        assert!(out.stdout.contains("Obsidian hides"), "{out:?}");

        let value = topics(d, &["--json", "check"]);
        assert_eq!(value.code, 4, "{value:?}");
        let found: serde_json::Value = serde_json::from_str(value.stdout.trim()).unwrap();
        let kinds: Vec<(&str, u64)> = found["violations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["kind"] == "unclosed_comment")
            .map(|v| (v["file"].as_str().unwrap(), v["line"].as_u64().unwrap()))
            .collect();
        assert_eq!(kinds, [("MEMORY.md", line as u64)], "{found:#}");

        let out = topics(d, &["index"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(out.stdout, index, "the whole index, byte for byte");
        assert!(out.stderr.starts_with("warning: "), "{out:?}");
        assert!(
            out.stderr
                .contains(&format!("MEMORY.md:{line}: `{opener}` opens a comment")),
            "{out:?}"
        );
        assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
    }
    // A comment closed on a later line is only structure.
    let dir = directory("%% a note\nover two lines %%\n- [A](a.md) — a\n- [B](b.md) — b %% x %%\n");
    assert_eq!(topics(dir.path(), &["check"]).ok(), "No violations.\n");
    let out = topics(dir.path(), &["index"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
}

#[test]
fn check_reports_a_heading_of_relative_time_at_its_line() {
    let dir = directory("- [A](a.md) — a\n- [B](b.md) — b\n");
    std::fs::write(
        dir.path().join("memory/a.md"),
        "# A\n\n## Last week ##\n- 2026-07-01: a fact\n```\n## Yesterday\n```\n",
    )
    .unwrap();
    let out = topics(dir.path(), &["check"]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(
        out.stdout
            .contains("a.md:3: relative_date: the heading \"Last week\""),
        "{out:?}"
    );
    assert_eq!(out.stdout.lines().count(), 1, "not the fenced one: {out:?}");
}
