//! `ContextMemory`'s git sync: recording and clearing pending refresh (methods of a
//! root, through [`paired!`]), migration, and the static functions that need no root —
//! installing and removing the hooks, a repository's project namespace, the default
//! root. A static's Promise form runs the core call once on the libuv pool (none of them
//! takes the memory lock, so there is nothing to retry) and never throws: a bad argument
//! or an aborted signal rejects. Their results are [`ParsedJson`], since `index.js`
//! cannot wrap a class's static properties (napi makes them read-only).

use memory_core::context_memory::{self as core, RefreshTrigger};
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, Result};
use napi_derive::napi;

use crate::args::{self, Arg};
use crate::context::ContextMemory;
use crate::types::{JsonText, ParsedJson, json};
use crate::{Call, Failure, Op, op};

type Handle = core::ContextMemory;

/// `trigger` (`'post-merge'`, `'post-checkout'` or `'manual'`, the default).
fn trigger(value: Option<Unknown<'_>>) -> Arg<RefreshTrigger> {
    match args::opt_text(value, "trigger")? {
        None => Ok(RefreshTrigger::Manual),
        Some(name) => RefreshTrigger::parse(&name).ok_or_else(|| {
            Failure::Core(memory_core::Error::argument(
                "trigger",
                format!("{name:?} must be 'post-merge', 'post-checkout' or 'manual'"),
            ))
        }),
    }
}

/// Queues `prepare`'s operation once on the libuv pool. A bad argument, or an
/// `options.signal` already aborted, is queued as the failure, so that the Promise
/// rejects rather than the call throwing.
fn queue_once<T>(
    options: Option<Unknown<'_>>,
    repo: impl FnOnce() -> Arg<std::path::PathBuf>,
    prepare: impl FnOnce(std::path::PathBuf) -> Arg<Op<T, ()>>,
) -> AsyncTask<Call<T, ()>>
where
    T: napi::bindgen_prelude::ToNapiValue + napi::bindgen_prelude::TypeName + Send + 'static,
{
    let run = || -> Arg<Op<T, ()>> {
        let repo = repo()?;
        let op = prepare(repo.clone())?;
        if args::aborted(options)? {
            return Err(Failure::Core(memory_core::Error::Aborted {
                path: repo,
                waited: std::time::Duration::ZERO,
                source: Some("the AbortSignal was aborted".into()),
            }));
        }
        Ok(op)
    };
    let op = run().unwrap_or_else(|failure| self::op(move |_: &()| Err(failure)));
    AsyncTask::new(Call {
        memory: (),
        op: Some(op),
    })
}

fn repo_path(value: Unknown<'_>) -> Arg<std::path::PathBuf> {
    Ok(std::path::PathBuf::from(args::text(value, "repo")?))
}

/// What `installHooks` was given besides the repository: the `memcore` executable and
/// the memory root the hooks record into.
#[derive(Default)]
struct HookOptions {
    memcore: Option<std::path::PathBuf>,
    root: Option<std::path::PathBuf>,
}

/// `installHooks`'s second argument: `{ memcore, root }`, or (as before) the `memcore`
/// path as a string, or `undefined`/`null`.
fn hook_options(value: Option<Unknown<'_>>) -> Arg<HookOptions> {
    let Some(value) = value.filter(|v| !args::is_absent(v)) else {
        return Ok(HookOptions::default());
    };
    if matches!(value.get_type()?, napi::ValueType::String) {
        return Ok(HookOptions {
            memcore: Some(args::text(value, "memcore")?.into()),
            root: None,
        });
    }
    let Some(object) = args::opt_object(Some(value), "options")? else {
        return Ok(HookOptions::default());
    };
    args::known_keys(&object, "options", &["memcore", "root"], None)?;
    let path = |key: &'static str| -> Arg<Option<std::path::PathBuf>> {
        Ok(args::opt_text(args::field(&object, key)?, key)?.map(std::path::PathBuf::from))
    };
    Ok(HookOptions {
        memcore: path("memcore")?,
        root: path("root")?,
    })
}

/// Installs the hooks calling `memcore`, or the `memcore` found on `PATH` now, and
/// recording into `root` (or, without one, the default root of that `memcore`).
fn install(repo: &std::path::Path, options: HookOptions) -> Arg<ParsedJson> {
    let memcore = match options.memcore {
        Some(path) => path,
        None => core::find_memcore()?,
    };
    Ok(ParsedJson(json(&core::install_hooks(
        repo,
        &memcore,
        options.root.as_deref(),
    )?)?))
}

fn uninstall(repo: &std::path::Path) -> Arg<ParsedJson> {
    Ok(ParsedJson(json(&core::uninstall_hooks(repo)?)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Records the files the last merge or checkout changed in the git repository `repo`"]
    #[doc = " (any directory of its work tree) in its project namespace's `_pending_refresh.md`,"]
    #[doc = " as the installed hooks do. Only `main` and `master` record; otherwise `skipped`"]
    #[doc = " says why nothing was. `trigger` defaults to `'manual'`. `ERR_MEMORY_INVALID_INPUT`"]
    #[doc = " when `repo` is not in a git work tree."]
    #[napi(
        ts_args_type = "repo: string, trigger?: 'post-merge' | 'post-checkout' | 'manual' | null",
        ts_return_type = "RecordOutcome"
    )]
    fn record_changes(repo: Unknown<'_>, trigger: Option<Unknown<'_>>) -> JsonText;
    #[doc = " Promise form of `recordChanges`."]
    #[napi(
        ts_args_type = "repo: string, trigger?: 'post-merge' | 'post-checkout' | 'manual' | null, options?: AsyncOptions",
        ts_return_type = "Promise<RecordOutcome>"
    )]
    fn record_changes_async(.., options);
    convert {
        let repo = repo_path(repo)?;
        let trigger = self::trigger(trigger)?;
    }
    call(|m| json(&m.record_changes(&repo, trigger)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Clears the reviewed repository paths `done` from `namespace`'s `_pending_refresh.md`"]
    #[doc = " (the file goes with its last path). `ERR_MEMORY_MALFORMED` when the file does not read."]
    #[napi(ts_args_type = "namespace: string, done: string[]", ts_return_type = "ClearReport")]
    fn clear_refresh(namespace: Unknown<'_>, done: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `clearRefresh`."]
    #[napi(
        ts_args_type = "namespace: string, done: string[], options?: AsyncOptions",
        ts_return_type = "Promise<ClearReport>"
    )]
    fn clear_refresh_async(.., options);
    convert {
        let ns = memory_core::context_memory::Namespace::parse(&args::text(namespace, "namespace")?)?;
        let done = args::texts(done, "done")?;
    }
    call(|m| json(&m.clear_refresh(&ns, &done)?))
}

paired! {
    in ContextMemory(Handle);
    #[doc = " Migrates the memory kept in directory `source`: copies it verbatim to"]
    #[doc = " `archive/migrated-<UTC time>/` under the root first, then imports every entity file"]
    #[doc = " in it into its namespace with the indexes updated, in one step; files it could not"]
    #[doc = " import are listed with the reason. `source` is only read."]
    #[napi(ts_args_type = "source: string", ts_return_type = "MigrationReport")]
    fn migrate(source: Unknown<'_>) -> JsonText;
    #[doc = " Promise form of `migrate`."]
    #[napi(
        ts_args_type = "source: string, options?: AsyncOptions",
        ts_return_type = "Promise<MigrationReport>"
    )]
    fn migrate_async(.., options);
    convert {
        let source = std::path::PathBuf::from(args::text(source, "source")?);
    }
    call(|m| json(&m.migrate(&source)?))
}

#[napi]
impl ContextMemory {
    /// Installs the `post-merge` and `post-checkout` hooks in the git repository `repo`
    /// (where `git rev-parse --git-path hooks` points; worktrees and `core.hooksPath`
    /// included). A hook already there is kept byte-identical in `memcore-chained/` and
    /// run first; installing again changes nothing. The hooks call the `memcore`
    /// executable at `options.memcore`; without it, the `memcore` found on `PATH` now
    /// (relative `PATH` entries skipped), `ERR_MEMORY_INVALID_INPUT` when there is none.
    /// They record into the memory root `options.root` (made absolute and written into
    /// the scripts); without it, into the default root of the `memcore` they run
    /// (`$MEMCORE_CONTEXT_ROOT`, else `~/.cursor/memory`) when git runs them. A string
    /// in place of `options` is the `memcore` path. A hook already there that is not
    /// executable is kept but, as git does, never run. `ERR_MEMORY_CONFLICT` when a hook
    /// is already kept aside.
    #[napi(
        ts_args_type = "repo: string, options?: InstallHooksOptions | string | null",
        ts_return_type = "HooksReport"
    )]
    pub fn install_hooks(
        env: Env,
        repo: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<ParsedJson> {
        let run = || install(&repo_path(repo)?, hook_options(options)?);
        run().map_err(|failure| failure.into_js(&env))
    }

    /// Promise form of `installHooks`.
    #[napi(
        ts_args_type = "repo: string, hookOptions?: InstallHooksOptions | string | null, options?: AsyncOptions",
        ts_return_type = "Promise<HooksReport>"
    )]
    pub fn install_hooks_async(
        repo: Unknown<'_>,
        hook_options: Option<Unknown<'_>>,
        options: Option<Unknown<'_>>,
    ) -> AsyncTask<Call<ParsedJson, ()>> {
        queue_once(
            options,
            || repo_path(repo),
            |repo| {
                let hooks = self::hook_options(hook_options)?;
                Ok(op(move |_: &()| install(&repo, hooks)))
            },
        )
    }

    /// Removes the hooks `installHooks` wrote from the git repository `repo`, putting back
    /// byte-identical the hooks that were there before. A hook that is not ours with
    /// nothing kept aside (the user's, as after a first uninstall) is left alone and
    /// reported `absent`: uninstalling twice is a no-op. `ERR_MEMORY_CONFLICT` (nothing
    /// changed) when a hook that is not memory-core's replaced ours over a kept one.
    #[napi(ts_args_type = "repo: string", ts_return_type = "HooksReport")]
    pub fn uninstall_hooks(env: Env, repo: Unknown<'_>) -> Result<ParsedJson> {
        let run = || uninstall(&repo_path(repo)?);
        run().map_err(|failure| failure.into_js(&env))
    }

    /// Promise form of `uninstallHooks`.
    #[napi(
        ts_args_type = "repo: string, options?: AsyncOptions",
        ts_return_type = "Promise<HooksReport>"
    )]
    pub fn uninstall_hooks_async(
        repo: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> AsyncTask<Call<ParsedJson, ()>> {
        queue_once(
            options,
            || repo_path(repo),
            |repo| Ok(op(move |_: &()| uninstall(&repo))),
        )
    }

    /// The project namespace (`project.<name>`) of the git repository `repo`: the last
    /// segment of `git remote get-url origin` without `.git`, else the work tree's folder
    /// name, lowercased. `ERR_MEMORY_INVALID_INPUT` when `repo` is not in a git work tree.
    #[napi(ts_args_type = "repo: string")]
    pub fn project_namespace(env: Env, repo: Unknown<'_>) -> Result<String> {
        let run = || -> Arg<String> {
            Ok(core::project_namespace(&repo_path(repo)?)?
                .as_str()
                .to_string())
        };
        run().map_err(|failure| failure.into_js(&env))
    }

    /// Promise form of `projectNamespace`.
    #[napi(
        ts_args_type = "repo: string, options?: AsyncOptions",
        ts_return_type = "Promise<string>"
    )]
    pub fn project_namespace_async(
        repo: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> AsyncTask<Call<String, ()>> {
        queue_once(
            options,
            || repo_path(repo),
            |repo| {
                Ok(op(move |_: &()| {
                    Ok(core::project_namespace(&repo)?.as_str().to_string())
                }))
            },
        )
    }

    /// The seed's root, `~/.cursor/memory` (from `$HOME`, else `%USERPROFILE%`); `null`
    /// when the home directory is not known. It is not created (the `memcore` command
    /// line reads `$MEMCORE_CONTEXT_ROOT` before it).
    #[napi]
    pub fn default_root() -> Option<String> {
        Handle::default_root().map(|p| p.to_string_lossy().into_owned())
    }
}
