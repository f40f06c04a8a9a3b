//! Finding the namespaces a root holds: the directories of the seed's table that have an
//! `_index.md` or entity files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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
        let mut out = Vec::new();
        for dir in self.namespace_dirs()? {
            let (has_index, files) = contents(&self.root().join(&dir))?;
            if !has_index && files == 0 {
                continue;
            }
            if let Some(namespace) = Namespace::from_dir(&dir) {
                out.push(NamespaceInfo {
                    namespace,
                    dir,
                    has_index,
                    files,
                    over_threshold: files > SPLIT_THRESHOLD,
                });
            }
        }
        out.sort_by(|a, b| a.namespace.cmp(&b.namespace));
        Ok(out)
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
        self.namespaces_on_disk()?
            .iter()
            .map(|ns| self.verify(ns))
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
        self.namespaces_on_disk()?
            .iter()
            .map(|ns| self.heal(ns))
            .collect()
    }

    /// The namespaces that have an index or entity files (what queries search).
    pub(super) fn namespaces_on_disk(&self) -> Result<Vec<Namespace>> {
        Ok(self
            .namespaces()?
            .into_iter()
            .map(|info| info.namespace)
            .collect())
    }

    /// Every directory under the root that is a namespace directory (relative paths).
    fn namespace_dirs(&self) -> Result<Vec<PathBuf>> {
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
            if Namespace::from_dir(&rel).is_some() {
                found.push(rel.clone());
            }
            for entry in entries {
                let entry = entry.map_err(|e| Error::io_op(&abs, "scandir", e))?;
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                let name = entry.file_name();
                if is_dir && let Some(name) = name.to_str() {
                    let child = rel.join(name);
                    // Deeper than any namespace can be: not walked.
                    if child.components().count() <= 2 + super::namespace::MAX_DOMAIN_DEPTH {
                        stack.push(child);
                    }
                }
            }
        }
        Ok(found)
    }
}

/// Whether `dir` has an index, and how many entity files it holds.
fn contents(dir: &Path) -> Result<(bool, usize)> {
    let mut has_index = false;
    let mut files = 0;
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((false, 0)),
        Err(e) => return Err(Error::io_op(dir, "scandir", e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io_op(dir, "scandir", e))?;
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name == INDEX_FILE_NAME {
            has_index = true;
        } else if is_entity_file_name(name) {
            files += 1;
        }
    }
    Ok((has_index, files))
}
