//! `memory_core.StructuredMemory`: converts plain Python arguments, calls
//! `memory_core::structured_memory` with the GIL released, and returns each result as
//! plain builtins from the core type's serde serialization (as `ContextMemory` does), so
//! the keys are those `memcore topics --json` prints. A Python compactor is a
//! [`PyCompactor`].

use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory as Core};
use pyo3::prelude::*;
use pyo3::types::{PyDate, PyDateTime, PyDict, PyString, PyTuple};

use crate::args;
use crate::context::plain;
use crate::errors::to_py_err;
use crate::memory::{detached, lock_wait, signal_check};
use crate::results::WarningRecord;
use crate::structured_compactor::PyCompactor;

/// A budget: an `int` from 0 (not `bool`).
fn budget(py: Python<'_>, obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<usize> {
    let value = args::integer(obj, name)?;
    usize::try_from(value).map_err(|_| {
        crate::errors::invalid(py, name, value.to_string(), "must be a whole number from 0")
    })
}

fn opt_budget(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<usize>> {
    match obj {
        Some(obj) if !obj.is_none() => budget(py, obj, name).map(Some),
        _ => Ok(None),
    }
}

/// The `date` of `remember`: a `str` as given (the core reads it), a `datetime.date` as
/// its `isoformat()`, a `datetime.datetime` as the calendar day it shows (its own date,
/// in its own time zone when it is aware, never converted); None for today.
fn day(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if obj.is_instance_of::<PyString>() {
        return args::text(obj, "date").map(Some);
    }
    let date = if obj.is_instance_of::<PyDateTime>() {
        obj.call_method0("date")?
    } else if obj.is_instance_of::<PyDate>() {
        obj.clone()
    } else {
        return Err(to_py_err(
            obj.py(),
            memory_core::Error::argument(
                "date",
                format!(
                    "expected a str, a datetime.date or a datetime.datetime, got {}",
                    args::described(obj)
                ),
            ),
        ));
    };
    Ok(Some(date.call_method0("isoformat")?.extract::<String>()?))
}

/// The compactor argument: None for the default.
fn compactor(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PyCompactor>> {
    obj.filter(|o| !o.is_none())
        .map(PyCompactor::new)
        .transpose()
}

/// A structured-memory directory (``./memory`` in the seed): ``MEMORY.md``, an
/// always-loaded index of one-line pointers (``- [Title](file.md) — hook``), topic files
/// of dated entries (``- 2026-07-10 [subject]: text``) loaded on demand, and the
/// append-only ``memory-archive.md``. The index is held to ``index_lines`` (60) lines and
/// each topic file to ``topic_lines`` (150); a write that takes a topic over its budget
/// compacts it, and compaction archives before it rewrites, never truncating.
///
/// Every write holds the directory's cross-process lock (``.memcore.lock``, shared with
/// every model, language and the ``memcore`` command line), changes every file it
/// touches as one step and reads them back. Results are plain ``dict``/``list`` values
/// with the keys ``memcore topics --json`` prints (``MemoryIndexDict``, ``TopicDict``,
/// ..., importable from ``memory_core``). Errors: InvalidInputError for a refused value
/// (a vague date, a ``misc`` topic, a reserved file; a secret sets ``field`` and
/// ``secret_kind``), NotFoundError for a topic file that does not exist, AbortedError for
/// a compaction abandoned because the compactor returned something unusable (an
/// exception the compactor raises is re-raised itself; the compaction writes nothing
/// either way).
///
/// ``StructuredMemory(dir, *, index_lines=60, topic_lines=150, index_bytes=None,
/// topic_bytes=None, lock_timeout=None, fixed_time=None)`` opens ``dir`` (a ``str`` or
/// ``os.PathLike``, made absolute now; nothing is created until the first write). The
/// byte budgets are off unless given. ``lock_timeout`` (seconds, default 10) bounds the
/// wait for the lock; Ctrl-C interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an
/// RFC 3339 string or an aware ``datetime``) stops this handle's clock: "today" and the
/// relative dates a write converts are taken from it. Handles pickle and copy.
///
/// A compactor (``compactor=`` of ``remember`` and ``compact``) is any object with some
/// of these methods (a missing one is the default: evict nothing, keep the newest
/// generation, summarize nothing, split by ``##`` heading or subject; move a content line
/// of ``MEMORY.md`` to the topic whose title and hook clearly match it, merge
/// near-duplicate topics), each given the
/// topic as a ``TopicDict`` and its readable entries as ``StructuredEntryDict`` values,
/// and answering with indexes into that list: ``dead(topic, entries) -> list[int]``,
/// ``collapse(topic, subject, generations) -> str | None``, ``summarize(topic, entries)
/// -> list[{"entries": [...], "text": ..., "subject": None}]``, ``split(topic, entries)
/// -> list[{"file": ..., "title": ..., "hook": ..., "entries": [...]}]``; and for a
/// ``MEMORY.md`` over its budget, given the index as a ``MemoryIndexDict``:
/// ``route_content(index) -> list[[content_index, topic_file]]`` and
/// ``merge_topics(index) -> list[[from_file, into_file]]`` (default: the lines recall
/// clearly matches, ``ROUTE_MIN_POINTS`` and ``ROUTE_MARGIN`` in the README; the
/// near-duplicates ``check`` reports, each later one into the first).
///
/// A compactor can also be one plain callable (a function or lambda with none of those
/// methods), called once per judgment as ``compactor(request)`` where ``request`` is a
/// dict with ``"pass"`` (the method's name: ``"dead"``, ``"collapse"``, ``"summarize"``,
/// ``"split"``, ``"route_content"``, ``"merge_topics"``) and the method's arguments by
/// name (``"topic"`` and ``"entries"``; ``"subject"`` and ``"generations"`` for
/// ``collapse``; ``"index"`` for the two index passes). It answers as that method would,
/// or None for the default:
///
/// ```text
/// def compactor(request):
///     if request["pass"] == "dead":
///         return [i for i, e in enumerate(request["entries"]) if "retired" in e["text"]]
///     return None  # the default for every other pass
///
/// memory.compact("memory-infra.md", compactor=compactor)
/// ```
#[pyclass(frozen, module = "memory_core")]
pub struct StructuredMemory {
    inner: Core,
    lock_timeout: Option<f64>,
    fixed_time: Option<String>,
}

#[pymethods]
impl StructuredMemory {
    /// Opens ``dir``; see the class documentation.
    #[new]
    #[pyo3(signature = (dir, *, index_lines = None, topic_lines = None, index_bytes = None,
                        topic_bytes = None, lock_timeout = None, fixed_time = None),
           text_signature = "(dir, *, index_lines=60, topic_lines=150, index_bytes=None, \
                             topic_bytes=None, lock_timeout=None, fixed_time=None)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dir: &Bound<'_, PyAny>,
        index_lines: Option<Bound<'_, PyAny>>,
        topic_lines: Option<Bound<'_, PyAny>>,
        index_bytes: Option<Bound<'_, PyAny>>,
        topic_bytes: Option<Bound<'_, PyAny>>,
        lock_timeout: Option<Bound<'_, PyAny>>,
        fixed_time: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let dir = args::path(dir, "dir")?;
        let mut budgets = Budgets::default();
        if let Some(lines) = opt_budget(py, index_lines.as_ref(), "index_lines")? {
            budgets = budgets.index_lines(lines);
        }
        if let Some(lines) = opt_budget(py, topic_lines.as_ref(), "topic_lines")? {
            budgets = budgets.topic_lines(lines);
        }
        budgets = budgets
            .index_bytes(opt_budget(py, index_bytes.as_ref(), "index_bytes")?)
            .topic_bytes(opt_budget(py, topic_bytes.as_ref(), "topic_bytes")?);
        let mut builder = Core::builder(dir)
            .budgets(budgets)
            .wait_check(signal_check());
        let lock_timeout = args::opt_number(lock_timeout.as_ref(), "lock_timeout")?;
        if let Some(seconds) = lock_timeout {
            builder = builder.lock_timeout(lock_wait(py, seconds)?);
        }
        let fixed_time = args::opt_time(fixed_time.as_ref(), "fixed_time")?;
        if let Some(text) = &fixed_time {
            builder = builder.fixed_time(text).map_err(|e| to_py_err(py, e))?;
        }
        let inner = detached(py, || builder.open())?;
        Ok(StructuredMemory {
            inner,
            lock_timeout,
            fixed_time,
        })
    }

    /// The directory (absolute).
    #[getter]
    fn root(&self) -> std::path::PathBuf {
        self.inner.root().to_path_buf()
    }

    /// The budgets, as a ``BudgetsDict`` (``index_lines``, ``topic_lines``,
    /// ``index_bytes``, ``topic_bytes``).
    #[getter]
    fn budgets(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &self.inner.budgets())
    }

    /// ``MEMORY.md`` read whole, as a ``MemoryIndexDict``: its pointer ``lines``, the
    /// ``content`` lines that are not pointers, the ``unusable`` links, its size and
    /// ``budget`` use. An empty index when there is no ``MEMORY.md`` yet.
    fn index(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let index = detached(py, || self.inner.index())?;
        plain(py, &index)
    }

    /// ``MEMORY.md`` for a session start (a SessionStart hook), as a ``SessionIndexDict``:
    /// ``text`` (the file whole), ``index`` (a ``MemoryIndexDict``; None when it does not
    /// read), ``budget``, ``damaged`` (why it does not read, with ``path`` and ``line``; None
    /// when it reads) and ``warnings`` (what a hook prints on stderr). A comment or fence
    /// never closed does not raise, so a session never loses its index; a file that is not
    /// text still raises.
    fn session_index(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let start = detached(py, || self.inner.session_index())?;
        plain(py, &start)
    }

    /// Topic file ``file`` (relative to the directory, such as ``memory-infra.md``) read
    /// whole, as a ``TopicDict``: its frontmatter ``meta``, dated ``entries``, ``undated``
    /// hand notes, size and ``budget`` use, its whole ``text`` (as read) and its ``body``
    /// (the text after the frontmatter, without a byte-order mark: a Claude Code topic
    /// file's prose). NotFoundError when it does not exist;
    /// InvalidInputError for a path outside the directory or a reserved file.
    fn topic(&self, py: Python<'_>, file: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let file = args::text(file, "file")?;
        let topic = detached(py, || self.inner.topic(&file))?;
        plain(py, &topic)
    }

    /// The index lines whose title or hook match ``query``, best first, as
    /// ``RecallHitDict`` values (an index line with its ``score``): the index is the
    /// recall key, and only ``MEMORY.md`` is read. What ``memcore topics recall`` says on
    /// stderr is emitted as a ``MemoryCoreWarning`` (``warnings`` module; ``path`` the
    /// ``MEMORY.md`` path): ``MEMORY.md`` read through a symbolic link (``line`` 0), and,
    /// for each hit whose topic file does not exist, its index line (``line`` that line;
    /// the hit is kept, ``topic()`` will not find it). ``recall_with_warnings()`` returns
    /// them instead.
    fn recall(&self, py: Python<'_>, query: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let query = args::text(query, "query")?;
        let (hits, warnings) = detached(py, || self.inner.recall_with_warnings(&query))?;
        let hits = plain(py, &hits)?;
        let records: Vec<WarningRecord> = warnings
            .into_iter()
            .map(|w| WarningRecord {
                path: w.path,
                line: w.line,
                message: w.message,
            })
            .collect();
        crate::warnings::emit(py, &records)?;
        Ok(hits)
    }

    /// ``recall`` with its warnings returned rather than emitted, as a
    /// ``RecallAnswerDict``: ``hits`` (``RecallHitDict`` values, best first) and
    /// ``warnings`` (``str`` values, what ``memcore topics recall`` prints on stderr:
    /// ``MEMORY.md`` read through a symbolic link; ``MEMORY.md line N links F, which does
    /// not exist`` for a hit whose topic file is missing). Nothing is emitted through
    /// ``warnings``.
    fn recall_with_warnings(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let query = args::text(query, "query")?;
        let (hits, warnings) = detached(py, || self.inner.recall_with_warnings(&query))?;
        let warnings: Vec<String> = warnings.into_iter().map(|w| w.message).collect();
        let answer = PyDict::new(py);
        answer.set_item("hits", plain(py, &hits)?)?;
        answer.set_item("warnings", warnings)?;
        Ok(answer.into_any().unbind())
    }

    /// Writes one fact to topic file ``topic`` and returns a ``RememberOutcomeDict``.
    /// An entry about the same ``subject`` is replaced (merge on write; the old one goes
    /// to the archive). ``date`` is ``YYYY-MM-DD`` or a relative day (``today``,
    /// ``yesterday``, ``last monday``, ...) converted to an absolute date now, or a
    /// ``datetime.date`` (a ``datetime.datetime`` gives the calendar day it shows, in its
    /// own time zone); when None, the one past day the text names (``broke two days ago``), else today. A new topic file is linked from ``MEMORY.md`` with ``title`` (from the file
    /// name when None) and ``hook`` (required then). ``section`` names the ``##`` section of
    /// the topic file the entry goes under (matched by its words, case folded; a new one at
    /// the end when there is none); when None a new entry goes above the first section.
    /// ``type`` is the frontmatter ``type`` of a new topic file (``user``, ``feedback``,
    /// ``project``, ``reference``...): the file then starts with ``name``, ``description``
    /// and ``type`` (without it, with ``name`` and ``description`` when most linked topics
    /// keep frontmatter, as Claude Code's do); an existing topic must already have it. A
    /// write that takes the topic over
    /// its budget compacts it with ``compactor`` (see the class documentation) in the same
    /// step; when that compaction fails (an exception the compactor raises is re-raised,
    /// an unusable result is AbortedError) nothing is written, the fact included.
    /// InvalidInputError for a vague date, an empty text, a ``misc`` topic, a reserved
    /// file, a new topic without a hook, or a secret in any field (``field`` and
    /// ``secret_kind`` set).
    #[pyo3(signature = (topic, text, *, subject = None, date = None, title = None,
                        hook = None, section = None, r#type = None, compactor = None))]
    #[allow(clippy::too_many_arguments)]
    fn remember(
        &self,
        py: Python<'_>,
        topic: &Bound<'_, PyAny>,
        text: &Bound<'_, PyAny>,
        subject: Option<Bound<'_, PyAny>>,
        date: Option<Bound<'_, PyAny>>,
        title: Option<Bound<'_, PyAny>>,
        hook: Option<Bound<'_, PyAny>>,
        section: Option<Bound<'_, PyAny>>,
        r#type: Option<Bound<'_, PyAny>>,
        compactor: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let mut fact = Fact::new(args::text(topic, "topic")?, args::text(text, "text")?);
        if let Some(subject) = args::opt_text(subject.as_ref(), "subject")? {
            fact = fact.subject(subject);
        }
        if let Some(date) = day(date.as_ref())? {
            fact = fact.date(date);
        }
        if let Some(title) = args::opt_text(title.as_ref(), "title")? {
            fact = fact.title(title);
        }
        if let Some(hook) = args::opt_text(hook.as_ref(), "hook")? {
            fact = fact.hook(hook);
        }
        if let Some(section) = args::opt_text(section.as_ref(), "section")? {
            fact = fact.section(section);
        }
        if let Some(kind) = args::opt_text(r#type.as_ref(), "type")? {
            fact = fact.kind(kind);
        }
        let compactor = self::compactor(compactor.as_ref())?;
        let outcome = detached(py, || match &compactor {
            Some(c) => self.inner.remember_with(fact, c),
            None => self.inner.remember_with(fact, &DefaultCompactor),
        })?;
        plain(py, &outcome)
    }

    /// Every way the directory breaks the protocol, writing nothing, as ``ViolationDict``
    /// values (``kind``, ``file``, ``line``, ``message``) in file and line order; an empty
    /// list for a sound directory.
    fn check(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let violations = detached(py, || self.inner.check())?;
        plain(py, &violations)
    }

    /// Compacts topic file ``file`` (or, when None, every linked topic file over its
    /// budget) with ``compactor`` (see the class documentation) and returns a
    /// ``CompactionReportDict``: per file the budget use ``before`` and ``after``, each
    /// pass's entries and where they went, and ``needs_judgment`` when it is still over
    /// budget. Every entry a pass removes is in ``memory-archive.md`` (under the report's
    /// ``id``, for ``restore``) in the same step as the rewrite. With ``dry_run=True``
    /// nothing is written. An exception the compactor raises aborts the compaction and
    /// is re-raised; an unusable result (an entry it was not given, the same one twice, a
    /// wrong type) is AbortedError; nothing is written either way.
    #[pyo3(signature = (file = None, *, compactor = None, dry_run = None),
           text_signature = "($self, file=None, *, compactor=None, dry_run=False)")]
    fn compact(
        &self,
        py: Python<'_>,
        file: Option<Bound<'_, PyAny>>,
        compactor: Option<Bound<'_, PyAny>>,
        dry_run: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let file = args::opt_text(file.as_ref(), "file")?;
        let dry_run = match dry_run.as_ref().filter(|d| !d.is_none()) {
            Some(d) => args::boolean(d, "dry_run")?,
            None => false,
        };
        let compactor = self::compactor(compactor.as_ref())?;
        let report = detached(py, || match &compactor {
            Some(c) => self.inner.compact(file.as_deref(), c, dry_run),
            None => self
                .inner
                .compact(file.as_deref(), &DefaultCompactor, dry_run),
        })?;
        plain(py, &report)
    }

    /// Puts back every entry archived under ``id`` (a compaction report's ``id``, or a
    /// write's ``archive_id``) at the end of the file it came from, in one step: lines
    /// already live there are not added twice, and a file that is gone is recreated with
    /// an index line. The archive stays as it is (append-only). Returns a
    /// ``RestoreReportDict``; NotFoundError when the archive has no section ``id``.
    fn restore(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let id = args::text(id, "id")?;
        let report = detached(py, || self.inner.restore(&id))?;
        plain(py, &report)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!(
            "StructuredMemory({})",
            slf.getattr("root")?.repr()?
        ))
    }

    /// Pickle and copy: the same directory, budgets and options.
    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let budgets = self.inner.budgets();
        let kwargs = PyDict::new(py);
        kwargs.set_item("index_lines", budgets.index_lines)?;
        kwargs.set_item("topic_lines", budgets.topic_lines)?;
        kwargs.set_item("index_bytes", budgets.index_bytes)?;
        kwargs.set_item("topic_bytes", budgets.topic_bytes)?;
        kwargs.set_item("lock_timeout", self.lock_timeout)?;
        kwargs.set_item("fixed_time", self.fixed_time.as_deref())?;
        let args = PyTuple::new(py, [self.inner.root()])?;
        PyTuple::new(py, [args.into_any(), kwargs.into_any()])
    }
}
