//! A time that names no day (`last week`, `recently`, `a few days ago`, `last May`) is
//! refused as `Error::VagueTime`: kind `InvalidInput`, message starting `vague time in `
//! and `field()` the field, nothing written; a bad or ambiguous date stays a plain
//! `InvalidInput`.

use std::path::Path;

use memory_core::structured_memory::{Fact, StructuredMemory};
use memory_core::{Error, ErrorKind};

/// 2026-07-10 is a Friday.
fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

#[test]
fn a_vague_date_or_text_is_refused_as_vague_time_naming_the_field_and_phrase() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let fact = |text: &str| Fact::new("memory-t.md", text).hook("a topic");
    let cases = [
        (fact("deploy broke").date("last week"), "date", "last week"),
        (fact("deploy broke").date("Recently"), "date", "recently"),
        (fact("deploy broke").date("last May"), "date", "last may"),
        (fact("shipped it last week"), "text", "last week"),
        (fact("the cache was purged recently"), "text", "recently"),
        (
            fact("rotated the keys a few days ago"),
            "text",
            "a few days ago",
        ),
    ];
    for (fact, field, phrase) in cases {
        let err = m.remember(fact).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert_eq!(err.kind().exit_code(), 2);
        assert!(
            matches!(&err, Error::VagueTime { field: f, phrase: p, .. } if *f == field && p == phrase),
            "{err:?}"
        );
        assert_eq!(err.field(), Some(field), "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("vague time in {field} ")),
            "{err}"
        );
        assert!(err.to_string().contains("names"), "{err}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != ".memcore.lock")
            .count(),
        0,
        "nothing written"
    );
}

#[test]
fn a_bad_or_ambiguous_date_is_invalid_input_but_not_vague_time() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let fact = |text: &str| Fact::new("memory-t.md", text).hook("a topic");
    for fact in [
        fact("deploy broke").date("31 February 2026"),
        fact("deploy broke").date("2026-13-01"),
        fact("deploy broke").date("banana"),
        fact("the freeze starts Monday"),
    ] {
        let err = m.remember(fact).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(!matches!(err, Error::VagueTime { .. }), "{err:?}");
        assert!(!err.to_string().starts_with("vague time"), "{err}");
    }
    // What converts is written.
    let out = m
        .remember(fact("deploy broke").date("last monday"))
        .unwrap();
    assert_eq!(out.entry.date.to_string(), "2026-07-06");
}
