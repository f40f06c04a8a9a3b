//! The index's session ids → row positions, keyed by the ids' text in the index itself:
//! no `String` per row and a fast (non-cryptographic) hash. The ids come from one local
//! file the caller already trusts with its memory, so hash flooding is no concern.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Row positions by id; every lookup is given `id_of`, which reads the id of the row at
/// a position (the raw first cell of that row in the index text).
#[derive(Clone, Default)]
pub(crate) struct RowIds {
    table: HashTable<usize>,
}

impl std::fmt::Debug for RowIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowIds")
            .field("ids", &self.table.len())
            .finish()
    }
}

impl RowIds {
    pub fn with_capacity(rows: usize) -> Self {
        RowIds {
            table: HashTable::with_capacity(rows),
        }
    }

    /// Records that the row at `position` holds `id`, unless a row already holds it:
    /// then `Err` with that row's position.
    pub fn insert<'t>(
        &mut self,
        id: &str,
        position: usize,
        id_of: impl Fn(usize) -> &'t str,
    ) -> Result<(), usize> {
        let hash = FxBuildHasher.hash_one(id);
        match self.table.entry(
            hash,
            |&p| id_of(p) == id,
            |&p| FxBuildHasher.hash_one(id_of(p)),
        ) {
            hashbrown::hash_table::Entry::Occupied(slot) => Err(*slot.get()),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(position);
                Ok(())
            }
        }
    }

    /// The position of the row holding `id`.
    pub fn get<'t>(&self, id: &str, id_of: impl Fn(usize) -> &'t str) -> Option<usize> {
        let hash = FxBuildHasher.hash_one(id);
        self.table.find(hash, |&p| id_of(p) == id).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// The table agrees with a `HashMap<String, usize>` filled the same way: the
        /// first row of an id wins, a later one is refused naming the first.
        #[test]
        fn agrees_with_a_hash_map(ids in prop::collection::vec("[a-c]{0,2}|登入|\\PC{0,6}", 0..60)) {
            let mut ours = RowIds::with_capacity(ids.len());
            let mut reference: HashMap<String, usize> = HashMap::new();
            for (position, id) in ids.iter().enumerate() {
                let inserted = ours.insert(id, position, |p| ids[p].as_str());
                match reference.get(id) {
                    Some(&first) => prop_assert_eq!(inserted, Err(first)),
                    None => {
                        prop_assert_eq!(inserted, Ok(()));
                        reference.insert(id.clone(), position);
                    }
                }
            }
            for probe in ids.iter().map(String::as_str).chain(["", "zz", "a-b"]) {
                prop_assert_eq!(ours.get(probe, |p| ids[p].as_str()), reference.get(probe).copied());
            }
        }
    }
}
