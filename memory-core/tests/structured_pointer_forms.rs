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

/// `MEMORY.md` with the line of `form` (a hand-written form) changed to `to`.
fn with_line(before: &str, form: &str, to: &str, eol: &str) -> String {
    let old = format!("{form}{eol}");
    assert!(before.contains(&old), "{form:?}");
    before.replacen(&old, &format!("{to}{eol}"), 1)
}

/// A new hook (`--hook`) and a new title (`--title`) on an existing topic replace exactly
/// the hook and the title the reader found, in every form: emphasis, link titles, `<…>`
/// targets, reference links (a title that was the label becomes `[new][label]`, so that
/// the link still finds its definition), any separator; every other byte of the file,
/// that line's included, as it was.
#[test]
fn a_new_hook_and_title_replace_exactly_theirs_in_every_form() {
    for eol in ["\n", "\r\n"] {
        for retitle in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let mut expected = seed(d, eol);
            let m = memory(d);
            for (line, title, file, hook) in FORMS {
                let mut fact = Fact::new(*file, "x").date("2026-07-02").hook("new hook");
                let hooked = format!("{}new hook", line.strip_suffix(hook).unwrap());
                let want = if !retitle {
                    hooked
                } else {
                    fact = fact.title("New [T]");
                    let (from, to) = if hooked.contains(&format!("[{title}][]")) {
                        (format!("[{title}][]"), format!("[New \\[T\\]][{title}]"))
                    } else if hooked.contains(&format!("[{title}]("))
                        || hooked.contains(&format!("[{title}]["))
                    {
                        (format!("[{title}]"), "[New \\[T\\]]".to_string())
                    } else {
                        (format!("[{title}]"), format!("[New \\[T\\]][{title}]"))
                    };
                    hooked.replacen(&from, &to, 1)
                };
                m.remember(fact).unwrap();
                expected = with_line(&expected, line, &want, eol);
                let after = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
                assert_eq!(after, expected, "{line:?} {eol:?}");
                let index = m.index().unwrap();
                let read = index.line_for(file).unwrap();
                assert_eq!(read.hook, "new hook", "{line:?}");
                let title = if retitle { "New [T]" } else { title };
                assert_eq!(read.title, title, "{line:?}");
            }
            // Every line now has the same title and hook on purpose: only that is reported.
            let found: Vec<_> = m
                .check()
                .unwrap()
                .into_iter()
                .filter(|v| v.kind.as_str() != "near_duplicate_topics")
                .collect();
            assert_eq!(found, [], "{eol:?}");
        }
    }
}

/// The forms the reviewer found damaged, a title with an escaped `\](`, wikilinks and
/// a hook followed by an Obsidian comment: the hook replaced, the rest byte for byte.
#[test]
fn escaped_brackets_wikilinks_and_comments_keep_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lines = [
        (
            "* **[A](memory-a.md)** - old a",
            "memory-a.md",
            "* **[A](memory-a.md)** - new",
        ),
        (
            "- _[G](memory-g.md)_ — old g",
            "memory-g.md",
            "- _[G](memory-g.md)_ — new",
        ),
        (
            "- [C](<memory-c.md> \"title\") – old c",
            "memory-c.md",
            "- [C](<memory-c.md> \"title\") – new",
        ),
        ("1. [B][b] : old b", "memory-b.md", "1. [B][b] : new"),
        (
            "- [T \\](x](memory-t.md) — old t",
            "memory-t.md",
            "- [T \\](x](memory-t.md) — new",
        ),
        (
            "- [[memory-w|W]] — old w %% private %%",
            "memory-w.md",
            "- [[memory-w|W]] — new %% private %%",
        ),
        ("- [[memory-v]]", "memory-v.md", "- [[memory-v]] — new"),
        (
            "- [N](memory-n.md) —",
            "memory-n.md",
            "- [N](memory-n.md) — new",
        ),
    ];
    let mut text = String::from("<!-- memory index -->\n");
    for (line, file, _) in &lines {
        text.push_str(line);
        text.push('\n');
        std::fs::write(d.join(file), "- 2026-07-01: a fact\n").unwrap();
    }
    text.push_str("\n[b]: memory-b.md\n");
    std::fs::write(d.join("MEMORY.md"), &text).unwrap();
    let m = memory(d);
    for (line, file, want) in &lines {
        m.remember(Fact::new(*file, "y").hook("new")).unwrap();
        text = with_line(&text, line, want, "\n");
        assert_eq!(std::fs::read_to_string(d.join("MEMORY.md")).unwrap(), text);
        assert_eq!(m.index().unwrap().line_for(file).unwrap().hook, "new");
    }
    assert_eq!(
        m.index().unwrap().line_for("memory-t.md").unwrap().title,
        "T ](x"
    );
    // A wikilink takes a title as its alias.
    m.remember(Fact::new("memory-v.md", "z").title("Vee"))
        .unwrap();
    text = with_line(
        &text,
        "- [[memory-v]] — new",
        "- [[memory-v|Vee]] — new",
        "\n",
    );
    assert_eq!(std::fs::read_to_string(d.join("MEMORY.md")).unwrap(), text);
    // A title the line's form cannot hold (`]` in a wikilink) is refused: nothing written.
    let err = m
        .remember(Fact::new("memory-v.md", "w").title("a ] b"))
        .unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput, "{err}");
    assert_eq!(std::fs::read_to_string(d.join("MEMORY.md")).unwrap(), text);
    assert_eq!(m.topic("memory-v.md").unwrap().entries.len(), 3);
}
