//! Programs that do not take memory-core's lock (an editor, Claude Code writing its own
//! memory files) may write a topic or `MEMORY.md` while a compaction's compactor runs.
//! Their change is never overwritten: `compact` is refused with `ChangedMeanwhile`
//! (nothing written), and `remember` plans again (refused after three changed plans).
//! The foreign write is made from inside the compactor, so it lands in that window for
//! certain.

mod structured_support;
use structured_support::tree;

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};

use memory_core::structured_memory::{
    Budgets, Compactor, CompactorError, Entry, Fact, StructuredMemory, Topic,
};
use memory_core::{Error, ErrorKind};

const INFRA: &str = "# Infra\n\n- 2026-06-01 [db]: Postgres 15\n- 2026-06-02 [db]: Postgres 16\n- 2026-06-03 [dns]: CoreDNS\n";

fn seed(d: &Path) -> StructuredMemory {
    std::fs::write(d.join("memory-infra.md"), INFRA).unwrap();
    std::fs::write(d.join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts\n").unwrap();
    StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(4))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(line.as_bytes()).unwrap();
}

/// Appends a hand-written line to `file` from inside `dead`, the first `times` calls.
struct EditsWhileJudging {
    tag: &'static str,
    file: PathBuf,
    times: usize,
    calls: Cell<usize>,
}

impl Compactor for EditsWhileJudging {
    fn dead(&self, _t: &Topic, _e: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        if n < self.times {
            append(
                &self.file,
                &format!(
                    "- 2026-07-0{} [hand]: {} typed in an editor {n}\n",
                    n % 9 + 1,
                    self.tag
                ),
            );
        }
        Ok(Vec::new())
    }
}

#[test]
fn compact_never_overwrites_what_another_program_wrote_while_the_compactor_ran() {
    for target in ["memory-infra.md", "MEMORY.md"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = seed(d);
        let c = EditsWhileJudging {
            tag: "first",
            file: d.join(target),
            times: 1,
            calls: Cell::new(0),
        };
        let err = m.compact(Some("memory-infra.md"), &c, false).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
        assert!(
            matches!(&err, Error::ChangedMeanwhile { path, operation: "compact" } if path == &d.join(target)),
            "{err:?}"
        );
        // The foreign line is there, nothing else changed, no archive was written.
        let text = std::fs::read_to_string(d.join(target)).unwrap();
        assert!(text.ends_with("typed in an editor 0\n"), "{text}");
        assert!(!d.join("memory-archive.md").exists());
        // Run again: the compaction now sees the line, and loses nothing.
        let before = tree(d);
        let report = m
            .compact(
                Some("memory-infra.md"),
                &memory_core::structured_memory::DefaultCompactor,
                false,
            )
            .unwrap();
        assert!(!report.files.is_empty());
        let mut all = String::new();
        for (name, bytes) in tree(d) {
            if name.ends_with(".md") {
                all.push_str(&String::from_utf8(bytes).unwrap());
            }
        }
        assert!(all.contains("first typed in an editor 0"), "{before:?}");
    }
}

#[test]
fn remember_plans_again_when_another_program_wrote_while_the_compactor_ran() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = seed(d);
    // The first plan's compactor call sees a topic that an editor then changes.
    let c = EditsWhileJudging {
        tag: "first",
        file: d.join("memory-infra.md"),
        times: 1,
        calls: Cell::new(0),
    };
    let out = m
        .remember_with(
            Fact::new("memory-infra.md", "Fastly")
                .subject("cdn")
                .date("2026-07-09"),
            &c,
        )
        .unwrap();
    assert!(c.calls.get() >= 2, "planned again");
    let mut all = String::new();
    for (name, bytes) in tree(d) {
        if name.ends_with(".md") {
            all.push_str(&String::from_utf8(bytes).unwrap());
        }
    }
    assert!(all.contains("first typed in an editor 0"), "{all}");
    assert!(all.contains("Fastly"), "{all}");
    assert_eq!(out.entry.text, "Fastly");
    // An editor that writes during every plan: refused after three, its lines all kept.
    let c = EditsWhileJudging {
        tag: "every",
        file: d.join("memory-infra.md"),
        times: usize::MAX,
        calls: Cell::new(0),
    };
    let err = m
        .remember_with(
            Fact::new("memory-infra.md", "Varnish")
                .subject("cache")
                .date("2026-07-09"),
            &c,
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::ChangedMeanwhile {
                operation: "remember",
                ..
            }
        ),
        "{err:?}"
    );
    let text = std::fs::read_to_string(d.join("memory-infra.md")).unwrap();
    assert!(!text.contains("Varnish"), "{text}");
    for n in 0..c.calls.get() {
        assert!(
            text.contains(&format!("typed in an editor {n}"))
                || all.contains(&format!("typed in an editor {n}")),
            "{text}"
        );
    }
}
