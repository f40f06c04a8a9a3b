//! The one error type of memory-core, with structured fields every binding maps.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Result alias used across memory-core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every failure memory-core reports. Each variant names the file (and line where it
/// applies) so that a person or an agent can find the problem without guessing.
///
/// ```
/// use memory_core::{AgentMemory, ErrorKind};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let err = memory.session("2026-01-01-0000-nobody").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NotFound);
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument was rejected before anything was read or written.
    #[error("invalid {what} {}: {message}", quoted(value))]
    InvalidInput {
        /// What kind of value was rejected (`session id`, `agent name`, …).
        what: &'static str,
        /// The rejected value (lossily shown; may be truncated).
        value: String,
        /// Why it was rejected.
        message: String,
        /// The session the refused argument concerns, when the call names one (a
        /// session continuing from itself, an empty item text to mark in a session's
        /// snapshot); `None` for an argument that is not about a known session.
        session_id: Option<String>,
    },
    /// A time that names no day — `last week`, `recently`, `a few days ago`, `the other
    /// day`, a month without its day or year (`last May`) — in a fact's `date` or text:
    /// refused at write time (never guessed), nothing written. Its kind is
    /// [`ErrorKind::InvalidInput`] like any bad argument (exit 2, `InvalidInputError`,
    /// `ERR_MEMORY_INVALID_INPUT`); what tells it apart on every surface is its message,
    /// which always starts with `vague time in ` (then the field, `date` or `text`), and
    /// [`Error::field`], that field.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let today = chrono::NaiveDate::from_ymd_opt(2026, 7, 10).unwrap();
    /// let err = memory_core::structured_memory::resolve_date("last week", today).unwrap_err();
    /// assert!(matches!(&err, Error::VagueTime { field: "date", phrase, .. } if phrase == "last week"));
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// assert!(err.to_string().starts_with("vague time in date \"last week\": "));
    /// assert_eq!(err.field(), Some("date"));
    /// ```
    #[error("vague time in {field} {}: {message}", quoted(value))]
    VagueTime {
        /// Where it was given: `date` (the fact's date) or `text` (a phrase in its text).
        field: &'static str,
        /// The refused value (the date given, or the fact's text; lossily shown).
        value: String,
        /// The phrase that names no day, lowercased (`last week`).
        phrase: String,
        /// Why, and what to give instead.
        message: String,
    },
    /// A binding could not convert an argument (a number where a string is expected, a
    /// string where a list is): nothing was read or written. Raised by the bindings,
    /// which name the parameter as the caller wrote it (`session_id`, `update.decisions`,
    /// an unknown option key such as `options.sigal`). Build it with [`Error::argument`].
    #[error("{name}: {message}")]
    Argument {
        /// The parameter, as the caller's language spells it (a fixed name, or one built
        /// from what the caller passed, such as an unknown option key).
        name: Cow<'static, str>,
        /// What was expected and what was given, in plain words.
        message: String,
    },
    /// A text field carries something that looks like a secret (a private key, a cloud,
    /// VCS, chat or payment token, a password in a URL, …; see
    /// [`crate::hygiene::secret_kinds`]). Nothing was written. The message names the
    /// field, the kind and the line, never the secret.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let err = memory_core::hygiene::refuse_secrets("body", "token ghp_R4nd0mF4k3T0k3nV4lu3F0rT3st1ngAbCdEf").unwrap_err();
    /// assert!(matches!(err, Error::SecretRefused { kind: "github-token", line: 1, .. }));
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// ```
    #[error(
        "{field}: line {line} holds a secret ({kind}); memory never stores secrets, so nothing was written"
    )]
    SecretRefused {
        /// The field that carries it (`body`, `summary`, `rationale`, a tag, …).
        field: String,
        /// The stable kind name of the secret (`github-token`, `private-key`, …).
        kind: &'static str,
        /// The 1-based line of the field's text the secret starts on.
        line: usize,
    },
    /// A text field is longer than its documented hard limit (for a body,
    /// [`crate::hygiene::MAX_BODY_BYTES`]). Nothing was written.
    ///
    /// ```
    /// let err = memory_core::hygiene::check_body("body", &"x".repeat(20_000)).unwrap_err();
    /// assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput);
    /// assert_eq!(err.field(), Some("body"));
    /// ```
    #[error("{field}: {bytes} bytes is over the limit of {limit} bytes ({} KiB); keep the conclusion here and point to the document", limit / 1024)]
    TextTooLarge {
        /// The field.
        field: String,
        /// Its length in bytes.
        bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The named session has no row in the index.
    #[error("{}: no session {id} in the index", path.display())]
    SessionNotFound {
        /// The session id that was looked up.
        id: String,
        /// The index file that was searched.
        path: PathBuf,
    },
    /// The named context-memory entity has no row in its namespace's index. When a split
    /// moved it to a domain, `moved_to` names it there.
    #[error("{}: no entity {name}{}", path.display(), moved_to.as_ref().map(|m| format!(" (it moved to {m})")).unwrap_or_default())]
    EntityNotFound {
        /// The entity name that was looked up.
        name: String,
        /// The index that was searched.
        path: PathBuf,
        /// Where a namespace split moved the entity.
        moved_to: Option<String>,
    },
    /// The named structured-memory topic file does not exist.
    #[error("{}: no topic file {file}", path.display())]
    TopicNotFound {
        /// The topic file, relative to the memory directory, as given.
        file: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// `memory-archive.md` has no section with the structured-memory archive id that was
    /// asked for (`restore c-20260710-001`), or there is no archive yet.
    ///
    /// ```
    /// let err = memory_core::Error::ArchiveIdNotFound {
    ///     id: "c-20260710-001".into(),
    ///     path: "memory/memory-archive.md".into(),
    /// };
    /// assert_eq!(err.kind(), memory_core::ErrorKind::NotFound);
    /// assert_eq!(err.to_string(), "memory/memory-archive.md: no section c-20260710-001 in the archive");
    /// ```
    #[error("{}: no section {id} in the archive", path.display())]
    ArchiveIdNotFound {
        /// The archive id that was looked up.
        id: String,
        /// The archive that was searched.
        path: PathBuf,
    },
    /// A new context-memory entry resembles one already in force in its namespace (same
    /// category, similar summary); write it with `force_new` to keep both.
    #[error("{}:{line}: a similar {} entry exists: {existing} (similarity {similarity:.2}); supersede or update it, or force a new one", path.display(), existing.split('.').rev().nth(1).unwrap_or("entry"))]
    SimilarEntry {
        /// The existing entry's name.
        existing: String,
        /// Its index.
        path: PathBuf,
        /// Its row's line.
        line: usize,
        /// How alike the summaries are, from 0 to 1.
        similarity: f64,
    },
    /// An entity of that name (or its file) already exists.
    #[error("{}: {name} already exists", path.display())]
    EntityExists {
        /// The entity name.
        name: String,
        /// The index or file that has it.
        path: PathBuf,
    },
    /// An item named for marking (`[superseded]`, `[resolved]`, `[done]`) is not in the snapshot.
    #[error("{}: no {section} item matching {}", path.display(), quoted(item))]
    ItemNotFound {
        /// The snapshot section that was searched.
        section: &'static str,
        /// The item text that was looked for.
        item: String,
        /// The session whose snapshot was searched.
        session_id: String,
        /// The snapshot file.
        path: PathBuf,
    },
    /// An item text matched more than one item of a section.
    #[error("{}: {} matches several {section} items: {}", path.display(), quoted(item), quoted_list(candidates))]
    AmbiguousItem {
        /// The snapshot section that was searched.
        section: &'static str,
        /// The item text that was looked for.
        item: String,
        /// The items it matched.
        candidates: Vec<String>,
        /// The session whose snapshot was searched.
        session_id: String,
        /// The snapshot file.
        path: PathBuf,
    },
    /// The session is referenced by other sessions and may not be deleted or archived.
    #[error("{}: session {id} is referenced by {}; release those references first", path.display(), referenced_by.join(", "))]
    Referenced {
        /// The protected session.
        id: String,
        /// The sessions that reference it.
        referenced_by: Vec<String>,
        /// The index file.
        path: PathBuf,
    },
    /// The memory tree contradicts the protocol (for example an `idle` row with a snapshot).
    #[error("{}: session {id} is inconsistent: {message}", path.display())]
    Inconsistent {
        /// The session concerned.
        id: String,
        /// The file that shows the inconsistency.
        path: PathBuf,
        /// What is inconsistent and how to resolve it.
        message: String,
    },
    /// A context-memory entry's history forbids the change: it is superseded (supersede
    /// the entry that replaced it) or deprecated. Nothing was written.
    ///
    /// ```
    /// let err = memory_core::Error::EntityHistory {
    ///     name: "org.global.decision.001".into(),
    ///     path: "org/global/decision-001-auth.md".into(),
    ///     message: "is superseded already; supersede the entry that replaced it".into(),
    /// };
    /// assert_eq!(err.kind(), memory_core::ErrorKind::Conflict);
    /// assert_eq!(err.id(), Some("org.global.decision.001"));
    /// assert_eq!(err.to_string(), "org/global/decision-001-auth.md: entity org.global.decision.001 is superseded already; supersede the entry that replaced it");
    /// ```
    #[error("{}: entity {name} {message}", path.display())]
    EntityHistory {
        /// The entity name.
        name: String,
        /// Its file.
        path: PathBuf,
        /// What its history forbids.
        message: String,
    },
    /// A structured-memory compactor failed, or returned what the library cannot accept
    /// (an entry it was not given, the same entry twice, an empty or secret text). The
    /// compaction was abandoned: nothing was written.
    ///
    /// ```
    /// let err = memory_core::Error::CompactorFailed {
    ///     pass: "summarize-episodic",
    ///     file: "memory-infra.md".into(),
    ///     source: "model unavailable".into(),
    /// };
    /// assert_eq!(err.kind(), memory_core::ErrorKind::Aborted);
    /// assert_eq!(err.to_string(), "memory-infra.md: the compactor's summarize-episodic pass failed, nothing was written: model unavailable");
    /// ```
    #[error("{file}: the compactor's {pass} pass failed, nothing was written: {source}")]
    CompactorFailed {
        /// The pass (`evict-dead`, `collapse-superseded`, `summarize-episodic`,
        /// `split-overgrown`).
        pass: &'static str,
        /// The topic file it was compacting.
        file: String,
        /// What the compactor raised, or what was wrong with what it returned.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The same session id appears twice where it must be unique.
    #[error("{}:{line}: duplicate session id {id}", path.display())]
    Duplicate {
        /// The duplicated id.
        id: String,
        /// The file holding the duplicate.
        path: PathBuf,
        /// The 1-based line of the second occurrence.
        line: usize,
    },
    /// A file does not have the shape the protocol requires. Nothing was written.
    #[error("{}{}: {message}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
    Malformed {
        /// The malformed file.
        path: PathBuf,
        /// The 1-based line of the problem (0 when it concerns the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A path under the memory root is (or passes through) a symbolic link, which
    /// memory-core never follows: a link could lead outside the root.
    #[error("{}: {message}", path.display())]
    LinkRefused {
        /// The link.
        path: PathBuf,
        /// Why it was refused.
        message: &'static str,
    },
    /// Another writer held the memory lock for longer than the configured wait. The
    /// message gives the wait rounded (`2 s`, `250 ms`).
    #[error("{}: timed out after {} waiting for the memory lock", path.display(), rounded(*waited))]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long the writer waited: the configured lock timeout that ran out.
        waited: Duration,
    },
    /// The caller stopped a wait for the memory lock (a binding's Ctrl-C or
    /// `AbortSignal`, through [`crate::durable::WaitCheck`]). Nothing was written.
    #[error("{}: stopped waiting for the memory lock: {}", path.display(), source_text(source.as_deref()))]
    Aborted {
        /// The lock file.
        path: PathBuf,
        /// How long we had waited (zero when the wait was stopped before it began).
        waited: Duration,
        /// Why the wait was stopped, as the caller's check reported it.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// Reading back a write did not show the intended state. The previous state was kept
    /// where the protocol allows; the operation must be treated as incomplete.
    #[error("{}: write could not be verified: {message}", path.display())]
    VerifyFailed {
        /// The file whose read-back failed.
        path: PathBuf,
        /// What did not match.
        message: String,
    },
    /// A `git` command could not run or failed (context-memory's sync hooks and
    /// recorder run git as a child process). `failure` says which, in plain words.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind, GitFailure};
    /// let err = Error::Git {
    ///     path: "/tmp/x".into(),
    ///     failure: GitFailure::NotARepository,
    ///     message: "is not inside a git repository".into(),
    /// };
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// assert_eq!(err.to_string(), "/tmp/x: is not inside a git repository");
    /// ```
    #[error("{}: {message}", path.display())]
    Git {
        /// The directory git was run in.
        path: PathBuf,
        /// What went wrong.
        failure: GitFailure,
        /// The explanation (git's own message for a failed command).
        message: String,
    },
    /// A git hook that memory-core did not install is in the way: `hook uninstall` does
    /// not remove it, and `hook install` does not overwrite a hook it had kept aside.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let err = Error::ForeignHook { path: ".git/hooks/post-merge".into(), message: "not ours".into() };
    /// assert_eq!(err.kind(), ErrorKind::Conflict);
    /// ```
    #[error("{}: {message}", path.display())]
    ForeignHook {
        /// The hook file.
        path: PathBuf,
        /// Why it was left alone and what to do.
        message: String,
    },
    /// A file changed on disk while memory-core worked out a change to it under the lock
    /// (a program that does not take memory-core's lock — an editor, an agent writing
    /// the file itself — wrote it meanwhile, for example while a compactor ran). Nothing
    /// was written; run the operation again.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let err = Error::ChangedMeanwhile { path: "memory/memory-infra.md".into(), operation: "compact" };
    /// assert_eq!(err.kind(), ErrorKind::Conflict);
    /// assert!(err.to_string().contains("nothing was written"));
    /// ```
    #[error(
        "{}: changed on disk while {operation} was being worked out (another program wrote it without memory-core's lock); nothing was written: run {operation} again",
        path.display()
    )]
    ChangedMeanwhile {
        /// The file that changed.
        path: PathBuf,
        /// The operation that was refused (`compact`, `remember`…).
        operation: &'static str,
    },
    /// Writing `path` failed while memory-core staged its new content: a write goes to a
    /// hidden temp file beside it (in `dir`), which is then renamed over it, so the
    /// directory must be writable too. The error names the user's file, never the temp
    /// file; kind [`ErrorKind::Io`], with the failed call in [`Error::syscall`] and the OS
    /// error as its source.
    ///
    /// ```
    /// let err = memory_core::Error::Staging {
    ///     path: "memory/MEMORY.md".into(),
    ///     dir: "memory".into(),
    ///     syscall: "open",
    ///     source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    /// };
    /// assert_eq!(err.kind(), memory_core::ErrorKind::Io);
    /// assert_eq!(err.path(), Some(std::path::Path::new("memory/MEMORY.md")));
    /// assert!(err.to_string().starts_with("memory/MEMORY.md: permission denied"), "{err}");
    /// assert!(err.to_string().contains("the directory memory must be writable"), "{err}");
    /// ```
    #[error("{}: {}{}", path.display(), plain_io(source), staging_hint(dir, source))]
    Staging {
        /// The file being written.
        path: PathBuf,
        /// The directory its new content was being staged in.
        dir: PathBuf,
        /// The call that failed on the staged file (`open`, `write`, `fsync`, `fchmod`).
        syscall: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An operating-system I/O error on a named file.
    #[error("{}: {}", path.display(), plain_io(source))]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The system call that failed, by the name Node's `fs` errors use (`open`,
        /// `read`, `write`, `fsync`, `fchmod`, `ftruncate`, `rename`, `unlink`, `mkdir`, `rmdir`, `link`,
        /// `scandir` for listing a directory, `lstat`, `flock` for the memory lock,
        /// `getcwd`). When memory-core refuses a call itself (a read-only file, a file to
        /// move that is gone) it is the call it did not make, and `source` carries no OS
        /// error number; a directory where a file is to be replaced is the `EISDIR` its
        /// `rename` would fail with. See [`Error::syscall`].
        syscall: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Why a `git` command failed ([`Error::Git`]).
///
/// ```
/// assert_eq!(memory_core::GitFailure::Missing.as_str(), "git_missing");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GitFailure {
    /// git is not installed (or could not be started).
    Missing,
    /// The directory is not in a git work tree (or does not exist).
    NotARepository,
    /// git ran and reported an error.
    Failed,
}

impl GitFailure {
    /// A stable snake_case name: `git_missing`, `not_a_repository`, `git_failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            GitFailure::Missing => "git_missing",
            GitFailure::NotARepository => "not_a_repository",
            GitFailure::Failed => "git_failed",
        }
    }
}

/// The coarse class of an [`Error`]: what bindings map to exception classes and error
/// codes, and the command line to exit codes.
///
/// ```
/// use memory_core::ErrorKind;
/// assert_eq!(ErrorKind::Conflict.exit_code(), 4);
/// assert_eq!(ErrorKind::NotFound.code(), "ERR_MEMORY_NOT_FOUND");
/// ```
///
/// Deliberately not `#[non_exhaustive]`: each binding maps the kinds with one exhaustive
/// `match`, so adding a kind breaks their build until it is mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad arguments.
    InvalidInput,
    /// A session or item does not exist.
    NotFound,
    /// The operation contradicts the current state (referenced, inconsistent, duplicate).
    Conflict,
    /// A file on disk is malformed.
    Malformed,
    /// The memory lock could not be taken in time.
    LockTimeout,
    /// Any other I/O failure, including failed verification.
    Io,
    /// The caller stopped the operation while it waited (Ctrl-C, an `AbortSignal`).
    Aborted,
}

impl ErrorKind {
    /// The `memcore` exit code for this kind: 2 invalid input, 3 not found, 4 conflict,
    /// 5 malformed, 6 lock timeout, 1 other I/O, 130 aborted (as for Ctrl-C).
    ///
    /// ```
    /// assert_eq!(memory_core::ErrorKind::Malformed.exit_code(), 5);
    /// ```
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::InvalidInput => 2,
            ErrorKind::NotFound => 3,
            ErrorKind::Conflict => 4,
            ErrorKind::Malformed => 5,
            ErrorKind::LockTimeout => 6,
            ErrorKind::Io => 1,
            ErrorKind::Aborted => 130,
        }
    }

    /// The stable snake_case name of the kind (`invalid_input`, `not_found`, `conflict`,
    /// `malformed`, `lock_timeout`, `io`, `aborted`), used in JSON errors.
    ///
    /// ```
    /// assert_eq!(memory_core::ErrorKind::LockTimeout.as_str(), "lock_timeout");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Malformed => "malformed",
            ErrorKind::LockTimeout => "lock_timeout",
            ErrorKind::Io => "io",
            ErrorKind::Aborted => "aborted",
        }
    }

    /// The stable error code the Node binding exposes as `error.code`.
    ///
    /// ```
    /// assert_eq!(memory_core::ErrorKind::Io.code(), "ERR_MEMORY_IO");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "ERR_MEMORY_INVALID_INPUT",
            ErrorKind::NotFound => "ERR_MEMORY_NOT_FOUND",
            ErrorKind::Conflict => "ERR_MEMORY_CONFLICT",
            ErrorKind::Malformed => "ERR_MEMORY_MALFORMED",
            ErrorKind::LockTimeout => "ERR_MEMORY_LOCK_TIMEOUT",
            ErrorKind::Io => "ERR_MEMORY_IO",
            ErrorKind::Aborted => "ERR_MEMORY_ABORTED",
        }
    }
}

impl Error {
    /// The coarse class of this error.
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let err = Error::Malformed { path: "index.md".into(), line: 3, message: "x".into() };
    /// assert_eq!(err.kind(), ErrorKind::Malformed);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidInput { .. }
            | Error::Argument { .. }
            | Error::AmbiguousItem { .. }
            | Error::LinkRefused { .. }
            | Error::SecretRefused { .. }
            | Error::VagueTime { .. }
            | Error::TextTooLarge { .. } => ErrorKind::InvalidInput,
            Error::SessionNotFound { .. }
            | Error::ItemNotFound { .. }
            | Error::EntityNotFound { .. }
            | Error::TopicNotFound { .. }
            | Error::ArchiveIdNotFound { .. } => ErrorKind::NotFound,
            Error::Referenced { .. }
            | Error::Inconsistent { .. }
            | Error::Duplicate { .. }
            | Error::SimilarEntry { .. }
            | Error::EntityExists { .. }
            | Error::EntityHistory { .. } => ErrorKind::Conflict,
            Error::Malformed { .. } => ErrorKind::Malformed,
            Error::LockTimeout { .. } => ErrorKind::LockTimeout,
            Error::Aborted { .. } | Error::CompactorFailed { .. } => ErrorKind::Aborted,
            Error::VerifyFailed { .. } | Error::Io { .. } | Error::Staging { .. } => ErrorKind::Io,
            Error::Git { failure, .. } => match failure {
                GitFailure::NotARepository => ErrorKind::InvalidInput,
                GitFailure::Missing | GitFailure::Failed => ErrorKind::Io,
            },
            Error::ForeignHook { .. } | Error::ChangedMeanwhile { .. } => ErrorKind::Conflict,
        }
    }

    /// The file this error concerns, when there is one.
    ///
    /// ```
    /// use memory_core::Error;
    /// let err = Error::Malformed { path: "index.md".into(), line: 3, message: "x".into() };
    /// assert_eq!(err.path().unwrap(), std::path::Path::new("index.md"));
    /// ```
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::InvalidInput { .. }
            | Error::Argument { .. }
            | Error::SecretRefused { .. }
            | Error::VagueTime { .. }
            | Error::TextTooLarge { .. }
            | Error::CompactorFailed { .. } => None,
            Error::SessionNotFound { path, .. }
            | Error::EntityNotFound { path, .. }
            | Error::TopicNotFound { path, .. }
            | Error::ArchiveIdNotFound { path, .. }
            | Error::SimilarEntry { path, .. }
            | Error::EntityExists { path, .. }
            | Error::EntityHistory { path, .. }
            | Error::ItemNotFound { path, .. }
            | Error::AmbiguousItem { path, .. }
            | Error::Referenced { path, .. }
            | Error::Inconsistent { path, .. }
            | Error::Duplicate { path, .. }
            | Error::Malformed { path, .. }
            | Error::LinkRefused { path, .. }
            | Error::LockTimeout { path, .. }
            | Error::Aborted { path, .. }
            | Error::VerifyFailed { path, .. }
            | Error::Io { path, .. }
            | Error::Staging { path, .. }
            | Error::Git { path, .. }
            | Error::ForeignHook { path, .. }
            | Error::ChangedMeanwhile { path, .. } => Some(path),
        }
    }

    /// The 1-based line this error concerns, when known: of the file for a malformed or
    /// duplicate entry, of the field's text for [`Error::SecretRefused`].
    ///
    /// ```
    /// use memory_core::Error;
    /// let err = Error::Malformed { path: "index.md".into(), line: 3, message: "x".into() };
    /// assert_eq!(err.line(), Some(3));
    /// ```
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Malformed { line, .. }
            | Error::Duplicate { line, .. }
            | Error::SimilarEntry { line, .. }
            | Error::SecretRefused { line, .. }
                if *line > 0 =>
            {
                Some(*line)
            }
            _ => None,
        }
    }

    /// The session id (or, for context-memory, the entity name) this error concerns, when
    /// there is one.
    ///
    /// ```
    /// use memory_core::Error;
    /// let err = Error::SessionNotFound { id: "x".into(), path: "index.md".into() };
    /// assert_eq!(err.id(), Some("x"));
    /// ```
    pub fn id(&self) -> Option<&str> {
        match self {
            Error::SessionNotFound { id, .. }
            | Error::EntityNotFound { name: id, .. }
            | Error::SimilarEntry { existing: id, .. }
            | Error::EntityExists { name: id, .. }
            | Error::EntityHistory { name: id, .. }
            | Error::Referenced { id, .. }
            | Error::Inconsistent { id, .. }
            | Error::Duplicate { id, .. } => Some(id),
            Error::ItemNotFound { session_id, .. } | Error::AmbiguousItem { session_id, .. } => {
                Some(session_id)
            }
            Error::InvalidInput { session_id, .. } => session_id.as_deref(),
            _ => None,
        }
    }

    /// The text field this error concerns: for [`Error::SecretRefused`],
    /// [`Error::TextTooLarge`] and [`Error::VagueTime`] (`date` or `text`); `None` for every
    /// other error.
    ///
    /// ```
    /// let err = memory_core::hygiene::refuse_secrets("summary", "AKIAZ7QX3RT5WVB2KMNP").unwrap_err();
    /// assert_eq!(err.field(), Some("summary"));
    /// ```
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::SecretRefused { field, .. } | Error::TextTooLarge { field, .. } => Some(field),
            Error::VagueTime { field, .. } => Some(field),
            _ => None,
        }
    }

    /// The kind of secret an [`Error::SecretRefused`] found (`github-token`, …); `None`
    /// for every other error.
    ///
    /// ```
    /// let err = memory_core::hygiene::refuse_secrets("body", "AKIAZ7QX3RT5WVB2KMNP").unwrap_err();
    /// assert_eq!(err.secret_kind(), Some("aws-access-key"));
    /// ```
    pub fn secret_kind(&self) -> Option<&'static str> {
        match self {
            Error::SecretRefused { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The system call that failed, for an [`Error::Io`] (`open`, `read`, `rename`, …;
    /// see the field's documentation); `None` for every other error.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// // A directory opens for reading on Unix; reading it fails with `EISDIR`.
    /// let err = memory_core::durable::read_text(dir.path()).unwrap_err();
    /// # #[cfg(unix)]
    /// assert_eq!(err.syscall(), Some("read"));
    /// // A missing parent directory fails on `open`.
    /// let err = memory_core::durable::read_text(&dir.path().join("a/b.md")).unwrap_err();
    /// assert_eq!(err.syscall(), Some("open"));
    /// let other = memory_core::Error::Malformed { path: "index.md".into(), line: 3, message: "x".into() };
    /// assert_eq!(other.syscall(), None);
    /// ```
    pub fn syscall(&self) -> Option<&str> {
        match self {
            Error::Io { syscall, .. } | Error::Staging { syscall, .. } => Some(syscall),
            _ => None,
        }
    }

    /// The session id of the snapshot file `path` (`sessions/<id>.md`): its file stem.
    pub(crate) fn snapshot_session(path: &Path) -> String {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The [`Error::Argument`] for parameter `name`: what every binding raises when it
    /// cannot convert an argument or refuses an option key, so that both bindings map it
    /// through the one mapping of [`Error::kind`] (`InvalidInput`).
    ///
    /// ```
    /// use memory_core::{Error, ErrorKind};
    /// let err = Error::argument("sessionId", "expected a string, got number 5");
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// assert_eq!(err.to_string(), "sessionId: expected a string, got number 5");
    /// let key = String::from("options.sigal");
    /// assert_eq!(Error::argument(key, "unknown option").to_string(), "options.sigal: unknown option");
    /// ```
    pub fn argument(name: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        Error::Argument {
            name: name.into(),
            message: message.into(),
        }
    }

    pub(crate) fn io_op(
        path: impl Into<PathBuf>,
        syscall: &'static str,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            path: path.into(),
            syscall,
            source,
        }
    }

    /// A failed `fs::read` (open, fstat, read): a directory opens fine on Unix and fails
    /// on `read` with `EISDIR`, as does a device error; everything else (missing, denied,
    /// not a directory on the way, too many links) fails on `open`.
    pub(crate) fn read_failed(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let syscall = match source.kind() {
            std::io::ErrorKind::IsADirectory => "read",
            _ if source.raw_os_error() == Some(EIO) => "read",
            _ => "open",
        };
        Error::io_op(path, syscall, source)
    }

    pub(crate) fn malformed(
        path: impl Into<PathBuf>,
        line: usize,
        message: impl Into<String>,
    ) -> Self {
        Error::Malformed {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn invalid(what: &'static str, value: &str, message: impl Into<String>) -> Self {
        let mut shown: String = value.chars().take(80).collect();
        if shown.len() < value.len() {
            shown.push('…');
        }
        Error::InvalidInput {
            what,
            value: shown,
            message: message.into(),
            session_id: None,
        }
    }

    /// This error, with `session_id` filled in when it is an [`Error::InvalidInput`]
    /// without one: an argument of a call on that session (an update's item text, its
    /// keywords) was refused.
    pub(crate) fn on_session(self, session_id: &str) -> Self {
        match self {
            Error::InvalidInput {
                what,
                value,
                message,
                session_id: None,
            } => Error::InvalidInput {
                what,
                value,
                message,
                session_id: Some(session_id.to_string()),
            },
            other => other,
        }
    }

    /// The error of the checked writer for a change whose result the reader refuses:
    /// the reader's `Malformed` becomes `InvalidInput` ("would leave … unreadable …;
    /// nothing was written"), other errors pass through.
    pub(crate) fn unreadable_result(path: &Path, error: Error) -> Error {
        match error {
            Error::Malformed {
                path: file,
                line,
                message,
            } => Error::invalid(
                "change",
                &format!("{}:{line}", file.display()),
                format!(
                    "would leave {} unreadable ({message}); nothing was written",
                    path.display()
                ),
            ),
            other => other,
        }
    }

    pub(crate) fn verify(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::VerifyFailed {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// `EIO`, the same number on every Unix (and unused elsewhere).
const EIO: i32 = 5;

/// `waited` as people say it: whole milliseconds below a second, seconds with one decimal
/// below ten seconds (`1.5 s`, `2 s`), whole seconds above.
///
/// ```
/// # use std::time::Duration;
/// # use memory_core::Error;
/// let err = Error::LockTimeout { path: ".memcore.lock".into(), waited: Duration::from_millis(2003) };
/// assert_eq!(err.to_string(), ".memcore.lock: timed out after 2 s waiting for the memory lock");
/// ```
fn rounded(waited: Duration) -> String {
    let ms = waited.as_secs_f64() * 1000.0;
    if ms < 999.5 {
        format!("{} ms", ms.round())
    } else if ms < 9_950.0 {
        let tenths = (ms / 100.0).round() / 10.0;
        if tenths.fract() == 0.0 {
            format!("{tenths:.0} s")
        } else {
            format!("{tenths:.1} s")
        }
    } else {
        format!("{:.0} s", (ms / 1000.0).round())
    }
}

/// A value in double quotes for a message: `"` and `\` escaped, line breaks and other
/// control characters written `\n`, `\t`, `\u001b` (JSON's spelling, not Rust's `\u{1b}`).
///
/// ```
/// let err = memory_core::AgentMemory::open("m").unwrap().session("a\u{1b}b").unwrap_err();
/// assert!(err.to_string().starts_with(r#"invalid session id "a\u001bb""#), "{err}");
/// ```
pub(crate) fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Values in double quotes, comma separated.
fn quoted_list(values: &[String]) -> String {
    values
        .iter()
        .map(|v| quoted(v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An I/O error in plain words: the operating system's description without Rust's
/// ` (os error 21)` suffix (the number is the error's `errno` in both bindings).
fn plain_io(source: &std::io::Error) -> String {
    let text = source.to_string();
    match (source.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// Why a staging failure on a writable-looking file happened, when the OS says the
/// directory refused it (permission, a read-only file system).
fn staging_hint(dir: &Path, source: &std::io::Error) -> String {
    // EROFS is 30 on Linux and the BSDs alike.
    let read_only_fs = source.raw_os_error() == Some(30);
    if source.kind() == std::io::ErrorKind::PermissionDenied || read_only_fs {
        format!(
            " (memory-core writes a file by putting its new content in a temp file beside it and renaming that over it, so the directory {} must be writable too)",
            dir.display()
        )
    } else {
        format!(
            " (while writing its new content beside it in {})",
            dir.display()
        )
    }
}

fn source_text(source: Option<&(dyn std::error::Error + Send + Sync)>) -> String {
    source.map_or_else(|| "cancelled".to_string(), ToString::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeout(ms: u64) -> String {
        Error::LockTimeout {
            path: "l".into(),
            waited: Duration::from_millis(ms),
        }
        .to_string()
    }

    #[test]
    fn lock_waits_are_rounded_in_plain_units() {
        assert_eq!(
            timeout(0),
            "l: timed out after 0 ms waiting for the memory lock"
        );
        assert_eq!(
            timeout(249),
            "l: timed out after 249 ms waiting for the memory lock"
        );
        assert_eq!(
            timeout(999),
            "l: timed out after 999 ms waiting for the memory lock"
        );
        assert_eq!(
            timeout(1000),
            "l: timed out after 1 s waiting for the memory lock"
        );
        assert_eq!(
            timeout(1540),
            "l: timed out after 1.5 s waiting for the memory lock"
        );
        assert_eq!(
            timeout(2003),
            "l: timed out after 2 s waiting for the memory lock"
        );
        assert_eq!(
            timeout(9960),
            "l: timed out after 10 s waiting for the memory lock"
        );
        assert_eq!(
            timeout(125_400),
            "l: timed out after 125 s waiting for the memory lock"
        );
    }

    #[test]
    fn aborted_errors_name_the_lock_and_the_cause() {
        let err = Error::Aborted {
            path: "l".into(),
            waited: Duration::from_millis(300),
            source: Some("KeyboardInterrupt".into()),
        };
        assert_eq!(err.kind(), ErrorKind::Aborted);
        assert_eq!(err.path(), Some(Path::new("l")));
        assert_eq!(
            err.to_string(),
            "l: stopped waiting for the memory lock: KeyboardInterrupt"
        );
        assert_eq!(ErrorKind::Aborted.code(), "ERR_MEMORY_ABORTED");
    }

    #[test]
    fn a_whole_file_problem_shows_no_line() {
        let err = Error::malformed("x/_index.md", 0, "no index table");
        assert_eq!(err.to_string(), "x/_index.md: no index table");
        assert_eq!(err.line(), None);
        assert_eq!(
            Error::malformed("a.md", 3, "bad").to_string(),
            "a.md:3: bad"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_refused_link_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("sessions")).unwrap();
        let root = crate::durable::SafeRoot::new(dir.path());
        let err = root.join(&["sessions", "a.md"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(err.path(), Some(dir.path().join("sessions").as_path()));
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn item_errors_carry_the_session() {
        let err = Error::ItemNotFound {
            section: "Decisions",
            item: "x".into(),
            session_id: "s-1".into(),
            path: "sessions/s-1.md".into(),
        };
        assert_eq!(err.id(), Some("s-1"));
        assert_eq!(
            Error::snapshot_session(Path::new("m/sessions/s-1.md")),
            "s-1"
        );
    }
}
