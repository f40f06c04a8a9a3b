//! Python bindings of memory-core: the native module `memory_core._native`, re-exported by
//! the `memory_core` package.
//!
//! No logic lives here: every method converts its arguments ([`args`]), calls the core
//! with the GIL released, and converts the result (frozen classes, [`results`]) or the
//! error (one exception class per [`memory_core::ErrorKind`], [`errors`]).
#![deny(missing_docs)]

mod args;
mod context;
mod errors;
mod memory;
mod results;
mod structured;
mod structured_compactor;
mod warnings;

use pyo3::prelude::*;

/// The native module behind `memory_core`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // How similar two index lines' words must be for `check()` to report them as
    // `near_duplicate_topics`: the core's constant.
    m.add(
        "NEAR_DUPLICATE_SIMILARITY",
        memory_core::structured_memory::NEAR_DUPLICATE_SIMILARITY,
    )?;
    m.add_class::<memory::AgentMemory>()?;
    m.add_class::<context::ContextMemory>()?;
    m.add_class::<structured::StructuredMemory>()?;
    m.add_class::<results::SessionRow>()?;
    m.add_class::<results::Snapshot>()?;
    m.add_class::<results::SnapshotItem>()?;
    m.add_class::<results::OtherSection>()?;
    m.add_class::<results::OrganizeReport>()?;
    m.add_class::<results::ArchiveOutcome>()?;
    m.add_class::<results::ContinueOutcome>()?;
    m.add_class::<results::ReleaseOutcome>()?;
    m.add_class::<results::SessionStart>()?;
    m.add_class::<results::WarningRecord>()?;
    m.add_function(wrap_pyfunction!(results::_restore, m)?)?;
    errors::register(m)?;
    // After the errors: it shares their `__reduce__`.
    warnings::register(m)?;
    Ok(())
}
