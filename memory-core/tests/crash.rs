//! Crash safety in real processes (contracts 2 and 4): a writer killed with SIGKILL at
//! any moment leaves an index that parses and holds every row it acknowledged, never
//! a temp file mistaken for data, and no lock: the kernel releases it with the process.
//!
//! Workers are copies of this test binary (see `common/mod.rs`) that report every
//! acknowledged write on stdout, flushed, before they start the next one; the parent
//! kills them and checks the tree against those reports.
#![cfg(unix)]

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Finished, Rng, Role, Worker, report, temp_files, wait_for_go};
use memory_core::agent_memory::LOCK_FILE_NAME;
use memory_core::durable::MemoryLock;
use memory_core::{
    AgentMemory, ErrorKind, ManualRegistration, OrganizeOptions, SessionUpdate, Status,
};

/// How long the parent waits for the lock after a kill: far less than the default 10 s,
/// so a lock that outlived its holder fails the test instead of slowing it.
const AFTER_KILL_LOCK_WAIT: Duration = Duration::from_secs(2);

/// The worker entry point of this binary. In a normal test run `MEMCORE_TEST_CHILD` is
/// unset and this test returns immediately; the other tests re-execute the binary with
/// `--exact worker` and the variable set, and then it plays the named role.
#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    let memory = AgentMemory::builder(&role.root)
        .lock_timeout(Duration::from_secs(30))
        .open()
        .expect("open memory");
    match role.name.as_str() {
        "writer" => writer_worker(&memory, &role),
        "update-stream" => update_stream_worker(&memory, &role),
        "die-holding" => die_holding_worker(&role),
        "stale-temp" => stale_temp_worker(&memory, &role),
        other => panic!("unknown worker role {other}"),
    }
}

/// A worker never outlives this, whatever happens to the parent.
const WORKER_LIFETIME: Duration = Duration::from_secs(30);

/// `writer <round>`: registrations (SessionStart and manual) and updates of its own rows
/// in a loop until killed, reporting each acknowledged one.
fn writer_worker(memory: &AgentMemory, role: &Role) {
    let round: u64 = role.arg(0);
    let mut rng = Rng::new(round);
    let mut own: Vec<String> = Vec::new();
    report(&["ready"]);
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < WORKER_LIFETIME {
        n += 1;
        match n % 3 {
            1 => {
                let id = memory
                    .register_session_start("crash-agent")
                    .expect("register");
                report(&["start", id.as_str()]);
                own.push(id.to_string());
            }
            2 => {
                let decision = format!("manual-{round}-{n}");
                let id = memory
                    .register_manual(
                        ManualRegistration::new("crash-agent", "Crash test", "Manual row.")
                            .decision(&decision),
                    )
                    .expect("register manual");
                report(&["manual", id.as_str(), &decision]);
                own.push(id.to_string());
            }
            _ => {
                let id = &own[rng.range(0, own.len() as u64 - 1) as usize];
                let decision = format!("update-{round}-{n}");
                memory
                    .update(
                        id,
                        SessionUpdate::new()
                            .decision(&decision)
                            .summary(format!("Step {n}.")),
                    )
                    .expect("update");
                report(&["update", id, &decision]);
            }
        }
    }
}

/// `update-stream <id>`: updates one row as fast as it can; on a large index nearly all
/// of its time is spent holding the lock.
fn update_stream_worker(memory: &AgentMemory, role: &Role) {
    let id = role.args[0].as_str();
    report(&["ready"]);
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < WORKER_LIFETIME {
        let decision = format!("stream-{n}");
        memory
            .update(id, SessionUpdate::new().decision(&decision))
            .expect("update");
        report(&["update", id, &decision]);
        n += 1;
    }
}

/// `die-holding`: takes the memory lock, leaves a half-written temp index the way an
/// interrupted replace would, reports `locked` and waits to be killed.
fn die_holding_worker(role: &Role) {
    let _lock =
        MemoryLock::acquire(&role.root.join(LOCK_FILE_NAME), Duration::from_secs(10)).unwrap();
    let temp = role
        .root
        .join(format!(".index.md.tmp-{}-0", std::process::id()));
    std::fs::write(&temp, "# Memory Index\n\n| Session ID | Agent Na").unwrap();
    report(&["locked"]);
    // The parent kills us here; a closed pipe (parent gone) ends the wait too.
    let _ = wait_for_go();
}

/// `stale-temp`: a writer that died earlier with this process's pid left
/// `.index.md.tmp-<pid>-0` (in a container every run of a hook gets the same small pid);
/// this process's first write must not trip over it.
fn stale_temp_worker(memory: &AgentMemory, role: &Role) {
    let pid = std::process::id();
    let stale = role.root.join(format!(".index.md.tmp-{pid}-0"));
    std::fs::write(&stale, "| half a row from a dead writer").unwrap();
    let id = memory
        .register_session_start("after-crash")
        .expect("the first write succeeds despite the stale temp file");
    report(&["start", id.as_str()]);
    let left = std::fs::read_to_string(&stale).expect("the stale file is not ours to remove");
    assert_eq!(left, "| half a row from a dead writer");
}

/// What the writers acknowledged so far, checked against the tree after every kill.
#[derive(Default)]
struct Acked {
    rows: BTreeSet<String>,
    decisions: HashMap<String, Vec<String>>,
}

impl Acked {
    fn add(&mut self, finished: &Finished) -> Vec<String> {
        let mut new_rows = Vec::new();
        for words in finished.reports_of("start") {
            assert!(self.rows.insert(words[0].clone()), "id {} reused", words[0]);
            new_rows.push(words[0].clone());
        }
        for words in finished.reports_of("manual") {
            assert!(self.rows.insert(words[0].clone()), "id {} reused", words[0]);
            new_rows.push(words[0].clone());
            self.decisions
                .entry(words[0].clone())
                .or_default()
                .push(words[1].clone());
        }
        for words in finished.reports_of("update") {
            self.decisions
                .entry(words[0].clone())
                .or_default()
                .push(words[1].clone());
        }
        new_rows
    }

    /// The index parses and holds every acknowledged row and decision; returns the rows.
    fn check(&self, memory: &AgentMemory, context: &str) -> BTreeSet<String> {
        let rows = memory
            .sessions()
            .unwrap_or_else(|e| panic!("{context}: the index does not parse: {e}"));
        let ids: BTreeSet<String> = rows.iter().map(|r| r.session_id.to_string()).collect();
        assert_eq!(ids.len(), rows.len(), "{context}: duplicate rows");
        for id in &self.rows {
            assert!(
                ids.contains(id),
                "{context}: acknowledged row {id} is missing"
            );
        }
        for row in &rows {
            // Every snapshot a row has parses; temp files never show up as sessions.
            memory
                .snapshot(row.session_id.as_str())
                .unwrap_or_else(|e| panic!("{context}: snapshot of {}: {e}", row.session_id));
            assert!(!row.session_id.as_str().contains(".tmp-"));
        }
        for (id, decisions) in &self.decisions {
            let snapshot = memory
                .snapshot(id)
                .unwrap()
                .unwrap_or_else(|| panic!("{context}: {id} lost its snapshot"));
            let present: HashSet<&str> =
                snapshot.decisions.iter().map(|d| d.text.as_str()).collect();
            for decision in decisions {
                assert!(
                    present.contains(decision.as_str()),
                    "{context}: {id} lost acknowledged decision {decision}"
                );
            }
        }
        ids
    }
}

fn impatient(root: &Path) -> AgentMemory {
    AgentMemory::builder(root)
        .lock_timeout(AFTER_KILL_LOCK_WAIT)
        .open()
        .unwrap()
}

/// After a kill, the next write must get the lock within [`AFTER_KILL_LOCK_WAIT`] (the
/// kernel released it) and land; returns how long the write took.
fn write_after_kill(root: &Path, acked: &mut Acked, tag: &str) -> Duration {
    let memory = impatient(root);
    let start = Instant::now();
    match acked.rows.iter().next().cloned() {
        Some(id) => {
            let decision = format!("after-kill-{tag}");
            memory
                .update(&id, SessionUpdate::new().decision(&decision))
                .unwrap_or_else(|e| panic!("{tag}: write after the kill failed: {e}"));
            acked.decisions.entry(id).or_default().push(decision);
        }
        None => {
            let id = memory
                .register_session_start("after-kill")
                .unwrap_or_else(|e| panic!("{tag}: write after the kill failed: {e}"));
            acked.rows.insert(id.to_string());
        }
    }
    start.elapsed()
}

/// A kill between the two files of an update of an idle row (the snapshot is written
/// first, then the row) leaves an idle row with a snapshot, which organize refuses with
/// a Conflict that names the session and its documented repair: update the session.
/// Checks that this is the only way organize fails after a crash and that the repair
/// works; returns how many repairs were needed.
fn repair_interrupted_update(memory: &AgentMemory, acked: &mut Acked, context: &str) -> usize {
    let dry_run = || memory.organize(OrganizeOptions::default().dry_run(true));
    let Err(err) = dry_run() else {
        return 0;
    };
    assert_eq!(
        err.kind(),
        ErrorKind::Conflict,
        "{context}: organize: {err}"
    );
    let id = err
        .id()
        .expect("the conflict names the session")
        .to_string();
    assert!(acked.rows.contains(&id), "{context}: {id} is not ours");
    assert_eq!(
        memory.session(&id).unwrap().status,
        Status::Idle,
        "{context}"
    );
    assert!(memory.snapshot(&id).unwrap().is_some(), "{context}");
    let decision = format!("repair-{id}");
    memory
        .update(&id, SessionUpdate::new().decision(&decision))
        .unwrap();
    acked.decisions.entry(id).or_default().push(decision);
    if let Err(e) = dry_run() {
        panic!("{context}: organize still fails after the repair: {e}");
    }
    1
}

/// Sixteen rounds: a writer registering and updating in a loop is killed with SIGKILL
/// 5–60 ms after it is ready. After every kill the index parses, holds every
/// acknowledged row and decision (plus at most the one write in flight), leftover temp
/// files are ignored, and the next write succeeds within the short lock wait.
#[test]
fn writer_killed_at_random_moments_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let memory = AgentMemory::open(&root).unwrap();
    let seed = Rng::seed_from_env("crash rounds");
    let mut rng = Rng::new(seed);
    let mut acked = Acked::default();
    let mut rows_before = BTreeSet::new();
    let mut delays = Vec::new();
    let mut repairs = 0;
    let started = Instant::now();
    for round in 0..16u64 {
        let context = format!("round {round} (seed {seed})");
        let mut writer = Worker::spawn("worker", "writer", &root, &[round.to_string()]);
        writer.wait_for("ready", Instant::now() + Duration::from_secs(20));
        let delay = Duration::from_millis(rng.range(5, 60));
        delays.push(delay);
        // Not synchronization: the delay is the random moment of the crash.
        std::thread::sleep(delay);
        let finished = writer.kill();
        assert!(
            finished.status.code().is_none(),
            "{context}: the writer ended before the kill: {:?}\n{}",
            finished.status,
            finished.stderr
        );
        let new_rows = acked.add(&finished);
        let rows_after = acked.check(&memory, &context);
        let unacknowledged: Vec<&String> = rows_after
            .difference(&rows_before)
            .filter(|id| !new_rows.contains(id))
            .collect();
        assert!(
            unacknowledged.len() <= 1,
            "{context}: only the write in flight may land unacknowledged: {unacknowledged:?}"
        );
        assert!(
            rows_before.is_subset(&rows_after),
            "{context}: a row disappeared"
        );
        write_after_kill(&root, &mut acked, &format!("round-{round}"));
        rows_before = acked.check(&memory, &context);
        repairs += repair_interrupted_update(&memory, &mut acked, &context);
    }
    // An interrupted manual registration can leave its snapshot without a row (the
    // snapshot is written first): at most one per kill, never a row's data.
    let orphans: Vec<String> = std::fs::read_dir(root.join("sessions"))
        .map(|dir| {
            dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter_map(|name| name.strip_suffix(".md").map(str::to_string))
                .filter(|id| !id.starts_with('.') && !rows_before.contains(id))
                .collect()
        })
        .unwrap_or_default();
    assert!(orphans.len() <= delays.len(), "{orphans:?}");
    eprintln!(
        "crash rounds: {} acknowledged rows, {repairs} interrupted updates repaired, {} orphan snapshots, {} temp files left, kill delays {:?}, {:?} in all",
        acked.rows.len(),
        orphans.len(),
        temp_files(&root).len(),
        delays,
        started.elapsed()
    );
    assert!(
        !acked.rows.is_empty(),
        "no writer got to acknowledge anything"
    );
}

/// An index of `rows` idle rows, written directly (building it through the API would
/// take a write per row).
fn large_index(rows: usize) -> String {
    let mut text = String::from(
        "# Memory Index\n\n| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for i in 0..rows {
        text.push_str(&format!(
            "| 2026-01-01-0000-bulk-{i} | bulk | Topic {i} | Summary of row {i}. | bulk, rows | idle | - | 2026-01-01T00:00:00+00:00 | 2026-01-01T00:00:00+00:00 |\n"
        ));
    }
    text
}

/// The pids holding an `flock` on `path`, from `/proc/locks` (matched by inode); empty
/// where there is no `/proc/locks`.
fn flock_holders(path: &Path) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(path).unwrap().ino().to_string();
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.contains("->")) // waiters, not holders
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let holds = fields.get(1) == Some(&"FLOCK")
                && fields
                    .get(5)
                    .is_some_and(|f| f.rsplit(':').next() == Some(inode.as_str()));
            holds.then(|| fields.get(4)?.parse().ok()).flatten()
        })
        .collect()
}

/// A process that dies holding the lock does not keep it. First a child that holds the
/// lock and has left a half-written temp index (killed at a known point); then, where
/// `/proc/locks` lists flock holders (Linux), a child streaming updates over a
/// 1,500-row index, killed at a moment `/proc/locks` shows it holding the lock
/// mid-operation. Each time the parent's next
/// write gets the lock within the short wait, the index parses with every row, and
/// every acknowledged decision is kept.
#[test]
fn killed_lock_holder_leaves_the_memory_writable() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    std::fs::create_dir_all(&root).unwrap();
    const ROWS: usize = 1500;
    std::fs::write(root.join("index.md"), large_index(ROWS)).unwrap();
    let memory = AgentMemory::open(&root).unwrap();
    let target = "2026-01-01-0000-bulk-7";
    let mut acked = Acked {
        rows: memory
            .sessions()
            .unwrap()
            .iter()
            .map(|r| r.session_id.to_string())
            .collect(),
        ..Acked::default()
    };
    assert_eq!(acked.rows.len(), ROWS);

    // Killed while holding the lock, with a half-written temp file beside the index.
    let index_before = std::fs::read(memory.index_path()).unwrap();
    let lock_path = root.join(LOCK_FILE_NAME);
    let mut holder = Worker::spawn("worker", "die-holding", &root, &[]);
    holder.wait_for("locked", Instant::now() + Duration::from_secs(20));
    // Calibrates the observation used below: the holder surely holds the lock now.
    let proc_locks_show_holders = flock_holders(&lock_path).contains(&holder.pid());
    let finished = holder.kill();
    assert!(finished.status.code().is_none(), "{}", finished.stderr);
    assert_eq!(std::fs::read(memory.index_path()).unwrap(), index_before);
    assert_eq!(temp_files(&root).len(), 1, "the dead writer's temp file");
    acked.check(&memory, "after the holder died");
    let took = write_after_kill(&root, &mut acked, "holder");
    acked.check(&memory, "after the write that followed the holder");
    eprintln!("write after a killed lock holder took {took:?}");

    if !proc_locks_show_holders {
        eprintln!("/proc/locks does not list flock holders here: mid-operation kills skipped");
    } else {
        for attempt in 0..3 {
            let context = format!("stream attempt {attempt}");
            let mut stream = Worker::spawn("worker", "update-stream", &root, &[target.into()]);
            let pid = stream.pid();
            // Let it acknowledge a few updates first, so the kill lands mid-stream.
            for _ in 0..=attempt {
                stream.wait_for("update", Instant::now() + Duration::from_secs(20));
            }
            let deadline = Instant::now() + Duration::from_secs(20);
            // Polling /proc/locks observes the child without touching the lock.
            while !flock_holders(&lock_path).contains(&pid) {
                assert!(
                    Instant::now() < deadline,
                    "{context}: never saw the lock held"
                );
                std::thread::yield_now();
            }
            let finished = stream.kill();
            assert!(finished.status.code().is_none(), "{}", finished.stderr);
            acked.add(&finished);
            let rows = acked.check(&memory, &context);
            assert_eq!(rows.len(), ROWS, "{context}: row count");
            // The write in flight may have landed in the snapshot (it is written before
            // the row), but nothing beyond it.
            let decisions = memory
                .snapshot(target)
                .unwrap()
                .map(|s| s.decisions)
                .unwrap_or_default();
            let unacked: Vec<&str> = decisions
                .iter()
                .map(|d| d.text.as_str())
                .filter(|d| {
                    !acked
                        .decisions
                        .get(target)
                        .is_some_and(|a| a.iter().any(|a| a == d))
                })
                .collect();
            assert!(unacked.len() <= 1, "{context}: {unacked:?}");
            let took = write_after_kill(&root, &mut acked, &format!("stream-{attempt}"));
            eprintln!(
                "{context}: {} updates acknowledged before the kill; next write took {took:?}",
                finished.reports_of("update").len()
            );
        }
        acked.check(&memory, "after the streams");
    }
}

/// A writer that crashed earlier with the same pid left `.index.md.tmp-<pid>-0`: the
/// first write of a new process with that pid still succeeds and leaves that file alone.
#[test]
fn stale_temp_file_with_our_name_does_not_block_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = dir.path().join("memory");
    let memory = AgentMemory::open(&root).unwrap();
    memory.register_session_start("before").unwrap();
    let worker = Worker::spawn("worker", "stale-temp", &root, &[]);
    let finished = worker.finish(Instant::now() + Duration::from_secs(20));
    finished.assert_success();
    let id = &finished.reports_of("start")[0][0];
    let rows = memory.sessions().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().any(|r| r.session_id.as_str() == id));
    assert_eq!(temp_files(&root).len(), 1, "only the dead writer's file");
}
