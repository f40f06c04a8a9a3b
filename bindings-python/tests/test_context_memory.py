"""memory_core.ContextMemory: every method on real files, its errors, its plain-dict
results against their TypedDicts, and a second process writing at the same time."""

from __future__ import annotations

import copy
import json
import os
import pathlib
import pickle
import subprocess
import sys
import threading
import time
import typing

import pytest

import memory_core
from memory_core import ContextMemory, MalformedFileError

from _support import lock_held_by_other_process, release

FIXED = "2026-04-03T10:00:00Z"
SECRET = "token ghp_R4nd0mF4k3T0k3nV4lu3F0rT3st1ngAbCdEf"


@pytest.fixture
def cm(root: pathlib.Path) -> ContextMemory:
    return ContextMemory(root, fixed_time=FIXED)


def check(value: object, annotation: object, where: str, seen: set[str]) -> None:
    """Asserts `value` has the runtime type `annotation` says, recursively (exact key
    sets for TypedDicts; a Union of TypedDicts is told apart by its `code` Literal)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if typing.is_typeddict(annotation):
        assert type(value) is dict, (where, value)
        hints = typing.get_type_hints(annotation)
        assert list(value) == list(hints), (where, list(value))  # same keys, same order
        seen.add(annotation.__name__)  # type: ignore[attr-defined]
        for key, field in hints.items():
            check(value[key], field, f"{where}.{key}", seen)
    elif origin is typing.Literal:
        assert type(value) is str and value in args, (where, value)
    elif origin is typing.Union:
        if value is None:
            assert type(None) in args, where
            return
        options = [o for o in args if o is not type(None)]
        if len(options) > 1:
            assert isinstance(value, dict), where
            [options[0]] = [
                o for o in options if typing.get_type_hints(o)["code"] == typing.Literal[value["code"]]
            ]
        check(value, options[0], where, seen)
    elif origin is list:
        assert type(value) is list, (where, value)
        for i, item in enumerate(value):
            check(item, args[0], f"{where}[{i}]", seen)
    elif origin is dict:
        assert type(value) is dict, (where, value)
        for key, item in value.items():
            check(key, args[0], f"{where} key", seen)
            check(item, args[1], f"{where}[{key!r}]", seen)
    elif annotation in (str, int, bool, float):
        assert type(value) is annotation, (where, value)
    else:
        raise AssertionError(f"{where}: no check for {annotation!r}")


def test_write_get_and_the_file_on_disk(cm: ContextMemory, root: pathlib.Path) -> None:
    out = cm.write(
        "org.global",
        "decision",
        ["auth", "security"],
        "Auth uses JWT. Sessions are stateless.",
        rationale="Stateless services scale out",
        confidence=0.9,
        source_path="docs:global/decisions/auth.md",
    )
    entry = out["entry"]
    assert entry["entity_name"] == "org.global.decision.001"
    assert entry["namespace"] == "org.global"
    assert (entry["category"], entry["status"]) == ("decision", "accepted")
    assert entry["tags"] == ["auth", "security"]
    assert entry["summary"] == "Auth uses JWT."
    assert entry["created_at"] == FIXED
    assert entry["confidence"] == 0.9 and entry["rationale"] == "Stateless services scale out"
    assert entry["file"] == "org/global/decision-001-auth-uses-jwt.md"
    assert out["namespace_entries"] == 1 and out["over_threshold"] is False
    assert out["body"]["flags"] == []
    text = (root / entry["file"]).read_text(encoding="utf-8")
    assert text.startswith("---\n") and "entity_name: org.global.decision.001" in text
    assert "org.global.decision.001" in (root / "org/global/_index.md").read_text(encoding="utf-8")
    assert cm.get("org.global.decision.001") == entry
    assert json.loads(json.dumps(entry)) == entry  # plain builtins only
    assert cm.root == root.absolute()
    assert cm.namespace_dir("project.app.api") == root / "projects" / "app" / "api"


def test_write_options_slug_status_summary_links_and_int_confidence(cm: ContextMemory) -> None:
    first = cm.write("project.app", "constraint", ("db", "ops"), "Postgres 16 only.")["entry"]
    entry = cm.write(
        "project.app",
        "assumption",
        ["db", "load"],
        "Traffic stays under 1k rps.",
        status="experimental",
        summary="Under 1k rps",
        slug="traffic-cap",
        confidence=1,
        related=[first["entity_name"]],
    )["entry"]
    assert entry["entity_name"] == "project.app.assumption.traffic-cap"
    assert entry["status"] == "experimental" and entry["summary"] == "Under 1k rps"
    assert entry["confidence"] == 1.0 and type(entry["confidence"]) is float
    assert entry["related_entities"] == [first["entity_name"]]
    assert entry["updated_at"] == FIXED and entry["diagram"] is None


def test_a_diagram_entry_takes_its_fields_as_a_mapping(cm: ContextMemory) -> None:
    code = "flowchart TD\n  A --> B"
    entry = cm.write(
        "org.global",
        "diagram",
        ["flow", "write"],
        "How a write flows.",
        diagram={"diagram_type": "flowchart", "subject": "memory-write-flow", "code": code},
    )["entry"]
    assert entry["diagram"] == {
        "language": "mermaid",
        "diagram_type": "flowchart",
        "subject": "memory-write-flow",
        "code": code,  # read back exactly (a `|-` block keeps no final line break)
    }
    assert cm.get(entry["entity_name"])["diagram"] == entry["diagram"]
    with pytest.raises(memory_core.InvalidInputError, match='unknown key "colour"'):
        cm.write("org.global", "diagram", ["a", "b"], "X.", diagram={"colour": "red"})
    with pytest.raises(memory_core.InvalidInputError, match="diagram: expected a mapping"):
        cm.write("org.global", "diagram", ["a", "b"], "X.", diagram="flowchart")  # type: ignore[arg-type]


def test_body_flags_are_reported_with_their_code(cm: ContextMemory) -> None:
    body = "One. Two. Three. Four. Five.\n\n" + "x" * 500 + "\n\n```\n" + "line\n" * 30 + "```"
    out = cm.write("org.global", "principle", ["style", "docs"], body)
    codes = [flag["code"] for flag in out["body"]["flags"]]
    assert codes == ["many-sentences", "long-line", "code-dump"], out["body"]
    assert out["body"]["bytes"] == len(body.encode())


def test_a_similar_entry_is_a_conflict_naming_it_unless_forced(cm: ContextMemory) -> None:
    cm.write("org.global", "decision", ["auth", "security"], "Auth uses JWT.")
    with pytest.raises(memory_core.ConflictError) as caught:
        cm.write("org.global", "decision", ["auth", "jwt"], "Auth uses JWT!")
    err = caught.value
    assert err.session_id == "org.global.decision.001"
    assert "org.global.decision.001" in str(err)
    assert err.kind == "conflict" and err.code == "ERR_MEMORY_CONFLICT"
    assert isinstance(err, RuntimeError) and err.path is not None and err.line is not None
    forced = cm.write("org.global", "decision", ["auth", "jwt"], "Auth uses JWT!", force_new=True)
    assert forced["entry"]["entity_name"] == "org.global.decision.002"


def test_an_unknown_entity_is_not_found_naming_it(cm: ContextMemory) -> None:
    with pytest.raises(memory_core.NotFoundError) as caught:
        cm.get("org.global.decision.042")
    assert caught.value.session_id == "org.global.decision.042"
    assert isinstance(caught.value, LookupError)
    with pytest.raises(memory_core.NotFoundError):
        cm.update("org.global.risk.001", status="deprecated")
    with pytest.raises(memory_core.NotFoundError):
        cm.promote("org.global.risk.001")


@pytest.mark.parametrize("field", ["body", "summary", "rationale", "source_path"])
def test_a_secret_is_refused_naming_the_field_and_nothing_is_written(
    cm: ContextMemory, root: pathlib.Path, field: str
) -> None:
    values = {"body": "Plain body.", field: SECRET}
    body = values.pop("body")
    with pytest.raises(memory_core.InvalidInputError) as caught:
        cm.write("org.global", "decision", ["a1", "b2"], body, **values)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert caught.value.secret_kind == "github-token"
    assert "ghp_" not in str(caught.value)
    assert not (root / "org").exists()


def test_a_secret_in_an_update_is_refused(cm: ContextMemory) -> None:
    name = cm.write("org.global", "risk", ["ops", "pager"], "The rota is thin.")["entry"]["entity_name"]
    with pytest.raises(memory_core.InvalidInputError) as caught:
        cm.update(name, body=SECRET)
    assert caught.value.field == "body"
    assert cm.get(name)["body"] == "The rota is thin."


def test_update_changes_only_the_given_fields(cm: ContextMemory, root: pathlib.Path) -> None:
    entry = cm.write("org.global", "risk", ["ops", "pager"], "The rota is thin.")["entry"]
    later = ContextMemory(root, fixed_time="2026-04-04T08:00:00Z")
    updated = later.update(
        entry["entity_name"], status="deprecated", tags=["ops", "oncall"], confidence=0.5
    )
    assert updated["status"] == "deprecated" and updated["tags"] == ["ops", "oncall"]
    assert updated["confidence"] == 0.5 and updated["updated_at"] == "2026-04-04T08:00:00Z"
    assert updated["body"] == entry["body"] and updated["created_at"] == entry["created_at"]
    assert cm.get(entry["entity_name"]) == updated
    rewritten = later.update(entry["entity_name"], body="The rota has two people.", summary="Two on call")
    assert rewritten["body"] == "The rota has two people." and rewritten["summary"] == "Two on call"


def test_query_orders_filters_and_limits(cm: ContextMemory) -> None:
    a = cm.write("project.app", "decision", ["api", "rest"], "Use REST for the API.")["entry"]
    b = cm.write("project.app", "decision", ["api", "auth"], "Tokens are JWT.", status="experimental")["entry"]
    c = cm.write("org.global", "principle", ["api", "auth"], "Least privilege everywhere.")["entry"]
    cm.write("session.current", "todo", ["api", "scratch"], "Try port 8081.")
    hits = cm.query(tags=["api", "auth"])
    names = [h["entity_name"] for h in hits]
    assert names == [c["entity_name"], a["entity_name"], b["entity_name"]], hits
    assert hits[0]["tag_overlap"] == 2 and hits[0]["file"] == c["file"]
    assert [h["entity_name"] for h in cm.query(namespaces=["project.app"], category="decision", limit=1)] == [
        a["entity_name"]
    ]
    assert [h["entity_name"] for h in cm.query(text="jwt")] == [b["entity_name"]]
    assert [h["namespace"] for h in cm.query(namespaces=["session.current"])] == ["session.current"]
    cm.update(a["entity_name"], status="deprecated")
    assert a["entity_name"] not in [h["entity_name"] for h in cm.query(tags=["rest"])]
    assert [h["entity_name"] for h in cm.query(tags=["rest"], history=True)] == [a["entity_name"]]
    assert cm.query(namespaces=["project.none"]) == []


def test_query_answer_gives_the_hits_and_warns_of_a_linked_index(cm: ContextMemory, root: pathlib.Path) -> None:
    kept = cm.write("org.global", "decision", ["auth", "security"], "Auth uses JWT.")["entry"]
    cm.write("project.app", "decision", ["api", "rest"], "REST over gRPC.")
    answer = cm.query_answer()
    assert [h["entity_name"] for h in answer["hits"]] == [h["entity_name"] for h in cm.query()]
    assert answer["warnings"] == []
    seen: set[str] = set()
    check(answer, memory_core.QueryAnswerDict, "answer", seen)
    index = root / "projects" / "app" / "_index.md"
    elsewhere = root / "elsewhere.md"
    index.rename(elsewhere)
    index.symlink_to(elsewhere)
    answer = cm.query_answer(tags=["auth", "api"], limit=10)
    assert [h["entity_name"] for h in answer["hits"]] == [kept["entity_name"]]
    assert len(answer["warnings"]) == 1, answer
    assert answer["warnings"][0]["path"] == str(index)
    check(answer, memory_core.QueryAnswerDict, "answer", seen)
    assert {"QueryAnswerDict", "HitDict", "WarningRecordDict"} <= seen
    # Naming the namespace fails rather than answering without it; the link stays.
    with pytest.raises(memory_core.InvalidInputError):
        cm.query_answer(namespaces=["project.app"])
    assert index.is_symlink()
    with pytest.raises(memory_core.InvalidInputError, match="limit"):
        cm.query_answer(limit=-1)


def test_supersede_promote_and_promote_to(cm: ContextMemory) -> None:
    old = cm.write("project.app", "decision", ["db", "storage"], "Use MySQL.")["entry"]
    done = cm.supersede(old["entity_name"], "project.app", "decision", ["db", "storage"], "Use Postgres instead.")
    assert done["old"]["status"] == "superseded"
    assert done["new"]["supersedes"] == [old["entity_name"]]
    assert cm.get(old["entity_name"])["status"] == "superseded"
    trial = cm.write("project.app", "assumption", ["cache", "perf"], "Redis halves latency.", status="experimental")
    assert cm.promote(trial["entry"]["entity_name"])["status"] == "accepted"
    note = cm.write("session.current", "decision", ["api", "auth"], "Tokens live one hour.")["entry"]
    moved = cm.promote_to(note["entity_name"], "project.app")
    assert moved["new"]["namespace"] == "project.app"
    assert moved["old"]["entity_name"] == note["entity_name"] and moved["old"]["status"] == "superseded"


def test_verify_and_heal_after_hand_edits(cm: ContextMemory, root: pathlib.Path) -> None:
    ns = "project.app"
    kept = cm.write(ns, "decision", ["api", "rest"], "Use REST.")["entry"]
    gone = cm.write(ns, "risk", ["ops", "pager"], "The rota is thin.")["entry"]
    (root / gone["file"]).unlink()
    (root / "projects/app/todo-001-broken.md").write_text("---\nentity_name: [\n---\nBody.\n", encoding="utf-8")
    drift = cm.verify(ns)
    assert drift["namespace"] == ns and drift["missing_files"] == [gone["entity_name"]]
    assert [w["path"].endswith("todo-001-broken.md") for w in drift["unreadable"]] == [True]
    assert drift["rows"] == 2 and drift["files"] == 2
    healed = cm.heal(ns)
    assert healed["removed"] == [gone["entity_name"]] and healed["written"] is True
    assert len(healed["unreadable"]) == 1
    after = cm.verify(ns)
    assert after["missing_files"] == [] and after["rows"] == 1
    assert cm.get(kept["entity_name"]) == kept


def test_foreign_files_are_listed_apart_and_never_drift(cm: ContextMemory, root: pathlib.Path) -> None:
    ns = "project.app"
    cm.write(ns, "decision", ["api", "rest"], "Use REST.")
    d = root / "projects/app"
    files = {
        "README.md": b"# About\n",
        "NOTES.md": b"\xef\xbb\xbf---\r\nx: 1\r\n---\r\n",
        "todo.md": b"- [ ] tidy\n",
        "\u30ce\u30fc\u30c8.md": "\u899a\u3048\n".encode(),
        "decision.md": (d / "decision-001-use-rest.md").read_bytes(),
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    drift = cm.verify(ns)
    assert drift["foreign"] == sorted(f"projects/app/{n}" for n in files)
    assert drift["missing_files"] == drift["unindexed_files"] == [] and drift["unreadable"] == []
    assert drift["rows"] == 1 and drift["files"] == 1
    healed = cm.heal(ns)
    assert healed["written"] is False and healed["foreign"] == drift["foreign"]
    assert [h["entity_name"] for h in cm.query()] == ["project.app.decision.001"]
    for name, data in files.items():
        assert (d / name).read_bytes() == data, name
    # Named like an entity but not reading: still unreadable, not foreign.
    (d / "todo-list.md").write_text("# My list\n", encoding="utf-8")
    drift = cm.verify(ns)
    assert [w["path"].endswith("todo-list.md") for w in drift["unreadable"]] == [True]
    assert "projects/app/todo-list.md" not in drift["foreign"]


def test_supersede_reports_the_write_fields(cm: ContextMemory) -> None:
    old = cm.write("org.global", "decision", ["db", "x1"], "Use MySQL.")["entry"]["entity_name"]
    done = cm.supersede(old, "org.global", "decision", ["db", "x1"], "Use Postgres. It has JSONB. It scales. It is free.")
    assert list(done) == ["new", "old", "namespace_entries", "over_threshold", "body"]
    assert done["namespace_entries"] == 2 and done["over_threshold"] is False
    assert [f["code"] for f in done["body"]["flags"]] == ["many-sentences"]
    promoted = cm.promote_to(done["new"]["entity_name"], "project.app")
    assert promoted["namespace_entries"] == 1 and promoted["old"]["status"] == "superseded"


def test_namespaces_lists_every_directory_with_memory(cm: ContextMemory) -> None:
    assert cm.namespaces() == []
    cm.write("project.app", "decision", ["api", "rest"], "Use REST.")
    cm.write("org.global", "principle", ["docs", "style"], "Write it down.")
    infos = cm.namespaces()
    assert [i["namespace"] for i in infos] == ["org.global", "project.app"]
    assert infos[1] == {
        "namespace": "project.app",
        "dir": "projects/app",
        "has_index": True,
        "files": 1,
        "over_threshold": False,
    }


def write_app(cm: ContextMemory) -> list[str]:
    pairs = [(["api", "rest"], "Use REST."), (["api", "auth"], "Tokens are JWT."),
             (["ui", "css"], "Use CSS grid."), (["ui", "a11y"], "Contrast 4.5:1.")]
    return [cm.write("project.app", "decision", tags, body)["entry"]["entity_name"] for tags, body in pairs]


def test_split_by_tag_and_by_mapping(cm: ContextMemory, root: pathlib.Path) -> None:
    names = write_app(cm)
    report = cm.split("project.app")
    assert report["domains"] == {"project.app.api": 2, "project.app.ui": 2}
    assert report["moved"][names[0]] == "project.app.api.decision.001"
    assert report["removed_parent_index"] is True
    with pytest.raises(memory_core.NotFoundError, match="moved to project.app.api.decision.001"):
        cm.get(names[0])
    other = ContextMemory(root / "other", fixed_time=FIXED)
    names = write_app(other)
    mapped = other.split("project.app", {names[2]: "web"})
    assert mapped["moved"] == {names[2]: "project.app.web.decision.003"}  # the id stays
    assert sorted(mapped["kept"]) == sorted(names[:2] + names[3:])
    with pytest.raises(memory_core.InvalidInputError, match="mapping: expected a mapping"):
        other.split("project.app", [("a", "b")])  # type: ignore[arg-type]


def test_end_session_promotes_and_archives(cm: ContextMemory, root: pathlib.Path) -> None:
    keep = cm.write("session.current", "decision", ["api", "auth"], "Tokens live 1h.")["entry"]["entity_name"]
    cm.write("session.current", "todo", ["scratch", "notes"], "Try the other port.")
    report = cm.end_session({keep: "project.app"})
    assert report["promoted"][0]["new"]["entity_name"] == "project.app.decision.001"
    assert len(report["cleared"]) == 1
    assert report["kept"] == [keep]  # superseded, so the new entry's link resolves
    assert report["already_promoted"] == []
    assert report["archive"] is not None and (root / report["archive"]).is_dir()
    assert cm.query(namespaces=["session.current"]) == []
    assert cm.get(keep)["status"] == "superseded"
    empty = cm.end_session()
    assert (empty["promoted"], empty["already_promoted"], empty["cleared"]) == ([], [], [])
    assert (empty["kept"], empty["archive"]) == ([keep], None)


def test_pending_refresh_matches_entries_by_source_path(cm: ContextMemory, root: pathlib.Path) -> None:
    assert cm.pending_refresh("project.app") == []
    cited = cm.write("project.app", "decision", ["auth", "api"], "Auth lives in one module.",
                     source_path="repo:src/auth.rs")["entry"]
    (root / "projects/app/_pending_refresh.md").write_text(
        "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n"
        "# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n"
        "- src/auth.rs\n- README.md\n\nReview and update memory entries as needed.\n",
        encoding="utf-8",
    )
    pending = cm.pending_refresh("project.app")
    assert pending == [
        {"change": {"path": "src/auth.rs", "trigger": "post-merge", "timestamp": FIXED},
         "entries": [cited["entity_name"]]},
        {"change": {"path": "README.md", "trigger": "post-merge", "timestamp": FIXED}, "entries": []},
    ]


def test_every_result_has_the_shape_of_its_typed_dict(cm: ContextMemory, root: pathlib.Path) -> None:
    shapes = memory_core._context_types
    seen: set[str] = set()
    out = cm.write("project.app", "diagram", ["flow", "api"], "One. Two. Three. Four.\n\n" + "y" * 450
                   + "\n\n```\n" + "z\n" * 25 + "```", confidence=0.7, source_path="src/a.rs",
                   diagram={"diagram_type": "flowchart", "subject": "s", "code": "flowchart TD"})
    check(out, shapes.WriteOutcomeDict, "write", seen)
    name = out["entry"]["entity_name"]
    check(cm.get(name), shapes.EntryDict, "get", seen)
    check(cm.update(name, rationale="why"), shapes.EntryDict, "update", seen)
    for hit in cm.query(tags=["api"]):
        check(hit, shapes.HitDict, "query", seen)
    check(cm.query_answer(tags=["api"]), shapes.QueryAnswerDict, "query_answer", seen)
    old = cm.write("project.app", "decision", ["db", "x1"], "Use MySQL.")["entry"]["entity_name"]
    check(cm.supersede(old, "project.app", "decision", ["db", "x1"], "Use Postgres instead."),
          shapes.SupersededDict, "supersede", seen)
    (root / "projects/app/risk-001-bad.md").write_text("---\nx: [\n---\n", encoding="utf-8")
    (root / "projects/app/_index.md").write_text("not an index\n", encoding="utf-8")
    check(cm.verify("project.app"), shapes.DriftReportDict, "verify", seen)
    check(cm.heal("project.app"), shapes.HealReportDict, "heal", seen)
    for info in cm.namespaces():
        check(info, shapes.NamespaceInfoDict, "namespaces", seen)
    (root / "projects/app/risk-001-bad.md").unlink()
    write_app(cm)
    check(cm.split("project.app"), shapes.SplitReportDict, "split", seen)
    keep = cm.write("session.current", "todo", ["a1", "b2"], "Later.")["entry"]["entity_name"]
    check(cm.end_session({keep: "org.global"}), shapes.EndSessionDict, "end_session", seen)
    (root / "projects/app/_pending_refresh.md").write_text(
        "---\ntrigger: manual\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\n"
        "Files changed since last knowledge sync:\n\n- src/a.rs\n\nReview and update memory entries as needed.\n",
        encoding="utf-8",
    )
    for match in cm.pending_refresh("project.app"):
        check(match, shapes.PendingMatchDict, "pending_refresh", seen)
    check(cm.pending_refresh_report("project.app"), shapes.PendingReportDict, "pending_refresh_report", seen)
    check(cm.clear_refresh("project.app", ["src/a.rs"]), shapes.ClearReportDict, "clear_refresh", seen)
    old_memory = root.parent / "old-memory"
    old_memory.mkdir()
    (old_memory / "broken.md").write_text("---\nnamespace: [\n---\n", encoding="utf-8")
    (old_memory / "org" / "global").mkdir(parents=True)
    (old_memory / "org/global/decision-007-linked.md").write_text(
        "---\nentity_name: org.global.decision.007\nnamespace: org.global\ncategory: decision\n"
        "status: accepted\ntags: [a, b]\ncreated_at: 2026-04-03T10:00:00Z\n"
        "supersedes: [org.global.decision.404]\n---\n\nImported with a dangling link.\n",
        encoding="utf-8",
    )
    check(cm.migrate(old_memory), shapes.MigrationReportDict, "migrate", seen)
    repo = root.parent / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "checkout", "-q", "-b", "feature"], check=True)
    check(cm.record_changes(repo), shapes.RecordOutcomeDict, "record_changes", seen)
    check(ContextMemory.install_hooks(repo, "/bin/memcore"), shapes.HooksReportDict, "install_hooks", seen)
    wanted = {
        n for n in dir(shapes) if typing.is_typeddict(getattr(shapes, n)) and not n.startswith("_")
    } | {"WarningRecordDict"}
    assert seen == wanted, wanted - seen
    for name in wanted - {"WarningRecordDict"}:
        assert name in memory_core.__all__ and getattr(memory_core, name) is getattr(shapes, name)


def test_wrong_argument_types_and_values_are_invalid_input_naming_them(cm: ContextMemory) -> None:
    m: typing.Any = cm
    cases: list[tuple[str, typing.Callable[[], object]]] = [
        ("namespace", lambda: m.write(5, "decision", ["a1", "b2"], "X.")),
        ("category", lambda: m.write("org.global", 5, ["a1", "b2"], "X.")),
        ("tags", lambda: m.write("org.global", "decision", "a1 b2", "X.")),
        ("body", lambda: m.write("org.global", "decision", ["a1", "b2"], None)),
        ("confidence", lambda: m.write("org.global", "decision", ["a1", "b2"], "X.", confidence="high")),
        ("force_new", lambda: m.write("org.global", "decision", ["a1", "b2"], "X.", force_new=1)),
        ("name", lambda: m.get(5)),
        ("limit", lambda: m.query(limit="5")),
        ("history", lambda: m.query(history="yes")),
        ("namespaces", lambda: m.query(namespaces="org.global")),
        ("promote", lambda: m.end_session(["a"])),
    ]
    for name, call in cases:
        with pytest.raises(memory_core.InvalidInputError, match=f"^{name}: expected"):
            call()
    refused: list[typing.Callable[[], object]] = [
        lambda: m.write("org.global", "opinion", ["a1", "b2"], "X."),
        lambda: m.write("org.global", "decision", ["a1", "b2"], "X.", status="Accepted"),
        lambda: m.write("nowhere.x", "decision", ["a1", "b2"], "X."),
        lambda: m.write("org.global", "decision", ["only-one"], "X."),
        lambda: m.query(limit=-1),
        lambda: m.query(category="opinion"),
        lambda: m.verify("Not A Namespace"),
        lambda: m.get("not-a-name"),
    ]
    for call in refused:
        with pytest.raises(memory_core.InvalidInputError):
            call()


def test_the_handle_pickles_copies_and_keeps_an_absolute_root(tmp_path: pathlib.Path) -> None:
    os.chdir(tmp_path)
    handle = ContextMemory("rel", lock_timeout=3, fixed_time=FIXED)
    os.chdir("/")
    assert handle.root == tmp_path / "rel"
    for clone in (pickle.loads(pickle.dumps(handle)), copy.copy(handle), copy.deepcopy(handle)):
        assert clone.root == handle.root
        assert clone.write("org.global", "todo", ["a1", "b2"], f"Item {id(clone)}.", force_new=True)[
            "entry"
        ]["created_at"] == FIXED
    assert repr(handle) == f"ContextMemory({handle.root!r})"
    with pytest.raises(memory_core.InvalidInputError, match="lock timeout"):
        ContextMemory(tmp_path, lock_timeout=-1)
    with pytest.raises(memory_core.InvalidInputError):
        ContextMemory(tmp_path, fixed_time="tomorrow")


def test_a_held_lock_times_out_and_the_wait_releases_the_gil(root: pathlib.Path) -> None:
    quick = ContextMemory(root, lock_timeout=0.2)
    with lock_held_by_other_process(root):
        with pytest.raises(memory_core.LockTimeoutError):
            quick.write("org.global", "todo", ["a1", "b2"], "Blocked.")
    patient = ContextMemory(root, lock_timeout=30)
    results: list[str] = []
    with lock_held_by_other_process(root) as holder:
        worker = threading.Thread(
            target=lambda: results.append(
                patient.write("org.global", "todo", ["a1", "b2"], "Waited.")["entry"]["entity_name"]
            )
        )
        worker.start()
        time.sleep(0.3)
        assert worker.is_alive()  # waiting inside the core, without the GIL
        release(holder)
        worker.join(timeout=60)
    assert results == ["org.global.todo.001"]


# Writes ENTRIES entries into one namespace from another interpreter; prints their names.
_WRITER = """
import json, sys
from memory_core import ContextMemory, MalformedFileError
memory = ContextMemory(sys.argv[1], lock_timeout=120)
names = [memory.write("project.app", "todo", ["load", sys.argv[2]], f"{sys.argv[2]} item {n}.",
                      force_new=True)["entry"]["entity_name"] for n in range(int(sys.argv[3]))]
print(json.dumps(names))
"""
ENTRIES = 15


def test_a_second_process_writing_at_the_same_time_loses_nothing(root: pathlib.Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(root), "child", str(ENTRIES)],
        stdout=subprocess.PIPE,
        text=True,
    )
    memory = ContextMemory(root, lock_timeout=120)
    mine = [
        memory.write("project.app", "todo", ["load", "parent"], f"parent item {n}.", force_new=True)[
            "entry"
        ]["entity_name"]
        for n in range(ENTRIES)
    ]
    out, _ = child.communicate(timeout=600)
    assert child.returncode == 0
    theirs = json.loads(out)
    names = mine + theirs
    assert len(set(names)) == 2 * ENTRIES, "a name was given twice"
    hits = memory.query(namespaces=["project.app"], limit=1000)
    assert sorted(h["entity_name"] for h in hits) == sorted(names)
    for name in names:
        entry = memory.get(name)
        assert entry["body"].endswith(".") and entry["tags"][0] == "load"
    drift = memory.verify("project.app")
    assert drift["rows"] == drift["files"] == 2 * ENTRIES and drift["missing_files"] == []


def test_hits_carry_file_fields_and_heal_keeps_a_broken_index(cm: ContextMemory, root: pathlib.Path) -> None:
    entry = cm.write("org.global", "decision", ["auth", "security"], "Auth uses JWT.")["entry"]
    hit = cm.query()[0]
    assert hit["created_at"] == entry["created_at"] and hit["supersedes"] == []
    index = root / "org" / "global" / "_index.md"
    broken = index.read_text(encoding="utf-8").replace("| Auth uses JWT. |", "| Curated |").replace(
        "| accepted |", "| accpeted |"
    )
    index.write_text(broken, encoding="utf-8")
    with pytest.raises(MalformedFileError) as err:
        cm.query()
    assert err.value.line == 7 and index.read_text(encoding="utf-8") == broken
    report = cm.heal("org.global")
    assert report["backup"] is not None and report["unreadable_index"] is not None
    assert (root / report["backup"]).read_text(encoding="utf-8") == broken
    assert cm.query()[0]["summary"] == "Curated"
