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
    let counted = fault::verdict_starts();
    let result = f
        .memory
        .register_session_start_with_warnings("hook")
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
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(rows, crlf, final_newline, preamble)| {
            let mut text = String::new();
            if preamble {
                text.push_str(&format!("# Memory Index\n\nMentions {BASE} in prose.\n\n"));
            }
            text.push_str(HEADER);
            text.push_str(&rows.join("\n"));
            if final_newline {
                text.push('\n');
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
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
