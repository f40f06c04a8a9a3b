//! `check`'s near-duplicate rule: index lines of two different topic files whose title
//! and hook say nearly the same. A session deciding from the index alone cannot tell
//! them apart, so recall ties them and loads both or neither; the seed's answer is to
//! merge them. Two lines for one file are `duplicate_index_line`, not this.
//!
//! **Words.** The title's and the hook's words: runs of letters and digits, lowercased
//! (so case and punctuation do not count), common words (`the`, `and`, `of`, … —
//! recall's) left out, and an English plural ending dropped (`-ies` as `-y`, a final `-s`
//! but not `-ss`, `-us`, `-is`; then a final `-e`, so that `databases` and `database`,
//! `caches` and `cache`, `policies` and `policy` are one word). Scripts written without
//! spaces would make a whole Chinese or Japanese title one "word" (and a Korean word
//! with its particle another than without): a run of Han, Hiragana, Katakana or Hangul
//! counts as its overlapping character bigrams instead (`数据库备份` → `数据`, `据库`,
//! `库备`, `备份`; a lone character as itself), beside the words of the Latin runs
//! around it (`Redis 缓存` → `redis`, `缓存`). Two CJK titles that differ by one
//! character then share all but the bigrams around it, and two that only share a
//! character share no bigram.
//!
//! **Reported** (`near_duplicate_topics`): a line whose title shares a word with an
//! earlier line's and whose words are at least [`NEAR_DUPLICATE_SIMILARITY`] similar to
//! that line's — the words the two share, over all the words either has (Jaccard) —
//! naming the most similar such earlier line that was not itself reported. Titles that
//! share no word tell the topics apart, whatever their hooks say.
//!
//! **Merged** by the default index pass: only a reported pair with clear evidence — the
//! same title words and the same hook words, in any order and any spelling the folding
//! above makes one (`Infra — Hosts, DBs.` and `infra: hosts dbs`). A pair that is only
//! similar is reported and left for a person (or a compactor that judges) to merge.

use std::collections::{BTreeMap, BTreeSet};

use super::check::{Violation, ViolationKind};
use super::cjk_grams::{Piece, pieces};
use super::index_file::{INDEX_FILE_NAME, IndexLine, MemoryIndex};
use super::read::STOP_WORDS;
use super::topic_name::name_key;

/// How similar two index lines' words must be for `check` to report them as
/// `near_duplicate_topics`: the words they share over all the words either has (after
/// case, punctuation, common words and plural endings are folded away), for lines whose
/// titles share a word. 0.75 is, for
/// instance, three words of four alike (`Infra — hosts, databases` and `Infra — hosts,
/// databases, backups`), or seven of eight; two lines that differ in one word of four
/// (`Deploy — staging pipeline` and `Deploy — production pipeline`, 2 of 4) are not near
/// duplicates. The default index pass merges only pairs with the same words (similarity
/// 1, the title's and the hook's each the same).
///
/// ```
/// use memory_core::structured_memory::NEAR_DUPLICATE_SIMILARITY;
/// assert_eq!(NEAR_DUPLICATE_SIMILARITY, 0.75);
/// ```
pub const NEAR_DUPLICATE_SIMILARITY: f64 = 0.75;

/// A reported pair: the later line, the earlier one it nearly duplicates, how similar
/// their words are, and whether they have the same title words and the same hook words
/// (the evidence the default merge needs).
#[derive(Debug)]
pub(super) struct NearDuplicate<'a> {
    pub later: &'a IndexLine,
    pub earlier: &'a IndexLine,
    pub shared: usize,
    pub total: usize,
    pub same_words: bool,
}

/// One `near_duplicate_topics` violation at each reported line, naming the earlier line.
pub(super) fn near_duplicates(index: &MemoryIndex) -> Vec<Violation> {
    near_duplicate_pairs(index)
        .into_iter()
        .map(|pair| {
            let (later, first) = (pair.later, pair.earlier);
            let message = if pair.same_words {
                format!(
                    "{} has the title and hook of {} (line {}): a session cannot tell them apart from the index; merge them (keep what is true in one) or give each a hook that says what it holds",
                    later.file, first.file, first.line
                )
            } else {
                format!(
                    "{} has nearly the title and hook of {} (line {}; {} of {} words alike): a session can hardly tell them apart from the index; merge them (keep what is true in one) or give each a hook that says what it holds",
                    later.file, first.file, first.line, pair.shared, pair.total
                )
            };
            Violation {
                kind: ViolationKind::NearDuplicateTopics,
                file: INDEX_FILE_NAME.to_string(),
                line: later.line,
                message,
            }
        })
        .collect()
}

/// The folded words of one index line.
struct Words<'a> {
    line: &'a IndexLine,
    title: BTreeSet<String>,
    hook: BTreeSet<String>,
    all: BTreeSet<String>,
}

/// The near-duplicates of the index, in file order: each line (the first of its file,
/// with a non-empty hook) whose words are [`NEAR_DUPLICATE_SIMILARITY`] similar to an
/// earlier line that is not itself reported, with the most similar such line (the
/// first, of equals). An earlier line is never reported, so every pair's `earlier` is
/// kept by the merges of the others. What `check` reports; the default index pass merges
/// the pairs with `same_words` (the later into the earlier).
pub(super) fn near_duplicate_pairs(index: &MemoryIndex) -> Vec<NearDuplicate<'_>> {
    let mut files_seen = BTreeSet::new();
    let mut kept: Vec<Words<'_>> = Vec::new();
    // Which kept lines have each word: only lines sharing a word can be similar.
    let mut by_word: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    // Per kept line, the words it shares with the line at hand (zeroed after each).
    let mut shared_with: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for line in &index.lines {
        // A second line for one file is another rule's.
        if !files_seen.insert(name_key(&line.file)) {
            continue;
        }
        if line.hook.trim().is_empty() {
            // An empty hook is `empty_hook`'s.
            continue;
        }
        let words = words_of(line);
        if words.all.is_empty() {
            continue;
        }
        // How many words each kept line shares with this one, counted through the words'
        // lines (only lines sharing a word can be similar).
        let mut touched = Vec::new();
        for w in &words.all {
            for &k in by_word.get(w).into_iter().flatten() {
                if shared_with[k] == 0 {
                    touched.push(k);
                }
                shared_with[k] += 1;
            }
        }
        // In kept order, so that of equally similar lines the first is named.
        touched.sort_unstable();
        let mut best: Option<(usize, usize, usize)> = None;
        for k in touched {
            let shared = std::mem::take(&mut shared_with[k]);
            // Titles name what a topic is about: two whose titles share no word (`A b` and
            // `Ok`, both restored from one compaction with one generated hook) are told
            // apart by them.
            if kept[k].title.is_disjoint(&words.title) {
                continue;
            }
            let total = kept[k].all.len() + words.all.len() - shared;
            // shared / total ≥ the threshold, compared without rounding.
            if (shared as f64) < NEAR_DUPLICATE_SIMILARITY * total as f64 {
                continue;
            }
            let better = best.is_none_or(|(_, s, t)| shared * t > s * total);
            if better {
                best = Some((k, shared, total));
            }
        }
        match best {
            Some((k, shared, total)) => {
                let earlier = &kept[k];
                out.push(NearDuplicate {
                    later: line,
                    earlier: earlier.line,
                    shared,
                    total,
                    same_words: earlier.title == words.title && earlier.hook == words.hook,
                });
            }
            None => {
                for w in &words.all {
                    by_word.entry(w.clone()).or_default().push(kept.len());
                }
                kept.push(words);
                shared_with.push(0);
            }
        }
    }
    out
}

fn words_of(line: &IndexLine) -> Words<'_> {
    let title = folded_words(&line.title);
    let hook = folded_words(&line.hook);
    let all = title.union(&hook).cloned().collect();
    Words {
        line,
        title,
        hook,
        all,
    }
}

/// The folded words of `text` (see the module): lowercased runs of letters and digits,
/// common words left out unless nothing else is left, plural endings dropped; runs of
/// Han, Hiragana, Katakana and Hangul as their character bigrams ([`super::cjk_grams`]).
fn folded_words(text: &str) -> BTreeSet<String> {
    let mut grams = Vec::new();
    let mut all = Vec::new();
    for piece in pieces(text) {
        match piece {
            Piece::Word(w) => all.push(w.to_lowercase()),
            Piece::Gram(g) => grams.push(g.to_string()),
        }
    }
    let content: Vec<&String> = all
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    let kept = if content.is_empty() && grams.is_empty() {
        all.iter().collect()
    } else {
        content
    };
    kept.into_iter().map(|w| singular(w)).chain(grams).collect()
}

/// `word` without an English plural ending, then without a final `e` (`databases`,
/// `database` → `databas`; `policies`, `policy` → `policy`; `status`, `access` kept).
fn singular(word: &str) -> String {
    let chars = word.chars().count();
    let mut w = word.to_string();
    if chars > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
        return w;
    }
    if chars > 3 && w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) {
        w.pop();
    }
    if w.chars().count() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_title_and_hook_for_two_files_is_reported_at_the_later_line() {
        let index = MemoryIndex::parse(
            "MEMORY.md",
            "- [P: Beta](memory-p-beta.md) — Beta\n- [P: beta](memory-p-beta-2.md) —  beta\n- [P: Beta](memory-p-gamma.md) — Gamma\n- [P: Beta](memory-p-beta.md) — Beta\n- [Q](memory-q.md)\n- [Q](memory-q2.md)\n",
        )
        .unwrap();
        let found = near_duplicates(&index);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert!(
            found[0].message.starts_with(
                "memory-p-beta-2.md has the title and hook of memory-p-beta.md (line 1)"
            ),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn plurals_case_punctuation_and_common_words_fold() {
        for (a, b) in [
            ("databases", "Database"),
            ("caches", "cache"),
            ("policies", "policy"),
            ("Hosts,", "host"),
        ] {
            assert_eq!(folded_words(a), folded_words(b), "{a} {b}");
        }
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("access"), "access");
        assert_eq!(singular("analysis"), "analysis");
        assert_eq!(
            folded_words("The hosts and the databases"),
            folded_words("hosts, databases")
        );
        assert_eq!(folded_words("the"), ["the".to_string()].into());
    }
}
