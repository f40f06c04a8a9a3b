//! The durable file layer every model stands on: atomic replace, the cross-process
//! memory lock, safe paths under a root, private file modes, the injectable clock, and
//! the all-or-nothing multi-file [`Transaction`] with its crash [`recover`]y.

mod append;
mod atomic;
mod clock;
mod digest;
pub mod fault;
mod guarded_rename;
mod handle_options;
mod lock;
mod read_no_follow;
mod root_handle;
mod safe_path;
mod transaction;

pub(crate) use atomic::is_temp_name as is_dead_writer_file;
pub(crate) use atomic::{
    MAX_FILE_BYTES, decode_text, decode_text_at, read_bytes_if_exists, read_settled,
};
pub use atomic::{create_private_dir_all, read_text, read_text_if_exists, replace_atomically};
pub use clock::{Clock, FixedClock, SystemClock};
pub(crate) use digest::{Digester, FileDigest, stream_file};
pub use handle_options::DEFAULT_LOCK_TIMEOUT;
pub(crate) use handle_options::{HandleOptions, handle_builder_methods};
pub use lock::{MemoryLock, WaitCheck, WaitCheckError, lock_wait_from_secs};
pub(crate) use read_no_follow::read_text_no_follow;
pub use root_handle::LOCK_FILE_NAME;
pub(crate) use root_handle::RootHandle;
pub use safe_path::{SafeRoot, validate_component};
pub use transaction::{JOURNAL_FILE_NAME, Transaction, has_journal, recover};
