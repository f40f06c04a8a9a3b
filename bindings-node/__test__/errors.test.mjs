// Every error code, thrown by the sync form and rejected by the Promise form alike,
// with the structured fields the core reports.
import assert from 'node:assert/strict'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { AgentMemory, assertFailsBoth, holdLock, memoryRoot, tempDir } from './helpers.mjs'

const HEADER =
  '| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n' +
  '|---|---|---|---|---|---|---|---|---|\n'

test('ERR_MEMORY_INVALID_INPUT: a path-like session id, a bad name, status or option', async () => {
  const memory = new AgentMemory(memoryRoot())
  await assertFailsBoth((form) => memory[`session${form}`]('../x'), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /session id "\.\.\/x"/,
  })
  await assertFailsBoth((form) => memory[`archive${form}`]('../x'), { code: 'ERR_MEMORY_INVALID_INPUT' })
  await assertFailsBoth((form) => memory[`registerSessionStart${form}`]('fix the login bug'), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /agent name/,
  })
  await assertFailsBoth((form) => memory[`sessionsWithStatus${form}`]('closed'), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /status "closed"/,
  })
  await assertFailsBoth((form) => memory[`organize${form}`]({ staleAfterDays: -1 }), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /staleAfterDays/,
  })
  await assertFailsBoth((form) => memory[`sessionPath${form}`]('a/b'), { code: 'ERR_MEMORY_INVALID_INPUT' })
  await assertFailsBoth((form) => memory[`archiveDir${form}`]('..'), { code: 'ERR_MEMORY_INVALID_INPUT' })
  const id = memory.registerSessionStart('a')
  await assertFailsBoth((form) => memory[`continueFrom${form}`](id, id), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /cannot continue from itself/,
    sessionId: id,
  })
})

test('ERR_MEMORY_INVALID_INPUT: continuing from itself and an empty item to mark carry sessionId', async () => {
  const memory = new AgentMemory(memoryRoot())
  const id = memory.registerSessionStart('a')
  for (const sid of [id, '2020-01-01-0000-x']) {
    await assertFailsBoth((form) => memory[`continueFrom${form}`](sid, sid), {
      code: 'ERR_MEMORY_INVALID_INPUT',
      message: new RegExp(`^invalid source session "${sid}": a session cannot continue from itself$`),
      sessionId: sid,
    })
  }
  await assertFailsBoth((form) => memory[`update${form}`](id, { done: [' '] }), {
    code: 'ERR_MEMORY_INVALID_INPUT',
    message: /must not be empty/,
    sessionId: id,
  })
  // Any text of an update the core refuses names the session it was meant for.
  for (const update of [{ decisions: ['a\u001bb'] }, { topic: 't\u0000' }, { keywords: ['a,b'] }, { keywords: ['a<br>b'] }]) {
    await assertFailsBoth((form) => memory[`update${form}`](id, update), {
      code: 'ERR_MEMORY_INVALID_INPUT',
      sessionId: id,
    })
  }
})

test('ERR_MEMORY_INVALID_INPUT: the constructor rejects a root that is a file and a bad lockTimeoutMs', () => {
  const file = join(tempDir(), 'not-a-dir')
  writeFileSync(file, 'x')
  assert.throws(() => new AgentMemory(file), (err) => {
    assert.ok(err instanceof Error)
    assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
    assert.match(err.message, /is not a directory/)
    return true
  })
  assert.throws(() => new AgentMemory(''), { code: 'ERR_MEMORY_INVALID_INPUT' })
  for (const lockTimeoutMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new AgentMemory(memoryRoot(), { lockTimeoutMs }), {
      code: 'ERR_MEMORY_INVALID_INPUT',
      message: /lockTimeoutMs/,
    })
  }
})

test('ERR_MEMORY_INVALID_INPUT: the constructor rejects a fixedTime that is not RFC 3339, and writes nothing', () => {
  const root = memoryRoot()
  for (const fixedTime of ['', 'now', '2026-05-25', '2026-05-25 13:18', '2026-05-25T13:18:00', '2026-13-01T00:00:00Z']) {
    assert.throws(() => new AgentMemory(root, { fixedTime }), (err) => {
      assert.ok(err instanceof Error)
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT', `${JSON.stringify(fixedTime)}: ${err.message}`)
      assert.match(err.message, /fixed time/)
      assert.ok(err.message.includes(JSON.stringify(fixedTime)), err.message)
      return true
    })
  }
  assert.equal(existsSync(root), false)
})

test('ERR_MEMORY_NOT_FOUND: an unknown session or snapshot item, with path and sessionId', async () => {
  const memory = new AgentMemory(memoryRoot())
  const id = memory.registerManual({ agentName: 'a', topic: 'Login', summary: 'Fixed it.', decisions: ['Use argon2'] })
  const unknown = '2026-01-01-0000-nobody'
  const notFound = { code: 'ERR_MEMORY_NOT_FOUND', path: memory.indexPath, sessionId: unknown }
  await assertFailsBoth((form) => memory[`session${form}`](unknown), notFound)
  await assertFailsBoth((form) => memory[`update${form}`](unknown, { summary: 'x' }), notFound)
  await assertFailsBoth((form) => memory[`archive${form}`](unknown), notFound)
  await assertFailsBoth((form) => memory[`continueFrom${form}`](id, unknown), notFound)
  await assertFailsBoth((form) => memory[`release${form}`](unknown, id), notFound)
  await assertFailsBoth(
    (form) => memory[`registerManual${form}`]({ agentName: 'b', topic: 't', summary: 's', continuesFrom: [unknown] }),
    notFound,
  )
  await assertFailsBoth((form) => memory[`update${form}`](id, { supersede: ['Use bcrypt'] }), {
    code: 'ERR_MEMORY_NOT_FOUND',
    path: memory.sessionPath(id),
    sessionId: id,
    message: /Use bcrypt/,
  })
})

test('ERR_MEMORY_CONFLICT: archiving a referenced session, and a duplicate row', async () => {
  const memory = new AgentMemory(memoryRoot())
  const source = memory.registerManual({ agentName: 'a', topic: 'Login', summary: 'Fixed it.' })
  const current = memory.registerSessionStart('b')
  memory.continueFrom(current, source)
  await assertFailsBoth((form) => memory[`archive${form}`](source), {
    code: 'ERR_MEMORY_CONFLICT',
    path: memory.indexPath,
    sessionId: source,
    message: new RegExp(`referenced by ${current}`),
  })
  assert.equal(memory.session(source).sessionId, source, 'the refused archive changed nothing')

  const root = memoryRoot()
  mkdirSync(root)
  const row = '| s-1 | a | t | s | k | active | - | 2026-05-25T13:18:00+08:00 | 2026-05-25T13:18:00+08:00 |\n'
  writeFileSync(join(root, 'index.md'), `# Memory Index\n\n${HEADER}${row}${row}`)
  const duplicated = new AgentMemory(root)
  await assertFailsBoth((form) => duplicated[`sessions${form}`](), {
    code: 'ERR_MEMORY_CONFLICT',
    path: duplicated.indexPath,
    line: 6,
    sessionId: 's-1',
  })
})

test('ERR_MEMORY_MALFORMED: a row with missing cells names the file and line', async () => {
  const root = memoryRoot()
  mkdirSync(root)
  const text = `# Memory Index\n\n${HEADER}| s-1 | a | t |\n`
  writeFileSync(join(root, 'index.md'), text)
  const memory = new AgentMemory(root)
  const malformed = {
    code: 'ERR_MEMORY_MALFORMED',
    path: memory.indexPath,
    line: 5,
    message: /3 cells, expected 9/,
  }
  await assertFailsBoth((form) => memory[`sessions${form}`](), malformed)
  await assertFailsBoth((form) => memory[`find${form}`]('x'), malformed)
  await assertFailsBoth((form) => memory[`organize${form}`](), malformed)
  assert.equal(readFileSync(memory.indexPath, 'utf8'), text, 'nothing was written')

  // SessionStart registers beside the row, names it, and leaves it byte-identical.
  const start = memory.registerSessionStartWithWarnings('a')
  assert.deepEqual(start.warnings, [{ path: memory.indexPath, line: 5, message: start.warnings[0].message }])
  assert.match(start.warnings[0].message, /3 cells, expected 9/)
  const later = await memory.registerSessionStartWithWarningsAsync('b')
  assert.deepEqual(later.warnings, start.warnings)
  const lines = readFileSync(memory.indexPath, 'utf8').split('\n')
  assert.equal(lines[4], '| s-1 | a | t |')
  assert.ok(lines[5].startsWith(`| ${start.sessionId} | a |`))
  assert.ok(lines[6].startsWith(`| ${later.sessionId} | b |`))
  assert.ok(readFileSync(memory.indexPath, 'utf8').startsWith(text))
  await assertFailsBoth((form) => memory[`sessions${form}`](), malformed)
})

test('ERR_MEMORY_LOCK_TIMEOUT: another process holds the memory lock', async () => {
  const root = memoryRoot()
  mkdirSync(root)
  const lockPath = join(root, '.memcore.lock')
  const memory = new AgentMemory(root, { lockTimeoutMs: 200 })
  const holder = await holdLock(lockPath)
  try {
    const timeout = { code: 'ERR_MEMORY_LOCK_TIMEOUT', path: lockPath, message: /timed out/ }
    await assertFailsBoth((form) => memory[`registerSessionStart${form}`]('a'), timeout)
    await assertFailsBoth((form) => memory[`registerManual${form}`]({ agentName: 'a', topic: 't', summary: 's' }), timeout)
    await assertFailsBoth((form) => memory[`organize${form}`](), timeout)

    // The Promise form waits on the thread pool: the event loop keeps running meanwhile.
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    const slow = new AgentMemory(root, { lockTimeoutMs: 400 })
    await assert.rejects(slow.registerSessionStartAsync('a'), { code: 'ERR_MEMORY_LOCK_TIMEOUT' })
    clearInterval(timer)
    assert.ok(ticks >= 10, `the event loop ran only ${ticks} timer ticks during the wait`)
  } finally {
    await holder.release()
  }
  assert.match(memory.registerSessionStart('a'), /-a$/, 'the lock is free again once released')
})

test('ERR_MEMORY_IO: a root below a regular file', async () => {
  const file = join(tempDir(), 'file')
  writeFileSync(file, 'x')
  const root = join(file, 'memory')
  const memory = new AgentMemory(root)
  await assertFailsBoth((form) => memory[`registerSessionStart${form}`]('a'), {
    code: 'ERR_MEMORY_IO',
    path: root,
    message: /Not a directory/,
    errno: 'ENOTDIR',
    syscall: 'mkdir',
  })
  await assertFailsBoth((form) => memory[`sessions${form}`](), {
    code: 'ERR_MEMORY_IO',
    path: join(root, 'index.md'),
    errno: 'ENOTDIR',
    syscall: 'open',
  })
})

test('ERR_MEMORY_IO: a directory where a file should be names the failed call and errno', async () => {
  // The index: it opens (a directory does), and reading it fails.
  const root = memoryRoot()
  mkdirSync(join(root, 'index.md'), { recursive: true })
  const memory = new AgentMemory(root)
  for (const [method, args] of [['sessions', []], ['registerSessionStart', ['a']]]) {
    await assertFailsBoth((form) => memory[`${method}${form}`](...args), {
      code: 'ERR_MEMORY_IO',
      path: join(root, 'index.md'),
      message: /Is a directory/,
      errno: 'EISDIR',
      syscall: 'read',
    })
  }

  // The lock file: opening it for writing fails.
  const locked = memoryRoot()
  mkdirSync(join(locked, '.memcore.lock'), { recursive: true })
  await assertFailsBoth((form) => new AgentMemory(locked)[`registerSessionStart${form}`]('a'), {
    code: 'ERR_MEMORY_IO',
    path: join(locked, '.memcore.lock'),
    errno: 'EISDIR',
    syscall: 'open',
  })

  // A snapshot to be updated: reading it fails, before anything is written.
  const snapshots = memoryRoot()
  const writer = new AgentMemory(snapshots)
  const id = writer.registerSessionStart('a')
  mkdirSync(join(snapshots, 'sessions', `${id}.md`), { recursive: true })
  await assertFailsBoth((form) => writer[`update${form}`](id, { summary: 'x' }), {
    code: 'ERR_MEMORY_IO',
    path: join(snapshots, 'sessions', `${id}.md`),
    errno: 'EISDIR',
    syscall: 'read',
  })
  assert.deepEqual(readdirSync(join(snapshots, 'sessions', `${id}.md`)), [], 'nothing was written into it')
})

test('ERR_MEMORY_INVALID_INPUT: a snapshot that is a symbolic link is refused, and nothing changes', async () => {
  const root = memoryRoot()
  const memory = new AgentMemory(root)
  const id = memory.registerSessionStart('a')
  const link = join(root, 'sessions', `${id}.md`)
  const target = join(tempDir(), 'outside.md')
  const outside = '# outside the root\n\nnot a snapshot\n'
  writeFileSync(target, outside)
  mkdirSync(join(root, 'sessions'), { recursive: true })
  symlinkSync(target, link)
  const index = readFileSync(join(root, 'index.md'))
  const sessions = readdirSync(join(root, 'sessions')).sort()

  for (const call of [
    (form) => memory[`update${form}`](id, { summary: 'x', decisions: ['d'] }),
    (form) => memory[`snapshot${form}`](id),
  ]) {
    await assertFailsBoth(call, { code: 'ERR_MEMORY_INVALID_INPUT', path: link })
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link stays a link')
    assert.equal(readlinkSync(link), target, 'the link still points where it did')
    assert.equal(readFileSync(target, 'utf8'), outside, "the target's bytes are unchanged")
    assert.deepEqual(readFileSync(join(root, 'index.md')), index, 'the index is unchanged')
    assert.deepEqual(readdirSync(join(root, 'sessions')).sort(), sessions, 'no file was added')
  }
})

test('index.d.ts declares exactly the error codes the binding produces', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const union = dts.match(/export type ErrorCode =([^]*?)\n\n/)
  assert.ok(union, 'index.d.ts declares ErrorCode')
  const declared = [...union[1].matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort()
  assert.deepEqual(declared, [
    'ERR_MEMORY_ABORTED',
    'ERR_MEMORY_CONFLICT',
    'ERR_MEMORY_INVALID_INPUT',
    'ERR_MEMORY_IO',
    'ERR_MEMORY_LOCK_TIMEOUT',
    'ERR_MEMORY_MALFORMED',
    'ERR_MEMORY_NOT_FOUND',
  ])
})

test('an error that refuses no text field has no field or secretKind property', () => {
  const memory = new AgentMemory(memoryRoot())
  assert.throws(
    () => memory.session('a/b'),
    (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && !('field' in err) && !('secretKind' in err),
  )
})
