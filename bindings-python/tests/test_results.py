"""The result classes: frozen, compared by value, hashable, readable repr, to_dict()."""

from __future__ import annotations

import json
import pathlib
import pickle
from typing import Any

import pytest

import memory_core
from memory_core import AgentMemory

ROW_KEYS = {
    "session_id",
    "agent_name",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
}


@pytest.fixture
def linked(memory: AgentMemory) -> tuple[str, str]:
    """A source session and a follower that continues from it."""
    source = memory.register_manual(
        "a", "Login", "Fixed it.", decisions=["Use argon2"], next_actions=["Ship"]
    )
    follower = memory.register_session_start("b")
    memory.continue_from(follower, source)
    return source, follower


def every_result(memory: AgentMemory, linked: tuple[str, str]) -> list[Any]:
    """One instance of every result class, each obtained from a real call."""
    source, follower = linked
    snapshot = memory.snapshot(source)
    assert snapshot is not None
    return [
        memory.session(source),
        snapshot,
        snapshot.decisions[0],
        memory.continue_from(follower, source),
        memory.organize(dry_run=True),
        memory.release(follower, source),
        memory.archive(follower),
        memory.register_session_start_with_warnings("c"),
    ]


def test_results_are_frozen(memory: AgentMemory, linked: tuple[str, str]) -> None:
    for result in every_result(memory, linked):
        name = next(iter(result.to_dict()))
        with pytest.raises(AttributeError):
            setattr(result, name, "changed")
        with pytest.raises(AttributeError):
            result.brand_new_attribute = 1
        with pytest.raises(TypeError):
            type(result)()


def test_list_attributes_are_copies(memory: AgentMemory, linked: tuple[str, str]) -> None:
    source, follower = linked
    row = memory.session(source)
    row.referenced_by.append("someone-else")
    assert row.referenced_by == [follower]


def test_equality_and_hash(memory: AgentMemory, linked: tuple[str, str]) -> None:
    source, follower = linked
    first, again = memory.session(source), memory.session(source)
    assert first is not again
    assert first == again and hash(first) == hash(again)
    assert first != memory.session(follower)
    assert first != first.to_dict()
    assert len({first, again, memory.session(follower)}) == 2

    snapshot, snapshot_again = memory.snapshot(source), memory.snapshot(source)
    assert snapshot is not None and snapshot_again is not None
    assert snapshot == snapshot_again and hash(snapshot) == hash(snapshot_again)
    assert snapshot.decisions[0] == snapshot_again.decisions[0]
    assert snapshot.decisions[0] != snapshot.next_actions[0]

    assert memory.organize(dry_run=True) == memory.organize(dry_run=True)
    assert hash(memory.organize(dry_run=True)) == hash(memory.organize(dry_run=True))

    released = memory.release(follower, source)
    assert released != memory.release(follower, source)  # the second finds nothing to do
    assert memory.release(follower, source) == memory.release(follower, source)

    for result in every_result(memory, linked):
        assert result == result
        assert hash(result) == hash(result)
        assert result != object()


def test_repr_shows_every_field(memory: AgentMemory, linked: tuple[str, str]) -> None:
    source, _ = linked
    row = memory.session(source)
    assert repr(row) == (
        f"SessionRow(session_id={row.session_id!r}, agent_name='a', topic='Login', "
        f"summary='Fixed it.', keywords={row.keywords!r}, status='active', "
        f"referenced_by={row.referenced_by!r}, started_at={row.started_at!r}, "
        f"updated_at={row.updated_at!r})"
    )
    snapshot = memory.snapshot(source)
    assert snapshot is not None
    assert repr(snapshot.decisions[0]) == "SnapshotItem(text='Use argon2', mark=None)"
    assert "decisions=[SnapshotItem(text='Use argon2', mark=None)]" in repr(snapshot)
    for result in every_result(memory, linked):
        text = repr(result)
        assert text.startswith(type(result).__name__ + "(")
        for key in result.to_dict():
            assert f"{key}=" in text


def test_to_dict_is_plain_json(memory: AgentMemory, linked: tuple[str, str]) -> None:
    for result in every_result(memory, linked):
        data = result.to_dict()
        assert isinstance(data, dict)
        assert json.loads(json.dumps(data)) == data


def test_to_dict_contents(memory: AgentMemory, linked: tuple[str, str]) -> None:
    source, follower = linked
    row = memory.session(source)
    assert row.to_dict() == {key: getattr(row, key) for key in ROW_KEYS}

    snapshot = memory.snapshot(source)
    assert snapshot is not None
    data = snapshot.to_dict()
    assert data["decisions"] == [{"text": "Use argon2", "mark": None}]
    assert data["next_actions"] == [{"text": "Ship", "mark": None}]
    assert data["session_id"] == source
    assert data["other_sections"] == []

    outcome = memory.continue_from(follower, source)
    assert outcome.to_dict() == {
        "current": outcome.current.to_dict(),
        "source": outcome.source.to_dict(),
    }
    assert memory.organize(dry_run=True).to_dict() == {
        "deleted_idle": [],
        "marked_stale": [],
        "kept_active": [follower],
        "protected": [source],
        "removed_temp_files": [],
        "orphan_snapshots": [],
        "leftover_files": [],
        "unreadable": [],
        "dry_run": True,
    }
    assert memory.release(follower, source).to_dict() == {
        "current": follower,
        "source": source,
        "referenced_by_updated": True,
        "continues_from_updated": True,
    }
    archived = memory.archive(follower)
    expected: memory_core.ArchiveOutcomeDict = {
        "outcome": "archived",
        "session_id": follower,
        "archive_index": str(archived.archive_index),
        "session_file": str(archived.session_file),
        "released_from": [],
        "warnings": [],
    }
    assert archived.to_dict() == expected
    idle = memory.register_session_start("c")
    deleted = memory.archive(idle).to_dict()
    assert deleted["archive_index"] is None and deleted["warnings"] == []


def test_marks_and_other_sections(memory: AgentMemory) -> None:
    session_id = memory.register_manual(
        "a",
        "Login",
        "Fixed it.",
        decisions=["Use bcrypt"],
        open_questions=["Rotate cookies?"],
        next_actions=["Reproduce"],
    )
    memory.update(session_id, supersede=["Use bcrypt"], resolve=["Rotate"], done=["Reproduce"])
    path = memory.session_path(session_id)
    with path.open("a", encoding="utf-8") as f:
        f.write("\n## Notes\n\nWritten by hand.\n")
    snapshot = memory.snapshot(session_id)
    assert snapshot is not None
    marks = {i.mark for i in snapshot.decisions + snapshot.open_questions + snapshot.next_actions}
    marks |= {i.mark for i in snapshot.superseded_resolved}
    assert {"superseded", "resolved", "done"} <= marks
    assert len(snapshot.other_sections) == 1
    notes = snapshot.other_sections[0]
    assert isinstance(notes, memory_core.OtherSection)
    assert (notes.heading, notes.body) == ("Notes", "Written by hand.")
    assert notes.to_dict() == {"heading": "Notes", "body": "Written by hand."}
    assert repr(notes) == "OtherSection(heading='Notes', body='Written by hand.')"
    assert notes == memory.snapshot(session_id).other_sections[0]  # type: ignore[union-attr]
    assert snapshot.to_dict()["other_sections"] == [notes.to_dict()]


def test_archive_paths_are_pathlib(memory: AgentMemory, root: pathlib.Path) -> None:
    session_id = memory.register_manual("a", "Login", "Fixed it.")
    outcome = memory.archive(session_id)
    assert isinstance(outcome.archive_index, pathlib.Path)
    assert outcome.archive_index.parent == root / "archive" / session_id


# --- the unpickling constructor refuses a corrupt state --------------------------------

from memory_core import _native  # noqa: E402

FIELD_COUNTS = {
    "SessionRow": 9,
    "SnapshotItem": 2,
    "OtherSection": 2,
    "Snapshot": 14,
    "OrganizeReport": 9,
    "WarningRecord": 3,
    "SessionStart": 2,
    "ArchiveOutcome": 6,
    "ContinueOutcome": 2,
    "ReleaseOutcome": 4,
}

RUST_WORDS = ("Vec", "String", "PyString", "PyTuple", "PyAny", "extract", "`", "usize", "PathBuf")


def reduced(result: object) -> tuple[Any, str, tuple[Any, ...]]:
    """`(restore function, class name, state)` from the result's `__reduce__`."""
    restore, (name, state) = typing_any(result).__reduce__()
    return restore, name, state


def typing_any(value: object) -> Any:
    return value


def assert_plain_refusal(call: Any, *fragments: str) -> None:
    with pytest.raises(memory_core.InvalidInputError) as caught:
        call()
    message = str(caught.value)
    for word in RUST_WORDS:
        assert word not in message, message
    for fragment in fragments:
        assert fragment in message, message


def test_every_result_class_is_restored_from_its_own_state(
    memory: AgentMemory, linked: tuple[str, str]
) -> None:
    seen = set()
    for result in every_result(memory, linked):
        cls, name, state = reduced(result)
        assert cls is _native._restore
        assert len(state) == FIELD_COUNTS[name], name
        assert _native._restore(name, state) == result
        seen.add(name)
    assert seen | {"OtherSection", "WarningRecord"} == set(FIELD_COUNTS)


@pytest.mark.parametrize("name", sorted(FIELD_COUNTS))
def test_a_state_of_the_wrong_length_is_refused(name: str) -> None:
    expected = FIELD_COUNTS[name]
    for length in sorted({0, 1, expected - 1, expected + 1, 100} - {expected}):
        assert_plain_refusal(
            lambda: _native._restore(name, ("x",) * length),
            f"state: a pickled {name} holds {expected} fields, got {length}",
        )


@pytest.mark.parametrize("name", sorted(FIELD_COUNTS))
@pytest.mark.parametrize("junk", [object(), 1.5, ("x",), {"a": 1}, b"x"], ids=["object", "float", "tuple", "dict", "bytes"])
def test_a_field_of_the_wrong_type_is_refused_naming_class_and_field(name: str, junk: object) -> None:
    state = (junk,) * FIELD_COUNTS[name]
    assert_plain_refusal(lambda: _native._restore(name, state), "state: the field ", f" of a pickled {name} must be ")


def test_a_field_message_says_what_was_expected(memory: AgentMemory, linked: tuple[str, str]) -> None:
    row = memory.session(linked[0])
    _, _, state = reduced(row)
    bad = ("x", "a", "t", "s", "not a list", *state[5:])
    assert_plain_refusal(
        lambda: _native._restore("SessionRow", bad),
        "the field keywords of a pickled SessionRow must be a list of str, got str 'not a list'",
    )
    assert_plain_refusal(
        lambda: _native._restore("SessionRow", ("x",) * 100), "holds 9 fields, got 100"
    )


@pytest.mark.parametrize("mark", ["zzz", "", "Done", "superseded ", "none"])
def test_a_snapshot_item_with_an_unknown_mark_is_refused(mark: str) -> None:
    assert_plain_refusal(
        lambda: _native._restore("SnapshotItem", ("t", mark)),
        f"a pickled SnapshotItem has the mark {mark!r}".replace("'", '"'),
        "superseded, resolved, done",
    )
    for good in ("superseded", "resolved", "done", None):
        assert _native._restore("SnapshotItem", ("t", good)) == _native._restore(
            "SnapshotItem", ("t", good)
        )


@pytest.mark.parametrize("status", ["bogus", "", "Active", "archived"])
def test_a_session_row_with_an_unknown_status_is_refused(
    memory: AgentMemory, linked: tuple[str, str], status: str
) -> None:
    _, _, state = reduced(memory.session(linked[0]))
    bad = (*state[:5], status, *state[6:])
    assert_plain_refusal(lambda: _native._restore("SessionRow", bad), "status", "idle, active, stale")
    for good in ("idle", "active", "stale"):
        restored: Any = _native._restore("SessionRow", (*state[:5], good, *state[6:]))
        assert restored.status == good


def test_an_archive_outcome_of_an_unknown_kind_is_refused(memory: AgentMemory) -> None:
    idle = memory.register_session_start("c")
    _, _, state = reduced(memory.archive(idle))
    assert_plain_refusal(
        lambda: _native._restore("ArchiveOutcome", ("moved", *state[1:])), "archived, deleted"
    )


def test_nested_results_must_be_results(memory: AgentMemory, linked: tuple[str, str]) -> None:
    outcome = memory.continue_from(linked[1], linked[0])
    _, _, state = reduced(outcome)
    assert_plain_refusal(
        lambda: _native._restore("ContinueOutcome", (state[0], "x")),
        "the field source of a pickled ContinueOutcome must be a SessionRow, got str 'x'",
    )


def test_an_unknown_class_or_a_state_that_is_no_tuple_is_refused() -> None:
    native: Any = _native
    assert_plain_refusal(lambda: native._restore("Nope", ()), 'cls: no memory_core result class is named "Nope"')
    assert_plain_refusal(lambda: native._restore(5, ()), "cls: expected a str, got int 5")
    assert_plain_refusal(lambda: native._restore("SnapshotItem", ["t", None]), "got list")
    assert_plain_refusal(lambda: native._restore("SnapshotItem", None), "got NoneType")


@pytest.mark.parametrize("bad_id", ["", "-", "../etc", "a b", "a/b", "a|b"])
def test_a_session_row_with_an_invalid_session_id_is_refused(
    memory: AgentMemory, linked: tuple[str, str], bad_id: str
) -> None:
    _, _, state = reduced(memory.session(linked[0]))
    assert_plain_refusal(
        lambda: _native._restore("SessionRow", (bad_id, *state[1:])),
        "which is not a Memory Session ID",
    )
    assert_plain_refusal(
        lambda: _native._restore("SessionRow", (*state[:6], [linked[1], bad_id], *state[7:])),
        "which is not a Memory Session ID",
    )


def test_a_rebuilt_row_judges_meaning_by_the_core_rule(memory: AgentMemory) -> None:
    """`is_meaningful()` / `has_meaningful_summary()` are computed from the fields by the
    core, so a row rebuilt from a state agrees with the row the core reads back."""
    placeholder = memory.session(memory.register_session_start("a"))
    _, _, state = reduced(placeholder)
    assert (placeholder.is_meaningful(), placeholder.has_meaningful_summary()) == (False, False)
    cases = [
        # (topic, summary, keywords) -> (is_meaningful, has_meaningful_summary)
        ((state[2], state[3], state[4]), (False, False)),
        (("Login", state[3], state[4]), (True, False)),
        ((state[2], "Fixed the login bug.", state[4]), (True, True)),
        ((state[2], " - ", ["auth"]), (True, False)),
        (("-", "", []), (False, False)),
        ((" 未設定 ", "手動補註冊，已建立 session snapshot。", ["manual-registration", "cursor-agent", "session-snapshot"]), (False, False)),
        ((state[2], state[3], ["cursor-agent", "sessionStart"]), (True, False)),
    ]
    for (topic, summary, keywords), expected in cases:
        rebuilt: Any = _native._restore("SessionRow", (state[0], state[1], topic, summary, keywords, *state[5:]))
        assert (rebuilt.is_meaningful(), rebuilt.has_meaningful_summary()) == expected, (topic, summary, keywords)
        again = pickle.loads(pickle.dumps(rebuilt))
        assert (again.is_meaningful(), again.has_meaningful_summary()) == expected
    # The same values written through the core read back with the same judgement.
    updated = memory.update(placeholder.session_id, topic="Login")
    assert (updated.is_meaningful(), updated.has_meaningful_summary()) == (True, False)
