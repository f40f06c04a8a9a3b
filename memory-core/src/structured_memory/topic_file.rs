//! A topic file read whole: its own frontmatter (kept byte-identical; `name`,
//! `description` and `type` read, leniently when it is not YAML: see `topic_meta.rs`), its
//! dated entries (`- YYYY-MM-DD: text` or `- YYYY-MM-DD [subject]: text`, with the lines
//! indented under them — after blank lines too, as CommonMark runs a list item on), the list items that carry no date (hand-written, never
//! compacted, flagged), and everything else (headings, prose) left where it is; the
//! lines that are not entries, headings or blank are [`Topic::unparsed_lines`].

use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use super::budget::{BudgetUse, Budgets};
use super::topic_meta::{FrontmatterNotYaml, TopicMeta, read_meta};
use crate::error::{Error, Result};
use crate::markdown::{
    BlockLine, BlockStart, Context, LineEnding, block_start, classify_in_list_items,
};

/// One dated fact.
///
/// ```
/// use memory_core::structured_memory::Topic;
/// let topic = Topic::parse("t.md", "- 2026-07-10 [deploy-hook]: runs BEFORE the version bump\n").unwrap();
/// let entry = &topic.entries[0];
/// assert_eq!(entry.date.to_string(), "2026-07-10");
/// assert_eq!(entry.subject.as_deref(), Some("deploy-hook"));
/// assert_eq!(entry.text, "runs BEFORE the version bump");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Entry {
    /// The day the fact is about (`YYYY-MM-DD` in JSON).
    #[serde(serialize_with = "iso_date")]
    pub date: NaiveDate,
    /// What the fact is about, when the entry names it (`[subject]`).
    pub subject: Option<String>,
    /// The fact: its first line's text, then each line under it joined with `\n` —
    /// the entry's own indentation removed (deeper indentation kept), a lazy line at the
    /// margin trimmed, and each run of blank lines inside the entry read as one empty line.
    pub text: String,
    /// The 1-based first line.
    pub line: usize,
    /// The 1-based last line: the last line indented under it (after blank lines too, as
    /// a list item runs on in CommonMark) or lazily continuing it. Blank lines after it
    /// are not the entry's.
    pub end_line: usize,
    /// Byte range of the entry's lines in the file, last terminator included.
    #[serde(skip)]
    pub(crate) span: Range<usize>,
}

impl Entry {
    /// The byte range of the entry's lines in its file: its first line to the last line
    /// under it, that line's terminator included (blank lines inside it included, blank
    /// lines after it not). Merge on write, compaction and restore move exactly these bytes.
    ///
    /// ```
    /// use memory_core::structured_memory::Topic;
    /// let text = "- 2026-07-10: a\n\n  second paragraph\n\nprose\n";
    /// let topic = Topic::parse("t.md", text).unwrap();
    /// assert_eq!(&text[topic.entries[0].span()], "- 2026-07-10: a\n\n  second paragraph\n");
    /// ```
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }
}

/// A top-level list item without a leading date: someone's hand-written note.
/// Kept, reported by `check`, never compacted.
///
/// ```
/// use memory_core::structured_memory::Topic;
/// let topic = Topic::parse("t.md", "- remember to rotate keys\n").unwrap();
/// assert_eq!(topic.undated[0].line, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct UndatedItem {
    /// The 1-based line.
    pub line: usize,
    /// The item's first line.
    pub text: String,
}

/// A topic file, read whole.
///
/// As JSON (`memcore --json topics show`, Python's `topic()`, Node's `topic()`) it is its
/// fields in this order, then [`text`](Topic::text) (the file as read) and `body`
/// ([`Topic::body`]: the text after the frontmatter): a Claude Code topic file is prose,
/// which no other key holds.
///
/// ```
/// use memory_core::structured_memory::Topic;
/// let text = "# Infra\n\nHosts we run.\n\n- 2026-07-10: staging is on k3s\n  since the March move\n- 2026-07-11 [db]: Postgres 16\n";
/// let topic = Topic::parse("memory-infra.md", text).unwrap();
/// assert_eq!(topic.entries.len(), 2);
/// assert_eq!(topic.entries[0].text, "staging is on k3s\nsince the March move");
/// assert_eq!(topic.entries[0].end_line, 6);
/// assert_eq!(topic.line_count, 7);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Topic {
    /// The file, relative to the memory directory.
    pub file: String,
    /// Its frontmatter fields, when it has a frontmatter block (read leniently when the
    /// block is not YAML: see [`FrontmatterNotYaml`]).
    pub meta: Option<TopicMeta>,
    /// Why its frontmatter is not YAML, when it is not (the file still reads; `check`
    /// reports it).
    pub frontmatter_not_yaml: Option<FrontmatterNotYaml>,
    /// Its dated entries, in file order.
    pub entries: Vec<Entry>,
    /// Its list items without a date, in file order.
    pub undated: Vec<UndatedItem>,
    /// The lines of [`Topic::unparsed_lines`].
    pub(crate) unparsed: Vec<usize>,
    /// How many lines it has (what the line budget counts).
    pub line_count: usize,
    /// How many bytes.
    pub byte_count: usize,
    /// What it uses of its budget (the seed's 150 lines unless the handle says otherwise).
    pub budget: BudgetUse,
    /// The whole text, as read (a byte-order mark, the frontmatter and CRLF line
    /// endings included).
    pub text: String,
    /// The file's line terminator.
    pub(crate) line_ending: LineEnding,
    /// Where the body starts: after the frontmatter, or 0 (a leading `---` block that is
    /// not frontmatter is body: see `leading_block.rs`).
    pub(crate) body_start: usize,
}

impl Serialize for Topic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        /// The JSON keys, in order: the fields callers read, then `text` and `body`.
        #[derive(Serialize)]
        struct Json<'a> {
            file: &'a str,
            meta: &'a Option<TopicMeta>,
            frontmatter_not_yaml: &'a Option<FrontmatterNotYaml>,
            entries: &'a [Entry],
            undated: &'a [UndatedItem],
            line_count: usize,
            byte_count: usize,
            budget: &'a BudgetUse,
            text: &'a str,
            body: &'a str,
        }
        Json {
            file: &self.file,
            meta: &self.meta,
            frontmatter_not_yaml: &self.frontmatter_not_yaml,
            entries: &self.entries,
            undated: &self.undated,
            line_count: self.line_count,
            byte_count: self.byte_count,
            budget: &self.budget,
            text: &self.text,
            body: self.body(),
        }
        .serialize(s)
    }
}

impl Topic {
    /// Reads `text` as the topic file `file` (relative to the memory directory).
    ///
    /// A frontmatter block that is not YAML still reads (its fields line by line; see
    /// [`FrontmatterNotYaml`]). Fails with [`Error::Malformed`] naming the line when the
    /// frontmatter's opening `---` is never closed, or when a comment or fence never
    /// closed hides an entry.
    ///
    /// ```
    /// use memory_core::structured_memory::Topic;
    /// let topic = Topic::parse("t.md", "---\nname: [unclosed\n---\n").unwrap();
    /// assert_eq!(topic.frontmatter_not_yaml.unwrap().line, 2);
    /// let err = Topic::parse("t.md", "---\nname: x\n- 2026-07-10: a fact\n").unwrap_err();
    /// assert_eq!(err.line(), Some(1));
    /// ```
    pub fn parse(file: impl Into<String>, text: impl Into<String>) -> Result<Topic> {
        let file = file.into();
        let path = PathBuf::from(&file);
        Topic::read(&path, file, text.into())
    }

    /// [`Topic::parse`] with errors naming `path` (the file on disk).
    pub(super) fn read(path: &Path, file: String, text: String) -> Result<Topic> {
        let (meta, body_start, frontmatter_not_yaml) = match read_meta(&text) {
            Ok(Some(read)) => (Some(read.meta), read.body_start, read.not_yaml),
            Ok(None) => (None, 0, None),
            Err(issue) => return Err(Error::malformed(path, issue.line, issue.message)),
        };
        // The frontmatter is YAML, not Markdown: a `<!--` or a fence in a description
        // must not open a block that hides the body. It is classified as blank lines (the
        // same length, so offsets and line numbers hold).
        let masked = mask_frontmatter(&text, body_start);
        // A fence opened in an entry ends with the entry, as CommonMark ends it with
        // its list item.
        let blocks = classify_in_list_items(masked.as_deref().unwrap_or(&text));
        if let Some((opened, context)) = blocks.unclosed
            && let Some(hidden) = blocks.lines[opened..]
                .iter()
                .find(|l| entry_head(l.line.text).is_some())
        {
            return Err(Error::malformed(
                path,
                opened,
                format!(
                    "{} opened here is never closed and hides the entry on line {}",
                    context.describe(),
                    hidden.line.number
                ),
            ));
        }
        let mut entries: Vec<Entry> = Vec::new();
        let mut undated = Vec::new();
        // The entry whose continuation lines are being collected.
        let mut open: Option<OpenEntry> = None;
        for block in &blocks.lines {
            let line = &block.line;
            if line.content.start < body_start {
                continue;
            }
            let t = line.text;
            if let Some(o) = open.as_mut() {
                match o.continues(block) {
                    Continuation::Blank => {
                        o.blank = true;
                        continue;
                    }
                    Continuation::Line(_) if o.entry.is_none() => {
                        o.blank = false;
                        continue;
                    }
                    Continuation::Line(part) => {
                        let Some(entry) = o.entry.and_then(|i| entries.get_mut(i)) else {
                            continue;
                        };
                        if o.blank {
                            entry.text.push('\n');
                        }
                        entry.text.push('\n');
                        entry.text.push_str(&part);
                        entry.end_line = line.number;
                        entry.span.end = line.end;
                        o.blank = false;
                        continue;
                    }
                    Continuation::Ends => open = None,
                }
            }
            let top_item = block.context == Context::List
                && !block.lazy
                && (is_top_item(t) || is_ordered_item(t));
            if !top_item {
                continue;
            }
            match entry_head(t) {
                Some((date, subject, first)) => {
                    entries.push(Entry {
                        date,
                        subject,
                        text: first.to_string(),
                        line: line.number,
                        end_line: line.number,
                        span: line.content.start..line.end,
                    });
                    open = Some(OpenEntry {
                        entry: Some(entries.len() - 1),
                        column: content_column(t),
                        blank: false,
                        paragraph: !first.is_empty(),
                        nested: Vec::new(),
                    });
                }
                None => {
                    undated.push(UndatedItem {
                        line: line.number,
                        text: t.trim().to_string(),
                    });
                    // What is indented under a hand-written item is its own: a dated
                    // line nested in `- notes on the migration:` is part of that note.
                    let column = item_text_column(t).unwrap_or_else(|| content_column(t));
                    open = Some(OpenEntry {
                        entry: None,
                        column,
                        blank: false,
                        paragraph: !item_text(t).trim().is_empty(),
                        nested: Vec::new(),
                    });
                }
            }
        }
        // Every other line of the body that is not blank and not a heading: someone
        // else's (hand notes, prose, comments, code), never compacted.
        let mut unparsed = Vec::new();
        let mut next_entry = entries.iter().peekable();
        for block in &blocks.lines {
            let line = &block.line;
            while next_entry.next_if(|e| e.end_line < line.number).is_some() {}
            let in_entry = next_entry
                .peek()
                .is_some_and(|e| (e.line..=e.end_line).contains(&line.number));
            let heading = block.context == Context::Text && is_heading(line.text);
            if line.content.start >= body_start
                && !in_entry
                && !heading
                && !line.text.trim().is_empty()
            {
                unparsed.push(line.number);
            }
        }
        let budget = Budgets::default().usage(&file, false, blocks.lines.len(), text.len());
        Ok(Topic {
            budget,
            file,
            meta,
            frontmatter_not_yaml,
            entries,
            undated,
            unparsed,
            line_count: blocks.lines.len(),
            byte_count: text.len(),
            line_ending: LineEnding::detect(&text),
            body_start,
            text,
        })
    }
}

impl Topic {
    /// The text after the frontmatter block — the whole text when there is none (a
    /// leading `---` block that is not frontmatter is body) — without a leading
    /// byte-order mark: what a reader of the file reads as its content. Its `body` key
    /// in JSON.
    ///
    /// ```
    /// use memory_core::structured_memory::Topic;
    /// let text = "---\nname: Testing\ndescription: real databases\n---\n\nTests hit a real database.\n";
    /// let topic = Topic::parse("feedback_testing.md", text).unwrap();
    /// assert_eq!(topic.body(), "\nTests hit a real database.\n");
    /// assert_eq!(Topic::parse("t.md", "\u{feff}prose\n").unwrap().body(), "prose\n");
    /// ```
    pub fn body(&self) -> &str {
        let body = self.text.get(self.body_start..).unwrap_or("");
        body.strip_prefix('\u{feff}').unwrap_or(body)
    }

    /// The 1-based lines that are someone else's: every line after the frontmatter that
    /// is not blank, not a heading and not part of a dated entry — hand notes (undated
    /// items), prose paragraphs, comments, code. Compaction never moves, removes or
    /// rewrites them, and says how many there are when a file stays over its budget.
    ///
    /// A line at the margin right after an entry's line (no blank line between) continues
    /// that entry's paragraph, as Markdown reads it: it is part of the entry.
    ///
    /// ```
    /// use memory_core::structured_memory::Topic;
    /// let text = "---\nname: T\n---\n# T\n\nWhy this file exists.\n\n- 2026-07-10: a fact\n  more of it\n\n<!-- mine -->\n- a hand note\n";
    /// let topic = Topic::parse("t.md", text).unwrap();
    /// assert_eq!(topic.unparsed_lines(), [6, 11, 12]);
    /// ```
    pub fn unparsed_lines(&self) -> &[usize] {
        &self.unparsed
    }

    /// ` (N of its lines are not entries …)` for a message about the file's budget, or
    /// nothing when every line is an entry, a heading or blank.
    pub(super) fn unparsed_note(&self) -> String {
        let n = self.unparsed.len();
        if n == 0 {
            return String::new();
        }
        let (verb, noun) = if n == 1 {
            ("is not an entry", "it is")
        } else {
            ("are not entries", "they are")
        };
        format!(
            " ({} of its lines {verb} (hand notes, prose, comments: {}) and {noun} never compacted)",
            n,
            line_list(&self.unparsed)
        )
    }
}

/// An entry being read, as CommonMark reads a list item: its lines run on while they are
/// indented to the column its text starts at — blank lines between them included, so a
/// second paragraph, a nested list or a fenced block under it is part of it — or while a
/// line at the margin lazily continues its last paragraph (no blank line before it).
struct OpenEntry {
    /// Its index in the entries read so far; `None` for a hand-written item (undated, or
    /// ordered), whose lines indented under it — dated ones too — are its own, never
    /// entries.
    entry: Option<usize>,
    /// The column its text starts at.
    column: usize,
    /// Whether blank lines were read since its last line (they are its own only when
    /// a line indented under it follows).
    blank: bool,
    /// Whether its last line is paragraph text a line at the margin may continue.
    paragraph: bool,
    /// The text columns of the items nested in it that are still open, innermost last
    /// (a line is read against the innermost one it is indented to).
    nested: Vec<usize>,
}

/// What one more line does to the entry being read.
enum Continuation {
    /// A blank line: the entry's only if a line indented under it follows.
    Blank,
    /// A line of the entry, as its text reads it (the entry's indentation removed).
    Line(String),
    /// The line is not the entry's: the entry ended on its last line.
    Ends,
}

impl OpenEntry {
    fn continues(&mut self, block: &BlockLine<'_>) -> Continuation {
        let t = block.line.text;
        if t.trim().is_empty() {
            return Continuation::Blank;
        }
        let indent = indent_width(t);
        if indent >= self.column {
            let part = strip_columns(t, self.column);
            let innermost = self.nested.last().copied().unwrap_or(self.column);
            let lazy_inside = indent < innermost
                && !self.blank
                && self.paragraph
                && matches!(
                    block.context,
                    Context::Text | Context::List | Context::Indented
                )
                && matches!(block_start(&part), None | Some(BlockStart::Indented));
            if lazy_inside {
                // A nested item's paragraph running on lazily: the item stays open.
                return Continuation::Line(part.trim_end().to_string());
            }
            while self.nested.last().is_some_and(|&c| c > indent) {
                self.nested.pop();
            }
            let base = self.nested.last().copied().unwrap_or(self.column);
            let inner = strip_columns(t, base);
            self.paragraph = match block.context {
                Context::Fence | Context::Comment | Context::Html => false,
                // Indented code in its container, or (no blank line before) the
                // paragraph above running on.
                _ if indent - base >= 4 => self.paragraph && !self.blank,
                _ => opens_paragraph(&inner),
            };
            if indent - base < 4
                && block_start(&inner) == Some(BlockStart::ListItem)
                && let Some(width) = item_text_column(&inner)
            {
                self.nested.push(base + width);
            }
            return Continuation::Line(part.trim_end().to_string());
        }
        let lazy = !self.blank
            && self.paragraph
            && !matches!(
                block.context,
                Context::Fence | Context::Comment | Context::Html | Context::Quote
            )
            && matches!(block_start(t), None | Some(BlockStart::Indented));
        if lazy {
            Continuation::Line(t.trim().to_string())
        } else {
            Continuation::Ends
        }
    }
}

/// Whether a line (its container's indentation removed) leaves paragraph text open: plain
/// text, or a nested list item or quote with text after its marker.
fn opens_paragraph(part: &str) -> bool {
    match block_start(part) {
        None => true,
        Some(BlockStart::ListItem | BlockStart::Quote) => {
            let rest = part.trim_start();
            let marker = rest
                .find(|c: char| {
                    !(c.is_ascii_digit() || matches!(c, '-' | '*' | '+' | '.' | ')' | '>'))
                })
                .unwrap_or(rest.len());
            !rest[marker..].trim().is_empty()
        }
        Some(_) => false,
    }
}

/// The text of the list item `t` after its marker (`-`, `*`, `+`, or digits and
/// `.`/`)`), white space included.
fn item_text(t: &str) -> &str {
    let rest = t
        .trim_start_matches([' ', '\t'])
        .trim_start_matches(|c: char| c.is_ascii_digit());
    // The marker is one ASCII byte.
    rest.get(1..).unwrap_or("")
}

/// The column the text of the list item `t` starts at, counted from `t`'s start: its
/// indentation, the marker (`-`, `*`, `+`, or digits and `.`/`)`), and one to four
/// columns of white space (one when there are five or more: the rest is indented code).
fn item_text_column(t: &str) -> Option<usize> {
    let indent = indent_width(t);
    let rest = t.trim_start_matches([' ', '\t']);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let marker = if digits > 0 { digits + 1 } else { 1 };
    let after = rest.get(marker..)?;
    let spaces = indent_width(after);
    let spaces = if after.trim().is_empty() || spaces > 4 {
        1
    } else {
        spaces.max(1)
    };
    Some(indent + marker + spaces)
}

/// `t` without its first `columns` columns of indentation (a tab counts to the next
/// multiple of 4; the columns of a tab that reaches past them are kept as spaces).
fn strip_columns(t: &str, columns: usize) -> String {
    let mut col = 0;
    let mut at = t.len();
    for (i, b) in t.bytes().enumerate() {
        if col >= columns || !matches!(b, b' ' | b'\t') {
            at = i;
            break;
        }
        col += if b == b'\t' { 4 - col % 4 } else { 1 };
    }
    let mut out = " ".repeat(col.saturating_sub(columns));
    out.push_str(&t[at..]);
    out
}

/// `3, 5-7, 10`: line numbers with runs folded.
fn line_list(lines: &[usize]) -> String {
    line_runs(lines)
        .into_iter()
        .map(|(a, b)| {
            if a == b {
                format!("line {a}")
            } else {
                format!("lines {a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sorted line numbers folded into runs of consecutive lines (`3, 4, 9` → `(3, 4), (9, 9)`).
pub(super) fn line_runs(lines: &[usize]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in lines {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => runs.push((n, n)),
        }
    }
    runs
}

/// An ATX heading: up to three spaces, one to six `#`, then white space or the end.
fn is_heading(t: &str) -> bool {
    let rest = t.trim_start_matches(' ');
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    t.len() - rest.len() <= 3
        && (1..=6).contains(&hashes)
        && (rest.len() == hashes || rest[hashes..].starts_with([' ', '\t']))
}

fn iso_date<S: serde::Serializer>(date: &NaiveDate, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(&date.format("%Y-%m-%d"))
}

/// The columns of a line's leading white space (a tab counts to the next multiple of 4).
fn indent_width(t: &str) -> usize {
    let mut col = 0;
    for b in t.bytes() {
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
    }
    col
}

/// The column a list item's text starts at: its indentation, the bullet, and the white
/// space after it.
fn content_column(t: &str) -> usize {
    let indent = indent_width(t);
    let after = t.trim_start_matches([' ', '\t']);
    let spaces = after[1..].len() - after[1..].trim_start_matches([' ', '\t']).len();
    indent + 1 + spaces.max(1)
}

/// A list item at the left margin (up to three spaces): a bullet and white space.
fn is_top_item(t: &str) -> bool {
    let rest = t.trim_start_matches(' ');
    t.len() - rest.len() <= 3
        && rest.starts_with(['-', '*', '+'])
        && rest[1..].starts_with([' ', '\t'])
}

/// An ordered list item at the left margin (up to three spaces): digits, `.` or `)`,
/// and white space. Never an entry; a hand-written item.
fn is_ordered_item(t: &str) -> bool {
    let rest = t.trim_start_matches(' ');
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    t.len() - rest.len() <= 3
        && (1..=9).contains(&digits)
        && rest[digits..].starts_with(['.', ')'])
        && rest[digits + 1..].starts_with([' ', '\t'])
}

/// An entry's first line: the bullet, `YYYY-MM-DD` (optionally in `**…**`), an optional
/// `[subject]`, then `:`, ` — `, ` – ` or ` - ` and the text.
pub(super) fn entry_head(t: &str) -> Option<(NaiveDate, Option<String>, &str)> {
    if !is_top_item(t) {
        return None;
    }
    let rest = t.trim_start_matches(' ')[1..].trim_start_matches([' ', '\t']);
    let (bold, rest) = match rest.strip_prefix("**") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let date = rest.get(..10)?;
    let is_shape = date.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        _ => b.is_ascii_digit(),
    });
    if !is_shape {
        return None;
    }
    let date = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    let mut rest = &rest[10..];
    if bold {
        rest = rest.strip_prefix("**")?;
    }
    let mut subject = None;
    if let Some(inner) = rest.strip_prefix(" [") {
        let end = inner.find(']')?;
        let s = inner[..end].trim();
        if s.is_empty() {
            return None;
        }
        subject = Some(s.to_string());
        rest = &inner[end + 1..];
    }
    let text = [":", " — ", " – ", " - "]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?;
    Some((date, subject, text.trim()))
}

/// The key two subjects are compared by: canonical composition (NFC, as topic names),
/// lowercase with the case folds lowercasing leaves out (`ß` is `ss`, `ς` is `σ`, `ſ` is
/// `s`), runs of white space, `-` and `_` folded to one `-`, ends trimmed.
///
/// ```
/// use memory_core::structured_memory::subject_key;
/// assert_eq!(subject_key("Deploy  Hook"), subject_key("deploy_hook"));
/// assert_eq!(subject_key("--Deploy-hook "), "deploy-hook");
/// assert_eq!(subject_key("caf\u{e9}"), subject_key("cafe\u{301}"));
/// assert_eq!(subject_key("Straße"), subject_key("STRASSE"));
/// ```
pub fn subject_key(subject: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(subject.len());
    for c in subject.trim().nfc() {
        if c.is_whitespace() || c == '-' || c == '_' {
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
        } else {
            match c {
                'ß' | 'ẞ' => out.push_str("ss"),
                'ς' => out.push('σ'),
                'ſ' => out.push('s'),
                _ => out.extend(c.to_lowercase()),
            }
        }
    }
    // Lowercasing can leave a composable pair (as in `name_key`).
    out.trim_end_matches('-').nfc().collect()
}

/// `text` with the bytes before `body_start` (the frontmatter) turned to spaces, line
/// breaks kept; `None` when there is no frontmatter. Every byte replaced is either ASCII
/// or a whole UTF-8 sequence of a character (the frontmatter ends at a line break), so
/// the result is UTF-8 of the same length.
pub(super) fn mask_frontmatter(text: &str, body_start: usize) -> Option<String> {
    if body_start == 0 {
        return None;
    }
    let (front, body) = text.split_at(body_start.min(text.len()));
    let mut out = String::with_capacity(text.len());
    for c in front.chars() {
        match c {
            '\n' | '\r' => out.push(c),
            _ => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
    out.push_str(body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Topic {
        Topic::parse("t.md", text).unwrap()
    }

    #[test]
    fn entry_spellings() {
        for (line, subject, text) in [
            ("- 2026-07-10: deploy hook first", None, "deploy hook first"),
            ("* 2026-07-10 — dash form", None, "dash form"),
            ("+ 2026-07-10 - hyphen form", None, "hyphen form"),
            ("- **2026-07-10**: bold date", None, "bold date"),
            ("- 2026-07-10 [db]: Postgres 16", Some("db"), "Postgres 16"),
            ("   - 2026-07-10 [a b]:x", Some("a b"), "x"),
        ] {
            let (_, s, t) = entry_head(line).unwrap_or_else(|| panic!("{line:?}"));
            assert_eq!((s.as_deref(), t), (subject, text), "{line:?}");
        }
        for line in [
            "- 2026-13-01: no month 13",
            "- 2026-7-1: short",
            "- 2026-07-10 no separator",
            "- 2026-07-10 []: empty subject",
            "2026-07-10: no bullet",
            "    - 2026-07-10: code",
            "- yesterday: relative",
        ] {
            assert!(entry_head(line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn headings_prose_and_hand_notes_are_kept_apart() {
        let text = "# Decisions\n\nWhy we decide things.\n\n- 2026-07-10: use JWT\n  because sessions are stateless\n\n- a hand note\n- [ ] a task\n1. ordered\n";
        let topic = parse(text);
        assert_eq!(topic.entries.len(), 1);
        assert_eq!(topic.entries[0].end_line, 6);
        assert_eq!(
            &text[topic.entries[0].span.clone()],
            "- 2026-07-10: use JWT\n  because sessions are stateless\n"
        );
        let undated: Vec<usize> = topic.undated.iter().map(|u| u.line).collect();
        assert_eq!(undated, [8, 9, 10], "an ordered item is a hand note too");
    }

    #[test]
    fn a_hand_written_item_at_the_margin_ends_the_entry() {
        let topic = parse("- 2026-07-01 [db]: pg15\n1. hand note\n- 2026-07-02 [db]: pg16\n");
        assert_eq!(topic.entries.len(), 2);
        assert_eq!(topic.entries[0].text, "pg15");
        assert_eq!(topic.entries[0].end_line, 1);
        assert_eq!(topic.undated[0].line, 2);
    }

    #[test]
    fn nested_items_belong_to_their_entry() {
        let topic = parse("- 2026-07-10: steps\n  - first\n  - second\n- 2026-07-11: next\n");
        assert_eq!(topic.entries.len(), 2);
        assert_eq!(topic.entries[0].text, "steps\n- first\n- second");
        assert!(topic.undated.is_empty());
    }

    /// Every line of `text` from `line` to `end_line` of the entry, as written.
    fn span_of<'a>(text: &'a str, topic: &Topic, i: usize) -> &'a str {
        &text[topic.entries[i].span.clone()]
    }

    #[test]
    fn a_blank_line_then_a_line_indented_under_the_entry_continues_it() {
        let text = "- 2026-01-01 [k]: a\n  - nested\n\n    indented para\n- 2026-01-02 [k]: b\n";
        let topic = parse(text);
        assert_eq!(topic.entries.len(), 2);
        assert_eq!(topic.entries[0].text, "a\n- nested\n\n  indented para");
        assert_eq!(topic.entries[0].end_line, 4);
        assert_eq!(
            span_of(text, &topic, 0),
            "- 2026-01-01 [k]: a\n  - nested\n\n    indented para\n"
        );
        assert!(topic.unparsed_lines().is_empty());
    }

    #[test]
    fn continuations_after_several_blank_lines_deeper_indents_and_tabs() {
        let text = "- 2026-01-01: a\n\n\n\n  second para\n\n      code under it\n\n\tafter a tab\n\n- 2026-01-02: b\n";
        let topic = parse(text);
        assert_eq!(topic.entries.len(), 2);
        let first = &topic.entries[0];
        assert_eq!(first.end_line, 9);
        assert_eq!(
            first.text,
            "a\n\nsecond para\n\n    code under it\n\n  after a tab"
        );
        assert!(span_of(text, &topic, 0).ends_with("\tafter a tab\n"));
        assert_eq!(topic.entries[1].line, 11);
        assert!(topic.unparsed_lines().is_empty());
    }

    #[test]
    fn a_continuation_under_a_crlf_entry_keeps_its_terminators() {
        let text = "# T\r\n\r\n- 2026-01-01: a\r\n\r\n  more\r\n\r\nprose\r\n";
        let topic = parse(text);
        assert_eq!(topic.entries[0].text, "a\n\nmore");
        assert_eq!(
            span_of(text, &topic, 0),
            "- 2026-01-01: a\r\n\r\n  more\r\n"
        );
        assert_eq!(topic.unparsed_lines(), [7]);
    }

    #[test]
    fn a_fenced_block_inside_the_entry_is_the_entry_s_blank_lines_and_all() {
        let text = "- 2026-01-01: run this\n\n  ```sh\n  make\n\n  # not a heading\n  ```\n- 2026-01-02: b\n";
        let topic = parse(text);
        assert_eq!(topic.entries[0].end_line, 7);
        assert_eq!(
            topic.entries[0].text,
            "run this\n\n```sh\nmake\n\n# not a heading\n```"
        );
        assert_eq!(topic.entries[1].line, 8);
        assert!(topic.unparsed_lines().is_empty());
    }

    #[test]
    fn a_paragraph_at_the_margin_after_a_blank_line_is_prose_not_the_entry() {
        for text in [
            "- 2026-01-01: a\n\nprose at the margin\n",
            "- 2026-01-01: a\n  more\n\n prose one space in\n",
            "- 2026-01-01: a\n\n    para\n\nprose\n- 2026-01-02: b\n",
        ] {
            let topic = parse(text);
            let prose = text.lines().position(|l| l.contains("prose")).unwrap() + 1;
            assert!(topic.entries[0].end_line < prose, "{text:?}");
            assert!(topic.unparsed_lines().contains(&prose), "{text:?}");
        }
    }

    #[test]
    fn a_line_at_the_margin_continues_the_paragraph_it_follows() {
        // Lazy continuation: after the entry's line, after its second paragraph and after
        // a nested item — but not after a fenced block under it.
        let topic =
            parse("- 2026-01-01: a\n\n  para\nlazy\n- 2026-01-02: b\n  - nested\nlazy too\n");
        assert_eq!(topic.entries[0].text, "a\n\npara\nlazy");
        assert_eq!(topic.entries[1].text, "b\n- nested\nlazy too");
        let text = "- 2026-01-01: a\n  ```\n  x\n  ```\nnot lazy\n";
        let topic = parse(text);
        assert_eq!(topic.entries[0].end_line, 4);
        assert_eq!(topic.unparsed_lines(), [5]);
    }

    #[test]
    fn the_last_entry_of_the_file_runs_to_its_last_indented_line() {
        for (text, end_line) in [
            ("- 2026-01-01: a\n\n  more", 3),
            ("- 2026-01-01: a\n\n  more\n", 3),
            ("- 2026-01-01: a\n\n  more\n\n\n", 3),
            ("- 2026-01-01: a\n\n", 1),
        ] {
            let topic = parse(text);
            assert_eq!(topic.entries[0].end_line, end_line, "{text:?}");
            let span = span_of(text, &topic, 0);
            assert!(
                !span.trim_end().ends_with('\n'),
                "no blank line at the end: {text:?}"
            );
            assert_eq!(span.trim_end(), text.trim_end(), "{text:?}");
        }
    }

    #[test]
    fn a_heading_indented_under_an_entry_is_the_entry_s() {
        let text = "- 2026-01-01: a\n\n  ## inside\n\n## Outside\n- 2026-01-02: b\n";
        let topic = parse(text);
        assert_eq!(topic.entries[0].end_line, 3);
        assert!(topic.unparsed_lines().is_empty());
        let titles: Vec<String> = super::super::topic_sections::sections(&topic)
            .into_iter()
            .map(|s| s.title)
            .collect();
        assert_eq!(titles, ["Outside"]);
    }

    #[test]
    fn the_note_on_lines_that_are_not_entries_agrees_with_its_count() {
        let one = parse("- 2026-07-01: a\n\nprose\n");
        assert_eq!(
            one.unparsed_note(),
            " (1 of its lines is not an entry (hand notes, prose, comments: line 3) and it is never compacted)"
        );
        let three = parse("p\nq\n\n- 2026-07-01: a\n\nr\n");
        assert!(three.unparsed_note().contains("3 of its lines are not entries (hand notes, prose, comments: lines 1-2, line 6) and they are"));
        assert_eq!(line_runs(&[3, 4, 9, 11, 12]), [(3, 4), (9, 9), (11, 12)]);
    }

    #[test]
    fn crlf_and_bom_files_read_the_same() {
        let topic = parse("\u{feff}- 2026-07-10: a\r\n- 2026-07-11: b\r\n");
        assert_eq!(topic.entries.len(), 2);
        assert_eq!(topic.entries[1].text, "b");
        assert_eq!(topic.line_ending, LineEnding::CrLf);
    }

    #[test]
    fn an_entry_hidden_by_an_unclosed_fence_is_refused() {
        let err = Topic::parse("t.md", "- 2026-07-10: a\n```\n- 2026-07-11: b\n").unwrap_err();
        assert_eq!(err.line(), Some(2));
        assert!(err.to_string().contains("t.md"), "{err}");
    }

    #[test]
    fn entries_in_fences_and_comments_are_not_entries() {
        let topic = parse("```\n- 2026-07-10: example\n```\n<!--\n- 2026-07-11: hidden\n-->\n");
        assert!(topic.entries.is_empty());
    }
}
