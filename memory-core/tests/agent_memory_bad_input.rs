//! Contract 7 (no panic on any input): malformed files and hostile arguments give a
//! typed error naming the file and line, and leave every file untouched.

mod support;

use memory_core::{ErrorKind, ManualRegistration, OrganizeOptions, SessionUpdate};
use support::Fixture;

const HEADER: &str = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n";

/// Runs every operation against a memory whose index holds `index`; each must fail with
/// `kind` (at `line` when given) and leave the tree byte-identical.
fn every_operation_refuses(index: &[u8], kind: ErrorKind, line: Option<usize>) {
    let f = Fixture::new();
    std::fs::create_dir_all(f.root()).unwrap();
    std::fs::write(f.index(), index).unwrap();
    let before = f.tree();
    let err = f.memory.register_session_start("a").unwrap_err();
    assert_eq!(err.kind(), kind, "SessionStart: {err}");
    assert_eq!(err.path(), Some(f.index().as_path()));
    if line.is_some() {
        assert_eq!(err.line(), line, "SessionStart: {err}");
    }
    every_other_operation_refuses(&f, kind, line);
    assert_eq!(f.tree(), before, "nothing was written");
}

/// A malformed *row*: SessionStart registers beside it (warning about that line), every
/// other operation refuses with `kind` at `line`.
fn every_operation_but_session_start_refuses(index: &[u8], kind: ErrorKind, line: usize) {
    let f = Fixture::new();
    std::fs::create_dir_all(f.root()).unwrap();
    std::fs::write(f.index(), index).unwrap();
    let before = f.tree();
    every_other_operation_refuses(&f, kind, Some(line));
    assert_eq!(f.tree(), before, "nothing was written");
    let start = f.memory.register_session_start_with_warnings("a").unwrap();
    assert_eq!(start.warnings.len(), 1, "{:?}", start.warnings);
    assert_eq!(start.warnings[0].line, line);
    assert_eq!(start.warnings[0].path, f.index());
    let after = std::fs::read(f.index()).unwrap();
    assert!(after.starts_with(index), "the bad row stays byte-identical");
}

fn every_other_operation_refuses(f: &Fixture, kind: ErrorKind, line: Option<usize>) {
    let m = &f.memory;
    let results = [
        m.register_manual(ManualRegistration::new("a", "T", "S"))
            .map(|_| ()),
        m.update("s-1", SessionUpdate::new().summary("x"))
            .map(|_| ()),
        m.continue_from("s-1", "s-2").map(|_| ()),
        m.release("s-1", "s-2").map(|_| ()),
        m.organize(OrganizeOptions::default()).map(|_| ()),
        m.archive("s-1").map(|_| ()),
        m.sessions().map(|_| ()),
        m.session("s-1").map(|_| ()),
    ];
    for (i, result) in results.into_iter().enumerate() {
        let err = result.expect_err("a malformed index must be refused");
        assert_eq!(err.kind(), kind, "operation {i}: {err}");
        assert_eq!(
            err.path(),
            Some(f.index().as_path()),
            "operation {i} names the file"
        );
        if line.is_some() {
            assert_eq!(err.line(), line, "operation {i}: {err}");
        }
        assert!(err.to_string().contains("index.md"), "{err}");
    }
}

#[test]
fn a_header_with_other_columns_is_malformed() {
    every_operation_refuses(
        b"# x\n\n| Session ID | Topic |\n|---|---|\n| s-1 | T |\n",
        ErrorKind::Malformed,
        Some(3),
    );
}

#[test]
fn a_header_without_delimiter_row_is_malformed() {
    let index = HEADER.lines().next().unwrap().to_string()
        + "\n| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n";
    every_operation_refuses(index.as_bytes(), ErrorKind::Malformed, Some(2));
}

#[test]
fn a_row_with_missing_cells_is_malformed() {
    let index = format!(
        "{HEADER}| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n| s-2 | a | T | S |\n"
    );
    every_operation_but_session_start_refuses(index.as_bytes(), ErrorKind::Malformed, 4);
}

#[test]
fn an_unknown_status_is_malformed() {
    let index = format!("{HEADER}| s-1 | a | T | S | k | closed | - | 2026-05-01 | 2026-05-01 |\n");
    every_operation_but_session_start_refuses(index.as_bytes(), ErrorKind::Malformed, 3);
}

#[test]
fn an_unreadable_timestamp_is_malformed() {
    let index = format!("{HEADER}| s-1 | a | T | S | k | idle | - | last tuesday | 2026-05-01 |\n");
    every_operation_but_session_start_refuses(index.as_bytes(), ErrorKind::Malformed, 3);
}

#[test]
fn duplicate_ids_are_a_conflict() {
    let row = "| s-1 | a | T | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n";
    every_operation_but_session_start_refuses(
        format!("{HEADER}{row}{row}").as_bytes(),
        ErrorKind::Conflict,
        4,
    );
}

#[test]
fn binary_junk_is_malformed() {
    let mut junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    junk.extend_from_slice(HEADER.as_bytes());
    every_operation_refuses(&junk, ErrorKind::Malformed, None);
}

#[test]
fn invalid_utf8_names_its_line() {
    let mut index = HEADER.as_bytes().to_vec();
    index.extend_from_slice(
        b"| s-1 | a | \xff\xfe | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n",
    );
    every_operation_refuses(&index, ErrorKind::Malformed, Some(3));
}

#[test]
fn a_ten_megabyte_row_is_malformed() {
    // A row over the line limit is a malformed row like any other: SessionStart goes on
    // past it; prose over the limit before the table (below) still stops every command.
    let index = format!(
        "{HEADER}| s-1 | a | {} | S | k | idle | - | 2026-05-01 | 2026-05-01 |\n",
        "x".repeat(10 << 20)
    );
    every_operation_but_session_start_refuses(index.as_bytes(), ErrorKind::Malformed, 3);
}

#[test]
fn a_ten_megabyte_line_of_prose_is_malformed_too() {
    let index = format!("{}\n\n{HEADER}", "y".repeat(10 << 20));
    every_operation_refuses(index.as_bytes(), ErrorKind::Malformed, Some(1));
}

#[test]
fn hostile_ids_are_refused_before_any_file_is_touched() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let before = f.tree();
    let outside = f.dir.path().join("outside.md");
    let absolute = outside.to_string_lossy().into_owned();
    for hostile in [
        "../x",
        "../../etc/passwd",
        absolute.as_str(),
        "a\0b",
        "",
        ".",
        "..",
        "a/b",
        "a\\b",
        "a, b",
        ".hidden",
        "-flag",
    ] {
        let m = &f.memory;
        let results = [
            m.update(hostile, SessionUpdate::new().summary("x"))
                .map(|_| ()),
            m.continue_from(id.as_str(), hostile).map(|_| ()),
            m.continue_from(hostile, id.as_str()).map(|_| ()),
            m.release(hostile, id.as_str()).map(|_| ()),
            m.archive(hostile).map(|_| ()),
            m.session(hostile).map(|_| ()),
            m.snapshot(hostile).map(|_| ()),
            m.register_session_start(hostile).map(|_| ()),
        ];
        for result in results {
            assert_eq!(
                result.unwrap_err().kind(),
                ErrorKind::InvalidInput,
                "{hostile:?}"
            );
        }
    }
    assert_eq!(f.tree(), before);
    assert!(!outside.exists());
}

#[test]
fn a_symlinked_sessions_directory_is_refused() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    let elsewhere = f.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&elsewhere, f.root().join("sessions")).unwrap();
    #[cfg(unix)]
    {
        let err = f
            .memory
            .update(id.as_str(), SessionUpdate::new().summary("x"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(
            std::fs::read_dir(&elsewhere).unwrap().count(),
            0,
            "nothing written through the link"
        );
    }
}

#[test]
fn oversized_and_control_character_values_are_refused() {
    let f = Fixture::new();
    let id = f.memory.register_session_start("a").unwrap();
    let before = f.tree();
    let huge = "x".repeat(70 * 1024);
    for update in [
        SessionUpdate::new().summary(huge.clone()),
        SessionUpdate::new().topic("bell\u{7}"),
        SessionUpdate::new().decision("nul\0"),
        SessionUpdate::new().keywords(["a,b"]),
    ] {
        assert_eq!(
            f.memory.update(id.as_str(), update).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    assert_eq!(f.tree(), before);
}

#[test]
fn a_malformed_snapshot_is_refused_by_update_and_left_alone() {
    let f = Fixture::new();
    let id = f
        .memory
        .register_manual(ManualRegistration::new("a", "T", "S."))
        .unwrap();
    let path = f.memory.session_path(id.as_str()).unwrap();
    std::fs::write(
        &path,
        b"# Session\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Topic |\n",
    )
    .unwrap();
    let before = f.tree();
    let err = f
        .memory
        .update(id.as_str(), SessionUpdate::new().decision("x"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.path(), Some(path.as_path()));
    assert_eq!(err.line(), Some(7));
    assert_eq!(f.tree(), before);
}

#[test]
fn a_root_that_is_a_file_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory");
    std::fs::write(&file, "not a directory").unwrap();
    let err = memory_core::AgentMemory::open(&file).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}
