//! Finding the namespaces a root holds: the directories of the seed's table that have an
//! `_index.md` or entity files.

use std::fs;
use std::io;
use std::path::PathBuf;

use serde::Serialize;

use super::heal::{DriftReport, HealReport};
use super::memory::ContextMemory;
use super::names::{INDEX_FILE_NAME, is_entity_file_name};
use super::namespace::Namespace;
use crate::error::{Error, Result};

/// Past this many entries the seed asks for a split by domain ("When a namespace exceeds
/// ~50 entries").
pub const SPLIT_THRESHOLD: usize = 50;

/// One namespace found under the root.
///
/// ```
/// # use memory_core::context_memory::NamespaceInfo;
/// fn crowded(infos: &[NamespaceInfo]) -> usize { infos.iter().filter(|i| i.over_threshold).count() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NamespaceInfo {
    /// The namespace.
    pub namespace: Namespace,
    /// Its directory, relative to the root.
    pub dir: PathBuf,
    /// Whether the directory has an `_index.md`.
    pub has_index: bool,
    /// How many entity files the directory holds.
    pub files: usize,
    /// Whether it holds more than [`SPLIT_THRESHOLD`] entity files.
    pub over_threshold: bool,
}

impl ContextMemory {
    /// Every namespace under the root that has an `_index.md` or an entity file, in name
    /// order. `session.current` is listed like the others (queries leave it out unless
    /// it is named). Directories outside the seed's table (`archive/`, anything else)
    /// and symbolic links are not walked.
    ///
    /// ```
    /// use memory_core::context_memory::ContextMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir_all(dir.path().join("projects/myapp/api")).unwrap();
    /// std::fs::write(dir.path().join("projects/myapp/api/decision-001.md"), "---\n---\n").unwrap();
    /// let found = ContextMemory::open(dir.path()).unwrap().namespaces().unwrap();
    /// assert_eq!(found[0].namespace.as_str(), "project.myapp.api");
    /// assert_eq!(found[0].files, 1);
    /// ```
    pub fn namespaces(&self) -> Result<Vec<NamespaceInfo>> {
        let _guard = self.handle.read_guard()?;
        Ok(self
            .namespace_listings()?
            .into_iter()
            .map(|(namespace, listing)| NamespaceInfo {
                namespace,
                dir: listing.dir,
                has_index: listing.has_index,
                files: listing.files.len(),
                over_threshold: listing.files.len() > SPLIT_THRESHOLD,
            })
            .collect())
    }

    /// [`verify`](ContextMemory::verify) of every namespace [`namespaces`](ContextMemory::namespaces)
    /// finds, in name order; writes nothing (`memcore context verify` without a namespace).
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// memory.write(NewEntry::new("org.global", Category::Decision, ["a", "b"], "Use JWT.").unwrap()).unwrap();
    /// let reports = memory.verify_all().unwrap();
    /// assert_eq!(reports.len(), 1);
    /// assert!(reports.iter().all(|r| !r.has_drift()));
    /// ```
    pub fn verify_all(&self) -> Result<Vec<DriftReport>> {
        self.namespaces()?
            .iter()
            .map(|info| self.verify(&info.namespace))
            .collect()
    }

    /// [`heal`](ContextMemory::heal) of every namespace [`namespaces`](ContextMemory::namespaces)
    /// finds, in name order, each under the lock (`memcore context heal` without a
    /// namespace). Stops at the first namespace that fails; the ones before it stay healed.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let written = memory.write(NewEntry::new("org.global", Category::Decision, ["a", "b"], "Use JWT.").unwrap()).unwrap();
    /// std::fs::remove_file(dir.path().join(&written.entry.file)).unwrap();
    /// let reports = memory.heal_all().unwrap();
    /// assert_eq!(reports[0].removed.len(), 1);
    /// ```
    pub fn heal_all(&self) -> Result<Vec<HealReport>> {
        self.namespaces()?
            .iter()
            .map(|info| self.heal(&info.namespace))
            .collect()
    }

    /// Every namespace that has an index or entity files, in name order, with its
    /// directory's listing (what queries search, listed once).
    pub(super) fn namespace_listings(&self) -> Result<Vec<(Namespace, Listing)>> {
        let mut out = Vec::new();
        for listing in self.namespace_dirs()? {
            if !listing.has_index && listing.files.is_empty() {
                continue;
            }
            if let Some(namespace) = Namespace::from_dir(&listing.dir) {
                out.push((namespace, listing));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Every directory under the root that is a namespace directory, listed: each
    /// directory is read once, for its subdirectories and its files alike.
    fn namespace_dirs(&self) -> Result<Vec<Listing>> {
        let root = self.root();
        let mut found = Vec::new();
        let mut stack: Vec<PathBuf> = ["org", "projects", "session"]
            .iter()
            .map(PathBuf::from)
            .collect();
        while let Some(rel) = stack.pop() {
            let abs = root.join(&rel);
            let entries = match fs::read_dir(&abs) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => continue,
                Err(e) => return Err(Error::io_op(&abs, "scandir", e)),
            };
            let is_namespace = Namespace::from_dir(&rel).is_some();
            let mut has_index = false;
            let mut files = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| Error::io_op(&abs, "scandir", e))?;
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                // Taken as it is (no copy): a query lists 10,000 names.
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                if kind.is_dir() {
                    let child = rel.join(&name);
                    // Deeper than any namespace can be: not walked.
                    if child.components().count() <= 2 + super::namespace::MAX_DOMAIN_DEPTH {
                        stack.push(child);
                    }
                } else if is_namespace && kind.is_file() {
                    if name == INDEX_FILE_NAME {
                        has_index = true;
                    } else if is_entity_file_name(&name) {
                        files.push(name);
                    }
                }
            }
            if is_namespace {
                found.push(Listing {
                    dir: rel,
                    has_index,
                    files,
                });
            }
        }
        Ok(found)
    }
}

/// A namespace directory as one listing saw it.
pub(super) struct Listing {
    /// The directory, relative to the root.
    pub dir: PathBuf,
    /// Whether it has an `_index.md` (a regular file).
    pub has_index: bool,
    /// Its entity file names (regular files, those [`ContextMemory::list_dir`] gives),
    /// in the directory's order: a query only looks names up, so they are not sorted.
    pub files: Vec<String>,
}
