//! The seed's read protocol as a query answered from `_index.md` alone.

use std::path::PathBuf;

use serde::Serialize;

use super::entity_file::EntityFile;
use super::index_rows::RowRef;
use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::{Namespace, NamespaceKind};
use super::namespaces::Listing;
use super::schema::{Category, EntryStatus};
use crate::agent_memory::Warning;
use crate::error::{Error, Result};

/// How many hits a query returns by default (the seed: "max 5 per query").
pub const DEFAULT_QUERY_LIMIT: usize = 5;

/// What to look for. Empty fields match everything; `namespaces` empty means every
/// namespace except `session.current`, which is read only when named (the seed: "Do NOT
/// query session/current/ unless explicitly needed"). A named namespace includes its
/// domains (`project.myapp` finds `project.myapp.api` entries after a split).
///
/// ```
/// use memory_core::context_memory::{Category, Query};
/// let q = Query::new().namespace("project.myapp").unwrap().category(Category::Decision).tags(["auth"]).text("jwt");
/// assert_eq!(q.limit, 5);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Query {
    /// The namespaces to search (and their domains).
    pub namespaces: Vec<Namespace>,
    /// Only this category.
    pub category: Option<Category>,
    /// Entries sharing at least one of these tags (compared without case); more shared
    /// tags rank higher.
    pub tags: Vec<String>,
    /// Words that must all appear (without case) in the entry's summary, tags or name.
    pub text: Option<String>,
    /// Include deprecated and superseded entries (reviewing history).
    pub include_history: bool,
    /// At most this many hits.
    pub limit: usize,
}

impl Default for Query {
    fn default() -> Self {
        Query {
            namespaces: Vec::new(),
            category: None,
            tags: Vec::new(),
            text: None,
            include_history: false,
            limit: DEFAULT_QUERY_LIMIT,
        }
    }
}

impl Query {
    /// A query for everything (outside `session.current`), five hits at most.
    pub fn new() -> Self {
        Query::default()
    }

    /// Adds a namespace to search (validated).
    pub fn namespace(mut self, namespace: &str) -> Result<Self> {
        self.namespaces.push(Namespace::parse(namespace)?);
        Ok(self)
    }

    /// Only entries of `category`.
    pub fn category(mut self, category: Category) -> Self {
        self.category = Some(category);
        self
    }

    /// Entries sharing these tags rank by how many they share.
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.tags = tags
            .into_iter()
            .map(Into::into)
            .map(|t: String| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        self
    }

    /// Words that must all appear.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Include deprecated and superseded entries.
    pub fn include_history(mut self, yes: bool) -> Self {
        self.include_history = yes;
        self
    }

    /// At most `limit` hits (`usize::MAX` for all).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }
}

/// One entry a query found, as its index row gives it, with the three fields only its
/// file holds (`created_at`, `updated_at`, `supersedes`).
///
/// The seed's read protocol ranks and filters from `_index.md` alone, then "read\[s\]
/// individual .md files only for matches; max 5 per query": those three fields are read
/// from each hit's file after the ranking and the limit, so a query opens at most
/// `limit` entity files. When a hit's file does not read, they are `None` (`null` in
/// JSON: the index does not know) and the query's warnings name the file and line; the
/// hit itself is still answered from its row.
///
/// ```
/// use memory_core::context_memory::{Category, ContextMemory, NewEntry, Query};
/// let dir = tempfile::tempdir().unwrap();
/// let memory = ContextMemory::builder(dir.path()).fixed_time("2026-04-03T10:00:00Z").unwrap().open().unwrap();
/// memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
/// let hit = &memory.query(&Query::new()).unwrap()[0];
/// assert_eq!(hit.created_at.as_deref(), Some("2026-04-03T10:00:00Z"));
/// assert_eq!(hit.supersedes.as_deref(), Some(&[][..]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Hit {
    /// The entity's name.
    pub entity_name: EntityName,
    /// Its namespace.
    pub namespace: Namespace,
    /// Its category.
    pub category: Category,
    /// Its status.
    pub status: EntryStatus,
    /// Its tags.
    pub tags: Vec<String>,
    /// The index summary.
    pub summary: String,
    /// When the entry was created (from its file; `None` when the file does not read).
    pub created_at: Option<String>,
    /// When the entry was last updated (from its file; `None` when the file does not
    /// read or has none).
    pub updated_at: Option<String>,
    /// What the entry supersedes (from its file; `None` when the file does not read).
    pub supersedes: Option<Vec<EntityName>>,
    /// The entity file, relative to the root.
    pub file: PathBuf,
    /// How many of the query's tags it carries.
    pub tag_overlap: usize,
    /// How many rows of its namespace's index come after its row (0: the newest of its
    /// namespace): the index's record of creation order, rows being appended as
    /// entries are written.
    #[serde(skip)]
    pub(super) age: usize,
}

/// What a query found and what it could not read.
///
/// ```
/// use memory_core::context_memory::{ContextMemory, Query};
/// let dir = tempfile::tempdir().unwrap();
/// let answer = ContextMemory::open(dir.path()).unwrap().query_answer(&Query::new()).unwrap();
/// assert!(answer.hits.is_empty() && answer.warnings.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct QueryAnswer {
    /// The entries found, best first.
    pub hits: Vec<Hit>,
    /// What was left out, each with its path: a namespace whose `_index.md` is a
    /// symbolic link (an unscoped query skips it; a query naming it fails), a hit's file
    /// that does not read (its three file-only fields are `None`).
    pub warnings: Vec<Warning>,
}

impl ContextMemory {
    /// Answers `query` from the `_index.md` files, in the seed's order of preference:
    /// accepted before experimental (then deprecated and superseded, when history is
    /// asked for), more shared tags first, then the most recent first, then by name.
    /// See [`ContextMemory::query_answer`] for the warnings.
    ///
    /// "Recent" is the index's row order: rows are appended as entries are written, so
    /// a later row is a later `created_at` (the index has no `created_at` column, and the
    /// seed's six columns are kept). Within a namespace the last row is the newest,
    /// whatever its short id (`…decision.002` written after `…decision.010`, or a
    /// descriptive id written last, ranks first); across namespaces, hits are compared
    /// by how many rows of their own index come after them (each namespace's newest
    /// first), then by entity name. A namespace whose directory does not exist has
    /// no memory.
    ///
    /// Indexes are read without the lock; one whose directory listing shows drift (a row
    /// whose file is gone, a file without a row, a repeated row) is healed under the
    /// lock first, as the seed's "Index Self-Healing" asks. An index that does not read
    /// fails the query, naming its file and line, and is not rewritten (only `heal`
    /// rebuilds it, keeping the old text). Only the hits' files are opened, at most
    /// `limit` (see [`Hit`]).
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry, Query};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
    /// let hits = memory.query(&Query::new().tags(["auth"])).unwrap();
    /// assert_eq!(hits[0].entity_name.as_str(), "org.global.decision.001");
    /// assert_eq!(hits[0].file, std::path::Path::new("org/global/decision-001-auth-uses-jwt.md"));
    /// ```
    pub fn query(&self, query: &Query) -> Result<Vec<Hit>> {
        self.query_answer(query).map(|answer| answer.hits)
    }

    /// [`ContextMemory::query`] with what it could not read: a namespace whose
    /// `_index.md` is a symbolic link is left out of a query that does not name it (with
    /// a warning naming the link), while a query naming it fails with
    /// [`Error::LinkRefused`]; a hit whose file does not read keeps `None` in its
    /// file-only fields, with a warning naming the file and line.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry, Query};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
    /// let answer = memory.query_answer(&Query::new()).unwrap();
    /// assert_eq!(answer.hits.len(), 1);
    /// assert!(answer.warnings.is_empty());
    /// ```
    pub fn query_answer(&self, query: &Query) -> Result<QueryAnswer> {
        // Held for the whole query when it finished an interrupted change: a heal on the
        // way then runs under it rather than waiting for it.
        let guard = self.handle.read_guard()?;
        let namespaces: Vec<(Namespace, Listing)> = self
            .namespace_listings()?
            .into_iter()
            .filter(|(ns, _)| {
                if query.namespaces.is_empty() {
                    ns.kind() != NamespaceKind::Session
                } else {
                    query.namespaces.iter().any(|wanted| ns.is_within(wanted))
                }
            })
            .collect();
        let tags: Vec<String> = query.tags.iter().map(|t| t.to_lowercase()).collect();
        let words: Vec<String> = query
            .text
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let mut answer = QueryAnswer::default();
        for (namespace, listing) in namespaces {
            let best = self.with_index_rows(&namespace, &listing.files, guard.as_ref(), |rows| {
                best_hits(&namespace, rows, query, &tags, &words)
            });
            match best {
                Ok(hits) => answer.hits.extend(hits),
                Err(error @ Error::LinkRefused { .. })
                    if !query.namespaces.contains(&namespace) =>
                {
                    answer.warnings.push(Warning::from_error(&error, 0));
                }
                Err(error) => return Err(error),
            }
        }
        answer.hits.sort_by(|a, b| {
            rank_order(
                (a.status, a.tag_overlap, a.age, a.entity_name.as_str()),
                (b.status, b.tag_overlap, b.age, b.entity_name.as_str()),
            )
        });
        answer.hits.truncate(query.limit);
        for hit in &mut answer.hits {
            if let Err(error) = self.fill_from_file(hit) {
                if !super::scan::is_file_problem(&error) {
                    return Err(error);
                }
                answer
                    .warnings
                    .push(Warning::from_error(&error, error.line().unwrap_or(0)));
            }
        }
        Ok(answer)
    }

    /// Reads `hit`'s file for the fields the index does not hold.
    fn fill_from_file(&self, hit: &mut Hit) -> Result<()> {
        let name = hit
            .file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let path = self.file_in(&hit.namespace, name)?;
        let file = EntityFile::load(&path, hit.file.clone(), &hit.namespace, None)?;
        if file.entry.entity_name != hit.entity_name {
            return Err(Error::malformed(
                &path,
                file.keys
                    .get(&file.text, "entity_name")
                    .map_or(1, |e| e.line),
                format!(
                    "the index row of {} points at this file, which is {}; run heal",
                    hit.entity_name, file.entry.entity_name
                ),
            ));
        }
        hit.created_at = Some(file.entry.created_at);
        hit.updated_at = file.entry.updated_at;
        hit.supersedes = Some(file.entry.supersedes);
        Ok(())
    }
}

/// The rows of one namespace's index that match `query`, best first, at most
/// `query.limit` of them, as hits: rows are matched where they stand in the text, and
/// only the hits are built (a query over 10,000 rows builds five).
fn best_hits(
    namespace: &Namespace,
    rows: &[RowRef<'_>],
    query: &Query,
    tags: &[String],
    words: &[String],
) -> Vec<Hit> {
    let last = rows.len().saturating_sub(1);
    let mut found: Vec<(usize, usize, &RowRef<'_>)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            tag_overlap(row, query, tags, words).map(|overlap| (overlap, last - i, row))
        })
        .collect();
    let order = |a: &(usize, usize, &RowRef<'_>), b: &(usize, usize, &RowRef<'_>)| {
        rank_order(
            (a.2.status, a.0, a.1, &a.2.entity),
            (b.2.status, b.0, b.1, &b.2.entity),
        )
    };
    if found.len() > query.limit && query.limit > 0 {
        // Only the best `limit` are wanted: partitioned around the last of them, then
        // those sorted.
        found.select_nth_unstable_by(query.limit - 1, order);
    }
    found.truncate(query.limit);
    found.sort_by(order);
    found
        .into_iter()
        .map(|(tag_overlap, age, row)| {
            let row = row.to_row();
            Hit {
                file: namespace.dir().join(&row.file),
                namespace: namespace.clone(),
                entity_name: row.entity,
                category: row.category,
                status: row.status,
                tags: row.tags,
                summary: row.summary,
                created_at: None,
                updated_at: None,
                supersedes: None,
                tag_overlap,
                age,
            }
        })
        .collect()
}

/// The seed's order of preference: accepted before experimental (then deprecated and
/// superseded), more shared tags first, then the most recent (fewest rows after it in
/// its index), then by entity name.
fn rank_order(
    (status_a, overlap_a, age_a, name_a): (EntryStatus, usize, usize, &str),
    (status_b, overlap_b, age_b, name_b): (EntryStatus, usize, usize, &str),
) -> std::cmp::Ordering {
    status_rank(status_a)
        .cmp(&status_rank(status_b))
        .then(overlap_b.cmp(&overlap_a))
        .then(age_a.cmp(&age_b))
        .then_with(|| name_a.cmp(name_b))
}

/// How many of the query's tags `row` carries, when it matches the query.
fn tag_overlap(
    row: &RowRef<'_>,
    query: &Query,
    tags: &[String],
    words: &[String],
) -> Option<usize> {
    if !query.include_history && row.status.is_history() {
        return None;
    }
    if query.category.is_some_and(|c| c != row.category) {
        return None;
    }
    let tag_overlap = tags
        .iter()
        .filter(|t| row.tags().any(|r| lowercase_equals(r, t)))
        .count();
    if !tags.is_empty() && tag_overlap == 0 {
        return None;
    }
    if !words.is_empty() && !all_words_in(&row.summary, row.tags(), &row.entity, words) {
        return None;
    }
    Some(tag_overlap)
}

/// `text.to_lowercase() == lower`, without allocating for ASCII text.
fn lowercase_equals(text: &str, lower: &str) -> bool {
    if text.is_ascii() {
        // ASCII lowercases byte for byte to ASCII of the same length.
        text.len() == lower.len()
            && text
                .bytes()
                .zip(lower.bytes())
                .all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        text.to_lowercase() == lower
    }
}

/// Whether every word (lowercased) appears in the row's summary, tags or entity name,
/// compared without case: the lowercased text `summary tags… name` contains it.
fn all_words_in<'a>(
    summary: &'a str,
    tags: impl Iterator<Item = &'a str> + Clone,
    entity: &'a str,
    words: &[String],
) -> bool {
    let parts = || {
        std::iter::once(summary)
            .chain(tags.clone())
            .chain(std::iter::once(entity))
    };
    if parts().all(str::is_ascii) {
        // ASCII lowercases byte for byte, and no word (it has no white space) can run
        // across the spaces that join the parts: each word is looked for part by part.
        return words
            .iter()
            .all(|w| parts().any(|p| contains_ignore_ascii_case(p, w)));
    }
    let haystack =
        format!("{summary} {} {entity}", tags.collect::<Vec<_>>().join(" ")).to_lowercase();
    words.iter().all(|w| haystack.contains(w.as_str()))
}

/// Whether the ASCII text `hay` contains `lower` (lowercase) without regard to case.
fn contains_ignore_ascii_case(hay: &str, lower: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), lower.as_bytes());
    needle.is_empty()
        || (needle.len() <= hay.len()
            && hay
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle)))
}

fn status_rank(status: EntryStatus) -> u8 {
    match status {
        EntryStatus::Accepted => 0,
        EntryStatus::Experimental => 1,
        EntryStatus::Deprecated => 2,
        EntryStatus::Superseded => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Texts with ASCII of both cases and letters whose lowercase is special: final
    /// sigma, dotted capital I, sharp s, the Kelvin sign (lowercase ASCII `k`).
    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["[aAkK zZ.\\-]{0,12}", "[aAkK zZ.\\-Σσİßẞ\u{212A}é]{0,12}"]
    }

    const NAME: &str = "org.global.decision.001";

    fn words_in(summary: &str, tags: &[String], words: &[String]) -> bool {
        all_words_in(summary, tags.iter().map(String::as_str), NAME, words)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// The allocation-free comparisons answer as lowercasing everything does.
        #[test]
        fn matching_equals_lowercasing_everything(
            summary in text(),
            tags in prop::collection::vec(text(), 0..4),
            tag in text(),
            query in text(),
        ) {
            let lower = tag.to_lowercase();
            for t in &tags {
                prop_assert_eq!(lowercase_equals(t, &lower), t.to_lowercase() == lower);
            }
            prop_assert_eq!(lowercase_equals(&tag, &lower), true);
            let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
            let haystack = format!("{} {} {}", summary, tags.join(" "), NAME).to_lowercase();
            let expected = words.iter().all(|w| haystack.contains(w.as_str()));
            prop_assert_eq!(words_in(&summary, &tags, &words), expected, "{:?} {:?} / {:?}", summary, tags, words);
        }
    }

    /// An index of random rows: a few names, statuses, tags of both cases, summaries.
    fn index_of(rows: &[(u8, u8, u8, Vec<u8>, String)]) -> String {
        const STATUS: [&str; 4] = ["accepted", "experimental", "deprecated", "superseded"];
        const CATEGORY: [&str; 3] = ["decision", "risk", "principle"];
        const TAGS: [&str; 5] = ["api", "API", "auth", "cache", "Ωmega"];
        let mut text = String::from(
            "| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n",
        );
        for (i, (category, status, short, tags, summary)) in rows.iter().enumerate() {
            let category = CATEGORY[usize::from(*category) % 3];
            let tags: Vec<&str> = tags.iter().map(|t| TAGS[usize::from(*t) % 5]).collect();
            text.push_str(&format!(
                "| org.global.{category}.{:03} | {category} | {summary} | {} | {} | {category}-{i}.md |\n",
                short % 8,
                tags.join(", "),
                STATUS[usize::from(*status) % 4],
            ));
        }
        text
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Matching rows in place and building only the best `limit` gives the hits
        /// that building every matching row and sorting them all gives.
        #[test]
        fn only_the_best_rows_are_built_and_they_are_the_best(
            rows in prop::collection::vec(
                (any::<u8>(), any::<u8>(), any::<u8>(), prop::collection::vec(any::<u8>(), 0..4), "[a-zA-Z Ω]{0,10}"),
                0..24,
            ),
            tags in prop::collection::vec(prop_oneof![Just("api"), Just("Auth"), Just("ωmega")], 0..3),
            text in prop_oneof![Just(""), Just("a"), Just("DECISION"), Just("ω 00")],
            history in any::<bool>(),
            category in prop::option::of(prop_oneof![Just(Category::Decision), Just(Category::Risk)]),
            limit in prop_oneof![Just(0usize), Just(1), Just(3), Just(5), Just(usize::MAX)],
        ) {
            let index = index_of(&rows);
            let (_, refs) = crate::context_memory::index_rows::read_table(
                std::path::Path::new("_index.md"), &index).unwrap();
            let mut query = Query::new().tags(tags).text(text).include_history(history).limit(limit);
            query.category = category;
            let lower: Vec<String> = query.tags.iter().map(|t| t.to_lowercase()).collect();
            let words: Vec<String> = query.text.as_deref().unwrap_or_default()
                .split_whitespace().map(str::to_lowercase).collect();
            let ns = Namespace::org_global();
            let best = best_hits(&ns, &refs, &query, &lower, &words);
            let last = refs.len().saturating_sub(1);
            // The reference: every row built and matched by lowercasing everything,
            // the matches all sorted, then cut.
            let mut all: Vec<Hit> = refs.iter().enumerate().filter_map(|(i, row)| {
                let row = row.to_row();
                if !history && row.status.is_history() || category.is_some_and(|c| c != row.category) {
                    return None;
                }
                let overlap = lower.iter()
                    .filter(|t| row.tags.iter().any(|r| r.to_lowercase() == **t))
                    .count();
                let haystack = format!("{} {} {}", row.summary, row.tags.join(" "), row.entity)
                    .to_lowercase();
                if !lower.is_empty() && overlap == 0 || !words.iter().all(|w| haystack.contains(w.as_str())) {
                    return None;
                }
                Some(Hit {
                    file: ns.dir().join(&row.file),
                    namespace: ns.clone(),
                    entity_name: row.entity,
                    category: row.category,
                    status: row.status,
                    tags: row.tags,
                    summary: row.summary,
                    created_at: None,
                    updated_at: None,
                    supersedes: None,
                    tag_overlap: overlap,
                    age: last - i,
                })
            }).collect();
            all.sort_by(|a, b| {
                status_rank(a.status)
                    .cmp(&status_rank(b.status))
                    .then(b.tag_overlap.cmp(&a.tag_overlap))
                    .then(a.age.cmp(&b.age))
                    .then_with(|| a.entity_name.cmp(&b.entity_name))
            });
            all.truncate(limit);
            prop_assert_eq!(best, all);
        }
    }

    #[test]
    fn words_match_across_parts_and_case() {
        let tags = ["API".to_string(), "sso".to_string()];
        let words =
            |q: &str| -> Vec<String> { q.split_whitespace().map(str::to_lowercase).collect() };
        assert!(words_in(
            "Auth uses JWT",
            &tags,
            &words("jwt api DECISION.001")
        ));
        assert!(!words_in("Auth uses JWT", &tags, &words("jwt cache")));
        assert!(lowercase_equals("API", "api"));
        assert!(!lowercase_equals("APIs", "api"));
        assert!(lowercase_equals("ΣΑ", &"ΣΑ".to_lowercase()));
    }
}
