//! Snapshot content fidelity: values holding Markdown structure (fences, headings, list
//! markers, blank lines, `None`, backslashes) read back as the same value and never
//! create, split or hide a section or an item; merge rules for Current Context and
//! Files / Artifacts.

mod support;

use memory_core::{ManualRegistration, Mark, SessionUpdate, Snapshot, SnapshotItem};
use proptest::prelude::*;
use support::Fixture;

const SUMMARY: &str = "Summary Σ-42.";

const TEMPLATE_HEADINGS: [&str; 8] = [
    "Metadata",
    "Current Context",
    "Decisions",
    "Files / Artifacts",
    "Open Questions",
    "Next Actions",
    "Continues From",
    "Superseded / Resolved",
];

/// A value as the library stores it: surrounding blank space trimmed, CRLF read as LF,
/// lines holding only spaces or tabs made empty.
fn norm(value: &str) -> String {
    value
        .trim()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .map(|l| if l.trim().is_empty() { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The marking an item given to an update carries (`[done] x`, `x [done]`; not an
/// escaped `x \\[done]`) and its text.
fn split_mark(text: &str) -> (Option<Mark>, String) {
    if let Some((mark, rest)) = Mark::parse_prefix(text) {
        return (Some(mark), norm(rest));
    }
    for mark in [Mark::Superseded, Mark::Resolved, Mark::Done] {
        let tag = mark.as_str();
        if let Some(at) = text.len().checked_sub(tag.len())
            && text.is_char_boundary(at)
            && text[at..].eq_ignore_ascii_case(tag)
            && !text[..at].ends_with('\\')
        {
            return (Some(mark), norm(&text[..at]));
        }
    }
    (None, norm(text.strip_prefix("[ ]").unwrap_or(text)))
}

fn item(value: &str) -> (Option<Mark>, String) {
    split_mark(&norm(value))
}

fn items(list: &[SnapshotItem]) -> Vec<(Option<Mark>, String)> {
    list.iter().map(|i| (i.mark, i.text.clone())).collect()
}

fn hostile() -> Vec<&'static str> {
    vec![
        "```",
        // Empty fenced blocks look like the placeholder: escaping only their opening
        // fence once left the closer to hide every later section.
        "```\n```",
        "~~~\n~~~",
        "```\n\n```",
        "````\n````",
        "```\n## Continues From\n- 2026-01-01-0000-x\n```",
        "```rust\nfn main() {}\n\n// blank line above\n```",
        "~~~\nunclosed tilde fence\n## Decisions",
        "## Continues From\n- 2026-01-01-0000-evil",
        "# Title\n## Next Actions\n### deeper",
        "- x\n* y\n+ z\n1. one\n2) two",
        "> quote\n>> nested",
        "line one\n\nline three after a blank line",
        "None",
        "none.",
        "`None`",
        "-",
        "n/a",
        "無",
        "  leading and trailing spaces  ",
        "\\",
        "\\- escaped already\n\\## too",
        "C:\\Users\\x",
        "1\\. not a list",
        "---\n===\n___",
        "| Field | Value |\n|---|---|\n| Status | idle |",
        "<!-- unclosed comment",
        "&#78;one",
        "x [done]",
        "x \\[done]",
        "[superseded] old",
        "[ ] task box",
        "[[Wiki Page]]",
        "tab\tinside\n\t- tabbed item",
        "crlf\r\nline",
        "    indented code\n        more",
        "```\ncode\n  ```\n- after",
        "List decisions already made.",
        "Summarize what has happened in this agent session so far.",
    ]
}

fn register(f: &Fixture, context: &str, value: &str) -> String {
    f.memory
        .register_manual(
            ManualRegistration::new("agent", "Topic", SUMMARY)
                .context(context)
                .decision(value)
                .file(value)
                .question(value)
                .next_action(value),
        )
        .unwrap()
        .to_string()
}

/// Checks what a snapshot written from `value` reads back as, section by section.
fn check_snapshot(snapshot: &Snapshot, id: &str, context: &str, value: &str) {
    assert_eq!(snapshot.session_id, id);
    assert_eq!(snapshot.status, "active");
    assert_eq!(snapshot.topic, "Topic");
    let expected_context = if norm(context).is_empty() || norm(context) == SUMMARY {
        SUMMARY.to_string()
    } else {
        format!("{SUMMARY}\n\n{}", norm(context))
    };
    assert_eq!(
        snapshot.current_context, expected_context,
        "context {context:?}"
    );
    let expected = item(value);
    for (name, list) in [
        ("decisions", &snapshot.decisions),
        ("open questions", &snapshot.open_questions),
        ("next actions", &snapshot.next_actions),
    ] {
        assert_eq!(
            items(list),
            std::slice::from_ref(&expected),
            "{name} of {value:?}"
        );
    }
    assert_eq!(
        items(&snapshot.files),
        std::slice::from_ref(&expected),
        "files of {value:?}"
    );
    assert!(snapshot.continues_from.is_empty(), "{value:?}");
    assert!(snapshot.superseded_resolved.is_empty(), "{value:?}");
    assert!(snapshot.other_sections.is_empty(), "{value:?}");
}

/// Writes `value` as context and as every list item kind, reads it back, then updates
/// the session again (context, a decision, a continuation, a marking) and reads again.
fn round_trip(value: &str) {
    let f = Fixture::new();
    let source = f.memory.register_session_start("src").unwrap();
    let id = register(&f, value, value);
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    check_snapshot(&snapshot, &id, value, value);

    let later = format!("later {value}");
    f.memory
        .update(
            &id,
            SessionUpdate::new()
                .context(later.clone())
                .decision(later.clone()),
        )
        .unwrap();
    let updated = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(
        updated.current_context,
        format!("{}\n\n{}", snapshot.current_context, norm(&later)),
        "{value:?}"
    );
    let headings: Vec<String> = memory_core::markdown::split_sections(&f.snapshot_text(&id))
        .into_iter()
        .map(|s| s.heading)
        .collect();
    assert_eq!(headings, TEMPLATE_HEADINGS, "{value:?}");
    f.memory.continue_from(&id, source.as_str()).unwrap();
    let (_, first) = item(value);
    if !first.trim().trim_matches('`').trim().is_empty() && item(value).0.is_none() {
        f.memory
            .update(&id, SessionUpdate::new().done(first.clone()))
            .unwrap();
        let marked = f.memory.snapshot(&id).unwrap().unwrap();
        assert_eq!(
            items(&marked.next_actions),
            [(Some(Mark::Done), first.clone())],
            "{value:?}"
        );
    }
    let after = f.memory.snapshot(&id).unwrap().unwrap();
    assert!(
        after
            .current_context
            .starts_with(&format!("{}\n\n", updated.current_context)),
        "{value:?}"
    );
    assert_eq!(
        items(&after.decisions),
        [item(value), item(&later)],
        "{value:?}"
    );
    assert_eq!(
        after.continues_from,
        std::slice::from_ref(&source),
        "{value:?}"
    );
    assert_eq!(after.files, snapshot.files);
    assert_eq!(after.open_questions, snapshot.open_questions);
    assert!(after.other_sections.is_empty(), "{value:?}");
    // The index still reads, and the row is the one written.
    assert_eq!(f.memory.session(&id).unwrap().summary, SUMMARY);
    assert_eq!(f.memory.sessions().unwrap().len(), 2);
}

#[test]
fn hostile_values_read_back_as_written_in_every_section() {
    for value in hostile() {
        round_trip(value);
    }
}

#[test]
fn a_context_with_a_fence_or_a_heading_does_not_change_other_sections() {
    for context in [
        "```\nunclosed",
        "## Continues From\n\n- 2026-01-01-0000-evil\n\n## Decisions\n\n- injected",
        "~~~\n## Next Actions\n~~~",
    ] {
        let f = Fixture::new();
        let id = register(&f, context, "real decision");
        let text = f.snapshot_text(&id);
        let headings: Vec<String> = memory_core::markdown::split_sections(&text)
            .into_iter()
            .map(|s| s.heading)
            .collect();
        assert_eq!(headings, TEMPLATE_HEADINGS, "{text}");
        let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
        check_snapshot(&snapshot, &id, context, "real decision");
        f.memory
            .update(
                &id,
                SessionUpdate::new()
                    .decision("second")
                    .done("real decision"),
            )
            .unwrap();
        let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
        assert_eq!(
            items(&snapshot.decisions),
            [
                (None, "real decision".to_string()),
                (None, "second".to_string())
            ]
        );
        assert_eq!(snapshot.next_actions[0].mark, Some(Mark::Done));
        assert!(snapshot.continues_from.is_empty());
    }
}

#[test]
fn a_decision_with_list_markers_or_blank_lines_stays_one_item() {
    let f = Fixture::new();
    let value = "use argon2\n- x\n\n* y\n\n1. z";
    let id = register(&f, "ctx", value);
    let text = f.snapshot_text(&id);
    assert!(
        text.contains("- use argon2\n  \\- x\n\n  \\* y\n\n  1\\. z\n"),
        "{text}"
    );
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(items(&snapshot.decisions), [(None, value.to_string())]);
}

#[test]
fn none_as_a_value_is_kept_and_obsidian_shows_it_as_none() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "None");
    let text = f.snapshot_text(&id);
    assert!(text.contains("## Decisions\n\n- &#78;one\n"), "{text}");
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(snapshot.decisions[0].text, "None");
}

#[test]
fn blank_lines_in_fenced_code_of_a_hand_written_item_survive_a_rewrite() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "first");
    let path = f.memory.session_path(&id).unwrap();
    let text = f.snapshot_text(&id).replace(
        "## Decisions\n\n- first\n",
        "## Decisions\n\n- first\n- with code:\n  ```\n  a\n\n\n  - b\n  ```\n- last\n",
    );
    std::fs::write(&path, &text).unwrap();
    let before = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(
        items(&before.decisions),
        [
            (None, "first".to_string()),
            (None, "with code:\n```\na\n\n\n- b\n```".to_string()),
            (None, "last".to_string()),
        ]
    );
    f.memory
        .update(&id, SessionUpdate::new().supersede("first").decision("new"))
        .unwrap();
    let after = f.snapshot_text(&id);
    assert!(
        after.contains("- with code:\n  ```\n  a\n\n\n  - b\n  ```\n- last\n- new\n"),
        "{after}"
    );
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(snapshot.decisions[1], before.decisions[1]);
    assert_eq!(snapshot.decisions.len(), 4);
}

#[test]
fn an_indented_paragraph_after_a_blank_line_belongs_to_its_item() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "first");
    let path = f.memory.session_path(&id).unwrap();
    let text = f.snapshot_text(&id).replace(
        "## Decisions\n\n- first\n",
        "## Decisions\n\n- first\n\n  more of first\n\nloose paragraph\n",
    );
    std::fs::write(&path, &text).unwrap();
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(
        items(&snapshot.decisions),
        [
            (None, "first\n\nmore of first".to_string()),
            (None, "loose paragraph".to_string())
        ]
    );
}

#[test]
fn files_dedupe_exact_paths_only() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "x");
    f.memory
        .update(
            &id,
            SessionUpdate::new()
                .file("src/Login.rs")
                .file("src/login.rs")
                .file("src/login .rs")
                .file("src/login  .rs")
                .file("`src/login.rs`")
                .file("src/login.rs"),
        )
        .unwrap();
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    let files: Vec<&str> = snapshot.files.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        files,
        [
            "x",
            "src/Login.rs",
            "src/login.rs",
            "src/login .rs",
            "src/login  .rs"
        ]
    );
    // Decisions still match ignoring case and spacing.
    f.memory
        .update(&id, SessionUpdate::new().decision("X"))
        .unwrap();
    assert_eq!(f.memory.snapshot(&id).unwrap().unwrap().decisions.len(), 1);
}

#[test]
fn a_new_summary_is_added_to_current_context() {
    let f = Fixture::new();
    let id = register(&f, "Worked on login.", "x");
    f.memory
        .update(&id, SessionUpdate::new().summary("Login fixed."))
        .unwrap();
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(
        snapshot.current_context,
        format!("{SUMMARY}\n\nWorked on login.\n\nLogin fixed.")
    );
    assert_eq!(f.memory.session(&id).unwrap().summary, "Login fixed.");
    // The same summary again adds nothing.
    f.memory
        .update(&id, SessionUpdate::new().summary("Login fixed."))
        .unwrap();
    assert_eq!(
        f.memory.snapshot(&id).unwrap().unwrap().current_context,
        snapshot.current_context
    );
    // A session without snapshot gets one starting from the new summary.
    let idle = f.memory.register_session_start("agent").unwrap();
    f.memory
        .update(
            idle.as_str(),
            SessionUpdate::new()
                .summary("Short.")
                .context("Long story."),
        )
        .unwrap();
    assert_eq!(
        f.memory
            .snapshot(idle.as_str())
            .unwrap()
            .unwrap()
            .current_context,
        "Short.\n\nLong story."
    );
}

#[test]
fn context_that_is_a_substring_of_old_context_is_still_added() {
    let f = Fixture::new();
    let id = register(&f, "The login bug is fixed in staging.", "x");
    for (context, expected_added) in [
        ("login bug", true),
        ("The login bug is fixed in staging.", false),
        ("  The login bug is fixed in staging.  ", false),
        ("fixed", true),
        ("login bug", false),
    ] {
        let before = f.memory.snapshot(&id).unwrap().unwrap().current_context;
        f.memory
            .update(&id, SessionUpdate::new().context(context))
            .unwrap();
        let after = f.memory.snapshot(&id).unwrap().unwrap().current_context;
        if expected_added {
            assert_eq!(
                after,
                format!("{before}\n\n{}", context.trim()),
                "{context:?}"
            );
        } else {
            assert_eq!(after, before, "{context:?}");
        }
    }
}

#[test]
fn crlf_snapshots_keep_crlf_and_read_values_back() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "x");
    let path = f.memory.session_path(&id).unwrap();
    let text = f.snapshot_text(&id).replace('\n', "\r\n");
    std::fs::write(&path, &text).unwrap();
    let value = "## heading\n\n- item\n```\ncode\n\n```";
    f.memory
        .update(&id, SessionUpdate::new().context(value).decision(value))
        .unwrap();
    let written = f.snapshot_text(&id);
    assert!(!written.replace("\r\n", "").contains('\n'), "{written:?}");
    let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(
        snapshot.current_context,
        format!("{SUMMARY}\n\nctx\n\n{value}")
    );
    assert_eq!(snapshot.decisions[1].text, value);
}

/// A line made of Markdown shapes and random text.
fn line() -> impl Strategy<Value = String> {
    let shape = prop::sample::select(vec![
        "## ",
        "# ",
        "### ",
        "- ",
        "* ",
        "+ ",
        "1. ",
        "9) ",
        "> ",
        "```",
        "~~~",
        "````",
        "\\",
        "---",
        "===",
        "|",
        "| a | b |",
        "|---|",
        "&#78;",
        "&amp;",
        "[done] ",
        " [done]",
        "[ ] ",
        "[x] ",
        "None",
        "n/a",
        "-",
        " ",
        "  ",
        "    ",
        "\t",
        "`",
        "[[",
        "]]",
        "<!--",
        "<",
        "%%",
        ":",
        "Continues From",
        "Decisions",
        "s-1",
    ]);
    let text = prop::collection::vec(
        any::<char>().prop_filter("no control characters", |c| !c.is_control()),
        0..6,
    )
    .prop_map(|c| c.into_iter().collect::<String>());
    prop::collection::vec(
        prop_oneof![3 => shape.prop_map(str::to_string), 1 => text],
        0..5,
    )
    .prop_map(|p| p.concat())
}

fn value() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 1..8).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_value_reads_back_as_written(value in value()) {
        prop_assume!(!item(&value).1.trim().is_empty());
        round_trip(&value);
    }

    #[test]
    fn mixed_values_in_one_snapshot_keep_their_sections(
        values in prop::collection::vec(value(), 1..4),
    ) {
        let f = Fixture::new();
        let id = register(&f, "start", "first");
        let mut decisions = vec![(None, "first".to_string())];
        let mut context = format!("{SUMMARY}\n\nstart");
        for v in &values {
            let (mark, text) = item(v);
            prop_assume!(!text.trim().is_empty() && !norm(v).is_empty());
            f.memory
                .update(&id, SessionUpdate::new().context(v.clone()).decision(format!("d {v}")))
                .unwrap();
            let present: Vec<String> = context.split("\n\n").map(str::to_string).collect();
            let new: Vec<String> = norm(v).split("\n\n").map(|p| p.trim().to_string()).collect();
            let _ = (mark, text);
            if !present.windows(new.len()).any(|w| w.iter().map(|s| s.trim()).eq(new.iter().map(String::as_str))) {
                context = format!("{context}\n\n{}", norm(v));
            }
            decisions.push(item(&format!("d {v}")));
        }
        let snapshot = f.memory.snapshot(&id).unwrap().unwrap();
        prop_assert_eq!(&snapshot.current_context, &context);
        let got = items(&snapshot.decisions);
        // Equal decisions (case and spacing aside) are merged.
        let mut expected: Vec<(Option<Mark>, String)> = Vec::new();
        let key = |t: &str| t.trim_matches('`').split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        for d in decisions {
            if !expected.iter().any(|(m, t)| m.is_none() && key(t) == key(&d.1)) {
                expected.push(d);
            }
        }
        prop_assert_eq!(got, expected);
        prop_assert!(snapshot.other_sections.is_empty());
        prop_assert!(snapshot.continues_from.is_empty());
        prop_assert_eq!(snapshot.next_actions.len(), 1);
    }
}

#[test]
fn names_of_every_script_with_combining_marks_are_accepted() {
    let f = Fixture::new();
    for agent in [
        "क्षत्रिय",
        "cafe\u{301}-agent",
        "ผู้ช่วย",
        "עוזר\u{5B4}",
        "文件助手",
        "agent_1.v2",
    ] {
        let id = f.memory.register_session_start(agent).unwrap();
        assert!(id.as_str().ends_with(agent), "{id}");
        assert_eq!(f.memory.session(id.as_str()).unwrap().agent_name, agent);
        let manual = f
            .memory
            .register_manual(ManualRegistration::new(agent, "T", "S.").decision("d"))
            .unwrap();
        assert!(f.memory.session_path(manual.as_str()).unwrap().exists());
        assert_eq!(
            f.memory
                .snapshot(manual.as_str())
                .unwrap()
                .unwrap()
                .agent_name,
            agent
        );
    }
    assert_eq!(f.memory.sessions().unwrap().len(), 12);
}

#[test]
fn a_trailing_dot_and_other_characters_are_refused() {
    let f = Fixture::new();
    let before = f.tree();
    for agent in [
        "agent.",
        "a..",
        ".a",
        "-a",
        "a b",
        "a/b",
        "a\\b",
        "a:b",
        "",
        "a\u{200B}",
    ] {
        let err = f.memory.register_session_start(agent).unwrap_err();
        assert_eq!(
            err.kind(),
            memory_core::ErrorKind::InvalidInput,
            "{agent:?}"
        );
        assert!(memory_core::SessionId::parse(agent).is_err(), "{agent:?}");
    }
    assert_eq!(f.tree(), before);
    let id = f.memory.register_session_start("a").unwrap();
    let err = f.memory.continue_from(id.as_str(), "source.").unwrap_err();
    assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput);
}

#[test]
fn blank_keywords_are_dropped_even_when_the_field_is_set_directly() {
    let f = Fixture::new();
    let mut registration = ManualRegistration::new("a", "T", "S.");
    registration.keywords = Some(vec!["x".into(), "".into(), " y ".into(), "  ".into()]);
    let id = f.memory.register_manual(registration).unwrap();
    assert_eq!(f.memory.session(id.as_str()).unwrap().keywords, ["x", "y"]);
    let mut update = SessionUpdate::new();
    update.keywords = Some(vec!["".into(), "z".into(), " ".into()]);
    f.memory.update(id.as_str(), update).unwrap();
    assert_eq!(f.memory.session(id.as_str()).unwrap().keywords, ["z"]);
    let update = SessionUpdate::new().keywords("p,q,".split(','));
    f.memory.update(id.as_str(), update).unwrap();
    assert_eq!(f.memory.session(id.as_str()).unwrap().keywords, ["p", "q"]);
}

#[test]
fn a_hand_written_item_opening_a_fence_on_its_line_keeps_it_when_marked() {
    let f = Fixture::new();
    let id = register(&f, "ctx", "first");
    let path = f.memory.session_path(&id).unwrap();
    let text = f.snapshot_text(&id).replace(
        "## Next Actions\n\n- first\n",
        "## Next Actions\n\n- ```sh\n  make\n\n  \\- literal\n  ```\n  \\- after\n- first\n",
    );
    std::fs::write(&path, &text).unwrap();
    let before = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(before.next_actions.len(), 2);
    // Inside the fence nothing is unescaped; after it, escapes are read.
    assert_eq!(
        before.next_actions[0].text,
        "```sh\nmake\n\n\\- literal\n```\n- after"
    );
    assert!(before.other_sections.is_empty());
    assert_eq!(before.continues_from, Vec::<memory_core::SessionId>::new());
    f.memory
        .update(&id, SessionUpdate::new().done("make"))
        .unwrap();
    let written = f.snapshot_text(&id);
    assert!(
        written
            .contains("- [done]\n  ```sh\n  make\n\n  \\- literal\n  ```\n  \\- after\n- first\n"),
        "{written}"
    );
    let after = f.memory.snapshot(&id).unwrap().unwrap();
    assert_eq!(after.next_actions[0].mark, Some(Mark::Done));
    assert_eq!(after.next_actions[0].text, before.next_actions[0].text);
    let headings: Vec<String> = memory_core::markdown::split_sections(&written)
        .into_iter()
        .map(|s| s.heading)
        .collect();
    assert_eq!(headings, TEMPLATE_HEADINGS);
}
