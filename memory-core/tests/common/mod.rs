//! Helpers for the real-process tests (`concurrency.rs`, `crash.rs`).
//!
//! A test binary re-executes itself to get real child processes: the parent runs
//! `<current_exe> --exact <worker test> --nocapture --test-threads=1` with
//! [`CHILD_ENV`] naming the role the child plays and [`ROOT_ENV`] the memory root. In
//! the child, the worker `#[test]` sees the variables and does the work; in a normal
//! test run the variables are absent and the worker test returns at once.
//!
//! Children talk to the parent over pipes only: every report is one line
//! `MEMCORE> <word> <word>…` on stdout, flushed before the child goes on (so a line the
//! parent reads is a result the child had in hand). The parent releases waiting
//! children by writing `go` to their stdin. Every wait is bounded by a deadline, and a
//! [`Worker`] that is dropped unreaped is killed, so a failing test leaves no stragglers.

#![allow(dead_code)] // each test binary uses its own subset of these helpers

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Names the role a re-executed test binary plays.
pub const CHILD_ENV: &str = "MEMCORE_TEST_CHILD";
/// The memory root the child works on.
pub const ROOT_ENV: &str = "MEMCORE_TEST_ROOT";
/// Role-specific arguments, whitespace separated.
pub const ARGS_ENV: &str = "MEMCORE_TEST_ARGS";
/// The prefix of every report line.
pub const REPORT_PREFIX: &str = "MEMCORE> ";

/// What a child was asked to do, read from its environment.
#[derive(Debug, Clone)]
pub struct Role {
    /// The role name.
    pub name: String,
    /// The memory root.
    pub root: PathBuf,
    /// The role's arguments.
    pub args: Vec<String>,
}

impl Role {
    /// The role of this process, `None` in a normal test run (the worker test then has
    /// nothing to do).
    pub fn from_env() -> Option<Role> {
        let name = std::env::var(CHILD_ENV).ok()?;
        let root = PathBuf::from(std::env::var_os(ROOT_ENV).expect("worker needs a root"));
        let args = std::env::var(ARGS_ENV)
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        Some(Role { name, root, args })
    }

    /// Argument `i` parsed as `T`.
    pub fn arg<T: std::str::FromStr>(&self, i: usize) -> T
    where
        T::Err: std::fmt::Debug,
    {
        self.args[i].parse().expect("worker argument")
    }
}

/// Child side: writes one report line and flushes it before returning.
pub fn report(words: &[&str]) {
    let mut out = std::io::stdout().lock();
    // One write of a short line: it reaches the pipe whole or not at all.
    let line = format!("\n{REPORT_PREFIX}{}\n", words.join(" "));
    out.write_all(line.as_bytes()).expect("report to parent");
    out.flush().expect("flush report");
}

/// Child side: blocks until the parent writes `go` (returns `true`) or closes stdin
/// (returns `false`: the parent gave up, do nothing).
pub fn wait_for_go() -> bool {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(_) => line.trim() == "go",
        Err(_) => false,
    }
}

/// Parent side: a running child process of this test binary.
pub struct Worker {
    label: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stdout_done: bool,
    seen: Vec<String>,
    stderr: Option<JoinHandle<String>>,
    reaped: Option<ExitStatus>,
}

/// What a finished child left: its exit status, every report and its stderr.
#[derive(Debug)]
pub struct Finished {
    /// A label for messages (`role#n`).
    pub label: String,
    /// The exit status (a killed child has none of code).
    pub status: ExitStatus,
    /// Every report line, without the prefix, in order.
    pub reports: Vec<String>,
    /// The child's stderr.
    pub stderr: String,
}

impl Finished {
    /// Reports whose first word is `kind`, split into words (without `kind`).
    pub fn reports_of(&self, kind: &str) -> Vec<Vec<String>> {
        self.reports
            .iter()
            .filter_map(|r| {
                let mut words = r.split_whitespace();
                (words.next() == Some(kind)).then(|| words.map(str::to_string).collect())
            })
            .collect()
    }

    /// Panics with the child's output unless it exited successfully.
    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "{} failed with {:?}\nreports: {:#?}\nstderr:\n{}",
            self.label,
            self.status,
            self.reports,
            self.stderr
        );
    }
}

impl Worker {
    /// Starts `<this test binary> --exact <worker_test>` as role `role` on `root`.
    pub fn spawn(worker_test: &str, role: &str, root: &Path, args: &[String]) -> Worker {
        let exe = std::env::current_exe().expect("current test binary");
        let mut child = Command::new(exe)
            .args(["--exact", worker_test, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, role)
            .env(ROOT_ENV, root)
            .env(ARGS_ENV, args.join(" "))
            .env_remove("RUST_TEST_THREADS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn worker process");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout pipe");
        let mut stderr = child.stderr.take().expect("stderr pipe");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    // A line cut short by a kill has no newline: it was never reported.
                    Ok(n) if n > 0 && line.ends_with('\n') => {
                        if let Some(at) = line.find(REPORT_PREFIX) {
                            let report = line[at + REPORT_PREFIX.len()..].trim_end().to_string();
                            if tx.send(report).is_err() {
                                return;
                            }
                        }
                    }
                    _ => return,
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Worker {
            label: format!("{role}[pid {}]", child.id()),
            child,
            stdin,
            lines: rx,
            stdout_done: false,
            seen: Vec::new(),
            stderr: Some(stderr),
            reaped: None,
        }
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the child reports a line whose first word is `kind` and returns its
    /// other words. Panics (killing the child on drop) at the deadline or when the child
    /// ends first.
    pub fn wait_for(&mut self, kind: &str, deadline: Instant) -> Vec<String> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    let mut words = line.split_whitespace();
                    if words.next() == Some(kind) {
                        return words.map(str::to_string).collect();
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{}: no `{kind}` report before the deadline", self.label)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.stdout_done = true;
                    let finished = self.kill();
                    panic!(
                        "{}: ended before reporting `{kind}`: {:?}\nreports: {:#?}\nstderr:\n{}",
                        finished.label, finished.status, finished.reports, finished.stderr
                    )
                }
            }
        }
    }

    /// Releases a child waiting in [`wait_for_go`].
    pub fn go(&mut self) {
        if let Some(stdin) = self.stdin.as_mut() {
            // A child that already died shows up in its exit status; ignore the pipe error.
            let _ = stdin.write_all(b"go\n").and_then(|()| stdin.flush());
        }
    }

    /// Closes the child's stdin, waits for it to end (killing it at the deadline) and
    /// collects its reports.
    pub fn finish(mut self, deadline: Instant) -> Finished {
        self.stdin = None;
        while !self.stdout_done {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => self.stdout_done = true,
                Err(RecvTimeoutError::Timeout) => {
                    let finished = self.kill();
                    panic!(
                        "{}: still running at the deadline; killed\nreports: {:#?}\nstderr:\n{}",
                        finished.label, finished.reports, finished.stderr
                    );
                }
            }
        }
        // Stdout is closed: the process is exiting. Bound the wait anyway.
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.reaped = Some(status);
                break;
            }
            if Instant::now() >= deadline {
                let finished = self.kill();
                panic!("{}: did not exit after closing stdout", finished.label);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        self.collect()
    }

    /// Kills the child with SIGKILL (Unix), reaps it and collects every report it made.
    pub fn kill(&mut self) -> Finished {
        if self.reaped.is_none() {
            let _ = self.child.kill();
            self.reaped = Some(self.child.wait().expect("reap killed child"));
        }
        self.stdin = None;
        // The child is gone, so its stdout reaches EOF: drain what it wrote.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        self.stdout_done = true;
        self.collect()
    }

    fn collect(&mut self) -> Finished {
        let stderr = self
            .stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        Finished {
            label: self.label.clone(),
            status: self.reaped.expect("collect after reaping"),
            reports: std::mem::take(&mut self.seen),
            stderr,
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.reaped.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Every file under `root` with its bytes (directories are implied by the paths).
pub fn tree_bytes(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read file");
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
            }
        }
    }
    out
}

/// Every directory under `root` (relative, `root` itself excluded).
pub fn tree_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A memory tree as state to compare before and after an interruption: every file but
/// the lock file and dead writers' temp and backup files, and every directory (as
/// `<dir>/.<directory>` with no bytes — an interrupted operation must not leave an empty
/// directory behind).
pub fn settled_state(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut state: BTreeMap<PathBuf, Vec<u8>> = tree_bytes(root)
        .into_iter()
        .filter(|(p, _)| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name != ".memcore.lock" && !name.contains(".tmp-") && !name.contains(".bak-")
        })
        .collect();
    for dir in tree_dirs(root) {
        state.insert(dir.join(".<directory>"), Vec::new());
    }
    state
}

/// Copies every file and directory of `from` to `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for (rel, bytes) in tree_bytes(from) {
        let path = to.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("copy");
    }
    for dir in tree_dirs(from) {
        std::fs::create_dir_all(to.join(dir)).expect("mkdir");
    }
}

/// Temporary files left by interrupted atomic replaces (`.<name>.tmp-<pid>-<n>`).
pub fn temp_files(root: &Path) -> Vec<PathBuf> {
    tree_bytes(root)
        .into_keys()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".tmp-"))
        })
        .collect()
}

/// The raw line of `id`'s row in the index text (without line terminator).
pub fn raw_row<'a>(index_text: &'a str, id: &str) -> Option<&'a str> {
    index_text.lines().find(|line| {
        line.trim_start()
            .strip_prefix('|')
            .and_then(|rest| rest.split('|').next())
            .is_some_and(|cell| cell.trim() == id)
    })
}

/// A small deterministic generator (xorshift64*): kill delays and operation choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A seed from `MEMCORE_TEST_SEED`, else from the clock; printed so a failing run
    /// can be repeated.
    pub fn seed_from_env(test: &str) -> u64 {
        let seed = std::env::var("MEMCORE_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        eprintln!("{test}: MEMCORE_TEST_SEED={seed}");
        seed
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `low..=high`.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low + 1)
    }
}

/// Fault hooks for the interruption tests (`*_interrupted.rs`): each counts the
/// fault points (`memory_core::durable::fault`) a command passes, in order.
pub mod fault_points {
    use std::sync::{Arc, Mutex};

    use memory_core::durable::fault::{self, Phase};

    /// Counts every point passed; read the count after the command.
    pub fn count() -> Arc<Mutex<usize>> {
        let count = Arc::new(Mutex::new(0usize));
        let counter = count.clone();
        fault::set_hook(Arc::new(move |_p: Phase, _s: usize| {
            *counter.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            Ok(())
        }));
        count
    }

    /// Aborts the process (a kill, as far as the files can tell) at point `k` (0-based).
    pub fn abort_at(k: usize) {
        let seen = Arc::new(Mutex::new(0usize));
        fault::set_hook(Arc::new(move |_p: Phase, _s: usize| {
            let mut n = seen.lock().unwrap_or_else(|p| p.into_inner());
            if *n == k {
                std::process::abort();
            }
            *n += 1;
            Ok(())
        }));
    }

    /// Fails point `k` (0-based) with an injected I/O error; the others pass.
    pub fn fail_at(k: usize) {
        let seen = Arc::new(Mutex::new(0usize));
        fault::set_hook(Arc::new(move |_p: Phase, _s: usize| {
            let mut n = seen.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            if *n == k + 1 {
                Err(std::io::Error::other("injected failure"))
            } else {
                Ok(())
            }
        }));
    }
}

/// Another program saving a memory file without memory-core's lock, from the fault
/// hook that runs right before a step of a transaction (so the save lands between the
/// read and the commit for certain).
pub mod foreign {
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use memory_core::durable::fault::{self, Phase};

    /// The process-wide fault hook is shared: the tests of a binary take turns.
    pub static HOOK_USERS: Mutex<()> = Mutex::new(());

    /// How another program saves a file.
    #[derive(Clone, Copy, Debug)]
    pub enum Save {
        /// Write a temp file, rename it over the file (editors, sync clients).
        Rename,
        /// Truncate the file, then write it (most editors' default).
        InPlace,
    }

    /// Both ways.
    pub const SAVES: [Save; 2] = [Save::Rename, Save::InPlace];

    /// Saves `text` as `path` the way `how` says.
    pub fn save(path: &Path, text: &[u8], how: Save) {
        match how {
            Save::Rename => {
                let tmp = path.with_extension("editor-tmp");
                std::fs::write(&tmp, text).unwrap();
                std::fs::rename(&tmp, path).unwrap();
            }
            Save::InPlace => {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(path)
                    .unwrap();
                f.write_all(text).unwrap();
            }
        }
    }

    /// Runs `edit` from the hook right before step `step` is applied, once; returns
    /// how many times it ran so far (read it after the command).
    pub fn edit_before_step(
        step: usize,
        edit: impl Fn() + Send + Sync + 'static,
    ) -> Arc<AtomicUsize> {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        fault::set_hook(Arc::new(move |phase, n| {
            if phase == Phase::Apply && n == step && seen.fetch_add(1, Ordering::SeqCst) == 0 {
                edit();
            }
            Ok(())
        }));
        calls
    }

    /// Fails when a temp file, backup or journal of memory-core is left under `root`.
    pub fn no_leftovers(root: &Path) {
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let e = e.unwrap();
                if e.path().is_dir() {
                    stack.push(e.path());
                    continue;
                }
                let name = e.file_name().to_string_lossy().into_owned();
                assert!(
                    !name.contains(".tmp-")
                        && !name.contains(".bak-")
                        && name != ".memcore.journal",
                    "left behind: {}",
                    e.path().display()
                );
            }
        }
    }
}
