//! The Snapshot Merge Policy: what a session update carries and how it is merged.

use std::collections::{HashMap, HashSet};

use super::snapshot::SectionKind;
use super::snapshot::continues_from_ids;
use super::snapshot_doc::{Entry, OutEntry, SnapshotDoc};
use super::{Mark, SessionId};
use crate::error::{Error, Result};
use crate::markdown::value_lines;

/// What a session update (狀態更新) records. Unset fields leave the snapshot and row as
/// they are; list fields add to (never replace) the snapshot, and the marking fields
/// mark existing items instead of deleting them.
///
/// ```
/// use memory_core::SessionUpdate;
/// let update = SessionUpdate::new()
///     .summary("Login works again.")
///     .decision("Use argon2id")
///     .supersede("Use bcrypt")
///     .done("Reproduce the bug");
/// assert_eq!(update.decisions, ["Use argon2id"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionUpdate {
    /// New topic for the row and the snapshot metadata.
    pub topic: Option<String>,
    /// New summary for the row.
    pub summary: Option<String>,
    /// New keywords for the row (replacing the old list).
    pub keywords: Option<Vec<String>>,
    /// Latest progress, added to `## Current Context` after what is already there.
    pub context: Option<String>,
    /// Decisions to append.
    pub decisions: Vec<String>,
    /// Files or artifacts to add (union, deduplicated).
    pub files: Vec<String>,
    /// Open questions to append.
    pub open_questions: Vec<String>,
    /// Next actions to append.
    pub next_actions: Vec<String>,
    /// Existing decisions to mark `[superseded]` (matched exactly, else by unique substring).
    pub supersede: Vec<String>,
    /// Existing open questions to mark `[resolved]`.
    pub resolve: Vec<String>,
    /// Existing next actions to mark `[done]`.
    pub done: Vec<String>,
}

macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident => $field:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(mut self, value: impl Into<String>) -> Self {
            self.$field.push(value.into());
            self
        }
    )*};
}

impl SessionUpdate {
    /// An empty update (it still promotes the session to `active` and stamps `Updated At`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the topic.
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = Some(topic.into());
        self
    }

    /// Sets the summary.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Sets the keywords (replacing the row's), stored as given: [`AgentMemory::update`]
    /// cleans them, exactly as when the field is set directly. Each is trimmed, and
    /// empty ones are dropped (so `a,b,` split on commas gives `a` and `b`).
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let memory = memory_core::AgentMemory::open(dir.path()).unwrap();
    /// # let id = memory.register_session_start("a").unwrap();
    /// let update = memory_core::SessionUpdate::new().keywords("a, b,".split(','));
    /// assert_eq!(update.keywords.as_deref().unwrap(), ["a", " b", ""]);
    /// assert_eq!(memory.update(id.as_str(), update).unwrap().keywords, ["a", "b"]);
    /// ```
    ///
    /// [`AgentMemory::update`]: crate::AgentMemory::update
    pub fn keywords<I: IntoIterator<Item = S>, S: Into<String>>(mut self, keywords: I) -> Self {
        self.keywords = Some(keywords.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the progress to add to Current Context.
    pub fn context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }

    setters! {
        /// Appends a decision.
        decision => decisions;
        /// Adds a file or artifact.
        file => files;
        /// Appends an open question.
        question => open_questions;
        /// Appends a next action.
        next_action => next_actions;
        /// Marks a decision `[superseded]`.
        supersede => supersede;
        /// Marks an open question `[resolved]`.
        resolve => resolve;
        /// Marks a next action `[done]`.
        done => done;
    }
}

/// The keywords a row records for `keywords` as given (by a builder or a field set
/// directly, as the bindings do): each as its index cell reads it back (trimmed; see
/// `cell_value`), without empty ones and without the `-` marker, and each of those
/// checked by `validate_keyword` (a `<br>` that reads back as a line break is refused
/// like the line break). The one place keywords are cleaned: every operation that
/// writes keywords calls it once, the builders store what they are given.
pub(crate) fn row_keywords(keywords: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(keywords.len());
    for keyword in keywords {
        // Bounded and free of control characters before anything else is done with it.
        super::validate_text("keyword", keyword)?;
        let value = super::cell_value(keyword);
        // A lone `-` is the index's "none" marker: a cell holding only it reads as no
        // keywords, so it is no keyword either.
        if value.is_empty() || value == "-" {
            continue;
        }
        super::validate_keyword(&value)?;
        out.push(value);
    }
    Ok(out)
}

/// The continuation change an operation makes to `## Continues From`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Continuation<'a> {
    None,
    Add(&'a [SessionId]),
    Remove(&'a SessionId),
}

/// Merges `update` into `doc` and returns the changed sections' new content.
pub(crate) fn merge_sections(
    doc: &SnapshotDoc,
    update: &SessionUpdate,
    continuation: Continuation<'_>,
) -> Result<Vec<(SectionKind, String)>> {
    let mut changes = Vec::new();
    if let Some(content) = merge_context(doc, update) {
        changes.push((SectionKind::CurrentContext, content));
    }
    let lists = [
        (
            SectionKind::Decisions,
            &update.decisions,
            &update.supersede,
            Mark::Superseded,
        ),
        (SectionKind::Files, &update.files, &Vec::new(), Mark::Done),
        (
            SectionKind::OpenQuestions,
            &update.open_questions,
            &update.resolve,
            Mark::Resolved,
        ),
        (
            SectionKind::NextActions,
            &update.next_actions,
            &update.done,
            Mark::Done,
        ),
    ];
    for (kind, add, marks, mark) in lists {
        if let Some(out) = merge_list(doc, kind, add, marks, mark)? {
            changes.push((kind, doc.render_entries(kind, &out)));
        }
    }
    if let Some(out) = merge_continues_from(doc, continuation) {
        changes.push((
            SectionKind::ContinuesFrom,
            doc.render_entries(SectionKind::ContinuesFrom, &out),
        ));
    }
    Ok(changes)
}

/// The new Current Context content, when the update brings text it does not hold yet.
///
/// The update's summary (the index row's short form, so that the two stay aligned) and
/// then its context are added, each as paragraphs after what is there, unless that
/// exact run of paragraphs already stands in Current Context (re-applying an update adds
/// nothing; text that is only a part of an old paragraph is still added).
fn merge_context(doc: &SnapshotDoc, update: &SessionUpdate) -> Option<String> {
    let summary = update
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != super::SESSION_START_SUMMARY);
    let context = update
        .context
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let mut present = paragraphs(&doc.context());
    let mut parts = Vec::new();
    for text in summary.into_iter().chain(context) {
        let value = value_lines(text).join("\n");
        let new = paragraphs(&value);
        if !new.is_empty() && !present.windows(new.len()).any(|w| w == new.as_slice()) {
            present.extend(new);
            parts.push(value);
        }
    }
    (!parts.is_empty()).then(|| doc.append_context(&parts))
}

/// A text's paragraphs (runs of lines between blank lines), trimmed.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines().chain([""]) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n").trim().to_string());
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    out
}

/// The key list entries are matched by: Files / Artifacts are paths, equal only when
/// exactly equal (surrounding backticks aside); other items ignore case and spacing.
fn key(kind: SectionKind, text: &str) -> String {
    if kind == SectionKind::Files {
        let t = text.trim();
        t.strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .unwrap_or(t)
            .to_string()
    } else {
        normalize(text)
    }
}

fn normalize(text: &str) -> String {
    text.trim()
        .trim_matches('`')
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One entry of a list section being merged.
struct Slot {
    out: OutEntry,
    /// Normalized text, for matching.
    key: String,
    mark: Option<Mark>,
    /// The text shown in an ambiguity error.
    text: String,
}

fn merge_list(
    doc: &SnapshotDoc,
    kind: SectionKind,
    add: &[String],
    marks: &[String],
    mark: Mark,
) -> Result<Option<Vec<OutEntry>>> {
    if add.iter().all(|a| a.trim().is_empty()) && marks.is_empty() {
        return Ok(None);
    }
    let entries = doc.entries(kind);
    let mut slots: Vec<Slot> = entries
        .iter()
        .filter(|e| !e.placeholder)
        .map(|e| Slot {
            out: OutEntry::kept(e),
            key: key(kind, &e.text),
            mark: e.mark,
            text: e.text.clone(),
        })
        .collect();
    let mut changed = entries.iter().any(|e| e.placeholder);
    // Files are a union. A decision, question or action that is only present marked
    // (reversed, resolved, done) is taken up again as a new entry. A set keeps a long
    // list linear (a call with thousands of items must not hold the lock for minutes).
    let counts = |slot_mark: Option<Mark>| kind == SectionKind::Files || slot_mark.is_none();
    let mut present: HashSet<String> = slots
        .iter()
        .filter(|s| counts(s.mark))
        .map(|s| s.key.clone())
        .collect();
    for item in add.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
        let (item_mark, text) = Mark::split(item);
        let key = key(kind, text);
        if !present.contains(&key) {
            if counts(item_mark) {
                present.insert(key.clone());
            }
            slots.push(Slot {
                out: OutEntry::Render(text.to_string(), item_mark),
                key,
                mark: item_mark,
                text: text.to_string(),
            });
            changed = true;
        }
    }
    // Keys do not change while marking: one index answers every exact lookup.
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, slot) in slots.iter().enumerate() {
        by_key.entry(slot.key.clone()).or_default().push(i);
    }
    for query in marks {
        let target = find_target(doc, kind, &slots, &by_key, query)?;
        let slot = &mut slots[target];
        if slot.mark != Some(mark) {
            slot.out = match &slot.out {
                OutEntry::Keep(raw, blank) | OutEntry::Marked(raw, blank, _) => {
                    OutEntry::Marked(raw.clone(), *blank, mark)
                }
                OutEntry::Render(_, _) => OutEntry::Render(slot.text.clone(), Some(mark)),
            };
            slot.mark = Some(mark);
            changed = true;
        }
    }
    Ok(changed.then(|| slots.into_iter().map(|s| s.out).collect()))
}

/// The entry `query` names: equal text (case and spacing ignored; among equal entries
/// the one not marked yet), else the one entry containing it.
fn find_target(
    doc: &SnapshotDoc,
    kind: SectionKind,
    slots: &[Slot],
    by_key: &HashMap<String, Vec<usize>>,
    query: &str,
) -> Result<usize> {
    let key = normalize(query);
    if key.is_empty() {
        return Err(Error::invalid("item", query, "must not be empty")
            .on_session(&Error::snapshot_session(&doc.path)));
    }
    // Equal text may stand twice (an item marked earlier and taken up again): the one
    // not marked yet is meant. A partial text must name exactly one entry.
    let exact: Vec<usize> = by_key.get(&key).cloned().unwrap_or_default();
    let unmarked: Vec<usize> = exact
        .iter()
        .copied()
        .filter(|&i| slots[i].mark.is_none())
        .collect();
    let matches = match (exact.len(), unmarked.len()) {
        (0, _) => (0..slots.len())
            .filter(|&i| slots[i].key.contains(&key))
            .collect(),
        (1, _) | (_, 0) => exact,
        _ => unmarked,
    };
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::ItemNotFound {
            section: kind.label(),
            item: query.to_string(),
            session_id: Error::snapshot_session(&doc.path),
            path: doc.path.clone(),
        }),
        many => Err(Error::AmbiguousItem {
            section: kind.label(),
            item: query.to_string(),
            candidates: many.iter().map(|&i| slots[i].text.clone()).collect(),
            session_id: Error::snapshot_session(&doc.path),
            path: doc.path.clone(),
        }),
    }
}

fn merge_continues_from(
    doc: &SnapshotDoc,
    continuation: Continuation<'_>,
) -> Option<Vec<OutEntry>> {
    let entries: Vec<Entry> = doc
        .entries(SectionKind::ContinuesFrom)
        .into_iter()
        .filter(|e| !e.placeholder)
        .collect();
    let ids = |e: &Entry| continues_from_ids(&e.text);
    match continuation {
        Continuation::None => None,
        Continuation::Add(sources) => {
            let present: Vec<SessionId> = entries.iter().flat_map(ids).collect();
            let missing: Vec<&SessionId> =
                sources.iter().filter(|s| !present.contains(s)).collect();
            if missing.is_empty() {
                return None;
            }
            let mut out: Vec<OutEntry> = entries.iter().map(OutEntry::kept).collect();
            out.extend(
                missing
                    .into_iter()
                    .map(|s| OutEntry::Render(s.to_string(), None)),
            );
            Some(out)
        }
        Continuation::Remove(source) => {
            if !entries.iter().any(|e| ids(e).contains(source)) {
                return None;
            }
            Some(
                entries
                    .iter()
                    .filter_map(|e| {
                        let named = ids(e);
                        if !named.contains(source) {
                            Some(OutEntry::kept(e))
                        } else if named.len() == 1 {
                            None
                        } else {
                            Some(OutEntry::Keep(
                                without_id(&e.raw, source.as_str()),
                                e.blank_before,
                            ))
                        }
                    })
                    .collect(),
            )
        }
    }
}

/// An entry naming several ids, without `id` (and the separator next to it).
fn without_id(raw: &str, id: &str) -> String {
    let Some(at) = raw.find(id) else {
        return raw.to_string();
    };
    let (before, after) = (&raw[..at], &raw[at + id.len()..]);
    let before = before.trim_end_matches('`');
    let after = after.strip_prefix('`').unwrap_or(after);
    if let Some(rest) = after.trim_start().strip_prefix([',', ';']) {
        format!("{before}{}", rest.trim_start())
    } else {
        let trimmed = before.trim_end();
        let trimmed = trimmed.strip_suffix([',', ';']).unwrap_or(trimmed);
        format!("{trimmed}{after}")
    }
}

/// Checks that a merge kept every item of `old` (possibly marked) and holds the new ones.
pub(crate) fn verify_merge(
    old: Option<&SnapshotDoc>,
    new: &SnapshotDoc,
    update: &SessionUpdate,
    continuation: Continuation<'_>,
) -> Result<()> {
    let fail = |message: String| Err(Error::verify(&new.path, message));
    // Per key: the marking of its first entry, and whether any entry is unmarked (maps,
    // so that checking thousands of items stays linear).
    let new_keys = |kind| -> HashMap<String, (Option<Mark>, bool)> {
        let mut keys: HashMap<String, (Option<Mark>, bool)> = HashMap::new();
        for e in new.entries(kind).iter().filter(|e| !e.placeholder) {
            let slot = keys.entry(normalize(&e.text)).or_insert((e.mark, false));
            slot.1 |= e.mark.is_none();
        }
        keys
    };
    if let Some(old) = old {
        for kind in [
            SectionKind::Decisions,
            SectionKind::Files,
            SectionKind::OpenQuestions,
            SectionKind::NextActions,
            SectionKind::SupersededResolved,
        ] {
            let now = new_keys(kind);
            for entry in old.entries(kind).iter().filter(|e| !e.placeholder) {
                let key = normalize(&entry.text);
                match now.get(&key) {
                    None => {
                        return fail(format!("{} item {:?} was lost", kind.heading(), entry.text));
                    }
                    Some((None, _)) if entry.mark.is_some() => {
                        return fail(format!(
                            "{} item {:?} lost its marking",
                            kind.heading(),
                            entry.text
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        let old_context = old.context();
        if !new.context().contains(old_context.trim()) {
            return fail("Current Context lost earlier content".to_string());
        }
        let removed = match continuation {
            Continuation::Remove(id) => Some(id),
            _ => None,
        };
        let sources = new.continues_from();
        if let Some(lost) = old
            .continues_from()
            .into_iter()
            .find(|id| Some(id) != removed && !sources.contains(id))
        {
            return fail(format!("Continues From lost {lost}"));
        }
    }
    let context = new.context();
    for (what, text) in [("summary", &update.summary), ("context", &update.context)] {
        let value = text
            .as_deref()
            .map_or_else(String::new, |t| value_lines(t).join("\n"));
        let expected =
            !value.is_empty() && (what != "summary" || value != super::SESSION_START_SUMMARY);
        if expected && !context.contains(&value) {
            return fail(format!("Current Context does not hold the new {what}"));
        }
    }
    let expected = [
        (SectionKind::Decisions, &update.decisions, &update.supersede),
        (SectionKind::Files, &update.files, &Vec::new()),
        (
            SectionKind::OpenQuestions,
            &update.open_questions,
            &update.resolve,
        ),
        (SectionKind::NextActions, &update.next_actions, &update.done),
    ];
    for (kind, items, marks) in expected {
        let now = new_keys(kind);
        let marked: Vec<String> = marks.iter().map(|m| normalize(m)).collect();
        for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            let (item_mark, text) = Mark::split(item);
            let key = normalize(text);
            // A new decision, question or action must stand unmarked unless this same
            // update marks it (or it came marked).
            let may_be_marked = kind == SectionKind::Files
                || item_mark.is_some()
                || marked.iter().any(|m| key.contains(m.as_str()));
            if !now
                .get(&key)
                .is_some_and(|&(_, unmarked)| may_be_marked || unmarked)
            {
                return fail(format!("{} item {item:?} was not written", kind.heading()));
            }
        }
    }
    match continuation {
        Continuation::Add(ids) => match ids.iter().find(|id| !new.continues_from().contains(id)) {
            Some(id) => fail(format!("Continues From does not list {id}")),
            None => Ok(()),
        },
        Continuation::Remove(id) if new.continues_from().contains(id) => {
            fail(format!("Continues From still lists {id}"))
        }
        _ => Ok(()),
    }
}
