//! context-memory's git sync hooks, with real `git` and real processes: the hooks are
//! installed in temp repositories and git runs them. The `memcore` they call is a tiny
//! stand-in script that logs its arguments and re-executes this test binary as the
//! `record` worker, which calls [`ContextMemory::record_changes`] — the function the command line's
//! `memcore context refresh --record` calls.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Role, Worker, report, wait_for_go};
use memory_core::context_memory::{
    CHAINED_DIR, ContextMemory, HookAction, PendingRefresh, RefreshTrigger, SkipReason, git,
    install_hooks, is_our_hook, load_pending_refresh, project_namespace, uninstall_hooks,
};
use memory_core::{Error, ErrorKind, GitFailure};

/// The worker entry point (see `common/mod.rs`): `record <trigger> <repo>` records as a
/// hook would; `record-go` first waits for the parent's `go`.
#[test]
fn worker() {
    let Some(role) = Role::from_env() else {
        return;
    };
    let memory = ContextMemory::builder(&role.root)
        .lock_timeout(Duration::from_secs(60))
        .open()
        .expect("open memory");
    if role.name == "record-go" {
        report(&["ready"]);
        if !wait_for_go() {
            return;
        }
    }
    let trigger = RefreshTrigger::parse(&role.args[0]).expect("trigger");
    let outcome = memory
        .record_changes(Path::new(&role.args[1]), trigger)
        .expect("record");
    let skipped = outcome.skipped.as_ref().map_or("none", SkipReason::as_str);
    report(&["recorded", &outcome.recorded.len().to_string(), skipped]);
}

/// Runs `git args…` in `dir` with a fixed identity and no user or system config, and
/// returns its stdout.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir, args).output().expect("run git");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com");
    command
}

fn commit(dir: &Path, file: &str, content: &str) {
    let path = dir.join(file);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, content).unwrap();
    git_in(dir, &["add", "--all"]);
    git_in(dir, &["commit", "-q", "-m", &format!("change {file}")]);
}

/// A temp directory with a repository `<name>` on `main` (one commit of `a.txt`) and a
/// memory root beside it.
struct Setup {
    _dir: tempfile::TempDir,
    base: PathBuf,
    repo: PathBuf,
    root: PathBuf,
    log: PathBuf,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let repo = base.join(name);
        fs::create_dir_all(&repo).unwrap();
        git_in(&repo, &["init", "-q", "-b", "main"]);
        commit(&repo, "a.txt", "one\n");
        Setup {
            _dir: dir,
            root: base.join("memory"),
            log: base.join("memcore-calls.log"),
            base,
            repo,
        }
    }

    /// A `memcore` stand-in at `path`: logs its arguments, then records through this
    /// test binary's `record` worker.
    fn stand_in_at(&self, path: &Path) -> PathBuf {
        let exe = std::env::current_exe().unwrap();
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> {log}\ntrigger=; repo=; root={root}\nwhile [ $# -gt 0 ]; do\n    case \"$1\" in\n        --trigger) trigger=$2; shift ;;\n        --repo) repo=$2; shift ;;\n        --root) root=$2; shift ;;\n    esac\n    shift\ndone\nMEMCORE_TEST_CHILD=record MEMCORE_TEST_ROOT=\"$root\" MEMCORE_TEST_ARGS=\"$trigger $repo\" exec {exe} --exact worker --nocapture --test-threads=1\n",
            log = sh(&self.log),
            root = sh(&self.root),
            exe = sh(&exe),
        );
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, script).unwrap();
        make_executable(path, 0o755);
        path.to_path_buf()
    }

    fn stand_in(&self) -> PathBuf {
        self.stand_in_at(&self.base.join("bin/memcore"))
    }

    fn install(&self) {
        let report = install_hooks(&self.repo, &self.stand_in(), None).unwrap();
        assert_eq!(report.hooks.len(), 2);
    }

    fn calls(&self) -> Vec<String> {
        fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn pending(&self, project: &str) -> PendingRefresh {
        load_pending_refresh(&self.pending_file(project)).unwrap()
    }

    fn pending_file(&self, project: &str) -> PathBuf {
        self.root
            .join("projects")
            .join(project)
            .join("_pending_refresh.md")
    }

    fn memory(&self) -> ContextMemory {
        ContextMemory::builder(&self.root)
            .fixed_time("2026-04-03T12:00:00+02:00")
            .unwrap()
            .open()
            .unwrap()
    }
}

fn sh(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

fn make_executable(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn paths_of(doc: &PendingRefresh) -> Vec<String> {
    doc.changes().into_iter().map(|c| c.path).collect()
}

/// `feature` with two commits (one a name with a space, one in a folder), `main`
/// checked out again.
fn feature_branch(repo: &Path) {
    git_in(repo, &["checkout", "-q", "-b", "feature"]);
    commit(repo, "b.txt", "two\n");
    commit(repo, "docs/c d.md", "three\n");
    git_in(repo, &["checkout", "-q", "main"]);
}

#[test]
fn a_merge_on_main_records_the_changed_files() {
    let s = Setup::new("App");
    feature_branch(&s.repo);
    s.install();
    git_in(
        &s.repo,
        &["merge", "-q", "--no-ff", "-m", "merge", "feature"],
    );
    let doc = s.pending("app");
    assert_eq!(paths_of(&doc), ["b.txt", "docs/c d.md"]);
    assert!(
        doc.changes()
            .iter()
            .all(|c| c.trigger == RefreshTrigger::PostMerge)
    );
    let repo = s.repo.display().to_string();
    assert_eq!(
        s.calls(),
        [format!(
            "context refresh --record --trigger post-merge --repo {repo}"
        )]
    );
    // The file is the seed's format, readable as text.
    let text = fs::read_to_string(s.pending_file("app")).unwrap();
    assert!(
        text.starts_with("---\ntrigger: post-merge\ntimestamp: "),
        "{text}"
    );
    assert!(text.contains("\n- docs/c d.md\n\nReview and update memory entries as needed.\n"));
}

#[test]
fn a_checkout_onto_main_records_and_appends() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    git_in(&s.repo, &["checkout", "-q", "feature"]);
    s.install();
    git_in(&s.repo, &["checkout", "-q", "main"]);
    let doc = s.pending("app");
    assert_eq!(paths_of(&doc), ["b.txt", "docs/c d.md"]);
    assert_eq!(doc.sections()[0].trigger, RefreshTrigger::PostCheckout);
    // A second run appends a section; the first is untouched.
    let before = fs::read(s.pending_file("app")).unwrap();
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let after = fs::read(s.pending_file("app")).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    let doc = s.pending("app");
    assert_eq!(doc.sections().len(), 2);
    assert_eq!(doc.sections()[1].trigger, RefreshTrigger::PostMerge);
}

#[test]
fn work_on_another_branch_records_nothing() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    s.install();
    git_in(&s.repo, &["checkout", "-q", "-b", "topic"]);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    // The hooks ran (twice), and recorded nothing.
    assert_eq!(s.calls().len(), 2, "{:?}", s.calls());
    assert!(!s.pending_file("app").exists());
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostMerge)
        .unwrap();
    assert_eq!(
        outcome.skipped,
        Some(SkipReason::OtherBranch("topic".into()))
    );
    assert!(outcome.recorded.is_empty());
    // A detached HEAD records nothing either.
    git_in(&s.repo, &["checkout", "-q", "--detach", "main"]);
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostCheckout)
        .unwrap();
    assert_eq!(outcome.skipped, Some(SkipReason::DetachedHead));
    // `master` records like `main`.
    git_in(&s.repo, &["checkout", "-q", "-b", "master"]);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    assert_eq!(paths_of(&s.pending("app")), ["b.txt", "docs/c d.md"]);
}

#[test]
fn a_first_checkout_and_an_empty_diff_record_nothing() {
    let s = Setup::new("app");
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostCheckout)
        .unwrap();
    assert_eq!(outcome.skipped, Some(SkipReason::NoPreviousHead));
    git_in(&s.repo, &["checkout", "-q", "-b", "same"]);
    git_in(&s.repo, &["checkout", "-q", "main"]);
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostCheckout)
        .unwrap();
    assert_eq!(outcome.skipped, Some(SkipReason::NothingChanged));
    assert!(!s.pending_file("app").exists());
}

#[test]
fn recording_uses_the_clock_in_utc_and_clear_removes_done_paths() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let memory = s.memory();
    let outcome = memory
        .record_changes(&s.repo, RefreshTrigger::Manual)
        .unwrap();
    assert_eq!(outcome.namespace.as_str(), "project.app");
    assert_eq!(outcome.recorded.len(), 2);
    assert_eq!(outcome.recorded[0].timestamp, "2026-04-03T10:00:00Z");
    let ns = project_namespace(&s.repo).unwrap();
    assert_eq!(
        memory
            .pending_refresh(&ns)
            .unwrap()
            .into_iter()
            .map(|m| m.change)
            .collect::<Vec<_>>(),
        outcome.recorded
    );
    let report = memory
        .clear_refresh(&ns, &["b.txt".into(), "nope".into()])
        .unwrap();
    assert_eq!(report.cleared, ["b.txt"]);
    assert_eq!(report.not_pending, ["nope"]);
    assert_eq!(report.remaining, 1);
    assert_eq!(paths_of(&s.pending("app")), ["docs/c d.md"]);
    let report = memory.clear_refresh(&ns, &["docs/c d.md".into()]).unwrap();
    assert!(report.removed_file);
    assert!(!s.pending_file("app").exists());
}

#[test]
fn odd_file_names_arrive_exactly() {
    let s = Setup::new("app");
    git_in(&s.repo, &["checkout", "-q", "-b", "feature"]);
    let names = [
        "café ünï.md",
        "quote\"d.txt",
        " lead.txt",
        "tab\there.txt",
        "new\nline.txt",
    ];
    for name in names {
        commit(&s.repo, name, "x\n");
    }
    git_in(&s.repo, &["checkout", "-q", "main"]);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostMerge)
        .unwrap();
    let mut got: Vec<String> = outcome.recorded.iter().map(|c| c.path.clone()).collect();
    let mut want: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let mut read = paths_of(&s.pending("app"));
    read.sort();
    assert_eq!(read, want);
}

#[test]
fn an_existing_hook_is_kept_runs_first_and_is_restored() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let hooks = s.repo.join(".git/hooks");
    let marker = s.base.join("marker");
    let foreign = format!(
        "#!/bin/sh\n# someone else's hook\nprintf '%s|' \"$(basename \"$0\")\" \"$@\" > {m}\ncat >> {m}\nexit ${{MY_HOOK_STATUS:-0}}\n",
        m = sh(&marker)
    );
    let hook = hooks.join("post-merge");
    fs::write(&hook, &foreign).unwrap();
    make_executable(&hook, 0o750);
    let report = install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    assert_eq!(report.hooks[0].action, HookAction::Chained);
    assert_eq!(report.hooks[1].action, HookAction::Installed);
    assert!(is_our_hook(&fs::read_to_string(&hook).unwrap()));
    assert_eq!(mode_of(&hook) & 0o111, 0o111, "ours is executable");
    // Installing again changes nothing.
    let ours = fs::read(&hook).unwrap();
    let again = install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    assert!(
        again
            .hooks
            .iter()
            .all(|h| h.action == HookAction::Unchanged)
    );
    assert_eq!(fs::read(&hook).unwrap(), ours);

    // git runs ours, which runs the kept hook (under its own name) and records.
    git_in(&s.repo, &["merge", "-q", "--no-ff", "-m", "m", "feature"]);
    assert_eq!(fs::read_to_string(&marker).unwrap(), "post-merge|0|");
    assert_eq!(paths_of(&s.pending("app")), ["b.txt", "docs/c d.md"]);

    // Run directly: same arguments and stdin reach the kept hook, its status is ours.
    let mut child = Command::new(&hook)
        .arg("1")
        .current_dir(&s.repo)
        .env("MY_HOOK_STATUS", "3")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"from stdin\n")
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(3));
    assert_eq!(
        fs::read_to_string(&marker).unwrap(),
        "post-merge|1|from stdin\n"
    );
    assert_eq!(
        s.calls().len(),
        2,
        "ours still recorded after a failing kept hook"
    );

    let report = uninstall_hooks(&s.repo).unwrap();
    assert_eq!(report.hooks[0].action, HookAction::Restored);
    assert_eq!(report.hooks[1].action, HookAction::Removed);
    assert_eq!(fs::read_to_string(&hook).unwrap(), foreign);
    assert_eq!(mode_of(&hook), 0o750);
    assert!(!hooks.join("post-checkout").exists());
    assert!(!hooks.join(CHAINED_DIR).exists());
    // Nothing of ours is left: a second uninstall is a no-op that says so, leaving the
    // restored hook (the user's) exactly as it is, and so is a third once it is gone.
    let report = uninstall_hooks(&s.repo).unwrap();
    assert!(report.hooks.iter().all(|h| h.action == HookAction::Absent));
    assert_eq!(fs::read_to_string(&hook).unwrap(), foreign);
    assert_eq!(mode_of(&hook), 0o750);
    fs::remove_file(&hook).unwrap();
    let report = uninstall_hooks(&s.repo).unwrap();
    assert!(report.hooks.iter().all(|h| h.action == HookAction::Absent));
}

#[test]
fn uninstall_leaves_a_users_hook_and_refuses_one_that_replaced_ours_over_a_kept_one() {
    let s = Setup::new("app");
    s.install();
    let hooks = s.repo.join(".git/hooks");
    // The user replaced our post-checkout (nothing kept): it is theirs, left alone.
    fs::write(hooks.join("post-checkout"), "#!/bin/sh\necho mine\n").unwrap();
    let report = uninstall_hooks(&s.repo).unwrap();
    assert_eq!(report.hooks[0].action, HookAction::Removed);
    assert_eq!(report.hooks[1].action, HookAction::Absent);
    assert!(!hooks.join("post-merge").exists());
    assert_eq!(
        fs::read_to_string(hooks.join("post-checkout")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    // Chain it, then put another foreign hook in ours' place: the kept one is not
    // overwritten by install, and uninstall refuses, changing nothing for any hook.
    install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    let merge_hook = fs::read(hooks.join("post-merge")).unwrap();
    fs::write(hooks.join("post-checkout"), "#!/bin/sh\necho other\n").unwrap();
    let err = install_hooks(&s.repo, &s.stand_in(), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(
        fs::read_to_string(hooks.join(CHAINED_DIR).join("post-checkout")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    let err = uninstall_hooks(&s.repo).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(err.path(), Some(hooks.join("post-checkout").as_path()));
    assert!(matches!(err, Error::ForeignHook { .. }));
    assert_eq!(fs::read(hooks.join("post-merge")).unwrap(), merge_hook);
    assert_eq!(
        fs::read_to_string(hooks.join("post-checkout")).unwrap(),
        "#!/bin/sh\necho other\n"
    );
    assert_eq!(
        fs::read_to_string(hooks.join(CHAINED_DIR).join("post-checkout")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
}

/// A hook disabled by its mode (not executable) is kept aside but never run, as git
/// itself never runs it: `git checkout` works, and uninstall puts it back disabled.
#[test]
fn a_disabled_hook_stays_disabled() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let hooks = s.repo.join(".git/hooks");
    let marker = s.base.join("ran");
    let disabled = format!("#!/bin/sh\ntouch {}\nexit 1\n", sh(&marker));
    for hook in ["post-checkout", "post-merge"] {
        fs::write(hooks.join(hook), &disabled).unwrap();
        make_executable(&hooks.join(hook), 0o644);
    }
    // git ignores it before install…
    git_in(&s.repo, &["checkout", "-q", "feature"]);
    git_in(&s.repo, &["checkout", "-q", "main"]);
    assert!(!marker.exists());
    let report = install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    assert!(report.hooks.iter().all(|h| h.action == HookAction::Chained));
    // …and after: the checkout succeeds, quietly, and records; the hook never ran.
    git_in(&s.repo, &["checkout", "-q", "feature"]);
    let output = git_command(&s.repo, &["checkout", "-q", "main"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("Permission denied"), "{stderr}");
    git_in(&s.repo, &["merge", "-q", "--no-ff", "-m", "m", "feature"]);
    assert!(!marker.exists(), "a disabled hook was run");
    // The checkout onto main and the merge both recorded.
    assert_eq!(
        paths_of(&s.pending("app")),
        ["b.txt", "docs/c d.md", "b.txt", "docs/c d.md"]
    );
    // Enabled again by its owner (in its kept place), it runs (and its status is the
    // checkout's).
    make_executable(&hooks.join(CHAINED_DIR).join("post-checkout"), 0o755);
    let status = git_command(&s.repo, &["checkout", "-q", "feature"])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(marker.exists());
    fs::remove_file(&marker).unwrap();
    make_executable(&hooks.join(CHAINED_DIR).join("post-checkout"), 0o644);
    let report = uninstall_hooks(&s.repo).unwrap();
    assert!(
        report
            .hooks
            .iter()
            .all(|h| h.action == HookAction::Restored)
    );
    for hook in ["post-checkout", "post-merge"] {
        assert_eq!(fs::read_to_string(hooks.join(hook)).unwrap(), disabled);
        assert_eq!(mode_of(&hooks.join(hook)), 0o644);
    }
    git_in(&s.repo, &["checkout", "-q", "main"]);
    assert!(!marker.exists());
}

/// Installed with a root, the hooks record into it (`--root` is written into the
/// scripts), whatever the environment of the git command.
#[test]
fn the_hooks_record_into_the_root_they_were_installed_for() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let other = s.base.join("other memory's root");
    let report = install_hooks(&s.repo, &s.stand_in(), Some(&other)).unwrap();
    assert!(
        report
            .hooks
            .iter()
            .all(|h| h.action == HookAction::Installed)
    );
    let script = fs::read_to_string(s.repo.join(".git/hooks/post-merge")).unwrap();
    assert!(
        script.contains(&format!("--root {} context refresh", sh(&other))),
        "{script}"
    );
    git_in(&s.repo, &["merge", "-q", "--no-ff", "-m", "m", "feature"]);
    let file = other.join("projects/app/_pending_refresh.md");
    assert_eq!(
        paths_of(&load_pending_refresh(&file).unwrap()),
        ["b.txt", "docs/c d.md"]
    );
    assert!(!s.pending_file("app").exists());
    // A relative root is made absolute; another root updates the scripts.
    let report = install_hooks(&s.repo, &s.stand_in(), Some(Path::new("rel"))).unwrap();
    assert!(report.hooks.iter().all(|h| h.action == HookAction::Updated));
    let script = fs::read_to_string(s.repo.join(".git/hooks/post-merge")).unwrap();
    let abs = std::env::current_dir().unwrap().join("rel");
    assert!(script.contains(&sh(&abs)), "{script}");
}

#[test]
fn a_new_memcore_path_updates_ours_and_a_missing_one_falls_back_to_path() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let gone = s.base.join("old/memcore");
    let report = install_hooks(&s.repo, &gone, None).unwrap();
    assert!(
        report
            .hooks
            .iter()
            .all(|h| h.action == HookAction::Installed)
    );
    let bin = s.base.join("path-bin");
    s.stand_in_at(&bin.join("memcore"));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = git_command(&s.repo, &["merge", "-q", "feature"])
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(s.calls().len(), 1, "the memcore on PATH ran");
    assert_eq!(paths_of(&s.pending("app")), ["b.txt", "docs/c d.md"]);
    let report = install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    assert!(report.hooks.iter().all(|h| h.action == HookAction::Updated));
}

#[test]
fn worktrees_share_the_hooks_and_record_their_own_tree() {
    let s = Setup::new("main-checkout");
    git_in(
        &s.repo,
        &["remote", "add", "origin", "git@github.com:Org/Shared.git"],
    );
    let wt = s.base.join("second");
    git_in(
        &s.repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "master",
            wt.to_str().unwrap(),
        ],
    );
    let report = install_hooks(&wt, &s.stand_in(), None).unwrap();
    assert_eq!(report.hooks_dir, s.repo.join(".git/hooks"));
    assert_eq!(git::hooks_dir(&s.repo).unwrap(), report.hooks_dir);
    git_in(&wt, &["checkout", "-q", "-b", "side"]);
    commit(&wt, "w.txt", "w\n");
    git_in(&wt, &["checkout", "-q", "master"]);
    git_in(&wt, &["merge", "-q", "side"]);
    assert_eq!(paths_of(&s.pending("shared")), ["w.txt", "w.txt"]);
    let calls = s.calls();
    assert!(
        calls
            .iter()
            .all(|c| c.ends_with(&format!("--repo {}", wt.display()))),
        "{calls:?}"
    );
}

#[test]
fn core_hooks_path_is_honoured() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    git_in(&s.repo, &["config", "core.hooksPath", ".githooks"]);
    fs::create_dir(s.repo.join("sub")).unwrap();
    let report = install_hooks(&s.repo.join("sub"), &s.stand_in(), None).unwrap();
    assert_eq!(report.hooks_dir, s.repo.join(".githooks"));
    assert!(s.repo.join(".githooks/post-merge").is_file());
    assert!(!s.repo.join(".git/hooks/post-merge").exists());
    git_in(&s.repo, &["merge", "-q", "feature"]);
    assert_eq!(paths_of(&s.pending("app")), ["b.txt", "docs/c d.md"]);
}

#[test]
fn concurrent_recorders_lose_no_path() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    let args = ["post-merge".to_string(), s.repo.display().to_string()];
    let mut workers: Vec<Worker> = (0..6)
        .map(|_| Worker::spawn("worker", "record-go", &s.root, &args))
        .collect();
    for worker in &mut workers {
        worker.wait_for("ready", deadline);
    }
    for worker in &mut workers {
        worker.go();
    }
    for worker in workers {
        let finished = worker.finish(deadline);
        finished.assert_success();
        assert_eq!(finished.reports_of("recorded"), [["2", "none"]]);
    }
    let doc = s.pending("app");
    assert_eq!(doc.sections().len(), 6);
    assert!(
        doc.sections()
            .iter()
            .all(|sec| sec.paths == ["b.txt", "docs/c d.md"])
    );
}

#[test]
fn git_errors_are_typed_and_plain() {
    let dir = tempfile::tempdir().unwrap();
    let err = git::top_level(dir.path()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Git {
                failure: GitFailure::NotARepository,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        err.to_string().contains("not inside a git repository"),
        "{err}"
    );
    let missing = dir.path().join("nope");
    let err = install_hooks(&missing, Path::new("/bin/memcore"), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let memory = ContextMemory::open(dir.path().join("memory")).unwrap();
    let err = memory
        .record_changes(dir.path(), RefreshTrigger::Manual)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    // With no git on PATH: run this check in a child without PATH.
    let exe = std::env::current_exe().unwrap();
    let output = Command::new(exe)
        .args([
            "--exact",
            "git_missing_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PATH", "")
        .env("MEMCORE_TEST_GIT_MISSING", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("git-missing-checked"));
}

/// Runs only as the child of `git_errors_are_typed_and_plain`, with an empty `PATH`.
#[test]
fn git_missing_child() {
    if std::env::var_os("MEMCORE_TEST_GIT_MISSING").is_none() {
        return;
    }
    let err = git::current_branch(Path::new("/")).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Git {
                failure: GitFailure::Missing,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Io);
    assert!(err.to_string().contains("git is not installed"), "{err}");
    println!("git-missing-checked");
}

#[test]
fn project_names_come_from_the_remote_or_the_folder() {
    let s = Setup::new("Folder.Name");
    assert_eq!(git::project_name(&s.repo).unwrap(), "folder.name");
    assert_eq!(
        project_namespace(&s.repo).unwrap().as_str(),
        "project.folder-name"
    );
    git_in(&s.repo, &["remote", "add", "origin", "placeholder"]);
    for (url, name) in [
        ("https://github.com/akshay-na/Dotfiles.git", "dotfiles"),
        ("git@gitlab.com:group/sub/My_Repo.git/", "my_repo"),
        ("ssh://git@host:2222/org/tool", "tool"),
        ("/srv/git/Local.git", "local"),
    ] {
        git_in(&s.repo, &["remote", "set-url", "origin", url]);
        assert_eq!(git::project_name(&s.repo).unwrap(), name, "{url}");
        assert_eq!(
            git::project_name(&s.repo.join(".git"))
                .err()
                .map(|e| e.kind()),
            Some(ErrorKind::InvalidInput),
            "inside .git there is no work tree"
        );
    }
}

#[test]
fn a_file_checkout_records_nothing() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    s.install();
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let before = fs::read(s.pending_file("app")).unwrap();
    fs::write(s.repo.join("a.txt"), "edited\n").unwrap();
    git_in(&s.repo, &["checkout", "--", "a.txt"]);
    assert_eq!(fs::read(s.pending_file("app")).unwrap(), before);
    assert_eq!(s.calls().len(), 1, "the recorder was not even called");
}

#[test]
fn a_relative_link_hook_is_kept_working_and_put_back_as_it_was() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let tools = s.repo.join("tools");
    fs::create_dir_all(&tools).unwrap();
    let marker = s.base.join("linked-marker");
    let target = tools.join("hook.sh");
    fs::write(
        &target,
        format!("#!/bin/sh\necho \"$(basename \"$0\")\" > {}\n", sh(&marker)),
    )
    .unwrap();
    make_executable(&target, 0o755);
    let hook = s.repo.join(".git/hooks/post-merge");
    std::os::unix::fs::symlink("../../tools/hook.sh", &hook).unwrap();
    let report = install_hooks(&s.repo, &s.stand_in(), None).unwrap();
    assert_eq!(report.hooks[0].action, HookAction::Chained);
    git_in(&s.repo, &["merge", "-q", "--no-ff", "-m", "m", "feature"]);
    assert_eq!(fs::read_to_string(&marker).unwrap(), "post-merge\n");
    assert_eq!(paths_of(&s.pending("app")), ["b.txt", "docs/c d.md"]);
    uninstall_hooks(&s.repo).unwrap();
    assert_eq!(
        fs::read_link(&hook).unwrap(),
        Path::new("../../tools/hook.sh")
    );
    assert!(!s.repo.join(".git/hooks").join(CHAINED_DIR).exists());
}

/// A hook's bytes and mode.
type HookState = (Vec<u8>, u32);

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever was in place (nothing, a script, binary junk; any mode), install then
    /// uninstall leaves every hook byte-identical with its mode, and nothing else behind.
    #[test]
    fn install_then_uninstall_restores_exactly(
        merge in proptest::option::of(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)),
        checkout in proptest::option::of("#!/bin/sh\n[ -~\n]{0,80}"),
        mode in 0o600u32..0o777,
        twice in proptest::prelude::any::<bool>(),
    ) {
        let s = Setup::new("app");
        let hooks = s.repo.join(".git/hooks");
        let before: Vec<(PathBuf, Option<HookState>)> = [("post-merge", merge), ("post-checkout", checkout.map(String::into_bytes))]
            .into_iter()
            .map(|(name, content)| {
                let path = hooks.join(name);
                let state = content.map(|bytes| {
                    fs::write(&path, &bytes).unwrap();
                    make_executable(&path, mode);
                    (bytes, mode)
                });
                (path, state)
            })
            .collect();
        let others: Vec<_> = fs::read_dir(&hooks).unwrap().map(|e| e.unwrap().file_name()).collect();
        install_hooks(&s.repo, Path::new("/usr/bin/memcore"), None).unwrap();
        if twice {
            install_hooks(&s.repo, Path::new("/usr/bin/memcore"), None).unwrap();
        }
        uninstall_hooks(&s.repo).unwrap();
        for (path, state) in before {
            match state {
                Some((bytes, mode)) => {
                    proptest::prop_assert_eq!(fs::read(&path).unwrap(), bytes);
                    proptest::prop_assert_eq!(mode_of(&path), mode);
                }
                None => proptest::prop_assert!(!path.exists()),
            }
        }
        let after: Vec<_> = fs::read_dir(&hooks).unwrap().map(|e| e.unwrap().file_name()).collect();
        proptest::prop_assert_eq!(after.len(), others.len());
    }
}

#[test]
fn paths_with_spaces_and_quotes_reach_memcore_intact() {
    let s = Setup::new("my app's \"repo\"");
    feature_branch(&s.repo);
    let bin = s.base.join("bin dir/it's");
    fs::create_dir_all(&bin).unwrap();
    let memcore = bin.join("mem core");
    fs::write(
        &memcore,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\" >> {}; done\n",
            sh(&s.log)
        ),
    )
    .unwrap();
    make_executable(&memcore, 0o755);
    install_hooks(&s.repo, &memcore, None).unwrap();
    git_in(&s.repo, &["merge", "-q", "feature"]);
    assert_eq!(
        fs::read_to_string(&s.log).unwrap(),
        format!(
            "[context][refresh][--record][--trigger][post-merge][--repo][{}]",
            s.repo.display()
        )
    );
}

#[test]
fn a_name_that_is_not_utf8_is_still_listed() {
    use std::os::unix::ffi::OsStrExt;
    let s = Setup::new("app");
    git_in(&s.repo, &["checkout", "-q", "-b", "feature"]);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(s.repo.join(name), "latin-1\n").unwrap();
    git_in(&s.repo, &["add", "--all"]);
    git_in(&s.repo, &["commit", "-q", "-m", "latin-1 name"]);
    git_in(&s.repo, &["checkout", "-q", "main"]);
    git_in(&s.repo, &["merge", "-q", "feature"]);
    let outcome = s
        .memory()
        .record_changes(&s.repo, RefreshTrigger::PostMerge)
        .unwrap();
    assert_eq!(outcome.recorded.len(), 1);
    assert_eq!(outcome.recorded[0].path, "caf\u{fffd}.txt");
    assert_eq!(paths_of(&s.pending("app")), ["caf\u{fffd}.txt"]);
}

#[test]
fn a_failing_recorder_does_not_fail_the_git_command() {
    let s = Setup::new("app");
    feature_branch(&s.repo);
    let memcore = s.base.join("failing-memcore");
    fs::write(&memcore, "#!/bin/sh\necho 'memcore: broken' >&2\nexit 7\n").unwrap();
    make_executable(&memcore, 0o755);
    install_hooks(&s.repo, &memcore, None).unwrap();
    let output = git_command(&s.repo, &["checkout", "-q", "feature"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("memcore: broken"), "{stderr}");
    assert!(
        stderr.contains("could not record the changed files"),
        "{stderr}"
    );
}
