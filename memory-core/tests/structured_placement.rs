//! Where a new entry goes in a topic file with `##` sections: under the section the fact
//! names (a new `## section` at the end when the file has none of that title), or, naming
//! none, above the first section, so that no section claims it and a split by headings
//! leaves it where it is. Every byte of the file around it stays as it was.

use memory_core::ErrorKind;
use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory};
use proptest::prelude::*;

fn memory(dir: &std::path::Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn seed(dir: &std::path::Path, topic: &str) {
    std::fs::write(
        dir.join("MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts, databases\n",
    )
    .unwrap();
    std::fs::write(dir.join("memory-infra.md"), topic).unwrap();
}

fn infra(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.join("memory-infra.md")).unwrap()
}

const SECTIONED: &str = "# Infra\n\nWhat we run.\n\n## Hosts\n- 2026-06-01 [web]: web1 runs nginx\n\n## Databases\n\nPrimary first.\n\n## Empty\n";

#[test]
fn a_new_fact_naming_no_section_goes_above_the_first_one() {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path(), SECTIONED);
    let out = memory(dir.path())
        .remember(Fact::new("memory-infra.md", "backups run nightly"))
        .unwrap();
    assert_eq!(
        infra(dir.path()),
        "# Infra\n\nWhat we run.\n\n- 2026-07-10: backups run nightly\n\n## Hosts\n- 2026-06-01 [web]: web1 runs nginx\n\n## Databases\n\nPrimary first.\n\n## Empty\n"
    );
    assert_eq!(out.entry.line, 5);
    // The next one continues the list there.
    memory(dir.path())
        .remember(Fact::new("memory-infra.md", "restores are tested monthly"))
        .unwrap();
    assert!(infra(dir.path()).contains(
        "- 2026-07-10: backups run nightly\n- 2026-07-10: restores are tested monthly\n\n## Hosts"
    ));
}

#[test]
fn a_fact_naming_a_section_goes_under_it_matched_by_its_words() {
    for (section, expected) in [
        (
            "hosts",
            "## Hosts\n- 2026-06-01 [web]: web1 runs nginx\n- 2026-07-10: db2 is a replica\n\n## Databases",
        ),
        (
            "  DATABASES ",
            "## Databases\n\nPrimary first.\n\n- 2026-07-10: db2 is a replica\n\n## Empty",
        ),
        ("Empty", "## Empty\n\n- 2026-07-10: db2 is a replica\n"),
        (
            "Backups",
            "## Empty\n\n## Backups\n\n- 2026-07-10: db2 is a replica\n",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        seed(dir.path(), SECTIONED);
        memory(dir.path())
            .remember(Fact::new("memory-infra.md", "db2 is a replica").section(section))
            .unwrap();
        let text = infra(dir.path());
        assert!(text.contains(expected), "{section:?}: {text}");
    }
}

#[test]
fn a_replacing_fact_stays_where_the_old_one_was_unless_it_names_another_section() {
    let dir = tempfile::tempdir().unwrap();
    seed(dir.path(), SECTIONED);
    let m = memory(dir.path());
    m.remember(Fact::new("memory-infra.md", "web1 runs caddy").subject("web"))
        .unwrap();
    assert!(infra(dir.path()).contains("## Hosts\n- 2026-07-10 [web]: web1 runs caddy\n\n"));
    let out = m
        .remember(
            Fact::new("memory-infra.md", "web1 is retired")
                .subject("web")
                .section("Databases"),
        )
        .unwrap();
    assert_eq!(out.replaced.len(), 1);
    let text = infra(dir.path());
    assert!(text.contains("## Hosts\n\n## Databases"), "{text}");
    assert!(
        text.contains("Primary first.\n\n- 2026-07-10 [web]: web1 is retired\n"),
        "{text}"
    );
    assert_eq!(m.topic("memory-infra.md").unwrap().entries.len(), 1);
}

#[test]
fn a_new_topic_naming_a_section_starts_with_it() {
    let dir = tempfile::tempdir().unwrap();
    memory(dir.path())
        .remember(
            Fact::new("memory-infra.md", "web1 runs nginx")
                .hook("hosts")
                .section("Hosts"),
        )
        .unwrap();
    assert_eq!(
        infra(dir.path()),
        "# Infra\n\n## Hosts\n\n- 2026-07-10: web1 runs nginx\n"
    );
}

#[test]
fn a_crlf_file_with_frontmatter_gets_crlf_lines_in_the_right_place() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "---\r\nname: Infra\r\ndescription: hosts\r\n---\r\n## Hosts\r\n- 2026-06-01: web1\r\n";
    seed(dir.path(), text);
    memory(dir.path())
        .remember(Fact::new("memory-infra.md", "backups run nightly"))
        .unwrap();
    assert_eq!(
        infra(dir.path()),
        "---\r\nname: Infra\r\ndescription: hosts\r\n---\r\n- 2026-07-10: backups run nightly\r\n\r\n## Hosts\r\n- 2026-06-01: web1\r\n"
    );
}

#[test]
fn a_split_by_headings_leaves_a_fact_that_named_no_section_in_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    seed(
        dir.path(),
        "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n\n## Databases\n- 2026-06-02: db1 runs Postgres\n- 2026-06-03: db2 runs Redis\n",
    );
    let m = StructuredMemory::builder(dir.path())
        .budgets(Budgets::default().topic_lines(9))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let out = m
        .remember_with(
            Fact::new("memory-infra.md", "backups run nightly"),
            &DefaultCompactor,
        )
        .unwrap();
    assert_eq!(
        out.compaction.unwrap().created,
        ["memory-infra-databases.md"]
    );
    assert_eq!(out.file, "memory-infra.md");
    assert!(infra(dir.path()).contains("- 2026-07-10: backups run nightly"));
}

#[test]
fn a_bad_section_is_refused_with_nothing_written() {
    for section in [
        "",
        "  ",
        "## Hosts",
        "a\nb",
        "a\tb",
        "%% hidden %%",
        &"x".repeat(121),
    ] {
        let dir = tempfile::tempdir().unwrap();
        seed(dir.path(), SECTIONED);
        let err = memory(dir.path())
            .remember(Fact::new("memory-infra.md", "x").section(section))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{section:?}: {err}");
        assert!(err.to_string().contains("section"), "{err}");
        assert_eq!(infra(dir.path()), SECTIONED);
    }
}

/// A hand-kept topic file: a title, prose, entries, hand items and `##` sections in any
/// order, with or without blank lines between.
fn topic_file() -> impl Strategy<Value = String> {
    let block = prop_oneof![
        Just("# Infra".to_string()),
        Just("Some prose.".to_string()),
        Just("- a hand note".to_string()),
        (1u32..28).prop_map(|d| format!("- 2026-06-{d:02}: fact {d}")),
        prop::sample::select(vec!["Hosts", "Databases", "hosts", "Misc Notes"])
            .prop_map(|t| format!("## {t}")),
        Just("### Deep".to_string()),
    ];
    (
        prop::collection::vec((block, any::<bool>()), 0..9),
        any::<bool>(),
    )
        .prop_map(|(blocks, final_break)| {
            let mut out = String::new();
            for (b, blank) in blocks {
                out.push_str(&b);
                out.push('\n');
                if blank {
                    out.push('\n');
                }
            }
            if !final_break && out.ends_with('\n') {
                out.pop();
            }
            out
        })
}

/// Whether `old`'s lines appear in `new` in order.
fn is_subsequence(old: &str, new: &str) -> bool {
    let mut new_lines = new.lines();
    old.lines().all(|l| new_lines.any(|n| n == l))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn any_file_takes_the_fact_where_it_was_asked_and_keeps_every_line(
        text in topic_file(),
        section in prop::option::of(prop::sample::select(vec!["Hosts", "databases", "New one"])),
    ) {
        let dir = tempfile::tempdir().unwrap();
        seed(dir.path(), &text);
        let m = memory(dir.path());
        let Ok(before) = m.topic("memory-infra.md") else {
            return Ok(());
        };
        let mut fact = Fact::new("memory-infra.md", "placed fact").subject("placed");
        if let Some(s) = section {
            fact = fact.section(s);
        }
        let out = m.remember(fact).unwrap();
        let after = m.topic("memory-infra.md").unwrap();
        prop_assert_eq!(after.entries.len(), before.entries.len() + 1);
        for (old, new) in before.entries.iter().zip(after.entries.iter().filter(|e| e.text != "placed fact")) {
            prop_assert_eq!(&old.text, &new.text);
        }
        let new_text = infra(dir.path());
        prop_assert!(is_subsequence(&text, &new_text), "{:?} -> {:?}", text, new_text);
        // Under the section asked for, or above every `##` heading.
        let above: Vec<&str> = new_text[..new_text.find("- 2026-07-10 [placed]").unwrap()]
            .lines()
            .filter(|l| l.starts_with("## "))
            .collect();
        match section {
            Some(s) => prop_assert_eq!(
                above.last().map(|h| h[3..].to_lowercase()),
                Some(s.to_lowercase())
            ),
            None => prop_assert!(above.is_empty(), "{:?}", new_text),
        }
        prop_assert_eq!(out.entry.text.as_str(), "placed fact");
    }
}

#[test]
fn under_a_section_with_entries_and_prose_it_follows_the_last_entry_and_emphasis_is_no_part_of_the_title()
 {
    let dir = tempfile::tempdir().unwrap();
    let text = "## Alpha\n- 2026-06-01: a1\n\nAlpha prose.\n\n## **Bold** `code` section\n- 2026-06-02: b1\n";
    seed(dir.path(), text);
    let m = memory(dir.path());
    m.remember(Fact::new("memory-infra.md", "a2").section("alpha"))
        .unwrap();
    m.remember(Fact::new("memory-infra.md", "b2").section("bold code section"))
        .unwrap();
    assert_eq!(
        infra(dir.path()),
        "## Alpha\n- 2026-06-01: a1\n- 2026-07-10: a2\n\nAlpha prose.\n\n## **Bold** `code` section\n- 2026-06-02: b1\n- 2026-07-10: b2\n"
    );
}

#[test]
fn a_restored_entry_goes_where_a_fact_naming_no_section_goes() {
    let dir = tempfile::tempdir().unwrap();
    seed(
        dir.path(),
        "# Infra\n\n## Databases\n- 2026-06-01 [pg]: Postgres 15\n\n## Hosts\n- 2026-06-02: web1\n",
    );
    let m = memory(dir.path());
    let out = m
        .remember(Fact::new("memory-infra.md", "Postgres 16").subject("pg"))
        .unwrap();
    let id = out.archive_id.unwrap();
    m.restore(&id).unwrap();
    assert_eq!(
        infra(dir.path()),
        "# Infra\n\n- 2026-06-01 [pg]: Postgres 15\n\n## Databases\n- 2026-07-10 [pg]: Postgres 16\n\n## Hosts\n- 2026-06-02: web1\n"
    );
}
