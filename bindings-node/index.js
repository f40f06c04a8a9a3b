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
// - `registerSessionStart` emits the rows it could not read as process warnings;
// - `ContextMemory` (context-memory) is wrapped the same way; its results are the core
//   types' serde JSON, keys snake_case as `memcore --json` prints them (its static
//   functions, `installHooks`… , return objects already: napi makes statics read-only);
// - `StructuredMemory` (structured-memory) likewise; the compactor of its sync `remember`
//   and `compact` is handed to the native module with each function wrapped to take and
//   return JSON text (`compactorFor`; what it throws is thrown again as it is), and the
//   Promise forms reject a compactor with a TypeError (a worker thread cannot call
//   JavaScript);
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
  for (const { path, line, message } of start.warnings) {
    const warning = new Error(`${path}:${line}: ${message}`)
    warning.name = 'MemoryCoreWarning'
    warning.code = 'MEMCORE_UNREADABLE_ROW'
    warning.path = path
    warning.line = line
    process.emitWarning(warning)
  }
  return start.sessionId
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
// compactor in their options (second argument), sync forms only.
const COMPACTOR_METHODS = ['dead', 'collapse', 'summarize', 'split', 'routeContent', 'mergeTopics']

/**
 * The compactor the native module calls: each of the functions `compactor` has
 * (own or inherited) wrapped as `(topicJson, argsJson) => resultJson`, called with
 * `compactor` as `this`. What a function throws passes through unchanged (the native
 * side throws it again); a result JSON cannot represent (`undefined` aside, which is
 * `null`) reaches the native side as `undefined`, refused there. A value that is not a
 * function is handed over as it is, for the native side to refuse by name.
 */
function compactorFor(compactor) {
  if (compactor === null || typeof compactor !== 'object') return compactor
  const wrapped = {}
  for (const name of COMPACTOR_METHODS) {
    const fn = compactor[name]
    if (typeof fn !== 'function') {
      wrapped[name] = fn
      continue
    }
    wrapped[name] = (topic, rest) => {
      let result
      try {
        result = fn.call(compactor, JSON.parse(topic), ...JSON.parse(rest))
      } catch (thrown) {
        // napi can hold (and throw again) only an object; a thrown primitive travels boxed.
        if ((typeof thrown === 'object' && thrown !== null) || typeof thrown === 'function') throw thrown
        throw new ThrownValue(thrown)
      }
      return JSON.stringify(result === undefined ? null : result) ?? 'undefined'
    }
  }
  return wrapped
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

/** Refuses a compactor in a Promise form's options: a TypeError, with the binding's code. */
function noCompactor(name, options) {
  if (options !== null && typeof options === 'object' && options.compactor != null) {
    const err = new TypeError(
      `options.compactor: ${name}Async takes no compactor; a JavaScript compactor runs only in the sync form ${name}()`,
    )
    err.code = 'ERR_MEMORY_INVALID_INPUT'
    throw err
  }
}

const STRUCTURED_METHODS = {
  index: [0, JSON.parse],
  topic: [1, JSON.parse],
  recall: [1, JSON.parse],
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
    const attempt =
      compactorAt === undefined
        ? nativeAttempt
        : function (...args) {
            noCompactor(name, args[compactorAt])
            return nativeAttempt.apply(this, args)
          }
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
  if (err && err.code === 'ERR_MEMORY_ABORTED' && signal) err.cause = signal.reason
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
          if (!err || err.code !== 'ERR_MEMORY_LOCK_TIMEOUT') return reject(err)
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
exports.Status = native.Status
exports.StructuredMemory = StructuredMemory
exports.isMemoryCoreError = isMemoryCoreError
