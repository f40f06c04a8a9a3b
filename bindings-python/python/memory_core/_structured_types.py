"""The ``Literal`` aliases and ``TypedDict`` shapes of ``StructuredMemory`` results.

Every ``StructuredMemory`` method returns plain ``dict``/``list`` values built from the
core's serde serialization: the keys (in the same order) that ``memcore topics --json``
prints. Files are ``str`` paths relative to the memory directory, dates ``YYYY-MM-DD``
strings, lines 1-based.
"""

from typing import List, Literal, Optional, TypedDict

from memory_core._types import WarningRecordDict

BudgetStateLiteral = Literal["within", "near", "over"]
"""``BudgetUseDict.state``: within budget, near it (90% or more), or over it."""
ArchivePassLiteral = Literal[
    "merge",
    "evict-dead",
    "collapse-superseded",
    "summarize-episodic",
    "split-overgrown",
    "index-content",
    "merge-topics",
    "remove-empty",
]
"""What moved lines to the archive: a merge on write, or one of the compaction passes."""
ViolationKindLiteral = Literal[
    "content_in_index",
    "dangling_index_line",
    "orphan_topic",
    "duplicate_index_line",
    "near_duplicate_topics",
    "unusable_link",
    "empty_hook",
    "over_budget",
    "undated_entry",
    "relative_date",
    "misc_topic",
    "contradicting_generations",
    "unreadable_topic",
    "frontmatter_not_yaml",
    "unreadable_archive",
    "unreadable_index",
    "leftover_temp_file",
    "sync_conflict_copy",
    "linked_index",
    "secret",
    "unclosed_comment",
]
"""``ViolationDict.kind``."""


class BudgetsDict(TypedDict):
    """``StructuredMemory.budgets``: the line budgets and the optional byte budgets."""

    index_lines: int
    topic_lines: int
    index_bytes: Optional[int]
    topic_bytes: Optional[int]


class BudgetUseDict(TypedDict):
    """What one file uses of its budget."""

    file: str
    lines: int
    line_budget: int
    lines_left: int
    over_by_lines: int
    bytes: int
    byte_budget: Optional[int]
    over_by_bytes: int
    state: BudgetStateLiteral


class IndexLineDict(TypedDict):
    """One pointer line of ``MEMORY.md``: ``- [title](file) — hook``."""

    title: str
    file: str
    hook: str
    line: int


class ContentLineDict(TypedDict):
    """A line of ``MEMORY.md`` that is content, not a pointer."""

    line: int
    text: str


class UnusableLinkDict(TypedDict):
    """An index line whose link leaves the directory or is not a plain path."""

    line: int
    target: str
    reason: str


class MemoryIndexDict(TypedDict):
    """``StructuredMemory.index()``: ``MEMORY.md`` read whole."""

    lines: List[IndexLineDict]
    content: List[ContentLineDict]
    unusable: List[UnusableLinkDict]
    line_count: int
    byte_count: int
    budget: BudgetUseDict
    through_link: Optional[str]


class SessionIndexDict(TypedDict):
    """``StructuredMemory.session_index()``: ``MEMORY.md`` as a session start loads it."""

    text: str
    budget: BudgetUseDict
    damaged: Optional[WarningRecordDict]
    index: Optional[MemoryIndexDict]
    warnings: List[str]


class TopicMetaDict(TypedDict):
    """A topic file's frontmatter fields (``name``, ``description``, ``type``); read line by
    line when the block is not YAML (see ``FrontmatterNotYamlDict``)."""

    name: Optional[str]
    description: Optional[str]
    type: Optional[str]


class FrontmatterNotYamlDict(TypedDict):
    """Why a topic file's frontmatter is not YAML: the file still reads; ``check`` reports
    it as ``frontmatter_not_yaml``."""

    line: int
    message: str


class StructuredEntryDict(TypedDict):
    """One dated entry of a topic file: ``- date [subject]: text`` on lines
    ``line``..``end_line``."""

    date: str
    subject: Optional[str]
    text: str
    line: int
    end_line: int


class UndatedItemDict(TypedDict):
    """A list item of a topic file without a leading date (a hand note)."""

    line: int
    text: str


class TopicDict(TypedDict):
    """``StructuredMemory.topic(file)``: a topic file read whole. ``text`` is the file as
    read (byte-order mark, frontmatter and line endings included); ``body`` the text after
    the frontmatter (all of it when there is none), without a byte-order mark — the prose
    of a topic file that has no dated entries (Claude Code's)."""

    file: str
    meta: Optional[TopicMetaDict]
    frontmatter_not_yaml: Optional[FrontmatterNotYamlDict]
    entries: List[StructuredEntryDict]
    undated: List[UndatedItemDict]
    line_count: int
    byte_count: int
    budget: BudgetUseDict
    text: str
    body: str


class RecallHitDict(TypedDict):
    """``StructuredMemory.recall(query)``: an index line and how well it matches (0 to 1)."""

    title: str
    file: str
    hook: str
    line: int
    score: float


class RecallAnswerDict(TypedDict):
    """``StructuredMemory.recall_with_warnings(query)``: the hits, and what ``memcore
    topics recall`` says on stderr (``MEMORY.md`` read through a symbolic link;
    ``MEMORY.md line N links F, which does not exist`` for each hit whose topic file is
    missing, the hit kept)."""

    hits: List[RecallHitDict]
    warnings: List[str]


class ViolationDict(TypedDict):
    """``StructuredMemory.check()``: one way the directory breaks the protocol."""

    kind: ViolationKindLiteral
    file: str
    line: int
    message: str


# ``pass`` is a Python keyword, so these two use the functional form.
PassReportDict = TypedDict(
    "PassReportDict",
    {
        "pass": ArchivePassLiteral,
        "from": str,
        "entries": List[StructuredEntryDict],
        "to": str,
        "from_lines": List[int],
        "written": List[str],
    },
)
PassReportDict.__doc__ = """One compaction pass: the file it took from (``from``), the entries it took
out, where they went (``to``: the archive or a new topic file), where they started in the file
before the compaction (``from_lines``, 1-based) and the lines it wrote in their place."""


class NeedsJudgmentDict(TypedDict):
    """A file still over budget after the four passes: the exact overage, and the hand
    lines the library could not compact."""

    file: str
    over_by_lines: int
    over_by_bytes: int
    unparsed_lines: List[int]
    message: str


class FileCompactionDict(TypedDict):
    """What compaction did to one file."""

    file: str
    before: BudgetUseDict
    after: BudgetUseDict
    passes: List[PassReportDict]
    needs_judgment: Optional[NeedsJudgmentDict]


class NotCompactedDict(TypedDict):
    """A topic file a compaction of every file left as it is: it does not read, or its name
    is one memory-core never writes. ``line`` is 0 for the whole file; ``kind`` the error
    kind compacting it alone raises."""

    file: str
    line: int
    kind: Literal[
        "invalid_input", "not_found", "conflict", "malformed", "lock_timeout", "io", "aborted"
    ]
    message: str


class AddedIndexLineDict(TypedDict):
    """An index line ``compact()`` adds to ``MEMORY.md`` for a file a split created:
    ``file``, ``title``, ``hook`` and the line's ``text`` as written."""

    file: str
    title: str
    hook: str
    text: str


class CompactionReportDict(TypedDict):
    """``StructuredMemory.compact()``: ``id`` names the archive sections (for ``restore``;
    None when nothing was archived), ``created`` the topic files splits made and
    ``index_lines`` the ``MEMORY.md`` lines it adds for them,
    ``not_compacted`` the topic files it could not read or write (every other file
    compacted), ``removed_temp_files`` the temp files of writers that died mid-write it
    removed (with ``dry_run``, would remove), relative to the directory."""

    id: Optional[str]
    dry_run: bool
    files: List[FileCompactionDict]
    created: List[str]
    index_lines: List[AddedIndexLineDict]
    not_compacted: List[NotCompactedDict]
    removed_temp_files: List[str]


ConversionDict = TypedDict(
    "ConversionDict",
    {
        "field": Literal["date", "text"],
        "from": str,
        "to": str,
    },
)
"""A relative time a write replaced by the day it meant (``yesterday`` → ``2026-07-09``),
in the ``date`` given or in the ``text``."""


class RememberOutcomeDict(TypedDict):
    """``StructuredMemory.remember()``: the entry as written, what it replaced (merge on
    write), whether it created the topic, the index line or ``MEMORY.md``, the archive id
    of what it moved, the budgets of the files it wrote, its ``warnings`` (a file near or
    over its budget — ``MEMORY.md`` on every write, changed or not), and the compaction it
    triggered."""

    file: str
    entry: StructuredEntryDict
    converted: List[ConversionDict]
    created_topic: bool
    linked: bool
    created_index: bool
    replaced: List[StructuredEntryDict]
    archived_as_older: bool
    archive_id: Optional[str]
    budgets: List[BudgetUseDict]
    warnings: List[str]
    compaction: Optional[CompactionReportDict]


RestoredDict = TypedDict(
    "RestoredDict",
    {
        "file": str,
        "pass": ArchivePassLiteral,
        "lines": List[str],
        "already_live": List[str],
        "created": bool,
    },
)
RestoredDict.__doc__ = """The lines one archive section put back into ``file`` (``already_live``: those
that were there already and were not added twice; ``created``: the file was recreated)."""


NotRestoredDict = TypedDict(
    "NotRestoredDict",
    {
        "file": str,
        "pass": ArchivePassLiteral,
        "lines": List[str],
        "live_in": List[str],
        "reason": str,
    },
)
NotRestoredDict.__doc__ = """Lines a compaction moved rather than removed, which ``restore`` leaves where
they live (``live_in``; empty when they were edited or removed since) and why (``reason``)."""


class RestoreReportDict(TypedDict):
    """``StructuredMemory.restore(id)``: what was put back, what was left where it lives, and
    the budget use of every file touched."""

    id: str
    restored: List[RestoredDict]
    not_restored: List[NotRestoredDict]
    budgets: List[BudgetUseDict]
    warnings: List[str]


class CondensedDict(TypedDict, total=False):
    """What a compactor's ``summarize`` returns per story: the entries (indexes into the
    list it was given, at least two), the lesson that replaces them, and its subject."""

    entries: List[int]
    text: str
    subject: Optional[str]


class SplitPartDict(TypedDict):
    """What a compactor's ``split`` returns per part: the new topic file, its index line's
    title and hook, and the entries (indexes) that move there."""

    file: str
    title: str
    hook: str
    entries: List[int]


CompactorPassLiteral = Literal["dead", "collapse", "summarize", "split", "route_content", "merge_topics"]
"""``CompactorRequestDict["pass"]``: the judgment a plain-function compactor is asked for
(the name of the compactor method that answers it)."""

# ``pass`` is a Python keyword: the functional form. Which keys a request has depends on
# its pass, so all but ``pass`` are optional here.
CompactorRequestDict = TypedDict(
    "CompactorRequestDict",
    {
        "pass": CompactorPassLiteral,
        "topic": TopicDict,
        "entries": List[StructuredEntryDict],
        "subject": str,
        "generations": List[StructuredEntryDict],
        "index": MemoryIndexDict,
    },
    total=False,
)
CompactorRequestDict.__doc__ = """What a plain-function compactor is called with, once per judgment:
``pass`` and the arguments of the method of that name. ``dead``, ``summarize``, ``split``:
``topic`` and ``entries``; ``collapse``: ``topic``, ``subject`` and ``generations``;
``route_content``, ``merge_topics``: ``index``. The function returns what that method
returns, or None for the default."""
