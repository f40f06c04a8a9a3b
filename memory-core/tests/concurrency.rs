//! Concurrent writers in real processes against one memory root (contract 3, "no lost
//! update"): registrations, updates of separate rows, continue/release/update on shared
//! rows, and the bounded lock wait.
//!
//! Each test starts copies of this test binary as workers (see `common/mod.rs`), lets
//! them all get ready, releases them together and then checks the files they left
//! against what every worker reported as acknowledged.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Finished, Rng, Role, Worker, raw_row, report, temp_files, tree_bytes, wait_for_go};
use memory_core::durable::MemoryLock;
use memory_core::{
    AgentMemory, ErrorKind, ManualRegistration, OrganizeOptions, SessionUpdate, Status,
};

/// The worker entry point of this binary. In a normal test run `MEMCORE_TEST_CHILD` is
/// unset and this test returns immediately; the other tests re-execute the binary with
/// `--exact worker` and the variable set, and then it plays the named role.
#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    // Writers wait far longer than any test runs: a timeout here would be a lost write
    // the parent could not tell from a bug.
    let memory = AgentMemory::builder(&role.root)
        .lock_timeout(Duration::from_secs(60))
        .open()
        .expect("open memory");
    match role.name.as_str() {
        "register" => register_worker(&memory, &role),
        "update" => update_worker(&memory, &role),
        "mix" => mix_worker(&memory, &role),
        "hold-lock" => hold_lock_worker(&role),
        other => panic!("unknown worker role {other}"),
    }
}

/// `register <agent> <starts> <manuals> <child>`: SessionStart and manual registrations.
fn register_worker(memory: &AgentMemory, role: &Role) {
    let agent = role.args[0].as_str();
    let (starts, manuals, child): (usize, usize, usize) = (role.arg(1), role.arg(2), role.arg(3));
    report(&["ready"]);
    if !wait_for_go() {
        return;
    }
    for k in 0..starts.max(manuals) {
        if k < starts {
            let id = memory
                .register_session_start(agent)
                .expect("register start");
            report(&["start", id.as_str()]);
        }
        if k < manuals {
            let decision = format!("decision-{child}-{k}");
            let id = memory
                .register_manual(
                    ManualRegistration::new(agent, format!("Topic {child}"), "Manual work.")
                        .decision(&decision),
                )
                .expect("register manual");
            report(&["manual", id.as_str(), &decision]);
        }
    }
}

/// `update <id> <child> <count>`: repeated updates of one row, each adding a decision.
fn update_worker(memory: &AgentMemory, role: &Role) {
    let id = role.args[0].as_str();
    let (child, count): (usize, usize) = (role.arg(1), role.arg(2));
    report(&["ready"]);
    if !wait_for_go() {
        return;
    }
    for k in 0..count {
        let decision = format!("decision-{child}-{k}");
        let row = memory
            .update(
                id,
                SessionUpdate::new()
                    .decision(&decision)
                    .summary(summary_of(child, k)),
            )
            .expect("update");
        assert_eq!(row.status, Status::Active);
        report(&["update", id, &decision]);
    }
}

fn summary_of(child: usize, k: usize) -> String {
    format!("Child {child} finished step {k}.")
}

/// `mix <child> <rounds> <own referrer> <other referrer> <source,source,…>`: links and
/// unlinks its own referrer to every source at random, updates every source and its
/// neighbour's referrer, and ends each pair with a known final operation.
fn mix_worker(memory: &AgentMemory, role: &Role) {
    let (child, rounds): (usize, usize) = (role.arg(0), role.arg(1));
    let own = role.args[2].as_str();
    let neighbour = role.args[3].as_str();
    let sources: Vec<&str> = role.args[4].split(',').collect();
    let mut rng = Rng::new(child as u64 + 1);
    report(&["ready"]);
    if !wait_for_go() {
        return;
    }
    let decide = |id: &str, tag: String| {
        memory
            .update(id, SessionUpdate::new().decision(&tag))
            .expect("update in mix");
        report(&["decision", id, &tag]);
    };
    for round in 0..rounds {
        for (j, source) in sources.iter().enumerate() {
            if rng.range(0, 1) == 0 {
                memory.continue_from(own, source).expect("continue_from");
            } else {
                memory.release(own, source).expect("release");
            }
            decide(source, format!("mix-{child}-{round}-{j}"));
        }
        decide(neighbour, format!("neighbour-{child}-{round}"));
    }
    for (j, source) in sources.iter().enumerate() {
        let linked = (child + j) % 2 == 0;
        if linked {
            let outcome = memory.continue_from(own, source).expect("final continue");
            assert!(
                outcome
                    .source
                    .referenced_by
                    .iter()
                    .any(|r| r.as_str() == own)
            );
        } else {
            memory.release(own, source).expect("final release");
        }
        report(&["link", own, source, if linked { "1" } else { "0" }]);
    }
}

/// `hold-lock`: takes the memory lock, reports `locked`, and holds it until stdin closes.
fn hold_lock_worker(role: &Role) {
    std::fs::create_dir_all(&role.root).expect("root");
    let _lock = MemoryLock::acquire(
        &role.root.join(memory_core::agent_memory::LOCK_FILE_NAME),
        Duration::from_secs(10),
    )
    .expect("take the lock");
    report(&["locked"]);
    // Returns when the parent closes the pipe; the lock is released on return.
    let _ = wait_for_go();
}

/// Starts every worker, waits until each reports `ready`, releases them together and
/// collects them all. Panics (killing every straggler) past `deadline`.
fn run_together(specs: Vec<(&str, Vec<String>)>, root: &Path, deadline: Instant) -> Vec<Finished> {
    let mut workers: Vec<Worker> = specs
        .into_iter()
        .map(|(role, args)| Worker::spawn("worker", role, root, &args))
        .collect();
    for w in &mut workers {
        w.wait_for("ready", deadline);
    }
    for w in &mut workers {
        w.go();
    }
    let finished: Vec<Finished> = workers.into_iter().map(|w| w.finish(deadline)).collect();
    for f in &finished {
        f.assert_success();
    }
    finished
}

fn deadline(secs: u64) -> Instant {
    Instant::now() + Duration::from_secs(secs)
}

fn memory_at(root: &Path) -> AgentMemory {
    AgentMemory::open(root).expect("open memory")
}

/// 36 processes register at once (9 per agent name, so ids collide within the minute and
/// get suffixes; every third one also registers manually, writing a snapshot): every
/// acknowledged id is in the index exactly once and there is nothing else.
#[test]
fn concurrent_registrations_keep_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    const CHILDREN: usize = 36;
    let specs = (0..CHILDREN)
        .map(|i| {
            let (starts, manuals) = if i % 3 == 0 { (1, 1) } else { (2, 0) };
            let args = vec![
                format!("agent-{}", i % 4),
                starts.to_string(),
                manuals.to_string(),
                i.to_string(),
            ];
            ("register", args)
        })
        .collect();
    let started = Instant::now();
    let finished = run_together(specs, &root, deadline(40));
    eprintln!(
        "{CHILDREN} registering processes finished in {:?}",
        started.elapsed()
    );

    let mut acked_starts = Vec::new();
    let mut acked_manuals = Vec::new();
    for (i, f) in finished.iter().enumerate() {
        let starts = f.reports_of("start");
        let manuals = f.reports_of("manual");
        let expected = if i % 3 == 0 { (1, 1) } else { (2, 0) };
        assert_eq!((starts.len(), manuals.len()), expected, "{}", f.label);
        for s in starts {
            acked_starts.push((i, s[0].clone()));
        }
        for m in manuals {
            acked_manuals.push((i, m[0].clone(), m[1].clone()));
        }
    }
    let acked: Vec<&str> = acked_starts
        .iter()
        .map(|(_, id)| id.as_str())
        .chain(acked_manuals.iter().map(|(_, id, _)| id.as_str()))
        .collect();
    assert_eq!(acked.len(), 72);
    let unique: HashSet<&str> = acked.iter().copied().collect();
    assert_eq!(unique.len(), acked.len(), "two registrations got one id");

    let memory = memory_at(&root);
    let rows = memory.sessions().expect("the index parses");
    assert_eq!(
        rows.len(),
        acked.len(),
        "row count = acknowledged registrations"
    );
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for row in &rows {
        *counts.entry(row.session_id.as_str()).or_default() += 1;
    }
    for id in &acked {
        assert_eq!(counts.get(id), Some(&1), "{id} must be in the index once");
    }
    // The raw table holds exactly those rows (no half row, no stray line).
    let index_text = std::fs::read_to_string(memory.index_path()).unwrap();
    let table_lines = index_text.lines().filter(|l| l.starts_with('|')).count();
    assert_eq!(table_lines, acked.len() + 2, "header + delimiter + rows");
    for id in &acked {
        assert!(raw_row(&index_text, id).is_some(), "{id} has a table line");
    }

    let by_id: HashMap<&str, _> = rows.iter().map(|r| (r.session_id.as_str(), r)).collect();
    for (i, id) in &acked_starts {
        let row = by_id[id.as_str()];
        assert_eq!(row.status, Status::Idle);
        assert_eq!(row.agent_name, format!("agent-{}", i % 4));
        assert!(memory.snapshot(id).unwrap().is_none(), "{id}: no snapshot");
    }
    for (i, id, decision) in &acked_manuals {
        let row = by_id[id.as_str()];
        assert_eq!(row.status, Status::Active);
        assert_eq!(row.topic, format!("Topic {i}"));
        let snapshot = memory.snapshot(id).unwrap().expect("manual snapshot");
        assert_eq!(snapshot.session_id, *id);
        let decisions: Vec<&str> = snapshot.decisions.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(decisions, [decision.as_str()]);
    }
    // Exactly the manual registrations' snapshots exist, and no temp file was left.
    let snapshot_files: BTreeSet<String> = std::fs::read_dir(root.join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expected_files: BTreeSet<String> = acked_manuals
        .iter()
        .map(|(_, id, _)| format!("{id}.md"))
        .collect();
    assert_eq!(snapshot_files, expected_files);
    assert_eq!(temp_files(&root), Vec::<std::path::PathBuf>::new());
}

/// 12 processes each update their own row 5 times while 3 bystander rows stand by:
/// every row ends active with its own last summary and every decision its child
/// acknowledged, in order; bystanders' lines and snapshots are byte-identical.
#[test]
fn concurrent_updates_of_separate_rows_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let memory = memory_at(&root);
    const CHILDREN: usize = 12;
    const UPDATES: usize = 5;
    let ids: Vec<String> = (0..CHILDREN)
        .map(|i| {
            memory
                .register_session_start(&format!("updater-{}", i % 3))
                .unwrap()
                .to_string()
        })
        .collect();
    let bystanders: Vec<String> = (0..3)
        .map(|i| {
            memory
                .register_manual(
                    ManualRegistration::new("bystander", format!("Quiet {i}"), "Left alone.")
                        .decision(format!("keep-{i}")),
                )
                .unwrap()
                .to_string()
        })
        .collect();
    let before_rows: HashMap<String, _> = memory
        .sessions()
        .unwrap()
        .into_iter()
        .map(|r| (r.session_id.to_string(), r))
        .collect();
    let before_text = std::fs::read_to_string(memory.index_path()).unwrap();
    let bystander_lines: Vec<String> = bystanders
        .iter()
        .map(|id| raw_row(&before_text, id).unwrap().to_string())
        .collect();
    let bystander_snapshots: Vec<Vec<u8>> = bystanders
        .iter()
        .map(|id| std::fs::read(memory.session_path(id).unwrap()).unwrap())
        .collect();

    let specs = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let args = vec![id.clone(), i.to_string(), UPDATES.to_string()];
            ("update", args)
        })
        .collect();
    let started = Instant::now();
    let finished = run_together(specs, &root, deadline(40));
    eprintln!(
        "{CHILDREN} updating processes x {UPDATES} updates finished in {:?}",
        started.elapsed()
    );

    let after_text = std::fs::read_to_string(memory.index_path()).unwrap();
    let rows: HashMap<String, _> = memory
        .sessions()
        .expect("the index parses")
        .into_iter()
        .map(|r| (r.session_id.to_string(), r))
        .collect();
    assert_eq!(rows.len(), CHILDREN + bystanders.len());
    for (i, (id, f)) in ids.iter().zip(&finished).enumerate() {
        let acked: Vec<String> = f
            .reports_of("update")
            .into_iter()
            .map(|words| {
                assert_eq!(words[0], *id, "{} updated a foreign row", f.label);
                words[1].clone()
            })
            .collect();
        let expected: Vec<String> = (0..UPDATES).map(|k| format!("decision-{i}-{k}")).collect();
        assert_eq!(acked, expected, "{}", f.label);

        let (row, before) = (&rows[id], &before_rows[id]);
        assert_eq!(row.status, Status::Active, "{id}");
        assert_eq!(
            row.summary,
            summary_of(i, UPDATES - 1),
            "{id}: own last summary"
        );
        // Cells the update does not set are the ones registration wrote.
        assert_eq!(row.agent_name, before.agent_name);
        assert_eq!(row.topic, before.topic);
        assert_eq!(row.keywords, before.keywords);
        assert_eq!(row.referenced_by, before.referenced_by);
        assert_eq!(row.started_at, before.started_at);
        assert!(row.updated_at.datetime() >= before.updated_at.datetime());

        let snapshot = memory.snapshot(id).unwrap().expect("snapshot created");
        let decisions: Vec<&str> = snapshot.decisions.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(
            decisions, expected,
            "{id}: exactly its own decisions, in order"
        );
        assert_eq!(snapshot.status, "active");
        assert_eq!(snapshot.updated_at, row.updated_at.as_str());
    }
    for ((id, line), bytes) in bystanders
        .iter()
        .zip(&bystander_lines)
        .zip(&bystander_snapshots)
    {
        assert_eq!(
            raw_row(&after_text, id),
            Some(line.as_str()),
            "{id} row changed"
        );
        let now = std::fs::read(memory.session_path(id).unwrap()).unwrap();
        assert_eq!(&now, bytes, "{id} snapshot changed");
    }
    // Bytes outside the table (the preamble) are untouched.
    let preamble = |t: &str| t[..t.find('|').unwrap()].to_string();
    assert_eq!(preamble(&after_text), preamble(&before_text));
    assert_eq!(temp_files(&root), Vec::<std::path::PathBuf>::new());
}

/// 6 processes continue from and release 4 shared sources at random, update the sources
/// and each other's referrers, then finish every pair with a known operation: `Referenced
/// By` and `Continues From` agree both ways and match the final operations, and every
/// acknowledged decision is in its snapshot.
#[test]
fn concurrent_continue_release_update_keep_links_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let memory = memory_at(&root);
    const CHILDREN: usize = 6;
    const ROUNDS: usize = 3;
    let sources: Vec<String> = (0..4)
        .map(|j| {
            memory
                .register_manual(ManualRegistration::new(
                    "source-agent",
                    format!("Source {j}"),
                    format!("Work item {j}."),
                ))
                .unwrap()
                .to_string()
        })
        .collect();
    let referrers: Vec<String> = (0..CHILDREN)
        .map(|_| {
            memory
                .register_session_start("referrer-agent")
                .unwrap()
                .to_string()
        })
        .collect();
    let specs = (0..CHILDREN)
        .map(|c| {
            let args = vec![
                c.to_string(),
                ROUNDS.to_string(),
                referrers[c].clone(),
                referrers[(c + 1) % CHILDREN].clone(),
                sources.join(","),
            ];
            ("mix", args)
        })
        .collect();
    let started = Instant::now();
    let finished = run_together(specs, &root, deadline(50));
    eprintln!(
        "{CHILDREN} continue/release/update processes finished in {:?}",
        started.elapsed()
    );

    let rows: HashMap<String, _> = memory
        .sessions()
        .expect("the index parses")
        .into_iter()
        .map(|r| (r.session_id.to_string(), r))
        .collect();
    assert_eq!(rows.len(), sources.len() + referrers.len());

    // What the final operations say: source -> the referrers that must reference it.
    let mut expected_links: BTreeMap<&str, BTreeSet<String>> = sources
        .iter()
        .map(|s| (s.as_str(), BTreeSet::new()))
        .collect();
    let mut decisions: HashMap<String, Vec<String>> = HashMap::new();
    for f in &finished {
        let links = f.reports_of("link");
        assert_eq!(links.len(), sources.len(), "{}", f.label);
        for words in links {
            if words[2] == "1" {
                expected_links
                    .get_mut(words[1].as_str())
                    .unwrap()
                    .insert(words[0].clone());
            }
        }
        for words in f.reports_of("decision") {
            decisions
                .entry(words[0].clone())
                .or_default()
                .push(words[1].clone());
        }
    }

    let snapshots: HashMap<&str, _> = referrers
        .iter()
        .map(|r| {
            (
                r.as_str(),
                memory.snapshot(r).unwrap().expect("referrer snapshot"),
            )
        })
        .collect();
    for source in &sources {
        let row = &rows[source];
        let referenced: BTreeSet<String> =
            row.referenced_by.iter().map(ToString::to_string).collect();
        assert_eq!(
            referenced.len(),
            row.referenced_by.len(),
            "{source}: Referenced By lists an id twice"
        );
        assert_eq!(referenced, expected_links[source.as_str()], "{source}");
        for referrer in &referrers {
            let continues = snapshots[referrer.as_str()]
                .continues_from
                .iter()
                .any(|s| s.as_str() == source);
            assert_eq!(
                referenced.contains(referrer),
                continues,
                "{referrer} in Referenced By of {source} iff {source} in its Continues From"
            );
        }
    }
    for referrer in &referrers {
        for s in &snapshots[referrer.as_str()].continues_from {
            assert!(
                sources.contains(&s.to_string()),
                "{referrer} continues from {s}"
            );
        }
        assert_eq!(rows[referrer].status, Status::Active);
    }
    for (id, tags) in &decisions {
        let snapshot = memory.snapshot(id).unwrap().expect("snapshot");
        let present: HashSet<&str> = snapshot.decisions.iter().map(|d| d.text.as_str()).collect();
        for tag in tags {
            assert!(present.contains(tag.as_str()), "{id} lost decision {tag}");
        }
        assert_eq!(
            present.len(),
            tags.len(),
            "{id}: only acknowledged decisions"
        );
    }
    assert_eq!(
        decisions.values().map(Vec::len).sum::<usize>(),
        CHILDREN * ROUNDS * (sources.len() + 1)
    );
    assert_eq!(temp_files(&root), Vec::<std::path::PathBuf>::new());
}

/// While another process holds the lock, every write waits its 100 ms and fails with
/// `LockTimeout`, changing no byte; once the holder lets go, writes succeed.
#[test]
fn writes_time_out_while_another_process_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let memory = memory_at(&root);
    let source = memory
        .register_manual(ManualRegistration::new("a", "Source", "Did things."))
        .unwrap();
    let current = memory
        .register_manual(ManualRegistration::new("b", "Current", "Goes on."))
        .unwrap();
    memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    let idle = memory.register_session_start("c").unwrap();
    let before = tree_bytes(&root);

    let mut holder = Worker::spawn("worker", "hold-lock", &root, &[]);
    holder.wait_for("locked", deadline(20));

    let impatient = AgentMemory::builder(&root)
        .lock_timeout(Duration::from_millis(100))
        .open()
        .unwrap();
    type Attempt<'a> = (&'a str, Box<dyn Fn() -> memory_core::Result<()> + 'a>);
    let attempts: Vec<Attempt> = vec![
        (
            "register_session_start",
            Box::new(|| impatient.register_session_start("d").map(drop)),
        ),
        (
            "register_manual",
            Box::new(|| {
                impatient
                    .register_manual(ManualRegistration::new("d", "T", "S").decision("x"))
                    .map(drop)
            }),
        ),
        (
            "update",
            Box::new(|| {
                impatient
                    .update(idle.as_str(), SessionUpdate::new().decision("x"))
                    .map(drop)
            }),
        ),
        (
            "continue_from",
            Box::new(|| {
                impatient
                    .continue_from(idle.as_str(), source.as_str())
                    .map(drop)
            }),
        ),
        (
            "release",
            Box::new(|| {
                impatient
                    .release(current.as_str(), source.as_str())
                    .map(drop)
            }),
        ),
        (
            "organize",
            Box::new(|| impatient.organize(OrganizeOptions::default()).map(drop)),
        ),
        (
            "archive",
            Box::new(|| impatient.archive(idle.as_str()).map(drop)),
        ),
    ];
    for (name, attempt) in &attempts {
        let start = Instant::now();
        let err = attempt().expect_err(name);
        let waited = start.elapsed();
        assert_eq!(err.kind(), ErrorKind::LockTimeout, "{name}: {err}");
        assert!(
            waited >= Duration::from_millis(100),
            "{name} gave up after {waited:?}"
        );
        assert!(waited < Duration::from_secs(5), "{name} waited {waited:?}");
        assert_eq!(
            err.path(),
            Some(
                root.join(memory_core::agent_memory::LOCK_FILE_NAME)
                    .as_path()
            )
        );
    }
    assert!(
        tree_bytes(&root) == before,
        "a timed-out write changed a file"
    );

    holder.finish(deadline(20)).assert_success();
    let id = impatient
        .register_session_start("d")
        .expect("the lock is free again");
    assert!(memory.session(id.as_str()).is_ok());
}
