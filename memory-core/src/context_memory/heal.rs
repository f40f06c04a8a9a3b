//! Index self-healing (the seed's "Index Self-Healing"): listing a namespace's entity
//! files, comparing them with `_index.md`, reporting drift (`verify`), and regenerating
//! the rows from the files (`heal`). A file that does not read is reported with its
//! path and line and never touched; its row, when it has one, is kept (with the summary
//! only the index holds). An index that does not read is never overwritten by a reader
//! or a writer; only an explicit `heal` rebuilds it, after moving the old text aside.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::io;
use std::path::PathBuf;

use serde::Serialize;

use super::entity::{Entry, EntryFields};
use super::entity_file::EntityFile;
use super::index_file::{IndexFile, IndexRow};
use super::memory::ContextMemory;
use super::names::{EntityName, is_entity_file_name, is_foreign_file_name};
use super::namespace::Namespace;
use crate::agent_memory::Warning;
use crate::durable::{MemoryLock, Transaction};
use crate::error::{Error, Result};
use crate::markdown::Edit;

/// How an index and its directory disagree.
///
/// ```
/// # use memory_core::context_memory::DriftReport;
/// fn clean(report: &DriftReport) -> bool { !report.has_drift() }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DriftReport {
    /// The namespace checked.
    pub namespace: Option<Namespace>,
    /// Rows whose file is gone.
    pub missing_files: Vec<EntityName>,
    /// Entity files that have no row (file names).
    pub unindexed_files: Vec<String>,
    /// Rows that disagree with their file (category, status, tags or file name).
    pub mismatched: Vec<EntityName>,
    /// Entity files that do not read, with the line and the reason: drift to report
    /// (a person must fix them; heal keeps their rows and never touches them).
    pub unreadable: Vec<Warning>,
    /// Foreign files in the directory (`README.md`, `NOTES.md`: not named
    /// `{category}-{short_id}[-{slug}].md`), relative to the root, by name: not drift,
    /// never indexed, never counted in [`DriftReport::files`], never touched.
    pub foreign: Vec<PathBuf>,
    /// Entities with more than one row (every row after the first).
    pub repeated: Vec<EntityName>,
    /// The index itself does not read (the reason), or `None`.
    pub unreadable_index: Option<Warning>,
    /// The index's `> Last updated:` time, as written.
    pub last_updated: Option<String>,
    /// The index's row count.
    pub rows: usize,
    /// Entity files in the directory.
    pub files: usize,
}

impl DriftReport {
    /// Whether the index and the files disagree or anything does not read (`verify`
    /// then exits 4): an unreadable entity file is drift too, since neither the index
    /// nor a reader can vouch for it until it is fixed by hand.
    pub fn has_drift(&self) -> bool {
        !self.missing_files.is_empty()
            || !self.unindexed_files.is_empty()
            || !self.mismatched.is_empty()
            || !self.repeated.is_empty()
            || !self.unreadable.is_empty()
            || self.unreadable_index.is_some()
    }
}

/// What a heal changed in an index.
///
/// ```
/// # use memory_core::context_memory::HealReport;
/// fn changed(report: &HealReport) -> usize { report.added.len() + report.removed.len() + report.updated.len() }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HealReport {
    /// The namespace healed.
    pub namespace: Option<Namespace>,
    /// Rows added for files that had none.
    pub added: Vec<EntityName>,
    /// Rows removed because their file is gone, or because they repeat an earlier row
    /// of the same entity. The row of a file that exists but does not read is kept.
    pub removed: Vec<EntityName>,
    /// Rows rewritten to agree with their file.
    pub updated: Vec<EntityName>,
    /// Entity files that do not read: reported, untouched, their rows kept.
    pub unreadable: Vec<Warning>,
    /// Foreign files in the directory (`README.md`, `NOTES.md`), relative to the root,
    /// by name: never indexed, never touched, never a reason to heal.
    pub foreign: Vec<PathBuf>,
    /// Whether `_index.md` was written.
    pub written: bool,
    /// When the old `_index.md` did not read and was rebuilt from the files: where its
    /// text was moved, verbatim (`_index.md.bak-<UTC time>` beside it), relative to the
    /// root (`org/global/_index.md.bak-20260403T100000Z`).
    pub backup: Option<PathBuf>,
    /// Why the old index did not read (with its line), when it was rebuilt.
    pub unreadable_index: Option<Warning>,
}

/// What heal writes for an index that does not read: the report, the new index (its
/// path and checked text), and the backup (its path and the old bytes) written in the same transaction.
type Rebuilt = (HealReport, Option<NewIndexText>, Option<(PathBuf, Vec<u8>)>);

/// An index's path, what the file held when it was read (`None`: no file), and the text
/// that replaces it.
type NewIndexText = (PathBuf, Option<Vec<u8>>, String);

/// Every entity file of a namespace, read (`T`: what is kept of each, the whole file or
/// only its entry).
pub(super) struct DirScan<T = EntityFile> {
    pub entries: Vec<T>,
    pub unreadable: Vec<Warning>,
    /// Every entity file name in the directory (readable or not).
    pub names: BTreeSet<String>,
    /// The foreign files in the directory, relative to the root, by name.
    pub foreign: Vec<PathBuf>,
}

/// A namespace directory's regular files: its entity files and its foreign ones
/// ([`is_foreign_file_name`]); memory-core's own files are in neither.
#[derive(Debug, Default)]
pub(super) struct DirListing {
    /// The entity file names.
    pub entities: BTreeSet<String>,
    /// The foreign files, relative to the root, sorted.
    pub foreign: Vec<PathBuf>,
}

impl ContextMemory {
    /// Reports how `namespace`'s index disagrees with its files, writing nothing.
    ///
    /// ```
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let report = memory.verify(&Namespace::org_global()).unwrap();
    /// assert!(!report.has_drift());
    /// ```
    pub fn verify(&self, namespace: &Namespace) -> Result<DriftReport> {
        let _guard = self.handle.read_guard()?;
        let scan = self.scan_entries(namespace)?;
        let mut report = DriftReport {
            namespace: Some(namespace.clone()),
            files: scan.names.len(),
            unreadable: scan.unreadable.clone(),
            foreign: scan.foreign.clone(),
            ..DriftReport::default()
        };
        let index = match self.load_index(namespace) {
            Ok(index) => index,
            Err(error) => {
                report.unreadable_index =
                    Some(Warning::from_error(&error, error.line().unwrap_or(0)));
                return Ok(report);
            }
        };
        report.rows = index.rows.len();
        report.last_updated = index.last_updated().map(str::to_string);
        let mut seen = HashSet::new();
        for row in &index.rows {
            if !seen.insert(&row.entity) {
                report.repeated.push(row.entity.clone());
            }
            if !scan.names.contains(&row.file) {
                report.missing_files.push(row.entity.clone());
            }
        }
        let unreadable: BTreeSet<&std::ffi::OsStr> = scan
            .unreadable
            .iter()
            .filter_map(|w| w.path.file_name())
            .collect();
        let row_files: HashSet<&str> = index.rows.iter().map(|r| r.file.as_str()).collect();
        for name in &scan.names {
            // A file that does not read cannot have a row: it is reported as unreadable.
            if !row_files.contains(name.as_str())
                && !unreadable.contains(std::ffi::OsStr::new(name))
            {
                report.unindexed_files.push(name.clone());
            }
        }
        let rows = first_by_entity(&index.rows);
        for file in &scan.entries {
            if let Some(row) = rows.get(&file.entity_name)
                && !row_agrees(row, file, file_name(file))
            {
                report.mismatched.push(row.entity.clone());
            }
        }
        Ok(report)
    }

    /// Regenerates `namespace`'s index rows from its entity files, under the lock: rows
    /// for files without one are added, rows whose file is gone are removed, rows that
    /// disagree with their file are rewritten (keeping their summary, which only the
    /// index holds), and a repeated row of an entity is removed (one file, one row). The
    /// row of a file that exists but does not read is kept as it is (the file is
    /// reported in [`HealReport::unreadable`]). Rows are kept in their order, new ones
    /// appended by name.
    ///
    /// An index that does not read is rebuilt from the files, but only after its text
    /// is moved aside verbatim to `_index.md.bak-<UTC time>` in the same directory (in
    /// the same transaction as the new index, named in [`HealReport::backup`]); every
    /// row of the old text whose entity name still reads gives its summary to the new
    /// row of that entity.
    ///
    /// ```
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let report = memory.heal(&Namespace::org_global()).unwrap();
    /// assert!(!report.written, "nothing to heal in an empty namespace");
    /// ```
    pub fn heal(&self, namespace: &Namespace) -> Result<HealReport> {
        let lock = self.handle.lock()?;
        let (report, index, backup) = match self.load_index(namespace) {
            Ok(index) => {
                let (report, edits) = self.healed_edits(namespace, &index)?;
                let new = match edits {
                    Some(edits) => Some((
                        index.path.clone(),
                        index.read_bytes(),
                        index.prepare_text(edits)?,
                    )),
                    None => None,
                };
                (report, new, None)
            }
            Err(error) if error.kind() == crate::ErrorKind::Malformed => {
                self.rebuilt_index(namespace, &error)?
            }
            Err(error) => return Err(error),
        };
        if let Some((path, read, text)) = index {
            // Each file against what was read of it: the backup's free name must still be
            // free, the index hold what the rows were healed (or rebuilt) from.
            let mut tx = Transaction::new(&lock);
            if let Some((path, old)) = backup {
                tx.write_over(path, None, old);
            }
            tx.write_over(path, read, text.into_bytes());
            tx.commit()?;
        }
        Ok(report)
    }

    /// `namespace`'s index as it reads, healed first (under `lock`) when the directory
    /// listing shows the seed's lazy triggers ([`ContextMemory::needs_heal`]) and the
    /// heal would change it. An index that does not read is never healed here: the
    /// error (naming its file and line) is returned, and nothing is written.
    pub(super) fn settled_index(
        &self,
        namespace: &Namespace,
        lock: &MemoryLock,
    ) -> Result<IndexFile> {
        let index = self.load_index(namespace)?;
        let listing = self.list_dir(namespace)?;
        if !self.needs_heal(namespace, index.keys(), &listing)? {
            return Ok(index);
        }
        let (_, healed) = self.healed_index(namespace, &index)?;
        match healed {
            Some(new) => {
                let mut tx = Transaction::new(lock);
                new.stage(&mut tx);
                tx.commit()?;
                // What a change made next under the lock reads the file as.
                Ok(new.committed())
            }
            None => Ok(index),
        }
    }

    /// The healed `index` (`None` when nothing changes), read back, and what changed.
    pub(super) fn healed_index(
        &self,
        namespace: &Namespace,
        index: &IndexFile,
    ) -> Result<(HealReport, Option<IndexFile>)> {
        let (report, edits) = self.healed_edits(namespace, index)?;
        let new = edits.map(|edits| index.prepare(edits)).transpose()?;
        Ok((report, new))
    }

    /// The edits that heal `index` (`None` when nothing changes) and what changed.
    pub(super) fn healed_edits(
        &self,
        namespace: &Namespace,
        index: &IndexFile,
    ) -> Result<(HealReport, Option<Vec<Edit>>)> {
        let scan = self.scan_rows(namespace)?;
        let mut report = HealReport {
            namespace: Some(namespace.clone()),
            unreadable: scan.unreadable.clone(),
            foreign: scan.foreign.clone(),
            ..HealReport::default()
        };
        let now = self.utc_now();
        let no_files = scan.entries.is_empty();
        let wanted: Vec<IndexRow> = scan.entries;
        let unreadable = unreadable_names(&scan.unreadable);
        let mut edits = Vec::new();
        // Only an index with rows looks rows up by entity (a new index has none).
        let by_entity = if index.rows.is_empty() {
            HashMap::new()
        } else {
            first_by_entity(&wanted)
        };
        let mut seen = HashSet::new();
        for (i, row) in index.rows.iter().enumerate() {
            if !seen.insert(&row.entity) {
                // A second row for the same entity (a merge or a paste gone wrong): one
                // file has one row, so the repeat goes.
                report.removed.push(row.entity.clone());
                edits.push(index.remove(i));
                continue;
            }
            match by_entity.get(&row.entity) {
                // The file is there but does not read: its row (and the summary only
                // the index holds) stays until the file is fixed or deleted.
                None if unreadable.contains(row.file.as_str()) => {}
                None => {
                    report.removed.push(row.entity.clone());
                    edits.push(index.remove(i));
                }
                Some(w) => {
                    let mut w = (*w).clone();
                    w.summary = row.summary.clone();
                    if !same_row(row, &w) {
                        report.updated.push(row.entity.clone());
                        edits.push(index.replace(i, &w));
                    }
                }
            }
        }
        let indexed: HashSet<&EntityName> = index.rows.iter().map(|r| &r.entity).collect();
        let new_rows = sorted(
            wanted
                .into_iter()
                .filter(|w| !indexed.contains(&w.entity))
                .collect(),
        );
        edits.extend(crate::parallel::map_light(&new_rows, |row| {
            index.append(row)
        }));
        // The names move into the report (not copied: 10,000 rows on a new index).
        report.added.extend(new_rows.into_iter().map(|r| r.entity));
        if edits.is_empty() && index.exists {
            return Ok((report, None));
        }
        if edits.is_empty() && no_files {
            // A namespace with neither files nor an index: nothing to write.
            return Ok((report, None));
        }
        edits.push(index.touch(&now));
        report.written = true;
        Ok((report, Some(edits)))
    }

    /// A fresh index of `namespace` from its files, for an index that does not read
    /// (`error`): the report, the new index, and the backup to write first (its path
    /// and the old bytes, verbatim).
    fn rebuilt_index(&self, namespace: &Namespace, error: &Error) -> Result<Rebuilt> {
        let path = self.file_in(namespace, super::names::INDEX_FILE_NAME)?;
        let old = crate::durable::read_text_no_follow(&path)?;
        let summaries = super::index_salvage::summaries(&old);
        let scan = self.scan_entries(namespace)?;
        let now = self.utc_now();
        let rows = sorted(crate::parallel::map_light(&scan.entries, |f| {
            row_of(f, file_name(f), summaries.get(&f.entity_name).cloned())
        }));
        let new = IndexFile::rebuilt(&path, namespace, &rows, &now)?;
        let backup = self.backup_path(namespace, &now)?;
        let relative = backup
            .file_name()
            .map_or_else(|| backup.clone(), |name| namespace.dir().join(name));
        let report = HealReport {
            namespace: Some(namespace.clone()),
            added: rows.iter().map(|r| r.entity.clone()).collect(),
            unreadable: scan.unreadable,
            foreign: scan.foreign,
            written: true,
            backup: Some(relative),
            unreadable_index: Some(Warning::from_error(error, error.line().unwrap_or(0))),
            ..HealReport::default()
        };
        let old = old.into_bytes();
        Ok((
            report,
            Some((new.path, Some(old.clone()), new.text)),
            Some((backup, old)),
        ))
    }

    /// A free `_index.md.bak-<UTC time>` name beside `namespace`'s index (`-2`, `-3`, …
    /// appended when one of that second exists).
    fn backup_path(&self, namespace: &Namespace, now: &str) -> Result<PathBuf> {
        let stamp: String = now.chars().filter(|c| *c != ':' && *c != '-').collect();
        let base = format!("{}{stamp}", super::names::INDEX_BACKUP_PREFIX);
        let mut name = base.clone();
        let mut n = 1u64;
        loop {
            let path = self.file_in(namespace, &name)?;
            if fs::symlink_metadata(&path).is_err() {
                return Ok(path);
            }
            n += 1;
            name = format!("{base}-{n}");
        }
    }

    /// The entity file names in `namespace`'s directory (empty when it does not exist).
    pub(super) fn list_dir(&self, namespace: &Namespace) -> Result<BTreeSet<String>> {
        Ok(self.read_listing(namespace)?.entities)
    }

    /// The entity file names and the foreign file names in `namespace`'s directory
    /// (both empty when it does not exist): regular files only (a link or a
    /// subdirectory is neither).
    pub(super) fn read_listing(&self, namespace: &Namespace) -> Result<DirListing> {
        let dir = self.namespace_dir(namespace);
        // Collected first and built into the set in one go (sorted once), not inserted
        // one by one in the directory's hash order.
        let mut names = Vec::new();
        let mut foreign = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(DirListing::default()),
            Err(e) => return Err(Error::io_op(&dir, "scandir", e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(&dir, "scandir", e))?;
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            // A name that is not UTF-8 is left out (no report could name it).
            if let Ok(name) = entry.file_name().into_string() {
                if is_entity_file_name(&name) {
                    names.push(name);
                } else if is_foreign_file_name(&name) {
                    foreign.push(namespace.dir().join(name));
                }
            }
        }
        names.sort_unstable();
        foreign.sort_unstable();
        Ok(DirListing {
            entities: names.into_iter().collect(),
            foreign,
        })
    }

    /// The clock's time in UTC, as entity files and indexes write it.
    pub(super) fn utc_now(&self) -> String {
        self.handle
            .clock
            .now()
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }
}

/// The file names of unreadable entity files.
fn unreadable_names(unreadable: &[Warning]) -> HashSet<&str> {
    unreadable
        .iter()
        .filter_map(|w| w.path.file_name().and_then(|n| n.to_str()))
        .collect()
}

fn file_name(entry: &Entry) -> &str {
    entry
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
}

/// The row an entry gets (`summary` kept from an old row when given).
pub(super) fn row_of(entry: &Entry, file: &str, summary: Option<String>) -> IndexRow {
    IndexRow {
        entity: entry.entity_name.clone(),
        category: entry.category,
        summary: summary.unwrap_or_else(|| index_summary(&entry.summary)),
        tags: entry.tags.clone(),
        status: entry.status,
        file: file.to_string(),
        line: 0,
    }
}

/// [`row_of`] an entry read without an old summary (its summary derived from its body),
/// taking the entry's name, tags and summary: a derived summary is its own summary
/// (`summary_of` is idempotent, a proptest in `summary.rs` checks it), so it is not
/// derived a second time.
pub(super) fn row_from(entry: Entry) -> IndexRow {
    debug_assert_eq!(entry.summary, index_summary(&entry.summary));
    let file = file_name(&entry).to_string();
    IndexRow {
        summary: entry.summary,
        entity: entry.entity_name,
        category: entry.category,
        tags: entry.tags,
        status: entry.status,
        file,
        line: 0,
    }
}

/// The row of an entity read as fields, from the file `file`: [`row_from`] of the
/// fields' entry (no old summary: the body's), without making the entry's texts.
pub(super) fn row_of_fields(fields: EntryFields<'_>, file: String) -> IndexRow {
    IndexRow {
        summary: super::summary::summary_of(fields.body),
        entity: fields.entity_name,
        category: fields.category,
        tags: fields.tags,
        status: fields.status,
        file,
        line: 0,
    }
}

/// A summary as an index cell holds it: one line, at most the limit.
fn index_summary(summary: &str) -> String {
    super::summary::summary_of(summary)
}

/// Whether a row says what its file says (the summary is the index's own).
fn row_agrees(row: &IndexRow, entry: &Entry, file: &str) -> bool {
    row.category == entry.category
        && row.status == entry.status
        && row.tags == entry.tags
        && row.file == file
}

/// Each entity's first row (what a search from the top finds), by name.
fn first_by_entity(rows: &[IndexRow]) -> HashMap<&EntityName, &IndexRow> {
    let mut by_entity = HashMap::with_capacity(rows.len());
    for row in rows {
        by_entity.entry(&row.entity).or_insert(row);
    }
    by_entity
}

fn same_row(a: &IndexRow, b: &IndexRow) -> bool {
    a.entity == b.entity
        && a.category == b.category
        && a.summary == b.summary
        && a.tags == b.tags
        && a.status == b.status
        && a.file == b.file
}

fn sorted(mut rows: Vec<IndexRow>) -> Vec<IndexRow> {
    rows.sort_by(|a, b| a.entity.cmp(&b.entity));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context_memory::entity_file::EntityFile;
    use std::path::Path;

    /// The row heal builds by taking the entry's fields is the row built by copying them.
    #[test]
    fn a_row_taken_from_an_entry_is_the_row_copied_from_it() {
        for (tags, body) in [
            ("[auth, security]", "Auth uses JWT. Tokens last an hour."),
            ("'登入, 認證'", "認證使用 JWT 令牌。其餘照舊。"),
            ("\n  - a\n  - b", &*"long words without an end ".repeat(20)),
        ] {
            let text = format!(
                "---\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: {tags}\ncreated_at: 2026-04-03T10:00:00Z\n---\n\n{body}\n"
            );
            let file = EntityFile::parse(
                Path::new("decision-001-auth.md"),
                PathBuf::from("org/global/decision-001-auth.md"),
                text,
                &Namespace::org_global(),
                None,
            )
            .unwrap();
            let copied = row_of(&file.entry, file_name(&file.entry), None);
            assert_eq!(copied.file, "decision-001-auth.md");
            assert_eq!(row_from(file.entry), copied);
        }
    }
}
