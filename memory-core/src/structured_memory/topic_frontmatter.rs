//! The frontmatter a new topic file starts with, in a directory that keeps one.
//!
//! Claude Code's auto-memory writes each topic file with a frontmatter block (`name`,
//! `description`, `type`) and reads a topic's `description` to decide when to load it.
//! A topic memory-core creates among such files looks like them: when most of the first
//! [`SAMPLED_TOPICS`] linked topic files that read have a frontmatter `name` or
//! `description` (looked for among the first 20 index lines), or when the caller gives a `type` ([`Fact::kind`](super::Fact::kind)),
//! the new file starts with `name` (its title), `description` (its hook) and `type` (when
//! given), in the file's line ending, and its title is not repeated as a `# ` heading
//! (`name` is the title there). Otherwise it starts with `# <title>`, as the seed's
//! examples do. An existing file's frontmatter is never rewritten.

use serde_yaml::Value;

use super::index_file::MemoryIndex;
use super::memory::StructuredMemory;
use super::topic_file::Topic;
use crate::error::{Error, Result};
use crate::markdown::{LineEnding, render_frontmatter};

/// How many linked topic files (in index order, the first that read) decide whether the
/// directory keeps frontmatter.
pub const SAMPLED_TOPICS: usize = 3;

/// How many index lines, at most, are looked at to find [`SAMPLED_TOPICS`] that read.
const MAX_LOOKED_AT: usize = 20;

/// The longest `type` accepted, in characters.
const MAX_KIND_CHARS: usize = 40;

impl StructuredMemory {
    /// Whether the directory's topic files keep frontmatter (see the module docs): most
    /// of the first [`SAMPLED_TOPICS`] linked topic files that exist and read.
    pub(super) fn keeps_frontmatter(&self, index: Option<&MemoryIndex>) -> bool {
        let Some(index) = index else {
            return false;
        };
        let (mut read, mut with) = (0usize, 0usize);
        // Bounded: an index of dangling lines costs a new topic at most this many looks.
        for line in index.lines.iter().take(MAX_LOOKED_AT) {
            if read == SAMPLED_TOPICS {
                break;
            }
            // A file that is missing or does not read says nothing about the style.
            let Ok(Some(topic)) = self.load_topic(&line.file) else {
                continue;
            };
            read += 1;
            if topic
                .meta
                .as_ref()
                .is_some_and(|m| m.name.is_some() || m.description.is_some())
            {
                with += 1;
            }
        }
        read > 0 && with * 2 > read
    }
}

/// The frontmatter block of a new topic file titled `title` with hook `hook` and,
/// when given, `type` `kind` (each value plain, or quoted where YAML would read it as
/// something else: see the tests).
pub(super) fn new_topic_frontmatter(
    title: &str,
    hook: &str,
    kind: Option<&str>,
    ending: LineEnding,
) -> String {
    let mut entries = vec![
        ("name", Value::from(title)),
        ("description", Value::from(hook)),
    ];
    if let Some(kind) = kind {
        entries.push(("type", Value::from(kind)));
    }
    render_frontmatter(&entries, ending)
}

/// A topic `type` as given, trimmed: one word of letters, digits, `-` and `_` (Claude
/// Code's `user`, `feedback`, `project`, `reference`, or a type of the user's own), at
/// most 40 characters; anything else is refused with [`Error::InvalidInput`].
pub(super) fn check_kind(kind: &str) -> Result<String> {
    let kind = kind.trim();
    let why = if kind.is_empty() {
        Some("it is empty".to_string())
    } else if kind.chars().count() > MAX_KIND_CHARS {
        Some(format!("it is longer than {MAX_KIND_CHARS} characters"))
    } else {
        kind.chars()
            .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
            .map(|c| format!("{c:?} is not a letter, digit, '-' or '_'"))
    };
    match why {
        None => Ok(kind.to_string()),
        Some(why) => Err(Error::invalid(
            "type",
            kind,
            format!("a topic type is one word (user, feedback, project, reference…): {why}"),
        )),
    }
}

/// That a new topic file's frontmatter, when it has one, reads back as the title, hook
/// and type it was written with (the reader every command uses), else
/// [`Error::InvalidInput`] and nothing is written.
pub(super) fn check_new_frontmatter(
    topic: &Topic,
    title: &str,
    hook: Option<&str>,
    kind: Option<&str>,
) -> Result<()> {
    let Some(meta) = &topic.meta else {
        return Ok(());
    };
    let reads_back = meta.name.as_deref() == Some(title)
        && meta.description.as_deref() == hook
        && meta.kind.as_deref() == kind
        && topic.frontmatter_not_yaml.is_none();
    if reads_back {
        return Ok(());
    }
    Err(Error::invalid(
        "title",
        title,
        format!(
            "the frontmatter of the new topic {} would not read back as its title, hook and type; nothing was written",
            topic.file
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_quotes_what_yaml_would_misread_and_keeps_the_ending() {
        assert_eq!(
            new_topic_frontmatter("Testing", "how tests run", Some("feedback"), LineEnding::Lf),
            "---\nname: Testing\ndescription: how tests run\ntype: feedback\n---\n"
        );
        assert_eq!(
            new_topic_frontmatter("Infra: hosts", "yes", None, LineEnding::CrLf),
            "---\r\nname: \"Infra: hosts\"\r\ndescription: \"yes\"\r\n---\r\n"
        );
    }

    #[test]
    fn a_type_is_one_word() {
        assert_eq!(check_kind(" feedback ").unwrap(), "feedback");
        assert_eq!(check_kind("team_notes-2").unwrap(), "team_notes-2");
        for bad in ["", "two words", "a: b", "x\ny", &"k".repeat(41)] {
            assert!(check_kind(bad).is_err(), "{bad:?}");
        }
    }
}
