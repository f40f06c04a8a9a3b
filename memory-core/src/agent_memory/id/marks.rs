//! The Unicode `Mark` category (`Mn`, `Mc`, `Me`: combining accents, vowel signs,
//! viramas, enclosing marks), which `char::is_alphanumeric` leaves out, from the
//! `unicode-properties` crate (kept current with the Unicode character database).

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// Whether `c` is a combining mark (general category `Mn`, `Mc` or `Me`).
pub(crate) fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_of_several_scripts() {
        // Combining acute, Devanagari virama and vowel sign i, enclosing circle, Hebrew
        // hiriq, Thai mai han-akat, combining doubled circumflex.
        for c in [
            '\u{301}', '\u{94D}', '\u{93F}', '\u{20DD}', '\u{5B4}', '\u{E31}', '\u{1AB0}',
        ] {
            assert!(is_mark(c), "{c:?}");
        }
        for c in [
            'a',
            'é',
            'क',
            '1',
            '-',
            ' ',
            '\u{2FF}',
            '\u{370}',
            '\u{10FFFF}',
        ] {
            assert!(!is_mark(c), "{c:?}");
        }
    }

    #[test]
    fn marks_of_recent_unicode_versions() {
        // Unicode 15.0: Kannada sign combining anusvara above right, Kawi sign candrabindu.
        for c in ['\u{CF3}', '\u{11F00}'] {
            assert!(is_mark(c), "{c:?}");
        }
    }
}
