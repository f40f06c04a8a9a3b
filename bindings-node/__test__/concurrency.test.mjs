// Many writers on one index: concurrent Promise calls in one process, and several
// processes at once. No registration may be lost or duplicated.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { AgentMemory, memoryRoot, runNode } from './helpers.mjs'

// Generous lock waits: on a loaded 2-core CI machine a writer may queue behind
// hundreds of others; the tests check that nothing is lost, not how fast.
const LOCK_TIMEOUT_MS = 120_000

test('200 concurrent registerSessionStartAsync calls give 200 unique ids, all in the index', async () => {
  const memory = new AgentMemory(memoryRoot(), { lockTimeoutMs: LOCK_TIMEOUT_MS })
  const ids = await Promise.all(
    Array.from({ length: 200 }, () => memory.registerSessionStartAsync('cursor-main-agent')),
  )
  assert.equal(new Set(ids).size, 200)
  const rows = await memory.sessionsAsync()
  assert.equal(rows.length, 200)
  assert.deepEqual(new Set(rows.map((r) => r.sessionId)), new Set(ids))
  assert.ok(rows.every((r) => r.status === 'idle'))
})

test('concurrent async updates, registrations and reads on one index keep every write', async () => {
  const memory = new AgentMemory(memoryRoot(), { lockTimeoutMs: LOCK_TIMEOUT_MS })
  const id = memory.registerSessionStart('cursor-main-agent')
  const decisions = Array.from({ length: 40 }, (_, i) => `Decision ${i}`)
  const results = await Promise.all([
    ...decisions.map((d) => memory.updateAsync(id, { decisions: [d] })),
    ...Array.from({ length: 40 }, (_, i) =>
      memory.registerManualAsync({ agentName: 'worker', topic: `Topic ${i}`, summary: `Work ${i}.` }),
    ),
    ...Array.from({ length: 20 }, () => memory.sessionsAsync()),
  ])
  const manual = results.slice(40, 80)
  assert.equal(new Set(manual).size, 40)
  const snapshot = memory.snapshot(id)
  assert.deepEqual(new Set(snapshot.decisions.map((d) => d.text)), new Set(decisions))
  assert.equal(memory.sessions().length, 41)
})

test('several node processes registering at once lose nothing', async () => {
  const root = memoryRoot()
  const binding = fileURLToPath(new URL('../index.js', import.meta.url))
  const script = `
    const { AgentMemory } = require(process.argv[1])
    const [root, agent, count] = process.argv.slice(2)
    const memory = new AgentMemory(root, { lockTimeoutMs: ${LOCK_TIMEOUT_MS} })
    ;(async () => {
      const ids = []
      for (let i = 0; i < Number(count); i++) {
        if (i % 3 === 0) ids.push(memory.registerSessionStart(agent))
        else if (i % 3 === 1) ids.push(await memory.registerSessionStartAsync(agent))
        else ids.push(await memory.registerManualAsync({ agentName: agent, topic: 'Topic ' + i, summary: 'Work ' + i + '.' }))
      }
      process.stdout.write(JSON.stringify(ids))
    })().catch((err) => { console.error(err); process.exit(1) })
  `
  const processes = 6
  const perProcess = 15
  const outputs = await Promise.all(
    Array.from({ length: processes }, (_, p) =>
      // Half the processes share an agent name, so their ids also collide by minute.
      runNode(script, [binding, root, p % 2 === 0 ? 'shared-agent' : `agent-${p}`, String(perProcess)]),
    ),
  )
  const ids = outputs.flatMap((out) => JSON.parse(out))
  assert.equal(ids.length, processes * perProcess)
  assert.equal(new Set(ids).size, processes * perProcess)
  const memory = new AgentMemory(root)
  const rows = memory.sessions()
  assert.deepEqual(new Set(rows.map((r) => r.sessionId)), new Set(ids))
  assert.equal(rows.length, processes * perProcess)
})
