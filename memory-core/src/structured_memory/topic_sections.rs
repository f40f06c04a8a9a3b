//! A topic file's `##` sections, as a split sees them: each `## ` heading in ordinary
//! text (not in the frontmatter, a fence, a comment, an HTML block or an entry: a heading
//! indented under an entry is that entry's) opens a section
//! that runs to the next `# ` or `## ` heading, or to the end of the file. A split cuts by
//! them and moves a heading with the entries under it.

use std::ops::Range;

use super::topic_file::{Entry, Topic};
use crate::markdown::{Context, Line, classify_in_list_items};

/// One `##` section of a topic file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TopicSection {
    /// The heading's text, trimmed (`Databases` for `## Databases`).
    pub title: String,
    /// The heading line, terminator included.
    pub heading: Range<usize>,
    /// The whole section: the heading line to the start of the next `#`/`##` heading
    /// (or the end of the file).
    pub span: Range<usize>,
}

impl TopicSection {
    /// Whether `entry` is under this section.
    pub fn holds(&self, entry: &Entry) -> bool {
        self.span.contains(&entry.span.start)
    }
}

/// The `##` sections of `topic`, in file order.
pub(super) fn sections(topic: &Topic) -> Vec<TopicSection> {
    let text = topic.text.as_str();
    let mut out: Vec<TopicSection> = Vec::new();
    for_each_own_line(topic, |line| {
        let Some(level) = heading_level(line.text) else {
            return;
        };
        if let Some(open) = out.last_mut()
            && open.span.end == text.len()
        {
            open.span.end = line.content.start;
        }
        if level == 2 {
            let title = line.text.trim_start()[2..].trim().to_string();
            out.push(TopicSection {
                title,
                heading: line.content.start..line.end,
                span: line.content.start..text.len(),
            });
        }
    });
    out
}

/// Calls `f` with each line of `topic`'s own ordinary text, in order: not the
/// frontmatter, a fence, a comment, an HTML block or an entry's lines (a heading indented
/// under an entry is that entry's).
fn for_each_own_line(topic: &Topic, mut f: impl FnMut(&Line<'_>)) {
    let text = topic.text.as_str();
    let body_start = topic.body_start;
    let mut entries = topic.entries.iter().peekable();
    // The frontmatter is not Markdown (see `Topic::read`).
    let masked = super::topic_file::mask_frontmatter(text, body_start);
    for block in classify_in_list_items(masked.as_deref().unwrap_or(text)).lines {
        let line = &block.line;
        if line.content.start < body_start || block.context != Context::Text {
            continue;
        }
        while entries
            .next_if(|e| e.span.end <= line.content.start)
            .is_some()
        {}
        if entries
            .peek()
            .is_some_and(|e| e.span.contains(&line.content.start))
        {
            continue;
        }
        f(line);
    }
}

/// One ATX heading (`#` to `######`) of a topic file's own text, as [`sections`] sees
/// them (not in the frontmatter, a fence, a comment, an HTML block or an entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TopicHeading {
    /// The 1-based line.
    pub line: usize,
    /// The heading's text: without its `#`s, its closing `#` sequence or the white space
    /// around it (`Last week` for `### Last week ##`): the section title a write names.
    pub title: String,
}

/// Every ATX heading of `topic`'s own text, of any level, in file order (see
/// [`TopicHeading`]).
pub(super) fn headings(topic: &Topic) -> Vec<TopicHeading> {
    let mut out = Vec::new();
    for_each_own_line(topic, |line| {
        if let Some(title) = atx_title(line.text) {
            out.push(TopicHeading {
                line: line.number,
                title: title.to_string(),
            });
        }
    });
    out
}

/// The text of an ATX heading line of any level (up to three spaces, one to six `#`,
/// then white space or the end), without its closing `#` sequence (one preceded by white
/// space, or the whole rest: CommonMark); `None` for any other line.
fn atx_title(t: &str) -> Option<&str> {
    let rest = t.trim_start_matches(' ');
    if t.len() - rest.len() > 3 {
        return None;
    }
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let after = &rest[hashes..];
    if !(1..=6).contains(&hashes) || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let inner = after.trim();
    let unclosed = inner.trim_end_matches('#');
    let title = if unclosed.is_empty() {
        unclosed
    } else if unclosed.ends_with([' ', '\t']) {
        unclosed.trim_end()
    } else {
        inner
    };
    Some(title)
}

/// The level of an ATX heading of level 1 or 2 (`# T`, `## T`, up to three spaces
/// before), `None` for any other line (`### T` included: it stays inside its section).
fn heading_level(t: &str) -> Option<usize> {
    let rest = t.trim_start_matches(' ');
    if t.len() - rest.len() > 3 {
        return None;
    }
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let after = &rest[hashes..];
    let titled = after.starts_with([' ', '\t']) && !after.trim().is_empty();
    ((1..=2).contains(&hashes) && titled).then_some(hashes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_run_to_the_next_heading_of_their_level_or_above() {
        let text = "---\nx: 1\n## not a heading in YAML\n---\n# Infra\n\n## Hosts\n- 2026-07-01: a\n### Detail\n- 2026-07-02: b\n```\n## in a fence\n```\n## Databases\r\n- 2026-07-03: c\n";
        let topic = Topic::parse("t.md", text).unwrap();
        let found = sections(&topic);
        let titles: Vec<&str> = found.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Hosts", "Databases"]);
        assert!(
            found[0].holds(&topic.entries[1]),
            "### stays in its section"
        );
        assert!(text[found[0].span.clone()].ends_with("```\n"));
        assert_eq!(&text[found[1].heading.clone()], "## Databases\r\n");
        assert_eq!(found[1].span.end, text.len());
        assert!(found[1].holds(&topic.entries[2]));
    }

    #[test]
    fn headings_of_every_level_without_their_closing_hashes() {
        let text = "# Infra #\n## Last week\n### Deep ###\n#### Yes#\n```\n## fenced\n```\n- 2026-07-01: x\n  ## the entry's\n<!--\n## commented\n-->\n####### seven\n#tag\n##\n";
        let topic = Topic::parse("t.md", text).unwrap();
        let found: Vec<(usize, String)> = headings(&topic)
            .into_iter()
            .map(|h| (h.line, h.title))
            .collect();
        let expected = [
            (1, "Infra"),
            (2, "Last week"),
            (3, "Deep"),
            (4, "Yes#"),
            (15, ""),
        ];
        assert_eq!(
            found,
            expected.map(|(l, t)| (l, t.to_string())),
            "not in a fence, an entry or a comment"
        );
        assert_eq!(atx_title("## \\#"), Some("\\#"));
        assert_eq!(atx_title("   ## a ## b"), Some("a ## b"));
        assert_eq!(atx_title("    ## code"), None);
    }

    #[test]
    fn heading_levels() {
        assert_eq!(heading_level("## Hosts"), Some(2));
        assert_eq!(heading_level("   # Infra"), Some(1));
        assert_eq!(heading_level("##\tTabbed"), Some(2));
        for t in [
            "### Deep",
            "##",
            "##   ",
            "#hashtag",
            "    ## code",
            "- ## item",
        ] {
            assert_eq!(heading_level(t), None, "{t:?}");
        }
    }
}
