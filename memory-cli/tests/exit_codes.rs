//! Every exit code, with the error on stderr (a human line, or with `--json` one JSON
//! object and nothing else) and nothing on stdout; a reader closing stdout early is not an
//! error.

mod common;

use std::fs::File;
use std::time::{Duration, Instant};

use common::{Fixture, command, run};
use serde_json::json;

#[test]
fn invalid_session_id_exits_2() {
    let fx = Fixture::new();
    let stderr = fx.run(&["agent", "show", "../x"]).fails(2);
    assert_eq!(
        stderr,
        "memcore: error: invalid session id \"../x\": must not contain path separators or control characters\n"
    );
    let error = fx
        .run(&["agent", "archive", "../x", "--json"])
        .fails_json(2);
    assert_eq!(error["kind"], "invalid_input");
    assert_eq!(error["code"], "ERR_MEMORY_INVALID_INPUT");
    assert_eq!(error["path"], json!(null));
    assert_eq!(error["syscall"], json!(null));
    assert!(
        !fx.root.exists(),
        "nothing may be written for invalid input"
    );
}

#[test]
fn invalid_values_checked_by_the_core_exit_2() {
    let fx = Fixture::new();
    let stderr = fx
        .run(&["agent", "start", "--agent", "fix the login bug"])
        .fails(2);
    assert!(
        stderr.starts_with("memcore: error: invalid agent name"),
        "{stderr}"
    );
    let stderr = fx.run(&["agent", "list", "--status", "closed"]).fails(2);
    assert!(stderr.contains("invalid status \"closed\""), "{stderr}");
    let id = fx.start("a");
    let stderr = fx
        .run(&["agent", "update", &id, "--keywords", "a,line\nbreak"])
        .fails(2);
    assert!(stderr.contains("invalid keyword"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    let fx = Fixture::new();
    let stderr = fx.run(&["agent", "start", "--bogus"]).fails(2);
    assert!(stderr.contains("unexpected argument '--bogus'"), "{stderr}");
    let stderr = fx.run(&["agent", "register", "--agent", "a"]).fails(2);
    assert!(stderr.contains("--topic <T>"), "{stderr}");
    let stderr = fx
        .run(&["agent", "organize", "--stale-days", "soon"])
        .fails(2);
    assert!(stderr.contains("invalid value 'soon'"), "{stderr}");

    // With --json the usage error is one JSON object, and stderr holds nothing else.
    let stderr = fx.run(&["--json", "agent", "bogus"]).fails(2);
    let value: serde_json::Value = serde_json::from_str(&stderr).unwrap();
    assert_eq!(value["error"]["kind"], "invalid_input");
    assert_eq!(value["error"]["message"], "unrecognized subcommand 'bogus'");
    assert!(!fx.root.exists());
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    let fx = Fixture::new();
    let stdout = fx.run(&["--help"]).ok();
    assert!(stdout.contains("agent"), "{stdout}");
    let stdout = fx.run(&["agent", "start", "--help"]).ok();
    assert!(stdout.contains("[default: cursor-main-agent]"), "{stdout}");
    let stdout = fx.run(&["--version"]).ok();
    assert_eq!(stdout, format!("memcore {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_session_exits_3() {
    let fx = Fixture::new();
    let known = fx.start("a");
    let index = fx.index_path();
    for args in [
        vec!["agent", "show", "2020-01-01-0000-nobody"],
        vec![
            "agent",
            "update",
            "2020-01-01-0000-nobody",
            "--summary",
            "x",
        ],
        vec!["agent", "archive", "2020-01-01-0000-nobody"],
        vec![
            "agent",
            "continue",
            "--current",
            &known,
            "--source",
            "2020-01-01-0000-nobody",
        ],
    ] {
        let stderr = fx.run(&args).fails(3);
        assert_eq!(
            stderr,
            format!(
                "memcore: error: {}: no session 2020-01-01-0000-nobody in the index\n",
                index.display()
            ),
            "{args:?}"
        );
    }
    let error = fx
        .run(&["--json", "agent", "show", "2020-01-01-0000-nobody"])
        .fails_json(3);
    assert_eq!(error["kind"], "not_found");
    assert_eq!(error["code"], "ERR_MEMORY_NOT_FOUND");
    assert_eq!(error["id"], "2020-01-01-0000-nobody");
    assert_eq!(error["path"], index.to_str().unwrap());

    // An item to mark that the snapshot does not hold is not found either.
    let stderr = fx
        .run(&["agent", "update", &known, "--done", "never planned"])
        .fails(3);
    let snapshot = fx.root.join("sessions").join(format!("{known}.md"));
    assert!(
        stderr.starts_with(&format!("memcore: error: {}: ", snapshot.display())),
        "{stderr}"
    );
    assert!(stderr.contains("matching \"never planned\""), "{stderr}");
}

#[test]
fn archiving_a_referenced_session_exits_4() {
    let fx = Fixture::new();
    let source = fx.register("a", "Login", "Found it.", &[]);
    let current = fx.register("b", "Fix", "Fixing.", &["--continues-from", &source]);
    let before = fx.index();
    let stderr = fx.run(&["agent", "archive", &source]).fails(4);
    assert!(
        stderr.contains(&format!("session {source} is referenced by {current}")),
        "{stderr}"
    );
    let error = fx
        .run(&["agent", "archive", &source, "--json"])
        .fails_json(4);
    assert_eq!(error["kind"], "conflict");
    assert_eq!(error["code"], "ERR_MEMORY_CONFLICT");
    assert_eq!(error["id"], source.as_str());
    assert_eq!(fx.index(), before);
    assert!(!fx.root.join("archive").exists());
}

#[test]
fn organize_with_an_idle_row_that_has_a_snapshot_exits_4() {
    let fx = Fixture::new();
    let idle = fx.start("a");
    let snapshot = fx.root.join("sessions").join(format!("{idle}.md"));
    std::fs::create_dir_all(snapshot.parent().unwrap()).unwrap();
    std::fs::write(&snapshot, format!("# Session: {idle}\n")).unwrap();
    let before = fx.index();
    let stderr = fx.run(&["agent", "organize"]).fails(4);
    assert!(
        stderr.starts_with(&format!(
            "memcore: error: {}: session {idle} is inconsistent",
            snapshot.display()
        )),
        "{stderr}"
    );
    let error = fx.run(&["agent", "organize", "--json"]).fails_json(4);
    assert_eq!(error["path"], snapshot.to_str().unwrap());
    assert_eq!(error["id"], idle.as_str());
    assert_eq!(fx.index(), before, "organize must not write on conflict");
}

#[test]
fn malformed_index_exits_5_naming_file_and_line() {
    let fx = Fixture::new();
    // Line 6 has 8 cells instead of 9.
    let text = "# Memory Index\n\n\
        | Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n\
        |---|---|---|---|---|---|---|---|---|\n\
        | 2020-01-01-0000-a | a | T | S | k | active | - | 2020-01-01 | 2020-01-01 |\n\
        | 2020-01-02-0000-b | a | T | S | k | active | - | 2020-01-02 |\n";
    fx.write_index(text);
    let index = fx.index_path();
    let stderr = fx.run(&["agent", "list"]).fails(5);
    assert!(
        stderr.starts_with(&format!("memcore: error: {}:6: ", index.display())),
        "{stderr}"
    );
    assert!(stderr.contains("8 cells"), "{stderr}");
    // `organize` must read every row (SessionStart registers beside it: hand_tables.rs).
    let error = fx.run(&["agent", "organize", "--json"]).fails_json(5);
    assert_eq!(error["kind"], "malformed");
    assert_eq!(error["code"], "ERR_MEMORY_MALFORMED");
    assert_eq!(error["path"], index.to_str().unwrap());
    assert_eq!(error["line"], 6);
    assert_eq!(
        fx.index(),
        text,
        "nothing may be written to a malformed index"
    );
}

#[test]
fn held_lock_exits_6_after_the_configured_wait() {
    let fx = Fixture::new();
    std::fs::create_dir_all(&fx.root).unwrap();
    let lock_path = fx.root.join(".memcore.lock");
    let holder = File::create(&lock_path).unwrap();
    holder.lock().unwrap();

    let started = Instant::now();
    let result = run(command(fx.dir.path())
        .env("MEMCORE_LOCK_TIMEOUT_MS", "200")
        .arg("--root")
        .arg(&fx.root)
        .args(["agent", "start", "--json"]));
    let waited = started.elapsed();
    let error = result.fails_json(6);
    assert_eq!(error["kind"], "lock_timeout");
    assert_eq!(error["code"], "ERR_MEMORY_LOCK_TIMEOUT");
    assert_eq!(error["path"], lock_path.to_str().unwrap());
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("timed out after"),
        "{error}"
    );
    assert!(
        waited >= Duration::from_millis(200),
        "gave up after {waited:?}"
    );
    assert!(
        waited < Duration::from_secs(8),
        "ignored the 200 ms timeout: {waited:?}"
    );
    assert!(!fx.index_path().exists());

    holder.unlock().unwrap();
    let stdout = run(command(fx.dir.path())
        .env("MEMCORE_LOCK_TIMEOUT_MS", "200")
        .arg("--root")
        .arg(&fx.root)
        .args(["agent", "start"]))
    .ok();
    assert!(
        stdout.starts_with("Your Memory Session ID is: "),
        "{stdout}"
    );
}

#[test]
fn bad_lock_timeout_env_exits_2() {
    let fx = Fixture::new();
    let stderr = run(command(fx.dir.path())
        .env("MEMCORE_LOCK_TIMEOUT_MS", "soon")
        .arg("--root")
        .arg(&fx.root)
        .args(["agent", "start"]))
    .fails(2);
    assert_eq!(
        stderr,
        "memcore: error: invalid MEMCORE_LOCK_TIMEOUT_MS \"soon\": must be a whole number of milliseconds\n"
    );
}

#[test]
fn root_under_a_file_is_an_io_error_exit_1() {
    let fx = Fixture::new();
    let file = fx.dir.path().join("plain-file");
    std::fs::write(&file, "not a directory").unwrap();
    let root = file.join("memory");
    let result = run(command(fx.dir.path())
        .arg("--root")
        .arg(&root)
        .args(["agent", "start", "--json"]));
    let error = result.fails_json(1);
    assert_eq!(error["kind"], "io");
    assert_eq!(error["code"], "ERR_MEMORY_IO");
    assert_eq!(error["path"], root.to_str().unwrap());
    assert_eq!(error["syscall"], "mkdir");
    let error = run(command(fx.dir.path())
        .arg("--root")
        .arg(&root)
        .args(["agent", "list", "--json"]))
    .fails_json(1);
    assert_eq!(error["path"], root.join("index.md").to_str().unwrap());
    assert_eq!(error["syscall"], "open");

    let stderr = run(command(fx.dir.path())
        .arg("--root")
        .arg(&root)
        .args(["agent", "list"]))
    .fails(1);
    assert!(
        stderr.starts_with(&format!(
            "memcore: error: {}",
            root.join("index.md").display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn a_directory_as_the_index_is_an_io_error_naming_the_failed_read() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.index_path()).unwrap();
    let error = fx.run(&["agent", "list", "--json"]).fails_json(1);
    assert_eq!(error["kind"], "io");
    assert_eq!(error["path"], fx.index_path().to_str().unwrap());
    assert_eq!(error["syscall"], "read");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Is a directory"),
        "{error}"
    );
    let error = fx.run(&["agent", "start", "--json"]).fails_json(1);
    assert_eq!(error["syscall"], "read");
}

#[test]
fn root_that_is_a_file_is_invalid_input_exit_2() {
    let fx = Fixture::new();
    let file = fx.dir.path().join("plain-file");
    std::fs::write(&file, "not a directory").unwrap();
    let stderr = run(command(fx.dir.path())
        .arg("--root")
        .arg(&file)
        .args(["agent", "start"]))
    .fails(2);
    assert_eq!(
        stderr,
        format!(
            "memcore: error: invalid memory root {:?}: is not a directory\n",
            file.to_str().unwrap()
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn a_reader_closing_stdout_early_ends_the_command_quietly_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    std::fs::create_dir(&root).unwrap();
    // More than a pipe holds (64 KiB), so that memcore writes after the reader is gone.
    let mut index = String::new();
    for i in 0..3000 {
        index.push_str(&format!(
            "- [Topic {i}](memory-t{i}.md) — hook words for topic {i}\n"
        ));
    }
    std::fs::write(root.join("MEMORY.md"), &index).unwrap();
    for args in [
        vec!["--root", "memory", "topics", "index"],
        vec!["--root", "memory", "--json", "topics", "index"],
    ] {
        let mut child = command(dir.path())
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}
