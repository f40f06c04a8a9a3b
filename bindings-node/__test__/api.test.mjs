// Every AgentMemory operation, in its sync form and its Promise form.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { AgentMemory, memoryRoot } from './helpers.mjs'

const ID = /^\d{4}-\d{2}-\d{2}-\d{4}-[a-z-]+(-\d+)?$/
const HEADER =
  '| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n' +
  '|---|---|---|---|---|---|---|---|---|\n'

test('the constructor opens a root lazily; root and indexPath name it', () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root)
  assert.equal(memory.root, root)
  assert.equal(memory.indexPath, join(root, 'index.md'))
  assert.equal(existsSync(root), false, 'nothing is created before the first write')
  const withOptions = new AgentMemory(root, { lockTimeoutMs: 250 })
  assert.equal(withOptions.root, root)
  assert.deepEqual(withOptions.sessions(), [])
})

test('fixedTime stops the clock for ids and every timestamp, sync and async', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root, { fixedTime: '2026-05-25T13:18:00+08:00', lockTimeoutMs: 1000 })
  const idle = memory.registerSessionStart('cursor-main-agent')
  assert.equal(idle, '2026-05-25-1318-cursor-main-agent')
  assert.equal(await memory.registerSessionStartAsync('cursor-main-agent'), `${idle}-2`)
  const row = memory.session(idle)
  assert.equal(row.startedAt, '2026-05-25T13:18:00+08:00')
  assert.equal(row.updatedAt, '2026-05-25T13:18:00+08:00')

  const later = new AgentMemory(root, { fixedTime: '2026-06-01T08:05:30Z' })
  const manual = await later.registerManualAsync({ agentName: 'a', topic: 'Login', summary: 'Fixed it.' })
  assert.equal(manual, '2026-06-01-0805-a', 'the id uses the fixed time in its own offset')
  const snapshot = later.snapshot(manual)
  assert.equal(snapshot.startedAt, '2026-06-01T08:05:30+00:00')
  assert.equal(snapshot.updatedAt, '2026-06-01T08:05:30+00:00')
  const updated = later.update(idle, { summary: 'Now real work.' })
  assert.equal(updated.startedAt, '2026-05-25T13:18:00+08:00', 'startedAt is kept')
  assert.equal(updated.updatedAt, '2026-06-01T08:05:30+00:00')
  assert.equal((await later.snapshotAsync(idle)).updatedAt, '2026-06-01T08:05:30+00:00')
  const text = readFileSync(memory.indexPath, 'utf8')
  assert.match(text, /\| 2026-05-25T13:18:00\+08:00 \| 2026-06-01T08:05:30\+00:00 \|/)
})

test('sessionPath and archiveDir, sync and async', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root)
  const id = '2026-05-25-1318-cursor-main-agent'
  assert.equal(memory.sessionPath(id), join(root, 'sessions', `${id}.md`))
  assert.equal(await memory.sessionPathAsync(id), join(root, 'sessions', `${id}.md`))
  assert.equal(memory.archiveDir(id), join(root, 'archive', id))
  assert.equal(await memory.archiveDirAsync(id), join(root, 'archive', id))
})

test('registerSessionStart appends an idle row without snapshot, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const first = memory.registerSessionStart('cursor-main-agent')
  const second = await memory.registerSessionStartAsync('cursor-main-agent')
  assert.match(first, ID)
  assert.match(second, ID)
  assert.notEqual(first, second)
  for (const id of [first, second]) {
    const row = memory.session(id)
    assert.equal(row.sessionId, id)
    assert.equal(row.agentName, 'cursor-main-agent')
    assert.equal(row.status, 'idle')
    assert.equal(row.topic, '未設定')
    assert.equal(row.summary, 'sessionStart 自動註冊，尚未整理主題。')
    assert.deepEqual(row.keywords, ['sessionStart', 'cursor-agent'])
    assert.deepEqual(row.referencedBy, [])
    assert.equal(row.startedAt, row.updatedAt)
    assert.equal(memory.snapshot(id), null)
    assert.equal(await memory.snapshotAsync(id), null)
    assert.equal(existsSync(memory.sessionPath(id)), false)
  }
})

test('registerManual writes the snapshot and the active row, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const source = memory.registerManual({
    agentName: 'cursor-main-agent',
    topic: 'Login bug',
    summary: 'Found the session-cookie bug.',
  })
  const id = await memory.registerManualAsync({
    agentName: 'review-agent',
    topic: 'Login follow-up',
    summary: 'Reviewing the fix.',
    keywords: ['login', 'review'],
    context: 'The fix is in review.',
    decisions: ['Rotate cookies on login'],
    files: ['src/auth.rs'],
    openQuestions: ['Do we need a migration?'],
    nextActions: ['Merge the fix'],
    continuesFrom: [source],
  })
  const sourceRow = memory.session(source)
  assert.equal(sourceRow.status, 'active')
  assert.deepEqual(sourceRow.keywords, ['manual-registration', 'cursor-agent', 'session-snapshot'])
  assert.deepEqual(sourceRow.referencedBy, [id])

  const row = await memory.sessionAsync(id)
  assert.equal(row.status, 'active')
  assert.equal(row.agentName, 'review-agent')
  assert.equal(row.topic, 'Login follow-up')
  assert.equal(row.summary, 'Reviewing the fix.')
  assert.deepEqual(row.keywords, ['login', 'review'])

  const snapshot = memory.snapshot(id)
  assert.equal(snapshot.sessionId, id)
  assert.equal(snapshot.agentName, 'review-agent')
  assert.equal(snapshot.topic, 'Login follow-up')
  assert.equal(snapshot.status, 'active')
  assert.match(snapshot.currentContext, /The fix is in review\./)
  assert.deepEqual(snapshot.decisions, [{ text: 'Rotate cookies on login', mark: null }])
  assert.deepEqual(snapshot.files, [{ text: 'src/auth.rs', mark: null }])
  assert.deepEqual(snapshot.openQuestions, [{ text: 'Do we need a migration?', mark: null }])
  assert.deepEqual(snapshot.nextActions, [{ text: 'Merge the fix', mark: null }])
  assert.deepEqual(snapshot.continuesFrom, [source])
  assert.deepEqual(snapshot.supersededResolved, [])
  assert.deepEqual(snapshot.otherSections, [])
  assert.ok(existsSync(memory.sessionPath(id)))
})

test('update merges into the snapshot and marks items, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const id = memory.registerSessionStart('cursor-main-agent')
  const row = memory.update(id, {
    topic: 'Login bug',
    summary: 'Found the session-cookie bug.',
    keywords: ['login', 'cookies'],
    context: 'Reproduced on staging.',
    decisions: ['Use bcrypt'],
    files: ['src/auth.rs'],
    openQuestions: ['Which browsers?'],
    nextActions: ['Reproduce the bug'],
  })
  assert.equal(row.sessionId, id)
  assert.equal(row.status, 'active')
  assert.equal(row.topic, 'Login bug')
  assert.equal(row.summary, 'Found the session-cookie bug.')
  assert.deepEqual(row.keywords, ['login', 'cookies'])

  const after = await memory.updateAsync(id, {
    context: 'Fix in review.',
    decisions: ['Use argon2id'],
    supersede: ['Use bcrypt'],
    resolve: ['Which browsers?'],
    done: ['Reproduce the bug'],
  })
  assert.equal(after.status, 'active')
  assert.equal(after.topic, 'Login bug', 'omitted fields are kept')

  const snapshot = await memory.snapshotAsync(id)
  assert.match(snapshot.currentContext, /Reproduced on staging\.[\s\S]*Fix in review\./)
  assert.deepEqual(snapshot.decisions, [
    { text: 'Use bcrypt', mark: 'superseded' },
    { text: 'Use argon2id', mark: null },
  ])
  assert.deepEqual(snapshot.openQuestions, [{ text: 'Which browsers?', mark: 'resolved' }])
  assert.deepEqual(snapshot.nextActions, [{ text: 'Reproduce the bug', mark: 'done' }])
  assert.deepEqual(snapshot.files, [{ text: 'src/auth.rs', mark: null }])

  const empty = memory.update(id, {})
  assert.equal(empty.topic, 'Login bug')
})

test('continueFrom and release link and unlink both sides, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const source = memory.registerManual({ agentName: 'a', topic: 'Login', summary: 'Fixed it.' })
  const current = memory.registerSessionStart('b')
  const other = memory.registerSessionStart('c')

  const outcome = memory.continueFrom(current, source)
  assert.equal(outcome.current.sessionId, current)
  assert.equal(outcome.current.status, 'active')
  assert.equal(outcome.source.sessionId, source)
  assert.deepEqual(outcome.source.referencedBy, [current])
  assert.deepEqual(memory.snapshot(current).continuesFrom, [source])

  const viaAsync = await memory.continueFromAsync(other, source)
  assert.deepEqual(viaAsync.source.referencedBy, [current, other])

  assert.deepEqual(memory.release(current, source), {
    current,
    source,
    referencedByUpdated: true,
    continuesFromUpdated: true,
  })
  assert.deepEqual(await memory.releaseAsync(other, source), {
    current: other,
    source,
    referencedByUpdated: true,
    continuesFromUpdated: true,
  })
  assert.deepEqual(await memory.releaseAsync(other, source), {
    current: other,
    source,
    referencedByUpdated: false,
    continuesFromUpdated: false,
  })
  assert.deepEqual(memory.session(source).referencedBy, [])
  assert.deepEqual(memory.snapshot(current).continuesFrom, [])
})

test('organize reports, deletes idle rows and marks overdue rows stale, sync and async', async () => {
  const root = memoryRoot()
  mkdirSync(root)
  writeFileSync(
    join(root, 'index.md'),
    '# Memory Index\n\n' +
      HEADER +
      '| 2020-01-01-0900-old | old | Old work | Shipped the old feature. | old | active | - | 2020-01-01T09:00:00+00:00 | 2020-01-02T09:00:00+00:00 |\n',
  )
  const memory = new AgentMemory(root)
  const idle = memory.registerSessionStart('cursor-main-agent')
  const fresh = memory.registerManual({ agentName: 'a', topic: 'New', summary: 'Started.' })

  const dry = memory.organize({ dryRun: true })
  assert.deepEqual(dry, {
    deletedIdle: [idle],
    markedStale: ['2020-01-01-0900-old'],
    keptActive: [fresh],
    protected: [],
    removedTempFiles: [],
    orphanSnapshots: [],
    leftoverFiles: [],
    unreadable: [],
    dryRun: true,
  })
  assert.equal(memory.sessions().length, 3, 'a dry run writes nothing')

  const report = await memory.organizeAsync({ staleAfterDays: 14 })
  assert.deepEqual(report, { ...dry, dryRun: false })
  assert.equal(memory.session('2020-01-01-0900-old').status, 'stale')
  assert.equal(memory.session('2020-01-01-0900-old').updatedAt, '2020-01-02T09:00:00+00:00')

  assert.deepEqual(memory.organize(), {
    deletedIdle: [],
    markedStale: [],
    keptActive: [fresh],
    protected: [],
    removedTempFiles: [],
    orphanSnapshots: [],
    leftoverFiles: [],
    unreadable: [],
    dryRun: false,
  })
  assert.deepEqual(await memory.organizeAsync(), memory.organize({ dryRun: false }))
})

test('archive moves a snapshot into the archive or deletes a placeholder, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const source = memory.registerManual({ agentName: 'a', topic: 'Login', summary: 'Fixed it.' })
  const worker = memory.registerManual({
    agentName: 'b',
    topic: 'More',
    summary: 'Went on.',
    continuesFrom: [source],
  })
  const idle = memory.registerSessionStart('c')

  const archived = memory.archive(worker)
  const dir = memory.archiveDir(worker)
  assert.deepEqual(archived, {
    outcome: 'archived',
    sessionId: worker,
    archiveIndex: join(dir, 'index.md'),
    sessionFile: join(dir, 'session.md'),
    releasedFrom: [source],
    warnings: [],
  })
  assert.ok(existsSync(archived.sessionFile))
  assert.equal(existsSync(memory.sessionPath(worker)), false)
  assert.deepEqual(memory.session(source).referencedBy, [])

  assert.deepEqual(await memory.archiveAsync(idle), {
    outcome: 'deleted',
    sessionId: idle,
    archiveIndex: null,
    sessionFile: null,
    releasedFrom: [],
    warnings: [],
  })
  const last = await memory.archiveAsync(source)
  assert.equal(last.outcome, 'archived')
  assert.deepEqual(memory.sessions(), [])
})

test('sessions, sessionsWithStatus and find list rows in reading order, sync and async', async () => {
  const memory = new AgentMemory(memoryRoot())
  const idle = memory.registerSessionStart('cursor-main-agent')
  const login = memory.registerManual({ agentName: 'a', topic: 'Login bug', summary: 'Fixed it.' })
  const payments = memory.registerManual({
    agentName: 'b',
    topic: 'Payments',
    summary: 'Refunds.',
    keywords: ['stripe'],
  })

  const rows = memory.sessions()
  assert.deepEqual(rows.map((r) => r.sessionId).slice(-1), [idle], 'idle placeholders come last')
  assert.deepEqual(new Set(rows.map((r) => r.sessionId)), new Set([idle, login, payments]))
  assert.deepEqual(await memory.sessionsAsync(), rows)

  assert.deepEqual(memory.sessionsWithStatus('idle').map((r) => r.sessionId), [idle])
  assert.deepEqual(
    new Set((await memory.sessionsWithStatusAsync('active')).map((r) => r.sessionId)),
    new Set([login, payments]),
  )
  assert.deepEqual(memory.sessionsWithStatus('stale'), [])

  assert.deepEqual(memory.find('LOGIN').map((r) => r.sessionId), [login])
  assert.deepEqual((await memory.findAsync('stripe')).map((r) => r.sessionId), [payments])
  assert.deepEqual(memory.find('nothing like this'), [])
})
