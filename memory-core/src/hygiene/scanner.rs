//! The compiled pattern set: one `aho-corasick` automaton over every pattern's literal
//! anchors decides which expressions can match at all, so a clean text costs one pass of
//! the automaton and no regular expression runs on it. Private key data without its
//! armor lines has no anchor: [`super::key_data`] looks for it in one pass of its own.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;

use super::checks::confirm;
use super::key_data::first_key_data;
use super::patterns::{PATTERNS, Pattern};

/// The automaton and the compiled expressions, built once per process.
struct Scanner {
    /// Every anchor of every pattern, ASCII case-insensitive.
    anchors: AhoCorasick,
    /// For each anchor (by automaton pattern id), the patterns it stands for.
    anchor_patterns: Vec<Vec<usize>>,
    /// The compiled expression of each entry of [`PATTERNS`].
    regexes: Vec<Regex>,
}

fn scanner() -> &'static Scanner {
    static SCANNER: OnceLock<Scanner> = OnceLock::new();
    SCANNER.get_or_init(build)
}

fn build() -> Scanner {
    let mut literals: Vec<&'static str> = Vec::new();
    let mut anchor_patterns: Vec<Vec<usize>> = Vec::new();
    for (index, pattern) in PATTERNS.iter().enumerate() {
        for &anchor in pattern.anchors {
            match literals.iter().position(|&l| l == anchor) {
                Some(at) => anchor_patterns[at].push(index),
                None => {
                    literals.push(anchor);
                    anchor_patterns.push(vec![index]);
                }
            }
        }
    }
    let anchors = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&literals)
        // The anchors are a fixed list of short literals, far below any size limit of
        // the automaton; the unit test `every_pattern_compiles` builds it.
        .expect("the anchor automaton builds");
    let regexes = PATTERNS
        .iter()
        .map(|pattern: &Pattern| {
            // The expressions are constants; `every_pattern_compiles` compiles each.
            Regex::new(pattern.regex).expect("a secret pattern compiles")
        })
        .collect();
    Scanner {
        anchors,
        anchor_patterns,
        regexes,
    }
}

/// A confirmed match: its kind and its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hit {
    pub kind: &'static str,
    pub range: Range<usize>,
}

/// The first secret in `text`: the earliest match of a named format (key data without
/// its armor counts as one), else the earliest match of a generic one (ties go to the
/// pattern listed first, then to key data).
pub(super) fn first_hit(text: &str) -> Option<Hit> {
    let named = first_pattern_hit(text);
    let key_data = first_key_data(text).map(|range| Hit {
        kind: "private-key",
        range,
    });
    match (named, key_data) {
        (Some((named, false)), Some(key)) if key.range.start >= named.range.start => Some(named),
        (_, Some(key)) => Some(key),
        (named, None) => named.map(|(hit, _)| hit),
    }
}

/// The first match of the pattern set, and whether it is generic.
fn first_pattern_hit(text: &str) -> Option<(Hit, bool)> {
    let scanner = scanner();
    let mut candidates = vec![false; PATTERNS.len()];
    let mut any = false;
    for found in scanner.anchors.find_overlapping_iter(text) {
        for &index in &scanner.anchor_patterns[found.pattern().as_usize()] {
            candidates[index] = true;
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut best_named: Option<Hit> = None;
    let mut best_generic: Option<Hit> = None;
    for (index, pattern) in PATTERNS.iter().enumerate() {
        if !candidates[index] {
            continue;
        }
        let best = if pattern.generic {
            &mut best_generic
        } else {
            &mut best_named
        };
        let limit = best.as_ref().map_or(usize::MAX, |hit| hit.range.start);
        if let Some(range) = first_confirmed(&scanner.regexes[index], pattern, text, limit) {
            *best = Some(Hit {
                kind: pattern.kind,
                range,
            });
        }
    }
    best_named
        .map(|hit| (hit, false))
        .or(best_generic.map(|hit| (hit, true)))
}

/// The first match of `regex` starting before `limit` that its check confirms.
fn first_confirmed(
    regex: &Regex,
    pattern: &Pattern,
    text: &str,
    limit: usize,
) -> Option<Range<usize>> {
    for caps in regex.captures_iter(text) {
        let whole = caps.get(0)?;
        if whole.start() >= limit {
            return None;
        }
        if let Some(end) = confirm(pattern.check, text, &caps) {
            return Some(whole.start()..end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        let scanner = build();
        assert_eq!(scanner.regexes.len(), PATTERNS.len());
        for pattern in PATTERNS {
            assert!(!pattern.anchors.is_empty(), "{}", pattern.kind);
            for anchor in pattern.anchors {
                assert_eq!(*anchor, anchor.to_ascii_lowercase(), "{}", pattern.kind);
            }
            assert!(!pattern.doc.is_empty());
        }
    }

    #[test]
    fn clean_text_runs_no_expression() {
        assert_eq!(
            first_hit("We chose Postgres over MySQL for the ledger."),
            None
        );
    }
}
