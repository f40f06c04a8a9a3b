"""heal with python-frontmatter: what `ContextMemory::heal` does, the way a user would
write it in Python — list a namespace directory, parse every entity file's frontmatter,
build the `_index.md` table and write it atomically (temp file, fsync, rename, fsync of
the directory).

Usage: heal_frontmatter.py NAMESPACE_DIR NAMESPACE RUNS
Prints the median milliseconds of one heal (interpreter start-up excluded).
"""

import os
import statistics
import sys
import time

import frontmatter

HEADER = "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n"


def summary_of(body):
    for line in body.splitlines():
        line = line.strip()
        if line:
            return line[:100]
    return ""


def cell(text):
    return str(text).replace("|", "\\|")


def heal(ns_dir, namespace):
    rows = []
    for name in sorted(os.listdir(ns_dir)):
        if not name.endswith(".md") or name.startswith(".") or name == "_index.md":
            continue
        try:
            post = frontmatter.load(os.path.join(ns_dir, name))
        except Exception as error:  # reported and kept out, as heal does
            print(f"{name}: {error}", file=sys.stderr)
            continue
        meta = post.metadata
        tags = meta.get("tags") or []
        rows.append(
            (
                str(meta["entity_name"]),
                "| {} | {} | {} | {} | {} | {} |\n".format(
                    cell(meta["entity_name"]),
                    cell(meta["category"]),
                    cell(summary_of(post.content)),
                    cell(", ".join(str(t) for t in tags)),
                    cell(meta["status"]),
                    name,
                ),
            )
        )
    rows.sort()
    text = f"# Index: {namespace}\n\n> Last updated: 2026-04-03T10:00:00Z\n\n{HEADER}"
    text += "".join(row for _, row in rows)
    target = os.path.join(ns_dir, "_index.md")
    temp = target + ".tmp"
    with open(temp, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, target)
    fd = os.open(ns_dir, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return len(rows)


def main():
    ns_dir, namespace, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    times = []
    for _ in range(max(runs, 1)):
        start = time.perf_counter()
        heal(ns_dir, namespace)
        times.append(time.perf_counter() - start)
    print(f"{statistics.median(times) * 1e3:.3f}")


if __name__ == "__main__":
    main()
