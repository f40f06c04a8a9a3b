//! Property tests of the lossless frontmatter editor over frontmatter built from hostile
//! fragments (comments everywhere, every quoting style, block scalars, flow and block
//! lists, nested mappings, anchors and tags, unknown keys, CRLF, BOM, Unicode, a body
//! holding `---`): the key scanner agrees with serde_yaml on the keys and each value,
//! and every one-key edit changes no byte outside that key's entry and leaves a file
//! whose mapping is the old one with only that key changed, added or removed.

use memory_core::markdown::{Frontmatter, FrontmatterKeys, apply_edits};
use proptest::prelude::*;
use serde_yaml::{Mapping, Value};

/// Value texts as they follow `key:` (a leading `\n` puts the value below the key).
const VALUES: &[&str] = &[
    " x",
    " hello world",
    " 2026-04-03T10:00:00Z",
    " 登入 流程 😀",
    " a#b x:y",
    " plain # trailing comment",
    " plain continued\n  on the next line",
    "",
    " # only a comment",
    " \"a: b # not a comment\"",
    " \"esc \\n \\\" \\u263A \\U0001F600\" # c",
    " \"line one\n  line two\"",
    " \"col zero\ncontinuation\"",
    " 'it''s'",
    " 'multi\n  line' # c",
    " 0.9",
    " -12",
    " true",
    " ~",
    " null",
    " [a, b]",
    " [a, \"b, c\", 'd', [e]]",
    " [a,\n  b, # inside\n  c]",
    " [\n]",
    " {x: 1, y: [2, 3]}",
    " {x: 1,\n   y: \"two\"}",
    "\n- a\n- b # c",
    "\n  - a\n  -   b\n\n  - c",
    "\n- x: 1\n  y: 2\n- [p, q]\n- |\n  text in a list",
    "\n  sub: 1\n  # inner comment\n  deep:\n    - z\n    - \"w\"",
    " # comment first\n  sub: [1]",
    " |\n  flowchart TD\n    A[Start] --> B[Write file]\n    B --> C[\"Update index\"]",
    " |-\n  x\n\n  y",
    " >+2\n   lead\n  x\n",
    " |+\n  keep\n",
    " |2\n   x  trailing  ",
    " | # header comment\n  # not a comment\n  'not quoted",
    " >\n  folded\n  text\n\n  para",
    " &anc plain with anchor",
    " &lst [1, 2]",
    " !!str 123",
    " !custom x",
    " &m\n  a: 1",
    " !!seq\n- 1",
    " \"\"",
    " ''",
    " []",
    " {}",
    " -x",
    " x]",
    " \"trailing\"   # spaces before comment",
    " http://example.com/a#b",
    " \"quoted\\\n  escaped break\"",
    " 'single' # 'c'",
    " [a, {b: c}, \"d]\"]",
    "\n  # comment below the key\n  - a",
    " x\t# tab comment",
    " |\n\n  leading blank",
    " >-\n  a\n   b\n  c",
    "\n  \"quoted below\"",
    "\n  plain below\n  continued",
    " [a, b] # c\n# column 0 comment",
    "\n- - nested\n  - list\n-\n  - under empty dash",
    " &a1 {x: [1,\n  2]}",
    " &only",
    " ---",
    " ... dots",
    " &p1 !!str 123",
    " &p2 word",
    " ! # non-specific tag",
];

/// Key texts; `{}` is replaced by the entry's number so keys never repeat.
const KEYS: &[&str] = &[
    "k{}",
    "status{}",
    "\"quoted {}\"",
    "'single {}'",
    "key with spaces {}",
    "登入{}",
    "x-custom_{}",
    "\"a: b {}\"",
    "url{}.example",
];

/// Lines put between entries.
const FILLERS: &[&str] = &["", "# comment", "  # indented comment", "#", "   "];

const BODIES: &[&str] = &[
    "",
    "Body text.\n",
    "\n---\nnot: frontmatter\n---\n",
    "...\n# Title\n\n- list\n",
    "no final newline",
];

#[derive(Debug, Clone)]
struct Doc {
    bom: bool,
    crlf: bool,
    closing_dots: bool,
    entries: Vec<(usize, usize, Vec<usize>)>,
    body: usize,
}

fn doc() -> impl Strategy<Value = Doc> {
    doc_of(0..8)
}

fn doc_of(entries: std::ops::Range<usize>) -> impl Strategy<Value = Doc> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(
            (
                0..KEYS.len(),
                0..VALUES.len(),
                proptest::collection::vec(0..FILLERS.len(), 0..2),
            ),
            entries,
        ),
        0..BODIES.len(),
    )
        .prop_map(|(bom, crlf, closing_dots, entries, body)| Doc {
            bom,
            crlf,
            closing_dots,
            entries,
            body,
        })
}

impl Doc {
    fn text(&self) -> String {
        let mut yaml = String::new();
        for (n, (key, value, fillers)) in self.entries.iter().enumerate() {
            yaml.push_str(&KEYS[*key].replace("{}", &n.to_string()));
            yaml.push(':');
            yaml.push_str(VALUES[*value]);
            yaml.push('\n');
            for f in fillers {
                yaml.push_str(FILLERS[*f]);
                yaml.push('\n');
            }
        }
        let close = if self.closing_dots { "..." } else { "---" };
        let text = format!("---\n{yaml}{close}\n{}", BODIES[self.body]);
        let text = if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        };
        if self.bom {
            format!("\u{feff}{text}")
        } else {
            text
        }
    }
}

/// New values: hostile strings, multi-line text, numbers, lists, a mapping.
fn new_value() -> impl Strategy<Value = Value> {
    let word = prop_oneof![
        "[a-z :#\\-\\[\\]{}*&!|>'\"%@`,?~\t登😀]{0,10}",
        "[a-z]{1,8}",
        prop::sample::select(vec![
            "yes",
            "No",
            "null",
            "~",
            "true",
            "0.9",
            "012",
            "1_000",
            "",
            " x",
            "x ",
            "a: b",
            "- x",
            "2026-04-03",
            "2026-04-03T10:00:00Z",
            "---",
            "...",
            "\u{2028}",
            "\u{1}",
            "\u{feff}",
            "\r",
            "é\u{a0}",
            "#",
            "!!str",
        ])
        .prop_map(str::to_string),
    ];
    let text = proptest::collection::vec("[ ]{0,3}[a-z#\\-:>|\"'\\[ ]{0,8}", 1..5)
        .prop_flat_map(|lines| (Just(lines), 0usize..3))
        .prop_map(|(lines, trailing)| format!("{}{}", lines.join("\n"), "\n".repeat(trailing)));
    prop_oneof![
        word.clone().prop_map(Value::from),
        text.prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        proptest::collection::vec(word.clone(), 0..4)
            .prop_map(|items| Value::Sequence(items.into_iter().map(Value::from).collect())),
        (word.clone(), word).prop_map(|(k, v)| {
            let mut map = Mapping::new();
            map.insert(Value::from(k), Value::from(v));
            Value::Mapping(map)
        }),
    ]
}

fn mapping(text: &str) -> Mapping {
    let fm = Frontmatter::locate(text).unwrap().unwrap();
    fm.mapping(text).unwrap()
}

/// Checks that `out` is `text` with only `range` replaced.
fn only_inside(text: &str, out: &str, range: std::ops::Range<usize>) -> Result<(), TestCaseError> {
    prop_assert!(
        out.starts_with(&text[..range.start]),
        "prefix changed: {out:?}"
    );
    prop_assert!(out.ends_with(&text[range.end..]), "suffix changed: {out:?}");
    prop_assert!(out.len() >= range.start + text.len() - range.end);
    Ok(())
}

fn no_bare_lf(text: &str, out: &str) -> Result<(), TestCaseError> {
    if !text.contains("\r\n") {
        return Ok(());
    }
    let bare = out
        .match_indices('\n')
        .any(|(i, _)| i == 0 || &out[i - 1..i] != "\r");
    prop_assert!(!bare, "a bare LF in a CRLF file: {out:?}");
    Ok(())
}

/// A line of YAML-ish junk.
fn junk_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c]{1,3}: [a-c \"'#\\[\\]{},:|>&*!-]{0,8}",
        "[ ]{0,3}[a-c \"'#\\[\\]{},:|>&*!?-]{0,8}",
        "[ ]{0,3}- [a-c \"'#:|>-]{0,6}",
        "[ ]{0,4}[a-c]{1,2}: [|>][+-]?[1-3]?( #c)?",
        "[ ]{1,5}[a-c \"'#:\\[\\],-]{0,6}",
        "[a-c]: [&!][a-c]{1,2}( [a-c\\[\"]{0,3})?",
        "[a-c]: [\"'][a-c \\\\'\"]{0,5}",
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// On junk, nothing panics, and whenever both the scanner and serde_yaml accept the
    /// block as a mapping with text keys, they agree on the keys and each value.
    #[test]
    fn junk_never_panics_and_agrees(lines in proptest::collection::vec(junk_line(), 0..8)) {
        let text = format!("---\n{}\n---\nbody\n", lines.join("\n"));
        let fm = Frontmatter::locate(&text).unwrap().unwrap();
        let scanned = FrontmatterKeys::read(&text);
        let map = fm.mapping(&text);
        if let Ok(Some(keys)) = &scanned {
            let fast = keys.mapping(&text);
            prop_assert_eq!(fast.is_ok(), map.is_ok(), "{:?}: {:?} / {:?}", text, fast, map);
            if let (Ok(fast), Ok(map)) = (&fast, &map) {
                prop_assert_eq!(fast, map, "{:?}", text);
            }
        }
        if let (Ok(Some(keys)), Ok(map)) = (scanned, map) {
            prop_assume!(map.keys().all(Value::is_string));
            let names: Vec<String> = keys.entries.iter().map(|e| e.name(&text).into_owned()).collect();
            let expected: Vec<String> = map.keys().map(|k| k.as_str().unwrap_or_default().to_string()).collect();
            prop_assert_eq!(&names, &expected, "{:?}", text);
            for (entry, (_, value)) in keys.entries.iter().zip(map.iter()) {
                let alone = keys.value(&text, &entry.name(&text)).ok().flatten();
                prop_assert_eq!(alone.as_ref(), Some(value), "{:?} in {:?}", entry.raw_value(&text), text);
            }
        }
    }

    /// The scanner finds serde_yaml's keys in order, and each value parsed alone is the
    /// value serde_yaml gives for the whole block.
    #[test]
    fn keys_and_values_agree_with_serde_yaml(doc in doc()) {
        let text = doc.text();
        let map = mapping(&text);
        let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
        let names: Vec<String> = keys.entries.iter().map(|e| e.name(&text).into_owned()).collect();
        let expected: Vec<String> = map.keys().map(|k| k.as_str().unwrap().to_string()).collect();
        prop_assert_eq!(&names, &expected, "{:?}", text);
        prop_assert_eq!(&keys.mapping(&text).unwrap(), &map);
        let mut last = keys.frontmatter.yaml.start;
        for (entry, (_, value)) in keys.entries.iter().zip(map.iter()) {
            prop_assert!(entry.entry.start >= last && entry.entry.end <= keys.frontmatter.yaml.end);
            prop_assert!(entry.entry.start <= entry.value.start && entry.value.end <= entry.entry.end);
            last = entry.entry.end;
            let alone = keys.value(&text, &entry.name(&text)).unwrap().unwrap();
            prop_assert_eq!(&alone, value, "{:?} in {:?}", entry.raw_value(&text), text);
            let rest = &text[entry.value.end..entry.entry.end];
            prop_assert!(rest.trim_start().is_empty() || rest.trim_start().starts_with('#'),
                "after the value: {:?}", rest);
        }
    }

    /// The lookup list answers every key as the mapping does (and as serde_yaml's
    /// mapping of the whole block does), on hostile blocks and on junk.
    #[test]
    fn fields_answer_as_the_mapping(doc in doc(), lines in proptest::collection::vec(junk_line(), 0..8)) {
        let junk = format!("---\n{}\n---\nbody\n", lines.join("\n"));
        for text in [doc.text(), junk] {
            let Ok(Some(keys)) = FrontmatterKeys::read(&text) else { continue };
            let (fields, map) = (keys.fields(&text), keys.mapping(&text));
            prop_assert_eq!(fields.is_ok(), map.is_ok(), "{:?}", text);
            let (Ok(fields), Ok(map)) = (fields, map) else { continue };
            prop_assert_eq!(fields.len(), map.len(), "{:?}", text);
            let mut names: Vec<String> = keys.entries.iter().map(|e| e.name(&text).into_owned()).collect();
            names.extend(["status", "k0", "a", "b", "c", "1", "true", "null", ""].map(String::from));
            for name in &names {
                prop_assert_eq!(fields.get(name), map.get(name.as_str()), "{:?} in {:?}", name, text);
            }
        }
    }

    /// Setting any key (or a new one) to any value changes only that entry, keeps the
    /// file's line endings and leaves the old mapping with only that key changed.
    #[test]
    fn set_changes_only_that_key(doc in doc(), pick in any::<prop::sample::Index>(), value in new_value()) {
        let text = doc.text();
        let old = mapping(&text);
        let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
        let (name, range) = match keys.entries.len() {
            0 => ("fresh".to_string(), keys.frontmatter.yaml.end..keys.frontmatter.yaml.end),
            n => {
                let e = &keys.entries[pick.index(n)];
                (e.name(&text).into_owned(), e.entry.clone())
            }
        };
        let edit = keys.set(&text, &name, &value).unwrap();
        prop_assert!(edit.range.start >= range.start && edit.range.end <= range.end);
        let out = apply_edits(&text, vec![edit]);
        only_inside(&text, &out, range)?;
        no_bare_lf(&text, &out)?;
        let mut expected = old.clone();
        expected.insert(Value::from(name.clone()), value.clone());
        let new = mapping(&out);
        prop_assert_eq!(&new, &expected, "{:?} set {} to {:?}:\n{:?}", text, name, value, out);
        let new_keys = FrontmatterKeys::read(&out).unwrap().unwrap();
        prop_assert_eq!(new_keys.entries.len(), new.len());
        prop_assert_eq!(&new_keys.mapping(&out).unwrap(), &new);
        // Setting the same value again changes nothing.
        let again = apply_edits(&out, vec![new_keys.set(&out, &name, &value).unwrap()]);
        prop_assert_eq!(&again, &out);
    }

    /// Adding a key after another puts it right after that entry; removing a key takes
    /// its whole entry and nothing else.
    #[test]
    fn add_after_and_remove(doc in doc_of(1..8), pick in any::<prop::sample::Index>(), value in new_value()) {
        let text = doc.text();
        let old = mapping(&text);
        let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
        let entry = &keys.entries[pick.index(keys.entries.len())];
        let name = entry.name(&text).into_owned();

        let edit = keys.set_after(&text, "added key", &value, &name).unwrap();
        prop_assert_eq!(edit.range.clone(), entry.entry.end..entry.entry.end);
        let out = apply_edits(&text, vec![edit]);
        no_bare_lf(&text, &out)?;
        let new = mapping(&out);
        let order: Vec<&Value> = new.keys().collect();
        let at = order.iter().position(|k| k.as_str() == Some(name.as_str())).unwrap();
        prop_assert_eq!(order[at + 1].as_str(), Some("added key"));
        prop_assert_eq!(&new["added key"], &value);
        prop_assert_eq!(new.len(), old.len() + 1);

        let edit = keys.remove(&text, &name).unwrap().unwrap();
        prop_assert_eq!(edit.range.start, entry.entry.start);
        // Past the entry, only blank or indented comment lines that would otherwise join
        // a block scalar before it go too.
        let extra = &text[entry.entry.end..edit.range.end];
        prop_assert!(extra.lines().all(|l| l.trim().is_empty() || l.starts_with([' ', '\t']) && l.trim_start().starts_with('#')), "{:?}", extra);
        let out = apply_edits(&text, vec![edit]);
        let mut expected = old.clone();
        expected.shift_remove(name.as_str());
        prop_assert_eq!(mapping(&out), expected, "{:?} removing {}:\n{:?}", text, name, out);
    }
}
