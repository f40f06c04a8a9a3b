//! Organize Memory (整理 memory): delete idle rows, mark overdue active rows stale.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::TimeDelta;
use serde::Serialize;

use super::index::IndexDoc;
use super::snapshot_doc::SnapshotDoc;
use super::verdict::remember;
use super::{AgentMemory, SessionId, SessionRow, Status, Warning};
use crate::durable::{Transaction, decode_text};
use crate::error::{Error, Result};

/// Options of [`AgentMemory::organize`].
///
/// ```
/// let options = memory_core::OrganizeOptions::default();
/// assert_eq!(options.stale_after_days, 14);
/// assert!(!options.dry_run);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct OrganizeOptions {
    /// An `active` row whose `Updated At` is older than this many days becomes `stale`.
    pub stale_after_days: u32,
    /// Report what would change without writing.
    pub dry_run: bool,
}

impl Default for OrganizeOptions {
    fn default() -> Self {
        OrganizeOptions {
            stale_after_days: 14,
            dry_run: false,
        }
    }
}

impl OrganizeOptions {
    /// Sets the stale threshold in days.
    ///
    /// ```
    /// assert_eq!(memory_core::OrganizeOptions::default().stale_after_days(30).stale_after_days, 30);
    /// ```
    pub fn stale_after_days(mut self, days: u32) -> Self {
        self.stale_after_days = days;
        self
    }

    /// Only reports.
    ///
    /// ```
    /// assert!(memory_core::OrganizeOptions::default().dry_run(true).dry_run);
    /// ```
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }
}

/// What organize did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OrganizeReport {
    /// `idle` rows deleted from the index (no archive is made for them).
    pub deleted_idle: Vec<SessionId>,
    /// `active` rows marked `stale` (their `Updated At` kept).
    pub marked_stale: Vec<SessionId>,
    /// `active` rows kept as they are.
    pub kept_active: Vec<SessionId>,
    /// Rows left untouched because another session references them.
    pub protected: Vec<SessionId>,
    /// Temp files of memory-core writers that died mid-write, found anywhere under the
    /// root and removed (with `dry_run`, they would be).
    pub removed_temp_files: Vec<PathBuf>,
    /// Snapshot files (`sessions/<id>.md`) whose session has no row in the index:
    /// reported, never deleted (archive or re-register them by hand).
    pub orphan_snapshots: Vec<PathBuf>,
    /// Temp, swap and conflict files of other programs (editors, sync clients) under the
    /// root: reported, never deleted.
    pub leftover_files: Vec<PathBuf>,
    /// Snapshots of other sessions that could not be read (invalid UTF-8, a NUL byte…):
    /// reported, not fatal. The `Continues From` ids still legible in them protect
    /// their sources all the same.
    pub unreadable: Vec<Warning>,
    /// Whether nothing was written.
    pub dry_run: bool,
}

impl AgentMemory {
    /// Organizes the index: every unreferenced `idle` row is deleted (an `idle` row with
    /// a snapshot stops the whole run with [`Error::Inconsistent`]); every unreferenced
    /// `active` row older than `stale_after_days` with a snapshot or a non-default summary
    /// becomes `stale` with `Updated At` unchanged. Referenced rows (by `Referenced By`,
    /// or by another snapshot's `Continues From` as the seed's fallback) are protected.
    /// Nothing is archived. Temp files left by writers that died mid-write are removed
    /// from every directory under the root (not in a dry run); snapshots without a row
    /// and other programs' leftovers are reported, never deleted.
    ///
    /// ```
    /// use memory_core::{AgentMemory, OrganizeOptions};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let idle = memory.register_session_start("cursor-main-agent").unwrap();
    /// let report = memory.organize(OrganizeOptions::default()).unwrap();
    /// assert_eq!(report.deleted_idle, vec![idle]);
    /// assert!(memory.sessions().unwrap().is_empty());
    /// ```
    pub fn organize(&self, options: OrganizeOptions) -> Result<OrganizeReport> {
        let lock = self.lock()?;
        let index = self.load_index()?;
        let rows = index.rows()?;
        let mut unreadable = Vec::new();
        let referrers = self.referrers(&index, &rows, None, &mut unreadable)?;
        let now = self.handle.clock.now();
        let threshold = TimeDelta::days(i64::from(options.stale_after_days));
        let mut report = OrganizeReport {
            dry_run: options.dry_run,
            unreadable,
            ..OrganizeReport::default()
        };
        let mut edits = Vec::new();
        let mut stale_rows = Vec::new();
        for (position, row) in rows.iter().enumerate() {
            if row.status == Status::Idle && self.snapshot_exists(&row.session_id)? {
                return Err(Error::Inconsistent {
                    id: row.session_id.to_string(),
                    path: self.session_path(row.session_id.as_str())?,
                    message: "an idle row has a snapshot file; update the session (to make it active) or remove the file, then organize again".into(),
                });
            }
            if referrers.contains_key(&row.session_id) {
                report.protected.push(row.session_id.clone());
                continue;
            }
            match row.status {
                Status::Idle => {
                    report.deleted_idle.push(row.session_id.clone());
                    edits.push(index.remove(position));
                }
                Status::Active => {
                    let overdue = now.signed_duration_since(row.updated_at.datetime()) > threshold;
                    if overdue
                        && (row.has_meaningful_summary()
                            || self.snapshot_exists(&row.session_id)?)
                    {
                        let mut stale = row.clone();
                        stale.status = Status::Stale;
                        edits.push(index.replace(position, &stale));
                        report.marked_stale.push(row.session_id.clone());
                        stale_rows.push(stale);
                    } else {
                        report.kept_active.push(row.session_id.clone());
                    }
                }
                Status::Stale => {}
            }
        }
        let scan = self.scan_tree(&index, options.dry_run)?;
        report.removed_temp_files = scan.dead_temp_files;
        report.orphan_snapshots = scan.orphan_snapshots;
        report.leftover_files = scan.leftover_files;
        if options.dry_run || edits.is_empty() {
            return Ok(report);
        }
        let new = index.prepare(edits)?;
        report
            .deleted_idle
            .iter()
            .try_for_each(|id| new.expect_absent(id))?;
        new.expect_rows(&stale_rows)?;
        // The index is staged against what was read of it (see `NewIndex::stage`). The
        // snapshots read for their Continues From are not: organize never writes them,
        // and holding every snapshot's bytes to compare would cost a tree's worth of
        // memory for a reference an editor adds while organize runs.
        let written = new.verdict(None);
        let mut tx = Transaction::new(&lock);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [None, written]);
        Ok(report)
    }

    /// Every session referenced by another, with the sessions that reference it: the
    /// index's `Referenced By`, plus (the seed's fallback for incompletely recorded
    /// continuations) the `Continues From` of every indexed session's snapshot. With
    /// `only`, snapshots that do not mention that id are not parsed.
    ///
    /// A snapshot that cannot be read as text (invalid UTF-8, a NUL byte, too large) is
    /// added to `unreadable` and read as far as it is legible, so that the sources it
    /// names stay protected; with `only`, one that mentions that id fails the call (it
    /// may reference it), while one that does not is no concern of it. `unreadable` is
    /// left in path order.
    pub(crate) fn referrers(
        &self,
        index: &IndexDoc,
        rows: &[SessionRow],
        only: Option<&SessionId>,
        unreadable: &mut Vec<Warning>,
    ) -> Result<BTreeMap<SessionId, Vec<SessionId>>> {
        let mut map: BTreeMap<SessionId, Vec<SessionId>> = BTreeMap::new();
        let mut add = |source: &SessionId, referrer: &SessionId| {
            let list = map.entry(source.clone()).or_default();
            if !list.contains(referrer) {
                list.push(referrer.clone());
            }
        };
        for row in rows {
            row.referenced_by
                .iter()
                .for_each(|r| add(&row.session_id, r));
        }
        let sessions = self.handle.root.join(&["sessions"])?;
        let entries = match std::fs::read_dir(&sessions) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(map),
            Err(e) => return Err(Error::io_op(&sessions, "scandir", e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(&sessions, "scandir", e))?;
            let name = entry.file_name();
            let Some(referrer) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".md"))
                .and_then(|id| SessionId::parse(id).ok())
                .filter(|id| index.position(id).is_some())
            else {
                continue;
            };
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue; // a link or directory is never read (see SafeRoot)
            }
            let bytes = match std::fs::read(entry.path()) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::read_failed(entry.path(), e)),
            };
            let text = match decode_text(&entry.path(), bytes) {
                Ok(text) => text,
                Err(failed) => {
                    let (error, bytes) = *failed;
                    let legible = String::from_utf8_lossy(&bytes).replace('\0', " ");
                    if only.is_some_and(|id| legible.contains(id.as_str())) {
                        return Err(error);
                    }
                    unreadable.push(Warning::from_error(&error, 0));
                    legible
                }
            };
            if only.is_some_and(|id| !text.contains(id.as_str())) {
                continue;
            }
            for source in SnapshotDoc::continues_from_in(&text) {
                if source != referrer && index.position(&source).is_some() {
                    add(&source, &referrer);
                }
            }
        }
        // read_dir's order is the file system's: report in path order, the same each run.
        unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(map)
    }
}
