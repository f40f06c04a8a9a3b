//! Text limits of a memory body: flags for bodies far beyond the seed's "1-3 sentences"
//! (reported in the outcome, not errors) and the hard size limit past which a body is
//! refused.

use std::fmt;

use crate::error::{Error, Result};
use crate::markdown::lines;

use super::sentences::count_sentences;

/// The hard limit on a body, in bytes of UTF-8: 16 KiB. Longer bodies are refused with
/// [`Error::TextTooLarge`].
///
/// Why 16 KiB: the seed asks for 1-3 sentences (a few hundred bytes); 16 KiB is about
/// fifty times that, room for a long rationale with a short snippet, while every body is
/// read whole by each query and scanned for secrets on each write. Anything longer is a
/// document or a code dump, which the seed says belongs in the repository ("git has
/// them"), pointed to by the entity's source path.
///
/// ```
/// assert_eq!(memory_core::hygiene::MAX_BODY_BYTES, 16 * 1024);
/// ```
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// A body with more sentences than this is flagged [`BodyFlag::ManySentences`]: the
/// seed's "1-3 sentences".
///
/// ```
/// assert_eq!(memory_core::hygiene::FLAG_SENTENCES, 3);
/// ```
pub const FLAG_SENTENCES: usize = 3;

/// A line longer than this many characters is flagged [`BodyFlag::LongLine`]: three
/// long sentences fit on one line; minified code, logs and encoded blobs do not.
///
/// ```
/// assert_eq!(memory_core::hygiene::FLAG_LINE_CHARS, 400);
/// ```
pub const FLAG_LINE_CHARS: usize = 400;

/// A fenced code block with more lines than this between its fences is flagged
/// [`BodyFlag::CodeDump`]: a short example is fine, a large dump belongs in git.
///
/// ```
/// assert_eq!(memory_core::hygiene::FLAG_CODE_LINES, 10);
/// ```
pub const FLAG_CODE_LINES: usize = 10;

/// Something unusual about an accepted body, for the caller's outcome.
///
/// ```
/// use memory_core::hygiene::{BodyFlag, check_body};
/// let flags = check_body("body", "One. Two. Three. Four.").unwrap();
/// assert_eq!(flags.flags, vec![BodyFlag::ManySentences { sentences: 4 }]);
/// assert_eq!(flags.flags[0].code(), "many-sentences");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "code", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum BodyFlag {
    /// More than [`FLAG_SENTENCES`] sentences of prose (code blocks not counted).
    ManySentences {
        /// How many sentences the prose has.
        sentences: usize,
    },
    /// The longest line is longer than [`FLAG_LINE_CHARS`] characters.
    LongLine {
        /// Its 1-based line number.
        line: usize,
        /// Its length in characters.
        chars: usize,
    },
    /// A fenced code block has more than [`FLAG_CODE_LINES`] lines.
    CodeDump {
        /// The 1-based line of its opening fence.
        line: usize,
        /// The lines between its fences (to the end of the body if it is not closed).
        lines: usize,
    },
}

impl BodyFlag {
    /// The flag's stable name: `many-sentences`, `long-line` or `code-dump`.
    ///
    /// ```
    /// use memory_core::hygiene::BodyFlag;
    /// assert_eq!(BodyFlag::CodeDump { line: 1, lines: 40 }.code(), "code-dump");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            BodyFlag::ManySentences { .. } => "many-sentences",
            BodyFlag::LongLine { .. } => "long-line",
            BodyFlag::CodeDump { .. } => "code-dump",
        }
    }
}

impl fmt::Display for BodyFlag {
    /// The flag in plain words, with the documented threshold.
    ///
    /// ```
    /// use memory_core::hygiene::BodyFlag;
    /// assert_eq!(
    ///     BodyFlag::LongLine { line: 2, chars: 900 }.to_string(),
    ///     "line 2 is 900 characters long (more than 400)"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyFlag::ManySentences { sentences } => write!(
                f,
                "{sentences} sentences (the body should be {FLAG_SENTENCES} at most: the conclusion, not the reasoning)"
            ),
            BodyFlag::LongLine { line, chars } => write!(
                f,
                "line {line} is {chars} characters long (more than {FLAG_LINE_CHARS})"
            ),
            BodyFlag::CodeDump { line, lines } => write!(
                f,
                "the code block at line {line} has {lines} lines (more than {FLAG_CODE_LINES}; large code belongs in git)"
            ),
        }
    }
}

/// What [`check_body`] measured of an accepted body, and its flags.
///
/// ```
/// let report = memory_core::hygiene::check_body("body", "Use Postgres for the ledger.").unwrap();
/// assert!(report.is_clean());
/// assert_eq!((report.bytes, report.sentences), (28, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct BodyFlags {
    /// The body's length in bytes.
    pub bytes: usize,
    /// The sentences of its prose (outside code blocks).
    pub sentences: usize,
    /// Every flag raised, in the order many sentences, long line, code dumps (by line).
    pub flags: Vec<BodyFlag>,
}

impl BodyFlags {
    /// Whether no flag was raised.
    ///
    /// ```
    /// let long = "word ".repeat(100);
    /// assert!(!memory_core::hygiene::check_body("body", &long).unwrap().is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.flags.is_empty()
    }
}

/// Measures the body `text` of field `field`: refuses it past [`MAX_BODY_BYTES`] with
/// [`Error::TextTooLarge`] (kind `InvalidInput`, naming the field and the limit), and
/// otherwise returns its [`BodyFlags`]. Sentences are counted as
/// [`BodyFlag::ManySentences`] documents, in any script (`。` ends a sentence too).
///
/// ```
/// use memory_core::ErrorKind;
/// use memory_core::hygiene::{BodyFlag, MAX_BODY_BYTES, check_body};
///
/// let code = format!("Tried this:\n```rust\n{}```\n", "let x = 1;\n".repeat(30));
/// let flags = check_body("body", &code).unwrap();
/// assert_eq!(flags.flags, vec![BodyFlag::CodeDump { line: 2, lines: 30 }]);
///
/// let err = check_body("body", &"a".repeat(MAX_BODY_BYTES + 1)).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidInput);
/// assert_eq!(err.to_string(), "body: 16385 bytes is over the limit of 16384 bytes (16 KiB); keep the conclusion here and point to the document");
/// ```
pub fn check_body(field: &str, text: &str) -> Result<BodyFlags> {
    if text.len() > MAX_BODY_BYTES {
        return Err(Error::TextTooLarge {
            field: field.to_string(),
            bytes: text.len(),
            limit: MAX_BODY_BYTES,
        });
    }
    let mut prose = String::with_capacity(text.len());
    let mut longest: Option<(usize, usize)> = None;
    let mut dumps = Vec::new();
    let mut block: Option<(usize, usize)> = None;
    for line in lines(text) {
        let chars = line.text.chars().count();
        if chars > longest.map_or(FLAG_LINE_CHARS, |(_, c)| c) {
            longest = Some((line.number, chars));
        }
        if line.in_fence {
            block.get_or_insert((line.number, 0)).1 += 1;
        } else {
            if let Some(done) = block.take() {
                dumps.extend(code_dump(done, true));
            }
            prose.push_str(line.text);
            prose.push('\n');
        }
    }
    if let Some(done) = block.take() {
        let closed = lines(text)
            .last()
            .is_some_and(|l| fence_line(l.text) && l.number > done.0);
        dumps.extend(code_dump(done, closed));
    }
    let sentences = count_sentences(&prose);
    let mut flags = Vec::new();
    if sentences > FLAG_SENTENCES {
        flags.push(BodyFlag::ManySentences { sentences });
    }
    if let Some((line, chars)) = longest {
        flags.push(BodyFlag::LongLine { line, chars });
    }
    flags.extend(dumps);
    Ok(BodyFlags {
        bytes: text.len(),
        sentences,
        flags,
    })
}

/// The flag for a fenced block of `count` lines (fences included) from line `start`.
fn code_dump((start, count): (usize, usize), closed: bool) -> Option<BodyFlag> {
    let fences = if closed { 2 } else { 1 };
    let lines = count.saturating_sub(fences);
    (lines > FLAG_CODE_LINES).then_some(BodyFlag::CodeDump { line: start, lines })
}

fn fence_line(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}
