//! `memcore topics …`: turns parsed arguments into one memory-core structured-memory call
//! and returns its typed result. No memory logic lives here.

use memory_core::Result;
use memory_core::structured_memory::{
    CompactionReport, DefaultCompactor, Fact, RecallHit, RememberOutcome, RestoreReport,
    SessionIndex, StructuredMemory, Topic, Violation,
};

use crate::args::TopicsCommand;

/// What a `topics` verb returns, for printing.
#[derive(Debug)]
pub enum TopicsReply {
    /// `remember`.
    Remembered(Box<RememberOutcome>),
    /// `recall`, and its warnings for stderr (`MEMORY.md` read through a link).
    Recalled(Vec<RecallHit>, Vec<memory_core::Warning>),
    /// `index`: the whole index (as text with a warning when it does not read), and the
    /// budget variables it ignored (see `settings::index_budgets`), for stderr.
    Index(Box<SessionIndex>, Vec<String>),
    /// `show`: one topic file.
    Topic(Box<Topic>),
    /// `check`: every violation found.
    Checked(Vec<Violation>),
    /// `compact`.
    Compacted(Box<CompactionReport>),
    /// `restore`.
    Restored(Box<RestoreReport>),
}

impl TopicsReply {
    /// The reply with `ignored` (what `topics index` says of the budget variables it
    /// left out) before its own warnings; other replies have none.
    pub fn with_ignored_settings(mut self, ignored: Vec<String>) -> TopicsReply {
        if let TopicsReply::Index(_, warnings) = &mut self {
            warnings.splice(0..0, ignored);
        }
        self
    }

    /// Whether the reply reports violations (`check` then exits 4).
    pub fn has_violations(&self) -> bool {
        matches!(self, TopicsReply::Checked(found) if !found.is_empty())
    }

    /// The exit code of a compaction that left a file it could not read or write: the
    /// code compacting that file alone gives (5 for a file that does not read), after the
    /// report of every other file.
    pub fn not_compacted_code(&self) -> Option<i32> {
        match self {
            TopicsReply::Compacted(report) => {
                report.not_compacted.first().map(|n| n.kind.exit_code())
            }
            _ => None,
        }
    }
}

/// Runs one `topics` verb.
pub fn run(memory: &StructuredMemory, command: TopicsCommand) -> Result<TopicsReply> {
    Ok(match command {
        TopicsCommand::Remember(args) => {
            let mut fact = Fact::new(args.topic, crate::context::from_stdin_if_dash(args.text)?);
            if let Some(subject) = args.subject {
                fact = fact.subject(subject);
            }
            if let Some(date) = args.date {
                fact = fact.date(date);
            }
            if let Some(title) = args.title {
                fact = fact.title(title);
            }
            if let Some(hook) = args.hook {
                fact = fact.hook(hook);
            }
            if let Some(section) = args.section {
                fact = fact.section(section);
            }
            if let Some(kind) = args.kind {
                fact = fact.kind(kind);
            }
            TopicsReply::Remembered(Box::new(memory.remember(fact)?))
        }
        TopicsCommand::Recall { query } => {
            let (hits, warnings) = memory.recall_with_warnings(&query.join(" "))?;
            TopicsReply::Recalled(hits, warnings)
        }
        TopicsCommand::Index => TopicsReply::Index(Box::new(memory.session_index()?), Vec::new()),
        TopicsCommand::Show { file } => TopicsReply::Topic(Box::new(memory.topic(&file)?)),
        TopicsCommand::Check => TopicsReply::Checked(memory.check()?),
        TopicsCommand::Compact { file, dry_run } => TopicsReply::Compacted(Box::new(
            memory.compact(file.as_deref(), &DefaultCompactor, dry_run)?,
        )),
        TopicsCommand::Restore { id } => TopicsReply::Restored(Box::new(memory.restore(&id)?)),
    })
}
