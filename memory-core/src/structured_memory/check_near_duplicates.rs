//! `check`'s near-duplicate rule: index lines of two different topic files with the same
//! title and the same hook (words compared case folded, runs of white space as one). A
//! session deciding from the index alone cannot tell them apart, so recall ties them and
//! loads both or neither; the seed's answer is to merge them. Two lines for one file are
//! `duplicate_index_line`, not this.

use std::collections::BTreeMap;

use super::check::{Violation, ViolationKind};
use super::index_file::{INDEX_FILE_NAME, IndexLine, MemoryIndex};
use super::topic_name::name_key;

/// One `near_duplicate_topics` violation at each line whose title and hook an earlier
/// line of another file has, naming that line.
pub(super) fn near_duplicates(index: &MemoryIndex) -> Vec<Violation> {
    near_duplicate_pairs(index)
        .into_iter()
        .map(|(line, first)| Violation {
            kind: ViolationKind::NearDuplicateTopics,
            file: INDEX_FILE_NAME.to_string(),
            line: line.line,
            message: format!(
                "{} has the title and hook of {} (line {}): a session cannot tell them apart from the index; merge them (keep what is true in one) or give each a hook that says what it holds",
                line.file, first.file, first.line
            ),
        })
        .collect()
}

/// The near-duplicates of the index, in file order: each line (the first of its file)
/// whose title and (non-empty) hook the first line of an earlier file has, with that
/// earlier line. What `check` reports and the default index pass merges (the later into
/// the earlier).
pub(super) fn near_duplicate_pairs(index: &MemoryIndex) -> Vec<(&IndexLine, &IndexLine)> {
    let mut first: BTreeMap<(String, String), &IndexLine> = BTreeMap::new();
    let mut files_seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for line in &index.lines {
        // A second line for one file is another rule's.
        if !files_seen.insert(name_key(&line.file)) {
            continue;
        }
        let key = (fold(&line.title), fold(&line.hook));
        if key.1.is_empty() {
            // An empty hook is `empty_hook`'s.
            continue;
        }
        match first.get(&key) {
            Some(earlier) => out.push((line, *earlier)),
            None => {
                first.insert(key, line);
            }
        }
    }
    out
}

/// `text` lowercased, its words joined by one space.
fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_title_and_hook_for_two_files_is_reported_at_the_later_line() {
        let index = MemoryIndex::parse(
            "MEMORY.md",
            "- [P: Beta](memory-p-beta.md) — Beta\n- [P: beta](memory-p-beta-2.md) —  beta\n- [P: Beta](memory-p-gamma.md) — Gamma\n- [P: Beta](memory-p-beta.md) — Beta\n- [Q](memory-q.md)\n- [Q](memory-q2.md)\n",
        )
        .unwrap();
        let found = near_duplicates(&index);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert!(
            found[0].message.starts_with(
                "memory-p-beta-2.md has the title and hook of memory-p-beta.md (line 1)"
            ),
            "{}",
            found[0].message
        );
    }
}
