//! Lossless YAML frontmatter: locate the `---` block, scan its top-level keys with byte
//! spans, read it as a typed mapping with file line numbers, and change one key at a
//! time by byte range, so that key order, unknown keys, comments, quoting, blank lines,
//! the fences, the body, a BOM and CRLF stay byte-identical — YAML libraries
//! re-serialize the whole block instead.
//!
//! [`Frontmatter::locate`] finds the block; [`FrontmatterKeys::read`] also scans its
//! top-level entries in one pass (refusing what a `key: value` block must not hold:
//! duplicate keys, `? ` complex keys, an indented first key, raw YAML 1.1 line breaks);
//! [`FrontmatterKeys::mapping`] is the typed read, equal to serde_yaml's mapping of the
//! whole block but reading simple values without the parser; [`FrontmatterKeys::set`],
//! [`FrontmatterKeys::set_after`] and [`FrontmatterKeys::remove`] return one
//! [`super::Edit`] for [`super::apply_edits`]. Proptests compare the scanner with
//! serde_yaml on hostile and junk blocks and check every edit's bytes and mapping.
//!
//! ```
//! use memory_core::markdown::{FrontmatterKeys, apply_edits};
//! use serde_yaml::Value;
//! let text = "---\n# mine\nstatus: experimental  # review first\ntags:\n  - auth\n  - sso\nx: 'kept'\n---\nBody\n";
//! let keys = FrontmatterKeys::read(text).unwrap().unwrap();
//! assert_eq!(keys.mapping(text).unwrap()["tags"][1].as_str(), Some("sso"));
//! let edits = vec![
//!     keys.set(text, "status", &Value::from("superseded")).unwrap(),
//!     keys.set(text, "updated_at", &Value::from("2026-05-01T09:30:00Z")).unwrap(),
//! ];
//! assert_eq!(
//!     apply_edits(text, edits),
//!     "---\n# mine\nstatus: superseded  # review first\ntags:\n  - auth\n  - sso\nx: 'kept'\nupdated_at: 2026-05-01T09:30:00Z\n---\nBody\n"
//! );
//! ```

mod edit;
mod fast;
mod fields;
mod keys;
mod lex;
mod locate;
mod read;
mod render;
mod simple_scan;

pub(crate) use fast::Simple;
pub use fields::Fields;
pub(crate) use fields::{Field, FieldsRef};
pub use keys::{FrontmatterKeys, KeyEntry, ValueStyle};
pub use locate::Frontmatter;
pub use render::{
    double_quoted, render_entry, render_flow_list, render_frontmatter, render_scalar,
};
pub(crate) use simple_scan::SimpleLines;
