//! The seed's first anti-pattern, a "misc" topic, as one rule on real files: a topic file
//! name, an index line title or a hook made only of catch-all and filler words (digits
//! among them) is refused on write and reported by `check` as `misc_topic` at its index
//! line; one with a word that says what it holds is written and not reported.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};

mod structured_support;
use structured_support::tree;

fn memory(dir: &Path) -> StructuredMemory {
    structured_support::memory_at(dir, None)
}

/// `(kind, file, line)` of every violation `check` finds.
fn violations(m: &StructuredMemory) -> Vec<(String, String, usize)> {
    m.check()
        .unwrap()
        .into_iter()
        .map(|v| (v.kind.as_str().to_string(), v.file, v.line))
        .collect()
}

const CATCH_ALL_NAMES: &[&str] = &[
    "misc.md",
    "memory-misc.md",
    "memory-misc-2.md",
    "memory-misc2.md",
    "memory-miscellany.md",
    "memory-miscellaneous.md",
    "memory-uncategorized.md",
    "memory-uncategorised.md",
    "memory-unsorted.md",
    "memory-unfiled.md",
    "memory-leftovers.md",
    "Misc notes.md",
    "memory-other-things.md",
    "memory-general-notes-3.md",
    "random_stuff.md",
];

const GOOD_NAMES: &[&str] = &[
    "memory-general-ledger.md",
    "memory-other-teams.md",
    "memory-miscompile-bugs.md",
    "memory-unsorted-arrays.md",
    "USER-other.md",
    "notes.md",
    "memory-2.md",
];

const CATCH_ALL_WORDS: &[&str] = &[
    "Misc",
    "miscellaneous stuff",
    "other notes",
    "Uncategorized",
    "leftovers",
    "misc 2",
    "random bits and other stuff",
    "others' stuff",
    "stuff, things, etc.",
];

const GOOD_WORDS: &[&str] = &[
    "other teams' APIs",
    "General ledger",
    "misc build flags",
    "hosts, databases",
    "notes",
];

#[test]
fn catch_all_names_titles_and_hooks_are_refused_on_write_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.remember(Fact::new("memory-infra.md", "web1 runs nginx").hook("hosts"))
        .unwrap();
    let before = tree(dir.path());
    let mut cases: Vec<(String, Fact)> = Vec::new();
    for name in CATCH_ALL_NAMES {
        cases.push((
            format!("name {name}"),
            Fact::new(*name, "a fact").hook("build flags"),
        ));
    }
    for words in CATCH_ALL_WORDS {
        // A new index line.
        cases.push((
            format!("new title {words}"),
            Fact::new("memory-z.md", "a fact").title(*words).hook("z"),
        ));
        cases.push((
            format!("new hook {words}"),
            Fact::new("memory-z.md", "a fact").hook(*words),
        ));
        // A change to an existing one.
        cases.push((
            format!("changed title {words}"),
            Fact::new("memory-infra.md", "a fact").title(*words),
        ));
        cases.push((
            format!("changed hook {words}"),
            Fact::new("memory-infra.md", "a fact").hook(*words),
        ));
    }
    for (case, fact) in cases {
        let err = m.remember(fact).expect_err(&case);
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{case}: {err}");
        assert!(err.to_string().contains("catch-all"), "{case}: {err}");
        assert_eq!(tree(dir.path()), before, "{case} wrote something");
    }
    assert_eq!(
        violations(&m),
        Vec::<(String, String, usize)>::new(),
        "the refusals left the memory clean"
    );
}

#[test]
fn names_titles_and_hooks_with_a_real_word_are_written_and_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for (i, name) in GOOD_NAMES.iter().enumerate() {
        m.remember(Fact::new(*name, format!("fact {i}")).hook(format!("subject {i}")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for (i, words) in GOOD_WORDS.iter().enumerate() {
        let file = format!("memory-w{i}.md");
        m.remember(
            Fact::new(&file, "a fact")
                .title(*words)
                .hook(format!("{words} {i}")),
        )
        .unwrap_or_else(|e| panic!("{words}: {e}"));
        // And as a changed hook of an existing line.
        m.remember(Fact::new(&file, "another fact").hook(*words))
            .unwrap_or_else(|e| panic!("{words}: {e}"));
    }
    let found = violations(&m);
    assert!(
        found.iter().all(|(kind, _, _)| kind != "misc_topic"),
        "{found:#?}"
    );
}

#[test]
fn check_reports_a_catch_all_title_or_hook_at_its_index_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut index = String::from("# Memory\n\n");
    let mut expected = Vec::new();
    let mut n = 0;
    let mut line = |title: &str, hook: &str, index: &mut String| -> usize {
        n += 1;
        let file = format!("memory-t{n}.md");
        std::fs::write(d.join(&file), "- 2026-07-01: a fact\n").unwrap();
        index.push_str(&format!("- [{title}]({file}) — {hook}\n"));
        index.lines().count()
    };
    for words in CATCH_ALL_WORDS {
        expected.push(line(words, "deploy pipeline", &mut index));
        expected.push(line("Deploy", words, &mut index));
    }
    for words in GOOD_WORDS {
        line(words, &format!("{words} and deploys"), &mut index);
        line("Deploy", words, &mut index);
    }
    // The acceptance pass's line, and catch-all names.
    index.push_str("- [Misc](memory-x.md) — miscellaneous stuff\n");
    std::fs::write(d.join("memory-x.md"), "- 2026-07-01: a fact\n").unwrap();
    expected.push(index.lines().count());
    for name in CATCH_ALL_NAMES {
        // A name with a space is linked in angle brackets.
        index.push_str(&format!("- [Build](<{name}>) — build flags\n"));
        std::fs::write(d.join(name), "- 2026-07-01: a fact\n").unwrap();
        expected.push(index.lines().count());
    }
    std::fs::write(d.join("MEMORY.md"), &index).unwrap();
    let found: Vec<usize> = violations(&memory(d))
        .into_iter()
        .filter(|(kind, _, _)| kind == "misc_topic")
        .map(|(_, file, line)| {
            assert_eq!(file, "MEMORY.md");
            line
        })
        .collect();
    assert_eq!(found, expected);
}
