//! `memcore topics …` end to end with the real binary: remember (merge on write, a new
//! topic linked in the same step), index as a SessionStart hook (whole, warning on stderr
//! over budget), recall, show, check (exit 4 on violations), refusals that write nothing.

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory", "topics"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

#[test]
fn remember_index_recall_show_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--text",
        "Postgres 15",
        "--subject",
        "db",
        "--date",
        "2026-06-01",
        "--hook",
        "hosts, databases",
    ]))
    .json();
    assert_eq!(first["created_topic"], true);
    assert_eq!(first["entry"]["date"], "2026-06-01");
    assert_eq!(first["entry"]["subject"], "db");
    assert_eq!(first["budgets"][0]["lines_left"], 147);
    let second = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--text",
        "Postgres 16",
        "--subject",
        "db",
        "--date",
        "2026-07-01",
    ]))
    .json();
    assert_eq!(second["replaced"][0]["text"], "Postgres 15");
    let index = topics(d, &["index"]).ok();
    assert_eq!(
        index,
        std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap()
    );
    let hits = run(command(d).args([
        "--root", "memory", "--json", "topics", "recall", "the", "database",
    ]))
    .json();
    assert_eq!(hits[0]["file"], "memory-infra.md");
    assert_eq!(hits[0]["title"], "Infra");
    let shown = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "show",
        "memory-infra.md",
    ]))
    .json();
    assert_eq!(shown["entries"][0]["text"], "Postgres 16");
    assert_eq!(topics(d, &["check"]).ok(), "No violations.\n");

    std::fs::write(
        d.join("memory/memory-orphan.md"),
        "- 2026-07-01: nobody links me\n",
    )
    .unwrap();
    let out = topics(d, &["check"]);
    assert_eq!(out.code, 4, "{out:?}");
    let out = out.stdout;
    assert!(out.contains("memory-orphan.md: orphan_topic"), "{out}");
    let json = run(command(d).args(["--root", "memory", "--json", "topics", "check"]));
    assert_eq!(json.code, 4, "{json:?}");
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json["violations"][0]["kind"], "orphan_topic");
}

#[test]
fn the_index_hook_prints_everything_and_warns_on_stderr_when_over_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    let text: String = (0..65)
        .map(|i| format!("- [T{i}](memory-t{i}.md) — hook {i}\n"))
        .collect();
    std::fs::write(d.join("memory/MEMORY.md"), &text).unwrap();
    let out = run(command(d).args(["--root", "memory", "topics", "index"]));
    let (stdout, stderr) = (out.stdout, out.stderr);
    assert_eq!(stdout, text, "never truncated");
    assert!(
        stderr.contains("warning: MEMORY.md is over its budget: 65 of 60 lines"),
        "{stderr}"
    );
    let stderr = run(command(d).args([
        "--root",
        "memory",
        "topics",
        "--index-lines",
        "100",
        "index",
    ]))
    .stderr;
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn refusals_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        vec![
            "remember",
            "--topic",
            "memory-x.md",
            "--text",
            "moved",
            "--date",
            "last week",
            "--hook",
            "h",
        ],
        vec![
            "remember",
            "--topic",
            "memory-misc.md",
            "--text",
            "x",
            "--hook",
            "h",
        ],
        vec![
            "remember", "--topic", "../x.md", "--text", "x", "--hook", "h",
        ],
        vec!["remember", "--topic", "memory-x.md", "--text", "no hook"],
        vec![
            "remember",
            "--topic",
            "memory-x.md",
            "--text",
            "AKIAZ7QX3RT5WVB2KMNP",
            "--hook",
            "h",
        ],
    ] {
        let stderr = topics(d, &args).fails(2);
        assert!(stderr.starts_with("memcore: error:"), "{args:?}: {stderr}");
        assert!(
            !d.join("memory").join("MEMORY.md").exists(),
            "{args:?} wrote"
        );
    }
    let stderr = topics(d, &["show", "memory-none.md"]).fails(3);
    assert!(stderr.contains("memory-none.md"), "{stderr}");
}

#[test]
fn a_vague_time_exits_2_with_its_message_prefix_and_a_bad_date_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let remember = |json: bool, date: Option<&str>, text: &str| {
        let mut args = vec!["--root", "memory"];
        if json {
            args.push("--json");
        }
        args.extend([
            "topics",
            "remember",
            "--topic",
            "memory-x.md",
            "--hook",
            "h",
            "--text",
            text,
        ]);
        if let Some(date) = date {
            args.extend(["--date", date]);
        }
        run(command(d).args(&args))
    };
    let stderr = remember(false, Some("last week"), "moved").fails(2);
    assert!(
        stderr.starts_with("memcore: error: vague time in date \"last week\": "),
        "{stderr}"
    );
    let error = remember(true, None, "moved recently").fails_json(2);
    assert_eq!(error["kind"], "invalid_input");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("vague time in text "), "{message}");
    let error = remember(true, Some("31 February 2026"), "moved").fails_json(2);
    assert!(
        !error["message"].as_str().unwrap().starts_with("vague time"),
        "{error}"
    );
    assert!(!d.join("memory").exists(), "nothing written");
}

#[test]
fn compact_dry_run_then_compact_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    let entries: String = (1..=6)
        .map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n"))
        .collect();
    std::fs::write(d.join("memory/memory-infra.md"), &entries).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [Infra](memory-infra.md) — databases\n",
    )
    .unwrap();
    let dry = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "--topic-lines",
        "4",
        "compact",
        "--dry-run",
    ]))
    .json();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["files"][0]["passes"][0]["pass"], "collapse-superseded");
    assert_eq!(
        std::fs::read_to_string(d.join("memory/memory-infra.md")).unwrap(),
        entries
    );
    let done = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "--topic-lines",
        "4",
        "compact",
    ]))
    .json();
    assert_eq!(done["files"][0]["after"]["lines"], 1);
    let id = done["id"].as_str().unwrap().to_string();
    let back =
        run(command(d).args(["--root", "memory", "--json", "topics", "restore", &id])).json();
    assert_eq!(back["restored"][0]["lines"].as_array().unwrap().len(), 5);
    // An id the archive does not hold is not found (3), as an unknown session is.
    let stderr = topics(d, &["restore", "c-19990101-001"]).fails(3);
    assert!(stderr.contains("c-19990101-001"), "{stderr}");
}

#[test]
fn budget_flags_are_accepted_before_and_after_the_verb() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts\n",
    )
    .unwrap();
    let entries: String = (1..=12)
        .map(|i| format!("- 2026-06-{i:02}: fact {i}\n"))
        .collect();
    std::fs::write(d.join("memory/memory-infra.md"), &entries).unwrap();
    for args in [
        &["--topic-lines", "10", "check"][..],
        &["check", "--topic-lines", "10"][..],
        &["check", "--topic-lines=10", "--index-lines", "5"][..],
    ] {
        let run = topics(d, args);
        assert_eq!(run.code, 4, "{args:?}: {run:?}");
        let out = run.stdout;
        assert!(
            out.contains("memory-infra.md:11: over_budget"),
            "{args:?}: {out}"
        );
        assert!(out.contains("12 of 10 lines"), "{args:?}: {out}");
    }
    // After the verb's own options too, with every budget flag.
    let out = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--text",
        "fact 13",
        "--date",
        "2026-06-13",
        "--topic-lines",
        "40",
        "--index-lines",
        "50",
        "--topic-bytes",
        "4000",
        "--index-bytes",
        "2000",
    ]))
    .json();
    assert_eq!(out["budgets"][0]["line_budget"], 40);
    assert_eq!(out["budgets"][0]["lines_left"], 27);
    assert_eq!(out["compaction"], serde_json::Value::Null);
    let out = topics(d, &["show", "memory-infra.md", "--topic-lines", "13"]);
    assert!(out.stdout.contains("fact 13"), "{out:?}");
    assert!(
        out.stderr.contains("near its budget: 13 of 13 lines"),
        "{out:?}"
    );
}

#[test]
fn an_empty_hook_keeps_the_existing_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-infra.md",
            "--text",
            "Postgres 16",
            "--hook",
            "hosts, databases",
        ],
    )
    .ok();
    topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-infra.md",
            "--text",
            "Debian 13",
            "--hook",
            "",
        ],
    )
    .ok();
    let index = std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    assert!(
        index.contains("- [Infra](memory-infra.md) — hosts, databases"),
        "{index}"
    );
    let help = run(command(d).args(["topics", "remember", "--help"])).ok();
    assert!(
        help.contains("an empty hook keeps the existing one"),
        "{help}"
    );
}

#[test]
fn a_dry_run_lists_each_move_as_the_json_report_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    let topic = "# Infra\n\n## Hosts\n- 2026-06-01 [web]: web1 runs nginx 1.24\n- 2026-06-02 [web]: web1 runs nginx 1.26\n\n## Databases\n- 2026-06-03: Postgres 16 on db1\n- 2026-06-04: backups nightly\n";
    std::fs::write(d.join("memory/memory-infra.md"), topic).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts, databases\n",
    )
    .unwrap();
    let args = ["topics", "--topic-lines", "6", "compact", "--dry-run"];
    let human = topics(d, &args[1..]).ok();
    let mut json_args = vec!["--root", "memory", "--json"];
    json_args.extend_from_slice(&args);
    let report = run(command(d).args(&json_args)).json();
    assert_eq!(
        std::fs::read_to_string(d.join("memory/memory-infra.md")).unwrap(),
        topic,
        "a dry run writes nothing"
    );
    // Each move, with the line it has in the file as it is now (the split's entries are
    // counted before the collapse took line 4 out).
    for line in [
        "    collapse-superseded: memory-infra.md:4 -> memory-archive.md: 2026-06-01 [web]: web1 runs nginx 1.24",
        "    split-overgrown: memory-infra.md:8 -> memory-infra-databases.md: 2026-06-03: Postgres 16 on db1",
        "    split-overgrown: memory-infra.md:9 -> memory-infra-databases.md: 2026-06-04: backups nightly",
    ] {
        assert!(
            human.lines().any(|l| l == line),
            "{line:?} missing from:\n{human}"
        );
    }
    // The human text and the JSON report name the same moves.
    let mut from_json = Vec::new();
    for f in report["files"].as_array().unwrap() {
        for p in f["passes"].as_array().unwrap() {
            let lines = p["from_lines"].as_array().unwrap();
            assert_eq!(lines.len(), p["entries"].as_array().unwrap().len());
            for (line, entry) in lines.iter().zip(p["entries"].as_array().unwrap()) {
                assert_eq!(&entry["line"], line, "an entry's line is the line of now");
                from_json.push(format!(
                    "    {}: {}:{} -> {}:",
                    p["pass"].as_str().unwrap(),
                    p["from"].as_str().unwrap(),
                    line,
                    p["to"].as_str().unwrap()
                ));
            }
        }
    }
    let from_human: Vec<&str> = human
        .lines()
        .filter(|l| l.starts_with("    ") && l.contains(" -> "))
        .collect();
    assert_eq!(from_human.len(), from_json.len(), "{human}");
    for (h, j) in from_human.iter().zip(&from_json) {
        assert!(h.starts_with(j.as_str()), "{h:?} vs {j:?}");
    }
    assert!(human.starts_with("Dry run: nothing written.\n"), "{human}");
}

#[test]
fn relative_time_in_a_fact_is_written_as_the_day_and_reported_in_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--text",
        "the deploy broke yesterday",
        "--hook",
        "hosts",
    ]))
    .json();
    // No --date: the entry is dated the one day the text names ("yesterday"), the day
    // before the date of writing.
    let day = out["converted"][0]["to"].as_str().unwrap().to_string();
    assert_eq!(out["entry"]["date"], day.as_str());
    let today = chrono::NaiveDate::parse_from_str(&day, "%Y-%m-%d").unwrap() + chrono::Days::new(1);
    assert_eq!(
        out["converted"],
        serde_json::json!([{ "field": "text", "from": "yesterday", "to": day }])
    );
    assert_eq!(
        out["entry"]["text"],
        format!("the deploy broke {day}").as_str()
    );
    let topic = std::fs::read_to_string(d.join("memory/memory-infra.md")).unwrap();
    assert!(
        topic.contains(&format!("the deploy broke {day}\n")),
        "{topic}"
    );
    // The human form says the same; a fact without relative time converts nothing.
    let human = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-infra.md",
            "--text",
            "CI was red 3 days ago",
            "--subject",
            "ci",
        ],
    )
    .ok();
    let three = (today - chrono::Days::new(3))
        .format("%Y-%m-%d")
        .to_string();
    assert!(
        human.contains(&format!("text \"3 days ago\" written as {three}")),
        "{human}"
    );
    let plain = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--text",
        "Postgres 16",
        "--subject",
        "db",
    ]))
    .json();
    assert_eq!(plain["converted"], serde_json::json!([]));
    // A vague phrase is refused, naming it, and writes nothing.
    let before = std::fs::read(d.join("memory/memory-infra.md")).unwrap();
    let refused = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-infra.md",
            "--text",
            "it broke recently",
            "--subject",
            "x",
        ],
    );
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("recently"), "{refused:?}");
    assert_eq!(
        std::fs::read(d.join("memory/memory-infra.md")).unwrap(),
        before
    );
}

#[test]
fn a_frontmatter_description_that_cannot_be_a_hook_exits_2_naming_file_and_line() {
    for description in [
        "description: \"line\\nbreak\"",
        "description: |\n  - [X](memory-x.md) — injected\n  more",
        "description: \"\\u0007 bell\"",
        "description: has AKIAIOSFODNN7EXAMPLE",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("memory")).unwrap();
        let topic = format!("---\nname: X\n{description}\n---\n- 2026-07-01: a\n");
        std::fs::write(d.join("memory/memory-x.md"), &topic).unwrap();
        let stderr = topics(d, &["remember", "--topic", "memory-x.md", "--text", "b"]).fails(2);
        assert!(stderr.contains("memory-x.md:3:"), "{stderr}");
        assert!(stderr.contains("--hook"), "{stderr}");
        assert!(!stderr.contains("AKIA"), "{stderr}");
        assert!(!d.join("memory/MEMORY.md").exists());
        assert_eq!(
            std::fs::read_to_string(d.join("memory/memory-x.md")).unwrap(),
            topic
        );
        topics(
            d,
            &[
                "remember",
                "--topic",
                "memory-x.md",
                "--text",
                "b",
                "--hook",
                "x things",
            ],
        )
        .ok();
    }
}

#[test]
fn control_characters_in_hook_title_and_subject_and_a_secret_file_name_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        vec!["--hook", "a\u{7}b"],
        vec!["--hook", "h", "--title", "a\u{1b}[31mb"],
        vec!["--hook", "h", "--subject", "a\u{7f}b"],
    ] {
        let mut all = vec!["remember", "--topic", "memory-x.md", "--text", "x"];
        all.extend(args.iter());
        let stderr = topics(d, &all).fails(2);
        assert!(
            stderr.contains("control characters") || stderr.contains("one line"),
            "{args:?}: {stderr}"
        );
        assert!(!d.join("memory").exists(), "{args:?} wrote");
    }
    let stderr = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-AKIAIOSFODNN7EXAMPLE.md",
            "--text",
            "x",
            "--hook",
            "h",
        ],
    )
    .fails(2);
    assert!(stderr.contains("secret"), "{stderr}");
    assert!(!d.join("memory").exists());
}

#[test]
fn a_topic_named_like_an_unlinked_file_but_for_case_goes_into_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("memory")).unwrap();
    std::fs::write(d.join("memory/memory-Infra.md"), "- 2026-07-01: old\n").unwrap();
    let before = topics(d, &["check"]);
    assert_eq!(before.code, 4, "{before:?}");
    assert!(
        before.stdout.contains("memory-Infra.md: orphan_topic"),
        "{before:?}"
    );
    let out = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-infra.md",
        "--hook",
        "h",
        "--text",
        "new",
    ]))
    .json();
    assert_eq!(out["file"], "memory-Infra.md");
    let names: Vec<String> = std::fs::read_dir(d.join("memory"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    topics(d, &["check"]).ok();
    // An exact-name file beside it leaves the other one an orphan, and check says so.
    std::fs::write(d.join("memory/MEMORY-INFRA.md"), "- 2026-07-01: other\n").unwrap();
    let after = topics(d, &["check"]);
    assert_eq!(after.code, 4, "{after:?}");
    assert!(
        after.stdout.contains("MEMORY-INFRA.md: orphan_topic"),
        "{after:?}"
    );
}

#[test]
fn counted_days_and_weekday_abbreviations_are_converted_vague_counts_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "remember",
        "--topic",
        "memory-t.md",
        "--hook",
        "t",
        "--text",
        "two weeks ago it broke, on Fri we shipped",
    ]))
    .json();
    let today =
        chrono::NaiveDate::parse_from_str(out["entry"]["date"].as_str().unwrap(), "%Y-%m-%d")
            .unwrap();
    let two_weeks = (today - chrono::Days::new(14))
        .format("%Y-%m-%d")
        .to_string();
    assert_eq!(out["converted"][0]["from"], "two weeks ago");
    assert_eq!(out["converted"][0]["to"], two_weeks.as_str());
    assert_eq!(out["converted"][1]["from"], "Fri");
    let stderr = topics(
        d,
        &[
            "remember",
            "--topic",
            "memory-t.md",
            "--text",
            "a few weeks ago",
        ],
    )
    .fails(2);
    assert!(stderr.contains("a few weeks ago"), "{stderr}");
    std::fs::write(
        d.join("memory/memory-t.md"),
        "- 2026-07-01: in 3 days we ship\n- 2026-07-02: Mon it broke\n",
    )
    .unwrap();
    let found = run(command(d).args(["--root", "memory", "--json", "topics", "check"]));
    assert_eq!(found.code, 4, "{found:?}");
    let found: serde_json::Value = serde_json::from_str(&found.stdout).unwrap();
    let lines: Vec<u64> = found["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "relative_date")
        .map(|v| v["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 2], "{found}");
}

#[test]
fn the_index_hook_prints_a_damaged_index_whole_with_a_warning() {
    // A comment and a fence never closed (LF, CRLF, a BOM): `index()` refuses them, the
    // SessionStart hook prints every byte and says on stderr why, with file and line.
    for (text, line) in [
        (
            "- [User](USER.md) — role\n<!-- start note\n- [Infra](memory-infra.md) — hosts\n",
            2,
        ),
        ("# Memory\r\n\r\n```\r\n- [User](USER.md) — role\r\n", 3),
        ("\u{feff}- [A](a.md) — a\n%% open\n- [B](b.md) — b", 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("memory")).unwrap();
        std::fs::write(d.join("memory/MEMORY.md"), text).unwrap();
        let out = topics(d, &["index"]);
        assert_eq!(out.code, 0, "{out:?}");
        // Byte for byte (a BOM too), a line break added only when the file ends without one.
        let mut whole = text.to_string();
        if !whole.ends_with('\n') {
            whole.push('\n');
        }
        assert_eq!(out.stdout, whole, "{out:?}");
        let expected = format!("MEMORY.md:{line}: ");
        assert!(out.stderr.starts_with("warning: "), "{out:?}");
        assert!(out.stderr.contains(&expected), "{out:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{out:?}");

        let out = topics(d, &["--json", "index"]);
        assert_eq!(out.code, 0, "{out:?}");
        let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(value["text"], text);
        assert_eq!(value["damaged"]["line"], line);
        assert!(out.stderr.contains(&expected), "{out:?}");

        // The other readers keep their typed refusal (exit 5, malformed file).
        topics(d, &["recall", "user"]).fails(5);
    }
}

/// A `MEMORY.md` that is not UTF-8 (a Windows-1252 dash, a NUL byte, UTF-16): the
/// SessionStart hook prints it as well as it decodes, warns naming the line of the first
/// bad byte and exits 0; the other commands refuse it naming the file and line (exit 5).
#[test]
fn the_index_hook_prints_an_index_that_is_not_utf8_lossily() {
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "- [A](a.md) — a\n".encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    for (bytes, printed, line) in [
        (
            b"- [A](a.md) \xe2\x80\x94 a\n- [U](memory-u.md) \x97 dash\n".to_vec(),
            "- [A](a.md) — a\n- [U](memory-u.md) \u{fffd} dash\n",
            2,
        ),
        (
            b"- [A](a.md) \xe2\x80\x94 a\n\n- [V](v.md) \x00 nul\n".to_vec(),
            "- [A](a.md) — a\n\n- [V](v.md) \u{fffd} nul\n",
            3,
        ),
        (utf16, "- [A](a.md) — a\n", 1),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("memory")).unwrap();
        std::fs::write(d.join("memory/MEMORY.md"), &bytes).unwrap();
        let out = topics(d, &["index"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(out.stdout, printed, "{out:?}");
        assert!(out.stderr.starts_with("warning: "), "{out:?}");
        assert!(
            out.stderr.contains(&format!("MEMORY.md:{line}: ")),
            "{out:?}"
        );
        let out = topics(d, &["--json", "index"]);
        assert_eq!(out.code, 0, "{out:?}");
        let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(value["text"], printed);
        assert_eq!(value["damaged"]["line"], line);
        assert!(value["index"].is_null());
        let refused = topics(d, &["recall", "a"]);
        assert_eq!(refused.code, 5, "{refused:?}");
        assert!(refused.stderr.contains("MEMORY.md:"), "{refused:?}");
        let refused = topics(
            d,
            &[
                "remember",
                "--topic",
                "memory-x.md",
                "--text",
                "x",
                "--hook",
                "x",
            ],
        );
        assert_eq!(refused.code, 5, "{refused:?}");
        assert_eq!(std::fs::read(d.join("memory/MEMORY.md")).unwrap(), bytes);
    }
}

#[test]
fn a_damaged_index_over_budget_gets_both_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    let mut text: String = (0..70)
        .map(|i| format!("- [T{i}](memory-t{i}.md) — hook {i}\n"))
        .collect();
    text.insert_str(0, "<!-- never closed\n");
    std::fs::write(d.join("memory/MEMORY.md"), &text).unwrap();
    let out = topics(d, &["index"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, text, "never truncated");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    assert!(lines[0].contains("MEMORY.md:1: "), "{out:?}");
    assert!(
        lines[1].contains("over its budget: 71 of 60 lines"),
        "{out:?}"
    );
}

#[test]
fn check_reports_a_linked_symlink_directory_and_corrupt_archive_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = d.join("memory");
    std::fs::create_dir_all(m.join("subdir.md")).unwrap();
    std::fs::write(m.join("memory-k.md"), "- 2026-07-01: k\n").unwrap();
    std::os::unix::fs::symlink("memory-k.md", m.join("memory-l.md")).unwrap();
    std::fs::write(m.join("memory-archive.md"), b"# Memory archive\n\xff\n").unwrap();
    std::fs::write(
        m.join("MEMORY.md"),
        "- [K](memory-k.md) — k\n- [L](memory-l.md) — l\n- [D](subdir.md) — d\n",
    )
    .unwrap();
    let out = topics(d, &["--json", "check"]);
    assert_eq!(out.code, 4, "{out:?}");
    let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let found: Vec<(String, String, u64)> = value["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_string(),
                v["file"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("unreadable_archive", "memory-archive.md", 2),
        ("unreadable_topic", "memory-l.md", 0),
        ("unreadable_topic", "subdir.md", 0),
    ];
    let expected: Vec<(String, String, u64)> = expected
        .iter()
        .map(|(k, f, l)| (k.to_string(), f.to_string(), *l))
        .collect();
    assert_eq!(found, expected, "{out:?}");
    // `show` keeps its typed refusal: a link is invalid input (2), a directory I/O (1).
    topics(d, &["show", "memory-l.md"]).fails(2);
    topics(d, &["show", "subdir.md"]).fails(1);
}

/// `--json index` has one shape whether `MEMORY.md` reads or not — `text`, `budget`,
/// `damaged`, `index`, `warnings`, as Python's and Node's `session_index` — so a hook that
/// reads `.index.lines` does not break exactly when the index is damaged.
#[test]
fn the_json_index_has_one_shape_sound_or_damaged() {
    let keys =
        |v: &serde_json::Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let mut shapes = Vec::new();
    for text in [
        "- [A](memory-a.md) — a\n",
        "- [A](memory-a.md) — a\n<!-- x\n- [B](memory-b.md) — b\n",
        "",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("memory")).unwrap();
        if !text.is_empty() {
            std::fs::write(d.join("memory/MEMORY.md"), text).unwrap();
            std::fs::write(d.join("memory/memory-a.md"), "# A\n").unwrap();
        }
        let out = topics(d, &["--json", "index"]);
        assert_eq!(out.code, 0, "{out:?}");
        let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(value["text"], text);
        let damaged = text.contains("<!--");
        assert_eq!(value["damaged"].is_null(), !damaged, "{value}");
        assert_eq!(value["index"].is_null(), damaged, "{value}");
        assert_eq!(
            value["warnings"].as_array().unwrap().is_empty(),
            !damaged,
            "{value}"
        );
        if !damaged {
            assert_eq!(
                value["index"]["lines"].as_array().unwrap().len(),
                text.lines().count()
            );
        }
        shapes.push(keys(&value));
    }
    assert!(shapes.iter().all(|s| *s == shapes[0]), "{shapes:?}");
    let mut expected = ["text", "budget", "damaged", "index", "warnings"];
    expected.sort_unstable();
    let mut first = shapes[0].clone();
    first.sort_unstable();
    assert_eq!(first, expected);
}

#[test]
fn recall_with_a_one_letter_or_one_character_query_finds_topics() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [A](memory-a.md) — the letter\n- [Auth](memory-auth.md) — tokens\n- [日本語](memory-ja.md) — 設定\n",
    )
    .unwrap();
    for name in ["memory-a.md", "memory-auth.md", "memory-ja.md"] {
        std::fs::write(d.join("memory").join(name), "- 2026-07-01: a fact\n").unwrap();
    }
    let hits = run(command(d).args(["--root", "memory", "--json", "topics", "recall", "a"])).json();
    assert_eq!(hits[0]["file"], "memory-a.md");
    assert_eq!(hits[1]["file"], "memory-auth.md");
    assert_eq!(hits.as_array().unwrap().len(), 2);
    let hits =
        run(command(d).args(["--root", "memory", "--json", "topics", "recall", "日"])).json();
    assert_eq!(hits[0]["file"], "memory-ja.md");
    let human = topics(d, &["recall", "a"]).ok();
    assert!(human.contains("memory-a.md"), "{human}");
}

#[test]
fn recall_keeps_a_hit_whose_topic_file_is_missing_and_warns_of_its_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "# Memory\n\n- [Infra](memory-infra.md) — hosts\n- [Gone](memory-gone.md) — old hosts\n",
    )
    .unwrap();
    std::fs::write(d.join("memory/memory-infra.md"), "- 2026-07-01: db1\n").unwrap();
    for json in [false, true] {
        let mut args = vec!["--root", "memory"];
        if json {
            args.push("--json");
        }
        args.extend(["topics", "recall", "hosts"]);
        let out = run(command(d).args(&args));
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.stdout.contains("memory-gone.md"),
            "the hit is kept: {out:?}"
        );
        assert_eq!(
            out.stderr.lines().collect::<Vec<_>>(),
            [
                "warning: MEMORY.md line 4 links memory-gone.md, which does not exist: the hit is kept, but `show` will not find it (a dangling index line, as `check` reports; restore the file or remove the line)"
            ],
            "{out:?}"
        );
    }
    let out = topics(d, &["recall", "infra"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
}

#[test]
fn check_reports_a_damaged_index_with_its_line_checks_the_rest_and_exits_4() {
    for (text, line) in [
        (
            "- [K](memory-k.md) — k\n<!-- start note\n- [Infra](memory-infra.md) — hosts\n",
            2,
        ),
        (
            "\u{feff}# Memory\r\n\r\n```\r\n- [K](memory-k.md) — k\r\n",
            3,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = d.join("memory");
        std::fs::create_dir_all(&m).unwrap();
        std::fs::write(m.join("MEMORY.md"), text).unwrap();
        std::fs::write(m.join("memory-k.md"), "- 2026-07-01: k\n- a hand note\n").unwrap();
        std::fs::write(m.join("memory-archive.md"), b"# Memory archive\n\xff\n").unwrap();
        let out = topics(d, &["--json", "check"]);
        assert_eq!(out.code, 4, "{out:?}");
        let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        let found: Vec<(String, String, u64)> = value["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["kind"].as_str().unwrap().to_string(),
                    v["file"].as_str().unwrap().to_string(),
                    v["line"].as_u64().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(String, String, u64)> = [
            ("unreadable_index", "MEMORY.md", line),
            ("unreadable_archive", "memory-archive.md", 2),
            ("undated_entry", "memory-k.md", 2),
        ]
        .iter()
        .map(|(k, f, l)| (k.to_string(), f.to_string(), *l))
        .collect();
        assert_eq!(found, expected, "{out:?}");
        let human = topics(d, &["check"]);
        assert_eq!(human.code, 4, "{human:?}");
        let all = format!("{}{}", human.stdout, human.stderr);
        assert!(all.contains(&format!("MEMORY.md:{line}")), "{human:?}");
        // The other commands keep their refusal (exit 5).
        topics(d, &["recall", "k"]).fails(5);
    }
}

#[test]
fn check_reports_a_dead_writer_s_temp_file_and_compact_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = d.join("memory");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("MEMORY.md"), "- [K](memory-k.md) — k\n").unwrap();
    std::fs::write(m.join("memory-k.md"), "- 2026-07-01: k\n").unwrap();
    // A process that has ended: its pid names a writer that is gone.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let temp = format!(".MEMORY.md.tmp-{pid}-0");
    std::fs::write(m.join(&temp), "half a line").unwrap();
    let out = topics(d, &["--json", "check"]);
    assert_eq!(out.code, 4, "{out:?}");
    let value: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(value["violations"][0]["kind"], "leftover_temp_file");
    assert_eq!(value["violations"][0]["file"], temp);
    let dry = topics(d, &["compact", "--dry-run"]).ok();
    assert!(
        dry.contains(&format!("Would remove a dead writer's temp file: {temp}")),
        "{dry}"
    );
    assert!(m.join(&temp).exists());
    let human = topics(d, &["compact"]).ok();
    assert!(
        human.contains(&format!("Removed a dead writer's temp file: {temp}")),
        "{human}"
    );
    assert!(!m.join(&temp).exists());
    topics(d, &["check"]).ok();
}

/// The SessionStart hook on a symlinked `MEMORY.md` prints what it leads to and warns; a
/// write refuses the link (exit 2) and changes nothing.
#[cfg(unix)]
#[test]
fn the_index_hook_reads_a_symlinked_index_and_writes_refuse_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    std::fs::create_dir_all(d.join("dotfiles")).unwrap();
    let text = "- [X](memory-x.md) — x things\n";
    std::fs::write(d.join("dotfiles/MEMORY.md"), text).unwrap();
    std::os::unix::fs::symlink("../dotfiles/MEMORY.md", d.join("memory/MEMORY.md")).unwrap();
    let out = topics(d, &["index"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, text);
    assert!(out.stderr.contains("symbolic link"), "{out:?}");
    topics(
        d,
        &["remember", "--topic", "memory-x.md", "--text", "a fact"],
    )
    .fails(2);
    // The other reads go through the link too, and say so: recall on stderr, check as a
    // violation (exit 4, as for every finding) with the rest checked.
    std::fs::write(
        d.join("memory/memory-x.md"),
        "# X

- 2026-07-01: x
",
    )
    .unwrap();
    let out = topics(d, &["recall", "x", "things"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("memory-x.md"), "{out:?}");
    assert!(
        out.stderr
            .starts_with("warning: MEMORY.md is a symbolic link to ../dotfiles/MEMORY.md"),
        "{out:?}"
    );
    let out = topics(d, &["--json", "recall", "x"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("symbolic link"), "{out:?}");
    let out = topics(d, &["check"]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(
        out.stdout
            .starts_with("MEMORY.md: linked_index: MEMORY.md is a symbolic link"),
        "{out:?}"
    );
    assert_eq!(out.stdout.lines().count(), 1, "{out:?}");
    assert_eq!(topics(d, &["show", "memory-x.md"]).code, 0);
    for args in [
        &["compact", "--dry-run"][..],
        &["compact"],
        &["restore", "c-20260701-001"],
    ] {
        let out = topics(d, args);
        assert_ne!(out.code, 0, "{args:?}: {out:?}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("dotfiles/MEMORY.md")).unwrap(),
        text
    );
}

#[test]
fn remember_type_starts_a_new_topic_with_frontmatter_and_refuses_another_type_for_an_existing_one()
{
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    topics(
        d,
        &[
            "remember",
            "--topic",
            "feedback_tests.md",
            "--text",
            "no mocks",
            "--date",
            "2026-07-10",
            "--hook",
            "how tests are written",
            "--type",
            "feedback",
        ],
    )
    .ok();
    let text = std::fs::read_to_string(d.join("memory/feedback_tests.md")).unwrap();
    assert_eq!(
        text,
        "---\nname: Feedback tests\ndescription: how tests are written\ntype: feedback\n---\n\n- 2026-07-10: no mocks\n"
    );
    let err = topics(
        d,
        &[
            "remember",
            "--topic",
            "feedback_tests.md",
            "--text",
            "x",
            "--type",
            "user",
        ],
    )
    .fails(2);
    assert!(err.contains("its type is feedback"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("memory/feedback_tests.md")).unwrap(),
        text
    );
}

#[test]
fn a_dry_run_compaction_shows_the_index_line_a_split_would_add() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/memory-infra.md"),
        "# Infra\n\n## Hosts\n- 2026-06-01: web1\n- 2026-06-02: web2\n\n## Databases\n- 2026-06-03: db1\n- 2026-06-04: db2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts\n",
    )
    .unwrap();
    let line = "- [Infra: Databases](memory-infra-databases.md) — Databases";
    let human = topics(d, &["--topic-lines", "7", "compact", "--dry-run"]).ok();
    assert!(
        human.contains(&format!("MEMORY.md: would add {line}")),
        "{human}"
    );
    let json = run(command(d).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "--topic-lines",
        "7",
        "compact",
        "--dry-run",
    ]))
    .json();
    assert_eq!(json["index_lines"][0]["text"], line);
    assert_eq!(json["index_lines"][0]["title"], "Infra: Databases");
    assert_eq!(json["index_lines"][0]["hook"], "Databases");
    assert!(!d.join("memory/memory-infra-databases.md").exists());
    let done = topics(d, &["--topic-lines", "7", "compact"]).ok();
    assert!(done.contains(&format!("MEMORY.md: added {line}")), "{done}");
    let index = std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap();
    assert!(index.lines().any(|l| l == line), "{index}");
}

#[test]
fn check_reports_nearly_equal_cjk_topics_and_recall_gives_each_hit_its_score_best_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("memory")).unwrap();
    std::fs::write(
        d.join("memory/MEMORY.md"),
        "- [基础设施](memory-a.md) — 主机、数据库和备份\n- [基础设施](memory-b.md) — 主机、数据库、备份\n- [数据库迁移](memory-c.md) — 步骤和回滚\n",
    )
    .unwrap();
    for name in ["memory-a.md", "memory-b.md", "memory-c.md"] {
        std::fs::write(d.join("memory").join(name), "- 2026-07-01: a fact\n").unwrap();
    }
    let out = run(command(d).args(["--root", "memory", "--json", "topics", "check"]));
    assert_eq!(out.code, 4, "{out:?}");
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let near: Vec<(String, u64, String)> = json["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "near_duplicate_topics")
        .map(|v| {
            (
                v["file"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
                v["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(near.len(), 1, "{json}");
    assert_eq!((near[0].0.as_str(), near[0].1), ("MEMORY.md", 2));
    assert!(
        near[0].2.contains("(line 1; 7 of 9 words alike)"),
        "{}",
        near[0].2
    );
    // Recall's hits carry their score, best first, each in (0, 1].
    let hits =
        run(command(d).args(["--root", "memory", "--json", "topics", "recall", "数据库"])).json();
    let scores: Vec<f64> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores.len(), 3, "{hits}");
    assert!(scores.iter().all(|s| *s > 0.0 && *s <= 1.0), "{scores:?}");
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}
