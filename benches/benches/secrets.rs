//! The secrets scan every write runs (`memory_core::hygiene::find_secret`): one
//! `aho-corasick` pass over the patterns' literal anchors, then only the expressions
//! whose anchors occur. Measured on a typical 1-3 sentence body, on 1 MiB of clean
//! memory prose without any anchor, on 1 MiB of prose full of anchors (`token:`,
//! `password`, `://` URLs) but no secret, and on 1 MiB with a secret at the very end.
//!
//! Run with `cargo bench -p memory-core-benches --bench secrets`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use memory_core::hygiene::find_secret;

const MIB: usize = 1 << 20;

fn repeat_to(unit: &str, size: usize) -> String {
    let mut text = String::with_capacity(size + unit.len());
    while text.len() < size {
        text.push_str(unit);
    }
    text
}

fn bench(c: &mut Criterion) {
    let body = "Chose Postgres over MySQL for the ledger: row-level locks and a mature CDC story. \
                See docs/adr/0007-ledger.md; commit 3f786850e387550fdab836ed7e6dc881de23001b.";
    let clean = repeat_to(
        "We decided to keep the ledger in Postgres because it has row-level locks. \
         The migration runs behind the flag ledger_v2 (see docs/adr/0007.md, commit 3f78685). \
         Request 9b2c1f7e-4a3d-4c2b-9f1e-2d3c4b5a6f70 failed twice on Tuesday.\n",
        MIB,
    );
    let anchors = repeat_to(
        "Rotate the token: see https://example.com/docs/password-reset for how; the api_key \
         lives in Vault and the secret: rotate-monthly policy applies. password=${DB_PASSWORD}.\n",
        MIB,
    );
    let secret_at_end = format!("{clean}\nSTRIPE=sk_live_51HqLyjWDarjtT1zdp7dcXyZ9\n");
    assert!(find_secret(body).is_none() && find_secret(&clean).is_none());
    assert!(find_secret(&anchors).is_none());
    assert_eq!(
        find_secret(&secret_at_end).map(|f| f.kind),
        Some("stripe-key")
    );

    let mut group = c.benchmark_group("find_secret");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for (name, text) in [
        ("body", body.to_string()),
        ("clean_1mib", clean),
        ("anchors_no_secret_1mib", anchors),
        ("secret_at_end_1mib", secret_at_end),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| black_box(find_secret(black_box(text))))
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
