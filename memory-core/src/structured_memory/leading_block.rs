//! A `---` line at the top of a topic file (or `MEMORY.md`) opens frontmatter only when
//! what follows is frontmatter: Markdown also starts a file with `---` (a thematic break),
//! and a file written `---`, a blank line, entries, `---` must show its entries, not hide
//! them in a "frontmatter" that is a list.
//!
//! A block closed by a `---` or `...` line is frontmatter when its content reads as a YAML
//! mapping (an empty block too), or — when it is not YAML — as the `key: value` lines the
//! lenient reader takes (`topic_meta.rs`): its first line that is not blank or a comment
//! is `key:` at the margin, and no line at the margin is a dated entry or a list item
//! that is not a YAML list under a key (`tags:` then `- a`). A block holding nothing but
//! comments is Markdown (`---`, `# Title`, `---`). Otherwise the `---` is a thematic break
//! and every line is body.
//!
//! An opening `---` never closed is body too, unless its first line that is not blank is
//! `key:` at the margin: then it is frontmatter someone forgot to close, and reading it as
//! body would take YAML lines for facts, so it stays refused (naming line 1).
//!
//! Nothing here changes a byte: it only decides where the body starts.

use serde_yaml::Mapping;

use super::topic_file::entry_head;
use crate::markdown::{Frontmatter, FrontmatterKeys, ParseIssue};

/// A leading `---` block that is frontmatter, with its strict YAML reading.
pub(super) struct Located {
    /// Where it is.
    pub frontmatter: Frontmatter,
    /// Its content as a YAML mapping, or why it is not one (its `key: value` lines are
    /// then read line by line).
    pub strict: Result<Mapping, ParseIssue>,
}

/// The frontmatter of `text`: `Ok(None)` when the file has none (no leading `---`, or a
/// `---` block that is Markdown: see the module docs); a [`ParseIssue`] naming line 1 when
/// an opening `---` followed by a `key:` line is never closed.
pub(super) fn locate(text: &str) -> Result<Option<Located>, ParseIssue> {
    let frontmatter = match Frontmatter::locate(text) {
        Ok(Some(fm)) => fm,
        Ok(None) => return Ok(None),
        Err(issue) => {
            return if unclosed_is_frontmatter(text) {
                Err(issue)
            } else {
                Ok(None)
            };
        }
    };
    let strict = match FrontmatterKeys::read(text) {
        Ok(Some(keys)) => keys.mapping(text),
        Ok(None) => Ok(Mapping::new()),
        Err(issue) => Err(issue),
    };
    let yaml = frontmatter.yaml(text);
    let is_frontmatter = match &strict {
        Ok(map) => !map.is_empty() || !only_comments(yaml),
        // The key scan refuses some YAML (an indented key); YAML itself may read it.
        Err(_) => frontmatter.mapping(text).is_ok() || lenient_lines(yaml),
    };
    Ok(is_frontmatter.then_some(Located {
        frontmatter,
        strict,
    }))
}

/// Why a leading `---` block read as Markdown is not frontmatter, when it looks like a
/// JSON or YAML flow mapping someone meant as one (its first line that is not blank opens
/// `{` or `[`) and does not parse: the issue at its line. `None` otherwise.
pub(super) fn broken_flow_block(text: &str) -> Option<ParseIssue> {
    if !matches!(locate(text), Ok(None)) {
        return None;
    }
    let frontmatter = Frontmatter::locate(text).ok().flatten()?;
    let first = frontmatter
        .yaml(text)
        .lines()
        .find(|l| !l.trim().is_empty())?;
    if !first.trim_start().starts_with(['{', '[']) {
        return None;
    }
    frontmatter.mapping(text).err()
}

/// Where the body of `text` starts: after its frontmatter, or 0 (see [`locate`]).
pub(super) fn body_start(text: &str) -> Result<usize, ParseIssue> {
    Ok(locate(text)?.map_or(0, |l| l.frontmatter.body_start))
}

/// Whether a block's content holds nothing but comment lines (at least one): Markdown
/// headings between two thematic breaks, not an empty frontmatter.
fn only_comments(yaml: &str) -> bool {
    let mut lines = yaml.lines().map(str::trim).filter(|l| !l.is_empty());
    lines.clone().next().is_some() && lines.all(|l| l.starts_with('#'))
}

/// Whether a block that is not YAML reads as `key: value` lines (see the module docs).
fn lenient_lines(yaml: &str) -> bool {
    let mut first = true;
    // Whether a margin list item here would be a YAML list under a key.
    let mut list_allowed = false;
    for line in yaml.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || (first && trimmed.starts_with('#')) {
            continue;
        }
        if first {
            if key_line(line).is_none() {
                return false;
            }
            first = false;
        }
        if line.starts_with([' ', '\t']) || trimmed.starts_with('#') {
            continue;
        }
        if is_item(line) {
            if !list_allowed || entry_head(line).is_some() {
                return false;
            }
            continue;
        }
        list_allowed = key_line(line).is_some_and(|value| value.trim().is_empty());
    }
    !first
}

/// Whether an opening `---` never closed is frontmatter: its first line that is not
/// blank is `key:` at the margin.
fn unclosed_is_frontmatter(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| key_line(l).is_some())
}

/// The value of a `key:` line at the margin (a key of word characters, spaces, `-` and
/// `.`, or a quoted one; then `:` and white space or the end), or `None`.
fn key_line(line: &str) -> Option<&str> {
    if line.starts_with([' ', '\t']) {
        return None;
    }
    let (key_end, rest) = match line.chars().next()? {
        q @ ('"' | '\'') => {
            let close = line[1..].find(q)? + 1;
            (close + 1, &line[close + 1..])
        }
        c if c.is_alphanumeric() || c == '_' => {
            let end = line
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ')))
                .unwrap_or(line.len());
            (end, &line[end..])
        }
        _ => return None,
    };
    let value = rest.strip_prefix(':')?;
    let ends_key = value.is_empty() || value.starts_with([' ', '\t', '\r']);
    (key_end > 0 && ends_key).then_some(value)
}

/// A list item at the margin: `-`, `*` or `+`, or digits and `.` or `)`, then white
/// space or the end.
fn is_item(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = match digits {
        0 => line.strip_prefix(['-', '*', '+']),
        1..=9 => line[digits..].strip_prefix(['.', ')']),
        _ => None,
    };
    rest.is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(text: &str) -> usize {
        body_start(text).unwrap_or_else(|i| panic!("{text:?}: {i:?}"))
    }

    #[test]
    fn yaml_and_lenient_blocks_are_frontmatter() {
        for text in [
            "---\nname: x\n---\n- 2026-07-10: a\n",
            "---\n---\n- 2026-07-10: a\n",
            "---\n\n---\n",
            "---\ntags:\n- a\n- b\n---\n",
            "---\n  name: indented\n---\n",
            "---\nname: Feedback: testing\ntags:\n- a\n---\n",
            "---\n# a comment\nname: \"unbalanced\n---\n",
            "\u{feff}---\r\nname: x: y\r\n---\r\n",
            "---\n'quoted key': a: b\n---\n",
            "---\nname: x\n\nSome prose: here\n---\n",
        ] {
            assert_ne!(start(text), 0, "{text:?}");
        }
    }

    #[test]
    fn blocks_that_are_not_frontmatter_are_body() {
        for text in [
            "---\n\n- 2026-11-01 [k]: first entry\n\n---\n",
            "---\n- 2026-11-01 [k]: first entry\n---\n",
            "---\n# Title\n---\n",
            "---\nname: x\n- 2026-07-10: a fact\n---\n",
            "---\nname: x: y\n- a hand note\n---\n",
            "---\ntags:\n- 2026-07-10: a fact: hidden\n  x: [\n---\n",
            "---\nJust prose.\n---\n",
            "---\n1. ordered\n---\n",
            "---\n> quote: x\n---\n",
        ] {
            assert_eq!(start(text), 0, "{text:?}");
        }
    }

    #[test]
    fn an_unclosed_dash_line_is_body_unless_a_key_follows() {
        for text in [
            "---\n# Title\n",
            "---",
            "---\n",
            "---\n\n- 2026-07-10: a\n",
            "\u{feff}---\r\nprose\r\n",
        ] {
            assert_eq!(start(text), 0, "{text:?}");
        }
        for text in ["---\nname: x\n- 2026-07-10: a\n", "---\n\nname:\n"] {
            assert_eq!(body_start(text).unwrap_err().line, 1, "{text:?}");
        }
    }

    #[test]
    fn key_lines() {
        assert_eq!(key_line("name: x"), Some(" x"));
        assert_eq!(key_line("type:"), Some(""));
        assert_eq!(key_line("\"a: b\": c"), Some(" c"));
        assert_eq!(key_line("Ünï cødé: ✓"), Some(" ✓"));
        for line in [
            "- 2026-07-10: a",
            "  name: x",
            "url:http://x",
            "# name: x",
            "[k]: v",
            ":",
            "'open: x",
        ] {
            assert_eq!(key_line(line), None, "{line:?}");
        }
    }
}
