//! The structured-memory writes and compactions at every point where they can be
//! interrupted — a real child process killed there, an I/O error injected there: the tree
//! is the old state or the new one, no topic file is an orphan and no index line dangles,
//! and running the command again completes it.
#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{Role, Worker, copy_tree, fault_points, settled_state};
use memory_core::durable::fault;
use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, DefaultCompactor, Fact, MemoryIndex, StructuredMemory,
};

const T0: &str = "2026-07-01T09:00:00Z";
const T1: &str = "2026-07-10T09:00:00Z";

static HOOK_USERS: Mutex<()> = Mutex::new(());

struct Scenario {
    name: &'static str,
    setup: fn(&StructuredMemory),
    op: fn(&StructuredMemory) -> memory_core::Result<()>,
}

fn fact(text: &str, subject: &str, date: &str) -> Fact {
    Fact::new("memory-infra.md", text)
        .subject(subject)
        .date(date)
        .hook("hosts, databases")
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "remember-a-new-topic",
        setup: |_| {},
        op: |m| {
            m.remember(fact("Postgres 16", "db", "2026-07-01"))
                .map(drop)
        },
    },
    Scenario {
        name: "remember-merging-a-subject",
        setup: |m| {
            m.remember(fact("Postgres 15", "db", "2026-06-01"))
                .expect("setup");
        },
        op: |m| {
            m.remember(fact("Postgres 16", "db", "2026-07-01"))
                .map(drop)
        },
    },
    Scenario {
        name: "compact-collapsing-generations",
        setup: |_| {},
        op: |m| {
            m.compact(Some("memory-infra.md"), &DefaultCompactor, false)
                .map(drop)
        },
    },
    Scenario {
        name: "remember-that-splits",
        // A hand-kept topic of two sections past its budget: the write (under the last
        // section, its second entry there) splits that section out.
        setup: |_| {},
        op: |m| {
            m.remember(fact("backups run nightly", "backups", "2026-06-03").section("Databases"))
                .map(drop)
        },
    },
    Scenario {
        name: "restore-a-compaction",
        // Generations collapsed by a compaction, then the topic deleted by hand with its
        // line: restore recreates the file and its index line in one step.
        setup: |m| {
            m.compact(Some("memory-infra.md"), &DefaultCompactor, false)
                .expect("setup");
            std::fs::remove_file(m.root().join("memory-infra.md")).expect("setup");
            std::fs::write(m.root().join("MEMORY.md"), "# Memory\n").expect("setup");
        },
        op: |m| {
            let archive = std::fs::read_to_string(m.root().join("memory-archive.md"))
                .expect("the compaction archived");
            let id = archive
                .lines()
                .find_map(|l| l.strip_prefix("## ")?.split(' ').next())
                .expect("a section")
                .to_string();
            m.restore(&id).map(drop)
        },
    },
    Scenario {
        name: "remember-running-the-index-pass",
        // MEMORY.md at its budget with content lines: a new topic's line takes it over,
        // and the same step moves the content into a topic file.
        setup: |_| {},
        op: |m| {
            m.remember_with(
                Fact::new("memory-b.md", "b fact")
                    .hook("b things")
                    .date("2026-07-01"),
                &RouteToA,
            )
            .map(drop)
        },
    },
];

/// Routes every content line of the index into `memory-a.md`.
struct RouteToA;

impl Compactor for RouteToA {
    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok((0..index.content.len())
            .map(|i| (i, "memory-a.md".to_string()))
            .collect())
    }
}

fn open(root: &Path, at: &str) -> StructuredMemory {
    StructuredMemory::builder(root)
        .budgets(Budgets::default().topic_lines(4).index_lines(3))
        .fixed_time(at)
        .expect("time")
        .lock_timeout(Duration::from_secs(10))
        .open()
        .expect("open")
}

/// The collapse scenario starts from a hand-kept file with generations.
fn seed_files(name: &str, root: &Path) {
    if name == "remember-that-splits" {
        std::fs::create_dir_all(root).unwrap();
        std::fs::write(
            root.join("memory-infra.md"),
            "# Infra\n## Hosts\n- 2026-06-01: web1\n## Databases\n- 2026-06-02: pg on db1\n",
        )
        .unwrap();
        std::fs::write(
            root.join("MEMORY.md"),
            "- [Infra](memory-infra.md) — hosts, databases\n",
        )
        .unwrap();
    }
    if name == "remember-running-the-index-pass" {
        std::fs::create_dir_all(root).unwrap();
        std::fs::write(
            root.join("MEMORY.md"),
            "- [A](memory-a.md) — deploys\nThe deploy hook runs first.\nStaging needs the VPN.\n",
        )
        .unwrap();
        std::fs::write(root.join("memory-a.md"), "# A\n\n- 2026-06-01: a fact\n").unwrap();
    }
    if name == "compact-collapsing-generations" || name == "restore-a-compaction" {
        std::fs::create_dir_all(root).unwrap();
        let entries: String = (1..=6)
            .map(|i| format!("- 2026-06-0{i} [db]: Postgres 1{i}\n"))
            .collect();
        std::fs::write(root.join("memory-infra.md"), entries).unwrap();
        std::fs::write(
            root.join("MEMORY.md"),
            "- [Infra](memory-infra.md) — databases\n",
        )
        .unwrap();
    }
}

#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    let scenario = SCENARIOS
        .iter()
        .find(|s| s.name == role.args[0])
        .expect("scenario");
    let k: usize = role.arg(1);
    fault_points::abort_at(k);
    let _ = (scenario.op)(&open(&role.root, T1));
    println!("MEMCORE> survived");
}

struct Prepared {
    old_root: tempfile::TempDir,
    old: BTreeMap<PathBuf, Vec<u8>>,
    new: BTreeMap<PathBuf, Vec<u8>>,
    points: usize,
}

fn prepare(s: &Scenario) -> Prepared {
    let old_root = tempfile::tempdir().expect("tempdir");
    seed_files(s.name, old_root.path());
    (s.setup)(&open(old_root.path(), T0));
    let old = settled_state(old_root.path());
    let new_root = tempfile::tempdir().expect("tempdir");
    copy_tree(old_root.path(), new_root.path());
    let count = fault_points::count();
    let result = (s.op)(&open(new_root.path(), T1));
    fault::clear_hook();
    result.unwrap_or_else(|e| panic!("{}: the operation fails: {e}", s.name));
    let new = settled_state(new_root.path());
    assert_ne!(old, new, "{}: nothing changed", s.name);
    let points = *count.lock().expect("count");
    assert!(points >= 3, "{}: {points} points", s.name);
    Prepared {
        old_root,
        old,
        new,
        points,
    }
}

/// Every file reads, no orphan topic and no dangling line.
fn assert_consistent(root: &Path, label: &str) {
    let m = open(root, T1);
    let found = m.check().unwrap_or_else(|e| panic!("{label}: check: {e}"));
    for v in &found {
        assert!(
            !matches!(
                v.kind.as_str(),
                "orphan_topic" | "dangling_index_line" | "unreadable_topic"
            ),
            "{label}: {v:?}"
        );
    }
    for line in m
        .index()
        .unwrap_or_else(|e| panic!("{label}: index: {e}"))
        .lines
    {
        m.topic(&line.file)
            .unwrap_or_else(|e| panic!("{label}: topic: {e}"));
    }
}

fn check(s: &Scenario, p: &Prepared, root: &Path, label: &str) {
    assert_consistent(root, label);
    let after = settled_state(root);
    if after == p.old {
        (s.op)(&open(root, T1)).unwrap_or_else(|e| panic!("{label}: re-running fails: {e}"));
        assert_eq!(
            settled_state(root),
            p.new,
            "{label}: re-running did not reach the new state"
        );
    } else {
        assert_eq!(after, p.new, "{label}: neither the old nor the new state");
    }
}

#[test]
fn a_kill_at_any_point_leaves_the_old_or_the_new_state() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for s in SCENARIOS {
        let p = prepare(s);
        let mut outcomes = (0, 0);
        for k in 0..p.points {
            let label = format!("{} killed at point {k}", s.name);
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join("memory");
            copy_tree(p.old_root.path(), &root);
            let worker = Worker::spawn(
                "worker",
                "kill-at",
                &root,
                &[s.name.to_string(), k.to_string()],
            );
            let finished = worker.finish(Instant::now() + Duration::from_secs(60));
            assert!(
                !finished.status.success() && !finished.reports.iter().any(|r| r == "survived"),
                "{label}: not killed: {finished:?}"
            );
            assert_consistent(&root, &label);
            if settled_state(&root) == p.old {
                outcomes.0 += 1;
            } else {
                outcomes.1 += 1;
            }
            check(s, &p, &root, &label);
        }
        assert!(outcomes.0 > 0, "{}: {outcomes:?}", s.name);
    }
}

#[test]
fn an_io_failure_at_any_point_leaves_the_old_or_the_new_state() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for s in SCENARIOS {
        let p = prepare(s);
        for k in 0..p.points {
            let label = format!("{} failing at point {k}", s.name);
            let dir = tempfile::tempdir().expect("tempdir");
            let root = dir.path().join("memory");
            copy_tree(p.old_root.path(), &root);
            fault_points::fail_at(k);
            let result = (s.op)(&open(&root, T1));
            fault::clear_hook();
            if result.is_err() {
                assert_eq!(
                    settled_state(&root),
                    p.old,
                    "{label}: a failed write changed the tree"
                );
            }
            check(s, &p, &root, &label);
        }
    }
}
