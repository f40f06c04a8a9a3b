//! Fault injection for the crash and I/O-failure tests of [`super::Transaction`]: with
//! the `fault-injection` feature a test installs a hook that is called at every point
//! where a multi-file change can be interrupted, and that kills the process or returns
//! an I/O error there. Without the feature (every normal build) the points compile to
//! nothing.

/// Where in a [`super::Transaction`] a fault point sits. Each point comes *before* the
/// action it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before staging change `n` (temp file and backup).
    Stage,
    /// Before the journal is written (everything staged; `n` = 0), and right after it
    /// was (`n` = 1: a store that reports failure although the journal stands).
    Record,
    /// Before applying step `n` (the journal is written).
    Apply,
    /// Half-way through the bytes an append (step `n`) writes: a write cut short.
    Write,
    /// Before the applied steps are checked (every step applied; new contents were read
    /// back as staged copies already).
    Verify,
    /// Before backups and journal are removed (`n` = 0), and before the backup of step
    /// `n - 1` is removed.
    Clean,
}

impl Phase {
    /// The phase's name: `stage`, `record`, `apply`, `write`, `verify`, `clean`.
    ///
    /// ```
    /// assert_eq!(memory_core::durable::fault::Phase::Apply.as_str(), "apply");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Stage => "stage",
            Phase::Record => "record",
            Phase::Apply => "apply",
            Phase::Write => "write",
            Phase::Verify => "verify",
            Phase::Clean => "clean",
        }
    }
}

#[cfg(feature = "fault-injection")]
mod hook {
    use std::sync::{Arc, Mutex};

    use super::Phase;

    /// A fault hook: called with the phase and the step number, an `Err` is injected as
    /// the failure of the action that follows.
    pub type Hook = Arc<dyn Fn(Phase, usize) -> std::io::Result<()> + Send + Sync>;

    static HOOK: Mutex<Option<Hook>> = Mutex::new(None);

    /// Installs `hook` for the whole process (tests only; `fault-injection` feature).
    ///
    /// ```
    /// use memory_core::durable::fault::{self, Phase};
    /// fault::set_hook(std::sync::Arc::new(|_phase: Phase, _step: usize| Ok(())));
    /// fault::clear_hook();
    /// ```
    pub fn set_hook(hook: Hook) {
        *HOOK.lock().unwrap_or_else(|p| p.into_inner()) = Some(hook);
    }

    /// Removes the hook.
    ///
    /// ```
    /// memory_core::durable::fault::clear_hook();
    /// ```
    pub fn clear_hook() {
        *HOOK.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Whether a hook is installed (a fault point between two writes is only worth the
    /// second write then).
    pub(crate) fn installed() -> bool {
        HOOK.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    pub(crate) fn point(phase: Phase, step: usize) -> std::io::Result<()> {
        let hook = HOOK.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match hook {
            Some(hook) => hook(phase, step),
            None => Ok(()),
        }
    }
}

#[cfg(feature = "fault-injection")]
pub use hook::{Hook, clear_hook, set_hook};
#[cfg(feature = "fault-injection")]
pub(crate) use hook::{installed, point};

/// How many SessionStarts the calling thread committed (or had refused at the commit) by
/// a remembered index verdict, without reading the rows again (tests check that the fast path is the one taken; per thread,
/// so that tests running side by side do not count each other's).
#[cfg(feature = "fault-injection")]
pub fn verdict_starts() -> usize {
    VERDICT_STARTS.with(|n| n.get())
}

#[cfg(feature = "fault-injection")]
thread_local! {
    static VERDICT_STARTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static STREAMED_STARTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static STREAMING_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How many SessionStarts the calling thread committed (or had refused at the commit) by
/// a verdict found streaming the index, without a remembered one (see `verdict_starts`).
#[cfg(feature = "fault-injection")]
pub fn streamed_starts() -> usize {
    STREAMED_STARTS.with(|n| n.get())
}

/// Turns the streamed reading of an index without a remembered verdict off (`false`) or
/// back on for the calling thread, so that tests can compare a streamed SessionStart with
/// one that reads the file whole.
#[cfg(feature = "fault-injection")]
pub fn set_streaming(enabled: bool) {
    STREAMING_OFF.with(|off| off.set(!enabled));
}

/// Whether SessionStart may stream an index it has no verdict for (always, without the
/// `fault-injection` feature).
#[inline(always)]
pub(crate) fn streaming_allowed() -> bool {
    #[cfg(feature = "fault-injection")]
    return !STREAMING_OFF.with(|off| off.get());
    #[cfg(not(feature = "fault-injection"))]
    true
}

/// Counts a SessionStart made by a streamed verdict (see `streamed_starts`).
#[inline(always)]
pub(crate) fn count_streamed_start() {
    #[cfg(feature = "fault-injection")]
    STREAMED_STARTS.with(|n| n.set(n.get() + 1));
}

/// Counts a SessionStart made by a remembered verdict (see `verdict_starts`).
#[inline(always)]
pub(crate) fn count_verdict_start() {
    #[cfg(feature = "fault-injection")]
    VERDICT_STARTS.with(|n| n.set(n.get() + 1));
}

#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn point(_phase: Phase, _step: usize) -> std::io::Result<()> {
    Ok(())
}

/// Whether a fault hook is installed: never without the `fault-injection` feature.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn installed() -> bool {
    false
}
