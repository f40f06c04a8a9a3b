#!/usr/bin/env bash
# Runs every test suite of memory-core from a fresh clone: Rust (unit, integration,
# doc tests, lints), then the Python and Node packages built from scratch (each runs
# the conformance corpus in tests/corpus), then the cross-language stress test.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: fmt, clippy, tests"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

for suite in bindings-python/scripts/test.sh bindings-node/scripts/test.sh; do
  echo "== $suite"
  "$suite"
done

echo "== tests/interop/run.sh (memcore, Python and Node writing one root at once)"
tests/interop/run.sh
echo "== all suites passed"
