#!/usr/bin/env node
// The Node side of the binding-overhead comparison (benches/binding_overhead.sh).
//
// Usage: binding_overhead.mjs FIXTURE_DIR [--raw OUT]
//
// Runs the calls of FIXTURE_DIR/plan.tsv (written by `binding-overhead fixture`) through
// the `memory-core` package in bindings-node/, as target/release/binding-overhead does in
// Rust: one `new AgentMemory(root, { fixedTime: now })` per root, opened before the
// timing; per operation the plan's warm-up calls, then its timed calls, each between two
// reads of `process.hrtime.bigint()`. The `...Async` operations await one Promise at a
// time (the time runs from the call to the continuation after `await`), so they add the
// libuv thread-pool hop to the sync form's work. Before every `registerSessionStart` call
// (untimed) `index.md` is rewritten from the pristine copy and flushed with its
// directory, so every call appends to the same rows. Prints the median and p90 per call
// in microseconds; with --raw, appends every timed call in nanoseconds to
// OUT/node.<op>.<rows>.ns.

import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const USAGE = 'usage: binding_overhead.mjs FIXTURE_DIR [--raw OUT]'
const here = dirname(fileURLToPath(import.meta.url))
const { AgentMemory } = createRequire(import.meta.url)(resolve(here, '../../bindings-node'))

/** Reads every field of every row (they are plain objects, converted by the call). */
function touch(rows) {
  let n = 0
  for (const r of rows) {
    n +=
      r.sessionId.length +
      r.agentName.length +
      r.topic.length +
      r.summary.length +
      r.keywords.length +
      r.status.length +
      r.referencedBy.length +
      r.startedAt.length +
      r.updatedAt.length
  }
  return n
}

/** Rewrites root/index.md from the pristine bytes and flushes it and root. */
function restore(root, pristine) {
  const fd = openSync(join(root, 'index.md'), 'w')
  try {
    writeSync(fd, pristine)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  const dir = openSync(root, 'r')
  try {
    fsyncSync(dir)
  } finally {
    closeSync(dir)
  }
}

/** Nearest-rank percentile of sorted nanoseconds, in microseconds. */
function percentile(sorted, p) {
  const at = Math.min(Math.max(Math.ceil((sorted.length * p) / 100), 1), sorted.length) - 1
  return Number(sorted[at]) / 1000
}

const clock = process.hrtime.bigint

// One timing loop per operation, each written as a caller would write the call (no
// closure or dispatch between the two clock reads). Each returns per-call nanoseconds.
const OPS = {
  timer(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  root(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      m.root
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  session_path(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      m.sessionPath(arg)
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  async session_path_async(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      await m.sessionPathAsync(arg)
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  session(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      m.session(arg)
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  sessions(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      m.sessions()
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  sessions_fields(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      touch(m.sessions())
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  async session_async(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      await m.sessionAsync(arg)
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  async sessions_async(m, arg, n) {
    const times = []
    for (let i = 0; i < n; i++) {
      const start = clock()
      await m.sessionsAsync()
      const end = clock()
      times.push(end - start)
    }
    return times
  },
  register_session_start(m, arg, n, root, pristine) {
    const times = []
    for (let i = 0; i < n; i++) {
      restore(root, pristine)
      const start = clock()
      m.registerSessionStart(arg)
      const end = clock()
      times.push(end - start)
    }
    return times
  },
}

async function main() {
  const args = process.argv.slice(2)
  let fixtureDir = null
  let raw = null
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--raw' && i + 1 < args.length) raw = args[++i]
    else if (!args[i].startsWith('-') && fixtureDir === null) fixtureDir = args[i]
    else {
      console.error(USAGE)
      process.exit(2)
    }
  }
  if (fixtureDir === null) {
    console.error(USAGE)
    process.exit(2)
  }

  let now = null
  const steps = []
  for (const line of readFileSync(join(fixtureDir, 'plan.tsv'), 'utf8').split('\n')) {
    const fields = line.split('\t')
    if (line === '' || line.startsWith('#')) continue
    if (fields[0] === 'now') now = fields[1]
    else if (fields[0] === 'op' && fields.length === 8) steps.push(fields.slice(1))
    else throw new Error(`plan: ${line}`)
  }

  const handles = new Map()
  console.log('# node: op\trows\tcalls\tmedian_us\tp90_us')
  for (const [op, rows, root, arg, callsText, warmupText, pristinePath] of steps) {
    if (!(op in OPS)) continue
    let m = null
    if (op !== 'timer') {
      m = handles.get(root)
      if (m === undefined) {
        m = new AgentMemory(root, { fixedTime: now })
        handles.set(root, m)
      }
    }
    const pristine = pristinePath === '-' ? null : readFileSync(pristinePath)
    await OPS[op](m, arg, Number(warmupText), root, pristine)
    const times = await OPS[op](m, arg, Number(callsText), root, pristine)
    if (pristine !== null) restore(root, pristine)
    if (raw !== null) {
      appendFileSync(join(raw, `node.${op}.${rows}.ns`), times.map((t) => `${t}\n`).join(''))
    }
    times.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    console.log(
      `${op}\t${rows}\t${times.length}\t${percentile(times, 50).toFixed(2)}\t${percentile(times, 90).toFixed(2)}`,
    )
  }
}

await main()
