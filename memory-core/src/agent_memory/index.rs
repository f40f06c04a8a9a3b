//! `memory/index.md`: loading, single-row edits, atomic commit and read-back.

use std::path::{Path, PathBuf};

use chrono::FixedOffset;

use super::row::{INDEX_COLUMNS, validate_row};
use super::row_ids::RowIds;
use super::verdict::IndexVerdict;
use super::{SessionId, SessionRow, Warning};
use crate::durable::{Digester, FileDigest, Transaction, read_settled};
use crate::error::{Error, Result};
use crate::markdown::{
    Edit, LineEnding, Table, TableRow, TableScan, apply_edits, continue_table, render_row,
    scan_table, without_new_final_newline,
};

/// The text of a new index file.
pub(crate) const NEW_INDEX_PREAMBLE: &str = "# Memory Index\n\n";

/// The index as read at one moment, with the table located for byte-range edits. Rows
/// are validated when the index is read but only turned into [`SessionRow`]s on demand:
/// SessionStart needs nothing but the ids and the end of the table.
#[derive(Debug, Clone)]
pub(crate) struct IndexDoc {
    pub path: PathBuf,
    /// The file's text, plus a table header when the file had none yet.
    pub text: String,
    pub table: Table,
    offset: FixedOffset,
    /// The position of every readable row by its id (the id's text in `text`).
    positions: RowIds,
    /// Positions of the rows a lenient load could not read but whose id is valid: their
    /// ids stay reserved (empty after a strict load).
    reserved: Vec<usize>,
    /// The rows a lenient load could not read, `None` after a strict load: a new text of
    /// a leniently read index is checked leniently, and must not add to them.
    lenient: Option<Vec<Warning>>,
    /// Whether `text` is exactly the file's content (not a new file, nor one given a table).
    on_disk: bool,
    /// What the file held when it was read, when `text` is not exactly that (`None`
    /// inside: there was no file): what the commit replacing it must still find there.
    read_other: Option<Option<Vec<u8>>>,
    /// Whether the text leaves a fence, comment or HTML block open at its end.
    unclosed: bool,
}

impl IndexDoc {
    /// Reads and parses the index. A missing or empty file is a new index; a file without
    /// the table gets the table appended after its content (on the next write).
    /// A file that does not read is read again while another program may be saving it
    /// in place ([`read_settled`]).
    pub fn load(path: &Path, offset: FixedOffset) -> Result<Self> {
        Self::load_holding(path, offset, &[])
    }

    /// [`IndexDoc::load`] for an operation on the rows of `ids`: a text without one of them
    /// is [`Error::SessionNotFound`], and is read again while another program may be
    /// saving the file in place (a save cut off at a line's end reads, without the rows
    /// after the cut).
    pub fn load_holding(path: &Path, offset: FixedOffset, ids: &[&SessionId]) -> Result<Self> {
        read_settled(path, |original| {
            let existed = original.is_some();
            let doc = Self::parse(path, original.unwrap_or_default(), offset)?.read_as(existed);
            match ids.iter().find(|id| doc.position(id).is_none()) {
                Some(missing) => Err(doc.not_found(missing)),
                None => Ok(doc),
            }
        })
    }

    /// Records that there was no file when `existed` is false (a missing file and an
    /// empty one read as the same empty text).
    fn read_as(mut self, existed: bool) -> Self {
        if !existed {
            self.read_other = Some(None);
        }
        self
    }

    /// What the file held when it was read (`None`: no file), for the commit that
    /// replaces it to expect (see [`crate::durable::Transaction::write_over`]).
    fn read_bytes(&self) -> Option<Vec<u8>> {
        match &self.read_other {
            Some(other) => other.clone(),
            None => Some(self.text.as_bytes().to_vec()),
        }
    }

    /// The one strict reader every command uses: the whole table must be readable (every
    /// row's cells, id, status, references and timestamps, no duplicate id, no row-shaped
    /// line cut off from the table), else the error names the file and line.
    pub(super) fn parse(path: &Path, text: String, offset: FixedOffset) -> Result<Self> {
        Self::parse_with(path, text, offset, None)
    }

    /// Like [`IndexDoc::parse`], but a row that cannot be read is collected as a warning
    /// (its id, when readable, stays reserved) instead of failing: SessionStart registers
    /// beside such rows. Structural problems — no recognisable table, the table in a
    /// callout, rows cut off from the table — still fail.
    pub fn load_lenient(path: &Path, offset: FixedOffset) -> Result<(Self, Vec<Warning>)> {
        read_settled(path, |original| {
            let existed = original.is_some();
            let mut warnings = Vec::new();
            let mut doc = Self::parse_with(
                path,
                original.unwrap_or_default(),
                offset,
                Some(&mut warnings),
            )?
            .read_as(existed);
            doc.lenient = Some(warnings.clone());
            Ok((doc, warnings))
        })
    }

    fn parse_with(
        path: &Path,
        text: String,
        offset: FixedOffset,
        mut warnings: Option<&mut Vec<Warning>>,
    ) -> Result<Self> {
        let scan = scan_table(&text, &INDEX_COLUMNS).map_err(|i| i.at(path))?;
        match &scan.table {
            Some(table) => check_loose_rows(path, &text, table, &scan)?,
            None => check_loose_rows_without_table(path, &text, &scan)?,
        }
        let on_disk = scan.table.is_some();
        let unclosed = scan.unclosed.is_some();
        let mut read_other = None;
        let (text, table) = match scan.table {
            Some(table) => (text, table),
            None => {
                // A file without the table is short (prose at most): kept as read.
                read_other = Some(Some(text.as_bytes().to_vec()));
                let text = with_new_table(text);
                let table = scan_table(&text, &INDEX_COLUMNS)
                    .map_err(|i| i.at(path))?
                    .table
                    .ok_or_else(|| Error::malformed(path, 0, "could not add the index table"))?;
                (text, table)
            }
        };
        let mut positions = RowIds::with_capacity(table.rows.len());
        let mut reserved = Vec::new();
        let id_of = |p: usize| table.rows[p].raw_cell(&text, 0);
        for (position, raw) in table.rows.iter().enumerate() {
            let problem = match validate_row(&text, raw) {
                Ok(id) => match positions.insert(id, position, id_of) {
                    Ok(()) => continue,
                    Err(_) => Error::Duplicate {
                        id: id.to_string(),
                        path: path.to_path_buf(),
                        line: raw.line,
                    },
                },
                Err(message) => Error::malformed(path, raw.line, message),
            };
            let Some(warnings) = warnings.as_deref_mut() else {
                return Err(problem);
            };
            if SessionId::parse(raw.raw_cell(&text, 0)).is_ok() {
                reserved.push(position);
            }
            warnings.push(Warning::from_error(&problem, raw.line));
        }
        Ok(IndexDoc {
            path: path.to_path_buf(),
            text,
            table,
            offset,
            positions,
            reserved,
            lenient: None,
            on_disk,
            read_other,
            unclosed,
        })
    }

    /// Whether a row uses `id`, readable or not (a new id must avoid both).
    pub fn uses_id(&self, id: &SessionId) -> bool {
        self.position(id).is_some()
            || self
                .reserved
                .iter()
                .any(|&p| self.table.rows[p].raw_cell(&self.text, 0) == id.as_str())
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.table.rows.len()
    }

    /// The position of `id`'s row.
    pub fn position(&self, id: &SessionId) -> Option<usize> {
        self.positions
            .get(id.as_str(), |p| self.table.rows[p].raw_cell(&self.text, 0))
    }

    /// The row at `position` (which must be below [`IndexDoc::len`]).
    pub fn row(&self, position: usize) -> Result<SessionRow> {
        let raw = &self.table.rows[position];
        SessionRow::from_row(&self.text, raw, self.offset)
            .map_err(|m| Error::malformed(&self.path, raw.line, m))
    }

    /// Every row, in table order.
    pub fn rows(&self) -> Result<Vec<SessionRow>> {
        (0..self.len()).map(|i| self.row(i)).collect()
    }

    /// `id`'s row, or [`Error::SessionNotFound`].
    pub fn get(&self, id: &SessionId) -> Result<SessionRow> {
        let position = self.position(id).ok_or_else(|| self.not_found(id))?;
        self.row(position)
    }

    pub fn not_found(&self, id: &SessionId) -> Error {
        Error::SessionNotFound {
            id: id.to_string(),
            path: self.path.clone(),
        }
    }

    pub fn append(&self, row: &SessionRow) -> Edit {
        self.table.append(&render_row(&row.cells()))
    }

    pub fn replace(&self, index: usize, row: &SessionRow) -> Edit {
        self.table.replace(index, &render_row(&row.cells()))
    }

    pub fn remove(&self, index: usize) -> Edit {
        self.table.remove(index)
    }

    /// Applies `edits` and checks the result with the reader every command uses (the
    /// whole table, [`IndexDoc::parse`]), before anything is written: a text that reader
    /// would refuse is never written, and the operation fails with
    /// [`Error::InvalidInput`] (or the reader's [`Error::Duplicate`] conflict). A
    /// leniently read index (SessionStart beside unreadable rows) is checked leniently,
    /// and the change must leave exactly the same rows unreadable.
    pub fn prepare(&self, edits: Vec<Edit>) -> Result<NewIndex> {
        let text = without_new_final_newline(&self.text, apply_edits(&self.text, edits));
        let doc = match &self.lenient {
            None => IndexDoc::parse(&self.path, text, self.offset),
            Some(before) => {
                let mut after = Vec::new();
                Self::parse_with(&self.path, text, self.offset, Some(&mut after)).and_then(|doc| {
                    if after == *before {
                        // The new text is as lenient as the old: its unreadable rows must
                        // keep it from a verdict (a later SessionStart reports them).
                        Ok(IndexDoc {
                            lenient: Some(after),
                            ..doc
                        })
                    } else {
                        Err(Error::malformed(
                            &self.path,
                            after.first().map_or(0, |w| w.line),
                            "the change would make other rows unreadable",
                        ))
                    }
                })
            }
        }
        .map_err(|e| Error::unreadable_result(&self.path, e))?;
        Ok(NewIndex {
            doc,
            commit: Commit::Rewrite {
                read: self.read_bytes(),
            },
        })
    }

    /// [`IndexDoc::prepare`] for appending `row`, which writes only the new line when the
    /// table ends the file: a SessionStart on a 10,000-row index must not rewrite and
    /// flush 3 MB to add 300 bytes.
    ///
    /// The new text is checked as [`IndexDoc::prepare`] checks it, without reading the
    /// unchanged rows twice: the appended line is read by the scanner's own end-of-table
    /// rule ([`continue_table`], which says when the lines after a table can be judged
    /// alone) and the row by the same row reader, its id against every id of the table.
    /// The rest of the text is byte-identical to the text just read whole, and a row's
    /// reading depends on its own cells only, so the result is the reader's verdict on the
    /// whole new text (`tests/append_check.rs` compares the two on random documents).
    /// Anything else — content after the table, a table in a list item, an unreadable
    /// new row — goes through [`IndexDoc::prepare`].
    pub fn prepare_append(mut self, row: &SessionRow) -> Result<NewIndex> {
        let edit = self.append(row);
        let at = self.text.len();
        if self.on_disk && edit.range.start == at && self.append_in_place(&edit.replacement) {
            return Ok(NewIndex {
                doc: self,
                commit: Commit::Append { at },
            });
        }
        self.prepare(vec![edit])
    }

    /// Appends `line` to the text and its row to the table when the reader reads it as
    /// one more readable row with a new id; otherwise changes nothing and returns false.
    fn append_in_place(&mut self, line: &str) -> bool {
        let at = self.text.len();
        let Some(last) = self.table.rows.last() else {
            return false;
        };
        // The scanner needs the table's last row to continue it; a one-row probe spares
        // copying the other rows.
        let mut probe = Table {
            header_line: self.table.header_line,
            rows: vec![last.clone()],
            insert_at: self.table.insert_at,
            last_line_terminated: self.table.last_line_terminated,
            line_ending: self.table.line_ending,
            delimiter_line: self.table.delimiter_line,
            ended_by: self.table.ended_by,
            indent: self.table.indent.clone(),
        };
        self.text.push_str(line);
        let readable = continue_table(&mut probe, &self.text, self.unclosed, &INDEX_COLUMNS)
            && probe.rows.len() == 2
            && validate_row(&self.text, &probe.rows[1])
                .ok()
                .and_then(|id| SessionId::parse(id).ok())
                .is_some_and(|id| !self.uses_id(&id));
        if !readable {
            self.text.truncate(at);
            return false;
        }
        let mut probe_rows = probe.rows.into_iter();
        if let (Some(old_last), Some(last)) = (probe_rows.next(), self.table.rows.last_mut()) {
            last.end = old_last.end;
        }
        let position = self.table.rows.len();
        self.table.rows.extend(probe_rows);
        self.table.insert_at = probe.insert_at;
        self.table.last_line_terminated = probe.last_line_terminated;
        let (rows, text) = (&self.table.rows, &self.text);
        let id = rows[position].raw_cell(text, 0);
        // The id was just checked to be new, so the insert cannot find it taken.
        let _ = self
            .positions
            .insert(id, position, |p| rows[p].raw_cell(text, 0));
        true
    }

    /// The reader's verdict on this text (named by `digest`) when SessionStart could
    /// append to it by the verdict alone: read whole without a warning, the table at the
    /// top level, with a row, not hidden by an open fence or comment, and ending the file.
    fn verdict(&self, digest: FileDigest) -> Option<IndexVerdict> {
        let clean = self.on_disk
            && !self.unclosed
            && self.reserved.is_empty()
            && self.lenient.as_ref().is_none_or(|w| w.is_empty());
        let table = &self.table;
        let (first, last) = (table.rows.first()?, table.rows.last()?);
        (clean
            && table.ended_by.is_none()
            && table.indent.is_empty()
            && table.insert_at == self.text.len()
            && digest.len == self.text.len() as u64)
            .then(|| IndexVerdict {
                digest,
                offset_secs: self.offset.local_minus_utc(),
                header_line: table.header_line,
                delimiter_line: table.delimiter_line,
                body_start: first.content.start as u64,
                last_row_line: last.line,
                last_row_start: last.content.start as u64,
                last_line_terminated: table.last_line_terminated,
                crlf: table.line_ending == LineEnding::CrLf,
            })
    }

    /// The verdict on this text, its digest's hash left zero: for a part of a file read
    /// whole here ([`super::verdict_by_stream`] puts the file's own digest in).
    pub(super) fn verdict_of_text(&self) -> Option<IndexVerdict> {
        self.verdict(FileDigest {
            len: self.text.len() as u64,
            hash: 0,
        })
    }

    /// Every row's id as written (its first cell), in table order.
    pub(super) fn row_ids(&self) -> impl Iterator<Item = &str> {
        self.table.rows.iter().map(|r| r.raw_cell(&self.text, 0))
    }

    /// The number of lines of the text (a last line without its end counts).
    pub(super) fn line_count(&self) -> usize {
        let ends = memchr::memchr_iter(b'\n', self.text.as_bytes()).count();
        ends + usize::from(!self.text.is_empty() && !self.text.ends_with('\n'))
    }

    /// The verdict on the text as read, with the digester that named it (to fork for
    /// the text written).
    pub fn read_verdict(&self) -> (Option<IndexVerdict>, Digester) {
        let mut digester = Digester::new();
        digester.update(self.text.as_bytes());
        (self.verdict(digester.finish()), digester)
    }

    /// Checks this index holds `row` exactly.
    fn expect_row(&self, row: &SessionRow) -> Result<()> {
        match self.position(&row.session_id) {
            Some(i) if self.row(i)? == *row => Ok(()),
            Some(_) => Err(Error::verify(
                &self.path,
                format!("row {} does not hold the values written", row.session_id),
            )),
            None => Err(Error::verify(
                &self.path,
                format!("row {} is missing after the write", row.session_id),
            )),
        }
    }
}

/// A new index text that passed the reader: what an operation checks before it writes,
/// and, once its transaction committed (which reads the bytes back), what it reports.
#[derive(Debug)]
pub(crate) struct NewIndex {
    doc: IndexDoc,
    commit: Commit,
}

/// How a new index text reaches the file.
#[derive(Debug)]
enum Commit {
    /// The whole file is replaced; it held `read` when it was read (`None`: no file).
    Rewrite { read: Option<Vec<u8>> },
    /// The file is the text up to `at`; the rest is appended.
    Append { at: usize },
}

impl NewIndex {
    /// Adds the write of this index to `tx` (the text moves: no multi-megabyte copy),
    /// the commit depending on the file still holding what it held when it was read: a
    /// program that saved it meanwhile (an editor, a sync client) is never overwritten.
    pub fn stage(self, tx: &mut Transaction<'_>) {
        let IndexDoc { path, mut text, .. } = self.doc;
        match self.commit {
            Commit::Rewrite { read } => {
                tx.write_over(path, read, text.into_bytes());
            }
            Commit::Append { at } => {
                // The text up to `at` is the file as read (an append needs a table that
                // ends the file as it was): it becomes the basis, the rest the append.
                // `at` was the text's length before the line was pushed, so a char
                // boundary: `split_off` cannot panic.
                let tail = text.split_off(at);
                tx.expect(&path, Some(text.into_bytes()));
                tx.append(path, at as u64, tail);
            }
        }
    }

    /// The verdict on the new text, for when it is committed. `read` is the digester of
    /// the text as read ([`IndexDoc::read_verdict`]): an append forks it instead of
    /// hashing the whole text again.
    pub fn verdict(&self, read: Option<&Digester>) -> Option<IndexVerdict> {
        let text = self.doc.text.as_bytes();
        let digest = match (&self.commit, read) {
            (Commit::Append { at }, Some(read)) if read.finish().len == *at as u64 => {
                let mut fork = read.clone();
                fork.update(text.get(*at..)?);
                fork.finish()
            }
            _ => FileDigest::of(text),
        };
        self.doc.verdict(digest)
    }

    /// Checks the new index holds each of `rows` exactly.
    pub fn expect_rows(&self, rows: &[SessionRow]) -> Result<()> {
        rows.iter().try_for_each(|row| self.doc.expect_row(row))
    }

    /// Checks the new index no longer holds `id`.
    pub fn expect_absent(&self, id: &SessionId) -> Result<()> {
        match self.doc.position(id) {
            None => Ok(()),
            Some(_) => Err(Error::verify(
                &self.doc.path,
                format!("row {id} is still present after removal"),
            )),
        }
    }
}

/// Whether a line outside the table looks like an index row: the index's number of
/// cells, or a session id as its first cell — one shaped like the seed's
/// (`YYYY-MM-DD-HHMM-…`), or a hand-made one with a `-` or a digit (`s-1`) on a line
/// starting with `|`. A plain word in a stray pipe line of prose (`| Legend | … |`) is not.
fn looks_like_row(text: &str, line: &TableRow) -> bool {
    if line.cells.len() == INDEX_COLUMNS.len() {
        return true;
    }
    let first = line.raw_cell(text, 0);
    if SessionId::parse(first).is_err() {
        return false;
    }
    let starts_with_pipe = text[line.content.clone()].trim_start().starts_with('|');
    super::snapshot::looks_like_seed_id(first)
        || (starts_with_pipe && first.chars().any(|c| c == '-' || c.is_ascii_digit()))
}

/// Rows are read whole or not at all: a row-shaped line before or after the table
/// (cut off by a blank line, a heading, a `---`, a comment…) fails the read.
fn check_loose_rows(path: &Path, text: &str, table: &Table, scan: &TableScan) -> Result<()> {
    check_misplaced_rows(path, text, scan)?;
    let Some(line) = scan.loose.iter().find(|l| looks_like_row(text, l)) else {
        return Ok(());
    };
    if let Some(error) = hidden_by_unclosed(path, scan, line) {
        return Err(error);
    }
    let last = table.rows.last().map_or(table.delimiter_line, |r| r.line);
    let why = match table.ended_by {
        Some(end) if line.line > last => format!(
            "the index table (lines {}-{last}) ends at line {}, {}",
            table.header_line, end.line, end.reason
        ),
        _ => format!(
            "the index table starts at line {}, after it",
            table.header_line
        ),
    };
    Err(Error::malformed(
        path,
        line.line,
        format!(
            "this line looks like an index row but is not part of the index table: {why}; join it to the table (a GFM table ends at a blank line or another block) or remove it"
        ),
    ))
}

/// An index row written into another table (after a blank line and someone else's
/// header, GFM reads it as a row of that table, cut to its width): refused naming the line,
/// never dropped.
fn check_misplaced_rows(path: &Path, text: &str, scan: &TableScan) -> Result<()> {
    match scan.misplaced.iter().find(|l| looks_like_row(text, l)) {
        Some(line) => Err(Error::malformed(
            path,
            line.line,
            "this line looks like an index row but is a row of another table (its header has another number of columns); move it into the index table or remove it",
        )),
        None => Ok(()),
    }
}

/// A row-shaped line hidden by a fence or comment that never closes.
fn hidden_by_unclosed(path: &Path, scan: &TableScan, line: &TableRow) -> Option<Error> {
    let (opened, context) = scan.unclosed?;
    (line.line > opened).then(|| {
        Error::malformed(
            path,
            line.line,
            format!(
                "this line looks like an index row but is hidden: {} opened at line {opened} is never closed; close it or remove its opening line",
                context.describe()
            ),
        )
    })
}

/// Without a table, a row-shaped line means the header was lost: a second table is
/// never appended beside rows.
fn check_loose_rows_without_table(path: &Path, text: &str, scan: &TableScan) -> Result<()> {
    check_misplaced_rows(path, text, scan)?;
    match scan.loose.iter().find(|l| looks_like_row(text, l)) {
        Some(line) if let Some(error) = hidden_by_unclosed(path, scan, line) => Err(error),
        Some(line) => Err(Error::malformed(
            path,
            line.line,
            "this line looks like an index row, but the file has no index table header (| Session ID | Agent Name | … | with a delimiter row) before it; restore the header",
        )),
        None => Ok(()),
    }
}

fn with_new_table(mut text: String) -> String {
    let le = LineEnding::detect(&text).as_str();
    if text.trim().is_empty() {
        text = NEW_INDEX_PREAMBLE.replace('\n', le);
    } else {
        if !text.ends_with('\n') {
            text.push_str(le);
        }
        text.push_str(le);
    }
    text.push_str(&render_row(&INDEX_COLUMNS));
    text.push_str(le);
    text.push('|');
    text.push_str(&"---|".repeat(INDEX_COLUMNS.len()));
    text.push_str(le);
    text
}

#[cfg(test)]
#[path = "index_append_tests.rs"]
mod append_tests;
