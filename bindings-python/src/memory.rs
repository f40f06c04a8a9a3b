//! `memory_core.AgentMemory`: converts arguments, calls the core with the GIL released,
//! converts the result.

use std::time::Duration;

use memory_core::durable::WaitCheck;
use memory_core::{ManualRegistration, OrganizeOptions, SessionUpdate, Status};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::args;
use crate::errors::{invalid, to_py_err};
use crate::results::{
    ArchiveOutcome, ContinueOutcome, OrganizeReport, ReleaseOutcome, SessionRow, SessionStart,
    Snapshot,
};

/// Runs `f` (a call into the core that may touch files or wait for the lock) with the
/// GIL released, and converts its error.
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    f: impl Send + FnOnce() -> memory_core::Result<T>,
) -> PyResult<T> {
    py.detach(f).map_err(|e| to_py_err(py, e))
}

fn rows(rows: Vec<memory_core::SessionRow>) -> Vec<SessionRow> {
    rows.into_iter().map(SessionRow::from).collect()
}

/// The check a lock wait runs between attempts: the interpreter's signal handlers, so
/// that Ctrl-C raises `KeyboardInterrupt` in the waiting call (only the main thread runs
/// handlers; elsewhere this is a no-op).
pub(crate) fn signal_check() -> WaitCheck {
    WaitCheck::new(|| {
        Python::attach(|py| py.check_signals())
            .map_err(|err| Box::new(err) as memory_core::durable::WaitCheckError)
    })
}

/// `lock_timeout` seconds as a wait: every finite value at least 0 is accepted, and one
/// longer than a `Duration` holds (about 584 billion years) is the longest wait there is.
pub(crate) fn lock_wait(py: Python<'_>, seconds: f64) -> PyResult<Duration> {
    memory_core::durable::lock_wait_from_secs(seconds).ok_or_else(|| {
        invalid(
            py,
            "lock timeout",
            args::short_number(seconds),
            "must be a finite number of seconds, at least 0",
        )
    })
}

/// A memory root (the ``memory/`` directory) following the Agent Memory protocol.
///
/// Every write holds the root's cross-process lock (``<root>/.memcore.lock``), re-reads
/// under it, changes only its own rows, replaces files atomically and reads them back
/// before returning. Nothing is created until the first write. A relative ``root`` is
/// made absolute when the handle is opened (a later ``os.chdir`` does not move it); ``~``
/// is not expanded, as with ``open()``. Handles pickle and copy (by root and options).
///
/// ``AgentMemory(root, *, lock_timeout=None, fixed_time=None)`` opens ``root`` (a ``str``
/// or ``os.PathLike``). ``lock_timeout`` (seconds, default 10) bounds the wait for the
/// lock; Ctrl-C interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an RFC 3339
/// string such as ``"2026-05-25T13:18:00+08:00"``, or an aware ``datetime``) stops this
/// handle's clock at that time, for tests and reproducible runs; by default the system
/// clock in the local time zone is used. Every finite ``lock_timeout`` of at least 0 is
/// accepted; one beyond about 584 billion years (what the wait can count) waits that
/// long, which in practice never times out. InvalidInputError for a negative or
/// non-finite ``lock_timeout``, a ``fixed_time`` without offset, an argument of the
/// wrong type, or a ``root`` that exists but is not a directory.
#[pyclass(frozen, module = "memory_core")]
pub struct AgentMemory {
    inner: memory_core::AgentMemory,
    fixed_time: Option<String>,
}

#[pymethods]
impl AgentMemory {
    /// Opens ``root``. ``lock_timeout`` (seconds, default 10) bounds the wait for the
    /// lock; Ctrl-C interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an RFC 3339
    /// string such as ``"2026-05-25T13:18:00+08:00"``, or an aware ``datetime``) stops this
    /// handle's clock at that time, for tests and reproducible runs; by default the system
    /// clock in the local time zone is used. Every finite ``lock_timeout`` of at least 0
    /// is accepted; one beyond about 584 billion years (what the wait can count) waits that
    /// long, which in practice never times out. InvalidInputError for a negative or
    /// non-finite ``lock_timeout``, a ``fixed_time`` without offset, an argument of the
    /// wrong type, or a ``root`` that exists but is not a directory.
    #[new]
    #[pyo3(signature = (root, *, lock_timeout = None, fixed_time = None))]
    fn new(
        py: Python<'_>,
        root: &Bound<'_, PyAny>,
        lock_timeout: Option<Bound<'_, PyAny>>,
        fixed_time: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let root = args::path(root, "root")?;
        let mut builder = memory_core::AgentMemory::builder(root).wait_check(signal_check());
        if let Some(seconds) = args::opt_number(lock_timeout.as_ref(), "lock_timeout")? {
            builder = builder.lock_timeout(lock_wait(py, seconds)?);
        }
        let fixed_time = args::opt_time(fixed_time.as_ref(), "fixed_time")?;
        if let Some(text) = &fixed_time {
            builder = builder.fixed_time(text).map_err(|e| to_py_err(py, e))?;
        }
        let inner = detached(py, || builder.open())?;
        Ok(AgentMemory { inner, fixed_time })
    }

    /// The memory root directory (absolute).
    #[getter]
    fn root(&self) -> std::path::PathBuf {
        self.inner.root().to_path_buf()
    }

    /// ``<root>/index.md``.
    #[getter]
    fn index_path(&self) -> std::path::PathBuf {
        self.inner.index_path()
    }

    /// ``<root>/sessions/<id>.md`` (it may not exist). InvalidInputError for a bad id.
    fn session_path(
        &self,
        py: Python<'_>,
        session_id: &Bound<'_, PyAny>,
    ) -> PyResult<std::path::PathBuf> {
        let session_id = args::text(session_id, "session_id")?;
        detached(py, || self.inner.session_path(&session_id))
    }

    /// ``<root>/archive/<id>/`` (it may not exist). InvalidInputError for a bad id.
    fn archive_dir(
        &self,
        py: Python<'_>,
        session_id: &Bound<'_, PyAny>,
    ) -> PyResult<std::path::PathBuf> {
        let session_id = args::text(session_id, "session_id")?;
        detached(py, || self.inner.archive_dir(&session_id))
    }

    /// SessionStart registration: appends an ``idle`` row (topic ``未設定``) and returns
    /// the new Memory Session ID once the row was read back. Creates no snapshot. Rows of
    /// other sessions it cannot read do not stop it: they stay byte-identical and each is
    /// emitted as a ``MemoryCoreWarning`` (``warnings`` module) naming the file and line;
    /// ``register_session_start_with_warnings()`` returns them instead.
    fn register_session_start(
        &self,
        py: Python<'_>,
        agent_name: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let start = self.start(py, agent_name)?;
        crate::warnings::emit(py, &start.warnings)?;
        Ok(start.session_id)
    }

    /// SessionStart registration that returns, besides the new session id, the rows of
    /// other sessions it could not read (a bad status, timestamp, id or cell count, a
    /// duplicate id) as ``WarningRecord`` values naming the file and line; those rows stay
    /// byte-identical and nothing is emitted through ``warnings``. Problems with the table
    /// itself (no readable header, rows cut off from the table) still raise
    /// MalformedFileError.
    fn register_session_start_with_warnings(
        &self,
        py: Python<'_>,
        agent_name: &Bound<'_, PyAny>,
    ) -> PyResult<SessionStart> {
        self.start(py, agent_name)
    }

    /// Manual registration: writes ``sessions/<id>.md`` from the template, appends an
    /// ``active`` row, adds the id to the ``referenced_by`` of every ``continues_from``
    /// source, verifies all of it and returns the new id. ``keywords=None`` uses the
    /// protocol's manual-registration defaults; ``context`` defaults to the summary.
    #[pyo3(
        signature = (agent_name, topic, summary, *, keywords = None, context = None,
                     decisions = None, files = None, open_questions = None,
                     next_actions = None, continues_from = None),
        text_signature = "($self, agent_name, topic, summary, *, keywords=None, context=None, \
                          decisions=(), files=(), open_questions=(), next_actions=(), \
                          continues_from=())"
    )]
    #[allow(clippy::too_many_arguments)]
    fn register_manual(
        &self,
        py: Python<'_>,
        agent_name: &Bound<'_, PyAny>,
        topic: &Bound<'_, PyAny>,
        summary: &Bound<'_, PyAny>,
        keywords: Option<Bound<'_, PyAny>>,
        context: Option<Bound<'_, PyAny>>,
        decisions: Option<Bound<'_, PyAny>>,
        files: Option<Bound<'_, PyAny>>,
        open_questions: Option<Bound<'_, PyAny>>,
        next_actions: Option<Bound<'_, PyAny>>,
        continues_from: Option<Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let mut registration = ManualRegistration::new(
            args::text(agent_name, "agent_name")?,
            args::text(topic, "topic")?,
            args::text(summary, "summary")?,
        );
        registration.keywords = args::opt_texts(keywords.as_ref(), "keywords")?;
        registration.snapshot.context = args::opt_text(context.as_ref(), "context")?;
        registration.snapshot.decisions = args::list(decisions.as_ref(), "decisions")?;
        registration.snapshot.files = args::list(files.as_ref(), "files")?;
        registration.snapshot.open_questions =
            args::list(open_questions.as_ref(), "open_questions")?;
        registration.snapshot.next_actions = args::list(next_actions.as_ref(), "next_actions")?;
        registration.continues_from = args::list(continues_from.as_ref(), "continues_from")?;
        detached(py, || self.inner.register_manual(registration)).map(|id| id.to_string())
    }

    /// A status update, merged by the Snapshot Merge Policy: ``None`` leaves a field as
    /// it is, list items are added (never replacing), ``context`` is appended to Current
    /// Context, and ``supersede``/``resolve``/``done`` mark existing decisions, questions
    /// and actions (matched exactly, else by unique substring; NotFoundError when none
    /// matches, InvalidInputError when several do) instead of deleting them. Promotes the
    /// session to ``active`` and returns its row as written.
    #[pyo3(
        signature = (session_id, *, topic = None, summary = None, keywords = None,
                     context = None, decisions = None, files = None,
                     open_questions = None, next_actions = None,
                     supersede = None, resolve = None, done = None),
        text_signature = "($self, session_id, *, topic=None, summary=None, keywords=None, \
                          context=None, decisions=(), files=(), open_questions=(), \
                          next_actions=(), supersede=(), resolve=(), done=())"
    )]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        py: Python<'_>,
        session_id: &Bound<'_, PyAny>,
        topic: Option<Bound<'_, PyAny>>,
        summary: Option<Bound<'_, PyAny>>,
        keywords: Option<Bound<'_, PyAny>>,
        context: Option<Bound<'_, PyAny>>,
        decisions: Option<Bound<'_, PyAny>>,
        files: Option<Bound<'_, PyAny>>,
        open_questions: Option<Bound<'_, PyAny>>,
        next_actions: Option<Bound<'_, PyAny>>,
        supersede: Option<Bound<'_, PyAny>>,
        resolve: Option<Bound<'_, PyAny>>,
        done: Option<Bound<'_, PyAny>>,
    ) -> PyResult<SessionRow> {
        let session_id = args::text(session_id, "session_id")?;
        let mut update = SessionUpdate::new();
        update.topic = args::opt_text(topic.as_ref(), "topic")?;
        update.summary = args::opt_text(summary.as_ref(), "summary")?;
        update.keywords = args::opt_texts(keywords.as_ref(), "keywords")?;
        update.context = args::opt_text(context.as_ref(), "context")?;
        update.decisions = args::list(decisions.as_ref(), "decisions")?;
        update.files = args::list(files.as_ref(), "files")?;
        update.open_questions = args::list(open_questions.as_ref(), "open_questions")?;
        update.next_actions = args::list(next_actions.as_ref(), "next_actions")?;
        update.supersede = args::list(supersede.as_ref(), "supersede")?;
        update.resolve = args::list(resolve.as_ref(), "resolve")?;
        update.done = args::list(done.as_ref(), "done")?;
        detached(py, || self.inner.update(&session_id, update)).map(SessionRow::from)
    }

    /// Records that ``current`` continues work from ``source``: ``Continues From`` of
    /// the current snapshot and ``referenced_by`` of the source row, both verified.
    fn continue_from(
        &self,
        py: Python<'_>,
        current: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
    ) -> PyResult<ContinueOutcome> {
        let current = args::text(current, "current")?;
        let source = args::text(source, "source")?;
        detached(py, || self.inner.continue_from(&current, &source)).map(ContinueOutcome::from)
    }

    /// Releases the reference of ``current`` on ``source`` on both sides. A link that
    /// is already gone is not an error; the outcome tells which side changed.
    fn release(
        &self,
        py: Python<'_>,
        current: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
    ) -> PyResult<ReleaseOutcome> {
        let current = args::text(current, "current")?;
        let source = args::text(source, "source")?;
        detached(py, || self.inner.release(&current, &source)).map(ReleaseOutcome::from)
    }

    /// Organize Memory: deletes unreferenced ``idle`` rows and marks unreferenced
    /// ``active`` rows older than ``stale_after_days`` ``stale``; referenced rows are
    /// protected. Temp files left by memory-core writers that died mid-write are removed;
    /// snapshots without a row, other programs' leftovers and snapshots that cannot be
    /// read are reported, never deleted. ``dry_run=True`` only reports. ConflictError when
    /// an idle row has a snapshot file.
    #[pyo3(signature = (*, stale_after_days = None, dry_run = None), text_signature = "($self, *, stale_after_days=14, dry_run=False)")]
    fn organize(
        &self,
        py: Python<'_>,
        stale_after_days: Option<Bound<'_, PyAny>>,
        dry_run: Option<Bound<'_, PyAny>>,
    ) -> PyResult<OrganizeReport> {
        let mut options = OrganizeOptions::default();
        if let Some(days) = stale_after_days.as_ref() {
            let value = args::integer(days, "stale_after_days")?;
            let days = u32::try_from(value).map_err(|_| {
                invalid(
                    py,
                    "stale_after_days",
                    value.to_string(),
                    format!("must be between 0 and {}", u32::MAX),
                )
            })?;
            options = options.stale_after_days(days);
        }
        if let Some(dry_run) = dry_run.as_ref() {
            options = options.dry_run(args::boolean(dry_run, "dry_run")?);
        }
        detached(py, || self.inner.organize(options)).map(OrganizeReport::from)
    }

    /// Archives one session into ``archive/<id>/`` and removes its row, or deletes an
    /// idle placeholder without snapshot. ConflictError while another session references
    /// it, or when its row has a real summary but no snapshot.
    fn archive(&self, py: Python<'_>, session_id: &Bound<'_, PyAny>) -> PyResult<ArchiveOutcome> {
        let session_id = args::text(session_id, "session_id")?;
        detached(py, || self.inner.archive(&session_id))?.try_into()
    }

    /// Every row, in reading order: meaningful active/stale rows first, then other
    /// active/stale rows, then idle ones; most recently updated first in each group.
    fn sessions(&self, py: Python<'_>) -> PyResult<Vec<SessionRow>> {
        detached(py, || self.inner.sessions()).map(rows)
    }

    /// The rows with ``status``, in reading order. InvalidInputError for another string.
    fn sessions_with_status(
        &self,
        py: Python<'_>,
        status: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<SessionRow>> {
        let status = args::text(status, "status")?
            .parse::<Status>()
            .map_err(|e| to_py_err(py, e))?;
        detached(py, || self.inner.sessions_with_status(status)).map(rows)
    }

    /// The row of ``session_id``; NotFoundError when the index has none.
    fn session(&self, py: Python<'_>, session_id: &Bound<'_, PyAny>) -> PyResult<SessionRow> {
        let session_id = args::text(session_id, "session_id")?;
        detached(py, || self.inner.session(&session_id)).map(SessionRow::from)
    }

    /// The parsed ``sessions/<id>.md``, or None when the session has no snapshot file.
    fn snapshot(
        &self,
        py: Python<'_>,
        session_id: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Snapshot>> {
        let session_id = args::text(session_id, "session_id")?;
        detached(py, || self.inner.snapshot(&session_id)).map(|s| s.map(Snapshot::from))
    }

    /// Rows whose id, agent name, topic, summary or keywords contain ``query``
    /// (case-insensitive), in reading order.
    fn find(&self, py: Python<'_>, query: &Bound<'_, PyAny>) -> PyResult<Vec<SessionRow>> {
        let query = args::text(query, "query")?;
        detached(py, || self.inner.find(&query)).map(rows)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("AgentMemory({})", slf.getattr("root")?.repr()?))
    }

    /// Pickle and copy: the same root and options.
    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("lock_timeout", self.inner.lock_timeout().as_secs_f64())?;
        kwargs.set_item("fixed_time", self.fixed_time.as_deref())?;
        let args = PyTuple::new(py, [self.inner.root()])?;
        PyTuple::new(py, [args.into_any(), kwargs.into_any()])
    }
}

impl AgentMemory {
    /// The SessionStart registration both `register_session_start` forms make.
    fn start(&self, py: Python<'_>, agent_name: &Bound<'_, PyAny>) -> PyResult<SessionStart> {
        let agent_name = args::text(agent_name, "agent_name")?;
        detached(py, || {
            self.inner.register_session_start_with_warnings(&agent_name)
        })
        .map(SessionStart::from)
    }
}
