//! Ending a session (the seed's "Session Memory"): chosen `session.current` entries are
//! promoted to a project or org namespace, and the rest is cleared — moved to the
//! archive, never deleted.

use std::path::PathBuf;

use serde::Serialize;

use super::index_file::IndexFile;
use super::memory::ContextMemory;
use super::names::{EntityName, INDEX_FILE_NAME};
use super::namespace::{Namespace, NamespaceKind};
use super::revise::Superseded;
use crate::durable::Transaction;
use crate::error::{Error, Result};

/// What [`ContextMemory::end_session`] did.
///
/// ```
/// # use memory_core::context_memory::EndSession;
/// fn kept(report: &EndSession) -> usize { report.promoted.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EndSession {
    /// The entries promoted: each new entry and the session entry it supersedes.
    pub promoted: Vec<Superseded>,
    /// The session entries cleared (promoted ones included), now in `archive`.
    pub cleared: Vec<EntityName>,
    /// Where the cleared files went, relative to the root (`None` when there were none).
    pub archive: Option<PathBuf>,
}

impl ContextMemory {
    /// Ends the session: each of `promote` (a `session.current` entry and the project or
    /// org namespace it goes to) becomes a new entry there that supersedes it; then every
    /// `session.current` entry is cleared — its file moved to
    /// `archive/session-<UTC time>/` and its row removed — in one step.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let keep = memory.write(NewEntry::new("session.current", Category::Decision, ["api", "auth"], "Tokens live 1h.").unwrap()).unwrap().entry.entity_name;
    /// memory.write(NewEntry::new("session.current", Category::Todo, ["scratch", "notes"], "Try the other port.").unwrap()).unwrap();
    /// let report = memory.end_session(&[(keep.to_string(), "project.app".to_string())]).unwrap();
    /// assert_eq!(report.promoted[0].new.entity_name.as_str(), "project.app.decision.001");
    /// assert_eq!(report.cleared.len(), 2);
    /// ```
    pub fn end_session(&self, promote: &[(String, String)]) -> Result<EndSession> {
        let session = Namespace::session_current();
        let mut targets = Vec::new();
        for (name, target) in promote {
            let name = EntityName::parse(name)?;
            if name.namespace() != &session {
                return Err(Error::invalid(
                    "entity name",
                    name.as_str(),
                    "is not a session.current entry",
                ));
            }
            let target = Namespace::parse(target)?;
            if target.kind() == NamespaceKind::Session {
                return Err(Error::invalid(
                    "namespace",
                    target.as_str(),
                    "a session entry is promoted to a project or org namespace",
                ));
            }
            targets.push((name, target));
        }
        let mut promoted = Vec::new();
        for (name, target) in &targets {
            promoted.push(self.promote_to(name.as_str(), target.as_str())?);
        }
        let lock = self.handle.lock()?;
        let index = self.settled_index(&session, &lock)?;
        if index.rows.is_empty() {
            return Ok(EndSession {
                promoted,
                cleared: Vec::new(),
                archive: None,
            });
        }
        let stamp = self.utc_now().replace(':', "");
        let archive = PathBuf::from("archive").join(format!("session-{stamp}"));
        let mut tx = Transaction::new(&lock);
        let mut cleared = Vec::new();
        for row in &index.rows {
            let from = self.file_in(&session, &row.file)?;
            let to = self.handle.root.join(&[
                "archive",
                &format!("session-{stamp}"),
                row.file.as_str(),
            ])?;
            tx.rename(from, to);
            cleared.push(row.entity.clone());
        }
        let now = self.utc_now();
        let empty = IndexFile::rebuilt(
            &self.file_in(&session, INDEX_FILE_NAME)?,
            &session,
            &[],
            &now,
        )?;
        tx.write(empty.path.clone(), empty.text.into_bytes());
        tx.commit()?;
        Ok(EndSession {
            promoted,
            cleared,
            archive: Some(archive),
        })
    }
}
