//! A comment opened on a line of `MEMORY.md` and never closed. Obsidian opens one at any
//! `%%` outside code — on a list item's line too (a hand-written `- note %% private`, a
//! hook `— hosts %% draft`) — and hides the rest of the file after it; memory-core's
//! reader (as CommonMark) opens one at a `<!--` or `%%` on a line of text, not of a list
//! item. When the reader's own comment hides a pointer line the index does not read
//! (`unreadable_index`); every other unclosed comment is found here, for `check`
//! (`unclosed_comment`) and a session start's warnings, naming what it hides.

use super::index_file::MemoryIndex;
use crate::markdown::{Context, classify};

/// A comment never closed in `MEMORY.md`: where it opens and what it hides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UnclosedComment {
    /// The 1-based line it opens on.
    pub line: usize,
    /// What opens it: `%%` or `<!--`.
    pub opener: &'static str,
    /// Whether memory-core's reader takes it for a comment too (the lines after it are
    /// then structure to it, not content); `false` for a `%%` on a list item's line, which
    /// only Obsidian hides behind.
    pub reader_hides: bool,
}

/// The first comment of the index `text` that is opened and never closed, if any (see
/// the module docs). Its frontmatter is YAML, not Markdown: a `%%` there opens nothing.
pub(super) fn unclosed_comment(text: &str) -> Option<UnclosedComment> {
    // A frontmatter block never closed is the reader's refusal, not a comment's.
    let body_start = super::leading_block::body_start(text).unwrap_or(0);
    let masked = super::topic_file::mask_frontmatter(text, body_start);
    let blocks = classify(masked.as_deref().unwrap_or(text));
    // The reader's own: a comment left open at the end of the file.
    let reader = match blocks.unclosed {
        Some((line, Context::Comment)) => {
            let opened = blocks.lines.get(line.wrapping_sub(1))?.line.text;
            let html = opened
                .rfind("<!--")
                .is_some_and(|at| !opened[at + 4..].contains("-->"));
            Some(UnclosedComment {
                line,
                opener: if html { "<!--" } else { "%%" },
                reader_hides: true,
            })
        }
        _ => None,
    };
    // Obsidian's `%%`: every one outside code and HTML comments, in order, each opening
    // or closing a comment.
    let mut state = State::Text;
    for block in &blocks.lines {
        let line = &block.line;
        if line.content.start < body_start {
            continue;
        }
        let code = matches!(
            block.context,
            Context::Fence | Context::Indented | Context::Html
        );
        if state == State::Text && code {
            continue;
        }
        // An inline `<!--` never closed on a list item's line is text (CommonMark).
        let in_list = block.context == Context::List;
        state = state.after(line.text, line.number, in_list);
    }
    let open = match state {
        State::Obsidian(line) => Some(line),
        _ => None,
    };
    let obsidian = open.map(|line| UnclosedComment {
        line,
        opener: "%%",
        reader_hides: reader.as_ref().is_some_and(|r| r.line == line),
    });
    [reader, obsidian]
        .into_iter()
        .flatten()
        .min_by_key(|c| c.line)
}

/// Where a line ends, for Obsidian's `%%`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Outside comments.
    Text,
    /// In a `%%` comment opened on the line.
    Obsidian(usize),
    /// In an HTML comment.
    Html,
}

impl State {
    /// The state after `text`, line `number`: each `%%` outside an HTML comment opens or
    /// closes an Obsidian comment, each `<!--` outside one opens an HTML comment that runs
    /// to `-->` (one on a list item's line that is not closed there is text).
    fn after(mut self, text: &str, number: usize, in_list: bool) -> State {
        let mut rest = text;
        loop {
            let (found, next) = match self {
                State::Obsidian(_) => (rest.find("%%").map(|at| (at, 2)), State::Text),
                State::Html => (rest.find("-->").map(|at| (at, 3)), State::Text),
                State::Text => {
                    let percent = rest.find("%%");
                    let html = rest.find("<!--");
                    let html_first = match (percent, html) {
                        (Some(p), Some(h)) => h < p,
                        (None, Some(_)) => true,
                        _ => false,
                    };
                    match (percent, html) {
                        (_, Some(h)) if html_first => {
                            let closed = rest[h + 4..].contains("-->");
                            if in_list && !closed {
                                // Text: look on past it.
                                rest = &rest[h + 4..];
                                continue;
                            }
                            (Some((h, 4)), State::Html)
                        }
                        (Some(p), _) => (Some((p, 2)), State::Obsidian(number)),
                        _ => (None, State::Text),
                    }
                }
            };
            let Some((at, len)) = found else {
                return self;
            };
            rest = &rest[at + len..];
            self = next;
        }
    }
}

impl UnclosedComment {
    /// What `check` and a session start say about it, naming the lines it hides in
    /// `index` (the index read from the same text) and the pointer lines among them.
    pub(super) fn message(&self, index: &MemoryIndex) -> String {
        let (line, last) = (self.line, index.line_count);
        let closer = if self.opener == "%%" { "%%" } else { "-->" };
        let hidden_pointers: Vec<String> = index
            .lines
            .iter()
            .filter(|p| p.line > line)
            .map(|p| format!("{} (line {})", p.file, p.line))
            .collect();
        let lines = match last.saturating_sub(line) {
            0 => "the rest of the line".to_string(),
            1 => format!("the rest of the line and line {last}"),
            _ => format!("the rest of the line and lines {}–{last}", line + 1),
        };
        let what = if hidden_pointers.is_empty() {
            format!("{lines} (no pointer line among them)")
        } else {
            format!(
                "{lines} — the pointer line{} of {} —",
                if hidden_pointers.len() == 1 { "" } else { "s" },
                hidden_pointers.join(", ")
            )
        };
        let reader = if self.reader_hides {
            "memory-core reads them as a comment too"
        } else {
            "memory-core still reads them: CommonMark opens no comment in a list item"
        };
        format!(
            "`{}` opens a comment here that is never closed: Obsidian hides {what} and every index line appended after it ({reader}); close it with `{closer}` or remove it",
            self.opener
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<(usize, &'static str, bool)> {
        unclosed_comment(text).map(|c| (c.line, c.opener, c.reader_hides))
    }

    #[test]
    fn every_comment_obsidian_leaves_open_is_found_at_its_line() {
        for (text, expected) in [
            ("- [A](a.md) — a\nnote %% private\nmore\n", (2, "%%", true)),
            ("- [A](a.md) — a\n<!-- note\nmore\n", (2, "<!--", true)),
            (
                "- [A](a.md) — a\n- note %% private\n- [B](b.md)\n",
                (2, "%%", false),
            ),
            (
                "- [A](a.md) — a %% draft\n- [B](b.md) — b\n",
                (1, "%%", false),
            ),
            ("- [A](a.md) — a %% x\n- b %%\n- c %% y\n", (3, "%%", false)),
            ("%%\n- [A](a.md) — a\n", (1, "%%", true)),
            (
                "- [A](a.md) — a\n```\n%% in code\n```\n%%\n",
                (5, "%%", true),
            ),
        ] {
            assert_eq!(found(text), Some(expected), "{text:?}");
        }
    }

    #[test]
    fn closed_comments_and_code_open_nothing() {
        for text in [
            "- [A](a.md) — a %% note %%\n- [B](b.md) — b\n",
            "%% note\nstill hidden\n%%\n- [A](a.md) — a\n",
            "<!-- a -->\n<!--\nb\n-->\n- [A](a.md) — a\n",
            "- [A](a.md) — a\n```\n%% not a comment\n```\n    %% indented code\n",
            "- a %% opens\n- b %% closes\n",
            "<!--\n%% in an HTML comment\n-->\n- [A](a.md) — a <!-- %% -->\n",
            "- [A](a.md) — a <!-- not closed in a list item\n%% b %%\n",
            "",
        ] {
            assert_eq!(found(text), None, "{text:?}");
        }
        // The frontmatter is not Markdown.
        let text = "---\ndescription: a %% b\n---\n- [A](a.md) — a\n";
        assert_eq!(unclosed_comment(text), None);
    }

    #[test]
    fn the_message_names_the_hidden_lines_and_pointers() {
        let text = "- [A](a.md) — a\n- note %% private\n- [B](b.md) — b\nprose\n- [C](c.md) — c\n";
        let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
        let message = unclosed_comment(text).unwrap().message(&index);
        assert!(message.contains("lines 3–5"), "{message}");
        assert!(
            message.contains("the pointer lines of b.md (line 3), c.md (line 5) —"),
            "{message}"
        );
        assert!(
            message.contains("memory-core still reads them"),
            "{message}"
        );
        let text = "- [A](a.md) — a\nnote <!-- never closed\n";
        let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
        let message = unclosed_comment(text).unwrap().message(&index);
        assert!(
            message.starts_with("`<!--` opens a comment here"),
            "{message}"
        );
        assert!(message.contains("close it with `-->`"), "{message}");
        assert!(
            message.contains("the rest of the line (no pointer line among them)"),
            "{message}"
        );
    }
}
