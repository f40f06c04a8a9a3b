//! The append check of [`IndexDoc::prepare_append`] gives the whole-table reader's
//! verdict: on random documents — hand-kept shapes around and inside the table, every
//! line ending, with and without a final newline, unreadable rows — appending a row the
//! fast way yields exactly the document, table, ids and warnings that
//! [`IndexDoc::prepare`] (the whole new text parsed again) yields, or both refuse.

use chrono::FixedOffset;
use proptest::prelude::*;

use super::*;
use crate::agent_memory::{SessionRow, Status, Timestamp};

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |";
const DELIMITER: &str = "|---|---|---|---|---|---|---|---|---|";

fn offset() -> FixedOffset {
    // Eight hours is a valid offset.
    FixedOffset::east_opt(8 * 3600).expect("valid offset")
}

fn row_line(n: usize) -> String {
    format!(
        "| 2026-05-{:02}-1318-agent-{n} | agent-{n} | Topic {n} | Did {n}. | k{n}, x | active | - | 2026-05-25T13:18:00+08:00 | 2026-05-25T13:18:00+08:00 |",
        1 + n % 28
    )
}

/// Lines that may stand before the table.
fn before_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("# Memory Index".to_string()),
        4 => Just(String::new()),
        1 => Just("Some prose | with a pipe".to_string()),
        1 => Just("%% a comment %%".to_string()),
        1 => Just("<!-- note -->".to_string()),
        1 => Just("- a list item".to_string()),
        1 => Just("> a quote".to_string()),
        1 => Just("```".to_string()),
        1 => Just("    indented".to_string()),
    ]
}

/// Body lines of the table (readable, unreadable, or lines that end it).
fn body_line() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => (0usize..400).prop_map(row_line),
        1 => (0usize..40).prop_map(|n| row_line(n).replace("active", "busy")),
        1 => (0usize..40).prop_map(|n| row_line(n).trim_start_matches('|').trim_end_matches('|').to_string()),
        1 => (0usize..40).prop_map(|n| format!("{}  ", row_line(n))),
        1 => (0usize..40).prop_map(|n| row_line(n).replace("Topic", "a <!-- b")),
        1 => (0usize..40).prop_map(|n| row_line(n).replace("Topic", "a %% b")),
        1 => (0usize..40).prop_map(|n| row_line(n).replace("Topic", "a \\| b")),
        1 => (0usize..40).prop_map(|n| format!("    {}", row_line(n))),
        1 => Just("| only | three | cells |".to_string()),
        1 => Just(String::new()),
        1 => Just("```".to_string()),
        1 => Just("plain text".to_string()),
    ]
}

/// Lines that may follow the table.
fn after_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("## Notes".to_string()),
        Just("trailing prose".to_string()),
        Just("%%".to_string()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(before_line(), 0..4),
        prop_oneof![6 => Just(""), 1 => Just("  "), 1 => Just("- "), 1 => Just("> "), 1 => Just("- item\n\n  ")],
        prop::collection::vec(body_line(), 0..8),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(after_line(), 1..3)],
        prop_oneof![Just("\n"), Just("\r\n")],
        prop_oneof![1 => Just(""), 4 => Just("end"), 1 => Just("\r")],
    )
        .prop_map(|(before, prefix, body, after, le, last)| {
            let mut lines = before;
            lines.push(format!("{prefix}{HEADER}"));
            let continuation = match prefix {
                "- " | "- item\n\n  " => "  ",
                other => other,
            };
            lines.push(format!("{continuation}{DELIMITER}"));
            lines.extend(body);
            lines.extend(after);
            let mut text = lines.join(le);
            match last {
                "end" => text.push_str(le),
                "\r" => text.push('\r'),
                _ => {}
            }
            text
        })
}

fn new_row() -> SessionRow {
    let at = Timestamp::parse("2026-06-01T09:00:00+08:00", offset()).expect("timestamp");
    SessionRow {
        session_id: SessionId::parse("2026-06-01-0900-new-agent").expect("id"),
        agent_name: "new-agent".to_string(),
        topic: "未設定".to_string(),
        summary: "sessionStart 自動註冊，尚未整理主題。".to_string(),
        keywords: vec!["sessionStart".to_string(), "new-agent".to_string()],
        status: Status::Idle,
        referenced_by: Vec::new(),
        started_at: at.clone(),
        updated_at: at,
    }
}

/// The document read as SessionStart reads it (leniently), when it reads.
fn lenient(text: &str) -> Option<IndexDoc> {
    let mut warnings = Vec::new();
    let mut doc = IndexDoc::parse_with(
        Path::new("index.md"),
        text.to_string(),
        offset(),
        Some(&mut warnings),
    )
    .ok()?;
    doc.lenient = Some(warnings);
    Some(doc)
}

/// What a prepared index is, for comparison.
type Outcome = (String, Table, Vec<(String, Option<usize>)>, Vec<usize>);

fn outcome(new: Result<NewIndex>) -> std::result::Result<Outcome, String> {
    new.map(|n| {
        // Where each row's id is found (the first row holding it), and the reserved rows.
        let ids = (0..n.doc.len())
            .map(|p| {
                let id = n.doc.table.rows[p].raw_cell(&n.doc.text, 0).to_string();
                let found = SessionId::parse(&id).ok().and_then(|i| n.doc.position(&i));
                (id, found)
            })
            .collect();
        (n.doc.text, n.doc.table, ids, n.doc.reserved)
    })
    .map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn the_append_check_gives_the_whole_table_verdict(text in document()) {
        let Some(doc) = lenient(&text) else { return Ok(()) };
        let row = new_row();
        let whole = outcome(doc.prepare(vec![doc.append(&row)]));
        let fast = outcome(doc.clone().prepare_append(&row));
        prop_assert_eq!(fast, whole);
    }
}

#[test]
fn the_common_shapes_take_the_append_path() {
    let shapes = [
        format!("# Memory Index\n\n{HEADER}\n{DELIMITER}\n{}\n", row_line(1)),
        format!("{HEADER}\r\n{DELIMITER}\r\n{}\r\n", row_line(1)),
        format!("{HEADER}\n{DELIMITER}\n{}", row_line(1)),
        format!(
            "{HEADER}\n{DELIMITER}\n{}\n{}\n",
            row_line(1),
            row_line(2).replace("active", "busy")
        ),
    ];
    for text in shapes {
        let doc = lenient(&text).expect("reads");
        let new = doc.prepare_append(&new_row()).expect("prepares");
        assert!(
            matches!(new.commit, Commit::Append { at } if at == text.len()),
            "{text:?}"
        );
        new.expect_rows(&[new_row()]).expect("holds the row");
    }
    let not_at_the_end = [
        format!("{HEADER}\n{DELIMITER}\n{}\n\nNotes.\n", row_line(1)),
        format!("{HEADER}\n{DELIMITER}\n"),
        format!("- notes\n\n  {HEADER}\n  {DELIMITER}\n  {}\n", row_line(1)),
        format!("{HEADER}\n{DELIMITER}\n{}\r", row_line(1)),
    ];
    for text in not_at_the_end {
        let doc = lenient(&text).expect("reads");
        let new = doc.prepare_append(&new_row()).expect("prepares");
        assert!(matches!(new.commit, Commit::Rewrite { .. }), "{text:?}");
        new.expect_rows(&[new_row()]).expect("holds the row");
    }
}

/// The random documents exercise both paths (a check that holds only vacuously proves
/// nothing).
#[test]
fn the_random_documents_take_both_paths() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut appended, mut rewritten) = (0, 0);
    for _ in 0..1000 {
        let text = document()
            .new_tree(&mut runner)
            .expect("a document")
            .current();
        let Some(doc) = lenient(&text) else { continue };
        match doc.prepare_append(&new_row()).map(|n| n.commit) {
            Ok(Commit::Append { .. }) => appended += 1,
            Ok(Commit::Rewrite { .. }) => rewritten += 1,
            Err(_) => {}
        }
    }
    assert!(
        appended >= 80 && rewritten >= 80,
        "{appended} appended, {rewritten} rewritten"
    );
}
