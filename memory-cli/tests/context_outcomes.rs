//! The `--json` outcomes of the verbs that write an entry, snapshotted (times redacted):
//! `write` gives `{entry, namespace_entries, over_threshold, body}`; `supersede` and
//! `promote --to` give `{new, old, namespace_entries, over_threshold, body}` — the new
//! entry, the old one, and the same three write fields; `promote` (in place) and
//! `update` give the entry alone, as `get` does. Every entry has the same keys in the
//! same order.

mod common;

use std::path::Path;

use common::{command, run};

/// The raw JSON line with every UTC time replaced by `[time]`.
fn redacted(line: &str) -> String {
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    time.replace_all(line.trim_end(), "[time]").into_owned()
}

fn memcore(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["--root", ".", "--json", "context"];
    all.extend_from_slice(args);
    let out = run(command(dir).args(&all)).ok();
    assert_eq!(out.lines().count(), 1, "{out}");
    redacted(&out)
}

/// The keys of an entry object, in the order they are printed.
const ENTRY_KEYS: [&str; 10] = [
    "entity_name",
    "namespace",
    "category",
    "status",
    "tags",
    "summary",
    "created_at",
    "updated_at",
    "supersedes",
    "file",
];

/// Whether `keys` occur in `json` in this order (each found after the one before).
fn in_order(json: &str, keys: &[&str]) -> bool {
    let mut from = 0;
    keys.iter()
        .all(|key| match json[from..].find(&format!("\"{key}\":")) {
            Some(at) => {
                from += at + 1;
                true
            }
            None => false,
        })
}

#[test]
fn write_supersede_and_promote_outcomes_have_one_shape() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = memcore(
        d,
        &[
            "write",
            "--namespace",
            "project.app",
            "--category",
            "decision",
            "--tags",
            "auth,security",
            "--status",
            "experimental",
            "--body",
            "Auth uses cookies. They expire. They are signed. They are HttpOnly.",
        ],
    );
    insta::assert_snapshot!("write_outcome", write);
    let supersede = memcore(
        d,
        &[
            "supersede",
            "project.app.decision.001",
            "--namespace",
            "project.app",
            "--category",
            "decision",
            "--tags",
            "auth,jwt",
            "--status",
            "experimental",
            "--body",
            "Auth uses JWT.",
        ],
    );
    insta::assert_snapshot!("supersede_outcome", supersede);
    let promote = memcore(d, &["promote", "project.app.decision.002"]);
    insta::assert_snapshot!("promote_outcome", promote);
    let promote_to = memcore(
        d,
        &["promote", "project.app.decision.002", "--to", "org.global"],
    );
    insta::assert_snapshot!("promote_to_outcome", promote_to);

    // One shape: the three write fields wherever a new entry is written, in write's
    // order; every entry object with the same keys in the same order.
    let tail = ["namespace_entries", "over_threshold", "body"];
    assert!(
        in_order(&write, &[&["entry"][..], &tail].concat()),
        "{write}"
    );
    for both in [&supersede, &promote_to] {
        assert!(
            in_order(both, &[&["new", "old"][..], &tail].concat()),
            "{both}"
        );
        for part in ["\"new\":", "\"old\":"] {
            let from = both.find(part).unwrap();
            assert!(in_order(&both[from..], &ENTRY_KEYS), "{part}: {both}");
        }
    }
    assert!(in_order(&promote, &ENTRY_KEYS), "{promote}");
    let w: serde_json::Value = serde_json::from_str(&write).unwrap();
    let s: serde_json::Value = serde_json::from_str(&supersede).unwrap();
    let mut write_keys: Vec<&String> = w["entry"].as_object().unwrap().keys().collect();
    let mut new_keys: Vec<&String> = s["new"].as_object().unwrap().keys().collect();
    write_keys.sort();
    new_keys.sort();
    assert_eq!(write_keys, new_keys, "the written entry has write's keys");
    assert_eq!(
        w["body"].as_object().unwrap().keys().collect::<Vec<_>>(),
        s["body"].as_object().unwrap().keys().collect::<Vec<_>>()
    );
    assert_eq!(w["body"]["flags"].as_array().unwrap().len(), 1, "{write}");
}

/// A supersession that takes a namespace past the split threshold says so, as a write
/// does (human and `--json`).
#[test]
fn a_supersession_past_the_threshold_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 1..=50 {
        memcore(
            d,
            &[
                "write",
                "--namespace",
                "org.global",
                "--category",
                "todo",
                "--tags",
                "ops,pager",
                "--force-new",
                "--body",
                &format!("Task number {i} of the rota."),
            ],
        );
    }
    let args = [
        "supersede",
        "org.global.todo.001",
        "--namespace",
        "org.global",
        "--category",
        "todo",
        "--tags",
        "ops,pager",
        "--body",
        "The first task, redone.",
    ];
    let mut json_args = vec!["--root", ".", "--json", "context"];
    json_args.extend_from_slice(&args);
    let out: serde_json::Value =
        serde_json::from_str(&run(command(d).args(&json_args)).ok()).unwrap();
    assert_eq!(out["namespace_entries"], 51);
    assert_eq!(out["over_threshold"], true);
    let args2 = [
        "supersede",
        "org.global.todo.002",
        "--namespace",
        "org.global",
        "--category",
        "todo",
        "--tags",
        "ops,pager",
        "--body",
        "The second task, redone.",
    ];
    let mut human = vec!["--root", ".", "context"];
    human.extend_from_slice(&args2);
    let text = run(command(d).args(&human)).ok();
    assert!(
        text.contains("org.global has 52 entries, over the 50 the seed allows: split it by domain"),
        "{text}"
    );
}
