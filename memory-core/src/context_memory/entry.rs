//! What a caller writes ([`NewEntry`]) and the rules every new entry follows before any
//! file is touched: the seed's mandatory fields, closed sets, at least two tags, the
//! diagram variant, and the index summary (≤ 100 characters, derived from the body when
//! not given).

use super::index_file::MAX_SUMMARY_CHARS;
use super::names::EntityName;
use super::namespace::Namespace;
use super::schema::{Category, EntryStatus};
use super::summary::summary_of;
use crate::error::{Error, Result};

/// The fewest tags an entry has (the seed: "tags (min 2)").
pub const MIN_TAGS: usize = 2;

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// A diagram entity's extra fields (the seed's "Diagram Variant"): the Mermaid (or other)
/// code lives in `diagram_code` in the frontmatter, the body describes it in words.
///
/// ```
/// use memory_core::context_memory::Diagram;
/// let d = Diagram::mermaid("flowchart", "memory-write-flow", "flowchart TD\n  A --> B");
/// assert_eq!(d.language, "mermaid");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Diagram {
    /// `diagram_language` (`mermaid`).
    pub language: String,
    /// `diagram_type` (`flowchart`, `sequenceDiagram`, …).
    pub diagram_type: String,
    /// `diagram_subject`.
    pub subject: String,
    /// `diagram_code`: the diagram's source.
    pub code: String,
}

impl Diagram {
    /// A Mermaid diagram.
    pub fn mermaid(
        diagram_type: impl Into<String>,
        subject: impl Into<String>,
        code: impl Into<String>,
    ) -> Self {
        Diagram {
            language: "mermaid".to_string(),
            diagram_type: diagram_type.into(),
            subject: subject.into(),
            code: code.into(),
        }
    }
}

/// A new entry to write. `namespace`, `category`, `tags` (at least two) and `body` are
/// required; the rest is optional.
///
/// ```
/// use memory_core::context_memory::{Category, NewEntry};
/// let entry = NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT. Sessions are stateless.")
///     .unwrap()
///     .rationale("Stateless services scale out")
///     .confidence(0.9);
/// assert_eq!(entry.index_summary(), "Auth uses JWT.");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NewEntry {
    /// Where it goes.
    pub namespace: Namespace,
    /// What kind of knowledge it is.
    pub category: Category,
    /// Its tags (at least [`MIN_TAGS`]).
    pub tags: Vec<String>,
    /// Its status (`accepted` unless given).
    pub status: EntryStatus,
    /// The conclusion, 1–3 sentences.
    pub body: String,
    /// The index summary; derived from the body when `None`.
    pub summary: Option<String>,
    /// A descriptive short id instead of the next number (`auth-flow`).
    pub slug: Option<String>,
    /// `rationale`: why.
    pub rationale: Option<String>,
    /// `confidence`, from 0 to 1.
    pub confidence: Option<f64>,
    /// `source_path`: where the knowledge comes from (`docs:global/decisions/auth-flow.md`).
    pub source_path: Option<String>,
    /// `supersedes`: the entries this one replaces.
    pub supersedes: Vec<EntityName>,
    /// `related_entities` (diagrams, and any entry).
    pub related_entities: Vec<EntityName>,
    /// The diagram fields; required for, and only for, [`Category::Diagram`].
    pub diagram: Option<Diagram>,
    /// Write even when an entry of the same category has a similar summary.
    pub force_new: bool,
}

impl NewEntry {
    /// An entry with its required fields (the namespace validated).
    pub fn new<I, S>(
        namespace: &str,
        category: Category,
        tags: I,
        body: impl Into<String>,
    ) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(NewEntry {
            namespace: Namespace::parse(namespace)?,
            category,
            tags: clean_tags(tags),
            status: EntryStatus::Accepted,
            body: body.into(),
            summary: None,
            slug: None,
            rationale: None,
            confidence: None,
            source_path: None,
            supersedes: Vec::new(),
            related_entities: Vec::new(),
            diagram: None,
            force_new: false,
        })
    }

    /// Sets the status.
    pub fn status(mut self, status: EntryStatus) -> Self {
        self.status = status;
        self
    }

    /// Sets the index summary (≤ 100 characters).
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Uses a descriptive short id.
    pub fn slug(mut self, slug: impl Into<String>) -> Self {
        self.slug = Some(slug.into());
        self
    }

    /// Sets the rationale.
    pub fn rationale(mut self, rationale: impl Into<String>) -> Self {
        self.rationale = Some(rationale.into());
        self
    }

    /// Sets the confidence (0 to 1).
    pub fn confidence(mut self, confidence: f64) -> Self {
        self.confidence = Some(confidence);
        self
    }

    /// Sets the source path.
    pub fn source_path(mut self, source_path: impl Into<String>) -> Self {
        self.source_path = Some(source_path.into());
        self
    }

    /// Adds an entry this one supersedes.
    pub fn supersedes(mut self, old: EntityName) -> Self {
        if !self.supersedes.contains(&old) {
            self.supersedes.push(old);
        }
        self
    }

    /// Adds a related entry.
    pub fn related(mut self, entity: EntityName) -> Self {
        if !self.related_entities.contains(&entity) {
            self.related_entities.push(entity);
        }
        self
    }

    /// Sets the diagram fields.
    pub fn diagram(mut self, diagram: Diagram) -> Self {
        self.diagram = Some(diagram);
        self
    }

    /// Writes even next to a similar entry.
    pub fn force_new(mut self, yes: bool) -> Self {
        self.force_new = yes;
        self
    }

    /// The summary the index row gets: the given one, or the body's first sentence, cut
    /// to [`MAX_SUMMARY_CHARS`] characters at a word with `…`.
    pub fn index_summary(&self) -> String {
        match &self.summary {
            Some(s) => one_line(s),
            None => summary_of(&self.body),
        }
    }

    /// Checks every rule that needs no file: tags, body, summary length, confidence,
    /// one-line fields, the diagram variant. Fields set directly (as the bindings do)
    /// are checked here too.
    pub fn validate(&self) -> Result<()> {
        let tags = clean_tags(self.tags.iter().map(String::as_str));
        if tags.len() < MIN_TAGS {
            return Err(Error::invalid(
                "tags",
                &self.tags.join(", "),
                format!("an entry needs at least {MIN_TAGS} different tags"),
            ));
        }
        for tag in &tags {
            if tag.chars().count() > MAX_TAG_CHARS
                || tag.contains([',', '|', '\n', '\r'])
                || tag.chars().any(char::is_control)
            {
                return Err(Error::invalid(
                    "tag",
                    tag,
                    format!(
                        "must be one line of at most {MAX_TAG_CHARS} characters without ',' or '|'"
                    ),
                ));
            }
        }
        if self.body.trim().is_empty() {
            return Err(Error::invalid("body", "", "must not be empty"));
        }
        if let Some(summary) = &self.summary {
            let summary = one_line(summary);
            if summary.is_empty() {
                return Err(Error::invalid(
                    "summary",
                    "",
                    "must not be empty (leave it out to derive it from the body)",
                ));
            }
            if summary.chars().count() > MAX_SUMMARY_CHARS {
                return Err(Error::invalid(
                    "summary",
                    &summary,
                    format!("is longer than {MAX_SUMMARY_CHARS} characters"),
                ));
            }
        }
        if let Some(c) = self.confidence
            && !(c.is_finite() && (0.0..=1.0).contains(&c))
        {
            return Err(Error::invalid(
                "confidence",
                &c.to_string(),
                "must be a number from 0 to 1",
            ));
        }
        for (what, value) in [
            ("rationale", &self.rationale),
            ("source path", &self.source_path),
        ] {
            if let Some(v) = value
                && (v.trim().is_empty()
                    || v.contains(['\n', '\r'])
                    || v.chars().any(char::is_control))
            {
                return Err(Error::invalid(what, v, "must be one non-empty line"));
            }
        }
        if let Some(slug) = &self.slug {
            super::namespace::check_segment(slug)
                .map_err(|why| Error::invalid("slug", slug, why))?;
        }
        match (&self.diagram, self.category) {
            (None, Category::Diagram) => {
                return Err(Error::invalid(
                    "category",
                    "diagram",
                    "a diagram entry needs diagram_language, diagram_type, diagram_subject and diagram_code",
                ));
            }
            (Some(_), c) if c != Category::Diagram => {
                return Err(Error::invalid(
                    "diagram",
                    c.as_str(),
                    "only a diagram entry carries diagram fields",
                ));
            }
            (Some(d), _) => {
                for (what, value) in [
                    ("diagram_language", &d.language),
                    ("diagram_type", &d.diagram_type),
                    ("diagram_subject", &d.subject),
                ] {
                    if value.trim().is_empty() || value.contains(['\n', '\r']) {
                        return Err(Error::invalid(what, value, "must be one non-empty line"));
                    }
                }
                if d.code.trim().is_empty() {
                    return Err(Error::invalid("diagram_code", "", "must not be empty"));
                }
            }
            (None, _) => {}
        }
        Ok(())
    }
}

/// Tags trimmed, empty ones dropped, the same tag given twice kept once (order kept).
pub(crate) fn clean_tags<I, S>(tags: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let tag: String = tag.into();
        let tag = tag.trim();
        // Queries match tags ignoring case, so `Auth` and `auth` are one tag (the first
        // spelling is kept).
        if !tag.is_empty() && !out.iter().any(|t| t.to_lowercase() == tag.to_lowercase()) {
            out.push(tag.to_string());
        }
    }
    out
}

/// `text` on one line: line breaks and runs of white space become one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How alike two summaries are, from 0 to 1: one minus the Levenshtein distance over
/// the longer length, in characters (`strsim::normalized_levenshtein`), on lowercased
/// text with runs of white space and ASCII punctuation as one space — so case, spacing
/// and a final full stop do not matter, and CJK text is compared by characters.
///
/// ```
/// use memory_core::context_memory::summary_similarity;
/// assert!(summary_similarity("Auth uses JWT", "auth uses JWT.") > 0.99);
/// assert!(summary_similarity("Auth uses JWT", "Auth uses JWTs") >= 0.8);
/// assert!(summary_similarity("Auth uses JWT", "Auth uses cookies") < 0.8);
/// ```
pub fn summary_similarity(a: &str, b: &str) -> f64 {
    strsim::normalized_levenshtein(&normalized(a), &normalized(b))
}

/// At or above this similarity, an entry of the same category in the same namespace is
/// a duplicate of a new one (refused unless forced).
pub const DUPLICATE_THRESHOLD: f64 = 0.8;

fn normalized(text: &str) -> String {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '-'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> NewEntry {
        NewEntry::new(
            "org.global",
            Category::Decision,
            ["auth", "security"],
            "Auth uses JWT.",
        )
        .unwrap()
    }

    #[test]
    fn the_mandatory_rules_are_checked() {
        entry().validate().unwrap();
        let mut one_tag = entry();
        one_tag.tags = vec!["auth".into(), " auth ".into(), "".into()];
        assert!(
            one_tag
                .validate()
                .unwrap_err()
                .to_string()
                .contains("at least 2")
        );
        let mut empty = entry();
        empty.body = " \n".into();
        assert!(empty.validate().is_err());
        assert!(entry().summary("x".repeat(101)).validate().is_err());
        assert!(entry().summary("x".repeat(100)).validate().is_ok());
        assert!(entry().confidence(1.5).validate().is_err());
        assert!(entry().confidence(f64::NAN).validate().is_err());
        assert!(entry().rationale("two\nlines").validate().is_err());
        assert!(entry().slug("Auth Flow").validate().is_err());
        let mut comma = entry();
        comma.tags = vec!["a,b".into(), "c".into()];
        assert!(comma.validate().is_err());
    }

    #[test]
    fn diagrams_need_their_fields_and_only_diagrams_have_them() {
        let diagram = Diagram::mermaid("flowchart", "write-flow", "flowchart TD\n  A --> B");
        let mut d = NewEntry::new(
            "org.global",
            Category::Diagram,
            ["flow", "memory"],
            "The write flow.",
        )
        .unwrap();
        assert!(d.validate().is_err());
        d = d.diagram(diagram.clone());
        d.validate().unwrap();
        assert!(entry().diagram(diagram).validate().is_err());
    }

    #[test]
    fn summaries_are_one_sentence_within_the_limit() {
        assert_eq!(
            summary_of("  Version 1.2 ships.\nMore later."),
            "Version 1.2 ships."
        );
        assert_eq!(summary_of("No full stop here"), "No full stop here");
        let long = format!("{} end.", "alpha ".repeat(30));
        let s = summary_of(&long);
        assert!(
            s.chars().count() <= MAX_SUMMARY_CHARS && s.ends_with('…'),
            "{s}"
        );
        let cjk = "認".repeat(150);
        assert_eq!(summary_of(&cjk).chars().count(), MAX_SUMMARY_CHARS);
    }

    #[test]
    fn abbreviations_and_initials_do_not_end_the_first_sentence() {
        for (body, summary) in [
            (
                "We use e.g. Postgres here. Then Redis.",
                "We use e.g. Postgres here.",
            ),
            ("Pick one, i.e. Redis. Done.", "Pick one, i.e. Redis."),
            (
                "Postgres vs. MySQL was close. We chose Postgres.",
                "Postgres vs. MySQL was close.",
            ),
            ("Ask Dr. Smith first. Then ship.", "Ask Dr. Smith first."),
            (
                "Served from the U.S. East region. Fine.",
                "Served from the U.S. East region.",
            ),
            (
                "Logs, metrics, etc. are kept. Forever.",
                "Logs, metrics, etc. are kept.",
            ),
            ("We ship v2. Then v3.", "We ship v2."),
            ("Cut at 3.5 seconds. Retry.", "Cut at 3.5 seconds."),
        ] {
            assert_eq!(summary_of(body), summary, "{body}");
        }
        let a = NewEntry::new(
            "org.global",
            Category::Decision,
            ["a", "b"],
            "We use e.g. Postgres for queues.",
        )
        .unwrap();
        let b = NewEntry::new(
            "org.global",
            Category::Decision,
            ["a", "b"],
            "We use e.g. Redis for caches.",
        )
        .unwrap();
        assert!(summary_similarity(&a.index_summary(), &b.index_summary()) < DUPLICATE_THRESHOLD);
    }

    #[test]
    fn similar_summaries_pass_the_threshold_and_different_ones_do_not() {
        for (a, b) in [
            ("Auth uses JWT", "Auth uses JWTs"),
            (
                "Use Postgres for the main store",
                "use postgres for the main store!",
            ),
            ("認證使用 JWT 令牌", "認證使用 JWT 令牌。"),
        ] {
            assert!(
                summary_similarity(a, b) >= DUPLICATE_THRESHOLD,
                "{a} / {b}: {}",
                summary_similarity(a, b)
            );
        }
        for (a, b) in [
            ("Auth uses JWT", "Auth uses cookies"),
            ("Use Postgres for the main store", "Use Redis for the cache"),
            ("Node 20 only", "Python 3.12 only"),
        ] {
            assert!(
                summary_similarity(a, b) < DUPLICATE_THRESHOLD,
                "{a} / {b}: {}",
                summary_similarity(a, b)
            );
        }
    }
}
