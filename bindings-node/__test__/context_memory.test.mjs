// ContextMemory (context-memory): every method in its sync form and its Promise form, the
// serde-shaped results (snake_case keys, `null` for absent values), the options objects
// (unknown keys refused) and the error mapping.
import assert from 'node:assert/strict'
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { inspect } from 'node:util'

import { ContextMemory, MemoryCoreError } from '../index.js'
import { tempDir } from './helpers.mjs'

const FIXED = '2026-04-03T10:00:00Z'

function open(options = {}) {
  return new ContextMemory(tempDir(), { fixedTime: FIXED, ...options })
}

const jwt = { namespace: 'project.app', category: 'decision', tags: ['auth', 'security'], body: 'Auth uses JWT. Sessions are stateless.' }

/** `call('')` throws and `call('Async')` rejects (never throws) with an error `check` accepts. */
async function failsBoth(call, check) {
  const checked = (err) => {
    assert.ok(err instanceof MemoryCoreError, `expected a MemoryCoreError, got ${err}`)
    check(err)
    return true
  }
  assert.throws(() => call(''), checked)
  let pending
  try {
    pending = call('Async')
  } catch (err) {
    assert.fail(`the Async form threw synchronously: ${err.message}`)
  }
  await assert.rejects(pending, checked)
}

test('write returns the entry as the core serializes it, and get/query read it back in both forms', async () => {
  const memory = open()
  const outcome = memory.write({ ...jwt, rationale: 'Stateless services scale out', confidence: 0.9, sourcePath: 'docs/auth.md' })
  assert.deepEqual(outcome, {
    entry: {
      entity_name: 'project.app.decision.001',
      namespace: 'project.app',
      category: 'decision',
      status: 'accepted',
      tags: ['auth', 'security'],
      summary: 'Auth uses JWT.',
      created_at: FIXED,
      updated_at: FIXED,
      supersedes: [],
      rationale: 'Stateless services scale out',
      confidence: 0.9,
      source_path: 'docs/auth.md',
      related_entities: [],
      diagram: null,
      body: 'Auth uses JWT. Sessions are stateless.',
      file: 'projects/app/decision-001-auth-uses-jwt.md',
    },
    namespace_entries: 1,
    over_threshold: false,
    body: { bytes: 38, sentences: 2, flags: [] },
  })
  assert.ok(existsSync(join(memory.root, outcome.entry.file)))
  const second = await memory.writeAsync({
    namespace: 'project.app',
    category: 'risk',
    tags: ['ops', 'pager'],
    body: 'The rota is thin. ' + 'x'.repeat(10),
    status: 'experimental',
    summary: 'Thin rota',
    slug: 'rota',
    related: ['project.app.decision.001'],
  })
  assert.equal(second.entry.entity_name, 'project.app.risk.rota', 'the slug is the short id')
  assert.equal(second.entry.status, 'experimental')
  assert.equal(second.entry.summary, 'Thin rota')
  assert.deepEqual(second.entry.related_entities, ['project.app.decision.001'])
  assert.equal(second.namespace_entries, 2)

  assert.deepEqual(memory.get('project.app.decision.001'), outcome.entry)
  assert.deepEqual(await memory.getAsync('project.app.decision.001'), outcome.entry)

  const hits = memory.query({ tags: ['auth'] })
  assert.deepEqual(hits, [
    {
      entity_name: 'project.app.decision.001',
      namespace: 'project.app',
      category: 'decision',
      status: 'accepted',
      tags: ['auth', 'security'],
      summary: 'Auth uses JWT.',
      created_at: FIXED,
      updated_at: FIXED,
      supersedes: [],
      file: 'projects/app/decision-001-auth-uses-jwt.md',
      tag_overlap: 1,
    },
  ])
  assert.deepEqual(await memory.queryAsync({ tags: ['auth'] }), hits)
  assert.equal(memory.query().length, 2)
  assert.equal((await memory.queryAsync(undefined, {})).length, 2)
  assert.deepEqual(memory.query({ namespaces: ['project.app'], category: 'risk', limit: 5 }).map((h) => h.entity_name), ['project.app.risk.rota'])
  assert.equal(memory.query({ text: 'ROTA' }).length, 1)
  assert.equal(memory.query({ limit: 0 }).length, 0)
})

test('a diagram entry round-trips its Mermaid code', () => {
  const memory = open()
  const { entry } = memory.write({
    namespace: 'org.global',
    category: 'diagram',
    tags: ['arch', 'overview'],
    body: 'The services and their calls.',
    // Code ending in a newline: the file keeps the block's last line break, and `write` returns
    // the code as given (a code without one reads back with it).
    diagram: { diagramType: 'flowchart', subject: 'services', code: 'flowchart LR\n  a --> b\n' },
  })
  assert.deepEqual(entry.diagram, { language: 'mermaid', diagram_type: 'flowchart', subject: 'services', code: 'flowchart LR\n  a --> b\n' })
  assert.deepEqual(memory.get(entry.entity_name).diagram, entry.diagram)
})

test('update, promote, supersede and promoteTo in both forms', async () => {
  const memory = open()
  const a = memory.write(jwt).entry.entity_name
  const b = memory.write({ namespace: 'project.app', category: 'risk', tags: ['ops', 'pager'], body: 'The rota is thin.', status: 'experimental' }).entry.entity_name
  const c = memory.write({ namespace: 'project.app', category: 'todo', tags: ['ci', 'speed'], body: 'Cache the build.', status: 'experimental' }).entry.entity_name

  const updated = memory.update(a, { rationale: 'Scales out', tags: ['auth', 'jwt'] })
  assert.equal(updated.rationale, 'Scales out')
  assert.deepEqual(updated.tags, ['auth', 'jwt'])
  assert.deepEqual(memory.get(a), updated)
  const again = await memory.updateAsync(a, { confidence: 0.5, sourcePath: 'docs/a.md' })
  assert.equal(again.confidence, 0.5)
  assert.equal(again.source_path, 'docs/a.md')

  assert.equal(memory.promote(b).status, 'accepted')
  assert.equal((await memory.promoteAsync(c)).status, 'accepted')

  const done = memory.supersede(a, { ...jwt, body: 'Auth uses PASETO tokens.' })
  assert.deepEqual(done.new.supersedes, [a])
  assert.equal(done.old.entity_name, a)
  assert.equal(done.old.status, 'superseded')
  assert.equal(memory.get(a).status, 'superseded')
  assert.equal(memory.query({ tags: ['auth'] }).length, 1, 'history is left out')
  assert.equal(memory.query({ tags: ['auth'], history: true }).length, 2)
  const done2 = await memory.supersedeAsync(b, { namespace: 'project.app', category: 'risk', tags: ['ops', 'pager'], body: 'The rota is fine now.' })
  assert.deepEqual(done2.new.supersedes, [b])

  const promoted = memory.promoteTo(done.new.entity_name, 'org.global')
  assert.equal(promoted.new.namespace, 'org.global')
  assert.deepEqual(promoted.new.supersedes, [done.new.entity_name])
  const promoted2 = await memory.promoteToAsync(c, 'org.global')
  assert.equal(promoted2.new.entity_name, 'org.global.todo.001')
})

test('verify, heal and namespaces in both forms', async () => {
  const memory = open()
  const { entry } = memory.write(jwt)
  const clean = memory.verify('project.app')
  assert.deepEqual(clean, {
    namespace: 'project.app',
    missing_files: [],
    unindexed_files: [],
    mismatched: [],
    unreadable: [],
    foreign: [],
    repeated: [],
    unreadable_index: null,
    last_updated: FIXED,
    rows: 1,
    files: 1,
  })
  assert.deepEqual(await memory.verifyAsync('project.app'), clean)
  const namespaces = [{ namespace: 'project.app', dir: 'projects/app', has_index: true, files: 1, over_threshold: false }]
  assert.deepEqual(memory.namespaces(), namespaces)
  assert.deepEqual(await memory.namespacesAsync(), namespaces)

  rmSync(join(memory.root, 'projects/app/_index.md'))
  const drift = memory.verify('project.app')
  assert.equal(drift.files, 1)
  const healed = memory.heal('project.app')
  assert.deepEqual(healed.added, [entry.entity_name])
  assert.equal(healed.written, true)
  assert.deepEqual(memory.verify('project.app').missing_files, [])
  const nothing = await memory.healAsync('project.app')
  assert.deepEqual([nothing.added, nothing.removed, nothing.updated, nothing.written], [[], [], [], false])
})

test('foreign files are listed apart by verify and heal, never drift, never touched, in both forms', async () => {
  const memory = open()
  const { entry } = memory.write(jwt)
  const dir = join(memory.root, 'projects/app')
  const files = {
    'README.md': Buffer.from('# About\n'),
    'NOTES.md': Buffer.from('\ufeff---\r\nx: 1\r\n---\r\n'),
    'todo.md': Buffer.from('- [ ] tidy\n'),
    'ノート.md': Buffer.from('覚え\n'),
    'decision.md': readFileSync(join(memory.root, entry.file)),
  }
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes)
  const foreign = Object.keys(files).map((n) => `projects/app/${n}`).sort()
  for (const drift of [memory.verify('project.app'), await memory.verifyAsync('project.app')]) {
    assert.deepEqual(drift.foreign, foreign)
    assert.deepEqual([drift.missing_files, drift.unindexed_files, drift.unreadable, drift.rows, drift.files], [[], [], [], 1, 1])
  }
  for (const healed of [memory.heal('project.app'), await memory.healAsync('project.app')]) {
    assert.equal(healed.written, false)
    assert.deepEqual(healed.foreign, foreign)
  }
  assert.equal(memory.query({}).length, 1)
  for (const [name, bytes] of Object.entries(files)) assert.deepEqual(readFileSync(join(dir, name)), bytes, name)
  writeFileSync(join(dir, 'todo-list.md'), '# My list\n')
  const drift = memory.verify('project.app')
  assert.deepEqual(drift.unreadable.map((w) => w.path.endsWith('todo-list.md')), [true])
  assert.ok(!drift.foreign.includes('projects/app/todo-list.md'))
})

test('supersede and promoteTo report the write fields, in both forms', async () => {
  const memory = open()
  const old = memory.write(jwt).entry.entity_name
  const done = await memory.supersedeAsync(old, { ...jwt, body: 'Auth uses JWT. One. Two. Three.' })
  assert.deepEqual(Object.keys(done), ['new', 'old', 'namespace_entries', 'over_threshold', 'body'])
  assert.deepEqual([done.namespace_entries, done.over_threshold], [2, false])
  assert.deepEqual(done.body.flags.map((f) => f.code), ['many-sentences'])
  const promoted = memory.promoteTo(done.new.entity_name, 'org.global')
  assert.deepEqual([promoted.namespace_entries, promoted.over_threshold, promoted.old.status], [1, false, 'superseded'])
})

test('split by tag and by mapping, in both forms', async () => {
  const fill = (memory, ns) => {
    for (const [tags, body] of [
      [['api', 'rest'], 'Use REST.'],
      [['api', 'auth'], 'Tokens are JWT.'],
      [['ui', 'css'], 'Use CSS grid.'],
      [['ui', 'a11y'], 'Contrast 4.5:1.'],
    ]) {
      memory.write({ namespace: ns, category: 'decision', tags, body })
    }
  }
  const memory = open()
  fill(memory, 'project.app')
  const report = memory.split('project.app')
  assert.deepEqual(report.domains, { 'project.app.api': 2, 'project.app.ui': 2 })
  assert.equal(report.moved['project.app.decision.001'], 'project.app.api.decision.001')
  assert.equal(memory.get('project.app.api.decision.001').body, 'Use REST.')
  await failsBoth(
    (form) => memory[`get${form}`]('project.app.decision.001'),
    (err) => {
      assert.equal(err.code, 'ERR_MEMORY_NOT_FOUND')
      assert.match(err.message, /moved to project\.app\.api\.decision\.001/)
    },
  )

  const other = open()
  fill(other, 'project.web')
  const mapped = await other.splitAsync('project.web', { mapping: { 'project.web.decision.003': 'style' } })
  assert.deepEqual(mapped.domains, { 'project.web.style': 1 })
  assert.equal(mapped.kept.length, 3)
  assert.equal(typeof mapped.removed_parent_index, 'boolean')
})

test('endSession promotes and clears session.current, in both forms', async () => {
  const memory = open()
  const keep = memory.write({ namespace: 'session.current', category: 'decision', tags: ['api', 'auth'], body: 'Tokens live 1h.' }).entry.entity_name
  memory.write({ namespace: 'session.current', category: 'todo', tags: ['scratch', 'notes'], body: 'Try the other port.' })
  const report = memory.endSession([[keep, 'project.app']])
  assert.equal(report.promoted[0].new.entity_name, 'project.app.decision.001')
  assert.equal(report.cleared.length, 1)
  assert.deepEqual(report.kept, [keep])
  assert.equal(typeof report.archive, 'string')
  assert.deepEqual(memory.query({ namespaces: ['session.current'] }), [])
  assert.equal(memory.get(keep).status, 'superseded')
  const empty = await memory.endSessionAsync()
  assert.deepEqual(empty, { promoted: [], already_promoted: [], cleared: [], kept: [keep], archive: null })
})

test('pendingRefresh matches the listed changes to the entries citing them, in both forms', async () => {
  const memory = open()
  assert.deepEqual(memory.pendingRefresh('project.app'), [])
  const { entry } = memory.write({ ...jwt, sourcePath: 'docs:src/auth.rs' })
  writeFileSync(
    join(memory.root, 'projects/app/_pending_refresh.md'),
    '---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- src/auth.rs\n- README.md\n\nReview and update memory entries as needed.\n',
  )
  const expected = [
    { change: { path: 'src/auth.rs', trigger: 'post-merge', timestamp: FIXED }, entries: [entry.entity_name] },
    { change: { path: 'README.md', trigger: 'post-merge', timestamp: FIXED }, entries: [] },
  ]
  assert.deepEqual(memory.pendingRefresh('project.app'), expected)
  assert.deepEqual(await memory.pendingRefreshAsync('project.app'), expected)
})

test('a similar entry is ERR_MEMORY_CONFLICT naming it, unless forceNew', async () => {
  const memory = open()
  const { entry } = memory.write(jwt)
  const index = join(memory.root, 'projects/app/_index.md')
  const before = readFileSync(index, 'utf8')
  await failsBoth(
    (form) => memory[`write${form}`]({ ...jwt, body: 'Auth uses JWT. Sessions are stateless!' }),
    (err) => {
      assert.equal(err.code, 'ERR_MEMORY_CONFLICT')
      assert.equal(err.entityName, entry.entity_name)
      assert.ok(!('sessionId' in err))
      assert.equal(err.path, index)
      assert.equal(typeof err.line, 'number')
      assert.match(err.message, /project\.app\.decision\.001/)
    },
  )
  assert.equal(readFileSync(index, 'utf8'), before, 'nothing was written')
  assert.equal(memory.write({ ...jwt, forceNew: true }).entry.entity_name, 'project.app.decision.002')
})

test('an unknown entity is ERR_MEMORY_NOT_FOUND with its name', async () => {
  const memory = open()
  memory.write(jwt)
  for (const method of ['get', 'promote']) {
    await failsBoth(
      (form) => memory[`${method}${form}`]('project.app.decision.999'),
      (err) => {
        assert.equal(err.code, 'ERR_MEMORY_NOT_FOUND')
        assert.equal(err.entityName, 'project.app.decision.999')
        assert.equal(err.path, join(memory.root, 'projects/app/_index.md'))
      },
    )
  }
  await failsBoth(
    (form) => memory[`update${form}`]('project.app.decision.999', { rationale: 'x' }),
    (err) => assert.equal(err.code, 'ERR_MEMORY_NOT_FOUND'),
  )
})

test('a secret in any text field is ERR_MEMORY_INVALID_INPUT with field, and nothing is written', async () => {
  const memory = open()
  const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
  for (const [key, field] of [
    ['body', 'body'],
    ['rationale', 'rationale'],
    ['summary', 'summary'],
  ]) {
    await failsBoth(
      (form) => memory[`write${form}`]({ ...jwt, [key]: `see ${token}` }),
      (err) => {
        assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
        assert.equal(err.field, field)
        assert.equal(err.secretKind, 'github-token')
        assert.ok(!err.message.includes(token), 'the secret is not echoed')
      },
    )
  }
  assert.equal(existsSync(join(memory.root, 'projects')), false)
  const { entry } = memory.write(jwt)
  await failsBoth(
    (form) => memory[`update${form}`](entry.entity_name, { body: `token ${token}` }),
    (err) => assert.equal(err.field, 'body'),
  )
  assert.equal(memory.get(entry.entity_name).body, jwt.body)
})

test('bad arguments and unknown option keys are refused in both forms, naming the key', async () => {
  const memory = open()
  const cases = [
    [(f) => memory[`write${f}`]({ ...jwt, sorcePath: 'x' }), /^entry\.sorcePath: unknown option/],
    [(f) => memory[`write${f}`]({ ...jwt, tags: 'auth' }), /entry\.tags/],
    [(f) => memory[`write${f}`]({ ...jwt, category: 'note' }), /category/],
    [(f) => memory[`write${f}`]({ ...jwt, namespace: 'nowhere' }), /nowhere/],
    [(f) => memory[`write${f}`]({ ...jwt, body: undefined }), /entry\.body: is required/],
    [(f) => memory[`write${f}`]({ ...jwt, diagram: { diagramType: 'flowchart', subject: 's', code: 'c', lang: 'x' } }), /entry\.diagram\.lang/],
    [(f) => memory[`write${f}`]('not an object'), /entry: expected an object/],
    [(f) => memory[`query${f}`]({ tag: ['auth'] }), /query\.tag: unknown option/],
    [(f) => memory[`query${f}`]({ limit: 1.5 }), /query\.limit: expected a whole number/],
    [(f) => memory[`query${f}`]({ limit: -1 }), /query\.limit/],
    [(f) => memory[`update${f}`]('project.app.decision.001', { rationle: 'x' }), /patch\.rationle: unknown option/],
    [(f) => memory[`split${f}`]('project.app', { map: {} }), /plan\.map: unknown option/],
    [(f) => memory[`endSession${f}`]([['only-one']]), /promote: expected an array of \[entityName, namespace\] pairs/],
    [(f) => memory[`verify${f}`](42), /namespace: expected a string, got number 42/],
    [(f) => memory[`get${f}`]('x'), /invalid entity name/],
  ]
  for (const [call, message] of cases) {
    await failsBoth(call, (err) => {
      assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT')
      assert.match(err.message, message)
    })
  }
  // A key whose value is undefined is ignored, as when spreading defaults.
  assert.equal(memory.write({ ...jwt, summary: undefined }).entry.summary, 'Auth uses JWT.')
  // The Promise form's options are checked as for AgentMemory.
  await assert.rejects(memory.namespacesAsync({ sigal: 1 }), /options\.sigal: unknown option/)
})

test('the constructor options, fixedTime and lockTimeoutMs, and an aborted signal', async () => {
  const dir = tempDir()
  assert.throws(() => new ContextMemory(dir, { lockTimeout: 5 }), /options\.lockTimeout: unknown option/)
  assert.throws(() => new ContextMemory(dir, { fixedTime: 'yesterday' }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT')
  assert.throws(() => new ContextMemory(''), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT')
  assert.throws(() => ContextMemory(dir), TypeError)
  const memory = new ContextMemory(dir, { lockTimeoutMs: 250 })
  assert.equal(memory.lockTimeoutMs, 250)
  assert.equal(new ContextMemory(dir).lockTimeoutMs, 10000)
  assert.equal(memory.root, dir)
  assert.match(inspect(memory), /^ContextMemory \{ root: '.*', lockTimeoutMs: 250 \}$/)
  assert.ok(memory instanceof ContextMemory)
  const { entry } = new ContextMemory(dir, { fixedTime: '2026-05-25T13:18:00+08:00' }).write(jwt)
  assert.equal(entry.created_at, '2026-05-25T05:18:00Z')
  const controller = new AbortController()
  controller.abort()
  await assert.rejects(memory.writeAsync({ ...jwt, forceNew: true }, { signal: controller.signal }), (err) => {
    assert.equal(err.code, 'ERR_MEMORY_ABORTED')
    assert.equal(err.name, 'AbortError')
    return true
  })
  assert.equal(memory.query().length, 1, 'the aborted write wrote nothing')
})

test('a broken index is refused by query and kept verbatim by heal, in both forms', async () => {
  const memory = open()
  const { entry } = memory.write(jwt)
  assert.equal(memory.query()[0].created_at, entry.created_at)
  const index = join(memory.root, 'projects/app/_index.md')
  const broken = readFileSync(index, 'utf8').replace('| Auth uses JWT. |', '| Curated |').replace('| accepted |', '| accpeted |')
  writeFileSync(index, broken)
  await failsBoth(
    (form) => memory[`query${form}`](),
    (err) => {
      assert.equal(err.code, 'ERR_MEMORY_MALFORMED')
      assert.equal(err.line, 7)
    },
  )
  assert.equal(readFileSync(index, 'utf8'), broken)
  const report = await memory.healAsync('project.app')
  assert.equal(readFileSync(join(memory.root, report.backup), 'utf8'), broken)
  assert.equal(report.unreadable_index.line, 7)
  assert.equal(memory.query()[0].summary, 'Curated')
})

test('queryAnswer gives the hits and a warning for a namespace whose index is a symbolic link, in both forms', async () => {
  const memory = open()
  const kept = memory.write({ namespace: 'org.global', category: 'decision', tags: ['auth', 'api'], body: 'Least privilege everywhere.' }).entry
  memory.write(jwt)
  const clean = memory.queryAnswer()
  assert.deepEqual(clean.hits.map((h) => h.entity_name), memory.query().map((h) => h.entity_name))
  assert.deepEqual(clean.warnings, [])
  assert.deepEqual(Object.keys(clean), ['hits', 'warnings'])
  const index = join(memory.root, 'projects/app/_index.md')
  const elsewhere = join(memory.root, 'elsewhere.md')
  renameSync(index, elsewhere)
  symlinkSync(elsewhere, index)
  for (const answer of [memory.queryAnswer({ tags: ['auth'], limit: 10 }), await memory.queryAnswerAsync({ tags: ['auth'], limit: 10 })]) {
    assert.deepEqual(answer.hits.map((h) => h.entity_name), [kept.entity_name])
    assert.equal(answer.warnings.length, 1, JSON.stringify(answer))
    assert.equal(answer.warnings[0].path, index)
    assert.deepEqual(Object.keys(answer.warnings[0]), ['path', 'line', 'message'])
  }
  // Naming the namespace fails rather than answering without it; the link stays.
  await failsBoth((form) => memory[`queryAnswer${form}`]({ namespaces: ['project.app'] }), (err) => assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT'))
  assert.ok(lstatSync(index).isSymbolicLink())
  await failsBoth((form) => memory[`queryAnswer${form}`]({ limit: -1 }), (err) => assert.equal(err.code, 'ERR_MEMORY_INVALID_INPUT'))
})
