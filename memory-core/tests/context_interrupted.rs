//! The seed's "Steps 5 and 6 are atomic — never create a file without updating the index",
//! at every point where a write can be interrupted: a real child process killed there,
//! and an I/O error injected there. Afterwards the tree is exactly the old state or the
//! new state, the index and the files agree, and writing again completes it.
#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{Role, Worker, copy_tree, fault_points, settled_state};
use memory_core::context_memory::{Category, ContextMemory, NewEntry, Query};
use memory_core::durable::fault;

const T0: &str = "2026-04-03T10:00:00Z";
const T1: &str = "2026-04-04T09:30:00Z";

static HOOK_USERS: Mutex<()> = Mutex::new(());

struct Scenario {
    name: &'static str,
    setup: fn(&ContextMemory),
    op: fn(&ContextMemory) -> memory_core::Result<()>,
}

fn first_entry() -> NewEntry {
    NewEntry::new(
        "project.app",
        Category::Decision,
        ["api", "auth"],
        "Auth uses JWT.",
    )
    .unwrap()
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "write-into-a-new-namespace",
        setup: |_| {},
        op: |m| m.write(first_entry()).map(drop),
    },
    Scenario {
        name: "write-beside-an-entry",
        setup: |m| {
            m.write(first_entry()).expect("setup write");
        },
        op: |m| {
            m.write(
                NewEntry::new(
                    "project.app",
                    Category::Risk,
                    ["ops", "pager"],
                    "The rota is thin.",
                )
                .unwrap(),
            )
            .map(drop)
        },
    },
    Scenario {
        name: "supersede-in-the-namespace",
        setup: |m| {
            m.write(first_entry()).expect("setup write");
        },
        op: |m| {
            m.supersede(
                "project.app.decision.001",
                NewEntry::new(
                    "project.app",
                    Category::Decision,
                    ["api", "auth"],
                    "Auth uses SSO.",
                )
                .unwrap(),
            )
            .map(drop)
        },
    },
    Scenario {
        name: "promote-to-another-namespace",
        setup: |m| {
            m.write(first_entry()).expect("setup write");
        },
        op: |m| {
            m.promote_to("project.app.decision.001", "org.global")
                .map(drop)
        },
    },
    Scenario {
        name: "split-by-tag",
        setup: |m| {
            for (tags, body) in [
                (["api", "rest"], "Use REST."),
                (["api", "auth"], "Tokens are JWT."),
                (["ui", "css"], "Use CSS grid."),
                (["style", "names"], "Name plainly."),
            ] {
                m.write(NewEntry::new("project.app", Category::Decision, tags, body).unwrap())
                    .expect("setup");
            }
            m.write(
                NewEntry::new(
                    "org.global",
                    Category::Principle,
                    ["links", "reuse"],
                    "See the API rule.",
                )
                .unwrap()
                .related(
                    memory_core::context_memory::EntityName::parse("project.app.decision.001")
                        .unwrap(),
                ),
            )
            .expect("setup link");
        },
        op: |m| {
            let ns = memory_core::context_memory::Namespace::parse("project.app").unwrap();
            m.split(&ns, &memory_core::context_memory::SplitPlan::by_tag())
                .map(drop)
        },
    },
];

fn open(root: &Path, at: &str) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time(at)
        .expect("time")
        .lock_timeout(Duration::from_secs(10))
        .open()
        .expect("open")
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
    assert!(
        points >= 5,
        "{}: not a journaled transaction ({points} points)",
        s.name
    );
    Prepared {
        old_root,
        old,
        new,
        points,
    }
}

/// The index and the files agree, and every entry reads.
fn assert_consistent(root: &Path, label: &str) {
    let m = open(root, T1);
    for info in m
        .namespaces()
        .unwrap_or_else(|e| panic!("{label}: namespaces: {e}"))
    {
        let drift = m
            .verify(&info.namespace)
            .unwrap_or_else(|e| panic!("{label}: verify: {e}"));
        assert!(!drift.has_drift(), "{label}: {drift:?}");
    }
    for hit in m
        .query(&Query::new().limit(usize::MAX))
        .unwrap_or_else(|e| panic!("{label}: query: {e}"))
    {
        m.get(hit.entity_name.as_str())
            .unwrap_or_else(|e| panic!("{label}: get: {e}"));
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
fn a_kill_at_any_point_of_a_write_leaves_the_old_or_the_new_state() {
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
            // The first command after the kill finishes or undoes the write.
            assert_consistent(&root, &label);
            if settled_state(&root) == p.old {
                outcomes.0 += 1;
            } else {
                outcomes.1 += 1;
            }
            check(s, &p, &root, &label);
        }
        assert!(outcomes.0 > 0 && outcomes.1 > 0, "{}: {outcomes:?}", s.name);
    }
}

#[test]
fn an_io_failure_at_any_point_of_a_write_leaves_the_old_or_the_new_state() {
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
