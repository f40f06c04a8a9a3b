//! Every I/O error names the system call that failed (`Error::syscall`), provoked for real:
//! each file memory-core opens, reads or replaces is made a directory, or sits below a
//! regular file. We run as root, so permission bits cannot make a call fail; the
//! read-only refusal is memory-core's own.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use memory_core::{AgentMemory, Error, ErrorKind, SessionUpdate};

/// The error's OS error, which every case here has.
fn os_error(err: &Error) -> &std::io::Error {
    std::error::Error::source(err)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .unwrap_or_else(|| panic!("no io::Error behind {err}"))
}

/// Asserts an I/O error on `path` from `syscall` with the OS error `errno`, and that the
/// message is `<path>: <OS message>` in plain words (without Rust's ` (os error N)`).
fn assert_io(err: &Error, path: &Path, syscall: &str, errno: Option<i32>) {
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert_eq!(err.path(), Some(path), "{err}");
    assert_eq!(err.syscall(), Some(syscall), "{err}");
    let source = os_error(err);
    assert_eq!(source.raw_os_error(), errno, "{err}");
    let text = source.to_string();
    let plain = match errno {
        Some(n) => text
            .trim_end_matches(&format!(" (os error {n})"))
            .to_string(),
        None => text,
    };
    assert_eq!(err.to_string(), format!("{}: {plain}", path.display()));
    assert!(!err.to_string().contains("os error"), "{err}");
}

fn memory_at(root: &Path) -> AgentMemory {
    AgentMemory::open(root).expect("open")
}

/// `<tmp>/memory`, with the temp dir kept alive by the caller.
fn root_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("memory")
}

#[test]
fn a_root_below_a_regular_file_fails_on_mkdir_and_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("file");
    std::fs::write(&file, "x").expect("write");
    let root = file.join("memory");
    let memory = memory_at(&root);
    let err = memory.register_session_start("a").unwrap_err();
    assert_io(&err, &root, "mkdir", Some(20)); // ENOTDIR
    let err = memory.sessions().unwrap_err();
    assert_io(&err, &root.join("index.md"), "open", Some(20));
}

#[test]
fn a_directory_as_the_index_fails_on_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root_in(&dir);
    std::fs::create_dir_all(root.join("index.md")).expect("mkdir");
    let memory = memory_at(&root);
    let index = root.join("index.md");
    assert_io(&memory.sessions().unwrap_err(), &index, "read", Some(21)); // EISDIR
    let err = memory.register_session_start("a").unwrap_err();
    assert_io(&err, &index, "read", Some(21));
}

#[test]
fn a_directory_as_the_lock_file_fails_on_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root_in(&dir);
    std::fs::create_dir_all(root.join(".memcore.lock")).expect("mkdir");
    let err = memory_at(&root).register_session_start("a").unwrap_err();
    assert_io(&err, &root.join(".memcore.lock"), "open", Some(21));
}

#[test]
fn a_directory_as_a_snapshot_fails_on_read_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root_in(&dir);
    let memory = memory_at(&root);
    let id = memory.register_session_start("a").expect("start");
    let snapshot = memory.session_path(id.as_str()).expect("path");
    std::fs::create_dir_all(&snapshot).expect("mkdir");
    let err = memory
        .update(id.as_str(), SessionUpdate::new().summary("x"))
        .unwrap_err();
    assert_io(&err, &snapshot, "read", Some(21));
    assert_eq!(std::fs::read_dir(&snapshot).expect("list").count(), 0);
}

#[test]
fn replacing_a_directory_is_the_eisdir_of_its_rename() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("index.md");
    std::fs::create_dir(&target).expect("mkdir");
    let err = memory_core::durable::replace_atomically(&target, b"x\n").unwrap_err();
    assert_io(&err, &target, "rename", Some(21));
    assert_eq!(std::fs::read_dir(&target).expect("list").count(), 0);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, ["index.md"], "no temp file is left");
}

#[test]
fn a_read_only_index_is_refused_as_the_open_for_writing_without_an_os_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = root_in(&dir);
    let memory = memory_at(&root);
    memory.register_session_start("a").expect("start");
    let index = root.join("index.md");
    std::fs::set_permissions(&index, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let err = memory.register_session_start("b").unwrap_err();
    assert_io(&err, &index, "open", None);
    assert_eq!(os_error(&err).kind(), std::io::ErrorKind::PermissionDenied);
}

#[test]
fn errors_other_than_io_name_no_syscall() {
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = memory_at(&root_in(&dir));
    memory.register_session_start("a").expect("start");
    let err = memory.session("2026-01-01-0000-nobody").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(err.syscall(), None);
    let err = memory.session("../x").unwrap_err();
    assert_eq!(err.syscall(), None);
}
