//! Counting the sentences of a memory body, for the seed's "1-3 sentences" rule.

/// Abbreviations whose period does not end a sentence (compared lower-cased, without
/// the period).
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "mr", "mrs", "ms", "dr", "prof", "st",
    "fig", "al", "resp", "esp", "viz", "ca",
];

/// The number of sentences of `text` (prose only: pass it without code blocks).
///
/// A sentence ends at `.`, `!`, `?` or `…` followed by white space or the end of the
/// text (so `v1.2`, `main.rs` and `example.com` do not end one), at the full-width
/// `。`, `！`, `？`, `．` of Chinese and Japanese (which take no space after them), and at
/// a blank line or a list item (a paragraph or item without final punctuation is a
/// sentence too). A run of terminators (`?!`, `...`) ends one sentence; a period after
/// a common abbreviation (`e.g.`, `etc.`, `vs.`) ends none. A piece counts only if it
/// holds a letter or digit.
pub(super) fn count_sentences(text: &str) -> usize {
    let mut count = 0;
    let mut has_word = false;
    let mut word_start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            '。' | '！' | '？' | '．' => {
                // A run of full-width terminators ends one sentence.
                !matches!(next, Some('。' | '！' | '？' | '．'))
            }
            '.' | '!' | '?' | '…' => {
                let boundary = next.is_none_or(|n| n.is_whitespace() || closing(n));
                boundary
                    && !(c == '.'
                        && (abbreviation(&text[word_start..at])
                            || list_number(text, word_start, at)))
            }
            '\n' => {
                // A blank line, or a line starting a list item, ends the paragraph.
                let rest = &text[at + 1..];
                let line = rest.split('\n').next().unwrap_or("").trim();
                line.is_empty() || list_item(line)
            }
            _ => false,
        };
        if c.is_alphanumeric() {
            has_word = true;
        }
        if c.is_whitespace() {
            word_start = at + c.len_utf8();
        }
        if ends && has_word {
            count += 1;
            has_word = false;
        }
    }
    count + usize::from(has_word)
}

/// Closing quotes and brackets that may follow a terminator: `"Done."` / `(see x.)`.
fn closing(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '”' | '’' | '」' | '』' | '）' | '*' | '_'
    )
}

/// `word` (the text since the last white space, without the final period) is a common
/// abbreviation or a single letter (`J. Smith`, `U.S`).
fn abbreviation(word: &str) -> bool {
    let word = word.trim_start_matches(['(', '"', '\'']);
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
        || (word.chars().count() == 1 && word.chars().all(char::is_alphabetic))
        || (word.contains('.') && word.split('.').all(|p| p.chars().count() == 1))
}

/// `text[start..end]` is the number of an ordered list item (`1.` first on its line).
fn list_number(text: &str, start: usize, end: usize) -> bool {
    let word = &text[start..end];
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_digit())
        && text[line_start..start].trim().is_empty()
}

/// A Markdown list item line: `-`, `*`, `+` or `1.` / `1)` followed by a space.
fn list_item(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix(['-', '*', '+']) {
        return rest.starts_with(' ');
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(['.', ')']) && line[digits + 1..].starts_with(' ')
}

#[cfg(test)]
mod tests {
    use super::count_sentences;

    #[test]
    fn sentences_are_counted_in_english_and_cjk() {
        assert_eq!(count_sentences(""), 0);
        assert_eq!(count_sentences("   "), 0);
        assert_eq!(count_sentences("One sentence"), 1);
        assert_eq!(count_sentences("One. Two! Three?"), 3);
        assert_eq!(count_sentences("No. It failed."), 2);
        assert_eq!(count_sentences("Wait?! Really..."), 2);
        assert_eq!(count_sentences("Use v1.2 of main.rs from example.com."), 1);
        assert_eq!(count_sentences("Pick one, e.g. Postgres. Done."), 2);
        assert_eq!(count_sentences("He said \"done.\" Then left."), 2);
        assert_eq!(count_sentences("我们选择了Postgres。它更可靠！为什么？"), 3);
        assert_eq!(count_sentences("決定しました。。理由は速度です"), 2);
        assert_eq!(count_sentences("First paragraph\n\nSecond paragraph"), 2);
        assert_eq!(count_sentences("Intro:\n- one\n- two\n1. three"), 4);
        assert_eq!(count_sentences("a\r\nb"), 1);
        assert_eq!(count_sentences("... !!! ???"), 0);
    }
}
