//! `##` section splitting.

use std::ops::Range;

use super::escape::FenceScan;
use super::lines;

/// A level-2 (`## `) section of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading text after `## `, trimmed (closing `#`s removed).
    pub heading: String,
    /// 1-based line of the heading.
    pub line: usize,
    /// Byte offset where the heading line starts.
    pub start: usize,
    /// Bytes after the heading line up to the next `##` heading (or the end).
    pub body: Range<usize>,
    /// The body without leading and trailing blank lines (empty range at `body.start`
    /// when the body is blank).
    pub content: Range<usize>,
}

/// Splits `text` at its `## ` headings outside code fences (including a fence that a
/// list item opens on its first line, `- ```` `, which CommonMark reads as the item's).
///
/// ```
/// let text = "# Title\n\n## A\n\none\n\n## B\n- x\n";
/// let sections = memory_core::markdown::split_sections(text);
/// assert_eq!(sections.len(), 2);
/// assert_eq!(&text[sections[0].content.clone()], "one");
/// assert_eq!(&text[sections[1].content.clone()], "- x");
/// ```
pub fn split_sections(text: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut last_content_end: Option<usize> = None;
    let mut first_content_start: Option<usize> = None;
    let mut fences = FenceScan::default();
    for line in lines(text) {
        let in_fence = fences.step_list(line.text);
        let heading = if in_fence {
            None
        } else {
            heading_text(line.text)
        };
        if let Some(heading) = heading {
            if let Some(prev) = sections.last_mut() {
                finish(
                    prev,
                    line.content.start,
                    first_content_start,
                    last_content_end,
                );
            }
            sections.push(Section {
                heading,
                line: line.number,
                start: line.content.start,
                body: line.end..line.end,
                content: line.end..line.end,
            });
            first_content_start = None;
            last_content_end = None;
            continue;
        }
        if !sections.is_empty() && !line.text.trim().is_empty() {
            first_content_start.get_or_insert(line.content.start);
            last_content_end = Some(line.content.end);
        }
    }
    if let Some(prev) = sections.last_mut() {
        finish(prev, text.len(), first_content_start, last_content_end);
    }
    sections
}

fn finish(section: &mut Section, body_end: usize, first: Option<usize>, last: Option<usize>) {
    section.body.end = body_end;
    section.content = match (first, last) {
        (Some(a), Some(b)) => a..b,
        _ => section.body.start..section.body.start,
    };
}

fn heading_text(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line[indent..].strip_prefix("##")?;
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let text = rest.trim();
    let text = text.trim_end_matches('#').trim_end();
    Some(text.to_string())
}
