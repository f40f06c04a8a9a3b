//! Node bindings of memory-core (npm package `memory-core`, napi-rs v3).
//!
//! Thin delegation: every method converts its arguments, calls the core, and converts
//! the result. Each operation has a sync form and a Promise form (`…Async`) that runs on
//! the libuv thread pool, so editor extension hosts never block on file I/O or the
//! memory lock. Errors are JS `Error`s with a stable `code` (see [`error`]).

#![deny(missing_docs)]

mod error;
mod types;

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Result, Task};
use napi_derive::napi;

use types::{
    AgentMemoryOptions, ArchiveOutcome, ContinueOutcome, ManualRegistration, OrganizeOptions,
    OrganizeReport, ReleaseOutcome, SessionRow, SessionUpdate, Snapshot,
};

/// Why an operation failed: a core error (thrown with its `ERR_MEMORY_*` code) or a
/// failure of the binding itself.
pub enum Failure {
    /// An error memory-core reported.
    Core(memory_core::Error),
    /// A conversion the binding could not make.
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

type Op<T> = Box<dyn FnOnce(&memory_core::AgentMemory) -> std::result::Result<T, Failure> + Send>;

/// One operation run on the libuv thread pool: the core call happens in `compute`, the
/// error (if any) becomes a JS `Error` in `resolve`, on the JS thread.
pub struct Call<T> {
    memory: memory_core::AgentMemory,
    op: Option<Op<T>>,
}

impl<T> Task for Call<T>
where
    T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
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

/// A memory root (`memory/`) following the Agent Memory protocol: `index.md` with one
/// row per agent session, `sessions/<id>.md` snapshots, `archive/<id>/`. Every write
/// holds a cross-process lock, replaces files atomically and reads them back before
/// returning.
///
/// Every operation has a sync form and a Promise form (`…Async`, run on the libuv
/// thread pool). Failures are `Error`s with `code` (`ERR_MEMORY_INVALID_INPUT`,
/// `ERR_MEMORY_NOT_FOUND`, `ERR_MEMORY_CONFLICT`, `ERR_MEMORY_MALFORMED`,
/// `ERR_MEMORY_LOCK_TIMEOUT`, `ERR_MEMORY_IO`) and, when known, `path`, `line` and
/// `sessionId`.
#[napi]
pub struct AgentMemory {
    inner: memory_core::AgentMemory,
}

impl AgentMemory {
    fn sync<T>(
        &self,
        env: &Env,
        op: impl FnOnce(&memory_core::AgentMemory) -> std::result::Result<T, Failure>,
    ) -> Result<T> {
        op(&self.inner).map_err(|failure| failure.into_js(env))
    }

    fn spawn<T>(
        &self,
        op: impl FnOnce(&memory_core::AgentMemory) -> std::result::Result<T, Failure> + Send + 'static,
    ) -> AsyncTask<Call<T>>
    where
        T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
    {
        AsyncTask::new(Call {
            memory: self.inner.clone(),
            op: Some(Box::new(op)),
        })
    }
}

#[napi]
impl AgentMemory {
    /// Opens the memory root `root` (the `memory/` directory). Nothing is created until
    /// the first write. Throws `ERR_MEMORY_INVALID_INPUT` when `root` is empty or is not
    /// a directory, or when `lockTimeoutMs` or `fixedTime` is invalid.
    #[napi(constructor)]
    pub fn new(env: Env, root: String, options: Option<AgentMemoryOptions>) -> Result<Self> {
        let open = || -> std::result::Result<Self, Failure> {
            let mut builder = memory_core::AgentMemory::builder(root);
            let AgentMemoryOptions {
                lock_timeout_ms,
                fixed_time,
            } = options.unwrap_or_default();
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

    /// The memory root directory.
    #[napi(getter)]
    pub fn root(&self) -> String {
        self.inner.root().to_string_lossy().into_owned()
    }

    /// The index file, `<root>/index.md`.
    #[napi(getter)]
    pub fn index_path(&self) -> String {
        self.inner.index_path().to_string_lossy().into_owned()
    }

    /// The snapshot file of `sessionId`, `<root>/sessions/<id>.md` (it may not exist).
    #[napi]
    pub fn session_path(&self, env: Env, session_id: String) -> Result<String> {
        self.sync(&env, |m| Ok(path_text(m.session_path(&session_id)?)))
    }

    /// Promise form of `sessionPath`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn session_path_async(&self, session_id: String) -> AsyncTask<Call<String>> {
        self.spawn(move |m| Ok(path_text(m.session_path(&session_id)?)))
    }

    /// The archive directory of `sessionId`, `<root>/archive/<id>/` (it may not exist).
    #[napi]
    pub fn archive_dir(&self, env: Env, session_id: String) -> Result<String> {
        self.sync(&env, |m| Ok(path_text(m.archive_dir(&session_id)?)))
    }

    /// Promise form of `archiveDir`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn archive_dir_async(&self, session_id: String) -> AsyncTask<Call<String>> {
        self.spawn(move |m| Ok(path_text(m.archive_dir(&session_id)?)))
    }

    /// SessionStart registration: appends an `idle` row (topic `未設定`), creates no
    /// snapshot, and returns the new session id once the row was read back.
    #[napi]
    pub fn register_session_start(&self, env: Env, agent_name: String) -> Result<String> {
        self.sync(&env, |m| {
            Ok(m.register_session_start(&agent_name)?.to_string())
        })
    }

    /// Promise form of `registerSessionStart`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn register_session_start_async(&self, agent_name: String) -> AsyncTask<Call<String>> {
        self.spawn(move |m| Ok(m.register_session_start(&agent_name)?.to_string()))
    }

    /// Manual registration: writes the snapshot, appends an `active` row (and adds the
    /// new id to each `continuesFrom` source's `referencedBy`), verifies both, and
    /// returns the new session id.
    #[napi]
    pub fn register_manual(&self, env: Env, registration: ManualRegistration) -> Result<String> {
        self.sync(&env, |m| {
            Ok(m.register_manual(registration.into())?.to_string())
        })
    }

    /// Promise form of `registerManual`.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn register_manual_async(
        &self,
        registration: ManualRegistration,
    ) -> AsyncTask<Call<String>> {
        self.spawn(move |m| Ok(m.register_manual(registration.into())?.to_string()))
    }

    /// A status update: merges into the snapshot (never dropping items), promotes the
    /// session to `active`, and returns the row as read back.
    #[napi]
    pub fn update(
        &self,
        env: Env,
        session_id: String,
        update: SessionUpdate,
    ) -> Result<SessionRow> {
        self.sync(&env, |m| Ok(m.update(&session_id, update.into())?.into()))
    }

    /// Promise form of `update`.
    #[napi(ts_return_type = "Promise<SessionRow>")]
    pub fn update_async(
        &self,
        session_id: String,
        update: SessionUpdate,
    ) -> AsyncTask<Call<SessionRow>> {
        self.spawn(move |m| Ok(m.update(&session_id, update.into())?.into()))
    }

    /// Records that session `current` continues work from `source`: both sides of the
    /// link are written and read back.
    #[napi]
    pub fn continue_from(
        &self,
        env: Env,
        current: String,
        source: String,
    ) -> Result<ContinueOutcome> {
        self.sync(&env, |m| Ok(m.continue_from(&current, &source)?.into()))
    }

    /// Promise form of `continueFrom`.
    #[napi(ts_return_type = "Promise<ContinueOutcome>")]
    pub fn continue_from_async(
        &self,
        current: String,
        source: String,
    ) -> AsyncTask<Call<ContinueOutcome>> {
        self.spawn(move |m| Ok(m.continue_from(&current, &source)?.into()))
    }

    /// Releases the reference of `current` on `source` (both sides). Releasing a link
    /// that is already gone is not an error; the outcome says which side changed.
    #[napi]
    pub fn release(&self, env: Env, current: String, source: String) -> Result<ReleaseOutcome> {
        self.sync(&env, |m| Ok(m.release(&current, &source)?.into()))
    }

    /// Promise form of `release`.
    #[napi(ts_return_type = "Promise<ReleaseOutcome>")]
    pub fn release_async(
        &self,
        current: String,
        source: String,
    ) -> AsyncTask<Call<ReleaseOutcome>> {
        self.spawn(move |m| Ok(m.release(&current, &source)?.into()))
    }

    /// Organizes the index: deletes unreferenced `idle` rows and marks overdue `active`
    /// rows `stale`; referenced rows are protected. Nothing is archived.
    #[napi]
    pub fn organize(&self, env: Env, options: Option<OrganizeOptions>) -> Result<OrganizeReport> {
        self.sync(&env, |m| {
            Ok(m.organize(types::organize_options(options)?)?.into())
        })
    }

    /// Promise form of `organize`.
    #[napi(ts_return_type = "Promise<OrganizeReport>")]
    pub fn organize_async(
        &self,
        options: Option<OrganizeOptions>,
    ) -> AsyncTask<Call<OrganizeReport>> {
        self.spawn(move |m| Ok(m.organize(types::organize_options(options)?)?.into()))
    }

    /// Archives one session (or deletes an idle placeholder without snapshot). Refused
    /// with `ERR_MEMORY_CONFLICT` while another session references it.
    #[napi]
    pub fn archive(&self, env: Env, session_id: String) -> Result<ArchiveOutcome> {
        self.sync(&env, |m| Ok(m.archive(&session_id)?.try_into()?))
    }

    /// Promise form of `archive`.
    #[napi(ts_return_type = "Promise<ArchiveOutcome>")]
    pub fn archive_async(&self, session_id: String) -> AsyncTask<Call<ArchiveOutcome>> {
        self.spawn(move |m| Ok(m.archive(&session_id)?.try_into()?))
    }

    /// Every row, in reading order: meaningful `active`/`stale` rows first, then other
    /// `active`/`stale` rows, then `idle` placeholders; most recently updated first.
    #[napi]
    pub fn sessions(&self, env: Env) -> Result<Vec<SessionRow>> {
        self.sync(&env, |m| Ok(types::rows(m.sessions()?)))
    }

    /// Promise form of `sessions`.
    #[napi(ts_return_type = "Promise<Array<SessionRow>>")]
    pub fn sessions_async(&self) -> AsyncTask<Call<Vec<SessionRow>>> {
        self.spawn(move |m| Ok(types::rows(m.sessions()?)))
    }

    /// The rows with `status` (`idle`, `active` or `stale`), in reading order.
    #[napi]
    pub fn sessions_with_status(
        &self,
        env: Env,
        #[napi(ts_arg_type = "Status")] status: String,
    ) -> Result<Vec<SessionRow>> {
        self.sync(&env, |m| {
            Ok(types::rows(m.sessions_with_status(status.parse()?)?))
        })
    }

    /// Promise form of `sessionsWithStatus`.
    #[napi(ts_return_type = "Promise<Array<SessionRow>>")]
    pub fn sessions_with_status_async(
        &self,
        #[napi(ts_arg_type = "Status")] status: String,
    ) -> AsyncTask<Call<Vec<SessionRow>>> {
        self.spawn(move |m| Ok(types::rows(m.sessions_with_status(status.parse()?)?)))
    }

    /// The row of session `sessionId`; `ERR_MEMORY_NOT_FOUND` when the index has none.
    #[napi]
    pub fn session(&self, env: Env, session_id: String) -> Result<SessionRow> {
        self.sync(&env, |m| Ok(m.session(&session_id)?.into()))
    }

    /// Promise form of `session`.
    #[napi(ts_return_type = "Promise<SessionRow>")]
    pub fn session_async(&self, session_id: String) -> AsyncTask<Call<SessionRow>> {
        self.spawn(move |m| Ok(m.session(&session_id)?.into()))
    }

    /// The snapshot of session `sessionId`, `null` when it has no snapshot file.
    #[napi]
    pub fn snapshot(&self, env: Env, session_id: String) -> Result<Option<Snapshot>> {
        self.sync(&env, |m| Ok(m.snapshot(&session_id)?.map(Snapshot::from)))
    }

    /// Promise form of `snapshot`.
    #[napi(ts_return_type = "Promise<Snapshot | null>")]
    pub fn snapshot_async(&self, session_id: String) -> AsyncTask<Call<Option<Snapshot>>> {
        self.spawn(move |m| Ok(m.snapshot(&session_id)?.map(Snapshot::from)))
    }

    /// Rows whose id, agent name, topic, summary or keywords contain `query`
    /// (case-insensitive), in reading order.
    #[napi]
    pub fn find(&self, env: Env, query: String) -> Result<Vec<SessionRow>> {
        self.sync(&env, |m| Ok(types::rows(m.find(&query)?)))
    }

    /// Promise form of `find`.
    #[napi(ts_return_type = "Promise<Array<SessionRow>>")]
    pub fn find_async(&self, query: String) -> AsyncTask<Call<Vec<SessionRow>>> {
        self.spawn(move |m| Ok(types::rows(m.find(&query)?)))
    }
}

fn path_text(path: std::path::PathBuf) -> String {
    path.to_string_lossy().into_owned()
}
