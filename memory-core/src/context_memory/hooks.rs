//! Installing and removing the git hooks that keep `_pending_refresh.md`
//! (`memcore context hook install|uninstall`).
//!
//! [`install_hooks`] writes `post-merge` and `post-checkout` in the directory git runs
//! hooks from (`git rev-parse --git-path hooks`: the common `.git/hooks` of every
//! worktree, or `core.hooksPath`). Each is a small POSIX `sh` script carrying the marker
//! line [`HOOK_MARKER`]; it runs `<memcore> --root <root> context refresh --record
//! --trigger <hook> --repo "$PWD"` (quiet when nothing is recorded) (git runs hooks at the top of the work tree, so a hooks directory
//! shared by worktrees or by `core.hooksPath` records the repository that ran it). The
//! `memcore` path is a parameter: the command line passes its own executable
//! (`std::env::current_exe`); the script falls back to `memcore` on `PATH` when that
//! file is gone.
//!
//! A hook that is already there and is not ours is never overwritten: it is moved,
//! byte-identical with its mode, to `memcore-chained/<hook>` in the hooks directory
//! (the same file name, so a hook that looks at `basename "$0"`, as the seed's own
//! script does, still sees its name), and our script runs it first with the same
//! arguments and standard input, then records, and exits with its status. A recording
//! that fails prints why on standard error but does not fail the git command (the
//! status of `post-checkout` becomes that of `git checkout`). Installing again changes
//! nothing. [`uninstall_hooks`]
//! puts the kept hook back with its mode (or removes ours when there was none), leaves
//! a hook that is not ours alone (`absent`: uninstalling twice is a no-op), and
//! refuses, with [`Error::ForeignHook`], a hook that is not ours while one is kept.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::git;
use crate::durable::{create_private_dir_all, read_text_if_exists, replace_atomically};
use crate::error::{Error, Result};

/// The hooks memory-core installs.
pub const HOOK_NAMES: [&str; 2] = ["post-merge", "post-checkout"];

/// The line that marks a hook script as memory-core's.
pub const HOOK_MARKER: &str =
    "# memory-core context-memory sync hook (memcore context hook install)";

/// The directory, inside the hooks directory, where hooks that were there before ours
/// are kept.
pub const CHAINED_DIR: &str = "memcore-chained";

/// What happened to one hook.
///
/// ```
/// use memory_core::context_memory::HookAction;
/// assert_eq!(HookAction::Chained.as_str(), "chained");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookAction {
    /// Ours was written where there was no hook.
    Installed,
    /// The hook that was there was kept aside and is run by ours.
    Chained,
    /// Ours was already there, exactly: nothing changed.
    Unchanged,
    /// Ours was there in another version (another `memcore` path) and was rewritten.
    Updated,
    /// Ours was removed and the kept hook put back.
    Restored,
    /// Ours was removed (there was no hook before it).
    Removed,
    /// There was nothing of ours to remove.
    Absent,
}

impl HookAction {
    /// A stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            HookAction::Installed => "installed",
            HookAction::Chained => "chained",
            HookAction::Unchanged => "unchanged",
            HookAction::Updated => "updated",
            HookAction::Restored => "restored",
            HookAction::Removed => "removed",
            HookAction::Absent => "absent",
        }
    }
}

/// One hook's outcome.
///
/// ```
/// # use memory_core::context_memory::HookOutcome;
/// fn line(o: &HookOutcome) -> String { format!("{}: {}", o.hook, o.action.as_str()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HookOutcome {
    /// The hook's name (`post-merge`, `post-checkout`).
    pub hook: String,
    /// The hook file.
    pub path: PathBuf,
    /// What was done.
    pub action: HookAction,
}

/// What [`install_hooks`] or [`uninstall_hooks`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HooksReport {
    /// The hooks directory.
    pub hooks_dir: PathBuf,
    /// One outcome per hook, in [`HOOK_NAMES`] order.
    pub hooks: Vec<HookOutcome>,
}

/// Whether `text` is a hook script memory-core wrote.
///
/// ```
/// use memory_core::context_memory::{hook_script, is_our_hook};
/// assert!(is_our_hook(&hook_script("post-merge", "/usr/bin/memcore".as_ref(), None)));
/// assert!(!is_our_hook("#!/bin/sh\nexit 0\n"));
/// ```
pub fn is_our_hook(text: &str) -> bool {
    text.lines().any(|l| l.trim_end() == HOOK_MARKER)
}

/// `text` in single quotes for `sh`.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The script installed as `hook`, calling the `memcore` at `memcore` and recording
/// into the memory root `root` (`--root`; without one, `memcore` picks its default
/// root when the hook runs).
///
/// ```
/// use memory_core::context_memory::hook_script;
/// let script = hook_script("post-checkout", "/opt/memcore".as_ref(), Some("/srv/memory".as_ref()));
/// assert!(script.starts_with("#!/bin/sh\n"));
/// assert!(script.contains("--root '/srv/memory' context refresh --record --trigger post-checkout"));
/// assert!(!hook_script("post-merge", "/opt/memcore".as_ref(), None).contains("--root"));
/// ```
pub fn hook_script(hook: &str, memcore: &Path, root: Option<&Path>) -> String {
    let root = root
        .map(|r| format!("--root {} ", sh_quote(&r.to_string_lossy())))
        .unwrap_or_default();
    let memcore = sh_quote(&memcore.to_string_lossy());
    let chained = sh_quote(&format!("{CHAINED_DIR}/{hook}"));
    let file_checkout = if hook == "post-checkout" {
        "# A file checkout (`git checkout -- <path>`, flag 0) moves no HEAD: nothing to record.\nif [ \"$3\" = 0 ]; then\n    exit \"$status\"\nfi\n"
    } else {
        ""
    };
    format!(
        r#"#!/bin/sh
{HOOK_MARKER}
# Records the files a merge or checkout on main/master changed in the project's
# _pending_refresh.md. Remove with `memcore context hook uninstall`, which puts back
# the hook that was here before (kept in {CHAINED_DIR}/).
status=0
chained="$(dirname -- "$0")"/{chained}
# Run as git would: a hook that is not executable is disabled, and stays so.
if [ -f "$chained" ] && [ -x "$chained" ]; then
    "$chained" "$@" || status=$?
fi
{file_checkout}memcore={memcore}
if [ ! -x "$memcore" ]; then
    memcore=memcore
fi
# Quiet when nothing is recorded. A failed recording is reported but does not fail
# the git command (post-checkout's status becomes the status of `git checkout`).
"$memcore" {root}context refresh --record --trigger {hook} --repo "$PWD" </dev/null ||
    echo "memory-core: could not record the changed files in _pending_refresh.md (exit $?)" >&2
exit "$status"
"#
    )
}

/// The file name of the command-line executable the hooks call.
pub const MEMCORE_EXECUTABLE: &str = if cfg!(windows) {
    "memcore.exe"
} else {
    "memcore"
};

/// The `memcore` executable on `PATH`, found as `command -v memcore` (or Python's
/// `shutil.which`) finds it: the first directory of `PATH` holding an executable regular
/// file named [`MEMCORE_EXECUTABLE`] (a link to one counts, and is returned as found, not
/// resolved, so an upgrade behind the link is picked up). Empty and relative entries of
/// `PATH` are skipped: a hook must never run a program from the directory git happens
/// to run it in. This is what the Python and Node bindings' `install_hooks` use when no
/// `memcore` path is given. [`Error::InvalidInput`] when there is none.
///
/// ```
/// match memory_core::context_memory::find_memcore() {
///     Ok(path) => assert!(path.is_absolute()),
///     Err(err) => assert!(err.to_string().contains("PATH")),
/// }
/// ```
pub fn find_memcore() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    find_executable(MEMCORE_EXECUTABLE, &path).ok_or_else(|| {
        Error::invalid(
            "memcore",
            MEMCORE_EXECUTABLE,
            "is not on PATH: install the memcore command line (cargo install --path memory-cli) or pass the path of its executable",
        )
    })
}

/// The first absolute directory of `path_var` (a `PATH` value) holding an executable
/// regular file `name`.
fn find_executable(name: &str, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

fn is_executable_file(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Installs the hooks in the repository at `repo` (any directory of its work tree),
/// calling the `memcore` executable at `memcore` (absolute; the command line passes its
/// own) and recording into the memory root `root`, made absolute and written into the
/// scripts as `--root` (the command line always passes the root it was run with, so
/// that the hooks record where `hook install --root DIR` was pointed, whatever the
/// environment of a later `git` command). Without a root the hooks record into the
/// default root of the `memcore` they run (`$MEMCORE_CONTEXT_ROOT`, else
/// `~/.cursor/memory`). Installing again with another root updates the scripts. See
/// the module documentation.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").arg("init").arg("-q").arg(dir.path()).status().unwrap();
/// use memory_core::context_memory::{install_hooks, HookAction};
/// let root = dir.path().join("memory");
/// let report = install_hooks(dir.path(), "/usr/local/bin/memcore".as_ref(), Some(&root)).unwrap();
/// assert!(report.hooks.iter().all(|h| h.action == HookAction::Installed));
/// let again = install_hooks(dir.path(), "/usr/local/bin/memcore".as_ref(), Some(&root)).unwrap();
/// assert!(again.hooks.iter().all(|h| h.action == HookAction::Unchanged));
/// ```
pub fn install_hooks(repo: &Path, memcore: &Path, root: Option<&Path>) -> Result<HooksReport> {
    let hooks_dir = git::hooks_dir(repo)?;
    let memcore = std::path::absolute(memcore).map_err(|e| Error::io_op(memcore, "getcwd", e))?;
    let root = root
        .map(|r| std::path::absolute(r).map_err(|e| Error::io_op(r, "getcwd", e)))
        .transpose()?;
    create_private_dir_all(&hooks_dir)?;
    let mut hooks = Vec::new();
    for hook in HOOK_NAMES {
        let path = hooks_dir.join(hook);
        let kept = hooks_dir.join(CHAINED_DIR).join(hook);
        let script = hook_script(hook, &memcore, root.as_deref());
        let action = match current(&path)? {
            Current::Ours(text) if text == script => HookAction::Unchanged,
            Current::Ours(_) => {
                write_script(&path, &script)?;
                HookAction::Updated
            }
            Current::Missing => {
                write_script(&path, &script)?;
                HookAction::Installed
            }
            Current::Foreign => {
                if fs::symlink_metadata(&kept).is_ok() {
                    return Err(Error::ForeignHook {
                        path,
                        message: format!(
                            "a hook is already kept at {}; memory-core does not overwrite it (move one of them away, then install again)",
                            kept.display()
                        ),
                    });
                }
                create_private_dir_all(&hooks_dir.join(CHAINED_DIR))?;
                keep(&path, &kept)?;
                if let Err(error) = write_script(&path, &script) {
                    // Put the hook back: the repository is as it was.
                    let _ = put_back(&kept, &path);
                    return Err(error);
                }
                HookAction::Chained
            }
        };
        hooks.push(HookOutcome {
            hook: hook.to_string(),
            path,
            action,
        });
    }
    Ok(HooksReport { hooks_dir, hooks })
}

/// Removes the hooks from the repository at `repo`, putting back the hooks that were
/// there before (byte-identical, with their mode). A hook that is not ours with
/// nothing kept aside is the user's (a hook uninstall put back, or one never chained):
/// it is left alone and reported [`HookAction::Absent`], so uninstalling twice is a
/// no-op. A hook that is not ours while one is kept aside (ours was replaced by hand)
/// is refused with [`Error::ForeignHook`] (nothing is changed for any hook then).
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").arg("init").arg("-q").arg(dir.path()).status().unwrap();
/// use memory_core::context_memory::{install_hooks, uninstall_hooks, HookAction};
/// let hooks = dir.path().join(".git/hooks");
/// std::fs::write(hooks.join("post-merge"), "#!/bin/sh\necho mine\n").unwrap();
/// install_hooks(dir.path(), "/usr/local/bin/memcore".as_ref(), None).unwrap();
/// let report = uninstall_hooks(dir.path()).unwrap();
/// assert_eq!(report.hooks[0].action, HookAction::Restored);
/// assert_eq!(report.hooks[1].action, HookAction::Removed);
/// assert_eq!(std::fs::read_to_string(hooks.join("post-merge")).unwrap(), "#!/bin/sh\necho mine\n");
/// let again = uninstall_hooks(dir.path()).unwrap();
/// assert!(again.hooks.iter().all(|h| h.action == HookAction::Absent));
/// ```
pub fn uninstall_hooks(repo: &Path) -> Result<HooksReport> {
    let hooks_dir = git::hooks_dir(repo)?;
    let mut plan = Vec::new();
    for hook in HOOK_NAMES {
        let path = hooks_dir.join(hook);
        let kept = hooks_dir.join(CHAINED_DIR).join(hook);
        let has_kept = fs::symlink_metadata(&kept).is_ok();
        let current = current(&path)?;
        if let (Current::Foreign, true) = (&current, has_kept) {
            return Err(Error::ForeignHook {
                path,
                message: format!(
                    "is not memory-core's hook (it has no memory-core marker line) while a hook is kept at {}; both were left alone",
                    kept.display()
                ),
            });
        }
        plan.push((
            hook,
            path,
            kept,
            has_kept,
            matches!(current, Current::Ours(_)),
        ));
    }
    let mut hooks = Vec::new();
    for (hook, path, kept, has_kept, ours) in plan {
        let action = match (ours, has_kept) {
            (_, true) => {
                put_back(&kept, &path)?;
                HookAction::Restored
            }
            (true, false) => {
                fs::remove_file(&path).map_err(|e| Error::io_op(&path, "unlink", e))?;
                HookAction::Removed
            }
            (false, false) => HookAction::Absent,
        };
        hooks.push(HookOutcome {
            hook: hook.to_string(),
            path,
            action,
        });
    }
    // The kept-hooks directory goes when it is empty (and stays when it holds anything).
    let _ = fs::remove_dir(hooks_dir.join(CHAINED_DIR));
    Ok(HooksReport { hooks_dir, hooks })
}

/// Moves the hook at `path` to `kept`. A file (or a link with an absolute target) is
/// renamed, byte-identical with its mode; a link with a relative target is made again
/// one directory down with `..` in front of its target, so that it still leads to the
/// same file.
fn keep(path: &Path, kept: &Path) -> Result<()> {
    match relative_link(path)? {
        Some(target) => {
            make_link(&Path::new("..").join(&target), kept)?;
            fs::remove_file(path).map_err(|e| Error::io_op(path, "unlink", e))
        }
        None => fs::rename(path, kept).map_err(|e| Error::io_op(path, "rename", e)),
    }
}

/// Undoes [`keep`]: the kept hook goes back to `path` (replacing our script in one
/// step), a relative link with its original target.
fn put_back(kept: &Path, path: &Path) -> Result<()> {
    match relative_link(kept)? {
        Some(target) => {
            let mut parts = target.components();
            let original: PathBuf = match parts.next() {
                Some(std::path::Component::ParentDir) => parts.collect(),
                // Not made by `keep`: put back as it is.
                _ => target,
            };
            let staged = kept.with_file_name(format!(".restore-{}", file_name_of(kept)));
            let _ = fs::remove_file(&staged);
            make_link(&original, &staged)?;
            fs::rename(&staged, path).map_err(|e| Error::io_op(path, "rename", e))?;
            fs::remove_file(kept).map_err(|e| Error::io_op(kept, "unlink", e))
        }
        None => fs::rename(kept, path).map_err(|e| Error::io_op(kept, "rename", e)),
    }
}

fn file_name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The target of the symbolic link at `path` when it is relative.
fn relative_link(path: &Path) -> Result<Option<PathBuf>> {
    let meta = fs::symlink_metadata(path).map_err(|e| Error::io_op(path, "lstat", e))?;
    if !meta.file_type().is_symlink() {
        return Ok(None);
    }
    let target = fs::read_link(path).map_err(|e| Error::io_op(path, "readlink", e))?;
    Ok(target.is_relative().then_some(target))
}

fn make_link(target: &Path, at: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, at).map_err(|e| Error::io_op(at, "symlink", e))
    }
    #[cfg(not(unix))]
    {
        let _ = target;
        Err(Error::io_op(
            at,
            "symlink",
            io::Error::new(
                io::ErrorKind::Unsupported,
                "symbolic links are not supported here",
            ),
        ))
    }
}

/// The hook file as found.
enum Current {
    Missing,
    Ours(String),
    Foreign,
}

fn current(path: &Path) -> Result<Current> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Current::Missing),
        Err(e) => return Err(Error::io_op(path, "lstat", e)),
        // A link is never ours: memory-core writes plain files.
        Ok(meta) if !meta.is_file() => return Ok(Current::Foreign),
        Ok(_) => {}
    }
    // A hook that is not text (a compiled program) is not ours either.
    match read_text_if_exists(path) {
        Ok(Some(text)) if is_our_hook(&text) => Ok(Current::Ours(text)),
        Ok(Some(_)) => Ok(Current::Foreign),
        Ok(None) => Ok(Current::Missing),
        Err(Error::Malformed { .. }) => Ok(Current::Foreign),
        Err(other) => Err(other),
    }
}

/// Writes our script atomically, executable (0755: git runs hooks as the user; other
/// users may read how it is wired, as with any hook).
fn write_script(path: &Path, script: &str) -> Result<()> {
    replace_atomically(path, script.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))
            .map_err(|e| Error::io_op(path, "fchmod", e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_scripts_snapshot() {
        let memcore = Path::new("/home/o'neil/.cargo/bin/memcore");
        let root = Some(Path::new("/home/o'neil/.cursor/memory"));
        insta::assert_snapshot!("hook_post_merge", hook_script("post-merge", memcore, root));
        insta::assert_snapshot!(
            "hook_post_checkout",
            hook_script("post-checkout", memcore, root)
        );
    }

    #[cfg(unix)]
    #[test]
    fn memcore_is_found_as_command_v_finds_it() {
        use std::ffi::OsString;
        use std::os::unix::fs::PermissionsExt;
        let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
        let make = |dir: &Path, mode: u32| {
            let file = dir.join("memcore");
            fs::write(&file, "#!/bin/sh\n").unwrap();
            fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
            file
        };
        // Not executable, then a directory of that name, then the one, then a later one.
        make(dirs[0].path(), 0o644);
        fs::create_dir(dirs[1].path().join("memcore")).unwrap();
        let wanted = make(dirs[2].path(), 0o755);
        make(dirs[3].path(), 0o755);
        let mut entries: Vec<OsString> = vec!["".into(), "relative/bin".into()];
        entries.extend(dirs.iter().map(|d| d.path().as_os_str().to_owned()));
        let path_var = std::env::join_paths(&entries).unwrap();
        assert_eq!(find_executable("memcore", &path_var), Some(wanted));
        let only_relative = std::env::join_paths(["", ".", "bin"]).unwrap();
        assert_eq!(find_executable("memcore", &only_relative), None);
        assert_eq!(find_executable("memcore", "".as_ref()), None);
        // A link to an executable is returned as found, not resolved.
        let link_dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            dirs[3].path().join("memcore"),
            link_dir.path().join("memcore"),
        )
        .unwrap();
        assert_eq!(
            find_executable("memcore", link_dir.path().as_os_str()),
            Some(link_dir.path().join("memcore"))
        );
    }

    #[test]
    fn the_marker_is_a_whole_line() {
        let script = hook_script("post-merge", Path::new("/bin/memcore"), None);
        assert!(is_our_hook(&script.replace('\n', "\r\n")));
        assert!(!is_our_hook(&format!("#!/bin/sh\necho '{HOOK_MARKER}'\n")));
        assert!(!is_our_hook(""));
    }
}
