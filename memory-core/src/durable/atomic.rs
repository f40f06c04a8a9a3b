//! Atomic, durable file replacement and private directory creation.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// The largest file memory-core reads (256 MiB): protects against junk and runaway files.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes` so that a reader (or a crash) sees the old file or the
/// new one, never a mix: the bytes go to a temporary file in the same directory, are
/// flushed to disk, renamed over `path`, and the directory is flushed too. A new file
/// gets mode 0600; an existing file keeps its mode.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("index.md");
/// memory_core::durable::replace_atomically(&path, b"hello\n").unwrap();
/// assert_eq!(std::fs::read(&path).unwrap(), b"hello\n");
/// ```
pub fn replace_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_dir(path);
    check_replaceable(path)?;
    let temp = stage_bytes(&dir, path, bytes)?;
    rename_into_place(&temp, path, &dir)
}

/// Renames the staged `temp` over `path` and flushes `dir`; on failure the temp file is
/// removed (best effort: it is garbage either way, and the original is intact).
fn rename_into_place(temp: &Path, path: &Path, dir: &Path) -> Result<()> {
    let result = fs::rename(temp, path)
        .map_err(|e| Error::io_op(path, "rename", e))
        .and_then(|()| sync_dir(dir));
    if result.is_err() {
        let _ = fs::remove_file(temp);
    }
    result
}

/// [`replace_atomically`], but only if `path` still holds `basis` right before the
/// rename (`None`: no file there): otherwise [`Error::ChangedMeanwhile`] and `path` is
/// left as another program wrote it (see `guarded_rename.rs`). The staged copy is read
/// back before the rename (see [`stage_verified`]).
pub(crate) fn replace_if_unchanged(path: &Path, bytes: &[u8], basis: Option<&[u8]>) -> Result<()> {
    let dir = parent_dir(path);
    check_replaceable(path)?;
    let temp = stage_verified(&dir, path, bytes)?;
    let result = super::guarded_rename::rename_if_unchanged(&temp, path, basis)
        .and_then(|()| sync_dir(&dir));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// [`replace_atomically`] with the staged copy read back before it is renamed into place
/// (see [`stage_verified`]): what is put in place is known to hold `bytes`.
pub(crate) fn replace_verified(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_dir(path);
    check_replaceable(path)?;
    let temp = stage_verified(&dir, path, bytes)?;
    rename_into_place(&temp, path, &dir)
}

/// [`stage_bytes`], then the flushed temp file is read back and must hold `bytes`
/// (otherwise [`Error::VerifyFailed`] naming `target`, the temp file removed and nothing
/// replaced). Reading the staged copy, not the target after the rename, is what makes the
/// check about this write alone: a rename moves that very file into place unchanged, and
/// a program that saves the target in place a moment later (truncating it, then writing)
/// is another program's save, not a failed write.
pub(crate) fn stage_verified(dir: &Path, target: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let temp = stage_bytes(dir, target, bytes)?;
    match file_holds(&temp, bytes) {
        Ok(true) => Ok(temp),
        Ok(false) => {
            let _ = fs::remove_file(&temp);
            Err(Error::verify(
                target,
                "the staged copy read back differs from what was written; nothing was replaced",
            ))
        }
        Err(error) => {
            let _ = fs::remove_file(&temp);
            Err(error)
        }
    }
}

/// Writes `bytes` to a new, flushed temp file in `dir` named after `target` (beside it,
/// or in the memory root when `target`'s directory is still to be made), with `target`'s
/// mode when it exists. A failure removes the temp file.
pub(crate) fn stage_bytes(dir: &Path, target: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let (temp, file) = create_temp(dir, target, "tmp")?;
    if let Err(error) = write_temp(file, &temp, target, bytes) {
        let _ = fs::remove_file(&temp);
        return Err(error);
    }
    Ok(temp)
}

/// How many taken temp names [`create_temp`] skips before it gives up.
const TEMP_NAME_ATTEMPTS: usize = 64;

/// Refuses to replace a file that is a symbolic link (replacing it would turn the link
/// into a regular file and leave its target stale) or that has no write permission
/// (a rename would overwrite it although the user made it read-only).
pub(crate) fn check_replaceable(path: &Path) -> Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io_op(path, "lstat", e)),
    };
    if meta.file_type().is_symlink() {
        return Err(refused_link(
            path,
            "is a symbolic link; memory-core does not replace links (it would turn the link into a copy); \
             point the memory root at the link's target directory, or replace the link with the file",
        ));
    }
    if !meta.is_file() {
        // The rename over a directory would fail with `EISDIR` (21 on every Unix); report
        // just that, before anything is staged.
        #[cfg(unix)]
        let source = if meta.is_dir() {
            io::Error::from_raw_os_error(21)
        } else {
            io::Error::new(io::ErrorKind::InvalidInput, "is not a regular file")
        };
        #[cfg(not(unix))]
        let source = io::Error::new(io::ErrorKind::InvalidInput, "is not a regular file");
        return Err(Error::io_op(path, "rename", source));
    }
    // `readonly()` is the mode's write bits, which holds even for root; opening for
    // writing (without truncating) catches ownership and ACLs for everyone else.
    if meta.permissions().readonly() {
        return Err(Error::io_op(
            path,
            "open",
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                "file is read-only; memory-core does not overwrite a file without write permission",
            ),
        ));
    }
    OpenOptions::new()
        .write(true)
        .open(path)
        .map(drop)
        .map_err(|e| Error::io_op(path, "open", e))
}

/// The error for a link memory-core refuses to replace.
fn refused_link(path: &Path, message: &'static str) -> Error {
    Error::LinkRefused {
        path: path.to_path_buf(),
        message,
    }
}

/// Creates a new, private temp file `.<name>.<kind>-<pid>-<n>` in `dir`, `name` the file
/// name of `target` (`kind` is `tmp` for staged content, `bak` for backups); a failure is
/// [`Error::Staging`] naming `target`, not the temp file. A name can be taken by a writer that
/// died mid-write with the same pid (pids repeat, and in a container every run of a hook
/// may get the same one): such a file is left alone and the next name is tried.
pub(crate) fn create_temp(dir: &Path, target: &Path, kind: &str) -> Result<(PathBuf, File)> {
    let name = file_name(target);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut attempt = 0;
    loop {
        let temp = dir.join(format!(
            ".{name}.{kind}-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match options.open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < TEMP_NAME_ATTEMPTS => {
                attempt += 1;
            }
            Err(e) => return Err(staging(target, dir, "open", e)),
        }
    }
}

/// Whether `name` has the shape `.<name>.tmp-<pid>-<n>` or `.<name>.bak-<pid>-<n>` of
/// [`create_temp`]'s files.
pub(crate) fn is_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some((_, suffix)) = rest
        .rsplit_once(".tmp-")
        .or_else(|| rest.rsplit_once(".bak-"))
    else {
        return false;
    };
    let mut parts = suffix.split('-');
    matches!((parts.next(), parts.next(), parts.next()),
        (Some(pid), Some(n), None) if !pid.is_empty() && !n.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit()) && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Fills and flushes the temp file; it is closed on return, before the rename.
pub(crate) fn write_temp(mut file: File, temp: &Path, target: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_dir(temp);
    if let Ok(meta) = fs::metadata(target) {
        file.set_permissions(meta.permissions())
            .map_err(|e| staging(target, &dir, "fchmod", e))?;
    }
    file.write_all(bytes)
        .map_err(|e| staging(target, &dir, "write", e))?;
    file.sync_all()
        .map_err(|e| staging(target, &dir, "fsync", e))
}

/// The error of a failed call on the temp file staged for `target` in `dir`.
fn staging(target: &Path, dir: &Path, syscall: &'static str, source: io::Error) -> Error {
    Error::Staging {
        path: target.to_path_buf(),
        dir: dir.to_path_buf(),
        syscall,
        source,
    }
}

/// The last component of `path` as text (what temp and backup names are built from).
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flushes a directory entry change (rename, create, unlink) to disk.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let handle = File::open(dir).map_err(|e| Error::io_op(dir, "open", e))?;
        handle
            .sync_all()
            .map_err(|e| Error::io_op(dir, "fsync", e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Creates `dir` and its missing parents with mode 0700 (Unix).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let sessions = dir.path().join("memory/sessions");
/// memory_core::durable::create_private_dir_all(&sessions).unwrap();
/// assert!(sessions.is_dir());
/// ```
pub fn create_private_dir_all(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .map_err(|e| Error::io_op(dir, "mkdir", e))?;
    sync_dir(&parent_dir(dir))
}

/// Reads a whole UTF-8 text file. Files over 256 MiB, invalid UTF-8 and NUL bytes are
/// reported as [`Error::Malformed`] naming the line.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("a.md");
/// std::fs::write(&path, b"ok\n\xff\n").unwrap();
/// let err = memory_core::durable::read_text(&path).unwrap_err();
/// assert_eq!(err.line(), Some(2));
/// ```
pub fn read_text(path: &Path) -> Result<String> {
    read_text_if_exists(path)?.ok_or_else(|| {
        Error::io_op(
            path,
            "open",
            io::Error::new(io::ErrorKind::NotFound, "file not found"),
        )
    })
}

/// Like [`read_text`], but a missing file is `Ok(None)`.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// assert!(memory_core::durable::read_text_if_exists(&dir.path().join("none.md")).unwrap().is_none());
/// ```
pub fn read_text_if_exists(path: &Path) -> Result<Option<String>> {
    match read_bytes_if_exists(path)? {
        None => Ok(None),
        Some(bytes) => decode_text(path, bytes)
            .map(Some)
            .map_err(|failed| failed.0),
    }
}

/// Reads `path` as [`read_text_if_exists`] does and gives the text to `parse`. When the
/// text does not read ([`ErrorKind::Malformed`](crate::ErrorKind::Malformed)), or lacks what
/// `parse` was to find in it ([`ErrorKind::NotFound`](crate::ErrorKind::NotFound)), and the
/// file was changed within the last second, another program saving it in place (truncate,
/// then write) may have been caught between its writes — cut off anywhere, at a line's
/// end too (a header without its delimiter row): the file is looked at again a moment
/// later and, if it changed, read again, then every [`RESETTLE_PAUSE`] until it reads
/// (for up to [`SETTLE_FOR`]). A file that does not read and is not being changed is
/// the error after that moment.
pub(crate) fn read_settled<T>(
    path: &Path,
    mut parse: impl FnMut(Option<String>) -> Result<T>,
) -> Result<T> {
    let started = std::time::Instant::now();
    // Whether the file was seen changing after a read that did not read.
    let mut being_saved = false;
    loop {
        let read = read_text_if_exists(path);
        let stamp = stamp_of(path);
        let result = read.and_then(&mut parse);
        let retry = match &result {
            Err(error) => {
                matches!(
                    error.kind(),
                    crate::ErrorKind::Malformed | crate::ErrorKind::NotFound
                ) && started.elapsed() < SETTLE_FOR
                    && stamp.is_some_and(|(_, modified)| {
                        modified.elapsed().is_ok_and(|age| age < JUST_EMPTIED)
                    })
                    && (being_saved || changes_soon(path, stamp))
            }
            Ok(_) => false,
        };
        if !retry {
            return result;
        }
        if being_saved {
            // Read again a moment later, not at the next change: a read made right as
            // the stamp moves would catch the next save at its start every time.
            std::thread::sleep(RESETTLE_PAUSE);
        }
        being_saved = true;
    }
}

/// How long [`read_settled`] waits between reads once the file is known to be saved.
const RESETTLE_PAUSE: std::time::Duration = std::time::Duration::from_millis(2);

/// How long [`read_settled`] reads a file that is being changed again while it does not
/// read, and how long it waits to see whether it is.
const SETTLE_FOR: std::time::Duration = std::time::Duration::from_millis(500);
const SETTLE_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

/// Whether `path`'s stamp moves from `stamp` within [`SETTLE_PAUSE`] (looked at every
/// few milliseconds: a saving program held up by a busy machine still gets that long).
fn changes_soon(path: &Path, stamp: Option<(u64, std::time::SystemTime)>) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < SETTLE_PAUSE {
        std::thread::sleep(std::time::Duration::from_millis(3));
        if stamp_of(path) != stamp {
            return true;
        }
    }
    false
}

/// A file's length and modification time.
fn stamp_of(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// The bytes of the file at `path`, `None` when it does not exist, read as
/// [`read_text_if_exists`] reads them (again while another program is saving it), not
/// yet decoded: a caller that shows a file that does not decode ([`decode_text`] gives
/// the bytes back) reads it once.
pub(crate) fn read_bytes_if_exists(path: &Path) -> Result<Option<Vec<u8>>> {
    let mut attempt = 1;
    let started = std::time::Instant::now();
    let bytes = loop {
        let last = attempt == STABLE_READ_ATTEMPTS;
        match read_with_slack(path) {
            Ok((b, Stability::Stable)) => break b,
            // Emptied a moment ago: a program saving it in place (truncate, then write)
            // may be between the two, held up on a loaded machine. Read again until it
            // was emptied [`JUST_EMPTIED`] ago; still empty, it is empty. A file that may
            // have been created empty a moment ago (or an editor's new file, not yet
            // written) is read again as a file that was changing, then taken as empty.
            Ok((b, Stability::JustEmptied { emptied: true }))
                if started.elapsed() >= JUST_EMPTIED =>
            {
                break b;
            }
            Ok((_, Stability::JustEmptied { emptied: true })) => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok((b, Stability::JustEmptied { emptied: false })) if last => break b,
            Ok((_, Stability::Changing)) if last => {
                return Err(Error::ChangedMeanwhile {
                    path: path.to_path_buf(),
                    operation: "the read",
                });
            }
            // Another program was writing it while it was read: read again.
            Ok(_) => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::read_failed(path, e)),
        }
    };
    Ok(Some(bytes))
}

/// Room left after a file's bytes when it is read: a row appended to the text in memory
/// (SessionStart's one line) then never reallocates and copies a multi-megabyte buffer.
const READ_SLACK: usize = 64 * 1024;

/// How many times a file another program is writing is read (5 ms apart) before the
/// read is refused ([`Error::ChangedMeanwhile`]).
const STABLE_READ_ATTEMPTS: usize = 20;

/// How recently an empty file must have been changed to be read again: a saver that
/// truncates, then writes, can be held up that long on a loaded machine.
const JUST_EMPTIED: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a read may have caught another program part-way through saving the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stability {
    /// Nothing suggests a write in progress.
    Stable,
    /// Its size or modification time after the read is not what it was before, or the
    /// bytes read are not its size: it was written while it was read.
    Changing,
    /// Empty, and changed within [`JUST_EMPTIED`]: possibly truncated by a save that has
    /// not written yet. `emptied` when the file is known to have been created before
    /// that change (it had content a save emptied), so the save is waited for longer.
    JustEmptied { emptied: bool },
}

/// Whether an empty file is known to have been created before it was last changed: a
/// file that existed was emptied (a save truncating it), not created empty (`touch`,
/// an editor's new file, whose creation and change are one clock reading). Unknown
/// where the file system keeps no creation time.
fn emptied_after_creation(meta: &fs::Metadata) -> bool {
    match (meta.created(), meta.modified()) {
        (Ok(created), Ok(modified)) => modified > created,
        _ => false,
    }
}

/// The bytes of `path` in one buffer sized once from its metadata (plus [`READ_SLACK`]);
/// a file that grows meanwhile is still read to its end. With them, whether another
/// program may have been saving it in place meanwhile.
fn read_with_slack(path: &Path) -> io::Result<(Vec<u8>, Stability)> {
    use std::io::Read;
    let mut file = File::open(path)?;
    let before = file.metadata().ok();
    let len = before
        .as_ref()
        .map_or(0, |m| m.len())
        .min(MAX_FILE_BYTES + 1);
    // `len` is at most 256 MiB + 1 here, which fits a usize on every supported target.
    let len = usize::try_from(len).unwrap_or(0);
    let mut bytes = Vec::with_capacity(len + READ_SLACK);
    crate::prefault::prefault(&mut bytes);
    file.read_to_end(&mut bytes)?;
    let after = file.metadata().ok();
    let stamp = |m: &fs::Metadata| (m.len(), m.modified().ok());
    let stability = match (&before, &after) {
        (Some(b), Some(a)) if stamp(b) != stamp(a) || a.len() != bytes.len() as u64 => {
            Stability::Changing
        }
        (_, Some(a))
            if bytes.is_empty()
                && a.modified()
                    .ok()
                    .and_then(|m| m.elapsed().ok())
                    .is_some_and(|age| age < JUST_EMPTIED) =>
        {
            Stability::JustEmptied {
                emptied: emptied_after_creation(a),
            }
        }
        _ => Stability::Stable,
    };
    Ok((bytes, stability))
}

/// The text of `bytes` read from `path`, or the [`Error::Malformed`] naming the line of a
/// file too large, holding a NUL byte or not UTF-8 — with the bytes given back, so that a
/// caller that goes on past such a file need not read it again.
pub(crate) fn decode_text(
    path: &Path,
    bytes: Vec<u8>,
) -> std::result::Result<String, Box<(Error, Vec<u8>)>> {
    decode_text_at(|| path.to_path_buf(), bytes)
}

/// [`decode_text`] with the path made only for an error (a reader of many files in one
/// directory joins no path for a file that decodes).
pub(crate) fn decode_text_at(
    path: impl FnOnce() -> std::path::PathBuf,
    bytes: Vec<u8>,
) -> std::result::Result<String, Box<(Error, Vec<u8>)>> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        let path = &path();
        let error = Error::malformed(
            path,
            0,
            format!("file is larger than {MAX_FILE_BYTES} bytes"),
        );
        return Err(Box::new((error, bytes)));
    }
    if let Some(pos) = memchr::memchr(0, &bytes) {
        let error = Error::malformed(
            path(),
            line_of(&bytes, pos),
            "file holds a NUL byte (binary data)",
        );
        return Err(Box::new((error, bytes)));
    }
    // SIMD validation first (a tenth of the time of `from_utf8` on a 3 MB index); the
    // standard check then runs only on invalid text, to find where it goes wrong.
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: `simdutf8` has just validated the bytes as UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    String::from_utf8(bytes).map_err(|e| {
        let pos = e.utf8_error().valid_up_to();
        let line = line_of(e.as_bytes(), pos);
        Box::new((
            Error::malformed(path(), line, "file is not valid UTF-8"),
            e.into_bytes(),
        ))
    })
}

fn line_of(bytes: &[u8], pos: usize) -> usize {
    bytes[..pos].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Whether the file at `path` holds exactly `expected`, compared in chunks (a second
/// multi-megabyte buffer costs more in page faults than the comparison itself).
pub(crate) fn file_holds(path: &Path, expected: &[u8]) -> Result<bool> {
    use std::io::Read;
    let mut file = File::open(path).map_err(|e| Error::io_op(path, "open", e))?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut at = 0;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| Error::io_op(path, "read", e))?;
        if n == 0 {
            return Ok(at == expected.len());
        }
        if expected.get(at..at + n) != Some(&buffer[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_file_is_private_and_existing_mode_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        replace_atomically(&path, b"one").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
            replace_atomically(&path, b"two").unwrap();
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file may remain");
    }

    #[test]
    fn failed_replace_keeps_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        fs::write(&path, b"original").unwrap();
        // A directory in the way of the rename target's parent makes the write fail.
        let bad = dir.path().join("missing-dir").join("f.md");
        assert!(replace_atomically(&bad, b"x").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"original");
    }

    #[test]
    fn temp_names_left_by_a_dead_writer_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        // A writer that died with our pid left the names our next replaces would use
        // (other tests may take counter values meanwhile; that only skips fewer names).
        let next = TEMP_COUNTER.load(Ordering::Relaxed);
        let pid = std::process::id();
        let stale: Vec<PathBuf> = (next..next + 8)
            .map(|n| dir.path().join(format!(".index.md.tmp-{pid}-{n}")))
            .collect();
        for file in &stale {
            fs::write(file, b"half").unwrap();
        }
        replace_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        for file in &stale {
            assert_eq!(fs::read(file).unwrap(), b"half", "not ours to touch");
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), stale.len() + 1);
    }

    #[test]
    fn private_dirs_are_0700() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        create_private_dir_all(&nested).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&nested).unwrap().permissions().mode() & 0o777,
                0o700
            );
        }
    }

    #[test]
    fn nul_and_invalid_utf8_are_malformed_with_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        fs::write(&path, b"a\nb\nc\0").unwrap();
        let err = read_text(&path).unwrap_err();
        assert_eq!(err.line(), Some(3));
        // Invalid UTF-8 of every kind, after valid multi-byte text and long ASCII runs
        // (the SIMD validator's blocks), is named at the line of its first bad byte.
        let long = "登入 auth | ".repeat(40);
        for (bad, what) in [
            (&b"\xff"[..], "not valid UTF-8"),
            (b"\xc3", "not valid UTF-8"),
            (b"\xe7\x99", "not valid UTF-8"),
            (b"\xed\xa0\x80", "not valid UTF-8"),
            (b"\xc0\xaf", "not valid UTF-8"),
            (b"\xf4\x90\x80\x80", "not valid UTF-8"),
            (b"\0", "NUL byte"),
        ] {
            let mut bytes = format!("{long}\n{long}\nok\n").into_bytes();
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(format!("{long}\nmore\n").as_bytes());
            fs::write(&path, &bytes).unwrap();
            let err = read_text(&path).unwrap_err();
            assert_eq!(err.line(), Some(4), "{bad:?}");
            assert!(err.to_string().contains(what), "{err}");
        }
    }

    #[test]
    fn text_is_read_whole_with_room_for_an_appended_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        for text in ["", "a", "| 登入 | x |\n", &"row\n".repeat(100_000)] {
            fs::write(&path, text).unwrap();
            let read = read_text(&path).unwrap();
            assert_eq!(read, text);
            assert!(read.capacity() >= text.len() + READ_SLACK);
        }
    }
}
