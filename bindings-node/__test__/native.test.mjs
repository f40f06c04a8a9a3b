// What makes the binding feel like a Node library: Promise forms that wait for the lock
// on a timer (no pool thread held), AbortSignal, no synchronous throws, typed argument
// errors, recognisable errors with errno, null for absent values, util.inspect.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { getSystemErrorName, inspect } from 'node:util'

import * as binding from '../index.js'
import { AgentMemory, holdLock, memoryRoot, runNode, tempDir } from './helpers.mjs'

const { MemoryCoreError, isMemoryCoreError } = binding

test('waiting Promise forms hold no pool thread: an unrelated readFile finishes at once', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root, { lockTimeoutMs: 20_000 })
  memory.registerSessionStart('first') // creates the root and the lock file
  const holder = await holdLock(join(root, '.memcore.lock'))
  const file = join(tempDir(), 'unrelated.txt')
  writeFileSync(file, 'unrelated bytes')
  let waiting
  try {
    // More waiting calls than libuv has pool threads (4 by default).
    waiting = Array.from({ length: 8 }, (_, i) => memory.registerSessionStartAsync(`waiter-${i}`))
    await new Promise((resolve) => setTimeout(resolve, 300)) // all of them are waiting now
    const start = performance.now()
    assert.equal(await readFile(file, 'utf8'), 'unrelated bytes')
    const took = performance.now() - start
    assert.ok(took < 250, `readFile took ${took.toFixed(0)} ms while 8 calls waited for the lock`)
  } finally {
    await holder.release()
  }
  const ids = await Promise.all(waiting)
  assert.equal(new Set(ids).size, 8)
  assert.equal(memory.sessions().length, 9)
})

test('a Promise form gives up at lockTimeoutMs with the rounded wait in its message', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root, { lockTimeoutMs: 400 })
  memory.registerSessionStart('first')
  const holder = await holdLock(join(root, '.memcore.lock'))
  try {
    const start = performance.now()
    const err = await memory.registerSessionStartAsync('late').then(
      () => assert.fail('expected a lock timeout'),
      (e) => e,
    )
    const took = performance.now() - start
    assert.equal(err.code, 'ERR_MEMORY_LOCK_TIMEOUT')
    assert.equal(err.path, join(memory.root, '.memcore.lock'))
    assert.match(err.message, /: timed out after (4\d\d ms|0\.\d s) waiting for the memory lock$/)
    assert.ok(took >= 390 && took < 2000, `gave up after ${took.toFixed(0)} ms`)
  } finally {
    await holder.release()
  }
  assert.equal(memory.sessions().length, 1)
})

test('an AbortSignal stops a lock wait with an AbortError; nothing is written', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root, { lockTimeoutMs: 30_000 })
  const id = memory.registerSessionStart('first')
  const before = memory.sessions()
  const holder = await holdLock(join(root, '.memcore.lock'))
  try {
    const calls = [
      (signal) => memory.registerSessionStartAsync('x', { signal }),
      (signal) => memory.registerManualAsync({ agentName: 'x', topic: 't', summary: 's' }, { signal }),
      (signal) => memory.updateAsync(id, { summary: 'changed' }, { signal }),
      (signal) => memory.organizeAsync({ dryRun: false }, { signal }),
      (signal) => memory.archiveAsync(id, { signal }),
    ]
    for (const call of calls) {
      const controller = new AbortController()
      const pending = call(controller.signal)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const reason = new Error('the user closed the panel')
      const start = performance.now()
      controller.abort(reason)
      const err = await pending.then(() => assert.fail('expected an abort'), (e) => e)
      const took = performance.now() - start
      assert.equal(err.name, 'AbortError')
      assert.equal(err.code, 'ERR_MEMORY_ABORTED')
      assert.equal(err.cause, reason)
      assert.ok(isMemoryCoreError(err) && err instanceof MemoryCoreError)
      assert.ok(took < 200, `the abort took ${took.toFixed(0)} ms`)
    }
  } finally {
    await holder.release()
  }
  assert.deepEqual(memory.sessions(), before)
})

test('an already aborted signal rejects before anything is done', async () => {
  const memory = new AgentMemory(memoryRoot())
  const reason = new Error('too late')
  const signal = AbortSignal.abort(reason)
  const err = await memory.registerSessionStartAsync('a', { signal }).then(
    () => assert.fail('expected an abort'),
    (e) => e,
  )
  assert.equal(err.name, 'AbortError')
  assert.equal(err.code, 'ERR_MEMORY_ABORTED')
  assert.equal(err.cause, reason)
  assert.deepEqual(memory.sessions(), [])
  // A signal that never fires changes nothing.
  const id = await memory.registerSessionStartAsync('a', { signal: new AbortController().signal })
  assert.equal(memory.session(id).agentName, 'a')
})

// Every method with each parameter given a value of the wrong type. `sid` is an id that
// exists, so only the argument under test is wrong.
function calls(memory, sid) {
  return [
    ['sessionId', 'sessionPath', (v) => [v]],
    ['sessionId', 'archiveDir', (v) => [v]],
    ['agentName', 'registerSessionStart', (v) => [v]],
    ['registration', 'registerManual', (v) => [v]],
    ['registration.agentName', 'registerManual', (v) => [{ agentName: v, topic: 't', summary: 's' }]],
    ['registration.topic', 'registerManual', (v) => [{ agentName: 'a', topic: v, summary: 's' }]],
    ['registration.summary', 'registerManual', (v) => [{ agentName: 'a', topic: 't', summary: v }]],
    ['sessionId', 'update', (v) => [v, {}]],
    ['update', 'update', (v) => [sid, v]],
    ['current', 'continueFrom', (v) => [v, sid]],
    ['source', 'continueFrom', (v) => [sid, v]],
    ['current', 'release', (v) => [v, sid]],
    ['source', 'release', (v) => [sid, v]],
    ['organize', 'organize', (v) => [v]],
    ['sessionId', 'archive', (v) => [v]],
    ['status', 'sessionsWithStatus', (v) => [v]],
    ['sessionId', 'session', (v) => [v]],
    ['sessionId', 'snapshot', (v) => [v]],
    ['query', 'find', (v) => [v]],
  ]
}

const WRONG_FOR_STRING = [5, true, {}, ['a'], () => 'a', Symbol('a'), 10n]
const WRONG_FOR_OBJECT = [5, 'text', true, ['a'], () => 'a']
const RUST_WORDS = /\b(String|Vec|Option|napi|Rust|rust|f64|u32|Unknown)\b|&str/

function checkArgumentError(err, name, where) {
  assert.ok(err instanceof Error, `${where}: not an Error: ${err}`)
  assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT', `${where}: ${err.message}`)
  assert.ok(err.message.startsWith(`${name}: expected `), `${where}: ${err.message}`)
  assert.doesNotMatch(err.message, RUST_WORDS, where)
}

test('a wrong type for any parameter is ERR_MEMORY_INVALID_INPUT naming it, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const sid = memory.registerSessionStart('a')
  const before = memory.sessions()
  for (const [name, method, args] of calls(memory, sid)) {
    const objectParam = ['registration', 'update', 'organize', 'options'].includes(name)
    const wrongValues = objectParam ? WRONG_FOR_OBJECT : WRONG_FOR_STRING
    const values = objectParam && name === 'registration' ? [...wrongValues, undefined, null] : wrongValues
    for (const value of values) {
      const where = `${method}(${name} = ${typeof value === 'symbol' ? 'symbol' : String(value)})`
      assert.throws(() => memory[method](...args(value)), (err) => (checkArgumentError(err, name, where), true))
      let pending
      assert.doesNotThrow(() => (pending = memory[`${method}Async`](...args(value))), `${where}Async threw`)
      await assert.rejects(pending, (err) => (checkArgumentError(err, name, `${where}Async`), true))
    }
  }
  // A missing string is named too.
  assert.throws(() => memory.session(), (err) => (checkArgumentError(err, 'sessionId', 'session()'), true))
  assert.deepEqual(memory.sessions(), before)
})

test('lists, numbers, flags and options are checked by property name', async () => {
  const memory = new AgentMemory(memoryRoot())
  const sid = memory.registerSessionStart('a')
  for (const key of ['keywords', 'decisions', 'files', 'openQuestions', 'nextActions', 'supersede', 'resolve', 'done']) {
    for (const value of ['a bare string', 5, { 0: 'a' }, true]) {
      assert.throws(
        () => memory.update(sid, { [key]: value }),
        (err) => (checkArgumentError(err, `update.${key}`, key), true),
      )
    }
    assert.throws(
      () => memory.update(sid, { [key]: ['fine', 3] }),
      (err) => (checkArgumentError(err, `update.${key}`, key), /item 1, got number 3/.test(err.message)),
    )
  }
  for (const key of ['keywords', 'decisions', 'files', 'openQuestions', 'nextActions', 'continuesFrom']) {
    await assert.rejects(
      memory.registerManualAsync({ agentName: 'a', topic: 't', summary: 's', [key]: 'x' }),
      (err) => (checkArgumentError(err, `registration.${key}`, key), true),
    )
  }
  for (const value of ['14', true, []]) {
    assert.throws(() => memory.organize({ staleAfterDays: value }), (err) => (checkArgumentError(err, 'organize.staleAfterDays', 'days'), true))
  }
  assert.throws(() => memory.organize({ dryRun: 'yes' }), (err) => (checkArgumentError(err, 'organize.dryRun', 'dryRun'), true))
  for (const value of [5, 'x', true]) {
    assert.throws(() => new AgentMemory(memoryRoot(), value), (err) => (checkArgumentError(err, 'options', 'ctor'), true))
  }
  assert.throws(() => new AgentMemory(5), (err) => (checkArgumentError(err, 'root', 'root'), true))
  assert.throws(() => new AgentMemory(memoryRoot(), { lockTimeoutMs: '10' }), (err) => (checkArgumentError(err, 'options.lockTimeoutMs', 'ms'), true))
  assert.throws(() => new AgentMemory(memoryRoot(), { fixedTime: 5 }), (err) => (checkArgumentError(err, 'options.fixedTime', 'time'), true))
  // The Promise forms' own options.
  for (const [value, name] of [[5, 'options'], ['x', 'options'], [{ signal: 5 }, 'options.signal'], [{ signal: {} }, 'options.signal']]) {
    let pending
    assert.doesNotThrow(() => (pending = memory.sessionAsync(sid, value)))
    await assert.rejects(pending, (err) => (checkArgumentError(err, name, 'async options'), true))
  }
  assert.equal((await memory.organizeAsync(undefined, { signal: undefined })).dryRun, false)
})

test('errors are recognisable at run time; I/O errors carry errno and syscall', async () => {
  const dir = tempDir()
  const blocker = join(dir, 'file')
  writeFileSync(blocker, 'x')
  const memory = new AgentMemory(join(blocker, 'memory'))
  const err = await memory.registerSessionStartAsync('a').then(() => assert.fail('expected ERR_MEMORY_IO'), (e) => e)
  assert.equal(err.code, 'ERR_MEMORY_IO')
  assert.equal(typeof err.errno, 'number')
  assert.ok(err.errno < 0)
  assert.ok(['ENOTDIR', 'EEXIST'].includes(getSystemErrorName(err.errno)), getSystemErrorName(err.errno))
  assert.equal(err.syscall, 'mkdir')
  assert.ok(err instanceof MemoryCoreError && isMemoryCoreError(err))
  for (const other of [new Error('x'), Object.assign(new Error('y'), { code: 'ENOENT' }), null, 'ERR_MEMORY_IO', { code: 'ERR_MEMORY_IO' }]) {
    assert.equal(isMemoryCoreError(other), false)
    assert.equal(other instanceof MemoryCoreError, false)
  }
  assert.throws(() => new MemoryCoreError(), TypeError)
})

test('index.d.ts declares exactly the runtime exports', async () => {
  const { readFileSync } = await import('node:fs')
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const values = new Set(
    [...dts.matchAll(/^export declare (?:class|function|const|enum|let) (\w+)/gm)].map((m) => m[1]),
  )
  const runtime = new Set(Object.keys(binding).filter((k) => k !== 'default'))
  assert.deepEqual([...runtime].sort(), [...values].sort())
  assert.deepEqual(binding.Status, { Idle: 'idle', Active: 'active', Stale: 'stale' })
  assert.deepEqual(binding.Mark, { Superseded: 'superseded', Resolved: 'resolved', Done: 'done' })
  assert.deepEqual(binding.ArchiveKind, { Archived: 'archived', Deleted: 'deleted' })
  // Every method the class declares exists, and every Promise form takes `options`.
  const klass = dts.slice(dts.indexOf('export declare class AgentMemory'))
  const methods = [...klass.slice(0, klass.indexOf('\n}\n')).matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1])
  for (const method of methods) assert.equal(typeof AgentMemory.prototype[method], 'function', method)
  for (const line of klass.split('\n').filter((l) => /^ {2}\w+Async\(/.test(l))) {
    assert.match(line, /(options|asyncOptions)\?: AsyncOptions\): Promise</, line)
  }
})

test('absent values are null in every result, as in Rust and Python', async () => {
  const memory = new AgentMemory(memoryRoot())
  const id = memory.registerManual({ agentName: 'a', topic: 't', summary: 's', decisions: ['d'] })
  const snapshot = await memory.snapshotAsync(id)
  assert.equal(snapshot.decisions[0].mark, null)
  assert.ok('mark' in snapshot.decisions[0])
  assert.equal(memory.snapshot('2026-01-01-0000-none'), null)
  const idle = memory.registerSessionStart('b')
  const outcome = memory.archive(idle)
  assert.deepEqual(
    Object.entries(outcome).filter(([, v]) => v === null).map(([k]) => k),
    ['archiveIndex', 'sessionFile'],
  )
  assert.equal(JSON.stringify(outcome), JSON.stringify({ ...outcome }))
})

test('util.inspect shows the root', () => {
  const memory = new AgentMemory(memoryRoot(), { lockTimeoutMs: 1500 })
  const shown = inspect(memory)
  assert.ok(shown.includes(JSON.stringify(memory.root).slice(1, -1)) || shown.includes(memory.root), shown)
  assert.match(shown, /^AgentMemory \{/)
  assert.match(shown, /lockTimeoutMs: 1500/)
})

test('a relative root is made absolute at open and survives process.chdir', async () => {
  const binding = fileURLToPath(new URL('../index.js', import.meta.url))
  const [first, second] = [tempDir(), tempDir()]
  const script = `
    const { AgentMemory } = require(process.argv[1])
    const [first, second] = process.argv.slice(2)
    process.chdir(first)
    const memory = new AgentMemory('memory')
    const home = new AgentMemory('~/memory')
    const id = memory.registerSessionStart('a')
    process.chdir(second)
    memory.registerSessionStart('a')
    process.stdout.write(JSON.stringify({
      root: memory.root, home: home.root, found: memory.session(id).sessionId === id,
      rows: memory.sessions().length, secondTree: require('fs').existsSync('memory'),
    }))
  `
  const out = JSON.parse(await runNode(script, [binding, first, second]))
  const { realpathSync } = await import('node:fs')
  assert.equal(out.root, join(realpathSync(first), 'memory'))
  assert.equal(out.home, join(realpathSync(first), '~', 'memory'))
  assert.deepEqual([out.found, out.rows, out.secondTree], [true, 2, false])
})

test('the README quick start runs', async () => {
  const { readFileSync, writeFileSync: write } = await import('node:fs')
  const { spawnSync } = await import('node:child_process')
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const section = readme.split('## Node quick start')[1].split('\n## ')[0]
  const code = section.split('```js\n')[1].split('```')[0]
  const entry = new URL('../index.js', import.meta.url).href
  const dir = tempDir()
  const file = join(dir, 'quick-start.mjs')
  write(file, code.replace("from 'memory-core'", `from '${entry}'`))
  const done = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  assert.equal(done.status, 0, done.stderr)
  assert.match(done.stdout, /^Your Memory Session ID is: /)
  assert.match(done.stdout, /ERR_MEMORY_CONFLICT/)
  assert.match(done.stdout.trimEnd(), /archived$/)
})

test('packed row lists equal the rows read one by one, for every field and script', async () => {
  const memory = new AgentMemory(memoryRoot(), { fixedTime: '2026-05-25T13:18:00+08:00' })
  const source = memory.registerManual({
    agentName: '文件助手', topic: '登入流程重構 — naïve café 🚀', summary: 'Résumé: 修正已送審。',
    keywords: ['效能', 'ascii', 'ü'],
  })
  const idle = memory.registerSessionStart('cursor-main-agent')
  const follower = memory.registerManual({ agentName: 'b', topic: '', summary: 'x', continuesFrom: [source] })
  memory.update(idle, { keywords: [] })
  const later = new AgentMemory(memory.root, { fixedTime: '2026-09-01T09:00:00+08:00' })
  later.organize({ staleAfterDays: 14 })
  const placeholder = later.registerSessionStart('later')
  for (const rows of [memory.sessions(), await memory.sessionsAsync(), memory.find(''), memory.sessionsWithStatus('stale')]) {
    for (const row of rows) assert.deepEqual(row, memory.session(row.sessionId))
  }
  const all = memory.sessions()
  assert.equal(all.length, 4)
  assert.deepEqual(all.find((r) => r.sessionId === source).referencedBy, [follower])
  assert.deepEqual(all.map((r) => r.status).sort(), ['active', 'idle', 'stale', 'stale'])
  assert.equal(all.find((r) => r.sessionId === placeholder).status, 'idle')
  assert.deepEqual(memory.find('🚀').map((r) => r.sessionId), [source])
  assert.deepEqual(memory.find('no such text'), [])
})

test('a Promise form rejects, never throws, even for a detached method or a throwing options getter', async () => {
  const memory = new AgentMemory(memoryRoot())
  const detached = memory.sessionsAsync
  let pending
  assert.doesNotThrow(() => (pending = detached()))
  await assert.rejects(pending)
  const hostile = {
    get signal() {
      throw new Error('getter failed')
    },
  }
  assert.doesNotThrow(() => (pending = memory.sessionsAsync(hostile)))
  await assert.rejects(pending, /getter failed/)
})
