//! The options objects of `ContextMemory`'s methods, read into the core's types. Keys are
//! camelCase (`sourcePath`, `forceNew`); a key a method does not take is refused with
//! `ERR_MEMORY_INVALID_INPUT` naming it (`entry.sorcePath: unknown option`), and a key
//! whose value is `undefined` is ignored. Every value rule (tag count, status names,
//! namespaces, confidence range) is the core's own.

use memory_core::Error;
use memory_core::context_memory::{
    Category, Diagram, EntityName, EntryPatch, EntryStatus, NewEntry, Query, SplitPlan,
};
use napi::bindgen_prelude::{Array, JsObjectValue, Object, Unknown};
use napi::{JsString, JsValue, ValueType};

use crate::Failure;
use crate::args::{self, Arg};

const ENTRY_KEYS: &[&str] = &[
    "namespace",
    "category",
    "tags",
    "body",
    "status",
    "summary",
    "slug",
    "rationale",
    "confidence",
    "sourcePath",
    "supersedes",
    "related",
    "diagram",
    "forceNew",
];

/// A required property of an options object.
fn required<'env>(object: &Object<'env>, key: &str, name: &'static str) -> Arg<Unknown<'env>> {
    args::field(object, key)?.ok_or_else(|| Failure::Core(Error::argument(name, "is required")))
}

/// `write` / `supersede`'s entry: `{ namespace, category, tags, body, … }`.
pub fn new_entry(value: Unknown<'_>) -> Arg<NewEntry> {
    let object = args::object(value, "entry")?;
    args::known_keys(&object, "entry", ENTRY_KEYS, None)?;
    let namespace = args::text(
        required(&object, "namespace", "entry.namespace")?,
        "entry.namespace",
    )?;
    let category: Category = args::text(
        required(&object, "category", "entry.category")?,
        "entry.category",
    )?
    .parse()?;
    let tags = args::texts(required(&object, "tags", "entry.tags")?, "entry.tags")?;
    let body = args::text(required(&object, "body", "entry.body")?, "entry.body")?;
    let mut entry = NewEntry::new(&namespace, category, tags, body)?;
    if let Some(status) = args::opt_text(args::field(&object, "status")?, "entry.status")? {
        entry.status = status.parse::<EntryStatus>()?;
    }
    entry.summary = args::opt_text(args::field(&object, "summary")?, "entry.summary")?;
    entry.slug = args::opt_text(args::field(&object, "slug")?, "entry.slug")?;
    entry.rationale = args::opt_text(args::field(&object, "rationale")?, "entry.rationale")?;
    entry.confidence = args::opt_number(args::field(&object, "confidence")?, "entry.confidence")?;
    entry.source_path = args::opt_text(args::field(&object, "sourcePath")?, "entry.sourcePath")?;
    entry.supersedes = names(args::list(
        args::field(&object, "supersedes")?,
        "entry.supersedes",
    )?)?;
    entry.related_entities = names(args::list(
        args::field(&object, "related")?,
        "entry.related",
    )?)?;
    entry.diagram = diagram(args::field(&object, "diagram")?)?;
    entry.force_new =
        args::opt_bool(args::field(&object, "forceNew")?, "entry.forceNew")?.unwrap_or(false);
    Ok(entry)
}

fn names(texts: Vec<String>) -> Arg<Vec<EntityName>> {
    texts
        .iter()
        .map(|name| EntityName::parse(name).map_err(Failure::Core))
        .collect()
}

/// `entry.diagram`: `{ diagramType, subject, code }` (a Mermaid diagram).
fn diagram(value: Option<Unknown<'_>>) -> Arg<Option<Diagram>> {
    let Some(object) = args::opt_object(value, "entry.diagram")? else {
        return Ok(None);
    };
    args::known_keys(
        &object,
        "entry.diagram",
        &["diagramType", "subject", "code"],
        None,
    )?;
    let text = |key: &str, name: &'static str| -> Arg<String> {
        args::text(required(&object, key, name)?, name)
    };
    Ok(Some(Diagram::mermaid(
        text("diagramType", "entry.diagram.diagramType")?,
        text("subject", "entry.diagram.subject")?,
        text("code", "entry.diagram.code")?,
    )))
}

/// `update`'s patch: `{ status?, tags?, summary?, body?, rationale?, confidence?, sourcePath? }`.
pub fn patch(value: Unknown<'_>) -> Arg<EntryPatch> {
    let object = args::object(value, "patch")?;
    args::known_keys(
        &object,
        "patch",
        &[
            "status",
            "tags",
            "summary",
            "body",
            "rationale",
            "confidence",
            "sourcePath",
        ],
        None,
    )?;
    let mut patch = EntryPatch::new();
    if let Some(status) = args::opt_text(args::field(&object, "status")?, "patch.status")? {
        patch.status = Some(status.parse::<EntryStatus>()?);
    }
    if let Some(tags) = args::opt_texts(args::field(&object, "tags")?, "patch.tags")? {
        patch = patch.tags(tags);
    }
    patch.summary = args::opt_text(args::field(&object, "summary")?, "patch.summary")?;
    patch.body = args::opt_text(args::field(&object, "body")?, "patch.body")?;
    patch.rationale = args::opt_text(args::field(&object, "rationale")?, "patch.rationale")?;
    patch.confidence = args::opt_number(args::field(&object, "confidence")?, "patch.confidence")?;
    patch.source_path = args::opt_text(args::field(&object, "sourcePath")?, "patch.sourcePath")?;
    Ok(patch)
}

/// `query`'s filter: `{ namespaces?, category?, tags?, text?, history?, limit? }`
/// (`undefined`/`null`: every namespace, default limit).
pub fn query(value: Option<Unknown<'_>>) -> Arg<Query> {
    let mut query = Query::new();
    let Some(object) = args::opt_object(value, "query")? else {
        return Ok(query);
    };
    args::known_keys(
        &object,
        "query",
        &["namespaces", "category", "tags", "text", "history", "limit"],
        None,
    )?;
    for namespace in args::list(args::field(&object, "namespaces")?, "query.namespaces")? {
        query = query.namespace(&namespace)?;
    }
    if let Some(category) = args::opt_text(args::field(&object, "category")?, "query.category")? {
        query = query.category(category.parse()?);
    }
    if let Some(tags) = args::opt_texts(args::field(&object, "tags")?, "query.tags")? {
        query = query.tags(tags);
    }
    if let Some(text) = args::opt_text(args::field(&object, "text")?, "query.text")? {
        query = query.text(text);
    }
    if let Some(history) = args::opt_bool(args::field(&object, "history")?, "query.history")? {
        query = query.include_history(history);
    }
    if let Some(limit) = args::opt_number(args::field(&object, "limit")?, "query.limit")? {
        if !(limit.is_finite() && limit >= 0.0 && limit.fract() == 0.0) {
            return Err(Failure::Core(Error::argument(
                "query.limit",
                format!(
                    "expected a whole number from 0, got number {}",
                    args::number(limit)
                ),
            )));
        }
        // A whole number beyond `usize` is "all hits": the cast saturates.
        query = query.limit(limit as usize);
    }
    Ok(query)
}

/// `split`'s plan: `{ mapping?: { [entityName]: domain } }`; none or an empty mapping
/// splits by tag.
pub fn split_plan(value: Option<Unknown<'_>>) -> Arg<SplitPlan> {
    let Some(object) = args::opt_object(value, "plan")? else {
        return Ok(SplitPlan::by_tag());
    };
    args::known_keys(&object, "plan", &["mapping"], None)?;
    let Some(mapping) = args::opt_object(args::field(&object, "mapping")?, "plan.mapping")? else {
        return Ok(SplitPlan::by_tag());
    };
    let keys = mapping.get_property_names()?;
    let mut pairs = Vec::new();
    for i in 0..keys.get_array_length()? {
        let key: String = keys
            .get_element::<JsString>(i)?
            .into_utf8()?
            .as_str()?
            .to_string();
        let value = mapping.get_named_property::<Unknown>(&key)?;
        if matches!(value.get_type()?, ValueType::Undefined) {
            continue;
        }
        pairs.push((key, args::text(value, "plan.mapping")?));
    }
    Ok(SplitPlan::mapping(pairs)?)
}

/// `endSession`'s promotions: `[[entityName, namespace], …]` (`undefined`/`null`: none).
pub fn promotions(value: Option<Unknown<'_>>) -> Arg<Vec<(String, String)>> {
    let Some(value) =
        value.filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined) | Ok(ValueType::Null)))
    else {
        return Ok(Vec::new());
    };
    let not_pairs = || {
        Failure::Core(Error::argument(
            "promote",
            "expected an array of [entityName, namespace] pairs",
        ))
    };
    if !value.is_array()? {
        return Err(not_pairs());
    }
    // SAFETY: the value is an array.
    let array = unsafe { value.cast::<Array>() }?;
    let mut pairs = Vec::new();
    for i in 0..array.len() {
        let item = array.get::<Unknown>(i)?.ok_or_else(not_pairs)?;
        if !matches!(item.get_type()?, ValueType::Object) || !item.is_array()? {
            return Err(not_pairs());
        }
        match <[String; 2]>::try_from(args::texts(item, "promote")?) {
            Ok([name, namespace]) => pairs.push((name, namespace)),
            Err(_) => return Err(not_pairs()),
        }
    }
    Ok(pairs)
}
