//! Pointer lines as people and tools write them by hand: any list item (`-`, `*`, `+`,
//! `1.`, `1)`) whose text starts with a link to a topic file — a link title, emphasis
//! around the link, `<…>` targets, reference links with their `[ref]: file.md`
//! definition — is read as a pointer, its bytes kept when memory-core rewrites other
//! lines; what still is not one is content that `check` reports with its line.

use std::path::Path;

use memory_core::structured_memory::{Fact, StructuredMemory};

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// Hand-written forms: the line, then the title, file and hook it must read as.
const FORMS: &[(&str, &str, &str, &str)] = &[
    ("- [F](f.md \"a title\") — f hook", "F", "f.md", "f hook"),
    ("- [G](g.md 'single') - g hook", "G", "g.md", "g hook"),
    ("- [H](<h y.md> (parens)): h hook", "H", "h y.md", "h hook"),
    ("- **[E](e.md)** — e hook", "E", "e.md", "e hook"),
    ("- __[U](u.md)__ u hook", "U", "u.md", "u hook"),
    ("- *[I](i.md)* – i hook", "I", "i.md", "i hook"),
    ("* [X](x.md) x hook", "X", "x.md", "x hook"),
    ("+ [Y](<y z.md>) — spaced", "Y", "y z.md", "spaced"),
    ("1. [O](o.md) — ordered", "O", "o.md", "ordered"),
    (
        "12) [P](p.md) — ordered with a paren",
        "P",
        "p.md",
        "ordered with a paren",
    ),
    ("- [R][ref] — full reference", "R", "r.md", "full reference"),
    (
        "- [Collapsed][] — collapsed",
        "Collapsed",
        "c.md",
        "collapsed",
    ),
    ("- [Shortcut] — shortcut", "Shortcut", "s.md", "shortcut"),
    (
        "- [Ünï 文件](ü.md \"t\") — unicode",
        "Ünï 文件",
        "ü.md",
        "unicode",
    ),
];

const DEFINITIONS: &str = "[ref]: r.md\n[COLLAPSED]: <c.md> \"title\"\n  [shortcut]:   s.md\n";

fn index_text(eol: &str) -> String {
    let mut text = String::from("\u{feff}# Memory\n\n");
    for (line, ..) in FORMS {
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(DEFINITIONS);
    text.replace('\n', eol)
}

fn seed(d: &Path, eol: &str) -> String {
    let text = index_text(eol);
    std::fs::write(d.join("MEMORY.md"), &text).unwrap();
    for (_, _, file, _) in FORMS {
        std::fs::write(d.join(file), "- 2026-07-01: a fact\n").unwrap();
    }
    text
}

#[test]
fn every_hand_written_form_reads_as_a_pointer() {
    for eol in ["\n", "\r\n"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        seed(d, eol);
        let m = memory(d);
        let index = m.index().unwrap();
        let got: Vec<(&str, &str, &str)> = index
            .lines
            .iter()
            .map(|l| (l.title.as_str(), l.file.as_str(), l.hook.as_str()))
            .collect();
        let expected: Vec<(&str, &str, &str)> =
            FORMS.iter().map(|(_, t, f, h)| (*t, *f, *h)).collect();
        assert_eq!(got, expected, "{eol:?}");
        assert_eq!(index.lines[0].line, 3);
        assert!(index.content.is_empty(), "{:?}", index.content);
        // One-to-one with the files: no orphan, no dangling line, definitions are not content.
        assert_eq!(m.check().unwrap(), [], "{eol:?}");
        assert_eq!(m.recall("shortcut").unwrap()[0].line.file, "s.md");
    }
}

#[test]
fn their_bytes_stay_when_other_lines_are_written() {
    for eol in ["\n", "\r\n"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let before = seed(d, eol);
        let m = memory(d);
        // A write into a hand-linked topic, and a new topic with its new line.
        m.remember(Fact::new("r.md", "another fact").date("2026-07-02"))
            .unwrap();
        m.remember(Fact::new("memory-new.md", "new").hook("new things"))
            .unwrap();
        let after = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
        assert!(after.starts_with(&before), "{after:?}");
        let added = &after[before.len()..];
        assert_eq!(added, format!("- [New](memory-new.md) — new things{eol}"));
        assert_eq!(memory(d).index().unwrap().lines.len(), FORMS.len() + 1);
        assert_eq!(m.topic("r.md").unwrap().entries.len(), 2);
    }
}

#[test]
fn what_still_is_not_a_pointer_is_content_check_reports_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines = [
        "- [A](a.md) — a",
        "**[E](e.md)** — bold, but not a list item",
        "- [Nowhere][missing] — a reference with no definition",
        "- see [B](b.md) — the link is not the item's start",
        "-[C](c.md) — no space after the marker",
        "- [D](d.md \"title never closed) — d",
    ];
    std::fs::write(d.join("MEMORY.md"), lines.join("\n") + "\n").unwrap();
    std::fs::write(d.join("a.md"), "- 2026-07-01: a\n").unwrap();
    let m = memory(d);
    let index = m.index().unwrap();
    assert_eq!(index.lines.len(), 1);
    let content: Vec<usize> = m
        .check()
        .unwrap()
        .iter()
        .filter(|v| v.kind.as_str() == "content_in_index")
        .map(|v| v.line)
        .collect();
    assert_eq!(content, [2, 3, 4, 5, 6]);
}
