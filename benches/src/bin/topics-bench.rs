//! structured-memory timings in one run: `remember` (a new dated entry, merge check,
//! index and archive handling, read back), `recall` (index lines only) and `compact` (a
//! dry run of the passes over every topic) on memories of 10, 100 and 1,000 topic files;
//! and `remember` into a 150-line topic file beside the floor — a bare atomic append of the
//! same file: read it, write a temp file with the line added, fsync it, rename it over,
//! fsync the directory.
//!
//! Usage: `topics-bench [runs]` (default 10). Medians; the machine is shared, so compare
//! ratios from one run.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse().expect("runs is a number"))
        .unwrap_or(10);
    println!("structured-memory, {runs} runs each, medians (one run, this machine)");
    println!("{:<58} {:>10} {:>9}", "operation", "median ms", "× floor");
    for topics in [10, 100, 1000] {
        let dir = tempfile::tempdir().expect("tempdir");
        let memory = fixture(dir.path(), topics);
        let mut k = 0;
        let remember = median_of(runs, || {
            k += 1;
            memory
                .remember(
                    Fact::new("memory-t0.md", format!("bench fact {k}"))
                        .subject(format!("bench-{k}")),
                )
                .expect("remember");
        });
        let recall = median_of(runs, || {
            memory.recall("deploy pipeline topic 7").expect("recall");
        });
        let compact = median_of(runs, || {
            memory
                .compact(None, &DefaultCompactor, true)
                .expect("compact");
        });
        println!(
            "{:<58} {:>10.2}",
            format!("remember into a memory of {topics} topics"),
            ms(remember)
        );
        println!(
            "{:<58} {:>10.2}",
            format!("recall over {topics} index lines"),
            ms(recall)
        );
        println!(
            "{:<58} {:>10.2}",
            format!("compact --dry-run over {topics} topics"),
            ms(compact)
        );
        // Real compactions on over-budget files: each run on a fresh copy (not timed).
        let one = median_with_setup(
            runs,
            || over_budget_fixture(topics),
            |(_dir, memory)| {
                let report = memory
                    .compact(Some("memory-t0.md"), &DefaultCompactor, false)
                    .expect("compact one");
                assert!(report.id.is_some(), "the collapse archived something");
            },
        );
        println!(
            "{:<58} {:>10.2}",
            format!("compact 1 over-budget topic among {topics}"),
            ms(one)
        );
        let all = median_with_setup(
            runs,
            || over_budget_fixture(topics),
            |(_dir, memory)| {
                let report = memory
                    .compact(None, &DefaultCompactor, false)
                    .expect("compact all");
                assert_eq!(report.files.len(), topics, "every topic was compacted");
            },
        );
        let floor = median_with_setup(
            runs,
            || over_budget_fixture(topics),
            |(dir, _memory)| atomic_rewrite_all(dir.path(), topics),
        );
        println!(
            "{:<58} {:>10.2} {:>9.2}",
            format!("floor: atomic rewrite of {topics} files (same sizes)"),
            ms(floor),
            1.0
        );
        println!(
            "{:<58} {:>10.2} {:>9.2}",
            format!("compact all {topics} topics, every one over budget"),
            ms(all),
            ratio(all, floor)
        );
    }
    // remember into a 150-line topic vs the bare atomic append of the same file.
    let dir = tempfile::tempdir().expect("tempdir");
    let memory = StructuredMemory::builder(dir.path())
        .budgets(Budgets::default().topic_lines(100_000))
        .open()
        .expect("open");
    let mut text = String::from("# Big\n\n");
    for i in 0..148 {
        text.push_str(&format!(
            "- 2026-06-{:02} [s{i}]: a fact of about this length, number {i}\n",
            i % 28 + 1
        ));
    }
    std::fs::write(dir.path().join("memory-big.md"), &text).expect("topic");
    std::fs::write(
        dir.path().join("MEMORY.md"),
        "- [Big](memory-big.md) — a big topic\n",
    )
    .expect("index");
    let floor_file = dir.path().join("floor.md");
    std::fs::write(&floor_file, &text).expect("floor");
    let mut k = 0;
    let remember = median_of(runs, || {
        k += 1;
        memory
            .remember(
                Fact::new("memory-big.md", format!("one more fact {k}")).subject(format!("x{k}")),
            )
            .expect("remember");
    });
    let mut j = 0;
    let floor = median_of(runs, || {
        j += 1;
        atomic_append(
            &floor_file,
            &format!("- 2026-07-10 [x{j}]: one more fact {j}\n"),
        );
    });
    println!(
        "{:<58} {:>10.2} {:>9.2}",
        "atomic append to a 150-line file (floor)",
        ms(floor),
        1.0
    );
    println!(
        "{:<58} {:>10.2} {:>9.2}",
        "remember into a 150-line topic",
        ms(remember),
        ratio(remember, floor)
    );
}

/// `topics` topic files of 20 entries each, all linked from `MEMORY.md`.
fn fixture(dir: &Path, topics: usize) -> StructuredMemory {
    let mut index = String::from("<!-- bench -->\n");
    for t in 0..topics {
        let mut text = format!("# Topic {t}\n\n");
        for e in 0..20 {
            text.push_str(&format!(
                "- 2026-06-{:02} [s{e}]: fact {e} of topic {t}\n",
                e % 28 + 1
            ));
        }
        std::fs::write(dir.join(format!("memory-t{t}.md")), text).expect("topic");
        index.push_str(&format!(
            "- [Topic {t}](memory-t{t}.md) — deploy pipeline notes, topic {t}\n"
        ));
    }
    std::fs::write(dir.join("MEMORY.md"), index).expect("index");
    StructuredMemory::builder(dir)
        .budgets(Budgets::default().index_lines(100_000).topic_lines(100_000))
        .open()
        .expect("open")
}

/// `topics` topic files of 20 entries over a 20-line budget (22 lines with the title):
/// two generations of each of ten subjects, so the default compactor collapses each file
/// to its ten newest entries and archives the rest in one step.
fn over_budget_fixture(topics: usize) -> (tempfile::TempDir, StructuredMemory) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut index = String::from("<!-- bench -->\n");
    for t in 0..topics {
        let mut text = format!("# Topic {t}\n\n");
        for e in 0..20 {
            text.push_str(&format!(
                "- 2026-06-{:02} [s{}]: fact {e} of topic {t}\n",
                e + 1,
                e % 10
            ));
        }
        std::fs::write(dir.path().join(format!("memory-t{t}.md")), text).expect("topic");
        index.push_str(&format!(
            "- [Topic {t}](memory-t{t}.md) — deploy pipeline notes, topic {t}\n"
        ));
    }
    std::fs::write(dir.path().join("MEMORY.md"), index).expect("index");
    let memory = StructuredMemory::builder(dir.path())
        .budgets(Budgets::default().index_lines(100_000).topic_lines(20))
        .open()
        .expect("open");
    (dir, memory)
}

/// The median of `runs` timed calls of `f`, each on a fresh `setup()` (not timed).
fn median_with_setup<S>(
    runs: usize,
    mut setup: impl FnMut() -> S,
    mut f: impl FnMut(&S),
) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let state = setup();
            let t = Instant::now();
            f(&state);
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// What a careful program does without memory-core: read, write a temp file with the line
/// added, fsync, rename over, fsync the directory.
fn atomic_append(path: &Path, line: &str) {
    let mut text = std::fs::read_to_string(path).expect("read");
    text.push_str(line);
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp).expect("create");
    f.write_all(text.as_bytes()).expect("write");
    f.sync_all().expect("fsync");
    std::fs::rename(&tmp, path).expect("rename");
    std::fs::File::open(path.parent().expect("dir"))
        .and_then(|d| d.sync_all())
        .expect("dir fsync");
}

/// The floor for compacting every topic: what a careful program does to rewrite each
/// file with its newest ten entries (read, temp with the new text, fsync, rename) and
/// fsync the directory once, without an archive, a lock or a check.
fn atomic_rewrite_all(dir: &Path, topics: usize) {
    for t in 0..topics {
        let path = dir.join(format!("memory-t{t}.md"));
        let text = std::fs::read_to_string(&path).expect("read");
        let kept: String = text
            .split_inclusive('\n')
            .enumerate()
            .filter(|(i, _)| *i < 2 || *i >= 12)
            .map(|(_, l)| l)
            .collect();
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::File::create(&tmp).expect("create");
        f.write_all(kept.as_bytes()).expect("write");
        f.sync_all().expect("fsync");
        std::fs::rename(&tmp, &path).expect("rename");
    }
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .expect("dir fsync");
}

fn median_of(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
