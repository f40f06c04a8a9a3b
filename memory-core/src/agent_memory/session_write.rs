//! Writing a session snapshot: create from the template or merge, then read back.

use std::path::PathBuf;

use super::snapshot::SectionKind;
use super::snapshot_doc::{SnapshotDoc, render_context};
use super::update::{Continuation, merge_sections, verify_merge};
use super::{AgentMemory, SessionRow, SessionUpdate};
use crate::durable::Transaction;
use crate::error::{Error, Result};
use crate::markdown::render_row;

/// One snapshot write.
pub(crate) struct SnapshotWrite<'a> {
    /// The session's row as it will stand after the operation.
    pub row: &'a SessionRow,
    pub update: &'a SessionUpdate,
    pub continuation: Continuation<'a>,
    /// Whether this is a status update: `Status` becomes active and `Updated At` is stamped.
    pub touch: bool,
}

/// A merged snapshot text that passed the reader and the merge checks, not yet written:
/// the operation adds it to its [`Transaction`] beside the index write, so both files
/// change as one step.
#[derive(Debug)]
pub(crate) struct PreparedSnapshot {
    path: PathBuf,
    text: String,
    /// The file as the merge read it (`None`: there was none).
    read: Option<String>,
}

impl PreparedSnapshot {
    /// Adds the write of this snapshot to `tx` (the text moves), the commit depending on
    /// the file still holding what the merge read: an edit saved meanwhile by a program
    /// that does not take the lock is never overwritten.
    pub fn stage(self, tx: &mut Transaction<'_>) {
        let read = self.read.map(String::into_bytes);
        tx.write_over(self.path, read, self.text.into_bytes());
    }
}

impl AgentMemory {
    /// Creates or merges `sessions/<id>.md` in memory and checks the result with the
    /// snapshot reader and the merge checks; `None` when nothing would change. Nothing is
    /// written here.
    pub(crate) fn prepare_snapshot(
        &self,
        write: SnapshotWrite<'_>,
    ) -> Result<Option<PreparedSnapshot>> {
        let row = write.row;
        let path = self.session_path(row.session_id.as_str())?;
        let old = SnapshotDoc::load(&path)?;
        if old.is_none() {
            self.refuse_if_archived(&row.session_id)?;
        }
        let base = match &old {
            Some(doc) => doc.clone(),
            None => SnapshotDoc::parse(&path, template(row))?,
        };
        let sections = merge_sections(&base, write.update, write.continuation)?;
        let mut metadata: Vec<(&str, String)> = Vec::new();
        if write.touch {
            metadata.push(("Status", "active".to_string()));
            metadata.push(("Updated At", row.updated_at.to_string()));
        }
        if write.update.topic.is_some() {
            metadata.push(("Topic", row.topic.clone()));
        }
        for (field, value) in [
            ("Session ID", row.session_id.to_string()),
            ("Agent Name", row.agent_name.clone()),
            ("Topic", row.topic.clone()),
            ("Started At", row.started_at.to_string()),
        ] {
            if base.metadata_value(field).is_none() && !metadata.iter().any(|(f, _)| *f == field) {
                metadata.push((field, value));
            }
        }
        let text = base.rewrite(&metadata, &sections);
        if old.as_ref().is_some_and(|o| o.text == text) {
            return Ok(None);
        }
        // Check the merge before anything is written: a merge that would lose an item is
        // refused with the file untouched.
        let merged = SnapshotDoc::parse(&path, text.clone())
            .map_err(|e| crate::Error::unreadable_result(&path, e))?;
        verify_merge(old.as_ref(), &merged, write.update, write.continuation)?;
        if write.touch
            && merged.metadata_value("Updated At").as_deref() != Some(row.updated_at.as_str())
        {
            return Err(Error::verify(
                &path,
                "Metadata Updated At does not match the update",
            ));
        }
        Ok(Some(PreparedSnapshot {
            path,
            text,
            read: old.map(|doc| doc.text),
        }))
    }

    /// A session whose snapshot already sits in `archive/<id>/session.md` (an archive
    /// an older memory-core left half-done) must not get a fresh template: that would
    /// hide the archived snapshot behind an empty one.
    fn refuse_if_archived(&self, id: &super::SessionId) -> Result<()> {
        let archived = self.archive_dir(id.as_str())?.join("session.md");
        if archived.exists() {
            return Err(Error::Inconsistent {
                id: id.to_string(),
                path: archived,
                message: "the session's snapshot is already in the archive but its row is still in the index; run archive for it again to finish".into(),
            });
        }
        Ok(())
    }
}

/// The seed's snapshot template for `row`, every section present. Current Context starts
/// from the row's summary (the update then adds its own context after it).
fn template(row: &SessionRow) -> String {
    let context = if row.has_meaningful_summary() {
        render_context(&row.summary)
    } else {
        "None".to_string()
    };
    let mut out = format!("# Session: {}\n\n## Metadata\n\n", row.session_id);
    out.push_str(&render_row(&["Field", "Value"]));
    out.push_str("\n|---|---|\n");
    for (field, value) in [
        ("Session ID", row.session_id.to_string()),
        ("Agent Name", row.agent_name.clone()),
        ("Topic", row.topic.clone()),
        ("Status", "active".to_string()),
        ("Started At", row.started_at.to_string()),
        ("Updated At", row.updated_at.to_string()),
    ] {
        out.push_str(&render_row(&[field, value.as_str()]));
        out.push('\n');
    }
    for kind in &SectionKind::ALL[1..] {
        let body = if *kind == SectionKind::CurrentContext {
            context.as_str()
        } else {
            "None"
        };
        out.push_str(&format!("\n## {}\n\n{body}\n", kind.heading()));
    }
    out
}
