//! Contract 1 (lossless): bytes outside the changed row stay identical — prose, CRLF,
//! BOM, other rows' spacing and alignment, a missing final newline.

mod support;

use memory_core::{ManualRegistration, OrganizeOptions, SessionUpdate};
use support::Fixture;

const HAND_WRITTEN: &str = "\u{feff}# 記憶索引 Memory\r\n\r\nSome prose | with a pipe, and a table in a fence:\r\n\r\n```markdown\r\n| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\r\n```\r\n\r\n| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\r\n|:-----------|------------|-------|---------|----------|--------|---------------|------------|-----------:|\r\n|  s-old  |  cursor-main-agent  | 登入 \\| auth | Fixed <br> two lines | a, b | stale | - | 2026-01-01 09:00 | 2026-01-02 |\r\n| s-keep | x | T | S | k | active | - | 2026-05-20T10:00:00+08:00 | 2026-05-20T10:00:00+08:00 |\r\n\r\n## Notes after the table\r\n\r\nTrailing prose without a final newline.";

fn other_lines_unchanged(before: &str, after: &str, changed: &[&str]) {
    let keep = |l: &&str| {
        !changed
            .iter()
            .any(|id| l.contains(&format!("| {id} |")) || l.starts_with(&format!("|  {id}  |")))
    };
    let b: Vec<&str> = before.split("\r\n").filter(keep).collect();
    let a: Vec<&str> = after.split("\r\n").filter(keep).collect();
    let missing: Vec<_> = b.iter().filter(|l| !a.contains(l)).collect();
    assert!(
        missing.is_empty(),
        "lines changed that should not: {missing:?}\n--- after:\n{after}"
    );
}

#[test]
fn register_appends_after_the_last_row_and_keeps_every_other_byte() {
    let f = Fixture::with_index(HAND_WRITTEN);
    let id = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    let after = f.index_text();
    let row = after
        .split("\r\n")
        .find(|l| l.contains(id.as_str()))
        .unwrap()
        .to_string();
    let expected = HAND_WRITTEN.replace(
        "2026-05-20T10:00:00+08:00 |\r\n\r\n## Notes",
        &format!("2026-05-20T10:00:00+08:00 |\r\n{row}\r\n\r\n## Notes"),
    );
    assert_eq!(after, expected);
    assert!(after.ends_with("without a final newline."));
}

#[test]
fn every_operation_keeps_the_rest_of_a_hand_written_index() {
    let f = Fixture::with_index(HAND_WRITTEN);
    let before = f.index_text();
    let a = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S."))
        .unwrap();
    other_lines_unchanged(&before, &f.index_text(), &[a.as_str()]);

    let before = f.index_text();
    f.memory
        .update("s-keep", SessionUpdate::new().summary("New"))
        .unwrap();
    other_lines_unchanged(&before, &f.index_text(), &["s-keep"]);

    let before = f.index_text();
    f.memory.continue_from(a.as_str(), "s-old").unwrap();
    other_lines_unchanged(&before, &f.index_text(), &["s-old", a.as_str()]);
    let old_row = f.memory.session("s-old").unwrap();
    assert_eq!(old_row.topic, "登入 | auth");
    assert_eq!(old_row.summary, "Fixed \n two lines");

    let before = f.index_text();
    f.memory.release(a.as_str(), "s-old").unwrap();
    other_lines_unchanged(&before, &f.index_text(), &["s-old"]);

    let before = f.index_text();
    f.memory.archive(a.as_str()).unwrap();
    other_lines_unchanged(&before, &f.index_text(), &[a.as_str()]);

    let before = f.index_text();
    f.days_later(60);
    f.memory.organize(OrganizeOptions::default()).unwrap();
    other_lines_unchanged(&before, &f.index_text(), &["s-keep"]);
    let text = f.index_text();
    assert!(text.starts_with('\u{feff}'));
    assert!(text.ends_with("without a final newline."));
    assert!(!text.replace("\r\n", "").contains('\n'), "CRLF everywhere");
}

#[test]
fn removing_the_last_row_of_a_file_without_final_newline_keeps_it_without() {
    let text = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n| s-1 | a | T | S | k | active | - | 2026-05-20 | 2026-05-20 |\n| s-2 | a | 未設定 | x | k | idle | - | 2026-05-01 | 2026-05-01 |";
    let f = Fixture::with_index(text);
    f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(f.index_text(), text.rsplit_once('\n').unwrap().0);
}

#[test]
fn an_index_without_the_table_gets_it_appended_after_its_prose() {
    let f = Fixture::with_index("# My memory\n\nJust notes.");
    let id = f.memory.register_session_start("a").unwrap();
    let text = f.index_text();
    assert!(
        text.starts_with("# My memory\n\nJust notes.\n\n| Session ID | Agent Name |"),
        "{text}"
    );
    assert!(text.contains(id.as_str()));
}
