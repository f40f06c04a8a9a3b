//! The block context of every line, as GFM — and Obsidian, for its `%% … %%` comments —
//! renders it: plain text, indented code, a fenced code block, a blockquote or callout (with
//! its lazy continuation lines), a list item's lazy paragraph, an HTML block, or a comment.
//! Only lines in [`Context::Text`] can hold a table that is rendered as one.

use super::Line;
use super::lines::{LineIter, closes_fence, opens_fence};

/// Where a line stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Ordinary top-level text: paragraphs, tables, headings, blank lines.
    Text,
    /// Indented code (4 columns or more, not continuing a paragraph).
    Indented,
    /// Inside a fenced code block, fence lines included.
    Fence,
    /// A blockquote or callout line (`>`, `> [!note]`), or a lazy continuation of one.
    Quote,
    /// A list item line or a lazy continuation of its paragraph.
    List,
    /// An HTML block (`<div>`, `<pre>`, a lone tag…).
    Html,
    /// Inside an HTML comment `<!-- … -->` or an Obsidian comment `%% … %%`.
    Comment,
}

impl Context {
    /// How the context is named in messages.
    ///
    /// ```
    /// use memory_core::markdown::Context;
    /// assert_eq!(Context::Quote.describe(), "a blockquote or callout");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Context::Text => "text",
            Context::Indented => "an indented code block",
            Context::Fence => "a fenced code block",
            Context::Quote => "a blockquote or callout",
            Context::List => "a list item",
            Context::Html => "an HTML block",
            Context::Comment => "a comment (<!-- … --> or %% … %%)",
        }
    }
}

/// A line with its context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockLine<'a> {
    /// The line.
    pub line: Line<'a>,
    /// Where it stands.
    pub context: Context,
    /// Whether the line is a lazy continuation of a blockquote's or list item's
    /// paragraph (written without `>` or indentation, rendered inside it).
    pub lazy: bool,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Open,
    Fence(u8, usize),
    HtmlComment,
    Obsidian,
    /// An HTML block that ends at a line containing the text, or (None) at a blank line.
    Html(Option<&'static str>),
}

/// Every line of `text` with its [`Context`].
///
/// ```
/// use memory_core::markdown::{Context, block_lines};
/// let text = "a\n> [!note]\n> | x |\n%%\n| y |\n%%\n    code\n";
/// let contexts: Vec<Context> = block_lines(text).map(|l| l.context).collect();
/// assert_eq!(contexts, [Context::Text, Context::Quote, Context::Quote, Context::Comment,
///     Context::Comment, Context::Comment, Context::Indented]);
/// ```
pub fn block_lines(text: &str) -> impl Iterator<Item = BlockLine<'_>> {
    Classifier::new(text)
}

/// The lines of a document with their contexts, and the fence, comment or HTML block
/// still open at the end of the document (it hides every line after its opening line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocks<'a> {
    /// Every line, in order (`lines[i].line.number == i + 1`).
    pub lines: Vec<BlockLine<'a>>,
    /// The 1-based line and context of a region never closed, if any.
    pub unclosed: Option<(usize, Context)>,
}

/// Classifies every line of `text`; see [`block_lines`].
///
/// ```
/// let blocks = memory_core::markdown::classify("| a |\n<!--\n| b |\n");
/// assert_eq!(blocks.unclosed, Some((2, memory_core::markdown::Context::Comment)));
/// assert!(memory_core::markdown::classify("```\nx\n```\n").unclosed.is_none());
/// ```
pub fn classify(text: &str) -> Blocks<'_> {
    // One entry per line, allocated (and, when large, mapped) once.
    let mut out = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
    crate::prefault::prefault(&mut out);
    let mut classifier = Classifier::new(text);
    out.extend(&mut classifier);
    Blocks {
        lines: out,
        unclosed: classifier.unclosed(),
    }
}

/// The block classifier, one line at a time: [`classify`] and [`block_lines`] collect
/// it, the table scanner reads it as a stream (no vector of every line).
#[derive(Debug, Clone)]
pub(crate) struct Classifier<'a> {
    lines: LineIter<'a>,
    state: State,
    /// The container whose paragraph a following plain line would lazily continue.
    lazy: Option<Context>,
    /// Whether the previous line was paragraph text (indented lines then continue it).
    paragraph: bool,
    opened_at: usize,
}

impl<'a> Classifier<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Classifier {
            lines: LineIter::new(text),
            state: State::Open,
            lazy: None,
            paragraph: false,
            opened_at: 0,
        }
    }

    /// The next line, and whether it stands inside a fence, comment or HTML block opened
    /// on an earlier line (one that, if it is never closed, hides the line).
    #[inline]
    pub(crate) fn next_in_region(&mut self) -> Option<(BlockLine<'a>, bool)> {
        let line = self.lines.next()?;
        let inside = !matches!(self.state, State::Open | State::Html(None));
        Some((self.step(line), inside))
    }

    /// The next line of the text, not yet classified (give it to [`Self::classify_line`]).
    pub(crate) fn next_line(&mut self) -> Option<Line<'a>> {
        self.lines.next()
    }

    /// Classifies `line`, the next line of the text.
    pub(crate) fn classify_line(&mut self, line: Line<'a>) -> BlockLine<'a> {
        self.step(line)
    }

    /// Whether a fenced code block is open.
    pub(crate) fn in_fence(&self) -> bool {
        matches!(self.state, State::Fence(..))
    }

    /// Whether no fence, comment or HTML block is open.
    pub(crate) fn is_open(&self) -> bool {
        matches!(self.state, State::Open)
    }

    /// Ends the open fenced code block: its container (a list item) ended, as CommonMark
    /// closes a fence at the end of its container.
    pub(crate) fn end_fence(&mut self) {
        if self.in_fence() {
            self.state = State::Open;
            self.lazy = None;
            self.paragraph = false;
        }
    }

    /// The region still open after the lines read so far: after the last line, the
    /// fence, comment or HTML block never closed.
    pub(crate) fn unclosed(&self) -> Option<(usize, Context)> {
        match self.state {
            State::Open | State::Html(None) => None,
            State::Fence(..) => Some((self.opened_at, Context::Fence)),
            State::HtmlComment | State::Obsidian => Some((self.opened_at, Context::Comment)),
            State::Html(Some(_)) => Some((self.opened_at, Context::Html)),
        }
    }

    #[inline]
    fn step(&mut self, line: Line<'a>) -> BlockLine<'a> {
        let t = line.text;
        let mut is_lazy = false;
        let context = match self.state {
            State::Fence(ch, len) => {
                if closes_fence(t, ch, len) {
                    self.state = State::Open;
                }
                Context::Fence
            }
            State::HtmlComment => {
                if memchr::memmem::find(t.as_bytes(), b"-->").is_some() {
                    self.state = State::Open;
                }
                Context::Comment
            }
            State::Obsidian => {
                if double_percents(t) % 2 == 1 {
                    self.state = State::Open;
                }
                Context::Comment
            }
            State::Html(Some(end)) => {
                if contains_ignore_case(t, end) {
                    self.state = State::Open;
                }
                Context::Html
            }
            State::Html(None) if is_blank(t) => {
                self.state = State::Open;
                Context::Text
            }
            State::Html(None) => Context::Html,
            State::Open => {
                let marked = self.lines.may_hold_comment(&line);
                let (context, lazy_line) =
                    open_line(t, marked, &mut self.state, &mut self.lazy, self.paragraph);
                if !matches!(self.state, State::Open) {
                    self.opened_at = line.number;
                }
                is_lazy = lazy_line;
                context
            }
        };
        let continues = context == Context::Indented && self.paragraph;
        self.paragraph = context == Context::Text && starts_paragraph_text(t) || continues;
        // An indented line continues a paragraph instead of starting code.
        let context = if continues { Context::Text } else { context };
        BlockLine {
            line,
            context,
            lazy: is_lazy,
        }
    }
}

impl<'a> Iterator for Classifier<'a> {
    type Item = BlockLine<'a>;

    #[inline]
    fn next(&mut self) -> Option<BlockLine<'a>> {
        self.next_in_region().map(|(line, _)| line)
    }
}

/// Classifies a line read while nothing is open; `marked` is false only when the line
/// holds no `<` and no `%` (so no comment opener).
fn open_line(
    t: &str,
    marked: bool,
    state: &mut State,
    lazy: &mut Option<Context>,
    paragraph: bool,
) -> (Context, bool) {
    // A line starting with `|` (every table row as written) is neither blank nor
    // indented.
    let table_row = t.as_bytes().first() == Some(&b'|');
    if !table_row && is_blank(t) {
        *lazy = None;
        return (Context::Text, false);
    }
    let (columns, rest) = if table_row { (0, t) } else { indent(t) };
    if columns < 4 && rest.starts_with('|') {
        // An ordinary table line: no fence, quote, comment, HTML or other block starts
        // with `|` (indented by at most three spaces, as fewer than 4 columns means).
        if let Some(kind) = *lazy {
            open_comments(t, marked, state);
            return (kind, true);
        }
        open_comments(t, marked, state);
        return (Context::Text, false);
    }
    if columns >= 4 {
        if paragraph {
            return (Context::Indented, false); // turned into Text by the caller
        }
        if let Some(kind) = *lazy {
            return (kind, true);
        }
        return (Context::Indented, false);
    }
    if let Some((ch, len)) = opens_fence(t) {
        *state = State::Fence(ch, len);
        *lazy = None;
        return (Context::Fence, false);
    }
    if let Some(inner) = rest.strip_prefix('>') {
        let inner = inner.strip_prefix(' ').unwrap_or(inner);
        // A quoted table row cannot be continued lazily; a quoted paragraph can.
        *lazy =
            (!is_blank(inner) && !inner.trim_start().starts_with('|')).then_some(Context::Quote);
        open_comments(t, marked, state);
        return (Context::Quote, false);
    }
    if let Some(comment) = rest.strip_prefix("<!--") {
        if memchr::memmem::find(comment.as_bytes(), b"-->").is_none() {
            *state = State::HtmlComment;
        }
        *lazy = None;
        return (Context::Comment, false);
    }
    if rest.starts_with("%%") {
        if double_percents(t) % 2 == 1 {
            *state = State::Obsidian;
        }
        *lazy = None;
        return (Context::Comment, false);
    }
    if let Some(end) = html_block_start(rest) {
        if !end.is_some_and(|e| contains_ignore_case(rest, e)) {
            *state = State::Html(end);
        }
        *lazy = None;
        return (Context::Html, false);
    }
    if let Some(start) = block_start(t) {
        *lazy = match start {
            BlockStart::ListItem => Some(Context::List),
            _ => None,
        };
        return match start {
            BlockStart::ListItem => (Context::List, false),
            _ => (Context::Text, false),
        };
    }
    if let Some(kind) = *lazy {
        open_comments(t, marked, state);
        return (kind, true);
    }
    open_comments(t, marked, state);
    (Context::Text, false)
}

/// Whether a line is neither blank nor the start of another block; a table line
/// (`|` after at most three spaces) is answered without the full check.
fn starts_paragraph_text(t: &str) -> bool {
    if t.as_bytes().first() == Some(&b'|') {
        return true;
    }
    let (columns, rest) = indent(t);
    (columns < 4 && rest.starts_with('|')) || (!is_blank(t) && block_start(t).is_none())
}

/// A comment opened inside a line and not closed on it hides the lines that follow
/// (Obsidian does not render them), even where GFM would see a new block.
///
/// `marked` false says the line holds neither `<` nor `%`, as the line iterator found
/// while looking for the line's end.
#[inline]
fn open_comments(t: &str, marked: bool, state: &mut State) {
    // Most lines (every table row) hold neither `<` nor `%`: the line iterator's search
    // for the line's end looks for them too, which spares them the substring searches,
    // once a fifth of reading a 10,000-row index; the others are searched with memchr's
    // SIMD substring search, not `str`'s Two-Way.
    let bytes = t.as_bytes();
    if !marked || memchr::memchr2(b'<', b'%', bytes).is_none() {
        return;
    }
    if memchr::memchr(b'<', bytes).is_some()
        && let Some(at) = memchr::memmem::rfind(bytes, b"<!--")
        && memchr::memmem::find(&bytes[at + 4..], b"-->").is_none()
    {
        *state = State::HtmlComment;
    } else if memchr::memchr(b'%', bytes).is_some() && double_percents(t) % 2 == 1 {
        *state = State::Obsidian;
    }
}

/// `t.matches("%%").count()`: the non-overlapping `%%` from the left, found with memchr.
fn double_percents(t: &str) -> usize {
    let b = t.as_bytes();
    let (mut count, mut at) = (0, 0);
    while let Some(offset) = memchr::memchr(b'%', &b[at..]) {
        let i = at + offset;
        if b.get(i + 1) == Some(&b'%') {
            count += 1;
            at = i + 2;
        } else {
            at = i + 1;
        }
    }
    count
}

/// The kind of block a line starts, for the lines that end a table (GFM: "the table is
/// broken at the first empty line, or beginning of another block-level structure").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockStart {
    /// `> …`
    Quote,
    /// `# …` to `###### …`
    Heading,
    /// ```` ``` ```` or `~~~`
    Fence,
    /// `---`, `***`, `___`
    ThematicBreak,
    /// `<div>`, `<!-- …`, a lone tag…
    Html,
    /// `- `, `* `, `+ `, `1. `, `1) `
    ListItem,
    /// Indented by 4 columns or more.
    Indented,
}

impl BlockStart {
    /// How the block is named in messages.
    ///
    /// ```
    /// assert_eq!(memory_core::markdown::BlockStart::Heading.describe(), "a heading");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            BlockStart::Quote => "a blockquote",
            BlockStart::Heading => "a heading",
            BlockStart::Fence => "a code fence",
            BlockStart::ThematicBreak => "a thematic break",
            BlockStart::Html => "an HTML block",
            BlockStart::ListItem => "a list item",
            BlockStart::Indented => "an indented code line",
        }
    }
}

/// The block a (non-blank) line starts, if any.
///
/// ```
/// use memory_core::markdown::{BlockStart, block_start};
/// assert_eq!(block_start("## Notes"), Some(BlockStart::Heading));
/// assert_eq!(block_start("- item"), Some(BlockStart::ListItem));
/// assert_eq!(block_start("| a | b |"), None);
/// assert_eq!(block_start("#hashtag"), None);
/// ```
pub fn block_start(t: &str) -> Option<BlockStart> {
    // A table row: no indentation, and no block starts with `|`.
    if t.as_bytes().first() == Some(&b'|') {
        return None;
    }
    let (columns, rest) = indent(t);
    if columns >= 4 {
        return Some(BlockStart::Indented);
    }
    let first = *rest.as_bytes().first()?;
    match first {
        b'|' => None,
        b'>' => Some(BlockStart::Quote),
        b'#' => {
            let hashes = rest.bytes().take_while(|&b| b == b'#').count();
            let after = rest.as_bytes().get(hashes);
            (hashes <= 6 && matches!(after, None | Some(b' ' | b'\t')))
                .then_some(BlockStart::Heading)
        }
        b'`' | b'~' => opens_fence(t).map(|_| BlockStart::Fence),
        b'<' => (rest.starts_with("<!--") || html_block_start(rest).is_some())
            .then_some(BlockStart::Html),
        b'-' | b'*' | b'_' | b'+' => {
            if first != b'+' && is_thematic_break(rest, first) {
                Some(BlockStart::ThematicBreak)
            } else if first != b'_' && matches!(rest.as_bytes().get(1), None | Some(b' ' | b'\t')) {
                Some(BlockStart::ListItem)
            } else {
                None
            }
        }
        b'0'..=b'9' => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let bytes = rest.as_bytes();
            (digits <= 9
                && matches!(bytes.get(digits), Some(b'.' | b')'))
                && matches!(bytes.get(digits + 1), None | Some(b' ' | b'\t')))
            .then_some(BlockStart::ListItem)
        }
        _ => None,
    }
}

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

/// Whether a line is empty or only spaces and tabs — or carriage returns: a lone `\r` is
/// a line ending in CommonMark, so a line of them is empty lines.
pub(crate) fn is_blank(t: &str) -> bool {
    t.bytes().all(|b| b == b' ' || b == b'\t' || b == b'\r')
}

/// The indentation in columns (a tab advances to the next multiple of 4) and the rest.
pub(crate) fn indent(t: &str) -> (usize, &str) {
    let mut columns = 0;
    for (i, b) in t.bytes().enumerate() {
        match b {
            b' ' => columns += 1,
            b'\t' => columns += 4 - columns % 4,
            _ => return (columns, &t[i..]),
        }
        if columns >= 4 {
            return (columns, &t[i + 1..]);
        }
    }
    (columns, "")
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack.to_ascii_lowercase().contains(needle)
}

/// HTML block tags of CommonMark's start condition 6.
const BLOCK_TAGS: [&str; 62] = [
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// Whether `rest` (a line without its indentation) starts an HTML block, and the text
/// that ends it (`None`: a blank line ends it).
fn html_block_start(rest: &str) -> Option<Option<&'static str>> {
    let after = rest.strip_prefix('<')?;
    let lower = after
        .get(..after.len().min(12))
        .unwrap_or(after)
        .to_ascii_lowercase();
    for (tag, end) in [
        ("script", "</script>"),
        ("pre", "</pre>"),
        ("style", "</style>"),
        ("textarea", "</textarea>"),
    ] {
        if lower.starts_with(tag)
            && matches!(
                lower.as_bytes().get(tag.len()),
                None | Some(b' ' | b'\t' | b'>')
            )
        {
            return Some(Some(end));
        }
    }
    if after.starts_with("!--") {
        return Some(Some("-->"));
    }
    if after.starts_with('?') {
        return Some(Some("?>"));
    }
    if after.starts_with("![CDATA[") {
        return Some(Some("]]>"));
    }
    if after.starts_with('!') && after.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) {
        return Some(Some(">"));
    }
    let name_part = lower.strip_prefix('/').unwrap_or(&lower);
    let name_len = name_part
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .count();
    let name = &name_part[..name_len];
    let next = name_part.as_bytes().get(name_len);
    if BLOCK_TAGS.contains(&name)
        && (matches!(next, None | Some(b' ' | b'\t' | b'>'))
            || name_part[name_len..].starts_with("/>"))
    {
        return Some(None);
    }
    is_lone_tag(rest).then_some(None)
}

/// CommonMark's start condition 7 (simplified): a complete open or closing tag alone
/// on the line.
fn is_lone_tag(rest: &str) -> bool {
    let t = rest.trim_end();
    let Some(inner) = t.strip_prefix('<').and_then(|s| s.strip_suffix('>')) else {
        return false;
    };
    let inner = inner.strip_prefix('/').unwrap_or(inner);
    let inner = inner.strip_suffix('/').unwrap_or(inner);
    let name_len = inner
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .count();
    name_len > 0
        && inner.as_bytes()[0].is_ascii_alphabetic()
        && !inner.contains('<')
        && !inner.contains('>')
        && (name_len == inner.len() || inner.as_bytes()[name_len].is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The memchr count agrees with `str::matches`.
        #[test]
        fn double_percents_is_str_matches(t in "[%a登<!-]{0,16}|\\PC{0,16}") {
            proptest::prop_assert_eq!(double_percents(&t), t.matches("%%").count());
        }
    }
}
