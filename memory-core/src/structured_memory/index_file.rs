//! `MEMORY.md` read whole: every line is a pointer, structure (blank lines, headings,
//! comments, a frontmatter block) or content, and a pointer hidden in a comment or fence
//! that is never closed makes the file refused rather than partly read.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::budget::{BudgetUse, Budgets};
use super::pointer::{Definitions, PointerParts, parse_pointer_with, target_file};
use crate::error::{Error, Result};
use crate::markdown::{Context, LineEnding, classify};

/// The index's file name.
pub const INDEX_FILE_NAME: &str = "MEMORY.md";

/// One pointer line of `MEMORY.md`: a topic file, its title and its hook.
///
/// ```
/// use memory_core::structured_memory::MemoryIndex;
/// let index = MemoryIndex::parse("MEMORY.md", "- [User](USER.md) — role, preferences\n").unwrap();
/// let line = &index.lines[0];
/// assert_eq!((line.title.as_str(), line.file.as_str(), line.hook.as_str()), ("User", "USER.md", "role, preferences"));
/// assert_eq!(line.line, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexLine {
    /// The link's text.
    pub title: String,
    /// The topic file, relative to the memory directory (escapes decoded).
    pub file: String,
    /// The recall key after the dash (empty when the line has none).
    pub hook: String,
    /// The 1-based line in `MEMORY.md`.
    pub line: usize,
}

/// A line of `MEMORY.md` that is neither a pointer nor structure: memory content the
/// seed says belongs in a topic file. Kept and reported, never dropped.
///
/// ```
/// use memory_core::structured_memory::MemoryIndex;
/// let index = MemoryIndex::parse("MEMORY.md", "# Memory\n\nDeploy runs before the bump.\n").unwrap();
/// assert_eq!(index.content[0].line, 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContentLine {
    /// The 1-based line.
    pub line: usize,
    /// Its text.
    pub text: String,
    /// Whether the default index pass may move the line alone: a line of top-level text
    /// (not a table row), a list item no line continues, a line continuing a pointer
    /// line's item; never a line of a fence, indented code, an HTML block or a quote, nor
    /// of a list item of several lines.
    #[serde(skip)]
    pub(super) standalone: bool,
}

/// A pointer line whose link cannot be followed: it points outside the memory directory
/// or is not a plain relative path. Reported by `check`, never opened.
///
/// ```
/// use memory_core::structured_memory::MemoryIndex;
/// let index = MemoryIndex::parse("MEMORY.md", "- [X](../x.md) — outside\n").unwrap();
/// assert!(index.lines.is_empty());
/// assert_eq!(index.unusable[0].line, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct UnusableLink {
    /// The 1-based line.
    pub line: usize,
    /// The link target as written.
    pub target: String,
    /// Why it cannot be followed.
    pub reason: String,
}

/// `MEMORY.md`, read whole.
///
/// ```
/// use memory_core::structured_memory::MemoryIndex;
/// let text = "<!-- memory index -->\n- [Project X](memory-project-x.md) — build quirks\n- [User](USER.md) — role\n";
/// let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
/// assert_eq!(index.lines.len(), 2);
/// assert_eq!(index.line_count, 3);
/// assert!(index.content.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MemoryIndex {
    /// The pointer lines, in file order.
    pub lines: Vec<IndexLine>,
    /// Content lines (not pointers, not structure), in file order.
    pub content: Vec<ContentLine>,
    /// Pointer lines whose link cannot be followed.
    pub unusable: Vec<UnusableLink>,
    /// How many lines the file has (what the line budget counts).
    pub line_count: usize,
    /// How many bytes it has.
    pub byte_count: usize,
    /// What it uses of its budget (the seed's 60 lines unless the handle says otherwise).
    pub budget: BudgetUse,
    /// Where `MEMORY.md` leads when it is a symbolic link: the reads (`index`, `recall`,
    /// `check`, a session start) read through it and say so; every write refuses it, as
    /// memory-core never writes through links. `None` for a plain file (and for an index
    /// parsed from text).
    pub through_link: Option<PathBuf>,
    /// The whole text, as read.
    #[serde(skip)]
    pub text: String,
    /// Byte range of each pointer line in `text`, terminator included (same order as
    /// `lines`).
    #[serde(skip)]
    pub(crate) spans: Vec<Range<usize>>,
    /// Where the title and the hook of each pointer line are in its span (same order as
    /// `lines`): what a new title or hook replaces (see `pointer_edit.rs`).
    #[serde(skip)]
    pub(super) edits: Vec<PointerParts>,
    /// The file's line terminator.
    #[serde(skip)]
    pub(crate) line_ending: LineEnding,
    /// The linked topic files (by [`name_key`](super::topic_name::name_key)) the index
    /// pass can write into, when it has looked: the default routes and merges only
    /// those. `None` (an index parsed from text): every linked file.
    #[serde(skip)]
    pub(super) usable_topics: Option<std::collections::BTreeSet<String>>,
}

impl MemoryIndex {
    /// The warning a read says on stderr when `MEMORY.md` is a symbolic link (see
    /// [`MemoryIndex::through_link`]); `None` for a plain file.
    ///
    /// ```
    /// use memory_core::structured_memory::MemoryIndex;
    /// let index = MemoryIndex::parse("MEMORY.md", "- [User](USER.md) — role\n").unwrap();
    /// assert_eq!(index.link_warning(), None);
    /// ```
    pub fn link_warning(&self) -> Option<String> {
        self.through_link.as_ref().map(|target| {
            format!(
                "{INDEX_FILE_NAME} is a symbolic link to {}: read through it; the commands that write refuse it (memory-core never writes through links)",
                target.display()
            )
        })
    }

    /// Reads `text` as the `MEMORY.md` at `path` (used in messages only).
    ///
    /// Fails with [`Error::Malformed`] naming the line when a comment, fence or HTML block
    /// opened there is never closed and hides a pointer line (reading on would drop it),
    /// or when the frontmatter block is not closed.
    ///
    /// ```
    /// use memory_core::structured_memory::MemoryIndex;
    /// let err = MemoryIndex::parse("MEMORY.md", "- [A](a.md) — a\n<!--\n- [B](b.md) — b\n").unwrap_err();
    /// assert_eq!(err.line(), Some(2));
    /// ```
    pub fn parse(path: impl AsRef<Path>, text: impl Into<String>) -> Result<MemoryIndex> {
        let path = path.as_ref();
        let text = text.into();
        // A leading `---` block that is not frontmatter is Markdown: its pointers count.
        let body_start = match super::leading_block::body_start(&text) {
            Ok(start) => start,
            Err(issue) => return Err(Error::malformed(path, issue.line, issue.message)),
        };
        // The frontmatter is YAML, not Markdown: a `%%` or `<!--` there opens nothing.
        let masked = super::topic_file::mask_frontmatter(&text, body_start);
        let blocks = classify(masked.as_deref().unwrap_or(&text));
        let mut index = MemoryIndex {
            lines: Vec::new(),
            content: Vec::new(),
            unusable: Vec::new(),
            line_count: blocks.lines.len(),
            byte_count: text.len(),
            budget: Budgets::default().usage(INDEX_FILE_NAME, true, blocks.lines.len(), text.len()),
            through_link: None,
            text: String::new(),
            spans: Vec::new(),
            edits: Vec::new(),
            line_ending: LineEnding::detect(&text),
            usable_topics: None,
        };
        // Link reference definitions (`[ref]: memory-x.md`) render nothing: structure,
        // and the targets of `[title][ref]` pointers.
        let mut definitions = Definitions::default();
        let mut defining = vec![false; blocks.lines.len()];
        for (i, block) in blocks.lines.iter().enumerate() {
            defining[i] = block.line.content.start >= body_start
                && block.context == Context::Text
                && !block.lazy
                && definitions.record(block.line.text);
        }
        if let Some((opened, context)) = blocks.unclosed {
            let hidden = blocks.lines[opened..]
                .iter()
                .find(|l| parse_pointer_with(l.line.text, &definitions).is_some());
            if let Some(hidden) = hidden {
                return Err(Error::malformed(
                    path,
                    opened,
                    format!(
                        "{} opened here is never closed and hides the pointer on line {}",
                        context.describe(),
                        hidden.line.number
                    ),
                ));
            }
        }
        // Per line: whether it is content, or a pointer (for which content stands alone).
        let mut is_content = vec![false; blocks.lines.len()];
        let mut is_pointer = vec![false; blocks.lines.len()];
        for (i, (block, defines)) in blocks.lines.iter().zip(defining).enumerate() {
            let line = &block.line;
            if line.content.start < body_start || defines {
                continue;
            }
            let t = line.text;
            let structure = match block.context {
                Context::Comment => true,
                Context::Text => t.trim().is_empty() || is_heading(t),
                _ => false,
            };
            if structure {
                continue;
            }
            if matches!(block.context, Context::List | Context::Text)
                && !block.lazy
                && let Some(parts) = parse_pointer_with(t, &definitions)
            {
                is_pointer[i] = true;
                match target_file(&parts.target) {
                    Ok(file) => {
                        index.lines.push(IndexLine {
                            title: parts.title.clone(),
                            file,
                            hook: parts.hook.clone(),
                            line: line.number,
                        });
                        index.spans.push(line.content.start..line.end);
                        index.edits.push(parts);
                    }
                    Err(e) => index.unusable.push(UnusableLink {
                        line: line.number,
                        target: parts.target,
                        reason: match e {
                            Error::InvalidInput { message, .. } => message,
                            other => other.to_string(),
                        },
                    }),
                }
                continue;
            }
            is_content[i] = true;
            index.content.push(ContentLine {
                line: line.number,
                text: t.to_string(),
                standalone: false,
            });
        }
        // Which content lines stand alone: top-level text line by line (not a table row);
        // a list item with no line continuing it; a line continuing a pointer's item.
        // The item a list line continues: a pointer's (`None`), or content line `k`'s.
        let mut item: Option<usize> = None;
        let mut k = 0;
        for (i, block) in blocks.lines.iter().enumerate() {
            let t = block.line.text;
            if !is_content[i] {
                if is_pointer[i] {
                    item = None;
                }
                continue;
            }
            let alone = match block.context {
                Context::Text => {
                    item = None;
                    !t.trim_start().starts_with('|')
                }
                Context::List if list_item_indent(t).is_some() => {
                    item = Some(k);
                    true
                }
                Context::List => match item {
                    Some(owner) => {
                        if let Some(c) = index.content.get_mut(owner) {
                            c.standalone = false;
                        }
                        false
                    }
                    None => true,
                },
                _ => false,
            };
            if let Some(c) = index.content.get_mut(k) {
                c.standalone = alone;
            }
            k += 1;
        }
        index.text = text;
        Ok(index)
    }

    /// The pointer line for `file` (compared as written, then ignoring case, as on
    /// case-insensitive file systems).
    ///
    /// ```
    /// use memory_core::structured_memory::MemoryIndex;
    /// let index = MemoryIndex::parse("MEMORY.md", "- [User](USER.md) — role\n").unwrap();
    /// assert_eq!(index.line_for("USER.md").unwrap().title, "User");
    /// assert!(index.line_for("other.md").is_none());
    /// ```
    pub fn line_for(&self, file: &str) -> Option<&IndexLine> {
        let file = file.strip_prefix("./").unwrap_or(file);
        // Exact, then but for case, then canonically equivalent (`café` as `cafe` + U+0301).
        self.lines
            .iter()
            .find(|l| l.file == file)
            .or_else(|| {
                self.lines
                    .iter()
                    .find(|l| super::topic_case::same_but_for_case(&l.file, file))
            })
            .or_else(|| {
                self.lines
                    .iter()
                    .find(|l| super::topic_name::same_topic_name(&l.file, file))
            })
    }
}

/// The indentation of a list item's first line (`- x`, `* x`, `+ x`, `1. x`, `2) x`),
/// `None` for any other line.
fn list_item_indent(t: &str) -> Option<usize> {
    let rest = t.trim_start();
    let indent = t.len() - rest.len();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = match rest.as_bytes().first() {
        Some(b'-' | b'*' | b'+') => &rest[1..],
        _ if (1..=9).contains(&digits) && rest[digits..].starts_with(['.', ')']) => {
            &rest[digits + 1..]
        }
        _ => return None,
    };
    (after.is_empty() || after.starts_with([' ', '\t'])).then_some(indent)
}

/// An ATX heading: up to three spaces, one to six `#`, then white space or the end.
fn is_heading(t: &str) -> bool {
    let rest = t.trim_start_matches(' ');
    if t.len() - rest.len() > 3 {
        return false;
    }
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    (1..=6).contains(&hashes)
        && rest[hashes..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> MemoryIndex {
        MemoryIndex::parse("MEMORY.md", text).unwrap()
    }

    #[test]
    fn a_claude_code_style_index_reads_whole() {
        let text = "# Memory Index\r\n\r\n- [User profile](user_profile.md) — senior Rust dev, prefers terse answers\r\n- [Feedback: testing](feedback_testing.md) — integration tests hit a real database\r\n<!-- hand note -->\r\n";
        let index = parse(text);
        assert_eq!(index.lines.len(), 2);
        assert_eq!(index.lines[1].line, 4);
        assert_eq!(index.line_count, 5);
        assert!(index.content.is_empty() && index.unusable.is_empty());
        assert_eq!(index.line_ending, LineEnding::CrLf);
        assert_eq!(
            &text[index.spans[0].clone()],
            "- [User profile](user_profile.md) — senior Rust dev, prefers terse answers\r\n"
        );
    }

    #[test]
    fn content_is_kept_and_reported_never_hidden() {
        let text = "- [A](a.md) — a\nThe deploy hook runs first.\n- a plain bullet\n> quoted\n    code\n```\n- [B](b.md) — in a fence\n```\n";
        let index = parse(text);
        assert_eq!(index.lines.len(), 1);
        let lines: Vec<usize> = index.content.iter().map(|c| c.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn comments_and_frontmatter_are_structure() {
        let text =
            "---\ntitle: memory\n---\n<!--\nmulti-line\n-->\n%% obsidian %%\n- [A](a.md) — a\n";
        let index = parse(text);
        assert_eq!(index.lines.len(), 1);
        assert!(index.content.is_empty(), "{:?}", index.content);
        assert_eq!(index.line_count, 8);
    }

    #[test]
    fn a_comment_opener_in_the_frontmatter_opens_nothing() {
        let text = "---\ndescription: notes %% and <!-- drafts\n---\n- [A](a.md) — a\n```\n%% x\n```\n- [B](b.md) — b\n";
        let index = parse(text);
        let files: Vec<&str> = index.lines.iter().map(|l| l.file.as_str()).collect();
        assert_eq!(files, ["a.md", "b.md"]);
        assert_eq!(index.lines[1].line, 8);
    }

    #[test]
    fn an_unclosed_comment_hiding_a_pointer_is_refused_naming_its_line() {
        for (text, line) in [
            ("- [A](a.md)\n<!-- x\n- [B](b.md) — b\n", 2),
            ("%%\n- [B](b.md) — b\n", 1),
            ("- [A](a.md)\n```\n- [B](b.md)\n", 2),
        ] {
            let err = MemoryIndex::parse("MEMORY.md", text).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Malformed, "{text:?}");
            assert_eq!(err.line(), Some(line), "{text:?}");
        }
        // Nothing hidden: an unclosed comment of prose is only content.
        assert!(MemoryIndex::parse("MEMORY.md", "- [A](a.md)\n<!-- note\n").is_ok());
    }

    #[test]
    fn line_counts_match_what_an_editor_shows() {
        assert_eq!(parse("").line_count, 0);
        assert_eq!(parse("- [A](a.md)").line_count, 1);
        assert_eq!(parse("- [A](a.md)\n").line_count, 1);
        assert_eq!(parse("- [A](a.md)\n\n").line_count, 2);
    }

    #[test]
    fn links_outside_the_directory_are_reported_not_followed() {
        let index = parse("- [A](../a.md) — a\n- [B](/etc/b.md)\n- [C](c.md)\n");
        assert_eq!(index.lines.len(), 1);
        assert_eq!(index.unusable.len(), 2);
        assert_eq!(index.unusable[1].line, 2);
    }

    #[test]
    fn headings_need_a_space() {
        assert!(is_heading("# Memory"));
        assert!(is_heading("###"));
        assert!(!is_heading("#tag"));
        assert!(!is_heading("####### seven"));
        assert!(!is_heading("    # code"));
    }
}
