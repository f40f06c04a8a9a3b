//! Line iteration with byte offsets, line numbers and code-fence awareness.

use std::ops::Range;

/// The line terminator a file uses.
///
/// ```
/// use memory_core::markdown::LineEnding;
/// assert_eq!(LineEnding::detect("a\r\nb\r\n"), LineEnding::CrLf);
/// assert_eq!(LineEnding::detect("a\nb"), LineEnding::Lf);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
}

impl LineEnding {
    /// The ending of the first terminated line (`\n` when there is none).
    pub fn detect(text: &str) -> Self {
        match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => LineEnding::CrLf,
            _ => LineEnding::Lf,
        }
    }

    /// The terminator's text.
    ///
    /// ```
    /// assert_eq!(memory_core::markdown::LineEnding::CrLf.as_str(), "\r\n");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }
}

/// One line of a text, located by byte offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The line's text without its terminator (and without a leading BOM on line 1).
    pub text: &'a str,
    /// Byte range of `text` in the whole document.
    pub content: Range<usize>,
    /// Byte offset just past the terminator (equals `content.end` on a last line with none).
    pub end: usize,
    /// Whether the line is inside a fenced code block (fence lines included).
    pub in_fence: bool,
}

/// Splits `text` into [`Line`]s, marking those inside ``` or ~~~ fences.
///
/// ```
/// let text = "a\r\n```\n| x |\n```\nb";
/// let lines: Vec<_> = memory_core::markdown::lines(text).collect();
/// assert_eq!(lines.len(), 5);
/// assert_eq!(lines[0].text, "a");
/// assert!(lines[2].in_fence);
/// assert!(!lines[4].in_fence);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    LineIter::new(text)
}

/// The iterator [`lines`] returns, named so that the block classifier can hold one.
#[derive(Debug, Clone)]
pub(super) struct LineIter<'a> {
    text: &'a str,
    offset: usize,
    number: usize,
    fence: Option<(u8, usize)>,
    /// The byte offset of the last line returned, and whether it holds a `<` or `%`
    /// (found in the same search as its end).
    last: (usize, bool),
}

impl<'a> LineIter<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        LineIter {
            text,
            offset: 0,
            number: 0,
            fence: None,
            last: (usize::MAX, true),
        }
    }

    /// Whether `line` may hold a `<` or `%` (a comment opener's first byte): `false`
    /// only when it is the line last returned and the search for its end found neither,
    /// so that the block classifier need not search the line again.
    #[inline]
    pub(super) fn may_hold_comment(&self, line: &Line<'_>) -> bool {
        self.last.0 != line.content.end || self.last.1
    }
}

/// The end of the line starting `hay` (the offset of its `\n`, if any) and whether the
/// line holds a `<` or `%`: one `memchr3` pass for a line without them (every table row
/// of an index), a second search for the `\n` after the first of them otherwise.
#[inline]
fn line_end(hay: &[u8]) -> (Option<usize>, bool) {
    match memchr::memchr3(b'\n', b'<', b'%', hay) {
        Some(i) if hay[i] == b'\n' => (Some(i), false),
        Some(i) => (
            memchr::memchr(b'\n', &hay[i + 1..]).map(|j| i + 1 + j),
            true,
        ),
        None => (None, false),
    }
}

impl<'a> Iterator for LineIter<'a> {
    type Item = Line<'a>;

    #[inline]
    fn next(&mut self) -> Option<Line<'a>> {
        let text = self.text;
        if self.offset >= text.len() {
            return None;
        }
        let start = self.offset;
        let (newline, marked) = line_end(&text.as_bytes()[start..]);
        let (content_end, end) = match newline {
            Some(i) => {
                let nl = start + i;
                let ce = if nl > start && text.as_bytes()[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                (ce, nl + 1)
            }
            None => (text.len(), text.len()),
        };
        self.offset = end;
        self.number += 1;
        self.last = (content_end, marked);
        let mut content_start = start;
        if start == 0 && text.starts_with('\u{feff}') {
            content_start = '\u{feff}'.len_utf8();
        }
        let line_text = &text[content_start..content_end];
        let in_fence = match self.fence {
            Some((ch, len)) => {
                if closes_fence(line_text, ch, len) {
                    self.fence = None;
                }
                true
            }
            None => {
                if let Some(open) = opens_fence(line_text) {
                    self.fence = Some(open);
                    true
                } else {
                    false
                }
            }
        };
        Some(Line {
            number: self.number,
            text: line_text,
            content: content_start..content_end,
            end,
            in_fence,
        })
    }
}

fn fence_run(line: &str) -> Option<(u8, usize, &str)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    (len >= 3).then(|| (ch, len, &rest[len..]))
}

pub(super) fn opens_fence(line: &str) -> Option<(u8, usize)> {
    let (ch, len, info) = fence_run(line)?;
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some((ch, len))
}

pub(super) fn closes_fence(line: &str, ch: u8, len: usize) -> bool {
    matches!(fence_run(line), Some((c, l, rest)) if c == ch && l >= len && rest.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The one search per line finds every line's end where a plain split at `\n`
        /// does, and says a line holds no `<` and no `%` only when it holds neither (the
        /// block classifier then skips its search for comment openers); a line that is
        /// not the last one returned may always hold them.
        #[test]
        fn line_ends_and_comment_bytes_are_found_in_one_pass(
            text in "\u{feff}?[a|<%\n\r登 !-]{0,48}|\\PC{0,48}",
        ) {
            let mut iter = LineIter::new(&text);
            let mut previous: Option<Line<'_>> = None;
            let mut at = 0;
            for (i, piece) in text.split_inclusive('\n').enumerate() {
                let line = iter.next().expect("a line per piece");
                let mut content = piece.strip_suffix('\n').map_or(piece, |c| c.strip_suffix('\r').unwrap_or(c));
                if i == 0 {
                    content = content.strip_prefix('\u{feff}').unwrap_or(content);
                }
                proptest::prop_assert_eq!(line.text, content);
                proptest::prop_assert_eq!(line.end, at + piece.len());
                let holds = piece.contains(['<', '%']);
                proptest::prop_assert_eq!(iter.may_hold_comment(&line), holds, "{:?}", piece);
                if let Some(previous) = &previous {
                    proptest::prop_assert!(iter.may_hold_comment(previous));
                }
                at += piece.len();
                previous = Some(line);
            }
            proptest::prop_assert!(iter.next().is_none());
        }
    }
}
