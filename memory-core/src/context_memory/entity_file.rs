//! An entity file as a whole: the one reader (frontmatter located and scanned, parsed by
//! YAML, the schema checked, every refusal at its file line) and the text of a new file.

use std::path::{Path, PathBuf};

use serde_yaml::Value;

use super::entity::{Entry, FieldProblem, read_entry};
use super::entry::{Diagram, NewEntry};
use super::index_file::IndexRow;
use super::names::EntityName;
use super::namespace::Namespace;
use crate::error::{Error, Result};
use crate::markdown::{FrontmatterKeys, LineEnding, ParseIssue, render_frontmatter};

/// An entity file read whole: the text, its located keys, and the entry they make.
#[derive(Debug, Clone)]
pub(crate) struct EntityFile {
    pub path: PathBuf,
    pub text: String,
    pub keys: FrontmatterKeys,
    pub entry: Entry,
}

impl EntityFile {
    /// The one reader of entity files. `rel` is the file relative to the root (what the
    /// entry reports); `summary` the index row's, when there is one.
    pub fn parse(
        path: &Path,
        rel: PathBuf,
        text: String,
        namespace: &Namespace,
        summary: Option<String>,
    ) -> Result<EntityFile> {
        let at = |issue: ParseIssue| issue.at(path);
        let keys = FrontmatterKeys::read(&text).map_err(at)?.ok_or_else(|| {
            Error::malformed(
                path,
                1,
                "an entity file starts with YAML frontmatter between --- lines; this one has none",
            )
        })?;
        let map = keys.fields_ref(&text).map_err(at)?;
        let body = keys.frontmatter.body(&text);
        let entry = read_entry(&map, body, namespace, rel, summary)
            .map_err(|p| problem_at(path, &keys, &text, p))?;
        Ok(EntityFile {
            path: path.to_path_buf(),
            text,
            keys,
            entry,
        })
    }

    /// The entry of `text` (the file `rel` gives, relative to the root, of
    /// `namespace`'s directory; no index summary) and the line that names its entity,
    /// without keeping the text or its keys (verify): the usual file by the typed scan
    /// (`entity_lines.rs`), any other by [`EntityFile::parse`] (with the path `path`
    /// gives, for its errors). Both give the same entry, or the same error (a proptest
    /// in `entity_lines.rs`).
    pub fn read_entry(
        path: impl FnOnce() -> PathBuf,
        rel: impl Fn() -> PathBuf,
        text: String,
        namespace: &Namespace,
    ) -> Result<(Entry, usize)> {
        if let Some(read) =
            super::entity_lines::read_usual(&text, namespace, |f| f.into_entry(rel(), None))
        {
            return Ok(read);
        }
        let file = EntityFile::parse(&path(), rel(), text, namespace, None)?;
        let line = file.entity_line();
        Ok((file.entry, line))
    }

    /// The index row of `text` (the file `file_name` of `namespace`'s directory, `rel`
    /// relative to the root) and the line that names its entity (heal): the row
    /// [`EntityFile::read_entry`]'s entry makes, without the entry's copies of the
    /// texts a row does not show.
    pub fn read_row(
        path: impl FnOnce() -> PathBuf,
        rel: impl FnOnce() -> PathBuf,
        file_name: &str,
        text: String,
        namespace: &Namespace,
    ) -> Result<(IndexRow, usize)> {
        if let Some(read) = super::entity_lines::read_usual(&text, namespace, |f| {
            super::heal::row_of_fields(f, file_name.to_string())
        }) {
            return Ok(read);
        }
        let file = EntityFile::parse(&path(), rel(), text, namespace, None)?;
        let line = file.entity_line();
        Ok((super::heal::row_from(file.entry), line))
    }

    /// The line of the file's `entity_name` (1 when it has none).
    pub fn entity_line(&self) -> usize {
        self.keys
            .get(&self.text, "entity_name")
            .map_or(1, |e| e.line)
    }

    /// Reads the file at `path`.
    pub fn load(
        path: &Path,
        rel: PathBuf,
        namespace: &Namespace,
        summary: Option<String>,
    ) -> Result<EntityFile> {
        let text = crate::durable::read_text(path)?;
        Self::parse(path, rel, text, namespace, summary)
    }
}

/// A schema refusal as `Malformed` at its key's line (the block's first line when the
/// key is missing).
fn problem_at(path: &Path, keys: &FrontmatterKeys, text: &str, p: FieldProblem) -> Error {
    let line = p
        .key
        .and_then(|k| keys.get(text, k))
        .map_or(keys.frontmatter.yaml_line.saturating_sub(1).max(1), |e| {
            e.line
        });
    Error::malformed(path, line, p.message)
}

/// The text of a new entity file: the seed's keys in the seed's order (only those that
/// have a value, and always `supersedes` and `updated_at` as in the seed's example), then
/// a blank line and the body.
pub(crate) fn render_new(name: &EntityName, entry: &NewEntry, created_at: &str) -> String {
    let text = |s: &str| Value::from(s);
    let list = |names: &[EntityName]| {
        Value::Sequence(names.iter().map(|n| Value::from(n.as_str())).collect())
    };
    let mut keys: Vec<(&str, Value)> = vec![
        ("entity_name", text(name.as_str())),
        ("namespace", text(entry.namespace.as_str())),
        ("category", text(entry.category.as_str())),
        ("status", text(entry.status.as_str())),
        (
            "tags",
            Value::Sequence(
                super::entry::clean_tags(entry.tags.iter().map(String::as_str))
                    .into_iter()
                    .map(Value::from)
                    .collect(),
            ),
        ),
        ("created_at", text(created_at)),
    ];
    if let Some(r) = &entry.rationale {
        keys.push(("rationale", text(r.trim())));
    }
    keys.push(("supersedes", list(&entry.supersedes)));
    if let Some(c) = entry.confidence {
        keys.push(("confidence", Value::from(c)));
    }
    if let Some(s) = &entry.source_path {
        keys.push(("source_path", text(s.trim())));
    }
    keys.push(("updated_at", text(created_at)));
    if let Some(Diagram {
        language,
        diagram_type,
        subject,
        code,
    }) = &entry.diagram
    {
        keys.push(("diagram_language", text(language.trim())));
        keys.push(("diagram_type", text(diagram_type.trim())));
        keys.push(("diagram_subject", text(subject.trim())));
        // As given: the renderer's chomping indicator (`|`, `|-`, `|+`) keeps the final
        // line breaks exact, so the code reads back byte for byte.
        keys.push(("diagram_code", Value::from(code.as_str())));
    }
    if !entry.related_entities.is_empty() {
        keys.push(("related_entities", list(&entry.related_entities)));
    }
    let mut out = render_frontmatter(&keys, LineEnding::Lf);
    out.push('\n');
    out.push_str(&body_text(&entry.body, LineEnding::Lf));
    out.push('\n');
    out
}

/// A body as an entity file of line ending `le` holds it: trimmed, every line ended by
/// `le` (a body given with `\r\n` or `\n` does not mix endings into the file).
pub(super) fn body_text(body: &str, le: LineEnding) -> String {
    let body = body.trim().replace("\r\n", "\n");
    match le {
        LineEnding::Lf => body,
        LineEnding::CrLf => body.replace('\n', "\r\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context_memory::{Category, EntryStatus};

    #[test]
    fn a_new_file_reads_back_as_written() {
        let name = EntityName::parse("org.global.decision.001").unwrap();
        let new = NewEntry::new(
            "org.global",
            Category::Decision,
            ["auth", "security"],
            "Auth uses JWT. Tokens are verified with RS256.",
        )
        .unwrap()
        .rationale("Stateless: scales out")
        .confidence(0.9)
        .source_path("docs:global/decisions/auth-flow.md");
        let text = render_new(&name, &new, "2026-04-03T10:00:00Z");
        insta::assert_snapshot!("entity_file", text);
        let file = EntityFile::parse(
            Path::new("decision-001-auth.md"),
            PathBuf::from("org/global/decision-001-auth.md"),
            text,
            &Namespace::org_global(),
            None,
        )
        .unwrap();
        assert_eq!(file.entry.entity_name, name);
        assert_eq!(file.entry.status, EntryStatus::Accepted);
        assert_eq!(
            file.entry.rationale.as_deref(),
            Some("Stateless: scales out")
        );
        assert_eq!(
            file.entry.body,
            "Auth uses JWT. Tokens are verified with RS256."
        );
    }

    #[test]
    fn a_new_diagram_keeps_its_code_in_the_frontmatter() {
        let name = EntityName::parse("org.global.diagram.001").unwrap();
        let new = NewEntry::new(
            "org.global",
            Category::Diagram,
            ["memory", "flow"],
            "How a write reaches the index.",
        )
        .unwrap()
        .diagram(Diagram::mermaid(
            "flowchart",
            "memory-write-flow",
            "flowchart TD\n  A[Start] --> B[Write file]\n  B --> C[Update index]\n",
        ))
        .related(EntityName::parse("org.global.decision.001").unwrap());
        let text = render_new(&name, &new, "2026-04-03T10:00:00Z");
        insta::assert_snapshot!("diagram_entity_file", text);
        let file = EntityFile::parse(
            Path::new("d.md"),
            PathBuf::from("d.md"),
            text,
            &Namespace::org_global(),
            None,
        )
        .unwrap();
        assert_eq!(
            file.entry.diagram.unwrap().code,
            "flowchart TD\n  A[Start] --> B[Write file]\n  B --> C[Update index]\n"
        );
    }

    #[test]
    fn diagram_code_reads_back_exactly_whatever_its_line_breaks() {
        let name = EntityName::parse("org.global.diagram.001").unwrap();
        for code in [
            "graph TD; A-->B",
            "flowchart TD\n  A --> B",
            "flowchart TD\n  A --> B\n",
            "flowchart TD\n  A --> B\n\n",
            "  indented first line\nsecond",
            "sequenceDiagram\n\n  A->>B: hi\n",
            "x: y # not a comment\n- not a list",
        ] {
            let new = NewEntry::new("org.global", Category::Diagram, ["a", "b"], "Body.")
                .unwrap()
                .diagram(Diagram::mermaid("flowchart", "s", code));
            let text = render_new(&name, &new, "2026-04-03T10:00:00Z");
            let file = EntityFile::parse(
                Path::new("d.md"),
                PathBuf::from("d.md"),
                text.clone(),
                &Namespace::org_global(),
                None,
            )
            .unwrap();
            assert_eq!(file.entry.diagram.unwrap().code, code, "{text}");
        }
    }

    #[test]
    fn refusals_name_the_file_line() {
        let text = "---\nentity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: done\ntags: [a, b]\ncreated_at: 2026-04-03T10:00:00Z\n---\nBody\n";
        let err = EntityFile::parse(
            Path::new("x.md"),
            PathBuf::new(),
            text.to_string(),
            &Namespace::org_global(),
            None,
        )
        .unwrap_err();
        assert_eq!(
            (err.kind(), err.line()),
            (crate::ErrorKind::Malformed, Some(5)),
            "{err}"
        );
        let err = EntityFile::parse(
            Path::new("x.md"),
            PathBuf::new(),
            "# just prose\n".into(),
            &Namespace::org_global(),
            None,
        )
        .unwrap_err();
        assert_eq!(err.line(), Some(1));
        let broken = "---\nentity_name: [unclosed\n---\n";
        let err = EntityFile::parse(
            Path::new("x.md"),
            PathBuf::new(),
            broken.into(),
            &Namespace::org_global(),
            None,
        )
        .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Malformed);
        assert!(err.line().is_some_and(|l| l >= 2), "{err}");
    }
}

/// The entity reader on the block's lookup list ([`FrontmatterKeys::fields`]) gives
/// exactly the verdicts and messages it gives on the block's full mapping
/// ([`FrontmatterKeys::mapping`], itself checked against serde_yaml), over hand-kept
/// frontmatter: every quoting style, lists both ways, comments, keys twice, aliases,
/// unknown keys, wrong values, CRLF and a BOM.
#[cfg(test)]
mod reference {
    use super::*;
    use crate::markdown::{Fields, FieldsRef};
    use proptest::prelude::*;

    /// Lines per key: good and bad spellings of its value.
    const LINES: &[&[&str]] = &[
        &[
            "entity_name: org.global.decision.001",
            "entity_name: 'org.global.decision.001'",
            "\"entity_name\": \"org.global.decision.001\" # quoted key",
            "entity_name: org.global.risk.001",
            "entity_name:",
            "entity_name: [org.global.decision.001]",
            "entity_name: \"org.global.decision.\\u0030\\x301\"",
            "entity_name:\torg.global.decision.001\t# tab",
            "entity_name: !!str org.global.decision.001",
            "entity_name: |\n  org.global.decision.001",
        ],
        &[
            "namespace: org.global",
            "namespace: \"org.global\"",
            "namespace: org.security",
            "namespace: &ns org.global",
            "namespace: ~",
            "namespace: 'org.global'   ",
            "namespace:\n  org.global",
            "namespace: null",
        ],
        &[
            "category: decision",
            "category: 'decision'  # c",
            "category: Decision",
            "category: 12",
            "category: \"decision\"\t",
            "category: true",
        ],
        &[
            "status: accepted",
            "status: experimental",
            "status: \"superseded\"",
            "status: done",
            "status: true",
        ],
        &[
            "tags: [auth, security]",
            "tags: ['登入', \"it's\", auth]",
            "tags:\n  - auth\n  - security # c",
            "tags:\r\n- a\r\n- b",
            "tags: auth, security",
            "tags: [auth]",
            "tags: [auth, auth]",
            "tags: [a, [b]]",
            "tags: *ns",
            "tags: ['a, b', \"c\"]",
            "tags: 'auth, security'",
            "tags: [登入, 認證, 登入]",
            "tags: [1, 2.5, true, null, ~]",
            "tags: [\"a\\tb\", 'it''s']",
            "tags:\n  - [a]\n  - b",
            "tags:\n- 'x'\n- \"y\"\n-  z",
            "tags: []",
            "tags:",
            "tags: [ a , b , ]",
            "tags: {a: 1}",
        ],
        &[
            "created_at: 2026-04-03T10:00:00Z",
            "created_at: 2026-04-03",
            "created_at: '2026-04-03T10:00:00+08:00'",
            "created_at: yesterday",
        ],
        &[
            "rationale: Stateless, scales out",
            "rationale: \"a: b\"",
            "rationale: Stateless: scales",
            "rationale: |\n  two\n  lines",
            "rationale: >-\n  folded\n  text",
            "rationale: plain\n  continued",
            "rationale: ''",
            "rationale: \"   \"",
            "rationale: 'it''s fine'",
            "rationale: \"esc \\\" quote \\u00e9\"",
            "rationale: 理由は単純です",
            "rationale: 0.5",
            "rationale: True",
            "rationale: [a, b]",
        ],
        &[
            "supersedes: []",
            "supersedes: [org.global.decision.000]",
            "supersedes: [not a name]",
        ],
        &[
            "confidence: 0.9",
            "confidence: 1",
            "confidence: 1.5",
            "confidence: high",
            "confidence: .5",
            "confidence: 1e-1",
            "confidence: '0.9'",
            "confidence: ~",
            "confidence: !!float 0.5",
            "confidence: -0",
            "confidence: [0.5]",
            "confidence: 0.95 # sure",
        ],
        &[
            "source_path: docs:global/a.md",
            "source_path: 'docs:x#y'",
            "source_path: http://example.com/a#b",
            "source_path: \"\"",
            "source_path: C:\\docs\\a.md",
        ],
        &[
            "updated_at: 2026-05-01T09:30:00Z",
            "updated_at:",
            "updated_at: soon",
        ],
        &[
            "diagram_code: |\n  flowchart TD\n    A --> B",
            "diagram_language: mermaid",
        ],
        &[
            "related_entities: [org.global.decision.002]",
            "related_entities:\n  - org.global.pattern.001",
        ],
        &[
            "x_custom: {a: 1, b: [2, 3]}",
            "x_custom: !!str 001",
            "x_custom: &x [1]\nx_other: *x",
            "# a comment line",
            "",
            "notes:\n  sub: 1\n  deep:\n    - z",
            "'status': deprecated",
            "1: one",
            "true: yes",
            "\"x y\": 'z'",
            "x_tab:\tvalue\t",
            "x_unicode: 登入 ✓ é",
            "x_empty: ''",
            "x_block: >+\n  kept\n\n",
            "? complex\n: value",
            "x_bad: [unclosed",
            "x_colon: a: b",
        ],
    ];

    fn text_of(picks: &[(usize, usize)], crlf: bool, bom: bool) -> String {
        let mut yaml = String::new();
        for &(key, line) in picks {
            let lines = LINES[key % LINES.len()];
            yaml.push_str(lines[line % lines.len()]);
            yaml.push('\n');
        }
        let text = format!("---\n{yaml}---\n\nAuth uses JWT. Tokens last an hour.\n");
        let text = if crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        };
        if bom { format!("\u{feff}{text}") } else { text }
    }

    /// The reader as it was: the full mapping.
    fn by_mapping(text: &str) -> Result<Entry> {
        let path = Path::new("x.md");
        let keys = FrontmatterKeys::read(text)
            .map_err(|i| i.at(path))?
            .ok_or_else(|| Error::malformed(path, 1, "none"))?;
        let map = FieldsRef::from(Fields::from(keys.mapping(text).map_err(|i| i.at(path))?));
        let body = keys.frontmatter.body(text);
        read_entry(
            &map,
            body,
            &Namespace::org_global(),
            PathBuf::from("x.md"),
            None,
        )
        .map_err(|p| problem_at(path, &keys, text, p))
    }

    /// The reader before values were borrowed: every value built as a serde_yaml
    /// `Value` ([`FrontmatterKeys::fields`]) and the schema read from those.
    fn by_values(text: &str) -> Result<Entry> {
        let path = Path::new("x.md");
        let keys = FrontmatterKeys::read(text)
            .map_err(|i| i.at(path))?
            .ok_or_else(|| Error::malformed(path, 1, "none"))?;
        let map = FieldsRef::from(keys.fields(text).map_err(|i| i.at(path))?);
        let body = keys.frontmatter.body(text);
        read_entry(
            &map,
            body,
            &Namespace::org_global(),
            PathBuf::from("x.md"),
            None,
        )
        .map_err(|p| problem_at(path, &keys, text, p))
    }

    fn parsed(text: &str) -> std::result::Result<Entry, (crate::ErrorKind, Option<usize>, String)> {
        EntityFile::parse(
            Path::new("x.md"),
            PathBuf::from("x.md"),
            text.to_string(),
            &Namespace::org_global(),
            None,
        )
        .map(|f| f.entry)
        .map_err(|e| (e.kind(), e.line(), e.to_string()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// The borrowed reader accepts and refuses exactly what the reader over built
        /// values does — the same entry, or the same error kind, file, line and message —
        /// over hostile frontmatter (CRLF, a BOM, tabs, comments, every quoting, odd and
        /// repeated keys, Unicode, empty values, a huge value).
        #[test]
        fn borrowed_values_read_as_built_values(
            picks in prop::collection::vec((0..LINES.len(), 0..64usize), 0..18),
            crlf in any::<bool>(),
            bom in any::<bool>(),
            huge in 0usize..4,
        ) {
            let mut picks = picks;
            if picks.len() > 4 {
                for (i, pick) in picks.iter_mut().enumerate().take(LINES.len() - 1) {
                    pick.0 = i;
                }
            }
            let mut text = text_of(&picks, crlf, bom);
            if huge > 0 {
                // A value of 64 KiB or more, plain, quoted or in a list, before the fence.
                let big = "登入 value ".repeat(5_000 * huge);
                let line = match huge {
                    1 => format!("rationale: {big}"),
                    2 => format!("rationale: '{big}'"),
                    _ => format!("tags: [a, '{big}']"),
                };
                let le = if crlf { "\r\n" } else { "\n" };
                if let Some(at) = text.rfind(&format!("{le}---{le}")) {
                    text.insert_str(at, &format!("{le}{line}"));
                }
            }
            let reference = by_values(&text).map_err(|e| (e.kind(), e.line(), e.to_string()));
            prop_assert_eq!(parsed(&text), reference, "{:?}", text);
        }

        #[test]
        fn the_lookup_list_reads_as_the_mapping(
            picks in prop::collection::vec((0..LINES.len(), 0..64usize), 0..16),
            crlf in any::<bool>(),
            bom in any::<bool>(),
        ) {
            // Mostly whole entities (every seed key once, in order), sometimes a jumble.
            let mut picks = picks;
            if picks.len() > 4 {
                for (i, pick) in picks.iter_mut().enumerate().take(LINES.len() - 1) {
                    pick.0 = i;
                }
            }
            let text = text_of(&picks, crlf, bom);
            let fast = EntityFile::parse(
                Path::new("x.md"),
                PathBuf::from("x.md"),
                text.clone(),
                &Namespace::org_global(),
                None,
            )
            .map(|f| f.entry)
            .map_err(|e| e.to_string());
            let reference = by_mapping(&text).map_err(|e| e.to_string());
            prop_assert_eq!(fast, reference, "{:?}", text);
        }
    }

    /// Every spelling of every key, in an otherwise whole entity.
    #[test]
    fn each_spelling_reads_both_ways() {
        let mut read = 0;
        for (key, lines) in LINES.iter().enumerate() {
            for line in 0..lines.len() {
                let mut picks: Vec<(usize, usize)> = (0..11).map(|k| (k, 0)).collect();
                match picks.get_mut(key) {
                    Some(pick) => *pick = (key, line),
                    None => picks.push((key, line)),
                }
                let text = text_of(&picks, false, false);
                let fast = EntityFile::parse(
                    Path::new("x.md"),
                    PathBuf::from("x.md"),
                    text.clone(),
                    &Namespace::org_global(),
                    None,
                )
                .map(|f| f.entry)
                .map_err(|e| e.to_string());
                read += usize::from(fast.is_ok());
                assert_eq!(
                    fast,
                    by_mapping(&text).map_err(|e| e.to_string()),
                    "{text:?}"
                );
                assert_eq!(
                    parsed(&text),
                    by_values(&text).map_err(|e| (e.kind(), e.line(), e.to_string())),
                    "{text:?}"
                );
            }
        }
        assert!(read > 40, "most spellings make an entity ({read})");
    }

    #[test]
    fn a_whole_entity_reads_both_ways() {
        let picks: Vec<(usize, usize)> = (0..11).map(|k| (k, 0)).collect();
        for (crlf, bom) in [(false, false), (true, true)] {
            let text = text_of(&picks, crlf, bom);
            let entry = by_mapping(&text).unwrap();
            assert_eq!(entry.tags, ["auth", "security"]);
            let fast = EntityFile::parse(
                Path::new("x.md"),
                PathBuf::from("x.md"),
                text,
                &Namespace::org_global(),
                None,
            )
            .unwrap();
            assert_eq!(fast.entry, entry);
        }
    }
}
