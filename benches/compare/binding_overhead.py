#!/usr/bin/env python3
"""The Python side of the binding-overhead comparison (benches/binding_overhead.sh).

Usage: binding_overhead.py FIXTURE_DIR [--raw OUT]

Runs the calls of FIXTURE_DIR/plan.tsv (written by `binding-overhead fixture`) through
the `memory_core` package, as target/release/binding-overhead does in Rust: one
`AgentMemory(root, fixed_time=now)` per root, opened before the timing; per operation
the plan's warm-up calls, then its timed calls, each between two reads of
`time.perf_counter_ns()`. Before every `register_session_start` call (untimed)
`index.md` is rewritten from the pristine copy and flushed with its directory, so every
call appends to the same rows. Prints the median and p90 per call in microseconds;
with --raw, appends every timed call in nanoseconds to OUT/python.<op>.<rows>.ns.
Operations the package does not have (the `..._async` ones are Node's) are skipped.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import memory_core


def touch(rows: list[memory_core.SessionRow]) -> int:
    """Reads every field of every row: the binding converts a field when it is read."""
    n = 0
    for r in rows:
        n += (
            len(r.session_id)
            + len(r.agent_name)
            + len(r.topic)
            + len(r.summary)
            + len(r.keywords)
            + len(r.status)
            + len(r.referenced_by)
            + len(r.started_at)
            + len(r.updated_at)
        )
    return n


def restore(root: str, pristine: bytes) -> None:
    """Rewrites root/index.md from the pristine bytes and flushes it and root."""
    fd = os.open(os.path.join(root, "index.md"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, pristine)
        os.fsync(fd)
    finally:
        os.close(fd)
    fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def percentile(sorted_ns: list[int], p: int) -> float:
    """Nearest-rank percentile, in microseconds."""
    at = min(max(-(-len(sorted_ns) * p // 100), 1), len(sorted_ns)) - 1
    return sorted_ns[at] / 1000


# One timing loop per operation, each written as a caller would write the call (no
# lambda or dispatch between the two clock reads). Each returns per-call nanoseconds.
Memory = Optional[memory_core.AgentMemory]


def time_timer(m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]) -> list[int]:
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        end = clock()
        times.append(end - start)
    return times


def time_root(m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]) -> list[int]:
    assert m is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        m.root
        end = clock()
        times.append(end - start)
    return times


def time_session_path(
    m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]
) -> list[int]:
    assert m is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        m.session_path(arg)
        end = clock()
        times.append(end - start)
    return times


def time_session(m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]) -> list[int]:
    assert m is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        m.session(arg)
        end = clock()
        times.append(end - start)
    return times


def time_sessions(m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]) -> list[int]:
    assert m is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        m.sessions()
        end = clock()
        times.append(end - start)
    return times


def time_sessions_fields(
    m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]
) -> list[int]:
    assert m is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        touch(m.sessions())
        end = clock()
        times.append(end - start)
    return times


def time_register_session_start(
    m: Memory, arg: str, n: int, root: str, pristine: Optional[bytes]
) -> list[int]:
    assert m is not None and pristine is not None
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        restore(root, pristine)
        start = clock()
        m.register_session_start(arg)
        end = clock()
        times.append(end - start)
    return times


OPS: dict[str, Callable[[Memory, str, int, str, Optional[bytes]], list[int]]] = {
    "timer": time_timer,
    "root": time_root,
    "session_path": time_session_path,
    "session": time_session,
    "sessions": time_sessions,
    "sessions_fields": time_sessions_fields,
    "register_session_start": time_register_session_start,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        usage="binding_overhead.py FIXTURE_DIR [--raw OUT]",
        description="Times the binding-overhead plan through the Python binding.",
    )
    parser.add_argument("fixture_dir", type=Path)
    parser.add_argument("--raw", type=Path, help="append per-call nanoseconds here")
    args = parser.parse_args()

    now = None
    steps = []
    for line in (args.fixture_dir / "plan.tsv").read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if line.startswith("#"):
            continue
        if fields[0] == "now":
            now = fields[1]
        elif fields[0] == "op" and len(fields) == 8:
            steps.append(fields[1:])
        else:
            sys.exit(f"plan: {line}")

    handles: dict[str, memory_core.AgentMemory] = {}
    print("# python: op\trows\tcalls\tmedian_us\tp90_us")
    for op, rows, root, arg, calls_text, warmup_text, pristine_path in steps:
        if op not in OPS:
            continue
        m: Memory = None
        if op != "timer":
            m = handles.get(root)
            if m is None:
                m = handles[root] = memory_core.AgentMemory(root, fixed_time=now)
        pristine = Path(pristine_path).read_bytes() if pristine_path != "-" else None
        calls, warmup = int(calls_text), int(warmup_text)
        OPS[op](m, arg, warmup, root, pristine)
        times = OPS[op](m, arg, calls, root, pristine)
        if pristine is not None:
            restore(root, pristine)
        if args.raw is not None:
            with open(args.raw / f"python.{op}.{rows}.ns", "a", encoding="ascii") as out:
                out.write("".join(f"{t}\n" for t in times))
        times.sort()
        print(f"{op}\t{rows}\t{len(times)}\t{percentile(times, 50):.2f}\t{percentile(times, 90):.2f}")


if __name__ == "__main__":
    main()
