//! A fact's text as callers give it: CRLF line breaks (Windows input) are line breaks, a
//! closed fence, a heading or a quote reads back as part of the entry, and what would
//! swallow the next entry (an HTML block, an open fence) is refused with nothing written.

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};

fn memory(dir: &std::path::Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

#[test]
fn crlf_breaks_are_line_breaks_and_a_closed_fence_stays_in_the_entry() {
    for (given, stored) in [
        ("first line\r\nsecond line", "first line\nsecond line"),
        (
            "run it:\r\n```\r\nmake deploy\r\n```",
            "run it:\n```\nmake deploy\n```",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m
            .remember(Fact::new("memory-t.md", given).hook("t").date("2026-07-01"))
            .unwrap();
        assert_eq!(out.entry.text, stored);
        assert_eq!(m.topic("memory-t.md").unwrap().entries[0].text, stored);
        let file = std::fs::read_to_string(dir.path().join("memory-t.md")).unwrap();
        assert!(!file.contains('\r'), "{file:?}");
    }
}

#[test]
fn markdown_lines_in_a_fact_read_back_as_themselves_or_are_refused_with_nothing_written() {
    // Indented under the entry, these are the entry's own lines.
    for text in [
        "line1\n# head",
        "line1\n> quote",
        "line1\n---",
        "line1\n| a | b |\n|---|---|",
        "line1\n1. item",
        "line1\n<!-- note -->",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m
            .remember(Fact::new("memory-t.md", text).hook("t"))
            .unwrap();
        assert_eq!(out.entry.text, text);
        let again = m.topic("memory-t.md").unwrap();
        assert_eq!(again.entries.len(), 1);
        assert_eq!(again.entries[0].text, text);
    }
    // An HTML block runs to a blank line and would swallow the next entry: refused.
    for text in ["line1\n<div>", "line1\n<div>\n</div>", "line1\n```"] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        let err = memory(&root)
            .remember(Fact::new("memory-t.md", text).hook("t"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("would not read back"), "{err}");
        assert!(!root.exists(), "nothing written");
    }
    // A lone carriage return is still refused.
    let dir = tempfile::tempdir().unwrap();
    let err = memory(dir.path())
        .remember(Fact::new("memory-t.md", "a\rb").hook("t"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}
