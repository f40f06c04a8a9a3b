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
    // `auth.md` is not named like an entity file (it would be foreign in the
    // namespace): it is imported under the name a new entity gets, bytes unchanged;
    // `rota.md` likewise.
    assert_eq!(
        std::fs::read_to_string(root.path().join("org/global/decision-001-auth-uses-jwt.md"))
            .unwrap(),
        GOOD,
        "an imported file keeps its bytes"
    );
    assert!(!root.path().join("org/global/auth.md").exists());
    assert!(
        root.path()
            .join("projects/app/risk-004-the-rota-is-thin.md")
            .exists()
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

/// An entity carrying a secret — in its body, a known field, an unknown key, a YAML
/// comment, a list — is not imported: the reason names the kind, the field and the line,
/// never the secret, and the source is untouched. Links to entities that are neither
/// there nor imported in the same run are imported and listed as dangling.
#[test]
fn secrets_are_not_imported_and_dangling_links_are_reported() {
    const KEY: &str = "AKIAZ7QX3RT5WVB2KMNP";
    let head = "---\nentity_name: org.global.decision.00N\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [auth, security]\ncreated_at: 2025-01-01\n";
    let entity = |n: u32, extra: &str, body: &str| {
        format!(
            "{}{extra}---\n\n{body}\n",
            head.replace("00N", &format!("{n:03}"))
        )
    };
    let old = tempfile::tempdir().unwrap();
    let o = old.path();
    let cases = [
        (
            "body.md",
            entity(1, "", &format!("Keys:\n\n{KEY}")),
            "body",
            "aws-access-key",
            12,
        ),
        (
            "crlf.md",
            entity(2, "", &format!("Ключ: {KEY}")).replace('\n', "\r\n"),
            "body",
            "aws-access-key",
            10,
        ),
        (
            "summary.md",
            entity(3, &format!("summary: \"deploy with {KEY}\"\n"), "Fine."),
            "summary",
            "aws-access-key",
            8,
        ),
        (
            "unknown.md",
            entity(4, &format!("owner_key: '{KEY}'\n"), "Fine."),
            "owner_key",
            "aws-access-key",
            8,
        ),
        (
            "comment.md",
            entity(5, &format!("# {KEY}\n"), "Fine."),
            "frontmatter",
            "aws-access-key",
            8,
        ),
        (
            "list.md",
            entity(
                6,
                &format!(
                    "related_entities:\n  - org.global.decision.001\n  # ghp_{}\n",
                    "a".repeat(36)
                ),
                "Fine.",
            ),
            "frontmatter",
            "github-token",
            10,
        ),
        (
            "url.md",
            entity(7, "", "Use https://admin:hunter2hunter2@db.example.com/x"),
            "body",
            "password-in-url",
            10,
        ),
        (
            "tags.md",
            entity(8, "", "Fine.")
                .replace("tags: [auth, security]", &format!("tags: [auth, {KEY}]")),
            "tags",
            "aws-access-key",
            6,
        ),
    ];
    for (file, text, ..) in &cases {
        std::fs::write(o.join(file), text).unwrap();
    }
    // Imported, with links: one to an entity imported in the same run, one to one
    // already there, two to nothing.
    std::fs::write(
        o.join("linked.md"),
        entity(
            20,
            "supersedes: [org.global.decision.021]\nrelated_entities: [org.global.decision.022, project.app.risk.009, org.global.decision.404]\n",
            "Linked.",
        ),
    )
    .unwrap();
    std::fs::write(o.join("target.md"), entity(21, "", "Target.")).unwrap();
    // A body past the hard limit is not imported either.
    let big = "All fine here. ".repeat(memory_core::hygiene::MAX_BODY_BYTES / 10);
    std::fs::write(o.join("huge.md"), entity(30, "", &big)).unwrap();
    let before = walk(o);
    let root = tempfile::tempdir().unwrap();
    let m = ContextMemory::open(root.path()).unwrap();
    std::fs::create_dir_all(root.path().join("org/global")).unwrap();
    let there = m
        .write(
            memory_core::context_memory::NewEntry::new(
                "org.global",
                memory_core::context_memory::Category::Decision,
                ["x", "y"],
                "Already here.",
            )
            .unwrap(),
        )
        .unwrap();
    // One link names the entry already there.
    let linked = std::fs::read_to_string(o.join("linked.md"))
        .unwrap()
        .replace("org.global.decision.022", there.entry.entity_name.as_str());
    std::fs::write(o.join("linked.md"), &linked).unwrap();
    let before = {
        let mut b = before;
        b.insert("linked.md".into(), linked.into_bytes());
        b
    };
    let report = m.migrate(o).unwrap();
    assert_eq!(walk(o), before, "the source is untouched");
    let imported: Vec<&str> = report.imported.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        imported,
        ["org.global.decision.020", "org.global.decision.021"]
    );
    for (file, _, field, kind, line) in &cases {
        let reason = &report
            .not_imported
            .iter()
            .find(|n| n.file == std::path::Path::new(file))
            .unwrap_or_else(|| panic!("{file} was imported: {report:?}"))
            .reason;
        assert!(
            reason.starts_with(&format!(
                "{field} holds a secret ({kind}) on line {line} of the file"
            )),
            "{file}: {reason}"
        );
        assert!(
            !reason.contains(KEY) && !reason.contains("hunter2") && !reason.contains("ghp_"),
            "{reason}"
        );
    }
    let huge = report
        .not_imported
        .iter()
        .find(|n| n.file == std::path::Path::new("huge.md"))
        .unwrap();
    assert!(
        huge.reason.contains("body") && huge.reason.ends_with("not imported"),
        "{}",
        huge.reason
    );
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains(KEY) && !json.contains("hunter2"));
    let dangling: Vec<(&str, &str, &str)> = report
        .dangling_links
        .iter()
        .map(|d| (d.entity.as_str(), d.field, d.target.as_str()))
        .collect();
    assert_eq!(
        dangling,
        [
            (
                "org.global.decision.020",
                "related_entities",
                "project.app.risk.009"
            ),
            (
                "org.global.decision.020",
                "related_entities",
                "org.global.decision.404"
            ),
        ]
    );
    assert!(json.contains("\"dangling_links\":[{\"entity\":\"org.global.decision.020\",\"field\":\"related_entities\",\"target\":\"project.app.risk.009\"}"), "{json}");
    // Nothing with a secret reached the memory.
    let mut found = Vec::new();
    for (name, bytes) in walk(root.path()) {
        if !name.starts_with("archive/") && String::from_utf8_lossy(&bytes).contains(KEY) {
            found.push(name);
        }
    }
    assert!(found.is_empty(), "{found:?}");
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
