//! Migration from a previous memory directory (the seed's "Migration from Previous
//! System"): the old directory is first copied verbatim under `<root>/archive/` as the
//! backup, then every entity file found in it is imported into its namespace with the
//! indexes updated, in one step; what cannot be imported is reported with the reason.
//! The source is never changed or deleted.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::entity::read_entry;
use super::heal::row_of;
use super::index_file::IndexRow;
use super::memory::ContextMemory;
use super::names::{EntityName, entity_file_name, is_entity_file_name, slug_of};
use super::namespace::Namespace;
use crate::durable::{Transaction, create_private_dir_all};
use crate::error::{Error, Result};
use crate::markdown::FrontmatterKeys;

/// The most files a migration reads (a guard against pointing it at a home directory).
pub const MAX_MIGRATED_FILES: usize = 100_000;

/// A file a migration did not import, and why.
///
/// ```
/// # use memory_core::context_memory::NotImported;
/// fn why(n: &NotImported) -> &str { &n.reason }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NotImported {
    /// The file, relative to the migrated directory.
    pub file: PathBuf,
    /// Why it was not imported.
    pub reason: String,
}

/// What [`ContextMemory::migrate`] did.
///
/// ```
/// # use memory_core::context_memory::MigrationReport;
/// fn count(r: &MigrationReport) -> usize { r.imported.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MigrationReport {
    /// The verbatim copy of the old directory, relative to the root.
    pub backup: PathBuf,
    /// The entries imported, with their new files (relative to the root).
    pub imported: Vec<(EntityName, PathBuf)>,
    /// The Markdown files not imported, with the reason.
    pub not_imported: Vec<NotImported>,
    /// Files of the old directory that are not Markdown (kept in the backup only).
    pub other_files: usize,
}

impl ContextMemory {
    /// Migrates the memory kept in `from`: copies it verbatim to
    /// `archive/migrated-<UTC time>/`, then imports each Markdown file whose frontmatter
    /// is an entity (it names its namespace) into that namespace's directory, keeping
    /// its bytes, and adds its row to the index — all imports and index changes as one
    /// step. An entity already present (same name) or a file that does not read is
    /// reported, not imported. `from` is only read.
    ///
    /// ```
    /// use memory_core::context_memory::ContextMemory;
    /// let old = tempfile::tempdir().unwrap();
    /// std::fs::write(old.path().join("auth.md"), "---\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [auth, security]\ncreated_at: 2025-01-01\n---\n\nAuth uses JWT.\n").unwrap();
    /// let root = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(root.path()).unwrap();
    /// let report = memory.migrate(old.path()).unwrap();
    /// assert_eq!(report.imported[0].0.as_str(), "org.global.decision.001");
    /// assert!(memory.get("org.global.decision.001").is_ok());
    /// assert!(old.path().join("auth.md").exists(), "the source is kept");
    /// ```
    pub fn migrate(&self, from: &Path) -> Result<MigrationReport> {
        let from = std::path::absolute(from).map_err(|e| Error::io_op(from, "getcwd", e))?;
        if !from.is_dir() {
            return Err(Error::invalid(
                "migration source",
                &from.to_string_lossy(),
                "is not a directory",
            ));
        }
        let root = self.root().to_path_buf();
        if root.starts_with(&from) || from.starts_with(&root) {
            return Err(Error::invalid(
                "migration source",
                &from.to_string_lossy(),
                "contains the memory root or lies inside it; migrate from a directory beside it",
            ));
        }
        let files = list_files(&from)?;
        let lock = self.handle.lock()?;
        // 1. The backup: a verbatim copy, made under a hidden name and renamed into place
        // once whole.
        let stamp = self.utc_now().replace(':', "");
        let mut name = format!("migrated-{stamp}");
        let mut n = 1;
        while root.join("archive").join(&name).exists() {
            n += 1;
            name = format!("migrated-{stamp}-{n}");
        }
        let backup_rel = PathBuf::from("archive").join(&name);
        let backup = root.join(&backup_rel);
        let staging = root.join("archive").join(format!(".{name}.partial"));
        let copied = copy_verbatim(&from, &files, &staging).and_then(|()| {
            fs::rename(&staging, &backup).map_err(|e| Error::io_op(&backup, "rename", e))
        });
        if let Err(error) = copied {
            // A half-made copy is no backup: nothing else has been done yet.
            let _ = fs::remove_dir_all(&staging);
            return Err(error);
        }
        // 2. The imports, read from the backup.
        let mut report = MigrationReport {
            backup: backup_rel,
            imported: Vec::new(),
            not_imported: Vec::new(),
            other_files: 0,
        };
        let mut per_namespace: BTreeMap<Namespace, Vec<(String, String, IndexRow)>> =
            BTreeMap::new();
        for rel in &files {
            let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if !name.ends_with(".md") {
                report.other_files += 1;
                continue;
            }
            if !is_entity_file_name(name) {
                report.not_imported.push(NotImported {
                    file: rel.clone(),
                    reason: "an index or pending-refresh file (indexes are rebuilt)".to_string(),
                });
                continue;
            }
            match self.importable(&backup.join(rel), rel, &per_namespace) {
                Ok((namespace, file_name, text, row)) => {
                    per_namespace
                        .entry(namespace)
                        .or_default()
                        .push((file_name, text, row));
                }
                Err(reason) => report.not_imported.push(NotImported {
                    file: rel.clone(),
                    reason,
                }),
            }
        }
        let now = self.utc_now();
        let mut tx = Transaction::new(&lock);
        for (namespace, entries) in &per_namespace {
            let index = self.settled_index(namespace, &lock)?;
            let mut edits = Vec::new();
            for (file_name, text, row) in entries {
                tx.write(
                    self.file_in(namespace, file_name)?,
                    text.clone().into_bytes(),
                );
                edits.push(index.append(row));
                report
                    .imported
                    .push((row.entity.clone(), namespace.dir().join(file_name)));
            }
            edits.push(index.touch(&now));
            let new_index = index.prepare(edits)?;
            tx.write(new_index.path.clone(), new_index.text.into_bytes());
        }
        tx.commit()?;
        Ok(report)
    }

    /// Whether the file at `path` can be imported: its entity, the file name it gets in
    /// its namespace, its text (unchanged) and its row; else the reason.
    fn importable(
        &self,
        path: &Path,
        rel: &Path,
        pending: &BTreeMap<Namespace, Vec<(String, String, IndexRow)>>,
    ) -> std::result::Result<(Namespace, String, String, IndexRow), String> {
        let text = crate::durable::read_text(path).map_err(|e| e.to_string())?;
        let keys = FrontmatterKeys::read(&text)
            .map_err(|i| format!("line {}: {}", i.line, i.message))?
            .ok_or_else(|| "no YAML frontmatter: not an entity file".to_string())?;
        let map = keys
            .fields(&text)
            .map_err(|i| format!("line {}: {}", i.line, i.message))?;
        let namespace = map
            .get("namespace")
            .and_then(|v| v.as_str())
            .ok_or_else(|| "no namespace in the frontmatter".to_string())
            .and_then(|ns| Namespace::parse(ns).map_err(|e| e.to_string()))?;
        let body = keys.frontmatter.body(&text);
        let entry =
            read_entry(&map, body, &namespace, rel.to_path_buf(), None).map_err(|p| {
                match p.key.and_then(|k| keys.get(&text, k)) {
                    Some(entry) => format!("line {}: {}", entry.line, p.message),
                    None => p.message,
                }
            })?;
        let index = self.load_index(&namespace).map_err(|e| e.to_string())?;
        let taken_names = pending.get(&namespace).into_iter().flatten();
        if index.rows.iter().any(|r| r.entity == entry.entity_name)
            || taken_names
                .clone()
                .any(|(_, _, r)| r.entity == entry.entity_name)
        {
            return Err(format!("{} is already in the memory", entry.entity_name));
        }
        let listing = self.list_dir(&namespace).map_err(|e| e.to_string())?;
        let original = rel
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let taken = |n: &str| {
            listing.contains(n)
                || pending
                    .get(&namespace)
                    .into_iter()
                    .flatten()
                    .any(|(f, _, _)| f == n)
        };
        let file_name = if !taken(&original) {
            original
        } else {
            let fresh = entity_file_name(
                entry.category,
                entry.entity_name.short_id(),
                &slug_of(&entry.summary),
            );
            if taken(&fresh) {
                return Err(format!(
                    "no free file name for {} in {namespace}",
                    entry.entity_name
                ));
            }
            fresh
        };
        let row = row_of(&entry, &file_name, None);
        Ok((namespace, file_name, text, row))
    }
}

/// Copies `files` (relative to `from`) into `to`, byte for byte, each flushed.
fn copy_verbatim(from: &Path, files: &[PathBuf], to: &Path) -> Result<()> {
    create_private_dir_all(to)?;
    for rel in files {
        let target = to.join(rel);
        if let Some(parent) = target.parent() {
            create_private_dir_all(parent)?;
        }
        let source = from.join(rel);
        let bytes = fs::read(&source).map_err(|e| Error::read_failed(&source, e))?;
        crate::durable::replace_atomically(&target, &bytes)?;
    }
    Ok(())
}

/// Every regular file under `dir` (relative paths, sorted); links are not followed.
fn list_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let abs = dir.join(&rel);
        let entries = fs::read_dir(&abs).map_err(|e| Error::io_op(&abs, "scandir", e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(&abs, "scandir", e))?;
            let kind = entry
                .file_type()
                .map_err(|e| Error::io_op(entry.path(), "lstat", e))?;
            let child = rel.join(entry.file_name());
            if kind.is_dir() {
                stack.push(child);
            } else if kind.is_file() {
                out.push(child);
                if out.len() > MAX_MIGRATED_FILES {
                    return Err(Error::invalid(
                        "migration source",
                        &dir.to_string_lossy(),
                        format!(
                            "holds more than {MAX_MIGRATED_FILES} files; is it the right directory?"
                        ),
                    ));
                }
            }
        }
    }
    out.sort();
    Ok(out)
}
