//! Locating the index table: memory-core's line scanner (`memory_core::markdown::scan_table`:
//! GFM table rules plus every line's block context) against a full GFM parse with
//! positions (`markdown::to_mdast`), the other way the issue names for finding
//! structures. The scanner is what `memcore agent start` runs in every SessionStart hook.
//!
//! `to_mdast` grows faster than linearly on one big table (about 0.5 s at 1,000 rows,
//! 1.8 s at 2,000, 23 s at 4,000 on this machine), so it is measured up to 2,000 rows;
//! the scanner is measured up to the 10,000 rows of the other benches.
//!
//! Run with `cargo bench -p memory-core-benches --bench table_scan`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode};
use memory_core::agent_memory::INDEX_COLUMNS;
use memory_core::markdown::scan_table;
use memory_core_benches::temp_fixture;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("locate_index_table");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sampling_mode(SamplingMode::Flat);
    for rows in [100, 1_000, 2_000, 10_000] {
        let fixture = temp_fixture(rows, 100).expect("build the fixture");
        let text = fixture.fixture.index_text().to_string();
        group.bench_with_input(BenchmarkId::new("scan_table", rows), &text, |b, text| {
            b.iter(|| {
                let scan = scan_table(black_box(text), &INDEX_COLUMNS).expect("scan");
                black_box(scan.table.map(|t| t.rows.len()))
            })
        });
        if rows <= 2_000 {
            group.bench_with_input(BenchmarkId::new("to_mdast", rows), &text, |b, text| {
                b.iter(|| {
                    let tree = markdown::to_mdast(black_box(text), &markdown::ParseOptions::gfm())
                        .expect("parse");
                    black_box(tree.children().map(Vec::len))
                })
            });
        }
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
