//! An index summary derived from a body: its first sentence on one line, cut to the
//! limit at a word. Read word by word from the body, building only the summary (no
//! one-line copy of the whole body), and stopping once the limit is passed.

use super::index_file::MAX_SUMMARY_CHARS;

/// The body's first sentence (ending at `.`, `!`, `?` followed by a space or the end, or
/// at `。！？`), on one line, cut to [`MAX_SUMMARY_CHARS`] characters at a word with `…`.
///
/// ```
/// use memory_core::context_memory::summary_of;
/// assert_eq!(summary_of("Auth uses JWT. Tokens expire."), "Auth uses JWT.");
/// assert_eq!(summary_of("使用 JWT 認證。令牌每日輪替。"), "使用 JWT 認證。");
/// assert_eq!(summary_of("We use e.g. Postgres for jobs. Redis caches."), "We use e.g. Postgres for jobs.");
/// assert!(summary_of(&"word ".repeat(60)).chars().count() <= 100);
/// ```
pub fn summary_of(body: &str) -> String {
    // `split_ascii_whitespace` leaves out the vertical tab, which `split_whitespace`
    // (and so the one-line text) counts as white space.
    if body.is_ascii() && !body.contains('\u{b}') {
        return ascii_summary(body);
    }
    // The body on one line is its words joined by single spaces; the sentence is a
    // prefix of that line. Only the characters up to the limit can be kept: a sentence
    // that ends later, or not at all, is cut at the limit either way.
    let mut out = String::with_capacity(body.len().min(4 * MAX_SUMMARY_CHARS + 8));
    let mut count = 0usize;
    let mut words = body.split_whitespace().peekable();
    'words: while let Some(word) = words.next() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        if !may_end_sentence(word) {
            out.push_str(word);
            count += if word.is_ascii() {
                word.len()
            } else {
                word.chars().count()
            };
            if count > MAX_SUMMARY_CHARS {
                break;
            }
            continue;
        }
        let mut chars = word.chars().peekable();
        while let Some(c) = chars.next() {
            // What follows `c` on the line: a character of the word, a space before the
            // next word, or nothing.
            let at_word_end = chars.peek().is_none();
            let ends = match c {
                '。' | '！' | '？' => true,
                '!' | '?' => at_word_end,
                '.' => {
                    at_word_end
                        && !is_abbreviation(&out)
                        && !words
                            .peek()
                            .is_some_and(|w| w.starts_with(char::is_lowercase))
                }
                _ => false,
            };
            out.push(c);
            count += 1;
            if ends || count > MAX_SUMMARY_CHARS {
                break 'words;
            }
        }
    }
    if count <= MAX_SUMMARY_CHARS {
        return out;
    }
    let limit = MAX_SUMMARY_CHARS - 1;
    let cut_at = out.char_indices().nth(limit).map_or(out.len(), |(i, _)| i);
    let cut = &out[..cut_at];
    let at_word = match cut.rfind(' ') {
        Some(space) if space > cut.len() / 2 => &cut[..space],
        _ => cut,
    };
    format!("{}…", at_word.trim_end())
}

/// [`summary_of`] for an ASCII body without a vertical tab: a sentence can then end only at a word's end (the
/// `。！？` ends are not ASCII), so words are copied whole and only their last byte is
/// looked at.
fn ascii_summary(body: &str) -> String {
    let mut out = String::with_capacity(body.len().min(MAX_SUMMARY_CHARS + 32));
    let mut words = body.split_ascii_whitespace().peekable();
    while let Some(word) = words.next() {
        if !out.is_empty() {
            out.push(' ');
        }
        let before = out.len();
        out.push_str(word);
        if out.len() > MAX_SUMMARY_CHARS {
            break;
        }
        let ends = match word.as_bytes().last() {
            Some(b'!' | b'?') => true,
            Some(b'.') => {
                !is_abbreviation(&out[..before + word.len() - 1])
                    && !words
                        .peek()
                        .and_then(|w| w.as_bytes().first())
                        .is_some_and(u8::is_ascii_lowercase)
            }
            _ => false,
        };
        if ends {
            break;
        }
    }
    if out.len() <= MAX_SUMMARY_CHARS {
        return out;
    }
    let cut = &out[..MAX_SUMMARY_CHARS - 1];
    let at_word = match cut.rfind(' ') {
        Some(space) if space > cut.len() / 2 => &cut[..space],
        _ => cut,
    };
    format!("{}…", at_word.trim_end())
}

/// Whether `word` holds a character that can end a sentence (`.`, `!`, `?`, or a lead
/// byte of `。！？`, all three `E3`/`EF`-led in UTF-8).
fn may_end_sentence(word: &str) -> bool {
    word.bytes()
        .any(|b| matches!(b, b'.' | b'!' | b'?' | 0xe3 | 0xef))
}

/// Whether the word before a full stop (the end of `before`) is an abbreviation, not a
/// sentence's end: a common one (`e.g`, `i.e`, `vs`, `cf`, `approx`, `Mr`, `Dr`, `Fig`,
/// `et al`), or a single letter (an initial, `U.S`). Any other word ends a sentence
/// unless the next word starts in lower case (`etc. and more`).
fn is_abbreviation(before: &str) -> bool {
    const COMMON: [&str; 11] = [
        "e.g", "i.e", "vs", "cf", "approx", "mr", "mrs", "ms", "dr", "fig", "al",
    ];
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    // An ASCII word lowercases to ASCII, so comparing without case is lowercasing
    // without the copy; any other word (`\u{212a}` lowercases to `k`) is lowercased.
    let common = if word.is_ascii() {
        word.len() <= 6 && COMMON.iter().any(|c| c.eq_ignore_ascii_case(word))
    } else {
        COMMON.contains(&word.to_lowercase().as_str())
    };
    common
        || word
            .rsplit('.')
            .next()
            .is_some_and(|last| last.chars().count() == 1 && last.chars().all(char::is_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The derivation as it was: the whole body on one line first, then the sentence.
    fn reference(body: &str) -> String {
        let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut end = text.len();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let after = i + c.len_utf8();
            let ends = match c {
                '。' | '！' | '？' => true,
                '!' | '?' => chars.peek().is_none_or(|(_, next)| next.is_whitespace()),
                '.' => {
                    chars.peek().is_none_or(|(_, next)| next.is_whitespace())
                        && !reference_abbreviation(&text[..i])
                        && !text[after..].trim_start().starts_with(char::is_lowercase)
                }
                _ => false,
            };
            if ends {
                end = after;
                break;
            }
        }
        let sentence = &text[..end];
        if sentence.chars().count() <= MAX_SUMMARY_CHARS {
            return sentence.to_string();
        }
        let limit = MAX_SUMMARY_CHARS - 1;
        let cut: String = sentence.chars().take(limit).collect();
        let at_word = match cut.rfind(' ') {
            Some(space) if space > cut.len() / 2 => &cut[..space],
            _ => cut.as_str(),
        };
        format!("{}…", at_word.trim_end())
    }

    fn reference_abbreviation(before: &str) -> bool {
        const COMMON: [&str; 11] = [
            "e.g", "i.e", "vs", "cf", "approx", "mr", "mrs", "ms", "dr", "fig", "al",
        ];
        let word = before
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        let lower = word.to_lowercase();
        COMMON.contains(&lower.as_str())
            || word.rsplit('.').next().is_some_and(|last| {
                last.chars().count() == 1 && last.chars().all(char::is_alphabetic)
            })
    }

    /// Pieces bodies are made of: sentence ends of every kind, abbreviations and
    /// initials in both cases, every kind of white space, CJK, the Kelvin sign, words
    /// long enough to reach the limit.
    const PIECES: &[&str] = &[
        "word",
        "Word",
        "a",
        "B",
        ".",
        "!",
        "?",
        "。",
        "！",
        "？",
        "e.g.",
        "E.G.",
        "i.e.",
        "vs.",
        "VS.",
        "Dr.",
        "MRS.",
        "approx.",
        "al.",
        "U.S.",
        "(Fig.",
        "3.5",
        "v2.",
        "etc.",
        "\u{212a}",
        "\u{212a}m.",
        "登入",
        "認證使用",
        "é",
        "Élan.",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "x.y",
        "...",
        "?!",
        "a.",
        "Z.",
        "ß.",
        "supercalifragilistic",
        "0123456789012345678901234567890123456789",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn equals_the_whole_line_derivation(
            picks in prop::collection::vec((0..PIECES.len(), any::<bool>()), 0..80),
        ) {
            let mut body = String::new();
            for (i, space) in picks {
                body.push_str(PIECES[i]);
                if space {
                    body.push(' ');
                }
            }
            prop_assert_eq!(summary_of(&body), reference(&body), "{:?}", body);
        }

        #[test]
        fn equals_the_whole_line_derivation_on_ascii(
            picks in prop::collection::vec((0..PIECES.len(), 0..4usize), 0..80),
        ) {
            let mut body = String::new();
            for (i, space) in picks {
                if PIECES[i].is_ascii() {
                    body.push_str(PIECES[i]);
                }
                body.push_str(["", " ", "\u{b}", "\r\n\u{c}"][space]);
            }
            prop_assert_eq!(summary_of(&body), reference(&body), "{:?}", body);
        }

        #[test]
        fn equals_the_whole_line_derivation_on_ascii_text(body in "[ -~\t\n\r\u{b}\u{c}]{0,300}") {
            prop_assert_eq!(summary_of(&body), reference(&body));
        }

        #[test]
        fn equals_the_whole_line_derivation_on_any_text(body in "\\PC{0,300}") {
            prop_assert_eq!(summary_of(&body), reference(&body));
        }

        /// A summary is its own summary (heal's row takes the entry's derived summary
        /// as it is instead of deriving it again).
        #[test]
        fn a_summary_is_its_own_summary(
            picks in prop::collection::vec((0..PIECES.len(), 0..4usize), 0..80),
            text in "\\PC{0,300}",
        ) {
            let mut body = String::new();
            for (i, space) in picks {
                body.push_str(PIECES[i]);
                body.push_str(["", " ", "\u{b}", "\r\n\u{c}"][space]);
            }
            for body in [body, text] {
                let once = summary_of(&body);
                prop_assert_eq!(summary_of(&once), once.clone(), "{:?}", body);
            }
        }
    }

    #[test]
    fn edges_of_the_limit() {
        for n in 95..106 {
            for tail in [".", ". Next", ". next", "", " x. Y", "。"] {
                for unit in ["a", "認", "ab "] {
                    let body = format!("{}{tail}", unit.repeat(n));
                    assert_eq!(summary_of(&body), reference(&body), "{body:?}");
                    let once = summary_of(&body);
                    assert_eq!(summary_of(&once), once, "{body:?}: its own summary");
                }
            }
        }
        assert_eq!(summary_of(""), "");
        assert_eq!(summary_of(" \n\t "), "");
        let huge = "long words without an end ".repeat(40_000);
        assert_eq!(summary_of(&huge), reference(&huge));
    }
}
