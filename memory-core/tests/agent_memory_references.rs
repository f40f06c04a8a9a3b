//! Seed rules of Continue Memory, Release Reference and Reading Memory.

mod support;

use memory_core::{ErrorKind, ManualRegistration, SessionUpdate, Status};
use support::{Fixture, row_line};

#[test]
fn continue_writes_both_sides_and_changes_nothing_else_of_the_source() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "Login", "Fixed it.").keywords(["auth"]))
        .unwrap();
    let current = f.memory.register_session_start("b").unwrap();
    let source_before = f.memory.session(source.as_str()).unwrap();
    f.clock.advance_minutes(60);
    let outcome = f
        .memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    let source_after = f.memory.session(source.as_str()).unwrap();
    assert_eq!(source_after.referenced_by, vec![current.clone()]);
    assert_eq!(source_after.topic, source_before.topic);
    assert_eq!(source_after.summary, source_before.summary);
    assert_eq!(source_after.keywords, source_before.keywords);
    assert_eq!(source_after.status, source_before.status);
    assert_eq!(source_after.updated_at, source_before.updated_at);
    assert_eq!(
        outcome.current.status,
        Status::Active,
        "the continuing session becomes active"
    );
    let snapshot = f.memory.snapshot(current.as_str()).unwrap().unwrap();
    assert_eq!(snapshot.continues_from, vec![source.clone()]);
    assert!(
        snapshot.current_context.contains(source.as_str()),
        "Current Context says what is continued"
    );
    assert_eq!(
        f.memory.sessions().unwrap().len(),
        2,
        "no second row for the current session"
    );
    assert!(
        f.memory.session_path(source.as_str()).unwrap().exists(),
        "the source is not archived"
    );
}

#[test]
fn a_second_referrer_is_appended_with_a_comma() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let b = f.memory.register_session_start("b").unwrap();
    let c = f.memory.register_session_start("c").unwrap();
    f.memory.continue_from(b.as_str(), source.as_str()).unwrap();
    f.memory.continue_from(c.as_str(), source.as_str()).unwrap();
    f.memory.continue_from(c.as_str(), source.as_str()).unwrap(); // idempotent
    let line = row_line(&f.index_text(), source.as_str()).unwrap();
    assert!(line.contains(&format!("| {b}, {c} |")), "{line}");
}

#[test]
fn continue_from_itself_or_an_unknown_source_writes_nothing() {
    let f = Fixture::new();
    let a = f.memory.register_session_start("a").unwrap();
    let before = f.tree();
    assert_eq!(
        f.memory
            .continue_from(a.as_str(), a.as_str())
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        f.memory
            .continue_from(a.as_str(), "2020-01-01-0000-x")
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        f.memory
            .continue_from("2020-01-01-0000-x", a.as_str())
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(f.tree(), before);
}

#[test]
fn continue_from_itself_names_the_session_like_every_other_item_error() {
    let f = Fixture::new();
    // Registered or not: the call names the session, so the error carries it.
    let a = f.memory.register_session_start("a").unwrap();
    for id in [a.as_str(), "2020-01-01-0000-x"] {
        let err = f.memory.continue_from(id, id).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(err.id(), Some(id), "{err}");
        assert_eq!(
            err.to_string(),
            format!("invalid source session \"{id}\": a session cannot continue from itself")
        );
        assert_eq!(err.path(), None);
    }
    // The other item errors of a session carry it too: an empty item text to mark.
    let b = f
        .memory
        .register_manual(ManualRegistration::new("b", "T", "S.").decision("Use bcrypt"))
        .unwrap();
    for update in [
        SessionUpdate::new().supersede(" "),
        SessionUpdate::new().resolve("\t"),
        SessionUpdate::new().done(""),
    ] {
        let before = f.tree();
        let err = f.memory.update(b.as_str(), update).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.id(), Some(b.as_str()), "{err}");
        assert_eq!(f.tree(), before);
    }
    let missing = f
        .memory
        .update(b.as_str(), SessionUpdate::new().supersede("Use md5"))
        .unwrap_err();
    assert_eq!(missing.id(), Some(b.as_str()));
    // Every refused text of an update names the session it was meant for.
    let long = "x".repeat(70_000);
    for update in [
        SessionUpdate::new().decision("a\u{1b}b"),
        SessionUpdate::new().file("a\u{0}"),
        SessionUpdate::new().question(long.clone()),
        SessionUpdate::new().next_action("\u{7f}"),
        SessionUpdate::new().supersede("\u{1b}"),
        SessionUpdate::new().topic("t\u{1b}"),
        SessionUpdate::new().summary(long.clone()),
        SessionUpdate::new().context("\u{1b}"),
        SessionUpdate::new().keywords(["a,b"]),
        SessionUpdate::new().keywords(["a<br>b"]),
    ] {
        let before = f.tree();
        let err = f.memory.update(b.as_str(), update).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.id(), Some(b.as_str()), "{err}");
        assert_eq!(f.tree(), before);
    }
    // A bad id is no session: nothing to name.
    let err = f.memory.update("a/b", SessionUpdate::new()).unwrap_err();
    assert_eq!(err.id(), None);
}

#[test]
fn release_removes_both_sides_and_restores_the_placeholders() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let current = f
        .memory
        .register_manual(ManualRegistration::new("b", "T2", "S2."))
        .unwrap();
    f.memory
        .continue_from(current.as_str(), source.as_str())
        .unwrap();
    let current_row = f.memory.session(current.as_str()).unwrap();
    let outcome = f.memory.release(current.as_str(), source.as_str()).unwrap();
    assert!(outcome.referenced_by_updated && outcome.continues_from_updated);
    assert!(
        row_line(&f.index_text(), source.as_str())
            .unwrap()
            .contains("| active | - |")
    );
    assert!(
        f.snapshot_text(current.as_str())
            .contains("## Continues From\n\nNone\n")
    );
    assert_eq!(
        f.memory.session(current.as_str()).unwrap(),
        current_row,
        "release is not a status update"
    );
    let again = f.memory.release(current.as_str(), source.as_str()).unwrap();
    assert!(!again.referenced_by_updated && !again.continues_from_updated);
}

#[test]
fn release_keeps_other_referrers() {
    let f = Fixture::new();
    let source = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let b = f.memory.register_session_start("b").unwrap();
    let c = f.memory.register_session_start("c").unwrap();
    f.memory.continue_from(b.as_str(), source.as_str()).unwrap();
    f.memory.continue_from(c.as_str(), source.as_str()).unwrap();
    f.memory.release(b.as_str(), source.as_str()).unwrap();
    assert_eq!(
        f.memory.session(source.as_str()).unwrap().referenced_by,
        vec![c]
    );
}

#[test]
fn reading_puts_meaningful_sessions_first_and_idle_placeholders_last() {
    let f = Fixture::new();
    let idle = f.memory.register_session_start("a").unwrap();
    f.clock.advance_minutes(1);
    let old = f
        .memory
        .register_manual(ManualRegistration::new("b", "Old work", "Did it."))
        .unwrap();
    f.clock.advance_minutes(1);
    let recent = f
        .memory
        .register_manual(ManualRegistration::new("c", "New work", "Doing it."))
        .unwrap();
    f.clock.advance_minutes(1);
    let placeholder_active = f.memory.register_session_start("d").unwrap();
    f.memory
        .update(placeholder_active.as_str(), SessionUpdate::new())
        .unwrap();
    let order: Vec<_> = f
        .memory
        .sessions()
        .unwrap()
        .into_iter()
        .map(|r| r.session_id)
        .collect();
    assert_eq!(order, vec![recent, old, placeholder_active, idle]);
}

#[test]
fn find_searches_topic_summary_keywords_and_agent() {
    let f = Fixture::new();
    f.memory
        .register_manual(
            ManualRegistration::new("a", "Payments", "Stripe webhooks.").keywords(["billing"]),
        )
        .unwrap();
    f.memory
        .register_manual(ManualRegistration::new("b", "Login", "Cookie bug."))
        .unwrap();
    assert_eq!(f.memory.find("STRIPE").unwrap().len(), 1);
    assert_eq!(f.memory.find("billing").unwrap()[0].topic, "Payments");
    assert_eq!(
        f.memory.find("b").unwrap().len(),
        2,
        "agent name b and 'Stripe webhooks'/'billing' both match"
    );
    assert!(f.memory.find("nothing-like-this").unwrap().is_empty());
}

#[test]
fn referenced_by_holds_session_ids_not_agent_names() {
    let f = Fixture::with_index(
        "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n| s-1 | a | T | S | k | active | cursor main agent | 2026-05-01 | 2026-05-01 |\n",
    );
    let err = f.memory.sessions().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.line(), Some(3));
}
