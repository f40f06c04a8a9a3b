//! `check()`: every anti-pattern and rule of the seed, found in the files as they are,
//! with file and line. Nothing is written.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::archive::archive_problems;
use super::budget::BudgetState;
use super::catch_all::{catch_all_line, is_catch_all};
use super::check_secrets::secrets_in;
use super::dates::relative_time_in;
use super::index_file::{INDEX_FILE_NAME, MemoryIndex};
use super::memory::{ARCHIVE_FILE_NAME, RESERVED_FILES, StructuredMemory};
use super::topic_case::same_but_for_case;
use super::topic_file::{Topic, subject_key};
use super::topic_name::{name_key, same_topic_name};
use crate::durable::{is_dead_writer_file, read_text_if_exists};
use crate::error::{Error, Result};

/// The kinds of problem `check` reports.
///
/// ```
/// use memory_core::structured_memory::ViolationKind;
/// assert_eq!(ViolationKind::OrphanTopic.as_str(), "orphan_topic");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ViolationKind {
    /// A line of `MEMORY.md` that is content, not a pointer ("Copying memory content into
    /// MEMORY.md").
    ContentInIndex,
    /// An index line whose topic file does not exist ("an index line without a file is a
    /// lie").
    DanglingIndexLine,
    /// A Markdown file in the directory that no index line links ("An orphaned topic file
    /// is invisible").
    OrphanTopic,
    /// Two index lines for one topic file.
    DuplicateIndexLine,
    /// Index lines of two topic files with the same title and hook: a session cannot tell
    /// from the index which to load ("merge near-duplicate topics").
    NearDuplicateTopics,
    /// An index line whose link leaves the directory or is not a plain path.
    UnusableLink,
    /// An index line with no hook ("the hook … is the recall key").
    EmptyHook,
    /// A file past its budget.
    OverBudget,
    /// A list item in a topic file without a leading absolute date ("Undated facts rot
    /// invisibly").
    UndatedEntry,
    /// An entry whose text leans on a relative time ("yesterday", "last week"), an index
    /// title or hook that does, or a topic file's heading that does (`## Last week`: the
    /// entries under it read as dated by it; flagged exactly when a write refuses that
    /// text as its `section`).
    RelativeDate,
    /// A catch-all topic ("A 'misc' topic file").
    MiscTopic,
    /// Several entries about one subject in a topic ("never accumulate contradicting
    /// generations of the same fact").
    ContradictingGenerations,
    /// A linked topic file that does not read: a frontmatter block never closed, an
    /// unclosed fence hiding entries, not UTF-8 (at the line), or — for the whole file
    /// (line 0), the message naming the index line — a symbolic link, a directory, a
    /// file that cannot be opened.
    UnreadableTopic,
    /// A topic file whose frontmatter is not YAML (`name: Feedback: testing`): the file
    /// reads and takes writes, its `name`, `description` and `type` read line by line; other
    /// tools may refuse it.
    FrontmatterNotYaml,
    /// `memory-archive.md` does not read (not UTF-8, a NUL byte, too large, a symbolic
    /// link, a directory: every write that archives fails until it is repaired), or a
    /// section of it does not (a heading shaped like a section's that does not parse,
    /// entries that would not restore), at the line.
    UnreadableArchive,
    /// `MEMORY.md` does not read (a comment, fence or frontmatter block never closed that
    /// hides pointer lines, not UTF-8, a symbolic link…), at the line: the index rules
    /// (dangling lines, orphans) wait until it is repaired; every Markdown file at the top
    /// of the directory is still checked as a topic, and the archive too.
    UnreadableIndex,
    /// `MEMORY.md` is a symbolic link: read and checked through it, but every write
    /// refuses it (memory-core never writes through links).
    LinkedIndex,
    /// A temp or backup file a memory-core writer left under the directory when it died
    /// mid-write (`kill -9`, a power loss), its writer gone: `compact` removes it.
    LeftoverTempFile,
    /// An unlinked copy a sync client or a download made of a topic file
    /// (`memory-x.sync-conflict-….md`, `memory-x (conflicted copy ….).md`, `memory-x (1).md`):
    /// not an orphan topic but two versions of one, the message naming the original.
    SyncConflictCopy,
    /// A value that looks like a secret (a key, token or password, by the context-memory
    /// pattern set) in a topic file, `MEMORY.md` or the archive: never written by
    /// memory-core, reported at its line without the secret.
    Secret,
    /// A comment opened on a line of `MEMORY.md` (`%%` anywhere outside code, a list item's
    /// line too; `<!--` where it opens one) and never closed: Obsidian hides every line
    /// after it, and every index line a write appends. Reported at the line it opens on,
    /// the message naming the lines and the pointer lines it hides. (One memory-core's
    /// reader also takes for a comment and that hides a pointer line makes the index
    /// `unreadable_index` instead.)
    UnclosedComment,
}

impl ViolationKind {
    /// A stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::ContentInIndex => "content_in_index",
            ViolationKind::DanglingIndexLine => "dangling_index_line",
            ViolationKind::OrphanTopic => "orphan_topic",
            ViolationKind::DuplicateIndexLine => "duplicate_index_line",
            ViolationKind::NearDuplicateTopics => "near_duplicate_topics",
            ViolationKind::UnusableLink => "unusable_link",
            ViolationKind::EmptyHook => "empty_hook",
            ViolationKind::OverBudget => "over_budget",
            ViolationKind::UndatedEntry => "undated_entry",
            ViolationKind::RelativeDate => "relative_date",
            ViolationKind::MiscTopic => "misc_topic",
            ViolationKind::ContradictingGenerations => "contradicting_generations",
            ViolationKind::UnreadableTopic => "unreadable_topic",
            ViolationKind::FrontmatterNotYaml => "frontmatter_not_yaml",
            ViolationKind::UnreadableArchive => "unreadable_archive",
            ViolationKind::UnreadableIndex => "unreadable_index",
            ViolationKind::LeftoverTempFile => "leftover_temp_file",
            ViolationKind::SyncConflictCopy => "sync_conflict_copy",
            ViolationKind::LinkedIndex => "linked_index",
            ViolationKind::Secret => "secret",
            ViolationKind::UnclosedComment => "unclosed_comment",
        }
    }
}

/// What is wrong, without the path the error starts with (the violation names the file).
fn reason_of(e: &Error) -> String {
    let text = e.to_string();
    match e.path() {
        Some(path) => {
            let prefix = format!("{}: ", path.display());
            text.strip_prefix(&prefix).unwrap_or(&text).to_string()
        }
        None => text,
    }
}

/// One problem `check` found.
///
/// ```
/// use memory_core::structured_memory::StructuredMemory;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("MEMORY.md"), "- [Gone](memory-gone.md) — nothing here\n").unwrap();
/// let found = StructuredMemory::open(dir.path()).unwrap().check().unwrap();
/// assert_eq!(found[0].kind.as_str(), "dangling_index_line");
/// assert_eq!((found[0].file.as_str(), found[0].line), ("MEMORY.md", 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// What is wrong.
    pub kind: ViolationKind,
    /// The file, relative to the directory.
    pub file: String,
    /// The 1-based line (0 when it concerns the whole file).
    pub line: usize,
    /// What is wrong, in words, and what to do.
    pub message: String,
}

impl StructuredMemory {
    /// Every rule of the seed the directory breaks, in file and line order: the index
    /// (content, dangling and duplicate lines, links out, empty hooks, its budget), every
    /// linked topic (budget, undated and relatively dated entries, contradicting
    /// generations, a catch-all name, a file that does not read — a symbolic link or a
    /// directory too: reported, and the check goes on), the archive (a file that does not
    /// read, a section that does not), and orphan Markdown files at the top of the
    /// directory (Agent Memory's `index.md`, the archive and temp files are not orphans).
    /// A `MEMORY.md` that does not read is reported (`unreadable_index`, at its line)
    /// rather than refused, and every Markdown file at the top of the directory is then
    /// checked as a topic. Temp files of writers that died mid-write anywhere under the
    /// directory are reported (`leftover_temp_file`). Writes nothing.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = StructuredMemory::open(dir.path()).unwrap();
    /// assert!(memory.check().unwrap().is_empty(), "an empty directory breaks no rule");
    /// ```
    pub fn check(&self) -> Result<Vec<Violation>> {
        let _guard = self.handle.read_guard()?;
        let mut out = Vec::new();
        let on_disk = self.top_level_markdown()?;
        match self.load_index_for_reading() {
            Ok(Some(index)) => {
                if let Some(target) = &index.through_link {
                    out.push(Violation {
                        kind: ViolationKind::LinkedIndex,
                        file: INDEX_FILE_NAME.to_string(),
                        line: 0,
                        message: format!(
                            "{INDEX_FILE_NAME} is a symbolic link to {}: it was read and checked through the link, but every write refuses it (memory-core never writes through links); replace the link with the file, or point --root at the directory it leads to",
                            target.display()
                        ),
                    });
                }
                self.check_index(&index, &on_disk, &mut out)
            }
            Ok(None) => {
                let empty = MemoryIndex::parse(self.index_path()?, "")?;
                self.check_index(&empty, &on_disk, &mut out);
            }
            // The index is the file's problem: reported, and every file that could be a
            // topic is checked as one (which of them are linked waits for the repair).
            Err(e) => {
                let (line, why) = match &e {
                    Error::Malformed { line, message, .. } => (*line, message.clone()),
                    other => (0, reason_of(other)),
                };
                out.push(Violation {
                    kind: ViolationKind::UnreadableIndex,
                    file: INDEX_FILE_NAME.to_string(),
                    line,
                    message: format!(
                        "{INDEX_FILE_NAME} does not read ({why}): every command but `topics index` refuses it until it is repaired; dangling lines and orphans are checked then, and every Markdown file here was checked as a topic"
                    ),
                });
                for file in &on_disk {
                    self.check_linked(file, None, &on_disk, &mut out);
                }
            }
        }
        self.check_archive(&mut out);
        // A temp file of a writer still running is its write in progress.
        for temp in self.writer_temp_files()? {
            if !temp.writer_running() {
                out.push(Violation {
                    kind: ViolationKind::LeftoverTempFile,
                    file: temp.file,
                    line: 0,
                    message: "a temp file a memory-core writer left when it died mid-write: `memcore topics compact` removes it (the files it was writing are as they were before, or after, that write)".into(),
                });
            }
        }
        out.sort_by(|a, b| {
            (a.file != INDEX_FILE_NAME, &a.file, a.line, a.kind).cmp(&(
                b.file != INDEX_FILE_NAME,
                &b.file,
                b.line,
                b.kind,
            ))
        });
        Ok(out)
    }

    /// The rules of a `MEMORY.md` that reads, of each topic it links, and the orphans.
    fn check_index(&self, index: &MemoryIndex, on_disk: &[String], out: &mut Vec<Violation>) {
        out.extend(secrets_in(INDEX_FILE_NAME, &index.text, false));
        let v = |kind, file: &str, line, message: String| Violation {
            kind,
            file: file.to_string(),
            line,
            message,
        };
        for c in &index.content {
            out.push(v(
                ViolationKind::ContentInIndex,
                INDEX_FILE_NAME,
                c.line,
                "content in the index: MEMORY.md holds pointer lines only; move it to a topic file"
                    .into(),
            ));
        }
        if let Some(comment) = super::index_comments::unclosed_comment(&index.text) {
            out.push(v(
                ViolationKind::UnclosedComment,
                INDEX_FILE_NAME,
                comment.line,
                comment.message(index),
            ));
        }
        for u in &index.unusable {
            out.push(v(
                ViolationKind::UnusableLink,
                INDEX_FILE_NAME,
                u.line,
                format!("the link {:?}: {}", u.target, u.reason),
            ));
        }
        let usage = self
            .budgets
            .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
        if usage.state == BudgetState::Over {
            out.push(v(
                ViolationKind::OverBudget,
                INDEX_FILE_NAME,
                usage
                    .first_line_over(&index.text)
                    .unwrap_or(usage.line_budget + 1),
                usage.warning().unwrap_or_default(),
            ));
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for line in &index.lines {
            let key = name_key(&line.file);
            if let Some(first) = seen.get(&key) {
                out.push(v(
                    ViolationKind::DuplicateIndexLine,
                    INDEX_FILE_NAME,
                    line.line,
                    format!("{} already has an index line (line {first})", line.file),
                ));
                continue;
            }
            seen.insert(key, line.line);
            // A title or hook a write would refuse for its relative time (never converted).
            if let Some((field, word)) = [("title", &line.title), ("hook", &line.hook)]
                .into_iter()
                .find_map(|(field, value)| relative_time_in(value).map(|w| (field, w)))
            {
                out.push(v(
                    ViolationKind::RelativeDate,
                    INDEX_FILE_NAME,
                    line.line,
                    format!(
                        "the {field} of {}: {word:?} was relative to the day it was written; say the date or leave the time out",
                        line.file
                    ),
                ));
            }
            // A catch-all name, title or hook: the line is where it is written.
            if let Some(message) = catch_all_line(&line.file, &line.title, &line.hook) {
                out.push(v(
                    ViolationKind::MiscTopic,
                    INDEX_FILE_NAME,
                    line.line,
                    message,
                ));
            }
            if super::visible::renders_empty(&line.hook) {
                out.push(v(
                    ViolationKind::EmptyHook,
                    INDEX_FILE_NAME,
                    line.line,
                    format!(
                        "{} has no hook: write when a session should load it",
                        line.file
                    ),
                ));
            }
            self.check_linked(&line.file, Some(line.line), on_disk, out);
        }
        out.extend(super::check_near_duplicates::near_duplicates(index));
        // A file is linked by a line naming it exactly, or (when no file has the line's
        // exact name) but for case, or else canonically equivalent: on a disk that folds
        // case or normalisation the line opens it.
        let linked: BTreeSet<&String> = index
            .lines
            .iter()
            .filter_map(|l| opened(on_disk, &l.file))
            .collect();
        for file in on_disk {
            if linked.contains(file) {
                continue;
            }
            if let Some(original) = conflict_copy_of(file) {
                let state = match opened(on_disk, &original) {
                    Some(_) if index.line_for(&original).is_some() => "",
                    Some(_) => " (itself not linked)",
                    None => " (which is gone)",
                };
                out.push(v(
                    ViolationKind::SyncConflictCopy,
                    file,
                    0,
                    format!(
                        "a copy a sync client (or a second download) made of {original}{state}: two versions of one topic; keep what is true in {original} and delete this copy"
                    ),
                ));
                continue;
            }
            {
                out.push(v(
                    ViolationKind::OrphanTopic,
                    file,
                    0,
                    "no index line links it: an orphaned topic file is invisible; add its line or archive it".into(),
                ));
            }
        }
    }

    /// The rules of topic file `file`, linked from index line `from` (`None` when the
    /// index does not read): a catch-all name, a file missing (a dangling line), one that
    /// does not read, then its own rules.
    fn check_linked(
        &self,
        file: &str,
        from: Option<usize>,
        on_disk: &[String],
        out: &mut Vec<Violation>,
    ) {
        let v = |kind, file: &str, line, message: String| Violation {
            kind,
            file: file.to_string(),
            line,
            message,
        };
        // An orphan (or a file checked while the index does not read) by its name; a
        // linked one at its index line, where its title and hook are checked too.
        if from.is_none() && is_catch_all(file) {
            out.push(v(
                ViolationKind::MiscTopic,
                file,
                0,
                catch_all_line(file, "", "").unwrap_or_default(),
            ));
        }
        let linked_from = from.map_or(String::new(), |line| {
            format!(" (linked from {INDEX_FILE_NAME} line {line})")
        });
        match self.load_topic(file) {
            Ok(None) => {
                let also = match opened(on_disk, file) {
                    Some(f) if same_but_for_case(f, file) => {
                        format!(" ({f} does, in another case: make the link name it exactly)")
                    }
                    Some(f) => format!(
                        " ({f} does, in another Unicode normalisation form: make the link name it exactly)"
                    ),
                    None => String::new(),
                };
                out.push(v(
                    ViolationKind::DanglingIndexLine,
                    INDEX_FILE_NAME,
                    from.unwrap_or(0),
                    format!("{file} does not exist{also}: an index line without a file"),
                ));
            }
            Ok(Some(topic)) => self.check_topic(&topic, out),
            Err(Error::Malformed {
                line: at, message, ..
            }) => out.push(v(ViolationKind::UnreadableTopic, file, at, message)),
            // A link, a directory, a file that cannot be opened: the file's problem,
            // reported, and the check goes on (every other command refuses it).
            Err(e) => out.push(v(
                ViolationKind::UnreadableTopic,
                file,
                0,
                format!(
                    "{}{linked_from}: it cannot be read as a topic file; make it a plain file in the directory or remove its index line",
                    reason_of(&e),
                ),
            )),
        }
    }

    /// Whether `memory-archive.md` reads, and each of its sections.
    fn check_archive(&self, out: &mut Vec<Violation>) {
        let mut push = |line, message: String| {
            out.push(Violation {
                kind: ViolationKind::UnreadableArchive,
                file: ARCHIVE_FILE_NAME.to_string(),
                line,
                message,
            })
        };
        let read = self
            .archive_path()
            .and_then(|path| read_text_if_exists(&path));
        match read {
            Ok(None) => {}
            Ok(Some(text)) => {
                for problem in archive_problems(&text) {
                    push(problem.line, problem.message);
                }
                out.extend(secrets_in(ARCHIVE_FILE_NAME, &text, true));
            }
            Err(e) => {
                let (line, why) = match &e {
                    Error::Malformed { line, message, .. } => (*line, message.clone()),
                    other => (0, reason_of(other)),
                };
                push(
                    line,
                    format!(
                        "the archive does not read ({why}): every write that archives an entry (a merge on write, a compaction) fails until it is repaired; move it aside and keep it"
                    ),
                );
            }
        }
    }

    /// The rules of one topic file.
    fn check_topic(&self, topic: &Topic, out: &mut Vec<Violation>) {
        let file = topic.file.as_str();
        let usage = self
            .budgets
            .usage(file, false, topic.line_count, topic.byte_count);
        let mut push = |kind, line, message: String| {
            out.push(Violation {
                kind,
                file: file.to_string(),
                line,
                message,
            })
        };
        if let Some(issue) = &topic.frontmatter_not_yaml {
            push(
                ViolationKind::FrontmatterNotYaml,
                issue.line,
                format!(
                    "the frontmatter is not YAML ({}): name, description and type were read line by line; quote the value (name: \"Feedback: testing\") so YAML tools read it too",
                    issue.message
                ),
            );
        }
        if usage.state == BudgetState::Over {
            push(
                ViolationKind::OverBudget,
                usage
                    .first_line_over(&topic.text)
                    .unwrap_or(usage.line_budget + 1),
                format!(
                    "{}{}",
                    usage.warning().unwrap_or_default(),
                    topic.unparsed_note()
                ),
            );
        }
        for item in &topic.undated {
            push(
                ViolationKind::UndatedEntry,
                item.line,
                undated_reason(&item.text),
            );
        }
        // A heading of relative time (`## Last week`) dates every entry under it by it:
        // flagged exactly when a write would refuse it as the `section` it names.
        for heading in super::topic_sections::headings(topic) {
            if let Some(why) = super::time_words::relative_problem("section", &heading.title) {
                push(
                    ViolationKind::RelativeDate,
                    heading.line,
                    format!(
                        "the heading {:?} dates the entries under it by a relative time: {why}",
                        heading.title
                    ),
                );
            }
        }
        let mut subjects: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for entry in &topic.entries {
            // The subject too: a write refuses a relative time there.
            let subject_word = entry.subject.as_deref().and_then(relative_time_in);
            if let Some(word) = subject_word.or_else(|| relative_time_in(&entry.text)) {
                push(
                    ViolationKind::RelativeDate,
                    entry.line,
                    format!(
                        "{word:?} was relative to the day it was written; say the date (memory-core converts it when it writes a fact)"
                    ),
                );
            }
            if let Some(subject) = &entry.subject {
                subjects
                    .entry(subject_key(subject))
                    .or_default()
                    .push(entry.line);
            }
        }
        for (subject, lines) in subjects {
            if lines.len() > 1 {
                for line in &lines {
                    push(
                        ViolationKind::ContradictingGenerations,
                        *line,
                        format!(
                            "{} entries about {subject:?} (lines {}): keep the newest, archive the rest",
                            lines.len(),
                            lines
                                .iter()
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                }
            }
        }
        out.extend(secrets_in(file, &topic.text, false));
    }

    /// The Markdown files at the top of the directory that could be topics: not the
    /// reserved files, not hidden, not a writer's temp file.
    fn top_level_markdown(&self) -> Result<Vec<String>> {
        let dir = self.root();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io_op(dir, "scandir", e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(dir, "scandir", e))?;
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let markdown = super::pointer::is_markdown_file(&name);
            if markdown
                && !name.starts_with('.')
                && !is_dead_writer_file(&name)
                && !RESERVED_FILES.iter().any(|r| r.eq_ignore_ascii_case(&name))
            {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }
}
/// The topic file `file` is a sync client's or a browser's copy of, named as the copy
/// names it: Syncthing's `<stem>.sync-conflict-<date>-<time>-<device>.md`, Dropbox's and
/// Nextcloud's `<stem> (conflicted copy …).md` and `<stem> (<name>'s conflicted copy
/// …).md`, a numbered duplicate `<stem> (1).md`. `None` for any other name.
pub(super) fn conflict_copy_of(file: &str) -> Option<String> {
    // `.md` in any case: the last three bytes are ASCII, so the cut is a char boundary.
    if !super::pointer::is_markdown_file(file) {
        return None;
    }
    let stem = file.get(..file.len() - 3)?;
    if let Some(at) = stem.find(".sync-conflict-") {
        let rest = &stem[at + ".sync-conflict-".len()..];
        if at > 0 && rest.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(format!("{}.md", &stem[..at]));
        }
    }
    let inner = stem.strip_suffix(')')?;
    let open = inner.rfind(" (")?;
    let (original, note) = (&inner[..open], &inner[open + 2..]);
    let numbered = !note.is_empty() && note.len() <= 3 && note.bytes().all(|b| b.is_ascii_digit());
    let conflicted = note.to_lowercase().contains("conflicted copy");
    (!original.trim().is_empty() && (numbered || conflicted)).then(|| format!("{original}.md"))
}

/// The file of `on_disk` an index line naming `file` opens: the exact name, else the
/// first that matches it but for case, else the first canonically equivalent one.
fn opened<'a>(on_disk: &'a [String], file: &str) -> Option<&'a String> {
    on_disk
        .iter()
        .find(|f| *f == file)
        .or_else(|| on_disk.iter().find(|f| same_but_for_case(f, file)))
        .or_else(|| on_disk.iter().find(|f| same_topic_name(f, file)))
}

/// Why a list item is not a dated entry, as precisely as its first line `line` says: a
/// date that is not on the calendar, a date (and subject) without the `:` before the
/// text, or no date at all.
fn undated_reason(line: &str) -> String {
    const SHAPE: &str = "(- YYYY-MM-DD: … or - YYYY-MM-DD [subject]: …)";
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && t[digits..].starts_with(['.', ')']) {
        return format!(
            "a numbered item is a hand note, not an entry: entries are `-` items {SHAPE}"
        );
    }
    let rest = t.get(1..).unwrap_or("").trim_start();
    let rest = rest.strip_prefix("**").unwrap_or(rest);
    let Some(date) = rest.get(..10).filter(|d| {
        d.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
    }) else {
        return format!("an entry without an absolute date {SHAPE}");
    };
    if chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_err() {
        return format!("{date} is not a day of the calendar {SHAPE}");
    }
    let after = rest[10..].trim_start_matches("**");
    if let Some(subject) = after.strip_prefix(" [") {
        match subject.find(']') {
            None => return format!("the subject after {date} is never closed with `]` {SHAPE}"),
            Some(end) if subject[..end].trim().is_empty() => {
                return format!("the subject after {date} is empty {SHAPE}");
            }
            Some(_) => {}
        }
    }
    format!("the date {date} is not followed by `:` (or ` — `) before the text {SHAPE}")
}

#[cfg(test)]
mod tests {
    use super::undated_reason;

    #[test]
    fn an_undated_item_is_told_what_is_wrong_with_it() {
        for (line, says) in [
            ("- a hand note", "without an absolute date"),
            ("- 2026-13-45: x", "2026-13-45 is not a day of the calendar"),
            (
                "- 2026-02-30 [db]: x",
                "2026-02-30 is not a day of the calendar",
            ),
            (
                "- 2026-11-06 [b] no colon",
                "2026-11-06 is not followed by `:`",
            ),
            ("- 2026-11-06 no colon", "2026-11-06 is not followed by `:`"),
            ("- 2026-11-06 [b: x", "never closed with `]`"),
            (
                "- 2026-11-06 [ ]: x",
                "the subject after 2026-11-06 is empty",
            ),
            ("* **2026-11-06** text", "2026-11-06 is not followed by `:`"),
            ("-", "without an absolute date"),
            ("- 2026-1", "without an absolute date"),
            ("- 日本語のメモ", "without an absolute date"),
        ] {
            let reason = undated_reason(line);
            assert!(reason.contains(says), "{line:?}: {reason}");
            assert!(reason.contains("YYYY-MM-DD"), "{line:?}: {reason}");
        }
    }
}
