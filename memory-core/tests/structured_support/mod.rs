//! Shared helpers of the structured-memory integration tests.

use std::path::Path;

/// Every top-level file of `dir` but the lock, by name, with its bytes, sorted: a
/// byte-level snapshot of a structured-memory directory.
#[allow(dead_code)] // Each test crate uses its own subset of the helpers.
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

/// A structured memory at `dir` whose clock stands at 2026-07-10 09:00 UTC (a Friday),
/// with topic files held to `topic_lines` lines (the seed's 150 when `None`).
#[allow(dead_code)] // Each test crate uses its own subset of the helpers.
pub fn memory_at(
    dir: &Path,
    topic_lines: Option<usize>,
) -> memory_core::structured_memory::StructuredMemory {
    use memory_core::structured_memory::{Budgets, StructuredMemory};
    let mut budgets = Budgets::default();
    if let Some(lines) = topic_lines {
        budgets = budgets.topic_lines(lines);
    }
    StructuredMemory::builder(dir)
        .budgets(budgets)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}
