//! The seed's read protocol as a query answered from `_index.md` alone.

use std::path::PathBuf;

use serde::Serialize;

use super::entity_file::EntityFile;
use super::index_file::IndexRow;
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
/// The seed's read protocol ranks and filters from `_index.md` alone, then "read[s]
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
            let index = match self.index_for_listing(&namespace, &listing.files, guard.as_ref()) {
                Ok(index) => index,
                Err(error @ Error::LinkRefused { .. })
                    if !query.namespaces.contains(&namespace) =>
                {
                    answer.warnings.push(Warning::from_error(&error, 0));
                    continue;
                }
                Err(error) => return Err(error),
            };
            let rows = index.rows.len();
            for (i, row) in index.rows.into_iter().enumerate() {
                if let Some(hit) = matching(&namespace, row, rows - 1 - i, query, &tags, &words) {
                    answer.hits.push(hit);
                }
            }
        }
        answer.hits.sort_by(|a, b| {
            status_rank(a.status)
                .cmp(&status_rank(b.status))
                .then(b.tag_overlap.cmp(&a.tag_overlap))
                .then(a.age.cmp(&b.age))
                .then_with(|| a.entity_name.cmp(&b.entity_name))
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

fn matching(
    namespace: &Namespace,
    row: IndexRow,
    age: usize,
    query: &Query,
    tags: &[String],
    words: &[String],
) -> Option<Hit> {
    if !query.include_history && row.status.is_history() {
        return None;
    }
    if query.category.is_some_and(|c| c != row.category) {
        return None;
    }
    let tag_overlap = tags
        .iter()
        .filter(|t| row.tags.iter().any(|r| lowercase_equals(r, t)))
        .count();
    if !tags.is_empty() && tag_overlap == 0 {
        return None;
    }
    if !words.is_empty() && !all_words_in(&row, words) {
        return None;
    }
    Some(Hit {
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
    })
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

/// Whether every word (lowercased) appears in the row's summary, tags or name, compared
/// without case: the lowercased text `summary tags… name` contains it.
fn all_words_in(row: &IndexRow, words: &[String]) -> bool {
    let parts = || {
        std::iter::once(row.summary.as_str())
            .chain(row.tags.iter().map(String::as_str))
            .chain(std::iter::once(row.entity.as_str()))
    };
    if parts().all(str::is_ascii) {
        // ASCII lowercases byte for byte, and no word (it has no white space) can run
        // across the spaces that join the parts: each word is looked for part by part.
        return words
            .iter()
            .all(|w| parts().any(|p| contains_ignore_ascii_case(p, w)));
    }
    let haystack = format!(
        "{} {} {}",
        row.summary,
        row.tags.join(" "),
        row.entity.as_str()
    )
    .to_lowercase();
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

    fn row(summary: String, tags: Vec<String>) -> IndexRow {
        IndexRow {
            entity: EntityName::parse("org.global.decision.001").unwrap(),
            category: Category::Decision,
            summary,
            tags,
            status: EntryStatus::Accepted,
            file: "decision-001.md".to_string(),
            line: 7,
        }
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
            let row = row(summary, tags);
            let haystack = format!("{} {} {}", row.summary, row.tags.join(" "), row.entity.as_str())
                .to_lowercase();
            let expected = words.iter().all(|w| haystack.contains(w.as_str()));
            prop_assert_eq!(all_words_in(&row, &words), expected, "{:?} / {:?}", row, words);
        }
    }

    #[test]
    fn words_match_across_parts_and_case() {
        let row = row("Auth uses JWT".into(), vec!["API".into(), "sso".into()]);
        let words =
            |q: &str| -> Vec<String> { q.split_whitespace().map(str::to_lowercase).collect() };
        assert!(all_words_in(&row, &words("jwt api DECISION.001")));
        assert!(!all_words_in(&row, &words("jwt cache")));
        assert!(lowercase_equals("API", "api"));
        assert!(!lowercase_equals("APIs", "api"));
        assert!(lowercase_equals("ΣΑ", &"ΣΑ".to_lowercase()));
    }
}
