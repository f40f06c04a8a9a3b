//! The [`StructuredMemory`] handle: a memory directory (`./memory` on the command line),
//! its budgets, and how it is opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::budget::Budgets;
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::pointer::validate_topic_file;
use super::topic_file::Topic;
use crate::durable::{HandleOptions, RootHandle, handle_builder_methods, read_text_if_exists};
use crate::error::{Error, Result};

/// The archive's file name: append-only cold storage, never a topic.
pub const ARCHIVE_FILE_NAME: &str = "memory-archive.md";

/// Files of the directory that are never topic files: the index, the archive, and the
/// Agent Memory model's index (the two models can share `./memory`).
pub const RESERVED_FILES: [&str; 3] = [INDEX_FILE_NAME, ARCHIVE_FILE_NAME, "index.md"];

/// A structured-memory directory: `MEMORY.md` (pointer lines only), topic files, and
/// `memory-archive.md`. Every write holds the directory's cross-process lock (the same
/// `.memcore.lock` every model and language uses), changes every file it touches as one
/// step, and reads them back before returning; nothing is created before the first write.
///
/// ```
/// use memory_core::structured_memory::StructuredMemory;
/// let dir = tempfile::tempdir().unwrap();
/// let memory = StructuredMemory::open(dir.path()).unwrap();
/// assert!(memory.index().unwrap().lines.is_empty());
/// assert!(!dir.path().join("MEMORY.md").exists(), "no scaffold before the first write");
/// ```
#[derive(Debug, Clone)]
pub struct StructuredMemory {
    pub(super) handle: RootHandle,
    pub(super) budgets: Budgets,
}

/// Options for opening a [`StructuredMemory`]: budgets, clock and lock wait.
///
/// ```
/// use memory_core::structured_memory::{Budgets, StructuredMemory};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = StructuredMemory::builder(dir.path())
///     .budgets(Budgets::default().topic_lines(200))
///     .fixed_time("2026-07-10T09:00:00Z").unwrap()
///     .open()
///     .unwrap();
/// assert_eq!(memory.budgets().topic_lines, 200);
/// ```
#[derive(Debug, Clone)]
pub struct StructuredMemoryBuilder {
    options: HandleOptions,
    budgets: Budgets,
}

impl StructuredMemoryBuilder {
    handle_builder_methods!("memory_core::structured_memory::StructuredMemory");

    /// Holds the directory to `budgets` (default: the seed's 60 and 150 lines).
    pub fn budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = budgets;
        self
    }

    /// Opens the directory; a relative path is made absolute now, and nothing is created
    /// until the first write. A budget of 0 lines or bytes is refused (`InvalidInput`,
    /// see [`Budgets::validate`]).
    ///
    /// ```
    /// use memory_core::{ErrorKind, structured_memory::{Budgets, StructuredMemory}};
    /// let dir = tempfile::tempdir().unwrap();
    /// let zero = StructuredMemory::builder(dir.path()).budgets(Budgets::default().topic_lines(0));
    /// assert_eq!(zero.open().unwrap_err().kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn open(self) -> Result<StructuredMemory> {
        self.budgets.validate()?;
        Ok(StructuredMemory {
            handle: self.options.open("memory directory")?,
            budgets: self.budgets,
        })
    }
}

impl StructuredMemory {
    /// Opens `dir` with the system clock and the seed's budgets.
    pub fn open(dir: impl Into<PathBuf>) -> Result<StructuredMemory> {
        Self::builder(dir).open()
    }

    /// Starts configuring a directory.
    pub fn builder(dir: impl Into<PathBuf>) -> StructuredMemoryBuilder {
        StructuredMemoryBuilder {
            options: HandleOptions::new(dir.into()),
            budgets: Budgets::default(),
        }
    }

    /// The directory, absolute.
    pub fn root(&self) -> &Path {
        self.handle.path()
    }

    /// The budgets the directory is held to.
    pub fn budgets(&self) -> Budgets {
        self.budgets
    }

    /// How long a writer waits for the lock.
    pub fn lock_timeout(&self) -> Duration {
        self.handle.lock_timeout
    }

    /// The same directory with another lock wait (a binding's single attempt uses zero).
    ///
    /// ```
    /// let memory = memory_core::structured_memory::StructuredMemory::open("memory").unwrap();
    /// let once = memory.with_lock_timeout(std::time::Duration::ZERO);
    /// assert_eq!(once.lock_timeout(), std::time::Duration::ZERO);
    /// ```
    pub fn with_lock_timeout(&self, timeout: Duration) -> StructuredMemory {
        let mut handle = self.handle.clone();
        handle.lock_timeout = timeout;
        StructuredMemory {
            handle,
            budgets: self.budgets,
        }
    }

    /// `MEMORY.md`'s path.
    pub(super) fn index_path(&self) -> Result<PathBuf> {
        self.handle.root.join(&[INDEX_FILE_NAME])
    }

    /// The archive's path.
    pub(super) fn archive_path(&self) -> Result<PathBuf> {
        self.handle.root.join(&[ARCHIVE_FILE_NAME])
    }

    /// The path of topic file `file` (relative, `/`-separated), refusing names outside
    /// the directory, links on the way and the reserved files.
    pub(super) fn topic_path(&self, file: &str) -> Result<PathBuf> {
        validate_topic_file(file)?;
        let file = file.strip_prefix("./").unwrap_or(file);
        if RESERVED_FILES.iter().any(|r| r.eq_ignore_ascii_case(file)) {
            return Err(Error::invalid(
                "topic file",
                file,
                format!("{file} is not a topic file ({})", reserved_reason(file)),
            ));
        }
        let components: Vec<&str> = file.split('/').collect();
        self.handle.root.join(&components)
    }

    /// `MEMORY.md`, read whole (`None` when there is none yet), its budget use against
    /// this handle's budgets.
    pub(super) fn load_index(&self) -> Result<Option<MemoryIndex>> {
        let path = self.index_path()?;
        let Some(text) = read_text_if_exists(&path)? else {
            return Ok(None);
        };
        let mut index = MemoryIndex::parse(&path, text)?;
        index.budget =
            self.budgets
                .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
        Ok(Some(index))
    }

    /// The path to read `MEMORY.md` at, and where it leads when it is itself a symbolic
    /// link (a dotfiles checkout, a synced folder): reads go through such a link and say
    /// so; writes refuse it ([`StructuredMemory::index_path`] does). A link further up the
    /// path is refused as always.
    pub(super) fn index_path_for_reading(&self) -> Result<(PathBuf, Option<PathBuf>)> {
        match self.index_path() {
            Ok(path) => Ok((path, None)),
            Err(Error::LinkRefused { path, .. })
                if path.file_name() == Some(std::ffi::OsStr::new(INDEX_FILE_NAME)) =>
            {
                let target = std::fs::read_link(&path).map_err(|e| Error::read_failed(&path, e))?;
                Ok((path, Some(target)))
            }
            Err(e) => Err(e),
        }
    }

    /// [`StructuredMemory::load_index`] for the commands that only read: through a
    /// `MEMORY.md` that is a symbolic link, which [`MemoryIndex::through_link`] names.
    pub(super) fn load_index_for_reading(&self) -> Result<Option<MemoryIndex>> {
        let (path, through_link) = self.index_path_for_reading()?;
        let Some(text) = read_text_if_exists(&path)? else {
            return match through_link {
                // A link that leads nowhere is no index: not an empty one.
                Some(target) => Err(Error::io_op(
                    &path,
                    "open",
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!(
                            "is a symbolic link to {}, which does not exist",
                            target.display()
                        ),
                    ),
                )),
                None => Ok(None),
            };
        };
        let mut index = MemoryIndex::parse(&path, text)?;
        index.budget =
            self.budgets
                .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
        index.through_link = through_link;
        Ok(Some(index))
    }

    /// Topic file `file`, read whole (`None` when it does not exist).
    pub(super) fn load_topic(&self, file: &str) -> Result<Option<Topic>> {
        let path = self.topic_path(file)?;
        let Some(text) = read_text_if_exists(&path)? else {
            return Ok(None);
        };
        let file = file.strip_prefix("./").unwrap_or(file).to_string();
        // The budget use against this handle's budgets (what a compactor is shown), not
        // the seed's defaults `Topic::read` assumes.
        let mut topic = Topic::read(&path, file, text)?;
        topic.budget = self
            .budgets
            .usage(&topic.file, false, topic.line_count, topic.byte_count);
        Ok(Some(topic))
    }
}

/// Why a reserved file name is not a topic.
fn reserved_reason(file: &str) -> &'static str {
    if file.eq_ignore_ascii_case(INDEX_FILE_NAME) {
        "it is the index"
    } else if file.eq_ignore_ascii_case(ARCHIVE_FILE_NAME) {
        "it is the append-only archive"
    } else {
        "it is the Agent Memory index"
    }
}
