"""memory_core.StructuredMemory on the shapes an acceptance pass found read or named
wrong: a topic starting with a `---` thematic break (its entries are the topic's), topic
names that are one file elsewhere or cannot be read as written (canonical twins go into
one file; invisible characters, Windows device names and names over 255 bytes raise
InvalidInputError naming why), and a byte-only overage reported at the line that passes
the byte budget, with the near warning naming what is near — the same fields and words
as the Rust core and the CLI."""

from __future__ import annotations

import pathlib
import re
import unicodedata

import pytest

import memory_core
from memory_core import StructuredMemory

FIXED = "2026-12-01T09:00:00Z"
NFC = unicodedata.normalize("NFC", "memory-café.md")
NFD = unicodedata.normalize("NFD", "memory-café.md")


def test_a_leading_thematic_break_is_markdown(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "MEMORY.md").write_text("- [K](memory-k.md) — k facts\n", encoding="utf-8")
    text = "---\r\n\r\n- 2026-11-01 [k]: first entry\r\n\r\n---\r\n\r\n- 2026-11-02 [j]: second entry\r\n"
    (root / "memory-k.md").write_bytes(text.encode())
    m = StructuredMemory(root, fixed_time=FIXED)
    topic = m.topic("memory-k.md")
    assert [e["line"] for e in topic["entries"]] == [3, 7]
    assert topic["meta"] is None and topic["frontmatter_not_yaml"] is None
    assert m.check() == []
    out = m.remember("memory-k.md", "newer", subject="k")
    assert [e["text"] for e in out["replaced"]] == ["first entry"]
    assert (root / "memory-k.md").read_bytes().startswith(b"---\r\n\r\n- 2026-12-01 [k]: newer\r\n")


@pytest.mark.parametrize("first,second", [(NFC, NFD), (NFD, NFC)])
def test_canonical_twins_are_one_topic(root: pathlib.Path, first: str, second: str) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    m.remember(first, "beans from Kenya", subject="beans", hook="coffee")
    out = m.remember(second, "beans from Peru", subject="beans")
    assert out["file"] == first
    assert sorted(p.name for p in root.glob("*.md")) == sorted(["MEMORY.md", "memory-archive.md", first])
    assert len(m.index()["lines"]) == 1


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("x" * 297 + ".md", "at most 255 bytes"),
        ("memory-x\u200b.md", "U+200B (ZERO WIDTH SPACE)"),
        ("memory-\u202ex.md", "U+202E"),
        ("CON.md", "Windows device name"),
        ("com3.notes.md", "Windows device name"),
        ("memory-a|b.md", "Windows does not allow"),
        (" memory-x.md", "start with a space"),
    ],
)
def test_hidden_and_unportable_names_are_refused(root: pathlib.Path, name: str, words: str) -> None:
    m = StructuredMemory(root, fixed_time=FIXED)
    with pytest.raises(memory_core.InvalidInputError, match=re.escape(words)) as caught:
        m.remember(name, "a fact", hook="h")
    assert caught.value.code == "ERR_MEMORY_INVALID_INPUT"
    assert not root.exists() or list(root.glob("*.md")) == []


def net(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "MEMORY.md").write_text("- [Net](memory-net.md) — network\n", encoding="utf-8")
    text = "# Net\n\n" + "".join(f"- 2026-11-0{i} [n{i}]: fact {i}\n" for i in range(1, 10))
    assert (len(text.splitlines()), len(text)) == (11, 241)
    (root / "memory-net.md").write_text(text, encoding="utf-8")


def test_a_byte_only_overage_is_reported_at_the_line_that_passes_it(root: pathlib.Path) -> None:
    net(root)
    found = StructuredMemory(root, topic_bytes=170).check()
    assert [(v["kind"], v["file"], v["line"]) for v in found] == [("over_budget", "memory-net.md", 9)]
    assert "241 of 170 bytes (71 bytes over)" in found[0]["message"]
    found = StructuredMemory(root, topic_bytes=170, topic_lines=4).check()
    assert found[0]["line"] == 5


def test_the_near_warning_names_what_is_near(root: pathlib.Path) -> None:
    net(root)
    m = StructuredMemory(root, topic_bytes=300, fixed_time=FIXED)
    out = m.remember("memory-net.md", "fact ten", subject="n10")
    assert out["budgets"][0]["bytes"] == 270
    assert out["warnings"] == [
        "memory-net.md is near its byte budget: 270 of 300 bytes (30 bytes left); 12 of 150 lines"
    ]
