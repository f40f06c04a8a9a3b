//! The top-level keys of a frontmatter block, in order, with the byte spans of their
//! lines, keys and values, found in one pass over the YAML text without allocating per
//! line.

use std::borrow::Cow;
use std::ops::Range;

use super::super::ParseIssue;
use super::lex::{self, Lead, Open};
use super::locate::{Frontmatter, line_at};

/// How a top-level value is written; edits keep it where the new value allows.
///
/// ```
/// use memory_core::markdown::{FrontmatterKeys, ValueStyle};
/// let text = "---\na: 'x'\nb:\n  - y\nc: |\n   z\n---\n";
/// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
/// let styles: Vec<ValueStyle> = keys.entries.iter().map(|e| e.style).collect();
/// assert_eq!(styles, [
///     ValueStyle::SingleQuoted,
///     ValueStyle::BlockSequence { indent: 2, gap: 1 },
///     ValueStyle::BlockScalar { folded: false, indent: 3 },
/// ]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueStyle {
    /// Nothing after the key (`key:`), which YAML reads as null.
    Empty,
    /// A plain scalar (`key: value`), possibly continued on more lines.
    Plain,
    /// `'single quoted'`
    SingleQuoted,
    /// `"double quoted"`
    DoubleQuoted,
    /// `[a, b]`, possibly over several lines.
    FlowSequence,
    /// `{a: 1}`, possibly over several lines.
    FlowMapping,
    /// `- a` lines; `indent` is the column of the `-`, `gap` the spaces after it.
    BlockSequence {
        /// Column of the first item's `-`.
        indent: usize,
        /// Spaces between the `-` and the item.
        gap: usize,
    },
    /// A nested `sub: value` mapping on the lines below.
    BlockMapping,
    /// `|` (literal) or `>` (folded) with content lines indented by `indent` (0 when
    /// the scalar has no content lines).
    BlockScalar {
        /// Whether the header is `>`.
        folded: bool,
        /// The content lines' column.
        indent: usize,
    },
    /// `*anchor`
    Alias,
}

/// One top-level `key: value` entry of the frontmatter, located by byte ranges.
///
/// ```
/// use memory_core::markdown::FrontmatterKeys;
/// let text = "---\nstatus: accepted # reviewed\n# note\n---\n";
/// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
/// let status = &keys.entries[0];
/// assert_eq!(&text[status.key.clone()], "status");
/// assert_eq!(&text[status.value.clone()], "accepted");
/// assert_eq!(&text[status.entry.clone()], "status: accepted # reviewed\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEntry {
    /// 1-based file line of the key.
    pub line: usize,
    /// The key as written (quotes included).
    pub key: Range<usize>,
    /// Just past the key's `:`.
    pub colon: usize,
    /// Everything that belongs to the value: properties (`&anchor`, `!tag`), the scalar
    /// or collection with all its lines, a block scalar's last line break (and, for `|+`,
    /// its trailing blank lines); not a trailing comment, nor comment or blank lines after
    /// it. Empty, at `colon`, for an empty value. Starts at a line's beginning when the
    /// value starts below the key.
    pub value: Range<usize>,
    /// The whole entry: from the key line's start to just past the terminator of the
    /// value's last line (comment and blank lines after it excluded).
    pub entry: Range<usize>,
    /// Whether the value starts on the key's line.
    pub inline: bool,
    /// How the value is written.
    pub style: ValueStyle,
    /// Whether the key is quoted (then [`KeyEntry::name`] decodes it).
    pub quoted: bool,
    /// `Some(keep)` when the entry's last line is block scalar content (`keep`: its
    /// chomping is `+`): indented lines, and for `keep` blank lines, right after such an
    /// entry would join its value.
    pub block_tail: Option<bool>,
}

impl KeyEntry {
    /// The key's name: a plain key as written, a quoted one decoded.
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\n\"it's\": 1\n'a ''b''': 2\nkey with spaces: 3\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let names: Vec<_> = keys.entries.iter().map(|e| e.name(text)).collect();
    /// assert_eq!(names, ["it's", "a 'b'", "key with spaces"]);
    /// ```
    pub fn name<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let raw = text.get(self.key.clone()).unwrap_or("");
        if !self.quoted {
            return Cow::Borrowed(raw);
        }
        match serde_yaml::from_str::<String>(raw) {
            Ok(name) => Cow::Owned(name),
            Err(_) => Cow::Borrowed(raw),
        }
    }

    /// The value's text as written.
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\ntags: [a, b] # two\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// assert_eq!(keys.entries[0].raw_value(text), "[a, b]");
    /// ```
    pub fn raw_value<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.value.clone()).unwrap_or("")
    }
}

/// A located frontmatter block with its top-level entries, from which one-key edits
/// ([`FrontmatterKeys::set`], [`FrontmatterKeys::remove`]) and the typed mapping
/// ([`FrontmatterKeys::mapping`]) are made.
///
/// ```
/// use memory_core::markdown::FrontmatterKeys;
/// let text = "---\na: 1\nb: [x]\n---\nbody\n";
/// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
/// assert_eq!(keys.entries.len(), 2);
/// assert_eq!(keys.frontmatter.body(text), "body\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterKeys {
    /// Where the block is.
    pub frontmatter: Frontmatter,
    /// The top-level entries in file order.
    pub entries: Vec<KeyEntry>,
}

impl FrontmatterKeys {
    /// Locates the frontmatter of `text` and scans its top-level keys: `Ok(None)` without
    /// frontmatter; a [`ParseIssue`] naming the file line for an unclosed block, a
    /// duplicate key (the second), a `? ` complex key, a line that is not `key: value`,
    /// an indented first key or a raw U+0085/U+2028/U+2029 (YAML 1.1 line breaks).
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\nstatus: accepted # ok\ntags:\n- a\n- b\n\n# end\n---\nBody\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let tags = keys.get(text, "tags").unwrap();
    /// assert_eq!((tags.line, tags.raw_value(text)), (3, "- a\n- b"));
    /// assert_eq!(keys.get(text, "status").unwrap().raw_value(text), "accepted");
    /// let dup = "---\na: 1\nb: 2\na: 3\n---\n";
    /// assert_eq!(FrontmatterKeys::read(dup).unwrap_err().line, 4);
    /// ```
    pub fn read(text: &str) -> Result<Option<FrontmatterKeys>, ParseIssue> {
        let Some(frontmatter) = Frontmatter::locate(text)? else {
            return Ok(None);
        };
        // The usual block in one pass; any other is left to the general scan.
        let entries = match super::simple_scan::scan_simple(text, &frontmatter) {
            Some(entries) => entries,
            None => scan(text, &frontmatter)?,
        };
        Ok(Some(FrontmatterKeys {
            frontmatter,
            entries,
        }))
    }

    /// The entry of `key` (compared with [`KeyEntry::name`]).
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\n'status': draft\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// assert_eq!(keys.get(text, "status").unwrap().line, 2);
    /// assert!(keys.get(text, "tags").is_none());
    /// ```
    pub fn get(&self, text: &str, key: &str) -> Option<&KeyEntry> {
        self.position(text, key).map(|i| &self.entries[i])
    }

    /// The index of `key`'s entry.
    pub(super) fn position(&self, text: &str, key: &str) -> Option<usize> {
        self.entries.iter().position(|e| {
            let raw = text.get(e.key.clone()).unwrap_or("");
            if e.quoted {
                e.name(text) == key
            } else {
                raw == key
            }
        })
    }
}

/// The entry being built.
struct Building {
    entry: KeyEntry,
    /// Where the value starts, once known.
    value_start: Option<usize>,
    /// Whether the key's line holds a value token (other than properties).
    has_inline_token: bool,
    /// Whether the value's style is still to be found on the next content line.
    style_pending: bool,
    /// Whether the value is a block scalar whose content indent is still unknown.
    block_indent_pending: bool,
}

impl Building {
    fn content(&mut self, line_start: usize, value_end: usize, line_next: usize) {
        self.entry.block_tail = None;
        self.value_start.get_or_insert(line_start);
        self.entry.value.end = value_end;
        self.entry.entry.end = line_next;
    }

    fn finish(mut self) -> KeyEntry {
        let start = self.value_start.unwrap_or(self.entry.colon);
        self.entry.value.start = start;
        self.entry.value.end = self.entry.value.end.max(start);
        if self.style_pending && !self.entry.value.is_empty() {
            // Only properties (`key: &anchor`, `key: !tag`): an empty node written plain.
            self.entry.style = ValueStyle::Plain;
        }
        self.entry
    }
}

fn issue(line: usize, message: impl Into<String>) -> ParseIssue {
    ParseIssue {
        line,
        message: message.into(),
    }
}

/// The style a nested value line starting at `first` (column `col`) begins.
fn nested_style(b: &[u8], first: usize, end: usize, col: usize) -> ValueStyle {
    if lex::indicator_at(b, first, end, b'-') {
        let token = lex::skip_ws(b, first + 1, end);
        let gap = if token >= end { 1 } else { token - first - 1 };
        return ValueStyle::BlockSequence { indent: col, gap };
    }
    if lex::key_at(b, first, end).is_some() || lex::indicator_at(b, first, end, b'?') {
        return ValueStyle::BlockMapping;
    }
    let token = lex::skip_properties(b, first, end);
    match lex::scan_value(b, token, end, col).0 {
        Some(lead) => lead_style(lead),
        None => ValueStyle::Plain,
    }
}

fn lead_style(lead: Lead) -> ValueStyle {
    match lead {
        Lead::Double => ValueStyle::DoubleQuoted,
        Lead::Single => ValueStyle::SingleQuoted,
        Lead::FlowSeq => ValueStyle::FlowSequence,
        Lead::FlowMap => ValueStyle::FlowMapping,
        Lead::Block { folded, .. } => ValueStyle::BlockScalar { folded, indent: 0 },
        Lead::Alias => ValueStyle::Alias,
        Lead::Plain => ValueStyle::Plain,
    }
}

/// Refuses a block scalar header with anything but indicators and a comment after it.
fn bad_header(open: Open, line: usize) -> Result<(), ParseIssue> {
    match open {
        Open::BadHeader => Err(issue(
            line,
            "a `|` or `>` block scalar header may only be followed by an indentation digit, \
             `+` or `-`, and a comment",
        )),
        _ => Ok(()),
    }
}

/// Whether a plain scalar's text holds `: ` (or ends with `:`), which YAML reads as a
/// second key on the line.
pub(super) fn plain_has_pair(text: &[u8]) -> bool {
    memchr::memchr_iter(b':', text).any(|i| i + 1 == text.len() || lex::ws(text[i + 1]))
}

/// Whether the line holds a raw NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR, which
/// YAML 1.1 (and so serde_yaml) reads as a line break where a Markdown editor shows none.
pub(super) fn has_unicode_break(line: &[u8]) -> bool {
    memchr::memchr2_iter(0xc2, 0xe2, line).any(|i| match line[i] {
        0xc2 => line.get(i + 1) == Some(&0x85),
        _ => line.get(i + 1) == Some(&0x80) && matches!(line.get(i + 2), Some(0xa8 | 0xa9)),
    })
}

/// Scans the top-level entries of the located block.
pub(super) fn scan(text: &str, fm: &Frontmatter) -> Result<Vec<KeyEntry>, ParseIssue> {
    let b = text.as_bytes();
    let mut entries: Vec<KeyEntry> = Vec::with_capacity(16);
    let mut cur: Option<Building> = None;
    let mut open = Open::None;
    // For a `|+` block scalar: just past the last blank line seen after its content.
    let mut keep_end: Option<usize> = None;
    let mut owners = lex::Owners::default();
    let mut at = fm.yaml.start;
    let mut number = fm.yaml_line;
    while at < fm.yaml.end {
        let (end, next) = line_at(b, at);
        let (ls, line_no) = (at, number);
        at = next;
        number += 1;
        if has_unicode_break(&b[ls..end]) {
            return Err(issue(
                line_no,
                "a raw U+0085, U+2028 or U+2029 character is a line break in YAML; write it \
                 as \\N, \\L or \\P inside double quotes",
            ));
        }
        let sp = b[ls..end].iter().take_while(|&&c| c == b' ').count();
        let first = lex::skip_ws(b, ls, end);
        if let Open::Block {
            parent,
            indent,
            keep,
        } = open
        {
            let Some(c) = cur.as_mut() else {
                open = Open::None;
                continue;
            };
            if first >= end {
                if indent.is_some_and(|i| sp > i) {
                    c.content(ls, next, next);
                    c.entry.block_tail = Some(keep);
                    keep_end = None;
                } else if keep {
                    keep_end = Some(next);
                }
                continue;
            }
            let content_indent = indent.or((sp > parent).then_some(sp));
            if let Some(i) = content_indent.filter(|&i| sp >= i) {
                open = Open::Block {
                    parent,
                    indent: Some(i),
                    keep,
                };
                if c.block_indent_pending {
                    c.block_indent_pending = false;
                    if let ValueStyle::BlockScalar { folded, .. } = c.entry.style {
                        c.entry.style = ValueStyle::BlockScalar { folded, indent: i };
                    }
                }
                c.content(ls, next, next);
                c.entry.block_tail = Some(keep);
                keep_end = None;
                continue;
            }
            if let Some(k) = keep_end.take() {
                c.content(ls, k, k);
                c.entry.block_tail = Some(keep);
            }
            open = Open::None;
        }
        match open {
            Open::Quoted { double, depth } => {
                let scanned = match lex::close_quote(b, ls, end, double) {
                    Some(q) if depth > 0 => lex::scan_flow(b, q, end, depth, false),
                    Some(q) => lex::after_node(b, q, end),
                    None => lex::Scanned {
                        closed_at: None,
                        content_end: end,
                        open,
                    },
                };
                open = scanned.open;
                if let Some(c) = cur.as_mut() {
                    c.content(ls, scanned.content_end.max(ls), next);
                }
                continue;
            }
            Open::Flow { depth } => {
                let scanned = lex::scan_flow(b, ls, end, depth, true);
                open = scanned.open;
                if let Some(c) = cur.as_mut()
                    && scanned.content_end > first
                {
                    c.content(ls, scanned.content_end, next);
                }
                continue;
            }
            _ => {}
        }
        if first >= end {
            continue;
        }
        if lex::comment_at(b, first) {
            open = Open::None;
            continue;
        }
        if let Open::Plain { parent } = open
            && sp > parent
        {
            let content_end = lex::plain_end(b, first, end);
            if let Some(c) = cur.as_mut() {
                c.content(ls, content_end, next);
            }
            continue;
        }
        if sp == 0 && b[ls] != b'\t' {
            if lex::indicator_at(b, ls, end, b'-') {
                // Only a block list written at the key's column continues the entry.
                let column_0_list = |c: &&mut Building| {
                    !c.has_inline_token
                        && (c.style_pending
                            || matches!(c.entry.style, ValueStyle::BlockSequence { indent: 0, .. }))
                };
                let Some(c) = cur.as_mut().filter(column_0_list) else {
                    return Err(issue(
                        line_no,
                        "a `- ` list item at the start of a line must belong to the key \
                         above it, which has no value on its own line",
                    ));
                };
                if c.style_pending {
                    c.style_pending = false;
                    c.entry.style = nested_style(b, ls, end, 0);
                }
                let scanned = lex::scan_nodes(b, ls, end, ls, &mut owners);
                open = scanned.open;
                bad_header(open, line_no)?;
                c.content(ls, scanned.content_end, next);
                continue;
            }
            if lex::indicator_at(b, ls, end, b'?') {
                return Err(issue(
                    line_no,
                    "complex keys (`? key`) are not supported in frontmatter; write `key: value`",
                ));
            }
            if b[ls] == b'%' {
                return Err(issue(
                    line_no,
                    "YAML directives (`%…`) are not allowed in frontmatter",
                ));
            }
            let Some((key_end, colon)) = lex::key_at(b, ls, end) else {
                return Err(issue(
                    line_no,
                    "this line is not a `key: value` entry (a value containing `: ` or \
                     starting with a special character must be quoted)",
                ));
            };
            if let Some(done) = cur.take() {
                entries.push(done.finish());
            }
            owners.reset();
            let v = lex::skip_ws(b, colon, end);
            let token = lex::skip_properties(b, v, end);
            if !lex::properties_ok(&b[v..token]) {
                return Err(issue(
                    line_no,
                    "an `&anchor` or `*alias` name may only hold letters, digits, `-` and `_`",
                ));
            }
            if [b'-', b'?', b':']
                .iter()
                .any(|&c| lex::indicator_at(b, token, end, c))
            {
                return Err(issue(
                    line_no,
                    "a value on the key's line cannot start with `- `, `? ` or `: `; put it in \
                     double quotes (or start a list on the next line)",
                ));
            }
            let (lead, scanned) = if v >= end || lex::comment_at(b, v) {
                (
                    None,
                    lex::Scanned {
                        closed_at: None,
                        content_end: colon,
                        open: Open::None,
                    },
                )
            } else {
                lex::scan_value(b, v, end, 0)
            };
            open = scanned.open;
            bad_header(open, line_no)?;
            if lead == Some(Lead::Plain) && plain_has_pair(&b[token..scanned.content_end]) {
                return Err(issue(
                    line_no,
                    "a value contains `: `; put the value in double quotes",
                ));
            }
            let node = matches!(
                lead,
                Some(Lead::Double | Lead::Single | Lead::FlowSeq | Lead::FlowMap)
            );
            if node
                && !matches!(open, Open::Quoted { .. } | Open::Flow { .. })
                && scanned.closed_at != Some(scanned.content_end)
            {
                return Err(issue(
                    line_no,
                    "unexpected text after a quoted value or a `[…]`/`{…}` collection",
                ));
            }
            let has_value = scanned.content_end > colon && v < end && !lex::comment_at(b, v);
            let style = lead.map_or(ValueStyle::Empty, lead_style);
            cur = Some(Building {
                entry: KeyEntry {
                    line: line_no,
                    key: ls..key_end,
                    colon,
                    value: colon..if has_value {
                        scanned.content_end
                    } else {
                        colon
                    },
                    entry: ls..next,
                    inline: has_value,
                    style,
                    quoted: b[ls] == b'"' || b[ls] == b'\'',
                    block_tail: None,
                },
                value_start: has_value.then_some(v),
                has_inline_token: lead.is_some(),
                style_pending: lead.is_none(),
                block_indent_pending: matches!(
                    lead,
                    Some(Lead::Block {
                        indicator: None,
                        ..
                    })
                ),
            });
            if let Some(Lead::Block {
                indicator: Some(m),
                folded,
            }) = lead
                && let Some(c) = cur.as_mut()
            {
                c.entry.style = ValueStyle::BlockScalar { folded, indent: m };
            }
            continue;
        }
        let Some(c) = cur.as_mut() else {
            return Err(issue(
                line_no,
                "the first frontmatter key must start at the beginning of its line",
            ));
        };
        if c.style_pending {
            c.style_pending = false;
            c.entry.style = nested_style(b, first, end, sp);
        }
        let scanned = lex::scan_nodes(b, first, end, ls, &mut owners);
        open = scanned.open;
        bad_header(open, line_no)?;
        c.content(ls, scanned.content_end, next);
    }
    if let (Open::Block { keep, .. }, Some(k), Some(c)) = (open, keep_end, cur.as_mut()) {
        c.content(k, k, k);
        c.entry.block_tail = Some(keep);
    }
    match open {
        Open::Quoted { .. } => {
            let line = cur.as_ref().map_or(fm.yaml_line, |c| c.entry.line);
            return Err(issue(line, "a quoted value is never closed"));
        }
        Open::Flow { .. } => {
            let line = cur.as_ref().map_or(fm.yaml_line, |c| c.entry.line);
            return Err(issue(line, "a `[` or `{` list is never closed"));
        }
        _ => {}
    }
    if let Some(done) = cur.take() {
        entries.push(done.finish());
    }
    check_duplicates(text, &entries)?;
    Ok(entries)
}

/// Refuses a key that appears twice, naming the second occurrence's line.
fn check_duplicates(text: &str, entries: &[KeyEntry]) -> Result<(), ParseIssue> {
    // The usual block (a few dozen plain keys) is checked pair by pair, without
    // allocating; quoted keys or many keys go through a map of decoded names.
    if entries.len() <= 32 && entries.iter().all(|e| !e.quoted) {
        let raw = |e: &KeyEntry| text.get(e.key.clone()).unwrap_or("");
        for (i, e) in entries.iter().enumerate() {
            if let Some(first) = entries[..i].iter().find(|f| raw(f) == raw(e)) {
                return Err(issue(
                    e.line,
                    format!("duplicate key `{}` (first on line {})", raw(e), first.line),
                ));
            }
        }
        return Ok(());
    }
    let mut seen: rustc_hash::FxHashMap<Cow<'_, str>, usize> = rustc_hash::FxHashMap::default();
    seen.reserve(entries.len());
    for e in entries {
        if let Some(first) = seen.insert(e.name(text), e.line) {
            return Err(issue(
                e.line,
                format!("duplicate key `{}` (first on line {first})", e.name(text)),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> FrontmatterKeys {
        FrontmatterKeys::read(text).unwrap().unwrap()
    }

    #[test]
    fn refusals_name_the_line() {
        let cases = [
            ("---\na: 1\n? complex\n: v\n---\n", 3, "complex keys"),
            ("---\na: 1\nb: 2\n\"a\": 3\n---\n", 4, "duplicate key `a`"),
            ("---\n  a: 1\n---\n", 2, "beginning of its line"),
            ("---\n- a\n---\n", 2, "list item"),
            ("---\na: x\n- b\n---\n", 3, "list item"),
            ("---\na:\n  b\n- c\n---\n", 4, "list item"),
            ("---\n%YAML 1.2\na: 1\n---\n", 2, "directives"),
            ("---\na: 1\njust text\n---\n", 3, "not a `key: value`"),
            ("---\na: 1\nb: x\u{2028}c: 2\n---\n", 3, "U+2028"),
            ("---\na: 1\nb: \"open\nc: 2\n---\n", 3, "never closed"),
            ("---\na: [1,\n  2\n---\n", 2, "never closed"),
            ("---\na: 1\nb: - x\n---\n", 3, "cannot start with"),
            ("---\na: &x ? y\n---\n", 2, "cannot start with"),
            ("---\na: b: c\n---\n", 2, "`: `"),
            ("---\na: b:\n---\n", 2, "`: `"),
            ("---\na: 'x' y\n---\n", 2, "after a quoted value"),
            ("---\na: [x]: y\n---\n", 2, "after a quoted value"),
            ("---\na: '' '\n---\n", 2, "after a quoted value"),
            ("---\na: &a:\n---\n", 2, "anchor"),
            ("---\na: [x] ]\n---\n", 2, "after a quoted value"),
            ("x\n", 0, ""),
        ];
        for (text, line, words) in cases {
            match FrontmatterKeys::read(text) {
                Ok(None) if line == 0 => {}
                Err(issue) => {
                    assert_eq!(issue.line, line, "{text:?}: {issue:?}");
                    assert!(issue.message.contains(words), "{text:?}: {issue:?}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn spans_of_every_value_shape() {
        let text = "---\n\
            plain: a b # c\n\
            quoted: \"x\n  y\"   # c\n\
            flow: [1,\n  2]\n\
            empty:   # nothing\n\
            list:\n- a\n- b # last\n\n# gap\n\
            map:\n  s: 1\n  t:\n    - u\n\
            lit: |+\n  keep\n\n\
            fold: >2-\n   x\n\
            anchored: &a !!str v\n\
            alias: *a\n\
            ---\nbody\n";
        let keys = read(text);
        let got: Vec<(String, &str, ValueStyle, bool)> = keys
            .entries
            .iter()
            .map(|e| {
                (
                    e.name(text).into_owned(),
                    e.raw_value(text),
                    e.style,
                    e.inline,
                )
            })
            .collect();
        let expected = [
            ("plain", "a b", ValueStyle::Plain, true),
            ("quoted", "\"x\n  y\"", ValueStyle::DoubleQuoted, true),
            ("flow", "[1,\n  2]", ValueStyle::FlowSequence, true),
            ("empty", "", ValueStyle::Empty, false),
            (
                "list",
                "- a\n- b",
                ValueStyle::BlockSequence { indent: 0, gap: 1 },
                false,
            ),
            (
                "map",
                "  s: 1\n  t:\n    - u",
                ValueStyle::BlockMapping,
                false,
            ),
            (
                "lit",
                "|+\n  keep\n\n",
                ValueStyle::BlockScalar {
                    folded: false,
                    indent: 2,
                },
                true,
            ),
            (
                "fold",
                ">2-\n   x\n",
                ValueStyle::BlockScalar {
                    folded: true,
                    indent: 2,
                },
                true,
            ),
            ("anchored", "&a !!str v", ValueStyle::Plain, true),
            ("alias", "*a", ValueStyle::Alias, true),
        ];
        let expected: Vec<(String, &str, ValueStyle, bool)> = expected
            .into_iter()
            .map(|(k, v, s, i)| (k.to_string(), v, s, i))
            .collect();
        assert_eq!(got, expected);
        let list = keys.get(text, "list").unwrap();
        assert_eq!(&text[list.entry.clone()], "list:\n- a\n- b # last\n");
        assert_eq!(list.line, 8);
        assert_eq!(keys.get(text, "lit").unwrap().block_tail, Some(true));
        assert_eq!(keys.get(text, "fold").unwrap().block_tail, Some(false));
        let map = keys.frontmatter.mapping(text).unwrap();
        for e in &keys.entries {
            let name = e.name(text);
            let alone = keys.value(text, &name).unwrap().unwrap();
            assert_eq!(Some(&alone), map.get(name.as_ref()), "{name}");
        }
    }

    #[test]
    fn empty_and_comment_only_blocks_have_no_keys() {
        for text in [
            "---\n---\n",
            "---\n# c\n\n---\nbody",
            "\u{feff}---\r\n\r\n...\r\n",
        ] {
            let keys = read(text);
            assert!(keys.entries.is_empty(), "{text:?}");
            assert!(keys.frontmatter.mapping(text).unwrap().is_empty());
        }
    }
}
