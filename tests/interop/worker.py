"""Python worker of the cross-language stress test (driven by tests/interop/stress.py).

Usage: python worker.py ROOT WORKER CHAINS SESSIONS

Imports memory_core, prints {"op": "ready"} and blocks until the driver writes a line
on stdin (the start barrier). Then CHAINS threads each run the plan of plan() below
against ROOT, and every acknowledged write is printed as one JSON line, flushed at once:

  {"op": "begin", "worker": W, "chain": C}   (a chain is about to make its first call)
  {"op": "register", "worker": W, "agent": A, "id": ID}
  {"op": "update", "worker": W, "id": ID, "decisions": [D, ...]}
  {"op": "error", "worker": W, "what": ..., "kind": ..., "message": ...}

A line is printed only after the call returned, so each line is a write memory-core
acknowledged. Ends with {"op": "done"}. Stdin closed before the barrier means the
driver gave up: exit 3 without writing anything.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import memory_core

_print_lock = threading.Lock()


def emit(record: dict[str, Any]) -> None:
    line = json.dumps(record, ensure_ascii=False)
    with _print_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def decision(chain: str, k: int, j: int) -> str:
    # Unique across the run; the non-ASCII mark makes sure text survives every layer.
    return f"{chain} s{k} d{j} ✓"


def run_chain(memory: memory_core.AgentMemory, worker: str, chain: str, sessions: int) -> None:
    """The plan every surface runs: register session k (agent `interop`, shared by all
    workers so that ids collide and get -2, -3 suffixes, or the chain's own name), add
    one decision to it, then two decisions in one update to session k-1."""
    ids: list[str | None] = []
    emit({"op": "begin", "worker": worker, "chain": chain})

    def update(k: int, decisions: list[str]) -> None:
        sid = ids[k]
        if sid is None:
            return
        try:
            row = memory.update(sid, decisions=decisions)
        except Exception as e:  # noqa: BLE001 - every failure is reported, none is acknowledged
            emit({"op": "error", "worker": worker, "what": f"update {sid}",
                  "kind": getattr(e, "kind", type(e).__name__), "message": str(e)})
            return
        if row.session_id != sid:
            emit({"op": "error", "worker": worker, "what": f"update {sid}",
                  "kind": "wrong_row", "message": f"returned row {row.session_id}"})
            return
        emit({"op": "update", "worker": worker, "id": sid, "decisions": decisions})

    for k in range(sessions):
        agent = "interop" if k % 2 == 0 else chain
        try:
            sid = memory.register_session_start(agent)
        except Exception as e:  # noqa: BLE001 - every failure is reported, none is acknowledged
            emit({"op": "error", "worker": worker, "what": f"register {agent}",
                  "kind": getattr(e, "kind", type(e).__name__), "message": str(e)})
            ids.append(None)
            continue
        ids.append(sid)
        emit({"op": "register", "worker": worker, "agent": agent, "id": sid})
        update(k, [decision(chain, k, 0)])
        if k > 0:
            update(k - 1, [decision(chain, k - 1, 1), decision(chain, k - 1, 2)])
    if sessions > 0:
        update(sessions - 1, [decision(chain, sessions - 1, 1), decision(chain, sessions - 1, 2)])


def main() -> int:
    root, worker, chains, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    memory = memory_core.AgentMemory(root)
    emit({"op": "ready", "worker": worker})
    if not sys.stdin.readline():
        return 3
    threads = [
        threading.Thread(target=run_chain, args=(memory, worker, f"{worker}{chr(ord('a') + c)}", sessions))
        for c in range(chains)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    emit({"op": "done", "worker": worker})
    return 0


if __name__ == "__main__":
    sys.exit(main())
