//! Agent Memory operations on indexes of 100, 1,000 and 10,000 rows.
//!
//! Every fixture is built once per size by `memory_core_benches::build_index` (a
//! snapshot for every non-idle row, as the protocol leaves them) and restored before
//! each measured call, so that every iteration does the same work on the same files:
//! `IndexFixture::restore` rewrites `index.md` and the target snapshots, removes the
//! target's archive and flushes all of it, outside the measurement.
//!
//! Run with `cargo bench -p memory-core-benches`; see `benches/README.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkGroup, Criterion, SamplingMode, measurement::WallTime};
use memory_core::{AgentMemory, OrganizeOptions, SessionUpdate};
use memory_core_benches::{IndexFixture, TempFixture, open_memory, temp_fixture};

/// Index sizes, in rows.
const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// Short runs: the machine has 2 shared cores and the whole bench should stay within a
/// few minutes. Flat sampling keeps the minimum iteration count low for the
/// 10,000-row cases, which take tens of milliseconds.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat);
}

fn fixtures() -> Vec<TempFixture> {
    SIZES
        .iter()
        .map(|&rows| {
            let t = temp_fixture(rows, usize::MAX).expect("build the fixture");
            let f = &t.fixture;
            eprintln!(
                "fixture {rows:>6} rows: {:>9} bytes ({} per row), {} idle / {} active ({} overdue) / {} stale, {} referenced, {} snapshots",
                f.index_bytes,
                f.bytes_per_row(),
                f.idle,
                f.active,
                f.overdue_active,
                f.stale,
                f.referenced,
                f.snapshots,
            );
            t
        })
        .collect()
}

/// Measures `op` once per iteration on a freshly restored fixture.
fn bench_restored(
    group: &mut BenchmarkGroup<'_, WallTime>,
    fixtures: &[TempFixture],
    op: impl Fn(&AgentMemory, &IndexFixture),
) {
    for t in fixtures {
        let f = &t.fixture;
        let memory = open_memory(&f.root);
        group.bench_function(f.rows.to_string(), |b| {
            b.iter_batched(
                || f.restore().expect("restore the fixture"),
                |()| op(&memory, f),
                BatchSize::PerIteration,
            )
        });
    }
    // Leave the fixture as built for the next group.
    fixtures
        .iter()
        .for_each(|t| t.fixture.restore().expect("restore the fixture"));
}

fn agent_memory(c: &mut Criterion) {
    let fixtures = fixtures();

    let mut group = c.benchmark_group("register_session_start");
    configure(&mut group);
    bench_restored(&mut group, &fixtures, |memory, _| {
        black_box(memory.register_session_start("cursor-main-agent").unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("update");
    configure(&mut group);
    bench_restored(&mut group, &fixtures, |memory, f| {
        let update = SessionUpdate::new()
            .summary("Benchmark update: decision recorded, snapshot merged.")
            .decision("Keep every bench iteration on the same bytes");
        black_box(memory.update(&f.update_target, update).unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("organize_dry_run");
    configure(&mut group);
    for t in &fixtures {
        let memory = open_memory(&t.fixture.root);
        group.bench_function(t.fixture.rows.to_string(), |b| {
            b.iter(|| {
                black_box(
                    memory
                        .organize(OrganizeOptions::default().dry_run(true))
                        .unwrap(),
                )
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("organize");
    configure(&mut group);
    bench_restored(&mut group, &fixtures, |memory, _| {
        black_box(memory.organize(OrganizeOptions::default()).unwrap());
    });
    group.finish();

    let mut group = c.benchmark_group("archive");
    configure(&mut group);
    bench_restored(&mut group, &fixtures, |memory, f| {
        black_box(memory.archive(&f.archive_target).unwrap());
    });
    group.finish();
}

criterion::criterion_group!(benches, agent_memory);
criterion::criterion_main!(benches);
