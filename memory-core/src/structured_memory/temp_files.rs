//! Temp and backup files memory-core writers leave when they die mid-write (`kill -9`, a
//! power loss): `.<name>.tmp-<pid>-<n>` and `.<name>.bak-<pid>-<n>` anywhere under the
//! directory. `check` reports those whose writer is gone; `compact`, under the lock every
//! memory-core writer holds while its temp files exist, removes them — as Agent Memory's
//! `organize` does for the same directory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::memory::StructuredMemory;
use crate::durable::is_dead_writer_file;
use crate::error::{Error, Result};

/// How deep the walk looks below the directory (topics may sit in folders; Agent
/// Memory's tree is two levels deep): a deeper tree is someone else's.
const MAX_DEPTH: usize = 8;

/// A writer's temp file found under the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WriterTemp {
    /// The path relative to the directory, `/`-separated.
    pub(super) file: String,
    /// The absolute path.
    pub(super) path: PathBuf,
    /// The process id its name carries.
    pid: Option<u32>,
}

impl WriterTemp {
    /// Whether the process that made it still runs (on Unix; elsewhere it is taken as
    /// gone). Only `check`, which holds no lock, asks: a file of a running writer is its
    /// write in progress, not a leftover.
    pub(super) fn writer_running(&self) -> bool {
        self.pid.is_some_and(process_running)
    }
}

impl StructuredMemory {
    /// Every memory-core writer's temp or backup file under the directory, in path
    /// order (links are never followed, `.git` is not walked).
    pub(super) fn writer_temp_files(&self) -> Result<Vec<WriterTemp>> {
        let root = self.root();
        let mut out = Vec::new();
        let mut stack = vec![(root.to_path_buf(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(list) => list,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io_op(&dir, "scandir", e)),
            };
            for entry in entries {
                let entry = entry.map_err(|e| Error::io_op(&dir, "scandir", e))?;
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = entry.path();
                if kind.is_dir() {
                    if depth < MAX_DEPTH && !name.starts_with(".git") {
                        stack.push((path, depth + 1));
                    }
                } else if kind.is_file() && is_dead_writer_file(&name) {
                    out.push(WriterTemp {
                        file: relative(root, &path),
                        pid: pid_of(&name),
                        path,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(out)
    }

    /// Removes the temp files of dead writers. Call only under the lock: every
    /// memory-core writer holds it while its temp files exist, so each one found is a
    /// dead writer's. Returns what was removed (relative paths).
    pub(super) fn remove_dead_writer_temps(&self) -> Result<Vec<String>> {
        let mut removed = Vec::new();
        for temp in self.writer_temp_files()? {
            match fs::remove_file(&temp.path) {
                Ok(()) => removed.push(temp.file),
                // Gone meanwhile (a recovery of the same step): nothing left to remove.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io_op(&temp.path, "unlink", e)),
            }
        }
        Ok(removed)
    }
}

/// `path` relative to `root`, `/`-separated.
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The process id of a `.<name>.tmp-<pid>-<n>` (or `.bak-`) name.
fn pid_of(name: &str) -> Option<u32> {
    let (_, suffix) = name
        .rsplit_once(".tmp-")
        .or_else(|| name.rsplit_once(".bak-"))?;
    suffix.split('-').next()?.parse().ok()
}

/// Whether process `pid` runs (signal 0 asks without sending anything; a process of
/// another user answers "not permitted", and runs).
#[cfg(unix)]
fn process_running(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let answer = unsafe { libc::kill(pid, 0) };
    answer == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Elsewhere a temp file's writer is taken as gone (`check` reports it).
#[cfg(not(unix))]
fn process_running(_pid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pid_is_read_from_both_shapes_and_this_process_runs() {
        assert_eq!(pid_of(".MEMORY.md.tmp-123-4"), Some(123));
        assert_eq!(pid_of(".memory-a.md.bak-77-0"), Some(77));
        assert!(process_running(std::process::id()));
        assert!(!process_running(0));
    }
}
