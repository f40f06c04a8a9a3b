//! One row of `memory/index.md`.

use std::fmt;
use std::str::FromStr;

use chrono::FixedOffset;
use serde::Serialize;

use super::{SessionId, Timestamp};
use crate::error::{Error, Result};
use crate::markdown::TableRow;

/// The columns of the Agent Memory index table, in order.
pub const INDEX_COLUMNS: [&str; 9] = [
    "Session ID",
    "Agent Name",
    "Topic",
    "Summary",
    "Keywords",
    "Status",
    "Referenced By",
    "Started At",
    "Updated At",
];

/// The work-memory lifecycle of a session row. `closed` and `archived` are not
/// statuses: ending a session means archiving it and removing its row.
///
/// ```
/// use memory_core::Status;
/// assert_eq!("active".parse::<Status>().unwrap(), Status::Active);
/// assert!("closed".parse::<Status>().is_err());
/// assert_eq!(Status::Idle.to_string(), "idle");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Registered, no meaningful work yet (SessionStart).
    Idle,
    /// Real work in progress or recently updated.
    Active,
    /// Had real content, not updated for a long time.
    Stale,
}

impl Status {
    /// The lowercase name written in the index.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Active => "active",
            Status::Stale => "stale",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let value = s.trim();
        [Status::Idle, Status::Active, Status::Stale]
            .into_iter()
            .find(|status| value.eq_ignore_ascii_case(status.as_str()))
            .ok_or_else(|| Error::invalid("status", s, "must be one of idle, active, stale"))
    }
}

impl Status {
    /// Reads a status cell as people write it by hand: any case, and wrapped in `**…**`,
    /// `*…*`, `__…__`, `_…_` or `` `…` `` (one wrapper, matched on both sides). The error
    /// is the message for the row's line.
    pub(crate) fn read_cell(cell: &str) -> std::result::Result<Status, String> {
        crate::markdown::without_emphasis(cell.trim())
            .parse::<Status>()
            .map_err(|_| {
                format!(
                    "Status {} is not one of idle, active, stale",
                    crate::error::quoted(cell)
                )
            })
    }
}

/// One session as the index records it.
///
/// ```
/// use memory_core::{AgentMemory, Status};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let id = memory.register_session_start("cursor-main-agent").unwrap();
/// let row = memory.session(id.as_str()).unwrap();
/// assert_eq!(row.status, Status::Idle);
/// assert_eq!(row.topic, "未設定");
/// assert!(row.referenced_by.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionRow {
    /// The Memory Session ID.
    pub session_id: SessionId,
    /// The stable agent name (free text as read from the index).
    pub agent_name: String,
    /// What the session is about (`未設定` until known).
    pub topic: String,
    /// One or two sentences other agents read to judge relevance.
    pub summary: String,
    /// Comma-separated keywords, split.
    pub keywords: Vec<String>,
    /// Lifecycle status.
    pub status: Status,
    /// Session ids currently continuing from this session (`-` when empty).
    pub referenced_by: Vec<SessionId>,
    /// When the session was registered.
    pub started_at: Timestamp,
    /// When meaningful work was last recorded.
    pub updated_at: Timestamp,
}

impl SessionRow {
    /// The nine cell values in column order.
    pub(crate) fn cells(&self) -> [String; 9] {
        [
            self.session_id.to_string(),
            self.agent_name.clone(),
            self.topic.clone(),
            self.summary.clone(),
            self.keywords.join(", "),
            self.status.to_string(),
            if self.referenced_by.is_empty() {
                "-".to_string()
            } else {
                self.referenced_by
                    .iter()
                    .map(SessionId::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            self.started_at.to_string(),
            self.updated_at.to_string(),
        ]
    }

    /// Reads an index row: the cells [`validate_row`] checks are read by the same
    /// reading ([`check_cells`]), the free-text cells are unescaped. `Err` carries the
    /// message (the caller adds file and line).
    pub(crate) fn from_row(
        text: &str,
        row: &TableRow,
        offset: FixedOffset,
    ) -> std::result::Result<Self, String> {
        let checked = check_cells(text, row)?;
        let referenced_by = split_references(checked.referenced)
            .into_iter()
            .map(|r| SessionId::parse(&r).map_err(|e| format!("Referenced By: {e}")))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let stamp = |column: &str, text: &str| {
            Timestamp::parse(text, offset)
                .ok_or_else(|| format!("{column} {text:?} is not a timestamp"))
        };
        Ok(SessionRow {
            session_id: SessionId::parse(checked.id).map_err(|e| e.to_string())?,
            agent_name: row.cell(text, 1),
            topic: row.cell(text, 2),
            summary: row.cell(text, 3),
            keywords: split_list(&row.cell(text, 4)),
            status: checked.status,
            referenced_by,
            started_at: stamp("Started At", checked.started)?,
            updated_at: stamp("Updated At", checked.updated)?,
        })
    }

    /// Whether the summary says more than a registration placeholder.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("cursor-main-agent").unwrap();
    /// assert!(!memory.session(id.as_str()).unwrap().has_meaningful_summary());
    /// ```
    pub fn has_meaningful_summary(&self) -> bool {
        super::meaning::summary_is_meaningful(&self.summary)
    }

    /// Whether topic, summary or keywords carry real content (the seed's "meaningful
    /// Topic, Summary, or Keywords" used to order reading).
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("cursor-main-agent").unwrap();
    /// assert!(!memory.session(id.as_str()).unwrap().is_meaningful());
    /// ```
    pub fn is_meaningful(&self) -> bool {
        super::meaning::content_is_meaningful(&self.topic, &self.summary, &self.keywords)
    }
}

/// Checks an index row without building a [`SessionRow`] (no allocation): id, status,
/// `Referenced By` ids and both timestamps must be readable. Returns the id's text.
pub(crate) fn validate_row<'t>(
    text: &'t str,
    row: &TableRow,
) -> std::result::Result<&'t str, String> {
    check_cells(text, row).map(|checked| checked.id)
}

/// The cells of an index row that must be readable, as [`check_cells`] read them.
struct Checked<'t> {
    id: &'t str,
    status: Status,
    /// The whole `Referenced By` cell, every entry a valid id (or an empty marker).
    referenced: &'t str,
    started: &'t str,
    updated: &'t str,
}

/// The one reading of an index row's cells that [`validate_row`] and
/// [`SessionRow::from_row`] share, so that they cannot disagree.
///
/// Raw (still escaped) cells suffice: an escape (`\|`, `<br>`, `&lt;!--`, `%&#37;`) in
/// the id, status, references or a timestamp makes the cell unreadable, and a readable
/// one reads the same unescaped.
fn check_cells<'t>(text: &'t str, row: &TableRow) -> std::result::Result<Checked<'t>, String> {
    if row.content.len() > crate::markdown::MAX_LINE_BYTES {
        return Err(format!(
            "line is longer than {} bytes",
            crate::markdown::MAX_LINE_BYTES
        ));
    }
    if row.cells.len() != INDEX_COLUMNS.len() {
        return Err(format!(
            "table row has {} cells, expected {}",
            row.cells.len(),
            INDEX_COLUMNS.len()
        ));
    }
    let cell = |i| row.raw_cell(text, i);
    let id = cell(0);
    super::id::validate_session_id(id).map_err(|e| e.to_string())?;
    // The statuses as SessionStart and updates write them, compared as bytes first.
    let status = match cell(5) {
        "idle" => Status::Idle,
        "active" => Status::Active,
        "stale" => Status::Stale,
        other => Status::read_cell(other)?,
    };
    // Raw cells are already trimmed (as `str::trim` does).
    let referenced = cell(6);
    if !is_empty_marker(referenced) {
        for r in referenced
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
        {
            super::id::validate_session_id(r).map_err(|e| format!("Referenced By: {e}"))?;
        }
    }
    let (started, updated) = (cell(7), cell(8));
    for (column, stamp) in [("Started At", started), ("Updated At", updated)] {
        if !Timestamp::is_readable_trimmed(stamp) {
            return Err(format!("{column} {stamp:?} is not a timestamp"));
        }
    }
    Ok(Checked {
        id,
        status,
        referenced,
        started,
        updated,
    })
}

/// Whether a cell or entry says "nothing": empty, `-`, `—`, `–` or `None` (any case).
///
/// Written back as `-`; read in `Referenced By` and a snapshot's `Continues From`.
pub(crate) fn is_empty_marker(text: &str) -> bool {
    // The marker memcore writes, compared before anything is trimmed.
    if text == "-" {
        return true;
    }
    let t = text.trim();
    t.is_empty() || matches!(t, "-" | "—" | "–") || t.eq_ignore_ascii_case("none")
}

/// Splits a `Referenced By` cell: the empty markers of [`is_empty_marker`] are the empty
/// list.
pub(crate) fn split_references(cell: &str) -> Vec<String> {
    if is_empty_marker(cell) {
        return Vec::new();
    }
    split_list(cell)
}

/// Splits a comma-separated cell; `-` and blanks are the empty list.
pub(crate) fn split_list(cell: &str) -> Vec<String> {
    let trimmed = cell.trim();
    if trimmed.is_empty() || trimmed == "-" {
        return Vec::new();
    }
    trimmed
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::find_table;
    use proptest::prelude::*;

    /// Cells as people and tools write them, escapes and hostile text included.
    fn cell() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "2026-06-08-1920-cursor-main-agent",
            "2026-06-08-2100-文件助手",
            "a\\|b",
            "x<br>y",
            "&lt;!--",
            "-<br>",
            "",
            "-",
            "—",
            "None",
            "idle",
            "**Active**",
            "`stale`",
            "closed",
            "s-1, s-2",
            "s-1,, <br>s-2",
            "2026-06-08T19:20:00+08:00",
            "2026/06/08 19:20",
            "2026-06-08<br>",
            "2026-02-30",
            "..",
            "登入",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        /// `validate_row` accepts exactly the rows `SessionRow::from_row` reads, with the
        /// same message for the others, and returns the id the row holds.
        #[test]
        fn validation_and_reading_agree(cells in prop::collection::vec(cell(), 7..11)) {
            let row = format!("| {} |", cells.join(" | "));
            let text = format!("| {} |\n|{}\n{row}\n", INDEX_COLUMNS.join(" | "), "---|".repeat(9));
            let table = find_table(&text, &INDEX_COLUMNS[..]).ok().flatten();
            let Some(table) = table.filter(|t| t.rows.len() == 1) else {
                // A row of another cell count is refused by `find_table` itself.
                return Ok(());
            };
            let offset = FixedOffset::east_opt(8 * 3600).unwrap();
            let raw = &table.rows[0];
            match (validate_row(&text, raw), SessionRow::from_row(&text, raw, offset)) {
                (Ok(id), Ok(read)) => prop_assert_eq!(id, read.session_id.as_str()),
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                (a, b) => prop_assert!(false, "{row}: {a:?} but {b:?}"),
            }
        }
    }
}
