"""memory-core: Markdown-native memory for AI agents.

The Agent Memory protocol over ``memory/index.md``, ``memory/sessions/<id>.md`` and
``memory/archive/<id>/``: every write is atomic, lossless, verified by reading it back,
and safe under concurrent writers in any number of threads and processes (in Python,
Node, Rust or the ``memcore`` command line).

>>> import memory_core, pathlib, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     memory = memory_core.AgentMemory(pathlib.Path(tmp) / "memory")
...     session_id = memory.register_session_start("cursor-main-agent")
...     print(memory.session(session_id).status)
idle

All logic lives in the Rust core; this package is a thin binding (``memory_core._native``).
The ``Literal`` aliases (``StatusLiteral``, ``MarkLiteral``, ``ArchiveKindLiteral``,
``ErrorKindLiteral``, ``ErrorCodeLiteral``) and the ``TypedDict`` shapes of every
``to_dict()`` (``SessionRowDict``, ``SnapshotDict``, ...) are importable from here.
"""

from memory_core._native import (
    AbortedError,
    AgentMemory,
    ArchiveOutcome,
    ConflictError,
    ContinueOutcome,
    InvalidInputError,
    LockTimeoutError,
    MalformedFileError,
    MemoryCoreError,
    MemoryCoreWarning,
    MemoryFileExistsError,
    MemoryFileNotFoundError,
    MemoryIOError,
    MemoryIsADirectoryError,
    MemoryNotADirectoryError,
    MemoryPermissionError,
    NotFoundError,
    OrganizeReport,
    OtherSection,
    ReleaseOutcome,
    SessionRow,
    SessionStart,
    Snapshot,
    SnapshotItem,
    WarningRecord,
    __version__,
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
    "AbortedError",
    "AgentMemory",
    "ArchiveKindLiteral",
    "ArchiveOutcome",
    "ArchiveOutcomeDict",
    "ConflictError",
    "ContinueOutcome",
    "ContinueOutcomeDict",
    "ErrorCodeLiteral",
    "ErrorKindLiteral",
    "InvalidInputError",
    "LockTimeoutError",
    "MalformedFileError",
    "MarkLiteral",
    "MemoryCoreError",
    "MemoryCoreWarning",
    "MemoryFileExistsError",
    "MemoryFileNotFoundError",
    "MemoryIOError",
    "MemoryIsADirectoryError",
    "MemoryNotADirectoryError",
    "MemoryPermissionError",
    "NotFoundError",
    "OrganizeReport",
    "OrganizeReportDict",
    "OtherSection",
    "OtherSectionDict",
    "ReleaseOutcome",
    "ReleaseOutcomeDict",
    "SessionRow",
    "SessionRowDict",
    "SessionStart",
    "SessionStartDict",
    "Snapshot",
    "SnapshotDict",
    "SnapshotItem",
    "SnapshotItemDict",
    "StatusLiteral",
    "WarningRecord",
    "WarningRecordDict",
    "__version__",
]
