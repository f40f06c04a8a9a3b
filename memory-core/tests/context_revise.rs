//! The seed's "Promotion and Supersession" and write protocol step 7 ("If updating
//! existing entry, update the row in _index.md too"), on real and hand-kept files.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::context_memory::{
    Category, ContextMemory, EntryPatch, EntryStatus, NewEntry, Query,
};

fn memory(root: &Path, at: &str) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time(at)
        .unwrap()
        .open()
        .unwrap()
}

const HAND: &str = "---\n# decided in the 2026-04 review\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: 'experimental'   # still trying\ntags:\n  - auth\n  - security\ncreated_at: 2026-04-03T10:00:00Z\nowner: alice\n---\n\nAuth uses JWT.\n\nSee the review notes.\n";

fn hand_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    std::fs::write(ns.join("decision-001-auth.md"), HAND).unwrap();
    dir
}

#[test]
fn an_update_rewrites_only_the_keys_it_changes_and_the_row_too() {
    let dir = hand_root();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let entry = m
        .update(
            "org.global.decision.001",
            EntryPatch::new().status(EntryStatus::Accepted),
        )
        .unwrap();
    assert_eq!(entry.status, EntryStatus::Accepted);
    let text = std::fs::read_to_string(dir.path().join("org/global/decision-001-auth.md")).unwrap();
    let expected = HAND
        .replace(
            "status: 'experimental'   # still trying",
            "status: 'accepted'   # still trying",
        )
        .replace(
            "owner: alice\n",
            "owner: alice\nupdated_at: 2026-05-01T08:00:00Z\n",
        );
    assert_eq!(text, expected);
    let hits = m.query(&Query::new()).unwrap();
    assert_eq!(hits[0].status, EntryStatus::Accepted);
    let index = std::fs::read_to_string(dir.path().join("org/global/_index.md")).unwrap();
    assert!(
        index.contains("> Last updated: 2026-05-01T08:00:00Z"),
        "{index}"
    );
}

#[test]
fn a_new_body_and_tags_keep_everything_else() {
    let dir = hand_root();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    m.update(
        "org.global.decision.001",
        EntryPatch::new()
            .tags(["auth", "sso"])
            .body("Auth uses SSO.")
            .summary("SSO for auth"),
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.path().join("org/global/decision-001-auth.md")).unwrap();
    assert!(
        text.starts_with("---\n# decided in the 2026-04 review\n"),
        "{text}"
    );
    assert!(text.contains("owner: alice"));
    assert!(
        text.contains("  - auth\n  - sso\n"),
        "a block list stays a block list: {text}"
    );
    assert!(text.ends_with("---\n\nAuth uses SSO.\n"), "{text}");
    let hit = &m.query(&Query::new()).unwrap()[0];
    assert_eq!(
        (hit.summary.as_str(), hit.tags.clone()),
        ("SSO for auth", vec!["auth".to_string(), "sso".to_string()])
    );
}

#[test]
fn a_new_body_in_a_crlf_file_keeps_one_line_ending_and_tags_differ_by_more_than_case() {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    std::fs::write(ns.join("decision-001-auth.md"), HAND.replace('\n', "\r\n")).unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    m.update(
        "org.global.decision.001",
        EntryPatch::new().body("Auth uses SSO.\nTokens rotate daily.\r\nSee the runbook."),
    )
    .unwrap();
    let text = std::fs::read_to_string(ns.join("decision-001-auth.md")).unwrap();
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "a bare LF was written: {text:?}"
    );
    assert!(
        text.ends_with("---\r\n\r\nAuth uses SSO.\r\nTokens rotate daily.\r\nSee the runbook.\r\n"),
        "{text:?}"
    );
    let one_tag = m
        .write(
            NewEntry::new(
                "org.global",
                Category::Risk,
                ["Auth", "auth"],
                "Tokens leak in logs.",
            )
            .unwrap(),
        )
        .unwrap_err();
    assert_eq!(one_tag.kind(), ErrorKind::InvalidInput, "{one_tag}");
}

#[test]
fn promotion_moves_experimental_to_accepted_and_refuses_history() {
    let dir = hand_root();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    assert_eq!(
        m.promote("org.global.decision.001").unwrap().status,
        EntryStatus::Accepted
    );
    assert_eq!(
        m.promote("org.global.decision.001").unwrap().status,
        EntryStatus::Accepted,
        "already accepted"
    );
    m.update(
        "org.global.decision.001",
        EntryPatch::new().status(EntryStatus::Deprecated),
    )
    .unwrap();
    assert_eq!(
        m.promote("org.global.decision.001").unwrap_err().kind(),
        ErrorKind::Conflict
    );
}

#[test]
fn supersession_writes_the_new_entry_and_marks_the_old_in_file_and_index() {
    let dir = hand_root();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let done = m
        .supersede(
            "org.global.decision.001",
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "security"],
                "Auth uses JWT with RS256.",
            )
            .unwrap(),
        )
        .unwrap();
    assert_eq!(done.new.entity_name.as_str(), "org.global.decision.002");
    assert_eq!(done.new.supersedes[0].as_str(), "org.global.decision.001");
    assert_eq!(done.old.status, EntryStatus::Superseded);
    assert_eq!(done.old.updated_at.as_deref(), Some("2026-05-01T08:00:00Z"));
    let current = m.query(&Query::new()).unwrap();
    assert_eq!(current.len(), 1, "the superseded entry is history");
    let all = m.query(&Query::new().include_history(true)).unwrap();
    assert_eq!(all[1].status, EntryStatus::Superseded);
    let ns = memory_core::context_memory::Namespace::org_global();
    assert!(!m.verify(&ns).unwrap().has_drift());
}

#[test]
fn namespace_promotion_creates_an_entry_in_the_target_that_supersedes_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let source = m
        .write(
            NewEntry::new(
                "project.app",
                Category::Principle,
                ["style", "code"],
                "Prefer boring tech.",
            )
            .unwrap()
            .rationale("Fewer surprises"),
        )
        .unwrap()
        .entry
        .entity_name;
    let done = m.promote_to(source.as_str(), "org.global").unwrap();
    assert_eq!(done.new.namespace.as_str(), "org.global");
    assert_eq!(done.new.rationale.as_deref(), Some("Fewer surprises"));
    assert_eq!(done.new.supersedes, vec![source.clone()]);
    assert_eq!(
        m.get(source.as_str()).unwrap().status,
        EntryStatus::Superseded
    );
    for ns in ["org.global", "project.app"] {
        let ns = memory_core::context_memory::Namespace::parse(ns).unwrap();
        assert!(!m.verify(&ns).unwrap().has_drift());
    }
}

#[test]
fn bad_patches_and_missing_entries_change_nothing() {
    let dir = hand_root();
    let before = std::fs::read(dir.path().join("org/global/decision-001-auth.md")).unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    assert_eq!(
        m.update("org.global.decision.001", EntryPatch::new().tags(["one"]))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        m.update("org.global.decision.001", EntryPatch::new().confidence(2.0))
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        m.update("org.global.decision.404", EntryPatch::new())
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        m.supersede(
            "org.global.decision.404",
            NewEntry::new("org.global", Category::Decision, ["a", "b"], "x.").unwrap()
        )
        .unwrap_err()
        .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        std::fs::read(dir.path().join("org/global/decision-001-auth.md")).unwrap(),
        before
    );
}

/// The seed's "Session Memory": chosen session entries are promoted (a new entry that
/// supersedes them), the rest cleared — moved to the archive, never deleted.
#[test]
fn ending_a_session_promotes_the_chosen_entries_and_archives_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let keep = m
        .write(
            NewEntry::new(
                "session.current",
                Category::Decision,
                ["api", "auth"],
                "Tokens live one hour.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry;
    let scratch = m
        .write(
            NewEntry::new(
                "session.current",
                Category::Todo,
                ["scratch", "port"],
                "Try port 8081.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry;
    let scratch_bytes = std::fs::read(dir.path().join(&scratch.file)).unwrap();
    let report = m
        .end_session(&[(keep.entity_name.to_string(), "project.app".to_string())])
        .unwrap();
    assert_eq!(report.promoted.len(), 1);
    assert_eq!(
        report.promoted[0].new.entity_name.as_str(),
        "project.app.decision.001"
    );
    assert_eq!(report.cleared, std::slice::from_ref(&scratch.entity_name));
    assert_eq!(report.kept, std::slice::from_ref(&keep.entity_name));
    // The promoted entry stays, superseded, so that the new entry's link resolves.
    assert_eq!(
        m.get(keep.entity_name.as_str()).unwrap().status,
        EntryStatus::Superseded
    );
    let archive = dir.path().join(report.archive.unwrap());
    assert_eq!(
        std::fs::read(archive.join(scratch.file.file_name().unwrap())).unwrap(),
        scratch_bytes
    );
    assert!(
        m.query(&Query::new().namespace("session.current").unwrap())
            .unwrap()
            .is_empty(),
        "the kept entry is history"
    );
    assert_eq!(
        m.query(&Query::new().namespace("project.app").unwrap())
            .unwrap()
            .len(),
        1
    );
    let session = memory_core::context_memory::Namespace::session_current();
    assert!(!m.verify(&session).unwrap().has_drift());
    assert_eq!(
        m.end_session(&[("org.global.decision.001".into(), "project.app".into())])
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
}

fn tree(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if e.file_name() != ".memcore.lock" {
                out.push((
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn session_entry(
    m: &ContextMemory,
    category: Category,
    tags: [&str; 2],
    body: &str,
) -> memory_core::context_memory::EntityName {
    m.write(NewEntry::new("session.current", category, tags, body).unwrap())
        .unwrap()
        .entry
        .entity_name
}

#[test]
fn ending_a_session_checks_every_name_first_and_completes_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let a = session_entry(
        &m,
        Category::Decision,
        ["api", "auth"],
        "Tokens live one hour.",
    );
    let b = session_entry(
        &m,
        Category::Principle,
        ["api", "retry"],
        "Retry with jitter.",
    );
    let before = tree(dir.path());
    for bad in [
        vec![
            (a.to_string(), "project.app".to_string()),
            (
                "session.current.todo.099".to_string(),
                "project.app".to_string(),
            ),
        ],
        vec![
            (a.to_string(), "project.app".to_string()),
            (b.to_string(), "session.current".to_string()),
        ],
        vec![
            (a.to_string(), "project.app".to_string()),
            (
                "org.global.decision.001".to_string(),
                "project.app".to_string(),
            ),
        ],
    ] {
        assert!(m.end_session(&bad).is_err(), "{bad:?}");
        assert_eq!(tree(dir.path()), before, "{bad:?} changed something");
    }
    // An interrupted end: `a` was promoted, nothing was cleared. Running again completes
    // it without promoting `a` twice.
    m.promote_to(a.as_str(), "project.app").unwrap();
    let report = m
        .end_session(&[
            (a.to_string(), "project.app".into()),
            (b.to_string(), "org.global".into()),
        ])
        .unwrap();
    assert_eq!(report.already_promoted, std::slice::from_ref(&a));
    assert_eq!(report.promoted.len(), 1);
    assert_eq!(
        m.query(&Query::new().namespace("project.app").unwrap())
            .unwrap()
            .len(),
        1
    );
    assert!(report.cleared.is_empty());
    assert!(
        !m.verify(&memory_core::context_memory::Namespace::session_current())
            .unwrap()
            .has_drift()
    );
}

#[test]
fn session_numbers_are_not_given_again_after_the_session_ends() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let first = session_entry(
        &m,
        Category::Decision,
        ["api", "auth"],
        "Tokens live one hour.",
    );
    let report = m.end_session(&[]).unwrap();
    assert_eq!(report.cleared, std::slice::from_ref(&first));
    let next = session_entry(
        &m,
        Category::Decision,
        ["db", "pool"],
        "Pool size is twenty.",
    );
    assert_ne!(
        next, first,
        "an archived session entry's name is not given again"
    );
    assert_eq!(next.as_str(), "session.current.decision.002");
}

#[test]
fn a_write_that_supersedes_marks_the_old_entry_and_history_cannot_be_superseded_twice() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let old = m
        .write(
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "security"],
                "Auth uses cookies.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry
        .entity_name;
    let other = m
        .write(
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["db", "ops"],
                "Backups run nightly at two.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry
        .entity_name;
    let new = m
        .write(
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "security"],
                "Auth uses JWT.",
            )
            .unwrap()
            .supersedes(old.clone()),
        )
        .unwrap();
    assert_eq!(new.entry.supersedes, std::slice::from_ref(&old));
    assert_eq!(m.get(old.as_str()).unwrap().status, EntryStatus::Superseded);
    let hits = m
        .query(&Query::new().namespace("org.global").unwrap())
        .unwrap();
    assert!(
        hits.iter().all(|h| h.entity_name != old),
        "the old entry is history"
    );

    let before = tree(dir.path());
    let again = m
        .supersede(
            old.as_str(),
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["auth", "sso"],
                "Auth uses SSO.",
            )
            .unwrap(),
        )
        .unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Conflict, "{again}");
    // Superseding still refuses a copy of another entry in force.
    let copy = m
        .supersede(
            new.entry.entity_name.as_str(),
            NewEntry::new(
                "org.global",
                Category::Decision,
                ["db", "ops"],
                "Backups run nightly at two!",
            )
            .unwrap(),
        )
        .unwrap_err();
    assert_eq!(copy.kind(), ErrorKind::Conflict, "{copy}");
    assert_eq!(copy.id(), Some(other.as_str()));
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn an_entry_superseded_already_is_not_superseded_or_promoted_again() {
    let dir = hand_root();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let next = |body: &str| {
        NewEntry::new("org.global", Category::Decision, ["auth", "security"], body).unwrap()
    };
    m.supersede("org.global.decision.001", next("Auth uses JWT with RS256."))
        .unwrap();
    let file = dir.path().join("org/global/decision-001-auth.md");
    let before = std::fs::read(&file).unwrap();
    let index_before = std::fs::read(dir.path().join("org/global/_index.md")).unwrap();
    let later = memory(dir.path(), "2026-06-01T08:00:00Z");
    for err in [
        later
            .supersede("org.global.decision.001", next("Auth uses opaque tokens."))
            .unwrap_err(),
        later
            .promote_to("org.global.decision.001", "org.security")
            .unwrap_err(),
    ] {
        assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
        assert_eq!(err.id(), Some("org.global.decision.001"));
        assert_eq!(err.path(), Some(file.as_path()));
    }
    // Nothing written: the time it was superseded stays, no second successor, no org.security.
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(
        std::fs::read(dir.path().join("org/global/_index.md")).unwrap(),
        index_before
    );
    assert!(!dir.path().join("org/security").exists());
    assert_eq!(
        later
            .get("org.global.decision.001")
            .unwrap()
            .updated_at
            .as_deref(),
        Some("2026-05-01T08:00:00Z")
    );
}

#[test]
fn a_new_body_takes_the_file_s_line_ending_on_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    let crlf = HAND.replace('\n', "\r\n");
    std::fs::write(ns.join("decision-001-auth.md"), format!("\u{feff}{crlf}")).unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let entry = m
        .update(
            "org.global.decision.001",
            EntryPatch::new().body("Auth uses JWT.\nTokens last an hour.\r\nRefresh is silent."),
        )
        .unwrap();
    assert_eq!(
        entry.body,
        "Auth uses JWT.\r\nTokens last an hour.\r\nRefresh is silent."
    );
    let text = std::fs::read_to_string(ns.join("decision-001-auth.md")).unwrap();
    assert!(text.starts_with("\u{feff}---\r\n"), "{text:?}");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "no bare LF: {text:?}"
    );
    assert!(
        text.ends_with("\r\n\r\nAuth uses JWT.\r\nTokens last an hour.\r\nRefresh is silent.\r\n"),
        "{text:?}"
    );

    // A new file is LF throughout, whatever the body was given with.
    let written = m
        .write(
            NewEntry::new(
                "org.global",
                Category::Risk,
                ["ops", "pager"],
                "The rota is thin.\r\nNights are worst.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry;
    let text = std::fs::read_to_string(dir.path().join(&written.file)).unwrap();
    assert!(!text.contains('\r'), "{text:?}");
    assert!(
        text.ends_with("\n\nThe rota is thin.\nNights are worst.\n"),
        "{text:?}"
    );
}

#[test]
fn a_later_end_session_keeps_what_an_earlier_promotion_links_to() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), "2026-05-01T08:00:00Z");
    let keep = m
        .write(
            NewEntry::new(
                "session.current",
                Category::Decision,
                ["api", "auth"],
                "Tokens live one hour.",
            )
            .unwrap(),
        )
        .unwrap()
        .entry
        .entity_name;
    let first = m
        .end_session(&[(keep.to_string(), "project.app".into())])
        .unwrap();
    let promoted = first.promoted[0].new.entity_name.clone();
    let second = m.end_session(&[]).unwrap();
    assert!(second.cleared.is_empty(), "{second:?}");
    assert_eq!(second.kept, std::slice::from_ref(&keep));
    let link = &m.get(promoted.as_str()).unwrap().supersedes[0];
    assert!(m.get(link.as_str()).is_ok(), "{link} dangles");
}
