//! The context-memory corpus ops (`tests/corpus/context/`): `ContextMemory` methods by
//! their Python names, with the Python binding's argument names.

use memory_core::context_memory::{
    Category, ContextMemory, Diagram, EntityName, EntryPatch, EntryStatus, Namespace, NewEntry,
    Query, SplitPlan,
};
use serde_json::Value;

use super::{arg, only, string, strings, to_json};

const ENTRY_ARGS: &[&str] = &[
    "namespace",
    "category",
    "tags",
    "body",
    "status",
    "summary",
    "slug",
    "rationale",
    "confidence",
    "source_path",
    "supersedes",
    "related",
    "diagram",
    "force_new",
];

/// Runs corpus op `op` with `args` on `memory`.
pub fn run_op(memory: &ContextMemory, op: &str, args: &Value) -> memory_core::Result<Value> {
    let allowed: Vec<&str> = match op {
        "write" => ENTRY_ARGS.to_vec(),
        "supersede" => [&["old"][..], ENTRY_ARGS].concat(),
        "get" | "promote" => vec!["name"],
        "update" => vec![
            "name",
            "status",
            "tags",
            "summary",
            "body",
            "rationale",
            "confidence",
            "source_path",
        ],
        "query" => vec!["namespaces", "category", "tags", "text", "history", "limit"],
        "promote_to" => vec!["name", "namespace"],
        "verify" | "heal" | "pending_refresh" => vec!["namespace"],
        "namespaces" => vec![],
        "split" => vec!["namespace", "mapping"],
        "end_session" => vec!["promote"],
        other => panic!("unknown context corpus op {other}"),
    };
    only(op, args, &allowed);
    Ok(match op {
        "write" => to_json(memory.write(new_entry(args)?)?),
        "supersede" => to_json(memory.supersede(&arg(args, "old"), new_entry(args)?)?),
        "get" => to_json(memory.get(&arg(args, "name"))?),
        "promote" => to_json(memory.promote(&arg(args, "name"))?),
        "update" => to_json(memory.update(&arg(args, "name"), patch(args)?)?),
        "query" => to_json(memory.query(&query(args)?)?),
        "promote_to" => to_json(memory.promote_to(&arg(args, "name"), &arg(args, "namespace"))?),
        "verify" => to_json(memory.verify(&namespace(args)?)?),
        "heal" => to_json(memory.heal(&namespace(args)?)?),
        "pending_refresh" => to_json(memory.pending_refresh(&namespace(args)?)?),
        "namespaces" => to_json(memory.namespaces()?),
        "split" => {
            let plan = match args.get("mapping").and_then(Value::as_object) {
                None => SplitPlan::by_tag(),
                Some(mapping) => SplitPlan::mapping(mapping.iter().map(|(name, domain)| {
                    (
                        name.clone(),
                        domain
                            .as_str()
                            .expect("split domains are strings")
                            .to_string(),
                    )
                }))?,
            };
            to_json(memory.split(&namespace(args)?, &plan)?)
        }
        "end_session" => {
            let pairs: Vec<(String, String)> = args
                .get("promote")
                .and_then(Value::as_array)
                .map(|pairs| {
                    pairs
                        .iter()
                        .map(|pair| match pair.as_array().map(Vec::as_slice) {
                            Some([Value::String(name), Value::String(ns)]) => {
                                (name.clone(), ns.clone())
                            }
                            _ => panic!("end_session promote pairs are [name, namespace]: {pair}"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            to_json(memory.end_session(&pairs)?)
        }
        _ => unreachable!("checked above"),
    })
}

fn namespace(args: &Value) -> memory_core::Result<Namespace> {
    Namespace::parse(&arg(args, "namespace"))
}

fn names(args: &Value, key: &str) -> memory_core::Result<Vec<EntityName>> {
    strings(args, key)
        .iter()
        .map(|name| EntityName::parse(name))
        .collect()
}

fn new_entry(args: &Value) -> memory_core::Result<NewEntry> {
    let category: Category = arg(args, "category").parse()?;
    let mut entry = NewEntry::new(
        &arg(args, "namespace"),
        category,
        strings(args, "tags"),
        arg(args, "body"),
    )?;
    if let Some(status) = string(args, "status") {
        entry = entry.status(status.parse::<EntryStatus>()?);
    }
    if let Some(summary) = string(args, "summary") {
        entry = entry.summary(summary);
    }
    if let Some(slug) = string(args, "slug") {
        entry = entry.slug(slug);
    }
    if let Some(rationale) = string(args, "rationale") {
        entry = entry.rationale(rationale);
    }
    if let Some(confidence) = args.get("confidence").and_then(Value::as_f64) {
        entry = entry.confidence(confidence);
    }
    if let Some(source_path) = string(args, "source_path") {
        entry = entry.source_path(source_path);
    }
    for old in names(args, "supersedes")? {
        entry = entry.supersedes(old);
    }
    for related in names(args, "related")? {
        entry = entry.related(related);
    }
    if let Some(d) = args.get("diagram") {
        only("write diagram", d, &["diagram_type", "subject", "code"]);
        entry = entry.diagram(Diagram::mermaid(
            arg(d, "diagram_type"),
            arg(d, "subject"),
            arg(d, "code"),
        ));
    }
    if let Some(force_new) = args.get("force_new").and_then(Value::as_bool) {
        entry = entry.force_new(force_new);
    }
    Ok(entry)
}

fn patch(args: &Value) -> memory_core::Result<EntryPatch> {
    let mut patch = EntryPatch::new();
    if let Some(status) = string(args, "status") {
        patch = patch.status(status.parse::<EntryStatus>()?);
    }
    if args.get("tags").is_some() {
        patch = patch.tags(strings(args, "tags"));
    }
    if let Some(summary) = string(args, "summary") {
        patch = patch.summary(summary);
    }
    if let Some(body) = string(args, "body") {
        patch = patch.body(body);
    }
    if let Some(rationale) = string(args, "rationale") {
        patch = patch.rationale(rationale);
    }
    if let Some(confidence) = args.get("confidence").and_then(Value::as_f64) {
        patch = patch.confidence(confidence);
    }
    if let Some(source_path) = string(args, "source_path") {
        patch = patch.source_path(source_path);
    }
    Ok(patch)
}

fn query(args: &Value) -> memory_core::Result<Query> {
    let mut query = Query::new().tags(strings(args, "tags"));
    for namespace in strings(args, "namespaces") {
        query = query.namespace(&namespace)?;
    }
    if let Some(category) = string(args, "category") {
        query = query.category(category.parse()?);
    }
    if let Some(text) = string(args, "text") {
        query = query.text(text);
    }
    if let Some(history) = args.get("history").and_then(Value::as_bool) {
        query = query.include_history(history);
    }
    if let Some(limit) = args.get("limit").and_then(Value::as_u64) {
        query = query.limit(usize::try_from(limit).expect("limits fit usize"));
    }
    Ok(query)
}
