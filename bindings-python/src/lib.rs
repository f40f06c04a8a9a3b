//! Python bindings of memory-core. The full API arrives with the bindings issue.
use pyo3::prelude::*;

/// The native module behind `memory_core`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
