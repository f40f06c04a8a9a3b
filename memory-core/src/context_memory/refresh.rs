//! `_pending_refresh.md`: the list of files that changed since the last knowledge sync,
//! kept in a project namespace's directory by the git hooks. The format is the one the
//! seed author's hook script (`cursor-memory-hook`) writes, byte for byte:
//!
//! ```text
//! ---
//! trigger: post-merge
//! timestamp: 2026-04-03T10:00:00Z
//! ---
//!
//! # Pending Knowledge Refresh
//!
//! Files changed since last knowledge sync:
//!
//! - src/auth.rs
//!
//! Review and update memory entries as needed.
//!
//! ## Additional changes (post-checkout at 2026-04-04T09:30:00Z)
//!
//! - docs/auth.md
//! ```
//!
//! The reader takes the whole file or refuses it ([`Error::Malformed`] naming the file
//! and line): frontmatter with exactly `trigger` (`post-merge`, `post-checkout`,
//! `manual`) and `timestamp` (UTC, `YYYY-MM-DDTHH:MM:SSZ`), the title, the two fixed
//! sentences, `- path` lines (`*` and `+` markers too), `## Additional changes (<trigger>
//! at <timestamp>)` sections, and blank lines; CRLF line ends and a BOM are accepted. A
//! file of only `## Additional changes` sections (what the seed's script appends to a
//! file an agent emptied) and a file of only blank lines are read too. The strict reader
//! ([`PendingRefresh::parse`], used before a rewrite) refuses any other text —
//! hand-written notes included — so that a rewrite never drops a line. The lenient
//! reader ([`PendingRefresh::parse_lenient`], used to list and to append) reads every
//! `- path` line of every section and reports each line it does not understand as a
//! warning naming the file and line: a note added by hand never stops the hooks from
//! recording (the seed's own script appends to such a file too) and never hides a path.
//!
//! A path with a line break, a control character, a leading `"` or leading or trailing
//! spaces is written in git's C-quoted form (`- "a\nb.md"`), and a quoted path is read
//! back unquoted — which also reads the octal-escaped names (`"caf\303\251.md"`) that the
//! seed's script copies from git's default `core.quotePath` output.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::agent_memory::Warning;
use crate::error::{Error, Result};
use crate::markdown::{LineEnding, lines};

/// The title line.
const TITLE: &str = "# Pending Knowledge Refresh";
/// The sentence before the first list.
const INTRO: &str = "Files changed since last knowledge sync:";
/// The sentence after the first list.
const OUTRO: &str = "Review and update memory entries as needed.";
/// The start of an appended section's heading.
const SECTION_PREFIX: &str = "## Additional changes (";

/// What ran the recorder: the hook git ran, or a person.
///
/// ```
/// use memory_core::context_memory::RefreshTrigger;
/// assert_eq!(RefreshTrigger::parse("post-merge"), Some(RefreshTrigger::PostMerge));
/// assert_eq!(RefreshTrigger::from_hook_name("pre-push"), RefreshTrigger::Manual);
/// assert_eq!(RefreshTrigger::PostCheckout.to_string(), "post-checkout");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefreshTrigger {
    /// git's `post-merge` hook (a merge or pull).
    PostMerge,
    /// git's `post-checkout` hook (a checkout or switch).
    PostCheckout,
    /// Anything else (the seed's script names every other hook name `manual`).
    Manual,
}

impl RefreshTrigger {
    /// The three triggers, in the order above.
    pub const ALL: [RefreshTrigger; 3] = [
        RefreshTrigger::PostMerge,
        RefreshTrigger::PostCheckout,
        RefreshTrigger::Manual,
    ];

    /// The trigger named exactly `name`.
    pub fn parse(name: &str) -> Option<RefreshTrigger> {
        RefreshTrigger::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The trigger of the hook named `hook` (`post-merge`, `post-checkout`), `Manual`
    /// for any other name, as the seed's script decides from `basename "$0"`.
    pub fn from_hook_name(hook: &str) -> RefreshTrigger {
        match hook {
            "post-merge" => RefreshTrigger::PostMerge,
            "post-checkout" => RefreshTrigger::PostCheckout,
            _ => RefreshTrigger::Manual,
        }
    }

    /// The name as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            RefreshTrigger::PostMerge => "post-merge",
            RefreshTrigger::PostCheckout => "post-checkout",
            RefreshTrigger::Manual => "manual",
        }
    }
}

impl std::fmt::Display for RefreshTrigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A timestamp in the file's form, `YYYY-MM-DDTHH:MM:SSZ` (UTC), validated.
///
/// ```
/// use memory_core::context_memory::refresh_timestamp;
/// assert!(refresh_timestamp("2026-04-03T10:00:00Z").is_some());
/// assert!(refresh_timestamp("2026-13-03T10:00:00Z").is_none());
/// assert!(refresh_timestamp("2026-04-03T10:00:00+00:00").is_none());
/// ```
pub fn refresh_timestamp(text: &str) -> Option<String> {
    let parsed = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%SZ").ok()?;
    let canonical = parsed.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    (canonical == text).then_some(canonical)
}

/// One changed file listed in `_pending_refresh.md`, with the trigger and time of the
/// run that listed it.
///
/// ```
/// use memory_core::context_memory::{PendingRefresh, RefreshTrigger};
/// let doc = PendingRefresh::new(RefreshTrigger::Manual, "2026-04-03T10:00:00Z", ["a.md"]).unwrap();
/// let change = &doc.changes()[0];
/// assert_eq!((change.path.as_str(), change.trigger), ("a.md", RefreshTrigger::Manual));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PendingChange {
    /// The file's path in the repository, as git names it.
    pub path: String,
    /// The trigger of the run that listed it.
    pub trigger: RefreshTrigger,
    /// When that run happened, `YYYY-MM-DDTHH:MM:SSZ`.
    pub timestamp: String,
}

/// One run's list: the head section (frontmatter and first list) or an
/// `## Additional changes` section.
///
/// ```
/// use memory_core::context_memory::{PendingRefresh, RefreshTrigger};
/// let doc = PendingRefresh::new(RefreshTrigger::PostMerge, "2026-04-03T10:00:00Z", ["a", "b"]).unwrap();
/// assert_eq!(doc.sections()[0].paths, ["a", "b"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PendingSection {
    /// What ran the recorder.
    pub trigger: RefreshTrigger,
    /// When, `YYYY-MM-DDTHH:MM:SSZ`.
    pub timestamp: String,
    /// The files it listed, in order.
    pub paths: Vec<String>,
}

/// A whole `_pending_refresh.md`, read or to be written.
///
/// ```
/// use memory_core::context_memory::{PendingRefresh, RefreshTrigger};
/// let mut doc = PendingRefresh::new(RefreshTrigger::PostMerge, "2026-04-03T10:00:00Z", ["src/a.rs"]).unwrap();
/// doc.push_section(RefreshTrigger::PostCheckout, "2026-04-04T09:30:00Z", ["docs/a.md"]).unwrap();
/// let text = doc.render();
/// let again = PendingRefresh::parse("_pending_refresh.md".as_ref(), &text).unwrap();
/// assert_eq!(again, doc);
/// assert_eq!(again.changes().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct PendingRefresh {
    sections: Vec<PendingSection>,
    /// The file's line ending (kept when it is rewritten).
    #[serde(skip)]
    crlf: bool,
    /// Whether the file started with a byte-order mark (kept when it is rewritten).
    #[serde(skip)]
    bom: bool,
}

/// The frontmatter: exactly the two keys the seed's script writes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Frontmatter {
    trigger: String,
    timestamp: String,
}

/// The frontmatter as the lenient reader takes it: the two keys, others ignored (and
/// reported by the caller).
#[derive(Deserialize)]
struct LooseFrontmatter {
    trigger: String,
    timestamp: String,
}

/// [`read_frontmatter`] without refusing other keys.
fn read_loose_frontmatter(yaml: &str) -> std::result::Result<Frontmatter, ()> {
    let loose: LooseFrontmatter = serde_yaml::from_str(yaml).map_err(|_| ())?;
    Ok(Frontmatter {
        trigger: loose.trigger,
        timestamp: loose.timestamp,
    })
}

/// Reads the frontmatter's YAML (the text between the `---` lines, which this file's
/// line-based reader has already located) into exactly its two keys; `Err` carries the
/// 1-based line within `yaml` (0 when unknown) and the message.
fn read_frontmatter(yaml: &str) -> std::result::Result<Frontmatter, (usize, String)> {
    serde_yaml::from_str::<Frontmatter>(yaml).map_err(|e| {
        let line = e.location().map_or(0, |l| l.line());
        let message = e.to_string();
        // yaml's message repeats the position; keep only what is wrong.
        let message = match message.find(" at line ") {
            Some(at) => message[..at].to_string(),
            None => message,
        };
        (line, message)
    })
}

impl PendingRefresh {
    /// A new file listing `paths` (at least one) for one run.
    pub fn new<S: Into<String>>(
        trigger: RefreshTrigger,
        timestamp: &str,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<PendingRefresh> {
        let mut doc = PendingRefresh::default();
        doc.push_section(trigger, timestamp, paths)?;
        Ok(doc)
    }

    /// Adds one run's list after the others (the head section when the file has none).
    /// The paths must be non-empty and not contain NUL; `timestamp` must be
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn push_section<S: Into<String>>(
        &mut self,
        trigger: RefreshTrigger,
        timestamp: &str,
        paths: impl IntoIterator<Item = S>,
    ) -> Result<()> {
        let timestamp = refresh_timestamp(timestamp).ok_or_else(|| {
            Error::invalid(
                "refresh timestamp",
                timestamp,
                "must be UTC in the form YYYY-MM-DDTHH:MM:SSZ",
            )
        })?;
        let paths: Vec<String> = paths.into_iter().map(Into::into).collect();
        if paths.is_empty() {
            return Err(Error::invalid(
                "changed files",
                "",
                "a refresh section lists at least one file",
            ));
        }
        if let Some(bad) = paths.iter().find(|p| p.is_empty() || p.contains('\0')) {
            return Err(Error::invalid(
                "changed file",
                bad,
                "must be a non-empty path without NUL",
            ));
        }
        self.sections.push(PendingSection {
            trigger,
            timestamp,
            paths,
        });
        Ok(())
    }

    /// The sections in file order; the first is the head (frontmatter and first list).
    pub fn sections(&self) -> &[PendingSection] {
        &self.sections
    }

    /// Every listed path with its section's trigger and timestamp, in file order (a path
    /// listed by two runs appears twice).
    pub fn changes(&self) -> Vec<PendingChange> {
        self.sections
            .iter()
            .flat_map(|s| {
                s.paths.iter().map(|p| PendingChange {
                    path: p.clone(),
                    trigger: s.trigger,
                    timestamp: s.timestamp.clone(),
                })
            })
            .collect()
    }

    /// Whether no path is listed.
    pub fn is_empty(&self) -> bool {
        self.sections.iter().all(|s| s.paths.is_empty())
    }

    /// Removes every listing of each of `done` (exact paths) from every section, and
    /// drops the sections left empty (the first remaining section then becomes the
    /// head). Returns the `done` paths that were listed, in the order given.
    ///
    /// ```
    /// use memory_core::context_memory::{PendingRefresh, RefreshTrigger};
    /// let mut doc = PendingRefresh::new(RefreshTrigger::PostMerge, "2026-04-03T10:00:00Z", ["a"]).unwrap();
    /// doc.push_section(RefreshTrigger::PostCheckout, "2026-04-04T10:00:00Z", ["a", "b"]).unwrap();
    /// assert_eq!(doc.clear(&["a", "zzz"]), ["a"]);
    /// assert_eq!(doc.sections().len(), 1);
    /// assert_eq!(doc.sections()[0].trigger, RefreshTrigger::PostCheckout);
    /// ```
    pub fn clear<S: AsRef<str>>(&mut self, done: &[S]) -> Vec<String> {
        let mut cleared = Vec::new();
        for path in done {
            let path = path.as_ref();
            let mut found = false;
            for section in &mut self.sections {
                let before = section.paths.len();
                section.paths.retain(|p| p != path);
                found |= section.paths.len() != before;
            }
            if found && !cleared.iter().any(|c| c == path) {
                cleared.push(path.to_string());
            }
        }
        self.sections.retain(|s| !s.paths.is_empty());
        cleared
    }

    /// The file's text: the head section as the seed's script writes a new file, then
    /// each further section as it appends one. Empty when no section is left. A file
    /// read with CRLF line ends or a BOM keeps them.
    pub fn render(&self) -> String {
        let Some((head, rest)) = self.sections.split_first() else {
            return String::new();
        };
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        out.push_str(&format!(
            "---\ntrigger: {}\ntimestamp: {}\n---\n\n{TITLE}\n\n{INTRO}\n\n",
            head.trigger, head.timestamp
        ));
        push_items(&mut out, &head.paths);
        out.push('\n');
        out.push_str(OUTRO);
        out.push('\n');
        for section in rest {
            out.push_str(&section_text(section));
        }
        if self.crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    }

    /// The text that appends `section` to a file holding `existing` (its current bytes,
    /// a file this reader accepts): a blank line, the heading, a blank line and the
    /// `- path` lines, in the file's line ending — what the seed's script appends. A
    /// file without a final line break gets one first.
    pub(crate) fn append_text(existing: &str, section: &PendingSection) -> String {
        let ending = LineEnding::detect(existing);
        let mut out = String::new();
        if !existing.is_empty() && !existing.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&section_text(section));
        match ending {
            LineEnding::Lf => out,
            LineEnding::CrLf => out.replace('\n', "\r\n"),
        }
    }

    /// The one reader (see the module documentation): every line is understood, or the
    /// error names `path` and the line.
    pub fn parse(path: &Path, text: &str) -> Result<PendingRefresh> {
        Parser::new(path, false).parse(text, None)
    }

    /// The lenient reader, for listing and appending: every `- path` line of every
    /// section is read, and each line it does not understand (a hand-written note, a
    /// missing or changed fixed sentence, a malformed heading or quoted path, a path
    /// before any heading, a frontmatter key added by hand) is returned as a [`Warning`]
    /// naming `path` and the line, instead of refusing the file. A frontmatter without a
    /// readable `trigger` and `timestamp` is still an error (the first section's trigger
    /// and time would be unknown).
    ///
    /// ```
    /// use memory_core::context_memory::PendingRefresh;
    /// let text = "## Additional changes (manual at 2026-04-03T10:00:00Z)\n\n- a.rs\nNote: reviewed.\n";
    /// let (doc, warnings) = PendingRefresh::parse_lenient("_pending_refresh.md".as_ref(), text).unwrap();
    /// assert_eq!(doc.changes()[0].path, "a.rs");
    /// assert_eq!((warnings.len(), warnings[0].line), (1, 4));
    /// assert!(PendingRefresh::parse("_pending_refresh.md".as_ref(), text).is_err());
    /// ```
    pub fn parse_lenient(path: &Path, text: &str) -> Result<(PendingRefresh, Vec<Warning>)> {
        let mut warnings = Vec::new();
        let doc = Parser::new(path, true).parse(text, Some(&mut warnings))?;
        Ok((doc, warnings))
    }

    /// Clears `done` from `text` (a file the lenient reader takes) line by line, for a
    /// file holding lines the strict reader refuses, which a canonical rewrite would
    /// drop: each `- path` line of a done path is removed, and so is the heading of an
    /// `## Additional changes` section left empty (with the blank line before it); every
    /// other line — notes included — stays byte for byte. Returns the new text, what it
    /// lists, and the done paths that were listed.
    pub(crate) fn clear_in_place<S: AsRef<str>>(
        path: &Path,
        text: &str,
        done: &[S],
    ) -> Result<(String, PendingRefresh, Vec<String>)> {
        let parser = Parser::new(path, true);
        let mut warnings = Vec::new();
        let mut doc = parser.parse(text, Some(&mut warnings))?;
        let items = parser.items.into_inner();
        let headings = parser.headings.into_inner();
        let is_done = |p: &str| done.iter().any(|d| d.as_ref() == p);
        // Item lines in file order match the sections' paths in order.
        let mut drop = std::collections::BTreeSet::new();
        let mut left = vec![0usize; doc.sections.len()];
        let mut at = vec![0usize; doc.sections.len()];
        for &(line, section) in &items {
            let p = &doc.sections[section].paths[at[section]];
            at[section] += 1;
            if is_done(p) {
                drop.insert(line);
            } else {
                left[section] += 1;
            }
        }
        for &(line, section) in &headings {
            if left[section] == 0 {
                drop.insert(line);
                if let Some(before) = line.checked_sub(1).filter(|&b| b > 0)
                    && text_line_is_blank(text, before)
                {
                    drop.insert(before);
                }
            }
        }
        let cleared = doc.clear(done);
        let mut out = String::with_capacity(text.len());
        let mut start = 0;
        for line in lines(text) {
            if !drop.contains(&line.number) {
                out.push_str(&text[start..line.end]);
            }
            start = line.end;
        }
        out.push_str(&text[start..]);
        Ok((out, doc, cleared))
    }
}

/// Whether line `number` (1-based) of `text` is blank.
fn text_line_is_blank(text: &str, number: usize) -> bool {
    lines(text)
        .nth(number - 1)
        .is_some_and(|l| l.text.trim().is_empty())
}

/// An appended section's text, LF line ends, starting with the blank line.
fn section_text(section: &PendingSection) -> String {
    let mut out = format!(
        "\n{SECTION_PREFIX}{} at {})\n\n",
        section.trigger, section.timestamp
    );
    push_items(&mut out, &section.paths);
    out
}

fn push_items(out: &mut String, paths: &[String]) {
    for path in paths {
        out.push_str("- ");
        out.push_str(&quote_path(path));
        out.push('\n');
    }
}

/// `path` as a list item writes it: verbatim, or C-quoted when reading it back verbatim
/// would change it.
fn quote_path(path: &str) -> std::borrow::Cow<'_, str> {
    let needs = path.starts_with('"') || path.trim() != path || path.chars().any(char::is_control);
    if !needs {
        return path.into();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out.into()
}

/// Reads a C-quoted path (`"…"` with git's escapes); `Err` says what is wrong.
fn unquote_path(quoted: &str) -> std::result::Result<String, String> {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .filter(|_| quoted.len() >= 2)
        .ok_or("a quoted path must end with a closing \"")?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b == b'"' {
            return Err("a quoted path holds an unescaped \"".to_string());
        }
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        let Some((&e, tail)) = rest.split_first() else {
            return Err("a quoted path ends with a lone backslash".to_string());
        };
        rest = tail;
        let byte = match e {
            b'"' => b'"',
            b'\\' => b'\\',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'3' => {
                let digits = [Some(e), rest.first().copied(), rest.get(1).copied()];
                let mut value: u32 = 0;
                for d in digits {
                    match d {
                        Some(d @ b'0'..=b'7') => value = value * 8 + u32::from(d - b'0'),
                        _ => return Err("an octal escape in a quoted path has three digits".into()),
                    }
                }
                rest = &rest[2..];
                // Three octal digits starting 0-3 are at most 0o377.
                u8::try_from(value).unwrap_or(u8::MAX)
            }
            other => {
                return Err(format!(
                    "unknown escape \\{} in a quoted path",
                    char::from(other)
                ));
            }
        };
        bytes.push(byte);
    }
    let path = String::from_utf8(bytes).map_err(|_| "a quoted path is not UTF-8".to_string())?;
    if path.is_empty() || path.contains('\0') {
        return Err("a quoted path must be a non-empty name without NUL".to_string());
    }
    Ok(path)
}

/// The reader's state while it walks the lines.
struct Parser<'p> {
    path: &'p Path,
    /// Whether lines that are not understood become warnings instead of errors.
    lenient: bool,
    /// The line of each `- path` item read, with its section's index.
    items: std::cell::RefCell<Vec<(usize, usize)>>,
    /// The line of each `## Additional changes` heading read, with its section's index.
    headings: std::cell::RefCell<Vec<(usize, usize)>>,
}

/// Where the reader is in the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Expecting the title.
    Title,
    /// Expecting the first sentence.
    Intro,
    /// In the first list, until the second sentence.
    HeadItems,
    /// In `## Additional changes` sections.
    Sections,
}

impl<'p> Parser<'p> {
    fn new(path: &'p Path, lenient: bool) -> Self {
        Parser {
            path,
            lenient,
            items: Default::default(),
            headings: Default::default(),
        }
    }

    fn err(&self, line: usize, message: impl Into<String>) -> Error {
        Error::malformed(self.path, line, message)
    }

    /// Reads `text`; with `warnings`, leniently (see [`PendingRefresh::parse_lenient`]).
    fn parse(&self, text: &str, mut warnings: Option<&mut Vec<Warning>>) -> Result<PendingRefresh> {
        let bom = text.starts_with('\u{feff}');
        let crlf = LineEnding::detect(text) == LineEnding::CrLf;
        let mut doc = PendingRefresh {
            sections: Vec::new(),
            crlf,
            bom,
        };
        let all: Vec<(usize, &str)> = lines(text).map(|l| (l.number, l.text.trim_end())).collect();
        let first = all.iter().find(|(_, t)| !t.is_empty());
        let mut at = 0;
        let mut stage = match first {
            None => return Ok(doc),
            Some((1, "---")) => {
                let (head, next) = self.frontmatter(&all, &mut warnings)?;
                doc.sections.push(head);
                at = next;
                Stage::Title
            }
            Some((_, t)) if t.starts_with(SECTION_PREFIX) => Stage::Sections,
            Some(&(n, _)) => {
                let error = self.err(
                    n,
                    "a pending refresh file starts with its frontmatter (--- on line 1, trigger and timestamp)",
                );
                self.warn_or(&mut warnings, error)?;
                // Lenient: the text before the first heading is reported line by line.
                at = all.iter().position(|&(m, _)| m == n).map_or(0, |i| i + 1);
                Stage::Sections
            }
        };
        for &(n, line) in &all[at..] {
            if line.is_empty() {
                continue;
            }
            match self.line(&mut doc, stage, n, line) {
                Ok(next) => stage = next,
                Err(error) => self.warn_or(&mut warnings, error)?,
            }
        }
        let last = all.last().map_or(1, |(n, _)| *n);
        let unfinished = match stage {
            Stage::Sections => return Ok(doc),
            Stage::Title => format!("the file ends before the title {TITLE:?}"),
            Stage::Intro => format!("the file ends before {INTRO:?}"),
            Stage::HeadItems => format!("the file ends before {OUTRO:?}"),
        };
        self.warn_or(&mut warnings, self.err(last, unfinished))?;
        Ok(doc)
    }

    /// In the lenient reader, `error` becomes a warning (the line is left as it is);
    /// in the strict one it is returned.
    fn warn_or(&self, warnings: &mut Option<&mut Vec<Warning>>, error: Error) -> Result<()> {
        match warnings {
            Some(list) => {
                let line = error.line().unwrap_or(0);
                list.push(Warning::from_error(&error, line));
                Ok(())
            }
            None => Err(error),
        }
    }

    /// Reads one non-blank line after the frontmatter at `stage`; returns the next
    /// stage. The lenient reader also takes `- path` lines and section headings where
    /// the strict one expects a fixed sentence, so that no listed path is lost to a
    /// missing or hand-edited sentence.
    fn line(&self, doc: &mut PendingRefresh, stage: Stage, n: usize, line: &str) -> Result<Stage> {
        match stage {
            Stage::Title if line == TITLE => return Ok(Stage::Intro),
            Stage::Intro if line == INTRO => return Ok(Stage::HeadItems),
            Stage::HeadItems if line == OUTRO => return Ok(Stage::Sections),
            _ => {}
        }
        let in_lists = matches!(stage, Stage::HeadItems | Stage::Sections) || self.lenient;
        if in_lists {
            if let Some(path) = self.item(n, line)? {
                let index = doc.sections.len().checked_sub(1);
                return match doc.sections.last_mut().zip(index) {
                    Some((section, index)) => {
                        section.paths.push(path);
                        self.items.borrow_mut().push((n, index));
                        Ok(stage)
                    }
                    None => Err(self.err(
                        n,
                        format!("the changed file {path:?} is listed before any section heading"),
                    )),
                };
            }
            if (stage == Stage::Sections || self.lenient) && line.starts_with(SECTION_PREFIX) {
                doc.sections.push(self.heading(n, line)?);
                self.headings.borrow_mut().push((n, doc.sections.len() - 1));
                return Ok(Stage::Sections);
            }
        }
        Err(match stage {
            Stage::Title => self.err(n, format!("expected the title {TITLE:?}")),
            Stage::Intro => self.err(n, format!("expected {INTRO:?}")),
            Stage::HeadItems => self.err(
                n,
                format!(
                    "expected a `- path` line or {OUTRO:?}; hand-written text is not part of a pending refresh file"
                ),
            ),
            Stage::Sections => self.err(
                n,
                "expected a `- path` line or an `## Additional changes (<trigger> at <timestamp>)` heading; hand-written text is not part of a pending refresh file",
            ),
        })
    }

    /// Reads the frontmatter starting on line 1; returns the head section (no paths yet)
    /// and the index in `all` of the line after the closing `---`.
    fn frontmatter(
        &self,
        all: &[(usize, &str)],
        warnings: &mut Option<&mut Vec<Warning>>,
    ) -> Result<(PendingSection, usize)> {
        let close = all
            .iter()
            .skip(1)
            .position(|(_, t)| *t == "---")
            .map(|i| i + 1)
            .ok_or_else(|| self.err(1, "the frontmatter is not closed by a --- line"))?;
        let yaml: String = all[1..close]
            .iter()
            .map(|(_, t)| format!("{t}\n"))
            .collect();
        let to_error = |(line, message): (usize, String)| {
            // A missing key is the frontmatter's fault as a whole: its first line.
            let line = if line == 0 || message.starts_with("missing field") {
                1
            } else {
                line + 1
            };
            self.err(line, format!("frontmatter: {message}"))
        };
        let front = match read_frontmatter(&yaml) {
            Ok(front) => front,
            // Lenient: a key added by hand is reported, the two keys are still read.
            Err(strict) => match (warnings.is_some(), read_loose_frontmatter(&yaml)) {
                (true, Ok(front)) => {
                    self.warn_or(warnings, to_error(strict))?;
                    front
                }
                _ => return Err(to_error(strict)),
            },
        };
        let key_line = |key: &str| {
            all[1..close]
                .iter()
                .find(|(_, t)| t.trim_start().starts_with(key))
                .map_or(1, |(n, _)| *n)
        };
        let trigger = RefreshTrigger::parse(front.trigger.trim()).ok_or_else(|| {
            self.err(
                key_line("trigger"),
                format!(
                    "trigger {:?} is not one of post-merge, post-checkout, manual",
                    front.trigger
                ),
            )
        })?;
        let timestamp = refresh_timestamp(front.timestamp.trim()).ok_or_else(|| {
            self.err(
                key_line("timestamp"),
                format!(
                    "timestamp {:?} is not UTC in the form YYYY-MM-DDTHH:MM:SSZ",
                    front.timestamp
                ),
            )
        })?;
        Ok((
            PendingSection {
                trigger,
                timestamp,
                paths: Vec::new(),
            },
            close + 1,
        ))
    }

    /// A `- path` line's path, `None` for a line that is not a list item.
    fn item(&self, n: usize, line: &str) -> Result<Option<String>> {
        let Some(rest) = line
            .strip_prefix('-')
            .or_else(|| line.strip_prefix('*'))
            .or_else(|| line.strip_prefix('+'))
        else {
            return Ok(None);
        };
        if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
            return Ok(None);
        }
        let value = rest.trim();
        if value.is_empty() {
            return Err(self.err(n, "a `- path` line without a path"));
        }
        if value.starts_with('"') {
            return unquote_path(value)
                .map(Some)
                .map_err(|why| self.err(n, why));
        }
        Ok(Some(value.to_string()))
    }

    fn heading(&self, n: usize, line: &str) -> Result<PendingSection> {
        let shape = "a section heading is `## Additional changes (<trigger> at <timestamp>)`";
        let inner = line
            .strip_prefix(SECTION_PREFIX)
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| self.err(n, shape))?;
        let (trigger, timestamp) = inner.split_once(" at ").ok_or_else(|| self.err(n, shape))?;
        let trigger = RefreshTrigger::parse(trigger).ok_or_else(|| {
            self.err(
                n,
                format!("trigger {trigger:?} is not one of post-merge, post-checkout, manual"),
            )
        })?;
        let timestamp = refresh_timestamp(timestamp).ok_or_else(|| {
            self.err(
                n,
                format!("timestamp {timestamp:?} is not UTC in the form YYYY-MM-DDTHH:MM:SSZ"),
            )
        })?;
        Ok(PendingSection {
            trigger,
            timestamp,
            paths: Vec::new(),
        })
    }
}

#[cfg(test)]
#[path = "refresh_tests.rs"]
mod tests;
