"""Concurrent writers in several threads and processes lose nothing, and a call waiting
for the memory lock does not hold the GIL."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import memory_core
from memory_core import AgentMemory

from _support import lock_held_by_other_process, release

THREADS = 4
OPS_PER_THREAD = 10
PROCESSES = 2
LOCK_TIMEOUT = 120.0

# Runs the same writer loop in another interpreter and prints the ids it got as JSON.
_WRITER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_concurrency import write_many
root, tag = sys.argv[2], sys.argv[3]
print(json.dumps(write_many(root, tag)))
"""


def write_one_thread(memory: AgentMemory, agent: str) -> list[tuple[str, str]]:
    """Registers sessions both ways and updates them; returns (id, expected topic)."""
    out = []
    for n in range(OPS_PER_THREAD):
        if n % 2 == 0:
            session_id = memory.register_session_start(agent)
            topic = f"{agent} topic {n}"
            row = memory.update(session_id, topic=topic, decisions=[f"decision {n}"])
            assert row.session_id == session_id
        else:
            topic = f"{agent} manual {n}"
            session_id = memory.register_manual(agent, topic, "Concurrent write.")
        out.append((session_id, topic))
    return out


def write_many(root: str, tag: str) -> list[tuple[str, str]]:
    """THREADS threads of one process writing into `root` at once."""
    memory = AgentMemory(root, lock_timeout=LOCK_TIMEOUT)
    with ThreadPoolExecutor(THREADS) as pool:
        # Half the threads share one agent name, so ids collide within a minute and
        # must get distinct suffixes under the lock.
        futures = [
            pool.submit(write_one_thread, memory, "shared" if t % 2 else f"{tag}-t{t}")
            for t in range(THREADS)
        ]
        return [item for f in futures for item in f.result()]


def test_processes_and_threads_lose_nothing(root: pathlib.Path) -> None:
    tests_dir = str(pathlib.Path(__file__).parent)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, tests_dir, str(root), f"p{p}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for p in range(PROCESSES)
    ]
    written = write_many(str(root), "main")
    for child in children:
        out, _ = child.communicate(timeout=600)
        assert child.returncode == 0
        written += [(i, t) for i, t in json.loads(out)]

    expected = (PROCESSES + 1) * THREADS * OPS_PER_THREAD
    ids = [session_id for session_id, _ in written]
    assert len(ids) == expected
    assert len(set(ids)) == expected, "an id was returned twice"

    memory = AgentMemory(root)
    rows = memory.sessions()
    counts = Counter(row.session_id for row in rows)
    assert all(n == 1 for n in counts.values()), "an id appears twice in the index"
    assert set(counts) == set(ids), "the index lost or invented a row"
    topics = {row.session_id: row.topic for row in rows}
    for session_id, topic in written:
        assert topics[session_id] == topic, "an update was lost"
        assert memory.session(session_id).status == "active"
        assert memory.snapshot(session_id) is not None


def test_waiting_for_the_lock_releases_the_gil(root: pathlib.Path) -> None:
    memory = AgentMemory(root, lock_timeout=30)
    results: list[str] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            results.append(memory.register_session_start("a"))
        except BaseException as e:  # reported by the assertions below
            errors.append(e)

    with lock_held_by_other_process(root) as holder:
        thread = threading.Thread(target=worker)
        started = time.monotonic()
        thread.start()
        time.sleep(0.3)  # the worker is now inside the core, waiting for the lock
        # This thread runs (and lets the holder go) only if the worker released the
        # GIL while it waits; otherwise the worker would time out after 30 s.
        assert thread.is_alive()
        release(holder)
        thread.join(timeout=60)
        elapsed = time.monotonic() - started
    assert not errors, errors
    assert len(results) == 1 and memory.session(results[0]).status == "idle"
    assert elapsed < 20


def test_threads_share_one_handle(memory: AgentMemory) -> None:
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda n: memory.register_session_start(f"agent-{n % 3}"), range(40)))
    assert len(set(ids)) == 40
    assert sorted(r.session_id for r in memory.sessions()) == sorted(ids)
    assert isinstance(memory, memory_core.AgentMemory)
