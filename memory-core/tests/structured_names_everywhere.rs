//! One rule for a topic's name at every entry point (`remember`, `topic()`, `compact FILE`,
//! `compact` of every file, a compactor's route and merge targets, `restore`): exactly,
//! else the spelling the index links, else the one file on disk that differs only in case
//! or Unicode normalisation; a link whose file exists only in another spelling is refused
//! naming both; a Windows device name (`CON.md`, `nul.md`, `COM1.md`…) is never written.

mod structured_support;
use structured_support::tree;

use memory_core::ErrorKind;
use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, DefaultCompactor, Fact, MemoryIndex, StructuredMemory,
};
use std::fs;
use std::path::Path;

/// Routes every content line of the index to one file, and merges `from` into `into`.
struct Router {
    route_to: Option<&'static str>,
    merge: Option<(&'static str, &'static str)>,
}

impl Compactor for Router {
    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok(match self.route_to {
            Some(to) => (0..index.content.len())
                .map(|i| (i, to.to_string()))
                .collect(),
            None => Vec::new(),
        })
    }
    fn merge_topics(&self, _: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        Ok(self
            .merge
            .iter()
            .map(|(f, i)| (f.to_string(), i.to_string()))
            .collect())
    }
}

/// The spellings a caller may give for `memory-Café.md` (on disk as NFC `é`).
const SPELLINGS: [&str; 5] = [
    "memory-Café.md",
    "memory-café.md",
    "memory-CAFÉ.md",
    "memory-cafe\u{301}.md",
    "./memory-CAFE\u{301}.md",
];

fn setup(d: &Path, index_spelling: &str) {
    let entries: String = (1..=4)
        .map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n"))
        .collect();
    fs::write(d.join("memory-Café.md"), entries).unwrap();
    fs::write(
        d.join("MEMORY.md"),
        format!("- [Café]({index_spelling}) — databases\n"),
    )
    .unwrap();
}

#[test]
fn show_and_compact_of_one_file_take_every_spelling_a_write_takes() {
    for given in SPELLINGS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        setup(d, "memory-Café.md");
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(2))
            .open()
            .unwrap();
        let topic = m
            .topic(given)
            .unwrap_or_else(|e| panic!("topic({given:?}): {e}"));
        assert_eq!(topic.file, "memory-Café.md", "{given:?}");
        let report = m
            .compact(Some(given), &DefaultCompactor, false)
            .unwrap_or_else(|e| panic!("compact({given:?}): {e}"));
        assert_eq!(report.files[0].file, "memory-Café.md", "{given:?}");
        assert_eq!(report.files[0].after.lines, 1, "{given:?}");
        // The write goes into the same file, never a second spelling.
        m.remember(
            Fact::new(given, "Postgres 17")
                .subject("db")
                .date("2026-07-09"),
        )
        .unwrap();
        let names: Vec<String> = tree(d)
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.starts_with("memory-C") || n.starts_with("memory-c"))
            .collect();
        assert_eq!(names, ["memory-Café.md"], "{given:?}");
    }
}

#[test]
fn a_link_whose_file_exists_only_in_another_spelling_is_refused_alike_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d, "memory-CAFÉ.md");
    fs::write(
        d.join("MEMORY.md"),
        "- [Café](memory-CAFÉ.md) — databases\n- [User](USER.md) — role\nDeploy first.\n",
    )
    .unwrap();
    fs::write(d.join("USER.md"), "- 2026-07-01: terse\n").unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(2).index_lines(2))
        .open()
        .unwrap();
    let before = tree(d);
    let refusals = [
        m.topic("memory-CAFÉ.md").unwrap_err(),
        m.compact(Some("memory-CAFÉ.md"), &DefaultCompactor, false)
            .unwrap_err(),
        m.remember(Fact::new("memory-CAFÉ.md", "x").hook("h"))
            .unwrap_err(),
    ];
    for err in &refusals {
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(
            err.to_string()
                .contains("MEMORY.md links memory-CAFÉ.md but the file is memory-Café.md"),
            "{err}"
        );
    }
    for router in [
        Router {
            route_to: Some("memory-café.md"),
            merge: None,
        },
        Router {
            route_to: None,
            merge: Some(("USER.md", "memory-CAFÉ.md")),
        },
    ] {
        let err = m.compact(None, &router, false).unwrap_err();
        assert!(
            err.to_string().contains("but the file is memory-Café.md"),
            "not NotFound: {err}"
        );
    }
    // Compacting every file: the link is reported, not silently skipped.
    let report = m.compact(None, &DefaultCompactor, true).unwrap();
    assert_eq!(report.not_compacted.len(), 1, "{report:?}");
    assert_eq!(report.not_compacted[0].file, "memory-CAFÉ.md");
    assert_eq!(report.not_compacted[0].kind, ErrorKind::InvalidInput);
    assert_eq!(tree(d), before, "nothing written");
}

#[test]
fn a_compactor_routes_and_merges_into_a_topic_by_any_spelling_of_its_name() {
    for given in SPELLINGS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        setup(d, "memory-Café.md");
        let mut index = fs::read_to_string(d.join("MEMORY.md")).unwrap();
        index.push_str("- [Other](memory-other.md) — more databases\nDeploy first.\n");
        fs::write(d.join("MEMORY.md"), index).unwrap();
        fs::write(d.join("memory-other.md"), "- 2026-07-05: replica lag\n").unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .open()
            .unwrap();
        let router = Router {
            route_to: Some(given),
            merge: Some(("memory-other.md", given)),
        };
        m.compact(None, &router, false)
            .unwrap_or_else(|e| panic!("{given:?}: {e}"));
        let text = fs::read_to_string(d.join("memory-Café.md")).unwrap();
        assert!(
            text.contains("Deploy first.") && text.contains("replica lag"),
            "{given:?}: {text}"
        );
        assert!(!d.join("memory-other.md").exists());
    }
}

#[test]
fn windows_device_names_are_never_written_by_compaction_or_restore() {
    for name in ["CON.md", "nul.md", "COM1.md", "Aux.notes.md", "lpt9.md"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let entries: String = (1..=4)
            .map(|i| format!("## Part {i}\n- 2026-07-0{i} [s{i}]: fact {i}\n"))
            .collect();
        fs::write(d.join(name), &entries).unwrap();
        fs::write(d.join("memory-ok.md"), &entries).unwrap();
        fs::write(
            d.join("MEMORY.md"),
            format!("- [Dev]({name}) — dev\n- [Ok](memory-ok.md) — ok\nDeploy first.\n"),
        )
        .unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(3))
            .open()
            .unwrap();
        let err = m.compact(Some(name), &DefaultCompactor, false).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name}: {err}");
        assert!(err.to_string().contains("Windows device name"), "{err}");
        // Every file: the device name reported, the other compacted.
        let report = m.compact(None, &DefaultCompactor, false).unwrap();
        assert_eq!(report.not_compacted.len(), 1, "{name}: {report:?}");
        assert_eq!(report.not_compacted[0].file, name);
        assert!(report.files.iter().any(|f| f.file == "memory-ok.md"));
        assert_eq!(fs::read_to_string(d.join(name)).unwrap(), entries);
        // No split part made from it, none named like a device.
        for (file, _) in tree(d) {
            let stem = file.split('.').next().unwrap().to_ascii_uppercase();
            assert!(
                !["CON", "NUL", "COM1", "AUX", "LPT9"].contains(&stem.as_str()) || file == name,
                "{file}"
            );
        }
        // A compactor routing into it is refused; nothing written.
        let before = tree(d);
        let small = StructuredMemory::builder(d)
            .budgets(Budgets::default().index_lines(1))
            .open()
            .unwrap();
        let router = Router {
            route_to: Some(name),
            merge: None,
        };
        let err = small.compact(None, &router, false).unwrap_err();
        assert!(
            err.to_string().contains("Windows device name"),
            "{name}: {err}"
        );
        let router = Router {
            route_to: None,
            merge: Some(("memory-ok.md", name)),
        };
        let err = small.compact(None, &router, false).unwrap_err();
        assert!(
            err.to_string().contains("Windows device name"),
            "{name}: {err}"
        );
        assert_eq!(tree(d), before, "{name}: nothing written");
    }
}

#[test]
fn restore_never_recreates_a_device_name_from_a_hand_edited_archive() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("memory-archive.md"),
        "# Memory archive\n\n## c-20260710-001 · evict-dead · CON.md · 2026-07-10T09:00:00Z\n\n- 2026-06-01: a fact\n",
    )
    .unwrap();
    let m = StructuredMemory::open(d).unwrap();
    let before = tree(d);
    let err = m.restore("c-20260710-001").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(!d.join("CON.md").exists());
    assert_eq!(tree(d), before);
}
