//! Seed rules of single-session archive (封存 memory session).

mod support;

use memory_core::{ArchiveOutcome, ErrorKind, ManualRegistration, SessionUpdate};
use support::{Fixture, row_line};

#[test]
fn archive_moves_the_snapshot_writes_the_archive_index_and_removes_the_row_last() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "Login", "Fixed it.").decision("D"))
        .unwrap();
    let snapshot = f.snapshot_text(id.as_str());
    f.clock.advance_minutes(5);
    let outcome = f.memory.archive(id.as_str()).unwrap();
    let dir = f.memory.archive_dir(id.as_str()).unwrap();
    assert_eq!(
        outcome,
        ArchiveOutcome::Archived {
            session_id: id.clone(),
            archive_index: dir.join("index.md"),
            session_file: dir.join("session.md"),
            released_from: vec![],
            warnings: vec![],
        }
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("session.md")).unwrap(),
        snapshot,
        "moved unchanged"
    );
    assert!(!f.memory.session_path(id.as_str()).unwrap().exists());
    let archive_index = std::fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(archive_index.starts_with(&format!("# Archived Session: {id}\n")));
    assert!(archive_index.contains("| Original Status | active |"));
    assert!(archive_index.contains("| Archived At | 2026-05-25T13:23:00+08:00 |"));
    assert!(archive_index.contains("- Session: ./session.md"));
    assert!(row_line(&f.index_text(), id.as_str()).is_none());
    assert_eq!(
        f.memory.session(id.as_str()).unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn an_idle_row_without_snapshot_is_deleted_not_archived() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    assert_eq!(
        f.memory.archive(id.as_str()).unwrap(),
        ArchiveOutcome::Deleted {
            session_id: id.clone(),
            warnings: vec![],
        }
    );
    assert!(
        !f.root().join("archive").exists(),
        "no empty archive folder for placeholders"
    );
    assert!(row_line(&f.index_text(), id.as_str()).is_none());
}

#[test]
fn a_referenced_session_is_not_archived() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let current = f.memory.register_session_start("b").unwrap();
    f.memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    let before = f.tree();
    let err = f.memory.archive(source.as_str()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert!(
        err.to_string().contains(current.as_str()),
        "the error names who references it: {err}"
    );
    assert_eq!(f.tree(), before);
    let idle_source = f.memory.register_session_start("c").unwrap();
    f.memory
        .continue_from(current.as_str(), idle_source.as_str())
        .unwrap();
    assert_eq!(
        f.memory.archive(idle_source.as_str()).unwrap_err().kind(),
        ErrorKind::Conflict,
        "not even idle ones"
    );
}

#[test]
fn archiving_a_referencing_session_releases_its_references_first() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let other = f.memory.register_session_start("c").unwrap();
    let current = f
        .memory
        .register_manual(ManualRegistration::new("b", "T2", "S2."))
        .unwrap();
    f.memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    f.memory
        .continue_from(other.as_str(), source.as_str())
        .unwrap();
    let outcome = f.memory.archive(current.as_str()).unwrap();
    let ArchiveOutcome::Archived { released_from, .. } = outcome else {
        panic!("expected an archive")
    };
    assert_eq!(released_from, vec![source.clone()]);
    assert_eq!(
        f.memory.session(source.as_str()).unwrap().referenced_by,
        vec![other]
    );
    f.memory
        .release(
            f.memory.session(source.as_str()).unwrap().referenced_by[0].as_str(),
            source.as_str(),
        )
        .unwrap();
    assert!(matches!(
        f.memory.archive(source.as_str()).unwrap(),
        ArchiveOutcome::Archived { .. }
    ));
}

#[test]
fn a_meaningful_row_without_snapshot_is_refused_not_deleted() {
    let f = Fixture::with_index(
        "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n| s-1 | a | Login | Real work happened. | k | active | - | 2026-05-01 | 2026-05-01 |\n",
    );
    let before = f.tree();
    let err = f.memory.archive("s-1").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(
        f.tree(),
        before,
        "never direct-delete a row with a meaningful summary"
    );
    f.memory.update("s-1", SessionUpdate::new()).unwrap();
    assert!(matches!(
        f.memory.archive("s-1").unwrap(),
        ArchiveOutcome::Archived { .. }
    ));
}

#[test]
fn an_interrupted_archive_can_be_completed() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    // Simulate a crash after the snapshot was moved but before the row was removed.
    let dir = f.memory.archive_dir(id.as_str()).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::rename(
        f.memory.session_path(id.as_str()).unwrap(),
        dir.join("session.md"),
    )
    .unwrap();
    assert!(matches!(
        f.memory.archive(id.as_str()).unwrap(),
        ArchiveOutcome::Archived { .. }
    ));
    assert!(dir.join("index.md").exists());
    assert!(row_line(&f.index_text(), id.as_str()).is_none());
}
