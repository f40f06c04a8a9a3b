//! The recorder the git hooks call (`memcore context refresh --record`): on `main` or
//! `master`, the files the last merge or checkout changed are appended to the project
//! namespace's `_pending_refresh.md`, under the memory lock.

use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;

use super::git::{self, ChangedFiles, RECORDED_BRANCHES};
use super::memory::ContextMemory;
use super::names::PENDING_REFRESH_FILE_NAME;
use super::namespace::{Namespace, project_segment};
use super::refresh::{PendingChange, PendingRefresh, RefreshTrigger};
use super::refresh_store::{ClearReport, append_pending_refresh, clear_pending_refresh};
use crate::durable::create_private_dir_all;
use crate::error::{Error, Result};

/// Why [`ContextMemory::record_changes`] recorded nothing.
///
/// ```
/// use memory_core::context_memory::SkipReason;
/// assert_eq!(SkipReason::NoPreviousHead.as_str(), "no_previous_head");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "branch")]
#[non_exhaustive]
pub enum SkipReason {
    /// A branch other than `main` or `master` is checked out (its name).
    OtherBranch(String),
    /// HEAD is detached (no branch).
    DetachedHead,
    /// HEAD has no previous position (`HEAD@{1}`), as after a first checkout.
    NoPreviousHead,
    /// The previous HEAD and HEAD have the same files.
    NothingChanged,
}

impl SkipReason {
    /// A stable snake_case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            SkipReason::OtherBranch(_) => "other_branch",
            SkipReason::DetachedHead => "detached_head",
            SkipReason::NoPreviousHead => "no_previous_head",
            SkipReason::NothingChanged => "nothing_changed",
        }
    }
}

/// What [`ContextMemory::record_changes`] did.
///
/// ```
/// # use memory_core::context_memory::RecordOutcome;
/// fn recorded(o: &RecordOutcome) -> usize { o.recorded.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RecordOutcome {
    /// The project namespace of the repository.
    pub namespace: Namespace,
    /// The `_pending_refresh.md` file (whether or not it was written).
    pub file: PathBuf,
    /// The changes listed by this run (empty when skipped).
    pub recorded: Vec<PendingChange>,
    /// Why nothing was recorded, when nothing was.
    pub skipped: Option<SkipReason>,
}

/// The project namespace of the repository at `repo`: `project.<name>` with the name of
/// [`git::project_name`] made a segment by [`project_segment`].
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let repo = dir.path().join("Socket.IO");
/// # std::process::Command::new("git").arg("init").arg("-q").arg(&repo).status().unwrap();
/// let ns = memory_core::context_memory::project_namespace(&repo).unwrap();
/// assert_eq!(ns.as_str(), "project.socket-io");
/// ```
pub fn project_namespace(repo: &Path) -> Result<Namespace> {
    let name = git::project_name(repo)?;
    let segment = project_segment(&name).ok_or_else(|| {
        Error::invalid(
            "project name",
            &name,
            "has no letter or digit to make a namespace from",
        )
    })?;
    Namespace::project(&segment)
}

impl ContextMemory {
    /// Records the files the last merge or checkout changed in the repository at `repo`
    /// (any directory in its work tree) in its project namespace's `_pending_refresh.md`
    /// under this root — what the installed hooks run. Only `main` and `master` record;
    /// a first checkout (no `HEAD@{1}`) and an empty diff record nothing; the outcome
    /// says why. The time comes from this memory's clock, in UTC.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let repo = dir.path().join("app");
    /// # std::process::Command::new("git").args(["init", "-q", "-b", "main"]).arg(&repo).status().unwrap();
    /// use memory_core::context_memory::{ContextMemory, RefreshTrigger, SkipReason};
    /// let memory = ContextMemory::open(dir.path().join("memory")).unwrap();
    /// let outcome = memory.record_changes(&repo, RefreshTrigger::PostCheckout).unwrap();
    /// assert_eq!(outcome.skipped, Some(SkipReason::NoPreviousHead));
    /// assert_eq!(outcome.namespace.as_str(), "project.app");
    /// ```
    pub fn record_changes(&self, repo: &Path, trigger: RefreshTrigger) -> Result<RecordOutcome> {
        let namespace = project_namespace(repo)?;
        let file = self.pending_file(&namespace)?;
        let mut outcome = RecordOutcome {
            namespace,
            file,
            recorded: Vec::new(),
            skipped: None,
        };
        let skipped = match git::current_branch(repo)? {
            None => Some(SkipReason::DetachedHead),
            Some(branch) if !RECORDED_BRANCHES.contains(&branch.as_str()) => {
                Some(SkipReason::OtherBranch(branch))
            }
            Some(_) => None,
        };
        if skipped.is_some() {
            outcome.skipped = skipped;
            return Ok(outcome);
        }
        let files = match git::changed_files(repo)? {
            ChangedFiles::NoPreviousHead => {
                outcome.skipped = Some(SkipReason::NoPreviousHead);
                return Ok(outcome);
            }
            ChangedFiles::Files(files) if files.is_empty() => {
                outcome.skipped = Some(SkipReason::NothingChanged);
                return Ok(outcome);
            }
            ChangedFiles::Files(files) => files,
        };
        let lock = self.handle.lock()?;
        // Re-join under the lock: the directory may have been replaced by a link meanwhile.
        let file = self.pending_file(&outcome.namespace)?;
        if let Some(dir) = file.parent() {
            create_private_dir_all(dir)?;
        }
        let timestamp = self
            .handle
            .clock
            .now()
            .with_timezone(&Utc)
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        outcome.recorded = append_pending_refresh(&lock, &file, trigger, &timestamp, &files)?;
        Ok(outcome)
    }

    /// Clears the `done` paths from the `_pending_refresh.md` of `namespace` (see
    /// [`clear_pending_refresh`]), under the memory lock: a section left empty goes, and
    /// the file goes with its last path. Paths that were not pending are reported.
    ///
    /// ```
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let report = memory.clear_refresh(&Namespace::project("app").unwrap(), &["a.rs".into()]).unwrap();
    /// assert_eq!(report.not_pending, ["a.rs"]);
    /// ```
    pub fn clear_refresh(&self, namespace: &Namespace, done: &[String]) -> Result<ClearReport> {
        let lock = self.handle.lock()?;
        clear_pending_refresh(&lock, &self.pending_file(namespace)?, done)
    }

    /// The `_pending_refresh.md` of `namespace`, read leniently under the read guard
    /// (empty when there is none), with a warning for each line not understood.
    pub(super) fn pending_doc(
        &self,
        namespace: &Namespace,
    ) -> Result<(PendingRefresh, Vec<crate::agent_memory::Warning>)> {
        let _guard = self.handle.read_guard()?;
        super::refresh_store::read_pending_refresh(&self.pending_file(namespace)?)
    }

    /// The pending file's path in `namespace`'s directory (refusing links on the way).
    fn pending_file(&self, namespace: &Namespace) -> Result<PathBuf> {
        self.file_in(namespace, PENDING_REFRESH_FILE_NAME)
    }
}
