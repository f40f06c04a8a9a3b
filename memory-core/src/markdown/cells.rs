//! The byte ranges of one table row's cells, held inline: reading a 10,000-row index
//! then allocates nothing per row (the index's nine cells fit), and the rows take half
//! the memory a `Vec` of ranges per row did (fewer pages to fault in a fresh process).

use std::fmt;
use std::ops::Range;

/// Cells kept inline (as 16-bit offsets from the row's start: rows are short); a row
/// with more cells, or longer than 64 KiB, spills all its cells to the heap.
const INLINE: usize = 9;

/// The byte ranges in the document of a row's trimmed, still escaped cells, in order.
///
/// ```
/// use memory_core::markdown::find_table;
/// let text = "| A | B |\n|---|---|\n| x | yz |\n";
/// let row = &find_table(text, &["A", "B"]).unwrap().unwrap().rows[0];
/// assert_eq!(row.cells.len(), 2);
/// assert_eq!(row.cells.get(1), Some(26..28));
/// assert_eq!(row.cells.iter().map(|r| &text[r]).collect::<Vec<_>>(), ["x", "yz"]);
/// assert_eq!(row.cells.get(2), None);
/// ```
#[derive(Clone)]
pub struct Cells {
    /// The offset the inline bounds count from (the row's first byte).
    base: usize,
    len: usize,
    /// Bounds relative to `base`, the first `len` used (when `spill` is empty).
    inline: [(u16, u16); INLINE],
    /// Every cell, when the row has more than [`INLINE`] or a bound is 64 KiB or more
    /// past `base`.
    spill: Vec<Range<usize>>,
}

impl Cells {
    /// No cells yet; bounds will be at or after `base`.
    pub(crate) fn new(base: usize) -> Self {
        Cells {
            base,
            len: 0,
            inline: [(0, 0); INLINE],
            spill: Vec::new(),
        }
    }

    /// Appends a cell's range.
    #[inline]
    pub(crate) fn push(&mut self, range: Range<usize>) {
        if self.spill.is_empty()
            && self.len < INLINE
            && let Some(start) = self.relative(range.start)
            && let Some(end) = self.relative(range.end)
        {
            self.inline[self.len] = (start, end);
            self.len += 1;
            return;
        }
        if self.spill.is_empty() {
            self.spill = self.iter().collect();
        }
        self.spill.push(range);
        self.len += 1;
    }

    /// The same cells `by` bytes further into a document (a row read on its own, then
    /// placed after the text before it).
    pub(crate) fn shifted(&self, by: usize) -> Cells {
        let mut cells = self.clone();
        cells.base += by;
        for range in &mut cells.spill {
            *range = range.start + by..range.end + by;
        }
        cells
    }

    fn relative(&self, at: usize) -> Option<u16> {
        at.checked_sub(self.base)
            .and_then(|d| u16::try_from(d).ok())
    }

    /// The number of cells.
    ///
    /// ```
    /// let text = "| A |\n|---|\n| 1 | 2 |\n";
    /// let table = memory_core::markdown::scan_table(text, &["A"]).unwrap().table.unwrap();
    /// assert_eq!(table.rows[0].cells.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no cells (a row always has at least one).
    ///
    /// ```
    /// let text = "| A |\n|---|\n|  |\n";
    /// let table = memory_core::markdown::find_table(text, &["A"]).unwrap().unwrap();
    /// assert!(!table.rows[0].cells.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The byte range of cell `index` in the document.
    ///
    /// ```
    /// let text = "| A |\n|---|\n| 1 |\n";
    /// let table = memory_core::markdown::find_table(text, &["A"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].cells.get(0).map(|r| &text[r]), Some("1"));
    /// ```
    pub fn get(&self, index: usize) -> Option<Range<usize>> {
        if index >= self.len {
            return None;
        }
        if !self.spill.is_empty() {
            return self.spill.get(index).cloned();
        }
        let (start, end) = self.inline[index];
        Some(self.base + start as usize..self.base + end as usize)
    }

    /// Every cell's byte range, in order.
    ///
    /// ```
    /// let text = "| A | B |\n|---|---|\n| 1 | 2 |\n";
    /// let table = memory_core::markdown::find_table(text, &["A", "B"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].cells.iter().count(), 2);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }
}

impl PartialEq for Cells {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Cells {}

impl fmt::Debug for Cells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Inline, spilled (many cells, or bounds past `u16`) or mixed, the cells read
        /// back as the `Vec` of ranges pushed.
        #[test]
        fn cells_read_back_as_pushed(
            base in prop::sample::select(vec![0usize, 7, u32::MAX as usize - 3]),
            widths in prop::collection::vec((0usize..5, prop_oneof![0usize..6, 20_000usize..40_000]), 0..20),
        ) {
            let mut cells = Cells::new(base);
            let mut expected = Vec::new();
            let mut at = base;
            for (gap, width) in widths {
                let range = at + gap..at + gap + width;
                at = range.end;
                cells.push(range.clone());
                expected.push(range);
            }
            prop_assert_eq!(cells.iter().collect::<Vec<_>>(), expected.clone());
            prop_assert_eq!(cells.len(), expected.len());
            prop_assert_eq!(cells.get(expected.len()), None);
            prop_assert_eq!(format!("{cells:?}"), format!("{expected:?}"));
        }
    }
}
