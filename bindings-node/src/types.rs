//! The plain JS objects the binding accepts and returns, and their conversions to and
//! from the core's types. Conversions only: no defaults or rules beyond the core's own.
//!
//! Arguments are read property by property ([`crate::args`]), so that a wrong type names
//! its property. Results are serialized to JSON text with serde (`null` for every absent
//! value, as in Rust and Python) and parsed by the entry module `index.js`: one
//! `JSON.parse` builds the objects several times faster than setting their properties
//! one by one through napi. The `#[napi(object)]` declarations give `index.d.ts` its
//! interfaces.

use std::path::Path;
use std::time::Duration;

use memory_core::agent_memory::OtherSection as CoreOtherSection;
use napi::bindgen_prelude::Unknown;
use napi_derive::napi;
use serde::Serialize;

use crate::args::{self, Arg};

/// Options of `new AgentMemory(root, options)`.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`, e.g. `options.lockTimeout: unknown
/// option`); a key whose value is `undefined` is ignored, as when spreading defaults.
#[napi(object, object_to_js = false, js_name = "AgentMemoryOptions")]
#[derive(Default)]
pub struct AgentMemoryOptions {
    /// How long a write waits for the memory lock before failing with
    /// `ERR_MEMORY_LOCK_TIMEOUT`, in milliseconds (default 10000): any finite number
    /// from 0; one beyond what the wait can hold (about 5.8e14 years) is the longest
    /// wait, which never times out in practice.
    pub lock_timeout_ms: Option<f64>,
    /// An RFC 3339 time with offset (e.g. `2026-05-25T13:18:00+08:00`): the clock stands
    /// still at that time for every timestamp and id this handle writes (reproducible runs
    /// and tests). Default: the system clock.
    pub fixed_time: Option<String>,
}

impl AgentMemoryOptions {
    /// Reads the options object (`undefined`/`null` for none).
    pub fn read(value: Option<Unknown<'_>>) -> Arg<Self> {
        let Some(object) = args::opt_object(value, "options")? else {
            return Ok(Self::default());
        };
        args::known_keys(&object, "options", &["lockTimeoutMs", "fixedTime"], None)?;
        Ok(AgentMemoryOptions {
            lock_timeout_ms: args::opt_number(
                args::field(&object, "lockTimeoutMs")?,
                "options.lockTimeoutMs",
            )?,
            fixed_time: args::opt_text(args::field(&object, "fixedTime")?, "options.fixedTime")?,
        })
    }
}

/// The last argument of every `…Async` method. Declared for `index.d.ts` only: the
/// methods read it with [`args::aborted`] and `index.js` reads `signal` itself.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`, e.g. `options.sigal: unknown
/// option`); a key whose value is `undefined` is ignored, as when spreading defaults.
#[allow(dead_code)]
#[napi(object, object_to_js = false, js_name = "AsyncOptions")]
pub struct AsyncOptions {
    /// Stops waiting for the memory lock when it fires: the Promise rejects with an
    /// `AbortError` (`code` `ERR_MEMORY_ABORTED`, `cause` the signal's reason) and
    /// nothing is written. A write already running when it fires completes, except one
    /// waiting on a compactor function (`StructuredMemory.compactAsync`/`rememberAsync`):
    /// it stops at once, even if that function's Promise never settles, and writes nothing.
    #[napi(ts_type = "AbortSignal")]
    pub signal: Option<()>,
}

/// Converts `lockTimeoutMs` (a JS number) to a duration; a negative, infinite or NaN
/// number is an invalid input. A finite wait longer than a `Duration` holds (about
/// 5.8e14 years) becomes the longest one: it never times out in practice.
pub fn lock_timeout(ms: f64) -> memory_core::Result<Duration> {
    memory_core::durable::lock_wait_from_secs(ms / 1000.0).ok_or_else(|| {
        memory_core::Error::InvalidInput {
            what: "lockTimeoutMs",
            value: args::number(ms),
            message: "must be a finite number of milliseconds, at least 0".to_string(),
            session_id: None,
        }
    })
}

/// A session's lifecycle status.
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Registered, no meaningful work yet (SessionStart).
    Idle,
    /// Real work in progress or recently updated.
    Active,
    /// Had real content, not updated for a long time.
    Stale,
}

impl From<memory_core::Status> for Status {
    fn from(status: memory_core::Status) -> Self {
        match status {
            memory_core::Status::Idle => Status::Idle,
            memory_core::Status::Active => Status::Active,
            memory_core::Status::Stale => Status::Stale,
        }
    }
}

/// The marking that keeps an outdated snapshot item instead of dropping it.
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// A decision that was reversed or replaced (`[superseded]`).
    Superseded,
    /// A question that was answered (`[resolved]`).
    Resolved,
    /// An action that was completed (`[done]`).
    Done,
}

impl From<memory_core::Mark> for Mark {
    fn from(mark: memory_core::Mark) -> Self {
        match mark {
            memory_core::Mark::Superseded => Mark::Superseded,
            memory_core::Mark::Resolved => Mark::Resolved,
            memory_core::Mark::Done => Mark::Done,
        }
    }
}

/// What manual registration records: the row's topic and summary and the first
/// snapshot's content.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`, e.g. `registration.topc: unknown
/// option`); a key whose value is `undefined` is ignored, as when spreading defaults.
#[napi(object, object_to_js = false, js_name = "ManualRegistration")]
pub struct ManualRegistration {
    /// The stable agent name, e.g. `cursor-main-agent`.
    pub agent_name: String,
    /// The topic (`未設定` when empty).
    pub topic: String,
    /// One or two sentences of what the session did.
    pub summary: String,
    /// Keywords (the protocol's manual-registration defaults when omitted).
    pub keywords: Option<Vec<String>>,
    /// The snapshot's Current Context (defaults to the summary).
    pub context: Option<String>,
    /// Decisions.
    pub decisions: Option<Vec<String>>,
    /// Files or artifacts.
    pub files: Option<Vec<String>>,
    /// Open questions.
    pub open_questions: Option<Vec<String>>,
    /// Next actions.
    pub next_actions: Option<Vec<String>>,
    /// Session ids this session continues from (their `referencedBy` is updated too).
    pub continues_from: Option<Vec<String>>,
}

impl ManualRegistration {
    /// Reads the registration object.
    pub fn read(value: Unknown<'_>) -> Arg<Self> {
        let o = args::object(value, "registration")?;
        args::known_keys(
            &o,
            "registration",
            &[
                "agentName",
                "topic",
                "summary",
                "keywords",
                "context",
                "decisions",
                "files",
                "openQuestions",
                "nextActions",
                "continuesFrom",
            ],
            Some("registerManualAsync"),
        )?;
        let f = |key| args::field(&o, key);
        Ok(ManualRegistration {
            agent_name: args::text(
                required(f("agentName")?, "registration.agentName")?,
                "registration.agentName",
            )?,
            topic: args::text(
                required(f("topic")?, "registration.topic")?,
                "registration.topic",
            )?,
            summary: args::text(
                required(f("summary")?, "registration.summary")?,
                "registration.summary",
            )?,
            keywords: args::opt_texts(f("keywords")?, "registration.keywords")?,
            context: args::opt_text(f("context")?, "registration.context")?,
            decisions: args::opt_texts(f("decisions")?, "registration.decisions")?,
            files: args::opt_texts(f("files")?, "registration.files")?,
            open_questions: args::opt_texts(f("openQuestions")?, "registration.openQuestions")?,
            next_actions: args::opt_texts(f("nextActions")?, "registration.nextActions")?,
            continues_from: args::opt_texts(f("continuesFrom")?, "registration.continuesFrom")?,
        })
    }
}

/// A property that must be there.
fn required<'env>(value: Option<Unknown<'env>>, name: &'static str) -> Arg<Unknown<'env>> {
    value.ok_or_else(|| {
        crate::Failure::Core(memory_core::Error::argument(
            name,
            "is missing (expected a string)".to_string(),
        ))
    })
}

impl From<ManualRegistration> for memory_core::ManualRegistration {
    fn from(js: ManualRegistration) -> Self {
        let mut registration =
            memory_core::ManualRegistration::new(js.agent_name, js.topic, js.summary);
        registration.keywords = js.keywords;
        registration.snapshot.context = js.context;
        registration.snapshot.decisions = js.decisions.unwrap_or_default();
        registration.snapshot.files = js.files.unwrap_or_default();
        registration.snapshot.open_questions = js.open_questions.unwrap_or_default();
        registration.snapshot.next_actions = js.next_actions.unwrap_or_default();
        registration.continues_from = js.continues_from.unwrap_or_default();
        registration
    }
}

/// What a status update records. Omitted fields leave the session as it is; lists add
/// to the snapshot, and `supersede` / `resolve` / `done` mark existing items.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`, e.g. `update.topc: unknown
/// option`); a key whose value is `undefined` is ignored, as when spreading defaults.
#[napi(object, object_to_js = false, js_name = "SessionUpdate")]
#[derive(Default)]
pub struct SessionUpdate {
    /// New topic.
    pub topic: Option<String>,
    /// New summary.
    pub summary: Option<String>,
    /// New keywords (replacing the old list).
    pub keywords: Option<Vec<String>>,
    /// Latest progress, added to Current Context.
    pub context: Option<String>,
    /// Decisions to append.
    pub decisions: Option<Vec<String>>,
    /// Files or artifacts to add.
    pub files: Option<Vec<String>>,
    /// Open questions to append.
    pub open_questions: Option<Vec<String>>,
    /// Next actions to append.
    pub next_actions: Option<Vec<String>>,
    /// Existing decisions to mark `[superseded]` (exact text, else a unique substring).
    pub supersede: Option<Vec<String>>,
    /// Existing open questions to mark `[resolved]`.
    pub resolve: Option<Vec<String>>,
    /// Existing next actions to mark `[done]`.
    pub done: Option<Vec<String>>,
}

impl SessionUpdate {
    /// Reads the update object (`undefined`/`null` for an empty update).
    pub fn read(value: Option<Unknown<'_>>) -> Arg<Self> {
        let Some(o) = args::opt_object(value, "update")? else {
            return Ok(SessionUpdate::default());
        };
        args::known_keys(
            &o,
            "update",
            &[
                "topic",
                "summary",
                "keywords",
                "context",
                "decisions",
                "files",
                "openQuestions",
                "nextActions",
                "supersede",
                "resolve",
                "done",
            ],
            Some("updateAsync"),
        )?;
        let f = |key| args::field(&o, key);
        Ok(SessionUpdate {
            topic: args::opt_text(f("topic")?, "update.topic")?,
            summary: args::opt_text(f("summary")?, "update.summary")?,
            keywords: args::opt_texts(f("keywords")?, "update.keywords")?,
            context: args::opt_text(f("context")?, "update.context")?,
            decisions: Some(args::list(f("decisions")?, "update.decisions")?),
            files: Some(args::list(f("files")?, "update.files")?),
            open_questions: Some(args::list(f("openQuestions")?, "update.openQuestions")?),
            next_actions: Some(args::list(f("nextActions")?, "update.nextActions")?),
            supersede: Some(args::list(f("supersede")?, "update.supersede")?),
            resolve: Some(args::list(f("resolve")?, "update.resolve")?),
            done: Some(args::list(f("done")?, "update.done")?),
        })
    }
}

impl From<SessionUpdate> for memory_core::SessionUpdate {
    fn from(js: SessionUpdate) -> Self {
        let mut update = memory_core::SessionUpdate::new();
        update.topic = js.topic;
        update.summary = js.summary;
        update.keywords = js.keywords;
        update.context = js.context;
        update.decisions = js.decisions.unwrap_or_default();
        update.files = js.files.unwrap_or_default();
        update.open_questions = js.open_questions.unwrap_or_default();
        update.next_actions = js.next_actions.unwrap_or_default();
        update.supersede = js.supersede.unwrap_or_default();
        update.resolve = js.resolve.unwrap_or_default();
        update.done = js.done.unwrap_or_default();
        update
    }
}

/// Options of `organize`.
///
/// A key it does not know is refused (`ERR_MEMORY_INVALID_INPUT`, e.g. `organize.dryrun: unknown
/// option`); a key whose value is `undefined` is ignored, as when spreading defaults.
#[napi(object, object_to_js = false, js_name = "OrganizeOptions")]
pub struct OrganizeOptions {
    /// An `active` row not updated for more than this many days becomes `stale`
    /// (default 14).
    pub stale_after_days: Option<f64>,
    /// Report what would change without writing (default false).
    pub dry_run: Option<bool>,
}

/// Converts the JS options (omitted ones keep the core's defaults); `staleAfterDays`
/// must be a whole number that fits `u32`.
pub fn organize_options(value: Option<Unknown<'_>>) -> Arg<memory_core::OrganizeOptions> {
    let mut options = memory_core::OrganizeOptions::default();
    let Some(o) = args::opt_object(value, "organize")? else {
        return Ok(options);
    };
    args::known_keys(
        &o,
        "organize",
        &["staleAfterDays", "dryRun"],
        Some("organizeAsync"),
    )?;
    let js = OrganizeOptions {
        stale_after_days: args::opt_number(
            args::field(&o, "staleAfterDays")?,
            "organize.staleAfterDays",
        )?,
        dry_run: args::opt_bool(args::field(&o, "dryRun")?, "organize.dryRun")?,
    };
    if let Some(days) = js.stale_after_days {
        if days.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&days) {
            return Err(memory_core::Error::InvalidInput {
                what: "staleAfterDays",
                value: args::number(days),
                message: format!("must be a whole number from 0 to {}", u32::MAX),
                session_id: None,
            }
            .into());
        }
        options.stale_after_days = days as u32;
    }
    if let Some(dry_run) = js.dry_run {
        options.dry_run = dry_run;
    }
    Ok(options)
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn ids(ids: Vec<memory_core::SessionId>) -> Vec<String> {
    ids.into_iter().map(|id| id.to_string()).collect()
}

/// One session as the index records it.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "SessionRow"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRow {
    /// The Memory Session ID.
    pub session_id: String,
    /// The stable agent name.
    pub agent_name: String,
    /// What the session is about (`未設定` until known).
    pub topic: String,
    /// One or two sentences other agents read to judge relevance.
    pub summary: String,
    /// The keywords.
    pub keywords: Vec<String>,
    /// Lifecycle status.
    pub status: Status,
    /// Session ids currently continuing from this session.
    pub referenced_by: Vec<String>,
    /// When the session was registered, as written in the index.
    pub started_at: String,
    /// When meaningful work was last recorded, as written in the index.
    pub updated_at: String,
}

impl From<memory_core::SessionRow> for SessionRow {
    fn from(row: memory_core::SessionRow) -> Self {
        SessionRow {
            session_id: row.session_id.to_string(),
            agent_name: row.agent_name,
            topic: row.topic,
            summary: row.summary,
            keywords: row.keywords,
            status: row.status.into(),
            referenced_by: ids(row.referenced_by),
            started_at: row.started_at.to_string(),
            updated_at: row.updated_at.to_string(),
        }
    }
}

/// A result as the JSON text the entry module parses: ASCII only (every other character
/// is a `\\uXXXX` escape), so that it becomes a one-byte JS string with a plain copy
/// (`napi_create_string_latin1`) and `JSON.parse` takes its fast path, instead of a UTF-8
/// decode into a two-byte string.
pub struct JsonText(Vec<u8>);

/// Serializes `value` as [`JsonText`].
pub fn json<T: Serialize>(value: &T) -> Arg<JsonText> {
    let mut out = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, AsciiFormatter);
    value.serialize(&mut serializer).map_err(|e| {
        crate::Failure::Binding(napi::Error::from_reason(format!(
            "could not serialize a result: {e}"
        )))
    })?;
    Ok(JsonText(out))
}

/// serde_json's compact output with non-ASCII characters escaped.
struct AsciiFormatter;

impl serde_json::ser::Formatter for AsciiFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut plain = 0;
        for (at, c) in fragment.char_indices() {
            if !c.is_ascii() {
                writer.write_all(&fragment.as_bytes()[plain..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                plain = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[plain..])
    }
}

impl napi::bindgen_prelude::TypeName for JsonText {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::String
    }
}

impl napi::bindgen_prelude::ToNapiValue for JsonText {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        let mut out = std::ptr::null_mut();
        // SAFETY: `env` is the live env napi passed in; the bytes are ASCII (so valid
        // Latin-1) and outlive the call, which copies them into the JS heap.
        let status = unsafe {
            napi::sys::napi_create_string_latin1(
                env,
                value.0.as_ptr().cast(),
                value.0.len() as isize,
                &mut out,
            )
        };
        if status == napi::sys::Status::napi_ok {
            Ok(out)
        } else {
            Err(napi::Error::from_reason(
                "could not create the result string",
            ))
        }
    }
}

/// A result that reaches JavaScript as the object its [`JsonText`] describes, parsed by
/// the engine's own `JSON.parse` while converting: for the static functions of
/// `ContextMemory`, whose non-writable properties `index.js` cannot wrap (the methods'
/// JSON text is parsed there instead).
pub struct ParsedJson(pub JsonText);

impl napi::bindgen_prelude::TypeName for ParsedJson {
    fn type_name() -> &'static str {
        "Object"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::Object
    }
}

impl napi::bindgen_prelude::ToNapiValue for ParsedJson {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        use napi::sys;
        let failed = || napi::Error::from_reason("could not parse the result");
        // SAFETY: `env` is the live env napi passed in, on the JS thread; every handle is
        // one this call just received from the engine, used within this scope.
        unsafe {
            let text = JsonText::to_napi_value(env, value.0)?;
            let mut global = std::ptr::null_mut();
            let mut json = std::ptr::null_mut();
            let mut parse = std::ptr::null_mut();
            let mut out = std::ptr::null_mut();
            let ok = sys::napi_get_global(env, &mut global) == sys::Status::napi_ok
                && sys::napi_get_named_property(env, global, c"JSON".as_ptr(), &mut json)
                    == sys::Status::napi_ok
                && sys::napi_get_named_property(env, json, c"parse".as_ptr(), &mut parse)
                    == sys::Status::napi_ok
                && sys::napi_call_function(env, json, parse, 1, &text, &mut out)
                    == sys::Status::napi_ok;
            if ok { Ok(out) } else { Err(failed()) }
        }
    }
}

/// One entry of a list section of a snapshot.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "SnapshotItem"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotItem {
    /// The text without bullet and marking.
    pub text: String,
    /// The marking of an outdated item, `null` for a current one.
    pub mark: Option<Mark>,
}

fn items(items: Vec<memory_core::SnapshotItem>) -> Vec<SnapshotItem> {
    items
        .into_iter()
        .map(|item| SnapshotItem {
            text: item.text,
            mark: item.mark.map(Mark::from),
        })
        .collect()
}

/// A snapshot section the template does not define, kept verbatim.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "OtherSection"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherSection {
    /// The heading text after `## `.
    pub heading: String,
    /// The body, trimmed of blank lines.
    pub body: String,
}

impl From<CoreOtherSection> for OtherSection {
    fn from(section: CoreOtherSection) -> Self {
        OtherSection {
            heading: section.heading,
            body: section.body,
        }
    }
}

/// The typed content of a session snapshot (`sessions/<id>.md`).
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "Snapshot"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Metadata `Session ID`.
    pub session_id: String,
    /// Metadata `Agent Name`.
    pub agent_name: String,
    /// Metadata `Topic`.
    pub topic: String,
    /// Metadata `Status`, as written.
    pub status: String,
    /// Metadata `Started At`.
    pub started_at: String,
    /// Metadata `Updated At`.
    pub updated_at: String,
    /// `## Current Context` (empty when it holds only the template's prompt).
    pub current_context: String,
    /// `## Decisions`.
    pub decisions: Vec<SnapshotItem>,
    /// `## Files / Artifacts`.
    pub files: Vec<SnapshotItem>,
    /// `## Open Questions`.
    pub open_questions: Vec<SnapshotItem>,
    /// `## Next Actions`.
    pub next_actions: Vec<SnapshotItem>,
    /// `## Continues From`: source session ids.
    pub continues_from: Vec<String>,
    /// `## Superseded / Resolved`.
    pub superseded_resolved: Vec<SnapshotItem>,
    /// Sections the template does not define, kept verbatim.
    pub other_sections: Vec<OtherSection>,
}

impl From<memory_core::Snapshot> for Snapshot {
    fn from(snapshot: memory_core::Snapshot) -> Self {
        Snapshot {
            session_id: snapshot.session_id,
            agent_name: snapshot.agent_name,
            topic: snapshot.topic,
            status: snapshot.status,
            started_at: snapshot.started_at,
            updated_at: snapshot.updated_at,
            current_context: snapshot.current_context,
            decisions: items(snapshot.decisions),
            files: items(snapshot.files),
            open_questions: items(snapshot.open_questions),
            next_actions: items(snapshot.next_actions),
            continues_from: ids(snapshot.continues_from),
            superseded_resolved: items(snapshot.superseded_resolved),
            other_sections: snapshot
                .other_sections
                .into_iter()
                .map(OtherSection::from)
                .collect(),
        }
    }
}

/// The result of `continueFrom`: both rows after the verified write.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "ContinueOutcome"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueOutcome {
    /// The continuing session (now `active`).
    pub current: SessionRow,
    /// The source session (only its `referencedBy` changed).
    pub source: SessionRow,
}

impl From<memory_core::ContinueOutcome> for ContinueOutcome {
    fn from(outcome: memory_core::ContinueOutcome) -> Self {
        ContinueOutcome {
            current: outcome.current.into(),
            source: outcome.source.into(),
        }
    }
}

/// The result of `release`: which side held the link.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "ReleaseOutcome"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseOutcome {
    /// The referencing session.
    pub current: String,
    /// The source session.
    pub source: String,
    /// Whether the source row's `Referenced By` listed `current` and was updated.
    pub referenced_by_updated: bool,
    /// Whether the current snapshot's `Continues From` listed `source` and was updated.
    pub continues_from_updated: bool,
}

impl From<memory_core::ReleaseOutcome> for ReleaseOutcome {
    fn from(outcome: memory_core::ReleaseOutcome) -> Self {
        ReleaseOutcome {
            current: outcome.current.to_string(),
            source: outcome.source.to_string(),
            referenced_by_updated: outcome.referenced_by_updated,
            continues_from_updated: outcome.continues_from_updated,
        }
    }
}

/// A problem in a file that did not stop the call (`path:line: message` as text).
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "WarningRecord"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WarningRecord {
    /// The file concerned.
    pub path: String,
    /// The 1-based line (0 when it concerns the whole file).
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl From<memory_core::Warning> for WarningRecord {
    fn from(warning: memory_core::Warning) -> Self {
        WarningRecord {
            path: path_text(&warning.path),
            // A line past u32::MAX (over four billion lines) saturates rather than wraps.
            line: u32::try_from(warning.line).unwrap_or(u32::MAX),
            message: warning.message,
        }
    }
}

fn warnings(warnings: Vec<memory_core::Warning>) -> Vec<WarningRecord> {
    warnings.into_iter().map(WarningRecord::from).collect()
}

fn paths(paths: &[std::path::PathBuf]) -> Vec<String> {
    paths.iter().map(|p| path_text(p)).collect()
}

/// What `registerSessionStartWithWarnings` did: the new session, verified, and the rows
/// of other sessions it could not read and left byte-identical.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "SessionStart"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStart {
    /// The new Memory Session ID.
    pub session_id: String,
    /// Rows of `index.md` that could not be read (bad status, timestamp, id or cell
    /// count, a duplicate id), each naming the file and line.
    pub warnings: Vec<WarningRecord>,
}

impl From<memory_core::SessionStart> for SessionStart {
    fn from(start: memory_core::SessionStart) -> Self {
        SessionStart {
            session_id: start.session_id.to_string(),
            warnings: warnings(start.warnings),
        }
    }
}

/// What `organize` did (or, with `dryRun`, would do).
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "OrganizeReport"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrganizeReport {
    /// `idle` rows deleted from the index.
    pub deleted_idle: Vec<String>,
    /// `active` rows marked `stale` (their `updatedAt` kept).
    pub marked_stale: Vec<String>,
    /// `active` rows kept as they are.
    pub kept_active: Vec<String>,
    /// Rows left untouched because another session references them.
    pub protected: Vec<String>,
    /// Temp files of memory-core writers that died mid-write, found anywhere under the
    /// root and removed (with `dryRun`, they would be).
    pub removed_temp_files: Vec<String>,
    /// Snapshot files (`sessions/<id>.md`) whose session has no row in the index:
    /// reported, never deleted.
    pub orphan_snapshots: Vec<String>,
    /// Temp, swap and conflict files of other programs (editors, sync clients) under the
    /// root: reported, never deleted.
    pub leftover_files: Vec<String>,
    /// Snapshots of other sessions that could not be read (invalid UTF-8, a NUL byte…):
    /// reported, not fatal; the `Continues From` ids still legible in them protect their
    /// sources all the same.
    pub unreadable: Vec<WarningRecord>,
    /// Whether nothing was written.
    pub dry_run: bool,
}

impl From<memory_core::OrganizeReport> for OrganizeReport {
    fn from(report: memory_core::OrganizeReport) -> Self {
        OrganizeReport {
            deleted_idle: ids(report.deleted_idle),
            marked_stale: ids(report.marked_stale),
            kept_active: ids(report.kept_active),
            protected: ids(report.protected),
            removed_temp_files: paths(&report.removed_temp_files),
            orphan_snapshots: paths(&report.orphan_snapshots),
            leftover_files: paths(&report.leftover_files),
            unreadable: warnings(report.unreadable),
            dry_run: report.dry_run,
        }
    }
}

/// Which way `archive` ended a session.
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveKind {
    /// The snapshot moved to `archive/<id>/session.md` beside a new `archive/<id>/index.md`.
    Archived,
    /// A placeholder without snapshot: the row was deleted and no archive was made.
    Deleted,
}

/// What `archive` did.
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true,
    js_name = "ArchiveOutcome"
)]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveOutcome {
    /// `archived` or `deleted`.
    pub outcome: ArchiveKind,
    /// The session that was archived or deleted.
    pub session_id: String,
    /// `archive/<id>/index.md` (archived only).
    pub archive_index: Option<String>,
    /// `archive/<id>/session.md` (archived only).
    pub session_file: Option<String>,
    /// Sources whose `referencedBy` no longer lists the archived session.
    pub released_from: Vec<String>,
    /// Snapshots of other sessions that could not be read (invalid UTF-8, a NUL byte…)
    /// and, as they cannot mention this session, were gone past; empty when every
    /// snapshot was read.
    pub warnings: Vec<WarningRecord>,
}

impl TryFrom<memory_core::ArchiveOutcome> for ArchiveOutcome {
    type Error = napi::Error;

    fn try_from(outcome: memory_core::ArchiveOutcome) -> napi::Result<Self> {
        match outcome {
            memory_core::ArchiveOutcome::Archived {
                session_id,
                archive_index,
                session_file,
                released_from,
                warnings: unread,
            } => Ok(ArchiveOutcome {
                outcome: ArchiveKind::Archived,
                session_id: session_id.to_string(),
                archive_index: Some(path_text(&archive_index)),
                session_file: Some(path_text(&session_file)),
                released_from: ids(released_from),
                warnings: warnings(unread),
            }),
            memory_core::ArchiveOutcome::Deleted {
                session_id,
                warnings: unread,
            } => Ok(ArchiveOutcome {
                outcome: ArchiveKind::Deleted,
                session_id: session_id.to_string(),
                archive_index: None,
                session_file: None,
                released_from: Vec::new(),
                warnings: warnings(unread),
            }),
            // The core enum is `#[non_exhaustive]`; the binding is built from the same
            // workspace, so this only happens if a variant is added without mapping it.
            other => Err(napi::Error::from_reason(format!(
                "this build of memory-core-node does not know the archive outcome {other:?}"
            ))),
        }
    }
}

/// A list of rows packed for the entry module: one string holding every field of every
/// row one after another, and a `Uint32Array` with the row count, each row's keyword
/// count, `Referenced By` count and status (0 idle, 1 active, 2 stale), and the end of
/// every field in the string. `index.js` rebuilds
/// the row objects with `String.prototype.slice` (V8 makes long slices views into the
/// one string, not copies): building them through napi property by property, or
/// parsing JSON, costs several times more per row. Returned as `[text, layout]`.
pub struct PackedRows {
    text: Vec<u16>,
    layout: Vec<u32>,
}

/// Packs `rows` (field order: id, agent, topic, summary, keywords…, referenced by…,
/// started, updated — the order of [`SessionRow`]'s properties, status aside).
pub fn packed_rows(rows: Vec<memory_core::SessionRow>) -> Arg<PackedRows> {
    let count = |n: usize| {
        u32::try_from(n).map_err(|_| {
            crate::Failure::Binding(napi::Error::from_reason("too many rows to return"))
        })
    };
    let mut text: Vec<u16> = Vec::with_capacity(rows.len() * 200);
    let mut counts = Vec::with_capacity(1 + rows.len() * 3);
    let mut ends = Vec::with_capacity(rows.len() * 12);
    counts.push(count(rows.len())?);
    for row in &rows {
        counts.push(count(row.keywords.len())?);
        counts.push(count(row.referenced_by.len())?);
        counts.push(match row.status {
            memory_core::Status::Idle => 0,
            memory_core::Status::Active => 1,
            memory_core::Status::Stale => 2,
        });
        let mut push = |s: &str| -> Arg<()> {
            if s.is_ascii() {
                text.extend(s.bytes().map(u16::from));
            } else {
                text.extend(s.encode_utf16());
            }
            ends.push(count(text.len())?);
            Ok(())
        };
        push(row.session_id.as_str())?;
        push(&row.agent_name)?;
        push(&row.topic)?;
        push(&row.summary)?;
        for keyword in &row.keywords {
            push(keyword)?;
        }
        for id in &row.referenced_by {
            push(id.as_str())?;
        }
        push(row.started_at.as_str())?;
        push(row.updated_at.as_str())?;
    }
    counts.extend(ends);
    Ok(PackedRows {
        text,
        layout: counts,
    })
}

impl napi::bindgen_prelude::TypeName for PackedRows {
    fn type_name() -> &'static str {
        "Array"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::Object
    }
}

fn check(status: napi::sys::napi_status, what: &str) -> napi::Result<()> {
    if status == napi::sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(format!("could not create {what}")))
    }
}

impl napi::bindgen_prelude::ToNapiValue for PackedRows {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        value: Self,
    ) -> napi::Result<napi::sys::napi_value> {
        use napi::sys;
        // SAFETY: `env` is the live env napi passed in. Each call gets pointers to data
        // that outlives it (napi copies the string; the array buffer is written within
        // its `byte_len` bytes right after creation).
        unsafe {
            let mut text = std::ptr::null_mut();
            check(
                sys::napi_create_string_utf16(
                    env,
                    value.text.as_ptr(),
                    value.text.len() as isize,
                    &mut text,
                ),
                "the rows' text",
            )?;
            let byte_len = value.layout.len() * std::mem::size_of::<u32>();
            let mut data = std::ptr::null_mut();
            let mut buffer = std::ptr::null_mut();
            check(
                sys::napi_create_arraybuffer(env, byte_len, &mut data, &mut buffer),
                "the rows' layout",
            )?;
            if byte_len > 0 {
                std::ptr::copy_nonoverlapping(
                    value.layout.as_ptr().cast::<u8>(),
                    data.cast::<u8>(),
                    byte_len,
                );
            }
            let mut layout = std::ptr::null_mut();
            check(
                sys::napi_create_typedarray(
                    env,
                    sys::TypedarrayType::uint32_array,
                    value.layout.len(),
                    buffer,
                    0,
                    &mut layout,
                ),
                "the rows' layout",
            )?;
            let mut pair = std::ptr::null_mut();
            check(
                sys::napi_create_array_with_length(env, 2, &mut pair),
                "a pair",
            )?;
            check(sys::napi_set_element(env, pair, 0, text), "a pair")?;
            check(sys::napi_set_element(env, pair, 1, layout), "a pair")?;
            Ok(pair)
        }
    }
}
