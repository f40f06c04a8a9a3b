//! A program that does not take memory-core's lock (an editor, Obsidian, a sync client)
//! saves `_index.md`, an entity file or `_pending_refresh.md` between the moment a
//! context-memory write read it and its commit (from the fault hook that runs right
//! before a step of the transaction, so the save lands there for certain). The write is
//! refused with `ChangedMeanwhile` (a conflict naming that file), whatever it had already
//! applied is undone, and the other program's save stands byte for byte; run again, the
//! write is made on top of it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::foreign::{HOOK_USERS, SAVES, Save, edit_before_step, no_leftovers, save};
use common::tree_bytes;
use memory_core::context_memory::{
    Category, ContextMemory, EntryPatch, EntryStatus, Namespace, NewEntry, RefreshTrigger,
    SplitPlan, append_pending_refresh,
};
use memory_core::durable::{MemoryLock, fault};
use memory_core::{Error, ErrorKind};

const NOTE: &str = "\nA note typed in an editor.\n";

fn memory(root: &Path) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn entry(namespace: &str, tags: [&str; 2], body: &str) -> NewEntry {
    NewEntry::new(namespace, Category::Decision, tags, body).unwrap()
}

/// Every file under `root` but memory-core's own lock.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut tree = tree_bytes(root);
    tree.retain(|p, _| !p.to_string_lossy().starts_with(".memcore"));
    tree
}

/// Runs `op` with another program adding [`NOTE`] to `target` right before step `step`
/// is applied; asserts the refusal names `target`, the other program's bytes stand and
/// every other file is as it was.
fn refused_over_a_foreign_save<T: std::fmt::Debug>(
    root: &Path,
    target: &Path,
    step: usize,
    how: Save,
    op: impl FnOnce() -> memory_core::Result<T>,
) {
    let mut unchanged = files(root);
    let mut expected = std::fs::read(target).unwrap();
    expected.extend_from_slice(NOTE.as_bytes());
    let (hooked, bytes) = (target.to_path_buf(), expected.clone());
    let calls = edit_before_step(step, move || save(&hooked, &bytes, how));
    let result = op();
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
    let rel = target.strip_prefix(root).unwrap().to_path_buf();
    unchanged.insert(rel, expected);
    assert_eq!(
        files(root),
        unchanged,
        "{label}: only the other program's file changed"
    );
    no_leftovers(root);
}

#[test]
fn a_write_over_an_index_saved_meanwhile_is_refused_and_the_save_stands() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        m.write(entry("org.global", ["auth", "security"], "Auth uses JWT."))
            .unwrap();
        let index = dir.path().join("org/global/_index.md");
        // Step 0 writes the new entity file, step 1 the index.
        let new = || entry("org.global", ["ops", "pager"], "The rota is thin.");
        refused_over_a_foreign_save(dir.path(), &index, 0, how, || m.write(new()));
        let out = m.write(new()).unwrap();
        let text = std::fs::read_to_string(&index).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
        assert!(
            text.contains(out.entry.entity_name.as_str()),
            "{how:?}: {text}"
        );
    }
}

#[test]
fn an_update_over_an_entity_file_saved_meanwhile_is_refused_and_the_save_stands() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let written = m
            .write(entry("org.global", ["auth", "security"], "Auth uses JWT."))
            .unwrap();
        let name = written.entry.entity_name.to_string();
        let file = dir.path().join(&written.entry.file);
        let patch = || EntryPatch::new().status(EntryStatus::Deprecated);
        refused_over_a_foreign_save(dir.path(), &file, 0, how, || m.update(&name, patch()));
        let updated = m.update(&name, patch()).unwrap();
        assert_eq!(updated.status, EntryStatus::Deprecated);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(NOTE.trim()), "{how:?}: {text}");
    }
}

/// A supersession writes the new entry, marks the old one and rewrites the index: the
/// old entry's file saved meanwhile refuses it, and the new file already made is undone.
#[test]
fn a_supersession_over_an_old_entry_saved_meanwhile_is_refused() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let old = m
            .write(entry(
                "org.global",
                ["auth", "security"],
                "Auth uses cookies.",
            ))
            .unwrap()
            .entry;
        let file = dir.path().join(&old.file);
        let new = || entry("org.global", ["auth", "security"], "Auth uses JWT.");
        let name = old.entity_name.to_string();
        // Step 0 writes the new entry, step 1 the old one marked superseded.
        refused_over_a_foreign_save(dir.path(), &file, 0, how, || m.supersede(&name, new()));
        m.supersede(&name, new()).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains(NOTE.trim()) && text.contains("superseded"),
            "{how:?}: {text}"
        );
    }
}

/// A split removes the files it moves only as it read them: one saved meanwhile stays,
/// and its copy in the domain (made first) is undone.
#[test]
fn a_split_of_an_entry_saved_meanwhile_is_refused_and_nothing_moves() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let moved = m
            .write(entry(
                "project.app",
                ["api", "backend"],
                "Endpoints are versioned.",
            ))
            .unwrap()
            .entry;
        m.write(entry(
            "project.app",
            ["db", "schema"],
            "Tables are snake case.",
        ))
        .unwrap();
        let file = dir.path().join(&moved.file);
        let ns = Namespace::parse("project.app").unwrap();
        let plan = || SplitPlan::mapping([(moved.entity_name.as_str(), "api")]).unwrap();
        // Step 0 writes the moved copy, step 1 removes the file read.
        refused_over_a_foreign_save(dir.path(), &file, 0, how, || m.split(&ns, &plan()));
        assert!(!dir.path().join("projects/app/api").exists(), "{how:?}");
        let report = m.split(&ns, &plan()).unwrap();
        let new = &report.moved[&moved.entity_name];
        assert!(
            m.get(new.as_str()).unwrap().body.contains(NOTE.trim()),
            "{how:?}"
        );
    }
}

/// A hook's append to `_pending_refresh.md` is made only onto the file it read.
#[test]
fn a_pending_refresh_append_over_a_file_saved_meanwhile_is_refused() {
    let _turn = HOOK_USERS.lock().unwrap_or_else(|p| p.into_inner());
    for how in SAVES {
        let dir = tempfile::tempdir().unwrap();
        let lock = MemoryLock::acquire(
            &dir.path().join(".memcore.lock"),
            std::time::Duration::from_secs(5),
        )
        .unwrap();
        let file = dir.path().join("projects/app/_pending_refresh.md");
        let at = |t: &str| format!("2026-04-03T{t}:00Z");
        append_pending_refresh(
            &lock,
            &file,
            RefreshTrigger::PostMerge,
            &at("10:00"),
            &["a.rs".into()],
        )
        .unwrap();
        refused_over_a_foreign_save(dir.path(), &file, 0, how, || {
            append_pending_refresh(
                &lock,
                &file,
                RefreshTrigger::PostCheckout,
                &at("11:00"),
                &["b.rs".into()],
            )
        });
        append_pending_refresh(
            &lock,
            &file,
            RefreshTrigger::PostCheckout,
            &at("11:00"),
            &["b.rs".into()],
        )
        .unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains(NOTE.trim()) && text.contains("b.rs"),
            "{how:?}: {text}"
        );
    }
}
