//! The structured-memory corpus ops, by the names and arguments the Python binding takes:
//! `remember {topic, text, subject?, date?, title?, hook?}`, `index {}`, `topic {file}`,
//! `recall {query}`, `check {}`, `compact {file?, dry_run?}` (the default compactor),
//! `restore {id}`. Budgets come from the case's `budgets` (`index_lines`, `topic_lines`).
//! `recall` also gives its warnings (what `memcore topics recall` prints on stderr, what
//! Python emits as `MemoryCoreWarning`s and Node as process warnings), checked against
//! the step's `expect.warnings`.

use memory_core::structured_memory::{DefaultCompactor, Fact, StructuredMemory};
use serde_json::Value;

use super::{arg, only, string, to_json};

/// Runs one op: its result, and the warnings it gives (`{path, line, message}`).
pub fn run_op(
    memory: &StructuredMemory,
    op: &str,
    args: &Value,
) -> memory_core::Result<(Value, Vec<Value>)> {
    if op == "recall" {
        only(op, args, &["query"]);
        let (hits, warnings) = memory.recall_with_warnings(&arg(args, "query"))?;
        let warnings = warnings
            .into_iter()
            .map(|w| serde_json::json!({"path": w.path, "line": w.line, "message": w.message}))
            .collect();
        return Ok((to_json(hits), warnings));
    }
    Ok((run_plain_op(memory, op, args)?, Vec::new()))
}

/// Runs one op that gives no warnings.
fn run_plain_op(memory: &StructuredMemory, op: &str, args: &Value) -> memory_core::Result<Value> {
    Ok(match op {
        "remember" => {
            only(
                op,
                args,
                &["topic", "text", "subject", "date", "title", "hook"],
            );
            let mut fact = Fact::new(arg(args, "topic"), arg(args, "text"));
            if let Some(s) = string(args, "subject") {
                fact = fact.subject(s);
            }
            if let Some(d) = string(args, "date") {
                fact = fact.date(d);
            }
            if let Some(t) = string(args, "title") {
                fact = fact.title(t);
            }
            if let Some(h) = string(args, "hook") {
                fact = fact.hook(h);
            }
            to_json(memory.remember(fact)?)
        }
        "index" => {
            only(op, args, &[]);
            to_json(memory.index()?)
        }
        "topic" => {
            only(op, args, &["file"]);
            to_json(memory.topic(&arg(args, "file"))?)
        }
        "check" => {
            only(op, args, &[]);
            to_json(memory.check()?)
        }
        "compact" => {
            only(op, args, &["file", "dry_run"]);
            let dry_run = args
                .get("dry_run")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            to_json(memory.compact(string(args, "file").as_deref(), &DefaultCompactor, dry_run)?)
        }
        "restore" => {
            only(op, args, &["id"]);
            to_json(memory.restore(&arg(args, "id"))?)
        }
        other => panic!("unknown structured corpus op {other}"),
    })
}
