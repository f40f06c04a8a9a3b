//! memory-core errors as Python exceptions: `MemoryCoreError` and one subclass per
//! [`ErrorKind`], each also inheriting the builtin exception that fits the kind. An I/O
//! error whose OS error kind has a builtin subclass (`FileNotFoundError`,
//! `PermissionError`, `IsADirectoryError`, `NotADirectoryError`, `FileExistsError`) is
//! raised as a subclass of `MemoryIOError` and that builtin. Every instance pickles with
//! its fields.

use std::path::Path;

use memory_core::{Error, ErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyLookupError,
    PyNotADirectoryError, PyOSError, PyPermissionError, PyRuntimeError, PyTimeoutError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    memory_core,
    MemoryCoreError,
    PyException,
    "Base class of every error memory-core raises. ``str(error)`` is the core's message, \
which names the file (and line) concerned. ``path`` (the file, a ``pathlib.Path``), \
``line`` (1-based) and ``session_id`` are set when they apply and None otherwise; so are \
``field`` (the text field a write refused) and ``secret_kind`` (the kind of secret found in it, \
such as ``github-token``), and ``line`` is then the line of the field's text. A time that names \
no day (``last week``, ``recently``) is an ``InvalidInputError`` whose message starts with \
``vague time in `` and whose ``field`` is ``date`` or ``text``. \
``kind`` and ``code`` are class attributes of the subclasses (``code`` is the stable \
``ERR_MEMORY_*`` code the Node binding uses too); both are None on a MemoryCoreError built by \
hand, which belongs to no kind. Every instance pickles with its fields."
);

/// Every kind, in the order the exception classes are created.
const KINDS: [ErrorKind; 7] = [
    ErrorKind::InvalidInput,
    ErrorKind::NotFound,
    ErrorKind::Conflict,
    ErrorKind::Malformed,
    ErrorKind::LockTimeout,
    ErrorKind::Io,
    ErrorKind::Aborted,
];

/// The I/O subclasses: `(class name, builtin, OS error kind)`, each a subclass of
/// `MemoryIOError` and the builtin Python raises for that kind.
type IoSpec = (
    &'static str,
    fn(Python<'_>) -> Bound<'_, PyType>,
    std::io::ErrorKind,
);
const IO_CLASSES: [IoSpec; 5] = [
    (
        "MemoryFileNotFoundError",
        |py| py.get_type::<PyFileNotFoundError>(),
        std::io::ErrorKind::NotFound,
    ),
    (
        "MemoryPermissionError",
        |py| py.get_type::<PyPermissionError>(),
        std::io::ErrorKind::PermissionDenied,
    ),
    (
        "MemoryIsADirectoryError",
        |py| py.get_type::<PyIsADirectoryError>(),
        std::io::ErrorKind::IsADirectory,
    ),
    (
        "MemoryNotADirectoryError",
        |py| py.get_type::<PyNotADirectoryError>(),
        std::io::ErrorKind::NotADirectory,
    ),
    (
        "MemoryFileExistsError",
        |py| py.get_type::<PyFileExistsError>(),
        std::io::ErrorKind::AlreadyExists,
    ),
];

/// `__reduce__` of every memory-core exception: the class, the message and every field
/// (the `OSError` ones too, which `OSError.__reduce__` would turn into constructor
/// arguments and lose the message).
const REDUCE: &std::ffi::CStr = c"
def __reduce__(self):
    from memory_core._native import _restore_error
    state = dict(self.__dict__)
    if isinstance(self, OSError):
        state.update(errno=self.errno, strerror=self.strerror, filename=self.filename)
    return (_restore_error, (type(self), str(self), state))
";

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
            doc: "An argument was rejected before anything was read or written, including an argument \
                  of the wrong type, whose message names the parameter (also a ValueError).",
        },
        ErrorKind::NotFound => KindSpec {
            class_name: "NotFoundError",
            builtin: |py| py.get_type::<PyLookupError>(),
            doc: "A session or snapshot item does not exist; ``session_id`` names the session (also a \
                  LookupError).",
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
            doc: "A memory file does not have the shape the protocol requires; ``path`` and ``line`` \
                  locate the problem. Nothing was written (also a ValueError).",
        },
        ErrorKind::LockTimeout => KindSpec {
            class_name: "LockTimeoutError",
            builtin: |py| py.get_type::<PyTimeoutError>(),
            doc: "Another writer held the memory lock longer than ``lock_timeout``; ``path`` and \
                  ``filename`` are the lock file (also a TimeoutError).",
        },
        ErrorKind::Io => KindSpec {
            class_name: "MemoryIOError",
            builtin: |py| py.get_type::<PyOSError>(),
            doc: "An operating-system I/O error (``errno``/``strerror`` set when the OS reported one, \
                  ``filename`` is ``path``), or a write whose read-back did not verify (also an \
                  OSError). ``syscall`` names the system call that failed, by the names Node's \
                  ``fs`` errors use (``open``, ``read``, ``write``, ``fsync``, ``rename``, \
                  ``unlink``, ``mkdir``, ``link``, ``lstat``, ``scandir`` for listing a \
                  directory, ``flock`` for the memory lock), or is None for a failed \
                  verification. Raised as one of its subclasses when the OS error has a builtin \
                  one: MemoryFileNotFoundError, MemoryPermissionError, MemoryIsADirectoryError, \
                  MemoryNotADirectoryError, MemoryFileExistsError.",
        },
        ErrorKind::Aborted => KindSpec {
            class_name: "AbortedError",
            builtin: |py| py.get_type::<PyRuntimeError>(),
            doc: "The caller stopped a wait for the memory lock; nothing was written. Ctrl-C \
                  raises KeyboardInterrupt itself, not this (also a RuntimeError).",
        },
    }
}

/// The classes, created once per interpreter.
struct Classes {
    /// The subclass of each kind.
    kinds: Vec<(ErrorKind, Py<PyType>)>,
    /// The `MemoryIOError` subclasses per OS error kind.
    io: Vec<(std::io::ErrorKind, &'static str, Py<PyType>)>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || create_classes(py))
}

/// `class <name>(*bases)` with the memory-core class attributes.
fn new_class<'py>(
    py: Python<'py>,
    name: &str,
    doc: &str,
    kind: ErrorKind,
    bases: &[&Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", "memory_core")?;
    namespace.set_item("__qualname__", name)?;
    namespace.set_item("__doc__", doc)?;
    namespace.set_item("kind", kind.as_str())?;
    namespace.set_item("code", kind.code())?;
    // str() is the core's message even for the OSError subclasses, whose own
    // __str__ would render "[Errno …]" from `errno`/`filename`.
    namespace.set_item("__str__", py.get_type::<PyException>().getattr("__str__")?)?;
    let bases = PyTuple::new(py, bases)?;
    py.get_type::<PyType>()
        .call1((name, bases, namespace))?
        .cast_into::<PyType>()
        .map_err(Into::into)
}

/// Creates `class <Name>(MemoryCoreError, <builtin>)` for every kind with `type(...)`:
/// PyO3's `create_exception!` allows a single base only.
fn create_classes(py: Python<'_>) -> PyResult<Classes> {
    let base = py.get_type::<MemoryCoreError>();
    // Class-level defaults, so that an instance built by hand (`MemoryCoreError()`, or
    // any subclass called directly) has every documented attribute.
    for attr in [
        "path",
        "line",
        "session_id",
        "field",
        "secret_kind",
        "kind",
        "code",
    ] {
        base.setattr(attr, py.None())?;
    }
    let reduce = PyModule::from_code(
        py,
        REDUCE,
        c"memory_core/_reduce.py",
        c"memory_core._reduce",
    )?
    .getattr("__reduce__")?;
    base.setattr("__reduce__", reduce)?;
    let kinds = KINDS
        .iter()
        .map(|&kind| {
            let spec = spec(kind);
            let builtin = (spec.builtin)(py);
            let class = new_class(
                py,
                spec.class_name,
                spec.doc,
                kind,
                &[base.as_any(), builtin.as_any()],
            )?;
            Ok((kind, class.unbind()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let io_base = kinds
        .iter()
        .find(|(kind, _)| *kind == ErrorKind::Io)
        .map(|(_, class)| class.bind(py).clone())
        .ok_or_else(|| PyRuntimeError::new_err("no MemoryIOError class"))?;
    io_base.setattr("syscall", py.None())?;
    let io = IO_CLASSES
        .iter()
        .map(|&(name, builtin, io_kind)| {
            let builtin = builtin(py);
            let doc = format!(
                "An I/O error the OS reported as {io_kind:?} (a MemoryIOError and a {}).",
                builtin.name()?
            );
            let class = new_class(
                py,
                name,
                &doc,
                ErrorKind::Io,
                &[io_base.as_any(), builtin.as_any()],
            )?;
            Ok((io_kind, name, class.unbind()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Classes { kinds, io })
}

/// Rebuilds a pickled memory-core exception (what `__reduce__` names).
#[pyfunction]
pub(crate) fn _restore_error<'py>(
    class: &Bound<'py, PyType>,
    message: &str,
    state: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let error = class.call1((message,))?;
    for (key, value) in state.iter() {
        error.setattr(key.cast::<pyo3::types::PyString>()?, value)?;
    }
    Ok(error)
}

/// Adds `MemoryCoreError` and every subclass to `module`.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("MemoryCoreError", py.get_type::<MemoryCoreError>())?;
    let classes = classes(py)?;
    for (kind, class) in &classes.kinds {
        module.add(spec(*kind).class_name, class.bind(py))?;
    }
    for (_, name, class) in &classes.io {
        module.add(*name, class.bind(py))?;
    }
    module.add_function(pyo3::wrap_pyfunction!(_restore_error, module)?)?;
    Ok(())
}

/// Converts a memory-core error into the exception of its kind, with `path`, `line` and
/// `session_id` set (`field` and `secret_kind` for a refused text field) (and `filename`/`errno` for the `OSError` subclasses, `syscall` for
/// `MemoryIOError`).
/// A wait stopped by a Python exception (Ctrl-C's `KeyboardInterrupt`, raised by the
/// signal check the handle installs) re-raises that exception itself.
pub(crate) fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    let err = match err {
        Error::Aborted {
            path,
            waited,
            source: Some(source),
        } => match source.downcast::<PyErr>() {
            Ok(interrupt) => return *interrupt,
            Err(source) => Error::Aborted {
                path,
                waited,
                source: Some(source),
            },
        },
        Error::CompactorFailed { pass, file, source } => match source.downcast::<PyErr>() {
            Ok(raised) => return compactor_raised(py, *raised, pass, &file),
            Err(source) => Error::CompactorFailed { pass, file, source },
        },
        other => other,
    };
    build(py, &err).unwrap_or_else(|failure| failure)
}

/// The exception a Python compactor raised, re-raised itself, with a note (PEP 678, on
/// Python 3.11 and later) naming the pass and file whose compaction it abandoned.
fn compactor_raised(py: Python<'_>, raised: PyErr, pass: &str, file: &str) -> PyErr {
    let value = raised.value(py);
    if value.hasattr("add_note").unwrap_or(false) {
        let note = format!(
            "{file}: the compactor's {pass} pass raised this; the compaction wrote nothing"
        );
        // A failing note (a frozen exception class) must not hide the exception itself.
        let _ = value.call_method1("add_note", (note,));
    }
    raised
}

fn io_kind(err: &Error) -> Option<std::io::ErrorKind> {
    std::error::Error::source(err)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind)
}

fn build(py: Python<'_>, err: &Error) -> PyResult<PyErr> {
    let kind = err.kind();
    let classes = classes(py)?;
    let io_class = match kind {
        ErrorKind::Io => io_kind(err).and_then(|k| {
            classes
                .io
                .iter()
                .find(|(io_kind, _, _)| *io_kind == k)
                .map(|(_, _, class)| class.bind(py).clone())
        }),
        _ => None,
    };
    let class = io_class
        .or_else(|| {
            classes
                .kinds
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, class)| class.bind(py).clone())
        })
        .unwrap_or_else(|| py.get_type::<MemoryCoreError>());
    let value = class.call1((err.to_string(),))?;
    value.setattr("path", err.path())?;
    value.setattr("line", err.line())?;
    value.setattr("session_id", err.id())?;
    if let Some(field) = err.field() {
        value.setattr("field", field)?;
        value.setattr("secret_kind", err.secret_kind())?;
    }
    if let Some(syscall) = err.syscall() {
        value.setattr("syscall", syscall)?;
    }
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
            session_id: None,
        },
    )
}
