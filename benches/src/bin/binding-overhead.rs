//! The Rust side of the binding-overhead comparison: builds the shared fixture and a plan
//! of calls, and times the plan's operations in-process, for comparison with the same
//! calls made through the Python and Node bindings (`benches/compare/binding_overhead.py`,
//! `benches/compare/binding_overhead.mjs`). `benches/binding_overhead.sh` runs all three
//! and prints the side-by-side table.
//!
//! Usage:
//!
//! - `binding-overhead fixture DIR [--calls N]` writes two memory roots with
//!   `build_index` — `DIR/rows-100/memory` and `DIR/rows-1000/memory` (20 snapshots each:
//!   no measured operation reads one) — a pristine copy of each `index.md` next to its
//!   root (`DIR/rows-N/index.md.orig`), and `DIR/plan.tsv`, the calls every language
//!   makes. `N` (default 2000) is the number of timed calls of the small reads; the
//!   1,000-row read gets `N / 5`, the write `N / 20`, each after a warm-up of a tenth
//!   as many untimed calls (at least 5).
//! - `binding-overhead run DIR [--raw OUT]` times the plan's operations (those it knows:
//!   the `…_async` ones are Node's) and prints, per operation, the calls and the median
//!   and p90 per call in microseconds; with `--raw`, it appends every timed call in
//!   nanoseconds, one per line, to `OUT/rust.<op>.<rows>.ns`.
//!
//! Every timed call is one call between two reads of the monotonic clock (`Instant`),
//! on a handle opened before the timing with the clock fixed at [`NOW`]. The write,
//! `register_session_start`, runs on a restored index: before every call (untimed),
//! `index.md` is rewritten from the pristine copy and flushed together with its
//! directory, so every call appends to exactly 100 rows; the index is restored once
//! more at the end. The `timer` operation times nothing: the floor of the measurement.
//! `root` (a getter) and `session_path(id)` (validates the id, joins a path, `lstat`s
//! two components for symbolic links; reads no file) do little work, so in the bindings
//! they show the fixed cost of a call; their plan lines have 0 rows.
//!
//! [`NOW`]: memory_core_benches::NOW

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memory_core::{AgentMemory, SessionRow};
use memory_core_benches::{NOW, build_index, open_memory};

const USAGE: &str =
    "usage: binding-overhead fixture DIR [--calls N]\n       binding-overhead run DIR [--raw OUT]";

/// Snapshots per fixture: enough for `build_index`'s targets; no measured call reads one.
const SNAPSHOTS: usize = 20;

/// The agent name `register_session_start` is called with.
const AGENT: &str = "cursor-main-agent";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [cmd, dir, rest @ ..] if cmd == "fixture" => {
            let calls = match rest {
                [] => 2000,
                [flag, n] if flag == "--calls" => n.parse().unwrap_or_else(|_| usage()),
                _ => usage(),
            };
            write_fixture(Path::new(dir), calls)
        }
        [cmd, dir, rest @ ..] if cmd == "run" => {
            let raw = match rest {
                [] => None,
                [flag, out] if flag == "--raw" => Some(PathBuf::from(out)),
                _ => usage(),
            };
            run(Path::new(dir), raw.as_deref())
        }
        _ => usage(),
    };
    if let Err(e) = result {
        eprintln!("binding-overhead: {e}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2)
}

/// Builds both fixtures and writes `plan.tsv`.
fn write_fixture(dir: &Path, calls: usize) -> io::Result<()> {
    let mut plan = String::from(
        "# binding-overhead plan, written by `binding-overhead fixture`\n\
         # now\t<fixed time every handle is opened with>\n\
         # op\t<name>\t<rows, 0 when the index is not read>\t<root>\t<argument>\t<timed calls>\t<warm-up calls>\t<pristine index.md or ->\n",
    );
    let _ = writeln!(plan, "now\t{NOW}");
    let mut roots = HashMap::new();
    for rows in [100, 1_000] {
        let base = dir.join(format!("rows-{rows}"));
        let fixture = build_index(&base.join("memory"), rows, SNAPSHOTS)?;
        fs::write(base.join("index.md.orig"), fixture.index_text())?;
        eprintln!(
            "fixture {rows:>5} rows: {} ({} bytes), session(id) target {}",
            fixture.root.display(),
            fixture.index_bytes,
            fixture.update_target
        );
        roots.insert(rows, (fixture, base));
    }
    let (small, small_base) = &roots[&100];
    let (large, _) = &roots[&1_000];
    let root = |f: &memory_core_benches::IndexFixture| f.root.display().to_string();
    let orig = small_base.join("index.md.orig").display().to_string();
    let warm = |n: usize| (n / 10).max(5);
    let reads = calls.max(1);
    let big = (calls / 5).max(1);
    let writes = (calls / 20).max(1);
    let id = small.update_target.as_str();
    let lines: [(&str, usize, String, &str, usize, &str); 11] = [
        ("timer", 0, "-".into(), "-", reads, "-"),
        ("root", 0, root(small), "-", reads, "-"),
        ("session_path", 0, root(small), id, reads, "-"),
        ("session_path_async", 0, root(small), id, reads, "-"),
        ("session", 100, root(small), id, reads, "-"),
        ("session_async", 100, root(small), id, reads, "-"),
        ("sessions", 100, root(small), "-", reads, "-"),
        ("sessions_async", 100, root(small), "-", reads, "-"),
        ("sessions", 1_000, root(large), "-", big, "-"),
        ("sessions_fields", 1_000, root(large), "-", big, "-"),
        (
            "register_session_start",
            100,
            root(small),
            AGENT,
            writes,
            &orig,
        ),
    ];
    for (op, rows, root, arg, calls, restore) in lines {
        let _ = writeln!(
            plan,
            "op\t{op}\t{rows}\t{root}\t{arg}\t{calls}\t{}\t{restore}",
            warm(calls)
        );
    }
    fs::write(dir.join("plan.tsv"), plan)
}

/// One operation of the plan.
struct Step {
    op: String,
    rows: usize,
    root: PathBuf,
    arg: String,
    calls: usize,
    warmup: usize,
    restore: Option<PathBuf>,
}

/// Reads `DIR/plan.tsv` (see [`write_fixture`]).
fn read_plan(dir: &Path) -> io::Result<Vec<Step>> {
    let text = fs::read_to_string(dir.join("plan.tsv"))?;
    let bad = |line: &str| io::Error::new(io::ErrorKind::InvalidData, format!("plan: {line}"));
    let mut steps = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["now", now] if *now == NOW => {}
            ["op", op, rows, root, arg, calls, warmup, restore] => steps.push(Step {
                op: op.to_string(),
                rows: rows.parse().map_err(|_| bad(line))?,
                root: PathBuf::from(root),
                arg: arg.to_string(),
                calls: calls.parse().map_err(|_| bad(line))?,
                warmup: warmup.parse().map_err(|_| bad(line))?,
                restore: (*restore != "-").then(|| PathBuf::from(restore)),
            }),
            _ if line.starts_with('#') => {}
            _ => return Err(bad(line)),
        }
    }
    Ok(steps)
}

/// Rewrites `root/index.md` from `pristine` and flushes it and `root`, as the Python and
/// Node sides do.
fn restore(root: &Path, pristine: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(root.join("index.md"))?;
    file.write_all(pristine)?;
    file.sync_all()?;
    fs::File::open(root)?.sync_all()
}

/// Reads every field of every row, as a caller would (the Python binding converts a
/// field only when it is read).
fn touch(rows: &[SessionRow]) -> usize {
    rows.iter()
        .map(|r| {
            r.session_id.as_str().len()
                + r.agent_name.len()
                + r.topic.len()
                + r.summary.len()
                + r.keywords.len()
                + r.status.as_str().len()
                + r.referenced_by.len()
                + r.started_at.as_str().len()
                + r.updated_at.as_str().len()
        })
        .sum()
}

/// Times the plan's operations that Rust has, prints the summary, appends the raw times.
fn run(dir: &Path, raw: Option<&Path>) -> io::Result<()> {
    let steps = read_plan(dir)?;
    let mut handles: HashMap<PathBuf, AgentMemory> = HashMap::new();
    println!("# rust: op\trows\tcalls\tmedian_us\tp90_us");
    for step in &steps {
        let call: Box<dyn Fn(&AgentMemory)> = match step.op.as_str() {
            "timer" => Box::new(|_| {}),
            "root" => Box::new(|m| {
                black_box(m.root());
            }),
            "session_path" => {
                let id = step.arg.clone();
                Box::new(move |m| drop(black_box(m.session_path(&id).unwrap())))
            }
            "session" => {
                let id = step.arg.clone();
                Box::new(move |m| drop(black_box(m.session(&id).unwrap())))
            }
            "sessions" => Box::new(|m| drop(black_box(m.sessions().unwrap()))),
            "sessions_fields" => Box::new(|m| {
                black_box(touch(&m.sessions().unwrap()));
            }),
            "register_session_start" => {
                let agent = step.arg.clone();
                Box::new(move |m| drop(black_box(m.register_session_start(&agent).unwrap())))
            }
            _ => continue,
        };
        let memory = if step.op == "timer" {
            None
        } else {
            let root = step.root.clone();
            Some(
                &*handles
                    .entry(root.clone())
                    .or_insert_with(|| open_memory(&root)),
            )
        };
        let pristine = step.restore.as_deref().map(fs::read).transpose()?;
        let mut times = Vec::with_capacity(step.calls);
        for i in 0..step.warmup + step.calls {
            if let Some(bytes) = &pristine {
                restore(&step.root, bytes)?;
            }
            let start = Instant::now();
            if let Some(m) = memory {
                call(m);
            }
            let elapsed = start.elapsed();
            if i >= step.warmup {
                times.push(elapsed);
            }
        }
        if let Some(bytes) = &pristine {
            restore(&step.root, bytes)?;
        }
        if let Some(out) = raw {
            let mut text = String::with_capacity(times.len() * 8);
            for t in &times {
                let _ = writeln!(text, "{}", t.as_nanos());
            }
            fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(out.join(format!("rust.{}.{}.ns", step.op, step.rows)))?
                .write_all(text.as_bytes())?;
        }
        println!(
            "{}\t{}\t{}\t{:.2}\t{:.2}",
            step.op,
            step.rows,
            times.len(),
            percentile(&times, 50),
            percentile(&times, 90)
        );
    }
    Ok(())
}

/// The `p`th percentile in microseconds (nearest rank, as `start-process` does).
fn percentile(times: &[Duration], p: usize) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort();
    let at = ((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64() * 1e6
}
