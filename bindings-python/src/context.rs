//! `memory_core.ContextMemory`: converts plain Python arguments, calls
//! `memory_core::context_memory` with the GIL released, and returns each result as plain
//! builtins built from the core type's serde serialization ([`plain`]), so the keys are
//! those `memcore context --json` prints and no result needs a class of its own.

use memory_core::Error;
use memory_core::context_memory::{
    self as core, Category, ContextMemory as Core, Diagram, EntityName, EntryPatch, EntryStatus,
    Namespace, NewEntry, Query, RefreshTrigger, SplitPlan,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyMapping, PyTuple};

use crate::args;
use crate::errors::to_py_err;
use crate::memory::{detached, lock_wait, signal_check};

/// Any serializable core result as plain Python builtins (`dict`, `list`, `str`, `int`,
/// `float`, `bool`, None), keys in the order the core declares them: the JSON text
/// `memcore --json` prints, read by `json.loads`.
pub(crate) fn plain<T: serde::Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let text = serde_json::to_string(value).map_err(|e| {
        to_py_err(
            py,
            Error::argument("root", format!("a path in the result is not UTF-8 ({e})")),
        )
    })?;
    let loads = LOADS.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("json")?.getattr("loads")?.unbind())
    })?;
    Ok(loads.bind(py).call1((text,))?.unbind())
}

/// A parsed value of the core (namespace, category, status, entity name).
fn parsed<T>(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    name: &'static str,
    parse: impl FnOnce(&str) -> memory_core::Result<T>,
) -> PyResult<T> {
    parse(&args::text(obj, name)?).map_err(|e| to_py_err(py, e))
}

fn opt_parsed<T>(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
    parse: impl FnOnce(&str) -> memory_core::Result<T>,
) -> PyResult<Option<T>> {
    match obj {
        Some(obj) if !obj.is_none() => parsed(py, obj, name, parse).map(Some),
        _ => Ok(None),
    }
}

/// The `Query` of `query` and `query_answer`, from their keyword arguments
/// `[namespaces, category, tags, text, history, limit]`.
fn query_of(py: Python<'_>, arguments: [Option<Bound<'_, PyAny>>; 6]) -> PyResult<Query> {
    let [namespaces, category, tags, text, history, limit] = arguments;
    let mut query = Query::new().tags(args::list(tags.as_ref(), "tags")?);
    for ns in args::list(namespaces.as_ref(), "namespaces")? {
        query = query.namespace(&ns).map_err(|e| to_py_err(py, e))?;
    }
    if let Some(category) = opt_parsed(py, category.as_ref(), "category", str::parse::<Category>)? {
        query = query.category(category);
    }
    if let Some(text) = args::opt_text(text.as_ref(), "text")? {
        query = query.text(text);
    }
    if let Some(history) = history.as_ref().filter(|h| !h.is_none()) {
        query = query.include_history(args::boolean(history, "history")?);
    }
    if let Some(limit) = limit.as_ref().filter(|l| !l.is_none()) {
        let value = args::integer(limit, "limit")?;
        let limit = usize::try_from(value).map_err(|_| {
            crate::errors::invalid(py, "limit", value.to_string(), "must be at least 0")
        })?;
        query = query.limit(limit);
    }
    Ok(query)
}

/// A confidence (`int` or `float`), or None.
fn opt_confidence(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    args::opt_number(obj, "confidence")
}

/// A `Mapping[str, str]` as its pairs, in iteration order.
fn pairs(obj: Option<&Bound<'_, PyAny>>, name: &'static str) -> PyResult<Vec<(String, String)>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    let mapping = obj.cast::<PyMapping>().map_err(|_| {
        to_py_err(
            obj.py(),
            Error::argument(
                name,
                format!(
                    "expected a mapping of str to str, got {}",
                    args::described(obj)
                ),
            ),
        )
    })?;
    let mut out = Vec::new();
    for item in mapping.items()?.iter() {
        let (key, value) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        out.push((args::text(&key, name)?, args::text(&value, name)?));
    }
    Ok(out)
}

/// `diagram={"diagram_type": …, "subject": …, "code": …, "language": "mermaid"}`.
fn diagram(obj: &Bound<'_, PyAny>) -> PyResult<Diagram> {
    let py = obj.py();
    let wrong = |message: String| to_py_err(py, Error::argument("diagram", message));
    let map = obj.cast::<PyMapping>().map_err(|_| {
        wrong(format!(
            "expected a mapping with diagram_type, subject and code, got {}",
            args::described(obj)
        ))
    })?;
    let mut fields: [Option<String>; 4] = [None, None, None, None];
    const KEYS: [&str; 4] = ["diagram_type", "subject", "code", "language"];
    for item in map.items()?.iter() {
        let (key, value) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        let key = args::text(&key, "diagram")?;
        let Some(slot) = KEYS.iter().position(|k| *k == key) else {
            return Err(wrong(format!(
                "unknown key {key:?} (the keys are diagram_type, subject, code, language)"
            )));
        };
        fields[slot] = Some(args::text(&value, "diagram")?);
    }
    let [diagram_type, subject, code, language] = fields;
    let mut diagram = Diagram::mermaid(
        diagram_type.unwrap_or_default(),
        subject.unwrap_or_default(),
        code.unwrap_or_default(),
    );
    if let Some(language) = language {
        diagram.language = language;
    }
    Ok(diagram)
}

/// The keyword arguments of a new entry (`write` and `supersede`).
struct EntryArgs<'a, 'py> {
    status: Option<&'a Bound<'py, PyAny>>,
    summary: Option<&'a Bound<'py, PyAny>>,
    slug: Option<&'a Bound<'py, PyAny>>,
    rationale: Option<&'a Bound<'py, PyAny>>,
    confidence: Option<&'a Bound<'py, PyAny>>,
    source_path: Option<&'a Bound<'py, PyAny>>,
    supersedes: Option<&'a Bound<'py, PyAny>>,
    related: Option<&'a Bound<'py, PyAny>>,
    diagram: Option<&'a Bound<'py, PyAny>>,
    force_new: Option<&'a Bound<'py, PyAny>>,
}

fn new_entry(
    py: Python<'_>,
    namespace: &Bound<'_, PyAny>,
    category: &Bound<'_, PyAny>,
    tags: &Bound<'_, PyAny>,
    body: &Bound<'_, PyAny>,
    a: EntryArgs<'_, '_>,
) -> PyResult<NewEntry> {
    let namespace = args::text(namespace, "namespace")?;
    let category = parsed(py, category, "category", str::parse::<Category>)?;
    let tags = args::texts(tags, "tags")?;
    let body = args::text(body, "body")?;
    let mut entry =
        NewEntry::new(&namespace, category, tags, body).map_err(|e| to_py_err(py, e))?;
    if let Some(status) = opt_parsed(py, a.status, "status", str::parse::<EntryStatus>)? {
        entry = entry.status(status);
    }
    if let Some(summary) = args::opt_text(a.summary, "summary")? {
        entry = entry.summary(summary);
    }
    if let Some(slug) = args::opt_text(a.slug, "slug")? {
        entry = entry.slug(slug);
    }
    if let Some(rationale) = args::opt_text(a.rationale, "rationale")? {
        entry = entry.rationale(rationale);
    }
    if let Some(confidence) = opt_confidence(a.confidence)? {
        entry = entry.confidence(confidence);
    }
    if let Some(source_path) = args::opt_text(a.source_path, "source_path")? {
        entry = entry.source_path(source_path);
    }
    for old in args::list(a.supersedes, "supersedes")? {
        entry = entry.supersedes(EntityName::parse(&old).map_err(|e| to_py_err(py, e))?);
    }
    for related in args::list(a.related, "related")? {
        entry = entry.related(EntityName::parse(&related).map_err(|e| to_py_err(py, e))?);
    }
    if let Some(d) = a.diagram.filter(|d| !d.is_none()) {
        entry = entry.diagram(diagram(d)?);
    }
    if let Some(force_new) = a.force_new.filter(|f| !f.is_none()) {
        entry = entry.force_new(args::boolean(force_new, "force_new")?);
    }
    Ok(entry)
}

fn namespace(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Namespace> {
    parsed(py, obj, "namespace", Namespace::parse)
}

/// A context-memory root (``~/.cursor/memory`` in the seed): one directory per namespace
/// (``org.global`` is ``org/global/``, ``project.app.api`` is ``projects/app/api/``), one
/// Markdown entity file with YAML frontmatter per fact, and an ``_index.md`` table per
/// directory that queries read.
///
/// Every write holds the root's cross-process lock (``<root>/.memcore.lock``, shared with
/// every model, language and the ``memcore`` command line), changes the entity file and
/// its index row as one step and reads both back. Results are plain ``dict``/``list``
/// values with the keys ``memcore context --json`` prints (``EntryDict``, ``HitDict``, ...,
/// importable from ``memory_core``); names and namespaces are ``str``, paths are ``str``
/// relative to the root. Errors: ConflictError for a similar entry (``session_id`` is the
/// existing entry's name; ``force_new=True`` writes anyway), NotFoundError for an unknown
/// entity (``session_id`` is its name), InvalidInputError for a refused value (a secret
/// sets ``field`` and ``secret_kind``).
///
/// ``ContextMemory(root, *, lock_timeout=None, fixed_time=None)`` opens ``root`` (a
/// ``str`` or ``os.PathLike``, made absolute now; nothing is created until the first
/// write). ``lock_timeout`` (seconds, default 10) bounds the wait for the lock; Ctrl-C
/// interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an RFC 3339 string such as
/// ``"2026-04-03T10:00:00Z"``, or an aware ``datetime``) stops this handle's clock, for
/// tests and reproducible runs. Handles pickle and copy (by root and options).
#[pyclass(frozen, module = "memory_core")]
pub struct ContextMemory {
    inner: Core,
    lock_timeout: Option<f64>,
    fixed_time: Option<String>,
}

#[pymethods]
impl ContextMemory {
    /// Opens ``root``; see the class documentation.
    #[new]
    #[pyo3(signature = (root, *, lock_timeout = None, fixed_time = None))]
    fn new(
        py: Python<'_>,
        root: &Bound<'_, PyAny>,
        lock_timeout: Option<Bound<'_, PyAny>>,
        fixed_time: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let root = args::path(root, "root")?;
        let mut builder = Core::builder(root).wait_check(signal_check());
        let lock_timeout = args::opt_number(lock_timeout.as_ref(), "lock_timeout")?;
        if let Some(seconds) = lock_timeout {
            builder = builder.lock_timeout(lock_wait(py, seconds)?);
        }
        let fixed_time = args::opt_time(fixed_time.as_ref(), "fixed_time")?;
        if let Some(text) = &fixed_time {
            builder = builder.fixed_time(text).map_err(|e| to_py_err(py, e))?;
        }
        let inner = detached(py, || builder.open())?;
        Ok(ContextMemory {
            inner,
            lock_timeout,
            fixed_time,
        })
    }

    /// The root directory (absolute).
    #[getter]
    fn root(&self) -> std::path::PathBuf {
        self.inner.root().to_path_buf()
    }

    /// The directory of ``namespace`` (it may not exist). InvalidInputError for a bad
    /// namespace.
    fn namespace_dir(
        &self,
        py: Python<'_>,
        namespace: &Bound<'_, PyAny>,
    ) -> PyResult<std::path::PathBuf> {
        let namespace = self::namespace(py, namespace)?;
        Ok(self.inner.namespace_dir(&namespace))
    }

    /// Writes a new entry and returns a ``WriteOutcomeDict``: the entry as written and read
    /// back, the namespace's entry count, whether it is over the split threshold, and the
    /// body check's flags. ``category`` is one of the seed's categories (``decision``,
    /// ``constraint``, ...), ``tags`` at least two; ``status`` defaults to ``accepted``,
    /// ``summary`` to the body's first sentence. A ``diagram`` entry takes
    /// ``diagram={"diagram_type": ..., "subject": ..., "code": ...}`` (``language``
    /// defaults to ``mermaid``). ConflictError when an entry of the same category has a
    /// similar summary (its name in ``session_id``), unless ``force_new=True``.
    #[pyo3(
        signature = (namespace, category, tags, body, *, status = None, summary = None,
                     slug = None, rationale = None, confidence = None, source_path = None,
                     supersedes = None, related = None, diagram = None, force_new = None),
        text_signature = "($self, namespace, category, tags, body, *, status=None, summary=None, \
                          slug=None, rationale=None, confidence=None, source_path=None, \
                          supersedes=(), related=(), diagram=None, force_new=False)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        py: Python<'_>,
        namespace: &Bound<'_, PyAny>,
        category: &Bound<'_, PyAny>,
        tags: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        status: Option<Bound<'_, PyAny>>,
        summary: Option<Bound<'_, PyAny>>,
        slug: Option<Bound<'_, PyAny>>,
        rationale: Option<Bound<'_, PyAny>>,
        confidence: Option<Bound<'_, PyAny>>,
        source_path: Option<Bound<'_, PyAny>>,
        supersedes: Option<Bound<'_, PyAny>>,
        related: Option<Bound<'_, PyAny>>,
        diagram: Option<Bound<'_, PyAny>>,
        force_new: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let entry = new_entry(
            py,
            namespace,
            category,
            tags,
            body,
            EntryArgs {
                status: status.as_ref(),
                summary: summary.as_ref(),
                slug: slug.as_ref(),
                rationale: rationale.as_ref(),
                confidence: confidence.as_ref(),
                source_path: source_path.as_ref(),
                supersedes: supersedes.as_ref(),
                related: related.as_ref(),
                diagram: diagram.as_ref(),
                force_new: force_new.as_ref(),
            },
        )?;
        let outcome = detached(py, || self.inner.write(entry))?;
        plain(py, &outcome)
    }

    /// The entry ``name`` (``org.global.decision.001``) as its file says, as an
    /// ``EntryDict``. NotFoundError when its namespace's index has no such entry (the
    /// message names where a split moved it).
    fn get(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let name = args::text(name, "name")?;
        let entry = detached(py, || self.inner.get(&name))?;
        plain(py, &entry)
    }

    /// Changes the given fields of entry ``name`` (None leaves a field as it is; ``tags``
    /// replaces the tags) in its file and index row, sets ``updated_at``, and returns the
    /// entry as an ``EntryDict``. Comments, unknown keys and quoting in the file stay.
    #[pyo3(
        signature = (name, *, status = None, tags = None, summary = None, body = None,
                     rationale = None, confidence = None, source_path = None)
    )]
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        status: Option<Bound<'_, PyAny>>,
        tags: Option<Bound<'_, PyAny>>,
        summary: Option<Bound<'_, PyAny>>,
        body: Option<Bound<'_, PyAny>>,
        rationale: Option<Bound<'_, PyAny>>,
        confidence: Option<Bound<'_, PyAny>>,
        source_path: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let name = args::text(name, "name")?;
        let mut patch = EntryPatch::new();
        if let Some(status) = opt_parsed(py, status.as_ref(), "status", str::parse::<EntryStatus>)?
        {
            patch = patch.status(status);
        }
        if let Some(tags) = args::opt_texts(tags.as_ref(), "tags")? {
            patch = patch.tags(tags);
        }
        if let Some(summary) = args::opt_text(summary.as_ref(), "summary")? {
            patch = patch.summary(summary);
        }
        if let Some(body) = args::opt_text(body.as_ref(), "body")? {
            patch = patch.body(body);
        }
        if let Some(rationale) = args::opt_text(rationale.as_ref(), "rationale")? {
            patch = patch.rationale(rationale);
        }
        if let Some(confidence) = opt_confidence(confidence.as_ref())? {
            patch = patch.confidence(confidence);
        }
        if let Some(source_path) = args::opt_text(source_path.as_ref(), "source_path")? {
            patch = patch.source_path(source_path);
        }
        let entry = detached(py, || self.inner.update(&name, patch))?;
        plain(py, &entry)
    }

    /// Entries found from the ``_index.md`` files alone, best first, as ``HitDict``
    /// values: accepted before experimental (deprecated and superseded only with
    /// ``history=True``), more shared ``tags`` first, then the most recent. ``namespaces``
    /// defaults to every namespace but ``session.current``; ``text`` matches the summary
    /// and tags (case-insensitive); at most ``limit`` hits. ``query_answer`` also returns
    /// what was left out.
    #[pyo3(
        signature = (*, namespaces = None, category = None, tags = None, text = None,
                     history = None, limit = None),
        text_signature = "($self, *, namespaces=(), category=None, tags=(), text=None, \
                          history=False, limit=5)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        py: Python<'_>,
        namespaces: Option<Bound<'_, PyAny>>,
        category: Option<Bound<'_, PyAny>>,
        tags: Option<Bound<'_, PyAny>>,
        text: Option<Bound<'_, PyAny>>,
        history: Option<Bound<'_, PyAny>>,
        limit: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let query = query_of(py, [namespaces, category, tags, text, history, limit])?;
        let hits = detached(py, || self.inner.query(&query))?;
        plain(py, &hits)
    }

    /// ``query`` (same arguments) with what it could not read, as a
    /// ``QueryAnswerDict``: ``hits`` and ``warnings`` (``WarningRecordDict`` values naming
    /// the file and line). A namespace whose ``_index.md`` is a symbolic link is left out
    /// of a query that does not name it, with a warning naming the link (a query naming
    /// it raises InvalidInputError); a hit whose file does not read keeps None in its
    /// file-only fields, with a warning.
    #[pyo3(
        signature = (*, namespaces = None, category = None, tags = None, text = None,
                     history = None, limit = None),
        text_signature = "($self, *, namespaces=(), category=None, tags=(), text=None, \
                          history=False, limit=5)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn query_answer(
        &self,
        py: Python<'_>,
        namespaces: Option<Bound<'_, PyAny>>,
        category: Option<Bound<'_, PyAny>>,
        tags: Option<Bound<'_, PyAny>>,
        text: Option<Bound<'_, PyAny>>,
        history: Option<Bound<'_, PyAny>>,
        limit: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let query = query_of(py, [namespaces, category, tags, text, history, limit])?;
        let answer = detached(py, || self.inner.query_answer(&query))?;
        plain(py, &answer)
    }

    /// Writes a new entry that supersedes ``old`` (same arguments as ``write``) and marks
    /// ``old`` ``superseded``, as one step; returns a ``SupersededDict`` (``new``, ``old``,
    /// and ``write``'s ``namespace_entries``, ``over_threshold``, ``body``).
    #[pyo3(
        signature = (old, namespace, category, tags, body, *, status = None, summary = None,
                     slug = None, rationale = None, confidence = None, source_path = None,
                     supersedes = None, related = None, diagram = None, force_new = None),
        text_signature = "($self, old, namespace, category, tags, body, *, status=None, \
                          summary=None, slug=None, rationale=None, confidence=None, \
                          source_path=None, supersedes=(), related=(), diagram=None, \
                          force_new=False)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn supersede(
        &self,
        py: Python<'_>,
        old: &Bound<'_, PyAny>,
        namespace: &Bound<'_, PyAny>,
        category: &Bound<'_, PyAny>,
        tags: &Bound<'_, PyAny>,
        body: &Bound<'_, PyAny>,
        status: Option<Bound<'_, PyAny>>,
        summary: Option<Bound<'_, PyAny>>,
        slug: Option<Bound<'_, PyAny>>,
        rationale: Option<Bound<'_, PyAny>>,
        confidence: Option<Bound<'_, PyAny>>,
        source_path: Option<Bound<'_, PyAny>>,
        supersedes: Option<Bound<'_, PyAny>>,
        related: Option<Bound<'_, PyAny>>,
        diagram: Option<Bound<'_, PyAny>>,
        force_new: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let old = args::text(old, "old")?;
        let entry = new_entry(
            py,
            namespace,
            category,
            tags,
            body,
            EntryArgs {
                status: status.as_ref(),
                summary: summary.as_ref(),
                slug: slug.as_ref(),
                rationale: rationale.as_ref(),
                confidence: confidence.as_ref(),
                source_path: source_path.as_ref(),
                supersedes: supersedes.as_ref(),
                related: related.as_ref(),
                diagram: diagram.as_ref(),
                force_new: force_new.as_ref(),
            },
        )?;
        let done = detached(py, || self.inner.supersede(&old, entry))?;
        plain(py, &done)
    }

    /// Promotes an ``experimental`` entry to ``accepted`` in place; returns its
    /// ``EntryDict``.
    fn promote(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let name = args::text(name, "name")?;
        let entry = detached(py, || self.inner.promote(&name))?;
        plain(py, &entry)
    }

    /// Promotes entry ``name`` to ``namespace`` (a wider one, such as a session entry to
    /// its project): a copy there supersedes it; returns a ``SupersededDict``.
    fn promote_to(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        namespace: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let name = args::text(name, "name")?;
        let target = args::text(namespace, "namespace")?;
        let done = detached(py, || self.inner.promote_to(&name, &target))?;
        plain(py, &done)
    }

    /// How ``namespace``'s ``_index.md`` disagrees with its files, writing nothing: a
    /// ``DriftReportDict``. Files not named like entities (``README.md``) are listed in
    /// ``foreign``, not as drift.
    fn verify(&self, py: Python<'_>, namespace: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let report = detached(py, || self.inner.verify(&namespace))?;
        plain(py, &report)
    }

    /// Rebuilds ``namespace``'s ``_index.md`` from its files (under the lock); files that
    /// do not read are reported and left alone, foreign files (``README.md``) listed and
    /// never read. Returns a ``HealReportDict``.
    fn heal(&self, py: Python<'_>, namespace: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let report = detached(py, || self.inner.heal(&namespace))?;
        plain(py, &report)
    }

    /// Every namespace under the root that has an index or an entity file, in name order,
    /// as ``NamespaceInfoDict`` values.
    fn namespaces(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let infos = detached(py, || self.inner.namespaces())?;
        plain(py, &infos)
    }

    /// Splits project ``namespace`` into domains as one step: by tag when ``mapping`` is
    /// None, else each entry named in ``mapping`` (entity name to domain segment) moves
    /// there. Returns a ``SplitReportDict``.
    #[pyo3(signature = (namespace, mapping = None))]
    fn split(
        &self,
        py: Python<'_>,
        namespace: &Bound<'_, PyAny>,
        mapping: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let pairs = pairs(mapping.as_ref(), "mapping")?;
        let plan = if mapping.as_ref().is_none_or(|m| m.is_none()) {
            SplitPlan::by_tag()
        } else {
            SplitPlan::mapping(pairs).map_err(|e| to_py_err(py, e))?
        };
        let report = detached(py, || self.inner.split(&namespace, &plan))?;
        plain(py, &report)
    }

    /// Ends the session: each entry of ``promote`` (a ``session.current`` entity name
    /// mapped to the namespace it goes to) becomes a new entry there superseding it, then
    /// every ``session.current`` entry is moved to ``archive/session-<time>/``, in one
    /// step. Returns an ``EndSessionDict``.
    #[pyo3(signature = (promote = None), text_signature = "($self, promote={})")]
    fn end_session(
        &self,
        py: Python<'_>,
        promote: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let pairs = pairs(promote.as_ref(), "promote")?;
        let report = detached(py, || self.inner.end_session(&pairs))?;
        plain(py, &report)
    }

    /// The changes the git hooks recorded in ``namespace``'s ``_pending_refresh.md``, each
    /// with the entries whose ``source_path`` cites the file, as ``PendingMatchDict``
    /// values.
    fn pending_refresh(&self, py: Python<'_>, namespace: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let pending = detached(py, || self.inner.pending_refresh(&namespace))?;
        plain(py, &pending)
    }

    /// ``pending_refresh`` with the lines of ``_pending_refresh.md`` the reader did not
    /// understand (a hand-written note, a malformed heading), as a ``PendingReportDict``:
    /// ``matches`` lists every ``- path`` line of every section, ``warnings`` names the
    /// file and line of each other line (left in the file as it is).
    fn pending_refresh_report(
        &self,
        py: Python<'_>,
        namespace: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let report = detached(py, || self.inner.pending_refresh_report(&namespace))?;
        plain(py, &report)
    }

    /// Records the files the last merge or checkout changed in the git repository
    /// ``repo`` (any directory of its work tree) in its project namespace's
    /// ``_pending_refresh.md`` (what the installed hooks run), and returns a
    /// ``RecordOutcomeDict``. Only ``main`` and ``master`` record; on another branch, a
    /// detached HEAD, a first checkout or an empty diff nothing is written and
    /// ``skipped`` says why. ``trigger`` is ``"post-merge"``, ``"post-checkout"`` or
    /// ``"manual"``. InvalidInputError when ``repo`` is not in a git work tree.
    #[pyo3(signature = (repo, trigger = None), text_signature = "($self, repo, trigger='manual')")]
    fn record_changes(
        &self,
        py: Python<'_>,
        repo: &Bound<'_, PyAny>,
        trigger: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let repo = args::path(repo, "repo")?;
        let trigger = match args::opt_text(trigger.as_ref(), "trigger")? {
            None => RefreshTrigger::Manual,
            Some(name) => RefreshTrigger::parse(&name).ok_or_else(|| {
                crate::errors::invalid(
                    py,
                    "trigger",
                    name.clone(),
                    "must be post-merge, post-checkout or manual",
                )
            })?,
        };
        let outcome = detached(py, || self.inner.record_changes(&repo, trigger))?;
        plain(py, &outcome)
    }

    /// Clears the repository paths ``done`` (reviewed) from ``namespace``'s
    /// ``_pending_refresh.md``, under the lock, and returns a ``ClearReportDict``: the
    /// paths cleared, those that were not pending, how many listings remain, and whether
    /// the file was removed (it goes with its last path). MalformedFileError when the
    /// file does not read (it is left as it is).
    fn clear_refresh(
        &self,
        py: Python<'_>,
        namespace: &Bound<'_, PyAny>,
        done: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let namespace = self::namespace(py, namespace)?;
        let done = args::texts(done, "done")?;
        let report = detached(py, || self.inner.clear_refresh(&namespace, &done))?;
        plain(py, &report)
    }

    /// Migrates the memory kept in the directory ``source`` (the seed's "Migration from
    /// Previous System"): copies it verbatim to ``archive/migrated-<UTC time>/`` under the
    /// root first, then imports every entity file found in it into its namespace with
    /// the indexes updated, in one step. Returns a ``MigrationReportDict``; a file that
    /// could not be imported is listed in ``not_imported`` with the reason. ``source`` is
    /// only read. InvalidInputError when it is not a directory or overlaps the root.
    fn migrate(&self, py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let source = args::path(source, "source")?;
        let report = detached(py, || self.inner.migrate(&source))?;
        plain(py, &report)
    }

    /// Installs the ``post-merge`` and ``post-checkout`` hooks in the git repository
    /// ``repo`` (where ``git rev-parse --git-path hooks`` points: worktrees and
    /// ``core.hooksPath`` included) and returns a ``HooksReportDict``. A hook already
    /// there is kept byte-identical in ``memcore-chained/`` and run first by ours;
    /// installing again changes nothing. The hooks call the ``memcore`` executable at
    /// ``memcore``; None means the ``memcore`` found on ``PATH`` now (as
    /// ``shutil.which("memcore")``, relative ``PATH`` entries skipped), and
    /// InvalidInputError when there is none. They record into the memory root ``root``
    /// (made absolute and written into the scripts); None means the default root of the
    /// ``memcore`` they run (``$MEMCORE_CONTEXT_ROOT``, else ``~/.cursor/memory``) when
    /// git runs them. A hook already there that is not executable is kept but, as git
    /// does, never run. ConflictError when a hook is already kept.
    #[staticmethod]
    #[pyo3(signature = (repo, memcore = None, root = None))]
    fn install_hooks(
        py: Python<'_>,
        repo: &Bound<'_, PyAny>,
        memcore: Option<Bound<'_, PyAny>>,
        root: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let repo = args::path(repo, "repo")?;
        let memcore = match memcore.as_ref().filter(|m| !m.is_none()) {
            Some(path) => Some(args::path(path, "memcore")?),
            None => None,
        };
        let root = match root.as_ref().filter(|r| !r.is_none()) {
            Some(path) => Some(args::path(path, "root")?),
            None => None,
        };
        let report = detached(py, || {
            let memcore = match memcore {
                Some(path) => path,
                None => core::find_memcore()?,
            };
            core::install_hooks(&repo, &memcore, root.as_deref())
        })?;
        plain(py, &report)
    }

    /// Removes the hooks ``install_hooks`` wrote from the git repository ``repo``,
    /// putting back byte-identical the hooks that were there before; returns a
    /// ``HooksReportDict``. A hook that is not ours with nothing kept aside (the user's,
    /// as after a first uninstall) is left alone and reported ``absent``: uninstalling
    /// twice is a no-op. ConflictError (nothing changed) when a hook that is not
    /// memory-core's replaced ours over a kept one.
    #[staticmethod]
    fn uninstall_hooks(py: Python<'_>, repo: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let repo = args::path(repo, "repo")?;
        let report = detached(py, || core::uninstall_hooks(&repo))?;
        plain(py, &report)
    }

    /// The project namespace (``project.<name>``) of the git repository ``repo``: the
    /// last segment of ``git remote get-url origin`` without ``.git``, else the work
    /// tree's folder name, lowercased and made a namespace segment.
    /// InvalidInputError when ``repo`` is not in a git work tree.
    #[staticmethod]
    fn project_namespace(py: Python<'_>, repo: &Bound<'_, PyAny>) -> PyResult<String> {
        let repo = args::path(repo, "repo")?;
        let namespace = detached(py, || core::project_namespace(&repo))?;
        Ok(namespace.as_str().to_string())
    }

    /// The seed's root, ``~/.cursor/memory`` (from ``$HOME``, else ``%USERPROFILE%``),
    /// as a ``pathlib.Path``; None when the home directory is not known. It is not
    /// created. (``memcore`` reads ``$MEMCORE_CONTEXT_ROOT`` before it.)
    #[staticmethod]
    fn default_root() -> Option<std::path::PathBuf> {
        Core::default_root()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("ContextMemory({})", slf.getattr("root")?.repr()?))
    }

    /// Pickle and copy: the same root and options.
    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("lock_timeout", self.lock_timeout)?;
        kwargs.set_item("fixed_time", self.fixed_time.as_deref())?;
        let args = PyTuple::new(py, [self.inner.root()])?;
        PyTuple::new(py, [args.into_any(), kwargs.into_any()])
    }
}
