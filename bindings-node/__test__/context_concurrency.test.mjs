// ContextMemory under lock contention: another process holds the memory lock (the same
// `.memcore.lock` every model and language takes). The sync form gives up at
// `lockTimeoutMs` with ERR_MEMORY_LOCK_TIMEOUT; a Promise form waits on a timer without
// blocking the event loop or holding a pool thread, finishes once the lock is free, and
// stops on an AbortSignal. Writers in several processes lose nothing and never reuse a
// short_id.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { ContextMemory } from '../index.js'
import { holdLock, runNode, tempDir } from './helpers.mjs'

const entry = (n) => ({
  namespace: 'project.app',
  category: 'todo',
  tags: ['lock', `n${n}`],
  body: `Task number ${n} for the lock test.`,
  forceNew: true,
})

/** `project.app`'s index and files agree, with `count` entries. */
function assertInSync(memory, count) {
  const report = memory.verify('project.app')
  assert.deepEqual([report.missing_files, report.unindexed_files, report.mismatched, report.unreadable], [[], [], [], []])
  assert.equal(report.rows, count)
  assert.equal(report.files, count)
}

function openRoot(options) {
  const root = join(tempDir(), 'memory')
  const memory = new ContextMemory(root, options)
  memory.write(entry(0)) // creates the root and the lock file
  return { root, memory }
}

test('a held lock gives ERR_MEMORY_LOCK_TIMEOUT at lockTimeoutMs, sync and Promise forms', async () => {
  const { root, memory } = openRoot({ lockTimeoutMs: 300 })
  const holder = await holdLock(join(root, '.memcore.lock'))
  try {
    let start = performance.now()
    assert.throws(
      () => memory.write(entry(1)),
      (err) => err.code === 'ERR_MEMORY_LOCK_TIMEOUT' && err.path === join(memory.root, '.memcore.lock'),
    )
    let took = performance.now() - start
    assert.ok(took >= 290 && took < 3000, `the sync form gave up after ${took.toFixed(0)} ms`)
    start = performance.now()
    const err = await memory.supersedeAsync('project.app.todo.001', entry(2)).then(
      () => assert.fail('expected a lock timeout'),
      (e) => e,
    )
    took = performance.now() - start
    assert.equal(err.code, 'ERR_MEMORY_LOCK_TIMEOUT')
    assert.match(err.message, /timed out after .* waiting for the memory lock$/)
    assert.ok(took >= 290 && took < 3000, `the Promise form gave up after ${took.toFixed(0)} ms`)
    await assert.rejects(memory.clearRefreshAsync('project.app', ['a.rs']), { code: 'ERR_MEMORY_LOCK_TIMEOUT' })
  } finally {
    await holder.release()
  }
  assert.deepEqual(memory.query({ namespaces: ['project.app'] }).map((h) => h.entity_name), ['project.app.todo.001'])
})

test('waiting Promise forms block neither the event loop nor the pool, and finish once the lock is free', async () => {
  const { root, memory } = openRoot({ lockTimeoutMs: 20_000 })
  const holder = await holdLock(join(root, '.memcore.lock'))
  const file = join(tempDir(), 'unrelated.txt')
  writeFileSync(file, 'unrelated bytes')
  let waiting
  try {
    // More waiting calls than libuv has pool threads (4 by default), of several kinds.
    waiting = [
      ...Array.from({ length: 6 }, (_, i) => memory.writeAsync(entry(i + 1))),
      memory.healAsync('project.app'),
      memory.updateAsync('project.app.todo.001', { status: 'experimental' }),
    ]
    const ticks = []
    const timer = setInterval(() => ticks.push(performance.now()), 20)
    await new Promise((resolve) => setTimeout(resolve, 300)) // all of them are waiting now
    clearInterval(timer)
    assert.ok(ticks.length >= 8, `the event loop ran ${ticks.length} timer ticks in 300 ms`)
    const start = performance.now()
    assert.equal(await readFile(file, 'utf8'), 'unrelated bytes')
    const took = performance.now() - start
    assert.ok(took < 250, `readFile took ${took.toFixed(0)} ms while 8 calls waited for the lock`)
  } finally {
    await holder.release()
  }
  const results = await Promise.all(waiting)
  const names = results.slice(0, 6).map((r) => r.entry.entity_name)
  assert.equal(new Set(names).size, 6)
  assert.equal(results[7].status, 'experimental')
  assertInSync(memory, 7)
  assert.equal(memory.query({ namespaces: ['project.app'], limit: 50, history: true }).length, 7)
})

test('an AbortSignal stops a ContextMemory lock wait; nothing is written', async () => {
  const { root, memory } = openRoot({ lockTimeoutMs: 30_000 })
  const index = join(root, 'projects', 'app', '_index.md')
  const before = readFileSync(index)
  const holder = await holdLock(join(root, '.memcore.lock'))
  try {
    const calls = [
      (signal) => memory.writeAsync(entry(1), { signal }),
      (signal) => memory.promoteToAsync('project.app.todo.001', 'org.global', { signal }),
      (signal) => memory.clearRefreshAsync('project.app', ['a.rs'], { signal }),
    ]
    for (const call of calls) {
      const controller = new AbortController()
      const pending = call(controller.signal)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const reason = new Error('the user closed the panel')
      const start = performance.now()
      controller.abort(reason)
      const err = await pending.then(() => assert.fail('expected an abort'), (e) => e)
      assert.equal(err.name, 'AbortError')
      assert.equal(err.code, 'ERR_MEMORY_ABORTED')
      assert.equal(err.cause, reason)
      assert.ok(performance.now() - start < 200)
    }
  } finally {
    await holder.release()
  }
  assert.deepEqual(readFileSync(index), before)
})

test('several node processes writing one namespace lose nothing and never reuse a short_id', async () => {
  const root = join(tempDir(), 'memory')
  const binding = fileURLToPath(new URL('../index.js', import.meta.url))
  const script = `
    const { ContextMemory } = require(process.argv[1])
    const [root, tag, count] = process.argv.slice(2)
    const memory = new ContextMemory(root, { lockTimeoutMs: 120000 })
    ;(async () => {
      const names = []
      for (let i = 0; i < Number(count); i++) {
        const e = { namespace: 'project.app', category: 'todo', tags: ['race', tag], body: 'Item ' + tag + ' ' + i + '.', forceNew: true }
        names.push(i % 2 ? memory.write(e).entry.entity_name : (await memory.writeAsync(e)).entry.entity_name)
      }
      process.stdout.write(JSON.stringify(names))
    })().catch((err) => { console.error(err); process.exit(1) })
  `
  const processes = 4
  const perProcess = 8
  const outputs = await Promise.all(
    Array.from({ length: processes }, (_, p) => runNode(script, [binding, root, `p${p}`, String(perProcess)])),
  )
  const names = outputs.flatMap((out) => JSON.parse(out))
  assert.equal(names.length, processes * perProcess)
  assert.equal(new Set(names).size, processes * perProcess, 'a short_id was reused')
  const memory = new ContextMemory(root)
  const hits = memory.query({ namespaces: ['project.app'], limit: 1000 })
  assert.deepEqual(new Set(hits.map((h) => h.entity_name)), new Set(names))
  assertInSync(memory, processes * perProcess)
})
