//! SessionStart registration and manual registration.

use super::index::IndexDoc;
use super::session_write::SnapshotWrite;
use super::update::Continuation;
use super::verdict::remember;
use super::{
    AgentMemory, AgentName, MANUAL_FALLBACK_SUMMARY, MANUAL_KEYWORDS, SESSION_START_KEYWORDS,
    SESSION_START_SUMMARY, SessionId, SessionRow, SessionStart, SessionUpdate, Status, Timestamp,
    UNSET_TOPIC, cell_value, validate_text,
};
use crate::durable::Transaction;
use crate::error::Result;

/// What manual registration (手動註冊 memory) records: the row's topic and summary and
/// the first snapshot's content.
///
/// ```
/// use memory_core::{AgentMemory, ManualRegistration};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let id = memory.register_manual(
///     ManualRegistration::new("cursor-main-agent", "Release 1.2", "Cut the release branch.")
///         .context("Release branch cut; CI green.")
///         .next_action("Tag v1.2.0"),
/// ).unwrap();
/// assert!(memory.session_path(id.as_str()).unwrap().exists());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManualRegistration {
    /// The stable agent name.
    pub agent_name: String,
    /// The topic (`未設定` when empty).
    pub topic: String,
    /// One or two sentences of what the session did (the seed's fallback when empty).
    pub summary: String,
    /// Keywords (the seed's manual-registration defaults when `None`).
    pub keywords: Option<Vec<String>>,
    /// The snapshot content, merged into the template like an update.
    pub snapshot: SessionUpdate,
    /// Source sessions this session continues from (their `Referenced By` is updated too).
    pub continues_from: Vec<String>,
}

impl ManualRegistration {
    /// A registration with agent name, topic and summary.
    pub fn new(
        agent_name: impl Into<String>,
        topic: impl Into<String>,
        summary: impl Into<String>,
    ) -> Self {
        ManualRegistration {
            agent_name: agent_name.into(),
            topic: topic.into(),
            summary: summary.into(),
            keywords: None,
            snapshot: SessionUpdate::default(),
            continues_from: Vec::new(),
        }
    }

    /// Sets the keywords, stored as given: [`AgentMemory::register_manual`] cleans them,
    /// exactly as when the field is set directly. Each is trimmed, and empty ones are
    /// dropped (so `a,b,` split on commas gives `a` and `b`).
    ///
    /// ```
    /// use memory_core::{AgentMemory, ManualRegistration};
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let memory = AgentMemory::open(dir.path()).unwrap();
    /// let registration = ManualRegistration::new("a", "t", "s").keywords(["x", " ", "y "]);
    /// assert_eq!(registration.keywords.as_deref().unwrap(), ["x", " ", "y "]);
    /// let id = memory.register_manual(registration).unwrap();
    /// assert_eq!(memory.session(id.as_str()).unwrap().keywords, ["x", "y"]);
    /// ```
    pub fn keywords<I: IntoIterator<Item = S>, S: Into<String>>(mut self, keywords: I) -> Self {
        self.keywords = Some(keywords.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the Current Context (it starts with the summary; this is added after it).
    pub fn context(mut self, context: impl Into<String>) -> Self {
        self.snapshot.context = Some(context.into());
        self
    }

    /// Adds a decision.
    pub fn decision(mut self, text: impl Into<String>) -> Self {
        self.snapshot.decisions.push(text.into());
        self
    }

    /// Adds a file or artifact.
    pub fn file(mut self, text: impl Into<String>) -> Self {
        self.snapshot.files.push(text.into());
        self
    }

    /// Adds an open question.
    pub fn question(mut self, text: impl Into<String>) -> Self {
        self.snapshot.open_questions.push(text.into());
        self
    }

    /// Adds a next action.
    pub fn next_action(mut self, text: impl Into<String>) -> Self {
        self.snapshot.next_actions.push(text.into());
        self
    }

    /// Adds a source session this one continues from.
    pub fn continues_from(mut self, source: impl Into<String>) -> Self {
        self.continues_from.push(source.into());
        self
    }
}

impl AgentMemory {
    /// SessionStart registration: appends an `idle` row with the seed's defaults (topic
    /// `未設定`, summary `sessionStart 自動註冊，尚未整理主題。`), creates no snapshot, and
    /// returns the id only after the row was read back. Rows of other sessions it cannot
    /// read do not stop it: see [`AgentMemory::register_session_start_with_warnings`],
    /// which also returns them.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let id = memory.register_session_start("cursor-main-agent").unwrap();
    /// assert!(!memory.session_path(id.as_str()).unwrap().exists());
    /// ```
    pub fn register_session_start(&self, agent_name: &str) -> Result<SessionId> {
        Ok(self
            .register_session_start_with_warnings(agent_name)?
            .session_id)
    }

    /// SessionStart registration that goes on past rows of other sessions it cannot read
    /// (a bad status, timestamp, id or cell count, a duplicate id): the new row is appended
    /// after the table's last row, those rows stay byte-identical, and each is reported as
    /// a [`Warning`](crate::Warning) naming the file and line. Problems with the table itself (no readable
    /// header, the table in a callout, rows cut off from the table) still fail.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// let start = memory.register_session_start_with_warnings("cursor-main-agent").unwrap();
    /// assert!(start.warnings.is_empty());
    /// assert!(memory.session(start.session_id.as_str()).is_ok());
    /// ```
    pub fn register_session_start_with_warnings(&self, agent_name: &str) -> Result<SessionStart> {
        let agent = AgentName::parse(agent_name)?;
        let lock = self.lock()?;
        if let Some(session_id) = self.start_by_verdict(&lock, &agent)? {
            return Ok(SessionStart {
                session_id,
                warnings: Vec::new(),
            });
        }
        let (index, warnings) = IndexDoc::load_lenient(&self.index_path(), self.offset())?;
        let (read, digester) = index.read_verdict();
        let now = self.now();
        let id = self.fresh_id(&index, &agent)?;
        let row = session_start_row(&id, &agent, now);
        let new = index.prepare_append(&row)?;
        new.expect_rows(std::slice::from_ref(&row))?;
        let written = new.verdict(Some(&digester));
        let mut tx = Transaction::new(&lock);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [read, written]);
        Ok(SessionStart {
            session_id: id,
            warnings,
        })
    }

    /// Manual registration: writes the snapshot from the template, then appends an
    /// `active` row (and adds this id to each source's `Referenced By`), verifies both,
    /// and only then returns the id.
    pub fn register_manual(&self, registration: ManualRegistration) -> Result<SessionId> {
        let agent = AgentName::parse(&registration.agent_name)?;
        validate_text("topic", &registration.topic)?;
        validate_text("summary", &registration.summary)?;
        // Cleaned and checked here only: the builder stores keywords as given, and the
        // bindings set the field directly.
        let keywords = match &registration.keywords {
            Some(k) => super::update::row_keywords(k)?,
            None => MANUAL_KEYWORDS
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>(),
        };
        super::validate_update(&registration.snapshot)?;
        // The same source named twice is one continuation (collapsed before anything is
        // read, so the row is edited once).
        let mut sources: Vec<SessionId> = Vec::new();
        for source in &registration.continues_from {
            let source = SessionId::parse(source)?;
            if !sources.contains(&source) {
                sources.push(source);
            }
        }

        let lock = self.lock()?;
        let index = self.load_index_holding(&sources.iter().collect::<Vec<_>>())?;
        for source in &sources {
            index.get(source)?;
        }
        let now = self.now();
        let id = self.fresh_id(&index, &agent)?;
        let non_empty = |s: &str, default: &str| {
            let value = cell_value(s);
            if value.is_empty() {
                default.to_string()
            } else {
                value
            }
        };
        let row = SessionRow {
            session_id: id.clone(),
            agent_name: agent.as_str().to_string(),
            topic: non_empty(&registration.topic, UNSET_TOPIC),
            summary: non_empty(&registration.summary, MANUAL_FALLBACK_SUMMARY),
            keywords,
            status: Status::Active,
            referenced_by: Vec::new(),
            started_at: now.clone(),
            updated_at: now,
        };
        let snapshot = self.prepare_snapshot(SnapshotWrite {
            row: &row,
            update: &registration.snapshot,
            continuation: Continuation::Add(&sources),
            touch: true,
        })?;
        let mut edits = vec![index.append(&row)];
        let mut expected = vec![row];
        for source in &sources {
            let position = index
                .position(source)
                .ok_or_else(|| index.not_found(source))?;
            let mut source_row = index.row(position)?;
            if !source_row.referenced_by.contains(&id) {
                source_row.referenced_by.push(id.clone());
                edits.push(index.replace(position, &source_row));
            }
            expected.push(source_row);
        }
        let new = index.prepare(edits)?;
        new.expect_rows(&expected)?;
        let mut tx = Transaction::new(&lock);
        if let Some(snapshot) = snapshot {
            snapshot.stage(&mut tx);
        }
        let written = new.verdict(None);
        new.stage(&mut tx);
        tx.commit()?;
        remember(&lock, [None, written]);
        Ok(id)
    }

    /// An id for `agent` at the clock's minute that no row, snapshot or archive uses.
    fn fresh_id(&self, index: &IndexDoc, agent: &AgentName) -> Result<SessionId> {
        let sessions = self.handle.root.path().join("sessions");
        let archive = self.handle.root.path().join("archive");
        let id = SessionId::generate(self.handle.clock.now(), agent, |candidate| {
            SessionId::parse(candidate).is_ok_and(|c| index.uses_id(&c))
                || sessions.join(format!("{candidate}.md")).exists()
                || archive.join(candidate).exists()
        });
        // Generated ids are built from a validated name and digits; re-check anyway so
        // that no path is ever built from an unvalidated string.
        SessionId::parse(id.as_str())
    }
}

/// The row SessionStart appends for `id`: `idle`, with the seed's defaults, started and
/// updated at `now`.
pub(super) fn session_start_row(id: &SessionId, agent: &AgentName, now: Timestamp) -> SessionRow {
    SessionRow {
        session_id: id.clone(),
        agent_name: agent.as_str().to_string(),
        topic: UNSET_TOPIC.to_string(),
        summary: SESSION_START_SUMMARY.to_string(),
        keywords: SESSION_START_KEYWORDS
            .iter()
            .map(|k| k.to_string())
            .collect(),
        status: Status::Idle,
        referenced_by: Vec::new(),
        started_at: now.clone(),
        updated_at: now,
    }
}
