//! Runs the cross-language conformance corpus in `tests/corpus/` against the Rust core:
//! the Agent Memory cases (`tests/corpus/<case>/`), the context-memory cases
//! (`tests/corpus/context/<case>/`) and the structured-memory cases
//! (`tests/corpus/structured/<case>/`). The Python and Node suites run the same cases; see
//! `tests/corpus/README.md`. `MEMCORE_BLESS=1` rewrites each case's `expected/` tree
//! from the run (review the diff).

mod corpus_ops;
mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use corpus_ops::{arg, string, strings, to_json};
use memory_core::context_memory::ContextMemory;
use memory_core::durable::FixedClock;
use memory_core::structured_memory::{
    Budgets, INDEX_LINE_BUDGET, StructuredMemory, TOPIC_LINE_BUDGET,
};
use memory_core::{AgentMemory, ManualRegistration, OrganizeOptions, SessionUpdate};
use serde_json::{Value, json};
use support::tree_of;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

fn run_agent_op(memory: &AgentMemory, op: &str, args: &Value) -> memory_core::Result<Value> {
    Ok(match op {
        "register_session_start" => to_json(memory.register_session_start(&arg(args, "agent"))?),
        "register_manual" => {
            let mut reg = ManualRegistration::new(
                arg(args, "agent_name"),
                arg(args, "topic"),
                arg(args, "summary"),
            );
            if args.get("keywords").is_some() {
                reg = reg.keywords(strings(args, "keywords"));
            }
            reg.snapshot = update_of(args);
            reg.continues_from = strings(args, "continues_from");
            to_json(memory.register_manual(reg)?)
        }
        "update" => to_json(memory.update(&arg(args, "session_id"), update_of(args))?),
        "continue_from" => {
            to_json(memory.continue_from(&arg(args, "current"), &arg(args, "source"))?)
        }
        "release" => to_json(memory.release(&arg(args, "current"), &arg(args, "source"))?),
        "organize" => {
            let mut options = OrganizeOptions::default();
            if let Some(days) = args.get("stale_after_days").and_then(Value::as_u64) {
                options = options.stale_after_days(u32::try_from(days).expect("days fit u32"));
            }
            if let Some(dry_run) = args.get("dry_run").and_then(Value::as_bool) {
                options = options.dry_run(dry_run);
            }
            to_json(memory.organize(options)?)
        }
        "archive" => to_json(memory.archive(&arg(args, "session_id"))?),
        "sessions" => to_json(memory.sessions()?),
        "session" => to_json(memory.session(&arg(args, "session_id"))?),
        "snapshot" => to_json(memory.snapshot(&arg(args, "session_id"))?),
        "find" => to_json(memory.find(&arg(args, "query"))?),
        other => panic!("unknown corpus op {other}"),
    })
}

fn update_of(args: &Value) -> SessionUpdate {
    let mut update = SessionUpdate::new();
    update.topic = string(args, "topic");
    update.summary = string(args, "summary");
    update.keywords = args.get("keywords").map(|_| strings(args, "keywords"));
    update.context = string(args, "context");
    update.decisions = strings(args, "decisions");
    update.files = strings(args, "files");
    update.open_questions = strings(args, "open_questions");
    update.next_actions = strings(args, "next_actions");
    update.supersede = strings(args, "supersede");
    update.resolve = strings(args, "resolve");
    update.done = strings(args, "done");
    update
}

/// Whether `actual` matches `expected`: objects by the keys given, the rest by equality.
fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|av| matches(v, av))),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y))
        }
        _ => expected == actual,
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree_of(from) {
        let target = to.join(rel);
        std::fs::create_dir_all(target.parent().expect("has parent")).expect("mkdir");
        std::fs::write(target, bytes).expect("write");
    }
}

/// The model a case runs against.
#[derive(Clone, Copy)]
enum Model {
    Agent,
    Context,
    Structured,
}

/// Opens the case's root with a clock stopped at `clock` and runs one step; `budgets`
/// is the case's `budgets` object (structured-memory cases): the result, and the
/// warnings the step gave (`{path, line, message}`).
fn run_step(
    model: Model,
    root: &Path,
    clock: Arc<FixedClock>,
    op: &str,
    args: &Value,
    budgets: &Value,
) -> Result<memory_core::Result<(Value, Vec<Value>)>, String> {
    Ok(match model {
        Model::Agent => {
            let memory = AgentMemory::builder(root)
                .clock(clock)
                .open()
                .map_err(|e| e.to_string())?;
            run_agent_op(&memory, op, args).map(|v| (v, Vec::new()))
        }
        Model::Context => {
            let memory = ContextMemory::builder(root)
                .clock(clock)
                .open()
                .map_err(|e| e.to_string())?;
            corpus_ops::context::run_op(&memory, op, args).map(|v| (v, Vec::new()))
        }
        Model::Structured => {
            let n = |key: &str, default: usize| {
                budgets
                    .get(key)
                    .and_then(Value::as_u64)
                    .map_or(default, |v| usize::try_from(v).expect("fits"))
            };
            let memory = StructuredMemory::builder(root)
                .clock(clock)
                .budgets(
                    Budgets::default()
                        .index_lines(n("index_lines", INDEX_LINE_BUDGET))
                        .topic_lines(n("topic_lines", TOPIC_LINE_BUDGET)),
                )
                .open()
                .map_err(|e| e.to_string())?;
            corpus_ops::structured::run_op(&memory, op, args)
        }
    })
}

/// `value` with every string that is a path under `root` made relative to it (POSIX
/// separators), so that results naming files compare across machines.
fn relative_to(root: &Path, value: Value) -> Value {
    let prefix = format!("{}{}", root.display(), std::path::MAIN_SEPARATOR);
    match value {
        Value::String(s) => match s.strip_prefix(&prefix) {
            Some(rest) => Value::String(rest.replace('\\', "/")),
            None => Value::String(s),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|v| relative_to(root, v)).collect()),
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, relative_to(root, v)))
                .collect(),
        ),
        other => other,
    }
}

/// Whether `actual` (`{path, line, message}` values, paths relative to the root) are the
/// step's `expect.warnings` (none when it has none), in order: each with its `path`,
/// `line`, and a `message` containing `contains`.
fn warnings_match(expected: Option<&Value>, actual: &Value) -> bool {
    let none = Vec::new();
    let expected = expected.and_then(Value::as_array).unwrap_or(&none);
    let actual = actual.as_array().unwrap_or(&none);
    expected.len() == actual.len()
        && expected.iter().zip(actual).all(|(e, a)| {
            e["path"] == a["path"]
                && e["line"] == a["line"]
                && a["message"]
                    .as_str()
                    .zip(e["contains"].as_str())
                    .is_some_and(|(m, c)| m.contains(c))
        })
}

fn run_case(model: Model, case: &Path) -> Result<(), String> {
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).expect("case.json"))
            .map_err(|e| format!("case.json: {e}"))?;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("memory");
    std::fs::create_dir_all(&root).expect("mkdir");
    copy_tree(&case.join("before"), &root);
    let mut now = arg(&spec, "now");
    for (i, step) in spec["steps"].as_array().expect("steps").iter().enumerate() {
        now = string(step, "now").unwrap_or(now);
        let clock =
            Arc::new(FixedClock::parse(&now).ok_or_else(|| format!("step {i}: bad now {now}"))?);
        let before = tree_of(&root);
        let op = arg(step, "op");
        let result = run_step(model, &root, clock, &op, &step["args"], &spec["budgets"])?;
        let expect = &step["expect"];
        let at = format!("step {i} ({op})");
        match (result, expect.get("error")) {
            (Ok((value, warnings)), None) => {
                let value = relative_to(&root, value);
                if let Some(expected) = expect.get("value").filter(|e| !matches(e, &value)) {
                    return Err(format!("{at}: expected {expected}, got {value}"));
                }
                let warnings = relative_to(&root, Value::Array(warnings));
                if !warnings_match(expect.get("warnings"), &warnings) {
                    return Err(format!(
                        "{at}: expected warnings {}, got {warnings}",
                        expect.get("warnings").unwrap_or(&json!([]))
                    ));
                }
            }
            (Ok((value, _)), Some(error)) => {
                return Err(format!("{at}: expected error {error}, got {value}"));
            }
            (Err(err), None) => return Err(format!("{at}: unexpected error {err}")),
            (Err(err), Some(error)) => {
                let actual = json!({
                    "kind": err.kind().as_str(),
                    "line": err.line(),
                    "path": err.path().map(|p| p.to_string_lossy().into_owned()),
                    "id": err.id(),
                    "field": err.field(),
                    "secret_kind": err.secret_kind(),
                });
                let kind_ok = error["kind"] == actual["kind"];
                let details_ok = ["id", "field", "secret_kind"]
                    .iter()
                    .all(|key| error.get(*key).is_none_or(|v| *v == actual[*key]));
                let line_ok = error.get("line").is_none_or(|l| *l == actual["line"]);
                let path_ok = error
                    .get("path_ends_with")
                    .and_then(Value::as_str)
                    .is_none_or(|suffix| {
                        actual["path"]
                            .as_str()
                            .is_some_and(|p| p.replace('\\', "/").ends_with(suffix))
                    });
                if !(kind_ok && line_ok && path_ok && details_ok) {
                    return Err(format!(
                        "{at}: expected error {error}, got {actual} ({err})"
                    ));
                }
            }
        }
        if expect.get("unchanged").and_then(Value::as_bool) == Some(true)
            && tree_of(&root) != before
        {
            return Err(format!(
                "{at}: files changed but the step must leave them unchanged"
            ));
        }
    }
    let expected_dir = case.join("expected");
    if std::env::var_os("MEMCORE_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&expected_dir);
        copy_tree(&root, &expected_dir);
        return Ok(());
    }
    let (actual, expected) = (tree_of(&root), tree_of(&expected_dir));
    for (path, bytes) in &expected {
        match actual.get(path) {
            None => return Err(format!("missing file {}", path.display())),
            Some(a) if a != bytes => {
                return Err(format!(
                    "{} differs:\n--- expected\n{}\n--- actual\n{}",
                    path.display(),
                    String::from_utf8_lossy(bytes),
                    String::from_utf8_lossy(a)
                ));
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = actual.keys().find(|p| !expected.contains_key(*p)) {
        return Err(format!("unexpected file {}", extra.display()));
    }
    Ok(())
}

/// Runs every case under `dir` (the directories holding a `case.json`) against `model`.
fn run_cases(model: Model, dir: &Path, at_least: usize) {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the corpus directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= at_least, "the corpus holds its cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(model, case).err().map(|e| {
                format!(
                    "{}: {e}",
                    case.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} corpus case(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_whole_corpus_passes() {
    run_cases(Model::Agent, &corpus_dir(), 5);
}

#[test]
fn the_whole_structured_corpus_passes() {
    run_cases(Model::Structured, &corpus_dir().join("structured"), 4);
}

#[test]
fn the_whole_context_corpus_passes() {
    run_cases(Model::Context, &corpus_dir().join("context"), 12);
}
