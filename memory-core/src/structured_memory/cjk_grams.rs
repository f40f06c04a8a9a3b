//! Words of text in scripts written without spaces. A run of letters and digits is a word
//! in a language that puts spaces between its words; in Chinese or Japanese a whole
//! phrase is one such run (`数据库备份策略`), and in Korean a word carries its particles
//! (`데이터베이스와`). Comparing those runs whole would call two nearly equal titles
//! different and two different ones alike when they happen to share a run.
//!
//! So a run of Han, Hiragana, Katakana or Hangul characters is cut into its overlapping
//! character bigrams (`数据库` → `数据`, `据库`), a lone such character being its own
//! piece: two phrases that differ by one character then share all but the bigrams around
//! it, which is how search engines index these scripts without a dictionary. Letters and
//! digits of other scripts (Latin, Cyrillic, digits between CJK characters) stay words.

/// One piece of text: a word of a script with spaces, or a bigram (or lone character)
/// of a run of Han, Hiragana, Katakana or Hangul.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece<'a> {
    /// A run of letters and digits outside those scripts, as written.
    Word(&'a str),
    /// Two adjacent characters of such a run (or its only one).
    Gram(&'a str),
}

/// Whether `c` belongs to a script written without spaces between words (or, for Hangul,
/// with particles joined to them): Han (CJK unified ideographs and their extensions and
/// compatibility forms, `々`), Hiragana, Katakana (with `ー` and the half-width forms) or
/// Hangul (syllables and jamo).
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3005}' | '\u{3007}'
        | '\u{3040}'..='\u{30ff}'
        | '\u{31f0}'..='\u{31ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ff66}'..='\u{ff9f}'
        | '\u{20000}'..='\u{3134f}'
        | '\u{1100}'..='\u{11ff}'
        | '\u{3130}'..='\u{318f}'
        | '\u{a960}'..='\u{a97f}'
        | '\u{ac00}'..='\u{d7ff}')
}

/// The pieces of `text` in order: runs of letters and digits (anything else separates
/// them), each split where it passes between a CJK script and another; the CJK parts
/// cut into overlapping bigrams.
///
/// `pieces("Redis 缓存策略")` is `Word("Redis")`, `Gram("缓存")`, `Gram("存策")`,
/// `Gram("策略")`.
pub(super) fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut rest = run;
        while let Some(first) = rest.chars().next() {
            let cjk = is_cjk(first);
            let len = rest
                .char_indices()
                .find(|&(_, c)| is_cjk(c) != cjk)
                .map_or(rest.len(), |(at, _)| at);
            let (part, tail) = rest.split_at(len);
            rest = tail;
            if cjk {
                grams(part, &mut out);
            } else {
                out.push(Piece::Word(part));
            }
        }
    }
    out
}

/// The overlapping bigrams of a CJK run (its only character when it has one).
fn grams<'a>(run: &'a str, out: &mut Vec<Piece<'a>>) {
    let starts: Vec<usize> = run.char_indices().map(|(at, _)| at).collect();
    if starts.len() == 1 {
        out.push(Piece::Gram(run));
        return;
    }
    // The bigram at the i-th character ends where the (i + 2)-th starts.
    for i in 0..starts.len() - 1 {
        let end = starts.get(i + 2).copied().unwrap_or(run.len());
        out.push(Piece::Gram(&run[starts[i]..end]));
    }
}

#[cfg(test)]
mod tests {
    use super::Piece::{Gram, Word};
    use super::*;

    #[test]
    fn cjk_runs_are_bigrams_and_other_runs_words() {
        assert_eq!(
            pieces("Redis 缓存策略"),
            [Word("Redis"), Gram("缓存"), Gram("存策"), Gram("策略")]
        );
        assert_eq!(
            pieces("デプロイ手順v2、本番"),
            [
                Gram("デプ"),
                Gram("プロ"),
                Gram("ロイ"),
                Gram("イ手"),
                Gram("手順"),
                Word("v2"),
                Gram("本番"),
            ]
        );
        assert_eq!(pieces("배포 절차"), [Gram("배포"), Gram("절차")]);
        assert_eq!(pieces("第2版"), [Gram("第"), Word("2"), Gram("版")]);
        assert_eq!(pieces("Привет, мир"), [Word("Привет"), Word("мир")]);
        assert_eq!(pieces(" — "), []);
    }

    #[test]
    fn scripts_are_told_apart() {
        for c in ['数', 'ひ', 'カ', 'ー', '々', '한', 'ｶ', '𠀋'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', 'д', '1', '١', '、', '。', 'Ａ'] {
            assert!(!is_cjk(c), "{c}");
        }
    }
}
