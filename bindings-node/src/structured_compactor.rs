//! A JavaScript compactor as a [`Compactor`] of the core, for the sync forms of
//! `StructuredMemory.remember` and `compact` (they run on the JS thread, where the core
//! calls the compactor synchronously under the lock). `index.js` hands each of the
//! object's functions `dead`, `collapse`, `summarize`, `split`, `routeContent`,
//! `mergeTopics` over wrapped as
//! `(topicJson, argsJson) => resultJson`; a missing one is the core's default. The
//! Promise forms take no compactor: a worker thread cannot call into JavaScript.
//!
//! A function that throws abandons the compaction: the thrown value is kept here (napi
//! holds a reference to it) and [`JsCompactor::failed`] gives it back, so the sync method
//! throws that very value. A result of the wrong shape is refused with a message naming
//! the function (the core's `CompactorFailed`, `ERR_MEMORY_ABORTED`); entry indexes out
//! of range or repeated are the core's own refusal.

use std::cell::RefCell;

use memory_core::Error;
use memory_core::structured_memory::{
    Compactor, CompactorError, Condensed, DefaultCompactor, Entry, MemoryIndex, SplitPart, Topic,
};
use napi::ValueType;
use napi::bindgen_prelude::{FnArgs, Function, Unknown};
use serde_json::Value;

use crate::Failure;
use crate::args::{self, Arg};

/// One wrapped compactor function.
type Method<'env> = Function<'env, FnArgs<(String, String)>, String>;

/// The compactor of one sync call (see the module docs).
pub struct JsCompactor<'env> {
    dead: Option<Method<'env>>,
    collapse: Option<Method<'env>>,
    summarize: Option<Method<'env>>,
    split: Option<Method<'env>>,
    route_content: Option<Method<'env>>,
    merge_topics: Option<Method<'env>>,
    /// What a function threw, to be thrown again.
    thrown: RefCell<Option<napi::Error>>,
}

impl<'env> JsCompactor<'env> {
    /// Reads `options.compactor` (`undefined`/`null` for the default).
    pub fn read(value: Option<Unknown<'env>>, name: &'static str) -> Arg<Option<Self>> {
        let Some(object) = args::opt_object(value, name)? else {
            return Ok(None);
        };
        let method = |key: &'static str, name: &'static str| -> Arg<Option<Method<'env>>> {
            let Some(value) = args::field(&object, key)? else {
                return Ok(None);
            };
            match value.get_type()? {
                ValueType::Null => Ok(None),
                // SAFETY: the value is a function.
                ValueType::Function => Ok(Some(unsafe { value.cast::<Method<'env>>() }?)),
                _ => Err(Failure::Core(Error::argument(
                    name,
                    "expected a function".to_string(),
                ))),
            }
        };
        Ok(Some(JsCompactor {
            dead: method("dead", "options.compactor.dead")?,
            collapse: method("collapse", "options.compactor.collapse")?,
            summarize: method("summarize", "options.compactor.summarize")?,
            split: method("split", "options.compactor.split")?,
            route_content: method("routeContent", "options.compactor.routeContent")?,
            merge_topics: method("mergeTopics", "options.compactor.mergeTopics")?,
            thrown: RefCell::new(None),
        }))
    }

    /// The failure to throw for `err`: what a compactor function threw, when that is why
    /// the core gave up, else the core's error.
    pub fn failed(compactor: Option<&Self>, err: Error) -> Failure {
        if matches!(err, Error::CompactorFailed { .. })
            && let Some(thrown) = compactor.and_then(|c| c.thrown.borrow_mut().take())
        {
            return Failure::Binding(thrown);
        }
        Failure::Core(err)
    }

    /// Calls `method` with the topic and `rest` as JSON; `None` when it is not given.
    fn call(
        &self,
        method: Option<&Method<'env>>,
        topic: &impl serde::Serialize,
        rest: &impl serde::Serialize,
    ) -> Result<Option<Value>, CompactorError> {
        let Some(function) = method else {
            return Ok(None);
        };
        let topic = serde_json::to_string(topic)?;
        let rest = serde_json::to_string(rest)?;
        match function.call((topic, rest).into()) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(value) => Ok(Some(value)),
                Err(_) => Err("returned a value JSON cannot represent".into()),
            },
            Err(thrown) => {
                *self.thrown.borrow_mut() = Some(thrown);
                Err("it threw".into())
            }
        }
    }
}

/// `<name>() returned <value>, expected <what>`.
fn wrong(name: &str, value: &Value, expected: &str) -> CompactorError {
    let mut shown = value.to_string();
    if shown.chars().count() > 40 {
        shown = shown.chars().take(40).collect::<String>() + "…";
    }
    format!("{name}() returned {shown}, expected {expected}").into()
}

fn indexes(name: &str, value: &Value) -> Result<Vec<usize>, CompactorError> {
    let expected = "an array of entry indexes (integers from 0)";
    let Value::Array(items) = value else {
        return Err(wrong(name, value, expected));
    };
    items
        .iter()
        .map(|item| {
            item.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| wrong(name, value, expected))
        })
        .collect()
}

fn text(name: &str, value: Option<&Value>, key: &str) -> Result<String, CompactorError> {
    match value {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("{name}() returned {other} as {key}, expected a string").into()),
        None => Err(format!("{name}() returned an object without {key:?}").into()),
    }
}

/// The objects of an array result, each with only the `known` keys.
fn objects<'v>(
    name: &str,
    value: &'v Value,
    known: &[&str],
) -> Result<Vec<&'v serde_json::Map<String, Value>>, CompactorError> {
    let expected = format!("an array of objects with {}", known.join(", "));
    let Value::Array(items) = value else {
        return Err(wrong(name, value, &expected));
    };
    items
        .iter()
        .map(|item| {
            let Value::Object(map) = item else {
                return Err(wrong(name, item, &expected));
            };
            if let Some(key) = map.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(format!(
                    "{name}() returned the unknown key {key:?} (the keys are {})",
                    known.join(", ")
                )
                .into());
            }
            Ok(map)
        })
        .collect()
}

/// A key's value, `null` as absent.
fn get<'v>(map: &'v serde_json::Map<String, Value>, key: &str) -> Option<&'v Value> {
    map.get(key).filter(|v| !v.is_null())
}

fn required_indexes(
    name: &str,
    map: &serde_json::Map<String, Value>,
) -> Result<Vec<usize>, CompactorError> {
    match get(map, "entries") {
        Some(list) => indexes(name, list),
        None => Err(format!("{name}() returned an object without \"entries\"").into()),
    }
}

impl Compactor for JsCompactor<'_> {
    fn dead(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        match self.call(self.dead.as_ref(), topic, &(entries,))? {
            Some(value) => indexes("dead", &value),
            None => DefaultCompactor.dead(topic, entries),
        }
    }

    fn collapse(
        &self,
        topic: &Topic,
        subject: &str,
        generations: &[Entry],
    ) -> Result<Option<String>, CompactorError> {
        match self.call(self.collapse.as_ref(), topic, &(subject, generations))? {
            Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(wrong("collapse", &other, "a string or null")),
            None => DefaultCompactor.collapse(topic, subject, generations),
        }
    }

    fn summarize(
        &self,
        topic: &Topic,
        entries: &[Entry],
    ) -> Result<Vec<Condensed>, CompactorError> {
        let Some(value) = self.call(self.summarize.as_ref(), topic, &(entries,))? else {
            return DefaultCompactor.summarize(topic, entries);
        };
        objects("summarize", &value, &["entries", "text", "subject"])?
            .into_iter()
            .map(|map| {
                let mut lesson = Condensed::new(
                    required_indexes("summarize", map)?,
                    text("summarize", get(map, "text"), "text")?,
                );
                if let Some(subject) = get(map, "subject") {
                    lesson = lesson.subject(text("summarize", Some(subject), "subject")?);
                }
                Ok(lesson)
            })
            .collect()
    }

    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        match self.call(self.route_content.as_ref(), index, &[(); 0])? {
            Some(value) => pairs(
                "routeContent",
                &value,
                |i, file| {
                    Some((
                        usize::try_from(i.as_u64()?).ok()?,
                        file.as_str()?.to_string(),
                    ))
                },
                "an array of [contentIndex, topicFile] pairs",
            ),
            None => DefaultCompactor.route_content(index),
        }
    }

    fn merge_topics(&self, index: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        match self.call(self.merge_topics.as_ref(), index, &[(); 0])? {
            Some(value) => pairs(
                "mergeTopics",
                &value,
                |from, into| Some((from.as_str()?.to_string(), into.as_str()?.to_string())),
                "an array of [fromFile, intoFile] pairs",
            ),
            None => DefaultCompactor.merge_topics(index),
        }
    }

    fn split(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        let Some(value) = self.call(self.split.as_ref(), topic, &(entries,))? else {
            return DefaultCompactor.split(topic, entries);
        };
        objects("split", &value, &["file", "title", "hook", "entries"])?
            .into_iter()
            .map(|map| {
                Ok(SplitPart::new(
                    text("split", get(map, "file"), "file")?,
                    text("split", get(map, "title"), "title")?,
                    text("split", get(map, "hook"), "hook")?,
                    required_indexes("split", map)?,
                ))
            })
            .collect()
    }
}

/// A list of two-item arrays from `name()`, each read by `each`.
fn pairs<T>(
    name: &str,
    value: &Value,
    each: impl Fn(&Value, &Value) -> Option<T>,
    expected: &str,
) -> Result<Vec<T>, CompactorError> {
    let Value::Array(items) = value else {
        return Err(wrong(name, value, expected));
    };
    items
        .iter()
        .map(|item| match item {
            Value::Array(p) if p.len() == 2 => {
                each(&p[0], &p[1]).ok_or_else(|| wrong(name, item, expected))
            }
            other => Err(wrong(name, other, expected)),
        })
        .collect()
}

/// Refuses a compactor in a Promise form's options (`index.js` rejects with a TypeError
/// first; this keeps the native method honest).
pub fn refuse_in_async(value: Option<&Unknown<'_>>, method: &'static str) -> Arg<()> {
    let Some(value) = value else {
        return Ok(());
    };
    if matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) {
        return Ok(());
    }
    Err(Failure::Core(Error::argument(
        "options.compactor",
        format!("{method} takes no compactor (a JavaScript compactor runs only in the sync form)"),
    )))
}
