//! The frozen result classes: each wraps the core value it was converted from and exposes
//! its fields as read-only attributes, with `__repr__`, `__eq__`, `__hash__` and
//! `to_dict()` (plain builtins only, ready for `json.dumps`).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use memory_core::{Mark, SessionId};
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `Name(field=repr(value), …)` from the object's own attributes.
fn repr_of(object: &Bound<'_, PyAny>, name: &str, fields: &[&str]) -> PyResult<String> {
    let parts = fields
        .iter()
        .map(|field| Ok(format!("{field}={}", object.getattr(*field)?.repr()?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("{name}({})", parts.join(", ")))
}

fn ids(ids: &[SessionId]) -> Vec<String> {
    ids.iter().map(ToString::to_string).collect()
}

/// A marking's Python name: `superseded`, `resolved` or `done`.
fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::Superseded => "superseded",
        Mark::Resolved => "resolved",
        Mark::Done => "done",
    }
}

/// One row of `index.md`.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow(pub(crate) memory_core::SessionRow);

impl Hash for SessionRow {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.session_id.hash(state);
        self.0.updated_at.as_str().hash(state);
    }
}

#[pymethods]
impl SessionRow {
    /// The Memory Session ID.
    #[getter]
    fn session_id(&self) -> &str {
        self.0.session_id.as_str()
    }
    /// The stable agent name.
    #[getter]
    fn agent_name(&self) -> &str {
        &self.0.agent_name
    }
    /// What the session is about.
    #[getter]
    fn topic(&self) -> &str {
        &self.0.topic
    }
    /// The row's summary.
    #[getter]
    fn summary(&self) -> &str {
        &self.0.summary
    }
    /// The keywords.
    #[getter]
    fn keywords(&self) -> Vec<String> {
        self.0.keywords.clone()
    }
    /// `idle`, `active` or `stale`.
    #[getter]
    fn status(&self) -> &'static str {
        self.0.status.as_str()
    }
    /// The sessions continuing from this one.
    #[getter]
    fn referenced_by(&self) -> Vec<String> {
        ids(&self.0.referenced_by)
    }
    /// `Started At` exactly as written in the index.
    #[getter]
    fn started_at(&self) -> &str {
        self.0.started_at.as_str()
    }
    /// `Updated At` exactly as written in the index.
    #[getter]
    fn updated_at(&self) -> &str {
        self.0.updated_at.as_str()
    }
    /// Whether the summary says more than a registration placeholder.
    fn has_meaningful_summary(&self) -> bool {
        self.0.has_meaningful_summary()
    }
    /// Whether topic, summary or keywords carry real content.
    fn is_meaningful(&self) -> bool {
        self.0.is_meaningful()
    }
    /// The fields as a plain dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("session_id", self.session_id())?;
        dict.set_item("agent_name", self.agent_name())?;
        dict.set_item("topic", self.topic())?;
        dict.set_item("summary", self.summary())?;
        dict.set_item("keywords", self.keywords())?;
        dict.set_item("status", self.status())?;
        dict.set_item("referenced_by", self.referenced_by())?;
        dict.set_item("started_at", self.started_at())?;
        dict.set_item("updated_at", self.updated_at())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            "SessionRow",
            &[
                "session_id",
                "agent_name",
                "topic",
                "summary",
                "keywords",
                "status",
                "referenced_by",
                "started_at",
                "updated_at",
            ],
        )
    }
}

/// One entry of a list section of a snapshot.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotItem(pub(crate) memory_core::SnapshotItem);

impl Hash for SnapshotItem {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.text.hash(state);
        self.0.mark.hash(state);
    }
}

#[pymethods]
impl SnapshotItem {
    /// The text without bullet and marking.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }
    /// `superseded`, `resolved`, `done`, or None when the item is current.
    #[getter]
    fn mark(&self) -> Option<&'static str> {
        self.0.mark.map(mark_name)
    }
    /// The fields as a plain dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("text", self.text())?;
        dict.set_item("mark", self.mark())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "SnapshotItem", &["text", "mark"])
    }
}

/// A snapshot section the template does not define, kept verbatim.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherSection(pub(crate) memory_core::agent_memory::OtherSection);

impl Hash for OtherSection {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.heading.hash(state);
        self.0.body.hash(state);
    }
}

#[pymethods]
impl OtherSection {
    /// The heading text after `## `.
    #[getter]
    fn heading(&self) -> &str {
        &self.0.heading
    }
    /// The body, trimmed of blank lines.
    #[getter]
    fn body(&self) -> &str {
        &self.0.body
    }
    /// The fields as a plain dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("heading", self.heading())?;
        dict.set_item("body", self.body())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "OtherSection", &["heading", "body"])
    }
}

/// The typed content of `sessions/<id>.md`.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot(pub(crate) memory_core::Snapshot);

impl Hash for Snapshot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.session_id.hash(state);
        self.0.updated_at.hash(state);
        self.0.current_context.hash(state);
    }
}

fn items(items: &[memory_core::SnapshotItem]) -> Vec<SnapshotItem> {
    items.iter().cloned().map(SnapshotItem).collect()
}

fn item_dicts<'py>(
    py: Python<'py>,
    items: &[memory_core::SnapshotItem],
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    items
        .iter()
        .map(|i| SnapshotItem(i.clone()).to_dict(py))
        .collect()
}

const SNAPSHOT_FIELDS: [&str; 14] = [
    "session_id",
    "agent_name",
    "topic",
    "status",
    "started_at",
    "updated_at",
    "current_context",
    "decisions",
    "files",
    "open_questions",
    "next_actions",
    "continues_from",
    "superseded_resolved",
    "other_sections",
];

#[pymethods]
impl Snapshot {
    /// Metadata `Session ID`.
    #[getter]
    fn session_id(&self) -> &str {
        &self.0.session_id
    }
    /// Metadata `Agent Name`.
    #[getter]
    fn agent_name(&self) -> &str {
        &self.0.agent_name
    }
    /// Metadata `Topic`.
    #[getter]
    fn topic(&self) -> &str {
        &self.0.topic
    }
    /// Metadata `Status`, as written.
    #[getter]
    fn status(&self) -> &str {
        &self.0.status
    }
    /// Metadata `Started At`, as written.
    #[getter]
    fn started_at(&self) -> &str {
        &self.0.started_at
    }
    /// Metadata `Updated At`, as written.
    #[getter]
    fn updated_at(&self) -> &str {
        &self.0.updated_at
    }
    /// `## Current Context` (empty when it holds only a placeholder).
    #[getter]
    fn current_context(&self) -> &str {
        &self.0.current_context
    }
    /// `## Decisions`.
    #[getter]
    fn decisions(&self) -> Vec<SnapshotItem> {
        items(&self.0.decisions)
    }
    /// `## Files / Artifacts`.
    #[getter]
    fn files(&self) -> Vec<SnapshotItem> {
        items(&self.0.files)
    }
    /// `## Open Questions`.
    #[getter]
    fn open_questions(&self) -> Vec<SnapshotItem> {
        items(&self.0.open_questions)
    }
    /// `## Next Actions`.
    #[getter]
    fn next_actions(&self) -> Vec<SnapshotItem> {
        items(&self.0.next_actions)
    }
    /// `## Continues From`: source session ids.
    #[getter]
    fn continues_from(&self) -> Vec<String> {
        ids(&self.0.continues_from)
    }
    /// `## Superseded / Resolved`.
    #[getter]
    fn superseded_resolved(&self) -> Vec<SnapshotItem> {
        items(&self.0.superseded_resolved)
    }
    /// Sections the template does not define, kept verbatim.
    #[getter]
    fn other_sections(&self) -> Vec<OtherSection> {
        self.0
            .other_sections
            .iter()
            .cloned()
            .map(OtherSection)
            .collect()
    }
    /// The fields as a plain dict (items as dicts).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.0;
        let dict = PyDict::new(py);
        dict.set_item("session_id", &s.session_id)?;
        dict.set_item("agent_name", &s.agent_name)?;
        dict.set_item("topic", &s.topic)?;
        dict.set_item("status", &s.status)?;
        dict.set_item("started_at", &s.started_at)?;
        dict.set_item("updated_at", &s.updated_at)?;
        dict.set_item("current_context", &s.current_context)?;
        dict.set_item("decisions", item_dicts(py, &s.decisions)?)?;
        dict.set_item("files", item_dicts(py, &s.files)?)?;
        dict.set_item("open_questions", item_dicts(py, &s.open_questions)?)?;
        dict.set_item("next_actions", item_dicts(py, &s.next_actions)?)?;
        dict.set_item("continues_from", ids(&s.continues_from))?;
        dict.set_item(
            "superseded_resolved",
            item_dicts(py, &s.superseded_resolved)?,
        )?;
        let others = self
            .other_sections()
            .iter()
            .map(|o| o.to_dict(py))
            .collect::<PyResult<Vec<_>>>()?;
        dict.set_item("other_sections", others)?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "Snapshot", &SNAPSHOT_FIELDS)
    }
}

/// What `organize()` did (or, with `dry_run`, would do).
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrganizeReport(pub(crate) memory_core::OrganizeReport);

impl Hash for OrganizeReport {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let r = &self.0;
        (
            &r.deleted_idle,
            &r.marked_stale,
            &r.kept_active,
            &r.protected,
            r.dry_run,
        )
            .hash(state);
    }
}

#[pymethods]
impl OrganizeReport {
    /// `idle` rows deleted from the index.
    #[getter]
    fn deleted_idle(&self) -> Vec<String> {
        ids(&self.0.deleted_idle)
    }
    /// `active` rows marked `stale`.
    #[getter]
    fn marked_stale(&self) -> Vec<String> {
        ids(&self.0.marked_stale)
    }
    /// `active` rows kept as they are.
    #[getter]
    fn kept_active(&self) -> Vec<String> {
        ids(&self.0.kept_active)
    }
    /// Rows left untouched because another session references them.
    #[getter]
    fn protected(&self) -> Vec<String> {
        ids(&self.0.protected)
    }
    /// Whether nothing was written.
    #[getter]
    fn dry_run(&self) -> bool {
        self.0.dry_run
    }
    /// The fields as a plain dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("deleted_idle", self.deleted_idle())?;
        dict.set_item("marked_stale", self.marked_stale())?;
        dict.set_item("kept_active", self.kept_active())?;
        dict.set_item("protected", self.protected())?;
        dict.set_item("dry_run", self.dry_run())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            "OrganizeReport",
            &[
                "deleted_idle",
                "marked_stale",
                "kept_active",
                "protected",
                "dry_run",
            ],
        )
    }
}

/// What `archive()` did: `outcome` is `archived` (snapshot moved into `archive/<id>/`) or
/// `deleted` (an idle placeholder without snapshot; no archive made, paths None).
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArchiveOutcome {
    outcome: &'static str,
    session_id: SessionId,
    archive_index: Option<PathBuf>,
    session_file: Option<PathBuf>,
    released_from: Vec<SessionId>,
}

impl TryFrom<memory_core::ArchiveOutcome> for ArchiveOutcome {
    type Error = PyErr;

    fn try_from(outcome: memory_core::ArchiveOutcome) -> PyResult<Self> {
        match outcome {
            memory_core::ArchiveOutcome::Archived {
                session_id,
                archive_index,
                session_file,
                released_from,
            } => Ok(ArchiveOutcome {
                outcome: "archived",
                session_id,
                archive_index: Some(archive_index),
                session_file: Some(session_file),
                released_from,
            }),
            memory_core::ArchiveOutcome::Deleted { session_id } => Ok(ArchiveOutcome {
                outcome: "deleted",
                session_id,
                archive_index: None,
                session_file: None,
                released_from: Vec::new(),
            }),
            // The core enum is `#[non_exhaustive]`; the binding is built from the same
            // workspace, so this only happens if a variant is added without mapping it.
            other => Err(PyNotImplementedError::new_err(format!(
                "this build of memory_core does not know the archive outcome {other:?}"
            ))),
        }
    }
}

#[pymethods]
impl ArchiveOutcome {
    /// `archived` or `deleted`.
    #[getter]
    fn outcome(&self) -> &'static str {
        self.outcome
    }
    /// The archived or deleted session.
    #[getter]
    fn session_id(&self) -> &str {
        self.session_id.as_str()
    }
    /// `archive/<id>/index.md` (None when deleted).
    #[getter]
    fn archive_index(&self) -> Option<PathBuf> {
        self.archive_index.clone()
    }
    /// `archive/<id>/session.md` (None when deleted).
    #[getter]
    fn session_file(&self) -> Option<PathBuf> {
        self.session_file.clone()
    }
    /// Sources whose `Referenced By` no longer lists the archived session.
    #[getter]
    fn released_from(&self) -> Vec<String> {
        ids(&self.released_from)
    }
    /// The fields as a plain dict (paths as `str`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("outcome", self.outcome)?;
        dict.set_item("session_id", self.session_id())?;
        dict.set_item(
            "archive_index",
            self.archive_index.as_ref().map(|p| p.as_os_str()),
        )?;
        dict.set_item(
            "session_file",
            self.session_file.as_ref().map(|p| p.as_os_str()),
        )?;
        dict.set_item("released_from", self.released_from())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            "ArchiveOutcome",
            &[
                "outcome",
                "session_id",
                "archive_index",
                "session_file",
                "released_from",
            ],
        )
    }
}

/// What `continue_from()` wrote: both rows after the verified write.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContinueOutcome(pub(crate) memory_core::ContinueOutcome);

impl Hash for ContinueOutcome {
    fn hash<H: Hasher>(&self, state: &mut H) {
        SessionRow(self.0.current.clone()).hash(state);
        SessionRow(self.0.source.clone()).hash(state);
    }
}

#[pymethods]
impl ContinueOutcome {
    /// The continuing session's row (now `active`).
    #[getter]
    fn current(&self) -> SessionRow {
        SessionRow(self.0.current.clone())
    }
    /// The source session's row (only its `referenced_by` changed).
    #[getter]
    fn source(&self) -> SessionRow {
        SessionRow(self.0.source.clone())
    }
    /// The fields as a plain dict (rows as dicts).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("current", self.current().to_dict(py)?)?;
        dict.set_item("source", self.source().to_dict(py)?)?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "ContinueOutcome", &["current", "source"])
    }
}

/// What `release()` changed: which side of the link held it.
#[pyclass(frozen, eq, hash, module = "memory_core")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseOutcome(pub(crate) memory_core::ReleaseOutcome);

impl Hash for ReleaseOutcome {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let r = &self.0;
        (
            &r.current,
            &r.source,
            r.referenced_by_updated,
            r.continues_from_updated,
        )
            .hash(state);
    }
}

#[pymethods]
impl ReleaseOutcome {
    /// The referencing session.
    #[getter]
    fn current(&self) -> &str {
        self.0.current.as_str()
    }
    /// The source session.
    #[getter]
    fn source(&self) -> &str {
        self.0.source.as_str()
    }
    /// Whether the source row's `Referenced By` listed `current` and was updated.
    #[getter]
    fn referenced_by_updated(&self) -> bool {
        self.0.referenced_by_updated
    }
    /// Whether the current snapshot's `Continues From` listed `source` and was updated.
    #[getter]
    fn continues_from_updated(&self) -> bool {
        self.0.continues_from_updated
    }
    /// The fields as a plain dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("current", self.current())?;
        dict.set_item("source", self.source())?;
        dict.set_item("referenced_by_updated", self.referenced_by_updated())?;
        dict.set_item("continues_from_updated", self.continues_from_updated())?;
        Ok(dict)
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(
            slf.as_any(),
            "ReleaseOutcome",
            &[
                "current",
                "source",
                "referenced_by_updated",
                "continues_from_updated",
            ],
        )
    }
}
