//! What every model's handle holds: a validated, absolute root, the clock, and how to
//! take the root's lock (finishing an interrupted change first).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{Clock, MemoryLock, SafeRoot, WaitCheck, create_private_dir_all, has_journal, recover};
use crate::error::{Error, Result};

/// The lock file's name in a memory root.
pub const LOCK_FILE_NAME: &str = ".memcore.lock";

/// A memory root opened by a model's handle.
#[derive(Debug, Clone)]
pub(crate) struct RootHandle {
    pub root: SafeRoot,
    pub clock: Arc<dyn Clock>,
    pub lock_timeout: Duration,
    pub wait_check: Option<WaitCheck>,
}

impl RootHandle {
    /// Validates `root` (not empty, no NUL, not a file) and makes it absolute, so that a
    /// later change of the working directory changes nothing. `what` names the root in
    /// errors (`memory root`).
    pub fn open(
        what: &'static str,
        root: &Path,
        clock: Arc<dyn Clock>,
        lock_timeout: Duration,
        wait_check: Option<WaitCheck>,
    ) -> Result<RootHandle> {
        if root.as_os_str().is_empty() {
            return Err(Error::invalid(what, "", "must not be empty"));
        }
        if root.as_os_str().as_encoded_bytes().contains(&0) {
            return Err(Error::invalid(
                what,
                &root.to_string_lossy(),
                "must not contain a NUL character",
            ));
        }
        let absolute = std::path::absolute(root).map_err(|e| Error::io_op(root, "getcwd", e))?;
        if absolute.exists() && !absolute.is_dir() {
            return Err(Error::invalid(
                what,
                &absolute.to_string_lossy(),
                "is not a directory",
            ));
        }
        Ok(RootHandle {
            root: SafeRoot::new(absolute),
            clock,
            lock_timeout,
            wait_check,
        })
    }

    /// The root directory.
    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// Takes the root's lock (making the root when missing) and finishes an interrupted
    /// change, so that the caller sees a settled tree.
    pub fn lock(&self) -> Result<MemoryLock> {
        create_private_dir_all(self.root.path())?;
        let path: PathBuf = self.root.join(&[LOCK_FILE_NAME])?;
        let lock = MemoryLock::acquire_checked(&path, self.lock_timeout, self.wait_check.as_ref())?;
        recover(&lock)?;
        Ok(lock)
    }

    /// The lock, when an interrupted change must be finished before reading; `None`
    /// (read without it) otherwise: readers never wait on writers.
    pub fn read_guard(&self) -> Result<Option<MemoryLock>> {
        if has_journal(self.root.path()) {
            self.lock().map(Some)
        } else {
            Ok(None)
        }
    }
}
