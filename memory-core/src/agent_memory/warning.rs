//! Problems a command reports and goes on past: a malformed row SessionStart registers
//! beside, a snapshot organize or archive cannot read.

use std::path::PathBuf;

use serde::Serialize;

use super::SessionId;
use crate::error::Error;

/// A problem in a file that did not stop the command: the file, the 1-based line (0 when
/// it concerns the whole file) and what is wrong.
///
/// ```
/// use memory_core::AgentMemory;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("index.md"), "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n| s-1 | a | t | s | k | closed | - | 2026-05-01 | 2026-05-01 |\n").unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let start = memory.register_session_start_with_warnings("a").unwrap();
/// assert_eq!(start.warnings[0].line, 3);
/// assert!(start.warnings[0].to_string().contains("index.md:3: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Warning {
    /// The file concerned.
    pub path: PathBuf,
    /// The 1-based line (0: the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl Warning {
    /// The warning for an error at `line` (the error's own path and message are used;
    /// the `path:line:` prefix of its text is not repeated).
    pub(crate) fn from_error(error: &Error, line: usize) -> Self {
        let path = error.path().map(PathBuf::from).unwrap_or_default();
        let message = match error {
            Error::Malformed { message, .. } => message.clone(),
            Error::Duplicate { id, .. } => format!("duplicate session id {id}"),
            other => other.to_string(),
        };
        Warning {
            path,
            line: error.line().unwrap_or(line),
            message,
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// What SessionStart registration did: the new id, verified, and the rows of other
/// sessions it could not read and left byte-identical.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
/// let start = memory.register_session_start_with_warnings("cursor-main-agent").unwrap();
/// assert!(start.session_id.as_str().ends_with("-cursor-main-agent"));
/// assert!(start.warnings.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionStart {
    /// The registered session.
    pub session_id: SessionId,
    /// Rows that could not be read (bad status, timestamp, id, cell count, duplicate).
    pub warnings: Vec<Warning>,
}
