//! Changing entries: `update` (the seed's write protocol step 7: the file and its row),
//! `promote` (experimental → accepted), `supersede` and `promote_to` (a new entry with
//! `supersedes: [old]`, the old one marked superseded with `updated_at`) — every change to
//! a file rewrites only the keys it changes, and file and rows change as one step.

use serde_yaml::Value;

use super::entity::Entry;
use super::entity_file::EntityFile;
use super::entry::{NewEntry, clean_tags};
use super::heal::row_of;
use super::index_file::IndexFile;
use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::Namespace;
use super::schema::EntryStatus;
use crate::durable::{MemoryLock, Transaction};
use crate::error::{Error, Result};
use crate::hygiene::refuse_secrets;
use crate::markdown::{Edit, apply_edits};

/// Fields an update changes; `None` leaves a field as it is. `updated_at` is always set
/// to the clock's time.
///
/// ```
/// use memory_core::context_memory::{EntryPatch, EntryStatus};
/// let patch = EntryPatch::new().status(EntryStatus::Deprecated).rationale("Replaced by SSO");
/// assert!(patch.tags.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct EntryPatch {
    /// A new status.
    pub status: Option<EntryStatus>,
    /// New tags (at least two).
    pub tags: Option<Vec<String>>,
    /// A new index summary (≤ 100 characters).
    pub summary: Option<String>,
    /// A new body.
    pub body: Option<String>,
    /// A new rationale.
    pub rationale: Option<String>,
    /// A new confidence (0 to 1).
    pub confidence: Option<f64>,
    /// A new source path.
    pub source_path: Option<String>,
}

impl EntryPatch {
    /// A patch that changes nothing but `updated_at`.
    pub fn new() -> Self {
        EntryPatch::default()
    }
    /// Sets the status.
    pub fn status(mut self, status: EntryStatus) -> Self {
        self.status = Some(status);
        self
    }
    /// Sets the tags.
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = Some(clean_tags(tags));
        self
    }
    /// Sets the summary.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }
    /// Sets the body.
    pub fn body(mut self, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self
    }
    /// Sets the rationale.
    pub fn rationale(mut self, rationale: impl Into<String>) -> Self {
        self.rationale = Some(rationale.into());
        self
    }
    /// Sets the confidence.
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }
    /// Sets the source path.
    pub fn source_path(mut self, source_path: impl Into<String>) -> Self {
        self.source_path = Some(source_path.into());
        self
    }
}

/// What a supersession wrote: the new entry, the old one, and — as every outcome that
/// writes a new entry ([`WriteOutcome`](super::WriteOutcome)) — the new entry's
/// namespace size, whether it is now over the split threshold, and the body check.
///
/// ```
/// # use memory_core::context_memory::Superseded;
/// fn names(s: &Superseded) -> (&str, &str) { (s.new.entity_name.as_str(), s.old.entity_name.as_str()) }
/// fn crowded(s: &Superseded) -> bool { s.over_threshold }
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Superseded {
    /// The new entry (its `supersedes` names the old one).
    pub new: Entry,
    /// The old entry, now `superseded`.
    pub old: Entry,
    /// How many entries the new entry's namespace index lists after the step.
    pub namespace_entries: usize,
    /// Whether the new entry's namespace now has more than
    /// [`SPLIT_THRESHOLD`](super::SPLIT_THRESHOLD) entries (the seed: split it by domain).
    pub over_threshold: bool,
    /// What the body check flagged in the new entry's body (written, worth a look).
    pub body: crate::hygiene::BodyFlags,
}

/// A checked change of one entity file and its index row.
struct PreparedUpdate {
    path: std::path::PathBuf,
    text: String,
    /// The entity file as it was read: what the commit must still find there.
    read: String,
    entry: Entry,
    index: IndexFile,
}

impl PreparedUpdate {
    /// Stages the entity file's new text against what was read of it.
    fn stage_file(&self, tx: &mut Transaction<'_>) {
        tx.write_over(
            self.path.clone(),
            Some(self.read.clone().into_bytes()),
            self.text.clone().into_bytes(),
        );
    }

    /// Stages the entity file and its index, each against what was read of it.
    fn stage(&self, tx: &mut Transaction<'_>) {
        self.stage_file(tx);
        self.index.stage(tx);
    }
}

impl ContextMemory {
    /// Changes an entry's fields in its file (only the keys that change, plus
    /// `updated_at`; comments, unknown keys and quoting stay) and its index row, as one
    /// step under the lock.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, EntryPatch, EntryStatus, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let name = memory.write(NewEntry::new("org.global", Category::Risk, ["ops", "pager"], "The rota is thin.").unwrap()).unwrap().entry.entity_name;
    /// let entry = memory.update(name.as_str(), EntryPatch::new().status(EntryStatus::Deprecated)).unwrap();
    /// assert_eq!(entry.status, EntryStatus::Deprecated);
    /// ```
    pub fn update(&self, entity_name: &str, patch: EntryPatch) -> Result<Entry> {
        let name = EntityName::parse(entity_name)?;
        check_patch(&patch)?;
        let lock = self.handle.lock()?;
        let index = self.settled_index(name.namespace(), &lock)?;
        let prepared = self.prepare_update(&name, &patch, index)?;
        let mut tx = Transaction::new(&lock);
        prepared.stage(&mut tx);
        tx.commit()?;
        Ok(prepared.entry)
    }

    /// The seed's promotion: an `experimental` entry becomes `accepted`, in its file and
    /// its row. An accepted entry stays as it is; a deprecated or superseded one is not
    /// promoted (`Conflict`).
    pub fn promote(&self, entity_name: &str) -> Result<Entry> {
        let entry = self.get(entity_name)?;
        match entry.status {
            EntryStatus::Accepted => Ok(entry),
            EntryStatus::Experimental => {
                self.update(entity_name, EntryPatch::new().status(EntryStatus::Accepted))
            }
            other => Err(Error::EntityHistory {
                name: entity_name.to_string(),
                path: self.root().join(&entry.file),
                message: format!("is {other}; only an experimental entry is promoted"),
            }),
        }
    }

    /// The seed's supersession: writes `new` with `supersedes: [old]` and marks `old`
    /// `superseded` (with `updated_at`) in its file and row — all files and indexes as one
    /// step. The duplicate check does not count `old` against `new`.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, EntryStatus, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let old = memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses cookies.").unwrap()).unwrap().entry.entity_name;
    /// let done = memory.supersede(old.as_str(), NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
    /// assert_eq!(done.new.supersedes, vec![old.clone()]);
    /// assert_eq!(memory.get(old.as_str()).unwrap().status, EntryStatus::Superseded);
    /// ```
    pub fn supersede(&self, old: &str, new: NewEntry) -> Result<Superseded> {
        let old = EntityName::parse(old)?;
        // The duplicate check leaves out the entry being replaced (about the same subject
        // by nature) and still refuses a copy of any other.
        let new = new.supersedes(old.clone());
        new.validate()?;
        let body = super::write::screen(&new)?;
        let lock = self.handle.lock()?;
        self.supersede_locked(&lock, &old, &new, body)
    }

    /// Namespace promotion (project → org): a new entry in `target` made from `source`
    /// (same category, tags, body, rationale, confidence, source path, diagram, links),
    /// with `supersedes: [source]`; `source` is marked superseded.
    pub fn promote_to(&self, source: &str, target: &str) -> Result<Superseded> {
        let from = self.get(source)?;
        let target = Namespace::parse(target)?;
        if target == from.namespace {
            return Err(Error::invalid(
                "namespace",
                target.as_str(),
                "is the entry's own namespace; use promote to change its status",
            ));
        }
        let mut new = NewEntry::new(
            target.as_str(),
            from.category,
            from.tags.clone(),
            from.body.clone(),
        )?;
        new.summary = Some(from.summary.clone());
        new.rationale = from.rationale.clone();
        new.confidence = from.confidence;
        new.source_path = from.source_path.clone();
        new.diagram = from.diagram.clone();
        new.related_entities = from.related_entities.clone();
        new.status = EntryStatus::Accepted;
        self.supersede(source, new)
    }

    pub(super) fn supersede_locked(
        &self,
        lock: &MemoryLock,
        old: &EntityName,
        new: &NewEntry,
        body: crate::hygiene::BodyFlags,
    ) -> Result<Superseded> {
        let (written, mut olds) = self.supersede_all_locked(lock, new)?;
        let old_entry = olds
            .iter()
            .position(|e| &e.entity_name == old)
            .map(|i| olds.swap_remove(i))
            .ok_or_else(|| {
                Error::verify(self.root(), format!("{old} was not marked superseded"))
            })?;
        let outcome = written.outcome(body);
        Ok(Superseded {
            new: outcome.entry,
            old: old_entry,
            namespace_entries: outcome.namespace_entries,
            over_threshold: outcome.over_threshold,
            body: outcome.body,
        })
    }

    /// Writes `new` and marks every entry of its `supersedes` superseded, every file and
    /// index as one step under `lock`. An entry already superseded is refused
    /// ([`Error::EntityHistory`]): the entry that replaced it is the one to supersede.
    pub(super) fn supersede_all_locked(
        &self,
        lock: &MemoryLock,
        new: &NewEntry,
    ) -> Result<(super::write::PreparedWrite, Vec<Entry>)> {
        let new_index = self.settled_index(&new.namespace, lock)?;
        let mut written = self.prepare_write(new, new_index)?;
        // Each namespace's index as the step leaves it, changes accumulated.
        let mut indexes: std::collections::BTreeMap<Namespace, IndexFile> =
            std::collections::BTreeMap::new();
        indexes.insert(new.namespace.clone(), written.index.clone());
        let mut marked = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for old in &new.supersedes {
            if !seen.insert(old.clone()) {
                continue;
            }
            let index = match indexes.remove(old.namespace()) {
                Some(index) => index,
                None => self.settled_index(old.namespace(), lock)?,
            };
            self.refuse_superseded(old, &index)?;
            let update = self.prepare_update(
                old,
                &EntryPatch::new().status(EntryStatus::Superseded),
                index,
            )?;
            indexes.insert(old.namespace().clone(), update.index.clone());
            marked.push(update);
        }
        let mut tx = Transaction::new(lock);
        tx.write_over(
            written.path.clone(),
            None,
            written.text.clone().into_bytes(),
        );
        for update in &marked {
            update.stage_file(&mut tx);
        }
        // Each index once, with every change of the step (and against what was read).
        for index in indexes.values() {
            index.stage(&mut tx);
        }
        tx.commit()?;
        if let Some(index) = indexes.remove(&new.namespace) {
            written.index = index;
        }
        Ok((written, marked.into_iter().map(|u| u.entry).collect()))
    }

    /// `Conflict` when `old` is superseded already: superseding it again would fork its
    /// history and overwrite the `updated_at` that records when it was superseded.
    fn refuse_superseded(&self, old: &EntityName, index: &IndexFile) -> Result<()> {
        match index.rows.iter().find(|r| &r.entity == old) {
            Some(row) if row.status == EntryStatus::Superseded => Err(Error::EntityHistory {
                name: old.to_string(),
                path: self.root().join(old.namespace().dir()).join(&row.file),
                message: "is superseded already; supersede the entry that replaced it".into(),
            }),
            _ => Ok(()),
        }
    }

    /// The new text of `name`'s file and of `index` after `patch`, both checked.
    fn prepare_update(
        &self,
        name: &EntityName,
        patch: &EntryPatch,
        index: IndexFile,
    ) -> Result<PreparedUpdate> {
        let namespace = name.namespace();
        let position = index
            .rows
            .iter()
            .position(|r| &r.entity == name)
            .ok_or_else(|| Error::EntityNotFound {
                name: name.to_string(),
                path: index.path.clone(),
                moved_to: None,
            })?;
        let row = index.rows[position].clone();
        let path = self.file_in(namespace, &row.file)?;
        let rel = namespace.dir().join(&row.file);
        let file = EntityFile::load(&path, rel.clone(), namespace, Some(row.summary.clone()))?;
        let now = self.utc_now();
        let at = |issue: crate::markdown::ParseIssue| issue.at(&path);
        let keys = &file.keys;
        let text = &file.text;
        let mut edits: Vec<Edit> = Vec::new();
        if let Some(status) = patch.status {
            edits.push(
                keys.set(text, "status", &Value::from(status.as_str()))
                    .map_err(at)?,
            );
        }
        if let Some(tags) = &patch.tags {
            let list = Value::Sequence(tags.iter().map(|t| Value::from(t.as_str())).collect());
            edits.push(keys.set(text, "tags", &list).map_err(at)?);
        }
        if let Some(r) = &patch.rationale {
            edits.push(
                keys.set_after(text, "rationale", &Value::from(r.trim()), "created_at")
                    .map_err(at)?,
            );
        }
        if let Some(c) = patch.confidence {
            edits.push(
                keys.set_after(text, "confidence", &Value::from(c), "supersedes")
                    .map_err(at)?,
            );
        }
        if let Some(s) = &patch.source_path {
            edits.push(
                keys.set_after(text, "source_path", &Value::from(s.trim()), "confidence")
                    .map_err(at)?,
            );
        }
        edits.push(
            keys.set_after(
                text,
                "updated_at",
                &Value::from(now.as_str()),
                "source_path",
            )
            .map_err(at)?,
        );
        if let Some(body) = &patch.body {
            let start = keys.frontmatter.body_start;
            let ending = keys.frontmatter.line_ending;
            let le = ending.as_str();
            edits.push(Edit {
                range: start..text.len(),
                replacement: format!("{le}{}{le}", super::entity_file::body_text(body, ending)),
            });
        }
        let new_text = apply_edits(text, edits);
        let summary = patch.summary.clone().unwrap_or(row.summary.clone());
        let updated = EntityFile::parse(
            &path,
            rel,
            new_text.clone(),
            namespace,
            Some(summary.clone()),
        )
        .map_err(|e| Error::unreadable_result(&path, e))?;
        let new_row = row_of(&updated.entry, &row.file, Some(summary));
        let new_index =
            index.prepare(vec![index.replace(position, &new_row), index.touch(&now)])?;
        Ok(PreparedUpdate {
            path,
            text: new_text,
            read: file.text,
            entry: updated.entry,
            index: new_index,
        })
    }
}

/// The rules a patch follows before any file is read: as for a new entry.
fn check_patch(patch: &EntryPatch) -> Result<()> {
    if let Some(tags) = &patch.tags
        && tags.len() < super::entry::MIN_TAGS
    {
        return Err(Error::invalid(
            "tags",
            &tags.join(", "),
            format!(
                "an entry needs at least {} different tags",
                super::entry::MIN_TAGS
            ),
        ));
    }
    if let Some(summary) = &patch.summary
        && (summary.trim().is_empty()
            || summary.chars().count() > super::index_file::MAX_SUMMARY_CHARS)
    {
        return Err(Error::invalid(
            "summary",
            summary,
            format!(
                "must be 1 to {} characters",
                super::index_file::MAX_SUMMARY_CHARS
            ),
        ));
    }
    if let Some(c) = patch.confidence
        && !(c.is_finite() && (0.0..=1.0).contains(&c))
    {
        return Err(Error::invalid(
            "confidence",
            &c.to_string(),
            "must be a number from 0 to 1",
        ));
    }
    if let Some(body) = &patch.body {
        crate::hygiene::screen_body("body", body)?;
        if body.trim().is_empty() {
            return Err(Error::invalid("body", "", "must not be empty"));
        }
    }
    for (field, value) in [
        ("summary", &patch.summary),
        ("rationale", &patch.rationale),
        ("source_path", &patch.source_path),
    ] {
        if let Some(v) = value {
            refuse_secrets(field, v)?;
            if v.contains(['\n', '\r']) {
                return Err(Error::invalid(field, v, "must be one line"));
            }
        }
    }
    for tag in patch.tags.iter().flatten() {
        refuse_secrets("tags", tag)?;
    }
    Ok(())
}
