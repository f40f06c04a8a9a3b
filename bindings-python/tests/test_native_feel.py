"""What makes the binding feel like a Python library: typed argument errors, pickling and
copying, builtin I/O subclasses, Ctrl-C during a lock wait, a root that survives chdir,
typed to_dict(), public Literal aliases."""

from __future__ import annotations

import collections.abc
import copy
import multiprocessing
import os
import pathlib
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import typing
from collections.abc import Callable

import pytest

import memory_core
from memory_core import AgentMemory

from _support import lock_held_by_other_process

FIXED = "2026-05-25T13:18:00+08:00"


def linked(memory: AgentMemory) -> tuple[str, str]:
    source = memory.register_manual(
        "a", "Login", "Fixed it.", decisions=["Use argon2id"], open_questions=["Why?"]
    )
    follower = memory.register_session_start("b")
    memory.continue_from(follower, source)
    return source, follower


def every_result(memory: AgentMemory) -> list[object]:
    source, follower = linked(memory)
    idle = memory.register_session_start("c")
    snapshot = memory.snapshot(source)
    assert snapshot is not None
    return [
        memory.session(source),
        snapshot,
        snapshot.decisions[0],
        memory.update(source, next_actions=["Ship"]),
        memory.organize(dry_run=True),
        memory.continue_from(follower, source),
        memory.release(follower, source),
        memory.archive(idle),
        memory.archive(follower),
    ]


# --- argument conversion -------------------------------------------------------------

WRONG_TEXT: list[object] = [5, 2.5, None, b"bytes", ["a"], {"a": 1}, True]
WRONG_LIST: list[object] = ["a bare string", b"bytes", 5, 1.5, True, {"a"}.pop]


def text_calls(memory: AgentMemory, sid: str) -> list[tuple[str, Callable[[object], object]]]:
    m: typing.Any = memory
    return [
        ("session_id", lambda v: m.session(v)),
        ("session_id", lambda v: m.snapshot(v)),
        ("session_id", lambda v: m.archive(v)),
        ("session_id", lambda v: m.session_path(v)),
        ("session_id", lambda v: m.archive_dir(v)),
        ("session_id", lambda v: m.update(v)),
        ("agent_name", lambda v: m.register_session_start(v)),
        ("agent_name", lambda v: m.register_manual(v, "t", "s")),
        ("topic", lambda v: m.register_manual("a", v, "s")),
        ("summary", lambda v: m.register_manual("a", "t", v)),
        ("current", lambda v: m.continue_from(v, sid)),
        ("source", lambda v: m.continue_from(sid, v)),
        ("current", lambda v: m.release(v, sid)),
        ("source", lambda v: m.release(sid, v)),
        ("status", lambda v: m.sessions_with_status(v)),
        ("query", lambda v: m.find(v)),
    ]


def test_a_wrong_type_for_a_text_parameter_is_invalid_input_naming_it(
    memory: AgentMemory,
) -> None:
    sid = memory.register_session_start("a")
    before = memory.index_path.read_bytes()
    for name, call in text_calls(memory, sid):
        for value in WRONG_TEXT:
            with pytest.raises(memory_core.InvalidInputError) as caught:
                call(value)
            message = str(caught.value)
            assert message.startswith(f"{name}: expected a str, got "), message
            for rust_word in ("PyString", "String", "Rust", "&str", "PyAny"):
                assert rust_word not in message, message
    assert memory.index_path.read_bytes() == before


def test_optional_text_parameters_take_none_and_refuse_other_types(memory: AgentMemory) -> None:
    sid = memory.register_session_start("a")
    m: typing.Any = memory
    for name in ("topic", "summary", "context"):
        assert m.update(sid, **{name: None}).session_id == sid
        for value in (5, ["x"], b"x"):
            with pytest.raises(memory_core.InvalidInputError, match=f"^{name}: expected a str"):
                m.update(sid, **{name: value})
    with pytest.raises(memory_core.InvalidInputError, match="^context: expected a str"):
        m.register_manual("a", "t", "s", context=3)


LIST_PARAMS_UPDATE = [
    "keywords", "decisions", "files", "open_questions", "next_actions",
    "supersede", "resolve", "done",
]
LIST_PARAMS_MANUAL = [
    "keywords", "decisions", "files", "open_questions", "next_actions", "continues_from",
]


@pytest.mark.parametrize("value", WRONG_LIST)
def test_a_wrong_type_for_a_list_parameter_is_invalid_input_naming_it(
    memory: AgentMemory, value: object
) -> None:
    sid = memory.register_session_start("a")
    m: typing.Any = memory
    before = memory.index_path.read_bytes()
    for name in LIST_PARAMS_UPDATE:
        with pytest.raises(memory_core.InvalidInputError, match=f"^{name}: expected a "):
            m.update(sid, **{name: value})
    for name in LIST_PARAMS_MANUAL:
        with pytest.raises(memory_core.InvalidInputError, match=f"^{name}: expected a "):
            m.register_manual("a", "t", "s", **{name: value})
    assert memory.index_path.read_bytes() == before


def test_a_list_with_a_non_str_item_names_the_parameter_and_item(memory: AgentMemory) -> None:
    sid = memory.register_session_start("a")
    m: typing.Any = memory
    with pytest.raises(memory_core.InvalidInputError, match=r"^decisions: expected a str as item 1, got int 3"):
        m.update(sid, decisions=["fine", 3])


class Lines(collections.abc.Sequence[str]):
    """A user-defined sequence of str (neither list nor tuple)."""

    def __init__(self, *items: str) -> None:
        self.items = list(items)

    @typing.overload
    def __getitem__(self, index: int) -> str: ...
    @typing.overload
    def __getitem__(self, index: slice) -> Lines: ...
    def __getitem__(self, index: int | slice) -> str | Lines:
        if isinstance(index, slice):
            return Lines(*self.items[index])
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)


def test_lists_tuples_and_other_sequences_of_str_are_accepted(memory: AgentMemory) -> None:
    source = memory.register_manual("s", "t", "s")
    makers: list[Callable[..., collections.abc.Sequence[str]]] = [
        lambda *items: list(items), lambda *items: tuple(items), lambda *items: Lines(*items)
    ]
    for make in makers:
        sid = memory.register_manual(
            "a", "t", "s",
            keywords=make("k"), decisions=make("D1"), files=make("f.py"),
            open_questions=make("Q1"), next_actions=make("N1"), continues_from=make(source),
        )
        snapshot = memory.snapshot(sid)
        assert snapshot is not None
        assert [i.text for i in snapshot.decisions] == ["D1"]
        assert snapshot.continues_from == [source]
        memory.update(
            sid, keywords=make("k2"), decisions=make("D2"), files=make("g.py"),
            open_questions=make("Q2"), next_actions=make("N2"),
        )
        memory.update(sid, supersede=make("D1"), resolve=make("Q1"), done=make("N1"))
        snapshot = memory.snapshot(sid)
        assert snapshot is not None
        assert [(i.text, i.mark) for i in snapshot.decisions] == [("D1", "superseded"), ("D2", None)]
        assert [(i.text, i.mark) for i in snapshot.open_questions][0] == ("Q1", "resolved")
        assert [(i.text, i.mark) for i in snapshot.next_actions][0] == ("N1", "done")
        assert "k2" in memory.session(sid).keywords
        memory.update(sid, decisions=make())  # an empty sequence adds nothing


NOT_SEQUENCES: list[tuple[object, str]] = [
    ({"a": 1}, "dict"),
    ({"a"}, "set"),
    (frozenset({"a"}), "frozenset"),
    ((d for d in ["a"]), "generator"),
    ({"a": 1}.keys(), "dict_keys"),
    ({"a": 1}.values(), "dict_values"),
    (iter(["a"]), "list_iterator"),
    (map(str, [1]), "map"),
    ("abc", "str"),
    (b"abc", "bytes"),
    (bytearray(b"abc"), "bytearray"),
]


@pytest.mark.parametrize(("value", "type_name"), NOT_SEQUENCES, ids=[t for _, t in NOT_SEQUENCES])
def test_iterables_that_are_not_sequences_are_refused_naming_the_parameter(
    memory: AgentMemory, value: object, type_name: str
) -> None:
    sid = memory.register_session_start("a")
    source = memory.register_session_start("s")
    m: typing.Any = memory
    before = {p: p.read_bytes() for p in memory.root.rglob("*") if p.is_file()}
    for name in LIST_PARAMS_UPDATE:
        with pytest.raises(memory_core.InvalidInputError) as caught:
            m.update(sid, **{name: value})
        assert str(caught.value).startswith(f"{name}: expected a list of str"), caught.value
        assert f", got {type_name} " in str(caught.value), caught.value
    for name in LIST_PARAMS_MANUAL:
        with pytest.raises(memory_core.InvalidInputError, match=f"^{name}: expected a list of str"):
            m.register_manual("a", "t", "s", **{name: value})
    with pytest.raises(memory_core.InvalidInputError, match="^continues_from: expected a list of str"):
        m.register_manual("a", "t", "s", continues_from={source})
    assert {p: p.read_bytes() for p in memory.root.rglob("*") if p.is_file()} == before


def test_list_and_tuple_subclasses_are_sequences_and_their_errors_propagate(
    memory: AgentMemory,
) -> None:
    class Names(list[str]):
        pass

    class Pair(tuple[str, ...]):
        pass

    class Broken(list[str]):
        def __iter__(self) -> typing.Iterator[str]:
            raise RuntimeError("iter boom")

    class NotASequence:
        """Indexable with a length, but not registered as a Sequence."""

        def __len__(self) -> int:
            return 1

        def __getitem__(self, index: int) -> str:
            return "x"

    sid = memory.register_session_start("a")
    m: typing.Any = memory
    m.update(sid, decisions=Names(["D1"]), files=Pair(("f.py",)))
    snapshot = memory.snapshot(sid)
    assert snapshot is not None and [i.text for i in snapshot.decisions] == ["D1"]
    with pytest.raises(RuntimeError, match="iter boom"):
        m.update(sid, decisions=Broken(["a"]))
    with pytest.raises(memory_core.InvalidInputError, match="^decisions: expected a list of str, got NotASequence"):
        m.update(sid, decisions=NotASequence())


def test_a_dict_is_refused_not_read_as_its_keys(memory: AgentMemory) -> None:
    sid = memory.register_session_start("a")
    m: typing.Any = memory
    with pytest.raises(
        memory_core.InvalidInputError, match=r"^decisions: expected a list of str, got dict \{'a': 1\}$"
    ):
        m.update(sid, decisions={"a": 1})
    snapshot = memory.snapshot(sid)
    assert snapshot is None or snapshot.decisions == []


def test_numbers_and_flags_are_checked_by_name(root: pathlib.Path) -> None:
    r: typing.Any = root
    value: typing.Any
    for value in ("10", [1], True):
        with pytest.raises(memory_core.InvalidInputError, match="^lock_timeout: expected a number"):
            AgentMemory(r, lock_timeout=value)
    for value in (-1, float("nan"), float("inf")):
        with pytest.raises(memory_core.InvalidInputError, match="lock timeout"):
            AgentMemory(r, lock_timeout=value)
    for value in (5, None, ["m"], 2.5):
        with pytest.raises(memory_core.InvalidInputError, match="^root: expected a str or os.PathLike"):
            AgentMemory(value)
    memory: typing.Any = AgentMemory(root)
    for value in ("14", 1.5, True):
        with pytest.raises(memory_core.InvalidInputError, match="^stale_after_days: expected an int"):
            memory.organize(stale_after_days=value)
    for value in (1, "yes"):
        with pytest.raises(memory_core.InvalidInputError, match="^dry_run: expected a bool"):
            memory.organize(dry_run=value)
    assert memory.organize(stale_after_days=3, dry_run=True).dry_run


def test_agent_name_is_the_parameter_name_everywhere(memory: AgentMemory) -> None:
    sid = memory.register_session_start(agent_name="a")
    other = memory.register_manual(agent_name="b", topic="t", summary="s")
    assert memory.session(sid).agent_name == "a" and memory.session(other).agent_name == "b"


# --- pickle and copy -----------------------------------------------------------------


def test_every_result_pickles_and_copies_to_an_equal_value(memory: AgentMemory) -> None:
    for result in every_result(memory):
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
            again = pickle.loads(pickle.dumps(result, protocol=protocol))
            assert type(again) is type(result)
            assert again == result and hash(again) == hash(result)
            assert repr(again) == repr(result)
        assert copy.copy(result) == result
        assert copy.deepcopy(result) == result
    row = memory.sessions()[0]
    again = pickle.loads(pickle.dumps(row))
    assert (again.is_meaningful(), again.has_meaningful_summary()) == (
        row.is_meaningful(),
        row.has_meaningful_summary(),
    )


def test_a_handle_pickles_with_its_root_and_options(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=2.5, fixed_time=FIXED)
    sid = memory.register_session_start("a")
    for again in (pickle.loads(pickle.dumps(memory)), copy.copy(memory), copy.deepcopy(memory)):
        assert again.root == memory.root
        assert again.session(sid) == memory.session(sid)
        # The fixed clock came along: the next id is minted at the same minute.
        assert again.register_session_start("a").startswith("2026-05-25-1318-a")


def _rows_in_worker(root: str) -> list[memory_core.SessionRow]:
    return AgentMemory(root).sessions()


def _register_in_worker(memory: AgentMemory) -> memory_core.SessionRow:
    return memory.session(memory.register_session_start("worker"))


def test_a_multiprocessing_pool_worker_returns_rows(root: pathlib.Path) -> None:
    memory = AgentMemory(root, fixed_time=FIXED)
    linked(memory)
    expected = memory.sessions()
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        from_workers = pool.map(_rows_in_worker, [str(root), str(root)])
        registered = pool.map(_register_in_worker, [memory, memory])
    assert from_workers == [expected, expected]
    assert {r.agent_name for r in registered} == {"worker"}
    assert all(r in memory.sessions() for r in registered)


ERROR_FIELDS = ("path", "line", "session_id", "kind", "code")


def test_exceptions_pickle_with_their_fields(memory: AgentMemory, root: pathlib.Path) -> None:
    sid = memory.register_manual("a", "t", "s", decisions=["Use argon2id", "Use argon2i"])
    raised: list[memory_core.MemoryCoreError] = []
    for call in (
        lambda: memory.session("2026-01-01-0000-nobody"),
        lambda: memory.update(sid, supersede=["bcrypt"]),
        lambda: memory.update(sid, supersede=["argon"]),
        lambda: memory.session(typing.cast(str, 5)),
        lambda: AgentMemory(root / "index.md"),
        lambda: AgentMemory(root / "index.md" / "memory").register_session_start("a"),
    ):
        with pytest.raises(memory_core.MemoryCoreError) as caught:
            call()
        raised.append(caught.value)
    for error in raised:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert str(again) == str(error)
        for field in ERROR_FIELDS:
            assert getattr(again, field) == getattr(error, field), field
        if isinstance(error, OSError):
            assert isinstance(again, OSError)
            assert (again.errno, again.strerror, again.filename) == (
                error.errno,
                error.strerror,
                error.filename,
            )


# --- error fields and builtin subclasses ---------------------------------------------


def test_item_errors_carry_the_session_id(memory: AgentMemory) -> None:
    sid = memory.register_manual("a", "t", "s", decisions=["Use argon2id", "Use argon2i"])
    with pytest.raises(memory_core.NotFoundError) as missing:
        memory.update(sid, supersede=["bcrypt"])
    assert missing.value.session_id == sid
    assert missing.value.path == memory.session_path(sid)
    with pytest.raises(memory_core.InvalidInputError) as ambiguous:
        memory.update(sid, supersede=["argon"])
    assert ambiguous.value.session_id == sid


def test_a_refused_link_names_its_path(memory: AgentMemory, root: pathlib.Path, tmp_path: pathlib.Path) -> None:
    sid = memory.register_manual("a", "t", "s")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    sessions = root / "sessions"
    (outside / f"{sid}.md").write_bytes(memory.session_path(sid).read_bytes())
    memory.session_path(sid).unlink()
    sessions.rmdir()
    sessions.symlink_to(outside, target_is_directory=True)
    with pytest.raises(memory_core.InvalidInputError) as caught:
        memory.snapshot(sid)
    assert caught.value.path == sessions
    assert "symbolic link" in str(caught.value)


def test_io_errors_are_the_matching_builtin_subclass(root: pathlib.Path) -> None:
    # index.md is a directory: reading it fails with EISDIR.
    (root / "index.md").mkdir(parents=True)
    with pytest.raises(IsADirectoryError) as is_dir:
        AgentMemory(root).sessions()
    assert isinstance(is_dir.value, memory_core.MemoryIsADirectoryError)
    assert isinstance(is_dir.value, memory_core.MemoryIOError)
    assert is_dir.value.errno is not None and is_dir.value.path == root / "index.md"
    # A root below a regular file: creating it fails with ENOTDIR or ENOENT-like errors.
    blocker = root.parent / "file"
    blocker.write_text("x")
    with pytest.raises(memory_core.MemoryIOError) as not_dir:
        AgentMemory(blocker / "memory").register_session_start("a")
    assert isinstance(not_dir.value, NotADirectoryError | FileExistsError)
    assert not isinstance(not_dir.value, IsADirectoryError)


def test_each_io_subclass_is_exported_and_both_things(root: pathlib.Path) -> None:
    for name, builtin in [
        ("MemoryFileNotFoundError", FileNotFoundError),
        ("MemoryPermissionError", PermissionError),
        ("MemoryIsADirectoryError", IsADirectoryError),
        ("MemoryNotADirectoryError", NotADirectoryError),
        ("MemoryFileExistsError", FileExistsError),
    ]:
        cls = getattr(memory_core, name)
        assert issubclass(cls, memory_core.MemoryIOError) and issubclass(cls, builtin)
        assert cls.kind == "io" and cls.code == "ERR_MEMORY_IO"
        assert name in memory_core.__all__
        assert type(pickle.loads(pickle.dumps(cls("x")))) is cls


def test_a_file_the_user_may_not_write_raises_permission_error() -> None:
    """Real permissions: the tree is root's, the call runs as ``nobody`` (setpriv) in a
    writable directory, so only the file's ownership refuses the write. Without root the
    same check runs on a file without write bits."""
    base = pathlib.Path(tempfile.mkdtemp())
    try:
        root = base / "memory"
        memory = AgentMemory(root)
        memory.register_session_start("owner")
        index = memory.index_path
        if os.geteuid() != 0 or shutil.which("setpriv") is None:
            index.chmod(0o444)
            before = index.read_bytes()
            with pytest.raises(memory_core.MemoryPermissionError) as caught:
                memory.register_session_start("other")
            assert isinstance(caught.value, PermissionError)
            assert caught.value.path == index
            assert index.read_bytes() == before
            return
        base.chmod(0o755)
        root.chmod(0o777)
        (root / ".memcore.lock").chmod(0o666)
        index.chmod(0o644)
        before = index.read_bytes()
        script = (
            "import sys, memory_core\n"
            "try:\n"
            "    memory_core.AgentMemory(sys.argv[1]).register_session_start('nobody-agent')\n"
            "except memory_core.MemoryPermissionError as e:\n"
            "    assert isinstance(e, PermissionError), type(e)\n"
            "    print(e.path, e.syscall, e.errno)\n"
            "else:\n"
            "    sys.exit('no error')\n"
        )
        run = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             sys.executable, "-c", script, str(root)],
            capture_output=True, text=True, timeout=60,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == [str(index), "open", "13"], run.stdout
        assert index.read_bytes() == before
        assert not [p for p in root.iterdir() if ".tmp-" in p.name]
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def test_lock_timeouts_give_rounded_durations(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=0.3)
    with lock_held_by_other_process(root):
        with pytest.raises(memory_core.LockTimeoutError) as caught:
            memory.register_session_start("a")
    assert str(caught.value).endswith(": timed out after 300 ms waiting for the memory lock"), str(
        caught.value
    )


# --- Ctrl-C during a lock wait -------------------------------------------------------

_WAITER = """
import sys, time, memory_core
memory = memory_core.AgentMemory(sys.argv[1], lock_timeout=60)
print("waiting", flush=True)
try:
    memory.register_session_start("a")
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(42)
"""


def test_ctrl_c_interrupts_a_lock_wait_within_half_a_second(root: pathlib.Path) -> None:
    with lock_held_by_other_process(root):
        waiter = subprocess.Popen(
            [sys.executable, "-c", _WAITER, str(root)], stdout=subprocess.PIPE, text=True
        )
        assert waiter.stdout is not None
        assert waiter.stdout.readline().strip() == "waiting"
        time.sleep(0.5)  # it is inside the lock wait now
        assert waiter.poll() is None
        sent = time.monotonic()
        waiter.send_signal(signal.SIGINT)
        line = waiter.stdout.readline()  # printed by the `except KeyboardInterrupt`
        elapsed = time.monotonic() - sent
        code = waiter.wait(timeout=10)
        assert line.strip() == "interrupted"
        waiter.stdout.close()
    assert code == 42
    assert elapsed < 0.5, f"took {elapsed:.2f} s"
    assert not (root / "index.md").exists()


# --- root, types, docs ---------------------------------------------------------------


def test_a_relative_root_survives_chdir(tmp_path: pathlib.Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    cwd = os.getcwd()
    try:
        os.chdir(first)
        memory = AgentMemory("memory")
        home = AgentMemory("~/memory")
        sid = memory.register_session_start("a")
        os.chdir(second)
        assert memory.root == first.resolve() / "memory"
        assert memory.root.is_absolute()
        assert memory.session(sid).session_id == sid
        memory.register_session_start("a")
        assert len(memory.sessions()) == 2
        assert not (second / "memory").exists()
        assert home.root == first.resolve() / "~" / "memory"
    finally:
        os.chdir(cwd)


DICTS: dict[str, type] = {
    "SessionRow": memory_core.SessionRowDict,
    "Snapshot": memory_core.SnapshotDict,
    "SnapshotItem": memory_core.SnapshotItemDict,
    "OrganizeReport": memory_core.OrganizeReportDict,
    "ContinueOutcome": memory_core.ContinueOutcomeDict,
    "ReleaseOutcome": memory_core.ReleaseOutcomeDict,
    "ArchiveOutcome": memory_core.ArchiveOutcomeDict,
}


def test_to_dict_has_exactly_the_keys_of_its_typed_dict(memory: AgentMemory) -> None:
    seen = set()
    for result in every_result(memory):
        name = type(result).__name__
        typed = DICTS[name]
        as_dict = result.to_dict()  # type: ignore[attr-defined]
        assert set(as_dict) == set(typing.get_type_hints(typed)), name
        seen.add(name)
    assert seen == set(DICTS)
    assert set(typing.get_type_hints(memory_core.OtherSectionDict)) == {"heading", "body"}


# The shapes of the Agent Memory results' to_dict() (ContextMemory's plain-dict results
# have their own in memory_core._context_types, checked in test_context_memory.py).
TYPED_DICTS = {
    name: getattr(memory_core, name)
    for name in memory_core.__all__
    if name.endswith("Dict")
    and typing.is_typeddict(getattr(memory_core, name))
    and getattr(memory_core, name).__module__ == "memory_core._types"
}


def annotation_parts(annotation: object) -> list[object]:
    """`annotation` and every annotation inside it: the fields of a TypedDict (resolved
    with get_type_hints), the arguments of List/Optional; a Literal's values are values,
    not annotations."""
    parts = [annotation]
    if typing.get_origin(annotation) is typing.Literal:
        return parts
    if typing.is_typeddict(annotation):
        for field in typing.get_type_hints(annotation).values():
            parts += annotation_parts(field)
    for argument in typing.get_args(annotation):
        parts += annotation_parts(argument)
    return parts


def test_no_typed_dict_annotation_holds_any() -> None:
    assert len(TYPED_DICTS) == 10, sorted(TYPED_DICTS)
    for name, typed in TYPED_DICTS.items():
        for part in annotation_parts(typed):
            assert part is not typing.Any, name
            if typing.get_origin(part) in (list, collections.abc.Sequence, dict):
                assert typing.get_args(part), f"{name}: bare {part!r} means Any items"
            assert part not in (list, dict, object), f"{name}: {part!r} means Any items"


def check_value(value: object, annotation: object, where: str, seen: set[str]) -> None:
    """Asserts `value` has the runtime type `annotation` says, recursively."""
    origin = typing.get_origin(annotation)
    if typing.is_typeddict(annotation):
        assert type(value) is dict, where
        hints = typing.get_type_hints(annotation)
        assert set(value) == set(hints), where
        seen.add(annotation.__name__)  # type: ignore[attr-defined]
        for key, field in hints.items():
            check_value(value[key], field, f"{where}.{key}", seen)
    elif origin is typing.Literal:
        assert type(value) is str and value in typing.get_args(annotation), (where, value)
    elif origin is typing.Union:
        options = typing.get_args(annotation)
        if value is None:
            assert type(None) in options, where
        else:
            [option] = [o for o in options if o is not type(None)]
            check_value(value, option, where, seen)
    elif origin is list:
        assert type(value) is list, (where, value)
        [item] = typing.get_args(annotation)
        for i, element in enumerate(value):
            check_value(element, item, f"{where}[{i}]", seen)
    elif annotation in (str, int, bool):
        assert type(value) is annotation, (where, value)  # exact: a bool is no int here
    else:
        raise AssertionError(f"{where}: no check for {annotation!r}")


def test_every_to_dict_value_has_its_annotated_type(root: pathlib.Path) -> None:
    memory = AgentMemory(root)
    source = memory.register_manual(
        "a",
        "Login",
        "Fixed it.",
        keywords=["auth", "login"],
        context="Cookies expire early.",
        decisions=["Use bcrypt"],
        files=["src/auth.rs"],
        open_questions=["Rotate cookies?"],
        next_actions=["Reproduce"],
    )
    memory.update(source, decisions=["Use argon2"], supersede=["Use bcrypt"], done=["Reproduce"])
    with memory.session_path(source).open("a", encoding="utf-8") as f:
        f.write("\n## Notes\n\nWritten by hand.\n")
    follower = memory.register_manual("b", "Follow", "Goes on.", continues_from=[source])
    idle = memory.register_session_start("c")
    snapshot = memory.snapshot(source)
    assert snapshot is not None and snapshot.other_sections
    assert {i.mark for i in snapshot.decisions + snapshot.next_actions} == {None, "superseded", "done"}
    assert memory.snapshot(follower).continues_from == [source]  # type: ignore[union-attr]
    results: list[object] = [
        memory.session(source),
        snapshot,
        snapshot.other_sections[0],
        memory.continue_from(idle, source),
        memory.release(idle, source),
        memory.organize(dry_run=True),
        memory.archive(idle),
        memory.archive(follower),
    ]
    with memory.index_path.open("a", encoding="utf-8") as f:
        f.write("| 2026-01-01-0000-z | z | only three cells |\n")
    start = memory.register_session_start_with_warnings("d")
    assert start.warnings, "the hand-written bad row gives a warning"
    results += [start, start.warnings[0]]
    seen: set[str] = set()
    for result in results:
        name = f"{type(result).__name__}Dict"
        check_value(result.to_dict(), TYPED_DICTS[name], name, seen)  # type: ignore[attr-defined]
    assert seen == set(TYPED_DICTS), "every TypedDict, nested ones too, met a populated value"


def test_the_literal_aliases_are_public() -> None:
    assert typing.get_args(memory_core.StatusLiteral) == ("idle", "active", "stale")
    assert typing.get_args(memory_core.MarkLiteral) == ("superseded", "resolved", "done")
    assert typing.get_args(memory_core.ArchiveKindLiteral) == ("archived", "deleted")
    kinds = typing.get_args(memory_core.ErrorKindLiteral)
    codes = typing.get_args(memory_core.ErrorCodeLiteral)
    classes = [
        c for c in vars(memory_core).values()
        if isinstance(c, type) and issubclass(c, memory_core.MemoryCoreError) and c is not memory_core.MemoryCoreError
    ]
    assert {c.kind for c in classes} == set(kinds)
    assert {c.code for c in classes} == set(codes)
    for name in ("StatusLiteral", "MarkLiteral", "ArchiveKindLiteral", "ErrorKindLiteral", "ErrorCodeLiteral"):
        assert name in memory_core.__all__


def test_help_shows_the_documentation(root: pathlib.Path) -> None:
    assert "Snapshot Merge Policy" in (AgentMemory.update.__doc__ or "")
    assert "lock_timeout" in (AgentMemory.__doc__ or "")
    assert "未設定" in (memory_core.SessionRow.topic.__doc__ or "")
    method: typing.Any = AgentMemory.register_session_start
    assert method.__text_signature__ == "($self, agent_name)"


def test_the_readme_quick_start_runs(tmp_path: pathlib.Path) -> None:
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python quick start", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Your Memory Session ID is: " in done.stdout
    assert "session_id: expected a str, got int 42" in done.stdout
    assert done.stdout.rstrip().endswith("archived")


def test_every_example_of_the_package_readme_runs(tmp_path: pathlib.Path) -> None:
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = [part.split("```", 1)[0] for part in readme.split("```python\n")[1:]]
    # What each prints: the Agent Memory example, the context-memory one, the structured one.
    printed = [
        ["ERR_MEMORY_NOT_FOUND"],
        ["project.app.decision.001 projects/app/decision-001-", "no_previous_head"],
        ["memory-infra.md", "['evict-dead']", "['Postgres 16']", "['over_budget']", "['Postgres 16', 'Redis 7 caches sessions']"],
    ]
    assert len(blocks) == len(printed)
    for code, expected in zip(blocks, printed):
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        for text in expected:
            assert text in done.stdout, done.stdout
