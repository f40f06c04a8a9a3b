"""Every AgentMemory method, called for real on a temporary memory root."""

from __future__ import annotations

import datetime
import doctest
import math
import os
import pathlib
import pickle
import sys
import threading

import pytest

import memory_core
from memory_core import AgentMemory

from _support import lock_held_by_other_process, release, write_index

OLD_ROW = (
    "| 2020-01-01-0000-old | old-agent | Old work | Migrated the billing tables. | billing "
    "| active | - | 2020-01-01T00:00:00+00:00 | 2020-01-01T00:00:00+00:00 |"
)


class FsPath:
    """A minimal os.PathLike that is not a pathlib.Path."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return self.path


def test_package_docstring_example_runs() -> None:
    result = doctest.testmod(memory_core, raise_on_error=True)
    assert result.attempted > 0


def test_package_metadata() -> None:
    assert memory_core.__version__ == "0.1.0"
    assert set(memory_core.__all__) <= set(dir(memory_core))
    assert memory_core.AgentMemory is memory_core._native.AgentMemory


@pytest.mark.parametrize("kind", ["str", "pathlib", "fspath"])
def test_root_accepts_str_and_pathlike(tmp_path: pathlib.Path, kind: str) -> None:
    target = tmp_path / "memory"
    choices: dict[str, str | os.PathLike[str]] = {
        "str": str(target),
        "pathlib": target,
        "fspath": FsPath(str(target)),
    }
    arg = choices[kind]
    memory = AgentMemory(arg)
    assert memory.root == target
    assert isinstance(memory.root, pathlib.Path)
    session_id = memory.register_session_start("cursor-main-agent")
    assert (target / "index.md").is_file()
    assert memory.session(session_id).session_id == session_id


def test_open_creates_nothing_until_first_write(root: pathlib.Path) -> None:
    memory = AgentMemory(root)
    assert not root.exists()
    assert memory.sessions() == []
    assert memory.find("anything") == []
    memory.register_session_start("a")
    assert root.is_dir()


def test_paths(memory: AgentMemory, root: pathlib.Path) -> None:
    assert memory.index_path == root / "index.md"
    assert memory.session_path("2026-05-25-1318-a") == root / "sessions" / "2026-05-25-1318-a.md"
    assert memory.archive_dir("s-1") == root / "archive" / "s-1"
    assert repr(memory) == f"AgentMemory({root!r})"


def test_lock_timeout_accepts_seconds(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=0.5)
    assert memory.register_session_start("a")
    AgentMemory(root, lock_timeout=0)
    AgentMemory(root, lock_timeout=None)


def test_fixed_time_stops_the_clock(root: pathlib.Path) -> None:
    memory = AgentMemory(root, fixed_time="2026-05-25T13:18:00+08:00")
    first = memory.register_session_start("cursor-main-agent")
    second = memory.register_session_start("cursor-main-agent")
    assert (first, second) == (
        "2026-05-25-1318-cursor-main-agent",
        "2026-05-25-1318-cursor-main-agent-2",
    )
    assert memory.session(first).started_at == "2026-05-25T13:18:00+08:00"
    later = datetime.datetime(2026, 6, 1, 9, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=8)))
    row = AgentMemory(root, fixed_time=later).update(first, topic="Login")
    assert row.updated_at == "2026-06-01T09:30:00+08:00"
    assert row.started_at == "2026-05-25T13:18:00+08:00"


def test_fixed_time_needs_an_offset(root: pathlib.Path) -> None:
    with pytest.raises(memory_core.InvalidInputError, match="fixed time"):
        AgentMemory(root, fixed_time="2026-05-25 13:18")
    with pytest.raises(memory_core.InvalidInputError, match="fixed time"):
        AgentMemory(root, fixed_time=datetime.datetime(2026, 5, 25, 13, 18))

@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1716614280, "int 1716614280"),
        (datetime.date(2026, 5, 25), "date datetime.date(2026, 5, 25)"),
        (b"2026-05-25T13:18:00+08:00", "bytes b'2026-05-25T13:18:00+08:00'"),
        (["2026-05-25T13:18:00+08:00"], "list ['2026-05-25T13:18:00+08:00']"),
    ],
    ids=["int", "date", "bytes", "list"],
)
def test_fixed_time_of_another_type_is_refused_like_every_argument(
    root: pathlib.Path, value: object, shown: str
) -> None:
    with pytest.raises(memory_core.InvalidInputError) as caught:
        AgentMemory(root, fixed_time=value)  # type: ignore[arg-type]
    assert str(caught.value) == f"fixed_time: expected a str or a datetime.datetime, got {shown}"


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (-1.0, "-1"),
        (-1, "-1"),
        (-0.5, "-0.5"),
        (-1e300, "-1e300"),
        (-sys.float_info.max, "-1.7976931348623157e308"),
        (-(10**400), "-1.7976931348623157e308"),
        (-sys.float_info.min, "-2.2250738585072014e-308"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
    ],
)
def test_lock_timeout_rejects_bad_values_showing_them_briefly(
    root: pathlib.Path, bad: float, shown: str
) -> None:
    with pytest.raises(memory_core.InvalidInputError) as caught:
        AgentMemory(root, lock_timeout=bad)
    assert str(caught.value) == (
        f'invalid lock timeout "{shown}": must be a finite number of seconds, at least 0'
    )


@pytest.mark.parametrize(
    "seconds",
    [0, -0.0, 5e-324, 1e-9, 0.5, 10, 2**63, 2**64, 1.8446744073709552e19, 1e20, 1e300,
     sys.float_info.max, 10**400],
)
def test_lock_timeout_accepts_every_finite_value_of_at_least_0(
    root: pathlib.Path, seconds: float
) -> None:
    memory = AgentMemory(root, lock_timeout=seconds)
    assert memory.register_session_start("a")
    # A handle with a wait too long for a Duration still pickles and copies.
    again = pickle.loads(pickle.dumps(memory))
    assert again.root == memory.root


def test_a_lock_timeout_beyond_a_duration_waits_rather_than_failing(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=1e300)
    with lock_held_by_other_process(root) as holder:
        threading.Timer(0.3, release, (holder,)).start()
        assert memory.register_session_start("a")


def test_register_session_start(memory: AgentMemory) -> None:
    session_id = memory.register_session_start("cursor-main-agent")
    assert isinstance(session_id, str)
    assert session_id.endswith("-cursor-main-agent")
    row = memory.session(session_id)
    assert row.status == "idle"
    assert row.agent_name == "cursor-main-agent"
    assert row.topic == "未設定"
    assert row.keywords == ["sessionStart", "cursor-agent"]
    assert row.referenced_by == []
    assert not row.is_meaningful()
    assert not row.has_meaningful_summary()
    assert memory.snapshot(session_id) is None
    assert not memory.session_path(session_id).exists()


def test_same_agent_same_minute_gets_distinct_ids(memory: AgentMemory) -> None:
    ids = [memory.register_session_start("a") for _ in range(3)]
    assert len(set(ids)) == 3


def test_register_manual_with_every_option(memory: AgentMemory) -> None:
    source = memory.register_manual("agent-a", "Login bug", "Found the cookie bug.")
    session_id = memory.register_manual(
        "agent-b",
        "Login follow-up",
        "Merging the fix.",
        keywords=["login", "cookies"],
        context="The fix is in review.",
        decisions=["Rotate cookies on login"],
        files=("src/auth.rs",),
        open_questions=["Do we need a migration?"],
        next_actions=["Merge the fix"],
        continues_from=[source],
    )
    row = memory.session(session_id)
    assert (row.status, row.topic, row.summary) == ("active", "Login follow-up", "Merging the fix.")
    assert row.keywords == ["login", "cookies"]
    assert row.is_meaningful() and row.has_meaningful_summary()
    assert memory.session(source).referenced_by == [session_id]

    snapshot = memory.snapshot(session_id)
    assert snapshot is not None
    assert snapshot.session_id == session_id
    assert snapshot.agent_name == "agent-b"
    assert snapshot.topic == "Login follow-up"
    assert snapshot.status == "active"
    assert snapshot.started_at == row.started_at
    assert snapshot.updated_at == row.updated_at
    assert "The fix is in review." in snapshot.current_context
    assert [i.text for i in snapshot.decisions] == ["Rotate cookies on login"]
    assert [i.text for i in snapshot.files] == ["src/auth.rs"]
    assert [i.text for i in snapshot.open_questions] == ["Do we need a migration?"]
    assert [i.text for i in snapshot.next_actions] == ["Merge the fix"]
    assert snapshot.continues_from == [source]
    assert snapshot.superseded_resolved == []
    assert snapshot.other_sections == []
    assert memory.session_path(session_id).is_file()


def test_register_manual_defaults(memory: AgentMemory) -> None:
    session_id = memory.register_manual("a", "Topic", "Summary.")
    row = memory.session(session_id)
    assert row.keywords == ["manual-registration", "cursor-agent", "session-snapshot"]
    snapshot = memory.snapshot(session_id)
    assert snapshot is not None and snapshot.continues_from == []


def test_update_merges_and_marks(memory: AgentMemory) -> None:
    session_id = memory.register_session_start("a")
    row = memory.update(
        session_id,
        topic="Login",
        summary="Investigating the login bug.",
        keywords=["login"],
        context="Reproduced locally.",
        decisions=["Use bcrypt"],
        files=["src/auth.rs"],
        open_questions=["Is the cookie rotated?"],
        next_actions=["Reproduce the bug", "Write the fix"],
    )
    assert isinstance(row, memory_core.SessionRow)
    assert (row.status, row.topic, row.summary, row.keywords) == (
        "active",
        "Login",
        "Investigating the login bug.",
        ["login"],
    )
    assert memory.session(session_id) == row

    second = memory.update(
        session_id,
        context="Cookie rotation was missing.",
        decisions=["Use argon2id"],
        supersede=["Use bcrypt"],
        resolve=["cookie rotated"],
        done=["Reproduce the bug"],
    )
    assert second.topic == "Login"  # None leaves a field as it is
    snapshot = memory.snapshot(session_id)
    assert snapshot is not None
    assert "Reproduced locally." in snapshot.current_context
    assert "Cookie rotation was missing." in snapshot.current_context
    every_item = {
        (i.text, i.mark)
        for i in snapshot.decisions
        + snapshot.open_questions
        + snapshot.next_actions
        + snapshot.superseded_resolved
    }
    # Nothing is dropped: outdated items stay, marked.
    assert ("Use bcrypt", "superseded") in every_item
    assert ("Use argon2id", None) in every_item
    assert ("Is the cookie rotated?", "resolved") in every_item
    assert ("Reproduce the bug", "done") in every_item
    assert ("Write the fix", None) in every_item


def test_update_with_nothing_still_promotes(memory: AgentMemory) -> None:
    session_id = memory.register_session_start("a")
    assert memory.update(session_id).status == "active"


def test_list_arguments_reject_a_bare_string(memory: AgentMemory) -> None:
    session_id = memory.register_session_start("a")
    with pytest.raises(memory_core.InvalidInputError, match="^decisions: expected a list of str"):
        # A str is a Sequence[str] to type checkers, but never a list of items here.
        memory.update(session_id, decisions="Use argon2id")
    assert memory.session(session_id).status == "idle"


def test_continue_from_and_release(memory: AgentMemory) -> None:
    source = memory.register_manual("a", "Login", "Fixed it.")
    current = memory.register_session_start("b")
    outcome = memory.continue_from(current, source)
    assert isinstance(outcome, memory_core.ContinueOutcome)
    assert outcome.current.session_id == current
    assert outcome.current.status == "active"
    assert outcome.source.referenced_by == [current]
    assert memory.session(source) == outcome.source
    snapshot = memory.snapshot(current)
    assert snapshot is not None and snapshot.continues_from == [source]

    released = memory.release(current, source)
    assert isinstance(released, memory_core.ReleaseOutcome)
    assert (released.current, released.source) == (current, source)
    assert released.referenced_by_updated and released.continues_from_updated
    assert memory.session(source).referenced_by == []
    again = memory.release(current, source)
    assert not again.referenced_by_updated and not again.continues_from_updated


def test_organize(memory: AgentMemory, root: pathlib.Path) -> None:
    write_index(root, OLD_ROW)
    idle = memory.register_session_start("idle-agent")
    source = memory.register_manual("a", "Login", "Fixed it.")
    follower = memory.register_manual("b", "More", "Went on.", continues_from=[source])

    preview = memory.organize(dry_run=True)
    assert isinstance(preview, memory_core.OrganizeReport)
    assert preview.dry_run
    assert preview.deleted_idle == [idle]
    assert preview.marked_stale == ["2020-01-01-0000-old"]
    assert preview.protected == [source]
    assert preview.kept_active == [follower]
    assert memory.session(idle).status == "idle"  # dry run wrote nothing
    assert memory.session("2020-01-01-0000-old").status == "active"

    patient = memory.organize(stale_after_days=1_000_000)
    assert patient.marked_stale == [] and not patient.dry_run
    assert "2020-01-01-0000-old" in patient.kept_active

    memory.register_session_start("idle-agent")
    report = memory.organize()
    assert report.marked_stale == ["2020-01-01-0000-old"]
    old = memory.session("2020-01-01-0000-old")
    assert old.status == "stale"
    assert old.updated_at == "2020-01-01T00:00:00+00:00"  # kept
    assert memory.sessions_with_status("idle") == []


def test_organize_rejects_negative_days(memory: AgentMemory) -> None:
    with pytest.raises(memory_core.InvalidInputError, match="stale_after_days"):
        memory.organize(stale_after_days=-1)


def test_archive(memory: AgentMemory) -> None:
    source = memory.register_manual("a", "Login", "Fixed it.")
    follower = memory.register_manual("b", "More", "Went on.", continues_from=[source])

    archived = memory.archive(follower)
    assert isinstance(archived, memory_core.ArchiveOutcome)
    assert archived.outcome == "archived"
    assert archived.session_id == follower
    assert archived.released_from == [source]
    assert archived.warnings == []
    assert archived.archive_index == memory.archive_dir(follower) / "index.md"
    assert archived.session_file == memory.archive_dir(follower) / "session.md"
    assert archived.archive_index is not None and archived.archive_index.is_file()
    assert archived.session_file is not None and archived.session_file.is_file()
    assert not memory.session_path(follower).exists()
    assert memory.session(source).referenced_by == []
    assert memory.archive(source).outcome == "archived"

    idle = memory.register_session_start("c")
    deleted = memory.archive(idle)
    assert deleted.outcome == "deleted"
    assert deleted.session_id == idle
    assert deleted.archive_index is None and deleted.session_file is None
    assert deleted.released_from == []
    assert deleted.warnings == []
    assert not memory.archive_dir(idle).exists()
    assert memory.sessions() == []


def test_sessions_reading_order_and_status_filter(memory: AgentMemory) -> None:
    idle = memory.register_session_start("a")
    active = memory.register_manual("b", "Login", "Fixed it.")
    rows = memory.sessions()
    assert [r.session_id for r in rows] == [active, idle]
    assert all(isinstance(r, memory_core.SessionRow) for r in rows)
    assert [r.session_id for r in memory.sessions_with_status("idle")] == [idle]
    assert [r.session_id for r in memory.sessions_with_status("active")] == [active]
    assert memory.sessions_with_status("stale") == []
    with pytest.raises(memory_core.InvalidInputError, match="status"):
        memory.sessions_with_status("closed")  # type: ignore[arg-type]


def test_session_and_snapshot(memory: AgentMemory) -> None:
    session_id = memory.register_manual("a", "Login", "Fixed it.", decisions=["Use argon2"])
    assert memory.session(session_id).topic == "Login"
    snapshot = memory.snapshot(session_id)
    assert isinstance(snapshot, memory_core.Snapshot)
    assert isinstance(snapshot.decisions[0], memory_core.SnapshotItem)
    assert (snapshot.decisions[0].text, snapshot.decisions[0].mark) == ("Use argon2", None)


def test_find(memory: AgentMemory) -> None:
    login = memory.register_manual("a", "Login bug", "Fixed it.", keywords=["auth"])
    memory.register_manual("b", "Payments", "Refunds work.")
    assert [r.session_id for r in memory.find("LOGIN")] == [login]
    assert [r.session_id for r in memory.find("auth")] == [login]
    assert memory.find("nothing like this") == []


def test_keywords_are_cleaned_once_by_the_core_for_update_and_registration(memory: AgentMemory) -> None:
    sid = memory.register_session_start("a")
    assert memory.update(sid, keywords=[" x ", "", "-", "y<br>"]).keywords == ["x", "y"]
    registered = memory.register_manual("b", "T", "S.", keywords=[" x ", "", "-", "y<br>"])
    assert memory.session(registered).keywords == ["x", "y"]
    for call in (
        lambda: memory.update(sid, keywords=["a<br>b"]),
        lambda: memory.register_manual("c", "T", "S.", keywords=["a<br>b"]),
    ):
        with pytest.raises(memory_core.InvalidInputError, match="keyword"):
            call()
    assert memory.session(sid).keywords == ["x", "y"]
