//! How `topics` replies print: the index as it is written, one line per hit, entry or
//! violation, or one JSON value. Budget warnings, and why an index printed as text does
//! not read, go to stderr.

use std::fmt::Write;

use memory_core::structured_memory::{BudgetUse, PassReport};
use serde::Serialize;

use crate::json;
use crate::plural::counted;
use crate::topics::TopicsReply;

/// Warnings of `reply` for stderr: a file near or over its budget, an index printed as
/// text because it does not read.
pub fn warnings(reply: &TopicsReply) -> Vec<String> {
    match reply {
        TopicsReply::Remembered(outcome) => outcome.warnings.clone(),
        TopicsReply::Index(index, ignored) => {
            let mut all = ignored.clone();
            all.extend(index.warnings());
            all
        }
        TopicsReply::Topic(topic) => topic.budget.warning().into_iter().collect(),
        TopicsReply::Restored(report) => report.warnings.clone(),
        TopicsReply::Recalled(_, warnings) => warnings.iter().map(|w| w.message.clone()).collect(),
        _ => Vec::new(),
    }
}

/// The human text of `reply`, ending with a newline (empty for an empty index).
pub fn human(reply: &TopicsReply) -> String {
    match reply {
        TopicsReply::Remembered(o) => {
            // A fact older than the live entry about its subject went to the archive: the
            // first line says so, not "Remembered" with the live entry's date.
            let mut out = if o.archived_as_older {
                format!(
                    "Archived as older: {} keeps the newer entry about its subject, {} (line {})",
                    o.file,
                    o.entry.date.format("%Y-%m-%d"),
                    o.entry.line
                )
            } else {
                format!(
                    "Remembered in {}: {} (line {})",
                    o.file,
                    o.entry.date.format("%Y-%m-%d"),
                    o.entry.line
                )
            };
            for c in &o.converted {
                let _ = write!(out, "\n  {} {:?} written as {}", c.field, c.from, c.to);
            }
            match (o.created_topic, o.linked) {
                (true, true) => out.push_str("\n  new topic file, linked from MEMORY.md"),
                (true, false) => out.push_str("\n  new topic file"),
                (false, true) => out.push_str("\n  linked from MEMORY.md"),
                (false, false) => {}
            }
            if let Some(c) = &o.compaction {
                for f in &c.files {
                    let _ = write!(
                        out,
                        "\n  compacted {}: {} -> {}",
                        f.file,
                        f.before.lines,
                        counted(f.after.lines, "line")
                    );
                    if let Some(n) = &f.needs_judgment {
                        let _ = write!(out, " (needs judgment: {})", n.overage());
                    }
                }
                for created in &c.created {
                    let _ = write!(out, "\n  split into {created}");
                }
            }
            for e in &o.replaced {
                // One report line per entry: a multi-line entry's further lines indented
                // under it, not printed as lines of their own.
                let _ = write!(
                    out,
                    "\n  replaced (archived): {}: {}",
                    e.date.format("%Y-%m-%d"),
                    e.text.replace('\n', "\n      ")
                );
            }
            if let Some(id) = &o.archive_id {
                let _ = write!(out, "\n  archive section {id}");
            }
            for b in &o.budgets {
                let _ = write!(out, "\n  {}", budget_line(b));
            }
            out.push('\n');
            out
        }
        TopicsReply::Recalled(hits, _) => hits
            .iter()
            .map(|h| {
                format!(
                    "{:.2}  {} — {} ({})\n",
                    h.score, h.line.title, h.line.hook, h.line.file
                )
            })
            .collect(),
        // The index as it is written: what a SessionStart hook hands the agent.
        TopicsReply::Index(index, _) => {
            let mut text = index.text.clone();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        TopicsReply::Topic(topic) => {
            let mut text = topic.text.clone();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        TopicsReply::Compacted(report) => {
            let mut out = String::new();
            if report.dry_run {
                out.push_str("Dry run: nothing written.\n");
            }
            if report.files.is_empty() {
                out.push_str("Nothing over its budget.\n");
            }
            for f in &report.files {
                let new = if report.created.contains(&f.file) {
                    " (new, split out)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "{}: {} -> {}{new}",
                    f.file,
                    f.before.lines,
                    counted(f.after.lines, "line")
                );
                for p in &f.passes {
                    let to = if p.to.is_empty() {
                        "memory-archive.md"
                    } else {
                        p.to.as_str()
                    };
                    let count = p.entries.len().max(p.from_lines.len());
                    let _ = writeln!(
                        out,
                        "  {}: {count} {} to {to}",
                        p.pass.as_str(),
                        if p.entries.is_empty() && count > 0 {
                            if count == 1 { "line" } else { "lines" }
                        } else if count == 1 {
                            "entry"
                        } else {
                            "entries"
                        },
                    );
                    moves(&mut out, p, to);
                }
                if let Some(n) = &f.needs_judgment {
                    let _ = writeln!(out, "  needs judgment: {}; {}", n.overage(), n.message);
                }
            }
            for line in &report.index_lines {
                let verb = if report.dry_run { "would add" } else { "added" };
                let _ = writeln!(out, "MEMORY.md: {verb} {}", line.text);
            }
            for n in &report.not_compacted {
                let _ = writeln!(
                    out,
                    "{}:{}: not compacted ({}): {}",
                    n.file,
                    n.line,
                    n.kind.as_str(),
                    n.message
                );
            }
            match &report.id {
                Some(id) if report.dry_run => {
                    let _ = writeln!(out, "Would archive as {id}");
                }
                Some(id) => {
                    let _ = writeln!(out, "Archived as {id} (memcore topics restore {id})");
                }
                None => {}
            }
            let removed = if report.dry_run {
                "Would remove"
            } else {
                "Removed"
            };
            for temp in &report.removed_temp_files {
                let _ = writeln!(out, "{removed} a dead writer's temp file: {temp}");
            }
            out
        }
        TopicsReply::Restored(report) => {
            let mut out = String::new();
            for r in &report.restored {
                let _ = writeln!(
                    out,
                    "{}: {} back ({}), {} already live",
                    r.file,
                    counted(r.lines.len(), "line"),
                    r.pass.as_str(),
                    r.already_live.len()
                );
            }
            for n in &report.not_restored {
                let live = if n.live_in.is_empty() {
                    "the archive is their only copy".to_string()
                } else {
                    format!("live in {}", n.live_in.join(", "))
                };
                let _ = writeln!(
                    out,
                    "{}: {} not restored ({}): {live}",
                    n.file,
                    counted(n.lines.len(), "line"),
                    n.pass.as_str()
                );
            }
            for b in &report.budgets {
                let _ = writeln!(out, "  {}", budget_line(b));
            }
            out
        }
        TopicsReply::Checked(found) if found.is_empty() => "No violations.\n".to_string(),
        TopicsReply::Checked(found) => found
            .iter()
            .map(|v| {
                let at = if v.line > 0 {
                    format!(":{}", v.line)
                } else {
                    String::new()
                };
                format!("{}{at}: {}: {}\n", v.file, v.kind.as_str(), v.message)
            })
            .collect(),
    }
}

/// Each move of a pass, one line each: `pass: from:line -> to: what`, then what it
/// wrote in their place.
fn moves(out: &mut String, p: &PassReport, to: &str) {
    let what = p.entries.iter().map(|e| {
        let subject = e
            .subject
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let first = e.text.lines().next().unwrap_or("");
        format!("{}{subject}: {first}", e.date.format("%Y-%m-%d"))
    });
    // Content lines of the index are in `written` (moved, not entries).
    let what: Vec<String> = if p.entries.is_empty() {
        p.written.clone()
    } else {
        what.collect()
    };
    for (line, what) in p.from_lines.iter().zip(&what) {
        let _ = writeln!(
            out,
            "    {}: {}:{line} -> {to}: {what}",
            p.pass.as_str(),
            p.from
        );
    }
    if !p.entries.is_empty() {
        for text in &p.written {
            let first = text.lines().next().unwrap_or("");
            let _ = writeln!(out, "    {}: wrote in {}: {first}", p.pass.as_str(), p.from);
        }
    }
}

/// `memory-x.md: 12 of 150 lines (138 left)`, then `, 900 of 4000 bytes` when the file
/// has a byte budget.
fn budget_line(b: &BudgetUse) -> String {
    let bytes = match b.byte_budget {
        Some(budget) => format!(", {} of {}", b.bytes, counted(budget, "byte")),
        None => String::new(),
    };
    format!(
        "{}: {} of {} ({} left){bytes}",
        b.file,
        b.lines,
        counted(b.line_budget, "line"),
        b.lines_left
    )
}

/// The JSON value of `reply`: index lines carry `title, file, hook`; entries `date,
/// subject, text`; `check` gives `violations` with `kind, file, line, message`.
pub fn json(reply: &TopicsReply) -> serde_json::Result<String> {
    #[derive(Serialize)]
    struct Violations<'a> {
        violations: &'a [memory_core::structured_memory::Violation],
    }
    match reply {
        TopicsReply::Remembered(o) => json::to_line(o),
        TopicsReply::Recalled(hits, _) => json::to_line(hits),
        // One shape whether it reads or not (as Python's and Node's `session_index`).
        TopicsReply::Index(start, _) => json::to_line(start),
        TopicsReply::Topic(topic) => json::to_line(topic),
        TopicsReply::Checked(found) => json::to_line(&Violations { violations: found }),
        TopicsReply::Compacted(report) => json::to_line(report),
        TopicsReply::Restored(report) => json::to_line(report),
    }
}
