#!/usr/bin/env bash
# Builds the Python package from source and runs its checks: the stubs against the
# compiled module (mypy.stubtest), the tests type-checked against the stubs (mypy
# --strict), and the pytest suite. Works from a fresh clone with python3, pip and cargo;
# creates .venv at the repository root when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

python3 -m venv --help >/dev/null
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
# A target dir of its own: maturin builds pyo3 for the extension-module ABI, and sharing
# /target with the workspace's cargo builds would rebuild pyo3 on every switch.
export CARGO_TARGET_DIR="$PWD/target/python"
export MYPY_CACHE_DIR="$CARGO_TARGET_DIR/mypy-cache"

echo "== installing maturin, pytest, mypy"
python -m pip install --quiet --disable-pip-version-check 'maturin>=1.9.4,<2' pytest mypy

echo "== building and installing memory_core (maturin develop --release)"
maturin develop --release --locked -m bindings-python/Cargo.toml

echo "== stubtest: _native.pyi matches the compiled module"
python -m mypy.stubtest memory_core

echo "== mypy --strict: the tests use the stubs correctly"
python -m mypy --strict bindings-python/tests

echo "== pytest"
python -m pytest -q bindings-python/tests
