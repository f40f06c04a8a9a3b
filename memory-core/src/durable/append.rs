//! Appending to a file as a journaled step of a [`super::Transaction`]: the one-row
//! SessionStart write, which must not rewrite (and flush) a multi-megabyte index to add
//! 300 bytes.
//!
//! The journal records the file's length before the append and the appended text, so
//! that whatever a crash leaves at the end of the file can be judged against them: the
//! whole text (done), a part of it or nothing (the write was cut short: completed or
//! truncated away), zero bytes where the text should be (the size reached the disk
//! before the data: the same), the whole text with more after it (done, and another
//! program appended since: kept), or anything else (another program rewrote the file
//! since: refused, nothing touched).

use std::fs::{File, OpenOptions};
use std::path::Path;

use super::fault::{self, Phase};
use crate::error::{Error, Result};

/// What the end of a file holds, judged against an append of `text` at offset `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tail {
    /// Exactly the file before the append plus the whole text.
    Complete,
    /// The file before the append, the whole text, and more after it: the append was
    /// done and another program (a sync client, an editor) added to the file since.
    /// Only a journal whose removal never reached the disk (a power loss right after a
    /// finished append) or a foreign write after a crash leaves this.
    Extended,
    /// The file before the append plus a part of the text (possibly none of it), where
    /// bytes may read as zero that a crash left unwritten.
    Partial,
    /// Something else: the file is shorter than before the append, longer than after it,
    /// or holds other bytes where the text goes.
    Foreign,
}

/// Checks that `path` can take an append: a regular, writable file (never a link, as
/// for a replace) holding exactly `at` bytes, the length it had when it was read. Any
/// other length means another program changed it since: [`Error::ChangedMeanwhile`],
/// and nothing is appended.
pub(super) fn check_appendable(path: &Path, at: u64) -> Result<()> {
    super::atomic::check_replaceable(path)?;
    let len = std::fs::symlink_metadata(path)
        .map_err(|e| Error::io_op(path, "lstat", e))?
        .len();
    if len == at {
        Ok(())
    } else {
        Err(super::guarded_rename::changed(path))
    }
}

/// Writes `text` at offset `at` of `path`, cutting off anything after it, and flushes
/// the data. As step `step` of a transaction (not in recovery) it has a fault point
/// half-way: a write cut short by a crash.
pub(super) fn write_at(path: &Path, at: u64, text: &[u8], step: Option<usize>) -> Result<()> {
    let file = open_for_write(path)?;
    // Two writes only where a fault hook can fire between them: elsewhere one, so that
    // a reader without the lock does not catch half a line for want of it.
    let half = if step.is_some() && fault::installed() {
        text.len() / 2
    } else {
        text.len()
    };
    write_all_at(&file, path, &text[..half], at)?;
    if let Some(step) = step {
        fault::point(Phase::Write, step).map_err(|e| Error::io_op(path, "write", e))?;
    }
    write_all_at(&file, path, &text[half..], at + half as u64)?;
    let end = at + text.len() as u64;
    if file
        .metadata()
        .map_err(|e| Error::io_op(path, "lstat", e))?
        .len()
        > end
    {
        file.set_len(end)
            .map_err(|e| Error::io_op(path, "ftruncate", e))?;
    }
    file.sync_data().map_err(|e| Error::io_op(path, "fsync", e))
}

/// Judges the end of `path` against an append of `text` at `at`.
pub(super) fn tail(path: &Path, at: u64, text: &[u8]) -> Result<Tail> {
    let file = File::open(path).map_err(|e| Error::read_failed(path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io_op(path, "lstat", e))?
        .len();
    let Some(written) = len.checked_sub(at) else {
        return Ok(Tail::Foreign);
    };
    if written > text.len() as u64 {
        // `text.len()` fits in usize, so the read below does too.
        let mut bytes = vec![0u8; text.len()];
        read_exact_at(&file, path, &mut bytes, at)?;
        return Ok(if bytes == text {
            Tail::Extended
        } else {
            Tail::Foreign
        });
    }
    // `written` is at most `text.len()`, so it fits in usize.
    let mut bytes = vec![0u8; written as usize];
    read_exact_at(&file, path, &mut bytes, at)?;
    if bytes.len() == text.len() && bytes == text {
        return Ok(Tail::Complete);
    }
    let explained = bytes.iter().zip(text).all(|(&b, &t)| b == t || b == 0);
    Ok(if explained {
        Tail::Partial
    } else {
        Tail::Foreign
    })
}

/// Flushes `path`'s data (an append found complete by recovery may not have been).
pub(super) fn flush(path: &Path) -> Result<()> {
    open_for_write(path)?
        .sync_data()
        .map_err(|e| Error::io_op(path, "fsync", e))
}

/// Cuts `path` back to `at` bytes and flushes it.
pub(super) fn truncate(path: &Path, at: u64) -> Result<()> {
    let file = open_for_write(path)?;
    file.set_len(at)
        .map_err(|e| Error::io_op(path, "ftruncate", e))?;
    file.sync_data().map_err(|e| Error::io_op(path, "fsync", e))
}

/// The error for an end of file that no step of the journal explains.
pub(super) fn foreign(path: &Path, journal: &Path) -> Error {
    Error::malformed(
        path,
        0,
        format!(
            "the file changed after an interrupted append recorded in {}; nothing was changed: check the end of the file, then remove that journal",
            journal.display()
        ),
    )
}

fn open_for_write(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io_op(path, "open", e))
}

#[cfg(unix)]
fn write_all_at(file: &File, path: &Path, bytes: &[u8], at: u64) -> Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(bytes, at)
        .map_err(|e| Error::io_op(path, "write", e))
}

#[cfg(unix)]
fn read_exact_at(file: &File, path: &Path, bytes: &mut [u8], at: u64) -> Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(bytes, at)
        .map_err(|e| Error::io_op(path, "read", e))
}

#[cfg(not(unix))]
fn write_all_at(file: &File, path: &Path, bytes: &[u8], at: u64) -> Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = file;
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.write_all(bytes))
        .map_err(|e| Error::io_op(path, "write", e))
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, path: &Path, bytes: &mut [u8], at: u64) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(bytes))
        .map_err(|e| Error::io_op(path, "read", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_are_judged_against_the_recorded_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        let cases: &[(&[u8], Tail)] = &[
            (b"head\n", Tail::Partial),
            (b"head\n| r", Tail::Partial),
            (b"head\n| r\0\0\0", Tail::Partial),
            (b"head\n\0\0\0\0\0\0", Tail::Partial),
            (b"head\n| row |\n", Tail::Complete),
            (b"head\n| row |\nmore", Tail::Extended),
            (b"head\n| row |\n\0", Tail::Extended),
            (b"head\n| rox |\nmore", Tail::Foreign),
            (b"head\n| x", Tail::Foreign),
            (b"hea", Tail::Foreign),
        ];
        for (content, expected) in cases {
            std::fs::write(&path, content).unwrap();
            assert_eq!(
                tail(&path, 5, b"| row |\n").unwrap(),
                *expected,
                "{:?}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn a_write_cut_short_is_completed_by_writing_again_and_undone_by_truncating() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        std::fs::write(&path, b"head\n| r\0\0\0\0\0\0\0\0\0").unwrap();
        write_at(&path, 5, b"| row |\n", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"head\n| row |\n");
        truncate(&path, 5).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"head\n");
    }

    #[test]
    fn an_append_to_a_file_of_another_length_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        std::fs::write(&path, b"head\n").unwrap();
        check_appendable(&path, 5).unwrap();
        let err = check_appendable(&path, 4).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Conflict);
        assert!(err.to_string().contains("changed on disk"), "{err}");
    }
}
