//! List item markers: the one reading of CommonMark's list-item start, shared by the
//! list reader ([`parse_list`](super::parse_list)) and the fence scanner
//! ([`FenceScan::step_list`](super::FenceScan)), so that both see an item (and where its
//! text starts) on exactly the same lines.
//!
//! The rules are CommonMark's (and those of [`block_start`](super::block_start)): at
//! most three columns of indentation (a tab advances to the next multiple of four, so a
//! leading tab is too much); `-`, `*`, `+`, or one to nine digits and `.` or `)`; then
//! spaces or tabs, or the end of the line (an empty item). A line that is a thematic
//! break (`- - -`, `***`) is not an item. Other whitespace (U+3000, no-break space) is
//! text, not indentation.

/// A list item's first line, split at its marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ItemStart<'a> {
    /// The item's text on this line: what follows the marker and the spaces or tabs
    /// after it (empty for an empty item).
    pub text: &'a str,
    /// The column the item's content starts at: a continuation line indented this far
    /// belongs to the item.
    pub indent: usize,
    /// Whether the text is indented code (five or more columns after the marker), whose
    /// content column is one past the marker: such a line opens no fence.
    pub code: bool,
}

/// The column after `byte` at column `column` (a tab advances to the next multiple of
/// four).
fn advance(column: usize, byte: u8) -> usize {
    if byte == b'\t' {
        column + 4 - column % 4
    } else {
        column + 1
    }
}

/// Whether `rest` (from the first non-blank character) is a thematic break of `ch`:
/// three or more of it, with only spaces and tabs between.
fn is_thematic_break(rest: &str, ch: u8) -> bool {
    let mut count = 0;
    for b in rest.bytes() {
        match b {
            b' ' | b'\t' => {}
            b if b == ch => count += 1,
            _ => return false,
        }
    }
    count >= 3
}

/// The list item `line` starts, if it starts one (`1.  text`: text `text`, indent 4).
pub(crate) fn item_start(line: &str) -> Option<ItemStart<'_>> {
    let bytes = line.as_bytes();
    let mut column = 0;
    let mut at = 0;
    while let Some(&b @ (b' ' | b'\t')) = bytes.get(at) {
        column = advance(column, b);
        at += 1;
    }
    if column > 3 {
        return None;
    }
    let first = *bytes.get(at)?;
    let marker = match first {
        b'-' | b'*' | b'+' => {
            if first != b'+' && is_thematic_break(&line[at..], first) {
                return None;
            }
            1
        }
        b'0'..=b'9' => {
            let digits = bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 9 || !matches!(bytes.get(at + digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    at += marker;
    column += marker;
    let after_marker = column;
    let mut spaces = 0;
    let mut text_at = at;
    while let Some(&b @ (b' ' | b'\t')) = bytes.get(text_at) {
        let next = advance(column, b);
        spaces += next - column;
        column = next;
        text_at += 1;
    }
    let text = &line[text_at..];
    if text.is_empty() {
        // An empty item (the marker alone, or followed by blanks only).
        return Some(ItemStart {
            text,
            indent: after_marker + 1,
            code: false,
        });
    }
    match spaces {
        0 => None,
        1..=4 => Some(ItemStart {
            text,
            indent: after_marker + spaces,
            code: false,
        }),
        _ => Some(ItemStart {
            text,
            indent: after_marker + 1,
            code: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn start(line: &str) -> Option<(&str, usize, bool)> {
        item_start(line).map(|s| (s.text, s.indent, s.code))
    }

    #[test]
    fn markers_as_commonmark_reads_them() {
        for (line, expected) in [
            ("- x", Some(("x", 2, false))),
            ("* x", Some(("x", 2, false))),
            ("+ x", Some(("x", 2, false))),
            ("   - x", Some(("x", 5, false))),
            ("1. x", Some(("x", 3, false))),
            ("123456789) x", Some(("x", 11, false))),
            ("-    x", Some(("x", 5, false))),
            ("-     x", Some(("x", 2, true))),
            ("-\tx", Some(("x", 4, false))),
            ("- \tx", Some(("x", 4, false))),
            ("-\t\tx", Some(("x", 2, true))),
            ("-", Some(("", 2, false))),
            ("1.", Some(("", 3, false))),
            ("- \t", Some(("", 2, false))),
            ("- ```", Some(("```", 2, false))),
            ("    - x", None),
            ("\t- x", None),
            ("  \t- x", None),
            ("\u{3000}- x", None),
            ("-x", None),
            ("1.x", None),
            ("1234567890. x", None),
            ("- - -", None),
            ("***", None),
            ("+ + +", Some(("+ +", 2, false))),
            ("-\u{3000}x", None),
            ("", None),
            ("x", None),
        ] {
            assert_eq!(start(line), expected, "{line:?}");
        }
    }

    #[test]
    fn lists_read_the_shapes_the_two_parsers_read_apart() {
        use super::super::parse_list;
        let texts =
            |body: &str| -> Vec<String> { parse_list(body).into_iter().map(|i| i.text).collect() };
        // A tab after the marker starts an item (the list reader used to need a space).
        assert_eq!(texts("-\tone\n1.\ttwo"), ["one", "two"]);
        // A fence opened after a tab is the item's: its `- b` line stays inside.
        assert_eq!(
            texts("-\t```\n    - b\n    ```\n- c"),
            ["```\n- b\n```", "c"]
        );
        // Ideographic space is text, not indentation; a thematic break starts no item
        // (both go on the entry before them, as any line that starts none does).
        assert_eq!(texts("- a\n\u{3000}- b"), ["a\n\u{3000}- b"]);
        assert_eq!(texts("- a\n- - -"), ["a\n- - -"]);
        // An empty item is an item for both.
        assert_eq!(texts("- a\n-\n- b"), ["a", "", "b"]);
    }

    /// Lines built from the characters that decide a marker.
    fn marker_lines() -> impl Strategy<Value = String> {
        let part = prop_oneof![
            Just(" "),
            Just("\t"),
            Just("-"),
            Just("*"),
            Just("+"),
            Just("1"),
            Just("."),
            Just(")"),
            Just("x"),
            Just("```"),
            Just("#"),
            Just("\u{3000}"),
            Just("\u{a0}"),
        ];
        proptest::collection::vec(part, 0..9).prop_map(|parts| parts.concat())
    }

    /// What `markdown` (a CommonMark parser) makes of `line` alone: `None` when it is
    /// not a list item, else where the item's first child starts (`None` when the item
    /// is empty) and whether that child is indented code.
    fn oracle(line: &str) -> Option<Option<(usize, bool)>> {
        use markdown::mdast::Node;
        let tree = markdown::to_mdast(line, &markdown::ParseOptions::default()).ok()?;
        let Node::List(list) = tree.children()?.first()? else {
            return None;
        };
        let Node::ListItem(item) = list.children.first()? else {
            return None;
        };
        Some(item.children.first().map(|child| {
            let offset = child.position().map_or(0, |p| p.start.offset);
            // Indented code, not a fence (whose node is code too).
            let fence = line[offset..].starts_with(['`', '~']);
            (offset, matches!(child, Node::Code(_)) && !fence)
        }))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The list reader and the fence scanner used to disagree (an empty item, a
        /// tab or U+3000 before or after the marker, five spaces after it): both now
        /// read through `item_start`, which reads a line as CommonMark does.
        #[test]
        fn item_starts_are_commonmark_list_items(line in marker_lines()) {
            let ours = item_start(&line);
            let theirs = oracle(&line);
            prop_assert_eq!(ours.is_some(), theirs.is_some(), "{:?}: {:?} vs {:?}", line, ours, theirs);
            if let (Some(ours), Some(Some((offset, code)))) = (ours, theirs) {
                prop_assert_eq!(ours.code, code, "{:?}", line);
                if !code {
                    prop_assert_eq!(ours.text, &line[offset..], "{:?}", line);
                }
            }
            // The block classifier sees a list item on the same lines.
            if !line.trim_matches([' ', '\t']).is_empty() {
                let block = super::super::block_start(&line) == Some(super::super::BlockStart::ListItem);
                prop_assert_eq!(block, ours.is_some(), "{:?}", line);
            }
        }

        /// Where the fence scanner sees an item's text, the list reader sees the same
        /// text at the same indentation.
        #[test]
        fn the_list_reader_and_the_fence_scanner_agree(line in marker_lines()) {
            let listed = super::super::list::bullet(&line);
            let scanned = super::super::escape::item_content(&line);
            match scanned {
                Some(found) => prop_assert_eq!(listed, Some(found), "{:?}", line),
                None => prop_assert!(
                    listed.is_none() || item_start(&line).is_some_and(|s| s.code || s.text.is_empty()),
                    "{:?}", line
                ),
            }
        }
    }
}
