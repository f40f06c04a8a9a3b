// StructuredMemory on the shapes an acceptance pass found read or named wrong: a topic
// starting with a `---` thematic break (its entries are the topic's), topic names that are
// one file elsewhere or cannot be read as written (canonical twins go into one file;
// invisible characters, Windows device names and names over 255 bytes throw
// ERR_MEMORY_INVALID_INPUT naming why), and a byte-only overage reported at the line that
// passes the byte budget, with the near warning naming what is near — the same fields and
// words as the Rust core, Python and the CLI.

import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { StructuredMemory } from '../index.js'
import { tempDir } from './helpers.mjs'

const FIXED = '2026-12-01T09:00:00Z'
const NFC = 'memory-café.md'.normalize('NFC')
const NFD = 'memory-café.md'.normalize('NFD')

function dir() {
  return join(tempDir(), 'memory')
}

function open(root, options = {}) {
  return new StructuredMemory(root, { fixedTime: FIXED, ...options })
}

test('a leading thematic break is Markdown: its entries are the topic\'s', () => {
  const root = dir()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '- [K](memory-k.md) — k facts\n')
  writeFileSync(join(root, 'memory-k.md'), '---\n\n- 2026-11-01 [k]: first entry\n\n---\n\n- 2026-11-02 [j]: second entry\n')
  const memory = open(root)
  const topic = memory.topic('memory-k.md')
  assert.deepEqual(topic.entries.map((e) => e.line), [3, 7])
  assert.equal(topic.frontmatter_not_yaml, null)
  assert.deepEqual(memory.check(), [])
  const out = memory.remember({ topic: 'memory-k.md', text: 'newer', subject: 'k' })
  assert.deepEqual(out.replaced.map((e) => e.text), ['first entry'])
  assert.ok(readFileSync(join(root, 'memory-k.md'), 'utf8').startsWith('---\n\n- 2026-12-01 [k]: newer\n'))
})

test('canonical twins are one topic in either order', () => {
  for (const [first, second] of [[NFC, NFD], [NFD, NFC]]) {
    const root = dir()
    const memory = open(root)
    memory.remember({ topic: first, text: 'beans from Kenya', subject: 'beans', hook: 'coffee' })
    const out = memory.remember({ topic: second, text: 'beans from Peru', subject: 'beans' })
    assert.equal(out.file, first)
    assert.deepEqual(readdirSync(root).filter((n) => n.endsWith('.md')).sort(), ['MEMORY.md', 'memory-archive.md', first].sort())
    assert.equal(memory.index().lines.length, 1)
  }
})

test('hidden and unportable names throw ERR_MEMORY_INVALID_INPUT naming why', () => {
  for (const [name, words] of [
    ['x'.repeat(297) + '.md', 'at most 255 bytes'],
    ['memory-x\u200b.md', 'U+200B (ZERO WIDTH SPACE)'],
    ['memory-\u202ex.md', 'U+202E'],
    ['CON.md', 'Windows device name'],
    ['Lpt2.md', 'Windows device name'],
    ['memory-a|b.md', 'Windows does not allow'],
  ]) {
    const root = dir()
    assert.throws(
      () => open(root).remember({ topic: name, text: 'a fact', hook: 'h' }),
      (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && err.message.includes(words),
      name,
    )
    assert.ok(!existsSync(join(root, 'MEMORY.md')))
  }
})

function net(root) {
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '- [Net](memory-net.md) — network\n')
  let text = '# Net\n\n'
  for (let i = 1; i <= 9; i++) text += `- 2026-11-0${i} [n${i}]: fact ${i}\n`
  assert.equal(text.length, 241)
  writeFileSync(join(root, 'memory-net.md'), text)
}

test('a byte-only overage is reported at the line that passes the byte budget', async () => {
  const root = dir()
  net(root)
  const found = open(root, { topicBytes: 170 }).check()
  assert.deepEqual(found.map((v) => [v.kind, v.file, v.line]), [['over_budget', 'memory-net.md', 9]])
  assert.ok(found[0].message.includes('241 of 170 bytes (71 bytes over)'), found[0].message)
  assert.deepEqual(await open(root, { topicBytes: 170 }).checkAsync(), found)
  assert.equal(open(root, { topicBytes: 170, topicLines: 4 }).check()[0].line, 5)
})

test('the near warning names the bytes when the bytes are near', () => {
  const root = dir()
  net(root)
  const out = open(root, { topicBytes: 300 }).remember({ topic: 'memory-net.md', text: 'fact ten', subject: 'n10' })
  assert.equal(out.budgets[0].bytes, 270)
  assert.deepEqual(out.warnings, ['memory-net.md is near its byte budget: 270 of 300 bytes (30 bytes left); 12 of 150 lines'])
})
