//! Values that do not show what they hold: characters that reorder or break the line
//! they are shown on (bidirectional embeddings, overrides and isolates — the "Trojan
//! Source" characters — and the Unicode line and paragraph separators), and a hook,
//! title or fact text that renders as nothing (only HTML comments).

/// The first character of `value` that reorders or breaks the line it is shown on.
pub(super) fn hazard(value: &str) -> Option<char> {
    value.chars().find(|c| {
        matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
        )
    })
}

/// Why `value` may not be stored, if it holds a [`hazard`] character.
pub(super) fn hazard_problem(value: &str) -> Option<String> {
    hazard(value).map(|c| {
        format!(
            "it holds U+{:04X}, which reorders or breaks the text where it is shown: give the value without it",
            c as u32
        )
    })
}

/// Whether `value` renders as nothing: blank once its HTML comments (`<!-- … -->`) are
/// taken out.
pub(super) fn renders_empty(value: &str) -> bool {
    let mut rest = value;
    let mut shown = String::new();
    while let Some(at) = rest.find("<!--") {
        shown.push_str(&rest[..at]);
        match rest[at + 4..].find("-->") {
            Some(end) => rest = &rest[at + 4 + end + 3..],
            None => {
                // An inline `<!--` never closed is text (CommonMark).
                shown.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    shown.push_str(rest);
    shown.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_and_empty_renderings() {
        assert_eq!(hazard("a\u{202E}b"), Some('\u{202E}'));
        assert_eq!(hazard("a\u{2028}b"), Some('\u{2028}'));
        assert_eq!(hazard("family 👨\u{200D}👩 and ❤\u{FE0F}"), None);
        assert!(renders_empty("<!-- -->"));
        assert!(renders_empty(" <!-- a --> <!--b--> "));
        assert!(!renders_empty("<!-- a --> hosts"));
        assert!(!renders_empty("<!-- never closed"));
        assert!(!renders_empty("hosts"));
    }
}
