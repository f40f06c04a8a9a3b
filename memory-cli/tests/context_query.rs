//! `memcore context query` and `memcore context namespaces` on a real root.

mod common;

use std::path::Path;

use common::{command, run};

fn root_with_index(dir: &Path) {
    let ns = dir.join("org/global");
    std::fs::create_dir_all(&ns).unwrap();
    std::fs::write(
        ns.join("_index.md"),
        "# Index: org.global\n\n| Entity | Category | Summary | Tags | Status | File |\n|---|---|---|---|---|---|\n\
         | org.global.decision.001 | decision | Auth uses JWT | auth, security | accepted | decision-001-auth-flow.md |\n\
         | org.global.decision.002 | decision | Auth used cookies | auth, legacy | superseded | decision-002-cookies.md |\n",
    )
    .unwrap();
}

#[test]
fn query_prints_hits_and_json_carries_the_fields() {
    let dir = tempfile::tempdir().unwrap();
    root_with_index(dir.path());
    let out =
        run(command(dir.path()).args(["--root", ".", "context", "query", "--tags", "auth"])).ok();
    assert_eq!(
        out,
        "org.global.decision.001  accepted  Auth uses JWT — org/global/decision-001-auth-flow.md [auth, security]\n"
    );
    let value =
        run(command(dir.path()).args(["--root", ".", "--json", "context", "query", "--history"]))
            .json();
    let hits = value.as_array().unwrap();
    assert_eq!(hits.len(), 2);
    for key in [
        "entity_name",
        "namespace",
        "category",
        "status",
        "tags",
        "summary",
        "file",
    ] {
        assert!(hits[0].get(key).is_some(), "{key}");
    }
    assert_eq!(hits[1]["status"], "superseded");
}

#[test]
fn the_root_comes_from_the_environment_then_home() {
    let dir = tempfile::tempdir().unwrap();
    root_with_index(dir.path());
    let value = run(command(dir.path())
        .env("MEMCORE_CONTEXT_ROOT", dir.path())
        .args(["--json", "context", "namespaces"]))
    .json();
    assert_eq!(value[0]["namespace"], "org.global");
    let home = tempfile::tempdir().unwrap();
    root_with_index(&home.path().join(".cursor/memory"));
    let value = run(command(dir.path())
        .env_remove("MEMCORE_CONTEXT_ROOT")
        .env("HOME", home.path())
        .args(["--json", "context", "namespaces"]))
    .json();
    assert_eq!(value[0]["dir"], "org/global");
}

#[test]
fn bad_filters_are_usage_errors_naming_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let stderr =
        run(command(dir.path()).args(["--root", ".", "context", "query", "--category", "note"]))
            .fails(2);
    assert!(stderr.contains("\"note\""), "{stderr}");
    let stderr = run(command(dir.path()).args([
        "--root",
        ".",
        "context",
        "query",
        "--namespace",
        "project../x",
    ]))
    .fails(2);
    assert!(stderr.contains("namespace"), "{stderr}");
}
