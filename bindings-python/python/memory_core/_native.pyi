"""Type stubs of memory_core._native, the Rust extension behind ``memory_core``.

Conventions:

* Session ids, agent names and statuses are plain ``str``. A row's ``status`` is one of
  ``"idle"``, ``"active"``, ``"stale"``; an item's ``mark`` is ``"superseded"``,
  ``"resolved"``, ``"done"`` or ``None``.
* Timestamps (``started_at``, ``updated_at``) are the text exactly as written in the
  file, normally ISO 8601 with offset (``2026-05-25T13:18:00+08:00``); hand-written forms
  such as ``2026-05-25 13:18`` are kept as they are. ``datetime.fromisoformat`` reads both.
* Paths are returned as ``pathlib.Path``; ``to_dict()`` gives them as ``str`` so that its
  result is plain builtins that ``json.dumps`` accepts.
* Result classes are immutable, compare by value and are hashable; list attributes return
  a fresh list on every access.
* List arguments take any sequence of ``str`` (list, tuple, ...) except a bare ``str``,
  which is refused rather than being split into characters. An argument of the wrong
  type raises InvalidInputError naming the parameter (``session_id: expected a str,
  got int 5``), never a bare TypeError.
* Results and handles pickle and copy (``multiprocessing`` workers can return rows); so
  do the exceptions, with their fields.
* ``to_dict()`` returns the ``TypedDict`` of its class (``SessionRowDict``, ...), all
  importable from ``memory_core`` with the ``Literal`` aliases (``StatusLiteral``, ...).
* Every method that touches files releases the GIL while the core works, so other Python
  threads run while one waits for the memory lock.
"""

import datetime
import os
import pathlib
from collections.abc import Mapping, Sequence
from typing import Final, Literal, final

from memory_core._structured_types import (
    BudgetsDict,
    CompactionReportDict,
    MemoryIndexDict,
    RecallAnswerDict,
    RecallHitDict,
    RememberOutcomeDict,
    RestoreReportDict,
    SessionIndexDict,
    TopicDict,
    ViolationDict,
)
from memory_core._context_types import (
    CategoryLiteral,
    ClearReportDict,
    DiagramDict,
    DriftReportDict,
    EndSessionDict,
    EntryDict,
    EntryStatusLiteral,
    HealReportDict,
    HitDict,
    HooksReportDict,
    MigrationReportDict,
    NamespaceInfoDict,
    PendingMatchDict,
    PendingReportDict,
    QueryAnswerDict,
    RecordOutcomeDict,
    RefreshTriggerLiteral,
    SplitReportDict,
    SupersededDict,
    WriteOutcomeDict,
)
from memory_core._types import (
    ArchiveKindLiteral,
    ArchiveOutcomeDict,
    ContinueOutcomeDict,
    ErrorCodeLiteral,
    ErrorKindLiteral,
    MarkLiteral,
    OrganizeReportDict,
    OtherSectionDict,
    ReleaseOutcomeDict,
    SessionRowDict,
    SessionStartDict,
    SnapshotDict,
    SnapshotItemDict,
    StatusLiteral,
    WarningRecordDict,
)

__all__ = [
    "__version__",
    "NEAR_DUPLICATE_SIMILARITY",
    "AgentMemory",
    "ContextMemory",
    "StructuredMemory",
    "SessionRow",
    "Snapshot",
    "SnapshotItem",
    "OtherSection",
    "OrganizeReport",
    "ArchiveOutcome",
    "ContinueOutcome",
    "ReleaseOutcome",
    "SessionStart",
    "WarningRecord",
    "MemoryCoreWarning",
    "MemoryCoreError",
    "InvalidInputError",
    "NotFoundError",
    "ConflictError",
    "MalformedFileError",
    "LockTimeoutError",
    "MemoryIOError",
    "MemoryFileNotFoundError",
    "MemoryPermissionError",
    "MemoryIsADirectoryError",
    "MemoryNotADirectoryError",
    "MemoryFileExistsError",
    "AbortedError",
    "_restore",
    "_restore_error",
]

__version__: str

NEAR_DUPLICATE_SIMILARITY: Final[float]
"""How similar two ``MEMORY.md`` lines' words must be for ``StructuredMemory.check()`` to
report them as ``near_duplicate_topics``: the words they share over all the words either
has, for lines whose titles share a word (README "Formats"). The core's constant, 0.75."""

def _restore(cls: str, state: tuple[object, ...], /) -> object:
    """Rebuilds a pickled result (what each result class's ``__reduce__`` names); a state
    ``__reduce__`` cannot have written is an InvalidInputError."""

def _restore_error(cls: type[BaseException], message: str, state: dict[str, object], /) -> BaseException:
    """Rebuilds a pickled memory-core exception (what ``__reduce__`` names)."""


@final
class AgentMemory:
    """A memory root (the ``memory/`` directory) following the Agent Memory protocol.

    Every write holds the root's cross-process lock (``<root>/.memcore.lock``), re-reads
    under it, changes only its own rows, replaces files atomically and reads them back
    before returning. Nothing is created until the first write. A relative ``root`` is
    made absolute when the handle is opened (a later ``os.chdir`` does not move it); ``~``
    is not expanded, as with ``open()``. Handles pickle and copy (by root and options).

    ``AgentMemory(root, *, lock_timeout=None, fixed_time=None)`` opens ``root`` (a ``str``
    or ``os.PathLike``). ``lock_timeout`` (seconds, default 10) bounds the wait for the
    lock; Ctrl-C interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an RFC 3339
    string such as ``"2026-05-25T13:18:00+08:00"``, or an aware ``datetime``) stops this
    handle's clock at that time, for tests and reproducible runs; by default the system
    clock in the local time zone is used. Every finite ``lock_timeout`` of at least 0 is
    accepted; one beyond about 584 billion years (what the wait can count) waits that
    long, which in practice never times out. InvalidInputError for a negative or
    non-finite ``lock_timeout``, a ``fixed_time`` without offset, an argument of the
    wrong type, or a ``root`` that exists but is not a directory."""

    def __new__(
        cls,
        root: str | os.PathLike[str],
        *,
        lock_timeout: float | None = None,
        fixed_time: str | datetime.datetime | None = None,
    ) -> AgentMemory: ...
    def __getnewargs_ex__(self) -> tuple[tuple[pathlib.Path], dict[str, float | str | None]]: ...

    @property
    def root(self) -> pathlib.Path:
        """The memory root directory (absolute)."""

    @property
    def index_path(self) -> pathlib.Path:
        """``<root>/index.md``."""

    def session_path(self, session_id: str) -> pathlib.Path:
        """``<root>/sessions/<id>.md`` (it may not exist). InvalidInputError for a bad id."""

    def archive_dir(self, session_id: str) -> pathlib.Path:
        """``<root>/archive/<id>/`` (it may not exist). InvalidInputError for a bad id."""

    def register_session_start(self, agent_name: str) -> str:
        """SessionStart registration: appends an ``idle`` row (topic ``未設定``) and returns
        the new Memory Session ID once the row was read back. Creates no snapshot. Rows of
        other sessions it cannot read do not stop it: they stay byte-identical and each is
        emitted as a ``MemoryCoreWarning`` (``warnings`` module) naming the file and line;
        ``register_session_start_with_warnings()`` returns them instead."""

    def register_session_start_with_warnings(self, agent_name: str) -> SessionStart:
        """SessionStart registration that returns, besides the new session id, the rows of
        other sessions it could not read (a bad status, timestamp, id or cell count, a
        duplicate id) as ``WarningRecord`` values naming the file and line; those rows stay
        byte-identical and nothing is emitted through ``warnings``. Problems with the table
        itself (no readable header, rows cut off from the table) still raise
        MalformedFileError."""

    def register_manual(
        self,
        agent_name: str,
        topic: str,
        summary: str,
        *,
        keywords: Sequence[str] | None = None,
        context: str | None = None,
        decisions: Sequence[str] = (),
        files: Sequence[str] = (),
        open_questions: Sequence[str] = (),
        next_actions: Sequence[str] = (),
        continues_from: Sequence[str] = (),
    ) -> str:
        """Manual registration: writes ``sessions/<id>.md`` from the template, appends an
        ``active`` row, adds the id to the ``referenced_by`` of every ``continues_from``
        source, verifies all of it and returns the new id. ``keywords=None`` uses the
        protocol's manual-registration defaults; ``context`` defaults to the summary."""

    def update(
        self,
        session_id: str,
        *,
        topic: str | None = None,
        summary: str | None = None,
        keywords: Sequence[str] | None = None,
        context: str | None = None,
        decisions: Sequence[str] = (),
        files: Sequence[str] = (),
        open_questions: Sequence[str] = (),
        next_actions: Sequence[str] = (),
        supersede: Sequence[str] = (),
        resolve: Sequence[str] = (),
        done: Sequence[str] = (),
    ) -> SessionRow:
        """A status update, merged by the Snapshot Merge Policy: ``None`` leaves a field as
        it is, list items are added (never replacing), ``context`` is appended to Current
        Context, and ``supersede``/``resolve``/``done`` mark existing decisions, questions
        and actions (matched exactly, else by unique substring; NotFoundError when none
        matches, InvalidInputError when several do) instead of deleting them. Promotes the
        session to ``active`` and returns its row as written."""

    def continue_from(self, current: str, source: str) -> ContinueOutcome:
        """Records that ``current`` continues work from ``source``: ``Continues From`` of
        the current snapshot and ``referenced_by`` of the source row, both verified."""

    def release(self, current: str, source: str) -> ReleaseOutcome:
        """Releases the reference of ``current`` on ``source`` on both sides. A link that
        is already gone is not an error; the outcome tells which side changed."""

    def organize(self, *, stale_after_days: int = 14, dry_run: bool = False) -> OrganizeReport:
        """Organize Memory: deletes unreferenced ``idle`` rows and marks unreferenced
        ``active`` rows older than ``stale_after_days`` ``stale``; referenced rows are
        protected. Temp files left by memory-core writers that died mid-write are removed;
        snapshots without a row, other programs' leftovers and snapshots that cannot be
        read are reported, never deleted. ``dry_run=True`` only reports. ConflictError when
        an idle row has a snapshot file."""

    def archive(self, session_id: str) -> ArchiveOutcome:
        """Archives one session into ``archive/<id>/`` and removes its row, or deletes an
        idle placeholder without snapshot. ConflictError while another session references
        it, or when its row has a real summary but no snapshot."""

    def sessions(self) -> list[SessionRow]:
        """Every row, in reading order: meaningful active/stale rows first, then other
        active/stale rows, then idle ones; most recently updated first in each group."""

    def sessions_with_status(self, status: StatusLiteral) -> list[SessionRow]:
        """The rows with ``status``, in reading order. InvalidInputError for another string."""

    def session(self, session_id: str) -> SessionRow:
        """The row of ``session_id``; NotFoundError when the index has none."""

    def snapshot(self, session_id: str) -> Snapshot | None:
        """The parsed ``sessions/<id>.md``, or None when the session has no snapshot file."""

    def find(self, query: str) -> list[SessionRow]:
        """Rows whose id, agent name, topic, summary or keywords contain ``query``
        (case-insensitive), in reading order."""

@final
class ContextMemory:
    """A context-memory root (``~/.cursor/memory`` in the seed): one directory per namespace
    (``org.global`` is ``org/global/``, ``project.app.api`` is ``projects/app/api/``), one
    Markdown entity file with YAML frontmatter per fact, and an ``_index.md`` table per
    directory that queries read.

    Every write holds the root's cross-process lock (``<root>/.memcore.lock``, shared with
    every model, language and the ``memcore`` command line), changes the entity file and
    its index row as one step and reads both back. Results are plain ``dict``/``list``
    values with the keys ``memcore context --json`` prints (``EntryDict``, ``HitDict``, ...,
    importable from ``memory_core``); names and namespaces are ``str``, paths are ``str``
    relative to the root. Errors: ConflictError for a similar entry (``session_id`` is the
    existing entry's name; ``force_new=True`` writes anyway), NotFoundError for an unknown
    entity (``session_id`` is its name), InvalidInputError for a refused value (a secret
    sets ``field`` and ``secret_kind``).

    ``ContextMemory(root, *, lock_timeout=None, fixed_time=None)`` opens ``root`` (a
    ``str`` or ``os.PathLike``, made absolute now; nothing is created until the first
    write). ``lock_timeout`` (seconds, default 10) bounds the wait for the lock; Ctrl-C
    interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an RFC 3339 string such as
    ``"2026-04-03T10:00:00Z"``, or an aware ``datetime``) stops this handle's clock, for
    tests and reproducible runs. Handles pickle and copy (by root and options)."""
    def __new__(
        cls,
        root: str | os.PathLike[str],
        *,
        lock_timeout: float | None = None,
        fixed_time: str | datetime.datetime | None = None,
    ) -> ContextMemory: ...
    def __getnewargs_ex__(self) -> tuple[tuple[pathlib.Path], dict[str, float | str | None]]: ...

    @property
    def root(self) -> pathlib.Path:
        """The root directory (absolute)."""

    def namespace_dir(self, namespace: str) -> pathlib.Path:
        """The directory of ``namespace`` (it may not exist). InvalidInputError for a bad
        namespace."""

    def write(
        self,
        namespace: str,
        category: CategoryLiteral,
        tags: Sequence[str],
        body: str,
        *,
        status: EntryStatusLiteral | None = None,
        summary: str | None = None,
        slug: str | None = None,
        rationale: str | None = None,
        confidence: float | None = None,
        source_path: str | None = None,
        supersedes: Sequence[str] = (),
        related: Sequence[str] = (),
        diagram: DiagramDict | Mapping[str, str] | None = None,
        force_new: bool = False,
    ) -> WriteOutcomeDict:
        """Writes a new entry and returns a ``WriteOutcomeDict``: the entry as written and read
        back, the namespace's entry count, whether it is over the split threshold, and the
        body check's flags. ``category`` is one of the seed's categories (``decision``,
        ``constraint``, ...), ``tags`` at least two; ``status`` defaults to ``accepted``,
        ``summary`` to the body's first sentence. A ``diagram`` entry takes
        ``diagram={"diagram_type": ..., "subject": ..., "code": ...}`` (``language``
        defaults to ``mermaid``). ConflictError when an entry of the same category has a
        similar summary (its name in ``session_id``), unless ``force_new=True``."""

    def get(self, name: str) -> EntryDict:
        """The entry ``name`` (``org.global.decision.001``) as its file says, as an
        ``EntryDict``. NotFoundError when its namespace's index has no such entry (the
        message names where a split moved it)."""

    def update(
        self,
        name: str,
        *,
        status: EntryStatusLiteral | None = None,
        tags: Sequence[str] | None = None,
        summary: str | None = None,
        body: str | None = None,
        rationale: str | None = None,
        confidence: float | None = None,
        source_path: str | None = None,
    ) -> EntryDict:
        """Changes the given fields of entry ``name`` (None leaves a field as it is; ``tags``
        replaces the tags) in its file and index row, sets ``updated_at``, and returns the
        entry as an ``EntryDict``. Comments, unknown keys and quoting in the file stay."""

    def query(
        self,
        *,
        namespaces: Sequence[str] = (),
        category: CategoryLiteral | None = None,
        tags: Sequence[str] = (),
        text: str | None = None,
        history: bool = False,
        limit: int = 5,
    ) -> list[HitDict]:
        """Entries found from the ``_index.md`` files alone, best first, as ``HitDict``
        values: accepted before experimental (deprecated and superseded only with
        ``history=True``), more shared ``tags`` first, then the most recent. ``namespaces``
        defaults to every namespace but ``session.current``; ``text`` matches the summary
        and tags (case-insensitive); at most ``limit`` hits. ``query_answer`` also returns
        what was left out."""

    def query_answer(
        self,
        *,
        namespaces: Sequence[str] = (),
        category: CategoryLiteral | None = None,
        tags: Sequence[str] = (),
        text: str | None = None,
        history: bool = False,
        limit: int = 5,
    ) -> QueryAnswerDict:
        """``query`` (same arguments) with what it could not read, as a
        ``QueryAnswerDict``: ``hits`` and ``warnings`` (``WarningRecordDict`` values naming
        the file and line). A namespace whose ``_index.md`` is a symbolic link is left out
        of a query that does not name it, with a warning naming the link (a query naming
        it raises InvalidInputError); a hit whose file does not read keeps None in its
        file-only fields, with a warning."""

    def supersede(
        self,
        old: str,
        namespace: str,
        category: CategoryLiteral,
        tags: Sequence[str],
        body: str,
        *,
        status: EntryStatusLiteral | None = None,
        summary: str | None = None,
        slug: str | None = None,
        rationale: str | None = None,
        confidence: float | None = None,
        source_path: str | None = None,
        supersedes: Sequence[str] = (),
        related: Sequence[str] = (),
        diagram: DiagramDict | Mapping[str, str] | None = None,
        force_new: bool = False,
    ) -> SupersededDict:
        """Writes a new entry that supersedes ``old`` (same arguments as ``write``) and marks
        ``old`` ``superseded``, as one step; returns a ``SupersededDict`` (``new``, ``old``,
        and ``write``'s ``namespace_entries``, ``over_threshold``, ``body``)."""

    def promote(self, name: str) -> EntryDict:
        """Promotes an ``experimental`` entry to ``accepted`` in place; returns its
        ``EntryDict``."""

    def promote_to(self, name: str, namespace: str) -> SupersededDict:
        """Promotes entry ``name`` to ``namespace`` (a wider one, such as a session entry to
        its project): a copy there supersedes it; returns a ``SupersededDict``."""

    def verify(self, namespace: str) -> DriftReportDict:
        """How ``namespace``'s ``_index.md`` disagrees with its files, writing nothing: a
        ``DriftReportDict``. Files not named like entities (``README.md``) are listed in
        ``foreign``, not as drift."""

    def heal(self, namespace: str) -> HealReportDict:
        """Rebuilds ``namespace``'s ``_index.md`` from its files (under the lock); files that
        do not read are reported and left alone, foreign files (``README.md``) listed and
        never read. Returns a ``HealReportDict``."""

    def namespaces(self) -> list[NamespaceInfoDict]:
        """Every namespace under the root that has an index or an entity file, in name order,
        as ``NamespaceInfoDict`` values."""

    def split(self, namespace: str, mapping: Mapping[str, str] | None = None) -> SplitReportDict:
        """Splits project ``namespace`` into domains as one step: by tag when ``mapping`` is
        None, else each entry named in ``mapping`` (entity name to domain segment) moves
        there. Returns a ``SplitReportDict``."""

    def end_session(self, promote: Mapping[str, str] = {}) -> EndSessionDict:
        """Ends the session: each entry of ``promote`` (a ``session.current`` entity name
        mapped to the namespace it goes to) becomes a new entry there superseding it, then
        every ``session.current`` entry is moved to ``archive/session-<time>/``, in one
        step. Returns an ``EndSessionDict``."""

    def pending_refresh(self, namespace: str) -> list[PendingMatchDict]:
        """The changes the git hooks recorded in ``namespace``'s ``_pending_refresh.md``, each
        with the entries whose ``source_path`` cites the file, as ``PendingMatchDict``
        values."""

    def pending_refresh_report(self, namespace: str) -> PendingReportDict:
        """``pending_refresh`` with the lines of ``_pending_refresh.md`` the reader did not
        understand (a hand-written note, a malformed heading), as a ``PendingReportDict``:
        ``matches`` lists every ``- path`` line of every section, ``warnings`` names the
        file and line of each other line (left in the file as it is)."""

    def record_changes(
        self, repo: str | os.PathLike[str], trigger: RefreshTriggerLiteral = "manual"
    ) -> RecordOutcomeDict:
        """Records the files the last merge or checkout changed in the git repository
        ``repo`` (any directory of its work tree) in its project namespace's
        ``_pending_refresh.md`` (what the installed hooks run), and returns a
        ``RecordOutcomeDict``. Only ``main`` and ``master`` record; on another branch, a
        detached HEAD, a first checkout or an empty diff nothing is written and
        ``skipped`` says why. ``trigger`` is ``"post-merge"``, ``"post-checkout"`` or
        ``"manual"``. InvalidInputError when ``repo`` is not in a git work tree."""

    def clear_refresh(self, namespace: str, done: Sequence[str]) -> ClearReportDict:
        """Clears the repository paths ``done`` (reviewed) from ``namespace``'s
        ``_pending_refresh.md``, under the lock, and returns a ``ClearReportDict``: the
        paths cleared, those that were not pending, how many listings remain, and whether
        the file was removed (it goes with its last path). MalformedFileError when the
        file does not read (it is left as it is)."""

    def migrate(self, source: str | os.PathLike[str]) -> MigrationReportDict:
        """Migrates the memory kept in the directory ``source`` (the seed's "Migration from
        Previous System"): copies it verbatim to ``archive/migrated-<UTC time>/`` under the
        root first, then imports every entity file found in it into its namespace with
        the indexes updated, in one step. Returns a ``MigrationReportDict``; a file that
        could not be imported is listed in ``not_imported`` with the reason. ``source`` is
        only read. InvalidInputError when it is not a directory or overlaps the root."""

    @staticmethod
    def install_hooks(
        repo: str | os.PathLike[str],
        memcore: str | os.PathLike[str] | None = None,
        root: str | os.PathLike[str] | None = None,
    ) -> HooksReportDict:
        """Installs the ``post-merge`` and ``post-checkout`` hooks in the git repository
        ``repo`` (where ``git rev-parse --git-path hooks`` points: worktrees and
        ``core.hooksPath`` included) and returns a ``HooksReportDict``. A hook already
        there is kept byte-identical in ``memcore-chained/`` and run first by ours;
        installing again changes nothing. The hooks call the ``memcore`` executable at
        ``memcore``; None means the ``memcore`` found on ``PATH`` now (as
        ``shutil.which("memcore")``, relative ``PATH`` entries skipped), and
        InvalidInputError when there is none. They record into the memory root ``root``
        (made absolute and written into the scripts); None means the default root of the
        ``memcore`` they run (``$MEMCORE_CONTEXT_ROOT``, else ``~/.cursor/memory``) when
        git runs them. A hook already there that is not executable is kept but, as git
        does, never run. ConflictError when a hook is already kept."""

    @staticmethod
    def uninstall_hooks(repo: str | os.PathLike[str]) -> HooksReportDict:
        """Removes the hooks ``install_hooks`` wrote from the git repository ``repo``,
        putting back byte-identical the hooks that were there before; returns a
        ``HooksReportDict``. A hook that is not ours with nothing kept aside (the user's,
        as after a first uninstall) is left alone and reported ``absent``: uninstalling
        twice is a no-op. ConflictError (nothing changed) when a hook that is not
        memory-core's replaced ours over a kept one."""

    @staticmethod
    def project_namespace(repo: str | os.PathLike[str]) -> str:
        """The project namespace (``project.<name>``) of the git repository ``repo``: the
        last segment of ``git remote get-url origin`` without ``.git``, else the work
        tree's folder name, lowercased and made a namespace segment.
        InvalidInputError when ``repo`` is not in a git work tree."""

    @staticmethod
    def default_root() -> pathlib.Path | None:
        """The seed's root, ``~/.cursor/memory`` (from ``$HOME``, else ``%USERPROFILE%``),
        as a ``pathlib.Path``; None when the home directory is not known. It is not
        created. (``memcore`` reads ``$MEMCORE_CONTEXT_ROOT`` before it.)"""

@final
class StructuredMemory:
    """A structured-memory directory (``./memory`` in the seed): ``MEMORY.md``, an
    always-loaded index of one-line pointers (``- [Title](file.md) — hook``), topic files
    of dated entries (``- 2026-07-10 [subject]: text``) loaded on demand, and the
    append-only ``memory-archive.md``. The index is held to ``index_lines`` (60) lines and
    each topic file to ``topic_lines`` (150); a write that takes a topic over its budget
    compacts it, and compaction archives before it rewrites, never truncating.

    Every write holds the directory's cross-process lock (``.memcore.lock``, shared with
    every model, language and the ``memcore`` command line), changes every file it
    touches as one step and reads them back. Results are plain ``dict``/``list`` values
    with the keys ``memcore topics --json`` prints (``MemoryIndexDict``, ``TopicDict``,
    ..., importable from ``memory_core``). Errors: InvalidInputError for a refused value
    (a vague date, a ``misc`` topic, a reserved file; a secret sets ``field`` and
    ``secret_kind``), NotFoundError for a topic file that does not exist, AbortedError for
    a compaction abandoned because the compactor returned something unusable (an
    exception the compactor raises is re-raised itself; the compaction writes nothing
    either way).

    ``StructuredMemory(dir, *, index_lines=60, topic_lines=150, index_bytes=None,
    topic_bytes=None, lock_timeout=None, fixed_time=None)`` opens ``dir`` (a ``str`` or
    ``os.PathLike``, made absolute now; nothing is created until the first write). The
    byte budgets are off unless given. ``lock_timeout`` (seconds, default 10) bounds the
    wait for the lock; Ctrl-C interrupts a wait with KeyboardInterrupt. ``fixed_time`` (an
    RFC 3339 string or an aware ``datetime``) stops this handle's clock: "today" and the
    relative dates a write converts are taken from it. Handles pickle and copy.

    A compactor (``compactor=`` of ``remember`` and ``compact``) is any object with some
    of these methods (a missing one is the default: evict nothing, keep the newest
    generation, summarize nothing, split by ``##`` heading or subject; move a content line
    of ``MEMORY.md`` to the topic whose title and hook clearly match it, merge
    near-duplicate topics), each given the
    topic as a ``TopicDict`` and its readable entries as ``StructuredEntryDict`` values,
    and answering with indexes into that list: ``dead(topic, entries) -> list[int]``,
    ``collapse(topic, subject, generations) -> str | None``, ``summarize(topic, entries)
    -> list[{"entries": [...], "text": ..., "subject": None}]``, ``split(topic, entries)
    -> list[{"file": ..., "title": ..., "hook": ..., "entries": [...]}]``; and for a
    ``MEMORY.md`` over its budget, given the index as a ``MemoryIndexDict``:
    ``route_content(index) -> list[[content_index, topic_file]]`` and
    ``merge_topics(index) -> list[[from_file, into_file]]`` (default: the lines recall
    clearly matches, ``ROUTE_MIN_POINTS`` and ``ROUTE_MARGIN`` in the README; the
    near-duplicates ``check`` reports, each later one into the first).

    A compactor can also be one plain callable (a function or lambda with none of those
    methods), called once per judgment as ``compactor(request)`` where ``request`` is a
    dict with ``"pass"`` (the method's name: ``"dead"``, ``"collapse"``, ``"summarize"``,
    ``"split"``, ``"route_content"``, ``"merge_topics"``) and the method's arguments by
    name (``"topic"`` and ``"entries"``; ``"subject"`` and ``"generations"`` for
    ``collapse``; ``"index"`` for the two index passes). It answers as that method would,
    or None for the default:

    ```text
    def compactor(request):
        if request["pass"] == "dead":
            return [i for i, e in enumerate(request["entries"]) if "retired" in e["text"]]
        return None  # the default for every other pass

    memory.compact("memory-infra.md", compactor=compactor)
    ```"""
    def __new__(
        cls,
        dir: str | os.PathLike[str],
        *,
        index_lines: int = 60,
        topic_lines: int = 150,
        index_bytes: int | None = None,
        topic_bytes: int | None = None,
        lock_timeout: float | None = None,
        fixed_time: str | datetime.datetime | None = None,
    ) -> StructuredMemory: ...
    def __getnewargs_ex__(self) -> tuple[tuple[pathlib.Path], dict[str, int | float | str | None]]: ...
    @property
    def root(self) -> pathlib.Path:
        """The directory (absolute)."""
    @property
    def budgets(self) -> BudgetsDict:
        """The budgets, as a ``BudgetsDict`` (``index_lines``, ``topic_lines``,
        ``index_bytes``, ``topic_bytes``)."""
    def index(self) -> MemoryIndexDict:
        """``MEMORY.md`` read whole, as a ``MemoryIndexDict``: its pointer ``lines``, the
        ``content`` lines that are not pointers, the ``unusable`` links, its size and
        ``budget`` use. An empty index when there is no ``MEMORY.md`` yet."""
    def session_index(self) -> SessionIndexDict:
        """``MEMORY.md`` for a session start (a SessionStart hook), as a ``SessionIndexDict``:
        ``text`` (the file whole), ``index`` (a ``MemoryIndexDict``; None when it does not
        read), ``budget``, ``damaged`` (why it does not read, with ``path`` and ``line``; None
        when it reads) and ``warnings`` (what a hook prints on stderr). A comment or fence
        never closed does not raise, so a session never loses its index; a file that is not
        text still raises."""
    def topic(self, file: str) -> TopicDict:
        """Topic file ``file`` (relative to the directory, such as ``memory-infra.md``) read
        whole, as a ``TopicDict``: its frontmatter ``meta``, dated ``entries``, ``undated``
        hand notes, size and ``budget`` use, its whole ``text`` (as read) and its ``body``
        (the text after the frontmatter, without a byte-order mark: a Claude Code topic
        file's prose). NotFoundError when it does not exist;
        InvalidInputError for a path outside the directory or a reserved file."""
    def recall(self, query: str) -> list[RecallHitDict]:
        """The index lines whose title or hook match ``query``, best first, as
        ``RecallHitDict`` values (an index line with its ``score``): the index is the
        recall key, and only ``MEMORY.md`` is read. What ``memcore topics recall`` says on
        stderr is emitted as a ``MemoryCoreWarning`` (``warnings`` module; ``path`` the
        ``MEMORY.md`` path): ``MEMORY.md`` read through a symbolic link (``line`` 0), and,
        for each hit whose topic file does not exist, its index line (``line`` that line;
        the hit is kept, ``topic()`` will not find it). ``recall_with_warnings()`` returns
        them instead."""
    def recall_with_warnings(self, query: str) -> RecallAnswerDict:
        """``recall`` with its warnings returned rather than emitted, as a
        ``RecallAnswerDict``: ``hits`` (``RecallHitDict`` values, best first) and
        ``warnings`` (``str`` values, what ``memcore topics recall`` prints on stderr:
        ``MEMORY.md`` read through a symbolic link; ``MEMORY.md line N links F, which does
        not exist`` for a hit whose topic file is missing). Nothing is emitted through
        ``warnings``."""
    def remember(
        self,
        topic: str,
        text: str,
        *,
        subject: str | None = None,
        date: str | datetime.date | None = None,
        title: str | None = None,
        hook: str | None = None,
        section: str | None = None,
        type: str | None = None,
        compactor: object | None = None,
    ) -> RememberOutcomeDict:
        """Writes one fact to topic file ``topic`` and returns a ``RememberOutcomeDict``.
        An entry about the same ``subject`` is replaced (merge on write; the old one goes
        to the archive). ``date`` is ``YYYY-MM-DD`` or a relative day (``today``,
        ``yesterday``, ``last monday``, ...) converted to an absolute date now, or a
        ``datetime.date`` (a ``datetime.datetime`` gives the calendar day it shows, in its
        own time zone); when None, the one past day the text names (``broke two days ago``), else today. A new topic file is linked from ``MEMORY.md`` with ``title`` (from the file
        name when None) and ``hook`` (required then). ``section`` names the ``##`` section of
        the topic file the entry goes under (matched by its words, case folded; a new one at
        the end when there is none); when None a new entry goes above the first section.
        ``type`` is the frontmatter ``type`` of a new topic file (``user``, ``feedback``,
        ``project``, ``reference``...): the file then starts with ``name``, ``description``
        and ``type`` (without it, with ``name`` and ``description`` when most linked topics
        keep frontmatter, as Claude Code's do); an existing topic must already have it. A
        write that takes the topic over
        its budget compacts it with ``compactor`` (see the class documentation) in the same
        step; when that compaction fails (an exception the compactor raises is re-raised,
        an unusable result is AbortedError) nothing is written, the fact included.
        InvalidInputError for a vague date, an empty text, a ``misc`` topic, a reserved
        file, a new topic without a hook, or a secret in any field (``field`` and
        ``secret_kind`` set)."""
    def check(self) -> list[ViolationDict]:
        """Every way the directory breaks the protocol, writing nothing, as ``ViolationDict``
        values (``kind``, ``file``, ``line``, ``message``) in file and line order; an empty
        list for a sound directory."""
    def compact(
        self,
        file: str | None = None,
        *,
        compactor: object | None = None,
        dry_run: bool = False,
    ) -> CompactionReportDict:
        """Compacts topic file ``file`` (or, when None, every linked topic file over its
        budget) with ``compactor`` (see the class documentation) and returns a
        ``CompactionReportDict``: per file the budget use ``before`` and ``after``, each
        pass's entries and where they went, and ``needs_judgment`` when it is still over
        budget. Every entry a pass removes is in ``memory-archive.md`` (under the report's
        ``id``, for ``restore``) in the same step as the rewrite. With ``dry_run=True``
        nothing is written. An exception the compactor raises aborts the compaction and
        is re-raised; an unusable result (an entry it was not given, the same one twice, a
        wrong type) is AbortedError; nothing is written either way."""
    def restore(self, id: str) -> RestoreReportDict:
        """Puts back every entry archived under ``id`` (a compaction report's ``id``, or a
        write's ``archive_id``) at the end of the file it came from, in one step: lines
        already live there are not added twice, and a file that is gone is recreated with
        an index line. The archive stays as it is (append-only). Returns a
        ``RestoreReportDict``; NotFoundError when the archive has no section ``id``."""

@final
class SessionRow:
    """One row of ``index.md``."""

    @property
    def session_id(self) -> str:
        """The Memory Session ID."""
    @property
    def agent_name(self) -> str:
        """The stable agent name."""
    @property
    def topic(self) -> str:
        """What the session is about (``未設定`` until known)."""
    @property
    def summary(self) -> str:
        """One or two sentences other agents read to judge relevance."""
    @property
    def keywords(self) -> list[str]:
        """The keywords."""
    @property
    def status(self) -> StatusLiteral:
        """``idle``, ``active`` or ``stale``."""
    @property
    def referenced_by(self) -> list[str]:
        """The sessions continuing from this one (empty for ``-``)."""
    @property
    def started_at(self) -> str:
        """``Started At`` exactly as written in the index."""
    @property
    def updated_at(self) -> str:
        """``Updated At`` exactly as written in the index."""
    def has_meaningful_summary(self) -> bool:
        """Whether the summary says more than a registration placeholder."""
    def is_meaningful(self) -> bool:
        """Whether topic, summary or keywords carry real content."""
    def to_dict(self) -> SessionRowDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SnapshotItem:
    """One entry of a list section of a snapshot."""

    @property
    def text(self) -> str:
        """The text without bullet and marking."""
    @property
    def mark(self) -> MarkLiteral | None:
        """``superseded``, ``resolved`` or ``done`` for an outdated item, None for a current one."""
    def to_dict(self) -> SnapshotItemDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class OtherSection:
    """A snapshot section the template does not define, kept verbatim."""

    @property
    def heading(self) -> str:
        """The heading text after ``## ``."""
    @property
    def body(self) -> str:
        """The body, trimmed of blank lines."""
    def to_dict(self) -> OtherSectionDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Snapshot:
    """The typed content of ``sessions/<id>.md``. Metadata fields are the text as written."""

    @property
    def session_id(self) -> str:
        """Metadata ``Session ID``."""
    @property
    def agent_name(self) -> str:
        """Metadata ``Agent Name``."""
    @property
    def topic(self) -> str:
        """Metadata ``Topic``."""
    @property
    def status(self) -> str:
        """Metadata ``Status``, as written."""
    @property
    def started_at(self) -> str:
        """Metadata ``Started At``, as written."""
    @property
    def updated_at(self) -> str:
        """Metadata ``Updated At``, as written."""
    @property
    def current_context(self) -> str:
        """``## Current Context`` ("" when it holds only the template prompt or ``None``)."""
    @property
    def decisions(self) -> list[SnapshotItem]:
        """``## Decisions``."""
    @property
    def files(self) -> list[SnapshotItem]:
        """``## Files / Artifacts``."""
    @property
    def open_questions(self) -> list[SnapshotItem]:
        """``## Open Questions``."""
    @property
    def next_actions(self) -> list[SnapshotItem]:
        """``## Next Actions``."""
    @property
    def continues_from(self) -> list[str]:
        """``## Continues From``: the source session ids."""
    @property
    def superseded_resolved(self) -> list[SnapshotItem]:
        """``## Superseded / Resolved``."""
    @property
    def other_sections(self) -> list[OtherSection]:
        """Sections the template does not define, kept verbatim."""
    def to_dict(self) -> SnapshotDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class OrganizeReport:
    """What ``organize()`` did (or, with ``dry_run``, would do)."""

    @property
    def deleted_idle(self) -> list[str]:
        """``idle`` rows deleted from the index."""
    @property
    def marked_stale(self) -> list[str]:
        """``active`` rows marked ``stale`` (their ``updated_at`` kept)."""
    @property
    def kept_active(self) -> list[str]:
        """``active`` rows kept as they are."""
    @property
    def protected(self) -> list[str]:
        """Rows left untouched because another session references them."""
    @property
    def removed_temp_files(self) -> list[pathlib.Path]:
        """Temp files of memory-core writers that died mid-write, found anywhere under
        the root and removed (with ``dry_run``, they would be)."""
    @property
    def orphan_snapshots(self) -> list[pathlib.Path]:
        """Snapshot files (``sessions/<id>.md``) whose session has no row in the index:
        reported, never deleted."""
    @property
    def leftover_files(self) -> list[pathlib.Path]:
        """Temp, swap and conflict files of other programs (editors, sync clients) under
        the root: reported, never deleted."""
    @property
    def unreadable(self) -> list[WarningRecord]:
        """Snapshots of other sessions that could not be read (invalid UTF-8, a NUL
        byte...): reported, not fatal; the ``Continues From`` ids still legible in them
        protect their sources all the same."""
    @property
    def dry_run(self) -> bool:
        """Whether nothing was written."""
    def to_dict(self) -> OrganizeReportDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class WarningRecord:
    """A problem in a file that did not stop the call: ``str(record)`` is
    ``path:line: message``."""

    @property
    def path(self) -> pathlib.Path:
        """The file concerned."""
    @property
    def line(self) -> int:
        """The 1-based line (0 when it concerns the whole file)."""
    @property
    def message(self) -> str:
        """What is wrong."""
    def to_dict(self) -> WarningRecordDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SessionStart:
    """What ``register_session_start_with_warnings()`` did: the new session, verified,
    and the rows of other sessions it could not read and left byte-identical."""

    @property
    def session_id(self) -> str:
        """The new Memory Session ID."""
    @property
    def warnings(self) -> list[WarningRecord]:
        """Rows of ``index.md`` that could not be read (bad status, timestamp, id or cell
        count, a duplicate id), each naming the file and line."""
    def to_dict(self) -> SessionStartDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

class MemoryCoreWarning(UserWarning):
    """The category of the warnings memory-core emits through the ``warnings`` module: a problem in a memory file that did not stop the call, such as a malformed row of another session that ``register_session_start`` registered beside. ``str(warning)`` is ``path:line: message``; ``path`` (a ``pathlib.Path``) and ``line`` (1-based, 0 for the whole file) locate it. Filter it with ``warnings.simplefilter("ignore", MemoryCoreWarning)``; under ``-W error`` it is raised after the call's write was made. Instances pickle with their fields."""

    path: pathlib.Path | None
    """The file the warning concerns (None only on an instance made by hand)."""
    line: int | None
    """The 1-based line in ``path``, 0 for the whole file (None only on an instance made by hand)."""

@final
class ArchiveOutcome:
    """What ``archive()`` did: ``outcome == "archived"`` (snapshot moved to
    ``archive/<id>/session.md``, ``archive/<id>/index.md`` written) or ``"deleted"`` (an
    idle placeholder without snapshot; no archive, paths None). In both, ``warnings``
    lists the snapshots of other sessions that could not be read and did not stop it."""

    @property
    def outcome(self) -> ArchiveKindLiteral:
        """``archived`` or ``deleted``."""
    @property
    def session_id(self) -> str:
        """The archived or deleted session."""
    @property
    def archive_index(self) -> pathlib.Path | None:
        """``archive/<id>/index.md`` (None when deleted)."""
    @property
    def session_file(self) -> pathlib.Path | None:
        """``archive/<id>/session.md`` (None when deleted)."""
    @property
    def released_from(self) -> list[str]:
        """Sources whose ``referenced_by`` no longer lists the archived session."""
    @property
    def warnings(self) -> list[WarningRecord]:
        """Snapshots of other sessions that could not be read (invalid UTF-8, a NUL
        byte...) and, as they cannot mention this session, were gone past; empty when
        every snapshot was read."""
    def to_dict(self) -> ArchiveOutcomeDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ContinueOutcome:
    """What ``continue_from()`` wrote: both rows after the verified write."""

    @property
    def current(self) -> SessionRow:
        """The continuing session (now ``active``)."""
    @property
    def source(self) -> SessionRow:
        """The source session (only its ``referenced_by`` changed)."""
    def to_dict(self) -> ContinueOutcomeDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ReleaseOutcome:
    """What ``release()`` changed."""

    @property
    def current(self) -> str:
        """The referencing session."""
    @property
    def source(self) -> str:
        """The source session."""
    @property
    def referenced_by_updated(self) -> bool:
        """Whether the source row's ``referenced_by`` listed ``current`` and was updated."""
    @property
    def continues_from_updated(self) -> bool:
        """Whether the current snapshot's ``Continues From`` listed ``source`` and was updated."""
    def to_dict(self) -> ReleaseOutcomeDict:
        """The fields as a dict of plain builtins (nested results as dicts, paths as
        `str`), ready for `json.dumps`."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

class MemoryCoreError(Exception):
    """Base class of every error memory-core raises. ``str(error)`` is the core's message, which names the file (and line) concerned. ``path`` (the file, a ``pathlib.Path``), ``line`` (1-based) and ``session_id`` are set when they apply and None otherwise; so are ``field`` (the text field a write refused) and ``secret_kind`` (the kind of secret found in it, such as ``github-token``), and ``line`` is then the line of the field's text. A time that names no day (``last week``, ``recently``) is an ``InvalidInputError`` whose message starts with ``vague time in `` and whose ``field`` is ``date`` or ``text``. ``kind`` and ``code`` are class attributes of the subclasses (``code`` is the stable ``ERR_MEMORY_*`` code the Node binding uses too); both are None on a MemoryCoreError built by hand, which belongs to no kind. Every instance pickles with its fields."""

    path: pathlib.Path | None
    """The file the error concerns, when there is one."""
    line: int | None
    """The 1-based line in ``path`` (or in the text of the refused ``field``), when known."""
    session_id: str | None
    """The session the error concerns, when there is one."""
    field: str | None
    """The text field a write refused (a secret in it, or over its size limit), when one was."""
    secret_kind: str | None
    """The kind of secret found in ``field`` (``github-token``, ``private-key``, …), when one was."""
    kind: ErrorKindLiteral | None
    """The error kind; None on a MemoryCoreError built by hand."""
    code: ErrorCodeLiteral | None
    """The stable ``ERR_MEMORY_*`` code; None on a MemoryCoreError built by hand."""

class InvalidInputError(MemoryCoreError, ValueError):
    """An argument was rejected before anything was read or written, including an argument of the wrong type, whose message names the parameter (also a ValueError)."""

    kind: Literal["invalid_input"]
    code: Literal["ERR_MEMORY_INVALID_INPUT"]

class NotFoundError(MemoryCoreError, LookupError):
    """A session or snapshot item does not exist; ``session_id`` names the session (also a LookupError)."""

    kind: Literal["not_found"]
    code: Literal["ERR_MEMORY_NOT_FOUND"]

class ConflictError(MemoryCoreError, RuntimeError):
    """The operation contradicts the memory's current state: the session is referenced, inconsistent or duplicated (also a RuntimeError)."""

    kind: Literal["conflict"]
    code: Literal["ERR_MEMORY_CONFLICT"]

class MalformedFileError(MemoryCoreError, ValueError):
    """A memory file does not have the shape the protocol requires; ``path`` and ``line`` locate the problem. Nothing was written (also a ValueError)."""

    kind: Literal["malformed"]
    code: Literal["ERR_MEMORY_MALFORMED"]

class LockTimeoutError(MemoryCoreError, TimeoutError):
    """Another writer held the memory lock longer than ``lock_timeout``; ``path`` and ``filename`` are the lock file (also a TimeoutError)."""

    kind: Literal["lock_timeout"]
    code: Literal["ERR_MEMORY_LOCK_TIMEOUT"]

class MemoryIOError(MemoryCoreError, OSError):
    """An operating-system I/O error (``errno``/``strerror`` set when the OS reported one, ``filename`` is ``path``), or a write whose read-back did not verify (also an OSError). ``syscall`` names the system call that failed, by the names Node's ``fs`` errors use (``open``, ``read``, ``write``, ``fsync``, ``rename``, ``unlink``, ``mkdir``, ``link``, ``lstat``, ``scandir`` for listing a directory, ``flock`` for the memory lock), or is None for a failed verification. Raised as one of its subclasses when the OS error has a builtin one: MemoryFileNotFoundError, MemoryPermissionError, MemoryIsADirectoryError, MemoryNotADirectoryError, MemoryFileExistsError."""

    kind: Literal["io"]
    code: Literal["ERR_MEMORY_IO"]
    syscall: str | None
    """The system call that failed (``open``, ``read``, ``rename``, …), None for a failed verification."""

class MemoryFileNotFoundError(MemoryIOError, FileNotFoundError):
    """An I/O error the OS reported as NotFound (a MemoryIOError and a FileNotFoundError)."""

class MemoryPermissionError(MemoryIOError, PermissionError):
    """An I/O error the OS reported as PermissionDenied (a MemoryIOError and a PermissionError)."""

class MemoryIsADirectoryError(MemoryIOError, IsADirectoryError):
    """An I/O error the OS reported as IsADirectory (a MemoryIOError and a IsADirectoryError)."""

class MemoryNotADirectoryError(MemoryIOError, NotADirectoryError):
    """An I/O error the OS reported as NotADirectory (a MemoryIOError and a NotADirectoryError)."""

class MemoryFileExistsError(MemoryIOError, FileExistsError):
    """An I/O error the OS reported as AlreadyExists (a MemoryIOError and a FileExistsError)."""

class AbortedError(MemoryCoreError, RuntimeError):
    """The caller stopped a wait for the memory lock; nothing was written. Ctrl-C raises KeyboardInterrupt itself, not this (also a RuntimeError)."""

    kind: Literal["aborted"]
    code: Literal["ERR_MEMORY_ABORTED"]
