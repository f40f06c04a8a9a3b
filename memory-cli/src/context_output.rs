//! How `context` replies print: one line per entry, namespace or change, or one JSON value.

use std::fmt::Write;

use memory_core::context_memory::{
    DriftReport, Entry, HealReport, Hit, NamespaceInfo, PendingMatch, SkipReason,
};
use memory_core::hygiene::BodyFlags;

use crate::context::ContextReply;
use crate::json;
use crate::plural::count;

/// The human text of `reply`, ending with a newline.
pub fn human(reply: &ContextReply) -> String {
    let mut out = match reply {
        ContextReply::Written(outcome) => {
            let mut line = format!(
                "Wrote {} ({})",
                outcome.entry.entity_name,
                outcome.entry.file.display()
            );
            write_notes(
                &mut line,
                &outcome.entry,
                &outcome.body,
                outcome.over_threshold.then_some(outcome.namespace_entries),
            );
            line
        }
        ContextReply::Entry(entry) => entry_text(entry),
        ContextReply::Migrated(report) => {
            let mut out = format!(
                "Backed up to {}; imported {} entr{}",
                report.backup.display(),
                report.imported.len(),
                if report.imported.len() == 1 {
                    "y"
                } else {
                    "ies"
                }
            );
            for n in &report.not_imported {
                let _ = write!(out, "\n  not imported: {}: {}", n.file.display(), n.reason);
            }
            for d in &report.dangling_links {
                let _ = write!(
                    out,
                    "\n  dangling link: {} {} {} (neither in the memory nor imported)",
                    d.entity, d.field, d.target
                );
            }
            out
        }
        ContextReply::Split(report) => {
            let mut out = format!("Moved {}:", count(report.moved.len(), "entry", "entries"));
            for (ns, n) in &report.domains {
                let _ = write!(out, "\n  {ns}: {n}");
            }
            let _ = write!(out, "\n  kept in the parent: {}", report.kept.len());
            if !report.relinked.is_empty() {
                let _ = write!(
                    out,
                    "\n  links rewritten in {} other entries",
                    report.relinked.len()
                );
            }
            out
        }
        ContextReply::Ended(report) => {
            let mut out = String::new();
            for p in &report.promoted {
                let _ = writeln!(
                    out,
                    "Promoted {} to {}",
                    p.old.entity_name, p.new.entity_name
                );
            }
            let _ = write!(
                out,
                "Cleared {} session entr{}{}",
                report.cleared.len(),
                if report.cleared.len() == 1 {
                    "y"
                } else {
                    "ies"
                },
                report
                    .archive
                    .as_ref()
                    .map(|a| format!(" (moved to {})", a.display()))
                    .unwrap_or_default()
            );
            out
        }
        ContextReply::Superseded(done) => {
            let mut line = format!(
                "Wrote {} ({}); {} is now superseded",
                done.new.entity_name,
                done.new.file.display(),
                done.old.entity_name
            );
            write_notes(
                &mut line,
                &done.new,
                &done.body,
                done.over_threshold.then_some(done.namespace_entries),
            );
            line
        }
        ContextReply::Hits(hits, _) if hits.is_empty() => "No entries.".to_string(),
        ContextReply::Hits(hits, _) => lines(hits.iter().map(hit_line)),
        ContextReply::Drift(reports) if reports.is_empty() => "No namespaces.".to_string(),
        ContextReply::Drift(reports) => lines(reports.iter().map(drift_text)),
        ContextReply::Healed(reports) if reports.is_empty() => "No namespaces.".to_string(),
        ContextReply::Healed(reports) => lines(reports.iter().map(heal_text)),
        ContextReply::Namespaces(infos) if infos.is_empty() => "No namespaces.".to_string(),
        ContextReply::Namespaces(infos) => lines(infos.iter().map(namespace_line)),
        ContextReply::Pending(report) if report.matches.is_empty() => {
            "No pending changes.".to_string()
        }
        ContextReply::Pending(report) => lines(report.matches.iter().map(pending_line)),
        ContextReply::Cleared(report) => format!(
            "Cleared {} path(s); {} still pending{}",
            report.cleared.len(),
            report.remaining,
            if report.not_pending.is_empty() {
                String::new()
            } else {
                format!(" (not pending: {})", report.not_pending.join(", "))
            }
        ),
        // A hook is quiet when it records nothing: the reason only with --verbose.
        ContextReply::Recorded(outcome, false) if outcome.skipped.is_some() => {
            return String::new();
        }
        ContextReply::Recorded(outcome, _) => match &outcome.skipped {
            Some(reason) => format!("Nothing recorded: {}", skip_text(reason)),
            None => format!(
                "Recorded {} changed file(s) in {}",
                outcome.recorded.len(),
                outcome.file.display()
            ),
        },
        ContextReply::Hooks(report) => lines(
            report
                .hooks
                .iter()
                .map(|h| format!("{}: {} ({})", h.hook, h.action.as_str(), h.path.display())),
        ),
    };
    out.push('\n');
    out
}

/// The notes of a write of a new entry (`write`, `supersede`, `promote --to`): each body
/// flag, and the split advice when the namespace is over the threshold (`crowded`: its
/// entry count then).
fn write_notes(out: &mut String, entry: &Entry, body: &BodyFlags, crowded: Option<usize>) {
    for flag in &body.flags {
        let _ = write!(out, "\nnote: body: {flag}");
    }
    if let Some(entries) = crowded {
        let _ = write!(
            out,
            "\n{} has {entries} entries, over the 50 the seed allows: split it by domain (memcore context split {})",
            entry.namespace, entry.namespace
        );
    }
}

/// The JSON value of `reply`.
pub fn json(reply: &ContextReply) -> serde_json::Result<String> {
    match reply {
        ContextReply::Written(outcome) => json::to_line(outcome),
        ContextReply::Entry(entry) => json::to_line(entry),
        ContextReply::Superseded(done) => json::to_line(done),
        ContextReply::Ended(report) => json::to_line(report),
        ContextReply::Split(report) => json::to_line(report),
        ContextReply::Migrated(report) => json::to_line(report),
        ContextReply::Hits(hits, _) => json::to_line(hits),
        ContextReply::Drift(reports) => json::to_line(reports),
        ContextReply::Healed(reports) => json::to_line(reports),
        ContextReply::Namespaces(infos) => json::to_line(infos),
        ContextReply::Pending(report) => json::to_line(&report.matches),
        ContextReply::Cleared(report) => json::to_line(report),
        ContextReply::Recorded(outcome, _) => json::to_line(outcome),
        ContextReply::Hooks(report) => json::to_line(report),
    }
}

/// Why nothing was recorded, in words.
fn skip_text(reason: &SkipReason) -> String {
    match reason {
        SkipReason::OtherBranch(branch) => {
            format!("branch {branch} is checked out (only main and master record)")
        }
        SkipReason::DetachedHead => "HEAD is detached (only main and master record)".to_string(),
        SkipReason::NoPreviousHead => "HEAD has no previous position to compare with".to_string(),
        SkipReason::NothingChanged => "no file changed".to_string(),
        other => other.as_str().replace('_', " "),
    }
}

fn lines(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join("\n")
}

fn entry_text(entry: &Entry) -> String {
    let mut out = format!(
        "{}  {}  [{}]  {}\n{}\n",
        entry.entity_name,
        entry.status,
        entry.tags.join(", "),
        entry.file.display(),
        entry.body
    );
    if !entry.supersedes.is_empty() {
        let names: Vec<&str> = entry.supersedes.iter().map(|n| n.as_str()).collect();
        let _ = writeln!(out, "supersedes: {}", names.join(", "));
    }
    out.trim_end().to_string()
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

fn drift_text(report: &DriftReport) -> String {
    let ns = report.namespace.as_ref().map_or("", |n| n.as_str());
    if !report.has_drift() {
        let mut out = format!(
            "{ns}: index and files agree ({})",
            count(report.rows, "entry", "entries")
        );
        foreign_lines(&mut out, &report.foreign);
        return out;
    }
    let mut out = format!("{ns}: drift");
    for name in &report.missing_files {
        let _ = write!(out, "\n  row without a file: {name}");
    }
    for file in &report.unindexed_files {
        let _ = write!(out, "\n  file without a row: {file}");
    }
    for name in &report.mismatched {
        let _ = write!(out, "\n  row disagrees with its file: {name}");
    }
    for name in &report.repeated {
        let _ = write!(out, "\n  repeated row: {name}");
    }
    for w in &report.unreadable {
        let _ = write!(out, "\n  unreadable: {w}");
    }
    if let Some(w) = &report.unreadable_index {
        let _ = write!(out, "\n  index unreadable: {w}");
    }
    foreign_lines(&mut out, &report.foreign);
    out
}

/// One line per foreign file (`README.md`, `NOTES.md`): not drift, said apart.
fn foreign_lines(out: &mut String, foreign: &[std::path::PathBuf]) {
    for path in foreign {
        let _ = write!(
            out,
            "\n  foreign (not named like an entity; not indexed, left alone): {}",
            path.display()
        );
    }
}

fn heal_text(report: &HealReport) -> String {
    let ns = report.namespace.as_ref().map_or("", |n| n.as_str());
    let mut out = if report.written {
        format!(
            "{ns}: healed ({} added, {} removed, {} updated)",
            report.added.len(),
            report.removed.len(),
            report.updated.len()
        )
    } else {
        format!("{ns}: nothing to heal")
    };
    if let Some(w) = &report.unreadable_index {
        let _ = write!(out, "\n  index did not read: {w}");
    }
    if let Some(backup) = &report.backup {
        let _ = write!(out, "\n  old index kept verbatim in {}", backup.display());
    }
    for w in &report.unreadable {
        let _ = write!(out, "\n  unreadable, left as is (its row kept): {w}");
    }
    foreign_lines(&mut out, &report.foreign);
    out
}

fn namespace_line(info: &NamespaceInfo) -> String {
    let index = if info.has_index { "" } else { ", no _index.md" };
    let crowded = if info.over_threshold {
        " (over 50: split it by domain)"
    } else {
        ""
    };
    format!(
        "{}  {}/  {}{index}{crowded}",
        info.namespace,
        info.dir.display(),
        count(info.files, "entry", "entries")
    )
}

fn pending_line(m: &PendingMatch) -> String {
    let entries: Vec<&str> = m.entries.iter().map(|n| n.as_str()).collect();
    format!(
        "{}  ({} at {}){}",
        m.change.path,
        m.change.trigger.as_str(),
        m.change.timestamp,
        if entries.is_empty() {
            String::new()
        } else {
            format!(" — review {}", entries.join(", "))
        }
    )
}
