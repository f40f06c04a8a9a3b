//! Reading a namespace directory's entity files through the open directory: each file
//! opened relative to it (`openat`: one path component for the kernel to look up, not
//! every component of the root's path again), refusing a link, and read into a buffer
//! the thread keeps (no `statx` for the size, no `lseek`, no new buffer per file: open,
//! two reads, close) — heal reads 10,000 files this way, and file system calls are most
//! of its time.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::durable::decode_text_at;
#[cfg(any(test, not(unix)))]
use crate::durable::read_text_no_follow;
use crate::error::{Error, Result};

/// An open namespace directory whose files are read by name.
pub(super) struct DirReader {
    #[cfg(unix)]
    dir: File,
    path: PathBuf,
}

impl DirReader {
    /// Opens the directory at `path`, whose components the caller has checked for
    /// links (a link as its last component is refused here too).
    pub fn open(path: &Path) -> io::Result<DirReader> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let dir = File::options()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
                .open(path)?;
            Ok(DirReader {
                dir,
                path: path.to_path_buf(),
            })
        }
        #[cfg(not(unix))]
        {
            Ok(DirReader {
                path: path.to_path_buf(),
            })
        }
    }

    /// The UTF-8 text of the file `name` in the directory, with the errors
    /// `read_text_no_follow` gives for the same path (a link is
    /// [`Error::LinkRefused`], a missing file the `open` error, too large, NUL bytes
    /// and invalid UTF-8 [`Error::Malformed`] naming the line).
    pub fn read_text(&self, name: &str) -> Result<String> {
        // The path is for errors only: made when one is reported.
        let path = || self.path.join(name);
        #[cfg(unix)]
        {
            let bytes = match self.read_bytes(name) {
                Ok(bytes) => bytes,
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(Error::LinkRefused {
                        path: path(),
                        message: "is a symbolic link; memory-core does not follow links under the root",
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(Error::io_op(
                        path(),
                        "open",
                        io::Error::new(io::ErrorKind::NotFound, "file not found"),
                    ));
                }
                Err(e) => return Err(Error::read_failed(path(), e)),
            };
            decode_text_at(path, bytes).map_err(|failed| failed.0)
        }
        #[cfg(not(unix))]
        {
            read_text_no_follow(&path())
        }
    }

    /// The bytes of `name`, opened relative to the directory without following a link.
    #[cfg(unix)]
    fn read_bytes(&self, name: &str) -> io::Result<Vec<u8>> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let c_name = std::ffi::CString::new(name).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a file name")
        })?;
        // SAFETY: `openat` reads the NUL-terminated name and the directory descriptor,
        // both alive for the call; it returns a new descriptor or -1.
        let fd = unsafe {
            libc::openat(
                self.dir.as_raw_fd(),
                c_name.as_ptr(),
                libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else; the `File` closes it.
        let mut file = unsafe { File::from_raw_fd(fd) };
        BUFFER.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            // Read whole, as the path reader reads (`decode_text` refuses one too large),
            // but with plain `read`s until one returns 0: `read_to_end` asks the file's
            // size first (`statx`, then `lseek` for the position), two more system calls
            // per file than the two reads a small file needs.
            let mut filled = 0;
            loop {
                if filled == buffer.len() {
                    let grow = buffer.len().max(FIRST_BUFFER);
                    buffer.resize(filled + grow, 0);
                }
                match file.read(&mut buffer[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(buffer[..filled].to_vec())
        })
    }
}

/// The first size of a reading thread's buffer (an entity file is usually under 1 KiB).
#[cfg(unix)]
const FIRST_BUFFER: usize = 16 * 1024;

thread_local! {
    /// The buffer each reading thread reads files into, all of it initialised (zeroed
    /// once as it grows, to the largest file read, and reused; each text is copied out
    /// at its exact size).
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every outcome equals `read_text_no_follow`'s on the same path: text, a link, a
    /// missing file, a directory, NUL bytes, invalid UTF-8, a BOM and CRLF, and texts
    /// larger than the first buffer.
    #[test]
    fn reads_as_the_path_reader_does() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat(100_000);
        let files: [(&str, &[u8]); 6] = [
            ("a.md", b"---\na: 1\n---\nbody\n"),
            ("bom.md", b"\xef\xbb\xbf---\r\na: 1\r\n---\r\n"),
            ("nul.md", b"line\nnul \0 here\n"),
            ("latin.md", b"caf\xe9\n"),
            ("empty.md", b""),
            ("big.md", big.as_bytes()),
        ];
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.md")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("a.md"), dir.path().join("link.md")).unwrap();
        let reader = DirReader::open(dir.path()).unwrap();
        for name in [
            "a.md", "bom.md", "nul.md", "latin.md", "empty.md", "big.md", "sub.md", "link.md",
            "gone.md", "big.md", "a.md",
        ] {
            let expected = read_text_no_follow(&dir.path().join(name));
            let got = reader.read_text(name);
            assert_eq!(
                format!("{got:?}"),
                format!("{expected:?}"),
                "{name}: the same text or the same error"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        assert!(DirReader::open(&dir.path().join("link")).is_err());
        assert!(DirReader::open(&dir.path().join("real")).is_ok());
    }
}
