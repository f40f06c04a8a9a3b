//! How the conformance runner (`conformance.rs`) calls each model's corpus ops: the
//! arguments of a step, by the names the Python binding takes, read into core types.

pub mod context;
pub mod structured;

use serde_json::Value;

/// The string list `args[key]` (empty when absent).
pub fn strings(args: &Value, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The string `args[key]`, when present.
pub fn string(args: &Value, key: &str) -> Option<String> {
    args.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The required string `args[key]`; a case without it is a broken case.
pub fn arg(args: &Value, key: &str) -> String {
    string(args, key).unwrap_or_else(|| panic!("missing argument {key} in {args}"))
}

/// Fails the case when `args` has a key `op` does not take (a misspelt argument would
/// otherwise be dropped silently).
pub fn only(op: &str, args: &Value, allowed: &[&str]) {
    if let Some(object) = args.as_object()
        && let Some(bad) = object.keys().find(|k| !allowed.contains(&k.as_str()))
    {
        panic!("corpus op {op} takes no argument {bad} (it takes {allowed:?})");
    }
}

/// A core result as JSON, as the core serializes it.
pub fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("core results serialize")
}
