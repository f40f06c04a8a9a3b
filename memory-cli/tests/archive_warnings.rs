//! `agent archive` beside an unreadable snapshot of another session (issue 6 §3): exit 0,
//! one `warning: <path>:<line>: <message>` line per such snapshot on stderr, with `--json`
//! the outcome's `warnings` carry them and stdout stays one JSON value; an unreadable
//! snapshot that may mention the archived session, or the session's own, still fails.

mod common;

use common::Fixture;
use serde_json::json;

/// Unreadable snapshot bytes with the line of the problem and the message's gist.
const UNREADABLE: [(&[u8], usize, &str); 3] = [
    (b"# Session\n\n\xff\xfe broken\n", 3, "not valid UTF-8"),
    (b"# Session\n\x00\x01binary", 2, "NUL byte"),
    (b"\xc3", 1, "not valid UTF-8"),
];

/// Two registered sessions, the first one's snapshot overwritten with `bytes`.
fn broken_beside_other(fx: &Fixture, bytes: &[u8]) -> (String, String, std::path::PathBuf) {
    let broken = fx.register("broken", "T", "S.", &[]);
    let other = fx.register("other", "T", "S.", &[]);
    let path = fx.root.join("sessions").join(format!("{broken}.md"));
    std::fs::write(&path, bytes).unwrap();
    (broken, other, path)
}

#[test]
fn archive_warns_naming_path_and_line_and_exits_0() {
    for (bytes, line, gist) in UNREADABLE {
        let fx = Fixture::new();
        let (broken, other, path) = broken_beside_other(&fx, bytes);
        let run = fx.run(&["agent", "archive", &other]);
        assert_eq!(run.code, 0, "{run:?}");
        let dir = fx.root.join("archive").join(&other);
        assert_eq!(
            run.stdout,
            format!("Archived {other} to {}\n", dir.display())
        );
        let expected = format!("warning: {}:{line}: ", path.display());
        assert!(run.stderr.starts_with(&expected), "{:?}", run.stderr);
        assert!(run.stderr.contains(gist), "{:?}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{:?}", run.stderr);
        assert!(!fx.index().contains(&other));
        assert!(fx.index().contains(&broken));
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "left byte-identical");
    }
}

#[test]
fn with_json_the_outcome_carries_the_warnings_and_stderr_repeats_them() {
    for (bytes, line, gist) in UNREADABLE {
        let fx = Fixture::new();
        let (_, other, path) = broken_beside_other(&fx, bytes);
        let run = fx.run(&["--json", "agent", "archive", &other]);
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.stdout.lines().count(), 1, "{:?}", run.stdout);
        let value: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
        let dir = fx.root.join("archive").join(&other);
        let message = value["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(gist), "{value}");
        assert_eq!(
            value,
            json!({
                "outcome": "archived",
                "session_id": other,
                "archive_index": dir.join("index.md"),
                "session_file": dir.join("session.md"),
                "released_from": [],
                "warnings": [{"path": path, "line": line, "message": message}],
            })
        );
        assert_eq!(
            run.stderr,
            format!("warning: {}:{line}: {message}\n", path.display())
        );
    }
}

#[test]
fn deleting_a_placeholder_warns_too() {
    let fx = Fixture::new();
    let broken = fx.register("broken", "T", "S.", &[]);
    let idle = fx.start("idle");
    let path = fx.root.join("sessions").join(format!("{broken}.md"));
    std::fs::write(&path, b"ok\n\x00").unwrap();
    let run = fx.run(&["agent", "archive", &idle]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, format!("Deleted idle placeholder {idle}\n"));
    assert!(
        run.stderr
            .starts_with(&format!("warning: {}:2: ", path.display())),
        "{:?}",
        run.stderr
    );
    let run = fx.run(&["--json", "agent", "archive", &fx.start("idle2")]);
    assert_eq!(run.code, 0, "{run:?}");
    let value: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    assert_eq!(value["outcome"], "deleted");
    assert_eq!(value["warnings"][0]["line"], 2, "{value}");
}

#[test]
fn every_unreadable_snapshot_gets_its_own_line() {
    let fx = Fixture::new();
    let a = fx.register("a", "T", "S.", &[]);
    let b = fx.register("b", "T", "S.", &[]);
    let c = fx.register("c", "T", "S.", &[]);
    for id in [&a, &b] {
        std::fs::write(fx.root.join("sessions").join(format!("{id}.md")), b"\xff").unwrap();
    }
    let run = fx.run(&["agent", "archive", &c]);
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{:?}", run.stderr);
    for (line, id) in lines.iter().zip([&a, &b]) {
        let path = fx.root.join("sessions").join(format!("{id}.md"));
        assert!(
            line.starts_with(&format!("warning: {}:1: ", path.display())),
            "{line}"
        );
    }
}

#[test]
fn the_broken_session_itself_or_one_it_may_mention_still_fails_exit_5() {
    let fx = Fixture::new();
    let (broken, other, path) = broken_beside_other(&fx, UNREADABLE[0].0);
    let before = fx.index();
    let stderr = fx.run(&["agent", "archive", &broken]).fails(5);
    assert!(
        stderr.contains(&format!("{}:3:", path.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("warning:"), "{stderr}");
    // A snapshot that names `other` beside a NUL byte may reference it: refused.
    let text = format!("# Session\n\n## Continues From\n\n- {other}\n\u{0}\n");
    std::fs::write(&path, text).unwrap();
    let stderr = fx.run(&["agent", "archive", &other]).fails(5);
    assert!(
        stderr.contains(&format!("{}:6:", path.display())),
        "{stderr}"
    );
    assert_eq!(fx.index(), before, "nothing written");
}

#[test]
fn a_clean_archive_prints_no_warning() {
    let fx = Fixture::new();
    let id = fx.register("a", "T", "S.", &[]);
    fx.register("b", "T", "S.", &[]);
    fx.run(&["agent", "archive", &id]).ok();
}
