//! Where memcore looks for memory: `--root`, else `MEMCORE_ROOT`, else `./memory`; and
//! the global options before or after the subcommand.

mod common;

use std::path::Path;

use common::{command, run};
use serde_json::Value;

/// The ids in the index under `root`, read with `memcore --root`.
fn ids_in(cwd: &Path, root: &Path) -> Vec<String> {
    let value: Value = serde_json::from_str(
        &run(command(cwd)
            .args(["agent", "list", "--json", "--root"])
            .arg(root))
        .ok(),
    )
    .unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["session_id"].as_str().unwrap().to_string())
        .collect()
}

fn started_id(stdout: &str) -> String {
    stdout
        .strip_prefix("Your Memory Session ID is: ")
        .and_then(|s| s.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"))
        .to_string()
}

#[test]
fn default_root_is_memory_in_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let id = started_id(&run(command(dir.path()).args(["agent", "start"])).ok());
    let index = std::fs::read_to_string(dir.path().join("memory/index.md")).unwrap();
    assert!(index.contains(&format!("| {id} |")), "{index}");
    assert_eq!(ids_in(dir.path(), &dir.path().join("memory")), [id]);
}

#[test]
fn memcore_root_env_is_used_without_root_option() {
    let dir = tempfile::tempdir().unwrap();
    let env_root = dir.path().join("from-env");
    let id = started_id(
        &run(command(dir.path())
            .env("MEMCORE_ROOT", &env_root)
            .args(["agent", "start"]))
        .ok(),
    );
    assert_eq!(ids_in(dir.path(), &env_root), [id]);
    assert!(!dir.path().join("memory").exists());
}

#[test]
fn empty_memcore_root_env_falls_back_to_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let id = started_id(
        &run(command(dir.path())
            .env("MEMCORE_ROOT", "")
            .args(["agent", "start"]))
        .ok(),
    );
    assert_eq!(ids_in(dir.path(), &dir.path().join("memory")), [id]);
}

#[test]
fn root_option_wins_over_memcore_root_env() {
    let dir = tempfile::tempdir().unwrap();
    let env_root = dir.path().join("from-env");
    let opt_root = dir.path().join("from-option");
    let id = started_id(
        &run(command(dir.path())
            .env("MEMCORE_ROOT", &env_root)
            .args(["agent", "start", "--root"])
            .arg(&opt_root))
        .ok(),
    );
    assert_eq!(ids_in(dir.path(), &opt_root), [id]);
    assert!(!env_root.exists());
    assert!(!dir.path().join("memory").exists());
}

#[test]
fn relative_root_is_taken_from_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    let id =
        started_id(&run(command(dir.path()).args(["--root", "rel/mem", "agent", "start"])).ok());
    assert_eq!(ids_in(dir.path(), &dir.path().join("rel/mem")), [id]);
}

#[test]
fn global_options_work_before_between_and_after_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mem");
    let root = root.to_str().unwrap();
    let layouts: [&[&str]; 4] = [
        &["--root", root, "--json", "agent", "start"],
        &["agent", "--json", "--root", root, "start"],
        &["agent", "start", "--json", "--root", root],
        &["--json", "agent", "start", "--root", root],
    ];
    let mut ids = Vec::new();
    for args in layouts {
        let stdout = run(command(dir.path()).args(args)).ok();
        let value: Value = serde_json::from_str(&stdout).unwrap();
        ids.push(value["session_id"].as_str().unwrap().to_string());
    }
    let mut listed = ids_in(dir.path(), Path::new(root));
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids);
    assert!(!dir.path().join("memory").exists());
}
