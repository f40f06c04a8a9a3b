//! The frozen result classes. One macro, [`result_class!`], writes everything the
//! classes share — read-only attributes, `__repr__`, `__eq__`, `__hash__`, `to_dict()`
//! (plain builtins only, ready for `json.dumps`) and pickle/copy support — so each class
//! here is only its field list and its conversion from the core value.
//!
//! The classes hold plain values (not the core's `#[non_exhaustive]` structs), so that an
//! unpickled result is rebuilt from its fields: `__reduce__` gives
//! `memory_core._native._restore(class name, fields)`.

use std::path::PathBuf;

use memory_core::SessionId;

use crate::errors::to_py_err;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// A field value as plain builtins for `to_dict()`: results become dicts, paths `str`.
pub(crate) trait Plain {
    /// The plain form.
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
}

/// `Plain` for types that are already a builtin once converted (`str`, `bool`, `int`).
macro_rules! plain_as_builtin {
    ($($ty:ty),*) => {$(
        impl Plain for $ty {
            fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.into_bound_py_any(py)
            }
        }
    )*};
}

plain_as_builtin!(String, bool, usize);

impl Plain for PathBuf {
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.as_os_str().into_bound_py_any(py)
    }
}

impl<T: Plain> Plain for Option<T> {
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Some(value) => value.plain(py),
            None => Ok(py.None().into_bound(py)),
        }
    }
}

impl<T: Plain> Plain for Vec<T> {
    fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let items = self
            .iter()
            .map(|item| item.plain(py))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.into_any())
    }
}

/// A field type of a result class: what its pickled value must be, in plain words.
trait FieldType: for<'a, 'py> FromPyObject<'a, 'py> {
    /// `a str`, `a list of str`, …
    fn expected() -> String;
}

impl FieldType for String {
    fn expected() -> String {
        "a str".to_string()
    }
}

impl FieldType for bool {
    fn expected() -> String {
        "a bool".to_string()
    }
}

impl FieldType for usize {
    fn expected() -> String {
        "an int of at least 0".to_string()
    }
}

impl FieldType for PathBuf {
    fn expected() -> String {
        "a path".to_string()
    }
}

impl<T: FieldType> FieldType for Option<T> {
    fn expected() -> String {
        format!("None or {}", T::expected())
    }
}

impl<T: FieldType> FieldType for Vec<T> {
    fn expected() -> String {
        format!(
            "a list of {}",
            T::expected()
                .trim_start_matches("a ")
                .trim_start_matches("an ")
        )
    }
}

/// An `InvalidInputError` for the `state` of `_restore`.
fn corrupt(py: Python<'_>, message: String) -> PyErr {
    to_py_err(py, memory_core::Error::argument("state", message))
}

/// One field of a pickled state, converted or refused naming class and field.
fn field<T: FieldType>(item: Option<Bound<'_, PyAny>>, class: &str, name: &str) -> PyResult<T> {
    // `from_state` checked the length, so every field has its item.
    let Some(item) = item else {
        return Err(PyValueError::new_err(format!("{class}: no pickled {name}")));
    };
    let py = item.py();
    item.extract::<T>().map_err(|_| {
        corrupt(
            py,
            format!(
                "the field {name} of a pickled {class} must be {}, got {}",
                T::expected(),
                crate::args::described(&item)
            ),
        )
    })
}

/// Refuses `value` unless it is one of `allowed`.
fn one_of(value: &str, allowed: &[&str], what: &str) -> Result<(), String> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "has the {what} {value:?}, not one of {}",
            allowed.join(", ")
        ))
    }
}

/// Declares one result class: the struct (its fields become read-only attributes) and
/// its shared methods. Nothing derived is stored: what a method computes from the
/// fields (`SessionRow.is_meaningful()`) is computed by the core on each call, so a
/// value rebuilt from its fields cannot disagree with it.
macro_rules! result_class {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)?
        }
        $( check($this:ident) $check:block )?
        $( methods { $($methods:tt)* } )?
    ) => {
        $(#[$meta])*
        #[pyclass(frozen, eq, hash, from_py_object, module = "memory_core")]
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name {
            $( $(#[$fmeta])* #[pyo3(get)] pub(crate) $field: $ty, )*
        }

        impl FieldType for $name {
            fn expected() -> String {
                concat!("a ", stringify!($name)).to_string()
            }
        }

        impl Plain for $name {
            fn plain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                let dict = PyDict::new(py);
                $( dict.set_item(stringify!($field), self.$field.plain(py)?)?; )*
                Ok(dict.into_any())
            }
        }

        impl $name {
            /// The attribute names, in order.
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Rebuilds the value from the tuple `__reduce__` gave, refusing a state that
            /// `__reduce__` cannot have written (a corrupt or hand-made pickle) with an
            /// `InvalidInputError` in plain words.
            fn from_state(state: &Bound<'_, PyTuple>) -> PyResult<Self> {
                const NAMES: &[&str] = &[$(stringify!($field),)*];
                let py = state.py();
                if state.len() != NAMES.len() {
                    return Err(corrupt(py, format!(
                        "a pickled {} holds {} fields, got {}",
                        stringify!($name), NAMES.len(), state.len()
                    )));
                }
                let mut items = state.iter();
                let value = $name {
                    $( $field: field::<$ty>(items.next(), stringify!($name), stringify!($field))?, )*
                };
                value.check().map_err(|message| corrupt(py, format!(
                    "a pickled {} {message}", stringify!($name)
                )))?;
                Ok(value)
            }

            /// What a valid value must hold beyond its field types, as the rest of "a
            /// pickled <class> …" when it does not.
            fn check(&self) -> Result<(), String> {
                $( let $this = self; $check )?
                Ok(())
            }

            fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, [
                    $( self.$field.clone().into_bound_py_any(py)?, )*
                ])
            }
        }

        #[pymethods]
        impl $name {
            /// The fields as a dict of plain builtins (nested results as dicts, paths as
            /// `str`), ready for `json.dumps`.
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.plain(py)
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                let parts = Self::FIELDS
                    .iter()
                    .map(|f| Ok(format!("{f}={}", slf.getattr(*f)?.repr()?)))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(format!("{}({})", stringify!($name), parts.join(", ")))
            }

            fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                let restore = py.import("memory_core._native")?.getattr("_restore")?;
                PyTuple::new(py, [
                    restore,
                    PyTuple::new(py, [
                        stringify!($name).into_bound_py_any(py)?,
                        self.state(py)?.into_any(),
                    ])?.into_any(),
                ])
            }

            $( $($methods)* )?
        }
    };
}

/// Rebuilds a pickled result (what each class's `__reduce__` names). A state that is
/// not what `__reduce__` writes is an `InvalidInputError` in plain words.
#[pyfunction]
#[pyo3(signature = (cls, state, /))]
pub(crate) fn _restore<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyAny>,
    state: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let class = crate::args::text(cls, "cls")?;
    let state = state.cast::<PyTuple>().map_err(|_| {
        corrupt(
            py,
            format!(
                "a pickled result holds a tuple of fields, got {}",
                crate::args::described(state)
            ),
        )
    })?;
    let unknown = |other: &str| {
        to_py_err(
            py,
            memory_core::Error::argument(
                "cls",
                format!("no memory_core result class is named {other:?}"),
            ),
        )
    };
    /// The class named `class` rebuilt from `state`, one arm per result class.
    macro_rules! restore {
        ($($class:ident),*) => {
            match class.as_str() {
                $( stringify!($class) => $class::from_state(state)?.into_bound_py_any(py), )*
                other => Err(unknown(other)),
            }
        };
    }
    restore!(
        SessionRow,
        SnapshotItem,
        OtherSection,
        Snapshot,
        OrganizeReport,
        WarningRecord,
        SessionStart,
        ArchiveOutcome,
        ContinueOutcome,
        ReleaseOutcome
    )
}

/// Every status, for the check's message; the names are the core's (`Status::as_str`).
const STATUSES: [memory_core::Status; 3] = [
    memory_core::Status::Idle,
    memory_core::Status::Active,
    memory_core::Status::Stale,
];

/// Every marking, for the check; the names are the core's (`Mark::as_str`).
const MARKS: [memory_core::Mark; 3] = [
    memory_core::Mark::Superseded,
    memory_core::Mark::Resolved,
    memory_core::Mark::Done,
];

/// A marking's Python name: the core's marking without its brackets (`superseded`,
/// `resolved` or `done`).
fn mark_name(mark: memory_core::Mark) -> &'static str {
    mark.as_str().trim_start_matches('[').trim_end_matches(']')
}

fn ids(ids: Vec<SessionId>) -> Vec<String> {
    ids.into_iter().map(|id| id.to_string()).collect()
}

result_class! {
    /// One row of ``index.md``.
    SessionRow {
        /// The Memory Session ID.
        session_id: String,
        /// The stable agent name.
        agent_name: String,
        /// What the session is about (``未設定`` until known).
        topic: String,
        /// One or two sentences other agents read to judge relevance.
        summary: String,
        /// The keywords.
        keywords: Vec<String>,
        /// ``idle``, ``active`` or ``stale``.
        status: String,
        /// The sessions continuing from this one (empty for ``-``).
        referenced_by: Vec<String>,
        /// ``Started At`` exactly as written in the index.
        started_at: String,
        /// ``Updated At`` exactly as written in the index.
        updated_at: String,
    }
    check(row) {
        // The core's parse, held to the exact lowercase name a row's `status` gives.
        let known = row
            .status
            .parse::<memory_core::Status>()
            .is_ok_and(|status| status.as_str() == row.status);
        if !known {
            let names = STATUSES.map(memory_core::Status::as_str);
            return Err(format!(
                "has the status {:?}, not one of {}",
                row.status,
                names.join(", ")
            ));
        }
        for id in std::iter::once(&row.session_id).chain(&row.referenced_by) {
            if SessionId::parse(id).is_err() {
                return Err(format!("has {id:?}, which is not a Memory Session ID"));
            }
        }
    }
    methods {
        /// Whether the summary says more than a registration placeholder.
        fn has_meaningful_summary(&self) -> bool {
            // The core's rule over the values the row holds (not a stored copy of it, so a
            // row built or unpickled here agrees with the core).
            memory_core::agent_memory::summary_is_meaningful(&self.summary)
        }

        /// Whether topic, summary or keywords carry real content.
        fn is_meaningful(&self) -> bool {
            memory_core::agent_memory::content_is_meaningful(&self.topic, &self.summary, &self.keywords)
        }
    }
}

impl From<memory_core::SessionRow> for SessionRow {
    fn from(row: memory_core::SessionRow) -> Self {
        SessionRow {
            session_id: row.session_id.to_string(),
            agent_name: row.agent_name,
            topic: row.topic,
            summary: row.summary,
            keywords: row.keywords,
            status: row.status.as_str().to_string(),
            referenced_by: ids(row.referenced_by),
            started_at: row.started_at.as_str().to_string(),
            updated_at: row.updated_at.as_str().to_string(),
        }
    }
}

result_class! {
    /// One entry of a list section of a snapshot.
    SnapshotItem {
        /// The text without bullet and marking.
        text: String,
        /// ``superseded``, ``resolved`` or ``done`` for an outdated item, None for a current one.
        mark: Option<String>,
    }
    check(item) {
        if let Some(mark) = &item.mark {
            one_of(mark, &MARKS.map(mark_name), "mark")?;
        }
    }
}

impl From<memory_core::SnapshotItem> for SnapshotItem {
    fn from(item: memory_core::SnapshotItem) -> Self {
        SnapshotItem {
            text: item.text,
            mark: item.mark.map(|m| mark_name(m).to_string()),
        }
    }
}

result_class! {
    /// A snapshot section the template does not define, kept verbatim.
    OtherSection {
        /// The heading text after ``## ``.
        heading: String,
        /// The body, trimmed of blank lines.
        body: String,
    }
}

result_class! {
    /// The typed content of ``sessions/<id>.md``. Metadata fields are the text as written.
    Snapshot {
        /// Metadata ``Session ID``.
        session_id: String,
        /// Metadata ``Agent Name``.
        agent_name: String,
        /// Metadata ``Topic``.
        topic: String,
        /// Metadata ``Status``, as written.
        status: String,
        /// Metadata ``Started At``, as written.
        started_at: String,
        /// Metadata ``Updated At``, as written.
        updated_at: String,
        /// ``## Current Context`` ("" when it holds only the template prompt or ``None``).
        current_context: String,
        /// ``## Decisions``.
        decisions: Vec<SnapshotItem>,
        /// ``## Files / Artifacts``.
        files: Vec<SnapshotItem>,
        /// ``## Open Questions``.
        open_questions: Vec<SnapshotItem>,
        /// ``## Next Actions``.
        next_actions: Vec<SnapshotItem>,
        /// ``## Continues From``: the source session ids.
        continues_from: Vec<String>,
        /// ``## Superseded / Resolved``.
        superseded_resolved: Vec<SnapshotItem>,
        /// Sections the template does not define, kept verbatim.
        other_sections: Vec<OtherSection>,
    }
}

fn items(items: Vec<memory_core::SnapshotItem>) -> Vec<SnapshotItem> {
    items.into_iter().map(SnapshotItem::from).collect()
}

impl From<memory_core::Snapshot> for Snapshot {
    fn from(s: memory_core::Snapshot) -> Self {
        Snapshot {
            session_id: s.session_id,
            agent_name: s.agent_name,
            topic: s.topic,
            status: s.status,
            started_at: s.started_at,
            updated_at: s.updated_at,
            current_context: s.current_context,
            decisions: items(s.decisions),
            files: items(s.files),
            open_questions: items(s.open_questions),
            next_actions: items(s.next_actions),
            continues_from: ids(s.continues_from),
            superseded_resolved: items(s.superseded_resolved),
            other_sections: s
                .other_sections
                .into_iter()
                .map(|o| OtherSection {
                    heading: o.heading,
                    body: o.body,
                })
                .collect(),
        }
    }
}

result_class! {
    /// A problem in a file that did not stop the call: ``str(record)`` is
    /// ``path:line: message``.
    WarningRecord {
        /// The file concerned.
        path: PathBuf,
        /// The 1-based line (0 when it concerns the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    }
    methods {
        /// ``path:line: message``.
        fn __str__(&self) -> String {
            self.to_string()
        }
    }
}

impl std::fmt::Display for WarningRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

impl From<memory_core::Warning> for WarningRecord {
    fn from(w: memory_core::Warning) -> Self {
        WarningRecord {
            path: w.path,
            line: w.line,
            message: w.message,
        }
    }
}

/// The binding's records of core warnings, in order.
pub(crate) fn warnings(warnings: Vec<memory_core::Warning>) -> Vec<WarningRecord> {
    warnings.into_iter().map(WarningRecord::from).collect()
}

result_class! {
    /// What ``register_session_start_with_warnings()`` did: the new session, verified,
    /// and the rows of other sessions it could not read and left byte-identical.
    SessionStart {
        /// The new Memory Session ID.
        session_id: String,
        /// Rows of ``index.md`` that could not be read (bad status, timestamp, id or cell
        /// count, a duplicate id), each naming the file and line.
        warnings: Vec<WarningRecord>,
    }
}

impl From<memory_core::SessionStart> for SessionStart {
    fn from(s: memory_core::SessionStart) -> Self {
        SessionStart {
            session_id: s.session_id.to_string(),
            warnings: warnings(s.warnings),
        }
    }
}

result_class! {
    /// What ``organize()`` did (or, with ``dry_run``, would do).
    OrganizeReport {
        /// ``idle`` rows deleted from the index.
        deleted_idle: Vec<String>,
        /// ``active`` rows marked ``stale`` (their ``updated_at`` kept).
        marked_stale: Vec<String>,
        /// ``active`` rows kept as they are.
        kept_active: Vec<String>,
        /// Rows left untouched because another session references them.
        protected: Vec<String>,
        /// Temp files of memory-core writers that died mid-write, found anywhere under
        /// the root and removed (with ``dry_run``, they would be).
        removed_temp_files: Vec<PathBuf>,
        /// Snapshot files (``sessions/<id>.md``) whose session has no row in the index:
        /// reported, never deleted.
        orphan_snapshots: Vec<PathBuf>,
        /// Temp, swap and conflict files of other programs (editors, sync clients) under
        /// the root: reported, never deleted.
        leftover_files: Vec<PathBuf>,
        /// Snapshots of other sessions that could not be read (invalid UTF-8, a NUL
        /// byte...): reported, not fatal; the ``Continues From`` ids still legible in them
        /// protect their sources all the same.
        unreadable: Vec<WarningRecord>,
        /// Whether nothing was written.
        dry_run: bool,
    }
}

impl From<memory_core::OrganizeReport> for OrganizeReport {
    fn from(r: memory_core::OrganizeReport) -> Self {
        OrganizeReport {
            deleted_idle: ids(r.deleted_idle),
            marked_stale: ids(r.marked_stale),
            kept_active: ids(r.kept_active),
            protected: ids(r.protected),
            removed_temp_files: r.removed_temp_files,
            orphan_snapshots: r.orphan_snapshots,
            leftover_files: r.leftover_files,
            unreadable: warnings(r.unreadable),
            dry_run: r.dry_run,
        }
    }
}

result_class! {
    /// What ``archive()`` did: ``outcome == "archived"`` (snapshot moved to
    /// ``archive/<id>/session.md``, ``archive/<id>/index.md`` written) or ``"deleted"`` (an
    /// idle placeholder without snapshot; no archive, paths None). In both, ``warnings``
    /// lists the snapshots of other sessions that could not be read and did not stop it.
    ArchiveOutcome {
        /// ``archived`` or ``deleted``.
        outcome: String,
        /// The archived or deleted session.
        session_id: String,
        /// ``archive/<id>/index.md`` (None when deleted).
        archive_index: Option<PathBuf>,
        /// ``archive/<id>/session.md`` (None when deleted).
        session_file: Option<PathBuf>,
        /// Sources whose ``referenced_by`` no longer lists the archived session.
        released_from: Vec<String>,
        /// Snapshots of other sessions that could not be read (invalid UTF-8, a NUL
        /// byte...) and, as they cannot mention this session, were gone past; empty when
        /// every snapshot was read.
        warnings: Vec<WarningRecord>,
    }
    check(outcome) {
        one_of(&outcome.outcome, &["archived", "deleted"], "outcome")?;
    }
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
                warnings: unread,
            } => Ok(ArchiveOutcome {
                outcome: "archived".to_string(),
                session_id: session_id.to_string(),
                archive_index: Some(archive_index),
                session_file: Some(session_file),
                released_from: ids(released_from),
                warnings: warnings(unread),
            }),
            memory_core::ArchiveOutcome::Deleted {
                session_id,
                warnings: unread,
            } => Ok(ArchiveOutcome {
                outcome: "deleted".to_string(),
                session_id: session_id.to_string(),
                archive_index: None,
                session_file: None,
                released_from: Vec::new(),
                warnings: warnings(unread),
            }),
            // The core enum is `#[non_exhaustive]`; the binding is built from the same
            // workspace, so this only happens if a variant is added without mapping it.
            other => Err(PyNotImplementedError::new_err(format!(
                "this build of memory_core does not know the archive outcome {other:?}"
            ))),
        }
    }
}

result_class! {
    /// What ``continue_from()`` wrote: both rows after the verified write.
    ContinueOutcome {
        /// The continuing session (now ``active``).
        current: SessionRow,
        /// The source session (only its ``referenced_by`` changed).
        source: SessionRow,
    }
}

impl From<memory_core::ContinueOutcome> for ContinueOutcome {
    fn from(o: memory_core::ContinueOutcome) -> Self {
        ContinueOutcome {
            current: o.current.into(),
            source: o.source.into(),
        }
    }
}

result_class! {
    /// What ``release()`` changed.
    ReleaseOutcome {
        /// The referencing session.
        current: String,
        /// The source session.
        source: String,
        /// Whether the source row's ``referenced_by`` listed ``current`` and was updated.
        referenced_by_updated: bool,
        /// Whether the current snapshot's ``Continues From`` listed ``source`` and was updated.
        continues_from_updated: bool,
    }
}

impl From<memory_core::ReleaseOutcome> for ReleaseOutcome {
    fn from(o: memory_core::ReleaseOutcome) -> Self {
        ReleaseOutcome {
            current: o.current.to_string(),
            source: o.source.to_string(),
            referenced_by_updated: o.referenced_by_updated,
            continues_from_updated: o.continues_from_updated,
        }
    }
}
