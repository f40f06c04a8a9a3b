//! Reading every entity file of a namespace directory for heal, verify, split and
//! refresh: one listing, the directory's path checked for links once, then each file
//! opened once (refusing a link) and parsed by the one entity reader — on every core,
//! the results kept in file-name order so that reports do not depend on the threads.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::entity::Entry;
use super::entity_file::EntityFile;
use super::heal::DirScan;
use super::memory::ContextMemory;
use super::namespace::Namespace;
use crate::agent_memory::Warning;
use crate::durable::{read_text_no_follow, validate_component};
use crate::error::{Error, Result};

impl ContextMemory {
    /// Reads every entity file of `namespace`.
    pub(super) fn scan_dir(&self, namespace: &Namespace) -> Result<DirScan> {
        let names = self.list_dir(namespace)?;
        self.scan_names(namespace, names, |file| file)
    }

    /// Reads every entity file of `namespace`, keeping only the entries (heal and
    /// verify): each file's text and key spans are freed on the thread that read them,
    /// which reuses the memory for the next file.
    pub(super) fn scan_entries(&self, namespace: &Namespace) -> Result<DirScan<Entry>> {
        let names = self.list_dir(namespace)?;
        self.scan_names(namespace, names, |file| file.entry)
    }

    /// Reads the entity files `names` (a listing of `namespace`'s directory), keeping
    /// `keep` of each. A file whose content does not read is reported and kept out; a
    /// file that cannot be reached (an I/O error) fails the scan with the first such
    /// error in name order.
    fn scan_names<T: Send>(
        &self,
        namespace: &Namespace,
        names: BTreeSet<String>,
        keep: impl Fn(EntityFile) -> T + Sync,
    ) -> Result<DirScan<T>> {
        let (paths, mut refused): (Vec<_>, Vec<_>) = self
            .paths_of(namespace, &names)
            .into_iter()
            .map(|(name, path)| match path {
                Ok(path) => ((name, Some(path)), None),
                Err(error) => ((name, None), Some(error)),
            })
            .unzip();
        let dir = namespace.dir();
        let loaded = crate::parallel::map(&paths, |(name, path)| {
            path.as_ref()
                .map(|path| load_listed(path, dir.join(name), namespace).map(&keep))
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
        Ok(DirScan {
            entries,
            unreadable,
            names,
        })
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
