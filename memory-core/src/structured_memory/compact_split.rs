//! Pass 4, split the overgrown: the parts a compactor names move into new topic files,
//! each with its own index line. A part's file starts with a `# ` title heading (its
//! index line's title), then the entries it takes, each under the `##` heading of the
//! section it came from (entries under no `##` heading first). The old file loses a
//! `##` heading only when the split left its section with nothing but blank lines; a
//! heading with anything else still under it (hand prose, a note, an entry that stays)
//! is kept. A part that would move every remaining entry out of a file holding nothing
//! else (no prose, no hand notes: a husk of headings with an index line) is not made; the
//! file is reported as needing judgment instead.

use std::collections::BTreeSet;

use super::archive::ArchivePass;
use super::budget::BudgetState;
use super::compact::{PassReport, Work, checked_indexes, cut, failed};
use super::compactor::{Compactor, SplitPart};
use super::index_file::MemoryIndex;
use super::memory::StructuredMemory;
use super::topic_file::Topic;
use super::topic_name::{check_new_topic_name, name_key};
use super::topic_placement::{place_entry, same_title};
use super::topic_sections::{TopicSection, sections};
use crate::error::{Error, Result};
use crate::markdown::{Edit, apply_edits, classify};

impl StructuredMemory {
    /// Runs the split pass on `w`: parts are taken in the compactor's order while the
    /// file is still over its budget. `created_elsewhere`: files other splits of the step make.
    pub(super) fn split(
        &self,
        w: &mut Work,
        compactor: &dyn Compactor,
        index: &Option<MemoryIndex>,
        created_elsewhere: &BTreeSet<String>,
    ) -> Result<()> {
        let pass = ArchivePass::SplitOvergrown;
        let entries = w.topic.entries.clone();
        let parts = compactor
            .split(&w.topic, &entries)
            .map_err(|e| failed(pass, &w.file, e))?;
        let sections = sections(&w.topic);
        let le = w.topic.line_ending.as_str();
        let mut taken = BTreeSet::new();
        let mut files = created_elsewhere.clone();
        let mut moved_all = Vec::new();
        let mut reports = Vec::new();
        let mut created = Vec::new();
        let mut into = Vec::new();
        for part in parts {
            // What the file would be with the parts taken so far (headings included).
            let left = apply_edits(&w.topic.text, old_file_edits(&w.topic, &sections, &taken));
            let usage = self
                .budgets
                .usage(&w.file, false, classify(&left).lines.len(), left.len());
            if usage.state != BudgetState::Over {
                break;
            }
            let mut list = checked_indexes(pass, &w.file, &part.entries, entries.len(), true)?;
            if list.is_empty() || list.iter().any(|i| !taken.insert(*i)) {
                return Err(failed(
                    pass,
                    &w.file,
                    "a part must move entries no other part moves".into(),
                ));
            }
            // A part that would leave the topic with no entry and nothing else of its
            // own (an empty husk with an index line) is not made: the file needs
            // judgment instead.
            if taken.len() == entries.len() && w.topic.unparsed_lines().is_empty() {
                for i in &list {
                    taken.remove(i);
                }
                w.emptying_split = Some(part.file.clone());
                continue;
            }
            let target = self.split_target(w, &part, index, &files)?;
            // A part for a single fact goes only into an earlier split of its section;
            // one whose earlier split is busy in this step (compacted, or another part's
            // target) is not made.
            let keep = match &target {
                SplitTarget::New(..) => !part.only_into_earlier,
                SplitTarget::Into(..) => true,
                SplitTarget::Busy => false,
            };
            if !keep {
                for i in &list {
                    taken.remove(i);
                }
                continue;
            }
            let file = match &target {
                SplitTarget::New(file, _) | SplitTarget::Into(file, _, _) => file.clone(),
                SplitTarget::Busy => continue,
            };
            files.insert(name_key(&file));
            if let SplitTarget::New(..) = target {
                for (field, value) in [("title", &part.title), ("hook", &part.hook)] {
                    if value.trim().is_empty() || value.contains(['\n', '\r']) {
                        return Err(failed(
                            pass,
                            &w.file,
                            format!("the {field} of {file} must be one non-empty line").into(),
                        ));
                    }
                    // Held to what a given `--title`/`--hook` is held to (secrets, control
                    // characters, length).
                    super::index_fields::check_given(field, value)
                        .map_err(|e| failed(pass, &w.file, e.into()))?;
                }
            }
            // Entries under no `##` heading first, then section by section, in file order.
            list.sort_by_key(|&i| {
                let section = sections.iter().position(|s| s.holds(&entries[i]));
                (section.is_some(), section, i)
            });
            let mut moved: Vec<_> = list.iter().map(|&i| entries[i].clone()).collect();
            match target {
                SplitTarget::New(file, path) => {
                    let text = new_file_text(
                        &w.topic,
                        &sections,
                        (part.title.trim(), part.hook.trim()),
                        &list,
                        le,
                    );
                    created.push((
                        file,
                        path,
                        text,
                        part.title.trim().to_string(),
                        part.hook.trim().to_string(),
                    ));
                }
                SplitTarget::Into(file, path, earlier) => {
                    let text = moved_into(&w.topic, &sections, &list, (*earlier).clone(), &path)?;
                    into.push((file, path, earlier.text, text));
                }
                SplitTarget::Busy => {}
            }
            let from_lines = w.to_original_lines(&mut moved);
            reports.push(PassReport {
                pass,
                from: w.file.clone(),
                entries: moved.clone(),
                to: file.clone(),
                written: Vec::new(),
                from_lines,
            });
            moved_all.extend(moved);
        }
        if moved_all.is_empty() {
            return Ok(());
        }
        let edits = old_file_edits(&w.topic, &sections, &taken);
        let before = w.passes.len();
        self.apply(w, pass, edits, moved_all, Vec::new(), String::new())?;
        // `apply` recorded the pass as one; the per-part reports say where each went.
        w.passes.truncate(before);
        w.passes.extend(reports);
        w.created.extend(created);
        w.moved_into.extend(into);
        Ok(())
    }

    /// Where a part goes: its file, new; an earlier split of the same section (the
    /// file exists, is linked, and its index line or `# ` heading has the part's title),
    /// which takes the entries in; or, when the name is taken otherwise (by a file, an
    /// index line or another part of this step), the first free `-2`, `-3`… variant, new.
    /// An earlier split another file of this step writes is `Busy`. Refused: the file
    /// being split, a reserved file, a path outside the directory.
    fn split_target(
        &self,
        w: &Work,
        part: &SplitPart,
        index: &Option<MemoryIndex>,
        files: &BTreeSet<String>,
    ) -> Result<SplitTarget> {
        let pass = ArchivePass::SplitOvergrown;
        let wanted = part.file.as_str();
        let file = wanted.strip_prefix("./").unwrap_or(wanted).to_string();
        if file.eq_ignore_ascii_case(&w.file) {
            return Err(failed(
                pass,
                &w.file,
                format!("{file} is the file being split: a split makes new topic files").into(),
            ));
        }
        // A catch-all topic (name, title or hook) is refused here as `remember` refuses it
        // (`check` flags one).
        super::catch_all::refuse_misc(&file)
            .and_then(|()| super::catch_all::refuse_misc_field("title", &part.title, &file))
            .and_then(|()| super::catch_all::refuse_misc_field("hook", &part.hook, &file))
            .map_err(|e| failed(pass, &w.file, e.into()))?;
        // Taken: a file of the name, or of the name but for case or normalisation (one
        // file on macOS and Windows), an index line, a part of this step.
        let on_disk = self
            .twins_on_disk(&file)
            .map_err(|e| failed(pass, &w.file, e.into()))?;
        let taken = |name: &str, path: &std::path::Path| {
            path.exists()
                || on_disk.contains(&name_key(name))
                || index.as_ref().is_some_and(|i| i.line_for(name).is_some())
                || files.contains(&name_key(name))
        };
        // The path of a name; `None` when the name itself is a symbolic link (someone's
        // linked topic: taken, never written through nor replaced). A link further up
        // is refused, as every write refuses it.
        let checked = |name: &str| -> Result<Option<std::path::PathBuf>> {
            let path = check_new_topic_name(name).and_then(|()| self.topic_path(name));
            match path {
                Err(Error::LinkRefused { path, .. })
                    if path.file_name().and_then(|n| n.to_str()) == name.rsplit('/').next() =>
                {
                    Ok(None)
                }
                path => path.map(Some).map_err(|e| failed(pass, &w.file, e.into())),
            }
        };
        let path = checked(&file)?;
        match &path {
            Some(path) if !taken(&file, path) => return Ok(SplitTarget::New(file, path.clone())),
            Some(path) => {
                if let Some(earlier) = self.earlier_split(&file, path, part.title.trim(), index)? {
                    if files.contains(&name_key(&file)) {
                        return Ok(SplitTarget::Busy);
                    }
                    return Ok(SplitTarget::Into(file, path.clone(), Box::new(earlier)));
                }
            }
            None => {}
        }
        let stem = &file[..file.len() - 3];
        let mut n = 2;
        loop {
            let candidate = format!("{stem}-{n}.md");
            if let Some(candidate_path) = checked(&candidate)?
                && !taken(&candidate, &candidate_path)
            {
                return Ok(SplitTarget::New(candidate, candidate_path));
            }
            n += 1;
        }
    }

    /// `file`, read, when it is an earlier split titled `title`: it exists under exactly
    /// that name, an index line links it, and that line's title, the file's first `# `
    /// heading or its frontmatter `name` is `title` (case folded). A file that does not
    /// read is none.
    fn earlier_split(
        &self,
        file: &str,
        path: &std::path::Path,
        title: &str,
        index: &Option<MemoryIndex>,
    ) -> Result<Option<Topic>> {
        let Some(line) = index.as_ref().and_then(|i| i.line_for(file)) else {
            return Ok(None);
        };
        if line.file != file || std::fs::symlink_metadata(path).map_or(true, |m| !m.is_file()) {
            return Ok(None);
        }
        let Ok(Some(topic)) = self.load_topic(file) else {
            return Ok(None);
        };
        let heading = topic
            .text
            .lines()
            .find_map(|l| l.trim_start_matches('\u{feff}').strip_prefix("# "))
            .map(str::trim);
        let same = |t: &str| same_title(t, title);
        let name = topic.meta.as_ref().and_then(|m| m.name.as_deref());
        Ok(
            (same(&line.title) || heading.is_some_and(same) || name.is_some_and(same))
                .then_some(topic),
        )
    }
}

/// Where a split part goes (see [`StructuredMemory::split_target`]).
enum SplitTarget {
    /// A new file: its name and path.
    New(String, std::path::PathBuf),
    /// An earlier split of the same section, as read: its name, path and topic.
    Into(String, std::path::PathBuf, Box<Topic>),
    /// An earlier split this step already writes: the part is not made.
    Busy,
}

/// `earlier`'s text with the entries `list` of `topic` placed in it, each under the
/// `##` section of its title (a new one at the end when it has none; entries under no
/// `##` heading above its first one), in the file's line ending, checked to read back
/// with every entry it had and every one it takes.
fn moved_into(
    topic: &Topic,
    sections: &[TopicSection],
    list: &[usize],
    earlier: Topic,
    path: &std::path::Path,
) -> Result<String> {
    let had = earlier.entries.len();
    let mut target = earlier;
    for &i in list {
        let e = &topic.entries[i];
        let section = sections
            .iter()
            .find(|s| s.holds(e))
            .map(|s| s.title.clone());
        let le = target.line_ending.as_str();
        let mut lines = String::new();
        for l in topic.text[e.span.clone()].lines() {
            lines.push_str(l);
            lines.push_str(le);
        }
        let text = place_entry(&target, &lines, section.as_deref());
        target = Topic::read(path, target.file.clone(), text)
            .map_err(|e| crate::error::Error::unreadable_result(path, e))?;
    }
    if target.entries.len() != had + list.len() {
        return Err(crate::error::Error::verify(
            path,
            "the split would not move its entries in whole; nothing was written",
        ));
    }
    Ok(target.text)
}

/// The edits that take the entries `taken` out of `topic`: each entry's lines, and the
/// whole of every `##` section they leave with nothing but blank lines (its heading
/// too; at the end of the file, the blank lines before it as well).
fn old_file_edits(topic: &Topic, sections: &[TopicSection], taken: &BTreeSet<usize>) -> Vec<Edit> {
    let text = topic.text.as_str();
    let moved: Vec<_> = taken.iter().map(|&i| &topic.entries[i]).collect();
    let mut edits = Vec::new();
    let mut emptied = Vec::new();
    for s in sections {
        let mut inside: Vec<_> = moved.iter().filter(|e| s.holds(e)).collect();
        if inside.is_empty() {
            continue;
        }
        inside.sort_by_key(|e| e.span.start);
        let mut at = s.heading.end;
        let mut blank = true;
        for e in &inside {
            blank &= text[at.min(e.span.start)..e.span.start].trim().is_empty();
            at = at.max(e.span.end);
        }
        blank &= text[at.min(s.span.end)..s.span.end].trim().is_empty();
        if blank {
            let mut start = s.span.start;
            if s.span.end == text.len() {
                start = after_trailing_blank_lines(text, start);
            }
            edits.push(Edit {
                range: start..s.span.end,
                replacement: String::new(),
            });
            emptied.push(s);
        }
    }
    for e in moved {
        if !emptied.iter().any(|s| s.holds(e)) {
            edits.push(cut(e));
        }
    }
    edits
}

/// `start` moved back over the blank lines just before it.
fn after_trailing_blank_lines(text: &str, mut start: usize) -> usize {
    while let Some(before) = text[..start].strip_suffix('\n') {
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if line_start == start || !before[line_start..].trim().is_empty() || line_start == 0 {
            break;
        }
        start = line_start;
    }
    start
}

/// A part's new file: `# title`, then the entries `list` (in that order), each group
/// of them under the `##` heading of the section they came from, a blank line before
/// each group.
fn new_file_text(
    topic: &Topic,
    sections: &[TopicSection],
    (title, hook): (&str, &str),
    list: &[usize],
    le: &str,
) -> String {
    let text = topic.text.as_str();
    // A part of a topic that keeps frontmatter (Claude Code's) keeps one too: its title
    // and hook as `name` and `description`, the topic's `type` (see
    // `topic_frontmatter.rs`).
    let mut out = match &topic.meta {
        Some(meta) if meta.name.is_some() || meta.description.is_some() => {
            super::topic_frontmatter::new_topic_frontmatter(
                title,
                hook,
                meta.kind.as_deref(),
                topic.line_ending,
            )
        }
        _ => format!("# {title}{le}"),
    };
    let mut group = None;
    let push_line = |out: &mut String, raw: &str| {
        out.push_str(raw);
        if !raw.ends_with('\n') {
            out.push_str(le);
        }
    };
    for &i in list {
        let e = &topic.entries[i];
        let section = sections.iter().position(|s| s.holds(e));
        if group != Some(section) {
            out.push_str(le);
            if let Some(k) = section {
                push_line(&mut out, &text[sections[k].heading.clone()]);
            }
            group = Some(section);
        }
        push_line(&mut out, &text[e.span.clone()]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_the_split_empties_goes_with_its_heading_a_section_with_prose_stays() {
        let text = "# Infra\n\n## Hosts\nWhy we keep hosts.\n- 2026-07-01: a\n\n## Databases\n- 2026-07-02: b\n- 2026-07-03: c\n";
        let topic = Topic::parse("t.md", text).unwrap();
        let found = sections(&topic);
        let all: BTreeSet<usize> = [0, 1, 2].into();
        let left = apply_edits(text, old_file_edits(&topic, &found, &all));
        assert_eq!(left, "# Infra\n\n## Hosts\nWhy we keep hosts.\n");
        let one: BTreeSet<usize> = [1].into();
        let left = apply_edits(text, old_file_edits(&topic, &found, &one));
        assert_eq!(
            left,
            "# Infra\n\n## Hosts\nWhy we keep hosts.\n- 2026-07-01: a\n\n## Databases\n- 2026-07-03: c\n"
        );
        let moved = new_file_text(&topic, &found, ("Infra: Databases", "dbs"), &[1, 2], "\n");
        assert_eq!(
            moved,
            "# Infra: Databases\n\n## Databases\n- 2026-07-02: b\n- 2026-07-03: c\n"
        );
    }

    #[test]
    fn a_middle_section_goes_with_its_blank_lines_a_last_one_with_those_before_it() {
        let text = "## A\n- 2026-07-01: a\n\n## B\n- 2026-07-02: b\n\n## C\n- 2026-07-03: c\n";
        let topic = Topic::parse("t.md", text).unwrap();
        let found = sections(&topic);
        let b: BTreeSet<usize> = [1].into();
        assert_eq!(
            apply_edits(text, old_file_edits(&topic, &found, &b)),
            "## A\n- 2026-07-01: a\n\n## C\n- 2026-07-03: c\n"
        );
        let c: BTreeSet<usize> = [2].into();
        assert_eq!(
            apply_edits(text, old_file_edits(&topic, &found, &c)),
            "## A\n- 2026-07-01: a\n\n## B\n- 2026-07-02: b\n"
        );
    }
}
