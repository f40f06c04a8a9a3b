// Node worker of the context-memory stress phase (driven by tests/interop/stress_context.py).
//
// Usage: node worker_context.cjs PACKAGE_DIR ROOT WORKER CHAINS ENTRIES
//
// Loads the memory-core package from PACKAGE_DIR, prints {"op":"ready"} and waits for a
// line on stdin (the start barrier). Then CHAINS chains run concurrently on the libuv
// thread pool (ContextMemory's …Async methods), each the plan of worker_context.py's
// run_chain, and every acknowledged write is printed as one JSON line (the records of
// worker_context.py) as soon as its Promise resolved. Ends with {"op":"done"}. Stdin
// closed before the barrier: exit 3 without writing.
'use strict'

const { randomBytes } = require('node:crypto')
const readline = require('node:readline')

const [packageDir, root, worker, chainsArg, entriesArg] = process.argv.slice(2)
const chains = Number(chainsArg)
const entries = Number(entriesArg)
const { ContextMemory } = require(packageDir)

const NAMESPACE = 'project.interop'
const CATEGORIES = ['decision', 'constraint', 'risk', 'todo']

// Writes to a pipe are synchronous on Linux, so a line is out before the next call.
function emit(record) {
  process.stdout.write(JSON.stringify(record) + '\n')
}

function body(chain, k) {
  return `${chain} k${k} ${randomBytes(12).toString('hex')} ✓.`
}

async function runChain(memory, chain) {
  const names = []
  emit({ op: 'begin', worker, chain })
  const fail = (what, e) =>
    emit({ op: 'error', worker, what, kind: e.code || e.name, message: String(e.message) })
  for (let k = 0; k < entries; k++) {
    const category = CATEGORIES[k % CATEGORIES.length]
    const status = k === 1 ? 'experimental' : 'accepted'
    const slug = k % 4 === 3 ? `${chain}-s${k}` : undefined
    let out
    try {
      out = await memory.writeAsync({
        namespace: NAMESPACE, category, tags: ['interop', chain], body: body(chain, k), status, slug,
      })
    } catch (e) {
      fail(`write ${chain} k${k}`, e)
      names.push(null)
      continue
    }
    const entry = out.entry
    names.push(entry.entity_name)
    emit({ op: 'write', worker, chain, k, name: entry.entity_name, category, summary: entry.summary, status: entry.status })
    if (k === 2 && names[1] !== null) {
      try {
        const promoted = await memory.promoteAsync(names[1])
        emit({ op: 'promote', worker, chain, name: promoted.entity_name })
      } catch (e) {
        fail(`promote ${names[1]}`, e)
      }
    }
    if (k === 5 && names[0] !== null) {
      try {
        const done = await memory.supersedeAsync(names[0], {
          namespace: NAMESPACE, category: 'decision', tags: ['interop', chain], body: body(chain, 100 + k),
        })
        emit({ op: 'supersede', worker, chain, k: 100 + k, old: done.old.entity_name, name: done.new.entity_name,
          category: 'decision', summary: done.new.summary })
      } catch (e) {
        fail(`supersede ${names[0]}`, e)
      }
    }
  }
}

const memory = new ContextMemory(root)
emit({ op: 'ready', worker })

const rl = readline.createInterface({ input: process.stdin })
let started = false
rl.once('line', () => {
  started = true
  rl.close()
  process.stdin.destroy()
  const names = Array.from({ length: chains }, (_, c) => worker + String.fromCharCode(97 + c))
  Promise.all(names.map((chain) => runChain(memory, chain).catch((e) => {
    emit({ op: 'error', worker, what: `chain ${chain}`, kind: 'exception', message: String(e && e.stack) })
  }))).then(() => emit({ op: 'done', worker }))
})
rl.once('close', () => {
  if (!started) process.exitCode = 3
})
