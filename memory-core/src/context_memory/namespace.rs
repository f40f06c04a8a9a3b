//! context-memory namespaces and the directories they map to (the seed's table):
//!
//! | namespace | directory |
//! |---|---|
//! | `org.global` | `org/global/` |
//! | `org.security` | `org/security/` |
//! | `project.<name>` | `projects/<name>/` |
//! | `project.<name>.<domain>` | `projects/<name>/<domain>/` |
//! | `project.junk` | `projects/junk/` |
//! | `session.current` | `session/current/` |
//!
//! Other `org.<area>` namespaces map the same way (`org/<area>/`), and a domain may be
//! split again (`project.<name>.<domain>.<sub>` → `projects/<name>/<domain>/<sub>/`), up to
//! [`MAX_DOMAIN_DEPTH`] levels. Every segment is a lowercase name of ASCII letters, digits,
//! `-` and `_`, so no namespace can name a path outside its directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;

use crate::error::{Error, Result};

/// How many domain levels a project namespace may have below the project.
pub const MAX_DOMAIN_DEPTH: usize = 4;

/// The longest segment accepted (a directory name on every file system).
pub const MAX_SEGMENT_LEN: usize = 64;

/// The three families of namespaces.
///
/// ```
/// use memory_core::context_memory::{Namespace, NamespaceKind};
/// assert_eq!(Namespace::parse("project.api").unwrap().kind(), NamespaceKind::Project);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NamespaceKind {
    /// `org.<area>`: knowledge shared across projects.
    Org,
    /// `project.<name>` and its domains.
    Project,
    /// `session.current`: ephemeral, read only when named.
    Session,
}

/// A validated namespace such as `org.global` or `project.myapp.api`.
///
/// ```
/// use memory_core::context_memory::Namespace;
/// let ns = Namespace::parse("project.myapp.api").unwrap();
/// assert_eq!(ns.dir(), std::path::Path::new("projects/myapp/api"));
/// assert_eq!(ns.parent().unwrap().as_str(), "project.myapp");
/// assert!(Namespace::parse("project.../etc").is_err());
/// assert!(Namespace::parse("Project.MyApp").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub struct Namespace(String);

impl Namespace {
    /// `org.global`.
    pub fn org_global() -> Namespace {
        Namespace("org.global".to_string())
    }

    /// `session.current`.
    pub fn session_current() -> Namespace {
        Namespace("session.current".to_string())
    }

    /// Parses and validates a namespace name.
    ///
    /// ```
    /// use memory_core::context_memory::Namespace;
    /// for ok in ["org.global", "org.security", "project.junk", "project.my-app.api_v2", "session.current"] {
    ///     assert!(Namespace::parse(ok).is_ok(), "{ok}");
    /// }
    /// for bad in ["", "org", "org.", "project", "session.other", "team.x", "project.a/b", "project.a..b", "project.A"] {
    ///     assert!(Namespace::parse(bad).is_err(), "{bad}");
    /// }
    /// ```
    pub fn parse(name: &str) -> Result<Namespace> {
        Namespace::check(name)?;
        Ok(Namespace(name.to_string()))
    }

    /// A namespace from a name [`Namespace::check`] accepted.
    pub(super) fn from_checked(name: &str) -> Namespace {
        Namespace(name.to_string())
    }

    /// Validates a namespace name without building one (what [`Namespace::parse`]
    /// refuses, with the same error): every index row's entity name is checked on
    /// each query.
    pub(crate) fn check(name: &str) -> Result<()> {
        let refuse = |why: &str| Error::invalid("namespace", name, why);
        let mut segments = name.split('.');
        let family = segments.next().unwrap_or_default();
        // The segments after the family: how many, and the first (no list is built —
        // every index row's entity name is parsed on each query).
        let (mut count, mut first) = (0usize, "");
        for segment in segments {
            check_segment(segment).map_err(|why| refuse(&why))?;
            if count == 0 {
                first = segment;
            }
            count += 1;
        }
        match (family, count) {
            ("org", 1) => {}
            ("org", _) => return Err(refuse("an org namespace is org.<area>, e.g. org.global")),
            ("session", 1) if first == "current" => {}
            ("session", _) => return Err(refuse("the session namespace is session.current")),
            ("project", n) if n >= 1 && n - 1 <= MAX_DOMAIN_DEPTH => {}
            ("project", 0) => {
                return Err(refuse("a project namespace is project.<name>[.<domain>]"));
            }
            ("project", _) => {
                return Err(refuse(&format!(
                    "a project namespace has at most {MAX_DOMAIN_DEPTH} domain levels"
                )));
            }
            _ => {
                return Err(refuse(
                    "must start with org., project. or session. (org.global, project.<name>, session.current)",
                ));
            }
        }
        Ok(())
    }

    /// The project namespace `project.<name>`; `name` must be a valid segment (see
    /// [`project_segment`] to make one from a repository or folder name).
    ///
    /// ```
    /// use memory_core::context_memory::Namespace;
    /// assert_eq!(Namespace::project("myapp").unwrap().as_str(), "project.myapp");
    /// ```
    pub fn project(name: &str) -> Result<Namespace> {
        Namespace::parse(&format!("project.{name}"))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Which family the namespace belongs to.
    pub fn kind(&self) -> NamespaceKind {
        match self.0.split('.').next() {
            Some("org") => NamespaceKind::Org,
            Some("session") => NamespaceKind::Session,
            _ => NamespaceKind::Project,
        }
    }

    /// The directory, relative to the memory root.
    ///
    /// ```
    /// use memory_core::context_memory::Namespace;
    /// assert_eq!(Namespace::parse("org.global").unwrap().dir(), std::path::Path::new("org/global"));
    /// assert_eq!(Namespace::parse("session.current").unwrap().dir(), std::path::Path::new("session/current"));
    /// ```
    pub fn dir(&self) -> PathBuf {
        let mut segments = self.0.split('.');
        let family = match segments.next() {
            Some("project") => "projects",
            Some(other) => other,
            None => "",
        };
        let mut dir = PathBuf::from(family);
        dir.extend(segments);
        dir
    }

    /// The namespace a directory (relative to the root) holds, if it is one.
    ///
    /// ```
    /// use memory_core::context_memory::Namespace;
    /// use std::path::Path;
    /// assert_eq!(Namespace::from_dir(Path::new("projects/myapp/api")).unwrap().as_str(), "project.myapp.api");
    /// assert!(Namespace::from_dir(Path::new("archive/old")).is_none());
    /// assert!(Namespace::from_dir(Path::new("projects")).is_none());
    /// ```
    pub fn from_dir(dir: &Path) -> Option<Namespace> {
        let mut parts = Vec::new();
        for component in dir.components() {
            match component {
                std::path::Component::Normal(part) => parts.push(part.to_str()?),
                _ => return None,
            }
        }
        let (first, rest) = parts.split_first()?;
        let family = match *first {
            "projects" => "project",
            "org" => "org",
            "session" => "session",
            _ => return None,
        };
        let name = std::iter::once(family)
            .chain(rest.iter().copied())
            .collect::<Vec<_>>()
            .join(".");
        Namespace::parse(&name).ok()
    }

    /// The namespace one level up (`project.a.b` → `project.a`); `None` for a project,
    /// org or session namespace at the top.
    pub fn parent(&self) -> Option<Namespace> {
        let (parent, _) = self.0.rsplit_once('.')?;
        match self.kind() {
            NamespaceKind::Project if parent.contains('.') => Some(Namespace(parent.to_string())),
            _ => None,
        }
    }

    /// The domain namespace `<self>.<domain>` of a project namespace.
    ///
    /// ```
    /// use memory_core::context_memory::Namespace;
    /// let api = Namespace::parse("project.myapp").unwrap().domain("api").unwrap();
    /// assert_eq!(api.as_str(), "project.myapp.api");
    /// assert!(Namespace::org_global().domain("api").is_err());
    /// ```
    pub fn domain(&self, domain: &str) -> Result<Namespace> {
        if self.kind() != NamespaceKind::Project {
            return Err(Error::invalid(
                "namespace",
                self.as_str(),
                "only project namespaces have domains",
            ));
        }
        Namespace::parse(&format!("{}.{domain}", self.0))
    }

    /// Whether `self` is `other` or one of its domains (at any depth).
    pub fn is_within(&self, other: &Namespace) -> bool {
        self == other
            || self
                .0
                .strip_prefix(other.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Namespace {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Namespace::parse(s)
    }
}

impl From<Namespace> for String {
    fn from(ns: Namespace) -> String {
        ns.0
    }
}

impl AsRef<str> for Namespace {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Checks one segment of a namespace (or a category-free name part): 1 to
/// [`MAX_SEGMENT_LEN`] lowercase ASCII letters, digits, `-` or `_`, starting with a
/// letter or digit.
pub(crate) fn check_segment(segment: &str) -> std::result::Result<(), String> {
    if segment.is_empty() {
        return Err("has an empty segment (two dots, or a dot at an end)".to_string());
    }
    if segment.len() > MAX_SEGMENT_LEN {
        return Err(format!(
            "has a segment longer than {MAX_SEGMENT_LEN} characters"
        ));
    }
    let bytes = segment.as_bytes();
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_';
    if (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
        && bytes.iter().all(|&b| allowed(b))
    {
        // The common case, checked byte by byte (every index row's name is checked on
        // each query); the words for a refusal come from the checks below.
        return Ok(());
    }
    if !bytes[0].is_ascii_lowercase() && !bytes[0].is_ascii_digit() {
        return Err(format!(
            "segment {segment:?} must start with a lowercase letter or a digit"
        ));
    }
    if let Some(bad) = segment
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "segment {segment:?} holds {bad:?}: only lowercase ASCII letters, digits, '-' and '_' are allowed"
        ));
    }
    Ok(())
}

/// A project name as the seed derives it — a repository's or folder's name, lowercased
/// — made into a valid namespace segment: every run of characters other than ASCII
/// letters, digits, `-` and `_` (a `.` included: `socket.io` would read as a domain)
/// becomes one `-`, leading and trailing `-` are dropped, and the result is cut to
/// [`MAX_SEGMENT_LEN`]. `None` when nothing is left (a name of only symbols).
///
/// ```
/// use memory_core::context_memory::project_segment;
/// assert_eq!(project_segment("Memory-Core").as_deref(), Some("memory-core"));
/// assert_eq!(project_segment("socket.io").as_deref(), Some("socket-io"));
/// assert_eq!(project_segment("My App (old)").as_deref(), Some("my-app-old"));
/// assert_eq!(project_segment("???"), None);
/// ```
pub fn project_segment(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    let trimmed = out.trim_matches(|c| c == '-' || c == '_');
    let mut cut = trimmed.to_string();
    cut.truncate(MAX_SEGMENT_LEN);
    let cut = cut.trim_end_matches(['-', '_']).to_string();
    (!cut.is_empty()).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_seed_table_maps_exactly() {
        for (ns, dir) in [
            ("org.global", "org/global"),
            ("org.security", "org/security"),
            ("project.myapp", "projects/myapp"),
            ("project.myapp.api", "projects/myapp/api"),
            ("project.junk", "projects/junk"),
            ("session.current", "session/current"),
        ] {
            let parsed = Namespace::parse(ns).unwrap();
            assert_eq!(parsed.dir(), Path::new(dir), "{ns}");
            assert_eq!(
                Namespace::from_dir(Path::new(dir)).unwrap(),
                parsed,
                "{dir}"
            );
        }
    }

    #[test]
    fn hostile_names_are_refused() {
        for bad in [
            "project..",
            "project./etc",
            "project.a/../b",
            "project.a\\b",
            "project.a\0b",
            "project. a",
            "project.-a",
            "project._a",
            "project.é",
            "org.global.x",
            "session.current.x",
            "/org/global",
            "project.a.b.c.d.e.f",
            &format!("project.{}", "a".repeat(65)),
        ] {
            assert!(Namespace::parse(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Whatever the input, a namespace that parses maps to a relative path of plain
        /// components under the root, and back to itself.
        #[test]
        fn a_parsed_namespace_stays_under_the_root(name in "(org|project|session)(\\.[a-z0-9_./\\\\-]{0,8}){0,6}|\\PC{0,24}") {
            if let Ok(ns) = Namespace::parse(&name) {
                let dir = ns.dir();
                prop_assert!(dir.components().all(|c| matches!(c, std::path::Component::Normal(_))));
                prop_assert_eq!(Namespace::from_dir(&dir), Some(ns));
            }
        }

        /// The parser (which counts segments instead of collecting them) gives the
        /// verdicts and messages of the slice-pattern parser it replaced.
        #[test]
        fn parse_equals_the_slice_reference(name in "(org|project|session|team)(\\.(current|[a-z0-9_/A-]{0,4})){0,7}") {
            prop_assert_eq!(
                Namespace::parse(&name).map_err(|e| e.to_string()),
                reference_parse(&name).map_err(|e| e.to_string())
            );
        }

        /// A derived project segment is always a valid segment.
        #[test]
        fn project_segments_are_valid(name in "\\PC{0,80}") {
            if let Some(segment) = project_segment(&name) {
                prop_assert!(check_segment(&segment).is_ok(), "{:?}", segment);
            }
        }
    }

    /// The parser as it was before it stopped collecting the segments.
    fn reference_parse(name: &str) -> Result<Namespace> {
        let refuse = |why: &str| Error::invalid("namespace", name, why);
        let mut segments = name.split('.');
        let family = segments.next().unwrap_or_default();
        let rest: Vec<&str> = segments.collect();
        for segment in &rest {
            check_segment(segment).map_err(|why| refuse(&why))?;
        }
        match (family, rest.as_slice()) {
            ("org", [_]) => {}
            ("org", _) => return Err(refuse("an org namespace is org.<area>, e.g. org.global")),
            ("session", ["current"]) => {}
            ("session", _) => return Err(refuse("the session namespace is session.current")),
            ("project", [_, domains @ ..]) if domains.len() <= MAX_DOMAIN_DEPTH => {}
            ("project", []) => {
                return Err(refuse("a project namespace is project.<name>[.<domain>]"));
            }
            ("project", _) => {
                return Err(refuse(&format!(
                    "a project namespace has at most {MAX_DOMAIN_DEPTH} domain levels"
                )));
            }
            _ => {
                return Err(refuse(
                    "must start with org., project. or session. (org.global, project.<name>, session.current)",
                ));
            }
        }
        Ok(Namespace(name.to_string()))
    }
}
