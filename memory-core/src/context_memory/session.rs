//! Ending a session (the seed's "Session Memory"): chosen `session.current` entries are
//! promoted to a project or org namespace, and the rest is cleared — moved to the
//! archive, never deleted.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Serialize;

use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::{Namespace, NamespaceKind};
use super::revise::Superseded;
use super::schema::EntryStatus;
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
    /// Session entries named for promotion that an earlier, interrupted `end_session`
    /// already promoted (they are superseded): not promoted twice.
    pub already_promoted: Vec<EntityName>,
    /// The session entries cleared, now in `archive`.
    pub cleared: Vec<EntityName>,
    /// The session entries kept in `session.current`: the promoted ones and every other
    /// superseded one (so that the `supersedes` links naming them resolve), and those they
    /// link to.
    pub kept: Vec<EntityName>,
    /// Where the cleared files went, relative to the root (`None` when there were none).
    pub archive: Option<PathBuf>,
}

impl ContextMemory {
    /// Ends the session: each of `promote` (a `session.current` entry and the project or
    /// org namespace it goes to) becomes a new entry there that supersedes it; then every
    /// other `session.current` entry is cleared — its file moved to
    /// `archive/session-<UTC time>/` and its row removed — in one step. The promoted
    /// entries stay in `session.current`, superseded, so that no `supersedes` link
    /// dangles (and so do the session entries they link to).
    ///
    /// Every name and namespace is checked before anything changes: a name that is not a
    /// `session.current` entry, a namespace that is not a project or org one, refuse the
    /// whole call. Run again after an interruption, it completes: entries already promoted
    /// are not promoted twice.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let keep = memory.write(NewEntry::new("session.current", Category::Decision, ["api", "auth"], "Tokens live 1h.").unwrap()).unwrap().entry.entity_name;
    /// memory.write(NewEntry::new("session.current", Category::Todo, ["scratch", "notes"], "Try the other port.").unwrap()).unwrap();
    /// let report = memory.end_session(&[(keep.to_string(), "project.app".to_string())]).unwrap();
    /// assert_eq!(report.promoted[0].new.entity_name.as_str(), "project.app.decision.001");
    /// assert_eq!(report.cleared.len(), 1);
    /// assert_eq!(report.kept, [keep]);
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
        // Every name must be a session entry before anything changes.
        let index = {
            let lock = self.handle.lock()?;
            self.settled_index(&session, &lock)?
        };
        let mut to_promote = Vec::new();
        let mut already_promoted = Vec::new();
        for (name, target) in &targets {
            match index.rows.iter().find(|r| &r.entity == name) {
                None => {
                    return Err(Error::EntityNotFound {
                        name: name.to_string(),
                        path: index.path.clone(),
                        moved_to: None,
                    });
                }
                Some(row) if row.status == EntryStatus::Superseded => {
                    already_promoted.push(name.clone())
                }
                Some(_) => to_promote.push((name, target)),
            }
        }
        let mut promoted = Vec::new();
        for (name, target) in to_promote {
            promoted.push(self.promote_to(name.as_str(), target.as_str())?);
        }
        let lock = self.handle.lock()?;
        let index = self.settled_index(&session, &lock)?;
        // Kept: the promoted entries and every superseded one (an entry elsewhere names
        // it in `supersedes`: an earlier session's promotion), with what they link to.
        let seeds = targets
            .iter()
            .map(|(n, _)| n.clone())
            .chain(
                index
                    .rows
                    .iter()
                    .filter(|r| r.status == EntryStatus::Superseded)
                    .map(|r| r.entity.clone()),
            )
            .collect();
        let kept = self.kept_with_links(&session, seeds)?;
        let rest: Vec<_> = index
            .rows
            .iter()
            .filter(|r| !kept.contains(&r.entity))
            .collect();
        let kept: Vec<EntityName> = index
            .rows
            .iter()
            .filter(|r| kept.contains(&r.entity))
            .map(|r| r.entity.clone())
            .collect();
        if rest.is_empty() {
            return Ok(EndSession {
                promoted,
                already_promoted,
                cleared: Vec::new(),
                kept,
                archive: None,
            });
        }
        let stamp = self.utc_now().replace(':', "");
        let archive = PathBuf::from("archive").join(format!("session-{stamp}"));
        let mut tx = Transaction::new(&lock);
        let mut cleared = Vec::new();
        for row in &rest {
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
        let remaining = index.prepare(
            index
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| !kept.contains(&r.entity))
                .map(|(i, _)| index.remove(i))
                .chain([index.touch(&now)])
                .collect(),
        )?;
        // The index against what was read of it. The files moved to the archive are not
        // compared: nothing read from them goes into the change, and a rename takes
        // whatever another program saved in them along.
        remaining.stage(&mut tx);
        tx.commit()?;
        Ok(EndSession {
            promoted,
            already_promoted,
            cleared,
            kept,
            archive: Some(archive),
        })
    }

    /// `names` and every `session` entry they link to (`supersedes`, `related_entities`),
    /// transitively.
    fn kept_with_links(
        &self,
        session: &Namespace,
        names: Vec<EntityName>,
    ) -> Result<BTreeSet<EntityName>> {
        let mut kept = BTreeSet::new();
        let mut todo = names;
        while let Some(name) = todo.pop() {
            if !kept.insert(name.clone()) {
                continue;
            }
            let Ok(entry) = self.get(name.as_str()) else {
                continue;
            };
            for link in entry.supersedes.iter().chain(&entry.related_entities) {
                if link.namespace() == session && !kept.contains(link) {
                    todo.push(link.clone());
                }
            }
        }
        Ok(kept)
    }
}
