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

    /// Makes the changes as one step under `lock`.
    fn commit(self, lock: &MemoryLock) -> Result<T> {
        let mut tx = Transaction::new(lock);
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
        tx.commit()?;
        Ok(self.outcome)
    }
}

impl StructuredMemory {
    /// Plans a write with `plan` under the directory's lock and makes it. Without a lock
    /// file yet, `plan` runs first without the lock (a refusal then leaves the disk as it
    /// was); under the lock that plan is made if nothing it read has changed, and `plan`
    /// runs again otherwise. A plan made under the lock is checked once more before it is
    /// made: a program that does not take the lock may have written meanwhile (while a
    /// compactor ran, say); the write is then planned again, up to [`PLAN_ATTEMPTS`]
    /// times, and refused with [`Error::ChangedMeanwhile`] after that.
    pub(super) fn planned_write<T>(&self, plan: impl Fn() -> Result<Plan<T>>) -> Result<T> {
        let early = if self.root().join(LOCK_FILE_NAME).exists() {
            None
        } else {
            Some(plan()?)
        };
        let lock = self.handle.lock()?;
        if let Some(p) = early
            && p.changed()?.is_none()
        {
            return p.commit(&lock);
        }
        let mut attempt = 1;
        loop {
            let p = plan()?;
            match p.changed()? {
                None => return p.commit(&lock),
                Some(path) if attempt == PLAN_ATTEMPTS => {
                    return Err(Error::ChangedMeanwhile {
                        path: path.clone(),
                        operation: "remember",
                    });
                }
                Some(_) => attempt += 1,
            }
        }
    }
}
