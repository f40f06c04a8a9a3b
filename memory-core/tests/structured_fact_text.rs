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

#[test]
fn a_fact_that_starts_with_a_fence_is_refused_closed_or_not() {
    // The first line is the entry's own line (`- date: …`), where a fence is text: the
    // closing line would open a fence instead. Closed or not, it is refused the same way.
    for text in [
        "```\ncode\n```",
        "```rust\ncode",
        "~~~\ncode\n~~~",
        "  ```\nx\n```",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        let err = memory(&root)
            .remember(Fact::new("memory-t.md", text).hook("t"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(
            err.to_string().contains("starts with a code fence"),
            "{err}"
        );
        assert!(!root.exists(), "nothing written for {text:?}");
    }
}

#[test]
fn continuation_lines_keep_their_own_indentation() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let text = "steps:\n  - build\n    - with --release\n\tthen tag\n      and push";
    let out = m
        .remember(Fact::new("memory-t.md", text).hook("t"))
        .unwrap();
    assert_eq!(out.entry.text, text);
    assert_eq!(m.topic("memory-t.md").unwrap().entries[0].text, text);
    // Only white space at the ends goes: the text's own and each line's trailing.
    let out = m
        .remember(Fact::new("memory-u.md", "  \n  lead  \n    kept  \n").hook("u"))
        .unwrap();
    assert_eq!(out.entry.text, "lead\n    kept");
}

/// One line of a hostile fact: indentation of spaces and tabs, then Markdown markers and text.
fn hostile_line() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (
        prop::collection::vec(prop_oneof![Just(' '), Just('\t')], 0..7),
        prop::sample::select(vec![
            "", "- ", "* ", "1. ", "> ", "# ", "```", "~~~", "    ", "<div>", "<!--", "-->", "|",
            "---", "%%", "[x]: ", "\\",
        ]),
        "[a-z ]{0,6}",
    )
        .prop_map(|(indent, marker, word)| {
            let mut s: String = indent.into_iter().collect();
            s.push_str(marker);
            s.push_str(&word);
            s
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    /// Any fact text: refused with nothing written, or stored so that it reads back as
    /// itself (first line trimmed, each line's end trimmed, indentation kept) and the
    /// topic takes the next write with every entry still there.
    #[test]
    fn any_fact_text_reads_back_as_itself_or_is_refused(
        lines in proptest::collection::vec(hostile_line(), 1..5),
    ) {
        let text = lines.join("\n");
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        m.remember(Fact::new("memory-t.md", "before").hook("t").subject("before")).unwrap();
        let before = std::fs::read(dir.path().join("memory-t.md")).unwrap();
        match m.remember(Fact::new("memory-t.md", text.as_str()).subject("hostile")) {
            Err(err) => {
                proptest::prop_assert_eq!(err.kind(), ErrorKind::InvalidInput, "{}", err);
                proptest::prop_assert_eq!(
                    std::fs::read(dir.path().join("memory-t.md")).unwrap(),
                    before
                );
            }
            Ok(out) => {
                let expected = text
                    .trim()
                    .lines()
                    .map(str::trim_end)
                    .collect::<Vec<_>>()
                    .join("\n");
                proptest::prop_assert_eq!(&out.entry.text, &expected);
                m.remember(Fact::new("memory-t.md", "after").subject("after")).unwrap();
                let topic = m.topic("memory-t.md").unwrap();
                let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
                proptest::prop_assert_eq!(texts, vec!["before", expected.as_str(), "after"]);
            }
        }
    }
}

#[test]
fn characters_that_reorder_or_break_the_line_are_refused_in_every_field_and_a_hook_must_show() {
    for bad in ['\u{202E}', '\u{2066}', '\u{2028}', '\u{2029}'] {
        let value = format!("a{bad}b");
        for fact in [
            Fact::new("memory-t.md", value.as_str()).hook("t"),
            Fact::new("memory-t.md", "x")
                .hook("t")
                .subject(value.as_str()),
            Fact::new("memory-t.md", "x")
                .hook("t")
                .section(value.as_str()),
            Fact::new("memory-t.md", "x").hook(value.as_str()),
            Fact::new("memory-t.md", "x")
                .hook("t")
                .title(value.as_str()),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("memory");
            let err = memory(&root).remember(fact).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad:?}: {err}");
            assert!(err.to_string().contains("U+"), "{err}");
            assert!(!root.exists());
        }
    }
    // Emoji joiners and variation selectors are text.
    let dir = tempfile::tempdir().unwrap();
    memory(dir.path())
        .remember(Fact::new("memory-t.md", "team 👨\u{200D}👩 ❤\u{FE0F}").hook("t"))
        .unwrap();
    // A hook that renders as nothing is no hook, given or found.
    let dir = tempfile::tempdir().unwrap();
    let err = memory(dir.path())
        .remember(Fact::new("memory-t.md", "x").hook("<!-- -->"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    std::fs::write(
        dir.path().join("MEMORY.md"),
        "- [T](memory-t.md) — <!-- hidden -->\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("memory-t.md"), "- 2026-07-01: x\n").unwrap();
    let kinds: Vec<String> = memory(dir.path())
        .check()
        .unwrap()
        .into_iter()
        .map(|v| v.kind.as_str().to_string())
        .collect();
    assert!(kinds.contains(&"empty_hook".to_string()), "{kinds:?}");
}

#[test]
fn a_fact_that_is_only_an_html_comment_is_refused_and_one_with_visible_text_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d);
    m.remember(
        Fact::new("memory-t.md", "seed")
            .hook("t")
            .date("2026-07-01"),
    )
    .unwrap();
    let before = std::fs::read_to_string(d.join("memory-t.md")).unwrap();
    for text in [
        "<!-- hidden -->",
        "<!-- one --> <!-- two -->",
        "<!-- a\nsecond line -->",
    ] {
        let err = m.remember(Fact::new("memory-t.md", text)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{text:?}: {err}");
        assert!(err.to_string().contains("renders as nothing"), "{err}");
        assert_eq!(
            std::fs::read_to_string(d.join("memory-t.md")).unwrap(),
            before
        );
    }
    // Visible text beside a comment, and an inline `<!--` never closed (text in
    // CommonMark), are facts.
    for text in [
        "deploys at noon <!-- per the runbook -->",
        "open <!-- comment",
    ] {
        let out = m.remember(Fact::new("memory-t.md", text)).unwrap();
        assert_eq!(out.entry.text, text);
    }
}
