//! Relative time inside a fact's text, converted to the absolute day at write time, as the
//! seed asks ("'yesterday'/'last week' is already wrong by the next session - convert
//! relative time to absolute at write time").
//!
//! What is converted, as whole words, in any case (`Yesterday`, `TODAY`), possessives
//! included (`yesterday's` → `2026-07-09's`):
//! - `today`, `tonight`, `this morning`/`afternoon`/`evening` → today; `yesterday`,
//!   `last night` → the day before; `tomorrow` → the day after; `the day before yesterday`,
//!   `the day after tomorrow` (`the` optional);
//! - a count of days or weeks: `N days ago`, `N weeks ago`, `in N days`, `in N weeks`
//!   (N in digits or a cardinal in words: `twenty-one`, `ninety nine`, `a hundred`), `a day ago`, `a week ago` (7 days);
//!   the whole phrase is replaced (`in 2 days we ship` → `2026-07-12 we ship`);
//! - a weekday name: `Monday` or `on Monday` and `last Monday` → the most recent one before
//!   today (`on` is kept: `on 2026-07-06`), but after `by`, `until`, `till`, `before` or
//!   `due` (a deadline) the coming one, today included; `next Monday` → the first one after today;
//!   `this Monday` → the coming one, today included. Abbreviations follow the same rules
//!   when capitalised (`Mon`, `MON`, `Tue`/`Tues`, `Wed`, `Thu`/`Thur`/`Thurs`, `Fri`,
//!   `Sat`, `Sun`; lowercase only after `last`, `next` or `this`: `last fri`, never a bare
//!   `mon`, `sat`, `sun` or `wed`). `Wed`, `Sat` and `Sun` are
//!   English words too: bare, they are a day unless a pronoun or article comes before them
//!   (`we Sat`, `the Sun`), a preposition after them (`Sat down`, `Sat in on`), or a
//!   capitalised word after them (`Sun Microsystems`); after `on`, `by`, `since`, `until`,
//!   `till`, `from`, `last`, `next` or `this` they are always a day.
//!
//! What is left alone: inline code (`` `today` ``), URLs (`https://…`, `<…>` autolinks,
//! Markdown link targets), names that only contain the word (`todays_report`,
//! `today.csv`, `/reports/today/`, `yesterday-build`), recurring weekdays (`every Monday`,
//! `each Friday`, `per Sunday`, plurals like `Mondays`), weekday ranges (`Monday to
//! Friday`, `Mon-Fri`), and `in a day`/`in a week` (a duration: `done in a day`).
//!
//! What is refused, naming the phrase: the vague ones ([`VAGUE_TIME`]: `last week`,
//! `recently`, …), vague counts (`a few weeks ago`, `several days ago`, `couple of days
//! ago`, `weeks ago`, `in a few days`, `a dozen days ago`, `hundreds of days ago`, and a number
//! in words this reader cannot read whole), months or years (`3 months ago`, `a year ago`,
//! `in two months`: a month is no fixed number of days) and a month relative to today
//! (`last May`, `next December`, `this Sept`: capitalised, or a full name that is no other
//! word) — no conversion would be honest. `as soon as` and `earlier than` are
//! comparisons, not times, and are not refused.

use std::ops::Range;

use chrono::{Duration, NaiveDate, Weekday};
use serde::Serialize;

use super::dates::{VAGUE_TIME, nearest_weekday};
use crate::error::{Error, Result};

/// One relative time phrase a write replaced by the day it meant.
///
/// ```
/// use chrono::NaiveDate;
/// use memory_core::structured_memory::convert_relative_time;
/// let today = NaiveDate::from_ymd_opt(2026, 7, 10).unwrap(); // a Friday
/// let (text, converted) = convert_relative_time("fixed it Yesterday", today).unwrap();
/// assert_eq!(text, "fixed it 2026-07-09");
/// assert_eq!((converted[0].from.as_str(), converted[0].to.as_str()), ("Yesterday", "2026-07-09"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Conversion {
    /// What was given: `text` (a phrase in the fact's text) or `date`.
    pub field: &'static str,
    /// The phrase as it was written.
    pub from: String,
    /// The day it meant, `YYYY-MM-DD`.
    pub to: String,
}

/// `text` with every relative time phrase (see the module docs) replaced by the absolute
/// day, computed from `today`, and the list of what was replaced. A vague phrase is refused
/// with [`Error::InvalidInput`] naming it.
///
/// ```
/// use chrono::NaiveDate;
/// use memory_core::structured_memory::convert_relative_time;
/// let today = NaiveDate::from_ymd_opt(2026, 7, 10).unwrap(); // a Friday
/// let (text, _) = convert_relative_time("deployed last Friday, `today` stays, next tuesday too", today).unwrap();
/// assert_eq!(text, "deployed 2026-07-03, `today` stays, 2026-07-14 too");
/// assert!(convert_relative_time("shipped it last week", today).is_err());
/// assert_eq!(convert_relative_time("standup every Monday", today).unwrap().1, []);
/// ```
pub fn convert_relative_time(text: &str, today: NaiveDate) -> Result<(String, Vec<Conversion>)> {
    let found = find(text);
    if let Some(refused) = found.iter().find_map(|f| refusal(text, f)) {
        return Err(match refused {
            Refusal::Vague(phrase, message) => Error::VagueTime {
                field: "text",
                value: text.to_string(),
                phrase,
                message,
            },
            Refusal::Ambiguous(why) => Error::invalid("text", text, why),
        });
    }
    let mut out = String::with_capacity(text.len());
    let mut converted = Vec::new();
    let mut at = 0;
    for f in found {
        let day = match f.meaning {
            Meaning::Days(days) => today + Duration::days(days),
            Meaning::Weekday(weekday, direction) => nearest_weekday(today, weekday, direction),
            Meaning::Vague(_)
            | Meaning::VagueCount
            | Meaning::Undirected(_)
            | Meaning::Unmarked(_) => continue,
        };
        let to = day.format("%Y-%m-%d").to_string();
        out.push_str(&text[at..f.range.start]);
        out.push_str(&to);
        converted.push(Conversion {
            field: "text",
            from: text[f.range.clone()].to_string(),
            to,
        });
        at = f.range.end;
    }
    out.push_str(&text[at..]);
    Ok((out, converted))
}

/// Why a phrase of a fact's text is refused.
enum Refusal {
    /// It names no day (the phrase, and why): [`Error::VagueTime`].
    Vague(String, String),
    /// A weekday that could be the last or the coming one: [`Error::InvalidInput`].
    Ambiguous(String),
}

/// Why the phrase `f` of `text` is refused, or `None` when it is converted.
fn refusal(text: &str, f: &Found) -> Option<Refusal> {
    let phrase = || spoken(&text[f.range.clone()]);
    match f.meaning {
        Meaning::Vague(phrase) => Some(phrase.to_string()),
        Meaning::VagueCount => Some(phrase()),
        Meaning::Days(_) | Meaning::Weekday(..) => None,
        Meaning::Undirected(_) => {
            return Some(Refusal::Ambiguous(format!(
                "{:?} could be the last one or the coming one: say the date (YYYY-MM-DD), or write `every {}` when it recurs",
                phrase(),
                phrase().trim_start_matches("on ")
            )));
        }
        Meaning::Unmarked(_) => {
            let day = phrase();
            let day = day.trim_start_matches("on ");
            return Some(Refusal::Ambiguous(format!(
                "{:?} could be the last one or the coming one (nothing around it says which: `shipped`, `will ship`): say the date (YYYY-MM-DD), or write `last {day}`, `next {day}`, or `every {day}` when it recurs",
                phrase(),
            )));
        }
    }
    .map(|vague| {
        let message = format!(
            "{vague:?} names no day: say the date (YYYY-MM-DD) the fact is about, or leave the time out"
        );
        Refusal::Vague(vague, message)
    })
}

/// `phrase` as one line of lowercase words, single-spaced.
fn spoken(phrase: &str) -> String {
    phrase
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Refuses a relative time in `value`, the `field` (`subject`, `hook`, `title`,
/// `section`) of a write: those are never converted (a subject is the merge key for good,
/// a hook is read by every session), so any phrase a fact's text would convert or refuse
/// is refused there, with [`Error::InvalidInput`] naming the field and the phrase.
pub(super) fn refuse_relative_in(field: &'static str, value: &str) -> Result<()> {
    match relative_problem(field, value) {
        Some(why) => Err(Error::invalid(field, value, why)),
        None => Ok(()),
    }
}

/// Why `value` cannot be the `field` of a write for the relative time it holds, or
/// `None` when it holds none (see [`refuse_relative_in`]).
pub(super) fn relative_problem(field: &str, value: &str) -> Option<String> {
    let f = find(value).into_iter().next()?;
    Some(format!(
        "{:?} is relative to the day it is written, and a {field} is never converted: name the date (YYYY-MM-DD) or leave the time out",
        spoken(&value[f.range])
    ))
}

/// The first relative or vague time phrase of `text` that a write would convert or
/// refuse (see the module docs), in lowercase: what `check` reports in hand-written
/// entries.
pub(super) fn first_relative(text: &str) -> Option<String> {
    find(text)
        .into_iter()
        .next()
        .map(|f| text[f.range].to_lowercase())
}

/// The day `text` names when the whole of it is one phrase a write converts (`2 weeks
/// ago`, `in 3 days`, `Mon`): `Some(Ok(day))`; `Some(Err(()))` when it is a vague one
/// (`3 months ago`); `None` when it is not one phrase.
pub(super) fn whole_phrase_day(
    text: &str,
    today: NaiveDate,
) -> Option<std::result::Result<NaiveDate, ()>> {
    let found = find(text);
    let [only] = found.as_slice() else {
        return None;
    };
    if only.range != (0..text.len()) {
        return None;
    }
    Some(match only.meaning {
        Meaning::Days(days) => Ok(today + Duration::days(days)),
        Meaning::Weekday(weekday, direction) => Ok(nearest_weekday(today, weekday, direction)),
        Meaning::Unmarked(weekday) => Ok(nearest_weekday(today, weekday, -1)),
        Meaning::Vague(_) | Meaning::VagueCount | Meaning::Undirected(_) => Err(()),
    })
}

/// What a phrase means.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Meaning {
    /// Today plus this many days.
    Days(i64),
    /// The nearest weekday before (−1), after (+1), or from today on (0).
    Weekday(Weekday, i64),
    /// A vague phrase ([`VAGUE_TIME`]).
    Vague(&'static str),
    /// A vague count or unit (`a few weeks ago`, `3 months ago`): named by its words.
    VagueCount,
    /// A weekday with no tense cue around it (`deploy on Friday`): refused in a text; as
    /// a whole date (`--date Friday`), the most recent one before today.
    Unmarked(Weekday),
    /// A weekday whose direction the sentence does not tell (`the demo is on Friday`:
    /// the coming one, or every one): refused.
    Undirected(Weekday),
}

/// A phrase found: the bytes to replace and what they mean.
#[derive(Debug)]
struct Found {
    range: Range<usize>,
    meaning: Meaning,
}

/// Fixed phrases (as words) and the day offset they mean; longest first where one
/// starts another.
const DAY_PHRASES: &[(&[&str], i64)] = &[
    (&["the", "day", "before", "yesterday"], -2),
    (&["the", "day", "after", "tomorrow"], 2),
    (&["day", "before", "yesterday"], -2),
    (&["day", "after", "tomorrow"], 2),
    (&["last", "night"], -1),
    (&["this", "morning"], 0),
    (&["this", "afternoon"], 0),
    (&["this", "evening"], 0),
    (&["today"], 0),
    (&["tonight"], 0),
    (&["earlier", "today"], 0),
    (&["later", "today"], 0),
    (&["a", "fortnight", "ago"], -14),
    (&["yesterday"], -1),
    (&["yday"], -1),
    (&["tomorrow"], 1),
    (&["tmrw"], 1),
];

/// A word of the text: its bytes and its lowercase form.
struct Word {
    range: Range<usize>,
    lower: String,
}

/// Every phrase of `text` outside code and URLs, in order, not overlapping.
fn find(text: &str) -> Vec<Found> {
    let protected = protected_ranges(text);
    let words = words(text, &protected);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match phrase_at(text, &words, i) {
            Some((len, meaning)) => {
                let range = words[i].range.start..words[i + len - 1].range.end;
                if is_standalone(text, &range) {
                    out.push(Found { range, meaning });
                }
                i += len;
            }
            None => i += 1,
        }
    }
    out
}

/// The phrase starting at word `i`: how many words it takes and what it means.
fn phrase_at(text: &str, words: &[Word], i: usize) -> Option<(usize, Meaning)> {
    let w = |k: usize| words.get(i + k).map(|w| w.lower.as_str());
    // Words must follow each other with only white space between them.
    let joined = |len: usize| {
        (1..len).all(|k| {
            words.get(i + k).is_some_and(|next| {
                text[words[i + k - 1].range.end..next.range.start]
                    .chars()
                    .all(|c| c == ' ' || c == '\t')
                    && next.range.start > words[i + k - 1].range.end
            })
        })
    };
    for (phrase, days) in DAY_PHRASES {
        if phrase.iter().enumerate().all(|(k, p)| w(k) == Some(*p)) && joined(phrase.len()) {
            // `tomorrow week`, `yesterday week`: a week off that day, read whole or not
            // at all (refused).
            if matches!(phrase.last(), Some(&("tomorrow" | "yesterday")))
                && w(phrase.len()) == Some("week")
                && joined(phrase.len() + 1)
            {
                return Some((phrase.len() + 1, Meaning::VagueCount));
            }
            return Some((phrase.len(), Meaning::Days(*days)));
        }
    }
    for vague in VAGUE_TIME {
        let parts: Vec<&str> = vague.split(' ').collect();
        if parts.iter().enumerate().all(|(k, p)| w(k) == Some(*p)) && joined(parts.len()) {
            let comparison = match *vague {
                "soon" => i > 0 && words[i - 1].lower == "as" && w(1) == Some("as") && joined(2),
                "earlier" => w(1) == Some("than") && joined(2),
                // `from now on` is a rule, not a time.
                "from now" => w(2) == Some("on") && joined(3),
                _ => false,
            };
            if comparison {
                return None;
            }
            return Some((parts.len(), Meaning::Vague(vague)));
        }
    }
    // `last May`, `next December`, `this Sept`: a month relative to today names no day.
    if matches!(w(0), Some("last" | "next" | "this"))
        && joined(2)
        && words
            .get(i + 1)
            .is_some_and(|m| super::month_dates::is_month_word(&text[m.range.clone()]))
    {
        return Some((2, Meaning::VagueCount));
    }
    if let Some(len) = week_off_weekday(text, words, i) {
        return Some((len, Meaning::VagueCount));
    }
    if let Some(found) = counted_days(text, words, i) {
        return Some(found);
    }
    let (len, direction, at) = match w(0) {
        Some("last") if joined(2) => (2, -1, 1),
        Some("next") if joined(2) => (2, 1, 1),
        Some("this") if joined(2) => (2, 0, 1),
        _ => (1, -1, 0),
    };
    let weekday = weekday_at(text, words, i + at, at == 1)?;
    // Recurring (`every Monday`) and ranges (`Monday to Friday`) name no one day.
    let before = (i > 0).then(|| words[i - 1].lower.as_str());
    if matches!(before, Some("every" | "each" | "per")) {
        return None;
    }
    let ranged = |k: usize| {
        matches!(w(k), Some("to" | "through" | "thru" | "till" | "until"))
            && w(k + 1).and_then(any_weekday).is_some()
    };
    let ranged_before = i >= 2
        && matches!(
            words[i - 1].lower.as_str(),
            "to" | "through" | "thru" | "till" | "until"
        )
        && any_weekday(&words[i - 2].lower).is_some();
    if ranged(at + 1) || ranged_before {
        return None;
    }
    // `Friday the 13th` names a day of the month, not the last Friday.
    let ordinal = |n: &str| {
        let digits = n.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && matches!(&n[digits.len()..], "st" | "nd" | "rd" | "th")
    };
    if w(at + 1) == Some("the") && w(at + 2).is_some_and(ordinal) {
        return None;
    }
    // `next Tuesday week`, `Tuesday week`: a week after that day, read whole or refused
    // (refused: which Tuesday `Tuesday week` counts from is read two ways).
    if w(len) == Some("week") && joined(len + 1) {
        return Some((len + 1, Meaning::VagueCount));
    }
    if at == 1 {
        // `next Monday mornings`: one day, or every one? Refused whole.
        if w(len).is_some_and(|a| RECURRING_AFTER.contains(&a)) && joined(len + 1) {
            return Some((len + 1, Meaning::VagueCount));
        }
        return Some((len, Meaning::Weekday(weekday, direction)));
    }
    if not_one_day(text, words, i, weekday) {
        return None;
    }
    // A deadline looks ahead: `by Friday`, `until Friday`, `due (on) Friday` is the coming
    // one (today included), as `this Friday`.
    // `since Monday` looks back, whatever the tense.
    if before == Some("since") {
        return Some((len, Meaning::Weekday(weekday, -1)));
    }
    let due_on = before == Some("on") && i >= 2 && words[i - 2].lower == "due";
    // `moved to Monday`, `postponed to Friday`: the coming one, as the future tense.
    if before == Some("to") {
        return Some((len, Meaning::Weekday(weekday, 1)));
    }
    if due_on || matches!(before, Some("by" | "until" | "till" | "before" | "due")) {
        return Some((len, Meaning::Weekday(weekday, 0)));
    }
    let meaning = match tense(text, words, i) {
        Tense::Future => Meaning::Weekday(weekday, 1),
        Tense::Past => Meaning::Weekday(weekday, -1),
        Tense::Unknown => Meaning::Undirected(weekday),
        Tense::Unmarked => Meaning::Unmarked(weekday),
    };
    Some((len, meaning))
}

/// The word before a weekday that makes it part of a holiday's name (`Black Friday`,
/// `Good Friday`, `Easter Monday`): a day of the year, not the nearest weekday.
const HOLIDAYS: &[(&str, Weekday)] = &[
    ("good", Weekday::Fri),
    ("easter", Weekday::Mon),
    ("easter", Weekday::Sun),
    ("whit", Weekday::Mon),
    ("whit", Weekday::Sun),
    ("ash", Weekday::Wed),
    ("spy", Weekday::Wed),
    ("bowl", Weekday::Sun),
    ("shrove", Weekday::Tue),
    ("fat", Weekday::Tue),
    ("giving", Weekday::Tue),
    ("maundy", Weekday::Thu),
    ("holy", Weekday::Thu),
    ("holy", Weekday::Sat),
    ("palm", Weekday::Sun),
    ("mothering", Weekday::Sun),
    ("trinity", Weekday::Sun),
    ("plough", Weekday::Mon),
    ("blue", Weekday::Mon),
    ("business", Weekday::Sat),
];

/// Words before any weekday that make it a name (`Black Monday`, `Cyber Monday`, `Super
/// Tuesday`).
const NAMING_WORDS: &[&str] = &["black", "cyber", "super"];

/// Words before a weekday that make it a noun or a modifier (`the Friday release train`,
/// `The Monday meeting`, `a Sunday`): not a day relative to today.
const DETERMINERS: &[&str] = &[
    "the",
    "a",
    "an",
    "that",
    "those",
    "these",
    "our",
    "my",
    "your",
    "their",
    "his",
    "her",
    "its",
    "whose",
    "one",
    "same",
    "any",
    "which",
    "whichever",
];

/// Nouns a bare weekday names a kind of (`Monday standup moved`, `Friday deploys`): a
/// recurring event, not one day.
const EVENT_NOUNS: &[&str] = &[
    "meeting",
    "standup",
    "stand",
    "sync",
    "release",
    "deploy",
    "deployment",
    "train",
    "call",
    "review",
    "retro",
    "retrospective",
    "demo",
    "digest",
    "report",
    "build",
    "job",
    "cron",
    "backup",
    "batch",
    "freeze",
    "window",
    "shift",
    "rota",
    "slot",
    "session",
    "newsletter",
    "huddle",
    "planning",
    "rotation",
    "cadence",
    "routine",
    "schedule",
    "maintenance",
];

/// Words in a weekday's clause that make it recurring (`deploys happen on Monday`,
/// `usually on Friday`).
const RECURRING_CUES: &[&str] = &[
    "happen",
    "happens",
    "occur",
    "occurs",
    "recur",
    "recurs",
    "usually",
    "always",
    "normally",
    "typically",
    "generally",
    "regularly",
    "often",
    "weekly",
    "every",
    "each",
    "per",
    // A rule or a habit names no one day: `don't deploy on Friday`, `no deploys on
    // Friday`, `prefers reviews on Monday`, `nightly except Sunday`.
    "never",
    "no",
    "except",
    "prefer",
    "prefers",
    "avoid",
    "avoids",
];

/// Words after a weekday that make it recurring (`Monday mornings`).
const RECURRING_AFTER: &[&str] = &["mornings", "afternoons", "evenings", "nights"];

/// Words that end a clause (as punctuation does) for the tense and recurrence cues.
const CLAUSE_WORDS: &[&str] = &[
    "and", "but", "or", "then", "so", "because", "while", "whereas",
];

/// Whether a bare weekday at word `i` (after `on` or alone) names no one day, and is left
/// alone: a holiday (`Black Friday`), a noun or modifier (`the Friday release train`,
/// `Monday standup`), recurring (`deploys happen on Monday`, `Monday mornings`).
fn not_one_day(text: &str, words: &[Word], i: usize, weekday: Weekday) -> bool {
    let before = i.checked_sub(1).map(|b| words[b].lower.as_str());
    let after = words.get(i + 1).filter(|_| joined_at(text, words, i + 1));
    let after = after.map(|a| a.lower.as_str());
    let holiday = before.is_some_and(|b| {
        (HOLIDAYS.contains(&(b, weekday)) || NAMING_WORDS.contains(&b)) && joined_at(text, words, i)
    });
    let determined = before.is_some_and(|b| DETERMINERS.contains(&b));
    let event = after.is_some_and(|a| {
        EVENT_NOUNS.contains(&a) || EVENT_NOUNS.contains(&a.strip_suffix('s').unwrap_or(a))
    });
    let recurring_after = after.is_some_and(|a| RECURRING_AFTER.contains(&a));
    let recurring = clause(text, words, i, false)
        .chain(clause(text, words, i, true))
        .any(|k| {
            let word = words[k].lower.as_str();
            RECURRING_CUES.contains(&word)
                || (matches!(word, "don" | "doesn")
                    && words.get(k + 1).is_some_and(|n| n.lower == "t"))
        });
    holiday || determined || event || recurring_after || recurring
}

/// The tense a weekday's clause is in, from its words.
enum Tense {
    /// `will`, `'ll`, `going to`, `scheduled for`, `planned for`, `upcoming`, …: the
    /// coming one, today excluded.
    Future,
    /// No cue, or a past one (`was`, `did`): the most recent one before today.
    Past,
    /// `is`/`are` (on) the weekday: the coming one or every one.
    Unknown,
    /// No cue at all: the last one or the coming one.
    Unmarked,
}

/// Words that put a clause in the future.
const FUTURE_CUES: &[&str] = &[
    "will",
    "shall",
    "gonna",
    "scheduled",
    "planned",
    "due",
    "upcoming",
    "expected",
    "slated",
    "tomorrow",
    // Intent and obligation point ahead: `we need to rotate it on Friday`.
    "need",
    "needs",
    "must",
    "should",
    "plan",
    "plans",
    "planning",
    "intend",
    "intends",
    "want",
    "wants",
    "hope",
    "hopes",
    "aim",
    "aims",
    "ought",
];

/// Modals that point back when `have` follows them (`should have shipped on Monday`).
const MODALS: &[&str] = &["must", "should", "ought", "could", "would", "might", "may"];

/// Words that put a clause in the past.
const PAST_CUES: &[&str] = &[
    "was",
    "were",
    "did",
    "had",
    "yesterday",
    "ago",
    "didn",
    "wasn",
    "weren",
    "hadn",
    // Irregular past forms that are no present form too.
    "went",
    "came",
    "broke",
    "ran",
    "made",
    "got",
    "took",
    "gave",
    "found",
    "left",
    "began",
    "built",
    "wrote",
    "fell",
    "sent",
    "spent",
    "told",
    "thought",
    "brought",
    "bought",
    "held",
    "kept",
    "lost",
    "met",
    "paid",
    "said",
    "sold",
    "stood",
    "saw",
    "knew",
    "grew",
    "threw",
    "drew",
    "rode",
    "chose",
    "froze",
    "spoke",
    "stole",
    "woke",
    "became",
    "caught",
    "taught",
    "fought",
    "felt",
    "slept",
    "meant",
    "dealt",
    "forgot",
    "understood",
    "rang",
    "hung",
    "shook",
    "swore",
    "tore",
    "wore",
    "won",
    "led",
    "fed",
    "fled",
    "bled",
    "sped",
    "shot",
    "lit",
    "slid",
    "spun",
    "stuck",
    "struck",
    "swung",
    "dug",
    "flew",
    "drove",
    "ate",
    "drank",
    "sat",
    "sank",
    "began",
    "been",
];

/// Whether `word` reads as a regular past form (`deployed`, `shipped`, `fixed`): `-ed`
/// after at least three letters (`red`, `bed` and `need` are not; `speed` is, harmlessly).
fn regular_past(word: &str) -> bool {
    word.len() > 4 && word.ends_with("ed") && !word.ends_with("eed")
}

/// The tense of the clause of the weekday at word `i`: the nearest cue before it (`we will
/// deploy on Monday`), or, when the weekday opens its clause (`On Monday we will deploy`),
/// the first one after it.
fn tense(text: &str, words: &[Word], i: usize) -> Tense {
    let before = |k: usize| k.checked_sub(1).map(|b| words[b].lower.as_str());
    // `is Friday`, `is on Friday`: present, no direction.
    let at = if before(i) == Some("on") { i - 1 } else { i };
    if matches!(before(at), Some("is" | "are" | "am")) && joined_at(text, words, at) {
        return Tense::Unknown;
    }
    let cue = |k: usize| {
        let word = words[k].lower.as_str();
        let next = words.get(k + 1).map(|w| w.lower.as_str());
        let apostrophe = |k: usize| {
            k.checked_sub(1).is_some_and(|b| {
                matches!(&text[words[b].range.end..words[k].range.start], "'" | "’")
            })
        };
        let after_next = words.get(k + 2).map(|w| w.lower.as_str());
        // `should have shipped`, `ought to have shipped`: a past that did not happen.
        let modal_past = MODALS.contains(&word)
            && (next == Some("have") || (next == Some("to") && after_next == Some("have")));
        // `we're deploying on Monday`, `the team is moving it Friday`: the present
        // progressive of a plan.
        let progressive = (matches!(word, "is" | "are" | "am") || (word == "re" && apostrophe(k)))
            && next.is_some_and(|n| n.len() > 4 && n.ends_with("ing"));
        if modal_past {
            Some(Tense::Past)
        } else if FUTURE_CUES.contains(&word)
            || progressive
            || (word == "ll" && apostrophe(k))
            || (word == "going" && next == Some("to"))
            || (word == "won" && next == Some("t") && apostrophe(k + 1))
            || (word == "let" && next == Some("s") && apostrophe(k + 1))
            || (matches!(word, "have" | "has") && next == Some("to"))
        {
            Some(Tense::Future)
        } else if PAST_CUES.contains(&word)
            || (regular_past(word)
                && !k
                    .checked_sub(1)
                    .is_some_and(|b| matches!(words[b].lower.as_str(), "be" | "being")))
        {
            Some(Tense::Past)
        } else {
            None
        }
    };
    if let Some(t) = clause(text, words, i, false).find_map(cue) {
        return t;
    }
    let opens = clause(text, words, i, false).all(|k| words[k].lower == "on");
    if opens && let Some(t) = clause(text, words, i, true).find_map(cue) {
        return t;
    }
    // `On Saturday, it rained`: an opening weekday takes the tense of the clause its
    // comma leads to.
    if opens && let Some(t) = run_on(text, words, i, true, true).find_map(cue) {
        return t;
    }
    // `Yesterday and on Monday`: joined clauses share their tense.
    if let Some(t) = run_on(text, words, i, false, false).find_map(cue) {
        return t;
    }
    // No cue (`deploy on Friday`, `the freeze starts Monday`): the last one or the coming
    // one? Refused in a text rather than guessed (a `--date Friday` alone is the last one).
    Tense::Unmarked
}

/// Whether word `k` follows word `k - 1` in the same clause (no punctuation but spaces,
/// tabs, apostrophes and hyphens between them).
fn same_clause(text: &str, words: &[Word], k: usize) -> bool {
    k.checked_sub(1).is_some_and(|b| {
        text[words[b].range.end..words[k].range.start]
            .chars()
            .all(|c| matches!(c, ' ' | '\t' | '\'' | '’' | '-' | '"' | '*' | '_'))
    })
}

/// Whether word `k` follows word `k - 1` with only spaces or tabs between them.
fn joined_at(text: &str, words: &[Word], k: usize) -> bool {
    k.checked_sub(1).is_some_and(|b| {
        let between = &text[words[b].range.end..words[k].range.start];
        !between.is_empty() && between.chars().all(|c| c == ' ' || c == '\t')
    })
}

/// The words of the clause of word `i`, nearest first: before it (`forward` false) or
/// after it. A clause ends at punctuation, a line break, or a joining word (`and`, `but`).
fn clause<'a>(
    text: &'a str,
    words: &'a [Word],
    i: usize,
    forward: bool,
) -> Box<dyn Iterator<Item = usize> + 'a> {
    let ends = move |k: usize| CLAUSE_WORDS.contains(&words[k].lower.as_str());
    if forward {
        Box::new((i + 1..words.len()).take_while(move |&k| same_clause(text, words, k) && !ends(k)))
    } else {
        Box::new(
            (0..i)
                .rev()
                .take_while(move |&k| same_clause(text, words, k + 1) && !ends(k)),
        )
    }
}

/// The words around word `i`, nearest first, across joining words (`and`, `but`) and,
/// when `commas`, commas; up to other punctuation or a line break.
fn run_on<'a>(
    text: &'a str,
    words: &'a [Word],
    i: usize,
    forward: bool,
    commas: bool,
) -> Box<dyn Iterator<Item = usize> + 'a> {
    let joined = move |k: usize| {
        k.checked_sub(1).is_some_and(|b| {
            text[words[b].range.end..words[k].range.start]
                .chars()
                .all(|c| {
                    matches!(c, ' ' | '\t' | '\'' | '’' | '-' | '"' | '*' | '_')
                        || (commas && c == ',')
                })
        })
    };
    if forward {
        Box::new((i + 1..words.len()).take_while(move |&k| joined(k)))
    } else {
        Box::new((0..i).rev().take_while(move |&k| joined(k + 1)))
    }
}

/// `a week on Tuesday`, `two weeks from Friday`, `a week after Monday` at word `i`: how
/// many words, refused whole (never `a week from 2026-07-06`).
fn week_off_weekday(text: &str, words: &[Word], i: usize) -> Option<usize> {
    let w = |k: usize| words.get(i + k).map(|w| w.lower.as_str());
    let count = w(0)?;
    if !(count == "a" || count.bytes().all(|b| b.is_ascii_digit()) || UNIT_WORDS.contains(&count)) {
        return None;
    }
    let shape = matches!(w(1), Some("week" | "weeks"))
        && matches!(w(2), Some("on" | "from" | "after" | "before"))
        && (1..4).all(|k| joined_at(text, words, i + k));
    (shape && weekday_at(text, words, i + 3, true).is_some()).then_some(4)
}

/// Number words below twenty a count of days or weeks may be written in (`two weeks
/// ago`), each at its value's index.
const UNIT_WORDS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

/// The tens from twenty on, each at its value's index divided by ten (`thirty` = 3).
const TENS_WORDS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// Words that count without saying how many (`hundreds of days ago`, `a dozen days
/// ago`): the phrase is a vague count.
const VAGUE_COUNT_WORDS: [&str; 9] = [
    "few",
    "several",
    "couple",
    "some",
    "many",
    "dozen",
    "dozens",
    "hundreds",
    "thousands",
];

/// How the words of a cardinal number may be separated: `Spaced` by spaces or tabs only,
/// `Hyphened` also by one hyphen (`twenty-one`).
#[derive(Clone, Copy, PartialEq)]
enum Gap {
    /// Spaces or tabs only.
    Spaced,
    /// Spaces or tabs, or one `-` (between a ten and a unit).
    Hyphened,
}

/// The cardinal number written in words starting at word `at` (`seven`, `twenty-one`,
/// `ninety nine`, `a hundred`, `two hundred and five`, `one thousand`): its value and how
/// many words it takes. `gap(k, how)` says whether word `k` follows word `k - 1` as
/// `how` allows.
fn cardinal_words(
    words: &[Word],
    at: usize,
    gap: &dyn Fn(usize, Gap) -> bool,
) -> Option<(i64, usize)> {
    let w = |k: usize| words.get(k).map(|w| w.lower.as_str());
    let unit = |k: usize| {
        w(k).and_then(|word| UNIT_WORDS.iter().position(|u| *u == word))
            .and_then(|v| i64::try_from(v).ok())
    };
    // Below a hundred: a unit word, or a ten with an optional unit 1..9 after it.
    let below_hundred = |k: usize| -> Option<(i64, usize)> {
        if let Some(v) = unit(k) {
            return Some((v, 1));
        }
        let tens = w(k).and_then(|word| TENS_WORDS.iter().position(|t| *t == word))?;
        let tens = i64::try_from(tens * 10).ok()?;
        match unit(k + 1) {
            Some(v @ 1..=9) if gap(k + 1, Gap::Hyphened) => Some((tens + v, 2)),
            _ => Some((tens, 1)),
        }
    };
    // A multiplier (`hundred`, `thousand`) after a count (or `a`), then an optional `and`
    // and the rest below it; without the multiplier, the count alone.
    let scaled = |k: usize,
                  word: &str,
                  scale: i64,
                  lead: &dyn Fn(usize) -> Option<(i64, usize)>,
                  rest: &dyn Fn(usize) -> Option<(i64, usize)>|
     -> Option<(i64, usize)> {
        let counted = lead(k);
        let (count, len) = match counted {
            Some((count, len)) if w(k + len) == Some(word) && gap(k + len, Gap::Spaced) => {
                (count, len)
            }
            _ if w(k) == Some("a") && w(k + 1) == Some(word) && gap(k + 1, Gap::Spaced) => (1, 1),
            _ => return counted,
        };
        let mut len = len + 1;
        let mut value = count.checked_mul(scale)?;
        let and = usize::from(w(k + len) == Some("and") && gap(k + len, Gap::Spaced));
        if gap(k + len + and, Gap::Spaced)
            && let Some((v, l)) = rest(k + len + and).filter(|(v, _)| *v > 0)
        {
            value += v;
            len += and + l;
        }
        Some((value, len))
    };
    let below_thousand = |k: usize| {
        scaled(
            k,
            "hundred",
            100,
            &|k| below_hundred(k).filter(|(v, _)| (1..10).contains(v)),
            &below_hundred,
        )
        .or_else(|| below_hundred(k))
    };
    scaled(at, "thousand", 1000, &below_thousand, &below_thousand)
}

/// Words that only go on a number written in words (`hundred`, `million`): one left
/// after a count this module could not read whole (or a unit word, or `and` and one of
/// them) makes the count vague.
const NUMBER_TAIL_WORDS: [&str; 4] = ["hundred", "thousand", "million", "billion"];

/// The longest span a counted phrase may name, in days (a hundred years): beyond it the
/// phrase is refused.
const MAX_COUNTED_DAYS: i64 = 36_500;

/// A counted phrase at word `i`: `N days ago`, `N weeks ago`, `a week ago`, `in N days`,
/// `in N weeks` (N in digits or a cardinal in words: `twenty-one`, `ninety nine`, `a
/// hundred`, `two hundred and five`) → the day; a vague count or unit (`a few weeks ago`,
/// `several days ago`, `couple of days ago`, `a dozen days ago`, `3 months ago`, `in a
/// few days`, `in two months`, `weeks ago`) → refused.
fn counted_days(text: &str, words: &[Word], i: usize) -> Option<(usize, Meaning)> {
    let w = |k: usize| words.get(i + k).map(|w| w.lower.as_str());
    // Word `k` (absolute) follows word `k - 1` with only spaces or tabs between them (or
    // one hyphen, where `how` allows it).
    let gap = |k: usize, how: Gap| {
        let (Some(before), Some(after)) =
            (k.checked_sub(1).and_then(|b| words.get(b)), words.get(k))
        else {
            return false;
        };
        let between = &text[before.range.end..after.range.start];
        (!between.is_empty() && between.chars().all(|c| c == ' ' || c == '\t'))
            || (how == Gap::Hyphened && between == "-")
    };
    let spaced = |k: usize| gap(i + k, Gap::Spaced);
    let future = w(0) == Some("in");
    let mut k = usize::from(future);
    if future && !spaced(k) {
        return None;
    }
    // The count: exact, vague, or none at all (`weeks ago`).
    let mut in_digits = false;
    let count = match w(k)? {
        "a" if w(k + 1).is_some_and(|n| VAGUE_COUNT_WORDS.contains(&n)) && spaced(k + 1) => {
            k += 2;
            None
        }
        word if VAGUE_COUNT_WORDS.contains(&word) => {
            k += 1;
            None
        }
        // A digit run too long for a number is past the limit (refused below).
        word if word.bytes().all(|b| b.is_ascii_digit()) => {
            k += 1;
            in_digits = true;
            Some(word.parse::<i64>().unwrap_or(i64::MAX))
        }
        word => match cardinal_words(words, i + k, &gap) {
            Some((n, len)) => {
                k += len;
                Some(n)
            }
            // `in a week's time`, `in a day's time`: one, as `a week ago`.
            None if word == "a" && (!future || time_after(text, words, i + k + 1).is_some()) => {
                k += 1;
                Some(1)
            }
            // `weeks ago`: no count, vague.
            None if !future => None,
            None => return None,
        },
    };
    // A number in words this reader could not read whole (`one hundred thousand million`,
    // `twenty twenty`): vague rather than a wrong day. (Digits and then words, `16 two
    // weeks ago`, are two things: the phrase starts at the words.)
    let mut unread = false;
    let number_word = |k: usize| {
        spaced(k)
            && w(k).is_some_and(|n| {
                NUMBER_TAIL_WORDS.contains(&n)
                    || UNIT_WORDS.contains(&n)
                    || TENS_WORDS[2..].contains(&n)
            })
    };
    while count.is_some() && !in_digits {
        if number_word(k) {
            k += 1;
        } else if w(k) == Some("and") && spaced(k) && number_word(k + 1) {
            k += 2;
        } else {
            break;
        }
        unread = true;
    }
    if count.is_none() && w(k) == Some("of") && spaced(k) {
        k += 1;
    }
    let unit = match w(k)? {
        "day" | "days" => Some(1),
        "week" | "weeks" => Some(7),
        "month" | "months" | "year" | "years" => None,
        _ => return None,
    };
    if k > 0 && !spaced(k) {
        return None;
    }
    k += 1;
    if !future {
        if w(k) != Some("ago") || !spaced(k) {
            return None;
        }
        k += 1;
    } else if let Some(more) = time_after(text, words, i + k - 1) {
        // `in 2 days' time`: the whole phrase, never `2026-07-12' time`.
        k += more;
    }
    let meaning = match (count, unit, unread) {
        (Some(n), Some(unit), false) => {
            match n.checked_mul(unit).filter(|d| *d <= MAX_COUNTED_DAYS) {
                Some(days) => Meaning::Days(if future { days } else { -days }),
                None => Meaning::VagueCount,
            }
        }
        _ => Meaning::VagueCount,
    };
    Some((k, meaning))
}

/// How many words `'s time` or `' time` after the unit at word `unit` (`days' time`,
/// `week's time`) takes, when it follows.
fn time_after(text: &str, words: &[Word], unit: usize) -> Option<usize> {
    let word = |k: usize| words.get(k).map(|w| w.lower.as_str());
    let between = |k: usize| {
        let (a, b) = (words.get(k.checked_sub(1)?)?, words.get(k)?);
        Some(&text[a.range.end..b.range.start])
    };
    let apostrophe = |g: &str| matches!(g, "'" | "’");
    if !matches!(word(unit), Some("day" | "days" | "week" | "weeks")) {
        return None;
    }
    let spaced = |g: &str| !g.is_empty() && g.chars().all(|c| c == ' ' || c == '\t');
    if word(unit + 1) == Some("s")
        && between(unit + 1).is_some_and(apostrophe)
        && word(unit + 2) == Some("time")
        && between(unit + 2).is_some_and(spaced)
    {
        return Some(2);
    }
    let gap = between(unit + 1)?;
    let quoted = gap.strip_prefix('\'').or_else(|| gap.strip_prefix('’'));
    (word(unit + 1) == Some("time") && quoted.is_some_and(spaced)).then_some(1)
}

/// Weekday abbreviations, as written capitalised (`Mon`, `MON`): the ones that are also
/// English words (`Wed`, `Sat`, `Sun`) are marked.
const WEEKDAY_ABBREVIATIONS: [(&str, Weekday, bool); 10] = [
    ("mon", Weekday::Mon, false),
    ("tue", Weekday::Tue, false),
    ("tues", Weekday::Tue, false),
    ("wed", Weekday::Wed, true),
    ("thu", Weekday::Thu, false),
    ("thur", Weekday::Thu, false),
    ("thurs", Weekday::Thu, false),
    ("fri", Weekday::Fri, false),
    ("sat", Weekday::Sat, true),
    ("sun", Weekday::Sun, true),
];

/// Words after which a bare `Wed`, `Sat` or `Sun` is a verb or a noun, not a day (`we
/// Sat`, `the Sun`).
const NOT_BEFORE_A_DAY: [&str; 10] = [
    "i", "we", "you", "he", "she", "they", "it", "the", "a", "an",
];

/// Words after which a bare `Wed`, `Sat` or `Sun` is a verb (`Sat down with ops`, `Sat
/// in on the review`).
const NOT_AFTER_A_DAY: [&str; 10] = [
    "down", "up", "with", "in", "through", "out", "for", "around", "by", "on",
];

/// Words before a day that make an abbreviation that is also a word (`on Sat`, `by
/// Sun`) a day.
const DAY_PREPOSITIONS: [&str; 6] = ["on", "since", "by", "until", "till", "from"];

/// The weekday word `at` names: a full name in any case (`monday`, `MONDAY`), or a
/// capitalised abbreviation (`Mon`, `MON`; `mon` only after `last`, `next` or `this`);
/// `prefixed` when `last`, `next` or `this` comes before it. A bare `Wed`, `Sat` or `Sun` (also English words) is a day
/// unless a pronoun or article comes before it, a preposition after it (`Sat down`), or
/// a capitalised word after it (`Sun Microsystems`).
fn weekday_at(text: &str, words: &[Word], at: usize, prefixed: bool) -> Option<Weekday> {
    let word = words.get(at)?;
    if let Some(day) = weekday_of(&word.lower) {
        return Some(day);
    }
    let written = &text[word.range.clone()];
    let mut chars = written.chars();
    let capitalised = chars.next().is_some_and(char::is_uppercase)
        && (chars.clone().all(char::is_lowercase) || chars.all(char::is_uppercase));
    let (_, day, also_a_word) = WEEKDAY_ABBREVIATIONS
        .iter()
        .find(|(a, _, _)| *a == word.lower)?;
    if !capitalised && !prefixed {
        return None;
    }
    let before = at
        .checked_sub(1)
        .and_then(|b| words.get(b))
        .map(|b| b.lower.as_str());
    if !also_a_word || prefixed || before.is_some_and(|b| DAY_PREPOSITIONS.contains(&b)) {
        return Some(*day);
    }
    let after = words.get(at + 1);
    let verb_or_noun = before.is_some_and(|b| NOT_BEFORE_A_DAY.contains(&b))
        || after.is_some_and(|a| {
            NOT_AFTER_A_DAY.contains(&a.lower.as_str())
                || text[a.range.clone()]
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase)
        });
    (!verb_or_noun).then_some(*day)
}

/// A weekday full name or abbreviation in any case (for recurrences and ranges: `Mon to
/// Fri`).
fn any_weekday(word: &str) -> Option<Weekday> {
    weekday_of(word).or_else(|| {
        WEEKDAY_ABBREVIATIONS
            .iter()
            .find(|(a, _, _)| *a == word)
            .map(|(_, d, _)| *d)
    })
}

fn weekday_of(word: &str) -> Option<Weekday> {
    super::dates::WEEKDAYS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, d)| *d)
}

/// Whether the phrase at `range` stands as words, not inside a name: not after `/`, `\`,
/// `.`, `-`, `@`, `#`, `$` or `%`, nor before `/`, `\`, `@`, or a `.`/`-`/`–` that a letter
/// or digit follows (`today.csv`, `Monday-Friday`).
fn is_standalone(text: &str, range: &Range<usize>) -> bool {
    let before = text[..range.start].chars().next_back();
    if matches!(
        before,
        Some('/' | '\\' | '.' | '-' | '@' | '#' | '$' | '%' | '–')
    ) {
        return false;
    }
    let mut after = text[range.end..].chars();
    match after.next() {
        Some('/' | '\\' | '@') => false,
        Some('.' | '-' | '–') => !after.next().is_some_and(char::is_alphanumeric),
        _ => true,
    }
}

/// The words of `text` (runs of letters, digits and `_`), lowercased, outside the
/// `protected` ranges.
fn words(text: &str, protected: &[Range<usize>]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (start, is_word(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                start = None;
                if !protected.iter().any(|p| p.start < i && s < p.end) {
                    out.push(Word {
                        range: s..i,
                        lower: text[s..i].to_lowercase(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// The byte ranges no conversion touches: inline code spans (a run of backticks to the
/// next run of the same length), URLs (`scheme://` to the next white space), `<…>`
/// autolinks and Markdown link targets (`](…)`).
fn protected_ranges(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let mut j = i + run;
                let mut closed = None;
                while j < bytes.len() {
                    if bytes[j] == b'`' {
                        let r = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                        if r == run {
                            closed = Some(j + r);
                            break;
                        }
                        j += r;
                    } else {
                        j += 1;
                    }
                }
                match closed {
                    Some(end) => {
                        out.push(i..end);
                        i = end;
                    }
                    None => i += run,
                }
            }
            b'<' => match text[i..].find('>') {
                Some(end) if text[i + 1..i + end].contains([':', '@', '/']) => {
                    out.push(i..i + end + 1);
                    i += end + 1;
                }
                _ => i += 1,
            },
            b']' if bytes.get(i + 1) == Some(&b'(') => {
                let end = text[i..].find(')').map_or(bytes.len(), |e| i + e + 1);
                out.push(i..end);
                i = end;
            }
            b':' if text[i..].starts_with("://") => {
                let start = text[..i]
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
                    .map_or(0, |p| p + 1);
                let end = text[i..]
                    .find(|c: char| c.is_whitespace() || matches!(c, '>' | ')'))
                    .map_or(bytes.len(), |e| i + e);
                out.push(start..end);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn friday() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 7, 10).unwrap()
    }

    fn convert(text: &str) -> String {
        convert_relative_time(text, friday()).unwrap().0
    }

    #[test]
    fn day_words_and_phrases_become_the_day() {
        for (given, expected) in [
            ("fixed it yesterday", "fixed it 2026-07-09"),
            ("Yesterday's build broke", "2026-07-09's build broke"),
            ("TODAY: outage", "2026-07-10: outage"),
            ("deploy tonight.", "deploy 2026-07-10."),
            ("due tomorrow, then", "due 2026-07-11, then"),
            ("since the day before yesterday", "since 2026-07-08"),
            ("by the day after tomorrow", "by 2026-07-12"),
            ("broke last night", "broke 2026-07-09"),
            (
                "this morning the db fell over",
                "2026-07-10 the db fell over",
            ),
            ("3 days ago it worked", "2026-07-07 it worked"),
            ("(yesterday)", "(2026-07-09)"),
            ("today’s run", "2026-07-10’s run"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
    }

    #[test]
    fn weekdays_are_the_most_recent_or_the_coming_one() {
        for (given, expected) in [
            ("shipped on Monday", "shipped on 2026-07-06"),
            ("shipped Monday", "shipped 2026-07-06"),
            ("broke last Friday", "broke 2026-07-03"),
            ("freeze next Tuesday", "freeze 2026-07-14"),
            ("demo this Friday", "demo 2026-07-10"),
            ("demo this sunday", "demo 2026-07-12"),
            ("on SATURDAY, it rained", "on 2026-07-04, it rained"),
            // A deadline looks ahead (today, 2026-07-10, is a Friday).
            ("ship by Monday", "ship by 2026-07-13"),
            ("frozen until Wednesday", "frozen until 2026-07-15"),
            ("due Friday", "due 2026-07-10"),
            (
                "before Tue the branch is cut",
                "before 2026-07-14 the branch is cut",
            ),
            ("till Sunday", "till 2026-07-12"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
        // A day of the month after the weekday: not a relative day.
        assert_eq!(convert("Friday the 13th"), "Friday the 13th");
    }

    #[test]
    fn code_urls_names_recurrences_and_ranges_are_left_alone() {
        for text in [
            "the `today` flag",
            "run ``x today`` first",
            "see https://example.com/today/yesterday?day=monday",
            "see <https://example.com/today>",
            "[the report](docs/today.md)",
            "todays_report.csv is generated",
            "writes today.csv",
            "under /reports/today/",
            "the yesterday-build job",
            "standup every Monday",
            "backups each friday",
            "open Monday to Friday",
            "open Monday through Friday",
            "Monday-Friday only",
            "Mondays are quiet",
            "runs as soon as the lock is free",
            "the hook runs earlier than the bump",
            "todayish Monday2",
        ] {
            let (out, converted) = convert_relative_time(text, friday()).unwrap();
            assert_eq!(out, text);
            assert!(converted.is_empty(), "{text:?}: {converted:?}");
        }
    }

    #[test]
    fn day_phrases_and_short_forms_become_the_day() {
        for (given, expected) in [
            ("deployed earlier today", "deployed 2026-07-10"),
            ("retry later today", "retry 2026-07-10"),
            ("broke a fortnight ago", "broke 2026-06-26"),
            ("fixed yday", "fixed 2026-07-09"),
            ("ship tmrw", "ship 2026-07-11"),
            ("from now on we pin v2", "from now on we pin v2"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
    }

    /// `day before yesterday` and `day after tomorrow` are read whole, with or without
    /// `the`: never `day before <yesterday's date>`. A month with its day and year, a month
    /// as a word (`we may`, `march on`), and `in May` are left alone.
    #[test]
    fn whole_day_phrases_and_months_are_never_misread() {
        for (text, expected) in [
            ("deployed day before yesterday", "deployed 2026-07-08"),
            ("Day after tomorrow we ship", "2026-07-12 we ship"),
            ("the day before yesterday", "2026-07-08"),
            ("we may ship tomorrow", "we may ship 2026-07-11"),
            ("released on 3 May 2026", "released on 3 May 2026"),
            ("the May release, in May", "the May release, in May"),
            ("last may we march", "last may we march"),
        ] {
            assert_eq!(convert(text), expected, "{text:?}");
        }
    }

    #[test]
    fn vague_phrases_are_refused_naming_them() {
        for (text, phrase) in [
            ("shipped last week", "last week"),
            ("Recently the db got slow", "recently"),
            ("fixed it a while ago", "a while ago"),
            ("mentioned the other day", "the other day"),
            ("we said so earlier", "earlier"),
            ("coming soon", "soon"),
            ("it broke yesterday and again last  month", "last month"),
            ("moved it last weekend", "last weekend"),
            ("rotating keys this weekend", "this weekend"),
            ("done over the weekend", "over the weekend"),
            ("mentioned the other week", "the other week"),
            ("slow for the past week", "the past week"),
            ("flaky the past few days", "the past few days"),
            ("flaky past few days", "past few days"),
            ("broke the week before last", "the week before last"),
            ("due 3 days from now", "from now"),
            ("two weeks back it broke", "weeks back"),
            ("2 days back", "days back"),
            ("deployed an hour ago", "an hour ago"),
            ("deployed 3 hours ago", "hours ago"),
            ("a minute ago it paged", "a minute ago"),
            ("10 minutes ago", "minutes ago"),
            ("moved to Berlin last May", "last may"),
            ("renewal due next December", "next december"),
            ("since this Sept", "this sept"),
            ("cut over last january", "last january"),
        ] {
            let err = convert_relative_time(text, friday()).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{text:?}");
            assert!(err.to_string().contains(phrase), "{text:?}: {err}");
        }
    }

    #[test]
    fn counted_days_and_weeks_become_the_day() {
        for (given, expected) in [
            ("two weeks ago it broke", "2026-06-26 it broke"),
            ("2 weeks ago it broke", "2026-06-26 it broke"),
            ("broke a week ago.", "broke 2026-07-03."),
            ("a day ago", "2026-07-09"),
            ("1 week ago", "2026-07-03"),
            ("Three Days Ago", "2026-07-07"),
            ("twelve days ago", "2026-06-28"),
            ("in 3 days", "2026-07-13"),
            ("in 2 days we ship", "2026-07-12 we ship"),
            ("ship IN TWO WEEKS, then", "ship 2026-07-24, then"),
            ("in 1 day", "2026-07-11"),
            ("0 days ago", "2026-07-10"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
    }

    #[test]
    fn capitalised_abbreviations_are_weekdays() {
        for (given, expected) in [
            ("Mon it broke", "2026-07-06 it broke"),
            ("on Fri we shipped", "on 2026-07-03 we shipped"),
            ("next Tue", "2026-07-14"),
            ("last Thurs, again", "2026-07-09, again"),
            ("this Sun", "2026-07-12"),
            ("on Sat we shipped", "on 2026-07-04 we shipped"),
            ("by Wed", "by 2026-07-15"), // a deadline: the coming one
            ("Sat it broke", "2026-07-04 it broke"),
            ("deployed MON", "deployed 2026-07-06"),
            ("Tues, it broke", "2026-07-07, it broke"),
            ("last fri", "2026-07-03"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
    }

    /// A rule or a habit keeps its weekday; `to` a weekday is the coming one; a weekday
    /// nothing around tells the direction of is refused, never guessed.
    #[test]
    fn rules_keep_their_weekday_and_unmarked_ones_are_refused() {
        for text in [
            "Don't deploy on Friday",
            "don’t merge on Friday",
            "no deploys on Friday",
            "never deploy on Friday",
            "user prefers reviews on Monday",
            "backups run nightly except Sunday",
            "the job doesn't run on Sunday",
        ] {
            let (out, converted) = convert_relative_time(text, friday()).unwrap();
            assert_eq!(out, text, "{text:?}");
            assert!(converted.is_empty(), "{text:?}");
        }
        for (given, expected) in [
            ("standup moved to Monday", "standup moved to 2026-07-13"),
            (
                "the launch slipped to Friday",
                "the launch slipped to 2026-07-17",
            ),
            ("Yesterday and on Monday", "2026-07-09 and on 2026-07-06"),
            ("On Saturday, it rained", "On 2026-07-04, it rained"),
            ("we didn't ship on Monday", "we didn't ship on 2026-07-06"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
        for text in [
            "Deploy on Friday",
            "the freeze starts Monday",
            "Q: who is on call Sunday?",
            "Tues: outage",
            "ship it Monday",
        ] {
            let err = convert_relative_time(text, friday()).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{text:?}");
            assert!(
                err.to_string().contains("last one or the coming one"),
                "{text:?}: {err}"
            );
            assert!(
                first_relative(text).is_some(),
                "{text:?}: check flags it too"
            );
        }
        // As a whole date, a weekday is the most recent one (see `resolve_date`).
        assert_eq!(
            whole_phrase_day("Friday", friday()),
            Some(Ok(NaiveDate::from_ymd_opt(2026, 7, 3).unwrap()))
        );
    }

    #[test]
    fn words_that_only_look_like_abbreviations_stay() {
        for text in [
            "we sat down with ops",
            "mon ami",
            "the sun set",
            "Sat down with ops",
            "Sat in on the review",
            "we Sat there",
            "the Sun is up",
            "Sun Microsystems made it",
            "they wed in June",
            "standup every Mon",
            "open Mon to Fri",
            "open Mon-Fri",
            "Monitor the Fri_day job",
            "done in a day",
            "done in a week",
            "within 3 days",
            "every 3 days",
            "3 days later",
            "for 2 weeks",
            "in the 3 days since",
        ] {
            let (out, converted) = convert_relative_time(text, friday()).unwrap();
            assert_eq!(out, text);
            assert!(converted.is_empty(), "{text:?}: {converted:?}");
        }
    }

    #[test]
    fn vague_counts_months_and_years_are_refused() {
        for (text, phrase) in [
            ("a few weeks ago it broke", "a few weeks ago"),
            ("several days ago", "several days ago"),
            ("a couple of days ago", "a couple of days ago"),
            ("couple days ago", "couple days ago"),
            ("weeks ago we decided", "weeks ago"),
            ("3 months ago", "3 months ago"),
            ("a year ago", "a year ago"),
            ("in two months", "in two months"),
            ("in a few days we ship", "in a few days"),
            ("Some Weeks  Ago", "some weeks ago"),
            (
                "99999999999999999999 days ago",
                "99999999999999999999 days ago",
            ),
            ("in 40000 days", "in 40000 days"),
        ] {
            let err = convert_relative_time(text, friday()).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{text:?}");
            assert!(err.to_string().contains(phrase), "{text:?}: {err}");
        }
    }

    #[test]
    fn conversions_say_what_became_what() {
        let (_, converted) = convert_relative_time("Yesterday and on Monday", friday()).unwrap();
        let pairs: Vec<(&str, &str)> = converted
            .iter()
            .map(|c| (c.from.as_str(), c.to.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("Yesterday", "2026-07-09"), ("Monday", "2026-07-06")]
        );
    }

    /// Holidays, recurring and attributive weekdays name no one day: left alone, written
    /// and checked alike (`check` finds nothing in them).
    #[test]
    fn holidays_recurrences_and_modifiers_are_left_alone() {
        for text in [
            "Black Friday sale config",
            "Good Friday freeze",
            "Cyber Monday traffic doubled",
            "Easter Monday is off",
            "Ash Wednesday",
            "Super Tuesday results page",
            "black friday promo",
            "the Friday release train",
            "The Monday meeting moved",
            "a Sunday is quiet",
            "our Tuesday sync",
            "Monday standup moved to 10",
            "Friday deploys are risky",
            "deploys happen on Monday",
            "standup is on Monday mornings",
            "usually deployed on Friday",
            "backups run weekly on Sunday",
            "Friday nights are on call",
            "on Mondays",
            "every Monday",
        ] {
            let (out, converted) = convert_relative_time(text, friday()).unwrap();
            assert_eq!(out, text, "{text:?}");
            assert!(converted.is_empty(), "{text:?}: {converted:?}");
            assert_eq!(first_relative(text), None, "{text:?}");
        }
    }

    /// A weekday in the future tense is the coming one (today excluded; today is Friday
    /// 2026-07-10); a present one (`is on Friday`) is refused: the coming one or every
    /// one?
    #[test]
    fn future_weekdays_look_ahead_and_present_ones_are_refused() {
        for (given, expected) in [
            ("we will deploy on Monday", "we will deploy on 2026-07-13"),
            (
                "release is scheduled for Friday",
                "release is scheduled for 2026-07-17",
            ),
            ("will ship Friday", "will ship 2026-07-17"),
            ("we'll ship Friday", "we'll ship 2026-07-17"),
            ("we’ll ship Tuesday", "we’ll ship 2026-07-14"),
            ("going to ship on Monday", "going to ship on 2026-07-13"),
            (
                "rollout planned for Wednesday",
                "rollout planned for 2026-07-15",
            ),
            ("the upcoming Monday cut", "the upcoming 2026-07-13 cut"),
            ("On Monday we will deploy", "On 2026-07-13 we will deploy"),
            ("it won't ship Monday", "it won't ship 2026-07-13"),
            ("due on Friday", "due on 2026-07-10"),
            // Past, or no cue: the most recent one.
            (
                "shipped on Monday, will fix Tuesday",
                "shipped on 2026-07-06, will fix 2026-07-14",
            ),
            ("we will say it was Monday", "we will say it was 2026-07-06"),
            ("On Monday we deployed", "On 2026-07-06 we deployed"),
            // Intent, obligation and the present progressive point ahead; a modal
            // with `have` points back.
            (
                "we need to rotate the key on Friday",
                "we need to rotate the key on 2026-07-17",
            ),
            (
                "the cert must be renewed Monday",
                "the cert must be renewed 2026-07-13",
            ),
            (
                "should merge it on Tuesday",
                "should merge it on 2026-07-14",
            ),
            (
                "we plan to migrate on Wednesday",
                "we plan to migrate on 2026-07-15",
            ),
            (
                "we want to cut the release Thursday",
                "we want to cut the release 2026-07-16",
            ),
            ("let's ship on Monday", "let's ship on 2026-07-13"),
            (
                "we have to freeze on Thursday",
                "we have to freeze on 2026-07-16",
            ),
            ("we're deploying on Monday", "we're deploying on 2026-07-13"),
            (
                "the team is moving the db on Tuesday",
                "the team is moving the db on 2026-07-14",
            ),
            (
                "we should have shipped on Monday",
                "we should have shipped on 2026-07-06",
            ),
            (
                "it must have broken on Tuesday",
                "it must have broken on 2026-07-07",
            ),
            (
                "we were deploying on Monday",
                "we were deploying on 2026-07-06",
            ),
            (
                "the key needed rotating on Monday",
                "the key needed rotating on 2026-07-06",
            ),
            // An explicit `last`/`next`/`this` wins over the tense.
            (
                "will revert what shipped last Monday",
                "will revert what shipped 2026-07-06",
            ),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
        for (text, phrase) in [
            ("the demo is on Friday", "\"friday\" could be"),
            ("release is Monday", "\"monday\" could be"),
            ("standups are on Tuesday", "\"tuesday\" could be"),
        ] {
            let err = convert_relative_time(text, friday()).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{text:?}");
            assert!(err.to_string().contains(phrase), "{text:?}: {err}");
            assert!(first_relative(text).is_some(), "{text:?}");
        }
    }

    /// `in N days' time` is read whole; `next Tuesday week`, `a week from Monday`,
    /// `tomorrow week` are refused whole: never half a phrase converted.
    #[test]
    fn phrases_around_a_day_are_converted_whole_or_refused() {
        for (given, expected) in [
            ("in 2 days' time", "2026-07-12"),
            ("in two weeks’ time we ship", "2026-07-24 we ship"),
            ("in a week's time", "2026-07-17"),
            ("in a day’s time", "2026-07-11"),
            ("in 3 days time", "2026-07-13 time"),
        ] {
            assert_eq!(convert(given), expected, "{given:?}");
        }
        for (text, phrase) in [
            ("next Tuesday week", "next tuesday week"),
            ("freeze Tuesday week", "tuesday week"),
            ("a week from Monday", "a week from monday"),
            ("two weeks on Friday", "two weeks on friday"),
            ("tomorrow week", "tomorrow week"),
            ("in 2 months' time", "in 2 months"),
            ("in a month's time", "in a month"),
        ] {
            let err = convert_relative_time(text, friday()).unwrap_err();
            assert!(
                err.to_string().contains(&format!("{phrase:?}")),
                "{text:?}: {err}"
            );
        }
    }

    /// Years, quarters, sprints, `in a month`, `ages ago`: refused like `last month`.
    #[test]
    fn years_quarters_and_sprints_are_refused() {
        for phrase in [
            "next year",
            "this year",
            "last year",
            "next quarter",
            "last quarter",
            "this quarter",
            "next sprint",
            "last sprint",
            "in a month",
            "in a year",
            "ages ago",
            "a long time ago",
        ] {
            let text = format!("we moved it {phrase}, then");
            let err = convert_relative_time(&text, friday()).unwrap_err();
            assert!(
                err.to_string().contains(&format!("{phrase:?}")),
                "{text:?}: {err}"
            );
            assert_eq!(first_relative(&text).as_deref(), Some(phrase));
        }
    }

    /// Subjects, hooks, titles and sections are never converted: anything a text would
    /// convert or refuse is refused there, naming the field and the phrase.
    #[test]
    fn fields_refuse_relative_time_naming_field_and_phrase() {
        for field in ["subject", "hook", "title", "section"] {
            for (value, phrase) in [
                ("what we deployed yesterday", "yesterday"),
                ("yesterday's outage", "yesterday"),
                ("Last week", "last week"),
                ("the outage on Monday", "monday"),
                ("next quarter plan", "next quarter"),
                ("in 2 days' time", "in 2 days' time"),
            ] {
                let err = refuse_relative_in(field, value).unwrap_err();
                assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
                let message = err.to_string();
                assert!(message.contains(&format!("invalid {field}")), "{message}");
                assert!(message.contains(&format!("{phrase:?}")), "{message}");
            }
            for value in [
                "Black Friday sale",
                "Monday standup",
                "every Friday",
                "2026-07-09 outage",
            ] {
                assert!(refuse_relative_in(field, value).is_ok(), "{value:?}");
            }
        }
    }
}

#[cfg(test)]
mod sentence_props {
    use super::*;
    use proptest::prelude::*;

    const LEADS: &[&str] = &[
        "",
        "we",
        "we will",
        "we'll",
        "going to",
        "deploys happen",
        "it was",
        "shipped",
        "the",
        "Black",
        "Good",
        "Cyber",
        "Easter",
        "Ash",
        "Super",
        "every",
        "is scheduled for",
        "planned for",
        "due",
        "upcoming",
        "release is",
        "usually",
        "next",
        "last",
        "this",
        "a week from",
        "in 2 days' time and",
    ];
    const PREPOSITIONS: &[&str] = &["", "on", "by", "since"];
    const DAYS: &[&str] = &[
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Mondays",
        "Fri",
        "yesterday",
        "tomorrow",
    ];
    const TAILS: &[&str] = &[
        "",
        "mornings",
        "morning",
        "meeting",
        "release train",
        "week",
        "we deployed",
        "we will deploy",
        "'s build",
        ", then",
        "sale config",
        "standup",
    ];

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 2).unwrap() // a Wednesday
    }

    /// A date the conversion wrote, and the words around it.
    fn dates_in(text: &str) -> Vec<(usize, usize)> {
        let b = text.as_bytes();
        (0..b.len().saturating_sub(9))
            .filter(|&i| {
                b[i..i + 10].iter().enumerate().all(|(k, c)| {
                    if k == 4 || k == 7 {
                        *c == b'-'
                    } else {
                        c.is_ascii_digit()
                    }
                })
            })
            .map(|i| (i, i + 10))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// For sentences built from weekday, holiday, recurring and tense fragments: a
        /// converted text holds no half phrase (a date glued to `week`, `' time`,
        /// `mornings`, or after a holiday word or an article) and nothing `check` would
        /// flag; the text is changed exactly when `check` flags the original; and a
        /// future-tense weekday never lands in the past.
        #[test]
        fn conversion_refusal_and_check_agree(
            lead in prop::sample::select(LEADS),
            prep in prop::sample::select(PREPOSITIONS),
            day in prop::sample::select(DAYS),
            tail in prop::sample::select(TAILS),
        ) {
            let text = [lead, prep, day, tail]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
                .replace(" ,", ",")
                .replace(" 's", "'s");
            let flagged = first_relative(&text);
            let holiday = matches!(
                (lead, day),
                ("Good", "Friday") | ("Easter", "Monday") | ("Ash", "Wednesday")
            ) || (matches!(lead, "Black" | "Cyber" | "Super" | "the") && day != "yesterday" && day != "tomorrow");
            if holiday && prep.is_empty() {
                let name = format!("{lead} {day}");
                let kept = convert_relative_time(&text, today()).map(|(out, _)| out.contains(&name));
                prop_assert!(kept.unwrap_or(true), "{:?}", text);
            }
            match convert_relative_time(&text, today()) {
                Err(_) => prop_assert!(flagged.is_some(), "{text:?} refused, not flagged"),
                Ok((out, converted)) => {
                    prop_assert_eq!(converted.is_empty(), flagged.is_none(), "{:?}", text);
                    prop_assert_eq!(converted.is_empty(), out == text);
                    prop_assert_eq!(first_relative(&out), None, "{:?} -> {:?}", text, out);
                    for (start, end) in dates_in(&out) {
                        let after = out[end..].trim_start_matches(['\'', '’']);
                        let after = after.split_whitespace().next().unwrap_or("");
                        let day_word = !matches!(day, "yesterday" | "tomorrow");
                        prop_assert!(
                            !(matches!(after, "week" | "time") || (day_word && after == "mornings")),
                            "{:?} -> {:?}", text, out
                        );
                        let before = out[..start].split_whitespace().last().unwrap_or("");
                        prop_assert!(
                            !(day_word && ["black", "cyber", "super", "the"]
                                .contains(&before.to_lowercase().as_str())),
                            "{:?} -> {:?}", text, out
                        );
                        let future = ["we will", "we'll", "going to", "is scheduled for",
                            "planned for", "upcoming"].contains(&lead)
                            && matches!(prep, "" | "on")
                            && !matches!(day, "yesterday" | "tomorrow" | "Mondays");
                        if future {
                            prop_assert!(&out[start..end] > "2026-12-02", "{:?} -> {:?}", text, out);
                        }
                    }
                }
            }
        }
    }
}
