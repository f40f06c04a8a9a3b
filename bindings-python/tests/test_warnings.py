"""Problems a call goes on past: SessionStart beside malformed rows of other sessions
(``register_session_start_with_warnings`` returns them, ``register_session_start`` emits
them as ``MemoryCoreWarning``), structured-memory's ``recall`` through a symlinked
``MEMORY.md`` (``recall_with_warnings`` returns what ``recall`` emits), and what
``organize()`` reports besides its row changes. Every case writes the bad file by hand,
then calls."""

from __future__ import annotations

import copy
import pathlib
import pickle
import warnings

import pytest

import memory_core
from memory_core import AgentMemory, MemoryCoreWarning, SessionStart, StructuredMemory, WarningRecord

from _support import write_index

T = "2026-01-01T00:00:00+00:00"
GOOD = f"| 2026-01-01-0000-a | a | Login | Fixed it. | auth | active | - | {T} | {T} |"

# Every shape of a row SessionStart goes on past (the row is on line 6, after GOOD).
BAD_ROWS = {
    "missing cells": "| 2026-01-01-0000-b | b | only three cells |",
    "extra cells": f"| 2026-01-01-0000-b | b | t | s | k | active | - | {T} | {T} | extra |",
    "unknown status": f"| 2026-01-01-0000-b | b | t | s | k | closed | - | {T} | {T} |",
    "bad timestamp": f"| 2026-01-01-0000-b | b | t | s | k | active | - | yesterday | {T} |",
    "bad id": f"| ../escape | b | t | s | k | active | - | {T} | {T} |",
    "duplicate id": GOOD,
}


def lines_of(path: pathlib.Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_no_warnings_on_a_clean_root(memory: AgentMemory) -> None:
    start = memory.register_session_start_with_warnings("cursor-main-agent")
    assert isinstance(start, SessionStart)
    assert start.session_id.endswith("-cursor-main-agent")
    assert start.warnings == []
    assert start.to_dict()["session_id"] == start.session_id
    assert start.to_dict()["warnings"] == []
    assert memory.session(start.session_id).status == "idle"
    assert not memory.session_path(start.session_id).exists()


@pytest.mark.parametrize("bad", BAD_ROWS.values(), ids=BAD_ROWS.keys())
def test_session_start_returns_each_bad_row(root: pathlib.Path, bad: str) -> None:
    index = write_index(root, GOOD, bad)
    before = index.read_bytes()
    memory = AgentMemory(root, fixed_time="2026-05-25T13:18:00+08:00")
    with warnings.catch_warnings(record=True) as emitted:
        warnings.simplefilter("always")
        start = memory.register_session_start_with_warnings("hook")
    assert emitted == [], "the ...with_warnings form returns them and emits nothing"
    assert start.session_id == "2026-05-25-1318-hook"
    [record] = start.warnings
    assert isinstance(record, WarningRecord)
    assert (record.path, record.line) == (index, 6)
    assert isinstance(record.path, pathlib.Path)
    assert record.message and "\n" not in record.message
    assert str(record) == f"{index}:6: {record.message}"
    assert record.to_dict() == {"path": str(index), "line": 6, "message": record.message}
    assert start.to_dict() == {"session_id": start.session_id, "warnings": [record.to_dict()]}
    # The bad row stays byte-identical; the new row comes after the table's last row.
    after = lines_of(index)
    assert index.read_bytes().startswith(before)
    assert after[5] == before.splitlines(keepends=True)[5]
    assert len(after) == 7 and after[6].startswith(b"| 2026-05-25-1318-hook | hook |")


@pytest.mark.parametrize("bad", BAD_ROWS.values(), ids=BAD_ROWS.keys())
def test_plain_session_start_emits_memory_core_warnings(root: pathlib.Path, bad: str) -> None:
    index = write_index(root, GOOD, bad)
    memory = AgentMemory(root)
    expected = memory.register_session_start_with_warnings("probe").warnings
    with pytest.warns(MemoryCoreWarning) as emitted:
        session_id = memory.register_session_start("hook")
    [caught] = emitted.list
    warning = caught.message
    assert isinstance(warning, MemoryCoreWarning) and isinstance(warning, UserWarning)
    assert (warning.path, warning.line) == (index, 6)
    assert str(warning) == str(expected[0])
    assert caught.filename == __file__, "attributed to the caller's line"
    assert lines_of(index)[-1].startswith(f"| {session_id} | hook |".encode())


def test_every_bad_row_in_file_order(root: pathlib.Path) -> None:
    bad = list(BAD_ROWS.values())
    index = write_index(root, GOOD, bad[0], GOOD.replace("0000-a | a", "0000-c | c"), bad[2])
    start = AgentMemory(root).register_session_start_with_warnings("hook")
    assert [(w.path, w.line) for w in start.warnings] == [(index, 6), (index, 8)]
    with pytest.warns(MemoryCoreWarning) as emitted:
        AgentMemory(root).register_session_start("hook")
    assert [w.message.line for w in emitted.list] == [6, 8]  # type: ignore[union-attr]


def test_an_error_filter_raises_after_the_write(root: pathlib.Path) -> None:
    index = write_index(root, GOOD, BAD_ROWS["unknown status"])
    memory = AgentMemory(root)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemoryCoreWarning)
        with pytest.raises(MemoryCoreWarning) as caught:
            memory.register_session_start("hook")
    assert caught.value.line == 6
    assert b"| hook |" in lines_of(index)[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MemoryCoreWarning)
        assert memory.register_session_start("quiet").endswith("-quiet")


def linked_index(tmp_path: pathlib.Path) -> pathlib.Path:
    """A structured-memory root whose MEMORY.md is a symbolic link into dotfiles/."""
    (tmp_path / "dotfiles").mkdir()
    root = tmp_path / "memory"
    root.mkdir()
    (tmp_path / "dotfiles" / "MEMORY.md").write_text("- [Infra](memory-infra.md) — hosts, deploys\n", encoding="utf-8")
    (root / "memory-infra.md").write_text("- 2026-07-01: db1\n", encoding="utf-8")
    (root / "MEMORY.md").symlink_to("../dotfiles/MEMORY.md")
    return root


def test_recall_emits_what_the_cli_prints_on_stderr(tmp_path: pathlib.Path) -> None:
    root = linked_index(tmp_path)
    memory = StructuredMemory(root)
    answer = memory.recall_with_warnings("hosts")
    assert set(answer) == {"hits", "warnings"}
    [message] = answer["warnings"]
    assert "MEMORY.md is a symbolic link to ../dotfiles/MEMORY.md" in message, message
    with pytest.warns(MemoryCoreWarning) as emitted:
        hits = memory.recall("hosts")
    assert hits == answer["hits"] and [h["file"] for h in hits] == ["memory-infra.md"]
    [caught] = emitted.list
    warning = caught.message
    assert isinstance(warning, MemoryCoreWarning)
    assert (warning.path, warning.line) == (root / "MEMORY.md", 0)
    assert str(warning) == f"{root / 'MEMORY.md'}:0: {message}"
    assert caught.filename == __file__, "attributed to the caller's line"
    # The ...with_warnings form emits nothing (the "error" filter of pytest.ini would raise).
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemoryCoreWarning)
        assert memory.recall_with_warnings("deploys")["hits"] == hits
        with pytest.raises(MemoryCoreWarning):
            memory.recall("hosts")


def test_recall_of_a_plain_index_warns_of_nothing(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("- [Infra](memory-infra.md) — hosts\n", encoding="utf-8")
    (root / "memory-infra.md").write_text("- 2026-07-01: db1\n", encoding="utf-8")
    memory = StructuredMemory(root)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemoryCoreWarning)
        assert [h["file"] for h in memory.recall("hosts")] == ["memory-infra.md"]
    answer = memory.recall_with_warnings("hosts")
    assert (answer["hits"], answer["warnings"]) == (memory.recall("hosts"), [])
    nothing = memory.recall_with_warnings("nothing")
    assert (nothing["hits"], nothing["warnings"]) == ([], [])


def test_recall_warns_of_each_hit_whose_topic_file_is_missing_and_keeps_it(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text(
        "# Memory\n\n- [Infra](memory-infra.md) — hosts\n- [Gone](memory-gone.md) — old hosts\n",
        encoding="utf-8",
    )
    (root / "memory-infra.md").write_text("- 2026-07-01: db1\n", encoding="utf-8")
    memory = StructuredMemory(root)
    with pytest.warns(MemoryCoreWarning) as emitted:
        hits = memory.recall("hosts")
    assert [h["file"] for h in hits] == ["memory-infra.md", "memory-gone.md"], "the dangling hit is kept"
    [caught] = emitted.list
    warning = caught.message
    assert isinstance(warning, MemoryCoreWarning)
    assert (warning.path, warning.line) == (root / "MEMORY.md", 4)
    assert "MEMORY.md line 4 links memory-gone.md, which does not exist" in str(warning)
    answer = memory.recall_with_warnings("hosts")
    assert answer["hits"] == hits
    assert [m.split(":")[0] for m in answer["warnings"]] == ["MEMORY.md line 4 links memory-gone.md, which does not exist"]
    # Under an error filter the warning raises, as every MemoryCoreWarning does.
    with warnings.catch_warnings():
        warnings.simplefilter("error", MemoryCoreWarning)
        with pytest.raises(MemoryCoreWarning):
            memory.recall("old")
        assert [h["file"] for h in memory.recall("infra")] == ["memory-infra.md"], "a hit on disk warns of nothing"


HEADER_ROW = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |"
BROKEN_TABLES = {
    "table in a callout": (
        f"# Memory Index\n\n> [!note] Sessions\n> {HEADER_ROW}\n> |---|---|---|---|---|---|---|---|---|\n> {GOOD}\n",
        4,
    ),
    "rows cut off from the table": (
        f"# Memory Index\n\n{HEADER_ROW}\n|---|---|---|---|---|---|---|---|---|\n{GOOD}\n\n{GOOD.replace('0000-a', '0000-b')}\n",
        7,
    ),
}


@pytest.mark.parametrize("text,line", BROKEN_TABLES.values(), ids=BROKEN_TABLES.keys())
def test_a_broken_table_still_raises(root: pathlib.Path, text: str, line: int) -> None:
    root.mkdir()
    index = root / "index.md"
    index.write_text(text, encoding="utf-8")
    memory = AgentMemory(root)
    for call in (memory.register_session_start_with_warnings, memory.register_session_start):
        with pytest.raises(memory_core.MalformedFileError) as caught:
            call("hook")
        assert (caught.value.path, caught.value.line) == (index, line)
    assert index.read_text(encoding="utf-8") == text


def test_records_and_warnings_pickle_copy_compare(root: pathlib.Path) -> None:
    write_index(root, GOOD, BAD_ROWS["missing cells"])
    start = AgentMemory(root).register_session_start_with_warnings("hook")
    record = start.warnings[0]
    values: list[SessionStart | WarningRecord] = [start, record]
    for value in values:
        for clone in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
            assert clone == value and hash(clone) == hash(value)
            assert type(clone) is type(value)
        text = repr(value)
        assert text.startswith(type(value).__name__ + "(")
        assert all(f"{key}=" in text for key in value.to_dict())
        with pytest.raises(AttributeError):
            value.brand_new_attribute = 1  # type: ignore[union-attr]
    with pytest.raises(AttributeError):
        record.line = 7  # type: ignore[misc]
    assert record != start.warnings[0].to_dict()
    with pytest.warns(MemoryCoreWarning) as emitted:
        AgentMemory(root).register_session_start("hook")
    warning = emitted.list[0].message
    clone = pickle.loads(pickle.dumps(warning))
    assert type(clone) is MemoryCoreWarning
    assert (str(clone), clone.path, clone.line) == (str(warning), record.path, 6)


def test_organize_reports_files_it_went_past(root: pathlib.Path) -> None:
    index = write_index(root, GOOD, GOOD.replace("0000-a | a", "0000-u | u"))
    sessions = root / "sessions"
    sessions.mkdir()
    unreadable = sessions / "2026-01-01-0000-u.md"
    unreadable.write_bytes(b"# Session\n\xff\xfe not UTF-8\n")
    orphan = sessions / "2026-01-01-0000-z.md"
    orphan.write_text("# A snapshot without a row\n", encoding="utf-8")
    temps = [root / ".index.md.tmp-999999-0", sessions / ".2026-01-01-0000-a.md.tmp-999999-1"]
    leftovers = [root / "index.md~", sessions / "notes.swp", root / ".#index.md"]
    for path in temps + leftovers:
        path.write_text("half a write", encoding="utf-8")
    before = index.read_bytes()
    memory = AgentMemory(root, fixed_time="2026-01-02T00:00:00+00:00")

    preview = memory.organize(dry_run=True)
    assert preview.removed_temp_files == sorted(temps)
    assert all(path.exists() for path in temps), "a dry run removes nothing"
    assert preview.orphan_snapshots == [orphan]
    assert preview.leftover_files == sorted(leftovers)
    [record] = preview.unreadable
    assert isinstance(record, WarningRecord) and record.path == unreadable
    for paths in (preview.removed_temp_files, preview.orphan_snapshots, preview.leftover_files):
        assert all(isinstance(path, pathlib.Path) for path in paths)
    assert preview.to_dict() == {
        "deleted_idle": [],
        "marked_stale": [],
        "kept_active": ["2026-01-01-0000-a", "2026-01-01-0000-u"],
        "protected": [],
        "removed_temp_files": [str(p) for p in sorted(temps)],
        "orphan_snapshots": [str(orphan)],
        "leftover_files": [str(p) for p in sorted(leftovers)],
        "unreadable": [record.to_dict()],
        "dry_run": True,
    }
    assert pickle.loads(pickle.dumps(preview)) == preview

    report = memory.organize()
    assert report.removed_temp_files == preview.removed_temp_files
    assert not any(path.exists() for path in temps)
    assert orphan.exists() and all(path.exists() for path in leftovers), "reported, never deleted"
    assert unreadable.read_bytes() == b"# Session\n\xff\xfe not UTF-8\n"
    assert index.read_bytes() == before
    again = memory.organize()
    assert again.removed_temp_files == []
    assert (again.orphan_snapshots, again.leftover_files) == (preview.orphan_snapshots, preview.leftover_files)


# Unreadable snapshot bytes of another session, with the line of the problem.
UNREADABLE = {
    "invalid UTF-8": (b"# Session\n\n\xff\xfe broken\n", 3, "UTF-8"),
    "a NUL byte": (b"# Session\n\x00\x01binary", 2, "NUL"),
    "a cut multi-byte character": (b"\xc3", 1, "UTF-8"),
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_archive_goes_on_past_an_unreadable_snapshot_and_lists_it(
    memory: AgentMemory, name: str
) -> None:
    data, line, gist = UNREADABLE[name]
    broken = memory.register_manual("broken", "T", "S.")
    other = memory.register_manual("other", "T", "S.")
    path = memory.session_path(broken)
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the records are returned, nothing is emitted
        outcome = memory.archive(other)
    assert outcome.outcome == "archived" and outcome.session_id == other
    [record] = outcome.warnings
    assert isinstance(record, WarningRecord)
    assert (record.path, record.line) == (path, line)
    assert gist in record.message
    assert str(record) == f"{path}:{line}: {record.message}"
    assert outcome.to_dict()["warnings"] == [
        {"path": str(path), "line": line, "message": record.message}
    ]
    assert pickle.loads(pickle.dumps(outcome)) == outcome
    assert path.read_bytes() == data, "left byte-identical"
    assert [row.session_id for row in memory.sessions()] == [broken]

    # The broken session itself still fails typed, naming its file and line.
    with pytest.raises(memory_core.MalformedFileError) as caught:
        memory.archive(broken)
    assert (caught.value.path, caught.value.line) == (path, line)


def test_a_deleted_placeholder_lists_every_unreadable_snapshot_in_path_order(
    memory: AgentMemory,
) -> None:
    broken = [memory.register_manual(agent, "T", "S.") for agent in ("c", "a", "b")]
    for session_id in broken:
        memory.session_path(session_id).write_bytes(b"ok\n\x00")
    idle = memory.register_session_start("idle")
    outcome = memory.archive(idle)
    assert outcome.outcome == "deleted"
    assert [w.path for w in outcome.warnings] == sorted(memory.session_path(s) for s in broken)
    assert all(w.line == 2 for w in outcome.warnings)


def test_an_unreadable_snapshot_that_may_mention_the_session_still_stops_its_archive(
    memory: AgentMemory,
) -> None:
    source = memory.register_manual("source", "T", "S.")
    broken = memory.register_manual("broken", "T", "S.")
    path = memory.session_path(broken)
    path.write_bytes(f"# Session\n\n## Continues From\n\n- {source}\n".encode() + b"\xff\n")
    with pytest.raises(memory_core.MalformedFileError) as caught:
        memory.archive(source)
    assert caught.value.path == path
    assert memory.session(source).session_id == source, "nothing archived"
