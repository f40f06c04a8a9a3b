// Runs the cross-language conformance corpus (tests/corpus/, see its README) through the
// Node binding: the same cases the Rust and Python suites run, so no surface can drift
// from the core. One test per case, so a failure names its case. The Agent Memory cases
// run with AgentMemory, the context-memory cases (tests/corpus/context/) with ContextMemory,
// the structured-memory cases (tests/corpus/structured/) with StructuredMemory.
import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

import { ContextMemory, StructuredMemory } from '../index.js'
import { AgentMemory, memoryRoot } from './helpers.mjs'

const CORPUS = fileURLToPath(new URL('../../tests/corpus/', import.meta.url))
const CONTEXT_CORPUS = join(CORPUS, 'context')
const STRUCTURED_CORPUS = join(CORPUS, 'structured')

/** The case directories under `dir` (those holding a `case.json`), sorted. */
function casesIn(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'case.json')))
    .map((entry) => entry.name)
    .sort()
}

const CASES = casesIn(CORPUS)
const CONTEXT_CASES = casesIn(CONTEXT_CORPUS)
const STRUCTURED_CASES = casesIn(STRUCTURED_CORPUS)

/**
 * How each corpus op is called in Node: the names of its positional arguments (corpus
 * snake_case), and whether the remaining arguments form its options object (keys in
 * camelCase). An argument an op does not take fails the test rather than being dropped.
 */
const SIGNATURES = {
  register_session_start: { positional: ['agent'] },
  register_manual: { positional: [], object: true },
  update: { positional: ['session_id'], object: true },
  continue_from: { positional: ['current', 'source'] },
  release: { positional: ['current', 'source'] },
  organize: { positional: [], object: true },
  archive: { positional: ['session_id'] },
  sessions: { positional: [] },
  session: { positional: ['session_id'] },
  snapshot: { positional: ['session_id'] },
  find: { positional: ['query'] },
}

const ENTRY_ARGS = [
  'namespace', 'category', 'tags', 'body', 'status', 'summary', 'slug', 'rationale',
  'confidence', 'source_path', 'supersedes', 'related', 'diagram', 'force_new',
]
const PATCH_ARGS = ['status', 'tags', 'summary', 'body', 'rationale', 'confidence', 'source_path']

/**
 * How each context-memory corpus op is called in Node: its positional arguments, then
 * (`object`) the arguments it takes as one options object with camelCase keys, or
 * (`plan`, `pairs`) the one argument Node shapes differently from Python.
 */
const CONTEXT_SIGNATURES = {
  write: { positional: [], object: ENTRY_ARGS },
  supersede: { positional: ['old'], object: ENTRY_ARGS },
  get: { positional: ['name'] },
  promote: { positional: ['name'] },
  update: { positional: ['name'], object: PATCH_ARGS },
  query: { positional: [], object: ['namespaces', 'category', 'tags', 'text', 'history', 'limit'] },
  promote_to: { positional: ['name', 'namespace'] },
  verify: { positional: ['namespace'] },
  heal: { positional: ['namespace'] },
  pending_refresh: { positional: ['namespace'] },
  namespaces: { positional: [] },
  // `split(namespace, { mapping })`: the mapping's keys are entity names, kept as they are.
  split: { positional: ['namespace'], plan: 'mapping' },
  // `endSession([[name, namespace], …])`: the corpus pairs as they are.
  end_session: { positional: [], pairs: 'promote' },
}

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase())
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** Calls corpus op `op` with corpus `args` on `memory` through the camelCase API. */
function call(memory, op, args) {
  const signature = SIGNATURES[op]
  assert.ok(signature, `unknown corpus op ${op}`)
  const rest = { ...args }
  const positional = signature.positional.map((name) => {
    assert.ok(name in rest, `missing argument ${name} of ${op}`)
    const value = rest[name]
    delete rest[name]
    return value
  })
  if (signature.object) {
    positional.push(Object.fromEntries(Object.entries(rest).map(([k, v]) => [camel(k), v])))
  } else {
    assert.deepEqual(Object.keys(rest), [], `arguments ${op} does not take`)
  }
  const method = camel(op)
  assert.equal(typeof memory[method], 'function', `AgentMemory has no method ${method}`)
  return memory[method](...positional)
}

/** Calls context-memory corpus op `op` with corpus `args` on `memory` (camelCase API). */
function callContext(memory, op, args) {
  const signature = CONTEXT_SIGNATURES[op]
  assert.ok(signature, `unknown context corpus op ${op}`)
  const rest = { ...args }
  const positional = signature.positional.map((name) => {
    assert.ok(name in rest, `missing argument ${name} of ${op}`)
    const value = rest[name]
    delete rest[name]
    return value
  })
  if (signature.object) {
    const unknown = Object.keys(rest).filter((k) => !signature.object.includes(k))
    assert.deepEqual(unknown, [], `arguments ${op} does not take`)
    const options = {}
    for (const [key, value] of Object.entries(rest)) {
      options[camel(key)] =
        key === 'diagram' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), v])) : value
    }
    positional.push(options)
  } else if (signature.plan || signature.pairs) {
    const key = signature.plan ?? signature.pairs
    assert.deepEqual(Object.keys(rest).filter((k) => k !== key), [], `arguments ${op} does not take`)
    if (key in rest) positional.push(signature.plan ? { [key]: rest[key] } : rest[key])
  } else {
    assert.deepEqual(Object.keys(rest), [], `arguments ${op} does not take`)
  }
  const method = camel(op)
  assert.equal(typeof memory[method], 'function', `ContextMemory has no method ${method}`)
  return memory[method](...positional)
}

/** The arguments each structured-memory corpus op takes (corpus names). */
const STRUCTURED_ARGS = {
  remember: ['topic', 'text', 'subject', 'date', 'title', 'hook'],
  index: [],
  topic: ['file'],
  recall: ['query'],
  check: [],
  compact: ['file', 'dry_run'],
  restore: ['id'],
}

/** Calls structured-memory corpus op `op` with corpus `args` on `memory` (camelCase API). */
function callStructured(memory, op, args) {
  const allowed = STRUCTURED_ARGS[op]
  assert.ok(allowed, `unknown structured corpus op ${op}`)
  assert.deepEqual(Object.keys(args).filter((k) => !allowed.includes(k)), [], `arguments ${op} does not take`)
  switch (op) {
    case 'remember':
      return memory.remember({ ...args })
    case 'topic':
      return memory.topic(args.file)
    case 'recall':
      return memory.recall(args.query)
    case 'compact':
      return memory.compact(args.file ?? null, { dryRun: args.dry_run ?? false })
    case 'restore':
      return memory.restore(args.id)
    default:
      return memory[op]()
  }
}

/**
 * `value` with every string that is a path under `root` made relative to it (POSIX
 * separators), as the corpus writes the paths in results.
 */
function relativeTo(root, value) {
  const prefix = root + sep
  if (typeof value === 'string') {
    return value.startsWith(prefix) ? value.slice(prefix.length).split(sep).join('/') : value
  }
  if (Array.isArray(value)) return value.map((v) => relativeTo(root, v))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, relativeTo(root, v)]))
  }
  return value
}

/** A binding result with the core's snake_case keys (values, e.g. statuses, unchanged). */
function asJson(value) {
  if (Array.isArray(value)) return value.map(asJson)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), asJson(v)]))
  }
  return value
}

/**
 * Whether `actual` matches `expected`: objects by the keys given, arrays element-wise,
 * the rest by strict equality. Absent values are `null` in every surface, so an expected
 * `null` needs a present `null` (no leniency for a missing property).
 */
function matches(expected, actual) {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((e, i) => matches(e, actual[i]))
    )
  }
  if (expected !== null && typeof expected === 'object') {
    return (
      actual !== null &&
      typeof actual === 'object' &&
      !Array.isArray(actual) &&
      Object.entries(expected).every(([k, v]) => k in actual && matches(v, actual[k]))
    )
  }
  return expected === actual
}

/** Every file under `root` by relative path (POSIX separators), the lock file excluded. */
function treeOf(root) {
  const tree = new Map()
  if (!existsSync(root)) return tree
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === '.memcore.lock') continue
    const path = join(entry.parentPath ?? entry.path, entry.name)
    tree.set(relative(root, path).split(sep).join('/'), readFileSync(path))
  }
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

function assertSameTree(actual, expected, message) {
  assert.deepEqual([...actual.keys()], [...expected.keys()], `${message}: the file lists differ`)
  for (const [path, bytes] of expected) {
    const got = actual.get(path)
    if (!got.equals(bytes)) {
      // The text diff is the readable one; the byte check catches what decoding hides.
      assert.equal(got.toString('utf8'), bytes.toString('utf8'), `${message}: ${path} differs`)
      assert.fail(`${message}: ${path} differs in bytes`)
    }
  }
}

/** The corpus kind of an `ERR_MEMORY_*` code: `ERR_MEMORY_NOT_FOUND` → `not_found`. */
function kindOf(code) {
  assert.match(String(code), /^ERR_MEMORY_[A-Z_]+$/, `not a memory-core error code: ${code}`)
  return code.slice('ERR_MEMORY_'.length).toLowerCase()
}

/**
 * The two models the corpus covers: how a step opens the root and calls an op, and how
 * an error names its entity or session.
 */
const MODELS = {
  agent: {
    open: (root, fixedTime) => new AgentMemory(root, { fixedTime }),
    call: (memory, op, args) => asJson(call(memory, op, args)),
    id: (err) => err.sessionId,
  },
  context: {
    open: (root, fixedTime) => new ContextMemory(root, { fixedTime }),
    // Context results carry the core's snake_case keys already.
    call: (memory, op, args) => relativeTo(memory.root, callContext(memory, op, args)),
    // An entity's conflicts that reuse the core's session-consistency error (promote or
    // supersede of history) carry the name as `sessionId`.
    id: (err) => err.entityName ?? err.sessionId,
  },
  structured: {
    open: (root, fixedTime, budgets = {}) =>
      new StructuredMemory(root, {
        fixedTime,
        indexLines: budgets.index_lines ?? 60,
        topicLines: budgets.topic_lines ?? 150,
      }),
    call: (memory, op, args) => relativeTo(memory.root, callStructured(memory, op, args)),
    id: (err) => err.sessionId,
  },
}

function runCase(dir, model) {
  const name = dir.split(sep).pop()
  const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'))
  const { open, call: callOp, id } = MODELS[model]
  const root = memoryRoot()
  mkdirSync(root, { recursive: true })
  if (existsSync(join(dir, 'before'))) cpSync(join(dir, 'before'), root, { recursive: true })
  let now = spec.now
  spec.steps.forEach((step, i) => {
    now = step.now ?? now
    const memory = open(root, now, spec.budgets)
    const { op, args = {}, expect } = step
    const at = `step ${i} (${op} ${JSON.stringify(args)})`
    const before = treeOf(root)
    let value
    let error
    // What a context- or structured-memory step warns of (recall's process warnings) is
    // caught as it is emitted and checked against `expect.warnings` below.
    const emitted = []
    const emit = process.emitWarning
    if (model !== 'agent') process.emitWarning = (warning) => emitted.push(warning)
    try {
      value = callOp(memory, op, args)
    } catch (err) {
      if (!(err instanceof Error) || typeof err.code !== 'string' || !err.code.startsWith('ERR_MEMORY_')) {
        throw err
      }
      error = err
    } finally {
      process.emitWarning = emit
    }
    if (error) {
      const wanted = expect.error
      assert.ok(wanted, `${at}: unexpected ${error.code}: ${error.message}`)
      assert.equal(kindOf(error.code), wanted.kind, `${at}: ${error.message}`)
      if ('line' in wanted) assert.equal(error.line, wanted.line, `${at}: ${error.message}`)
      if ('path_ends_with' in wanted) {
        assert.equal(typeof error.path, 'string', `${at}: no path on ${error.message}`)
        assert.ok(
          error.path.split(sep).join('/').endsWith(wanted.path_ends_with),
          `${at}: path ${error.path} does not end with ${wanted.path_ends_with}`,
        )
      }
      if ('id' in wanted) assert.equal(id(error), wanted.id, `${at}: ${error.message}`)
      if ('field' in wanted) assert.equal(error.field, wanted.field, `${at}: ${error.message}`)
      if ('secret_kind' in wanted) assert.equal(error.secretKind, wanted.secret_kind, `${at}: ${error.message}`)
    } else {
      assert.ok(!('error' in expect), `${at}: expected ${JSON.stringify(expect.error)}, got ${JSON.stringify(value)}`)
      if ('value' in expect) {
        assert.ok(
          matches(expect.value, value),
          `${at}: expected ${JSON.stringify(expect.value)}, got ${JSON.stringify(value)}`,
        )
      }
      if (model !== 'agent') {
        const wanted = expect.warnings ?? []
        const got = emitted.map((w) => `${w.name} ${w.code} ${w.message}`)
        assert.equal(emitted.length, wanted.length, `${at}: expected warnings ${JSON.stringify(wanted)}, got ${got}`)
        emitted.forEach((w, k) => {
          assert.equal(w.name, 'MemoryCoreWarning', `${at}: ${got[k]}`)
          assert.equal(relativeTo(memory.root, w.path), wanted[k].path, `${at}: ${got[k]}`)
          assert.equal(w.line, wanted[k].line, `${at}: ${got[k]}`)
          assert.ok(w.message.includes(wanted[k].contains), `${at}: ${got[k]}`)
        })
      }
    }
    if (expect.unchanged) assertSameTree(treeOf(root), before, `${at}: the step must not write`)
  })
  assertSameTree(treeOf(root), treeOf(join(dir, 'expected')), `${name}: the root after the last step`)
}

test('the corpus is there', () => {
  assert.ok(CASES.length >= 9, `expected the corpus under ${CORPUS}, found ${CASES}`)
  assert.ok(CONTEXT_CASES.length >= 12, `expected the context corpus under ${CONTEXT_CORPUS}, found ${CONTEXT_CASES}`)
  assert.ok(STRUCTURED_CASES.length >= 4, `expected the structured corpus under ${STRUCTURED_CORPUS}, found ${STRUCTURED_CASES}`)
})

for (const name of CASES) {
  test(`corpus ${name}`, () => runCase(join(CORPUS, name), 'agent'))
}

for (const name of CONTEXT_CASES) {
  test(`context corpus ${name}`, () => runCase(join(CONTEXT_CORPUS, name), 'context'))
}

for (const name of STRUCTURED_CASES) {
  test(`structured corpus ${name}`, () => runCase(join(STRUCTURED_CORPUS, name), 'structured'))
}
