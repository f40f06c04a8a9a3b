// The entry module index.js: the class called without `new` throws as a JS class does
// (and everything else about it stays), and every example of the package README runs.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'
import { inspect } from 'node:util'

import * as esm from '../index.js'
import { AgentMemory, tempDir } from './helpers.mjs'

const require = createRequire(import.meta.url)

test('calling AgentMemory without new throws the TypeError a JS class throws, and touches nothing', () => {
  const dir = tempDir()
  const message = "Class constructor AgentMemory cannot be invoked without 'new'"
  const globalKeys = Object.getOwnPropertyNames(globalThis).sort()
  for (const call of [
    () => AgentMemory(join(dir, 'a')),
    () => AgentMemory(join(dir, 'b')), // a second call is the same error
    () => AgentMemory.call({}, join(dir, 'c')),
    () => Reflect.apply(AgentMemory, undefined, [join(dir, 'd')]),
  ]) {
    assert.throws(call, (err) => {
      assert.ok(err instanceof TypeError)
      assert.equal(err.message, message)
      return true
    })
  }
  assert.deepEqual(Object.getOwnPropertyNames(globalThis).sort(), globalKeys)
  assert.throws(() => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(new AgentMemory(join(dir, 'e'))), 'root').get.call(globalThis))
  // A handle cannot be re-rooted by calling the class on it.
  const memory = new AgentMemory(join(dir, 'm'))
  const root = memory.root
  assert.throws(() => AgentMemory.call(memory, join(dir, 'other')), TypeError)
  assert.equal(memory.root, root)
  for (const name of ['a', 'b', 'c', 'd', 'other']) assert.equal(existsSync(join(dir, name)), false, name)
  // Everything else about the class is as before.
  assert.ok(memory instanceof AgentMemory)
  assert.equal(memory.constructor, AgentMemory)
  assert.equal(AgentMemory.name, 'AgentMemory')
  assert.equal(Object.getPrototypeOf(memory), AgentMemory.prototype)
  assert.equal(typeof AgentMemory.prototype.sessionsAsync, 'function')
  assert.match(inspect(memory), /^AgentMemory \{ root: '.*m', lockTimeoutMs: 10000 \}$/)
  assert.equal(require('../index.js').AgentMemory, AgentMemory)
  assert.equal(esm.AgentMemory, AgentMemory)
  assert.ok(!(Object.create(null) instanceof AgentMemory))
  class Sub extends AgentMemory {
    constructor() {
      super(join(dir, 'sub'))
    }
  }
  const sub = new Sub()
  assert.ok(sub instanceof Sub && sub instanceof AgentMemory)
  assert.deepEqual(sub.sessions(), [])
  assert.throws(() => Sub(), TypeError)
  const again = new memory.constructor(join(dir, 'n'))
  assert.ok(again instanceof AgentMemory && again.root.endsWith('n'))
})

test('every example of the package README runs as written', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const blocks = readme.split('```js\n').slice(1).map((part) => part.split('```')[0])
  assert.ok(blocks.length > 0)
  const entry = new URL('../index.js', import.meta.url)
  // What each example prints: the Agent Memory quick start, the context-memory one, the
  // structured-memory one.
  const printed = [
    [/active/],
    [/^project\.app\.decision\.001 projects\/app\/decision-001-/m, /^project\.app$/m, /no_previous_head/],
    [/^memory-infra\.md$/m, /\[ 'Postgres 16' \]/, /\[ 'over_budget' \]/, /\[ 'Postgres 16', 'Redis 7 caches sessions' \]/],
  ]
  assert.equal(blocks.length, printed.length)
  for (const [i, code] of blocks.entries()) {
    const dir = tempDir()
    const esmBlock = /^import /m.test(code)
    const file = join(dir, esmBlock ? 'example.mjs' : 'example.cjs')
    const source = esmBlock
      ? code.replaceAll("from 'memory-core'", `from '${entry.href}'`)
      : code.replaceAll("require('memory-core')", `require(${JSON.stringify(entry.pathname)})`)
    writeFileSync(file, source)
    const done = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
    assert.equal(done.status, 0, `${code}\n${done.stderr}`)
    for (const expected of printed[i]) assert.match(done.stdout, expected)
  }
})
