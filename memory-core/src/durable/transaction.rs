//! All-or-nothing changes to several files under one memory root: the one mechanism
//! every multi-file operation of every model uses (snapshot + index row, archive index +
//! moved snapshot + index, entity + `_index.md`, topic + `MEMORY.md` + archive).
//!
//! A [`Transaction`] runs under the root's [`MemoryLock`] in four phases:
//!
//! 1. **Stage.** Every new content goes to a private temp file beside its target and is
//!    flushed; an existing target gets a hard-linked backup (a copy where links are not
//!    supported). Nothing visible has changed; a failure removes the staged files.
//! 2. **Record.** The plan — targets, staged files, backups, moves — is written
//!    atomically to `<root>/.memcore.journal`. From here on the change is decided.
//! 3. **Apply.** Staged files are renamed over their targets and moves are made, in
//!    order — each file the plan was worked out from ([`Transaction::expect`]) compared
//!    again right before its step, so that a save by a program that does not take the
//!    lock is not overwritten; then every directory they changed is flushed, once (a
//!    crash before that rolls forward whichever renames reached the disk, so only the
//!    whole set must be durable before the clean-up). A failure here marks the journal
//!    `rollback` and puts every applied step back from its backup (but not over a save
//!    another program made on top of it since).
//! 4. **Clean.** Backups are removed and their directories flushed once, then the
//!    journal is removed.
//!
//! The next writer that takes the lock calls [`recover`] first: a journal in state
//! `apply` is rolled forward (every step is idempotent), one in state `rollback` is
//! rolled back. A kill or an I/O error at any point therefore leaves the old state or
//! the new one, never a mix that later commands misread.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::append::{self, Tail};
use super::atomic::{create_temp, parent_dir, sync_dir, write_temp};
use super::digest::{FileDigest, file_has_digest};
use super::fault::{self, Phase};
use super::{MemoryLock, read_text_if_exists, replace_atomically};
use crate::error::{Error, Result};

/// The journal's file name in the memory root.
pub const JOURNAL_FILE_NAME: &str = ".memcore.journal";

/// One change a [`Transaction`] makes.
#[derive(Debug)]
enum Change {
    Write {
        target: PathBuf,
        bytes: Vec<u8>,
    },
    Append {
        target: PathBuf,
        at: u64,
        text: String,
    },
    Move {
        from: PathBuf,
        to: PathBuf,
    },
    Remove {
        path: PathBuf,
    },
}

/// Several file changes under one memory root, applied as one step.
///
/// ```
/// use std::time::Duration;
/// use memory_core::durable::{MemoryLock, Transaction};
/// let dir = tempfile::tempdir().unwrap();
/// let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
/// std::fs::write(dir.path().join("old.md"), "moved\n").unwrap();
/// let mut tx = Transaction::new(&lock);
/// tx.write(dir.path().join("index.md"), b"# Memory Index\n".to_vec());
/// tx.rename(dir.path().join("old.md"), dir.path().join("archive/new.md"));
/// tx.commit().unwrap();
/// assert_eq!(std::fs::read_to_string(dir.path().join("archive/new.md")).unwrap(), "moved\n");
/// assert!(!dir.path().join("old.md").exists());
/// ```
#[derive(Debug)]
pub struct Transaction<'lock> {
    root: PathBuf,
    changes: Vec<Change>,
    /// What files must hold right before the step is made (`None`: no file), see
    /// [`Transaction::expect`].
    basis: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// What files must hold, named by digest (see [`Transaction::expect_digest`]).
    digests: Vec<(PathBuf, FileDigest)>,
    _lock: &'lock MemoryLock,
}

impl<'lock> Transaction<'lock> {
    /// A transaction over the root `lock` guards (the lock file's directory). Holding the
    /// lock is what makes the plan safe: no other memory-core writer runs meanwhile.
    pub fn new(lock: &'lock MemoryLock) -> Self {
        Transaction {
            root: parent_dir(lock.path()),
            changes: Vec::new(),
            basis: Vec::new(),
            digests: Vec::new(),
            _lock: lock,
        }
    }

    /// Makes the commit depend on `path` holding exactly `bytes` (`None`: no file there),
    /// what the change was worked out from. Programs that do not take memory-core's lock
    /// (an editor, an agent saving the file itself) may write it meanwhile: every such
    /// file is compared once the plan is recorded, before anything changes, and a file
    /// the transaction replaces, appends to or removes again right before its own step
    /// (a replace is an exchange on Linux, checked after it too). A difference is
    /// [`Error::ChangedMeanwhile`] with the old state in place (steps already made are
    /// undone) and the other program's file as it left it.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use memory_core::durable::{MemoryLock, Transaction};
    /// let dir = tempfile::tempdir().unwrap();
    /// # let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
    /// let (a, b) = (dir.path().join("a.md"), dir.path().join("b.md"));
    /// std::fs::write(&a, "read\n").unwrap();
    /// let mut tx = Transaction::new(&lock);
    /// tx.expect(&a, Some(b"read\n".to_vec())).write(&b, b"new\n".to_vec());
    /// std::fs::write(&a, "edited elsewhere\n").unwrap();
    /// let err = tx.commit().unwrap_err();
    /// assert_eq!(err.kind(), memory_core::ErrorKind::Conflict);
    /// assert!(!b.exists());
    /// ```
    pub fn expect(&mut self, path: impl Into<PathBuf>, bytes: Option<Vec<u8>>) -> &mut Self {
        let path = path.into();
        self.basis.retain(|(p, _)| p != &path);
        self.digests.retain(|(p, _)| p != &path);
        self.basis.push((path, bytes));
        self
    }

    /// Replaces `target` with `bytes` worked out from `read`, what the operation read of
    /// it (`None`: there was no file): [`Transaction::write`] with the commit depending
    /// on `target` still holding `read` ([`Transaction::expect`]). Every read-modify-write
    /// of a memory file goes through it, so that a save by a program that does not take
    /// the lock between the read and the commit is refused ([`Error::ChangedMeanwhile`])
    /// and stands, never overwritten.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use memory_core::durable::{MemoryLock, Transaction};
    /// let dir = tempfile::tempdir().unwrap();
    /// # let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
    /// let index = dir.path().join("index.md");
    /// std::fs::write(&index, "read\n").unwrap();
    /// let mut tx = Transaction::new(&lock);
    /// tx.write_over(&index, Some(b"read\n".to_vec()), b"read\nmine\n".to_vec());
    /// std::fs::write(&index, "read\ntheirs\n").unwrap();
    /// assert_eq!(tx.commit().unwrap_err().kind(), memory_core::ErrorKind::Conflict);
    /// assert_eq!(std::fs::read_to_string(&index).unwrap(), "read\ntheirs\n");
    /// ```
    pub fn write_over(
        &mut self,
        target: impl Into<PathBuf>,
        read: Option<Vec<u8>>,
        bytes: Vec<u8>,
    ) -> &mut Self {
        let target = target.into();
        self.expect(target.clone(), read);
        self.write(target, bytes)
    }

    /// [`Transaction::expect`] with the content named by its digest instead of held as
    /// bytes: the file is streamed and hashed where it would be compared (SessionStart
    /// appending to an index whose verdict it knows without holding its 3 MB). A write
    /// over such a file compares it right before a plain rename, without the exchange's
    /// second comparison.
    pub(crate) fn expect_digest(
        &mut self,
        path: impl Into<PathBuf>,
        digest: FileDigest,
    ) -> &mut Self {
        let path = path.into();
        self.basis.retain(|(p, _)| p != &path);
        self.digests.retain(|(p, _)| p != &path);
        self.digests.push((path, digest));
        self
    }

    /// The digest `path` must have before its step, when the commit depends on it so.
    fn digest_of(&self, path: &Path) -> Option<&FileDigest> {
        self.digests.iter().find(|(p, _)| p == path).map(|(_, d)| d)
    }

    /// What `path` must hold before its step, when the commit depends on it.
    fn basis_of(&self, path: &Path) -> Option<Option<&[u8]>> {
        self.basis
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.as_deref())
    }

    /// Compares every file the commit depends on that no step changes.
    fn check_read_only_basis(&self, steps: &[Step]) -> Result<()> {
        for (path, bytes) in &self.basis {
            if steps.iter().any(|s| s.touches(path)) {
                continue;
            }
            if !super::guarded_rename::holds(path, bytes.as_deref())? {
                return Err(super::guarded_rename::changed(path));
            }
        }
        for (path, digest) in &self.digests {
            if !steps.iter().any(|s| s.touches(path)) && !file_has_digest(path, digest)? {
                return Err(super::guarded_rename::changed(path));
            }
        }
        Ok(())
    }

    /// Replaces (or creates) `target` with `bytes`. `target` must be under the root.
    pub fn write(&mut self, target: impl Into<PathBuf>, bytes: Vec<u8>) -> &mut Self {
        self.changes.push(Change::Write {
            target: target.into(),
            bytes,
        });
        self
    }

    /// Appends `text` to `target`, which must exist, be under the root and hold exactly
    /// `at` bytes (its length when it was read; any other length means another program
    /// wrote it since, and the commit fails without writing). The journal records the
    /// append: a crash part-way is completed, or cut back to `at` bytes, by recovery.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use memory_core::durable::{MemoryLock, Transaction};
    /// let dir = tempfile::tempdir().unwrap();
    /// # let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
    /// std::fs::write(dir.path().join("index.md"), "| a |\n").unwrap();
    /// let mut tx = Transaction::new(&lock);
    /// tx.append(dir.path().join("index.md"), 6, "| b |\n".to_string());
    /// tx.commit().unwrap();
    /// assert_eq!(std::fs::read_to_string(dir.path().join("index.md")).unwrap(), "| a |\n| b |\n");
    /// ```
    pub fn append(&mut self, target: impl Into<PathBuf>, at: u64, text: String) -> &mut Self {
        self.changes.push(Change::Append {
            target: target.into(),
            at,
            text,
        });
        self
    }

    /// Moves `from` to `to` (whose directory is created when missing). Both must be under
    /// the root, `from` must exist and `to` must not.
    pub fn rename(&mut self, from: impl Into<PathBuf>, to: impl Into<PathBuf>) -> &mut Self {
        self.changes.push(Change::Move {
            from: from.into(),
            to: to.into(),
        });
        self
    }

    /// Removes `path` (which must exist and be under the root); it is kept as a backup
    /// until the transaction is complete.
    pub fn remove(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.changes.push(Change::Remove { path: path.into() });
        self
    }

    /// Whether the transaction holds no change.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let lock = memory_core::durable::MemoryLock::acquire(&dir.path().join("l"), std::time::Duration::from_secs(1)).unwrap();
    /// assert!(memory_core::durable::Transaction::new(&lock).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Applies every change as one step, with every written file read back: a new
    /// content as its staged copy right before its rename, an append, move or removal once
    /// every step is applied. A lone write needs no journal and is an atomic replace. On error the old state is in place
    /// (or, when even putting it back failed, the journal makes the next writer do it).
    pub fn commit(mut self) -> Result<()> {
        if let [Change::Write { target, bytes }] = self.changes.as_slice() {
            self.relative(target)?;
            for (path, basis) in &self.basis {
                if path != target && !super::guarded_rename::holds(path, basis.as_deref())? {
                    return Err(super::guarded_rename::changed(path));
                }
            }
            for (path, digest) in &self.digests {
                if !file_has_digest(path, digest)? {
                    return Err(super::guarded_rename::changed(path));
                }
            }
            let Some(basis) = self.basis_of(target) else {
                return super::atomic::replace_verified(target, bytes);
            };
            // The staged copy is read back before the rename puts it in place.
            return super::atomic::replace_if_unchanged(target, bytes, basis);
        }
        if self.changes.is_empty() {
            return Ok(());
        }
        let changes = std::mem::take(&mut self.changes);
        let mut steps = Vec::with_capacity(changes.len());
        let staged = self.stage(changes, &mut steps);
        if let Err(error) = staged {
            discard_staged(&steps);
            return Err(error);
        }
        // The journal's store flushes the root; a staged file or backup in another
        // directory must be durable before the plan that names it is.
        let mut staging = DirsToFlush::default();
        for step in &steps {
            for dir in step.staged_in() {
                if dir != self.root {
                    staging.add(dir);
                }
            }
        }
        if let Err(error) = staging.flush() {
            discard_staged(&steps);
            return Err(error);
        }
        let records = steps.iter().map(|s| s.record(&self.root)).collect();
        let mut journal = match records {
            Ok(records) => Journal {
                version: 1,
                state: State::Apply,
                steps: records,
            },
            Err(error) => {
                discard_staged(&steps);
                return Err(error);
            }
        };
        // Point 1 comes after the journal's rename: a store that fails once the journal
        // already stands (its directory flush failing, say).
        let recorded = fault::point(Phase::Record, 0)
            .map_err(|e| Error::io_op(self.journal_path(), "write", e))
            .and_then(|()| journal.store(&self.journal_path()))
            .and_then(|()| {
                fault::point(Phase::Record, 1)
                    .map_err(|e| Error::io_op(self.journal_path(), "fsync", e))
            });
        if let Err(error) = recorded {
            // The journal may stand although storing it failed (its rename done, the
            // directory flush not). Staged files may only go once it is surely gone:
            // otherwise the next writer would roll a plan forward without them. When it
            // cannot be removed, everything stays and that writer completes the plan.
            if remove_if_present(&self.journal_path()).is_ok() {
                discard_staged(&steps);
            }
            // The journal is memory-core's own hidden file: the user is told which of
            // their files could not be written (the first of the step), and why.
            return Err(match (error, steps.first()) {
                (
                    Error::Staging {
                        dir,
                        syscall,
                        source,
                        ..
                    },
                    Some(step),
                ) => Error::Staging {
                    path: step.target().to_path_buf(),
                    dir,
                    syscall,
                    source,
                },
                (error, _) => error,
            });
        }
        // The renames and removals are flushed once per directory after the last one
        // (not after each): until the journal is removed, a crash rolls the plan forward
        // whichever of them reached the disk, so only the whole set must be durable
        // before the plan is cleaned up.
        let mut dirs = DirsToFlush::default();
        // Programs that do not take the lock may have written a file the plan was made
        // from: compared here, before anything changes, and each target right before its
        // step (a difference rolls back whatever was applied).
        // The first step not applied when applying stops (every step applied: none).
        let mut unapplied_from = steps.len();
        let applied = steps.iter().enumerate().try_for_each(|(i, step)| {
            fault::point(Phase::Apply, i)
                .map_err(|e| Error::io_op(step.target(), step.syscall(), e))
                .and_then(|()| match i {
                    0 => self.check_read_only_basis(&steps),
                    _ => Ok(()),
                })
                .inspect_err(|_| unapplied_from = i)
                .and_then(|()| {
                    let guarded = step.guarded();
                    step.apply(
                        i,
                        &mut dirs,
                        self.basis_of(guarded),
                        self.digest_of(guarded),
                    )
                })
                .inspect_err(|e| {
                    // A step refused by its comparison changed nothing; one that failed
                    // part-way may have.
                    unapplied_from = if matches!(e, Error::ChangedMeanwhile { .. }) {
                        i
                    } else {
                        i + 1
                    };
                })
        });
        let flushed = applied.and_then(|()| {
            fault::point(Phase::Apply, steps.len())
                .map_err(|e| Error::io_op(&self.root, "fsync", e))
                .and_then(|()| dirs.flush())
        });
        if let Err(error) = flushed {
            journal.state = State::Rollback;
            // An append not made has nothing to undo, and its file may hold another
            // program's save now (what refused the commit), which undoing it would take
            // for a foreign end and refuse to touch: it leaves the plan.
            let keep: Vec<bool> = steps
                .iter()
                .enumerate()
                .map(|(i, step)| i < unapplied_from || !matches!(step, Step::Append { .. }))
                .collect();
            let mut kept = keep.iter();
            journal
                .steps
                .retain(|_| kept.next().copied().unwrap_or(true));
            // Until the journal says `rollback`, a crash must roll forward; if it cannot
            // be marked, rolling back here could be undone by that roll-forward.
            if journal.store(&self.journal_path()).is_ok() {
                let _ = self.roll_back_live(&steps, &keep);
            }
            return Err(error);
        }
        let verified = fault::point(Phase::Verify, 0)
            .map_err(|e| Error::io_op(self.journal_path(), "read", e))
            .and_then(|()| steps.iter().try_for_each(Step::verify));
        if let Err(error) = verified {
            // What is on disk is not what was decided: put the old state back from the
            // backups, so that a failure reported is a change not made.
            journal.state = State::Rollback;
            if journal.store(&self.journal_path()).is_ok() {
                let _ = self.roll_back_live(&steps, &vec![true; steps.len()]);
            }
            return Err(error);
        }
        // The new state is in place and verified; a failed clean-up is finished by the
        // next writer's recovery and does not make this commit fail. Nothing is rolled
        // forward here: every step was just applied, flushed and read back (rolling an
        // append forward would read it back and flush it a second time).
        if fault::point(Phase::Clean, 0).is_ok() {
            let _ = self.clean(&steps);
        }
        Ok(())
    }

    /// Stages `changes` into `steps` (the new contents move into the steps, which keep
    /// them for the read-back check).
    fn stage(&self, changes: Vec<Change>, steps: &mut Vec<Step>) -> Result<()> {
        for (i, change) in changes.into_iter().enumerate() {
            fault::point(Phase::Stage, i)
                .map_err(|e| Error::io_op(change_path(&change), "write", e))?;
            let step = match change {
                Change::Write { target, bytes } => {
                    self.relative(&target)?;
                    super::atomic::check_replaceable(&target)?;
                    let create_dirs = missing_dirs(&self.root, &parent_dir(&target))?;
                    // A file for a directory still to be made is staged in the root: the
                    // directory is made when the step is applied, after the plan is
                    // recorded, so that no interruption leaves it behind.
                    let staging_dir = if create_dirs.is_empty() {
                        parent_dir(&target)
                    } else {
                        self.root.clone()
                    };
                    let backup = backup_of(&target)?;
                    let staged = super::atomic::stage_verified(&staging_dir, &target, &bytes);
                    match staged {
                        Ok(staged) => Step::Write {
                            staged_id: super::guarded_rename::stamp(&staged),
                            target,
                            staged,
                            backup,
                            create_dirs,
                            bytes,
                        },
                        Err(error) => {
                            if let Some(backup) = &backup {
                                let _ = fs::remove_file(backup);
                            }
                            return Err(error);
                        }
                    }
                }
                Change::Append { target, at, text } => {
                    self.relative(&target)?;
                    append::check_appendable(&target, at)?;
                    Step::Append { target, at, text }
                }
                Change::Move { from, to } => {
                    self.relative(&from)?;
                    self.relative(&to)?;
                    if fs::symlink_metadata(&from).is_err() {
                        return Err(Error::io_op(
                            from,
                            "rename",
                            io::Error::new(io::ErrorKind::NotFound, "file to move not found"),
                        ));
                    }
                    if fs::symlink_metadata(&to).is_ok() {
                        return Err(Error::io_op(
                            to,
                            "rename",
                            io::Error::new(io::ErrorKind::AlreadyExists, "move target exists"),
                        ));
                    }
                    let create_dirs = missing_dirs(&self.root, &parent_dir(&to))?;
                    Step::Move {
                        from,
                        to,
                        create_dirs,
                    }
                }
                Change::Remove { path } => {
                    self.relative(&path)?;
                    let backup = backup_of(&path)?.ok_or_else(|| {
                        Error::io_op(
                            &path,
                            "unlink",
                            io::Error::new(io::ErrorKind::NotFound, "file to remove not found"),
                        )
                    })?;
                    Step::Remove { path, backup }
                }
            };
            steps.push(step);
        }
        Ok(())
    }

    fn journal_path(&self) -> PathBuf {
        self.root.join(JOURNAL_FILE_NAME)
    }

    fn relative(&self, path: &Path) -> Result<PathBuf> {
        relative_to(&self.root, path)
    }

    /// Rolls `journal` forward or back (by its state), then removes its backups and itself.
    fn finish(&self, journal: &Journal) -> Result<()> {
        let steps = journal
            .steps
            .iter()
            .map(|r| Step::from_record(&self.root, r))
            .collect::<Result<Vec<_>>>()?;
        match journal.state {
            State::Apply => {
                for step in &steps {
                    step.roll_forward(&self.journal_path())?;
                }
            }
            State::Rollback => {
                for step in steps.iter().rev() {
                    step.roll_back(&self.journal_path())?;
                }
            }
        }
        self.clean(&steps)
    }

    /// Rolls back `steps` as this commit staged and applied them (after the journal was
    /// marked `rollback`), those `undo` marks (an append never made is left alone): a
    /// target another program saved over since its step was made (it no longer holds
    /// this commit's file and bytes) keeps their save.
    fn roll_back_live(&self, steps: &[Step], undo: &[bool]) -> Result<()> {
        for (step, undo) in steps.iter().zip(undo).rev() {
            if !undo {
                continue;
            }
            if step.saved_over_since() {
                step.drop_staged()?;
                continue;
            }
            step.roll_back(&self.journal_path())?;
        }
        self.clean(steps)
    }

    /// Removes the backups of `steps` (rolled forward or back), then the journal.
    fn clean(&self, steps: &[Step]) -> Result<()> {
        // The backups go before the journal does, flushed once per directory: a crash in
        // between leaves the journal, and the next writer finishes the clean-up.
        let mut dirs = DirsToFlush::default();
        for (i, step) in steps.iter().enumerate() {
            fault::point(Phase::Clean, i + 1)
                .map_err(|e| Error::io_op(step.target(), "unlink", e))?;
            step.discard_backup(&mut dirs)?;
        }
        dirs.flush()?;
        remove_if_present(&self.journal_path())
    }
}

/// Finishes an interrupted [`Transaction`] under `root` (the lock's directory): rolls a
/// decided plan forward, an undecided or failed one back. Every writer calls it right
/// after taking the lock, and readers when they see a journal. Returns whether there was
/// one. A journal that does not parse is [`Error::Malformed`] and nothing is touched.
///
/// ```
/// use std::time::Duration;
/// use memory_core::durable::{MemoryLock, recover};
/// let dir = tempfile::tempdir().unwrap();
/// let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
/// assert!(!recover(&lock).unwrap());
/// ```
pub fn recover(lock: &MemoryLock) -> Result<bool> {
    let root = parent_dir(lock.path());
    let path = root.join(JOURNAL_FILE_NAME);
    let Some(text) = read_text_if_exists(&path)? else {
        return Ok(false);
    };
    let journal: Journal = serde_json::from_str(&text).map_err(|e| {
        Error::malformed(
            &path,
            e.line(),
            format!("the interrupted-change journal does not parse ({e}); nothing was changed"),
        )
    })?;
    let tx = Transaction {
        root,
        changes: Vec::new(),
        basis: Vec::new(),
        digests: Vec::new(),
        _lock: lock,
    };
    tx.finish(&journal)?;
    Ok(true)
}

/// Whether `root` holds an unfinished transaction's journal (a cheap check readers make
/// before reading without the lock).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// assert!(!memory_core::durable::has_journal(dir.path()));
/// ```
pub fn has_journal(root: &Path) -> bool {
    fs::symlink_metadata(root.join(JOURNAL_FILE_NAME)).is_ok()
}

/// The on-disk plan.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    version: u32,
    state: State,
    steps: Vec<Record>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum State {
    /// Decided: finish it.
    Apply,
    /// Failed while applying: put the old state back.
    Rollback,
}

/// One step as recorded, with paths relative to the root.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Record {
    Write {
        target: String,
        staged: String,
        backup: Option<String>,
        /// Directories the step makes (outermost first) and a roll-back removes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        create_dirs: Vec<String>,
    },
    Append {
        target: String,
        /// The file's length before the append.
        at: u64,
        text: String,
    },
    Move {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        create_dirs: Vec<String>,
    },
    Remove {
        path: String,
        backup: String,
    },
}

impl Journal {
    fn store(&self, path: &Path) -> Result<()> {
        // Serializing plain strings and enums cannot fail.
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        replace_atomically(path, format!("{text}\n").as_bytes())
    }
}

/// A staged step with absolute paths.
#[derive(Debug)]
enum Step {
    Write {
        target: PathBuf,
        staged: PathBuf,
        backup: Option<PathBuf>,
        /// Directories to make before the rename, outermost first.
        create_dirs: Vec<PathBuf>,
        /// What the target must hold afterwards (empty when read from a journal).
        bytes: Vec<u8>,
        /// The staged file's [`super::guarded_rename::Stamp`], to tell at read-back
        /// whether the target is still it, unchanged, or another program saved over it
        /// since (`None`: unknown).
        staged_id: Option<super::guarded_rename::Stamp>,
    },
    Append {
        target: PathBuf,
        at: u64,
        text: String,
    },
    Move {
        from: PathBuf,
        to: PathBuf,
        create_dirs: Vec<PathBuf>,
    },
    Remove {
        path: PathBuf,
        backup: PathBuf,
    },
}

impl Step {
    /// The directories this step staged a file or a backup in.
    fn staged_in(&self) -> Vec<PathBuf> {
        match self {
            Step::Write { staged, backup, .. } => std::iter::once(staged)
                .chain(backup.as_ref())
                .map(|p| parent_dir(p))
                .collect(),
            Step::Remove { backup, .. } => vec![parent_dir(backup)],
            Step::Append { .. } | Step::Move { .. } => Vec::new(),
        }
    }

    /// Whether the step replaces, appends to or removes `path`.
    fn touches(&self, path: &Path) -> bool {
        match self {
            Step::Move { from, to, .. } => from == path || to == path,
            _ => self.target() == path,
        }
    }

    /// The file whose [`Transaction::expect`]ed content is compared right before the
    /// step: the one it replaces, appends to or removes, the one a move takes away.
    fn guarded(&self) -> &Path {
        match self {
            Step::Move { from, .. } => from,
            _ => self.target(),
        }
    }

    fn target(&self) -> &Path {
        match self {
            Step::Write { target, .. } | Step::Append { target, .. } => target,
            Step::Move { to, .. } => to,
            Step::Remove { path, .. } => path,
        }
    }

    fn record(&self, root: &Path) -> Result<Record> {
        let rel = |p: &Path| -> Result<String> {
            let r = relative_to(root, p)?;
            r.to_str().map(str::to_string).ok_or_else(|| {
                Error::invalid(
                    "path",
                    &p.to_string_lossy(),
                    "is not valid UTF-8 and cannot be journaled",
                )
            })
        };
        Ok(match self {
            Step::Write {
                target,
                staged,
                backup,
                create_dirs,
                ..
            } => Record::Write {
                target: rel(target)?,
                staged: rel(staged)?,
                backup: backup.as_deref().map(rel).transpose()?,
                create_dirs: create_dirs.iter().map(|d| rel(d)).collect::<Result<_>>()?,
            },
            Step::Append { target, at, text } => Record::Append {
                target: rel(target)?,
                at: *at,
                text: text.clone(),
            },
            Step::Move {
                from,
                to,
                create_dirs,
            } => Record::Move {
                from: rel(from)?,
                to: rel(to)?,
                create_dirs: create_dirs.iter().map(|d| rel(d)).collect::<Result<_>>()?,
            },
            Step::Remove { path, backup } => Record::Remove {
                path: rel(path)?,
                backup: rel(backup)?,
            },
        })
    }

    fn from_record(root: &Path, record: &Record) -> Result<Step> {
        let abs = |p: &str| -> Result<PathBuf> {
            let path = Path::new(p);
            if path.components().all(|c| matches!(c, Component::Normal(_))) {
                Ok(root.join(path))
            } else {
                Err(Error::malformed(
                    root.join(JOURNAL_FILE_NAME),
                    0,
                    format!("journal path {p:?} leaves the memory root; nothing was changed"),
                ))
            }
        };
        Ok(match record {
            Record::Write {
                target,
                staged,
                backup,
                create_dirs,
            } => Step::Write {
                target: abs(target)?,
                staged: abs(staged)?,
                backup: backup.as_deref().map(abs).transpose()?,
                create_dirs: create_dirs.iter().map(|d| abs(d)).collect::<Result<_>>()?,
                bytes: Vec::new(),
                staged_id: None,
            },
            Record::Append { target, at, text } => Step::Append {
                target: abs(target)?,
                at: *at,
                text: text.clone(),
            },
            Record::Move {
                from,
                to,
                create_dirs,
            } => Step::Move {
                from: abs(from)?,
                to: abs(to)?,
                create_dirs: create_dirs.iter().map(|d| abs(d)).collect::<Result<_>>()?,
            },
            Record::Remove { path, backup } => Step::Remove {
                path: abs(path)?,
                backup: abs(backup)?,
            },
        })
    }

    /// The system call that applying the step makes (what an injected fault before it
    /// stands for).
    fn syscall(&self) -> &'static str {
        match self {
            Step::Write { .. } | Step::Move { .. } => "rename",
            Step::Append { .. } => "write",
            Step::Remove { .. } => "unlink",
        }
    }

    /// Applies step `n` of the transaction; the directories whose entries it changed
    /// go into `dirs`, to be flushed once all steps are applied.
    /// `basis` is what the [`Step::guarded`] file must hold right before (see
    /// [`Transaction::expect`]).
    /// `digest`, when given, is what it must hash to instead.
    fn apply(
        &self,
        n: usize,
        dirs: &mut DirsToFlush,
        basis: Option<Option<&[u8]>>,
        digest: Option<&FileDigest>,
    ) -> Result<()> {
        let unchanged = |path: &Path| match (basis, digest) {
            (Some(b), _) if !super::guarded_rename::holds(path, b)? => {
                Err(super::guarded_rename::changed(path))
            }
            (_, Some(d)) if !file_has_digest(path, d)? => Err(super::guarded_rename::changed(path)),
            _ => Ok(()),
        };
        match self {
            Step::Write {
                target,
                staged,
                create_dirs,
                ..
            } => {
                make_dirs(create_dirs)?;
                match basis {
                    Some(b) => {
                        super::guarded_rename::rename_if_unchanged(staged, target, b)?;
                        dirs.add(parent_dir(target));
                        if parent_dir(staged) != parent_dir(target) {
                            // As in `rename_for_flush`: arriving durable before leaving.
                            sync_dir(&parent_dir(target))?;
                            sync_dir(&parent_dir(staged))?;
                        }
                        Ok(())
                    }
                    None => {
                        unchanged(target)?;
                        rename_for_flush(staged, target, dirs)
                    }
                }
            }
            Step::Append { target, at, text } => {
                unchanged(target)?;
                append::write_at(target, *at, text.as_bytes(), Some(n))
            }
            Step::Move {
                from,
                to,
                create_dirs,
            } => {
                // The file moved is the one the change was worked out from, and the place
                // it goes is still free (staging found it so): a file another program
                // put there since is not replaced.
                unchanged(from)?;
                if exists(to) {
                    return Err(super::guarded_rename::changed(to));
                }
                make_dirs(create_dirs)?;
                rename_for_flush(from, to, dirs)
            }
            Step::Remove { path, .. } => {
                unchanged(path)?;
                fs::remove_file(path).map_err(|e| Error::io_op(path, "unlink", e))?;
                dirs.add(parent_dir(path));
                Ok(())
            }
        }
    }

    /// Applies the step unless it already was (recovery after a crash). `journal` is
    /// named when the files are not as any step of it explains.
    fn roll_forward(&self, journal: &Path) -> Result<()> {
        match self {
            Step::Append { target, at, text } => {
                match append::tail(target, *at, text.as_bytes())? {
                    // Done before the interruption; its flush may not have been.
                    Tail::Complete | Tail::Extended => append::flush(target)?,
                    Tail::Partial => append::write_at(target, *at, text.as_bytes(), None)?,
                    Tail::Foreign => return Err(append::foreign(target, journal)),
                }
            }
            Step::Write {
                target,
                staged,
                backup,
                create_dirs,
                ..
            } => {
                if displaced(staged, backup.as_deref()) {
                    // Applied by an exchange: the staged path holds the old file.
                    fs::remove_file(staged).map_err(|e| Error::io_op(staged, "unlink", e))?;
                } else if exists(staged) {
                    make_dirs(create_dirs)?;
                    rename_durably(staged, target)?;
                }
            }
            Step::Move {
                from,
                to,
                create_dirs,
            } => {
                if exists(from) && !exists(to) {
                    make_dirs(create_dirs)?;
                    rename_durably(from, to)?;
                }
            }
            Step::Remove { path, .. } => {
                if exists(path) {
                    fs::remove_file(path).map_err(|e| Error::io_op(path, "unlink", e))?;
                    sync_dir(&parent_dir(path))?;
                }
            }
        }
        Ok(())
    }

    /// Whether this is a replace this commit made that another program has saved over
    /// since (the target is no longer the staged file holding the staged bytes). Only a
    /// step as staged knows: one read from a journal never says so.
    fn saved_over_since(&self) -> bool {
        let Step::Write {
            target,
            staged,
            backup,
            bytes,
            staged_id,
            ..
        } = self
        else {
            return false;
        };
        let applied = !exists(staged) || displaced(staged, backup.as_deref());
        staged_id.is_some()
            && applied
            && (super::guarded_rename::stamp(target) != *staged_id
                || !super::guarded_rename::holds(target, Some(bytes)).unwrap_or(false))
    }

    /// Removes what is left at a write's staged path (the file an exchange displaced).
    fn drop_staged(&self) -> Result<()> {
        if let Step::Write { staged, .. } = self
            && exists(staged)
        {
            fs::remove_file(staged).map_err(|e| Error::io_op(staged, "unlink", e))?;
        }
        Ok(())
    }

    /// Undoes the step if it was applied; drops what was staged for it.
    fn roll_back(&self, journal: &Path) -> Result<()> {
        match self {
            Step::Append { target, at, text } => {
                match append::tail(target, *at, text.as_bytes())? {
                    Tail::Complete | Tail::Partial => append::truncate(target, *at)?,
                    // Cutting back would take what was added after it too.
                    Tail::Extended | Tail::Foreign => return Err(append::foreign(target, journal)),
                }
            }
            Step::Write {
                target,
                staged,
                backup,
                create_dirs,
                ..
            } => {
                let undone = self.undo_write(target, staged, backup.as_deref());
                undone.and_then(|()| remove_made_dirs(create_dirs))?;
            }
            Step::Move {
                from,
                to,
                create_dirs,
            } => {
                if exists(to) && !exists(from) {
                    rename_durably(to, from)?;
                }
                remove_made_dirs(create_dirs)?;
            }
            Step::Remove { path, backup } => {
                if !exists(path) && exists(backup) {
                    rename_durably(backup, path)?;
                }
            }
        }
        Ok(())
    }

    /// Puts the old content of a written target back (or removes a new one).
    fn undo_write(&self, target: &Path, staged: &Path, backup: Option<&Path>) -> Result<()> {
        if let Some(backup) = backup.filter(|b| displaced(staged, Some(b))) {
            // Applied by an exchange: the staged path holds the old file, as the backup does.
            rename_durably(backup, target)?;
            fs::remove_file(staged).map_err(|e| Error::io_op(staged, "unlink", e))?;
        } else if exists(staged) {
            // Not applied yet: the target is still the old file.
            fs::remove_file(staged).map_err(|e| Error::io_op(staged, "unlink", e))?;
        } else if let Some(backup) = backup {
            if exists(backup) {
                rename_durably(backup, target)?;
            }
        } else if exists(target) {
            // A new file that was applied: it did not exist before.
            fs::remove_file(target).map_err(|e| Error::io_op(target, "unlink", e))?;
            sync_dir(&parent_dir(target))?;
        }
        Ok(())
    }

    /// Removes the step's backup, if any; its directory goes into `dirs` to be flushed.
    fn discard_backup(&self, dirs: &mut DirsToFlush) -> Result<()> {
        let backup = match self {
            Step::Write {
                backup: Some(b), ..
            }
            | Step::Remove { backup: b, .. } => b,
            _ => return Ok(()),
        };
        match fs::remove_file(backup) {
            Ok(()) => {
                dirs.add(parent_dir(backup));
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io_op(backup, "unlink", e)),
        }
    }

    fn verify(&self) -> Result<()> {
        match self {
            // The staged copy was read back when it was staged, and the rename moved that
            // very file into place: a difference now is another program's save (by rename
            // or in place), which is not a failed write and is never undone.
            Step::Write { .. } => Ok(()),
            Step::Append { target, at, text } => {
                if append::tail(target, *at, text.as_bytes())? == Tail::Complete {
                    Ok(())
                } else {
                    Err(Error::verify(
                        target,
                        "the end of the file read back differs from what was appended",
                    ))
                }
            }
            Step::Move { from, to, .. } => {
                if exists(to) && !exists(from) {
                    Ok(())
                } else {
                    Err(Error::verify(to, "the file was not moved"))
                }
            }
            Step::Remove { path, .. } => {
                if exists(path) {
                    Err(Error::verify(path, "the file is still there after removal"))
                } else {
                    Ok(())
                }
            }
        }
    }
}

fn change_path(change: &Change) -> &Path {
    match change {
        Change::Write { target, .. } | Change::Append { target, .. } => target,
        Change::Move { from, .. } => from,
        Change::Remove { path } => path,
    }
}

/// Removes what staging left (temp files and backups) after a failure before the journal.
fn discard_staged(steps: &[Step]) {
    for step in steps {
        match step {
            Step::Write { staged, backup, .. } => {
                let _ = fs::remove_file(staged);
                if let Some(backup) = backup {
                    let _ = fs::remove_file(backup);
                }
            }
            Step::Remove { backup, .. } => {
                let _ = fs::remove_file(backup);
            }
            Step::Move { .. } | Step::Append { .. } => {}
        }
    }
}

/// Removes `path` if it is there and flushes its directory, so that it is gone for good.
fn remove_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io_op(path, "unlink", e)),
    }
    sync_dir(&parent_dir(path))
}

/// Whether `staged` holds the file an exchange displaced (it is `backup`'s inode).
fn displaced(staged: &Path, backup: Option<&Path>) -> bool {
    backup.is_some_and(|b| super::guarded_rename::same_file(staged, b))
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Directories whose entries a commit changed, each flushed once by [`DirsToFlush::flush`].
#[derive(Default)]
struct DirsToFlush(Vec<PathBuf>);

impl DirsToFlush {
    fn add(&mut self, dir: PathBuf) {
        if !self.0.contains(&dir) {
            self.0.push(dir);
        }
    }

    fn flush(self) -> Result<()> {
        self.0.iter().try_for_each(|dir| sync_dir(dir))
    }
}

/// Renames `from` over `to`; their directories go into `dirs` to be flushed.
/// A rename between two directories is flushed at once (destination first): a later
/// step's flush of the source directory alone (making a new directory flushes its
/// parent) must never make the file's leaving durable before its arriving, which a
/// roll-forward would take for a step already done.
fn rename_for_flush(from: &Path, to: &Path, dirs: &mut DirsToFlush) -> Result<()> {
    if parent_dir(from) != parent_dir(to) {
        return rename_durably(from, to);
    }
    fs::rename(from, to).map_err(|e| Error::io_op(to, "rename", e))?;
    dirs.add(parent_dir(to));
    Ok(())
}

fn rename_durably(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to).map_err(|e| Error::io_op(to, "rename", e))?;
    sync_dir(&parent_dir(to))?;
    if parent_dir(from) != parent_dir(to) {
        sync_dir(&parent_dir(from))?;
    }
    Ok(())
}

/// A backup of `path` when it exists: a hard link (the old content stays reachable
/// after the rename over `path`), or a flushed copy where links are not supported.
fn backup_of(path: &Path) -> Result<Option<PathBuf>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io_op(path, "lstat", e)),
    };
    if !meta.is_file() {
        return Err(Error::io_op(
            path,
            "link",
            io::Error::new(io::ErrorKind::InvalidInput, "is not a regular file"),
        ));
    }
    let dir = parent_dir(path);
    let (backup, file) = create_temp(&dir, path, "bak")?;
    drop(file);
    // `hard_link` needs a free name: the reserved temp name is swapped for the link.
    fs::remove_file(&backup).map_err(|e| Error::io_op(&backup, "unlink", e))?;
    if fs::hard_link(path, &backup).is_err() {
        let bytes = fs::read(path).map_err(|e| Error::read_failed(path, e))?;
        let (copy, file) = create_temp(&dir, path, "bak")?;
        if let Err(error) = write_temp(file, &copy, path, &bytes) {
            let _ = fs::remove_file(&copy);
            return Err(error);
        }
        return Ok(Some(copy));
    }
    Ok(Some(backup))
}

/// The directories from `root` down to `dir` that do not exist yet, outermost first.
fn missing_dirs(root: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut at = dir;
    while at != root && at.starts_with(root) {
        match fs::symlink_metadata(at) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(at.to_path_buf()),
            Err(e) => return Err(Error::io_op(at, "lstat", e)),
        }
        match at.parent() {
            Some(parent) => at = parent,
            None => break,
        }
    }
    missing.reverse();
    Ok(missing)
}

/// Makes each of `dirs` (outermost first) that is missing, private, and flushes its parent.
fn make_dirs(dirs: &[PathBuf]) -> Result<()> {
    for dir in dirs {
        if !exists(dir) {
            super::create_private_dir_all(dir)?;
        }
    }
    Ok(())
}

/// Removes each of `dirs` (made by a step being undone) that is empty, innermost first.
/// One that holds something is kept: nothing but the step's own file is ever removed.
fn remove_made_dirs(dirs: &[PathBuf]) -> Result<()> {
    for dir in dirs.iter().rev() {
        match fs::remove_dir(dir) {
            Ok(()) => sync_dir(&parent_dir(dir))?,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::DirectoryNotEmpty
                ) => {}
            Err(e) => return Err(Error::io_op(dir, "rmdir", e)),
        }
    }
    Ok(())
}

fn relative_to(root: &Path, path: &Path) -> Result<PathBuf> {
    match path.strip_prefix(root) {
        Ok(rel)
            if !rel.as_os_str().is_empty()
                && rel.components().all(|c| matches!(c, Component::Normal(_))) =>
        {
            Ok(rel.to_path_buf())
        }
        _ => Err(Error::invalid(
            "path",
            &path.to_string_lossy(),
            "is not inside the memory root",
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn locked(dir: &Path) -> MemoryLock {
        MemoryLock::acquire(&dir.join(".memcore.lock"), Duration::from_secs(1)).unwrap()
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir() {
                    stack.push(e.path());
                } else if name.contains(".tmp-")
                    || name.contains(".bak-")
                    || name == JOURNAL_FILE_NAME
                {
                    out.push(name);
                }
            }
        }
        out
    }

    #[test]
    fn write_move_and_remove_commit_together_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.md"), "old a").unwrap();
        fs::write(root.join("b.md"), "b").unwrap();
        fs::write(root.join("c.md"), "c").unwrap();
        let lock = locked(root);
        let mut tx = Transaction::new(&lock);
        tx.write(root.join("a.md"), b"new a".to_vec())
            .write(root.join("sub/new.md"), b"created".to_vec())
            .rename(root.join("b.md"), root.join("archive/x/b.md"))
            .remove(root.join("c.md"));
        tx.commit().unwrap();
        assert_eq!(fs::read(root.join("a.md")).unwrap(), b"new a");
        assert_eq!(fs::read(root.join("sub/new.md")).unwrap(), b"created");
        assert_eq!(fs::read(root.join("archive/x/b.md")).unwrap(), b"b");
        assert!(!root.join("b.md").exists() && !root.join("c.md").exists());
        assert!(leftovers(root).is_empty(), "{:?}", leftovers(root));
    }

    #[test]
    fn a_move_onto_an_existing_path_is_refused_before_anything_changes() {
        // (Failures while applying are rolled back; the fault-injection tests in
        // tests/interrupted.rs fail every step of every operation.)
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.md"), "old a").unwrap();
        fs::write(root.join("b.md"), "b").unwrap();
        fs::create_dir_all(root.join("d")).unwrap();
        fs::write(root.join("d/b.md"), "in the way").unwrap();
        let lock = locked(root);
        let mut tx = Transaction::new(&lock);
        tx.write(root.join("a.md"), b"new a".to_vec())
            .write(root.join("n.md"), b"new file".to_vec())
            .rename(root.join("b.md"), root.join("d/b.md"));
        let err = tx.commit().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Io);
        assert_eq!(fs::read(root.join("a.md")).unwrap(), b"old a");
        assert_eq!(fs::read(root.join("d/b.md")).unwrap(), b"in the way");
        assert!(!root.join("n.md").exists() && root.join("b.md").exists());
        assert!(leftovers(root).is_empty(), "{:?}", leftovers(root));
    }

    #[test]
    fn recovery_rolls_a_recorded_plan_forward_and_a_failed_one_back() {
        for state in ["apply", "rollback"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            // As a writer killed while applying leaves it: step 1 applied, step 2 staged.
            fs::write(root.join("a.md"), "new a").unwrap();
            fs::write(root.join(".a.md.bak-1-0"), "old a").unwrap();
            fs::write(root.join("b.md"), "old b").unwrap();
            fs::write(root.join(".b.md.bak-1-1"), "old b").unwrap();
            fs::write(root.join(".b.md.tmp-1-2"), "new b").unwrap();
            let journal = format!(
                r#"{{"version": 1, "state": "{state}", "steps": [
                  {{"op": "write", "target": "a.md", "staged": ".a.md.tmp-1-3", "backup": ".a.md.bak-1-0"}},
                  {{"op": "write", "target": "b.md", "staged": ".b.md.tmp-1-2", "backup": ".b.md.bak-1-1"}}]}}"#
            );
            fs::write(root.join(JOURNAL_FILE_NAME), journal).unwrap();
            let lock = locked(root);
            assert!(recover(&lock).unwrap());
            let expected: (&[u8], &[u8]) = if state == "apply" {
                (b"new a", b"new b")
            } else {
                (b"old a", b"old b")
            };
            assert_eq!(fs::read(root.join("a.md")).unwrap(), expected.0, "{state}");
            assert_eq!(fs::read(root.join("b.md")).unwrap(), expected.1, "{state}");
            assert!(leftovers(root).is_empty(), "{state}: {:?}", leftovers(root));
            assert!(!recover(&lock).unwrap(), "recovery runs once");
        }
    }

    /// A crash right after a replace made by exchange, before the file it displaced was
    /// removed, leaves that old file at the staged path (the backup's inode): a roll-forward
    /// keeps the new file and drops it, a roll-back puts the old file back.
    #[test]
    fn recovery_knows_a_staged_path_that_holds_the_file_an_exchange_displaced() {
        for state in ["apply", "rollback"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            fs::write(root.join(".a.md.bak-1-0"), "old a").unwrap();
            fs::hard_link(root.join(".a.md.bak-1-0"), root.join(".a.md.tmp-1-1")).unwrap();
            fs::write(root.join("a.md"), "new a").unwrap();
            let journal = serde_json::json!({"version": 1, "state": state, "steps": [
                {"op": "write", "target": "a.md", "staged": ".a.md.tmp-1-1", "backup": ".a.md.bak-1-0"}]});
            fs::write(root.join(JOURNAL_FILE_NAME), journal.to_string()).unwrap();
            let lock = locked(root);
            assert!(recover(&lock).unwrap());
            let expected = if state == "apply" { "new a" } else { "old a" };
            assert_eq!(
                fs::read_to_string(root.join("a.md")).unwrap(),
                expected,
                "{state}"
            );
            assert!(leftovers(root).is_empty(), "{state}: {:?}", leftovers(root));
        }
    }

    /// Every end of file a crash can leave after a recorded append: nothing written, a
    /// part, zeros where the size reached the disk before the data, all of it. A decided
    /// append is completed, a failed one cut back; an end no step explains (another
    /// program wrote the file since) is refused and nothing is touched.
    #[test]
    fn recovery_completes_or_cuts_back_a_recorded_append() {
        let old = "| a |\n";
        let row = "| b |\n";
        let tails: [&[u8]; 5] = [b"", b"| b", b"| b\0\0\0", b"\0\0\0\0\0\0", b"| b |\n"];
        for state in ["apply", "rollback"] {
            for tail in tails {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path();
                let mut bytes = old.as_bytes().to_vec();
                bytes.extend_from_slice(tail);
                fs::write(root.join("index.md"), &bytes).unwrap();
                let journal = serde_json::json!({"version": 1, "state": state, "steps": [
                    {"op": "append", "target": "index.md", "at": old.len(), "text": row}]});
                fs::write(root.join(JOURNAL_FILE_NAME), journal.to_string()).unwrap();
                let lock = locked(root);
                assert!(recover(&lock).unwrap());
                let expected = if state == "apply" {
                    format!("{old}{row}")
                } else {
                    old.to_string()
                };
                let label = format!("{state} {:?}", String::from_utf8_lossy(tail));
                assert_eq!(
                    fs::read_to_string(root.join("index.md")).unwrap(),
                    expected,
                    "{label}"
                );
                assert!(leftovers(root).is_empty(), "{label}: {:?}", leftovers(root));
            }
        }
        for foreign in ["| a |\n| x |\n", "| a |\n| x |\nmore\n", "| a"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            fs::write(root.join("index.md"), foreign).unwrap();
            let journal = serde_json::json!({"version": 1, "state": "apply", "steps": [
                {"op": "append", "target": "index.md", "at": old.len(), "text": row}]});
            fs::write(root.join(JOURNAL_FILE_NAME), journal.to_string()).unwrap();
            let lock = locked(root);
            let err = recover(&lock).unwrap_err();
            assert_eq!(
                err.kind(),
                crate::ErrorKind::Malformed,
                "{foreign:?}: {err}"
            );
            assert!(err.to_string().contains(JOURNAL_FILE_NAME), "{err}");
            assert_eq!(fs::read_to_string(root.join("index.md")).unwrap(), foreign);
            assert!(root.join(JOURNAL_FILE_NAME).exists());
        }
    }

    /// A decided append whose text is in place with more after it (another program
    /// appended since, or a journal removal a power loss undid) is done: recovery keeps
    /// everything. A failed one cannot be cut back without taking the later bytes: refused.
    #[test]
    fn an_append_found_done_with_more_after_it_is_kept_and_never_cut_back() {
        let old = "| a |\n";
        let row = "| b |\n";
        for later in ["| c |\n", "x", "| c |\n| d |\n"] {
            for state in ["apply", "rollback"] {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path();
                let text = format!("{old}{row}{later}");
                fs::write(root.join("index.md"), &text).unwrap();
                let journal = serde_json::json!({"version": 1, "state": state, "steps": [
                    {"op": "append", "target": "index.md", "at": old.len(), "text": row}]});
                fs::write(root.join(JOURNAL_FILE_NAME), journal.to_string()).unwrap();
                let lock = locked(root);
                let recovered = recover(&lock);
                assert_eq!(fs::read_to_string(root.join("index.md")).unwrap(), text);
                if state == "apply" {
                    assert!(recovered.unwrap(), "{later:?}");
                    assert!(leftovers(root).is_empty(), "{:?}", leftovers(root));
                } else {
                    let err = recovered.unwrap_err();
                    assert_eq!(err.kind(), crate::ErrorKind::Malformed, "{err}");
                    assert!(root.join(JOURNAL_FILE_NAME).exists());
                }
            }
        }
    }

    /// Directories a step makes are made only when it is applied, and a roll-back
    /// removes them again — unless something else was put in them meanwhile.
    #[test]
    fn a_rolled_back_plan_removes_the_directories_it_made_and_only_empty_ones() {
        for other_file in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            // As a writer killed after applying the move leaves it.
            fs::create_dir_all(root.join("archive/s1")).unwrap();
            fs::write(root.join("archive/s1/session.md"), "snapshot").unwrap();
            if other_file {
                fs::write(root.join("archive/s1/notes.md"), "mine").unwrap();
            }
            let journal = serde_json::json!({"version": 1, "state": "rollback", "steps": [
                {"op": "move", "from": "s1.md", "to": "archive/s1/session.md",
                 "create_dirs": ["archive", "archive/s1"]}]});
            fs::write(root.join(JOURNAL_FILE_NAME), journal.to_string()).unwrap();
            let lock = locked(root);
            assert!(recover(&lock).unwrap());
            assert_eq!(fs::read_to_string(root.join("s1.md")).unwrap(), "snapshot");
            assert_eq!(root.join("archive").exists(), other_file);
            assert_eq!(root.join("archive/s1/notes.md").exists(), other_file);
        }
        // Committed: the directories exist only once applied, and the staged file waited
        // in the root.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = locked(root);
        let mut tx = Transaction::new(&lock);
        tx.write(root.join("a/b/new.md"), b"new".to_vec())
            .write(root.join("top.md"), b"top".to_vec());
        tx.commit().unwrap();
        assert_eq!(fs::read(root.join("a/b/new.md")).unwrap(), b"new");
        assert!(leftovers(root).is_empty());
    }

    #[test]
    fn a_journal_that_does_not_parse_or_leaves_the_root_changes_nothing() {
        for journal in [
            "{ not json".to_string(),
            r#"{"version": 1, "state": "apply", "steps": [{"op": "remove", "path": "../outside.md", "backup": "x"}]}"#.to_string(),
            r#"{"version": 1, "state": "apply", "steps": [{"op": "move", "from": "/etc/passwd", "to": "p"}]}"#.to_string(),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("memory");
            fs::create_dir_all(&root).unwrap();
            fs::write(dir.path().join("outside.md"), "keep").unwrap();
            fs::write(root.join(JOURNAL_FILE_NAME), &journal).unwrap();
            let lock = locked(&root);
            let err = recover(&lock).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Malformed, "{journal}: {err}");
            assert_eq!(err.path(), Some(root.join(JOURNAL_FILE_NAME).as_path()));
            assert_eq!(fs::read(dir.path().join("outside.md")).unwrap(), b"keep");
            assert_eq!(fs::read_to_string(root.join(JOURNAL_FILE_NAME)).unwrap(), journal);
        }
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        fs::create_dir_all(&root).unwrap();
        let lock = locked(&root);
        let mut tx = Transaction::new(&lock);
        tx.write(dir.path().join("elsewhere.md"), b"x".to_vec())
            .write(root.join("in.md"), b"y".to_vec());
        assert_eq!(
            tx.commit().unwrap_err().kind(),
            crate::ErrorKind::InvalidInput
        );
        assert!(!dir.path().join("elsewhere.md").exists() && !root.join("in.md").exists());
    }
}
