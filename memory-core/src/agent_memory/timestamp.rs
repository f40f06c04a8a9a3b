//! Timestamps: written ISO 8601 with the local offset, read leniently.

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Timelike};
use serde::Serialize;

/// A point in time as it stands in a memory file: the exact text is kept (so a row
/// whose `Updated At` must not change is rewritten byte-identical) next to its value.
///
/// Written as `2026-05-25T13:18:00+08:00`; read from that, from `2026-05-25 13:18`,
/// `2026-05-25T13:18` or `2026/05/25 13:18`, with or without seconds (and a fraction),
/// with an offset `Z`, `+08:00`, `+0800` (optionally after one space) or none, and from
/// a bare date (midnight). A value without offset is taken in the clock's local offset.
/// Reading is one allocation-free pass over the bytes, so every spelling costs the same.
///
/// ```
/// use memory_core::Timestamp;
/// let offset = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
/// let t = Timestamp::parse("2026-05-25 13:18", offset).unwrap();
/// assert_eq!(t.as_str(), "2026-05-25 13:18");
/// assert_eq!(t.datetime().to_rfc3339(), "2026-05-25T13:18:00+08:00");
/// assert_eq!(Timestamp::parse("2026/05/25 13:18", offset).unwrap().datetime(), t.datetime());
/// assert!(Timestamp::parse("yesterday", offset).is_none());
/// assert!(Timestamp::parse("2026-02-29", offset).is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct Timestamp {
    text: String,
    at: DateTime<FixedOffset>,
}

impl Timestamp {
    /// The canonical form of `at`: `YYYY-MM-DDTHH:MM:SS±HH:MM`.
    ///
    /// ```
    /// let at = chrono::DateTime::parse_from_rfc3339("2026-05-25T13:18:00Z").unwrap();
    /// assert_eq!(memory_core::Timestamp::from_datetime(at).as_str(), "2026-05-25T13:18:00+00:00");
    /// ```
    pub fn from_datetime(at: DateTime<FixedOffset>) -> Self {
        // Written to the second: keep the value equal to what reading the text gives.
        let at = at.with_nanosecond(0).unwrap_or(at);
        Timestamp {
            text: at.format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
            at,
        }
    }

    /// Reads a timestamp leniently (see the type's documentation).
    pub fn parse(text: &str, local_offset: FixedOffset) -> Option<Self> {
        let trimmed = text.trim();
        let at = parse_lenient(trimmed, local_offset)?;
        Some(Timestamp {
            text: trimmed.to_string(),
            at,
        })
    }

    /// Whether `text` reads as a timestamp (without keeping it).
    ///
    /// Whether a text reads does not depend on the local offset: it is not needed.
    pub(crate) fn is_readable(text: &str) -> bool {
        is_lenient_timestamp(text.trim())
    }

    /// [`Timestamp::is_readable`] for text already trimmed (a table's raw cell): the
    /// same answer without trimming again.
    pub(crate) fn is_readable_trimmed(text: &str) -> bool {
        is_lenient_timestamp(text)
    }

    /// The text as written in the file.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The point in time.
    pub fn datetime(&self) -> DateTime<FixedOffset> {
        self.at
    }
}

/// Reads the documented forms in one pass over the bytes, without allocating:
///
/// - date `YYYY-MM-DD` or `YYYY/MM/DD`, alone (midnight) or followed by
/// - `T`, `t` or one space, then `HH:MM`, optionally `:SS`, optionally `.f` (1–9 digits),
/// - then optionally one space and an offset: `Z`/`z`, `±HH:MM` or `±HHMM`.
///
/// Month, day (per month, leap years included), hour, minute, second and the offset are
/// range-checked ([`read_fields`]); anything else (another separator, a missing field,
/// trailing text) is refused. A value without offset is taken in `local`.
fn parse_lenient(text: &str, local: FixedOffset) -> Option<DateTime<FixedOffset>> {
    let f = read_fields(text.as_bytes())?;
    let date = NaiveDate::from_ymd_opt(f.year as i32, f.month, f.day)?;
    let time = date.and_hms_nano_opt(f.hour, f.minute, f.second, f.nano)?;
    let offset = match f.offset_seconds {
        Some(seconds) => FixedOffset::east_opt(seconds)?,
        None => local,
    };
    offset.from_local_datetime(&time).single()
}

/// Whether `text` reads as a timestamp: [`read_fields`] alone, without building chrono
/// values. Every range chrono would refuse is checked there, and a year of four digits
/// moved by an offset of less than a day stays in chrono's range, so this is exactly
/// `parse_lenient(text, local).is_some()` for any `local` (a proptest checks it).
fn is_lenient_timestamp(text: &str) -> bool {
    read_fields(text.as_bytes()).is_some()
}

/// The fields of a timestamp as written, range-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fields {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nano: u32,
    /// East of UTC; `None` when the text has no offset (the local one applies).
    offset_seconds: Option<i32>,
}

/// The one reading of the bytes both [`parse_lenient`] and [`is_lenient_timestamp`] use.
///
/// The fixed-width parts (`YYYY-MM-DD`, `THH:MM`, `:SS`, the offset) are taken as arrays
/// of their bytes, one length check each, and read two digits at a time.
fn read_fields(b: &[u8]) -> Option<Fields> {
    let [y1, y2, y3, y4, sep, m1, m2, sep2, d1, d2] = *b.first_chunk::<10>()?;
    if sep != b'-' && sep != b'/' || sep2 != sep {
        return None;
    }
    let year = two_digits(y1, y2)? * 100 + two_digits(y3, y4)?;
    let month = two_digits(m1, m2)?;
    let day = two_digits(d1, d2)?;
    // chrono refuses the month 13, the 30th of February, hour 24, minute 60…: so do we.
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let mut f = Fields {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
        nano: 0,
        offset_seconds: None,
    };
    if b.len() == 10 {
        return Some(f);
    }
    let [t, h1, h2, colon, n1, n2] = *b.get(10..)?.first_chunk::<6>()?;
    if !matches!(t, b'T' | b't' | b' ') || colon != b':' {
        return None;
    }
    f.hour = two_digits(h1, h2)?;
    f.minute = two_digits(n1, n2)?;
    let mut at = 16;
    if b.get(at) == Some(&b':') {
        let [_, s1, s2] = *b.get(at..)?.first_chunk::<3>()?;
        f.second = two_digits(s1, s2)?;
        at += 3;
        if b.get(at) == Some(&b'.') {
            at += 1;
            let count = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !(1..=9).contains(&count) {
                return None;
            }
            f.nano = digits(b, at, count)? * 10u32.pow(9 - count as u32);
            at += count;
        }
    }
    if f.hour > 23 || f.minute > 59 || f.second > 59 {
        return None;
    }
    if at == b.len() {
        return Some(f);
    }
    if b[at] == b' ' {
        at += 1;
    }
    f.offset_seconds = Some(parse_offset(b.get(at..)?)?);
    Some(f)
}

/// The number the ASCII digits `hi` and `lo` write, `None` unless both are digits.
#[inline(always)]
fn two_digits(hi: u8, lo: u8) -> Option<u32> {
    let (h, l) = (hi.wrapping_sub(b'0'), lo.wrapping_sub(b'0'));
    (h < 10 && l < 10).then(|| u32::from(h) * 10 + u32::from(l))
}

/// The days of `month` (1–12) in `year` (proleptic Gregorian, as chrono counts).
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `Z`/`z`, `±HH:MM` or `±HHMM`, and nothing after it: the offset east of UTC in seconds.
fn parse_offset(b: &[u8]) -> Option<i32> {
    let (sign, h1, h2, m1, m2) = match *b {
        [b'Z' | b'z'] => return Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            (sign, h1, h2, m1, m2)
        }
        _ => return None,
    };
    let hours = two_digits(h1, h2)?;
    let minutes = two_digits(m1, m2)?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    let sign = if sign == b'-' { -1 } else { 1 };
    Some(sign * (hours * 3600 + minutes * 60) as i32)
}

/// The number written by the `count` ASCII digits at `at`, `None` unless all are digits.
fn digits(b: &[u8], at: usize, count: usize) -> Option<u32> {
    b.get(at..at + count)?.iter().try_fold(0u32, |n, c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<Timestamp> for String {
    fn from(t: Timestamp) -> String {
        t.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDateTime;
    use proptest::prelude::*;

    fn offset() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    #[test]
    fn every_documented_form_reads() {
        for (text, expected) in [
            ("2026-05-25T13:18:00+08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25t13:18:00z", "2026-05-25T13:18:00+00:00"),
            ("2026-05-25T05:18:00Z", "2026-05-25T05:18:00+00:00"),
            ("2026-05-25T05:18Z", "2026-05-25T05:18:00+00:00"),
            ("2026-05-25 05:18 Z", "2026-05-25T05:18:00+00:00"),
            ("2026-05-25T13:18:00+0800", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18:00-0530", "2026-05-25T13:18:00-05:30"),
            ("2026-05-25T13:18:00 +08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18:00 +0800", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25 13:18 +08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25 13:18+08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18:00.5", "2026-05-25T13:18:00.500+08:00"),
            (
                "2026-05-25T13:18:00.123456789Z",
                "2026-05-25T13:18:00.123456789+00:00",
            ),
            ("2026-05-25 13:18:07", "2026-05-25T13:18:07+08:00"),
            ("2026-05-25 13:18", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25", "2026-05-25T00:00:00+08:00"),
            ("2026/05/25 13:18", "2026-05-25T13:18:00+08:00"),
            ("2026/05/25T13:18:00Z", "2026-05-25T13:18:00+00:00"),
            (
                "2026/05/25 13:18:00.25 +0800",
                "2026-05-25T13:18:00.250+08:00",
            ),
            ("2026/05/25", "2026-05-25T00:00:00+08:00"),
            ("2024-02-29 00:00", "2024-02-29T00:00:00+08:00"),
            ("2000-02-29", "2000-02-29T00:00:00+08:00"),
            ("2026-12-31T23:59:59-23:59", "2026-12-31T23:59:59-23:59"),
        ] {
            let at = parse_lenient(text, offset()).unwrap_or_else(|| panic!("{text} unread"));
            assert_eq!(at.to_rfc3339(), expected, "{text}");
        }
    }

    #[test]
    fn every_invalid_form_is_refused() {
        for bad in [
            "",
            "yesterday",
            "13:18",
            "2026",
            "2026-05",
            "2026-5-25",
            "26-05-25",
            "20260525",
            "2026-05/25",
            "2026/05-25",
            "2026.05.25",
            "2026-13-01",
            "2026-00-01",
            "2026-05-00",
            "2026-05-32",
            "2026-04-31",
            "2026-02-29",
            "1900-02-29",
            "2026-05-25T25:00",
            "2026-05-25T24:00",
            "2026-05-25T13:60",
            "2026-05-25T13:18:60",
            "2026-05-25T13:18:61",
            "2026-05-25T13",
            "2026-05-25T13:",
            "2026-05-25T1:18",
            "2026-05-25T13:1",
            "2026-05-25T13:18:",
            "2026-05-25T13:18:0",
            "2026-05-25T13:18:00.",
            "2026-05-25T13:18:00.1234567890",
            "2026-05-25_13:18",
            "2026-05-25  13:18",
            "2026-05-25 13:18  +08:00",
            "2026-05-25 13:18 +8:00",
            "2026-05-25 13:18 +08",
            "2026-05-25 13:18 +08:0",
            "2026-05-25 13:18 +24:00",
            "2026-05-25 13:18 +08:60",
            "2026-05-25 13:18 08:00",
            "2026-05-25 13:18 UTC",
            "2026-05-25 13:18 ZZ",
            "2026-05-25 13:18 +08:00x",
            "2026-05-25+08:00",
            "2026-05-25Z",
            "2026-05-25 ",
            "２０２６-05-25",
            "2026-05-25 13:18:00.５",
        ] {
            assert!(parse_lenient(bad, offset()).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn the_text_is_kept_as_written() {
        let t = Timestamp::parse("  2026/05/25 13:18  ", offset()).unwrap();
        assert_eq!(t.as_str(), "2026/05/25 13:18");
        assert_eq!(t.datetime().to_rfc3339(), "2026-05-25T13:18:00+08:00");
    }

    /// The chrono formats the parser replaced, as the reference it must agree with.
    fn reference(text: &str, local: FixedOffset) -> Option<DateTime<FixedOffset>> {
        if let Ok(at) = DateTime::parse_from_rfc3339(text) {
            return Some(at);
        }
        let zulu = text.strip_suffix(['Z', 'z']).map(|t| format!("{t}+00:00"));
        let text = zulu.as_deref().unwrap_or(text);
        for date in ["%Y-%m-%d", "%Y/%m/%d"] {
            for time in [
                "T%H:%M:%S%.f",
                "t%H:%M:%S%.f",
                " %H:%M:%S%.f",
                "T%H:%M",
                "t%H:%M",
                " %H:%M",
            ] {
                let date_time = format!("{date}{time}");
                for zone in ["%:z", "%z", " %:z", " %z"] {
                    if let Ok(at) = DateTime::parse_from_str(text, &format!("{date_time}{zone}")) {
                        return Some(at);
                    }
                }
                if let Ok(naive) = NaiveDateTime::parse_from_str(text, &date_time) {
                    return local.from_local_datetime(&naive).single();
                }
            }
            if let Ok(day) = NaiveDate::parse_from_str(text, date) {
                return local
                    .from_local_datetime(&day.and_hms_opt(0, 0, 0)?)
                    .single();
            }
        }
        None
    }

    fn shaped() -> impl Strategy<Value = String> {
        let date = (
            1000u32..3000,
            prop::sample::select(vec!['-', '/']),
            0u32..14,
            0u32..33,
        )
            .prop_map(|(y, s, m, d)| format!("{y:04}{s}{m:02}{s}{d:02}"));
        let fraction = prop::option::of((1usize..10, 0u64..1_000_000_000)).prop_map(|f| {
            f.map_or(String::new(), |(n, v)| {
                format!(".{}", &format!("{v:09}")[..n])
            })
        });
        let seconds = prop::option::of((0u32..60, fraction))
            .prop_map(|s| s.map_or(String::new(), |(s, f)| format!(":{s:02}{f}")));
        let offset = prop::sample::select(vec![
            "", "Z", "z", " Z", "+08:00", "-05:30", "+0800", "-0000", " +08:00", " -0330",
            " +0800", "+23:59", "+24:00", "+08:60",
        ]);
        let time = prop::option::of((
            prop::sample::select(vec!['T', 't', ' ']),
            0u32..26,
            0u32..62,
            seconds,
            offset,
        ))
        .prop_map(|t| {
            t.map_or(String::new(), |(sep, h, m, s, o)| {
                format!("{sep}{h:02}:{m:02}{s}{o}")
            })
        });
        (date, time).prop_map(|(d, t)| format!("{d}{t}"))
    }

    /// The parser before validation lost its chrono values: every field is checked by
    /// building the chrono value, as the reference the fast validator must agree with.
    fn chrono_checked(text: &str, local: FixedOffset) -> Option<DateTime<FixedOffset>> {
        let b = text.as_bytes();
        let year = digits(b, 0, 4)?;
        let sep = *b.get(4)?;
        if sep != b'-' && sep != b'/' {
            return None;
        }
        let month = digits(b, 5, 2)?;
        if *b.get(7)? != sep {
            return None;
        }
        let day = digits(b, 8, 2)?;
        let date = NaiveDate::from_ymd_opt(year as i32, month, day)?;
        if b.len() == 10 {
            return local
                .from_local_datetime(&date.and_hms_opt(0, 0, 0)?)
                .single();
        }
        if !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        let hour = digits(b, 11, 2)?;
        if *b.get(13)? != b':' {
            return None;
        }
        let minute = digits(b, 14, 2)?;
        let mut at = 16;
        let (mut second, mut nano) = (0, 0);
        if b.get(at) == Some(&b':') {
            second = digits(b, at + 1, 2)?;
            at += 3;
            if b.get(at) == Some(&b'.') {
                at += 1;
                let count = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
                if !(1..=9).contains(&count) {
                    return None;
                }
                nano = digits(b, at, count)? * 10u32.pow(9 - count as u32);
                at += count;
            }
        }
        let time = date.and_hms_nano_opt(hour, minute, second, nano)?;
        if at == b.len() {
            return local.from_local_datetime(&time).single();
        }
        if b[at] == b' ' {
            at += 1;
        }
        let offset = FixedOffset::east_opt(parse_offset(&b[at..])?)?;
        offset.from_local_datetime(&time).single()
    }

    /// Timestamp-like text gone wrong: the shaped forms with a byte replaced, inserted
    /// or removed, and short strings over the timestamp alphabet (digits, separators,
    /// offsets, full-width and other non-ASCII digits).
    fn hostile() -> impl Strategy<Value = String> {
        let alphabet = prop::sample::select(vec![
            '0', '1', '2', '3', '5', '9', '-', '/', ':', '.', 'T', 't', ' ', 'Z', 'z', '+', '_',
            '２', '٣', 'é',
        ]);
        let soup = prop::collection::vec(alphabet.clone(), 0..32)
            .prop_map(|cs| cs.into_iter().collect::<String>());
        let mutated = (shaped(), any::<prop::sample::Index>(), alphabet, 0u8..3).prop_map(
            |(text, at, c, how)| {
                let mut chars: Vec<char> = text.chars().collect();
                let i = at.index(chars.len() + 1);
                match how {
                    0 if i < chars.len() => chars[i] = c,
                    1 if i < chars.len() => drop(chars.remove(i)),
                    _ => chars.insert(i, c),
                }
                chars.into_iter().collect::<String>()
            },
        );
        // Years 0000–9999 with the extreme offsets: the edges of chrono's range.
        let edges = (
            0u32..10_000,
            1u32..13,
            1u32..32,
            prop::sample::select(vec!["", "Z", "+23:59", "-23:59", " -2359", " +0000"]),
        )
            .prop_map(|(y, m, d, o)| format!("{y:04}-{m:02}-{d:02}T23:59:59.999999999{o}"));
        prop_oneof![soup, mutated, edges, "\\PC{0,40}"]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn agrees_with_the_chrono_reference(text in shaped()) {
            prop_assert_eq!(parse_lenient(&text, offset()), reference(&text, offset()), "{}", text);
        }

        /// The validator says "readable" exactly when the full parser reads the text, in
        /// any local offset, and the parser gives what chrono-checked fields give.
        #[test]
        fn the_fast_validator_agrees_with_the_full_parser(
            text in prop_oneof![shaped(), hostile()],
            local in -86_399i32..86_400,
        ) {
            let local = FixedOffset::east_opt(local).unwrap();
            let parsed = parse_lenient(&text, local);
            prop_assert_eq!(parsed, chrono_checked(&text, local), "{}", text);
            prop_assert_eq!(is_lenient_timestamp(&text), parsed.is_some(), "{}", text);
            prop_assert_eq!(Timestamp::is_readable(&text), Timestamp::parse(&text, local).is_some());
        }
    }

    #[test]
    fn leap_years_and_month_ends_are_validated_as_chrono_does() {
        for year in [0u32, 4, 100, 400, 1900, 2000, 2024, 2026, 9996, 9999] {
            for month in 0..=13u32 {
                for day in 0..=32u32 {
                    for text in [
                        format!("{year:04}-{month:02}-{day:02}"),
                        format!("{year:04}/{month:02}/{day:02} 23:59:59 -23:59"),
                        format!("{year:04}-{month:02}-{day:02}T00:00+23:59"),
                    ] {
                        assert_eq!(
                            is_lenient_timestamp(&text),
                            chrono_checked(&text, offset()).is_some(),
                            "{text}"
                        );
                    }
                }
            }
        }
    }
}
