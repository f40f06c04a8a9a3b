//! context-memory timings in one run: `heal` (parse every entity file, write the index)
//! at 100 / 1,000 / 10,000 entities beside a loop that only reads the same files' bytes
//! (the floor) and that loop plus one fsynced atomic write of an index-sized file (the
//! floor with the write heal must make), `query` over 50 and 10,000 entries (and the first query of a new handle), and `write`
//! into a namespace of 1,000.
//!
//! Usage:
//! - `context-bench [runs]` (default 10): the whole table, medians.
//! - `context-bench tree DIR N`: writes N entity files of `project.bench` under the
//!   memory root DIR (what `benches/context_compare.sh` gives the other tools).
//! - `context-bench heal DIR runs`: on the root DIR written by `tree`, prints the median
//!   milliseconds of the floor, the floor with one atomic write, heal, and the floor's
//!   reads on two threads, then heal's CPU time (all threads) over the floor's,
//!   tab-separated.
//! - `context-bench heal-only DIR runs`: on the root DIR written by `tree`, heal alone
//!   (the index removed before each run), the median milliseconds: for `perf`, `strace`
//!   and callgrind, with no floor in the profile.
//! - `context-bench query DIR runs`: on the root DIR written by `tree` (healed first),
//!   prints the median milliseconds of one query (the table's query), for `perf`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memory_core::context_memory::{Category, ContextMemory, Namespace, NewEntry, Query};

const NAMESPACE: &str = "project.bench";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("tree") if args.len() == 3 => {
            let n = args[2].parse().expect("N is a number");
            write_files(Path::new(&args[1]), &namespace(), n);
        }
        Some("heal") if args.len() == 3 => {
            let runs = args[2].parse().expect("runs is a number");
            let t = heal_times(Path::new(&args[1]), runs);
            println!(
                "{:.3}\t{:.3}\t{:.3}\t{:.3}\t{:.2}",
                ms(t.floor),
                ms(t.floor_write),
                ms(t.heal),
                ms(t.floor_two),
                t.cpu_ratio
            );
        }
        Some("heal-only") if args.len() == 3 => {
            let runs = args[2].parse().expect("runs is a number");
            println!("{:.3}", ms(heal_only(Path::new(&args[1]), runs)));
        }
        Some("query") if args.len() == 3 => {
            let runs = args[2].parse().expect("runs is a number");
            println!("{:.3}", ms(query_time(Path::new(&args[1]), runs)));
        }
        Some(runs) if args.len() == 1 => table(runs.parse().expect("runs is a number")),
        None => table(10),
        _ => {
            eprintln!(
                "usage: context-bench [runs] | tree DIR N | heal DIR runs | heal-only DIR runs | query DIR runs"
            );
            std::process::exit(2);
        }
    }
}

fn namespace() -> Namespace {
    Namespace::parse(NAMESPACE).expect("namespace")
}

struct HealTimes {
    floor: Duration,
    /// Heal's CPU time (all threads) over the floor's, summed over the runs: what the
    /// load of other processes on the machine moves least.
    cpu_ratio: f64,
    floor_two: Duration,
    floor_write: Duration,
    heal: Duration,
    memory: ContextMemory,
}

/// Medians of the floors and of heal over `runs` runs, interleaved run by run so that
/// load on the machine hits all three alike.
fn heal_times(root: &Path, runs: usize) -> HealTimes {
    let ns = namespace();
    let memory = ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .expect("time")
        .open()
        .expect("open");
    let ns_dir = root.join(ns.dir());
    let index = ns_dir.join("_index.md");
    // One heal first: the index it writes is the size the write floor writes.
    let _ = std::fs::remove_file(&index);
    memory.heal(&ns).expect("heal");
    let index_bytes = std::fs::read(&index).expect("index");
    let scratch = ns_dir.join(".floor-write");
    let names: Vec<PathBuf> = std::fs::read_dir(&ns_dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("_index.md"))
        .collect();
    let (mut floor, mut floor_write, mut heal) = (Vec::new(), Vec::new(), Vec::new());
    let mut floor_two = Vec::new();
    let (mut floor_cpu, mut heal_cpu) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..runs.max(1) {
        let (wall, cpu) = time_cpu(|| read_all(&ns_dir));
        floor.push(wall);
        floor_cpu += cpu;
        floor_two.push(time(|| read_all_two_threads(&names)));
        floor_write.push(time(|| {
            read_all(&ns_dir);
            atomic_write(&scratch, &index_bytes);
        }));
        let _ = std::fs::remove_file(&index);
        let (wall, cpu) = time_cpu(|| {
            memory.heal(&ns).expect("heal");
        });
        heal.push(wall);
        heal_cpu += cpu;
    }
    let _ = std::fs::remove_file(&scratch);
    HealTimes {
        floor: median(floor),
        cpu_ratio: heal_cpu.as_secs_f64() / floor_cpu.as_secs_f64().max(1e-9),
        floor_two: median(floor_two),
        floor_write: median(floor_write),
        heal: median(heal),
        memory,
    }
}

/// The median time of `runs` heals of the root `root`, each writing the index anew.
fn heal_only(root: &Path, runs: usize) -> Duration {
    let ns = namespace();
    let memory = ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .expect("time")
        .open()
        .expect("open");
    let index = root.join(ns.dir()).join("_index.md");
    median_of(runs, || {
        let _ = std::fs::remove_file(&index);
        memory.heal(&ns).expect("heal");
    })
}

/// The floor: list the directory and read every entity file's bytes, one thread.
fn read_all(ns_dir: &Path) {
    let mut bytes = 0usize;
    for entry in std::fs::read_dir(ns_dir).expect("read dir").flatten() {
        let name = entry.file_name();
        if name != "_index.md" && name != ".floor-write" {
            bytes += std::fs::read(entry.path()).expect("read").len();
        }
    }
    std::hint::black_box(bytes);
}

/// The floor on two threads (each lists nothing, reads half of the names): how far
/// reading alone scales on this machine.
fn read_all_two_threads(names: &[PathBuf]) {
    let (a, b) = names.split_at(names.len() / 2);
    let read = |part: &[PathBuf]| {
        part.iter()
            .map(|p| std::fs::read(p).expect("read").len())
            .sum::<usize>()
    };
    let total = std::thread::scope(|s| {
        let other = s.spawn(|| read(b));
        read(a) + other.join().expect("thread")
    });
    std::hint::black_box(total);
}

/// What an atomic replace costs at least: a temp file written and fsynced, renamed over
/// the target, the directory fsynced.
fn atomic_write(target: &Path, bytes: &[u8]) {
    let temp: PathBuf = target.with_extension("tmp");
    let mut file = std::fs::File::create(&temp).expect("create");
    file.write_all(bytes).expect("write");
    file.sync_all().expect("fsync");
    std::fs::rename(&temp, target).expect("rename");
    let dir = std::fs::File::open(target.parent().expect("parent")).expect("open dir");
    dir.sync_all().expect("fsync dir");
}

/// The median time of the table's query over the root `root` (healed first).
fn query_time(root: &Path, runs: usize) -> Duration {
    let memory = ContextMemory::open(root).expect("open");
    memory.heal(&namespace()).expect("heal");
    let q = bench_query();
    median_of(runs, || {
        std::hint::black_box(memory.query(&q).expect("query"));
    })
}

/// Entries tagged `api` that mention `cache`.
fn bench_query() -> Query {
    Query::new()
        .namespace(NAMESPACE)
        .expect("ns")
        .tags(["api"])
        .text("cache")
}

fn table(runs: usize) {
    println!("context-memory, {runs} runs each, medians (one run, this machine)");
    println!(
        "{:<48} {:>10} {:>9} {:>12}",
        "operation", "median ms", "× floor", "× floor+write"
    );
    for n in [100usize, 1_000, 10_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let ns = namespace();
        write_files(root, &ns, n);
        let t = heal_times(root, runs);
        println!(
            "{:<48} {:>10.2}",
            format!("read {n} entity files (floor)"),
            ms(t.floor)
        );
        println!(
            "{:<48} {:>10.2} {:>9.2}",
            format!("read {n} on two threads (no listing)"),
            ms(t.floor_two),
            ratio(t.floor_two, t.floor)
        );
        println!(
            "{:<48} {:>10.2} {:>9.2}",
            format!("read {n} + 1 atomic write (floor + write)"),
            ms(t.floor_write),
            ratio(t.floor_write, t.floor)
        );
        println!(
            "{:<48} {:>10.2} {:>9.2} {:>12.2}",
            format!("heal {n} entities (parse all, write index)"),
            ms(t.heal),
            ratio(t.heal, t.floor),
            ratio(t.heal, t.floor_write)
        );
        println!(
            "{:<48} {:>10} {:>9.2}",
            format!("heal {n}: CPU time (all threads) × floor's"),
            "",
            t.cpu_ratio
        );
        let memory = t.memory;
        if n == 1_000 {
            let mut k = 0;
            let write = median_of(runs, || {
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
                "{:<48} {:>10.2}",
                "write 1 entry into a namespace of 1,000",
                ms(write)
            );
        }
        if n == 10_000 {
            let q = bench_query();
            let query = median_of(runs, || {
                std::hint::black_box(memory.query(&q).expect("query"));
            });
            println!(
                "{:<48} {:>10.2}",
                "query over 10,000 entries (in process)",
                ms(query)
            );
            // A new handle each time: the index's rows are read whole (not reused).
            let root = memory.root().to_path_buf();
            let first = median_of(runs, || {
                let fresh = ContextMemory::open(&root).expect("open");
                std::hint::black_box(fresh.query(&q).expect("query"));
            });
            println!(
                "{:<48} {:>10.2}",
                "first query of a handle over 10,000 entries",
                ms(first)
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
    let query = median_of(runs, || {
        std::hint::black_box(memory.query(&q).expect("query"));
    });
    println!(
        "{:<48} {:>10.2}",
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

/// CPU time this process has used so far, every thread's (those that ended included).
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The wall time of `f`, and the CPU time of this process (all threads) while it ran.
fn time_cpu(f: impl FnOnce()) -> (Duration, Duration) {
    let cpu = cpu_time();
    let wall = time(f);
    (wall, cpu_time().saturating_sub(cpu))
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median_of(runs: usize, mut f: impl FnMut()) -> Duration {
    median((0..runs.max(1)).map(|_| time(&mut f)).collect())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
