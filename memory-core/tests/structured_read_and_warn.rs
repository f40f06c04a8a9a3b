//! What a caller gets back: a topic's JSON holds its whole text and its body (a Claude
//! Code topic file is prose, which no other key holds); every write says when
//! `MEMORY.md` is near or over its budget, whether or not it changed it; a `MEMORY.md`
//! holding only a byte-order mark gets its first line right after the mark.

use std::path::Path;

use memory_core::structured_memory::{Budgets, Fact, StructuredMemory};

fn memory(dir: &Path, budgets: Budgets) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .budgets(budgets)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

#[test]
fn a_prose_topic_s_json_holds_its_text_and_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\u{feff}---\r\nname: Feedback: testing\r\ndescription: real databases\r\ntype: feedback\r\n---\r\n\r\nIntegration tests must hit a real database, not mocks.\r\n**Why:** a mocked migration passed and prod broke\r\n";
    std::fs::write(dir.path().join("feedback_testing.md"), text).unwrap();
    let topic = memory(dir.path(), Budgets::default())
        .topic("feedback_testing.md")
        .unwrap();
    assert!(topic.entries.is_empty());
    let json = serde_json::to_value(&topic).unwrap();
    assert_eq!(json["text"], text, "the file as read, mark and CRLF kept");
    assert_eq!(
        json["body"],
        "\r\nIntegration tests must hit a real database, not mocks.\r\n**Why:** a mocked migration passed and prod broke\r\n"
    );
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "body",
            "budget",
            "byte_count",
            "entries",
            "file",
            "frontmatter_not_yaml",
            "line_count",
            "meta",
            "text",
            "undated"
        ]
    );
    // `text` and `body` come last, after the keys a caller reads first.
    let line = serde_json::to_string(&topic).unwrap();
    assert!(line.find("\"budget\"") < line.find("\"text\""), "{line}");
    assert!(line.find("\"text\"") < line.find("\"body\""), "{line}");
    // Without frontmatter the body is the text, without its byte-order mark.
    std::fs::write(
        dir.path().join("USER.md"),
        "\u{feff}Prefers terse answers.\n",
    )
    .unwrap();
    let user = memory(dir.path(), Budgets::default())
        .topic("USER.md")
        .unwrap();
    let json = serde_json::to_value(&user).unwrap();
    assert_eq!(json["text"], "\u{feff}Prefers terse answers.\n");
    assert_eq!(json["body"], "Prefers terse answers.\n");
}

#[test]
fn a_write_that_leaves_memory_md_as_it_is_still_warns_it_is_over_or_near_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let index: String = (1..=5)
        .map(|i| format!("- [T{i}](memory-t{i}.md) — hook {i}\n"))
        .collect();
    std::fs::write(dir.path().join("MEMORY.md"), &index).unwrap();
    std::fs::write(dir.path().join("memory-t1.md"), "# T1\n\n").unwrap();
    // Over: 5 of 4 lines. The write touches only memory-t1.md.
    let over = memory(dir.path(), Budgets::default().index_lines(4))
        .remember(Fact::new("memory-t1.md", "first fact").subject("a"))
        .unwrap();
    assert!(!over.linked);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
        index
    );
    assert!(
        over.warnings
            .contains(&"MEMORY.md is over its budget: 5 of 4 lines (1 over)".to_string()),
        "{:?}",
        over.warnings
    );
    assert_eq!(over.budgets.len(), 1, "budgets: the files written");
    // Near: 5 of 5 lines.
    let near = memory(dir.path(), Budgets::default().index_lines(5))
        .remember(Fact::new("memory-t1.md", "second fact").subject("b"))
        .unwrap();
    assert_eq!(near.warnings.len(), 1, "{:?}", near.warnings);
    assert!(
        near.warnings[0].starts_with("MEMORY.md is near its budget"),
        "{:?}",
        near.warnings
    );
    // Within: nothing said.
    let within = memory(dir.path(), Budgets::default())
        .remember(Fact::new("memory-t1.md", "third fact").subject("c"))
        .unwrap();
    assert!(within.warnings.is_empty(), "{:?}", within.warnings);
}

#[test]
fn a_write_that_changes_memory_md_warns_of_it_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("MEMORY.md"),
        "- [T1](memory-t1.md) — hook 1\n- [T2](memory-t2.md) — hook 2\n",
    )
    .unwrap();
    let out = memory(dir.path(), Budgets::default().index_lines(3))
        .remember(Fact::new("memory-t3.md", "a fact").hook("hook 3"))
        .unwrap();
    assert!(out.linked);
    let about_index: Vec<&String> = out
        .warnings
        .iter()
        .filter(|w| w.starts_with("MEMORY.md"))
        .collect();
    assert_eq!(about_index.len(), 1, "{:?}", out.warnings);
}

#[test]
fn the_first_line_of_a_memory_md_holding_only_a_byte_order_mark_follows_the_mark() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("MEMORY.md"), "\u{feff}").unwrap();
    memory(dir.path(), Budgets::default())
        .remember(Fact::new("memory-a.md", "a fact").title("A").hook("hook a"))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
        "\u{feff}- [A](memory-a.md) — hook a\n"
    );
    let index = memory(dir.path(), Budgets::default()).index().unwrap();
    assert_eq!(index.lines[0].line, 1);
}
