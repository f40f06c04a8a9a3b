//! Core errors as JavaScript `Error` objects with a stable `code` and the error's
//! `path`, `line`, `sessionId` (`entityName` for a context-memory entity), and for a refused text field `field` and `secretKind`.
//!
//! napi's own errors carry a napi status as `code`. To give callers exact codes and the
//! structured fields, the binding builds the JS `Error` itself on the JS thread and hands
//! napi the object to throw (sync) or to reject with (async): napi re-throws a retained
//! error object verbatim, so both forms surface the same object.
//!
//! The code comes from [`memory_core::ErrorKind::code`], the one exhaustive `match` over
//! the core's error kinds (no wildcard arm: a new kind breaks the core's build until it has
//! a code). `index.d.ts` declares the codes as `ErrorCode` (see `dts-header.txt`).
//!
//! An I/O error also carries `syscall` (the failed call by Node's names: `open`, `read`,
//! `rename`, `mkdir`, …, from [`memory_core::Error::syscall`]) and `errno` (negative, as
//! in Node's own `fs` errors, so `util.getSystemErrorName(err.errno)` names it) when the
//! OS reported one. An aborted wait is named `AbortError`, like the errors Node's own
//! APIs reject with on an `AbortSignal`.

use napi::bindgen_prelude::JsObjectValue;
use napi::{Env, JsValue, Status};

/// Converts a core error into a napi error that carries the finished JS `Error` object
/// (`message`, `code`, and `path` / `line` / `sessionId` / `field` / `secretKind` /
/// `errno` / `syscall` when the core knows them).
/// Must run on the JS thread (a sync method, or an async task's `resolve`).
pub fn to_js(env: &Env, err: memory_core::Error) -> napi::Error {
    build(env, &err).unwrap_or_else(|_| napi::Error::new(Status::GenericFailure, err.to_string()))
}

/// The context-memory errors whose [`memory_core::Error::id`] names an entity.
fn is_entity_error(err: &memory_core::Error) -> bool {
    matches!(
        err,
        memory_core::Error::EntityNotFound { .. }
            | memory_core::Error::SimilarEntry { .. }
            | memory_core::Error::EntityExists { .. }
            | memory_core::Error::EntityHistory { .. }
    )
}

fn build(env: &Env, err: &memory_core::Error) -> napi::Result<napi::Error> {
    let mut object = env.create_error(napi::Error::new(Status::GenericFailure, err.to_string()))?;
    object.set_named_property("code", err.kind().code())?;
    if let Some(path) = err.path() {
        object.set_named_property("path", path.to_string_lossy().as_ref())?;
    }
    if let Some(line) = err.line() {
        object.set_named_property("line", line as f64)?;
    }
    if let Some(id) = err.id() {
        // The core's `id` is an entity name for context-memory's entity errors.
        let key = if is_entity_error(err) {
            "entityName"
        } else {
            "sessionId"
        };
        object.set_named_property(key, id)?;
    }
    if let Some(field) = err.field() {
        object.set_named_property("field", field)?;
    }
    if let Some(kind) = err.secret_kind() {
        object.set_named_property("secretKind", kind)?;
    }
    let io = std::error::Error::source(err).and_then(|s| s.downcast_ref::<std::io::Error>());
    if let Some(errno) = io.and_then(std::io::Error::raw_os_error) {
        object.set_named_property("errno", -f64::from(errno))?;
    }
    if let Some(syscall) = err.syscall() {
        object.set_named_property("syscall", syscall)?;
    }
    if err.kind() == memory_core::ErrorKind::Aborted {
        object.set_named_property("name", "AbortError")?;
    }
    Ok(napi::Error::from(object.to_unknown()))
}
