// Shared helpers of the node:test suite: fresh memory roots and error assertions that
// check the sync form and the Promise form of an operation alike.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'
import { getSystemErrorName } from 'node:util'

export { AgentMemory } from '../index.js'

const made = []
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary directory, removed when the test file ends. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'memory-core-node-'))
  made.push(dir)
  return dir
}

/** A fresh (not yet created) memory root `<tmp>/memory`. */
export function memoryRoot() {
  return join(tempDir(), 'memory')
}

/**
 * Asserts that `call('')` throws and `call('Async')` rejects with an `Error` that has
 * exactly the expected `code`, `path`, `line`, `sessionId`, `syscall` and `errno` (by
 * name; each absent when not given).
 * `call` receives the method-name suffix so both forms share one argument list.
 */
export async function assertFailsBoth(call, expected) {
  const check = (err) => {
    assert.ok(err instanceof Error, `expected an Error, got ${err}`)
    assert.equal(err.name, 'Error')
    assert.equal(err.code, expected.code, err.message)
    for (const key of ['path', 'line', 'sessionId', 'syscall']) {
      if (key in expected) assert.equal(err[key], expected[key], `${key} of ${err.message}`)
      else assert.ok(!(key in err), `unexpected ${key} ${err[key]} on ${err.message}`)
    }
    // `errno` is expected by name (`'EISDIR'`): the number differs between systems.
    if ('errno' in expected) {
      assert.equal(typeof err.errno, 'number', `errno of ${err.message}`)
      assert.equal(getSystemErrorName(err.errno), expected.errno, `errno of ${err.message}`)
    } else assert.ok(!('errno' in err), `unexpected errno ${err.errno} on ${err.message}`)
    if (expected.message) assert.match(err.message, expected.message)
    return true
  }
  assert.throws(() => call(''), check)
  let pending
  try {
    pending = call('Async')
  } catch (err) {
    assert.fail(`the Async form threw synchronously instead of rejecting: ${err.message}`)
  }
  assert.ok(pending instanceof Promise, 'the Async form returns a Promise')
  await assert.rejects(pending, check)
}

/**
 * Starts a child process that holds an exclusive flock(2) on `path` until `release()`
 * closes its stdin. Uses util-linux `flock`, or python3 where `flock` is missing.
 */
export async function holdLock(path) {
  const candidates = [
    ['flock', ['-o', path, '-c', 'echo locked; cat >/dev/null']],
    [
      'python3',
      [
        '-c',
        'import fcntl,sys; f=open(sys.argv[1],"a"); fcntl.flock(f,fcntl.LOCK_EX); print("locked",flush=True); sys.stdin.read()',
        path,
      ],
    ],
  ]
  const errors = []
  for (const [command, args] of candidates) {
    try {
      return await startHolder(command, args)
    } catch (err) {
      errors.push(`${command}: ${err.message}`)
    }
  }
  throw new Error(`no way to hold a lock for the test (${errors.join('; ')})`)
}

function startHolder(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`exited with ${code} before locking`)))
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('locked')) {
        child.removeAllListeners('exit')
        resolve({
          release: () =>
            new Promise((done) => {
              child.once('exit', done)
              child.stdin.end()
            }),
        })
      }
    })
  })
}

/** Runs `node -e script args…` and resolves with its stdout (rejects on a non-zero exit). */
export function runNode(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}: ${err}`)),
    )
  })
}
