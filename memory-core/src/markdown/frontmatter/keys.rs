//! The top-level keys of a frontmatter block, in order, with the byte spans of their
//! lines, keys and values, found in one pass over the YAML text without allocating per
//! line.

use std::borrow::Cow;
use std::ops::Range;

use super::super::ParseIssue;
use super::lex::{self, Lead, Open};
use super::locate::{Frontmatter, line_at};

/// How a top-level value is written; edits keep it where the new value allows.
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

/// One top-level `key: value` entry of the frontmatter.
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

/// A located frontmatter block with its top-level entries.
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
        let entries = scan(text, &frontmatter)?;
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

/// Whether the line holds a raw NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR, which
/// YAML 1.1 (and so serde_yaml) reads as a line break where a Markdown editor shows none.
fn has_unicode_break(line: &[u8]) -> bool {
    memchr::memchr2_iter(0xc2, 0xe2, line).any(|i| match line[i] {
        0xc2 => line.get(i + 1) == Some(&0x85),
        _ => line.get(i + 1) == Some(&0x80) && matches!(line.get(i + 2), Some(0xa8 | 0xa9)),
    })
}

/// Scans the top-level entries of the located block.
pub(super) fn scan(text: &str, fm: &Frontmatter) -> Result<Vec<KeyEntry>, ParseIssue> {
    let b = text.as_bytes();
    let mut entries: Vec<KeyEntry> = Vec::new();
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
                let Some(c) = cur.as_mut().filter(|c| !c.has_inline_token) else {
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
            let (lead, scanned) = if v >= end || lex::comment_at(b, v) {
                (
                    None,
                    lex::Scanned {
                        content_end: colon,
                        open: Open::None,
                    },
                )
            } else {
                lex::scan_value(b, v, end, 0)
            };
            open = scanned.open;
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
