//! Reading Memory: rows in the seed's preferred order, single rows, snapshots, search.

use std::cmp::Reverse;

use super::snapshot_doc::SnapshotDoc;
use super::{AgentMemory, SessionId, SessionRow, Snapshot, Status};
use crate::error::Result;

impl AgentMemory {
    /// Every row, in the order the seed prefers for reading: `active` and `stale` rows
    /// with meaningful topic, summary or keywords first, then other `active`/`stale`
    /// rows, then `idle` placeholders; most recently updated first within each group.
    /// Reads no snapshot file. A missing index is an empty list.
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration, Status};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// memory.register_session_start("a").unwrap();
    /// memory.register_manual(ManualRegistration::new("b", "Login", "Fixed it.")).unwrap();
    /// let rows = memory.sessions().unwrap();
    /// assert_eq!(rows[0].status, Status::Active);
    /// assert_eq!(rows[1].status, Status::Idle);
    /// ```
    pub fn sessions(&self) -> Result<Vec<SessionRow>> {
        let _guard = self.read_guard()?;
        let mut rows = self.load_index()?.rows()?;
        rows.sort_by_key(|row| {
            let group = match (row.status, row.is_meaningful()) {
                (Status::Idle, _) => 2,
                (_, true) => 0,
                (_, false) => 1,
            };
            (group, Reverse(row.updated_at.datetime()))
        });
        Ok(rows)
    }

    /// The rows with `status`, in reading order.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// memory.register_session_start("a").unwrap();
    /// assert_eq!(memory.sessions_with_status(memory_core::Status::Idle).unwrap().len(), 1);
    /// ```
    pub fn sessions_with_status(&self, status: Status) -> Result<Vec<SessionRow>> {
        Ok(self
            .sessions()?
            .into_iter()
            .filter(|r| r.status == status)
            .collect())
    }

    /// The row of session `id`, or [`crate::Error::SessionNotFound`].
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("a").unwrap();
    /// assert_eq!(memory.session(id.as_str()).unwrap().session_id, id);
    /// ```
    pub fn session(&self, id: &str) -> Result<SessionRow> {
        let id = SessionId::parse(id)?;
        let _guard = self.read_guard()?;
        self.load_index_holding(&[&id])?.get(&id)
    }

    /// The snapshot of session `id`, `None` when it has no snapshot file.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("a").unwrap();
    /// assert!(memory.snapshot(id.as_str()).unwrap().is_none());
    /// ```
    pub fn snapshot(&self, id: &str) -> Result<Option<Snapshot>> {
        let path = self.session_path(id)?;
        let _guard = self.read_guard()?;
        Ok(SnapshotDoc::load(&path)?.map(|doc| doc.to_snapshot()))
    }

    /// Rows whose id, agent name, topic, summary or keywords contain `query`
    /// (case-insensitive), in reading order.
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = AgentMemory::open(dir.path()).unwrap();
    /// memory.register_manual(ManualRegistration::new("a", "Login bug", "Fixed it.")).unwrap();
    /// assert_eq!(memory.find("login").unwrap().len(), 1);
    /// assert!(memory.find("payments").unwrap().is_empty());
    /// ```
    pub fn find(&self, query: &str) -> Result<Vec<SessionRow>> {
        let needle = query.trim().to_lowercase();
        Ok(self
            .sessions()?
            .into_iter()
            .filter(|row| {
                [
                    row.session_id.as_str(),
                    &row.agent_name,
                    &row.topic,
                    &row.summary,
                ]
                .into_iter()
                .chain(row.keywords.iter().map(String::as_str))
                .any(|field| field.to_lowercase().contains(&needle))
            })
            .collect())
    }
}
