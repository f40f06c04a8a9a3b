//! Continue Memory (接續記憶) and Release Reference (解除引用): both sides of a link,
//! written and verified.

use serde::Serialize;

use super::session_write::SnapshotWrite;
use super::snapshot_doc::SnapshotDoc;
use super::update::Continuation;
use super::verdict::remember;
use super::{AgentMemory, SessionId, SessionRow, SessionUpdate, Status};
use crate::durable::Transaction;
use crate::error::{Error, Result};

/// The result of [`AgentMemory::continue_from`]: both rows after the verified write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContinueOutcome {
    /// The continuing session (now `active`).
    pub current: SessionRow,
    /// The source session (only its `Referenced By` changed).
    pub source: SessionRow,
}

/// The result of [`AgentMemory::release`]: which side held the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReleaseOutcome {
    /// The referencing session.
    pub current: SessionId,
    /// The source session.
    pub source: SessionId,
    /// Whether the source row's `Referenced By` listed `current` and was updated.
    pub referenced_by_updated: bool,
    /// Whether the current snapshot's `Continues From` listed `source` and was updated.
    pub continues_from_updated: bool,
}

impl AgentMemory {
    /// Records that session `current` continues work from `source`: merges `Continues
    /// From` (and a line of Current Context) into the current snapshot, promotes the
    /// current row to `active`, and adds `current` to the source row's `Referenced By`
    /// without touching its other cells. Both sides are read back before returning.
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let source = memory.register_manual(ManualRegistration::new("a", "Login", "Fixed it.")).unwrap();
    /// let current = memory.register_session_start("b").unwrap();
    /// let outcome = memory.continue_from(current.as_str(), source.as_str()).unwrap();
    /// assert_eq!(outcome.source.referenced_by, vec![current.clone()]);
    /// let snapshot = memory.snapshot(current.as_str()).unwrap().unwrap();
    /// assert_eq!(snapshot.continues_from, vec![source]);
    /// ```
    pub fn continue_from(&self, current: &str, source: &str) -> Result<ContinueOutcome> {
        let current = SessionId::parse(current)?;
        let source = SessionId::parse(source)?;
        if current == source {
            return Err(Error::invalid(
                "source session",
                source.as_str(),
                "a session cannot continue from itself",
            )
            .on_session(current.as_str()));
        }
        let lock = self.lock()?;
        let index = self.load_index_holding(&[&current, &source])?;
        let current_pos = index
            .position(&current)
            .ok_or_else(|| index.not_found(&current))?;
        let source_pos = index
            .position(&source)
            .ok_or_else(|| index.not_found(&source))?;
        let mut current_row = index.row(current_pos)?;
        let mut source_row = index.row(source_pos)?;
        current_row.status = Status::Active;
        current_row.updated_at = self.now();
        let context = format!(
            "Continues from {source} ({}): {}",
            source_row.topic, source_row.summary
        );
        let update = SessionUpdate::new().context(context);
        let sources = [source.clone()];
        let snapshot = self.prepare_snapshot(SnapshotWrite {
            row: &current_row,
            update: &update,
            continuation: Continuation::Add(&sources),
            touch: true,
        })?;
        let mut edits = vec![index.replace(current_pos, &current_row)];
        if !source_row.referenced_by.contains(&current) {
            source_row.referenced_by.push(current.clone());
            edits.push(index.replace(source_pos, &source_row));
        }
        let new = index.prepare(edits)?;
        new.expect_rows(&[current_row.clone(), source_row.clone()])?;
        let mut tx = Transaction::new(&lock);
        if let Some(snapshot) = snapshot {
            snapshot.stage(&mut tx);
        }
        let written = new.verdict(None);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [None, written]);
        Ok(ContinueOutcome {
            current: current_row,
            source: source_row,
        })
    }

    /// Releases the reference of `current` on `source`: removes `current` from the source
    /// row's `Referenced By` (`-` when none remain) and `source` from the current
    /// snapshot's `Continues From` (`None` when empty). Neither session's status or
    /// `Updated At` changes. Releasing a link that is already gone is not an error; the
    /// outcome says which side changed. The source may already be archived; so may the
    /// referencing session, as long as the source still lists it (otherwise an unknown
    /// referencing session is [`crate::Error::SessionNotFound`]).
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let source = memory.register_manual(ManualRegistration::new("a", "Login", "Fixed it.")).unwrap();
    /// let current = memory.register_manual(ManualRegistration::new("b", "More", "Went on.")).unwrap();
    /// memory.continue_from(current.as_str(), source.as_str()).unwrap();
    /// let outcome = memory.release(current.as_str(), source.as_str()).unwrap();
    /// assert!(outcome.referenced_by_updated && outcome.continues_from_updated);
    /// assert!(memory.session(source.as_str()).unwrap().referenced_by.is_empty());
    /// ```
    pub fn release(&self, current: &str, source: &str) -> Result<ReleaseOutcome> {
        let current = SessionId::parse(current)?;
        let source = SessionId::parse(source)?;
        let lock = self.lock()?;
        let index = self.load_index()?;
        let current_position = index.position(&current);
        let source_position = index.position(&source);
        // Without its row, the referencing session (archived, or a typo) only counts when
        // the source still lists it: that dangling reference is what there is to release.
        let dangling = match source_position {
            Some(p) => index.row(p)?.referenced_by.contains(&current),
            None => false,
        };
        if current_position.is_none() && !dangling {
            return Err(index.not_found(&current));
        }
        // Both sides are prepared and checked first, then written as one step: a failure
        // never leaves one side released.
        let mut tx = Transaction::new(&lock);
        let mut referenced_by_updated = false;
        if let Some(position) = source_position {
            let mut source_row = index.row(position)?;
            if source_row.referenced_by.contains(&current) {
                source_row.referenced_by.retain(|r| *r != current);
                let new = index.prepare(vec![index.replace(position, &source_row)])?;
                new.expect_rows(std::slice::from_ref(&source_row))?;
                new.stage(&mut tx);
                referenced_by_updated = true;
            }
        }
        // The referencing session may already be archived: then only the source's side
        // remains to be cleaned.
        let mut continues_from_updated = false;
        if let Some(position) = current_position {
            let current_row = index.row(position)?;
            let doc = SnapshotDoc::load(&self.session_path(current.as_str())?)?;
            if doc.is_some_and(|d| d.continues_from().contains(&source)) {
                let snapshot = self.prepare_snapshot(SnapshotWrite {
                    row: &current_row,
                    update: &SessionUpdate::default(),
                    continuation: Continuation::Remove(&source),
                    touch: false,
                })?;
                if let Some(snapshot) = snapshot {
                    snapshot.stage(&mut tx);
                    continues_from_updated = true;
                }
            }
        }
        tx.commit()?;
        Ok(ReleaseOutcome {
            current,
            source,
            referenced_by_updated,
            continues_from_updated,
        })
    }
}
