//! Shared helpers of the Agent Memory integration tests: a memory root with a fixed
//! clock, and byte-level snapshots of a whole tree.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memory_core::AgentMemory;
use memory_core::durable::FixedClock;

/// The fixed start time of every test: 2026-05-25 13:18 at +08:00.
pub const T0: &str = "2026-05-25T13:18:00+08:00";

/// A memory root in a temporary directory with a clock the test can move.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub clock: Arc<FixedClock>,
    pub memory: AgentMemory,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let clock = Arc::new(FixedClock::parse(T0).expect("valid time"));
        let memory = AgentMemory::builder(dir.path().join("memory"))
            .clock(clock.clone())
            .open()
            .expect("open");
        Fixture { dir, clock, memory }
    }

    /// A fixture whose index.md starts with `text`.
    pub fn with_index(text: &str) -> Self {
        let fixture = Self::new();
        std::fs::create_dir_all(fixture.root()).expect("mkdir");
        std::fs::write(fixture.index(), text).expect("write index");
        fixture
    }

    pub fn root(&self) -> PathBuf {
        self.memory.root().to_path_buf()
    }

    pub fn index(&self) -> PathBuf {
        self.memory.index_path()
    }

    pub fn index_text(&self) -> String {
        std::fs::read_to_string(self.index()).expect("read index")
    }

    pub fn snapshot_text(&self, id: &str) -> String {
        std::fs::read_to_string(self.memory.session_path(id).expect("id")).expect("read snapshot")
    }

    pub fn days_later(&self, days: i64) {
        self.clock.advance_minutes(days * 24 * 60);
    }

    /// Every file under the root (except the lock file) with its bytes.
    pub fn tree(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        tree_of(&self.root())
    }
}

pub fn tree_of(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != ".memcore.lock") {
                let rel = path.strip_prefix(root).expect("under root").to_path_buf();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

/// The index line that holds `id`'s row.
pub fn row_line(index: &str, id: &str) -> Option<String> {
    index
        .lines()
        .find(|l| l.starts_with(&format!("| {id} |")))
        .map(str::to_string)
}
