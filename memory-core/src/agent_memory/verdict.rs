//! What the strict reader concluded about one exact index text, remembered so that
//! SessionStart need not read 10,000 rows again to append one (see `start_by_verdict.rs`).
//!
//! A verdict is recorded only for a text the reader read whole without a warning, whose
//! table is at the top level, is not hidden by a fence or comment left open, and ends the
//! file — the texts SessionStart appends to in place. It names the text by its length and
//! XXH3-128 hash, and the build by a hash of the crate's sources and compiler
//! (`build.rs`): another text, another build or another clock offset never matches. Verdicts live in the lock file's
//! note (at most two: the last text read whole and the last text written), unflushed and
//! each line checksummed: a lost, torn, stale or foreign note only means the next
//! SessionStart reads the index whole, as without the cache.

use xxhash_rust::xxh3::xxh3_64;

use crate::durable::{FileDigest, MemoryLock};

/// The tag of a verdict line in the lock file's note.
const TAG: &str = "memcore-index-verdict";

/// This build's readers (a hash of the crate's sources and the compiler, from `build.rs`).
const READER_KEY: &str = env!("MEMCORE_READER_KEY");

/// The reader's verdict on one index text: readable, every row, no warning, and where
/// its table's last row is (what appending a row needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexVerdict {
    pub digest: FileDigest,
    /// The clock's UTC offset the text was read with, in seconds.
    pub offset_secs: i32,
    pub header_line: usize,
    pub delimiter_line: usize,
    /// Byte offset of the table's first body row: an id before it is in no row.
    pub body_start: u64,
    pub last_row_line: usize,
    /// Byte offset of the last row's first byte.
    pub last_row_start: u64,
    pub last_line_terminated: bool,
    pub crlf: bool,
}

impl IndexVerdict {
    /// The note line of this verdict, ending with its checksum.
    fn line(&self) -> String {
        let body = format!(
            "{TAG} {READER_KEY} {} {} {:032x} {} {} {} {} {} {} {}",
            self.offset_secs,
            self.digest.len,
            self.digest.hash,
            self.header_line,
            self.delimiter_line,
            self.body_start,
            self.last_row_line,
            self.last_row_start,
            u8::from(self.last_line_terminated),
            u8::from(self.crlf),
        );
        let check = xxh3_64(body.as_bytes());
        format!("{body} {check:016x}\n")
    }

    /// The verdict a note line holds, when it is whole and of this build.
    fn parse(line: &str) -> Option<Self> {
        let (body, check) = line.rsplit_once(' ')?;
        if u64::from_str_radix(check, 16).ok()? != xxh3_64(body.as_bytes()) {
            return None;
        }
        let mut fields = body.split(' ');
        if fields.next()? != TAG || fields.next()? != READER_KEY {
            return None;
        }
        let mut next = || fields.next();
        let offset_secs = next()?.parse().ok()?;
        let len = next()?.parse().ok()?;
        let hash = u128::from_str_radix(next()?, 16).ok()?;
        let verdict = IndexVerdict {
            digest: FileDigest { len, hash },
            offset_secs,
            header_line: next()?.parse().ok()?,
            delimiter_line: next()?.parse().ok()?,
            body_start: next()?.parse().ok()?,
            last_row_line: next()?.parse().ok()?,
            last_row_start: next()?.parse().ok()?,
            last_line_terminated: next()? == "1",
            crlf: next()? == "1",
        };
        (next().is_none()
            && verdict.body_start <= verdict.last_row_start
            && verdict.last_row_start < verdict.digest.len)
            .then_some(verdict)
    }
}

/// The verdicts in `lock`'s note that hold for a text read with `offset_secs`.
pub(crate) fn remembered(lock: &MemoryLock, offset_secs: i32) -> Vec<IndexVerdict> {
    let note = lock.note();
    String::from_utf8_lossy(&note)
        .lines()
        .filter_map(IndexVerdict::parse)
        .filter(|v| v.offset_secs == offset_secs)
        .collect()
}

/// Makes `verdicts` (the text read, the text written; either may be unknown) the note
/// of `lock`, replacing what it held: a verdict about a text the index no longer holds
/// is of no use.
pub(crate) fn remember(lock: &MemoryLock, verdicts: [Option<IndexVerdict>; 2]) {
    let mut note = String::new();
    let mut kept: Vec<FileDigest> = Vec::new();
    for verdict in verdicts.into_iter().flatten() {
        if !kept.contains(&verdict.digest) {
            kept.push(verdict.digest);
            note.push_str(&verdict.line());
        }
    }
    lock.set_note(note.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(len: u64) -> IndexVerdict {
        IndexVerdict {
            digest: FileDigest {
                len,
                hash: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            },
            offset_secs: 28_800,
            header_line: 3,
            delimiter_line: 4,
            body_start: 200,
            last_row_line: 10_004,
            last_row_start: 2_991_600,
            last_line_terminated: true,
            crlf: false,
        }
    }

    #[test]
    fn a_verdict_reads_back_only_whole_and_of_this_build() {
        let v = verdict(2_991_892);
        let line = v.line();
        assert_eq!(IndexVerdict::parse(line.trim_end()), Some(v));
        // Any changed byte fails the checksum or the fields.
        for i in 0..line.len() - 1 {
            let mut bytes = line.clone().into_bytes();
            bytes[i] = if bytes[i] == b'1' { b'2' } else { b'1' };
            let changed = String::from_utf8_lossy(&bytes).into_owned();
            assert_eq!(IndexVerdict::parse(changed.trim_end()), None, "byte {i}");
        }
        // Cut anywhere.
        for cut in 0..line.len() - 1 {
            assert_eq!(IndexVerdict::parse(&line[..cut]), None, "cut at {cut}");
        }
        let other_build = line.replace(READER_KEY, "0000000000000000");
        assert_eq!(IndexVerdict::parse(other_build.trim_end()), None);
    }

    #[test]
    fn the_note_keeps_the_two_last_verdicts_for_the_clock_offset() {
        let dir = tempfile::tempdir().unwrap();
        let lock = MemoryLock::acquire(
            &dir.path().join(".memcore.lock"),
            std::time::Duration::from_secs(1),
        )
        .unwrap();
        assert!(remembered(&lock, 28_800).is_empty());
        let (read, written) = (verdict(2_991_892), verdict(2_992_110));
        remember(&lock, [Some(read), Some(written)]);
        assert_eq!(remembered(&lock, 28_800), [read, written]);
        assert!(remembered(&lock, 0).is_empty());
        remember(&lock, [None, Some(written)]);
        assert_eq!(remembered(&lock, 28_800), [written]);
        remember(&lock, [Some(written), Some(written)]);
        assert_eq!(remembered(&lock, 28_800), [written]);
        std::fs::write(dir.path().join(".memcore.lock"), "not a note\n").unwrap();
        assert!(remembered(&lock, 28_800).is_empty());
    }
}
