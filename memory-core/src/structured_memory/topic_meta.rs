//! A topic file's own frontmatter: its bytes are never touched (every write keeps them
//! as they are), and `name`, `description` and `type` are read from it — as YAML when
//! the block is YAML, and line by line when it is not, because Claude Code's auto-memory
//! writes frontmatter that strict YAML refuses (`name: Feedback: testing`, a value with
//! unbalanced quotes, a key written twice). Such a file reads, takes writes and compacts
//! like any other; only `check` reports it (`frontmatter_not_yaml`, at the line the YAML
//! error names).
//!
//! The line-by-line reading: a line that starts at the margin with `key:` sets `key` to
//! the rest of the line, trimmed, its outer quotes removed (decoded as YAML when the
//! quoted value is valid YAML alone); the first line of a key wins; indented lines,
//! comment lines and lines without a `:` are skipped; a key with nothing after its `:` is
//! absent.
//!
//! A leading `---` block is frontmatter only when it reads as a mapping or as such lines;
//! otherwise it is Markdown, a thematic break (see `leading_block.rs`). A `---` opening
//! line never closed by a `---` or `...` line, with a `key:` line after it, is not
//! frontmatter that can be read leniently: reading the rest of the file as YAML would hide
//! every entry below it, reading it as body would take YAML lines for facts. Such a file
//! is refused, naming line 1 (and `check` reports it as `unreadable_topic`).

use serde::Serialize;
use serde_yaml::{Mapping, Value};

use super::leading_block::{Located, locate};
use crate::markdown::ParseIssue;

/// A topic file's own frontmatter fields, as Claude Code's auto-memory writes them
/// (`name`, `description`, `type`); other keys are kept in the file, not read.
///
/// ```
/// use memory_core::structured_memory::Topic;
/// let topic = Topic::parse("user.md", "---\nname: User\ndescription: role and preferences\ntype: user\n---\n- 2026-07-10: prefers terse answers\n").unwrap();
/// let meta = topic.meta.unwrap();
/// assert_eq!(meta.description.as_deref(), Some("role and preferences"));
/// assert_eq!(meta.kind.as_deref(), Some("user"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[non_exhaustive]
pub struct TopicMeta {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `type` (`user`, `feedback`, `project`, `reference`, …).
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// Why a topic file's frontmatter is not YAML: its fields were read line by line (see
/// the module docs), and `check` reports it as `frontmatter_not_yaml`.
///
/// ```
/// use memory_core::structured_memory::Topic;
/// let topic = Topic::parse("feedback.md", "---\nname: Feedback: testing\n---\n- 2026-07-10: real db\n").unwrap();
/// assert_eq!(topic.meta.unwrap().name.as_deref(), Some("Feedback: testing"));
/// assert_eq!(topic.frontmatter_not_yaml.unwrap().line, 2);
/// assert_eq!(topic.entries.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FrontmatterNotYaml {
    /// The 1-based file line the YAML error names.
    pub line: usize,
    /// What YAML says is wrong.
    pub message: String,
}

/// A topic's frontmatter, read.
pub(super) struct ReadMeta {
    /// Its fields.
    pub meta: TopicMeta,
    /// Where the body starts.
    pub body_start: usize,
    /// Why it is not YAML, when it is not.
    pub not_yaml: Option<FrontmatterNotYaml>,
}

/// The frontmatter of `text`: `Ok(None)` when there is none (a leading `---` block that
/// is Markdown is none), a [`ParseIssue`] naming line 1 when its opening fence, followed
/// by a `key:` line, is never closed.
pub(super) fn read_meta(text: &str) -> Result<Option<ReadMeta>, ParseIssue> {
    // A leading `---` block that is not frontmatter is Markdown (see `leading_block.rs`).
    let Some(Located {
        frontmatter,
        strict,
    }) = locate(text)?
    else {
        return Ok(None);
    };
    let (meta, not_yaml) = match strict {
        Ok(mapping) => (from_mapping(&mapping), None),
        // The key scan refuses what YAML itself reads as a mapping (a JSON object, a flow
        // mapping `{name: x, description: y}`): its fields are YAML's.
        Err(_) if let Ok(mapping) = frontmatter.mapping(text) => (from_mapping(&mapping), None),
        Err(issue) => {
            // The key scan stops at a key written twice (naming the second); YAML itself
            // may fail earlier (it names a duplicate at the mapping's start: not used).
            let issue = match frontmatter.mapping(text) {
                Err(first) if first.line < issue.line && !first.message.contains("same key") => {
                    first
                }
                _ => issue,
            };
            (
                line_by_line(frontmatter.yaml(text)),
                Some(FrontmatterNotYaml {
                    line: issue.line,
                    message: issue.message,
                }),
            )
        }
    };
    Ok(Some(ReadMeta {
        meta,
        body_start: frontmatter.body_start,
        not_yaml,
    }))
}

/// The fields of a block that is YAML: strings as they are, other scalars as YAML
/// writes them, null as absent.
fn from_mapping(mapping: &Mapping) -> TopicMeta {
    let field = |k: &str| {
        mapping.get(k).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => serde_yaml::to_string(other)
                .ok()
                .map(|s| s.trim().to_string()),
        })
    };
    TopicMeta {
        name: field("name"),
        description: field("description"),
        kind: field("type"),
    }
}

/// The fields of a block that is not YAML, read line by line (see the module docs).
fn line_by_line(yaml: &str) -> TopicMeta {
    let mut meta = TopicMeta::default();
    let mut seen = [false; 3];
    for line in yaml.lines() {
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (slot, seen) = match unquote(key.trim()).as_str() {
            "name" => (&mut meta.name, &mut seen[0]),
            "description" => (&mut meta.description, &mut seen[1]),
            "type" => (&mut meta.kind, &mut seen[2]),
            _ => continue,
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        let value = unquote(value.trim());
        *slot = (!value.is_empty()).then_some(value);
    }
    meta
}

/// `value` without its outer quotes: decoded as a YAML scalar when it is one alone
/// (`'it''s'`, `"a\tb"`), else the quotes just removed.
fn unquote(value: &str) -> String {
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"'))
            || (value.starts_with('\'') && value.ends_with('\'')));
    if !quoted {
        return value.to_string();
    }
    match serde_yaml::from_str::<String>(value) {
        Ok(decoded) => decoded,
        Err(_) => value[1..value.len() - 1].to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta_of(text: &str) -> (TopicMeta, Option<usize>) {
        let read = read_meta(text).unwrap().unwrap();
        (read.meta, read.not_yaml.map(|n| n.line))
    }

    fn fields(name: &str, description: &str, kind: &str) -> TopicMeta {
        let f = |s: &str| (!s.is_empty()).then(|| s.to_string());
        TopicMeta {
            name: f(name),
            description: f(description),
            kind: f(kind),
        }
    }

    #[test]
    fn yaml_blocks_are_read_as_yaml() {
        let (meta, not_yaml) =
            meta_of("---\nname: 'it''s'\ndescription: a # comment\ntype: 3\nother: [x]\n---\n");
        assert_eq!(meta, fields("it's", "a", "3"));
        assert_eq!(not_yaml, None);
    }

    #[test]
    fn blocks_that_are_not_yaml_are_read_line_by_line() {
        for (text, expected, line) in [
            (
                "---\nname: Feedback: testing\ntype: feedback\n---\n",
                fields("Feedback: testing", "", "feedback"),
                2,
            ),
            (
                "---\r\ndescription: use \"x\" not 'y': always\r\nname: \"Quoted: yes\"\r\n---\r\n",
                fields("Quoted: yes", "use \"x\" not 'y': always", ""),
                2,
            ),
            (
                "---\nname: first\nname: second\ndescription:\tC# # tabs\n---\n",
                fields("first", "C# # tabs", ""),
                3,
            ),
            (
                "---\nname: Feedback: testing\nname: again\n---\n",
                fields("Feedback: testing", "", ""),
                2,
            ),
            (
                "\u{feff}---\nname: Ünïcødé: ✓\n  indented: skipped\n# name: comment\ntype:\n---\n",
                fields("Ünïcødé: ✓", "", ""),
                2,
            ),
            (
                "---\nname: \"unbalanced\ntype: 'x: y'\n---\n",
                fields("\"unbalanced", "", "x: y"),
                2,
            ),
        ] {
            let (meta, not_yaml) = meta_of(text);
            assert_eq!(meta, expected, "{text:?}");
            assert_eq!(not_yaml, Some(line), "{text:?}");
        }
    }

    /// A JSON object (or YAML flow mapping) as frontmatter is YAML: read as such, not line
    /// by line (which would find no key at all).
    #[test]
    fn json_and_flow_mappings_are_read_as_yaml() {
        for text in [
            "---\n{\"name\": \"Infra\", \"description\": \"hosts, db\"}\n---\n",
            "---\n{name: Infra, description: \"hosts, db\"}\n---\n",
            "---\n{\n  \"name\": \"Infra\",\n  \"description\": \"hosts, db\"\n}\n---\n",
        ] {
            let (meta, not_yaml) = meta_of(text);
            assert_eq!(meta, fields("Infra", "hosts, db", ""), "{text:?}");
            assert_eq!(not_yaml, None, "{text:?}");
        }
    }

    #[test]
    fn an_unclosed_block_is_refused_at_line_1() {
        assert_eq!(
            read_meta("---\nname: x\n- 2026-07-10: a\n")
                .err()
                .map(|i| i.line),
            Some(1)
        );
        assert!(read_meta("# no frontmatter\n").unwrap().is_none());
    }
}
