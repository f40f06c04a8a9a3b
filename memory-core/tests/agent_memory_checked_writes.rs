//! No write may leave a file that the next command cannot read, and files the user
//! protected (links, read-only files) are never silently replaced. Each failing case
//! also checks that every file stayed byte-identical.

mod support;

use memory_core::{ErrorKind, ManualRegistration, OrganizeOptions, SessionUpdate};
use support::{Fixture, row_line};

fn source(fx: &Fixture) -> String {
    fx.memory
        .register_manual(
            ManualRegistration::new("source-agent", "Login", "Fixed the bug.")
                .decision("Use bcrypt"),
        )
        .expect("register source")
        .to_string()
}

#[test]
fn the_same_source_given_twice_is_one_continuation() {
    let fx = Fixture::new();
    let source = source(&fx);
    let id = fx
        .memory
        .register_manual(
            ManualRegistration::new("b", "Follow-up", "Going on.")
                .continues_from(&source)
                .continues_from(&source),
        )
        .expect("register");
    // Every command still reads the index, and the link is recorded once on each side.
    let row = fx.memory.session(&source).expect("source row");
    assert_eq!(row.referenced_by, vec![id.clone()]);
    let snapshot = fx
        .memory
        .snapshot(id.as_str())
        .expect("read")
        .expect("snapshot");
    assert_eq!(snapshot.continues_from.len(), 1);
    assert_eq!(
        row_line(&fx.index_text(), &source)
            .expect("row")
            .matches(" | ")
            .count(),
        8,
        "nine cells"
    );
    fx.memory
        .register_session_start("c")
        .expect("SessionStart still works");
}

#[test]
fn a_row_longer_than_the_line_limit_is_refused_before_writing() {
    let fx = Fixture::new();
    let id = source(&fx);
    let before = fx.tree();
    // Each keyword is within the value limit; together the row exceeds the line limit.
    let keywords: Vec<String> = (0..20)
        .map(|i| format!("{i}-{}", "k".repeat(60_000)))
        .collect();
    for update in [
        SessionUpdate::new().keywords(keywords.clone()),
        SessionUpdate::new()
            .keywords(keywords.clone())
            .decision("a new decision")
            .summary("new summary"),
    ] {
        let err = fx.memory.update(&id, update).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("nothing was written"), "{err}");
        assert_eq!(fx.tree(), before, "a refused write changed a file");
    }
    let err = fx
        .memory
        .register_manual(ManualRegistration::new("x", "t", "s").keywords(keywords))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert_eq!(fx.tree(), before);
    // The index is still readable by every command.
    fx.memory.sessions().expect("list");
    fx.memory
        .organize(OrganizeOptions::default().dry_run(true))
        .expect("organize");
}

#[cfg(unix)]
#[test]
fn a_symlinked_index_is_never_replaced_by_a_regular_file() {
    let fx = Fixture::new();
    let id = source(&fx);
    let elsewhere = fx.dir.path().join("vault");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("index.md");
    std::fs::rename(fx.index(), &target).unwrap();
    std::os::unix::fs::symlink(&target, fx.index()).unwrap();
    let before = std::fs::read(&target).unwrap();

    // Reading through the link works.
    assert_eq!(fx.memory.sessions().unwrap().len(), 1);
    let start = fx.memory.register_session_start("a").unwrap_err();
    let update = fx
        .memory
        .update(&id, SessionUpdate::new().summary("x"))
        .unwrap_err();
    for err in [start, update] {
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(
            err.path(),
            Some(fx.index().as_path()),
            "the error names the link"
        );
    }
    assert!(
        std::fs::symlink_metadata(fx.index())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), before);
    assert!(
        !fx.snapshot_text(&id).contains("x\n"),
        "the snapshot of a refused update was written"
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_not_overwritten() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let id = source(&fx);
    let readonly = std::fs::Permissions::from_mode(0o444);

    // A read-only index: SessionStart (one file) and update (two files) both refuse.
    std::fs::set_permissions(fx.index(), readonly.clone()).unwrap();
    let before = fx.tree();
    for err in [
        fx.memory.register_session_start("a").unwrap_err(),
        fx.memory
            .update(&id, SessionUpdate::new().decision("d2"))
            .unwrap_err(),
    ] {
        assert_eq!(err.kind(), ErrorKind::Io, "{err}");
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(err.path(), Some(fx.index().as_path()));
    }
    assert_eq!(fx.tree(), before, "nothing may change");

    // A read-only snapshot: the update is refused before the index is touched.
    std::fs::set_permissions(fx.index(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let snapshot = fx.memory.session_path(&id).unwrap();
    std::fs::set_permissions(&snapshot, readonly).unwrap();
    let before = fx.tree();
    let err = fx
        .memory
        .update(&id, SessionUpdate::new().decision("d2"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err}");
    assert_eq!(err.path(), Some(snapshot.as_path()));
    assert_eq!(fx.tree(), before);
    let mode = std::fs::metadata(&snapshot).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "the file's mode is kept");
}

#[test]
fn a_half_done_archive_is_not_hidden_behind_a_fresh_snapshot() {
    let fx = Fixture::new();
    let id = source(&fx);
    // What an older memory-core left when it was killed after moving the snapshot.
    let archived = fx.memory.archive_dir(&id).unwrap().join("session.md");
    std::fs::create_dir_all(archived.parent().unwrap()).unwrap();
    std::fs::rename(fx.memory.session_path(&id).unwrap(), &archived).unwrap();
    let before = fx.tree();

    let err = fx
        .memory
        .update(&id, SessionUpdate::new().decision("x"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert!(err.to_string().contains("archive"), "{err}");
    assert_eq!(fx.tree(), before);
    // Running archive again finishes it, with the original snapshot.
    fx.memory.archive(&id).expect("archive completes");
    assert!(
        std::fs::read_to_string(&archived)
            .unwrap()
            .contains("Use bcrypt")
    );
    assert!(fx.memory.session(&id).is_err());
}

#[test]
fn organize_reports_what_it_cannot_explain_and_removes_only_dead_writers_files() {
    let fx = Fixture::new();
    let id = source(&fx);
    let other = fx
        .memory
        .register_manual(ManualRegistration::new("other", "Other", "Other work."))
        .unwrap();
    fx.memory.archive(other.as_str()).unwrap();
    let root = fx.root();
    let sessions = root.join("sessions");
    let archive = fx.memory.archive_dir(other.as_str()).unwrap();
    // Dead memory-core writers' files, in every directory.
    let dead = [
        root.join(".index.md.tmp-99999-0"),
        sessions.join(format!(".{id}.md.tmp-1-2")),
        sessions.join(format!(".{id}.md.bak-1-3")),
        archive.join(".index.md.tmp-7-0"),
    ];
    // Things organize cannot explain: reported, kept.
    let orphan = sessions.join("2026-01-01-0000-ghost.md");
    let leftovers = [
        root.join("index.md~"),
        sessions.join(".notes.md.swp"),
        archive.join("session.sync-conflict-20260101-1234.md"),
    ];
    for path in dead.iter().chain(leftovers.iter()).chain([&orphan]) {
        std::fs::write(path, b"junk").unwrap();
    }

    let dry = fx
        .memory
        .organize(OrganizeOptions::default().dry_run(true))
        .unwrap();
    let mut expected_dead = dead.to_vec();
    expected_dead.sort();
    assert_eq!(dry.removed_temp_files, expected_dead);
    assert!(dead.iter().all(|p| p.exists()), "a dry run removed a file");

    let report = fx.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.removed_temp_files, expected_dead);
    assert_eq!(report.orphan_snapshots, vec![orphan.clone()]);
    let mut expected_leftovers = leftovers.to_vec();
    expected_leftovers.sort();
    assert_eq!(report.leftover_files, expected_leftovers);
    assert!(dead.iter().all(|p| !p.exists()));
    assert!(orphan.exists() && leftovers.iter().all(|p| p.exists()));
}

use memory_core::agent_memory::INDEX_COLUMNS as COLUMNS;

fn hand_index(header: &[String], rows: &[String]) -> String {
    let mut text = format!("# Memory\n\n| {} |\n", header.join(" | "));
    text.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    text
}

fn hand_row(id: &str, summary: &str) -> String {
    format!("| {id} | a | t | {summary} | k | active | - | 2026-05-25 13:18 | 2026-05-25 13:18 |")
}

#[test]
fn a_header_written_in_bold_is_the_index_and_lookalikes_are_refused_never_doubled() {
    let bold: Vec<String> = COLUMNS.iter().map(|c| format!("**{c}**")).collect();
    let fx = Fixture::with_index(&hand_index(&bold, &[hand_row("2026-05-25-1318-a", "s")]));
    assert_eq!(fx.memory.sessions().unwrap().len(), 1);
    fx.memory.register_session_start("b").unwrap();
    let text = fx.index_text();
    assert_eq!(text.matches("Session ID").count(), 1, "one table: {text}");
    assert_eq!(fx.memory.sessions().unwrap().len(), 2);

    let mut reordered: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    reordered.swap(0, 1);
    let squashed: Vec<String> = std::iter::once("SessionID".to_string())
        .chain(COLUMNS[1..].iter().map(|c| c.to_string()))
        .collect();
    let underscored = vec!["Session_ID".to_string(), "Agent Name".to_string()];
    for header in [reordered, squashed, underscored] {
        let row = if header.len() == 9 {
            hand_row("2026-05-25-1318-a", "s")
        } else {
            "| x | y |".to_string()
        };
        let fx = Fixture::with_index(&hand_index(&header, &[row]));
        let before = fx.tree();
        let err = fx.memory.register_session_start("b").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{header:?}: {err}");
        assert_eq!(err.line(), Some(3), "{header:?}: {err}");
        assert_eq!(fx.tree(), before, "{header:?}: a second table was written");
    }
}

#[test]
fn session_start_goes_on_past_another_sessions_over_long_row() {
    let long = "y".repeat(1024 * 1024 + 1);
    let rows = [
        hand_row("s-1", "ok"),
        hand_row("s-2", &long),
        hand_row("s-3", "ok"),
    ];
    let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    let fx = Fixture::with_index(&hand_index(&header, &rows));
    let start = fx.memory.register_session_start_with_warnings("a").unwrap();
    assert_eq!(start.warnings.len(), 1, "{:?}", start.warnings);
    assert_eq!(start.warnings[0].line, 6);
    assert!(
        fx.index_text().contains(&rows[1]),
        "the long row stays as it was"
    );
    let err = fx.memory.sessions().unwrap_err();
    assert_eq!((err.kind(), err.line()), (ErrorKind::Malformed, Some(6)));
}

#[test]
fn a_lone_dash_keyword_is_no_keyword() {
    let fx = Fixture::new();
    let id = fx
        .memory
        .register_manual(ManualRegistration::new("a", "t", "s").keywords(["-"]))
        .unwrap();
    assert!(fx.memory.session(id.as_str()).unwrap().keywords.is_empty());
    let mut update = SessionUpdate::new();
    update.keywords = Some(vec!["x".into(), "-".into()]);
    let row = fx.memory.update(id.as_str(), update).unwrap();
    assert_eq!(row.keywords, ["x"]);
}

/// The table rows GFM renders, counted with the `markdown` crate (mdast), wherever the
/// table stands (top level or inside a list item).
fn rendered_rows(text: &str) -> Vec<usize> {
    fn walk(node: &markdown::mdast::Node, out: &mut Vec<usize>) {
        if let markdown::mdast::Node::Table(table) = node {
            out.push(table.children.len());
        }
        for child in node.children().into_iter().flatten() {
            walk(child, out);
        }
    }
    let tree = markdown::to_mdast(text, &markdown::ParseOptions::gfm()).expect("mdast");
    let mut out = Vec::new();
    walk(&tree, &mut out);
    out
}

#[test]
fn rows_written_into_a_table_inside_a_list_item_stay_in_that_table() {
    let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    let table = hand_index(&header, &[hand_row("s-1", "s")]);
    let nested: String = table
        .lines()
        .skip(2) // "# Memory" and the blank line
        .map(|l| format!("  {l}\n"))
        .collect();
    let text = format!("# Memory\n\n- Sessions:\n\n{nested}");
    assert_eq!(
        rendered_rows(&text),
        [2],
        "header + one row, inside the list item"
    );
    let fx = Fixture::with_index(&text);
    let id = fx.memory.register_session_start("a").unwrap();
    fx.memory
        .update("s-1", SessionUpdate::new().summary("updated"))
        .unwrap();
    let after = fx.index_text();
    assert_eq!(
        rendered_rows(&after),
        [3],
        "GFM still renders one table with every row: {after}"
    );
    for line in after
        .lines()
        .filter(|l| l.contains("| s-1 |") || l.contains(id.as_str()))
    {
        assert!(
            line.starts_with("  | "),
            "row lost the list item's indentation: {line:?}"
        );
    }
    assert_eq!(fx.memory.sessions().unwrap().len(), 2);
}

#[cfg(unix)]
#[test]
fn a_symlinked_snapshot_is_neither_read_nor_replaced() {
    let fx = Fixture::new();
    let id = source(&fx);
    let snapshot = fx.memory.session_path(&id).unwrap();
    let target = fx.dir.path().join("elsewhere.md");
    std::fs::rename(&snapshot, &target).unwrap();
    std::os::unix::fs::symlink(&target, &snapshot).unwrap();
    let before = std::fs::read(&target).unwrap();
    let index_before = fx.index_text();
    let read = fx.memory.snapshot(&id).unwrap_err();
    let write = fx
        .memory
        .update(&id, SessionUpdate::new().decision("d2"))
        .unwrap_err();
    for err in [read, write] {
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(
            err.path(),
            Some(snapshot.as_path()),
            "the error names the link"
        );
    }
    assert!(
        std::fs::symlink_metadata(&snapshot)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), before);
    assert_eq!(fx.index_text(), index_before);
}

#[test]
fn timestamps_written_with_slashes_are_read_from_the_index_and_kept() {
    let row = "| s-1 | a | t | s | k | active | - | 2026/05/20 13:18 | 2026/05/24 09:00 |";
    let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    let fx = Fixture::with_index(&hand_index(&header, &[row.to_string()]));
    let read = fx.memory.session("s-1").unwrap();
    assert_eq!(read.updated_at.as_str(), "2026/05/24 09:00");
    assert_eq!(
        read.updated_at.datetime().to_rfc3339(),
        "2026-05-24T09:00:00+08:00"
    );
    // Another row's write keeps this row's bytes, spelling included.
    fx.memory.register_session_start("b").unwrap();
    assert!(fx.index_text().contains(row));
    // Organize reads it as a date: the fixture clock is 2026-05-25, so it is not overdue.
    let report = fx.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.kept_active.len(), 1, "{report:?}");
}
