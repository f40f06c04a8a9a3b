//! A writer killed (`kill -9`) mid-write leaves its staged temp files behind: `check`
//! reports each under the directory by its path (not those of a writer still running),
//! and `compact`, under the lock, removes them and says which — never a live writer's.
//! Workers are copies of this test binary (see `common/mod.rs`).
#![cfg(unix)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Role, Worker, report, tree_bytes};
use memory_core::ErrorKind;
use memory_core::durable::fault::{self, Phase};
use memory_core::structured_memory::{DefaultCompactor, Fact, StructuredMemory};

fn open(root: &Path) -> StructuredMemory {
    StructuredMemory::builder(root)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .lock_timeout(Duration::from_millis(300))
        .open()
        .unwrap()
}

/// `staged`: writes a fact into a new topic (a step of several files) and, once every
/// file is staged but before the journal is written, reports `staged` and waits to be
/// killed, holding the lock.
#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    assert_eq!(role.name, "staged");
    fault::set_hook(Arc::new(|phase: Phase, step: usize| {
        if phase == Phase::Record && step == 0 {
            report(&["staged"]);
            std::thread::sleep(Duration::from_secs(60));
        }
        Ok(())
    }));
    let memory = StructuredMemory::open(&role.root).expect("open");
    let _ = memory.remember(
        Fact::new("memory-new.md", "a fact never acknowledged")
            .date("2026-07-10")
            .hook("new things"),
    );
    report(&["survived"]);
}

fn seed(root: &Path) {
    std::fs::create_dir_all(root.join("sessions")).unwrap();
    std::fs::write(root.join("MEMORY.md"), "- [Ok](memory-ok.md) — fine\n").unwrap();
    std::fs::write(root.join("memory-ok.md"), "- 2026-07-01: fine\n").unwrap();
}

fn leftovers(m: &StructuredMemory) -> Vec<(String, usize)> {
    m.check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "leftover_temp_file")
        .map(|v| (v.file, v.line))
        .collect()
}

/// The staged temp files and backups under `root` (`.<name>.tmp-<pid>-<n>`,
/// `.<name>.bak-<pid>-<n>`), relative, `/`-separated, sorted.
fn temp_files(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = tree_bytes(root)
        .into_keys()
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with('.') && (n.contains(".tmp-") || n.contains(".bak-"))
            })
        })
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_killed_writer_s_temp_files_are_reported_by_check_and_removed_by_compact() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    seed(&root);
    let before = std::fs::read(root.join("MEMORY.md")).unwrap();
    let mut worker = Worker::spawn("worker", "staged", &root, &[]);
    worker.wait_for("staged", Instant::now() + Duration::from_secs(30));
    let pid = worker.pid();
    let m = open(&root);
    let staged = temp_files(&root);
    assert!(!staged.is_empty(), "the writer staged files");

    // While it runs, its temp files are its write in progress: not reported, and
    // compact cannot take the lock to remove them.
    assert_eq!(leftovers(&m), []);
    let err = m.compact(None, &DefaultCompactor, false).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LockTimeout);
    assert_eq!(temp_files(&root), staged);

    let finished = worker.kill();
    assert!(!finished.reports.iter().any(|r| r == "survived"));
    // A temp file of the same dead writer in a folder (Agent Memory's tree) too.
    let nested = format!("sessions/.x.md.tmp-{pid}-0");
    std::fs::write(root.join(&nested), "half").unwrap();
    let mut expected = staged.clone();
    expected.push(nested.clone());
    expected.sort();

    let found = leftovers(&m);
    let files: Vec<String> = found.iter().map(|(f, _)| f.clone()).collect();
    assert_eq!(files, expected, "reported by path");
    assert!(found.iter().all(|(_, line)| *line == 0));
    let message = &m
        .check()
        .unwrap()
        .into_iter()
        .find(|v| v.kind.as_str() == "leftover_temp_file")
        .unwrap()
        .message;
    assert!(message.contains("compact"), "{message}");
    // The files the writer was changing are as they were.
    assert_eq!(std::fs::read(root.join("MEMORY.md")).unwrap(), before);
    assert!(!root.join("memory-new.md").exists());

    // A dry run lists them and removes nothing.
    let dry = m.compact(None, &DefaultCompactor, true).unwrap();
    assert_eq!(dry.removed_temp_files, expected);
    assert_eq!(leftovers(&m).len(), expected.len());

    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    assert_eq!(report.removed_temp_files, expected);
    assert!(temp_files(&root).is_empty());
    assert_eq!(m.check().unwrap(), []);
    assert_eq!(std::fs::read(root.join("MEMORY.md")).unwrap(), before);
    // Nothing left to remove the next time.
    let again = m.compact(None, &DefaultCompactor, false).unwrap();
    assert!(again.removed_temp_files.is_empty());
}
