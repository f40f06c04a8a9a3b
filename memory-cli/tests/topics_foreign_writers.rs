//! A real second process that does not take memory-core's lock keeps saving a topic file
//! while real `memcore topics remember` processes write to it at the same time, in both
//! ways programs save: to a temp file renamed over it (no line it wrote may be lost),
//! and in place, truncating then writing (no memcore commit may be built from the
//! moment the file was empty or half written: the title and every original entry
//! survive). Every memcore run either succeeds or is refused with exit code 4
//! (`ChangedMeanwhile`, nothing written); none fails otherwise.

mod common;

use std::path::Path;
use std::process::{Child, Stdio};

use common::command;
use common::foreign::ForeignWriter;

const ORIGINAL: usize = 120;

fn seed(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    let mut topic = String::from("# E\n\n");
    for i in 0..ORIGINAL {
        topic.push_str(&format!("- 2026-01-01 [e{i}]: entry {i}\n"));
    }
    std::fs::write(root.join("memory-e.md"), topic).unwrap();
    std::fs::write(
        root.join("MEMORY.md"),
        "- [E](memory-e.md) — everything e\n",
    )
    .unwrap();
}

fn remember(root: &Path, subject: &str, text: &str) -> Child {
    command(root)
        .args(["topics", "--root"])
        .arg(root)
        .args([
            "remember",
            "--topic",
            "memory-e.md",
            "--topic-lines",
            "100000",
        ])
        .args(["--subject", subject, "--text", text, "--date", "2026-01-04"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_against_a_writer(in_place: bool) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let root = work.join("memory");
    seed(&root);
    // The other program: adds a numbered line to the topic every 10 ms.
    let writer = ForeignWriter::start(
        &root.join("memory-e.md"),
        work,
        "- 2026-01-03 [f$i]: foreign $i",
        in_place,
    );
    // Three rounds of concurrent runs; the second and third replace the first's
    // subjects (a topic write and an archive append in one step).
    for round in 0..3 {
        let runs: Vec<Child> = (0..6)
            .map(|i| remember(&root, &format!("m{i}"), &format!("fact {i} round {round}")))
            .collect();
        for run in runs {
            let out = run.wait_with_output().unwrap();
            let code = out.status.code().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(code == 0 || code == 4, "exit {code}: {stderr}");
            if code == 4 {
                assert!(stderr.contains("changed on disk"), "{stderr}");
            }
        }
    }
    let written = writer.stop();
    let topic = std::fs::read_to_string(root.join("memory-e.md")).unwrap();
    let label = if in_place { "in place" } else { "rename" };
    assert!(written.len() > 5, "{label}: the writer barely ran");
    // Never built from an empty or half-written read.
    assert!(topic.starts_with("# E\n"), "{label}: title lost: {topic}");
    for i in 0..ORIGINAL {
        assert!(
            topic.contains(&format!("- 2026-01-01 [e{i}]: entry {i}\n")),
            "{label}: entry {i} lost"
        );
    }
    if !in_place {
        // A rename-style save is never overwritten.
        let lost: Vec<&String> = written
            .iter()
            .filter(|l| !topic.contains(l.as_str()))
            .collect();
        assert!(
            lost.is_empty(),
            "{label}: lost {} of {}: {lost:?}",
            lost.len(),
            written.len()
        );
    }
    // The directory reads, and checks, as a memory (whatever the writer left).
    let check = command(&root)
        .args(["topics", "--root"])
        .arg(&root)
        .arg("check")
        .output()
        .unwrap();
    assert!(matches!(check.status.code(), Some(0 | 4)), "{check:?}");
}

#[test]
fn a_program_saving_by_rename_never_loses_a_line_to_concurrent_remembers() {
    run_against_a_writer(false);
}

#[test]
fn a_program_saving_in_place_never_makes_memcore_commit_a_half_written_read() {
    run_against_a_writer(true);
}
