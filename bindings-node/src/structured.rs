//! `StructuredMemory`: the structured-memory protocol (`MEMORY.md` of one-line pointers,
//! topic files of dated entries, `memory-archive.md`). The serde route of
//! `ContextMemory`: every result is the core type's serde JSON, parsed by `index.js`
//! (snake_case keys, as `memcore topics --json` prints). Sync and Promise forms: the
//! read-only and `restore` pairs come from [`paired!`]; `remember` and `compact` are
//! written out, because they take a compactor: called in place in the sync forms
//! ([`JsCompactor::read`]), posted to the JS thread from the worker in the Promise forms
//! ([`JsCompactor::read_async`]).

use memory_core::Error;
use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory as Core};
use napi::bindgen_prelude::{AsyncTask, Object, Unknown};
use napi::{Env, JsDate, JsValue, Result, ValueType};
use napi_derive::napi;

use crate::args::{self, Arg};
use crate::structured_compactor::JsCompactor;
use crate::types::{self, JsonText, ParsedJson, json};
use crate::{Call, Failure, op, path_text};

type Handle = Core;

/// How similar two `MEMORY.md` lines' words must be for `check()` to report them as
/// `near_duplicate_topics` (the words they share over all the words either has, for lines
/// whose titles share a word; README "Formats"): the core's constant, 0.75.
///
/// ```js
/// const { NEAR_DUPLICATE_SIMILARITY } = require('memory-core')
/// NEAR_DUPLICATE_SIMILARITY // 0.75
/// ```
// Read only by the module registration napi generates (not built into unit tests).
#[allow(dead_code)]
#[napi]
pub const NEAR_DUPLICATE_SIMILARITY: f64 =
    memory_core::structured_memory::NEAR_DUPLICATE_SIMILARITY;

/// Options of `new StructuredMemory(dir, options)`.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`); a key whose value is
/// `undefined` is ignored.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct StructuredMemoryOptions {
    /// The line budget of `MEMORY.md` (default 60).
    pub index_lines: Option<f64>,
    /// The line budget of each topic file (default 150).
    pub topic_lines: Option<f64>,
    /// A byte budget for `MEMORY.md` (default none: lines only).
    pub index_bytes: Option<f64>,
    /// A byte budget for each topic file (default none: lines only).
    pub topic_bytes: Option<f64>,
    /// How long a write waits for the lock, in milliseconds (default 10000).
    pub lock_timeout_ms: Option<f64>,
    /// An RFC 3339 time: the clock stands still there ("today" and the relative dates a
    /// write converts are taken from it). Default: the system clock.
    pub fixed_time: Option<String>,
}

/// A budget: a whole number from 0.
fn budget(value: Option<f64>, name: &'static str) -> Arg<Option<usize>> {
    match value {
        None => Ok(None),
        Some(n)
            if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.007_199_254_740_991e15 =>
        {
            Ok(Some(n as usize))
        }
        Some(n) => Err(Failure::Core(Error::InvalidInput {
            what: name,
            value: args::number(n),
            message: "must be a whole number from 0".to_string(),
            session_id: None,
        })),
    }
}

/// A fact to write: `{ topic, text, subject?, date?, title?, hook?, section?, type? }`.
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct StructuredFact {
    /// The topic file, relative to the directory (`memory-infra.md`).
    pub topic: String,
    /// The fact (one paragraph).
    pub text: String,
    /// What it is about: an entry about the same subject is replaced (merge on write).
    pub subject: Option<String>,
    /// `YYYY-MM-DD` or a relative day (`today`, `yesterday`, `last monday`…), converted
    /// to an absolute date now, or a `Date`: its UTC calendar day (as `toISOString()`
    /// shows it, not the local day); when not given, the one past day the text names (`broke two days ago`), else today. A vague time is refused.
    #[napi(ts_type = "string | Date")]
    pub date: Option<String>,
    /// The title of a new topic's index line (from the file name when not given).
    pub title: Option<String>,
    /// The hook of a new topic's index line (required then), or a new hook.
    pub hook: Option<String>,
    /// The `##` section of the topic file the entry goes under (matched by its words,
    /// case folded; a new section at the end when there is none); above the first
    /// section when not given.
    pub section: Option<String>,
    /// The frontmatter `type` of a new topic file (`user`, `feedback`, `project`,
    /// `reference`…): the file starts with `name`, `description` and `type` (without it,
    /// with `name` and `description` when most linked topics keep frontmatter, as Claude
    /// Code's do); an existing topic must already have it.
    #[napi(js_name = "type")]
    pub kind: Option<String>,
}

fn fact(value: Unknown<'_>) -> Arg<Fact> {
    let object = args::object(value, "fact")?;
    args::known_keys(
        &object,
        "fact",
        &[
            "topic", "text", "subject", "date", "title", "hook", "section", "type",
        ],
        None,
    )?;
    let required = |key: &str, name: &'static str| -> Arg<String> {
        let value = args::field(&object, key)?
            .ok_or_else(|| Failure::Core(Error::argument(name, "is required")))?;
        args::text(value, name)
    };
    let mut fact = Fact::new(
        required("topic", "fact.topic")?,
        required("text", "fact.text")?,
    );
    fact.subject = args::opt_text(args::field(&object, "subject")?, "fact.subject")?;
    fact.date = day(args::field(&object, "date")?)?;
    fact.title = args::opt_text(args::field(&object, "title")?, "fact.title")?;
    fact.hook = args::opt_text(args::field(&object, "hook")?, "fact.hook")?;
    fact.section = args::opt_text(args::field(&object, "section")?, "fact.section")?;
    fact.kind = args::opt_text(args::field(&object, "type")?, "fact.type")?;
    Ok(fact)
}

/// `fact.date`: a string as given (the core reads it), or a `Date` as its UTC calendar
/// day (`YYYY-MM-DD` of `toISOString()`); `undefined`/`null` for today. An invalid `Date`
/// is refused.
fn day(value: Option<Unknown<'_>>) -> Arg<Option<String>> {
    let Some(value) = value else {
        return Ok(None);
    };
    if !matches!(value.get_type()?, ValueType::Object) || !value.is_date()? {
        return args::opt_text(Some(value), "fact.date");
    }
    // SAFETY: the value is a Date.
    let millis = unsafe { value.cast::<JsDate>() }?.value_of()?;
    let utc = (millis.is_finite() && millis.fract() == 0.0)
        .then(|| chrono::DateTime::from_timestamp_millis(millis as i64))
        .flatten()
        .ok_or_else(|| {
            Failure::Core(Error::InvalidInput {
                what: "fact.date",
                value: "Invalid Date".to_string(),
                message: "is an invalid Date".to_string(),
                session_id: None,
            })
        })?;
    Ok(Some(utc.date_naive().format("%Y-%m-%d").to_string()))
}

/// Options of `remember` (`{ compactor? }`) and `compact` (`{ compactor?, dryRun? }`).
#[allow(dead_code)]
#[napi(object, object_to_js = false)]
pub struct CompactOptions {
    /// The judgment calls: an object with any of `dead`, `collapse`, `summarize`, `split`,
    /// `routeContent`, `mergeTopics` (see `Compactor`; the others are the defaults), or
    /// one function answering a `CompactorRequest`. In `compactAsync` its functions may
    /// return Promises.
    #[napi(ts_type = "Compactor | CompactorFunction")]
    pub compactor: Option<()>,
    /// `compact` only: report what would move where, and write nothing.
    pub dry_run: Option<bool>,
}

/// The options object and its `compactor` property.
fn options<'env>(
    value: Option<Unknown<'env>>,
    keys: &[&str],
) -> Arg<(Option<Object<'env>>, Option<Unknown<'env>>)> {
    let Some(object) = args::opt_object(value, "options")? else {
        return Ok((None, None));
    };
    args::known_keys(&object, "options", keys, None)?;
    let compactor = args::field(&object, "compactor")?;
    Ok((Some(object), compactor))
}

fn dry_run(object: Option<&Object<'_>>) -> Arg<bool> {
    match object {
        Some(object) => {
            Ok(args::opt_bool(args::field(object, "dryRun")?, "options.dryRun")?.unwrap_or(false))
        }
        None => Ok(false),
    }
}

fn file(value: Option<Unknown<'_>>) -> Arg<Option<String>> {
    args::opt_text(value, "file")
}

/// A structured-memory directory (`./memory` by convention): `MEMORY.md`, an
/// always-loaded index of one-line pointers (`- [Title](file.md) — hook`, 60 lines), topic
/// files of dated entries (`- 2026-07-10 [subject]: text`, 150 lines each) loaded on
/// demand, and the append-only `memory-archive.md`. A write that takes a topic over its
/// budget compacts it; compaction archives before it rewrites and never truncates. Every
/// write holds the directory's cross-process lock and reads back what it wrote.
///
/// Results are plain objects in the shape `memcore topics --json` prints (snake_case
/// keys, `null` for absent values). Every operation has a sync form and a Promise form
/// (`…Async`, last argument `{ signal?: AbortSignal }`); both take a compactor (an object
/// of functions or one function, see `Compactor` and `CompactorFunction`), whose
/// functions may return Promises in the Promise forms. Errors are `MemoryCoreError`s; a
/// value a compactor function throws or rejects with is thrown (rejected with) as it is.
#[napi]
pub struct StructuredMemory {
    inner: Handle,
}

handle_helpers!(StructuredMemory, Handle);

#[napi]
impl StructuredMemory {
    /// Opens the directory `dir`, made absolute against the current directory now.
    /// Nothing is created until the first write.
    #[napi(
        constructor,
        ts_args_type = "dir: string, options?: StructuredMemoryOptions"
    )]
    pub fn new(env: Env, dir: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Self> {
        let open = || -> Arg<Self> {
            let dir = args::text(dir, "dir")?;
            let mut budgets = Budgets::default();
            let mut builder = Handle::builder(dir);
            if let Some(object) = args::opt_object(options, "options")? {
                args::known_keys(
                    &object,
                    "options",
                    &[
                        "indexLines",
                        "topicLines",
                        "indexBytes",
                        "topicBytes",
                        "lockTimeoutMs",
                        "fixedTime",
                    ],
                    None,
                )?;
                let number = |key: &str, name: &'static str| -> Arg<Option<f64>> {
                    args::opt_number(args::field(&object, key)?, name)
                };
                if let Some(lines) = budget(
                    number("indexLines", "options.indexLines")?,
                    "options.indexLines",
                )? {
                    budgets = budgets.index_lines(lines);
                }
                if let Some(lines) = budget(
                    number("topicLines", "options.topicLines")?,
                    "options.topicLines",
                )? {
                    budgets = budgets.topic_lines(lines);
                }
                budgets = budgets
                    .index_bytes(budget(
                        number("indexBytes", "options.indexBytes")?,
                        "options.indexBytes",
                    )?)
                    .topic_bytes(budget(
                        number("topicBytes", "options.topicBytes")?,
                        "options.topicBytes",
                    )?);
                if let Some(ms) = number("lockTimeoutMs", "options.lockTimeoutMs")? {
                    builder = builder.lock_timeout(types::lock_timeout(ms)?);
                }
                let time = args::opt_text(args::field(&object, "fixedTime")?, "options.fixedTime")?;
                if let Some(time) = time {
                    builder = builder.fixed_time(&time)?;
                }
            }
            Ok(StructuredMemory {
                inner: builder.budgets(budgets).open()?,
            })
        };
        open().map_err(|failure| failure.into_js(&env))
    }

    /// The directory (absolute).
    #[napi(getter)]
    pub fn root(&self) -> String {
        path_text(self.inner.root().to_path_buf())
    }

    /// The longest wait for the lock, in milliseconds (`lockTimeoutMs`, default 10000).
    #[napi(getter)]
    pub fn lock_timeout_ms(&self) -> f64 {
        self.inner.lock_timeout().as_secs_f64() * 1000.0
    }

    /// The budgets the directory is held to (a new object on every read).
    #[napi(getter, ts_return_type = "Budgets")]
    pub fn budgets(&self, env: Env) -> Result<ParsedJson> {
        self.sync(&env, |m| Ok(ParsedJson(json(&m.budgets())?)))
    }

    /// Writes one fact (see `StructuredFact`): an entry about the same subject is
    /// replaced and archived, a new topic file is linked from `MEMORY.md`, and a write
    /// that takes the topic over its budget compacts it with `options.compactor`.
    /// `ERR_MEMORY_INVALID_INPUT` for a vague date, an empty text, a `misc` topic, a
    /// reserved file, a new topic without a hook, or a secret (`field`, `secretKind`).
    #[napi(
        ts_args_type = "fact: StructuredFact, options?: RememberOptions",
        ts_return_type = "RememberOutcome"
    )]
    pub fn remember(
        &self,
        env: Env,
        fact: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<JsonText> {
        self.sync(&env, |m| {
            let fact = self::fact(fact)?;
            let (_, compactor) = self::options(options, &["compactor"])?;
            let compactor = JsCompactor::read(compactor, "options.compactor")?;
            let outcome = match &compactor {
                Some(c) => m.remember_with(fact, c),
                None => m.remember(fact),
            }
            .map_err(|e| JsCompactor::failed(compactor.as_ref(), e))?;
            json(&outcome)
        })
    }

    /// Promise form of `remember`. The compactor's functions are called on the JS thread
    /// while the write waits on a worker; each may return its answer or a Promise of it.
    /// A function that throws or rejects aborts the write (nothing is written) and the
    /// Promise rejects with that very value.
    #[napi(
        ts_args_type = "fact: StructuredFact, options?: RememberOptions, asyncOptions?: AsyncOptions",
        ts_return_type = "Promise<RememberOutcome>"
    )]
    pub fn remember_async(
        &self,
        env: Env,
        fact: Unknown<'_>,
        options: Option<Unknown<'_>>,
        async_options: Option<Unknown<'_>>,
    ) -> Result<AsyncTask<Call<JsonText, Handle>>> {
        self.attempt(&env, async_options, || {
            let fact = self::fact(fact)?;
            let (_, compactor) = self::options(options, &["compactor"])?;
            let compactor = JsCompactor::read_async(compactor, "options.compactor")?;
            Ok(op(move |m: &Handle| {
                json(&match &compactor {
                    Some(c) => m.remember_with(fact, c)?,
                    None => m.remember(fact)?,
                })
            }))
        })
    }

    /// Compacts topic file `file` (or, when `null`/`undefined`, every linked topic file
    /// over its budget) with `options.compactor` for the judgment calls. Every entry a
    /// pass removes is in `memory-archive.md` (under the report's `id`, for `restore`) in
    /// the same step as the rewrite; with `dryRun` nothing is written. A compactor
    /// function that throws aborts it (nothing written) and its error is thrown again as
    /// it is; an unusable result (an entry it was not given, one twice, a wrong type) is
    /// `ERR_MEMORY_ABORTED`.
    #[napi(
        ts_args_type = "file?: string | null, options?: CompactOptions",
        ts_return_type = "CompactionReport"
    )]
    pub fn compact(
        &self,
        env: Env,
        file: Option<Unknown<'_>>,
        options: Option<Unknown<'_>>,
    ) -> Result<JsonText> {
        self.sync(&env, |m| {
            let file = self::file(file)?;
            let (object, compactor) = self::options(options, &["compactor", "dryRun"])?;
            let dry_run = self::dry_run(object.as_ref())?;
            let compactor = JsCompactor::read(compactor, "options.compactor")?;
            let report = match &compactor {
                Some(c) => m.compact(file.as_deref(), c, dry_run),
                None => m.compact(file.as_deref(), &DefaultCompactor, dry_run),
            }
            .map_err(|e| JsCompactor::failed(compactor.as_ref(), e))?;
            json(&report)
        })
    }

    /// Promise form of `compact`. The compactor's functions are called on the JS thread
    /// while the compaction waits on a worker; each may return its answer or a Promise of
    /// it. A function that throws or rejects aborts the compaction (nothing is written)
    /// and the Promise rejects with that very value.
    #[napi(
        ts_args_type = "file?: string | null, options?: CompactOptions, asyncOptions?: AsyncOptions",
        ts_return_type = "Promise<CompactionReport>"
    )]
    pub fn compact_async(
        &self,
        env: Env,
        file: Option<Unknown<'_>>,
        options: Option<Unknown<'_>>,
        async_options: Option<Unknown<'_>>,
    ) -> Result<AsyncTask<Call<JsonText, Handle>>> {
        self.attempt(&env, async_options, || {
            let file = self::file(file)?;
            let (object, compactor) = self::options(options, &["compactor", "dryRun"])?;
            let dry_run = self::dry_run(object.as_ref())?;
            let compactor = JsCompactor::read_async(compactor, "options.compactor")?;
            Ok(op(move |m: &Handle| {
                json(&match &compactor {
                    Some(c) => m.compact(file.as_deref(), c, dry_run)?,
                    None => m.compact(file.as_deref(), &DefaultCompactor, dry_run)?,
                })
            }))
        })
    }
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " `MEMORY.md` read whole: its pointer lines, the content lines that are not"]
    #[doc = " pointers, the unusable links, its size and budget use (empty before the first write)."]
    #[napi(ts_return_type = "MemoryIndex")]
    fn index() -> JsonText;
    #[doc = " Promise form of `index`."]
    #[napi(ts_args_type = "options?: AsyncOptions", ts_return_type = "Promise<MemoryIndex>")]
    fn index_async(.., options);
    convert {}
    call(|m| json(&m.index()?))
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " `MEMORY.md` for a session start (a SessionStart hook): `text` (the file whole),"]
    #[doc = " `budget`, `damaged` (why it does not read, with `path` and `line`; null when it reads),"]
    #[doc = " `index` (null when it does not read) and `warnings` (what a hook prints on stderr)."]
    #[doc = " A comment or fence never closed does not throw, so a session never loses its index."]
    #[napi(ts_return_type = "SessionIndex")]
    fn session_index() -> JsonText;
    #[doc = " Promise form of `sessionIndex`."]
    #[napi(ts_args_type = "options?: AsyncOptions", ts_return_type = "Promise<SessionIndex>")]
    fn session_index_async(.., options);
    convert {}
    call(|m| json(&m.session_index()?))
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " Topic file `file` read whole, its `text` and `body` (the text after the frontmatter)"]
    #[doc = " included (`ERR_MEMORY_NOT_FOUND` when it does not exist)."]
    #[napi(ts_args_type = "file: string", ts_return_type = "Topic")]
    fn topic(file: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `topic`."]
    #[napi(ts_args_type = "file: string, options?: AsyncOptions", ts_return_type = "Promise<Topic>")]
    fn topic_async(.., options);
    convert {
        let file = args::text(file, "file")?;
    }
    call(|m| json(&m.topic(&file)?))
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " The index lines whose title or hook match `query`, best first (only `MEMORY.md` is read)."]
    #[doc = " What `memcore topics recall` says on stderr is emitted with `process.emitWarning` as a"]
    #[doc = " `MemoryCoreWarning` (code `MEMCORE_RECALL_WARNING`, with `path`, the `MEMORY.md` path,"]
    #[doc = " and `line`): `MEMORY.md` read through a symbolic link (`line` 0), and each hit whose"]
    #[doc = " topic file does not exist (`line` its index line; the hit is kept, `topic` will not"]
    #[doc = " find it). `recallWithWarnings` returns them instead."]
    #[napi(ts_args_type = "query: string", ts_return_type = "Array<RecallHit>")]
    fn recall(query: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `recall`."]
    #[napi(
        ts_args_type = "query: string, options?: AsyncOptions",
        ts_return_type = "Promise<Array<RecallHit>>"
    )]
    fn recall_async(.., options);
    convert {
        let query = args::text(query, "query")?;
    }
    // The whole answer, with the path and line each warning names: `index.js` emits the
    // warnings and returns the hits.
    call(|m| recalled(m, &query, true))
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " `recall` with its warnings returned rather than emitted: `hits` (best first) and"]
    #[doc = " `warnings` (what `memcore topics recall` prints on stderr: `MEMORY.md` read through a"]
    #[doc = " symbolic link; `MEMORY.md line N links F, which does not exist` for a hit whose topic"]
    #[doc = " file is missing). Nothing is emitted with `process.emitWarning`."]
    #[napi(ts_args_type = "query: string", ts_return_type = "RecallAnswer")]
    fn recall_with_warnings(query: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `recallWithWarnings`."]
    #[napi(
        ts_args_type = "query: string, options?: AsyncOptions",
        ts_return_type = "Promise<RecallAnswer>"
    )]
    fn recall_with_warnings_async(.., options);
    convert {
        let query = args::text(query, "query")?;
    }
    call(|m| recalled(m, &query, false))
}

/// What the native `recall` forms return: the hits and the warnings — their messages, or
/// (`with_lines`, for the form whose warnings `index.js` emits) each `{path, line,
/// message}` (`path` the `MEMORY.md` path, `line` the index line, 0 for the whole file).
fn recalled(memory: &Handle, query: &str, with_lines: bool) -> args::Arg<JsonText> {
    #[derive(serde::Serialize)]
    struct Located {
        path: String,
        line: usize,
        message: String,
    }
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Warnings {
        Messages(Vec<String>),
        Located(Vec<Located>),
    }
    #[derive(serde::Serialize)]
    struct Recalled {
        hits: Vec<memory_core::structured_memory::RecallHit>,
        warnings: Warnings,
    }
    let (hits, warnings) = memory.recall_with_warnings(query)?;
    let warnings = if with_lines {
        Warnings::Located(
            warnings
                .into_iter()
                .map(|w| Located {
                    path: path_text(w.path),
                    line: w.line,
                    message: w.message,
                })
                .collect(),
        )
    } else {
        Warnings::Messages(warnings.into_iter().map(|w| w.message).collect())
    };
    json(&Recalled { hits, warnings })
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " Every way the directory breaks the protocol, in file and line order; writes nothing."]
    #[napi(ts_return_type = "Array<Violation>")]
    fn check() -> JsonText;
    #[doc = " Promise form of `check`."]
    #[napi(ts_args_type = "options?: AsyncOptions", ts_return_type = "Promise<Array<Violation>>")]
    fn check_async(.., options);
    convert {}
    call(|m| json(&m.check()?))
}

paired! {
    in StructuredMemory(Handle);
    #[doc = " Puts back every entry archived under `id` (a compaction's `id`, a write's"]
    #[doc = " `archive_id`) at the end of its file; lines already there are not added twice."]
    #[doc = " `ERR_MEMORY_NOT_FOUND` when the archive has no section `id`."]
    #[napi(ts_args_type = "id: string", ts_return_type = "RestoreReport")]
    fn restore(id: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `restore`."]
    #[napi(ts_args_type = "id: string, options?: AsyncOptions", ts_return_type = "Promise<RestoreReport>")]
    fn restore_async(.., options);
    convert {
        let id = args::text(id, "id")?;
    }
    call(|m| json(&m.restore(&id)?))
}
