//! The names a write may give a new topic file, and when two names are the same file.
//!
//! Two names are one topic when they are equal, or equal but for case, or canonically
//! equivalent (`café` written with `é` or with `e` and U+0301: macOS stores one form,
//! Linux both): [`name_key`] folds them to one key, and a write never makes the second
//! spelling's file (see `topic_case.rs`).
//!
//! A name a caller or a compactor gives is refused ([`Error::InvalidInput`], naming what
//! is wrong) when it could not be the same file on every system, or could not be told
//! from another by eye: a character that is invisible or reorders text (format characters,
//! general category Cf — zero-width spaces and joiners, U+FEFF, bidi overrides and
//! isolates — and the other default-ignorable code points), a control character, a line
//! or paragraph separator; a character Windows refuses (`*?<>:"|\`); a component that
//! starts or ends with a space or ends with a dot; a Windows device name (`CON`, `PRN`,
//! `AUX`, `NUL`, `COM1`–`COM9`, `LPT1`–`LPT9`, any case, any extension); a directory
//! longer than 255 bytes (what file systems hold), or a file name longer than 218: a write
//! stages the file as `.<name>.tmp-<pid>-<n>` beside it (up to 37 bytes more), and that
//! name must fit the 255 too.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use crate::error::{Error, Result};

/// The most bytes a file name (one path component) may hold.
pub(super) const MAX_NAME_BYTES: usize = 255;

/// The most bytes a write's temporary file name adds to its file's name:
/// `.<name>.tmp-<pid>-<n>`, a 32-bit pid and a 64-bit counter.
const TEMP_NAME_BYTES: usize = ".".len() + ".tmp-".len() + 10 + "-".len() + 20;

/// The most bytes a topic file's own name may hold (its temporary file's name must fit
/// [`MAX_NAME_BYTES`] too).
pub(super) const MAX_TOPIC_NAME_BYTES: usize = MAX_NAME_BYTES - TEMP_NAME_BYTES;

/// The key two topic file names are compared by: canonical composition (NFC), then
/// lowercase (and NFC again: lowercasing can leave a composable pair).
pub(super) fn name_key(name: &str) -> String {
    name.nfc()
        .collect::<String>()
        .to_lowercase()
        .nfc()
        .collect()
}

/// Whether two names are one topic file but for case or Unicode normalisation.
pub(super) fn same_topic_name(a: &str, b: &str) -> bool {
    a == b || name_key(a) == name_key(b)
}

/// Refuses a name for a new topic file that is not portable or not visible as written
/// (see the module docs). `file` is relative, `/`-separated.
pub(super) fn check_new_topic_name(file: &str) -> Result<()> {
    let refuse = |why: String| Err(Error::invalid("topic file", file, why));
    let file = file.strip_prefix("./").unwrap_or(file);
    let last = file.split('/').count() - 1;
    for (at, component) in file.split('/').enumerate() {
        if let Some(c) = component.chars().find(|&c| hidden(c)) {
            return refuse(format!(
                "holds {}, which cannot be seen or changes how the name reads: give the name without it",
                describe(c)
            ));
        }
        if let Some(c) = component.chars().find(|c| WINDOWS_REFUSED.contains(*c)) {
            return refuse(format!(
                "holds {c:?}, which Windows does not allow in a file name (none of {WINDOWS_REFUSED})"
            ));
        }
        // A Markdown link reads `%41` as `A` and `&amp;` as `&`: the index line would link
        // another name than the file's.
        if component.contains('%') || has_entity(component) {
            return refuse(
                "holds `%` or an `&…;` entity, which a Markdown link reads as an escape (`%41` is `A`): the index line would point at another name; give the name without it".into(),
            );
        }
        if component.starts_with(' ') || component.ends_with([' ', '.']) {
            return refuse(
                "a name (or directory) must not start with a space or end with a space or dot"
                    .into(),
            );
        }
        let stem = component.split('.').next().unwrap_or(component);
        if is_device_name(stem) {
            return refuse(format!(
                "{stem} is a Windows device name (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9), with any extension"
            ));
        }
        if at < last && component.len() > MAX_NAME_BYTES {
            return refuse(format!(
                "a directory name may hold at most {MAX_NAME_BYTES} bytes; one of these has {}",
                component.len()
            ));
        }
        if at == last && component.len() > MAX_TOPIC_NAME_BYTES {
            return refuse(format!(
                "a file name may hold at most {MAX_NAME_BYTES} bytes, and a write stages the topic as .<name>.tmp-<pid>-<n> beside it (up to {TEMP_NAME_BYTES} bytes more): a topic file name may hold at most {MAX_TOPIC_NAME_BYTES} bytes; this one has {}",
                component.len()
            ));
        }
    }
    Ok(())
}

/// Whether `name` holds an HTML entity or numeric character reference (`&amp;`, `&#65;`,
/// `&#x41;`), which CommonMark decodes in a link destination.
fn has_entity(name: &str) -> bool {
    name.match_indices('&').any(|(at, _)| {
        let rest = &name[at + 1..];
        let body = rest.split(';').next().unwrap_or("");
        rest.len() > body.len()
            && !body.is_empty()
            && body.len() <= 32
            && (body.chars().all(|c| c.is_ascii_alphanumeric())
                || body.strip_prefix('#').is_some_and(|n| {
                    n.strip_prefix(['x', 'X'])
                        .map_or(n.chars().all(|c| c.is_ascii_digit()), |h| {
                            h.chars().all(|c| c.is_ascii_hexdigit())
                        })
                        && !n.is_empty()
                }))
    })
}

/// What Windows refuses in a file name (besides control characters).
const WINDOWS_REFUSED: &str = "*?<>:\"|\\";

/// Whether `c` is invisible or reorders text: a format character (Cf), another
/// default-ignorable code point, a control character, a line or paragraph separator.
fn hidden(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Format
            | GeneralCategory::Control
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || default_ignorable(c)
}

/// Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties) outside Cf: the
/// combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other
/// variation selectors, the reserved U+FFF0–U+FFF8 and the tag range's unassigned points.
fn default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// `U+200B (ZERO WIDTH SPACE)`-style words for a refused character.
fn describe(c: char) -> String {
    let name = match c {
        '\u{00AD}' => " (SOFT HYPHEN)",
        '\u{061C}' => " (ARABIC LETTER MARK)",
        '\u{200B}' => " (ZERO WIDTH SPACE)",
        '\u{200C}' => " (ZERO WIDTH NON-JOINER)",
        '\u{200D}' => " (ZERO WIDTH JOINER)",
        '\u{200E}' => " (LEFT-TO-RIGHT MARK)",
        '\u{200F}' => " (RIGHT-TO-LEFT MARK)",
        '\u{2028}' => " (LINE SEPARATOR)",
        '\u{2029}' => " (PARAGRAPH SEPARATOR)",
        '\u{202A}'..='\u{202E}' => " (a bidirectional embedding or override)",
        '\u{2060}' => " (WORD JOINER)",
        '\u{2066}'..='\u{2069}' => " (a bidirectional isolate)",
        '\u{FEFF}' => " (ZERO WIDTH NO-BREAK SPACE, the byte-order mark)",
        c if c.is_control() => " (a control character)",
        _ => " (an invisible format character)",
    };
    format!("U+{:04X}{name}", u32::from(c))
}

/// Whether `stem` (a name before its first dot) is a Windows device name.
fn is_device_name(stem: &str) -> bool {
    let upper = stem.trim_end().to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => {
            let digit = upper
                .strip_prefix("COM")
                .or_else(|| upper.strip_prefix("LPT"));
            digit.is_some_and(|d| matches!(d.as_bytes(), [b'1'..=b'9']))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_and_case_twins_share_a_key() {
        assert!(same_topic_name("memory-café.md", "memory-cafe\u{301}.md"));
        assert!(same_topic_name("memory-CAFÉ.md", "memory-cafe\u{301}.md"));
        assert!(same_topic_name("memory-Infra.md", "memory-infra.md"));
        assert!(same_topic_name(
            "memory-ÅNGSTRÖM.md",
            "memory-a\u{30a}ngstro\u{308}m.md"
        ));
        assert!(!same_topic_name("memory-cafe.md", "memory-café.md"));
        assert!(!same_topic_name("memory-infra.md", "memory-infra2.md"));
    }

    #[test]
    fn portable_visible_names_are_accepted() {
        for name in [
            "memory-infra.md",
            "memory-café.md",
            "memory-cafe\u{301}.md",
            "topics/日本語.md",
            "my notes.md",
            "CONSOLE.md",
            "COM10.md",
            "LPT0.md",
            "memory-nul-pointer.md",
            "é.md",
            "ÉÉÉÉ.md",
            "a.b.md",
            &format!("{}.md", "x".repeat(215)),
            &format!("{}.md", "é".repeat(107)),
            &format!("{}/x.md", "d".repeat(255)),
        ] {
            check_new_topic_name(name).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        }
    }

    #[test]
    fn hidden_and_unportable_names_are_refused_naming_why() {
        for (name, words) in [
            ("memory-x\u{200b}.md", "U+200B (ZERO WIDTH SPACE)"),
            ("memory-x\u{200d}.md", "U+200D"),
            ("memory-\u{202e}dm.x.md", "U+202E (a bidirectional"),
            ("memory-\u{2066}x.md", "U+2066 (a bidirectional isolate)"),
            ("\u{feff}memory-x.md", "U+FEFF"),
            ("memory-x\u{ad}y.md", "U+00AD (SOFT HYPHEN)"),
            ("memory-x\u{2060}.md", "U+2060 (WORD JOINER)"),
            ("memory-x\u{34f}.md", "U+034F"),
            ("memory-x\u{fe0f}.md", "U+FE0F"),
            ("memory-x\u{e0041}.md", "U+E0041"),
            ("memory-x\u{2028}.md", "U+2028 (LINE SEPARATOR)"),
            ("memory-x\u{7}.md", "U+0007 (a control character)"),
            ("memory-x\u{85}.md", "U+0085"),
            ("memory-x*.md", "'*'"),
            ("memory-x<y>.md", "'<'"),
            ("memory-\"x\".md", "'\"'"),
            ("memory-x|y.md", "'|'"),
            (" memory-x.md", "start with a space"),
            ("topics /a.md", "end with a space"),
            ("dir./a.md", "dot"),
            ("CON.md", "CON is a Windows device name"),
            ("con.md", "con is a Windows device name"),
            ("Nul.tar.md", "Nul is a Windows device name"),
            ("topics/aux.md", "aux is a Windows device name"),
            ("COM1.md", "COM1"),
            ("lpt9.md", "lpt9"),
            (&format!("{}.md", "x".repeat(297)), "at most 255 bytes"),
            (
                &format!("{}.md", "x".repeat(216)),
                "at most 218 bytes; this one has 219",
            ),
            (&format!("{}.md", "é".repeat(108)), "this one has 219"),
            (
                &format!("{}/x.md", "d".repeat(256)),
                "a directory name may hold at most 255 bytes",
            ),
        ] {
            let err = check_new_topic_name(name).unwrap_err();
            assert_eq!(err.kind().exit_code(), 2, "{name:?}");
            assert!(err.to_string().contains(words), "{name:?}: {err}");
        }
    }
}
