//! Timestamps: written ISO 8601 with the local offset, read leniently.

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Timelike};
use serde::Serialize;

/// A point in time as it stands in a memory file: the exact text is kept (so a row
/// whose `Updated At` must not change is rewritten byte-identical) next to its value.
///
/// Written as `2026-05-25T13:18:00+08:00`; read from that, from `2026-05-25 13:18`,
/// `2026-05-25T13:18`, with or without seconds or offset, and from a bare date
/// (midnight). A value without offset is taken in the clock's local offset.
///
/// ```
/// use memory_core::Timestamp;
/// let offset = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
/// let t = Timestamp::parse("2026-05-25 13:18", offset).unwrap();
/// assert_eq!(t.as_str(), "2026-05-25 13:18");
/// assert_eq!(t.datetime().to_rfc3339(), "2026-05-25T13:18:00+08:00");
/// assert!(Timestamp::parse("yesterday", offset).is_none());
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
    pub(crate) fn is_readable(text: &str, local_offset: FixedOffset) -> bool {
        parse_lenient(text.trim(), local_offset).is_some()
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

fn parse_lenient(text: &str, offset: FixedOffset) -> Option<DateTime<FixedOffset>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at);
    }
    // `Z` is UTC; the remaining forms differ in the date/time separator, seconds
    // (with or without fraction), and how the offset is written, if at all.
    let zulu = text.strip_suffix(['Z', 'z']).map(|t| format!("{t}+00:00"));
    let text = zulu.as_deref().unwrap_or(text);
    for date_time in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        for zone in ["%:z", "%z", " %:z", " %z"] {
            if let Ok(at) = DateTime::parse_from_str(text, &format!("{date_time}{zone}")) {
                return Some(at);
            }
        }
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, date_time) {
            return offset.from_local_datetime(&naive).single();
        }
    }
    let midnight = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()?
        .and_hms_opt(0, 0, 0)?;
    offset.from_local_datetime(&midnight).single()
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

    #[test]
    fn lenient_forms_read() {
        let offset = FixedOffset::east_opt(8 * 3600).unwrap();
        for (text, expected) in [
            ("2026-05-25T13:18:00+08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T05:18:00Z", "2026-05-25T05:18:00+00:00"),
            ("2026-05-25T05:18Z", "2026-05-25T05:18:00+00:00"),
            ("2026-05-25T13:18:00+0800", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18:00 +08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25 13:18 +08:00", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25T13:18:00.5", "2026-05-25T13:18:00.500+08:00"),
            ("2026-05-25 13:18", "2026-05-25T13:18:00+08:00"),
            ("2026-05-25", "2026-05-25T00:00:00+08:00"),
        ] {
            let at = parse_lenient(text, offset).unwrap_or_else(|| panic!("{text} unread"));
            assert_eq!(at.to_rfc3339(), expected, "{text}");
        }
        for bad in ["", "yesterday", "2026-13-01", "2026-05-25T25:00", "13:18"] {
            assert!(parse_lenient(bad, offset).is_none(), "{bad}");
        }
    }
}
