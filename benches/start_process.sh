#!/usr/bin/env bash
# Whole-process timing of `memcore agent start` (the SessionStart hook) on a 10,000-row
# index, next to the raw I/O floor (`cat index.md`) and a plain Python hook
# (benches/compare/naive_append.py), printed as ratios from one run.
#
# Usage: benches/start_process.sh [--rows N] [--runs N] [--python PATH]
# Builds target/release/memcore and the start-process driver (release), then runs it;
# see benches/src/bin/start-process.rs for the method.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p memory-cli --bin memcore
cargo build --release --quiet -p memory-core-benches --bin start-process
exec target/release/start-process --memcore target/release/memcore "$@"
