//! The deterministic index pass ([`DefaultCompactor`](super::DefaultCompactor)'s, and every
//! [`Compactor`](super::Compactor)'s that does not say otherwise): near-duplicate topics —
//! index lines of two files with the same title words and hook words (up to case,
//! punctuation, order, common words and plurals), the pairs of `check`'s
//! `near_duplicate_topics` with that clear evidence — merged, the later into the earlier
//! (pairs only [`NEAR_DUPLICATE_SIMILARITY`](super::NEAR_DUPLICATE_SIMILARITY) similar
//! are left); a content line
//! moved to the topic whose title and hook clearly match its words, scored as `recall`
//! scores a query ([`ROUTE_MIN_POINTS`], [`ROUTE_MARGIN`]). What has no clear home stays
//! (the pass then says the index needs judgment).

use std::collections::{BTreeMap, BTreeSet};

use super::catch_all::catch_all_line;
use super::check_near_duplicates::near_duplicate_pairs;
use super::compact_index::routed_text;
use super::index_file::{IndexLine, MemoryIndex};
use super::memory::RESERVED_FILES;
use super::read::{line_points, query_words};
use super::topic_name::name_key;

/// The least a topic's index line must score for the default index pass to move a
/// content line of `MEMORY.md` into it, in `recall`'s points: each word of the line 2 in
/// the title, 1 in the hook or file name, half that as a prefix. 2 is one word of the
/// title, or two of the hook.
///
/// ```
/// use memory_core::structured_memory::ROUTE_MIN_POINTS;
/// assert_eq!(ROUTE_MIN_POINTS, 2.0);
/// ```
pub const ROUTE_MIN_POINTS: f64 = 2.0;

/// How many times the runner-up's score the best topic must score for the default index
/// pass to move a content line into it: a line two topics match about as well stays.
///
/// ```
/// use memory_core::structured_memory::ROUTE_MARGIN;
/// assert_eq!(ROUTE_MARGIN, 2.0);
/// ```
pub const ROUTE_MARGIN: f64 = 2.0;

/// How many index lines each linked file has (by name key).
fn lines_per_file(index: &MemoryIndex) -> BTreeMap<String, usize> {
    let mut count = BTreeMap::new();
    for line in &index.lines {
        *count.entry(name_key(&line.file)).or_insert(0) += 1;
    }
    count
}

/// Whether the pass may write into (or merge away) `file`: not a reserved file, one index
/// line, and (when the pass has looked) a topic that reads and may be written.
fn usable(index: &MemoryIndex, count: &BTreeMap<String, usize>, file: &str) -> bool {
    let key = name_key(file);
    !RESERVED_FILES.iter().any(|r| r.eq_ignore_ascii_case(file))
        && count.get(&key) == Some(&1)
        && index
            .usable_topics
            .as_ref()
            .is_none_or(|u| u.contains(&key))
}

/// The default merges: each near-duplicate line's file into the earlier file whose title
/// and hook have the same words (the clear evidence; a pair that is only similar is
/// reported by `check` and left), when both can be merged (see [`usable`]).
pub(super) fn default_merges(index: &MemoryIndex) -> Vec<(String, String)> {
    let count = lines_per_file(index);
    near_duplicate_pairs(index)
        .into_iter()
        .filter(|pair| pair.same_words)
        .filter(|pair| {
            usable(index, &count, &pair.later.file) && usable(index, &count, &pair.earlier.file)
        })
        .map(|pair| (pair.later.file.clone(), pair.earlier.file.clone()))
        .collect()
}

/// The default routes: each content line that stands alone (see
/// [`ContentLine`](super::ContentLine)) to the topic whose index line scores best for its
/// words, when that is at least [`ROUTE_MIN_POINTS`] and [`ROUTE_MARGIN`] times the
/// runner-up's, and the topic can be written into. The topics are the first line of each
/// file but catch-all ones and those the default merges away (their text joins the one
/// they merge into, which competes for them).
pub(super) fn default_routes(index: &MemoryIndex) -> Vec<(usize, String)> {
    let count = lines_per_file(index);
    let merged_away: BTreeSet<String> = default_merges(index)
        .iter()
        .map(|(from, _)| name_key(from))
        .collect();
    let mut seen = BTreeSet::new();
    let topics: Vec<&IndexLine> = index
        .lines
        .iter()
        .filter(|l| seen.insert(name_key(&l.file)))
        .filter(|l| !merged_away.contains(&name_key(&l.file)))
        .filter(|l| {
            !RESERVED_FILES
                .iter()
                .any(|r| r.eq_ignore_ascii_case(&l.file))
        })
        .filter(|l| catch_all_line(&l.file, &l.title, &l.hook).is_none())
        .collect();
    let mut routes = Vec::new();
    for (i, content) in index.content.iter().enumerate() {
        if !content.standalone {
            continue;
        }
        let words = query_words(routed_text(&content.text));
        if words.is_empty() {
            continue;
        }
        let mut best: Option<(&IndexLine, f64)> = None;
        let mut second = 0.0_f64;
        for line in &topics {
            let points = line_points(&words, line);
            match best {
                Some((_, b)) if points <= b => second = second.max(points),
                _ => {
                    if let Some((_, b)) = best {
                        second = second.max(b);
                    }
                    best = Some((line, points));
                }
            }
        }
        if let Some((line, points)) = best
            && points >= ROUTE_MIN_POINTS
            && points >= ROUTE_MARGIN * second
            && usable(index, &count, &line.file)
        {
            routes.push((i, line.file.clone()));
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> MemoryIndex {
        MemoryIndex::parse("MEMORY.md", text).unwrap()
    }

    #[test]
    fn a_line_goes_to_the_topic_it_clearly_matches_and_stays_when_none_or_two_do() {
        let i = index(
            "# Memory\n\n- [Deploy](memory-deploy.md) — pipeline order, release hooks\n- [Infra](memory-infra.md) — hosts, databases, backups\n- [Databases](memory-db.md) — postgres, replicas\n\nThe deploy hook must run before the version bump\n\nPostgres backups run nightly\n\nRemember to water the plants\n\n- Databases: db1 is postgres\n",
        );
        // Deploy: the title (2) and a hook prefix (`hook`, `hooks`); Postgres backups: 1
        // for Infra, 1 for Databases (a tie); the plants: nothing; the last: Databases'
        // title and hook (4) over Infra's prefix (`databases`: 1).
        assert_eq!(
            default_routes(&i),
            [
                (0, "memory-deploy.md".to_string()),
                (3, "memory-db.md".to_string())
            ]
        );
    }

    #[test]
    fn only_lines_standing_alone_are_routed() {
        let i = index(
            "- [Deploy](memory-deploy.md) — pipeline\nthe deploy runs first\n\n```\ndeploy\n```\n\n- deploy item\n  deploy continued\n\n> deploy quoted\n\n| deploy | table |\n\n- deploy alone\n\ndeploy text\nand deploy wrapped\n",
        );
        let alone: Vec<&str> = i
            .content
            .iter()
            .filter(|c| c.standalone)
            .map(|c| c.text.as_str())
            .collect();
        // A line continuing the pointer's item, a one-line item, text line by line.
        assert_eq!(
            alone,
            [
                "the deploy runs first",
                "- deploy alone",
                "deploy text",
                "and deploy wrapped"
            ]
        );
        let routed: Vec<usize> = default_routes(&i).into_iter().map(|(k, _)| k).collect();
        let texts: Vec<&str> = routed.iter().map(|&k| i.content[k].text.as_str()).collect();
        assert_eq!(texts, alone);
    }

    #[test]
    fn near_duplicates_merge_later_into_earlier_unless_a_file_has_two_lines() {
        let i = index(
            "- [Infra](memory-infra.md) — hosts\n- [infra](memory-infra-2.md) —  Hosts\n- [Infra](memory-infra-3.md) — hosts\n- [X](memory-x.md) — y\n- [X](memory-x-2.md) — y\n- [Again](memory-x-2.md) — z\n",
        );
        assert_eq!(
            default_merges(&i),
            [
                (
                    "memory-infra-2.md".to_string(),
                    "memory-infra.md".to_string()
                ),
                (
                    "memory-infra-3.md".to_string(),
                    "memory-infra.md".to_string()
                ),
            ]
        );
        let mut unusable = i.clone();
        unusable.usable_topics = Some(
            ["memory-infra.md", "memory-infra-3.md"]
                .iter()
                .map(|f| name_key(f))
                .collect(),
        );
        assert_eq!(
            default_merges(&unusable),
            [(
                "memory-infra-3.md".to_string(),
                "memory-infra.md".to_string()
            )]
        );
    }
}
