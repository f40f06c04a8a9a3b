//! The cross-process memory lock: a sidecar lock file held with an OS file lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// A lock wait given in seconds as a number (how the bindings receive it): every finite
/// value of at least 0 is a wait (`-0.0` is 0), one longer than a [`Duration`] holds is
/// the longest wait there is (about 584 billion years: it never times out in practice);
/// a negative, infinite or NaN number is `None`. One rule for every surface; each words
/// its own error with the number as its language prints it.
///
/// ```
/// use std::time::Duration;
/// use memory_core::durable::lock_wait_from_secs;
/// assert_eq!(lock_wait_from_secs(0.25), Some(Duration::from_millis(250)));
/// assert_eq!(lock_wait_from_secs(1e300), Some(Duration::MAX));
/// assert_eq!(lock_wait_from_secs(-1.0), None);
/// assert_eq!(lock_wait_from_secs(f64::NAN), None);
/// ```
pub fn lock_wait_from_secs(seconds: f64) -> Option<Duration> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return None;
    }
    // `abs` only turns -0.0 (which passed the check) into 0.0.
    Some(Duration::try_from_secs_f64(seconds.abs()).unwrap_or(Duration::MAX))
}

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
    /// Takes the lock, waiting at most `timeout` (polling with a short backoff). A
    /// `timeout` of zero makes exactly one attempt.
    pub fn acquire(path: &Path, timeout: Duration) -> Result<Self> {
        Self::acquire_checked(path, timeout, None)
    }

    /// Like [`MemoryLock::acquire`], and calls `check` between attempts (at most 10 ms
    /// apart): when it fails, the wait ends at once with [`Error::Aborted`] carrying
    /// the check's error as its source. Bindings use it to let Ctrl-C stop a wait.
    ///
    /// ```
    /// use std::time::Duration;
    /// use memory_core::durable::{MemoryLock, WaitCheck};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join(".memcore.lock");
    /// let _held = MemoryLock::acquire(&path, Duration::from_secs(1)).unwrap();
    /// let stop = WaitCheck::new(|| Err("interrupted".into()));
    /// let err = MemoryLock::acquire_checked(&path, Duration::from_secs(60), Some(&stop)).unwrap_err();
    /// assert_eq!(err.kind(), memory_core::ErrorKind::Aborted);
    /// ```
    pub fn acquire_checked(
        path: &Path,
        timeout: Duration,
        check: Option<&WaitCheck>,
    ) -> Result<Self> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options
            .open(path)
            .map_err(|e| Error::io_op(path, "open", e))?;
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
                Err(TryLockError::Error(e)) => return Err(Error::io_op(path, "flock", e)),
            }
            let waited = start.elapsed();
            if waited >= timeout {
                // The wait that ran out is reported, not the few milliseconds a busy
                // scheduler adds to it: "timed out after 300 ms" for a 300 ms timeout.
                return Err(Error::LockTimeout {
                    path: path.to_path_buf(),
                    waited: timeout,
                });
            }
            if let Some(check) = check {
                (check.0)().map_err(|source| Error::Aborted {
                    path: path.to_path_buf(),
                    waited,
                    source: Some(source),
                })?;
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

    /// The note kept in the lock file (at most [`NOTE_MAX_BYTES`]; empty when there is
    /// none or it cannot be read). The lock file holds no data memory depends on: the note
    /// is a cache its writer checks (the index verdicts of SessionStart), so deleting the
    /// lock file, or a torn or foreign note, costs a slower read and nothing else.
    pub(crate) fn note(&self) -> Vec<u8> {
        use std::io::{Read, Seek, SeekFrom};
        let mut note = Vec::new();
        let mut file = &self.file;
        if file.seek(SeekFrom::Start(0)).is_ok() {
            let _ = file.take(NOTE_MAX_BYTES).read_to_end(&mut note);
        }
        note
    }

    /// Replaces the note kept in the lock file (see [`MemoryLock::note`]), without a
    /// flush: a crash may leave the old note, none, or a torn one, and a reader of the
    /// note must check it. A failure is ignored for the same reason.
    pub(crate) fn set_note(&self, note: &[u8]) {
        use std::io::{Seek, SeekFrom, Write};
        let mut file = &self.file;
        let written = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(note))
            .and_then(|()| file.set_len(note.len() as u64));
        if written.is_err() {
            let _ = file.set_len(0);
        }
    }
}

/// The most of the lock file's note that is read.
pub(crate) const NOTE_MAX_BYTES: u64 = 4096;

/// What a [`WaitCheck`] returns to stop a wait: the reason, kept as the source of
/// [`Error::Aborted`] (a binding can take its own error back out of it).
pub type WaitCheckError = Box<dyn std::error::Error + Send + Sync>;

/// A check called between attempts to take the memory lock; when it returns an error
/// the wait stops with [`Error::Aborted`]. The Python binding installs one that runs
/// the interpreter's signal handlers, so Ctrl-C interrupts a lock wait.
///
/// ```
/// use memory_core::durable::WaitCheck;
/// let dir = tempfile::tempdir().unwrap();
/// let memory = memory_core::AgentMemory::builder(dir.path())
///     .wait_check(WaitCheck::new(|| Ok(())))
///     .open()
///     .unwrap();
/// assert!(memory.register_session_start("a").is_ok());
/// ```
#[derive(Clone)]
pub struct WaitCheck(Arc<dyn Fn() -> std::result::Result<(), WaitCheckError> + Send + Sync>);

impl WaitCheck {
    /// Wraps `check`.
    ///
    /// ```
    /// let never = memory_core::durable::WaitCheck::new(|| Ok(()));
    /// # let _ = never;
    /// ```
    pub fn new(
        check: impl Fn() -> std::result::Result<(), WaitCheckError> + Send + Sync + 'static,
    ) -> Self {
        WaitCheck(Arc::new(check))
    }
}

impl std::fmt::Debug for WaitCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WaitCheck(..)")
    }
}

impl Drop for MemoryLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes it immediate.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_zero_timeout_makes_one_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l");
        let held = MemoryLock::acquire(&path, Duration::from_secs(1)).unwrap();
        let start = Instant::now();
        let err = MemoryLock::acquire(&path, Duration::ZERO).unwrap_err();
        assert!(matches!(err, Error::LockTimeout { .. }), "{err}");
        assert!(start.elapsed() < Duration::from_millis(50));
        drop(held);
        assert!(MemoryLock::acquire(&path, Duration::ZERO).is_ok());
    }

    #[test]
    fn the_check_runs_between_attempts_and_stops_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l");
        let _held = MemoryLock::acquire(&path, Duration::from_secs(1)).unwrap();
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        let check = WaitCheck::new(move || {
            if seen.fetch_add(1, Ordering::SeqCst) >= 5 {
                Err("enough".into())
            } else {
                Ok(())
            }
        });
        let start = Instant::now();
        let err =
            MemoryLock::acquire_checked(&path, Duration::from_secs(30), Some(&check)).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(calls.load(Ordering::SeqCst), 6);
        let Error::Aborted {
            source, path: at, ..
        } = err
        else {
            panic!("expected Aborted, got {err}");
        };
        assert_eq!(at, path);
        assert_eq!(source.unwrap().to_string(), "enough");
    }

    #[test]
    fn a_passing_check_still_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l");
        let _held = MemoryLock::acquire(&path, Duration::from_secs(1)).unwrap();
        let check = WaitCheck::new(|| Ok(()));
        let err = MemoryLock::acquire_checked(&path, Duration::from_millis(30), Some(&check))
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::LockTimeout);
    }
}
