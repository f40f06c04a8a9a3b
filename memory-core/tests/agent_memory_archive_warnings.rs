//! Archive goes on past an unreadable snapshot of another session and reports it (issue 6
//! §3): path, line and message in the outcome's `warnings`, for both outcomes; a snapshot
//! that is unreadable and may mention the archived session still stops it.

mod support;

use memory_core::{ArchiveOutcome, ErrorKind, ManualRegistration, SessionId};
use support::{Fixture, row_line};

/// Unreadable snapshot texts with the line the problem is on and the message's gist.
const UNREADABLE: [(&[u8], usize, &str); 5] = [
    (b"# Session\n\n\xff\xfe broken\n", 3, "UTF-8"),
    (b"\xc3", 1, "UTF-8"),
    (b"# Session\n\x00\x01binary", 2, "NUL"),
    (b"# S\n\n## Summary\n\nok\n\xe2\x82\n", 6, "UTF-8"),
    (b"\x00", 1, "NUL"),
];

fn manual(f: &Fixture, agent: &str) -> SessionId {
    f.memory
        .register_manual(ManualRegistration::new(agent, "Topic", "Summary."))
        .unwrap()
}

#[test]
fn archive_of_an_unrelated_session_lists_the_unreadable_snapshot_with_path_and_line() {
    for (bytes, line, gist) in UNREADABLE {
        let f = Fixture::new();
        let broken = manual(&f, "broken");
        let other = manual(&f, "other");
        let broken_path = f.memory.session_path(broken.as_str()).unwrap();
        std::fs::write(&broken_path, bytes).unwrap();
        let outcome = f.memory.archive(other.as_str()).unwrap();
        let ArchiveOutcome::Archived {
            session_id,
            warnings,
            ..
        } = &outcome
        else {
            panic!("archived: {outcome:?}");
        };
        assert_eq!(*session_id, other);
        assert_eq!(warnings.len(), 1, "{bytes:?}: {warnings:?}");
        assert_eq!(outcome.warnings(), warnings.as_slice());
        let w = &warnings[0];
        assert_eq!(w.path, broken_path, "{bytes:?}");
        assert_eq!(w.line, line, "{bytes:?}: {w}");
        assert!(w.message.contains(gist), "{bytes:?}: {w}");
        assert_eq!(
            w.to_string(),
            format!("{}:{line}: {}", broken_path.display(), w.message)
        );
        // The archive happened; the broken snapshot and its row are untouched.
        assert!(row_line(&f.index_text(), other.as_str()).is_none());
        assert!(row_line(&f.index_text(), broken.as_str()).is_some());
        assert_eq!(std::fs::read(&broken_path).unwrap(), bytes);
        // Its JSON form carries them: one object tagged `outcome` with `warnings`.
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["outcome"], "archived");
        assert_eq!(json["warnings"][0]["line"], line);
        assert_eq!(
            json["warnings"][0]["path"],
            broken_path.to_string_lossy().as_ref()
        );
        assert_eq!(json["warnings"][0]["message"], w.message.as_str());
    }
}

#[test]
fn a_deleted_placeholder_lists_the_unreadable_snapshot_too() {
    let f = Fixture::new();
    let broken = manual(&f, "broken");
    let idle = f.memory.register_session_start("idle").unwrap();
    let broken_path = f.memory.session_path(broken.as_str()).unwrap();
    std::fs::write(&broken_path, b"# Session\n\xff\n").unwrap();
    let outcome = f.memory.archive(idle.as_str()).unwrap();
    let ArchiveOutcome::Deleted {
        session_id,
        warnings,
        ..
    } = &outcome
    else {
        panic!("deleted: {outcome:?}");
    };
    assert_eq!(*session_id, idle);
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        (warnings[0].path.clone(), warnings[0].line),
        (broken_path, 2)
    );
    let json = serde_json::to_value(&outcome).unwrap();
    assert_eq!(json["outcome"], "deleted");
    assert_eq!(json["warnings"].as_array().map(Vec::len), Some(1));
}

#[test]
fn every_unreadable_snapshot_is_listed_in_path_order() {
    let f = Fixture::new();
    let ids: Vec<SessionId> = ["c", "a", "d", "b"].iter().map(|a| manual(&f, a)).collect();
    for id in &ids[1..] {
        std::fs::write(f.memory.session_path(id.as_str()).unwrap(), b"x\n\x00").unwrap();
    }
    let outcome = f.memory.archive(ids[0].as_str()).unwrap();
    let paths: Vec<_> = outcome.warnings().iter().map(|w| w.path.clone()).collect();
    let mut expected: Vec<_> = ids[1..]
        .iter()
        .map(|id| f.memory.session_path(id.as_str()).unwrap())
        .collect();
    expected.sort();
    assert_eq!(paths, expected);
    assert!(outcome.warnings().iter().all(|w| w.line == 2));
}

#[test]
fn nothing_unreadable_means_an_empty_list_in_both_outcomes() {
    let f = Fixture::new();
    let kept = manual(&f, "kept");
    let archived = manual(&f, "archived");
    let idle = f.memory.register_session_start("idle").unwrap();
    let a = f.memory.archive(archived.as_str()).unwrap();
    let d = f.memory.archive(idle.as_str()).unwrap();
    assert!(a.warnings().is_empty() && d.warnings().is_empty());
    for outcome in [a, d] {
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["warnings"], serde_json::json!([]), "{json}");
    }
    assert!(row_line(&f.index_text(), kept.as_str()).is_some());
}

#[test]
fn an_unreadable_snapshot_without_a_row_is_not_read_nor_reported() {
    let f = Fixture::new();
    let id = manual(&f, "a");
    let orphan = "2026-05-25-1318-orphan";
    let sessions = f.root().join("sessions");
    std::fs::write(sessions.join(format!("{orphan}.md")), b"\xff\x00").unwrap();
    let outcome = f.memory.archive(id.as_str()).unwrap();
    assert!(outcome.warnings().is_empty(), "{outcome:?}");
}

#[test]
fn archive_of_the_broken_session_itself_still_fails_malformed() {
    for (bytes, line, _) in UNREADABLE {
        let f = Fixture::new();
        let broken = manual(&f, "broken");
        manual(&f, "other");
        let path = f.memory.session_path(broken.as_str()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let before = f.tree();
        let err = f.memory.archive(broken.as_str()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
        assert_eq!(err.path(), Some(path.as_path()), "{err}");
        assert_eq!(err.line(), Some(line), "{err}");
        assert_eq!(f.tree(), before, "nothing written");
    }
}

#[test]
fn an_unreadable_snapshot_that_may_mention_the_archived_session_still_stops_it() {
    // Whether it names the session in Continues From, in prose, or only after the
    // unreadable byte: it may reference it, so archive refuses, typed, writing nothing.
    let shapes = [
        "# Session\n\n## Continues From\n\n- {id}\n\n\u{0}junk\n",
        "\u{0}\n## Continues From\n\n- {id}\n",
        "# Session\n\nsee {id} \u{0}\n",
    ];
    for shape in shapes {
        let f = Fixture::new();
        let source = manual(&f, "source");
        let broken = manual(&f, "broken");
        let path = f.memory.session_path(broken.as_str()).unwrap();
        std::fs::write(&path, shape.replace("{id}", source.as_str())).unwrap();
        let before = f.tree();
        let err = f.memory.archive(source.as_str()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Malformed, "{shape:?}: {err}");
        assert_eq!(err.path(), Some(path.as_path()), "{err}");
        assert_eq!(f.tree(), before, "nothing written");
    }
    // Invalid UTF-8 around the id stops it the same way.
    let f = Fixture::new();
    let source = manual(&f, "source");
    let broken = manual(&f, "broken");
    let path = f.memory.session_path(broken.as_str()).unwrap();
    let mut bytes = b"# Session\n\n## Continues From\n\n- ".to_vec();
    bytes.extend_from_slice(source.as_str().as_bytes());
    bytes.extend_from_slice(b"\n\xff\n");
    std::fs::write(&path, bytes).unwrap();
    let err = f.memory.archive(source.as_str()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err}");
}
