//! Seed rules of Session Update and the Snapshot Merge Policy.

mod support;

use memory_core::{ErrorKind, ManualRegistration, Mark, SessionUpdate, Status};
use support::{Fixture, row_line};

#[test]
fn update_after_session_start_creates_the_snapshot_and_promotes_to_active() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    f.clock.advance_minutes(30);
    let row = f
        .memory
        .update(
            id.as_str(),
            SessionUpdate::new().topic("Login").summary("Fixed it."),
        )
        .unwrap();
    assert_eq!(row.status, Status::Active);
    assert_eq!(row.updated_at.as_str(), "2026-05-25T13:48:00+08:00");
    assert_eq!(
        row.started_at.as_str(),
        "2026-05-25T13:18:00+08:00",
        "Started At is kept"
    );
    let snapshot = f
        .memory
        .snapshot(id.as_str())
        .unwrap()
        .expect("update must create the snapshot");
    assert_eq!(
        snapshot.updated_at,
        row.updated_at.as_str(),
        "Metadata Updated At matches the update"
    );
    assert_eq!(snapshot.started_at, row.started_at.as_str());
    assert_eq!(snapshot.topic, "Login");
    assert_eq!(snapshot.current_context, "Fixed it.");
}

#[test]
fn update_always_writes_both_the_snapshot_and_the_row() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let (index_before, snapshot_before) = (f.index_text(), f.snapshot_text(id.as_str()));
    f.clock.advance_minutes(5);
    f.memory.update(id.as_str(), SessionUpdate::new()).unwrap();
    assert_ne!(f.index_text(), index_before);
    assert_ne!(f.snapshot_text(id.as_str()), snapshot_before);
}

#[test]
fn update_keeps_agent_name_started_at_and_referenced_by() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let current = f.memory.register_session_start("b").unwrap();
    f.memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    let before = f.memory.session(source.as_str()).unwrap();
    f.clock.advance_minutes(10);
    let after = f
        .memory
        .update(source.as_str(), SessionUpdate::new().summary("More."))
        .unwrap();
    assert_eq!(
        after.referenced_by, before.referenced_by,
        "an ordinary update never clears Referenced By"
    );
    assert_eq!(after.agent_name, before.agent_name);
    assert_eq!(after.started_at, before.started_at);
    f.memory
        .update(current.as_str(), SessionUpdate::new().decision("X"))
        .unwrap();
    assert_eq!(
        f.memory
            .snapshot(current.as_str())
            .unwrap()
            .unwrap()
            .continues_from,
        vec![source],
        "an ordinary update never clears Continues From"
    );
}

#[test]
fn merge_keeps_old_items_and_marks_instead_of_deleting() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(
            ManualRegistration::new("a", "T", "S.")
                .decision("Use bcrypt")
                .question("Which cost factor?")
                .next_action("Benchmark hashing")
                .file("src/auth.rs"),
        )
        .unwrap();
    f.memory
        .update(
            id.as_str(),
            SessionUpdate::new()
                .decision("Use argon2id")
                .supersede("Use bcrypt")
                .resolve("cost factor")
                .done("Benchmark")
                .file("src/auth.rs")
                .file("src/hash.rs")
                .context("Switched to argon2id."),
        )
        .unwrap();
    let s = f.memory.snapshot(id.as_str()).unwrap().unwrap();
    let decisions: Vec<_> = s
        .decisions
        .iter()
        .map(|d| (d.text.as_str(), d.mark))
        .collect();
    assert_eq!(
        decisions,
        [
            ("Use bcrypt", Some(Mark::Superseded)),
            ("Use argon2id", None)
        ]
    );
    assert_eq!(s.open_questions[0].mark, Some(Mark::Resolved));
    assert_eq!(s.next_actions[0].mark, Some(Mark::Done));
    let files: Vec<_> = s.files.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        files,
        ["src/auth.rs", "src/hash.rs"],
        "files are a deduplicated union"
    );
    assert_eq!(
        s.current_context, "S.\n\nSwitched to argon2id.",
        "old context is preserved"
    );
}

#[test]
fn marking_an_unknown_item_is_refused_and_writes_nothing() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S.").decision("Keep"))
        .unwrap();
    let before = f.tree();
    let err = f
        .memory
        .update(id.as_str(), SessionUpdate::new().supersede("Nonexistent"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(f.tree(), before);
}

#[test]
fn marking_an_ambiguous_item_is_refused() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(
            ManualRegistration::new("a", "T", "S.")
                .next_action("Test login")
                .next_action("Test logout"),
        )
        .unwrap();
    let err = f
        .memory
        .update(id.as_str(), SessionUpdate::new().done("Test"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

#[test]
fn a_hand_written_snapshot_is_merged_losslessly() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    let hand = "# Session: X\r\n\r\nNotes an agent wrote by hand.\r\n\r\n## Metadata\r\n\r\n| Field | Value |\r\n|:--|:--|\r\n| Session ID  | X |\r\n| Status | active |\r\n| Updated At | 2026-05-01 10:00 |\r\n\r\n## Current Context\r\n\r\nWe  looked at   the *login* flow.\r\n\r\n## Decisions\r\n\r\n* Keep the old API\r\n  (for now)\r\n* [superseded] Drop v1\r\n\r\n## Custom Notes\r\n\r\nAnything | goes here.\r\n";
    std::fs::create_dir_all(f.root().join("sessions")).unwrap();
    std::fs::write(f.memory.session_path(id.as_str()).unwrap(), hand).unwrap();
    f.memory
        .update(id.as_str(), SessionUpdate::new().decision("Add v3"))
        .unwrap();
    let text = f.snapshot_text(id.as_str());
    assert!(
        text.starts_with("# Session: X\r\n\r\nNotes an agent wrote by hand.\r\n"),
        "{text}"
    );
    assert!(
        text.contains("| Session ID  | X |\r\n"),
        "untouched metadata rows stay byte-identical"
    );
    assert!(
        text.contains("We  looked at   the *login* flow.\r\n"),
        "untouched sections stay byte-identical"
    );
    assert!(
        text.contains(
            "* Keep the old API\r\n  (for now)\r\n* [superseded] Drop v1\r\n- Add v3\r\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("## Custom Notes\r\n\r\nAnything | goes here.\r\n"),
        "unknown sections are kept"
    );
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "line endings stay CRLF"
    );
    let s = f.memory.snapshot(id.as_str()).unwrap().unwrap();
    assert_eq!(s.decisions.len(), 3);
    assert_eq!(s.decisions[1].mark, Some(Mark::Superseded));
    assert_eq!(s.other_sections[0].heading, "Custom Notes");
}

#[test]
fn template_placeholders_are_replaced_not_kept_as_memory() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    assert!(
        f.snapshot_text(id.as_str())
            .contains("## Decisions\n\nNone\n")
    );
    f.memory
        .update(id.as_str(), SessionUpdate::new().decision("First"))
        .unwrap();
    let text = f.snapshot_text(id.as_str());
    assert!(text.contains("## Decisions\n\n- First\n"), "{text}");
    assert!(
        text.contains("## Open Questions\n\nNone\n"),
        "untouched sections keep their None"
    );
}

#[test]
fn update_changes_only_its_own_row() {
    let f = Fixture::new();
    let a = f.memory.register_session_start("a").unwrap();
    let b = f.memory.register_session_start("b").unwrap();
    let c = f.memory.register_session_start("c").unwrap();
    let before = f.index_text();
    f.memory
        .update(b.as_str(), SessionUpdate::new().topic("B"))
        .unwrap();
    let after = f.index_text();
    for id in [&a, &c] {
        assert_eq!(
            row_line(&before, id.as_str()),
            row_line(&after, id.as_str())
        );
    }
    assert_ne!(row_line(&before, b.as_str()), row_line(&after, b.as_str()));
}

#[test]
fn update_of_an_unknown_session_is_not_found_and_writes_nothing() {
    let f = Fixture::new();
    f.memory.register_session_start("a").unwrap();
    let before = f.tree();
    let err = f
        .memory
        .update("2026-05-25-1318-ghost", SessionUpdate::new().summary("x"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(err.id(), Some("2026-05-25-1318-ghost"));
    assert_eq!(f.tree(), before);
}

#[test]
fn keywords_with_commas_are_rejected() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    let err = f
        .memory
        .update(id.as_str(), SessionUpdate::new().keywords(["a,b"]))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

#[test]
fn pipes_and_line_breaks_in_values_round_trip_through_the_index() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    f.memory
        .update(
            id.as_str(),
            SessionUpdate::new()
                .topic("A | B")
                .summary("line one\nline two"),
        )
        .unwrap();
    let row = f.memory.session(id.as_str()).unwrap();
    assert_eq!(row.topic, "A | B");
    assert_eq!(row.summary, "line one\nline two");
    assert!(
        row_line(&f.index_text(), id.as_str())
            .unwrap()
            .contains("A \\| B | line one<br>line two")
    );
}

/// Keyword shapes whose cleaned value differs from the text given: blanks, the `-`
/// marker, spacing, and cell escapes that read back as other text (`<br>` as a line
/// break, `&lt;!--` as `<!--`).
const KEYWORD_SHAPES: &[&str] = &[
    "auth", " auth ", "", " ", "-", " - ", "a\n", "\tb", "a<br>b", "a<br/>", "<br />", "&lt;!--",
    "%&#37;", "x\\|y", "a,b", "a\nb", "a\r\nb", "—", "None",
];

/// What an operation did with `keywords`: the row's keywords, or the error kind.
fn outcome(result: memory_core::Result<Vec<String>>) -> Result<Vec<String>, ErrorKind> {
    result.map_err(|e| e.kind())
}

#[test]
fn keywords_are_cleaned_once_the_same_through_a_builder_or_a_field() {
    let f = Fixture::new();
    for shape in KEYWORD_SHAPES {
        let given = vec!["first".to_string(), shape.to_string()];
        // Update: through the builder and through the field, on two equal sessions.
        let a = f.memory.register_session_start("a").unwrap();
        let b = f.memory.register_session_start("b").unwrap();
        let built = outcome(
            f.memory
                .update(a.as_str(), SessionUpdate::new().keywords(given.clone()))
                .map(|row| row.keywords),
        );
        let mut direct = SessionUpdate::new();
        direct.keywords = Some(given.clone());
        let set = outcome(f.memory.update(b.as_str(), direct).map(|row| row.keywords));
        assert_eq!(built, set, "update with {shape:?}");
        // Manual registration: the same.
        let register = |registration: ManualRegistration| {
            outcome(
                f.memory
                    .register_manual(registration)
                    .and_then(|id| f.memory.session(id.as_str()))
                    .map(|row| row.keywords),
            )
        };
        let registered = register(ManualRegistration::new("c", "T", "S.").keywords(given.clone()));
        let mut field = ManualRegistration::new("d", "T", "S.");
        field.keywords = Some(given.clone());
        assert_eq!(registered, register(field), "registration with {shape:?}");
        // And registration and update agree with each other.
        assert_eq!(registered, built, "registration and update with {shape:?}");
        // What was written reads back as itself.
        if let Ok(keywords) = &built {
            assert_eq!(&f.memory.session(a.as_str()).unwrap().keywords, keywords);
            assert!(
                keywords
                    .iter()
                    .all(|k| !k.is_empty() && k != "-" && !k.contains('\n'))
            );
        }
    }
}

#[test]
fn a_keyword_that_reads_back_as_a_line_break_is_refused_and_writes_nothing() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    for shape in ["a<br>b", "a<br/>b", "a<br />b", "a\nb"] {
        let before = f.tree();
        let mut update = SessionUpdate::new();
        update.keywords = Some(vec![shape.to_string()]);
        let err = f.memory.update(id.as_str(), update).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{shape:?}: {err}");
        assert!(err.to_string().contains("keyword"), "{err}");
        assert_eq!(f.tree(), before, "{shape:?}");
    }
    // Trimmed away, a line break is no part of the keyword.
    let row = f
        .memory
        .update(
            id.as_str(),
            SessionUpdate::new().keywords(["a\n", " b<br>"]),
        )
        .unwrap();
    assert_eq!(row.keywords, ["a", "b"]);
}
