//! `restore ID`: the entries a compaction (or a merge on write) archived under `ID` go
//! back to the files they came from. The archive itself is never changed.

use serde::Serialize;

use super::archive::{ArchivePass, ArchiveSection, parse_archive};
use super::budget::BudgetUse;
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::memory::StructuredMemory;
use super::pointer::render_pointer;
use super::remember::INDEX_HEADER;
use super::topic_file::Topic;
use super::topic_placement::place_entry;
use crate::durable::{Transaction, read_text_if_exists};
use crate::error::{Error, Result};
use crate::markdown::LineEnding;

/// What `restore` put back into one file.
///
/// ```
/// # use memory_core::structured_memory::Restored;
/// fn count(r: &Restored) -> usize { r.lines.len() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Restored {
    /// The file the entries came from and went back to.
    pub file: String,
    /// The pass that had archived them.
    pub pass: ArchivePass,
    /// The lines put back (verbatim from the archive).
    pub lines: Vec<String>,
    /// Lines already in the file (or that the section holds twice: put back once), left
    /// as they are.
    pub already_live: Vec<String>,
    /// Whether the file had to be created (with its index line).
    pub created: bool,
}

/// An archived section `restore` does not put back, and why: its pass moved the lines
/// (content lines out of `MEMORY.md`, a topic merged into another) rather than removing
/// them, so they are still live where it put them (bringing them back would make them
/// twice).
///
/// ```
/// # use memory_core::structured_memory::NotRestored;
/// fn say(n: &NotRestored) -> String { format!("{}: still live in {}", n.file, n.live_in.join(", ")) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NotRestored {
    /// The file the lines were moved from.
    pub file: String,
    /// The pass that moved them.
    pub pass: ArchivePass,
    /// The lines, as archived.
    pub lines: Vec<String>,
    /// The linked topic files that hold them now (empty when they were edited or
    /// removed since: then the archive is their only copy).
    pub live_in: Vec<String>,
    /// Why they are not restored, for a person.
    pub reason: String,
}

/// What `restore` did.
///
/// ```
/// # use memory_core::structured_memory::RestoreReport;
/// fn files(r: &RestoreReport) -> Vec<&str> { r.restored.iter().map(|x| x.file.as_str()).collect() }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RestoreReport {
    /// The id restored.
    pub id: String,
    /// Per archived section put back.
    pub restored: Vec<Restored>,
    /// Archived sections of the id that moved lines rather than removing them: not put
    /// back, with where they live now.
    pub not_restored: Vec<NotRestored>,
    /// What each file restore wrote uses of its budget (topic files, then `MEMORY.md`
    /// when a line was added to it).
    pub budgets: Vec<BudgetUse>,
    /// A warning for each of those files near or over its budget (as a write's
    /// [`RememberOutcome::warnings`](super::RememberOutcome::warnings)): restore puts the
    /// entries back whole, it never compacts them away again.
    pub warnings: Vec<String>,
}

impl StructuredMemory {
    /// Puts back every entry archived under `id` (a compaction's or a merge's), at the end
    /// of the file it came from, in one step under the lock: lines already live in that
    /// file are not added twice; a file that no longer exists is created with an index line,
    /// and one that exists without an index line gets one.
    /// The archive is left byte for byte as it is (append-only). What a compaction moved —
    /// entries a split put in a new file (a split archives nothing), content lines moved
    /// out of `MEMORY.md`, a topic merged into another — is live where it went and is not
    /// put back: [`RestoreReport::not_restored`] names those sections and the files that
    /// hold their lines. The report gives the budget use of every file written.
    /// [`Error::InvalidInput`] when `id` is empty or holds white space or a control
    /// character (no section can have it); [`Error::ArchiveIdNotFound`] (kind `NotFound`) when the archive
    /// has no section with it, or there is no archive yet.
    ///
    /// ```
    /// use memory_core::structured_memory::{Fact, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = StructuredMemory::open(dir.path()).unwrap();
    /// memory.remember(Fact::new("memory-infra.md", "Postgres 15").subject("db").date("2026-06-01").hook("databases")).unwrap();
    /// let merged = memory.remember(Fact::new("memory-infra.md", "Postgres 16").subject("db").date("2026-07-01")).unwrap();
    /// let report = memory.restore(merged.archive_id.as_deref().unwrap()).unwrap();
    /// assert_eq!(report.restored[0].lines, ["- 2026-06-01 [db]: Postgres 15"]);
    /// assert_eq!(memory.topic("memory-infra.md").unwrap().entries.len(), 2);
    /// assert_eq!(report.budgets[0].file, "memory-infra.md");
    /// assert_eq!(report.budgets[0].lines, 4);
    /// ```
    pub fn restore(&self, id: &str) -> Result<RestoreReport> {
        check_archive_id(id)?;
        let archive_path = self.archive_path()?;
        // Without an archive no id can be restored: refused before the lock is taken, so
        // that a directory never written to is not created (nor its lock).
        if !archive_path.exists() {
            return Err(no_section(&archive_path, id));
        }
        let lock = self.handle.lock()?;
        let archive = read_text_if_exists(&archive_path)?.unwrap_or_default();
        let sections = parse_archive(&archive);
        if !sections.iter().any(|s| s.id == id) {
            return Err(no_section(&archive_path, id));
        }
        let (all, mut copy_warnings) = one_copy(&archive_path, id, sections)?;
        // What was moved (content lines into topics, a merged topic's text) is live where
        // it went: only what passes removed or condensed comes back.
        let moved = |p: ArchivePass| {
            matches!(
                p,
                ArchivePass::IndexContent | ArchivePass::MergeTopics | ArchivePass::SplitOvergrown
            )
        };
        let lines_back = |p: ArchivePass| p == ArchivePass::RemoveEmpty;
        let sections: Vec<_> = all
            .iter()
            .filter(|s| !moved(s.pass) && !lines_back(s.pass))
            .cloned()
            .collect();
        let not_restored = all
            .iter()
            .filter(|s| moved(s.pass))
            .map(|s| self.still_live(s))
            .collect::<Result<Vec<_>>>()?;
        let mut index = self.load_index()?;
        let mut index_text = index.as_ref().map(|i| i.text.clone());
        let mut linked_any = false;
        // The index line of a topic a compaction emptied and removed comes back as it was
        // (before the file's own lines, so that the file gets that line, not a new one).
        for section in all.iter().filter(|s| lines_back(s.pass)) {
            if index
                .as_ref()
                .is_some_and(|i| i.line_for(&section.from).is_some())
            {
                continue;
            }
            let mut t = index_text
                .take()
                .unwrap_or_else(|| format!("{INDEX_HEADER}\n"));
            let le = LineEnding::detect(&t).as_str();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(le);
            }
            for line in &section.lines {
                t.push_str(line);
                t.push_str(le);
            }
            let path = self.index_path()?;
            let parsed = MemoryIndex::parse(&path, t.clone())
                .map_err(|e| Error::unreadable_result(&path, e))?;
            index = Some(parsed);
            index_text = Some(t);
            linked_any = true;
        }
        // The text each file will have, in the order first touched.
        let mut texts: Vec<(String, String, bool)> = Vec::new();
        let mut restored = Vec::new();
        for section in sections {
            let file = section.from.clone();
            let position = match texts.iter().position(|(f, _, _)| *f == file) {
                Some(p) => p,
                None => {
                    let current = self.load_topic(&file)?;
                    let created = current.is_none();
                    texts.push((
                        file.clone(),
                        current.map(|t| t.text).unwrap_or_default(),
                        created,
                    ));
                    texts.len() - 1
                }
            };
            let (_, text, created) = &mut texts[position];
            let le = LineEnding::detect(text).as_str();
            let live: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
            // Entry by entry (a bullet line and the lines indented under it): an entry
            // whose first line is live already is not put back twice.
            let mut back = Vec::new();
            let mut already = Vec::new();
            // A file that is gone and comes back whole from one section (a topic a
            // compaction emptied and removed) is written as it was, blank lines and all.
            let whole = *created && text.is_empty() && section.pass == ArchivePass::EvictDead;
            if whole {
                back = section.lines.clone();
            }
            for unit in entries_of(&section.lines).into_iter().filter(|_| !whole) {
                // An entry the section holds twice (a line duplicated by hand) comes back
                // once.
                let twice = back.iter().any(|l: &String| *l == unit[0]);
                let target = if twice || live.contains(&unit[0].as_str()) {
                    &mut already
                } else {
                    &mut back
                };
                target.extend(unit);
            }
            let mut block = String::new();
            for line in &back {
                block.push_str(line);
                block.push_str(le);
            }
            if !back.is_empty() {
                *text = if whole || text.is_empty() {
                    block
                } else {
                    // Where a new fact naming no section goes (above the first `##`
                    // section, so that no section claims it): the archive does not say
                    // which section the entries stood in.
                    let current = Topic::parse(file.clone(), text.clone())?;
                    place_entry(&current, &block, None)
                };
            }
            restored.push(Restored {
                file,
                pass: section.pass,
                lines: back,
                already_live: already,
                created: *created,
            });
        }
        let mut tx = Transaction::new(&lock);
        let mut budgets = Vec::new();
        for (file, text, _) in &texts {
            let path = self.topic_path(file)?;
            let topic = Topic::read(&path, file.clone(), text.clone())
                .map_err(|e| Error::unreadable_result(&path, e))?;
            let changed = restored
                .iter()
                .any(|r| &r.file == file && !r.lines.is_empty());
            if changed {
                // Never a name memory-core does not write (`CON.md`…), whatever the
                // archive's heading says.
                super::topic_name::check_new_topic_name(file)?;
                tx.write(path, text.clone().into_bytes());
                budgets.push(self.usage_of(&topic));
            }
            let linked = index.as_ref().is_some_and(|i| i.line_for(file).is_some());
            // A file restored into gets an index line when it has none: created here, or
            // left on disk after its line was removed (an orphan no session would load).
            if changed && !linked {
                linked_any = true;
                let pointer = render_pointer(
                    &title_of(file),
                    file,
                    &format!("restored from the archive ({id})"),
                );
                let t = match index_text.take() {
                    None => format!("{INDEX_HEADER}\n{pointer}\n"),
                    Some(mut t) => {
                        let le = LineEnding::detect(&t).as_str();
                        if !t.is_empty() && !t.ends_with('\n') {
                            t.push_str(le);
                        }
                        t.push_str(&pointer);
                        t.push_str(le);
                        t
                    }
                };
                let path = self.index_path()?;
                index = Some(MemoryIndex::parse(&path, t.clone())?);
                index_text = Some(t);
            }
        }
        if let Some(text) = &index_text
            && linked_any
        {
            tx.write(self.index_path()?, text.clone().into_bytes());
            if let Some(i) = &index {
                budgets.push(
                    self.budgets
                        .usage(INDEX_FILE_NAME, true, i.line_count, i.byte_count),
                );
            }
        }
        if !tx.is_empty() {
            tx.commit()?;
        }
        copy_warnings.extend(budgets.iter().filter_map(BudgetUse::warning));
        let warnings = copy_warnings;
        Ok(RestoreReport {
            id: id.to_string(),
            restored,
            not_restored,
            budgets,
            warnings,
        })
    }

    /// Where the lines of a section a pass moved (not removed) live now: the linked
    /// topic files holding any of its lines other than blank lines, headings and
    /// frontmatter fences.
    fn still_live(&self, section: &ArchiveSection) -> Result<NotRestored> {
        let significant: Vec<&str> = section
            .lines
            .iter()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && l.trim() != "---")
            .collect();
        let mut live_in = Vec::new();
        if let Some(index) = self.load_index()? {
            for line in &index.lines {
                let Ok(Some(topic)) = self.load_topic(&line.file) else {
                    continue;
                };
                // A content line of the index lives on as the entry it became (dated
                // the day it moved: `- 2026-07-10: Deploy runs first.`).
                let routed: Vec<String> = match section.pass {
                    ArchivePass::IndexContent => significant
                        .iter()
                        .map(|l| format!(": {}", super::compact_index::routed_text(l)))
                        .collect(),
                    _ => Vec::new(),
                };
                let holds = topic.text.lines().any(|l| {
                    let l = l.trim_end_matches('\r');
                    significant.contains(&l)
                        || (l.starts_with("- ") && routed.iter().any(|r| l.ends_with(r.as_str())))
                });
                if holds && !live_in.contains(&line.file) {
                    live_in.push(line.file.clone());
                }
            }
        }
        let pass = section.pass.as_str();
        let reason = if live_in.is_empty() {
            format!(
                "{pass} moved these lines out of {} rather than removing them, and no linked topic file holds them any more (edited or removed since): the archive section at line {} is their copy",
                section.from, section.line
            )
        } else {
            format!(
                "{pass} moved these lines out of {} rather than removing them: they are still live in {}, so restoring them would make them twice",
                section.from,
                live_in.join(", ")
            )
        };
        Ok(NotRestored {
            file: section.from.clone(),
            pass: section.pass,
            lines: section.lines.clone(),
            live_in,
            reason,
        })
    }
}

/// The sections of `id` to restore, once each, and a warning for each copy left out. The
/// sections of one compaction are written one after another with one time
/// (as `check` reads them); a hand edit can duplicate them:
///
/// - a section repeated with the same pass, file and lines inside one compaction's run
///   (pasted twice in a row) is one section: restored once;
/// - the same id on another run of sections: when every run is identical (pass, file,
///   time and lines of each section, in order) — the same compaction copied — the first
///   is restored, once; when they differ, which one is meant cannot be told and restoring
///   both would bring back what was not asked: refused ([`Error::InvalidInput`] about
///   the `archive id`) naming the heading line of each run. Sections of one run that
///   differ are different archived facts: each is restored.
///
/// Either way no archived fact is restored twice and none is dropped from the archive
/// (it is never changed).
fn one_copy(
    archive: &std::path::Path,
    id: &str,
    all_sections: Vec<ArchiveSection>,
) -> Result<(Vec<ArchiveSection>, Vec<String>)> {
    // `reused_ids`' rule: a run is the sections of one id and one time that follow one
    // another (a section of another id between them ends it).
    let mut runs: Vec<Vec<ArchiveSection>> = Vec::new();
    let mut previous: Option<(String, String)> = None;
    for s in all_sections {
        let key = (s.id.clone(), s.at.clone());
        let continues = previous.as_ref() == Some(&key);
        previous = Some(key);
        if s.id != id {
            continue;
        }
        match runs.last_mut() {
            Some(run) if continues => run.push(s),
            _ => runs.push(vec![s]),
        }
    }
    let same = |a: &ArchiveSection, b: &ArchiveSection| {
        a.pass == b.pass && a.from == b.from && a.at == b.at && a.lines == b.lines
    };
    let mut warnings = Vec::new();
    if runs.len() > 1 {
        let first = &runs[0];
        let identical = runs[1..]
            .iter()
            .all(|run| run.len() == first.len() && run.iter().zip(first).all(|(a, b)| same(a, b)));
        let starts: Vec<String> = runs.iter().map(|r| r[0].line.to_string()).collect();
        if !identical {
            return Err(Error::invalid(
                "archive id",
                id,
                format!(
                    "{} holds {} compactions with this id (sections starting at lines {}): restore will not pick one; give all but one of them another id by hand, then restore",
                    archive.display(),
                    runs.len(),
                    starts.join(", ")
                ),
            ));
        }
        warnings.push(format!(
            "{} holds the same compaction {id} {} times, identical (sections starting at lines {}): restored once, from line {}; remove the copies by hand",
            archive.display(),
            runs.len(),
            starts.join(", "),
            starts[0]
        ));
    }
    let mut out: Vec<ArchiveSection> = Vec::new();
    for s in runs.into_iter().next().unwrap_or_default() {
        match out.iter().find(|kept| same(kept, &s)) {
            Some(kept) => warnings.push(format!(
                "{} line {}: the section is an identical copy of the one at line {} ({} of {}): restored once; remove the copy by hand",
                archive.display(),
                s.line,
                kept.line,
                s.pass.as_str(),
                s.from
            )),
            None => out.push(s),
        }
    }
    Ok((out, warnings))
}

/// Archived lines grouped into entries as a topic file reads them: an entry and every
/// line under it (blank lines inside it included, so a second paragraph or a fenced block
/// comes back with it). Any other line that is not blank starts a unit of its own at the
/// margin, and an indented one continues such a unit (blank lines between them dropped).
/// The refusal of an id the archive has no section for: not found, as an unknown
/// session or entity is.
fn no_section(archive: &std::path::Path, id: &str) -> Error {
    Error::ArchiveIdNotFound {
        id: id.to_string(),
        path: archive.to_path_buf(),
    }
}

/// Refuses an id that no archive section can have (empty, or holding white space or a
/// control character: a section heading's id is one word), so that a slip is named as
/// such rather than looked up — and a terminal escape in it is never echoed raw by the
/// not-found message.
fn check_archive_id(id: &str) -> Result<()> {
    if id.is_empty() || id.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return Err(Error::invalid(
            "archive id",
            id,
            "is not an archive id: one word such as c-20260710-001 (the id a compaction or merge reported)",
        ));
    }
    Ok(())
}

fn entries_of(lines: &[String]) -> Vec<Vec<String>> {
    let entries = Topic::parse("archive", lines.join("\n"))
        .map(|t| t.entries)
        .unwrap_or_default();
    let mut entries = entries.iter().peekable();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut in_other = false;
    let mut i = 0;
    while i < lines.len() {
        if let Some(e) = entries.next_if(|e| e.line == i + 1) {
            out.push(lines[i..e.end_line.min(lines.len())].to_vec());
            i = e.end_line.max(i + 1);
            in_other = false;
            continue;
        }
        let line = &lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(unit) if in_other && line.starts_with([' ', '\t']) => unit.push(line.clone()),
            _ => out.push(vec![line.clone()]),
        }
        in_other = true;
    }
    out
}

/// A title from a file name (`memory-infra.md` → `Infra`).
fn title_of(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name[..name.len().saturating_sub(3)].trim_start_matches("memory-");
    let words = stem.replace(['-', '_'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => name.to_string(),
    }
}
