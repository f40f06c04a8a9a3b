//! `check()` reports a topic file's heading of relative time (`## Last week`) as
//! `relative_date` at its line: the entries under it read as dated by it. A heading is
//! flagged exactly when a write would refuse its text as the `section` it names, and only
//! in the file's own text (not in a fence, a comment, the frontmatter or an entry).

use memory_core::structured_memory::{Fact, StructuredMemory};
use memory_core::{Error, ErrorKind};

fn write(dir: &std::path::Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

/// The `relative_date` violations of `topic` (linked as `memory-t.md`), as (line, message).
fn relative_dates(topic: &str) -> Vec<(usize, String)> {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "MEMORY.md", "- [T](memory-t.md) — topic\n");
    write(dir.path(), "memory-t.md", topic);
    StructuredMemory::open(dir.path())
        .unwrap()
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "relative_date")
        .map(|v| {
            assert_eq!(v.file, "memory-t.md");
            (v.line, v.message)
        })
        .collect()
}

#[test]
fn headings_of_relative_time_are_reported_at_their_line_in_every_shape() {
    let topic = "# Infra\n\n## Last week\n- 2026-07-01: moved the runners\n\n### Yesterday ###\n- 2026-07-02: db failover\n\n# This morning #\n\n## Recently — deploys\n- 2026-07-03: pipeline green\n\n ##   Tomorrow\n";
    let found = relative_dates(topic);
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [3, 6, 9, 11, 14], "{found:#?}");
    let (_, message) = &found[1];
    assert!(message.contains("\"Yesterday\""), "{message}");
    assert!(message.contains("\"yesterday\""), "{message}");
    assert!(message.contains("name the date"), "{message}");
    assert!(found[3].1.contains("\"recently\""), "{}", found[3].1);
}

#[test]
fn headings_in_fences_comments_frontmatter_or_entries_are_not_the_files_headings() {
    let topic = "---\nname: infra\ndescription: notes\n---\n# Infra\n\n```\n## Last week\n```\n<!--\n## Yesterday\n-->\n%%\n## Recently\n%%\n    ## This morning (indented code)\n####### Yesterday (seven hashes is text)\n#yesterday (a tag)\n\n## Databases\n- 2026-07-01: Postgres 16\n## `yesterday` flag of the CLI\n";
    assert_eq!(
        relative_dates(topic),
        [],
        "nothing of the file's own is relative"
    );
    // A heading indented under an entry is the entry's: the entry is reported, once.
    let under = "- 2026-07-01: moved the runners\n  ## Last week\n";
    let found = relative_dates(under);
    assert_eq!(
        found.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [1],
        "{found:#?}"
    );
}

#[test]
fn a_heading_is_flagged_exactly_when_a_write_refuses_it_as_a_section() {
    for title in [
        "Last week",
        "Yesterday",
        "This morning",
        "Recently",
        "Last Monday's outage",
        "Q3 (3 months ago)",
        "Databases",
        "Deploys 2026-07-01",
        "Weekly standup",
        "`today` flag",
        "Earliest window",
        "Soon",
        "This week",
        "Nowadays",
    ] {
        let flagged = !relative_dates(&format!("## {title}\n- 2026-07-01: a fact\n")).is_empty();
        let dir = tempfile::tempdir().unwrap();
        let memory = StructuredMemory::open(dir.path()).unwrap();
        let written = memory.remember(
            Fact::new("memory-t.md", "a fact")
                .hook("topic")
                .date("2026-07-01")
                .section(title),
        );
        let refused = match written {
            Ok(_) => false,
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::InvalidInput, "{title:?}: {e}");
                let invalid_section = matches!(
                    &e,
                    Error::InvalidInput {
                        what: "section",
                        ..
                    }
                );
                assert!(invalid_section, "{title:?}: {e}");
                true
            }
        };
        assert_eq!(
            flagged, refused,
            "{title:?}: check flags it {flagged}, a write refuses it {refused}"
        );
    }
    // Some of each, so that the loop compares both answers.
    assert!(!relative_dates("## Last week\n").is_empty());
    assert!(relative_dates("## Databases\n").is_empty());
}
