//! Edge cases found in review: each was a panic, a silently dropped item, a reference
//! that could never be released, or a refused merge that still changed a file.

mod support;

use memory_core::{
    ArchiveOutcome, ErrorKind, ManualRegistration, Mark, OrganizeOptions, SessionUpdate,
};
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|";

#[test]
fn organize_removes_the_last_two_rows_of_an_index_without_final_newline() {
    let f = Fixture::with_index(HEADER);
    f.memory.register_session_start("a").unwrap();
    f.clock.advance_minutes(1);
    f.memory.register_session_start("b").unwrap();
    assert!(!f.index_text().ends_with('\n'));
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.deleted_idle.len(), 2);
    assert_eq!(
        f.index_text(),
        HEADER,
        "both rows gone, still no final newline"
    );
}

#[test]
fn removing_a_row_keeps_the_previous_row_intact_with_mixed_line_endings() {
    let text = "\u{feff}# Memory\r\n\r\n| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n| s-1 | a | T | S | k | active | - | 2026-05-20 | 2026-05-20 |\u{3000}\n| s-2 | a | 未設定 | x | k | idle | - | 2026-05-20 | 2026-05-20 |";
    let f = Fixture::with_index(text);
    f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(f.index_text(), text.rsplit_once('\n').unwrap().0);
}

#[test]
fn a_marked_item_added_again_is_recorded_again() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(
            ManualRegistration::new("a", "T", "S.")
                .decision("Use bcrypt")
                .next_action("Run tests"),
        )
        .unwrap();
    f.memory
        .update(
            id.as_str(),
            SessionUpdate::new()
                .supersede("Use bcrypt")
                .done("Run tests")
                .decision("Use argon2"),
        )
        .unwrap();
    f.memory
        .update(
            id.as_str(),
            SessionUpdate::new()
                .decision("Use bcrypt")
                .next_action("Run tests"),
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
            ("Use argon2", None),
            ("Use bcrypt", None)
        ]
    );
    let actions: Vec<_> = s
        .next_actions
        .iter()
        .map(|d| (d.text.as_str(), d.mark))
        .collect();
    assert_eq!(
        actions,
        [("Run tests", Some(Mark::Done)), ("Run tests", None)]
    );
    // Marking it now picks the open one, not the one marked before.
    f.memory
        .update(id.as_str(), SessionUpdate::new().done("Run tests"))
        .unwrap();
    let s = f.memory.snapshot(id.as_str()).unwrap().unwrap();
    assert!(s.next_actions.iter().all(|a| a.mark == Some(Mark::Done)));
}

#[test]
fn marking_keeps_nested_lines_task_boxes_and_paragraph_breaks() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let path = f.memory.session_path(id.as_str()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "## Next Actions\n\nNone",
        "## Next Actions\n\n- Ship release\n    - tag v1.2\n    - publish notes\n- [ ] Run tests\n\nRationale: memory-hard.\n\n### Later\n\n- Refactor",
    );
    std::fs::write(&path, &text).unwrap();
    f.memory
        .update(
            id.as_str(),
            SessionUpdate::new()
                .done("Ship release")
                .done("Run tests")
                .next_action("New one"),
        )
        .unwrap();
    let after = f.snapshot_text(id.as_str());
    assert!(
        after.contains("- [done] Ship release\n    - tag v1.2\n    - publish notes\n- [done] Run tests\n\nRationale: memory-hard.\n\n### Later\n\n- Refactor\n- New one\n"),
        "{after}"
    );
}

#[test]
fn a_merge_that_cannot_be_verified_leaves_the_snapshot_untouched() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S.").decision("Keep"))
        .unwrap();
    let before = f.tree();
    // Marking an unknown item fails before writing; so does any failed verification.
    assert_eq!(
        f.memory
            .update(
                id.as_str(),
                SessionUpdate::new().decision("x").done("nothing")
            )
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(f.tree(), before);
}

#[test]
fn a_continues_from_entry_naming_several_ids_loses_only_the_released_one() {
    let f = Fixture::new();
    let a = f
        .memory
        .register_manual(ManualRegistration::new("a", "A", "A."))
        .unwrap();
    let b = f
        .memory
        .register_manual(ManualRegistration::new("b", "B", "B."))
        .unwrap();
    let c = f
        .memory
        .register_manual(
            ManualRegistration::new("c", "C", "C.")
                .continues_from(a.as_str())
                .continues_from(b.as_str()),
        )
        .unwrap();
    let path = f.memory.session_path(c.as_str()).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(&format!("- {a}\n- {b}"), &format!("- {a}, {b}"));
    std::fs::write(&path, text).unwrap();
    assert_eq!(
        f.memory
            .snapshot(c.as_str())
            .unwrap()
            .unwrap()
            .continues_from,
        vec![a.clone(), b.clone()]
    );
    f.memory.release(c.as_str(), a.as_str()).unwrap();
    assert_eq!(
        f.memory
            .snapshot(c.as_str())
            .unwrap()
            .unwrap()
            .continues_from,
        vec![b.clone()]
    );
    assert!(
        f.snapshot_text(c.as_str())
            .contains(&format!("## Continues From\n\n- {b}\n"))
    );
}

#[test]
fn archive_releases_every_row_that_lists_it_even_if_its_snapshot_lost_the_link() {
    let f = Fixture::new();
    let a = f
        .memory
        .register_manual(ManualRegistration::new("a", "A", "A."))
        .unwrap();
    let c = f.memory.register_session_start("c").unwrap();
    f.memory.continue_from(c.as_str(), a.as_str()).unwrap();
    let path = f.memory.session_path(c.as_str()).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(&format!("- {a}"), &format!("- [{a}](./{a}.md)"));
    std::fs::write(&path, text).unwrap();
    let outcome = f.memory.archive(c.as_str()).unwrap();
    let ArchiveOutcome::Archived { released_from, .. } = outcome else {
        panic!("archived expected")
    };
    assert_eq!(released_from, vec![a.clone()]);
    assert!(
        f.memory
            .session(a.as_str())
            .unwrap()
            .referenced_by
            .is_empty()
    );
    assert!(matches!(
        f.memory.archive(a.as_str()).unwrap(),
        ArchiveOutcome::Archived { .. }
    ));
}

#[test]
fn release_still_cleans_the_source_after_the_referrer_was_archived() {
    let f = Fixture::with_index(&format!(
        "{HEADER}\n| s-src | a | T | Real. | k | active | s-gone | 2026-05-20 | 2026-05-20 |\n"
    ));
    let outcome = f.memory.release("s-gone", "s-src").unwrap();
    assert!(outcome.referenced_by_updated && !outcome.continues_from_updated);
    assert!(f.memory.session("s-src").unwrap().referenced_by.is_empty());
    assert_eq!(
        f.memory.release("s-gone", "s-nothing").unwrap_err().kind(),
        ErrorKind::NotFound
    );
}
