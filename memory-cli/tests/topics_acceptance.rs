//! What a new user of `memcore topics` meets, end to end with the real binary: exit codes
//! as the README's table gives them (an unknown archive id is not found, text on stdin that
//! is not UTF-8 is invalid input naming stdin, a missing argument is named in JSON as in
//! the human message), restore's budget warning, and counts that agree with their nouns.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

fn topics_json(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "--json", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

/// Runs memcore with `stdin` as its standard input.
fn with_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> common::Run {
    let mut child = command(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    common::Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every file under `root` with its bytes (the lock file left out).
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(tree(&path));
            } else if entry.file_name() != ".memcore.lock" {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn remember(dir: &Path, args: &[&str]) {
    let mut all = vec!["remember"];
    all.extend_from_slice(args);
    topics_json(dir, &all).json();
}

#[test]
fn an_archive_id_the_archive_does_not_hold_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No archive yet, then an archive without the id: both not found (3), as an unknown
    // session (`agent show`) or entity (`context get`) is.
    for setup in 0..2 {
        if setup == 1 {
            remember(
                d,
                &[
                    "--topic",
                    "memory-db.md",
                    "--text",
                    "Postgres 15",
                    "--subject",
                    "db",
                    "--date",
                    "2026-06-01",
                    "--hook",
                    "databases",
                ],
            );
            remember(
                d,
                &[
                    "--topic",
                    "memory-db.md",
                    "--text",
                    "Postgres 16",
                    "--subject",
                    "db",
                    "--date",
                    "2026-07-01",
                ],
            );
        }
        let before = tree(&d.join("memory"));
        for id in [
            "c-19990101-001",
            "c-20260701-999",
            "my-section",
            "C-20260701-001",
        ] {
            let stderr = topics(d, &["restore", id]).fails(3);
            assert!(
                stderr.contains(id) && stderr.contains("memory-archive.md"),
                "{stderr}"
            );
            let error = topics_json(d, &["restore", id]).fails_json(3);
            assert_eq!(error["kind"], "not_found", "{id}");
            assert_eq!(error["code"], "ERR_MEMORY_NOT_FOUND", "{id}");
            assert!(
                error["path"]
                    .as_str()
                    .unwrap()
                    .ends_with("memory-archive.md")
            );
        }
        // What no section can be called is a slip in the argument: invalid input (2).
        for id in ["", " ", "c-20260701-001 c-20260701-002", "c-2026\t0701"] {
            let error = topics_json(d, &["restore", id]).fails_json(2);
            assert_eq!(error["kind"], "invalid_input", "{id:?}");
        }
        assert_eq!(tree(&d.join("memory")), before, "a refused restore wrote");
    }
}

#[test]
fn text_on_stdin_that_is_not_utf8_is_invalid_input_naming_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    remember(
        d,
        &[
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 15",
            "--hook",
            "databases",
        ],
    );
    let before = tree(&d.join("memory"));
    for bytes in [
        &b"\xff"[..],
        b"Postgres \xc3",
        b"line one\n\xe2\x82 two",
        b"\xc0\x80",
        b"\xed\xa0\x80",
        b"ok\r\n\xfe\xff",
    ] {
        for json in [false, true] {
            let mut args = vec!["--root", "memory"];
            if json {
                args.push("--json");
            }
            args.extend([
                "topics",
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                "-",
            ]);
            let out = with_stdin(d, &args, bytes);
            assert_eq!(out.code, 2, "{bytes:?}: {out:?}");
            assert!(out.stdout.is_empty(), "{out:?}");
            assert!(
                out.stderr.contains("stdin") && out.stderr.contains("not UTF-8"),
                "{out:?}"
            );
            if json {
                let value: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
                assert_eq!(value["error"]["kind"], "invalid_input");
            }
        }
    }
    assert_eq!(
        tree(&d.join("memory")),
        before,
        "a refused text was written"
    );
    // context-memory reads its bodies from stdin the same way.
    let out = with_stdin(
        d,
        &[
            "--root",
            "ctx",
            "context",
            "write",
            "--namespace",
            "org.global",
            "--category",
            "decision",
            "--tags",
            "a,b",
            "--body",
            "-",
        ],
        b"Use \xff bcrypt.",
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("stdin"), "{out:?}");
    // Valid UTF-8 on stdin still goes in whole.
    let out = with_stdin(
        d,
        &[
            "--root",
            "memory",
            "topics",
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "-",
            "--subject",
            "café",
        ],
        "Postgres 16 — naïve\n".as_bytes(),
    );
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn a_missing_argument_is_named_with_and_without_json_on_every_verb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, missing) in [
        (
            &["topics", "remember", "--topic", "memory-db.md"][..],
            &["--text <T>"][..],
        ),
        (&["topics", "remember", "--text", "x"], &["--topic <FILE>"]),
        (&["topics", "remember"], &["--topic <FILE>", "--text <T>"]),
        (&["topics", "show"], &["<FILE>"]),
        (&["topics", "recall"], &["<QUERY>"]),
        (&["topics", "restore"], &["<ID>"]),
        (
            &["agent", "register", "--agent", "a"],
            &["--topic <T>", "--summary <S>"],
        ),
        (&["agent", "show"], &["<ID>"]),
        (&["context", "get"], &["<NAME>"]),
    ] {
        let mut all = vec!["--root", "memory"];
        all.extend_from_slice(args);
        let stderr = run(command(d).args(&all)).fails(2);
        // The human message is clap's, the same shape for every verb of every model.
        assert!(
            stderr.starts_with("error: the following required arguments were not provided:"),
            "{args:?}: {stderr}"
        );
        all.insert(2, "--json");
        let error = run(command(d).args(&all)).fails_json(2);
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("the following required arguments were not provided: "),
            "{message}"
        );
        for name in missing {
            assert!(stderr.contains(name), "{args:?}: {stderr}");
            assert!(message.contains(name), "{args:?}: {message}");
        }
        assert_eq!(error["kind"], "invalid_input");
    }
    assert!(!d.join("memory").exists(), "a usage error wrote");
}

#[test]
fn restore_warns_of_a_file_over_its_budget_in_human_and_json_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    remember(
        d,
        &[
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 15",
            "--subject",
            "db",
            "--date",
            "2026-06-01",
            "--hook",
            "databases",
        ],
    );
    let merged = topics_json(
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
    .json();
    let id = merged["archive_id"].as_str().unwrap().to_string();
    // The topic holds 3 lines; restoring the old generation makes 4, over a budget of 3.
    let out = topics(d, &["--topic-lines", "3", "restore", &id]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("memory-db.md: 1 line back"), "{out:?}");
    assert_eq!(
        out.stderr, "warning: memory-db.md is over its budget: 4 of 3 lines (1 over)\n",
        "{out:?}"
    );
    // Near the budget (90 %) warns too; JSON carries the same warnings, stderr too.
    let again = topics_json(
        d,
        &[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 17",
            "--subject",
            "db",
            "--date",
            "2026-08-01",
        ],
    )
    .json();
    let id = again["archive_id"].as_str().unwrap().to_string();
    let out = topics_json(d, &["--topic-lines", "4", "restore", &id]);
    assert_eq!(out.code, 0, "{out:?}");
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let warnings: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        ["memory-db.md is over its budget: 5 of 4 lines (1 over)"]
    );
    assert_eq!(out.stderr, format!("warning: {}\n", warnings[0]));
    // Within budget: no warning, an empty list.
    let third = topics_json(
        d,
        &[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 18",
            "--subject",
            "db",
            "--date",
            "2026-09-01",
        ],
    )
    .json();
    let id = third["archive_id"].as_str().unwrap().to_string();
    let out = topics_json(d, &["restore", &id]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert!(out.stdout.contains("\"warnings\": []"), "{out:?}");
}

/// `1 lines`, `1 bytes`, `1 entries`, `1 files`, `(s)`: none in any message, for counts
/// of 0, 1 and 2 of every noun budgets and restores print.
#[test]
fn counts_agree_with_their_nouns_in_every_message() {
    let bad = |text: &str| {
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || "(),;:".contains(c))
            .collect();
        let singular_slip = words.windows(2).any(|w| {
            w[0] == "1" && matches!(w[1], "lines" | "bytes" | "entries" | "files" | "sections")
        });
        singular_slip || text.contains("(s)") || text.contains("(es)")
    };
    for budget_lines in 1..=5 {
        // The topic file is 37 bytes after each write, 68 after the restore: budgets
        // around both give 1 byte over and 1 byte left.
        for budget_bytes in [
            None,
            Some(36),
            Some(37),
            Some(38),
            Some(39),
            Some(67),
            Some(69),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let mut flags = vec![
                "--topic-lines".to_string(),
                budget_lines.to_string(),
                "--index-lines".into(),
                budget_lines.to_string(),
            ];
            if let Some(b) = budget_bytes {
                flags.extend(["--topic-bytes".to_string(), b.to_string()]);
            }
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            let mut outputs = Vec::new();
            let mut go = |args: &[&str]| {
                let mut all = flags.clone();
                all.extend_from_slice(args);
                let out = topics(d, &all);
                outputs.push(format!("{}{}", out.stdout, out.stderr));
                out
            };
            go(&[
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                "Postgres 15",
                "--subject",
                "db",
                "--date",
                "2026-06-01",
                "--hook",
                "databases",
            ]);
            go(&[
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                "Postgres 16",
                "--subject",
                "db",
                "--date",
                "2026-07-01",
            ]);
            go(&["show", "memory-db.md"]);
            go(&["index"]);
            go(&["check"]);
            go(&["compact", "--dry-run"]);
            go(&["restore", "c-20260101-001"]);
            let archive =
                std::fs::read_to_string(d.join("memory/memory-archive.md")).unwrap_or_default();
            if let Some(id) = archive
                .lines()
                .find_map(|l| l.strip_prefix("## "))
                .and_then(|h| h.split(' ').next())
            {
                let id = id.to_string();
                go(&["restore", &id]);
            }
            for text in &outputs {
                assert!(
                    !bad(text),
                    "lines {budget_lines}, bytes {budget_bytes:?}: {text}"
                );
            }
        }
    }
}

/// `--root` says, on every verb's help, what the default is and what the directory holds
/// for the model at hand.
#[test]
fn root_help_gives_the_default_and_what_the_directory_holds() {
    let dir = tempfile::tempdir().unwrap();
    for verb in [
        &["topics"][..],
        &["topics", "remember"],
        &["topics", "index"],
        &["agent", "start"],
        &["context", "get"],
    ] {
        let mut args = verb.to_vec();
        args.push("--help");
        let help = run(command(dir.path()).args(&args)).ok();
        let root: String = help
            .split("--root <DIR>")
            .nth(1)
            .and_then(|rest| rest.split("\n      --").next())
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for needle in [
            "MEMORY.md",
            "topic files",
            "memory-archive.md",
            "index.md",
            "[default: $MEMCORE_ROOT, else ./memory]",
            "$MEMCORE_CONTEXT_ROOT, else ~/.cursor/memory",
        ] {
            assert!(root.contains(needle), "{verb:?}: {needle}: {root}");
        }
    }
}

/// `--date` with a month's name: a day of a year is written as that day; a month without
/// a day or a year is refused naming it, and nothing is written.
#[test]
fn dates_with_month_names_are_exact_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    remember(
        d,
        &[
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 15",
            "--hook",
            "databases",
        ],
    );
    for (given, day) in [
        ("3 May 2026", "2026-05-03"),
        ("May 3rd, 2026", "2026-05-03"),
        ("the 1st of December 2025", "2025-12-01"),
    ] {
        let out = topics_json(
            d,
            &[
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                &format!("fact for {given}"),
                "--date",
                given,
            ],
        )
        .json();
        assert_eq!(out["entry"]["date"], day, "{given}");
        assert_eq!(out["converted"][0]["from"], given);
    }
    let before = tree(&d.join("memory"));
    for given in [
        "last May",
        "next May",
        "in May",
        "May 3",
        "3 May",
        "May 3rd",
        "May",
        "day after next",
    ] {
        let error = topics_json(
            d,
            &[
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                "x",
                "--date",
                given,
            ],
        )
        .fails_json(2);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains(&format!("{given:?}")),
            "{given}: {error}"
        );
    }
    assert_eq!(tree(&d.join("memory")), before);
}
