//! How `context` replies print: one line per entry or namespace, or one JSON value.

use memory_core::context_memory::{Hit, NamespaceInfo};

use crate::context::ContextReply;
use crate::json;

/// The human text of `reply`, ending with a newline.
pub fn human(reply: &ContextReply) -> String {
    let mut out = match reply {
        ContextReply::Hits(hits) if hits.is_empty() => "No entries.".to_string(),
        ContextReply::Hits(hits) => hits.iter().map(hit_line).collect::<Vec<_>>().join("\n"),
        ContextReply::Namespaces(infos) if infos.is_empty() => "No namespaces.".to_string(),
        ContextReply::Namespaces(infos) => infos
            .iter()
            .map(namespace_line)
            .collect::<Vec<_>>()
            .join("\n"),
    };
    out.push('\n');
    out
}

/// The JSON value of `reply`: the list of entries or namespaces.
pub fn json(reply: &ContextReply) -> serde_json::Result<String> {
    match reply {
        ContextReply::Hits(hits) => json::to_line(hits),
        ContextReply::Namespaces(infos) => json::to_line(infos),
    }
}

fn hit_line(hit: &Hit) -> String {
    format!(
        "{}  {}  {} — {} [{}]",
        hit.entity_name,
        hit.status,
        hit.summary,
        hit.file.display(),
        hit.tags.join(", ")
    )
}

fn namespace_line(info: &NamespaceInfo) -> String {
    let index = if info.has_index { "" } else { ", no _index.md" };
    let crowded = if info.over_threshold {
        " (over 50: split it by domain)"
    } else {
        ""
    };
    format!(
        "{}  {}/  {} entries{index}{crowded}",
        info.namespace,
        info.dir.display(),
        info.files
    )
}
