//! Human-readable output: the text each verb prints without `--json`.

use std::fmt::Write;

use memory_core::{
    ArchiveOutcome, ContinueOutcome, OrganizeReport, ReleaseOutcome, SessionId, SessionRow,
    Snapshot, SnapshotItem,
};

use crate::agent::AgentReply;

/// The text printed for an `agent` verb's `reply`, ending with a newline.
pub fn render(reply: &AgentReply) -> String {
    let mut out = match reply {
        AgentReply::Registered(id, _) => format!("Your Memory Session ID is: {id}"),
        AgentReply::Updated(row) => format!(
            "Updated {} (status {}, updated at {})",
            row.session_id, row.status, row.updated_at
        ),
        AgentReply::Continued(outcome) => continued(outcome),
        AgentReply::Released(outcome) => released(outcome),
        AgentReply::Organized(report) => organized(report),
        AgentReply::Archived(outcome) => archived(outcome),
        AgentReply::Listed(rows) if rows.is_empty() => "No sessions.".to_string(),
        AgentReply::Listed(rows) => rows.iter().map(list_line).collect::<Vec<_>>().join("\n"),
        AgentReply::Shown { row, snapshot } => shown(row, snapshot.as_ref()),
    };
    out.push('\n');
    out
}

fn continued(outcome: &ContinueOutcome) -> String {
    format!(
        "{} now continues from {} (Referenced By: {})",
        outcome.current.session_id,
        outcome.source.session_id,
        ids(&outcome.source.referenced_by)
    )
}

fn released(outcome: &ReleaseOutcome) -> String {
    let changed = |yes: bool| if yes { "updated" } else { "unchanged" };
    format!(
        "Released {} from {} (Referenced By {}, Continues From {})",
        outcome.current,
        outcome.source,
        changed(outcome.referenced_by_updated),
        changed(outcome.continues_from_updated)
    )
}

fn organized(report: &OrganizeReport) -> String {
    let mut out = String::new();
    if report.dry_run {
        out.push_str("Dry run: nothing was written.\n");
    }
    let groups = [
        ("Deleted idle", &report.deleted_idle),
        ("Marked stale", &report.marked_stale),
        ("Kept active", &report.kept_active),
        ("Protected", &report.protected),
    ];
    let lines: Vec<String> = groups
        .iter()
        .map(|(label, list)| format!("{label} ({}): {}", list.len(), ids(list)))
        .collect();
    out.push_str(&lines.join("\n"));
    let removed = if report.dry_run {
        "Would remove"
    } else {
        "Removed"
    };
    for (label, paths) in [
        (
            format!("{removed} dead writers' temp files"),
            &report.removed_temp_files,
        ),
        (
            "Snapshots without a row (kept)".to_string(),
            &report.orphan_snapshots,
        ),
        (
            "Other programs' leftovers (kept)".to_string(),
            &report.leftover_files,
        ),
    ] {
        if !paths.is_empty() {
            let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            out.push_str(&format!(
                "\n{label} ({}): {}",
                paths.len(),
                shown.join(", ")
            ));
        }
    }
    out
}

fn archived(outcome: &ArchiveOutcome) -> String {
    match outcome {
        ArchiveOutcome::Archived {
            session_id,
            archive_index,
            ..
        } => {
            let dir = archive_index.parent().unwrap_or(archive_index);
            format!("Archived {session_id} to {}", dir.display())
        }
        ArchiveOutcome::Deleted { session_id, .. } => {
            format!("Deleted idle placeholder {session_id}")
        }
        // ArchiveOutcome is non-exhaustive: a future outcome still prints its JSON form.
        other => crate::json::to_line(other).unwrap_or_else(|e| e.to_string()),
    }
}

/// One line per row: id, status, topic and summary, line breaks flattened.
fn list_line(row: &SessionRow) -> String {
    format!(
        "{}  {}  {} — {}",
        row.session_id,
        row.status,
        one_line(&row.topic),
        one_line(&row.summary)
    )
}

fn shown(row: &SessionRow, snapshot: Option<&Snapshot>) -> String {
    let mut out = String::new();
    let fields = [
        ("Session ID", row.session_id.to_string()),
        ("Agent Name", row.agent_name.clone()),
        ("Topic", one_line(&row.topic)),
        ("Summary", one_line(&row.summary)),
        ("Keywords", row.keywords.join(", ")),
        ("Status", row.status.to_string()),
        ("Referenced By", ids(&row.referenced_by)),
        ("Started At", row.started_at.to_string()),
        ("Updated At", row.updated_at.to_string()),
    ];
    for (label, value) in fields {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{:<14} {value}", format!("{label}:"));
    }
    match snapshot {
        None => out.push_str("\nNo snapshot."),
        Some(snapshot) => out.push_str(&snapshot_text(snapshot)),
    }
    out.trim_end().to_string()
}

fn snapshot_text(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    let context = snapshot.current_context.trim();
    let _ = write!(
        out,
        "\n## Current Context\n\n{}\n",
        if context.is_empty() { "None" } else { context }
    );
    let lists = [
        ("Decisions", &snapshot.decisions),
        ("Files / Artifacts", &snapshot.files),
        ("Open Questions", &snapshot.open_questions),
        ("Next Actions", &snapshot.next_actions),
    ];
    for (heading, items) in lists {
        let _ = write!(out, "\n## {heading}\n\n{}\n", items_text(items));
    }
    let sources: Vec<String> = snapshot
        .continues_from
        .iter()
        .map(|id| format!("- {id}"))
        .collect();
    let _ = write!(out, "\n## Continues From\n\n{}\n", or_none(sources));
    let _ = write!(
        out,
        "\n## Superseded / Resolved\n\n{}\n",
        items_text(&snapshot.superseded_resolved)
    );
    for section in &snapshot.other_sections {
        let _ = write!(out, "\n## {}\n\n{}\n", section.heading, section.body);
    }
    out
}

fn items_text(items: &[SnapshotItem]) -> String {
    or_none(
        items
            .iter()
            .map(|item| match item.mark {
                Some(mark) => format!("- {} {}", mark.as_str(), item.text),
                None => format!("- {}", item.text),
            })
            .collect(),
    )
}

fn or_none(lines: Vec<String>) -> String {
    if lines.is_empty() {
        "None".to_string()
    } else {
        lines.join("\n")
    }
}

/// Ids joined with `, `, or `-` when there are none (as the index writes them).
fn ids(list: &[SessionId]) -> String {
    if list.is_empty() {
        "-".to_string()
    } else {
        list.iter()
            .map(SessionId::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
