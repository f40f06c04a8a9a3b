"""The public ``Literal`` aliases and the ``TypedDict`` shapes of ``to_dict()``.

Importable at run time (``from memory_core import StatusLiteral, SessionRowDict``), so
that annotations in user code need no ``TYPE_CHECKING`` guard.
"""

from typing import List, Literal, Optional, TypedDict

StatusLiteral = Literal["idle", "active", "stale"]
"""A row's ``status``."""
MarkLiteral = Literal["superseded", "resolved", "done"]
"""The marking of an outdated snapshot item."""
ArchiveKindLiteral = Literal["archived", "deleted"]
"""``ArchiveOutcome.outcome``."""
ErrorKindLiteral = Literal[
    "invalid_input", "not_found", "conflict", "malformed", "lock_timeout", "io", "aborted"
]
"""``MemoryCoreError.kind``."""
ErrorCodeLiteral = Literal[
    "ERR_MEMORY_INVALID_INPUT",
    "ERR_MEMORY_NOT_FOUND",
    "ERR_MEMORY_CONFLICT",
    "ERR_MEMORY_MALFORMED",
    "ERR_MEMORY_LOCK_TIMEOUT",
    "ERR_MEMORY_IO",
    "ERR_MEMORY_ABORTED",
]
"""``MemoryCoreError.code``, the same codes the Node binding uses."""


class SessionRowDict(TypedDict):
    """``SessionRow.to_dict()``."""

    session_id: str
    agent_name: str
    topic: str
    summary: str
    keywords: List[str]
    status: StatusLiteral
    referenced_by: List[str]
    started_at: str
    updated_at: str


class SnapshotItemDict(TypedDict):
    """``SnapshotItem.to_dict()``."""

    text: str
    mark: Optional[MarkLiteral]


class OtherSectionDict(TypedDict):
    """``OtherSection.to_dict()``."""

    heading: str
    body: str


class SnapshotDict(TypedDict):
    """``Snapshot.to_dict()``."""

    session_id: str
    agent_name: str
    topic: str
    status: str
    started_at: str
    updated_at: str
    current_context: str
    decisions: List[SnapshotItemDict]
    files: List[SnapshotItemDict]
    open_questions: List[SnapshotItemDict]
    next_actions: List[SnapshotItemDict]
    continues_from: List[str]
    superseded_resolved: List[SnapshotItemDict]
    other_sections: List[OtherSectionDict]


class WarningRecordDict(TypedDict):
    """``WarningRecord.to_dict()`` (the path as ``str``)."""

    path: str
    line: int
    message: str


class SessionStartDict(TypedDict):
    """``SessionStart.to_dict()``."""

    session_id: str
    warnings: List[WarningRecordDict]


class OrganizeReportDict(TypedDict):
    """``OrganizeReport.to_dict()`` (paths as ``str``)."""

    deleted_idle: List[str]
    marked_stale: List[str]
    kept_active: List[str]
    protected: List[str]
    removed_temp_files: List[str]
    orphan_snapshots: List[str]
    leftover_files: List[str]
    unreadable: List[WarningRecordDict]
    dry_run: bool


class ArchiveOutcomeDict(TypedDict):
    """``ArchiveOutcome.to_dict()`` (paths as ``str``)."""

    outcome: ArchiveKindLiteral
    session_id: str
    archive_index: Optional[str]
    session_file: Optional[str]
    released_from: List[str]
    warnings: List[WarningRecordDict]


class ContinueOutcomeDict(TypedDict):
    """``ContinueOutcome.to_dict()``."""

    current: SessionRowDict
    source: SessionRowDict


class ReleaseOutcomeDict(TypedDict):
    """``ReleaseOutcome.to_dict()``."""

    current: str
    source: str
    referenced_by_updated: bool
    continues_from_updated: bool
