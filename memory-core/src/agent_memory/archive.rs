//! Single-session archive (封存 memory session).

use std::path::PathBuf;

use serde::Serialize;

use super::snapshot_doc::SnapshotDoc;
use super::verdict::remember;
use super::{AgentMemory, SessionId, SessionRow, Status, Warning};
use crate::durable::Transaction;
use crate::error::{Error, Result};
use crate::markdown::{find_table, render_row};

/// What [`AgentMemory::archive`] did. Both outcomes carry `warnings`: the snapshots of
/// other sessions that could not be read (invalid UTF-8, a NUL byte…) and, as they cannot
/// mention the archived session, did not stop it. In JSON the outcome is one object tagged
/// `outcome` (`"archived"` or `"deleted"`) with a `warnings` list (empty when every
/// snapshot was read) of `{path, line, message}`.
///
/// ```
/// use memory_core::{AgentMemory, ArchiveOutcome, ManualRegistration};
/// # let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let id = memory.register_manual(ManualRegistration::new("a", "Login", "Fixed it.")).unwrap();
/// let other = memory.register_manual(ManualRegistration::new("b", "Logs", "Rotated.")).unwrap();
/// std::fs::write(memory.session_path(other.as_str()).unwrap(), b"# Broken\n\xff\n").unwrap();
/// let outcome = memory.archive(id.as_str()).unwrap();
/// assert!(matches!(outcome, ArchiveOutcome::Archived { .. }));
/// assert_eq!(outcome.warnings().len(), 1);
/// assert!(outcome.warnings()[0].path.ends_with(format!("{other}.md")));
/// let json = serde_json::to_value(&outcome).unwrap();
/// assert_eq!(json["outcome"], "archived");
/// assert_eq!(json["warnings"][0]["line"], 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArchiveOutcome {
    /// The session had a snapshot: `archive/<id>/index.md` was written, the snapshot moved
    /// to `archive/<id>/session.md`, and the row removed from the index.
    Archived {
        /// The archived session.
        session_id: SessionId,
        /// `archive/<id>/index.md`.
        archive_index: PathBuf,
        /// `archive/<id>/session.md`.
        session_file: PathBuf,
        /// Sources whose `Referenced By` no longer lists the archived session.
        released_from: Vec<SessionId>,
        /// Snapshots of other sessions that could not be read and were gone past.
        warnings: Vec<Warning>,
    },
    /// A placeholder without snapshot: the row was deleted and no archive was made.
    Deleted {
        /// The deleted session.
        session_id: SessionId,
        /// Snapshots of other sessions that could not be read and were gone past.
        warnings: Vec<Warning>,
    },
}

impl ArchiveOutcome {
    /// The snapshots of other sessions that could not be read and did not stop the
    /// archive (path, 1-based line, message), in either outcome.
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_manual(ManualRegistration::new("a", "Login", "Fixed it.")).unwrap();
    /// assert!(memory.archive(id.as_str()).unwrap().warnings().is_empty());
    /// ```
    #[must_use]
    pub fn warnings(&self) -> &[Warning] {
        match self {
            ArchiveOutcome::Archived { warnings, .. }
            | ArchiveOutcome::Deleted { warnings, .. } => warnings,
        }
    }
}

impl AgentMemory {
    /// Archives one session. Refused with [`Error::Referenced`] while another session
    /// references it. A session without snapshot whose row is `idle` or has only a
    /// placeholder summary is deleted instead (no empty archive). Otherwise: the archive
    /// index is written from the seed's template, the snapshot moved to
    /// `archive/<id>/session.md`, and in one atomic index write this session is released
    /// from every row whose `Referenced By` lists it (the sources its `Continues From`
    /// names) and its row is removed — last, so a
    /// failure at any earlier step leaves the row in the index.
    ///
    /// A session with a meaningful summary but no snapshot is refused with
    /// [`Error::Inconsistent`]: deleting it would lose its summary, and an archive
    /// without a snapshot is not allowed; update it first to create the snapshot.
    ///
    /// A snapshot of another session that cannot be read (invalid UTF-8, a NUL byte, too
    /// large) is listed in the outcome's `warnings` and gone past, unless its legible text
    /// mentions this session: then it may reference it, and the call fails
    /// [`Error::Malformed`] naming it (as it does for this session's own snapshot).
    ///
    /// ```
    /// use memory_core::{AgentMemory, ArchiveOutcome, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_manual(ManualRegistration::new("a", "Login", "Fixed it.")).unwrap();
    /// let outcome = memory.archive(id.as_str()).unwrap();
    /// assert!(matches!(outcome, ArchiveOutcome::Archived { .. }));
    /// assert!(memory.archive_dir(id.as_str()).unwrap().join("session.md").exists());
    /// ```
    pub fn archive(&self, id: &str) -> Result<ArchiveOutcome> {
        let id = SessionId::parse(id)?;
        let lock = self.lock()?;
        let index = self.load_index_holding(&[&id])?;
        let position = index.position(&id).ok_or_else(|| index.not_found(&id))?;
        let row = index.row(position)?;
        // Snapshots of other sessions that cannot be read but do not mention this one are
        // no concern of it: reported, gone past (one that may mention it still stops it).
        let mut warnings = Vec::new();
        if let Some(referrers) = self
            .referrers(&index, std::slice::from_ref(&row), Some(&id), &mut warnings)?
            .remove(&id)
        {
            return Err(Error::Referenced {
                id: id.to_string(),
                referenced_by: referrers.iter().map(ToString::to_string).collect(),
                path: index.path.clone(),
            });
        }
        let session_file = self.session_path(id.as_str())?;
        let archive_dir = self.archive_dir(id.as_str())?;
        let archived_session = archive_dir.join("session.md");
        let archive_index = archive_dir.join("index.md");
        let (live, moved) = (session_file.exists(), archived_session.exists());
        if live && moved {
            return Err(Error::Inconsistent {
                id: id.to_string(),
                path: archived_session,
                message: "both sessions/<id>.md and archive/<id>/session.md exist; keep one and archive again".into(),
            });
        }
        if !live && !moved {
            if row.status == Status::Idle || !row.has_meaningful_summary() {
                let new = index.prepare(vec![index.remove(position)])?;
                new.expect_absent(&id)?;
                let written = new.verdict(None);
                let mut tx = Transaction::new(&lock);
                new.stage(&mut tx);
                tx.commit()?;
                remember(&lock, [None, written]);
                return Ok(ArchiveOutcome::Deleted {
                    session_id: id,
                    warnings,
                });
            }
            return Err(Error::Inconsistent {
                id: id.to_string(),
                path: session_file,
                message: "the row has a meaningful summary but no snapshot; update the session to create its snapshot, then archive".into(),
            });
        }
        let snapshot_path = if live {
            &session_file
        } else {
            &archived_session
        };
        let snapshot = SnapshotDoc::load(snapshot_path)?;
        let sources = snapshot
            .as_ref()
            .map(|d| d.continues_from())
            .unwrap_or_default();

        let archive_text = archive_index_text(&row, &self.now().to_string());
        check_archive_index(&archive_index, &archive_text, &id)?;

        // Release the sources its Continues From names, and any other row that still
        // lists it (a reference the snapshot no longer shows could never be released once
        // the row is gone), in the same write that removes the row.
        let mut edits = Vec::new();
        let mut released = Vec::new();
        for (p, mut other) in index.rows()?.into_iter().enumerate() {
            if other.session_id != id
                && (other.referenced_by.contains(&id) || sources.contains(&other.session_id))
            {
                let before = other.referenced_by.len();
                other.referenced_by.retain(|r| *r != id);
                if other.referenced_by.len() != before {
                    edits.push(index.replace(p, &other));
                    released.push(other);
                }
            }
        }
        edits.push(index.remove(position));
        let new = index.prepare(edits)?;
        new.expect_absent(&id)?;
        new.expect_rows(&released)?;
        // The archive index, the moved snapshot and the index without the row change as
        // one step: an interruption leaves the session either still live or archived.
        let mut tx = Transaction::new(&lock);
        // The snapshot decided which sources are released, and is what moves: an edit
        // saved since (by a program that does not take the lock) refuses the archive.
        tx.expect(snapshot_path, snapshot.map(|d| d.text.into_bytes()));
        // The archive index is made anew from the row (one a half-done archive left is
        // rewritten): nothing read from it goes into the change, so nothing is expected.
        tx.write(&archive_index, archive_text.into_bytes());
        if live {
            tx.rename(&session_file, &archived_session);
        }
        let written = new.verdict(None);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [None, written]);
        Ok(ArchiveOutcome::Archived {
            session_id: id,
            archive_index,
            session_file: archived_session,
            released_from: released.into_iter().map(|r| r.session_id).collect(),
            warnings,
        })
    }
}

/// Reads an archive index text as the archive's reader does: a `Field | Value` metadata
/// table that holds every template field, in order, the first naming `id`. A text that
/// fails (a value that would end or hide part of the table) is never written.
fn check_archive_index(path: &std::path::Path, text: &str, id: &SessionId) -> Result<()> {
    let table = find_table(text, &["Field", "Value"])
        .map_err(|i| i.at(path))
        .and_then(|t| t.ok_or_else(|| Error::malformed(path, 0, "no metadata table")))
        .map_err(|e| crate::Error::unreadable_result(path, e))?;
    let fields: Vec<String> = table.rows.iter().map(|r| r.cell(text, 0)).collect();
    let recorded = table.rows.first().map(|r| r.cell(text, 1));
    if fields != ARCHIVE_FIELDS || recorded.as_deref() != Some(id.as_str()) {
        let line = table.rows.last().map_or(table.header_line, |r| r.line);
        return Err(crate::Error::unreadable_result(
            path,
            Error::malformed(
                path,
                line,
                format!("the metadata table reads as fields {fields:?}, not the template's"),
            ),
        ));
    }
    Ok(())
}

/// The fields of the seed's Archive Index Template, in order.
const ARCHIVE_FIELDS: [&str; 10] = [
    "Session ID",
    "Agent Name",
    "Topic",
    "Summary",
    "Keywords",
    "Original Status",
    "Referenced By",
    "Started At",
    "Updated At",
    "Archived At",
];

/// The seed's Archive Index Template filled from `row`.
fn archive_index_text(row: &SessionRow, archived_at: &str) -> String {
    let cells = row.cells();
    let mut out = format!("# Archived Session: {}\n\n## Metadata\n\n", row.session_id);
    out.push_str(&render_row(&["Field", "Value"]));
    out.push_str("\n|---|---|\n");
    let fields = [
        ("Session ID", cells[0].as_str()),
        ("Agent Name", cells[1].as_str()),
        ("Topic", cells[2].as_str()),
        ("Summary", cells[3].as_str()),
        ("Keywords", cells[4].as_str()),
        ("Original Status", cells[5].as_str()),
        ("Referenced By", cells[6].as_str()),
        ("Started At", cells[7].as_str()),
        ("Updated At", cells[8].as_str()),
        ("Archived At", archived_at),
    ];
    for (field, value) in fields {
        out.push_str(&render_row(&[field, value]));
        out.push('\n');
    }
    out.push_str("\n## Files\n\n- Session: ./session.md\n");
    out
}
