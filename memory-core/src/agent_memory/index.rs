//! `memory/index.md`: loading, single-row edits, atomic commit and read-back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::FixedOffset;

use super::row::{INDEX_COLUMNS, validate_row};
use super::{SessionId, SessionRow};
use crate::durable::{Transaction, read_text_if_exists};
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

    /// Applies `edits` and checks the result with the reader every command uses (the
    /// whole table, [`IndexDoc::parse`]), before anything is written: a text that reader
    /// would refuse is never written, and the operation fails with
    /// [`Error::InvalidInput`] (or the reader's [`Error::Duplicate`] conflict).
    pub fn prepare(&self, edits: Vec<Edit>) -> Result<NewIndex> {
        let text = without_new_final_newline(&self.text, apply_edits(&self.text, edits));
        let doc = IndexDoc::parse(&self.path, text, self.offset)
            .map_err(|e| unreadable_result(&self.path, e))?;
        Ok(NewIndex { doc })
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
}

impl NewIndex {
    /// Adds the write of this index to `tx`.
    pub fn stage(&self, tx: &mut Transaction<'_>) {
        tx.write(&self.doc.path, self.doc.text.clone().into_bytes());
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

/// The error for a change whose result the reader refuses: nothing is written.
pub(crate) fn unreadable_result(path: &Path, error: Error) -> Error {
    match error {
        Error::Malformed {
            path: file,
            line,
            message,
        } => Error::invalid(
            "change",
            &format!("{}:{line}", file.display()),
            format!(
                "would leave {} unreadable ({message}); nothing was written",
                path.display()
            ),
        ),
        other => other,
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
