//! Reading every entity file of a namespace directory for heal, verify, split and
//! refresh: one listing, the directory's path checked for links once and the directory
//! opened, then each file opened once relative to it (refusing a link) and parsed by
//! the one entity reader — on every core,
//! the results kept in file-name order so that reports do not depend on the threads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::dir_reader::DirReader;
use super::entity::Entry;
use super::entity_file::EntityFile;
use super::heal::{DirListing, DirScan};
use super::index_file::IndexRow;
use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::Namespace;
use crate::agent_memory::Warning;
use crate::durable::{read_text_no_follow, validate_component};
use crate::error::{Error, Result};

impl ContextMemory {
    /// Reads every entity file of `namespace`.
    pub(super) fn scan_dir(&self, namespace: &Namespace) -> Result<DirScan> {
        let listing = self.read_listing(namespace)?;
        self.scan_names(namespace, listing, |file| file)
    }

    /// Reads every entity file of `namespace`, keeping only the entries (heal and
    /// verify): each file's text and key spans are freed on the thread that read them,
    /// which reuses the memory for the next file.
    pub(super) fn scan_entries(&self, namespace: &Namespace) -> Result<DirScan<Entry>> {
        let listing = self.read_listing(namespace)?;
        self.scan_names(namespace, listing, |file| file.entry)
    }

    /// Reads every entity file of `namespace`, keeping only the index row each makes
    /// (heal): the row is built from the entry on the thread that read the file,
    /// moving its name and tags instead of copying them.
    pub(super) fn scan_rows(&self, namespace: &Namespace) -> Result<DirScan<IndexRow>> {
        let listing = self.read_listing(namespace)?;
        self.scan_names(namespace, listing, |file| super::heal::row_from(file.entry))
    }

    /// Reads the entity files of `listing` (of `namespace`'s directory), keeping `keep`
    /// of each (its foreign files are passed on, unread). A file whose content does not read is reported and kept out; a
    /// file that cannot be reached (an I/O error) fails the scan with the first such
    /// error in name order.
    fn scan_names<T: Send>(
        &self,
        namespace: &Namespace,
        listing: DirListing,
        keep: impl Fn(EntityFile) -> T + Sync,
    ) -> Result<DirScan<T>> {
        let DirListing {
            entities: names,
            foreign,
        } = listing;
        let (paths, mut refused): (Vec<_>, Vec<_>) = self
            .paths_of(namespace, &names)
            .into_iter()
            .map(|(name, path)| match path {
                Ok(path) => ((name, Some(path)), None),
                Err(error) => ((name, None), Some(error)),
            })
            .unzip();
        let dir = namespace.dir();
        // The directory whose components `paths_of` checked, opened once; should that
        // fail, each file is opened by its path (with that path's errors).
        let reader = paths
            .iter()
            .find_map(|(_, path)| path.as_deref()?.parent())
            .and_then(|d| DirReader::open(d).ok());
        let loaded = crate::parallel::map(&paths, |(name, path)| {
            path.as_ref().map(|path| {
                let text = match &reader {
                    Some(reader) => reader.read_text(name),
                    None => read_text_no_follow(path),
                };
                text.and_then(|text| EntityFile::parse(path, dir.join(name), text, namespace, None))
                    .map(|file| (Claim::of(&file), keep(file)))
            })
        });
        let mut entries = Vec::with_capacity(loaded.len());
        let mut unreadable = Vec::new();
        for (result, refusal) in loaded.into_iter().zip(refused.iter_mut()) {
            // Exactly one of the two is there: a file was read only when it had a path.
            let Some(result) = result.or_else(|| refusal.take().map(Err)) else {
                continue;
            };
            match result {
                Ok(file) => entries.push(file),
                Err(error) if is_file_problem(&error) => {
                    unreadable.push(Warning::from_error(&error, error.line().unwrap_or(0)));
                }
                Err(error) => return Err(error),
            }
        }
        let entries = self.without_second_claims(namespace, entries, &mut unreadable);
        Ok(DirScan {
            entries,
            unreadable,
            names,
            foreign,
        })
    }

    /// One entity, one file: when several files name the same entity (a copy made by
    /// hand or by a sync), the one its index row points at is kept (else the first by
    /// file name) and every other is reported like a file that does not read — by path
    /// and the `entity_name` line — kept out of the index and never touched.
    fn without_second_claims<T>(
        &self,
        namespace: &Namespace,
        entries: Vec<(Claim, T)>,
        unreadable: &mut Vec<Warning>,
    ) -> Vec<T> {
        let mut claims: BTreeMap<&EntityName, Vec<usize>> = BTreeMap::new();
        for (i, (claim, _)) in entries.iter().enumerate() {
            claims.entry(&claim.name).or_default().push(i);
        }
        if claims.values().all(|files| files.len() == 1) {
            return entries.into_iter().map(|(_, t)| t).collect();
        }
        // Only now is the index read: the row says which file is the entity's.
        let rows = self
            .load_index(namespace)
            .map(|i| i.rows)
            .unwrap_or_default();
        let mut second: BTreeSet<usize> = BTreeSet::new();
        for (name, files) in claims.iter().filter(|(_, files)| files.len() > 1) {
            let indexed = files.iter().copied().find(|&i| {
                rows.iter()
                    .any(|r| &r.entity == *name && r.file == entries[i].0.file)
            });
            let keep = indexed.unwrap_or(files[0]);
            for &i in files.iter().filter(|&&i| i != keep) {
                let claim = &entries[i].0;
                unreadable.push(Warning {
                    path: claim.path.clone(),
                    line: claim.entity_line,
                    message: format!(
                        "names {name}, which {} holds too; one entity has one file, so this one \
                         is kept out of the index (rename or remove one of them)",
                        entries[keep].0.file
                    ),
                });
                second.insert(i);
            }
        }
        unreadable.sort_by(|a, b| a.path.cmp(&b.path));
        entries
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !second.contains(i))
            .map(|(_, (_, t))| t)
            .collect()
    }

    /// Each name's path, or why it has none: the directory's components are checked for
    /// links once (with the first name, so that the error is the one a per-file check
    /// gives), each further name only as a plain path component.
    fn paths_of<'n>(
        &self,
        namespace: &Namespace,
        names: &'n BTreeSet<String>,
    ) -> Vec<(&'n str, Result<PathBuf>)> {
        let mut dir: Option<PathBuf> = None;
        names
            .iter()
            .map(|name| {
                let path = match &dir {
                    Some(dir) => {
                        validate_component("path component", name).map(|()| dir.join(name))
                    }
                    None => self.file_in(namespace, name).inspect(|path| {
                        dir = path.parent().map(Path::to_path_buf);
                    }),
                };
                (name.as_str(), path)
            })
            .collect()
    }
}

/// What a file claims: the entity it names, where, and on which line (for the report
/// when another file claims it too).
struct Claim {
    name: EntityName,
    path: PathBuf,
    entity_line: usize,
    file: String,
}

impl Claim {
    fn of(file: &EntityFile) -> Claim {
        Claim {
            name: file.entry.entity_name.clone(),
            path: file.path.clone(),
            entity_line: file
                .keys
                .get(&file.text, "entity_name")
                .map_or(1, |e| e.line),
            file: file
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }
}

impl ContextMemory {
    /// The entity that file `name` of `namespace`'s directory holds, or `None` when its
    /// content does not read (an I/O error fails).
    pub(super) fn entity_of_file(
        &self,
        namespace: &Namespace,
        name: &str,
    ) -> Result<Option<super::names::EntityName>> {
        let path = self.file_in(namespace, name)?;
        match load_listed(&path, namespace.dir().join(name), namespace) {
            Ok(file) => Ok(Some(file.entry.entity_name)),
            Err(error) if is_file_problem(&error) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// An entity file named by a listing, opened without following a link.
fn load_listed(path: &Path, rel: PathBuf, namespace: &Namespace) -> Result<EntityFile> {
    let text = read_text_no_follow(path)?;
    EntityFile::parse(path, rel, text, namespace, None)
}

/// Whether an error is about the file's content (reported, the file kept out) rather
/// than about reaching it.
pub(super) fn is_file_problem(error: &Error) -> bool {
    matches!(
        error.kind(),
        crate::ErrorKind::Malformed | crate::ErrorKind::InvalidInput
    )
}
