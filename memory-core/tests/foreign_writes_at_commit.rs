//! A program that does not take memory-core's lock writes a file in the last moment
//! before its rename (from the fault hook that runs right before each step of a
//! transaction, so the write lands there for certain): the transaction is refused with
//! `ChangedMeanwhile`, the steps already made are undone, and the other program's file
//! stands as it wrote it. `remember` then plans again from the new file and loses
//! neither its fact nor the other program's line.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_core::durable::fault::{self, Phase};
use memory_core::durable::{MemoryLock, Transaction};
use memory_core::structured_memory::{Fact, StructuredMemory};
use memory_core::{Error, ErrorKind};

mod common;
use common::foreign::{Save, no_leftovers};

/// `text` saved as `path` the way `how` says (see `common::foreign::save`).
fn save(path: &Path, text: &str, how: Save) {
    common::foreign::save(path, text.as_bytes(), how);
}

static HOOK_USERS: Mutex<()> = Mutex::new(());

/// Runs `edit` from the hook right before step `step` is applied, the first `times` times.
fn edit_before_step(step: usize, times: usize, edit: impl Fn() + Send + Sync + 'static) {
    let calls = AtomicUsize::new(0);
    fault::set_hook(Arc::new(move |phase, n| {
        if phase == Phase::Apply && n == step && calls.fetch_add(1, Ordering::SeqCst) < times {
            edit();
        }
        Ok(())
    }));
}

#[test]
fn a_file_changed_right_before_its_step_refuses_the_commit_and_stands() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in [Save::Rename, Save::InPlace] {
        // Changed: the first target, the second, and a file the plan only read.
        for (step, changed) in [(0, "a.md"), (1, "b.md"), (0, "read.md")] {
            let label = format!("{how:?} {changed} before step {step}");
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path().to_path_buf();
            for name in ["a.md", "b.md", "read.md"] {
                std::fs::write(d.join(name), format!("old {name}\n")).unwrap();
            }
            let lock =
                MemoryLock::acquire(&d.join(".memcore.lock"), Duration::from_secs(5)).unwrap();
            let mut tx = Transaction::new(&lock);
            for name in ["a.md", "b.md", "read.md"] {
                tx.expect(d.join(name), Some(format!("old {name}\n").into_bytes()));
            }
            tx.write(d.join("a.md"), b"new a\n".to_vec())
                .write(d.join("b.md"), b"new b\n".to_vec());
            let target = d.join(changed);
            edit_before_step(step, 1, move || save(&target, "theirs\n", how));
            let err = tx.commit().unwrap_err();
            fault::clear_hook();
            assert_eq!(err.kind(), ErrorKind::Conflict, "{label}: {err}");
            assert!(
                matches!(&err, Error::ChangedMeanwhile { path, .. } if path == &d.join(changed)),
                "{label}: {err:?}"
            );
            for name in ["a.md", "b.md", "read.md"] {
                let expected = if name == changed {
                    "theirs\n".to_string()
                } else {
                    format!("old {name}\n")
                };
                assert_eq!(
                    std::fs::read_to_string(d.join(name)).unwrap(),
                    expected,
                    "{label}: {name}"
                );
            }
            no_leftovers(&d);
        }
    }
}

#[test]
fn a_file_created_right_before_its_step_is_not_overwritten() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("a.md"), "old a\n").unwrap();
    let lock = MemoryLock::acquire(&d.join(".memcore.lock"), Duration::from_secs(5)).unwrap();
    let mut tx = Transaction::new(&lock);
    tx.expect(d.join("a.md"), Some(b"old a\n".to_vec()))
        .expect(d.join("new.md"), None)
        .write(d.join("a.md"), b"new a\n".to_vec())
        .write(d.join("new.md"), b"mine\n".to_vec());
    let target = d.join("new.md");
    edit_before_step(1, 1, move || std::fs::write(&target, "theirs\n").unwrap());
    let err = tx.commit().unwrap_err();
    fault::clear_hook();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("new.md")).unwrap(),
        "theirs\n"
    );
    assert_eq!(std::fs::read_to_string(d.join("a.md")).unwrap(), "old a\n");
    no_leftovers(&d);
}

const INFRA: &str = "# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-06-03 [dns]: CoreDNS\n";

#[test]
fn remember_plans_again_when_a_file_changes_right_before_its_rename() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in [Save::Rename, Save::InPlace] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        std::fs::write(d.join("memory-infra.md"), INFRA).unwrap();
        std::fs::write(d.join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts\n").unwrap();
        let m = StructuredMemory::builder(&d)
            .fixed_time("2026-07-10T09:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        // Replacing `db` writes the topic and appends to the archive: two steps. The
        // other program adds a line to the topic right before the first, once.
        let topic = d.join("memory-infra.md");
        edit_before_step(0, 1, move || {
            let text = std::fs::read_to_string(&topic).unwrap();
            save(
                &topic,
                &format!("{text}- 2026-07-01 [hand]: typed in an editor\n"),
                how,
            );
        });
        let out = m.remember(
            Fact::new("memory-infra.md", "Postgres 17")
                .subject("db")
                .date("2026-07-09"),
        );
        fault::clear_hook();
        let out = out.unwrap_or_else(|e| panic!("{how:?}: {e}"));
        assert_eq!(out.entry.text, "Postgres 17");
        let text = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
        assert!(text.starts_with("# Infra\n"), "{how:?}: {text}");
        assert!(text.contains("typed in an editor"), "{how:?}: {text}");
        assert!(
            text.contains("Postgres 17") && text.contains("CoreDNS"),
            "{how:?}: {text}"
        );
        assert!(!text.contains("Postgres 15"), "{how:?}: {text}");
        let archive = std::fs::read_to_string(d.join("memory-archive.md")).unwrap();
        assert_eq!(
            archive.matches("Postgres 15").count(),
            1,
            "{how:?}: {archive}"
        );
        no_leftovers(&d);
    }
}

/// A file an in-place saver has just emptied (truncated, not yet written) is read again
/// until it holds what the saver writes: no plan is made from the empty moment.
#[test]
fn a_file_just_emptied_by_an_in_place_save_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    std::fs::write(d.join("memory-infra.md"), INFRA).unwrap();
    std::fs::write(d.join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts\n").unwrap();
    let m = StructuredMemory::builder(&d)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let topic = d.join("memory-infra.md");
    // Saved well after it was created (a file created and emptied within one tick of
    // the clock reads as created empty).
    std::thread::sleep(Duration::from_millis(30));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&topic)
        .unwrap();
    f.set_len(0).unwrap();
    let saver = std::thread::spawn(move || {
        use std::io::Write;
        std::thread::sleep(Duration::from_millis(40));
        (&f).write_all(INFRA.as_bytes()).unwrap();
    });
    let out = m
        .remember(
            Fact::new("memory-infra.md", "Fastly")
                .subject("cdn")
                .date("2026-07-09"),
        )
        .unwrap();
    saver.join().unwrap();
    assert_eq!(out.entry.text, "Fastly");
    let text = std::fs::read_to_string(&topic).unwrap();
    assert!(text.starts_with(INFRA), "{text}");
    assert!(text.contains("Fastly"), "{text}");
}

/// A program saves a file right after a multi-file commit put it in place (from the hook
/// that runs once every step is applied, before anything is read back): the commit made its
/// change, so it succeeds, and the other program's save stands. Reading the target back
/// would see their bytes and report a failed write (then roll back over their save);
/// the staged copy is what is read back. (A lone write reads its staged copy back the
/// same way; `memory-cli/tests/topics_foreign_writers.rs` races real processes at it.)
#[test]
fn a_file_saved_right_after_the_commit_is_not_a_failed_write() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in [Save::Rename, Save::InPlace] {
        for changed in ["a.md", "b.md"] {
            let label = format!("{how:?} {changed}");
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path().to_path_buf();
            let names = ["a.md", "b.md"];
            for name in names {
                std::fs::write(d.join(name), format!("old {name}\n")).unwrap();
            }
            let lock =
                MemoryLock::acquire(&d.join(".memcore.lock"), Duration::from_secs(5)).unwrap();
            let mut tx = Transaction::new(&lock);
            for name in names {
                tx.expect(d.join(name), Some(format!("old {name}\n").into_bytes()))
                    .write(d.join(name), format!("new {name}\n").into_bytes());
            }
            let target = d.join(changed);
            let calls = AtomicUsize::new(0);
            let hooked = target.clone();
            fault::set_hook(Arc::new(move |phase, _| {
                if phase == Phase::Verify && calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    // The save keeps the file's modification time, as a sync tool that
                    // copies it from another machine does, and as a save within the same
                    // clock tick as the commit's rename looks: only the bytes differ.
                    let modified = std::fs::metadata(&hooked).unwrap().modified().unwrap();
                    save(&hooked, "theirs\n", how);
                    if let Save::InPlace = how {
                        let file = std::fs::OpenOptions::new()
                            .write(true)
                            .open(&hooked)
                            .unwrap();
                        file.set_modified(modified).unwrap();
                    }
                }
                Ok(())
            }));
            let result = tx.commit();
            fault::clear_hook();
            result.unwrap_or_else(|e| panic!("{label}: {e}"));
            for name in names {
                let text = std::fs::read_to_string(d.join(name)).unwrap();
                let expected = if name == changed {
                    "theirs\n".to_string()
                } else {
                    format!("new {name}\n")
                };
                assert_eq!(text, expected, "{label}: {name}");
            }
            no_leftovers(&d);
        }
    }
}
