//! The first SessionStart on an index text with no remembered verdict (issue 6, part 5:
//! the first start after a hand edit) streams the file through a window instead of
//! holding it whole — and gives exactly the id, bytes, warnings and errors of a start
//! that reads the file whole, on every index, clean or not.

mod support;

use memory_core::ErrorKind;
use memory_core::durable::fault;
use proptest::prelude::*;
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

/// The id a start of agent `hook` takes at the fixtures' clock before any is taken.
const BASE: &str = "2026-05-25-1318-hook";

fn row(id: &str, summary: &str) -> String {
    format!(
        "| {id} | a | T | {summary} | k | active | - | 2026-05-01 09:00 | 2026-05-01T09:00:00+08:00 |\n"
    )
}

/// A start's id and warning lines, or its error kind and line.
type Outcome = Result<String, (ErrorKind, Option<usize>)>;

/// What a start of `hook` leaves on a fresh copy of `text` (no verdict remembered): its
/// outcome, the index's bytes, and whether it went by a streamed verdict.
fn start(text: &str, streaming: bool) -> (Outcome, Vec<u8>, usize) {
    let f = Fixture::with_index(text);
    fault::set_streaming(streaming);
    let counted = fault::streamed_starts();
    let result = f
        .memory
        .register_session_start_with_warnings("hook")
        .map(|s| {
            let lines: Vec<usize> = s.warnings.iter().map(|w| w.line).collect();
            format!("{} {lines:?}", s.session_id)
        })
        .map_err(|e| (e.kind(), e.line()));
    let streamed = fault::streamed_starts() - counted;
    fault::set_streaming(true);
    let index = std::fs::read(f.index()).unwrap_or_default();
    (result, index, streamed)
}

fn summary() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "plain",
        "50% done",
        "<b>bold</b> and a \\| b",
        "an %% inline comment %% here",
        "an <!-- inline comment --> here",
        "未設定 CJK",
    ])
}

/// Lines that end a table, are not rows, or are rows the reader refuses or warns about;
/// and rows taking the ids this start would take.
fn odd_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(row(BASE, "this minute")),
        (2u32..5).prop_map(|n| row(&format!("{BASE}-{n}"), "numbered")),
        Just(row("2026-04-01-0000-bot", "a repeat of the first row")),
        Just(row("2026-04-02-0002-bot", "opens %% an Obsidian comment")),
        Just(row("2026-04-03-0004-bot", "opens <!-- a comment")),
        Just(
            "| 2026-04-04-0006-bot | a | b | c | d | idle | - | yesterday | 2026-10-01 |\n"
                .to_string()
        ),
        Just("| 2026-04-05-0007-bot | too | few | cells |\n".to_string()),
        Just(HEADER.lines().next().unwrap_or_default().to_string() + "\n"),
        Just("\n".to_string()),
        Just("some prose\n".to_string()),
        Just("```\n".to_string()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["# Memory Index\n\n", "", "%% a comment %%\n\n"]),
        prop::collection::vec(summary(), 1..400),
        prop::collection::vec((odd_line(), any::<prop::sample::Index>()), 0..2),
        any::<bool>(),
    )
        .prop_map(|(top, summaries, odd, terminated)| {
            let mut lines: Vec<String> = summaries
                .iter()
                .enumerate()
                .map(|(n, s)| row(&format!("2026-04-{:02}-{n:04}-bot", n % 28 + 1), s))
                .collect();
            for (line, at) in odd {
                let at = at.index(lines.len() + 1);
                lines.insert(at, line);
            }
            let mut text = format!("{top}{HEADER}{}", lines.concat());
            if !terminated {
                text.pop();
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    /// Streamed or read whole, a start gives the same outcome and leaves the same bytes.
    #[test]
    fn a_streamed_start_is_a_whole_reads_start(text in document()) {
        let (streamed, whole) = (start(&text, true), start(&text, false));
        prop_assert_eq!(&streamed.0, &whole.0);
        prop_assert_eq!(&streamed.1, &whole.1);
        prop_assert_eq!(whole.2, 0);
    }
}

#[test]
fn a_large_clean_index_is_streamed_whatever_its_cells_hold() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..3_000 {
        let s = ["plain", "50% <b>done</b>", "a \\| b", "未設定"][n % 4];
        text.push_str(&row(&format!("2026-04-{:02}-{n:04}-bot", n % 28 + 1), s));
    }
    text.push_str(&row(BASE, "this minute"));
    let (streamed, whole) = (start(&text, true), start(&text, false));
    assert_eq!(streamed.2, 1, "the start went by a streamed verdict");
    assert_eq!(streamed.0, whole.0);
    assert_eq!(streamed.0, Ok(format!("{BASE}-2 []")));
    assert_eq!(streamed.1, whole.1);
}

#[test]
fn an_index_with_an_unreadable_row_is_read_whole_and_warned_about() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..2_000 {
        text.push_str(&row(
            &format!("2026-04-{:02}-{n:04}-bot", n % 28 + 1),
            "plain",
        ));
    }
    text.push_str("| 2026-04-04-9999-bot | a | b | c | d | idle | - | yesterday | 2026-10-01 |\n");
    let (streamed, whole) = (start(&text, true), start(&text, false));
    assert_eq!(
        streamed.2, 0,
        "no streamed verdict for a row the reader warns about"
    );
    assert_eq!(streamed.0, whole.0);
    assert_eq!(streamed.0, Ok(format!("{BASE} [2005]")));
    assert_eq!(streamed.1, whole.1);
}
