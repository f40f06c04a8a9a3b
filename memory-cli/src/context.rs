//! `memcore context …`: turns parsed arguments into one memory-core call and returns its
//! typed result. No memory logic lives here.

use memory_core::Result;
use memory_core::context_memory::{Category, ContextMemory, Hit, NamespaceInfo, Query};

use crate::args::{ContextCommand, QueryArgs};

/// What a `context` verb returns, for printing.
#[derive(Debug)]
pub enum ContextReply {
    /// `query`: the entries found, best first.
    Hits(Vec<Hit>),
    /// `namespaces`: the namespaces under the root.
    Namespaces(Vec<NamespaceInfo>),
}

/// Runs one `context` verb against `memory`.
pub fn run(memory: &ContextMemory, command: ContextCommand) -> Result<ContextReply> {
    Ok(match command {
        ContextCommand::Query(args) => ContextReply::Hits(memory.query(&query(args)?)?),
        ContextCommand::Namespaces => ContextReply::Namespaces(memory.namespaces()?),
    })
}

fn query(args: QueryArgs) -> Result<Query> {
    let mut query = Query::new()
        .tags(args.tags)
        .include_history(args.history)
        .limit(args.limit);
    for namespace in &args.namespaces {
        query = query.namespace(namespace)?;
    }
    if let Some(category) = args.category {
        query = query.category(category.parse::<Category>()?);
    }
    if let Some(text) = args.text {
        query = query.text(text);
    }
    Ok(query)
}
