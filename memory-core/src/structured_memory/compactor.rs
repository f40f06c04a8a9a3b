//! The judgment compaction needs — is this entry dead, how to condense a story into its
//! lesson, how to cut a topic in two — is the caller's: a [`Compactor`]. The library
//! enforces the invariants whatever it returns (see [`compact`](super::StructuredMemory::compact)).

use super::index_file::MemoryIndex;
use super::topic_file::{Entry, Topic};

/// What a compactor raises to abandon a compaction (nothing is written).
pub type CompactorError = Box<dyn std::error::Error + Send + Sync>;

/// Episodic entries condensed into one: the entries (indexes into the slice the compactor
/// was given) and the lesson that replaces them.
///
/// ```
/// use memory_core::structured_memory::Condensed;
/// let lesson = Condensed::new([0, 1, 2], "the staging deploy needs the VPN; run `vpn up` first");
/// assert_eq!(lesson.entries, [0, 1, 2]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Condensed {
    /// The entries condensed (at least two).
    pub entries: Vec<usize>,
    /// The lesson.
    pub text: String,
    /// Its subject, if it has one.
    pub subject: Option<String>,
}

impl Condensed {
    /// The `entries` condensed into `text`.
    pub fn new(entries: impl IntoIterator<Item = usize>, text: impl Into<String>) -> Condensed {
        Condensed {
            entries: entries.into_iter().collect(),
            text: text.into(),
            subject: None,
        }
    }

    /// With a subject.
    pub fn subject(mut self, subject: impl Into<String>) -> Condensed {
        self.subject = Some(subject.into());
        self
    }
}

/// One part a split cuts out of an overgrown topic: its new file, the index line's title
/// and hook, and the entries (indexes into the topic's entries) that move there.
///
/// ```
/// use memory_core::structured_memory::SplitPart;
/// let part = SplitPart::new("memory-infra-db.md", "Infra: databases", "Postgres, backups", [3, 4]);
/// assert_eq!(part.file, "memory-infra-db.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SplitPart {
    /// The new topic file. When a linked topic of that name already exists with the
    /// part's title (its index line's, or its `# ` heading: an earlier split of the same
    /// section), the entries move into it instead; any other taken name gets the first
    /// free `-2`, `-3`… variant.
    pub file: String,
    /// Its index line's title.
    pub title: String,
    /// Its index line's hook.
    pub hook: String,
    /// The entries that move there.
    pub entries: Vec<usize>,
    /// Made only into an earlier split (see `file`), never as a new file: the default
    /// compactor's part for a section of one entry (single facts are never cut into
    /// files of their own).
    pub(super) only_into_earlier: bool,
}

impl SplitPart {
    /// A part.
    pub fn new(
        file: impl Into<String>,
        title: impl Into<String>,
        hook: impl Into<String>,
        entries: impl IntoIterator<Item = usize>,
    ) -> SplitPart {
        SplitPart {
            file: file.into(),
            title: title.into(),
            hook: hook.into(),
            entries: entries.into_iter().collect(),
            only_into_earlier: false,
        }
    }
}

/// The judgment calls of the seed's compaction pass, one method per pass; each gets the
/// topic's parseable entries (hand-written lines the library cannot read are never shown
/// and never compacted). Every method has a default, the deterministic
/// [`DefaultCompactor`]'s: evict nothing, keep the newest generation as written,
/// summarize nothing, split by `##` headings or by subject; for `MEMORY.md`, move a
/// content line to the topic it clearly matches and merge near-duplicate topics.
///
/// ```
/// use memory_core::structured_memory::{Compactor, CompactorError, Entry, Topic};
/// /// Evicts entries that mention a retired system.
/// struct Retired(&'static str);
/// impl Compactor for Retired {
///     fn dead(&self, _topic: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
///         Ok(entries.iter().enumerate().filter(|(_, e)| e.text.contains(self.0)).map(|(i, _)| i).collect())
///     }
/// }
/// ```
pub trait Compactor {
    /// Pass 1, evict the dead: the entries about systems, projects or constraints that no
    /// longer exist ("if unsure whether it is dead, it is not dead").
    fn dead(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<usize>, CompactorError> {
        let _ = (topic, entries);
        Ok(Vec::new())
    }

    /// Pass 2, collapse the superseded: `generations` are the entries about `subject`,
    /// oldest first; the newest is kept. Return its new text to fold in what is still
    /// true of the older ones, or `None` to keep it as written.
    fn collapse(
        &self,
        topic: &Topic,
        subject: &str,
        generations: &[Entry],
    ) -> Result<Option<String>, CompactorError> {
        let _ = (topic, subject, generations);
        Ok(None)
    }

    /// Pass 3, summarize the episodic: groups of entries narrating one story, each with
    /// the durable lesson that replaces them.
    fn summarize(
        &self,
        topic: &Topic,
        entries: &[Entry],
    ) -> Result<Vec<Condensed>, CompactorError> {
        let _ = (topic, entries);
        Ok(Vec::new())
    }

    /// Pass 4, split the overgrown: the parts to move into new topic files, each with its
    /// own index line. The default cuts by `##` headings, else by subject.
    fn split(&self, topic: &Topic, entries: &[Entry]) -> Result<Vec<SplitPart>, CompactorError> {
        Ok(default_split(topic, entries))
    }

    /// `MEMORY.md` over budget, first: for content lines of the index (indexes into
    /// [`MemoryIndex::content`]), the linked topic file each moves to. The default moves a
    /// line that stands alone (a line of text, a one-line list item; never part of a
    /// fence, a quote or a list item of several lines) to the topic whose index line its
    /// words match clearly, scored as [`recall`](super::StructuredMemory::recall) scores
    /// a query: at least [`ROUTE_MIN_POINTS`](super::ROUTE_MIN_POINTS) and
    /// [`ROUTE_MARGIN`](super::ROUTE_MARGIN) times the runner-up; a catch-all topic, one
    /// the default merges away, or one that does not read never takes a line. Any other
    /// line stays (the index then needs judgment).
    ///
    /// ```
    /// use memory_core::structured_memory::{Compactor, DefaultCompactor, MemoryIndex};
    /// let index = MemoryIndex::parse("MEMORY.md",
    ///     "- [Deploy](memory-deploy.md) — pipeline order\n- [User](USER.md) — role\n\nthe deploy hook runs first\nwater the plants\n").unwrap();
    /// let routes = DefaultCompactor.route_content(&index).unwrap();
    /// assert_eq!(routes, [(0, "memory-deploy.md".to_string())]);
    /// ```
    fn route_content(&self, index: &MemoryIndex) -> Result<Vec<(usize, String)>, CompactorError> {
        Ok(super::index_defaults::default_routes(index))
    }

    /// `MEMORY.md` over budget, then: near-duplicate topics, as `(from, into)` pairs of
    /// linked topic files; `from`'s text is appended to `into` and its line and file go
    /// (the file archived whole). The default merges the topics `check` reports as
    /// `near_duplicate_topics` whose titles and hooks have the same words (case,
    /// punctuation, order, common words and plural endings aside), each later one into
    /// the first, when both have one index line and read; a pair that is only
    /// [`NEAR_DUPLICATE_SIMILARITY`](super::NEAR_DUPLICATE_SIMILARITY) similar is reported
    /// and not merged.
    ///
    /// ```
    /// use memory_core::structured_memory::{Compactor, DefaultCompactor, MemoryIndex};
    /// let index = MemoryIndex::parse("MEMORY.md",
    ///     "- [Infra](memory-infra.md) — hosts, DNS\n- [infra](memory-infra-2.md) — DNS and hosts.\n- [Infra](memory-infra-3.md) — hosts, DNS, backups\n").unwrap();
    /// let merges = DefaultCompactor.merge_topics(&index).unwrap();
    /// // The third is 3 of 4 words alike: reported by `check`, not merged.
    /// assert_eq!(merges, [("memory-infra-2.md".to_string(), "memory-infra.md".to_string())]);
    /// ```
    fn merge_topics(&self, index: &MemoryIndex) -> Result<Vec<(String, String)>, CompactorError> {
        Ok(super::index_defaults::default_merges(index))
    }
}

/// The deterministic compactor: collapses generations of one subject to the newest,
/// splits an overgrown topic by its `##` headings or by subject, and for `MEMORY.md`
/// moves content lines to the topics they clearly match and merges near-duplicate topics
/// (see [`Compactor::route_content`] and [`Compactor::merge_topics`]); never evicts or
/// summarizes on its own.
///
/// ```
/// use memory_core::structured_memory::{Compactor, DefaultCompactor, Topic};
/// let topic = Topic::parse("t.md", "- 2026-07-01: a\n").unwrap();
/// assert!(DefaultCompactor.dead(&topic, &topic.entries).unwrap().is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultCompactor;

impl Compactor for DefaultCompactor {}

/// Parts by `##` headings, else by subject. By headings: each `##` section with
/// entries but the first (which stays), a section of two entries or more as its own
/// file, a section of one only into an earlier split of it (single facts are never cut
/// into files of their own). By subject: each group of related subjects (see
/// [`subject_group`]) with two entries or more, largest first, all but the largest. A part's file sits beside the topic (`notes/sub.md` →
/// `notes/sub-two.md`); its hook is the heading (or subject) and the subjects it holds.
fn default_split(topic: &Topic, entries: &[Entry]) -> Vec<SplitPart> {
    // A part that would be a catch-all topic (a `## Misc` section) is not cut out: the
    // split refuses one, and its entries stay where they are.
    let mut parts = split_parts(topic, entries);
    parts.retain(|p| {
        !super::catch_all::is_catch_all(&p.file)
            && !super::catch_all::is_catch_all_text(&p.title)
            && !super::catch_all::is_catch_all_text(&p.hook)
    });
    parts
}

/// [`default_split`]'s parts, catch-alls included.
fn split_parts(topic: &Topic, entries: &[Entry]) -> Vec<SplitPart> {
    let (dir, stem) = dir_and_stem(&topic.file);
    // The topic's own name: its frontmatter `name`, else its first `# ` heading, else
    // its file name.
    let title = topic
        .meta
        .as_ref()
        .and_then(|m| m.name.clone())
        .or_else(|| {
            topic
                .text
                .lines()
                .find_map(|l| l.trim_start_matches('\u{feff}').strip_prefix("# "))
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| stem.trim_start_matches("memory-").replace(['-', '_'], " "));
    // Sections: the `##` section each entry is under.
    let sections = super::topic_sections::sections(topic);
    let mut by_heading: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(s) = sections.iter().find(|s| s.holds(e)) {
            let h = s.title.as_str();
            match by_heading.iter_mut().find(|(name, _)| *name == h) {
                Some((_, list)) => list.push(i),
                None => by_heading.push((h, vec![i])),
            }
        }
    }
    if by_heading.len() >= 2 {
        return by_heading
            .into_iter()
            .skip(1)
            .map(|(h, list)| {
                let mut part = SplitPart::new(
                    format!("{dir}{stem}-{}.md", slug(h)),
                    format!("{title}: {h}"),
                    part_hook(h, &list, entries),
                    list,
                );
                part.only_into_earlier = part.entries.len() < 2;
                part
            })
            .collect();
    }
    let mut by_group: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(key) = e.subject.as_deref().and_then(subject_group) {
            match by_group.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(i),
                None => by_group.push((key, vec![i])),
            }
        }
    }
    // A group of one entry is no group: cutting single facts into files of their own
    // would only move the overage into MEMORY.md. Two groups at least, else nothing (the
    // file needs judgment).
    by_group.retain(|(_, list)| list.len() >= 2);
    if by_group.len() < 2 {
        return Vec::new();
    }
    by_group.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    by_group
        .into_iter()
        .skip(1)
        .map(|(key, list)| {
            SplitPart::new(
                format!("{dir}{stem}-{}.md", slug(&key)),
                format!("{title}: {key}"),
                part_hook(&key, &list, entries),
                list,
            )
        })
        .collect()
}

/// Words that do not say what a subject is about when they lead it.
const LEADING_ARTICLES: &[&str] = &["a", "an", "the"];

/// The group a subject belongs to when the default splits by subject: the first word of
/// its [`subject_key`](super::topic_file::subject_key) (words end at a space, `-`, `_`,
/// `/`, `.` or `:`), a leading article skipped — `db-primary`, `db replica` and `db` are
/// one group, `db`. After merge on write and the collapse pass a subject has one live
/// entry, so the split groups related subjects, not generations of one. `None` for a
/// subject with no word.
fn subject_group(subject: &str) -> Option<String> {
    let key = super::topic_file::subject_key(subject);
    let mut words = key
        .split(['-', '/', '.', ':'])
        .filter(|w| !w.is_empty())
        .peekable();
    if words.peek().is_some_and(|w| LEADING_ARTICLES.contains(w)) {
        let article = words.next();
        if words.peek().is_none() {
            return article.map(str::to_string);
        }
    }
    words.next().map(str::to_string)
}

/// A part's hook: what it is cut by (a heading or subject), then the subjects of its
/// entries (`Databases: postgres, backups`), at most 200 characters; the heading alone
/// when they have none or the list would not be a valid hook (a secret in a
/// hand-written subject).
fn part_hook(by: &str, list: &[usize], entries: &[Entry]) -> String {
    let mut subjects: Vec<&str> = Vec::new();
    for &i in list {
        if let Some(s) = entries.get(i).and_then(|e| e.subject.as_deref()) {
            let s = s.trim();
            if !s.is_empty() && !subjects.iter().any(|k| k.eq_ignore_ascii_case(s)) {
                subjects.push(s);
            }
        }
    }
    subjects.retain(|s| !s.eq_ignore_ascii_case(by.trim()));
    if subjects.is_empty() {
        return by.to_string();
    }
    let mut hook = format!("{by}: ");
    for (n, s) in subjects.iter().enumerate() {
        let more = if n > 0 { ", " } else { "" };
        if hook.chars().count() + more.len() + s.chars().count() > 200 {
            hook.push_str(", …");
            break;
        }
        hook.push_str(more);
        hook.push_str(s);
    }
    match super::index_fields::check_given("hook", &hook) {
        Ok(_) => hook,
        Err(_) => by.to_string(),
    }
}

/// A topic file's directory (with its `/`, empty at the top) and its name without `.md`.
fn dir_and_stem(file: &str) -> (String, String) {
    let file = file.strip_prefix("./").unwrap_or(file);
    let (dir, name) = match file.rfind('/') {
        Some(at) => (&file[..=at], &file[at + 1..]),
        None => ("", file),
    };
    let stem = name
        .get(..name.len().saturating_sub(3))
        .unwrap_or(name)
        .to_string();
    (dir.to_string(), stem)
}

/// Lowercase letters and digits, other runs as one `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "part".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_splits_by_heading_then_by_subject() {
        let topic = Topic::parse(
            "memory-infra.md",
            "# Infra\n\n## Hosts\n- 2026-07-01: a\n## Databases\n- 2026-07-02 [db]: b\n- 2026-07-03: c\n",
        )
        .unwrap();
        let parts = DefaultCompactor.split(&topic, &topic.entries).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].file, "memory-infra-databases.md");
        assert_eq!(parts[0].entries, [1, 2]);
        let topic = Topic::parse(
            "memory-infra.md",
            "- 2026-07-01 [db]: a\n- 2026-07-02 [dns]: b\n- 2026-07-03 [db]: c\n- 2026-07-04 [dns]: d\n- 2026-07-05 [db]: e\n- 2026-07-06 [cdn]: f\n",
        )
        .unwrap();
        let parts = DefaultCompactor.split(&topic, &topic.entries).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].file, "memory-infra-dns.md");
        assert_eq!(parts[0].entries, [1, 3]);
        // Single facts are not cut into files of their own.
        let topic = Topic::parse("t.md", "- 2026-07-01 [a]: a\n- 2026-07-02 [b]: b\n").unwrap();
        assert!(
            DefaultCompactor
                .split(&topic, &topic.entries)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn related_subjects_are_one_group() {
        assert_eq!(subject_group("db-primary").as_deref(), Some("db"));
        assert_eq!(subject_group("DB replica").as_deref(), Some("db"));
        assert_eq!(subject_group("db").as_deref(), Some("db"));
        assert_eq!(subject_group("ci/cache").as_deref(), Some("ci"));
        assert_eq!(subject_group("the deploy hook").as_deref(), Some("deploy"));
        assert_eq!(subject_group("the").as_deref(), Some("the"));
        assert_eq!(subject_group(" - ").as_deref(), None);
        // One entry per subject (as after the collapse pass): grouped by their first word.
        let topic = Topic::parse(
            "memory-infra.md",
            "- 2026-07-01 [db-primary]: a\n- 2026-07-02 [dns-zone]: b\n- 2026-07-03 [db-replica]: c\n- 2026-07-04 [dns-ttl]: d\n- 2026-07-05 [db-backups]: e\n- 2026-07-06 [cdn]: f\n",
        )
        .unwrap();
        let parts = DefaultCompactor.split(&topic, &topic.entries).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].file, "memory-infra-dns.md");
        assert_eq!(parts[0].entries, [1, 3]);
        assert_eq!(parts[0].hook, "dns: dns-zone, dns-ttl");
    }
}
