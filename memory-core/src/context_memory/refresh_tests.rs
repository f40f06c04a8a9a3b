use super::*;
use proptest::prelude::*;

use crate::agent_memory::Warning;

const FILE: &str = "projects/app/_pending_refresh.md";

/// What the seed author's `cursor-memory-hook` writes for a first merge.
const SEED_FRESH: &str = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- src/auth.rs\n- docs/auth flow.md\n\nReview and update memory entries as needed.\n";

/// The same file after the script appended two more runs.
const SEED_APPENDED: &str = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- src/auth.rs\n- docs/auth flow.md\n\nReview and update memory entries as needed.\n\n## Additional changes (post-checkout at 2026-04-04T09:30:00Z)\n\n- src/auth.rs\n- README.md\n\n## Additional changes (manual at 2026-04-05T00:00:59Z)\n\n- \"caf\\303\\251/men\\303\\274.md\"\n";

fn parse(text: &str) -> Result<PendingRefresh> {
    PendingRefresh::parse(Path::new(FILE), text)
}

fn malformed_line(text: &str) -> (usize, String) {
    match parse(text) {
        Err(Error::Malformed {
            line,
            message,
            path,
        }) => {
            assert_eq!(path, Path::new(FILE));
            (line, message)
        }
        other => panic!("expected Malformed for {text:?}, got {other:?}"),
    }
}

fn paths(doc: &PendingRefresh) -> Vec<String> {
    doc.changes().into_iter().map(|c| c.path).collect()
}

#[test]
fn files_the_seed_script_wrote_are_read_whole() {
    let doc = parse(SEED_FRESH).unwrap();
    assert_eq!(doc.sections().len(), 1);
    assert_eq!(doc.sections()[0].trigger, RefreshTrigger::PostMerge);
    assert_eq!(doc.sections()[0].timestamp, "2026-04-03T10:00:00Z");
    assert_eq!(paths(&doc), ["src/auth.rs", "docs/auth flow.md"]);
    // Our rendering of what we read is the script's output, byte for byte.
    assert_eq!(doc.render(), SEED_FRESH);

    let doc = parse(SEED_APPENDED).unwrap();
    let changes = doc.changes();
    assert_eq!(changes.len(), 5);
    assert_eq!(
        (
            changes[2].path.as_str(),
            changes[2].trigger,
            changes[2].timestamp.as_str()
        ),
        (
            "src/auth.rs",
            RefreshTrigger::PostCheckout,
            "2026-04-04T09:30:00Z"
        )
    );
    // git's octal-quoted name (the script copies `core.quotePath` output) is unquoted.
    assert_eq!(changes[4].path, "café/menü.md");
    assert_eq!(changes[4].trigger, RefreshTrigger::Manual);
}

#[test]
fn appending_gives_what_the_seed_script_appends() {
    let doc = parse(SEED_FRESH).unwrap();
    let mut text = SEED_FRESH.to_string();
    let run = PendingRefresh::new(
        RefreshTrigger::PostCheckout,
        "2026-04-04T09:30:00Z",
        ["src/auth.rs", "README.md"],
    )
    .unwrap();
    text.push_str(&PendingRefresh::append_text(&text, &run.sections()[0]));
    let run = PendingRefresh::new(
        RefreshTrigger::Manual,
        "2026-04-05T00:00:59Z",
        ["café/menü.md"],
    )
    .unwrap();
    text.push_str(&PendingRefresh::append_text(&text, &run.sections()[0]));
    let again = parse(&text).unwrap();
    assert_eq!(again.changes().len(), doc.changes().len() + 3);
    // Non-ASCII names are written as they are (the script's octal form is only read).
    assert!(text.ends_with("- café/menü.md\n"), "{text}");
    assert_eq!(
        text,
        SEED_APPENDED.replace("\"caf\\303\\251/men\\303\\274.md\"", "café/menü.md")
    );
}

#[test]
fn a_fresh_file_snapshot() {
    let doc = PendingRefresh::new(
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        [
            "src/auth.rs",
            "docs/auth flow.md",
            "naïve/ünïcode.md",
            "odd\nname.txt",
        ],
    )
    .unwrap();
    insta::assert_snapshot!("pending_refresh_fresh", doc.render());
}

#[test]
fn a_file_with_appended_sections_snapshot() {
    let mut doc = PendingRefresh::new(
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        ["src/a.rs"],
    )
    .unwrap();
    doc.push_section(
        RefreshTrigger::PostCheckout,
        "2026-04-04T09:30:00Z",
        ["src/a.rs", " leading space.md", "\"quoted\".md"],
    )
    .unwrap();
    doc.push_section(RefreshTrigger::Manual, "2026-04-05T23:59:59Z", ["Makefile"])
        .unwrap();
    let text = doc.render();
    assert_eq!(parse(&text).unwrap(), doc);
    insta::assert_snapshot!("pending_refresh_appended", text);
}

#[test]
fn crlf_bom_blank_lines_and_markers_are_read_and_line_ends_kept() {
    let text = format!(
        "\u{feff}{}",
        "---\r\ntrigger: 'post-checkout'   # from the hook\r\ntimestamp: \"2026-04-03T10:00:00Z\"\r\n---\r\n\r\n\r\n# Pending Knowledge Refresh   \r\nFiles changed since last knowledge sync:\r\n* a.md\r\n+ b.md  \r\n-\tc.md\r\nReview and update memory entries as needed.\r\n\r\n\r\n## Additional changes (post-merge at 2026-04-04T00:00:00Z)\r\n- d.md"
    );
    let mut doc = parse(&text).unwrap();
    assert_eq!(paths(&doc), ["a.md", "b.md", "c.md", "d.md"]);
    assert_eq!(doc.sections()[0].trigger, RefreshTrigger::PostCheckout);
    assert_eq!(doc.clear(&["b.md"]), ["b.md"]);
    let rendered = doc.render();
    assert!(rendered.starts_with("\u{feff}---\r\ntrigger: post-checkout\r\n"));
    assert!(!rendered.replace("\r\n", "").contains('\n'), "{rendered:?}");
    assert_eq!(paths(&parse(&rendered).unwrap()), ["a.md", "c.md", "d.md"]);
    // An append to a CRLF file without a final line break keeps CRLF and ends the line.
    let section =
        PendingRefresh::new(RefreshTrigger::Manual, "2026-04-05T00:00:00Z", ["e.md"]).unwrap();
    let appended = PendingRefresh::append_text(&text, &section.sections()[0]);
    assert_eq!(
        appended,
        "\r\n\r\n## Additional changes (manual at 2026-04-05T00:00:00Z)\r\n\r\n- e.md\r\n"
    );
    let all = format!("{text}{appended}");
    assert_eq!(paths(&parse(&all).unwrap()).len(), 5);
}

#[test]
fn empty_and_headless_files() {
    for blank in ["", "\n", "  \n\r\n\t\n", "\u{feff}"] {
        assert!(parse(blank).unwrap().is_empty(), "{blank:?}");
    }
    // What the seed's script appends to a file an agent emptied.
    let headless = "\n## Additional changes (post-merge at 2026-04-04T00:00:00Z)\n\n- a.md\n\n## Additional changes (post-checkout at 2026-04-05T00:00:00Z)\n\n- b.md\n";
    let doc = parse(headless).unwrap();
    assert_eq!(paths(&doc), ["a.md", "b.md"]);
    // Rewritten, the first section becomes the head.
    let rendered = doc.render();
    assert!(
        rendered.starts_with("---\ntrigger: post-merge\ntimestamp: 2026-04-04T00:00:00Z\n---\n")
    );
    assert_eq!(parse(&rendered).unwrap().changes(), doc.changes());
}

#[test]
fn hand_cleared_head_list_is_read_and_dropped_on_clear() {
    let text = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\nReview and update memory entries as needed.\n\n## Additional changes (manual at 2026-04-04T00:00:00Z)\n\n- x\n- y\n";
    let mut doc = parse(text).unwrap();
    assert_eq!(paths(&doc), ["x", "y"]);
    assert_eq!(doc.clear(&["y", "y", "nope"]), ["y"]);
    assert_eq!(doc.sections().len(), 1);
    assert_eq!(doc.sections()[0].trigger, RefreshTrigger::Manual);
    assert_eq!(doc.clear(&["x"]), ["x"]);
    assert!(doc.is_empty());
    assert_eq!(doc.render(), "");
}

#[test]
fn every_other_shape_is_malformed_with_its_line() {
    let head = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n";
    let body = "\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\n\nReview and update memory entries as needed.\n";
    let cases: Vec<(String, usize, &str)> = vec![
        ("# Pending Knowledge Refresh\n".into(), 1, "frontmatter"),
        ("\n---\ntrigger: manual\n".into(), 2, "frontmatter"),
        (
            "---\ntrigger: manual\ntimestamp: 2026-04-03T10:00:00Z\n".into(),
            1,
            "not closed",
        ),
        (
            format!("---\ntrigger: merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n{body}"),
            2,
            "trigger",
        ),
        (
            format!("---\ntrigger: manual\ntimestamp: 2026-04-03 10:00:00\n---\n{body}"),
            3,
            "timestamp",
        ),
        (
            format!("---\ntrigger: manual\ntimestamp: 2026-02-30T10:00:00Z\n---\n{body}"),
            3,
            "timestamp",
        ),
        (format!("---\ntrigger: manual\n---\n{body}"), 1, "timestamp"),
        (
            format!("---\ntrigger: manual\ntimestamp: 2026-04-03T10:00:00Z\nextra: 1\n---\n{body}"),
            4,
            "unknown field",
        ),
        (format!("---\ntrigger: [a\n---\n{body}"), 2, "frontmatter"),
        (
            format!(
                "---\ntrigger: manual\ntrigger: manual\ntimestamp: 2026-04-03T10:00:00Z\n---\n{body}"
            ),
            2,
            "duplicate",
        ),
        (format!("---\n- a\n---\n{body}"), 2, "frontmatter"),
        (format!("{head}\n# Pending refresh\n"), 6, "title"),
        (
            format!("{head}\n# Pending Knowledge Refresh\n\nChanged:\n"),
            8,
            "Files changed",
        ),
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\n"
            ),
            10,
            "ends before",
        ),
        (
            format!("{head}{body}\nA note I wrote.\n"),
            14,
            "hand-written",
        ),
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\nnote\n"
            ),
            11,
            "hand-written",
        ),
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n-\n"
            ),
            10,
            "without a path",
        ),
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n1. a\n"
            ),
            10,
            "hand-written",
        ),
        (
            format!("{head}{body}\n## Additional changes (post-merge 2026-04-04T00:00:00Z)\n"),
            14,
            "section heading",
        ),
        (
            format!("{head}{body}\n## Additional changes (rebase at 2026-04-04T00:00:00Z)\n"),
            14,
            "trigger",
        ),
        (
            format!("{head}{body}\n## Additional changes (manual at yesterday)\n"),
            14,
            "timestamp",
        ),
        (
            format!("{head}{body}\n## Other heading\n"),
            14,
            "hand-written",
        ),
        (format!("{head}{body}\n```\n- a\n```\n"), 14, "hand-written"),
        (format!("{head}{body}\n- \"unterminated\n"), 14, "closing"),
        (
            format!("{head}{body}\n- \"bad \\q escape\"\n"),
            14,
            "escape",
        ),
        (format!("{head}{body}\n- \"\\377\"\n"), 14, "UTF-8"),
        (format!("{head}{body}\n- \"\\000\"\n"), 14, "NUL"),
        (format!("{head}{body}\n- \"\\38\"\n"), 14, "octal"),
    ];
    for (text, line, word) in cases {
        let (got, message) = malformed_line(&text);
        assert_eq!(got, line, "{text:?}: {message}");
        assert!(
            message.contains(word),
            "{text:?}: {message:?} lacks {word:?}"
        );
    }
}

fn lenient(text: &str) -> (PendingRefresh, Vec<Warning>) {
    PendingRefresh::parse_lenient(Path::new(FILE), text).unwrap()
}

#[test]
fn the_lenient_reader_lists_every_path_and_names_every_other_line() {
    let head = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n";
    let body = "\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\n\nReview and update memory entries as needed.\n";
    let section = "\n## Additional changes (manual at 2026-04-05T00:00:00Z)\n\n- b\n";
    // (text, the paths, the lines warned about)
    let cases: Vec<(String, Vec<&str>, Vec<usize>)> = vec![
        (
            format!("{head}{body}{section}Note: reviewed.\n"),
            vec!["a", "b"],
            vec![17],
        ),
        (
            format!("{head}{body}Note: reviewed.\n{section}"),
            vec!["a", "b"],
            vec![13],
        ),
        (
            format!("{head}{body}{section}Note: reviewed."),
            vec!["a", "b"],
            vec![17],
        ),
        (
            format!("{head}{body}{section}").replace('\n', "\r\n") + "Note: reviewed.\r\n",
            vec!["a", "b"],
            vec![17],
        ),
        (
            format!("\u{feff}{head}{body}{section}Заметка: проверено ✓\n"),
            vec!["a", "b"],
            vec![17],
        ),
        // A note inside the head list, a list without its closing sentence.
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\nmy note\n- c\n{section}"
            ),
            vec!["a", "c", "b"],
            vec![11],
        ),
        // The title and first sentence edited by hand.
        (
            format!("{head}\n# Pending refresh\n\nChanged:\n\n- a\n{section}"),
            vec!["a", "b"],
            vec![6, 8],
        ),
        // Notes before the first heading of a headless file; a path before any heading.
        (
            format!("My notes\n- lost?\n{section}"),
            vec!["b"],
            vec![1, 2],
        ),
        // A malformed heading and quoted path; a fenced block.
        (
            format!(
                "{head}{body}\n## Additional changes (rebase at 2026-04-04T00:00:00Z)\n- \"bad\n```\n- d\n```\n"
            ),
            vec!["a", "d"],
            vec![14, 15, 16, 18],
        ),
        // A key added to the frontmatter by hand.
        (
            format!(
                "---\ntrigger: post-merge\nreviewed: yes\ntimestamp: 2026-04-03T10:00:00Z\n---\n{body}"
            ),
            vec!["a"],
            vec![3],
        ),
        // The file ends before the closing sentence.
        (
            format!(
                "{head}\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- a\n"
            ),
            vec!["a"],
            vec![10],
        ),
    ];
    for (text, want, lines) in cases {
        let (doc, warnings) = lenient(&text);
        assert_eq!(paths(&doc), want, "{text:?}");
        let got: Vec<usize> = warnings.iter().map(|w| w.line).collect();
        assert_eq!(got, lines, "{text:?}: {warnings:?}");
        assert!(warnings.iter().all(|w| w.path == Path::new(FILE)));
        assert!(parse(&text).is_err(), "the strict reader refuses {text:?}");
    }
    // What the strict reader takes, the lenient one takes the same way, without warnings.
    for text in [SEED_FRESH, SEED_APPENDED, "", "\n\n", section] {
        let (doc, warnings) = lenient(text);
        assert_eq!(doc, parse(text).unwrap());
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    // A frontmatter that does not read is still refused: the first list's trigger and
    // time would be unknown.
    assert!(PendingRefresh::parse_lenient(Path::new(FILE), "---\ntrigger: merge\n---\n").is_err());
}

#[test]
fn hostile_values_are_refused_before_writing() {
    let mut doc = PendingRefresh::default();
    assert!(
        doc.push_section(
            RefreshTrigger::Manual,
            "2026-04-03T10:00:00Z",
            Vec::<String>::new()
        )
        .is_err()
    );
    assert!(
        doc.push_section(RefreshTrigger::Manual, "2026-04-03T10:00:00Z", [""])
            .is_err()
    );
    assert!(
        doc.push_section(RefreshTrigger::Manual, "2026-04-03T10:00:00Z", ["a\0b"])
            .is_err()
    );
    assert!(
        doc.push_section(RefreshTrigger::Manual, "2026-04-03T10:00:00+01:00", ["a"])
            .is_err()
    );
    assert!(doc.sections().is_empty());
}

#[test]
fn huge_lists_round_trip() {
    let many: Vec<String> = (0..20_000)
        .map(|i| format!("src/module_{i}/file.rs"))
        .collect();
    let doc = PendingRefresh::new(
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        many.clone(),
    )
    .unwrap();
    let back = parse(&doc.render()).unwrap();
    assert_eq!(paths(&back), many);
    let long = "x".repeat(100_000);
    let doc = PendingRefresh::new(
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        [long.clone()],
    )
    .unwrap();
    assert_eq!(paths(&parse(&doc.render()).unwrap()), [long]);
}

fn trigger() -> impl Strategy<Value = RefreshTrigger> {
    prop::sample::select(RefreshTrigger::ALL.to_vec())
}

fn a_path() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_./ -]{1,20}",
        "[^\u{0}]{1,12}",
        Just("\"".to_string()),
        Just("- x".to_string()),
        Just("## Additional changes (manual at 2026-04-03T10:00:00Z)".to_string()),
    ]
}

fn sections() -> impl Strategy<Value = Vec<(RefreshTrigger, u32, Vec<String>)>> {
    prop::collection::vec(
        (
            trigger(),
            0u32..2_000_000_000,
            prop::collection::vec(a_path(), 1..6),
        ),
        1..5,
    )
}

fn build(sections: &[(RefreshTrigger, u32, Vec<String>)]) -> PendingRefresh {
    let mut doc = PendingRefresh::default();
    for (trigger, secs, paths) in sections {
        let at = chrono::DateTime::from_timestamp(i64::from(*secs), 0).unwrap();
        let stamp = at.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        doc.push_section(*trigger, &stamp, paths.clone()).unwrap();
    }
    doc
}

proptest! {
    /// Whatever the paths (any character but NUL), the rendered file reads back as the
    /// same sections, and an append reads back as the old list plus the new one.
    #[test]
    fn render_and_append_round_trip(sections in sections(), crlf in any::<bool>()) {
        let doc = build(&sections);
        let mut text = doc.render();
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let back = parse(&text).unwrap();
        prop_assert_eq!(back.sections(), doc.sections());
        let extra = build(&sections[..1]);
        let appended = format!("{text}{}", PendingRefresh::append_text(&text, &extra.sections()[0]));
        let mut expected = doc.changes();
        expected.extend(extra.changes());
        prop_assert_eq!(parse(&appended).unwrap().changes(), expected);
    }

    /// Clearing removes exactly the done paths: every other listing stays, in order,
    /// and no section is left empty.
    #[test]
    fn clear_keeps_every_other_path(sections in sections(), pick in prop::collection::vec(any::<prop::sample::Index>(), 0..4)) {
        let mut doc = build(&sections);
        let all = doc.changes();
        let done: Vec<String> = pick.iter().map(|i| all[i.index(all.len())].path.clone()).collect();
        doc.clear(&done);
        let kept: Vec<PendingChange> = all.into_iter().filter(|c| !done.contains(&c.path)).collect();
        prop_assert_eq!(doc.changes(), kept);
        prop_assert!(doc.sections().iter().all(|s| !s.paths.is_empty()));
        if !doc.is_empty() {
            prop_assert_eq!(parse(&doc.render()).unwrap().changes(), doc.changes());
        }
    }

    /// No input makes either reader panic.
    #[test]
    fn the_reader_never_panics(text in "\\PC{0,200}", head in any::<bool>()) {
        let text = if head { format!("{SEED_FRESH}{text}") } else { text };
        let _ = parse(&text);
        let _ = PendingRefresh::parse_lenient(Path::new(FILE), &text);
    }

    /// Hand-written lines anywhere after the frontmatter never hide a path: the lenient
    /// reader lists exactly what was rendered, with one warning per note, on its line.
    #[test]
    fn notes_never_hide_a_path(
        sections in sections(),
        notes in prop::collection::vec((any::<prop::sample::Index>(), "Note[^\n\r]{0,30}"), 1..5),
        crlf in any::<bool>(),
    ) {
        let doc = build(&sections);
        let mut lines: Vec<String> = doc.render().lines().map(str::to_string).collect();
        let mut at: Vec<usize> = Vec::new();
        for (index, note) in &notes {
            // After the frontmatter's closing `---` (line 4).
            let i = 4 + index.index(lines.len() - 3);
            lines.insert(i, note.clone());
            for a in &mut at {
                if *a > i {
                    *a += 1;
                }
            }
            at.push(i + 1);
        }
        at.sort_unstable();
        let ending = if crlf { "\r\n" } else { "\n" };
        let text = lines.join(ending) + ending;
        let (back, warnings) = PendingRefresh::parse_lenient(Path::new(FILE), &text).unwrap();
        prop_assert_eq!(back.changes(), doc.changes());
        let got: Vec<usize> = warnings.iter().map(|w| w.line).collect();
        prop_assert_eq!(got, at);
        // Clearing around the notes keeps every note and exactly the other paths.
        let all = doc.changes();
        let done: Vec<String> = notes.iter().map(|(i, _)| all[i.index(all.len())].path.clone()).collect();
        let (cleared_text, left, _) = PendingRefresh::clear_in_place(Path::new(FILE), &text, &done).unwrap();
        let kept: Vec<PendingChange> = all.into_iter().filter(|c| !done.contains(&c.path)).collect();
        prop_assert_eq!(left.changes(), kept.clone());
        let (again, warnings) = PendingRefresh::parse_lenient(Path::new(FILE), &cleared_text).unwrap();
        prop_assert_eq!(again.changes(), kept);
        prop_assert_eq!(warnings.len(), notes.len());
        for (_, note) in &notes {
            prop_assert!(cleared_text.contains(note.as_str()));
        }
    }
}
