//! Seed rules of Organize Memory (整理 memory).

mod support;

use memory_core::{ErrorKind, ManualRegistration, OrganizeOptions, SessionUpdate, Status};
use support::{Fixture, row_line};

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

#[test]
fn organize_deletes_idle_rows_without_archiving_them() {
    let f = Fixture::new();
    let idle = f.memory.register_session_start("a").unwrap();
    let active = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S."))
        .unwrap();
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.deleted_idle, vec![idle.clone()]);
    assert_eq!(report.kept_active, vec![active]);
    assert!(row_line(&f.index_text(), idle.as_str()).is_none());
    assert!(
        !f.root().join("archive").exists(),
        "no archive for deleted idle rows"
    );
}

#[test]
fn an_idle_row_with_a_snapshot_stops_organize_and_writes_nothing() {
    let f = Fixture::new();
    let idle = f.memory.register_session_start("a").unwrap();
    let other = f.memory.register_session_start("b").unwrap();
    std::fs::create_dir_all(f.root().join("sessions")).unwrap();
    std::fs::write(f.memory.session_path(idle.as_str()).unwrap(), "# Session\n").unwrap();
    let before = f.tree();
    let err = f.memory.organize(OrganizeOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(err.id(), Some(idle.as_str()));
    assert_eq!(
        f.tree(),
        before,
        "the other idle row {other} is not deleted either"
    );
}

#[test]
fn referenced_idle_rows_are_protected() {
    let f = Fixture::new();
    let idle_source = f.memory.register_session_start("a").unwrap();
    let current = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S."))
        .unwrap();
    f.memory
        .continue_from(current.as_str(), idle_source.as_str())
        .unwrap();
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.protected, vec![idle_source.clone()]);
    assert!(report.deleted_idle.is_empty());
    assert_eq!(
        f.memory.session(idle_source.as_str()).unwrap().status,
        Status::Idle
    );
}

#[test]
fn overdue_active_rows_with_content_become_stale_keeping_updated_at() {
    let f = Fixture::new();
    let overdue = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "Meaningful."))
        .unwrap();
    let before = f.memory.session(overdue.as_str()).unwrap();
    f.days_later(15);
    let recent = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "Recent."))
        .unwrap();
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.marked_stale, vec![overdue.clone()]);
    assert_eq!(report.kept_active, vec![recent]);
    let after = f.memory.session(overdue.as_str()).unwrap();
    assert_eq!(after.status, Status::Stale);
    assert_eq!(
        after.updated_at, before.updated_at,
        "Updated At still shows the last meaningful work"
    );
    assert!(
        f.memory.session_path(overdue.as_str()).unwrap().exists(),
        "stale rows are not archived"
    );
}

#[test]
fn the_stale_threshold_is_strictly_older_than_the_days_given() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    f.days_later(14);
    assert!(
        f.memory
            .organize(OrganizeOptions::default())
            .unwrap()
            .marked_stale
            .is_empty()
    );
    f.clock.advance_minutes(1);
    assert!(
        f.memory
            .organize(OrganizeOptions::default().stale_after_days(30))
            .unwrap()
            .marked_stale
            .is_empty()
    );
    assert_eq!(
        f.memory
            .organize(OrganizeOptions::default())
            .unwrap()
            .marked_stale,
        vec![id]
    );
}

#[test]
fn overdue_rows_without_snapshot_or_meaningful_summary_stay_active() {
    let f = Fixture::with_index(&format!(
        "{HEADER}| s-1 | a | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart | active | - | 2026-01-01 10:00 | 2026-01-01 10:00 |\n| s-2 | a | X | Real summary. | k | active | - | 2026-01-01 | 2026-01-01 |\n"
    ));
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(
        report
            .kept_active
            .iter()
            .map(|i| i.as_str())
            .collect::<Vec<_>>(),
        ["s-1"]
    );
    assert_eq!(
        report
            .marked_stale
            .iter()
            .map(|i| i.as_str())
            .collect::<Vec<_>>(),
        ["s-2"]
    );
    assert!(
        f.index_text()
            .contains("| s-2 | a | X | Real summary. | k | stale | - | 2026-01-01 | 2026-01-01 |")
    );
}

#[test]
fn referenced_overdue_rows_are_protected_not_stale() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let current = f.memory.register_session_start("b").unwrap();
    f.memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    f.days_later(30);
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.protected, vec![source.clone()]);
    assert_eq!(report.marked_stale, vec![current]);
    assert_eq!(
        f.memory.session(source.as_str()).unwrap().status,
        Status::Active
    );
}

#[test]
fn continues_from_in_a_snapshot_protects_when_referenced_by_was_not_recorded() {
    let f = Fixture::new();
    let source = f.memory.register_session_start("a").unwrap();
    let current = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S."))
        .unwrap();
    let path = f.memory.session_path(current.as_str()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "## Continues From\n\nNone",
        &format!("## Continues From\n\n- {source}"),
    );
    std::fs::write(&path, text).unwrap();
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.protected, vec![source.clone()]);
    assert!(f.memory.session(source.as_str()).is_ok());
}

#[test]
fn stale_rows_are_left_alone_and_dry_run_writes_nothing() {
    let f = Fixture::with_index(&format!(
        "{HEADER}| s-1 | a | X | Old. | k | stale | - | 2025-01-01 | 2025-01-01 |\n| s-2 | a | 未設定 | x | k | idle | - | 2025-01-01 | 2025-01-01 |\n"
    ));
    let before = f.tree();
    let report = f
        .memory
        .organize(OrganizeOptions::default().dry_run(true))
        .unwrap();
    assert!(report.dry_run);
    assert_eq!(report.deleted_idle.len(), 1);
    assert_eq!(f.tree(), before);
    let report = f.memory.organize(OrganizeOptions::default()).unwrap();
    assert_eq!(report.deleted_idle.len(), 1);
    assert!(
        f.index_text()
            .contains("| s-1 | a | X | Old. | k | stale |")
    );
}

#[test]
fn organize_never_writes_closed_or_archived() {
    let f = Fixture::new();
    f.memory.register_session_start("a").unwrap();
    let b = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S."))
        .unwrap();
    f.days_later(20);
    f.memory.organize(OrganizeOptions::default()).unwrap();
    f.memory.update(b.as_str(), SessionUpdate::new()).unwrap();
    let text = f.index_text();
    assert!(!text.contains("closed") && !text.contains("archived"));
}

#[test]
fn organize_removes_temp_files_of_dead_writers_but_nothing_else() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let dead = [
        f.root().join(".index.md.tmp-4242-0"),
        f.root()
            .join("sessions")
            .join(format!(".{id}.md.tmp-4242-1")),
    ];
    for path in &dead {
        std::fs::write(path, "half a write").unwrap();
    }
    let lookalike = f.root().join(".notes.tmp-keep.md");
    std::fs::write(&lookalike, "mine").unwrap();
    f.memory
        .organize(OrganizeOptions::default().dry_run(true))
        .unwrap();
    assert!(dead.iter().all(|p| p.exists()), "a dry run removes nothing");
    f.memory.organize(OrganizeOptions::default()).unwrap();
    assert!(dead.iter().all(|p| !p.exists()));
    assert!(lookalike.exists());
    assert!(f.memory.session(id.as_str()).is_ok());
}
