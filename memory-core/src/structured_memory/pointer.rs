//! One `MEMORY.md` pointer line: `- [Title](file.md) — hook`, read and written.
//!
//! Read: a bullet (`-`, `*` or `+`, up to three spaces of indentation, then white space),
//! a link `[title](target)` (`\[`, `\]` and `\\` are escapes in the title; the target
//! may be wrapped in `<…>`), then an optional separator (`—`, `–`, `-` or `:`) and the
//! hook. Only a link to a `.md` file (ignoring case) makes a pointer; anything else on a
//! list line is content. Written: `- [Title](file.md) — hook`, with the em dash of the
//! seed's examples.

use crate::error::{Error, Result};

/// The separator memory-core writes between a pointer's link and its hook.
pub const HOOK_SEPARATOR: &str = " — ";

/// The parts of a pointer line, as written in the file (the title unescaped, the target
/// as written between the parentheses, the hook trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PointerParts {
    pub title: String,
    pub target: String,
    pub hook: String,
}

/// Reads `line` as a pointer line, or `None` when it is not one.
pub(super) fn parse_pointer(line: &str) -> Option<PointerParts> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let mut chars = rest.chars();
    if !matches!(chars.next(), Some('-' | '*' | '+')) {
        return None;
    }
    let after_bullet = chars.as_str();
    if !after_bullet.starts_with([' ', '\t']) {
        return None;
    }
    let rest = after_bullet
        .trim_start_matches([' ', '\t'])
        .strip_prefix('[')?;
    let (title, rest) = link_text(rest)?;
    let rest = rest.strip_prefix('(')?;
    let (target, rest) = link_target(rest)?;
    if !is_markdown_file(&target) {
        return None;
    }
    let rest = rest.trim();
    let hook = ["—", "–", "-", ":"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .unwrap_or(rest)
        .trim();
    Some(PointerParts {
        title,
        target,
        hook: hook.to_string(),
    })
}

/// The title up to the first unescaped `]`, unescaped, and the text after that `]`.
fn link_text(s: &str) -> Option<(String, &str)> {
    let mut title = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e @ ('[' | ']' | '\\'))) => title.push(e),
                Some((_, e)) => {
                    title.push('\\');
                    title.push(e);
                }
                None => title.push('\\'),
            },
            // A nested `[` would make a different link: not a pointer.
            '[' => return None,
            ']' => return Some((title, &s[i + 1..])),
            _ => title.push(c),
        }
    }
    None
}

/// The link target up to its `)` (`<…>` or a run without spaces and with balanced
/// parentheses), and the text after the `)`.
fn link_target(s: &str) -> Option<(String, &str)> {
    if let Some(inner) = s.strip_prefix('<') {
        let end = inner.find('>')?;
        let target = &inner[..end];
        let rest = inner[end + 1..].strip_prefix(')')?;
        return (!target.contains('<')).then(|| (target.to_string(), rest));
    }
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                let target = &s[..i];
                return (!target.is_empty()).then(|| (target.to_string(), &s[i + 1..]));
            }
            ')' => depth -= 1,
            c if c.is_whitespace() => return None,
            _ => {}
        }
    }
    None
}

/// Whether a link target names a Markdown file (its path, before any `#` or `?`, ends in
/// `.md`, ignoring case).
pub(crate) fn is_markdown_file(target: &str) -> bool {
    let path = target.split(['#', '?']).next().unwrap_or(target).as_bytes();
    // By bytes: the last three of a name ending in a wider character are no char boundary.
    path.len() > 3 && path[path.len() - 3..].eq_ignore_ascii_case(b".md")
}

/// The file a pointer's target names, relative to the memory directory: `%XX` escapes
/// decoded, a leading `./` dropped. Refused (`InvalidInput`, `what` = `topic file`) when it
/// would leave the directory or is not a plain relative path: a URL, an absolute path,
/// `..`, a backslash, a fragment or query, a control character.
pub(super) fn target_file(target: &str) -> Result<String> {
    let refuse = |why: &str| Err(Error::invalid("topic file", target, why.to_string()));
    if target.contains("://") || target.starts_with("mailto:") {
        return refuse("is a URL, not a file in the memory directory");
    }
    let decoded = percent_decoded(target).ok_or_else(|| {
        Error::invalid(
            "topic file",
            target,
            "has a %-escape that is not UTF-8".to_string(),
        )
    })?;
    validate_topic_file(&decoded).map(|_| decoded.trim_start_matches("./").to_string())
}

/// Checks a topic file name given by a caller or read from a link: a relative path of
/// `/`-separated plain components ending in `.md`, inside the directory.
pub(crate) fn validate_topic_file(file: &str) -> Result<()> {
    let refuse = |why: &str| Err(Error::invalid("topic file", file, why.to_string()));
    let file = file.strip_prefix("./").unwrap_or(file);
    if file.is_empty() {
        return refuse("is empty");
    }
    if file.starts_with('/') || file.contains('\\') || file.contains(':') {
        return refuse("must be a relative path inside the memory directory");
    }
    if file.contains(['#', '?']) {
        return refuse("must name a file (no #fragment or ?query)");
    }
    if file.chars().any(char::is_control) {
        return refuse("must not hold control characters");
    }
    for component in file.split('/') {
        if component.is_empty() || component == "." || component == ".." {
            return refuse("must not hold empty, `.` or `..` components");
        }
        if component.starts_with('.') {
            return refuse("must not name a hidden file or directory");
        }
    }
    if !is_markdown_file(file) {
        return refuse("must be a .md file");
    }
    // The index, the archive and the Agent Memory tree sharing the directory are never
    // topics: a link to them is not followed, a write to them is refused.
    let first = file.split('/').next().unwrap_or(file);
    if file.contains('/')
        && (first.eq_ignore_ascii_case("sessions") || first.eq_ignore_ascii_case("archive"))
    {
        return refuse("is under Agent Memory's sessions/ or archive/, which are not topics");
    }
    if let Some(reserved) = super::memory::RESERVED_FILES
        .iter()
        .find(|r| r.eq_ignore_ascii_case(file))
    {
        return refuse(&format!(
            "{reserved} is not a topic file (the index, the append-only archive, or Agent Memory's index)"
        ));
    }
    Ok(())
}

/// `%XX` escapes decoded (`None` when the result is not UTF-8 or an escape is cut off).
fn percent_decoded(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A pointer line as memory-core writes it (no line terminator): the title escaped, the
/// target wrapped in `<…>` when it holds a space or parenthesis.
///
/// ```
/// use memory_core::structured_memory::render_pointer;
/// assert_eq!(
///     render_pointer("Project X", "memory-project-x.md", "build quirks, deploy pipeline"),
///     "- [Project X](memory-project-x.md) — build quirks, deploy pipeline"
/// );
/// assert_eq!(render_pointer("A [b]", "my notes.md", ""), "- [A \\[b\\]](<my notes.md>)");
/// ```
pub fn render_pointer(title: &str, file: &str, hook: &str) -> String {
    let mut out = String::from("- [");
    for c in title.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push_str("](");
    if file.contains([' ', '(', ')', '<', '>']) {
        out.push('<');
        out.push_str(file);
        out.push('>');
    } else {
        out.push_str(file);
    }
    out.push(')');
    if !hook.trim().is_empty() {
        out.push_str(HOOK_SEPARATOR);
        out.push_str(hook.trim());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(line: &str) -> Option<(String, String, String)> {
        parse_pointer(line).map(|p| (p.title, p.target, p.hook))
    }

    #[test]
    fn the_seed_s_lines_are_pointers() {
        assert_eq!(
            parts(
                "- [Project X](memory-project-x.md) — build quirks, deploy pipeline, API gotchas"
            ),
            Some((
                "Project X".into(),
                "memory-project-x.md".into(),
                "build quirks, deploy pipeline, API gotchas".into()
            ))
        );
        assert_eq!(
            parts("- [User](USER.md) — role, preferences, corrections received"),
            Some((
                "User".into(),
                "USER.md".into(),
                "role, preferences, corrections received".into()
            ))
        );
    }

    #[test]
    fn spellings_people_use_are_read() {
        for (line, hook) in [
            ("* [A](a.md) - hook", "hook"),
            ("+ [A](a.md): hook", "hook"),
            ("   - [A](a.md) – hook", "hook"),
            ("-\t[A](a.MD)\t—\thook", "hook"),
            ("- [A](a.md)", ""),
            ("- [A](a.md) —", ""),
            ("- [A](a.md) hook without a dash", "hook without a dash"),
            ("- [A](<a.md>) — hook", "hook"),
        ] {
            assert_eq!(parts(line).map(|p| p.2), Some(hook.to_string()), "{line:?}");
        }
    }

    #[test]
    fn lines_that_are_not_pointers() {
        for line in [
            "    - [A](a.md) — indented code",
            "-[A](a.md) — no space after the bullet",
            "- A (a.md) — no link",
            "- [A](https://example.com) — a URL that is not a .md",
            "- [A](a.txt) — not markdown",
            "- [A]() — empty",
            "- [A](a b.md) — space without brackets",
            "- [[A]](a.md) — nested",
            "1. [A](a.md) — ordered",
            "text [A](a.md)",
            "",
        ] {
            assert_eq!(parts(line), None, "{line:?}");
        }
    }

    #[test]
    fn titles_round_trip_through_escapes() {
        for title in ["Plain", "A [b] c", "back\\slash", "ünïcødé 文件", "x]y"] {
            let line = render_pointer(title, "t.md", "h");
            assert_eq!(
                parts(&line),
                Some((title.to_string(), "t.md".into(), "h".into()))
            );
        }
    }

    #[test]
    fn targets_stay_inside_the_directory() {
        assert_eq!(target_file("memory-x.md").unwrap(), "memory-x.md");
        assert_eq!(target_file("./USER.md").unwrap(), "USER.md");
        assert_eq!(target_file("my%20notes.md").unwrap(), "my notes.md");
        assert_eq!(target_file("topics/infra.md").unwrap(), "topics/infra.md");
        for bad in [
            "../x.md",
            "a/../../x.md",
            "/etc/x.md",
            "C:/x.md",
            "a\\b.md",
            "https://x.io/a.md",
            "%2e%2e/x.md",
            "a.md#part",
            ".hidden.md",
            "x%ff.md",
            "x%2.md",
            "a//b.md",
        ] {
            let err = target_file(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{bad:?}");
        }
    }
}
