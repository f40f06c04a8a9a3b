//! The split-reuse rule over the whole class of files a part's name can meet: a section
//! goes into an earlier split of itself (the file exists under exactly that name, is a
//! regular file that reads, an index line links it, and that line's title or the file's
//! `# ` heading is the part's title, case folded) — under its matching `##` section or a
//! new one at its end, in that file's line ending — and into a new `-2` file otherwise,
//! leaving whatever held the name byte for byte. A one-entry section goes only into an
//! earlier split. Whatever the shape, no entry is lost or doubled and no file is left that
//! does not read.

mod structured_support;

use std::fs;
use std::path::Path;

use memory_core::structured_memory::{DefaultCompactor, StructuredMemory};

/// The topic compacted: `## Hosts` stays, `## Databases` is the part
/// (`memory-infra-databases.md`, titled `Infra: Databases`).
const INFRA: &str = "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n- 2026-06-02: web2 runs nginx\n\n## Databases\n- 2026-06-03: db1 runs Postgres\n- 2026-06-04: db2 is its replica\n";

/// The same with a one-entry `## Databases`.
const INFRA_ONE: &str = "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n- 2026-06-02: web2 runs nginx\n- 2026-06-05: web3 runs nginx\n\n## Databases\n- 2026-06-03: db1 runs Postgres\n";

const PART: &str = "memory-infra-databases.md";

/// What held the part's name before the compaction.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// Nothing: a new file.
    Free,
    /// An earlier split: linked with the part's title, a `## Databases` section.
    EarlierSplit,
    /// An earlier split whose index line's title differs in case only.
    EarlierSplitOtherCase,
    /// Linked with another title, but its `# ` heading is the part's title.
    EarlierSplitByHeading,
    /// An earlier split without a `## Databases` section: one is added at its end.
    EarlierSplitWithoutSection,
    /// An earlier split in CRLF.
    EarlierSplitCrlf,
    /// An earlier split with a frontmatter block.
    EarlierSplitWithFrontmatter,
    /// Linked, but neither its line's title nor its heading is the part's.
    OtherTopic,
    /// On disk, not linked (an orphan).
    Orphan,
    /// Linked, not on disk (a dangling line).
    Dangling,
    /// Linked under the name in another case (`Memory-Infra-Databases.md`).
    LinkedInOtherCase,
    /// Linked, a symbolic link to an earlier split elsewhere.
    Symlink,
    /// Linked with the part's title, but it does not read (an unclosed frontmatter).
    Unreadable,
}

const SHAPES: &[Shape] = &[
    Shape::Free,
    Shape::EarlierSplit,
    Shape::EarlierSplitOtherCase,
    Shape::EarlierSplitByHeading,
    Shape::EarlierSplitWithoutSection,
    Shape::EarlierSplitCrlf,
    Shape::EarlierSplitWithFrontmatter,
    Shape::OtherTopic,
    Shape::Orphan,
    Shape::Dangling,
    Shape::LinkedInOtherCase,
    Shape::Symlink,
    Shape::Unreadable,
];

const EARLIER: &str = "# Infra: Databases\n\n## Databases\n- 2026-05-01: db0 was retired\n";

/// Writes the directory for `shape` with `topic` as `memory-infra.md`; returns whether the
/// part is expected to go into the existing file.
fn seed(d: &Path, shape: Shape, topic: &str) -> bool {
    fs::write(d.join("memory-infra.md"), topic).unwrap();
    let mut index = String::from("- [Infra](memory-infra.md) — hosts, databases\n");
    let mut link = |title: &str, file: &str| {
        index.push_str(&format!("- [{title}]({file}) — earlier\n"));
    };
    let reused = match shape {
        Shape::Free => false,
        Shape::EarlierSplit => {
            fs::write(d.join(PART), EARLIER).unwrap();
            link("Infra: Databases", PART);
            true
        }
        Shape::EarlierSplitOtherCase => {
            fs::write(d.join(PART), EARLIER).unwrap();
            link("infra: DATABASES", PART);
            true
        }
        Shape::EarlierSplitByHeading => {
            fs::write(d.join(PART), EARLIER).unwrap();
            link("Old databases", PART);
            true
        }
        Shape::EarlierSplitWithoutSection => {
            fs::write(
                d.join(PART),
                "# Infra: Databases\n\n- 2026-05-01: db0 was retired\n",
            )
            .unwrap();
            link("Infra: Databases", PART);
            true
        }
        Shape::EarlierSplitCrlf => {
            fs::write(d.join(PART), EARLIER.replace('\n', "\r\n")).unwrap();
            link("Infra: Databases", PART);
            true
        }
        Shape::EarlierSplitWithFrontmatter => {
            fs::write(
                d.join(PART),
                format!("---\nname: Infra: Databases\ndescription: earlier\n---\n{EARLIER}")
                    .replace("name: Infra: Databases", "name: \"Infra: Databases\""),
            )
            .unwrap();
            link("Infra: Databases", PART);
            true
        }
        Shape::OtherTopic => {
            fs::write(
                d.join(PART),
                "# Something else\n\n- 2026-05-01: unrelated\n",
            )
            .unwrap();
            link("Something else", PART);
            false
        }
        Shape::Orphan => {
            fs::write(d.join(PART), EARLIER).unwrap();
            false
        }
        Shape::Dangling => {
            link("Infra: Databases", PART);
            false
        }
        Shape::LinkedInOtherCase => {
            let other = "Memory-Infra-Databases.md";
            fs::write(d.join(other), EARLIER).unwrap();
            link("Infra: Databases", other);
            false
        }
        Shape::Symlink => {
            fs::create_dir_all(d.join("elsewhere")).unwrap();
            fs::write(d.join("elsewhere/db.md"), EARLIER).unwrap();
            std::os::unix::fs::symlink(d.join("elsewhere/db.md"), d.join(PART)).unwrap();
            link("Infra: Databases", PART);
            false
        }
        Shape::Unreadable => {
            fs::write(d.join(PART), format!("---\nname: x\n{EARLIER}")).unwrap();
            link("Infra: Databases", PART);
            false
        }
    };
    fs::write(d.join("MEMORY.md"), index).unwrap();
    reused
}

/// Every file of the directory (recursively, through no link) with its bytes.
fn files(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(e.path());
            } else if e.file_name() != ".memcore.lock" {
                let name = e.path().strip_prefix(d).unwrap().display().to_string();
                out.push((name, fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn memory(d: &Path, lines: usize) -> StructuredMemory {
    structured_support::memory_at(d, Some(lines))
}

/// The dated lines of every Markdown file of the directory but the archive.
fn live_entries(d: &Path) -> Vec<String> {
    let mut out: Vec<String> = files(d)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".md") && name != "memory-archive.md")
        .flat_map(|(_, bytes)| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .filter(|l| l.starts_with("- 2026-"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_section_goes_into_an_earlier_split_of_itself_and_into_a_new_file_otherwise() {
    for &shape in SHAPES {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let reused = seed(d, shape, INFRA);
        let before = files(d);
        let entries_before = live_entries(d);
        let held = before.iter().find(|(n, _)| n == PART).cloned();
        let m = memory(d, 7);
        let checked_before = m.check().unwrap();
        let report = m
            .compact(Some("memory-infra.md"), &DefaultCompactor, false)
            .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        let index = m.index().unwrap();
        if reused {
            assert!(report.created.is_empty(), "{shape:?}: {:?}", report.created);
            let into = m.topic(PART).unwrap();
            let texts: Vec<&str> = into.entries.iter().map(|e| e.text.as_str()).collect();
            assert_eq!(
                texts,
                ["db0 was retired", "db1 runs Postgres", "db2 is its replica"],
                "{shape:?}"
            );
            // Under its `## Databases`, which the file has or now ends with, once.
            assert_eq!(into.text.matches("## Databases").count(), 1, "{shape:?}");
            let ending = if matches!(shape, Shape::EarlierSplitCrlf) {
                "\r\n"
            } else {
                "\n"
            };
            assert!(
                into.text
                    .contains(&format!("- 2026-06-04: db2 is its replica{ending}")),
                "{shape:?}: {:?}",
                into.text
            );
            if matches!(shape, Shape::EarlierSplitCrlf) {
                assert!(
                    !into.text.replace("\r\n", "").contains('\n'),
                    "{shape:?}: mixed endings"
                );
            }
            assert_eq!(index.lines.len(), 2, "{shape:?}: no second line for it");
        } else {
            let expected = if matches!(shape, Shape::Free) {
                PART.to_string()
            } else {
                "memory-infra-databases-2.md".to_string()
            };
            assert_eq!(report.created, std::slice::from_ref(&expected), "{shape:?}");
            assert_eq!(m.topic(&expected).unwrap().entries.len(), 2, "{shape:?}");
            // Whatever held the name is as it was.
            let after = files(d);
            assert!(
                matches!(shape, Shape::Free)
                    || after.iter().find(|(n, _)| n == PART).cloned() == held,
                "{shape:?}"
            );
            assert!(index.line_for(&expected).is_some(), "{shape:?}");
        }
        // No entry lost or doubled (a split archives nothing), the parent within budget.
        assert_eq!(live_entries(d), entries_before, "{shape:?}");
        assert!(
            m.topic("memory-infra.md").unwrap().line_count <= 7,
            "{shape:?}"
        );
        // Every command still reads the directory; what check reports was there before.
        let after = m.check().unwrap();
        for v in &after {
            // A part over its budget is reported as needing judgment, not hidden.
            let judged = report
                .files
                .iter()
                .any(|f| f.file == v.file && f.needs_judgment.is_some());
            let there_before = checked_before
                .iter()
                .any(|b| b.kind == v.kind && b.file == v.file);
            assert!(
                !v.file.starts_with("memory-infra") || judged || there_before,
                "{shape:?}: the compaction left {v:?} ({report:?})"
            );
        }
    }
}

#[test]
fn a_one_entry_section_goes_only_into_an_earlier_split() {
    for &shape in SHAPES {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let reused = seed(d, shape, INFRA_ONE);
        let entries_before = live_entries(d);
        let m = memory(d, 7);
        let report = m
            .compact(Some("memory-infra.md"), &DefaultCompactor, false)
            .unwrap_or_else(|e| panic!("{shape:?}: {e}"));
        assert!(
            report.created.is_empty(),
            "{shape:?}: a single fact is never a file of its own"
        );
        let parent = m.topic("memory-infra.md").unwrap();
        if reused {
            assert!(
                m.topic(PART)
                    .unwrap()
                    .entries
                    .iter()
                    .any(|e| e.text == "db1 runs Postgres")
            );
            assert!(!parent.text.contains("db1 runs Postgres"), "{shape:?}");
            assert!(report.files[0].needs_judgment.is_none(), "{shape:?}");
        } else {
            assert!(parent.text.contains("db1 runs Postgres"), "{shape:?}");
            let judgment = report.files[0].needs_judgment.as_ref();
            assert!(judgment.is_some(), "{shape:?}: still over budget, said so");
        }
        assert_eq!(live_entries(d), entries_before, "{shape:?}");
    }
}
