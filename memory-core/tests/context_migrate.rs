//! The seed's "Migration from Previous System": the old directory is kept verbatim under
//! `archive/` first, every entity file is imported into its namespace with indexes
//! updated, what cannot be imported is reported with the reason, and the source is never
//! touched.

use memory_core::ErrorKind;
use memory_core::context_memory::{ContextMemory, Namespace, Query};

const GOOD: &str = "---\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [auth, security]\ncreated_at: 2025-01-01\n# kept as written\nowner: bob\n---\n\nAuth uses JWT.\n";
const PROJECT: &str = "---\nentity_name: project.app.risk.004\nnamespace: project.app\ncategory: risk\nstatus: experimental\ntags: [ops, pager]\ncreated_at: 2025-02-01T08:00:00Z\n---\n\nThe rota is thin.\n";

#[test]
fn migration_backs_up_imports_reports_and_keeps_the_source() {
    let old = tempfile::tempdir().unwrap();
    let o = old.path();
    std::fs::create_dir_all(o.join("nested/deeper")).unwrap();
    std::fs::write(o.join("auth.md"), GOOD).unwrap();
    std::fs::write(o.join("nested/deeper/rota.md"), PROJECT).unwrap();
    std::fs::write(o.join("notes.md"), "# Just notes\n\nNo frontmatter here.\n").unwrap();
    std::fs::write(
        o.join("bad.md"),
        GOOD.replace("status: accepted", "status: done"),
    )
    .unwrap();
    std::fs::write(o.join("_index.md"), "# Index: org.global\n").unwrap();
    std::fs::write(o.join("image.png"), [0u8, 159, 146, 150]).unwrap();
    let before = walk(o);

    let root = tempfile::tempdir().unwrap();
    let m = ContextMemory::builder(root.path())
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let report = m.migrate(o).unwrap();

    assert_eq!(walk(o), before, "the source is untouched");
    let backup = root.path().join(&report.backup);
    assert_eq!(walk(&backup), before, "the backup is a verbatim copy");
    let imported: Vec<&str> = report.imported.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        imported,
        ["org.global.decision.001", "project.app.risk.004"]
    );
    assert_eq!(
        std::fs::read_to_string(root.path().join("org/global/auth.md")).unwrap(),
        GOOD,
        "an imported file keeps its bytes"
    );
    let reasons: Vec<(String, String)> = report
        .not_imported
        .iter()
        .map(|n| (n.file.to_string_lossy().into_owned(), n.reason.clone()))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|(f, r)| f == "bad.md" && r.contains("line 5")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(f, r)| f == "notes.md" && r.contains("no YAML frontmatter")),
        "{reasons:?}"
    );
    assert_eq!(report.other_files, 1);
    for ns in ["org.global", "project.app"] {
        assert!(
            !m.verify(&Namespace::parse(ns).unwrap())
                .unwrap()
                .has_drift(),
            "{ns}"
        );
    }
    assert_eq!(m.query(&Query::new().limit(usize::MAX)).unwrap().len(), 2);

    // Migrating again imports nothing twice.
    let again = m.migrate(o).unwrap();
    assert!(again.imported.is_empty());
    assert!(
        again
            .not_imported
            .iter()
            .any(|n| n.reason.contains("already in the memory"))
    );
}

#[test]
fn a_source_that_holds_the_root_or_is_missing_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let m = ContextMemory::open(root.path().join("memory")).unwrap();
    assert_eq!(
        m.migrate(root.path()).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        m.migrate(&root.path().join("nope")).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

fn walk(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}
