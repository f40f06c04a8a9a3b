"""Cross-language stress test: `memcore`, Python and Node writers on one memory root at once.

Run by tests/interop/run.sh, with the repository's .venv Python (the final check reads the
root through memory_core too):

  python stress.py --memcore PATH --node-package DIR [--python PATH] [--keep]

What it does:

1. Creates a fresh root and pre-registers three rows with `memcore` (two manual
   registrations with snapshots, one idle SessionStart row; two use the agent name
   `interop` that every writer uses, so storm ids collide with them), then adds
   hand-written prose before and after the table.
2. Starts PY_WORKERS Python processes (worker.py, CHAINS threads each) and NODE_WORKERS
   Node processes (worker.cjs, CHAINS concurrent Promise chains each); each imports its
   package, says `ready` and blocks on stdin. RS_LANES driver threads wait too; each runs
   `memcore agent start` / `memcore agent update` as one process per call, as hooks do.
3. Releases everyone at once (a "go" line on every worker's stdin plus an event for the
   lanes). Every writer registers sessions and adds decisions to its own sessions, and
   reports each acknowledged write as a JSON line. Meanwhile a reader lane runs
   `memcore --json agent list` and reads index.md raw in a loop.
4. Bounds every wait (ready, storm, each memcore call), kills stragglers, then checks the
   final state against the acknowledgements: every acknowledged id in index.md exactly
   once, row count = acknowledged registrations + pre-registered rows, every acknowledged
   decision exactly once in its own snapshot (and in no other), pre-registered rows,
   their snapshots and the prose byte-identical, the index read back identically by all
   three surfaces, no temp files left, and every concurrent read parsed and saw every
   write acknowledged before it started.

Prints `ok - ...` / `FAIL - ...` per check and finally `interop: N passed, M failed`;
exits 1 when a check failed (the root is then kept for inspection and its path printed).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

PY_WORKERS = 4
NODE_WORKERS = 4
RS_LANES = 4
CHAINS = 2  # concurrent chains inside each Python / Node process
SESSIONS = 10  # sessions per chain; each gets 3 decisions in 2 updates
READY_TIMEOUT = 30.0  # seconds for every worker to load its package
STORM_TIMEOUT = 40.0  # seconds for every writer to finish after "go"
CALL_TIMEOUT = 20.0  # seconds for one memcore process (lock wait is 10 s by default)
READ_PAUSE = 0.05  # between two reads of the reader lane

INTRO = "Hand-written intro before the table: keep me.\n\n"
OUTRO = "\n> Hand-written note after the table: keep me too.\n"
TEMP_NAME = re.compile(r"^\..+\.tmp-\d+-\d+$")

SPAWNED: list[subprocess.Popen[str]] = []  # killed on the way out if still running


def decision(chain: str, k: int, j: int) -> str:
    """The same text worker.py and worker.cjs use."""
    return f"{chain} s{k} d{j} ✓"


class Run:
    """Everything the storm recorded: acknowledgements, errors, reader findings."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.begins: list[tuple[float, str]] = []  # (monotonic receipt, worker): a chain's first call
        self.acks: list[tuple[float, dict[str, Any]]] = []  # (monotonic receipt, record)
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
            if op in ("register", "update"):
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

    def acked_register_ids(self) -> set[str]:
        with self.lock:
            return {r["id"] for _, r in self.acks if r["op"] == "register"}


def pump(run: Run, source: str, stream: Any, into_stderr: bool) -> None:
    for line in stream:
        line = line.rstrip("\n")
        if into_stderr:
            with run.lock:
                run.stderr[source].append(line)
        elif line:
            run.record(source, line)


def memcore(binary: str, root: Path, *args: str, timeout: float = CALL_TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary, "--root", str(root), "--json", *args],
        capture_output=True, text=True, encoding="utf-8", timeout=timeout, check=False,
    )


def lane(run: Run, binary: str, root: Path, name: str, go: threading.Event, stop: threading.Event) -> None:
    """A `memcore` writer: the plan of worker.py's run_chain, one process per call."""
    chain = f"{name}a"
    go.wait()
    run.record(name, json.dumps({"op": "begin", "worker": name, "chain": chain}))
    ids: list[str | None] = []

    def call(what: str, *args: str) -> dict[str, Any] | None:
        try:
            proc = memcore(binary, root, *args)
        except subprocess.TimeoutExpired:  # subprocess.run killed it
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what,
                                         "kind": "timeout", "message": f"no exit in {CALL_TIMEOUT} s"}))
            return None
        if proc.returncode != 0:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what,
                                         "kind": f"exit {proc.returncode}",
                                         "message": proc.stderr.strip().split("\n")[0]}))
            return None
        try:
            out: dict[str, Any] = json.loads(proc.stdout)
        except ValueError:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": what,
                                         "kind": "bad_json", "message": proc.stdout}))
            return None
        return out

    def update(k: int, decisions: list[str]) -> None:
        sid = ids[k]
        if sid is None or stop.is_set():
            return
        args = ["agent", "update", sid]
        for d in decisions:
            args += ["--decision", d]
        row = call(f"update {sid}", *args)
        if row is None:
            return
        if row.get("session_id") != sid:
            run.record(name, json.dumps({"op": "error", "worker": name, "what": f"update {sid}",
                                         "kind": "wrong_row", "message": f"returned row {row.get('session_id')}"}))
            return
        run.record(name, json.dumps({"op": "update", "worker": name, "id": sid, "decisions": decisions}))

    for k in range(SESSIONS):
        if stop.is_set():
            return
        agent = "interop" if k % 2 == 0 else chain
        out = call(f"register {agent}", "agent", "start", "--agent", agent)
        sid = out.get("session_id") if out else None
        ids.append(sid)
        if sid is None:
            continue
        run.record(name, json.dumps({"op": "register", "worker": name, "agent": agent, "id": sid}))
        update(k, [decision(chain, k, 0)])
        if k > 0:
            update(k - 1, [decision(chain, k - 1, 1), decision(chain, k - 1, 2)])
    update(SESSIONS - 1, [decision(chain, SESSIONS - 1, 1), decision(chain, SESSIONS - 1, 2)])
    run.record(name, json.dumps({"op": "done", "worker": name}))


def check_surfaces_overlap(checks: "Checks", run: Any, storm_start: float, what: str) -> None:
    """Checks that the three surfaces (py, node, rs) had write calls in flight at the same
    time: from the first `begin` of a surface's chains to its last acknowledgement.

    Acknowledgements alone do not prove it: the file lock is taken by polling, so under a
    storm one surface can wait at the lock while the others finish (CI saw Node's first
    acknowledgement 0.02 s after Python's last). Its calls were in flight and contending
    all the same, which is what the storm is about. The acknowledgement spans are printed
    for the record either way."""
    with run.lock:
        spans: dict[str, list[float]] = {}
        for at, r in run.acks:
            span = spans.setdefault(re.sub(r"\d+$", "", r["worker"]), [at, at])
            span[0], span[1] = min(span[0], at), max(span[1], at)
        begins: dict[str, float] = {}
        for at, worker in run.begins:
            surface = re.sub(r"\d+$", "", worker)
            begins[surface] = min(begins.get(surface, at), at)
    surfaces = sorted(spans)
    in_flight = {s: (begins.get(s, spans[s][0]), spans[s][1]) for s in surfaces}
    overlap = (min(end for _, end in in_flight.values()) - max(start for start, _ in in_flight.values())
               if len(surfaces) == 3 and set(begins) == set(surfaces) else 0.0)
    checks.check(overlap > 0,
                 f"the three surfaces had writes to {what} in flight at the same time ({overlap:.2f} s of overlap)",
                 [f"{s}: first call {in_flight[s][0] - storm_start:.2f} s, acknowledgements "
                  f"{spans[s][0] - storm_start:.2f} s to {spans[s][1] - storm_start:.2f} s after go"
                  for s in surfaces] + ([] if set(begins) == set(surfaces)
                                        else [f"no begin record from {sorted(set(surfaces) - set(begins))}"]))


def table_rows(text: str) -> list[str]:
    """The row lines of the index table (after the header and delimiter rows)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| Session ID |"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(row)
            return rows
    return []


def row_id(row: str) -> str:
    return row.split("|")[1].strip()


def reader(run: Run, binary: str, root: Path, pre_ids: set[str], stop: threading.Event) -> None:
    """Reads while the storm writes: every read must parse and show every row whose
    registration was acknowledged before the read started; rows never disappear."""
    last = 0
    while not stop.is_set():
        before = run.acked_register_ids() | pre_ids
        problem = None
        try:
            proc = memcore(binary, root, "agent", "list")
        except subprocess.TimeoutExpired:
            problem = "memcore agent list did not exit in time"
        else:
            if proc.returncode != 0:
                problem = f"memcore agent list exited {proc.returncode}: {proc.stderr.strip()}"
            else:
                try:
                    ids = [r["session_id"] for r in json.loads(proc.stdout)]
                except (ValueError, KeyError, TypeError) as e:
                    problem = f"memcore agent list printed unparsable JSON ({e})"
                else:
                    missing = before - set(ids)
                    if len(ids) != len(set(ids)):
                        problem = "memcore agent list showed a duplicate id"
                    elif missing:
                        problem = f"memcore agent list missed acknowledged ids {sorted(missing)[:5]}"
                    elif len(ids) < last:
                        problem = f"row count went down from {last} to {len(ids)}"
                    last = max(last, len(ids))
        if problem is None:
            raw = (root / "index.md").read_text(encoding="utf-8")
            rows = table_rows(raw)
            bad = [r for r in rows if not r.endswith("|") or r.count(" | ") < 8]
            missing = before - {row_id(r) for r in rows}
            if not raw.startswith("# Memory Index\n") or not raw.endswith(OUTRO) or bad:
                problem = f"raw index.md read torn or reshaped: {bad[:2] or raw[-200:]!r}"
            elif missing:
                problem = f"raw index.md missed acknowledged ids {sorted(missing)[:5]}"
        with run.lock:
            run.reads += 1
            if problem:
                run.read_problems.append(problem)
        stop.wait(READ_PAUSE)


def error_lines(lines: list[str]) -> list[str]:
    """A dead worker's error: the first line naming an Error (a JS error's message comes
    first, after the source excerpt), then the last two non-empty lines."""
    text = [line for line in lines if line.strip()]
    named = [line for line in text if re.search(r"\w*Error\b", line)][:1]
    return list(dict.fromkeys(named + text[-2:]))


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, what: str, details: Sequence[str] | str = ()) -> bool:
        if ok:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"FAIL - {what}")
            lines = [details] if isinstance(details, str) else list(details)
            for line in lines[:12]:
                print(f"    {line}")
            if len(lines) > 12:
                print(f"    ... and {len(lines) - 12} more")
        sys.stdout.flush()
        return ok


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
    tmp = Path(tempfile.mkdtemp(prefix="memcore-interop-"))
    root = tmp / "memory"
    binary = opts.memcore

    # 1. Pre-registered rows, prose around the table.
    pre: list[str] = []
    for args in (
        ["agent", "register", "--agent", "pre-alpha", "--topic", "Pre-existing work",
         "--summary", "Registered before the storm; must stay byte-identical.",
         "--decision", "Keep me", "--next", "Stay untouched"],
        ["agent", "register", "--agent", "interop", "--topic", "Same agent name as the storm",
         "--summary", "Its id is the base id storm writers of this minute collide with.",
         "--decision", "Collide with me"],
        ["agent", "start", "--agent", "interop"],
    ):
        result = memcore(binary, root, *args)
        if not checks.check(result.returncode == 0, f"pre-registration `memcore {' '.join(args[:2])}` succeeds",
                            result.stderr.strip()):
            print(f"interop: {checks.passed} passed, {checks.failed} failed (root kept: {tmp})")
            return 1
        pre.append(json.loads(result.stdout)["session_id"])
    index = root / "index.md"
    text = index.read_text(encoding="utf-8")
    assert text.startswith("# Memory Index\n\n"), text[:100]
    index.write_text("# Memory Index\n\n" + INTRO + text[len("# Memory Index\n\n"):] + OUTRO, encoding="utf-8")
    text = index.read_text(encoding="utf-8")
    pre_rows = {row_id(r): r for r in table_rows(text)}
    assert set(pre_rows) == set(pre), (pre_rows, pre)
    pre_snapshots = {p.name: p.read_bytes() for p in (root / "sessions").iterdir()}
    pre_ids = set(pre)

    # 2. Workers: load, say ready, wait at the barrier.
    run = Run()
    procs: dict[str, subprocess.Popen[str]] = {}
    commands = {f"py{i}": [opts.python, str(HERE / "worker.py"), str(root), f"py{i}", str(CHAINS), str(SESSIONS)]
                for i in range(1, PY_WORKERS + 1)}
    commands.update({f"node{i}": [opts.node, str(HERE / "worker.cjs"), opts.node_package, str(root), f"node{i}",
                                  str(CHAINS), str(SESSIONS)] for i in range(1, NODE_WORKERS + 1)})
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

    def kill_all() -> None:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
        for proc in procs.values():
            proc.wait(timeout=10)

    ready_start = time.monotonic()
    ready_deadline = ready_start + READY_TIMEOUT
    while not run.ready_event.wait(0.1):
        died = [n for n, proc in procs.items() if proc.poll() is not None and n not in run.ready]
        if died or time.monotonic() > ready_deadline:
            time.sleep(0.2)  # let the pumps collect the dead workers' stderr
            break
    ready = run.ready_event.is_set()
    dead = {n for n, proc in procs.items() if proc.poll() is not None and n not in run.ready}
    if not checks.check(ready, f"all {len(commands)} Python and Node workers loaded their package and are ready",
                        [f"exited before ready: {sorted(dead)}",
                         f"not ready (yet, after {time.monotonic() - ready_start:.1f} s): "
                         f"{sorted(set(commands) - run.ready - dead)}"]
                        + [f"{n} stderr: {line}" for n in sorted(dead) for line in error_lines(run.stderr[n])]):
        stop_lanes.set()
        go.set()
        kill_all()
        print(f"interop: {checks.passed} passed, {checks.failed} failed (root kept: {tmp})")
        return 1

    # 3. The storm.
    storm_start = time.monotonic()
    go.set()
    for proc in procs.values():
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        proc.stdin.close()
    read_thread = threading.Thread(target=reader, args=(run, binary, root, pre_ids, stop_reader), daemon=True)
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
    for t in lanes:  # a lane stops after its current call, which is bounded by CALL_TIMEOUT
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
    registers = [r for r in acks if r["op"] == "register"]
    updates = [r for r in acks if r["op"] == "update"]
    by_surface = collections.Counter(re.sub(r"\d+$", "", r["worker"]) for r in acks)
    print(f"# storm: {storm_seconds:.1f} s, {len(registers)} registrations and {len(updates)} updates acknowledged "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(by_surface.items()))}), {run.reads} concurrent reads")

    # 4. Checks: the writers.
    checks.check(not stragglers, f"every writer finished within {STORM_TIMEOUT:.0f} s of go",
                 [f"killed or still running: {stragglers}"])
    for name, proc in procs.items():
        checks.check(proc.returncode == 0 and name in done, f"worker {name} exited 0 after its plan",
                     [f"exit code {proc.returncode}, done line {'seen' if name in done else 'missing'}"]
                     + [f"stderr: {line}" for line in run.stderr[name][-10:]])
    for i in range(1, RS_LANES + 1):
        checks.check(f"rs{i}" in done, f"memcore lane rs{i} ran its plan to the end")
    checks.check(not errors, "no write failed (every call returned success)",
                 [f"{e.get('worker')}: {e.get('what')}: {e.get('kind')}: {e.get('message')}" for e in errors])
    checks.check(not run.bad_lines, "every worker line is a JSON record", run.bad_lines)
    per_worker = collections.Counter((r["worker"], r["op"]) for r in acks)
    short = []
    for name in [*commands, *(f"rs{i}" for i in range(1, RS_LANES + 1))]:
        chains = 1 if name.startswith("rs") else CHAINS
        for op, want in (("register", chains * SESSIONS), ("update", chains * 2 * SESSIONS)):
            if per_worker[(name, op)] != want:
                short.append(f"{name}: {per_worker[(name, op)]} {op} acknowledgements, planned {want}")
    checks.check(not short, "every planned write was acknowledged (nothing vacuous)", short)
    check_surfaces_overlap(checks, run, storm_start, "the index")

    # The final state, through the raw files.
    final_text = index.read_text(encoding="utf-8")
    rows = table_rows(final_text)
    row_ids = collections.Counter(row_id(r) for r in rows)
    acked_ids = collections.Counter(r["id"] for r in registers)
    checks.check(all(n == 1 for n in acked_ids.values()),
                 f"no id was acknowledged to two registrations ({len(acked_ids)} distinct ids)",
                 [f"{i} acknowledged {n} times: {[r['worker'] for r in registers if r['id'] == i]}"
                  for i, n in acked_ids.items() if n > 1])
    checks.check(all(row_ids[i] == 1 for i in acked_ids),
                 f"every acknowledged id is in index.md exactly once ({len(acked_ids)} ids)",
                 [f"{i}: {row_ids[i]} rows" for i in acked_ids if row_ids[i] != 1])
    checks.check(len(rows) == len(registers) + len(pre),
                 f"index.md has {len(rows)} rows = {len(registers)} acknowledged registrations + {len(pre)} pre-registered",
                 [f"unexpected rows: {sorted(set(row_ids) - set(acked_ids) - pre_ids)[:10]}",
                  f"duplicated rows: {[i for i, n in row_ids.items() if n > 1][:10]}"])
    changed = [f"{i}: {pre_rows[i]!r} -> {[r for r in rows if row_id(r) == i]!r}"
               for i in pre if [r for r in rows if row_id(r) == i] != [pre_rows[i]]]
    checks.check(not changed, f"the {len(pre)} pre-registered rows are byte-identical", changed)
    snap_changed = [n for n, b in pre_snapshots.items() if not (root / "sessions" / n).is_file()
                    or (root / "sessions" / n).read_bytes() != b]
    checks.check(not snap_changed, f"the {len(pre_snapshots)} pre-registered snapshots are byte-identical", snap_changed)
    checks.check(final_text.startswith("# Memory Index\n\n" + INTRO) and final_text.endswith(OUTRO)
                 and final_text.count(INTRO) == 1 and final_text.count(OUTRO) == 1,
                 "the hand-written prose before and after the table is intact, once",
                 [repr(final_text[:120]), repr(final_text[-120:])])

    # Decisions: exactly the acknowledged ones, once each, in their own snapshot, in order.
    want_decisions: dict[str, list[str]] = collections.defaultdict(list)
    for r in updates:
        want_decisions[r["id"]].extend(r["decisions"])
    snapshot_texts = {p.name[:-3]: p.read_text(encoding="utf-8") for p in (root / "sessions").glob("*.md")}
    all_snapshots = "\n".join(snapshot_texts.values())
    wrong_count = []
    for sid, ds in want_decisions.items():
        own = snapshot_texts.get(sid, "")
        for d in ds:
            if own.count(f"- {d}\n") != 1 or all_snapshots.count(d) != 1:
                wrong_count.append(f"{sid}: {d!r} {own.count(f'- {d}' + chr(10))} times in its snapshot, "
                                   f"{all_snapshots.count(d)} times in all snapshots")
    n_decisions = sum(len(ds) for ds in want_decisions.values())
    checks.check(not wrong_count,
                 f"every acknowledged decision is in its session's snapshot file exactly once ({n_decisions})",
                 wrong_count)
    expected_files = set(want_decisions) | {n[:-3] for n in pre_snapshots}
    checks.check(set(snapshot_texts) == expected_files, "sessions/ holds exactly the updated and pre-registered snapshots",
                 [f"extra: {sorted(set(snapshot_texts) - expected_files)[:10]}",
                  f"missing: {sorted(expected_files - set(snapshot_texts))[:10]}"])
    temps = [str(p.relative_to(root)) for p in root.rglob(".*") if TEMP_NAME.match(p.name)]
    checks.check(not temps, "no temp file is left behind", temps)

    # The final state, through the three surfaces.
    expected_ids = set(acked_ids) | pre_ids
    human = subprocess.run([binary, "--root", str(root), "agent", "list"], capture_output=True, text=True,
                           encoding="utf-8", timeout=CALL_TIMEOUT, check=False)
    checks.check(human.returncode == 0, "memcore agent list exits 0 on the final index", human.stderr.strip())
    listed = memcore(binary, root, "agent", "list")
    try:
        cli_list = json.loads(listed.stdout) if listed.returncode == 0 else []
    except ValueError:
        cli_list = []
    cli_rows = {r["session_id"]: r for r in cli_list}
    checks.check(listed.returncode == 0 and set(cli_rows) == expected_ids and len(cli_list) == len(expected_ids),
                 "memcore --json agent list returns exactly the acknowledged and pre-registered ids",
                 [listed.stderr.strip(), f"extra: {sorted(set(cli_rows) - expected_ids)[:10]}",
                  f"missing: {sorted(expected_ids - set(cli_rows))[:10]}"])
    agent_of = {r["id"]: r["agent"] for r in registers}
    wrong_rows = [f"{i}: agent {cli_rows[i]['agent_name']!r} status {cli_rows[i]['status']!r}, "
                  f"want {agent_of[i]!r} {'active' if i in want_decisions else 'idle'}"
                  for i in agent_of if i in cli_rows
                  and (cli_rows[i]["agent_name"] != agent_of[i]
                       or cli_rows[i]["status"] != ("active" if i in want_decisions else "idle"))]
    checks.check(not wrong_rows, "every acknowledged row has its agent name and is active after its updates",
                 wrong_rows)

    memory = memory_core.AgentMemory(root)
    py_ids = [r.session_id for r in memory.sessions()]
    checks.check(sorted(py_ids) == sorted(expected_ids), "memory_core (Python) reads exactly the same rows",
                 [f"{len(py_ids)} rows, {len(set(py_ids))} distinct, expected {len(expected_ids)}"])
    wrong_snapshots = []
    for sid, ds in want_decisions.items():
        snap = memory.snapshot(sid)
        got = [(d.text, d.mark) for d in snap.decisions] if snap else None
        if got != [(d, None) for d in ds]:
            wrong_snapshots.append(f"{sid}: {got} != {ds}")
    checks.check(not wrong_snapshots,
                 "memory_core (Python) reads each snapshot's decisions as exactly the acknowledged ones, in order",
                 wrong_snapshots)
    node_script = ("const { AgentMemory } = require(process.argv[1]);"
                   "process.stdout.write(JSON.stringify(new AgentMemory(process.argv[2]).sessions().map(r => r.sessionId)))")
    node = subprocess.run([opts.node, "-e", node_script, opts.node_package, str(root)], capture_output=True,
                          text=True, encoding="utf-8", timeout=CALL_TIMEOUT, check=False)
    node_ids = json.loads(node.stdout) if node.returncode == 0 else []
    checks.check(node.returncode == 0 and sorted(node_ids) == sorted(expected_ids),
                 "memory-core (Node) reads exactly the same rows",
                 [node.stderr.strip()[-500:], f"{len(node_ids)} rows, expected {len(expected_ids)}"])

    checks.check(run.reads > 0 and not run.read_problems,
                 f"{run.reads} reads during the storm parsed and saw every write acknowledged before them",
                 run.read_problems)

    total = time.monotonic() - started
    print(f"# total {total:.1f} s")
    if checks.failed or opts.keep:
        print(f"# memory root kept: {root}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"interop: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for leftover in SPAWNED:
            if leftover.poll() is None:
                leftover.kill()
