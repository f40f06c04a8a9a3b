//! memory-core errors as Python exceptions: `MemoryCoreError` and one subclass per
//! [`ErrorKind`], each also inheriting the builtin exception that fits the kind.

use std::path::Path;

use memory_core::{Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyLookupError, PyOSError, PyRuntimeError, PyTimeoutError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    memory_core,
    MemoryCoreError,
    PyException,
    "Base class of every error memory-core raises. Carries `path`, `line` and `session_id` \
     (None when they do not apply); the subclasses also carry `kind` and `code`."
);

/// Every kind, in the order the exception classes are created.
const KINDS: [ErrorKind; 6] = [
    ErrorKind::InvalidInput,
    ErrorKind::NotFound,
    ErrorKind::Conflict,
    ErrorKind::Malformed,
    ErrorKind::LockTimeout,
    ErrorKind::Io,
];

/// How Python sees one [`ErrorKind`].
struct KindSpec {
    /// The exception class name.
    class_name: &'static str,
    /// The builtin exception it also inherits.
    builtin: fn(Python<'_>) -> Bound<'_, PyType>,
    /// The class docstring.
    doc: &'static str,
}

/// The one `match` on [`ErrorKind`] in this binding. It is exhaustive (no wildcard arm), so
/// a kind added to memory-core breaks this build until it has an exception class (and
/// must then be added to [`KINDS`] as well).
fn spec(kind: ErrorKind) -> KindSpec {
    match kind {
        ErrorKind::InvalidInput => KindSpec {
            class_name: "InvalidInputError",
            builtin: |py| py.get_type::<PyValueError>(),
            doc: "An argument was rejected before anything was read or written (also a ValueError).",
        },
        ErrorKind::NotFound => KindSpec {
            class_name: "NotFoundError",
            builtin: |py| py.get_type::<PyLookupError>(),
            doc: "A session or snapshot item does not exist (also a LookupError).",
        },
        ErrorKind::Conflict => KindSpec {
            class_name: "ConflictError",
            builtin: |py| py.get_type::<PyRuntimeError>(),
            doc: "The operation contradicts the memory's current state: the session is referenced, \
                  inconsistent or duplicated (also a RuntimeError).",
        },
        ErrorKind::Malformed => KindSpec {
            class_name: "MalformedFileError",
            builtin: |py| py.get_type::<PyValueError>(),
            doc: "A memory file does not have the shape the protocol requires; `path` and `line` \
                  locate the problem. Nothing was written (also a ValueError).",
        },
        ErrorKind::LockTimeout => KindSpec {
            class_name: "LockTimeoutError",
            builtin: |py| py.get_type::<PyTimeoutError>(),
            doc: "Another writer held the memory lock longer than `lock_timeout`; `path` is the lock \
                  file (also a TimeoutError).",
        },
        ErrorKind::Io => KindSpec {
            class_name: "MemoryIOError",
            builtin: |py| py.get_type::<PyOSError>(),
            doc: "An operating-system I/O error, or a write whose read-back did not verify (also an \
                  OSError; `errno` is set when the OS reported one).",
        },
    }
}

/// The subclass of each kind, created once per interpreter.
static CLASSES: PyOnceLock<Vec<(ErrorKind, Py<PyType>)>> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Vec<(ErrorKind, Py<PyType>)>> {
    CLASSES.get_or_try_init(py, || create_classes(py))
}

/// Creates `class <Name>(MemoryCoreError, <builtin>)` for every kind with `type(...)`:
/// PyO3's `create_exception!` allows a single base only.
fn create_classes(py: Python<'_>) -> PyResult<Vec<(ErrorKind, Py<PyType>)>> {
    let base = py.get_type::<MemoryCoreError>();
    for attr in ["path", "line", "session_id"] {
        base.setattr(attr, py.None())?;
    }
    let base_str = py.get_type::<PyException>().getattr("__str__")?;
    KINDS
        .iter()
        .map(|&kind| {
            let spec = spec(kind);
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "memory_core")?;
            namespace.set_item("__qualname__", spec.class_name)?;
            namespace.set_item("__doc__", spec.doc)?;
            namespace.set_item("kind", kind.as_str())?;
            namespace.set_item("code", kind.code())?;
            // str() is the core's message even for the OSError subclasses, whose own
            // __str__ would render "[Errno …]" from `errno`/`filename`.
            namespace.set_item("__str__", &base_str)?;
            let bases = PyTuple::new(py, [base.as_any(), (spec.builtin)(py).as_any()])?;
            let class = py
                .get_type::<PyType>()
                .call1((spec.class_name, bases, namespace))?
                .cast_into::<PyType>()?;
            Ok((kind, class.unbind()))
        })
        .collect()
}

/// Adds `MemoryCoreError` and every subclass to `module`.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("MemoryCoreError", py.get_type::<MemoryCoreError>())?;
    for (kind, class) in classes(py)? {
        module.add(spec(*kind).class_name, class.bind(py))?;
    }
    Ok(())
}

/// Converts a memory-core error into the exception of its kind, with `path`, `line` and
/// `session_id` set (and `filename`/`errno` for the `OSError` subclasses).
pub(crate) fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    build(py, &err).unwrap_or_else(|failure| failure)
}

fn build(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let kind = err.kind();
    let class = classes(py)?
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, class)| class.bind(py).clone())
        .unwrap_or_else(|| py.get_type::<MemoryCoreError>());
    let value = class.call1((err.to_string(),))?;
    value.setattr("path", err.path())?;
    value.setattr("line", err.line())?;
    value.setattr("session_id", err.id())?;
    if value.is_instance_of::<PyOSError>() {
        value.setattr("filename", err.path().map(Path::as_os_str))?;
        let io = std::error::Error::source(err).and_then(|s| s.downcast_ref::<std::io::Error>());
        if let Some(errno) = io.and_then(std::io::Error::raw_os_error) {
            value.setattr("errno", errno)?;
            let strerror = py.import("os")?.call_method1("strerror", (errno,))?;
            value.setattr("strerror", strerror)?;
        }
    }
    Ok(PyErr::from_value(value))
}

/// A rejected argument, reported like the core's own argument errors.
pub(crate) fn invalid(
    py: Python<'_>,
    what: &'static str,
    value: String,
    message: impl Into<String>,
) -> PyErr {
    to_py_err(
        py,
        Error::InvalidInput {
            what,
            value,
            message: message.into(),
        },
    )
}
