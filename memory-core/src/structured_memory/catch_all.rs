//! The seed's first anti-pattern, a "misc" topic ("Misc means the index hook can't be
//! written, which means recall will never load it"), as one rule for a topic file's name,
//! its index line's title and its hook: every word of it is a catch-all word or a filler
//! one, and one of them is a catch-all word. `remember` and a split refuse such a name,
//! title or hook; `check` reports it (`misc_topic`) at the index line.

use crate::error::{Error, Result};

/// Words that say a topic holds whatever did not fit elsewhere.
const CATCH_ALL_WORDS: &[&str] = &[
    "misc",
    "miscellaneous",
    "miscellany",
    "miscellanea",
    "other",
    "others",
    "stuff",
    "general",
    "random",
    "various",
    "etc",
    "uncategorized",
    "uncategorised",
    "unsorted",
    "unfiled",
    "leftovers",
];

/// Words that say nothing of what a topic holds, next to a catch-all word (a run of
/// digits, `2` in `memory-misc-2.md`, is one too).
const FILLER_WORDS: &[&str] = &[
    "memory", "memories", "notes", "note", "things", "thing", "items", "item", "info", "facts",
    "fact", "topics", "topic", "bits", "and", "or", "the", "a", "an", "of", "for",
];

/// The words of `text`, lowercased: runs of letters, and runs of digits (`misc2` is
/// `misc` and `2`); an apostrophe joins (`other's` is `others`).
fn words(text: &str) -> Vec<String> {
    let joined: String = text
        .chars()
        .filter(|c| !matches!(c, '\'' | '\u{2019}'))
        .flat_map(char::to_lowercase)
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut digits = false;
    for c in joined.chars() {
        // A word ends at anything else, and where letters turn to digits or back.
        if !word.is_empty() && (!c.is_alphanumeric() || c.is_numeric() != digits) {
            out.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            digits = c.is_numeric();
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether `text` (a title, a hook, a file name's stem) is made only of catch-all and
/// filler words, one of them a catch-all word: `Misc`, `miscellaneous stuff`, `other
/// notes`, `misc-2` — not `other teams' APIs`, `general ledger` or `notes` (no
/// catch-all word: it is only vague).
pub(super) fn is_catch_all_text(text: &str) -> bool {
    let words = words(text);
    let catch_all = |w: &String| CATCH_ALL_WORDS.contains(&w.as_str());
    let filler = |w: &String| FILLER_WORDS.contains(&w.as_str()) || w.chars().all(char::is_numeric);
    words.iter().any(catch_all) && words.iter().all(|w| catch_all(w) || filler(w))
}

/// Whether a topic file's name is a catch-all (see [`is_catch_all_text`]; the directory
/// and `.md` are not part of it): `misc.md`, `memory-misc-2.md`, `Misc notes.md`,
/// `memory-uncategorized.md` — not `memory-general-ledger.md`, `memory-other-teams.md`
/// or `misc/infra.md`.
pub(super) fn is_catch_all(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name
        .get(..name.len().saturating_sub(3))
        .filter(|_| name.to_ascii_lowercase().ends_with(".md"))
        .unwrap_or(name);
    is_catch_all_text(stem)
}

/// Refuses a catch-all topic file name ([`Error::InvalidInput`] naming it).
pub(super) fn refuse_misc(file: &str) -> Result<()> {
    if is_catch_all(file) {
        return Err(Error::invalid(
            "topic file",
            file,
            "is a catch-all topic: its hook could never say when to load it; route the fact to a topic named for its subject",
        ));
    }
    Ok(())
}

/// Refuses a catch-all title or hook (`field`) for `file`'s index line
/// ([`Error::InvalidInput`] naming the field, the value and the file).
pub(super) fn refuse_misc_field(field: &'static str, value: &str, file: &str) -> Result<()> {
    if is_catch_all_text(value) {
        return Err(Error::invalid(
            field,
            value,
            format!(
                "is a catch-all {field} for {file}: it cannot say when to load the topic; give one that names what it holds"
            ),
        ));
    }
    Ok(())
}

/// What `check` says of an index line for a catch-all topic: its file name, else its
/// title, else its hook; `None` when none is one.
pub(super) fn catch_all_line(file: &str, title: &str, hook: &str) -> Option<String> {
    if is_catch_all(file) {
        return Some(format!(
            "{file} is a catch-all topic: its hook cannot say when to load it; route its entries to topics named for their subjects"
        ));
    }
    let (field, value) = [("title", title), ("hook", hook)]
        .into_iter()
        .find(|(_, value)| is_catch_all_text(value))?;
    Some(format!(
        "{file} has a catch-all {field} ({value:?}): it cannot say when to load the topic; give it one that names what it holds, or route its entries to topics named for their subjects"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_letters_from_digits_and_join_apostrophes() {
        assert_eq!(words("Misc2 other's"), ["misc", "2", "others"]);
        assert_eq!(words("k8s — teams’ APIs"), ["k", "8", "s", "teams", "apis"]);
    }

    #[test]
    fn names_are_catch_alls_when_every_word_is_catch_all_or_filler() {
        for file in [
            "misc.md",
            "memory-misc.md",
            "memory-misc-2.md",
            "memory-misc2.md",
            "memory-miscellany.md",
            "memory-uncategorized.md",
            "memory-uncategorised.md",
            "memory-unsorted.md",
            "memory-unfiled.md",
            "memory-leftovers.md",
            "Misc notes.md",
            "memory-general.md",
            "a/other.md",
            "memory-general-notes.md",
            "random_stuff.md",
            "memory-Other-Things.md",
            "memory-misc-and-other-stuff.md",
        ] {
            assert!(is_catch_all(file), "{file}");
            assert!(refuse_misc(file).is_err(), "{file}");
        }
        for file in [
            "memory-infra.md",
            "USER.md",
            "memory-miscompile-bugs.md",
            "memory-general-ledger.md",
            "memory-other-teams.md",
            "memory-general_relativity.md",
            "USER-other.md",
            "notes.md",
            "memory-2.md",
            "misc/infra.md",
            "memory-k8s.md",
        ] {
            assert!(!is_catch_all(file), "{file}");
            assert!(refuse_misc(file).is_ok(), "{file}");
        }
    }

    #[test]
    fn titles_and_hooks_are_catch_alls_when_made_only_of_catch_all_and_filler_words() {
        for text in [
            "Misc",
            "Misc.",
            "miscellaneous stuff",
            "other notes",
            "Other",
            "others' stuff",
            "Uncategorised",
            "leftovers",
            "misc 2",
            "stuff, things, etc.",
            "General",
            "random bits and other stuff",
        ] {
            assert!(is_catch_all_text(text), "{text}");
            assert!(refuse_misc_field("hook", text, "memory-z.md").is_err());
        }
        for text in [
            "other teams' APIs",
            "General ledger",
            "misc build flags",
            "notes",
            "things",
            "hosts, databases",
            "",
            "—",
            "2026",
        ] {
            assert!(!is_catch_all_text(text), "{text}");
            assert!(refuse_misc_field("title", text, "memory-z.md").is_ok());
        }
    }

    #[test]
    fn check_names_the_file_then_the_title_then_the_hook() {
        let file = catch_all_line("memory-misc.md", "Misc", "stuff").unwrap();
        assert!(
            file.starts_with("memory-misc.md is a catch-all topic"),
            "{file}"
        );
        let title = catch_all_line("memory-x.md", "Misc", "stuff").unwrap();
        assert!(title.contains("catch-all title (\"Misc\")"), "{title}");
        let hook = catch_all_line("memory-x.md", "X", "miscellaneous stuff").unwrap();
        assert!(hook.contains("catch-all hook"), "{hook}");
        assert_eq!(
            catch_all_line("memory-x.md", "X", "other teams' APIs"),
            None
        );
    }
}
