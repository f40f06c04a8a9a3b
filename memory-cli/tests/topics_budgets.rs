//! `memcore topics` budgets in the human output: a byte budget is shown beside the lines,
//! and an overage in bytes is named as bytes.

mod common;

use common::{command, run};

#[test]
fn a_byte_budget_is_shown_and_its_overage_named_in_the_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let remember = |text: &str, subject: &str| {
        run(command(dir.path()).args([
            "--root",
            "memory",
            "topics",
            "remember",
            "--topic",
            "memory-x.md",
            "--text",
            text,
            "--subject",
            subject,
            "--hook",
            "h",
            "--topic-bytes",
            "90",
        ]))
    };
    let first = remember("ünïcödé fact number one with many bytes", "one").ok();
    assert!(
        first.contains("memory-x.md: 3 of 150 lines (147 left), 69 of 90 bytes"),
        "{first}"
    );
    let second = remember("ünïcödé fact number two with many bytes", "two");
    assert_eq!(second.code, 0, "{second:?}");
    // Over by bytes, not by lines: the report says bytes, never "0 lines over".
    assert!(
        second.stdout.contains("(needs judgment: 43 bytes over)"),
        "{second:?}"
    );
    assert!(!second.stdout.contains("0 lines over"), "{second:?}");
    assert!(
        second.stderr.contains("133 of 90 bytes (43 bytes over)"),
        "{second:?}"
    );
}
