#!/usr/bin/env bash
# Cross-language stress test in three phases: memcore, Python and Node processes registering
# and updating on one Agent Memory root at the same time (stress.py), then writing,
# promoting and superseding in one context-memory namespace at the same time
# (stress_context.py), then remembering facts in one structured-memory directory
# (stress_structured.py); each checks that every acknowledged write is there exactly once.
# Assumes the three surfaces are built: it builds memcore
# itself (cheap when up to date) but needs the .venv of bindings-python/scripts/test.sh
# and the .node of bindings-node/scripts/test.sh. Each phase ends with `interop…: N passed,
# M failed`; the script fails when any phase does (all always run). Arguments (such as
# --keep) go to every phase.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

echo "== cargo build --release -p memory-cli --locked"
cargo build --release -p memory-cli --locked
memcore="${CARGO_TARGET_DIR:-$repo/target}/release/memcore"
if [ ! -x "$memcore" ]; then
  echo "interop: error: $memcore is missing after the build" >&2
  exit 1
fi

python="$repo/.venv/bin/python"
if [ ! -x "$python" ] || ! "$python" -c 'import memory_core' 2>/dev/null; then
  echo "interop: error: the Python package is not built: $python cannot import memory_core;" \
    "run bindings-python/scripts/test.sh first" >&2
  exit 1
fi

if ! command -v node >/dev/null; then
  echo "interop: error: node is not on PATH (Node 20 or later is needed)" >&2
  exit 1
fi
if ! compgen -G "$repo/bindings-node/*.node" >/dev/null \
  || ! node -e 'require(process.argv[1])' "$repo/bindings-node" 2>/dev/null; then
  echo "interop: error: the Node package is not built: require('$repo/bindings-node') fails;" \
    "run bindings-node/scripts/test.sh first" >&2
  exit 1
fi

status=0
for phase in stress.py stress_context.py stress_structured.py; do
  echo "== tests/interop/$phase"
  "$python" -u "tests/interop/$phase" --memcore "$memcore" --node-package "$repo/bindings-node" \
    --python "$python" "$@" || status=1
done
exit "$status"
