//! What a write does after its entry is in place, in the same all-or-nothing step: the
//! budget trigger (a topic the write takes over its budget is compacted), the index pass
//! (a write that takes `MEMORY.md` over its budget — a new topic's line, a split's
//! lines — moves content out and merges near-duplicate topics, as the compactor says),
//! and, once written, where the entry lives now and what every file touched uses of its
//! budget.

use std::path::{Path, PathBuf};

use super::budget::{BudgetState, BudgetUse};
use super::compact::{CompactionReport, Staged};
use super::compactor::Compactor;
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::memory::StructuredMemory;
use super::topic_file::{Entry, Topic};
use crate::error::{Error, Result};

/// A write as it stands before the trigger.
pub(super) struct Written<'a> {
    /// The topic file, relative to the directory.
    pub file: &'a str,
    /// Its path.
    pub path: &'a Path,
    /// The topic as it was (`None`: new).
    pub old_topic: Option<&'a Topic>,
    /// The topic with the entry in place.
    pub new_topic: &'a Topic,
    /// The index as it was.
    pub old_index: Option<&'a MemoryIndex>,
    /// The index's text with the write's line (if any).
    pub index_text: Option<String>,
    /// The index with the write's line, parsed.
    pub new_index: &'a Option<MemoryIndex>,
    /// The write's own archive section (a merge), if any.
    pub archive_add: String,
    /// The archive id the write and its compaction share.
    pub id: &'a str,
    /// The step's timestamp.
    pub at: &'a str,
}

/// Everything the write's step changes.
pub(super) struct Step {
    /// Topic files to write (only those whose text changes).
    pub writes: Vec<(PathBuf, String)>,
    /// Topic files to remove (merged into another by the index pass).
    pub removals: Vec<PathBuf>,
    /// The index's new text, when it changes.
    pub index_text: Option<String>,
    /// The archive sections to append.
    pub archive_add: String,
    /// The compaction the write triggered, if any.
    pub compaction: Option<CompactionReport>,
    /// Whether that compaction evicted every entry of the topic, the one written
    /// included: the topic and its index line are gone (archived).
    pub emptied: bool,
}

impl StructuredMemory {
    /// Runs the budget trigger and the index pass on a write (see the module docs).
    pub(super) fn compact_written(
        &self,
        w: Written<'_>,
        compactor: &dyn Compactor,
    ) -> Result<Step> {
        let mut staged = Staged {
            writes: vec![(w.path.to_path_buf(), w.new_topic.text.clone())],
            index_text: w.index_text,
            archive_add: w.archive_add,
            report: CompactionReport {
                id: None,
                dry_run: false,
                files: Vec::new(),
                created: Vec::new(),
                index_lines: Vec::new(),
                not_compacted: Vec::new(),
                removed_temp_files: Vec::new(),
            },
        };
        let mut compacted = false;
        let (mut emptied, mut emptied_removals) = (false, Vec::new());
        if self.usage_of(w.new_topic).state == BudgetState::Over {
            let work = self.compact_file(
                w.file.to_string(),
                w.path.to_path_buf(),
                w.new_topic.clone(),
                compactor,
                w.new_index,
                &std::collections::BTreeSet::new(),
                super::compact::Passes::default(),
            )?;
            let topic_text = work.topic.text.clone();
            // A compactor that evicts every entry, the one written included, leaves no
            // husk: the topic goes with its index line, both archived first, as in
            // `compact` (the fact is in the archive, so `restore` brings it back).
            let mut works = vec![work];
            let mut index_text = staged.index_text.clone();
            let removed = self.remove_emptied(&mut works, w.new_index.as_ref(), &mut index_text)?;
            let mut s = self.stage_works(
                works,
                vec![Some(w.new_topic.clone())],
                index_text,
                Some(w.id),
                w.at,
                false,
            )?;
            emptied = !removed.is_empty();
            staged.writes = if emptied {
                for f in s.report.files.iter_mut().filter(|f| f.file == w.file) {
                    f.after = self.budgets.usage(w.file, false, 0, 0);
                    f.needs_judgment = None;
                }
                // A new topic was never on disk: nothing to remove.
                if w.old_topic.is_some() {
                    emptied_removals = removed;
                }
                Vec::new()
            } else {
                vec![(w.path.to_path_buf(), topic_text)]
            };
            staged
                .writes
                .extend(s.writes.into_iter().filter(|(p, _)| p != w.path));
            staged.index_text = s.index_text;
            staged.archive_add.push_str(&s.archive_add);
            staged.report = s.report;
            compacted = true;
        }
        // The index pass, when this write is what takes MEMORY.md over its budget.
        let index_changed = |text: &Option<String>| match (w.old_index, text) {
            (Some(old), Some(new)) => &old.text != new,
            (None, Some(_)) => true,
            _ => false,
        };
        let mut removals = Vec::new();
        if index_changed(&staged.index_text)
            && let Some(text) = &staged.index_text
        {
            let index = MemoryIndex::parse(self.index_path()?, text.clone())?;
            let usage =
                self.budgets
                    .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
            if usage.state == BudgetState::Over {
                let files = staged.report.files.len();
                removals = self.stage_index_pass(&mut staged, compactor, w.id, w.at)?;
                compacted |= staged.report.files.len() > files;
            }
        }
        removals.extend(emptied_removals);
        let unchanged_topic = w.old_topic.map(|t| t.text.as_str());
        staged
            .writes
            .retain(|(p, t)| !(p == w.path && unchanged_topic == Some(t.as_str())));
        Ok(Step {
            writes: staged.writes,
            removals,
            index_text: staged
                .index_text
                .clone()
                .filter(|_| index_changed(&staged.index_text)),
            archive_add: staged.archive_add,
            compaction: compacted.then_some(staged.report),
            emptied,
        })
    }

    /// Where the written entry lives once `step` is on disk, and what every file the
    /// step touched uses of its budget: the entry's file first (the topic written, or
    /// the file a split or a merge of topics moved it to), then the other topic files
    /// written, then `MEMORY.md` when it changed. `find` is the entry in a topic, if
    /// there; when no file holds it (a compactor evicted or condensed it: the report
    /// says where it went), it is `file` and `entry` as written.
    pub(super) fn settle(
        &self,
        step: &Step,
        written: (&str, Option<&Topic>, &Topic, Entry),
        find: &dyn Fn(&Topic) -> Option<Entry>,
    ) -> Result<(String, Entry, Vec<BudgetUse>)> {
        let (file, old_topic, new_topic, entry) = written;
        let topic_path = self.topic_path(file)?;
        let mut touched = Vec::new();
        let topic_written = step.writes.iter().any(|(p, _)| *p == topic_path);
        // Not written: unchanged on disk — the text it had (a write whose entry a split
        // moved straight out leaves the topic as it was) — or (not on disk) a new topic
        // the index pass merged away in this very step, which then holds nothing.
        if !topic_written
            && !step.removals.contains(&topic_path)
            && std::fs::symlink_metadata(&topic_path).is_ok()
        {
            touched.push(old_topic.unwrap_or(new_topic).clone());
        }
        for (path, text) in &step.writes {
            let name = self.relative_name(path)?;
            let topic = Topic::read(path, name, text.clone())?;
            if *path == topic_path {
                touched.insert(0, topic);
            } else {
                touched.push(topic);
            }
        }
        let home = touched
            .iter()
            .find_map(|t| Some((t.file.clone(), find(t)?)));
        let (file, entry) = home.unwrap_or((file.to_string(), entry));
        touched.sort_by_key(|t| t.file != file);
        let mut budgets: Vec<BudgetUse> = touched.iter().map(|t| self.usage_of(t)).collect();
        if let Some(text) = &step.index_text {
            let index = MemoryIndex::parse(self.index_path()?, text.clone())?;
            budgets.push(self.budgets.usage(
                INDEX_FILE_NAME,
                true,
                index.line_count,
                index.byte_count,
            ));
        }
        Ok((file, entry, budgets))
    }

    /// `path` (inside the directory) relative to it, `/`-separated.
    pub(super) fn relative_name(&self, path: &Path) -> Result<String> {
        let rel = path.strip_prefix(self.handle.root.path()).map_err(|_| {
            Error::invalid(
                "topic file",
                &path.display().to_string(),
                "is outside the memory directory",
            )
        })?;
        Ok(rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"))
    }
}
