//! `memory/index.md`: loading, single-row edits, atomic commit and read-back.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::FixedOffset;

use super::row::{INDEX_COLUMNS, validate_row};
use super::{SessionId, SessionRow};
use crate::durable::{read_text_if_exists, replace_atomically};
use crate::error::{Error, Result};
use crate::markdown::{
    Edit, LineEnding, Table, apply_edits, find_table, render_row, without_new_final_newline,
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
    positions: HashMap<SessionId, usize>,
}

impl IndexDoc {
    /// Reads and parses the index. A missing or empty file is a new index; a file without
    /// the table gets the table appended after its content (on the next write).
    pub fn load(path: &Path, offset: FixedOffset) -> Result<Self> {
        let original = read_text_if_exists(path)?.unwrap_or_default();
        Self::parse(path, original, offset)
    }

    fn parse(path: &Path, text: String, offset: FixedOffset) -> Result<Self> {
        let located = find_table(&text, &INDEX_COLUMNS)
            .map_err(|i| Error::malformed(path, i.line, i.message))?;
        let (text, table) = match located {
            Some(table) => (text, table),
            None => {
                let text = with_new_table(text);
                let table = find_table(&text, &INDEX_COLUMNS)
                    .map_err(|i| Error::malformed(path, i.line, i.message))?
                    .ok_or_else(|| Error::malformed(path, 0, "could not add the index table"))?;
                (text, table)
            }
        };
        let mut positions = HashMap::with_capacity(table.rows.len());
        for (position, raw) in table.rows.iter().enumerate() {
            let id = validate_row(&text, raw, offset)
                .map_err(|m| Error::malformed(path, raw.line, m))?;
            if positions.insert(id, position).is_some() {
                return Err(Error::Duplicate {
                    id: raw.raw_cell(&text, 0).to_string(),
                    path: path.to_path_buf(),
                    line: raw.line,
                });
            }
        }
        Ok(IndexDoc {
            path: path.to_path_buf(),
            text,
            table,
            offset,
            positions,
        })
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.table.rows.len()
    }

    /// The position of `id`'s row.
    pub fn position(&self, id: &SessionId) -> Option<usize> {
        self.positions.get(id).copied()
    }

    /// The row at `position` (which must be below [`IndexDoc::len`]).
    pub fn row(&self, position: usize) -> Result<SessionRow> {
        let raw = &self.table.rows[position];
        SessionRow::from_cells(&raw.values(&self.text), self.offset)
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

    /// Applies `edits`, replaces the file atomically, reads the file back and checks it
    /// holds exactly the bytes written. The returned [`Written`] checks rows in it.
    pub fn commit(&self, edits: Vec<Edit>) -> Result<Written> {
        let text = without_new_final_newline(&self.text, apply_edits(&self.text, edits));
        replace_atomically(&self.path, text.as_bytes())?;
        if !file_holds(&self.path, text.as_bytes())? {
            return Err(Error::verify(
                &self.path,
                "the index read back differs from what was written",
            ));
        }
        Ok(Written {
            path: self.path.clone(),
            text,
            offset: self.offset,
            parsed: OnceCell::new(),
        })
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

/// An index as written and read back byte-identical: the checks an operation makes
/// before it reports success.
#[derive(Debug)]
pub(crate) struct Written {
    path: PathBuf,
    text: String,
    offset: FixedOffset,
    parsed: OnceCell<IndexDoc>,
}

impl Written {
    /// The read-back, parsed (once) as a whole.
    fn parsed(&self) -> Result<&IndexDoc> {
        if let Some(doc) = self.parsed.get() {
            return Ok(doc);
        }
        let doc = IndexDoc::parse(&self.path, self.text.clone(), self.offset)?;
        Ok(self.parsed.get_or_init(|| doc))
    }

    /// Checks the read-back holds each of `rows` exactly. One or two rows this operation
    /// rendered are found as their exact lines without parsing the whole index
    /// (SessionStart's hot path); more rows, or rows not found that way, are checked on
    /// the index parsed once.
    pub fn expect_rows(&self, rows: &[SessionRow]) -> Result<()> {
        if rows.len() <= 2
            && rows
                .iter()
                .all(|row| self.holds_line(&render_row(&row.cells())))
        {
            return Ok(());
        }
        let parsed = self.parsed()?;
        rows.iter().try_for_each(|row| parsed.expect_row(row))
    }

    /// Whether `line` stands in the text as a whole line.
    fn holds_line(&self, line: &str) -> bool {
        self.text.match_indices(line).any(|(at, _)| {
            let rest = &self.text[at + line.len()..];
            self.text[..at].ends_with('\n')
                && (rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n"))
        })
    }

    /// Checks the read-back no longer holds `id`.
    pub fn expect_absent(&self, id: &SessionId) -> Result<()> {
        match self.parsed()?.position(id) {
            None => Ok(()),
            Some(_) => Err(Error::verify(
                &self.path,
                format!("row {id} is still present after removal"),
            )),
        }
    }
}

/// Whether the file at `path` holds exactly `expected`, compared in chunks (a second
/// multi-megabyte buffer costs more in page faults than the comparison itself).
fn file_holds(path: &Path, expected: &[u8]) -> Result<bool> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut at = 0;
    loop {
        let n = file.read(&mut buffer).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(at == expected.len());
        }
        if expected.get(at..at + n) != Some(&buffer[..n]) {
            return Ok(false);
        }
        at += n;
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
