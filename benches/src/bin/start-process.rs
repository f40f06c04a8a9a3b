//! Whole-process timing of `memcore agent start` (the SessionStart hook) on a large
//! index, side by side with the raw I/O floor and a plain Python hook, as ratios from
//! one run.
//!
//! Usage: `start-process [--memcore PATH] [--rows N] [--runs N] [--python PATH]
//! [--naive PATH] [--no-python] [--iso-only] [--spellings I,J,…]` (defaults: `target/release/memcore`, 10000
//! rows, 50 runs, the interpreter `python3` resolves to, `benches/compare/naive_append.py`).
//! `benches/start_process.sh` builds everything and runs it.
//!
//! Method: one fixture per timestamp spelling the reader accepts (`build_index_spelled`,
//! the same rows, a snapshot only for the 50 newest sessions: start reads no snapshot)
//! in `$TMPDIR`; `cat` and `memcore agent start` run on each, the Python hooks on the
//! first one (`--iso-only`: the RFC 3339 fixture alone; `--spellings 0,3`: those of
//! `Spelling::ALL`, by index, e.g. to time a build that reads fewer spellings). Every run starts from the same bytes: `index.md` is
//! restored and flushed before each run, outside the timing, so the index has exactly
//! `--rows` rows every time (it does not grow). The commands are interleaved run by run,
//! so that load on the machine hits them alike. Wall time is measured around
//! spawn-to-exit; CPU time is the children's user+system time from `/proc/self/stat`,
//! clock-tick based, so only its mean over all runs is meaningful.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memory_core_benches::{Spelling, TempFixture, temp_fixture_spelled};

struct Options {
    memcore: PathBuf,
    rows: usize,
    runs: usize,
    python: Option<PathBuf>,
    naive: PathBuf,
    with_python: bool,
    /// Indexes into `Spelling::ALL`; all when empty.
    spellings: Vec<usize>,
}

fn parse_options() -> Options {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut options = Options {
        memcore: manifest.join("../target/release/memcore"),
        rows: 10_000,
        runs: 50,
        python: None,
        naive: manifest.join("compare/naive_append.py"),
        with_python: true,
        spellings: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next().unwrap_or_else(|| {
                eprintln!("{flag} needs a value");
                std::process::exit(2)
            })
        };
        match flag.as_str() {
            "--memcore" => options.memcore = value().into(),
            "--rows" => options.rows = value().parse().expect("--rows takes a number"),
            "--runs" => options.runs = value().parse().expect("--runs takes a number"),
            "--python" => options.python = Some(value().into()),
            "--naive" => options.naive = value().into(),
            "--no-python" => options.with_python = false,
            "--iso-only" => options.spellings = vec![0],
            "--spellings" => {
                options.spellings = value()
                    .split(',')
                    .map(|i| {
                        i.trim()
                            .parse()
                            .expect("--spellings takes indexes, e.g. 0,3")
                    })
                    .collect()
            }
            _ => {
                eprintln!(
                    "usage: start-process [--memcore PATH] [--rows N] [--runs N] [--python PATH] [--naive PATH] [--no-python] [--iso-only] [--spellings I,J,…]"
                );
                std::process::exit(2)
            }
        }
    }
    options
}

/// The interpreter `python3` resolves to (pyenv and similar shims add tens of
/// milliseconds of shell start-up that are not Python's).
fn resolve_python(given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(|| {
        Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
            .unwrap_or_else(|| PathBuf::from("python3"))
    })
}

/// One command under test.
struct Case {
    label: String,
    /// Index of the fixture it runs on (restored before every run).
    fixture: usize,
    program: PathBuf,
    args: Vec<String>,
    /// Text the command must print (checked on every run).
    expect: Option<&'static str>,
    /// Whether the lock file's note (the remembered index verdicts) is emptied before
    /// every run: the first SessionStart after a hand edit of the index.
    cold: bool,
    wall: Vec<Duration>,
    cpu_ticks: u64,
}

impl Case {
    fn new(
        label: &str,
        fixture: usize,
        program: &Path,
        args: &[&str],
        expect: Option<&'static str>,
    ) -> Self {
        Case {
            label: label.to_string(),
            fixture,
            program: program.to_path_buf(),
            args: args.iter().map(|a| a.to_string()).collect(),
            expect,
            cold: false,
            wall: Vec::new(),
            cpu_ticks: 0,
        }
    }

    fn run_once(&mut self) {
        let before = children_cpu_ticks();
        let start = Instant::now();
        let output = Command::new(&self.program)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(if self.expect.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stderr(Stdio::piped())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.program.display()));
        let elapsed = start.elapsed();
        self.cpu_ticks += children_cpu_ticks().saturating_sub(before);
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || self.expect.is_some_and(|e| !stdout.contains(e)) {
            panic!(
                "{} failed ({}):\n{stdout}\n{}",
                self.label,
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        self.wall.push(elapsed);
    }

    fn median(&self) -> f64 {
        percentile(&self.wall, 50)
    }
}

fn percentile(times: &[Duration], p: usize) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort();
    let at = ((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64() * 1e3
}

/// User + system clock ticks of reaped children (`cutime` + `cstime`), 0 off Linux.
fn children_cpu_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // Fields after the parenthesised command name; cutime and cstime are fields 16, 17.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    field(16).unwrap_or(0) + field(17).unwrap_or(0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let options = parse_options();
    if !options.memcore.exists() {
        eprintln!(
            "{} does not exist: build it with `cargo build --release -p memory-cli`",
            options.memcore.display()
        );
        std::process::exit(1);
    }
    let python = resolve_python(options.python);
    let spellings: Vec<Spelling> = if options.spellings.is_empty() {
        Spelling::ALL.to_vec()
    } else {
        options
            .spellings
            .iter()
            .map(|&i| Spelling::ALL[i.min(Spelling::ALL.len() - 1)])
            .collect()
    };
    let fixtures: Vec<TempFixture> = spellings
        .iter()
        .map(|s| temp_fixture_spelled(options.rows, 50, *s).expect("build the fixture"))
        .collect();
    let f = &fixtures[0].fixture;
    let root = |i: usize| fixtures[i].fixture.root.to_string_lossy().into_owned();
    let index = |i: usize| {
        fixtures[i]
            .fixture
            .index_path()
            .to_string_lossy()
            .into_owned()
    };
    let naive = options.naive.to_string_lossy().into_owned();
    let cat = PathBuf::from("cat");
    const ID_LINE: Option<&str> = Some("Your Memory Session ID is:");

    // Per spelling: `cat` of its index, then `memcore agent start` on it as every start
    // after a memcore command finds it (its verdict remembered), then as the first start
    // after a hand edit finds it (no verdict: every row read).
    let mut cases: Vec<Case> = Vec::new();
    for (i, spelling) in spellings.iter().enumerate() {
        let example = spelling.example();
        cases.push(Case::new(
            &format!("cat index.md  [{example}]"),
            i,
            &cat,
            &[&index(i)],
            None,
        ));
        cases.push(Case::new(
            &format!("memcore agent start  [{example}]"),
            i,
            &options.memcore,
            &["agent", "start", "--root", &root(i)],
            ID_LINE,
        ));
        let mut cold = Case::new(
            &format!("memcore agent start, cold  [{example}]"),
            i,
            &options.memcore,
            &["agent", "start", "--root", &root(i)],
            ID_LINE,
        );
        cold.cold = true;
        cases.push(cold);
    }
    cases.push(Case::new(
        "memcore --version",
        0,
        &options.memcore,
        &["--version"],
        None,
    ));
    if options.with_python {
        cases.push(Case::new(
            "python3 -c pass",
            0,
            &python,
            &["-c", "pass"],
            None,
        ));
        cases.push(Case::new(
            "python3 naive_append.py DIR",
            0,
            &python,
            &[&naive, &root(0)],
            ID_LINE,
        ));
        cases.push(Case::new(
            "python3 naive_append.py --fsync DIR",
            0,
            &python,
            &[&naive, "--fsync", &root(0)],
            ID_LINE,
        ));
    }
    const CAT: usize = 0;
    const START: usize = 1;

    let load_before = load_average();
    let restore = |case: &Case| {
        let fixture = &fixtures[case.fixture].fixture;
        fixture.restore().expect("restore the fixture");
        if case.cold {
            std::fs::write(fixture.root.join(".memcore.lock"), "").expect("empty the lock file");
        }
    };
    // One untimed round warms the page cache and the binaries.
    for case in &mut cases {
        restore(case);
        case.run_once();
        case.wall.clear();
        case.cpu_ticks = 0;
    }
    for _ in 0..options.runs {
        for case in &mut cases {
            restore(case);
            case.run_once();
        }
    }
    for t in &fixtures {
        t.fixture.restore().expect("restore the fixture");
    }

    let ticks_per_ms = 100.0 / 1e3; // USER_HZ is 100 on Linux.
    println!(
        "memcore agent start on a {}-row index ({} bytes with RFC 3339 timestamps, {} per row) in {} timestamp spellings; {} runs of each command, interleaved; index.md restored before every run",
        f.rows,
        f.index_bytes,
        f.bytes_per_row(),
        spellings.len(),
        options.runs
    );
    println!(
        "machine: {} cores, load average {} before / {} after; python: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_before,
        load_average(),
        python.display()
    );
    println!();
    println!(
        "{:<58} {:>10} {:>8} {:>9} {:>8} {:>10}",
        "command", "median ms", "p90 ms", "CPU≈ ms", "× cat", "× memcore"
    );
    let (cat_median, start_median) = (cases[CAT].median(), cases[START].median());
    for case in &cases {
        let median = case.median();
        // A spelling's cases are compared with its own `cat`; the rest with the first.
        let own_cat = if case.fixture > 0 {
            cases[3 * case.fixture].median()
        } else {
            cat_median
        };
        println!(
            "{:<58} {:>10.2} {:>8.2} {:>9.2} {:>8.1} {:>10.2}",
            case.label,
            median,
            percentile(&case.wall, 90),
            case.cpu_ticks as f64 / ticks_per_ms / case.wall.len() as f64,
            median / own_cat,
            median / start_median,
        );
    }
    println!();
    let worst = (0..spellings.len())
        .map(|i| (cases[3 * i + 1].median() / cases[3 * i].median(), i))
        .fold((0.0f64, 0usize), |a, b| if b.0 > a.0 { b } else { a });
    let worst_cold = (0..spellings.len())
        .map(|i| (cases[3 * i + 2].median() / cases[3 * i].median(), i))
        .fold((0.0f64, 0usize), |a, b| if b.0 > a.0 { b } else { a });
    println!(
        "memcore agent start: median {:.2} ms = {:.1}× cat (RFC 3339); worst spelling {} at {:.1}× its cat",
        start_median,
        start_median / cat_median,
        spellings[worst.1].example(),
        worst.0
    );
    println!(
        "memcore agent start, cold (first start after a hand edit): median {:.2} ms = {:.1}× cat (RFC 3339); worst spelling {} at {:.1}× its cat",
        cases[2].median(),
        cases[2].median() / cat_median,
        spellings[worst_cold.1].example(),
        worst_cold.0
    );
    if options.with_python {
        let naive = cases
            .iter()
            .find(|c| c.label == "python3 naive_append.py DIR")
            .map_or(f64::NAN, Case::median);
        println!(
            "memcore agent start: {:.2}× the naive Python hook",
            start_median / naive
        );
    }
}
