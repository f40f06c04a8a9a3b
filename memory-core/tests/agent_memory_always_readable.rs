//! Property: for random operation sequences with random, hostile values (Markdown
//! structure, table syntax, escapes, line breaks, markings, long runs, other scripts),
//! after every operation — successful or failed — every file of the root parses with the
//! normal reader, and a failed operation changed no byte.

mod support;

use std::path::Path;

use memory_core::markdown::find_table;
use memory_core::{ManualRegistration, OrganizeOptions, SessionUpdate};
use proptest::prelude::*;
use support::Fixture;

/// Fragments that carry Markdown or table structure, or that the readers treat specially.
const FRAGMENTS: &[&str] = &[
    "|",
    "\\|",
    "\\",
    "<br>",
    "<br/>",
    "\n",
    "\r\n",
    "\n\n",
    "```",
    "~~~",
    "```rust\n",
    "## Continues From",
    "## Metadata",
    "# Session: x",
    "| Field | Value |",
    "|---|---|",
    "| Session ID | Agent Name |",
    "- ",
    "* ",
    "+ ",
    "1. ",
    "> ",
    "> [!note]",
    "None",
    "-",
    "[done] ",
    "[superseded]",
    "[ ] ",
    "[x] ",
    "%%",
    "<!--",
    "-->",
    " ",
    "\t",
    "é",
    "e\u{301}",
    "क्षत्रिय",
    "未設定",
    "\u{200b}",
    ",",
    ", ",
    ":",
    "`",
    "**",
    "2026-05-25-1318-a",
];

fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(
            prop_oneof![
                3 => proptest::sample::select(FRAGMENTS).prop_map(str::to_string),
                1 => "[a-z ]{0,8}",
                1 => any::<char>().prop_map(|c| c.to_string()),
            ],
            0..8,
        )
        .prop_map(|parts| parts.concat()),
        1 => (1usize..5).prop_map(|k| "y".repeat(k * 20_000)),
        1 => "\\PC{0,30}",
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Start(String),
    Manual {
        agent: String,
        topic: String,
        summary: String,
        context: String,
        items: Vec<String>,
        keywords: Vec<String>,
        sources: Vec<usize>,
    },
    Update {
        pick: usize,
        topic: Option<String>,
        summary: Option<String>,
        context: Option<String>,
        items: Vec<String>,
        keywords: Option<Vec<String>>,
        mark: Option<String>,
    },
    Continue(usize, usize),
    Release(usize, usize),
    Organize(bool),
    Archive(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let items = || proptest::collection::vec(hostile(), 0..3);
    prop_oneof![
        1 => prop_oneof![Just("agent".to_string()), hostile()].prop_map(Op::Start),
        2 => (
            prop_oneof![3 => Just("agent".to_string()), 1 => hostile()],
            hostile(), hostile(), hostile(), items(), items(),
            proptest::collection::vec(any::<usize>(), 0..3),
        )
            .prop_map(|(agent, topic, summary, context, items, keywords, sources)| Op::Manual {
                agent, topic, summary, context, items, keywords, sources,
            }),
        4 => (
            any::<usize>(),
            proptest::option::of(hostile()), proptest::option::of(hostile()),
            proptest::option::of(hostile()), items(), proptest::option::of(items()),
            proptest::option::of(hostile()),
        )
            .prop_map(|(pick, topic, summary, context, items, keywords, mark)| Op::Update {
                pick, topic, summary, context, items, keywords, mark,
            }),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Continue(a, b)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Release(a, b)),
        1 => any::<bool>().prop_map(Op::Organize),
        1 => any::<usize>().prop_map(Op::Archive),
    ]
}

fn pick(fx: &Fixture, n: usize) -> String {
    let rows = fx.memory.sessions().expect("the index reads");
    if rows.is_empty() {
        return "2026-01-01-0000-none".to_string();
    }
    rows[n % rows.len()].session_id.to_string()
}

fn apply(fx: &Fixture, op: &Op) -> Result<(), memory_core::Error> {
    let m = &fx.memory;
    match op.clone() {
        Op::Start(agent) => m.register_session_start(&agent).map(drop),
        Op::Manual {
            agent,
            topic,
            summary,
            context,
            items,
            keywords,
            sources,
        } => {
            let mut reg = ManualRegistration::new(agent, topic, summary).context(context);
            for (i, item) in items.into_iter().enumerate() {
                reg = match i % 4 {
                    0 => reg.decision(item),
                    1 => reg.file(item),
                    2 => reg.question(item),
                    _ => reg.next_action(item),
                };
            }
            if !keywords.is_empty() {
                reg = reg.keywords(keywords);
            }
            for s in sources {
                reg = reg.continues_from(pick(fx, s));
            }
            m.register_manual(reg).map(drop)
        }
        Op::Update {
            pick: n,
            topic,
            summary,
            context,
            items,
            keywords,
            mark,
        } => {
            let mut update = SessionUpdate::new();
            update.topic = topic;
            update.summary = summary;
            update.context = context;
            update.keywords = keywords;
            for (i, item) in items.into_iter().enumerate() {
                update = match i % 4 {
                    0 => update.decision(item),
                    1 => update.file(item),
                    2 => update.question(item),
                    _ => update.next_action(item),
                };
            }
            if let Some(mark) = mark {
                update = update.done(mark);
            }
            m.update(&pick(fx, n), update).map(drop)
        }
        Op::Continue(a, b) => m.continue_from(&pick(fx, a), &pick(fx, b)).map(drop),
        Op::Release(a, b) => m.release(&pick(fx, a), &pick(fx, b)).map(drop),
        Op::Organize(dry_run) => m
            .organize(OrganizeOptions::default().dry_run(dry_run))
            .map(drop),
        Op::Archive(n) => m.archive(&pick(fx, n)).map(drop),
    }
}

/// Every file of the root reads with the reader the commands use.
fn assert_every_file_reads(fx: &Fixture, after: &str) {
    let rows = fx
        .memory
        .sessions()
        .unwrap_or_else(|e| panic!("after {after}: the index does not read: {e}"));
    for row in &rows {
        fx.memory
            .snapshot(row.session_id.as_str())
            .unwrap_or_else(|e| {
                panic!(
                    "after {after}: snapshot {} does not read: {e}",
                    row.session_id
                )
            });
    }
    let sessions = fx.root().join("sessions");
    for entry in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(id) = name.strip_suffix(".md") {
            fx.memory
                .snapshot(id)
                .unwrap_or_else(|e| panic!("after {after}: {name} does not read: {e}"));
        }
    }
    for entry in std::fs::read_dir(fx.root().join("archive"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let index = entry.path().join("index.md");
        assert_archive_index_reads(&index, after);
    }
    if let Err(e) = fx.memory.organize(OrganizeOptions::default().dry_run(true)) {
        // The seed's "stop and report" on an idle row with a snapshot is a typed answer,
        // not an unreadable file.
        assert_eq!(
            e.kind(),
            memory_core::ErrorKind::Conflict,
            "after {after}: organize: {e}"
        );
    }
}

fn assert_archive_index_reads(path: &Path, after: &str) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("after {after}: {} unreadable: {e}", path.display()));
    let table = find_table(&text, &["Field", "Value"])
        .unwrap_or_else(|e| panic!("after {after}: {}: {e:?}", path.display()))
        .unwrap_or_else(|| panic!("after {after}: {} has no metadata", path.display()));
    assert!(
        table.rows.len() >= 10,
        "after {after}: {} lost fields",
        path.display()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_file_reads_after_every_operation(ops in proptest::collection::vec(op(), 1..12)) {
        let fx = Fixture::new();
        for agent in ["agent", "other", "third"] {
            fx.memory.register_session_start(agent).expect("first rows");
        }
        for (i, op) in ops.iter().enumerate() {
            let before = fx.tree();
            let label = format!("op {i} {op:?}");
            let label: String = label.chars().take(400).collect();
            if apply(&fx, op).is_err() {
                prop_assert!(fx.tree() == before, "{}: a failed operation changed a file", label);
            }
            assert_every_file_reads(&fx, &label);
        }
    }
}
