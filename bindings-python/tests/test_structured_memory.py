"""memory_core.StructuredMemory on real files: writes (merge on write, a new topic
linked, relative dates, refusals), the index read whole against its budget, recall,
topics, every kind of check, compaction with Python compactors (one that raises, hostile
ones), dry runs, restore, the plain-dict results against their TypedDicts, and a lock
held by another process."""

from __future__ import annotations

import copy
import pathlib
import pickle
import threading
import time
import typing

import pytest

import memory_core
from memory_core import StructuredMemory

from _support import lock_held_by_other_process, release
from test_context_memory import check

FIXED = "2026-07-10T09:00:00Z"
SECRET = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
INFRA = (
    "# Infra\n\n"
    "- 2026-06-01: the legacy FTP box runs backups\n"
    "- 2026-06-02 [db]: Postgres 15\n"
    "- 2026-06-03 [db]: Postgres 16\n"
    "- 2026-06-04: deploy failed on staging\n"
    "- 2026-06-05: deploy on staging timed out\n"
    "- 2026-06-06: deploy on staging worked with VPN\n"
    "- a hand note\n"
)


def tree(root: pathlib.Path) -> dict[str, bytes]:
    """Every file of the directory but the lock, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".memcore.lock"
    }


def seed(root: pathlib.Path, topic: str = INFRA) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "memory-infra.md").write_text(topic, encoding="utf-8")
    (root / "MEMORY.md").write_text("- [Infra](memory-infra.md) — hosts, databases\n", encoding="utf-8")


def shape(value: object, annotation: object) -> set[str]:
    seen: set[str] = set()
    check(value, annotation, "result", seen)
    return seen


class Judge:
    """Evicts entries mentioning FTP; condenses the staging story into its lesson."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def dead(self, topic: memory_core.TopicDict, entries: list[memory_core.StructuredEntryDict]) -> list[int]:
        self.calls.append(f"dead {topic['file']} {len(entries)}")
        return [i for i, e in enumerate(entries) if "FTP" in e["text"]]

    def summarize(
        self, topic: memory_core.TopicDict, entries: list[memory_core.StructuredEntryDict]
    ) -> list[memory_core.CondensedDict]:
        self.calls.append("summarize")
        story = [i for i, e in enumerate(entries) if "staging" in e["text"]]
        if len(story) < 2:
            return []
        return [{"entries": story, "text": "staging deploys need the VPN up first", "subject": None}]


# -- remember ---------------------------------------------------------------------------


def test_a_first_write_creates_the_topic_and_links_it(root: pathlib.Path) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    assert not root.exists() or not (root / "MEMORY.md").exists()
    out = m.remember("memory-infra.md", "Postgres 15", subject="db", hook="hosts, databases", title="Infra")
    assert (out["created_topic"], out["linked"], out["created_index"]) == (True, True, True)
    assert out["file"] == "memory-infra.md"
    assert out["entry"]["date"] == "2026-07-10"
    assert out["entry"]["subject"] == "db"
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [Infra](memory-infra.md) — hosts, databases\n" in index
    assert "- 2026-07-10 [db]: Postgres 15\n" in (root / "memory-infra.md").read_text(encoding="utf-8")
    assert "RememberOutcomeDict" in shape(out, memory_core.RememberOutcomeDict)
    # A second topic gets its own index line; the first stays.
    second = m.remember("memory-user.md", "prefers terse answers", hook="role, preferences")
    assert second["linked"] and not second["created_index"]
    assert [line["file"] for line in m.index()["lines"]] == ["memory-infra.md", "memory-user.md"]


def test_a_write_about_the_same_subject_merges_and_archives_the_old(root: pathlib.Path) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    m.remember("memory-infra.md", "Postgres 15", subject="db", date="2026-06-01", hook="databases")
    out = m.remember("memory-infra.md", "Postgres 16", subject="DB", date="2026-07-01")
    assert [e["text"] for e in out["replaced"]] == ["Postgres 15"]
    assert not out["created_topic"] and not out["linked"]
    topic = m.topic("memory-infra.md")
    assert [e["text"] for e in topic["entries"]] == ["Postgres 16"]
    archive = (root / "memory-archive.md").read_text(encoding="utf-8")
    assert "- 2026-06-01 [db]: Postgres 15" in archive
    assert out["archive_id"] is not None and out["archive_id"] in archive
    # The archived generation comes back by its id.
    back = m.restore(out["archive_id"])
    assert back["restored"][0]["lines"] == ["- 2026-06-01 [db]: Postgres 15"]
    assert "RestoreReportDict" in shape(back, memory_core.RestoreReportDict)
    assert len(m.topic("memory-infra.md")["entries"]) == 2


@pytest.mark.parametrize(
    ("given", "day"),
    [("today", "2026-07-10"), ("yesterday", "2026-07-09"), ("Yesterday", "2026-07-09"),
     ("3 days ago", "2026-07-07"), ("2026-01-31", "2026-01-31"), ("tomorrow", "2026-07-11"),
     ("Tuesday", "2026-07-07"), ("last friday", "2026-07-03"), ("on Monday", "2026-07-06")],
)
def test_relative_dates_become_absolute_from_the_fixed_clock(root: pathlib.Path, given: str, day: str) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    out = m.remember("memory-infra.md", "the deploy hook fired", date=given, hook="deploys")
    assert out["entry"]["date"] == day
    assert f"- {day}: the deploy hook fired\n" in (root / "memory-infra.md").read_text(encoding="utf-8")


def test_a_weekday_in_the_text_is_written_as_its_date(root: pathlib.Path) -> None:
    # 2026-07-10 (the fixed clock) is a Friday: the last Tuesday is the 7th.
    m = StructuredMemory(root, fixed_time=FIXED)
    out = m.remember("memory-e.md", "the deploy broke on Tuesday", hook="deploys")
    assert (out["entry"]["date"], out["entry"]["text"]) == ("2026-07-07", "the deploy broke on 2026-07-07")
    assert "- 2026-07-07: the deploy broke on 2026-07-07\n" in (root / "memory-e.md").read_text(encoding="utf-8")


def test_fixed_time_takes_an_aware_datetime(root: pathlib.Path) -> None:
    import datetime

    when = datetime.datetime(2026, 2, 28, 23, 0, tzinfo=datetime.timezone.utc)
    m = StructuredMemory(root, fixed_time=when)
    assert m.remember("memory-t.md", "x happened", date="tomorrow", hook="t")["entry"]["date"] == "2026-03-01"


def test_date_takes_a_date_or_a_datetime_as_its_calendar_day(root: pathlib.Path) -> None:
    import datetime

    m = StructuredMemory(root, fixed_time=FIXED)
    out = m.remember("memory-t.md", "the first", date=datetime.date(2026, 1, 31), hook="t")
    assert out["entry"]["date"] == "2026-01-31"
    # A datetime gives the day it shows, in its own zone: never converted to UTC.
    late = datetime.datetime(2026, 3, 1, 23, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))
    assert m.remember("memory-t.md", "the second", date=late)["entry"]["date"] == "2026-03-01"
    naive = datetime.datetime(2026, 3, 2, 0, 5)
    assert m.remember("memory-t.md", "the third", date=naive)["entry"]["date"] == "2026-03-02"
    # A date subclass and the year's edges.
    class Day(datetime.date):
        pass

    assert m.remember("memory-t.md", "the fourth", date=Day(2026, 12, 31))["entry"]["date"] == "2026-12-31"
    assert m.remember("memory-t.md", "the fifth", date=datetime.date(1, 1, 1))["entry"]["date"] == "0001-01-01"
    text = (root / "memory-t.md").read_text(encoding="utf-8")
    for line in ["- 2026-01-31: the first\n", "- 2026-03-01: the second\n", "- 2026-03-02: the third\n"]:
        assert line in text
    before = tree(root)
    for wrong in (20260131, 1.5, b"2026-01-31", datetime.time(9, 0), ["2026-01-31"]):
        with pytest.raises(memory_core.InvalidInputError, match="date: expected a str, a datetime.date"):
            m.remember("memory-t.md", "never", date=wrong)  # type: ignore[arg-type]
    assert tree(root) == before


@pytest.mark.parametrize("vague", ["last week", "recently", "a while ago", "last month"])
def test_a_vague_date_is_refused_and_nothing_is_written(root: pathlib.Path, vague: str) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    with pytest.raises(memory_core.InvalidInputError) as caught:
        m.remember("memory-infra.md", "the deploy broke", date=vague, hook="deploys")
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == "ERR_MEMORY_INVALID_INPUT"
    # What tells a vague time from any other bad input: the message prefix and ``field``.
    assert str(caught.value).startswith("vague time in date "), str(caught.value)
    assert caught.value.field == "date" and caught.value.secret_kind is None
    assert not (root / "MEMORY.md").exists()


def test_a_vague_time_in_the_text_is_refused_as_vague_and_a_bad_date_is_not(root: pathlib.Path) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    with pytest.raises(memory_core.InvalidInputError) as caught:
        m.remember("memory-infra.md", "the deploy broke last week", hook="deploys")
    assert str(caught.value).startswith("vague time in text "), str(caught.value)
    assert caught.value.field == "text"
    with pytest.raises(memory_core.InvalidInputError) as caught:
        m.remember("memory-infra.md", "the deploy broke", date="31 February 2026", hook="deploys")
    assert not str(caught.value).startswith("vague time"), str(caught.value)
    assert caught.value.field is None
    assert not (root / "MEMORY.md").exists()


@pytest.mark.parametrize("field", ["text", "subject", "title", "hook"])
def test_a_secret_in_any_field_is_refused_with_its_kind(root: pathlib.Path, field: str) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    fields = {"text": "fine", "subject": "ok", "title": "Infra", "hook": "hosts"}
    fields[field] = f"token {SECRET}"
    with pytest.raises(memory_core.InvalidInputError) as caught:
        m.remember("memory-infra.md", fields["text"], subject=fields["subject"],
                   title=fields["title"], hook=fields["hook"])
    assert caught.value.field == field
    assert caught.value.secret_kind == "github-token"
    assert SECRET not in str(caught.value)
    assert tree(root) == {} if root.exists() else True


@pytest.mark.parametrize(
    ("topic", "hook"),
    [("memory-misc.md", "things"), ("MEMORY.md", "x"), ("memory-archive.md", "x"), ("index.md", "x"),
     ("../outside.md", "x"), ("memory-new.md", None)],
)
def test_refused_topics(root: pathlib.Path, topic: str, hook: str | None) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    with pytest.raises(memory_core.InvalidInputError):
        m.remember(topic, "a fact", hook=hook)
    assert not (root / "MEMORY.md").exists()


@pytest.mark.parametrize("text", ["", "   ", "one\n\ntwo paragraphs"])
def test_an_empty_or_multi_paragraph_text_is_refused(root: pathlib.Path, text: str) -> None:
    with pytest.raises(memory_core.InvalidInputError):
        StructuredMemory(root).remember("memory-t.md", text, hook="t")


def test_wrong_argument_types_name_the_parameter(root: pathlib.Path) -> None:
    m = StructuredMemory(root)
    with pytest.raises(memory_core.InvalidInputError, match="topic"):
        m.remember(5, "x", hook="t")  # type: ignore[arg-type]
    with pytest.raises(memory_core.InvalidInputError, match="topic_lines"):
        StructuredMemory(root, topic_lines=True)
    with pytest.raises(memory_core.InvalidInputError, match="index_lines"):
        StructuredMemory(root, index_lines=-1)
    with pytest.raises(memory_core.InvalidInputError, match="dry_run"):
        m.compact(dry_run="yes")  # type: ignore[arg-type]


def test_unicode_and_a_huge_value_round_trip(root: pathlib.Path) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    with pytest.raises(memory_core.InvalidInputError, match="16 KiB"):
        m.remember("memory-t.md", "x" * 20_000, hook="t")
    text = "Zürich → 東京 deploy ✅ " + "x" * 15_000
    out = m.remember("memory-ünïcode.md", text, subject="règle", hook="café, naïve")
    assert m.topic("memory-ünïcode.md")["entries"][0]["text"] == text
    assert out["entry"]["subject"] == "règle"
    assert m.index()["lines"][0]["hook"] == "café, naïve"


# -- reading ----------------------------------------------------------------------------


def test_the_index_is_read_whole_with_its_budget(root: pathlib.Path) -> None:
    root.mkdir()
    lines = "".join(f"- [T{i}](memory-t{i}.md) — hook {i}\r\n" for i in range(62))
    (root / "MEMORY.md").write_bytes(("\ufeff<!-- index -->\r\n" + lines + "Deploy first.\r\n").encode())
    index = StructuredMemory(root).index()
    assert len(index["lines"]) == 62
    assert index["lines"][0] == {"title": "T0", "file": "memory-t0.md", "hook": "hook 0", "line": 2}
    assert [c["text"] for c in index["content"]] == ["Deploy first."]
    assert index["line_count"] == 64
    assert index["budget"]["state"] == "over" and index["budget"]["line_budget"] == 60
    assert index["budget"]["over_by_lines"] == 4
    assert "MemoryIndexDict" in shape(index, memory_core.MemoryIndexDict)
    wide = StructuredMemory(root, index_lines=100, index_bytes=10)
    assert wide.index()["budget"]["line_budget"] == 100
    assert wide.budgets == {"index_lines": 100, "topic_lines": 150, "index_bytes": 10, "topic_bytes": None}
    assert wide.index()["budget"]["over_by_bytes"] > 0


def test_an_empty_directory_has_an_empty_index_and_creates_nothing(root: pathlib.Path) -> None:
    index = StructuredMemory(root).index()
    assert index["lines"] == [] and index["line_count"] == 0
    assert not root.exists()


def test_recall_reads_the_index_and_ranks_by_title_and_hook(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "MEMORY.md").write_text(
        "- [Project X](memory-project-x.md) — build quirks, deploy pipeline\n"
        "- [User](USER.md) — role, preferences\n"
        "- [Deploys](memory-deploys.md) — rollbacks\n",
        encoding="utf-8",
    )
    for name in ("memory-project-x.md", "USER.md", "memory-deploys.md"):
        (root / name).write_text("- 2026-07-01: a fact\n", encoding="utf-8")
    hits = StructuredMemory(root).recall("the deploy script")
    assert {h["file"] for h in hits} == {"memory-deploys.md", "memory-project-x.md"}
    assert hits[0]["score"] >= hits[1]["score"]
    assert all(0 < h["score"] <= 1 for h in hits)
    assert StructuredMemory(root).recall("nothing matches this") == []
    shape(hits, list[memory_core.RecallHitDict])


def test_a_topic_file_by_hand(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "USER.md").write_bytes(
        b"---\r\nname: User\r\ndescription: 'role: lead'\r\ntype: user\r\n---\r\n\r\n"
        b"- 2026-07-01: prefers terse answers\r\n- a hand note\r\n- 2026-07-02 [tz]: works in UTC+2\r\n"
    )
    topic = StructuredMemory(root).topic("USER.md")
    assert topic["meta"] == {"name": "User", "description": "role: lead", "type": "user"}
    assert [(e["date"], e["subject"], e["text"]) for e in topic["entries"]] == [
        ("2026-07-01", None, "prefers terse answers"),
        ("2026-07-02", "tz", "works in UTC+2"),
    ]
    assert topic["undated"] == [{"line": 8, "text": "- a hand note"}]
    assert "TopicDict" in shape(topic, memory_core.TopicDict)
    with pytest.raises(memory_core.NotFoundError):
        StructuredMemory(root).topic("memory-none.md")
    with pytest.raises(memory_core.InvalidInputError):
        StructuredMemory(root).topic("MEMORY.md")


def test_a_prose_topic_gives_its_text_and_body(root: pathlib.Path) -> None:
    # A Claude Code topic file: frontmatter, then prose; no dated entry.
    root.mkdir()
    text = (
        "\ufeff---\r\nname: Feedback: testing\r\ndescription: real databases\r\ntype: feedback\r\n---\r\n"
        "\r\nIntegration tests must hit a real database, not mocks.\r\n"
    )
    (root / "feedback_testing.md").write_bytes(text.encode("utf-8"))
    topic = StructuredMemory(root).topic("feedback_testing.md")
    assert topic["entries"] == []
    assert topic["text"] == text
    assert topic["body"] == "\r\nIntegration tests must hit a real database, not mocks.\r\n"
    assert "TopicDict" in shape(topic, memory_core.TopicDict)
    (root / "USER.md").write_text("\ufeffPrefers terse answers.\n", encoding="utf-8")
    assert StructuredMemory(root).topic("USER.md")["body"] == "Prefers terse answers.\n"


def test_every_write_warns_of_memory_md_over_its_budget(root: pathlib.Path) -> None:
    root.mkdir()
    index = "- [A](memory-a.md) — hook a\n- [B](memory-b.md) — hook b\n- [C](memory-c.md) — hook c\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    (root / "memory-a.md").write_text("# A\n", encoding="utf-8")
    out = StructuredMemory(root, index_lines=2, fixed_time=FIXED).remember("memory-a.md", "a fact")
    assert not out["linked"]
    assert out["warnings"] == ["MEMORY.md is over its budget: 3 of 2 lines (1 over)"]
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == index


def test_a_memory_md_of_only_a_byte_order_mark_gets_its_line_after_it(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "MEMORY.md").write_bytes("\ufeff".encode("utf-8"))
    StructuredMemory(root, fixed_time=FIXED).remember("memory-a.md", "a fact", title="A", hook="hook a")
    assert (root / "MEMORY.md").read_bytes() == "\ufeff- [A](memory-a.md) — hook a\n".encode("utf-8")


def test_session_index_loads_a_damaged_index_whole_with_a_warning(root: pathlib.Path) -> None:
    root.mkdir()
    text = "- [User](USER.md) — role\n<!-- a note never closed\n- [Infra](memory-infra.md) — hosts\n"
    (root / "MEMORY.md").write_text(text, encoding="utf-8")
    m = StructuredMemory(root)
    with pytest.raises(memory_core.MalformedFileError):
        m.index()
    start = m.session_index()
    assert start["text"] == text, "whole, never truncated"
    assert start["index"] is None
    damaged = start["damaged"]
    assert damaged is not None and damaged["line"] == 2 and damaged["path"] == str(root / "MEMORY.md")
    assert len(start["warnings"]) == 1 and "MEMORY.md:2: " in start["warnings"][0]
    assert "SessionIndexDict" in shape(start, memory_core.SessionIndexDict)
    # A readable index comes back read, with no warning; none at all before the first write.
    (root / "MEMORY.md").write_text("- [User](USER.md) — role\n", encoding="utf-8")
    start = m.session_index()
    assert start["damaged"] is None and start["warnings"] == []
    assert start["index"] is not None and [l["file"] for l in start["index"]["lines"]] == ["USER.md"]
    empty = StructuredMemory(root / "nowhere").session_index()
    assert empty["text"] == "" and empty["index"] is not None and empty["index"]["lines"] == []


# -- check ------------------------------------------------------------------------------


def test_check_finds_every_kind_with_file_and_line(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "MEMORY.md").write_text(
        "# Memory\n\n- [Infra](memory-infra.md) — hosts, deploys\n- [Gone](memory-gone.md) — was here\n"
        "- [Misc](memory-misc.md) — things\n- [Empty](memory-empty.md)\n- [Again](memory-infra.md) — twice\n"
        "- [Out](../x.md) — outside\nDeploy runs before the bump.\n- [Big](memory-big.md) — many\n"
        "- [Bad](memory-bad.md) — broken yaml\n- [Unclosed](memory-unclosed.md) — never closed\n"
        "- [Big](memory-big2.md) — many\n- aside %% never closed\n",
        encoding="utf-8",
    )
    (root / "memory-infra.md").write_text(
        "# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-07-01 [db]: Postgres 16\n- a note without a date\n"
        "- 2026-07-02: fixed the pipeline yesterday\n- 2026-07-03 [aws]: key AKIAZ7QX3RT5WVB2KMNP\n",
        encoding="utf-8",
    )
    (root / "memory-misc.md").write_text("- 2026-07-01: a thing\n", encoding="utf-8")
    (root / "memory-empty.md").write_text("- 2026-07-01: ok\n", encoding="utf-8")
    (root / "memory-orphan.md").write_text("- 2026-07-01: nobody links me\n", encoding="utf-8")
    (root / "memory-infra (1).md").write_text("- 2026-07-01: a sync client's copy\n", encoding="utf-8")
    (root / "memory-big.md").write_text("".join(f"- 2026-07-{d:02}: fact {d}\n" for d in range(1, 13)), encoding="utf-8")
    (root / "memory-big2.md").write_text("- 2026-07-01: another big one\n", encoding="utf-8")
    (root / "memory-bad.md").write_text("---\nname: [unclosed\n---\n- 2026-07-01: x\n", encoding="utf-8")
    (root / "memory-unclosed.md").write_text("---\nname: x\n- 2026-07-01: y\n", encoding="utf-8")
    (root / "memory-archive.md").write_bytes(b"# Memory archive\n\nnot \xff UTF-8\n")
    found = StructuredMemory(root, topic_lines=10).check()
    kinds = {v["kind"] for v in found}
    # Every kind but unreadable_index (a damaged index hides the index rules; tested below),
    # linked_index (a symlinked MEMORY.md: test_a_symlinked_index_is_read_through) and
    # leftover_temp_file (a writer killed mid-write: the Rust and CLI crash tests).
    assert kinds | {"unreadable_index", "linked_index", "leftover_temp_file"} == set(typing.get_args(memory_core.ViolationKindLiteral)), kinds
    got = {(v["kind"], v["file"], v["line"]) for v in found}
    for expected in [
        ("dangling_index_line", "MEMORY.md", 4),
        ("secret", "memory-infra.md", 7),
        ("near_duplicate_topics", "MEMORY.md", 13),
        ("empty_hook", "MEMORY.md", 6),
        ("duplicate_index_line", "MEMORY.md", 7),
        ("unusable_link", "MEMORY.md", 8),
        ("content_in_index", "MEMORY.md", 9),
        ("contradicting_generations", "memory-infra.md", 3),
        ("undated_entry", "memory-infra.md", 5),
        ("relative_date", "memory-infra.md", 6),
        ("misc_topic", "MEMORY.md", 5),
        ("orphan_topic", "memory-orphan.md", 0),
        ("sync_conflict_copy", "memory-infra (1).md", 0),
        ("over_budget", "memory-big.md", 11),
        ("frontmatter_not_yaml", "memory-bad.md", 2),
        ("unreadable_topic", "memory-unclosed.md", 1),
        ("unreadable_archive", "memory-archive.md", 3),
        ("unclosed_comment", "MEMORY.md", 14),
    ]:
        assert expected in got, (expected, sorted(got))
    assert all(v["message"] for v in found)
    shape(found, list[memory_core.ViolationDict])


def test_check_reports_a_damaged_index_and_checks_the_topics(root: pathlib.Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "MEMORY.md").write_text("- [K](memory-k.md) — k\n<!-- never closed\n- [B](memory-b.md) — b\n", encoding="utf-8")
    (root / "memory-k.md").write_text("- 2026-07-01: k\n- a hand note\n", encoding="utf-8")
    found = StructuredMemory(root).check()
    assert [(v["kind"], v["file"], v["line"]) for v in found] == [
        ("unreadable_index", "MEMORY.md", 2),
        ("undated_entry", "memory-k.md", 2),
    ]
    assert "does not read" in found[0]["message"]
    shape(found, list[memory_core.ViolationDict])
    with pytest.raises(memory_core.MemoryCoreError):
        StructuredMemory(root).index()


def test_a_tidy_directory_has_no_violation(root: pathlib.Path) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    m.remember("memory-infra.md", "Postgres 16", subject="db", hook="databases")
    assert m.check() == []


# -- compact ----------------------------------------------------------------------------


def test_a_python_compactor_evicts_and_summarizes_and_everything_is_archived(root: pathlib.Path) -> None:
    seed(root)
    m = StructuredMemory(root, topic_lines=6, fixed_time=FIXED)
    judge = Judge()
    before = tree(root)
    dry = m.compact("memory-infra.md", compactor=judge, dry_run=True)
    assert dry["dry_run"] is True
    assert tree(root) == before, "a dry run writes nothing"
    report = m.compact("memory-infra.md", compactor=judge)
    assert report["files"] == dry["files"], "a dry run says exactly what happens"
    assert "CompactionReportDict" in shape(report, memory_core.CompactionReportDict)
    f = report["files"][0]
    assert [p["pass"] for p in f["passes"]] == ["evict-dead", "collapse-superseded", "summarize-episodic"]
    assert (f["before"]["lines"], f["after"]["lines"]) == (9, 5)
    assert f["needs_judgment"] is None
    assert judge.calls[0] == "dead memory-infra.md 6"
    shown: list[memory_core.BudgetUseDict] = []

    class Recorder:
        def dead(self, topic: memory_core.TopicDict, entries: object) -> list[int]:
            shown.append(topic["budget"])
            return []

    seed(root / "other")
    StructuredMemory(root / "other", topic_lines=6).compact("memory-infra.md", compactor=Recorder(), dry_run=True)
    assert (shown[0]["line_budget"], shown[0]["over_by_lines"]) == (6, 3), "the handle's budget"
    topic = m.topic("memory-infra.md")
    assert [e["text"] for e in topic["entries"]] == ["Postgres 16", "staging deploys need the VPN up first"]
    assert "- a hand note\n" in (root / "memory-infra.md").read_text(encoding="utf-8")
    archive = (root / "memory-archive.md").read_text(encoding="utf-8")
    rid = report["id"]
    assert rid is not None
    for pass_name, line in [
        ("evict-dead", "- 2026-06-01: the legacy FTP box runs backups"),
        ("collapse-superseded", "- 2026-06-02 [db]: Postgres 15"),
        ("summarize-episodic", "- 2026-06-04: deploy failed on staging"),
        ("summarize-episodic", "- 2026-06-06: deploy on staging worked with VPN"),
    ]:
        assert f"## {rid} · {pass_name} · memory-infra.md · 2026-07-10T09:00:00Z" in archive
        assert line in archive
    restored = m.restore(rid)
    assert len(restored["restored"]) == 3
    assert (root / "memory-archive.md").read_text(encoding="utf-8") == archive, "the archive is append-only"
    assert len(m.topic("memory-infra.md")["entries"]) == 7
    with pytest.raises(memory_core.NotFoundError):
        m.restore("c-19990101-001")
    # An id holding a control character is no archive id: refused, never echoed raw.
    with pytest.raises(memory_core.InvalidInputError, match="is not an archive id") as refused:
        m.restore("c\x1b[31m")
    assert "\x1b" not in str(refused.value)


def test_collapse_and_split_callbacks_and_missing_methods_are_defaults(root: pathlib.Path) -> None:
    seed(root, "# Infra\n\n- 2026-06-02 [db]: Postgres 15\n- 2026-06-03 [db]: Postgres 16\n"
               "- 2026-06-04 [dns]: CoreDNS\n- 2026-06-05 [dns]: CoreDNS 1.11\n- 2026-06-06 [cdn]: Fastly\n")

    class Folder:
        def collapse(self, topic: object, subject: str, generations: list[memory_core.StructuredEntryDict]) -> str | None:
            return f"{generations[-1]['text']} (was {generations[0]['text']})" if subject == "db" else None

        def split(self, topic: object, entries: list[memory_core.StructuredEntryDict]) -> list[memory_core.SplitPartDict]:
            cdn = [i for i, e in enumerate(entries) if e["subject"] == "cdn"]
            return [{"file": "memory-cdn.md", "title": "CDN", "hook": "Fastly, caching", "entries": cdn}]

    m = StructuredMemory(root, topic_lines=4, fixed_time=FIXED)
    report = m.compact("memory-infra.md", compactor=Folder())
    assert report["created"] == ["memory-cdn.md"]
    assert report["index_lines"] == [
        {"file": "memory-cdn.md", "title": "CDN", "hook": "Fastly, caching",
         "text": "- [CDN](memory-cdn.md) — Fastly, caching"}
    ]
    texts = [e["text"] for e in m.topic("memory-infra.md")["entries"]]
    assert texts == ["Postgres 16 (was Postgres 15)", "CoreDNS 1.11"]
    assert [e["text"] for e in m.topic("memory-cdn.md")["entries"]] == ["Fastly"]
    assert "- [CDN](memory-cdn.md) — Fastly, caching" in (root / "MEMORY.md").read_text(encoding="utf-8")
    # An object with none of the methods is the default compactor; so is None.
    assert m.compact(compactor=object())["files"] == m.compact()["files"]


def test_a_plain_function_is_a_compactor_called_with_one_request_per_pass(root: pathlib.Path) -> None:
    seed(root)
    requests: list[memory_core.CompactorRequestDict] = []

    def judge(request: memory_core.CompactorRequestDict) -> object:
        requests.append(request)
        entries = request.get("entries", [])
        if request["pass"] == "dead":
            return [i for i, e in enumerate(entries) if "FTP" in e["text"]]
        if request["pass"] == "summarize":
            story = [i for i, e in enumerate(entries) if "staging" in e["text"]]
            return [{"entries": story, "text": "staging deploys need the VPN up first", "subject": None}]
        return None  # the default for the other passes

    m = StructuredMemory(root, topic_lines=6, fixed_time=FIXED)
    same = m.compact("memory-infra.md", compactor=Judge(), dry_run=True)
    report = m.compact("memory-infra.md", compactor=judge)
    assert report["files"] == same["files"], "the function form decides as the object form"
    passes = [r["pass"] for r in requests]
    assert passes[:3] == ["dead", "collapse", "summarize"], passes
    assert set(requests[0]) == {"pass", "topic", "entries"}
    assert requests[0]["topic"]["file"] == "memory-infra.md"
    assert set(requests[1]) == {"pass", "topic", "subject", "generations"}
    assert requests[1]["subject"] == "db"
    assert [g["text"] for g in requests[1]["generations"]] == ["Postgres 15", "Postgres 16"]
    archive = (root / "memory-archive.md").read_text(encoding="utf-8")
    assert "- 2026-06-01: the legacy FTP box runs backups" in archive
    assert [e["text"] for e in m.topic("memory-infra.md")["entries"]] == [
        "Postgres 16",
        "staging deploys need the VPN up first",
    ]
    # A lambda answering None everywhere is the default compactor, as None is.
    seed(root / "other")
    other = StructuredMemory(root / "other", topic_lines=6, fixed_time=FIXED)
    assert other.compact(compactor=lambda request: None, dry_run=True)["files"] == other.compact(dry_run=True)["files"]


def test_a_plain_function_answers_the_index_passes_and_its_errors_name_the_pass(root: pathlib.Path) -> None:
    import functools

    root.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text(
        "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\n",
        encoding="utf-8",
    )
    (root / "memory-a.md").write_text("# A\n\n- 2026-06-01: a fact\n", encoding="utf-8")
    (root / "memory-b.md").write_text("# B\n\n- 2026-06-02: b fact\n", encoding="utf-8")
    seen: list[str] = []

    def answer(into: str, request: dict[str, typing.Any]) -> object:
        seen.append(request["pass"])
        assert set(request) == {"pass", "index"}
        if request["pass"] == "route_content":
            return [[i, into] for i in range(len(request["index"]["content"]))]
        return [["memory-b.md", into]]

    m = StructuredMemory(root, index_lines=1, fixed_time=FIXED)
    before = tree(root)
    with pytest.raises(memory_core.AbortedError, match=r"compactor\(\) .*route_content"):
        m.compact("MEMORY.md", compactor=lambda request: [[0]] if request["pass"] == "route_content" else None)
    assert tree(root) == before
    raised = Boom("no index judgment today")

    def fail(request: object) -> typing.NoReturn:
        raise raised

    with pytest.raises(Boom) as caught:
        m.compact("MEMORY.md", compactor=fail)
    assert caught.value is raised
    assert tree(root) == before
    report = m.compact("MEMORY.md", compactor=functools.partial(answer, "memory-a.md"))
    assert seen == ["route_content", "merge_topics"]
    assert report["files"][0]["after"]["lines"] == 1
    text = (root / "memory-a.md").read_text(encoding="utf-8")
    assert "The deploy hook runs first." in text and "b fact" in text


@pytest.mark.parametrize("method", ["dead", "collapse", "summarize", "split"])
def test_a_raising_plain_function_changes_nothing_and_comes_back_itself(root: pathlib.Path, method: str) -> None:
    seed(root, INFRA.replace("- 2026-06-06: deploy on staging worked with VPN\n", "- 2026-06-06 [cdn]: Fastly\n"))
    raised = Boom(f"{method} is unavailable")

    def compactor(request: dict[str, typing.Any]) -> object:
        if request["pass"] == method:
            raise raised
        return None

    m = StructuredMemory(root, topic_lines=2, fixed_time=FIXED)
    before = tree(root)
    with pytest.raises(Boom) as caught:
        m.compact("memory-infra.md", compactor=compactor)
    assert caught.value is raised
    with pytest.raises(Boom):
        m.remember("memory-infra.md", "one more", subject="x", compactor=compactor)
    assert tree(root) == before


def test_a_callable_object_with_compactor_methods_is_an_object_compactor(root: pathlib.Path) -> None:
    seed(root)

    class Both(Judge):
        def __call__(self, request: object) -> object:
            raise AssertionError("the methods are used, not __call__")

    m = StructuredMemory(root, topic_lines=6, fixed_time=FIXED)
    assert m.compact("memory-infra.md", compactor=Both(), dry_run=True)["files"][0]["passes"][0]["entries"]


def test_a_write_over_budget_compacts_with_the_given_compactor(root: pathlib.Path) -> None:
    m = StructuredMemory(root, topic_lines=3, fixed_time=FIXED)
    m.remember("memory-infra.md", "the legacy FTP box runs backups", date="2026-06-01", hook="hosts")
    m.remember("memory-infra.md", "Postgres 16", subject="db", date="2026-06-02")
    m.remember("memory-infra.md", "CoreDNS", subject="dns", date="2026-06-03")
    out = m.remember("memory-infra.md", "Fastly", subject="cdn", compactor=Judge())
    assert out["compaction"] is not None
    assert out["compaction"]["files"][0]["passes"][0]["pass"] == "evict-dead"
    assert "FTP" in (root / "memory-archive.md").read_text(encoding="utf-8")
    # Single facts of three subjects are not cut into files of their own: what is left
    # over needs judgment, with the exact overage, and a warning says so.
    judgment = out["compaction"]["files"][0]["needs_judgment"]
    assert judgment is not None and judgment["over_by_lines"] == out["budgets"][0]["lines"] - 3
    assert out["warnings"] and "over its budget" in out["warnings"][0]


class Boom(Exception):
    pass


@pytest.mark.parametrize("method", ["dead", "collapse", "summarize", "split"])
def test_an_exception_the_compactor_raises_comes_back_itself_and_nothing_changes(
    root: pathlib.Path, method: str
) -> None:
    seed(root, INFRA.replace("- 2026-06-06: deploy on staging worked with VPN\n",
                             "- 2026-06-06 [cdn]: Fastly\n"))
    raised = Boom(f"{method} is unavailable")

    class Raising:
        pass

    def fail(*args: object) -> typing.NoReturn:
        raise raised

    setattr(Raising, method, lambda self, *args: fail(*args))
    m = StructuredMemory(root, topic_lines=2, fixed_time=FIXED)
    before = tree(root)
    with pytest.raises(Boom) as caught:
        m.compact("memory-infra.md", compactor=Raising())
    assert caught.value is raised, "the original exception, not a copy or a wrapper"
    notes = getattr(caught.value, "__notes__", [])
    assert any("memory-infra.md" in n and "the compaction wrote nothing" in n for n in notes), notes
    assert tree(root) == before, "byte-identical"
    # The same through a write's budget trigger: the write and its compaction are one
    # step, so the fact is not written either.
    with pytest.raises(Boom) as again:
        m.remember("memory-infra.md", "one more", subject="x", compactor=Raising())
    assert again.value is raised
    assert tree(root) == before, "a write whose compaction fails writes nothing"


def test_a_write_by_another_program_while_the_compactor_runs_is_never_overwritten(
    root: pathlib.Path,
) -> None:
    import subprocess
    import sys

    seed(root)
    topic = root / "memory-infra.md"
    line = "- 2026-07-01 [hand]: typed in an editor\n"

    def editor_writes(request: dict[str, object]) -> None:
        # Another process (an editor, Claude Code) appends without memory-core's lock.
        if request["pass"] == "dead":
            subprocess.run(
                [sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write(sys.argv[2])", str(topic), line],
                check=True,
            )
        return None

    m = StructuredMemory(root, topic_lines=4, fixed_time=FIXED)
    with pytest.raises(memory_core.ConflictError) as caught:
        m.compact("memory-infra.md", compactor=editor_writes)
    assert caught.value.path == topic, caught.value
    assert "nothing was written" in str(caught.value)
    assert topic.read_text(encoding="utf-8").endswith(line), "the editor's line is kept"
    assert not (root / "memory-archive.md").exists()
    # Run again: nothing is lost.
    m.compact("memory-infra.md")
    everything = "".join(p.read_text(encoding="utf-8") for p in root.glob("*.md"))
    assert "typed in an editor" in everything


def test_a_keyboard_interrupt_in_a_compactor_propagates(root: pathlib.Path) -> None:
    seed(root)

    class Interrupted:
        def dead(self, topic: object, entries: object) -> list[int]:
            raise KeyboardInterrupt

    before = tree(root)
    with pytest.raises(KeyboardInterrupt):
        StructuredMemory(root, topic_lines=2).compact("memory-infra.md", compactor=Interrupted())
    assert tree(root) == before


@pytest.mark.parametrize(
    ("method", "result", "message"),
    [
        ("dead", [99], "99"),
        ("dead", [0, 0], "twice"),
        ("dead", "0", "dead()"),
        ("dead", [True], "dead()"),
        ("dead", [-1], "dead()"),
        ("dead", None, "dead()"),
        ("collapse", 5, "collapse()"),
        ("summarize", [{"entries": [3, 4], "txt": "x"}], "txt"),
        ("summarize", [{"entries": [3, 4]}], "text"),
        ("summarize", [{"entries": [3, 4], "text": f"token {SECRET}"}], ""),
        ("summarize", {"entries": [3, 4], "text": "x"}, "summarize()"),
        ("split", [{"file": "memory-x.md", "title": "X", "hook": "x"}], "entries"),
        ("split", [{"file": "../x.md", "title": "X", "hook": "x", "entries": [0]}], ""),
    ],
)
def test_a_hostile_compactor_is_refused_and_nothing_changes(
    root: pathlib.Path, method: str, result: object, message: str
) -> None:
    seed(root)
    hostile = type("Hostile", (), {method: lambda self, *args: result})()
    before = tree(root)
    with pytest.raises(memory_core.MemoryCoreError) as caught:
        StructuredMemory(root, topic_lines=1, fixed_time=FIXED).compact("memory-infra.md", compactor=hostile)
    assert isinstance(caught.value, (memory_core.AbortedError, memory_core.InvalidInputError))
    assert message in str(caught.value)
    assert SECRET not in str(caught.value)
    assert tree(root) == before


def test_compact_of_a_missing_topic_is_not_found(root: pathlib.Path) -> None:
    seed(root)
    with pytest.raises(memory_core.NotFoundError):
        StructuredMemory(root).compact("memory-none.md")


def test_compact_without_a_file_does_only_what_is_over_budget(root: pathlib.Path) -> None:
    seed(root)
    m = StructuredMemory(root, fixed_time=FIXED)
    report = m.compact()
    assert report == {
        "id": None,
        "dry_run": False,
        "files": [],
        "created": [],
        "index_lines": [],
        "not_compacted": [],
        "removed_temp_files": [],
    }


# -- handles and the lock ---------------------------------------------------------------


def test_handles_pickle_and_copy_with_their_budgets(root: pathlib.Path) -> None:
    m = StructuredMemory(root, topic_lines=7, index_bytes=500, lock_timeout=3, fixed_time=FIXED)
    for other in (pickle.loads(pickle.dumps(m)), copy.copy(m), copy.deepcopy(m)):
        assert other.root == m.root
        assert other.budgets == m.budgets
    assert repr(m) == f"StructuredMemory({m.root!r})"
    assert m.root.is_absolute()


def test_a_held_lock_times_out_and_the_wait_releases_the_gil(root: pathlib.Path) -> None:
    quick = StructuredMemory(root, lock_timeout=0.2, fixed_time=FIXED)
    with lock_held_by_other_process(root):
        with pytest.raises(memory_core.LockTimeoutError) as caught:
            quick.remember("memory-infra.md", "Postgres 16", hook="databases")
        assert isinstance(caught.value, TimeoutError)
        assert not (root / "MEMORY.md").exists()
    seed(root)
    patient = StructuredMemory(root, lock_timeout=30, topic_lines=6, fixed_time=FIXED)
    results: list[str | None] = []
    with lock_held_by_other_process(root) as holder:
        worker = threading.Thread(
            target=lambda: results.append(patient.compact("memory-infra.md", compactor=Judge())["id"])
        )
        worker.start()
        time.sleep(0.3)
        assert worker.is_alive()  # waiting inside the core, without the GIL
        release(holder)
        worker.join(timeout=60)
    assert results and results[0] is not None


def test_an_index_over_budget_is_compacted_by_a_python_compactor(root: pathlib.Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text(
        "- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\n",
        encoding="utf-8",
    )
    (root / "memory-a.md").write_text("# A\n\n- 2026-06-01: a fact\n", encoding="utf-8")
    (root / "memory-b.md").write_text("# B\n\n- 2026-06-02: b fact\n", encoding="utf-8")

    class IndexJudge:
        def route_content(self, index: dict[str, typing.Any]) -> list[list[typing.Any]]:
            return [[i, "memory-a.md"] for i in range(len(index["content"]))]

        def merge_topics(self, index: dict[str, typing.Any]) -> list[list[str]]:
            return [["memory-b.md", "memory-a.md"]]

    m = StructuredMemory(root, index_lines=1, fixed_time=FIXED)
    report = m.compact("MEMORY.md", compactor=IndexJudge())
    assert report["files"][0]["file"] == "MEMORY.md"
    assert report["files"][0]["after"]["lines"] == 1
    assert not (root / "memory-b.md").exists()
    text = (root / "memory-a.md").read_text(encoding="utf-8")
    assert "The deploy hook runs first." in text and "b fact" in text

    class Bad:
        def route_content(self, index: dict[str, typing.Any]) -> object:
            return [[0]]

    (root / "MEMORY.md").write_text("- [A](memory-a.md) — deploys\nstray content\n", encoding="utf-8")
    before = tree(root)
    with pytest.raises(memory_core.AbortedError, match="route_content"):
        m.compact("MEMORY.md", compactor=Bad())
    assert tree(root) == before


def test_a_fact_goes_under_the_section_it_names_or_above_the_first_and_keeps_its_indentation(
    tmp_path: pathlib.Path,
) -> None:
    root = tmp_path / "memory"
    seed(root, "# Infra\n\n## Hosts\n- 2026-06-01: web1\n\n## Databases\n- 2026-06-02: db1\n")
    memory = StructuredMemory(root, fixed_time=FIXED)
    memory.remember("memory-infra.md", "backups run nightly")
    out = memory.remember("memory-infra.md", "db2:\n  - a replica", section="databases")
    assert out["entry"]["text"] == "db2:\n  - a replica"
    assert (root / "memory-infra.md").read_text(encoding="utf-8") == (
        "# Infra\n\n- 2026-07-10: backups run nightly\n\n## Hosts\n- 2026-06-01: web1\n\n"
        "## Databases\n- 2026-06-02: db1\n- 2026-07-10: db2:\n    - a replica\n"
    )
    before = tree(root)
    with pytest.raises(memory_core.InvalidInputError) as raised:
        memory.remember("memory-infra.md", "x", section="## Hosts")
    assert "invalid section" in str(raised.value)
    with pytest.raises(memory_core.InvalidInputError):
        memory.remember("memory-infra.md", "```\ncode\n```")
    with pytest.raises(memory_core.InvalidInputError):
        memory.remember("memory-infra.md", "x", section=3)  # type: ignore[arg-type]
    assert tree(root) == before


def test_a_symlinked_index_is_read_through(tmp_path: pathlib.Path) -> None:
    """Reads go through a MEMORY.md that is a symbolic link and say so; writes refuse it."""
    (tmp_path / "dotfiles").mkdir()
    root = tmp_path / "memory"
    root.mkdir()
    (tmp_path / "dotfiles" / "MEMORY.md").write_text("- [Infra](memory-infra.md) — hosts\n", encoding="utf-8")
    (root / "memory-infra.md").write_text("- 2026-07-01: db1\n", encoding="utf-8")
    (root / "MEMORY.md").symlink_to("../dotfiles/MEMORY.md")
    m = StructuredMemory(root)
    index = m.index()
    assert index["through_link"] == "../dotfiles/MEMORY.md"
    with pytest.warns(memory_core.MemoryCoreWarning, match="symbolic link"):
        assert [h["file"] for h in m.recall("hosts")] == ["memory-infra.md"]
    assert [(v["kind"], v["line"]) for v in m.check()] == [("linked_index", 0)]
    with pytest.raises(memory_core.InvalidInputError):
        m.remember("memory-infra.md", "db2")
    (root / "MEMORY.md").unlink()
    (root / "MEMORY.md").write_text("- [Infra](memory-infra.md) — hosts\n", encoding="utf-8")
    assert m.index()["through_link"] is None


def test_a_new_topic_gets_the_frontmatter_type_given_and_an_existing_one_keeps_its_own(
    tmp_path: pathlib.Path,
) -> None:
    root = tmp_path / "memory"
    memory = StructuredMemory(root, fixed_time=FIXED)
    memory.remember("feedback_tests.md", "no mocks", hook="how tests are written", type="feedback")
    assert (root / "feedback_tests.md").read_text(encoding="utf-8") == (
        "---\nname: Feedback tests\ndescription: how tests are written\ntype: feedback\n---\n\n"
        "- 2026-07-10: no mocks\n"
    )
    meta = memory.topic("feedback_tests.md")["meta"]
    assert meta is not None and meta["type"] == "feedback"
    # Among frontmatter topics, a new one gets name and description without being asked.
    memory.remember("project_deploy.md", "staging first", hook="how releases ship")
    assert (root / "project_deploy.md").read_text(encoding="utf-8").startswith(
        "---\nname: Project deploy\ndescription: how releases ship\n---\n"
    )
    before = tree(root)
    with pytest.raises(memory_core.InvalidInputError) as raised:
        memory.remember("feedback_tests.md", "x", type="user")
    assert "its type is feedback" in str(raised.value)
    with pytest.raises(memory_core.InvalidInputError):
        memory.remember("new.md", "x", hook="h", type="two words")
    assert tree(root) == before
