//! Topic file names that differ only in case (`memory-Infra.md`, `memory-infra.md`) or in
//! Unicode normalisation (`café` with `é`, or `e` and U+0301): one file on macOS and
//! Windows, two on Linux. A write never creates the second one: a new topic whose name
//! matches an existing file but for case or normalisation is written into that file (its
//! exact name wins, as the index's spelling wins for a linked topic); when several files
//! match, or the index links one spelling and the disk holds another, the write is
//! refused, naming them.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::index_file::MemoryIndex;
use super::memory::StructuredMemory;
use super::topic_name::{name_key, same_topic_name};
use crate::error::{Error, Result};

/// Whether two file names are the same but for case (Unicode lowercase, as macOS and
/// Windows compare them, near enough); see `topic_name.rs` for case and normalisation.
pub(super) fn same_but_for_case(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
}

impl StructuredMemory {
    /// The topic file a write naming `given` goes to, and its path: the index's spelling
    /// when it links the topic and the file exists; else `given` when a file of exactly
    /// that name exists or none matches it but for case or normalisation; else the one
    /// existing file that matches it so. Refused with [`Error::InvalidInput`] when several files
    /// match, or when the index links a spelling the disk holds only in another case.
    pub(super) fn resolve_topic_name(
        &self,
        given: &str,
        index: Option<&MemoryIndex>,
    ) -> Result<(String, PathBuf)> {
        let linked = index.and_then(|i| i.line_for(given));
        let name = linked.map_or(given, |l| l.file.as_str()).to_string();
        let path = self.topic_path(&name)?;
        if linked.is_some() && std::fs::symlink_metadata(&path).is_ok() {
            return Ok((name, path));
        }
        let (dir_part, file_name) = match name.rsplit_once('/') {
            Some((dir, file)) => (format!("{dir}/"), file.to_string()),
            None => (String::new(), name.clone()),
        };
        let Some(dir) = path.parent() else {
            return Ok((name, path));
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((name, path)),
            Err(e) => return Err(Error::io_op(dir, "scandir", e)),
        };
        let mut exact = false;
        let mut others = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(dir, "scandir", e))?;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Some(found) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if found == file_name {
                exact = true;
            } else if same_topic_name(&found, &file_name) {
                others.push(found);
            }
        }
        others.sort();
        match (exact, others.as_slice(), linked) {
            (true, _, _) | (false, [], _) => Ok((name, path)),
            (false, [one], None) => {
                let name = format!("{dir_part}{one}");
                let path = self.topic_path(&name)?;
                Ok((name, path))
            }
            (false, [one], Some(_)) => Err(Error::invalid(
                "topic file",
                given,
                format!(
                    "MEMORY.md links {name} but the file is {dir_part}{one}: rename the file or fix the link so the names match exactly"
                ),
            )),
            (false, many, _) => Err(Error::invalid(
                "topic file",
                given,
                format!(
                    "{} differ from it only in case or Unicode normalisation: give the exact name of the one to write to",
                    many.iter()
                        .map(|m| format!("{dir_part}{m}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
}

impl StructuredMemory {
    /// The [`name_key`]s of the files in the directory `file` (relative) is in, each with
    /// that directory's part: what a new file's name must not match (empty when the
    /// directory does not exist).
    pub(super) fn twins_on_disk(&self, file: &str) -> Result<BTreeSet<String>> {
        // The name itself a symbolic link is one name among the others; only its
        // directory is listed.
        let path = match self.topic_path(file) {
            Err(Error::LinkRefused { path, .. })
                if path.file_name().and_then(|n| n.to_str()) == file.rsplit('/').next() =>
            {
                path
            }
            path => path?,
        };
        let dir_part = file.rsplit_once('/').map_or("", |(dir, _)| dir);
        let Some(dir) = path.parent() else {
            return Ok(BTreeSet::new());
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
            Err(e) => return Err(Error::io_op(dir, "scandir", e)),
        };
        let mut keys = BTreeSet::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io_op(dir, "scandir", e))?;
            if let Some(found) = entry.file_name().to_str() {
                let name = match dir_part {
                    "" => found.to_string(),
                    dir => format!("{dir}/{found}"),
                };
                keys.insert(name_key(&name));
            }
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_ignoring_case() {
        assert!(same_but_for_case("memory-Infra.md", "memory-infra.md"));
        assert!(same_but_for_case("memory-ÜBER.md", "memory-über.md"));
        assert!(!same_but_for_case("memory-infra.md", "memory-infra2.md"));
    }
}
