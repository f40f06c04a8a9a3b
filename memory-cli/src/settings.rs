//! Where the memory lives and how long to wait for its lock: `--root`, `MEMCORE_ROOT`,
//! `MEMCORE_LOCK_TIMEOUT_MS`. Reads the environment only, never a file.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use memory_core::context_memory::ContextMemory;
use memory_core::structured_memory::{Budgets, StructuredMemory};
use memory_core::{AgentMemory, Error, Result};

/// The environment variable naming the memory root when `--root` is not given.
pub const ROOT_ENV: &str = "MEMCORE_ROOT";
/// The environment variable setting the lock wait in milliseconds.
pub const LOCK_TIMEOUT_ENV: &str = "MEMCORE_LOCK_TIMEOUT_MS";
/// The memory root when neither `--root` nor `MEMCORE_ROOT` is given.
pub const DEFAULT_ROOT: &str = "./memory";

/// Opens the Agent Memory root chosen by `--root`, else `MEMCORE_ROOT`, else `./memory`,
/// with the lock wait from `MEMCORE_LOCK_TIMEOUT_MS` when set.
pub fn open_agent_memory(root: Option<PathBuf>) -> Result<AgentMemory> {
    let root = root
        .or_else(|| non_empty_env(ROOT_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ROOT));
    let mut builder = AgentMemory::builder(root);
    if let Some(timeout) = lock_timeout()? {
        builder = builder.lock_timeout(timeout);
    }
    builder.open()
}

/// Opens the structured-memory directory chosen like Agent Memory's root (`--root`, else
/// `MEMCORE_ROOT`, else `./memory`: the two models share it) with `budgets`.
pub fn open_structured_memory(root: Option<PathBuf>, budgets: Budgets) -> Result<StructuredMemory> {
    let root = root
        .or_else(|| non_empty_env(ROOT_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ROOT));
    let mut builder = StructuredMemory::builder(root).budgets(budgets);
    if let Some(timeout) = lock_timeout()? {
        builder = builder.lock_timeout(timeout);
    }
    builder.open()
}

/// The environment variable naming the context-memory root when `--root` is not given.
pub const CONTEXT_ROOT_ENV: &str = "MEMCORE_CONTEXT_ROOT";

/// Opens the context-memory root chosen by `--root`, else `MEMCORE_CONTEXT_ROOT`, else
/// the seed's `~/.cursor/memory`.
pub fn open_context_memory(root: Option<PathBuf>) -> Result<ContextMemory> {
    let root = root
        .or_else(|| non_empty_env(CONTEXT_ROOT_ENV).map(PathBuf::from))
        .or_else(ContextMemory::default_root)
        .ok_or_else(|| Error::InvalidInput {
            what: "memory root",
            value: String::new(),
            message: "no --root, no MEMCORE_CONTEXT_ROOT and no home directory to find ~/.cursor/memory in"
                .to_string(),
            session_id: None,
        })?;
    let mut builder = ContextMemory::builder(root);
    if let Some(timeout) = lock_timeout()? {
        builder = builder.lock_timeout(timeout);
    }
    builder.open()
}

/// The lock wait from `MEMCORE_LOCK_TIMEOUT_MS`, `None` when unset or empty.
fn lock_timeout() -> Result<Option<Duration>> {
    let Some(value) = non_empty_env(LOCK_TIMEOUT_ENV) else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    text.trim()
        .parse::<u64>()
        .map(|ms| Some(Duration::from_millis(ms)))
        .map_err(|_| Error::InvalidInput {
            what: LOCK_TIMEOUT_ENV,
            value: text.into_owned(),
            message: "must be a whole number of milliseconds".to_string(),
            session_id: None,
        })
}

fn non_empty_env(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}
