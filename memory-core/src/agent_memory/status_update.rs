//! Session update (狀態更新): merge the snapshot, then update only the matching row.

use super::session_write::SnapshotWrite;
use super::update::Continuation;
use super::verdict::remember;
use super::{
    AgentMemory, SessionId, SessionRow, SessionUpdate, Status, cell_value, validate_update,
};
use crate::durable::Transaction;
use crate::error::Result;

impl AgentMemory {
    /// Updates session `id`: merges `update` into `sessions/<id>.md` by the Snapshot
    /// Merge Policy (creating it from the template when missing), then sets the row's
    /// status to `active`, its `Updated At` to now and topic/summary/keywords as given.
    /// `Referenced By`, `Started At` and `Agent Name` are kept. Returns the row after
    /// both files were read back.
    ///
    /// ```
    /// use memory_core::{AgentMemory, SessionUpdate};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("cursor-main-agent").unwrap();
    /// memory.update(id.as_str(), SessionUpdate::new().decision("Use bcrypt")).unwrap();
    /// memory.update(id.as_str(), SessionUpdate::new().decision("Use argon2").supersede("Use bcrypt")).unwrap();
    /// let snapshot = memory.snapshot(id.as_str()).unwrap().unwrap();
    /// assert_eq!(snapshot.decisions.len(), 2);
    /// assert_eq!(snapshot.decisions[0].mark, Some(memory_core::Mark::Superseded));
    /// ```
    pub fn update(&self, id: &str, update: SessionUpdate) -> Result<SessionRow> {
        let id = SessionId::parse(id)?;
        // A refused item text or keyword names the session it was meant for.
        validate_update(&update).map_err(|e| e.on_session(id.as_str()))?;
        let keywords = update
            .keywords
            .as_deref()
            .map(super::update::row_keywords)
            .transpose()
            .map_err(|e| e.on_session(id.as_str()))?;
        let lock = self.lock()?;
        let index = self.load_index_holding(&[&id])?;
        let position = index.position(&id).ok_or_else(|| index.not_found(&id))?;
        let mut row = index.row(position)?;
        if let Some(topic) = update
            .topic
            .as_deref()
            .map(cell_value)
            .filter(|t| !t.is_empty())
        {
            row.topic = topic;
        }
        if let Some(summary) = update
            .summary
            .as_deref()
            .map(cell_value)
            .filter(|s| !s.is_empty())
        {
            row.summary = summary;
        }
        if let Some(keywords) = keywords {
            row.keywords = keywords;
        }
        row.status = Status::Active;
        row.updated_at = self.now();
        let snapshot = self.prepare_snapshot(SnapshotWrite {
            row: &row,
            update: &update,
            continuation: Continuation::None,
            touch: true,
        })?;
        let new = index.prepare(vec![index.replace(position, &row)])?;
        new.expect_rows(std::slice::from_ref(&row))?;
        let mut tx = Transaction::new(&lock);
        if let Some(snapshot) = snapshot {
            snapshot.stage(&mut tx);
        }
        let written = new.verdict(None);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [None, written]);
        Ok(row)
    }
}
