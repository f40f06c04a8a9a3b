//! Finding the frontmatter block: a `---` first line and the next `---` or `...` line.

use std::ops::Range;

use super::super::{LineEnding, ParseIssue};

/// A YAML frontmatter block located in a document, by byte ranges.
///
/// The block opens with a `---` line that is the file's first line (after an optional
/// UTF-8 BOM) and closes with the next line that is `---` or `...`; both fence lines may
/// carry trailing spaces or tabs, and lines may end with LF or CRLF.
///
/// ```
/// use memory_core::markdown::{Frontmatter, LineEnding};
/// let text = "---\r\nstatus: accepted\r\n---\r\nBody\r\n";
/// let fm = Frontmatter::locate(text).unwrap().unwrap();
/// assert_eq!((fm.yaml.clone(), fm.body_start), (5..23, 28));
/// assert_eq!(fm.line_ending, LineEnding::CrLf);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter {
    /// The whole block: from the opening fence (after a BOM) to just past the closing
    /// fence line's terminator (or the end of the text when that line has none).
    pub block: Range<usize>,
    /// The YAML text between the fences: whole lines, terminators included (empty when
    /// the closing fence follows the opening one directly).
    pub yaml: Range<usize>,
    /// The closing fence line, without its terminator.
    pub closing: Range<usize>,
    /// Where the body starts (equals `block.end`).
    pub body_start: usize,
    /// The 1-based file line the YAML text starts on (the line after the opening fence).
    pub yaml_line: usize,
    /// The opening fence's line ending, used for lines added to the block.
    pub line_ending: LineEnding,
}

impl Frontmatter {
    /// Locates the frontmatter of `text`: `Ok(None)` when the file has none, a
    /// [`ParseIssue`] naming line 1 when the opening fence is never closed.
    ///
    /// ```
    /// use memory_core::markdown::Frontmatter;
    /// let text = "\u{feff}---\r\nstatus: accepted\r\n...\r\nBody\r\n";
    /// let fm = Frontmatter::locate(text).unwrap().unwrap();
    /// assert_eq!(fm.yaml(text), "status: accepted\r\n");
    /// assert_eq!(fm.body(text), "Body\r\n");
    /// assert_eq!(fm.yaml_line, 2);
    /// assert!(Frontmatter::locate("# Title\n").unwrap().is_none());
    /// assert_eq!(Frontmatter::locate("---\na: 1\n").unwrap_err().line, 1);
    /// ```
    pub fn locate(text: &str) -> Result<Option<Frontmatter>, ParseIssue> {
        let bytes = text.as_bytes();
        let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let (open_end, open_next) = line_at(bytes, start);
        if !is_fence(&bytes[start..open_end], b'-') {
            return Ok(None);
        }
        let line_ending = if open_next > open_end + 1 {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        let yaml_start = open_next;
        let mut at = open_next;
        // The opening fence as the file's only line is never closed either.
        while at < bytes.len() {
            let (end, next) = line_at(bytes, at);
            let line = &bytes[at..end];
            if is_fence(line, b'-') || is_fence(line, b'.') {
                return Ok(Some(Frontmatter {
                    block: start..next,
                    yaml: yaml_start..at,
                    closing: at..end,
                    body_start: next,
                    yaml_line: 2,
                    line_ending,
                }));
            }
            at = next;
        }
        Err(ParseIssue {
            line: 1,
            message: "the frontmatter opened by `---` on line 1 is never closed by a `---` or \
                      `...` line"
                .into(),
        })
    }

    /// The YAML text between the fences.
    ///
    /// ```
    /// use memory_core::markdown::Frontmatter;
    /// let text = "---\na: 1\n---\n";
    /// assert_eq!(Frontmatter::locate(text).unwrap().unwrap().yaml(text), "a: 1\n");
    /// ```
    pub fn yaml<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.yaml.clone()).unwrap_or("")
    }

    /// The body after the closing fence line.
    ///
    /// ```
    /// use memory_core::markdown::Frontmatter;
    /// let text = "---\na: 1\n---\n\nBody --- with a rule\n---\n";
    /// let fm = Frontmatter::locate(text).unwrap().unwrap();
    /// assert_eq!(fm.body(text), "\nBody --- with a rule\n---\n");
    /// ```
    pub fn body<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.body_start..).unwrap_or("")
    }
}

/// The end of the line starting at `at` (before `\r\n` or `\n`) and the start of the next.
pub(super) fn line_at(bytes: &[u8], at: usize) -> (usize, usize) {
    match memchr::memchr(b'\n', &bytes[at..]) {
        Some(i) => {
            let nl = at + i;
            let end = if nl > at && bytes[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            (end, nl + 1)
        }
        None => (bytes.len(), bytes.len()),
    }
}

/// Whether `line` is three `c` followed only by spaces or tabs.
fn is_fence(line: &[u8], c: u8) -> bool {
    line.len() >= 3
        && line[..3].iter().all(|&b| b == c)
        && line[3..].iter().all(|&b| b == b' ' || b == b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_line_endings() {
        let fm = Frontmatter::locate("---  \na: 1\n---\t\nbody")
            .unwrap()
            .unwrap();
        assert_eq!(fm.yaml, 6..11);
        assert_eq!(fm.closing, 11..15);
        assert_eq!(fm.body_start, 16);
        assert_eq!(fm.line_ending, LineEnding::Lf);
        let text = "---\r\n---\r\n";
        let fm = Frontmatter::locate(text).unwrap().unwrap();
        assert_eq!(fm.yaml(text), "");
        assert_eq!(fm.line_ending, LineEnding::CrLf);
        assert_eq!(fm.body(text), "");
        let text = "---\na: 1\n---";
        let fm = Frontmatter::locate(text).unwrap().unwrap();
        assert_eq!(
            (fm.block.clone(), fm.body_start),
            (0..text.len(), text.len())
        );
    }

    #[test]
    fn not_frontmatter() {
        for text in [
            "",
            "----\na\n----\n",
            " ---\na\n---\n",
            "--- x\n---\n",
            "a\n---\nb\n---\n",
        ] {
            assert_eq!(Frontmatter::locate(text).unwrap(), None, "{text:?}");
        }
    }

    #[test]
    fn unclosed_fences_name_line_1() {
        for text in [
            "---",
            "---\n",
            "---\r\na: 1\r\n",
            "\u{feff}---\na: 1\n----\n.. .\n",
        ] {
            let issue = Frontmatter::locate(text).unwrap_err();
            assert_eq!(issue.line, 1, "{text:?}");
        }
    }
}
