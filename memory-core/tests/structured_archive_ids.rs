//! Compaction ids in a hand-edited or joined `memory-archive.md`: an id two compactions
//! share (sections that do not follow one another with one time) is refused by `restore`
//! naming their lines and reported by `check`; a new id is never one the archive holds,
//! whatever headings (parsed or not) and numbers it has.

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory, ViolationKind};
use std::fs;

fn section(id: &str, file: &str, at: &str, line: &str) -> String {
    format!("\n## {id} · evict-dead · {file} · {at}\n\n{line}\n")
}

const HEADER: &str = "# Memory archive\n";

#[test]
fn restore_refuses_an_id_two_compactions_share_and_check_names_it() {
    let t1 = "2026-07-10T09:00:00Z";
    let t2 = "2026-07-11T09:00:00Z";
    // (archive, whether c-20260710-001 is ambiguous)
    let cases = [
        // One compaction's sections: one after another, one time.
        (
            format!(
                "{HEADER}{}{}",
                section("c-20260710-001", "memory-a.md", t1, "- 2026-06-01: a"),
                section("c-20260710-001", "memory-b.md", t1, "- 2026-06-01: b")
            ),
            false,
        ),
        // The same id at another time.
        (
            format!(
                "{HEADER}{}{}",
                section("c-20260710-001", "memory-a.md", t1, "- 2026-06-01: a"),
                section("c-20260710-001", "memory-a.md", t2, "- 2026-06-01: b")
            ),
            true,
        ),
        // The same id and time, another compaction between (a joined archive).
        (
            format!(
                "{HEADER}{}{}{}",
                section("c-20260710-001", "memory-a.md", t1, "- 2026-06-01: a"),
                section("c-20260710-002", "memory-a.md", t1, "- 2026-06-01: x"),
                section("c-20260710-001", "memory-b.md", t1, "- 2026-06-01: b")
            ),
            true,
        ),
    ];
    for (archive, ambiguous) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("memory-archive.md"), &archive).unwrap();
        let m = StructuredMemory::open(d).unwrap();
        let found: Vec<_> = m
            .check()
            .unwrap()
            .into_iter()
            .filter(|v| v.kind == ViolationKind::UnreadableArchive)
            .collect();
        let result = m.restore("c-20260710-001");
        if ambiguous {
            let err = result.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
            assert!(err.to_string().contains("lines 3, "), "{err}");
            assert!(!d.join("memory-a.md").exists(), "nothing restored");
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(found[0].message.contains("also the id"), "{found:?}");
        } else {
            assert_eq!(result.unwrap().restored.len(), 2);
            assert!(found.is_empty(), "{found:?}");
        }
        assert_eq!(
            fs::read_to_string(d.join("memory-archive.md")).unwrap(),
            archive
        );
    }
}

#[test]
fn a_new_id_is_never_one_the_archive_holds() {
    let t = "2026-07-10T09:00:00Z";
    // (section ids the archive holds, the id the next write gets); every archive also
    // holds a heading that does not parse (an unknown pass) with c-20260710-020.
    let nines = "9".repeat(41);
    let big = format!("c-20260710-{nines}");
    let after_big = format!("c-20260710-1{}", "0".repeat(41));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["c-20260710-001"], "c-20260710-021"),
        (vec!["c-20260710-009", "c-20260710-003"], "c-20260710-021"),
        (vec!["c-20260710-999"], "c-20260710-1000"),
        (vec!["c-20260710-0042"], "c-20260710-043"),
        (
            vec!["c-20260710-18446744073709551615"],
            "c-20260710-18446744073709551616",
        ),
        (vec![big.as_str()], after_big.as_str()),
        (vec!["c-20260709-500"], "c-20260710-021"),
        (
            vec!["c-20260710-7x", "c-20260710-", "c-20260710-004"],
            "c-20260710-021",
        ),
    ];
    for (ids, next) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut archive = HEADER.to_string();
        for id in &ids {
            archive.push_str(&section(id, "memory-a.md", t, "- 2026-06-01: a"));
        }
        archive.push_str(
            "\n## c-20260710-020 · no-such-pass · memory-a.md · 2026-07-10T09:00:00Z\n\n- x\n",
        );
        fs::write(d.join("memory-archive.md"), &archive).unwrap();
        let m = StructuredMemory::builder(d)
            .fixed_time("2026-07-10T10:00:00Z")
            .unwrap()
            .open()
            .unwrap();
        m.remember(
            Fact::new("memory-a.md", "Postgres 15")
                .subject("db")
                .date("2026-06-01")
                .hook("db"),
        )
        .unwrap();
        let out = m
            .remember(
                Fact::new("memory-a.md", "Postgres 16")
                    .subject("db")
                    .date("2026-07-01"),
            )
            .unwrap();
        assert_eq!(out.archive_id.as_deref(), Some(next), "{ids:?}");
        assert!(!archive.contains(&format!("## {next} ")), "{ids:?}");
    }
}

#[test]
fn an_id_with_white_space_or_a_control_character_is_refused_before_any_lookup() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("memory-archive.md"),
        format!(
            "{HEADER}{}",
            section(
                "c-20260710-001",
                "memory-a.md",
                "2026-07-10T09:00:00Z",
                "- 2026-06-01: a"
            )
        ),
    )
    .unwrap();
    let m = StructuredMemory::open(d).unwrap();
    for id in [
        "",
        " ",
        "c-20260710-001 ",
        "c\u{1b}[31m",
        "c-2026\u{7}",
        "c\u{85}x",
    ] {
        let err = m.restore(id).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{id:?}: {err}");
        let message = err.to_string();
        assert!(
            message.contains("is not an archive id") && !message.contains('\u{1b}'),
            "{message:?}"
        );
    }
    assert!(!d.join("memory-a.md").exists());
    assert_eq!(
        m.restore("c-20260710-999").unwrap_err().kind(),
        ErrorKind::NotFound
    );
}
