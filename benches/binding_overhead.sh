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
#    plan.tsv (the calls; N timed calls of the small reads, default 2000) in a temporary
#    directory.
# 3. R rounds (default 3): in each, the Rust bin, benches/compare/binding_overhead.py and
#    benches/compare/binding_overhead.mjs each run the whole plan in their own process,
#    in an order rotated round by round, so load on the machine hits all three alike.
# 4. Per operation and language, the median and p90 of all timed calls of all rounds.
#
# --keep leaves the temporary directory (fixture, plan, raw nanoseconds) in place.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

rounds=3
calls=2000
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
    CARGO_TARGET_DIR="$repo/target/node" npx napi build --platform --release -- --locked >/dev/null 2>&1
  )
fi

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

# Nearest-rank percentile $2 of the nanoseconds in file $1, in microseconds; "-" when
# the language has no such operation.
pct() {
  if [ -s "$1" ]; then
    sort -n "$1" | awk -v p="$2" '{ a[NR] = $1 } END {
      i = int((NR * p + 99) / 100); if (i < 1) i = 1; printf "%.3f", a[i] / 1000 }'
  else
    echo -
  fi
}

echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $load_before before and $load_after after;" \
  "$rounds rounds, $("$python" -c 'import platform; print("Python " + platform.python_version())'), Node $("$node" --version)"
echo
echo "| Operation | calls | Rust median / p90 | Python median / p90 | Python × Rust | Python + µs | Node median / p90 | Node × Rust | Node + µs |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '^op' "$work/plan.tsv" | while IFS=$'\t' read -r _ op rows _ _ n _ _; do
  base=${op%_async}
  row="$op $rows $((n * rounds))"
  for lang in rust python node; do
    row+=" $(pct "$work/raw/$lang.$op.$rows.ns" 50) $(pct "$work/raw/$lang.$op.$rows.ns" 90)"
  done
  # The Rust figure an async operation is compared with is its sync form's.
  row+=" $(pct "$work/raw/rust.$base.$rows.ns" 50) $(pct "$work/raw/node.$base.$rows.ns" 50)"
  echo "$row"
done | awk '
  BEGIN {
    label["timer"] = "timer floor (two clock reads)"
    label["root"] = "`root` getter"
    label["session_path"] = "`session_path(id)` (two `lstat`s)"
    label["session_path_async"] = "`sessionPathAsync(id)` (Node)"
    label["session"] = "`session(id)`"
    label["sessions"] = "`sessions()`"
    label["session_async"] = "`sessionAsync(id)` (Node)"
    label["sessions_async"] = "`sessionsAsync()` (Node)"
    label["sessions_fields"] = "`sessions()` + read every field"
    label["register_session_start"] = "`register_session_start`"
  }
  function us(v) {
    if (v == "-") return "—"
    if (v < 10) return sprintf("%.2f", v)
    if (v < 100) return sprintf("%.1f", v)
    return sprintf("%.0f", v)
  }
  function cell(m, p) { return (m == "-") ? "—" : us(m) " / " us(p) }
  function ratio(v, ref) { return (v == "-" || ref == "-" || ref == 0) ? "—" : sprintf("%.2f", v / ref) }
  function plus(v, ref) { return (v == "-" || ref == "-") ? "—" : sprintf("%+.1f", v - ref) }
  {
    op = $1; rows = $2; n = $3
    rm = $4; rp = $5; pm = $6; pp = $7; nm = $8; np = $9; ref = $10; nsync = $11
    name = label[op] ", " (rows == 1000 ? "1,000" : rows) " rows"
    if (rows == 0) name = label[op]
    if (op == "timer") { ref = "-" }
    printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", name, n, cell(rm, rp), cell(pm, pp),
      ratio(pm, ref), plus(pm, ref), cell(nm, np), ratio(nm, ref), plus(nm, ref)
    if (op ~ /_async$/) async[++na] = sprintf("%s: %s × the sync form (%s µs)", op, ratio(nm, nsync), plus(nm, nsync))
  }
  END {
    for (i = 1; i <= na; i++) print (i == 1 ? "\nNode async vs sync, medians: " : "") async[i]
  }'
echo
echo "µs per call; × Rust and + µs compare medians (async rows: with Rust's sync call)."
