//! What a write puts on a `MEMORY.md` pointer line — its title and its hook — checked
//! before anything is written, wherever the value comes from: given by the caller
//! (`--title`, `--hook`), taken from a topic file's frontmatter (`name`, `description`)
//! or derived from the file's name. The index is loaded into every session: a value that
//! would split the line, inject a second pointer, carry a control character or a secret
//! is refused, never written.
//!
//! The checks, the same for every source: trimmed, not more than one line, at most
//! [`MAX_HOOK_CHARS`] (a hook) or [`MAX_TITLE_CHARS`] (a title) characters, no control
//! characters but tabs, no secret (the context-memory pattern set), no relative time
//! (`yesterday`, `last week`: see [`convert_relative_time`](super::convert_relative_time);
//! a hook or title is never converted), and the line rendered
//! with it reads back as one pointer with this title, file and hook, leaving a line after
//! it readable. A frontmatter value that fails is refused naming the topic file and the
//! frontmatter line, and saying which argument to give instead.

use super::index_file::MemoryIndex;
use super::pointer::render_pointer;
use super::topic_file::Topic;
use crate::error::{Error, Result};
use crate::hygiene::find_secret;

/// The longest hook accepted, in characters: one line a session reads to decide whether
/// to load the topic ("a topic file that cannot be summarized in one hook line is two
/// topic files"), in an index loaded into every session.
pub(crate) const MAX_HOOK_CHARS: usize = 300;

/// The longest title accepted, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 120;

/// Why `value` cannot stand on an index line as `field`, or `None` when it can.
fn problem(field: &str, value: &str) -> Option<String> {
    if value.contains(['\n', '\r']) {
        return Some("it must be one line".into());
    }
    // Obsidian opens a comment at `%%` anywhere on a line: on an index line it would hide
    // every pointer after it. (An inline `<!--` without its `-->` is text in CommonMark.)
    if value.contains("%%") {
        return Some(
            "it must not hold `%%`: Obsidian opens a comment there that hides the rest of the index".into(),
        );
    }
    let limit = if field == "title" {
        MAX_TITLE_CHARS
    } else {
        MAX_HOOK_CHARS
    };
    let chars = value.chars().count();
    if chars > limit {
        return Some(format!(
            "it is {chars} characters long; a {field} holds at most {limit}"
        ));
    }
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Some("it must not hold control characters".into());
    }
    // Never converted: by the next session `yesterday` in a hook is wrong.
    if let Some(why) = super::time_words::relative_problem(field, value) {
        return Some(why);
    }
    if let Some(why) = super::visible::hazard_problem(value) {
        return Some(why);
    }
    if !value.is_empty() && super::visible::renders_empty(value) {
        return Some(format!(
            "it renders as nothing (only an HTML comment): the {field} must say something a reader sees"
        ));
    }
    find_secret(value).map(|found| {
        format!(
            "it holds a secret ({}); memory never stores secrets",
            found.kind
        )
    })
}

/// `value`, trimmed, checked as the `field` (`title` or `hook`) the caller gave.
///
/// Refused with [`Error::InvalidInput`] for a line break or a control character, with
/// [`Error::SecretRefused`] for a secret.
pub(super) fn check_given(field: &'static str, value: &str) -> Result<String> {
    crate::hygiene::refuse_secrets(field, value)?;
    let trimmed = value.trim();
    if let Some(why) = problem(field, trimmed) {
        return Err(Error::invalid(field, value, why));
    }
    Ok(trimmed.to_string())
}

/// The topic's frontmatter `key` (`description` for a hook, `name` for a title), trimmed,
/// when it can be `field`; `None` when the topic has no such value. A value that cannot
/// be one is refused with [`Error::InvalidInput`] naming the file, the frontmatter line
/// and the argument to give instead (`flag`), without showing the value (it may be a
/// secret).
pub(super) fn from_frontmatter(
    topic: &Topic,
    key: &str,
    field: &'static str,
    flag: &str,
) -> Result<Option<String>> {
    let meta = topic.meta.as_ref();
    let value = match key {
        "name" => meta.and_then(|m| m.name.as_deref()),
        _ => meta.and_then(|m| m.description.as_deref()),
    };
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let line = frontmatter_line(&topic.text, key);
    if let Some(why) = not_text(topic, line, value) {
        return Err(Error::invalid(
            field,
            &topic.file,
            format!(
                "{}:{line}: the frontmatter {key} cannot be the {field} of its index line: {why}; fix it, or give {flag}",
                topic.file
            ),
        ));
    }
    match problem(field, value) {
        None => Ok(Some(value.to_string())),
        Some(why) => Err(Error::invalid(
            field,
            &topic.file,
            format!(
                "{}:{line}: the frontmatter {key} cannot be the {field} of its index line: {why}; give {flag}",
                topic.file
            ),
        )),
    }
}

/// Why the frontmatter value `value` (read from file line `line`) is not one line of
/// text to take as a title or hook: a YAML or JSON value never closed, read line by line
/// with its quote or bracket (`"hosts, db`), or a mapping or list (`{a: 1}`).
fn not_text(topic: &Topic, line: usize, value: &str) -> Option<String> {
    let raw = topic
        .text
        .strip_prefix('\u{feff}')
        .unwrap_or(&topic.text)
        .lines()
        .nth(line.saturating_sub(1))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim())
        .unwrap_or_default();
    if let Some(not_yaml) = &topic.frontmatter_not_yaml {
        // Read line by line: a value that opens a quote, a list or a mapping it never
        // closes is a slip in the YAML, not text (`name: Feedback: testing` still is).
        let opened = value.starts_with(['"', '\'', '[', '{']) && value == raw;
        return opened.then(|| {
            format!(
                "it does not read as YAML (line {}: {}), so it is not taken as text",
                not_yaml.line, not_yaml.message
            )
        });
    }
    raw.starts_with(['[', '{'])
        .then(|| "it is a YAML list or mapping, not one line of text".to_string())
}

/// Refuses a pointer for `file` with `title` and `hook` that would not read back as
/// itself (and leave the line after it readable), with [`Error::InvalidInput`].
pub(super) fn check_reads_back(title: &str, file: &str, hook: &str) -> Result<()> {
    let line = render_pointer(title, file, hook);
    let probe = format!("{line}\n- [Next](memory-next-probe.md) — next\n");
    let reads_back = MemoryIndex::parse("MEMORY.md", probe).is_ok_and(|index| {
        index.content.is_empty()
            && index.unusable.is_empty()
            && index.lines.len() == 2
            && index.lines[0].title == title
            && index.lines[0].file == file
            && index.lines[0].hook == hook.trim()
            && index.lines[1].file == "memory-next-probe.md"
            && index.lines[1].hook == "next"
    });
    if reads_back {
        Ok(())
    } else {
        Err(Error::invalid(
            "hook",
            &line,
            "the index line would not read back as one pointer with this title, file and hook; nothing was written",
        ))
    }
}

/// The 1-based line of `key` in the frontmatter at the start of `text` (1, the opening
/// line, when it is not found at the margin).
fn frontmatter_line(text: &str, key: &str) -> usize {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate().skip(1) {
        let line = line.trim_end_matches('\r');
        if line == "---" || line == "..." {
            break;
        }
        let Some((k, _)) = line.split_once(':') else {
            continue;
        };
        if !line.starts_with([' ', '\t']) && k.trim().trim_matches(['"', '\'']) == key {
            return i + 1;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_values_are_one_line_without_control_characters_or_secrets() {
        assert_eq!(check_given("hook", "  hosts, db \t ").unwrap(), "hosts, db");
        assert_eq!(check_given("hook", "a\tb").unwrap(), "a\tb");
        for bad in [
            "a\nb",
            "a\rb",
            "a\u{7}b",
            "a\u{1b}[31m",
            "x\u{0}",
            "a\u{85}b",
        ] {
            let err = check_given("hook", bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{bad:?}");
        }
        let err = check_given("title", "has AKIAIOSFODNN7EXAMPLE").unwrap_err();
        assert_eq!(err.secret_kind(), Some("aws-access-key"));
    }

    #[test]
    fn frontmatter_lines_are_found_at_the_margin() {
        let text = "\u{feff}---\r\nname: x\r\n  description: nested\r\n\"description\": |\r\n  a\r\n---\r\n";
        assert_eq!(frontmatter_line(text, "description"), 4);
        assert_eq!(frontmatter_line(text, "name"), 2);
        assert_eq!(frontmatter_line(text, "type"), 1);
    }

    #[test]
    fn pointers_read_back_or_are_refused() {
        assert!(check_reads_back("Infra", "memory-infra.md", "hosts, db").is_ok());
        assert!(check_reads_back("A [b] \\ c", "my notes.md", "x — y: z").is_ok());
        assert!(check_reads_back("T", "memory-t.md", "- [X](memory-x.md) — injected").is_ok());
    }
}
