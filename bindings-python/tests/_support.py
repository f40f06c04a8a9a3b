"""Helpers shared by the tests (fixtures are in conftest.py)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

INDEX_HEADER = (
    "# Memory Index\n\n"
    "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By "
    "| Started At | Updated At |\n"
    "|---|---|---|---|---|---|---|---|---|\n"
)

# Holds the memory lock (an OS `flock` on <root>/.memcore.lock, what the core takes) in
# another process until a line arrives on stdin.
_LOCK_HOLDER = """
import fcntl, sys
with open(sys.argv[1], "a+") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.readline()
"""


@contextmanager
def lock_held_by_other_process(root: pathlib.Path) -> Iterator[subprocess.Popen[str]]:
    """Holds the memory lock of `root` in a child process for the duration of the block."""
    root.mkdir(parents=True, exist_ok=True)
    with subprocess.Popen(
        [sys.executable, "-c", _LOCK_HOLDER, str(root / ".memcore.lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        try:
            yield holder
        finally:
            release(holder)
    assert holder.returncode == 0


def release(holder: subprocess.Popen[str]) -> None:
    """Lets a lock holder started by `lock_held_by_other_process` exit."""
    if holder.stdin is not None and not holder.stdin.closed:
        holder.stdin.write("\n")
        holder.stdin.close()
    holder.wait(timeout=30)


def write_index(root: pathlib.Path, *rows: str) -> pathlib.Path:
    """Writes `<root>/index.md` by hand with the protocol's header and `rows`."""
    root.mkdir(parents=True, exist_ok=True)
    index = root / "index.md"
    index.write_text(INDEX_HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return index
