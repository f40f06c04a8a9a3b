//! `restore` of an archive id a hand edit duplicated: an identical copy of a section (or
//! of a whole compaction) is restored once and named in the warnings; copies that differ
//! are refused naming the heading line of each; a line the section holds twice comes back
//! once. The archive is never changed, and no fact is lost or doubled.

use std::fs;
use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory, parse_archive};

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// A memory where one merge archived `- 2026-06-01 [db]: Postgres 15` from
/// `memory-infra.md` under the returned id, and a second merge (another id) archived
/// `- 2026-06-02 [web]: nginx 1.24`.
fn archived(d: &Path) -> (StructuredMemory, String) {
    let m = memory(d);
    m.remember(
        Fact::new("memory-infra.md", "Postgres 15")
            .subject("db")
            .date("2026-06-01")
            .hook("databases and hosts"),
    )
    .unwrap();
    m.remember(
        Fact::new("memory-infra.md", "nginx 1.24")
            .subject("web")
            .date("2026-06-02"),
    )
    .unwrap();
    let first = m
        .remember(
            Fact::new("memory-infra.md", "Postgres 16")
                .subject("db")
                .date("2026-07-01"),
        )
        .unwrap();
    m.remember(
        Fact::new("memory-infra.md", "nginx 1.26")
            .subject("web")
            .date("2026-07-02"),
    )
    .unwrap();
    (m, first.archive_id.unwrap())
}

fn read(d: &Path, file: &str) -> String {
    fs::read_to_string(d.join(file)).unwrap()
}

/// The archive's section of `id`, as its text (heading to the next heading).
fn section_text(archive: &str, id: &str) -> String {
    let start = archive.find(&format!("\n## {id} ")).unwrap();
    let rest = &archive[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 4);
    format!("\n{}", &rest[..end])
}

fn count(text: &str, line: &str) -> usize {
    text.lines().filter(|l| *l == line).count()
}

const OLD: &str = "- 2026-06-01 [db]: Postgres 15";

#[test]
fn a_section_pasted_twice_in_a_row_is_restored_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, id) = archived(d);
    let archive = read(d, "memory-archive.md");
    let section = section_text(&archive, &id);
    let doubled = archive.replacen(&section, &format!("{section}{section}"), 1);
    fs::write(d.join("memory-archive.md"), &doubled).unwrap();
    let lines: Vec<usize> = parse_archive(&doubled)
        .iter()
        .filter(|s| s.id == id)
        .map(|s| s.line)
        .collect();
    assert_eq!(lines.len(), 2);

    let report = m.restore(&id).unwrap();
    assert_eq!(report.restored.len(), 1, "{report:?}");
    assert_eq!(report.restored[0].lines, [OLD]);
    assert!(
        report.warnings.iter().any(|w| w.contains(&format!(
            "line {}: the section is an identical copy of the one at line {}",
            lines[1], lines[0]
        ))),
        "{:?}",
        report.warnings
    );
    assert_eq!(count(&read(d, "memory-infra.md"), OLD), 1);
    assert_eq!(read(d, "memory-archive.md"), doubled);
    // Again: already live, nothing doubled.
    let again = m.restore(&id).unwrap();
    assert!(again.restored[0].lines.is_empty());
    assert_eq!(count(&read(d, "memory-infra.md"), OLD), 1);
}

#[test]
fn an_identical_copy_of_a_compaction_elsewhere_is_restored_once_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, id) = archived(d);
    let archive = read(d, "memory-archive.md");
    let copied = format!("{archive}{}", section_text(&archive, &id));
    fs::write(d.join("memory-archive.md"), &copied).unwrap();
    let lines: Vec<usize> = parse_archive(&copied)
        .iter()
        .filter(|s| s.id == id)
        .map(|s| s.line)
        .collect();
    // `check` still reports the id as reused, so that the copy is removed by hand.
    assert!(
        m.check()
            .unwrap()
            .iter()
            .any(|v| v.kind.as_str() == "unreadable_archive" && v.message.contains("also the id"))
    );

    let report = m.restore(&id).unwrap();
    assert_eq!(report.restored.len(), 1, "{report:?}");
    assert_eq!(report.restored[0].lines, [OLD]);
    assert!(
        report.warnings.iter().any(|w| w.contains(&format!(
            "holds the same compaction {id} 2 times, identical (sections starting at lines {}, {}): restored once, from line {}",
            lines[0], lines[1], lines[0]
        ))),
        "{:?}",
        report.warnings
    );
    assert_eq!(count(&read(d, "memory-infra.md"), OLD), 1);
    assert_eq!(read(d, "memory-archive.md"), copied);
}

#[test]
fn copies_that_differ_are_refused_naming_both_lines_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, id) = archived(d);
    let archive = read(d, "memory-archive.md");
    let section = section_text(&archive, &id);
    let edited = section.replace("Postgres 15", "Postgres 15.2");
    for text in [
        // An edited copy at the end.
        format!("{archive}{edited}"),
        // An edited copy in a row (one compaction's run of sections): the two sections
        // differ, so both are restored as archived — different facts, neither dropped.
        archive.replacen(&section, &format!("{section}{edited}"), 1),
    ] {
        fs::write(d.join("memory-archive.md"), &text).unwrap();
        let before = read(d, "memory-infra.md");
        let lines: Vec<usize> = parse_archive(&text)
            .iter()
            .filter(|s| s.id == id)
            .map(|s| s.line)
            .collect();
        let in_a_row = lines[1] < parse_archive(&text).iter().map(|s| s.line).max().unwrap();
        if in_a_row {
            let report = m.restore(&id).unwrap();
            let back: Vec<&String> = report.restored.iter().flat_map(|r| &r.lines).collect();
            assert_eq!(back, [OLD, "- 2026-06-01 [db]: Postgres 15.2"]);
            continue;
        }
        let err = m.restore(&id).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("invalid archive id \"{id}\"")),
            "{err}"
        );
        assert!(
            err.to_string().contains(&format!(
                "holds 2 compactions with this id (sections starting at lines {}, {})",
                lines[0], lines[1]
            )),
            "{err}"
        );
        assert_eq!(read(d, "memory-infra.md"), before);
        assert_eq!(read(d, "memory-archive.md"), text);
    }
}

#[test]
fn a_line_the_section_holds_twice_comes_back_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, id) = archived(d);
    let archive = read(d, "memory-archive.md");
    let section = section_text(&archive, &id);
    let doubled_line = section.replacen(OLD, &format!("{OLD}\n{OLD}"), 1);
    let text = archive.replacen(&section, &doubled_line, 1);
    fs::write(d.join("memory-archive.md"), &text).unwrap();
    let report = m.restore(&id).unwrap();
    assert_eq!(report.restored[0].lines, [OLD]);
    assert_eq!(report.restored[0].already_live, [OLD]);
    assert_eq!(count(&read(d, "memory-infra.md"), OLD), 1);
}
