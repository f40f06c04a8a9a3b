//! Markdown plumbing shared by the models: lossless GFM table editing, `##` sections,
//! list items and YAML frontmatter ([`FrontmatterKeys`]: top-level keys with byte spans,
//! a typed mapping, one-key edits that keep comments, key order and quoting). Everything is located by byte range and edited in place, so bytes outside
//! the edited row, line or section stay identical (CRLF, BOM, prose, other rows' spacing).
//!
//! The scanner is line-based rather than a full CommonMark parse: the structures the
//! protocols use (pipe tables, `##` headings, `-` lists) are line-shaped, and a line scan
//! of a 10,000-row index is far faster than building an AST with the `markdown` crate
//! (see `benches/benches/table_scan.rs`), which matters for `memcore agent start` running
//! in every SessionStart hook. It still classifies every line's block context
//! ([`block_lines`]: fences, indented code, blockquotes and callouts, list items, HTML
//! blocks, `<!-- -->` and `%% %%` comments) and recognises tables by GFM's rules; the GFM
//! spec's table examples and a comparison with `markdown::to_mdast` are its tests.

mod blocks;
mod cells;
mod escape;
mod frontmatter;
mod lines;
mod list;
mod list_fences;
mod marker;
mod sections;
mod table;
mod table_scan;

pub use blocks::{BlockLine, BlockStart, Blocks, Context, block_lines, block_start, classify};
pub use cells::Cells;
pub(crate) use escape::{FenceScan, encode_lines, entity_first, fenced_lines};
pub(crate) use frontmatter::{Field, FieldsRef, Simple, SimpleLines};
pub use frontmatter::{
    Fields, Frontmatter, FrontmatterKeys, KeyEntry, ValueStyle, double_quoted, render_entry,
    render_flow_list, render_frontmatter, render_scalar,
};
pub use lines::{Line, LineEnding, lines};
pub use list::{ListItem, parse_list, render_item_line};
pub(crate) use list::{render_item, value_lines, value_of};
pub use list_fences::classify_in_list_items;
pub use sections::{Section, split_sections};
pub use table::{
    MAX_LINE_BYTES, ParseIssue, Table, TableEnd, TableRow, apply_edits, escape_cell, render_row,
    unescape_cell, without_new_final_newline,
};
pub(crate) use table::{push_escaped, split_cells};
pub use table_scan::{TableScan, find_table, header_matches, scan_table};
pub(crate) use table_scan::{continue_table, without_emphasis};

/// One replacement of a byte range by new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The byte range replaced.
    pub range: std::ops::Range<usize>,
    /// The text put in its place.
    pub replacement: String,
}
