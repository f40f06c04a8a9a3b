//! Shared helpers of the structured-memory integration tests.

use std::path::Path;

/// Every top-level file of `dir` but the lock, by name, with its bytes, sorted: a
/// byte-level snapshot of a structured-memory directory.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != ".memcore.lock")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}
