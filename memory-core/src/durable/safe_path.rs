//! Paths built from user input that can never leave the memory root.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// A directory under which every path memory-core builds must stay.
///
/// ```
/// use memory_core::durable::SafeRoot;
/// let dir = tempfile::tempdir().unwrap();
/// let root = SafeRoot::new(dir.path());
/// assert!(root.join(&["sessions", "a.md"]).is_ok());
/// assert!(root.join(&["..", "etc"]).is_err());
/// assert!(root.join(&["/etc/passwd"]).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct SafeRoot {
    root: PathBuf,
}

impl SafeRoot {
    /// A root at `root` (it need not exist yet).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SafeRoot { root: root.into() }
    }

    /// The root directory.
    ///
    /// ```
    /// let root = memory_core::durable::SafeRoot::new("memory");
    /// assert_eq!(root.path(), std::path::Path::new("memory"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Joins single-name components under the root. Each must pass
    /// [`validate_component`], and no existing directory on the way may be a symbolic
    /// link (a link could lead outside the root).
    pub fn join(&self, components: &[&str]) -> Result<PathBuf> {
        let mut path = self.root.clone();
        for (i, component) in components.iter().enumerate() {
            validate_component("path component", component)?;
            path.push(component);
            let is_last = i + 1 == components.len();
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                let message = if is_last {
                    "is a symbolic link; memory-core does not follow links under the root"
                } else {
                    "passes through a symbolic link; memory-core does not follow links under the root"
                };
                return Err(Error::LinkRefused { path, message });
            }
        }
        Ok(path)
    }
}

/// Checks that `name` is one plain path component: not empty, not `.`/`..`, no path
/// separator, no NUL or other control character, not absolute.
///
/// ```
/// use memory_core::durable::validate_component;
/// assert!(validate_component("id", "2026-05-25-1318-cursor-main-agent").is_ok());
/// assert!(validate_component("id", "../x").is_err());
/// assert!(validate_component("id", "a\0b").is_err());
/// ```
pub fn validate_component(what: &'static str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid(what, name, "must not be empty"));
    }
    // The usual name, printable ASCII without a separator: one plain component unless
    // it is `.` or `..` (heal checks each of 10,000 file names so).
    if name
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'/' && b != b'\\')
        && name != "."
        && name != ".."
    {
        return Ok(());
    }
    if name
        .chars()
        .any(|c| c == '/' || c == '\\' || c.is_control())
    {
        return Err(Error::invalid(
            what,
            name,
            "must not contain path separators or control characters",
        ));
    }
    let mut parts = Path::new(name).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(_)), None) => Ok(()),
        _ => Err(Error::invalid(
            what,
            name,
            "must be a single plain name (no `.`, `..` or absolute path)",
        )),
    }
}

#[cfg(test)]
mod component_tests {
    use super::*;

    /// The check without its fast path for printable ASCII names.
    fn reference(name: &str) -> bool {
        !name.is_empty()
            && !name
                .chars()
                .any(|c| c == '/' || c == '\\' || c.is_control())
            && {
                let mut parts = Path::new(name).components();
                matches!(
                    (parts.next(), parts.next()),
                    (Some(Component::Normal(_)), None)
                )
            }
    }

    /// The fast path accepts exactly what the whole check accepts.
    #[test]
    fn the_fast_path_accepts_what_the_check_accepts() {
        for name in [
            "decision-001-auth.md",
            "a",
            ".",
            "..",
            "...",
            ".md",
            "a.",
            " a ",
            "a/b",
            "/a",
            "a\\b",
            "a\u{7f}b",
            "a\tb",
            "a\u{85}b",
            "登入.md",
            "C:",
            "~",
            "./a",
            "a/",
        ] {
            assert_eq!(
                validate_component("x", name).is_ok(),
                reference(name),
                "{name:?}"
            );
        }
    }
}
