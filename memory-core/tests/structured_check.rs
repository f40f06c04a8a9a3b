//! `check()` finds every anti-pattern of the seed, with file and line, in a directory as
//! people and Claude Code leave it — and nothing in one that follows the rules, including
//! one shared with an Agent Memory tree.

use memory_core::structured_memory::{Budgets, StructuredMemory, ViolationKind};

fn write(dir: &std::path::Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

#[test]
fn every_anti_pattern_is_found_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "MEMORY.md",
        "# Memory\n\n- [Infra](memory-infra.md) — hosts, deploys\n- [Gone](memory-gone.md) — was here\n- [Misc](memory-misc.md) — things\n- [Empty](memory-empty.md)\n- [Again](memory-infra.md) — twice\n- [Out](../x.md) — outside\nDeploy runs before the bump.\n",
    );
    write(
        d,
        "memory-infra.md",
        "# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-07-01 [db]: Postgres 16\n- a note without a date\n- 2026-07-02: fixed the pipeline yesterday\n",
    );
    write(d, "memory-misc.md", "- 2026-07-01: a thing\n");
    write(d, "memory-empty.md", "- 2026-07-01: ok\n");
    write(d, "memory-orphan.md", "- 2026-07-01: nobody links me\n");
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    let got: Vec<(&str, &str, usize)> = found
        .iter()
        .map(|v| (v.kind.as_str(), v.file.as_str(), v.line))
        .collect();
    let expected = [
        ("dangling_index_line", "MEMORY.md", 4),
        ("empty_hook", "MEMORY.md", 6),
        ("duplicate_index_line", "MEMORY.md", 7),
        ("unusable_link", "MEMORY.md", 8),
        ("content_in_index", "MEMORY.md", 9),
        ("contradicting_generations", "memory-infra.md", 3),
        ("contradicting_generations", "memory-infra.md", 4),
        ("undated_entry", "memory-infra.md", 5),
        ("relative_date", "memory-infra.md", 6),
        ("misc_topic", "MEMORY.md", 5),
        ("orphan_topic", "memory-orphan.md", 0),
    ];
    for e in expected {
        assert!(got.contains(&e), "{e:?} missing from {got:#?}");
    }
    assert_eq!(got.len(), expected.len(), "{got:#?}");
    assert!(found.iter().all(|v| !v.message.is_empty()));
}

#[test]
fn budgets_are_checked_against_the_configured_limits() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "MEMORY.md", "- [T](memory-t.md) — topic\n");
    let entries: String = (1..=12)
        .map(|i| format!("- 2026-07-{i:02}: fact {i}\n"))
        .collect();
    write(d, "memory-t.md", &entries);
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(10))
        .open()
        .unwrap();
    let found = m.check().unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].kind, ViolationKind::OverBudget);
    assert_eq!((found[0].file.as_str(), found[0].line), ("memory-t.md", 11));
    assert!(
        found[0].message.contains("12 of 10 lines"),
        "{}",
        found[0].message
    );
    assert!(
        StructuredMemory::open(d)
            .unwrap()
            .check()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_tidy_directory_shared_with_agent_memory_has_no_violation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "MEMORY.md",
        "<!-- index -->\n# Memory\n\n- [User](USER.md) — role, preferences\n",
    );
    write(
        d,
        "USER.md",
        "---\nname: User\ndescription: role\ntype: user\n---\n\n- 2026-07-01: prefers terse answers\n",
    );
    write(d, "memory-archive.md", "# Memory archive\n");
    write(
        d,
        "index.md",
        "# Memory Index\n\n| Session ID | Agent Name |\n|---|---|\n",
    );
    std::fs::create_dir_all(d.join("sessions")).unwrap();
    write(&d.join("sessions"), "2026-07-01-0900-a.md", "# Session\n");
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    assert!(found.is_empty(), "{found:#?}");
    // A dead writer's temp file is no orphan topic: it is reported as what it is.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    write(d, &format!(".MEMORY.md.tmp-{pid}-0"), "partial");
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    let kinds: Vec<&str> = found.iter().map(|v| v.kind.as_str()).collect();
    assert_eq!(kinds, ["leftover_temp_file"], "{found:#?}");
}

#[test]
fn an_unreadable_topic_is_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "MEMORY.md",
        "- [Bad](memory-bad.md) — never closed
",
    );
    // An opening `---` never closed: reading on would take the entries for YAML.
    write(d, "memory-bad.md", "---\nname: Bad\n- 2026-07-01: x\n");
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].kind, ViolationKind::UnreadableTopic);
    assert_eq!(found[0].line, 1);
}

#[test]
fn frontmatter_that_is_not_yaml_is_reported_at_the_line_yaml_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "MEMORY.md",
        "- [Bad](memory-bad.md) — not yaml\n- [Twice](memory-twice.md) — a key twice\n",
    );
    write(
        d,
        "memory-bad.md",
        "---\ntype: feedback\nname: [unclosed\n---\n- 2026-07-01: x\n",
    );
    write(
        d,
        "memory-twice.md",
        "---\nname: A\ntype: project\nname: B\n---\n- 2026-07-01: y\n",
    );
    let found = StructuredMemory::open(d).unwrap().check().unwrap();
    let got: Vec<(&str, &str, usize)> = found
        .iter()
        .map(|v| (v.kind.as_str(), v.file.as_str(), v.line))
        .collect();
    assert_eq!(
        got,
        [
            ("frontmatter_not_yaml", "memory-bad.md", 3),
            ("frontmatter_not_yaml", "memory-twice.md", 4),
        ]
    );
    assert!(
        found[0].message.contains("line by line"),
        "{}",
        found[0].message
    );
}
