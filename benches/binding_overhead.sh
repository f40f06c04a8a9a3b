#!/usr/bin/env bash
# Per-call overhead of the Python and Node bindings against the same memory-core call in
# Rust, on the same fixture files, printed as a Markdown table with ratios to Rust.
#
# Usage: benches/binding_overhead.sh [--rounds R] [--calls N] [--no-build]
#                                    [--python PATH] [--node PATH] [--keep]
#
# 1. Builds target/release/binding-overhead and, unless --no-build, both bindings in
#    release mode as their test scripts do (maturin develop into .venv; napi build into
#    bindings-node/), so all three run the memory-core of this checkout.
# 2. `binding-overhead fixture` writes a 100-row and a 1,000-row memory root and
#    plan.tsv (the calls; N timed calls of the small reads per round, default 100) in a
#    temporary directory.
# 3. R rounds (default 30): in each, the Rust bin, benches/compare/binding_overhead.py and
#    benches/compare/binding_overhead.mjs each run the whole plan in their own process,
#    in an order rotated round by round, so load on the machine hits all three alike.
# 4. Per operation and language, the median and p90 of all timed calls of all rounds;
#    against Rust, the median over the rounds of one round's difference and ratio of the
#    medians, and the interquartile range of that ratio. The load on a shared machine
#    moves wall times by tens of percent within seconds; many short rounds and
#    per-round ratios keep those shifts out of the comparison.
#
# --keep leaves the temporary directory (fixture, plan, raw nanoseconds) in place.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

rounds=30
calls=100
build=1
python="$repo/.venv/bin/python"
node=node
keep=0
usage() {
  sed -n '5,6p' "$0" | sed 's/^# //' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
    --calls) [ $# -ge 2 ] || usage; calls=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --python) [ $# -ge 2 ] || usage; python=$2; shift 2 ;;
    --node) [ $# -ge 2 ] || usage; node=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) usage ;;
  esac
done

cargo build --release --quiet -p memory-core-benches --bin binding-overhead
if [ "$build" = 1 ]; then
  if [ ! -x "$python" ] || [ ! -d bindings-node/node_modules ]; then
    echo "error: run bindings-python/scripts/test.sh and bindings-node/scripts/test.sh once first" >&2
    exit 1
  fi
  echo "== building the Python binding (maturin develop --release)" >&2
  (
    export VIRTUAL_ENV="$repo/.venv" PATH="$repo/.venv/bin:$PATH" CARGO_TARGET_DIR="$repo/target/python"
    maturin develop --quiet --release --locked -m bindings-python/Cargo.toml >/dev/null
  )
  echo "== building the Node binding (napi build --release)" >&2
  (
    cd bindings-node
    CARGO_TARGET_DIR="$repo/target/node" npx napi build --platform --release --js native.js -- --locked >/dev/null 2>&1
  )
fi

# The three must run the same memory-core: warn when a source is newer than the oldest
# of the three builds (someone edited the tree during or after the builds, or
# --no-build kept a stale binding), and when a build is replaced during the rounds.
artifacts=(target/release/binding-overhead bindings-python/python/memory_core/_native*.so
  bindings-node/*.node)
stamps() { stat -c '%n %Y' "${artifacts[@]}"; }
oldest=$(ls -tr "${artifacts[@]}" | head -n 1)
newer=$(find memory-core/src memory-core/Cargo.toml bindings-python/src bindings-node/src \
  -newer "$oldest" -type f | head -n 5)
if [ -n "$newer" ]; then
  echo "warning: newer than $oldest, so the three may not run the same memory-core:" >&2
  echo "$newer" | sed 's/^/  /' >&2
fi
stamps_before=$(stamps)

work=$(mktemp -d "${TMPDIR:-/tmp}/memcore-binding-overhead-XXXXXX")
if [ "$keep" = 1 ]; then
  echo "== keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
mkdir "$work/raw"
target/release/binding-overhead fixture "$work" --calls "$calls" 2>/dev/null

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
langs=(rust python node)
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < 3; k++)); do
    lang=${langs[(r + k) % 3]}
    echo "== round $((r + 1))/$rounds: $lang" >&2
    case "$lang" in
      rust) target/release/binding-overhead run "$work" --raw "$work/raw" >/dev/null ;;
      python) "$python" benches/compare/binding_overhead.py "$work" --raw "$work/raw" >/dev/null ;;
      node) "$node" benches/compare/binding_overhead.mjs "$work" --raw "$work/raw" >/dev/null ;;
    esac
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$(stamps)" != "$stamps_before" ]; then
  echo "warning: a build was replaced during the rounds; the rounds mix two builds" >&2
fi

echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $load_before before and $load_after after;" \
  "$rounds rounds, $("$python" -c 'import platform; print("Python " + platform.python_version())'), Node $("$node" --version)"
echo
"$python" - "$work" <<'REPORT'
import sys
from pathlib import Path

work = Path(sys.argv[1])
LABELS = {
    "timer": "timer floor (two clock reads)",
    "root": "`root` getter",
    "session_path": "`session_path(id)` (two `lstat`s)",
    "session_path_async": "`sessionPathAsync(id)` (Node)",
    "session": "`session(id)`",
    "session_async": "`sessionAsync(id)` (Node)",
    "sessions": "`sessions()`",
    "sessions_async": "`sessionsAsync()` (Node)",
    "sessions_fields": "`sessions()` + read every field",
    "register_session_start": "`register_session_start`",
}


def pct(ns, p):
    """Nearest-rank percentile of nanoseconds, in microseconds."""
    s = sorted(ns)
    return s[min(max(-(-len(s) * p // 100), 1), len(s)) - 1] / 1000


def load(lang, op, rows, n):
    """All timed calls of all rounds, and each round's median (a round appends n)."""
    f = work / "raw" / f"{lang}.{op}.{rows}.ns"
    if not f.exists():
        return None
    ns = [int(x) for x in f.read_text().split()]
    return ns, [pct(ns[i : i + n], 50) for i in range(0, len(ns), n)]


def us(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def cell(d):
    return "—" if d is None else f"{us(pct(d[0], 50))} / {us(pct(d[0], 90))}"


def quartiles(values):
    """Nearest-rank 25th, 50th and 75th percentiles of a list of numbers."""
    s = sorted(values)
    return [s[min(max(-(-len(s) * p // 100), 1), len(s)) - 1] for p in (25, 50, 75)]


def versus(d, ref):
    """Median over the rounds of one round's difference and ratio of the medians, the
    ratio with its interquartile range over the rounds."""
    if d is None or ref is None:
        return "—", "—"
    rounds = list(zip(d[1], ref[1]))
    plus = quartiles([a - b for a, b in rounds])[1]
    low, mid, high = quartiles([a / b for a, b in rounds])
    spread = f" ({low:.2f}–{high:.2f})" if len(rounds) > 1 else ""
    return f"{plus:+,.1f}", f"{mid:.2f}{spread}"


print(
    "| Operation | calls | Rust median / p90 | Python median / p90 | Python − Rust"
    " | Python × Rust (IQR) | Node median / p90 | Node − Rust | Node × Rust (IQR) |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
notes = []
for line in (work / "plan.tsv").read_text().splitlines():
    if not line.startswith("op\t"):
        continue
    _, op, rows, _, _, n, _, _ = line.split("\t")
    base = op.removesuffix("_async")
    rust, python, node = (load(lang, op, rows, int(n)) for lang in ("rust", "python", "node"))
    # An async operation is compared with Rust's sync call.
    ref = None if op == "timer" else load("rust", base, rows, int(n))
    name = LABELS.get(op, op) + ("" if rows == "0" else f", {int(rows):,} rows")
    calls = max(len(d[0]) for d in (rust, python, node) if d is not None)
    row = [name, f"{calls:,}", cell(rust), cell(python), *versus(python, ref)]
    row += [cell(node), *versus(node, ref)]
    print("| " + " | ".join(row) + " |")
    if op != base:
        plus, times = versus(node, load("node", base, rows, int(n)))
        notes.append(f"`{op}` {times} × the sync form ({plus} µs)")
print()
print("Microseconds per call: median / p90 of all rounds' calls. − and ×: the median over")
print("the rounds of one round's difference and ratio of the medians (async rows: against")
print("Rust's sync call), in brackets the ratio's interquartile range over the rounds.")
if notes:
    print("Node async vs its sync form: " + "; ".join(notes) + ".")
REPORT
