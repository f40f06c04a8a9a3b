//! The injectable clock: every timestamp memory-core writes comes from a [`Clock`].

use std::sync::Mutex;

use chrono::{DateTime, FixedOffset, Local, TimeDelta};

/// A source of "now" with the local UTC offset. Tests inject a [`FixedClock`] so that
/// the same operations give the same bytes.
///
/// ```
/// use memory_core::durable::{Clock, SystemClock};
/// let now = SystemClock.now();
/// assert!(now.timestamp() > 0);
/// ```
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time with the offset timestamps are written in.
    fn now(&self) -> DateTime<FixedOffset>;
}

/// The system clock in the machine's local time zone.
///
/// ```
/// use memory_core::durable::{Clock, SystemClock};
/// let _ = SystemClock.now();
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<FixedOffset> {
        Local::now().fixed_offset()
    }
}

/// A clock that stands still until told to move: for tests and reproducible runs.
///
/// ```
/// use memory_core::durable::{Clock, FixedClock};
/// let clock = FixedClock::parse("2026-05-25T13:18:00+08:00").unwrap();
/// clock.advance_minutes(90);
/// assert_eq!(clock.now().to_rfc3339(), "2026-05-25T14:48:00+08:00");
/// ```
#[derive(Debug)]
pub struct FixedClock {
    now: Mutex<DateTime<FixedOffset>>,
}

impl FixedClock {
    /// A clock fixed at `now`.
    ///
    /// ```
    /// let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap();
    /// let _ = memory_core::durable::FixedClock::new(t);
    /// ```
    pub fn new(now: DateTime<FixedOffset>) -> Self {
        FixedClock {
            now: Mutex::new(now),
        }
    }

    /// A clock fixed at an RFC 3339 time.
    ///
    /// ```
    /// assert!(memory_core::durable::FixedClock::parse("not a time").is_none());
    /// ```
    pub fn parse(rfc3339: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(rfc3339).ok().map(Self::new)
    }

    /// Moves the clock to `now`.
    ///
    /// ```
    /// use memory_core::durable::{Clock, FixedClock};
    /// let clock = FixedClock::parse("2026-01-01T00:00:00Z").unwrap();
    /// clock.set(chrono::DateTime::parse_from_rfc3339("2027-01-01T00:00:00Z").unwrap());
    /// assert_eq!(clock.now().format("%Y").to_string(), "2027");
    /// ```
    pub fn set(&self, now: DateTime<FixedOffset>) {
        *self.now.lock().unwrap_or_else(|p| p.into_inner()) = now;
    }

    /// Moves the clock forward by `minutes` (backward when negative).
    ///
    /// ```
    /// use memory_core::durable::{Clock, FixedClock};
    /// let clock = FixedClock::parse("2026-01-01T00:00:00Z").unwrap();
    /// clock.advance_minutes(60 * 24);
    /// assert_eq!(clock.now().format("%d").to_string(), "02");
    /// ```
    pub fn advance_minutes(&self, minutes: i64) {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now += TimeDelta::minutes(minutes);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<FixedOffset> {
        *self.now.lock().unwrap_or_else(|p| p.into_inner())
    }
}
