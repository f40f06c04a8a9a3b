//! The **context-memory** protocol (seed `001_74b2fcc4325dc895.txt`): namespaces mapped
//! to directories under a root (`~/.cursor/memory` by default), one Markdown entity file
//! per fact with YAML frontmatter, and a `_index.md` table per directory for lookup.
//!
//! ```
//! use memory_core::context_memory::{ContextMemory, Namespace, Query};
//! let dir = tempfile::tempdir().unwrap();
//! let memory = ContextMemory::open(dir.path()).unwrap();
//! let ns = Namespace::parse("project.myapp").unwrap();
//! assert_eq!(memory.namespace_dir(&ns), dir.path().join("projects/myapp"));
//! assert!(memory.query(&Query::new().namespace("project.myapp").unwrap()).unwrap().is_empty());
//! ```

mod dir_reader;
mod entity;
mod entity_file;
mod entity_keys;
mod entity_lines;
mod entry;
pub mod git;
mod heal;
mod hooks;
mod index_file;
mod index_rows;
mod index_salvage;
mod memory;
mod migrate;
mod names;
mod namespace;
mod namespaces;
mod query;
mod read;
mod record;
mod refresh;
mod refresh_match;
mod refresh_store;
mod revise;
mod rows_memo;
mod scan;
mod schema;
mod session;
mod split;
mod summary;
mod triggers;
mod write;

pub use entity::{ENTITY_KEYS, Entry};
pub use entry::{
    DUPLICATE_THRESHOLD, Diagram, MAX_TAG_CHARS, MIN_TAGS, NewEntry, summary_similarity,
};
pub use heal::{DriftReport, HealReport};
pub use hooks::{
    CHAINED_DIR, HOOK_MARKER, HOOK_NAMES, HookAction, HookOutcome, HooksReport, MEMCORE_EXECUTABLE,
    find_memcore, hook_script, install_hooks, is_our_hook, uninstall_hooks,
};
pub use index_file::{INDEX_COLUMNS, IndexRow, MAX_SUMMARY_CHARS};
pub use memory::{ContextMemory, ContextMemoryBuilder, DEFAULT_LOCK_TIMEOUT};
pub use migrate::{DanglingLink, MAX_MIGRATED_FILES, MigrationReport, NotImported};
pub use names::{
    EntityName, INDEX_FILE_NAME, PENDING_REFRESH_FILE_NAME, entity_file_name, is_entity_file_name,
    is_foreign_file_name, next_short_id, slug_of,
};
pub use namespace::{MAX_DOMAIN_DEPTH, MAX_SEGMENT_LEN, Namespace, NamespaceKind, project_segment};
pub use namespaces::{NamespaceInfo, SPLIT_THRESHOLD};
pub use query::{DEFAULT_QUERY_LIMIT, Hit, Query, QueryAnswer};
pub use record::{RecordOutcome, SkipReason, project_namespace};
pub use refresh::{
    PendingChange, PendingRefresh, PendingSection, RefreshTrigger, refresh_timestamp,
};
pub use refresh_match::{PendingMatch, PendingReport, source_cites};
pub use refresh_store::{
    ClearReport, append_pending_refresh, clear_pending_refresh, load_pending_refresh,
    read_pending_refresh,
};
pub use revise::{EntryPatch, Superseded};
pub use schema::{Category, EntryStatus};
pub use session::EndSession;
pub use split::{SplitPlan, SplitReport};
pub use summary::summary_of;
pub use write::WriteOutcome;
