//! A handle keeps the root it was opened with: a relative root is made absolute at
//! open, so a later change of the current directory neither hides the rows nor writes
//! a second tree. This file holds one test on purpose: it changes the process's current
//! directory, which would disturb tests running beside it in the same binary.

use memory_core::AgentMemory;

#[test]
fn a_relative_root_survives_a_later_chdir() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    std::env::set_current_dir(first.path()).unwrap();
    let memory = AgentMemory::open("memory").unwrap();
    let tilde = AgentMemory::open("~/memory").unwrap();
    let id = memory.register_session_start("cursor-main-agent").unwrap();

    std::env::set_current_dir(second.path()).unwrap();
    assert_eq!(
        memory.root(),
        first
            .path()
            .canonicalize()
            .unwrap()
            .join("memory")
            .as_path()
    );
    assert_eq!(memory.session(id.as_str()).unwrap().session_id, id);
    let later = memory.register_session_start("cursor-main-agent").unwrap();
    assert_eq!(memory.sessions().unwrap().len(), 2, "{later}");
    assert!(
        !second.path().join("memory").exists(),
        "a second tree was written"
    );
    // `~` is a plain directory name, never the home directory.
    assert_eq!(
        tilde.root(),
        first
            .path()
            .canonicalize()
            .unwrap()
            .join("~/memory")
            .as_path()
    );
}
