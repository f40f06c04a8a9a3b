//! `memcore topics` budgets in the human output: a byte budget is shown beside the lines,
//! and an overage in bytes is named as bytes.

mod common;

use common::{command, run};

#[test]
fn a_byte_budget_is_shown_and_its_overage_named_in_the_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let remember = |text: &str, subject: &str| {
        run(command(dir.path()).args([
            "--root",
            "memory",
            "topics",
            "remember",
            "--topic",
            "memory-x.md",
            "--text",
            text,
            "--subject",
            subject,
            "--hook",
            "h",
            "--topic-bytes",
            "90",
        ]))
    };
    let first = remember("ünïcödé fact number one with many bytes", "one").ok();
    assert!(
        first.contains("memory-x.md: 3 of 150 lines (147 left), 69 of 90 bytes"),
        "{first}"
    );
    let second = remember("ünïcödé fact number two with many bytes", "two");
    assert_eq!(second.code, 0, "{second:?}");
    // Over by bytes, not by lines: the report says bytes, never "0 lines over".
    assert!(
        second.stdout.contains("(needs judgment: 43 bytes over)"),
        "{second:?}"
    );
    assert!(!second.stdout.contains("0 lines over"), "{second:?}");
    assert!(
        second.stderr.contains("133 of 90 bytes (43 bytes over)"),
        "{second:?}"
    );
}

/// An 11-line topic of 241 bytes (`# Net`, a blank line, nine 26-byte entries).
fn net_topic(root: &std::path::Path) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("MEMORY.md"), "- [Net](memory-net.md) — network\n").unwrap();
    let mut text = String::from("# Net\n\n");
    for i in 1..=9 {
        text.push_str(&format!("- 2026-11-0{i} [n{i}]: fact {i}\n"));
    }
    assert_eq!((text.lines().count(), text.len()), (11, 241));
    std::fs::write(root.join("memory-net.md"), text).unwrap();
}

#[test]
fn a_byte_only_overage_is_reported_at_the_line_that_passes_the_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    net_topic(&dir.path().join("memory"));
    let check = |json: bool| {
        let mut args = vec!["--root", "memory"];
        if json {
            args.push("--json");
        }
        args.extend(["topics", "--topic-bytes", "170", "check"]);
        run(command(dir.path()).args(&args))
    };
    // Lines end at bytes 6, 7, 33, 59, …, 163, 189: the 9th is the first to pass 170.
    let human = check(false);
    assert_eq!(human.code, 4, "{human:?}");
    assert!(
        human
            .stdout
            .contains("memory-net.md:9: over_budget: memory-net.md is over its budget: 11 of 150 lines, 241 of 170 bytes (71 bytes over)"),
        "{human:?}"
    );
    let json = check(true);
    assert_eq!(json.code, 4, "{json:?}");
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["violations"][0]["kind"], "over_budget");
    assert_eq!(value["violations"][0]["line"], 9, "{value}");
    // Over by lines too: the earlier of the two lines.
    let both = run(command(dir.path()).args([
        "--root",
        "memory",
        "topics",
        "--topic-bytes",
        "170",
        "--topic-lines",
        "4",
        "check",
    ]));
    assert!(
        both.stdout.contains("memory-net.md:5: over_budget"),
        "{both:?}"
    );
}

#[test]
fn the_near_warning_names_the_bytes_when_the_bytes_are_near() {
    let dir = tempfile::tempdir().unwrap();
    net_topic(&dir.path().join("memory"));
    let show = |extra: &[&str]| {
        let mut args = vec!["--root", "memory", "topics"];
        args.extend_from_slice(extra);
        args.extend(["show", "memory-net.md"]);
        run(command(dir.path()).args(&args))
    };
    let bytes = show(&["--topic-bytes", "250"]);
    assert_eq!(bytes.code, 0, "{bytes:?}");
    assert!(
        bytes.stderr.contains(
            "memory-net.md is near its byte budget: 241 of 250 bytes (9 bytes left); 11 of 150 lines"
        ),
        "{bytes:?}"
    );
    assert!(!bytes.stderr.contains("(139 left)"), "{bytes:?}");
    let lines = show(&["--topic-lines", "12"]);
    assert!(
        lines
            .stderr
            .contains("memory-net.md is near its budget: 11 of 12 lines (1 left)"),
        "{lines:?}"
    );
    let both = show(&["--topic-lines", "12", "--topic-bytes", "250"]);
    assert!(
        both.stderr.contains(
            "near its line and byte budgets: 11 of 12 lines (1 left), 241 of 250 bytes (9 bytes left)"
        ),
        "{both:?}"
    );
}

#[test]
fn an_index_over_its_byte_budget_only_is_reported_at_the_line_that_passes_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    std::fs::create_dir_all(&root).unwrap();
    // Three pointer lines of 31 bytes each (CRLF, an em dash): the second ends at byte 62,
    // the first to pass 50.
    let mut index = String::new();
    for name in ["a", "b", "c"] {
        let line = format!("- [{name}](memory-{name}.md) — hook {name}\r\n");
        index.push_str(&line);
        std::fs::write(root.join(format!("memory-{name}.md")), "- 2026-11-01: x\n").unwrap();
    }
    assert_eq!(index.len(), 93);
    std::fs::write(root.join("MEMORY.md"), &index).unwrap();
    let out = run(command(dir.path()).args([
        "--root",
        "memory",
        "--json",
        "topics",
        "--index-bytes",
        "50",
        "check",
    ]));
    assert_eq!(out.code, 4, "{out:?}");
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let over: Vec<&serde_json::Value> = value["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["kind"] == "over_budget")
        .collect();
    assert_eq!(over.len(), 1, "{value}");
    assert_eq!(
        (over[0]["file"].as_str(), over[0]["line"].as_u64()),
        (Some("MEMORY.md"), Some(2))
    );
}

/// Budgets come from their flag, else `MEMCORE_INDEX_LINES` / `MEMCORE_TOPIC_LINES` /
/// `MEMCORE_INDEX_BYTES` / `MEMCORE_TOPIC_BYTES`, else the seed's 60 and 150 lines; a
/// budget of 0 (flag or variable) and a variable that is not a number are refused
/// (exit 2, invalid input, a variable named) before anything is written.
#[test]
fn budgets_come_from_flags_then_the_environment_and_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let remember = |envs: &[(&str, &str)], flags: &[&str], subject: &str| {
        let mut c = command(d);
        c.args(["--root", "memory", "topics"]).args(flags).args([
            "remember",
            "--topic",
            "memory-x.md",
            "--text",
            "a fact",
            "--subject",
            subject,
            "--hook",
            "h",
        ]);
        for (k, v) in envs {
            c.env(k, v);
        }
        run(&mut c)
    };
    let out = remember(&[("MEMCORE_TOPIC_LINES", "40")], &[], "a").ok();
    assert!(out.contains("memory-x.md: 3 of 40 lines"), "{out}");
    let out = remember(
        &[
            ("MEMCORE_TOPIC_LINES", "40"),
            ("MEMCORE_INDEX_LINES", "5"),
            ("MEMCORE_TOPIC_BYTES", "900"),
            ("MEMCORE_INDEX_BYTES", "800"),
        ],
        &[],
        "b",
    )
    .ok();
    assert!(
        out.contains("memory-x.md: 4 of 40 lines (36 left), 55 of 900 bytes"),
        "{out}"
    );
    let index = run(command(d)
        .args(["--root", "memory", "--json", "topics", "index"])
        .env("MEMCORE_INDEX_LINES", "5")
        .env("MEMCORE_INDEX_BYTES", "800"))
    .json();
    assert_eq!(index["budget"]["line_budget"], 5, "{index}");
    assert_eq!(index["budget"]["byte_budget"], 800, "{index}");
    // The flag wins over the variable; an empty variable is unset.
    let out = remember(
        &[("MEMCORE_TOPIC_LINES", "40"), ("MEMCORE_INDEX_LINES", "")],
        &["--topic-lines", "30"],
        "c",
    )
    .ok();
    assert!(out.contains("memory-x.md: 5 of 30 lines"), "{out}");
    let index = run(command(d)
        .args(["--root", "memory", "--json", "topics", "index"])
        .env("MEMCORE_INDEX_LINES", ""))
    .json();
    assert_eq!(index["budget"]["line_budget"], 60, "{index}");
    let before = std::fs::read(d.join("memory/memory-x.md")).unwrap();
    for (envs, flags, named) in [
        (&[][..], &["--topic-lines", "0"][..], "topic_lines"),
        (&[], &["--index-lines", "0"], "index_lines"),
        (&[], &["--topic-bytes", "0"], "topic_bytes"),
        (&[], &["--index-bytes", "0"], "index_bytes"),
        (
            &[("MEMCORE_TOPIC_LINES", "0")][..],
            &[][..],
            "MEMCORE_TOPIC_LINES",
        ),
        (&[("MEMCORE_INDEX_BYTES", "0")], &[], "MEMCORE_INDEX_BYTES"),
        (
            &[("MEMCORE_TOPIC_LINES", "many")],
            &[],
            "MEMCORE_TOPIC_LINES",
        ),
        (&[("MEMCORE_INDEX_LINES", "-1")], &[], "MEMCORE_INDEX_LINES"),
    ] {
        let out = remember(envs, flags, "d");
        assert_eq!(out.code, 2, "{envs:?} {flags:?}: {out:?}");
        assert!(out.stderr.contains(named), "{out:?}");
    }
    assert_eq!(std::fs::read(d.join("memory/memory-x.md")).unwrap(), before);
    // The help names the variables.
    let help = run(command(d).args(["topics", "--help"])).ok();
    for name in [
        "$MEMCORE_INDEX_LINES",
        "$MEMCORE_TOPIC_LINES",
        "$MEMCORE_INDEX_BYTES",
        "$MEMCORE_TOPIC_BYTES",
    ] {
        assert!(help.contains(name), "{help}");
    }
}

/// `topics index` is the SessionStart hook: a budget variable that is not a budget (0,
/// not a number) must not leave the session without its index. It prints the whole
/// index with that budget's default, warns on stderr naming the variable and why, and
/// exits 0; the variables that are budgets still apply. Every other verb refuses it.
#[test]
fn topics_index_prints_the_whole_index_past_a_bad_budget_variable_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("memory")).unwrap();
    let index_text =
        "# Memory\n\n- [User](USER.md) — role, preferences\n- [Infra](memory-infra.md) — hosts\n";
    std::fs::write(d.join("memory/MEMORY.md"), index_text).unwrap();
    let index = |envs: &[(&str, &str)], json: bool| {
        let mut c = command(d);
        c.args(["--root", "memory"]);
        if json {
            c.arg("--json");
        }
        c.args(["topics", "index"]);
        for (k, v) in envs {
            c.env(k, v);
        }
        run(&mut c)
    };
    for (name, value, why) in [
        (
            "MEMCORE_INDEX_LINES",
            "0",
            "invalid MEMCORE_INDEX_LINES \"0\": must be a whole number of at least 1",
        ),
        (
            "MEMCORE_INDEX_LINES",
            "abc",
            "invalid MEMCORE_INDEX_LINES \"abc\": must be a whole number of at least 1",
        ),
        (
            "MEMCORE_TOPIC_LINES",
            "-3",
            "invalid MEMCORE_TOPIC_LINES \"-3\"",
        ),
        (
            "MEMCORE_INDEX_BYTES",
            "0",
            "invalid MEMCORE_INDEX_BYTES \"0\"",
        ),
        (
            "MEMCORE_TOPIC_BYTES",
            "1kb",
            "invalid MEMCORE_TOPIC_BYTES \"1kb\"",
        ),
        (
            "MEMCORE_LOCK_TIMEOUT_MS",
            "soon",
            "invalid MEMCORE_LOCK_TIMEOUT_MS \"soon\"",
        ),
    ] {
        let out = index(&[(name, value)], false);
        assert_eq!(out.code, 0, "{name}={value}: {out:?}");
        assert_eq!(out.stdout, index_text, "{name}={value}: the whole index");
        assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
        assert!(out.stderr.starts_with("warning: "), "{out:?}");
        assert!(out.stderr.contains(why), "{name}={value}: {out:?}");
        assert!(out.stderr.contains("ignored"), "{out:?}");
    }
    // The default stands in for the variable ignored; a good variable beside it holds.
    let out = index(
        &[("MEMCORE_INDEX_LINES", "0"), ("MEMCORE_INDEX_BYTES", "500")],
        true,
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("the default (60 lines)"), "{out:?}");
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["text"], index_text, "{value}");
    assert_eq!(value["budget"]["line_budget"], 60, "{value}");
    assert_eq!(value["budget"]["byte_budget"], 500, "{value}");
    // Every other verb refuses it, naming the variable, and writes nothing.
    for verb in [&["show", "USER.md"][..], &["check"], &["recall", "role"]] {
        let mut c = command(d);
        c.args(["--root", "memory", "topics"])
            .args(verb)
            .env("MEMCORE_INDEX_LINES", "0");
        let stderr = run(&mut c).fails(2);
        assert!(stderr.contains("MEMCORE_INDEX_LINES"), "{verb:?}: {stderr}");
    }
    let mut c = command(d);
    c.args([
        "--root", "memory", "topics", "remember", "--topic", "USER.md", "--text", "a fact",
        "--hook", "h",
    ])
    .env("MEMCORE_INDEX_LINES", "abc");
    let stderr = run(&mut c).fails(2);
    assert!(stderr.contains("MEMCORE_INDEX_LINES"), "{stderr}");
    assert!(!d.join("memory/USER.md").exists());
    assert_eq!(
        std::fs::read_to_string(d.join("memory/MEMORY.md")).unwrap(),
        index_text
    );
}
