//! Runs the real `memcore` binary on temporary directories.
#![allow(dead_code)] // Each test binary uses a different part of these helpers.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The environment variables memcore reads; cleared for every run unless a test sets them.
pub const MEMCORE_ENV: [&str; 6] = [
    "MEMCORE_ROOT",
    "MEMCORE_LOCK_TIMEOUT_MS",
    "MEMCORE_INDEX_LINES",
    "MEMCORE_TOPIC_LINES",
    "MEMCORE_INDEX_BYTES",
    "MEMCORE_TOPIC_BYTES",
];

/// What one run of memcore gave.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts success and returns stdout.
    pub fn ok(self) -> String {
        assert_eq!(self.code, 0, "memcore failed: {self:?}");
        assert!(self.stderr.is_empty(), "unexpected stderr: {self:?}");
        self.stdout
    }

    /// Asserts success and parses stdout as exactly one JSON line.
    pub fn json(self) -> Value {
        let stdout = self.ok();
        assert_eq!(stdout.lines().count(), 1, "not one line: {stdout:?}");
        serde_json::from_str(&stdout).unwrap()
    }

    /// Asserts failure with `code`, nothing on stdout, and returns stderr.
    pub fn fails(self, code: i32) -> String {
        assert_eq!(self.code, code, "wrong exit code: {self:?}");
        assert!(self.stdout.is_empty(), "stdout on error: {self:?}");
        assert!(!self.stderr.is_empty());
        self.stderr
    }

    /// Asserts failure with `code` under `--json`: stderr is one JSON object and
    /// nothing else (it parses whole); returns the object's `error`.
    pub fn fails_json(self, code: i32) -> Value {
        let stderr = self.fails(code);
        assert_eq!(
            stderr.lines().count(),
            1,
            "expected one stderr line: {stderr:?}"
        );
        let value: Value = serde_json::from_str(&stderr).unwrap();
        let error = value["error"].clone();
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{stderr}"
        );
        assert!(error["kind"].as_str().is_some(), "{stderr}");
        error
    }
}

/// A memcore command running in `cwd` with memcore's environment variables cleared.
pub fn command(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memcore"));
    command.current_dir(cwd);
    for name in MEMCORE_ENV {
        command.env_remove(name);
    }
    command
}

/// Runs `command` to completion.
pub fn run(command: &mut Command) -> Run {
    let output = command.output().unwrap();
    Run {
        code: output
            .status
            .code()
            .expect("memcore was killed by a signal"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// A temporary directory with a memory root at `<dir>/mem`, passed as `--root`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("mem");
        Fixture { dir, root }
    }

    /// Runs `memcore --root <root> <args>`.
    pub fn run(&self, args: &[&str]) -> Run {
        run(command(self.dir.path())
            .arg("--root")
            .arg(&self.root)
            .args(args))
    }

    /// `agent start --agent <agent>`, returning the id.
    pub fn start(&self, agent: &str) -> String {
        let value = self
            .run(&["--json", "agent", "start", "--agent", agent])
            .json();
        value["session_id"].as_str().unwrap().to_string()
    }

    /// `agent register` with topic and summary and `extra`, returning the id.
    pub fn register(&self, agent: &str, topic: &str, summary: &str, extra: &[&str]) -> String {
        let mut args = vec![
            "--json",
            "agent",
            "register",
            "--agent",
            agent,
            "--topic",
            topic,
            "--summary",
            summary,
        ];
        args.extend_from_slice(extra);
        self.run(&args).json()["session_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `agent show --json <id>`.
    pub fn show(&self, id: &str) -> Value {
        self.run(&["agent", "show", id, "--json"]).json()
    }

    pub fn index_path(&self) -> PathBuf {
        self.root.join("index.md")
    }

    pub fn index(&self) -> String {
        std::fs::read_to_string(self.index_path()).unwrap()
    }

    /// Writes `text` as the index, creating the root.
    pub fn write_index(&self, text: &str) {
        std::fs::create_dir_all(&self.root).unwrap();
        std::fs::write(self.index_path(), text).unwrap();
    }
}

/// The keys of a JSON session row, in the order memcore prints them.
pub const ROW_KEYS: [&str; 9] = [
    "session_id",
    "agent_name",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
];

/// Asserts `row` has exactly the row keys, with list-valued keywords and references.
pub fn assert_row_shape(row: &Value) {
    let object = row.as_object().unwrap();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let mut expected = ROW_KEYS.to_vec();
    keys.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys, expected, "row keys of {row}");
    assert!(row["keywords"].is_array() && row["referenced_by"].is_array());
    for key in [
        "session_id",
        "agent_name",
        "topic",
        "summary",
        "status",
        "started_at",
        "updated_at",
    ] {
        assert!(row[key].is_string(), "{key} of {row}");
    }
}

/// Whether `id` looks like `YYYY-MM-DD-HHMM-<agent>`.
pub fn is_session_id(id: &str, agent: &str) -> bool {
    let Some(stamp) = id.strip_suffix(&format!("-{agent}")) else {
        return false;
    };
    stamp.len() == 15
        && stamp.char_indices().all(|(i, c)| {
            if [4, 7, 10].contains(&i) {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// An index with one row of each fate under `organize` (default 14 stale days):
/// `old` (active, 2020) becomes stale, `idle` is deleted, `src` is protected by
/// `cur`, and `cur` (updated in 2999) stays active.
pub const ORGANIZE_FIXTURE: &str = "# Memory Index

| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |
|---|---|---|---|---|---|---|---|---|
| 2020-01-01-0000-old | a | Old work | Did the old work. | old | active | - | 2020-01-01T00:00:00+00:00 | 2020-01-01T00:00:00+00:00 |
| 2020-01-02-0000-idle | a | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, cursor-agent | idle | - | 2020-01-02T00:00:00+00:00 | 2020-01-02T00:00:00+00:00 |
| 2020-01-03-0000-src | a | Source | Source work. | src | active | 2020-01-04-0000-cur | 2020-01-03T00:00:00+00:00 | 2020-01-03T00:00:00+00:00 |
| 2020-01-04-0000-cur | a | Current | Current work. | cur | active | - | 2020-01-04T00:00:00+00:00 | 2999-01-01T00:00:00+00:00 |
";

/// Another program that saves a memory file without memory-core's lock (an editor, a
/// sync client): a shell loop adding one line to the file every 10 ms, by rename or in
/// place, logging each line once it is saved.
pub mod foreign {
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    /// The shell loop, killed when dropped so a failed assertion never leaves it running
    /// after the test (its temp directory gone, it would spin forever).
    pub struct ForeignWriter {
        child: Child,
        work: PathBuf,
    }

    impl ForeignWriter {
        /// Starts saving `file`, each time with one more line: `line` with `$i` (the
        /// save's number) expanded by the shell. In place (`>` truncates, then printf
        /// writes), or to a temp file in `work` renamed over it. `work` (outside the
        /// memory root) holds the log, the temp file and the stop flag.
        pub fn start(file: &Path, work: &Path, line: &str, in_place: bool) -> ForeignWriter {
            let save = if in_place {
                r#"c=$(cat "$F"); printf '%s\n%s\n' "$c" "$line" > "$F""#
            } else {
                r#"{ cat "$F"; printf '%s\n' "$line"; } > "$W/editor.tmp" && mv "$W/editor.tmp" "$F""#
            };
            let script = format!(
                r#"i=0; while [ ! -e "$W/stop" ]; do line="{line}"; {save} && printf '%s\n' "$line" >> "$W/written.log"; i=$((i+1)); sleep 0.01; done"#
            );
            let child = Command::new("sh")
                .arg("-c")
                .arg(script)
                .env("F", file)
                .env("W", work)
                .stdin(Stdio::null())
                .spawn()
                .unwrap();
            ForeignWriter {
                child,
                work: work.to_path_buf(),
            }
        }

        /// Stops the loop after its current save and returns every line it saved.
        pub fn stop(mut self) -> Vec<String> {
            std::fs::write(self.work.join("stop"), "").unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            while self.child.try_wait().unwrap().is_none() {
                assert!(Instant::now() < deadline, "the foreign writer did not stop");
                std::thread::sleep(Duration::from_millis(10));
            }
            std::fs::read_to_string(self.work.join("written.log"))
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    impl Drop for ForeignWriter {
        fn drop(&mut self) {
            // Already exited on the normal path; killing an exited child is harmless.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
