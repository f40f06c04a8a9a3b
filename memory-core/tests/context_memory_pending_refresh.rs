//! `_pending_refresh.md` on disk: appends keep every byte before them, rewrites keep the
//! line ends, a file that does not read is never written, and the last path cleared
//! removes the file.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use memory_core::ErrorKind;
use memory_core::context_memory::{
    RefreshTrigger, append_pending_refresh, clear_pending_refresh, load_pending_refresh,
    read_pending_refresh,
};
use memory_core::durable::MemoryLock;

const SEED_FILE: &str = "---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n# Pending Knowledge Refresh\n\nFiles changed since last knowledge sync:\n\n- src/auth.rs\n\nReview and update memory entries as needed.\n";

fn setup() -> (tempfile::TempDir, MemoryLock, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let lock =
        MemoryLock::acquire(&dir.path().join(".memcore.lock"), Duration::from_secs(5)).unwrap();
    let file = dir.path().join("projects/app/_pending_refresh.md");
    (dir, lock, file)
}

fn write(file: &Path, text: &str) {
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn an_append_to_a_seed_file_keeps_every_byte_before_it() {
    let (_dir, lock, file) = setup();
    write(&file, SEED_FILE);
    let added = append_pending_refresh(
        &lock,
        &file,
        RefreshTrigger::PostCheckout,
        "2026-04-04T09:30:00Z",
        &strings(&["README.md", "README.md", "src/auth.rs"]),
    )
    .unwrap();
    assert_eq!(added.len(), 2, "a path is listed once per run");
    let text = fs::read_to_string(&file).unwrap();
    assert_eq!(
        text,
        format!(
            "{SEED_FILE}\n## Additional changes (post-checkout at 2026-04-04T09:30:00Z)\n\n- README.md\n- src/auth.rs\n"
        )
    );
    // No temp file or journal is left behind.
    let names: Vec<String> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["_pending_refresh.md"]);
    // Nothing to list writes nothing.
    assert!(
        append_pending_refresh(
            &lock,
            &file,
            RefreshTrigger::Manual,
            "2026-04-04T09:30:00Z",
            &[]
        )
        .unwrap()
        .is_empty()
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_new_or_blank_file_is_written_whole_and_private() {
    let (_dir, lock, file) = setup();
    append_pending_refresh(
        &lock,
        &file,
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        &strings(&["src/auth.rs"]),
    )
    .unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), SEED_FILE);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    write(&file, "\n\n");
    append_pending_refresh(
        &lock,
        &file,
        RefreshTrigger::PostMerge,
        "2026-04-03T10:00:00Z",
        &strings(&["src/auth.rs"]),
    )
    .unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), SEED_FILE);
}

/// A hand-written note in the file (the seed's own script appends to such a file too)
/// never stops recording: the section goes after it, every byte before it untouched,
/// and the listing reads every path and names the note's line.
#[test]
fn a_hand_note_never_stops_an_append_and_never_hides_a_path() {
    let (_dir, lock, file) = setup();
    for before in [
        format!("{SEED_FILE}\nNote: reviewed.\n"),
        format!("{SEED_FILE}Note: reviewed."),
        format!("{SEED_FILE}\nNote: reviewed.\n").replace('\n', "\r\n"),
        format!("\u{feff}{SEED_FILE}\n> ✓ vérifié — 確認済み\n"),
        "Note: reviewed.\n".to_string(),
        format!("{SEED_FILE}\n```\nfenced\n```\n\n## Additional changes (rebase at now)\n"),
    ] {
        write(&file, &before);
        append_pending_refresh(
            &lock,
            &file,
            RefreshTrigger::PostMerge,
            "2026-04-04T00:00:00Z",
            &strings(&["x.rs", "ü/y z.md"]),
        )
        .unwrap();
        let after = fs::read_to_string(&file).unwrap();
        assert!(after.starts_with(&before), "{after:?}");
        let nl = if before.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let lead = if before.ends_with('\n') { "" } else { nl };
        assert_eq!(
            &after[before.len()..],
            format!(
                "{lead}{nl}## Additional changes (post-merge at 2026-04-04T00:00:00Z){nl}{nl}- x.rs{nl}- ü/y z.md{nl}"
            )
        );
        let (doc, warnings) = read_pending_refresh(&file).unwrap();
        let paths: Vec<String> = doc.changes().into_iter().map(|c| c.path).collect();
        let want: &[&str] = if before.starts_with("Note") {
            &["x.rs", "ü/y z.md"]
        } else {
            &["src/auth.rs", "x.rs", "ü/y z.md"]
        };
        assert_eq!(paths, want, "{before:?}");
        assert!(!warnings.is_empty());
        assert!(warnings.iter().all(|w| w.path == file && w.line > 0));
        // Appending twice keeps the first append too.
        append_pending_refresh(
            &lock,
            &file,
            RefreshTrigger::Manual,
            "2026-04-05T00:00:00Z",
            &strings(&["x.rs"]),
        )
        .unwrap();
        assert!(fs::read_to_string(&file).unwrap().starts_with(&after));
        assert_eq!(
            read_pending_refresh(&file).unwrap().0.changes().len(),
            want.len() + 1
        );
        fs::remove_file(&file).unwrap();
    }
}

/// Clearing a file with a hand note edits it line by line: only the done `- path` lines
/// (and the heading of a section left empty) go, the note and every other byte stay,
/// and the file stays when no path is left. A file that does not read even leniently is
/// never written.
#[test]
fn clearing_around_a_hand_note_keeps_every_other_line() {
    let (_dir, lock, file) = setup();
    let section = "\n## Additional changes (manual at 2026-04-04T00:00:00Z)\n\n- x.rs\n";
    for (nl, bom) in [("\n", ""), ("\r\n", "\u{feff}")] {
        let text = format!("{bom}{SEED_FILE}\nNote: reviewed — ✓.\n{section}  trailing note  \n")
            .replace('\n', nl);
        write(&file, &text);
        let report = clear_pending_refresh(&lock, &file, &strings(&["x.rs", "nope"])).unwrap();
        assert_eq!(report.cleared, ["x.rs"]);
        assert_eq!(report.not_pending, ["nope"]);
        assert_eq!(report.remaining, 1);
        let want = format!("{bom}{SEED_FILE}\nNote: reviewed — ✓.\n\n  trailing note  \n")
            .replace('\n', nl);
        assert_eq!(fs::read_to_string(&file).unwrap(), want);
        let report = clear_pending_refresh(&lock, &file, &strings(&["src/auth.rs"])).unwrap();
        assert_eq!((report.remaining, report.removed_file), (0, false));
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("- src/auth.rs") && text.contains("Note: reviewed — ✓."),
            "{text:?}"
        );
        let (doc, warnings) = read_pending_refresh(&file).unwrap();
        assert!(doc.is_empty());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        // Nothing to clear: nothing written.
        let before = fs::read(&file).unwrap();
        let report = clear_pending_refresh(&lock, &file, &strings(&["src/auth.rs"])).unwrap();
        assert!(report.cleared.is_empty());
        assert_eq!(fs::read(&file).unwrap(), before);
    }
    // A frontmatter without a readable trigger is refused by both readers.
    let bad = "---\ntrigger: sometimes\ntimestamp: 2026-04-03T10:00:00Z\n---\n\n- a\n";
    write(&file, bad);
    let err = clear_pending_refresh(&lock, &file, &strings(&["a"])).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.line(), Some(2));
    assert_eq!(err.path(), Some(file.as_path()));
    assert_eq!(fs::read_to_string(&file).unwrap(), bad);
    // The hooks still record into it (after every byte), as the seed's script would;
    // the listing keeps naming the broken line until it is fixed.
    append_pending_refresh(
        &lock,
        &file,
        RefreshTrigger::PostMerge,
        "2026-04-04T00:00:00Z",
        &strings(&["y"]),
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        format!("{bad}\n## Additional changes (post-merge at 2026-04-04T00:00:00Z)\n\n- y\n")
    );
    assert_eq!(read_pending_refresh(&file).unwrap_err().line(), Some(2));
    // Binary junk is neither read nor appended to.
    fs::write(&file, b"---\n\xff\x00\n").unwrap();
    assert_eq!(
        load_pending_refresh(&file).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    assert_eq!(
        read_pending_refresh(&file).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let err = append_pending_refresh(
        &lock,
        &file,
        RefreshTrigger::Manual,
        "2026-04-04T00:00:00Z",
        &strings(&["x"]),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(fs::read(&file).unwrap(), b"---\n\xff\x00\n");
}

#[test]
fn clearing_rewrites_in_place_and_removes_the_file_at_the_end() {
    let (_dir, lock, file) = setup();
    let crlf = format!(
        "{}\r\n## Additional changes (manual at 2026-04-04T00:00:00Z)\r\n\r\n- b\r\n- a\r\n",
        SEED_FILE.replace('\n', "\r\n").replace("src/auth.rs", "a")
    );
    write(&file, &crlf);
    let report = clear_pending_refresh(&lock, &file, &strings(&["zzz"])).unwrap();
    assert!(report.cleared.is_empty());
    assert_eq!(report.not_pending, ["zzz"]);
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        crlf,
        "nothing to clear: untouched"
    );
    let report = clear_pending_refresh(&lock, &file, &strings(&["a"])).unwrap();
    assert_eq!(report.cleared, ["a"]);
    assert_eq!(report.remaining, 1);
    let text = fs::read_to_string(&file).unwrap();
    assert_eq!(
        text,
        "---\r\ntrigger: manual\r\ntimestamp: 2026-04-04T00:00:00Z\r\n---\r\n\r\n# Pending Knowledge Refresh\r\n\r\nFiles changed since last knowledge sync:\r\n\r\n- b\r\n\r\nReview and update memory entries as needed.\r\n"
    );
    let report = clear_pending_refresh(&lock, &file, &strings(&["b"])).unwrap();
    assert!(report.removed_file);
    assert!(!file.exists());
    // Clearing a file that is not there is a no-op.
    let report = clear_pending_refresh(&lock, &file, &strings(&["b"])).unwrap();
    assert_eq!(report.not_pending, ["b"]);
    assert!(!report.removed_file);
}
