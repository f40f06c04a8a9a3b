//! The entity reader's typed scan of the usual file: every frontmatter line a simple
//! `key: value` entry ([`SimpleLines`]), each known key's value put in its place as the
//! line is read — no entry list, no list of values, no look-up by key name — and the
//! schema read from those places by the one schema reader ([`read_fields`]).
//!
//! It answers only when it is sure to give what [`super::entity_file::EntityFile::parse`]
//! gives: an entry that reads. Any other file — a line of another shape, a key written
//! twice, an alias anywhere, a value the general reader would hand to serde_yaml, a
//! schema refusal — is given back, and the general reader reads it (and words its
//! refusal, with its line). A proptest below compares both readers over generated
//! entity files.

use super::entity::{EntryFields, read_fields};
use super::entity_keys::{EntityFields, Key};
use super::namespace::Namespace;
use crate::markdown::{Field, Frontmatter, Simple, SimpleLines};

/// The seed's keys of one block, each value in its key's place.
struct Slots<'t> {
    values: [Option<Simple<'t>>; Key::COUNT],
}

impl EntityFields for Slots<'_> {
    fn field(&self, key: Key) -> Option<Field<'_>> {
        self.values[key as usize].as_ref().map(Field::of)
    }
}

/// What `make` makes of the fields of `text` (a file of `namespace`'s directory) and
/// the line of its `entity_name`, when the file is the usual one and reads; `None`
/// whenever the general reader must judge it.
pub(super) fn read_usual<R>(
    text: &str,
    namespace: &Namespace,
    make: impl FnOnce(EntryFields<'_>) -> R,
) -> Option<(R, usize)> {
    let fm = Frontmatter::locate(text).ok().flatten()?;
    // An alias makes the general reader parse the whole block with serde_yaml.
    if memchr::memchr(b'*', fm.yaml(text).as_bytes()).is_some() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut slots = Slots {
        values: Default::default(),
    };
    let mut entity_line = None;
    // Unknown keys, only to refuse one written twice (none in the usual file).
    let mut others: Vec<&[u8]> = Vec::new();
    for line in SimpleLines::new(text, &fm) {
        let line = line.ok()?;
        // Every value, known key or not, must read alone without serde_yaml, as the
        // general reader then reads them all that way.
        let value = line.simple_value(text)?;
        let key = bytes.get(line.key.clone())?;
        match Key::of(key) {
            Some(known) => {
                let slot = &mut slots.values[known as usize];
                if slot.is_some() {
                    return None;
                }
                *slot = Some(value);
                if known == Key::EntityName {
                    entity_line = Some(line.line);
                }
            }
            None => {
                if others.contains(&key) {
                    return None;
                }
                others.push(key);
            }
        }
    }
    let fields = read_fields(&slots, fm.body(text), namespace).ok()?;
    // `read_fields` refuses a block without `entity_name`, so the line is known here.
    Some((make(fields), entity_line?))
}

/// The typed scan against the general reader ([`EntityFile::parse`]) over generated
/// entity files: whole entities with one value or line changed, keys dropped, repeated
/// or unknown, odd lines (comments, blank, indented, quoted keys, block values, aliases),
/// bad values of every key, CRLF and a BOM.
#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use proptest::prelude::*;

    use super::*;
    use crate::context_memory::entity::Entry;
    use crate::context_memory::entity_file::EntityFile;
    use crate::context_memory::heal::row_from;
    use crate::context_memory::index_file::IndexRow;

    /// Values for each of the seed's keys in [`crate::context_memory::ENTITY_KEYS`]'s
    /// order: the first reads, the others are good, bad or odd spellings.
    const VALUES: [&[&str]; 16] = [
        &[
            "org.global.decision.001",
            "org.global.decision.002",
            "org.global.risk.001",
            "org.security.decision.001",
            "org.global.decision",
            "Org.Global.decision.001",
            "[org.global.decision.001]",
            "001",
            "true",
            "null",
            "'org.global.decision.001'",
            "org.global.decision.001 # c",
            "|\n  org.global.decision.001",
            "",
            "*a",
            "org.global.decision.001\u{2028}",
        ],
        &[
            "org.global",
            "org.security",
            "org",
            "[org.global]",
            "null",
            "'org.global'",
            "~",
            "&a org.global",
            "org.global  ",
            "org.global\t",
        ],
        &[
            "decision",
            "risk",
            "Decision",
            "12",
            "true",
            "'decision'",
            "pattern",
        ],
        &[
            "accepted",
            "experimental",
            "superseded",
            "deprecated",
            "done",
            "true",
            "0.5",
            "\"accepted\"",
        ],
        &[
            "[auth, security]",
            "[a]",
            "[a, a]",
            "[a, b, a]",
            "auth, security",
            "auth",
            "[]",
            "[1, 2]",
            "[true, x]",
            "[null, a, b]",
            "[a, [b]]",
            "[a,b,]",
            "[ a , b ]",
            "['x', y]",
            "\n  - a\n  - b",
            "[登入, 認證]",
            "[a: b, c]",
            "[a, b] # two",
            "[a, b]x",
            "[,]",
            "[a, ~]",
            "[0.5, 1e3]",
            "[a, b*]",
        ],
        &[
            "2026-04-03T10:00:00Z",
            "2026-04-03",
            "2026-04-03T10:00",
            "yesterday",
            "2026-13-03",
            "[2026-04-03]",
            "20260403",
            "'2026-04-03T10:00:00Z'",
        ],
        &[
            "Stateless, scales out",
            "a b",
            "0.5",
            "True",
            "[a, b]",
            "null",
            "x\u{2028}y",
            "a:b",
            "ok # c",
            "'q'",
            "a: b",
            "x\u{85}y",
            "10:30",
            "a*b",
        ],
        &[
            "[]",
            "[org.global.decision.000]",
            "[not a name]",
            "org.global.decision.000",
            "[org.global.decision.000, org.global.decision.000]",
            "[org.global.decision.000, x]",
        ],
        &[
            "0.9", "1", "0", "1.5", "high", ".5", "1e-1", "-0", "0.95", "[0.5]", "null", "nan",
            "inf", "0x1", "007", "1.0", "1_0",
        ],
        &[
            "docs:global/a.md",
            "docs",
            "a:b:c",
            "http://x/a#b",
            "null",
            "[a]",
            "'docs:x#y'",
        ],
        &[
            "2026-05-01T09:30:00Z",
            "soon",
            "2026-05-01",
            "",
            "null",
            "2026-05-01 09:30",
        ],
        &["mermaid", "[x]", "plantuml"],
        &["flowchart", "sequenceDiagram"],
        &["memory-write-flow", "s"],
        &["graph", "|\n  flowchart TD\n    A --> B", "'graph TD'"],
        &[
            "[org.global.decision.002]",
            "[x]",
            "[]",
            "org.global.pattern.001",
        ],
    ];

    /// Lines of keys the seed does not define, and lines of other shapes.
    const OTHERS: &[&str] = &[
        "x_custom: v",
        "owner: alice",
        "x_list: [1, 2]",
        "x_bad: [unclosed",
        "x_map: {a: 1}",
        "null: x",
        "true: y",
        "x_alias: *a",
        "x_anchor: &a v",
        "x_colon: a: b",
        "x_custom: w",
        "x_quoted: 'a'",
        "x_num: 0x1f",
        "x_flow: [a: b]",
        "x_empty_list: [,]",
        "# comment",
        "",
        "  indented: x",
        "'status': deprecated",
        "\"tags\": [a]",
        "- item",
        "? k",
        "Status: x",
        "x_break: a\u{2028}b",
    ];

    /// One picked line: `key` (an index into [`VALUES`], or past it: a line of
    /// [`OTHERS`]) with its `value` pick.
    fn line_of(key: usize, value: usize) -> String {
        match VALUES.get(key) {
            Some(values) => {
                let name = crate::context_memory::ENTITY_KEYS[key];
                match values[value % values.len()] {
                    "" => format!("{name}:"),
                    v if v.starts_with('\n') => format!("{name}:{v}"),
                    v => format!("{name}: {v}"),
                }
            }
            None => OTHERS[value % OTHERS.len()].to_string(),
        }
    }

    /// A whole decision (every key it needs, first values) or diagram, changed by
    /// `changes` (a key's value picked, a line inserted, a key dropped or repeated).
    fn text_of(
        diagram: bool,
        changes: &[(u8, usize, usize)],
        crlf: bool,
        bom: bool,
        body: usize,
    ) -> String {
        let mut lines: Vec<(usize, usize)> = (0..11).map(|k| (k, 0)).collect();
        if diagram {
            // A diagram entity: its name and category, and the four diagram keys.
            lines[0].1 = usize::MAX;
            lines[2].1 = usize::MAX;
            lines.extend((11..16).map(|k| (k, 0)));
        }
        for &(what, key, value) in changes {
            let at = key % (lines.len() + 1);
            match what % 4 {
                0 => {
                    if let Some(line) = lines.get_mut(at) {
                        line.1 = value;
                    }
                }
                1 => lines.insert(at, (VALUES.len(), value)),
                2 => {
                    if at < lines.len() {
                        lines.remove(at);
                    }
                }
                _ => {
                    let copy = lines.get(at).copied().unwrap_or((key % 16, value));
                    lines.insert((at + value) % (lines.len() + 1), (copy.0, value % 3));
                }
            }
        }
        let mut yaml = String::new();
        for (key, value) in lines {
            let line = match (key, value) {
                (0, usize::MAX) => "entity_name: org.global.diagram.001".to_string(),
                (2, usize::MAX) => "category: diagram".to_string(),
                (key, value) => line_of(key, value),
            };
            yaml.push_str(&line);
            yaml.push('\n');
        }
        let body = [
            "\nAuth uses JWT. Tokens last an hour.\n",
            "",
            "\n\n# Title\n\nText. More text.\n",
            "登入。其餘照舊。",
            "\n---\nnot frontmatter: x\n",
        ][body % 5];
        let text = format!("---\n{yaml}---\n{body}");
        let text = if crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        };
        if bom { format!("\u{feff}{text}") } else { text }
    }

    type Outcome<T> = std::result::Result<(T, usize), (crate::ErrorKind, Option<usize>, String)>;

    fn general(text: &str) -> Outcome<Entry> {
        EntityFile::parse(
            Path::new("/r/org/global/decision-001-x.md"),
            PathBuf::from("org/global/decision-001-x.md"),
            text.to_string(),
            &Namespace::org_global(),
            None,
        )
        .map(|file| {
            let line = file.entity_line();
            (file.entry, line)
        })
        .map_err(|e| (e.kind(), e.line(), e.to_string()))
    }

    fn combined(text: &str) -> Outcome<Entry> {
        EntityFile::read_entry(
            || PathBuf::from("/r/org/global/decision-001-x.md"),
            || PathBuf::from("org/global/decision-001-x.md"),
            text.to_string(),
            &Namespace::org_global(),
        )
        .map_err(|e| (e.kind(), e.line(), e.to_string()))
    }

    fn combined_row(text: &str) -> Outcome<IndexRow> {
        EntityFile::read_row(
            || PathBuf::from("/r/org/global/decision-001-x.md"),
            || PathBuf::from("org/global/decision-001-x.md"),
            "decision-001-x.md",
            text.to_string(),
            &Namespace::org_global(),
        )
        .map_err(|e| (e.kind(), e.line(), e.to_string()))
    }

    fn fast(text: &str) -> Option<(Entry, usize)> {
        read_usual(text, &Namespace::org_global(), |f| {
            f.into_entry(PathBuf::from("org/global/decision-001-x.md"), None)
        })
    }

    fn changes() -> impl Strategy<Value = Vec<(u8, usize, usize)>> {
        prop::collection::vec((any::<u8>(), 0..20usize, 0..64usize), 0..4)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The entry (or row) and the line naming the entity are the general reader's,
        /// and so is every refusal: the same kind, line and words.
        #[test]
        fn the_typed_scan_reads_as_the_general_reader(
            diagram in prop::bool::weighted(0.2),
            changes in changes(),
            crlf in prop::bool::weighted(0.2),
            bom in prop::bool::weighted(0.1),
            body in 0..5usize,
        ) {
            let text = text_of(diagram, &changes, crlf, bom, body);
            let general = general(&text);
            if let Some(fast) = fast(&text) {
                prop_assert_eq!(Ok(fast), general.clone(), "{:?}", text);
            }
            prop_assert_eq!(combined(&text), general.clone(), "{:?}", text);
            let rows = general.map(|(entry, line)| (row_from(entry), line));
            prop_assert_eq!(combined_row(&text), rows, "{:?}", text);
        }
    }

    /// The generated files are often read by the typed scan, often left to the general
    /// reader though they read, and often refused (the proptest is not vacuous).
    #[test]
    fn the_generated_files_take_every_path() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = (changes(), any::<bool>(), 0..5usize);
        let (mut typed, mut general_only, mut refused) = (0, 0, 0);
        for _ in 0..2000 {
            let (changes, diagram, body) = strategy.new_tree(&mut runner).unwrap().current();
            let text = text_of(diagram, &changes, false, false, body);
            match (fast(&text), general(&text)) {
                (Some(_), _) => typed += 1,
                (None, Ok(_)) => general_only += 1,
                (None, Err(_)) => refused += 1,
            }
        }
        assert!(
            typed > 400 && general_only > 70 && refused > 400,
            "{typed} {general_only} {refused}"
        );
    }

    /// The usual file (what memory-core writes) is read by the typed scan, in both line
    /// endings and with a BOM.
    #[test]
    fn the_usual_file_is_read_by_the_typed_scan() {
        for (diagram, crlf, bom) in [(false, false, false), (true, true, true)] {
            let text = text_of(diagram, &[], crlf, bom, 0);
            let (entry, line) = fast(&text).unwrap();
            assert_eq!((line, entry.tags.len()), (2, 2));
            assert_eq!(Ok((entry, line)), general(&text));
        }
    }
}
