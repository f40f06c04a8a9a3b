//! A handle keeps the rows a query read from a long `_index.md` with the exact text they
//! came from, and reuses them only for that text: every query answers what a query of a
//! fresh handle answers — after a write, after a hand edit that keeps the file's size and
//! modification time, and after a hand edit that makes the index unreadable.

use std::path::Path;
use std::time::SystemTime;

use memory_core::ErrorKind;
use memory_core::context_memory::{ContextMemory, Hit, Query};

const HEADER: &str =
    "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n";

/// A namespace of `rows` decisions (an index long enough to be kept), every file there.
fn long_namespace(root: &Path, rows: usize) -> std::path::PathBuf {
    let dir = root.join("org/global");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text =
        format!("# Index: org.global\n\n> Last updated: 2026-04-03T10:00:00Z\n\n{HEADER}");
    for n in 0..rows {
        let file = format!("decision-{n:04}-rule.md");
        let tags = if n % 3 == 0 {
            "auth, security"
        } else {
            "style, tech"
        };
        text.push_str(&format!(
            "| org.global.decision.{n:04} | decision | Rule number {n:04} | {tags} | accepted | {file} |\n"
        ));
        std::fs::write(
            dir.join(&file),
            format!(
                "---\nentity_name: org.global.decision.{n:04}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [{tags}]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nRule number {n:04}\n"
            ),
        )
        .unwrap();
    }
    assert!(text.len() > 64 * 1024, "long enough to be kept");
    let index = dir.join("_index.md");
    std::fs::write(&index, text).unwrap();
    index
}

fn query() -> Query {
    Query::new()
        .namespace("org.global")
        .unwrap()
        .tags(["auth"])
        .limit(usize::MAX)
}

type Answer = Result<Vec<(String, String)>, (ErrorKind, Option<usize>)>;

fn answer(memory: &ContextMemory) -> Answer {
    memory
        .query(&query())
        .map(|hits: Vec<Hit>| {
            hits.into_iter()
                .map(|h| (h.entity_name.to_string(), h.summary))
                .collect()
        })
        .map_err(|e| (e.kind(), e.line()))
}

/// What the kept handle answers, checked against a fresh handle's answer.
fn same_as_fresh(kept: &ContextMemory, root: &Path) -> Answer {
    let fresh = answer(&ContextMemory::open(root).unwrap());
    let again = answer(kept);
    assert_eq!(again, fresh);
    again
}

#[test]
fn a_kept_handle_answers_as_a_fresh_one_whatever_changed() {
    let dir = tempfile::tempdir().unwrap();
    let index = long_namespace(dir.path(), 900);
    let kept = ContextMemory::open(dir.path()).unwrap();
    let first = same_as_fresh(&kept, dir.path()).unwrap();
    assert_eq!(first.len(), 300);
    assert_eq!(same_as_fresh(&kept, dir.path()).unwrap(), first);

    // A hand edit keeping the size and modification time: read, not reused.
    let meta = std::fs::metadata(&index).unwrap();
    let modified: SystemTime = meta.modified().unwrap();
    let text = std::fs::read_to_string(&index).unwrap();
    let edited = text.replacen("Rule number 0300", "Rule NUMBER 0300", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&index, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&index)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let after_edit = same_as_fresh(&kept, dir.path()).unwrap();
    assert!(after_edit.contains(&(
        "org.global.decision.0300".to_string(),
        "Rule NUMBER 0300".to_string()
    )));

    // A write through another handle.
    let other = ContextMemory::open(dir.path()).unwrap();
    other
        .write(
            memory_core::context_memory::NewEntry::new(
                "org.global",
                memory_core::context_memory::Category::Decision,
                ["auth", "security"],
                "Tokens rotate daily.",
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(same_as_fresh(&kept, dir.path()).unwrap().len(), 301);

    // A hand edit that makes a row unreadable: refused, naming the line, by both.
    let text = std::fs::read_to_string(&index).unwrap();
    std::fs::write(&index, text.replacen("| accepted |", "| sleeping |", 1)).unwrap();
    let refused = same_as_fresh(&kept, dir.path()).unwrap_err();
    assert_eq!(refused.0, ErrorKind::Malformed);
    assert!(refused.1.is_some());
    // And back: the kept rows of the earlier text are not the answer for this one.
    std::fs::write(&index, &text).unwrap();
    assert_eq!(same_as_fresh(&kept, dir.path()).unwrap().len(), 301);
}
