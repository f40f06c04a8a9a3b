//! A real second process that does not take memory-core's lock keeps saving a memory
//! file — Agent Memory's `index.md` or a session snapshot, context-memory's `_index.md` —
//! while real `memcore agent update` and `memcore context write` processes write to it
//! at the same time, in both ways programs save: to a temp file renamed over it (no line
//! it wrote may be lost), and in place, truncating then writing (no memcore commit may be
//! built from the moment the file was empty or half written: everything memcore and the
//! seed put there survives). Every memcore run either succeeds or is refused with exit
//! code 4 (`ChangedMeanwhile`, nothing written); none fails otherwise.

mod common;

use std::path::Path;
use std::process::{Child, Stdio};

use common::foreign::ForeignWriter;
use common::{Fixture, command};

const ROUNDS: usize = 3;
const RUNS: usize = 5;

/// Spawns `memcore --root <root> <args>`.
fn spawn(root: &Path, args: &[String]) -> Child {
    command(root.parent().unwrap())
        .arg("--root")
        .arg(root)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `runs` and returns which succeeded; each must exit 0 or 4 (refused because
/// another program changed a file meanwhile). A read that caught an in-place save
/// truncated or half written reads the file again once the save goes on, so it is never
/// refused as unreadable (exit 5).
fn outcomes(runs: Vec<Child>) -> Vec<bool> {
    runs.into_iter()
        .map(|run| {
            let out = run.wait_with_output().unwrap();
            let code = out.status.code().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(code == 0 || code == 4, "exit {code}: {stderr}");
            if code == 4 {
                assert!(stderr.contains("changed on disk"), "{stderr}");
            }
            code == 0
        })
        .collect()
}

/// Asserts every line the other program saved is in `text` (when it saved by rename:
/// an in-place save may be lost to a later save of the same program, never to memcore
/// — which the test cannot tell apart).
fn none_lost(label: &str, text: &str, written: &[String], in_place: bool) {
    assert!(written.len() > 5, "{label}: the writer barely ran");
    if !in_place {
        let lost: Vec<&String> = written
            .iter()
            .filter(|l| !text.contains(l.as_str()))
            .collect();
        assert!(
            lost.is_empty(),
            "{label}: lost {} of {}: {lost:?}",
            lost.len(),
            written.len()
        );
    }
}

/// `memcore agent update` of several sessions while another program adds lines to
/// `index.md` (under a `## Notes` heading after the table).
fn agent_index_against_a_writer(in_place: bool) {
    let fx = Fixture::new();
    let ids: Vec<String> = (0..RUNS)
        .map(|k| {
            fx.register(
                &format!("agent-{k}"),
                &format!("Topic {k}"),
                &format!("Work {k}."),
                &[],
            )
        })
        .collect();
    let index = fx.index_path();
    let seeded = format!("{}\n## Notes\n\n- kept by hand\n", fx.index());
    std::fs::write(&index, &seeded).unwrap();
    let writer = ForeignWriter::start(&index, fx.dir.path(), "- note $i typed by hand", in_place);
    let mut made = Vec::new();
    for round in 0..ROUNDS {
        let runs = ids
            .iter()
            .map(|id| {
                let args = ["agent", "update", id, "--decision"].map(String::from);
                let mut args = args.to_vec();
                args.push(format!("Decision of {id} in round {round}"));
                spawn(&fx.root, &args)
            })
            .collect();
        for (id, ok) in ids.iter().zip(outcomes(runs)) {
            if ok {
                made.push((id.clone(), format!("Decision of {id} in round {round}")));
            }
        }
    }
    let written = writer.stop();
    let label = if in_place {
        "index, in place"
    } else {
        "index, rename"
    };
    let text = std::fs::read_to_string(&index).unwrap();
    none_lost(label, &text, &written, in_place);
    // Never built from an empty or half-written read: every row and the notes stand.
    for id in &ids {
        assert!(
            text.contains(&format!("| {id} |")),
            "{label}: row {id} lost: {text}"
        );
    }
    assert!(text.contains("- kept by hand"), "{label}: {text}");
    // (What memcore wrote can be lost to the other program, which saves what it read
    // before memcore's commit: that is its race, not one memcore can close. The snapshots
    // it writes alone hold every decision of a run that succeeded.)
    for (id, decision) in &made {
        let snapshot = std::fs::read_to_string(fx.root.join(format!("sessions/{id}.md"))).unwrap();
        assert!(snapshot.contains(decision), "{label}: {decision} lost");
    }
    fx.run(&["agent", "list"]).ok();
}

/// `memcore agent update` of one session while another program adds lines to its
/// snapshot (in the last section).
fn agent_snapshot_against_a_writer(in_place: bool) {
    let fx = Fixture::new();
    let id = fx.register(
        "agent-a",
        "Login bug",
        "Found the cookie bug.",
        &["--decision", "Use bcrypt"],
    );
    let snapshot = fx.root.join(format!("sessions/{id}.md"));
    let writer = ForeignWriter::start(
        &snapshot,
        fx.dir.path(),
        "- step $i noted by hand",
        in_place,
    );
    for round in 0..ROUNDS {
        let runs = (0..RUNS)
            .map(|k| {
                let decision = format!("Decision {k} of round {round}");
                spawn(
                    &fx.root,
                    &["agent", "update", &id, "--decision", &decision].map(String::from),
                )
            })
            .collect();
        outcomes(runs);
    }
    let written = writer.stop();
    let label = if in_place {
        "snapshot, in place"
    } else {
        "snapshot, rename"
    };
    let text = std::fs::read_to_string(&snapshot).unwrap();
    none_lost(label, &text, &written, in_place);
    assert!(
        text.starts_with(&format!("# Session: {id}\n")),
        "{label}: {text}"
    );
    assert!(text.contains("Use bcrypt"), "{label}: {text}");
    // (A decision memcore wrote can be lost to the other program, which saves what it
    // read before memcore's commit: its race, not one memcore can close.)
    fx.run(&["agent", "show", &id]).ok();
}

/// `memcore context write` of new entries while another program adds lines to the
/// namespace's `_index.md` (under a `## Notes` heading after the table).
fn context_index_against_a_writer(in_place: bool) {
    let fx = Fixture::new();
    let write = |k: usize, round: usize| {
        [
            "context",
            "write",
            "--namespace",
            "org.global",
            "--category",
            "decision",
            "--force-new",
        ]
        .map(String::from)
        .into_iter()
        .chain([
            "--tags".to_string(),
            format!("topic{k},round{round}"),
            "--body".to_string(),
            format!("Rule {k} holds from round {round}."),
        ])
        .collect::<Vec<_>>()
    };
    let first = spawn(&fx.root, &write(99, 99)).wait_with_output().unwrap();
    assert!(first.status.success(), "{first:?}");
    let index = fx.root.join("org/global/_index.md");
    let seeded = format!(
        "{}\n## Notes\n\n- kept by hand\n",
        std::fs::read_to_string(&index).unwrap()
    );
    std::fs::write(&index, &seeded).unwrap();
    let writer = ForeignWriter::start(&index, fx.dir.path(), "- note $i typed by hand", in_place);
    for round in 0..ROUNDS {
        let runs = (0..RUNS)
            .map(|k| spawn(&fx.root, &write(k, round)))
            .collect();
        outcomes(runs);
    }
    let written = writer.stop();
    let label = if in_place {
        "_index.md, in place"
    } else {
        "_index.md, rename"
    };
    let text = std::fs::read_to_string(&index).unwrap();
    none_lost(label, &text, &written, in_place);
    assert!(
        text.contains("Rule 99 holds from round 99"),
        "{label}: {text}"
    );
    assert!(text.contains("- kept by hand"), "{label}: {text}");
    // (A row memcore wrote can be lost to the other program, which saves what it read
    // before memcore's commit: its race, not one memcore can close. heal puts it back.)
    fx.run(&["context", "heal", "org.global"]).ok();
}

#[test]
fn agent_updates_never_lose_a_line_a_program_saves_to_the_index_by_rename() {
    agent_index_against_a_writer(false);
}

#[test]
fn agent_updates_never_commit_a_half_written_index_saved_in_place() {
    agent_index_against_a_writer(true);
}

#[test]
fn agent_updates_never_lose_a_line_a_program_saves_to_the_snapshot_by_rename() {
    agent_snapshot_against_a_writer(false);
}

#[test]
fn agent_updates_never_commit_a_half_written_snapshot_saved_in_place() {
    agent_snapshot_against_a_writer(true);
}

#[test]
fn context_writes_never_lose_a_line_a_program_saves_to_the_index_by_rename() {
    context_index_against_a_writer(false);
}

#[test]
fn context_writes_never_commit_a_half_written_index_saved_in_place() {
    context_index_against_a_writer(true);
}
