//! A secret someone else wrote into the memory (a hand edit, another tool): `check`
//! reports it by file and line without showing it — in a topic, `MEMORY.md` and the
//! archive — and a write that replaces the entry says that the archive now holds it.

use memory_core::structured_memory::{Fact, StructuredMemory};

const KEY: &str = "AKIAZ7QX3RT5WVB2KMNP";

#[test]
fn check_reports_every_secret_at_its_line_and_a_replacing_write_warns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        format!("- [K](memory-k.md) — keys such as {KEY}\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("memory-k.md"),
        format!("# K\n\n- 2026-01-01 [k]: key {KEY}\n- 2026-01-02: fine\n"),
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let found: Vec<(String, usize)> = m
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "secret")
        .inspect(|v| assert!(!v.message.contains(KEY), "{}", v.message))
        .map(|v| (v.file, v.line))
        .collect();
    assert_eq!(
        found,
        [("MEMORY.md".to_string(), 1), ("memory-k.md".to_string(), 3)]
    );
    let out = m
        .remember(Fact::new("memory-k.md", "rotated").subject("k"))
        .unwrap();
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("secret") && w.contains("memory-archive.md") && !w.contains(KEY)),
        "{:?}",
        out.warnings
    );
    let after: Vec<(String, usize)> = m
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "secret")
        .map(|v| (v.file, v.line))
        .collect();
    assert_eq!(after.len(), 2, "{after:?}");
    assert_eq!(after[0].0, "MEMORY.md");
    assert_eq!(after[1].0, "memory-archive.md");
}
