//! Session ids and agent names.

mod marks;

use std::fmt;

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use crate::durable::validate_component;
use crate::error::{Error, Result};

/// The longest session id or agent name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 200;

/// The longest agent name accepted, in bytes (room is left in ids for the date and a suffix).
pub const MAX_AGENT_NAME_BYTES: usize = 160;

/// A validated Memory Session ID such as `2026-05-25-1318-cursor-main-agent`.
///
/// Ids are single path components made of letters, combining marks and digits (any
/// script: `क्षत्रिय`, `é` written as `e` + U+0301), `-`, `_` and `.`, not starting with
/// `.` or `-` and not ending with `.` (Windows drops a trailing dot from file names):
/// they name files under `sessions/` and `archive/`, so nothing else can be allowed.
///
/// ```
/// use memory_core::SessionId;
/// let id = SessionId::parse("2026-05-25-1318-cursor-main-agent").unwrap();
/// assert_eq!(id.as_str(), "2026-05-25-1318-cursor-main-agent");
/// assert!(SessionId::parse("../etc/passwd").is_err());
/// assert!(SessionId::parse("a, b").is_err());
/// assert!(SessionId::parse("2026-05-25-1318-क्षत्रिय").is_ok());
/// assert!(SessionId::parse("session.").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct SessionId(String);

impl SessionId {
    /// Validates `text` as a session id.
    pub fn parse(text: &str) -> Result<Self> {
        validate_name("session id", text)?;
        Ok(SessionId(text.to_string()))
    }

    /// The id's text.
    ///
    /// ```
    /// assert_eq!(memory_core::SessionId::parse("x-1").unwrap().as_str(), "x-1");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The seed's `YYYY-MM-DD-HHMM-agent-name` id for `now`; when `taken` says it is in
    /// use (two agents of the same name in the same minute), `-2`, `-3`, … is appended
    /// until it is free.
    ///
    /// ```
    /// use memory_core::{AgentName, SessionId};
    /// let now = chrono::DateTime::parse_from_rfc3339("2026-05-25T13:18:09+08:00").unwrap();
    /// let agent = AgentName::parse("cursor-main-agent").unwrap();
    /// let first = SessionId::generate(now, &agent, |_| false);
    /// assert_eq!(first.as_str(), "2026-05-25-1318-cursor-main-agent");
    /// let second = SessionId::generate(now, &agent, |id| id == first.as_str());
    /// assert_eq!(second.as_str(), "2026-05-25-1318-cursor-main-agent-2");
    /// ```
    pub fn generate(
        now: DateTime<FixedOffset>,
        agent: &AgentName,
        taken: impl Fn(&str) -> bool,
    ) -> Self {
        let base = format!("{}-{}", now.format("%Y-%m-%d-%H%M"), agent.as_str());
        if !taken(&base) {
            return SessionId(base);
        }
        (2u64..)
            .map(|n| format!("{base}-{n}"))
            .find(|candidate| !taken(candidate))
            .map(SessionId)
            // The range is unbounded and `taken` can only hold finitely many ids.
            .unwrap_or_else(|| SessionId(base))
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A validated, stable agent name such as `cursor-main-agent` (same character rules as
/// [`SessionId`]; the seed asks for a stable name, task wording belongs in the topic).
///
/// ```
/// use memory_core::AgentName;
/// assert_eq!(AgentName::default().as_str(), "cursor-main-agent");
/// assert!(AgentName::parse("fix the login bug").is_err());
/// assert!(AgentName::parse("क्षत्रिय").is_ok());
/// assert!(AgentName::parse("cafe\u{301}-agent").is_ok());
/// assert!(AgentName::parse("agent.").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct AgentName(String);

impl AgentName {
    /// Validates `text` as an agent name.
    pub fn parse(text: &str) -> Result<Self> {
        validate_name("agent name", text)?;
        if text.len() > MAX_AGENT_NAME_BYTES {
            return Err(Error::invalid(
                "agent name",
                text,
                format!("is longer than {MAX_AGENT_NAME_BYTES} bytes"),
            ));
        }
        Ok(AgentName(text.to_string()))
    }

    /// The name's text.
    ///
    /// ```
    /// assert_eq!(memory_core::AgentName::parse("a").unwrap().as_str(), "a");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for AgentName {
    fn default() -> Self {
        AgentName(crate::agent_memory::DEFAULT_AGENT_NAME.to_string())
    }
}

/// Checks `text` as a session id without building one.
pub(crate) fn validate_session_id(text: &str) -> Result<()> {
    validate_name("session id", text)
}

/// CJK unified ideographs and Hangul syllables: letters (a test checks every one against
/// `char::is_alphanumeric`), tested by range before the slow Unicode table lookup that
/// CJK ids (`2026-06-08-2100-文件助手`) would otherwise take for every character.
fn is_common_letter(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}')
}

fn validate_name(what: &'static str, text: &str) -> Result<()> {
    // Letters, digits, `-`, `_`, `.` and no leading `.` make a plain path component by
    // construction; `validate_component` only runs to word the error for other text.
    let bad = first_bad(text);
    if text.is_empty() || bad.is_some() {
        validate_component(what, text)?;
    }
    if text.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(
            what,
            text,
            format!("is longer than {MAX_NAME_BYTES} bytes"),
        ));
    }
    if text.starts_with('.') || text.starts_with('-') {
        return Err(Error::invalid(what, text, "must not start with `.` or `-`"));
    }
    if let Some(bad) = bad {
        return Err(Error::invalid(
            what,
            text,
            format!("may hold only letters, marks, digits, `-`, `_` and `.` (found {bad:?})"),
        ));
    }
    if text.ends_with('.') {
        return Err(Error::invalid(
            what,
            text,
            "must not end with `.` (Windows drops it from file names)",
        ));
    }
    Ok(())
}

/// The ASCII bytes a name may hold (letters, digits, `-`, `_`, `.`), one look-up per
/// byte on the path every row's id takes.
static NAME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.';
        b += 1;
    }
    table
};

/// The first character a name may not hold: letters, marks, digits, `-`, `_` and `.`
/// are allowed. Looked for from the first byte that is not allowed ASCII (a character
/// boundary: every byte before it is ASCII), ASCII characters by byte and the others by
/// Unicode class.
fn first_bad(text: &str) -> Option<char> {
    let ascii = |b: u8| NAME_BYTES[usize::from(b)];
    let allowed = |c: char| {
        is_common_letter(c)
            || c.is_alphanumeric()
            || matches!(c, '-' | '_' | '.')
            || marks::is_mark(c)
    };
    // Eight bytes at a time while all are allowed ASCII (an id's date and agent name),
    // one look-up and `&` per byte without a branch; then byte by byte.
    let bytes = text.as_bytes();
    let clean = bytes
        .chunks_exact(8)
        .take_while(|chunk| chunk.iter().fold(true, |ok, &b| ok & ascii(b)))
        .count()
        * 8;
    let first = clean + bytes[clean..].iter().position(|&b| !ascii(b))?;
    text.get(first..)?.chars().find(|&c| {
        if c.is_ascii() {
            !ascii(c as u8)
        } else {
            !allowed(c)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_letters_are_alphanumeric() {
        for c in ('\u{4E00}'..='\u{9FFF}').chain('\u{AC00}'..='\u{D7A3}') {
            assert!(is_common_letter(c) && c.is_alphanumeric(), "{c:?}");
        }
        assert!(!is_common_letter('\u{4DFF}') && !is_common_letter('\u{A000}'));
    }

    /// The first character a name may not hold, found as before the byte-first search:
    /// every character checked by Unicode class.
    fn first_bad_reference(text: &str) -> Option<char> {
        text.chars().find(|&c| {
            !(is_common_letter(c)
                || c.is_alphanumeric()
                || matches!(c, '-' | '_' | '.')
                || marks::is_mark(c))
        })
    }

    proptest::proptest! {
        /// The byte-first search finds the character the plain search finds.
        #[test]
        fn the_first_bad_character_is_the_plain_searchs(
            text in "[a-zA-Z0-9_.\\-/ 文件助手é\u{301}\u{94d}\u{2028}:*?]{0,40}|[a-z0-9-]{0,30}[ /é文]?[a-z0-9-]{0,10}|\\PC{0,10}",
        ) {
            proptest::prop_assert_eq!(first_bad(&text), first_bad_reference(&text));
        }
    }
}
