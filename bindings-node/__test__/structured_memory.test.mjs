// StructuredMemory (structured-memory): writes (merge on write, a new topic linked,
// relative dates, refusals with their codes), the index read whole with its budget,
// recall, topics, every kind of check, compaction with JS compactors (one that throws:
// the very error back and the tree byte-identical; hostile ones refused), dry runs,
// restore, the Promise forms with sync and async compactors (a throw or a rejection: the
// very value back, nothing written), plain-function compactors, and a lock held by another
// process.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import { MemoryCoreError, StructuredMemory } from '../index.js'
import { holdLock, tempDir } from './helpers.mjs'

const FIXED = '2026-07-10T09:00:00Z'
const SECRET = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'
const INFRA =
  '# Infra\n\n' +
  '- 2026-06-01: the legacy FTP box runs backups\n' +
  '- 2026-06-02 [db]: Postgres 15\n' +
  '- 2026-06-03 [db]: Postgres 16\n' +
  '- 2026-06-04: deploy failed on staging\n' +
  '- 2026-06-05: deploy on staging timed out\n' +
  '- 2026-06-06: deploy on staging worked with VPN\n' +
  '- a hand note\n'

function dir() {
  return join(tempDir(), 'memory')
}

function open(root, options = {}) {
  return new StructuredMemory(root, { fixedTime: FIXED, ...options })
}

function seed(root, topic = INFRA) {
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'memory-infra.md'), topic)
  writeFileSync(join(root, 'MEMORY.md'), '- [Infra](memory-infra.md) — hosts, databases\n')
}

/** Every file but the lock, with its bytes. */
function tree(root) {
  if (!existsSync(root)) return {}
  const out = {}
  for (const name of readdirSync(root).sort()) {
    if (name !== '.memcore.lock') out[name] = readFileSync(join(root, name)).toString('base64')
  }
  return out
}

/** Evicts entries mentioning FTP; condenses the staging story. `this` is the object. */
const judge = {
  calls: [],
  dead(topic, entries) {
    this.calls.push(`dead ${topic.file} ${entries.length}`)
    return entries.flatMap((e, i) => (e.text.includes('FTP') ? [i] : []))
  },
  summarize(topic, entries) {
    const story = entries.flatMap((e, i) => (e.text.includes('staging') ? [i] : []))
    return story.length < 2 ? [] : [{ entries: story, text: 'staging deploys need the VPN up first' }]
  },
}

test('a first write creates the topic and links it; a second about the subject merges', async () => {
  const root = dir()
  const memory = open(root)
  const first = memory.remember({ topic: 'memory-infra.md', text: 'Postgres 15', subject: 'db', date: '2026-06-01', hook: 'hosts, databases', title: 'Infra' })
  assert.deepEqual([first.created_topic, first.linked, first.created_index], [true, true, true])
  assert.deepEqual(first.entry, { date: '2026-06-01', subject: 'db', text: 'Postgres 15', line: 3, end_line: 3 })
  assert.match(readFileSync(join(root, 'MEMORY.md'), 'utf8'), /^- \[Infra\]\(memory-infra\.md\) — hosts, databases$/m)
  const second = await memory.rememberAsync({ topic: 'memory-infra.md', text: 'Postgres 16', subject: 'DB' })
  assert.deepEqual(second.replaced.map((e) => e.text), ['Postgres 15'])
  assert.equal(second.entry.date, '2026-07-10')
  assert.deepEqual(memory.topic('memory-infra.md').entries.map((e) => e.text), ['Postgres 16'])
  assert.match(readFileSync(join(root, 'memory-archive.md'), 'utf8'), /- 2026-06-01 \[db\]: Postgres 15/)
  const back = memory.restore(second.archive_id)
  assert.deepEqual(back.restored[0].lines, ['- 2026-06-01 [db]: Postgres 15'])
  assert.equal((await memory.topicAsync('memory-infra.md')).entries.length, 2)
  const other = memory.remember({ topic: 'memory-user.md', text: 'prefers terse answers', hook: 'role, preferences' })
  assert.ok(other.linked && !other.created_index)
  assert.deepEqual(memory.index().lines.map((l) => l.file), ['memory-infra.md', 'memory-user.md'])
})

test('relative dates become absolute from the fixed clock', () => {
  for (const [given, day] of [
    ['today', '2026-07-10'], ['yesterday', '2026-07-09'], ['3 days ago', '2026-07-07'], ['2026-01-31', '2026-01-31'],
    ['tomorrow', '2026-07-11'], ['Tuesday', '2026-07-07'], ['last friday', '2026-07-03'], ['on Monday', '2026-07-06'],
  ]) {
    const root = dir()
    const out = open(root).remember({ topic: 'memory-d.md', text: 'the deploy hook fired', date: given, hook: 'deploys' })
    assert.equal(out.entry.date, day, given)
    assert.ok(readFileSync(join(root, 'memory-d.md'), 'utf8').includes(`- ${day}: the deploy hook fired\n`))
  }
})

test('a weekday in the text is written as its date', () => {
  // 2026-07-10 (the fixed clock) is a Friday: the last Tuesday is the 7th.
  const root = dir()
  const out = open(root).remember({ topic: 'memory-e.md', text: 'the deploy broke on Tuesday', hook: 'deploys' })
  assert.deepEqual([out.entry.date, out.entry.text], ['2026-07-07', 'the deploy broke on 2026-07-07'])
  assert.ok(readFileSync(join(root, 'memory-e.md'), 'utf8').includes('- 2026-07-07: the deploy broke on 2026-07-07\n'))
})

test('a Date is its UTC calendar day, in both forms; an invalid Date or another object is refused', async () => {
  const root = dir()
  const memory = open(root)
  const first = memory.remember({ topic: 'memory-d.md', text: 'the first', date: new Date(Date.UTC(2026, 0, 31)), hook: 'days' })
  assert.equal(first.entry.date, '2026-01-31')
  // 23:30 at UTC-8 on 1 March is 2 March in UTC: the UTC day, whatever the local zone.
  const late = new Date('2026-03-01T23:30:00-08:00')
  assert.equal(memory.remember({ topic: 'memory-d.md', text: 'the second', date: late }).entry.date, '2026-03-02')
  const async = await memory.rememberAsync({ topic: 'memory-d.md', text: 'the third', date: new Date('2026-12-31T23:59:59.999Z') })
  assert.equal(async.entry.date, '2026-12-31')
  class Day extends Date {}
  assert.equal(memory.remember({ topic: 'memory-d.md', text: 'the fourth', date: new Day('2026-02-28T00:00:00Z') }).entry.date, '2026-02-28')
  const text = readFileSync(join(root, 'memory-d.md'), 'utf8')
  for (const line of ['- 2026-01-31: the first\n', '- 2026-03-02: the second\n', '- 2026-12-31: the third\n', '- 2026-02-28: the fourth\n']) {
    assert.ok(text.includes(line), line)
  }
  const before = tree(root)
  for (const wrong of [new Date(NaN), { toISOString: () => '2026-01-01' }, 20260131, ['2026-01-31']]) {
    assert.throws(() => memory.remember({ topic: 'memory-d.md', text: 'never', date: wrong }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && /fact\.date/.test(err.message), String(wrong))
    await assert.rejects(memory.rememberAsync({ topic: 'memory-d.md', text: 'never', date: wrong }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT')
  }
  assert.deepEqual(tree(root), before)
})

test('vague dates, secrets, catch-all and reserved topics are refused in both forms and nothing is written', async () => {
  const root = dir()
  const memory = open(root)
  const refused = async (fact, check) => {
    assert.throws(() => memory.remember(fact), (err) => err instanceof MemoryCoreError && check(err))
    await assert.rejects(memory.rememberAsync(fact), (err) => err instanceof MemoryCoreError && check(err))
    assert.ok(!existsSync(join(root, 'MEMORY.md')))
  }
  const invalid = (err) => err.code === 'ERR_MEMORY_INVALID_INPUT'
  // A vague time is invalid input told apart by its message prefix and `field`.
  const vagueIn = (field) => (err) => invalid(err) && err.message.startsWith(`vague time in ${field} `) && err.field === field
  for (const vague of ['last week', 'recently', 'last month']) {
    await refused({ topic: 'memory-infra.md', text: 'the deploy broke', date: vague, hook: 'deploys' }, vagueIn('date'))
  }
  await refused({ topic: 'memory-infra.md', text: 'the deploy broke last week', hook: 'deploys' }, vagueIn('text'))
  await refused(
    { topic: 'memory-infra.md', text: 'the deploy broke', date: '31 February 2026', hook: 'deploys' },
    (err) => invalid(err) && !err.message.startsWith('vague time') && err.field === undefined,
  )
  for (const field of ['text', 'subject', 'title', 'hook']) {
    const fact = { topic: 'memory-infra.md', text: 'fine', subject: 'ok', title: 'Infra', hook: 'hosts', [field]: `token ${SECRET}` }
    await refused(fact, (err) => invalid(err) && err.field === field && err.secretKind === 'github-token' && !err.message.includes(SECRET))
  }
  for (const topic of ['memory-misc.md', 'MEMORY.md', 'memory-archive.md', 'index.md', '../outside.md']) {
    await refused({ topic, text: 'a fact', hook: 'x' }, invalid)
  }
  await refused({ topic: 'memory-new.md', text: 'a fact without a hook' }, invalid)
  await refused({ topic: 'memory-new.md', text: '', hook: 'x' }, invalid)
  await refused({ topic: 'memory-new.md', text: 'x'.repeat(20_000), hook: 'x' }, invalid)
  await refused({ topic: 'memory-new.md', text: 'x', hook: 'x', extra: 1 }, (err) => invalid(err) && /fact\.extra: unknown option/.test(err.message))
  await refused({ topic: 5, text: 'x', hook: 'x' }, (err) => invalid(err) && /fact\.topic: expected a string, got number 5/.test(err.message))
  assert.throws(() => new StructuredMemory(root, { topicLines: -1 }), (err) => invalid(err) && /options\.topicLines/.test(err.message))
  assert.throws(() => new StructuredMemory(root, { indexLines: 1.5 }), invalid)
  assert.throws(() => memory.compact(null, { dryRun: 'yes' }), (err) => invalid(err) && /options\.dryRun/.test(err.message))
})

test('unicode and CRLF hand-written files read back', () => {
  const root = dir()
  const memory = open(root)
  const text = 'Zürich → 東京 deploy ✅ ' + 'x'.repeat(15_000)
  memory.remember({ topic: 'memory-ünïcode.md', text, subject: 'règle', hook: 'café, naïve' })
  assert.equal(memory.topic('memory-ünïcode.md').entries[0].text, text)
  assert.equal(memory.index().lines[0].hook, 'café, naïve')
  writeFileSync(join(root, 'USER.md'), "---\r\nname: User\r\ndescription: 'role: lead'\r\ntype: user\r\n---\r\n\r\n- 2026-07-01: prefers terse answers\r\n- a hand note\r\n")
  const topic = memory.topic('USER.md')
  assert.deepEqual(topic.meta, { name: 'User', description: 'role: lead', type: 'user' })
  assert.deepEqual(topic.entries.map((e) => e.text), ['prefers terse answers'])
  assert.deepEqual(topic.undated, [{ line: 8, text: '- a hand note' }])
  assert.throws(() => memory.topic('memory-none.md'), (err) => err.code === 'ERR_MEMORY_NOT_FOUND')
})

test('a prose topic gives its text and body, in both forms', async () => {
  // A Claude Code topic file: frontmatter, then prose; no dated entry.
  const root = dir()
  mkdirSync(root)
  const text =
    '\ufeff---\r\nname: Feedback: testing\r\ndescription: real databases\r\ntype: feedback\r\n---\r\n' +
    '\r\nIntegration tests must hit a real database, not mocks.\r\n'
  writeFileSync(join(root, 'feedback_testing.md'), text)
  const memory = open(root)
  for (const topic of [memory.topic('feedback_testing.md'), await memory.topicAsync('feedback_testing.md')]) {
    assert.deepEqual(topic.entries, [])
    assert.equal(topic.text, text)
    assert.equal(topic.body, '\r\nIntegration tests must hit a real database, not mocks.\r\n')
    assert.deepEqual(Object.keys(topic).slice(-3), ['budget', 'text', 'body'])
  }
  writeFileSync(join(root, 'USER.md'), '\ufeffPrefers terse answers.\n')
  assert.equal(memory.topic('USER.md').body, 'Prefers terse answers.\n')
})

test('every write warns of MEMORY.md over its budget, changed or not', () => {
  const root = dir()
  mkdirSync(root)
  const index = '- [A](memory-a.md) — hook a\n- [B](memory-b.md) — hook b\n- [C](memory-c.md) — hook c\n'
  writeFileSync(join(root, 'MEMORY.md'), index)
  writeFileSync(join(root, 'memory-a.md'), '# A\n')
  const out = open(root, { indexLines: 2 }).remember({ topic: 'memory-a.md', text: 'a fact' })
  assert.equal(out.linked, false)
  assert.deepEqual(out.warnings, ['MEMORY.md is over its budget: 3 of 2 lines (1 over)'])
  assert.equal(readFileSync(join(root, 'MEMORY.md'), 'utf8'), index)
})

test('a MEMORY.md of only a byte-order mark gets its first line right after it', () => {
  const root = dir()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '\ufeff')
  open(root).remember({ topic: 'memory-a.md', text: 'a fact', title: 'A', hook: 'hook a' })
  assert.equal(readFileSync(join(root, 'MEMORY.md'), 'utf8'), '\ufeff- [A](memory-a.md) — hook a\n')
})

test('the index is read whole with its budget; recall reads only it', async () => {
  const root = dir()
  mkdirSync(root)
  const lines = Array.from({ length: 62 }, (_, i) => `- [T${i}](memory-t${i}.md) — hook ${i}\r\n`).join('')
  writeFileSync(join(root, 'MEMORY.md'), '\ufeff<!-- index -->\r\n' + lines + 'Deploy first.\r\n')
  const index = open(root).index()
  assert.equal(index.lines.length, 62)
  assert.deepEqual(index.lines[0], { title: 'T0', file: 'memory-t0.md', hook: 'hook 0', line: 2 })
  assert.deepEqual(index.content.map((c) => c.text), ['Deploy first.'])
  assert.deepEqual([index.budget.state, index.budget.line_budget, index.budget.over_by_lines], ['over', 60, 4])
  assert.deepEqual(open(root, { indexLines: 100, indexBytes: 10 }).budgets, { index_lines: 100, topic_lines: 150, index_bytes: 10, topic_bytes: null })
  const wide = await open(root, { indexLines: 100, indexBytes: 10 }).indexAsync()
  assert.equal(wide.budget.line_budget, 100)
  assert.ok(wide.budget.over_by_bytes > 0)
  writeFileSync(join(root, 'MEMORY.md'), '- [Project X](memory-project-x.md) — build quirks, deploy pipeline\n- [User](USER.md) — role, preferences\n')
  for (const name of ['memory-project-x.md', 'USER.md']) writeFileSync(join(root, name), '- 2026-07-01: a fact\n')
  const hits = await open(root).recallAsync('the deploy script')
  assert.deepEqual(hits.map((h) => h.file), ['memory-project-x.md'])
  assert.ok(hits[0].score > 0 && hits[0].score <= 1)
  assert.deepEqual(open(root).recall('nothing matches'), [])
  assert.deepEqual(open(dir()).index().lines, [])
})

test('sessionIndex loads a damaged index whole with a warning (sync and Promise forms)', async () => {
  const root = dir()
  mkdirSync(root)
  const text = '- [User](USER.md) — role\n<!-- a note never closed\n- [Infra](memory-infra.md) — hosts\n'
  writeFileSync(join(root, 'MEMORY.md'), text)
  const memory = open(root)
  assert.throws(() => memory.index(), (err) => err.code === 'ERR_MEMORY_MALFORMED')
  const start = memory.sessionIndex()
  assert.deepEqual(await memory.sessionIndexAsync(), start)
  assert.deepEqual(Object.keys(start), ['text', 'budget', 'damaged', 'index', 'warnings'])
  assert.equal(start.text, text, 'whole, never truncated')
  assert.equal(start.index, null)
  assert.equal(start.damaged.line, 2)
  assert.equal(start.damaged.path, join(root, 'MEMORY.md'))
  assert.equal(start.warnings.length, 1)
  assert.ok(start.warnings[0].includes('MEMORY.md:2: '), start.warnings[0])
  writeFileSync(join(root, 'MEMORY.md'), '- [User](USER.md) — role\n')
  const ok = memory.sessionIndex()
  assert.equal(ok.damaged, null)
  assert.deepEqual(ok.warnings, [])
  assert.deepEqual(ok.index.lines.map((l) => l.file), ['USER.md'])
})

test('check finds every kind, with file and line', async () => {
  const root = dir()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'),
    '# Memory\n\n- [Infra](memory-infra.md) — hosts, deploys\n- [Gone](memory-gone.md) — was here\n' +
    '- [Misc](memory-misc.md) — things\n- [Empty](memory-empty.md)\n- [Again](memory-infra.md) — twice\n' +
    '- [Out](../x.md) — outside\nDeploy runs before the bump.\n- [Big](memory-big.md) — many\n- [Bad](memory-bad.md) — broken yaml\n' +
    '- [Unclosed](memory-unclosed.md) — never closed\n- [Big](memory-big2.md) — many\n- aside %% never closed\n')
  writeFileSync(join(root, 'memory-big2.md'), '- 2026-07-01: another big one\n')
  writeFileSync(join(root, 'memory-infra.md'),
    '# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-07-01 [db]: Postgres 16\n- a note without a date\n- 2026-07-02: fixed the pipeline yesterday\n' +
    '- 2026-07-03 [aws]: key AKIAZ7QX3RT5WVB2KMNP\n')
  writeFileSync(join(root, 'memory-misc.md'), '- 2026-07-01: a thing\n')
  writeFileSync(join(root, 'memory-empty.md'), '- 2026-07-01: ok\n')
  writeFileSync(join(root, 'memory-orphan.md'), '- 2026-07-01: nobody links me\n')
  writeFileSync(join(root, 'memory-infra (1).md'), "- 2026-07-01: a sync client's copy\n")
  writeFileSync(join(root, 'memory-big.md'), Array.from({ length: 12 }, (_, i) => `- 2026-07-${String(i + 1).padStart(2, '0')}: fact ${i}\n`).join(''))
  writeFileSync(join(root, 'memory-bad.md'), '---\nname: [unclosed\n---\n- 2026-07-01: x\n')
  writeFileSync(join(root, 'memory-unclosed.md'), '---\nname: x\n- 2026-07-01: y\n')
  writeFileSync(join(root, 'memory-archive.md'), Buffer.from('# Memory archive\n\nnot \xff UTF-8\n', 'latin1'))
  const found = open(root, { topicLines: 10 }).check()
  assert.deepEqual(found, await open(root, { topicLines: 10 }).checkAsync())
  const got = new Set(found.map((v) => `${v.kind} ${v.file}:${v.line}`))
  for (const expected of [
    'dangling_index_line MEMORY.md:4', 'empty_hook MEMORY.md:6', 'duplicate_index_line MEMORY.md:7',
    'unusable_link MEMORY.md:8', 'content_in_index MEMORY.md:9', 'contradicting_generations memory-infra.md:3',
    'undated_entry memory-infra.md:5', 'relative_date memory-infra.md:6', 'misc_topic MEMORY.md:5',
    'orphan_topic memory-orphan.md:0', 'sync_conflict_copy memory-infra (1).md:0', 'over_budget memory-big.md:11', 'frontmatter_not_yaml memory-bad.md:2',
    'unreadable_topic memory-unclosed.md:1', 'unreadable_archive memory-archive.md:3', 'secret memory-infra.md:7', 'near_duplicate_topics MEMORY.md:13',
    'unclosed_comment MEMORY.md:14',
  ]) {
    assert.ok(got.has(expected), `${expected} missing from ${[...got].join(', ')}`)
  }
  assert.equal(new Set(found.map((v) => v.kind)).size, 18)
  assert.ok(found.every((v) => v.message.length > 0))
})

test('check reports a damaged index with its line and still checks the topics', async () => {
  const root = dir()
  mkdirSync(root)
  writeFileSync(join(root, 'MEMORY.md'), '- [K](memory-k.md) — k\n<!-- never closed\n- [B](memory-b.md) — b\n')
  writeFileSync(join(root, 'memory-k.md'), '- 2026-07-01: k\n- a hand note\n')
  const found = open(root).check()
  assert.deepEqual(found, await open(root).checkAsync())
  assert.deepEqual(found.map((v) => `${v.kind} ${v.file}:${v.line}`),
    ['unreadable_index MEMORY.md:2', 'undated_entry memory-k.md:2'])
  assert.match(found[0].message, /does not read/)
  assert.throws(() => open(root).index())
})

test('a JS compactor evicts and summarizes; a dry run says exactly that; everything is archived; restore', () => {
  const root = dir()
  seed(root)
  const memory = open(root, { topicLines: 6 })
  judge.calls.length = 0
  const before = tree(root)
  const dry = memory.compact('memory-infra.md', { compactor: judge, dryRun: true })
  assert.equal(dry.dry_run, true)
  assert.deepEqual(tree(root), before, 'a dry run writes nothing')
  const report = memory.compact('memory-infra.md', { compactor: judge })
  assert.deepEqual(report.files, dry.files)
  assert.equal(judge.calls[0], 'dead memory-infra.md 6', 'called with the object as this')
  let shown
  const other = dir()
  seed(other)
  open(other, { topicLines: 6 }).compact('memory-infra.md', { dryRun: true, compactor: { dead: (topic) => ((shown = topic.budget), []) } })
  assert.deepEqual([shown.line_budget, shown.over_by_lines, shown.state], [6, 3, 'over'], "the handle's budget")
  const f = report.files[0]
  assert.deepEqual(f.passes.map((p) => p.pass), ['evict-dead', 'collapse-superseded', 'summarize-episodic'])
  assert.deepEqual([f.before.lines, f.after.lines, f.needs_judgment], [9, 5, null])
  assert.deepEqual(memory.topic('memory-infra.md').entries.map((e) => e.text), ['Postgres 16', 'staging deploys need the VPN up first'])
  assert.ok(readFileSync(join(root, 'memory-infra.md'), 'utf8').includes('- a hand note\n'))
  const archive = readFileSync(join(root, 'memory-archive.md'), 'utf8')
  for (const [pass, line] of [
    ['evict-dead', '- 2026-06-01: the legacy FTP box runs backups'],
    ['collapse-superseded', '- 2026-06-02 [db]: Postgres 15'],
    ['summarize-episodic', '- 2026-06-05: deploy on staging timed out'],
  ]) {
    assert.ok(archive.includes(`## ${report.id} · ${pass} · memory-infra.md · ${FIXED}`), archive)
    assert.ok(archive.includes(line), line)
  }
  const restored = memory.restore(report.id)
  assert.equal(restored.restored.length, 3)
  assert.equal(readFileSync(join(root, 'memory-archive.md'), 'utf8'), archive, 'append-only')
  assert.equal(memory.topic('memory-infra.md').entries.length, 7)
  assert.throws(() => memory.restore('c-19990101-001'), (err) => err.code === 'ERR_MEMORY_NOT_FOUND')
  // An id holding a control character is no archive id: refused, never echoed raw.
  assert.throws(
    () => memory.restore('c\u001b[31m'),
    (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && !err.message.includes('\u001b') && err.message.includes('is not an archive id'),
  )
})

test('collapse and split callbacks, class instances, and missing functions are the defaults', async () => {
  const root = dir()
  seed(root, '# Infra\n\n- 2026-06-02 [db]: Postgres 15\n- 2026-06-03 [db]: Postgres 16\n- 2026-06-04 [dns]: CoreDNS\n- 2026-06-05 [dns]: CoreDNS 1.11\n- 2026-06-06 [cdn]: Fastly\n')
  class Folder {
    collapse(topic, subject, generations) {
      return subject === 'db' ? `${generations.at(-1).text} (was ${generations[0].text})` : undefined
    }
    split(topic, entries) {
      return [{ file: 'memory-cdn.md', title: 'CDN', hook: 'Fastly, caching', entries: entries.flatMap((e, i) => (e.subject === 'cdn' ? [i] : [])) }]
    }
  }
  const memory = open(root, { topicLines: 4 })
  const report = memory.compact('memory-infra.md', { compactor: new Folder() })
  assert.deepEqual(report.created, ['memory-cdn.md'])
  assert.deepEqual(report.index_lines, [
    { file: 'memory-cdn.md', title: 'CDN', hook: 'Fastly, caching', text: '- [CDN](memory-cdn.md) — Fastly, caching' },
  ])
  assert.deepEqual(memory.topic('memory-infra.md').entries.map((e) => e.text), ['Postgres 16 (was Postgres 15)', 'CoreDNS 1.11'])
  assert.deepEqual(memory.topic('memory-cdn.md').entries.map((e) => e.text), ['Fastly'])
  assert.ok(readFileSync(join(root, 'MEMORY.md'), 'utf8').includes('- [CDN](memory-cdn.md) — Fastly, caching'))
  assert.deepEqual(memory.compact(null, { compactor: {} }), memory.compact())
  assert.deepEqual(await memory.compactAsync(), memory.compact(undefined, {}))
})

test('a write over budget compacts with the given compactor', () => {
  const root = dir()
  const memory = open(root, { topicLines: 3 })
  memory.remember({ topic: 'memory-infra.md', text: 'the legacy FTP box runs backups', date: '2026-06-01', hook: 'hosts' })
  memory.remember({ topic: 'memory-infra.md', text: 'Postgres 16', subject: 'db', date: '2026-06-02' })
  memory.remember({ topic: 'memory-infra.md', text: 'CoreDNS', subject: 'dns', date: '2026-06-03' })
  const out = memory.remember({ topic: 'memory-infra.md', text: 'Fastly', subject: 'cdn' }, { compactor: judge })
  assert.equal(out.compaction.files[0].passes[0].pass, 'evict-dead')
  assert.ok(readFileSync(join(root, 'memory-archive.md'), 'utf8').includes('FTP'))
  // Single facts of three subjects are not cut into files of their own: what is left over
  // needs judgment, with the exact overage, and a warning says so.
  const judgment = out.compaction.files[0].needs_judgment
  assert.equal(judgment.over_by_lines, out.budgets[0].lines - 3)
  assert.match(out.warnings[0], /over its budget/)
})

test('what a compactor function throws is thrown again as it is, and the tree is byte-identical', () => {
  for (const name of ['dead', 'collapse', 'summarize', 'split']) {
    const root = dir()
    seed(root, INFRA.replace('- 2026-06-06: deploy on staging worked with VPN\n', '- 2026-06-06 [cdn]: Fastly\n'))
    const memory = open(root, { topicLines: 2 })
    const thrown = new RangeError(`${name} is unavailable`)
    const before = tree(root)
    assert.throws(
      () => memory.compact('memory-infra.md', { compactor: { [name]() { throw thrown } } }),
      (err) => err === thrown,
    )
    assert.deepEqual(tree(root), before, name)
    // Not only Error objects: any thrown value comes back.
    assert.throws(() => memory.compact('memory-infra.md', { compactor: { [name]() { throw 'plain string' } } }), (err) => err === 'plain string')
    assert.deepEqual(tree(root), before, name)
    // Through a write's budget trigger: the write and its compaction are one step, so
    // the fact is not written either.
    assert.throws(() => memory.remember({ topic: 'memory-infra.md', text: 'one more', subject: 'x' }, { compactor: { [name]() { throw thrown } } }), (err) => err === thrown)
    assert.deepEqual(tree(root), before, name)
  }
})

test('a hostile compactor is refused by name and nothing changes', () => {
  const cases = [
    ['dead', () => [99], /99/],
    ['dead', () => [0, 0], /twice/],
    ['dead', () => '0', /dead\(\) returned "0"/],
    ['dead', () => [true], /dead\(\)/],
    ['dead', () => [-1], /dead\(\)/],
    ['dead', () => [0.5], /dead\(\)/],
    ['dead', () => undefined, /dead\(\) returned null/],
    ['dead', () => () => 1, /JSON cannot represent/],
    ['dead', () => [0n], /dead\(\) returned a value JSON cannot represent/],
    ['dead', () => { const a = []; a.push(a); return a }, /JSON cannot represent/],
    ['dead', () => ({ toJSON() { throw new Error('no') } }), /JSON cannot represent/],
    ['dead', async () => [0], /dead\(\) returned a Promise in a sync call/],
    ['collapse', () => 5, /collapse\(\) returned 5/],
    ['summarize', () => [{ entries: [3, 4], txt: 'x' }], /unknown key "txt"/],
    ['summarize', () => [{ entries: [3, 4] }], /without "text"/],
    ['summarize', () => [{ entries: [3, 4], text: `token ${SECRET}` }], /summarize/],
    ['summarize', () => ({ entries: [3, 4], text: 'x' }), /summarize\(\)/],
    ['split', () => [{ file: 'memory-x.md', title: 'X', hook: 'x' }], /entries/],
    ['split', () => [{ file: '../x.md', title: 'X', hook: 'x', entries: [0] }], /split/],
  ]
  for (const [name, result, message] of cases) {
    const root = dir()
    seed(root)
    const before = tree(root)
    assert.throws(
      () => open(root, { topicLines: 1 }).compact('memory-infra.md', { compactor: { [name]: result } }),
      (err) => err instanceof MemoryCoreError && ['ERR_MEMORY_ABORTED', 'ERR_MEMORY_INVALID_INPUT'].includes(err.code) && message.test(err.message) && !err.message.includes(SECRET),
      `${name} ${result}`,
    )
    assert.deepEqual(tree(root), before)
  }
  const root = dir()
  seed(root)
  assert.throws(() => open(root).compact(null, { compactor: { dead: 5 } }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && /options\.compactor\.dead: expected a function/.test(err.message))
  assert.throws(() => open(root).compact(null, { compactor: 'judge' }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && /options\.compactor/.test(err.message))
  assert.throws(() => open(root).compact('memory-none.md'), (err) => err.code === 'ERR_MEMORY_NOT_FOUND')
})

/** Resolves `value` after `ms` milliseconds, on a timer (the JS thread is free meanwhile). */
function later(value, ms = 5) {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms))
}

test('the Promise forms take a compactor: it evicts and summarizes, its calls run on the JS thread', async () => {
  const root = dir()
  seed(root)
  const memory = open(root, { topicLines: 6 })
  const sync = dir()
  seed(sync)
  const expected = open(sync, { topicLines: 6 }).compact('memory-infra.md', { compactor: judge })
  judge.calls.length = 0
  const before = tree(root)
  let pending
  assert.doesNotThrow(() => { pending = memory.compactAsync('memory-infra.md', { compactor: judge, dryRun: true }) })
  const dry = await pending
  assert.equal(dry.dry_run, true)
  assert.deepEqual(tree(root), before, 'a dry run writes nothing')
  const report = await memory.compactAsync('memory-infra.md', { compactor: judge })
  assert.deepEqual(report.files, dry.files, 'the dry run said exactly what happened')
  assert.deepEqual(report.files, expected.files, 'as the sync form decides')
  assert.equal(judge.calls[0], 'dead memory-infra.md 6', 'called with the object as this')
  assert.deepEqual(report.files[0].passes.map((p) => p.pass), ['evict-dead', 'collapse-superseded', 'summarize-episodic'])
  assert.deepEqual(memory.topic('memory-infra.md').entries.map((e) => e.text), ['Postgres 16', 'staging deploys need the VPN up first'])
  const archive = readFileSync(join(root, 'memory-archive.md'), 'utf8')
  for (const [pass, line] of [
    ['evict-dead', '- 2026-06-01: the legacy FTP box runs backups'],
    ['collapse-superseded', '- 2026-06-02 [db]: Postgres 15'],
    ['summarize-episodic', '- 2026-06-04: deploy failed on staging'],
    ['summarize-episodic', '- 2026-06-06: deploy on staging worked with VPN'],
  ]) {
    assert.ok(archive.includes(`## ${report.id} · ${pass} · memory-infra.md · ${FIXED}`), archive)
    assert.ok(archive.includes(line), line)
  }
  assert.equal((await memory.restoreAsync(report.id)).restored.length, 3)
})

test('an async compactor may answer with Promises, and a write over budget awaits them', async () => {
  const root = dir()
  seed(root)
  const memory = open(root, { topicLines: 6 })
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const asyncJudge = {
    async dead(topic, entries) {
      await later(null, 20)
      return entries.flatMap((e, i) => (e.text.includes('FTP') ? [i] : []))
    },
    collapse: (topic, subject, generations) => later(`${generations.at(-1).text} (was ${generations[0].text})`),
    summarize(topic, entries) {
      const story = entries.flatMap((e, i) => (e.text.includes('staging') ? [i] : []))
      return later(story.length < 2 ? [] : [{ entries: story, text: 'staging needs the VPN' }])
    },
  }
  try {
    const report = await memory.compactAsync('memory-infra.md', { compactor: asyncJudge })
    assert.ok(ticks > 5, `the event loop ran while the compactor was awaited (${ticks} ticks)`)
    assert.deepEqual(memory.topic('memory-infra.md').entries.map((e) => e.text), ['Postgres 16 (was Postgres 15)', 'staging needs the VPN'])
    assert.ok(report.id)
  } finally {
    clearInterval(timer)
  }
  // The budget trigger of rememberAsync takes the compactor too.
  const small = open(dir(), { topicLines: 3 })
  await small.rememberAsync({ topic: 'memory-infra.md', text: 'the legacy FTP box runs backups', date: '2026-06-01', hook: 'hosts' })
  await small.rememberAsync({ topic: 'memory-infra.md', text: 'Postgres 16', subject: 'db', date: '2026-06-02' })
  await small.rememberAsync({ topic: 'memory-infra.md', text: 'CoreDNS', subject: 'dns', date: '2026-06-03' })
  const out = await small.rememberAsync({ topic: 'memory-infra.md', text: 'Fastly', subject: 'cdn' }, { compactor: asyncJudge })
  assert.equal(out.compaction.files[0].passes[0].pass, 'evict-dead')
  assert.ok(readFileSync(join(small.root, 'memory-archive.md'), 'utf8').includes('FTP'))
})

test('a throw or a rejection in an async compactor rejects with that very value and changes nothing', async () => {
  for (const name of ['dead', 'collapse', 'summarize', 'split']) {
    const root = dir()
    seed(root, INFRA.replace('- 2026-06-06: deploy on staging worked with VPN\n', '- 2026-06-06 [cdn]: Fastly\n'))
    const memory = open(root, { topicLines: 2 })
    const thrown = new RangeError(`${name} is unavailable`)
    const before = tree(root)
    const failing = [
      { [name]() { throw thrown } },
      { [name]: () => Promise.reject(thrown) },
      { async [name]() { await later(null); throw thrown } },
      (request) => (request.pass === name ? later(null).then(() => { throw thrown }) : undefined),
    ]
    for (const compactor of failing) {
      let pending
      assert.doesNotThrow(() => { pending = memory.compactAsync('memory-infra.md', { compactor }) })
      await assert.rejects(pending, (err) => err === thrown, `${name}: the original error`)
      assert.deepEqual(tree(root), before, `${name}: byte-identical`)
      await assert.rejects(memory.rememberAsync({ topic: 'memory-infra.md', text: 'one more', subject: 'x' }, { compactor }), (err) => err === thrown)
      assert.deepEqual(tree(root), before, `${name}: a write whose compaction fails writes nothing`)
    }
    // Any value, not only Error objects, and undefined too.
    for (const value of ['plain string', 42, undefined, null]) {
      await assert.rejects(
        memory.compactAsync('memory-infra.md', { compactor: { [name]: () => Promise.reject(value) } }),
        (err) => err === value,
      )
    }
    assert.deepEqual(tree(root), before, name)
  }
  // An unusable answer is the native refusal, by name.
  const root = dir()
  seed(root)
  await assert.rejects(open(root, { topicLines: 1 }).compactAsync('memory-infra.md', { compactor: { dead: async () => [99] } }), (err) => err.code === 'ERR_MEMORY_ABORTED' && /99/.test(err.message))
  await assert.rejects(open(root, { topicLines: 1 }).compactAsync('memory-infra.md', { compactor: { dead: async () => 'x' } }), (err) => err.code === 'ERR_MEMORY_ABORTED' && /dead\(\)/.test(err.message))
  await assert.rejects(open(root).compactAsync(null, { compactor: { dead: 5 } }), (err) => err.code === 'ERR_MEMORY_INVALID_INPUT' && /options\.compactor\.dead/.test(err.message))
})

test('an AbortSignal stops a compaction waiting on a compactor Promise that never settles', async () => {
  const root = dir()
  seed(root)
  const memory = open(root, { topicLines: 2 })
  const before = tree(root)
  for (const pass of ['dead', 'summarize']) {
    const controller = new AbortController()
    let asked = 0
    const hung = {
      [pass]() {
        asked++
        setTimeout(() => controller.abort(new RangeError('the user gave up')), 20)
        return new Promise(() => {})
      },
    }
    await assert.rejects(memory.compactAsync('memory-infra.md', { compactor: hung }, { signal: controller.signal }), (err) => {
      assert.equal(err.code, 'ERR_MEMORY_ABORTED')
      assert.match(err.message, new RegExp(`${pass}\\(\\): stopped waiting for its answer: the AbortSignal was aborted`))
      assert.ok(err.cause instanceof RangeError && err.cause.message === 'the user gave up', 'cause: the signal reason')
      return true
    })
    assert.equal(asked, 1, pass)
    assert.deepEqual(tree(root), before, `${pass}: nothing written`)
    // The directory's lock is free at once: a sync call with no wait goes through.
    const quick = open(root, { lockTimeoutMs: 0 })
    assert.equal(quick.compact('memory-infra.md', { dryRun: true }).dry_run, true)
  }
  // The budget trigger of rememberAsync is stopped the same way; the write is not made.
  const controller = new AbortController()
  const pending = memory.rememberAsync(
    { topic: 'memory-infra.md', text: 'one more fact', subject: 'x' },
    { compactor: { dead: () => { setTimeout(() => controller.abort(), 20); return new Promise(() => {}) } } },
    { signal: controller.signal },
  )
  await assert.rejects(pending, (err) => err.code === 'ERR_MEMORY_ABORTED' && err.cause?.name === 'AbortError')
  assert.deepEqual(tree(root), before, 'the write whose compaction was stopped wrote nothing')
  // A signal that never fires changes nothing about a compactor that answers.
  const calm = new AbortController()
  const report = await memory.compactAsync('memory-infra.md', { compactor: { dead: async () => [] } }, { signal: calm.signal })
  assert.equal(report.dry_run, false)
})

test('a write by another program while the compactor runs is never overwritten (sync and Promise forms)', async () => {
  const { execFileSync } = await import('node:child_process')
  for (const form of ['sync', 'async']) {
    const root = dir()
    seed(root)
    const topic = join(root, 'memory-infra.md')
    const line = `- 2026-07-01 [hand]: typed in an editor (${form})\n`
    // Another process (an editor, Claude Code) appends without memory-core's lock.
    const editor = () => {
      execFileSync(process.execPath, ['-e', 'require("fs").appendFileSync(process.argv[1], process.argv[2])', topic, line])
      return []
    }
    const memory = open(root, { topicLines: 4 })
    const check = (err) => {
      assert.equal(err.code, 'ERR_MEMORY_CONFLICT', String(err))
      assert.equal(err.path, topic)
      assert.match(err.message, /nothing was written/)
      return true
    }
    if (form === 'sync') {
      assert.throws(() => memory.compact('memory-infra.md', { compactor: { dead: editor } }), check)
    } else {
      await assert.rejects(memory.compactAsync('memory-infra.md', { compactor: { dead: async () => editor() } }), check)
    }
    assert.ok(readFileSync(topic, 'utf8').endsWith(line), 'the editor\'s line is kept')
    assert.equal(existsSync(join(root, 'memory-archive.md')), false)
  }
})

test('two compactAsync with async compactors on different directories run side by side', async () => {
  const roots = [dir(), dir()]
  for (const root of roots) seed(root)
  let inside = 0
  let most = 0
  const slow = {
    async dead(topic, entries) {
      inside++
      most = Math.max(most, inside)
      await later(null, 50)
      inside--
      return entries.flatMap((e, i) => (e.text.includes('FTP') ? [i] : []))
    },
  }
  const reports = await Promise.all(roots.map((root) => open(root, { topicLines: 6 }).compactAsync('memory-infra.md', { compactor: slow })))
  assert.equal(most, 2, 'both compactions waited on their compactor at once')
  for (const [i, root] of roots.entries()) {
    assert.equal(reports[i].files[0].passes[0].pass, 'evict-dead')
    assert.ok(readFileSync(join(root, 'memory-archive.md'), 'utf8').includes('FTP'))
  }
})

test('a plain function is a compactor: one request per pass, undefined for the default', async () => {
  const root = dir()
  seed(root)
  const requests = []
  const fn = (request) => {
    requests.push(request)
    if (request.pass === 'dead') return request.entries.flatMap((e, i) => (e.text.includes('FTP') ? [i] : []))
    if (request.pass === 'summarize') {
      return [{ entries: request.entries.flatMap((e, i) => (e.text.includes('staging') ? [i] : [])), text: 'staging deploys need the VPN up first' }]
    }
    return undefined
  }
  const memory = open(root, { topicLines: 6 })
  const same = memory.compact('memory-infra.md', { compactor: judge, dryRun: true })
  const report = memory.compact('memory-infra.md', { compactor: fn })
  assert.deepEqual(report.files, same.files, 'the function form decides as the object form')
  assert.deepEqual(requests.slice(0, 3).map((r) => r.pass), ['dead', 'collapse', 'summarize'])
  assert.deepEqual(Object.keys(requests[0]), ['pass', 'topic', 'entries'])
  assert.equal(requests[0].topic.file, 'memory-infra.md')
  assert.deepEqual(Object.keys(requests[1]), ['pass', 'topic', 'subject', 'generations'])
  assert.equal(requests[1].subject, 'db')
  assert.ok(readFileSync(join(root, 'memory-archive.md'), 'utf8').includes('- 2026-06-01: the legacy FTP box runs backups'))
  // undefined and null everywhere are the default compactor, in both forms.
  const other = dir()
  seed(other)
  const m = open(other, { topicLines: 6 })
  const defaults = m.compact(null, { dryRun: true }).files
  assert.deepEqual(m.compact(null, { dryRun: true, compactor: () => undefined }).files, defaults)
  assert.deepEqual(m.compact(null, { dryRun: true, compactor: () => null }).files, defaults)
  assert.deepEqual((await m.compactAsync(null, { dryRun: true, compactor: async () => undefined })).files, defaults)
  // The async form awaits a plain function's Promise.
  const third = dir()
  seed(third)
  const asyncReport = await open(third, { topicLines: 6 }).compactAsync('memory-infra.md', { compactor: async (request) => fn(request) })
  assert.deepEqual(asyncReport.files, same.files)
  // The index passes: { pass, index }.
  const idx = dir()
  mkdirSync(idx, { recursive: true })
  writeFileSync(join(idx, 'MEMORY.md'), '- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\n')
  writeFileSync(join(idx, 'memory-a.md'), '# A\n\n- 2026-06-01: a fact\n')
  writeFileSync(join(idx, 'memory-b.md'), '# B\n\n- 2026-06-02: b fact\n')
  const seen = []
  const indexJudge = (request) => {
    seen.push(Object.keys(request).join(','))
    if (request.pass === 'route_content') return request.index.content.map((_, i) => [i, 'memory-a.md'])
    if (request.pass === 'merge_topics') return [['memory-b.md', 'memory-a.md']]
  }
  const before = tree(idx)
  assert.throws(() => open(idx, { indexLines: 1 }).compact('MEMORY.md', { compactor: (r) => (r.pass === 'route_content' ? [[0]] : undefined) }), (err) => err.code === 'ERR_MEMORY_ABORTED' && /compactor\(\{ pass: "route_content" \}\)/.test(err.message))
  assert.deepEqual(tree(idx), before)
  const thrown = new Error('no judgment today')
  assert.throws(() => open(idx, { indexLines: 1 }).compact('MEMORY.md', { compactor: () => { throw thrown } }), (err) => err === thrown)
  assert.deepEqual(tree(idx), before)
  const indexReport = await open(idx, { indexLines: 1 }).compactAsync('MEMORY.md', { compactor: indexJudge })
  assert.deepEqual(seen, ['pass,index', 'pass,index'])
  assert.equal(indexReport.files[0].after.lines, 1)
  assert.ok(readFileSync(join(idx, 'memory-a.md'), 'utf8').includes('b fact'))
})

test('a sync call whose compactor returns a Promise is refused with a memory error, nothing written', () => {
  const root = dir()
  seed(root)
  const before = tree(root)
  for (const compactor of [{ dead: async () => [] }, async () => undefined]) {
    assert.throws(() => open(root, { topicLines: 2 }).compact('memory-infra.md', { compactor }), (err) => err instanceof MemoryCoreError && err.code === 'ERR_MEMORY_ABORTED' && /Promise form/.test(err.message))
    assert.deepEqual(tree(root), before)
  }
})

test('a held lock times out in both forms; the Promise form waits without blocking', async () => {
  const root = dir()
  seed(root)
  const quick = open(root, { lockTimeoutMs: 200 })
  const holder = await holdLock(join(root, '.memcore.lock'))
  let pending
  try {
    const before = tree(root)
    assert.throws(() => quick.remember({ topic: 'memory-infra.md', text: 'blocked' }), (err) => err.code === 'ERR_MEMORY_LOCK_TIMEOUT' && err.path === join(quick.root, '.memcore.lock'))
    await assert.rejects(quick.compactAsync('memory-infra.md'), (err) => err.code === 'ERR_MEMORY_LOCK_TIMEOUT')
    assert.deepEqual(tree(root), before)
    pending = open(root, { lockTimeoutMs: 30_000 }).rememberAsync({ topic: 'memory-infra.md', text: 'waited', subject: 'w' })
    await new Promise((resolve) => setTimeout(resolve, 300))
  } finally {
    await holder.release()
  }
  assert.equal((await pending).entry.text, 'waited')
})

test('an index over budget is compacted by a JS compactor (routeContent, mergeTopics)', () => {
  const root = dir()
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'MEMORY.md'), '- [A](memory-a.md) — deploys\n- [B](memory-b.md) — deploy notes\nThe deploy hook runs first.\n')
  writeFileSync(join(root, 'memory-a.md'), '# A\n\n- 2026-06-01: a fact\n')
  writeFileSync(join(root, 'memory-b.md'), '# B\n\n- 2026-06-02: b fact\n')
  const memory = open(root, { indexLines: 1 })
  const judge = {
    routeContent(index) { return index.content.map((_, i) => [i, 'memory-a.md']) },
    mergeTopics() { return [['memory-b.md', 'memory-a.md']] },
  }
  const report = memory.compact('MEMORY.md', { compactor: judge })
  assert.equal(report.files[0].file, 'MEMORY.md')
  assert.equal(report.files[0].after.lines, 1)
  assert.ok(!existsSync(join(root, 'memory-b.md')))
  const text = readFileSync(join(root, 'memory-a.md'), 'utf8')
  assert.ok(text.includes('The deploy hook runs first.') && text.includes('b fact'), text)
  writeFileSync(join(root, 'MEMORY.md'), '- [A](memory-a.md) — deploys\nstray content\n')
  const before = tree(root)
  assert.throws(() => memory.compact('MEMORY.md', { compactor: { routeContent: () => [[0]] } }), /routeContent/)
  assert.deepEqual(tree(root), before)
})

test('a fact goes under the section it names or above the first, and keeps its indentation', () => {
  const root = dir()
  seed(root, '# Infra\n\n## Hosts\n- 2026-06-01: web1\n\n## Databases\n- 2026-06-02: db1\n')
  const memory = open(root)
  memory.remember({ topic: 'memory-infra.md', text: 'backups run nightly' })
  const out = memory.remember({ topic: 'memory-infra.md', text: 'db2:\n  - a replica', section: 'databases' })
  assert.equal(out.entry.text, 'db2:\n  - a replica')
  assert.equal(
    readFileSync(join(root, 'memory-infra.md'), 'utf8'),
    '# Infra\n\n- 2026-07-10: backups run nightly\n\n## Hosts\n- 2026-06-01: web1\n\n' +
      '## Databases\n- 2026-06-02: db1\n- 2026-07-10: db2:\n    - a replica\n',
  )
  const before = readFileSync(join(root, 'memory-infra.md'))
  assert.throws(
    () => memory.remember({ topic: 'memory-infra.md', text: 'x', section: '## Hosts' }),
    (e) => e instanceof MemoryCoreError && e.code === 'ERR_MEMORY_INVALID_INPUT' && e.message.includes('invalid section'),
  )
  assert.throws(
    () => memory.remember({ topic: 'memory-infra.md', text: 'x', section: 3 }),
    (e) => e.code === 'ERR_MEMORY_INVALID_INPUT',
  )
  assert.throws(() => memory.remember({ topic: 'memory-infra.md', text: '```\ncode\n```' }), (e) => e.code === 'ERR_MEMORY_INVALID_INPUT')
  assert.deepEqual(readFileSync(join(root, 'memory-infra.md')), before)
})

test('a new topic gets the frontmatter type given, and an existing one keeps its own', () => {
  const root = dir()
  const memory = open(root)
  memory.remember({ topic: 'feedback_tests.md', text: 'no mocks', hook: 'how tests are written', type: 'feedback' })
  assert.equal(
    readFileSync(join(root, 'feedback_tests.md'), 'utf8'),
    '---\nname: Feedback tests\ndescription: how tests are written\ntype: feedback\n---\n\n- 2026-07-10: no mocks\n',
  )
  assert.equal(memory.topic('feedback_tests.md').meta.type, 'feedback')
  memory.remember({ topic: 'project_deploy.md', text: 'staging first', hook: 'how releases ship' })
  assert.ok(
    readFileSync(join(root, 'project_deploy.md'), 'utf8').startsWith('---\nname: Project deploy\ndescription: how releases ship\n---\n'),
  )
  const before = tree(root)
  assert.throws(
    () => memory.remember({ topic: 'feedback_tests.md', text: 'x', type: 'user' }),
    (e) => e.code === 'ERR_MEMORY_INVALID_INPUT' && e.message.includes('its type is feedback'),
  )
  assert.throws(() => memory.remember({ topic: 'new.md', text: 'x', hook: 'h', type: 'two words' }), (e) => e.code === 'ERR_MEMORY_INVALID_INPUT')
  assert.deepEqual(tree(root), before)
})
