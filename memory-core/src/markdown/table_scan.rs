//! Finding a GFM pipe table by its header, exactly as GFM recognises tables (spec
//! "Tables (extension)"): a header row, a delimiter row with the same number of cells, then
//! body rows — with or without leading and trailing pipes, and without any pipe at all —
//! until a blank line or the start of another block. Tables Obsidian does not render as
//! tables (in code, blockquotes and callouts, comments, HTML blocks) are not found; a table
//! that resembles the wanted one but cannot be read as it is an error naming its line.

use std::ops::Range;

use super::blocks::{
    BlockLine, BlockStart, Blocks, Classifier, Context, block_start, classify, indent, is_blank,
};
use super::table::{
    MAX_LINE_BYTES, ParseIssue, Table, TableEnd, TableRow, cell_ranges, split_cells,
};
use super::{LineEnding, unescape_cell};

/// A table found by its header, and the pipe lines outside every table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableScan {
    /// The table whose header is the wanted one, if the document has it.
    pub table: Option<Table>,
    /// Lines holding an unescaped `|` that belong to no table GFM recognises and stand in
    /// text or indented code (not in fences, quotes, comments or HTML), with their cells —
    /// before or after the table. A reader decides which of them look like lost rows.
    /// Lazy continuation lines of a quote or list item, lines of an HTML block and lines
    /// hidden by a fence or comment that is never closed are included: they are not rows.
    pub loose: Vec<TableRow>,
    /// Rows of other tables written with as many cells as the wanted header has, where
    /// their own table has another number of columns (GFM cuts them to that width): rows
    /// of the wanted table cut off from it by a blank line and a table of someone else's.
    /// A reader decides which of them look like lost rows.
    pub misplaced: Vec<TableRow>,
    /// A fence, comment or HTML block opened at this line and never closed: it hides the
    /// rest of the document.
    pub unclosed: Option<(usize, Context)>,
}

/// Compares header cells as people write them: case, inner spacing and a `**…**`, `__…__`,
/// `*…*`, `_…_` or `` `…` `` wrapper ignored (`Session ID`, `session  id`, `**SESSION ID**`).
///
/// ```
/// use memory_core::markdown::header_matches;
/// assert!(header_matches("session  ID", "Session ID"));
/// assert!(header_matches("**Session ID**", "Session ID"));
/// assert!(header_matches("Referenced by", "Referenced By"));
/// assert!(!header_matches("SessionID", "Session ID"));
/// ```
pub fn header_matches(cell: &str, expected: &str) -> bool {
    // An ASCII letter or digit first is not white space and no emphasis wrapper, so it
    // is the first byte of the cell's first word: a body row's id (checked on every row)
    // is refused here, before the cell is trimmed.
    if let (Some(&c), Some(&e)) = (
        cell.as_bytes().first(),
        expected.trim_start().as_bytes().first(),
    ) && c.is_ascii_alphanumeric()
        && e.is_ascii()
        && !c.eq_ignore_ascii_case(&e)
    {
        return false;
    }
    let cell = without_emphasis(cell.trim());
    // The first words' first characters, when both are ASCII, must be equal ignoring
    // case (an ASCII character lowercases to one ASCII character, and white space is
    // trimmed from `cell`): a body row's id (checked on every row) is refused at its
    // first byte, without looking at the rest of it or splitting it into words.
    if let (Some(&c), Some(&e)) = (
        cell.as_bytes().first(),
        expected.trim_start().as_bytes().first(),
    ) && c.is_ascii()
        && e.is_ascii()
        && !c.eq_ignore_ascii_case(&e)
    {
        return false;
    }
    if cell.is_ascii() && expected.is_ascii() {
        return ascii_words_match(cell.as_bytes(), expected.as_bytes());
    }
    let mut a = cell.split_whitespace();
    let mut b = expected.split_whitespace();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if same_word(x, y) => {}
            _ => return false,
        }
    }
}

/// For ASCII text, the word-by-word comparison of [`header_matches`] in one pass over
/// the bytes: words split at white space (`char::is_whitespace`, which in ASCII is
/// space and `\t` to `\r`), compared ignoring case. A body row's first cell (checked
/// against the header on every row) is refused at its first byte.
fn ascii_words_match(a: &[u8], b: &[u8]) -> bool {
    let space = |c: u8| c == b' ' || (b'\t'..=b'\r').contains(&c);
    let (mut i, mut j) = (0, 0);
    loop {
        while i < a.len() && space(a[i]) {
            i += 1;
        }
        while j < b.len() && space(b[j]) {
            j += 1;
        }
        match (i == a.len(), j == b.len()) {
            (true, true) => return true,
            (false, false) => {}
            _ => return false,
        }
        while i < a.len() && j < b.len() && !space(a[i]) && !space(b[j]) {
            if !a[i].eq_ignore_ascii_case(&b[j]) {
                return false;
            }
            i += 1;
            j += 1;
        }
        let a_ends = i == a.len() || space(a[i]);
        let b_ends = j == b.len() || space(b[j]);
        if !(a_ends && b_ends) {
            return false;
        }
    }
}

/// Whether two words are equal lowercased; ASCII words (every row's first cell checked
/// against the header) are compared without allocating.
fn same_word(x: &str, y: &str) -> bool {
    if x.is_ascii() && y.is_ascii() {
        x.eq_ignore_ascii_case(y)
    } else if x.contains('Σ') || y.contains('Σ') {
        // `str::to_lowercase` lowers a final capital sigma to `ς`, not `σ`.
        x.to_lowercase() == y.to_lowercase()
    } else {
        // Char by char, as `str::to_lowercase` lowers them, stopping at the first
        // difference (an id's first character already differs from the header's).
        x.chars()
            .flat_map(char::to_lowercase)
            .eq(y.chars().flat_map(char::to_lowercase))
    }
}

/// Finds the table whose header is `header` and reads its structure: body rows are
/// reported with whatever cells they have (check their number yourself, or use
/// [`find_table`]).
///
/// A [`ParseIssue`] names the line when the document holds something that resembles the
/// table (a line whose first cell is `header[0]`) but cannot be read as it: other columns,
/// a missing or mismatched delimiter row, a second such header, or the only such table
/// standing in a blockquote, callout, comment, HTML block or indented code, where it is
/// not rendered as a table. A copy inside a fenced code block is documentation and is
/// ignored. No such table at all is `table: None`.
///
/// ```
/// use memory_core::markdown::scan_table;
/// let text = "Session ID | Topic\n:--|--\na | b\nno pipe here\n\n| c | d |\n";
/// let scan = scan_table(text, &["Session ID", "Topic"]).unwrap();
/// let table = scan.table.unwrap();
/// assert_eq!(table.rows.len(), 2);
/// assert_eq!(table.rows[1].values(text), ["no pipe here"]);
/// assert_eq!(table.ended_by.unwrap().line, 5);
/// assert_eq!(scan.loose[0].line, 6);
///
/// let quoted = "> [!note]\n> | Session ID | Topic |\n> |---|---|\n";
/// assert_eq!(scan_table(quoted, &["Session ID", "Topic"]).unwrap_err().line, 2);
/// ```
pub fn scan_table(text: &str, header: &[&str]) -> Result<TableScan, ParseIssue> {
    let mut stream = Stream::new(text);
    let line_ending = LineEnding::detect(text);
    let first = header.first().copied().unwrap_or_default();
    let mut tables: Vec<Table> = Vec::new();
    // The byte range of each table's header line.
    let mut headers: Vec<Range<usize>> = Vec::new();
    let mut loose: Vec<TableRow> = Vec::new();
    // The first line, in a context where it is not rendered, that starts like the header.
    let mut hidden: Option<(usize, Context)> = None;
    // The lines over the length limit: an error up to the end of the table (and anywhere
    // when there is no table); prose after the table may be long. A body row over the
    // limit is the caller's to judge (a lenient reader reads past it).
    let mut overlong: Vec<usize> = Vec::new();
    // What the lines of the fence or comment open now would add if it is never closed
    // (known only at the end of the document): the first line hidden like the header
    // and the pipe lines. Cleared at the first line after it closes.
    let mut region_hidden: Option<(usize, Context)> = None;
    let mut region_loose: Vec<TableRow> = Vec::new();
    while let Some((l, inside)) = stream.next() {
        if check_length(&l).is_err() {
            overlong.push(l.line.number);
        }
        if !inside {
            region_hidden = None;
            region_loose.clear();
        }
        match l.context {
            Context::Text if can_start_table(&l) => {
                let header_range = l.line.content.clone();
                match table_at(l, &mut stream, line_ending)? {
                    Ok(table) => {
                        tables.push(table);
                        headers.push(header_range);
                    }
                    Err(l) => {
                        if has_pipe(l.line.text) {
                            loose.push(row_of(&l));
                        }
                    }
                }
            }
            Context::Text | Context::Indented => {
                if has_pipe(l.line.text) {
                    loose.push(row_of(&l));
                }
            }
            // A fence line is hidden, or reported as loose, only when the fence is never
            // closed; so is a comment line that is not hidden like the header.
            Context::Fence if inside => {
                if first_cell_of_hidden(l.line.text, first) {
                    region_hidden.get_or_insert((l.line.number, Context::Fence));
                } else if has_pipe(l.line.text) {
                    region_loose.push(row_of(&l));
                }
            }
            Context::Fence => {}
            other => {
                if first_cell_of_hidden(l.line.text, first) {
                    hidden.get_or_insert((l.line.number, other));
                } else if (l.lazy || other == Context::Html) && has_pipe(l.line.text) {
                    // Rendered as paragraph or raw text: not rows, and not to be
                    // dropped silently.
                    loose.push(row_of(&l));
                } else if inside && has_pipe(l.line.text) {
                    region_loose.push(row_of(&l));
                }
            }
        }
    }
    let unclosed = stream.blocks.unclosed();
    if unclosed.is_some() {
        // The region open at the end hides every line after its opening line.
        if hidden.is_none() {
            hidden = region_hidden;
        }
        loose.append(&mut region_loose);
    }

    // `header_matches`'s own first test, without the call: a cell starting with an ASCII
    // letter or digit other than the header's first byte (every body row's id against
    // `Session ID`) does not match.
    let first_byte = first.trim_start().as_bytes().first().copied();
    let first_cell_is = |text: &str, row: &TableRow| {
        let cell = row.raw_cell(text, 0);
        if let (Some(&c), Some(e)) = (cell.as_bytes().first(), first_byte)
            && c.is_ascii_alphanumeric()
            && e.is_ascii()
            && !c.eq_ignore_ascii_case(&e)
        {
            return false;
        }
        header_matches(cell, first)
    };
    let mut table_index = None;
    // (line, the table it heads or Some(usize::MAX) for a row repeating the header, or
    // None for a loose line), with the line's byte range.
    let mut resembling: Vec<(usize, Option<usize>, Range<usize>)> = Vec::new();
    for (t, (table, range)) in tables.iter().zip(&headers).enumerate() {
        if header_cell_matches(text, &text[range.clone()], range.start, header) {
            resembling.push((table.header_line, Some(t), range.clone()));
        }
    }
    for row in &loose {
        if first_cell_is(text, row) {
            resembling.push((row.line, None, row.content.clone()));
        }
    }
    let resembling_tables = resembling.len();
    for (t, table) in tables.iter().enumerate() {
        if resembling[..resembling_tables]
            .iter()
            .any(|r| r.1 == Some(t))
        {
            // A row of the table that repeats the header (two tables run together).
            for row in table.rows.iter().filter(|r| first_cell_is(text, r)) {
                resembling.push((row.line, Some(usize::MAX), row.content.clone()));
            }
        }
    }
    resembling.sort_unstable_by_key(|r| (r.0, r.1));
    match resembling.first() {
        None => {
            if let Some((line, context)) = hidden {
                return Err(ParseIssue {
                    line,
                    message: format!(
                        "the table with header {first:?} stands in {}, which is not rendered as a table; move it out (as plain lines) so it can be read",
                        context.describe()
                    ),
                });
            }
        }
        Some((line, None, range))
            if block_start(&text[range.clone()]) == Some(BlockStart::Indented) =>
        {
            return Err(ParseIssue {
                line: *line,
                message: format!(
                    "the table with header {first:?} is indented by 4 columns or more, which makes it a code block; remove the indentation so it can be read"
                ),
            });
        }
        Some((line, None, range)) => {
            let line = *line;
            let cells = split_cells(&text[range.clone()]);
            let same = cells.len() == header.len()
                && cells.iter().zip(header).all(|(c, h)| header_matches(c, h));
            return Err(if same {
                ParseIssue {
                    line: line + 1,
                    message: format!(
                        "expected a delimiter row of {} columns after the table header at line {line}",
                        header.len()
                    ),
                }
            } else {
                ParseIssue {
                    line,
                    message: format!(
                        "table header has columns {cells:?}, expected {header:?} (with a delimiter row of as many columns)"
                    ),
                }
            });
        }
        Some((line, Some(t), range)) => {
            let (line, t) = (*line, *t);
            let cells = split_cells(&text[range.clone()]);
            let same = cells.len() == header.len()
                && cells.iter().zip(header).all(|(c, h)| header_matches(c, h));
            if !same {
                return Err(ParseIssue {
                    line,
                    message: format!("table header has columns {cells:?}, expected {header:?}"),
                });
            }
            if let Some(&(second, _, _)) = resembling.get(1) {
                return Err(ParseIssue {
                    line: second,
                    message: format!(
                        "a second {first:?} header; the table starting at line {line} is the one read: merge the two into one table"
                    ),
                });
            }
            table_index = Some(t);
        }
    }
    let table = table_index.map(|t| {
        headers.swap_remove(t);
        tables.swap_remove(t)
    });
    let misplaced: Vec<TableRow> = tables
        .iter()
        .zip(&headers)
        .filter(|(_, h)| cell_ranges(&text[(*h).clone()], h.start).len() != header.len())
        .flat_map(|(t, _)| t.rows.iter().filter(|r| r.cells.len() == header.len()))
        .cloned()
        .collect();
    let table_end = table.as_ref().map_or(usize::MAX, |t| {
        t.rows.last().map_or(t.delimiter_line, |r| r.line)
    });
    let is_row = |n: usize| table.iter().any(|t| t.rows.iter().any(|r| r.line == n));
    let loose_overlong = loose
        .iter()
        .find(|r| r.content.len() > MAX_LINE_BYTES)
        .map(|r| r.line);
    let other_overlong = overlong
        .iter()
        .copied()
        .find(|&n| n <= table_end && !is_row(n));
    if let Some(line) = [other_overlong, loose_overlong].into_iter().flatten().min() {
        return Err(ParseIssue {
            line,
            message: format!("line is longer than {MAX_LINE_BYTES} bytes"),
        });
    }
    Ok(TableScan {
        table,
        loose,
        misplaced,
        unclosed,
    })
}

/// The classified lines of a document with one line of look-ahead: a table's delimiter
/// row and the line that ends a table are looked at before they are taken.
struct Stream<'a> {
    blocks: Classifier<'a>,
    peeked: Option<(BlockLine<'a>, bool)>,
}

impl<'a> Stream<'a> {
    fn new(text: &'a str) -> Self {
        Stream {
            blocks: Classifier::new(text),
            peeked: None,
        }
    }

    /// The next line, and whether it stands in a region opened on an earlier line.
    #[inline]
    fn next(&mut self) -> Option<(BlockLine<'a>, bool)> {
        self.peeked.take().or_else(|| self.blocks.next_in_region())
    }

    #[inline]
    fn peek(&mut self) -> Option<&BlockLine<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.blocks.next_in_region();
        }
        self.peeked.as_ref().map(|(l, _)| l)
    }
}

/// [`scan_table`], then every body row must have exactly `header.len()` cells: for
/// tables whose rows are read by position (a snapshot's `Field | Value`).
///
/// ```
/// use memory_core::markdown::find_table;
/// let text = "# Notes\n\n| Field | Value |\n|---|---|\n| Topic | a \\| b |\n\nmore prose\n";
/// let table = find_table(text, &["Field", "Value"]).unwrap().unwrap();
/// assert_eq!(table.rows[0].values(text), vec!["Topic", "a | b"]);
/// assert_eq!(table.rows[0].line, 5);
/// assert_eq!(find_table("| Field | Value |\n|--|--|\n| x |\n", &["Field", "Value"]).unwrap_err().line, 3);
/// ```
pub fn find_table(text: &str, header: &[&str]) -> Result<Option<Table>, ParseIssue> {
    let scan = scan_table(text, header)?;
    if let Some(table) = &scan.table {
        for row in &table.rows {
            if row.content.len() > MAX_LINE_BYTES {
                return Err(ParseIssue {
                    line: row.line,
                    message: format!("line is longer than {MAX_LINE_BYTES} bytes"),
                });
            }
            if row.cells.len() != header.len() {
                return Err(ParseIssue {
                    line: row.line,
                    message: format!(
                        "table row has {} cells, expected {}",
                        row.cells.len(),
                        header.len()
                    ),
                });
            }
        }
    }
    Ok(scan.table)
}

fn check_length(l: &BlockLine<'_>) -> Result<(), ParseIssue> {
    if l.line.text.len() > MAX_LINE_BYTES && l.context != Context::Fence {
        return Err(ParseIssue {
            line: l.line.number,
            message: format!("line is longer than {MAX_LINE_BYTES} bytes"),
        });
    }
    Ok(())
}

/// Whether a line can be a table's header row: plain text, not indented code and not
/// the start of another block.
fn can_start_table(l: &BlockLine<'_>) -> bool {
    !is_blank(l.line.text) && block_start(l.line.text).is_none()
}

/// Whether a line holds a `|` that is not escaped.
fn has_pipe(t: &str) -> bool {
    let bytes = t.as_bytes();
    let mut i = 0;
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'|') {
        let at = i + at;
        let backslashes = bytes[..at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return true;
        }
        i = at + 1;
    }
    false
}

fn row_of(l: &BlockLine<'_>) -> TableRow {
    TableRow {
        line: l.line.number,
        content: l.line.content.clone(),
        end: l.line.end,
        cells: cell_ranges(l.line.text, l.line.content.start),
    }
}

/// Whether a table's header resembles the wanted one: its first cell is `header[0]`,
/// also written another way (`SessionID`, `Session_ID`, `session-id`), or it holds at
/// least two and at least half of the wanted column names in some order. Such a table is
/// read as the wanted one or refused, never passed over for a second table.
fn header_cell_matches(text: &str, line: &str, start: usize, header: &[&str]) -> bool {
    let cells: Vec<String> = cell_ranges(line, start)
        .iter()
        .filter_map(|r| text.get(r))
        .map(|c| letters_and_digits(without_emphasis(unescape_cell(c).trim())))
        .collect();
    let wanted: Vec<String> = header.iter().map(|h| letters_and_digits(h)).collect();
    let present = wanted.iter().filter(|w| cells.contains(w)).count();
    cells.first() == wanted.first() || (present >= 2 && present * 2 >= wanted.len())
}

/// A cell without one `**…**`, `__…__`, `*…*`, `_…_` or `` `…` `` wrapper (hand-written
/// emphasis of header and status cells).
pub(crate) fn without_emphasis(cell: &str) -> &str {
    for wrapper in ["**", "__", "*", "_", "`"] {
        if let Some(inner) = cell
            .strip_prefix(wrapper)
            .and_then(|c| c.strip_suffix(wrapper))
            .filter(|inner| !inner.trim().is_empty())
        {
            return inner.trim();
        }
    }
    cell
}

/// The letters and digits of a header cell, lowercased: how alike two spellings are.
fn letters_and_digits(cell: &str) -> String {
    cell.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a line that is not rendered as text (quoted, commented…) starts like the
/// header: quote markers and comment openers are stripped first.
fn first_cell_of_hidden(t: &str, first: &str) -> bool {
    let mut rest = t.trim_start();
    loop {
        let next = ["> ", ">", "%%", "<!--", "- ", "* ", "+ "]
            .iter()
            .find_map(|marker| rest.strip_prefix(marker));
        match next {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    if !has_pipe(rest) {
        return false;
    }
    split_cells(rest)
        .first()
        .is_some_and(|c| header_matches(c, first))
}

/// The GFM delimiter row's cell count, if `t` is one: cells of `-` with optional colons,
/// separated by pipes (at least one pipe: a lone `---` is a setext underline).
fn delimiter_cells(t: &str) -> Option<usize> {
    let (columns, rest) = indent(t);
    if columns >= 4 || !rest.contains('|') || !rest.contains('-') {
        return None;
    }
    if !rest
        .bytes()
        .all(|b| matches!(b, b'|' | b':' | b'-' | b' ' | b'\t'))
    {
        return None;
    }
    let cells = split_cells(rest);
    cells
        .iter()
        .all(|c| {
            let inner = c.strip_prefix(':').unwrap_or(c);
            let inner = inner.strip_suffix(':').unwrap_or(inner);
            !inner.is_empty() && inner.bytes().all(|b| b == b'-')
        })
        .then_some(cells.len())
}

/// Why line `l`, standing after a table's last line, ends the table (GFM: "the table is
/// broken at the first empty line, or beginning of another block-level structure", and
/// for Obsidian a line in a comment, quote or HTML block); `None` when it is a body row.
fn ends_table(l: &BlockLine<'_>) -> Option<&'static str> {
    if l.context != Context::Text && l.context != Context::Indented {
        Some(l.context.describe())
    } else if is_blank(l.line.text) {
        Some("a blank line")
    } else {
        block_start(l.line.text).map(|s| s.describe())
    }
}

/// Reads the text after `table` — lines appended to a document that [`scan_table`] found
/// `table` in — as further body rows, exactly as a scan of the whole new text would, and
/// adds them to `table`; returns `false`, changing nothing, where that cannot be known
/// from the appended lines alone (the caller then scans the whole text).
///
/// The appended lines are classified on their own, by the same [`classify`] and the same
/// end-of-table rule as in a whole scan. That gives the contexts a whole scan gives them
/// when the table stands at the top level (its header not indented: no list item or
/// quote holds it), runs to the end of the old text (`ended_by` is `None` and
/// `insert_at` is the old text's length) and the old text leaves no fence, comment or
/// HTML block open (`old_unclosed`): the classifier's state after such a table's last row
/// is the state it starts in (nothing open, no lazy container; a paragraph flag that only
/// turns indented code into text, which a table reads alike). The appended lines must all
/// be rows, open nothing themselves and not repeat the header's first cell.
pub(crate) fn continue_table(
    table: &mut Table,
    text: &str,
    old_unclosed: bool,
    header: &[&str],
) -> bool {
    let mut from = table.insert_at;
    if old_unclosed
        || table.ended_by.is_some()
        || !table.indent.is_empty()
        || from > text.len()
        || !text.is_char_boundary(from)
    {
        return false;
    }
    // An old last line without a terminator gets one first (as `Table::append` writes
    // it); a lone `\r` before it would read differently once terminated.
    let mut terminated_last = None;
    if !table.last_line_terminated {
        let ending = table.line_ending.as_str();
        if text[..from].ends_with('\r') || !text[from..].starts_with(ending) {
            return false;
        }
        from += ending.len();
        terminated_last = Some(from);
    }
    // A first line starting otherwise (a byte-order mark, say) would be classified as
    // the first line of a document, not as a line after the table.
    if !text[from..].starts_with('|') {
        return false;
    }
    let Blocks { lines, unclosed } = classify(&text[from..]);
    if unclosed.is_some() || lines.is_empty() {
        return false;
    }
    let first = header.first().copied().unwrap_or_default();
    let base_line = table.rows.last().map_or(table.delimiter_line, |r| r.line);
    let mut rows = Vec::with_capacity(lines.len());
    for l in &lines {
        if ends_table(l).is_some() {
            return false;
        }
        let mut row = row_of(l);
        row.line += base_line;
        row.content = row.content.start + from..row.content.end + from;
        row.end += from;
        row.cells = row.cells.shifted(from);
        if header_matches(row.raw_cell(text, 0), first) {
            return false;
        }
        rows.push(row);
    }
    if let (Some(end), Some(last)) = (terminated_last, table.rows.last_mut()) {
        last.end = end;
    }
    if let Some(last) = rows.last() {
        table.insert_at = last.end;
        table.last_line_terminated = last.end > last.content.end;
    }
    table.rows.extend(rows);
    true
}

/// The table whose header row is `header`, if the next line is a matching delimiter row
/// (its rows are then taken from `stream`, up to the line that ends the table);
/// otherwise the header line is given back.
#[allow(clippy::type_complexity)]
fn table_at<'a>(
    header: BlockLine<'a>,
    stream: &mut Stream<'a>,
    line_ending: LineEnding,
) -> Result<Result<Table, BlockLine<'a>>, ParseIssue> {
    let Some(delimiter) = stream.peek() else {
        return Ok(Err(header));
    };
    if delimiter.context != Context::Text {
        return Ok(Err(header));
    }
    let Some(count) = delimiter_cells(delimiter.line.text) else {
        return Ok(Err(header));
    };
    if split_cells(header.line.text).len() != count {
        return Ok(Err(header));
    }
    let Some((delimiter, _)) = stream.next() else {
        return Ok(Err(header));
    };
    // The body runs to the first line that ends the table, which is left in the stream.
    let mut rows = crate::prefault::Growing::new();
    let mut ended_by = None;
    let mut last = (delimiter.line.content.end, delimiter.line.end);
    while let Some(l) = stream.peek() {
        if let Some(reason) = ends_table(l) {
            ended_by = Some(TableEnd {
                line: l.line.number,
                reason,
            });
            break;
        }
        last = (l.line.content.end, l.line.end);
        let row = row_of(l);
        stream.peeked = None;
        rows.push(row);
    }
    let table = Table {
        header_line: header.line.number,
        rows: rows.into_vec(),
        insert_at: last.1,
        last_line_terminated: last.1 > last.0,
        line_ending,
        delimiter_line: delimiter.line.number,
        ended_by,
        indent: header.line.text
            [..header.line.text.len() - header.line.text.trim_start_matches([' ', '\t']).len()]
            .to_string(),
    };
    Ok(Ok(table))
}

#[cfg(test)]
#[path = "table_scan_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::TableRow;

    /// Every table our scanner sees in `text` (whatever its header) as rows of unescaped
    /// cells, header first, with the lines it spans.
    /// A table as (first line, last line, rows of cells, header first).
    type Seen = (usize, usize, Vec<Vec<String>>);

    fn our_tables(text: &str) -> Vec<Seen> {
        let lines = classify(text).lines;
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            if lines[i].context == Context::Text
                && can_start_table(&lines[i])
                && let Some(table) =
                    super::reference::table_at_reference(&lines, i, LineEnding::Lf).unwrap()
            {
                let mut rows = vec![split_cells(lines[i].line.text)];
                rows.extend(table.rows.iter().map(|r: &TableRow| r.values(text)));
                let last = table.rows.last().map_or(table.delimiter_line, |r| r.line);
                out.push((table.header_line, last, rows));
                i = last;
                continue;
            }
            i += 1;
        }
        out
    }

    /// The top-level tables `markdown::to_mdast` (GFM) sees, in the same shape. Cell text
    /// is the source between the cell's content bounds, trimmed and unescaped.
    fn mdast_tables(text: &str) -> Vec<Seen> {
        use markdown::mdast::Node;
        let tree = markdown::to_mdast(text, &markdown::ParseOptions::gfm()).unwrap();
        let mut out = Vec::new();
        for node in tree.children().into_iter().flatten() {
            let Node::Table(table) = node else { continue };
            let position = table.position.as_ref().unwrap();
            let rows = table
                .children
                .iter()
                .map(|row| {
                    let row_pos = row.position().unwrap();
                    let line = &text[row_pos.start.offset..row_pos.end.offset];
                    split_cells(line)
                })
                .collect();
            out.push((position.start.line, position.end.line, rows));
        }
        out
    }

    /// A line of only whitespace that is not spaces or tabs (a form feed, a vertical tab,
    /// an ideographic or no-break space, a lone carriage return) inside a table is read,
    /// not a crash: found by the append-check property test.
    #[test]
    fn whitespace_only_lines_in_a_table_do_not_crash_the_reader() {
        for ws in [
            "\u{c}",
            "\u{b}",
            "\u{3000}",
            "\u{a0}",
            "\r",
            " \r ",
            "\u{c}\u{3000}",
        ] {
            for end in ["", "\n", "\n| 2 |\n"] {
                let text = format!("| A |\n|---|\n| 1 |\n{ws}{end}");
                let scan = scan_table(&text, &["A"]).expect("reads");
                let table = scan.table.expect("the table");
                assert_eq!(table.rows[0].values(&text), ["1"], "{text:?}");
                for row in &table.rows[1..] {
                    assert!(
                        row.values(&text)
                            .iter()
                            .all(|v| v.trim().is_empty() || v == "2"),
                        "{text:?}"
                    );
                }
            }
        }
    }

    /// The GFM spec's table examples (198–205), with the tables they define.
    #[test]
    fn gfm_spec_table_examples() {
        let s = |v: &[&str]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        let cases: Vec<(&str, Vec<Seen>)> = vec![
            // 198
            (
                "| foo | bar |\n| --- | --- |\n| baz | bim |\n",
                vec![(1, 3, vec![s(&["foo", "bar"]), s(&["baz", "bim"])])],
            ),
            // 199: no leading or trailing pipes on some lines, alignments
            (
                "| abc | defghi |\n:-: | -----------:\nbar | baz\n",
                vec![(1, 3, vec![s(&["abc", "defghi"]), s(&["bar", "baz"])])],
            ),
            // 200: escaped pipes, also inside code and emphasis
            (
                "| f\\|oo  |\n| ------ |\n| b `\\|` az |\n| b **\\|** im |\n",
                vec![(
                    1,
                    4,
                    vec![s(&["f|oo"]), s(&["b `|` az"]), s(&["b **|** im"])],
                )],
            ),
            // 201: a blockquote ends the table
            (
                "| abc | def |\n| --- | --- |\n| bar | baz |\n> bar\n",
                vec![(1, 3, vec![s(&["abc", "def"]), s(&["bar", "baz"])])],
            ),
            // 202: a line without pipes is a row; a blank line ends the table
            (
                "| abc | def |\n| --- | --- |\n| bar | baz |\nbar\n\nbar\n",
                vec![(
                    1,
                    4,
                    vec![s(&["abc", "def"]), s(&["bar", "baz"]), s(&["bar"])],
                )],
            ),
            // 203: delimiter row with another cell count: no table
            ("| abc | def |\n| --- |\n| bar |\n", vec![]),
            // 204: rows with fewer or more cells are still rows
            (
                "| abc | def |\n| --- | --- |\n| bar |\n| bar | baz | boo |\n",
                vec![(
                    1,
                    4,
                    vec![s(&["abc", "def"]), s(&["bar"]), s(&["bar", "baz", "boo"])],
                )],
            ),
            // 205: a header and delimiter only
            (
                "| abc | def |\n| --- | --- |\n",
                vec![(1, 2, vec![s(&["abc", "def"])])],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(our_tables(text), expected, "{text:?}");
            assert_eq!(mdast_tables(text), expected, "markdown crate on {text:?}");
        }
    }

    /// Where tables end and which lines cannot be table lines, checked against the
    /// `markdown` crate's GFM parse of the same text.
    #[test]
    fn table_boundaries_agree_with_the_markdown_crate() {
        let head = "| a | b |\n|---|---|\n| 1 | 2 |\n";
        let tails = [
            "    | 3 | 4 |\n",
            "\t| 3 | 4 |\n",
            "   | 3 | 4 |\n",
            "- | 3 | 4 |\n",
            "1. x\n",
            "2) x\n",
            "-\n",
            "---\n| 3 | 4 |\n",
            "***\n",
            " - - -\n",
            "# h\n| 3 | 4 |\n",
            "```\nx\n```\n| 3 | 4 |\n",
            "~~~\n",
            "<div>\n| 3 | 4 |\n",
            "<span>\n| 3 | 4 |\n",
            "<a href=\"x\"> text\n",
            "</div>\n",
            "<!-- x -->\n| 3 | 4 |\n",
            "<?php\n",
            "<pre>\n",
            "=\n",
            "[x]: /url\n",
            "12345678901. x\n",
            " \n| 3 |\n",
            "> q\n| 3 | 4 |\n",
            "plain\n| 3 | 4 |\n\n| 5 | 6 |\n",
            "| 3 | 4 | 5 |\n|---|---|---|\n",
            "a \\| b\n",
        ];
        for tail in tails {
            let text = format!("{head}{tail}");
            assert_eq!(our_tables(&text), mdast_tables(&text), "{text:?}");
        }
        let others = [
            "| a |\n---\n",
            "abc\n| --- |\n| x |\n",
            "text\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            "    | a | b |\n|---|---|\n",
            "   | a | b |\n   |---|---|\n   | 1 | 2 |\n",
            "| a | b |\n    |---|---|\n",
            "> x\n| a | b |\n|---|---|\n",
            "- x\n| a | b |\n|---|---|\n",
            "- x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            "a | b\n-|-\n",
            "# H\n| a | b |\n|---|---|\n",
            "| a | b |\n| -- - | --- |\n",
            "| a | b |\n|\t---\t|---|\n",
            "| a | b |\n| ---: | :--- |\n",
            "\u{feff}| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n",
            "| a |\n|---|\n| `x | y` |\n",
            "> [!note]\n> | a | b |\n> |---|---|\n| 1 | 2 |\n",
        ];
        for text in others {
            assert_eq!(our_tables(text), mdast_tables(text), "{text:?}");
        }
    }

    /// Lines that start no block are rows, as the spec says and cmark-gfm (GitHub) reads
    /// them; the `markdown` crate ends the table at these few, where it departs from the spec.
    #[test]
    fn lines_that_start_no_block_are_rows() {
        for tail in ["__", "#hashtag", "######## x", "``", "=", "[x]: /url"] {
            let text = format!("| a | b |\n|---|---|\n| 1 | 2 |\n{tail}\n");
            let tables = our_tables(&text);
            assert_eq!(tables[0].1, 4, "{text:?}");
        }
    }

    /// A long body gets, row by row, the cells a split of the row's own line gives,
    /// whatever the row's shape and line ending.
    #[test]
    fn every_row_of_a_long_body_has_its_own_lines_cells() {
        let shapes = [
            "| a | b |",
            "|a|b",
            "a | b \\| c",
            "| 未設定 | sessionStart 自動註冊 |  |",
            "|",
            "| x \\| y | `|` |",
            "   | indented | row |   ",
            "| one | two | three | four | five | six | seven | eight | nine | ten | eleven |",
        ];
        let mut text = String::from("| Id | Topic |\n|---|---|\n");
        for i in 0..5000 {
            text.push_str(shapes[i % shapes.len()]);
            text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        }
        let table = scan_table(&text, &["Id", "Topic"]).unwrap().table.unwrap();
        assert_eq!(table.rows.len(), 5000);
        for row in &table.rows {
            let own = cell_ranges(&text[row.content.clone()], row.content.start);
            assert_eq!(row.cells, own, "line {}", row.line);
            assert!(!row.cells.is_empty(), "line {}", row.line);
        }
    }

    /// Obsidian hides `%% … %%` comments: a comment line is no row, and it ends the table
    /// (GFM would read it as a row).
    #[test]
    fn an_obsidian_comment_line_ends_the_table() {
        let text = "| a | b |\n|---|---|\n| 1 | 2 |\n%% x %%\n| 3 | 4 |\n";
        let scan = scan_table(text, &["a", "b"]).unwrap();
        let table = scan.table.unwrap();
        assert_eq!(table.rows.len(), 1);
        assert_eq!(table.ended_by.unwrap().line, 4);
        assert_eq!(scan.loose[0].line, 5);
    }

    const HEADER: [&str; 3] = ["Session ID", "Topic", "Status"];

    /// `header_matches` as it was written before its fast paths.
    fn header_matches_reference(cell: &str, expected: &str) -> bool {
        let cell = without_emphasis(cell.trim());
        let mut a = cell.split_whitespace();
        let mut b = expected.split_whitespace();
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if x.to_lowercase() == y.to_lowercase() => {}
                _ => return false,
            }
        }
    }

    /// Lines of every shape the scanner tells apart: headers (the wanted one, others,
    /// resembling ones), delimiter rows, rows, fences and comments opened and closed,
    /// quotes, callouts, list items, HTML blocks, indented and lazy lines, escapes.
    const SHAPES: &[&str] = &[
        "| Session ID | Topic | Status |",
        "Session ID | Topic | Status",
        "| session  id | TOPIC | status |",
        "| Session ID | Topic |",
        "| SessionID | x | y |",
        "| a | b | c |",
        "| a | b |",
        "|---|---|---|",
        ":-: | --- | --:",
        "|---|---|",
        "| --- |",
        "| s-1 | t | active |",
        "| 2026-05-01-1318-agent | t | idle |",
        "s-2 | t \\| u | done",
        "| x <!-- y | z |",
        "| x %% y | z |",
        "| x --> | y |",
        "plain text",
        "prose a | b",
        "",
        "   ",
        "\u{3000}",
        "# Heading",
        "## Notes | x",
        "---",
        "***",
        "```",
        "```md",
        "~~~",
        "    | indented | code | x |",
        "\t| tab | x | y |",
        "> | Session ID | Topic | Status |",
        "> [!note]",
        "> quoted text",
        "> |---|---|---|",
        "- | Session ID | Topic | Status |",
        "- item",
        "1. item | x",
        "<!--",
        "-->",
        "<!-- | a | b | -->",
        "%%",
        "%% | Session ID | Topic | Status | %%",
        "%% note",
        "<div>",
        "</div>",
        "<pre>",
        "</pre>",
        "<span>",
        "| a \\| b | c |",
        "a\\|b",
    ];

    fn shaped_document() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let line = prop_oneof![
            8 => proptest::sample::select(SHAPES).prop_map(str::to_string),
            1 => "[|a-c \\\\<>!%`~-]{0,10}",
            1 => "\\PC{0,8}",
        ];
        (
            proptest::collection::vec(line, 0..24),
            prop_oneof![Just("\n"), Just("\r\n")],
            proptest::bool::ANY,
            proptest::bool::ANY,
        )
            .prop_map(|(lines, le, bom, terminated)| {
                let mut text = if bom {
                    "\u{feff}".to_string()
                } else {
                    String::new()
                };
                text.push_str(&lines.join(le));
                if terminated {
                    text.push_str(le);
                }
                text
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The streaming scanner gives exactly what the scanner that classified the whole
        /// document into a vector first gave: the same table, loose lines, unclosed region
        /// — or the same issue on the same line.
        #[test]
        fn streaming_scan_is_the_whole_document_scan(text in shaped_document()) {
            for header in [&HEADER[..], &["a", "b"][..], &["A"][..]] {
                proptest::prop_assert_eq!(
                    scan_table(&text, header),
                    super::reference::scan_table_reference(&text, header),
                    "{:?} with header {:?}", text, header
                );
            }
        }
    }

    proptest::proptest! {
        /// The fast header comparison agrees with the plain one, on ASCII and other text.
        #[test]
        fn header_matches_agrees_with_the_reference(
            cell in "[sSiIdD2* _`\t\u{b}\u{c}\r\n\u{a0}\u{3000}\u{212a}Σ登-]{0,14}|\\PC{0,10}",
            expected in proptest::sample::select(vec!["Session ID", "session id", "S", "", " ", "Id", "登 id", "ΣS", "Referenced By", "k", " kelvin", "2 id"]),
        ) {
            proptest::prop_assert_eq!(header_matches(&cell, expected), header_matches_reference(&cell, expected));
            let upper = cell.to_uppercase();
            proptest::prop_assert_eq!(header_matches(&upper, &cell), header_matches_reference(&upper, &cell));
        }

        /// The allocation-free comparison agrees with lowercasing both words.
        #[test]
        fn same_word_is_lowercase_equality(
            x in "[a-zA-Z\u{212a}\u{130}kKİıΣσς登 ]{0,4}|\\PC{0,4}",
            y in "[a-zA-Z\u{212a}\u{130}kKİıΣσς登 ]{0,4}|\\PC{0,4}",
        ) {
            proptest::prop_assert_eq!(same_word(&x, &y), x.to_lowercase() == y.to_lowercase());
            proptest::prop_assert_eq!(same_word(&x, &x.to_uppercase()), x.to_lowercase() == x.to_uppercase().to_lowercase());
        }
    }

    #[test]
    fn header_cells_match_in_any_case_and_spacing() {
        let text = "|  session   id | TOPIC |status|\n|---|---|---|\n| a | b | c |\n";
        let table = find_table(text, &HEADER).unwrap().unwrap();
        assert_eq!(table.rows.len(), 1);
    }

    #[test]
    fn a_table_only_in_a_callout_or_comment_is_refused_naming_its_line() {
        for (text, line, context) in [
            (
                "> [!note]\n> | Session ID | Topic | Status |\n> |---|---|---|\n",
                2,
                "blockquote",
            ),
            (
                "> | session id | Topic | Status |\n> |---|---|---|\n",
                1,
                "blockquote",
            ),
            (
                "x\n%%\n| Session ID | Topic | Status |\n|---|---|---|\n%%\n",
                3,
                "comment",
            ),
            (
                "<!--\n| Session ID | Topic | Status |\n|---|---|---|\n-->\n",
                2,
                "comment",
            ),
            ("%% | Session ID | Topic | Status | %%\n", 1, "comment"),
            (
                "<div>\n| Session ID | Topic | Status |\n|---|---|---|\n</div>\n",
                2,
                "HTML",
            ),
            ("- | Session ID | Topic | Status |\n", 1, "list"),
        ] {
            let issue = scan_table(text, &HEADER);
            let issue = issue.expect_err(text);
            assert_eq!(issue.line, line, "{text:?}: {issue:?}");
            assert!(issue.message.contains(context), "{text:?}: {issue:?}");
        }
        // A copy in a fenced code block is documentation.
        let fenced = "```\n| Session ID | Topic | Status |\n|---|---|---|\n```\n";
        assert_eq!(scan_table(fenced, &HEADER).unwrap().table, None);
        // Indented by four spaces it is code, and still resembles the index.
        let indented = "    | Session ID | Topic | Status |\n    |---|---|---|\n";
        assert_eq!(scan_table(indented, &HEADER).unwrap_err().line, 1);
    }

    #[test]
    fn resembling_headers_are_refused_naming_their_line() {
        for (text, line) in [
            ("| Session ID | Topic |\n|---|---|\n", 1),
            ("| SESSION ID | Topic | Status |\n\n| a | b | c |\n", 2),
            ("| Session ID | Topic | Status |\n|---|---|\n", 2),
            ("| Session ID | Topic | Status |\n", 2),
            (
                "| Session ID | Topic | Status |\n|---|---|---|\n\n| Session ID | Topic | Status |\n|---|---|---|\n",
                4,
            ),
            (
                "| Session ID | Topic | Status |\n|---|---|---|\n| session id | x | y |\n",
                3,
            ),
            ("Session ID | x\n", 1),
        ] {
            let issue = scan_table(text, &HEADER).unwrap_err();
            assert_eq!(issue.line, line, "{text:?}: {issue:?}");
        }
    }

    #[test]
    fn loose_pipe_lines_are_reported_before_and_after_the_table() {
        let text = "| s-0 | x | y |\n\n| Session ID | Topic | Status |\n|---|---|---|\n| a | b | c |\n\n| d | e | f |\n> | quoted | q | q |\n```\n| code | c | c |\n```\nprose a | b\n| Other | Table |\n|---|---|\n| o | t |\n";
        let scan = scan_table(text, &HEADER).unwrap();
        let lines: Vec<usize> = scan.loose.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 7, 12]);
        let table = scan.table.unwrap();
        assert_eq!(
            table.ended_by,
            Some(TableEnd {
                line: 6,
                reason: "a blank line"
            })
        );
    }
}
