//! Reading with lazy self-healing: an index whose directory listing shows drift is
//! healed under the lock before it answers (an index that does not read is refused,
//! naming its file and line, and never rewritten by a reader); `get` opens the one
//! entity file asked for and heals the index when its row disagrees with the file.

use std::collections::BTreeSet;

use super::entity::Entry;
use super::entity_file::EntityFile;
use super::heal::row_of;
use super::index_file::{IndexFile, template};
use super::index_rows::{RowRef, read_table};
use super::memory::ContextMemory;
use super::names::{EntityName, INDEX_FILE_NAME};
use super::namespace::Namespace;
use super::rows_memo::MEMO_FROM_BYTES;
use super::triggers::keys_of;
use crate::durable::{MemoryLock, read_settled, read_text_if_exists};
use crate::error::{Error, Result};

impl ContextMemory {
    /// `namespace`'s index for a reader: read without the lock, and when the directory
    /// listing (`listing`, its entity files: a query lists each directory once) shows
    /// one of the seed's lazy triggers, healed under the lock first. An index that does
    /// not read is the error, naming its file and line; nothing is written. `held` is the lock when the caller already holds it (its read
    /// guard finished an interrupted change): the heal then runs under it, since taking
    /// the lock a second time would wait for ourselves.
    pub(super) fn index_for_listing(
        &self,
        namespace: &Namespace,
        listing: &BTreeSet<String>,
        held: Option<&MemoryLock>,
    ) -> Result<IndexFile> {
        let index = self.load_index(namespace)?;
        if !self.needs_heal(namespace, index.keys(), listing)? {
            return Ok(index);
        }
        match held {
            Some(lock) => self.settled_index(namespace, lock),
            None => self.settled_index(namespace, &self.handle.lock()?),
        }
    }

    /// [`ContextMemory::index_for_listing`] for a query: `namespace`'s index rows read
    /// in place and given to `f`, owned rows never built. The same reader, the same
    /// triggers, the same refusals naming the file and line; when a trigger fires, the
    /// index healed under the lock is the one read.
    pub(super) fn with_index_rows<R>(
        &self,
        namespace: &Namespace,
        listing: &[String],
        held: Option<&MemoryLock>,
        f: impl FnOnce(&[RowRef<'_>]) -> R,
    ) -> Result<R> {
        let path = self.file_in(namespace, INDEX_FILE_NAME)?;
        let text_of = |read: Option<String>| read.unwrap_or_else(|| template(namespace, None));
        // A text that does not decode (cut inside a character by a save) is read again
        // below, as one whose table does not read.
        let first = match read_text_if_exists(&path) {
            Ok(read) => text_of(read),
            Err(error) if error.kind() == crate::ErrorKind::Malformed => {
                return self.answer_settled(namespace, listing, held, &path, f);
            }
            Err(error) => return Err(error),
        };
        if let Some(memo) = self.rows_memo.get(&path, &first) {
            return self.answer_from_rows(namespace, listing, held, &memo.rows, f);
        }
        let (_, rows) = match read_table(&path, &first) {
            Ok(read) if first.len() >= MEMO_FROM_BYTES => {
                let owned = read.1.into_iter().map(RowRef::into_owned).collect();
                let memo = self.rows_memo.keep(&path, first, owned);
                return self.answer_from_rows(namespace, listing, held, &memo.rows, f);
            }
            Ok(read) => read,
            Err(error) if error.kind() == crate::ErrorKind::Malformed => {
                return self.answer_settled(namespace, listing, held, &path, f);
            }
            Err(error) => return Err(error),
        };
        self.answer_from_rows(namespace, listing, held, &rows, f)
    }

    /// [`ContextMemory::with_index_rows`] of an index whose first read did not read:
    /// another program's save caught half done reads as a cut-off file, so it is read
    /// again as every index reader does ([`read_settled`]), and refused only if it stays
    /// so.
    fn answer_settled<R>(
        &self,
        namespace: &Namespace,
        listing: &[String],
        held: Option<&MemoryLock>,
        path: &std::path::Path,
        f: impl FnOnce(&[RowRef<'_>]) -> R,
    ) -> Result<R> {
        let settled = read_settled(path, |read| {
            let text = read.unwrap_or_else(|| template(namespace, None));
            read_table(path, &text)?;
            Ok(text)
        })?;
        let (_, rows) = read_table(path, &settled)?;
        self.answer_from_rows(namespace, listing, held, &rows, f)
    }

    /// `f` of `rows`, the rows of `namespace`'s index as read, unless the listing shows
    /// a lazy trigger: then of the rows of the index healed under the lock.
    fn answer_from_rows<R>(
        &self,
        namespace: &Namespace,
        listing: &[String],
        held: Option<&MemoryLock>,
        rows: &[RowRef<'_>],
        f: impl FnOnce(&[RowRef<'_>]) -> R,
    ) -> Result<R> {
        if !self.needs_heal(namespace, keys_of(rows), listing)? {
            return Ok(f(rows));
        }
        let healed = match held {
            Some(lock) => self.settled_index(namespace, lock)?,
            None => self.settled_index(namespace, &self.handle.lock()?)?,
        };
        let (_, rows) = read_table(&healed.path, &healed.text)?;
        Ok(f(&rows))
    }

    /// The entry named `entity_name`, read from its file (the only operation that opens
    /// entity files). When the index row disagrees with the file, the index is healed.
    /// A name that is not in the index is [`Error::EntityNotFound`]; when a split moved
    /// the entry to a domain, the error names where it went.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::builder(dir.path()).fixed_time("2026-04-03T10:00:00Z").unwrap().open().unwrap();
    /// let written = memory.write(NewEntry::new("org.global", Category::Decision, ["auth", "security"], "Auth uses JWT.").unwrap()).unwrap();
    /// let entry = memory.get(written.entry.entity_name.as_str()).unwrap();
    /// assert_eq!(entry.body, "Auth uses JWT.");
    /// assert_eq!(entry.created_at, "2026-04-03T10:00:00Z");
    /// ```
    pub fn get(&self, entity_name: &str) -> Result<Entry> {
        let name = EntityName::parse(entity_name)?;
        let namespace = name.namespace().clone();
        let guard = self.handle.read_guard()?;
        let listing = self.list_dir(&namespace)?;
        let index = self.index_for_listing(&namespace, &listing, guard.as_ref())?;
        let Some(row) = index.rows.iter().find(|r| r.entity == name) else {
            return Err(self.not_found(&name));
        };
        let path = self.file_in(&namespace, &row.file)?;
        let rel = namespace.dir().join(&row.file);
        let file = EntityFile::load(&path, rel, &namespace, Some(row.summary.clone()))?;
        if file.entry.entity_name != name {
            return Err(Error::malformed(
                &path,
                file.keys
                    .get(&file.text, "entity_name")
                    .map_or(1, |e| e.line),
                format!(
                    "the index row of {name} points at this file, which is {}; run heal",
                    file.entry.entity_name
                ),
            ));
        }
        let agrees = row_of(&file.entry, &row.file, Some(row.summary.clone()));
        if agrees.category != row.category || agrees.status != row.status || agrees.tags != row.tags
        {
            let taken;
            let lock = match guard.as_ref() {
                Some(lock) => lock,
                None => {
                    taken = self.handle.lock()?;
                    &taken
                }
            };
            // Re-read under the lock: a writer may have changed the index meanwhile.
            let index = self.load_index(&namespace)?;
            let (_, edits) = self.healed_edits(&namespace, &index)?;
            if let Some(edits) = edits {
                let text = index.prepare_text(edits)?;
                let mut tx = crate::durable::Transaction::new(lock);
                index.stage_text(text, &mut tx);
                tx.commit()?;
            }
        }
        Ok(file.entry)
    }

    fn not_found(&self, name: &EntityName) -> Error {
        Error::EntityNotFound {
            name: name.to_string(),
            path: self
                .namespace_dir(name.namespace())
                .join(super::names::INDEX_FILE_NAME),
            moved_to: self.moved_to(name),
        }
    }

    /// Where a split moved `name` to: the entry of the same category and short id in a
    /// domain of its namespace.
    fn moved_to(&self, name: &EntityName) -> Option<String> {
        let infos = self.namespaces().ok()?;
        infos
            .iter()
            .filter(|i| i.namespace != *name.namespace() && i.namespace.is_within(name.namespace()))
            .find_map(|info| {
                let candidate = name.in_namespace(&info.namespace).ok()?;
                let index = self.load_index(&info.namespace).ok()?;
                index
                    .rows
                    .iter()
                    .any(|r| r.entity == candidate)
                    .then(|| candidate.to_string())
            })
    }
}
