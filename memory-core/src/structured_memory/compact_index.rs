//! `MEMORY.md` over its budget (the seed: "index lines only; move any content into topic
//! files; merge near-duplicate topics"): content lines move to the topic files the
//! compactor routes them to, near-duplicate topics it names are merged, each move recorded
//! in the archive; what is left over the budget is reported as needing judgment.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::archive::{ArchivePass, render_section};
use super::budget::BudgetState;
use super::compact::{FileCompaction, NeedsJudgment, PassReport, Staged};
use super::compactor::{Compactor, CompactorError};
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::memory::StructuredMemory;
use super::topic_file::Topic;
use super::topic_name::{check_new_topic_name, name_key};
use crate::error::{Error, Result};
use crate::markdown::{Edit, LineEnding, apply_edits};

/// What the index pass changes.
pub(super) struct IndexWork {
    /// The index's new text.
    pub index_text: String,
    /// Topic files' new texts (overriding any earlier write of the same path).
    pub writes: Vec<(PathBuf, String)>,
    /// Topic files merged away.
    pub removals: Vec<PathBuf>,
    /// Archive sections: pass, source file, lines.
    pub archived: Vec<(ArchivePass, String, Vec<String>)>,
    /// The report.
    pub report: FileCompaction,
    /// The topic files it wrote into, with their budget use.
    pub touched: Vec<FileCompaction>,
}

impl StructuredMemory {
    /// Runs the index pass on what `staged` leaves (its index text, and each topic file
    /// as its writes leave it, else as on disk) and folds the pass's changes into it: the
    /// topic files it rewrites, its archive sections under `id`, the index's new text and
    /// its report. Returns the topic files merged away that are on disk (to remove in the same step).
    pub(super) fn stage_index_pass(
        &self,
        staged: &mut Staged,
        compactor: &dyn Compactor,
        id: &str,
        at: &str,
    ) -> Result<Vec<PathBuf>> {
        let Some(text) = staged.index_text.clone() else {
            return Ok(Vec::new());
        };
        let writes = staged.writes.clone();
        let current = |file: &str| -> Result<Option<String>> {
            let p = self.topic_path(file)?;
            match writes.iter().rev().find(|(w, _)| *w == p) {
                Some((_, t)) => Ok(Some(t.clone())),
                None => Ok(self.load_topic(file)?.map(|t| t.text)),
            }
        };
        let Some(work) = self.compact_index(&text, &current, compactor)? else {
            return Ok(Vec::new());
        };
        for (path, text) in work.writes {
            staged.writes.retain(|(p, _)| *p != path);
            staged.writes.push((path, text));
        }
        for path in &work.removals {
            staged.writes.retain(|(p, _)| p != path);
        }
        // A topic this very step was creating (a split's new file, a write's new topic)
        // that the pass merged away is not on disk: its write is dropped (above) instead
        // of a removal the step could not make, and it was not created after all.
        // A merged-away topic's own report says it is gone: none at all for one never
        // written, nothing left (and nothing to judge) for one removed.
        let mut removals = Vec::new();
        for path in work.removals {
            let on_disk = std::fs::symlink_metadata(&path).is_ok();
            let name = self.relative_name(&path)?;
            if on_disk {
                for f in staged.report.files.iter_mut().filter(|f| f.file == name) {
                    f.after = self.budgets.usage(&name, false, 0, 0);
                    f.needs_judgment = None;
                }
                removals.push(path);
            } else {
                staged.report.created.retain(|c| *c != name);
                staged.report.files.retain(|f| f.file != name);
            }
        }
        for (pass, from, lines) in &work.archived {
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            staged
                .archive_add
                .push_str(&render_section(id, *pass, from, at, &refs));
        }
        if !work.archived.is_empty() {
            staged.report.id = Some(id.to_string());
        }
        staged.index_text = Some(work.index_text);
        staged.report.files.push(work.report);
        // A topic the trigger compacted and the pass then wrote into is one report: its
        // budget use after both, and a needs-judgment only when it ends over.
        for t in work.touched {
            match staged.report.files.iter_mut().find(|f| f.file == t.file) {
                Some(f) => {
                    f.needs_judgment = match (f.needs_judgment.take(), t.needs_judgment) {
                        (Some(mut earlier), Some(now)) => {
                            earlier.over_by_lines = now.over_by_lines;
                            earlier.over_by_bytes = now.over_by_bytes;
                            earlier.unparsed_lines = now.unparsed_lines;
                            Some(earlier)
                        }
                        (_, now) => now,
                    };
                    f.after = t.after;
                }
                None => staged.report.files.push(t),
            }
        }
        Ok(removals)
    }

    /// Runs the index pass on `index_text` (the index as the topic passes left it), with
    /// `current` giving a topic file's text as the step so far leaves it.
    pub(super) fn compact_index(
        &self,
        index_text: &str,
        current: &dyn Fn(&str) -> Result<Option<String>>,
        compactor: &dyn Compactor,
    ) -> Result<Option<IndexWork>> {
        let path = self.index_path()?;
        let mut index = MemoryIndex::parse(&path, index_text.to_string())?;
        let usage = |i: &MemoryIndex| {
            self.budgets
                .usage(INDEX_FILE_NAME, true, i.line_count, i.byte_count)
        };
        let before = usage(&index);
        if before.state != BudgetState::Over {
            return Ok(None);
        }
        // The linked topics the pass can write into (they read, and memory-core writes
        // their names): the defaults route and merge only those, so that a dangling or
        // damaged line never makes the pass fail (see `index_defaults.rs`).
        let mut usable = BTreeSet::new();
        for line in &index.lines {
            let key = name_key(&line.file);
            if usable.contains(&key) || check_new_topic_name(&line.file).is_err() {
                continue;
            }
            let reads = self.topic_path(&line.file).is_ok_and(|p| {
                current(&line.file)
                    .is_ok_and(|t| t.is_some_and(|t| Topic::read(&p, line.file.clone(), t).is_ok()))
            });
            if reads {
                usable.insert(key);
            }
        }
        index.usable_topics = Some(usable);

        // `why` is the compactor's own error when it raised one: kept as the source (not
        // its text), so that a binding can give the caller back what its callable raised.
        let failed = |pass: ArchivePass, why: CompactorError| Error::CompactorFailed {
            pass: pass.as_str(),
            file: INDEX_FILE_NAME.to_string(),
            source: why,
        };
        let mut edits: Vec<Edit> = Vec::new();
        let mut writes: Vec<(PathBuf, String)> = Vec::new();
        let mut removals = Vec::new();
        let mut archived = Vec::new();
        let mut passes = Vec::new();
        let text_of = |file: &str, writes: &[(PathBuf, String)]| -> Result<String> {
            let p = self.topic_path(file)?;
            match writes.iter().rev().find(|(w, _)| *w == p) {
                Some((_, t)) => Ok(t.clone()),
                None => match current(file)? {
                    Some(t) => Ok(t),
                    // The reason, as every entry point gives it (`topic_case.rs`): the
                    // index links a spelling the disk holds only in another case.
                    None => {
                        self.resolve_topic_name(file, Some(&index))?;
                        Err(Error::TopicNotFound {
                            file: file.to_string(),
                            path: p,
                        })
                    }
                },
            }
        };

        // Content lines to the topics they are routed to.
        let routes = compactor
            .route_content(&index)
            .map_err(|e| failed(ArchivePass::IndexContent, e))?;
        let mut moved_lines = BTreeSet::new();
        let mut moved_text = Vec::new();
        // Per topic file, in the order first routed to: the lines and their numbers.
        let mut routed: Vec<(String, Vec<String>, Vec<usize>)> = Vec::new();
        for (i, file) in routes {
            let Some(line) = index.content.get(i) else {
                return Err(failed(
                    ArchivePass::IndexContent,
                    format!("content line {i} does not exist").into(),
                ));
            };
            if !moved_lines.insert(i) {
                return Err(failed(
                    ArchivePass::IndexContent,
                    format!("content line {i} was routed twice").into(),
                ));
            }
            // The index's spelling of the name (a compactor may give it in another case or
            // normalisation form): the file the line links.
            let file = match index.line_for(&file) {
                Some(linked) => writable(
                    ArchivePass::IndexContent,
                    linked_name(ArchivePass::IndexContent, &file, linked)?,
                )?,
                None => {
                    return Err(failed(
                        ArchivePass::IndexContent,
                        format!("{file} has no index line").into(),
                    ));
                }
            };
            let p = self.topic_path(&file)?;
            let mut t = text_of(&file, &writes)?;
            let tle = LineEnding::detect(&t).as_str();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(tle);
            }
            // The first line routed into a file starts its own paragraph: right after an
            // entry it would read as that entry's lazy continuation (and move with it).
            let first_into = !routed.iter().any(|(f, _, _)| *f == file);
            if first_into && !t.is_empty() && !(t.ends_with("\n\n") || t.ends_with("\r\n\r\n")) {
                t.push_str(tle);
            }
            let before = Topic::read(&p, file.clone(), t.clone())
                .map(|topic| topic.entries.len())
                .unwrap_or(0);
            let entry = routed_entry(&line.text, self.handle.clock.now().date_naive(), tle);
            // Moved as an entry when it reads back as one more (it is compactable then);
            // a line that cannot be an entry's text (a fence, a table row) as it is.
            let mut with_entry = t.clone();
            with_entry.push_str(&entry);
            let as_entry = Topic::read(&p, file.clone(), with_entry.clone())
                .is_ok_and(|topic| topic.entries.len() == before + 1);
            let written = if as_entry {
                t = with_entry;
                entry.trim_end_matches(['\r', '\n']).to_string()
            } else {
                t.push_str(&line.text);
                t.push_str(tle);
                line.text.clone()
            };
            Topic::read(&p, file.clone(), t.clone())
                .map_err(|e| Error::unreadable_result(&p, e))?;
            writes.push((p, t));
            edits.push(line_edit(&index.text, line.line));
            moved_text.push(line.text.clone());
            match routed.iter_mut().find(|(f, _, _)| *f == file) {
                Some((_, texts, numbers)) => {
                    texts.push(written);
                    numbers.push(line.line);
                }
                None => routed.push((file.clone(), vec![written], vec![line.line])),
            }
        }
        if !moved_text.is_empty() {
            archived.push((
                ArchivePass::IndexContent,
                INDEX_FILE_NAME.to_string(),
                moved_text.clone(),
            ));
            for (to, written, from_lines) in routed {
                passes.push(PassReport {
                    pass: ArchivePass::IndexContent,
                    from: INDEX_FILE_NAME.to_string(),
                    entries: Vec::new(),
                    to,
                    written,
                    from_lines,
                });
            }
        }

        // Near-duplicate topics merged.
        let merges = compactor
            .merge_topics(&index)
            .map_err(|e| failed(ArchivePass::MergeTopics, e))?;
        let mut gone = BTreeSet::new();
        let mut merged = Vec::new();
        for (from, into) in merges {
            let (Some(from_line), Some(into_line)) = (index.line_for(&from), index.line_for(&into))
            else {
                return Err(failed(
                    ArchivePass::MergeTopics,
                    format!("{from} and {into} must both have index lines").into(),
                ));
            };
            let from = linked_name(ArchivePass::MergeTopics, &from, from_line)?;
            let into = writable(
                ArchivePass::MergeTopics,
                linked_name(ArchivePass::MergeTopics, &into, into_line)?,
            )?;
            if name_key(&from) == name_key(&into)
                || !gone.insert(name_key(&from))
                || gone.contains(&name_key(&into))
            {
                return Err(failed(
                    ArchivePass::MergeTopics,
                    format!("{from} cannot be merged into {into}").into(),
                ));
            }
            let from_text = text_of(&from, &writes)?;
            let from_path = self.topic_path(&from)?;
            let into_path = self.topic_path(&into)?;
            let from_topic = Topic::read(&from_path, from.clone(), from_text.clone())?;
            let body = &from_text[body_start(&from_topic)..];
            let mut t = text_of(&into, &writes)?;
            let tle = LineEnding::detect(&t).as_str();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(tle);
            }
            // One blank line before the new section, not a second after one already there.
            if !(t.ends_with("\n\n") || t.ends_with("\r\n\r\n") || t.is_empty()) {
                t.push_str(tle);
            }
            let joined_at = t.len();
            t.push_str(&format!("## {}{tle}{tle}", from_line.title));
            // The merged lines take the line ending of the file they join (the archive
            // keeps them as they were).
            t.push_str(&with_line_ending(
                body.trim_start_matches(['\r', '\n']),
                tle,
            ));
            if !t.ends_with('\n') {
                t.push_str(tle);
            }
            let joined = Topic::read(&into_path, into.clone(), t.clone())
                .map_err(|e| Error::unreadable_result(&into_path, e))?;
            // Merge on write: the two topics may hold generations of one subject, and only
            // the newest-dated stays live (as `remember` leaves it).
            let stale = superseded_generations(&joined);
            let from_part: Vec<usize> = (0..joined.entries.len())
                .filter(|&i| joined.entries[i].span.start >= joined_at)
                .collect();
            let (mut stale_into, mut stale_from) = (Vec::new(), Vec::new());
            if !stale.is_empty() && from_part.len() == from_topic.entries.len() {
                for &i in &stale {
                    match from_part.iter().position(|&j| j == i) {
                        Some(k) => stale_from.push(k),
                        None => stale_into.push(joined.entries[i].clone()),
                    }
                }
                let gone: Vec<&super::topic_file::Entry> =
                    stale.iter().map(|&i| &joined.entries[i]).collect();
                t = super::remember::remove_entries(&t, &gone);
                Topic::read(&into_path, into.clone(), t.clone())
                    .map_err(|e| Error::unreadable_result(&into_path, e))?;
            }
            if !stale_into.is_empty() {
                archived.push((
                    ArchivePass::Merge,
                    into.clone(),
                    stale_into
                        .iter()
                        .flat_map(|e| joined.text[e.span.clone()].lines().map(str::to_string))
                        .collect(),
                ));
                passes.push(PassReport {
                    pass: ArchivePass::Merge,
                    from: into.clone(),
                    from_lines: stale_into.iter().map(|e| e.line).collect(),
                    entries: stale_into,
                    to: crate::structured_memory::ARCHIVE_FILE_NAME.to_string(),
                    written: Vec::new(),
                });
            }
            if !stale_from.is_empty() {
                // Already in the archive with the whole merged file (below).
                let entries: Vec<_> = stale_from
                    .iter()
                    .map(|&k| from_topic.entries[k].clone())
                    .collect();
                passes.push(PassReport {
                    pass: ArchivePass::Merge,
                    from: from.clone(),
                    from_lines: entries.iter().map(|e| e.line).collect(),
                    entries,
                    to: crate::structured_memory::ARCHIVE_FILE_NAME.to_string(),
                    written: Vec::new(),
                });
            }
            let moved: Vec<_> = from_topic
                .entries
                .iter()
                .enumerate()
                .filter(|(k, _)| !stale_from.contains(k))
                .map(|(_, e)| e.clone())
                .collect();
            writes.retain(|(p, _)| *p != from_path);
            writes.push((into_path, t));
            removals.push(from_path);
            edits.push(line_edit(&index.text, from_line.line));
            archived.push((
                ArchivePass::MergeTopics,
                from.clone(),
                from_text.lines().map(str::to_string).collect(),
            ));
            passes.push(PassReport {
                pass: ArchivePass::MergeTopics,
                from: from.clone(),
                from_lines: moved.iter().map(|e| e.line).collect(),
                entries: moved,
                to: into.clone(),
                written: Vec::new(),
            });
            merged.push(from);
        }

        let new_text = apply_edits(&index.text, edits);
        let new_index = MemoryIndex::parse(&path, new_text.clone())
            .map_err(|e| Error::unreadable_result(&path, e))?;
        let after = usage(&new_index);
        // The content lines left, numbered as in the index before the pass (as every
        // needs-judgment counts).
        let left: Vec<usize> = index
            .content
            .iter()
            .enumerate()
            .filter(|(i, _)| !moved_lines.contains(i))
            .map(|(_, c)| c.line)
            .collect();
        let needs_judgment = (after.state == BudgetState::Over).then(|| NeedsJudgment {
            file: INDEX_FILE_NAME.to_string(),
            over_by_lines: after.over_by_lines,
            over_by_bytes: after.over_by_bytes,
            message: still_over_message(&left, &left_near_duplicates(&index, &merged)),
            unparsed_lines: left,
        });
        // Topic files the pass wrote into: their budget use, and their own needs-judgment
        // when content or a merged topic takes one over its budget.
        // A file routed into twice is in `writes` twice: its last text is what is written.
        let mut touched: Vec<FileCompaction> = Vec::new();
        for (i, (p, text)) in writes.iter().enumerate() {
            if writes[i + 1..].iter().any(|(later, _)| later == p) {
                continue;
            }
            let file = self.relative_name(p)?;
            let topic = Topic::read(p, file.clone(), text.clone())?;
            let before = match current(&file)? {
                Some(old) => {
                    let old = Topic::read(p, file.clone(), old)?;
                    self.usage_of(&old)
                }
                None => self.budgets.usage(&file, false, 0, 0),
            };
            let after = self.usage_of(&topic);
            touched.push(FileCompaction {
                needs_judgment: (after.state == BudgetState::Over).then(|| NeedsJudgment {
                    file: file.clone(),
                    over_by_lines: after.over_by_lines,
                    over_by_bytes: after.over_by_bytes,
                    unparsed_lines: topic.unparsed_lines().to_vec(),
                    message: format!(
                        "{file} is over its budget with what the index pass moved into it: a compactor must split it or say what is dead"
                    ),
                }),
                file,
                before,
                after,
                passes: Vec::new(),
            });
        }
        Ok(Some(IndexWork {
            touched,
            index_text: new_text,
            writes,
            removals,
            archived,
            report: FileCompaction {
                file: INDEX_FILE_NAME.to_string(),
                before,
                after,
                passes,
                needs_judgment,
            },
        }))
    }
}

/// The near-duplicate pairs `check` reports that the pass did not merge (only similar,
/// or a file it could not merge), as `later (line n) and earlier (line m)`, for the
/// needs-judgment message.
fn left_near_duplicates(index: &MemoryIndex, merged: &[String]) -> Vec<String> {
    super::check_near_duplicates::near_duplicate_pairs(index)
        .into_iter()
        .filter(|pair| {
            !merged.iter().any(|m| {
                [&pair.later.file, &pair.earlier.file]
                    .iter()
                    .any(|f| name_key(f) == name_key(m))
            })
        })
        .map(|pair| {
            format!(
                "{} (line {}) and {} (line {})",
                pair.later.file, pair.later.line, pair.earlier.file, pair.earlier.line
            )
        })
        .collect()
}

/// What the index still over its budget needs: its content lines `left` (numbered as
/// before the pass) routed by judgment, or its topics merged or fewer — naming the
/// near-duplicate topics the pass left (`near`) for that judgment.
fn still_over_message(left: &[usize], near: &[String]) -> String {
    let mut message = still_over_lines(left);
    if !near.is_empty() {
        message.push_str(&format!(
            "; near-duplicate topics left to merge by judgment: {}",
            near.join(", ")
        ));
    }
    message
}

fn still_over_lines(left: &[usize]) -> String {
    let lines: Vec<String> = left.iter().map(usize::to_string).collect();
    match lines.len() {
        0 => "MEMORY.md is still over its budget with pointer lines only: merge topics that cover one subject (a compactor's `merge_topics`), or raise its budget".to_string(),
        n => format!(
            "MEMORY.md is still over its budget: {} no topic clearly matches ({} {}); a compactor must route {} to topic files, or merge near-duplicate topics",
            crate::plural::count(n, "content line", "content lines"),
            if n == 1 { "line" } else { "lines" },
            lines.join(", "),
            if n == 1 { "it" } else { "them" },
        ),
    }
}

/// A content line of the index as the entry it becomes in a topic file (with `le`): a
/// line that reads as a dated entry already (`- 2026-07-01: …`) as it is, without its
/// indentation; any other its text — indentation, a list marker (`-`, `*`, `+`, `1.`) and
/// a task box (`[ ]`, `[x]`) taken off — dated the day it is moved.
pub(super) fn routed_entry(line: &str, today: chrono::NaiveDate, le: &str) -> String {
    let text = line.trim();
    if Topic::parse("routed", format!("{text}\n")).is_ok_and(|t| t.entries.len() == 1) {
        return format!("{text}{le}");
    }
    super::remember::render_entry(today, None, routed_text(text), le)
}

/// A content line's text without its indentation, list marker and task box.
pub(super) fn routed_text(line: &str) -> &str {
    let text = line.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let after_marker = text
        .strip_prefix(['-', '*', '+'])
        .or_else(|| {
            (1..=9)
                .contains(&digits)
                .then(|| text[digits..].strip_prefix(['.', ')']))?
        })
        .filter(|rest| rest.starts_with([' ', '\t']) || rest.is_empty());
    let rest = after_marker.map_or(text, str::trim_start);
    let rest = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| rest.strip_prefix(b))
        .unwrap_or(rest);
    match rest.trim() {
        "" => text,
        rest => rest,
    }
}

/// The edit removing line `number` (1-based) of `text`, terminator included.
/// The entries of `topic` that an entry about the same subject supersedes: in each
/// subject's group, all but the newest-dated (of two on one day, the later in the file).
fn superseded_generations(topic: &Topic) -> Vec<usize> {
    let mut newest: Vec<(String, usize)> = Vec::new();
    let mut stale = Vec::new();
    for (i, e) in topic.entries.iter().enumerate() {
        let Some(subject) = &e.subject else { continue };
        let key = super::topic_file::subject_key(subject);
        match newest.iter_mut().find(|(k, _)| *k == key) {
            None => newest.push((key, i)),
            Some((_, kept)) => {
                if e.date >= topic.entries[*kept].date {
                    stale.push(*kept);
                    *kept = i;
                } else {
                    stale.push(i);
                }
            }
        }
    }
    stale.sort_unstable();
    stale
}

fn line_edit(text: &str, number: usize) -> Edit {
    let mut start = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == number {
            return Edit {
                range: start..start + line.len(),
                replacement: String::new(),
            };
        }
        start += line.len();
    }
    Edit {
        range: text.len()..text.len(),
        replacement: String::new(),
    }
}

/// `text` with every line ending `le` (`\n` or `\r\n`).
fn with_line_ending(text: &str, le: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(content) => {
                out.push_str(content.strip_suffix('\r').unwrap_or(content));
                out.push_str(le);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The file an index line links, for a name a compactor gave (`given`): the line's own
/// spelling; a name spelled otherwise is held to the rules of a new name first (see
/// `topic_name.rs`), so that an invisible or unportable name is refused, not followed.
fn linked_name(
    pass: ArchivePass,
    given: &str,
    linked: &super::index_file::IndexLine,
) -> Result<String> {
    let given = given.strip_prefix("./").unwrap_or(given);
    if given != linked.file {
        check_new_topic_name(given).map_err(|e| Error::CompactorFailed {
            pass: pass.as_str(),
            file: INDEX_FILE_NAME.to_string(),
            source: e.into(),
        })?;
    }
    Ok(linked.file.clone())
}

/// `file`, a linked topic the pass would write into, when memory-core may write it:
/// never a name Windows cannot hold (`CON.md`, `nul.md`, `COM1.md`…), as `remember` never
/// writes one (see `topic_name.rs`).
fn writable(pass: ArchivePass, file: String) -> Result<String> {
    check_new_topic_name(&file).map_err(|e| Error::CompactorFailed {
        pass: pass.as_str(),
        file: INDEX_FILE_NAME.to_string(),
        source: e.into(),
    })?;
    Ok(file)
}

/// Where a topic's body starts (after its frontmatter, if any).
fn body_start(topic: &Topic) -> usize {
    let text = topic.text.as_str();
    let start = topic.body_start;
    // A byte-order mark (a file without frontmatter) is not carried into the middle of
    // another file.
    let start = if start == 0 && text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        start
    };
    // Its `# Title` line too: the merged topic's title becomes the `##` heading.
    let mut at = start;
    for line in text[start..].split_inclusive('\n') {
        let content = line.trim_end_matches(['\r', '\n']);
        if content.trim().is_empty() {
            at += line.len();
            continue;
        }
        if content.starts_with("# ") || content == "#" {
            return at + line.len();
        }
        break;
    }
    start
}
