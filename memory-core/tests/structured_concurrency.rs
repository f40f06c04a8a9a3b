//! Writers in separate processes on one structured-memory directory at once: every
//! acknowledged fact is there exactly once, every new topic has exactly one index line,
//! nothing is an orphan, and the budget trigger's compactions lose nothing either.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{Role, Worker, report, wait_for_go};
use memory_core::structured_memory::{Budgets, Fact, StructuredMemory};

fn open(root: &std::path::Path) -> StructuredMemory {
    StructuredMemory::builder(root)
        .budgets(Budgets::default().topic_lines(12))
        .lock_timeout(Duration::from_secs(60))
        .open()
        .expect("open")
}

#[test]
fn concurrent_writers_in_processes_lose_no_fact_and_no_index_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut workers: Vec<Worker> = (0..4)
        .map(|w| {
            Worker::spawn(
                "worker",
                "remember",
                &root,
                &[w.to_string(), "8".to_string()],
            )
        })
        .collect();
    for w in &mut workers {
        w.wait_for("ready", deadline);
    }
    for w in &mut workers {
        w.go();
    }
    let mut acknowledged = BTreeSet::new();
    for w in workers {
        let finished = w.finish(deadline);
        finished.assert_success();
        for r in finished.reports_of("remembered") {
            assert!(
                acknowledged.insert(r[0].clone()),
                "acknowledged twice: {}",
                r[0]
            );
        }
    }
    assert_eq!(acknowledged.len(), 32);
    let m = open(&root);
    let mut live = String::new();
    for e in std::fs::read_dir(&root).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            live.push_str(&std::fs::read_to_string(e.path()).unwrap());
        }
    }
    for fact in &acknowledged {
        assert_eq!(
            live.matches(fact.as_str()).count(),
            1,
            "{fact} lost or duplicated"
        );
    }
    let index = m.index().unwrap();
    let files: BTreeSet<&str> = index.lines.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(files.len(), index.lines.len(), "an index line twice");
    let found = m.check().unwrap();
    assert!(
        !found.iter().any(|v| matches!(
            v.kind.as_str(),
            "orphan_topic" | "dangling_index_line" | "duplicate_index_line"
        )),
        "{found:#?}"
    );
}

#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    assert_eq!(role.name, "remember");
    let (child, count): (usize, usize) = (role.arg(0), role.arg(1));
    let m = open(&role.root);
    report(&["ready"]);
    if !wait_for_go() {
        return;
    }
    for k in 0..count {
        // Two topics shared by every writer, and one of its own; distinct subjects, so
        // nothing merges away.
        let topic = match k % 3 {
            0 => "memory-shared.md".to_string(),
            1 => "memory-common.md".to_string(),
            _ => format!("memory-w{child}.md"),
        };
        let text = format!("fact-{child}-{k} holds");
        m.remember(
            Fact::new(topic, &text)
                .subject(format!("s-{child}-{k}"))
                .hook("shared facts"),
        )
        .expect("remember");
        report(&["remembered", &text]);
    }
}
