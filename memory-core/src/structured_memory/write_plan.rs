//! A write worked out before it is made: the files it changes, what it read to decide,
//! and what it will report. A directory memory-core has never written to (no lock file
//! yet) is planned without the lock first, so that a refused write creates nothing — not
//! the directory, not the lock file, not `MEMORY.md`; the plan is then kept, under the
//! lock, only if every file it read still reads the same.

use std::path::PathBuf;

use super::memory::StructuredMemory;
use crate::durable::{LOCK_FILE_NAME, MemoryLock, Transaction, read_text_if_exists};
use crate::error::{Error, Result};

/// How many times a write is planned under the lock while another program keeps
/// changing the files it reads.
const PLAN_ATTEMPTS: usize = 3;

/// One file change of a plan.
pub(super) enum Change {
    /// Replace (or create) the file with this text.
    Write(PathBuf, String),
    /// Append this text to the file, which is this many bytes long.
    Append(PathBuf, u64, String),
    /// Remove the file (a topic the index pass merged into another).
    Remove(PathBuf),
}

/// A planned write and what it returns once made.
pub(super) struct Plan<T> {
    /// The changes, made as one step.
    pub changes: Vec<Change>,
    /// Every file the plan read or changes, with its text then (`None`: absent).
    pub basis: Vec<(PathBuf, Option<String>)>,
    /// What the write reports.
    pub outcome: T,
}

impl<T> Plan<T> {
    /// The first file the plan was made from that no longer reads the same, if any.
    fn changed(&self) -> Result<Option<&PathBuf>> {
        for (path, text) in &self.basis {
            if read_text_if_exists(path)? != *text {
                return Ok(Some(path));
            }
        }
        Ok(None)
    }

    /// Makes the changes as one step under `lock`, each file compared with what the plan
    /// was made from right before it changes ([`Transaction::expect`]): a program that
    /// does not take the lock may write it up to then. `Ok(Err(path))` when one had
    /// written `path`: nothing was changed.
    fn commit(self, lock: &MemoryLock) -> Result<std::result::Result<T, PathBuf>> {
        let mut tx = Transaction::new(lock);
        for (path, text) in &self.basis {
            tx.expect(path, text.as_ref().map(|t| t.as_bytes().to_vec()));
        }
        for change in self.changes {
            match change {
                Change::Write(path, text) => {
                    tx.write(path, text.into_bytes());
                }
                Change::Append(path, at, text) => {
                    tx.append(path, at, text);
                }
                Change::Remove(path) => {
                    tx.remove(path);
                }
            }
        }
        match tx.commit() {
            Ok(()) => Ok(Ok(self.outcome)),
            Err(Error::ChangedMeanwhile { path, .. }) => Ok(Err(path)),
            Err(e) => Err(e),
        }
    }
}

impl StructuredMemory {
    /// Plans a write with `plan` under the directory's lock and makes it. Without a lock
    /// file yet, `plan` runs first without the lock (a refusal then leaves the disk as it
    /// was); under the lock that plan is made if nothing it read has changed, and `plan`
    /// runs again otherwise. A plan made under the lock is checked once more before it is
    /// made, and each file again right before it changes (inside the commit): a program
    /// that does not take the lock may have written meanwhile (while a compactor ran,
    /// say); the write is then planned again, up to [`PLAN_ATTEMPTS`] times, and refused
    /// with [`Error::ChangedMeanwhile`] after that, the old state in place.
    pub(super) fn planned_write<T>(&self, plan: impl Fn() -> Result<Plan<T>>) -> Result<T> {
        let early = if self.root().join(LOCK_FILE_NAME).exists() {
            None
        } else {
            Some(plan()?)
        };
        let lock = self.handle.lock()?;
        if let Some(p) = early
            && p.changed()?.is_none()
            && let Ok(done) = p.commit(&lock)?
        {
            return Ok(done);
        }
        let mut attempt = 1;
        loop {
            let changed = match plan() {
                Ok(p) => match p.changed()? {
                    // Changed between this check and its step: planned again.
                    None => match p.commit(&lock)? {
                        Ok(done) => return Ok(done),
                        Err(path) => path,
                    },
                    Some(path) => path.clone(),
                },
                // A file kept changing while it was read.
                Err(Error::ChangedMeanwhile { path, .. }) => path,
                Err(e) => return Err(e),
            };
            if attempt == PLAN_ATTEMPTS {
                return Err(Error::ChangedMeanwhile {
                    path: changed,
                    operation: "remember",
                });
            }
            attempt += 1;
        }
    }
}
