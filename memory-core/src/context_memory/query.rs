//! The seed's read protocol as a query answered from `_index.md` alone.

use std::path::PathBuf;

use serde::Serialize;

use super::index_file::IndexRow;
use super::memory::ContextMemory;
use super::names::EntityName;
use super::namespace::{Namespace, NamespaceKind};
use super::namespaces::Listing;
use super::schema::{Category, EntryStatus};
use crate::error::Result;

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

/// One entry a query found, as its index row gives it.
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
    /// The entity file, relative to the root.
    pub file: PathBuf,
    /// How many of the query's tags it carries.
    pub tag_overlap: usize,
}

impl ContextMemory {
    /// Answers `query` from the `_index.md` files alone (no entity file is opened), in
    /// the seed's order of preference: accepted before experimental (then deprecated and
    /// superseded, when history is asked for), more shared tags first, then the most
    /// recent first — by the sequential short id, the index's only record of order
    /// (`…decision.012` before `…decision.003`; descriptive ids after numbered ones) —
    /// then by name. A namespace whose directory does not exist has no memory.
    ///
    /// Indexes are read without the lock; one whose directory listing shows drift (a row
    /// whose file is gone, a file without a row, a count that differs) is healed under
    /// the lock first, as the seed's "Index Self-Healing" asks.
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
        let _guard = self.handle.read_guard()?;
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
        let mut hits = Vec::new();
        for (namespace, listing) in namespaces {
            let index = self.index_for_listing(&namespace, &listing.files)?;
            for row in index.rows {
                if let Some(hit) = matching(&namespace, row, query, &tags, &words) {
                    hits.push(hit);
                }
            }
        }
        hits.sort_by(|a, b| {
            status_rank(a.status)
                .cmp(&status_rank(b.status))
                .then(b.tag_overlap.cmp(&a.tag_overlap))
                .then_with(|| recency(b).cmp(&recency(a)))
                .then_with(|| a.entity_name.cmp(&b.entity_name))
        });
        hits.truncate(query.limit);
        Ok(hits)
    }
}

fn matching(
    namespace: &Namespace,
    row: IndexRow,
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
        tag_overlap,
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

/// Newer first: numbered ids by number, descriptive ids after them.
fn recency(hit: &Hit) -> (bool, u64) {
    match hit.entity_name.sequence() {
        Some(n) => (true, n),
        None => (false, 0),
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
