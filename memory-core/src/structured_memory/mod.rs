//! # structured-memory
//!
//! The seed `structured-memory` protocol: a small always-loaded `MEMORY.md` of
//! one-line pointers (`- [Title](file.md) — hook`) to topic files loaded on demand, with
//! line budgets (60 for the index, 150 per topic file) and compaction that archives to
//! `memory-archive.md` before it rewrites, and never truncates.
//!
//! This module is being built in steps (see the CHANGELOG); today it reads `MEMORY.md`
//! whole ([`MemoryIndex`]), topic files whole ([`Topic`]: frontmatter, dated entries,
//! undated hand notes), writes pointer lines ([`render_pointer`]) and converts relative
//! dates ([`resolve_date`]).
//!
//! ```
//! use memory_core::structured_memory::MemoryIndex;
//! let text = "<!-- memory index -->\n- [Project X](memory-project-x.md) — build quirks, deploy pipeline\n";
//! let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
//! assert_eq!(index.lines[0].file, "memory-project-x.md");
//! ```

mod dates;
mod index_file;
mod pointer;
mod topic_file;

pub use dates::{RELATIVE_DAYS, VAGUE_TIME, relative_time_in, resolve_date};
pub use index_file::{ContentLine, INDEX_FILE_NAME, IndexLine, MemoryIndex, UnusableLink};
pub use pointer::{HOOK_SEPARATOR, render_pointer};
pub use topic_file::{Entry, Topic, TopicMeta, UndatedItem, subject_key};
