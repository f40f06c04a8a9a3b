//! A real second process that does not take memory-core's lock keeps saving a topic file
//! while real `memcore topics remember` processes write to it at the same time, in both
//! ways programs save: to a temp file renamed over it (no line it wrote may be lost),
//! and in place, truncating then writing (no memcore commit may be built from the
//! moment the file was empty or half written: the title and every original entry
//! survive). Every memcore run either succeeds or is refused with exit code 4
//! (`ChangedMeanwhile`, nothing written); none fails otherwise.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::command;

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

/// The other program, killed when dropped so a failed assertion never leaves the shell
/// loop running after the test (its temp directory gone, it would spin forever).
struct ForeignWriter(Child);

impl Drop for ForeignWriter {
    fn drop(&mut self) {
        // Already exited on the normal path; killing an exited child is harmless.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The other program: a shell loop that adds a numbered line to the topic every 10 ms
/// and logs each line once it is saved, until `stop` exists.
fn start_writer(root: &Path, work: &Path, in_place: bool) -> ForeignWriter {
    let save = if in_place {
        // `>` truncates the file, then printf writes it.
        r#"c=$(cat memory-e.md); printf '%s\n%s\n' "$c" "$line" > memory-e.md"#
    } else {
        r#"{ cat memory-e.md; printf '%s\n' "$line"; } > ../editor.tmp && mv ../editor.tmp memory-e.md"#
    };
    let script = format!(
        r#"i=0; while [ ! -e ../stop ]; do line="- 2026-01-03 [f$i]: foreign $i"; {save} && printf '%s\n' "$line" >> ../written.log; i=$((i+1)); sleep 0.01; done"#
    );
    assert_eq!(root.parent(), Some(work));
    ForeignWriter(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(root)
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    )
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
    let mut writer = start_writer(&root, work, in_place);
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
    std::fs::write(work.join("stop"), "").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while writer.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "writer did not stop");
        std::thread::sleep(Duration::from_millis(10));
    }
    let topic = std::fs::read_to_string(root.join("memory-e.md")).unwrap();
    let written = std::fs::read_to_string(work.join("written.log")).unwrap_or_default();
    let label = if in_place { "in place" } else { "rename" };
    assert!(
        written.lines().count() > 5,
        "{label}: the writer barely ran"
    );
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
        let lost: Vec<&str> = written.lines().filter(|l| !topic.contains(l)).collect();
        assert!(
            lost.is_empty(),
            "{label}: lost {} of {}: {lost:?}",
            lost.len(),
            written.lines().count()
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
