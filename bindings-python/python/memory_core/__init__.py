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
"""

from memory_core._native import (
    AgentMemory,
    ArchiveOutcome,
    ConflictError,
    ContinueOutcome,
    InvalidInputError,
    LockTimeoutError,
    MalformedFileError,
    MemoryCoreError,
    MemoryIOError,
    NotFoundError,
    OrganizeReport,
    OtherSection,
    ReleaseOutcome,
    SessionRow,
    Snapshot,
    SnapshotItem,
    __version__,
)

__all__ = [
    "AgentMemory",
    "ArchiveOutcome",
    "ConflictError",
    "ContinueOutcome",
    "InvalidInputError",
    "LockTimeoutError",
    "MalformedFileError",
    "MemoryCoreError",
    "MemoryIOError",
    "NotFoundError",
    "OrganizeReport",
    "OtherSection",
    "ReleaseOutcome",
    "SessionRow",
    "Snapshot",
    "SnapshotItem",
    "__version__",
]
