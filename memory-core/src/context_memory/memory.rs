//! The [`ContextMemory`] handle: a memory root (`~/.cursor/memory` by default) and how
//! it is opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::index_file::IndexFile;
use super::names::INDEX_FILE_NAME;
use super::namespace::Namespace;
use crate::durable::{HandleOptions, RootHandle, handle_builder_methods};
use crate::error::Result;

/// How long a writer waits for the memory lock by default (every model's).
pub use crate::durable::DEFAULT_LOCK_TIMEOUT;

/// A context-memory root: one directory per namespace, one Markdown entity per fact,
/// an `_index.md` per directory. Every write holds the root's cross-process lock (the
/// same `.memcore.lock` every model and language uses), changes the entity file and its
/// index row as one step, and reads both back before returning.
///
/// ```
/// use memory_core::context_memory::{ContextMemory, Query};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = ContextMemory::open(dir.path()).unwrap();
/// assert!(memory.query(&Query::default()).unwrap().is_empty());
/// assert!(memory.namespaces().unwrap().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct ContextMemory {
    pub(super) handle: RootHandle,
    /// The rows queries last read from long indexes, with the text they came from.
    pub(super) rows_memo: super::rows_memo::RowsMemo,
}

/// Options for opening a [`ContextMemory`]: clock and lock wait.
///
/// ```
/// use std::time::Duration;
/// use memory_core::context_memory::ContextMemory;
/// let dir = tempfile::tempdir().unwrap();
/// let memory = ContextMemory::builder(dir.path())
///     .fixed_time("2026-04-03T10:00:00Z").unwrap()
///     .lock_timeout(Duration::from_secs(2))
///     .open()
///     .unwrap();
/// assert_eq!(memory.root(), dir.path());
/// ```
#[derive(Debug, Clone)]
pub struct ContextMemoryBuilder {
    options: HandleOptions,
}

impl ContextMemoryBuilder {
    handle_builder_methods!("memory_core::context_memory::ContextMemory");

    /// Opens the root; a relative root is made absolute now, and nothing is created
    /// until the first write.
    pub fn open(self) -> Result<ContextMemory> {
        Ok(ContextMemory {
            handle: self.options.open("memory root")?,
            rows_memo: Default::default(),
        })
    }
}

impl ContextMemory {
    /// Opens `root` with the system clock.
    pub fn open(root: impl Into<PathBuf>) -> Result<ContextMemory> {
        Self::builder(root).open()
    }

    /// Starts configuring a root.
    pub fn builder(root: impl Into<PathBuf>) -> ContextMemoryBuilder {
        ContextMemoryBuilder {
            options: HandleOptions::new(root.into()),
        }
    }

    /// The seed's root, `~/.cursor/memory` (`$HOME/.cursor/memory`, else
    /// `%USERPROFILE%\.cursor\memory`); `None` when neither is set and not empty. The
    /// command line reads `$MEMCORE_CONTEXT_ROOT` first.
    ///
    /// ```
    /// if let Some(root) = memory_core::context_memory::ContextMemory::default_root() {
    ///     assert!(root.ends_with(".cursor/memory"));
    /// }
    /// ```
    pub fn default_root() -> Option<PathBuf> {
        // An empty variable is an unset one (so an empty `HOME` falls back to USERPROFILE).
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = var("HOME").or_else(|| var("USERPROFILE"))?;
        Some(PathBuf::from(home).join(".cursor").join("memory"))
    }

    /// The root directory, absolute.
    pub fn root(&self) -> &Path {
        self.handle.path()
    }

    /// How long a writer waits for the lock.
    pub fn lock_timeout(&self) -> Duration {
        self.handle.lock_timeout
    }

    /// The same root with another lock wait (a binding's single attempt uses zero).
    ///
    /// ```
    /// let memory = memory_core::context_memory::ContextMemory::open("memory").unwrap();
    /// let once = memory.with_lock_timeout(std::time::Duration::ZERO);
    /// assert_eq!(once.lock_timeout(), std::time::Duration::ZERO);
    /// assert_eq!(once.root(), memory.root());
    /// ```
    pub fn with_lock_timeout(&self, timeout: Duration) -> ContextMemory {
        let mut handle = self.handle.clone();
        handle.lock_timeout = timeout;
        ContextMemory {
            handle,
            rows_memo: self.rows_memo.clone(),
        }
    }

    /// The directory of `namespace`.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// use memory_core::context_memory::{ContextMemory, Namespace};
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// let ns = Namespace::parse("project.myapp").unwrap();
    /// assert_eq!(memory.namespace_dir(&ns), dir.path().join("projects/myapp"));
    /// ```
    pub fn namespace_dir(&self, namespace: &Namespace) -> PathBuf {
        self.root().join(namespace.dir())
    }

    /// The `_index.md` of `namespace`, read whole (the empty template when the directory
    /// has none yet).
    pub(super) fn load_index(&self, namespace: &Namespace) -> Result<IndexFile> {
        IndexFile::load(&self.file_in(namespace, INDEX_FILE_NAME)?, namespace)
    }

    /// The path of file `name` in `namespace`'s directory, refusing a symbolic link on
    /// the way (a link could lead outside the root).
    pub(super) fn file_in(&self, namespace: &Namespace, name: &str) -> Result<PathBuf> {
        let dir = namespace.dir();
        let mut components: Vec<&str> = dir
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .collect();
        components.push(name);
        self.handle.root.join(&components)
    }
}
