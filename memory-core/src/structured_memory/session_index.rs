//! The index as a session start loads it (`memcore topics index`, the SessionStart hook):
//! never lost to a damage that [`StructuredMemory::index`] refuses. A `MEMORY.md` whose
//! comment or fence is never closed (hiding pointer lines) comes back whole, as text, with
//! a warning naming the file and line — as Agent Memory's SessionStart goes on past an
//! index row it cannot read.

use std::path::PathBuf;

use serde::Serialize;

use super::budget::BudgetUse;
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::memory::StructuredMemory;
use crate::agent_memory::Warning;
use crate::durable::{MAX_FILE_BYTES, decode_text, read_bytes_if_exists};
use crate::error::{Error, Result};
use crate::markdown::lines;

/// `MEMORY.md` for a session to load: the file whole, read as an index when it reads.
///
/// ```
/// use memory_core::structured_memory::StructuredMemory;
/// let dir = tempfile::tempdir().unwrap();
/// let text = "- [User](USER.md) — role\n<!-- a note never closed\n- [Infra](memory-infra.md) — hosts\n";
/// std::fs::write(dir.path().join("MEMORY.md"), text).unwrap();
/// let memory = StructuredMemory::open(dir.path()).unwrap();
/// assert!(memory.index().is_err(), "index() refuses it");
/// let start = memory.session_index().unwrap();
/// assert_eq!(start.text, text, "whole, never truncated");
/// assert!(start.index.is_none());
/// assert_eq!(start.damaged.unwrap().line, 2);
/// ```
///
/// Serialized (JSON on every surface: `memcore topics --json index`, Python
/// `session_index()`, Node `sessionIndex()`) as one shape whether the file reads or not:
/// `text`, `budget`, `damaged`, `index` (null when it does not read) and `warnings`
/// ([`SessionIndex::warnings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionIndex {
    /// The file's text, whole (empty when there is no `MEMORY.md` yet).
    pub text: String,
    /// The index read from it; `None` when it does not read (see
    /// [`SessionIndex::damaged`]).
    pub index: Option<MemoryIndex>,
    /// What it uses of its budget (lines and bytes of the text, read or not).
    pub budget: BudgetUse,
    /// Why it does not read as an index, with the file and the line, when it does not
    /// (the text is still all there).
    pub damaged: Option<Warning>,
    /// Where `MEMORY.md` leads when it is a symbolic link (a session still loads it, read
    /// through the link; the commands that write refuse it, as every write refuses links).
    pub through_link: Option<PathBuf>,
    /// A comment opened on a line of an index that reads and never closed (`%%` or
    /// `<!--`): the lines after it are hidden in Obsidian, the message names them (what
    /// `check` reports as `unclosed_comment`). In [`SessionIndex::warnings`], not a key of
    /// its own in the JSON form.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [A](a.md) — a %% draft\n- [B](b.md) — b\n").unwrap();
    /// let start = StructuredMemory::open(dir.path()).unwrap().session_index().unwrap();
    /// assert_eq!(start.index.unwrap().lines.len(), 2, "memory-core reads on");
    /// assert_eq!(start.unclosed_comment.unwrap().line, 1, "Obsidian hides line 2");
    /// ```
    pub unclosed_comment: Option<Warning>,
}

impl Serialize for SessionIndex {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("SessionIndex", 5)?;
        out.serialize_field("text", &self.text)?;
        out.serialize_field("budget", &self.budget)?;
        out.serialize_field("damaged", &self.damaged)?;
        out.serialize_field("index", &self.index)?;
        out.serialize_field("warnings", &self.warnings())?;
        out.end()
    }
}

impl SessionIndex {
    /// What a session start says on stderr: that `MEMORY.md` is a symbolic link, why the
    /// index does not read (when it does not) or the comment it leaves open (see
    /// [`SessionIndex::unclosed_comment`]), then its budget warning (when it is near or
    /// over).
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "```\n- [User](USER.md) — role\n").unwrap();
    /// let start = StructuredMemory::open(dir.path()).unwrap().session_index().unwrap();
    /// let warnings = start.warnings();
    /// assert!(warnings[0].contains("MEMORY.md:1: "), "{warnings:?}");
    /// ```
    pub fn warnings(&self) -> Vec<String> {
        let damaged = self.damaged.as_ref().map(|w| {
            format!(
                "{w} (printed whole as text; `memcore topics check` reports it and the other commands refuse it until it is repaired)"
            )
        });
        let link = self.through_link.as_ref().map(|target| {
            format!(
                "{INDEX_FILE_NAME} is a symbolic link to {}: read through it; the commands that write refuse it (memory-core never writes through links)",
                target.display()
            )
        });
        let comment = self.unclosed_comment.as_ref().map(|w| {
            format!("{w} (printed whole; `memcore topics check` reports it as unclosed_comment)")
        });
        link.into_iter()
            .chain(damaged)
            .chain(comment)
            .chain(self.budget.warning())
            .collect()
    }
}

impl StructuredMemory {
    /// `MEMORY.md` for a session start: [`StructuredMemory::index`] when the file reads;
    /// when a comment, fence or frontmatter block never closed makes it refused, the text
    /// whole with the reason in [`SessionIndex::damaged`] instead of an error, so that
    /// a session never loses its index to one unclosed line. A file that is not UTF-8
    /// (another encoding, UTF-16, a NUL byte) comes back decoded as well as it can be —
    /// UTF-16 with a byte-order mark decoded as UTF-16, anything else with U+FFFD for each
    /// byte that does not read and for a NUL — with the line of the first such byte in
    /// [`SessionIndex::damaged`]. A file too large or that cannot be opened is still an
    /// error.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), b"- [A](a.md) \xe2\x80\x94 a\n- [U](u.md) \x97 u\n").unwrap();
    /// let start = StructuredMemory::open(dir.path()).unwrap().session_index().unwrap();
    /// assert_eq!(start.text, "- [A](a.md) \u{2014} a\n- [U](u.md) \u{fffd} u\n");
    /// assert_eq!(start.damaged.unwrap().line, 2);
    /// ```
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [User](USER.md) — role\n").unwrap();
    /// let start = StructuredMemory::open(dir.path()).unwrap().session_index().unwrap();
    /// assert_eq!(start.index.unwrap().lines[0].file, "USER.md");
    /// assert!(start.damaged.is_none());
    /// ```
    pub fn session_index(&self) -> Result<SessionIndex> {
        let _guard = self.handle.read_guard()?;
        // `MEMORY.md` itself a link: the hook reads what it leads to, so that a session
        // never starts without its index.
        let (path, through_link) = self.index_path_for_reading()?;
        let (text, undecoded) = match read_bytes_if_exists(&path)? {
            None => (String::new(), None),
            Some(bytes) => match decode_text(&path, bytes) {
                Ok(text) => (text, None),
                // Not UTF-8, UTF-16, a NUL byte: printed as well as it decodes, with a
                // warning naming the line of the first byte that does not read.
                Err(failed) => {
                    let (error, bytes) = *failed;
                    let (text, warning) = decoded_lossily(error, &bytes)?;
                    (text, Some(warning))
                }
            },
        };
        let (index, damaged) = match undecoded {
            Some(warning) => (None, Some(warning)),
            None => match MemoryIndex::parse(&path, text.as_str()) {
                Ok(index) => (Some(index), None),
                Err(e @ Error::Malformed { .. }) => (None, Some(Warning::from_error(&e, 0))),
                Err(e) => return Err(e),
            },
        };
        let line_count = lines(&text).count();
        let budget = self
            .budgets
            .usage(INDEX_FILE_NAME, true, line_count, text.len());
        let index = index.map(|mut i| {
            i.budget = budget.clone();
            i.through_link = through_link.clone();
            i
        });
        let unclosed_comment = index.as_ref().and_then(|index| {
            super::index_comments::unclosed_comment(&text).map(|c| Warning {
                path: path.clone(),
                line: c.line,
                message: c.message(index),
            })
        });
        Ok(SessionIndex {
            text,
            index,
            budget,
            damaged,
            through_link,
            unclosed_comment,
        })
    }
}

/// The text of the `MEMORY.md` at `path` that `error` (from reading it as UTF-8) refused,
/// decoded as well as it can be, and the warning naming the line of the first byte that
/// does not read; a file too large is still `error`.
fn decoded_lossily(error: Error, bytes: &[u8]) -> Result<(String, Warning)> {
    // A file too large to read is not printed either.
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(error);
    }
    let mut warning = Warning::from_error(&error, 0);
    let utf16 = match bytes {
        [0xFF, 0xFE, rest @ ..] => Some((rest, u16::from_le_bytes as fn([u8; 2]) -> u16)),
        [0xFE, 0xFF, rest @ ..] => Some((rest, u16::from_be_bytes as fn([u8; 2]) -> u16)),
        _ => None,
    };
    let text = match utf16 {
        Some((rest, unit)) => {
            let units = rest.chunks(2).map(|pair| match pair {
                [a, b] => unit([*a, *b]),
                // An odd byte at the end: no code unit, shown as U+FFFD.
                _ => 0xFFFD,
            });
            warning.line = 1;
            warning.message = "file is UTF-16 (it starts with a UTF-16 byte-order mark), not UTF-8: printed decoded from UTF-16".to_string();
            char::decode_utf16(units)
                .map(|c| match c {
                    Ok('\0') | Err(_) => char::REPLACEMENT_CHARACTER,
                    Ok(c) => c,
                })
                .collect()
        }
        None => {
            warning.message.push_str(
                ": printed with U+FFFD in place of each byte that does not read as UTF-8 and each NUL",
            );
            String::from_utf8_lossy(bytes).replace('\0', "\u{fffd}")
        }
    };
    Ok((text, warning))
}
