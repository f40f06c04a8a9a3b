//! SessionStart by a remembered verdict (issue 6, part 5): once the reader has judged an
//! index text whole, the next SessionStart on exactly that text appends its row without
//! reading the rows again — and gives exactly the id, bytes and errors a start that reads
//! everything gives. Any other text (a hand edit, even one that keeps the file's size and
//! modification time), a torn or foreign note in the lock file, or a save by another
//! program between the read and the append is handled as without the cache.

mod support;

use std::path::Path;
use std::time::SystemTime;

use memory_core::durable::fault;
use memory_core::{ErrorKind, OrganizeOptions, SessionUpdate};
use proptest::prelude::*;
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

/// The id a start of agent `hook` takes at the fixtures' clock before any is taken.
const BASE: &str = "2026-05-25-1318-hook";

fn row(id: &str) -> String {
    format!(
        "| {id} | a | T | S | k | active | - | 2026-05-01T09:00:00+08:00 | 2026-05-01T09:00:00+08:00 |"
    )
}

fn lock_file(f: &Fixture) -> std::path::PathBuf {
    f.root().join(".memcore.lock")
}

fn forget_verdicts(f: &Fixture) {
    if lock_file(f).exists() {
        std::fs::write(lock_file(f), "").unwrap();
    }
}

/// A start's id and warning lines, or its error kind and line.
type Outcome = Result<String, (ErrorKind, Option<usize>)>;

/// What a start leaves: its outcome, the index's bytes, and whether it went by the
/// verdict (1) or read every row (0).
fn start(f: &Fixture) -> (Outcome, Vec<u8>, usize) {
    start_as(f, "hook")
}

/// [`start`] of `agent`.
fn start_as(f: &Fixture, agent: &str) -> (Outcome, Vec<u8>, usize) {
    let counted = fault::verdict_starts();
    let result = f
        .memory
        .register_session_start_with_warnings(agent)
        .map(|s| {
            let lines: Vec<usize> = s.warnings.iter().map(|w| w.line).collect();
            format!("{} {lines:?}", s.session_id)
        })
        .map_err(|e| (e.kind(), e.line()));
    let index = std::fs::read(f.index()).unwrap_or_default();
    (result, index, fault::verdict_starts() - counted)
}

#[test]
fn consecutive_starts_append_by_the_verdict_and_number_ids_as_a_full_read() {
    let mut text = format!("# Memory Index\n\n{HEADER}");
    for n in 0..40 {
        text.push_str(&row(&format!("2026-05-0{}-1200-agent-{n}", 1 + n % 9)));
        text.push('\n');
    }
    let (warm, cold) = (Fixture::with_index(&text), Fixture::with_index(&text));
    for n in 0..12 {
        forget_verdicts(&cold);
        let (w, c) = (start(&warm), start(&cold));
        assert_eq!(w.0, c.0, "start {n}");
        assert_eq!(w.1, c.1, "start {n}");
        assert_eq!(c.2, 0, "start {n}: the cold start read everything");
        // The first start has no verdict yet; every later one appends by it.
        assert_eq!(w.2, usize::from(n > 0), "start {n}");
    }
    let ids: Vec<String> = warm
        .memory
        .sessions()
        .unwrap()
        .into_iter()
        .map(|r| r.session_id.to_string())
        .filter(|id| id.starts_with(BASE))
        .collect();
    let mut expected = vec![BASE.to_string()];
    expected.extend((2..=12).map(|n| format!("{BASE}-{n}")));
    assert_eq!(ids, expected);
}

#[test]
fn every_write_leaves_a_verdict_the_next_start_appends_by() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("hook").unwrap();
    let writes: [&dyn Fn(); 3] = [
        &|| {
            f.memory
                .update(id.as_str(), SessionUpdate::new().summary("Did a thing."))
                .map(drop)
                .unwrap()
        },
        &|| {
            f.memory
                .organize(OrganizeOptions::default())
                .map(drop)
                .unwrap()
        },
        &|| {
            f.memory
                .register_manual(memory_core::ManualRegistration::new("m", "T", "S"))
                .map(drop)
                .unwrap()
        },
    ];
    for (n, write) in writes.iter().enumerate() {
        write();
        let counted = fault::verdict_starts();
        f.memory.register_session_start("hook").unwrap();
        assert_eq!(fault::verdict_starts() - counted, 1, "after write {n}");
    }
}

/// Sets `path`'s modification time to `time`.
fn set_modified(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[test]
fn a_hand_edit_that_keeps_size_and_time_is_read_whole() {
    let f = Fixture::with_index(&format!("{HEADER}{}\n{}\n", row("s-1"), row("s-2")));
    f.memory.register_session_start("hook").unwrap();
    let index = f.index();
    let modified = std::fs::metadata(&index).unwrap().modified().unwrap();
    let text = f.index_text();
    // Same length: `active` becomes `actove`, a status the reader refuses.
    let edited = text.replacen("| active |", "| actove |", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&index, &edited).unwrap();
    set_modified(&index, modified);
    let counted = fault::verdict_starts();
    let start = f
        .memory
        .register_session_start_with_warnings("hook")
        .unwrap();
    assert_eq!(fault::verdict_starts(), counted, "not by the verdict");
    assert_eq!(start.warnings.len(), 1, "{:?}", start.warnings);
    assert_eq!(start.warnings[0].line, 3);
}

#[test]
fn a_torn_or_foreign_note_in_the_lock_file_only_costs_a_full_read() {
    let text = format!("{HEADER}{}\n", row("s-1"));
    for note in [
        "".to_string(),
        "garbage\n".to_string(),
        "memcore-index-verdict 1 2 3\n".to_string(),
        "\u{0}\u{1}\u{2}".to_string(),
    ] {
        let f = Fixture::with_index(&text);
        let reference = Fixture::with_index(&text);
        f.memory.register_session_start("hook").unwrap();
        reference.memory.register_session_start("hook").unwrap();
        let real = std::fs::read(lock_file(&f)).unwrap();
        // The note cut short at every byte, then replaced by something else.
        for cut in (0..real.len()).step_by(7).chain([real.len()]) {
            std::fs::write(lock_file(&f), &real[..cut]).unwrap();
            std::fs::write(f.index(), reference.index_text()).unwrap();
            let (w, _, _) = start(&f);
            std::fs::write(f.index(), reference.index_text()).unwrap();
            forget_verdicts(&f);
            let (c, _, _) = start(&f);
            assert_eq!(w, c, "note cut at {cut}");
            std::fs::write(f.index(), reference.index_text()).unwrap();
        }
        std::fs::write(lock_file(&f), &note).unwrap();
        let (w, bytes, by_verdict) = start(&f);
        assert!(w.is_ok(), "{note:?}: {w:?}");
        assert_eq!(by_verdict, 0, "{note:?}");
        assert!(String::from_utf8(bytes).unwrap().starts_with(&text));
    }
}

/// A cell that holds the base id in some way people write it.
fn id_cell() -> impl Strategy<Value = String> {
    let suffix = prop_oneof![
        Just(String::new()),
        (2u32..5).prop_map(|n| format!("-{n}")),
        Just("-02".to_string()),
        Just("-2-3".to_string()),
        Just("-x".to_string()),
        Just("x".to_string()),
        Just("\\|y".to_string()),
    ];
    let before = prop_oneof![
        4 => Just(" ".to_string()),
        1 => Just("".to_string()),
        1 => Just("\t".to_string()),
        1 => Just("\u{3000}".to_string()),
        1 => Just("see ".to_string()),
    ];
    let after = prop_oneof![
        4 => Just(" ".to_string()),
        1 => Just("".to_string()),
        1 => Just("  \t".to_string()),
        1 => Just("\u{3000}".to_string()),
    ];
    (before, suffix, after).prop_map(|(b, s, a)| format!("{b}{BASE}{s}{a}"))
}

/// A body line: an ordinary row, a row whose first cell is an id-like cell, a row that
/// holds the base id in another cell, or a row the reader refuses.
fn body_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..50).prop_map(|n| row(&format!("s-{n}"))),
        4 => id_cell().prop_map(|cell| row("ID").replacen(" ID ", &cell, 1)),
        1 => id_cell().prop_map(|cell| row("s-90").replacen(" S ", &format!(" {cell} "), 1)),
        1 => id_cell().prop_map(|cell| row("ID").replacen("| ID ", &cell, 1)),
        1 => (0u32..5).prop_map(|n| row(&format!("s-{n}")).replace("active", "busy")),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(body_line(), 1..8),
        any::<bool>(),
        // The last line's end: none, a newline, or a lone `\r` (a start then rewrites).
        prop::sample::select(vec!["", "\n", "\r"]),
        any::<bool>(),
    )
        .prop_map(|(rows, crlf, end, preamble)| {
            let mut text = String::new();
            if preamble {
                text.push_str(&format!("# Memory Index\n\nMentions {BASE} in prose.\n\n"));
            }
            text.push_str(HEADER);
            text.push_str(&rows.join("\n"));
            if end == "\n" {
                text.push('\n');
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            text.push_str(if end == "\r" { end } else { "" });
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// On any document, a start by the verdict leaves exactly what a start that reads
    /// every row leaves — the same id, warnings, refusal and bytes — twice in a row.
    #[test]
    fn a_start_by_the_verdict_gives_what_a_full_read_gives(text in document()) {
        let warm = Fixture::with_index(&text);
        let cold = Fixture::with_index(&text);
        // A first start records the verdicts of the text read and of the text written.
        let first = (start(&warm), start(&cold));
        prop_assert_eq!(&first.0.0, &first.1.0);
        prop_assert_eq!(&first.0.1, &first.1.1);
        for round in 0..2 {
            if round == 0 {
                // Back to the text as read: its verdict is remembered.
                std::fs::write(warm.index(), &text).unwrap();
                std::fs::write(cold.index(), &text).unwrap();
            }
            forget_verdicts(&cold);
            let (w, c) = (start(&warm), start(&cold));
            prop_assert_eq!(&w.0, &c.0, "round {}", round);
            prop_assert_eq!(&w.1, &c.1, "round {}", round);
            prop_assert_eq!(c.2, 0);
        }
    }
}

/// Starts `agent` on `text` twice in a warm root (the first start records the verdict on
/// `text`, which is then put back) and in a cold one (the note forgotten before the second
/// start), with `between` run on each root before its second start. Asserts both second
/// starts give the same outcome and bytes; returns whether the warm one went by the
/// verdict, and its outcome.
fn warm_equals_cold(text: &str, agent: &str, between: &dyn Fn(&Fixture)) -> (usize, Outcome) {
    let (warm, cold) = (Fixture::with_index(text), Fixture::with_index(text));
    let first = (start_as(&warm, agent), start_as(&cold, agent));
    assert_eq!(first.0.0, first.1.0, "first start on {text:?}");
    for f in [&warm, &cold] {
        std::fs::write(f.index(), text).unwrap();
        between(f);
    }
    forget_verdicts(&cold);
    let (w, c) = (start_as(&warm, agent), start_as(&cold, agent));
    assert_eq!(c.2, 0);
    assert_eq!(w.0, c.0, "{text:?}");
    assert_eq!(
        String::from_utf8_lossy(&w.1),
        String::from_utf8_lossy(&c.1),
        "{text:?}"
    );
    (w.2, w.0)
}

/// A start that rewrites the index (its last line ends with a lone `\r`, which an append
/// cannot follow) beside a row it cannot read must leave no verdict on the text written:
/// the next start would append by it and lose the warning a full read gives.
#[test]
fn a_rewrite_beside_an_unreadable_row_leaves_no_verdict() {
    let text = format!("{HEADER}{}\n{}\r", row("bad id"), row("s-1"));
    let (warm, cold) = (Fixture::with_index(&text), Fixture::with_index(&text));
    for round in 0..3 {
        forget_verdicts(&cold);
        let (w, c) = (start(&warm), start(&cold));
        assert_eq!(w.0, c.0, "round {round}");
        assert_eq!(w.1, c.1, "round {round}");
        assert_eq!(w.2, 0, "round {round}: not by a verdict");
        let warned = w.0.unwrap();
        assert!(warned.ends_with(" [3]"), "round {round}: {warned}");
    }
}

/// Ids written in the ways people write table cells — or in ways that are no id — give
/// what a full read gives; the plain spellings go by the verdict.
#[test]
fn hand_written_first_cells_give_what_a_full_read_gives() {
    let cell = |cell: &str| row("ID").replacen(" ID ", cell, 1);
    let second = |line: String| format!("{HEADER}{}\n{line}\n", row("s-1"));
    let bare = |r: String| {
        r.trim_start_matches("| ")
            .trim_end_matches(" |")
            .to_string()
    };
    let by_verdict: Vec<String> = vec![
        format!("{HEADER}{}\n", row(BASE)),
        format!("\u{feff}{HEADER}{}\n", row(BASE)),
        format!("{HEADER}{}\n", row(BASE)).replace('\n', "\r\n"),
        format!("{HEADER}{}", row(BASE)),
        second(cell(&format!("\t{BASE}\t"))),
        second(cell(BASE)),
        second(cell(&format!(" {BASE}-2 "))),
        second(row(BASE).trim_start_matches('|').to_string()),
        second(bare(row(BASE))),
        format!("{HEADER}   {}\n", row(BASE)),
        format!("{HEADER}{}\n{}\n", row(BASE), row(&format!("{BASE}-2"))),
        format!(
            "{}\n{}\n",
            bare(HEADER.lines().next().unwrap().to_lowercase()),
            "---|---|---|---|---|---|---|---|---\n".to_string() + &bare(row(BASE))
        ),
        format!("# {BASE}\n\n{HEADER}{}\n", row("s-1")),
        format!(
            "{HEADER}{}\n",
            row(&format!("{BASE}-2")).replace(" T ", &format!(" {BASE} "))
        ),
        second(cell(&format!(" {BASE}-02 "))),
        second(cell(&format!(" {BASE}-x "))),
    ];
    let either: Vec<String> = vec![
        format!("{HEADER}{}\r", row(BASE)),
        format!("{HEADER}{}\n    {}\n", row("s-1"), row(BASE)),
        second(format!("\t{}", row(BASE))),
        second(format!(" \t{}", row(&format!("{BASE}-2")))),
        format!("{HEADER}{}\n", row(&format!("**{BASE}**"))),
        format!("{HEADER}{}\n", row(&format!("`{BASE}`"))),
        format!("{HEADER}{}|\n", row(BASE)),
        format!("{HEADER}{}\n", row(BASE).rsplit_once(" | ").unwrap().0),
        second(cell(&format!(" {BASE}\u{0b} "))),
        second(cell(&format!(" {BASE}\u{0c} "))),
        second(cell(&format!("\u{0c}{BASE} "))),
        second(cell(&format!("\r{BASE} "))),
        second(format!("\r{}", row(BASE))),
        second(cell(&format!("\u{a0}{BASE} "))),
        format!("{HEADER}<!-- x -->{}\n", row(BASE)),
        format!("{HEADER}{}\n<!-- {BASE} -->\n", row("s-1")),
    ];
    for text in &by_verdict {
        assert_eq!(warm_equals_cold(text, "hook", &|_| {}).0, 1, "{text:?}");
    }
    for text in &either {
        let _ = warm_equals_cold(text, "hook", &|_| {});
    }
}

/// The base id cut by the 64 KiB pieces the index is streamed in, at every byte, for
/// agent names in other scripts, with combining marks, and one that holds an id itself.
#[test]
fn an_id_across_two_read_pieces_is_found() {
    for agent in [
        "hook",
        "क्षत्रिय",
        "cafe\u{301}",
        "文件助手",
        "a-2026-05-25-1318-a",
    ] {
        let base = format!("2026-05-25-1318-{agent}");
        for shift in (0..=base.len() + 2).chain([base.len() + 40]) {
            let mut text = HEADER.to_string();
            let mut n = 0;
            while text.len() < 65_536 - 2_000 {
                text.push_str(&row(&format!("s-{n}")));
                text.push('\n');
                n += 1;
            }
            // A row whose summary puts the next row's id at `65_536 - shift`.
            let id_at = text.len() + row("pad").len() + 1 + 2;
            let pad = "x".repeat(65_536 - shift - id_at + 1);
            text.push_str(&row("pad").replacen(" S ", &format!(" {pad} "), 1));
            text.push('\n');
            assert_eq!(text.len() + 2, 65_536 - shift);
            text.push_str(&row(&base));
            text.push('\n');
            for m in 0..50 {
                text.push_str(&row(&format!("t-{m}")));
                text.push('\n');
            }
            let (by_verdict, outcome) = warm_equals_cold(&text, agent, &|_| {});
            assert_eq!(by_verdict, 1, "{agent} at {shift}");
            assert!(
                outcome.unwrap().starts_with(&format!("{base}-2 ")),
                "{agent} at {shift}"
            );
        }
        // `base`, `base-3` and `base-2` pieces apart.
        let mut text = format!("{HEADER}{}\n", row(&base));
        for m in 0..600 {
            text.push_str(&row(&format!("t-{m}")));
            text.push('\n');
            if m == 300 {
                text.push_str(&row(&format!("{base}-3")));
                text.push('\n');
            }
        }
        text.push_str(&row(&format!("{base}-2")));
        text.push('\n');
        let (by_verdict, outcome) = warm_equals_cold(&text, agent, &|_| {});
        assert_eq!(by_verdict, 1, "{agent}");
        assert!(
            outcome.unwrap().starts_with(&format!("{base}-4 ")),
            "{agent}"
        );
    }
}

/// What lies outside the index text — snapshots and archives of a candidate id, the
/// clock, the file's inode, a link, its permissions, another agent's start, a note copied
/// from another root — gives what a full read gives.
#[test]
fn the_world_around_the_index_gives_what_a_full_read_gives() {
    let text = format!("{HEADER}{}\n{}\n", row(BASE), row("s-1"));
    let snapshot = |f: &Fixture| {
        std::fs::create_dir_all(f.root().join("sessions")).unwrap();
        std::fs::write(f.root().join("sessions").join(format!("{BASE}-2.md")), "x").unwrap();
    };
    let (_, outcome) = warm_equals_cold(&text, "hook", &snapshot);
    assert!(outcome.unwrap().starts_with(&format!("{BASE}-3 ")));
    let archive = |f: &Fixture| {
        std::fs::create_dir_all(f.root().join("archive").join(format!("{BASE}-2"))).unwrap();
    };
    let (_, outcome) = warm_equals_cold(&text, "hook", &archive);
    assert!(outcome.unwrap().starts_with(&format!("{BASE}-3 ")));
    let offset = |f: &Fixture| {
        f.clock
            .set(chrono::DateTime::parse_from_rfc3339("2026-05-25T05:18:00+00:00").unwrap());
    };
    assert_eq!(
        warm_equals_cold(&text, "hook", &offset).0,
        0,
        "another offset"
    );
    let minute = |f: &Fixture| f.clock.advance_minutes(1);
    let _ = warm_equals_cold(&text, "hook", &minute);
    let inode = |f: &Fixture| {
        let other = f.root().join("other.md");
        std::fs::write(&other, &text).unwrap();
        std::fs::rename(&other, f.index()).unwrap();
    };
    assert_eq!(
        warm_equals_cold(&text, "hook", &inode).0,
        1,
        "same text, new inode"
    );
    let link = |f: &Fixture| {
        let target = f.dir.path().join("real-index.md");
        std::fs::write(&target, &text).unwrap();
        std::fs::remove_file(f.index()).unwrap();
        std::os::unix::fs::symlink(&target, f.index()).unwrap();
    };
    let (_, outcome) = warm_equals_cold(&text, "hook", &link);
    assert!(outcome.is_err(), "a linked index is refused: {outcome:?}");
    let other_agent = |f: &Fixture| {
        f.memory.register_session_start("other").unwrap();
        std::fs::write(f.index(), &text).unwrap();
    };
    let _ = warm_equals_cold(&text, "hook", &other_agent);
    // A note copied from another root that holds the same text.
    let a = Fixture::with_index(&text);
    start(&a).0.unwrap();
    let (b, cold) = (Fixture::with_index(&text), Fixture::with_index(&text));
    std::fs::copy(lock_file(&a), lock_file(&b)).unwrap();
    let (w, c) = (start(&b), start(&cold));
    assert_eq!((w.0, w.1, w.2), (c.0, c.1, 1));
}

/// A long index with unreadable rows and a repeated id spread through it: SessionStart
/// reports each in line order (and keeps no verdict beside them), the strict reader
/// refuses it at the first of them, and once they are gone the start after a full read
/// appends by the verdict.
#[test]
fn a_long_index_reports_its_unreadable_rows_in_line_order() {
    const ROWS: usize = 6000;
    let mut text = String::from(HEADER);
    let mut bad_lines = Vec::new();
    for i in 0..ROWS {
        let line = i + 3;
        let body = match i {
            17 | 2999 | 3001 | 5998 => {
                bad_lines.push(line);
                row(&format!("s-{i}")).replacen("active", "sleeping", 1)
            }
            4500 => {
                bad_lines.push(line);
                row("s-12")
            }
            _ => row(&format!("s-{i}")),
        };
        text.push_str(&body);
        text.push('\n');
    }
    let f = Fixture::with_index(&text);
    let strict = f.memory.sessions().unwrap_err();
    assert_eq!(strict.line(), Some(bad_lines[0]));
    let (outcome, _, by_verdict) = start(&f);
    assert_eq!(by_verdict, 0);
    assert_eq!(outcome.unwrap(), format!("{BASE} {bad_lines:?}"));
    let (outcome, _, by_verdict) = start(&f);
    // Beside unreadable rows no verdict is kept: the next start reads whole again.
    assert_eq!(by_verdict, 0);
    assert_eq!(outcome.unwrap(), format!("{BASE}-2 {bad_lines:?}"));

    let clean: String = text
        .lines()
        .enumerate()
        .filter(|(n, _)| !bad_lines.contains(&(n + 1)))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let f = Fixture::with_index(&clean);
    assert_eq!(f.memory.sessions().unwrap().len(), ROWS - bad_lines.len());
    let (first, _, by_verdict) = start(&f);
    assert_eq!((first.unwrap(), by_verdict), (format!("{BASE} []"), 0));
    let (second, _, by_verdict) = start(&f);
    assert_eq!((second.unwrap(), by_verdict), (format!("{BASE}-2 []"), 1));
}
