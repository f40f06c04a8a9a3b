//! context-memory timings in one run: `heal` (parse every entity file, write the index)
//! at 100 / 1,000 / 10,000 entities beside a loop that only reads the same files' bytes
//! (the floor), `query` over 50 and 10,000 entries, and `write` into a namespace of 1,000.
//!
//! Usage: `context-bench [runs]` (default 10). Prints medians.

use std::path::Path;
use std::time::{Duration, Instant};

use memory_core::context_memory::{Category, ContextMemory, Namespace, NewEntry, Query};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    println!("context-memory, {runs} runs each, medians (one run, this machine)");
    println!("{:<44} {:>10} {:>10}", "operation", "median ms", "× floor");
    for n in [100usize, 1_000, 10_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let ns = Namespace::parse("project.bench").expect("namespace");
        write_files(root, &ns, n);
        let memory = ContextMemory::builder(root)
            .fixed_time("2026-04-03T10:00:00Z")
            .expect("time")
            .open()
            .expect("open");
        let ns_dir = root.join(ns.dir());
        let floor = median(runs, || {
            let mut bytes = 0usize;
            for entry in std::fs::read_dir(&ns_dir).expect("read dir").flatten() {
                if entry.file_name() != "_index.md" {
                    bytes += std::fs::read(entry.path()).expect("read").len();
                }
            }
            std::hint::black_box(bytes);
        });
        let heal = median(runs, || {
            let _ = std::fs::remove_file(ns_dir.join("_index.md"));
            memory.heal(&ns).expect("heal");
        });
        println!(
            "{:<44} {:>10.2} {:>10.2}",
            format!("read {n} entity files (floor)"),
            ms(floor),
            1.0
        );
        println!(
            "{:<44} {:>10.2} {:>10.2}",
            format!("heal {n} entities (parse all, write index)"),
            ms(heal),
            heal.as_secs_f64() / floor.as_secs_f64()
        );
        if n == 1_000 {
            let mut k = 0;
            let write = median(runs, || {
                k += 1;
                memory
                    .write(
                        NewEntry::new(
                            ns.as_str(),
                            Category::Todo,
                            ["bench", "write"],
                            format!("New task number {k} for the write bench."),
                        )
                        .expect("entry")
                        .force_new(true),
                    )
                    .expect("write");
            });
            println!(
                "{:<44} {:>10.2}",
                "write 1 entry into a namespace of 1,000",
                ms(write)
            );
        }
        if n == 10_000 {
            let q = Query::new()
                .namespace(ns.as_str())
                .expect("ns")
                .tags(["api"])
                .text("cache");
            let query = median(runs, || {
                std::hint::black_box(memory.query(&q).expect("query"));
            });
            println!(
                "{:<44} {:>10.2}",
                "query over 10,000 entries (in process)",
                ms(query)
            );
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let ns = Namespace::parse("project.small").expect("namespace");
    write_files(dir.path(), &ns, 50);
    let memory = ContextMemory::open(dir.path()).expect("open");
    memory.heal(&ns).expect("heal");
    let q = Query::new()
        .namespace(ns.as_str())
        .expect("ns")
        .tags(["api"]);
    let query = median(runs, || {
        std::hint::black_box(memory.query(&q).expect("query"));
    });
    println!(
        "{:<44} {:>10.2}",
        "query over 50 entries (in process)",
        ms(query)
    );
}

/// `n` entity files in the seed's format, written directly (no index yet).
fn write_files(root: &Path, ns: &Namespace, n: usize) {
    let dir = root.join(ns.dir());
    std::fs::create_dir_all(&dir).expect("mkdir");
    let tags = ["api", "ui", "ops", "db", "auth", "docs"];
    for i in 1..=n {
        let (a, b) = (tags[i % 6], tags[(i / 6) % 6]);
        let text = format!(
            "---\nentity_name: {ns}.decision.{i:05}\nnamespace: {ns}\ncategory: decision\nstatus: accepted\ntags: [{a}, {}]\ncreated_at: 2026-04-03T10:00:00Z\nrationale: Measured in the bench\nsupersedes: []\nconfidence: 0.9\nsource_path: docs:bench/{i}.md\nupdated_at: 2026-04-03T10:00:00Z\n---\n\nDecision {i}: the {a} layer keeps a cache of {b} lookups.\n",
            if a == b { "misc" } else { b }
        );
        std::fs::write(dir.join(format!("decision-{i:05}-bench.md")), text).expect("write");
    }
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
