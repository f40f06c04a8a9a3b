//! Reading many small files fast: one `open` that refuses a symbolic link (instead of an
//! `lstat` per path component before it), one buffer sized exactly from the open file,
//! no slack and no prefaulting — what a directory scan needs for thousands of entity
//! files whose names its listing already gave.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::atomic::{MAX_FILE_BYTES, decode_text};
use crate::error::{Error, Result};

/// Reads the UTF-8 text file at `path`, refusing a symbolic link as its last component
/// with the [`Error::LinkRefused`] that [`super::SafeRoot::join`] gives one. Too large,
/// NUL bytes and invalid UTF-8 are [`Error::Malformed`] naming the line, as
/// [`super::read_text`] reports them. The directory path must already be checked.
pub(crate) fn read_text_no_follow(path: &Path) -> Result<String> {
    let bytes = match read_bytes(path) {
        Ok(bytes) => bytes,
        Err(e) if is_link_refusal(&e) => {
            return Err(Error::LinkRefused {
                path: path.to_path_buf(),
                message: "is a symbolic link; memory-core does not follow links under the root",
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::io_op(
                path,
                "open",
                io::Error::new(io::ErrorKind::NotFound, "file not found"),
            ));
        }
        Err(e) => return Err(Error::read_failed(path, e)),
    };
    decode_text(path, bytes).map_err(|failed| failed.0)
}

fn read_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut options = File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = options.open(path)?;
    let len = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_FILE_BYTES + 1);
    // `len` is at most 256 MiB + 1 here, which fits a usize on every supported target.
    let len = usize::try_from(len).unwrap_or(0);
    // One byte more than the size: reaching the end then needs no second allocation.
    let mut bytes = Vec::with_capacity(len + 1);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether `open` failed because the last component is a symbolic link (`O_NOFOLLOW`).
fn is_link_refusal(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_like_read_text() {
        let dir = tempfile::tempdir().unwrap();
        for bytes in [
            &b""[..],
            b"---\na: 1\n---\nbody\n",
            "\u{feff}---\r\nx: \u{767b}\u{5165}\r\n---\r\n".as_bytes(),
        ] {
            let path = dir.path().join("a.md");
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(
                read_text_no_follow(&path).unwrap(),
                super::super::read_text(&path).unwrap()
            );
        }
        let big = "x".repeat(200_000);
        let path = dir.path().join("big.md");
        std::fs::write(&path, &big).unwrap();
        assert_eq!(read_text_no_follow(&path).unwrap(), big);
    }

    #[test]
    fn refusals_match_read_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.md");
        std::fs::write(&path, b"ok\n\xff\n").unwrap();
        let (fast, slow) = (
            read_text_no_follow(&path).unwrap_err(),
            super::super::read_text(&path).unwrap_err(),
        );
        assert_eq!(fast.to_string(), slow.to_string());
        assert_eq!(fast.line(), Some(2));
        std::fs::write(&path, b"a\n\0").unwrap();
        assert_eq!(
            read_text_no_follow(&path).unwrap_err().to_string(),
            super::super::read_text(&path).unwrap_err().to_string()
        );
        let gone = dir.path().join("gone.md");
        let (fast, slow) = (
            read_text_no_follow(&gone).unwrap_err(),
            super::super::read_text(&gone).unwrap_err(),
        );
        assert_eq!(
            (fast.kind(), fast.to_string()),
            (slow.kind(), slow.to_string())
        );
        let sub = dir.path().join("dir.md");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(
            read_text_no_follow(&sub).unwrap_err().to_string(),
            super::super::read_text(&sub).unwrap_err().to_string()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("outside.md");
        std::fs::write(&target, "secret\n").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = read_text_no_follow(&link).unwrap_err();
        assert!(matches!(err, Error::LinkRefused { .. }), "{err}");
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        let root = super::super::SafeRoot::new(dir.path());
        assert_eq!(
            root.join(&["link.md"]).unwrap_err().to_string(),
            err.to_string()
        );
    }
}
