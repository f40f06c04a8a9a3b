//! `memory_core.AgentMemory`: converts arguments, calls the core with the GIL released,
//! converts the result.

use std::path::PathBuf;
use std::time::Duration;

use memory_core::{ManualRegistration, OrganizeOptions, SessionUpdate, Status};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::{invalid, to_py_err};
use crate::results::{
    ArchiveOutcome, ContinueOutcome, OrganizeReport, ReleaseOutcome, SessionRow, Snapshot,
};

/// Runs `f` (a call into the core that may touch files or wait for the lock) with the
/// GIL released, and converts its error.
fn detached<T: Send>(
    py: Python<'_>,
    f: impl Send + FnOnce() -> memory_core::Result<T>,
) -> PyResult<T> {
    py.detach(f).map_err(|e| to_py_err(py, e))
}

fn rows(rows: Vec<memory_core::SessionRow>) -> Vec<SessionRow> {
    rows.into_iter().map(SessionRow).collect()
}

/// A memory root (the `memory/` directory) following the Agent Memory protocol.
#[pyclass(frozen, module = "memory_core")]
pub struct AgentMemory {
    inner: memory_core::AgentMemory,
}

#[pymethods]
impl AgentMemory {
    /// Opens the memory root `root`; nothing is created until the first write.
    /// `lock_timeout` is the longest wait for the cross-process lock, in seconds;
    /// `fixed_time` (an RFC 3339 string or an aware `datetime`) stops the clock at that
    /// time for every timestamp and id this handle writes.
    #[new]
    #[pyo3(signature = (root, *, lock_timeout = None, fixed_time = None))]
    fn new(
        py: Python<'_>,
        root: PathBuf,
        lock_timeout: Option<f64>,
        fixed_time: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut builder = memory_core::AgentMemory::builder(root);
        if let Some(seconds) = lock_timeout {
            let timeout = Duration::try_from_secs_f64(seconds)
                .map_err(|e| invalid(py, "lock timeout", seconds.to_string(), format!("{e}")))?;
            builder = builder.lock_timeout(timeout);
        }
        if let Some(time) = fixed_time {
            let text: String = match time.extract::<String>() {
                Ok(text) => text,
                Err(_) => time
                    .call_method0("isoformat")
                    .and_then(|iso| iso.extract())
                    .map_err(|_| {
                        PyTypeError::new_err("fixed_time must be a str or a datetime.datetime")
                    })?,
            };
            builder = builder.fixed_time(&text).map_err(|e| to_py_err(py, e))?;
        }
        let inner = detached(py, || builder.open())?;
        Ok(AgentMemory { inner })
    }

    /// The memory root directory.
    #[getter]
    fn root(&self) -> PathBuf {
        self.inner.root().to_path_buf()
    }

    /// The index file, `<root>/index.md`.
    #[getter]
    fn index_path(&self) -> PathBuf {
        self.inner.index_path()
    }

    /// The snapshot file of `session_id`, `<root>/sessions/<id>.md` (it may not exist).
    fn session_path(&self, py: Python<'_>, session_id: &str) -> PyResult<PathBuf> {
        detached(py, || self.inner.session_path(session_id))
    }

    /// The archive directory of `session_id`, `<root>/archive/<id>/` (it may not exist).
    fn archive_dir(&self, py: Python<'_>, session_id: &str) -> PyResult<PathBuf> {
        detached(py, || self.inner.archive_dir(session_id))
    }

    /// SessionStart registration: appends an `idle` row and returns the new id.
    fn register_session_start(&self, py: Python<'_>, agent: &str) -> PyResult<String> {
        detached(py, || self.inner.register_session_start(agent)).map(|id| id.to_string())
    }

    /// Manual registration: writes the snapshot, appends an `active` row, and records the
    /// continuations; returns the new id.
    #[pyo3(
        signature = (agent_name, topic, summary, *, keywords = None, context = None,
                     decisions = Vec::new(), files = Vec::new(), open_questions = Vec::new(),
                     next_actions = Vec::new(), continues_from = Vec::new()),
        text_signature = "($self, agent_name, topic, summary, *, keywords=None, context=None, \
                          decisions=(), files=(), open_questions=(), next_actions=(), \
                          continues_from=())"
    )]
    #[allow(clippy::too_many_arguments)]
    fn register_manual(
        &self,
        py: Python<'_>,
        agent_name: String,
        topic: String,
        summary: String,
        keywords: Option<Vec<String>>,
        context: Option<String>,
        decisions: Vec<String>,
        files: Vec<String>,
        open_questions: Vec<String>,
        next_actions: Vec<String>,
        continues_from: Vec<String>,
    ) -> PyResult<String> {
        let mut registration = ManualRegistration::new(agent_name, topic, summary);
        registration.keywords = keywords;
        registration.snapshot.context = context;
        registration.snapshot.decisions = decisions;
        registration.snapshot.files = files;
        registration.snapshot.open_questions = open_questions;
        registration.snapshot.next_actions = next_actions;
        registration.continues_from = continues_from;
        detached(py, || self.inner.register_manual(registration)).map(|id| id.to_string())
    }

    /// A status update: merges into the snapshot (never dropping items), promotes the
    /// session to `active`, and returns the row as written.
    #[pyo3(
        signature = (session_id, *, topic = None, summary = None, keywords = None,
                     context = None, decisions = Vec::new(), files = Vec::new(),
                     open_questions = Vec::new(), next_actions = Vec::new(),
                     supersede = Vec::new(), resolve = Vec::new(), done = Vec::new()),
        text_signature = "($self, session_id, *, topic=None, summary=None, keywords=None, \
                          context=None, decisions=(), files=(), open_questions=(), \
                          next_actions=(), supersede=(), resolve=(), done=())"
    )]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        py: Python<'_>,
        session_id: &str,
        topic: Option<String>,
        summary: Option<String>,
        keywords: Option<Vec<String>>,
        context: Option<String>,
        decisions: Vec<String>,
        files: Vec<String>,
        open_questions: Vec<String>,
        next_actions: Vec<String>,
        supersede: Vec<String>,
        resolve: Vec<String>,
        done: Vec<String>,
    ) -> PyResult<SessionRow> {
        let mut update = SessionUpdate::new();
        update.topic = topic;
        update.summary = summary;
        update.keywords = keywords;
        update.context = context;
        update.decisions = decisions;
        update.files = files;
        update.open_questions = open_questions;
        update.next_actions = next_actions;
        update.supersede = supersede;
        update.resolve = resolve;
        update.done = done;
        detached(py, || self.inner.update(session_id, update)).map(SessionRow)
    }

    /// Records that session `current` continues work from `source` (both sides).
    fn continue_from(
        &self,
        py: Python<'_>,
        current: &str,
        source: &str,
    ) -> PyResult<ContinueOutcome> {
        detached(py, || self.inner.continue_from(current, source)).map(ContinueOutcome)
    }

    /// Releases the reference of `current` on `source` (both sides; already-gone links
    /// are not an error).
    fn release(&self, py: Python<'_>, current: &str, source: &str) -> PyResult<ReleaseOutcome> {
        detached(py, || self.inner.release(current, source)).map(ReleaseOutcome)
    }

    /// Organize Memory: deletes unreferenced `idle` rows and marks overdue `active` rows
    /// `stale`; with `dry_run` only reports.
    #[pyo3(signature = (*, stale_after_days = 14, dry_run = false))]
    fn organize(
        &self,
        py: Python<'_>,
        stale_after_days: i64,
        dry_run: bool,
    ) -> PyResult<OrganizeReport> {
        let days = u32::try_from(stale_after_days).map_err(|_| {
            invalid(
                py,
                "stale_after_days",
                stale_after_days.to_string(),
                format!("must be between 0 and {}", u32::MAX),
            )
        })?;
        let options = OrganizeOptions::default()
            .stale_after_days(days)
            .dry_run(dry_run);
        detached(py, || self.inner.organize(options)).map(OrganizeReport)
    }

    /// Archives one session (or deletes an idle placeholder without snapshot).
    fn archive(&self, py: Python<'_>, session_id: &str) -> PyResult<ArchiveOutcome> {
        detached(py, || self.inner.archive(session_id))?.try_into()
    }

    /// Every row, in the protocol's reading order.
    fn sessions(&self, py: Python<'_>) -> PyResult<Vec<SessionRow>> {
        detached(py, || self.inner.sessions()).map(rows)
    }

    /// The rows with `status` (`idle`, `active` or `stale`), in reading order.
    fn sessions_with_status(&self, py: Python<'_>, status: &str) -> PyResult<Vec<SessionRow>> {
        let status = status.parse::<Status>().map_err(|e| to_py_err(py, e))?;
        detached(py, || self.inner.sessions_with_status(status)).map(rows)
    }

    /// The row of `session_id`.
    fn session(&self, py: Python<'_>, session_id: &str) -> PyResult<SessionRow> {
        detached(py, || self.inner.session(session_id)).map(SessionRow)
    }

    /// The snapshot of `session_id`, None when it has no snapshot file.
    fn snapshot(&self, py: Python<'_>, session_id: &str) -> PyResult<Option<Snapshot>> {
        detached(py, || self.inner.snapshot(session_id)).map(|s| s.map(Snapshot))
    }

    /// Rows whose id, agent name, topic, summary or keywords contain `query`
    /// (case-insensitive), in reading order.
    fn find(&self, py: Python<'_>, query: &str) -> PyResult<Vec<SessionRow>> {
        detached(py, || self.inner.find(query)).map(rows)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("AgentMemory({})", slf.getattr("root")?.repr()?))
    }
}
