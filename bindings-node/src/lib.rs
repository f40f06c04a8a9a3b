//! Node bindings of memory-core (npm package `memory-core`, napi-rs v3).
//!
//! Thin delegation: every method converts its arguments ([`args`]), calls the core, and
//! converts the result ([`types`]). The native module is wrapped by the hand-written
//! entry module `index.js`, which parses the JSON results, exports `MemoryCoreError` /
//! `isMemoryCoreError`, and gives each Promise form (`…Async`) its lock wait:
//!
//! - a `…Async` method here converts and checks its arguments on the JS thread (a bad
//!   argument or an aborted `options.signal` throws, which `index.js` turns into a
//!   rejection), then makes **one** attempt on the libuv pool with a zero lock timeout;
//! - while another writer holds the lock, `index.js` retries on a timer with backoff
//!   until `lockTimeoutMs`, so a waiting call holds no pool thread (an unrelated
//!   `fs.promises.readFile` is not delayed), and the `AbortSignal` stops the wait.
//!
//! Errors are JS `Error`s with a stable `code` (see [`error`]).

#![deny(missing_docs)]

#[macro_use]
mod paired;

mod args;
mod context;
mod context_args;
mod context_hooks;
mod error;
mod structured;
mod structured_compactor;
mod structured_compactor_async;
mod types;

use std::time::Duration;

use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, Result, Task};
use napi_derive::napi;

use args::Arg;
use types::{
    AgentMemoryOptions, ArchiveOutcome, ContinueOutcome, JsonText, ManualRegistration,
    OrganizeReport, PackedRows, ReleaseOutcome, SessionRow, SessionStart, SessionUpdate, Snapshot,
    json,
};

/// Why an operation failed: a core error (thrown with its `ERR_MEMORY_*` code and
/// fields) or a failure of napi itself. Every refused argument, unknown option keys
/// included, is a core error ([`memory_core::Error::argument`]), so that it is mapped
/// exactly as the core's own errors and as the Python binding maps it.
pub enum Failure {
    /// An error memory-core reported, or an argument the binding refused.
    Core(memory_core::Error),
    /// A napi call that failed (not an argument problem).
    Binding(napi::Error),
}

impl From<memory_core::Error> for Failure {
    fn from(err: memory_core::Error) -> Self {
        Failure::Core(err)
    }
}

impl From<napi::Error> for Failure {
    fn from(err: napi::Error) -> Self {
        Failure::Binding(err)
    }
}

impl Failure {
    /// The error to throw or reject with. Runs on the JS thread.
    fn into_js(self, env: &Env) -> napi::Error {
        match self {
            Failure::Core(err) => error::to_js(env, err),
            Failure::Binding(err) => err,
        }
    }
}

type Op<T, H = memory_core::AgentMemory> =
    Box<dyn FnOnce(&H) -> std::result::Result<T, Failure> + Send>;

fn op<T, H>(f: impl FnOnce(&H) -> std::result::Result<T, Failure> + Send + 'static) -> Op<T, H> {
    Box::new(f)
}

/// One attempt of an operation on the libuv thread pool: the core call happens in
/// `compute`, the error (if any) becomes a JS `Error` in `resolve`, on the JS thread.
/// `H` is the core handle: an `AgentMemory`, or a `ContextMemory` ([`context`]).
pub struct Call<T, H = memory_core::AgentMemory> {
    memory: H,
    op: Option<Op<T, H>>,
}

impl<T, H> Task for Call<T, H>
where
    T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
    H: Send + 'static,
{
    type Output = std::result::Result<T, Failure>;
    type JsValue = T;

    fn compute(&mut self) -> Result<Self::Output> {
        let op = self
            .op
            .take()
            .ok_or_else(|| napi::Error::from_reason("the operation already ran"))?;
        Ok(op(&self.memory))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<T> {
        output.map_err(|failure| failure.into_js(&env))
    }
}

/// The Promise forms' first step, for every class: converts the arguments
/// (`prepare`), refuses an already aborted `options.signal`, and queues one attempt of
/// the operation on `single` (the handle with a zero lock timeout); `index.js` retries
/// on a timer. Errors are thrown on the JS thread.
fn queue_attempt<T, H>(
    env: &Env,
    options: Option<Unknown<'_>>,
    root: &std::path::Path,
    single: impl FnOnce() -> H,
    prepare: impl FnOnce() -> Arg<Op<T, H>>,
) -> Result<AsyncTask<Call<T, H>>>
where
    T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
    H: Send + 'static,
{
    let run = || -> Arg<AsyncTask<Call<T, H>>> {
        let op = prepare()?;
        if args::aborted(options)? {
            return Err(Failure::Core(memory_core::Error::Aborted {
                path: root.join(memory_core::durable::LOCK_FILE_NAME),
                waited: Duration::ZERO,
                source: Some("the AbortSignal was aborted".into()),
            }));
        }
        Ok(AsyncTask::new(Call {
            memory: single(),
            op: Some(op),
        }))
    };
    run().map_err(|failure| failure.into_js(env))
}

/// Throws the core's lock-timeout error for a Promise form that waited `waited_ms` in
/// total (called by `index.js` when its retries reach `lockTimeoutMs`).
#[napi(skip_typescript, js_name = "throwLockTimeout")]
pub fn throw_lock_timeout(env: Env, path: String, waited_ms: f64) -> Result<()> {
    let waited = Duration::try_from_secs_f64(waited_ms / 1000.0).unwrap_or_default();
    Err(error::to_js(
        &env,
        memory_core::Error::LockTimeout {
            path: path.into(),
            waited,
        },
    ))
}

/// A memory root (`memory/`) following the Agent Memory protocol: `index.md` with one
/// row per agent session, `sessions/<id>.md` snapshots, `archive/<id>/`. Every write
/// holds a cross-process lock, replaces files atomically and reads them back before
/// returning.
///
/// Every operation has a sync form and a Promise form (`…Async`) whose last argument
/// is `{ signal?: AbortSignal }`; a Promise form never throws (bad arguments reject too)
/// and waits for the memory lock on a timer, holding no libuv pool thread. Failures are
/// `MemoryCoreError`s with `code` (`ERR_MEMORY_INVALID_INPUT`, `ERR_MEMORY_NOT_FOUND`,
/// `ERR_MEMORY_CONFLICT`, `ERR_MEMORY_MALFORMED`, `ERR_MEMORY_LOCK_TIMEOUT`,
/// `ERR_MEMORY_IO`, `ERR_MEMORY_ABORTED`) and, when known, `path`, `line`, `sessionId`
/// and `errno`. A relative `root` is made absolute when the handle is opened (a later
/// `process.chdir` does not move it); `~` is not expanded.
#[napi]
pub struct AgentMemory {
    inner: memory_core::AgentMemory,
}

impl AgentMemory {
    fn sync<T>(&self, env: &Env, f: impl FnOnce(&memory_core::AgentMemory) -> Arg<T>) -> Result<T> {
        f(&self.inner).map_err(|failure| failure.into_js(env))
    }

    /// Converts the arguments (`prepare`), checks `options`, and queues one attempt of
    /// the operation with a zero lock timeout; errors are thrown on the JS thread.
    fn attempt<T>(
        &self,
        env: &Env,
        options: Option<Unknown<'_>>,
        prepare: impl FnOnce() -> Arg<Op<T>>,
    ) -> Result<AsyncTask<Call<T>>>
    where
        T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
    {
        queue_attempt(
            env,
            options,
            self.inner.root(),
            || self.inner.with_lock_timeout(Duration::ZERO),
            prepare,
        )
    }
}

#[napi]
impl AgentMemory {
    /// Opens the memory root `root` (the `memory/` directory), made absolute against the
    /// current directory now; `~` is not expanded. Nothing is created until the first
    /// write. Throws `ERR_MEMORY_INVALID_INPUT` when `root` is empty, not a string or not
    /// a directory, or when `options` is invalid.
    #[napi(
        constructor,
        ts_args_type = "root: string, options?: AgentMemoryOptions"
    )]
    pub fn new(env: Env, root: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Self> {
        let open = || -> Arg<Self> {
            let root = args::text(root, "root")?;
            let AgentMemoryOptions {
                lock_timeout_ms,
                fixed_time,
            } = AgentMemoryOptions::read(options)?;
            let mut builder = memory_core::AgentMemory::builder(root);
            if let Some(ms) = lock_timeout_ms {
                builder = builder.lock_timeout(types::lock_timeout(ms)?);
            }
            if let Some(time) = fixed_time {
                builder = builder.fixed_time(&time)?;
            }
            Ok(AgentMemory {
                inner: builder.open()?,
            })
        };
        open().map_err(|failure| failure.into_js(&env))
    }

    /// The memory root directory (absolute).
    #[napi(getter)]
    pub fn root(&self) -> String {
        path_text(self.inner.root().to_path_buf())
    }

    /// The index file, `<root>/index.md`.
    #[napi(getter)]
    pub fn index_path(&self) -> String {
        path_text(self.inner.index_path())
    }

    /// The longest wait for the memory lock, in milliseconds (`lockTimeoutMs` of the
    /// options, default 10000).
    #[napi(getter)]
    pub fn lock_timeout_ms(&self) -> f64 {
        self.inner.lock_timeout().as_secs_f64() * 1000.0
    }
}

paired! {
    #[doc = " The snapshot file of `sessionId`, `<root>/sessions/<id>.md` (it may not exist)."]
    #[napi(ts_args_type = "sessionId: string")]
    fn session_path(session_id: Unknown<'_>) -> String;
    #[doc = " Promise form of `sessionPath`."]
    #[napi(
        ts_args_type = "sessionId: string, options?: AsyncOptions",
        ts_return_type = "Promise<string>"
    )]
    fn session_path_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
    }
    call(|m| Ok(path_text(m.session_path(&id)?)))
}

paired! {
    #[doc = " The archive directory of `sessionId`, `<root>/archive/<id>/` (it may not exist)."]
    #[napi(ts_args_type = "sessionId: string")]
    fn archive_dir(session_id: Unknown<'_>) -> String;
    #[doc = " Promise form of `archiveDir`."]
    #[napi(
        ts_args_type = "sessionId: string, options?: AsyncOptions",
        ts_return_type = "Promise<string>"
    )]
    fn archive_dir_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
    }
    call(|m| Ok(path_text(m.archive_dir(&id)?)))
}

#[napi]
impl AgentMemory {
    /// SessionStart registration: appends an `idle` row (topic `未設定`), creates no
    /// snapshot, and returns the new session id once the row was read back. Rows of other
    /// sessions it cannot read do not stop it: they stay byte-identical and each is
    /// emitted with `process.emitWarning` as a `MemoryCoreWarning` (code
    /// `MEMCORE_UNREADABLE_ROW`, with `path` and `line`);
    /// `registerSessionStartWithWarnings` returns them instead.
    #[napi(ts_args_type = "agentName: string", ts_return_type = "string")]
    pub fn register_session_start(&self, env: Env, agent_name: Unknown<'_>) -> Result<JsonText> {
        // The native result is the whole `SessionStart`: `index.js` emits its warnings and
        // returns the id.
        self.register_session_start_with_warnings(env, agent_name)
    }

    /// Promise form of `registerSessionStart`.
    #[napi(
        ts_args_type = "agentName: string, options?: AsyncOptions",
        ts_return_type = "Promise<string>"
    )]
    pub fn register_session_start_async(
        &self,
        env: Env,
        agent_name: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<AsyncTask<Call<JsonText>>> {
        self.register_session_start_with_warnings_async(env, agent_name, options)
    }
}

paired! {
    #[doc = " SessionStart registration that also returns the rows of other sessions it could"]
    #[doc = " not read (a bad status, timestamp, id or cell count, a duplicate id), each as a"]
    #[doc = " `WarningRecord` naming the file and line; those rows stay byte-identical. Problems"]
    #[doc = " with the table itself (no readable header, rows cut off from the table) still"]
    #[doc = " throw `ERR_MEMORY_MALFORMED`."]
    #[napi(ts_args_type = "agentName: string", ts_return_type = "SessionStart")]
    fn register_session_start_with_warnings(agent_name: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `registerSessionStartWithWarnings`."]
    #[napi(
        ts_args_type = "agentName: string, options?: AsyncOptions",
        ts_return_type = "Promise<SessionStart>"
    )]
    fn register_session_start_with_warnings_async(.., options);
    convert {
        let name = args::text(agent_name, "agentName")?;
    }
    call(|m| json(&SessionStart::from(m.register_session_start_with_warnings(&name)?)))
}

paired! {
    #[doc = " Manual registration: writes the snapshot, appends an `active` row (and adds the"]
    #[doc = " new id to each `continuesFrom` source's `referencedBy`), verifies both, and"]
    #[doc = " returns the new session id."]
    #[napi(ts_args_type = "registration: ManualRegistration")]
    fn register_manual(registration: Unknown<'_>) -> String;
    #[doc = " Promise form of `registerManual`."]
    #[napi(
        ts_args_type = "registration: ManualRegistration, options?: AsyncOptions",
        ts_return_type = "Promise<string>"
    )]
    fn register_manual_async(.., options);
    convert {
        let registration = ManualRegistration::read(registration)?;
    }
    call(|m| Ok(m.register_manual(registration.into())?.to_string()))
}

paired! {
    #[doc = " A status update: merges into the snapshot (never dropping items), promotes the"]
    #[doc = " session to `active`, and returns the row as read back."]
    #[napi(
        ts_args_type = "sessionId: string, update?: SessionUpdate",
        ts_return_type = "SessionRow"
    )]
    fn update(session_id: Unknown<'_>, update: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `update`."]
    #[napi(
        ts_args_type = "sessionId: string, update?: SessionUpdate, options?: AsyncOptions",
        ts_return_type = "Promise<SessionRow>"
    )]
    fn update_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
        let update = SessionUpdate::read(update)?;
    }
    call(|m| json(&SessionRow::from(m.update(&id, update.into())?)))
}

paired! {
    #[doc = " Records that session `current` continues work from `source`: both sides of the"]
    #[doc = " link are written and read back."]
    #[napi(
        ts_args_type = "current: string, source: string",
        ts_return_type = "ContinueOutcome"
    )]
    fn continue_from(current: Unknown<'_>, source: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `continueFrom`."]
    #[napi(
        ts_args_type = "current: string, source: string, options?: AsyncOptions",
        ts_return_type = "Promise<ContinueOutcome>"
    )]
    fn continue_from_async(.., options);
    convert {
        let (current, source) = (
            args::text(current, "current")?,
            args::text(source, "source")?,
        );
    }
    call(|m| json(&ContinueOutcome::from(m.continue_from(&current, &source)?)))
}

paired! {
    #[doc = " Releases the reference of `current` on `source` (both sides). Releasing a link"]
    #[doc = " that is already gone is not an error; the outcome says which side changed."]
    #[napi(
        ts_args_type = "current: string, source: string",
        ts_return_type = "ReleaseOutcome"
    )]
    fn release(current: Unknown<'_>, source: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `release`."]
    #[napi(
        ts_args_type = "current: string, source: string, options?: AsyncOptions",
        ts_return_type = "Promise<ReleaseOutcome>"
    )]
    fn release_async(.., options);
    convert {
        let (current, source) = (
            args::text(current, "current")?,
            args::text(source, "source")?,
        );
    }
    call(|m| json(&ReleaseOutcome::from(m.release(&current, &source)?)))
}

paired! {
    #[doc = " Organizes the index: deletes unreferenced `idle` rows and marks overdue `active`"]
    #[doc = " rows `stale`; referenced rows are protected. Nothing is archived. Temp files left"]
    #[doc = " by memory-core writers that died mid-write are removed; snapshots without a row,"]
    #[doc = " other programs' leftovers and snapshots that cannot be read are reported, never"]
    #[doc = " deleted."]
    #[napi(
        ts_args_type = "options?: OrganizeOptions",
        ts_return_type = "OrganizeReport"
    )]
    fn organize(options: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `organize`."]
    #[napi(
        ts_args_type = "options?: OrganizeOptions, asyncOptions?: AsyncOptions",
        ts_return_type = "Promise<OrganizeReport>"
    )]
    fn organize_async(.., async_options);
    convert {
        let options = types::organize_options(options)?;
    }
    call(|m| json(&OrganizeReport::from(m.organize(options)?)))
}

paired! {
    #[doc = " Archives one session (or deletes an idle placeholder without snapshot). Refused"]
    #[doc = " with `ERR_MEMORY_CONFLICT` while another session references it."]
    #[napi(ts_args_type = "sessionId: string", ts_return_type = "ArchiveOutcome")]
    fn archive(session_id: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `archive`."]
    #[napi(
        ts_args_type = "sessionId: string, options?: AsyncOptions",
        ts_return_type = "Promise<ArchiveOutcome>"
    )]
    fn archive_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
    }
    call(|m| {
        let outcome: ArchiveOutcome = m.archive(&id)?.try_into()?;
        json(&outcome)
    })
}

paired! {
    #[doc = " Every row, in reading order: meaningful `active`/`stale` rows first, then other"]
    #[doc = " `active`/`stale` rows, then `idle` placeholders; most recently updated first."]
    #[napi(ts_return_type = "Array<SessionRow>")]
    fn sessions() -> PackedRows;
    #[doc = " Promise form of `sessions`."]
    #[napi(
        ts_args_type = "options?: AsyncOptions",
        ts_return_type = "Promise<Array<SessionRow>>"
    )]
    fn sessions_async(.., options);
    convert {}
    call(|m| types::packed_rows(m.sessions()?))
}

paired! {
    #[doc = " The rows with `status` (`idle`, `active` or `stale`), in reading order."]
    #[napi(ts_args_type = "status: Status", ts_return_type = "Array<SessionRow>")]
    fn sessions_with_status(status: Unknown<'_>) -> PackedRows;
    #[doc = " Promise form of `sessionsWithStatus`."]
    #[napi(
        ts_args_type = "status: Status, options?: AsyncOptions",
        ts_return_type = "Promise<Array<SessionRow>>"
    )]
    fn sessions_with_status_async(.., options);
    convert {
        let status: memory_core::Status = args::text(status, "status")?.parse()?;
    }
    call(|m| types::packed_rows(m.sessions_with_status(status)?))
}

paired! {
    #[doc = " The row of session `sessionId`; `ERR_MEMORY_NOT_FOUND` when the index has none."]
    #[napi(ts_args_type = "sessionId: string", ts_return_type = "SessionRow")]
    fn session(session_id: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `session`."]
    #[napi(
        ts_args_type = "sessionId: string, options?: AsyncOptions",
        ts_return_type = "Promise<SessionRow>"
    )]
    fn session_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
    }
    call(|m| json(&SessionRow::from(m.session(&id)?)))
}

paired! {
    #[doc = " The snapshot of session `sessionId`, `null` when it has no snapshot file."]
    #[napi(ts_args_type = "sessionId: string", ts_return_type = "Snapshot | null")]
    fn snapshot(session_id: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `snapshot`."]
    #[napi(
        ts_args_type = "sessionId: string, options?: AsyncOptions",
        ts_return_type = "Promise<Snapshot | null>"
    )]
    fn snapshot_async(.., options);
    convert {
        let id = args::text(session_id, "sessionId")?;
    }
    call(|m| json(&m.snapshot(&id)?.map(Snapshot::from)))
}

paired! {
    #[doc = " Rows whose id, agent name, topic, summary or keywords contain `query`"]
    #[doc = " (case-insensitive), in reading order."]
    #[napi(ts_args_type = "query: string", ts_return_type = "Array<SessionRow>")]
    fn find(query: Unknown<'_>) -> PackedRows;
    #[doc = " Promise form of `find`."]
    #[napi(
        ts_args_type = "query: string, options?: AsyncOptions",
        ts_return_type = "Promise<Array<SessionRow>>"
    )]
    fn find_async(.., options);
    convert {
        let query = args::text(query, "query")?;
    }
    call(|m| types::packed_rows(m.find(&query)?))
}

fn path_text(path: std::path::PathBuf) -> String {
    path.to_string_lossy().into_owned()
}
