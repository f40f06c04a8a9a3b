//! `refresh`: the files the sync hooks listed as changed, each with the entries whose
//! `source_path` points at it (the entries to review).

use serde::Serialize;

use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::Namespace;
use super::refresh::PendingChange;
use crate::agent_memory::Warning;
use crate::error::Result;

/// One changed file and the entries that cite it.
///
/// ```
/// # use memory_core::context_memory::PendingMatch;
/// fn to_review(m: &PendingMatch) -> usize { m.entries.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PendingMatch {
    /// The change the hook recorded.
    pub change: PendingChange,
    /// Entries of the project namespace (and its domains) whose `source_path` is this
    /// file.
    pub entries: Vec<EntityName>,
}

/// What [`ContextMemory::pending_refresh_report`] found: the pending changes matched to
/// entries, and the lines of `_pending_refresh.md` the reader did not understand (a
/// hand-written note, a malformed heading), each naming the file and line. Every
/// `- path` line of every section is listed in `matches`.
///
/// ```
/// # use memory_core::context_memory::PendingReport;
/// fn summary(r: &PendingReport) -> String { format!("{} pending, {} warnings", r.matches.len(), r.warnings.len()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PendingReport {
    /// The pending changes, in file order, each with the entries citing it.
    pub matches: Vec<PendingMatch>,
    /// The lines that were not understood (left in the file as they are).
    pub warnings: Vec<Warning>,
}

impl ContextMemory {
    /// [`ContextMemory::pending_refresh`] with the warnings of the lenient reader: a
    /// line of `_pending_refresh.md` that is not understood never hides a path; it is
    /// reported here.
    ///
    /// ```
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let ns = Namespace::project("app").unwrap();
    /// std::fs::create_dir_all(dir.path().join("projects/app")).unwrap();
    /// std::fs::write(dir.path().join("projects/app/_pending_refresh.md"),
    ///     "## Additional changes (manual at 2026-04-03T10:00:00Z)\n\n- a.rs\nNote: reviewed.\n").unwrap();
    /// let report = memory.pending_refresh_report(&ns).unwrap();
    /// assert_eq!(report.matches[0].change.path, "a.rs");
    /// assert_eq!(report.warnings[0].line, 4);
    /// ```
    pub fn pending_refresh_report(&self, namespace: &Namespace) -> Result<PendingReport> {
        let (pending, warnings) = self.pending_doc(namespace)?;
        let matches = self.match_changes(namespace, pending.changes())?;
        Ok(PendingReport { matches, warnings })
    }

    /// The changes pending in `namespace`'s `_pending_refresh.md`, each matched to the
    /// entries of the namespace and its domains whose `source_path` names the file: the
    /// same path, or the same path after a `scheme:` prefix (`docs:global/a.md` matches
    /// `global/a.md`), or one ending the other at a `/` (`docs/api.md` matches
    /// `repo/docs/api.md`). Entity files that do not read are skipped here (`verify`
    /// reports them). Lines of the pending file that are not understood are skipped
    /// too ([`ContextMemory::pending_refresh_report`] reports them); no listed path is.
    ///
    /// ```
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// assert!(memory.pending_refresh(&Namespace::project("app").unwrap()).unwrap().is_empty());
    /// ```
    pub fn pending_refresh(&self, namespace: &Namespace) -> Result<Vec<PendingMatch>> {
        Ok(self.pending_refresh_report(namespace)?.matches)
    }

    fn match_changes(
        &self,
        namespace: &Namespace,
        changes: Vec<PendingChange>,
    ) -> Result<Vec<PendingMatch>> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        let mut sources: Vec<(EntityName, String)> = Vec::new();
        for info in self.namespaces()? {
            if !info.namespace.is_within(namespace) {
                continue;
            }
            for file in self.scan_dir(&info.namespace)?.entries {
                if let Some(source) = &file.entry.source_path {
                    sources.push((file.entry.entity_name.clone(), source.clone()));
                }
            }
        }
        Ok(changes
            .into_iter()
            .map(|change| {
                let entries = sources
                    .iter()
                    .filter(|(_, source)| cites(source, &change.path))
                    .map(|(name, _)| name.clone())
                    .collect();
                PendingMatch { change, entries }
            })
            .collect())
    }
}

/// Whether a `source_path` names the repository file `path`.
///
/// ```
/// # use memory_core::context_memory::source_cites as cites;
/// assert!(cites("docs:global/decisions/auth-flow.md", "global/decisions/auth-flow.md"));
/// assert!(cites("src/auth.rs", "src/auth.rs"));
/// assert!(cites("docs/api.md", "repo/docs/api.md"));
/// assert!(!cites("src/auth.rs", "src/authz.rs"));
/// assert!(!cites("api.md", "docs/xapi.md"));
/// ```
pub fn source_cites(source: &str, path: &str) -> bool {
    cites(source, path)
}

fn cites(source: &str, path: &str) -> bool {
    let source = source.trim();
    let path = path.trim().trim_start_matches("./");
    let bare = match source.split_once(':') {
        Some((scheme, rest))
            if !scheme.is_empty() && !scheme.contains('/') && !rest.starts_with("//") =>
        {
            rest
        }
        _ => source,
    };
    [source, bare].into_iter().any(|s| {
        let s = s.trim_start_matches("./");
        !s.is_empty()
            && (s == path || path.ends_with(&format!("/{s}")) || s.ends_with(&format!("/{path}")))
    })
}
