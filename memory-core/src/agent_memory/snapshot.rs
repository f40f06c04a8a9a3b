//! Session snapshot files (`sessions/<id>.md`): the typed view and the template.

use serde::Serialize;

use super::SessionId;

/// An explicit marking that keeps an outdated item in the snapshot instead of dropping it.
///
/// ```
/// use memory_core::Mark;
/// assert_eq!(Mark::Superseded.as_str(), "[superseded]");
/// assert_eq!(Mark::parse_prefix("[done] ship it"), Some((Mark::Done, "ship it")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// A decision that was reversed or replaced.
    Superseded,
    /// A question that was answered.
    Resolved,
    /// An action that was completed.
    Done,
}

impl Mark {
    /// The marking as written: `[superseded]`, `[resolved]`, `[done]`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Superseded => "[superseded]",
            Mark::Resolved => "[resolved]",
            Mark::Done => "[done]",
        }
    }

    /// Splits a leading marking (case-insensitive; a `[x]` task box counts as done) off
    /// an item text.
    pub fn parse_prefix(text: &str) -> Option<(Mark, &str)> {
        let starts = |tag: &str| {
            text.len() >= tag.len()
                && text.is_char_boundary(tag.len())
                && text[..tag.len()].eq_ignore_ascii_case(tag)
        };
        for mark in [Mark::Superseded, Mark::Resolved, Mark::Done] {
            if starts(mark.as_str()) {
                return Some((mark, text[mark.as_str().len()..].trim_start()));
            }
        }
        if starts("[x]") {
            return Some((Mark::Done, text[3..].trim_start()));
        }
        None
    }

    /// A marking at the end of `text` (not one escaped as `\[done]`) and the text before it.
    fn parse_suffix(text: &str) -> Option<(Mark, &str)> {
        let (mark, before) = Mark::suffix_tag(text)?;
        (!before.ends_with('\\')).then(|| (mark, before.trim_end()))
    }

    /// `text` without a marking at its end.
    pub(crate) fn without_suffix(text: &str) -> &str {
        Mark::parse_suffix(text).map_or(text, |(_, before)| before)
    }

    /// The marking `text` ends with, escaped or not, and the text before the tag.
    fn suffix_tag(text: &str) -> Option<(Mark, &str)> {
        [Mark::Superseded, Mark::Resolved, Mark::Done]
            .into_iter()
            .find_map(|mark| {
                let tag = mark.as_str();
                let at = text.len().checked_sub(tag.len())?;
                (text.is_char_boundary(at) && text[at..].eq_ignore_ascii_case(tag))
                    .then(|| (mark, &text[..at]))
            })
    }

    /// A value ending in a marking's tag (`x [done]`), escaped (`x \[done]`) so that it
    /// is not read as a marked item; a tag already escaped gets one more backslash.
    pub(crate) fn escape_suffix(text: &str) -> String {
        match Mark::suffix_tag(text) {
            Some((_, before)) => format!("{before}\\{}", &text[before.len()..]),
            None => text.to_string(),
        }
    }

    /// The inverse of [`Mark::escape_suffix`].
    pub(crate) fn unescape_suffix(text: &str) -> String {
        match Mark::suffix_tag(text) {
            Some((_, before)) if before.ends_with('\\') => {
                format!("{}{}", &before[..before.len() - 1], &text[before.len()..])
            }
            _ => text.to_string(),
        }
    }

    /// Whether a value would read as starting with a marking or an open task box.
    pub(crate) fn looks_marked(text: &str) -> bool {
        Mark::parse_prefix(text).is_some() || text.starts_with("[ ]")
    }

    /// Splits a marking at the start or end of `text`.
    /// An open task box `[ ]` is no marking and is not part of the text either.
    pub(crate) fn split(text: &str) -> (Option<Mark>, &str) {
        match Mark::parse_prefix(text).or_else(|| Mark::parse_suffix(text)) {
            Some((mark, rest)) => (Some(mark), rest),
            None => (None, text.strip_prefix("[ ]").map_or(text, str::trim_start)),
        }
    }
}

/// One entry of a list section of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SnapshotItem {
    /// The text without bullet and marking.
    pub text: String,
    /// The marking, if the item is outdated.
    pub mark: Option<Mark>,
}

impl SnapshotItem {
    /// An unmarked item.
    ///
    /// ```
    /// assert_eq!(memory_core::SnapshotItem::new("x").text, "x");
    /// ```
    pub fn new(text: impl Into<String>) -> Self {
        SnapshotItem {
            text: text.into(),
            mark: None,
        }
    }
}

/// A section the template does not define, kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OtherSection {
    /// The heading text after `## `.
    pub heading: String,
    /// The body, trimmed of blank lines.
    pub body: String,
}

/// The typed content of a session snapshot.
///
/// ```
/// use memory_core::{AgentMemory, ManualRegistration};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = AgentMemory::open(dir.path()).unwrap();
/// let id = memory
///     .register_manual(ManualRegistration::new("cursor-main-agent", "Login", "Fixed the login bug.")
///         .decision("Use argon2"))
///     .unwrap();
/// let snapshot = memory.snapshot(id.as_str()).unwrap().unwrap();
/// assert_eq!(snapshot.decisions[0].text, "Use argon2");
/// assert_eq!(snapshot.status, "active");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[non_exhaustive]
pub struct Snapshot {
    /// Metadata `Session ID`.
    pub session_id: String,
    /// Metadata `Agent Name`.
    pub agent_name: String,
    /// Metadata `Topic`.
    pub topic: String,
    /// Metadata `Status`.
    pub status: String,
    /// Metadata `Started At`.
    pub started_at: String,
    /// Metadata `Updated At`.
    pub updated_at: String,
    /// `## Current Context` (empty when it holds only the template's prompt or `None`).
    pub current_context: String,
    /// `## Decisions`.
    pub decisions: Vec<SnapshotItem>,
    /// `## Files / Artifacts`.
    pub files: Vec<SnapshotItem>,
    /// `## Open Questions`.
    pub open_questions: Vec<SnapshotItem>,
    /// `## Next Actions`.
    pub next_actions: Vec<SnapshotItem>,
    /// `## Continues From`: source session ids.
    pub continues_from: Vec<SessionId>,
    /// `## Superseded / Resolved`.
    pub superseded_resolved: Vec<SnapshotItem>,
    /// Sections the template does not define, kept verbatim.
    pub other_sections: Vec<OtherSection>,
}

/// The sections of the seed's snapshot template, in template order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SectionKind {
    Metadata,
    CurrentContext,
    Decisions,
    Files,
    OpenQuestions,
    NextActions,
    ContinuesFrom,
    SupersededResolved,
}

impl SectionKind {
    pub const ALL: [SectionKind; 8] = [
        SectionKind::Metadata,
        SectionKind::CurrentContext,
        SectionKind::Decisions,
        SectionKind::Files,
        SectionKind::OpenQuestions,
        SectionKind::NextActions,
        SectionKind::ContinuesFrom,
        SectionKind::SupersededResolved,
    ];

    pub fn heading(self) -> &'static str {
        match self {
            SectionKind::Metadata => "Metadata",
            SectionKind::CurrentContext => "Current Context",
            SectionKind::Decisions => "Decisions",
            SectionKind::Files => "Files / Artifacts",
            SectionKind::OpenQuestions => "Open Questions",
            SectionKind::NextActions => "Next Actions",
            SectionKind::ContinuesFrom => "Continues From",
            SectionKind::SupersededResolved => "Superseded / Resolved",
        }
    }

    /// The name used in error messages.
    pub fn label(self) -> &'static str {
        match self {
            SectionKind::Decisions => "decision",
            SectionKind::OpenQuestions => "open question",
            SectionKind::NextActions => "next action",
            SectionKind::Files => "file",
            SectionKind::ContinuesFrom => "continues-from",
            _ => "item",
        }
    }

    /// The template's instruction line for the section, which is a placeholder, not memory.
    pub fn prompt(self) -> &'static str {
        match self {
            SectionKind::Metadata => "",
            SectionKind::CurrentContext => {
                "Summarize what has happened in this agent session so far."
            }
            SectionKind::Decisions => "List decisions already made.",
            SectionKind::Files => {
                "List files, folders, hooks, skills, or wiki pages created or changed."
            }
            SectionKind::OpenQuestions => "List unresolved questions, or write `None`.",
            SectionKind::NextActions => "List likely next steps, or write `None`.",
            SectionKind::ContinuesFrom => {
                "List source Memory Session IDs this session continues from, or write `None`."
            }
            SectionKind::SupersededResolved => {
                "List replaced decisions, resolved questions, or completed/abandoned actions, or write `None`."
            }
        }
    }

    /// Matches a heading leniently: case, spacing around `/` and a trailing colon ignored.
    pub fn from_heading(heading: &str) -> Option<SectionKind> {
        let key = normalize_heading(heading);
        SectionKind::ALL
            .into_iter()
            .find(|k| normalize_heading(k.heading()) == key)
    }
}

fn normalize_heading(heading: &str) -> String {
    heading
        .trim()
        .trim_end_matches(':')
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether an entry is a placeholder (`None`, the template's prompt) rather than memory.
pub(crate) fn is_placeholder(kind: SectionKind, text: &str) -> bool {
    let t = text.trim().trim_matches('`').trim_end_matches('.').trim();
    t.is_empty()
        || t.eq_ignore_ascii_case("none")
        || t.eq_ignore_ascii_case("n/a")
        || super::row::is_empty_marker(t)
        || t == "無"
        || text.trim() == kind.prompt()
}

/// The session ids a `Continues From` entry names: `` `id` ``, `id — note`, `a, b`,
/// `[id](./id.md)`. Words shaped like the seed's ids (`YYYY-MM-DD-HHMM-…`) are taken
/// when there are any; otherwise the first word (hand-made ids such as `s-1`).
pub(crate) fn continues_from_ids(text: &str) -> Vec<SessionId> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || ",;|[]()`*:".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let seed_shaped: Vec<SessionId> = words
        .iter()
        .filter(|w| looks_like_seed_id(w))
        .filter_map(|w| SessionId::parse(w).ok())
        .collect();
    if !seed_shaped.is_empty() {
        return seed_shaped;
    }
    words
        .first()
        .and_then(|w| SessionId::parse(w).ok())
        .into_iter()
        .collect()
}

pub(crate) fn looks_like_seed_id(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() > 16
        && b[..16].iter().enumerate().all(|(i, c)| match i {
            4 | 7 | 10 | 15 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}
