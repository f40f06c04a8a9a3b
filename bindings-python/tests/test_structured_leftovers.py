"""memory_core.StructuredMemory on what an acceptance pass left over: compact goes on past
a topic that does not read (``not_compacted``), a topic a compactor empties goes with its
index line (and ``restore`` brings both back), names resolve as ``remember`` resolves
them, ``[[wikilinks]]`` are pointers and sync-conflict copies their own check kind — the
same fields and words as the Rust core and the CLI."""

from __future__ import annotations

import pathlib

import memory_core
from memory_core import StructuredMemory

STALE = "".join(f"- 2026-07-0{i} [db]: Postgres 1{i}\n" for i in range(1, 5))


def test_compact_reports_an_unreadable_topic_and_compacts_the_others(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "memory-a.md").write_text(STALE, encoding="utf-8")
    (root / "memory-bad.md").write_text("---\nname: b\n- 2026-07-01: x\n", encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "- [Bad](memory-bad.md) — bad\n- [A](memory-a.md) — a\n", encoding="utf-8"
    )
    m = StructuredMemory(root, topic_lines=2)
    report: memory_core.CompactionReportDict = m.compact()
    skipped = report["not_compacted"]
    assert [(s["file"], s["line"], s["kind"]) for s in skipped] == [("memory-bad.md", 1, "malformed")]
    assert [f["file"] for f in report["files"]] == ["memory-a.md"]
    assert m.topic("MEMORY-A.md")["file"] == "memory-a.md"


def test_an_emptied_topic_goes_with_its_line_and_comes_back(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "memory-old.md").write_text("# Old\n\n" + STALE, encoding="utf-8")
    (root / "MEMORY.md").write_text("- [Old](memory-old.md) — the old project\n", encoding="utf-8")
    m = StructuredMemory(root, topic_lines=2)

    class EvictAll:
        def dead(
            self, topic: memory_core.TopicDict, entries: list[memory_core.StructuredEntryDict]
        ) -> list[int]:
            return list(range(len(entries)))

    report = m.compact(compactor=EvictAll())
    assert not (root / "memory-old.md").exists()
    assert [p["pass"] for p in report["files"][0]["passes"]] == ["evict-dead", "remove-empty"]
    assert m.index()["lines"] == []
    assert report["id"] is not None
    m.restore(report["id"])
    assert (root / "memory-old.md").read_text(encoding="utf-8") == "# Old\n\n" + STALE
    assert [(i["file"], i["hook"]) for i in m.index()["lines"]] == [("memory-old.md", "the old project")]


def test_wikilinks_and_sync_conflict_copies(root: pathlib.Path) -> None:
    root.mkdir()
    (root / "memory-x.md").write_text("- 2026-07-01: a\n", encoding="utf-8")
    (root / "memory-x (conflicted copy 2026-07-01).md").write_text("- 2026-07-01: b\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("- [[memory-x|X]] — x things %% note %%\n", encoding="utf-8")
    m = StructuredMemory(root)
    line = m.index()["lines"][0]
    assert (line["title"], line["file"], line["hook"]) == ("X", "memory-x.md", "x things")
    found = m.check()
    assert [(v["kind"], v["file"]) for v in found] == [
        ("sync_conflict_copy", "memory-x (conflicted copy 2026-07-01).md")
    ]
    assert "memory-x.md" in found[0]["message"]


def test_near_duplicate_similarity_is_the_cores_and_cjk_titles_compare_by_bigrams(
    root: pathlib.Path,
) -> None:
    assert memory_core.NEAR_DUPLICATE_SIMILARITY == 0.75
    assert isinstance(memory_core.NEAR_DUPLICATE_SIMILARITY, float)
    assert "NEAR_DUPLICATE_SIMILARITY" in memory_core.__all__
    root.mkdir()
    for name in ("memory-a.md", "memory-b.md", "memory-c.md"):
        (root / name).write_text("- 2026-07-01: a fact\n", encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "- [基础设施](memory-a.md) — 主机、数据库和备份\n"
        "- [基础设施](memory-b.md) — 主机、数据库、备份\n"
        "- [数据库迁移](memory-c.md) — 步骤和回滚\n",
        encoding="utf-8",
    )
    found = [v for v in StructuredMemory(root).check() if v["kind"] == "near_duplicate_topics"]
    assert [(v["file"], v["line"]) for v in found] == [("MEMORY.md", 2)]
    assert "(line 1; 7 of 9 words alike)" in found[0]["message"]
    # recall matches the same bigrams: 备份 (backup) is inside 数据库和备份.
    hits = StructuredMemory(root).recall("备份")
    assert [h["file"] for h in hits] == ["memory-a.md", "memory-b.md"]
