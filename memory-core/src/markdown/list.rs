//! List items of a section body, kept with their original text for lossless re-rendering.

use super::escape::{FenceScan, decode_lines, encode_lines};
use super::marker::item_start;

/// One entry of a list-shaped section: a `-`/`*`/`+`/`1.` item with its continuation
/// lines, or a stray paragraph (kept as an entry so that nothing is ever dropped).
///
/// An item goes on over lines that do not start a new item, and over blank lines when
/// the line after them is indented at least to the item's text (CommonMark's rule), or
/// when they are inside fenced code the item opened: a fence is part of its item, blank
/// lines and item-like lines in it included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    /// The entry's text as written: bullet removed, continuation lines without the
    /// item's indentation, joined with `\n`, trailing blanks trimmed. Values written by
    /// [`render_item_line`] are escaped; [`ListItem::value`] reads them back.
    pub text: String,
    /// The entry's original lines, exactly, joined with `\n` (no final terminator).
    pub raw: String,
    /// Whether a blank line separated the entry from the one before it.
    pub blank_before: bool,
    /// For each line of `text`, whether it is inside fenced code.
    pub fenced: Vec<bool>,
}

impl ListItem {
    /// The value `text` holds, unescaped (see [`render_item_line`]).
    ///
    /// ```
    /// use memory_core::markdown::{parse_list, render_item_line};
    /// let item = &parse_list(&render_item_line("## not a heading\n- not an item"))[0];
    /// assert_eq!(item.value(), "## not a heading\n- not an item");
    /// ```
    pub fn value(&self) -> String {
        value_of(&self.text, &self.fenced)
    }
}

/// The value `text` (a part of an item's `text` that starts where it starts, such as
/// the text after a marking) holds, unescaped.
pub(crate) fn value_of(text: &str, fenced: &[bool]) -> String {
    decode_lines(
        text.split('\n')
            .zip(fenced.iter().copied().chain(std::iter::repeat(false))),
    )
}

/// Parses a section body into entries. Blank lines separate entries unless the item
/// goes on after them (see [`ListItem`]); a bullet line starts a new entry; other lines
/// continue the current entry.
///
/// ```
/// use memory_core::markdown::parse_list;
/// let items = parse_list("- one\n  more\n* two\n\n  still two\n\nloose text\n");
/// let texts: Vec<_> = items.iter().map(|i| i.text.as_str()).collect();
/// assert_eq!(texts, ["one\nmore", "two\n\nstill two", "loose text"]);
/// assert_eq!(items[0].raw, "- one\n  more");
/// let fenced = parse_list("- code:\n  ```\n  a\n\n  - b\n  ```\n- next");
/// assert_eq!(fenced.len(), 2);
/// assert_eq!(fenced[0].text, "code:\n```\na\n\n- b\n```");
/// ```
pub fn parse_list(body: &str) -> Vec<ListItem> {
    let mut items: Vec<ListItem> = Vec::new();
    // The open entry's text indentation; `None` when no entry is open.
    let mut open: Option<usize> = None;
    let mut blanks: Vec<&str> = Vec::new();
    let mut scan = FenceScan::default();
    let mut fence_in_item = false;
    for line in body.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let was_open = scan.is_open();
        let fenced = scan.step_list(line);
        if was_open && fence_in_item {
            // Inside a fence an entry opened: part of it whatever it holds.
            if let (Some(item), Some(indent)) = (items.last_mut(), open) {
                for blank in blanks.drain(..) {
                    push_line(item, blank, indent, true);
                }
                push_line(item, line, indent, true);
            }
            fence_in_item = scan.is_open();
            continue;
        }
        if line.trim().is_empty() {
            blanks.push(line);
            continue;
        }
        let after_blank = !blanks.is_empty();
        let continues = match open {
            Some(indent) if after_blank => indent_of(line) >= indent && bullet(line).is_none(),
            Some(_) => bullet(line).is_none(),
            None => false,
        };
        match (continues, items.last_mut(), open) {
            (true, Some(item), Some(indent)) => {
                for blank in blanks.drain(..) {
                    push_line(item, blank, indent, false);
                }
                push_line(item, line, indent, fenced);
            }
            _ => {
                let blank_before = after_blank && !items.is_empty();
                blanks.clear();
                let (text, indent) = match bullet(line) {
                    Some((text, indent)) => (text, indent),
                    None => (line.trim_start(), indent_of(line)),
                };
                items.push(ListItem {
                    text: text.to_string(),
                    raw: line.to_string(),
                    blank_before,
                    // A fence opened on the item's line: the rest of that line is the
                    // fence's info, not code; read it as text.
                    fenced: vec![fenced && bullet(line).is_none()],
                });
                open = Some(indent);
            }
        }
        fence_in_item = scan.is_open();
    }
    for item in &mut items {
        let kept = item.text.trim_end().len();
        item.text.truncate(kept);
        let lines = item.text.split('\n').count();
        item.fenced.truncate(lines);
    }
    items
}

/// Adds `line` to `item`, without up to `indent` leading spaces.
fn push_line(item: &mut ListItem, line: &str, indent: usize, fenced: bool) {
    item.raw.push('\n');
    item.raw.push_str(line);
    let strip = indent_of(line).min(indent);
    item.text.push('\n');
    item.text.push_str(&line[strip..]);
    item.fenced.push(fenced);
}

/// Leading spaces of a line (a tab is not counted: continuation lines are compared and
/// stripped by their spaces; where an item starts, [`item_start`] counts columns).
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The text after a bullet and the indentation of that text, for a bullet line (an
/// empty item and one whose text is indented code included): [`item_start`], the
/// reading the fence scanner shares.
pub(super) fn bullet(line: &str) -> Option<(&str, usize)> {
    item_start(line).map(|start| (start.text, start.indent))
}

/// Renders a value as a `- ` bullet: inner line breaks become continuation lines
/// indented by two spaces (blank lines stay empty), and the value is escaped so that it
/// reads back as itself: a line that would start a Markdown block (`#`, `>`, a list
/// marker, a fence the value does not close, a leading `\`) gets a `\` before its first
/// character (`1\.` for an ordered marker), and fenced code the value closes is kept as
/// it is. Surrounding blank space of the value is trimmed, as are spaces on blank lines.
///
/// ```
/// use memory_core::markdown::{parse_list, render_item_line};
/// assert_eq!(render_item_line("a\nb"), "- a\n  b");
/// assert_eq!(render_item_line("a\n\n- b"), "- a\n\n  \\- b");
/// let text = "plan:\n```\n## step\n\n- x\n```";
/// assert_eq!(parse_list(&render_item_line(text))[0].value(), text);
/// ```
pub fn render_item_line(text: &str) -> String {
    render_item(text, false)
}

/// [`render_item_line`], escaping the first character when `escape_first` (a text that
/// would otherwise read as starting with a marking).
pub(crate) fn render_item(text: &str, escape_first: bool) -> String {
    let lines = value_lines(text);
    let stored = encode_lines(&lines, "  ", true, escape_first);
    let mut out = String::from("- ");
    for (i, line) in stored.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str("  ");
            }
        }
        out.push_str(line);
    }
    out
}

/// A value's lines: CRLF read as LF, surrounding blank space trimmed, lines holding only
/// spaces or tabs made empty.
pub(crate) fn value_lines(text: &str) -> Vec<&str> {
    text.trim()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .map(|l| if l.trim().is_empty() { "" } else { l })
        .collect()
}
