//! Dates written with a month's name (`3 May 2026`, `May 3rd, 2026`, `last May`): read
//! exactly when they name a day of a year, refused naming the phrase when they do not
//! (`May 3` names no year, `last May` no day) — never guessed.

use chrono::NaiveDate;

/// The months by name, lowercased, with their abbreviations.
const MONTHS: [(&str, &str, u32); 12] = [
    ("january", "jan", 1),
    ("february", "feb", 2),
    ("march", "mar", 3),
    ("april", "apr", 4),
    ("may", "may", 5),
    ("june", "jun", 6),
    ("july", "jul", 7),
    ("august", "aug", 8),
    ("september", "sep", 9),
    ("october", "oct", 10),
    ("november", "nov", 11),
    ("december", "dec", 12),
];

/// The month `word` (lowercase) names: a full name, a three-letter abbreviation, `sept`,
/// an abbreviation with its dot (`Dec.`).
pub(super) fn month_of(word: &str) -> Option<u32> {
    let word = word.strip_suffix('.').unwrap_or(word);
    if word == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .find(|(full, short, _)| word == *full || word == *short)
        .map(|(_, _, n)| *n)
}

/// Whether `word` (as written) is a month's name as a date would use it: capitalised
/// (`May`, `Dec`), or any case for a full name that is no other English word (`december`;
/// `may` and `march` are verbs in lowercase).
pub(super) fn is_month_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    let Some(_) = month_of(&lower) else {
        return false;
    };
    let capitalised = word.chars().next().is_some_and(char::is_uppercase);
    let full_name = MONTHS.iter().any(|(full, _, _)| *full == lower);
    capitalised || (full_name && !matches!(lower.as_str(), "may" | "march"))
}

/// A day of the month: `3`, `03`, `3rd`, `21st`.
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse().ok()
}

/// A year: four digits.
fn year_of(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// What a date given with a month's name says (`given` lowercased and trimmed):
/// `None` when it names no month; `Some(Ok(day))` for a day of a year (`may 3 2026`,
/// `3rd of may, 2026`, `the 3rd of may 2026`); `Some(Err(why))` for a month without a
/// day or a year (`may`, `last may`, `in may`, `may 3`, `may 2026`, `may 31 2026` where
/// May has 31 days but `feb 30 2026` is no day).
pub(super) fn month_date(given: &str) -> Option<Result<NaiveDate, String>> {
    let words: Vec<&str> = given
        .split(|c: char| c.is_whitespace() || c == ',' || c == '-')
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|w| month_of(w).is_some())?;
    let month = month_of(words[at])?;
    // The words that may stand around a day, month and year: `the 3rd of May`.
    let rest: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| *i != at && !matches!(**w, "the" | "of" | "on"))
        .map(|(_, w)| *w)
        .collect();
    let day = rest.iter().find_map(|w| day_of(w));
    let year = rest.iter().find_map(|w| year_of(w));
    let understood = rest
        .iter()
        .all(|w| day_of(w).is_some() || year_of(w).is_some())
        && rest.len() == usize::from(day.is_some()) + usize::from(year.is_some());
    let no_day = |what: &str| {
        Err(format!(
            "{given:?} names {what}; give the date (YYYY-MM-DD) the fact is about"
        ))
    };
    Some(match (understood, day, year) {
        (true, Some(day), Some(year)) => {
            NaiveDate::from_ymd_opt(year, month, day).ok_or_else(|| {
                format!("{given:?} is no day of the calendar; give the date as YYYY-MM-DD")
            })
        }
        (true, Some(_), None) => no_day("no year"),
        (true, None, _) => no_day("a month, not a day"),
        // `last May`, `in May`, `next May 3`: relative to a month, which no count of days is.
        (false, _, _) => no_day("a month, not a day"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_of_a_year_is_read_exactly() {
        for given in [
            "may 3 2026",
            "may 3, 2026",
            "may 3rd, 2026",
            "3 may 2026",
            "3rd may 2026",
            "the 3rd of may, 2026",
            "03 may 2026",
            "2026 may 3",
        ] {
            assert_eq!(
                month_date(given),
                Some(Ok(NaiveDate::from_ymd_opt(2026, 5, 3).unwrap())),
                "{given}"
            );
        }
        assert_eq!(
            month_date("dec. 1 2026"),
            Some(Ok(NaiveDate::from_ymd_opt(2026, 12, 1).unwrap()))
        );
        assert_eq!(
            month_date("sept 30 2026"),
            Some(Ok(NaiveDate::from_ymd_opt(2026, 9, 30).unwrap()))
        );
    }

    #[test]
    fn a_month_without_a_day_or_a_year_is_refused_naming_the_phrase() {
        for given in [
            "may",
            "last may",
            "next may",
            "this may",
            "in may",
            "may 3",
            "3 may",
            "may 3rd",
            "3rd of may",
            "may 2026",
            "early may",
            "may 32 2026",
            "feb 30 2026",
            "next may 3",
            "mid-december",
            "december",
        ] {
            match month_date(given) {
                Some(Err(why)) => assert!(why.contains(&format!("{given:?}")), "{given}: {why}"),
                other => panic!("{given}: {other:?}"),
            }
        }
        for given in ["tomorrow", "3 days ago", "2026-05-03", "maybe", "marching"] {
            assert_eq!(month_date(given), None, "{given}");
        }
    }

    #[test]
    fn month_words_in_text_are_capitalised_or_unambiguous() {
        assert!(is_month_word("May") && is_month_word("Dec") && is_month_word("december"));
        assert!(!is_month_word("may") && !is_month_word("march") && !is_month_word("dec"));
        assert!(!is_month_word("Monday") && !is_month_word("Mayday"));
    }
}
