//! "Convert relative time to absolute at write time": relative words in a fact's text
//! become the day they meant, from the clock, wherever they stand and however they are
//! written; vague ones are refused naming them, with nothing written; code and URLs are
//! left alone; `check` still flags relative words a person wrote by hand.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};
use proptest::prelude::*;

/// 2026-07-10 is a Friday.
fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// Phrases and the day they mean on Friday 2026-07-10; `keep` is the part kept before
/// the date (`on `).
const PHRASES: &[(&str, &str, &str)] = &[
    ("today", "", "2026-07-10"),
    ("tonight", "", "2026-07-10"),
    ("yesterday", "", "2026-07-09"),
    ("tomorrow", "", "2026-07-11"),
    ("last night", "", "2026-07-09"),
    ("this morning", "", "2026-07-10"),
    ("the day before yesterday", "", "2026-07-08"),
    ("2 days ago", "", "2026-07-08"),
    ("on monday", "on ", "2026-07-06"),
    ("tuesday", "", "2026-07-07"),
    ("last friday", "", "2026-07-03"),
    ("next friday", "", "2026-07-17"),
    ("next sunday", "", "2026-07-12"),
    ("last saturday", "", "2026-07-04"),
    ("this thursday", "", "2026-07-16"),
    ("two weeks ago", "", "2026-06-26"),
    ("2 weeks ago", "", "2026-06-26"),
    ("a week ago", "", "2026-07-03"),
    ("a day ago", "", "2026-07-09"),
    ("twelve days ago", "", "2026-06-28"),
    ("in 3 days", "", "2026-07-13"),
    ("in two weeks", "", "2026-07-24"),
    ("in 1 day", "", "2026-07-11"),
];

/// Weekday abbreviations as written (capitalised), with the day they mean on Friday
/// 2026-07-10 and the part kept before the date.
const ABBREVIATIONS: &[(&str, &str, &str)] = &[
    ("Mon", "", "2026-07-06"),
    ("MON", "", "2026-07-06"),
    ("Tue", "", "2026-07-07"),
    ("Tues", "", "2026-07-07"),
    ("Thu", "", "2026-07-09"),
    ("Thurs", "", "2026-07-09"),
    ("Fri", "", "2026-07-03"),
    ("on Fri", "on ", "2026-07-03"),
    ("on Sat", "on ", "2026-07-04"),
    ("on Sun", "on ", "2026-07-05"),
    ("on Wed", "on ", "2026-07-08"),
    ("last Sun", "", "2026-07-05"),
    ("next Wed", "", "2026-07-15"),
    ("next sat", "", "2026-07-11"),
    ("this Mon", "", "2026-07-13"),
];

/// Words around a phrase (no article, no event noun, no tense cue: `the Tuesday`,
/// `Tuesday deploy`, `will … Tuesday` are read otherwise, see below).
const WORDS: &[&str] = &[
    "deployed",
    "hook",
    "ran",
    "ops",
    "db",
    "Postgres",
    "16",
    "broke",
    "ünïcødé",
    "日本語",
    "on-call",
    "v1.2",
    "(see",
    "notes)",
];

fn cased(text: &str, mask: &[bool]) -> String {
    text.chars()
        .zip(mask.iter().cycle())
        .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
        .collect()
}

fn words() -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(proptest::sample::select(WORDS), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_relative_phrase_anywhere_becomes_its_day(
        before in words(),
        after in words(),
        phrase in proptest::sample::select(PHRASES),
        mask in proptest::collection::vec(any::<bool>(), 1..8),
        punct in proptest::sample::select(&["", ".", ",", "!", "'s", "’s", ":", ";", "?", ")"][..]),
    ) {
        let (words, keep, day) = phrase;
        let written = cased(words, &mask);
        // A past verb right before it: a weekday with no tense cue is refused.
        let head = before.iter().chain(&["deployed"]).copied().collect::<Vec<_>>().join(" ");
        let tail = after.join(" ");
        let join = |a: &str, b: &str| match (a.is_empty(), b.is_empty()) {
            (true, _) => b.to_string(),
            (_, true) => a.to_string(),
            _ => format!("{a} {b}"),
        };
        let text = join(&join(&head, &format!("{written}{punct}")), &tail);
        let kept = &written[..keep.len()];
        let expected = join(&join(&head, &format!("{kept}{day}{punct}")), &tail);

        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap();
        prop_assert_eq!(&out.entry.text, &expected);
        prop_assert_eq!(out.converted.len(), 1);
        prop_assert_eq!(out.converted[0].field, "text");
        prop_assert_eq!(&out.converted[0].from, &written[keep.len()..]);
        prop_assert_eq!(&out.converted[0].to, day);
        let topic = m.topic("memory-t.md").unwrap();
        prop_assert_eq!(&topic.entries[0].text, &expected);
        prop_assert!(m.check().unwrap().is_empty());
    }

    #[test]
    fn a_vague_phrase_anywhere_is_refused_and_nothing_is_written(
        before in words(),
        phrase in proptest::sample::select(&["last week", "recently", "a while ago", "the other day", "lately", "last month", "a few days ago", "a few weeks ago", "several days ago", "a couple of weeks ago", "weeks ago", "3 months ago", "a year ago", "in two months", "in a few days"][..]),
        mask in proptest::collection::vec(any::<bool>(), 1..8),
        punct in proptest::sample::select(&["", ".", ",", "!"][..]),
    ) {
        // "and" keeps a generated number from counting the phrase ("16" + "weeks ago" is
        // the exact "16 weeks ago", converted).
        let text = format!("{} and {}{punct}", before.join(" "), cased(phrase, &mask));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory");
        let m = memory(&root);
        let err = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap_err();
        prop_assert_eq!(err.kind(), ErrorKind::InvalidInput);
        prop_assert!(err.to_string().contains(phrase), "{}", err);
        prop_assert!(!root.exists(), "a refused write creates nothing");
    }

    #[test]
    fn a_capitalised_weekday_abbreviation_anywhere_becomes_its_day(
        before in words(),
        after in words(),
        phrase in proptest::sample::select(ABBREVIATIONS),
        punct in proptest::sample::select(&["", ".", ",", "!", ":", ";", "?", ")"][..]),
    ) {
        let (written, keep, day) = phrase;
        // Bare `Sat`, `Sun`, `Wed` (also words) are in the unit tests, with the words
        // around them that make them a verb or a name. A past verb right before it: a
        // weekday with no tense cue is refused.
        let head = before.iter().chain(&["deployed"]).copied().collect::<Vec<_>>().join(" ");
        let tail = after.join(" ").to_lowercase();
        let join = |a: &str, b: &str| match (a.is_empty(), b.is_empty()) {
            (true, _) => b.to_string(),
            (_, true) => a.to_string(),
            _ => format!("{a} {b}"),
        };
        let text = join(&join(&head, &format!("{written}{punct}")), &tail);
        let expected = join(&join(&head, &format!("{keep}{day}{punct}")), &tail);
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap();
        prop_assert_eq!(&out.entry.text, &expected);
        prop_assert_eq!(out.converted.len(), 1);
        prop_assert_eq!(&out.converted[0].from, &written[keep.len()..]);
        prop_assert!(m.check().unwrap().is_empty());
    }

    #[test]
    fn lowercase_abbreviations_and_verbs_stay_as_written(
        before in words(),
        word in proptest::sample::select(&["mon", "tue", "wed", "thu", "fri", "sat", "sun"][..]),
        after in words(),
    ) {
        let text = format!("{} {word} {}", before.join(" "), after.join(" "));
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap();
        prop_assert_eq!(&out.entry.text, text.trim());
        prop_assert!(out.converted.is_empty());
    }

    #[test]
    fn relative_words_in_code_and_urls_stay_as_written(
        phrase in proptest::sample::select(PHRASES),
        shape in 0..4usize,
    ) {
        let text = match shape {
            0 => format!("the `{}` flag", phrase.0),
            1 => format!("see https://example.com/{}", phrase.0.replace(' ', "-")),
            2 => format!("see <https://example.com/{}>", phrase.0.replace(' ', "/")),
            _ => format!("[notes](docs/{}.md)", phrase.0.replace(' ', "_")),
        };
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let out = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap();
        prop_assert_eq!(&out.entry.text, &text);
        prop_assert!(out.converted.is_empty());
    }
}

#[test]
fn the_date_and_the_text_are_both_converted_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let out = m
        .remember(
            Fact::new(
                "memory-infra.md",
                "Yesterday's deploy broke; fixed on Monday",
            )
            .date("yesterday")
            .hook("hosts"),
        )
        .unwrap();
    assert_eq!(out.entry.date.to_string(), "2026-07-09");
    assert_eq!(
        out.entry.text,
        "2026-07-09's deploy broke; fixed on 2026-07-06"
    );
    let got: Vec<(&str, &str, &str)> = out
        .converted
        .iter()
        .map(|c| (c.field, c.from.as_str(), c.to.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("date", "yesterday", "2026-07-09"),
            ("text", "Yesterday", "2026-07-09"),
            ("text", "Monday", "2026-07-06"),
        ]
    );
    let json = serde_json::to_value(&out).unwrap();
    assert_eq!(json["converted"][1]["from"], "Yesterday");
    // Nothing relative was given: nothing is reported.
    let out = m
        .remember(Fact::new("memory-infra.md", "standup every Monday").date("2026-07-01"))
        .unwrap();
    assert!(out.converted.is_empty(), "{:?}", out.converted);
}

#[test]
fn check_still_flags_relative_words_written_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [T](memory-t.md) — a topic\n").unwrap();
    std::fs::write(
        d.join("memory-t.md"),
        "- 2026-07-01: fixed it yesterday\n- 2026-07-02: deployed on Friday\n- 2026-07-03: `today` is a flag\n- 2026-07-04: standup every Monday\n- 2026-07-05: as soon as it is green\n",
    )
    .unwrap();
    let found = memory(d).check().unwrap();
    let got: Vec<(&str, usize)> = found.iter().map(|v| (v.kind.as_str(), v.line)).collect();
    assert_eq!(got, [("relative_date", 1), ("relative_date", 2)]);
    assert!(found[1].message.contains("friday"), "{}", found[1].message);
}

#[test]
fn check_flags_counted_and_abbreviated_times_written_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [T](memory-t.md) — a topic\n").unwrap();
    let lines = [
        ("two weeks ago it broke", Some("two weeks ago")),
        ("2 weeks ago it broke", Some("2 weeks ago")),
        ("a week ago", Some("a week ago")),
        ("in 3 days", Some("in 3 days")),
        ("in 2 days we ship", Some("in 2 days")),
        ("Mon it broke", Some("mon")),
        ("on Fri we ship", Some("fri")),
        ("a few weeks ago", Some("a few weeks ago")),
        ("3 months ago", Some("3 months ago")),
        ("we sat down with ops", None),
        ("Sat down with ops", None),
        ("standup every Mon", None),
        ("done in a day", None),
    ];
    let text: String = lines
        .iter()
        .enumerate()
        .map(|(i, (t, _))| format!("- 2026-07-{:02}: {t}\r\n", i + 1))
        .collect();
    std::fs::write(d.join("memory-t.md"), format!("\u{feff}{text}")).unwrap();
    let found = memory(d).check().unwrap();
    let expected: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, w))| w.is_some())
        .map(|(i, _)| i + 1)
        .collect();
    let got: Vec<usize> = found
        .iter()
        .filter(|v| v.kind.as_str() == "relative_date")
        .map(|v| v.line)
        .collect();
    assert_eq!(got, expected, "{found:?}");
    for v in &found {
        let (_, word) = lines[v.line - 1];
        assert!(v.message.contains(word.unwrap()), "{}", v.message);
    }
}

#[test]
fn a_date_given_as_a_counted_phrase_or_abbreviation_is_converted() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for (given, day) in [
        ("2 weeks ago", "2026-06-26"),
        ("a week ago", "2026-07-03"),
        ("in 3 days", "2026-07-13"),
        ("Fri", "2026-07-03"),
        ("next tue", "2026-07-14"),
    ] {
        let out = m
            .remember(
                Fact::new("memory-t.md", format!("fact {given}x"))
                    .date(given)
                    .hook("a topic"),
            )
            .unwrap();
        assert_eq!(out.entry.date.to_string(), day, "{given:?}");
        assert_eq!(out.converted[0].field, "date");
    }
    let err = m
        .remember(Fact::new("memory-t.md", "x").date("3 months ago"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("names no day"), "{err}");
}

#[test]
fn a_compactor_s_lesson_is_converted_too() {
    use memory_core::structured_memory::{
        Budgets, Compactor, CompactorError, Condensed, Entry, Topic,
    };
    struct Lesson(&'static str);
    impl Compactor for Lesson {
        fn summarize(&self, _t: &Topic, e: &[Entry]) -> Result<Vec<Condensed>, CompactorError> {
            Ok(vec![Condensed::new(0..e.len(), self.0)])
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [T](memory-t.md) — a topic\n").unwrap();
    let topic = "- 2026-07-01: a\n- 2026-07-02: b\n- 2026-07-03: c\n";
    std::fs::write(d.join("memory-t.md"), topic).unwrap();
    let m = StructuredMemory::builder(d)
        .budgets(Budgets::default().topic_lines(2))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    m.compact(
        Some("memory-t.md"),
        &Lesson("learned yesterday: a, b, c"),
        false,
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(d.join("memory-t.md")).unwrap(),
        "- 2026-07-03: learned 2026-07-09: a, b, c\n"
    );
    std::fs::write(d.join("memory-t.md"), topic).unwrap();
    let err = m
        .compact(Some("memory-t.md"), &Lesson("a, b, c, recently"), false)
        .unwrap_err();
    assert!(
        matches!(err, memory_core::Error::CompactorFailed { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("summarize"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("memory-t.md")).unwrap(),
        topic
    );
}

/// `n` (0..=9,999) as a person writes it in words: `twenty-one` or `twenty one`
/// (`hyphen`), `a hundred` or `one hundred` (`a`), with or without `and` after a hundred
/// or thousand.
fn spelled(n: u32, hyphen: bool, a: bool, and: bool) -> String {
    const UNITS: [&str; 20] = [
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
    const TENS: [&str; 10] = [
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let below_hundred = |n: u32| match n {
        0..=19 => UNITS[n as usize].to_string(),
        _ if n.is_multiple_of(10) => TENS[(n / 10) as usize].to_string(),
        _ => format!(
            "{}{}{}",
            TENS[(n / 10) as usize],
            if hyphen { "-" } else { " " },
            UNITS[(n % 10) as usize]
        ),
    };
    let scaled = |count: u32, word: &str, rest: String| {
        let lead = if count == 1 && a {
            "a".to_string()
        } else {
            below_hundred(count)
        };
        match rest.is_empty() {
            true => format!("{lead} {word}"),
            false if and => format!("{lead} {word} and {rest}"),
            false => format!("{lead} {word} {rest}"),
        }
    };
    let below_thousand = |n: u32| match n {
        0..=99 => below_hundred(n),
        _ => scaled(
            n / 100,
            "hundred",
            if n.is_multiple_of(100) {
                String::new()
            } else {
                below_hundred(n % 100)
            },
        ),
    };
    match n {
        0..=999 => below_thousand(n),
        _ => scaled(
            n / 1000,
            "thousand",
            if n.is_multiple_of(1000) {
                String::new()
            } else {
                below_thousand(n % 1000)
            },
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every count written in words is converted exactly, whatever its spelling: no
    /// number word is ever left in the text unconverted.
    #[test]
    fn a_count_in_words_becomes_its_exact_day(
        n in prop_oneof![0u32..100, 100u32..1000, 1000u32..5214],
        hyphen in any::<bool>(),
        a in any::<bool>(),
        and in any::<bool>(),
        weeks in any::<bool>(),
        future in any::<bool>(),
        mask in proptest::collection::vec(any::<bool>(), 1..8),
    ) {
        let number = cased(&spelled(n, hyphen, a, and), &mask);
        let (unit, days) = match (weeks, n) {
            (true, 1) => ("week", 7),
            (true, _) => ("weeks", 7 * i64::from(n)),
            (false, 1) => ("day", 1),
            (false, _) => ("days", i64::from(n)),
        };
        let phrase = if future { format!("in {number} {unit}") } else { format!("{number} {unit} ago") };
        let today = chrono::NaiveDate::from_ymd_opt(2026, 7, 10).unwrap();
        let day = today + chrono::Duration::days(if future { days } else { -days });
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        let text = format!("it broke {phrase}, again");
        let out = m.remember(Fact::new("memory-t.md", text.as_str()).hook("a topic")).unwrap();
        prop_assert_eq!(&out.entry.text, &format!("it broke {}, again", day.format("%Y-%m-%d")));
        prop_assert_eq!(&out.converted[0].from, &phrase);
    }
}

#[test]
fn counts_past_twenty_in_words_are_converted_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for (given, expected) in [
        ("in thirty days", "2026-08-09"),
        ("twenty-one days ago", "2026-06-19"),
        ("Twenty One days ago", "2026-06-19"),
        ("a hundred days ago", "2026-04-01"),
        ("ninety-nine days ago", "2026-04-02"),
        ("in forty-two weeks", "2027-04-30"),
        ("one hundred and one days ago", "2026-03-31"),
        ("a thousand days ago", "2023-10-14"),
    ] {
        let out = m
            .remember(Fact::new("memory-t.md", format!("fixed {given}")).hook("a topic"))
            .unwrap();
        assert_eq!(out.entry.text, format!("fixed {expected}"), "{given:?}");
        // As the entry's date too.
        let out = m
            .remember(
                Fact::new("memory-d.md", format!("fact {given}x"))
                    .date(given)
                    .hook("a topic"),
            )
            .unwrap();
        assert_eq!(out.entry.date.to_string(), expected, "{given:?}");
    }
}

#[test]
fn counts_in_words_it_cannot_read_exactly_are_refused_not_left() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for given in [
        "a dozen days ago",
        "hundreds of days ago",
        "thousands of days ago",
        "twenty twenty days ago",
        "one million days ago",
        "a hundred thousand days ago",
        "in a hundred years",
        "ninety-nine months ago",
    ] {
        let err = m
            .remember(Fact::new("memory-t.md", format!("fixed it {given}")).hook("a topic"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{given:?}");
        assert!(err.to_string().contains("names no day"), "{given:?}: {err}");
    }
    assert!(!dir.path().join("memory-t.md").exists());
    // Numbers that count no days stay as written.
    for text in [
        "twenty-one tests pass",
        "a hundred users",
        "thirty-day trial",
    ] {
        let out = m
            .remember(Fact::new("memory-t.md", text).hook("a topic"))
            .unwrap();
        assert_eq!(out.entry.text, text);
        assert!(out.converted.is_empty(), "{text:?}");
    }
}

/// Holidays, recurring and attributive weekdays are written as given and not flagged by
/// `check`; a future-tense one is the coming day; `is on Friday` is refused; and a
/// relative time in a subject, hook, title or section is refused naming the field, and
/// flagged by `check` in a hand-written index line or subject.
#[test]
fn weekdays_fields_and_check_agree_through_real_files() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for text in [
        "Black Friday sale config",
        "the Friday release train",
        "The Monday meeting moved",
        "deploys happen on Monday",
        "standup is on Monday mornings",
    ] {
        let out = m
            .remember(Fact::new("memory-t.md", text).hook("a topic"))
            .unwrap();
        assert_eq!(out.entry.text, text);
        assert!(out.converted.is_empty(), "{text:?}");
    }
    for (text, expected) in [
        ("we will deploy on Monday", "we will deploy on 2026-07-13"),
        (
            "release is scheduled for Friday",
            "release is scheduled for 2026-07-17",
        ),
        ("in 2 days' time", "2026-07-12"),
    ] {
        let out = m.remember(Fact::new("memory-t.md", text)).unwrap();
        assert_eq!(out.entry.text, expected);
    }
    for text in [
        "the demo is on Friday",
        "next Tuesday week",
        "ship it next year",
    ] {
        let err = m.remember(Fact::new("memory-t.md", text)).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{text:?}");
    }
    let fields: [(&str, Fact); 4] = [
        (
            "hook",
            Fact::new("memory-u.md", "x").hook("what we deployed yesterday"),
        ),
        (
            "subject",
            Fact::new("memory-t.md", "x").subject("yesterday's outage"),
        ),
        (
            "section",
            Fact::new("memory-t.md", "x").section("Last week"),
        ),
        (
            "title",
            Fact::new("memory-v.md", "x")
                .hook("v")
                .title("Today's notes"),
        ),
    ];
    for (field, fact) in fields {
        let err = m.remember(fact).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{field}");
        assert!(
            err.to_string().contains(&format!("invalid {field}")),
            "{err}"
        );
    }
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
    // Written by hand: flagged exactly where a write would have refused.
    let d = dir.path();
    let index = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
    std::fs::write(
        d.join("MEMORY.md"),
        format!("{index}- [Last week](memory-w.md) — notes\n- [X](memory-x.md) — from yesterday\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("memory-w.md"),
        "- 2026-07-01 [yesterday's outage]: db fell over\n",
    )
    .unwrap();
    std::fs::write(d.join("memory-x.md"), "- 2026-07-01: Black Friday config\n").unwrap();
    let found: Vec<(String, String, usize)> = m
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "relative_date")
        .map(|v| (v.file.clone(), v.message.clone(), v.line))
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0].1.contains("title") && found[0].1.contains("last week"),
        "{found:?}"
    );
    assert!(
        found[1].1.contains("hook") && found[1].1.contains("yesterday"),
        "{found:?}"
    );
    assert_eq!((found[2].0.as_str(), found[2].2), ("memory-w.md", 1));
}
