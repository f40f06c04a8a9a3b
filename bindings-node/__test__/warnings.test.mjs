// Problems a call goes on past: SessionStart beside malformed rows of other sessions
// (`registerSessionStartWithWarnings` returns them, `registerSessionStart` emits them as
// process warnings), structured-memory's `recall` through a symlinked `MEMORY.md`
// (`recallWithWarnings` returns what `recall` emits), and what `organize` reports besides
// its row changes. Every case
// writes the bad file by hand, then calls, sync and Promise forms alike.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { StructuredMemory } from '../index.js'
import { AgentMemory, memoryRoot, tempDir } from './helpers.mjs'

const HEADER =
  '# Memory Index\n\n' +
  '| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n' +
  '|---|---|---|---|---|---|---|---|---|\n'
const T = '2026-01-01T00:00:00+00:00'
const GOOD = `| 2026-01-01-0000-a | a | Login | Fixed it. | auth | active | - | ${T} | ${T} |`

// Every shape of a row SessionStart goes on past (on line 6, after GOOD).
const BAD_ROWS = {
  'missing cells': '| 2026-01-01-0000-b | b | only three cells |',
  'extra cells': `| 2026-01-01-0000-b | b | t | s | k | active | - | ${T} | ${T} | extra |`,
  'unknown status': `| 2026-01-01-0000-b | b | t | s | k | closed | - | ${T} | ${T} |`,
  'bad timestamp': `| 2026-01-01-0000-b | b | t | s | k | active | - | yesterday | ${T} |`,
  'bad id': `| ../escape | b | t | s | k | active | - | ${T} | ${T} |`,
  'duplicate id': GOOD,
}

function writeIndex(...rows) {
  const root = memoryRoot()
  mkdirSync(root)
  const text = HEADER + rows.map((row) => `${row}\n`).join('')
  writeFileSync(join(root, 'index.md'), text)
  return { root, text }
}

/** The process warnings `run` emits (they are delivered on the next tick). */
async function warningsOf(run) {
  const seen = []
  const listener = (warning) => seen.push(warning)
  process.on('warning', listener)
  try {
    const value = await run()
    await new Promise((resolve) => setImmediate(resolve))
    return { value, seen }
  } finally {
    process.off('warning', listener)
  }
}

test('no warnings on a clean root', async () => {
  const memory = new AgentMemory(memoryRoot())
  const start = memory.registerSessionStartWithWarnings('cursor-main-agent')
  assert.deepEqual(Object.keys(start), ['sessionId', 'warnings'])
  assert.match(start.sessionId, /-cursor-main-agent$/)
  assert.deepEqual(start.warnings, [])
  assert.equal(memory.session(start.sessionId).status, 'idle')
  const { value, seen } = await warningsOf(() => memory.registerSessionStartAsync('b'))
  assert.match(value, /-b$/)
  assert.deepEqual(seen, [])
})

for (const [shape, bad] of Object.entries(BAD_ROWS)) {
  test(`registerSessionStartWithWarnings returns a row with ${shape}, sync and async`, async () => {
    const { root, text } = writeIndex(GOOD, bad)
    const memory = new AgentMemory(root, { fixedTime: '2026-05-25T13:18:00+08:00' })
    const { value: start, seen } = await warningsOf(() => memory.registerSessionStartWithWarnings('hook'))
    assert.deepEqual(seen, [], 'the …WithWarnings form returns them and emits nothing')
    assert.equal(start.sessionId, '2026-05-25-1318-hook')
    assert.equal(start.warnings.length, 1)
    const [record] = start.warnings
    assert.deepEqual(Object.keys(record), ['path', 'line', 'message'])
    assert.equal(record.path, memory.indexPath)
    assert.equal(record.line, 6)
    assert.ok(record.message.length > 0 && !record.message.includes('\n'))
    const after = readFileSync(memory.indexPath, 'utf8')
    assert.ok(after.startsWith(text), 'the bad row stays byte-identical')
    assert.equal(after.split('\n')[5], bad)
    assert.ok(after.split('\n')[6].startsWith('| 2026-05-25-1318-hook | hook |'))

    const later = await memory.registerSessionStartWithWarningsAsync('late')
    assert.deepEqual(later.warnings, start.warnings)
  })

  test(`registerSessionStart emits a MemoryCoreWarning for a row with ${shape}`, async () => {
    const { root } = writeIndex(GOOD, bad)
    const memory = new AgentMemory(root)
    const [expected] = memory.registerSessionStartWithWarnings('probe').warnings
    for (const run of [() => memory.registerSessionStart('hook'), () => memory.registerSessionStartAsync('hook')]) {
      const { value: id, seen } = await warningsOf(run)
      assert.equal(typeof id, 'string')
      assert.equal(seen.length, 1)
      const [warning] = seen
      assert.ok(warning instanceof Error)
      assert.equal(warning.name, 'MemoryCoreWarning')
      assert.equal(warning.code, 'MEMCORE_UNREADABLE_ROW')
      assert.equal(warning.path, memory.indexPath)
      assert.equal(warning.line, 6)
      assert.equal(warning.message, `${expected.path}:${expected.line}: ${expected.message}`)
      assert.ok(readFileSync(memory.indexPath, 'utf8').trimEnd().split('\n').at(-1).startsWith(`| ${id} | hook |`))
    }
  })
}

test('every bad row is reported in file order', async () => {
  const other = GOOD.replace('0000-a | a', '0000-c | c')
  const { root } = writeIndex(GOOD, BAD_ROWS['missing cells'], other, BAD_ROWS['unknown status'])
  const memory = new AgentMemory(root)
  const start = await memory.registerSessionStartWithWarningsAsync('hook')
  assert.deepEqual(start.warnings.map((w) => [w.path, w.line]), [[memory.indexPath, 6], [memory.indexPath, 8]])
  const { seen } = await warningsOf(() => memory.registerSessionStart('hook'))
  assert.deepEqual(seen.map((w) => w.line), [6, 8])
})

const HEADER_ROW = HEADER.split('\n')[2]
const BROKEN_TABLES = {
  'table in a callout': [
    `# Memory Index\n\n> [!note] Sessions\n> ${HEADER_ROW}\n> |---|---|---|---|---|---|---|---|---|\n> ${GOOD}\n`,
    4,
  ],
  'rows cut off from the table': [`${HEADER}${GOOD}\n\n${GOOD.replace('0000-a', '0000-b')}\n`, 7],
}

for (const [shape, [text, line]] of Object.entries(BROKEN_TABLES)) {
  test(`a ${shape} still throws ERR_MEMORY_MALFORMED from every SessionStart form`, async () => {
    const root = memoryRoot()
    mkdirSync(root)
    const index = join(root, 'index.md')
    writeFileSync(index, text)
    const memory = new AgentMemory(root)
    const malformed = { code: 'ERR_MEMORY_MALFORMED', path: index, line }
    for (const name of ['registerSessionStart', 'registerSessionStartWithWarnings']) {
      assert.throws(() => memory[name]('hook'), malformed)
      await assert.rejects(memory[`${name}Async`]('hook'), malformed)
    }
    assert.equal(readFileSync(index, 'utf8'), text)
  })
}

test('organize reports temp files it removed, orphan snapshots, leftovers and unreadable snapshots', async () => {
  const { root, text } = writeIndex(GOOD, GOOD.replace('0000-a | a', '0000-u | u'))
  const sessions = join(root, 'sessions')
  mkdirSync(sessions)
  const unreadable = join(sessions, '2026-01-01-0000-u.md')
  const junk = Buffer.from('# Session\n\xff\xfe not UTF-8\n', 'latin1')
  writeFileSync(unreadable, junk)
  const orphan = join(sessions, '2026-01-01-0000-z.md')
  writeFileSync(orphan, '# A snapshot without a row\n')
  const temps = [join(root, '.index.md.tmp-999999-0'), join(sessions, '.2026-01-01-0000-a.md.tmp-999999-1')].sort()
  const leftovers = [join(root, 'index.md~'), join(sessions, 'notes.swp'), join(root, '.#index.md')].sort()
  for (const path of [...temps, ...leftovers]) writeFileSync(path, 'half a write')
  const memory = new AgentMemory(root, { fixedTime: '2026-01-02T00:00:00+00:00' })

  const preview = memory.organize({ dryRun: true })
  assert.equal(preview.unreadable.length, 1)
  assert.equal(preview.unreadable[0].path, unreadable)
  assert.deepEqual(preview, {
    deletedIdle: [],
    markedStale: [],
    keptActive: ['2026-01-01-0000-a', '2026-01-01-0000-u'],
    protected: [],
    removedTempFiles: temps,
    orphanSnapshots: [orphan],
    leftoverFiles: leftovers,
    unreadable: [{ path: unreadable, line: preview.unreadable[0].line, message: preview.unreadable[0].message }],
    dryRun: true,
  })
  assert.ok(temps.every(existsSync), 'a dry run removes nothing')

  const report = await memory.organizeAsync()
  assert.deepEqual(report, { ...preview, dryRun: false })
  assert.ok(!temps.some(existsSync))
  assert.ok([orphan, ...leftovers].every(existsSync), 'reported, never deleted')
  assert.deepEqual(readFileSync(unreadable), junk)
  assert.equal(readFileSync(memory.indexPath, 'utf8'), text)
  const again = memory.organize()
  assert.deepEqual(again.removedTempFiles, [])
  assert.deepEqual([again.orphanSnapshots, again.leftoverFiles], [[orphan], leftovers])
})

// Unreadable snapshot bytes of another session, with the line of the problem.
const UNREADABLE = {
  'invalid UTF-8': [Buffer.from('# Session\n\n\xff\xfe broken\n', 'latin1'), 3, /UTF-8/],
  'a NUL byte': [Buffer.from('# Session\n\x00\x01binary', 'latin1'), 2, /NUL/],
  'a cut multi-byte character': [Buffer.from([0xc3]), 1, /UTF-8/],
}

for (const [name, [junk, line, gist]] of Object.entries(UNREADABLE)) {
  test(`archive goes on past a snapshot with ${name} and lists it, sync and async`, async () => {
    const memory = new AgentMemory(memoryRoot())
    const broken = memory.registerManual({ agentName: 'broken', topic: 'T', summary: 'S.' })
    const one = memory.registerManual({ agentName: 'one', topic: 'T', summary: 'S.' })
    const two = memory.registerManual({ agentName: 'two', topic: 'T', summary: 'S.' })
    const path = memory.sessionPath(broken)
    writeFileSync(path, junk)
    const { value: archived, seen } = await warningsOf(() => memory.archive(one))
    assert.deepEqual(seen, [], 'returned, not emitted')
    assert.equal(archived.outcome, 'archived')
    assert.equal(archived.warnings.length, 1)
    const [record] = archived.warnings
    assert.deepEqual(Object.keys(record), ['path', 'line', 'message'])
    assert.equal(record.path, path)
    assert.equal(record.line, line)
    assert.match(record.message, gist)
    const later = await memory.archiveAsync(two)
    assert.deepEqual(later.warnings, archived.warnings)
    assert.deepEqual(readFileSync(path), junk, 'left byte-identical')
    assert.deepEqual(
      memory.sessions().map((r) => r.sessionId),
      [broken],
    )
    // The broken session itself still fails typed, naming its file and line.
    assert.throws(() => memory.archive(broken), { code: 'ERR_MEMORY_MALFORMED', path, line })
  })
}

test('a deleted placeholder lists every unreadable snapshot in path order', async () => {
  const memory = new AgentMemory(memoryRoot())
  const broken = ['c', 'a', 'b'].map((agentName) => memory.registerManual({ agentName, topic: 'T', summary: 'S.' }))
  for (const id of broken) writeFileSync(memory.sessionPath(id), Buffer.from('ok\n\x00', 'latin1'))
  const idle = memory.registerSessionStart('idle')
  const deleted = await memory.archiveAsync(idle)
  assert.equal(deleted.outcome, 'deleted')
  assert.deepEqual(
    deleted.warnings.map((w) => w.path),
    broken.map((id) => memory.sessionPath(id)).sort(),
  )
  assert.ok(deleted.warnings.every((w) => w.line === 2))
})

test('an unreadable snapshot that may mention the session still stops its archive', () => {
  const memory = new AgentMemory(memoryRoot())
  const source = memory.registerManual({ agentName: 'source', topic: 'T', summary: 'S.' })
  const broken = memory.registerManual({ agentName: 'broken', topic: 'T', summary: 'S.' })
  const path = memory.sessionPath(broken)
  writeFileSync(path, Buffer.concat([Buffer.from(`# Session\n\n## Continues From\n\n- ${source}\n`), Buffer.from([0xff])]))
  assert.throws(() => memory.archive(source), { code: 'ERR_MEMORY_MALFORMED', path })
  assert.equal(memory.session(source).sessionId, source, 'nothing archived')
})

/** A structured-memory root whose MEMORY.md is a symbolic link into dotfiles/. */
function linkedIndex() {
  const base = tempDir()
  const root = join(base, 'memory')
  mkdirSync(join(base, 'dotfiles'))
  mkdirSync(root)
  writeFileSync(join(base, 'dotfiles', 'MEMORY.md'), '- [Infra](memory-infra.md) — hosts, deploys\n')
  writeFileSync(join(root, 'memory-infra.md'), '- 2026-07-01: db1\n')
  symlinkSync('../dotfiles/MEMORY.md', join(root, 'MEMORY.md'))
  return root
}

test('recall emits what memcore topics recall prints on stderr; recallWithWarnings returns it', async () => {
  const root = linkedIndex()
  const memory = new StructuredMemory(root)
  const { value: answer, seen: none } = await warningsOf(() => memory.recallWithWarnings('hosts'))
  assert.deepEqual(none, [], 'the …WithWarnings form returns them and emits nothing')
  assert.deepEqual(Object.keys(answer), ['hits', 'warnings'])
  assert.deepEqual(answer.hits.map((h) => h.file), ['memory-infra.md'])
  assert.equal(answer.warnings.length, 1)
  const [message] = answer.warnings
  assert.match(message, /MEMORY\.md is a symbolic link to \.\.\/dotfiles\/MEMORY\.md/)
  assert.deepEqual(await memory.recallWithWarningsAsync('hosts'), answer)
  for (const form of ['recall', 'recallAsync']) {
    const { value: hits, seen } = await warningsOf(() => memory[form]('hosts'))
    assert.deepEqual(hits, answer.hits, form)
    assert.equal(seen.length, 1, form)
    const [warning] = seen
    assert.equal(warning.name, 'MemoryCoreWarning')
    assert.equal(warning.code, 'MEMCORE_RECALL_WARNING')
    assert.equal(warning.path, join(root, 'MEMORY.md'))
    assert.equal(warning.line, 0)
    assert.equal(warning.message, `${join(root, 'MEMORY.md')}:0: ${message}`)
  }
})

test('recall of a plain index warns of nothing', async () => {
  const root = memoryRoot()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '- [Infra](memory-infra.md) — hosts\n')
  writeFileSync(join(root, 'memory-infra.md'), '- 2026-07-01: db1\n')
  const memory = new StructuredMemory(root)
  const { value: hits, seen } = await warningsOf(() => memory.recallAsync('hosts'))
  assert.deepEqual(hits.map((h) => h.file), ['memory-infra.md'])
  assert.deepEqual(seen, [])
  assert.deepEqual(memory.recallWithWarnings('hosts'), { hits, warnings: [] })
  assert.deepEqual(memory.recallWithWarnings('nothing'), { hits: [], warnings: [] })
})

test('recall warns of each hit whose topic file is missing, at its index line, and keeps the hit', async () => {
  const root = memoryRoot()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '# Memory\n\n- [Infra](memory-infra.md) — hosts\n- [Gone](memory-gone.md) — old hosts\n')
  writeFileSync(join(root, 'memory-infra.md'), '- 2026-07-01: db1\n')
  const memory = new StructuredMemory(root)
  const answer = memory.recallWithWarnings('hosts')
  assert.deepEqual(answer.hits.map((h) => h.file), ['memory-infra.md', 'memory-gone.md'], 'the dangling hit is kept')
  assert.equal(answer.warnings.length, 1)
  assert.match(answer.warnings[0], /^MEMORY\.md line 4 links memory-gone\.md, which does not exist/)
  for (const form of ['recall', 'recallAsync']) {
    const { value: hits, seen } = await warningsOf(() => memory[form]('hosts'))
    assert.deepEqual(hits, answer.hits, form)
    assert.equal(seen.length, 1, form)
    const [warning] = seen
    assert.equal(warning.name, 'MemoryCoreWarning')
    assert.equal(warning.code, 'MEMCORE_RECALL_WARNING')
    assert.equal(warning.path, join(root, 'MEMORY.md'))
    assert.equal(warning.line, 4)
    assert.equal(warning.message, `${join(root, 'MEMORY.md')}:4: ${answer.warnings[0]}`)
  }
  const { seen } = await warningsOf(() => memory.recall('infra'))
  assert.deepEqual(seen, [], 'a hit on disk warns of nothing')
})
