//! Printing: a reply on stdout (human or JSON), an error on stderr. Nothing reaches
//! stdout unless the whole operation succeeded.

use std::io::{self, Write};

use memory_core::{Error, ErrorKind, SessionId, SessionRow, Snapshot, Warning};
use serde::Serialize;

use crate::agent::AgentReply;
use crate::context::ContextReply;
use crate::reply::Reply;
use crate::{context_output, human, json};

/// Renders `reply` completely, then writes it to stdout in one go. Warnings (rows
/// `start` went on past, snapshots `organize` or `archive` could not read) go to stderr
/// first, one `warning: <path>:<line>: <message>` line each, with or without `--json` (stdout keeps exactly the one JSON value).
pub fn print_reply(reply: &Reply, as_json: bool) -> Result<(), Error> {
    if let Reply::Agent(reply) = reply {
        match reply {
            AgentReply::Registered(_, warnings) => print_warnings(warnings),
            AgentReply::Organized(report) => print_warnings(&report.unreadable),
            AgentReply::Archived(outcome) => print_warnings(outcome.warnings()),
            _ => {}
        }
    }
    if let Reply::Context(crate::context::ContextReply::Hits(_, warnings)) = reply {
        print_warnings(warnings);
    }
    if let Reply::Topics(reply) = reply {
        let lines: String = crate::topics_output::warnings(reply)
            .iter()
            .map(|w| format!("warning: {w}\n"))
            .collect();
        // A warning that cannot be shown must not undo a verified write.
        let _ = io::stderr().lock().write_all(lines.as_bytes());
    }
    if let Reply::Context(ContextReply::Pending(report)) = reply {
        print_warnings(&report.warnings);
    }
    let text = match (reply, as_json) {
        (Reply::Agent(reply), true) => json_line(reply_json(reply))?,
        (Reply::Agent(reply), false) => human::render(reply),
        (Reply::Context(reply), true) => json_line(context_output::json(reply))?,
        (Reply::Context(reply), false) => context_output::human(reply),
        (Reply::Topics(reply), true) => json_line(crate::topics_output::json(reply))?,
        (Reply::Topics(reply), false) => crate::topics_output::human(reply),
    };
    if text.is_empty() {
        return Ok(());
    }
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(stdout_error)
}

/// One JSON value and its line feed, or the error writing it would be.
fn json_line(value: serde_json::Result<String>) -> Result<String, Error> {
    let mut line = value.map_err(|e| stdout_error(e.into()))?;
    line.push('\n');
    Ok(line)
}

fn print_warnings(warnings: &[Warning]) {
    if warnings.is_empty() {
        return;
    }
    let text: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    // A warning that cannot be shown must not undo a verified write.
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

fn reply_json(reply: &AgentReply) -> serde_json::Result<String> {
    fn line<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
        json::to_line(value)
    }
    match reply {
        AgentReply::Registered(id, _) => line(&Registered { session_id: id }),
        AgentReply::Updated(row) => line(row),
        AgentReply::Continued(outcome) => line(outcome),
        AgentReply::Released(outcome) => line(outcome),
        AgentReply::Organized(report) => line(report),
        AgentReply::Archived(outcome) => line(outcome),
        AgentReply::Listed(rows) => line(rows),
        AgentReply::Shown { row, snapshot } => line(&Shown {
            row,
            snapshot: snapshot.as_ref(),
        }),
    }
}

/// `{"session_id": …}` of `start` and `register`.
#[derive(Serialize)]
struct Registered<'a> {
    session_id: &'a SessionId,
}

/// `{"row": …, "snapshot": … or null}` of `show`.
#[derive(Serialize)]
struct Shown<'a> {
    row: &'a SessionRow,
    snapshot: Option<&'a Snapshot>,
}

/// `{"error": {…}}`, the JSON form of every error.
#[derive(Serialize)]
struct ErrorJson<'a> {
    error: ErrorFields<'a>,
}

/// The fields of a JSON error, in this order; absent ones are `null`.
#[derive(Serialize)]
struct ErrorFields<'a> {
    kind: &'static str,
    code: &'static str,
    message: String,
    path: Option<String>,
    line: Option<usize>,
    id: Option<&'a str>,
    /// The failed system call of an I/O error (`open`, `rename`, …).
    syscall: Option<&'a str>,
}

impl<'a> ErrorFields<'a> {
    fn of(err: &'a Error) -> Self {
        ErrorFields {
            kind: err.kind().as_str(),
            code: err.kind().code(),
            message: err.to_string(),
            path: err.path().map(|p| p.to_string_lossy().into_owned()),
            line: err.line(),
            id: err.id(),
            syscall: err.syscall(),
        }
    }

    fn usage(message: &str) -> Self {
        ErrorFields {
            kind: ErrorKind::InvalidInput.as_str(),
            code: ErrorKind::InvalidInput.code(),
            message: message.to_string(),
            path: None,
            line: None,
            id: None,
            syscall: None,
        }
    }
}

/// One JSON error line, newline included.
fn error_line(error: ErrorFields<'_>) -> String {
    // Only strings, numbers and nulls: serializing cannot fail.
    let line = json::to_line(&ErrorJson { error }).unwrap_or_default();
    format!("{line}\n")
}

/// Whether `err` is stdout closed by the reader (`memcore … | head -1`): not a failure
/// of the command, which has done its work; it ends quietly, as `cat` or `rg` would.
pub fn is_closed_stdout(err: &Error) -> bool {
    matches!(err, Error::Io { path, source, .. }
        if path.as_os_str() == "<stdout>" && source.kind() == io::ErrorKind::BrokenPipe)
}

fn stdout_error(source: io::Error) -> Error {
    Error::Io {
        path: "<stdout>".into(),
        syscall: "write",
        source,
    }
}

/// Writes `err` to stderr as `memcore: error: <message>`, or, with `--json`, as one
/// JSON object `{"error": {"kind", "code", "message", "path", "line", "id", "syscall"}}`
/// and nothing else (stderr then parses as JSON whole).
pub fn print_error(err: &Error, as_json: bool) {
    let human = || format!("memcore: error: {err}\n");
    let text = if as_json {
        // Only strings, numbers and nulls: serializing cannot fail; if it ever did, the
        // human line still carries the message.
        json::to_line(&ErrorJson {
            error: ErrorFields::of(err),
        })
        .map_or_else(|_| human(), |line| format!("{line}\n"))
    } else {
        human()
    };
    // Nothing more can be done if stderr itself fails; the exit code still tells.
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Writes a usage error detected by clap with `--json`: its JSON object, in place of
/// clap's own message.
pub fn print_usage_error_json(message: &str) {
    let text = error_line(ErrorFields::usage(message));
    let _ = io::stderr().lock().write_all(text.as_bytes());
}
