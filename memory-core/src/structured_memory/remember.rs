//! Writing, as the seed's "Writing" asks: one fact, one dated entry with an absolute
//! date, routed to a topic file; a new topic file and its index line in the same step;
//! merge on write (an entry about the same subject is replaced by the newest-dated one,
//! and the replaced generation goes to the archive); on disk and read back before the
//! call returns.

use chrono::{NaiveDate, Utc};
use serde::Serialize;

use super::archive::{ARCHIVE_HEADER, ArchivePass, next_id, render_section};
use super::budget::{BudgetState, BudgetUse};
use super::catch_all::{refuse_misc, refuse_misc_field};
use super::compact::CompactionReport;
use super::compactor::{Compactor, DefaultCompactor};
use super::dates::resolve_date;
use super::index_fields::{check_given, check_reads_back, from_frontmatter};
use super::index_file::{INDEX_FILE_NAME, IndexLine, MemoryIndex};
use super::memory::{ARCHIVE_FILE_NAME, StructuredMemory};
use super::pointer::render_pointer;
use super::pointer_edit::rewrite_index_line;
use super::remember_compaction::Written;
use super::time_words::{Conversion, convert_relative_time};
use super::topic_file::{Entry, Topic, subject_key};
use super::topic_frontmatter::{check_kind, check_new_frontmatter, new_topic_frontmatter};
use super::topic_name::check_new_topic_name;
use super::topic_placement::{clean_section, place_entry, same_title, section_of};
use super::write_plan::{Change, Plan};
use crate::durable::read_text_if_exists;
use crate::error::{Error, Result};
use crate::hygiene::{MAX_BODY_BYTES, refuse_secrets};
use crate::markdown::LineEnding;

/// The first line of a `MEMORY.md` memory-core creates.
pub const INDEX_HEADER: &str = "<!-- MEMORY.md: the index, always loaded. One line per topic file: - [Title](file.md) — hook. Facts live in the topic files. -->";

/// The longest subject accepted, in characters.
pub const MAX_SUBJECT_CHARS: usize = 80;

/// One fact to remember.
///
/// ```
/// use memory_core::structured_memory::Fact;
/// let fact = Fact::new("memory-infra.md", "deploy hook must run BEFORE the version bump")
///     .subject("deploy-hook")
///     .date("yesterday")
///     .hook("hosts, deploy pipeline");
/// assert_eq!(fact.subject.as_deref(), Some("deploy-hook"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Fact {
    /// The topic file it goes to, relative to the directory (`memory-infra.md`).
    pub topic: String,
    /// The fact itself (one line, or several without blank lines).
    pub text: String,
    /// What it is about: an entry about the same subject is replaced by it.
    pub subject: Option<String>,
    /// The day it is about: `YYYY-MM-DD`, `today`, `yesterday`, a weekday…; when not
    /// given, the one day before today (or today) the text's relative words name
    /// (`broke two days ago`), else today.
    pub date: Option<String>,
    /// The topic's title: for a new index line (derived from the file name otherwise),
    /// or to rename an existing line's title in place (its other bytes kept; the topic
    /// file's own heading is not changed).
    pub title: Option<String>,
    /// The topic's hook, for a new index line (required then) or to replace the hook; an
    /// empty one keeps the hook the line has.
    pub hook: Option<String>,
    /// The `##` section of the topic file the entry goes under (matched by its words,
    /// case folded; a new `## section` at the file's end when it has none). Not given, a
    /// new entry goes above the file's first `##` section, where no section claims it,
    /// and an entry replacing one stays where that one was.
    pub section: Option<String>,
    /// The `type` of a new topic file's frontmatter (Claude Code's `user`, `feedback`,
    /// `project`, `reference`, or one word of the user's own): given, the new file starts
    /// with a frontmatter block (see `topic_frontmatter.rs`). An existing topic's
    /// frontmatter is never rewritten: a different type for it is refused.
    pub kind: Option<String>,
}

impl Fact {
    /// A fact for `topic` saying `text`.
    pub fn new(topic: impl Into<String>, text: impl Into<String>) -> Fact {
        Fact {
            topic: topic.into(),
            text: text.into(),
            ..Fact::default()
        }
    }
    /// With the subject it is about.
    pub fn subject(mut self, subject: impl Into<String>) -> Fact {
        self.subject = Some(subject.into());
        self
    }
    /// With its date (see [`resolve_date`](super::resolve_date)).
    pub fn date(mut self, date: impl Into<String>) -> Fact {
        self.date = Some(date.into());
        self
    }
    /// With the topic's title.
    pub fn title(mut self, title: impl Into<String>) -> Fact {
        self.title = Some(title.into());
        self
    }
    /// With the topic's hook.
    pub fn hook(mut self, hook: impl Into<String>) -> Fact {
        self.hook = Some(hook.into());
        self
    }
    /// Under the `##` section `section` of the topic file.
    ///
    /// ```
    /// use memory_core::structured_memory::Fact;
    /// let fact = Fact::new("memory-infra.md", "db1 runs Postgres 16").section("Databases");
    /// assert_eq!(fact.section.as_deref(), Some("Databases"));
    /// ```
    pub fn section(mut self, section: impl Into<String>) -> Fact {
        self.section = Some(section.into());
        self
    }
    /// With the frontmatter `type` a new topic file is created with.
    ///
    /// ```
    /// use memory_core::structured_memory::{Fact, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = StructuredMemory::builder(dir.path()).fixed_time("2026-07-10T09:00:00Z").unwrap().open().unwrap();
    /// let fact = Fact::new("feedback-testing.md", "run the integration tests against a real database")
    ///     .hook("how the user wants tests run")
    ///     .kind("feedback");
    /// memory.remember(fact).unwrap();
    /// let topic = memory.topic("feedback-testing.md").unwrap();
    /// assert_eq!(topic.meta.unwrap().kind.as_deref(), Some("feedback"));
    /// ```
    pub fn kind(mut self, kind: impl Into<String>) -> Fact {
        self.kind = Some(kind.into());
        self
    }
}

/// What a write did.
///
/// ```
/// # use memory_core::structured_memory::RememberOutcome;
/// fn describe(o: &RememberOutcome) -> String {
///     format!("{} ({} lines left)", o.file, o.budgets[0].lines_left)
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RememberOutcome {
    /// The topic file written.
    pub file: String,
    /// The entry as it now reads in the file (the live one about the subject, when the
    /// fact written was older than it).
    pub entry: Entry,
    /// The relative times the write replaced by the day they meant (`yesterday` →
    /// `2026-07-09`), in the date given and in the text, in order.
    pub converted: Vec<Conversion>,
    /// Whether the topic file was created.
    pub created_topic: bool,
    /// Whether an index line was added for it (a new topic, or an orphan file now linked).
    pub linked: bool,
    /// Whether `MEMORY.md` was created.
    pub created_index: bool,
    /// Entries this write replaced (merge on write), now in the archive.
    pub replaced: Vec<Entry>,
    /// Whether the fact given was older than the live entry about its subject: then the
    /// live one stays and the fact went to the archive.
    pub archived_as_older: bool,
    /// The archive section id of what this write archived, if anything.
    pub archive_id: Option<String>,
    /// What each file touched uses of its budget (the topic file first).
    pub budgets: Vec<BudgetUse>,
    /// Budget warnings for files near or over their budget.
    pub warnings: Vec<String>,
    /// The compaction the write triggered by taking its topic over budget (its files'
    /// entries may have moved: see the report).
    pub compaction: Option<CompactionReport>,
}

impl StructuredMemory {
    /// Writes one fact (see the module docs), under the directory's lock, and returns once
    /// every file it touched is on disk and read back.
    ///
    /// Relative times in the text (`fixed it yesterday`, `on Monday`) are replaced by the
    /// day they meant, from the clock (see [`convert_relative_time`]), and reported in
    /// [`RememberOutcome::converted`].
    ///
    /// Refused with [`Error::InvalidInput`] (nothing written): a vague date or a vague time in
    /// the text (`last week`, `recently`), an empty or
    /// multi-paragraph text, a "misc" topic, a reserved file (`MEMORY.md`, the archive,
    /// Agent Memory's `index.md`), a path outside the directory, a new topic without a hook,
    /// a hook, title or subject with a line break or a control character (tabs aside), a
    /// frontmatter `description` (or `name`) that cannot be the new index line's hook (or
    /// title) for the same reasons or a secret — naming the topic file and the frontmatter
    /// line, and saying to give the hook; with [`Error::SecretRefused`] for a secret in any
    /// field given, the topic file's name included.
    ///
    /// ```
    /// use memory_core::structured_memory::{Fact, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = StructuredMemory::builder(dir.path()).fixed_time("2026-07-10T09:00:00Z").unwrap().open().unwrap();
    /// let first = memory.remember(Fact::new("memory-infra.md", "Postgres 15").subject("db").hook("hosts, databases")).unwrap();
    /// assert!(first.created_topic && first.linked && first.created_index);
    /// let second = memory.remember(Fact::new("memory-infra.md", "Postgres 16").subject("db")).unwrap();
    /// assert_eq!(second.replaced[0].text, "Postgres 15");
    /// let topic = memory.topic("memory-infra.md").unwrap();
    /// assert_eq!(topic.entries.len(), 1);
    /// assert_eq!(topic.entries[0].text, "Postgres 16");
    /// ```
    pub fn remember(&self, fact: Fact) -> Result<RememberOutcome> {
        self.remember_with(fact, &DefaultCompactor)
    }

    /// [`remember`](StructuredMemory::remember) with `compactor` making the judgment calls
    /// when the write takes the topic over its budget.
    ///
    /// ```
    /// use memory_core::structured_memory::{Budgets, DefaultCompactor, Fact, StructuredMemory};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [Infra](memory-infra.md) — hosts, databases\n").unwrap();
    /// std::fs::write(dir.path().join("memory-infra.md"),
    ///     "# Infra\n\n## Hosts\n- 2026-06-01: web1 runs nginx\n\n## Databases\n- 2026-06-02: db1 runs Postgres\n- 2026-06-03: db2 is its replica\n").unwrap();
    /// let memory = StructuredMemory::builder(dir.path()).budgets(Budgets::default().topic_lines(8)).open().unwrap();
    /// // The entry takes the file to 10 lines: the default splits the last section out.
    /// let out = memory.remember_with(Fact::new("memory-infra.md", "backups run nightly"), &DefaultCompactor).unwrap();
    /// let compaction = out.compaction.unwrap();
    /// assert_eq!(compaction.created, ["memory-infra-databases.md"]);
    /// assert!(out.budgets[0].lines <= 8);
    /// assert_eq!(memory.index().unwrap().lines.len(), 2);
    /// ```
    pub fn remember_with(&self, fact: Fact, compactor: &dyn Compactor) -> Result<RememberOutcome> {
        let file = fact
            .topic
            .strip_prefix("./")
            .unwrap_or(&fact.topic)
            .to_string();
        // Checked before anything is read (the path the write goes to is worked out under
        // the lock: see `resolve_topic_name`).
        self.topic_path(&file)?;
        // A name not portable or not visible as written (see `topic_name.rs`).
        check_new_topic_name(&file)?;
        refuse_misc(&file)?;
        // The name goes into MEMORY.md (the link, and the title when none is given).
        refuse_secrets("topic file", &file)?;
        let text = check_fact_text(&fact.text)?;
        let subject = fact.subject.as_deref().map(clean_subject).transpose()?;
        for (field, value) in [
            ("text", Some(text.as_str())),
            ("subject", subject.as_deref()),
        ] {
            if let Some(value) = value {
                refuse_secrets(field, value)?;
            }
        }
        let mut fact = fact;
        fact.section = fact.section.as_deref().map(clean_section).transpose()?;
        if let Some(section) = &fact.section {
            refuse_secrets("section", section)?;
            super::time_words::refuse_relative_in("section", section)?;
        }
        fact.title = fact
            .title
            .as_deref()
            .map(|t| check_given("title", t))
            .transpose()?
            .filter(|t| !t.is_empty());
        fact.hook = fact
            .hook
            .as_deref()
            .map(|h| check_given("hook", h))
            .transpose()?;
        fact.kind = fact.kind.as_deref().map(check_kind).transpose()?;
        if let Some(kind) = &fact.kind {
            refuse_secrets("type", kind)?;
        }
        let now = self.handle.clock.now();
        let today = now.date_naive();
        // "convert relative time to absolute at write time": in the text too.
        let (text, mut converted) = convert_relative_time(&text, today)?;
        let date = match &fact.date {
            Some(given) => resolve_date(given, today)?,
            None => day_the_text_names(&converted, today),
        };
        if let Some(given) = &fact.date
            && given.trim() != date.format("%Y-%m-%d").to_string()
        {
            converted.insert(
                0,
                Conversion {
                    field: "date",
                    from: given.clone(),
                    to: date.format("%Y-%m-%d").to_string(),
                },
            );
        }

        let input = CheckedFact {
            file,
            text,
            subject,
            date,
            now,
            converted,
            fact,
        };
        self.planned_write(|| self.plan_remember(&input, compactor))
    }

    /// The write of a checked fact, worked out from the files as they are (see
    /// [`StructuredMemory::planned_write`]).
    fn plan_remember(
        &self,
        input: &CheckedFact,
        compactor: &dyn Compactor,
    ) -> Result<Plan<RememberOutcome>> {
        let CheckedFact {
            file,
            text,
            subject,
            date,
            now,
            converted,
            fact,
        } = input.clone();
        let index_path = self.index_path()?;
        let old_index = self.load_index()?;
        // The index's spelling of the name wins (`user.md` for a linked `USER.md`), and an
        // existing file's for a new topic (`memory-infra.md` for an unlinked
        // `memory-Infra.md`): a second file that differs only in case would be an orphan on
        // a case-sensitive disk and the same file elsewhere (see `topic_case.rs`).
        let (file, topic_path) = self.resolve_topic_name(&file, old_index.as_ref())?;
        let old_topic = self.load_topic(&file)?;
        if let (Some(topic), Some(kind)) = (&old_topic, &fact.kind) {
            let has = topic.meta.as_ref().and_then(|m| m.kind.as_deref());
            if has != Some(kind.as_str()) {
                return Err(Error::invalid(
                    "type",
                    kind,
                    format!(
                        "{file} exists ({}): its frontmatter is kept as written; change its type there",
                        has.map_or("without a type".to_string(), |t| format!("its type is {t}"))
                    ),
                ));
            }
        }
        let archive_path = self.archive_path()?;
        let archive_text = read_text_if_exists(&archive_path)?;

        // The topic file's new text, in its own line ending; a new file takes the index's
        // (a directory Claude Code keeps in CRLF gets CRLF topics).
        let line_ending = match (&old_topic, &old_index) {
            (Some(t), _) => t.line_ending,
            (None, Some(index)) => index.line_ending,
            (None, None) => LineEnding::Lf,
        };
        let ending = line_ending.as_str();
        let entry_text = render_entry(date, subject.as_deref(), &text, ending);
        let key = subject.as_deref().map(subject_key);
        let same: Vec<&Entry> = old_topic
            .as_ref()
            .map(|t| {
                t.entries
                    .iter()
                    .filter(|e| same_subject(e, key.as_deref(), &text))
                    .collect()
            })
            .unwrap_or_default();
        let newest_live = same.iter().map(|e| e.date).max();
        let archived_as_older = newest_live.is_some_and(|d| d > date);
        let title = fact.title.clone().unwrap_or_else(|| title_from_file(&file));
        let (new_topic_text, replaced): (String, Vec<Entry>) = match &old_topic {
            // An older fact goes to the archive, and so does every generation older than
            // the newest live one: one entry per subject stays live, whichever is written.
            Some(topic) if archived_as_older => {
                let newest = same.iter().position(|e| Some(e.date) == newest_live);
                let stale: Vec<&Entry> = same
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| Some(*i) != newest)
                    .map(|(_, e)| *e)
                    .collect();
                (
                    remove_entries(&topic.text, &stale),
                    stale.into_iter().cloned().collect(),
                )
            }
            None => {
                let section = fact
                    .section
                    .as_ref()
                    .map(|s| format!("## {s}{ending}{ending}"))
                    .unwrap_or_default();
                // A directory whose topics keep frontmatter (Claude Code's) gets one
                // more such file; a new topic without a hook is refused further down.
                let hook = fact.hook.as_deref().filter(|h| !h.is_empty());
                let head = match hook {
                    Some(hook)
                        if fact.kind.is_some() || self.keeps_frontmatter(old_index.as_ref()) =>
                    {
                        let block =
                            new_topic_frontmatter(&title, hook, fact.kind.as_deref(), line_ending);
                        format!("{block}{ending}")
                    }
                    _ => format!("# {title}{ending}{ending}"),
                };
                (format!("{head}{section}{entry_text}"), Vec::new())
            }
            Some(topic) if same.is_empty() => (
                place_entry(topic, &entry_text, fact.section.as_deref()),
                Vec::new(),
            ),
            // Named a section the entry it replaces is not under: it moves there.
            Some(topic)
                if fact.section.as_deref().is_some_and(|want| {
                    section_of(topic, same[0].span.start).is_none_or(|has| !same_title(&has, want))
                }) =>
            {
                let without = Topic::parse(file.clone(), remove_entries(&topic.text, &same))?;
                (
                    place_entry(&without, &entry_text, fact.section.as_deref()),
                    same.iter().map(|e| (*e).clone()).collect(),
                )
            }
            Some(topic) => (
                replace_entries(&topic.text, &same, &entry_text),
                same.iter().map(|e| (*e).clone()).collect(),
            ),
        };

        // The index's new text.
        let linked_line = old_index.as_ref().and_then(|i| i.line_for(&file)).cloned();
        let mut index_text = old_index.as_ref().map(|i| i.text.clone());
        let mut linked = false;
        // The title and hook a rewritten index line must read back with.
        let mut edited_line: Option<(String, String)> = None;
        let created_index = old_index.is_none();
        match &linked_line {
            None => {
                // Given, or the topic's frontmatter `description`, checked as a given one.
                let hook = match fact.hook.clone().filter(|h| !h.is_empty()) {
                    Some(hook) => Some(hook),
                    None => match &old_topic {
                        Some(t) => from_frontmatter(t, "description", "hook", "a hook (--hook)")?,
                        None => None,
                    },
                }
                .ok_or_else(|| {
                    // A frontmatter that does not read may hold the description the
                    // caller meant: say where, and why it was not found.
                    let unread = old_topic
                        .as_ref()
                        .and_then(|t| {
                            let (line, message, read) = match &t.frontmatter_not_yaml {
                                Some(n) => (n.line, n.message.clone(), "no `description:` line was found in it"),
                                None => {
                                    let issue = super::leading_block::broken_flow_block(&t.text)?;
                                    (issue.line, issue.message, "so the block is read as Markdown, not as frontmatter")
                                }
                            };
                            Some(format!(
                                " ({file}:{line}: its frontmatter does not read as YAML or JSON ({message}): {read})"
                            ))
                        })
                        .unwrap_or_default();
                    Error::invalid(
                        "hook",
                        "",
                        format!(
                            "{file} has no line in MEMORY.md yet: give the hook that says when to load it{unread}"
                        ),
                    )
                })?;
                let title = match (&fact.title, &old_topic) {
                    (Some(t), _) => t.clone(),
                    (None, Some(t)) => from_frontmatter(t, "name", "title", "a title (--title)")?
                        .unwrap_or_else(|| title.clone()),
                    (None, None) => title.clone(),
                };
                // A new index line with a catch-all title or hook is a "misc" topic
                // whatever its file is named (see `catch_all.rs`).
                refuse_misc_field("title", &title, &file)?;
                refuse_misc_field("hook", &hook, &file)?;
                check_reads_back(&title, &file, &hook)?;
                let pointer = render_pointer(&title, &file, &hook);
                index_text = Some(append_line(index_text.as_deref(), &pointer));
                linked = true;
            }
            Some(line) => {
                // A new hook or title replaces exactly the one the line has, in whatever
                // form the line is written (see `pointer_edit.rs`). An empty hook keeps
                // the line's hook (it never clears it).
                let hook = fact
                    .hook
                    .as_deref()
                    .map(str::trim)
                    .filter(|h| !h.is_empty() && *h != line.hook);
                let new_title = fact.title.as_deref().filter(|t| *t != line.title);
                if (hook.is_some() || new_title.is_some())
                    && let Some(index) = &old_index
                {
                    // A title or hook changed to a catch-all one (the one kept as it is
                    // is `check`'s to report).
                    if let Some(title) = new_title {
                        refuse_misc_field("title", title, &line.file)?;
                    }
                    if let Some(hook) = hook {
                        refuse_misc_field("hook", hook, &line.file)?;
                    }
                    let want_title = new_title.unwrap_or(&line.title);
                    let want_hook = hook.unwrap_or(&line.hook);
                    check_reads_back(want_title, &line.file, want_hook)?;
                    index_text = Some(rewrite_index_line(index, line.line, new_title, hook)?);
                    edited_line = Some((want_title.to_string(), want_hook.to_string()));
                }
            }
        }

        // The archive's addition (the id is shared with a compaction the write triggers).
        let topic_text = old_topic.as_ref().map_or("", |t| t.text.as_str());
        let mut to_archive: Vec<String> = replaced
            .iter()
            .map(|e| topic_text[e.span.clone()].to_string())
            .collect();
        if archived_as_older {
            to_archive.push(entry_text.clone());
        }
        let utc = now.with_timezone(&Utc);
        let at = utc.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let id = next_id(archive_text.as_deref(), &utc.format("%Y%m%d").to_string());
        let mut archive_add = String::new();
        if !to_archive.is_empty() {
            let lines: Vec<&str> = to_archive.iter().flat_map(|t| t.lines()).collect();
            archive_add = render_section(&id, ArchivePass::Merge, &file, &at, &lines);
        }

        // Checked before anything is written: every new text reads back with the reader
        // every command uses, and says what it must.
        let new_topic = Topic::read(&topic_path, file.clone(), new_topic_text.clone())?;
        if old_topic.is_none() {
            check_new_frontmatter(
                &new_topic,
                &title,
                fact.hook.as_deref(),
                fact.kind.as_deref(),
            )?;
        }
        let entry = expect_entry(
            &new_topic,
            date,
            subject.as_deref(),
            &text,
            archived_as_older,
            newest_live,
        )?;
        // Under the section named, or (a new entry, no section named) under none.
        if !archived_as_older {
            let under = section_of(&new_topic, entry.span.start);
            let placed = match (&fact.section, &under) {
                (Some(want), Some(has)) => same_title(want, has),
                (Some(_), None) => false,
                (None, _) => !replaced.is_empty() || under.is_none(),
            };
            if !placed {
                return Err(Error::invalid(
                    "section",
                    fact.section.as_deref().unwrap_or(""),
                    format!(
                        "the entry would not read back under it in {file} (under {}); nothing was written",
                        under.map_or("no section".to_string(), |s| format!("`## {s}`"))
                    ),
                ));
            }
        }
        let kept = old_topic.as_ref().map_or(0, |t| t.entries.len()) - replaced.len();
        let expected_entries = kept + usize::from(!archived_as_older);
        if new_topic.entries.len() != expected_entries {
            return Err(Error::invalid(
                "text",
                &text,
                format!(
                    "would change how {file} reads ({} instead of {expected_entries}); nothing was written",
                    crate::plural::count(new_topic.entries.len(), "entry", "entries")
                ),
            ));
        }
        let new_index = match &index_text {
            Some(t) => Some(MemoryIndex::parse(&index_path, t.clone())?),
            None => None,
        };
        // The new index reads as the old one plus the line added (a value that split the
        // line or held a second pointer would read as more lines, or as content).
        let count =
            |i: Option<&MemoryIndex>| i.map_or((0, 0), |i| (i.lines.len(), i.content.len()));
        let (old_lines, old_content) = count(old_index.as_ref());
        let (new_lines, new_content) = count(new_index.as_ref());
        let reads_as_edited = |l: &IndexLine| {
            edited_line
                .as_ref()
                .is_none_or(|(title, hook)| l.title == *title && l.hook == *hook)
        };
        if let Some(index) = &new_index
            && (!index.line_for(&file).is_some_and(reads_as_edited)
                || new_lines != old_lines + usize::from(linked)
                || new_content != old_content)
        {
            return Err(Error::invalid(
                "topic file",
                &file,
                "its index line would not read back; nothing was written",
            ));
        }

        // The budget trigger and the index pass, in the same step (so that a crash
        // leaves the old state or the compacted one): see `remember_compaction.rs`.
        let step = self.compact_written(
            Written {
                file: &file,
                path: &topic_path,
                old_topic: old_topic.as_ref(),
                new_topic: &new_topic,
                old_index: old_index.as_ref(),
                index_text,
                new_index: &new_index,
                archive_add,
                id: &id,
                at: &at,
            },
            compactor,
        )?;

        let mut changes = Vec::new();
        for (path, text) in &step.writes {
            changes.push(Change::Write(path.clone(), text.clone()));
        }
        for path in &step.removals {
            changes.push(Change::Remove(path.clone()));
        }
        if let Some(text) = &step.index_text {
            changes.push(Change::Write(index_path.clone(), text.clone()));
        }
        let archive_id = (!step.archive_add.is_empty()).then(|| id.clone());
        match &archive_text {
            _ if step.archive_add.is_empty() => {}
            Some(old) => {
                changes.push(Change::Append(
                    archive_path.clone(),
                    old.len() as u64,
                    super::archive::addition_to(old, &step.archive_add),
                ));
            }
            None => {
                changes.push(Change::Write(
                    archive_path.clone(),
                    format!("{ARCHIVE_HEADER}{}", step.archive_add),
                ));
            }
        }
        let mut basis = vec![
            (
                index_path.clone(),
                old_index.as_ref().map(|i| i.text.clone()),
            ),
            (
                topic_path.clone(),
                old_topic.as_ref().map(|t| t.text.clone()),
            ),
            (archive_path.clone(), archive_text.clone()),
        ];
        for path in step.writes.iter().map(|(p, _)| p).chain(&step.removals) {
            if !basis.iter().any(|(b, _)| b == path) {
                basis.push((path.clone(), read_text_if_exists(path)?));
            }
        }

        // Where the entry lives now (a split or a merge of topics may have moved it),
        // and the budget use of every file the step touched.
        let find = |t: &Topic| {
            expect_entry(
                t,
                date,
                subject.as_deref(),
                &text,
                archived_as_older,
                newest_live,
            )
            .ok()
        };
        let (file, entry, budgets) =
            self.settle(&step, (&file, old_topic.as_ref(), &new_topic, entry), &find)?;
        let compaction = step.compaction;
        let mut warnings: Vec<String> = budgets
            .iter()
            .filter(|b| b.state != BudgetState::Within)
            .filter_map(BudgetUse::warning)
            .collect();
        // `MEMORY.md` near or over its budget is said on every write, not only on one
        // that changes it: the index was read anyway, and it is what every session loads.
        if step.index_text.is_none()
            && let Some(index) = &old_index
        {
            let usage =
                self.budgets
                    .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
            warnings.extend(usage.warning());
        }
        // A line added after a comment left open in MEMORY.md reads for memory-core and
        // every agent, but Obsidian hides it: said, naming the line to close.
        if let Some(text) = step
            .index_text
            .as_deref()
            .filter(|_| linked && !step.emptied)
            && let Some(comment) = super::index_comments::unclosed_comment(text)
        {
            warnings.push(format!(
                "{INDEX_FILE_NAME}:{}: a `{}` opened there is never closed, so Obsidian hides the line this write added for {file} (and every line after it); close it",
                comment.line, comment.opener
            ));
        }
        // A new index line a session cannot tell from an earlier one: said at once (as
        // `check` would report it), naming the line it nearly duplicates.
        if let Some(text) = step
            .index_text
            .as_deref()
            .filter(|_| linked && !step.emptied)
            && let Ok(index) = MemoryIndex::parse(&index_path, text)
            && let Some(pair) = super::check_near_duplicates::near_duplicate_pairs(&index)
                .into_iter()
                .find(|p| {
                    super::topic_name::name_key(&p.later.file) == super::topic_name::name_key(&file)
                })
        {
            warnings.push(format!(
                "{INDEX_FILE_NAME}:{}: the line this write added for {file} has {}the title and hook of {} (line {}): a session can hardly tell them apart; merge them, or give this one a hook that says what sets it apart",
                pair.later.line,
                if pair.same_words { "" } else { "nearly " },
                pair.earlier.file,
                pair.earlier.line
            ));
        }
        // A replaced entry someone wrote a secret into goes to the archive like any
        // other (nothing is dropped): said, so that it is removed there and rotated.
        if let Some(found) = replaced.iter().find_map(|e| {
            crate::hygiene::find_secret(&e.text)
                .or_else(|| e.subject.as_deref().and_then(crate::hygiene::find_secret))
        }) {
            warnings.push(format!(
                "the entry this write replaced held what looks like a secret ({}); it is now in {ARCHIVE_FILE_NAME}, which memory-core only appends to: remove it there by hand, and rotate it",
                found.kind
            ));
        }
        let outcome = RememberOutcome {
            file,
            entry,
            converted,
            created_topic: old_topic.is_none() && !step.emptied,
            linked: linked && !step.emptied,
            created_index,
            replaced,
            archived_as_older,
            archive_id,
            compaction,
            budgets,
            warnings,
        };
        Ok(Plan {
            changes,
            basis,
            outcome,
        })
    }
}

/// The day a fact without a given date is about: the one day before today (or today)
/// its text's relative words named (`the deploy broke two days ago` is about two days
/// ago, so that merge on write ranks it by when it happened, not when it was written
/// down), else today — also when they named several days, or one still to come.
fn day_the_text_names(converted: &[Conversion], today: NaiveDate) -> NaiveDate {
    let named: std::collections::BTreeSet<NaiveDate> = converted
        .iter()
        .filter_map(|c| NaiveDate::parse_from_str(&c.to, "%Y-%m-%d").ok())
        .collect();
    match (named.first(), named.len()) {
        (Some(&only), 1) if only <= today => only,
        _ => today,
    }
}

/// A fact whose fields are checked, its date and text converted: what a write plans from.
#[derive(Clone)]
struct CheckedFact {
    file: String,
    text: String,
    subject: Option<String>,
    date: NaiveDate,
    now: chrono::DateTime<chrono::FixedOffset>,
    converted: Vec<Conversion>,
    fact: Fact,
}

/// The fact's text, trimmed: not empty, not only an HTML comment (it would render as
/// nothing), no blank line inside (it would end the entry), no control characters but
/// tabs (a CRLF line break, as Windows input has it, is a line break), within the body
/// limit.
pub(super) fn check_fact_text(text: &str) -> Result<String> {
    let unified = text.replace("\r\n", "\n");
    let text = unified.trim();
    if text.is_empty() {
        return Err(Error::invalid("text", text, "must not be empty"));
    }
    if text.len() > MAX_BODY_BYTES {
        return Err(Error::TextTooLarge {
            field: "text".to_string(),
            bytes: text.len(),
            limit: MAX_BODY_BYTES,
        });
    }
    if text.contains('\r')
        || text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(Error::invalid(
            "text",
            text,
            "must not hold carriage returns or control characters",
        ));
    }
    if let Some(why) = super::visible::hazard_problem(text) {
        return Err(Error::invalid("text", text, why));
    }
    // Only an HTML comment: the entry would show as its date alone, its text seen by the
    // sessions that load the raw file but by no person reading it (as a hook or title).
    if super::visible::renders_empty(text) {
        return Err(Error::invalid(
            "text",
            text,
            "renders as nothing (only an HTML comment): the fact must say something a reader sees",
        ));
    }
    if text.lines().any(|l| l.trim().is_empty()) {
        return Err(Error::invalid(
            "text",
            text,
            "is one fact: no blank lines (write two facts as two entries)",
        ));
    }
    // Obsidian opens a comment at any `%%` and closes it at the next: an odd number would
    // hide every entry written after this one there (memory-core's reader, like CommonMark,
    // does not take `%%` inside a list item for a comment).
    if text.matches("%%").count() % 2 == 1 {
        return Err(Error::invalid(
            "text",
            text,
            "holds a `%%` that is never closed: Obsidian would hide every entry after it (write `%` alone, or close it with a second `%%`)",
        ));
    }
    // Lines after the first are written indented under the entry, their own indentation
    // kept (a nested list, an indented continuation): the reader removes the entry's
    // indentation only. White space at a line's end is not kept (Markdown drops it).
    let text = text
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    // The first line is the entry's own line (`- date: first line`): a fence there is text,
    // so its closing line would open a fence that runs to the entry's end instead.
    if crate::markdown::block_start(text.lines().next().unwrap_or(""))
        == Some(crate::markdown::BlockStart::Fence)
    {
        return Err(Error::invalid(
            "text",
            &text,
            "starts with a code fence, but a fact's first line is its entry's line and cannot open one (put a line of text before the fence)",
        ));
    }
    // Written as an entry with another after it, it must read back as itself and leave the
    // next entry readable: a fence, comment or HTML block it opens and never closes would
    // hide every entry written after it (the topic could take no further write).
    let probe = format!(
        "{}- 2000-01-01: next\n",
        render_entry(NaiveDate::default(), None, &text, "\n")
    );
    let probed = Topic::parse("probe.md", probe);
    // A fence left open reads as CommonMark says (it ends with the entry), but other
    // Markdown tools run it on over the entries after it: memory-core never writes one.
    let hides_next = matches!(
        crate::markdown::classify(&text).unclosed,
        Some((_, crate::markdown::Context::Fence))
    ) || probed.as_ref().map_or(true, |t| {
        t.entries.len() != 2 || t.entries[1].text != "next"
    });
    if hides_next {
        return Err(Error::invalid(
            "text",
            &text,
            "would not read back as one entry (a fence, comment or HTML block it opens and never closes would hide the entries after it)",
        ));
    }
    if probed.is_ok_and(|t| t.entries[0].text != text) {
        return Err(Error::invalid(
            "text",
            &text,
            "would not read back as itself: a line of it would read as a heading, a fence, a quote or an HTML block, not as part of the entry (write the fact as plain lines)",
        ));
    }
    Ok(text)
}

/// A subject, trimmed: one line, no brackets, at most [`MAX_SUBJECT_CHARS`], no relative
/// time (`yesterday's outage`).
pub(super) fn clean_subject(subject: &str) -> Result<String> {
    let s = subject.trim();
    if s.is_empty() {
        return Err(Error::invalid("subject", subject, "must not be empty"));
    }
    if let Some(why) = subject_problem(s).or_else(|| super::visible::hazard_problem(s)) {
        return Err(Error::invalid("subject", subject, why));
    }
    if s.chars().count() > MAX_SUBJECT_CHARS {
        return Err(Error::invalid(
            "subject",
            subject,
            format!("must be at most {MAX_SUBJECT_CHARS} characters"),
        ));
    }
    // The merge key for good: a relative time in it is never converted.
    super::time_words::refuse_relative_in("subject", s)?;
    Ok(s.to_string())
}

/// What makes `s` (trimmed) unfit to be written as `[subject]`, in plain words: the first
/// character it may not hold, named and placed (a subject is one line of words, written
/// between brackets in the entry).
fn subject_problem(s: &str) -> Option<String> {
    let (at, c) = s
        .chars()
        .enumerate()
        .find(|(_, c)| matches!(c, '[' | ']') || c.is_control())?;
    let what = match c {
        '\t' => "a tab".to_string(),
        '\n' | '\r' => "a line break".to_string(),
        '[' | ']' => format!("a bracket `{c}`"),
        c => format!("a control character (U+{:04X})", u32::from(c)),
    };
    let fix = match c {
        '[' | ']' => {
            "the entry writes the subject between brackets (`- 2026-07-10 [subject]: …`), so it cannot hold one"
        }
        _ => "a subject is one line of words: use spaces instead",
    };
    Some(format!("holds {what} at character {}: {fix}", at + 1))
}

/// Whether `entry` is about the same subject as a fact with subject key `key` and text
/// `text`: the same subject key, or (neither naming one) the same text.
fn same_subject(entry: &Entry, key: Option<&str>, text: &str) -> bool {
    match (key, entry.subject.as_deref()) {
        (Some(key), Some(subject)) => subject_key(subject) == key,
        (None, None) => normalized(&entry.text) == normalized(text),
        _ => false,
    }
}

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// An entry's lines: `- YYYY-MM-DD [subject]: first line`, then the other lines indented
/// by two more spaces than they have, each ended with `ending`.
pub(super) fn render_entry(
    date: NaiveDate,
    subject: Option<&str>,
    text: &str,
    ending: &str,
) -> String {
    let mut out = format!("- {}", date.format("%Y-%m-%d"));
    if let Some(s) = subject {
        out.push_str(" [");
        out.push_str(s);
        out.push(']');
    }
    out.push_str(": ");
    let mut lines = text.lines();
    out.push_str(lines.next().unwrap_or(""));
    out.push_str(ending);
    for line in lines {
        out.push_str("  ");
        out.push_str(line);
        out.push_str(ending);
    }
    out
}

/// `text` with the first of `same` replaced by `entry` and the others removed.
fn replace_entries(text: &str, same: &[&Entry], entry: &str) -> String {
    let mut out = String::with_capacity(text.len() + entry.len());
    let mut at = 0;
    for (i, e) in same.iter().enumerate() {
        out.push_str(&text[at..e.span.start]);
        if i == 0 {
            out.push_str(entry);
            // The old entry's last line may have had no terminator (end of file).
            if !text[e.span.clone()].ends_with('\n') {
                let trimmed = out.trim_end_matches(['\r', '\n']).len();
                out.truncate(trimmed);
            }
        }
        at = e.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` without the entries `gone` (in file order).
pub(super) fn remove_entries(text: &str, gone: &[&Entry]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in gone {
        out.push_str(&text[at..e.span.start]);
        at = e.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `index` (or a new index) with `line` added after its last line. An index that is
/// empty but for a byte-order mark gets the line right after the mark.
fn append_line(index: Option<&str>, line: &str) -> String {
    match index {
        None => format!("{INDEX_HEADER}\n{line}\n"),
        Some(text) => {
            let ending = LineEnding::detect(text).as_str();
            let mut out = text.to_string();
            let content = out.strip_prefix('\u{feff}').unwrap_or(&out);
            if !content.is_empty() && !content.ends_with('\n') {
                out.push_str(ending);
            }
            out.push_str(line);
            out.push_str(ending);
            out
        }
    }
}

/// A title from a topic file's name: `memory-project-x.md` → `Project x`.
fn title_from_file(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = &name[..name.len().saturating_sub(3)];
    let stem = stem.strip_prefix("memory-").unwrap_or(stem);
    let words = stem.replace(['-', '_'], " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => name.to_string(),
    }
}

/// The entry the write must leave: the new one (or, when the fact was older, the live
/// one about its subject), read back from the new text.
fn expect_entry(
    topic: &Topic,
    date: NaiveDate,
    subject: Option<&str>,
    text: &str,
    archived_as_older: bool,
    newest_live: Option<NaiveDate>,
) -> Result<Entry> {
    let key = subject.map(subject_key);
    let found = topic.entries.iter().find(|e| {
        if archived_as_older {
            Some(e.date) == newest_live && same_subject(e, key.as_deref(), text)
        } else {
            e.date == date && e.subject.as_deref() == subject && e.text == text
        }
    });
    found.cloned().ok_or_else(|| {
        Error::invalid(
            "text",
            text,
            "would not read back as one entry with this date, subject and text; nothing was written",
        )
    })
}

#[cfg(test)]
mod tests {

    /// Every character a subject may not hold is named, with where it is and why, in
    /// plain words: never "must be one line without brackets" for a tab.
    #[test]
    fn a_refused_subject_says_what_is_wrong_and_where() {
        for (subject, what, at) in [
            ("deploy\thook", "a tab", 7),
            ("\tdeploy\thook", "a tab", 7),
            ("deploy\nhook", "a line break", 7),
            ("deploy\r\nhook", "a line break", 7),
            ("deploy [hook]", "a bracket `[`", 8),
            ("deploy]", "a bracket `]`", 7),
            ("dé\u{7}ploy", "a control character (U+0007)", 3),
            ("a\u{85}b", "a control character (U+0085)", 2),
            ("a\u{0}b", "a control character (U+0000)", 2),
        ] {
            let err = clean_subject(subject).unwrap_err();
            let text = err.to_string();
            assert!(
                text.contains(&format!("holds {what} at character {at}")),
                "{subject:?}: {text}"
            );
            assert!(
                !text.contains("must be one line without brackets"),
                "{text}"
            );
        }
        assert_eq!(clean_subject("  deploy hook ").unwrap(), "deploy hook");
    }

    use super::*;

    #[test]
    fn titles_from_file_names() {
        assert_eq!(title_from_file("memory-project-x.md"), "Project x");
        assert_eq!(title_from_file("USER.md"), "USER");
        assert_eq!(title_from_file("topics/infra_hosts.md"), "Infra hosts");
    }

    #[test]
    fn a_text_that_would_hide_later_entries_is_refused() {
        // A fence or comment left open is no fact's text: a comment would hide the next
        // entry, and a fence (which CommonMark ends with the entry) is misread by other
        // Markdown tools; memory-core writes neither.
        for text in ["x\n```", "x\n~~~rust", "x\n%%", "x\n<!-- open"] {
            assert!(check_fact_text(text).is_err(), "{text:?}");
        }
        // Whatever else is accepted reads back with the next entry intact (checked inside).
        for text in [
            "uses `code` inline",
            "a <!-- closed --> comment",
            "x <!-- mid-line",
            "a\nb",
            // A closed fence is indented under the entry: it is the entry's, as Markdown reads it.
            "x\n```\ncode\n```",
        ] {
            assert!(check_fact_text(text).is_ok(), "{text:?}");
        }
    }

    #[test]
    fn texts_are_one_fact() {
        // The text's ends and each line's end are trimmed; a line's indentation is kept.
        assert_eq!(check_fact_text("  a\n  b  ").unwrap(), "a\n  b");
        assert!(check_fact_text("a\n\nb").is_err());
        assert!(check_fact_text("   ").is_err());
        assert!(check_fact_text("a\rb").is_err());
        assert!(check_fact_text("a\u{7}").is_err());
    }

    #[test]
    fn an_index_line_follows_a_lone_byte_order_mark_directly() {
        let line = "- [A](a.md) — hook";
        assert_eq!(
            append_line(Some("\u{feff}"), line),
            "\u{feff}- [A](a.md) — hook\n"
        );
        assert_eq!(append_line(Some(""), line), "- [A](a.md) — hook\n");
        assert_eq!(
            append_line(Some("\u{feff}# Index"), line),
            "\u{feff}# Index\n- [A](a.md) — hook\n"
        );
        assert_eq!(
            append_line(Some("\u{feff}# Index\r\n"), line),
            "\u{feff}# Index\r\n- [A](a.md) — hook\r\n"
        );
    }

    #[test]
    fn entries_render_in_the_file_s_line_ending() {
        let d = NaiveDate::from_ymd_opt(2026, 7, 10).unwrap();
        assert_eq!(
            render_entry(d, Some("db"), "a\nb", "\r\n"),
            "- 2026-07-10 [db]: a\r\n  b\r\n"
        );
    }
}
