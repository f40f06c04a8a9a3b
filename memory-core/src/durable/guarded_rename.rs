//! Renaming a staged file over its target only if the target still holds what the
//! change was worked out from — for programs that write memory files without taking
//! memory-core's lock (an editor, an agent saving the file itself).
//!
//! The target is compared byte for byte right before the rename. On Linux the rename is
//! then an exchange (`renameat2(RENAME_EXCHANGE)`): the file it displaced lands at the
//! staged path, where no other program can reach it, and is compared once more; if a
//! program replaced the target in between, the exchange is undone and its file stands.
//! A target that must not exist yet is renamed with `RENAME_NOREPLACE`. Where neither is
//! supported, a plain rename follows the comparison (a window of one system call).
//! What no check can see is a program that keeps a file open and writes into it after
//! the rename: its bytes go to the replaced file.

use std::fs;
use std::io;
use std::path::Path;

use crate::error::{Error, Result};

/// Whether `path` holds exactly `basis` (`None`: no file there). A file of another
/// length differs without being read; one of the same length is compared in chunks (a
/// multi-megabyte index is not read into a second buffer at every step).
pub(crate) fn holds(path: &Path, basis: Option<&[u8]>) -> Result<bool> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(basis.is_none()),
        Err(e) => return Err(Error::read_failed(path, e)),
    };
    match basis {
        None => Ok(false),
        Some(bytes) if meta.len() != bytes.len() as u64 => Ok(false),
        Some(bytes) => match super::atomic::file_holds(path, bytes) {
            Ok(same) => Ok(same),
            // Removed between the two calls: not what was read.
            Err(_) if fs::symlink_metadata(path).is_err() => Ok(false),
            Err(e) => Err(e),
        },
    }
}

/// The error for a target another program changed since it was read (the operation is
/// named by the caller that plans the change).
pub(crate) fn changed(path: &Path) -> Error {
    Error::ChangedMeanwhile {
        path: path.to_path_buf(),
        operation: "the write",
    }
}

/// Renames `from` over `to` if `to` holds `basis` (`None`: `to` must not exist), else
/// [`Error::ChangedMeanwhile`] with `from` still in place and `to` untouched (as the
/// other program left it).
pub(crate) fn rename_if_unchanged(from: &Path, to: &Path, basis: Option<&[u8]>) -> Result<()> {
    if !holds(to, basis)? {
        return Err(changed(to));
    }
    match basis {
        None => match rename_flagged(from, to, Flag::NoReplace) {
            Ok(true) => Ok(()),
            Ok(false) => plain_rename(from, to),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(changed(to)),
            Err(e) => Err(Error::io_op(to, "rename", e)),
        },
        Some(bytes) => match rename_flagged(from, to, Flag::Exchange) {
            Ok(true) => {
                // `from` now holds the file the exchange displaced.
                let displaced = fs::read(from).map_err(|e| Error::read_failed(from, e));
                if matches!(&displaced, Ok(d) if d.as_slice() == bytes) {
                    fs::remove_file(from).map_err(|e| Error::io_op(from, "unlink", e))?;
                    return Ok(());
                }
                // Another program replaced `to` between the comparison and the exchange:
                // its file goes back, the staged one to `from`.
                match rename_flagged(from, to, Flag::Exchange) {
                    Ok(_) => Err(changed(to)),
                    Err(e) => Err(Error::io_op(to, "rename", e)),
                }
            }
            Ok(false) => plain_rename(from, to),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(changed(to)),
            Err(e) => Err(Error::io_op(to, "rename", e)),
        },
    }
}

fn plain_rename(from: &Path, to: &Path) -> Result<()> {
    fs::rename(from, to).map_err(|e| Error::io_op(to, "rename", e))
}

#[derive(Clone, Copy)]
enum Flag {
    NoReplace,
    Exchange,
}

/// `renameat2` with `flag`: `Ok(false)` when the system or file system does not support
/// it (the caller falls back to a plain rename).
#[cfg(target_os = "linux")]
fn rename_flagged(from: &Path, to: &Path, flag: Flag) -> io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))
    };
    let (from_c, to_c) = (c(from)?, c(to)?);
    let flags = match flag {
        Flag::NoReplace => libc::RENAME_NOREPLACE,
        Flag::Exchange => libc::RENAME_EXCHANGE,
    };
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call;
    // `renameat2` reads them and touches no other memory.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from_c.as_ptr(),
            libc::AT_FDCWD,
            to_c.as_ptr(),
            flags,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSYS) | Some(libc::EINVAL) | Some(libc::EOPNOTSUPP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn rename_flagged(_from: &Path, _to: &Path, _flag: Flag) -> io::Result<bool> {
    Ok(false)
}

/// Which file is at a path and when its bytes last changed: (device, inode, modification
/// time in seconds and nanoseconds). A rename keeps all four; another program's save
/// changes the inode (by rename) or the time (in place).
pub(crate) type Stamp = (u64, u64, i64, i64);

/// The [`Stamp`] of the file at `path` (not following a link), when it has one.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(path)
            .ok()
            .map(|m| (m.dev(), m.ino(), m.mtime(), m.mtime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Whether `a` and `b` are the same file (one inode): a staged path that is its target's
/// backup holds the file an exchange displaced (a crash came before it was removed).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (stamp(a), stamp(b)) {
        (Some(x), Some(y)) => (x.0, x.1) == (y.0, y.1),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_only_over_what_the_change_was_worked_out_from() {
        let dir = tempfile::tempdir().unwrap();
        let (staged, target) = (dir.path().join(".t.tmp"), dir.path().join("t.md"));
        // Unchanged: replaced, nothing left at the staged path.
        fs::write(&target, "old").unwrap();
        fs::write(&staged, "new").unwrap();
        rename_if_unchanged(&staged, &target, Some(b"old")).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(!staged.exists());
        // Changed: refused, both files as they were.
        fs::write(&staged, "newer").unwrap();
        let err = rename_if_unchanged(&staged, &target, Some(b"old")).unwrap_err();
        assert!(matches!(err, Error::ChangedMeanwhile { .. }), "{err}");
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(&staged).unwrap(), b"newer");
        // Created meanwhile / removed meanwhile.
        let fresh = dir.path().join("f.md");
        fs::write(&fresh, "theirs").unwrap();
        assert!(rename_if_unchanged(&staged, &fresh, None).is_err());
        assert_eq!(fs::read(&fresh).unwrap(), b"theirs");
        let gone = dir.path().join("g.md");
        assert!(rename_if_unchanged(&staged, &gone, Some(b"x")).is_err());
        assert!(!gone.exists() && staged.exists());
        rename_if_unchanged(&staged, &gone, None).unwrap();
        assert_eq!(fs::read(&gone).unwrap(), b"newer");
    }
}
