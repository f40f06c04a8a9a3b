//! One-key edits of hand-written entity files, pinned by snapshots: the seed's entity
//! and diagram examples, an Obsidian-style file with comments, odd quoting and unknown
//! keys, and a CRLF file with a BOM. Everything but the edited key stays as written.

use memory_core::markdown::{
    Edit, Frontmatter, FrontmatterKeys, LineEnding, ValueStyle, apply_edits, render_frontmatter,
};
use serde_yaml::Value;

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

const SEED_DIAGRAM: &str = "---
entity_name: org.global.diagram.001
namespace: org.global
category: diagram
status: experimental
tags: [memory, flow]
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

How an entry is written: the file first, then its index row.
";

const HAND_EDITED: &str = "---
# Edited in Obsidian; keep my notes.
entity_name: \"project.demo.constraint.007\"   # quoted on purpose
namespace: 'project.demo'
category: constraint
status: experimental  # promote after review
tags:
  - api
  -   rate-limits   # odd spacing kept
aliases: [Rate limits]
cssclass: wide
created_at: 2026-04-03T10:00:00Z
notes: >
  Folded text the user wrote
  over two lines.

---
The API allows 100 requests a minute.
---
A thematic break, not frontmatter.
";

fn edit(text: &str, f: impl FnOnce(&FrontmatterKeys) -> Edit) -> String {
    let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    apply_edits(text, vec![f(&keys)])
}

fn strings(items: &[&str]) -> Value {
    Value::Sequence(items.iter().map(|s| Value::from(*s)).collect())
}

/// Supersession as the seed has it: the old entry is marked superseded with
/// `updated_at`; the new one lists what it supersedes.
#[test]
fn supersession_edits_the_seed_entity() {
    let text = SEED_ENTITY;
    let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    let out = apply_edits(
        text,
        vec![
            keys.set(text, "status", &"superseded".into()).unwrap(),
            keys.set(text, "updated_at", &"2026-05-01T09:30:00Z".into())
                .unwrap(),
            keys.set(text, "supersedes", &strings(&["org.global.decision.000"]))
                .unwrap(),
        ],
    );
    insta::assert_snapshot!("seed_entity_superseded", out);
    let map = Frontmatter::locate(&out)
        .unwrap()
        .unwrap()
        .mapping(&out)
        .unwrap();
    assert_eq!(map["status"].as_str(), Some("superseded"));
    assert_eq!(
        map["supersedes"][0].as_str(),
        Some("org.global.decision.000")
    );
}

#[test]
fn diagram_code_is_replaced_as_a_literal_block() {
    let code = "sequenceDiagram\n  Agent->>Core: write(entry)\n  Core-->>Agent: \"ok: id\"\n";
    let out = edit(SEED_DIAGRAM, |k| {
        k.set(SEED_DIAGRAM, "diagram_code", &code.into()).unwrap()
    });
    insta::assert_snapshot!("seed_diagram_code_replaced", out);
    let map = Frontmatter::locate(&out)
        .unwrap()
        .unwrap()
        .mapping(&out)
        .unwrap();
    assert_eq!(map["diagram_code"].as_str(), Some(code));
    assert!(
        out.ends_with("\n---\n\nHow an entry is written: the file first, then its index row.\n")
    );
}

#[test]
fn hand_edited_file_keeps_comments_quoting_and_unknown_keys() {
    let text = HAND_EDITED;
    let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    let tags = keys.get(text, "tags").unwrap();
    assert_eq!(tags.style, ValueStyle::BlockSequence { indent: 2, gap: 1 });
    let out = apply_edits(
        text,
        vec![
            keys.set(text, "status", &"accepted".into()).unwrap(),
            keys.set(text, "entity_name", &"project.demo.constraint.008".into())
                .unwrap(),
            keys.set(
                text,
                "tags",
                &strings(&["api", "rate-limits", "quota: hard"]),
            )
            .unwrap(),
            keys.set_after(
                text,
                "updated_at",
                &"2026-05-01T09:30:00Z".into(),
                "created_at",
            )
            .unwrap(),
            keys.remove(text, "cssclass").unwrap().unwrap(),
        ],
    );
    insta::assert_snapshot!("hand_edited_promoted", out);
    assert!(out.contains("# Edited in Obsidian; keep my notes.\n"));
    assert!(out.contains("namespace: 'project.demo'\n"));
    assert!(out.contains("notes: >\n  Folded text the user wrote\n  over two lines.\n\n---\n"));
}

#[test]
fn crlf_and_bom_survive_adding_and_removing() {
    let text = SEED_ENTITY.replace('\n', "\r\n");
    let text = format!("\u{feff}{text}");
    let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
    let out = apply_edits(
        &text,
        vec![
            keys.remove(&text, "rationale").unwrap().unwrap(),
            keys.set(&text, "confidence", &Value::from(0.75)).unwrap(),
            keys.set(&text, "x-reviewed-by", &"Ana María".into())
                .unwrap(),
            keys.set(&text, "notes", &"line one\nline two\n".into())
                .unwrap(),
        ],
    );
    assert!(out.starts_with('\u{feff}'));
    assert!(
        !out.replace("\r\n", "").contains('\n'),
        "a bare LF: {out:?}"
    );
    insta::assert_snapshot!("seed_entity_crlf_bom_edited", out.replace('\r', "␍"));
}

#[test]
fn a_new_entity_file_is_rendered_in_the_seed_layout() {
    let entries = [
        ("entity_name", Value::from("org.global.decision.002")),
        ("namespace", Value::from("org.global")),
        ("category", Value::from("decision")),
        ("status", Value::from("experimental")),
        ("tags", strings(&["auth", "sso"])),
        ("created_at", Value::from("2026-04-03T10:00:00Z")),
        (
            "rationale",
            Value::from("Users asked: one login for all tools"),
        ),
        ("supersedes", strings(&[])),
        ("confidence", Value::from(0.8)),
        ("diagram_code", Value::from("flowchart TD\n  A --> B\n")),
    ];
    let block = render_frontmatter(&entries, LineEnding::Lf);
    insta::assert_snapshot!("new_entity_frontmatter", block);
    let map = Frontmatter::locate(&block)
        .unwrap()
        .unwrap()
        .mapping(&block)
        .unwrap();
    for (key, value) in &entries {
        assert_eq!(&map[*key], value, "{key}");
    }
}

#[test]
fn huge_values_are_scanned_and_replaced() {
    let code: String = (0..20_000).map(|i| format!("  A{i} --> B{i}\n")).collect();
    let text = format!("---\nstatus: accepted\ndiagram_code: |\n{code}tags: [a, b]\n---\nbody\n");
    let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
    let entry = keys.get(&text, "diagram_code").unwrap();
    assert_eq!(entry.raw_value(&text).len(), 2 + code.len());
    let map = keys.mapping(&text).unwrap();
    assert_eq!(
        map["diagram_code"].as_str().map(str::len),
        Some(code.len() - 40_000)
    );
    let out = apply_edits(
        &text,
        vec![keys.set(&text, "status", &"superseded".into()).unwrap()],
    );
    assert_eq!(out.len(), text.len() + 2);
    let long = "x".repeat(300_000);
    let out = apply_edits(
        &text,
        vec![keys.set(&text, "tags", &strings(&[&long])).unwrap()],
    );
    let map = Frontmatter::locate(&out)
        .unwrap()
        .unwrap()
        .mapping(&out)
        .unwrap();
    assert_eq!(map["tags"][0].as_str().map(str::len), Some(300_000));
}

#[test]
fn errors_name_the_file_line_after_a_bom_and_crlf() {
    let text = "\u{feff}---\r\nstatus: accepted\r\ntags: [a,\r\nb: c: d\r\n---\r\n";
    let fm = Frontmatter::locate(text).unwrap().unwrap();
    let issue = fm.mapping(text).unwrap_err();
    assert_eq!(issue.line, 4, "{issue:?}");
    let issue = FrontmatterKeys::read("\u{feff}---\r\na: 1\r\n\r\na: 2\r\n---\r\n").unwrap_err();
    assert_eq!(
        (issue.line, issue.message.as_str()),
        (4, "duplicate key `a` (first on line 2)")
    );
}

proptest::proptest! {
    /// Any text at all: reading, mapping and editing never panic, and an edit of a
    /// readable block is applied inside the block.
    #[test]
    fn any_text_never_panics(body in "\\PC{0,80}", yaml in "[\\PC\n]{0,80}") {
        let text = format!("---\n{yaml}\n---\n{body}");
        let _ = Frontmatter::locate(&text).map(|fm| fm.map(|fm| fm.mapping(&text)));
        if let Ok(Some(keys)) = FrontmatterKeys::read(&text) {
            let _ = keys.mapping(&text);
            for e in &keys.entries {
                let name = e.name(&text).into_owned();
                if let Ok(edit) = keys.set(&text, &name, &Value::from("new")) {
                    proptest::prop_assert!(edit.range.end <= keys.frontmatter.yaml.end);
                }
                let _ = keys.remove(&text, &name);
            }
        }
    }
}
