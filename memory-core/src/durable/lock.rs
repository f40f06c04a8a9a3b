//! The cross-process memory lock: a sidecar lock file held with an OS file lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// An exclusive lock over one memory root, shared by every process and language that
/// uses memory-core (it is an OS lock on a sidecar file, `flock` on Unix). Released
/// when dropped, and by the OS when the holder dies, so a killed writer never leaves the
/// memory locked.
///
/// ```
/// use std::time::Duration;
/// use memory_core::durable::MemoryLock;
/// let dir = tempfile::tempdir().unwrap();
/// let lock_path = dir.path().join(".memcore.lock");
/// let held = MemoryLock::acquire(&lock_path, Duration::from_secs(1)).unwrap();
/// let err = MemoryLock::acquire(&lock_path, Duration::from_millis(20)).unwrap_err();
/// assert_eq!(err.kind(), memory_core::ErrorKind::LockTimeout);
/// drop(held);
/// assert!(MemoryLock::acquire(&lock_path, Duration::from_millis(20)).is_ok());
/// ```
#[derive(Debug)]
pub struct MemoryLock {
    file: File,
    path: PathBuf,
}

impl MemoryLock {
    /// Takes the lock, waiting at most `timeout` (polling with a short backoff).
    pub fn acquire(path: &Path, timeout: Duration) -> Result<Self> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path).map_err(|e| Error::io(path, e))?;
        let start = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            match file.try_lock() {
                Ok(()) => {
                    return Ok(MemoryLock {
                        file,
                        path: path.to_path_buf(),
                    });
                }
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => return Err(Error::io(path, e)),
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(Error::LockTimeout {
                    path: path.to_path_buf(),
                    waited,
                });
            }
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// The lock file.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let p = dir.path().join("l");
    /// let lock = memory_core::durable::MemoryLock::acquire(&p, std::time::Duration::from_secs(1)).unwrap();
    /// assert_eq!(lock.path(), p);
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for MemoryLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes it immediate.
        let _ = self.file.unlock();
    }
}
