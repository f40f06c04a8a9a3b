// Inputs the binding refuses before the core sees them: strings holding lone surrogates
// (no Rust string or UTF-8 file can hold them) and option keys it does not know; and the
// numbers it accepts and shows.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { AgentMemory, assertFailsBoth, memoryRoot, tempDir } from './helpers.mjs'

const SURROGATE = /: is not valid Unicode text \(it holds lone surrogates\)$/
// Every shape of unpaired surrogate: high alone, low alone, reversed pair, high at the end,
// low at the start, one beside a proper pair.
const LONE = ['x\uD800y', '\uDC00', '\uDC00\uD800', 'end\uD83D', '\uDE00start', '😀\uD800']

function snapshotTree(root) {
  if (!existsSync(root)) return null
  const files = {}
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else files[path] = readFileSync(path, 'utf8')
    }
  }
  walk(root)
  return files
}

// Every string parameter and option, each given `v`; `sid` is an id that exists.
function stringParams(sid) {
  const reg = (extra) => [{ agentName: 'a', topic: 't', summary: 's', ...extra }]
  return [
    ['sessionId', 'sessionPath', (v) => [v]],
    ['sessionId', 'archiveDir', (v) => [v]],
    ['agentName', 'registerSessionStart', (v) => [v]],
    ['agentName', 'registerSessionStartWithWarnings', (v) => [v]],
    ['registration.agentName', 'registerManual', (v) => reg({ agentName: v })],
    ['registration.topic', 'registerManual', (v) => reg({ topic: v })],
    ['registration.summary', 'registerManual', (v) => reg({ summary: v })],
    ['registration.context', 'registerManual', (v) => reg({ context: v })],
    ...['keywords', 'decisions', 'files', 'openQuestions', 'nextActions', 'continuesFrom'].map((key) => [
      `registration.${key}`, 'registerManual', (v) => reg({ [key]: ['fine', v] }),
    ]),
    ['sessionId', 'update', (v) => [v, { topic: 't' }]],
    ...['topic', 'summary', 'context'].map((key) => [`update.${key}`, 'update', (v) => [sid, { [key]: v }]]),
    ...['keywords', 'decisions', 'files', 'openQuestions', 'nextActions', 'supersede', 'resolve', 'done'].map((key) => [
      `update.${key}`, 'update', (v) => [sid, { [key]: [v] }],
    ]),
    ['current', 'continueFrom', (v) => [v, sid]],
    ['source', 'continueFrom', (v) => [sid, v]],
    ['current', 'release', (v) => [v, sid]],
    ['source', 'release', (v) => [sid, v]],
    ['sessionId', 'archive', (v) => [v]],
    ['status', 'sessionsWithStatus', (v) => [v]],
    ['sessionId', 'session', (v) => [v]],
    ['sessionId', 'snapshot', (v) => [v]],
    ['query', 'find', (v) => [v]],
  ]
}

test('a string with a lone surrogate is refused naming the parameter, sync and async, and nothing is written', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root)
  const sid = memory.registerManual({ agentName: 'a', topic: 't', summary: 's' })
  const before = snapshotTree(root)
  for (const [name, method, args] of stringParams(sid)) {
    for (const lone of LONE) {
      await assertFailsBoth((s) => memory[`${method}${s}`](...args(lone)), {
        code: 'ERR_MEMORY_INVALID_INPUT',
        message: new RegExp(`^${name.replace('.', '\\.')}${SURROGATE.source}`),
      })
    }
  }
  assert.deepEqual(snapshotTree(root), before)
})

test('the constructor refuses a root or fixedTime with a lone surrogate and creates nothing', () => {
  const dir = tempDir()
  for (const lone of LONE) {
    assert.throws(() => new AgentMemory(join(dir, lone)), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.match(err.message, new RegExp(`^root${SURROGATE.source}`))
      return true
    })
    assert.throws(() => new AgentMemory(join(dir, 'm'), { fixedTime: `2026-05-25T13:18:00+08:00${lone}` }), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.match(err.message, new RegExp(`^options\\.fixedTime${SURROGATE.source}`))
      return true
    })
  }
  assert.deepEqual(readdirSync(dir), [])
})

test('proper surrogate pairs and a real U+FFFD are text, stored and read back unchanged', async () => {
  const memory = new AgentMemory(memoryRoot())
  for (const text of ['😀', 'a\uFFFDb', '\uFFFD', '𝄞 and \uFFFD and 🚀']) {
    const id = memory.registerManual({ agentName: 'a', topic: text, summary: text, keywords: [text] })
    const row = memory.session(id)
    assert.deepEqual([row.topic, row.summary, row.keywords], [text, text, [text]])
    assert.equal((await memory.updateAsync(id, { summary: `${text}!` })).summary, `${text}!`)
    assert.ok(memory.find(text).some((r) => r.sessionId === id))
  }
})

test('a wrong-type message shows a string with lone surrogates escaped, not as U+FFFD', () => {
  const memory = new AgentMemory(memoryRoot())
  assert.throws(() => memory.update('a\uD800', 5), (err) => {
    // The id is read first and refused as text.
    assert.match(err.message, /^sessionId: is not valid Unicode/)
    return true
  })
  assert.throws(() => memory.registerManual('x\uD800y'), (err) => {
    assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
    assert.equal(err.message, 'registration: expected an object, got string "x\\u{d800}y"')
    return true
  })
})

// Every options / registration / update object, each given the extra keys of `extra`.
function objectParams(sid) {
  return [
    ['registration', 'registerManualAsync', (extra) => [{ agentName: 'a', topic: 't', summary: 's', ...extra }]],
    ['update', 'updateAsync', (extra) => [sid, { topic: 'new', ...extra }]],
    ['organize', 'organizeAsync', (extra) => [{ dryRun: true, ...extra }]],
  ]
}

test('an unknown key of a registration, update or organize object is refused naming it, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const sid = memory.registerSessionStart('a')
  for (const [prefix, asyncMethod, args] of objectParams(sid)) {
    const method = asyncMethod.replace(/Async$/, '')
    for (const key of ['topc', 'Topic', 'dryrun', 'lockTimeoutMs', '0', 'constructor']) {
      await assertFailsBoth((s) => memory[`${method}${s}`](...args({ [key]: 'x' })), {
        code: 'ERR_MEMORY_INVALID_INPUT',
        message: new RegExp(`^${prefix}\\.${key}: unknown option$`),
      })
    }
    // A misplaced signal names where it belongs, and is never waited on.
    const signal = new AbortController().signal
    await assertFailsBoth((s) => memory[`${method}${s}`](...args({ signal })), {
      code: 'ERR_MEMORY_INVALID_INPUT',
      message: new RegExp(`^${prefix}\\.signal: unknown option; pass \\{ signal \\} as the last argument of ${asyncMethod}$`),
    })
    // A key with a lone surrogate is unknown too (not lost on the way to UTF-8), shown escaped.
    await assertFailsBoth((s) => memory[`${method}${s}`](...args({ ['k\uD800']: 1 })), {
      code: 'ERR_MEMORY_INVALID_INPUT',
      message: new RegExp(`^${prefix}\\.k\\\\u\\{d800\\}: unknown option$`),
    })
    // Keys whose value is undefined are ignored (spreading defaults).
    assert.doesNotThrow(() => memory[method](...args({ extra: undefined, signal: undefined, ['k\uD800']: undefined })))
  }
  // A refused update changes nothing: not the row, its status or time, not a file.
  const idle = new AgentMemory(memoryRoot())
  const other = idle.registerSessionStart('b')
  const rowBefore = idle.session(other)
  const treeBefore = snapshotTree(idle.root)
  assert.throws(() => idle.update(other, { topc: 'x' }), { message: 'update.topc: unknown option' })
  assert.deepEqual(idle.session(other), rowBefore)
  assert.equal(idle.session(other).status, 'idle')
  assert.deepEqual(snapshotTree(idle.root), treeBefore)
})

test('the constructor and the Promise forms refuse unknown option keys', async () => {
  const root = memoryRoot()
  for (const options of [{ lockTimeout: 1 }, { fixedtime: '2026-05-25T13:18:00+08:00' }, { lockTimeoutMs: 5, signal: AbortSignal.abort() }]) {
    const key = Object.keys(options).find((k) => k !== 'lockTimeoutMs')
    assert.throws(() => new AgentMemory(root, options), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.equal(err.message, `options.${key}: unknown option`)
      return true
    })
  }
  assert.equal(existsSync(root), false)
  assert.equal(new AgentMemory(root, { lockTimeoutMs: 5, fixedTime: undefined, other: undefined }).lockTimeoutMs, 5)
  const memory = new AgentMemory(root)
  const sid = memory.registerSessionStart('a')
  for (const [method, args] of [['sessionAsync', [sid]], ['sessionsAsync', []], ['updateAsync', [sid, {}]], ['organizeAsync', [{}]], ['findAsync', ['']]]) {
    await assert.rejects(memory[method](...args, { sigal: AbortSignal.abort() }), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.equal(err.message, 'options.sigal: unknown option')
      return true
    })
    await memory[method](...args, { signal: undefined, timeout: undefined })
  }
})

test('every finite lockTimeoutMs from 0 is accepted; too long for a Duration is the longest wait', async () => {
  for (const lockTimeoutMs of [0, -0, 0.5, 1, 1e3, 2 ** 53, 1e20, 1e300, Number.MAX_VALUE]) {
    const memory = new AgentMemory(memoryRoot(), { lockTimeoutMs })
    assert.ok(Number.isFinite(memory.lockTimeoutMs), `${lockTimeoutMs}: ${memory.lockTimeoutMs}`)
    assert.ok(memory.lockTimeoutMs >= Math.min(lockTimeoutMs, 1.8e22) * 0.999, `${lockTimeoutMs}: ${memory.lockTimeoutMs}`)
    const id = await memory.registerSessionStartAsync('a')
    assert.equal(memory.registerManual({ agentName: 'b', topic: 't', summary: 's' }).length > 0, true)
    assert.equal(memory.session(id).agentName, 'a')
  }
})

test('a refused lockTimeoutMs or staleAfterDays is shown in plain, short form', () => {
  for (const [lockTimeoutMs, shown] of [[-1e300, '-1e300'], [-1, '-1'], [-0.25, '-0.25'], [Number.NaN, 'NaN'], [Number.POSITIVE_INFINITY, 'Infinity'], [Number.NEGATIVE_INFINITY, '-Infinity'], [-Number.MAX_VALUE, '-1.7976931348623157e308']]) {
    assert.throws(() => new AgentMemory(memoryRoot(), { lockTimeoutMs }), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.equal(err.message, `invalid lockTimeoutMs "${shown}": must be a finite number of milliseconds, at least 0`)
      return true
    })
  }
  const memory = new AgentMemory(memoryRoot())
  assert.throws(() => memory.organize({ staleAfterDays: 1e300 }), { message: /^invalid staleAfterDays "1e300": / })
  assert.throws(() => memory.find(1e300), { message: 'query: expected a string, got number 1e300' })
  assert.throws(() => memory.find(0.5), { message: 'query: expected a string, got number 0.5' })
})

test('an unknown option key is the same core argument error as a value of the wrong type', async () => {
  const { MemoryCoreError, isMemoryCoreError } = await import('../index.js')
  const memory = new AgentMemory(memoryRoot())
  const sid = memory.registerSessionStart('a')
  const caught = (f) => {
    try {
      f()
    } catch (err) {
      return err
    }
    assert.fail('expected a throw')
  }
  const shape = (err) => ({
    class: err.constructor.name,
    name: err.name,
    code: err.code,
    memory: err instanceof MemoryCoreError && isMemoryCoreError(err),
    keys: Object.getOwnPropertyNames(err).filter((k) => k !== 'message' && k !== 'stack').sort(),
  })
  const unknown = [
    caught(() => memory.update(sid, { topc: 'x' })),
    caught(() => memory.organize({ dryrun: true })),
    caught(() => new AgentMemory(memoryRoot(), { lockTimeout: 1 })),
    caught(() => memory.registerManual({ agentName: 'a', topic: 't', summary: 's', ['k\uD800']: 1 })),
  ]
  const wrongType = caught(() => memory.update(sid, { topic: 5 }))
  assert.equal(wrongType.message, 'update.topic: expected a string, got number 5')
  for (const err of unknown) {
    assert.match(err.message, /^[a-z]+\.[^:]+: unknown option$/)
    assert.deepEqual(shape(err), shape(wrongType))
  }
  const rejected = await memory.updateAsync(sid, { topc: 'x' }).catch((err) => err)
  assert.deepEqual(shape(rejected), shape(wrongType))
})
