//! `memory-archive.md`: append-only cold storage. Every entry a merge or a compaction
//! pass takes out of a live file is appended here first, verbatim, in a section that
//! names its id, the pass, the file it came from and when:
//!
//! ```text
//! ## c-20260710-001 · merge · memory-infra.md · 2026-07-10T09:00:00Z
//!
//! - 2026-06-01 [db]: Postgres 15
//! ```
//!
//! Sections are only ever appended; `restore ID` reads a section back without changing
//! the archive. The archive is never linked from `MEMORY.md`, never loaded by a session
//! and never compacted.

use serde::Serialize;

use crate::markdown::lines;

/// The text a new archive starts with.
pub const ARCHIVE_HEADER: &str = "# Memory archive\n\n<!-- structured-memory cold storage: append-only, never loaded in a session, never compacted. `memcore topics restore ID` brings a section's entries back. -->\n";

/// The separator between a section heading's fields.
const FIELD_SEPARATOR: &str = " · ";

/// Why entries were archived.
///
/// ```
/// use memory_core::structured_memory::ArchivePass;
/// assert_eq!(ArchivePass::parse("collapse-superseded"), Some(ArchivePass::CollapseSuperseded));
/// assert_eq!(ArchivePass::Merge.as_str(), "merge");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ArchivePass {
    /// A write replaced an entry about the same subject (merge on write).
    Merge,
    /// Compaction pass 1: entries about things that no longer exist.
    EvictDead,
    /// Compaction pass 2: older generations of one subject.
    CollapseSuperseded,
    /// Compaction pass 3: episodic entries condensed into one lesson.
    SummarizeEpisodic,
    /// Compaction pass 4: entries moved to a new topic file (kept here as the record of
    /// where they were).
    SplitOvergrown,
    /// Content lines moved out of `MEMORY.md` into a topic file.
    IndexContent,
    /// A near-duplicate topic merged into another (its whole file, as it was).
    MergeTopics,
    /// The index line of a topic a compaction emptied (every entry evicted, nothing else
    /// of its own left), removed with its file; `restore` puts the line back.
    RemoveEmpty,
}

impl ArchivePass {
    /// Every pass, in the order the seed runs them (merge first).
    pub const ALL: [ArchivePass; 8] = [
        ArchivePass::Merge,
        ArchivePass::EvictDead,
        ArchivePass::CollapseSuperseded,
        ArchivePass::SummarizeEpisodic,
        ArchivePass::SplitOvergrown,
        ArchivePass::IndexContent,
        ArchivePass::MergeTopics,
        ArchivePass::RemoveEmpty,
    ];

    /// The stable kebab-case name written in the archive.
    pub fn as_str(self) -> &'static str {
        match self {
            ArchivePass::Merge => "merge",
            ArchivePass::EvictDead => "evict-dead",
            ArchivePass::CollapseSuperseded => "collapse-superseded",
            ArchivePass::SummarizeEpisodic => "summarize-episodic",
            ArchivePass::SplitOvergrown => "split-overgrown",
            ArchivePass::IndexContent => "index-content",
            ArchivePass::MergeTopics => "merge-topics",
            ArchivePass::RemoveEmpty => "remove-empty",
        }
    }

    /// The pass named `name`.
    pub fn parse(name: &str) -> Option<ArchivePass> {
        ArchivePass::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// One archived section, read back.
///
/// ```
/// use memory_core::structured_memory::parse_archive;
/// let text = "# Memory archive\n\n## c-20260710-001 · merge · memory-infra.md · 2026-07-10T09:00:00Z\n\n- 2026-06-01 [db]: Postgres 15\n";
/// let sections = parse_archive(text);
/// assert_eq!(sections[0].id, "c-20260710-001");
/// assert_eq!(sections[0].from, "memory-infra.md");
/// assert_eq!(sections[0].lines, ["- 2026-06-01 [db]: Postgres 15"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ArchiveSection {
    /// The id `restore` takes (several sections can share one: a compaction's passes).
    pub id: String,
    /// Why its entries were archived.
    pub pass: ArchivePass,
    /// The file they came from.
    pub from: String,
    /// When (UTC, `YYYY-MM-DDTHH:MM:SSZ`).
    pub at: String,
    /// The archived lines, verbatim (without terminators; blank lines at the ends left
    /// out).
    pub lines: Vec<String>,
    /// The 1-based line of the section's heading.
    pub line: usize,
}

/// A section's text, ready to append: a blank line, the heading, a blank line, the
/// lines (each with `\n`).
pub(super) fn render_section(
    id: &str,
    pass: ArchivePass,
    from: &str,
    at: &str,
    entry_lines: &[&str],
) -> String {
    let mut out = format!(
        "\n## {id}{FIELD_SEPARATOR}{}{FIELD_SEPARATOR}{from}{FIELD_SEPARATOR}{at}\n\n",
        pass.as_str()
    );
    for line in entry_lines {
        let line = line.trim_end_matches(['\r', '\n']);
        // A `## ` line of an archived file would end the section: written with one space
        // before it (still the same heading in Markdown), taken off again when read.
        if line.starts_with("## ") {
            out.push(' ');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// What to append to an archive whose text is `old`: `add` (sections rendered with `\n`)
/// in the archive's own line ending, after a line break when the archive does not end
/// with one: a CRLF archive kept by hand stays CRLF throughout.
pub(super) fn addition_to(old: &str, add: &str) -> String {
    let ending = crate::markdown::LineEnding::detect(old);
    let mut out = String::with_capacity(add.len() + add.len() / 16 + 2);
    if !old.is_empty() && !old.ends_with('\n') {
        out.push_str(ending.as_str());
    }
    match ending {
        crate::markdown::LineEnding::Lf => out.push_str(add),
        crate::markdown::LineEnding::CrLf => out.push_str(&add.replace('\n', "\r\n")),
    }
    out
}

/// Every section of the archive. Text before the first section heading (the header) is
/// in no section, and so is text after a `## ` heading of someone else's (kept in the file,
/// never restored from): the archive is read whatever was added to it by hand.
pub fn parse_archive(text: &str) -> Vec<ArchiveSection> {
    let mut sections: Vec<ArchiveSection> = Vec::new();
    let mut open = false;
    for line in lines(text) {
        if let Some(heading) = line.text.strip_prefix("## ") {
            open = false;
            if let Some(section) = parse_heading(heading) {
                sections.push(ArchiveSection {
                    line: line.number,
                    ..section
                });
                open = true;
            }
        } else if open && let Some(section) = sections.last_mut() {
            let text = line.text;
            let text = match text.strip_prefix(' ') {
                Some(heading) if heading.starts_with("## ") => heading,
                _ => text,
            };
            section.lines.push(text.to_string());
        }
    }
    for section in &mut sections {
        while section.lines.first().is_some_and(|l| l.trim().is_empty()) {
            section.lines.remove(0);
        }
        while section.lines.last().is_some_and(|l| l.trim().is_empty()) {
            section.lines.pop();
        }
    }
    sections
}

/// A place where the archive does not read as memory-core wrote it: the 1-based line
/// and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ArchiveProblem {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

/// The sections of `text` that do not read: a `## ` heading shaped like a section's
/// (it starts with a `c-` id or holds the ` · ` separator) that does not parse as
/// `ID · PASS · FILE · TIME` with a known pass (`restore` cannot find it, and its id may
/// be given again), and a section of removed entries whose lines no longer read as a
/// topic file's (a fence or comment opened in them and never closed: `restore` would
/// fail on it). A hand-written heading of any other shape is someone's note, not a
/// problem.
pub(super) fn archive_problems(text: &str) -> Vec<ArchiveProblem> {
    let mut out = Vec::new();
    for line in lines(text) {
        let Some(heading) = line.text.strip_prefix("## ") else {
            continue;
        };
        let ours = heading.trim_start().starts_with("c-") || heading.contains(FIELD_SEPARATOR);
        if ours && parse_heading(heading).is_none() {
            out.push(ArchiveProblem {
                line: line.number,
                message: format!(
                    "the section heading {heading:?} does not read as `ID · PASS · FILE · TIME` (passes: {}): restore cannot find its entries",
                    ArchivePass::ALL.map(ArchivePass::as_str).join(", ")
                ),
            });
        }
    }
    for section in parse_archive(text) {
        let moved = matches!(
            section.pass,
            ArchivePass::IndexContent
                | ArchivePass::MergeTopics
                | ArchivePass::SplitOvergrown
                | ArchivePass::RemoveEmpty
        );
        if moved {
            continue;
        }
        let read = super::topic_file::Topic::parse(section.from.clone(), section.lines.join("\n"));
        if let Err(e) = read {
            let why = match e {
                crate::error::Error::Malformed { line, message, .. } => {
                    format!("its line {line}: {message}")
                }
                other => other.to_string(),
            };
            out.push(ArchiveProblem {
                line: section.line,
                message: format!(
                    "the entries of section {} do not read as a topic file's ({why}): restore {} would fail",
                    section.id, section.id
                ),
            });
        }
    }
    for (id, starts) in reused_ids(&parse_archive(text)) {
        for &line in &starts[1..] {
            out.push(ArchiveProblem {
                line,
                message: format!(
                    "the id {id} is also the id of the compaction at line {}: restore {id} refuses to pick one; give one of them another id by hand (c-YYYYMMDD-NNN, unused)",
                    starts[0]
                ),
            });
        }
    }
    out.sort_by_key(|p| p.line);
    out
}

/// `ID · PASS · FILE · TIME` (the file may itself hold the separator: it is what is
/// left between the pass and the time).
fn parse_heading(heading: &str) -> Option<ArchiveSection> {
    let (id, rest) = heading.split_once(FIELD_SEPARATOR)?;
    let (pass, rest) = rest.split_once(FIELD_SEPARATOR)?;
    let (from, at) = rest.rsplit_once(FIELD_SEPARATOR)?;
    let pass = ArchivePass::parse(pass.trim())?;
    let id = id.trim();
    if id.is_empty() || id.contains(char::is_whitespace) || from.trim().is_empty() {
        return None;
    }
    Some(ArchiveSection {
        id: id.to_string(),
        pass,
        from: from.trim().to_string(),
        at: at.trim().to_string(),
        lines: Vec::new(),
        line: 0,
    })
}

/// The next archive id for `day` (`YYYYMMDD`) in an archive whose text is `text`:
/// `c-<day>-<n>`, one more than the highest `n` of that day any `## ` heading of it
/// starts with — a section's, or one that does not parse (a hand-edited heading still
/// holds its id) — three digits, more when needed. Never an id the archive holds: `n` is
/// counted in decimal digits, however many there are (no overflow to wrap around).
pub(super) fn next_id(text: Option<&str>, day: &str) -> String {
    let prefix = format!("c-{day}-");
    let mut highest = String::from("0");
    for line in lines(text.unwrap_or("")) {
        let Some(heading) = line.text.strip_prefix("## ") else {
            continue;
        };
        let id = heading.trim_start().split([' ', '\t']).next().unwrap_or("");
        let Some(n) = id.strip_prefix(&prefix) else {
            continue;
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let n = n.trim_start_matches('0');
        let n = if n.is_empty() { "0" } else { n };
        if (n.len(), n) > (highest.len(), highest.as_str()) {
            highest = n.to_string();
        }
    }
    format!("{prefix}{:0>3}", increment(&highest))
}

/// `n` (decimal digits, no leading zeros) plus one.
fn increment(n: &str) -> String {
    let mut digits: Vec<u8> = n.bytes().collect();
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return String::from_utf8_lossy(&digits).into_owned();
        }
    }
    format!("1{}", String::from_utf8_lossy(&digits))
}

/// The ids the archive gives to more than one compaction: the sections of one compaction
/// (or merge) are written together — one after another, with one time — so a section of
/// an id already seen that does not directly follow a section of that id with the same
/// time is another compaction's (an archive edited or joined by hand). For each such id,
/// the heading line of the first section of every compaction that uses it.
pub(super) fn reused_ids(sections: &[ArchiveSection]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut previous: Option<&ArchiveSection> = None;
    for s in sections {
        let same_group = previous.is_some_and(|p| p.id == s.id && p.at == s.at);
        if !same_group {
            match groups.iter_mut().find(|(id, _)| *id == s.id) {
                Some((_, starts)) => starts.push(s.line),
                None => groups.push((s.id.clone(), vec![s.line])),
            }
        }
        previous = Some(s);
    }
    groups.retain(|(_, starts)| starts.len() > 1);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_round_trip() {
        let mut text = ARCHIVE_HEADER.to_string();
        text.push_str(&render_section(
            "c-20260710-001",
            ArchivePass::Merge,
            "notes · odd.md",
            "2026-07-10T09:00:00Z",
            &["- 2026-06-01 [db]: Postgres 15", "  since March\r"],
        ));
        text.push_str(&render_section(
            "c-20260710-002",
            ArchivePass::CollapseSuperseded,
            "memory-infra.md",
            "2026-07-10T09:05:00Z",
            &["- 2026-06-02: a"],
        ));
        let sections = parse_archive(&text);
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].from, "notes · odd.md");
        assert_eq!(
            sections[0].lines,
            ["- 2026-06-01 [db]: Postgres 15", "  since March"]
        );
        assert_eq!(sections[1].pass, ArchivePass::CollapseSuperseded);
        assert_eq!(next_id(Some(&text), "20260710"), "c-20260710-003");
        assert_eq!(next_id(Some(&text), "20260711"), "c-20260711-001");
        assert_eq!(next_id(None, "20260711"), "c-20260711-001");
    }

    #[test]
    fn a_hand_written_heading_is_in_no_section() {
        let text = "# Memory archive\n\n## c-20260710-001 · merge · a.md · 2026-07-10T09:00:00Z\n\n- 2026-06-01: a\n\n## My notes\n\n- not archived by us\n";
        let sections = parse_archive(text);
        assert_eq!(sections.len(), 1);
        assert_eq!(sections[0].lines, ["- 2026-06-01: a"]);
    }
}
