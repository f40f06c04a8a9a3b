//! `memcore topics check` on a directory holding every anti-pattern the seed names: each
//! reported with its kind, file and line under `--json` and in the human listing, and the
//! exit code 4 — the fixture the Python and Node suites check too.

mod common;

use std::fs;

use common::{command, run};

#[test]
fn check_reports_every_kind_with_its_file_and_line_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory");
    fs::create_dir(&root).unwrap();
    let write = |name: &str, text: &str| fs::write(root.join(name), text).unwrap();
    write(
        "MEMORY.md",
        "# Memory\n\n- [Infra](memory-infra.md) — hosts, deploys\n- [Gone](memory-gone.md) — was here\n\
         - [Misc](memory-misc.md) — things\n- [Empty](memory-empty.md)\n- [Again](memory-infra.md) — twice\n\
         - [Out](../x.md) — outside\nDeploy runs before the bump.\n- [Big](memory-big.md) — many\n\
         - [Bad](memory-bad.md) — broken yaml\n- [Unclosed](memory-unclosed.md) — never closed\n\
         - [Big](memory-big2.md) — many\n- aside %% never closed\n",
    );
    write(
        "memory-infra.md",
        "# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-07-01 [db]: Postgres 16\n- a note without a date\n\
         - 2026-07-02: fixed the pipeline yesterday\n- 2026-07-03 [aws]: key AKIAZ7QX3RT5WVB2KMNP\n",
    );
    write("memory-misc.md", "- 2026-07-01: a thing\n");
    write("memory-empty.md", "- 2026-07-01: ok\n");
    write("memory-orphan.md", "- 2026-07-01: nobody links me\n");
    write(
        "memory-infra (1).md",
        "- 2026-07-01: a sync client's copy\n",
    );
    let big: String = (1..=12)
        .map(|d| format!("- 2026-07-{d:02}: fact {d}\n"))
        .collect();
    write("memory-big.md", &big);
    write("memory-big2.md", "- 2026-07-01: another big one\n");
    write(
        "memory-bad.md",
        "---\nname: [unclosed\n---\n- 2026-07-01: x\n",
    );
    write("memory-unclosed.md", "---\nname: x\n- 2026-07-01: y\n");
    fs::write(
        root.join("memory-archive.md"),
        b"# Memory archive\n\nnot \xff UTF-8\n",
    )
    .unwrap();
    // An Agent Memory tree beside it is no orphan.
    fs::create_dir(root.join("sessions")).unwrap();
    write("index.md", "# Agent Memory\n");
    write("sessions/2026-07-01-0900-a.md", "# session\n");

    let args = ["--root", "memory", "topics", "--topic-lines", "10", "check"];
    let json = run(command(dir.path()).arg("--json").args(args));
    assert_eq!(json.code, 4, "{json:?}");
    let value: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    let found: Vec<(String, String, u64)> = value["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert!(!v["message"].as_str().unwrap().is_empty(), "{v}");
            (
                v["kind"].as_str().unwrap().to_string(),
                v["file"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("dangling_index_line", "MEMORY.md", 4),
        ("secret", "memory-infra.md", 7),
        ("near_duplicate_topics", "MEMORY.md", 13),
        ("empty_hook", "MEMORY.md", 6),
        ("duplicate_index_line", "MEMORY.md", 7),
        ("unusable_link", "MEMORY.md", 8),
        ("content_in_index", "MEMORY.md", 9),
        ("contradicting_generations", "memory-infra.md", 3),
        ("undated_entry", "memory-infra.md", 5),
        ("relative_date", "memory-infra.md", 6),
        ("misc_topic", "MEMORY.md", 5),
        ("orphan_topic", "memory-orphan.md", 0),
        ("sync_conflict_copy", "memory-infra (1).md", 0),
        ("over_budget", "memory-big.md", 11),
        ("frontmatter_not_yaml", "memory-bad.md", 2),
        ("unreadable_topic", "memory-unclosed.md", 1),
        ("unreadable_archive", "memory-archive.md", 3),
        ("unclosed_comment", "MEMORY.md", 14),
    ];
    for (kind, file, line) in expected {
        assert!(
            found.contains(&(kind.to_string(), file.to_string(), line)),
            "{kind} {file}:{line} missing from {found:?}"
        );
    }
    // Nothing else: the Agent Memory files are not orphans.
    let orphans: Vec<&(String, String, u64)> = found
        .iter()
        .filter(|(k, _, _)| k == "orphan_topic")
        .collect();
    assert_eq!(orphans.len(), 1, "{orphans:?}");
    let kinds: std::collections::BTreeSet<&str> =
        found.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(kinds.len(), expected.len(), "{kinds:?}");

    let human = run(command(dir.path()).args(args));
    assert_eq!(human.code, 4, "{human:?}");
    for (kind, file, _) in expected {
        assert!(
            human
                .stdout
                .lines()
                .any(|l| l.contains(file) && l.contains(kind)),
            "{kind} {file} not listed:\n{}",
            human.stdout
        );
    }
    assert!(
        !human.stdout.contains("AKIAZ7QX3RT5WVB2KMNP"),
        "{}",
        human.stdout
    );
}
