//! The reader's verdict on an index text found by streaming the file through a window
//! instead of holding it whole: what the first SessionStart after a hand edit (no verdict
//! remembered for the new text) needs to append its row, without a 3 MB buffer whose
//! pages a fresh process must first map (on the virtual machines agents run in, mapping
//! them costs about as much as reading the file).
//!
//! The reading is the strict reader's own, over pieces of the text:
//!
//! - **The head** — the file's first lines, to the last line end in the first window — is
//!   read by [`IndexDoc`]'s parser as if it were the whole file, and must get a verdict
//!   there: read without a warning, its table at the top level with no open fence or
//!   comment, and ending the head.
//! - **Every later window** of whole lines is read by the same table scanner after a copy
//!   of the table's header and delimiter rows, and must be rows of that table and nothing
//!   else: no line that ends the table, no fence or comment left open, no loose or
//!   misplaced row, no line repeating the header; each row passes the same row reader,
//!   and its id is new.
//!
//! The scanner decides a line's part from the lines before it only through the state a
//! table row leaves (outside any fence, comment or HTML block, in a table), which is the
//! state after the delimiter row: so each window reads as it does in the whole text, and
//! the whole text has the verdict made of the head's and the windows' (the proptest in
//! this file compares the two on random indexes and window sizes). Anything else — a
//! window that is not rows only, an unreadable or repeated row, a CRLF index, a file
//! that changed while it was read — gives no verdict, and SessionStart reads the file
//! whole as before.

use std::hash::Hasher;
use std::path::Path;

use chrono::FixedOffset;

use super::index::IndexDoc;
use super::row::{INDEX_COLUMNS, validate_row};
use super::verdict::IndexVerdict;
use crate::durable::{Digester, MAX_FILE_BYTES};
use crate::markdown::scan_table;

/// The window a SessionStart reads the index through: large enough that the scanner's
/// per-window start costs nothing beside its rows, small enough to stay in the cache.
pub(super) const WINDOW: usize = 256 * 1024;

/// What a stream of the index found: the verdict on its text, the digester after its
/// last byte (forked for the text written), and the ids of rows that are `base` or
/// `base-N`.
pub(super) struct Streamed {
    pub verdict: IndexVerdict,
    pub digester: Digester,
    pub taken: Taken,
}

/// The candidate ids the table's rows use: `base` itself, and `base-N` by `N`.
#[derive(Debug, Default)]
pub(super) struct Taken {
    pub base: bool,
    pub numbered: Vec<u64>,
}

impl Taken {
    /// Whether a row uses `candidate` (`base` or `base-N`).
    pub fn holds(&self, base: &str, candidate: &str) -> bool {
        if candidate == base {
            return self.base;
        }
        number_after(base, candidate).is_some_and(|n| self.numbered.contains(&n))
    }

    /// Notes a row's id: a candidate when it is `base` or `base-N`.
    fn note(&mut self, base: &str, id: &str) {
        if id == base {
            self.base = true;
        } else if let Some(n) = number_after(base, id) {
            self.numbered.push(n);
        }
    }
}

/// `N` when `id` is `base-N`, written as a candidate is (digits, no leading zero).
fn number_after(base: &str, id: &str) -> Option<u64> {
    let digits = id.strip_prefix(base)?.strip_prefix('-')?;
    let plain = !digits.is_empty()
        && !digits.starts_with('0')
        && digits.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| digits.parse().ok()).flatten()
}

/// How much of the file one read asks for.
const PIECE: u64 = 64 * 1024;

/// Streams the index at `path` through windows of `window` bytes and returns its verdict,
/// or `None` when the streamed reading cannot give one (see the module documentation):
/// the caller then reads the file whole.
pub(super) fn stream_verdict(
    path: &Path,
    offset: FixedOffset,
    base: &str,
    window: usize,
) -> Option<Streamed> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let before = file.metadata().ok()?;
    // Room for every row's id hash at once: a table row is at least a few dozen bytes.
    let rows = usize::try_from((before.len() / 128).min(1 << 20)).unwrap_or(0);
    let mut reading = Reading {
        path,
        offset,
        base,
        buffer: Vec::with_capacity(window + 2 * PIECE as usize),
        consumed: 0,
        head: None,
        ids: Vec::with_capacity(rows),
        taken: Taken::default(),
    };
    let mut digester = Digester::new();
    loop {
        let at = reading.buffer.len();
        // Appended to the buffer's spare room, nothing zeroed first.
        let read = (&mut file)
            .take(PIECE)
            .read_to_end(&mut reading.buffer)
            .ok()?;
        digester.update(&reading.buffer[at..]);
        if read == 0 {
            break;
        }
        let from = reading.prefix_len();
        if reading.buffer.len() - from >= window
            && let Some(last_end) = memchr::memrchr(b'\n', &reading.buffer[from..])
        {
            reading.judge(from + last_end + 1)?;
        }
    }
    if reading.buffer.len() > reading.prefix_len() || reading.head.is_none() {
        reading.judge(reading.buffer.len())?;
    }
    let after = file.metadata().ok()?;
    let digest = digester.finish();
    let stamp = |m: &std::fs::Metadata| (m.len(), m.modified().ok());
    if stamp(&before) != stamp(&after) || after.len() != digest.len || digest.len > MAX_FILE_BYTES {
        return None;
    }
    if !reading.ids_differ() {
        return None;
    }
    let head = reading.head?;
    let verdict = IndexVerdict {
        digest,
        last_row_line: head.last_row_line,
        last_row_start: head.last_row_start,
        last_line_terminated: head.last_line_terminated,
        ..head.verdict
    };
    Some(Streamed {
        verdict,
        digester,
        taken: reading.taken,
    })
}

/// What the head told, and where the reading stands.
#[derive(Debug)]
struct Head {
    /// The head's verdict (its digest, and where its last row is, are the head's).
    verdict: IndexVerdict,
    /// The length of the header and delimiter rows, with their line ends, which start
    /// the buffer once the head is read: every window is read after them.
    prefix_len: usize,
    /// The line number of the first line not read yet.
    next_line: usize,
    last_row_line: usize,
    last_row_start: u64,
    last_line_terminated: bool,
}

struct Reading<'a> {
    path: &'a Path,
    offset: FixedOffset,
    base: &'a str,
    /// The table's header and delimiter rows (once the head is read), then the bytes read
    /// and not judged yet, from a line's start.
    buffer: Vec<u8>,
    /// The file offset of the first byte after the prefix.
    consumed: u64,
    head: Option<Head>,
    /// The hash of every row id read so far, sorted at the end: two ids of one hash send
    /// SessionStart to the whole reading, which tells a repeated id from a collision.
    ids: Vec<u64>,
    taken: Taken,
}

impl Reading<'_> {
    fn prefix_len(&self) -> usize {
        self.head.as_ref().map_or(0, |h| h.prefix_len)
    }

    /// Judges the whole lines of `buffer[..cut]` after the prefix and drops them; `None`
    /// when they give no verdict.
    fn judge(&mut self, cut: usize) -> Option<()> {
        let from = self.prefix_len();
        let buffer = std::mem::take(&mut self.buffer);
        // SIMD validation, as the whole-file read does; a cut after a line end falls
        // between characters, and the prefix is text already.
        let text = simdutf8::basic::from_utf8(buffer.get(..cut)?).ok()?;
        if memchr::memchr(0, &text.as_bytes()[from..]).is_some() {
            return None;
        }
        let (head, prefix) = match self.head {
            None => self.read_head(text)?,
            Some(_) => (self.read_window(text)?, 0..from),
        };
        // The prefix, then what follows the cut (the start of a line).
        let mut next = Vec::with_capacity(buffer.capacity());
        next.extend_from_slice(&text.as_bytes()[prefix]);
        next.extend_from_slice(&buffer[cut..]);
        self.consumed += (cut - from) as u64;
        self.buffer = next;
        self.head = Some(head);
        Some(())
    }

    /// Reads the head with the whole-file reader; it must get a verdict there. Gives the
    /// range of its header and delimiter rows too.
    fn read_head(&mut self, text: &str) -> Option<(Head, std::ops::Range<usize>)> {
        let doc = IndexDoc::parse(self.path, text.to_string(), self.offset).ok()?;
        let verdict = doc.verdict_of_text()?;
        if verdict.crlf {
            return None;
        }
        for id in doc.row_ids() {
            self.note_id(id)?;
        }
        let header_start = line_start(text, verdict.header_line)?;
        let body_start = usize::try_from(verdict.body_start).ok()?;
        let head = Head {
            prefix_len: body_start.checked_sub(header_start)?,
            next_line: doc.line_count() + 1,
            last_row_line: verdict.last_row_line,
            last_row_start: verdict.last_row_start,
            last_line_terminated: verdict.last_line_terminated,
            verdict,
        };
        Some((head, header_start..body_start))
    }

    /// Reads `doc`, a window of whole lines after the table's header and delimiter rows:
    /// rows of that table only, each readable and new.
    fn read_window(&mut self, doc: &str) -> Option<Head> {
        let head = self.head.as_ref()?;
        let prefix_len = head.prefix_len;
        let scan = scan_table(doc, &INDEX_COLUMNS).ok()?;
        let table = scan.table.as_ref()?;
        let text = doc.get(prefix_len..)?;
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count()
            + usize::from(!text.ends_with('\n'));
        let clean = scan.loose.is_empty()
            && scan.misplaced.is_empty()
            && scan.unclosed.is_none()
            && table.ended_by.is_none()
            && table.indent.is_empty()
            && table.insert_at == doc.len()
            && table.rows.len() == lines;
        if !clean {
            return None;
        }
        let last = table.rows.last()?;
        let next = Head {
            prefix_len,
            next_line: head.next_line + lines,
            // The window's first row is the line after the delimiter row.
            last_row_line: head.next_line + (last.line - table.delimiter_line - 1),
            last_row_start: self.consumed + (last.content.start - prefix_len) as u64,
            last_line_terminated: table.last_line_terminated,
            verdict: head.verdict,
        };
        for row in &table.rows {
            let id = validate_row(doc, row).ok()?;
            self.note_id(id)?;
        }
        Some(next)
    }

    /// Records a row's id.
    fn note_id(&mut self, id: &str) -> Option<()> {
        let mut hasher = rustc_hash::FxHasher::default();
        hasher.write(id.as_bytes());
        self.ids.push(hasher.finish());
        self.taken.note(self.base, id);
        Some(())
    }

    /// Whether no two ids read have one hash (one sort: cheaper than a set's look-up per
    /// row, whose table is spread over fresh pages).
    fn ids_differ(&mut self) -> bool {
        self.ids.sort_unstable();
        self.ids.windows(2).all(|w| w[0] != w[1])
    }
}

/// The byte offset where line `number` (1-based) of `text` starts.
fn line_start(text: &str, number: usize) -> Option<usize> {
    if number == 1 {
        return Some(0);
    }
    memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(number - 2)
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_memory::SessionId;
    use proptest::prelude::*;

    const BASE: &str = "2026-10-01-0900-cursor-main-agent";
    const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

    fn offset() -> FixedOffset {
        // Eight hours east is a valid offset.
        FixedOffset::east_opt(8 * 3600).expect("valid offset")
    }

    fn row(id: &str, summary: &str) -> String {
        format!(
            "| {id} | cursor-main-agent | Topic | {summary} | a, b | idle | - | 2026-10-01 09:00 | 2026-10-01T09:00:00+08:00 |\n"
        )
    }

    /// Summaries the reader takes in a row, some with the characters that open comments
    /// and HTML elsewhere.
    fn summary() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "plain",
            "50% done",
            "<b>bold</b> and a \\| b",
            "an %% inline comment %% here",
            "an <!-- inline comment --> here",
            "`code` and ~tilde~",
            "未設定 CJK",
        ])
    }

    /// Lines that end a table, are not rows, or are rows the reader refuses or warns
    /// about; and rows taking the ids a start this minute would take.
    fn odd_line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(row(BASE, "this minute")),
            (2u32..5).prop_map(|n| row(&format!("{BASE}-{n}"), "numbered")),
            Just(row(&format!("{BASE}-02"), "leading zero")),
            Just(row("2026-09-01-0001-bot", "a repeat of the first row")),
            Just(row("2026-09-01-0002-bot", "opens %% an Obsidian comment")),
            Just(row("2026-09-01-0003-bot", "closes it %%")),
            Just(row("2026-09-01-0004-bot", "opens <!-- a comment")),
            Just(row("2026-09-01-0005-bot", "closes it -->")),
            Just("| 2026-09-01-0006-bot | a | b | c | d | idle | - | yesterday | 2026-10-01 |\n".to_string()),
            Just("| 2026-09-01-0007-bot | too | few | cells |\n".to_string()),
            Just("| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n".to_string()),
            Just("\n".to_string()),
            Just("some prose\n".to_string()),
            Just("```\n".to_string()),
            Just("> | quoted | row |\n".to_string()),
            Just("    | indented |\n".to_string()),
            Just("<div>\n".to_string()),
        ]
    }

    /// Indexes of readable rows (unique ids, any summary), with up to three odd lines
    /// anywhere.
    fn document() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec![
                "# Memory Index\n\n",
                "",
                "# Index\n\nSome prose with 100% and <i>html</i>.\n\n",
                "%% a comment %%\n\n",
            ]),
            prop::collection::vec(summary(), 1..80),
            prop::collection::vec((odd_line(), any::<prop::sample::Index>()), 0..3),
            any::<bool>(),
        )
            .prop_map(|(top, summaries, odd, terminated)| {
                let mut lines: Vec<String> = summaries
                    .iter()
                    .enumerate()
                    .map(|(n, s)| row(&format!("2026-09-{:02}-{n:04}-bot", n % 28 + 1), s))
                    .collect();
                for (line, at) in odd {
                    let at = at.index(lines.len() + 1);
                    lines.insert(at, line);
                }
                let mut text = format!("{top}{HEADER}{}", lines.concat());
                if !terminated && text.ends_with('\n') {
                    text.pop();
                }
                text
            })
    }

    /// What the whole-file reader concludes: its verdict (when it reads the text without
    /// a warning) and which candidate ids the rows use.
    fn whole(path: &Path) -> Option<(IndexVerdict, Vec<bool>)> {
        let (doc, warnings) = IndexDoc::load_lenient(path, offset()).ok()?;
        if !warnings.is_empty() {
            return None;
        }
        let verdict = doc.read_verdict().0?;
        Some((verdict, candidates().map(|c| doc.uses_id(&c)).collect()))
    }

    fn candidates() -> impl Iterator<Item = SessionId> {
        std::iter::once(BASE.to_string())
            .chain((2..6).map(|n| format!("{BASE}-{n}")))
            .map(|c| SessionId::parse(&c).expect("a valid id"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Whenever the streamed reading gives a verdict, it is the whole reading's, with
        /// the same ids taken; any window size.
        #[test]
        fn a_streamed_verdict_is_the_whole_readers(text in document(), window in 1usize..1500) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("index.md");
            std::fs::write(&path, &text).unwrap();
            let got = stream_verdict(&path, offset(), BASE, window);
            if let Some(streamed) = got {
                let (verdict, taken) = whole(&path).expect("the whole reader gives a verdict");
                prop_assert_eq!(streamed.verdict, verdict);
                prop_assert_eq!(streamed.digester.finish(), verdict.digest);
                let by_stream: Vec<bool> =
                    candidates().map(|c| streamed.taken.holds(BASE, c.as_str())).collect();
                prop_assert_eq!(by_stream, taken);
            }
        }
    }

    #[test]
    fn a_clean_index_is_streamed_at_any_window() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        let mut text = format!("# Memory Index\n\n{HEADER}");
        for n in 0..500 {
            let summary = if n % 7 == 0 {
                "50% <b>done</b>"
            } else {
                "plain"
            };
            text.push_str(&row(
                &format!("2026-09-{:02}-{n:04}-bot", n % 28 + 1),
                summary,
            ));
        }
        text.push_str(&row(BASE, "this minute"));
        text.push_str(&row(&format!("{BASE}-3"), "numbered"));
        std::fs::write(&path, &text).unwrap();
        let whole = whole(&path).expect("a verdict");
        for window in [1, 100, 4096, 65536, WINDOW, 10 << 20] {
            let streamed = stream_verdict(&path, offset(), BASE, window).expect("streamed");
            assert_eq!(streamed.verdict, whole.0, "window {window}");
            assert!(streamed.taken.holds(BASE, BASE));
            assert!(!streamed.taken.holds(BASE, &format!("{BASE}-2")));
            assert!(streamed.taken.holds(BASE, &format!("{BASE}-3")));
        }
    }

    #[test]
    fn texts_the_whole_reader_warns_about_are_not_streamed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        let good = row("2026-09-01-0001-bot", "plain");
        for bad in [
            row("2026-09-01-0001-bot", "a repeated id"),
            "| 2026-09-01-0006-bot | a | b | c | d | idle | - | yesterday | 2026-10-01 |\n"
                .to_string(),
            "\nprose after the table\n".to_string(),
            row("2026-09-01-0002-bot", "opens %% a comment never closed"),
            "| x | \0 |\n".to_string(),
        ] {
            let text = format!("# Memory Index\n\n{HEADER}{}{bad}", good.repeat(50));
            std::fs::write(&path, &text).unwrap();
            for window in [64, 1 << 20] {
                assert!(
                    stream_verdict(&path, offset(), BASE, window).is_none(),
                    "{bad:?}"
                );
            }
        }
        let crlf = format!(
            "# Memory Index\r\n\r\n{}",
            format!("{HEADER}{good}").replace('\n', "\r\n")
        );
        std::fs::write(&path, crlf).unwrap();
        assert!(stream_verdict(&path, offset(), BASE, 64).is_none());
    }
}
