//! Argument conversion: every value a method receives is converted here, and a value of
//! the wrong type is an `InvalidInputError` naming the parameter in plain words
//! (`session_id: expected a str, got int 5`), never PyO3's `TypeError` with Rust type
//! names.

use std::path::PathBuf;

use memory_core::Error;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDateTime, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use crate::errors::to_py_err;

/// `expected …, got <type> <repr>` as an `InvalidInputError` for parameter `name`.
fn wrong(obj: &Bound<'_, PyAny>, name: &'static str, expected: &str) -> PyErr {
    to_py_err(
        obj.py(),
        Error::argument(name, format!("expected {expected}, got {}", described(obj))),
    )
}

/// `<type> <repr>` of a value a message shows, the repr cut at 40 characters.
pub(crate) fn described(obj: &Bound<'_, PyAny>) -> String {
    let type_name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string());
    let mut shown = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".to_string());
    if shown.chars().count() > 40 {
        shown = shown.chars().take(40).collect::<String>() + "…";
    }
    format!("{type_name} {shown}")
}

/// A `str`.
pub(crate) fn text(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => s.extract::<String>().map_err(|_| {
            to_py_err(
                obj.py(),
                Error::argument(
                    name,
                    "is not valid Unicode text (it holds lone surrogates)".to_string(),
                ),
            )
        }),
        Err(_) => Err(wrong(obj, name, "a str")),
    }
}

/// A `str`, or None.
pub(crate) fn opt_text(
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<String>> {
    match obj {
        Some(obj) if !obj.is_none() => text(obj, name).map(Some),
        _ => Ok(None),
    }
}

/// A time as text: a `str` as given, or a `datetime.datetime` as its `isoformat()`;
/// None (or absent) is None. The core parses and checks the text.
pub(crate) fn opt_time(
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<String>> {
    match obj {
        Some(obj) if !obj.is_none() => {
            if obj.is_instance_of::<PyString>() {
                text(obj, name).map(Some)
            } else if obj.is_instance_of::<PyDateTime>() {
                Ok(Some(obj.call_method0("isoformat")?.extract::<String>()?))
            } else {
                Err(wrong(obj, name, "a str or a datetime.datetime"))
            }
        }
        _ => Ok(None),
    }
}

/// A sequence of `str`: a `list`, a `tuple` or another `collections.abc.Sequence`, as
/// the stubs promise (`Sequence[str]`). A bare `str`, `bytes` or `bytearray` is refused
/// rather than split into characters, and so are the iterables that are not sequences
/// (a `dict` would give its keys, a `set` an arbitrary order, a generator is used up).
pub(crate) fn texts(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<Vec<String>> {
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return Err(wrong(
            obj,
            name,
            "a list of str (a bare string is not split)",
        ));
    }
    let is_sequence = obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance(&sequence_abc(obj.py())?)?;
    if !is_sequence {
        return Err(wrong(obj, name, "a list of str"));
    }
    // A sequence whose own `__iter__` fails raises that error, as `list(obj)` would.
    let items = obj.try_iter()?;
    let mut out = Vec::new();
    for item in items {
        let item = item?;
        if !item.is_instance_of::<PyString>() {
            return Err(wrong(&item, name, &format!("a str as item {}", out.len())));
        }
        out.push(text(&item, name)?);
    }
    Ok(out)
}

/// `collections.abc.Sequence`, imported once per interpreter.
fn sequence_abc(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    static SEQUENCE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    SEQUENCE
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("collections.abc")?.getattr("Sequence")?.unbind())
        })
        .map(|class| class.bind(py).clone())
}

/// A sequence of `str` or None (None gives an empty list when `empty_for_none`).
pub(crate) fn opt_texts(
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<Vec<String>>> {
    match obj {
        Some(obj) if !obj.is_none() => texts(obj, name).map(Some),
        _ => Ok(None),
    }
}

/// A list argument whose default is empty: None and omitted both mean "nothing".
pub(crate) fn list(obj: Option<&Bound<'_, PyAny>>, name: &'static str) -> PyResult<Vec<String>> {
    opt_texts(obj, name).map(Option::unwrap_or_default)
}

/// A `str` or `os.PathLike` path.
pub(crate) fn path(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<PathBuf> {
    let fspath = obj
        .py()
        .import("os")?
        .call_method1("fspath", (obj,))
        .map_err(|_| wrong(obj, name, "a str or os.PathLike path"))?;
    fspath
        .extract::<PathBuf>()
        .map_err(|_| wrong(obj, name, "a str or os.PathLike path"))
}

/// A real number (`int` or `float`, not `bool`), or None. An `int` beyond the range of a
/// float is the largest float of its sign (it is finite, and no wait is that long).
pub(crate) fn opt_number(
    obj: Option<&Bound<'_, PyAny>>,
    name: &'static str,
) -> PyResult<Option<f64>> {
    match obj {
        Some(obj) if !obj.is_none() => {
            if obj.is_instance_of::<PyBool>()
                || !(obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>())
            {
                return Err(wrong(obj, name, "a number of seconds"));
            }
            match obj.extract::<f64>() {
                Ok(value) => Ok(Some(value)),
                Err(_) if obj.is_instance_of::<PyInt>() => {
                    let negative = obj
                        .lt(0)
                        .map_err(|_| wrong(obj, name, "a number of seconds"))?;
                    Ok(Some(if negative { f64::MIN } else { f64::MAX }))
                }
                Err(_) => Err(wrong(obj, name, "a number of seconds")),
            }
        }
        _ => Ok(None),
    }
}

/// A number as a message shows it: `-1`, `2.5`, `-1e300`, `inf`, `nan` (never the
/// hundreds of digits Rust's `Display` writes for a large float).
pub(crate) fn short_number(value: f64) -> String {
    if value.is_nan() {
        "nan".to_string()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if value.fract() == 0.0 && value.abs() < 1e16 {
        format!("{value:.0}")
    } else {
        format!("{value:?}")
    }
}

/// An `int` (not `bool`).
pub(crate) fn integer(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<i128> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(wrong(obj, name, "an int"));
    }
    obj.extract::<i128>()
        .map_err(|_| wrong(obj, name, "an int of reasonable size"))
}

/// A `bool`.
pub(crate) fn boolean(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<bool> {
    match obj.cast::<PyBool>() {
        Ok(b) => Ok(b.is_true()),
        Err(_) => Err(wrong(obj, name, "a bool")),
    }
}
