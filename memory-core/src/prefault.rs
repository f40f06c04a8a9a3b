//! Asking the kernel to map a large new buffer's pages in one call, before it is filled:
//! a fresh process that reads a 3 MB index otherwise takes one page fault per 4 KiB
//! page, which on the virtual machines agents run in costs more than the read itself.

/// Below this many bytes a buffer is left to fault in page by page.
const PREFAULT_MIN_BYTES: usize = 256 * 1024;

/// Maps the pages of `vec`'s allocated capacity (Linux 5.14+ `MADV_POPULATE_WRITE`);
/// nothing happens elsewhere, on older kernels, or for small buffers. The contents are
/// not changed.
pub(crate) fn prefault<T>(vec: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const MADV_POPULATE_WRITE: libc::c_int = 23;
        const PAGE: usize = 4096;
        let bytes = vec.capacity().saturating_mul(std::mem::size_of::<T>());
        if bytes < PREFAULT_MIN_BYTES {
            return;
        }
        let start = vec.as_mut_ptr() as usize;
        // Whole pages inside the allocation only.
        let first = start.div_ceil(PAGE) * PAGE;
        let end = (start + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: `first..end` lies inside the allocation `vec` owns (its capacity),
            // page-aligned as madvise requires. MADV_POPULATE_WRITE only populates page
            // tables as a write would, without writing: no byte of the buffer changes and
            // no other memory is touched. A failure (an older kernel's EINVAL) is ignored:
            // the pages then fault in as they are written.
            let _ = unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, MADV_POPULATE_WRITE)
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = vec;
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
    }
}
