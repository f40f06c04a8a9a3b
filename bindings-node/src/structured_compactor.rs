//! A JavaScript compactor as a [`Compactor`] of the core. `index.js` hands each of the
//! object's functions `dead`, `collapse`, `summarize`, `split`, `routeContent`,
//! `mergeTopics` over wrapped as `(topicJson, argsJson) => resultJson` (a plain-function
//! compactor becomes six such functions, each calling it with one request object); a
//! missing one is the core's default, and so is a wrapped function that answers the
//! empty string (what `index.js` returns for a plain function's `undefined` or `null`).
//!
//! How the wrapped functions are reached is a [`Calls`]: [`SyncCalls`] for the sync forms
//! (they run on the JS thread, where the core calls the compactor synchronously under
//! the lock), [`crate::structured_compactor_async::AsyncCalls`] for the Promise forms
//! (the core runs on a libuv worker and each call is posted to the JS thread). The
//! shapes of the answers are checked here, once for both.
//!
//! A function that throws abandons the compaction. In the sync forms the thrown value is
//! kept here (napi holds a reference to it) and [`JsCompactor::failed`] gives it back, so
//! the sync method throws that very value; in the Promise forms `index.js` keeps it and
//! rejects with it. A result of the wrong shape is refused with a message naming the
//! function (the core's `CompactorFailed`, `ERR_MEMORY_ABORTED`); entry indexes out of
//! range or repeated are the core's own refusal.

use std::cell::RefCell;

use memory_core::Error;
use memory_core::structured_memory::{
    Compactor, CompactorError, Condensed, DefaultCompactor, Entry, MemoryIndex, SplitPart, Topic,
};
use napi::ValueType;
use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, Unknown};
use serde_json::Value;

use crate::Failure;
use crate::args::{self, Arg};

/// The compactor functions (the keys of the wrapped object), in slot order.
pub const METHODS: [&str; 6] = [
    "dead",
    "collapse",
    "summarize",
    "split",
    "routeContent",
    "mergeTopics",
];

/// The `pass` a plain-function compactor is asked for, per slot.
const PASSES: [&str; 6] = [
    "dead",
    "collapse",
    "summarize",
    "split",
    "route_content",
    "merge_topics",
];

/// What a wrapped function answered when a thrown value (or, in the Promise forms, a
/// rejection) was kept by `index.js`: not JSON, so no result can look like it.
pub const THREW: &str = "\u{0}threw";

/// What a wrapped function of a Promise form answered when the call's `AbortSignal`
/// fired before the caller's function settled: the compaction stops, nothing is written.
pub const ABORTED: &str = "\u{0}aborted";

/// What a wrapped function of a sync form answered when the caller's function returned a
/// Promise (a sync call cannot wait for it): the compaction stops, nothing is written.
pub const PROMISE_IN_SYNC: &str = "\u{0}promise";

/// One wrapped compactor function.
pub type Method<'env, R> = Function<'env, FnArgs<(String, String)>, R>;

/// How the wrapped functions are called: the JSON text a slot's function answered, or
/// `None` when the compactor has no function in that slot.
pub trait Calls {
    /// Calls the function of slot `slot` (an index into [`METHODS`]) with the topic (or
    /// index) and the other arguments as JSON.
    fn call(&self, slot: usize, topic: String, rest: String) -> Result<Option<String>, String>;
}

/// The six functions of a compactor by slot (`None`: not given), and whether they wrap a
/// plain function.
pub type Functions<'env, R> = ([Option<Method<'env, R>>; 6], bool);

/// The compactor of one call (see the module docs).
pub struct JsCompactor<C> {
    calls: C,
    /// Whether it is a plain function (the messages then name its `pass`).
    function: bool,
}

/// The six functions of the wrapped object `options.compactor` (`undefined`/`null`
/// for the default), each a `Method` answering `R`, and whether it wraps a plain function.
pub fn functions<'env, R: FromNapiValue>(
    value: Option<Unknown<'env>>,
    name: &'static str,
) -> Arg<Option<Functions<'env, R>>> {
    let Some(object) = args::opt_object(value, name)? else {
        return Ok(None);
    };
    /// The argument names of the six functions, for the errors.
    const NAMES: [&str; 6] = [
        "options.compactor.dead",
        "options.compactor.collapse",
        "options.compactor.summarize",
        "options.compactor.split",
        "options.compactor.routeContent",
        "options.compactor.mergeTopics",
    ];
    let mut found: [Option<Method<'env, R>>; 6] = [None, None, None, None, None, None];
    for (slot, key) in METHODS.iter().enumerate() {
        let Some(value) = args::field(&object, key)? else {
            continue;
        };
        found[slot] = match value.get_type()? {
            ValueType::Null => None,
            // SAFETY: the value is a function.
            ValueType::Function => Some(unsafe { value.cast::<Method<'env, R>>() }?),
            _ => {
                return Err(Failure::Core(Error::argument(
                    NAMES[slot],
                    "expected a function".to_string(),
                )));
            }
        };
    }
    let function = args::opt_bool(args::field(&object, "functionForm")?, name)?.unwrap_or(false);
    Ok(Some((found, function)))
}

/// The wrapped functions of a sync form, called in place on the JS thread.
pub struct SyncCalls<'env> {
    methods: [Option<Method<'env, String>>; 6],
    /// What a function threw, to be thrown again.
    thrown: RefCell<Option<napi::Error>>,
}

impl Calls for SyncCalls<'_> {
    fn call(&self, slot: usize, topic: String, rest: String) -> Result<Option<String>, String> {
        let Some(function) = self.methods.get(slot).and_then(Option::as_ref) else {
            return Ok(None);
        };
        match function.call((topic, rest).into()) {
            Ok(text) => Ok(Some(text)),
            Err(thrown) => {
                *self.thrown.borrow_mut() = Some(thrown);
                Ok(Some(THREW.to_string()))
            }
        }
    }
}

impl<'env> JsCompactor<SyncCalls<'env>> {
    /// Reads `options.compactor` (`undefined`/`null` for the default) for a sync form.
    pub fn read(value: Option<Unknown<'env>>, name: &'static str) -> Arg<Option<Self>> {
        Ok(
            functions::<String>(value, name)?.map(|(methods, function)| JsCompactor {
                calls: SyncCalls {
                    methods,
                    thrown: RefCell::new(None),
                },
                function,
            }),
        )
    }

    /// The failure to throw for `err`: what a compactor function threw, when that is why
    /// the core gave up, else the core's error.
    pub fn failed(compactor: Option<&Self>, err: Error) -> Failure {
        if matches!(err, Error::CompactorFailed { .. })
            && let Some(thrown) = compactor.and_then(|c| c.calls.thrown.borrow_mut().take())
        {
            return Failure::Binding(thrown);
        }
        Failure::Core(err)
    }
}

impl<C: Calls> JsCompactor<C> {
    /// A compactor calling its functions through `calls`.
    pub fn new(calls: C, function: bool) -> Self {
        JsCompactor { calls, function }
    }

    /// How messages name the function of `slot`: `dead()`, or
    /// `compactor({ pass: "dead" })` for a plain function.
    fn callee(&self, slot: usize) -> String {
        if self.function {
            format!("compactor({{ pass: {:?} }})", PASSES[slot])
        } else {
            format!("{}()", METHODS[slot])
        }
    }

    /// Calls the function of `slot` with the topic and `rest` as JSON; `None` when it is
    /// not given or answered "the default".
    fn call(
        &self,
        slot: usize,
        topic: &impl serde::Serialize,
        rest: &impl serde::Serialize,
    ) -> Result<Option<Value>, CompactorError> {
        let topic = serde_json::to_string(topic)?;
        let rest = serde_json::to_string(rest)?;
        let text = match self.calls.call(slot, topic, rest) {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(None),
            Err(message) => return Err(format!("{}: {message}", self.callee(slot)).into()),
        };
        if text == THREW {
            return Err("it threw".into());
        }
        if text == ABORTED {
            return Err(format!(
                "{}: stopped waiting for its answer: the AbortSignal was aborted",
                self.callee(slot)
            )
            .into());
        }
        if text == PROMISE_IN_SYNC {
            return Err(format!(
                "{} returned a Promise in a sync call; use the Promise form (…Async) for an async compactor",
                self.callee(slot)
            )
            .into());
        }
        if text.is_empty() {
            return Ok(None);
        }
        match serde_json::from_str(&text) {
            Ok(value) => Ok(Some(value)),
            Err(_) => Err(format!(
                "{} returned a value JSON cannot represent",
                self.callee(slot)
            )
            .into()),
        }
    }
}

/// `<callee> returned <value>, expected <what>`.
fn wrong(name: &str, value: &Value, expected: &str) -> CompactorError {
    let mut shown = value.to_string();
    if shown.chars().count() > 40 {
        shown = shown.chars().take(40).collect::<String>() + "…";
    }
    format!("{name} returned {shown}, expected {expected}").into()
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
        Some(other) => Err(format!("{name} returned {other} as {key}, expected a string").into()),
        None => Err(format!("{name} returned an object without {key:?}").into()),
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
                    "{name} returned the unknown key {key:?} (the keys are {})",
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
        None => Err(format!("{name} returned an object without \"entries\"").into()),
    }
}

impl<C: Calls> Compactor for JsCompactor<C> {
    fn dead(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        match self.call(0, topic, &(entries,))? {
            Some(value) => indexes(&self.callee(0), &value),
            None => DefaultCompactor.dead(topic, entries),
        }
    }

    fn collapse(
        &self,
        topic: &Topic,
        subject: &str,
        generations: &[Entry],
    ) -> Result<Option<String>, CompactorError> {
        match self.call(1, topic, &(subject, generations))? {
            Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(wrong(&self.callee(1), &other, "a string or null")),
            None => DefaultCompactor.collapse(topic, subject, generations),
        }
    }

    fn summarize(
        &self,
        topic: &Topic,
        entries: &[Entry],
    ) -> Result<Vec<Condensed>, CompactorError> {
        let Some(value) = self.call(2, topic, &(entries,))? else {
            return DefaultCompactor.summarize(topic, entries);
        };
        let name = self.callee(2);
        objects(&name, &value, &["entries", "text", "subject"])?
            .into_iter()
            .map(|map| {
                let mut lesson = Condensed::new(
                    required_indexes(&name, map)?,
                    text(&name, get(map, "text"), "text")?,
                );
                if let Some(subject) = get(map, "subject") {
                    lesson = lesson.subject(text(&name, Some(subject), "subject")?);
                }
                Ok(lesson)
            })
            .collect()
    }

    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        match self.call(4, index, &[(); 0])? {
            Some(value) => pairs(
                &self.callee(4),
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
        match self.call(5, index, &[(); 0])? {
            Some(value) => pairs(
                &self.callee(5),
                &value,
                |from, into| Some((from.as_str()?.to_string(), into.as_str()?.to_string())),
                "an array of [fromFile, intoFile] pairs",
            ),
            None => DefaultCompactor.merge_topics(index),
        }
    }

    fn split(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        let Some(value) = self.call(3, topic, &(entries,))? else {
            return DefaultCompactor.split(topic, entries);
        };
        let name = self.callee(3);
        objects(&name, &value, &["file", "title", "hook", "entries"])?
            .into_iter()
            .map(|map| {
                Ok(SplitPart::new(
                    text(&name, get(map, "file"), "file")?,
                    text(&name, get(map, "title"), "title")?,
                    text(&name, get(map, "hook"), "hook")?,
                    required_indexes(&name, map)?,
                ))
            })
            .collect()
    }
}

/// A list of two-item arrays from `name`, each read by `each`.
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
