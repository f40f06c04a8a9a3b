//! A SessionStart's journal found after its row was written and flushed (the writer died
//! before it removed the journal, and other programs may have written the index since):
//! the next reader or writer must either finish cleanly (the row is there once, nothing
//! after it is lost) or refuse naming the journal and touch nothing. The journal is
//! played by writing the one the start recorded back into the directory.

use std::fs;
use std::path::Path;

use memory_core::durable::JOURNAL_FILE_NAME;
use memory_core::{AgentMemory, ErrorKind, SessionUpdate};

/// Runs one start and returns the journal it stored (rebuilt from the bytes it appended).
fn start_and_its_journal(memory: &AgentMemory) -> (String, String) {
    let index = memory.index_path();
    let before = fs::read(&index).map(|b| b.len()).unwrap_or(0);
    let id = memory.register_session_start("cursor-main-agent").unwrap();
    assert!(!memory.root().join(JOURNAL_FILE_NAME).exists());
    let after = fs::read_to_string(&index).unwrap();
    let journal = serde_json::json!({"version": 1, "state": "apply", "steps": [
        {"op": "append", "target": "index.md", "at": before, "text": &after[before..]}]});
    (id.as_str().to_string(), journal.to_string())
}

fn resurrect(root: &Path, journal: &str) {
    fs::write(root.join(JOURNAL_FILE_NAME), journal).unwrap();
}

fn ids(memory: &AgentMemory) -> Vec<String> {
    let mut ids: Vec<String> = memory
        .sessions()
        .unwrap()
        .into_iter()
        .map(|r| r.session_id.as_str().to_string())
        .collect();
    ids.sort();
    ids
}

/// Nothing after the start, more starts after it, or another program's bytes appended
/// after it: the journal is finished and removed, every row is read once, and the next
/// start works.
#[test]
fn a_journal_back_after_a_finished_start_is_finished_again_and_loses_nothing() {
    for later in ["nothing", "two more starts", "a hand-added line"] {
        let dir = tempfile::tempdir().unwrap();
        let memory = AgentMemory::open(dir.path().join("memory")).unwrap();
        memory.register_session_start("cursor-main-agent").unwrap();
        let (first, journal) = start_and_its_journal(&memory);
        let mut expected = vec![first];
        match later {
            "two more starts" => {
                for _ in 0..2 {
                    let id = memory.register_session_start("cursor-main-agent").unwrap();
                    expected.push(id.as_str().to_string());
                }
            }
            "a hand-added line" => {
                let mut text = fs::read_to_string(memory.index_path()).unwrap();
                text.push_str("\nA note typed under the table in an editor.\n");
                fs::write(memory.index_path(), text).unwrap();
            }
            _ => {}
        }
        let settled = fs::read(memory.index_path()).unwrap();
        let mut all = ids(&memory);
        resurrect(memory.root(), &journal);

        assert_eq!(ids(&memory), all, "{later}: a reader sees every row once");
        assert!(
            !memory.root().join(JOURNAL_FILE_NAME).exists(),
            "{later}: the reader finished the journal"
        );
        assert_eq!(fs::read(memory.index_path()).unwrap(), settled, "{later}");
        for id in &expected {
            assert!(all.contains(id), "{later}: {id}");
        }

        resurrect(memory.root(), &journal);
        let next = memory.register_session_start("cursor-main-agent").unwrap();
        all.push(next.as_str().to_string());
        all.sort();
        assert_eq!(ids(&memory), all, "{later}: a writer finishes it too");
        assert!(!memory.root().join(JOURNAL_FILE_NAME).exists(), "{later}");
    }
}

/// The index rewritten since (an update of the row the start appended: its bytes are
/// no longer the journal's): refused, naming the journal, and nothing touched.
#[test]
fn a_journal_back_after_the_index_was_rewritten_is_refused_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memory = AgentMemory::open(dir.path().join("memory")).unwrap();
    memory.register_session_start("cursor-main-agent").unwrap();
    let (first, journal) = start_and_its_journal(&memory);
    memory
        .update(
            &first,
            SessionUpdate::new().context("picked the parser up again"),
        )
        .unwrap();
    resurrect(memory.root(), &journal);
    let before = fs::read(memory.index_path()).unwrap();

    let err = memory
        .register_session_start("cursor-main-agent")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
    assert!(err.to_string().contains(JOURNAL_FILE_NAME), "{err}");
    assert_eq!(fs::read(memory.index_path()).unwrap(), before);
    assert!(memory.root().join(JOURNAL_FILE_NAME).exists());
}
