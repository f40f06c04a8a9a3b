//! Multi-file operations are all or nothing at every point where they can be
//! interrupted (issue: "Multi-file operations are all or nothing"). Every multi-file
//! operation of Agent Memory is run once per fault point of its transaction:
//!
//! - **killed** there: a real child process (a copy of this test binary) aborts at that
//!   point; afterwards the next command recovers, the tree is exactly the old state or
//!   exactly the new state, every command works, and re-running the command completes it;
//! - **failing** there with an injected I/O error: the call returns an error (or, after
//!   the new state is verified, succeeds), the tree is the old state (or the new one), and
//!   re-running completes it.
//!
//! The fault points come from the `fault-injection` feature, which this crate's own
//! integration tests enable (see `Cargo.toml`).
#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Role, Worker, copy_tree, settled_state, tree_bytes};
use memory_core::durable::fault::{self, Phase};
use memory_core::{AgentMemory, ManualRegistration, OrganizeOptions, SessionUpdate};

/// Setup time, and the time the interrupted operation runs at (so the old and the new
/// state are both exactly reproducible).
const T0: &str = "2026-05-25T13:18:00+08:00";
const T1: &str = "2026-05-26T09:30:00+08:00";

const SOURCE: &str = "2026-05-25-1318-source-agent";
const OTHER: &str = "2026-05-25-1318-other-agent";

/// The process-wide fault hook is shared: the tests of this binary take turns.
static HOOK_USERS: Mutex<()> = Mutex::new(());

/// One multi-file operation and the tree it starts from.
struct Scenario {
    name: &'static str,
    setup: fn(&AgentMemory),
    op: fn(&AgentMemory) -> memory_core::Result<()>,
}

fn register_source(memory: &AgentMemory) {
    memory
        .register_manual(
            ManualRegistration::new("source-agent", "Login bug", "Found the cookie bug.")
                .decision("Use bcrypt")
                .question("Rotate on login?")
                .next_action("Write a regression test"),
        )
        .expect("register source");
}

fn register_other_continuing(memory: &AgentMemory) {
    memory
        .register_manual(
            ManualRegistration::new("other-agent", "Review", "Reviewing the fix.")
                .continues_from(SOURCE),
        )
        .expect("register other");
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "register-continuing",
        setup: register_source,
        op: |m| {
            m.register_manual(
                ManualRegistration::new("new-agent", "Follow-up", "Picking up the fix.")
                    .decision("Keep the old cookie name")
                    .continues_from(SOURCE)
                    .continues_from(SOURCE),
            )
            .map(drop)
        },
    },
    Scenario {
        // The journaled append of one row (the table ends the file).
        name: "session-start",
        setup: |m| {
            register_source(m);
            register_other_continuing(m);
        },
        op: |m| m.register_session_start("new-agent").map(drop),
    },
    Scenario {
        // The same append, worked out by a full read: the lock file's note (the verdict
        // the setup's writes left, which `session-start` appends by) is emptied.
        name: "session-start-read-whole",
        setup: |m| {
            register_source(m);
            register_other_continuing(m);
            std::fs::write(m.root().join(".memcore.lock"), "").expect("empty the note");
        },
        op: |m| m.register_session_start("new-agent").map(drop),
    },
    Scenario {
        // The same, where the file does not end with a newline.
        name: "session-start-unterminated",
        setup: |m| {
            register_source(m);
            let index = m.root().join("index.md");
            let text = std::fs::read_to_string(&index).expect("read index");
            std::fs::write(&index, text.trim_end()).expect("write index");
        },
        op: |m| m.register_session_start("new-agent").map(drop),
    },
    Scenario {
        name: "update",
        setup: register_source,
        op: |m| {
            m.update(
                SOURCE,
                SessionUpdate::new()
                    .summary("Fixed the cookie bug.")
                    .decision("Use argon2id")
                    .supersede("Use bcrypt")
                    .resolve("Rotate on login?"),
            )
            .map(drop)
        },
    },
    Scenario {
        name: "update-creating-the-snapshot",
        setup: |m| {
            m.register_session_start("source-agent").expect("start");
        },
        op: |m| {
            m.update(
                SOURCE,
                SessionUpdate::new().topic("Login").summary("Started."),
            )
            .map(drop)
        },
    },
    Scenario {
        name: "continue",
        setup: |m| {
            register_source(m);
            m.register_session_start("other-agent").expect("start");
        },
        op: |m| m.continue_from(OTHER, SOURCE).map(drop),
    },
    Scenario {
        name: "release",
        setup: |m| {
            register_source(m);
            register_other_continuing(m);
        },
        op: |m| m.release(OTHER, SOURCE).map(drop),
    },
    Scenario {
        name: "archive",
        setup: |m| {
            register_source(m);
            register_other_continuing(m);
        },
        op: |m| m.archive(OTHER).map(drop),
    },
];

fn open(root: &Path, at: &str) -> AgentMemory {
    AgentMemory::builder(root)
        .fixed_time(at)
        .expect("fixed time")
        .lock_timeout(Duration::from_secs(10))
        .open()
        .expect("open")
}

/// The worker entry point: in a normal run it returns at once; re-executed as role
/// `kill-at <scenario> <k>` it aborts the process at fault point `k` of the operation.
#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    assert_eq!(role.name, "kill-at");
    let scenario = scenario(&role.args[0]);
    let k: usize = role.arg(1);
    let seen = Arc::new(Mutex::new(0usize));
    fault::set_hook(Arc::new(move |_phase: Phase, _step: usize| {
        let mut n = seen.lock().unwrap_or_else(|p| p.into_inner());
        if *n == k {
            // A kill without unwinding, flushing or destructors: the OS reclaims the
            // process and its lock exactly as after SIGKILL.
            std::process::abort();
        }
        *n += 1;
        Ok(())
    }));
    let memory = open(&role.root, T1);
    let _ = (scenario.op)(&memory);
    // Reaching here means point k was never hit: the parent counts that as a failure.
    println!("MEMCORE> survived");
}

fn scenario(name: &str) -> &'static Scenario {
    SCENARIOS
        .iter()
        .find(|s| s.name == name)
        .expect("known scenario")
}

/// The old and the new state of `scenario`, and the fault points its operation passes.
struct Prepared {
    old_root: tempfile::TempDir,
    old: BTreeMap<PathBuf, Vec<u8>>,
    new: BTreeMap<PathBuf, Vec<u8>>,
    points: Vec<(Phase, usize)>,
}

fn prepare(scenario: &Scenario) -> Prepared {
    let old_root = tempfile::tempdir().expect("tempdir");
    (scenario.setup)(&open(old_root.path(), T0));
    let old = settled_state(old_root.path());

    let new_root = tempfile::tempdir().expect("tempdir");
    copy_tree(old_root.path(), new_root.path());
    let points = Arc::new(Mutex::new(Vec::new()));
    let recorder = points.clone();
    fault::set_hook(Arc::new(move |phase: Phase, step: usize| {
        recorder.lock().expect("points").push((phase, step));
        Ok(())
    }));
    let by_verdict = fault::verdict_starts();
    let result = (scenario.op)(&open(new_root.path(), T1));
    let by_verdict = fault::verdict_starts() - by_verdict;
    fault::clear_hook();
    result.unwrap_or_else(|e| panic!("{}: the operation itself fails: {e}", scenario.name));
    let new = settled_state(new_root.path());
    assert_ne!(old, new, "{}: the operation changes nothing", scenario.name);
    let points = points.lock().expect("points").clone();
    assert!(
        points.iter().any(|(p, _)| *p == Phase::Record),
        "{}: the operation is not a multi-file transaction",
        scenario.name
    );
    if scenario.name.starts_with("session-start") {
        // The append is cut short half-way at this point: a torn last line on disk.
        assert!(
            points.contains(&(Phase::Write, 0)),
            "{}: SessionStart did not append: {points:?}",
            scenario.name
        );
    }
    // A kill during an append by the remembered verdict is covered, and one during an
    // append worked out by a full read (the worker starts from a copy of the same tree,
    // lock file and its note included, so it takes the same path).
    assert_eq!(
        by_verdict,
        usize::from(scenario.name == "session-start"),
        "{}: which SessionStart path the operation took",
        scenario.name
    );
    Prepared {
        old_root,
        old,
        new,
        points,
    }
}

/// Reads every row and snapshot and runs organize in a dry run: every command works.
/// Then organize for real removes every temp file a killed writer left.
fn assert_every_command_works(root: &Path, label: &str) {
    let memory = open(root, T1);
    let rows = memory
        .sessions()
        .unwrap_or_else(|e| panic!("{label}: list fails: {e}"));
    for row in &rows {
        memory
            .snapshot(row.session_id.as_str())
            .unwrap_or_else(|e| panic!("{label}: show {} fails: {e}", row.session_id));
    }
    memory
        .organize(OrganizeOptions::default().dry_run(true))
        .unwrap_or_else(|e| panic!("{label}: organize --dry-run fails: {e}"));
}

fn assert_leftovers_removed_by_organize(root: &Path, label: &str) {
    let memory = open(root, T1);
    // A real organize on a copy (it may delete idle rows; that is not under test here).
    memory
        .organize(OrganizeOptions::default())
        .unwrap_or_else(|e| panic!("{label}: organize fails: {e}"));
    let leftovers: Vec<_> = tree_bytes(root)
        .into_keys()
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.contains(".tmp-") || name.contains(".bak-") || name == ".memcore.journal"
        })
        .collect();
    assert!(leftovers.is_empty(), "{label}: organize left {leftovers:?}");
}

/// After an interruption: the next command recovers to the old or the new state, every
/// command works, and re-running the operation (from the old state) completes it.
fn check_after_interruption(scenario: &Scenario, prepared: &Prepared, root: &Path, label: &str) {
    assert_every_command_works(root, label);
    let after = settled_state(root);
    if after == prepared.old {
        (scenario.op)(&open(root, T1))
            .unwrap_or_else(|e| panic!("{label}: re-running the operation fails: {e}"));
        assert_eq!(
            settled_state(root),
            prepared.new,
            "{label}: re-running did not reach the new state"
        );
    } else {
        assert_eq!(
            after, prepared.new,
            "{label}: the tree is neither the old state nor the new state"
        );
    }
    let copy = tempfile::tempdir().expect("tempdir");
    copy_tree(root, copy.path());
    assert_leftovers_removed_by_organize(copy.path(), label);
}

#[test]
fn a_kill_at_any_fault_point_leaves_the_old_or_the_new_state() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for scenario in SCENARIOS {
        let prepared = prepare(scenario);
        let mut outcomes = (0usize, 0usize);
        for (k, point) in prepared.points.iter().enumerate() {
            let label = format!("{} killed before {:?} {}", scenario.name, point.0, point.1);
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join("memory");
            copy_tree(prepared.old_root.path(), &root);
            let worker = Worker::spawn(
                "worker",
                "kill-at",
                &root,
                &[scenario.name.to_string(), k.to_string()],
            );
            let finished = worker.finish(Instant::now() + Duration::from_secs(60));
            assert!(
                !finished.status.success() && !finished.reports.iter().any(|r| r == "survived"),
                "{label}: the child was not killed at the point: {finished:?}"
            );
            assert!(
                finished.stderr.is_empty() || !finished.stderr.contains("panicked"),
                "{label}: the child panicked instead of being killed: {}",
                finished.stderr
            );
            // The first command after the kill recovers; compare before re-running.
            assert_every_command_works(&root, &label);
            if settled_state(&root) == prepared.old {
                outcomes.0 += 1;
            } else {
                outcomes.1 += 1;
            }
            check_after_interruption(scenario, &prepared, &root, &label);
        }
        // Kills before the journal is written roll back; kills after it roll forward.
        assert!(
            outcomes.0 > 0 && outcomes.1 > 0,
            "{}: expected both old and new states among the kill points, got {outcomes:?}",
            scenario.name
        );
    }
}

#[test]
fn an_io_failure_at_any_fault_point_leaves_the_old_or_the_new_state() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for scenario in SCENARIOS {
        let prepared = prepare(scenario);
        for k in 0..prepared.points.len() {
            let point = prepared.points[k];
            let label = format!("{} failing at {:?} {}", scenario.name, point.0, point.1);
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join("memory");
            copy_tree(prepared.old_root.path(), &root);
            let seen = Arc::new(Mutex::new(0usize));
            fault::set_hook(Arc::new(move |_phase: Phase, _step: usize| {
                let mut n = seen.lock().unwrap_or_else(|p| p.into_inner());
                *n += 1;
                if *n == k + 1 {
                    Err(std::io::Error::other("injected failure"))
                } else {
                    Ok(())
                }
            }));
            let result = (scenario.op)(&open(&root, T1));
            fault::clear_hook();
            match &result {
                Err(e) => {
                    assert_eq!(
                        e.kind(),
                        memory_core::ErrorKind::Io,
                        "{label}: not an I/O error: {e}"
                    );
                    let syscall = e.syscall().unwrap_or_default();
                    assert!(
                        injected_syscalls(point).contains(&syscall),
                        "{label}: syscall {syscall:?} for {e}"
                    );
                    assert_eq!(
                        settled_state(&root),
                        prepared.old,
                        "{label}: a failed call changed the tree"
                    );
                }
                Ok(()) => {
                    assert_eq!(
                        point.0,
                        Phase::Clean,
                        "{label}: an injected failure was ignored"
                    );
                    // The clean-up that failed is finished by the next command.
                    assert_every_command_works(&root, &label);
                    assert_eq!(
                        settled_state(&root),
                        prepared.new,
                        "{label}: success without the new state"
                    );
                }
            }
            check_after_interruption(scenario, &prepared, &root, &label);
        }
    }
}

/// The system calls an I/O error injected at `point` may name: the action the point
/// stands before (see `fault::Phase`).
fn injected_syscalls(point: (Phase, usize)) -> &'static [&'static str] {
    match point {
        (Phase::Stage, _) | (Phase::Record, 0) => &["write"],
        (Phase::Record, _) => &["fsync"],
        // The last Apply point is the flush of the directories the steps changed.
        (Phase::Apply, _) => &["rename", "unlink", "write", "fsync"],
        (Phase::Write, _) => &["write"],
        (Phase::Verify, _) => &["read"],
        (Phase::Clean, _) => &["unlink"],
    }
}
