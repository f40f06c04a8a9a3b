//! The SessionStart hook on hand-kept indexes: it registers beside a malformed row of
//! another session (exit 0, the id printed, a warning naming the line on stderr, the bad
//! row byte-identical), while commands that read every row keep failing typed.

mod common;

use common::{Fixture, is_session_id};

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";
const GOOD: &str = "| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n";

/// Bad rows of every row-level kind, each as line 4 of the index.
const BAD_ROWS: [(&str, &str); 5] = [
    (
        "| s-2 | a | T | S | k | closed | - | 2026-05-01 | 2026-05-01 |",
        "closed",
    ),
    (
        "| s-2 | a | T | S | k | idle | - | last tuesday | 2026-05-01 |",
        "last tuesday",
    ),
    ("| s-2 | a | T | S |", "4 cells"),
    (
        "| ../x | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |",
        "../x",
    ),
    (
        "| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |",
        "duplicate",
    ),
];

#[test]
fn start_registers_beside_a_malformed_row_and_warns_naming_its_line() {
    for (bad, what) in BAD_ROWS {
        let fx = Fixture::new();
        let index = format!("{HEADER}{GOOD}{bad}\n");
        fx.write_index(&index);
        let run = fx.run(&["agent", "start", "--agent", "hook"]);
        assert_eq!(run.code, 0, "{bad}: {run:?}");
        let id = run
            .stdout
            .strip_prefix("Your Memory Session ID is: ")
            .and_then(|s| s.strip_suffix('\n'))
            .unwrap_or_else(|| panic!("{run:?}"));
        assert!(is_session_id(id, "hook"), "{id}");
        let warning = format!("warning: {}:4: ", fx.index_path().display());
        assert!(run.stderr.starts_with(&warning), "{bad}: {:?}", run.stderr);
        assert!(run.stderr.contains(what), "{bad}: {:?}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{:?}", run.stderr);
        let after = fx.index();
        assert!(after.starts_with(&index), "bad row byte-identical: {after}");
        let new_row = after.strip_prefix(&index).unwrap();
        assert!(
            new_row.starts_with(&format!("| {id} | hook | ")),
            "{new_row}"
        );
        assert_eq!(new_row.lines().count(), 1);

        // Commands that interpret every row still refuse, naming the line (exit 5, or 4
        // for the duplicate-id conflict).
        let code = if what == "duplicate" { 4 } else { 5 };
        for args in [
            &["agent", "list"][..],
            &["agent", "organize"],
            &["agent", "archive", "s-1"],
        ] {
            let stderr = fx.run(args).fails(code);
            assert!(stderr.contains("index.md:4:"), "{args:?}: {stderr}");
        }
    }
}

#[test]
fn with_json_the_warning_goes_to_stderr_and_stdout_is_one_json_value() {
    let fx = Fixture::new();
    let (bad, _) = BAD_ROWS[0];
    fx.write_index(&format!("{HEADER}{GOOD}{bad}\n"));
    let run = fx.run(&["--json", "agent", "start", "--agent", "hook"]);
    assert_eq!(run.code, 0, "{run:?}");
    let value: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    assert_eq!(run.stdout.lines().count(), 1);
    assert!(is_session_id(value["session_id"].as_str().unwrap(), "hook"));
    assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
    assert!(
        run.stderr
            .starts_with(&format!("warning: {}:4: ", fx.index_path().display())),
        "{:?}",
        run.stderr
    );
}

#[test]
fn structural_problems_still_stop_start() {
    for (index, line) in [
        (format!("{HEADER}{GOOD}\n| s-2 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n"), 5),
        ("> [!note]\n> | Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n> |---|---|---|---|---|---|---|---|---|\n".to_string(), 2),
        ("| session id | topic |\n|---|---|\n".to_string(), 1),
    ] {
        let fx = Fixture::new();
        fx.write_index(&index);
        let stderr = fx.run(&["agent", "start"]).fails(5);
        assert!(stderr.contains(&format!("index.md:{line}:")), "{stderr}");
        assert_eq!(fx.index(), index, "nothing written");
    }
}

#[test]
fn a_clean_start_prints_no_warning() {
    let fx = Fixture::new();
    fx.write_index(&format!("{HEADER}{GOOD}"));
    let out = fx.run(&["agent", "start"]).ok();
    assert!(out.starts_with("Your Memory Session ID is: "));
}
