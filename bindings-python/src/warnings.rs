//! `memory_core.MemoryCoreWarning`: how a plain call (`register_session_start`) tells the
//! caller about a problem it went on past, through Python's `warnings` module, so that
//! an application sees it without asking (and can filter it, or turn it into an error).

use pyo3::create_exception;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

use crate::results::WarningRecord;

create_exception!(
    memory_core,
    MemoryCoreWarning,
    PyUserWarning,
    "The category of the warnings memory-core emits through the ``warnings`` module: a \
problem in a memory file that did not stop the call, such as a malformed row of another \
session that ``register_session_start`` registered beside. ``str(warning)`` is \
``path:line: message``; ``path`` (a ``pathlib.Path``) and ``line`` (1-based, 0 for the whole \
file) locate it. Filter it with ``warnings.simplefilter(\"ignore\", MemoryCoreWarning)``; \
under ``-W error`` it is raised after the call's write was made. Instances pickle with \
their fields."
);

/// Adds `MemoryCoreWarning` to `module`, with `path` and `line` None on the class and the
/// memory-core exceptions' `__reduce__` (which keeps the fields).
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let class = py.get_type::<MemoryCoreWarning>();
    for attr in ["path", "line"] {
        class.setattr(attr, py.None())?;
    }
    let reduce = py
        .get_type::<crate::errors::MemoryCoreError>()
        .getattr("__reduce__")?;
    class.setattr("__reduce__", reduce)?;
    module.add("MemoryCoreWarning", class)?;
    Ok(())
}

/// Emits each record as a `MemoryCoreWarning` attributed to the Python caller's line.
/// Under an `error` filter the first one raises (the caller gets that exception).
pub(crate) fn emit(py: Python<'_>, records: &[WarningRecord]) -> PyResult<()> {
    if records.is_empty() {
        return Ok(());
    }
    let warn = py.import("warnings")?.getattr("warn")?;
    let class = py.get_type::<MemoryCoreWarning>();
    for record in records {
        let warning = class.call1((record.to_string(),))?;
        warning.setattr("path", &record.path)?;
        warning.setattr("line", record.line)?;
        warn.call1((warning,))?;
    }
    Ok(())
}
