"""Every exception class, each triggered for real."""

from __future__ import annotations

import errno
import pathlib
import pickle
import time
from collections.abc import Callable

import pytest

import memory_core
from memory_core import AgentMemory

from _support import lock_held_by_other_process, write_index

CLASSES: list[tuple[type[memory_core.MemoryCoreError], type[Exception], str, str]] = [
    (memory_core.InvalidInputError, ValueError, "invalid_input", "ERR_MEMORY_INVALID_INPUT"),
    (memory_core.NotFoundError, LookupError, "not_found", "ERR_MEMORY_NOT_FOUND"),
    (memory_core.ConflictError, RuntimeError, "conflict", "ERR_MEMORY_CONFLICT"),
    (memory_core.MalformedFileError, ValueError, "malformed", "ERR_MEMORY_MALFORMED"),
    (memory_core.LockTimeoutError, TimeoutError, "lock_timeout", "ERR_MEMORY_LOCK_TIMEOUT"),
    (memory_core.MemoryIOError, OSError, "io", "ERR_MEMORY_IO"),
]


@pytest.mark.parametrize(("cls", "builtin", "kind", "code"), CLASSES)
def test_hierarchy(
    cls: type[memory_core.MemoryCoreError], builtin: type[Exception], kind: str, code: str
) -> None:
    assert issubclass(memory_core.MemoryCoreError, Exception)
    assert issubclass(cls, memory_core.MemoryCoreError)
    assert issubclass(cls, builtin)
    assert (cls.kind, cls.code) == (kind, code)
    assert cls.__module__ == "memory_core"
    assert getattr(memory_core, cls.__name__) is cls
    assert cls.__doc__
    # Raised by hand, an instance still has every attribute.
    error = cls("by hand")
    assert (error.path, error.line, error.session_id) == (None, None, None)
    assert (error.field, error.secret_kind) == (None, None)
    assert str(error) == "by hand"
    # The class is found again by name, so exceptions cross process boundaries.
    assert type(pickle.loads(pickle.dumps(error))) is cls


def test_one_class_per_kind() -> None:
    assert len({c.kind for c, *_ in CLASSES}) == len(CLASSES)
    assert len({c.code for c, *_ in CLASSES}) == len(CLASSES)


@pytest.mark.parametrize("bad_id", ["../x", "a/b", "", ".hidden", "a, b"])
def test_invalid_input_bad_id(memory: AgentMemory, bad_id: str) -> None:
    for call in (
        memory.session,
        memory.snapshot,
        memory.archive,
        memory.session_path,
        memory.archive_dir,
        memory.update,
    ):
        with pytest.raises(memory_core.InvalidInputError) as caught:
            call(bad_id)
        error = caught.value
        assert isinstance(error, ValueError)
        assert (error.kind, error.code) == ("invalid_input", "ERR_MEMORY_INVALID_INPUT")
        assert (error.path, error.line, error.session_id) == (None, None, None)
        assert (error.field, error.secret_kind) == (None, None)
        assert "session id" in str(error)


def test_invalid_input_bad_agent_name_writes_nothing(memory: AgentMemory, root: pathlib.Path) -> None:
    with pytest.raises(memory_core.InvalidInputError, match="agent name"):
        memory.register_session_start("fix the login bug")
    assert not root.exists()


def test_invalid_input_ambiguous_item(memory: AgentMemory) -> None:
    session_id = memory.register_manual(
        "a", "t", "s.", next_actions=["Write tests", "Write docs"]
    )
    with pytest.raises(memory_core.InvalidInputError, match="matches several"):
        memory.update(session_id, done=["Write"])


def test_invalid_input_continue_from_itself_names_the_session(memory: AgentMemory) -> None:
    session_id = memory.register_session_start("a")
    for sid in (session_id, "2020-01-01-0000-x"):
        with pytest.raises(memory_core.InvalidInputError) as caught:
            memory.continue_from(sid, sid)
        error = caught.value
        assert str(error) == f'invalid source session "{sid}": a session cannot continue from itself'
        assert (error.path, error.line, error.session_id) == (None, None, sid)
        assert pickle.loads(pickle.dumps(error)).session_id == sid
    # An empty item text to mark is refused naming its session too.
    with pytest.raises(memory_core.InvalidInputError, match="must not be empty") as empty:
        memory.update(session_id, done=[" "])
    assert empty.value.session_id == session_id
    # Any text of an update the core refuses names the session it was meant for.
    calls: list[Callable[[], object]] = [
        lambda: memory.update(session_id, decisions=["a\x1bb"]),
        lambda: memory.update(session_id, topic="t\x00"),
        lambda: memory.update(session_id, keywords=["a,b"]),
        lambda: memory.update(session_id, keywords=["a<br>b"]),
    ]
    for call in calls:
        with pytest.raises(memory_core.InvalidInputError) as refused:
            call()
        assert refused.value.session_id == session_id


def test_invalid_input_root_is_a_file(tmp_path: pathlib.Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    with pytest.raises(memory_core.InvalidInputError, match="is not a directory"):
        AgentMemory(afile)


def test_not_found_unknown_session(memory: AgentMemory) -> None:
    memory.register_session_start("a")
    with pytest.raises(memory_core.NotFoundError) as caught:
        memory.session("2026-01-01-0000-nobody")
    error = caught.value
    assert isinstance(error, LookupError)
    assert error.session_id == "2026-01-01-0000-nobody"
    assert error.path == memory.index_path
    assert error.line is None
    assert (error.kind, error.code) == ("not_found", "ERR_MEMORY_NOT_FOUND")
    assert str(memory.index_path) in str(error)
    for call in (memory.update, memory.archive):
        with pytest.raises(memory_core.NotFoundError):
            call("2026-01-01-0000-nobody")
    with pytest.raises(memory_core.NotFoundError):
        memory.continue_from("2026-01-01-0000-nobody", "2026-01-01-0000-other")


def test_not_found_item_to_mark(memory: AgentMemory) -> None:
    session_id = memory.register_manual("a", "t", "s.", next_actions=["Ship"])
    with pytest.raises(memory_core.NotFoundError, match="no next action") as caught:
        memory.update(session_id, done=["Celebrate"])
    assert caught.value.path == memory.session_path(session_id)
    assert caught.value.session_id == session_id


def test_conflict_archive_of_referenced_session(memory: AgentMemory) -> None:
    source = memory.register_manual("a", "Login", "Fixed it.")
    follower = memory.register_manual("b", "More", "Went on.", continues_from=[source])
    with pytest.raises(memory_core.ConflictError) as caught:
        memory.archive(source)
    error = caught.value
    assert isinstance(error, RuntimeError)
    assert error.session_id == source
    assert error.path == memory.index_path
    assert follower in str(error)
    assert (error.kind, error.code) == ("conflict", "ERR_MEMORY_CONFLICT")
    assert memory.session(source).referenced_by == [follower]  # nothing changed


def test_conflict_duplicate_row_has_line(memory: AgentMemory, root: pathlib.Path) -> None:
    row = (
        "| 2026-01-01-0000-a | a | t | s. | k | active | - "
        "| 2026-01-01T00:00:00+00:00 | 2026-01-01T00:00:00+00:00 |"
    )
    index = write_index(root, row, row)
    with pytest.raises(memory_core.ConflictError) as caught:
        memory.sessions()
    assert caught.value.path == index
    assert caught.value.line == 6
    assert caught.value.session_id == "2026-01-01-0000-a"


def test_malformed_row_with_missing_cells(memory: AgentMemory, root: pathlib.Path) -> None:
    memory.register_session_start("a")
    index = memory.index_path
    with index.open("a", encoding="utf-8") as f:
        f.write("| 2026-01-01-0000-b | b | only three cells |\n")
    bad_row = index.read_bytes().splitlines(keepends=True)[5]
    # Commands that interpret every row refuse, naming the file and line, and write nothing.
    before = index.read_bytes()
    for call in (memory.sessions, lambda: memory.find("x"), memory.organize):
        with pytest.raises(memory_core.MalformedFileError) as caught:
            call()
        error = caught.value
        assert isinstance(error, ValueError)
        assert error.path == index
        assert error.line == 6
        assert error.session_id is None
        assert (error.kind, error.code) == ("malformed", "ERR_MEMORY_MALFORMED")
        assert f"{index}:6:" in str(error)
        assert index.read_bytes() == before  # nothing was written
    # SessionStart registers beside it, warns naming the file and line, keeps the row.
    with pytest.warns(memory_core.MemoryCoreWarning) as emitted:
        session_id = memory.register_session_start("c")
    [warning] = [w.message for w in emitted]
    assert isinstance(warning, memory_core.MemoryCoreWarning)
    assert (warning.path, warning.line) == (index, 6)
    assert str(warning).startswith(f"{index}:6: ")
    after = index.read_bytes().splitlines(keepends=True)
    assert after[5] == bad_row
    assert after[6].startswith(f"| {session_id} | c |".encode())
    assert index.read_bytes().startswith(before)


def test_lock_timeout(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=0.2)
    with lock_held_by_other_process(root):
        started = time.monotonic()
        with pytest.raises(memory_core.LockTimeoutError) as caught:
            memory.register_session_start("a")
        waited = time.monotonic() - started
    error = caught.value
    assert isinstance(error, TimeoutError) and isinstance(error, OSError)
    assert 0.2 <= waited < 5
    assert error.path == root / ".memcore.lock"
    assert error.filename == str(root / ".memcore.lock")
    assert (error.kind, error.code) == ("lock_timeout", "ERR_MEMORY_LOCK_TIMEOUT")
    assert "timed out" in str(error)
    # Released with the other process: the same handle works again.
    assert memory.register_session_start("a")


def test_io_error_root_below_a_file(tmp_path: pathlib.Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    memory = AgentMemory(afile / "memory")  # opening creates nothing, so it succeeds
    with pytest.raises(memory_core.MemoryIOError) as caught:
        memory.register_session_start("a")
    error = caught.value
    assert isinstance(error, OSError)
    assert error.errno == errno.ENOTDIR
    assert error.strerror
    assert error.path == afile / "memory"
    assert error.filename == str(afile / "memory")
    assert error.session_id is None
    assert (error.kind, error.code) == ("io", "ERR_MEMORY_IO")
    assert str(error).startswith(str(afile / "memory"))  # the core's message, not "[Errno …]"
    assert error.syscall == "mkdir"
    with pytest.raises(memory_core.MemoryNotADirectoryError) as caught:
        memory.sessions()
    assert (caught.value.errno, caught.value.syscall) == (errno.ENOTDIR, "open")
    assert caught.value.path == afile / "memory" / "index.md"


def _raised_io_error(call: Callable[[], object]) -> memory_core.MemoryIOError:
    with pytest.raises(memory_core.MemoryIsADirectoryError) as caught:
        call()
    error = caught.value
    assert isinstance(error, IsADirectoryError) and isinstance(error, memory_core.MemoryIOError)
    assert error.errno == errno.EISDIR
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(error, protocol=protocol))
        assert type(again) is type(error)
        assert (again.syscall, again.errno, again.path, str(again)) == (
            error.syscall,
            error.errno,
            error.path,
            str(error),
        )
    return error


def test_io_errors_name_the_failed_syscall(tmp_path: pathlib.Path) -> None:
    # A directory where the index should be: it opens (directories do), reading fails.
    root = tmp_path / "index-dir"
    (root / "index.md").mkdir(parents=True)
    memory = AgentMemory(root)
    for call in (memory.sessions, lambda: memory.register_session_start("a")):
        error = _raised_io_error(call)
        assert (error.syscall, error.path) == ("read", root / "index.md")

    # A directory where the lock file should be: opening it for writing fails.
    locked = tmp_path / "lock-dir"
    (locked / ".memcore.lock").mkdir(parents=True)
    error = _raised_io_error(lambda: AgentMemory(locked).register_session_start("a"))
    assert (error.syscall, error.path) == ("open", locked / ".memcore.lock")

    # A directory where a snapshot is to be updated: reading it fails, nothing is written.
    writer = AgentMemory(tmp_path / "snapshot-dir")
    session = writer.register_session_start("a")
    snapshot = writer.session_path(session)
    snapshot.mkdir(parents=True)
    error = _raised_io_error(lambda: writer.update(session, summary="x"))
    assert (error.syscall, error.path) == ("read", snapshot)
    assert list(snapshot.iterdir()) == []


def test_errors_other_than_io_have_no_syscall(memory: AgentMemory) -> None:
    with pytest.raises(memory_core.NotFoundError) as caught:
        memory.session("2026-01-01-0000-nobody")
    assert not hasattr(caught.value, "syscall")
    assert memory_core.MemoryIOError.syscall is None


def test_every_error_is_a_memory_core_error(memory: AgentMemory) -> None:
    with pytest.raises(memory_core.MemoryCoreError):
        memory.session("../x")
    with pytest.raises(memory_core.MemoryCoreError):
        memory.session("nobody")


def every_error_class() -> list[type[memory_core.MemoryCoreError]]:
    """MemoryCoreError and every subclass the package exports."""
    found = [
        value
        for value in vars(memory_core).values()
        if isinstance(value, type) and issubclass(value, memory_core.MemoryCoreError)
    ]
    assert len(found) == 13, found  # the base, 7 kinds, 5 I/O subclasses
    return found


@pytest.mark.parametrize("cls", every_error_class(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("args", [(), ("by hand",), ("two", "args")], ids=["no-args", "message", "two-args"])
def test_an_error_built_by_hand_has_every_documented_attribute(
    cls: type[memory_core.MemoryCoreError], args: tuple[str, ...]
) -> None:
    error = cls(*args)
    assert (error.path, error.line, error.session_id) == (None, None, None)
    if cls is memory_core.MemoryCoreError:
        assert (error.kind, error.code) == (None, None)
    else:
        assert error.kind is not None and error.code is not None
        assert error.code == "ERR_MEMORY_" + error.kind.upper()
        assert (error.kind, error.code) == (cls.kind, cls.code)
    if isinstance(error, memory_core.MemoryIOError):
        assert error.syscall is None
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls
    assert (again.kind, again.code, again.path) == (error.kind, error.code, None)


def test_the_base_class_defaults_are_class_attributes() -> None:
    base = memory_core.MemoryCoreError
    assert (base.kind, base.code, base.path, base.line, base.session_id) == (None,) * 5
    assert memory_core.MemoryIOError.syscall is None


def test_a_user_subclass_built_by_hand_inherits_the_defaults() -> None:
    class MyError(memory_core.MemoryCoreError):
        pass

    class MyNotFound(memory_core.NotFoundError):
        pass

    class MyIO(memory_core.MemoryFileNotFoundError):
        pass

    mine = MyError("x")
    assert (mine.kind, mine.code, mine.path, mine.line, mine.session_id) == (None,) * 5
    assert (MyNotFound().kind, MyNotFound().code) == ("not_found", "ERR_MEMORY_NOT_FOUND")
    io = MyIO()
    assert (io.kind, io.syscall, io.path, io.filename) == ("io", None, None, None)


def test_an_instance_attribute_does_not_change_the_class_default(memory: AgentMemory) -> None:
    memory.register_session_start("a")
    with pytest.raises(memory_core.NotFoundError) as caught:
        memory.session("2026-05-25-1318-missing")
    assert caught.value.session_id == "2026-05-25-1318-missing"
    assert memory_core.NotFoundError().session_id is None
    assert memory_core.MemoryCoreError().session_id is None
