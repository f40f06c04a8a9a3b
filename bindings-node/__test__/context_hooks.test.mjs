// ContextMemory's git sync and migration from Node, with real `git` repositories, in the
// sync and the Promise forms: hook install (chaining a hook that was there, kept
// byte-identical) and uninstall, a merge on main recorded by `recordChanges` and by the
// installed hook running the real `memcore`, a branch other than main skipped, pending
// refresh cleared, migration with a broken entity, `defaultRoot`, and the error codes.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { ContextMemory, MemoryCoreError } from '../index.js'
import { tempDir } from './helpers.mjs'

const FIXED = '2026-04-03T10:00:00Z'
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const EXISTING_HOOK = Buffer.from('#!/bin/sh\n# the team\'s hook \u2713\necho ran >> "$(git rev-parse --git-dir)/team-hook.log"\n')

function git(repo, args, env = process.env) {
  return execFileSync('git', ['-C', repo, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

function commit(repo, files, message) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, name)), { recursive: true })
    writeFileSync(join(repo, name), text)
  }
  git(repo, ['add', '-A'])
  git(repo, ['commit', '-q', '-m', message])
}

/** `<tmp>/Widget.App` on `main` with one commit, and an unmerged branch `feature`. */
function makeRepo() {
  const repo = join(tempDir(), 'Widget.App')
  execFileSync('git', ['init', '-q', '-b', 'main', repo])
  git(repo, ['config', 'user.name', 'Test'])
  git(repo, ['config', 'user.email', 'test@example.com'])
  git(repo, ['config', 'commit.gpgsign', 'false'])
  commit(repo, { 'a.txt': 'one\n', 'b.txt': 'two\n' }, 'first')
  git(repo, ['checkout', '-q', '-b', 'feature'])
  commit(repo, { 'a.txt': 'one more\n', 'docs/c d.md': '# Notes\n' }, 'feature work')
  git(repo, ['checkout', '-q', 'main'])
  return repo
}

const hooksDir = (repo) => join(repo, '.git', 'hooks')
const mode = (path) => statSync(path).mode & 0o777

/** The `memcore` the workspace built (scripts/test.sh builds target/debug/memcore first). */
function memcoreBinary() {
  for (const profile of ['debug', 'release']) {
    const path = join(REPO_ROOT, 'target', profile, 'memcore')
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {}
  }
  return null
}

/** Files under `dir` as `relative path → bytes`. */
function tree(dir) {
  const out = {}
  const walk = (sub) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = join(sub, entry.name)
      if (entry.isDirectory()) walk(rel)
      else out[rel] = readFileSync(join(dir, rel)).toString('base64')
    }
  }
  walk('')
  return out
}

/** `call('')` throws and `call('Async')` rejects (never throws) with the expected code. */
async function failsBoth(call, code, check = () => {}) {
  const checked = (err) => {
    assert.ok(err instanceof MemoryCoreError, `expected a MemoryCoreError, got ${err}`)
    assert.equal(err.code, code, err.message)
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

test('projectNamespace comes from the folder, then from the origin remote, in both forms', async () => {
  const repo = makeRepo()
  assert.equal(ContextMemory.projectNamespace(repo), 'project.widget-app')
  mkdirSync(join(repo, 'sub dir'))
  assert.equal(await ContextMemory.projectNamespaceAsync(join(repo, 'sub dir')), 'project.widget-app')
  git(repo, ['remote', 'add', 'origin', 'git@github.com:Acme/Memory-Core.git'])
  assert.equal(ContextMemory.projectNamespace(repo), 'project.memory-core')
})

test('installHooks chains a hook kept byte-identical; uninstallHooks restores it', async () => {
  const repo = makeRepo()
  const hooks = hooksDir(repo)
  writeFileSync(join(hooks, 'post-merge'), EXISTING_HOOK)
  chmodSync(join(hooks, 'post-merge'), 0o750)
  const report = ContextMemory.installHooks(repo, '/opt/memcore dir/memcore')
  assert.deepEqual(report, {
    hooks_dir: hooks,
    hooks: [
      { hook: 'post-merge', path: join(hooks, 'post-merge'), action: 'chained' },
      { hook: 'post-checkout', path: join(hooks, 'post-checkout'), action: 'installed' },
    ],
  })
  const kept = join(hooks, 'memcore-chained', 'post-merge')
  assert.deepEqual(readFileSync(kept), EXISTING_HOOK)
  assert.equal(mode(kept), 0o750)
  for (const name of ['post-merge', 'post-checkout']) {
    const script = readFileSync(join(hooks, name), 'utf8')
    assert.ok(script.includes("'/opt/memcore dir/memcore'"), script)
    assert.ok(script.includes(`--trigger ${name}`))
    assert.equal(mode(join(hooks, name)) & 0o111, 0o111)
  }
  const again = await ContextMemory.installHooksAsync(repo, '/opt/memcore dir/memcore')
  assert.deepEqual(again.hooks.map((h) => h.action), ['unchanged', 'unchanged'])
  const moved = ContextMemory.installHooks(repo, '/usr/local/bin/memcore')
  assert.deepEqual(moved.hooks.map((h) => h.action), ['updated', 'updated'])

  const removed = await ContextMemory.uninstallHooksAsync(repo)
  assert.deepEqual(removed.hooks.map((h) => [h.hook, h.action]), [
    ['post-merge', 'restored'],
    ['post-checkout', 'removed'],
  ])
  assert.deepEqual(readFileSync(join(hooks, 'post-merge')), EXISTING_HOOK)
  assert.equal(mode(join(hooks, 'post-merge')), 0o750)
  assert.ok(!existsSync(join(hooks, 'post-checkout')))
  assert.ok(!existsSync(join(hooks, 'memcore-chained')))
  // The team's hook is theirs again: a second uninstall leaves it alone and says so.
  for (const second of [ContextMemory.uninstallHooks(repo), await ContextMemory.uninstallHooksAsync(repo)]) {
    assert.deepEqual(second.hooks.map((h) => h.action), ['absent', 'absent'])
  }
  assert.deepEqual(readFileSync(join(hooks, 'post-merge')), EXISTING_HOOK)
  assert.equal(mode(join(hooks, 'post-merge')), 0o750)
  unlinkSync(join(hooks, 'post-merge'))
  assert.deepEqual(ContextMemory.uninstallHooks(repo).hooks.map((h) => h.action), ['absent', 'absent'])
})

test('installHooks takes { memcore, root }: the hooks record into that root', async () => {
  const repo = makeRepo()
  const hooks = hooksDir(repo)
  const root = join(repo, '..', "team's memory")
  const report = ContextMemory.installHooks(repo, { memcore: '/opt/memcore', root })
  assert.deepEqual(report.hooks.map((h) => h.action), ['installed', 'installed'])
  const script = readFileSync(join(hooks, 'post-merge'), 'utf8')
  assert.ok(script.includes("memcore='/opt/memcore'\n"), script)
  assert.ok(script.includes(`"$memcore" --root '${resolve(root).replaceAll("'", "'\\''")}' context refresh`), script)
  const same = await ContextMemory.installHooksAsync(repo, { memcore: '/opt/memcore', root })
  assert.deepEqual(same.hooks.map((h) => h.action), ['unchanged', 'unchanged'])
  // Without a root the scripts name none (memcore's default root when git runs them).
  const none = ContextMemory.installHooks(repo, { memcore: '/opt/memcore' })
  assert.deepEqual(none.hooks.map((h) => h.action), ['updated', 'updated'])
  assert.ok(!readFileSync(join(hooks, 'post-merge'), 'utf8').includes('--root'))
  await failsBoth((f) => ContextMemory[`installHooks${f}`](repo, { memcore: '/opt/memcore', rot: root }), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /options\.rot/),
  )
  await failsBoth((f) => ContextMemory[`installHooks${f}`](repo, { root: 42, memcore: '/opt/memcore' }), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /root/),
  )
  ContextMemory.uninstallHooks(repo)
})

test('a merge on main is recorded by recordChanges, matched to entries, then cleared', async () => {
  const repo = makeRepo()
  const root = join(tempDir(), 'memory')
  const memory = new ContextMemory(root, { fixedTime: FIXED })
  git(repo, ['merge', '-q', 'feature'])
  const outcome = await memory.recordChangesAsync(repo, 'post-merge')
  const file = join(root, 'projects', 'widget-app', '_pending_refresh.md')
  assert.deepEqual(outcome, {
    namespace: 'project.widget-app',
    file,
    recorded: [
      { path: 'a.txt', trigger: 'post-merge', timestamp: FIXED },
      { path: 'docs/c d.md', trigger: 'post-merge', timestamp: FIXED },
    ],
    skipped: null,
  })
  assert.ok(readFileSync(file, 'utf8').startsWith('---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n'))
  memory.write({ namespace: 'project.widget-app', category: 'decision', tags: ['docs', 'notes'], body: 'Notes live in docs.', sourcePath: 'docs/c d.md' })
  assert.deepEqual(
    memory.pendingRefresh('project.widget-app').map((p) => [p.change.path, p.entries]),
    [['a.txt', []], ['docs/c d.md', ['project.widget-app.decision.001']]],
  )
  git(repo, ['checkout', '-q', 'HEAD~1'])
  git(repo, ['checkout', '-q', 'main'])
  const second = memory.recordChanges(repo, 'post-checkout')
  assert.deepEqual(second.recorded.map((c) => c.trigger), ['post-checkout', 'post-checkout'])
  assert.ok(readFileSync(file, 'utf8').includes('## Additional changes (post-checkout at 2026-04-03T10:00:00Z)'))

  assert.deepEqual(await memory.clearRefreshAsync('project.widget-app', ['a.txt', 'never-listed.rs']), {
    cleared: ['a.txt'],
    not_pending: ['never-listed.rs'],
    remaining: 2,
    removed_file: false,
  })
  const last = memory.clearRefresh('project.widget-app', ['docs/c d.md'])
  assert.equal(last.removed_file, true)
  assert.ok(!existsSync(file))
  assert.deepEqual(memory.pendingRefresh('project.widget-app'), [])
})

test('a hand note never stops recording; pendingRefreshReport names its line', async () => {
  const repo = makeRepo()
  const root = join(tempDir(), 'memory')
  const memory = new ContextMemory(root, { fixedTime: FIXED })
  git(repo, ['merge', '-q', 'feature'])
  memory.recordChanges(repo, 'post-merge')
  const file = join(root, 'projects', 'widget-app', '_pending_refresh.md')
  const noted = `${readFileSync(file, 'utf8')}Note: reviewed \u2014 \u2713.\n`
  writeFileSync(file, noted)
  git(repo, ['checkout', '-q', 'HEAD~1'])
  git(repo, ['checkout', '-q', 'main'])
  const again = await memory.recordChangesAsync(repo, 'post-checkout')
  assert.deepEqual(again.recorded.map((c) => c.path), ['a.txt', 'docs/c d.md'])
  assert.ok(readFileSync(file, 'utf8').startsWith(noted))
  for (const report of [memory.pendingRefreshReport('project.widget-app'), await memory.pendingRefreshReportAsync('project.widget-app')]) {
    assert.deepEqual(report.matches.map((m) => m.change.path), ['a.txt', 'docs/c d.md', 'a.txt', 'docs/c d.md'])
    assert.equal(report.warnings.length, 1)
    assert.equal(report.warnings[0].path, file)
    assert.equal(report.warnings[0].line, noted.split('\n').length - 1)
    assert.match(report.warnings[0].message, /hand-written/)
  }
  memory.clearRefresh('project.widget-app', ['a.txt'])
  assert.ok(readFileSync(file, 'utf8').includes('Note: reviewed \u2014 \u2713.\n'))
})

test('a branch other than main, a detached HEAD and a first checkout record nothing', async () => {
  const repo = makeRepo()
  const root = join(tempDir(), 'memory')
  const memory = new ContextMemory(root, { fixedTime: FIXED })
  git(repo, ['checkout', '-q', 'feature'])
  const outcome = memory.recordChanges(repo, 'post-checkout')
  assert.deepEqual(outcome.skipped, { reason: 'other_branch', branch: 'feature' })
  assert.deepEqual(outcome.recorded, [])
  git(repo, ['checkout', '-q', '--detach', 'main'])
  assert.deepEqual((await memory.recordChangesAsync(repo)).skipped, { reason: 'detached_head' })
  const fresh = join(tempDir(), 'fresh')
  execFileSync('git', ['init', '-q', '-b', 'master', fresh])
  assert.deepEqual(memory.recordChanges(fresh, null).skipped, { reason: 'no_previous_head' })
  assert.ok(!existsSync(root), 'nothing was written')
})

test('the installed hook records a checkout and a merge on main with the real memcore', async (t) => {
  const memcore = memcoreBinary()
  if (memcore === null) {
    t.skip('target/debug/memcore is not built: run `cargo build -p memory-cli` (scripts/test.sh does)')
    return
  }
  const repo = makeRepo()
  const hooks = hooksDir(repo)
  writeFileSync(join(hooks, 'post-merge'), EXISTING_HOOK)
  chmodSync(join(hooks, 'post-merge'), 0o755)
  await ContextMemory.installHooksAsync(repo, memcore)
  const root = join(tempDir(), 'hooked-memory')
  const env = { ...process.env, MEMCORE_CONTEXT_ROOT: root }
  git(repo, ['checkout', '-q', 'feature'], env) // not main: nothing recorded
  git(repo, ['checkout', '-q', 'main'], env)
  const memory = new ContextMemory(root)
  assert.deepEqual(
    memory.pendingRefresh('project.widget-app').map((p) => [p.change.path, p.change.trigger]),
    [['a.txt', 'post-checkout'], ['docs/c d.md', 'post-checkout']],
  )
  memory.clearRefresh('project.widget-app', ['a.txt', 'docs/c d.md'])
  git(repo, ['merge', '-q', 'feature'], env)
  assert.deepEqual(
    (await memory.pendingRefreshAsync('project.widget-app')).map((p) => [p.change.path, p.change.trigger]),
    [['a.txt', 'post-merge'], ['docs/c d.md', 'post-merge']],
  )
  assert.equal(readFileSync(join(repo, '.git', 'team-hook.log'), 'utf8'), 'ran\n')
  assert.deepEqual(readFileSync(join(hooks, 'memcore-chained', 'post-merge')), EXISTING_HOOK)
  ContextMemory.uninstallHooks(repo)
  assert.deepEqual(readFileSync(join(hooks, 'post-merge')), EXISTING_HOOK)
})

test('installHooks without memcore uses the one on PATH, and refuses when there is none', async () => {
  const repo = makeRepo()
  const gitPath = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  const dir = tempDir()
  const gitOnly = join(dir, 'git-only')
  mkdirSync(gitOnly)
  symlinkSync(gitPath, join(gitOnly, 'git'))
  const tools = join(dir, 'tools bin')
  mkdirSync(tools)
  writeFileSync(join(tools, 'memcore'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  const plain = join(dir, 'plain')
  mkdirSync(plain)
  writeFileSync(join(plain, 'memcore'), 'not a program\n', { mode: 0o644 })
  const saved = process.env.PATH
  try {
    process.env.PATH = ['', 'relative', plain, gitOnly].join(':')
    await failsBoth((f) => ContextMemory[`installHooks${f}`](repo), 'ERR_MEMORY_INVALID_INPUT', (err) =>
      assert.match(err.message, /PATH/),
    )
    assert.ok(!existsSync(join(hooksDir(repo), 'post-merge')), 'nothing installed')
    process.env.PATH = [plain, tools, gitOnly].join(':')
    const report = await ContextMemory.installHooksAsync(repo, null)
    assert.deepEqual(report.hooks.map((h) => h.action), ['installed', 'installed'])
    assert.ok(readFileSync(join(hooksDir(repo), 'post-merge'), 'utf8').includes(`memcore='${join(tools, 'memcore')}'`))
  } finally {
    process.env.PATH = saved
  }
})

test('migrate refuses an entity carrying a secret and reports a dangling link', async () => {
  const dir = tempDir()
  const source = join(dir, 'old')
  mkdirSync(source)
  const head = (n) =>
    `---\nentity_name: org.global.decision.${n}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [a, b]\ncreated_at: 2025-01-01\n`
  writeFileSync(join(source, 'secret.md'), `${head('001')}summary: "uses AKIAZ7QX3RT5WVB2KMNP"\n---\n\nFine.\n`)
  writeFileSync(join(source, 'linked.md'), `${head('002')}supersedes: [org.global.decision.404]\n---\n\nLinked.\n`)
  const before = tree(source)
  const memory = new ContextMemory(join(dir, 'memory'), { fixedTime: FIXED })
  for (const report of [memory.migrate(source)]) {
    // 'linked.md' is not named like an entity (it would be foreign): imported renamed.
    assert.deepEqual(report.imported, [['org.global.decision.002', 'org/global/decision-002-linked.md']])
    assert.deepEqual(report.not_imported.map((n) => n.file), ['secret.md'])
    assert.match(report.not_imported[0].reason, /^summary holds a secret \(aws-access-key\) on line 8 of the file/)
    assert.ok(!report.not_imported[0].reason.includes('AKIA'))
    assert.deepEqual(report.dangling_links, [
      { entity: 'org.global.decision.002', field: 'supersedes', target: 'org.global.decision.404' },
    ])
  }
  assert.deepEqual(tree(source), before, 'the source is untouched')
})

test('migrate imports the good entity, reports the broken one and keeps the source', async () => {
  const dir = tempDir()
  const source = join(dir, 'old-memory')
  mkdirSync(join(source, 'global'), { recursive: true })
  const good =
    '---\r\n# hand-written, kept as it is\r\nentity_name: org.global.decision.007\r\nnamespace: org.global\r\n' +
    "category: decision\r\nstatus: accepted\r\ntags: [auth, 'security']\r\ncreated_at: 2025-01-01\r\n" +
    'owner: "platform team"  # an unknown key\r\n---\r\n\r\nAuth uses JWT \u2014 signed with Ed25519.\r\n'
  writeFileSync(join(source, 'global', 'decision-007-auth.md'), good)
  writeFileSync(join(source, 'global', 'risk-002-broken.md'), '---\nentity_name: org.global.risk.002\nnamespace: org.global\ntags: [a, b\n---\nBody.\n')
  writeFileSync(join(source, 'notes.txt'), Buffer.from([0, 1, 2]))
  const before = tree(source)
  const root = join(dir, 'memory')
  const memory = new ContextMemory(root, { fixedTime: FIXED })
  const report = await memory.migrateAsync(source)
  assert.deepEqual(report.imported, [['org.global.decision.007', 'org/global/decision-007-auth.md']])
  assert.deepEqual(report.not_imported.map((n) => n.file), ['global/risk-002-broken.md'])
  assert.match(report.not_imported[0].reason, /line \d+/)
  assert.equal(report.other_files, 1)
  assert.deepEqual(report.dangling_links, [])
  assert.match(report.backup, /^archive\/migrated-/)
  assert.deepEqual(tree(join(root, report.backup)), before, 'the backup is a verbatim copy')
  assert.deepEqual(tree(source), before, 'the source is untouched')
  assert.equal(readFileSync(join(root, 'org/global/decision-007-auth.md'), 'utf8'), good)
  assert.deepEqual(memory.get('org.global.decision.007').tags, ['auth', 'security'])
  const again = memory.migrate(source)
  assert.deepEqual(again.imported, [])
  assert.match(again.not_imported.find((n) => n.file === 'global/decision-007-auth.md').reason, /already in the memory/)
  assert.notEqual(again.backup, report.backup)
  assert.equal(relative(root, join(root, again.backup)).startsWith('archive'), true)
})

test('defaultRoot is ~/.cursor/memory, null without a home', () => {
  const saved = { HOME: process.env.HOME, USERPROFILE: process.env.USERPROFILE }
  const home = join(tempDir(), 'h\u00f4me')
  try {
    process.env.HOME = home
    assert.equal(ContextMemory.defaultRoot(), join(home, '.cursor', 'memory'))
    assert.ok(!existsSync(home), 'nothing is created')
    process.env.HOME = ''
    delete process.env.USERPROFILE
    assert.equal(ContextMemory.defaultRoot(), null)
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
})

test('every error of the sync functions has its code, in both forms', async () => {
  const repo = makeRepo()
  const dir = tempDir()
  const outside = join(dir, 'not-a-repo')
  mkdirSync(outside)
  const root = join(dir, 'memory')
  const memory = new ContextMemory(root, { fixedTime: FIXED })
  const notRepo = (err) => {
    assert.equal(err.path, outside)
    assert.match(err.message, /git/)
  }
  await failsBoth((f) => ContextMemory[`installHooks${f}`](outside, '/bin/memcore'), 'ERR_MEMORY_INVALID_INPUT', notRepo)
  await failsBoth((f) => ContextMemory[`uninstallHooks${f}`](outside), 'ERR_MEMORY_INVALID_INPUT', notRepo)
  await failsBoth((f) => ContextMemory[`projectNamespace${f}`](outside), 'ERR_MEMORY_INVALID_INPUT', notRepo)
  await failsBoth((f) => memory[`recordChanges${f}`](outside), 'ERR_MEMORY_INVALID_INPUT', notRepo)
  await failsBoth((f) => memory[`recordChanges${f}`](repo, 'pre-commit'), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /trigger/),
  )
  await failsBoth((f) => ContextMemory[`installHooks${f}`](5), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /repo/),
  )
  await failsBoth((f) => memory[`clearRefresh${f}`]('project.widget-app', 'a.txt'), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /done/),
  )
  await failsBoth((f) => memory[`clearRefresh${f}`]('project/../x', ['a.txt']), 'ERR_MEMORY_INVALID_INPUT')

  const hooks = hooksDir(repo)
  writeFileSync(join(hooks, 'post-checkout'), '#!/bin/sh\necho theirs\n')
  // Not ours and nothing kept: the user's hook, left alone.
  assert.deepEqual(ContextMemory.uninstallHooks(repo).hooks.map((h) => h.action), ['absent', 'absent'])
  assert.equal(readFileSync(join(hooks, 'post-checkout'), 'utf8'), '#!/bin/sh\necho theirs\n')
  ContextMemory.installHooks(repo, '/bin/memcore')
  writeFileSync(join(hooks, 'post-checkout'), '#!/bin/sh\necho another\n')
  await failsBoth((f) => ContextMemory[`installHooks${f}`](repo, '/bin/memcore'), 'ERR_MEMORY_CONFLICT', (err) =>
    assert.match(err.message, /already kept/),
  )
  // A foreign hook in ours' place over a kept one: refused, nothing changed.
  await failsBoth((f) => ContextMemory[`uninstallHooks${f}`](repo), 'ERR_MEMORY_CONFLICT', (err) =>
    assert.equal(err.path, join(hooks, 'post-checkout')),
  )
  assert.equal(readFileSync(join(hooks, 'post-checkout'), 'utf8'), '#!/bin/sh\necho another\n')

  const pending = join(root, 'projects', 'widget-app', '_pending_refresh.md')
  mkdirSync(dirname(pending), { recursive: true })
  writeFileSync(pending, '---\ntrigger: sometimes\ntimestamp: now\n---\n')
  await failsBoth((f) => memory[`clearRefresh${f}`]('project.widget-app', ['a.txt']), 'ERR_MEMORY_MALFORMED', (err) => {
    assert.equal(err.path, pending)
    assert.equal(typeof err.line, 'number')
  })
  await failsBoth((f) => memory[`migrate${f}`](join(dir, 'missing')), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /not a directory/),
  )
  await failsBoth((f) => memory[`migrate${f}`](dir), 'ERR_MEMORY_INVALID_INPUT', (err) =>
    assert.match(err.message, /memory root/),
  )
  const saved = process.env.PATH
  try {
    process.env.PATH = join(dir, 'empty-path')
    await failsBoth((f) => ContextMemory[`projectNamespace${f}`](repo), 'ERR_MEMORY_IO', (err) =>
      assert.match(err.message, /git/),
    )
  } finally {
    process.env.PATH = saved
  }
  // An aborted signal rejects a static's Promise form before anything is done.
  const signal = AbortSignal.abort(new Error('too late'))
  const err = await ContextMemory.uninstallHooksAsync(repo, { signal }).then(() => assert.fail('expected an abort'), (e) => e)
  assert.equal(err.code, 'ERR_MEMORY_ABORTED')
  assert.equal(err.name, 'AbortError')
  assert.ok(readFileSync(join(hooks, 'post-checkout'), 'utf8').includes('another'))
})
