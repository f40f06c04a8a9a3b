//! Spreading independent work over the machine's cores: an order-keeping map that runs
//! contiguous chunks of a list on scoped threads, and runs on the calling thread alone
//! when the list is too short for a thread to pay for itself.

use std::sync::{Mutex, OnceLock, PoisonError};

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

/// `items.iter_mut().for_each(f)` for items that cost about a microsecond each, the
/// list split over up to [`threads`] threads in contiguous chunks when it is long
/// enough for a thread to pay for itself. A panic in `f` is propagated to the caller.
pub(crate) fn for_each_mut_light<T: Send>(items: &mut [T], f: impl Fn(&mut T) + Sync) {
    let workers = threads()
        .min(items.len() / MIN_LIGHT_ITEMS_PER_THREAD)
        .max(1);
    if workers == 1 {
        items.iter_mut().for_each(f);
        return;
    }
    let chunk = items.len().div_ceil(workers);
    let f = &f;
    let mut chunks = items.chunks_mut(chunk);
    // `workers >= 2` and `chunk >= 1` here, so there is a first chunk.
    let first = chunks.next().unwrap_or_default();
    // Each other part goes to a thread; whoever takes a part from its slot first does
    // it, so a part whose thread could not be started (or is slow to start) is done
    // here, after the first.
    let slots: Vec<Mutex<Option<&mut [T]>>> = chunks.map(|part| Mutex::new(Some(part))).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .iter()
            .filter_map(|slot| {
                let run = move || {
                    if let Some(part) = take(slot) {
                        part.iter_mut().for_each(f);
                    }
                };
                std::thread::Builder::new().spawn_scoped(scope, run).ok()
            })
            .collect();
        first.iter_mut().for_each(f);
        for slot in &slots {
            if let Some(part) = take(slot) {
                part.iter_mut().for_each(f);
            }
        }
        for handle in handles {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// From this size on, [`is_utf8`] checks the second half of a text on another thread.
const UTF8_SPLIT_FROM: usize = 512 * 1024;

/// Whether `bytes` are UTF-8 (SIMD validation), a long text checked in two halves on
/// two threads where there are two cores.
///
/// The halves meet where a character starts (the first byte at or before the middle
/// that is no continuation byte; UTF-8 has at most three of them in a row), so the
/// whole is UTF-8 exactly when both halves are: two valid texts put together are one,
/// and a valid text cut where a character starts leaves two.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    let check = |part: &[u8]| simdutf8::basic::from_utf8(part).is_ok();
    if bytes.len() < UTF8_SPLIT_FROM || threads() < 2 {
        return check(bytes);
    }
    let mut middle = bytes.len() / 2;
    for _ in 0..3 {
        if bytes[middle] & 0xC0 == 0x80 {
            middle -= 1;
        }
    }
    let (first, second) = bytes.split_at(middle);
    std::thread::scope(|scope| {
        let checking = std::thread::Builder::new().spawn_scoped(scope, || check(second));
        let first_ok = check(first);
        let second_ok = match checking {
            Ok(checking) => match checking.join() {
                Ok(ok) => ok,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => check(second),
        };
        first_ok && second_ok
    })
}

/// The part in `slot`, if no one has taken it yet.
fn take<'a, T>(slot: &Mutex<Option<&'a mut [T]>>) -> Option<&'a mut [T]> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).take()
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
            prop_assert_eq!(map_with(&items, 7, |&x| u64::from(x) * 3 + 1), plain.clone());
            let mut changed: Vec<u64> = items.iter().map(|&x| u64::from(x)).collect();
            for_each_mut_light(&mut changed, |x| *x = *x * 3 + 1);
            prop_assert_eq!(changed, plain);
        }
    }

    proptest! {
        /// The two-half check is the one-piece check, wherever multi-byte characters or
        /// bad bytes stand around the middle.
        #[test]
        fn utf8_in_halves_is_utf8_whole(
            pad in 0usize..8,
            around in prop::collection::vec(prop::sample::select(vec![
                "a".as_bytes().to_vec(), "é".as_bytes().to_vec(), "登".as_bytes().to_vec(),
                "😀".as_bytes().to_vec(), vec![0x80], vec![0xff], vec![0xe7, 0x99],
            ]), 0..12),
        ) {
            let half = UTF8_SPLIT_FROM / 2 + pad;
            let mut bytes = vec![b'x'; half - 6];
            bytes.extend(around.concat());
            bytes.extend(std::iter::repeat_n(b'y', half));
            prop_assert_eq!(is_utf8(&bytes), std::str::from_utf8(&bytes).is_ok());
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
        let mut long: Vec<Option<std::thread::ThreadId>> =
            vec![None; 4 * MIN_LIGHT_ITEMS_PER_THREAD];
        // Slow enough that the other parts' threads start before this thread could
        // take their parts.
        for_each_mut_light(&mut long, |slot| {
            std::thread::sleep(std::time::Duration::from_micros(50));
            *slot = Some(std::thread::current().id());
        });
        let distinct: std::collections::HashSet<_> = long.iter().flatten().collect();
        assert_eq!(long.iter().flatten().count(), long.len());
        assert_eq!(distinct.len(), threads().min(4));
    }
}
