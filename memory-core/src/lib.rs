//! # memory-core
//!
//! Markdown-native memory for AI agents. memory-core implements published agent-memory
//! protocols exactly, over plain Markdown files that people and agents can still read
//! and edit by hand, and makes every write atomic, lossless, verified and safe under
//! concurrent writers in any number of processes.
//!
//! ## Agent Memory
//!
//! `memory/index.md` holds one table row per agent session; `memory/sessions/<id>.md`
//! holds a merged snapshot; `memory/archive/<id>/` holds archived sessions.
//!
//! ```
//! use memory_core::{AgentMemory, ManualRegistration, OrganizeOptions, SessionUpdate};
//!
//! let dir = tempfile::tempdir()?;
//! let memory = AgentMemory::open(dir.path().join("memory"))?;
//!
//! // The SessionStart hook registers an idle placeholder.
//! let id = memory.register_session_start("cursor-main-agent")?;
//! println!("Your Memory Session ID is: {id}");
//!
//! // A status update merges into the snapshot and promotes the row to active.
//! memory.update(id.as_str(), SessionUpdate::new()
//!     .topic("Login bug")
//!     .summary("Found the session-cookie bug; fix in review.")
//!     .decision("Rotate cookies on login")
//!     .next_action("Merge the fix"))?;
//!
//! // Another agent continues the work.
//! let next = memory.register_manual(ManualRegistration::new("cursor-main-agent", "Login follow-up", "Merging the fix."))?;
//! memory.continue_from(next.as_str(), id.as_str())?;
//! assert_eq!(memory.session(id.as_str())?.referenced_by, vec![next.clone()]);
//!
//! // Organize deletes idle placeholders and marks overdue work stale; archive ends a session.
//! memory.organize(OrganizeOptions::default())?;
//! memory.release(next.as_str(), id.as_str())?;
//! memory.archive(id.as_str())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod agent_memory;
pub mod context_memory;
pub mod durable;
mod error;
pub mod hygiene;
pub mod markdown;
mod parallel;
mod plural;
mod prefault;
pub mod structured_memory;

pub use agent_memory::{
    AgentMemory, AgentMemoryBuilder, AgentName, ArchiveOutcome, ContinueOutcome,
    ManualRegistration, Mark, OrganizeOptions, OrganizeReport, ReleaseOutcome, SessionId,
    SessionRow, SessionStart, SessionUpdate, Snapshot, SnapshotItem, Status, Timestamp, Warning,
};
pub use error::{Error, ErrorKind, GitFailure, Result};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
