//! `memcore`: the command line of memory-core, run by agents' hooks.
//!
//! It parses arguments, calls memory-core once, and prints the result; all memory logic
//! lives in memory-core. The exit code is the error kind's
//! [`memory_core::ErrorKind::exit_code`], and 2 for usage errors.

mod agent;
mod args;
mod context;
mod context_output;
mod human;
mod json;
mod output;
mod plural;
mod reply;
mod settings;
mod topics;
mod topics_output;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use memory_core::{Error, Result};

use crate::args::{Cli, Model};
use crate::reply::Reply;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    let as_json = cli.json;
    match run(cli).and_then(|reply| output::print_reply(&reply, as_json).map(|()| reply)) {
        // `verify` prints what it found, then says "conflict" when it found drift.
        Ok(Reply::Context(reply)) if reply.has_drift() => {
            ExitCode::from(u8::try_from(memory_core::ErrorKind::Conflict.exit_code()).unwrap_or(4))
        }
        // `check` prints what it found, then exits 4 when it found violations.
        Ok(Reply::Topics(reply)) if reply.has_violations() => {
            ExitCode::from(u8::try_from(memory_core::ErrorKind::Conflict.exit_code()).unwrap_or(4))
        }
        // `compact` reports every file it compacted, then exits with the code of the
        // first file it could not (5 for one that does not read).
        Ok(Reply::Topics(reply)) if let Some(code) = reply.not_compacted_code() => {
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(err) if output::is_closed_stdout(&err) => ExitCode::SUCCESS,
        Err(err) => {
            output::print_error(&err, as_json);
            exit_code(&err)
        }
    }
}

fn run(cli: Cli) -> Result<Reply> {
    match cli.model {
        Model::Agent(command) => {
            let memory = settings::open_agent_memory(cli.root)?;
            agent::run(&memory, command).map(Reply::Agent)
        }
        Model::Context(command) => {
            let memory = settings::open_context_memory(cli.root)?;
            context::run(&memory, command).map(Reply::Context)
        }
        Model::Topics(args) => {
            let flags = settings::BudgetFlags {
                index_lines: args.index_lines,
                topic_lines: args.topic_lines,
                index_bytes: args.index_bytes,
                topic_bytes: args.topic_bytes,
            };
            // The SessionStart hook prints the whole index even when a budget variable
            // is not a budget (it says so on stderr); every other verb refuses it.
            let memory;
            let mut ignored = Vec::new();
            if matches!(args.command, args::TopicsCommand::Index) {
                let budgets;
                (budgets, ignored) = settings::index_budgets(flags);
                memory =
                    settings::open_structured_memory_for_index(cli.root, budgets, &mut ignored)?;
            } else {
                memory =
                    settings::open_structured_memory(cli.root, settings::topic_budgets(flags)?)?;
            }
            topics::run(&memory, args.command)
                .map(|reply| Reply::Topics(reply.with_ignored_settings(ignored)))
        }
    }
}

fn exit_code(err: &Error) -> ExitCode {
    // Exit codes are 1..=6; anything out of u8 range would be a core bug, reported as 1.
    ExitCode::from(u8::try_from(err.kind().exit_code()).unwrap_or(1))
}

/// Prints clap's message (help and version go to stdout with code 0); a real usage
/// error is printed as its JSON object instead when `--json` was on the command line.
fn usage_error(err: clap::Error) -> ExitCode {
    if err.use_stderr() && json_requested(std::env::args_os()) {
        output::print_usage_error_json(&usage_message(&err.render().to_string()));
    } else {
        let _ = err.print();
    }
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
}

/// The first paragraph of clap's message on one line, without `error: `: the sentence
/// and what it lists (`the following required arguments were not provided: --text <T>`),
/// without the usage line and the hint that follow.
fn usage_message(rendered: &str) -> String {
    let mut lines = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim);
    let first = lines.next().unwrap_or_default();
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let listed: Vec<&str> = lines.collect();
    if !listed.is_empty() {
        message.push(' ');
        message.push_str(&listed.join(", "));
    }
    message
}

/// Whether `--json` appears among the options (before any `--`).
fn json_requested(args: impl Iterator<Item = OsString>) -> bool {
    args.skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}
