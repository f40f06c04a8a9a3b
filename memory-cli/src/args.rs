//! The grammar of `memcore`: clap derive types and nothing else. No value is
//! interpreted here beyond splitting lists; memory-core validates every value.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use memory_core::agent_memory::DEFAULT_AGENT_NAME;

/// memcore: Markdown-native memory for AI agents.
///
/// Every verb prints a human line by default and one JSON value with `--json`. Errors go
/// to stderr with exit code 2 (invalid input or usage), 3 (not found), 4 (conflict),
/// 5 (malformed file), 6 (lock timeout) or 1 (other I/O).
#[derive(Debug, Parser)]
#[command(name = "memcore", version, propagate_version = true)]
pub struct Cli {
    /// The memory directory. agent and topics share it: agent keeps index.md and
    /// sessions/ there, topics MEMORY.md, the topic files and memory-archive.md [default:
    /// $MEMCORE_ROOT, else ./memory]; context keeps its namespaces in its own
    /// [default: $MEMCORE_CONTEXT_ROOT, else ~/.cursor/memory].
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Print one JSON value on stdout (and errors as one JSON object on stderr).
    #[arg(long, global = true)]
    pub json: bool,

    /// The memory model to work on.
    #[command(subcommand)]
    pub model: Model,
}

/// The memory models `memcore` drives.
#[derive(Debug, Subcommand)]
pub enum Model {
    /// Agent Memory: `index.md`, one row per agent session, merged snapshots.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// context-memory: namespaces of entity files with a `_index.md` each.
    #[command(subcommand)]
    Context(ContextCommand),
    /// structured-memory: a small MEMORY.md index of topic files, with budgets.
    Topics(TopicsArgs),
}

/// `topics`: the budgets (before or after the verb), then the verb.
#[derive(Debug, Args)]
pub struct TopicsArgs {
    /// Lines MEMORY.md may hold, at least 1 [default: $MEMCORE_INDEX_LINES, else 60].
    #[arg(long, global = true, value_name = "N")]
    pub index_lines: Option<usize>,
    /// Lines a topic file may hold, at least 1 [default: $MEMCORE_TOPIC_LINES, else 150].
    #[arg(long, global = true, value_name = "N")]
    pub topic_lines: Option<usize>,
    /// Bytes MEMORY.md may hold, at least 1 [default: $MEMCORE_INDEX_BYTES, else unlimited].
    #[arg(long, global = true, value_name = "N")]
    pub index_bytes: Option<usize>,
    /// Bytes a topic file may hold, at least 1 [default: $MEMCORE_TOPIC_BYTES, else unlimited].
    #[arg(long, global = true, value_name = "N")]
    pub topic_bytes: Option<usize>,
    /// The verb.
    #[command(subcommand)]
    pub command: TopicsCommand,
}

/// The verbs of the structured-memory model.
#[derive(Debug, Subcommand)]
pub enum TopicsCommand {
    /// Remember one dated fact in a topic file (merge on write; a new topic gets its index line).
    Remember(RememberArgs),
    /// Rank topic files by their index lines (title and hook) for a query.
    Recall {
        /// The words to look for.
        #[arg(required = true)]
        query: Vec<String>,
    },
    /// Print MEMORY.md whole (fit for a SessionStart hook; budget warnings on stderr).
    Index,
    /// Print one topic file.
    Show {
        /// The topic file, relative to the directory.
        file: String,
    },
    /// Report every anti-pattern with file and line (exit 4 when any is found).
    Check,
    /// Compact a topic file (or every one over budget): archive first, never truncate.
    Compact {
        /// The topic file [default: every linked topic over its budget].
        file: Option<String>,
        /// Show exactly what would move where, and write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Put back the entries a compaction or merge archived under ID (the archive is kept).
    Restore {
        /// The archive section id (`c-20260710-001`).
        id: String,
    },
}

/// `topics remember`.
#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The topic file (`memory-infra.md`, `USER.md`).
    #[arg(long, value_name = "FILE")]
    pub topic: String,
    /// The fact (`-` reads it from stdin).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub text: String,
    /// What it is about: an entry about the same subject is replaced.
    #[arg(long, value_name = "S")]
    pub subject: Option<String>,
    /// The day it is about: YYYY-MM-DD, today, yesterday, a weekday, `3 May 2026` (a month
    /// needs its day and year) [default: the one past day the text names (`broke two days
    /// ago`), else today].
    #[arg(long, value_name = "D")]
    pub date: Option<String>,
    /// The topic's title for a new index line [default: from the file name]; on a linked topic, renames its line's title in place.
    #[arg(long, value_name = "T")]
    pub title: Option<String>,
    /// The topic's hook: required for a new topic, replaces the hook otherwise (an empty
    /// hook keeps the existing one; it never clears it).
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    pub hook: Option<String>,
    /// The `##` section of the topic file it goes under (a new one at the end when there
    /// is none) [default: above the first section, under none].
    #[arg(long, value_name = "S")]
    pub section: Option<String>,
    /// The frontmatter `type` of a new topic file (user, feedback, project, reference…):
    /// the file starts with `name`, `description` and `type` [default: a frontmatter only
    /// when most linked topics keep one]; an existing topic must already have it.
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: Option<String>,
}

/// The verbs of the context-memory model. (One value per process: the size difference
/// of its variants does not matter.)
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum ContextCommand {
    /// Write a new entry: the entity file and its index row as one step.
    Write(WriteArgs),
    /// Change an entry's fields in its file and row (only the keys given, plus updated_at).
    Update(UpdateEntryArgs),
    /// Experimental to accepted; with --to, a new entry in another namespace that supersedes it.
    Promote {
        /// The entry.
        name: String,
        /// The namespace to promote it to (project → org).
        #[arg(long, value_name = "NS")]
        to: Option<String>,
    },
    /// Write a new entry that supersedes OLD and mark OLD superseded.
    Supersede {
        /// The entry being replaced.
        old: String,
        /// The new entry.
        #[command(flatten)]
        new: WriteArgs,
    },
    /// Split a crowded project namespace into domains (by tag unless --map is given).
    Split {
        /// The project namespace.
        namespace: String,
        /// Split by tag (the default).
        #[arg(long, conflicts_with = "map")]
        by_tag: bool,
        /// Move NAME to DOMAIN: `NAME=DOMAIN` (repeat; entries not named stay).
        #[arg(long, value_name = "NAME=DOMAIN")]
        map: Vec<String>,
    },
    /// Import a previous memory directory (it is first copied verbatim under archive/).
    Migrate {
        /// The old memory directory (only read).
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
    },
    /// End the session: promote chosen session.current entries, archive the rest.
    EndSession {
        /// A session entry to keep, and where: `NAME=NAMESPACE` (repeat for several).
        #[arg(long, value_name = "NAME=NS")]
        promote: Vec<String>,
    },
    /// Show one entry, read from its file.
    Get {
        /// The entity name (`org.global.decision.001`).
        name: String,
    },
    /// Find entries in the indexes (the seed's read protocol; no entity file is opened).
    Query(QueryArgs),
    /// Report how indexes disagree with their files, writing nothing (exit 4 on drift).
    Verify {
        /// One namespace [default: every namespace].
        namespace: Option<String>,
    },
    /// Regenerate index rows from the entity files.
    Heal {
        /// One namespace [default: every namespace].
        namespace: Option<String>,
    },
    /// List the namespaces the root holds.
    Namespaces,
    /// List the files the git hooks recorded as changed, with the entries that cite them.
    Refresh(RefreshArgs),
    /// Install or remove the git hooks that record changed files.
    #[command(subcommand)]
    Hook(HookCommand),
}

/// `context write`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The namespace (`org.global`, `project.<name>`, `session.current`, …) [supersede:
    /// the old entry's].
    #[arg(long, value_name = "NS", conflicts_with = "repo")]
    pub namespace: Option<String>,
    /// Write into `project.<name>` of this repository (its origin remote's name, else its
    /// folder's, lowercased).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// The category (decision, constraint, assumption, rejected, todo, risk, principle,
    /// diagram) [supersede: the old entry's].
    #[arg(long, value_name = "C")]
    pub category: Option<String>,
    /// At least two tags, comma-separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',', required = true)]
    pub tags: Vec<String>,
    /// The status [default: accepted].
    #[arg(long, value_name = "S")]
    pub status: Option<String>,
    /// The index summary (at most 100 characters) [default: the body's first sentence].
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub summary: Option<String>,
    /// A descriptive short id instead of the next number.
    #[arg(long, value_name = "SLUG")]
    pub slug: Option<String>,
    /// An entry this one supersedes (repeat for several).
    #[arg(long, value_name = "NAME")]
    pub supersedes: Vec<String>,
    /// A related entry (repeat for several).
    #[arg(long, value_name = "NAME")]
    pub related: Vec<String>,
    /// Why.
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    pub rationale: Option<String>,
    /// How sure, from 0 to 1.
    #[arg(long, value_name = "X")]
    pub confidence: Option<f64>,
    /// Where the knowledge comes from (`docs:global/decisions/auth-flow.md`).
    #[arg(long, value_name = "P")]
    pub source_path: Option<String>,
    /// Write even when an entry of the same category has a similar summary.
    #[arg(long)]
    pub force_new: bool,
    /// The diagram's language (diagram entries).
    #[arg(long, value_name = "L", default_value = "mermaid")]
    pub diagram_language: String,
    /// The diagram's type (`flowchart`, …; diagram entries).
    #[arg(long, value_name = "T")]
    pub diagram_type: Option<String>,
    /// What the diagram shows (diagram entries).
    #[arg(long, value_name = "S")]
    pub diagram_subject: Option<String>,
    /// The diagram's code (diagram entries; `-` reads it from stdin).
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub diagram_code: Option<String>,
    /// The body: the conclusion in 1-3 sentences (`-` reads it from stdin).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub body: String,
}

/// `context update`.
#[derive(Debug, Args)]
pub struct UpdateEntryArgs {
    /// The entry.
    pub name: String,
    /// A new status.
    #[arg(long, value_name = "S")]
    pub status: Option<String>,
    /// New tags, comma-separated (at least two).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub tags: Option<Vec<String>>,
    /// A new index summary.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub summary: Option<String>,
    /// A new body (`-` reads it from stdin).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub body: Option<String>,
    /// A new rationale.
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    pub rationale: Option<String>,
    /// A new confidence.
    #[arg(long, value_name = "X")]
    pub confidence: Option<f64>,
    /// A new source path.
    #[arg(long, value_name = "P")]
    pub source_path: Option<String>,
}

/// `context refresh`.
#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// The project namespace [default: the one of --repo, else of the current directory].
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
    /// The repository whose project namespace to use [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Clear these paths from the list (they were reviewed).
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub done: Vec<String>,
    /// Record the files the last merge or checkout changed (what the hooks run).
    #[arg(long, requires = "trigger")]
    pub record: bool,
    /// The hook that runs the recording: post-merge, post-checkout or manual.
    #[arg(long, value_name = "HOOK")]
    pub trigger: Option<String>,
    /// With --record: say why nothing was recorded (a hook is quiet otherwise).
    #[arg(long, requires = "record")]
    pub verbose: bool,
}

/// `context hook`.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write post-merge and post-checkout hooks (an existing hook is kept and chained; one
    /// that is not executable is kept but not run). The hooks record into the root this
    /// command uses (--root, else $MEMCORE_CONTEXT_ROOT, else ~/.cursor/memory), written
    /// into them as an absolute path.
    Install {
        /// The repository [default: the current directory].
        #[arg(long, value_name = "DIR")]
        repo: Option<PathBuf>,
    },
    /// Remove memory-core's hooks and put back what was there (again: nothing to do).
    Uninstall {
        /// The repository [default: the current directory].
        #[arg(long, value_name = "DIR")]
        repo: Option<PathBuf>,
    },
}

/// `context query`: every filter is optional.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// A namespace to search, with its domains (repeat for several) [default: every
    /// namespace but session.current].
    #[arg(long = "namespace", value_name = "NS")]
    pub namespaces: Vec<String>,
    /// Also search `project.<name>` of this repository (repeat for several).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// Only this category.
    #[arg(long, value_name = "C")]
    pub category: Option<String>,
    /// Entries sharing these tags, comma-separated; more shared tags rank higher.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Words that must all appear in the summary, tags or name.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    pub text: Option<String>,
    /// Include deprecated and superseded entries.
    #[arg(long)]
    pub history: bool,
    /// At most N entries.
    #[arg(long, value_name = "N", default_value_t = memory_core::context_memory::DEFAULT_QUERY_LIMIT)]
    pub limit: usize,
}

/// The verbs of the Agent Memory model.
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// SessionStart hook: register an idle placeholder row and print its id.
    Start {
        /// The stable agent name.
        #[arg(long, value_name = "NAME", default_value = DEFAULT_AGENT_NAME)]
        agent: String,
    },
    /// Manual registration: an active row plus its first snapshot; prints the id.
    Register(RegisterArgs),
    /// Status update: merge into the snapshot and promote the row to active.
    Update(UpdateArgs),
    /// Record that session CURRENT continues the work of session SOURCE.
    Continue(LinkArgs),
    /// Release the reference of session CURRENT on session SOURCE.
    Release(LinkArgs),
    /// Delete idle placeholders and mark overdue active sessions stale.
    Organize(OrganizeArgs),
    /// Archive one session (or delete it when it is an idle placeholder).
    Archive {
        /// The session to archive.
        id: String,
    },
    /// List sessions in reading order.
    List {
        /// Only sessions with this status (idle, active or stale).
        #[arg(long, value_name = "S")]
        status: Option<String>,
    },
    /// Show one session's row and snapshot.
    Show {
        /// The session to show.
        id: String,
    },
}

/// Snapshot items an update or a registration adds; every option repeats.
#[derive(Debug, Args)]
pub struct SnapshotItems {
    /// Latest progress, added to Current Context.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub context: Option<String>,
    /// A decision to record.
    #[arg(long = "decision", value_name = "D", allow_hyphen_values = true)]
    pub decisions: Vec<String>,
    /// A file or artifact created or changed.
    #[arg(long = "file", value_name = "F", allow_hyphen_values = true)]
    pub files: Vec<String>,
    /// An open question.
    #[arg(long = "question", value_name = "Q", allow_hyphen_values = true)]
    pub questions: Vec<String>,
    /// A next action.
    #[arg(long = "next", value_name = "A", allow_hyphen_values = true)]
    pub next_actions: Vec<String>,
}

/// Arguments of `memcore agent register`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The stable agent name.
    #[arg(long, value_name = "NAME")]
    pub agent: String,
    /// What the session is about.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub topic: String,
    /// One or two sentences of what the session did.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub summary: String,
    /// Comma-separated keywords (default: the protocol's manual-registration keywords).
    #[arg(long, value_name = "K,…", value_delimiter = ',')]
    pub keywords: Option<Vec<String>>,
    /// A session this one continues from.
    #[arg(long = "continues-from", value_name = "ID")]
    pub continues_from: Vec<String>,
    /// The first snapshot's content.
    #[command(flatten)]
    pub items: SnapshotItems,
}

/// Arguments of `memcore agent update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The session to update.
    pub id: String,
    /// A new topic.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub topic: Option<String>,
    /// A new summary.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub summary: Option<String>,
    /// New comma-separated keywords (replacing the old ones).
    #[arg(long, value_name = "K,…", value_delimiter = ',')]
    pub keywords: Option<Vec<String>>,
    /// Items to add to the snapshot.
    #[command(flatten)]
    pub items: SnapshotItems,
    /// An existing decision to mark `[superseded]`.
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub supersede: Vec<String>,
    /// An existing open question to mark `[resolved]`.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    pub resolve: Vec<String>,
    /// An existing next action to mark `[done]`.
    #[arg(long, value_name = "A", allow_hyphen_values = true)]
    pub done: Vec<String>,
}

/// The two ends of a continuation link.
#[derive(Debug, Args)]
pub struct LinkArgs {
    /// The continuing (referencing) session.
    #[arg(long, value_name = "ID")]
    pub current: String,
    /// The source (referenced) session.
    #[arg(long, value_name = "ID")]
    pub source: String,
}

/// Arguments of `memcore agent organize`.
#[derive(Debug, Args)]
pub struct OrganizeArgs {
    /// Mark active sessions stale after this many days without update [default: 14].
    #[arg(long, value_name = "N")]
    pub stale_days: Option<u32>,
    /// Report what would change without writing.
    #[arg(long)]
    pub dry_run: bool,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn grammar_is_consistent() {
        Cli::command().debug_assert();
    }
}
