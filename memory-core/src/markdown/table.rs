//! Lossless GFM pipe-table reading and single-row editing.

use std::ops::Range;

#[cfg(test)]
use super::find_table;
use super::{Cells, Edit, LineEnding};

/// The longest line the table scanner accepts (1 MiB): a longer line is junk, not memory.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// Why a text could not be read as the expected table; the caller adds the file path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseIssue {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseIssue {
    /// The issue as the [`crate::Error::Malformed`] of the file at `path`.
    pub(crate) fn at(self, path: &std::path::Path) -> crate::Error {
        crate::Error::malformed(path, self.line, self.message)
    }
}

/// One body row of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRow {
    /// 1-based line number.
    pub line: usize,
    /// Byte range of the row's text (without its terminator).
    pub content: Range<usize>,
    /// Byte offset just past the row's terminator.
    pub end: usize,
    /// Byte ranges of the trimmed, still escaped cells in the document: read them with
    /// [`TableRow::cell`] or [`TableRow::values`]. Ranges held inline instead of strings
    /// make scanning a 10,000-row index allocation-free per row.
    pub cells: Cells,
}

impl TableRow {
    /// Cell `index` as written (trimmed, escapes kept); `text` is the scanned document.
    ///
    /// ```
    /// use memory_core::markdown::find_table;
    /// let text = "| A | B |\n|---|---|\n| x \\| y | z |\n";
    /// let table = find_table(text, &["A", "B"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].raw_cell(text, 0), "x \\| y");
    /// ```
    /// A cell the row does not have reads as empty, as GFM fills missing cells.
    pub fn raw_cell<'t>(&self, text: &'t str, index: usize) -> &'t str {
        self.cells
            .get(index)
            .and_then(|r| text.get(r))
            .unwrap_or("")
    }

    /// Cell `index`, unescaped.
    ///
    /// ```
    /// use memory_core::markdown::find_table;
    /// let text = "| A | B |\n|---|---|\n| x \\| y | a<br>b |\n";
    /// let table = find_table(text, &["A", "B"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].cell(text, 0), "x | y");
    /// assert_eq!(table.rows[0].cell(text, 1), "a\nb");
    /// ```
    pub fn cell(&self, text: &str, index: usize) -> String {
        unescape_cell(self.raw_cell(text, index))
    }

    /// Every cell, unescaped.
    ///
    /// ```
    /// use memory_core::markdown::find_table;
    /// let text = "| A | B |\n|---|---|\n| 1 | 2 |\n";
    /// let table = find_table(text, &["A", "B"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].values(text), ["1", "2"]);
    /// ```
    pub fn values(&self, text: &str) -> Vec<String> {
        (0..self.cells.len()).map(|i| self.cell(text, i)).collect()
    }
}

/// A pipe table located in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// 1-based line of the header row.
    pub header_line: usize,
    /// Body rows in document order.
    pub rows: Vec<TableRow>,
    /// Byte offset just past the last line of the table (delimiter row or last body row).
    pub insert_at: usize,
    /// Whether the table's last line ends with a terminator.
    pub last_line_terminated: bool,
    /// The document's line ending, used for inserted lines.
    pub line_ending: LineEnding,
    /// 1-based line of the delimiter row.
    pub delimiter_line: usize,
    /// The line that ended the table, with the reason (GFM: a blank line or the start of
    /// another block); `None` when the table runs to the end of the document.
    pub ended_by: Option<TableEnd>,
    /// The header line's indentation (spaces and tabs), given to appended and replaced
    /// rows, so that a table inside a list item stays one table when rows are written.
    pub indent: String,
}

/// Where and why a table ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableEnd {
    /// 1-based line of the first line after the table.
    pub line: usize,
    /// What that line is: `a blank line`, `a heading`, `a blockquote`…
    pub reason: &'static str,
}

/// The byte ranges (offset by `base`) of a table line's trimmed, still escaped cells; the
/// outer pipes are not cells and `\|` does not end a cell: a pipe ends a cell unless the
/// byte before it is a backslash.
pub(super) fn cell_ranges(line: &str, base: usize) -> Cells {
    let bytes = line.as_bytes();
    let whole = trim_bounds(line);
    let end = whole.end;
    let mut i = whole.start;
    if bytes.get(i) == Some(&b'|') {
        i += 1;
    }
    let hay = &bytes[..end];
    let mut cells = Cells::new(base);
    let mut cell_start = i;
    for_each_pipe(hay, i, |p| {
        if p > 0 && hay[p - 1] == b'\\' {
            return;
        }
        let cell = trim_bytes(line, cell_start, p);
        cells.push_relative(base, cell.start, cell.end);
        cell_start = p + 1;
    });
    // A pipe that ends a cell moved `cell_start` past `i`; when it is the line's last
    // byte, no cell follows it.
    let closed = cell_start > i && cell_start == end;
    if !closed {
        let cell = trim_bytes(line, cell_start, end);
        cells.push_relative(base, cell.start, cell.end);
    }
    cells
}

/// Calls `f` with the position of every `|` in `hay` from `from` on, in order.
///
/// On x86-64 sixteen bytes are compared at a time with SSE2 (part of every x86-64
/// CPU) and the pipes taken from the match mask: a row's cells are short, and one
/// `memchr` call per cell cost more in its setup than in its search.
fn for_each_pipe(hay: &[u8], from: usize, mut f: impl FnMut(usize)) {
    let Some(rest) = hay.get(from..) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY (every `unsafe` here): SSE2 is in the x86-64 baseline, so its
        // intrinsics run on every x86-64 CPU; the one that reads memory reads 16 bytes
        // of `chunk`, which holds exactly 16, with no alignment requirement.
        let pipe = unsafe { _mm_set1_epi8(b'|' as i8) };
        let mut chunks = rest.chunks_exact(16);
        let mut at = from;
        for chunk in &mut chunks {
            // One bit per byte of the chunk (the low 16 bits): set where it is a pipe.
            let mut mask = unsafe {
                let bytes = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, pipe)) as u32
            };
            while mask != 0 {
                f(at + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
            at += 16;
        }
        for (i, &b) in chunks.remainder().iter().enumerate() {
            if b == b'|' {
                f(at + i);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for p in memchr::memchr_iter(b'|', rest) {
        f(from + p);
    }
}

/// The range of `line[a..b].trim()` in `line`. ASCII bytes are trimmed directly; at a
/// non-ASCII character that may be white space (its first byte, or last byte, is one
/// that white space characters have) that one character is decoded and
/// `char::is_whitespace` decides, and trimming goes on past it if it is white space: the
/// result is exactly `str::trim`'s (a test checks the byte sets against every `char`,
/// a proptest the result against `str::trim`). `a` and `b` must be character boundaries
/// (else only ASCII white space is trimmed).
///
/// The usual cell, `| value |` — one space on each side of a value whose first and last
/// characters cannot be white space by those byte sets — is answered from its four
/// outer bytes, without a loop.
#[inline(always)]
fn trim_bytes(line: &str, a: usize, b: usize) -> Range<usize> {
    let bytes = line.as_bytes();
    if a + 2 < b
        && let (Some(&open), Some(&first), Some(&last), Some(&close)) = (
            bytes.get(a),
            bytes.get(a + 1),
            bytes.get(b - 2),
            bytes.get(b - 1),
        )
        && open == b' '
        && close == b' '
        && !may_start_with_space(first)
        && !may_end_with_space(last)
    {
        return a + 1..b - 1;
    }
    trim_bytes_loop(line, a, b)
}

/// Whether a character starting with byte `c` may be white space (ASCII or not).
#[inline(always)]
fn may_start_with_space(c: u8) -> bool {
    if c.is_ascii() {
        ascii_space(c)
    } else {
        may_start_space(c)
    }
}

/// Whether a character ending with byte `c` may be white space (ASCII or not).
#[inline(always)]
fn may_end_with_space(c: u8) -> bool {
    if c.is_ascii() {
        ascii_space(c)
    } else {
        may_end_space(c)
    }
}

/// [`trim_bytes`] for any cell: white space skipped byte by byte from both sides.
#[inline(never)]
fn trim_bytes_loop(line: &str, a: usize, b: usize) -> Range<usize> {
    let bytes = line.as_bytes();
    let (mut start, mut end) = (a, b);
    loop {
        while start < end && ascii_space(bytes[start]) {
            start += 1;
        }
        if start < end
            && may_start_space(bytes[start])
            && let Some(c) = line.get(start..end).and_then(|s| s.chars().next())
            && c.is_whitespace()
        {
            start += c.len_utf8();
            continue;
        }
        break;
    }
    loop {
        while end > start && ascii_space(bytes[end - 1]) {
            end -= 1;
        }
        if end > start
            && may_end_space(bytes[end - 1])
            && let Some(c) = line.get(start..end).and_then(|s| s.chars().next_back())
            && c.is_whitespace()
        {
            end -= c.len_utf8();
            continue;
        }
        break;
    }
    start..end
}

/// ASCII white space as `char::is_whitespace` has it (space, `\t` to `\r`).
fn ascii_space(c: u8) -> bool {
    c == b' ' || (b'\t'..=b'\r').contains(&c)
}

/// Whether a non-ASCII character starting with byte `c` may be white space: U+0085 and
/// U+00A0 start with 0xC2, U+1680 with 0xE1, U+2000–U+205F with 0xE2, U+3000 with 0xE3.
fn may_start_space(c: u8) -> bool {
    matches!(c, 0xc2 | 0xe1..=0xe3)
}

/// Whether a non-ASCII character ending with byte `c` may be white space (the last bytes
/// of U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
fn may_end_space(c: u8) -> bool {
    matches!(c, 0x80..=0x8a | 0x9f | 0xa0 | 0xa8 | 0xa9 | 0xaf)
}

/// The byte range of `s.trim()` in `s`, found without decoding characters while they
/// are ASCII (table cells mostly start and end with ASCII); at the first non-ASCII byte
/// on either side `str::trim_start` / `str::trim_end` take over, so Unicode white space
/// (U+3000, NBSP…) is trimmed exactly as `str::trim` does.
pub(crate) fn trim_bounds(s: &str) -> Range<usize> {
    let b = s.as_bytes();
    let mut start = 0;
    while start < b.len() && ascii_space(b[start]) {
        start += 1;
    }
    if start < b.len() && !b[start].is_ascii() {
        let rest = &s[start..];
        start += rest.len() - rest.trim_start().len();
    }
    let mut end = b.len();
    while end > start && ascii_space(b[end - 1]) {
        end -= 1;
    }
    if end > start && !b[end - 1].is_ascii() {
        end = start + s[start..end].trim_end().len();
    }
    start..end
}

/// Splits a table line into unescaped, trimmed cells (the outer pipes are not cells).
pub(crate) fn split_cells(line: &str) -> Vec<String> {
    cell_ranges(line, 0)
        .iter()
        .map(|r| unescape_cell(&line[r]))
        .collect()
}

/// Escapes a value for a table cell: `|` becomes `\|`, line breaks become `<br>`, and
/// the comment openers that would hide the rest of the file in Obsidian are written as
/// the entities they render as: `<!--` as `&lt;!--`, `%%` as `%&#37;`.
///
/// ```
/// use memory_core::markdown::{escape_cell, unescape_cell};
/// assert_eq!(escape_cell("a|b\nc"), "a\\|b<br>c");
/// assert_eq!(escape_cell("see <!-- and %%"), "see &lt;!-- and %&#37;");
/// assert_eq!(unescape_cell(&escape_cell("x | y\r\nz <!-- %%")), "x | y\nz <!-- %%");
/// ```
pub fn escape_cell(value: &str) -> String {
    if !needs_escape(value) {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '|' => out.push_str("\\|"),
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str("<br>");
            }
            '\n' => out.push_str("<br>"),
            _ => out.push(c),
        }
    }
    if out.contains("<!--") || out.contains("%%") {
        out = out.replace("<!--", "&lt;!--").replace("%%", "%&#37;");
    }
    out
}

/// Reverses [`escape_cell`]: `\|` is `|`, `<br>`, `<br/>` and `<br />` are line breaks,
/// `&lt;!--` is `<!--` and `%&#37;` is `%%` (what they render as).
///
/// ```
/// assert_eq!(memory_core::markdown::unescape_cell("a<br/>b \\| c &lt;!--"), "a\nb | c <!--");
/// ```
pub fn unescape_cell(raw: &str) -> String {
    if !raw.contains('\\') && !raw.contains('<') && !raw.contains('&') {
        return raw.to_string();
    }
    let mut out = raw.replace("\\|", "|");
    for br in ["<br />", "<br/>", "<br>"] {
        out = out.replace(br, "\n");
    }
    if out.contains('&') {
        out = out.replace("&lt;!--", "<!--").replace("%&#37;", "%%");
    }
    out
}

/// Renders one table row from raw values: `| a | b |`.
///
/// ```
/// assert_eq!(memory_core::markdown::render_row(&["a", "b|c"]), "| a | b\\|c |");
/// ```
pub fn render_row<S: AsRef<str>>(values: &[S]) -> String {
    let mut out = String::from("|");
    for value in values {
        out.push(' ');
        push_escaped(&mut out, value.as_ref().trim());
        out.push_str(" |");
    }
    out
}

/// Whether [`escape_cell`] changes `value`: only `|`, a line break, `<` (of `<!--`) and
/// `%` (of `%%`) are ever rewritten.
fn needs_escape(value: &str) -> bool {
    value
        .bytes()
        .any(|b| matches!(b, b'|' | b'\r' | b'\n' | b'<' | b'%'))
}

/// Appends `value` escaped as [`escape_cell`] escapes it, without a copy when nothing
/// in it needs escaping.
pub(crate) fn push_escaped(out: &mut String, value: &str) {
    if needs_escape(value) {
        out.push_str(&escape_cell(value));
    } else {
        out.push_str(value);
    }
}

impl Table {
    /// The edit that appends `row` (rendered, without terminator) after the table's last
    /// line. A table at the end of a file without a final newline keeps having none.
    ///
    /// ```
    /// use memory_core::markdown::{apply_edits, find_table};
    /// let text = "| A | B |\r\n|---|---|\r\n| 1 | 2 |";
    /// let table = find_table(text, &["A", "B"]).unwrap().unwrap();
    /// let out = apply_edits(text, vec![table.append("| 3 | 4 |")]);
    /// assert_eq!(out, "| A | B |\r\n|---|---|\r\n| 1 | 2 |\r\n| 3 | 4 |");
    /// ```
    pub fn append(&self, row: &str) -> Edit {
        let le = self.line_ending.as_str();
        let indent = &self.indent;
        // Pieces pushed, not `format!`: heal appends 10,000 rows to a new index.
        let mut replacement = String::with_capacity(le.len() + indent.len() + row.len());
        if self.last_line_terminated {
            replacement.push_str(indent);
            replacement.push_str(row);
            replacement.push_str(le);
        } else {
            replacement.push_str(le);
            replacement.push_str(indent);
            replacement.push_str(row);
        }
        Edit {
            range: self.insert_at..self.insert_at,
            replacement,
        }
    }

    /// The edit that replaces body row `index` with `row` (rendered, without terminator).
    ///
    /// ```
    /// use memory_core::markdown::{apply_edits, find_table};
    /// let text = "| A | B |\n|:-|-:|\n|  1   | 2 |\n| 5 | 6 |\n";
    /// let table = find_table(text, &["A", "B"]).unwrap().unwrap();
    /// let out = apply_edits(text, vec![table.replace(1, "| 7 | 8 |")]);
    /// assert_eq!(out, "| A | B |\n|:-|-:|\n|  1   | 2 |\n| 7 | 8 |\n");
    /// ```
    pub fn replace(&self, index: usize, row: &str) -> Edit {
        Edit {
            range: self.rows[index].content.clone(),
            replacement: format!("{}{row}", self.indent),
        }
    }

    /// The edit that removes body row `index` with its line terminator. The last line of
    /// a file without a final newline has none: its removal leaves the previous line's
    /// terminator, which [`without_new_final_newline`] takes away again.
    ///
    /// ```
    /// use memory_core::markdown::{apply_edits, find_table, without_new_final_newline};
    /// let text = "| A |\n|---|\n| 1 |\n| 2 |";
    /// let table = find_table(text, &["A"]).unwrap().unwrap();
    /// let out = apply_edits(text, vec![table.remove(0), table.remove(1)]);
    /// assert_eq!(without_new_final_newline(text, out), "| A |\n|---|");
    /// ```
    pub fn remove(&self, index: usize) -> Edit {
        let row = &self.rows[index];
        Edit {
            range: row.content.start..row.end,
            replacement: String::new(),
        }
    }
}

/// `edited` without a final line terminator when `original` had none (and was not
/// empty): removing a file's unterminated last line leaves the terminator before it.
///
/// ```
/// use memory_core::markdown::without_new_final_newline;
/// assert_eq!(without_new_final_newline("a\r\nb", "a\r\n".to_string()), "a");
/// assert_eq!(without_new_final_newline("a\n", "a\n".to_string()), "a\n");
/// ```
pub fn without_new_final_newline(original: &str, mut edited: String) -> String {
    if !original.is_empty() && !original.ends_with('\n') && edited.ends_with('\n') {
        edited.pop();
        if edited.ends_with('\r') {
            edited.pop();
        }
    }
    edited
}

/// Applies edits to `text` (in any order) in one pass and returns the new text. Edits
/// at the same position apply in the order given; an edit overlapping an earlier one is
/// clipped to the text that is left (edits are meant not to overlap; this only keeps a
/// mistake from panicking).
///
/// ```
/// use memory_core::markdown::{Edit, apply_edits};
/// let edits = vec![
///     Edit { range: 2..3, replacement: "C".into() },
///     Edit { range: 0..1, replacement: "A".into() },
///     Edit { range: 3..3, replacement: "1".into() },
///     Edit { range: 3..3, replacement: "2".into() },
/// ];
/// assert_eq!(apply_edits("abc", edits), "AbC12");
/// ```
pub fn apply_edits(text: &str, edits: Vec<Edit>) -> String {
    let mut edits: Vec<(usize, Edit)> = edits.into_iter().enumerate().collect();
    edits.sort_by_key(|(i, e)| (e.range.start, e.range.end, *i));
    let added: usize = edits.iter().map(|(_, e)| e.replacement.len()).sum();
    let mut out = String::with_capacity(text.len() + added);
    let mut at = 0;
    for (_, edit) in edits {
        let start = edit.range.start.clamp(at, text.len());
        let end = edit.range.end.clamp(start, text.len());
        if !(text.is_char_boundary(start) && text.is_char_boundary(end)) {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&edit.replacement);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte sets `trim_bytes` trusts cover every non-ASCII white space character.
    #[test]
    fn white_space_bytes_are_all_known() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if c.is_ascii() {
                assert_eq!(c.is_whitespace(), ascii_space(c as u8), "{c:?}");
            } else if c.is_whitespace() {
                let mut buf = [0; 4];
                let bytes = c.encode_utf8(&mut buf).as_bytes();
                assert!(may_start_space(bytes[0]), "{c:?}");
                assert!(may_end_space(bytes[bytes.len() - 1]), "{c:?}");
            }
        }
    }

    /// The escape as it was: every character looked at, the comment openers after.
    fn escape_reference(value: &str) -> String {
        let mut out = String::with_capacity(value.len());
        let mut chars = value.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '|' => out.push_str("\\|"),
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    out.push_str("<br>");
                }
                '\n' => out.push_str("<br>"),
                _ => out.push(c),
            }
        }
        out.replace("<!--", "&lt;!--").replace("%%", "%&#37;")
    }

    proptest::proptest! {
        /// Escaping without a copy when nothing needs it is the escape as it was, alone
        /// and inside a rendered row.
        #[test]
        fn escape_fast_path_is_the_escape(
            values in proptest::collection::vec("[ a登|\\\\\r\n<!\\-%&#;b]{0,10}|\\PC{0,10}", 0..7),
        ) {
            let mut row = String::from("|");
            for v in &values {
                proptest::prop_assert_eq!(escape_cell(v), escape_reference(v));
                row.push(' ');
                row.push_str(&escape_reference(v.trim()));
                row.push_str(" |");
            }
            proptest::prop_assert_eq!(render_row(&values), row);
        }

        /// The byte-level cell trim agrees with `str::trim` on any part of a line.
        #[test]
        fn trim_bytes_is_str_trim(
            s in "[ \\t\\r\\n\\u{b}\\u{c}\\u{85}\\u{a0}\\u{3000}\\u{2028}\\u{205f}\\u{200b}\\u{1680}\\u{2003}\\u{3002}\\u{2029}a登À|]{0,12}|\\PC{0,12}",
            cut in (0usize..13, 0usize..13),
        ) {
            let mut bounds: Vec<usize> = (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect();
            bounds.dedup();
            let a = bounds[cut.0 % bounds.len()];
            let b = bounds[cut.1 % bounds.len()].max(a);
            let r = trim_bytes(&s, a, b);
            proptest::prop_assert_eq!(&s[r], s[a..b].trim());
        }

        /// The fast trim agrees with `str::trim` on every kind of white space.
        #[test]
        fn trim_bounds_is_str_trim(
            s in "[ \t\r\n\u{b}\u{c}\u{85}\u{a0}\u{3000}\u{2028}\u{200b}a登|]{0,12}|\\PC{0,12}"
        ) {
            let r = trim_bounds(&s);
            proptest::prop_assert_eq!(&s[r], s.trim());
        }

        /// The cell splitter agrees with a plain reading of the GFM rule, char by char.
        #[test]
        fn cell_ranges_agree_with_a_plain_splitter(
            line in "[ \t|\\\\a登\u{3000}\u{a0}-]{0,24}|[ |\\\\a登-]{0,80}|\\PC{0,24}",
            base in 0usize..100,
        ) {
            let ours: Vec<&str> = cell_ranges(&line, base)
                .iter()
                .map(|r| &line[r.start - base..r.end - base])
                .collect();
            proptest::prop_assert_eq!(ours, plain_cells(&line), "{:?}", line);
        }
    }

    proptest::proptest! {
        /// The pipe finder gives `memchr`'s positions, at every offset into every
        /// chunk of sixteen bytes and in the remainder.
        #[test]
        fn pipes_are_found_as_memchr_finds_them(
            hay in proptest::collection::vec(proptest::sample::select(vec![b'|', b'a', b'\\', 0x80, 0xfc, b' ']), 0..80),
            from in 0usize..90,
        ) {
            let mut ours = Vec::new();
            for_each_pipe(&hay, from, |p| ours.push(p));
            let expected: Vec<usize> = hay
                .get(from..)
                .map(|rest| memchr::memchr_iter(b'|', rest).map(|p| from + p).collect())
                .unwrap_or_default();
            proptest::prop_assert_eq!(ours, expected);
        }
    }

    /// The cell rule written plainly, byte by byte: trim the line; a pipe not preceded
    /// by a backslash separates cells; a pipe first on the line opens the row and one
    /// last on it (if not the same pipe) closes it; each cell is trimmed.
    fn plain_cells(line: &str) -> Vec<&str> {
        let t = line.trim();
        let b = t.as_bytes();
        let unescaped_pipe = |i: usize| b[i] == b'|' && (i == 0 || b[i - 1] != b'\\');
        let from = usize::from(b.first() == Some(&b'|'));
        let mut cells = Vec::new();
        let mut start = from;
        for i in from..b.len() {
            if unescaped_pipe(i) {
                cells.push(&t[start..i]);
                start = i + 1;
            }
        }
        if !(b.len() > from && unescaped_pipe(b.len() - 1)) {
            cells.push(&t[start..]);
        }
        cells.into_iter().map(str::trim).collect()
    }

    #[test]
    fn cells_split_on_unescaped_pipes_only() {
        let cases: [(&str, &[&str]); 12] = [
            ("| a | b |", &["a", "b"]),
            ("| a | b", &["a", "b"]),
            ("|a|b|", &["a", "b"]),
            (
                "| 未設定 | sessionStart 自動註冊 |  |",
                &["未設定", "sessionStart 自動註冊", ""],
            ),
            ("|", &[""]),
            ("||", &[""]),
            ("| | |", &["", ""]),
            ("a | b |", &["a", "b"]),
            ("| x<br>y | z |", &["x\ny", "z"]),
            ("| a \\| b | c |", &["a | b", "c"]),
            ("| C:\\ | d |", &["C:\\", "d"]),
            ("  | 登入 \\| auth |  ", &["登入 | auth"]),
        ];
        for (line, expected) in cases {
            assert_eq!(split_cells(line), expected, "{line:?}");
        }
    }

    #[test]
    fn overlapping_or_out_of_range_edits_never_panic() {
        let edit = |range: std::ops::Range<usize>, r: &str| Edit {
            range,
            replacement: r.to_string(),
        };
        assert_eq!(
            apply_edits("0123456789", vec![edit(2..6, "Q"), edit(4..8, "R")]),
            "01QR89"
        );
        assert_eq!(apply_edits("0123", vec![edit(2..9, "")]), "01");
        assert_eq!(apply_edits("登入", vec![edit(1..2, "x")]), "登入");
    }

    #[test]
    fn removing_the_last_rows_of_a_file_without_final_newline() {
        for text in [
            "| A |\n|---|\n| 1 |\n| 2 |\n| 3 |",
            "\u{feff}| A |\r\n|---|\r\n| 1 |\r\n| 2 |\r\n| 3 |",
            "| A |\r\n|---|\n| 1 |\n| 2 |\n| 3 |",
        ] {
            let table = find_table(text, &["A"]).unwrap().unwrap();
            let both = apply_edits(text, vec![table.remove(1), table.remove(2)]);
            let both = without_new_final_newline(text, both);
            assert!(both.ends_with("| 1 |"), "{both:?}");
            let last = without_new_final_newline(text, apply_edits(text, vec![table.remove(2)]));
            assert!(
                last.ends_with("| 1 |\n| 2 |") || last.ends_with("| 1 |\r\n| 2 |"),
                "{last:?}"
            );
            let replaced = apply_edits(text, vec![table.replace(1, "| x |"), table.remove(2)]);
            assert!(without_new_final_newline(text, replaced).ends_with("| x |"));
        }
    }

    const HEADER: [&str; 3] = ["Session ID", "Topic", "Status"];

    #[test]
    fn header_with_other_columns_is_an_issue() {
        let text = "| Session ID | Topic |\n|---|---|\n";
        let issue = find_table(text, &HEADER).unwrap_err();
        assert_eq!(issue.line, 1);
    }

    #[test]
    fn missing_cells_name_the_line() {
        let text = "intro\n\n| Session ID | Topic | Status |\n|---|---|---|\n| a | b | idle |\n| c | d |\n";
        let issue = find_table(text, &HEADER).unwrap_err();
        assert_eq!(issue.line, 6);
    }

    #[test]
    fn tables_inside_code_fences_are_ignored() {
        let text = "```markdown\n| Session ID | Topic | Status |\n|---|---|---|\n```\n\n| Session ID | Topic | Status |\n|---|---|---|\n| x | y | idle |\n";
        let table = find_table(text, &HEADER).unwrap().unwrap();
        assert_eq!(table.header_line, 6);
        assert_eq!(table.rows.len(), 1);
    }

    #[test]
    fn bom_and_crlf_survive_an_append() {
        let text = "\u{feff}| Session ID | Topic | Status |\r\n|---|---|---|\r\n\r\nafter\r\n";
        let table = find_table(text, &HEADER).unwrap().unwrap();
        let out = apply_edits(text, vec![table.append("| a | b | idle |")]);
        assert_eq!(
            out,
            "\u{feff}| Session ID | Topic | Status |\r\n|---|---|---|\r\n| a | b | idle |\r\n\r\nafter\r\n"
        );
    }

    #[test]
    fn escaped_pipes_and_backslashes_round_trip() {
        for value in ["a|b", "a\\|b", "C:\\", "x\\", "<br>", "multi\nline"] {
            let row = render_row(&[value, "t", "s"]);
            let text = format!("| Session ID | Topic | Status |\n|---|---|---|\n{row}\n");
            let table = find_table(&text, &HEADER).unwrap().unwrap();
            let expected = if value == "<br>" {
                "\n".to_string()
            } else {
                value.to_string()
            };
            assert_eq!(
                table.rows[0].cell(&text, 0),
                expected,
                "value {value:?} rendered as {row}"
            );
        }
    }

    #[test]
    fn overlong_line_is_an_issue() {
        let text = format!(
            "| Session ID | Topic | Status |\n|---|---|---|\n| {} | b | c |\n",
            "x".repeat(MAX_LINE_BYTES)
        );
        assert_eq!(find_table(&text, &HEADER).unwrap_err().line, 3);
    }
}
