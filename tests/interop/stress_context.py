"""Cross-language stress test, context-memory phase: `memcore context`, Python and Node
ContextMemory writers on ONE namespace at once.

Run by tests/interop/run.sh after stress.py, with the repository's .venv Python (the final
checks read the root through memory_core too):

  python stress_context.py --memcore PATH --node-package DIR [--python PATH] [--keep]

What it does:

1. Creates a fresh root and, with `memcore context`, writes two entries into the namespace
   `project.interop`; adds a hand-written entity (comments, an unknown key, a slug id) and
   heals it into the index.
2. Starts PY_WORKERS Python processes (worker_context.py, CHAINS threads each) and
   NODE_WORKERS Node processes (worker_context.cjs, CHAINS Promise chains each); each
   says `ready` and blocks on stdin. RS_LANES driver threads each run one chain as
   `memcore context …` processes, one per call.
3. Releases everyone at once. Every chain writes ENTRIES entries with distinct summaries
   (four categories, so short ids are allocated per category under contention; one in
   four with a slug; one experimental), promotes its experimental entry and supersedes
   its first one, reporting each acknowledged write as a JSON line. Meanwhile a reader
   lane runs `memcore --json context query --history` in a loop.
4. Checks the final state against the acknowledgements: every acknowledged entry is in
   `_index.md` exactly once and has its file, no entity name was acknowledged twice, the
   numbered short ids of each category are exactly 1..n (none reused, none skipped),
   rows and files are one-to-one (`memcore context verify` finds no drift, `heal` has
   nothing to do), every file parses and says what was acknowledged (status, supersedes),
   the pre-existing files are byte-identical, no temp file is left, Node reads the same
   entries, and every concurrent read parsed and saw every write acknowledged before it.

Prints `ok - ...` / `FAIL - ...` per check and finally `interop (context): N passed, M
failed`; exits 1 when a check failed (the root is then kept and its path printed).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from stress import TEMP_NAME, Checks, check_surfaces_overlap, error_lines, memcore

HERE = Path(__file__).resolve().parent

NAMESPACE = "project.interop"
NS_DIR = Path("projects/interop")
PY_WORKERS = 4
NODE_WORKERS = 4
RS_LANES = 4
CHAINS = 2  # concurrent chains inside each Python / Node process
ENTRIES = 12  # entries per chain (plus one promote and one supersede)
CATEGORIES = ["decision", "constraint", "risk", "todo"]
READY_TIMEOUT = 30.0
STORM_TIMEOUT = 40.0
CALL_TIMEOUT = 20.0
READ_PAUSE = 0.05

HAND_NAME = "assumption-hand-kept.md"
HAND = """---
# Written by hand; the storm must leave this file alone.
entity_name: project.interop.assumption.hand-kept
namespace: 'project.interop'
category: assumption
status: accepted   # reviewed
tags: [interop, hand]
created_at: 2026-04-03T10:00:00Z
x-owner: Zoë
---

Hand-written entries survive concurrent writers.
"""

SPAWNED: list[subprocess.Popen[str]] = []
OPS = ("write", "promote", "supersede")


class Run:
    """Everything the storm recorded: acknowledgements, errors, reader findings."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.begins: list[tuple[float, str]] = []  # (monotonic receipt, worker): a chain's first call
        self.acks: list[tuple[float, dict[str, Any]]] = []
        self.errors: list[dict[str, Any]] = []
        self.done: set[str] = set()
        self.ready: set[str] = set()
        self.ready_event = threading.Event()
        self.expected_ready = 0
        self.stderr: dict[str, list[str]] = collections.defaultdict(list)
        self.bad_lines: list[str] = []
        self.reads = 0
        self.read_problems: list[str] = []

    def record(self, source: str, line: str) -> None:
        try:
            rec = json.loads(line)
            op = rec["op"]
        except (ValueError, KeyError, TypeError):
            with self.lock:
                self.bad_lines.append(f"{source}: {line!r}")
            return
        now = time.monotonic()
        with self.lock:
            if op in OPS:
                rec.setdefault("worker", source)
                self.acks.append((now, rec))
            elif op == "begin":
                self.begins.append((now, rec.get("worker", source)))
            elif op == "error":
                self.errors.append(rec)
            elif op == "done":
                self.done.add(source)
            elif op == "ready":
                self.ready.add(source)
                if len(self.ready) >= self.expected_ready:
                    self.ready_event.set()
            else:
                self.bad_lines.append(f"{source}: {line!r}")

    def acked_names(self) -> set[str]:
        with self.lock:
            return {r["name"] for _, r in self.acks if r["op"] in ("write", "supersede")}


def pump(run: Run, source: str, stream: Any, into_stderr: bool) -> None:
    for line in stream:
        line = line.rstrip("\n")
        if into_stderr:
            with run.lock:
                run.stderr[source].append(line)
        elif line:
            run.record(source, line)


def body(chain: str, k: int) -> str:
    """As worker_context.py writes them: random hex keeps the duplicate check quiet."""
    return f"{chain} k{k} {secrets.token_hex(12)} ✓."


def lane(run: Run, binary: str, root: Path, name: str, go: threading.Event, stop: threading.Event) -> None:
    """A `memcore context` writer: the plan of worker_context.py's run_chain, one process
    per call."""
    chain = f"{name}a"
    go.wait()
    run.record(name, json.dumps({"op": "begin", "worker": name, "chain": chain}))

    def call(what: str, *args: str) -> dict[str, Any] | None:
        try:
            proc = memcore(binary, root, "context", *args)
        except subprocess.TimeoutExpired:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what, "kind": "timeout",
                                         "message": f"no exit in {CALL_TIMEOUT} s"}))
            return None
        if proc.returncode != 0:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what,
                                         "kind": f"exit {proc.returncode}",
                                         "message": proc.stderr.strip().split("\n")[0]}))
            return None
        try:
            out: dict[str, Any] = json.loads(proc.stdout)
        except ValueError:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what, "kind": "bad_json",
                                         "message": proc.stdout}))
            return None
        return out

    names: list[str | None] = []
    for k in range(ENTRIES):
        if stop.is_set():
            return
        category = CATEGORIES[k % len(CATEGORIES)]
        status = "experimental" if k == 1 else "accepted"
        args = ["write", "--namespace", NAMESPACE, "--category", category, "--tags", f"interop,{chain}",
                "--status", status, "--body", body(chain, k)]
        if k % 4 == 3:
            args += ["--slug", f"{chain}-s{k}"]
        out = call(f"write {chain} k{k}", *args)
        if out is None:
            names.append(None)
            continue
        entry = out["entry"]
        names.append(entry["entity_name"])
        run.record(name, json.dumps({"op": "write", "worker": name, "chain": chain, "k": k,
                                     "name": entry["entity_name"], "category": category,
                                     "summary": entry["summary"], "status": entry["status"]}))
        if k == 2 and names[1] is not None:
            promoted = call(f"promote {names[1]}", "promote", names[1])
            if promoted is not None:
                run.record(name, json.dumps({"op": "promote", "worker": name, "chain": chain,
                                             "name": promoted["entity_name"]}))
        if k == 5 and names[0] is not None:
            done = call(f"supersede {names[0]}", "supersede", names[0], "--namespace", NAMESPACE,
                        "--category", "decision", "--tags", f"interop,{chain}", "--body", body(chain, 100 + k))
            if done is not None:
                run.record(name, json.dumps({"op": "supersede", "worker": name, "chain": chain, "k": 100 + k,
                                             "old": done["old"]["entity_name"], "name": done["new"]["entity_name"],
                                             "category": "decision", "summary": done["new"]["summary"]}))
    run.record(name, json.dumps({"op": "done", "worker": name}))


def index_rows(text: str) -> list[list[str]]:
    """The cells of the `_index.md` table's rows (after the header and delimiter rows)."""
    lines = text.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| Entity |"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split("|")])
            return rows
    return []


def reader(run: Run, binary: str, root: Path, pre: set[str], stop: threading.Event) -> None:
    """Queries while the storm writes: every answer must parse, name no entry twice and
    show every entry whose write was acknowledged before the query started."""
    while not stop.is_set():
        before = run.acked_names() | pre
        problem = None
        try:
            proc = memcore(binary, root, "context", "query", "--namespace", NAMESPACE, "--history",
                           "--limit", "100000")
        except subprocess.TimeoutExpired:
            problem = "memcore context query did not exit in time"
        else:
            if proc.returncode != 0:
                problem = f"memcore context query exited {proc.returncode}: {proc.stderr.strip()}"
            else:
                try:
                    names = [h["entity_name"] for h in json.loads(proc.stdout)]
                except (ValueError, KeyError, TypeError) as e:
                    problem = f"memcore context query printed unparsable JSON ({e})"
                else:
                    missing = before - set(names)
                    if len(names) != len(set(names)):
                        problem = "memcore context query named an entry twice"
                    elif missing:
                        problem = f"memcore context query missed acknowledged entries {sorted(missing)[:5]}"
        with run.lock:
            run.reads += 1
            if problem:
                run.read_problems.append(problem)
        stop.wait(READ_PAUSE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memcore", required=True, help="the memcore binary")
    parser.add_argument("--node-package", required=True, help="the bindings-node directory")
    parser.add_argument("--python", default=sys.executable, help="Python with memory_core (default: this one)")
    parser.add_argument("--node", default="node", help="the node binary")
    parser.add_argument("--keep", action="store_true", help="keep the memory root even when every check passes")
    opts = parser.parse_args()

    import memory_core  # the .venv package; imported here so --help works without it

    started = time.monotonic()
    checks = Checks()
    tmp = Path(tempfile.mkdtemp(prefix="memcore-interop-context-"))
    root = tmp / "memory"
    binary = opts.memcore
    ns_dir = root / NS_DIR

    def give_up() -> int:
        print(f"interop (context): {checks.passed} passed, {checks.failed} failed (root kept: {tmp})")
        return 1

    # 1. Entries written before the storm, and a hand-written one.
    pre: set[str] = set()
    for category, text in (("decision", "Pre-existing decision written before the storm."),
                           ("principle", "Pre-existing principle nobody touches.")):
        result = memcore(binary, root, "context", "write", "--namespace", NAMESPACE, "--category", category,
                         "--tags", "interop,pre", "--body", text)
        if not checks.check(result.returncode == 0, f"pre-storm `memcore context write --category {category}`",
                            result.stderr.strip()):
            return give_up()
        pre.add(json.loads(result.stdout)["entry"]["entity_name"])
    (ns_dir / HAND_NAME).write_text(HAND, encoding="utf-8")
    healed = memcore(binary, root, "context", "heal", NAMESPACE)
    # `heal NS` and `verify NS` print a list: one report per namespace.
    if not checks.check(healed.returncode == 0 and json.loads(healed.stdout)[0]["added"]
                        == ["project.interop.assumption.hand-kept"],
                        "`memcore context heal` indexes the hand-written entity", healed.stdout + healed.stderr):
        return give_up()
    pre.add("project.interop.assumption.hand-kept")
    pre_files = {p.name: p.read_bytes() for p in ns_dir.glob("*.md") if p.name != "_index.md"}

    # 2. Workers: load, say ready, wait at the barrier.
    run = Run()
    procs: dict[str, subprocess.Popen[str]] = {}
    commands = {f"py{i}": [opts.python, str(HERE / "worker_context.py"), str(root), f"py{i}", str(CHAINS),
                           str(ENTRIES)] for i in range(1, PY_WORKERS + 1)}
    commands.update({f"node{i}": [opts.node, str(HERE / "worker_context.cjs"), opts.node_package, str(root),
                                  f"node{i}", str(CHAINS), str(ENTRIES)] for i in range(1, NODE_WORKERS + 1)})
    run.expected_ready = len(commands)
    pumps = []
    for name, cmd in commands.items():
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, encoding="utf-8", bufsize=1)
        procs[name] = proc
        SPAWNED.append(proc)
        for stream, is_err in ((proc.stdout, False), (proc.stderr, True)):
            t = threading.Thread(target=pump, args=(run, name, stream, is_err), daemon=True)
            t.start()
            pumps.append(t)
    go, stop_lanes, stop_reader = threading.Event(), threading.Event(), threading.Event()
    lanes = [threading.Thread(target=lane, args=(run, binary, root, f"rs{i}", go, stop_lanes), daemon=True)
             for i in range(1, RS_LANES + 1)]
    for t in lanes:
        t.start()

    ready_start = time.monotonic()
    while not run.ready_event.wait(0.1):
        died = [n for n, proc in procs.items() if proc.poll() is not None and n not in run.ready]
        if died or time.monotonic() > ready_start + READY_TIMEOUT:
            time.sleep(0.2)
            break
    dead = {n for n, proc in procs.items() if proc.poll() is not None and n not in run.ready}
    if not checks.check(run.ready_event.is_set(),
                        f"all {len(commands)} Python and Node context workers loaded their package and are ready",
                        [f"exited before ready: {sorted(dead)}",
                         f"not ready: {sorted(set(commands) - run.ready - dead)}"]
                        + [f"{n} stderr: {line}" for n in sorted(dead) for line in error_lines(run.stderr[n])]):
        stop_lanes.set()
        go.set()
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
        return give_up()

    # 3. The storm.
    storm_start = time.monotonic()
    go.set()
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        proc.stdin.close()
    read_thread = threading.Thread(target=reader, args=(run, binary, root, pre, stop_reader), daemon=True)
    read_thread.start()
    deadline = storm_start + STORM_TIMEOUT
    stragglers = []
    for name, proc in procs.items():
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stragglers.append(name)
            proc.kill()
            proc.wait(timeout=10)
    for i, t in enumerate(lanes, 1):
        t.join(timeout=max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            stragglers.append(f"rs{i}")
    stop_lanes.set()
    for t in lanes:
        t.join(timeout=CALL_TIMEOUT + 5)
    storm_seconds = time.monotonic() - storm_start
    stop_reader.set()
    read_thread.join(timeout=CALL_TIMEOUT + 5)
    for t in pumps:
        t.join(timeout=5)

    with run.lock:
        acks = [r for _, r in run.acks]
        errors = list(run.errors)
        done = set(run.done)
    writes = [r for r in acks if r["op"] in ("write", "supersede")]
    by_surface = collections.Counter(re.sub(r"\d+$", "", r["worker"]) for r in acks)
    print(f"# context storm: {storm_seconds:.1f} s, {len(acks)} writes acknowledged "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(by_surface.items()))}), {run.reads} concurrent queries")

    # 4. Checks: the writers.
    checks.check(not stragglers, f"every context writer finished within {STORM_TIMEOUT:.0f} s of go",
                 [f"killed or still running: {stragglers}"])
    for name, proc in procs.items():
        checks.check(proc.returncode == 0 and name in done, f"context worker {name} exited 0 after its plan",
                     [f"exit code {proc.returncode}, done line {'seen' if name in done else 'missing'}"]
                     + [f"stderr: {line}" for line in run.stderr[name][-10:]])
    for i in range(1, RS_LANES + 1):
        checks.check(f"rs{i}" in done, f"memcore context lane rs{i} ran its plan to the end")
    checks.check(not errors, "no context write failed (no duplicate refusal, no lock timeout)",
                 [f"{e.get('worker')}: {e.get('what')}: {e.get('kind')}: {e.get('message')}" for e in errors])
    checks.check(not run.bad_lines, "every context worker line is a JSON record", run.bad_lines)
    per_chain = collections.Counter((r["chain"], r["op"]) for r in acks)
    chains = sorted({r["chain"] for r in acks})
    planned = [f"{w}{chr(ord('a') + c)}" for w in commands for c in range(CHAINS)] + \
        [f"rs{i}a" for i in range(1, RS_LANES + 1)]
    short = [f"{c}: {per_chain[(c, op)]} {op} acknowledgements, planned {want}"
             for c in planned for op, want in (("write", ENTRIES), ("promote", 1), ("supersede", 1))
             if per_chain[(c, op)] != want]
    checks.check(not short and sorted(planned) == chains,
                 f"every planned write, promote and supersede was acknowledged ({len(planned)} chains)", short)
    check_surfaces_overlap(checks, run, storm_start, "the namespace")

    # The final state, through the raw files.
    acked = collections.Counter(r["name"] for r in writes)
    checks.check(all(n == 1 for n in acked.values()),
                 f"no entity name was acknowledged to two writes ({len(acked)} distinct names)",
                 [f"{n} acknowledged {c} times: {[r['worker'] for r in writes if r['name'] == n]}"
                  for n, c in acked.items() if c > 1])
    index_text = (ns_dir / "_index.md").read_text(encoding="utf-8")
    rows = index_rows(index_text)
    row_names = collections.Counter(r[0] for r in rows)
    checks.check(all(row_names[n] == 1 for n in acked),
                 f"every acknowledged entry has exactly one _index.md row ({len(acked)} entries)",
                 [f"{n}: {row_names[n]} rows" for n in acked if row_names[n] != 1])
    checks.check(len(rows) == len(acked) + len(pre) and set(row_names) == set(acked) | pre,
                 f"_index.md has {len(rows)} rows = {len(acked)} acknowledged + {len(pre)} pre-existing",
                 [f"unexpected rows: {sorted(set(row_names) - set(acked) - pre)[:10]}",
                  f"duplicated rows: {[n for n, c in row_names.items() if c > 1][:10]}"])
    files = sorted(p.name for p in ns_dir.iterdir() if p.name != "_index.md")
    row_files = sorted(r[5] for r in rows)
    checks.check(files == row_files, f"rows and entity files are one-to-one ({len(files)} files)",
                 [f"files without a row: {sorted(set(files) - set(row_files))[:10]}",
                  f"rows without a file: {sorted(set(row_files) - set(files))[:10]}"])
    numbered: dict[str, list[int]] = collections.defaultdict(list)
    for name in row_names:
        category, short_id = name.split(".")[-2:]
        if short_id.isdigit():
            numbered[category].append(int(short_id))
    gaps = [f"{c}: {sorted(ids)[:8]}… ({len(ids)} ids, max {max(ids)})" for c, ids in numbered.items()
            if sorted(ids) != list(range(1, len(ids) + 1))]
    checks.check(not gaps, "each category's numbered short ids are exactly 1..n: none reused, none skipped "
                 f"({', '.join(f'{c}: {len(i)}' for c, i in sorted(numbered.items()))})", gaps)
    changed = [n for n, b in pre_files.items() if not (ns_dir / n).is_file() or (ns_dir / n).read_bytes() != b]
    checks.check(not changed, f"the {len(pre_files)} pre-existing entity files are byte-identical", changed)
    temps = [str(p.relative_to(root)) for p in root.rglob("*")
             if TEMP_NAME.match(p.name) or p.name.endswith((".tmp", ".journal"))]
    checks.check(not temps, "no temp or journal file is left behind", temps)

    # Through the surfaces: verify, heal, every file read back.
    verify = memcore(binary, root, "context", "verify", NAMESPACE)
    try:
        (drift,) = json.loads(verify.stdout)
    except ValueError:
        drift = {}
    checks.check(verify.returncode == 0 and not drift.get("missing_files") and not drift.get("unindexed_files")
                 and not drift.get("mismatched") and not drift.get("unreadable")
                 and drift.get("rows") == drift.get("files") == len(rows),
                 "memcore context verify finds no drift (exit 0)", [verify.stdout[:500], verify.stderr.strip()])
    memory = memory_core.ContextMemory(root)
    report = memory.heal(NAMESPACE)
    checks.check(not report["written"] and not report["unreadable"], "heal has nothing to do and nothing unreadable",
                 json.dumps(report)[:500])
    status_of = {r["name"]: "accepted" for r in writes}
    for r in acks:
        if r["op"] == "supersede":
            status_of[r["old"]] = "superseded"
    wrong = []
    row_status = {r[0]: r[4] for r in rows}
    for r in writes:
        try:
            entry = memory.get(r["name"])
        except memory_core.MemoryCoreError as e:
            wrong.append(f"{r['name']}: {e}")
            continue
        want = status_of[r["name"]]
        if entry["status"] != want or row_status.get(r["name"]) != want:
            wrong.append(f"{r['name']}: file {entry['status']}, row {row_status.get(r['name'])}, want {want}")
        if entry["summary"] != r["summary"] or entry["category"] != r["category"]:
            wrong.append(f"{r['name']}: {entry['category']} {entry['summary']!r}, acknowledged {r['category']} "
                         f"{r['summary']!r}")
        if r["op"] == "supersede" and entry["supersedes"] != [r["old"]]:
            wrong.append(f"{r['name']}: supersedes {entry['supersedes']}, want [{r['old']}]")
    checks.check(not wrong, "every entry file parses and says what was acknowledged (status in file and row, "
                 "summary, category, supersedes)", wrong)
    node_script = ("const { ContextMemory } = require(process.argv[1]);"
                   "const hits = new ContextMemory(process.argv[2]).query("
                   "{ namespaces: [process.argv[3]], history: true, limit: 1e9 });"
                   "process.stdout.write(JSON.stringify(hits.map(h => h.entity_name)))")
    node = subprocess.run([opts.node, "-e", node_script, opts.node_package, str(root), NAMESPACE],
                          capture_output=True, text=True, encoding="utf-8", timeout=CALL_TIMEOUT, check=False)
    node_names = json.loads(node.stdout) if node.returncode == 0 else []
    checks.check(node.returncode == 0 and sorted(node_names) == sorted(row_names),
                 "memory-core (Node) queries exactly the same entries",
                 [node.stderr.strip()[-500:], f"{len(node_names)} entries, expected {len(row_names)}"])
    checks.check(run.reads > 0 and not run.read_problems,
                 f"{run.reads} queries during the storm parsed and saw every write acknowledged before them",
                 run.read_problems)

    print(f"# context phase total {time.monotonic() - started:.1f} s")
    if checks.failed or opts.keep:
        print(f"# memory root kept: {root}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"interop (context): {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for leftover in SPAWNED:
            if leftover.poll() is None:
                leftover.kill()
