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
use super::names::{
    EntityName, entity_file_name, is_entity_file_name, is_markdown_file_name, slug_of,
};
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

/// A link of an imported entry (`supersedes` or `related_entities`) to an entity that is
/// neither in the memory nor imported by the same migration.
///
/// ```
/// # use memory_core::context_memory::DanglingLink;
/// fn line(d: &DanglingLink) -> String { format!("{} {} {}", d.entity, d.field, d.target) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DanglingLink {
    /// The imported entry holding the link.
    pub entity: EntityName,
    /// The field: `supersedes` or `related_entities`.
    pub field: &'static str,
    /// The entity it names, which is not there.
    pub target: EntityName,
}

/// What [`ContextMemory::migrate`] did.
///
/// An old file whose body or frontmatter (any field, comments included) carries a
/// secret is not imported: it is listed in `not_imported` with the secret's kind, the
/// field and the line within it, never the secret, and the source is left untouched (as
/// ever; the backup copy under `archive/` is verbatim). A body past the hard size limit
/// is not imported either. An imported entry whose `supersedes` or `related_entities`
/// names an entity that is neither in the memory nor imported in the same run is still
/// imported — the knowledge is kept, and the link stays as written, since its target may
/// arrive in a later migration — and each such link is listed in `dangling_links`
/// (`verify` keeps reporting it until it is fixed).
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
    /// Links of imported entries to entities that are not there (the entries were
    /// imported; see the type's documentation).
    pub dangling_links: Vec<DanglingLink>,
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
            dangling_links: Vec::new(),
        };
        let mut links: Vec<(EntityName, &'static str, EntityName)> = Vec::new();
        let mut per_namespace: BTreeMap<Namespace, Vec<(String, String, IndexRow)>> =
            BTreeMap::new();
        for rel in &files {
            let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if !name.ends_with(".md") {
                report.other_files += 1;
                continue;
            }
            if !is_markdown_file_name(name) {
                report.not_imported.push(NotImported {
                    file: rel.clone(),
                    reason: "an index or pending-refresh file (indexes are rebuilt)".to_string(),
                });
                continue;
            }
            match self.importable(&backup.join(rel), rel, &per_namespace) {
                Ok((namespace, file_name, text, row, entry_links)) => {
                    links.extend(entry_links);
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
        let imported: Vec<&EntityName> = per_namespace
            .values()
            .flatten()
            .map(|(_, _, row)| &row.entity)
            .collect();
        for (entity, field, target) in links {
            if !imported.contains(&&target) && !self.entity_exists(&target) {
                report.dangling_links.push(DanglingLink {
                    entity,
                    field,
                    target,
                });
            }
        }
        let now = self.utc_now();
        let mut tx = Transaction::new(&lock);
        for (namespace, entries) in &per_namespace {
            let index = self.settled_index(namespace, &lock)?;
            let mut edits = Vec::new();
            for (file_name, text, row) in entries {
                // New files: one another program put there meanwhile is not replaced.
                tx.write_over(
                    self.file_in(namespace, file_name)?,
                    None,
                    text.clone().into_bytes(),
                );
                edits.push(index.append(row));
                report
                    .imported
                    .push((row.entity.clone(), namespace.dir().join(file_name)));
            }
            edits.push(index.touch(&now));
            index.prepare(edits)?.stage(&mut tx);
        }
        tx.commit()?;
        Ok(report)
    }

    /// Whether the entity `name` is in the memory (its namespace's index lists it).
    fn entity_exists(&self, name: &EntityName) -> bool {
        self.load_index(name.namespace())
            .is_ok_and(|index| index.rows.iter().any(|r| &r.entity == name))
    }

    /// Whether the file at `path` can be imported: its entity, the file name it gets in
    /// its namespace, its text (unchanged), its row and its links; else the reason.
    fn importable(
        &self,
        path: &Path,
        rel: &Path,
        pending: &BTreeMap<Namespace, Vec<(String, String, IndexRow)>>,
    ) -> std::result::Result<Imported, String> {
        let text = crate::durable::read_text(path).map_err(|e| e.to_string())?;
        let keys = FrontmatterKeys::read(&text)
            .map_err(|i| format!("line {}: {}", i.line, i.message))?
            .ok_or_else(|| "no YAML frontmatter: not an entity file".to_string())?;
        screen(&text, &keys)?;
        let map = keys
            .fields_ref(&text)
            .map_err(|i| format!("line {}: {}", i.line, i.message))?;
        let namespace = map
            .get("namespace")
            .and_then(crate::markdown::Field::as_str)
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
        // A file not named like an entity (`auth-notes.md`) would be foreign in the
        // namespace: it is renamed as a new entity file is named.
        let file_name = if is_entity_file_name(&original) && !taken(&original) {
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
        let links = entry
            .supersedes
            .iter()
            .map(|t| ("supersedes", t))
            .chain(
                entry
                    .related_entities
                    .iter()
                    .map(|t| ("related_entities", t)),
            )
            .map(|(field, t)| (entry.entity_name.clone(), field, t.clone()))
            .collect();
        Ok((namespace, file_name, text, row, links))
    }
}

/// What [`ContextMemory::importable`] gives for a file it can import: its namespace,
/// file name, text, row, and links as `(entity, field, target)`.
type Imported = (
    Namespace,
    String,
    String,
    IndexRow,
    Vec<(EntityName, &'static str, EntityName)>,
);

/// The checks a write makes on an entry's text, made on an old file before it is
/// imported: each frontmatter key's value and the frontmatter as a whole (comments,
/// keys memory-core does not know) must carry no secret, and the body must carry none
/// and be within the hard size limit. The reason names the kind, the field and the
/// line, never the secret.
fn screen(text: &str, keys: &FrontmatterKeys) -> std::result::Result<(), String> {
    // `first` is the file line the checked text starts on.
    let why = |first: usize| {
        move |error: Error| match &error {
            Error::SecretRefused { field, kind, line } => format!(
                "{field} holds a secret ({kind}) on line {} of the file; memory never stores secrets, so it was not imported (the source is untouched)",
                first + line - 1
            ),
            _ => format!("{error}; not imported"),
        }
    };
    for entry in &keys.entries {
        let name = entry.name(text);
        crate::hygiene::refuse_secrets(&name, &text[entry.entry.clone()])
            .map_err(why(entry.line))?;
    }
    let fm = &keys.frontmatter;
    crate::hygiene::refuse_secrets("frontmatter", fm.yaml(text)).map_err(why(fm.yaml_line))?;
    let body_line = text[..fm.body_start].matches('\n').count() + 1;
    crate::hygiene::screen_body("body", fm.body(text)).map_err(why(body_line))?;
    Ok(())
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
