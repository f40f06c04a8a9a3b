//! A pointer line of `MEMORY.md` with a new title or hook: exactly the bytes the pointer
//! reader found for the title or the hook are replaced, whatever form the line has
//! (emphasis, a `<…>` target with a link title, a reference link, escaped brackets, a
//! wikilink, any separator, an Obsidian comment after the hook); every other byte of the
//! line — list marker, emphasis, link, separator, comments, line ending — stays as it is.

use super::index_file::MemoryIndex;
use super::pointer::{HOOK_SEPARATOR, PointerParts, TitleEdit};
use crate::error::{Error, Result};

/// `line` (the text the reader read as `parts`) with `title` and/or `hook` written in
/// place of the ones it has. A title is escaped as link text (`\[`, `\]`, `\\`), or
/// written as a wikilink alias; a title that was also the reference label (`[T][]`,
/// `[T]`) becomes `[new][T]`, so that the link still finds its definition. A hook where
/// there was none goes after the separator (` hook`), or after the link with ` — `.
pub(super) fn rewrite_pointer(
    line: &str,
    parts: &PointerParts,
    title: Option<&str>,
    hook: Option<&str>,
) -> String {
    let mut out = line.to_string();
    // The hook is after the title in the line: replaced first, the title's offsets hold.
    if let Some(hook) = hook {
        let span = parts.hook_span.clone();
        let with = if !parts.hook.is_empty() {
            hook.to_string()
        } else if parts.separator {
            format!(" {hook}")
        } else {
            format!("{HOOK_SEPARATOR}{hook}")
        };
        out.replace_range(span, &with);
    }
    if let Some(title) = title {
        match &parts.title_edit {
            TitleEdit::Text(span) => out.replace_range(span.clone(), &link_text(title)),
            TitleEdit::TextAndLabel(span, label) => {
                out.replace_range(span.clone(), &format!("{}][{label}]", link_text(title)));
            }
            TitleEdit::WikiAlias(span) => out.replace_range(span.clone(), title),
            TitleEdit::WikiAddAlias(at) => out.insert_str(*at, &format!("|{title}")),
        }
    }
    out
}

/// `title` as Markdown link text: `[`, `]` and `\` escaped.
fn link_text(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for c in title.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `index`'s text with the pointer on 1-based line `line` given `title` and/or `hook`
/// (see [`rewrite_pointer`]); the other lines, and the rest of that one, byte for byte.
/// The caller reads the result back (a value that does not read back in this line's
/// form, `]]` in a wikilink's title say, is refused there).
pub(super) fn rewrite_index_line(
    index: &MemoryIndex,
    line: usize,
    title: Option<&str>,
    hook: Option<&str>,
) -> Result<String> {
    let pos = index
        .lines
        .iter()
        .position(|l| l.line == line)
        .ok_or_else(|| {
            Error::invalid(
                "index line",
                &line.to_string(),
                "is not a pointer line of MEMORY.md",
            )
        })?;
    let span = index.spans[pos].clone();
    // The span starts where the reader's line text starts: the offsets hold in it.
    let new_line = rewrite_pointer(&index.text[span.clone()], &index.edits[pos], title, hook);
    let mut out = index.text.clone();
    out.replace_range(span, &new_line);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::pointer::{Definitions, parse_pointer_with};
    use super::*;
    use proptest::prelude::*;

    fn definitions() -> Definitions {
        let mut defs = Definitions::default();
        for line in ["[b]: memory-b.md", "[Ref T]: <memory-r t.md> \"t\""] {
            assert!(defs.record(line));
        }
        defs
    }

    fn edit(line: &str, title: Option<&str>, hook: Option<&str>) -> String {
        let defs = definitions();
        let parts = parse_pointer_with(line, &defs).unwrap_or_else(|| panic!("{line:?}"));
        rewrite_pointer(line, &parts, title, hook)
    }

    /// The reviewer's lines: the hook replaced, the rest of the line byte for byte.
    #[test]
    fn the_forms_readme_names_keep_every_other_byte() {
        for (line, want) in [
            (
                "* **[A](memory-a.md)** - old a",
                "* **[A](memory-a.md)** - new",
            ),
            ("- _[G](memory-g.md)_ — old g", "- _[G](memory-g.md)_ — new"),
            (
                "- [C](<memory-c.md> \"title\") – old c",
                "- [C](<memory-c.md> \"title\") – new",
            ),
            ("1. [B][b] : old b", "1. [B][b] : new"),
            (
                "- [T \\](x](memory-t.md) — old t",
                "- [T \\](x](memory-t.md) — new",
            ),
            ("- [A](a.md) old", "- [A](a.md) new"),
            ("- [A](a.md)", "- [A](a.md) — new"),
            ("- [A](a.md) —", "- [A](a.md) — new"),
            ("- [A](a.md) %% note %%", "- [A](a.md) — new %% note %%"),
            (
                "- [A](a.md) — old %% note %% tail  %% x",
                "- [A](a.md) — new  %% x",
            ),
            ("- [[memory-w]] — old", "- [[memory-w]] — new"),
            ("- [[memory-w|W]]: old", "- [[memory-w|W]]: new"),
        ] {
            assert_eq!(edit(line, None, Some("new")), want, "{line:?}");
        }
    }

    #[test]
    fn titles_are_replaced_in_their_span_and_references_keep_their_label() {
        for (line, want) in [
            ("- **[A](a.md)** — h", "- **[N \\[1\\]](a.md)** — h"),
            ("1. [B][b] : h", "1. [N \\[1\\]][b] : h"),
            ("- [b][] — h", "- [N \\[1\\]][b] — h"),
            ("- [b] — h", "- [N \\[1\\]][b] — h"),
            ("- [[memory-w]] — h", "- [[memory-w|N [1]]] — h"),
            ("- [[memory-w#x| W ]] — h", "- [[memory-w#x| N [1] ]] — h"),
        ] {
            assert_eq!(edit(line, Some("N [1]"), None), want, "{line:?}");
        }
    }

    fn marker() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("-".to_string()),
            Just("*".to_string()),
            Just("+".to_string()),
            Just("1.".to_string()),
            Just("12)".to_string()),
        ]
    }

    /// A title: words, escaped brackets and backslashes, emphasis characters.
    fn title() -> impl Strategy<Value = String> {
        "[A-Za-z0-9 é\\[\\]\\\\*_#()<>\"'—-]{1,12}"
            .prop_filter("not blank", |t| !t.trim().is_empty())
            .prop_map(|t| t.trim().to_string())
    }

    /// A hook: text without `%%`, possibly starting with what reads as a separator.
    fn hook() -> impl Strategy<Value = String> {
        "[a-z0-9 ,.:()\\[\\]*_é—–-]{0,16}".prop_map(|h| h.trim().to_string())
    }

    /// A pointer line of every form the reader accepts, and the title it has.
    fn pointer_line() -> impl Strategy<Value = String> {
        let link = prop_oneof![
            title().prop_map(|t| format!("[{}](memory-x.md)", link_text(&t))),
            title().prop_map(|t| format!("[{}](<memory-x y.md> \"a title\")", link_text(&t))),
            title().prop_map(|t| format!("[{}](./memory-x.md 'a title')", link_text(&t))),
            title().prop_map(|t| format!("[{}][b]", link_text(&t))),
            Just("[b][]".to_string()),
            Just("[Ref T]".to_string()),
            Just("[[memory-w]]".to_string()),
            Just("[[memory-w#Part|Alias]]".to_string()),
        ];
        let emphasis = prop_oneof![Just(""), Just("**"), Just("_"), Just("*"), Just("__")];
        let separator = prop_oneof![
            Just(" — "),
            Just(" – "),
            Just(" - "),
            Just(": "),
            Just(" : "),
            Just(" "),
            Just("\t—\t"),
            Just(" —"),
        ];
        let hook = prop_oneof![
            Just(String::new()),
            "[a-z]{1,8}( [a-z]{1,8}){0,3}".prop_map(|h| h.to_string()),
        ];
        let comment = prop_oneof![Just(""), Just(" %% note %%"), Just(" %% open")];
        (
            "( {0,3})",
            marker(),
            link,
            emphasis,
            separator,
            hook,
            comment,
        )
            .prop_map(|(indent, marker, link, em, sep, hook, comment)| {
                format!("{indent}{marker} {em}{link}{em}{sep}{hook}{comment}")
            })
    }

    proptest! {
        /// For every pointer form the reader accepts, a new hook (and a new title) reads
        /// back as given with the same target, and the line's other bytes are the same:
        /// the prefix before the title's span, what lies between the title and the hook,
        /// and the suffix after the hook's span.
        #[test]
        fn every_pointer_form_takes_a_new_hook_and_title_in_place(
            line in pointer_line(),
            new_hook in hook(),
            new_title in proptest::option::of(title()),
        ) {
            let defs = definitions();
            let Some(parts) = parse_pointer_with(&line, &defs) else {
                return Err(TestCaseError::fail(format!("not a pointer: {line:?}")));
            };
            let new_hook = Some(new_hook.as_str()).filter(|h| !h.is_empty());
            // A hook the reader would read otherwise (starting with a separator after
            // a line without one) cannot be written in that form: the caller's read-back
            // refuses it; here only values that read back are compared.
            let wiki = matches!(
                parts.title_edit,
                TitleEdit::WikiAlias(_) | TitleEdit::WikiAddAlias(_)
            );
            let new_title = new_title.filter(|t| !(wiki && t.contains(['[', ']'])));
            let out = rewrite_pointer(&line, &parts, new_title.as_deref(), new_hook);
            let back = parse_pointer_with(&out, &defs);
            let Some(back) = back else {
                return Err(TestCaseError::fail(format!("{line:?} -> {out:?} is no pointer")));
            };
            prop_assert_eq!(&back.target, &parts.target, "{:?} -> {:?}", line, out);
            let hook_reads_back = back.hook == new_hook.unwrap_or(&parts.hook);
            let starts_like_separator = new_hook
                .is_some_and(|h| h.starts_with(['—', '–', '-', ':']) && !parts.separator);
            prop_assert!(hook_reads_back || starts_like_separator, "{:?} -> {:?}: {:?}", line, out, back.hook);
            let title_reads_back = back.title == new_title.as_deref().unwrap_or(&parts.title);
            prop_assert!(title_reads_back, "{:?} -> {:?}: {:?}", line, out, back.title);
            // Bytes outside the two spans: as they were.
            let title_start = match &parts.title_edit {
                TitleEdit::Text(r) | TitleEdit::TextAndLabel(r, _) | TitleEdit::WikiAlias(r) => r.start,
                TitleEdit::WikiAddAlias(at) => *at,
            };
            prop_assert_eq!(&out[..title_start], &line[..title_start]);
            let suffix = &line[parts.hook_span.end..];
            prop_assert!(out.ends_with(suffix), "{:?} -> {:?}", line, out);
            if new_title.is_none() {
                prop_assert_eq!(&out[..parts.hook_span.start], &line[..parts.hook_span.start]);
            }
        }
    }
}
