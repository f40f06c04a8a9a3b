//! [`paired!`]: an operation's sync method and its `…Async` Promise form, generated from
//! one argument conversion and one core call, so that the two forms cannot drift apart
//! (DESIGN.md, "binding conventions").

/// Declares, in a `#[napi] impl AgentMemory` (or other class) block of its own, the sync method and the
/// Promise form of one operation:
///
/// ```text
/// paired! {
///     #[doc = " Docs of the sync form."]
///     #[napi(ts_args_type = "sessionId: string")]
///     fn session_path(session_id: Unknown<'_>) -> String;
///     #[doc = " Promise form of `sessionPath`."]
///     #[napi(ts_args_type = "sessionId: string, options?: AsyncOptions", ts_return_type = "Promise<string>")]
///     fn session_path_async(.., options);
///     convert { let id = args::text(session_id, "sessionId")?; }
///     call(|m| Ok(path_text(m.session_path(&id)?)))
/// }
/// ```
///
/// `convert` reads the JS arguments into Rust values (on the JS thread in both forms: a
/// bad argument throws, and the Promise form turns that into a rejection); `call` runs
/// the core operation on the handle `m` with those values, in place for the sync form and
/// as the one attempt the Promise form queues on the libuv pool (`AgentMemory::attempt`).
/// `paired! { in ContextMemory(memory_core::context_memory::ContextMemory); … }` declares
/// the pair on another class (one with the same `sync` / `attempt` helpers); without the
/// `in` line it is `AgentMemory`.
/// The Promise form takes the same parameters plus the last one named after `..`
/// (`{ signal?: AbortSignal }`). Each form keeps its own attributes (docs, `#[napi(…)]`
/// with its TypeScript signature), so `index.d.ts` reads as if both were written out.
///
/// Docs are written `#[doc = " …"]`, not `///`: napi-derive copies a doc attribute's
/// literal into `index.d.ts` as written, and a `///` comment passed through a
/// `macro_rules!` arrives as the raw string `r" …"`.
macro_rules! paired {
    (
        $(#[$($sync_attr:tt)*])*
        fn $sync:ident($($arg:ident: $arg_ty:ty),* $(,)?) -> $ret:ty;
        $(#[$($async_attr:tt)*])*
        fn $async_name:ident(.., $options:ident);
        convert { $($convert:tt)* }
        call(|$m:ident| $call:expr)
    ) => {
        paired! {
            in AgentMemory(memory_core::AgentMemory);
            $(#[$($sync_attr)*])*
            fn $sync($($arg: $arg_ty),*) -> $ret;
            $(#[$($async_attr)*])*
            fn $async_name(.., $options);
            convert { $($convert)* }
            call(|$m| $call)
        }
    };
    (
        in $class:ident($core:ty);
        $(#[$($sync_attr:tt)*])*
        fn $sync:ident($($arg:ident: $arg_ty:ty),* $(,)?) -> $ret:ty;
        $(#[$($async_attr:tt)*])*
        fn $async_name:ident(.., $options:ident);
        convert { $($convert:tt)* }
        call(|$m:ident| $call:expr)
    ) => {
        #[napi]
        impl $class {
            $(#[$($sync_attr)*])*
            pub fn $sync(&self, env: Env, $($arg: $arg_ty),*) -> Result<$ret> {
                self.sync(&env, |$m: &$core| {
                    $($convert)*
                    $call
                })
            }

            $(#[$($async_attr)*])*
            pub fn $async_name(
                &self,
                env: Env,
                $($arg: $arg_ty,)*
                $options: Option<Unknown<'_>>,
            ) -> Result<AsyncTask<Call<$ret, $core>>> {
                self.attempt(&env, $options, || {
                    $($convert)*
                    Ok(op(move |$m: &$core| $call))
                })
            }
        }
    };
}

/// The `sync` and `attempt` helpers of a model class whose `inner` field is the core
/// handle `$handle` (the serde-route classes `ContextMemory` and `StructuredMemory`): run
/// one sync call, or queue one attempt with a zero lock timeout (as `AgentMemory::attempt`).
macro_rules! handle_helpers {
    ($class:ty, $handle:ty) => {
        impl $class {
            pub(crate) fn sync<T>(
                &self,
                env: &napi::Env,
                f: impl FnOnce(&$handle) -> crate::args::Arg<T>,
            ) -> napi::Result<T> {
                f(&self.inner).map_err(|failure| failure.into_js(env))
            }

            /// Converts the arguments, checks `options`, and queues one attempt with a
            /// zero lock timeout (as `AgentMemory::attempt`).
            pub(crate) fn attempt<T>(
                &self,
                env: &napi::Env,
                options: Option<napi::bindgen_prelude::Unknown<'_>>,
                prepare: impl FnOnce() -> crate::args::Arg<crate::Op<T, $handle>>,
            ) -> napi::Result<napi::bindgen_prelude::AsyncTask<crate::Call<T, $handle>>>
            where
                T: napi::bindgen_prelude::ToNapiValue
                    + napi::bindgen_prelude::TypeName
                    + Send
                    + 'static,
            {
                crate::queue_attempt(
                    env,
                    options,
                    self.inner.root(),
                    || self.inner.with_lock_timeout(std::time::Duration::ZERO),
                    prepare,
                )
            }
        }
    };
}
