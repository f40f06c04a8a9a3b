//! Where a new entry goes in a topic file that has `##` sections: under the section the
//! fact names (a new `## Title` at the end of the file when there is none), or, naming
//! none, above the first section, so that no section it is not about claims it (a split by
//! headings would otherwise carry it off with the last section). A file without sections
//! takes it at its end.

use super::topic_file::Topic;
use super::topic_sections::sections;
use crate::error::{Error, Result};

/// The longest section title accepted, in characters.
pub(super) const MAX_SECTION_CHARS: usize = 120;

/// A section title as given, trimmed: one line, not empty, no control characters, within
/// [`MAX_SECTION_CHARS`], and not itself Markdown structure (`#`, a list marker).
pub(super) fn clean_section(section: &str) -> Result<String> {
    let s = section.trim();
    if s.is_empty() {
        return Err(Error::invalid("section", section, "must not be empty"));
    }
    if s.chars().any(char::is_control) {
        return Err(Error::invalid(
            "section",
            section,
            "must be one line without tabs or control characters",
        ));
    }
    if let Some(why) = super::visible::hazard_problem(s) {
        return Err(Error::invalid("section", section, why));
    }
    if s.chars().count() > MAX_SECTION_CHARS {
        return Err(Error::invalid(
            "section",
            section,
            format!("must be at most {MAX_SECTION_CHARS} characters"),
        ));
    }
    if s.starts_with('#') || s.contains("%%") || s.contains("<!--") {
        return Err(Error::invalid(
            "section",
            section,
            "is the title of a `##` heading: give it without `#`, `%%` or `<!--`",
        ));
    }
    Ok(s.to_string())
}

/// Whether two section titles are the same: the same words, case folded (a closing
/// `##` sequence aside).
pub(super) fn same_title(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

/// A title's words, lowercased, without a closing `#` sequence and without the emphasis
/// and code marks around words (`## **Bold** section` is `bold section`).
fn fold(s: &str) -> String {
    s.trim_end_matches(|c: char| c == '#' || c.is_whitespace())
        .split_whitespace()
        .map(|w| w.trim_matches(|c| matches!(c, '*' | '_' | '`')))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `topic`'s text with `entry` (its lines, terminated) placed as the module says.
pub(super) fn place_entry(topic: &Topic, entry: &str, section: Option<&str>) -> String {
    let found = sections(topic);
    let target = match section {
        Some(title) => match found.iter().find(|s| same_title(&s.title, title)) {
            Some(s) => s.span.clone(),
            None => return append_section(topic, title, entry),
        },
        None => match found.first() {
            Some(first) => topic.body_start..first.span.start,
            None => topic.body_start..topic.text.len(),
        },
    };
    let text = topic.text.as_str();
    let ending = topic.line_ending.as_str();
    // Just past the range's last non-blank line (its terminator included).
    let content = text[target.clone()].trim_end_matches(['\r', '\n', ' ', '\t']);
    let mut at = target.start + content.len();
    if !content.is_empty() {
        at += text[at..].find('\n').map_or(text.len() - at, |i| i + 1);
    }
    // After the range's last entry when a blank line or the range's end follows it (prose
    // after it stays after it); a hand-written item right after it continues its list,
    // and the new entry goes after the list.
    if let Some(last) = topic
        .entries
        .iter()
        .rfind(|e| target.contains(&e.span.start))
    {
        let next_line = text[last.span.end..target.end].lines().next();
        if next_line.is_none_or(|l| l.trim().is_empty()) {
            at = last.span.end;
        }
    }
    let last_line = text[..at]
        .trim_end_matches(['\r', '\n'])
        .matches('\n')
        .count()
        + 1;
    // Right after an entry or a hand-written item, the new entry continues the list.
    let continues_list = !content.is_empty()
        && (topic.entries.iter().any(|e| e.span.end == at)
            || topic.undated.iter().any(|u| u.line == last_line));
    let mut out = String::with_capacity(text.len() + entry.len() + 2 * ending.len());
    out.push_str(&text[..at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(ending);
    }
    let nothing_before = text[topic.body_start..at].trim().is_empty();
    if !continues_list && !nothing_before && !out.ends_with("\n\n") && !out.ends_with("\r\n\r\n") {
        out.push_str(ending);
    }
    out.push_str(entry);
    // A heading or prose right after it is set apart by a blank line.
    let rest = &text[at..];
    if !rest.is_empty() && !rest.starts_with(['\r', '\n']) {
        out.push_str(ending);
    }
    out.push_str(rest);
    out
}

/// `topic`'s text with a new `## title` section holding `entry` at its end.
fn append_section(topic: &Topic, title: &str, entry: &str) -> String {
    let ending = topic.line_ending.as_str();
    let mut out = topic.text.clone();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(ending);
    }
    if !out.trim().is_empty() && !out.ends_with("\n\n") && !out.ends_with("\r\n\r\n") {
        out.push_str(ending);
    }
    out.push_str("## ");
    out.push_str(title);
    out.push_str(ending);
    out.push_str(ending);
    out.push_str(entry);
    out
}

/// The title of the section `entry_start` (a byte offset in `topic`) is under, if any.
pub(super) fn section_of(topic: &Topic, entry_start: usize) -> Option<String> {
    sections(topic)
        .into_iter()
        .find(|s| s.span.contains(&entry_start))
        .map(|s| s.title)
}
