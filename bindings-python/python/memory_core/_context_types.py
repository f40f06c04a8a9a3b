"""The ``Literal`` aliases and ``TypedDict`` shapes of ``ContextMemory`` results.

Every ``ContextMemory`` method returns plain ``dict``/``list`` values built from the core's
serde serialization: the keys (in the same order) that ``memcore context --json`` prints.
Entity names and namespaces are ``str``; ``file``, ``dir`` and ``archive`` are ``str``
paths relative to the root; a warning's ``path`` is a ``str``.
"""

from typing import Dict, List, Literal, Optional, TypedDict, Union

from memory_core._types import WarningRecordDict

CategoryLiteral = Literal[
    "decision",
    "constraint",
    "assumption",
    "rejected",
    "todo",
    "risk",
    "principle",
    "diagram",
]
"""An entry's ``category`` (the seed's closed set)."""
EntryStatusLiteral = Literal["accepted", "experimental", "deprecated", "superseded"]
"""An entry's ``status``."""
RefreshTriggerLiteral = Literal["post-merge", "post-checkout", "manual"]
"""``PendingChangeDict.trigger``: the git hook that recorded the change."""


class DiagramDict(TypedDict):
    """``EntryDict.diagram``; ``write(diagram=...)`` takes the same keys (``language``
    optional, ``mermaid`` by default)."""

    language: str
    diagram_type: str
    subject: str
    code: str


class EntryDict(TypedDict):
    """One entity as its file says (``get``, ``update``, ``promote``)."""

    entity_name: str
    namespace: str
    category: CategoryLiteral
    status: EntryStatusLiteral
    tags: List[str]
    summary: str
    created_at: str
    updated_at: Optional[str]
    supersedes: List[str]
    rationale: Optional[str]
    confidence: Optional[float]
    source_path: Optional[str]
    related_entities: List[str]
    diagram: Optional[DiagramDict]
    body: str
    file: str


class ManySentencesFlagDict(TypedDict):
    """The body has more than three sentences of prose."""

    code: Literal["many-sentences"]
    sentences: int


class LongLineFlagDict(TypedDict):
    """A line of the body is long (its 1-based ``line``, its length in ``chars``)."""

    code: Literal["long-line"]
    line: int
    chars: int


class CodeDumpFlagDict(TypedDict):
    """A fenced code block of ``lines`` lines opens at ``line``."""

    code: Literal["code-dump"]
    line: int
    lines: int


BodyFlagDict = Union[ManySentencesFlagDict, LongLineFlagDict, CodeDumpFlagDict]
"""One flag of the body check, told apart by ``code``."""


class BodyFlagsDict(TypedDict):
    """What the body check measured: written, but worth a look when ``flags`` is not empty."""

    bytes: int
    sentences: int
    flags: List[BodyFlagDict]


class WriteOutcomeDict(TypedDict):
    """``write``: the entry written and read back, and its namespace's size."""

    entry: EntryDict
    namespace_entries: int
    over_threshold: bool
    body: BodyFlagsDict


class HitDict(TypedDict):
    """One entry ``query`` found, as its index row gives it."""

    entity_name: str
    namespace: str
    category: CategoryLiteral
    status: EntryStatusLiteral
    tags: List[str]
    summary: str
    created_at: Optional[str]
    updated_at: Optional[str]
    supersedes: Optional[List[str]]
    file: str
    tag_overlap: int


class QueryAnswerDict(TypedDict):
    """``query_answer``: the hits, and what was left out (a namespace whose ``_index.md``
    is a symbolic link, a hit whose file does not read), each naming its file and line."""

    hits: List[HitDict]
    warnings: List[WarningRecordDict]


class SupersededDict(TypedDict):
    """``supersede``, ``promote_to``: the new entry and the old one, now superseded, and
    the three fields ``write`` reports for the new entry (its namespace's size, whether
    that is over the split threshold, the body check)."""

    new: EntryDict
    old: EntryDict
    namespace_entries: int
    over_threshold: bool
    body: BodyFlagsDict


class DriftReportDict(TypedDict):
    """``verify``: how an index and its directory disagree."""

    namespace: Optional[str]
    missing_files: List[str]
    unindexed_files: List[str]
    mismatched: List[str]
    unreadable: List[WarningRecordDict]
    foreign: List[str]
    """Files not named like entities (``README.md``, ``NOTES.md``), relative to the root:
    not drift, never indexed, never counted in ``files``, never touched."""
    repeated: List[str]
    unreadable_index: Optional[WarningRecordDict]
    last_updated: Optional[str]
    rows: int
    files: int


class HealReportDict(TypedDict):
    """``heal``: what changed in the index."""

    namespace: Optional[str]
    added: List[str]
    removed: List[str]
    updated: List[str]
    unreadable: List[WarningRecordDict]
    foreign: List[str]
    """Files not named like entities, relative to the root: never indexed or touched."""
    written: bool
    backup: Optional[str]
    unreadable_index: Optional[WarningRecordDict]


class NamespaceInfoDict(TypedDict):
    """One namespace ``namespaces`` found."""

    namespace: str
    dir: str
    has_index: bool
    files: int
    over_threshold: bool


class SplitReportDict(TypedDict):
    """``split``: old name to new name of every moved entry, entries per domain."""

    moved: Dict[str, str]
    domains: Dict[str, int]
    kept: List[str]
    relinked: List[str]
    removed_parent_index: bool


class EndSessionDict(TypedDict):
    """``end_session``: the promotions, the session entries archived, and those kept."""

    promoted: List[SupersededDict]
    already_promoted: List[str]
    cleared: List[str]
    kept: List[str]
    archive: Optional[str]


class PendingChangeDict(TypedDict):
    """A changed file a git hook recorded."""

    path: str
    trigger: RefreshTriggerLiteral
    timestamp: str


class PendingMatchDict(TypedDict):
    """``pending_refresh``: a changed file and the entries whose ``source_path`` cites it."""

    change: PendingChangeDict
    entries: List[str]


class PendingReportDict(TypedDict):
    """``pending_refresh_report``: every pending change with the entries citing it, and
    the lines of ``_pending_refresh.md`` that were not understood (left as they are)."""

    matches: List[PendingMatchDict]
    warnings: List[WarningRecordDict]


SkipReasonLiteral = Literal["other_branch", "detached_head", "no_previous_head", "nothing_changed"]
"""``SkipReasonDict.reason``: why ``record_changes`` recorded nothing."""
HookActionLiteral = Literal[
    "installed", "chained", "unchanged", "updated", "restored", "removed", "absent"
]
"""``HookOutcomeDict.action``: what ``install_hooks`` or ``uninstall_hooks`` did to a hook."""


class _SkipReasonBase(TypedDict):
    reason: SkipReasonLiteral


class SkipReasonDict(_SkipReasonBase, total=False):
    """``RecordOutcomeDict.skipped``; ``branch`` (the branch checked out) only for
    ``other_branch``."""

    branch: str


class RecordOutcomeDict(TypedDict):
    """``record_changes``: the repository's project namespace, its ``_pending_refresh.md``
    (an absolute path, written or not), the changes listed by this run (empty when
    skipped) and why nothing was recorded (None when something was)."""

    namespace: str
    file: str
    recorded: List[PendingChangeDict]
    skipped: Optional[SkipReasonDict]


class ClearReportDict(TypedDict):
    """``clear_refresh``: the done paths cleared, those not pending, the listings left, and
    whether the file was removed."""

    cleared: List[str]
    not_pending: List[str]
    remaining: int
    removed_file: bool


class HookOutcomeDict(TypedDict):
    """One hook of a ``HooksReportDict``: its name, its file (absolute) and what was done."""

    hook: Literal["post-merge", "post-checkout"]
    path: str
    action: HookActionLiteral


class HooksReportDict(TypedDict):
    """``install_hooks`` / ``uninstall_hooks``: the hooks directory (absolute) and one
    outcome per hook (``post-merge``, then ``post-checkout``)."""

    hooks_dir: str
    hooks: List[HookOutcomeDict]


class NotImportedDict(TypedDict):
    """A file ``migrate`` did not import: its path relative to the source, and why."""

    file: str
    reason: str


class DanglingLinkDict(TypedDict):
    """A link of an imported entry (``field``: ``supersedes`` or ``related_entities``) to
    an entity that is neither in the memory nor imported in the same run."""

    entity: str
    field: Literal["supersedes", "related_entities"]
    target: str


class MigrationReportDict(TypedDict):
    """``migrate``: the backup (relative to the root), each imported entry as an
    ``[entity_name, file]`` pair (``file`` relative to the root), the Markdown files not
    imported (an entity carrying a secret among them, with the kind, field and line,
    never the secret), how many other files were only backed up, and the links of
    imported entries to entities that are not there (those entries were imported)."""

    backup: str
    imported: List[List[str]]
    not_imported: List[NotImportedDict]
    other_files: int
    dangling_links: List[DanglingLinkDict]
