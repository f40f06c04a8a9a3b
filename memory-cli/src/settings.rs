//! Where the memory lives, how long to wait for its lock and the structured-memory
//! budgets: `--root`, `MEMCORE_ROOT`, `MEMCORE_LOCK_TIMEOUT_MS`, `MEMCORE_INDEX_LINES`,
//! `MEMCORE_TOPIC_LINES`, `MEMCORE_INDEX_BYTES`, `MEMCORE_TOPIC_BYTES`. Reads the
//! environment only, never a file.

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
    structured_memory_with(root, budgets, lock_timeout()?)
}

/// [`open_structured_memory`] for `topics index`, the SessionStart hook: a
/// `MEMCORE_LOCK_TIMEOUT_MS` that is not a number of milliseconds is left out (the default
/// wait) and said in `ignored`, as a bad budget variable is, so that the hook still
/// prints the index.
pub fn open_structured_memory_for_index(
    root: Option<PathBuf>,
    budgets: Budgets,
    ignored: &mut Vec<String>,
) -> Result<StructuredMemory> {
    let timeout = lock_timeout().unwrap_or_else(|err| {
        ignored.push(format!(
            "{err}; ignored: `topics index` prints the index with the default lock wait"
        ));
        None
    });
    structured_memory_with(root, budgets, timeout)
}

fn structured_memory_with(
    root: Option<PathBuf>,
    budgets: Budgets,
    timeout: Option<Duration>,
) -> Result<StructuredMemory> {
    let root = root
        .or_else(|| non_empty_env(ROOT_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ROOT));
    let mut builder = StructuredMemory::builder(root).budgets(budgets);
    if let Some(timeout) = timeout {
        builder = builder.lock_timeout(timeout);
    }
    builder.open()
}

/// The environment variables giving the structured-memory budgets when their flag is
/// not given: lines of `MEMORY.md`, lines of a topic file, bytes of each.
pub const INDEX_LINES_ENV: &str = "MEMCORE_INDEX_LINES";
/// See [`INDEX_LINES_ENV`].
pub const TOPIC_LINES_ENV: &str = "MEMCORE_TOPIC_LINES";
/// See [`INDEX_LINES_ENV`].
pub const INDEX_BYTES_ENV: &str = "MEMCORE_INDEX_BYTES";
/// See [`INDEX_LINES_ENV`].
pub const TOPIC_BYTES_ENV: &str = "MEMCORE_TOPIC_BYTES";

/// The budget flags of `memcore topics` as given (`None`: not given).
#[derive(Debug, Clone, Copy, Default)]
pub struct BudgetFlags {
    /// `--index-lines`.
    pub index_lines: Option<usize>,
    /// `--topic-lines`.
    pub topic_lines: Option<usize>,
    /// `--index-bytes`.
    pub index_bytes: Option<usize>,
    /// `--topic-bytes`.
    pub topic_bytes: Option<usize>,
}

/// The budgets: each flag, else its environment variable (unset or empty: none), else
/// the seed's 60 and 150 lines and no byte limit. A variable that is not a whole number
/// of at least 1 is refused naming it; a flag of 0 is refused by the core when the
/// directory opens.
pub fn topic_budgets(flags: BudgetFlags) -> Result<Budgets> {
    budgets_with(flags, &mut |err, _| Err(err))
}

/// The budgets of `topics index`, the SessionStart hook, which must print the whole
/// index whatever the environment: as [`topic_budgets`], but a variable that is not a
/// budget is left out (its default used) and said in a warning naming it, why it was
/// ignored and the default used, for stderr.
pub fn index_budgets(flags: BudgetFlags) -> (Budgets, Vec<String>) {
    let mut warnings = Vec::new();
    let mut warn = |err: Error, default: &str| -> Result<()> {
        warnings.push(format!(
            "{err}; ignored: `topics index` prints the index with the default ({default})"
        ));
        Ok(())
    };
    // `warn` never fails, so neither does this.
    let budgets = budgets_with(flags, &mut warn).unwrap_or_default();
    (budgets, warnings)
}

/// The budgets from `flags` and the environment; `bad` decides what a variable that is
/// not a budget does (given its error and the default it leaves in place): refuse, or
/// be left out.
fn budgets_with(
    flags: BudgetFlags,
    bad: &mut dyn FnMut(Error, &str) -> Result<()>,
) -> Result<Budgets> {
    let mut pick = |flag: Option<usize>, name: &'static str, default: &str| match flag {
        Some(n) => Ok(Some(n)),
        None => match budget_env(name) {
            Ok(value) => Ok(value),
            Err(err) => bad(err, default).map(|()| None),
        },
    };
    let defaults = Budgets::default();
    let mut budgets = defaults;
    let index_default = format!("{} lines", defaults.index_lines);
    if let Some(lines) = pick(flags.index_lines, INDEX_LINES_ENV, &index_default)? {
        budgets = budgets.index_lines(lines);
    }
    let topic_default = format!("{} lines", defaults.topic_lines);
    if let Some(lines) = pick(flags.topic_lines, TOPIC_LINES_ENV, &topic_default)? {
        budgets = budgets.topic_lines(lines);
    }
    let index_bytes = pick(flags.index_bytes, INDEX_BYTES_ENV, "no byte limit")?;
    let topic_bytes = pick(flags.topic_bytes, TOPIC_BYTES_ENV, "no byte limit")?;
    Ok(budgets.index_bytes(index_bytes).topic_bytes(topic_bytes))
}

/// A budget from environment variable `name`, `None` when unset or empty; refused
/// naming the variable when it is not a whole number of at least 1.
fn budget_env(name: &'static str) -> Result<Option<usize>> {
    let Some(value) = non_empty_env(name) else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(Error::InvalidInput {
            what: name,
            value: text.into_owned(),
            message: "must be a whole number of at least 1 (no file fits in 0)".to_string(),
            session_id: None,
        }),
    }
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
