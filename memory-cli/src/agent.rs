//! `memcore agent …`: turns parsed arguments into one memory-core call and returns its
//! typed result. No memory logic lives here.

use memory_core::{
    AgentMemory, ArchiveOutcome, ContinueOutcome, ManualRegistration, OrganizeOptions,
    OrganizeReport, ReleaseOutcome, Result, SessionId, SessionRow, SessionUpdate, Snapshot, Status,
    Warning,
};

use crate::args::{AgentCommand, OrganizeArgs, RegisterArgs, SnapshotItems, UpdateArgs};

/// What an `agent` verb returns, for printing.
#[derive(Debug)]
pub enum AgentReply {
    /// `start` and `register`: the verified new session id, and the rows of other
    /// sessions `start` could not read (printed as warnings on stderr).
    Registered(SessionId, Vec<Warning>),
    /// `update`: the row after the verified write.
    Updated(SessionRow),
    /// `continue`: both rows after the verified write.
    Continued(ContinueOutcome),
    /// `release`: which side of the link changed.
    Released(ReleaseOutcome),
    /// `organize`: what was (or would be) done.
    Organized(OrganizeReport),
    /// `archive`: archived or deleted.
    Archived(ArchiveOutcome),
    /// `list`: rows in the core's reading order.
    Listed(Vec<SessionRow>),
    /// `show`: one row and its snapshot, if it has one.
    Shown {
        /// The session's index row.
        row: SessionRow,
        /// The session's snapshot, `None` without a snapshot file.
        snapshot: Option<Snapshot>,
    },
}

/// Runs one `agent` verb against `memory`.
pub fn run(memory: &AgentMemory, command: AgentCommand) -> Result<AgentReply> {
    Ok(match command {
        AgentCommand::Start { agent } => {
            let start = memory.register_session_start_with_warnings(&agent)?;
            AgentReply::Registered(start.session_id, start.warnings)
        }
        AgentCommand::Register(args) => {
            AgentReply::Registered(memory.register_manual(registration(args))?, Vec::new())
        }
        AgentCommand::Update(args) => {
            let id = args.id.clone();
            AgentReply::Updated(memory.update(&id, session_update(args))?)
        }
        AgentCommand::Continue(link) => {
            AgentReply::Continued(memory.continue_from(&link.current, &link.source)?)
        }
        AgentCommand::Release(link) => {
            AgentReply::Released(memory.release(&link.current, &link.source)?)
        }
        AgentCommand::Organize(args) => {
            AgentReply::Organized(memory.organize(organize_options(args))?)
        }
        AgentCommand::Archive { id } => AgentReply::Archived(memory.archive(&id)?),
        AgentCommand::List { status: None } => AgentReply::Listed(memory.sessions()?),
        AgentCommand::List {
            status: Some(status),
        } => AgentReply::Listed(memory.sessions_with_status(status.parse::<Status>()?)?),
        AgentCommand::Show { id } => AgentReply::Shown {
            row: memory.session(&id)?,
            snapshot: memory.snapshot(&id)?,
        },
    })
}

fn registration(args: RegisterArgs) -> ManualRegistration {
    let mut registration = ManualRegistration::new(args.agent, args.topic, args.summary);
    if let Some(keywords) = args.keywords {
        registration = registration.keywords(keywords);
    }
    registration.snapshot = snapshot_items(SessionUpdate::new(), args.items);
    args.continues_from
        .into_iter()
        .fold(registration, ManualRegistration::continues_from)
}

fn session_update(args: UpdateArgs) -> SessionUpdate {
    let mut update = snapshot_items(SessionUpdate::new(), args.items);
    update.topic = args.topic;
    update.summary = args.summary;
    if let Some(keywords) = args.keywords {
        // The core trims and drops empty keywords when it writes the row (`--keywords a,b,`).
        update = update.keywords(keywords);
    }
    update.supersede = args.supersede;
    update.resolve = args.resolve;
    update.done = args.done;
    update
}

fn snapshot_items(mut update: SessionUpdate, items: SnapshotItems) -> SessionUpdate {
    update.context = items.context;
    update.decisions = items.decisions;
    update.files = items.files;
    update.open_questions = items.questions;
    update.next_actions = items.next_actions;
    update
}

fn organize_options(args: OrganizeArgs) -> OrganizeOptions {
    let options = OrganizeOptions::default().dry_run(args.dry_run);
    match args.stale_days {
        Some(days) => options.stale_after_days(days),
        None => options,
    }
}
