//! The durable file layer every model stands on: atomic replace, the cross-process
//! memory lock, safe paths under a root, private file modes and the injectable clock.

mod atomic;
mod clock;
mod lock;
mod safe_path;

pub(crate) use atomic::move_file;
pub use atomic::{
    create_private_dir_all, read_text, read_text_if_exists, remove_dead_temp_files,
    replace_atomically,
};
pub use clock::{Clock, FixedClock, SystemClock};
pub use lock::{MemoryLock, WaitCheck, WaitCheckError};
pub use safe_path::{SafeRoot, validate_component};
