//! The seed's lazy self-healing triggers, checked by every reader against the directory
//! listing: the rows' names sorted once (usually a check: rows are appended in order)
//! and each listed name looked up in them, files opened only when they have no row.

use super::index_file::IndexFile;
use super::index_rows::RowRef;
use super::memory::ContextMemory;
use super::namespace::Namespace;
use crate::error::Result;

impl IndexFile {
    /// Each row's entity name and file name, for [`ContextMemory::needs_heal`].
    pub(super) fn keys(&self) -> impl Iterator<Item = (&str, &str)> {
        self.rows
            .iter()
            .map(|r| (r.entity.as_str(), r.file.as_str()))
    }
}

/// Each borrowed row's entity name and file name, for [`ContextMemory::needs_heal`].
pub(super) fn keys_of<'r>(rows: &'r [RowRef<'_>]) -> impl Iterator<Item = (&'r str, &'r str)> {
    rows.iter().map(|r| (&*r.entity, &*r.file))
}

impl ContextMemory {
    /// The seed's lazy triggers, from the directory listing and the index's rows
    /// (`rows`: each row's entity name and file name): a row whose file is gone, an
    /// entity with two rows (or a file with two), an entity file (`{category}-….md`)
    /// with no row that reads (a file with no row that does not read is already known:
    /// it is reported by `verify` and changes nothing, so it triggers nothing). Only the
    /// unindexed files are opened, in name order, and only when the rows alone trigger
    /// nothing. The listing holds entity files only: a foreign file (`README.md`) is not
    /// in it and triggers nothing.
    pub(super) fn needs_heal<'r, 'l>(
        &self,
        namespace: &Namespace,
        rows: impl Iterator<Item = (&'r str, &'r str)>,
        listing: impl IntoIterator<Item = &'l String>,
    ) -> Result<bool> {
        let (mut entities, mut files): (Vec<&str>, Vec<&str>) = rows.unzip();
        // Rows are appended in order, so both lists are usually sorted already (the
        // sort then only checks it).
        entities.sort_unstable();
        files.sort_unstable();
        if has_repeats(&entities) || has_repeats(&files) {
            return Ok(true);
        }
        // Each listed name looked up among the rows' files (the listing comes in the
        // directory's order, which is not sorted): every row's file must be listed;
        // the listed names no row holds are kept.
        let mut listed = 0usize;
        let mut unindexed = Vec::new();
        for name in listing {
            match files.binary_search(&name.as_str()) {
                Ok(_) => listed += 1,
                Err(_) => unindexed.push(name.as_str()),
            }
        }
        // The rows' files are distinct, so all are listed when as many names matched
        // (a listing names each file once).
        if listed != files.len() {
            return Ok(true);
        }
        unindexed.sort_unstable();
        for name in unindexed {
            // A readable copy of an indexed entity is kept out by heal anyway.
            if self
                .entity_of_file(namespace, name)?
                .is_some_and(|entity| entities.binary_search(&entity.as_str()).is_err())
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Whether the sorted list `items` holds one item twice.
fn has_repeats(items: &[&str]) -> bool {
    items.windows(2).any(|w| w[0] == w[1])
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;
    use crate::context_memory::{EntityName, is_entity_file_name};
    use proptest::prelude::*;

    /// The triggers as they were checked before (hash sets, a tree look-up per row),
    /// the reference for the sorted walk.
    fn reference(
        memory: &ContextMemory,
        namespace: &Namespace,
        rows: &[(String, String)],
        listing: &BTreeSet<String>,
    ) -> Result<bool> {
        let mut entities = HashSet::new();
        let mut files = HashSet::new();
        for (entity, file) in rows {
            if !listing.contains(file)
                || !entities.insert(entity.as_str())
                || !files.insert(file.as_str())
            {
                return Ok(true);
            }
        }
        for name in listing {
            if files.contains(name.as_str()) || !is_entity_file_name(name) {
                continue;
            }
            if memory
                .entity_of_file(namespace, name)?
                .is_some_and(|entity: EntityName| !entities.contains(entity.as_str()))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    const ENTITIES: [&str; 4] = [
        "org.global.decision.001",
        "org.global.decision.002",
        "org.global.risk.001",
        "org.global.decision.010",
    ];

    fn entity_text(name: &str) -> String {
        let category = name.split('.').nth(2).unwrap_or_default();
        format!(
            "---\nentity_name: {name}\nnamespace: org.global\ncategory: {category}\nstatus: accepted\ntags: [a, b]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nBody.\n"
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(192))]

        /// The sorted look-ups fire exactly when the hash sets fired, over directories of
        /// readable, unreadable and foreign files and rows that repeat, miss or point
        /// at the wrong file.
        #[test]
        fn sorted_look_ups_equal_the_hash_sets(
            files in prop::collection::btree_map(
                prop_oneof![
                    Just("decision-001-a.md"), Just("decision-002-b.md"), Just("risk-001-c.md"),
                    Just("decision-010-d.md"), Just("README.md"), Just("notes.md"), Just("decision-x.md"),
                ],
                0usize..6,
                0..7,
            ),
            rows in prop::collection::vec(
                (0usize..4, prop_oneof![
                    Just("decision-001-a.md"), Just("decision-002-b.md"), Just("risk-001-c.md"),
                    Just("decision-010-d.md"), Just("gone.md"), Just("README.md"),
                ]),
                0..6,
            ),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let memory = ContextMemory::open(dir.path()).unwrap();
            let ns = Namespace::org_global();
            let ns_dir = memory.namespace_dir(&ns);
            std::fs::create_dir_all(&ns_dir).unwrap();
            for (file, content) in &files {
                // 0–3: a readable entity; 4: broken frontmatter; 5: no frontmatter.
                let text = match content {
                    0..=3 => entity_text(ENTITIES[*content]),
                    4 => "---\nentity_name: [\n---\n".to_string(),
                    _ => "# notes\n".to_string(),
                };
                std::fs::write(ns_dir.join(file), text).unwrap();
            }
            let rows: Vec<(String, String)> = rows
                .into_iter()
                .map(|(e, f)| (ENTITIES[e].to_string(), f.to_string()))
                .collect();
            let listing = memory.list_dir(&ns).unwrap();
            let new = memory
                .needs_heal(&ns, rows.iter().map(|(e, f)| (e.as_str(), f.as_str())), &listing)
                .unwrap();
            // In the directory's order, as a query's listing comes.
            let unsorted: Vec<String> = listing.iter().rev().cloned().collect();
            let from_unsorted = memory
                .needs_heal(&ns, rows.iter().map(|(e, f)| (e.as_str(), f.as_str())), &unsorted)
                .unwrap();
            prop_assert_eq!(new, from_unsorted);
            let old = reference(&memory, &ns, &rows, &listing).unwrap();
            prop_assert_eq!(new, old, "{:?} / {:?}", files, rows);
        }
    }
}
