//! `memcore context …` end to end: write, get, query, verify (exit 4 on drift), heal,
//! namespaces, refresh, and the git hooks calling this very binary.

mod common;

use std::path::Path;
use std::process::Command;

use common::{command, run};

fn write(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--root", ".", "--json", "context", "write"];
    all.extend_from_slice(args);
    run(command(dir).args(&all)).json()
}

#[test]
fn write_then_get_query_and_namespaces() {
    let dir = tempfile::tempdir().unwrap();
    let written = write(
        dir.path(),
        &[
            "--namespace",
            "org.global",
            "--category",
            "decision",
            "--tags",
            "auth,security",
            "--body",
            "Auth uses JWT. Tokens are RS256.",
            "--confidence",
            "0.9",
        ],
    );
    assert_eq!(written["entry"]["entity_name"], "org.global.decision.001");
    assert_eq!(written["namespace_entries"], 1);
    let out =
        run(command(dir.path()).args(["--root", ".", "context", "query", "--tags", "auth"])).ok();
    assert_eq!(
        out,
        "org.global.decision.001  accepted  Auth uses JWT. — org/global/decision-001-auth-uses-jwt.md [auth, security]\n"
    );
    let entry = run(command(dir.path()).args([
        "--root",
        ".",
        "--json",
        "context",
        "get",
        "org.global.decision.001",
    ]))
    .json();
    for key in [
        "entity_name",
        "namespace",
        "category",
        "status",
        "tags",
        "summary",
        "created_at",
        "updated_at",
        "supersedes",
        "file",
    ] {
        assert!(entry.get(key).is_some(), "{key}");
    }
    assert_eq!(entry["confidence"], 0.9);
    let namespaces =
        run(command(dir.path()).args(["--root", ".", "--json", "context", "namespaces"])).json();
    assert_eq!(namespaces[0]["namespace"], "org.global");
}

#[test]
fn a_similar_entry_is_a_conflict_unless_forced_and_the_body_can_come_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            "--namespace",
            "project.app",
            "--category",
            "constraint",
            "--tags",
            "node,runtime",
            "--body",
            "Node 20 only.",
        ],
    );
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--namespace",
        "project.app",
        "--category",
        "constraint",
        "--tags",
        "node,ci",
        "--body",
        "Node 20 only!",
    ]))
    .fails(4);
    assert!(stderr.contains("project.app.constraint.001"), "{stderr}");
    let mut child = command(dir.path())
        .args([
            "--root",
            ".",
            "--json",
            "context",
            "write",
            "--namespace",
            "project.app",
            "--category",
            "constraint",
            "--tags",
            "node,ci",
            "--force-new",
            "--body",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Node 20 only!\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["entry"]["entity_name"], "project.app.constraint.002");
}

#[test]
fn verify_exits_4_on_drift_and_heal_repairs() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            "--namespace",
            "org.global",
            "--category",
            "risk",
            "--tags",
            "ops,pager",
            "--body",
            "The pager rota is thin.",
        ],
    );
    run(command(dir.path()).args(["--root", ".", "context", "verify"])).ok();
    std::fs::write(
        dir.path().join("org/global/todo-007-hand.md"),
        "---\nentity_name: org.global.todo.007\nnamespace: org.global\ncategory: todo\nstatus: experimental\ntags: [ops, rota]\ncreated_at: 2026-04-04\n---\n\nHire a second on-call.\n",
    )
    .unwrap();
    let drift = run(command(dir.path()).args(["--root", ".", "context", "verify", "org.global"]));
    assert_eq!(drift.code, 4, "{drift:?}");
    assert!(
        drift
            .stdout
            .contains("file without a row: todo-007-hand.md"),
        "{drift:?}"
    );
    let healed = run(command(dir.path()).args(["--root", ".", "--json", "context", "heal"])).json();
    assert_eq!(healed[0]["added"][0], "org.global.todo.007");
    run(command(dir.path()).args(["--root", ".", "context", "verify"])).ok();
}

#[test]
fn the_root_comes_from_the_environment_then_home() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            "--namespace",
            "org.global",
            "--category",
            "principle",
            "--tags",
            "style,code",
            "--body",
            "Prefer boring tech.",
        ],
    );
    let value = run(command(dir.path())
        .env("MEMCORE_CONTEXT_ROOT", dir.path())
        .args(["--json", "context", "namespaces"]))
    .json();
    assert_eq!(value[0]["namespace"], "org.global");
    let home = tempfile::tempdir().unwrap();
    let value = run(command(dir.path())
        .env_remove("MEMCORE_CONTEXT_ROOT")
        .env("HOME", home.path())
        .args([
            "--json",
            "context",
            "write",
            "--namespace",
            "org.global",
            "--category",
            "risk",
            "--tags",
            "a,b",
            "--body",
            "x.",
        ]))
    .json();
    assert_eq!(value["entry"]["file"], "org/global/risk-001-x.md");
    assert!(
        home.path()
            .join(".cursor/memory/org/global/risk-001-x.md")
            .exists()
    );
}

#[test]
fn bad_values_are_errors_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let stderr =
        run(command(dir.path()).args(["--root", ".", "context", "query", "--category", "note"]))
            .fails(2);
    assert!(stderr.contains("\"note\""), "{stderr}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "query",
        "--namespace",
        "project../x",
    ]))
    .fails(2);
    assert!(stderr.contains("namespace"), "{stderr}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--namespace",
        "org.global",
        "--category",
        "decision",
        "--tags",
        "only-one",
        "--body",
        "x",
    ]))
    .fails(2);
    assert!(stderr.contains("at least 2"), "{stderr}");
    let stderr =
        run(command(dir.path()).args(["--root", ".", "context", "get", "org.global.decision.404"]))
            .fails(3);
    assert!(stderr.contains("org.global.decision.404"), "{stderr}");
}

fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env(
            "MEMCORE_CONTEXT_ROOT",
            repo.parent().unwrap().join("memory"),
        )
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// The installed hooks call this very `memcore`: a merge on main lists the changed
/// files in the project's `_pending_refresh.md`, `refresh` shows them with the entries
/// citing them, `refresh --done` clears them, and uninstall removes the hooks.
#[test]
fn the_installed_hooks_record_a_merge_with_the_real_binary() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("webapp");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let memory = dir.path().join("memory");
    let root = memory.to_str().unwrap();
    let report =
        run(command(&repo).args(["--root", root, "--json", "context", "hook", "install"])).json();
    assert_eq!(report["hooks"][0]["action"], "installed");
    run(command(&repo).args([
        "--root",
        root,
        "context",
        "write",
        "--namespace",
        "project.webapp",
        "--category",
        "decision",
        "--tags",
        "api,docs",
        "--source-path",
        "docs:docs/api.md",
        "--body",
        "The API is documented in docs/api.md.",
    ]))
    .ok();
    git(&repo, &["checkout", "-q", "-b", "feature"]);
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    std::fs::write(repo.join("docs/api.md"), "# API\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "docs"]);
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["merge", "-q", "--no-ff", "-m", "merge", "feature"]);
    let pending = run(command(&repo).args(["--root", root, "--json", "context", "refresh"])).json();
    let paths: Vec<&str> = pending
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["change"]["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"docs/api.md"), "{pending}");
    let api = pending
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["change"]["path"] == "docs/api.md")
        .unwrap();
    assert_eq!(api["entries"][0], "project.webapp.decision.001");
    run(command(&repo).args([
        "--root",
        root,
        "context",
        "refresh",
        "--done",
        "docs/api.md",
    ]))
    .ok();
    let pending = run(command(&repo).args(["--root", root, "--json", "context", "refresh"])).json();
    assert!(
        pending
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["change"]["path"] != "docs/api.md")
    );
    let report =
        run(command(&repo).args(["--root", root, "--json", "context", "hook", "uninstall"])).json();
    assert_eq!(report["hooks"][0]["action"], "removed");
}

#[test]
fn update_promote_and_supersede_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            "--namespace",
            "project.app",
            "--category",
            "decision",
            "--tags",
            "api,style",
            "--status",
            "experimental",
            "--body",
            "Use REST.",
        ],
    );
    let promoted = run(command(dir.path()).args([
        "--root",
        ".",
        "--json",
        "context",
        "promote",
        "project.app.decision.001",
    ]))
    .json();
    assert_eq!(promoted["status"], "accepted");
    let updated = run(command(dir.path()).args([
        "--root",
        ".",
        "--json",
        "context",
        "update",
        "project.app.decision.001",
        "--rationale",
        "Simple clients",
    ]))
    .json();
    assert_eq!(updated["rationale"], "Simple clients");
    let done = run(command(dir.path()).args([
        "--root",
        ".",
        "--json",
        "context",
        "supersede",
        "project.app.decision.001",
        "--namespace",
        "project.app",
        "--category",
        "decision",
        "--tags",
        "api,style",
        "--body",
        "Use gRPC.",
    ]))
    .json();
    assert_eq!(done["new"]["supersedes"][0], "project.app.decision.001");
    assert_eq!(done["old"]["status"], "superseded");
    let up = run(command(dir.path()).args([
        "--root",
        ".",
        "--json",
        "context",
        "promote",
        "project.app.decision.002",
        "--to",
        "org.global",
    ]))
    .json();
    assert_eq!(up["new"]["namespace"], "org.global");
}

/// The shipped binary's secret screen works (its regex features are the binary's own,
/// not those a test build unifies in).
#[test]
fn a_secret_in_a_body_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--namespace",
        "org.global",
        "--category",
        "decision",
        "--tags",
        "a,b",
        "--body",
        "Deploy with ghp_Q7x9Lm2Kp4Vt8Rz1Nb6Hc3Wd5Fg0Jy2Sa4Ue.",
    ]))
    .fails(2);
    assert!(stderr.contains("github-token"), "{stderr}");
    assert!(!stderr.contains("Q7x9Lm2Kp4Vt8"), "{stderr}");
    assert!(!dir.path().join("org").exists());
}

fn ctx(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", ".", "--json", "context"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

/// `supersede OLD` takes namespace and category from OLD; `--repo` names the project
/// namespace; a diagram flag without its code is refused, not ignored; split, migrate and
/// end-session on the command line.
#[test]
fn the_rest_of_the_context_verbs_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("My-App");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let written = ctx(
        dir.path(),
        &[
            "write",
            "--repo",
            "My-App",
            "--category",
            "decision",
            "--tags",
            "api,style",
            "--body",
            "Use REST.",
        ],
    )
    .json();
    assert_eq!(written["entry"]["namespace"], "project.my-app");
    let done = ctx(
        dir.path(),
        &[
            "supersede",
            "project.my-app.decision.001",
            "--tags",
            "api,style",
            "--body",
            "Use gRPC.",
        ],
    )
    .json();
    assert_eq!(done["new"]["entity_name"], "project.my-app.decision.002");
    assert_eq!(done["old"]["status"], "superseded");
    let hits = ctx(dir.path(), &["query", "--repo", "My-App"]).json();
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--namespace",
        "org.global",
        "--category",
        "diagram",
        "--tags",
        "flow,memory",
        "--diagram-type",
        "flowchart",
        "--diagram-subject",
        "write",
        "--body",
        "How a write flows.",
    ]))
    .fails(2);
    assert!(stderr.contains("diagram"), "{stderr}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--category",
        "decision",
        "--tags",
        "a,b",
        "--body",
        "x",
    ]))
    .fails(2);
    assert!(stderr.contains("--namespace"), "{stderr}");

    // end-session: one promoted, one cleared.
    ctx(
        dir.path(),
        &[
            "write",
            "--namespace",
            "session.current",
            "--category",
            "decision",
            "--tags",
            "db,pool",
            "--body",
            "Pool size twenty.",
        ],
    )
    .json();
    ctx(
        dir.path(),
        &[
            "write",
            "--namespace",
            "session.current",
            "--category",
            "todo",
            "--tags",
            "scratch,port",
            "--body",
            "Try port 8081.",
        ],
    )
    .json();
    let ended = ctx(
        dir.path(),
        &[
            "end-session",
            "--promote",
            "session.current.decision.001=project.my-app",
        ],
    )
    .json();
    assert_eq!(ended["promoted"].as_array().unwrap().len(), 1, "{ended}");
    assert_eq!(ended["cleared"][0], "session.current.todo.001", "{ended}");

    // split by tag, then the moved entry's old name says where it went.
    for i in 0..52 {
        let tags = if i % 2 == 0 {
            "api,backend"
        } else {
            "ui,frontend"
        };
        ctx(
            dir.path(),
            &[
                "write",
                "--namespace",
                "project.shop",
                "--category",
                "decision",
                "--tags",
                tags,
                "--force-new",
                "--body",
                &format!("Rule {i} holds."),
            ],
        )
        .json();
    }
    let split = ctx(dir.path(), &["split", "project.shop"]).json();
    assert!(split["domains"].as_object().unwrap().len() >= 2, "{split}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "get",
        "project.shop.decision.001",
    ]))
    .fails(3);
    assert!(stderr.contains("moved to project.shop."), "{stderr}");

    // migrate: a good and a broken entity; the source is untouched.
    let source = dir.path().join("old-memory");
    std::fs::create_dir_all(source.join("org/global")).unwrap();
    std::fs::write(
        source.join("org/global/decision-001-x.md"),
        "---\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [a, b]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nImported fact.\n",
    )
    .unwrap();
    std::fs::write(
        source.join("org/global/decision-002-y.md"),
        "---\nentity_name: [broken\n---\n",
    )
    .unwrap();
    let target = dir.path().join("new-root");
    let migrated = run(command(dir.path()).args([
        "--root",
        target.to_str().unwrap(),
        "--json",
        "context",
        "migrate",
        "--from",
        "old-memory",
    ]))
    .json();
    assert_eq!(
        migrated["imported"].as_array().unwrap().len(),
        1,
        "{migrated}"
    );
    assert_eq!(
        migrated["not_imported"].as_array().unwrap().len(),
        1,
        "{migrated}"
    );
    assert!(source.join("org/global/decision-002-y.md").exists());
}

/// Runs `git args…` in `repo` with no memory root in the environment, and returns its
/// output (what the hooks print included).
fn git_output(repo: &Path, args: &[&str]) -> std::process::Output {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env_remove("MEMCORE_CONTEXT_ROOT")
        .env("HOME", repo.parent().unwrap().join("home"))
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    output
}

/// `hook install --root DIR` makes the hooks record into DIR (not the environment's or
/// the home directory's root); a hand note in `_pending_refresh.md` never stops the
/// recording; `refresh` lists every path and warns about the note's line on stderr;
/// the hook says nothing when it records nothing.
#[test]
fn the_hooks_record_into_the_install_root_past_a_hand_note_and_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("shop");
    std::fs::create_dir_all(&repo).unwrap();
    git_output(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    git_output(&repo, &["add", "."]);
    git_output(&repo, &["commit", "-q", "-m", "first"]);
    let memory = dir.path().join("my memory");
    let root = memory.to_str().unwrap();
    run(command(&repo)
        .env_remove("MEMCORE_CONTEXT_ROOT")
        .args(["--root", root, "context", "hook", "install"]))
    .ok();
    // Work on a branch: the checkout prints nothing on stdout or stderr.
    let out = git_output(&repo, &["checkout", "-q", "-b", "feature"]);
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    std::fs::write(repo.join("a.rs"), "fn a() {}\n").unwrap();
    git_output(&repo, &["add", "."]);
    git_output(&repo, &["commit", "-q", "-m", "a"]);
    git_output(&repo, &["checkout", "-q", "main"]);
    let file = memory.join("projects/shop/_pending_refresh.md");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("- a.rs"), "{text}");
    assert!(!dir.path().join("home/.cursor").exists());
    // A hand note at the end, then a merge: it is recorded after the note.
    std::fs::write(&file, format!("{text}Note: reviewed.\n")).unwrap();
    git_output(&repo, &["checkout", "-q", "feature"]);
    std::fs::write(repo.join("b.rs"), "fn b() {}\n").unwrap();
    git_output(&repo, &["add", "."]);
    git_output(&repo, &["commit", "-q", "-m", "b"]);
    git_output(&repo, &["checkout", "-q", "main"]);
    let out = git_output(&repo, &["merge", "-q", "--no-ff", "-m", "m", "feature"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("could not record"), "{stderr}");
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(
        after.starts_with(&format!("{text}Note: reviewed.\n")),
        "{after}"
    );
    assert!(after.ends_with("- b.rs\n"), "{after}");
    let listed = run(command(&repo).args(["--root", root, "--json", "context", "refresh"]));
    assert_eq!(listed.code, 0, "{listed:?}");
    let note_line = text.lines().count() + 1;
    assert_eq!(
        listed.stderr,
        format!(
            "warning: {}:{note_line}: expected a `- path` line or an `## Additional changes (<trigger> at <timestamp>)` heading; hand-written text is not part of a pending refresh file\n",
            file.display()
        )
    );
    let pending: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let paths: Vec<&str> = pending
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["change"]["path"].as_str().unwrap())
        .collect();
    // The checkout before the note, then the checkout onto main and the merge after it.
    assert_eq!(paths, ["a.rs", "a.rs", "b.rs", "a.rs", "b.rs"]);
    // Clearing keeps the note.
    let cleared = run(command(&repo).args([
        "--root", root, "--json", "context", "refresh", "--done", "a.rs",
    ]))
    .json();
    assert_eq!(cleared["cleared"][0], "a.rs");
    assert_eq!(cleared["remaining"], 2);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("\nNote: reviewed.\n") && !text.contains("- a.rs"),
        "{text}"
    );
}

/// `refresh --record` on another branch prints nothing; `--verbose` says why in words,
/// `--json` gives the reason as data.
#[test]
fn a_recording_that_records_nothing_is_quiet_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("shop");
    std::fs::create_dir_all(&repo).unwrap();
    git_output(&repo, &["init", "-q", "-b", "feat"]);
    let record = [
        "--root",
        ".",
        "context",
        "refresh",
        "--record",
        "--trigger",
        "post-checkout",
    ];
    assert_eq!(run(command(&repo).args(record)).ok(), "");
    let verbose = run(command(&repo).args(record).arg("--verbose")).ok();
    assert_eq!(
        verbose,
        "Nothing recorded: branch feat is checked out (only main and master record)\n"
    );
    assert!(!verbose.contains("OtherBranch"));
    let json = run(command(&repo).arg("--json").args(record)).json();
    assert_eq!(json["skipped"]["reason"], "other_branch");
    assert_eq!(json["skipped"]["branch"], "feat");
    let hooks = run(command(&repo).args(["--root", ".", "context", "hook", "install"])).ok();
    assert!(hooks.starts_with("post-merge: installed ("), "{hooks}");
    let hooks = run(command(&repo).args(["--root", ".", "context", "hook", "uninstall"])).ok();
    assert!(hooks.contains("post-checkout: removed ("), "{hooks}");
    let hooks = run(command(&repo).args(["--root", ".", "context", "hook", "uninstall"])).ok();
    assert!(hooks.contains("post-merge: absent ("), "{hooks}");
}

/// `migrate` on the command line: an entity carrying a secret is listed as not imported
/// (the kind and field, never the secret), a dangling link is listed, exit 0.
#[test]
fn migrate_reports_secrets_and_dangling_links_without_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    std::fs::create_dir_all(&old).unwrap();
    let head = |n: &str| {
        format!(
            "---\nentity_name: org.global.decision.{n}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [a, b]\ncreated_at: 2025-01-01\n"
        )
    };
    std::fs::write(
        old.join("secret.md"),
        format!("{}---\n\nAKIAZ7QX3RT5WVB2KMNP\n", head("001")),
    )
    .unwrap();
    std::fs::write(
        old.join("linked.md"),
        format!(
            "{}supersedes: [org.global.decision.404]\n---\n\nLinked.\n",
            head("002")
        ),
    )
    .unwrap();
    let out = run(command(dir.path()).args([
        "--root",
        "memory",
        "context",
        "migrate",
        "--from",
        old.to_str().unwrap(),
    ]))
    .ok();
    assert!(out.contains("imported 1 entry"), "{out}");
    assert!(
        out.contains(
            "not imported: secret.md: body holds a secret (aws-access-key) on line 10 of the file"
        ),
        "{out}"
    );
    assert!(
        out.contains("dangling link: org.global.decision.002 supersedes org.global.decision.404"),
        "{out}"
    );
    assert!(!out.contains("AKIA"), "{out}");
}

fn org_entry(dir: &Path) {
    write(
        dir,
        &[
            "--namespace",
            "org.global",
            "--category",
            "decision",
            "--tags",
            "auth,security",
            "--body",
            "Auth uses JWT.",
        ],
    );
}

/// A leftover journal (any crash leaves one) plus drift: the query finishes the change
/// and heals under the one lock it took, instead of timing out waiting for itself.
#[test]
fn query_with_a_leftover_journal_and_drift_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    let gone = write(
        dir.path(),
        &[
            "--namespace",
            "project.app",
            "--category",
            "decision",
            "--tags",
            "api,rest",
            "--body",
            "REST over gRPC.",
        ],
    );
    std::fs::remove_file(dir.path().join(gone["entry"]["file"].as_str().unwrap())).unwrap();
    std::fs::write(
        dir.path().join(".memcore.journal"),
        r#"{"version":1,"state":"apply","steps":[]}"#,
    )
    .unwrap();
    let started = std::time::Instant::now();
    let hits = run(command(dir.path())
        .env("MEMCORE_LOCK_TIMEOUT_MS", "3000")
        .args(["--root", ".", "--json", "context", "query"]))
    .json();
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert!(!dir.path().join(".memcore.journal").exists());
}

/// An index that does not read: query and write fail naming its line (exit 5), nothing
/// written; heal keeps the old text beside it and says so.
#[test]
fn a_broken_index_is_refused_then_heal_moves_it_aside() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    let index = dir.path().join("org/global/_index.md");
    let broken = std::fs::read_to_string(&index)
        .unwrap()
        .replace("| Auth uses JWT. |", "| Curated by hand |")
        .replace("| accepted |", "| accpeted |");
    std::fs::write(&index, &broken).unwrap();
    let err =
        run(command(dir.path()).args(["--root", ".", "--json", "context", "query"])).fails_json(5);
    assert_eq!(err["kind"], "malformed", "{err}");
    assert_eq!(err["line"], 7, "{err}");
    let err = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "write",
        "--namespace",
        "org.global",
        "--category",
        "risk",
        "--tags",
        "ops,pager",
        "--body",
        "Thin rota.",
    ]))
    .fails(5);
    assert!(err.contains("_index.md:7"), "{err}");
    assert_eq!(std::fs::read_to_string(&index).unwrap(), broken);
    assert_eq!(
        std::fs::read_dir(dir.path().join("org/global"))
            .unwrap()
            .count(),
        2
    );
    let healed = run(command(dir.path()).args(["--root", ".", "context", "heal"])).ok();
    assert!(healed.contains("old index kept verbatim in "), "{healed}");
    assert!(healed.contains("_index.md:7"), "{healed}");
    let healed_json =
        run(command(dir.path()).args(["--root", ".", "--json", "context", "heal"])).json();
    assert_eq!(healed_json[0]["written"], false, "{healed_json}");
    let backups: Vec<_> = std::fs::read_dir(dir.path().join("org/global"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".bak-"))
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), broken);
    let out = run(command(dir.path()).args(["--root", ".", "context", "query"])).ok();
    assert!(out.contains("Curated by hand"), "{out}");
}

/// JSON hits carry every key the issue lists, `created_at` from the file.
#[test]
fn json_hits_carry_the_file_only_fields() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    let hits = run(command(dir.path()).args(["--root", ".", "--json", "context", "query"])).json();
    let hit = &hits[0];
    for key in [
        "entity_name",
        "namespace",
        "category",
        "status",
        "tags",
        "summary",
        "created_at",
        "updated_at",
        "supersedes",
        "file",
    ] {
        assert!(hit.get(key).is_some(), "{key} missing: {hit}");
    }
    assert!(hit["created_at"].is_string(), "{hit}");
    assert_eq!(hit["supersedes"], serde_json::json!([]));
}

/// A `README.md`, a `NOTES.md` with a BOM and CRLF, a `todo.md` and a Unicode name kept
/// beside the entries are foreign: verify and heal list them apart (human and `--json`),
/// verify exits 0, heal writes nothing and the files stay byte for byte.
#[test]
fn foreign_files_are_listed_apart_and_are_not_drift() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    let ns = dir.path().join("org/global");
    let files: [(&str, &[u8]); 4] = [
        ("README.md", b"# What this is\n"),
        ("NOTES.md", b"\xef\xbb\xbf---\r\nx: 1\r\n---\r\n"),
        ("todo.md", b"- [ ] tidy\n"),
        ("\u{30ce}\u{30fc}\u{30c8}.md", "覚え書き\n".as_bytes()),
    ];
    for (name, bytes) in files {
        std::fs::write(ns.join(name), bytes).unwrap();
    }
    let verify = run(command(dir.path()).args(["--root", ".", "context", "verify"])).ok();
    assert!(
        verify.contains("org.global: index and files agree (1 entry)"),
        "{verify}"
    );
    for (name, _) in files {
        assert!(
            verify.contains(&format!(
                "foreign (not named like an entity; not indexed, left alone): org/global/{name}"
            )),
            "{verify}"
        );
    }
    let raw = run(command(dir.path()).args(["--root", ".", "--json", "context", "verify"])).ok();
    // The keys in the core's (serde's) order, `foreign` after `unreadable`.
    let at = |key: &str| raw.find(&format!("\"{key}\"")).unwrap_or(usize::MAX);
    let order = [
        "namespace",
        "missing_files",
        "unindexed_files",
        "mismatched",
        "unreadable",
        "foreign",
        "repeated",
        "unreadable_index",
        "last_updated",
        "rows",
        "files",
    ];
    assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{raw}");
    let json: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        json[0]["foreign"],
        serde_json::json!([
            "org/global/NOTES.md",
            "org/global/README.md",
            "org/global/todo.md",
            "org/global/\u{30ce}\u{30fc}\u{30c8}.md"
        ])
    );
    assert_eq!(
        (json[0]["rows"].as_u64(), json[0]["files"].as_u64()),
        (Some(1), Some(1))
    );
    let healed = run(command(dir.path()).args(["--root", ".", "context", "heal"])).ok();
    assert!(healed.contains("org.global: nothing to heal"), "{healed}");
    assert!(
        healed.contains("left alone): org/global/README.md"),
        "{healed}"
    );
    let healed = run(command(dir.path()).args(["--root", ".", "--json", "context", "heal"])).json();
    assert_eq!(healed[0]["written"], false);
    assert_eq!(healed[0]["foreign"].as_array().unwrap().len(), 4);
    for (name, bytes) in files {
        assert_eq!(std::fs::read(ns.join(name)).unwrap(), bytes, "{name}");
    }
}

/// An unreadable file is drift: verify prints its path and line and exits 4 (a file
/// with no row that does not read, which a row count alone does not see).
#[test]
fn verify_reports_an_unreadable_file_with_its_line_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    let file = dir.path().join("org/global/decision-001-auth-uses-jwt.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        dir.path().join("org/global/risk-001-draft.md"),
        text.replace("decision", "risk")
            .replace("status: accepted", "status: accpeted"),
    )
    .unwrap();
    let drift = run(command(dir.path()).args(["--root", ".", "context", "verify"]));
    assert_eq!(drift.code, 4, "{drift:?}");
    assert!(!drift.stdout.contains("agree"), "{drift:?}");
    assert!(
        drift.stdout.contains("unreadable: ") && drift.stdout.contains("risk-001-draft.md:5"),
        "{drift:?}"
    );
    // heal cannot fix it (a person must): verify still says so.
    run(command(dir.path()).args(["--root", ".", "context", "heal"])).ok();
    let again = run(command(dir.path()).args(["--root", ".", "context", "verify"]));
    assert_eq!(again.code, 4, "{again:?}");
}

/// One linked `_index.md`: an unscoped query warns (naming the link) and answers from
/// the other namespaces; a query naming that namespace fails.
#[test]
fn a_linked_index_is_a_warning_for_an_unscoped_query() {
    let dir = tempfile::tempdir().unwrap();
    org_entry(dir.path());
    write(
        dir.path(),
        &[
            "--namespace",
            "project.app",
            "--category",
            "decision",
            "--tags",
            "api,rest",
            "--body",
            "REST over gRPC.",
        ],
    );
    let index = dir.path().join("projects/app/_index.md");
    std::fs::rename(&index, dir.path().join("elsewhere.md")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere.md"), &index).unwrap();
    let out = run(command(dir.path()).args(["--root", ".", "context", "query"]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("org.global.decision.001"), "{out:?}");
    assert!(!out.stdout.contains("project.app"), "{out:?}");
    assert!(
        out.stderr.starts_with("warning: ") && out.stderr.contains("projects/app/_index.md"),
        "{out:?}"
    );
    let json = run(command(dir.path()).args(["--root", ".", "--json", "context", "query"]));
    assert_eq!(json.stdout.lines().count(), 1, "{json:?}");
    run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "query",
        "--namespace",
        "project.app",
    ]))
    .fails(2);
}
