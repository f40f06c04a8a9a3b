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
python -m mypy.stubtest memory_core --allowlist bindings-python/stubtest-allowlist.txt

echo "== stub docstrings are the runtime (Rust ///) docstrings"
python bindings-python/scripts/stub_docs.py --check

echo "== licence files are the repository's"
for file in LICENSE-MIT LICENSE-APACHE; do
  cmp "$file" "bindings-python/$file"
done

echo "== the wheel's metadata: README as long description, both licences"
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
maturin build --release --locked -m bindings-python/Cargo.toml --out "$wheels" >/dev/null 2>&1
python - "$wheels" bindings-python/README.md <<'PY'
import pathlib, sys, zipfile
wheel, = pathlib.Path(sys.argv[1]).glob("*.whl")
readme = pathlib.Path(sys.argv[2]).read_text(encoding="utf-8")
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for licence in ("LICENSE-MIT", "LICENSE-APACHE"):
        packed = next(n for n in names if n.endswith(f".dist-info/licenses/{licence}"))
        assert z.read(packed) == pathlib.Path(licence).read_bytes(), licence
header, _, body = metadata.partition("\n\n")
assert "Description-Content-Type: text/markdown" in header, header
assert body.strip() == readme.strip(), "the wheel's long description is not bindings-python/README.md"
assert "License-Expression: MIT OR Apache-2.0" in header, header
print(f"{wheel.name}: README and licences present")
PY

echo "== mypy --strict: the tests use the stubs correctly"
python -m mypy --strict bindings-python/tests

echo "== memcore for the hook tests (target/debug/memcore, the workspace's own target dir)"
# The hook tests run the real `memcore` the installed git hooks call; building it here
# makes them deterministic (a no-op after `cargo test --workspace`, which builds it too).
env -u CARGO_TARGET_DIR cargo build --quiet --locked -p memory-cli

echo "== pytest"
python -m pytest -q bindings-python/tests
