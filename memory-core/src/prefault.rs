//! Asking the kernel to map a large new buffer's pages in one call, before it is filled:
//! a fresh process that reads a 3 MB index otherwise takes one page fault per 4 KiB
//! page, which on the virtual machines agents run in costs more than the read itself.

/// Below this many bytes a buffer is left to fault in page by page.
const PREFAULT_MIN_BYTES: usize = 256 * 1024;

/// Maps the pages of `vec`'s allocated capacity (Linux 5.14+ `MADV_POPULATE_WRITE`);
/// nothing happens elsewhere, on older kernels, or for small buffers. The contents are
/// not changed.
pub(crate) fn prefault<T>(vec: &mut Vec<T>) {
    let capacity = vec.capacity();
    if capacity.saturating_mul(std::mem::size_of::<T>()) >= PREFAULT_MIN_BYTES {
        populate(vec, 0, capacity);
    }
}

/// A vector whose final length is not known (a table's rows while they are read),
/// grown by doubling, whose pages are mapped [`PREFAULT_MIN_BYTES`] at a time just
/// ahead of the elements pushed once it is large: a few calls instead of one fault per
/// page, and never more than one step past the last element (a doubled capacity is
/// mostly room that is never written).
#[derive(Debug)]
pub(crate) struct Growing<T> {
    vec: Vec<T>,
    /// The elements before this index have their pages mapped (or are small).
    mapped: usize,
}

impl<T> Growing<T> {
    pub(crate) fn new() -> Self {
        Growing {
            vec: Vec::new(),
            mapped: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        let len = self.vec.len();
        if len == self.vec.capacity() {
            self.vec.reserve(len.max(16));
        }
        if len >= self.mapped {
            let size = std::mem::size_of::<T>().max(1);
            let step = (PREFAULT_MIN_BYTES / size).max(1);
            let room = (self.vec.capacity() - len).min(step);
            // A small vector lives in the allocator's heap and is copied when it grows;
            // only a large one (its own mapping, moved without copying) is mapped ahead.
            if self.vec.capacity().saturating_mul(size) >= PREFAULT_MIN_BYTES / 2 {
                populate(&mut self.vec, len, room);
            }
            self.mapped = len + room;
        }
        self.vec.push(item);
    }

    pub(crate) fn into_vec(self) -> Vec<T> {
        self.vec
    }
}

/// Maps the pages of the capacity of `vec` from element `from` on, `count` elements at
/// most.
fn populate<T>(vec: &mut Vec<T>, from: usize, count: usize) {
    #[cfg(target_os = "linux")]
    {
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        const PAGE: usize = 4096;
        let size = std::mem::size_of::<T>();
        let bytes = vec
            .capacity()
            .saturating_sub(from)
            .min(count)
            .saturating_mul(size);
        let start = vec.as_mut_ptr() as usize + from * size;
        // Whole pages inside the allocation only.
        let first = start.div_ceil(PAGE) * PAGE;
        let end = (start + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: `first..end` lies inside the allocation `vec` owns (its capacity,
            // from element `from` on), page-aligned as madvise requires.
            // MADV_POPULATE_WRITE only populates page tables as a write would, without
            // writing: no byte of the buffer changes and no other memory is touched. A
            // failure (an older kernel's EINVAL) is ignored: the pages then fault in as
            // they are written.
            let _ = unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, MADV_POPULATE_WRITE)
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (vec, from, count);
}

#[cfg(test)]
mod tests {
    #[test]
    fn prefaulting_keeps_the_contents() {
        let mut v: Vec<u8> = Vec::with_capacity(1 << 20);
        v.extend_from_slice(b"kept");
        super::prefault(&mut v);
        assert_eq!(v, b"kept");
        let mut small: Vec<u64> = vec![1, 2, 3];
        super::prefault(&mut small);
        assert_eq!(small, [1, 2, 3]);
        let mut grown = super::Growing::new();
        for i in 0..200_000u64 {
            grown.push(i);
        }
        assert!(grown.into_vec().into_iter().eq(0..200_000));
    }
}
