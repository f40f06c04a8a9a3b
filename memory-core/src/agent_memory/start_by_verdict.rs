//! SessionStart on an index whose exact text the reader already judged (`verdict.rs`):
//! the file is streamed through a small buffer and hashed (as `cat` reads it), searched
//! for the ids this start could take, and the new row is checked by the same row reader
//! and end-of-table rule as [`IndexDoc::prepare_append`](super::index::IndexDoc) — the rows
//! judged before are not read again. The append depends on the file still having that
//! digest, checked right before it is made, so a save by another program in between is
//! refused as on the full path.
//!
//! Whenever anything is not certain — no verdict for this text, a read that caught a save,
//! an id-shaped text whose cell this search cannot judge, a new row the reader would not
//! take in place — it answers "not known" and SessionStart reads the index whole.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use chrono::{DateTime, FixedOffset};
use memchr::memmem::Finder;

use super::register::session_start_row;
use super::row::{INDEX_COLUMNS, validate_row};
use super::verdict::{IndexVerdict, remember, remembered};
use super::verdict_by_stream::{Taken, WINDOW, stream_verdict};
use super::{AgentMemory, AgentName, SessionId, SessionRow};
use crate::durable::{MemoryLock, Transaction, stream_file};
use crate::error::Result;
use crate::markdown::{Cells, LineEnding, Table, TableRow, continue_table, render_row};

/// How far around an id found in the file its line is read to judge its cell.
const CONTEXT_BEFORE: u64 = 96;
const CONTEXT_AFTER: u64 = 48;

/// The most occurrences of the base id judged one by one (see [`ids_taken`]).
const MAX_OCCURRENCES: usize = 64;

impl AgentMemory {
    /// Registers a SessionStart row by a verdict on the index's text — remembered, or
    /// found by streaming the file (`verdict_by_stream.rs`) — or returns `None` (nothing
    /// written) when no verdict settles it. `lock` is held.
    pub(super) fn start_by_verdict(
        &self,
        lock: &MemoryLock,
        agent: &AgentName,
    ) -> Result<Option<SessionId>> {
        let now = self.handle.clock.now();
        let offset_secs = now.offset().local_minus_utc();
        let known = remembered(lock, offset_secs);
        let path = self.index_path();
        let base = SessionId::generate(now, agent, |_| false);
        let by_known = match known.is_empty() {
            true => None,
            false => read_known(&path, &known, base.as_str()),
        };
        // A remembered verdict names the text; without one (a hand edit, a new lock
        // file) the text is streamed once to find it.
        let (verdict, digester, taken, streamed) = match by_known {
            Some((verdict, digester, found)) => {
                let Some(taken) = ids_taken(&path, &verdict, base.as_str(), &found) else {
                    return Ok(None);
                };
                (verdict, digester, taken, false)
            }
            None => {
                if !crate::durable::fault::streaming_allowed() {
                    return Ok(None);
                }
                let Some(s) = stream_verdict(&path, *now.offset(), base.as_str(), WINDOW) else {
                    return Ok(None);
                };
                (s.verdict, s.digester, s.taken, true)
            }
        };
        let Some(id) = self.id_by_verdict(now, agent, base.as_str(), &taken) else {
            return Ok(None);
        };
        let row = session_start_row(&id, agent, self.now());
        let Ok(tail) = read_range(&path, verdict.last_row_start, verdict.digest.len) else {
            return Ok(None);
        };
        let Ok(tail) = String::from_utf8(tail) else {
            return Ok(None);
        };
        let Some((line, written)) = appended(&verdict, tail, &row, self.handle.clock.now()) else {
            return Ok(None);
        };
        let mut tx = Transaction::new(lock);
        tx.expect_digest(&path, verdict.digest);
        let mut fork = digester;
        fork.update(line.as_bytes());
        tx.append(&path, verdict.digest.len, line);
        if streamed {
            crate::durable::fault::count_streamed_start();
        } else {
            crate::durable::fault::count_verdict_start();
        }
        tx.commit()?;
        let after = IndexVerdict {
            digest: fork.finish(),
            ..written
        };
        remember(lock, [Some(verdict), Some(after)]);
        Ok(Some(id))
    }

    /// The id [`AgentMemory::register_session_start`] would give: the first candidate no
    /// row (`taken`), snapshot or archive uses.
    fn id_by_verdict(
        &self,
        now: DateTime<FixedOffset>,
        agent: &AgentName,
        base: &str,
        taken: &Taken,
    ) -> Option<SessionId> {
        let sessions = self.handle.root.path().join("sessions");
        let archive = self.handle.root.path().join("archive");
        let id = SessionId::generate(now, agent, |candidate| {
            taken.holds(base, candidate)
                || sessions.join(format!("{candidate}.md")).exists()
                || archive.join(candidate).exists()
        });
        SessionId::parse(id.as_str()).ok()
    }
}

/// Streams the index: the verdict its text has, the digester after its last byte, and
/// the offsets where `base` occurs. `None` when the file cannot be read, was being saved
/// meanwhile, or has no remembered verdict.
fn read_known(
    path: &Path,
    known: &[IndexVerdict],
    base: &str,
) -> Option<(IndexVerdict, crate::durable::Digester, Vec<u64>)> {
    let finder = Finder::new(base.as_bytes());
    let keep = base.len().saturating_sub(1);
    // The last `keep` bytes before the current piece: an id split over two pieces.
    let mut carry: Vec<u8> = Vec::with_capacity(2 * keep);
    let mut found = Vec::new();
    let streamed = stream_file(path, |at, piece| {
        if !carry.is_empty() {
            let mut window = carry.clone();
            window.extend_from_slice(&piece[..piece.len().min(keep)]);
            let start = at - carry.len() as u64;
            found.extend(
                finder
                    .find_iter(&window)
                    .filter(|&i| i < carry.len())
                    .map(|i| start + i as u64),
            );
        }
        found.extend(finder.find_iter(piece).map(|i| at + i as u64));
        carry.extend_from_slice(piece);
        let excess = carry.len().saturating_sub(keep);
        carry.drain(..excess);
    })
    .ok()?;
    if !streamed.stable {
        return None;
    }
    let verdict = known.iter().find(|v| v.digest == streamed.digest)?;
    Some((*verdict, streamed.digester, found))
}

/// What an occurrence of `base` in the file is.
#[derive(Debug, PartialEq, Eq)]
enum Occurrence {
    /// A row's first cell that is exactly `base` (`None`) or `base-N`.
    Id(Option<u64>),
    /// Not a first cell equal to any candidate.
    Other,
    /// This search cannot tell (white space other than spaces and tabs, a cut line).
    Unsure,
}

/// The candidates the rows take, from the occurrences of `base` at `found`; `None` when
/// one of them cannot be judged here.
fn ids_taken(path: &Path, verdict: &IndexVerdict, base: &str, found: &[u64]) -> Option<Taken> {
    // Each occurrence is judged from its own few bytes; past a few dozen (an index that
    // mentions this minute's id in many cells) reading the rows whole is the faster way.
    if found.len() > MAX_OCCURRENCES {
        return None;
    }
    let mut taken = Taken::default();
    for &at in found.iter().filter(|&&at| at >= verdict.body_start) {
        let from = at.saturating_sub(CONTEXT_BEFORE).max(verdict.body_start);
        let to = (at + base.len() as u64 + CONTEXT_AFTER).min(verdict.digest.len);
        let bytes = read_range(path, from, to).ok()?;
        let split = usize::try_from(at - from).ok()?;
        let (before, rest) = bytes.split_at_checked(split)?;
        let after = rest.get(base.len()..)?;
        let line_start = from == verdict.body_start;
        let ends_file = to == verdict.digest.len;
        match judge(before, line_start, after, ends_file) {
            Occurrence::Id(None) => taken.base = true,
            Occurrence::Id(Some(n)) => taken.numbered.push(n),
            Occurrence::Other => {}
            Occurrence::Unsure => return None,
        }
    }
    Some(taken)
}

/// Judges an occurrence from the bytes `before` it (from its line's start when
/// `from_line_start`, else from somewhere in the line or before it) and `after` it (to the
/// end of the file when `to_end`).
fn judge(before: &[u8], from_line_start: bool, after: &[u8], to_end: bool) -> Occurrence {
    let line = match memchr::memrchr(b'\n', before) {
        Some(i) => &before[i + 1..],
        None if from_line_start => before,
        None => {
            // The line starts further back: it is a first cell only if nothing visible
            // comes before it, which this part cannot show.
            return if before.iter().any(|&b| visible_ascii(b)) {
                Occurrence::Other
            } else {
                Occurrence::Unsure
            };
        }
    };
    // Visible text before it on its line: a later cell, or a first cell that does not
    // start with the id.
    if line.iter().any(|&b| visible_ascii(b)) {
        return Occurrence::Other;
    }
    let pipes = line.iter().filter(|&&b| b == b'|').count();
    if pipes > 1 || !line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'|')) {
        return Occurrence::Unsure;
    }
    let (number, rest) = match after.strip_prefix(b"-") {
        Some(digits) => {
            let count = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            let (number, rest) = digits.split_at(count);
            match std::str::from_utf8(number)
                .ok()
                .and_then(|n| n.parse().ok())
            {
                Some(n) if count > 0 && number[0] != b'0' => (Some(n), rest),
                // `base-` followed by no number, or one with a leading zero: not a
                // candidate; its cell still goes on.
                _ => return Occurrence::Other,
            }
        }
        None => (None, after),
    };
    let spaces = rest
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    match rest.get(spaces..).and_then(|r| r.first()) {
        Some(b'|' | b'\n') => Occurrence::Id(number),
        Some(b'\r') if rest.get(spaces + 1) == Some(&b'\n') => Occurrence::Id(number),
        None if to_end => Occurrence::Id(number),
        Some(&b) if visible_ascii(b) && b != b'\r' => Occurrence::Other,
        _ => Occurrence::Unsure,
    }
}

/// An ASCII byte that is neither white space nor `|` nor a control character.
fn visible_ascii(b: u8) -> bool {
    b.is_ascii_graphic() && b != b'|'
}

/// The line that appends `row` to the table the verdict describes, and the verdict's
/// table with that row last (its digest still the old text's); `tail` is the text from
/// the last row's first byte to the end. `None` when the reader would not read the line
/// as one more row of the table, with exactly `row`'s values.
fn appended(
    verdict: &IndexVerdict,
    tail: String,
    row: &SessionRow,
    now: DateTime<FixedOffset>,
) -> Option<(String, IndexVerdict)> {
    let mut text = tail;
    let terminator = if verdict.crlf { "\r\n" } else { "\n" };
    let content_end = match verdict.last_line_terminated {
        true => text.strip_suffix(terminator)?.len(),
        false => text.len(),
    };
    let last = TableRow {
        line: verdict.last_row_line,
        content: 0..content_end,
        end: text.len(),
        cells: Cells::new(0),
    };
    let mut table = Table {
        header_line: verdict.header_line,
        rows: vec![last],
        insert_at: text.len(),
        last_line_terminated: verdict.last_line_terminated,
        line_ending: if verdict.crlf {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        },
        delimiter_line: verdict.delimiter_line,
        ended_by: None,
        indent: String::new(),
    };
    let line = table.append(&render_row(&row.cells())).replacement;
    let at = text.len();
    text.push_str(&line);
    if !continue_table(&mut table, &text, false, &INDEX_COLUMNS) || table.rows.len() != 2 {
        return None;
    }
    let new = &table.rows[1];
    let id = validate_row(&text, new).ok()?;
    let read = SessionRow::from_row(&text, new, *now.offset()).ok()?;
    if id != row.session_id.as_str() || read != *row {
        return None;
    }
    let start = verdict.last_row_start + new.content.start as u64;
    let written = IndexVerdict {
        last_row_line: new.line,
        last_row_start: start,
        last_line_terminated: table.last_line_terminated,
        ..*verdict
    };
    // The line is what follows the old text: everything pushed after `at`.
    Some((text.split_off(at), written))
}

/// Bytes `from..to` of the file at `path`.
fn read_range(path: &Path, from: u64, to: u64) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let len = usize::try_from(to.saturating_sub(from))
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "range too large"))?;
    let mut bytes = vec![0; len];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::{Occurrence, judge};

    #[test]
    fn an_id_is_judged_by_its_cell() {
        use Occurrence::*;
        type Case<'a> = (&'a [u8], bool, &'a [u8], bool, Occurrence);
        let cases: &[Case] = &[
            (b"\n| ", false, b" | cursor |", false, Id(None)),
            (b"| ", true, b"-2 | x |", false, Id(Some(2))),
            (b"\n", false, b"-13\t|", false, Id(Some(13))),
            (b"\n|", false, b"|", false, Id(None)),
            (b"\n| ", false, b"", true, Id(None)),
            (b"\n| ", false, b"-2\r\n", false, Id(Some(2))),
            (b"\n| ", false, b"-2\n", false, Id(Some(2))),
            (b"\n| x | ", false, b" |", false, Other),
            (b"\n| see ", false, b" |", false, Other),
            (b"\n| ", false, b"-02 |", false, Other),
            (b"\n| ", false, b"-2-3 |", false, Other),
            (b"\n| ", false, b"x |", false, Other),
            (b"\n| ", false, b"\\| y |", false, Other),
            (b"\n| ", false, b"- |", false, Other),
            (b"more text ", false, b" |", false, Other),
            (b"| | ", false, b" |", false, Unsure),
            ("\n|\u{3000}".as_bytes(), false, b" |", false, Unsure),
            (b"\n| ", false, "\u{3000}|".as_bytes(), false, Unsure),
            (b"\n| ", false, b"-2", false, Unsure),
            (b"   ", false, b" |", false, Unsure),
            (b"\n| ", false, b"\r|", false, Unsure),
        ];
        for (before, start, after, end, expected) in cases {
            assert_eq!(
                judge(before, *start, after, *end),
                *expected,
                "{:?} … {:?}",
                String::from_utf8_lossy(before),
                String::from_utf8_lossy(after)
            );
        }
    }
}
