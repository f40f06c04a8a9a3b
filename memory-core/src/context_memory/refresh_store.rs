//! Reading and changing a `_pending_refresh.md` on disk: every change under the memory
//! lock, checked by re-reading the new text with the one reader before it is written,
//! written through a durable [`Transaction`] (an append is journaled; a rewrite is an
//! atomic replace; removing the last path removes the file), and read back.

use std::path::Path;

use serde::Serialize;

use super::refresh::{PendingChange, PendingRefresh, RefreshTrigger};
use crate::durable::{MemoryLock, Transaction, create_private_dir_all, read_text_if_exists};
use crate::error::{Error, Result};

/// Reads `file`; a missing file is an empty list.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let doc = memory_core::context_memory::load_pending_refresh(&dir.path().join("_pending_refresh.md")).unwrap();
/// assert!(doc.is_empty());
/// ```
pub fn load_pending_refresh(file: &Path) -> Result<PendingRefresh> {
    match read_text_if_exists(file)? {
        Some(text) => PendingRefresh::parse(file, &text),
        None => Ok(PendingRefresh::default()),
    }
}

/// Lists `paths` as one run of `trigger` at `timestamp` in `file`, under `lock` (the
/// memory root's lock, which must be held by the caller; `file` must be under that
/// root): a new file is written whole, in the seed's format; an existing one gets an
/// `## Additional changes` section appended, every byte before it unchanged — also
/// when it holds lines the reader does not understand (a hand-written note), as the
/// seed's own script appends to any file. The
/// directory is made when missing. Nothing is written for an empty `paths`. Duplicate
/// paths in `paths` are listed once. Returns what was listed.
///
/// ```
/// use std::time::Duration;
/// use memory_core::context_memory::{append_pending_refresh, load_pending_refresh, RefreshTrigger};
/// use memory_core::durable::MemoryLock;
/// let dir = tempfile::tempdir().unwrap();
/// let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
/// let file = dir.path().join("projects/app/_pending_refresh.md");
/// append_pending_refresh(&lock, &file, RefreshTrigger::PostMerge, "2026-04-03T10:00:00Z", &["a.rs".into()]).unwrap();
/// append_pending_refresh(&lock, &file, RefreshTrigger::PostCheckout, "2026-04-03T11:00:00Z", &["b.rs".into()]).unwrap();
/// assert_eq!(load_pending_refresh(&file).unwrap().changes().len(), 2);
/// ```
pub fn append_pending_refresh(
    lock: &MemoryLock,
    file: &Path,
    trigger: RefreshTrigger,
    timestamp: &str,
    paths: &[String],
) -> Result<Vec<PendingChange>> {
    let mut unique: Vec<String> = Vec::with_capacity(paths.len());
    for path in paths {
        if !unique.contains(path) {
            unique.push(path.clone());
        }
    }
    if unique.is_empty() {
        return Ok(Vec::new());
    }
    let section = PendingRefresh::new(trigger, timestamp, unique)?;
    let added = section.changes();
    let mut tx = Transaction::new(lock);
    let read = read_text_if_exists(file)?;
    // Every change below is made against what was read of the file: a program that
    // saved it meanwhile without the lock refuses the commit, and its save stands.
    tx.expect(file, read.as_ref().map(|t| t.as_bytes().to_vec()));
    match read {
        // A file of only blank lines (and a BOM) holds nothing: it is written whole.
        Some(text) if !text.trim_start_matches('\u{feff}').trim().is_empty() => {
            let appended = PendingRefresh::append_text(&text, &section.sections()[0]);
            let new_text = format!("{text}{appended}");
            // The appended bytes alone read as exactly this run's list, and when the
            // file before them reads (leniently), the whole new file reads as its list
            // followed by this run's: lines it does not understand are left as they are.
            check(file, &appended, &added)?;
            if let Ok((before, _)) = PendingRefresh::parse_lenient(file, &text) {
                let mut expected = before.changes();
                expected.extend(added.iter().cloned());
                check_lenient(file, &new_text, &expected)?;
            }
            tx.append(file, text.len() as u64, appended);
            tx.commit()?;
            if read_text_if_exists(file)?.as_deref() != Some(new_text.as_str()) {
                return Err(Error::verify(
                    file,
                    "the pending refresh file does not hold what was appended",
                ));
            }
        }
        _ => {
            let new_text = section.render();
            check(file, &new_text, &added)?;
            if let Some(dir) = file.parent() {
                create_private_dir_all(dir)?;
            }
            tx.write(file, new_text.into_bytes());
            tx.commit()?;
            verify(file, &added)?;
        }
    }
    Ok(added)
}

/// Reads `file` leniently (see [`PendingRefresh::parse_lenient`]): every listed path,
/// and a warning naming the file and line for each line that is not understood. A
/// missing file is an empty list.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let file = dir.path().join("_pending_refresh.md");
/// std::fs::write(&file, "## Additional changes (manual at 2026-04-03T10:00:00Z)\n\n- a.rs\n\nNote: reviewed.\n").unwrap();
/// let (doc, warnings) = memory_core::context_memory::read_pending_refresh(&file).unwrap();
/// assert_eq!(doc.changes().len(), 1);
/// assert_eq!(warnings[0].line, 5);
/// ```
pub fn read_pending_refresh(
    file: &Path,
) -> Result<(PendingRefresh, Vec<crate::agent_memory::Warning>)> {
    match read_text_if_exists(file)? {
        Some(text) => PendingRefresh::parse_lenient(file, &text),
        None => Ok((PendingRefresh::default(), Vec::new())),
    }
}

/// What [`clear_pending_refresh`] did.
///
/// ```
/// # use memory_core::context_memory::ClearReport;
/// fn summary(r: &ClearReport) -> String { format!("{} cleared, {} left", r.cleared.len(), r.remaining) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ClearReport {
    /// The done paths that were listed (every listing of each was removed).
    pub cleared: Vec<String>,
    /// The done paths that were not listed (nothing to clear).
    pub not_pending: Vec<String>,
    /// How many listings are left.
    pub remaining: usize,
    /// Whether the file was removed because no path was left.
    pub removed_file: bool,
}

/// Removes each of `done` from every section of `file`, under `lock`; a section left
/// empty is dropped and the file is removed when no path is left. The file is rewritten
/// in its canonical form (see [`PendingRefresh::render`]: line ends and BOM kept, extra
/// blank lines, trailing spaces, other list markers and YAML comments not). A file
/// holding lines the strict reader refuses (a hand-written note) is instead edited line
/// by line: only the done `- path` lines (and the headings of sections left empty) go,
/// every other line stays byte for byte, and the file stays when no path is left. A
/// file that does not read even leniently is refused and left as it is; so is one with
/// nothing to clear.
///
/// ```
/// use std::time::Duration;
/// use memory_core::context_memory::{append_pending_refresh, clear_pending_refresh, RefreshTrigger};
/// use memory_core::durable::MemoryLock;
/// let dir = tempfile::tempdir().unwrap();
/// let lock = MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(1)).unwrap();
/// let file = dir.path().join("_pending_refresh.md");
/// append_pending_refresh(&lock, &file, RefreshTrigger::Manual, "2026-04-03T10:00:00Z", &["a".into()]).unwrap();
/// let report = clear_pending_refresh(&lock, &file, &["a".into()]).unwrap();
/// assert!(report.removed_file && !file.exists());
/// ```
pub fn clear_pending_refresh(
    lock: &MemoryLock,
    file: &Path,
    done: &[String],
) -> Result<ClearReport> {
    let existing = read_text_if_exists(file)?;
    let Some(text) = existing else {
        return Ok(ClearReport {
            cleared: Vec::new(),
            not_pending: dedup(done),
            remaining: 0,
            removed_file: false,
        });
    };
    let mut doc = match PendingRefresh::parse(file, &text) {
        Ok(doc) => doc,
        // Lines the strict reader refuses (a hand note) would be lost to a canonical
        // rewrite: such a file is cleared line by line, every other line kept.
        Err(strict) => match PendingRefresh::clear_in_place(file, &text, done) {
            Ok((new_text, doc, cleared)) => {
                return clear_lines(lock, file, &text, new_text, &doc, cleared, done);
            }
            Err(_) => return Err(strict),
        },
    };
    let cleared = doc.clear(done);
    let not_pending: Vec<String> = dedup(done)
        .into_iter()
        .filter(|d| !cleared.contains(d))
        .collect();
    let expected = doc.changes();
    let mut report = ClearReport {
        cleared,
        not_pending,
        remaining: expected.len(),
        removed_file: false,
    };
    if report.cleared.is_empty() {
        return Ok(report);
    }
    let mut tx = Transaction::new(lock);
    // Removed or rewritten only as it was read (see `append_pending_refresh`).
    tx.expect(file, Some(text.as_bytes().to_vec()));
    if doc.is_empty() {
        tx.remove(file);
        tx.commit()?;
        if file.exists() {
            return Err(Error::verify(
                file,
                "the file is still there after removing it",
            ));
        }
        report.removed_file = true;
        return Ok(report);
    }
    let new_text = doc.render();
    check(file, &new_text, &expected)?;
    tx.write(file, new_text.into_bytes());
    tx.commit()?;
    verify(file, &expected)?;
    Ok(report)
}

/// Writes the text [`PendingRefresh::clear_in_place`] made from `read` (what the file
/// held; the commit depends on it still holding that), after checking that it
/// reads (leniently) as `doc`'s list. The file stays even when no path is left: the
/// lines in it that are not paths are someone's.
fn clear_lines(
    lock: &MemoryLock,
    file: &Path,
    read: &str,
    new_text: String,
    doc: &PendingRefresh,
    cleared: Vec<String>,
    done: &[String],
) -> Result<ClearReport> {
    let not_pending: Vec<String> = dedup(done)
        .into_iter()
        .filter(|d| !cleared.contains(d))
        .collect();
    let expected = doc.changes();
    let report = ClearReport {
        cleared,
        not_pending,
        remaining: expected.len(),
        removed_file: false,
    };
    if report.cleared.is_empty() {
        return Ok(report);
    }
    check_lenient(file, &new_text, &expected)?;
    let mut tx = Transaction::new(lock);
    tx.write_over(file, Some(read.as_bytes().to_vec()), new_text.into_bytes());
    tx.commit()?;
    let (after, _) = read_pending_refresh(file)?;
    if after.changes() != expected {
        return Err(Error::verify(
            file,
            "the pending refresh file does not list what was left",
        ));
    }
    Ok(report)
}

fn dedup(paths: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(paths.len());
    for path in paths {
        if !out.contains(path) {
            out.push(path.clone());
        }
    }
    out
}

/// The checked writer: `text` must read back, with the one reader, as exactly
/// `expected`; otherwise nothing is written.
fn check(file: &Path, text: &str, expected: &[PendingChange]) -> Result<()> {
    let doc = PendingRefresh::parse(file, text).map_err(|e| Error::unreadable_result(file, e))?;
    if doc.changes() != expected {
        return Err(Error::invalid(
            "change",
            &file.display().to_string(),
            "the new pending refresh text would not read back as the intended list; nothing was written",
        ));
    }
    Ok(())
}

/// [`check`] with the lenient reader.
fn check_lenient(file: &Path, text: &str, expected: &[PendingChange]) -> Result<()> {
    let (doc, _) =
        PendingRefresh::parse_lenient(file, text).map_err(|e| Error::unreadable_result(file, e))?;
    if doc.changes() != expected {
        return Err(Error::invalid(
            "change",
            &file.display().to_string(),
            "the new pending refresh text would not read back as the intended list; nothing was written",
        ));
    }
    Ok(())
}

/// Reads the written file back and compares its list with `expected`.
fn verify(file: &Path, expected: &[PendingChange]) -> Result<()> {
    let doc = load_pending_refresh(file)?;
    if doc.changes() != expected {
        return Err(Error::verify(
            file,
            "the pending refresh file does not list what was written",
        ));
    }
    Ok(())
}
