//! One `MEMORY.md` pointer line: `- [Title](file.md) — hook`, read and written.
//!
//! Read: a list marker (`-`, `*`, `+`, or `1.`/`1)`; up to three spaces of indentation,
//! then white space), a link `[title](target)` (`\[`, `\]` and `\\` are escapes in the
//! title; the target may be wrapped in `<…>` and followed by a link title `"…"`, `'…'` or
//! `(…)`), or a reference link `[title][ref]`, `[title][]`, `[title]` with its `[ref]:
//! target` definition in the file; the link may be wrapped in emphasis (`**…**`, `_…_`);
//! then an optional separator (`—`, `–`, `-` or `:`) and the hook. Only a link to a `.md`
//! file (ignoring case) makes a pointer; anything else on a list line is content. Written: `- [Title](file.md) — hook`, with the em dash of the
//! seed's examples.

use std::ops::Range;

use crate::error::{Error, Result};

/// The separator memory-core writes between a pointer's link and its hook.
pub const HOOK_SEPARATOR: &str = " — ";

/// The parts of a pointer line, as written in the file (the title unescaped, the target
/// as written between the parentheses, the hook trimmed), and where the title and the
/// hook are in the line, so that either can be replaced leaving every other byte as it is
/// (see `pointer_edit.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PointerParts {
    pub title: String,
    pub target: String,
    pub hook: String,
    /// Where the title is written and how a new one is written there.
    pub title_edit: TitleEdit,
    /// The hook's bytes in the line, from its first visible character to its last (an
    /// Obsidian comment after it is not in it); when there is no hook, the empty range
    /// where one goes: just past the separator, else just past the link (and the
    /// emphasis closing it).
    pub hook_span: Range<usize>,
    /// Whether a separator (`—`, `–`, `-`, `:`) stands before the hook.
    pub separator: bool,
}

/// Where a pointer's title is in its line, by the link's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TitleEdit {
    /// The link text of `[text](target)` or `[text][ref]`, escapes as written.
    Text(Range<usize>),
    /// `[text][]` or `[text]`: the text is also the reference label, so that a new title
    /// is written `[new][label]` over this range (the text to the end of the reference)
    /// and the link still finds its definition.
    TextAndLabel(Range<usize>, String),
    /// A wikilink's alias after `|` (the range empty when the alias is).
    WikiAlias(Range<usize>),
    /// A wikilink without an alias: a new title is written `|new` at this offset (before
    /// the `]]`).
    WikiAddAlias(usize),
}

/// The byte offset of `part` (a slice of `line`) in `line`.
fn offset(line: &str, part: &str) -> usize {
    part.as_ptr() as usize - line.as_ptr() as usize
}

/// Reads `line` as a pointer line, with the link reference definitions of its file
/// (`[ref]: file.md`) for `[title][ref]`, `[title][]` and `[title]` links. A pointer is
/// a list item (`-`, `*`, `+`, or `1.`/`1)`; up to three spaces of indentation) whose
/// text starts with a link to a `.md` file, optionally wrapped in emphasis (`**[T](t.md)**`)
/// and with a link title (`[T](t.md "title")`), then the optional separator and the hook.
pub(super) fn parse_pointer_with(line: &str, definitions: &Definitions) -> Option<PointerParts> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let after_bullet = list_marker(&line[indent..])?;
    if !after_bullet.starts_with([' ', '\t']) {
        return None;
    }
    let rest = after_bullet.trim_start_matches([' ', '\t']);
    // Emphasis around the link: `**[T](t.md)**`, `*…*`, `__…__`, `_…_` (a run never
    // closed renders as itself before the link: still the link).
    let emphasis_len = rest
        .bytes()
        .take_while(|b| *b == b'*' || *b == b'_')
        .count();
    let emphasis = &rest[..emphasis_len];
    if let Some(wiki) = rest[emphasis_len..].strip_prefix("[[") {
        return wikilink(line, wiki, emphasis);
    }
    let text = rest[emphasis_len..].strip_prefix('[')?;
    let (title, rest) = link_text(text)?;
    let title_start = offset(line, text);
    // Just before the `]` that closes the text.
    let title_end = offset(line, rest) - 1;
    let (target, rest, title_edit) = match rest.strip_prefix('(') {
        Some(inline) => {
            let (target, rest) = link_target(inline)?;
            (target, rest, TitleEdit::Text(title_start..title_end))
        }
        None => {
            let (target, after, label) = reference_target(&title, rest, definitions)?;
            let edit = match label {
                Some(_) => TitleEdit::Text(title_start..title_end),
                None => TitleEdit::TextAndLabel(
                    title_start..offset(line, after),
                    line[title_start..title_end].to_string(),
                ),
            };
            (target, after, edit)
        }
    };
    if !is_markdown_file(&target) {
        return None;
    }
    let rest = rest.strip_prefix(emphasis).unwrap_or(rest);
    let (hook, hook_span, separator) = hook_in(line, rest);
    Some(PointerParts {
        title,
        target,
        hook,
        title_edit,
        hook_span,
        separator,
    })
}

/// Extensions of the files Obsidian links as attachments, not notes: a wikilink to one
/// is no pointer (`[[v1.2 notes]]` is `v1.2 notes.md`).
const ATTACHMENTS: &[&str] = &[
    "png",
    "jpg",
    "jpeg",
    "gif",
    "bmp",
    "svg",
    "webp",
    "avif",
    "pdf",
    "canvas",
    "base",
    "mp3",
    "wav",
    "ogg",
    "m4a",
    "flac",
    "webm",
    "mp4",
    "mov",
    "mkv",
    "ogv",
    "3gp",
    "txt",
    "csv",
    "json",
    "html",
    "excalidraw",
];

/// An Obsidian wikilink pointer after its `[[`: `memory-x]]`, `memory-x.md]]`,
/// `memory-x|Title]]` or `memory-x#Heading]]`, then the hook. The target is the file
/// (`.md` added unless it ends in `.md`; a `#heading` or `#^block` part left off; a
/// target with an attachment's extension, `.pdf` or `.png`, is no pointer); the title the alias after `|`, else the
/// target's name without `.md`. Not URL-escaped: a `%` is a `%`.
fn wikilink(line: &str, wiki: &str, emphasis: &str) -> Option<PointerParts> {
    let end = wiki.find("]]")?;
    let inner = &wiki[..end];
    if inner.contains(['[', ']', '\n']) {
        return None;
    }
    let (target, alias) = match inner.split_once('|') {
        Some((t, a)) => (t, Some(a.trim())),
        None => (inner, None),
    };
    let title_edit = match alias {
        // `trim` keeps a slice of the line: its offset is the alias's.
        Some(a) => TitleEdit::WikiAlias(offset(line, a)..offset(line, a) + a.len()),
        None => TitleEdit::WikiAddAlias(offset(line, wiki) + end),
    };
    let target = target.split('#').next().unwrap_or(target).trim();
    if target.is_empty() {
        return None;
    }
    let name = target.rsplit('/').next().unwrap_or(target);
    let file = if is_markdown_file(target) {
        target.to_string()
    } else if name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ATTACHMENTS.contains(&ext.to_ascii_lowercase().as_str()))
    {
        return None;
    } else {
        format!("{target}.md")
    };
    let title = match alias.filter(|a| !a.is_empty()) {
        Some(a) => a.to_string(),
        None => file[..file.len() - 3]
            .rsplit('/')
            .next()
            .unwrap_or(&file)
            .to_string(),
    };
    let rest = &wiki[end + 2..];
    // `[[A]](a.md)`, `[[A]][ref]`: Markdown link syntax around brackets, not a wikilink.
    if rest.starts_with(['(', '[']) {
        return None;
    }
    let rest = rest.strip_prefix(emphasis).unwrap_or(rest);
    let (hook, hook_span, separator) = hook_in(line, rest);
    Some(PointerParts {
        title,
        target: file.replace('%', "%25"),
        hook,
        title_edit,
        hook_span,
        separator,
    })
}

/// The separators that may stand between a pointer's link and its hook.
const SEPARATORS: [char; 4] = ['—', '–', '-', ':'];

/// The hook in what follows a pointer's link (`rest`, a slice of `line`): after an
/// optional `—`, `–`, `-` or `:`, trimmed, without the Obsidian comments in it (`%% … %%`,
/// and everything after a `%%` never closed): what Obsidian shows is the recall key. With
/// it, its byte range in `line` and whether a separator stands before it (see
/// [`PointerParts::hook_span`]).
fn hook_in(line: &str, rest: &str) -> (String, Range<usize>, bool) {
    let base = offset(line, rest);
    // The characters Obsidian shows, each with its offset in `rest`.
    let mut visible: Vec<(usize, char)> = Vec::new();
    let mut at = 0;
    while at < rest.len() {
        if rest[at..].starts_with("%%") {
            match rest[at + 2..].find("%%") {
                Some(close) => {
                    at += 2 + close + 2;
                    continue;
                }
                None => break,
            }
        }
        // `at` is always a char boundary: it moves by whole characters and `%%`s.
        let Some(c) = rest[at..].chars().next() else {
            break;
        };
        visible.push((at, c));
        at += c.len_utf8();
    }
    let end_of = |(at, c): (usize, char)| at + c.len_utf8();
    let Some(first) = visible.iter().position(|(_, c)| !c.is_whitespace()) else {
        return (String::new(), base..base, false);
    };
    let separator = SEPARATORS.contains(&visible[first].1);
    let start = if separator { first + 1 } else { first };
    let Some(hook_first) = visible[start..]
        .iter()
        .position(|(_, c)| !c.is_whitespace())
        .map(|i| start + i)
    else {
        // A separator and nothing after it: a hook goes just past the separator.
        let at = base + end_of(visible[first]);
        return (String::new(), at..at, true);
    };
    // Some character is not white space, so there is a last one.
    let hook_last = visible
        .iter()
        .rposition(|(_, c)| !c.is_whitespace())
        .unwrap_or(hook_first);
    let hook: String = visible[hook_first..=hook_last]
        .iter()
        .map(|(_, c)| *c)
        .collect();
    (
        hook,
        base + visible[hook_first].0..base + end_of(visible[hook_last]),
        separator,
    )
}

/// The text after a list marker: a bullet (`-`, `*`, `+`) or an ordered marker (one to
/// nine digits and `.` or `)`).
fn list_marker(s: &str) -> Option<&str> {
    if let Some(rest) = s.strip_prefix(['-', '*', '+']) {
        return Some(rest);
    }
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=9).contains(&digits) {
        return None;
    }
    s[digits..].strip_prefix(['.', ')'])
}

/// The link reference definitions of a file: label (normalized as CommonMark matches
/// them: case folded, runs of white space one space) → target as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Definitions {
    targets: Vec<(String, String)>,
}

impl Definitions {
    /// Records `line` when it is a link reference definition (`[ref]: target` with an
    /// optional title, up to three spaces of indentation); returns whether it is one. The
    /// first definition of a label wins, as in CommonMark.
    pub(super) fn record(&mut self, line: &str) -> bool {
        let Some((label, target)) = definition(line) else {
            return false;
        };
        if self.get(&label).is_none() {
            self.targets.push((label, target));
        }
        true
    }

    fn get(&self, label: &str) -> Option<&str> {
        let label = normalize_label(label);
        self.targets
            .iter()
            .find(|(l, _)| *l == label)
            .map(|(_, t)| t.as_str())
    }
}

/// CommonMark's label matching: case folded, inner white space one space, trimmed.
fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `[label]: target ["title"]` → the label (normalized) and the target.
fn definition(line: &str) -> Option<(String, String)> {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    let indent = trimmed.len() - trimmed.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = trimmed[indent..].strip_prefix('[')?;
    let end = rest.find(']')?;
    let label = &rest[..end];
    if label.trim().is_empty() || label.contains('[') {
        return None;
    }
    let rest = rest[end + 1..]
        .strip_prefix(':')?
        .trim_start_matches([' ', '\t']);
    let (target, after) = match rest.strip_prefix('<') {
        Some(inner) => {
            let close = inner.find('>')?;
            (&inner[..close], &inner[close + 1..])
        }
        None => {
            let end = rest.find([' ', '\t']).unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        }
    };
    if target.is_empty() || target.contains('<') {
        return None;
    }
    let after = after.trim();
    if !(after.is_empty() || link_title(after).is_some_and(str::is_empty)) {
        return None;
    }
    Some((normalize_label(label), target.to_string()))
}

/// The target of a reference link whose text was `title` and which goes on with `rest`:
/// `[ref]` (full), `[]` (collapsed) or nothing (shortcut: not followed by `(` or `[`).
/// With the rest after the link and the label of a full reference (`None` when the text
/// is the label).
fn reference_target<'a>(
    title: &str,
    rest: &'a str,
    definitions: &Definitions,
) -> Option<(String, &'a str, Option<&'a str>)> {
    let (label, rest, own) = match rest.strip_prefix('[') {
        Some(inner) => {
            let end = inner.find(']')?;
            let label = &inner[..end];
            if label.is_empty() {
                (title, &inner[end + 1..], None)
            } else {
                (label, &inner[end + 1..], Some(label))
            }
        }
        None => (title, rest, None),
    };
    definitions
        .get(label)
        .map(|target| (target.to_string(), rest, own))
}

/// After a link title (`"…"`, `'…'` or `(…)`) at the start of `s`: the rest, or `None`
/// when `s` does not start with one.
fn link_title(s: &str) -> Option<&str> {
    let close = match s.chars().next()? {
        '"' => '"',
        '\'' => '\'',
        '(' => ')',
        _ => return None,
    };
    let inner = &s[1..];
    let mut escaped = false;
    for (i, c) in inner.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == close && !escaped => return Some(&inner[i + 1..]),
            _ => escaped = false,
        }
    }
    None
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
/// parentheses, then an optional link title `"…"`, `'…'` or `(…)`), and the text after
/// the `)`.
fn link_target(s: &str) -> Option<(String, &str)> {
    let (target, rest) = match s.strip_prefix('<') {
        Some(inner) => {
            let end = inner.find('>')?;
            let target = &inner[..end];
            if target.contains('<') {
                return None;
            }
            (target, &inner[end + 1..])
        }
        None => {
            let mut depth = 0usize;
            let mut end = s.len();
            for (i, c) in s.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = i;
                        break;
                    }
                    ')' => depth -= 1,
                    c if c.is_whitespace() => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            if end == s.len() || end == 0 {
                return None;
            }
            (&s[..end], &s[end..])
        }
    };
    let rest = match rest.strip_prefix(')') {
        Some(after) => after,
        None => {
            let spaced = rest.trim_start_matches([' ', '\t']);
            if spaced.len() == rest.len() {
                return None;
            }
            link_title(spaced)?
                .trim_start_matches([' ', '\t'])
                .strip_prefix(')')?
        }
    };
    Some((target.to_string(), rest))
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
        parse_pointer_with(line, &Definitions::default()).map(|p| (p.title, p.target, p.hook))
    }

    #[test]
    fn link_titles_emphasis_ordered_items_and_references_are_read() {
        let mut defs = Definitions::default();
        for line in [
            "[ref]: r.md",
            "[Two  Words]: <t w.md> 'title'",
            "   [s]: s.md (title)",
            "[ref]: second.md",
        ] {
            assert!(defs.record(line), "{line:?}");
        }
        for line in [
            "[ref] r.md",
            "    [x]: x.md",
            "[x]: x.md trailing",
            "[]: x.md",
        ] {
            assert!(!defs.record(line), "{line:?}");
        }
        for (line, title, target) in [
            ("- [F](f.md \"t\") — h", "F", "f.md"),
            ("- [F](f.md 't') — h", "F", "f.md"),
            ("- [F](<f g.md> (t)) — h", "F", "f g.md"),
            ("- [F](f.md \"a \\\" quote\") — h", "F", "f.md"),
            ("- **[E](e.md)** — h", "E", "e.md"),
            ("- _[E](e.md)_ — h", "E", "e.md"),
            ("- **[E](e.md) — h", "E", "e.md"),
            ("1. [O](o.md) — h", "O", "o.md"),
            ("123456789) [O](o.md) — h", "O", "o.md"),
            ("- [R][REF] — h", "R", "r.md"),
            ("- [two words][] — h", "two words", "t w.md"),
            ("- [S] — h", "S", "s.md"),
        ] {
            let p = parse_pointer_with(line, &defs).unwrap_or_else(|| panic!("{line:?}"));
            assert_eq!(
                (p.title.as_str(), p.target.as_str(), p.hook.as_str()),
                (title, target, "h"),
                "{line:?}"
            );
        }
        assert!(parse_pointer_with("- [R][nope] — h", &defs).is_none());
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
            "1.[A](a.md) — no space after the marker",
            "1234567890. [A](a.md) — ten digits",
            "- [A](a.md \"open title) — title never closed",
            "- [A][nowhere] — no definition",
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
