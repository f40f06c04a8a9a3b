//! Markdown plumbing shared by the models: lossless GFM table editing, `##` sections and
//! list items. Everything is located by byte range and edited in place, so bytes outside
//! the edited row, line or section stay identical (CRLF, BOM, prose, other rows' spacing).
//!
//! The scanner is line-based and fence-aware rather than a full CommonMark parse: the
//! structures the protocols use (pipe tables, `##` headings, `-` lists) are line-shaped,
//! and a line scan of a 10,000-row index is an order of magnitude faster than building
//! an AST, which matters for `memcore agent start` running in every SessionStart hook.

mod escape;
mod lines;
mod list;
mod sections;
mod table;

pub(crate) use escape::{FenceScan, encode_lines, entity_first, fenced_lines};
pub use lines::{Line, LineEnding, lines};
pub use list::{ListItem, parse_list, render_item_line};
pub(crate) use list::{render_item, value_lines, value_of};
pub use sections::{Section, split_sections};
pub use table::{
    ParseIssue, Table, TableRow, apply_edits, escape_cell, find_table, render_row, unescape_cell,
    without_new_final_newline,
};

/// One replacement of a byte range by new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The byte range replaced.
    pub range: std::ops::Range<usize>,
    /// The text put in its place.
    pub replacement: String,
}
