//! Reading an entity file's frontmatter, the per-file work of context-memory's `heal`:
//! locating the block, scanning its keys, the typed mapping built entry by entry
//! (`FrontmatterKeys::mapping`, simple values without the YAML parser) against the
//! whole block parsed by serde_yaml (`Frontmatter::mapping`), and a one-key edit.
//!
//! Run with `cargo bench -p memory-core-benches --bench frontmatter`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use memory_core::markdown::{Frontmatter, FrontmatterKeys, apply_edits};

const SEED_ENTITY: &str = "---
entity_name: org.global.decision.001
namespace: org.global
category: decision
status: accepted
tags: [auth, security]
created_at: 2026-04-03T10:00:00Z
rationale: Brief explanation of why
supersedes: []
confidence: 0.9
source_path: docs:global/decisions/auth-flow.md
updated_at: 2026-04-03T10:00:00Z
---

Body text with the conclusion. 1-3 sentences. No reasoning chains.
";

const DIAGRAM: &str = "---
entity_name: org.global.diagram.001 # hand-edited
namespace: 'org.global'
category: diagram
status: experimental
tags:
  - memory
  - flow
created_at: 2026-04-03T10:00:00Z
diagram_language: mermaid
diagram_type: flowchart
diagram_subject: memory-write-flow
diagram_code: |
  flowchart TD
    A[Start] --> B[Write file]
    B --> C[Update index]
related_entities: [org.global.decision.001]
---

How an entry is written.
";

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("frontmatter");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for (name, text) in [("seed_entity", SEED_ENTITY), ("diagram", DIAGRAM)] {
        group.bench_with_input(BenchmarkId::new("locate", name), text, |b, text| {
            b.iter(|| black_box(Frontmatter::locate(black_box(text)).ok().flatten()))
        });
        group.bench_with_input(BenchmarkId::new("scan_keys", name), text, |b, text| {
            b.iter(|| black_box(FrontmatterKeys::read(black_box(text)).ok().flatten()))
        });
        group.bench_with_input(
            BenchmarkId::new("scan_and_mapping", name),
            text,
            |b, text| {
                b.iter(|| {
                    let keys = FrontmatterKeys::read(black_box(text))
                        .expect("scan")
                        .expect("block");
                    black_box(keys.mapping(text).expect("mapping").len())
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("serde_yaml_mapping", name),
            text,
            |b, text| {
                b.iter(|| {
                    let fm = Frontmatter::locate(black_box(text))
                        .expect("locate")
                        .expect("block");
                    black_box(fm.mapping(text).expect("mapping").len())
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("set_status", name), text, |b, text| {
            b.iter(|| {
                let keys = FrontmatterKeys::read(black_box(text))
                    .expect("scan")
                    .expect("block");
                let edit = keys
                    .set(text, "status", &"superseded".into())
                    .expect("edit");
                black_box(apply_edits(text, vec![edit]).len())
            })
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
