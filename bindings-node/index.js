// The entry module of the npm package `memory-core` (hand-written; `native.js` is the
// loader napi generates). It only adapts the native module to JavaScript:
//
// - results arrive as JSON text (one JSON.parse builds the objects much faster than
//   napi setting each property; absent values are `null`), lists of rows as one packed
//   string that `unpackRows` slices;
// - each Promise form (`…Async`) makes one attempt with a zero lock timeout on the libuv
//   pool; while another writer holds the lock it is retried on a timer with backoff
//   until `lockTimeoutMs`, so a waiting call holds no pool thread, and
//   `options.signal` (an AbortSignal) stops the wait; a Promise form never throws;
// - `registerSessionStart` emits the rows it could not read as process warnings, and
//   `StructuredMemory.recall` what `memcore topics recall` says on stderr;
// - `ContextMemory` (context-memory) is wrapped the same way; its results are the core
//   types' serde JSON, keys snake_case as `memcore --json` prints them (its static
//   functions, `installHooks`… , return objects already: napi makes statics read-only);
// - `StructuredMemory` (structured-memory) likewise; the compactor of its `remember` and
//   `compact` (an object of functions, or one plain function called with a request per
//   pass) is handed to the native module with each function wrapped to take and return
//   JSON text: `compactorFor` for the sync forms (what it throws is thrown again as it
//   is), `asyncCompactorFor` for the Promise forms (the worker posts each call to this
//   thread; a function may return a Promise; a throw or rejection becomes the Promise
//   form's rejection, as it is);
// - `AgentMemory` called without `new` throws a TypeError, as a JS class does;
// - `MemoryCoreError` / `isMemoryCoreError` recognise the errors, and
//   `util.inspect(memory)` shows the root.
'use strict'

const { inspect } = require('node:util')
const native = require('./native.js')

const NativeAgentMemory = native.AgentMemory
const NativeContextMemory = native.ContextMemory
const NativeStructuredMemory = native.StructuredMemory

/**
 * An exported class: the native one behind a Proxy whose only trap is `apply`, so that
 * calling it without `new` throws the TypeError a JS class throws (napi's constructor
 * would otherwise treat the receiver, e.g. `globalThis`, as the new handle). `new`,
 * `instanceof`, `extends`, statics and the prototype are the native class's own.
 */
function guarded(Native) {
  return new Proxy(Native, {
    apply() {
      throw new TypeError(`Class constructor ${Native.name} cannot be invoked without 'new'`)
    },
  })
}

const AgentMemory = guarded(NativeAgentMemory)
const ContextMemory = guarded(NativeContextMemory)
const StructuredMemory = guarded(NativeStructuredMemory)

/** Whether `value` is an error memory-core threw or rejected with. */
function isMemoryCoreError(value) {
  return value instanceof Error && typeof value.code === 'string' && value.code.startsWith('ERR_MEMORY_')
}

/** `err instanceof MemoryCoreError` is `isMemoryCoreError(err)`; not constructible. */
class MemoryCoreError extends Error {
  constructor() {
    super('MemoryCoreError is not constructible; memory-core creates its errors itself')
    throw new TypeError(this.message)
  }

  static [Symbol.hasInstance](value) {
    return isMemoryCoreError(value)
  }
}

/**
 * Rebuilds the rows of `sessions`, `sessionsWithStatus` and `find` from the native
 * `[text, layout]` pair (see `PackedRows` in src/types.rs): `layout` is the row count,
 * each row's keyword count, `Referenced By` count and status, then the end of every
 * field in `text`.
 */
const STATUSES = ['idle', 'active', 'stale']

function unpackRows([text, layout]) {
  const count = layout[0]
  const rows = new Array(count)
  let shape = 1
  let end = 1 + 3 * count
  let at = 0
  const next = () => {
    const stop = layout[end++]
    const field = text.slice(at, stop)
    at = stop
    return field
  }
  for (let i = 0; i < count; i++) {
    const keywordCount = layout[shape++]
    const referenceCount = layout[shape++]
    const status = STATUSES[layout[shape++]]
    const sessionId = next()
    const agentName = next()
    const topic = next()
    const summary = next()
    const keywords = new Array(keywordCount)
    for (let k = 0; k < keywordCount; k++) keywords[k] = next()
    const referencedBy = new Array(referenceCount)
    for (let k = 0; k < referenceCount; k++) referencedBy[k] = next()
    const startedAt = next()
    const updatedAt = next()
    rows[i] = { sessionId, agentName, topic, summary, keywords, status, referencedBy, startedAt, updatedAt }
  }
  return rows
}

const same = (value) => value

/**
 * `registerSessionStart`: the native result is the whole `SessionStart`; each row of
 * another session it could not read is emitted as a process warning (`MemoryCoreWarning`,
 * code `MEMCORE_UNREADABLE_ROW`, with `path` and `line`), and the id is returned.
 */
function startedId(text) {
  const start = JSON.parse(text)
  for (const { path, line, message } of start.warnings) emitWarning('MEMCORE_UNREADABLE_ROW', path, line, message)
  return start.sessionId
}

/**
 * `StructuredMemory.recall`: the native result is the hits and the warnings `memcore
 * topics recall` prints on stderr, each with the `MEMORY.md` path and its line; each is
 * emitted as a process warning (`MemoryCoreWarning`, code `MEMCORE_RECALL_WARNING`, `path`
 * that path, `line` 0 for a symbolic-link index, the index line of a hit whose topic file
 * does not exist), and the hits are returned.
 */
function recalledHits(text) {
  const { hits, warnings } = JSON.parse(text)
  for (const { path, line, message } of warnings) emitWarning('MEMCORE_RECALL_WARNING', path, line, message)
  return hits
}

/** Emits `message` about `path`, line `line`, as a `MemoryCoreWarning` with `code`. */
function emitWarning(code, path, line, message) {
  const warning = new Error(`${path}:${line}: ${message}`)
  warning.name = 'MemoryCoreWarning'
  warning.code = code
  warning.path = path
  warning.line = line
  process.emitWarning(warning)
}

// Method name → number of positional arguments before the Promise form's options, and
// how the native result becomes the JS one (JSON text, packed rows, or as it is).
const METHODS = {
  sessionPath: [1, same],
  archiveDir: [1, same],
  registerSessionStart: [1, startedId],
  registerSessionStartWithWarnings: [1, JSON.parse],
  registerManual: [1, same],
  update: [2, JSON.parse],
  continueFrom: [2, JSON.parse],
  release: [2, JSON.parse],
  organize: [1, JSON.parse],
  archive: [1, JSON.parse],
  sessions: [0, unpackRows],
  sessionsWithStatus: [1, unpackRows],
  session: [1, JSON.parse],
  snapshot: [1, JSON.parse],
  find: [1, unpackRows],
}

// ContextMemory: every result is the core type's serde JSON (snake_case keys).
const CONTEXT_METHODS = {
  write: [1, JSON.parse],
  get: [1, JSON.parse],
  update: [2, JSON.parse],
  query: [1, JSON.parse],
  queryAnswer: [1, JSON.parse],
  supersede: [2, JSON.parse],
  promote: [1, JSON.parse],
  promoteTo: [2, JSON.parse],
  verify: [1, JSON.parse],
  heal: [1, JSON.parse],
  namespaces: [0, JSON.parse],
  split: [2, JSON.parse],
  endSession: [1, JSON.parse],
  pendingRefresh: [1, JSON.parse],
  pendingRefreshReport: [1, JSON.parse],
  recordChanges: [2, JSON.parse],
  clearRefresh: [2, JSON.parse],
  migrate: [1, JSON.parse],
}

// StructuredMemory: serde JSON as for ContextMemory; `remember` and `compact` take a
// compactor in their options (second argument), in both forms.
const COMPACTOR_METHODS = ['dead', 'collapse', 'summarize', 'split', 'routeContent', 'mergeTopics']

/**
 * What a plain-function compactor is asked, per method: its `pass` and the names of the
 * method's arguments (the first is the topic, or the index for the two index passes).
 */
const PASSES = {
  dead: ['dead', 'topic', 'entries'],
  collapse: ['collapse', 'topic', 'subject', 'generations'],
  summarize: ['summarize', 'topic', 'entries'],
  split: ['split', 'topic', 'entries'],
  routeContent: ['route_content', 'index'],
  mergeTopics: ['merge_topics', 'index'],
}

/** What a wrapped function answers for "the default" (a plain function's `undefined`/`null`). */
const USE_DEFAULT = ''
/** What a wrapped function answers when the caller's function threw or rejected (kept aside). */
const THREW = '\u0000threw'
/** What a wrapped function of a sync form answers when the caller's function returned a Promise. */
const PROMISE_IN_SYNC = '\u0000promise'

/**
 * The raw answer of `compactor` for method `name`: the object's own or inherited
 * function called with `compactor` as `this`, or a plain function called with one
 * request `{ pass, topic, entries… }` (then `undefined`/`null` is `USE_DEFAULT`, after
 * `settle`). `args` are the parsed arguments.
 */
function ask(compactor, name, args) {
  if (typeof compactor !== 'function') return compactor[name].call(compactor, ...args)
  const [pass, ...keys] = PASSES[name]
  const request = { pass }
  keys.forEach((key, i) => (request[key] = args[i]))
  return compactor(request)
}

/** The JSON text of an answer (`undefined` from an object's method is `null`). */
function answerText(compactor, answer) {
  if (typeof compactor === 'function' && answer == null) return USE_DEFAULT
  try {
    return JSON.stringify(answer === undefined ? null : answer) ?? 'undefined'
  } catch {
    // A BigInt, a cycle, a throwing toJSON: not JSON, which the native side refuses as
    // "a value JSON cannot represent" (a memory error, nothing written).
    return 'undefined'
  }
}

/**
 * The compactor object the native module reads: for each of the functions `compactor`
 * has (or all six, for a plain function), `wrap(name)`; a value that is not a function
 * is handed over as it is, for the native side to refuse by name. `functionForm` tells
 * the native side to name the pass in its messages.
 */
function wrapped(compactor, wrap) {
  if (compactor === null || (typeof compactor !== 'object' && typeof compactor !== 'function')) return compactor
  const functionForm = typeof compactor === 'function'
  const out = { functionForm }
  for (const name of COMPACTOR_METHODS) {
    const fn = functionForm ? compactor : compactor[name]
    out[name] = typeof fn === 'function' ? wrap(name) : fn
  }
  return out
}

/**
 * The compactor of a sync form: each function wrapped as
 * `(topicJson, argsJson) => resultJson`. What a function throws passes through
 * unchanged (the native side throws it again); a result JSON cannot represent
 * (`undefined` aside) reaches the native side as `undefined`, refused there.
 */
function compactorFor(compactor) {
  return wrapped(compactor, (name) => (topic, rest) => {
    let answer
    try {
      answer = ask(compactor, name, [JSON.parse(topic), ...JSON.parse(rest)])
    } catch (thrown) {
      // napi can hold (and throw again) only an object; a thrown primitive travels boxed.
      if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') throw thrown
      throw new ThrownValue(thrown)
    }
    if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
      answer.then(undefined, () => {}) // it is not awaited: keep its rejection handled
      return PROMISE_IN_SYNC // refused by the native side as a memory error, nothing written
    }
    return answerText(compactor, answer)
  })
}

/** The answer that tells the native side the `AbortSignal` fired while a function ran. */
const ABORTED = '\u0000aborted'
/** What `untilAborted` rejects with when the signal fires (never a caller's value). */
const STOPPED = Symbol('stopped by the AbortSignal')

/**
 * `value` (an answer or a Promise of one), or a rejection with `STOPPED` as soon as
 * `signal` fires: a compactor Promise that never settles cannot keep the directory's
 * lock past an abort.
 */
function untilAborted(value, signal) {
  if (signal == null || typeof signal.addEventListener !== 'function') return value
  if (signal.aborted) return Promise.reject(STOPPED)
  return new Promise((resolve, reject) => {
    const stop = () => reject(STOPPED)
    signal.addEventListener('abort', stop, { once: true })
    Promise.resolve(value).then(
      (answer) => {
        signal.removeEventListener('abort', stop)
        resolve(answer)
      },
      (err) => {
        signal.removeEventListener('abort', stop)
        reject(err)
      },
    )
  })
}

/**
 * The compactor of a Promise form: each function wrapped as an
 * `async (topicJson, argsJson) => resultJson` that never rejects. It awaits the answer
 * (a value or a Promise); a throw or a rejection is kept in `failure` (the first one) and
 * answered with `THREW`, so that the native side aborts and `failure.value` becomes the
 * Promise form's rejection. When `signal` fires first it answers `ABORTED`: the native
 * side aborts and the Promise form rejects with `ERR_MEMORY_ABORTED` (nothing written).
 */
function asyncCompactorFor(compactor, failure, signal) {
  return wrapped(compactor, (name) => async (topic, rest) => {
    try {
      const answer = await untilAborted(ask(compactor, name, [JSON.parse(topic), ...JSON.parse(rest)]), signal)
      return answerText(compactor, answer)
    } catch (thrown) {
      if (thrown === STOPPED) return ABORTED
      if (!failure.failed) Object.assign(failure, { failed: true, value: thrown })
      return THREW
    }
  })
}

/** A primitive a compactor function threw (a string, a number…), boxed on its way through napi. */
class ThrownValue extends Error {
  constructor(value) {
    super('a compactor function threw a value that is not an object')
    this.value = value
  }
}

/** `options` with its compactor wrapped (the sync forms). */
function withCompactor(options) {
  if (options === null || typeof options !== 'object' || options.compactor == null) return options
  return { ...options, compactor: compactorFor(options.compactor) }
}

/**
 * One attempt of a Promise form whose options (argument `at`) may hold a compactor: the
 * compactor is wrapped for this attempt, and when one of its functions threw or
 * rejected, the attempt rejects with that very value rather than the native
 * `ERR_MEMORY_ABORTED`.
 */
function withAsyncCompactor(nativeAttempt, at) {
  return function (...args) {
    const options = args[at]
    if (options === null || typeof options !== 'object' || options.compactor == null) {
      return nativeAttempt.apply(this, args)
    }
    const failure = { failed: false, value: undefined }
    const asyncOptions = args[at + 1]
    const signal = asyncOptions !== null && typeof asyncOptions === 'object' ? asyncOptions.signal : undefined
    const own = [...args]
    own[at] = { ...options, compactor: asyncCompactorFor(options.compactor, failure, signal) }
    return nativeAttempt.apply(this, own).then(undefined, (err) => {
      throw failure.failed ? failure.value : err
    })
  }
}

const STRUCTURED_METHODS = {
  index: [0, JSON.parse],
  sessionIndex: [0, JSON.parse],
  topic: [1, JSON.parse],
  recall: [1, recalledHits],
  recallWithWarnings: [1, JSON.parse],
  check: [0, JSON.parse],
  remember: [2, JSON.parse, 1],
  compact: [2, JSON.parse, 1],
  restore: [1, JSON.parse],
}

const FIRST_DELAY_MS = 1
const MAX_DELAY_MS = 50

/** Wraps the methods of `Native` (exported as `Exported`) as `methods` says. */
function install(Native, Exported, methods) {
  const proto = Native.prototype
  // `memory.constructor === Exported`, and `new memory.constructor(root)` is guarded too.
  Object.defineProperty(proto, 'constructor', { value: Exported, writable: true, configurable: true })
  for (const [name, [arity, parse, compactorAt]] of Object.entries(methods)) {
    const sync = proto[name]
    const nativeAttempt = proto[`${name}Async`]
    // `compactorAt`: the index of the options argument that may hold a compactor.
    const attempt = compactorAt === undefined ? nativeAttempt : withAsyncCompactor(nativeAttempt, compactorAt)
    Object.defineProperty(proto, name, {
      value:
        parse === same
          ? sync
          : compactorAt === undefined
            ? {
                [name](...args) {
                  return parse(sync.apply(this, args))
                },
              }[name]
            : {
                [name](...args) {
                  if (args.length > compactorAt) args[compactorAt] = withCompactor(args[compactorAt])
                  let result
                  try {
                    result = sync.apply(this, args)
                  } catch (err) {
                    throw err instanceof ThrownValue ? err.value : err
                  }
                  return parse(result)
                },
              }[name],
      writable: true,
      configurable: true,
    })
    Object.defineProperty(proto, `${name}Async`, {
      value: {
        [`${name}Async`](...args) {
          return retrying(this, attempt, args, args[arity], parse)
        },
      }[`${name}Async`],
      writable: true,
      configurable: true,
    })
  }
  Object.defineProperty(proto, inspect.custom, {
    value: function (depth, options, inspectFn = inspect) {
      const fields = { root: this.root, lockTimeoutMs: this.lockTimeoutMs }
      return `${Native.name} ${inspectFn(fields, options)}`
    },
    configurable: true,
  })
}

install(NativeAgentMemory, AgentMemory, METHODS)
install(NativeContextMemory, ContextMemory, CONTEXT_METHODS)
install(NativeStructuredMemory, StructuredMemory, STRUCTURED_METHODS)

function withCause(err, signal) {
  if (err && err.code === 'ERR_MEMORY_ABORTED' && signal?.aborted) err.cause = signal.reason
  return err
}

/** Runs `attempt` until it is not refused for a busy lock, the deadline, or an abort. */
function retrying(memory, attempt, args, options, parse) {
  let signal
  let pending
  try {
    signal = options !== null && typeof options === 'object' ? options.signal : undefined
    pending = attempt.apply(memory, args)
  } catch (err) {
    return Promise.reject(withCause(err, signal))
  }
  const start = performance.now()
  const timeoutMs = memory.lockTimeoutMs
  return new Promise((resolve, reject) => {
    let delay = FIRST_DELAY_MS
    const settle = (promise) => {
      promise.then(
        (value) => {
          try {
            resolve(parse(value))
          } catch (err) {
            reject(err)
          }
        },
        (err) => {
          if (!err || err.code !== 'ERR_MEMORY_LOCK_TIMEOUT') return reject(withCause(err, signal))
          const waited = performance.now() - start
          if (waited >= timeoutMs) {
            try {
              native.throwLockTimeout(err.path, waited)
            } catch (timeout) {
              return reject(timeout)
            }
          }
          let timer
          if (signal?.aborted) {
            try {
              settle(attempt.apply(memory, args))
            } catch (error) {
              reject(withCause(error, signal))
            }
            return
          }
          const again = () => {
            clearTimeout(timer)
            signal?.removeEventListener?.('abort', again)
            try {
              settle(attempt.apply(memory, args))
            } catch (error) {
              reject(withCause(error, signal))
            }
          }
          timer = setTimeout(again, Math.min(delay, Math.max(timeoutMs - waited, 0)))
          delay = Math.min(delay * 2, MAX_DELAY_MS)
          signal?.addEventListener?.('abort', again, { once: true })
        },
      )
    }
    settle(pending)
  })
}

// One assignment per export, so that ESM `import { AgentMemory } from 'memory-core'`
// finds the names (Node's CommonJS export detection reads these statically).
exports.__napiBindingTarget = native.__napiBindingTarget
exports.AgentMemory = AgentMemory
exports.ArchiveKind = native.ArchiveKind
exports.ContextMemory = ContextMemory
exports.Mark = native.Mark
exports.MemoryCoreError = MemoryCoreError
exports.NEAR_DUPLICATE_SIMILARITY = native.NEAR_DUPLICATE_SIMILARITY
exports.Status = native.Status
exports.StructuredMemory = StructuredMemory
exports.isMemoryCoreError = isMemoryCoreError
