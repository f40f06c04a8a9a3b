//! insta snapshots of every file format Agent Memory renders: index.md, a session
//! snapshot (created and merged), an archive index. The clock is fixed, so the bytes are
//! deterministic (contract 8).

mod support;

use memory_core::{ManualRegistration, OrganizeOptions, SessionUpdate};
use support::Fixture;

fn scenario() -> (Fixture, String, String) {
    let f = Fixture::new();
    let idle = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    let worked = f
        .memory
        .register_session_start("cursor-main-agent")
        .unwrap();
    f.clock.advance_minutes(42);
    f.memory
        .update(
            worked.as_str(),
            SessionUpdate::new()
                .topic("登入 | login flow")
                .summary("Found the cookie bug; fix in review.")
                .keywords(["auth", "cookies"])
                .context("Reproduced the logout loop.\nRoot cause: cookies not rotated.")
                .decision("Rotate cookies on login")
                .decision("Keep the v1 API")
                .file("src/login.rs")
                .question("Which TTL?")
                .next_action("Write a regression test"),
        )
        .unwrap();
    f.clock.advance_minutes(60 * 24);
    f.memory
        .update(
            worked.as_str(),
            SessionUpdate::new()
                .context("Fix merged.")
                .decision("Drop the v1 API")
                .supersede("Keep the v1 API")
                .resolve("TTL")
                .done("regression test")
                .file("src/login.rs")
                .file("tests/login.rs"),
        )
        .unwrap();
    let follow = f
        .memory
        .register_manual(
            ManualRegistration::new(
                "review-agent",
                "Review login fix",
                "Reviewing the cookie fix.",
            )
            .next_action("Approve the PR"),
        )
        .unwrap();
    f.memory
        .continue_from(follow.as_str(), worked.as_str())
        .unwrap();
    assert!(f.memory.session(idle.as_str()).is_ok());
    (f, worked.to_string(), follow.to_string())
}

#[test]
fn index_after_register_update_continue() {
    let (f, ..) = scenario();
    insta::assert_snapshot!("index_after_continue", f.index_text());
}

#[test]
fn snapshot_created_then_merged() {
    let (f, worked, follow) = scenario();
    insta::assert_snapshot!("snapshot_merged", f.snapshot_text(&worked));
    insta::assert_snapshot!(
        "snapshot_manual_with_continuation",
        f.snapshot_text(&follow)
    );
}

#[test]
fn index_after_organize_and_archive_index() {
    let (f, worked, follow) = scenario();
    f.clock.advance_minutes(60 * 24 * 20);
    f.memory.organize(OrganizeOptions::default()).unwrap();
    insta::assert_snapshot!("index_after_organize", f.index_text());
    f.memory.archive(&follow).unwrap();
    f.memory.archive(&worked).unwrap();
    insta::assert_snapshot!("index_after_archive", f.index_text());
    let archive =
        std::fs::read_to_string(f.memory.archive_dir(&worked).unwrap().join("index.md")).unwrap();
    insta::assert_snapshot!("archive_index", archive);
    let moved =
        std::fs::read_to_string(f.memory.archive_dir(&follow).unwrap().join("session.md")).unwrap();
    insta::assert_snapshot!("archived_session_after_release", moved);
}
