"""Runs the cross-language conformance corpus (tests/corpus/, see its README) through the
Python binding: the same cases the Rust and Node suites run, so no surface can drift. The
Agent Memory cases run with AgentMemory, the context-memory cases (tests/corpus/context/)
with ContextMemory, the structured-memory cases (tests/corpus/structured/) with
StructuredMemory."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import warnings
from typing import Any, Callable

import pytest

import memory_core
from memory_core import AgentMemory, ContextMemory, StructuredMemory

# Corpus argument names that the Python API spells differently.
RENAMED = {"agent": "agent_name"}

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "corpus"
CASES = sorted(p.parent for p in CORPUS.glob("*/case.json"))
CONTEXT_CASES = sorted(p.parent for p in (CORPUS / "context").glob("*/case.json"))
STRUCTURED_CASES = sorted(p.parent for p in (CORPUS / "structured").glob("*/case.json"))

# The arguments each context-memory op takes (corpus names are the Python names): an
# argument a case gives that its op does not take fails the case, not silently dropped.
ENTRY_ARGS = {
    "namespace", "category", "tags", "body", "status", "summary", "slug", "rationale",
    "confidence", "source_path", "supersedes", "related", "diagram", "force_new",
}
CONTEXT_ARGS: dict[str, set[str]] = {
    "write": ENTRY_ARGS,
    "supersede": ENTRY_ARGS | {"old"},
    "get": {"name"},
    "promote": {"name"},
    "update": {"name", "status", "tags", "summary", "body", "rationale", "confidence", "source_path"},
    "query": {"namespaces", "category", "tags", "text", "history", "limit"},
    "promote_to": {"name", "namespace"},
    "verify": {"namespace"},
    "heal": {"namespace"},
    "pending_refresh": {"namespace"},
    "namespaces": set(),
    "split": {"namespace", "mapping"},
    "end_session": {"promote"},
}
STRUCTURED_ARGS: dict[str, set[str]] = {
    "remember": {"topic", "text", "subject", "date", "title", "hook"},
    "index": set(),
    "topic": {"file"},
    "recall": {"query"},
    "check": set(),
    "compact": {"file", "dry_run"},
    "restore": {"id"},
}


def tree_of(root: pathlib.Path) -> dict[str, bytes]:
    """Every file under `root` by relative path, the lock file excluded."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".memcore.lock"
    }


def as_json(result: Any) -> Any:
    """A binding result as the core serializes it (to_dict() has the same keys)."""
    if isinstance(result, list):
        return [as_json(r) for r in result]
    if result is None or isinstance(result, str):
        return result
    return result.to_dict()


def matches(expected: Any, actual: Any) -> bool:
    """Objects match by the keys given, arrays element-wise, the rest by equality."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(matches, expected, actual))
    return bool(expected == actual) and type(expected) is type(actual)


def relative_to(root: pathlib.Path, value: Any) -> Any:
    """`value` with every string that is a path under `root` made relative to it (POSIX
    separators), as the corpus writes the paths in results."""
    prefix = f"{root}{os.sep}"
    if isinstance(value, str) and value.startswith(prefix):
        return value[len(prefix):].replace(os.sep, "/")
    if isinstance(value, list):
        return [relative_to(root, v) for v in value]
    if isinstance(value, dict):
        return {k: relative_to(root, v) for k, v in value.items()}
    return value


def test_corpus_is_there() -> None:
    assert len(CASES) >= 5, f"no corpus under {CORPUS}"
    assert len(CONTEXT_CASES) >= 12, f"no context-memory corpus under {CORPUS / 'context'}"
    assert len(STRUCTURED_CASES) >= 4, f"no structured-memory corpus under {CORPUS / 'structured'}"


def call_context(memory: ContextMemory, op: str, args: dict[str, Any]) -> Any:
    """Calls context-memory corpus op `op` with `args` (Python names) on `memory`."""
    assert op in CONTEXT_ARGS, f"unknown context corpus op {op}"
    unknown = set(args) - CONTEXT_ARGS[op]
    assert not unknown, f"{op} takes no argument {sorted(unknown)}"
    if op == "end_session" and "promote" in args:
        # The corpus lists [name, namespace] pairs; Python takes a mapping (in order).
        args = {"promote": {name: namespace for name, namespace in args["promote"]}}
    return getattr(memory, op)(**args)


def call_structured(memory: StructuredMemory, op: str, args: dict[str, Any]) -> Any:
    """Calls structured-memory corpus op `op` with `args` (Python names) on `memory`."""
    assert op in STRUCTURED_ARGS, f"unknown structured corpus op {op}"
    unknown = set(args) - STRUCTURED_ARGS[op]
    assert not unknown, f"{op} takes no argument {sorted(unknown)}"
    if op == "remember":
        args = dict(args)
        return memory.remember(args.pop("topic"), args.pop("text"), **args)
    if op == "compact":
        args = dict(args)
        return memory.compact(args.pop("file", None), **args)
    if op == "topic":
        return memory.topic(args["file"])
    if op == "recall":
        return memory.recall(args["query"])
    if op == "restore":
        return memory.restore(args["id"])
    return getattr(memory, op)()


def run_model_case(
    case: pathlib.Path,
    tmp_path: pathlib.Path,
    open_memory: Callable[[pathlib.Path, str, dict[str, Any]], Any],
    call: Callable[[Any, str, dict[str, Any]], Any],
) -> None:
    """Runs a context- or structured-memory case: each step on a memory opened at the
    step's time, its result or error checked, then the tree against `expected/`."""
    spec = json.loads((case / "case.json").read_text(encoding="utf-8"))
    root = tmp_path / "memory"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root)
    root.mkdir(exist_ok=True)
    now = spec["now"]
    for i, step in enumerate(spec["steps"]):
        now = step.get("now", now)
        memory = open_memory(root, now, spec.get("budgets", {}))
        op, args, expect = step["op"], step.get("args", {}), step["expect"]
        at = f"step {i} ({op} {args})"
        before = tree_of(root)
        try:
            # What a step warns of (recall's MemoryCoreWarnings, an error under this
            # suite's filter) is recorded and checked against `expect.warnings` below.
            with warnings.catch_warnings(record=True) as emitted:
                warnings.simplefilter("always", memory_core.MemoryCoreWarning)
                value = relative_to(memory.root, call(memory, op, args))
        except memory_core.MemoryCoreError as error:
            wanted = expect.get("error")
            assert wanted is not None, f"{at}: unexpected {error!r}"
            assert error.kind == wanted["kind"], f"{at}: {error!r}"
            if "line" in wanted:
                assert error.line == wanted["line"], f"{at}: {error!r}"
            if "path_ends_with" in wanted:
                assert error.path is not None, f"{at}: no path on {error!r}"
                assert error.path.as_posix().endswith(wanted["path_ends_with"]), f"{at}: {error!r}"
            if "id" in wanted:
                assert error.session_id == wanted["id"], f"{at}: {error!r}"
            for key in ("field", "secret_kind"):
                if key in wanted:
                    assert getattr(error, key) == wanted[key], f"{at}: {key} of {error!r}"
        else:
            assert "error" not in expect, f"{at}: expected {expect['error']}, got {value!r}"
            if "value" in expect:
                assert matches(expect["value"], value), f"{at}: expected {expect['value']}, got {value}"
            got = [w.message for w in emitted]
            wanted = expect.get("warnings", [])
            assert len(got) == len(wanted), f"{at}: expected warnings {wanted}, got {[str(w) for w in got]}"
            for w, e in zip(got, wanted):
                assert isinstance(w, memory_core.MemoryCoreWarning), f"{at}: {w!r}"
                assert relative_to(memory.root, str(w.path)) == e["path"], f"{at}: {w}"
                assert w.line == e["line"] and e["contains"] in str(w), f"{at}: {w}"
        if expect.get("unchanged"):
            assert tree_of(root) == before, f"{at}: files changed but the step must not write"
    actual, expected = tree_of(root), tree_of(case / "expected")
    assert sorted(actual) == sorted(expected)
    for path, content in expected.items():
        assert actual[path].decode("utf-8", "replace") == content.decode("utf-8", "replace"), path
        assert actual[path] == content, path


@pytest.mark.parametrize("case", CONTEXT_CASES, ids=[c.name for c in CONTEXT_CASES])
def test_context_case(case: pathlib.Path, tmp_path: pathlib.Path) -> None:
    run_model_case(
        case, tmp_path, lambda root, now, _budgets: ContextMemory(root, fixed_time=now), call_context
    )


@pytest.mark.parametrize("case", STRUCTURED_CASES, ids=[c.name for c in STRUCTURED_CASES])
def test_structured_case(case: pathlib.Path, tmp_path: pathlib.Path) -> None:
    def open_memory(root: pathlib.Path, now: str, budgets: dict[str, Any]) -> StructuredMemory:
        return StructuredMemory(
            root,
            index_lines=budgets.get("index_lines", 60),
            topic_lines=budgets.get("topic_lines", 150),
            fixed_time=now,
        )

    run_model_case(case, tmp_path, open_memory, call_structured)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: pathlib.Path, tmp_path: pathlib.Path) -> None:
    spec = json.loads((case / "case.json").read_text(encoding="utf-8"))
    root = tmp_path / "memory"
    if (case / "before").is_dir():
        shutil.copytree(case / "before", root)
    root.mkdir(exist_ok=True)
    now = spec["now"]
    for i, step in enumerate(spec["steps"]):
        now = step.get("now", now)
        memory = AgentMemory(root, fixed_time=now)
        op, args, expect = step["op"], step.get("args", {}), step["expect"]
        args = {RENAMED.get(k, k): v for k, v in args.items()}
        at = f"step {i} ({op} {args})"
        before = tree_of(root)
        try:
            # Rows SessionStart goes on past are MemoryCoreWarnings (an error under this
            # suite's filter); they are recorded and checked below.
            with warnings.catch_warnings(record=True) as emitted:
                warnings.simplefilter("always", memory_core.MemoryCoreWarning)
                value = as_json(getattr(memory, op)(**args))
        except memory_core.MemoryCoreError as error:
            wanted = expect.get("error")
            assert wanted is not None, f"{at}: unexpected {error!r}"
            assert error.kind == wanted["kind"], f"{at}: {error!r}"
            if "line" in wanted:
                assert error.line == wanted["line"], f"{at}: {error!r}"
            if "path_ends_with" in wanted:
                assert error.path is not None
                assert error.path.as_posix().endswith(wanted["path_ends_with"]), f"{at}: {error!r}"
        else:
            assert "error" not in expect, f"{at}: expected {expect['error']}, got {value!r}"
            if "value" in expect:
                assert matches(expect["value"], value), f"{at}: expected {expect['value']}, got {value}"
            for warning in (w.message for w in emitted):
                # Each names a file of this root and a line in it.
                assert isinstance(warning, memory_core.MemoryCoreWarning), f"{at}: {warning!r}"
                assert warning.path is not None and warning.path.is_relative_to(root), f"{at}: {warning}"
                assert warning.line is not None and warning.line > 0, f"{at}: {warning}"
        if expect.get("unchanged"):
            assert tree_of(root) == before, f"{at}: files changed but the step must not write"
    actual, expected = tree_of(root), tree_of(case / "expected")
    assert sorted(actual) == sorted(expected)
    for path, content in expected.items():
        assert actual[path].decode("utf-8", "replace") == content.decode("utf-8", "replace"), path
        assert actual[path] == content, path
