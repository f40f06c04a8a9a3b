//! Lossless editing of snapshot files: only the sections and metadata rows that change
//! are rewritten; every other byte stays as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::snapshot::{OtherSection, SectionKind, continues_from_ids, is_placeholder};
use super::{Mark, Snapshot, SnapshotItem};
use crate::durable::read_settled;
use crate::error::Result;
use crate::markdown::{
    Edit, FenceScan, LineEnding, Section, Table, apply_edits, encode_lines, entity_first,
    fenced_lines, find_table, parse_list, render_item, render_row, split_sections, value_lines,
    value_of,
};

const METADATA_COLUMNS: [&str; 2] = ["Field", "Value"];

/// One entry of a list section as found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The original lines, joined with `\n`.
    pub raw: String,
    /// The value: text without bullet and marking, unescaped.
    pub text: String,
    pub mark: Option<Mark>,
    pub placeholder: bool,
    /// Whether a blank line separated it from the entry before.
    pub blank_before: bool,
}

/// An entry of a rewritten list section.
#[derive(Debug, Clone)]
pub(crate) enum OutEntry {
    /// Written back exactly as it was (after a blank line when it had one).
    Keep(String, bool),
    /// Written back as it was with `mark` set on its first line.
    Marked(String, bool, Mark),
    /// A new entry, rendered as `- [mark] value` with the value escaped.
    Render(String, Option<Mark>),
}

impl OutEntry {
    /// The entry as it stood in the file.
    pub fn kept(entry: &Entry) -> Self {
        OutEntry::Keep(entry.raw.clone(), entry.blank_before)
    }
}

/// `raw` (an entry's original lines) with its marking set to `mark`: the bullet, any
/// `[ ]` task box or old marking of the first line is replaced, the rest kept as written
/// (nested lines keep their indentation).
fn mark_raw(raw: &str, mark: Mark) -> String {
    let (first, rest) = raw
        .split_once('\n')
        .map_or((raw, None), |(f, r)| (f, Some(r)));
    let body = first.trim_start();
    let indent = &first[..first.len() - body.len()];
    let bullet_len = ["- ", "* ", "+ "]
        .iter()
        .find(|b| body.starts_with(**b))
        .map_or_else(
            || {
                let digits = body.bytes().take_while(u8::is_ascii_digit).count();
                let after = &body[digits..];
                if digits > 0 && (after.starts_with(". ") || after.starts_with(") ")) {
                    digits + 2
                } else {
                    0
                }
            },
            |b| b.len(),
        );
    let bullet = if bullet_len == 0 {
        "- "
    } else {
        &body[..bullet_len]
    };
    let text = body[bullet_len..].trim_start();
    let text = text.strip_prefix("[ ]").map_or(text, str::trim_start);
    // The old marking: at the start of the first line, else at the end of the last.
    let (text, rest) = match Mark::parse_prefix(text) {
        Some((_, after)) => (after, rest.map(str::to_string)),
        None => match rest {
            None => (Mark::without_suffix(text), None),
            Some(rest) => {
                let rest = match rest.rsplit_once('\n') {
                    Some((head, last)) => format!("{head}\n{}", Mark::without_suffix(last)),
                    None => Mark::without_suffix(rest).to_string(),
                };
                (text, Some(rest))
            }
        },
    };
    let mut out = if opens_fence(text) {
        // A fence on the item's line (`- ```sh`) stays a fence only at the start of the
        // item's text: the marking gets the first line and the fence moves to the next.
        let pad = " ".repeat(indent.len() + bullet.len());
        format!("{indent}{bullet}{}\n{pad}{text}", mark.as_str())
    } else {
        format!("{indent}{bullet}{} {text}", mark.as_str())
    };
    if let Some(rest) = rest {
        out.push('\n');
        out.push_str(&rest);
    }
    out
}

/// Whether `text` starts with a code fence (three or more `` ` `` or `~`).
fn opens_fence(text: &str) -> bool {
    let mut scan = FenceScan::default();
    scan.step(text) && scan.is_open()
}

/// A new list entry: `- `, the marking, the value escaped (see
/// [`render_item_line`](crate::markdown::render_item_line)); a value that would read as
/// a marking or as a placeholder (`None`) is escaped too.
fn render_value(kind: SectionKind, text: &str, mark: Option<Mark>) -> String {
    let text = Mark::escape_suffix(text.trim());
    let item = render_item(&text, Mark::looks_marked(&text));
    let written = &item[2..];
    let item = if mark.is_none() && is_placeholder(kind, written) {
        format!("- {}", entity_first(written))
    } else {
        item
    };
    match mark {
        Some(m) => format!("- {} {}", m.as_str(), &item[2..]),
        None => item,
    }
}

/// A value as Current Context content, with `\n` line endings: escaped so that it reads
/// back as itself and starts no section; a value that would read as a placeholder
/// (`None`, the template's prompt) has its first character written `&#NNN;`.
pub(crate) fn render_context(text: &str) -> String {
    let lines = value_lines(text);
    let written = encode_lines(&lines, "", false, false).join("\n");
    if !is_placeholder(SectionKind::CurrentContext, &written) {
        return written;
    }
    // A value that only looks like the placeholder (an empty fenced block: "```\n```")
    // is written with its first line unable to open a fence (as after a bullet), so the
    // rest is balanced without it: escaping the opening fence alone would leave its
    // closer to open a fence that hides every later section.
    let escaped = encode_lines(&lines, "", true, false).join("\n");
    if is_placeholder(SectionKind::CurrentContext, &escaped) {
        entity_first(&escaped)
    } else {
        escaped
    }
}

/// A parsed snapshot file.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotDoc {
    pub path: PathBuf,
    pub text: String,
    le: LineEnding,
    sections: Vec<Section>,
    metadata: Option<Table>,
}

impl SnapshotDoc {
    /// The snapshot at `path` (`None`: no file), read again while another program is
    /// caught saving it in place ([`read_settled`]).
    pub fn load(path: &Path) -> Result<Option<Self>> {
        read_settled(path, |text| {
            text.map(|text| Self::parse(path, text)).transpose()
        })
    }

    pub fn parse(path: &Path, text: String) -> Result<Self> {
        let metadata = find_table(&text, &METADATA_COLUMNS).map_err(|i| i.at(path))?;
        let sections = split_sections(&text);
        Ok(SnapshotDoc {
            path: path.to_path_buf(),
            le: LineEnding::detect(&text),
            sections,
            metadata,
            text,
        })
    }

    fn section(&self, kind: SectionKind) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| SectionKind::from_heading(&s.heading) == Some(kind))
    }

    pub fn entries(&self, kind: SectionKind) -> Vec<Entry> {
        let Some(section) = self.section(kind) else {
            return Vec::new();
        };
        parse_list(&self.text[section.content.clone()])
            .into_iter()
            .map(|item| {
                let (mark, written) = Mark::split(&item.text);
                let placeholder = mark.is_none() && is_placeholder(kind, written);
                // `written` is a part of `text`: its lines' fence flags start at the line
                // it starts on (a marking alone on the first line is skipped).
                let start = (written.as_ptr() as usize)
                    .saturating_sub(item.text.as_ptr() as usize)
                    .min(item.text.len());
                let skipped = item.text[..start].matches('\n').count();
                let fenced = item.fenced.get(skipped..).unwrap_or_default();
                Entry {
                    text: Mark::unescape_suffix(&value_of(written, fenced)),
                    raw: item.raw,
                    mark,
                    placeholder,
                    blank_before: item.blank_before,
                }
            })
            .collect()
    }

    /// The Current Context text ("" when it only holds a placeholder).
    pub fn context(&self) -> String {
        let Some(section) = self.section(SectionKind::CurrentContext) else {
            return String::new();
        };
        let text = self.text[section.content.clone()].replace("\r\n", "\n");
        if is_placeholder(SectionKind::CurrentContext, &text) {
            return String::new();
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let fenced = fenced_lines(&lines, false);
        value_of(&text, &fenced)
    }

    /// Current Context content with `parts` (values) added as paragraphs after what is
    /// written there (kept byte-identical; a fence it leaves open is closed first).
    pub fn append_context(&self, parts: &[String]) -> String {
        let le = self.le.as_str();
        let added: Vec<String> = parts.iter().map(|p| self.render_text(p)).collect();
        let added = added.join(&format!("{le}{le}"));
        let Some(section) = self.section(SectionKind::CurrentContext) else {
            return added;
        };
        let old = &self.text[section.content.clone()];
        if is_placeholder(SectionKind::CurrentContext, old) {
            return added;
        }
        let mut scan = FenceScan::default();
        for line in old.lines() {
            scan.step(line.strip_suffix('\r').unwrap_or(line));
        }
        match scan.closer() {
            Some(closer) => format!("{old}{le}{closer}{le}{le}{added}"),
            None => format!("{old}{le}{le}{added}"),
        }
    }

    pub fn metadata_value(&self, field: &str) -> Option<String> {
        let table = self.metadata.as_ref()?;
        table
            .rows
            .iter()
            .find(|r| r.cell(&self.text, 0).eq_ignore_ascii_case(field))
            .map(|r| r.cell(&self.text, 1))
    }

    /// The `Continues From` ids of a snapshot's text, without reading the rest of it
    /// (organize and archive scan every snapshot for this fallback signal).
    pub fn continues_from_in(text: &str) -> Vec<super::SessionId> {
        split_sections(text)
            .iter()
            .filter(|s| SectionKind::from_heading(&s.heading) == Some(SectionKind::ContinuesFrom))
            .take(1)
            .flat_map(|s| parse_list(&text[s.content.clone()]))
            .filter(|item| !is_placeholder(SectionKind::ContinuesFrom, &item.text))
            .flat_map(|item| continues_from_ids(Mark::split(&item.text).1))
            .collect()
    }

    pub fn continues_from(&self) -> Vec<super::SessionId> {
        Self::continues_from_in(&self.text)
    }

    /// The typed view.
    pub fn to_snapshot(&self) -> Snapshot {
        let items = |kind| {
            self.entries(kind)
                .into_iter()
                .filter(|e| !e.placeholder)
                .map(|e| SnapshotItem {
                    text: e.text,
                    mark: e.mark,
                })
                .collect()
        };
        let meta = |field: &str| self.metadata_value(field).unwrap_or_default();
        Snapshot {
            session_id: meta("Session ID"),
            agent_name: meta("Agent Name"),
            topic: meta("Topic"),
            status: meta("Status"),
            started_at: meta("Started At"),
            updated_at: meta("Updated At"),
            current_context: self.context(),
            decisions: items(SectionKind::Decisions),
            files: items(SectionKind::Files),
            open_questions: items(SectionKind::OpenQuestions),
            next_actions: items(SectionKind::NextActions),
            continues_from: self.continues_from(),
            superseded_resolved: items(SectionKind::SupersededResolved),
            other_sections: self
                .sections
                .iter()
                .filter(|s| SectionKind::from_heading(&s.heading).is_none())
                .map(|s| OtherSection {
                    heading: s.heading.clone(),
                    body: self.text[s.content.clone()].to_string(),
                })
                .collect(),
        }
    }

    /// Renders list entries of a `kind` section as section content, `None` when there
    /// are none.
    pub fn render_entries(&self, kind: SectionKind, entries: &[OutEntry]) -> String {
        let le = self.le.as_str();
        let mut out = String::new();
        for (i, entry) in entries.iter().enumerate() {
            let (text, blank_before) = match entry {
                OutEntry::Keep(raw, blank) => (raw.clone(), *blank),
                OutEntry::Marked(raw, blank, mark) => (mark_raw(raw, *mark), *blank),
                OutEntry::Render(text, mark) => (render_value(kind, text, *mark), false),
            };
            if i > 0 {
                out.push_str(le);
                if blank_before {
                    out.push_str(le);
                }
            }
            out.push_str(&text.replace('\n', le));
        }
        if out.is_empty() {
            "None".to_string()
        } else {
            out
        }
    }

    /// A value as Current Context content (escaped so that it reads back as itself and
    /// starts no section), with the document's line ending.
    pub fn render_text(&self, text: &str) -> String {
        render_context(text).replace('\n', self.le.as_str())
    }

    /// The text with the given metadata fields set and sections' content replaced;
    /// everything else byte-identical. Missing sections are inserted in template order.
    pub fn rewrite(
        &self,
        metadata: &[(&str, String)],
        sections: &[(SectionKind, String)],
    ) -> String {
        let le = self.le.as_str();
        let mut edits = Vec::new();
        let mut changes: Vec<(SectionKind, String)> = sections.to_vec();
        match &self.metadata {
            Some(table) => {
                let mut appended = Vec::new();
                for (field, value) in metadata {
                    match table
                        .rows
                        .iter()
                        .position(|r| r.cell(&self.text, 0).eq_ignore_ascii_case(field))
                    {
                        Some(i) if table.rows[i].cell(&self.text, 1) == *value => {}
                        Some(i) => {
                            edits.push(table.replace(i, &render_row(&[field, value.as_str()])))
                        }
                        None => appended.push(render_row(&[field, value.as_str()])),
                    }
                }
                if !appended.is_empty() {
                    edits.push(table.append(&appended.join(le)));
                }
            }
            None if !metadata.is_empty() => {
                let mut table = vec![render_row(&METADATA_COLUMNS), "|---|---|".to_string()];
                table.extend(metadata.iter().map(|(f, v)| render_row(&[f, v.as_str()])));
                let table = table.join(le);
                let content = match self.section(SectionKind::Metadata) {
                    Some(s) if !s.content.is_empty() => {
                        format!("{}{le}{le}{table}", &self.text[s.content.clone()])
                    }
                    _ => table,
                };
                changes.insert(0, (SectionKind::Metadata, content));
            }
            None => {}
        }
        let mut inserts: BTreeMap<usize, Vec<(SectionKind, String)>> = BTreeMap::new();
        for (kind, content) in changes {
            match self.section(kind) {
                Some(section) if !section.content.is_empty() => {
                    edits.push(Edit {
                        range: section.content.clone(),
                        replacement: content,
                    });
                }
                Some(section) => {
                    let heading_terminated = self.text[..section.body.start].ends_with('\n');
                    let before = if heading_terminated {
                        le.to_string()
                    } else {
                        format!("{le}{le}")
                    };
                    let after = if section.body.end < self.text.len() {
                        format!("{le}{le}")
                    } else {
                        le.to_string()
                    };
                    edits.push(Edit {
                        range: section.body.clone(),
                        replacement: format!("{before}{content}{after}"),
                    });
                }
                None => {
                    let at = SectionKind::ALL
                        .iter()
                        .skip_while(|k| **k != kind)
                        .skip(1)
                        .find_map(|k| self.section(*k))
                        .map_or(self.text.len(), |s| s.start);
                    inserts.entry(at).or_default().push((kind, content));
                }
            }
        }
        for (at, group) in inserts {
            let blocks: Vec<String> = group
                .iter()
                .map(|(kind, content)| format!("## {}{le}{le}{content}{le}", kind.heading()))
                .collect();
            let replacement = if at < self.text.len() {
                format!("{}{le}", blocks.join(le))
            } else {
                let lead = if self.text.is_empty() {
                    ""
                } else if !self.text.ends_with('\n') {
                    "\n\n"
                } else if !self.text.ends_with(&format!("{le}{le}")) {
                    "\n"
                } else {
                    ""
                };
                format!("{}{}", lead.replace('\n', le), blocks.join(le))
            };
            edits.push(Edit {
                range: at..at,
                replacement,
            });
        }
        apply_edits(&self.text, edits)
    }
}
