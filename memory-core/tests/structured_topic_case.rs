//! Topic names that differ only in case are one file on macOS and Windows: a write never
//! creates the second spelling (it writes into the existing file, or is refused when the
//! name is ambiguous), and `check` links a file only by its exact name, or but for case
//! when no file has the line's exact name.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".memcore.lock")
        .collect();
    out.sort();
    out
}

fn kinds(m: &StructuredMemory) -> Vec<(String, String)> {
    m.check()
        .unwrap()
        .into_iter()
        .map(|v| (v.kind.as_str().to_string(), v.file))
        .collect()
}

#[test]
fn a_new_topic_named_like_an_unlinked_file_but_for_case_is_written_into_it() {
    for (existing, given) in [
        ("memory-Infra.md", "memory-infra.md"),
        ("MEMORY-INFRA.md", "memory-infra.md"),
        ("memory-infra.md", "Memory-Infra.md"),
        ("Memory-Infra.MD", "memory-infra.md"),
        ("memory-Über.md", "memory-über.md"),
    ] {
        for hand in [
            "- 2026-07-01: web1 runs nginx\n",
            "\u{feff}# Infra\r\n\r\n- 2026-07-01: web1 runs nginx\r\n",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            std::fs::write(d.join("MEMORY.md"), "- [User](USER.md) — role\n").unwrap();
            std::fs::write(d.join("USER.md"), "- 2026-07-01: terse\n").unwrap();
            std::fs::write(d.join(existing), hand).unwrap();
            let m = memory(d);
            assert_eq!(
                kinds(&m),
                [("orphan_topic".to_string(), existing.to_string())]
            );
            let out = m
                .remember(Fact::new(given, "db1 runs Postgres").hook("hosts"))
                .unwrap();
            assert_eq!(out.file, existing, "{given}");
            assert!(out.linked && !out.created_topic);
            assert_eq!(names(d), {
                let mut v = vec![
                    "MEMORY.md".to_string(),
                    "USER.md".to_string(),
                    existing.to_string(),
                ];
                v.sort();
                v
            });
            let topic = m.topic(existing).unwrap();
            assert_eq!(topic.entries.len(), 2);
            assert!(
                std::fs::read_to_string(d.join(existing))
                    .unwrap()
                    .starts_with(hand)
            );
            assert_eq!(m.index().unwrap().lines[1].file, existing);
            assert_eq!(kinds(&m), []);
            // The next write under either spelling goes to the same file.
            m.remember(Fact::new(given, "db2 runs Redis")).unwrap();
            assert_eq!(m.topic(existing).unwrap().entries.len(), 3);
            assert_eq!(names(d).len(), 3);
        }
    }
}

#[test]
fn topics_under_a_folder_match_but_for_case_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("topics")).unwrap();
    std::fs::write(d.join("topics/Infra.md"), "- 2026-07-01: a\n").unwrap();
    let out = memory(d)
        .remember(Fact::new("topics/infra.md", "b").hook("hosts"))
        .unwrap();
    assert_eq!(out.file, "topics/Infra.md");
    assert!(
        !d.join("topics")
            .read_dir()
            .unwrap()
            .any(|e| e.unwrap().file_name() == "infra.md")
    );
}

#[test]
fn an_exact_name_wins_over_a_case_variant() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("memory-Infra.md"), "- 2026-07-01: a\n").unwrap();
    std::fs::write(d.join("memory-infra.md"), "- 2026-07-01: b\n").unwrap();
    let out = memory(d)
        .remember(Fact::new("memory-infra.md", "c").hook("hosts"))
        .unwrap();
    assert_eq!(out.file, "memory-infra.md");
    assert_eq!(
        std::fs::read_to_string(d.join("memory-Infra.md")).unwrap(),
        "- 2026-07-01: a\n"
    );
    // The index links memory-infra.md exactly: memory-Infra.md is still an orphan.
    assert_eq!(
        kinds(&memory(d)),
        [("orphan_topic".to_string(), "memory-Infra.md".to_string())]
    );
}

#[test]
fn an_ambiguous_name_is_refused_naming_every_match() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("memory-Infra.md"), "- 2026-07-01: a\n").unwrap();
    std::fs::write(d.join("memory-INFRA.md"), "- 2026-07-01: b\n").unwrap();
    let before = names(d);
    let err = memory(d)
        .remember(Fact::new("memory-infra.md", "c").hook("hosts"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let shown = err.to_string();
    assert!(
        shown.contains("memory-INFRA.md") && shown.contains("memory-Infra.md"),
        "{shown}"
    );
    assert_eq!(names(d), before, "nothing written");
}

#[test]
fn a_link_whose_file_exists_only_in_another_case_is_refused_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let index = "- [Infra](memory-infra.md) — hosts\n";
    std::fs::write(d.join("MEMORY.md"), index).unwrap();
    std::fs::write(d.join("memory-Infra.md"), "- 2026-07-01: a\n").unwrap();
    let m = memory(d);
    let err = m.remember(Fact::new("memory-infra.md", "b")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let shown = err.to_string();
    assert!(
        shown.contains("memory-Infra.md") && shown.contains("links memory-infra.md"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(d.join("MEMORY.md")).unwrap(), index);
    assert_eq!(names(d), ["MEMORY.md", "memory-Infra.md"]);
    // check: the line is dangling here (the disk is case-sensitive) and says why; the file
    // is linked but for case (no file has the line's exact name), so it is no orphan.
    let found = m.check().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind.as_str(), "dangling_index_line");
    assert!(
        found[0].message.contains("memory-Infra.md does"),
        "{}",
        found[0].message
    );
}

#[test]
fn check_links_a_file_by_its_exact_name_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts\n- [Notes](NOTES.md) — notes\n",
    )
    .unwrap();
    for f in [
        "memory-infra.md",
        "memory-Infra.md",
        "MEMORY-INFRA.md",
        "notes.md",
    ] {
        std::fs::write(d.join(f), "- 2026-07-01: a\n").unwrap();
    }
    let found: Vec<(String, String)> = kinds(&memory(d));
    assert_eq!(
        found,
        [
            ("dangling_index_line".to_string(), "MEMORY.md".to_string()),
            ("orphan_topic".to_string(), "MEMORY-INFRA.md".to_string()),
            ("orphan_topic".to_string(), "memory-Infra.md".to_string()),
        ]
    );
}
