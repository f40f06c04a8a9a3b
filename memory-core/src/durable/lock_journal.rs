//! The interrupted-change journal kept in the lock file itself: the lock file is already
//! open (and held) by every writer, so recording a plan there is one write and one data
//! flush, where a journal file of its own costs a temp file, a flush, a rename and a
//! flush of the directory.
//!
//! The file holds zero or more frames, each `memcore-journal <len> <hash>\n` followed by
//! `len` bytes of JSON (the plan); the hash is FNV-1a 64 of the JSON in hex. A plan that
//! changes state (to roll back) is appended as a new frame, so the one it replaces stays
//! whole until the new one is: the last whole frame is the plan. An empty file, or one
//! whose first frame was cut short by a crash (a prefix of a frame, bytes that read as
//! zero where the size reached the disk before the data), holds no plan: nothing is
//! applied before the first frame is flushed. Anything else is not memory-core's and is
//! refused, naming the file. Removing the plan cuts the file back to zero bytes.

use std::fs::File;
use std::path::Path;

use super::MemoryLock;
use super::atomic::{parent_dir, sync_dir};
use crate::error::{Error, Result};

/// The start of every frame.
const MAGIC: &[u8] = b"memcore-journal ";

/// What a lock file holds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Recorded {
    /// No plan (empty, or a first frame a crash cut short).
    Nothing,
    /// The last whole frame's JSON.
    Plan(String),
}

/// Appends `json` as a frame and flushes it. The first plan recorded in a lock file this
/// process created also flushes the directory, so that the file itself survives a crash.
pub(super) fn store(lock: &MemoryLock, json: &str) -> Result<()> {
    let path = lock.path();
    let file = lock.file();
    let at = file
        .metadata()
        .map_err(|e| Error::io_op(path, "lstat", e))?
        .len();
    write_all_at(file, path, &framed(json), at)?;
    file.sync_data()
        .map_err(|e| Error::io_op(path, "fsync", e))?;
    if lock.take_fresh() {
        sync_dir(&parent_dir(path))?;
    }
    Ok(())
}

/// `json` as a frame.
fn framed(json: &str) -> Vec<u8> {
    let mut frame = MAGIC.to_vec();
    frame.extend_from_slice(format!("{} {:016x}\n", json.len(), fnv1a(json.as_bytes())).as_bytes());
    frame.extend_from_slice(json.as_bytes());
    frame
}

/// Reads the plan the lock file holds.
pub(super) fn read(lock: &MemoryLock) -> Result<Recorded> {
    let path = lock.path();
    let bytes = read_all(lock.file(), path)?;
    parse(path, &bytes)
}

/// Removes the plan. `durably`: also flushes the cut (a plan that could not be found
/// done again if a power loss brought it back).
pub(super) fn clear(lock: &MemoryLock, durably: bool) -> Result<()> {
    let path = lock.path();
    let file = lock.file();
    file.set_len(0)
        .map_err(|e| Error::io_op(path, "ftruncate", e))?;
    if durably {
        file.sync_data()
            .map_err(|e| Error::io_op(path, "fsync", e))?;
    }
    Ok(())
}

/// Whether the lock file at `path` holds anything (a plan, or a cut-short one) — the
/// cheap check readers make without the lock.
pub(super) fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.len() > 0)
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Recorded> {
    let mut rest = bytes;
    let mut line = 1;
    let mut latest = None;
    while !rest.is_empty() {
        match frame(rest) {
            Some((json, len)) => {
                line += json.matches('\n').count() + 1;
                latest = Some(json);
                rest = &rest[len..];
            }
            None if is_cut_short(rest) => break,
            None => {
                return Err(Error::malformed(
                    path,
                    line,
                    "the lock file holds bytes memory-core did not write (it keeps only the interrupted-change journal); nothing was changed: check it, then empty or remove it",
                ));
            }
        }
    }
    Ok(latest.map_or(Recorded::Nothing, |json| Recorded::Plan(json.to_string())))
}

/// One whole frame at the start of `bytes`: its JSON and the frame's length.
fn frame(bytes: &[u8]) -> Option<(&str, usize)> {
    let body = bytes.strip_prefix(MAGIC)?;
    let newline = body.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&body[..newline]).ok()?;
    let (len, hash) = header.split_once(' ')?;
    let len: usize = len.parse().ok()?;
    let hash = u64::from_str_radix(hash, 16).ok()?;
    let json = body.get(newline + 1..newline + 1 + len)?;
    if fnv1a(json) != hash {
        return None;
    }
    let json = std::str::from_utf8(json).ok()?;
    Some((json, MAGIC.len() + newline + 1 + len))
}

/// Whether `bytes` can be what a crash left of a frame being written: a prefix of one
/// (its header whole or not, its JSON short or failing its hash), where any byte may
/// read as zero (the size reached the disk before the data).
fn is_cut_short(bytes: &[u8]) -> bool {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let bytes = &bytes[..end];
    let magic = bytes.len().min(MAGIC.len());
    if !bytes[..magic]
        .iter()
        .zip(MAGIC)
        .all(|(&b, &m)| b == m || b == 0)
    {
        return false;
    }
    let body = &bytes[magic..];
    // The header: `<len> <hash>` in decimal and hex digits (a cut-short one too).
    let header = body
        .iter()
        .position(|&b| b == b'\n')
        .map_or(body, |newline| &body[..newline]);
    header
        .iter()
        .all(|&b| b.is_ascii_hexdigit() || b == b' ' || b == 0)
}

/// FNV-1a, 64 bits: a stable hash that finds a frame a crash left half-written (not a
/// defence against a forger: the file is the user's own).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn read_all(file: &File, path: &Path) -> Result<Vec<u8>> {
    let len = file
        .metadata()
        .map_err(|e| Error::io_op(path, "lstat", e))?
        .len();
    let len = usize::try_from(len).map_err(|_| {
        Error::malformed(
            path,
            0,
            "the lock file is too large to be memory-core's journal",
        )
    })?;
    let mut bytes = vec![0u8; len];
    super::append::read_exact_at(file, path, &mut bytes, 0)?;
    Ok(bytes)
}

fn write_all_at(file: &File, path: &Path, bytes: &[u8], at: u64) -> Result<()> {
    super::append::write_all_at(file, path, bytes, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(bytes: &[u8]) -> Result<Recorded> {
        parse(Path::new(".memcore.lock"), bytes)
    }

    #[test]
    fn the_last_whole_frame_is_the_plan() {
        let apply = framed("{\"state\":\"apply\"}");
        let rollback = framed("{\"state\":\"rollback\"}");
        assert_eq!(parsed(b"").unwrap(), Recorded::Nothing);
        assert_eq!(
            parsed(&apply).unwrap(),
            Recorded::Plan("{\"state\":\"apply\"}".into())
        );
        let both = [apply.clone(), rollback.clone()].concat();
        assert_eq!(
            parsed(&both).unwrap(),
            Recorded::Plan("{\"state\":\"rollback\"}".into())
        );
        // The second frame cut short at every byte: the first still stands.
        for cut in 0..rollback.len() {
            let mut bytes = apply.clone();
            bytes.extend_from_slice(&rollback[..cut]);
            assert_eq!(
                parsed(&bytes).unwrap(),
                Recorded::Plan("{\"state\":\"apply\"}".into()),
                "cut at {cut}"
            );
            // Zeros where the data never reached the disk.
            bytes.resize(apply.len() + rollback.len(), 0);
            assert_eq!(
                parsed(&bytes).unwrap(),
                Recorded::Plan("{\"state\":\"apply\"}".into()),
                "zeros from {cut}"
            );
        }
    }

    #[test]
    fn a_first_frame_cut_short_anywhere_holds_no_plan() {
        let apply = framed("{\"state\":\"apply\",\"steps\":[]}");
        for cut in 0..apply.len() {
            assert_eq!(parsed(&apply[..cut]).unwrap(), Recorded::Nothing, "{cut}");
            let mut zeroed = apply[..cut].to_vec();
            zeroed.resize(apply.len(), 0);
            assert_eq!(parsed(&zeroed).unwrap(), Recorded::Nothing, "{cut}");
        }
    }

    #[test]
    fn bytes_that_are_no_frame_are_refused() {
        for foreign in [
            &b"hello\n"[..],
            b"memcore-journal x y\n{}",
            b"{\"version\":1}",
        ] {
            let err = parsed(foreign).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Malformed, "{err}");
            assert!(err.to_string().contains(".memcore.lock"), "{err}");
        }
    }

    #[test]
    fn the_hash_is_stable() {
        // FNV-1a 64 test vectors: the format must not change between versions.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
