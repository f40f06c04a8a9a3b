//! An entry's date: absolute (`YYYY-MM-DD`), or a relative word converted from the clock
//! at write time, as the seed asks ("convert relative time to absolute at write time").
//! Vague phrases that name no day ("last week", "recently") are refused: no conversion
//! would be honest.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

use crate::error::{Error, Result};

/// Words and phrases that place a fact in time without naming a day. Refused as a date,
/// and flagged by `check` when an entry's text leans on them.
pub const VAGUE_TIME: &[&str] = &[
    "last week",
    "last month",
    "last year",
    "next week",
    "next month",
    "this week",
    "this month",
    "recently",
    "lately",
    "a while ago",
    "the other day",
    "earlier",
    "soon",
    "some time ago",
    "a few days ago",
    "last weekend",
    "this weekend",
    "next weekend",
    "over the weekend",
    "the other week",
    "the past week",
    "the past few days",
    "past few days",
    "the week before last",
    "from now",
    "days back",
    "weeks back",
    "a day back",
    "a week back",
    "an hour ago",
    "hours ago",
    "a minute ago",
    "minutes ago",
    "this year",
    "next year",
    "last quarter",
    "this quarter",
    "next quarter",
    "last sprint",
    "this sprint",
    "next sprint",
    "in a month",
    "in a year",
    "ages ago",
    "long ago",
    "a long time ago",
];

/// Words that name a day relative to the one they were written on: converted when given
/// as a date or written in a fact's text (see [`convert_relative_time`](super::convert_relative_time)
/// for the phrases around them), flagged by `check` in a hand-written entry's text (by the
/// next session they are wrong).
pub const RELATIVE_DAYS: &[&str] = &[
    "today",
    "tonight",
    "yesterday",
    "tomorrow",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The weekday names, lowercased, and their days (dates and the words of a fact's text).
pub(super) const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

/// Reads the date a caller gives for an entry, with `today` the clock's date:
/// `YYYY-MM-DD`; `today`, `yesterday`, `tomorrow`; a weekday name (`monday`, `last monday`:
/// the most recent one before today; `next monday`: the first one after today; `this
/// monday`: the coming one, today included);
/// `N days ago`; a day with its month's name and year (`3 May 2026`, `May 3rd, 2026`);
/// and every phrase a fact's text may hold when it is the whole date (`2
/// weeks ago`, `in 3 days`, `fri`: see [`convert_relative_time`](super::convert_relative_time)).
/// Case and surrounding white space are ignored. Anything vague is refused
/// with [`Error::InvalidInput`] naming it and saying to give a day: a month without a day
/// or a year too (`last May`, `in May`, `May 3`), never guessed.
///
/// ```
/// use chrono::NaiveDate;
/// use memory_core::structured_memory::resolve_date;
/// let today = NaiveDate::from_ymd_opt(2026, 7, 10).unwrap(); // a Friday
/// assert_eq!(resolve_date("yesterday", today).unwrap().to_string(), "2026-07-09");
/// assert_eq!(resolve_date("Monday", today).unwrap().to_string(), "2026-07-06");
/// assert_eq!(resolve_date("next monday", today).unwrap().to_string(), "2026-07-13");
/// assert_eq!(resolve_date("2026-01-31", today).unwrap().to_string(), "2026-01-31");
/// assert!(resolve_date("last week", today).is_err());
/// assert_eq!(resolve_date("3 May 2026", today).unwrap().to_string(), "2026-05-03");
/// assert!(resolve_date("last May", today).unwrap_err().to_string().contains("\"last May\" names no day"));
/// ```
pub fn resolve_date(given: &str, today: NaiveDate) -> Result<NaiveDate> {
    let text = given.trim().to_lowercase();
    let refuse = |why: String| Err(Error::invalid("date", given, why));
    let vague = |phrase: String| {
        Err(Error::VagueTime {
            field: "date",
            value: given.to_string(),
            phrase,
            message: format!(
                "{given:?} names no day; give the date (YYYY-MM-DD) the fact is about"
            ),
        })
    };
    if let Ok(date) = NaiveDate::parse_from_str(&text, "%Y-%m-%d")
        && text.len() == 10
    {
        return Ok(date);
    }
    match text.as_str() {
        "today" | "tonight" => return Ok(today),
        "yesterday" => return Ok(today - Duration::days(1)),
        "tomorrow" => return Ok(today + Duration::days(1)),
        _ => {}
    }
    let (direction, day) = match text.split_once(' ') {
        Some(("last", rest)) => (-1, rest.trim()),
        Some(("next", rest)) => (1, rest.trim()),
        Some(("on", rest)) => (-1, rest.trim()),
        Some(("this", rest)) => (0, rest.trim()),
        _ => (-1, text.as_str()),
    };
    if let Some((_, weekday)) = WEEKDAYS.iter().find(|(name, _)| *name == day) {
        return Ok(nearest_weekday(today, *weekday, direction));
    }
    if let Some(n) = text
        .strip_suffix(" days ago")
        .or_else(|| text.strip_suffix(" day ago"))
        .and_then(|n| n.trim().parse::<i64>().ok())
        .filter(|n| (0..=3650).contains(n))
    {
        return Ok(today - Duration::days(n));
    }
    // The phrases a fact's text may hold (`2 weeks ago`, `in 3 days`, `Fri`), read with
    // the first letter capitalised: a date field is one phrase, `fri` means Friday.
    let mut capitalised: String = given.trim().to_string();
    if let Some(first) = capitalised.chars().next() {
        let upper: String = first.to_uppercase().collect();
        capitalised.replace_range(..first.len_utf8(), &upper);
    }
    match super::time_words::whole_phrase_day(&capitalised, today) {
        Some(Ok(day)) => return Ok(day),
        Some(Err(())) => return vague(given.trim().to_lowercase()),
        None => {}
    }
    if let Some(phrase) = VAGUE_TIME.iter().find(|v| text.contains(*v)) {
        return vague((*phrase).to_string());
    }
    // A month by name: a day of a year exactly (`3 May 2026`), else refused naming it
    // (`last May`, `May 3`: which year, which day?) as a time that names no day.
    if let Some(read) = super::month_dates::month_date(&text) {
        return read.or_else(|why| {
            let message = why.replace(&format!("{text:?}"), &format!("{given:?}"));
            // A month without its day or year names no day; `31 February 2026` is a day
            // the calendar does not have: a bad date, not a vague one.
            if why.contains(" names ") {
                Err(Error::VagueTime {
                    field: "date",
                    value: given.to_string(),
                    phrase: text.clone(),
                    message,
                })
            } else {
                refuse(message)
            }
        });
    }
    refuse("must be YYYY-MM-DD, today, yesterday, the day before yesterday, tomorrow, the day after tomorrow, a weekday, `N days ago`, or a day with its month and year (`3 May 2026`)".into())
}

/// The closest `weekday` strictly before (`direction` −1) or after (+1) `today`, or
/// from `today` on (0).
pub(super) fn nearest_weekday(today: NaiveDate, weekday: Weekday, direction: i64) -> NaiveDate {
    let from = i64::from(today.weekday().num_days_from_monday());
    let to = i64::from(weekday.num_days_from_monday());
    let ahead = (to - from).rem_euclid(7);
    let days = match direction {
        d if d < 0 => {
            let back = (from - to).rem_euclid(7);
            -(if back == 0 { 7 } else { back })
        }
        0 => ahead,
        _ => {
            if ahead == 0 {
                7
            } else {
                ahead
            }
        }
    };
    today + Duration::days(days)
}

/// The first relative or vague time phrase in `text` that a write converts or refuses
/// (see [`convert_relative_time`](super::convert_relative_time): whole words, outside code
/// and URLs), lowercased: what `check` reports as a relatively dated entry.
///
/// ```
/// use memory_core::structured_memory::relative_time_in;
/// assert_eq!(relative_time_in("fixed it yesterday").as_deref(), Some("yesterday"));
/// assert_eq!(relative_time_in("Yesterday's build").as_deref(), Some("yesterday"));
/// assert_eq!(relative_time_in("broke on Monday").as_deref(), Some("monday"));
/// assert_eq!(relative_time_in("todays_report.csv is generated"), None);
/// assert_eq!(relative_time_in("the `--today` flag, standup every Monday"), None);
/// assert_eq!(relative_time_in("deploy hook runs first"), None);
/// ```
pub fn relative_time_in(text: &str) -> Option<String> {
    super::time_words::first_relative(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn weekdays_are_the_nearest_past_or_next_one() {
        let friday = day("2026-07-10");
        for (given, expected) in [
            ("friday", "2026-07-03"),
            ("last friday", "2026-07-03"),
            ("thursday", "2026-07-09"),
            ("on saturday", "2026-07-04"),
            ("next friday", "2026-07-17"),
            ("next saturday", "2026-07-11"),
            ("this friday", "2026-07-10"),
            ("this monday", "2026-07-13"),
            ("  SUNDAY ", "2026-07-05"),
            ("3 days ago", "2026-07-07"),
            ("1 day ago", "2026-07-09"),
            ("tomorrow", "2026-07-11"),
            ("today", "2026-07-10"),
            ("2 weeks ago", "2026-06-26"),
            ("two weeks ago", "2026-06-26"),
            ("a week ago", "2026-07-03"),
            ("in 3 days", "2026-07-13"),
            ("fri", "2026-07-03"),
            ("Mon", "2026-07-06"),
            ("sat", "2026-07-04"),
            ("next tue", "2026-07-14"),
            ("day after tomorrow", "2026-07-12"),
            ("the day after tomorrow", "2026-07-12"),
            ("The Day Before Yesterday", "2026-07-08"),
            ("day before yesterday", "2026-07-08"),
            ("May 3, 2026", "2026-05-03"),
            ("3 May 2026", "2026-05-03"),
            ("May 3rd 2026", "2026-05-03"),
            ("the 3rd of May, 2026", "2026-05-03"),
            ("1 December 2025", "2025-12-01"),
        ] {
            assert_eq!(
                resolve_date(given, friday).unwrap(),
                day(expected),
                "{given:?}"
            );
        }
    }

    #[test]
    fn vague_and_malformed_dates_are_refused() {
        let today = day("2026-07-10");
        for given in [
            "last week",
            "recently",
            "a while ago",
            "the other day",
            "2026-02-30",
            "2026-7-1",
            "10/07/2026",
            "",
            "someday",
            "99999 days ago",
            "3 months ago",
            "a few weeks ago",
            "in a week",
        ] {
            let err = resolve_date(given, today).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{given:?}");
        }
    }

    /// A month by name is a day only with its day and year: every other form is refused
    /// with a message naming the phrase as given, never read as some day.
    #[test]
    fn months_without_a_day_or_a_year_are_refused_naming_them() {
        let today = day("2026-07-10");
        for given in [
            "May",
            "last May",
            "next May",
            "this May",
            "in May",
            "May 3",
            "3 May",
            "May 3rd",
            "3rd May",
            "the 3rd of May",
            "May 2026",
            "last December",
            "next Dec",
            "early June",
            "mid-August",
            "February 30 2026",
        ] {
            let err = resolve_date(given, today).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{given:?}");
            assert!(
                err.to_string().contains(&format!("{given:?}: {given:?} ")),
                "{given:?}: {err}"
            );
            assert!(err.to_string().contains("YYYY-MM-DD"), "{err}");
        }
    }

    #[test]
    fn relative_words_are_found_as_words() {
        assert_eq!(
            relative_time_in("we shipped it last week").as_deref(),
            Some("last week")
        );
        assert_eq!(relative_time_in("TODAY: outage").as_deref(), Some("today"));
        assert_eq!(relative_time_in("earliest deploy window"), None);
        assert_eq!(relative_time_in("soonest"), None);
    }
}
