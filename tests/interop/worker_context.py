"""Python worker of the context-memory stress phase (driven by tests/interop/stress_context.py).

Usage: python worker_context.py ROOT WORKER CHAINS ENTRIES

Imports memory_core, prints {"op": "ready"} and blocks until the driver writes a line on
stdin (the start barrier). Then CHAINS threads each run the plan of run_chain() below
against ROOT with one shared memory_core.ContextMemory, and every acknowledged write is
printed as one JSON line, flushed at once:

  {"op": "begin", "worker": W, "chain": C}   (a chain is about to make its first call)
  {"op": "write", "worker": W, "chain": C, "k": K, "name": N, "category": CAT, "summary": S, "status": ST}
  {"op": "promote", "worker": W, "chain": C, "name": N}
  {"op": "supersede", "worker": W, "chain": C, "k": K, "old": N, "name": N2, "category": CAT, "summary": S}
  {"op": "error", "worker": W, "what": ..., "kind": ..., "message": ...}

A line is printed only after the call returned. Ends with {"op": "done"}. Stdin closed
before the barrier means the driver gave up: exit 3 without writing anything.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from typing import Any

import memory_core

NAMESPACE = "project.interop"
CATEGORIES = ["decision", "constraint", "risk", "todo"]
_print_lock = threading.Lock()


def emit(record: dict[str, Any]) -> None:
    line = json.dumps(record, ensure_ascii=False)
    with _print_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def body(chain: str, k: int) -> str:
    """A sentence no other write shares: random hex keeps the duplicate check quiet."""
    return f"{chain} k{k} {secrets.token_hex(12)} ✓."


def run_chain(memory: Any, worker: str, chain: str, entries: int) -> None:
    """The plan every surface runs: write entry k (category k mod 4; k = 1 experimental;
    k mod 4 = 3 with the slug `<chain>-s<k>`), promote entry 1 after entry 2, and after
    entry 5 supersede entry 0 with a new decision."""
    names: list[str | None] = []
    emit({"op": "begin", "worker": worker, "chain": chain})

    def fail(what: str, e: Exception) -> None:
        emit({"op": "error", "worker": worker, "what": what,
              "kind": getattr(e, "kind", type(e).__name__), "message": str(e)})

    for k in range(entries):
        category = CATEGORIES[k % len(CATEGORIES)]
        status = "experimental" if k == 1 else "accepted"
        slug = f"{chain}-s{k}" if k % 4 == 3 else None
        text = body(chain, k)
        try:
            out = memory.write(NAMESPACE, category, ["interop", chain], text, status=status, slug=slug)
        except Exception as e:  # noqa: BLE001 - every failure is reported, none is acknowledged
            fail(f"write {chain} k{k}", e)
            names.append(None)
            continue
        entry = out["entry"]
        names.append(entry["entity_name"])
        emit({"op": "write", "worker": worker, "chain": chain, "k": k, "name": entry["entity_name"],
              "category": category, "summary": entry["summary"], "status": entry["status"]})
        if k == 2 and names[1] is not None:
            try:
                promoted = memory.promote(names[1])
            except Exception as e:  # noqa: BLE001
                fail(f"promote {names[1]}", e)
            else:
                emit({"op": "promote", "worker": worker, "chain": chain, "name": promoted["entity_name"]})
        if k == 5 and names[0] is not None:
            text = body(chain, 100 + k)
            try:
                done = memory.supersede(names[0], NAMESPACE, "decision", ["interop", chain], text)
            except Exception as e:  # noqa: BLE001
                fail(f"supersede {names[0]}", e)
            else:
                emit({"op": "supersede", "worker": worker, "chain": chain, "k": 100 + k, "old": done["old"]["entity_name"],
                      "name": done["new"]["entity_name"], "category": "decision", "summary": done["new"]["summary"]})


def main() -> int:
    root, worker, chains, entries = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    memory = memory_core.ContextMemory(root)
    emit({"op": "ready", "worker": worker})
    if not sys.stdin.readline():
        return 3
    threads = [
        threading.Thread(target=run_chain, args=(memory, worker, f"{worker}{chr(ord('a') + c)}", entries))
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
