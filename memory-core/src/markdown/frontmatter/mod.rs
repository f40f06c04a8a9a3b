//! Lossless YAML frontmatter: locate the `---` block, scan its top-level keys with byte
//! spans, read it as a typed mapping with file line numbers, and change one key at a
//! time by byte range, so that key order, unknown keys, comments, quoting, blank lines,
//! the fences, the body, a BOM and CRLF stay byte-identical — YAML libraries
//! re-serialize the whole block instead.

mod edit;
mod fast;
mod keys;
mod lex;
mod locate;
mod read;
mod render;

pub use keys::{FrontmatterKeys, KeyEntry, ValueStyle};
pub use locate::Frontmatter;
pub use render::{
    double_quoted, render_entry, render_flow_list, render_frontmatter, render_scalar,
};
