"""Cross-language stress test of structured-memory: memcore, Python and Node processes
remember facts in one directory at once — into two topics every writer shares and one of
its own, with a budget small enough that the budget trigger splits topics while the others
write — then checks that every acknowledged fact is live exactly once, that MEMORY.md has
one line per topic file and no line without a file, and that check() finds no orphan,
dangling or duplicate line. Ends with `interop (structured): N passed, M failed`.

Usage: stress_structured.py --memcore BIN --node-package DIR --python PY [--keep]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

WRITERS_PER_SURFACE = 3
FACTS = 8
TOPIC_LINES = 14

PY_WORKER = r"""
import json, sys, memory_core
root, worker, facts, lines = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
memory = memory_core.StructuredMemory(root, topic_lines=lines, lock_timeout=60)
print(json.dumps({"op": "ready"}), flush=True)
if not sys.stdin.readline():
    sys.exit(3)
for k in range(facts):
    topic = ["memory-shared.md", "memory-common.md", f"memory-{worker}.md"][k % 3]
    text = f"fact {worker} {k} holds"
    memory.remember(topic, text, subject=f"s-{worker}-{k}", hook="facts every writer shares")
    print(json.dumps({"op": "remembered", "text": text}), flush=True)
print(json.dumps({"op": "done"}), flush=True)
"""

NODE_WORKER = r"""
const [pkg, root, worker, facts, lines] = process.argv.slice(1)
const { StructuredMemory } = require(pkg)
const memory = new StructuredMemory(root, { topicLines: Number(lines), lockTimeoutMs: 60000 })
console.log(JSON.stringify({ op: 'ready' }))
process.stdin.once('data', () => {
  for (let k = 0; k < Number(facts); k++) {
    const topic = ['memory-shared.md', 'memory-common.md', `memory-${worker}.md`][k % 3]
    const text = `fact ${worker} ${k} holds`
    memory.remember({ topic, text, subject: `s-${worker}-${k}`, hook: 'facts every writer shares' })
    console.log(JSON.stringify({ op: 'remembered', text }))
  }
  console.log(JSON.stringify({ op: 'done' }))
  process.exit(0)
})
"""

SH_WORKER = r"""
memcore="$1"; root="$2"; worker="$3"; facts="$4"; lines="$5"
echo '{"op": "ready"}'
read -r go || exit 3
k=0
while [ "$k" -lt "$facts" ]; do
  case $((k % 3)) in 0) topic=memory-shared.md ;; 1) topic=memory-common.md ;; *) topic="memory-$worker.md" ;; esac
  text="fact $worker $k holds"
  MEMCORE_LOCK_TIMEOUT_MS=60000 "$memcore" --root "$root" topics --topic-lines "$lines" remember \
    --topic "$topic" --text "$text" --subject "s-$worker-$k" --hook "facts every writer shares" >/dev/null || exit 1
  echo "{\"op\": \"remembered\", \"text\": \"$text\"}"
  k=$((k + 1))
done
echo '{"op": "done"}'
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memcore", required=True)
    parser.add_argument("--node-package", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="memcore-interop-structured-"))
    root = work / "memory"
    root.mkdir()
    procs: list[tuple[str, subprocess.Popen[str]]] = []
    for i in range(WRITERS_PER_SURFACE):
        for surface, cmd in [
            ("py", [args.python, "-c", PY_WORKER, str(root), f"py{i}", str(FACTS), str(TOPIC_LINES)]),
            ("node", ["node", "-e", NODE_WORKER, args.node_package, str(root), f"node{i}", str(FACTS), str(TOPIC_LINES)]),
            ("sh", ["sh", "-c", SH_WORKER, "sh", args.memcore, str(root), f"sh{i}", str(FACTS), str(TOPIC_LINES)]),
        ]:
            procs.append((f"{surface}{i}", subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for name, p in procs:
        line = p.stdout.readline() if p.stdout else ""
        if json.loads(line or "{}").get("op") != "ready":
            print(f"interop (structured): {name} did not start: {line!r} {p.stderr.read() if p.stderr else ''}")
            return 1
    started = time.monotonic()
    for _, p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    acknowledged: list[str] = []
    failures: list[str] = []
    for name, p in procs:
        out, err = p.communicate(timeout=600)
        records = [json.loads(l) for l in out.splitlines() if l.strip()]
        acknowledged += [r["text"] for r in records if r.get("op") == "remembered"]
        if p.returncode != 0 or not any(r.get("op") == "done" for r in records):
            failures.append(f"{name} failed (exit {p.returncode}): {err.strip()[-400:]}")
    elapsed = time.monotonic() - started

    passed = 0

    def check(ok: bool, what: str) -> None:
        nonlocal passed
        if ok:
            passed += 1
        else:
            failures.append(what)

    expected = WRITERS_PER_SURFACE * 3 * FACTS
    check(len(acknowledged) == expected, f"{len(acknowledged)} facts acknowledged, expected {expected}")
    live = "".join(p.read_text(encoding="utf-8") for p in root.glob("*.md") if p.name != "memory-archive.md")
    for text in acknowledged:
        check(live.count(text) == 1, f"{text!r} is live {live.count(text)} times")
    sys.path.insert(0, str(pathlib.Path(args.python).parent))
    probe = subprocess.run(
        [args.python, "-c",
         "import json, sys, memory_core; m = memory_core.StructuredMemory(sys.argv[1], topic_lines=int(sys.argv[2]));"
         "print(json.dumps({'index': m.index(), 'check': m.check()}))",
         str(root), str(TOPIC_LINES)],
        capture_output=True, text=True)
    check(probe.returncode == 0, f"reading the directory back failed: {probe.stderr[-400:]}")
    if probe.returncode == 0:
        state = json.loads(probe.stdout)
        files = [l["file"] for l in state["index"]["lines"]]
        check(len(files) == len(set(files)), f"an index line twice: {files}")
        for f in files:
            check((root / f).is_file(), f"index line without a file: {f}")
        on_disk = {p.name for p in root.glob("*.md")} - {"MEMORY.md", "memory-archive.md"}
        check(on_disk == set(files), f"topic files and index lines differ: {sorted(on_disk ^ set(files))}")
        bad = [v for v in state["check"] if v["kind"] in ("orphan_topic", "dangling_index_line", "duplicate_index_line", "unreadable_topic")]
        check(not bad, f"check found {bad}")
    print(f"interop (structured): {len(procs)} writers, {len(acknowledged)} facts in {elapsed:.1f} s")
    for f in failures:
        print(f"  FAILED: {f}")
    print(f"interop (structured): {passed} passed, {len(failures)} failed")
    if not args.keep:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    else:
        print(f"kept {work}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
