//! Seed rules of SessionStart and manual registration.

mod support;

use memory_core::{ErrorKind, ManualRegistration, Status};
use support::{Fixture, row_line};

#[test]
fn session_start_appends_an_idle_row_with_the_seed_defaults() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    assert_eq!(id.as_str(), "2026-05-25-1318-cursor-main-agent");
    let row = f.memory.session(id.as_str()).unwrap();
    assert_eq!(
        row.status,
        Status::Idle,
        "SessionStart must not write active"
    );
    assert_eq!(row.topic, "未設定");
    assert_eq!(row.summary, "sessionStart 自動註冊，尚未整理主題。");
    assert_eq!(row.keywords, ["sessionStart", "cursor-agent"]);
    assert!(row.referenced_by.is_empty());
    assert_eq!(row.started_at, row.updated_at);
    assert_eq!(row.started_at.as_str(), "2026-05-25T13:18:00+08:00");
    let line = row_line(&f.index_text(), id.as_str()).unwrap();
    assert!(line.contains("| idle | - |"), "{line}");
}

#[test]
fn session_start_creates_no_session_file() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    assert!(!f.memory.session_path(id.as_str()).unwrap().exists());
    assert!(!f.root().join("sessions").exists());
    assert!(f.memory.snapshot(id.as_str()).unwrap().is_none());
}

#[test]
fn same_agent_in_the_same_minute_gets_distinct_ids() {
    let f = Fixture::new();
    let ids: Vec<_> = (0..4)
        .map(|_| {
            f.memory
                .register_session_start("cursor-main-agent")
                .unwrap()
        })
        .collect();
    let texts: Vec<_> = ids.iter().map(|i| i.as_str()).collect();
    assert_eq!(
        texts,
        [
            "2026-05-25-1318-cursor-main-agent",
            "2026-05-25-1318-cursor-main-agent-2",
            "2026-05-25-1318-cursor-main-agent-3",
            "2026-05-25-1318-cursor-main-agent-4"
        ]
    );
    assert_eq!(f.memory.sessions().unwrap().len(), 4);
}

#[test]
fn an_id_still_used_by_an_archive_is_not_reused() {
    let f = Fixture::new();
    let first = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "Did things."))
        .unwrap();
    f.memory.archive(first.as_str()).unwrap();
    let second = f.memory.register_session_start("a").unwrap();
    assert_ne!(first, second);
}

#[test]
fn no_id_is_reported_when_the_index_cannot_be_written() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.index()).unwrap(); // index.md is a directory: unreadable as a file
    let err = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io);
    assert_eq!(err.path(), Some(f.index().as_path()));
}

#[test]
fn task_wording_is_not_an_agent_name() {
    let f = Fixture::new();
    let err = f
        .memory
        .register_session_start("fix the login bug")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        !f.index().exists(),
        "nothing may be written for a rejected name"
    );
}

#[test]
fn manual_registration_writes_an_active_row_and_a_snapshot_from_the_template() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(
            ManualRegistration::new("cursor-main-agent", "Login bug", "Found the cookie bug.")
                .decision("Rotate cookies")
                .file("src/login.rs")
                .question("Which TTL?")
                .next_action("Write a test"),
        )
        .unwrap();
    let row = f.memory.session(id.as_str()).unwrap();
    assert_eq!(row.status, Status::Active);
    assert_eq!(
        row.keywords,
        ["manual-registration", "cursor-agent", "session-snapshot"]
    );
    let text = f.snapshot_text(id.as_str());
    for heading in [
        "# Session: 2026-05-25-1318-cursor-main-agent",
        "## Metadata",
        "## Current Context",
        "## Decisions",
        "## Files / Artifacts",
        "## Open Questions",
        "## Next Actions",
        "## Continues From",
        "## Superseded / Resolved",
    ] {
        assert!(text.contains(heading), "missing {heading:?} in\n{text}");
    }
    let snapshot = f.memory.snapshot(id.as_str()).unwrap().unwrap();
    assert_eq!(snapshot.status, "active");
    assert_eq!(snapshot.current_context, "Found the cookie bug.");
    assert_eq!(snapshot.decisions[0].text, "Rotate cookies");
    assert_eq!(snapshot.updated_at, row.updated_at.as_str());
    assert!(snapshot.continues_from.is_empty());
}

#[test]
fn manual_registration_uses_the_fallbacks_when_nothing_is_known() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("cursor-main-agent", " ", ""))
        .unwrap();
    let row = f.memory.session(id.as_str()).unwrap();
    assert_eq!(row.topic, "未設定");
    assert_eq!(row.summary, "手動補註冊，已建立 session snapshot。");
}

#[test]
fn manual_registration_never_borrows_an_existing_row() {
    let f = Fixture::new();
    let idle = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    let manual = f
        .memory
        .register_manual(ManualRegistration::new("cursor-main-agent", "T", "S."))
        .unwrap();
    assert_ne!(idle, manual);
    assert_eq!(
        f.memory.session(idle.as_str()).unwrap().status,
        Status::Idle
    );
    assert_eq!(f.memory.sessions().unwrap().len(), 2);
}

#[test]
fn manual_registration_with_a_source_links_both_sides() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "Old", "Old work."))
        .unwrap();
    let id = f
        .memory
        .register_manual(
            ManualRegistration::new("b", "New", "New work.").continues_from(source.as_str()),
        )
        .unwrap();
    assert_eq!(
        f.memory.session(source.as_str()).unwrap().referenced_by,
        vec![id.clone()]
    );
    assert_eq!(
        f.memory
            .snapshot(id.as_str())
            .unwrap()
            .unwrap()
            .continues_from,
        vec![source]
    );
}

#[test]
fn manual_registration_with_an_unknown_source_writes_nothing() {
    let f = Fixture::new();
    f.memory.register_session_start("a").unwrap();
    let before = f.tree();
    let err = f
        .memory
        .register_manual(
            ManualRegistration::new("b", "T", "S.").continues_from("2020-01-01-0000-ghost"),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(f.tree(), before);
}
