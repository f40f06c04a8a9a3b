//! Runs one Agent Memory operation repeatedly on a restored fixture, for profiling
//! (`perf record -g target/release/memcore-bench-op start 10000 50`).
//!
//! Usage: `memcore-bench-op <op> <rows> <iterations>` with `<op>` one of `start`,
//! `update`, `organize`, `organize-dry`, `archive`, `load` (read and parse the index:
//! `session(id)`), `sessions` (load plus reading order), `find-table` (the table scan
//! alone, on text in memory), `apply-edits` (splicing organize's edits into the text in
//! memory: every idle row removed, every other row rewritten), or `keep` (build the
//! fixture, print its root and leave it on disk, for `perf` on `memcore` itself).
//!
//! Prints the median wall time of the operation alone (restores are not timed) and its
//! mean on-CPU time from `/proc/thread-self/schedstat` (Linux), which a busy machine
//! disturbs less than wall time.

use std::time::{Duration, Instant};

use memory_core::{OrganizeOptions, SessionUpdate};
use memory_core_benches::{open_memory, temp_fixture};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [op, rows, iterations] = args.as_slice() else {
        eprintln!(
            "usage: memcore-bench-op <start|update|organize|organize-dry|archive|load|sessions|find-table|apply-edits|keep> <rows> <iterations>"
        );
        std::process::exit(2);
    };
    let rows: usize = rows.parse().expect("rows is a number");
    let iterations: usize = iterations.parse().expect("iterations is a number");
    let t = temp_fixture(rows, usize::MAX).expect("build the fixture");
    if op == "keep" {
        println!("{}", t.fixture.root.display());
        let _ = t.dir.keep();
        return;
    }
    let f = &t.fixture;
    let memory = open_memory(&f.root);
    let table = memory_core::markdown::find_table(
        f.index_text(),
        &memory_core::agent_memory::INDEX_COLUMNS,
    )
    .unwrap()
    .expect("the fixture has the index table");
    let edits: Vec<memory_core::markdown::Edit> = (0..table.rows.len())
        .map(|i| match memory_core_benches::RowKind::of(i) {
            memory_core_benches::RowKind::Idle => table.remove(i),
            _ => table.replace(i, &f.index_text()[table.rows[i].content.clone()]),
        })
        .collect();
    let mut times: Vec<Duration> = Vec::with_capacity(iterations);
    let mut cpu = Duration::ZERO;
    for _ in 0..iterations {
        f.restore().expect("restore");
        let cpu_start = cpu_time();
        let start = Instant::now();
        match op.as_str() {
            "start" => drop(memory.register_session_start("cursor-main-agent").unwrap()),
            "update" => drop(
                memory
                    .update(&f.update_target, SessionUpdate::new().decision("Profile"))
                    .unwrap(),
            ),
            "organize" => drop(memory.organize(OrganizeOptions::default()).unwrap()),
            "organize-dry" => drop(
                memory
                    .organize(OrganizeOptions::default().dry_run(true))
                    .unwrap(),
            ),
            "archive" => drop(memory.archive(&f.archive_target).unwrap()),
            "load" => drop(memory.session(&f.update_target).unwrap()),
            "sessions" => drop(memory.sessions().unwrap()),
            "find-table" => drop(
                memory_core::markdown::find_table(
                    f.index_text(),
                    &memory_core::agent_memory::INDEX_COLUMNS,
                )
                .unwrap(),
            ),
            "apply-edits" => drop(memory_core::markdown::apply_edits(
                f.index_text(),
                edits.clone(),
            )),
            other => panic!("unknown operation {other}"),
        }
        times.push(start.elapsed());
        cpu += cpu_time().saturating_sub(cpu_start);
    }
    times.sort();
    println!(
        "{op} on {rows} rows: wall median {:.3} ms (min {:.3} ms), on-CPU mean {:.3} ms, over {iterations} runs",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3 / iterations as f64,
    );
}

/// The calling thread's time on a CPU so far (zero where schedstat is unavailable).
fn cpu_time() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}
