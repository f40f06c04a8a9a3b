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
        self.scan_names(
            namespace,
            listing,
            |listed, text| {
                let file = EntityFile::parse(&listed.path(), listed.rel(), text, namespace, None)?;
                let line = file.entity_line();
                Ok((file, line))
            },
            |file| &file.entry.entity_name,
        )
    }

    /// Reads every entity file of `namespace`, keeping only the entries (heal and
    /// verify): the usual file is read by the typed scan ([`EntityFile::read_entry`]),
    /// and each file's text is freed on the thread that read it, which reuses the
    /// memory for the next file.
    pub(super) fn scan_entries(&self, namespace: &Namespace) -> Result<DirScan<Entry>> {
        let listing = self.read_listing(namespace)?;
        self.scan_names(
            namespace,
            listing,
            |listed, text| {
                EntityFile::read_entry(|| listed.path(), || listed.rel(), text, namespace)
            },
            |entry| &entry.entity_name,
        )
    }

    /// Reads every entity file of `namespace`, keeping only the index row each makes
    /// (heal): the row is built on the thread that read the file
    /// ([`EntityFile::read_row`]), without the texts a row does not show.
    pub(super) fn scan_rows(&self, namespace: &Namespace) -> Result<DirScan<IndexRow>> {
        let listing = self.read_listing(namespace)?;
        self.scan_names(
            namespace,
            listing,
            |listed, text| {
                let (path, rel) = (|| listed.path(), || listed.rel());
                EntityFile::read_row(path, rel, listed.name, text, namespace)
            },
            |row| &row.entity,
        )
    }

    /// Reads the entity files of `listing` (of `namespace`'s directory) with `read`,
    /// which is given the file ([`Listed`]) and its text, and gives what is kept of it
    /// and the line that names its entity (`name` says which entity a kept value is);
    /// the foreign files are passed on, unread. A file whose content does not read is
    /// reported and kept out; a file that cannot be reached (an I/O error) fails the
    /// scan with the first such error in name order.
    fn scan_names<T: Send>(
        &self,
        namespace: &Namespace,
        listing: DirListing,
        read: impl Fn(&Listed<'_>, String) -> Result<(T, usize)> + Sync,
        name: impl Fn(&T) -> &EntityName,
    ) -> Result<DirScan<T>> {
        let DirListing {
            entities: names,
            foreign,
        } = listing;
        let names_in_order: Vec<&str> = names.iter().map(String::as_str).collect();
        let (first, dir_path) = self.first_paths(namespace, &names_in_order);
        let dir = namespace.dir();
        // The directory whose components `first_paths` checked, opened once; should that
        // fail, each file is opened by its path (with that path's errors).
        let reader = dir_path.as_deref().and_then(|d| DirReader::open(d).ok());
        let load = |i: usize, path: &dyn Fn() -> PathBuf| {
            let file_name = names_in_order[i];
            let text = match &reader {
                Some(reader) => reader.read_text(file_name),
                None => read_text_no_follow(&path()),
            }?;
            let listed = Listed {
                name: file_name,
                dir: &dir,
                path,
            };
            let (kept, entity_line) = read(&listed, text)?;
            Ok((Claim { at: i, entity_line }, kept))
        };
        let done = first.len();
        let mut loaded: Vec<Result<(Claim, T)>> = Vec::with_capacity(names_in_order.len());
        loaded.extend(first.into_iter().enumerate().map(|(i, path)| {
            let path = path?;
            load(i, &|| path.clone())
        }));
        // Each further name is checked as a plain path component only (the directory's
        // components were checked), and its path made on the thread that reads the file
        // when an error needs it.
        let rest: Vec<usize> = (done..names_in_order.len()).collect();
        if let Some(d) = &dir_path {
            loaded.extend(crate::parallel::map(&rest, |&i| {
                let file_name = names_in_order[i];
                validate_component("path component", file_name)?;
                load(i, &|| d.join(file_name))
            }));
        }
        let mut entries = Vec::with_capacity(loaded.len());
        let mut unreadable = Vec::new();
        for result in loaded {
            match result {
                Ok(file) => entries.push(file),
                Err(error) if is_file_problem(&error) => {
                    unreadable.push(Warning::from_error(&error, error.line().unwrap_or(0)));
                }
                Err(error) => return Err(error),
            }
        }
        let path_of = |i: usize| match &dir_path {
            Some(d) => d.join(names_in_order[i]),
            None => PathBuf::from(names_in_order[i]),
        };
        let entries = self.without_second_claims(namespace, entries, &mut unreadable, &name, |i| {
            (path_of(i), names_in_order[i])
        });
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
    /// and the `entity_name` line — kept out of the index and never touched. `file`
    /// gives a claim's path and file name.
    fn without_second_claims<'n, T>(
        &self,
        namespace: &Namespace,
        entries: Vec<(Claim, T)>,
        unreadable: &mut Vec<Warning>,
        name: &impl Fn(&T) -> &EntityName,
        file: impl Fn(usize) -> (PathBuf, &'n str),
    ) -> Vec<T> {
        // The usual directory, where no two files claim one entity, is told apart with
        // one hash set, without a list per entity.
        let mut distinct: rustc_hash::FxHashSet<&EntityName> = rustc_hash::FxHashSet::default();
        distinct.reserve(entries.len());
        if entries.iter().all(|(_, t)| distinct.insert(name(t))) {
            drop(distinct);
            return entries.into_iter().map(|(_, t)| t).collect();
        }
        drop(distinct);
        let mut claims: BTreeMap<&EntityName, Vec<usize>> = BTreeMap::new();
        for (i, (_, t)) in entries.iter().enumerate() {
            claims.entry(name(t)).or_default().push(i);
        }
        // Only now is the index read: the row says which file is the entity's.
        let rows = self
            .load_index(namespace)
            .map(|i| i.rows)
            .unwrap_or_default();
        let mut second: BTreeSet<usize> = BTreeSet::new();
        for (entity, files) in claims.iter().filter(|(_, files)| files.len() > 1) {
            let indexed = files.iter().copied().find(|&i| {
                let (_, file_name) = file(entries[i].0.at);
                rows.iter()
                    .any(|r| &r.entity == *entity && r.file == file_name)
            });
            let keep = indexed.unwrap_or(files[0]);
            let (_, kept_file) = file(entries[keep].0.at);
            for &i in files.iter().filter(|&&i| i != keep) {
                let claim = &entries[i].0;
                unreadable.push(Warning {
                    path: file(claim.at).0,
                    line: claim.entity_line,
                    message: format!(
                        "names {entity}, which {kept_file} holds too; one entity has one file, so \
                         this one is kept out of the index (rename or remove one of them)",
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

    /// The paths of `names` up to the first that has one (usually just the first name),
    /// and that path's directory: the directory's components are checked for links once
    /// (with the first name, so that the error is the one a per-file check gives), each
    /// further name only as a plain path component (by the caller). When no name has a
    /// path, every name's refusal is in the list.
    fn first_paths(
        &self,
        namespace: &Namespace,
        names: &[&str],
    ) -> (Vec<Result<PathBuf>>, Option<PathBuf>) {
        let mut first = Vec::new();
        for name in names {
            let path = self.file_in(namespace, name);
            let dir = path
                .as_ref()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf));
            first.push(path);
            if dir.is_some() {
                return (first, dir);
            }
        }
        (first, None)
    }
}

/// A listed entity file as its reader sees it: its name, and its paths, made only when
/// asked for (an entry keeps its path relative to the root, an error the whole path).
pub(super) struct Listed<'a> {
    /// The file's name in the namespace directory.
    pub name: &'a str,
    /// The namespace directory, relative to the root.
    dir: &'a Path,
    /// Makes the file's path.
    path: &'a dyn Fn() -> PathBuf,
}

impl Listed<'_> {
    /// The file's path (what its errors name).
    pub fn path(&self) -> PathBuf {
        (self.path)()
    }

    /// The file's path relative to the root (what its entry names).
    pub fn rel(&self) -> PathBuf {
        self.dir.join(self.name)
    }
}

/// What a file claims, beyond the entity its kept value names: where it is (its place
/// in the listing) and on which line it names the entity (for the report when another
/// file claims it too).
struct Claim {
    at: usize,
    entity_line: usize,
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
