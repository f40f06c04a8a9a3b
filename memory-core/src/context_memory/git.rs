//! Running `git` as a child process (no git library): the repository's top level, its
//! hooks directory, the current branch, the files a merge or checkout changed, and the
//! project name the seed derives from the `origin` remote or the folder.
//!
//! Every call is `git -C <dir> …` with the caller's environment, so a hook that git runs
//! (with `GIT_DIR` set) asks the same repository git is working on. Failures are
//! [`Error::Git`] in plain words: git is not installed, the directory is not a
//! repository, or the command failed (with git's own message).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, GitFailure, Result};

/// The branches whose merges and checkouts are recorded (the seed: "only runs on main or
/// master branches").
pub const RECORDED_BRANCHES: [&str; 2] = ["main", "master"];

/// The output of a git command that succeeded.
struct GitOutput {
    stdout: Vec<u8>,
}

/// Runs `git -C dir args…`; `Ok(None)` when git ran and exited non-zero with `quiet`
/// (a question whose answer is "no"), the typed error otherwise.
fn run_git(dir: &Path, args: &[&str], quiet: bool) -> Result<Option<GitOutput>> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args.iter().map(OsStr::new))
        // The recorder and hooks never ask anything interactively.
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            let message = if e.kind() == std::io::ErrorKind::NotFound {
                "git is not installed (no `git` on PATH)".to_string()
            } else {
                format!("could not run git: {e}")
            };
            Error::Git {
                path: dir.to_path_buf(),
                failure: GitFailure::Missing,
                message,
            }
        })?;
    if output.status.success() {
        return Ok(Some(GitOutput {
            stdout: output.stdout,
        }));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stderr = stderr.trim();
    if stderr.contains("not a git repository") {
        return Err(not_a_repository(dir));
    }
    if stderr.contains("must be run in a work tree") {
        return Err(Error::Git {
            path: dir.to_path_buf(),
            failure: GitFailure::NotARepository,
            message: "is not in a work tree (a bare repository or a .git directory)".to_string(),
        });
    }
    if stderr.contains("cannot change to") || !dir.is_dir() {
        return Err(Error::Git {
            path: dir.to_path_buf(),
            failure: GitFailure::NotARepository,
            message: "is not a directory".to_string(),
        });
    }
    if quiet {
        return Ok(None);
    }
    Err(Error::Git {
        path: dir.to_path_buf(),
        failure: GitFailure::Failed,
        message: format!(
            "`git {}` failed: {}",
            args.join(" "),
            if stderr.is_empty() {
                "no message"
            } else {
                stderr
            }
        ),
    })
}

fn not_a_repository(dir: &Path) -> Error {
    Error::Git {
        path: dir.to_path_buf(),
        failure: GitFailure::NotARepository,
        message: "is not inside a git repository".to_string(),
    }
}

/// The output's text without its final line break; git's paths are UTF-8 here (the
/// callers turn `core.quotePath` off or ask for paths only git itself made).
fn text_of(dir: &Path, output: GitOutput) -> Result<String> {
    let mut text = String::from_utf8(output.stdout).map_err(|_| Error::Git {
        path: dir.to_path_buf(),
        failure: GitFailure::Failed,
        message: "git printed a name that is not UTF-8".to_string(),
    })?;
    while text.ends_with('\n') || text.ends_with('\r') {
        text.pop();
    }
    Ok(text)
}

fn git_text(dir: &Path, args: &[&str]) -> Result<String> {
    match run_git(dir, args, false)? {
        Some(output) => text_of(dir, output),
        // `quiet` is false: a failure is an error, never `None`.
        None => Err(not_a_repository(dir)),
    }
}

/// An absolute form of `dir` (relative to the working directory).
fn absolute(dir: &Path) -> Result<PathBuf> {
    std::path::absolute(dir).map_err(|e| Error::io_op(dir, "getcwd", e))
}

/// The top-level directory of the work tree `dir` is in (`git rev-parse --show-toplevel`).
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").arg("init").arg("-q").arg(dir.path()).status().unwrap();
/// use memory_core::context_memory::git;
/// let top = git::top_level(&dir.path().canonicalize().unwrap()).unwrap();
/// assert_eq!(top, dir.path().canonicalize().unwrap());
/// let err = git::top_level(&std::env::temp_dir().join("memcore-no-such-dir")).unwrap_err();
/// assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput);
/// ```
pub fn top_level(dir: &Path) -> Result<PathBuf> {
    let dir = absolute(dir)?;
    let top = git_text(&dir, &["rev-parse", "--show-toplevel"])?;
    if top.is_empty() {
        return Err(Error::Git {
            path: dir,
            failure: GitFailure::NotARepository,
            message: "is a bare repository or a .git directory, not a work tree".to_string(),
        });
    }
    Ok(PathBuf::from(top))
}

/// The directory git runs hooks from for the repository at `dir`
/// (`git rev-parse --git-path hooks`, made absolute): the common `.git/hooks` of every
/// worktree, or `core.hooksPath` when it is set.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").arg("init").arg("-q").arg(dir.path()).status().unwrap();
/// let hooks = memory_core::context_memory::git::hooks_dir(dir.path()).unwrap();
/// assert!(hooks.ends_with(".git/hooks"));
/// ```
pub fn hooks_dir(dir: &Path) -> Result<PathBuf> {
    let top = top_level(dir)?;
    let hooks = git_text(&top, &["rev-parse", "--git-path", "hooks"])?;
    Ok(top.join(hooks))
}

/// The branch checked out in `dir`, `None` on a detached HEAD (an unborn branch has its
/// name).
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").args(["init", "-q", "-b", "main"]).arg(dir.path()).status().unwrap();
/// let branch = memory_core::context_memory::git::current_branch(dir.path()).unwrap();
/// assert_eq!(branch.as_deref(), Some("main"));
/// ```
pub fn current_branch(dir: &Path) -> Result<Option<String>> {
    let dir = absolute(dir)?;
    match run_git(&dir, &["symbolic-ref", "--quiet", "--short", "HEAD"], true)? {
        Some(output) => text_of(&dir, output).map(Some),
        None => Ok(None),
    }
}

/// What `git diff --name-only HEAD@{1} HEAD` says changed.
///
/// ```
/// use memory_core::context_memory::git::ChangedFiles;
/// let changed = ChangedFiles::Files(vec!["src/a.rs".into()]);
/// assert_eq!(changed.files(), ["src/a.rs"]);
/// assert!(ChangedFiles::NoPreviousHead.files().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangedFiles {
    /// The files that differ between the previous HEAD and HEAD (empty when none do).
    Files(Vec<String>),
    /// HEAD has no previous position (`HEAD@{1}`): the first checkout of a clone, or a
    /// repository whose only HEAD move was its first commit. Nothing is recorded.
    NoPreviousHead,
}

impl ChangedFiles {
    /// The changed files (none for [`ChangedFiles::NoPreviousHead`]).
    pub fn files(&self) -> &[String] {
        match self {
            ChangedFiles::Files(files) => files,
            ChangedFiles::NoPreviousHead => &[],
        }
    }
}

/// The files changed between where HEAD was before the last merge or checkout and where
/// it is now: `git diff --name-only HEAD@{1} HEAD` (the seed's hook), read with
/// `core.quotePath` off and NUL-separated, so that names with spaces, quotes, line
/// breaks or non-ASCII letters arrive exactly (a name that is not UTF-8 arrives with
/// U+FFFD in place of its invalid bytes).
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # std::process::Command::new("git").arg("init").arg("-q").arg(dir.path()).status().unwrap();
/// use memory_core::context_memory::git::{ChangedFiles, changed_files};
/// assert_eq!(changed_files(dir.path()).unwrap(), ChangedFiles::NoPreviousHead);
/// ```
pub fn changed_files(dir: &Path) -> Result<ChangedFiles> {
    let dir = absolute(dir)?;
    if run_git(
        &dir,
        &["rev-parse", "--quiet", "--verify", "HEAD@{1}^{commit}"],
        true,
    )?
    .is_none()
    {
        return Ok(ChangedFiles::NoPreviousHead);
    }
    let Some(output) = run_git(
        &dir,
        &[
            "-c",
            "core.quotePath=false",
            "diff",
            "--no-ext-diff",
            "--no-renames",
            "--name-only",
            "-z",
            "HEAD@{1}",
            "HEAD",
        ],
        false,
    )?
    else {
        return Err(not_a_repository(&dir));
    };
    // A name that is not UTF-8 (a Latin-1 file name) is kept with U+FFFD for the bytes
    // that are not: the change is still listed, recognisably, rather than lost.
    let files = output
        .stdout
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    Ok(ChangedFiles::Files(files))
}

/// The project name of the repository at `dir`, as the seed derives it: the last path
/// segment of `git remote get-url origin` without `.git`, lowercased; else (no `origin`,
/// or a URL with no usable name) the repository's top-level folder name, lowercased. It
/// is returned as given; [`super::project_segment`] makes it a namespace segment.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let repo = dir.path().join("My-App");
/// # std::process::Command::new("git").arg("init").arg("-q").arg(&repo).status().unwrap();
/// use memory_core::context_memory::git;
/// assert_eq!(git::project_name(&repo).unwrap(), "my-app");
/// # std::process::Command::new("git").arg("-C").arg(&repo)
/// #     .args(["remote", "add", "origin", "git@github.com:Org/Memory-Core.git"]).status().unwrap();
/// assert_eq!(git::project_name(&repo).unwrap(), "memory-core");
/// ```
pub fn project_name(dir: &Path) -> Result<String> {
    let top = top_level(dir)?;
    if let Some(output) = run_git(&top, &["remote", "get-url", "origin"], true)? {
        let url = text_of(&top, output)?;
        if let Some(name) = name_from_remote_url(&url) {
            return Ok(name);
        }
    }
    let folder = top
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if folder.is_empty() {
        return Err(Error::Git {
            path: top,
            failure: GitFailure::Failed,
            message: "the repository has no origin remote and its folder has no name".to_string(),
        });
    }
    Ok(folder)
}

/// The repository name in a remote URL: the last segment after `/` (or after `:` in the
/// scp form `host:repo.git`, or `\` in a Windows path), trailing slashes and one `.git`
/// suffix removed, lowercased. `None` when nothing is left.
///
/// ```
/// use memory_core::context_memory::git::name_from_remote_url;
/// for (url, name) in [
///     ("https://github.com/Org/Repo.git", "repo"),
///     ("git@github.com:org/my-app.git", "my-app"),
///     ("ssh://git@host:2222/org/Tool.git/", "tool"),
///     ("host:solo.git", "solo"),
///     ("/srv/git/Project/", "project"),
///     ("file:///srv/git/thing.git", "thing"),
/// ] {
///     assert_eq!(name_from_remote_url(url).as_deref(), Some(name), "{url}");
/// }
/// assert_eq!(name_from_remote_url("https://host/"), Some("host".to_string()));
/// assert_eq!(name_from_remote_url("  "), None);
/// ```
pub fn name_from_remote_url(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches(['/', '\\']);
    let last = url.rsplit(['/', '\\']).next().unwrap_or(url);
    // scp-like `host:repo.git` (no slash after the colon).
    let last = last.rsplit(':').next().unwrap_or(last);
    let name = last.strip_suffix(".git").unwrap_or(last);
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn remote_urls_of_every_shape() {
        for (url, name) in [
            ("https://github.com/akshay-na/dotfiles.git", "dotfiles"),
            ("https://github.com/akshay-na/dotfiles", "dotfiles"),
            ("https://github.com/akshay-na/DotFiles.git/", "dotfiles"),
            ("https://user:token@gitlab.com/group/sub/Proj.git", "proj"),
            ("git@github.com:org/repo.git", "repo"),
            ("git@github.com:repo.git", "repo"),
            ("ssh://git@github.com/org/repo.git", "repo"),
            ("ssh://git@github.com:22/org/repo", "repo"),
            ("/home/me/src/Local-Repo", "local-repo"),
            ("../sibling.git", "sibling"),
            ("C:\\src\\WinRepo.git", "winrepo"),
            ("file:///tmp/x.git//", "x"),
            ("https://host/org/socket.io.git", "socket.io"),
            ("https://host/org/Ünïcode.git", "ünïcode"),
            ("https://host/org/repo.git.git", "repo.git"),
        ] {
            assert_eq!(name_from_remote_url(url).as_deref(), Some(name), "{url}");
        }
        for url in ["", "/", "///", ".git", "https://host/org/.git", "host:"] {
            assert_eq!(name_from_remote_url(url), None, "{url:?}");
        }
    }

    proptest! {
        /// Whatever the URL, a derived name has no separator and no `.git` suffix.
        #[test]
        fn a_name_is_one_segment(url in "\\PC{0,40}") {
            if let Some(name) = name_from_remote_url(&url) {
                prop_assert!(!name.contains(['/', '\\', ':']), "{name:?}");
                prop_assert!(!name.is_empty());
                prop_assert_eq!(name.clone(), name.to_lowercase());
            }
        }
    }
}
