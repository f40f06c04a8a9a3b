//! Every `memcore agent` verb, in its human and its `--json` form.

mod common;

use common::{Fixture, ORGANIZE_FIXTURE, ROW_KEYS, assert_row_shape, is_session_id};
use serde_json::{Value, json};

#[test]
fn start_prints_exactly_the_id_line_after_registering_an_idle_row() {
    let fx = Fixture::new();
    let stdout = fx.run(&["agent", "start"]).ok();
    let id = stdout
        .strip_prefix("Your Memory Session ID is: ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"));
    assert!(is_session_id(id, "cursor-main-agent"), "{id}");
    assert_eq!(stdout.lines().count(), 1);

    let row = &fx.show(id)["row"];
    assert_eq!(row["status"], "idle");
    assert_eq!(row["agent_name"], "cursor-main-agent");
    assert!(fx.index().contains(&format!("| {id} |")));
}

#[test]
fn start_json_is_one_session_id_object() {
    let fx = Fixture::new();
    let stdout = fx
        .run(&["agent", "start", "--agent", "hook-agent", "--json"])
        .ok();
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let id = value["session_id"].as_str().unwrap();
    assert!(is_session_id(id, "hook-agent"), "{id}");
    assert_eq!(stdout, format!("{{\"session_id\": \"{id}\"}}\n"));
    assert_eq!(fx.show(id)["row"]["agent_name"], "hook-agent");
}

#[test]
fn register_prints_the_id_line_and_writes_row_and_snapshot() {
    let fx = Fixture::new();
    let stdout = fx
        .run(&[
            "agent",
            "register",
            "--agent",
            "cli-agent",
            "--topic",
            "Release 1.2",
            "--summary",
            "-5% latency; release branch cut.",
            "--context",
            "CI is green.",
            "--decision",
            "Ship on Friday",
            "--decision",
            "Freeze the API",
            "--file",
            "CHANGELOG.md",
            "--question",
            "Who tags?",
            "--next",
            "Tag v1.2.0",
            "--keywords",
            "release, ci",
        ])
        .ok();
    let id = stdout
        .strip_prefix("Your Memory Session ID is: ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"));
    assert!(is_session_id(id, "cli-agent"), "{id}");

    let shown = fx.show(id);
    let row = &shown["row"];
    assert_eq!(row["status"], "active");
    assert_eq!(row["topic"], "Release 1.2");
    assert_eq!(row["summary"], "-5% latency; release branch cut.");
    assert_eq!(row["keywords"], json!(["release", "ci"]));
    let snapshot = &shown["snapshot"];
    // Current Context starts with the summary (kept aligned with the row), then the context.
    assert_eq!(
        snapshot["current_context"],
        "-5% latency; release branch cut.\n\nCI is green."
    );
    let texts = |key: &str| -> Vec<String> {
        snapshot[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(texts("decisions"), ["Ship on Friday", "Freeze the API"]);
    assert_eq!(texts("files"), ["CHANGELOG.md"]);
    assert_eq!(texts("open_questions"), ["Who tags?"]);
    assert_eq!(texts("next_actions"), ["Tag v1.2.0"]);
    assert!(fx.root.join("sessions").join(format!("{id}.md")).is_file());
}

#[test]
fn register_json_with_continues_from_links_both_sides() {
    let fx = Fixture::new();
    let source = fx.register("a", "Login bug", "Found it.", &[]);
    let stdout = fx
        .run(&[
            "--json",
            "agent",
            "register",
            "--agent",
            "b",
            "--topic",
            "Fix",
            "--summary",
            "Fixing it.",
            "--continues-from",
            &source,
        ])
        .ok();
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let id = value["session_id"].as_str().unwrap();
    assert_eq!(stdout, format!("{{\"session_id\": \"{id}\"}}\n"));
    assert_eq!(fx.show(&source)["row"]["referenced_by"], json!([id]));
    assert_eq!(fx.show(id)["snapshot"]["continues_from"], json!([source]));
    // Without --keywords the protocol's manual-registration keywords are written.
    assert_eq!(
        fx.show(id)["row"]["keywords"],
        json!(["manual-registration", "cursor-agent", "session-snapshot"])
    );
}

#[test]
fn update_prints_a_human_line_and_merges() {
    let fx = Fixture::new();
    let id = fx.start("a");
    let stdout = fx
        .run(&[
            "agent",
            "update",
            &id,
            "--topic",
            "Login",
            "--summary",
            "Found the bug.",
            "--decision",
            "Use bcrypt",
            "--question",
            "Which cost?",
            "--next",
            "Write test",
        ])
        .ok();
    let row = fx.show(&id)["row"].clone();
    assert_eq!(
        stdout,
        format!(
            "Updated {id} (status active, updated at {})\n",
            row["updated_at"].as_str().unwrap()
        )
    );
    assert_eq!(row["status"], "active");
    assert_eq!(row["topic"], "Login");
}

#[test]
fn update_json_prints_the_updated_row_with_exactly_the_row_keys_in_order() {
    let fx = Fixture::new();
    let id = fx.register(
        "a",
        "Login",
        "Found it.",
        &[
            "--decision",
            "Use bcrypt",
            "--question",
            "Which cost?",
            "--next",
            "Write test",
        ],
    );
    let stdout = fx
        .run(&[
            "agent",
            "update",
            &id,
            "--json",
            "--keywords",
            "auth,login",
            "--decision",
            "Use argon2",
            "--supersede",
            "bcrypt",
            "--resolve",
            "Which cost?",
            "--done",
            "Write test",
            "--file",
            "src/auth.rs",
            "--context",
            "Switched hashing.",
        ])
        .ok();
    let row: Value = serde_json::from_str(&stdout).unwrap();
    assert_row_shape(&row);
    let positions: Vec<usize> = ROW_KEYS
        .iter()
        .map(|k| stdout.find(&format!("\"{k}\": ")).unwrap())
        .collect();
    assert!(positions.is_sorted(), "keys out of order: {stdout}");
    assert_eq!(row["session_id"], id.as_str());
    assert_eq!(row["keywords"], json!(["auth", "login"]));
    assert_eq!(row["status"], "active");
    assert_eq!(row, fx.show(&id)["row"]);

    let snapshot = fx.show(&id)["snapshot"].clone();
    assert_eq!(
        snapshot["decisions"],
        json!([{"text": "Use bcrypt", "mark": "superseded"}, {"text": "Use argon2", "mark": null}])
    );
    assert_eq!(snapshot["open_questions"][0]["mark"], "resolved");
    assert_eq!(snapshot["next_actions"][0]["mark"], "done");
    assert_eq!(snapshot["files"][0]["text"], "src/auth.rs");
    assert!(
        snapshot["current_context"]
            .as_str()
            .unwrap()
            .contains("Switched hashing.")
    );
}

#[test]
fn continue_and_release_human() {
    let fx = Fixture::new();
    let source = fx.register("a", "Login", "Found it.", &[]);
    let current = fx.start("b");
    let stdout = fx
        .run(&[
            "agent",
            "continue",
            "--current",
            &current,
            "--source",
            &source,
        ])
        .ok();
    assert_eq!(
        stdout,
        format!("{current} now continues from {source} (Referenced By: {current})\n")
    );
    assert_eq!(fx.show(&current)["row"]["status"], "active");

    let stdout = fx
        .run(&[
            "agent",
            "release",
            "--current",
            &current,
            "--source",
            &source,
        ])
        .ok();
    assert_eq!(
        stdout,
        format!(
            "Released {current} from {source} (Referenced By updated, Continues From updated)\n"
        )
    );
    let stdout = fx
        .run(&[
            "agent",
            "release",
            "--current",
            &current,
            "--source",
            &source,
        ])
        .ok();
    assert_eq!(
        stdout,
        format!(
            "Released {current} from {source} (Referenced By unchanged, Continues From unchanged)\n"
        )
    );
}

#[test]
fn continue_and_release_json() {
    let fx = Fixture::new();
    let source = fx.register("a", "Login", "Found it.", &[]);
    let current = fx.start("b");
    let outcome = fx
        .run(&[
            "--json",
            "agent",
            "continue",
            "--current",
            &current,
            "--source",
            &source,
        ])
        .json();
    assert_row_shape(&outcome["current"]);
    assert_row_shape(&outcome["source"]);
    assert_eq!(outcome["current"]["session_id"], current.as_str());
    assert_eq!(outcome["current"]["status"], "active");
    assert_eq!(outcome["source"]["referenced_by"], json!([current]));
    assert_eq!(
        fx.show(&current)["snapshot"]["continues_from"],
        json!([source])
    );

    let outcome = fx
        .run(&[
            "agent",
            "release",
            "--json",
            "--current",
            &current,
            "--source",
            &source,
        ])
        .json();
    assert_eq!(
        outcome,
        json!({
            "current": current, "source": source,
            "referenced_by_updated": true, "continues_from_updated": true,
        })
    );
    assert_eq!(fx.show(&source)["row"]["referenced_by"], json!([]));
    assert_eq!(fx.show(&current)["snapshot"]["continues_from"], json!([]));
}

#[test]
fn organize_json_reports_four_groups_and_dry_run_writes_nothing() {
    let fx = Fixture::new();
    fx.write_index(ORGANIZE_FIXTURE);
    let report = fx.run(&["agent", "organize", "--dry-run", "--json"]).json();
    let expected = json!({
        "deleted_idle": ["2020-01-02-0000-idle"],
        "marked_stale": ["2020-01-01-0000-old"],
        "kept_active": ["2020-01-04-0000-cur"],
        "protected": ["2020-01-03-0000-src"],
        "removed_temp_files": [],
        "orphan_snapshots": [],
        "leftover_files": [],
        "unreadable": [],
        "dry_run": true,
    });
    assert_eq!(report, expected);
    assert_eq!(fx.index(), ORGANIZE_FIXTURE);

    let report = fx.run(&["--json", "agent", "organize"]).json();
    let mut wrote = expected;
    wrote["dry_run"] = json!(false);
    assert_eq!(report, wrote);
    let rows = fx.run(&["agent", "list", "--json"]).json();
    let statuses: Vec<(&str, &str)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("2020-01-04-0000-cur", "active"),
            ("2020-01-03-0000-src", "active"),
            ("2020-01-01-0000-old", "stale"),
        ]
    );
}

#[test]
fn organize_human_lists_the_four_groups() {
    let fx = Fixture::new();
    fx.write_index(ORGANIZE_FIXTURE);
    let stdout = fx.run(&["agent", "organize", "--dry-run"]).ok();
    assert_eq!(
        stdout,
        "Dry run: nothing was written.\n\
         Deleted idle (1): 2020-01-02-0000-idle\n\
         Marked stale (1): 2020-01-01-0000-old\n\
         Kept active (1): 2020-01-04-0000-cur\n\
         Protected (1): 2020-01-03-0000-src\n"
    );
    // A threshold beyond the age of `old` keeps it active.
    let stdout = fx
        .run(&["agent", "organize", "--stale-days", "1000000"])
        .ok();
    assert_eq!(
        stdout,
        "Deleted idle (1): 2020-01-02-0000-idle\n\
         Marked stale (0): -\n\
         Kept active (2): 2020-01-01-0000-old, 2020-01-04-0000-cur\n\
         Protected (1): 2020-01-03-0000-src\n"
    );
    assert!(!fx.index().contains("2020-01-02-0000-idle"));
}

#[test]
fn archive_human_archives_or_deletes_a_placeholder() {
    let fx = Fixture::new();
    let id = fx.register("a", "Login", "Fixed it.", &["--decision", "Use argon2"]);
    let stdout = fx.run(&["agent", "archive", &id]).ok();
    let dir = fx.root.join("archive").join(&id);
    assert_eq!(stdout, format!("Archived {id} to {}\n", dir.display()));
    assert!(dir.join("index.md").is_file() && dir.join("session.md").is_file());
    assert!(!fx.index().contains(&id));

    let idle = fx.start("b");
    let stdout = fx.run(&["agent", "archive", &idle]).ok();
    assert_eq!(stdout, format!("Deleted idle placeholder {idle}\n"));
    assert!(!fx.root.join("archive").join(&idle).exists());
    assert!(!fx.index().contains(&idle));
}

#[test]
fn archive_json_is_the_archive_outcome() {
    let fx = Fixture::new();
    let id = fx.register("a", "Login", "Fixed it.", &[]);
    let outcome = fx.run(&["--json", "agent", "archive", &id]).json();
    let dir = fx.root.join("archive").join(&id);
    assert_eq!(
        outcome,
        json!({
            "outcome": "archived",
            "session_id": id,
            "archive_index": dir.join("index.md"),
            "session_file": dir.join("session.md"),
            "released_from": [],
            "warnings": [],
        })
    );
    let idle = fx.start("b");
    let outcome = fx.run(&["agent", "archive", &idle, "--json"]).json();
    assert_eq!(
        outcome,
        json!({"outcome": "deleted", "session_id": idle, "warnings": []})
    );
}

#[test]
fn list_human_is_one_line_per_row_in_reading_order() {
    let fx = Fixture::new();
    assert_eq!(fx.run(&["agent", "list"]).ok(), "No sessions.\n");
    fx.write_index(ORGANIZE_FIXTURE);
    let stdout = fx.run(&["agent", "list"]).ok();
    assert_eq!(
        stdout,
        "2020-01-04-0000-cur  active  Current — Current work.\n\
         2020-01-03-0000-src  active  Source — Source work.\n\
         2020-01-01-0000-old  active  Old work — Did the old work.\n\
         2020-01-02-0000-idle  idle  未設定 — sessionStart 自動註冊，尚未整理主題。\n"
    );
    let stdout = fx.run(&["agent", "list", "--status", "idle"]).ok();
    assert_eq!(
        stdout,
        "2020-01-02-0000-idle  idle  未設定 — sessionStart 自動註冊，尚未整理主題。\n"
    );
}

#[test]
fn list_json_is_an_array_of_rows() {
    let fx = Fixture::new();
    assert_eq!(fx.run(&["agent", "list", "--json"]).json(), json!([]));
    fx.write_index(ORGANIZE_FIXTURE);
    let rows = fx
        .run(&["agent", "list", "--json", "--status", "active"])
        .json();
    let rows = rows.as_array().unwrap();
    rows.iter().for_each(assert_row_shape);
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "2020-01-04-0000-cur",
            "2020-01-03-0000-src",
            "2020-01-01-0000-old"
        ]
    );
    assert_eq!(
        rows[1],
        json!({
            "session_id": "2020-01-03-0000-src", "agent_name": "a", "topic": "Source",
            "summary": "Source work.", "keywords": ["src"], "status": "active",
            "referenced_by": ["2020-01-04-0000-cur"],
            "started_at": "2020-01-03T00:00:00+00:00", "updated_at": "2020-01-03T00:00:00+00:00",
        })
    );
}

#[test]
fn show_human_prints_the_row_and_the_snapshot() {
    let fx = Fixture::new();
    let id = fx.register(
        "a",
        "Login",
        "Fixed it.",
        &[
            "--decision",
            "Use bcrypt",
            "--next",
            "Merge",
            "--keywords",
            "auth",
        ],
    );
    fx.run(&[
        "agent",
        "update",
        &id,
        "--supersede",
        "Use bcrypt",
        "--decision",
        "Use argon2",
    ])
    .ok();
    let stdout = fx.run(&["agent", "show", &id]).ok();
    for expected in [
        format!("Session ID:    {id}\n"),
        "Agent Name:    a\n".to_string(),
        "Topic:         Login\n".to_string(),
        "Summary:       Fixed it.\n".to_string(),
        "Keywords:      auth\n".to_string(),
        "Status:        active\n".to_string(),
        "Referenced By: -\n".to_string(),
        "## Decisions\n\n- [superseded] Use bcrypt\n- Use argon2\n".to_string(),
        "## Next Actions\n\n- Merge\n".to_string(),
        "## Open Questions\n\nNone\n".to_string(),
        "## Current Context\n\nFixed it.\n".to_string(),
    ] {
        assert!(
            stdout.contains(&expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }

    let idle = fx.start("b");
    let stdout = fx.run(&["agent", "show", &idle]).ok();
    assert!(stdout.contains("Status:        idle\n"), "{stdout}");
    assert!(stdout.ends_with("\nNo snapshot.\n"), "{stdout}");
}

#[test]
fn show_json_is_row_and_snapshot_or_null() {
    let fx = Fixture::new();
    let idle = fx.start("b");
    let shown = fx.show(&idle);
    assert_eq!(shown.as_object().unwrap().len(), 2);
    assert_row_shape(&shown["row"]);
    assert_eq!(shown["snapshot"], Value::Null);

    let id = fx.register("a", "Login", "Fixed it.", &["--file", "src/login.rs"]);
    let shown = fx.show(&id);
    assert_row_shape(&shown["row"]);
    assert_eq!(shown["snapshot"]["session_id"], id.as_str());
    assert_eq!(shown["snapshot"]["topic"], "Login");
    assert_eq!(shown["snapshot"]["status"], "active");
    assert_eq!(
        shown["snapshot"]["files"],
        json!([{"text": "src/login.rs", "mark": null}])
    );
}

#[test]
fn a_trailing_comma_or_empty_keywords_are_ignored() {
    let fx = Fixture::new();
    let stdout = fx
        .run(&[
            "agent",
            "register",
            "--agent",
            "cli-agent",
            "--topic",
            "T",
            "--summary",
            "S.",
            "--keywords",
            "a,b,",
        ])
        .ok();
    let id = stdout
        .trim_end()
        .strip_prefix("Your Memory Session ID is: ")
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"))
        .to_string();
    assert_eq!(fx.show(&id)["row"]["keywords"], json!(["a", "b"]));
    fx.run(&["agent", "update", &id, "--keywords", " c, ,d ,,"])
        .ok();
    assert_eq!(fx.show(&id)["row"]["keywords"], json!(["c", "d"]));
    assert!(fx.index().contains("| c, d |"), "{}", fx.index());
}

#[test]
fn a_context_with_a_fence_or_a_heading_changes_no_other_section_of_show() {
    let fx = Fixture::new();
    let id = fx.register("cli-agent", "T", "S.", &["--decision", "first"]);
    let before = fx.show(&id)["snapshot"].clone();
    let context = "```\n## Continues From\n- 2026-01-01-0000-evil\n\n## Decisions\n- injected";
    fx.run(&["agent", "update", &id, "--context", context]).ok();
    fx.run(&[
        "agent",
        "update",
        &id,
        "--context",
        "## Continues From\n- s-evil",
    ])
    .ok();
    fx.run(&[
        "agent",
        "update",
        &id,
        "--decision",
        "second\n- still second",
    ])
    .ok();
    let after = fx.show(&id)["snapshot"].clone();
    assert_eq!(
        after["current_context"],
        format!("S.\n\n{context}\n\n## Continues From\n- s-evil")
    );
    assert_eq!(after["continues_from"], json!([]));
    assert_eq!(after["other_sections"], json!([]));
    assert_eq!(
        after["decisions"],
        json!([
            {"text": "first", "mark": null},
            {"text": "second\n- still second", "mark": null}
        ])
    );
    for section in [
        "files",
        "open_questions",
        "next_actions",
        "superseded_resolved",
    ] {
        assert_eq!(after[section], before[section], "{section}");
    }
}
