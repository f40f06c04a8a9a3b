//! Organize's walk of the whole memory root: temp files of dead writers are removed in
//! every directory, and what the protocol cannot explain is reported, never deleted.

use std::fs;
use std::io;
use std::path::PathBuf;

use super::index::IndexDoc;
use super::{AgentMemory, LOCK_FILE_NAME, SessionId};
use crate::durable::JOURNAL_FILE_NAME;
use crate::error::{Error, Result};

/// How deep organize looks below the root (the layout is two levels deep; a deeper tree
/// is someone else's and is not walked further).
const MAX_DEPTH: usize = 8;

/// What the walk found.
#[derive(Debug, Default)]
pub(crate) struct TreeScan {
    /// Temp files of memory-core writers that died mid-write (removed unless a dry run).
    pub dead_temp_files: Vec<PathBuf>,
    /// `sessions/<id>.md` files whose session has no row in the index.
    pub orphan_snapshots: Vec<PathBuf>,
    /// Temp and backup files of other programs (editors, sync clients) left in the root.
    pub leftover_files: Vec<PathBuf>,
}

impl AgentMemory {
    /// Walks the root under the lock. Every memory-core writer holds the lock while its
    /// temp files exist, so under the lock any such file belongs to a dead writer.
    pub(crate) fn scan_tree(&self, index: &IndexDoc, dry_run: bool) -> Result<TreeScan> {
        let mut scan = TreeScan::default();
        let root = self.handle.root.path();
        let mut stack = vec![(root.to_path_buf(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(list) => list,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io_op(&dir, "scandir", e)),
            };
            // The lists are sorted at the end, so entries are taken in any order.
            for entry in entries {
                let entry = entry.map_err(|e| Error::io_op(&dir, "scandir", e))?;
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let name = entry.file_name().to_string_lossy().into_owned();
                if kind.is_dir() {
                    if depth < MAX_DEPTH && !name.starts_with(".git") {
                        stack.push((path, depth + 1));
                    }
                    continue;
                }
                if !kind.is_file() {
                    continue; // links are never followed or removed
                }
                let own = dir == root && (name == LOCK_FILE_NAME || name == JOURNAL_FILE_NAME);
                if crate::durable::is_dead_writer_file(&name) {
                    if !dry_run {
                        fs::remove_file(&path).map_err(|e| Error::io_op(&path, "unlink", e))?;
                    }
                    scan.dead_temp_files.push(path);
                } else if !own && is_foreign_leftover(&name) {
                    scan.leftover_files.push(path);
                } else if depth == 1
                    && dir.file_name().is_some_and(|d| d == "sessions")
                    && snapshot_id(&name).is_some_and(|id| index.position(&id).is_none())
                {
                    scan.orphan_snapshots.push(path);
                }
            }
        }
        scan.dead_temp_files.sort();
        scan.orphan_snapshots.sort();
        scan.leftover_files.sort();
        Ok(scan)
    }
}

/// The session id a `sessions/` file name stands for.
fn snapshot_id(name: &str) -> Option<SessionId> {
    SessionId::parse(name.strip_suffix(".md")?).ok()
}

/// Temp, swap, partial-download and backup files of editors and sync clients.
fn is_foreign_leftover(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.ends_with(".tmp")
        || lower.ends_with(".temp")
        || lower.ends_with(".swp")
        || lower.ends_with(".swo")
        || lower.ends_with(".part")
        || lower.ends_with(".crdownload")
        || lower.ends_with(".bak")
        || lower.ends_with('~')
        || lower.starts_with(".#")
        || lower.starts_with("~$")
        || lower.contains(".sync-conflict-")
        || lower.contains(".tmp-")
        || lower.contains("(conflicted copy")
}
