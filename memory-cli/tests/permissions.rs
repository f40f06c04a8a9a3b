//! A file the user may not write is never overwritten, with real permissions: the tree
//! is set up by this (root) process and `memcore` runs as `nobody` through `setpriv`, so
//! the files are refused by ownership, not by their mode bits alone (a rename would
//! otherwise replace them: the directory is writable). Where the tests do not run as
//! root, the same check runs as the current user on a file without write bits.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use common::{Fixture, run};

/// Whether this process is root (a new file's owner is the effective uid).
fn running_as_root(dir: &Path) -> bool {
    let probe = dir.join("uid-probe");
    fs::write(&probe, b"").unwrap();
    let uid = fs::metadata(&probe).unwrap().uid();
    fs::remove_file(probe).unwrap();
    uid == 0 && Path::new("/usr/bin/setpriv").exists()
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != ".memcore.lock") {
                out.push((path.display().to_string(), fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `memcore --root <root> <args>` as `nobody`.
fn as_nobody(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("/usr/bin/setpriv");
    command
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(env!("CARGO_BIN_EXE_memcore"))
        .arg("--root")
        .arg(root)
        .arg("--json")
        .args(args)
        .current_dir(root)
        .env("MEMCORE_LOCK_TIMEOUT_MS", "2000");
    command
}

#[test]
fn files_the_user_may_not_write_are_refused_and_nothing_changes() {
    let fx = Fixture::new();
    let id = fx.register(
        "owner",
        "Login",
        "Fixed the bug.",
        &["--decision", "Use bcrypt"],
    );
    let root = fx.root.clone();
    if !running_as_root(fx.dir.path()) {
        // Without root the ownership case cannot be set up: a file without write bits.
        chmod(&fx.index_path(), 0o444);
        let before = tree(&root);
        let stderr = fx.run(&["agent", "start"]).fails(1);
        assert!(stderr.contains("read-only"), "{stderr}");
        assert_eq!(tree(&root), before);
        return;
    }
    // Everyone may enter and write the directories and take the lock; the files stay
    // root's, readable by all, writable by root only.
    chmod(fx.dir.path(), 0o755);
    for dir in [root.clone(), root.join("sessions")] {
        chmod(&dir, 0o777);
    }
    chmod(&root.join(".memcore.lock"), 0o666);
    chmod(&fx.index_path(), 0o644);
    let snapshot = root.join("sessions").join(format!("{id}.md"));
    chmod(&snapshot, 0o644);
    let before = tree(&root);

    for args in [
        &["agent", "start", "--agent", "nobody-agent"][..],
        &["agent", "update", &id, "--decision", "Use argon2id"][..],
    ] {
        let out = as_nobody(&root, args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        let json: serde_json::Value =
            serde_json::from_str(stderr.lines().last().unwrap_or("{}")).unwrap();
        let error = &json["error"];
        assert_eq!(error["kind"], "io", "{args:?}: {stderr}");
        assert_eq!(error["syscall"], "open", "{args:?}: {stderr}");
        assert!(stderr.contains("Permission denied"), "{args:?}: {stderr}");
        assert_eq!(
            tree(&root),
            before,
            "{args:?}: a refused write changed the tree"
        );
        let leftovers: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .chain(fs::read_dir(root.join("sessions")).unwrap())
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{args:?}: temp files left: {leftovers:?}"
        );
    }
    // The owner still writes as before.
    run(common::command(fx.dir.path())
        .arg("--root")
        .arg(&root)
        .args(["agent", "update", &id, "--decision", "Use argon2id"]))
    .ok();
}

/// A directory the user may not write (the files in it writable): every write fails on
/// staging its new content, and the error names the user's file and says why, never the
/// hidden temp file memory-core tried to make. For each model, with a new file and with
/// an existing one; nothing changes.
#[test]
fn a_directory_the_user_may_not_write_is_named_by_the_file_being_written() {
    let fx = Fixture::new();
    if !running_as_root(fx.dir.path()) {
        // Without root the directory cannot be made unwritable for memcore alone.
        return;
    }
    let root = fx.root.clone();
    let id = fx.register("owner", "Login", "Fixed the bug.", &[]);
    let topics = |args: &[&str]| {
        let mut all = vec!["--root", root.to_str().unwrap(), "topics"];
        all.extend_from_slice(args);
        run(common::command(fx.dir.path()).args(&all))
    };
    assert_eq!(
        topics(&[
            "remember",
            "--topic",
            "memory-db.md",
            "--text",
            "Postgres 15",
            "--subject",
            "db",
            "--hook",
            "databases"
        ])
        .code,
        0
    );
    // The directories are root's and closed to others; every file is writable by all.
    chmod(fx.dir.path(), 0o755);
    for dir in [root.clone(), root.join("sessions")] {
        chmod(&dir, 0o755);
    }
    for (path, _) in tree(&root) {
        chmod(Path::new(&path), 0o666);
    }
    chmod(&root.join(".memcore.lock"), 0o666);
    let before = tree(&root);
    for (args, file) in [
        (
            &[
                "topics",
                "remember",
                "--topic",
                "memory-db.md",
                "--text",
                "Postgres 16",
                "--subject",
                "db",
            ][..],
            "memory-db.md",
        ),
        (
            &[
                "topics",
                "remember",
                "--topic",
                "memory-new.md",
                "--text",
                "x",
                "--hook",
                "new",
            ][..],
            "memory-new.md",
        ),
        (
            &["agent", "update", &id, "--decision", "Use argon2id"][..],
            "index.md",
        ),
        (
            &["agent", "start", "--agent", "nobody-agent"][..],
            "index.md",
        ),
    ] {
        let out = as_nobody(&root, args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            !stderr.contains(".tmp-") && !stderr.contains(".bak-"),
            "{args:?}: {stderr}"
        );
        let json: serde_json::Value = serde_json::from_str(stderr.trim()).unwrap();
        let error = &json["error"];
        assert_eq!(error["kind"], "io", "{args:?}: {stderr}");
        let path = error["path"].as_str().unwrap();
        let named = Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // The agent write stages its snapshot or its index first: either is the user's.
        assert!(
            named == file
                || (file == "index.md" && named.ends_with(".md") && !named.starts_with('.')),
            "{args:?}: {path}"
        );
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("Permission denied") && message.contains("must be writable"),
            "{message}"
        );
        assert_eq!(
            tree(&root),
            before,
            "{args:?}: a refused write changed the tree"
        );
    }
}
