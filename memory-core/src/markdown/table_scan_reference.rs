//! The table scanner as it was before it streamed the classified lines: it classified
//! the whole document into a vector first. Kept as the reference the streaming
//! [`super::scan_table`] is compared with on random documents.

use super::*;

pub(super) fn scan_table_reference(text: &str, header: &[&str]) -> Result<TableScan, ParseIssue> {
    let Blocks { lines, unclosed } = classify(text);
    let line_ending = LineEnding::detect(text);
    let first = header.first().copied().unwrap_or_default();
    let mut tables: Vec<Table> = Vec::new();
    let mut loose: Vec<TableRow> = Vec::new();
    // The first line, in a context where it is not rendered, that starts like the header.
    let mut hidden: Option<(usize, Context)> = None;
    // The lines over the length limit: an error up to the end of the table (and anywhere
    // when there is no table); prose after the table may be long. A body row over the
    // limit is the caller's to judge (a lenient reader reads past it).
    let mut overlong: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        if check_length(l).is_err() {
            overlong.push(l.line.number);
        }
        let in_unclosed = unclosed.is_some_and(|(n, _)| l.line.number > n);
        match l.context {
            Context::Text if can_start_table(l) => {
                if let Some(table) = table_at_reference(&lines, i, line_ending)? {
                    i = table.rows.last().map_or(table.delimiter_line, |r| r.line);
                    tables.push(table);
                    continue;
                }
                if has_pipe(l.line.text) {
                    loose.push(row_of(l));
                }
            }
            Context::Text | Context::Indented => {
                if has_pipe(l.line.text) {
                    loose.push(row_of(l));
                }
            }
            Context::Fence if !in_unclosed => {}
            other => {
                if first_cell_of_hidden(l.line.text, first) {
                    hidden.get_or_insert((l.line.number, other));
                } else if (l.lazy || in_unclosed || other == Context::Html) && has_pipe(l.line.text)
                {
                    // Rendered as paragraph or raw text, or hidden by a region that never
                    // ends: not rows, and not to be dropped silently.
                    loose.push(row_of(l));
                }
            }
        }
        i += 1;
    }

    let first_cell_is = |text: &str, row: &TableRow| header_matches(row.raw_cell(text, 0), first);
    let mut table_index = None;
    let mut resembling: Vec<(usize, Option<usize>)> = Vec::new();
    for (t, table) in tables.iter().enumerate() {
        if header_cell_matches(
            text,
            lines[table.header_line - 1].line.text,
            lines[table.header_line - 1].line.content.start,
            header,
        ) {
            resembling.push((table.header_line, Some(t)));
        }
    }
    for row in &loose {
        if first_cell_is(text, row) {
            resembling.push((row.line, None));
        }
    }
    for (t, table) in tables.iter().enumerate() {
        if resembling.iter().any(|r| r.1 == Some(t)) {
            // A row of the table that repeats the header (two tables run together).
            for row in table.rows.iter().filter(|r| first_cell_is(text, r)) {
                resembling.push((row.line, Some(usize::MAX)));
            }
        }
    }
    resembling.sort_unstable();
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
        Some(&(line, None))
            if block_start(lines[line - 1].line.text) == Some(BlockStart::Indented) =>
        {
            return Err(ParseIssue {
                line,
                message: format!(
                    "the table with header {first:?} is indented by 4 columns or more, which makes it a code block; remove the indentation so it can be read"
                ),
            });
        }
        Some(&(line, None)) => {
            let cells = split_cells(lines[line - 1].line.text);
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
        Some(&(line, Some(t))) => {
            let cells = split_cells(lines[line - 1].line.text);
            let same = cells.len() == header.len()
                && cells.iter().zip(header).all(|(c, h)| header_matches(c, h));
            if !same {
                return Err(ParseIssue {
                    line,
                    message: format!("table header has columns {cells:?}, expected {header:?}"),
                });
            }
            if let Some(&(second, _)) = resembling.get(1) {
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
    let table = table_index.map(|t| tables.swap_remove(t));
    let misplaced: Vec<TableRow> = tables
        .iter()
        .filter(|t| split_cells(lines[t.header_line - 1].line.text).len() != header.len())
        .flat_map(|t| t.rows.iter().filter(|r| r.cells.len() == header.len()))
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

/// The table whose header row is line index `i`, if line `i + 1` is a matching
/// delimiter row.
pub(super) fn table_at_reference(
    lines: &[BlockLine<'_>],
    i: usize,
    line_ending: LineEnding,
) -> Result<Option<Table>, ParseIssue> {
    let Some(delimiter) = lines.get(i + 1) else {
        return Ok(None);
    };
    if delimiter.context != Context::Text {
        return Ok(None);
    }
    let header = &lines[i];
    let Some(count) = delimiter_cells(delimiter.line.text) else {
        return Ok(None);
    };
    if split_cells(header.line.text).len() != count {
        return Ok(None);
    }
    // The body runs to the first line that ends the table: found first, so that the
    // rows are collected into one allocation of the right size.
    let body = &lines[i + 2..];
    let mut ended_by = None;
    let mut count = body.len();
    for (n, l) in body.iter().enumerate() {
        if let Some(reason) = ends_table(l) {
            ended_by = Some(TableEnd {
                line: l.line.number,
                reason,
            });
            count = n;
            break;
        }
    }
    let body = &body[..count];
    let mut rows = Vec::with_capacity(body.len());
    crate::prefault::prefault(&mut rows);
    rows.extend(body.iter().map(row_of));
    let last = body.last().map_or(&delimiter.line, |l| &l.line);
    let table = Table {
        header_line: header.line.number,
        rows,
        insert_at: last.end,
        last_line_terminated: last.end > last.content.end,
        line_ending,
        delimiter_line: delimiter.line.number,
        ended_by,
        indent: header.line.text
            [..header.line.text.len() - header.line.text.trim_start_matches([' ', '\t']).len()]
            .to_string(),
    };
    Ok(Some(table))
}
