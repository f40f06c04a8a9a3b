//! Reading, as the seed's "Reading (session start)" asks: the index alone, whole, with a
//! budget warning when it is over; a topic file only when asked; `recall` ranking topic
//! files from their index lines, without opening them.

use serde::Serialize;

use super::cjk_grams::{Piece, pieces};
use super::index_file::{INDEX_FILE_NAME, IndexLine, MemoryIndex};
use super::memory::StructuredMemory;
use super::topic_file::Topic;
use crate::Warning;
use crate::error::{Error, Result};

/// One topic file `recall` found, with how well its index line matches.
///
/// ```
/// # use memory_core::structured_memory::RecallHit;
/// fn best(hits: &[RecallHit]) -> Option<&str> { hits.first().map(|h| h.line.file.as_str()) }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RecallHit {
    /// The index line.
    #[serde(flatten)]
    pub line: IndexLine,
    /// How well it matches, from 0 (not at all) to 1 (every query word in the title).
    pub score: f64,
}

/// Words too common to say what a topic is about.
pub(super) const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "my", "our", "your",
    "is", "are", "was", "it", "this", "that", "we", "i", "you", "about", "how", "what",
];

impl StructuredMemory {
    /// `MEMORY.md`, whole — never cut at its budget; when it is over, its
    /// [`budget`](MemoryIndex::budget) says so. An empty index when there is none yet
    /// (nothing is created). A `MEMORY.md` that is a symbolic link is read through it,
    /// [`MemoryIndex::through_link`] naming where it leads.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [User](USER.md) — role, preferences\n").unwrap();
    /// let index = StructuredMemory::open(dir.path()).unwrap().index().unwrap();
    /// assert_eq!(index.lines[0].title, "User");
    /// assert_eq!(index.budget.lines_left, 59);
    /// ```
    pub fn index(&self) -> Result<MemoryIndex> {
        let _guard = self.handle.read_guard()?;
        let mut index = match self.load_index_for_reading()? {
            Some(index) => index,
            None => MemoryIndex::parse(self.index_path_for_reading()?.0, "")?,
        };
        index.budget =
            self.budgets
                .usage(INDEX_FILE_NAME, true, index.line_count, index.byte_count);
        Ok(index)
    }

    /// Topic file `file` (relative to the directory), whole, with its budget use. The
    /// name is matched as a write matches it: exactly, else the spelling the index links,
    /// else the one file on disk that differs only in case or Unicode normalisation
    /// (several such files are refused naming them). [`Error::TopicNotFound`] when it does
    /// not exist; the index and archive are refused as topics.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("USER.md"), "- 2026-07-10: prefers terse answers\n").unwrap();
    /// let memory = StructuredMemory::open(dir.path()).unwrap();
    /// assert_eq!(memory.topic("USER.md").unwrap().entries[0].text, "prefers terse answers");
    /// assert_eq!(memory.topic("user.md").unwrap().file, "USER.md", "case folded as a write folds it");
    /// assert!(memory.topic("MEMORY.md").is_err());
    /// ```
    pub fn topic(&self, file: &str) -> Result<Topic> {
        let _guard = self.handle.read_guard()?;
        // The name as every entry point resolves it (`topic_case.rs`): the index's
        // spelling, else the file's on disk, but for case or normalisation. A `MEMORY.md`
        // that does not read leaves the names on disk to go by.
        let index = self.load_index().ok().flatten();
        let (name, path) = self.resolve_topic_name(file, index.as_ref())?;
        let mut topic = self
            .load_topic(&name)?
            .ok_or_else(|| Error::TopicNotFound {
                file: file.to_string(),
                path,
            })?;
        topic.budget = self
            .budgets
            .usage(&topic.file, false, topic.line_count, topic.byte_count);
        Ok(topic)
    }

    /// The topic files whose index line matches `query`, best first (ties in index
    /// order): each query word (lowercased; common words left out unless the query has
    /// nothing else) found in the title counts twice, in the hook or file name once; as a
    /// word prefix half that (a quarter for a query word under three characters: `a`,
    /// `日`); a run of Han, Hiragana, Katakana or Hangul counts as its character bigrams,
    /// in the query and the line alike (`备份` finds `数据库备份`); the score is that over
    /// the most a line could get. Only `MEMORY.md` is read.
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"),
    ///     "- [Project X](memory-project-x.md) — build quirks, deploy pipeline\n- [User](USER.md) — role, preferences\n").unwrap();
    /// let hits = StructuredMemory::open(dir.path()).unwrap().recall("the deploy script").unwrap();
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!(hits[0].line.file, "memory-project-x.md");
    /// ```
    pub fn recall(&self, query: &str) -> Result<Vec<RecallHit>> {
        Ok(self.recall_with_warnings(query)?.0)
    }

    /// [`StructuredMemory::recall`], with what a command line says on stderr, as
    /// [`Warning`]s about `MEMORY.md` (its path under the directory): that it was read
    /// through a symbolic link ([`MemoryIndex::link_warning`], line 0), and, for each hit
    /// whose topic file does not exist (a dangling index line), that line — the message
    /// naming `MEMORY.md`, the line and the file. Such a hit is **kept**: recall ranks the
    /// index, and the line is still what the index says; the warning says that
    /// [`topic`](StructuredMemory::topic) will not find the file (and
    /// [`check`](StructuredMemory::check) reports the line as `dangling_index_line`).
    ///
    /// ```
    /// use memory_core::structured_memory::StructuredMemory;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("MEMORY.md"), "- [User](USER.md) — role\n").unwrap();
    /// std::fs::write(dir.path().join("USER.md"), "- 2026-07-10: prefers terse answers\n").unwrap();
    /// let m = StructuredMemory::open(dir.path()).unwrap();
    /// let (hits, warnings) = m.recall_with_warnings("role").unwrap();
    /// assert_eq!((hits.len(), warnings.len()), (1, 0));
    /// std::fs::remove_file(dir.path().join("USER.md")).unwrap();
    /// let (hits, warnings) = m.recall_with_warnings("role").unwrap();
    /// assert_eq!((hits.len(), warnings[0].line), (1, 1), "kept, and the line named");
    /// assert!(warnings[0].message.starts_with("MEMORY.md line 1 links USER.md, which does not exist"));
    /// ```
    pub fn recall_with_warnings(&self, query: &str) -> Result<(Vec<RecallHit>, Vec<Warning>)> {
        let index = self.index()?;
        let path = self.root().join(INDEX_FILE_NAME);
        let mut warnings: Vec<Warning> = index
            .link_warning()
            .into_iter()
            .map(|message| Warning {
                path: path.clone(),
                line: 0,
                message,
            })
            .collect();
        let hits = rank(&index.lines, query);
        warnings.extend(hits.iter().filter_map(|hit| {
            let missing = self.topic_path(&hit.line.file).is_ok_and(|p| {
                std::fs::symlink_metadata(p)
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            });
            missing.then(|| Warning {
                path: path.clone(),
                line: hit.line.line,
                message: missing_topic_message(&hit.line),
            })
        }));
        Ok((hits, warnings))
    }
}

/// What recall says of a hit whose topic file does not exist.
fn missing_topic_message(line: &IndexLine) -> String {
    format!(
        "{INDEX_FILE_NAME} line {} links {}, which does not exist: the hit is kept, but `show` will not find it (a dangling index line, as `check` reports; restore the file or remove the line)",
        line.line, line.file
    )
}

/// The lines matching `query`, best first (ties in file order).
pub(super) fn rank(lines: &[IndexLine], query: &str) -> Vec<RecallHit> {
    let words = query_words(query);
    if words.is_empty() {
        return Vec::new();
    }
    let most = 2.0 * words.len() as f64;
    let mut hits: Vec<RecallHit> = lines
        .iter()
        .filter_map(|line| {
            let score = line_points(&words, line);
            (score > 0.0).then(|| RecallHit {
                line: line.clone(),
                score: (score / most).min(1.0),
            })
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits
}

/// The words of `query` recall matches: lowercased, common words left out unless the
/// query has nothing else (`a`, `the user`… ask for them).
pub(super) fn query_words(query: &str) -> Vec<String> {
    let all = words(query);
    let words: Vec<String> = all
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    if words.is_empty() { all } else { words }
}

/// What an index line scores for `words` (see [`query_words`]), before [`rank`] divides
/// it by the most a line could get: each word 2 points found in the title, 1 in the hook
/// or the file name (without `.md`), half that as a word prefix (a quarter for a word
/// under three characters), the best of the three.
pub(super) fn line_points(words: &[String], line: &IndexLine) -> f64 {
    let title = words_of(&line.title);
    let hook = words_of(&line.hook);
    let stem = words_of(line.file.trim_end_matches(".md"));
    words
        .iter()
        .map(|w| {
            weight(w, &title, 2.0)
                .max(weight(w, &hook, 1.0))
                .max(weight(w, &stem, 1.0))
        })
        .sum()
}

/// The length from which a word counts as a prefix in full, in characters.
const PREFIX_CHARS: usize = 3;

/// `full` when `word` is one of `words`; half of it when it starts one (or one of at least
/// three characters starts it: `deploy` and `deploys`); a quarter when a query word shorter
/// than three characters (`a`, `日`, `db`) starts one; else 0.
fn weight(word: &str, words: &[String], full: f64) -> f64 {
    let chars = |w: &str| w.chars().count();
    if words.iter().any(|w| w == word) {
        full
    } else if words.iter().any(|w| {
        (chars(w) >= PREFIX_CHARS && word.starts_with(w.as_str()))
            || (chars(word) >= PREFIX_CHARS && w.starts_with(word))
    }) {
        full / 2.0
    } else if words.iter().any(|w| w.starts_with(word)) {
        full / 4.0
    } else {
        0.0
    }
}

fn words_of(text: &str) -> Vec<String> {
    words(text)
}

/// Lowercased runs of letters and digits; a run of Han, Hiragana, Katakana or Hangul as
/// its character bigrams ([`super::cjk_grams`]), so that `备份` finds `数据库备份`.
fn words(text: &str) -> Vec<String> {
    pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Word(w) => w.to_lowercase(),
            Piece::Gram(g) => g.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(title: &str, file: &str, hook: &str) -> IndexLine {
        IndexLine {
            title: title.into(),
            file: file.into(),
            hook: hook.into(),
            line: 1,
        }
    }

    #[test]
    fn titles_weigh_more_than_hooks_and_stop_words_do_not_count() {
        let lines = [
            line("Infra", "memory-infra.md", "hosts, deploy targets"),
            line("Deploy", "memory-deploy.md", "pipeline order"),
            line("User", "USER.md", "role and preferences"),
        ];
        let hits = rank(&lines, "the deploy");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].line.file, "memory-deploy.md");
        assert!(hits[0].score > hits[1].score);
        // Common words count only when the query has nothing else.
        assert_eq!(rank(&lines, "the and of")[0].line.file, "USER.md");
        assert!(rank(&lines, "the of").is_empty());
        assert_eq!(rank(&lines, "preference")[0].line.file, "USER.md");
    }
}
