//! A file's content named by its length and a 128-bit hash (XXH3-128): what a change can
//! depend on without holding a multi-megabyte copy of the file
//! ([`Transaction::expect_digest`](super::Transaction::expect_digest)), and what the index
//! verdict cache is keyed by. XXH3 is not a cryptographic hash; it names content that
//! memory-core itself read or wrote, never content chosen to collide (whoever can write
//! such content into a memory file can write the file itself).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use crate::error::{Error, Result};

/// The length and hash of a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileDigest {
    pub len: u64,
    pub hash: u128,
}

impl FileDigest {
    /// The digest of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        FileDigest {
            len: bytes.len() as u64,
            hash: xxh3_128(bytes),
        }
    }
}

/// The digest of bytes given in pieces; cloned to fork it (the digest of a text, and of
/// the same text with a line appended, from one pass).
#[derive(Clone)]
pub(crate) struct Digester {
    state: Box<Xxh3>,
    len: u64,
}

impl Digester {
    pub(crate) fn new() -> Self {
        Digester {
            state: Box::new(Xxh3::new()),
            len: 0,
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.state.update(bytes);
        self.len += bytes.len() as u64;
    }

    pub(crate) fn finish(&self) -> FileDigest {
        FileDigest {
            len: self.len,
            hash: self.state.digest128(),
        }
    }
}

/// What [`stream_file`] read.
pub(crate) struct Streamed {
    pub digest: FileDigest,
    /// The digester after the last byte (to fork for an append).
    pub digester: Digester,
    /// False when the read may have caught another program saving the file (its size or
    /// modification time after the read differs from before, or the bytes read are not
    /// its size): the digest then names no content the file held.
    pub stable: bool,
}

/// The size of the pieces a file is streamed in (small enough to stay in the CPU's
/// cache while it is hashed and searched: no multi-megabyte buffer is filled).
const PIECE: usize = 64 * 1024;

/// Reads `path` to its end in pieces, giving each to `visit` with its offset, and
/// returns the digest of all of it.
pub(crate) fn stream_file(path: &Path, mut visit: impl FnMut(u64, &[u8])) -> io::Result<Streamed> {
    let mut file = File::open(path)?;
    let before = file.metadata()?;
    let mut buffer = vec![0u8; PIECE];
    let mut digester = Digester::new();
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        visit(digester.len, &buffer[..n]);
        digester.update(&buffer[..n]);
    }
    let after = file.metadata()?;
    let stamp = |m: &fs::Metadata| (m.len(), m.modified().ok());
    let digest = digester.finish();
    Ok(Streamed {
        digest,
        digester,
        stable: stamp(&before) == stamp(&after) && after.len() == digest.len,
    })
}

/// Whether `path` holds content with `digest` (`Ok(false)` when it is gone or has
/// another length, which is known without reading it).
pub(crate) fn file_has_digest(path: &Path, digest: &FileDigest) -> Result<bool> {
    match fs::metadata(path) {
        Ok(meta) if meta.len() != digest.len => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::read_failed(path, e)),
    }
    match stream_file(path, |_, _| {}) {
        Ok(read) => Ok(read.digest == *digest),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::read_failed(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_forks_give_the_digest_of_the_whole() {
        let text: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut digester = Digester::new();
        for piece in text.chunks(7_777) {
            digester.update(piece);
        }
        assert_eq!(digester.finish(), FileDigest::of(&text));
        let mut fork = digester.clone();
        fork.update(b"| one more row |\n");
        let mut longer = text.clone();
        longer.extend_from_slice(b"| one more row |\n");
        assert_eq!(fork.finish(), FileDigest::of(&longer));
        assert_eq!(digester.finish(), FileDigest::of(&text));
    }

    #[test]
    fn a_streamed_file_has_the_digest_of_its_bytes_and_each_piece_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        let text: Vec<u8> = (0..150_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &text).unwrap();
        let mut seen = Vec::new();
        let read = stream_file(&path, |at, piece| {
            assert_eq!(at as usize, seen.len());
            seen.extend_from_slice(piece);
        })
        .unwrap();
        assert_eq!(seen, text);
        assert!(read.stable);
        assert_eq!(read.digest, FileDigest::of(&text));
        assert!(file_has_digest(&path, &read.digest).unwrap());
        let mut changed = text.clone();
        changed[70_000] ^= 1;
        fs::write(&path, &changed).unwrap();
        assert!(!file_has_digest(&path, &read.digest).unwrap());
        fs::remove_file(&path).unwrap();
        assert!(!file_has_digest(&path, &read.digest).unwrap());
    }
}
