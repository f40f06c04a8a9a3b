//! # structured-memory
//!
//! The seed `structured-memory` protocol: a small always-loaded `MEMORY.md` of
//! one-line pointers (`- [Title](file.md) — hook`) to topic files loaded on demand, with
//! line budgets (60 for the index, 150 per topic file) and compaction that archives to
//! `memory-archive.md` before it rewrites, and never truncates.
//!
//! It reads `MEMORY.md` whole ([`MemoryIndex`]) and topic files whole ([`Topic`]: their
//! own frontmatter, kept byte for byte and read leniently when it is not YAML
//! ([`FrontmatterNotYaml`]); dated entries; hand notes and prose, never compacted
//! ([`Topic::unparsed_lines`])), writes pointer lines ([`render_pointer`]), converts
//! relative dates ([`resolve_date`]) and relative time in a fact's text
//! ([`convert_relative_time`]) at write time.
//!
//! ```
//! use memory_core::structured_memory::MemoryIndex;
//! let text = "<!-- memory index -->\n- [Project X](memory-project-x.md) — build quirks, deploy pipeline\n";
//! let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
//! assert_eq!(index.lines[0].file, "memory-project-x.md");
//! ```

mod archive;
mod budget;
mod catch_all;
mod check;
mod check_near_duplicates;
mod check_secrets;
mod cjk_grams;
mod compact;
mod compact_index;
mod compact_split;
mod compactor;
mod dates;
mod index_comments;
mod index_defaults;
mod index_fields;
mod index_file;
mod leading_block;
mod memory;
mod month_dates;
mod pointer;
mod pointer_edit;
mod read;
mod remember;
mod remember_compaction;
mod restore;
mod session_index;
mod temp_files;
mod time_words;
mod topic_case;
mod topic_file;
mod topic_frontmatter;
mod topic_meta;
mod topic_name;
mod topic_placement;
mod topic_sections;
mod visible;
mod write_plan;

pub use archive::{ARCHIVE_HEADER, ArchivePass, ArchiveSection, parse_archive};
pub use budget::{
    BudgetState, BudgetUse, Budgets, INDEX_LINE_BUDGET, NEAR_BUDGET_PERCENT, TOPIC_LINE_BUDGET,
};
pub use check::{Violation, ViolationKind};
pub use check_near_duplicates::NEAR_DUPLICATE_SIMILARITY;
pub use compact::{
    AddedIndexLine, CompactionReport, FileCompaction, NeedsJudgment, NotCompacted, PassReport,
};
pub use compactor::{Compactor, CompactorError, Condensed, DefaultCompactor, SplitPart};
pub use dates::{RELATIVE_DAYS, VAGUE_TIME, relative_time_in, resolve_date};
pub use index_defaults::{ROUTE_MARGIN, ROUTE_MIN_POINTS};
pub use index_file::{ContentLine, INDEX_FILE_NAME, IndexLine, MemoryIndex, UnusableLink};
pub use memory::{ARCHIVE_FILE_NAME, RESERVED_FILES, StructuredMemory, StructuredMemoryBuilder};
pub use pointer::{HOOK_SEPARATOR, render_pointer};
pub use read::RecallHit;
pub use remember::{Fact, INDEX_HEADER, MAX_SUBJECT_CHARS, RememberOutcome};
pub use restore::{NotRestored, RestoreReport, Restored};
pub use session_index::SessionIndex;
pub use time_words::{Conversion, convert_relative_time};
pub use topic_file::{Entry, Topic, UndatedItem, subject_key};
pub use topic_frontmatter::SAMPLED_TOPICS;
pub use topic_meta::{FrontmatterNotYaml, TopicMeta};
