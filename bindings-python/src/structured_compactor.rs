//! A Python compactor as a [`Compactor`] of the core: any object with some of the methods
//! `dead(topic, entries)`, `collapse(topic, subject, generations)`,
//! `summarize(topic, entries)`, `split(topic, entries)`, and for `MEMORY.md` over its
//! budget `route_content(index)` (a list of `[content_index, topic_file]` pairs) and
//! `merge_topics(index)` (a list of `[from_file, into_file]` pairs); a missing method (or
//! one set to None) is the core's default. `topic` and the entries are the plain dicts of
//! `StructuredMemory.topic` (`TopicDict`, `StructuredEntryDict`).
//!
//! A callable with none of those methods (a function, a lambda, a `functools.partial`)
//! is a compactor too: it is called `compactor(request)` once per judgment with
//! `request = {"pass": <method name>, "topic": ..., ...}` (the method's arguments by
//! name: `entries`, `subject`, `generations`; `index` for the two index passes) and
//! answers as that method would, or None for the default.
//!
//! The core calls a compactor synchronously under the directory's lock, with the GIL
//! released (the lock wait must not block other threads); each call takes the GIL back.
//! An exception the method raises is boxed as the [`PyErr`] itself into the core's
//! `CompactorFailed`, which [`crate::errors::to_py_err`] unboxes to raise that very
//! exception. A result of the wrong shape is refused here with a message naming the
//! method (the core's `CompactorFailed`: AbortedError); indexes out of range or repeated
//! are the core's own refusal.

use memory_core::structured_memory::{
    Compactor, CompactorError, Condensed, Entry, MemoryIndex, SplitPart, Topic,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyMapping, PyString, PyTuple};

use crate::context::plain;

/// The names of the compactor methods, which are also the `pass` of a request.
const METHODS: [&str; 6] = [
    "dead",
    "collapse",
    "summarize",
    "split",
    "route_content",
    "merge_topics",
];

/// The Python object behind a compaction (see the module docs).
pub(crate) struct PyCompactor {
    object: Py<PyAny>,
    /// A plain callable, called with one request dict, rather than an object of methods.
    function: bool,
}

impl PyCompactor {
    /// Wraps `object`: a callable without any of the compactor methods is called with a
    /// request dict; any other object has its methods looked up at each call.
    pub(crate) fn new(object: &Bound<'_, PyAny>) -> PyResult<PyCompactor> {
        let mut function = object.is_callable();
        for method in METHODS {
            if function && object.hasattr(method)? {
                function = false;
            }
        }
        Ok(PyCompactor {
            object: object.clone().unbind(),
            function,
        })
    }

    /// `object.<method>(topic, *rest)`, or `object({"pass": method, topic_key: topic,
    /// **rest})` for a plain callable, with the GIL held; None when the object has no
    /// such method (or it is None), or the callable answered None. The result goes
    /// through `convert`.
    fn call<T, F: serde::Serialize>(
        &self,
        method: &'static str,
        (topic_key, topic): (&'static str, &F),
        rest: impl for<'py> FnOnce(Python<'py>) -> PyResult<Vec<(&'static str, Py<PyAny>)>>,
        convert: impl for<'py> FnOnce(&Bound<'py, PyAny>) -> Result<T, String>,
    ) -> Result<Option<T>, CompactorError> {
        Python::attach(|py| {
            let run = || -> PyResult<Option<Result<T, String>>> {
                let object = self.object.bind(py);
                let result = if self.function {
                    let request = PyDict::new(py);
                    request.set_item("pass", method)?;
                    request.set_item(topic_key, plain(py, topic)?)?;
                    for (key, value) in rest(py)? {
                        request.set_item(key, value)?;
                    }
                    let result = object.call1((request,))?;
                    if result.is_none() {
                        return Ok(None);
                    }
                    result
                } else {
                    let Some(function) = object.getattr_opt(method)? else {
                        return Ok(None);
                    };
                    if function.is_none() {
                        return Ok(None);
                    }
                    let mut args = vec![plain(py, topic)?];
                    args.extend(rest(py)?.into_iter().map(|(_, value)| value));
                    function.call1(PyTuple::new(py, args)?)?
                };
                Ok(Some(convert(&result)))
            };
            let name = if self.function { "compactor" } else { method };
            match run() {
                Ok(None) => Ok(None),
                Ok(Some(Ok(value))) => Ok(Some(value)),
                Ok(Some(Err(message))) => Err(if self.function {
                    format!("{name}() {message} for pass {method:?}").into()
                } else {
                    format!("{name}() {message}").into()
                }),
                Err(raised) => Err(Box::new(raised) as CompactorError),
            }
        })
    }
}

/// `returned <type> <repr>, expected <what>`.
fn wrong(value: &Bound<'_, PyAny>, expected: &str) -> String {
    format!(
        "returned {}, expected {expected}",
        crate::args::described(value)
    )
}

/// An entry index: an `int` (not `bool`) from 0.
fn index(value: &Bound<'_, PyAny>, what: &str) -> Result<usize, String> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(format!(
            "returned {} in {what}, expected an int entry index",
            crate::args::described(value)
        ));
    }
    value.extract::<usize>().map_err(|_| {
        format!(
            "returned {} in {what}, expected an entry index from 0",
            crate::args::described(value)
        )
    })
}

/// A list (or tuple) of entry indexes.
fn indexes(value: &Bound<'_, PyAny>, what: &str) -> Result<Vec<usize>, String> {
    items(value, "a list of int entry indexes")?
        .iter()
        .map(|item| index(item, what))
        .collect()
}

/// The items of a `list` or `tuple` (no other iterable: a `str` or a dict is a mistake).
fn items<'py>(value: &Bound<'py, PyAny>, expected: &str) -> Result<Vec<Bound<'py, PyAny>>, String> {
    if let Ok(list) = value.cast::<pyo3::types::PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = value.cast::<pyo3::types::PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    Err(wrong(value, expected))
}

/// A `str`.
fn text(value: &Bound<'_, PyAny>, what: &str) -> Result<String, String> {
    match value.cast::<PyString>() {
        Ok(s) => s
            .extract::<String>()
            .map_err(|_| format!("returned a {what} that is not valid Unicode text")),
        Err(_) => Err(format!(
            "returned {} as {what}, expected a str",
            crate::args::described(value)
        )),
    }
}

/// The keys of a mapping a method returned, each looked up once; a key not in `known` is
/// refused (a misspelt key would otherwise be silently dropped).
fn fields<'py, const N: usize>(
    value: &Bound<'py, PyAny>,
    known: [&'static str; N],
    expected: &str,
) -> Result<[Option<Bound<'py, PyAny>>; N], String> {
    let mapping = value
        .cast::<PyMapping>()
        .map_err(|_| wrong(value, expected))?;
    let pairs = mapping
        .items()
        .map_err(|e| format!("returned a mapping whose items fail: {e}"))?;
    let mut out: [Option<Bound<'py, PyAny>>; N] = std::array::from_fn(|_| None);
    for pair in pairs.iter() {
        let (key, item) = pair
            .extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()
            .map_err(|e| format!("returned a mapping whose items fail: {e}"))?;
        let key = text(&key, "a key")?;
        let Some(slot) = known.iter().position(|k| *k == key) else {
            return Err(format!(
                "returned the unknown key {key:?} (the keys are {})",
                known.join(", ")
            ));
        };
        out[slot] = Some(item).filter(|v| !v.is_none());
    }
    Ok(out)
}

fn required<'a, 'py>(
    field: &'a Option<Bound<'py, PyAny>>,
    key: &str,
) -> Result<&'a Bound<'py, PyAny>, String> {
    field
        .as_ref()
        .ok_or_else(|| format!("returned a mapping without {key:?}"))
}

fn condensed(value: &Bound<'_, PyAny>) -> Result<Condensed, String> {
    let [entries, lesson, subject] = fields(
        value,
        ["entries", "text", "subject"],
        "a dict with entries, text and subject",
    )?;
    let entries = indexes(required(&entries, "entries")?, "entries")?;
    let mut out = Condensed::new(entries, text(required(&lesson, "text")?, "text")?);
    if let Some(subject) = &subject {
        out = out.subject(text(subject, "subject")?);
    }
    Ok(out)
}

fn split_part(value: &Bound<'_, PyAny>) -> Result<SplitPart, String> {
    let [file, title, hook, entries] = fields(
        value,
        ["file", "title", "hook", "entries"],
        "a dict with file, title, hook and entries",
    )?;
    Ok(SplitPart::new(
        text(required(&file, "file")?, "file")?,
        text(required(&title, "title")?, "title")?,
        text(required(&hook, "hook")?, "hook")?,
        indexes(required(&entries, "entries")?, "entries")?,
    ))
}

/// A two-item list or tuple.
fn pair<'py>(
    value: &Bound<'py, PyAny>,
    what: &str,
) -> Result<(Bound<'py, PyAny>, Bound<'py, PyAny>), String> {
    let parts = items(value, what)?;
    match parts.as_slice() {
        [a, b] => Ok((a.clone(), b.clone())),
        _ => Err(wrong(value, what)),
    }
}

impl Compactor for PyCompactor {
    fn route_content(
        &self,
        memory_index: &MemoryIndex,
    ) -> Result<Vec<(usize, String)>, CompactorError> {
        let found = self.call(
            "route_content",
            ("index", memory_index),
            |_| Ok(Vec::new()),
            |value| {
                items(value, "a list of [content_index, topic_file] pairs")?
                    .iter()
                    .map(|item| {
                        let (i, file) = pair(item, "a [content_index, topic_file] pair")?;
                        Ok((index(&i, "content_index")?, text(&file, "topic_file")?))
                    })
                    .collect()
            },
        )?;
        match found {
            Some(list) => Ok(list),
            None => memory_core::structured_memory::DefaultCompactor.route_content(memory_index),
        }
    }

    fn merge_topics(&self, index: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        let found = self.call(
            "merge_topics",
            ("index", index),
            |_| Ok(Vec::new()),
            |value| {
                items(value, "a list of [from_file, into_file] pairs")?
                    .iter()
                    .map(|item| {
                        let (from, into) = pair(item, "a [from_file, into_file] pair")?;
                        Ok((text(&from, "from_file")?, text(&into, "into_file")?))
                    })
                    .collect()
            },
        )?;
        match found {
            Some(list) => Ok(list),
            None => memory_core::structured_memory::DefaultCompactor.merge_topics(index),
        }
    }

    fn dead(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        let found = self.call(
            "dead",
            ("topic", topic),
            |py| Ok(vec![("entries", plain(py, &entries)?)]),
            |value| indexes(value, "the list"),
        )?;
        match found {
            Some(list) => Ok(list),
            None => memory_core::structured_memory::DefaultCompactor.dead(topic, entries),
        }
    }

    fn collapse(
        &self,
        topic: &Topic,
        subject: &str,
        generations: &[Entry],
    ) -> Result<Option<String>, CompactorError> {
        let found = self.call(
            "collapse",
            ("topic", topic),
            |py| {
                Ok(vec![
                    ("subject", PyString::new(py, subject).into_any().unbind()),
                    ("generations", plain(py, &generations)?),
                ])
            },
            |value| {
                if value.is_none() {
                    Ok(None)
                } else {
                    text(value, "the new text").map(Some)
                }
            },
        )?;
        match found {
            Some(text) => Ok(text),
            None => memory_core::structured_memory::DefaultCompactor.collapse(
                topic,
                subject,
                generations,
            ),
        }
    }

    fn summarize(
        &self,
        topic: &Topic,
        entries: &[Entry],
    ) -> Result<Vec<Condensed>, CompactorError> {
        let found = self.call(
            "summarize",
            ("topic", topic),
            |py| Ok(vec![("entries", plain(py, &entries)?)]),
            |value| {
                items(value, "a list of dicts (entries, text, subject)")?
                    .iter()
                    .map(condensed)
                    .collect()
            },
        )?;
        match found {
            Some(list) => Ok(list),
            None => memory_core::structured_memory::DefaultCompactor.summarize(topic, entries),
        }
    }

    fn split(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        let found = self.call(
            "split",
            ("topic", topic),
            |py| Ok(vec![("entries", plain(py, &entries)?)]),
            |value| {
                items(value, "a list of dicts (file, title, hook, entries)")?
                    .iter()
                    .map(split_part)
                    .collect()
            },
        )?;
        match found {
            Some(list) => Ok(list),
            None => memory_core::structured_memory::DefaultCompactor.split(topic, entries),
        }
    }
}
