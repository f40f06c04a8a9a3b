#!/usr/bin/env bash
# context-memory `heal` side by side, in one run: memory-core (Rust, in process) against
# the read-only floor (list + read every entity file, one thread), the floor plus one
# fsynced atomic write of the index, python-frontmatter and gray-matter doing the same
# job (parse every entity file's frontmatter, build `_index.md`, write it atomically) on
# the same generated tree. Prints one Markdown table with ratios.
#
# Usage: benches/context_compare.sh [--sizes 100,1000,10000] [--runs R] [--no-install]
#
# python-frontmatter goes into a throwaway venv and gray-matter into a throwaway
# node_modules, both under target/context-compare/ (network needed the first time;
# --no-install reuses them). Not part of CI. Each tool times its own heals in process
# (start-up excluded), median of R runs (default 5); the tools run one after another on
# the same tree, so compare the ratios of one run on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

sizes=100,1000,10000
runs=5
install=1
usage() {
  sed -n '8p' "$0" | sed 's/^# //' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) [ $# -ge 2 ] || usage; sizes=$2; shift 2 ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    *) usage ;;
  esac
done

work="$repo/target/context-compare"
mkdir -p "$work"
if [ "$install" = 1 ]; then
  if [ ! -x "$work/venv/bin/python" ]; then
    python3 -m venv "$work/venv"
  fi
  "$work/venv/bin/pip" install --quiet --disable-pip-version-check 'python-frontmatter==1.3.0' >&2
  if [ ! -d "$work/node/node_modules/gray-matter" ]; then
    mkdir -p "$work/node"
    (cd "$work/node" && npm install --silent --no-audit --no-fund --prefix . gray-matter@4.0.3 >&2)
  fi
fi
cargo build --quiet --release -p memory-core-benches --bin context-bench >&2
bench="${CARGO_TARGET_DIR:-$repo/target}/release/context-bench"
py="$work/venv/bin/python"
export NODE_PATH="$work/node/node_modules"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

echo "| entities | floor ms | floor + write ms | memory-core heal ms | heal / floor | heal / floor+write | heal CPU / floor CPU | python-frontmatter ms | × heal | gray-matter ms | × heal |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
IFS=, read -ra list <<< "$sizes"
for n in "${list[@]}"; do
  root="$work/tree-$n"
  rm -rf "$root"
  "$bench" tree "$root" "$n"
  ns_dir="$root/projects/bench"
  # The new files written back and in the page cache before anyone is timed: the first
  # tool must not pay the tree's writeback in its fsyncs, nor the others find it warm.
  sync
  cat "$ns_dir"/*.md > /dev/null
  read -r floor floor_write heal _ cpu < <("$bench" heal "$root" "$runs")
  python=$("$py" benches/compare/heal_frontmatter.py "$ns_dir" project.bench "$runs")
  gray=$(node benches/compare/heal_gray_matter.mjs "$ns_dir" project.bench "$runs")
  echo "| $n | $floor | $floor_write | $heal | $(ratio "$heal" "$floor") | $(ratio "$heal" "$floor_write") | $cpu | $python | $(ratio "$python" "$heal") | $gray | $(ratio "$gray" "$heal") |"
  rm -rf "$root"
done
