//! A namespace directory's `_index.md`: reading it whole, row edits by byte range, the
//! `> Last updated:` line, and the check of every new text by the same reader before it
//! is written.
//!
//! ```text
//! # Index: org.global
//!
//! > Last updated: 2026-04-03T10:00:00Z
//!
//! | Entity | Category | Summary | Tags | Status | File |
//! |---|---|---|---|---|---|
//! | org.global.decision.001 | decision | Auth uses JWT | auth, security | accepted | decision-001-auth-flow.md |
//! ```

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::index_rows::{RowRef, read_table};
use super::names::EntityName;
use super::namespace::Namespace;
use super::schema::{Category, EntryStatus};
use crate::durable::{Transaction, read_settled};
use crate::error::{Error, Result};
use crate::markdown::{
    Edit, LineEnding, Table, apply_edits, lines, push_escaped, render_row,
    without_new_final_newline,
};

/// The index table's columns, in order.
pub const INDEX_COLUMNS: [&str; 6] = ["Entity", "Category", "Summary", "Tags", "Status", "File"];

/// The longest index summary (the seed's "summary (≤100 chars)"), in characters.
pub const MAX_SUMMARY_CHARS: usize = 100;

/// One row of `_index.md`.
///
/// ```
/// # use memory_core::context_memory::IndexRow;
/// fn files(rows: &[IndexRow]) -> Vec<&str> { rows.iter().map(|r| r.file.as_str()).collect() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexRow {
    /// The entity's name.
    pub entity: EntityName,
    /// Its category.
    pub category: Category,
    /// The one-line summary (at most 100 characters when written by memory-core).
    pub summary: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its status.
    pub status: EntryStatus,
    /// The entity file's name in the namespace directory.
    pub file: String,
    /// The row's 1-based line in `_index.md`.
    #[serde(skip)]
    pub line: usize,
}

impl IndexRow {
    /// The six cell values in column order (what [`IndexRow::render`] is checked
    /// against).
    #[cfg(test)]
    pub(crate) fn cells(&self) -> [String; 6] {
        [
            self.entity.to_string(),
            self.category.to_string(),
            self.summary.clone(),
            self.tags.join(", "),
            self.status.to_string(),
            self.file.clone(),
        ]
    }

    /// The row as the index holds it, `row.render()`, written straight into
    /// one string (no cell is copied on its own, a cell with nothing to escape is not
    /// looked at twice).
    pub(crate) fn render(&self) -> String {
        let mut out = String::with_capacity(
            24 + self.entity.as_str().len()
                + self.summary.len()
                + self.file.len()
                + 16 * self.tags.len(),
        );
        out.push('|');
        let cell = |out: &mut String, value: &str| {
            out.push(' ');
            push_escaped(out, value.trim());
            out.push_str(" |");
        };
        cell(&mut out, self.entity.as_str());
        cell(&mut out, self.category.as_str());
        cell(&mut out, &self.summary);
        // The tags' cell is `tags.join(", ")` trimmed and escaped; the separators keep
        // every escape inside one tag, so the tags are escaped one by one unless the
        // trim would reach into the first or the last.
        // (An empty last tag leaves the join ending in a space.)
        let trims = self.tags.iter().any(String::is_empty)
            || self
                .tags
                .first()
                .is_some_and(|t| t.starts_with(char::is_whitespace))
            || self
                .tags
                .last()
                .is_some_and(|t| t.ends_with(char::is_whitespace));
        if trims {
            cell(&mut out, &self.tags.join(", "));
        } else {
            out.push(' ');
            for (i, tag) in self.tags.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_escaped(&mut out, tag);
            }
            out.push_str(" |");
        }
        cell(&mut out, self.status.as_str());
        cell(&mut out, &self.file);
        out
    }
}

/// `_index.md` as read at one moment.
#[derive(Debug, Clone)]
pub(crate) struct IndexFile {
    pub path: PathBuf,
    /// The namespace whose directory holds the file.
    pub namespace: Namespace,
    /// The file's text (a new file's template when there was none).
    pub text: String,
    pub table: Table,
    pub rows: Vec<IndexRow>,
    /// Whether the file existed.
    pub exists: bool,
    /// What the file held when it was read, when `text` is not exactly that (a prepared
    /// index, a new file's template; `None` inside: there was no file): what the commit
    /// replacing it must still find there.
    read_other: Option<Option<String>>,
    /// The byte range of the `> Last updated:` value, and the value.
    last_updated: Option<(Range<usize>, String)>,
}

impl IndexFile {
    /// Reads the index of `namespace` at `path`; a missing file reads as the empty
    /// template (written on the first change).
    /// A file that does not read is read again while another program may be saving it
    /// in place ([`read_settled`]).
    pub fn load(path: &Path, namespace: &Namespace) -> Result<IndexFile> {
        read_settled(path, |text| match text {
            Some(text) => Self::parse(path, namespace, text, true),
            None => Self::parse(path, namespace, template(namespace, None), false),
        })
    }

    /// The one reader: the whole table must read (every row's entity name, category,
    /// status and file), or the error names the file and line.
    pub fn parse(path: &Path, namespace: &Namespace, text: String, exists: bool) -> Result<Self> {
        let (table, refs) = read_table(path, &text)?;
        let rows = crate::parallel::map_light(&refs, RowRef::to_row);
        drop(refs);
        let last_updated = last_updated_line(&text, table.header_line);
        Ok(IndexFile {
            path: path.to_path_buf(),
            namespace: namespace.clone(),
            text,
            table,
            rows,
            exists,
            read_other: if exists { None } else { Some(None) },
            last_updated,
        })
    }

    /// What the file held when this index was read (`None`: no file): the basis of the
    /// commit that replaces it.
    pub fn read_bytes(&self) -> Option<Vec<u8>> {
        match &self.read_other {
            Some(other) => other.as_ref().map(|t| t.as_bytes().to_vec()),
            None => Some(self.text.as_bytes().to_vec()),
        }
    }

    /// What the file held when this index was read, as text (see [`IndexFile::read_bytes`]).
    fn read_text(&self) -> Option<String> {
        match &self.read_other {
            Some(other) => other.clone(),
            None => Some(self.text.clone()),
        }
    }

    /// Stages this index's text as the file's new content into `tx`, the commit
    /// depending on the file still holding what it held when it was read
    /// ([`Transaction::write_over`]): a program that saved it meanwhile without the lock
    /// (an editor, a sync client) refuses the commit and its save stands.
    pub fn stage(&self, tx: &mut Transaction<'_>) {
        self.stage_text(self.text.clone(), tx);
    }

    /// Stages `text`, made from this index (see [`IndexFile::prepare_text`]), as the
    /// file's new content, as [`IndexFile::stage`] does.
    pub fn stage_text(&self, text: String, tx: &mut Transaction<'_>) {
        tx.write_over(self.path.clone(), self.read_bytes(), text.into_bytes());
    }

    /// Makes the commit of `tx` depend on the file still holding what it held when this
    /// index was read (for a change that removes it, or decides from it).
    pub fn expect_in(&self, tx: &mut Transaction<'_>) {
        tx.expect(self.path.clone(), self.read_bytes());
    }

    /// This index once its text is committed: the file holds it now.
    pub fn committed(mut self) -> IndexFile {
        self.read_other = None;
        self.exists = true;
        self
    }

    /// The `> Last updated:` value, as written.
    pub fn last_updated(&self) -> Option<&str> {
        self.last_updated.as_ref().map(|(_, v)| v.as_str())
    }

    /// The edit appending `row`.
    pub fn append(&self, row: &IndexRow) -> Edit {
        self.table.append(&row.render())
    }

    /// The edit replacing row `index` with `row`.
    pub fn replace(&self, index: usize, row: &IndexRow) -> Edit {
        self.table.replace(index, &row.render())
    }

    /// The edit removing row `index`.
    pub fn remove(&self, index: usize) -> Edit {
        self.table.remove(index)
    }

    /// The edit setting `> Last updated:` to `timestamp` (adding the line under the
    /// heading, or at the top, when there is none).
    pub fn touch(&self, timestamp: &str) -> Edit {
        match &self.last_updated {
            Some((range, _)) => Edit {
                range: range.clone(),
                replacement: timestamp.to_string(),
            },
            None => {
                let le = LineEnding::detect(&self.text).as_str();
                let at = heading_end(&self.text).unwrap_or(0);
                let replacement = if at == 0 {
                    format!("> Last updated: {timestamp}{le}{le}")
                } else {
                    format!("{le}> Last updated: {timestamp}{le}")
                };
                Edit {
                    range: at..at,
                    replacement,
                }
            }
        }
    }

    /// Applies `edits` and checks the result with [`IndexFile::parse`] before anything
    /// is written: a text the reader would refuse is never written.
    pub fn prepare(&self, edits: Vec<Edit>) -> Result<IndexFile> {
        let text = without_new_final_newline(&self.text, apply_edits(&self.text, edits));
        let mut new = Self::parse(&self.path, &self.namespace, text, true)
            .map_err(|e| Error::unreadable_result(&self.path, e))?;
        // The file still holds what this index was read from until the change commits.
        new.read_other = Some(self.read_text());
        Ok(new)
    }

    /// The text `edits` make, checked as [`IndexFile::prepare`] checks it, for a caller
    /// that only writes it (heal): every row is read by the one row reader
    /// ([`IndexFile::parse`]'s check, which can refuse nothing else), but no owned rows
    /// are built.
    pub fn prepare_text(&self, edits: Vec<Edit>) -> Result<String> {
        let text = without_new_final_newline(&self.text, apply_edits(&self.text, edits));
        read_table(&self.path, &text).map_err(|e| Error::unreadable_result(&self.path, e))?;
        Ok(text)
    }

    /// A fresh index of `rows` (what heal writes when a directory has no usable index).
    pub fn rebuilt(
        path: &Path,
        namespace: &Namespace,
        rows: &[IndexRow],
        timestamp: &str,
    ) -> Result<IndexFile> {
        let mut text = template(namespace, Some(timestamp));
        for row in rows {
            text.push_str(&row.render());
            text.push('\n');
        }
        Self::parse(path, namespace, text, true).map_err(|e| Error::unreadable_result(path, e))
    }
}

/// The text of a new, empty index.
pub(crate) fn template(namespace: &Namespace, timestamp: Option<&str>) -> String {
    let mut text = format!("# Index: {namespace}\n\n");
    if let Some(ts) = timestamp {
        text.push_str(&format!("> Last updated: {ts}\n\n"));
    }
    text.push_str(&render_row(&INDEX_COLUMNS));
    text.push('\n');
    text.push_str("|---|---|---|---|---|---|\n");
    text
}

/// The `> Last updated:` value with its range, from the lines before the index table's
/// header (line `header_line`; another table above it does not hide the line).
fn last_updated_line(text: &str, header_line: usize) -> Option<(Range<usize>, String)> {
    for line in lines(text) {
        if line.number >= header_line {
            break;
        }
        if line.in_fence {
            continue;
        }
        let t = line.text;
        if let Some(rest) = t.trim_start().strip_prefix('>')
            && let Some(value) = rest.trim_start().strip_prefix("Last updated:")
        {
            let value_text = value.trim();
            let start = line.content.start
                + (t.len() - value.len())
                + (value.len() - value.trim_start().len());
            return Some((start..start + value_text.len(), value_text.to_string()));
        }
    }
    None
}

/// The byte offset just past the `# Index:` heading line, when there is one.
fn heading_end(text: &str) -> Option<usize> {
    lines(text)
        .find(|l| !l.in_fence && l.text.starts_with("# "))
        .map(|l| l.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "# Index: org.global\n\n> Last updated: 2026-04-03T10:00:00Z\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n| org.global.decision.001 | decision | Auth uses JWT | auth, security | accepted | decision-001-auth-flow.md |\n";

    fn ns() -> Namespace {
        Namespace::org_global()
    }

    #[test]
    fn last_updated_is_found_above_the_index_table_even_after_another_table() {
        let text = "# Index: org.global\n\n| Owner | Team |\n|---|---|\n| alice | auth |\n\n> Last updated: 2026-04-03T10:00:00Z\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n";
        let index =
            IndexFile::parse(Path::new("_index.md"), &ns(), text.to_string(), true).unwrap();
        assert_eq!(index.last_updated(), Some("2026-04-03T10:00:00Z"));
        let touched = index
            .prepare(vec![index.touch("2026-05-01T00:00:00Z")])
            .unwrap();
        assert_eq!(
            touched.text.matches("> Last updated:").count(),
            1,
            "{}",
            touched.text
        );
        assert_eq!(touched.last_updated(), Some("2026-05-01T00:00:00Z"));
    }

    proptest::proptest! {
        /// A row rendered in one string is the row rendered cell by cell, whatever its
        /// summary, tags (empty, padded, escaped, one or many) and file hold.
        #[test]
        fn a_row_renders_as_its_cells(
            summary in "[ a登|\\\\\r\n<!\\-%&b]{0,12}|\\PC{0,12}",
            tags in proptest::collection::vec("[ a登|\\\\\r\n<!\\-%,b]{0,6}|\\PC{0,4}", 0..5),
            file in "[ a|<%.\\-]{0,8}",
            which in 0usize..3,
        ) {
            let entity = ["org.global.decision.001", "project.myapp.risk.002", "org.global.principle.010"][which];
            let entity = EntityName::parse(entity).unwrap();
            let row = IndexRow {
                category: entity.category(),
                entity,
                summary,
                tags,
                status: EntryStatus::Superseded,
                file,
                line: 0,
            };
            proptest::prop_assert_eq!(row.render(), render_row(&row.cells()));
        }
    }

    /// The text heal writes is checked exactly as `prepare` checks it: the same text,
    /// or the same refusal with its line.
    #[test]
    fn prepare_text_checks_as_prepare_does() {
        let index =
            IndexFile::parse(Path::new("_index.md"), &ns(), SEED.to_string(), true).unwrap();
        let end = index.text.len();
        let raw = |s: &str| Edit {
            range: end..end,
            replacement: s.to_string(),
        };
        let mut row = index.rows[0].clone();
        row.summary = "a | b <!-- %% \n c".into();
        let mut refused = 0;
        for edits in [
            vec![index.touch("2026-05-01T00:00:00Z")],
            vec![index.replace(0, &row), index.append(&row)],
            vec![raw(
                "| org.global.decision.002 | decision | s | a, b | done | f.md |\n",
            )],
            vec![raw(
                "| org.global.decision.002 | risk | s | a | accepted | f.md |\n",
            )],
            vec![raw("| only | three | cells |\n")],
            vec![raw(
                "\n| org.global.decision.003 | decision | s | a | accepted | f.md |\n",
            )],
            vec![index.remove(0)],
        ] {
            let full = index.prepare(edits.clone()).map(|i| i.text);
            let text = index.prepare_text(edits);
            refused += usize::from(text.is_err());
            assert_eq!(
                text.as_ref().map_err(|e| (e.to_string(), e.line())),
                full.as_ref().map_err(|e| (e.to_string(), e.line()))
            );
        }
        assert_eq!(
            refused, 4,
            "the bad status, category, cell count and loose row"
        );
    }

    #[test]
    fn the_seeds_index_reads() {
        let index =
            IndexFile::parse(Path::new("_index.md"), &ns(), SEED.to_string(), true).unwrap();
        assert_eq!(index.last_updated(), Some("2026-04-03T10:00:00Z"));
        assert_eq!(index.rows.len(), 1);
        let row = &index.rows[0];
        assert_eq!(row.entity.as_str(), "org.global.decision.001");
        assert_eq!(row.tags, ["auth", "security"]);
        assert_eq!(row.status, EntryStatus::Accepted);
        assert_eq!(row.line, 7);
    }

    #[test]
    fn edits_touch_only_their_row_and_the_timestamp() {
        let index =
            IndexFile::parse(Path::new("_index.md"), &ns(), SEED.to_string(), true).unwrap();
        let mut row = index.rows[0].clone();
        row.status = EntryStatus::Superseded;
        let new = index
            .prepare(vec![
                index.replace(0, &row),
                index.touch("2026-05-01T00:00:00Z"),
            ])
            .unwrap();
        assert_eq!(
            new.text,
            SEED.replace("accepted", "superseded")
                .replace("2026-04-03T10:00:00Z", "2026-05-01T00:00:00Z")
        );
        assert_eq!(new.rows[0].status, EntryStatus::Superseded);
    }

    #[test]
    fn a_new_index_is_the_template_and_gains_a_timestamp() {
        let index = IndexFile::load(Path::new("/nonexistent/_index.md"), &ns()).unwrap();
        assert!(!index.exists);
        assert!(index.rows.is_empty());
        let new = index
            .prepare(vec![index.touch("2026-05-01T00:00:00Z")])
            .unwrap();
        assert_eq!(
            new.text,
            "# Index: org.global\n\n> Last updated: 2026-05-01T00:00:00Z\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n"
        );
    }

    #[test]
    fn unreadable_rows_name_the_line() {
        for (row, message) in [
            (
                "| org.global.decision.001 | decision | s | a, b | done | f.md |",
                "Status",
            ),
            (
                "| org.global.decision.001 | risk | s | a, b | accepted | f.md |",
                "disagrees",
            ),
            (
                "| org.global.note.001 | note | s | a, b | accepted | f.md |",
                "Entity",
            ),
            (
                "| org.global.decision.001 | decision | s | a, b | accepted | ../f.md |",
                "File",
            ),
            (
                "| org.global.decision.001 | decision | s | accepted | f.md |",
                "cells",
            ),
        ] {
            let text = format!("{}{row}\n", &SEED[..SEED.find("| org.global").unwrap()]);
            let err = IndexFile::parse(Path::new("_index.md"), &ns(), text, true).unwrap_err();
            assert_eq!(err.line(), Some(7), "{row}: {err}");
            assert!(err.to_string().contains(message), "{row}: {err}");
        }
    }

    #[test]
    fn hand_variants_of_closed_cells_read() {
        let text = SEED
            .replace("| decision | Auth", "| **Decision** | Auth")
            .replace("| accepted |", "| `Accepted` |");
        let index = IndexFile::parse(Path::new("_index.md"), &ns(), text, true).unwrap();
        assert_eq!(index.rows[0].category, Category::Decision);
        assert_eq!(index.rows[0].status, EntryStatus::Accepted);
    }
}
