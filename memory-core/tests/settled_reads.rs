//! A file another program saves in place (truncate, then write in pieces) is read again
//! when a read caught it cut off, instead of being refused as malformed (Agent Memory's
//! `index.md`, while a second thread keeps saving it; context-memory's `_index.md` is read
//! the same way when it is changed, see memory-cli's foreign-writer tests).
//! A file that is cut off and not being changed is refused at once.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use memory_core::ErrorKind;
use memory_core::context_memory::{ContextMemory, Query};
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

/// Saves `text` over `path` in place, again and again until stopped: truncate, write the
/// first `half` bytes, pause, write the rest (as an editor that writes in pieces).
fn keep_saving_in_pieces(
    path: PathBuf,
    text: String,
    half: usize,
) -> (Arc<AtomicBool>, std::thread::JoinHandle<usize>) {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    let handle = std::thread::spawn(move || {
        let mut saves = 0;
        while !stopped.load(Ordering::SeqCst) {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&path)
                .unwrap();
            file.write_all(&text.as_bytes()[..half]).unwrap();
            std::thread::sleep(Duration::from_micros(500));
            file.write_all(&text.as_bytes()[half..]).unwrap();
            drop(file);
            saves += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        saves
    });
    (stop, handle)
}

/// One saver test at a time: on two cores, several savers and their readers side by side
/// starve the savers, which then look like programs that stopped half way.
static ONE_SAVER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn read_while_saved(
    path: &Path,
    text: &str,
    read: impl FnMut() -> memory_core::Result<usize>,
    rows: usize,
) {
    read_while_saved_in_pieces(path, text, text.len() / 2, read, rows);
}

/// Reads with `read` for a while, `path` being saved in place meanwhile in two pieces
/// (the first `cut` bytes long): every read is whole (`rows`), or refused as changed
/// meanwhile.
fn read_while_saved_in_pieces(
    path: &Path,
    text: &str,
    cut: usize,
    mut read: impl FnMut() -> memory_core::Result<usize>,
    rows: usize,
) {
    let _one = ONE_SAVER_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (stop, writer) = keep_saving_in_pieces(path.to_path_buf(), text.to_string(), cut);
    let started = Instant::now();
    let mut reads = 0;
    while started.elapsed() < Duration::from_millis(1200) {
        match read() {
            Ok(n) => assert_eq!(n, rows, "a whole read"),
            // A read that caught the file empty is a conflict, never a partial answer.
            Err(e) if e.kind() == ErrorKind::Conflict => {}
            Err(e) => panic!("read {reads}: {e}"),
        }
        reads += 1;
        // A reader that leaves the saver some of the machine, as a command would.
        std::thread::sleep(Duration::from_millis(1));
    }
    stop.store(true, Ordering::SeqCst);
    let saves = writer.join().unwrap();
    assert!(saves > 20 && reads > 20, "{saves} saves, {reads} reads");
}

#[test]
fn an_agent_index_saved_in_place_is_read_whole() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..200 {
        text.push_str(&format!(
            "| s-{n} | a | Topic {n} | Did {n}. | k | active | - | 2026-05-01 | 2026-05-01 |\n"
        ));
    }
    let f = Fixture::with_index(&text);
    let index = f.index();
    read_while_saved(&index, &text, || f.memory.sessions().map(|s| s.len()), 200);
}

#[test]
fn a_cut_off_index_nobody_is_saving_is_refused_at_once() {
    let text = format!(
        "{HEADER}| s-1 | a | T | S | k | active | - | 2026-05-01 | 2026-05-01 |\n| s-2 | a | T"
    );
    let f = Fixture::with_index(&text);
    let started = Instant::now();
    let err = f.memory.sessions().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
    assert_eq!(err.line(), Some(4));
    answered_within(started, Duration::from_millis(200));
}

/// Asserts less than `limit` has passed since `started`.
fn answered_within(started: Instant, limit: Duration) {
    let waited = started.elapsed();
    assert!(waited < limit, "{waited:?}");
}

/// A context-memory namespace `org.global` of 150 decisions summarised `{summary} {n}`,
/// each file there: the root, the `_index.md` path and its text.
fn context_namespace(summary: &str) -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    let mut text = String::from(
        "# Index: org.global\n\n> Last updated: 2026-04-03T10:00:00Z\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n",
    );
    for n in 0..150 {
        let file = format!("decision-{n:03}-auth.md");
        text.push_str(&format!(
            "| org.global.decision.{n:03} | decision | {summary} {n} | auth, security | accepted | {file} |\n"
        ));
        std::fs::write(
            ns.join(&file),
            format!(
                "---\nentity_name: org.global.decision.{n:03}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [auth, security]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\n{summary} {n}\n"
            ),
        )
        .unwrap();
    }
    let index = ns.join("_index.md");
    std::fs::write(&index, &text).unwrap();
    (dir, index, text)
}

/// Every `auth` decision of `org.global`.
fn auth_query() -> Query {
    Query::new()
        .namespace("org.global")
        .unwrap()
        .tags(["auth"])
        .limit(usize::MAX)
}

/// A context-memory `_index.md` another program keeps saving in place is read whole by
/// `query` (the index-rows path that never builds owned rows), never refused half read.
#[test]
fn a_context_index_saved_in_place_is_read_whole_by_query() {
    let (dir, index, text) = context_namespace("Auth rule");
    let memory = ContextMemory::open(dir.path()).unwrap();
    let query = auth_query();
    assert_eq!(memory.query(&query).unwrap().len(), 150);
    read_while_saved(&index, &text, || memory.query(&query).map(|h| h.len()), 150);
}

/// A file created empty (as `touch` makes it) is not waited on for a second as a file an
/// in-place save has just emptied is.
#[test]
fn a_file_created_empty_is_not_waited_on_for_a_second() {
    let f = Fixture::with_index("");
    std::fs::remove_file(f.index()).unwrap();
    std::fs::File::create(f.index()).unwrap();
    let started = Instant::now();
    assert!(f.memory.sessions().unwrap().is_empty());
    // Well under the second a file emptied by a save is waited on.
    answered_within(started, Duration::from_millis(700));
}

/// A file an in-place save emptied a moment ago and that stays empty is waited on until
/// it was emptied a second ago, then read as empty (not refused, not read half saved).
#[test]
fn a_file_emptied_and_left_empty_is_read_as_empty_after_a_second() {
    let f = Fixture::with_index(&format!(
        "{HEADER}| s-1 | a | T | S | k | active | - | 2026-05-01 | 2026-05-01 |\n"
    ));
    std::thread::sleep(Duration::from_millis(30));
    let started = Instant::now();
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(f.index())
        .unwrap();
    assert!(f.memory.sessions().unwrap().is_empty());
    let waited = started.elapsed();
    assert!(
        waited > Duration::from_millis(800) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

/// A save cut off at a line's end reads (the rows after the cut are missing): an
/// operation on a row past the cut reads the file again while it is being saved, and
/// never answers that the session is not there.
#[test]
fn a_row_past_a_save_cut_at_a_line_end_is_found() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..200 {
        text.push_str(&format!(
            "| s-{n} | a | Topic {n} | Did {n}. | k | active | - | 2026-05-01 | 2026-05-01 |\n"
        ));
    }
    let f = Fixture::with_index(&text);
    let cut = text[..text.len() / 2].rfind('\n').unwrap() + 1;
    std::thread::sleep(Duration::from_millis(30));
    let topic_of_the_last = || {
        f.memory.session("s-199").map(|row| {
            assert_eq!(row.topic, "Topic 199");
            1
        })
    };
    read_while_saved_in_pieces(&f.index(), &text, cut, topic_of_the_last, 1);
}

/// The first byte offset at or after the middle of `text` that is inside a character.
fn inside_a_character(text: &str) -> usize {
    (text.len() / 2..text.len())
        .find(|&i| !text.is_char_boundary(i))
        .expect("a multi-byte character after the middle")
}

/// An index of non-ASCII rows saved in place in two pieces cut inside a character (the
/// first read does not decode): Agent Memory's `index.md` and context-memory's
/// `_index.md` (by `query`) are read whole, never refused as not UTF-8.
#[test]
fn an_index_saved_in_pieces_cut_inside_a_character_is_read_whole() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..200 {
        text.push_str(&format!(
            "| s-{n} | a | 認証規則 {n} | 自動註冊 {n}。 | k | active | - | 2026-05-01 | 2026-05-01 |\n"
        ));
    }
    let f = Fixture::with_index(&text);
    std::thread::sleep(Duration::from_millis(30));
    let sessions = || f.memory.sessions().map(|s| s.len());
    read_while_saved_in_pieces(&f.index(), &text, inside_a_character(&text), sessions, 200);

    let (dir, path, index) = context_namespace("認証規則");
    std::thread::sleep(Duration::from_millis(30));
    let memory = ContextMemory::open(dir.path()).unwrap();
    let query = auth_query();
    let hits = || memory.query(&query).map(|h| h.len());
    read_while_saved_in_pieces(&path, &index, inside_a_character(&index), hits, 150);
}
