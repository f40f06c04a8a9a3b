//! Whether a session row says more than a registration placeholder: the rules of
//! [`SessionRow::has_meaningful_summary`](super::SessionRow::has_meaningful_summary) and
//! [`SessionRow::is_meaningful`](super::SessionRow::is_meaningful) over a row's values,
//! for the bindings that hold those values rather than a `SessionRow`.

/// The rule of [`SessionRow::has_meaningful_summary`] over a summary alone: not empty,
/// not `-`, and not one of the registration placeholders.
///
/// [`SessionRow::has_meaningful_summary`]: super::SessionRow::has_meaningful_summary
///
/// ```
/// use memory_core::agent_memory::{SESSION_START_SUMMARY, summary_is_meaningful};
/// assert!(summary_is_meaningful("Fixed the login bug."));
/// assert!(!summary_is_meaningful(SESSION_START_SUMMARY));
/// assert!(!summary_is_meaningful(" - "));
/// ```
pub fn summary_is_meaningful(summary: &str) -> bool {
    let s = summary.trim();
    !(s.is_empty()
        || s == "-"
        || s == super::SESSION_START_SUMMARY
        || s == super::MANUAL_FALLBACK_SUMMARY)
}

/// The rule of [`SessionRow::is_meaningful`] over a row's topic, summary and keywords:
/// a topic other than `未設定` / `-` / empty, a meaningful summary, or keywords other
/// than a registration's defaults.
///
/// [`SessionRow::is_meaningful`]: super::SessionRow::is_meaningful
///
/// ```
/// use memory_core::agent_memory::{
///     SESSION_START_KEYWORDS, SESSION_START_SUMMARY, UNSET_TOPIC, content_is_meaningful,
/// };
/// assert!(!content_is_meaningful(UNSET_TOPIC, SESSION_START_SUMMARY, &SESSION_START_KEYWORDS));
/// assert!(content_is_meaningful("Login", SESSION_START_SUMMARY, &SESSION_START_KEYWORDS));
/// assert!(content_is_meaningful(UNSET_TOPIC, "", &["auth"]));
/// ```
pub fn content_is_meaningful<S: AsRef<str>>(topic: &str, summary: &str, keywords: &[S]) -> bool {
    let topic = topic.trim();
    let default_keywords = [
        super::SESSION_START_KEYWORDS.as_slice(),
        super::MANUAL_KEYWORDS.as_slice(),
    ]
    .iter()
    .any(|d| keywords.iter().map(AsRef::as_ref).eq(d.iter().copied()));
    (!topic.is_empty() && topic != super::UNSET_TOPIC && topic != "-")
        || summary_is_meaningful(summary)
        || (!keywords.is_empty() && !default_keywords)
}
