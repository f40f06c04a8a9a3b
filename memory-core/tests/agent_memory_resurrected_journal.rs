//! A SessionStart's journal is removed without flushing the directory (its row is already
//! flushed in place), so a power loss right after a start can bring the journal back.
//! Whatever happened to the index after that start, the next reader or writer must
//! either finish cleanly (the row is there once, nothing after it is lost) or refuse
//! naming the journal and touch nothing. The power loss is played by writing the
//! journal the start recorded back into the lock file, where it is kept (one frame:
//! `memcore-journal <len> <FNV-1a 64 hex>\n` and the JSON plan).

use std::fs;
use std::path::Path;

use memory_core::durable::{JOURNAL_FILE_NAME, LOCK_FILE_NAME};
use memory_core::{AgentMemory, ErrorKind, SessionUpdate};

/// Runs one start and returns the journal it stored (rebuilt from the bytes it appended).
fn start_and_its_journal(memory: &AgentMemory) -> (String, String) {
    let index = memory.index_path();
    let before = fs::read(&index).map(|b| b.len()).unwrap_or(0);
    let id = memory.register_session_start("cursor-main-agent").unwrap();
    assert!(!journal_left(memory.root()));
    let after = fs::read_to_string(&index).unwrap();
    let journal = serde_json::json!({"version": 1, "state": "apply", "steps": [
        {"op": "append", "target": "index.md", "at": before, "text": &after[before..]}]});
    (id.as_str().to_string(), journal.to_string())
}

/// The lock file's frame around `json` (the format is on disk: it must not change).
fn framed(json: &str) -> Vec<u8> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in json.as_bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let mut frame = format!("memcore-journal {} {hash:016x}\n", json.len()).into_bytes();
    frame.extend_from_slice(json.as_bytes());
    frame
}

fn resurrect(root: &Path, journal: &str) {
    fs::write(root.join(LOCK_FILE_NAME), framed(journal)).unwrap();
}

/// Whether a plan is still recorded (in the lock file, or a journal file of its own).
fn journal_left(root: &Path) -> bool {
    fs::metadata(root.join(LOCK_FILE_NAME)).is_ok_and(|m| m.len() > 0)
        || root.join(JOURNAL_FILE_NAME).exists()
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
            !journal_left(memory.root()),
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
        assert!(!journal_left(memory.root()), "{later}");
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
    assert!(err.to_string().contains(LOCK_FILE_NAME), "{err}");
    assert!(err.to_string().contains("empty that file"), "{err}");
    assert_eq!(fs::read(memory.index_path()).unwrap(), before);
    assert!(journal_left(memory.root()));
}

/// A plan kept as a journal file of its own (as earlier builds did) is still finished.
#[test]
fn a_journal_file_of_an_earlier_build_is_still_finished() {
    let dir = tempfile::tempdir().unwrap();
    let memory = AgentMemory::open(dir.path().join("memory")).unwrap();
    memory.register_session_start("cursor-main-agent").unwrap();
    let (first, journal) = start_and_its_journal(&memory);
    // The append cut short before the crash: half of the row.
    let text = fs::read(memory.index_path()).unwrap();
    let cut = text.len() - memory_core_row_len(&journal) / 2;
    fs::write(memory.index_path(), &text[..cut]).unwrap();
    fs::write(memory.root().join(JOURNAL_FILE_NAME), &journal).unwrap();
    assert!(memory.session(&first).is_ok(), "the row is completed");
    assert_eq!(fs::read(memory.index_path()).unwrap(), text);
    assert!(!journal_left(memory.root()));
}

/// The length of the text a journal appends.
fn memory_core_row_len(journal: &str) -> usize {
    let plan: serde_json::Value = serde_json::from_str(journal).unwrap();
    plan["steps"][0]["text"].as_str().unwrap().len()
}

/// What a crash leaves of a first plan being recorded (any prefix of its frame, zeros
/// where the data never reached the disk): nothing was applied, so nothing is done and
/// the next start works. Bytes that are no frame at all are refused, naming the lock file.
#[test]
fn a_plan_cut_short_in_the_lock_file_is_dropped_and_foreign_bytes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let memory = AgentMemory::open(dir.path().join("memory")).unwrap();
    memory.register_session_start("cursor-main-agent").unwrap();
    let before_index = fs::read(memory.index_path()).unwrap();
    let plan = serde_json::json!({"version": 1, "state": "apply", "steps": [
        {"op": "append", "target": "index.md", "at": before_index.len(), "text": "| never |\n"}]});
    let frame = framed(&plan.to_string());
    for cut in (0..frame.len()).step_by(7) {
        let mut torn = frame[..cut].to_vec();
        torn.resize(frame.len(), 0);
        fs::write(memory.root().join(LOCK_FILE_NAME), &torn).unwrap();
        let rows = memory.sessions().unwrap().len();
        assert_eq!(
            fs::read(memory.index_path()).unwrap(),
            before_index,
            "cut {cut}"
        );
        assert!(!journal_left(memory.root()), "cut {cut}");
        assert_eq!(rows, 1);
    }
    fs::write(memory.root().join(LOCK_FILE_NAME), "not a journal\n").unwrap();
    let err = memory
        .register_session_start("cursor-main-agent")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
    assert!(err.to_string().contains(LOCK_FILE_NAME), "{err}");
    assert_eq!(fs::read(memory.index_path()).unwrap(), before_index);
}
