//! Hand-kept `index.md` tables (issue 6, part 3): every shape people write in Obsidian is
//! either read whole — every row — or refused with a `Malformed` error naming the line;
//! a second table is never appended beside one that resembles the index; SessionStart
//! registers beside a malformed row of another session; organize and archive go on past
//! an unreadable snapshot of another session.

mod support;

use memory_core::{ErrorKind, OrganizeOptions, SessionUpdate, Status};
use proptest::prelude::*;
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

fn row(id: &str) -> String {
    format!("| {id} | a | T | S | k | active | - | 2026-05-01 | 2026-05-01 |")
}

fn ids(f: &Fixture) -> Vec<String> {
    let mut ids: Vec<String> = f
        .memory
        .sessions()
        .expect("read")
        .into_iter()
        .map(|r| r.session_id.to_string())
        .collect();
    ids.sort();
    ids
}

/// Every reading and writing command refuses `text` with `Malformed` at `line` and
/// leaves the tree byte-identical; the message is returned for further checks.
fn refused_at(text: &str, line: usize) -> String {
    let f = Fixture::with_index(text);
    let before = f.tree();
    let m = &f.memory;
    let errors = [
        m.sessions().map(|_| ()).unwrap_err(),
        m.register_session_start("a").map(|_| ()).unwrap_err(),
        m.organize(OrganizeOptions::default())
            .map(|_| ())
            .unwrap_err(),
        m.update("s-1", SessionUpdate::new().summary("x"))
            .map(|_| ())
            .unwrap_err(),
    ];
    for err in &errors {
        assert_eq!(err.kind(), ErrorKind::Malformed, "{text:?}: {err}");
        assert_eq!(err.line(), Some(line), "{text:?}: {err}");
        assert_eq!(err.path(), Some(f.index().as_path()));
    }
    assert_eq!(f.tree(), before, "nothing written for {text:?}");
    errors[0].to_string()
}

#[test]
fn hand_written_variants_are_read_whole() {
    let text = "\u{feff}# My sessions\r\n\r\nSESSION  ID | agent name | Topic|Summary |KEYWORDS| status | Referenced by | Started At | Updated At\r\n:--|--|--|--|--|:-:|--|--|--:\r\n| s-1 | a | 登入 \\| auth | one<br>two | x, y | **active** | — | 2026-05-01 | 2026-05-01 09:00 |   \r\ns-2 | a\t| T | S | k | `idle` | None | 2026-05-01 | 2026-05-01\r\n| s-3 | a | T | S | k | *STALE* | – | 2026-05-01 | 2026-05-01 |\r\n| s-4 | a | T | S | k | Active |  | 2026-05-01 | 2026-05-01 |\r\n| s-5 | a | T | S | k | __idle__ | none | 2026-05-01 | 2026-05-01 |\r\n| s-6 | a | T | S | k | active | s-1, s-2 | 2026-05-01 | 2026-05-01 |";
    let f = Fixture::with_index(text);
    assert_eq!(ids(&f), ["s-1", "s-2", "s-3", "s-4", "s-5", "s-6"]);
    let s1 = f.memory.session("s-1").unwrap();
    assert_eq!(s1.topic, "登入 | auth");
    assert_eq!(s1.summary, "one\ntwo");
    assert_eq!(s1.status, Status::Active);
    assert!(s1.referenced_by.is_empty());
    let status = |id: &str| f.memory.session(id).unwrap().status;
    assert_eq!(status("s-2"), Status::Idle);
    assert_eq!(status("s-3"), Status::Stale);
    assert_eq!(status("s-4"), Status::Active);
    assert_eq!(status("s-5"), Status::Idle);
    for id in ["s-2", "s-3", "s-4", "s-5"] {
        assert!(f.memory.session(id).unwrap().referenced_by.is_empty());
    }
    assert_eq!(f.memory.session("s-6").unwrap().referenced_by.len(), 2);

    // SessionStart appends right after the last row; every other byte stays.
    let id = f.memory.register_session_start("hook").unwrap();
    let after = f.index_text();
    assert!(after.starts_with(text), "{after}");
    let added = &after[text.len()..];
    assert!(
        added.starts_with(&format!("\r\n| {id} | hook |")),
        "{added:?}"
    );
    assert!(!added.ends_with('\n'), "still no final newline");
    assert_eq!(ids(&f).len(), 7);

    // An update re-renders only its own row, canonically; the others keep their bytes.
    f.memory
        .update("s-3", SessionUpdate::new().summary("now"))
        .unwrap();
    let updated = f.index_text();
    assert!(updated.contains("| s-3 | a | T | now | k | active | - |"));
    for kept in [
        "s-2 | a\t| T | S | k | `idle` | None | 2026-05-01 | 2026-05-01\r\n",
        "| s-5 | a | T | S | k | __idle__ | none | 2026-05-01 | 2026-05-01 |\r\n",
        "| **active** | — |",
    ] {
        assert!(updated.contains(kept), "{kept:?} kept in {updated:?}");
    }
}

#[test]
fn rows_cut_off_from_the_table_are_refused_naming_the_first_one() {
    let (r1, r2, r3) = (row("s-1"), row("s-2"), row("s-3"));
    for (between, reason) in [
        ("", "a blank line"),
        ("   ", "a blank line"),
        ("---", "a thematic break"),
        ("***", "a thematic break"),
        ("## Later", "a heading"),
        ("> a quote", "a blockquote"),
        ("- a list item", "a list item"),
        ("%% hidden %%", "comment"),
        ("<!-- note -->", "comment"),
        ("<div>", "HTML"),
    ] {
        let text = format!("{HEADER}{r1}\n{between}\n{r2}\n{r3}\n");
        let message = refused_at(&text, 5);
        assert!(message.contains("not part of the index table"), "{message}");
        assert!(message.contains(reason), "{between:?}: {message}");
    }
    // An indented row is code, not a row: refused too.
    refused_at(&format!("{HEADER}{r1}\n    {r2}\n"), 4);
    refused_at(&format!("{HEADER}{r1}\n\t{r2}\n"), 4);
    // A row before the table, cut off by a blank line.
    refused_at(&format!("{r2}\n\n{HEADER}{r1}\n"), 1);
    // A row-shaped line without outer pipes after the table.
    refused_at(
        &format!(
            "{HEADER}{r1}\n\n2026-05-01-0900-a | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01\n"
        ),
        5,
    );
    // Rows with no header at all: never a second table beside them.
    refused_at(&format!("# Index\n\n{r1}\n{r2}\n"), 3);
}

#[test]
fn a_second_table_with_the_index_header_is_refused() {
    let text = format!(
        "{HEADER}{}\n\n## Old\n\n{HEADER}{}\n",
        row("s-1"),
        row("s-2")
    );
    let message = refused_at(&text, 7);
    assert!(message.contains("second"), "{message}");
    // Two tables run together: the second header is a row of the first.
    let text = format!("{HEADER}{}\n{HEADER}{}\n", row("s-1"), row("s-2"));
    refused_at(&text, 4);
}

#[test]
fn tables_that_resemble_the_index_are_refused_naming_their_line() {
    let r1 = row("s-1");
    // Other columns.
    refused_at(
        &format!("| Session ID | Topic | Status |\n|---|---|---|\n{r1}\n"),
        1,
    );
    // No delimiter row.
    let header_line = HEADER.lines().next().unwrap();
    refused_at(&format!("{header_line}\n{r1}\n"), 2);
    // A delimiter row with another cell count.
    refused_at(&format!("{header_line}\n|---|---|\n{r1}\n"), 2);
    // A header-shaped line and nothing else.
    refused_at("Notes\n\n| session id |\n", 3);
}

#[test]
fn an_index_only_in_a_callout_or_comment_is_refused_and_says_where() {
    let quoted: String = HEADER.lines().map(|l| format!("> {l}\n")).collect();
    for (text, line, place) in [
        (
            format!("> [!note] Sessions\n{quoted}> {}\n", row("s-1")),
            2,
            "callout",
        ),
        (quoted.clone(), 1, "blockquote"),
        (format!("%%\n{HEADER}{}\n%%\n", row("s-1")), 2, "comment"),
        (format!("<!--\n{HEADER}-->\n"), 2, "comment"),
    ] {
        let message = refused_at(&text, line);
        assert!(message.contains(place), "{message}");
    }
}

#[test]
fn tables_in_fences_comments_and_callouts_beside_the_index_are_not_read() {
    let text = format!(
        "```\n{HEADER}{}\n```\n\n> {}\n\n%% {} %%\n\n<!--\n{}\n-->\n\n{HEADER}{}\n",
        row("s-9"),
        row("s-8"),
        row("s-7"),
        row("s-6"),
        row("s-1")
    );
    let f = Fixture::with_index(&text);
    assert_eq!(ids(&f), ["s-1"]);
}

#[test]
fn a_prose_line_inside_the_table_is_a_row_and_fails_naming_it() {
    let text = format!("{HEADER}{}\nsee below\n{}\n", row("s-1"), row("s-2"));
    let f = Fixture::with_index(&text);
    let err = f.memory.sessions().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.line(), Some(4));
    // SessionStart warns about it and appends after the table's last row.
    let start = f.memory.register_session_start_with_warnings("a").unwrap();
    assert_eq!(start.warnings.len(), 1);
    assert_eq!(start.warnings[0].line, 4);
    let after = f.index_text();
    assert!(after.starts_with(&text));
    assert!(after[text.len()..].starts_with(&format!("| {} |", start.session_id)));
}

#[test]
fn session_start_goes_on_past_every_kind_of_malformed_row() {
    for bad in [
        "| s-2 | a | T | S | k | closed | - | 2026-05-01 | 2026-05-01 |",
        "| s-2 | a | T | S | k | idle | - | someday | 2026-05-01 |",
        "| s-2 | a | T | S | k | idle | - | 2026-05-01 | 2026-13-45 |",
        "| s-2 | a | T | S | k | idle | not an id! | 2026-05-01 | 2026-05-01 |",
        "| s-2 | a | T | S |",
        "| s-2 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 | extra |",
        "| ../x | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |",
        "| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |",
    ] {
        let text = format!("{HEADER}{}\n{bad}\n{}\n", row("s-1"), row("s-3"));
        let f = Fixture::with_index(&text);
        let start = f.memory.register_session_start_with_warnings("a").unwrap();
        assert_eq!(start.warnings.len(), 1, "{bad}");
        assert_eq!(start.warnings[0].line, 4, "{bad}");
        assert_eq!(start.warnings[0].path, f.index());
        let after = f.index_text();
        assert!(after.starts_with(&text), "{bad}: rows byte-identical");
        let added = &after[text.len()..];
        assert!(added.starts_with(&format!("| {} | a | 未設定 |", start.session_id)));
        // The plain call agrees and returns only the id.
        let second = f.memory.register_session_start("a").unwrap();
        assert_ne!(second, start.session_id);
        // Commands that read every row still fail typed at the bad line.
        let err = f.memory.organize(OrganizeOptions::default()).unwrap_err();
        assert_eq!(err.line(), Some(4), "{bad}: {err}");
    }
}

#[test]
fn session_start_never_reuses_the_id_of_a_malformed_row() {
    let f = Fixture::new();
    let expected = "2026-05-25-1318-a";
    std::fs::create_dir_all(f.root()).unwrap();
    std::fs::write(
        f.index(),
        format!("{HEADER}| {expected} | a | T | S | k | closed | - | 2026-05-01 | 2026-05-01 |\n"),
    )
    .unwrap();
    let start = f.memory.register_session_start_with_warnings("a").unwrap();
    assert_eq!(start.session_id.as_str(), format!("{expected}-2"));
}

#[test]
fn empty_markers_in_continues_from_mean_none() {
    for marker in ["-", "—", "–", "None", "NONE", "none", ""] {
        let f = Fixture::new();
        let source = f.memory.register_session_start("a").unwrap();
        let id = f
            .memory
            .register_manual(memory_core::ManualRegistration::new("b", "T", "S."))
            .unwrap();
        let path = f.memory.session_path(id.as_str()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text.find("## Continues From").unwrap();
        let rest = &text[start..];
        let end = rest[3..]
            .find("\n## ")
            .map_or(text.len(), |e| start + 3 + e + 1);
        let edited = format!(
            "{}## Continues From\n\n- {marker}\n\n{}",
            &text[..start],
            &text[end..]
        );
        std::fs::write(&path, edited).unwrap();
        let snapshot = f.memory.snapshot(id.as_str()).unwrap().unwrap();
        assert!(snapshot.continues_from.is_empty(), "{marker:?}");
        // Nothing protects the idle source: organize deletes it.
        let report = f.memory.organize(OrganizeOptions::default()).unwrap();
        assert_eq!(report.deleted_idle, vec![source], "{marker:?}");
    }
}

#[test]
fn organize_and_archive_go_on_past_an_unreadable_snapshot_of_another_session() {
    let junk: [&[u8]; 3] = [
        b"# Session\n\n\xff\xfe broken\n",
        b"# Session\n\x00\x01binary",
        b"| Field | Value |\n|---|---|\n| Session ID |\n",
    ];
    for bytes in junk {
        let f = Fixture::new();
        let m = &f.memory;
        let broken = m
            .register_manual(memory_core::ManualRegistration::new("a", "T", "S."))
            .unwrap();
        let other = m
            .register_manual(memory_core::ManualRegistration::new("b", "T", "S."))
            .unwrap();
        std::fs::write(m.session_path(broken.as_str()).unwrap(), bytes).unwrap();
        let report = m.organize(OrganizeOptions::default()).unwrap();
        let text_is_readable = std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0);
        if text_is_readable {
            assert!(report.unreadable.is_empty());
        } else {
            assert_eq!(report.unreadable.len(), 1, "{report:?}");
            let w = &report.unreadable[0];
            assert_eq!(w.path, m.session_path(broken.as_str()).unwrap());
            assert!(w.line >= 1, "{w}");
        }
        assert_eq!(report.kept_active.len(), 2);
        // Archive of the unrelated session goes on.
        m.archive(other.as_str()).unwrap();
        // Archive of the broken session itself fails typed.
        if !text_is_readable {
            let err = m.archive(broken.as_str()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
        }
    }
}

#[test]
fn an_unreadable_snapshot_still_protects_the_sources_it_names() {
    let f = Fixture::new();
    let m = &f.memory;
    let source = m.register_session_start("a").unwrap();
    let broken = m
        .register_manual(memory_core::ManualRegistration::new("b", "T", "S."))
        .unwrap();
    let text = format!("# Session\n\n## Continues From\n\n- {source}\n\n\u{0}junk\n");
    std::fs::write(m.session_path(broken.as_str()).unwrap(), text).unwrap();
    let report = m.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.protected, vec![source.clone()]);
    assert_eq!(report.unreadable.len(), 1);
    // Archive of the source must not go on: the unreadable snapshot may reference it.
    let err = m.archive(source.as_str()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
}

/// The odd lines people leave among rows.
fn odd_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("   ".to_string()),
        Just("\t".to_string()),
        Just("some prose".to_string()),
        Just("---".to_string()),
        Just("***".to_string()),
        Just("## Heading".to_string()),
        Just("> quoted".to_string()),
        Just("> [!note] callout".to_string()),
        Just("%% comment %%".to_string()),
        Just("%%".to_string()),
        Just("<!-- c -->".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("- item".to_string()),
        Just("1. item".to_string()),
        Just("```".to_string()),
        Just("<div>".to_string()),
        Just("| broken | row |".to_string()),
        Just("    indented".to_string()),
        Just("a | b".to_string()),
        Just("|---|---|".to_string()),
        Just("| Session ID |".to_string()),
        "[a-z ]{0,12}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random odd lines among valid rows: the index is read whole (every row) or refused
    /// with the line — never read in part.
    #[test]
    fn hand_shapes_are_read_whole_or_refused_with_a_line(
        rows in 1usize..8,
        inserts in proptest::collection::vec((0usize..10, odd_line()), 0..4),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let mut lines: Vec<String> = HEADER.lines().map(str::to_string).collect();
        let mut body: Vec<String> = (0..rows).map(|i| row(&format!("s-{i}"))).collect();
        for (at, line) in inserts.iter().rev() {
            body.insert((*at).min(body.len()), line.clone());
        }
        lines.extend(body);
        let le = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(le);
        if final_newline {
            text.push_str(le);
        }
        // A region opened twice may close again and hide rows on purpose (a commented-out
        // row); one opener that never closes must not hide rows silently.
        let openers = inserts.iter().filter(|(_, l)| ["%%", "<!--", "-->", "```"].iter().any(|m| l.contains(m))).count();
        prop_assume!(openers <= 1);
        let f = Fixture::with_index(&text);
        let total_lines = lines.len();
        match f.memory.sessions() {
            Ok(read) => prop_assert_eq!(read.len(), rows, "partly read: {:?}", text),
            Err(err) => {
                let line = err.line().unwrap_or(0);
                prop_assert!(line >= 1 && line <= total_lines + 1, "{}: {:?}", err, text);
            }
        }
        // SessionStart either registers (and then no row is lost: every earlier row
        // is still in the file, byte-identical) or fails naming a line.
        match f.memory.register_session_start_with_warnings("a") {
            Ok(start) => {
                let after = f.index_text();
                prop_assert!(after.contains(&row("s-0")));
                let new_row = format!("| {} |", start.session_id);
                prop_assert!(after.contains(&new_row));
                for w in &start.warnings {
                    prop_assert!(w.line >= 1);
                }
            }
            Err(err) => prop_assert!(err.line().unwrap_or(0) >= 1, "{}", err),
        }
    }
}

#[test]
fn a_stray_pipe_line_of_prose_is_not_taken_for_a_row() {
    let text = format!(
        "# Index\n\n| Legend | what the columns mean |\n\n{HEADER}{}\n\nUse a | b for alternatives.\n",
        row("s-1")
    );
    let f = Fixture::with_index(&text);
    assert_eq!(ids(&f), ["s-1"]);
    f.memory.register_session_start("a").unwrap();
    assert_eq!(ids(&f).len(), 2);
}

/// An index row written under someone else's table (after a blank line and a header of
/// another width, GFM reads it as that table's row, cut to its width) is never dropped:
/// every command refuses the file at that row's line.
#[test]
fn an_index_row_inside_another_table_is_refused_at_its_line() {
    let head = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";
    let text = format!(
        "{head}{}\n\n| broken | row |\n|---|---|\n{}\n",
        row("s-0"),
        row("s-1")
    );
    let message = refused_at(&text, 7);
    assert!(message.contains("another table"), "{message}");
    // A table of someone else's with rows of its own width stays theirs.
    let notes = format!(
        "{head}{}\n\n| Date | Note |\n|---|---|\n| 2026-05-01 | moved the db |\n",
        row("s-0")
    );
    let f = Fixture::with_index(&notes);
    assert_eq!(ids(&f), ["s-0"]);
}
