// StructuredMemory on what an acceptance pass left over: compact goes on past a topic that
// does not read (`not_compacted`), a topic a compactor empties goes with its index line
// (and `restore` brings both back), names resolve as `remember` resolves them,
// `[[wikilinks]]` are pointers and sync-conflict copies their own check kind — the same
// fields and words as the Rust core, Python and the CLI.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { NEAR_DUPLICATE_SIMILARITY, StructuredMemory } from '../index.js'
import { tempDir } from './helpers.mjs'

const STALE = [1, 2, 3, 4].map((i) => `- 2026-07-0${i} [db]: Postgres 1${i}\n`).join('')

function dir() {
  const root = join(tempDir(), 'memory')
  mkdirSync(root)
  return root
}

test('compact reports an unreadable topic and compacts the others', async () => {
  const root = dir()
  writeFileSync(join(root, 'memory-a.md'), STALE)
  writeFileSync(join(root, 'memory-bad.md'), '---\nname: b\n- 2026-07-01: x\n')
  writeFileSync(join(root, 'MEMORY.md'), '- [Bad](memory-bad.md) — bad\n- [A](memory-a.md) — a\n')
  const memory = new StructuredMemory(root, { topicLines: 2 })
  const dry = await memory.compactAsync(null, { dryRun: true })
  const report = memory.compact()
  assert.deepEqual(dry.not_compacted, report.not_compacted)
  assert.deepEqual(report.not_compacted.map((s) => [s.file, s.line, s.kind]), [['memory-bad.md', 1, 'malformed']])
  assert.deepEqual(report.files.map((f) => f.file), ['memory-a.md'])
  assert.equal(memory.topic('MEMORY-A.md').file, 'memory-a.md')
})

test('an emptied topic goes with its index line and restore brings both back', () => {
  const root = dir()
  writeFileSync(join(root, 'memory-old.md'), `# Old\n\n${STALE}`)
  writeFileSync(join(root, 'MEMORY.md'), '- [Old](memory-old.md) — the old project\n')
  const memory = new StructuredMemory(root, { topicLines: 2 })
  const report = memory.compact(null, { compactor: { dead: (_topic, entries) => entries.map((_, i) => i) } })
  assert.equal(existsSync(join(root, 'memory-old.md')), false)
  assert.deepEqual(report.files[0].passes.map((p) => p.pass), ['evict-dead', 'remove-empty'])
  assert.deepEqual(memory.index().lines, [])
  memory.restore(report.id)
  assert.equal(readFileSync(join(root, 'memory-old.md'), 'utf8'), `# Old\n\n${STALE}`)
  assert.deepEqual(memory.index().lines.map((l) => [l.file, l.hook]), [['memory-old.md', 'the old project']])
})

test('wikilinks are pointers and sync-conflict copies their own kind', () => {
  const root = dir()
  writeFileSync(join(root, 'memory-x.md'), '- 2026-07-01: a\n')
  writeFileSync(join(root, 'memory-x.sync-conflict-20260701-120000-ABC.md'), '- 2026-07-01: b\n')
  writeFileSync(join(root, 'MEMORY.md'), '- [[memory-x|X]] — x things %% note %%\n')
  const memory = new StructuredMemory(root)
  const line = memory.index().lines[0]
  assert.deepEqual([line.title, line.file, line.hook], ['X', 'memory-x.md', 'x things'])
  const found = memory.check()
  assert.deepEqual(found.map((v) => [v.kind, v.file]), [['sync_conflict_copy', 'memory-x.sync-conflict-20260701-120000-ABC.md']])
  assert.match(found[0].message, /memory-x\.md/)
})

test('NEAR_DUPLICATE_SIMILARITY is the core constant, and CJK titles compare by bigrams', () => {
  assert.equal(NEAR_DUPLICATE_SIMILARITY, 0.75)
  const root = dir()
  for (const name of ['memory-a.md', 'memory-b.md', 'memory-c.md']) writeFileSync(join(root, name), '- 2026-07-01: a fact\n')
  writeFileSync(
    join(root, 'MEMORY.md'),
    '- [基础设施](memory-a.md) — 主机、数据库和备份\n- [基础设施](memory-b.md) — 主机、数据库、备份\n- [数据库迁移](memory-c.md) — 步骤和回滚\n',
  )
  const found = new StructuredMemory(root).check().filter((v) => v.kind === 'near_duplicate_topics')
  assert.deepEqual(found.map((v) => [v.file, v.line]), [['MEMORY.md', 2]])
  assert.match(found[0].message, /\(line 1; 7 of 9 words alike\)/)
  // recall matches the same bigrams: 备份 (backup) is inside 数据库和备份.
  assert.deepEqual(new StructuredMemory(root).recall('备份').map((h) => h.file), ['memory-a.md', 'memory-b.md'])
})
