//! The byte ranges of one table row's cells, held inline: reading a 10,000-row index
//! then allocates nothing per row (the index's nine cells fit), and the rows take half
//! the memory a `Vec` of ranges per row did (fewer pages to fault in a fresh process),
//! and a row's cells take 56 bytes (a 32-bit base and count, one word for the spill).

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
    base: u32,
    len: u32,
    /// Bounds relative to `base`, the first `len` used (when `spill` is `None`).
    inline: [(u16, u16); INLINE],
    /// Every cell, when the row has more than [`INLINE`], a bound is 64 KiB or more past
    /// `base`, or `base` is past 4 GiB. Boxed, so that a row whose cells are inline (every
    /// row of an index) pays one word for it, not the three of a `Vec` (a boxed slice
    /// would take two, and a copy of every cell per push).
    #[allow(clippy::box_collection)]
    spill: Option<Box<Vec<Range<usize>>>>,
}

impl Cells {
    /// No cells yet; bounds will be at or after `base`.
    pub(crate) fn new(base: usize) -> Self {
        match u32::try_from(base) {
            Ok(base) => Cells {
                base,
                len: 0,
                inline: [(0, 0); INLINE],
                spill: None,
            },
            Err(_) => Cells {
                base: 0,
                len: 0,
                inline: [(0, 0); INLINE],
                spill: Some(Box::default()),
            },
        }
    }

    /// Appends a cell's range (in the document).
    #[cfg(test)]
    pub(crate) fn push(&mut self, range: Range<usize>) {
        let base = self.base as usize;
        match (
            self.spill.is_none(),
            range.start.checked_sub(base),
            range.end.checked_sub(base),
        ) {
            (true, Some(start), Some(end)) => self.push_relative(base, start, end),
            _ => self.push_spilled(range),
        }
    }

    /// Appends the cell at `start..end` counted from `base`, which must be the `base`
    /// these cells were made with (the row's first byte): the bounds then need no
    /// conversion to be kept inline.
    #[inline]
    pub(crate) fn push_relative(&mut self, base: usize, start: usize, end: usize) {
        let len = self.len as usize;
        if len < INLINE
            && self.spill.is_none()
            && let (Ok(s), Ok(e)) = (u16::try_from(start), u16::try_from(end))
        {
            // Without a spill, `self.base` is `base` (see `Cells::new`).
            self.inline[len] = (s, e);
            self.len += 1;
            return;
        }
        self.push_spilled(base + start..base + end);
    }

    /// [`Cells::push`] for a cell that does not fit inline: every cell moves to (or
    /// already is in) the spill.
    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, range: Range<usize>) {
        let spilled: Vec<Range<usize>> = match self.spill.take() {
            Some(spill) => *spill,
            None => self.iter().collect(),
        };
        // A spilled row's number of cells is its vector's length (`len` is unused).
        self.spill.insert(Box::new(spilled)).push(range);
    }

    /// The same cells `by` bytes further into a document (a row read on its own, then
    /// placed after the text before it).
    pub(crate) fn shifted(&self, by: usize) -> Cells {
        let inline_base = u32::try_from(by)
            .ok()
            .and_then(|by| self.base.checked_add(by));
        match (&self.spill, inline_base) {
            (None, Some(base)) => Cells {
                base,
                ..self.clone()
            },
            _ => {
                let ranges: Vec<Range<usize>> =
                    self.iter().map(|r| r.start + by..r.end + by).collect();
                Cells {
                    base: 0,
                    len: 0,
                    inline: [(0, 0); INLINE],
                    spill: Some(Box::new(ranges)),
                }
            }
        }
    }

    /// The number of cells.
    ///
    /// ```
    /// let text = "| A |\n|---|\n| 1 | 2 |\n";
    /// let table = memory_core::markdown::scan_table(text, &["A"]).unwrap().table.unwrap();
    /// assert_eq!(table.rows[0].cells.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        match &self.spill {
            Some(spill) => spill.len(),
            None => self.len as usize,
        }
    }

    /// Whether there are no cells (a row always has at least one).
    ///
    /// ```
    /// let text = "| A |\n|---|\n|  |\n";
    /// let table = memory_core::markdown::find_table(text, &["A"]).unwrap().unwrap();
    /// assert!(!table.rows[0].cells.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The byte range of cell `index` in the document.
    ///
    /// ```
    /// let text = "| A |\n|---|\n| 1 |\n";
    /// let table = memory_core::markdown::find_table(text, &["A"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].cells.get(0).map(|r| &text[r]), Some("1"));
    /// ```
    pub fn get(&self, index: usize) -> Option<Range<usize>> {
        if let Some(spill) = &self.spill {
            return spill.get(index).cloned();
        }
        if index >= self.len as usize {
            return None;
        }
        let (start, end) = *self.inline.get(index)?;
        let base = self.base as usize;
        Some(base + start as usize..base + end as usize)
    }

    /// Every cell's byte range, in order.
    ///
    /// ```
    /// let text = "| A | B |\n|---|---|\n| 1 | 2 |\n";
    /// let table = memory_core::markdown::find_table(text, &["A", "B"]).unwrap().unwrap();
    /// assert_eq!(table.rows[0].cells.iter().count(), 2);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
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

    /// What a row of a 10,000-row index costs: one `TableRow` each.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_row_is_small() {
        assert_eq!(std::mem::size_of::<Cells>(), 56);
        assert_eq!(std::mem::size_of::<crate::markdown::TableRow>(), 88);
    }

    proptest! {
        /// Inline, spilled (many cells, or bounds past `u16`) or mixed, the cells read
        /// back as the `Vec` of ranges pushed.
        #[test]
        fn cells_read_back_as_pushed(
            base in prop::sample::select(vec![0usize, 7, u32::MAX as usize - 3, u32::MAX as usize + 5]),
            by in prop::sample::select(vec![0usize, 3, 70_000, u32::MAX as usize]),
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
            let shifted: Vec<Range<usize>> = expected.iter().map(|r| r.start + by..r.end + by).collect();
            prop_assert_eq!(cells.shifted(by).iter().collect::<Vec<_>>(), shifted.clone());
            prop_assert_eq!(cells.shifted(by).len(), shifted.len());
            prop_assert_eq!(cells.shifted(by).get(shifted.len()), None);
        }
    }
}
