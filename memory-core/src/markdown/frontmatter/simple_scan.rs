//! The key scan of the usual block in one pass: every line a `key: value` entry at
//! column 0 with a lowercase ASCII key and a one-line plain scalar or flat flow list
//! (what memory-core writes, and most hand-kept files). It gives exactly the entries
//! the general scan ([`super::keys::scan`]) gives, or `None` as soon as a line is of
//! any other shape — a blank or comment line, an indented or quoted key, a quoted,
//! block or nested value, a `#`, a `: ` inside a value, a YAML 1.1 line break, a key
//! written twice — and the general scan reads the block (with its refusals). A proptest
//! compares both on blocks mixing these shapes. The lines themselves ([`SimpleLines`])
//! are what the entity reader takes its known keys from, without the entry list.

use std::ops::Range;

use super::fast::Simple;
use super::keys::{KeyEntry, ValueStyle, has_unicode_break, plain_has_pair};
use super::lex;
use super::locate::Frontmatter;

/// What a byte of a value means to the fast scan (0: nothing, the usual byte).
const PLAIN_BYTE: u8 = 0;
/// `\n`: the line ends.
const NEWLINE: u8 = 1;
/// `#` (a comment, or text the general scan judges).
const HASH: u8 = 2;
/// `:` (a `: ` inside a plain value is refused by the general scan).
const COLON: u8 = 3;
/// The first byte of a raw U+0085, U+2028 or U+2029 (0xc2, 0xe2).
const BREAK_LEAD: u8 = 4;
/// `[ ] { } " '`, which a flat flow list holds only as its last `]`.
const FLOW: u8 = 5;

/// Each byte's meaning to the value loop.
static CLASS: [u8; 256] = {
    let mut class = [PLAIN_BYTE; 256];
    class[b'\n' as usize] = NEWLINE;
    class[b'#' as usize] = HASH;
    class[b':' as usize] = COLON;
    class[0xc2] = BREAK_LEAD;
    class[0xe2] = BREAK_LEAD;
    class[b'[' as usize] = FLOW;
    class[b']' as usize] = FLOW;
    class[b'{' as usize] = FLOW;
    class[b'}' as usize] = FLOW;
    class[b'"' as usize] = FLOW;
    class[b'\'' as usize] = FLOW;
    class
};

/// One simple `key: value` line of the block, as [`SimpleLines`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimpleLine {
    /// 1-based file line.
    pub line: usize,
    /// The key (plain: `[a-z_][a-z0-9_]*`).
    pub key: Range<usize>,
    /// Just past the key's `:`.
    pub colon: usize,
    /// The value, trailing white space and `\r` excluded.
    pub value: Range<usize>,
    /// Just past the line's `\n`.
    pub next: usize,
    /// Whether the value is a flat flow list (`[a, b]`), else a one-line plain scalar.
    pub flow: bool,
}

impl SimpleLine {
    /// How the value is written.
    pub(crate) fn style(&self) -> ValueStyle {
        if self.flow {
            ValueStyle::FlowSequence
        } else {
            ValueStyle::Plain
        }
    }

    /// The value as the general reader reads it alone ([`super::fast::simple`] of the
    /// value and its style, less that function's checks for more lines and leading
    /// white space: the value is one line and starts with a letter, a digit or `[`);
    /// `None` when it is not one of the simple shapes (serde_yaml would judge it).
    pub(crate) fn simple_value<'t>(&self, text: &'t str) -> Option<Simple<'t>> {
        let raw = text.get(self.value.clone())?;
        debug_assert_eq!(
            super::fast::simple(raw, self.style()),
            if self.flow {
                super::fast::flow_list(raw)
            } else {
                super::fast::plain(raw)
            }
        );
        if self.flow {
            super::fast::flow_list(raw)
        } else {
            super::fast::plain(raw)
        }
    }
}

/// The lines of a located block, one [`SimpleLine`] each, as long as every line is a
/// simple entry: an `Err(NotSimple)` ends the walk at the first line of any other shape
/// (the general scan then reads the block). A key written twice is not checked here:
/// [`scan_simple`] and the entity reader's typed scan (`context_memory::entity_lines`)
/// each give such a block to the general scan, which refuses it with its line.
pub(crate) struct SimpleLines<'t> {
    b: &'t [u8],
    yaml_end: usize,
    at: usize,
    line: usize,
}

/// A line that is not a simple entry (or a simple entry the general scan must judge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotSimple;

impl<'t> SimpleLines<'t> {
    /// The walk over `fm`'s YAML lines in `text`.
    pub(crate) fn new(text: &'t str, fm: &Frontmatter) -> SimpleLines<'t> {
        SimpleLines {
            b: text.as_bytes(),
            yaml_end: fm.yaml.end,
            at: fm.yaml.start,
            line: fm.yaml_line,
        }
    }

    /// The line starting at `ls`, when it is simple.
    fn read_line(&self, ls: usize) -> Option<SimpleLine> {
        // The text up to the block's end: one bounds check a byte in the value loop.
        let (b, yaml_end) = (self.b.get(..self.yaml_end)?, self.yaml_end);
        if !matches!(b[ls], b'a'..=b'z' | b'_') {
            return None;
        }
        let mut key_end = ls + 1;
        while key_end < yaml_end && matches!(b[key_end], b'a'..=b'z' | b'0'..=b'9' | b'_') {
            key_end += 1;
        }
        // `key:` then white space, then the value on the same line.
        if key_end + 1 >= yaml_end || b[key_end] != b':' || !lex::ws(b[key_end + 1]) {
            return None;
        }
        let colon = key_end + 1;
        let mut v = colon + 1;
        while v < yaml_end && lex::ws(b[v]) {
            v += 1;
        }
        // The YAML text is whole lines, so a `\n` ends every line of it.
        let first = *b.get(v)?;
        let flow = first == b'[';
        if !flow && !first.is_ascii_alphanumeric() {
            return None;
        }
        let (mut i, mut flow_close, mut has_break) = (v + usize::from(flow), None, false);
        let nl = loop {
            let c = *b.get(i)?;
            match CLASS[usize::from(c)] {
                PLAIN_BYTE => {}
                NEWLINE => break i,
                HASH => return None,
                COLON => {
                    // `: ` or a final `:` in a plain value (white space after it, or
                    // only white space to the line's end, is the general scan's).
                    let after = b.get(i + 1).copied().unwrap_or(b'\n');
                    if !flow && (lex::ws(after) || after == b'\n' || after == b'\r') {
                        return None;
                    }
                }
                BREAK_LEAD => has_break = true,
                _ => {
                    // Only the flow list's one `]` is allowed, and only as its last byte
                    // (checked once the line's end is known).
                    if !flow || c != b']' || flow_close.is_some() {
                        return None;
                    }
                    flow_close = Some(i);
                }
            }
            i += 1;
        };
        let end = if nl > ls && b[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        let content_end = lex::trim_back(b, v, end);
        if has_break && has_unicode_break(&b[v..end]) {
            return None;
        }
        if flow {
            if flow_close.map(|c| c + 1) != Some(content_end) {
                return None;
            }
        } else {
            // The general scan's own check on the plain value it finds: every `:`
            // before white space, a `\r` or the line's end was refused above.
            debug_assert!(!plain_has_pair(&b[v..content_end]));
        }
        Some(SimpleLine {
            line: self.line,
            key: ls..key_end,
            colon,
            value: v..content_end,
            next: nl + 1,
            flow,
        })
    }
}

impl Iterator for SimpleLines<'_> {
    type Item = Result<SimpleLine, NotSimple>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.yaml_end {
            return None;
        }
        let Some(line) = self.read_line(self.at) else {
            // Nothing after an odd line is read.
            self.at = self.yaml_end;
            return Some(Err(NotSimple));
        };
        self.at = line.next;
        self.line += 1;
        Some(Ok(line))
    }
}

/// The entries of the located block when every line is a simple entry.
pub(super) fn scan_simple(text: &str, fm: &Frontmatter) -> Option<Vec<KeyEntry>> {
    let b = text.as_bytes();
    let mut entries: Vec<KeyEntry> = Vec::with_capacity(16);
    for line in SimpleLines::new(text, fm) {
        let line = line.ok()?;
        entries.push(KeyEntry {
            line: line.line,
            style: line.style(),
            entry: line.key.start..line.next,
            key: line.key,
            colon: line.colon,
            value: line.value,
            inline: true,
            quoted: false,
            block_tail: None,
        });
    }
    // A key written twice is refused by the general scan, with its line.
    for (i, e) in entries.iter().enumerate() {
        let key = &b[e.key.clone()];
        if entries[..i].iter().any(|f| {
            f.key.len() == key.len() && b[f.key.start] == key[0] && &b[f.key.clone()] == key
        }) {
            return None;
        }
    }
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::super::keys::scan;
    use super::*;
    use proptest::prelude::*;

    /// A line of a block: mostly simple entries (some of them odd but still simple),
    /// with every shape the fast scan must leave to the general one.
    fn line() -> impl Strategy<Value = String> {
        let simple_key = prop::sample::select(vec![
            "a",
            "b",
            "c",
            "status",
            "tags",
            "x_1",
            "_k",
            "null",
            "true",
            "created_at",
            "k2",
            "zz",
            "a",
            "status",
        ]);
        let odd_key = prop::sample::select(vec![
            "Key", "1a", "'q'", "\"d\"", "k k", "a-b", "é", " a", "-", "?",
        ]);
        let simple_sep = prop::sample::select(vec![": ", ":  ", ":\t", ": \t"]);
        let odd_sep = prop::sample::select(vec![":", " : ", "::", ":x"]);
        let simple_value = prop::sample::select(vec![
            "v",
            "accepted",
            "0.9",
            "007",
            "0x1f",
            "1e3",
            "2026-04-03T10:00:00Z",
            "docs:bench/1.md",
            "a b c ",
            "a\t",
            "a:b",
            "a,b",
            "[a, b]",
            "[]",
            "[ ]",
            "[a,b,]",
            "[a, b]  ",
            "[,]",
            "[a: b]",
            "[a:b, c]",
            "[- a]",
            "[&x a]",
            "[*x]",
            "[!t a]",
            "a *x",
            "a &x",
            "True",
            "nul",
            "x\u{a0}y",
        ]);
        let odd_value = prop::sample::select(vec![
            "a: b",
            "a:",
            "a #c",
            "a#b",
            "[a, [b]]",
            "['x', y]",
            "[a] x",
            "[a",
            "[a]]",
            "{a: 1}",
            "'q'",
            "\"d\"",
            "|",
            ">-",
            "*al",
            "&an v",
            "!!str v",
            "- x",
            "? x",
            "~",
            "登入 認證",
            "x\u{2028}y",
            "x\u{85}y",
            "",
            "-1",
            "-x",
            "%x",
            "@x",
            "---",
        ]);
        let entry = (
            prop_oneof![16 => simple_key, 1 => odd_key],
            prop_oneof![16 => simple_sep, 1 => odd_sep],
            prop_oneof![16 => simple_value, 1 => odd_value],
        )
            .prop_map(|(k, s, v)| format!("{k}{s}{v}"));
        prop_oneof![
            40 => entry,
            1 => prop::sample::select(vec![
                "", " ", "# c", "  more", "\tx", "- item", "? k", "%YAML 1.2", "  - y",
            ])
            .prop_map(str::to_string),
        ]
    }

    fn block() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(line(), 0..8),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(lines, crlf, bom)| {
                let le = if crlf { "\r\n" } else { "\n" };
                let mut text = String::from(if bom { "\u{feff}---" } else { "---" });
                text.push_str(le);
                for l in lines {
                    text.push_str(&l);
                    text.push_str(le);
                }
                text.push_str("---");
                text.push_str(le);
                text.push_str("body");
                text
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Whenever the fast scan answers, the general scan gives the same entries.
        #[test]
        fn simple_blocks_scan_as_the_general_scan_does(text in block()) {
            let fm = Frontmatter::locate(&text).unwrap().unwrap();
            if let Some(fast) = scan_simple(&text, &fm) {
                prop_assert_eq!(Ok(fast), scan(&text, &fm));
            }
        }
    }

    /// The generated blocks are often simple (the proptest above is not vacuous), and
    /// often not.
    #[test]
    fn the_generated_blocks_are_simple_in_part() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = block();
        let (mut simple, mut other, mut several) = (0, 0, 0);
        for _ in 0..2000 {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            let fm = Frontmatter::locate(&text).unwrap().unwrap();
            match scan_simple(&text, &fm) {
                Some(entries) => {
                    simple += 1;
                    several += usize::from(entries.len() >= 3);
                }
                None => other += 1,
            }
        }
        assert!(
            simple > 600 && other > 600 && several > 120,
            "{simple} {other} {several}"
        );
    }

    /// The fast scan answers for the usual blocks
    /// and leaves the rest to the general scan.
    #[test]
    fn the_usual_block_is_scanned_fast() {
        let usual = "---\nentity_name: org.global.decision.001\nnamespace: org.global\n\
                     tags: [auth, security]\nsupersedes: []\nconfidence: 0.9\n\
                     source_path: docs:global/a.md\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nBody.\n";
        let fm = Frontmatter::locate(usual).unwrap().unwrap();
        let fast = scan_simple(usual, &fm).unwrap();
        assert_eq!(Ok(fast.clone()), scan(usual, &fm));
        assert_eq!(fast.len(), 7);
        let crlf = usual.replace('\n', "\r\n");
        let fm = Frontmatter::locate(&crlf).unwrap().unwrap();
        assert_eq!(Ok(scan_simple(&crlf, &fm).unwrap()), scan(&crlf, &fm));
        for other in [
            "---\na: 1\n# c\n---\n",
            "---\na: 1\n\nb: 2\n---\n",
            "---\na: 'x'\n---\n",
            "---\na: 1\na: 2\n---\n",
            "---\na:\n  - x\n---\n",
            "---\na: x # c\n---\n",
        ] {
            let fm = Frontmatter::locate(other).unwrap().unwrap();
            assert_eq!(scan_simple(other, &fm), None, "{other:?}");
        }
    }
}
