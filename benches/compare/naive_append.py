#!/usr/bin/env python3
"""What a user would write instead of `memcore agent start`: a plain SessionStart hook.

Takes a lock file with fcntl.flock, re-reads memory/index.md, picks an id that no row
uses yet, appends an idle row to the end of the file and rewrites it, then prints the
id the way memcore does. Standard library only.

It does not parse or validate the table, does not check that the table is at the end
of the file, and (without --fsync) rewrites the file in place: a crash or a full disk
mid-write leaves a truncated index. With --fsync it writes a temporary file, fsyncs it,
renames it over the index and fsyncs the directory, the durability memcore provides.

Usage: naive_append.py [--fsync] ROOT
"""

import datetime
import fcntl
import os
import sys

AGENT = "cursor-main-agent"


def main() -> int:
    args = sys.argv[1:]
    durable = "--fsync" in args
    roots = [a for a in args if a != "--fsync"]
    if len(roots) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = roots[0]
    index = os.path.join(root, "index.md")
    with open(os.path.join(root, ".naive-append.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(index, encoding="utf-8") as f:
            text = f.read()
        now = datetime.datetime.now().astimezone()
        base = now.strftime("%Y-%m-%d-%H%M-") + AGENT
        taken = {
            line.split("|", 2)[1].strip()
            for line in text.splitlines()
            if line.startswith("|")
        }
        session_id, n = base, 2
        while session_id in taken:
            session_id, n = f"{base}-{n}", n + 1
        stamp = now.isoformat(timespec="seconds")
        if text and not text.endswith("\n"):
            text += "\n"
        text += (
            f"| {session_id} | {AGENT} | 未設定 | sessionStart 自動註冊，尚未整理主題。 "
            f"| sessionStart, cursor-agent | idle | - | {stamp} | {stamp} |\n"
        )
        if durable:
            temp = f"{index}.tmp-{os.getpid()}"
            with open(temp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, index)
            directory = os.open(root, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        else:
            with open(index, "w", encoding="utf-8") as f:
                f.write(text)
    print(f"Your Memory Session ID is: {session_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
