//! `ContextMemory`: the context-memory protocol (namespaces of Markdown entity files with
//! a `_index.md` per directory). The serde-based route: every result is the core type's
//! own `serde::Serialize` output as JSON text ([`json`]), parsed by `index.js` — plain
//! objects with the keys `memcore --json` prints (snake_case), `null` for absent values,
//! and no per-class conversion code. Arguments are options objects ([`context_args`]).
//! Sync and Promise forms come from [`paired!`], as for `AgentMemory`.

use memory_core::context_memory::{self as core, Namespace};
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, Result};
use napi_derive::napi;

use crate::args::{self, Arg};
use crate::types::{self, AgentMemoryOptions, JsonText, json};
use crate::{Call, context_args, op, path_text};

type Handle = core::ContextMemory;

/// A context-memory root (`~/.cursor/memory` by convention): namespaces `org.global`,
/// `project.<name>[.<domain>…]` and `session.current` mapped to directories of Markdown
/// entity files with YAML frontmatter, each with a `_index.md` table. Every write holds a
/// cross-process lock, replaces files atomically and reads them back.
///
/// Results are plain objects in the shape `memcore --json` prints (snake_case keys,
/// `null` for absent values). Every operation has a sync form and a Promise form
/// (`…Async`, last argument `{ signal?: AbortSignal }`) that never throws and waits for
/// the lock on a timer. Errors are `MemoryCoreError`s as for `AgentMemory`.
#[napi]
pub struct ContextMemory {
    inner: Handle,
}

handle_helpers!(ContextMemory, Handle);

#[napi]
impl ContextMemory {
    /// Opens the context-memory root `root`, made absolute against the current directory
    /// now; `~` is not expanded. Nothing is created until the first write. Options as for
    /// `AgentMemory`: `lockTimeoutMs` (default 10000) and `fixedTime` (RFC 3339).
    #[napi(
        constructor,
        ts_args_type = "root: string, options?: AgentMemoryOptions"
    )]
    pub fn new(env: Env, root: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Self> {
        let open = || -> Arg<Self> {
            let root = args::text(root, "root")?;
            let AgentMemoryOptions {
                lock_timeout_ms,
                fixed_time,
            } = AgentMemoryOptions::read(options)?;
            let mut builder = Handle::builder(root);
            if let Some(ms) = lock_timeout_ms {
                builder = builder.lock_timeout(types::lock_timeout(ms)?);
            }
            if let Some(time) = fixed_time {
                builder = builder.fixed_time(&time)?;
            }
            Ok(ContextMemory {
                inner: builder.open()?,
            })
        };
        open().map_err(|failure| failure.into_js(&env))
    }

    /// The root directory (absolute).
    #[napi(getter)]
    pub fn root(&self) -> String {
        path_text(self.inner.root().to_path_buf())
    }

    /// The longest wait for the lock, in milliseconds (`lockTimeoutMs`, default 10000).
    #[napi(getter)]
    pub fn lock_timeout_ms(&self) -> f64 {
        self.inner.lock_timeout().as_secs_f64() * 1000.0
    }
}

fn namespace(value: Unknown<'_>) -> Arg<Namespace> {
    Ok(Namespace::parse(&args::text(value, "namespace")?)?)
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Writes a new entity file and its index row. Refused with `ERR_MEMORY_CONFLICT`"]
    #[doc = " (naming the similar entry) when an entry of the same category has a similar"]
    #[doc = " summary, unless `forceNew`; a secret in a text field is `ERR_MEMORY_INVALID_INPUT`"]
    #[doc = " with `field`."]
    #[napi(ts_args_type = "entry: NewContextEntry", ts_return_type = "WriteOutcome")]
    fn write(entry: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `write`."]
    #[napi(
        ts_args_type = "entry: NewContextEntry, options?: AsyncOptions",
        ts_return_type = "Promise<WriteOutcome>"
    )]
    fn write_async(.., options);
    convert {
        let entry = context_args::new_entry(entry)?;
    }
    call(|m| json(&m.write(entry)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " The entry `entityName` (`ERR_MEMORY_NOT_FOUND` when there is none)."]
    #[napi(ts_args_type = "entityName: string", ts_return_type = "ContextEntry")]
    fn get(entity_name: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `get`."]
    #[napi(
        ts_args_type = "entityName: string, options?: AsyncOptions",
        ts_return_type = "Promise<ContextEntry>"
    )]
    fn get_async(.., options);
    convert {
        let name = args::text(entity_name, "entityName")?;
    }
    call(|m| json(&m.get(&name)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Changes fields of an entry in place (file and index row) and returns it as read back."]
    #[napi(
        ts_args_type = "entityName: string, patch: EntryPatch",
        ts_return_type = "ContextEntry"
    )]
    fn update(entity_name: Unknown<'_>, patch: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `update`."]
    #[napi(
        ts_args_type = "entityName: string, patch: EntryPatch, options?: AsyncOptions",
        ts_return_type = "Promise<ContextEntry>"
    )]
    fn update_async(.., options);
    convert {
        let name = args::text(entity_name, "entityName")?;
        let patch = context_args::patch(patch)?;
    }
    call(|m| json(&m.update(&name, patch)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " The index rows matching `query`, best first (history left out unless `history`)."]
    #[napi(ts_args_type = "query?: ContextQuery", ts_return_type = "Array<ContextHit>")]
    fn query(query: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `query`."]
    #[napi(
        ts_args_type = "query?: ContextQuery, options?: AsyncOptions",
        ts_return_type = "Promise<Array<ContextHit>>"
    )]
    fn query_async(.., options);
    convert {
        let query = context_args::query(query)?;
    }
    call(|m| json(&m.query(&query)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " `query` with what it could not read: the hits, and a `WarningRecord` for each"]
    #[doc = " namespace left out because its `_index.md` is a symbolic link (a query naming it"]
    #[doc = " throws `ERR_MEMORY_INVALID_INPUT`) and each hit whose file does not read (its"]
    #[doc = " file-only fields are `null`)."]
    #[napi(ts_args_type = "query?: ContextQuery", ts_return_type = "QueryAnswer")]
    fn query_answer(query: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `queryAnswer`."]
    #[napi(
        ts_args_type = "query?: ContextQuery, options?: AsyncOptions",
        ts_return_type = "Promise<QueryAnswer>"
    )]
    fn query_answer_async(.., options);
    convert {
        let query = context_args::query(query)?;
    }
    call(|m| json(&m.query_answer(&query)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Writes `entry` superseding `old` (marked `superseded`); returns both."]
    #[napi(
        ts_args_type = "old: string, entry: NewContextEntry",
        ts_return_type = "Superseded"
    )]
    fn supersede(old: Unknown<'_>, entry: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `supersede`."]
    #[napi(
        ts_args_type = "old: string, entry: NewContextEntry, options?: AsyncOptions",
        ts_return_type = "Promise<Superseded>"
    )]
    fn supersede_async(.., options);
    convert {
        let old = args::text(old, "old")?;
        let entry = context_args::new_entry(entry)?;
    }
    call(|m| json(&m.supersede(&old, entry)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Promotes an `experimental` entry to `accepted` and returns it."]
    #[napi(ts_args_type = "entityName: string", ts_return_type = "ContextEntry")]
    fn promote(entity_name: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `promote`."]
    #[napi(
        ts_args_type = "entityName: string, options?: AsyncOptions",
        ts_return_type = "Promise<ContextEntry>"
    )]
    fn promote_async(.., options);
    convert {
        let name = args::text(entity_name, "entityName")?;
    }
    call(|m| json(&m.promote(&name)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Copies an entry into namespace `target` (superseding the source); returns both."]
    #[napi(
        ts_args_type = "entityName: string, target: string",
        ts_return_type = "Superseded"
    )]
    fn promote_to(entity_name: Unknown<'_>, target: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `promoteTo`."]
    #[napi(
        ts_args_type = "entityName: string, target: string, options?: AsyncOptions",
        ts_return_type = "Promise<Superseded>"
    )]
    fn promote_to_async(.., options);
    convert {
        let name = args::text(entity_name, "entityName")?;
        let target = args::text(target, "target")?;
    }
    call(|m| json(&m.promote_to(&name, &target)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Compares a namespace's `_index.md` with its entity files; writes nothing."]
    #[napi(ts_args_type = "namespace: string", ts_return_type = "DriftReport")]
    fn verify(namespace: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `verify`."]
    #[napi(
        ts_args_type = "namespace: string, options?: AsyncOptions",
        ts_return_type = "Promise<DriftReport>"
    )]
    fn verify_async(.., options);
    convert {
        let ns = self::namespace(namespace)?;
    }
    call(|m| json(&m.verify(&ns)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Rebuilds a namespace's `_index.md` from its entity files."]
    #[napi(ts_args_type = "namespace: string", ts_return_type = "HealReport")]
    fn heal(namespace: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `heal`."]
    #[napi(
        ts_args_type = "namespace: string, options?: AsyncOptions",
        ts_return_type = "Promise<HealReport>"
    )]
    fn heal_async(.., options);
    convert {
        let ns = self::namespace(namespace)?;
    }
    call(|m| json(&m.heal(&ns)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Every namespace directory under the root, with its file count."]
    #[napi(ts_return_type = "Array<NamespaceInfo>")]
    fn namespaces() -> JsonText;
    #[doc = " Promise form of `namespaces`."]
    #[napi(
        ts_args_type = "options?: AsyncOptions",
        ts_return_type = "Promise<Array<NamespaceInfo>>"
    )]
    fn namespaces_async(.., options);
    convert {}
    call(|m| json(&m.namespaces()?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Splits a namespace into domains (by tag, or by `plan.mapping`)."]
    #[napi(
        ts_args_type = "namespace: string, plan?: SplitPlan",
        ts_return_type = "SplitReport"
    )]
    fn split(namespace: Unknown<'_>, plan: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `split`."]
    #[napi(
        ts_args_type = "namespace: string, plan?: SplitPlan, options?: AsyncOptions",
        ts_return_type = "Promise<SplitReport>"
    )]
    fn split_async(.., options);
    convert {
        let ns = self::namespace(namespace)?;
        let plan = context_args::split_plan(plan)?;
    }
    call(|m| json(&m.split(&ns, &plan)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Ends the session: promotes the named `session.current` entries, archives and"]
    #[doc = " clears the rest."]
    #[napi(
        ts_args_type = "promote?: Array<[string, string]>",
        ts_return_type = "EndSession"
    )]
    fn end_session(promote: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `endSession`."]
    #[napi(
        ts_args_type = "promote?: Array<[string, string]>, options?: AsyncOptions",
        ts_return_type = "Promise<EndSession>"
    )]
    fn end_session_async(.., options);
    convert {
        let promote = context_args::promotions(promote)?;
    }
    call(|m| json(&m.end_session(&promote)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " The pending-refresh changes of a project namespace, each with the entries citing it."]
    #[napi(ts_args_type = "namespace: string", ts_return_type = "Array<PendingMatch>")]
    fn pending_refresh(namespace: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `pendingRefresh`."]
    #[napi(
        ts_args_type = "namespace: string, options?: AsyncOptions",
        ts_return_type = "Promise<Array<PendingMatch>>"
    )]
    fn pending_refresh_async(.., options);
    convert {
        let ns = self::namespace(namespace)?;
    }
    call(|m| json(&m.pending_refresh(&ns)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " `pendingRefresh` with the lines of `_pending_refresh.md` the reader did not understand"]
    #[doc = " (a hand-written note, a malformed heading): `matches` lists every `- path` line of"]
    #[doc = " every section, `warnings` names the file and line of each other line (left in the"]
    #[doc = " file as it is)."]
    #[napi(ts_args_type = "namespace: string", ts_return_type = "PendingReport")]
    fn pending_refresh_report(namespace: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `pendingRefreshReport`."]
    #[napi(
        ts_args_type = "namespace: string, options?: AsyncOptions",
        ts_return_type = "Promise<PendingReport>"
    )]
    fn pending_refresh_report_async(.., options);
    convert {
        let ns = self::namespace(namespace)?;
    }
    call(|m| json(&m.pending_refresh_report(&ns)?))
}
