//! `memcore context …`: turns parsed arguments into one memory-core call and returns its
//! typed result. No memory logic lives here.

use std::io::Read;
use std::path::{Path, PathBuf};

use memory_core::context_memory::{
    Category, ClearReport, ContextMemory, Diagram, DriftReport, EndSession, EntityName, Entry,
    EntryPatch, EntryStatus, HealReport, Hit, HooksReport, MigrationReport, Namespace,
    NamespaceInfo, NewEntry, PendingReport, Query, RecordOutcome, RefreshTrigger, SplitPlan,
    SplitReport, Superseded, WriteOutcome, install_hooks, project_namespace, uninstall_hooks,
};
use memory_core::{Error, Result, Warning};

use crate::args::{
    ContextCommand, HookCommand, QueryArgs, RefreshArgs, UpdateEntryArgs, WriteArgs,
};

/// What a `context` verb returns, for printing.
#[derive(Debug)]
pub enum ContextReply {
    /// `write`: the entry written and the namespace's size.
    Written(Box<WriteOutcome>),
    /// `get`, `update`, `promote`: one entry.
    Entry(Box<Entry>),
    /// `migrate`: the backup, what was imported and what was not.
    Migrated(Box<MigrationReport>),
    /// `split`: what moved where.
    Split(Box<SplitReport>),
    /// `end-session`: what was promoted and what was archived.
    Ended(Box<EndSession>),
    /// `supersede`, `promote --to`: the new entry and the old one, now superseded.
    Superseded(Box<Superseded>),
    /// `query`: the entries found, best first, and what was left out (warnings on
    /// stderr).
    Hits(Vec<Hit>, Vec<Warning>),
    /// `verify`: one report per namespace.
    Drift(Vec<DriftReport>),
    /// `heal`: one report per namespace.
    Healed(Vec<HealReport>),
    /// `namespaces`: the namespaces under the root.
    Namespaces(Vec<NamespaceInfo>),
    /// `refresh`: the pending changes with the entries citing them, and the lines of
    /// the pending file that were not understood (printed as warnings on stderr).
    Pending(PendingReport),
    /// `refresh --done`: what was cleared.
    Cleared(ClearReport),
    /// `refresh --record`: what the hook recorded (or why nothing), and whether
    /// `--verbose` asked for the reason when nothing was recorded.
    Recorded(RecordOutcome, bool),
    /// `hook install|uninstall`.
    Hooks(HooksReport),
}

impl ContextReply {
    /// Whether the reply reports drift (`verify` then exits 4).
    pub fn has_drift(&self) -> bool {
        matches!(self, ContextReply::Drift(reports) if reports.iter().any(DriftReport::has_drift))
    }
}

/// Runs one `context` verb against `memory`.
pub fn run(memory: &ContextMemory, command: ContextCommand) -> Result<ContextReply> {
    Ok(match command {
        ContextCommand::Write(args) => {
            ContextReply::Written(Box::new(memory.write(new_entry(args, None)?)?))
        }
        ContextCommand::Get { name } => ContextReply::Entry(Box::new(memory.get(&name)?)),
        ContextCommand::Update(args) => {
            let name = args.name.clone();
            ContextReply::Entry(Box::new(memory.update(&name, patch(args)?)?))
        }
        ContextCommand::Promote { name, to: None } => {
            ContextReply::Entry(Box::new(memory.promote(&name)?))
        }
        ContextCommand::Promote { name, to: Some(to) } => {
            ContextReply::Superseded(Box::new(memory.promote_to(&name, &to)?))
        }
        ContextCommand::Split { namespace, map, .. } => {
            let plan = if map.is_empty() {
                SplitPlan::by_tag()
            } else {
                SplitPlan::mapping(pairs("map", &map)?)?
            };
            ContextReply::Split(Box::new(
                memory.split(&Namespace::parse(&namespace)?, &plan)?,
            ))
        }
        ContextCommand::Migrate { from } => {
            ContextReply::Migrated(Box::new(memory.migrate(&from)?))
        }
        ContextCommand::EndSession { promote } => {
            let pairs = pairs("promote", &promote)?;
            ContextReply::Ended(Box::new(memory.end_session(&pairs)?))
        }
        ContextCommand::Supersede { old, new } => {
            let replaced = memory.get(&old)?;
            ContextReply::Superseded(Box::new(
                memory.supersede(&old, new_entry(new, Some(&replaced))?)?,
            ))
        }
        ContextCommand::Query(args) => {
            let answer = memory.query_answer(&query(args)?)?;
            ContextReply::Hits(answer.hits, answer.warnings)
        }
        ContextCommand::Verify { namespace } => ContextReply::Drift(match namespace {
            Some(ns) => vec![memory.verify(&Namespace::parse(&ns)?)?],
            None => memory.verify_all()?,
        }),
        ContextCommand::Heal { namespace } => ContextReply::Healed(match namespace {
            Some(ns) => vec![memory.heal(&Namespace::parse(&ns)?)?],
            None => memory.heal_all()?,
        }),
        ContextCommand::Namespaces => ContextReply::Namespaces(memory.namespaces()?),
        ContextCommand::Refresh(args) => refresh(memory, args)?,
        ContextCommand::Hook(HookCommand::Install { repo }) => {
            let memcore = std::env::current_exe().map_err(|source| Error::Io {
                path: PathBuf::from("/proc/self/exe"),
                syscall: "readlink",
                source,
            })?;
            // The hooks record into the root this install was run with, always.
            ContextReply::Hooks(install_hooks(
                &repo_dir(repo)?,
                &memcore,
                Some(memory.root()),
            )?)
        }
        ContextCommand::Hook(HookCommand::Uninstall { repo }) => {
            ContextReply::Hooks(uninstall_hooks(&repo_dir(repo)?)?)
        }
    })
}

/// The entry `args` describe; namespace and category default to those of `replaced`
/// (the entry a supersession replaces).
fn new_entry(args: WriteArgs, replaced: Option<&Entry>) -> Result<NewEntry> {
    let namespace = match (&args.namespace, &args.repo, replaced) {
        (Some(ns), _, _) => ns.clone(),
        (None, Some(repo), _) => project_namespace(repo)?.to_string(),
        (None, None, Some(old)) => old.namespace.to_string(),
        (None, None, None) => {
            return Err(Error::Argument {
                name: "--namespace".into(),
                message: "give the namespace (or --repo DIR for its project namespace)".into(),
            });
        }
    };
    let category = match (&args.category, replaced) {
        (Some(c), _) => c.parse::<Category>()?,
        (None, Some(old)) => old.category,
        (None, None) => {
            return Err(Error::Argument {
                name: "--category".into(),
                message: "give the category".into(),
            });
        }
    };
    let body = from_stdin_if_dash(args.body)?;
    let mut entry = NewEntry::new(&namespace, category, args.tags, body)?;
    if let Some(status) = args.status {
        entry = entry.status(status.parse::<EntryStatus>()?);
    }
    if let Some(summary) = args.summary {
        entry = entry.summary(summary);
    }
    if let Some(slug) = args.slug {
        entry = entry.slug(slug);
    }
    for old in &args.supersedes {
        entry = entry.supersedes(EntityName::parse(old)?);
    }
    for related in &args.related {
        entry = entry.related(EntityName::parse(related)?);
    }
    if let Some(r) = args.rationale {
        entry = entry.rationale(r);
    }
    if let Some(c) = args.confidence {
        entry = entry.confidence(c);
    }
    if let Some(p) = args.source_path {
        entry = entry.source_path(p);
    }
    // Any diagram flag makes a diagram, so that a missing part is refused, not ignored.
    if args.diagram_code.is_some() || args.diagram_type.is_some() || args.diagram_subject.is_some()
    {
        let code = match args.diagram_code {
            Some(code) => from_stdin_if_dash(code)?,
            None => String::new(),
        };
        let mut diagram = Diagram::mermaid(
            args.diagram_type.unwrap_or_default(),
            args.diagram_subject.unwrap_or_default(),
            code,
        );
        diagram.language = args.diagram_language;
        entry = entry.diagram(diagram);
    }
    Ok(entry.force_new(args.force_new))
}

fn patch(args: UpdateEntryArgs) -> Result<EntryPatch> {
    let mut patch = EntryPatch::new();
    if let Some(status) = args.status {
        patch = patch.status(status.parse::<EntryStatus>()?);
    }
    if let Some(tags) = args.tags {
        patch = patch.tags(tags);
    }
    if let Some(summary) = args.summary {
        patch = patch.summary(summary);
    }
    if let Some(body) = args.body {
        patch = patch.body(from_stdin_if_dash(body)?);
    }
    if let Some(r) = args.rationale {
        patch = patch.rationale(r);
    }
    if let Some(c) = args.confidence {
        patch = patch.confidence(c);
    }
    if let Some(p) = args.source_path {
        patch = patch.source_path(p);
    }
    Ok(patch)
}

/// `A=B` arguments as pairs.
fn pairs(what: &'static str, args: &[String]) -> Result<Vec<(String, String)>> {
    args.iter()
        .map(|p| match p.split_once('=') {
            Some((a, b)) => Ok((a.trim().to_string(), b.trim().to_string())),
            None => Err(Error::InvalidInput {
                what,
                value: p.clone(),
                message: "must be NAME=VALUE (an entity name, '=', then a namespace or domain)"
                    .to_string(),
                session_id: None,
            }),
        })
        .collect()
}

/// `text`, or everything on stdin when it is `-` (refused naming stdin when it is not UTF-8).
pub(crate) fn from_stdin_if_dash(text: String) -> Result<String> {
    if text != "-" {
        return Ok(text);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            path: PathBuf::from("<stdin>"),
            syscall: "read",
            source,
        })?;
    memory_core::hygiene::text_from_bytes("stdin", bytes)
}

fn query(args: QueryArgs) -> Result<Query> {
    let mut query = Query::new()
        .tags(args.tags)
        .include_history(args.history)
        .limit(args.limit);
    for namespace in &args.namespaces {
        query = query.namespace(namespace)?;
    }
    for repo in &args.repos {
        query = query.namespace(project_namespace(repo)?.as_str())?;
    }
    if let Some(category) = args.category {
        query = query.category(category.parse::<Category>()?);
    }
    if let Some(text) = args.text {
        query = query.text(text);
    }
    Ok(query)
}

fn refresh(memory: &ContextMemory, args: RefreshArgs) -> Result<ContextReply> {
    let repo = repo_dir(args.repo.clone())?;
    if args.record {
        let trigger = args.trigger.unwrap_or_default();
        let trigger = RefreshTrigger::parse(&trigger).ok_or_else(|| Error::InvalidInput {
            what: "trigger",
            value: trigger.clone(),
            message: "must be post-merge, post-checkout or manual".to_string(),
            session_id: None,
        })?;
        return Ok(ContextReply::Recorded(
            memory.record_changes(&repo, trigger)?,
            args.verbose,
        ));
    }
    let namespace = match args.namespace {
        Some(ns) => Namespace::parse(&ns)?,
        None => project_namespace(&repo)?,
    };
    if args.done.is_empty() {
        Ok(ContextReply::Pending(
            memory.pending_refresh_report(&namespace)?,
        ))
    } else {
        Ok(ContextReply::Cleared(
            memory.clear_refresh(&namespace, &args.done)?,
        ))
    }
}

/// The repository directory: the one given, or the current directory.
fn repo_dir(repo: Option<PathBuf>) -> Result<PathBuf> {
    match repo {
        Some(repo) => Ok(repo),
        None => std::env::current_dir().map_err(|source| Error::Io {
            path: Path::new(".").to_path_buf(),
            syscall: "getcwd",
            source,
        }),
    }
}
