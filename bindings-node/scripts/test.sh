#!/usr/bin/env bash
# Builds the npm package `memory-core` from a fresh clone and runs its test suite:
# npm ci (pinned @napi-rs/cli), a release build of the native module, a check that the
# committed index.d.ts / native.js are what the build generates (index.js is the
# hand-written entry module around native.js; __test__/package.test.mjs checks that
# index.d.ts declares exactly its exports), the licences, then node --test.
# Needs node >= 20 with npm, cargo, git (hook tests), and util-linux `flock` or python3
# (lock tests).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

echo "== npm ci"
npm ci --no-audit --no-fund

# A target dir of its own: other workspace builds hold ../target's build lock. Absolute,
# because napi-derive writes type definitions there from rustc's working directory.
export CARGO_TARGET_DIR="${NODE_CARGO_TARGET_DIR:-$(cd .. && pwd)/target/node}"

committed=$(mktemp -d)
trap 'rm -rf "$committed"' EXIT
cp index.d.ts native.js "$committed/"

echo "== napi build --platform --release --js native.js (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
npx napi build --platform --release --js native.js -- --locked

echo "== generated files unchanged"
for file in index.d.ts native.js; do
  if ! diff -u "$committed/$file" "$file"; then
    echo "error: the build changed $file; commit the regenerated file" >&2
    exit 1
  fi
done

echo "== licence files are the repository's"
for file in LICENSE-MIT LICENSE-APACHE; do
  cmp "../$file" "$file"
done

echo "== npm pack ships the entry, loader, types, native module, README and licences"
npm pack --dry-run --json 2>/dev/null | node -e '
  let text = ""
  process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
    const files = new Set(JSON.parse(text)[0].files.map((f) => f.path))
    const wanted = ["index.js", "index.d.ts", "native.js", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]
    const missing = wanted.filter((f) => !files.has(f))
    if (![...files].some((f) => f.endsWith(".node"))) missing.push("*.node")
    if (missing.length) {
      console.error("error: npm pack leaves out " + missing.join(", "))
      process.exit(1)
    }
    console.log("packed: " + [...files].sort().join(", "))
  })
'

echo "== memcore for the hook tests (../target/debug/memcore, the workspace's own target dir)"
# The hook tests run the real `memcore` the installed git hooks call; building it here
# makes them deterministic (a no-op after `cargo test --workspace`, which builds it too).
env -u CARGO_TARGET_DIR cargo build --quiet --locked -p memory-cli

echo "== node --test __test__/*.test.mjs"
node --test __test__/*.test.mjs

echo "== bindings-node passed in $((SECONDS - start)) s"
