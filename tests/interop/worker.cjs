// Node worker of the cross-language stress test (driven by tests/interop/stress.py).
//
// Usage: node worker.cjs PACKAGE_DIR ROOT WORKER CHAINS SESSIONS
//
// Loads the memory-core package from PACKAGE_DIR, prints {"op":"ready"} and waits for a
// line on stdin (the start barrier). Then CHAINS chains run concurrently on the libuv
// thread pool (the …Async methods), each the same plan as worker.py's run_chain, and
// every acknowledged write is printed as one JSON line as soon as its Promise resolved:
//
//   {"op":"begin","worker":W,"chain":C}   (a chain is about to make its first call)
//   {"op":"register","worker":W,"agent":A,"id":ID}
//   {"op":"update","worker":W,"id":ID,"decisions":[D,...]}
//   {"op":"error","worker":W,"what":...,"kind":...,"message":...}
//
// Ends with {"op":"done"}. Stdin closed before the barrier: exit 3 without writing.
'use strict'

const readline = require('node:readline')

const [packageDir, root, worker, chainsArg, sessionsArg] = process.argv.slice(2)
const chains = Number(chainsArg)
const sessions = Number(sessionsArg)
const { AgentMemory } = require(packageDir)

// Writes to a pipe are synchronous on Linux, so a line is out before the next call.
function emit(record) {
  process.stdout.write(JSON.stringify(record) + '\n')
}

function decision(chain, k, j) {
  return `${chain} s${k} d${j} ✓`
}

async function runChain(memory, chain) {
  const ids = []
  emit({ op: 'begin', worker, chain })
  async function update(k, decisions) {
    const id = ids[k]
    if (id === null) return
    let row
    try {
      row = await memory.updateAsync(id, { decisions })
    } catch (e) {
      emit({ op: 'error', worker, what: `update ${id}`, kind: e.code || e.name, message: String(e.message) })
      return
    }
    if (row.sessionId !== id) {
      emit({ op: 'error', worker, what: `update ${id}`, kind: 'wrong_row', message: `returned row ${row.sessionId}` })
      return
    }
    emit({ op: 'update', worker, id, decisions })
  }

  for (let k = 0; k < sessions; k++) {
    const agent = k % 2 === 0 ? 'interop' : chain
    let id
    try {
      id = await memory.registerSessionStartAsync(agent)
    } catch (e) {
      emit({ op: 'error', worker, what: `register ${agent}`, kind: e.code || e.name, message: String(e.message) })
      ids.push(null)
      continue
    }
    ids.push(id)
    emit({ op: 'register', worker, agent, id })
    await update(k, [decision(chain, k, 0)])
    if (k > 0) await update(k - 1, [decision(chain, k - 1, 1), decision(chain, k - 1, 2)])
  }
  if (sessions > 0) {
    await update(sessions - 1, [decision(chain, sessions - 1, 1), decision(chain, sessions - 1, 2)])
  }
}

const memory = new AgentMemory(root)
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
