//! A program that does not take memory-core's lock (an editor, Obsidian, a sync client)
//! saves `index.md` or a snapshot between the moment an Agent Memory write read it and
//! its commit (from the fault hook that runs right before a step of the transaction, so
//! the save lands there for certain). The write is refused with `ChangedMeanwhile`
//! (a conflict naming that file), whatever it had already applied is undone, and the
//! other program's save stands byte for byte; run again, the write is made on top of it.

mod common;

use std::path::{Path, PathBuf};

use common::foreign::{HOOK_USERS, SAVES, Save, edit_before_step, no_leftovers, save};
use common::tree_bytes;
use memory_core::durable::fault;
use memory_core::{AgentMemory, Error, ErrorKind, ManualRegistration, SessionUpdate};

const NOTE: &str = "\nA note typed in an editor.\n";

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    memory: AgentMemory,
    id: String,
}

/// A memory with one active session that has a snapshot.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    let memory = AgentMemory::open(&root).unwrap();
    let id = memory
        .register_manual(
            ManualRegistration::new("agent-a", "Login bug", "Found the cookie bug.")
                .decision("Use bcrypt"),
        )
        .unwrap()
        .to_string();
    Fixture {
        _dir: dir,
        root,
        memory,
        id,
    }
}

/// `path`'s bytes with `extra` appended, saved the way `how` says.
fn add_to(path: &Path, extra: &str, how: Save) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    bytes.extend_from_slice(extra.as_bytes());
    save(path, &bytes, how);
    bytes
}

/// Runs `op` with another program saving `target` (its bytes plus `extra`) right before
/// step `step` is applied; asserts the refusal names `target`, the other program's
/// bytes stand and every other file is as it was. Returns the foreign bytes.
fn refused_over_a_foreign_save(
    fx: &Fixture,
    target: &Path,
    step: usize,
    how: Save,
    op: impl FnOnce(&AgentMemory) -> memory_core::Result<()>,
) -> Vec<u8> {
    let before = tree_bytes(&fx.root);
    let expected = {
        let mut bytes = std::fs::read(target).unwrap();
        bytes.extend_from_slice(NOTE.as_bytes());
        bytes
    };
    let hooked = target.to_path_buf();
    let calls = edit_before_step(step, move || {
        add_to(&hooked, NOTE, how);
    });
    let result = op(&fx.memory);
    fault::clear_hook();
    let label = format!("{how:?} {}", target.display());
    assert_eq!(
        calls.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "{label}: the save ran"
    );
    let err = result.expect_err(&label);
    assert_eq!(err.kind(), ErrorKind::Conflict, "{label}: {err}");
    assert!(
        matches!(&err, Error::ChangedMeanwhile { path, .. } if path == target),
        "{label}: {err:?}"
    );
    assert_eq!(std::fs::read(target).unwrap(), expected, "{label}");
    let mut after = tree_bytes(&fx.root);
    let rel = target.strip_prefix(&fx.root).unwrap().to_path_buf();
    assert_eq!(after.remove(&rel), Some(expected.clone()), "{label}");
    let mut unchanged = before;
    unchanged.remove(&rel);
    let own = |p: &PathBuf| p.to_string_lossy().starts_with(".memcore");
    after.retain(|p, _| !own(p));
    unchanged.retain(|p, _| !own(p));
    assert_eq!(
        after, unchanged,
        "{label}: only the other program's file changed"
    );
    no_leftovers(&fx.root);
    expected
}

#[test]
fn an_update_over_an_index_saved_meanwhile_is_refused_and_the_save_stands() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        let index = fx.memory.index_path();
        // Step 0 writes the snapshot, step 1 the index: the save lands before both.
        let id = fx.id.clone();
        refused_over_a_foreign_save(&fx, &index, 0, how, |m| {
            m.update(&id, SessionUpdate::new().decision("Use argon2"))
                .map(drop)
        });
        // Run again: made on top of the other program's save.
        fx.memory
            .update(&fx.id, SessionUpdate::new().decision("Use argon2"))
            .unwrap();
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
        let snapshot = fx.memory.snapshot(&fx.id).unwrap().unwrap();
        assert_eq!(snapshot.decisions.len(), 2, "{how:?}");
    }
}

#[test]
fn an_update_over_a_snapshot_saved_meanwhile_is_refused_and_the_save_stands() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        let snapshot = fx.memory.session_path(&fx.id).unwrap();
        let id = fx.id.clone();
        refused_over_a_foreign_save(&fx, &snapshot, 0, how, |m| {
            m.update(&id, SessionUpdate::new().decision("Use argon2"))
                .map(drop)
        });
        fx.memory
            .update(&fx.id, SessionUpdate::new().decision("Use argon2"))
            .unwrap();
        let text = std::fs::read_to_string(&snapshot).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
        assert!(text.contains("Use argon2"), "{how:?}: {text}");
    }
}

/// SessionStart appends one row to an index whose table ends the file. Another program's
/// save of the same length (a typo fixed in a cell) is told apart by its bytes.
#[test]
fn a_session_start_append_over_a_save_of_the_same_length_is_refused() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        let index = fx.memory.index_path();
        let before = std::fs::read(&index).unwrap();
        let edited = String::from_utf8(before.clone())
            .unwrap()
            .replace("Login bug", "Login bag");
        assert_eq!(edited.len(), before.len());
        let hooked = index.clone();
        let text = edited.clone();
        edit_before_step(0, move || save(&hooked, text.as_bytes(), how));
        let result = fx.memory.register_session_start("agent-b");
        fault::clear_hook();
        let err = result.expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::Conflict, "{how:?}: {err}");
        assert_eq!(err.path(), Some(index.as_path()), "{how:?}");
        assert_eq!(std::fs::read_to_string(&index).unwrap(), edited, "{how:?}");
        no_leftovers(&fx.root);
        let id = fx.memory.register_session_start("agent-b").unwrap();
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.starts_with(&edited), "{how:?}: {text}");
        assert!(text.contains(id.as_str()), "{how:?}");
    }
}

/// A SessionStart that appends by the remembered verdict on the index (every start after
/// a memory-core write does) depends on the index still having the digest it read: a save
/// of the same length in between is refused as on the full path, and the next start reads
/// the saved text whole.
#[test]
fn a_session_start_by_a_remembered_verdict_over_a_save_is_refused() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        fx.memory.register_session_start("agent-b").unwrap();
        let index = fx.memory.index_path();
        let before = std::fs::read_to_string(&index).unwrap();
        let edited = before.replace("Login bug", "Login bag");
        assert_eq!(edited.len(), before.len());
        let hooked = index.clone();
        let text = edited.clone();
        edit_before_step(0, move || save(&hooked, text.as_bytes(), how));
        let counted = fault::verdict_starts();
        let result = fx.memory.register_session_start("agent-c");
        fault::clear_hook();
        let err = result.expect_err("refused");
        assert_eq!(
            fault::verdict_starts(),
            counted + 1,
            "{how:?}: by the verdict"
        );
        assert_eq!(err.kind(), ErrorKind::Conflict, "{how:?}: {err}");
        assert_eq!(err.path(), Some(index.as_path()), "{how:?}");
        assert_eq!(std::fs::read_to_string(&index).unwrap(), edited, "{how:?}");
        no_leftovers(&fx.root);
        let id = fx.memory.register_session_start("agent-c").unwrap();
        assert_eq!(
            fault::verdict_starts(),
            counted + 1,
            "{how:?}: the saved text was read whole"
        );
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.starts_with(&edited), "{how:?}: {text}");
        assert!(text.contains(id.as_str()), "{how:?}");
    }
}

/// Archive moves the snapshot it read (its Continues From decides what is released): a
/// snapshot saved meanwhile is not moved, and the archive index made first is undone.
#[test]
fn an_archive_of_a_snapshot_saved_meanwhile_is_refused_and_nothing_moves() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        let snapshot = fx.memory.session_path(&fx.id).unwrap();
        let id = fx.id.clone();
        // Step 0 writes the archive index, step 1 moves the snapshot.
        refused_over_a_foreign_save(&fx, &snapshot, 1, how, |m| m.archive(&id).map(drop));
        assert!(!fx.memory.archive_dir(&fx.id).unwrap().exists(), "{how:?}");
        fx.memory.archive(&fx.id).unwrap();
        let moved = fx.memory.archive_dir(&fx.id).unwrap().join("session.md");
        let text = std::fs::read_to_string(moved).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
    }
}

/// Continue-from writes the current session's snapshot and both rows: an index saved
/// meanwhile refuses it, and the snapshot it had written already is put back.
#[test]
fn a_continuation_over_an_index_saved_meanwhile_is_refused() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let fx = fixture();
        let current = fx
            .memory
            .register_manual(ManualRegistration::new("agent-b", "Review", "Reviewing."))
            .unwrap()
            .to_string();
        let index = fx.memory.index_path();
        let source = fx.id.clone();
        // Step 0 writes the snapshot; the save lands before step 1, the index.
        refused_over_a_foreign_save(&fx, &index, 1, how, |m| {
            m.continue_from(&current, &source).map(drop)
        });
        fx.memory.continue_from(&current, &fx.id).unwrap();
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
    }
}
