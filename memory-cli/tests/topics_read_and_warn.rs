//! `memcore --json topics show` gives a prose topic file's text and body (a Claude Code
//! topic file has no dated entries); `topics remember` warns on stderr that `MEMORY.md`
//! is over its budget even when the write leaves it as it is.

mod common;

use std::path::Path;

use common::{command, run};

fn topics(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--root", "memory"];
    all.extend_from_slice(args);
    run(command(dir).args(&all))
}

#[test]
fn show_json_gives_a_prose_topic_s_text_and_body() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("memory")).unwrap();
    let text = "---\nname: Feedback: testing\ndescription: real databases\ntype: feedback\n---\n\nIntegration tests must hit a real database, not mocks.\n";
    std::fs::write(dir.path().join("memory/feedback_testing.md"), text).unwrap();
    let value = topics(
        dir.path(),
        &["--json", "topics", "show", "feedback_testing.md"],
    )
    .json();
    assert_eq!(value["entries"], serde_json::json!([]));
    assert_eq!(value["text"], text, "{value}");
    assert_eq!(
        value["body"], "\nIntegration tests must hit a real database, not mocks.\n",
        "{value}"
    );
    // The human form prints the file as it is.
    let human = topics(dir.path(), &["topics", "show", "feedback_testing.md"]).ok();
    assert_eq!(human, text);
}

#[test]
fn remember_warns_of_an_index_over_its_budget_that_it_did_not_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    std::fs::create_dir_all(&root).unwrap();
    let index =
        "- [A](memory-a.md) — hook a\n- [B](memory-b.md) — hook b\n- [C](memory-c.md) — hook c\n";
    std::fs::write(root.join("MEMORY.md"), index).unwrap();
    std::fs::write(root.join("memory-a.md"), "# A\n").unwrap();
    for json in [false, true] {
        let mut args = Vec::new();
        if json {
            args.push("--json");
        }
        let subject = if json { "two" } else { "one" };
        args.extend([
            "topics",
            "--index-lines",
            "2",
            "remember",
            "--topic",
            "memory-a.md",
            "--text",
            "a fact",
            "--subject",
            subject,
        ]);
        let out = topics(dir.path(), &args);
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(
            out.stderr, "warning: MEMORY.md is over its budget: 3 of 2 lines (1 over)\n",
            "{out:?}"
        );
        if json {
            let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(
                value["warnings"],
                serde_json::json!(["MEMORY.md is over its budget: 3 of 2 lines (1 over)"])
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        index
    );
}
