//! What every model's builder sets before opening a root: the clock, how long a writer
//! waits for the lock, and a check polled while it waits. One struct and one macro for
//! the builders' methods, so that the models' builders cannot drift apart.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{Clock, FixedClock, RootHandle, SystemClock, WaitCheck};
use crate::error::{Error, Result};

/// How long a writer waits for the memory lock by default.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// A builder's settings for the root it will open.
#[derive(Debug, Clone)]
pub(crate) struct HandleOptions {
    pub root: PathBuf,
    pub clock: Arc<dyn Clock>,
    pub lock_timeout: Duration,
    pub wait_check: Option<WaitCheck>,
}

impl HandleOptions {
    /// The defaults: the system clock, [`DEFAULT_LOCK_TIMEOUT`], no wait check.
    pub fn new(root: PathBuf) -> Self {
        HandleOptions {
            root,
            clock: Arc::new(SystemClock),
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            wait_check: None,
        }
    }

    /// A stopped clock at `rfc3339`.
    pub fn fixed_clock(rfc3339: &str) -> Result<Arc<dyn Clock>> {
        let clock = FixedClock::parse(rfc3339).ok_or_else(|| {
            Error::invalid(
                "fixed time",
                rfc3339,
                "must be an RFC 3339 timestamp such as 2026-04-03T10:00:00Z",
            )
        })?;
        Ok(Arc::new(clock))
    }

    /// Validates the root and makes it absolute (`what` names it in errors).
    pub fn open(self, what: &'static str) -> Result<RootHandle> {
        RootHandle::open(
            what,
            &self.root,
            self.clock,
            self.lock_timeout,
            self.wait_check,
        )
    }
}

/// The clock, lock-wait and wait-check methods of a builder whose `options` field is a
/// [`HandleOptions`]; `$model` is the model's type path, for the examples.
macro_rules! handle_builder_methods {
    ($model:literal) => {
        /// Uses `clock` for every timestamp and date.
        ///
        /// ```
        /// use std::sync::Arc;
        /// use memory_core::durable::FixedClock;
        /// let dir = tempfile::tempdir().unwrap();
        #[doc = concat!("let memory = ", $model, "::builder(dir.path())")]
        ///     .clock(Arc::new(FixedClock::parse("2026-07-10T09:00:00Z").unwrap()))
        ///     .open()
        ///     .unwrap();
        /// assert_eq!(memory.root(), dir.path());
        /// ```
        pub fn clock(mut self, clock: std::sync::Arc<dyn $crate::durable::Clock>) -> Self {
            self.options.clock = clock;
            self
        }

        /// Stops the clock at `rfc3339` (reproducible runs and conformance tests; the
        /// bindings' `fixed_time` / `fixedTime` options call this); anything else is an
        /// [`Error::InvalidInput`](crate::Error::InvalidInput).
        ///
        /// ```
        #[doc = concat!("let builder = ", $model, "::builder(\"memory\");")]
        /// assert!(builder.clone().fixed_time("2026-07-10T09:00:00+02:00").is_ok());
        /// assert!(builder.fixed_time("yesterday").is_err());
        /// ```
        pub fn fixed_time(mut self, rfc3339: &str) -> $crate::Result<Self> {
            self.options.clock = $crate::durable::HandleOptions::fixed_clock(rfc3339)?;
            Ok(self)
        }

        /// Waits at most `timeout` for another writer's lock before `LockTimeout`
        /// (default 10 s).
        ///
        /// ```
        /// use std::time::Duration;
        #[doc = concat!("let memory = ", $model, "::builder(\"memory\").lock_timeout(Duration::from_secs(2)).open().unwrap();")]
        /// assert_eq!(memory.lock_timeout(), Duration::from_secs(2));
        /// ```
        pub fn lock_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.options.lock_timeout = timeout;
            self
        }

        /// Calls `check` between attempts to take the memory lock; when it fails, the
        /// operation stops with [`Error::Aborted`](crate::Error::Aborted) before writing
        /// anything (the Python binding's Ctrl-C, Node's `AbortSignal`).
        ///
        /// ```
        /// use memory_core::durable::WaitCheck;
        #[doc = concat!("let builder = ", $model, "::builder(\"memory\");")]
        /// let memory = builder.wait_check(WaitCheck::new(|| Ok(()))).open().unwrap();
        /// assert!(memory.root().is_absolute());
        /// ```
        pub fn wait_check(mut self, check: $crate::durable::WaitCheck) -> Self {
            self.options.wait_check = Some(check);
            self
        }
    };
}
pub(crate) use handle_builder_methods;
