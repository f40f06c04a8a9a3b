//! The **Agent Memory** protocol: `memory/index.md`, one row per agent session, snapshot
//! files merged never overwritten, continuation references, organize and archive.
//!
//! ```
//! use memory_core::{AgentMemory, SessionUpdate, Status};
//! let dir = tempfile::tempdir().unwrap();
//! let memory = AgentMemory::open(dir.path().join("memory")).unwrap();
//! let id = memory.register_session_start("cursor-main-agent").unwrap();
//! let row = memory.update(id.as_str(), SessionUpdate::new().topic("Login").summary("Fixed it.")).unwrap();
//! assert_eq!(row.status, Status::Active);
//! ```

mod archive;
mod id;
mod index;
mod meaning;
mod organize;
mod read;
mod references;
mod register;
mod row;
mod row_ids;
mod session_write;
mod snapshot;
mod snapshot_doc;
mod start_by_verdict;
mod status_update;
mod timestamp;
mod tree_scan;
mod update;
mod verdict;
mod verdict_by_stream;
mod warning;

use std::path::{Path, PathBuf};

use crate::durable::{HandleOptions, handle_builder_methods};

pub use archive::ArchiveOutcome;
pub use id::{AgentName, MAX_NAME_BYTES, SessionId};
pub use meaning::{content_is_meaningful, summary_is_meaningful};
pub use organize::{OrganizeOptions, OrganizeReport};
pub use references::{ContinueOutcome, ReleaseOutcome};
pub use register::ManualRegistration;
pub use row::{INDEX_COLUMNS, SessionRow, Status};
pub use snapshot::{Mark, OtherSection, Snapshot, SnapshotItem};
pub use timestamp::Timestamp;
pub use update::SessionUpdate;
pub use warning::{SessionStart, Warning};

use crate::durable::{MemoryLock, RootHandle};
use crate::error::{Error, Result};
use index::IndexDoc;

/// The default agent name (SessionStart and manual registration).
pub const DEFAULT_AGENT_NAME: &str = "cursor-main-agent";
/// The topic of a session whose topic is not known yet.
pub const UNSET_TOPIC: &str = "未設定";
/// The summary SessionStart registration writes.
pub const SESSION_START_SUMMARY: &str = "sessionStart 自動註冊，尚未整理主題。";
/// The summary manual registration falls back to when nothing better is known.
pub const MANUAL_FALLBACK_SUMMARY: &str = "手動補註冊，已建立 session snapshot。";
/// The keywords SessionStart registration writes.
pub const SESSION_START_KEYWORDS: [&str; 2] = ["sessionStart", "cursor-agent"];
/// The keywords manual registration writes by default.
pub const MANUAL_KEYWORDS: [&str; 3] = ["manual-registration", "cursor-agent", "session-snapshot"];
/// The longest text value (topic, summary, item) accepted, in bytes.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// How long a writer waits for the memory lock by default (every model's).
pub use crate::durable::DEFAULT_LOCK_TIMEOUT;
/// The name of the lock file in the memory root.
pub use crate::durable::LOCK_FILE_NAME;

/// A memory root (`memory/`) following the Agent Memory protocol. Every write holds the
/// root's cross-process lock, re-reads under it, changes only its own rows, replaces
/// files atomically and reads them back before returning.
///
/// ```
/// use memory_core::AgentMemory;
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let id = memory.register_session_start("cursor-main-agent").unwrap();
/// assert!(id.as_str().ends_with("-cursor-main-agent"));
/// ```
#[derive(Debug, Clone)]
pub struct AgentMemory {
    handle: RootHandle,
}

/// Options for opening an [`AgentMemory`]: clock and lock wait.
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use memory_core::{AgentMemory, durable::FixedClock};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::builder(dir.path())
///     .clock(Arc::new(FixedClock::parse("2026-05-25T13:18:00+08:00").unwrap()))
///     .lock_timeout(Duration::from_secs(2))
///     .open()
///     .unwrap();
/// let id = memory.register_session_start("cursor-main-agent").unwrap();
/// assert_eq!(id.as_str(), "2026-05-25-1318-cursor-main-agent");
/// ```
#[derive(Debug, Clone)]
pub struct AgentMemoryBuilder {
    options: HandleOptions,
}

impl AgentMemoryBuilder {
    handle_builder_methods!("memory_core::AgentMemory");

    /// Opens the memory root. Nothing is created until the first write.
    ///
    /// A relative root is made absolute here, against the current directory at the time
    /// of the call (symbolic links are kept as they are), so that a later change of the
    /// current directory neither hides the rows nor starts a second tree. A leading `~`
    /// is not expanded (as with `std::fs` and Python's `open()`): it names a directory
    /// called `~`.
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// assert!(memory.root().is_absolute());
    /// assert_eq!(memory.root(), std::env::current_dir().unwrap().join("memory"));
    /// // A root that could never be a path is refused here, not at the first write.
    /// let err = memory_core::AgentMemory::open("me\0mory").unwrap_err();
    /// assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput);
    /// ```
    pub fn open(self) -> Result<AgentMemory> {
        Ok(AgentMemory {
            handle: self.options.open("memory root")?,
        })
    }
}

impl AgentMemory {
    /// Opens the memory root `root` (the `memory/` directory) with the system clock.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        Self::builder(root).open()
    }

    /// Starts configuring a memory root.
    pub fn builder(root: impl Into<PathBuf>) -> AgentMemoryBuilder {
        AgentMemoryBuilder {
            options: HandleOptions::new(root.into()),
        }
    }

    /// How long a write waits for the memory lock.
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// assert_eq!(memory.lock_timeout(), memory_core::agent_memory::DEFAULT_LOCK_TIMEOUT);
    /// ```
    pub fn lock_timeout(&self) -> std::time::Duration {
        self.handle.lock_timeout
    }

    /// The same memory root with another lock wait. With `Duration::ZERO` a write makes
    /// a single attempt to take the lock and fails at once with
    /// [`Error::LockTimeout`] while another writer holds it: the Node binding's Promise
    /// forms use that to wait on a timer instead of on a thread.
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// let once = memory.with_lock_timeout(std::time::Duration::ZERO);
    /// assert_eq!(once.lock_timeout(), std::time::Duration::ZERO);
    /// assert_eq!(once.root(), memory.root());
    /// ```
    pub fn with_lock_timeout(&self, timeout: std::time::Duration) -> AgentMemory {
        let mut handle = self.handle.clone();
        handle.lock_timeout = timeout;
        AgentMemory { handle }
    }

    /// The memory root directory, absolute (see [`AgentMemoryBuilder::open`]).
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// assert_eq!(memory.root(), std::env::current_dir().unwrap().join("memory"));
    /// ```
    pub fn root(&self) -> &Path {
        self.handle.root.path()
    }

    /// The index file, `<root>/index.md`.
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// assert!(memory.index_path().ends_with("memory/index.md"));
    /// ```
    pub fn index_path(&self) -> PathBuf {
        self.handle.root.path().join("index.md")
    }

    /// The snapshot file of `id`, `<root>/sessions/<id>.md` (it may not exist).
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// let path = memory.session_path("2026-05-25-1318-a").unwrap();
    /// assert!(path.ends_with("memory/sessions/2026-05-25-1318-a.md"));
    /// assert!(memory.session_path("../x").is_err());
    /// ```
    pub fn session_path(&self, id: &str) -> Result<PathBuf> {
        let id = SessionId::parse(id)?;
        self.handle.root.join(&["sessions", &format!("{id}.md")])
    }

    /// The archive directory of `id`, `<root>/archive/<id>/` (it may not exist).
    ///
    /// ```
    /// let memory = memory_core::AgentMemory::open("memory").unwrap();
    /// assert!(memory.archive_dir("s-1").unwrap().ends_with("memory/archive/s-1"));
    /// ```
    pub fn archive_dir(&self, id: &str) -> Result<PathBuf> {
        let id = SessionId::parse(id)?;
        self.handle.root.join(&["archive", id.as_str()])
    }

    /// Takes the memory lock and finishes any change a killed or failed writer left
    /// unfinished (see [`crate::durable::Transaction`]), so that what follows reads the
    /// old state or the new one.
    fn lock(&self) -> Result<MemoryLock> {
        self.handle.lock()
    }

    fn read_guard(&self) -> Result<Option<MemoryLock>> {
        self.handle.read_guard()
    }

    fn offset(&self) -> chrono::FixedOffset {
        *self.handle.clock.now().offset()
    }

    fn now(&self) -> Timestamp {
        Timestamp::from_datetime(self.handle.clock.now())
    }

    fn load_index(&self) -> Result<IndexDoc> {
        IndexDoc::load(&self.index_path(), self.offset())
    }

    /// The index, which must hold the rows of `ids` ([`IndexDoc::load_holding`]).
    fn load_index_holding(&self, ids: &[&SessionId]) -> Result<IndexDoc> {
        IndexDoc::load_holding(&self.index_path(), self.offset(), ids)
    }

    fn snapshot_exists(&self, id: &SessionId) -> Result<bool> {
        Ok(self.session_path(id.as_str())?.exists())
    }
}

/// Validates free text written into a cell or snapshot: bounded, no control characters
/// other than line breaks and tabs.
pub(crate) fn validate_text(what: &'static str, value: &str) -> Result<()> {
    if value.len() > MAX_TEXT_BYTES {
        return Err(Error::invalid(
            what,
            value,
            format!("is longer than {MAX_TEXT_BYTES} bytes"),
        ));
    }
    if value
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(Error::invalid(
            what,
            value,
            "must not contain control characters",
        ));
    }
    Ok(())
}

/// The value a text reads back as once written into an index cell: trimmed, with line
/// breaks as the reader gives them back (`\r\n` and a literal `<br>` read as `\n`). Rows
/// are built from these values, so that the row read back equals the row written.
pub(crate) fn cell_value(text: &str) -> String {
    use crate::markdown::{escape_cell, unescape_cell};
    let value = unescape_cell(&escape_cell(text.trim()));
    value.trim().to_string()
}

/// Validates a keyword: like text, and without the `,` that separates keywords.
pub(crate) fn validate_keyword(value: &str) -> Result<()> {
    validate_text("keyword", value)?;
    if value.contains(',') || value.contains('\n') || value.trim().is_empty() {
        return Err(Error::invalid(
            "keyword",
            value,
            "must be non-empty, without `,` or line breaks",
        ));
    }
    Ok(())
}

/// Validates every text an update carries.
pub(crate) fn validate_update(update: &SessionUpdate) -> Result<()> {
    if let Some(topic) = &update.topic {
        validate_text("topic", topic)?;
    }
    if let Some(summary) = &update.summary {
        validate_text("summary", summary)?;
    }
    if let Some(context) = &update.context {
        validate_text("context", context)?;
    }
    // Keywords are checked where they are cleaned (`update::row_keywords`), once.
    for (what, items) in [
        ("decision", &update.decisions),
        ("file", &update.files),
        ("open question", &update.open_questions),
        ("next action", &update.next_actions),
        ("superseded decision", &update.supersede),
        ("resolved question", &update.resolve),
        ("done action", &update.done),
    ] {
        items.iter().try_for_each(|i| validate_text(what, i))?;
    }
    Ok(())
}
