//! The seed's write protocol: the entity file and its `_index.md` row as one step under
//! the lock, after the duplicate check, with the next sequential short id.

use serde::Serialize;

use super::entity::Entry;
use super::entity_file::{EntityFile, render_new};
use super::entry::{DUPLICATE_THRESHOLD, NewEntry, summary_similarity};
use super::heal::row_of;
use super::index_file::IndexFile;
use super::memory::ContextMemory;
use super::names::{EntityName, entity_file_name, next_short_id, sequence_of, slug_of};
use super::namespaces::SPLIT_THRESHOLD;
use crate::durable::Transaction;
use crate::error::{Error, Result};
use crate::hygiene::{BodyFlags, refuse_secrets, screen_body};

/// What a write did.
///
/// ```
/// # use memory_core::context_memory::WriteOutcome;
/// fn warn(outcome: &WriteOutcome) -> Option<String> {
///     outcome.over_threshold.then(|| format!("{} has {} entries: split it", outcome.entry.namespace, outcome.namespace_entries))
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct WriteOutcome {
    /// The entry as written and read back.
    pub entry: Entry,
    /// How many entries the namespace's index lists after the write.
    pub namespace_entries: usize,
    /// Whether the namespace now has more than [`SPLIT_THRESHOLD`] entries (the seed:
    /// split it by domain).
    pub over_threshold: bool,
    /// What the body check flagged (more than three sentences, long lines, code dumps):
    /// written, but worth a look — the seed wants 1–3 sentences and no code dumps.
    pub body: BodyFlags,
}

impl ContextMemory {
    /// Writes a new entry (the seed's write protocol, steps 1–6): under the lock, the
    /// namespace's directory and `_index.md` are made when missing (a drifted index is
    /// healed first; one that does not read refuses the write, naming its line, and
    /// nothing is written), an entry of the same category with a similar summary refuses
    /// the write with [`Error::SimilarEntry`] naming it (unless `force_new`), the short id is
    /// the next number of the category (or the given slug), and the entity file and its
    /// row are written as one step, both read back.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::builder(dir.path()).fixed_time("2026-04-03T10:00:00Z").unwrap().open().unwrap();
    /// let first = memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
    /// assert_eq!(first.entry.entity_name.as_str(), "org.global.decision.001");
    /// assert_eq!(first.entry.file, std::path::Path::new("org/global/decision-001-auth-uses-jwt.md"));
    /// let again = memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "jwt"], "Auth uses JWT!").unwrap());
    /// assert_eq!(again.unwrap_err().kind(), memory_core::ErrorKind::Conflict);
    /// ```
    pub fn write(&self, new: NewEntry) -> Result<WriteOutcome> {
        new.validate()?;
        let body = screen(&new)?;
        let lock = self.handle.lock()?;
        if !new.supersedes.is_empty() {
            // What it supersedes is marked superseded in the same step (else both would
            // stay in force).
            let (written, _) = self.supersede_all_locked(&lock, &new)?;
            return Ok(written.outcome(body));
        }
        let index = self.settled_index(&new.namespace, &lock)?;
        let prepared = self.prepare_write(&new, index)?;
        let mut tx = Transaction::new(&lock);
        prepared.stage(&mut tx);
        tx.commit()?;
        Ok(prepared.outcome(body))
    }

    /// Everything [`ContextMemory::write`] checks and builds, short of writing: the new
    /// entity file's text (parsed back by the reader) and the new index (checked by its
    /// reader). `index` is the namespace's index as it stands (it may already hold other
    /// changes of the same step, as in a supersession).
    pub(super) fn prepare_write(&self, new: &NewEntry, index: IndexFile) -> Result<PreparedWrite> {
        let namespace = new.namespace.clone();
        let summary = new.index_summary();
        if !new.force_new {
            refuse_similar(&index, new, &summary)?;
        }
        for target in new.supersedes.iter().chain(&new.related_entities) {
            self.require_entity(target)?;
        }
        let listing = self.list_dir(&namespace)?;
        let short_id = match &new.slug {
            Some(slug) => slug.clone(),
            None => next_short_id(
                used_sequences(&index, &listing, new).chain(self.retired_sequences(new)?),
            ),
        };
        let name = EntityName::new(&namespace, new.category, &short_id)?;
        if index.rows.iter().any(|r| r.entity == name) {
            return Err(Error::EntityExists {
                name: name.to_string(),
                path: index.path.clone(),
            });
        }
        let file = entity_file_name(new.category, &short_id, &slug_of(&summary));
        if listing.contains(&file) {
            return Err(Error::EntityExists {
                name: name.to_string(),
                path: self.file_in(&namespace, &file)?,
            });
        }
        let created_at = self.utc_now();
        let text = render_new(&name, new, &created_at);
        let path = self.file_in(&namespace, &file)?;
        let rel = namespace.dir().join(&file);
        // The checked writer: the new file must read back with the reader every command
        // uses, as the entry it is meant to be.
        let written =
            EntityFile::parse(&path, rel, text.clone(), &namespace, Some(summary.clone()))
                .map_err(|e| Error::unreadable_result(&path, e))?;
        let row = row_of(&written.entry, &file, Some(summary));
        let new_index = index.prepare(vec![index.append(&row), index.touch(&created_at)])?;
        if !new_index
            .rows
            .iter()
            .any(|r| r.entity == name && r.file == file)
        {
            return Err(Error::verify(
                &new_index.path,
                format!("row {name} is missing from the new index"),
            ));
        }
        Ok(PreparedWrite {
            path,
            text,
            entry: written.entry,
            index: new_index,
        })
    }

    /// Numbers of `new.category` a name of `new.namespace` once carried and that must
    /// not be given again, so that an old name never resolves to an unrelated entry:
    /// those of entries a split moved into the namespace's domains (`get` of the old name
    /// says where each went), and, for `session.current`, those of entries `end_session`
    /// moved to `archive/session-*/`. In a domain (`project.app.auth`) also the numbers
    /// its project namespaces hold: a later split moves those entries into the domain
    /// under the same number, which must then be free.
    fn retired_sequences(&self, new: &NewEntry) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        for info in self.namespaces()? {
            let inside = info.namespace.is_within(&new.namespace);
            let above = new.namespace.is_within(&info.namespace)
                && info.namespace.kind() == super::namespace::NamespaceKind::Project;
            if info.namespace != new.namespace && (inside || above) {
                let index = self.load_index(&info.namespace)?;
                out.extend(
                    index
                        .rows
                        .iter()
                        .filter(|r| r.category == new.category)
                        .filter_map(|r| r.entity.sequence()),
                );
            }
        }
        if new.namespace == super::namespace::Namespace::session_current() {
            let archive = self.root().join("archive");
            let prefix = format!("{}-", new.category);
            for dir in read_dir_names(&archive)?
                .into_iter()
                .filter(|d| d.starts_with("session-"))
            {
                for file in read_dir_names(&archive.join(&dir))? {
                    if let Some(rest) = file.strip_prefix(&prefix) {
                        let digits: String =
                            rest.chars().take_while(char::is_ascii_digit).collect();
                        out.extend(sequence_of(&digits));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Fails with [`Error::EntityNotFound`] unless `name` has a row in its index.
    pub(super) fn require_entity(&self, name: &EntityName) -> Result<()> {
        let index = self.load_index(name.namespace())?;
        if index.rows.iter().any(|r| &r.entity == name) {
            Ok(())
        } else {
            Err(Error::EntityNotFound {
                name: name.to_string(),
                path: index.path,
                moved_to: None,
            })
        }
    }
}

/// A checked new entity file and the index that lists it, ready to be staged.
pub(crate) struct PreparedWrite {
    pub path: std::path::PathBuf,
    pub text: String,
    pub entry: Entry,
    pub index: IndexFile,
}

impl PreparedWrite {
    /// Stages the entity file (new: the commit depends on no file having appeared there
    /// meanwhile) and its index (against what was read of it) into `tx`.
    pub fn stage(&self, tx: &mut Transaction<'_>) {
        tx.write_over(self.path.clone(), None, self.text.clone().into_bytes());
        self.index.stage(tx);
    }

    /// The outcome of the write once committed.
    pub fn outcome(self, body: BodyFlags) -> WriteOutcome {
        let entries = self.index.rows.len();
        WriteOutcome {
            entry: self.entry,
            namespace_entries: entries,
            over_threshold: entries > SPLIT_THRESHOLD,
            body,
        }
    }
}

/// The seed's "Do NOT store": every text field is screened for secrets (the one pattern
/// set every model uses) before anything is read or written, and the body for its size
/// (refused past `hygiene::MAX_BODY_BYTES`, flagged past 1–3 sentences or with code dumps).
pub(super) fn screen(new: &NewEntry) -> Result<BodyFlags> {
    let body = screen_body("body", &new.body)?;
    let fields = [
        ("summary", new.summary.as_deref()),
        ("rationale", new.rationale.as_deref()),
        ("source_path", new.source_path.as_deref()),
        ("slug", new.slug.as_deref()),
    ];
    for (field, value) in fields {
        if let Some(value) = value {
            refuse_secrets(field, value)?;
        }
    }
    for tag in &new.tags {
        refuse_secrets("tags", tag)?;
    }
    if let Some(d) = &new.diagram {
        refuse_secrets("diagram_subject", &d.subject)?;
        refuse_secrets("diagram_type", &d.diagram_type)?;
        refuse_secrets("diagram_code", &d.code)?;
    }
    Ok(body)
}

/// An entry of the same category, in force, whose summary is at least
/// [`DUPLICATE_THRESHOLD`] alike: [`Error::SimilarEntry`].
fn refuse_similar(index: &IndexFile, new: &NewEntry, summary: &str) -> Result<()> {
    let best = index
        .rows
        .iter()
        .filter(|r| r.category == new.category && !r.status.is_history())
        .filter(|r| !new.supersedes.contains(&r.entity))
        .map(|r| (r, summary_similarity(&r.summary, summary)))
        .filter(|(_, s)| *s >= DUPLICATE_THRESHOLD)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((row, similarity)) => Err(Error::SimilarEntry {
            existing: row.entity.to_string(),
            path: index.path.clone(),
            line: row.line,
            similarity,
        }),
        None => Ok(()),
    }
}

/// The sequence numbers a new entry of `new.category` must come after: those of the
/// index's rows, and those of entity files named `{category}-{NNN}…` (a hand-added or
/// unreadable file keeps its number).
fn used_sequences<'a>(
    index: &'a IndexFile,
    listing: &'a std::collections::BTreeSet<String>,
    new: &'a NewEntry,
) -> impl Iterator<Item = u64> + 'a {
    let prefix = format!("{}-", new.category);
    let from_rows = index
        .rows
        .iter()
        .filter(move |r| r.category == new.category)
        .filter_map(|r| r.entity.sequence());
    let from_files = listing.iter().filter_map(move |name| {
        let rest = name.strip_prefix(&prefix)?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        sequence_of(&digits)
    });
    from_rows.chain(from_files)
}

/// The names in directory `dir` (none when it does not exist).
fn read_dir_names(dir: &std::path::Path) -> Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io_op(dir, "scandir", e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io_op(dir, "scandir", e))?;
        if let Some(name) = entry.file_name().to_str() {
            names.push(name.to_string());
        }
    }
    Ok(names)
}
