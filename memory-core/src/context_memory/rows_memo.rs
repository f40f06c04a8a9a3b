//! The index rows a query last read from each long `_index.md`, kept with the exact text
//! they were read from: a query that reads the very same bytes again reuses them instead
//! of reading every row again. The row reader is a function of the text alone, so the
//! rows reused are the rows a fresh read would give; any other text (a write, a hand
//! edit, even one that keeps the file's size and time) is read whole, as without it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::index_rows::RowRef;

/// Texts shorter than this are read each time (their rows cost less to read than to
/// keep); about 500 rows.
pub(super) const MEMO_FROM_BYTES: usize = 64 * 1024;

/// The rows read from one text.
#[derive(Debug)]
pub(super) struct Memo {
    text: String,
    pub rows: Vec<RowRef<'static>>,
}

/// The memos of one handle (and of its clones), by index path.
#[derive(Debug, Clone, Default)]
pub(super) struct RowsMemo {
    by_path: Arc<Mutex<HashMap<PathBuf, Arc<Memo>>>>,
}

impl RowsMemo {
    /// The rows read from exactly `text` at `path`, if they are kept.
    pub fn get(&self, path: &Path, text: &str) -> Option<Arc<Memo>> {
        let memos = self.by_path.lock().unwrap_or_else(PoisonError::into_inner);
        memos.get(path).filter(|memo| memo.text == text).cloned()
    }

    /// Keeps `rows`, read from `text` at `path`, in place of what was kept for `path`,
    /// and gives them back.
    pub fn keep(&self, path: &Path, text: String, rows: Vec<RowRef<'static>>) -> Arc<Memo> {
        let memo = Arc::new(Memo { text, rows });
        self.by_path
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_path_buf(), memo.clone());
        memo
    }
}
