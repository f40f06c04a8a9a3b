//! Property tests of the lossless table editor: whatever the prose, line endings, BOM,
//! spacing and cell content, an append/replace/remove changes exactly one line.

use memory_core::markdown::{apply_edits, find_table, render_row};
use proptest::prelude::*;

const HEADER: [&str; 3] = ["Session ID", "Topic", "Status"];

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ]{0,12}",
        "[登入記憶 |<>\\\\]{1,8}",
        Just("a | b".to_string()),
        Just("x\\y".to_string()),
    ]
}

fn prose_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z .,]{0,30}",
        Just("# Heading".to_string()),
        Just(String::new())
    ]
}

#[derive(Debug, Clone)]
struct Doc {
    bom: bool,
    crlf: bool,
    final_newline: bool,
    before: Vec<String>,
    rows: Vec<(String, [String; 3])>,
    after: Vec<String>,
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(prose_line(), 0..4),
        proptest::collection::vec(("[ ]{0,3}", [cell(), cell(), cell()]), 0..6),
        proptest::collection::vec(prose_line(), 0..3),
    )
        .prop_map(|(bom, crlf, final_newline, before, rows, after)| Doc {
            bom,
            crlf,
            final_newline,
            before,
            rows,
            after,
        })
}

impl Doc {
    /// The document's lines; the table's lines are returned separately by index.
    fn lines(&self) -> (Vec<String>, usize) {
        let mut lines: Vec<String> = self
            .before
            .iter()
            .filter(|l| !l.trim_start().starts_with('|'))
            .cloned()
            .collect();
        if !lines.is_empty() {
            lines.push(String::new());
        }
        let table_start = lines.len();
        lines.push(render_row(&HEADER));
        lines.push("|:--|---|--:|".to_string());
        for (pad, cells) in &self.rows {
            let row = render_row(cells);
            lines.push(format!("{pad}{}", &row));
        }
        lines.push(String::new());
        lines.extend(
            self.after
                .iter()
                .filter(|l| !l.trim_start().starts_with('|'))
                .cloned(),
        );
        (lines, table_start)
    }

    fn join(&self, lines: &[String]) -> String {
        let le = if self.crlf { "\r\n" } else { "\n" };
        let mut text = if self.bom {
            "\u{feff}".to_string()
        } else {
            String::new()
        };
        text.push_str(&lines.join(le));
        if self.final_newline {
            text.push_str(le);
        }
        text
    }
}

proptest! {
    #[test]
    fn rows_read_back_as_written(d in doc()) {
        let (lines, _) = d.lines();
        let text = d.join(&lines);
        let table = find_table(&text, &HEADER).unwrap().unwrap();
        let read: Vec<Vec<String>> = table.rows.iter().map(|r| r.values(&text)).collect();
        let expected: Vec<Vec<String>> = d.rows.iter().map(|(_, c)| c.iter().map(|s| s.trim().to_string()).collect()).collect();
        prop_assert_eq!(read, expected);
    }

    #[test]
    fn one_edit_changes_exactly_one_line(d in doc(), pick in any::<usize>(), kind in 0u8..3, new in [cell(), cell(), cell()]) {
        let (mut lines, start) = d.lines();
        let text = d.join(&lines);
        let table = find_table(&text, &HEADER).unwrap().unwrap();
        let new_row = render_row(&new);
        let rows = table.rows.len();
        let edit = match (kind, rows) {
            (0, _) | (_, 0) => {
                lines.insert(start + 2 + rows, new_row.clone());
                table.append(&new_row)
            }
            (1, _) => {
                lines[start + 2 + pick % rows] = new_row.clone();
                table.replace(pick % rows, &new_row)
            }
            _ => {
                lines.remove(start + 2 + pick % rows);
                table.remove(pick % rows)
            }
        };
        prop_assert_eq!(apply_edits(&text, vec![edit]), d.join(&lines));
    }
}
