//! Compaction, as the seed's "Self-compaction" section asks: the passes in order — evict
//! the dead, collapse the superseded, summarize the episodic, split the overgrown — each
//! only while the file is still over its budget; never truncation. Everything a pass
//! removes or condenses is appended to `memory-archive.md` in the same all-or-nothing step
//! that rewrites the live files, with its source file, the pass and the compaction id.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::{NaiveDate, Utc};
use serde::Serialize;

use super::archive::{ARCHIVE_HEADER, ArchivePass, next_id, render_section};
use super::budget::{BudgetState, BudgetUse};
use super::compactor::{Compactor, CompactorError};
use super::index_file::MemoryIndex;
use super::memory::{ARCHIVE_FILE_NAME, StructuredMemory};
use super::pointer::render_pointer;
use super::remember::{INDEX_HEADER, check_fact_text, clean_subject, render_entry};
use super::time_words::convert_relative_time;
use super::topic_file::{Entry, Topic, subject_key};
use super::topic_name::{check_new_topic_name, name_key};
use crate::durable::{LOCK_FILE_NAME, MemoryLock, Transaction, read_text_if_exists};
use crate::error::{Error, Result};
use crate::hygiene::refuse_secrets;
use crate::markdown::{Edit, apply_edits};
use crate::plural::counted;

/// What one pass did to one file.
///
/// ```
/// # use memory_core::structured_memory::PassReport;
/// fn moved(p: &PassReport) -> usize { p.entries.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PassReport {
    /// The pass.
    pub pass: ArchivePass,
    /// The file it took them from (the file compacted; for a merge of topics, the topic
    /// merged away).
    pub from: String,
    /// The entries it took out of the file (archived, or moved by a split).
    pub entries: Vec<Entry>,
    /// Where they went: `memory-archive.md`, the new topic file of a split, the topic
    /// file content lines of the index were moved to, the topic merged into.
    pub to: String,
    /// Where what it took started, in the file as it was before the compaction (1-based
    /// lines): each entry's first line (the entries' own `line` and `end_line` are
    /// given in that file too), or each content line of the index it moved. A lesson
    /// or folded text an earlier pass wrote counts from where that pass wrote it.
    pub from_lines: Vec<usize>,
    /// The entries it wrote in their place (a folded newest generation, a lesson).
    pub written: Vec<String>,
}

/// A file compaction could not bring under its budget without judgment the compactor did
/// not supply.
///
/// ```
/// # use memory_core::structured_memory::NeedsJudgment;
/// fn say(n: &NeedsJudgment) -> String { format!("{}: {} lines over", n.file, n.over_by_lines) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NeedsJudgment {
    /// The file.
    pub file: String,
    /// Lines still over the budget.
    pub over_by_lines: usize,
    /// Bytes still over the byte budget (0 when unlimited or within).
    pub over_by_bytes: usize,
    /// Lines the library does not read as entries (hand-written notes, prose): never
    /// compacted, flagged for a person. 1-based, in the file as it was before the
    /// compaction, as [`PassReport::from_lines`] (for a write's compaction: with the
    /// write's entry in place); for a file a split made or moved entries into, in that
    /// file as the compaction leaves it.
    pub unparsed_lines: Vec<usize>,
    /// What would help.
    pub message: String,
}

impl NeedsJudgment {
    /// What the file is over by, in words: `3 lines over`, `120 bytes over`, or both
    /// (`0 lines over` only when neither is set).
    ///
    /// ```
    /// use memory_core::structured_memory::{Budgets, Fact, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// let m = StructuredMemory::builder(dir.path())
    ///     .budgets(Budgets::default().topic_bytes(Some(40)))
    ///     .open()
    ///     .unwrap();
    /// m.remember(Fact::new("memory-t.md", "a fact long enough to pass forty bytes").hook("t"))
    ///     .unwrap();
    /// let report = m.compact(None, &memory_core::structured_memory::DefaultCompactor, true).unwrap();
    /// let n = report.files[0].needs_judgment.as_ref().unwrap();
    /// assert!(n.overage().ends_with("bytes over") && !n.overage().contains("lines"), "{}", n.overage());
    /// ```
    pub fn overage(&self) -> String {
        let mut over = Vec::new();
        if self.over_by_lines > 0 || self.over_by_bytes == 0 {
            over.push(format!("{} over", counted(self.over_by_lines, "line")));
        }
        if self.over_by_bytes > 0 {
            over.push(format!("{} over", counted(self.over_by_bytes, "byte")));
        }
        over.join(", ")
    }
}

/// What compaction did (or, with `dry_run`, would do) to one file.
///
/// ```
/// # use memory_core::structured_memory::FileCompaction;
/// fn saved(f: &FileCompaction) -> usize { f.before.lines - f.after.lines }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FileCompaction {
    /// The file.
    pub file: String,
    /// Its budget use before.
    pub before: BudgetUse,
    /// Its budget use after.
    pub after: BudgetUse,
    /// The passes that changed it, in order.
    pub passes: Vec<PassReport>,
    /// Set when it is still over its budget.
    pub needs_judgment: Option<NeedsJudgment>,
}

/// What a compaction did.
///
/// ```
/// # use memory_core::structured_memory::CompactionReport;
/// fn archived(r: &CompactionReport) -> usize { r.files.iter().flat_map(|f| &f.passes).map(|p| p.entries.len()).sum() }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CompactionReport {
    /// The compaction id (`restore` takes it); `None` when nothing was archived.
    pub id: Option<String>,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// Every file looked at.
    pub files: Vec<FileCompaction>,
    /// Topic files created by splits, each with its index line.
    pub created: Vec<String>,
    /// The index lines the compaction adds to `MEMORY.md` (one per file in
    /// [`created`](CompactionReport::created), in order): what a dry run would write there.
    pub index_lines: Vec<AddedIndexLine>,
    /// Topic files a compaction of every file left as they are because they cannot be
    /// read or written (a frontmatter never closed, not UTF-8, a symbolic link, a
    /// Windows device name…): each named with the line and why, every other file
    /// compacted all the same. Empty for a compaction of one file (its problem is the
    /// error).
    pub not_compacted: Vec<NotCompacted>,
    /// Temp and backup files of memory-core writers that died mid-write (`kill -9`, a
    /// power loss), anywhere under the directory (relative paths): removed under the
    /// lock, which every live writer holds while its own exist (with `dry_run`, they
    /// would be; nothing is removed).
    pub removed_temp_files: Vec<String>,
}

/// An index line a compaction adds to `MEMORY.md` for a file a split created.
///
/// ```
/// use memory_core::structured_memory::{Budgets, DefaultCompactor, StructuredMemory};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts, databases\n").unwrap();
/// std::fs::write(dir.path().join("memory-infra.md"),
///     "# Infra\n\n## Hosts\n- 2026-06-01: web1\n- 2026-06-02: web2\n\n## Databases\n- 2026-06-03: db1\n- 2026-06-04: db2\n").unwrap();
/// let memory = StructuredMemory::builder(dir.path()).budgets(Budgets::default().topic_lines(7)).open().unwrap();
/// let dry = memory.compact(None, &DefaultCompactor, true).unwrap();
/// let line = &dry.index_lines[0];
/// assert_eq!((line.file.as_str(), line.title.as_str()), ("memory-infra-databases.md", "Infra: Databases"));
/// assert_eq!(line.text, "- [Infra: Databases](memory-infra-databases.md) — Databases");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AddedIndexLine {
    /// The topic file it links.
    pub file: String,
    /// Its title.
    pub title: String,
    /// Its hook.
    pub hook: String,
    /// The line as written, without its line break.
    pub text: String,
}

/// A topic file a compaction of every file did not compact: it does not read, or its
/// name is one memory-core never writes.
///
/// ```
/// use memory_core::structured_memory::{Budgets, DefaultCompactor, StructuredMemory};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("MEMORY.md"), "- [B](memory-b.md) — b\n").unwrap();
/// std::fs::write(dir.path().join("memory-b.md"), "---\nname: b\n- 2026-07-01: x\n").unwrap();
/// let report = StructuredMemory::open(dir.path()).unwrap().compact(None, &DefaultCompactor, true).unwrap();
/// let skipped = &report.not_compacted[0];
/// assert_eq!((skipped.file.as_str(), skipped.line), ("memory-b.md", 1));
/// assert_eq!(skipped.kind, memory_core::ErrorKind::Malformed);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NotCompacted {
    /// The file, relative to the directory.
    pub file: String,
    /// The 1-based line the problem is at (0 when it concerns the whole file).
    pub line: usize,
    /// The kind of error compacting it alone gives (`malformed`, `invalid_input`, `io`…;
    /// the command line exits with its code).
    #[serde(serialize_with = "kind_name")]
    pub kind: crate::error::ErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

impl NotCompacted {
    /// `file`, left as it is because of `error`.
    pub(super) fn from_error(file: &str, error: &Error) -> NotCompacted {
        let text = error.to_string();
        let message = match error {
            Error::Malformed { message, .. } => message.clone(),
            _ => match error.path() {
                Some(path) => {
                    let prefix = format!("{}: ", path.display());
                    text.strip_prefix(&prefix).unwrap_or(&text).to_string()
                }
                None => text,
            },
        };
        NotCompacted {
            file: file.strip_prefix("./").unwrap_or(file).to_string(),
            line: error.line().unwrap_or(0),
            kind: error.kind(),
            message,
        }
    }
}

fn kind_name<S: serde::Serializer>(
    kind: &crate::error::ErrorKind,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(kind.as_str())
}

/// Which passes run on a file beyond the budget-triggered ones.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Passes {
    /// Collapse the superseded even when the file is within its budget (`compact FILE`
    /// asked for by name): generations of one subject are always a contradiction.
    pub(super) collapse_within_budget: bool,
}

/// One file's text as the passes leave it, and what they took out.
pub(super) struct Work {
    pub(super) file: String,
    pub(super) path: PathBuf,
    pub(super) topic: Topic,
    pub(super) passes: Vec<PassReport>,
    /// Archive sections to append: (pass, raw lines).
    pub(super) archived: Vec<(ArchivePass, Vec<String>)>,
    /// New topic files: (file, path, text, title, hook).
    pub(super) created: Vec<(String, PathBuf, String, String, String)>,
    /// Earlier splits a split moved entries into: (file, path, text before, text after).
    pub(super) moved_into: Vec<(String, PathBuf, String, String)>,
    /// The file's text before the first pass.
    original: String,
    /// Each applied pass's edits, sorted (to give lines in the original text).
    history: Vec<Vec<Edit>>,
    /// The file a split part wanted that was not made because it would have moved every
    /// entry out of a topic holding nothing else (an empty husk with an index line).
    pub(super) emptying_split: Option<String>,
    /// How many entries the file had before the first pass.
    original_entries: usize,
}

impl Work {
    /// Whether the passes left the file a husk: it had entries, they are all gone (the
    /// compactor said they were dead), and nothing else of its own is left (no prose, no
    /// hand notes; a frontmatter block and headings at most). Such a topic is removed with
    /// its index line, both archived first.
    fn emptied(&self) -> bool {
        self.original_entries > 0
            && self.topic.entries.is_empty()
            && self.topic.unparsed_lines().is_empty()
            && self.created.is_empty()
            && self.moved_into.is_empty()
    }

    /// The lines the library does not read as entries (prose, hand notes), numbered in
    /// the file as it was before the first pass: the passes never move them, but the
    /// entries they take out above them shift them in the text they leave.
    fn original_unparsed_lines(&self) -> Vec<usize> {
        let text = self.topic.text.as_str();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.topic
            .unparsed_lines()
            .iter()
            .map(|&line| {
                let mut at = starts
                    .get(line.saturating_sub(1))
                    .copied()
                    .unwrap_or(text.len());
                for edits in self.history.iter().rev() {
                    at = position_before(edits, at);
                }
                self.original[..at.min(self.original.len())]
                    .matches('\n')
                    .count()
                    + 1
            })
            .collect()
    }

    /// Gives `entries` (read from the text as the passes so far leave it) their lines in
    /// the original text, and returns their first lines.
    pub(super) fn to_original_lines(&self, entries: &mut [Entry]) -> Vec<usize> {
        entries
            .iter_mut()
            .map(|e| {
                let mut at = e.span.start;
                for edits in self.history.iter().rev() {
                    at = position_before(edits, at);
                }
                let line = self.original[..at.min(self.original.len())]
                    .matches('\n')
                    .count()
                    + 1;
                e.end_line = line + (e.end_line - e.line);
                e.line = line;
                line
            })
            .collect()
    }
}

/// Where offset `at` of the text `edits` produced was in the text before them (an
/// offset inside a replacement maps to where the replaced range started).
fn position_before(edits: &[Edit], at: usize) -> usize {
    // old = new + shift, for offsets past the edits seen so far.
    let mut shift: isize = 0;
    for e in edits {
        let start = (e.range.start as isize - shift) as usize;
        if at < start {
            break;
        }
        if at < start + e.replacement.len() {
            return e.range.start;
        }
        shift += e.range.len() as isize - e.replacement.len() as isize;
    }
    (at as isize + shift).max(0) as usize
}

impl StructuredMemory {
    /// Compacts `file` (or, when `None`, every linked topic file over its budget), with
    /// `compactor` for the judgment calls, under the directory's lock. With `dry_run`
    /// nothing is written and the report says exactly what would move where.
    ///
    /// Whatever the compactor returns, the library enforces: only entries it can read are
    /// offered (hand-written lines are never compacted, and are listed in
    /// [`NeedsJudgment::unparsed_lines`]); every entry a pass removes or condenses is in the
    /// archive, in the same step as the rewrite; a lesson or folded text is one fact
    /// without secrets; an entry it was not given, or the same entry twice, abandons the
    /// compaction ([`Error::CompactorFailed`]), as does an error it raises. A file still
    /// over budget after the four passes gets a [`NeedsJudgment`] with the exact overage.
    /// Temp files of writers that died mid-write are removed and listed
    /// ([`CompactionReport::removed_temp_files`]).
    ///
    /// ```
    /// use memory_core::structured_memory::{Budgets, DefaultCompactor, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// let entries: String = (1..=6).map(|i| format!("- 2026-07-0{i} [db]: Postgres 1{i}\n")).collect();
    /// std::fs::write(dir.path().join("memory-infra.md"), entries).unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [Infra](memory-infra.md) — databases\n").unwrap();
    /// let memory = StructuredMemory::builder(dir.path()).budgets(Budgets::default().topic_lines(4)).open().unwrap();
    /// let report = memory.compact(Some("memory-infra.md"), &DefaultCompactor, false).unwrap();
    /// assert_eq!(report.files[0].after.lines, 1, "the newest generation stays");
    /// assert_eq!(memory.topic("memory-infra.md").unwrap().entries[0].text, "Postgres 16");
    /// assert!(std::fs::read_to_string(dir.path().join("memory-archive.md")).unwrap().contains("Postgres 11"));
    /// ```
    pub fn compact(
        &self,
        file: Option<&str>,
        compactor: &dyn Compactor,
        dry_run: bool,
    ) -> Result<CompactionReport> {
        // A dry run in a directory memory-core never wrote to creates nothing, not even
        // the lock file: no memory-core writer has a step there to wait for.
        if dry_run && !self.root().join(LOCK_FILE_NAME).exists() {
            let mut report = self.compact_locked(None, file, compactor, true)?;
            report.removed_temp_files = self
                .writer_temp_files()?
                .into_iter()
                .filter(|t| !t.writer_running())
                .map(|t| t.file)
                .collect();
            return Ok(report);
        }
        // Nor does a compaction of a directory that does not exist (it has nothing to
        // compact): it is not created, and neither is its lock.
        if !self.root().exists() {
            let mut report = self.compact_locked(None, file, compactor, true)?;
            let nothing = report.id.is_none()
                && report.created.is_empty()
                && report.files.iter().all(|f| f.passes.is_empty());
            if nothing {
                report.dry_run = false;
                return Ok(report);
            }
        }
        let lock = self.handle.lock()?;
        let mut report = self.compact_locked(Some(&lock), file, compactor, dry_run)?;
        // Under the lock every temp file is a dead writer's (a live one holds the lock
        // while its own exist): removed once the compaction's own step is done.
        report.removed_temp_files = if dry_run {
            self.writer_temp_files()?
                .into_iter()
                .map(|t| t.file)
                .collect()
        } else {
            self.remove_dead_writer_temps()?
        };
        Ok(report)
    }

    /// [`compact`](StructuredMemory::compact) under a lock already held (none only for a
    /// dry run).
    fn compact_locked(
        &self,
        lock: Option<&MemoryLock>,
        file: Option<&str>,
        compactor: &dyn Compactor,
        dry_run: bool,
    ) -> Result<CompactionReport> {
        let index = self.load_index()?;
        let index_named = file.is_some_and(|f| {
            f.strip_prefix("./")
                .unwrap_or(f)
                .eq_ignore_ascii_case(super::index_file::INDEX_FILE_NAME)
        });
        let files: Vec<String> = match file {
            Some(_) if index_named => Vec::new(),
            Some(f) => vec![f.strip_prefix("./").unwrap_or(f).to_string()],
            None => index
                .as_ref()
                .map(|i| i.lines.iter().map(|l| l.file.clone()).collect())
                .unwrap_or_default(),
        };
        let mut works: Vec<Work> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut created = BTreeSet::new();
        let mut not_compacted = Vec::new();
        for f in files {
            // One file's problem (it does not read, its name cannot be written) stops a
            // compaction of that file alone; of every file, it is reported and the others
            // are compacted.
            let found = match self.topic_to_compact(&f, index.as_ref()) {
                Ok(found) => found,
                Err(e) if file.is_none() => {
                    not_compacted.push(NotCompacted::from_error(&f, &e));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let (name, path, topic) = match found {
                Some(found) => found,
                None if file.is_some() => {
                    return Err(Error::TopicNotFound {
                        path: self.topic_path(&f)?,
                        file: f,
                    });
                }
                None => continue,
            };
            if !seen.insert(name_key(&name)) {
                continue;
            }
            let over = self.usage_of(&topic).state == BudgetState::Over;
            if !over && file.is_none() {
                continue;
            }
            // A name Windows cannot hold (`CON.md`) is never written by memory-core: not by
            // `remember`, not by a compaction.
            if let Err(e) = check_new_topic_name(&name) {
                if file.is_some() {
                    return Err(e);
                }
                not_compacted.push(NotCompacted::from_error(&name, &e));
                continue;
            }
            // What this step writes is no other split's target: the files splits make,
            // the files compacted, the earlier splits entries move into (not compacted
            // again from their old text).
            created.insert(name_key(&name));
            // A file asked for by name has its generations collapsed even within its
            // budget (`check` reports them as `contradicting_generations`).
            let passes = Passes {
                collapse_within_budget: file.is_some(),
            };
            let work = self.compact_file(name, path, topic, compactor, &index, &created, passes)?;
            created.extend(work.created.iter().map(|c| name_key(&c.0)));
            for m in &work.moved_into {
                created.insert(name_key(&m.0));
                seen.insert(name_key(&m.0));
            }
            works.push(work);
        }
        let index_pass = (file.is_none() || index_named).then_some(compactor);
        let mut report = self.finish(lock, works, index, dry_run, index_pass)?;
        report.not_compacted = not_compacted;
        Ok(report)
    }

    /// Topic `given` as every entry point resolves it (`topic_case.rs`), read: its name,
    /// path and text (`None` when there is no such file).
    fn topic_to_compact(
        &self,
        given: &str,
        index: Option<&MemoryIndex>,
    ) -> Result<Option<(String, PathBuf, Topic)>> {
        let (name, path) = self.resolve_topic_name(given, index)?;
        Ok(self.load_topic(&name)?.map(|t| (name, path, t)))
    }

    pub(super) fn usage_of(&self, topic: &Topic) -> BudgetUse {
        self.budgets
            .usage(&topic.file, false, topic.line_count, topic.byte_count)
    }

    /// Runs the passes on one file, in memory. `created` holds the files (lowercased)
    /// that splits of other files in the same step make: a split here names another.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn compact_file(
        &self,
        file: String,
        path: PathBuf,
        topic: Topic,
        compactor: &dyn Compactor,
        index: &Option<MemoryIndex>,
        created: &BTreeSet<String>,
        passes: Passes,
    ) -> Result<Work> {
        let mut w = Work {
            file,
            path,
            original: topic.text.clone(),
            topic,
            passes: Vec::new(),
            archived: Vec::new(),
            created: Vec::new(),
            moved_into: Vec::new(),
            history: Vec::new(),
            emptying_split: None,
            original_entries: 0,
        };
        w.original_entries = w.topic.entries.len();
        for pass in [
            ArchivePass::EvictDead,
            ArchivePass::CollapseSuperseded,
            ArchivePass::SummarizeEpisodic,
            ArchivePass::SplitOvergrown,
        ] {
            let over = self.usage_of(&w.topic).state == BudgetState::Over;
            let asked = passes.collapse_within_budget && pass == ArchivePass::CollapseSuperseded;
            if !over && !asked {
                // Budget-triggered passes stop once the file is under its budget.
                if passes.collapse_within_budget && pass == ArchivePass::EvictDead {
                    continue;
                }
                break;
            }
            match pass {
                ArchivePass::EvictDead => self.evict(&mut w, compactor)?,
                ArchivePass::CollapseSuperseded => self.collapse(&mut w, compactor)?,
                ArchivePass::SummarizeEpisodic => self.summarize(&mut w, compactor)?,
                _ => self.split(&mut w, compactor, index, created)?,
            }
        }
        Ok(w)
    }

    fn evict(&self, w: &mut Work, compactor: &dyn Compactor) -> Result<()> {
        let pass = ArchivePass::EvictDead;
        let entries = w.topic.entries.clone();
        let dead = compactor
            .dead(&w.topic, &entries)
            .map_err(|e| failed(pass, &w.file, e))?;
        let dead = checked_indexes(pass, &w.file, &dead, entries.len(), false)?;
        let removed: Vec<Entry> = dead.iter().map(|&i| entries[i].clone()).collect();
        let edits = removed.iter().map(cut).collect();
        self.apply(
            w,
            pass,
            edits,
            removed,
            Vec::new(),
            ARCHIVE_FILE_NAME.into(),
        )
    }

    fn collapse(&self, w: &mut Work, compactor: &dyn Compactor) -> Result<()> {
        let pass = ArchivePass::CollapseSuperseded;
        let entries = w.topic.entries.clone();
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            if let Some(s) = &e.subject {
                let key = subject_key(s);
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, list)) => list.push(i),
                    None => groups.push((key, vec![i])),
                }
            }
        }
        let mut edits = Vec::new();
        let mut removed = Vec::new();
        let mut written = Vec::new();
        for (key, mut list) in groups.into_iter().filter(|(_, l)| l.len() > 1) {
            // Oldest first; the newest (the last of the latest date) is kept.
            list.sort_by(|&a, &b| entries[a].date.cmp(&entries[b].date).then(a.cmp(&b)));
            let generations: Vec<Entry> = list.iter().map(|&i| entries[i].clone()).collect();
            let folded = compactor
                .collapse(&w.topic, &key, &generations)
                .map_err(|e| failed(pass, &w.file, e))?;
            let (newest, older) = generations.split_last().unwrap_or((&generations[0], &[]));
            for e in older {
                edits.push(cut(e));
                removed.push(e.clone());
            }
            if let Some(text) = folded
                && text.trim() != newest.text
            {
                let text =
                    checked_text(pass, &w.file, &text, self.handle.clock.now().date_naive())?;
                let line = render_entry(
                    newest.date,
                    newest.subject.as_deref(),
                    &text,
                    w.topic.line_ending.as_str(),
                );
                edits.push(Edit {
                    range: newest.span.clone(),
                    replacement: line,
                });
                removed.push(newest.clone());
                written.push(text);
            }
        }
        self.apply(w, pass, edits, removed, written, ARCHIVE_FILE_NAME.into())
    }

    fn summarize(&self, w: &mut Work, compactor: &dyn Compactor) -> Result<()> {
        let pass = ArchivePass::SummarizeEpisodic;
        let entries = w.topic.entries.clone();
        let groups = compactor
            .summarize(&w.topic, &entries)
            .map_err(|e| failed(pass, &w.file, e))?;
        let mut taken = BTreeSet::new();
        let mut edits = Vec::new();
        let mut removed = Vec::new();
        let mut written = Vec::new();
        for group in groups {
            let list = checked_indexes(pass, &w.file, &group.entries, entries.len(), false)?;
            if list.len() < 2 {
                return Err(failed(
                    pass,
                    &w.file,
                    "a lesson must condense at least two entries".into(),
                ));
            }
            if list.iter().any(|i| !taken.insert(*i)) {
                return Err(failed(
                    pass,
                    &w.file,
                    "an entry was condensed into two lessons".into(),
                ));
            }
            let text = checked_text(
                pass,
                &w.file,
                &group.text,
                self.handle.clock.now().date_naive(),
            )?;
            // A lesson's subject is held to what `remember` holds a given subject to (one
            // line, no brackets, not empty, not too long, no secret): a `]:` or a line
            // break in it would read back as another subject and other text.
            let subject = match &group.subject {
                Some(s) => {
                    let s = clean_subject(s).map_err(|e| failed(pass, &w.file, e.into()))?;
                    refuse_secrets("subject", &s).map_err(|e| failed(pass, &w.file, e.into()))?;
                    Some(s)
                }
                None => None,
            };
            let date = list
                .iter()
                .map(|&i| entries[i].date)
                .max()
                .unwrap_or(entries[list[0]].date);
            let first = list[0];
            let lesson = render_entry(
                date,
                subject.as_deref(),
                &text,
                w.topic.line_ending.as_str(),
            );
            for &i in &list {
                let e = &entries[i];
                edits.push(if i == first {
                    Edit {
                        range: e.span.clone(),
                        replacement: lesson.clone(),
                    }
                } else {
                    cut(e)
                });
                removed.push(e.clone());
            }
            written.push(text);
        }
        self.apply(w, pass, edits, removed, written, ARCHIVE_FILE_NAME.into())
    }

    /// Applies one pass's edits to the work's text, re-reads it, and records the pass.
    pub(super) fn apply(
        &self,
        w: &mut Work,
        pass: ArchivePass,
        edits: Vec<Edit>,
        removed: Vec<Entry>,
        written: Vec<String>,
        to: String,
    ) -> Result<()> {
        if removed.is_empty() {
            return Ok(());
        }
        let mut recorded = edits.clone();
        recorded.sort_by_key(|e| (e.range.start, e.range.end));
        let text = apply_edits(&w.topic.text, edits);
        let new = Topic::read(&w.path, w.file.clone(), text)
            .map_err(|e| Error::unreadable_result(&w.path, e))?;
        let expected = w.topic.entries.len() - removed.len() + written.len();
        if new.entries.len() != expected {
            return Err(Error::verify(
                &w.path,
                format!(
                    "the {} pass would leave {} instead of {expected}; nothing was written",
                    pass.as_str(),
                    crate::plural::count(new.entries.len(), "entry", "entries")
                ),
            ));
        }
        if pass != ArchivePass::SplitOvergrown {
            let raw: Vec<String> = removed
                .iter()
                .flat_map(|e| {
                    w.topic.text[e.span.clone()]
                        .lines()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect();
            w.archived.push((pass, raw));
        }
        let mut removed = removed;
        let from_lines = w.to_original_lines(&mut removed);
        w.passes.push(PassReport {
            pass,
            from: w.file.clone(),
            entries: removed,
            to,
            written,
            from_lines,
        });
        w.history.push(recorded);
        w.topic = new;
        Ok(())
    }

    /// Writes every file's new text, the split files and their index lines, and the
    /// archive sections, as one step (unless `dry_run`).
    fn finish(
        &self,
        lock: Option<&MemoryLock>,
        works: Vec<Work>,
        index: Option<MemoryIndex>,
        dry_run: bool,
        index_pass: Option<&dyn Compactor>,
    ) -> Result<CompactionReport> {
        let now = self.handle.clock.now().with_timezone(&Utc);
        let archive_path = self.archive_path()?;
        let archive_text = read_text_if_exists(&archive_path)?;
        let candidate = next_id(archive_text.as_deref(), &now.format("%Y%m%d").to_string());
        let any_archived = works.iter().any(|w| !w.archived.is_empty());
        let id = any_archived.then(|| candidate.clone());
        let at = now.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let originals = works
            .iter()
            .map(|w| self.load_topic(&w.file))
            .collect::<Result<Vec<_>>>()?;
        // What the passes were worked out from: each topic as read, the index, and no file
        // where a split makes one. Checked again right before the step is made.
        let mut basis: Vec<(PathBuf, Option<String>)> = works
            .iter()
            .map(|w| (w.path.clone(), Some(w.original.clone())))
            .collect();
        basis.push((self.index_path()?, index.as_ref().map(|i| i.text.clone())));
        for w in &works {
            basis.extend(w.created.iter().map(|c| (c.1.clone(), None)));
            basis.extend(
                w.moved_into
                    .iter()
                    .map(|m| (m.1.clone(), Some(m.2.clone()))),
            );
        }
        let mut works = works;
        let mut index_text = index.as_ref().map(|i| i.text.clone());
        let emptied = self.remove_emptied(&mut works, index.as_ref(), &mut index_text)?;
        let staged = self.stage_works(works, originals, index_text, id.as_deref(), &at, dry_run)?;
        let mut staged = staged;
        for path in &emptied {
            staged.writes.retain(|(p, _)| p != path);
            let name = self.relative_name(path)?;
            for f in staged.report.files.iter_mut().filter(|f| f.file == name) {
                f.after = self.budgets.usage(&name, false, 0, 0);
                f.needs_judgment = None;
            }
        }
        let mut removals = match index_pass {
            Some(compactor) => self.stage_index_pass(&mut staged, compactor, &candidate, &at)?,
            None => Vec::new(),
        };
        removals.extend(emptied);
        // The compactor may have taken seconds; a program that does not take the lock (an
        // editor, an agent writing the file itself) may have written meanwhile. Its
        // change is never overwritten: the compaction is refused and can be run again.
        if !dry_run {
            for (path, text) in &basis {
                if read_text_if_exists(path)? != *text {
                    return Err(Error::ChangedMeanwhile {
                        path: path.clone(),
                        operation: "compact",
                    });
                }
            }
        }
        let Some(lock) = lock.filter(|_| !dry_run) else {
            return Ok(staged.report);
        };
        let mut tx = Transaction::new(lock);
        // Checked again inside the commit, each file right before it changes.
        for (path, text) in &basis {
            tx.expect(path, text.as_ref().map(|t| t.as_bytes().to_vec()));
        }
        for (path, text) in &staged.writes {
            tx.write(path, text.clone().into_bytes());
        }
        for path in &removals {
            tx.remove(path);
        }
        let index_changed = match (&staged.index_text, &index) {
            (Some(new), Some(old)) => new != &old.text,
            (Some(_), None) => true,
            _ => false,
        };
        if index_changed && let Some(new) = &staged.index_text {
            tx.write(self.index_path()?, new.clone().into_bytes());
        }
        if !staged.archive_add.is_empty() {
            match archive_text {
                Some(old) => {
                    let add = super::archive::addition_to(&old, &staged.archive_add);
                    tx.append(&archive_path, old.len() as u64, add);
                }
                None => {
                    tx.write(
                        &archive_path,
                        format!("{ARCHIVE_HEADER}{}", staged.archive_add).into_bytes(),
                    );
                }
            }
        }
        if !tx.is_empty() {
            tx.commit().map_err(|e| match e {
                Error::ChangedMeanwhile { path, .. } => Error::ChangedMeanwhile {
                    path,
                    operation: "compact",
                },
                e => e,
            })?;
        }
        Ok(staged.report)
    }

    /// The works the passes emptied (see [`Work::emptied`]): each one's archive section
    /// becomes its whole text as it was (so that `restore` recreates the file as it was),
    /// its index line is taken out of `index_text` and archived (`remove-empty`), and its
    /// path is returned, to remove in the same step as every other change.
    pub(super) fn remove_emptied(
        &self,
        works: &mut [Work],
        index: Option<&MemoryIndex>,
        index_text: &mut Option<String>,
    ) -> Result<Vec<PathBuf>> {
        let mut removed = Vec::new();
        let mut edits = Vec::new();
        for w in works.iter_mut().filter(|w| w.emptied()) {
            let whole: Vec<String> = w.original.lines().map(str::to_string).collect();
            match w.archived.as_mut_slice() {
                [(ArchivePass::EvictDead, lines)] => *lines = whole,
                _ => w.archived.push((ArchivePass::EvictDead, whole)),
            }
            let linked = index.and_then(|i| {
                let line = i.line_for(&w.file)?;
                let at = i.lines.iter().position(|l| l.line == line.line)?;
                Some((line.line, i.spans.get(at)?.clone()))
            });
            if let (Some((number, span)), Some(text)) = (linked, index_text.as_ref()) {
                let pointer = text[span.clone()]
                    .trim_end_matches(['\r', '\n'])
                    .to_string();
                edits.push(Edit {
                    range: span,
                    replacement: String::new(),
                });
                w.archived.push((ArchivePass::RemoveEmpty, vec![pointer]));
                w.passes.push(PassReport {
                    pass: ArchivePass::RemoveEmpty,
                    from: super::index_file::INDEX_FILE_NAME.to_string(),
                    entries: Vec::new(),
                    to: ARCHIVE_FILE_NAME.to_string(),
                    from_lines: vec![number],
                    written: Vec::new(),
                });
            }
            removed.push(w.path.clone());
        }
        if let Some(text) = index_text.as_mut()
            && !edits.is_empty()
        {
            *text = apply_edits(text, edits);
        }
        Ok(removed)
    }

    /// What the works change, checked and ready to stage: each file's new text (when it
    /// differs from `originals`), the new split files, the index with their lines, the
    /// archive sections under `id`.
    pub(super) fn stage_works(
        &self,
        works: Vec<Work>,
        originals: Vec<Option<Topic>>,
        mut index_text: Option<String>,
        id: Option<&str>,
        at: &str,
        dry_run: bool,
    ) -> Result<Staged> {
        let mut archive_add = String::new();
        let mut writes = Vec::new();
        let mut files = Vec::new();
        let mut created = Vec::new();
        let mut index_lines = Vec::new();
        for (w, original) in works.iter().zip(originals) {
            let mut split_files = Vec::new();
            for (pass, lines) in &w.archived {
                let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                if let Some(id) = id {
                    archive_add.push_str(&render_section(id, *pass, &w.file, at, &refs));
                }
            }
            if original.as_ref().is_none_or(|o| o.text != w.topic.text) {
                writes.push((w.path.clone(), w.topic.text.clone()));
            }
            for (file, path, text, title, hook) in &w.created {
                let parsed = Topic::read(path, file.clone(), text.clone())
                    .map_err(|e| Error::unreadable_result(path, e))?;
                if parsed.entries.is_empty() {
                    return Err(Error::verify(path, "a split file would hold no entry"));
                }
                writes.push((path.clone(), text.clone()));
                let pointer = render_pointer(title, file, hook);
                index_lines.push(AddedIndexLine {
                    file: file.clone(),
                    title: title.clone(),
                    hook: hook.clone(),
                    text: pointer.clone(),
                });
                index_text = Some(match index_text {
                    None => format!("{INDEX_HEADER}\n{pointer}\n"),
                    Some(t) => {
                        let le = crate::markdown::LineEnding::detect(&t).as_str();
                        let mut t = t;
                        if !t.is_empty() && !t.ends_with('\n') {
                            t.push_str(le);
                        }
                        t.push_str(&pointer);
                        t.push_str(le);
                        t
                    }
                });
                created.push(file.clone());
                // A split file is a file the compaction touched: its budget use, and its
                // own needs-judgment when the part it took is over the budget by itself.
                let after = self.usage_of(&parsed);
                split_files.push(FileCompaction {
                    file: file.clone(),
                    before: self.budgets.usage(file, false, 0, 0),
                    needs_judgment: (after.state == BudgetState::Over).then(|| NeedsJudgment {
                        file: file.clone(),
                        over_by_lines: after.over_by_lines,
                        over_by_bytes: after.over_by_bytes,
                        unparsed_lines: unparsed_lines(&parsed),
                        message: format!(
                            "{file}, split out of {}, is over its budget by itself: a compactor must split it further or say what is dead",
                            w.file
                        ),
                    }),
                    after,
                    passes: Vec::new(),
                });
            }
            for (file, path, old, new) in &w.moved_into {
                let parsed = |text: &String| {
                    Topic::read(path, file.clone(), text.clone())
                        .map_err(|e| Error::unreadable_result(path, e))
                };
                let (old, new_topic) = (parsed(old)?, parsed(new)?);
                writes.push((path.clone(), new.clone()));
                let after = self.usage_of(&new_topic);
                split_files.push(FileCompaction {
                    file: file.clone(),
                    before: self.usage_of(&old),
                    needs_judgment: (after.state == BudgetState::Over).then(|| NeedsJudgment {
                        file: file.clone(),
                        over_by_lines: after.over_by_lines,
                        over_by_bytes: after.over_by_bytes,
                        unparsed_lines: unparsed_lines(&new_topic),
                        message: format!(
                            "{file}, an earlier split of {} that took more of its entries, is over its budget: a compactor must split it further or say what is dead",
                            w.file
                        ),
                    }),
                    after,
                    passes: Vec::new(),
                });
            }
            let before = original
                .as_ref()
                .map(|o| self.usage_of(o))
                .unwrap_or_else(|| self.usage_of(&w.topic));
            let after = self.usage_of(&w.topic);
            let needs_judgment = (after.state == BudgetState::Over).then(|| NeedsJudgment {
                file: w.file.clone(),
                over_by_lines: after.over_by_lines,
                over_by_bytes: after.over_by_bytes,
                unparsed_lines: w.original_unparsed_lines(),
                message: format!(
                    "{} is still over its budget after the four passes{}{}: a compactor must say what is dead, summarize episodes or split it",
                    w.file,
                    unparsed_note(&w.original_unparsed_lines()),
                    w.emptying_split.as_ref().map_or(String::new(), |wanted| format!(
                        "; the split into {wanted} was not made: it would have moved every entry out, leaving a topic of headings only"
                    )),
                ),
            });
            files.push(FileCompaction {
                file: w.file.clone(),
                before,
                after,
                passes: w.passes.clone(),
                needs_judgment,
            });
            files.append(&mut split_files);
        }
        if let Some(new) = &index_text {
            MemoryIndex::parse(self.index_path()?, new.clone())?;
        }
        Ok(Staged {
            writes,
            index_text,
            archive_add,
            report: CompactionReport {
                id: (!archive_add_is_empty(&files))
                    .then(|| id.map(str::to_string))
                    .flatten(),
                dry_run,
                files,
                created,
                index_lines,
                not_compacted: Vec::new(),
                removed_temp_files: Vec::new(),
            },
        })
    }
}

/// Whether no pass of `files` archived anything (a split alone archives nothing).
fn archive_add_is_empty(files: &[FileCompaction]) -> bool {
    files
        .iter()
        .flat_map(|f| &f.passes)
        .all(|p| p.pass == ArchivePass::SplitOvergrown)
}

/// A compaction's changes, staged but not written.
pub(super) struct Staged {
    /// Files to write: each compacted topic whose text changed, each split file.
    pub writes: Vec<(PathBuf, String)>,
    /// The index text with the split files' lines.
    pub index_text: Option<String>,
    /// Archive sections to append.
    pub archive_add: String,
    /// What it did.
    pub report: CompactionReport,
}

/// The edit removing `e`'s lines.
pub(super) fn cut(e: &Entry) -> Edit {
    Edit {
        range: e.span.clone(),
        replacement: String::new(),
    }
}

pub(super) fn failed(pass: ArchivePass, file: &str, source: CompactorError) -> Error {
    Error::CompactorFailed {
        pass: pass.as_str(),
        file: file.to_string(),
        source,
    }
}

/// The indexes a compactor returned, checked: each names an entry it was given, and (for
/// passes that take a set) none twice. Sorted.
pub(super) fn checked_indexes(
    pass: ArchivePass,
    file: &str,
    given: &[usize],
    len: usize,
    keep_order: bool,
) -> Result<Vec<usize>> {
    let mut seen = BTreeSet::new();
    for &i in given {
        if i >= len {
            return Err(failed(
                pass,
                file,
                format!("entry {i} does not exist (it was given {len})").into(),
            ));
        }
        if !seen.insert(i) {
            return Err(failed(
                pass,
                file,
                format!("entry {i} was returned twice").into(),
            ));
        }
    }
    let mut out = given.to_vec();
    if !keep_order {
        out.sort_unstable();
    }
    Ok(out)
}

/// A compactor's text, checked as a fact written by `remember` is (relative times
/// converted from `today`, vague ones refused).
fn checked_text(pass: ArchivePass, file: &str, text: &str, today: NaiveDate) -> Result<String> {
    let text = check_fact_text(text).map_err(|e| failed(pass, file, e.into()))?;
    let (text, _) =
        convert_relative_time(&text, today).map_err(|e| failed(pass, file, e.into()))?;
    refuse_secrets("text", &text).map_err(|e| failed(pass, file, e.into()))?;
    Ok(text)
}

/// What a needs-judgment message says of the lines that are not entries (`lines`, in
/// the file before the compaction): nothing when there are none.
fn unparsed_note(lines: &[usize]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = super::topic_file::line_runs(lines)
        .into_iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let parts = parts.join(", ");
    match lines.len() {
        1 => format!(
            " (1 line is not an entry — a hand note, prose or a comment — and is never compacted: line {parts} before this compaction)"
        ),
        n => format!(
            " ({n} lines are not entries — hand notes, prose, comments — and are never compacted: lines {parts} before this compaction)"
        ),
    }
}

/// The lines of `topic` the library does not read as entries (hand notes, prose):
/// never compacted, flagged for a person.
fn unparsed_lines(topic: &Topic) -> Vec<usize> {
    topic.unparsed_lines().to_vec()
}
