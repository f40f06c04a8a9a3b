//! No `memcore` command may leave an index that the next command cannot read (the
//! SessionStart hook above all), and an unfinished change is finished or refused typed.

mod common;

use common::Fixture;

#[test]
fn the_same_source_twice_registers_once_and_every_command_still_reads_the_index() {
    let fx = Fixture::new();
    let source = fx.register("a", "Login", "Fixed it.", &[]);
    let id = fx.register(
        "b",
        "Follow-up",
        "Going on.",
        &["--continues-from", &source, "--continues-from", &source],
    );
    let row = fx.show(&source)["row"].clone();
    assert_eq!(row["referenced_by"], serde_json::json!([id]));
    fx.run(&["agent", "list"]).ok();
    fx.start("hook-agent");
    fx.run(&["agent", "organize", "--dry-run"]).ok();
}

#[test]
fn keywords_that_would_make_the_row_unreadable_exit_2_and_change_nothing() {
    let fx = Fixture::new();
    let id = fx.start("a");
    let before = fx.index();
    let keywords: Vec<String> = (0..20)
        .map(|i| format!("{i}{}", "k".repeat(60_000)))
        .collect();
    // Repeated flags: one argument may not exceed 128 KiB on Linux.
    let mut args = vec!["agent", "update", id.as_str()];
    for k in &keywords {
        args.extend(["--keywords", k.as_str()]);
    }
    let stderr = fx.run(&args).fails(2);
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(fx.index(), before);
    assert!(!fx.root.join("sessions").join(format!("{id}.md")).exists());
    fx.start("hook-agent");
}

#[test]
fn a_journal_that_does_not_parse_stops_writers_naming_it() {
    let fx = Fixture::new();
    fx.start("a");
    let journal = fx.root.join(".memcore.journal");
    std::fs::write(&journal, "{ half a plan").unwrap();
    let before = fx.index();
    for args in [&["agent", "start"][..], &["agent", "list"][..]] {
        let stderr = fx.run(args).fails(5);
        assert!(stderr.contains(".memcore.journal"), "{stderr}");
    }
    assert_eq!(fx.index(), before);
}
