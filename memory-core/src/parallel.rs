//! Spreading independent work over the machine's cores: an order-keeping map that runs
//! contiguous chunks of a list on scoped threads, and runs on the calling thread alone
//! when the list is too short for a thread to pay for itself.

use std::sync::OnceLock;

/// Fewer files than this per thread and a thread costs more than it saves (a spawn is
/// tens of microseconds; reading and parsing one small entity file is several).
const MIN_ITEMS_PER_THREAD: usize = 32;

/// The same for work on text already in memory (a row read, built or rendered: about a
/// microsecond each).
const MIN_LIGHT_ITEMS_PER_THREAD: usize = 512;

/// At most this many threads (the scans are bound by file system calls, which stop
/// scaling well before that).
const MAX_THREADS: usize = 8;

/// The threads a map may use: the cores available, asked once (the question reads
/// cgroup files on Linux).
fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, MAX_THREADS)
    })
}

/// `items.iter().map(f).collect()`, with the work split over up to [`threads`] threads
/// in contiguous chunks; the results are in the items' order. A panic in `f` is
/// propagated to the caller as it would be without threads.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, MIN_ITEMS_PER_THREAD, f)
}

/// [`map`] for items that cost about a microsecond each (no file system call): threads
/// only for long lists.
pub(crate) fn map_light<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, MIN_LIGHT_ITEMS_PER_THREAD, f)
}

fn map_with<T: Sync, R: Send>(
    items: &[T],
    min_per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let workers = threads().min(items.len() / min_per_thread).max(1);
    if workers == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(workers);
    let f = &f;
    std::thread::scope(|scope| {
        let mut chunks = items.chunks(chunk);
        // `workers >= 2` and `chunk >= 1` here, so there is a first chunk.
        let first = chunks.next().unwrap_or_default();
        let handles: Vec<_> = chunks
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = Vec::with_capacity(items.len());
        out.extend(first.iter().map(f));
        for handle in handles {
            match handle.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn map_keeps_order_and_equals_a_plain_map(items in prop::collection::vec(any::<u32>(), 0..600)) {
            let plain: Vec<u64> = items.iter().map(|&x| u64::from(x) * 3 + 1).collect();
            prop_assert_eq!(map(&items, |&x| u64::from(x) * 3 + 1), plain.clone());
            prop_assert_eq!(map_with(&items, 7, |&x| u64::from(x) * 3 + 1), plain);
        }
    }

    #[test]
    fn long_lists_use_more_than_one_thread_when_there_are_cores() {
        let items: Vec<usize> = (0..1000).collect();
        let ids = map(&items, |_| std::thread::current().id());
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), threads().min(1000 / MIN_ITEMS_PER_THREAD));
        let short = map(&items[..10], |_| std::thread::current().id());
        assert!(short.iter().all(|id| *id == std::thread::current().id()));
        let light = map_light(&items, |_| std::thread::current().id());
        assert!(light.iter().all(|id| *id == std::thread::current().id()));
    }
}
