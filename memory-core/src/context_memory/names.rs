//! Entity names (`{namespace}.{category}.{short_id}`), short ids and entity file names
//! (`{category}-{short_id}-{slug}.md`).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::namespace::{Namespace, check_segment};
use super::schema::Category;
use crate::error::{Error, Result};

/// The index file of a namespace directory.
pub const INDEX_FILE_NAME: &str = "_index.md";

/// The pending-refresh file the git hooks write in a project directory.
pub const PENDING_REFRESH_FILE_NAME: &str = "_pending_refresh.md";

/// The longest slug put in a new file name.
const MAX_SLUG_LEN: usize = 40;

/// A validated entity name, such as `org.global.decision.001`.
///
/// ```
/// use memory_core::context_memory::{Category, EntityName};
/// let name = EntityName::parse("project.myapp.api.decision.007").unwrap();
/// assert_eq!(name.namespace().as_str(), "project.myapp.api");
/// assert_eq!(name.category(), Category::Decision);
/// assert_eq!(name.short_id(), "007");
/// assert!(EntityName::parse("org.global.note.001").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub struct EntityName {
    name: String,
    namespace: Namespace,
    category: Category,
}

impl EntityName {
    /// Parses and validates `{namespace}.{category}.{short_id}`.
    pub fn parse(name: &str) -> Result<EntityName> {
        let (namespace, category) = EntityName::check(name)?;
        Ok(EntityName::from_checked(name, namespace, category))
    }

    /// The entity name `name`, which [`EntityName::check`] accepted with `namespace`
    /// (its namespace part) and `category`.
    pub(super) fn from_checked(name: &str, namespace: &str, category: Category) -> EntityName {
        EntityName {
            name: name.to_string(),
            namespace: Namespace::from_checked(namespace),
            category,
        }
    }

    /// Validates `name` without building an entity name: its namespace part and
    /// category, or the error [`EntityName::parse`] gives (a query checks every index
    /// row's name and builds names only for its hits).
    pub(crate) fn check(name: &str) -> Result<(&str, Category)> {
        let refuse = |why: String| Error::invalid("entity name", name, why);
        let (rest, short_id) = split_at_last_dot(name).ok_or_else(|| {
            refuse("must be {namespace}.{category}.{short_id}, e.g. org.global.decision.001".into())
        })?;
        let (namespace, category) = split_at_last_dot(rest).ok_or_else(|| {
            refuse("must be {namespace}.{category}.{short_id}, e.g. org.global.decision.001".into())
        })?;
        check_segment(short_id).map_err(|why| refuse(format!("short id {why}")))?;
        let category = category.parse::<Category>().map_err(|_| {
            refuse(format!(
                "{category:?} is not a category (one of {})",
                Category::allowed()
            ))
        })?;
        Namespace::check(namespace).map_err(|e| refuse(e.to_string()))?;
        Ok((namespace, category))
    }

    /// The name of entry `short_id` of `category` in `namespace`.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, EntityName, Namespace};
    /// let name = EntityName::new(&Namespace::org_global(), Category::Risk, "002").unwrap();
    /// assert_eq!(name.as_str(), "org.global.risk.002");
    /// ```
    pub fn new(namespace: &Namespace, category: Category, short_id: &str) -> Result<EntityName> {
        EntityName::parse(&format!("{namespace}.{category}.{short_id}"))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.name
    }

    /// The namespace part.
    pub fn namespace(&self) -> &Namespace {
        &self.namespace
    }

    /// The category part.
    pub fn category(&self) -> Category {
        self.category
    }

    /// The short id: a sequential number (`001`) or a descriptive slug.
    pub fn short_id(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or_default()
    }

    /// The short id as a sequence number, when it is all digits.
    pub fn sequence(&self) -> Option<u64> {
        sequence_of(self.short_id())
    }

    /// The same entry in another namespace (a split moves it there).
    pub fn in_namespace(&self, namespace: &Namespace) -> Result<EntityName> {
        EntityName::new(namespace, self.category, self.short_id())
    }
}

impl fmt::Display for EntityName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl FromStr for EntityName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        EntityName::parse(s)
    }
}

impl From<EntityName> for String {
    fn from(name: EntityName) -> String {
        name.name
    }
}

/// A short id read as a sequence number: all ASCII digits (at most 18 of them).
pub(crate) fn sequence_of(short_id: &str) -> Option<u64> {
    if short_id.is_empty() || short_id.len() > 18 || !short_id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    short_id.parse().ok()
}

/// The short id after the highest sequence number in use: three digits at least
/// (`001`), more when needed (`1000`).
///
/// ```
/// use memory_core::context_memory::next_short_id;
/// assert_eq!(next_short_id([]), "001");
/// assert_eq!(next_short_id([1, 7, 3]), "008");
/// assert_eq!(next_short_id([999]), "1000");
/// ```
pub fn next_short_id(used: impl IntoIterator<Item = u64>) -> String {
    let next = used.into_iter().max().map_or(1, |n| n.saturating_add(1));
    format!("{next:03}")
}

/// A slug for a file name made from a summary: lowercase ASCII words joined by `-`, at
/// most 40 characters, cut at a word; empty when the summary has no ASCII letters or
/// digits (a CJK summary: the file is then named without a slug).
///
/// ```
/// use memory_core::context_memory::slug_of;
/// assert_eq!(slug_of("Auth uses JWT (RS256) for APIs"), "auth-uses-jwt-rs256-for-apis");
/// assert_eq!(slug_of("使用 JWT"), "jwt");
/// assert_eq!(slug_of("認證流程"), "");
/// ```
pub fn slug_of(summary: &str) -> String {
    let mut slug = String::new();
    for word in summary
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_ascii_lowercase();
        let extra = if slug.is_empty() { 0 } else { 1 };
        if slug.len() + extra + word.len() > MAX_SLUG_LEN {
            if slug.is_empty() {
                slug.push_str(&word[..MAX_SLUG_LEN]);
            }
            break;
        }
        if extra == 1 {
            slug.push('-');
        }
        slug.push_str(&word);
    }
    slug
}

/// The file name of a new entity: `{category}-{short_id}-{slug}.md`, or
/// `{category}-{short_id}.md` when the short id is itself a descriptive slug or the slug
/// is empty.
///
/// ```
/// use memory_core::context_memory::{Category, entity_file_name};
/// assert_eq!(entity_file_name(Category::Decision, "001", "auth-flow"), "decision-001-auth-flow.md");
/// assert_eq!(entity_file_name(Category::Decision, "auth-flow", "auth-flow"), "decision-auth-flow.md");
/// assert_eq!(entity_file_name(Category::Todo, "002", ""), "todo-002.md");
/// ```
pub fn entity_file_name(category: Category, short_id: &str, slug: &str) -> String {
    if slug.is_empty() || sequence_of(short_id).is_none() {
        format!("{category}-{short_id}.md")
    } else {
        format!("{category}-{short_id}-{slug}.md")
    }
}

/// Whether a file in a namespace directory is an entity file: named as the seed names
/// them, `{category}-{short_id}[-{slug}].md` with one of the seed's categories (and not
/// hidden, nor a temp file). Any other file there is *foreign* ([`is_foreign_file_name`]):
/// a `README.md` or `NOTES.md` a person keeps beside the entries is never read as an
/// entity, indexed, counted or rewritten.
///
/// ```
/// use memory_core::context_memory::is_entity_file_name;
/// assert!(is_entity_file_name("decision-001-auth.md"));
/// assert!(is_entity_file_name("todo-fix-login.md"));
/// assert!(!is_entity_file_name("_index.md"));
/// assert!(!is_entity_file_name("_pending_refresh.md"));
/// assert!(!is_entity_file_name("README.md"));
/// assert!(!is_entity_file_name("todo.md"));
/// assert!(!is_entity_file_name("decision-.md"));
/// assert!(!is_entity_file_name("Decision-001.md"));
/// assert!(!is_entity_file_name("notes.txt"));
/// assert!(!is_entity_file_name(".decision-001.md.tmp-1-2"));
/// ```
pub fn is_entity_file_name(name: &str) -> bool {
    is_markdown_file_name(name)
        && Category::ALL.iter().any(|c| {
            name.strip_prefix(c.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.len() > ".md".len())
        })
}

/// Whether a file in a namespace directory is *foreign*: a file a person keeps there
/// (`README.md`, `NOTES.md`, `todo.md`, `diagram.png`) that is neither an entity file
/// ([`is_entity_file_name`]) nor one of memory-core's own (`_index.md`,
/// `_pending_refresh.md`, an `_index.md.bak-…` backup, a hidden lock or temp file).
/// `verify` and `heal` list foreign files apart from drift; nothing else reads them.
///
/// ```
/// use memory_core::context_memory::is_foreign_file_name;
/// assert!(is_foreign_file_name("README.md"));
/// assert!(is_foreign_file_name("todo.md"));
/// assert!(is_foreign_file_name("notes.txt"));
/// assert!(!is_foreign_file_name("decision-001-auth.md"));
/// assert!(!is_foreign_file_name("_index.md"));
/// assert!(!is_foreign_file_name("_index.md.bak-20260403T100000Z"));
/// assert!(!is_foreign_file_name(".decision-001.md.tmp-1-2"));
/// ```
pub fn is_foreign_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name != INDEX_FILE_NAME
        && name != PENDING_REFRESH_FILE_NAME
        && !name.starts_with(INDEX_BACKUP_PREFIX)
        && !is_entity_file_name(name)
}

/// The start of the name of an old index heal moved aside (`_index.md.bak-<UTC time>`).
pub(crate) const INDEX_BACKUP_PREFIX: &str = "_index.md.bak-";

/// Whether `name` is a `.md` file name other than the index and the pending-refresh
/// list (nor hidden, nor a temp file): what an index's `File` cell may name, and what
/// `migrate` tries to import (renaming it to an entity file name when it is not one).
pub(crate) fn is_markdown_file_name(name: &str) -> bool {
    name.ends_with(".md")
        && name.len() > 3
        && !name.starts_with('.')
        && name != INDEX_FILE_NAME
        && name != PENDING_REFRESH_FILE_NAME
}

/// `s.rsplit_once('.')`, found by a loop over the bytes from the end (the short id and
/// the category are a few bytes each; every index row's name is checked on each query).
fn split_at_last_dot(s: &str) -> Option<(&str, &str)> {
    let dot = s.bytes().rposition(|b| b == b'.')?;
    // `.` is ASCII, so both sides are whole characters.
    Some((s.get(..dot)?, s.get(dot + 1..)?))
}

/// Checks a `File` cell of an index: one plain file name (no directory part).
pub(crate) fn check_file_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("File is empty".to_string());
    }
    if name.contains(['/', '\\', '\0']) || name == "." || name == ".." {
        return Err(format!(
            "File {name:?} must be a file name in this directory, without a path"
        ));
    }
    if !is_markdown_file_name(name) {
        return Err(format!(
            "File {name:?} is not an entity file name (a .md file other than {INDEX_FILE_NAME} and {PENDING_REFRESH_FILE_NAME})"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_dot_splits_as_rsplit_once_does() {
        for s in [
            "",
            ".",
            "a",
            "a.b",
            "a.b.c",
            "..",
            "é.ü.登入",
            "a.",
            ".a",
            "x..y",
        ] {
            assert_eq!(split_at_last_dot(s), s.rsplit_once('.'), "{s:?}");
        }
    }

    #[test]
    fn entity_names_split_at_the_category() {
        let name = EntityName::parse("org.global.decision.001").unwrap();
        assert_eq!(name.namespace().as_str(), "org.global");
        assert_eq!(name.sequence(), Some(1));
        let slugged = EntityName::parse("session.current.todo.fix-login").unwrap();
        assert_eq!(slugged.short_id(), "fix-login");
        assert_eq!(slugged.sequence(), None);
        for bad in [
            "",
            "decision.001",
            "org.global.decision",
            "org.global.decision.",
            "org.global.decision.0/1",
            "org.global.Decision.001",
            "nope.global.decision.001",
            "org.global.decision.001 ",
        ] {
            assert!(EntityName::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn file_cells_are_plain_entity_file_names() {
        assert!(check_file_name("decision-001.md").is_ok());
        for bad in [
            "",
            "../x.md",
            "a/b.md",
            "_index.md",
            "x.txt",
            ".md",
            "..",
            "a\\b.md",
        ] {
            assert!(check_file_name(bad).is_err(), "{bad:?}");
        }
    }
}
