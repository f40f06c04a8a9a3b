//! The index table's rows read in place: every row checked (entity name, category,
//! status, file) with its cells borrowed from the text, and owned [`IndexRow`]s built
//! only where rows are kept. This is the one row reader: [`IndexFile::parse`] builds
//! its rows from it, and a query matches the borrowed rows and builds its hits alone.
//!
//! [`IndexFile::parse`]: super::index_file::IndexFile::parse

use std::borrow::Cow;
use std::path::Path;

use super::index_file::{INDEX_COLUMNS, IndexRow};
use super::names::{EntityName, check_file_name};
use super::schema::{Category, EntryStatus};
use crate::error::{Error, Result};
use crate::markdown::{Table, TableRow, scan_table, unescape_cell, without_emphasis};

/// One index row as written, checked, its text cells borrowed when nothing in them
/// is escaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowRef<'t> {
    /// The entity name (valid).
    pub entity: Cow<'t, str>,
    /// The byte length of the entity name's namespace part.
    namespace_len: usize,
    pub category: Category,
    pub summary: Cow<'t, str>,
    /// The `Tags` cell as written; [`RowRef::tags`] splits it.
    tags: Cow<'t, str>,
    pub status: EntryStatus,
    /// The entity file's name (valid).
    pub file: Cow<'t, str>,
    /// The row's 1-based line.
    pub line: usize,
}

impl<'t> RowRef<'t> {
    /// Reads one row's cells, or says what is wrong with them (the caller names the
    /// file and line).
    pub fn read(text: &'t str, raw: &TableRow) -> std::result::Result<RowRef<'t>, String> {
        if raw.cells.len() != INDEX_COLUMNS.len() {
            return Err(format!(
                "index row has {} cells, expected {} ({})",
                raw.cells.len(),
                INDEX_COLUMNS.len(),
                INDEX_COLUMNS.join(", ")
            ));
        }
        let cell = |i: usize| cell_text(raw.raw_cell(text, i));
        let entity = cell(0);
        let (namespace, name_category) =
            EntityName::check(&entity).map_err(|e| format!("Entity: {e}"))?;
        let namespace_len = namespace.len();
        let category = read_closed(&cell(1)).ok_or_else(|| {
            format!(
                "Category {:?} is not one of {}",
                cell(1),
                Category::allowed()
            )
        })?;
        if category != name_category {
            return Err(format!(
                "Category {category} disagrees with the entity name {entity}"
            ));
        }
        let status = read_closed(&cell(4)).ok_or_else(|| {
            format!(
                "Status {:?} is not one of {}",
                cell(4),
                EntryStatus::allowed()
            )
        })?;
        let file = cell(5);
        check_file_name(&file)?;
        Ok(RowRef {
            entity,
            namespace_len,
            category,
            summary: cell(2),
            tags: cell(3),
            status,
            file,
            line: raw.line,
        })
    }

    /// The tags: the `Tags` cell split at commas, trimmed, empty entries and a lone
    /// `-` dropped.
    pub fn tags(&self) -> impl Iterator<Item = &str> + Clone {
        tags_of(&self.tags)
    }

    /// The same row, owning its cells (to outlive the text it was read from).
    pub fn into_owned(self) -> RowRef<'static> {
        RowRef {
            entity: Cow::Owned(self.entity.into_owned()),
            namespace_len: self.namespace_len,
            category: self.category,
            summary: Cow::Owned(self.summary.into_owned()),
            tags: Cow::Owned(self.tags.into_owned()),
            status: self.status,
            file: Cow::Owned(self.file.into_owned()),
            line: self.line,
        }
    }

    /// The owned row.
    pub fn to_row(&self) -> IndexRow {
        IndexRow {
            entity: EntityName::from_checked(
                &self.entity,
                &self.entity[..self.namespace_len],
                self.category,
            ),
            category: self.category,
            summary: self.summary.clone().into_owned(),
            tags: self.tags().map(str::to_string).collect(),
            status: self.status,
            file: self.file.clone().into_owned(),
            line: self.line,
        }
    }
}

/// The index table of `text` (the `_index.md` at `path`) and its rows, read in place:
/// the whole table must read, or the error names the file and the first line, in file
/// order, that does not.
pub(crate) fn read_table<'t>(path: &Path, text: &'t str) -> Result<(Table, Vec<RowRef<'t>>)> {
    let scan = scan_table(text, &INDEX_COLUMNS).map_err(|i| i.at(path))?;
    // Rows are read whole or not at all: an index row outside the table, or inside
    // someone else's table (GFM reads it as a row of that table), fails the read at the
    // first such line — it is never dropped.
    let loose = scan.loose.iter().find(|r| looks_like_row(text, r));
    let misplaced = scan.misplaced.iter().find(|r| looks_like_row(text, r));
    match (loose, misplaced) {
        (Some(row), other) if other.is_none_or(|m| row.line < m.line) => {
            return Err(Error::malformed(
                path,
                row.line,
                "an index row stands outside the index table (after a blank line or other text?); move it into the table",
            ));
        }
        (_, Some(row)) => {
            return Err(Error::malformed(
                path,
                row.line,
                "an index row stands in another table (its header has another number of columns); move it into the index table",
            ));
        }
        _ => {}
    }
    let Some(table) = scan.table else {
        return Err(Error::malformed(
            path,
            0,
            format!(
                "no index table (header | {} |); run heal to rebuild the index",
                INDEX_COLUMNS.join(" | ")
            ),
        ));
    };
    let read = crate::parallel::map_light(&table.rows, |raw| RowRef::read(text, raw));
    let mut rows = Vec::with_capacity(read.len());
    // The first row that does not read, in file order, is the one reported.
    for (raw, row) in table.rows.iter().zip(read) {
        rows.push(row.map_err(|m| Error::malformed(path, raw.line, m))?);
    }
    Ok((table, rows))
}

/// A cell's value, trimmed and unescaped (`unescape_cell(raw).trim()`), borrowed from
/// the text when there is nothing to unescape — the common case, and a query reads
/// every row of every index it searches.
///
/// `raw` is a cell as the table scanner gives it, already trimmed of white space as
/// `str::trim` trims (`TableRow::cells`): a cell with nothing to unescape is borrowed as
/// it stands, found by one SIMD search instead of a loop over its bytes.
fn cell_text(raw: &str) -> Cow<'_, str> {
    if memchr::memchr3(b'\\', b'<', b'&', raw.as_bytes()).is_none() {
        debug_assert_eq!(raw, raw.trim());
        return Cow::Borrowed(raw);
    }
    Cow::Owned(unescape_cell(raw).trim().to_string())
}

/// A closed-set cell as people write it in a table: any case, one emphasis or code
/// wrapper (`**accepted**`, `` `decision` ``).
fn read_closed<T: std::str::FromStr>(cell: &str) -> Option<T> {
    let bare = without_emphasis(cell.trim());
    if bare.bytes().any(|b| b.is_ascii_uppercase()) {
        bare.to_ascii_lowercase().parse::<T>().ok()
    } else {
        // Already lowercase: parsed as it stands, without a copy.
        bare.parse::<T>().ok()
    }
}

/// The tags of a `Tags` cell, borrowed.
fn tags_of(cell: &str) -> impl Iterator<Item = &str> + Clone {
    cell.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "-")
}

/// Whether a pipe line outside the table looks like a lost index row (its first cell
/// an entity name).
fn looks_like_row(text: &str, row: &TableRow) -> bool {
    EntityName::check(row.raw_cell(text, 0).trim()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The row reader as it was before rows were read in place (owned cells, an
    /// `EntityName` parsed per row): the reference the borrowed reader must equal.
    fn reference_row(text: &str, raw: &TableRow) -> std::result::Result<IndexRow, String> {
        if raw.cells.len() != INDEX_COLUMNS.len() {
            return Err(format!(
                "index row has {} cells, expected {} ({})",
                raw.cells.len(),
                INDEX_COLUMNS.len(),
                INDEX_COLUMNS.join(", ")
            ));
        }
        let cell = |i: usize| unescape_cell(raw.raw_cell(text, i)).trim().to_string();
        let entity = EntityName::parse(&cell(0)).map_err(|e| format!("Entity: {e}"))?;
        let category = read_closed(&cell(1)).ok_or_else(|| {
            format!(
                "Category {:?} is not one of {}",
                cell(1),
                Category::allowed()
            )
        })?;
        if category != entity.category() {
            return Err(format!(
                "Category {category} disagrees with the entity name {entity}"
            ));
        }
        let status = read_closed(&cell(4)).ok_or_else(|| {
            format!(
                "Status {:?} is not one of {}",
                cell(4),
                EntryStatus::allowed()
            )
        })?;
        let file = cell(5);
        check_file_name(&file)?;
        Ok(IndexRow {
            entity,
            category,
            summary: cell(2),
            tags: cell(3)
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty() && *t != "-")
                .map(str::to_string)
                .collect(),
            status,
            file,
            line: raw.line,
        })
    }

    /// The reference for a whole index: the same scan, every row read the old way.
    fn reference(text: &str) -> Result<Vec<IndexRow>> {
        let path = Path::new("_index.md");
        let scan = scan_table(text, &INDEX_COLUMNS).map_err(|i| i.at(path))?;
        if let Some(row) = scan
            .loose
            .iter()
            .chain(&scan.misplaced)
            .filter(|r| EntityName::parse(r.raw_cell(text, 0).trim()).is_ok())
            .min_by_key(|r| r.line)
        {
            return Err(Error::malformed(path, row.line, "loose"));
        }
        let table = scan
            .table
            .ok_or_else(|| Error::malformed(path, 0, "no table"))?;
        table
            .rows
            .iter()
            .map(|raw| reference_row(text, raw).map_err(|m| Error::malformed(path, raw.line, m)))
            .collect()
    }

    /// Cells as people and tools write them: valid and broken entity names (odd
    /// segments, Unicode, escapes), categories and statuses in any case or emphasis,
    /// escaped pipes and entities, tags with blanks and `-`, paths as file names.
    fn cell() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("org.global.decision.001".to_string()),
            Just("project.my-app.api.risk.x_1".to_string()),
            Just("project.a.b.c.d.e.f.decision.1".to_string()),
            Just("org.global.note.001".to_string()),
            Just("org..decision.001".to_string()),
            Just("org.Global.decision.001".to_string()),
            Just("org.global.decision.0\\|1".to_string()),
            Just("session.current.decision.001".to_string()),
            Just("org.global.décision.001".to_string()),
            Just("decision".to_string()),
            Just("**Risk**".to_string()),
            Just("`Decision`".to_string()),
            Just("accepted".to_string()),
            Just("SUPERSEDED".to_string()),
            Just("*experimental*".to_string()),
            Just("done".to_string()),
            Just("a, b,, -, C".to_string()),
            Just("a &amp; b<br>c".to_string()),
            Just("decision-001-x.md".to_string()),
            Just("../f.md".to_string()),
            Just("_index.md".to_string()),
            Just("f.txt".to_string()),
            Just(String::new()),
            "[a-z .,\\-]{0,12}",
            "[a-zé登 ]{0,6}",
        ]
    }

    /// Mostly rows that read (a valid name, its category in any spelling), each cell
    /// replaced by an odd one now and then, a cell missing or extra.
    fn row() -> impl Strategy<Value = Vec<String>> {
        let names = prop_oneof![
            Just(("org.global.decision.001", "decision")),
            Just(("project.my-app.api.risk.x_1", "Risk")),
            Just(("project.a.decision.010", "**decision**")),
            Just(("session.current.principle.7", "`Principle`")),
        ];
        let status = prop_oneof![
            Just("accepted"),
            Just("Superseded"),
            Just("**experimental**"),
            Just("deprecated"),
        ];
        let file = prop_oneof![Just("decision-001-a.md"), Just("risk-x.md"), Just("a b.md")];
        let odd = prop::option::weighted(0.15, (0usize..6, cell()));
        (
            names,
            "[a-zA-Zé .:\\-]{0,16}",
            "[a-z ,\\-]{0,10}",
            status,
            file,
            odd,
            0u8..10,
        )
            .prop_map(
                |((name, category), summary, tags, status, file, odd, shape)| {
                    let mut cells: Vec<String> = [name, category, &summary, &tags, status, file]
                        .map(str::to_string)
                        .to_vec();
                    if let Some((i, cell)) = odd {
                        cells[i] = cell;
                    }
                    match shape {
                        0 => {
                            cells.pop();
                        }
                        1 => cells.push("extra".to_string()),
                        _ => {}
                    }
                    cells
                },
            )
    }

    fn index_text() -> impl Strategy<Value = String> {
        (prop::collection::vec(row(), 0..8), any::<bool>(), 0u8..4).prop_map(
            |(rows, crlf, loose)| {
                let mut text = String::from(
                    "# Index: org.global\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n",
                );
                for cells in &rows {
                    text.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
                if loose == 0 && let Some(first) = rows.first() {
                    text.push_str(&format!("\n| {} |\n", first.join(" | ")));
                }
                // A row inside someone else's (narrower) table.
                if loose == 1 && let Some(first) = rows.first() {
                    text.push_str(&format!(
                        "\n| Note | By |\n|---|---|\n| {} |\n",
                        first.join(" | ")
                    ));
                }
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                text
            },
        )
    }

    /// A row that reads the old way reads in place too (the same row), and a refusal
    /// is the same kind at the same line.
    fn same_as_reference(text: &str) -> std::result::Result<(), TestCaseError> {
        let path = Path::new("_index.md");
        let new = read_table(path, text)
            .map(|(_, rows)| rows.iter().map(RowRef::to_row).collect::<Vec<_>>());
        match (new, reference(text)) {
            (Ok(new), Ok(old)) => prop_assert_eq!(new, old),
            (Err(new), Err(old)) => {
                prop_assert_eq!(new.line(), old.line(), "{} / {}", new, old);
                prop_assert_eq!(new.kind(), old.kind());
                if !matches!(old.to_string().as_str(), s if s.contains("loose") || s.contains("no table"))
                {
                    prop_assert_eq!(new.to_string(), old.to_string());
                }
            }
            (new, old) => prop_assert!(false, "{:?} / {:?}", new, old),
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn rows_read_in_place_equal_the_owned_reader(text in index_text()) {
            same_as_reference(&text)?;
        }
    }

    #[test]
    fn borrowed_cells_and_checked_names() {
        let text = "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n| org.global.decision.001 | **Decision** | a \\| b | x, -, , y | accepted | decision-001-a.md |\n";
        let (_, rows) = read_table(Path::new("_index.md"), text).unwrap();
        let row = &rows[0];
        assert!(matches!(row.entity, Cow::Borrowed(_)));
        assert_eq!(row.summary, "a | b");
        assert_eq!(row.tags().collect::<Vec<_>>(), ["x", "y"]);
        let owned = row.to_row();
        assert_eq!(owned.entity.namespace().as_str(), "org.global");
        assert_eq!(
            owned.entity,
            EntityName::parse("org.global.decision.001").unwrap()
        );
        assert_eq!(owned.line, 3);
        for bad in ["org.global.note.001", "org.global.decision.", "x"] {
            assert_eq!(
                EntityName::check(bad).unwrap_err().to_string(),
                EntityName::parse(bad).unwrap_err().to_string()
            );
        }
    }
}
