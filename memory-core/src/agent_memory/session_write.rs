//! Writing a session snapshot: create from the template or merge, then read back.

use std::path::PathBuf;

use super::snapshot::SectionKind;
use super::snapshot_doc::{SnapshotDoc, render_context};
use super::update::{Continuation, merge_sections, verify_merge};
use super::{AgentMemory, SessionRow, SessionUpdate};
use crate::durable::{create_private_dir_all, read_text_if_exists, replace_atomically};
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

/// A snapshot write that happened, so that it can be undone when the index write that
/// must follow it fails (a failed operation leaves the previous state).
#[derive(Debug)]
pub(crate) struct SnapshotChange {
    path: PathBuf,
    /// The file's text before, `None` when it did not exist; unset when nothing changed.
    previous: Option<Option<String>>,
}

impl SnapshotChange {
    /// Whether the file changed.
    pub fn changed(&self) -> bool {
        self.previous.is_some()
    }

    /// Puts the previous snapshot back (best effort) and returns `error`.
    pub fn undo(self, error: Error) -> Error {
        match self.previous {
            Some(Some(text)) => {
                let _ = replace_atomically(&self.path, text.as_bytes());
            }
            Some(None) => {
                let _ = std::fs::remove_file(&self.path);
            }
            None => {}
        }
        error
    }
}

impl AgentMemory {
    /// Creates or merges `sessions/<id>.md` and verifies the read-back.
    pub(crate) fn write_snapshot(&self, write: SnapshotWrite<'_>) -> Result<SnapshotChange> {
        let row = write.row;
        let path = self.session_path(row.session_id.as_str())?;
        if let Some(dir) = path.parent() {
            create_private_dir_all(dir)?;
        }
        let old = SnapshotDoc::load(&path)?;
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
            return Ok(SnapshotChange {
                path,
                previous: None,
            });
        }
        // Check the merge before anything is written: a merge that would lose an item is
        // refused with the file untouched.
        let merged = SnapshotDoc::parse(&path, text.clone())?;
        verify_merge(old.as_ref(), &merged, write.update, write.continuation)?;
        if write.touch
            && merged.metadata_value("Updated At").as_deref() != Some(row.updated_at.as_str())
        {
            return Err(Error::verify(
                &path,
                "Metadata Updated At does not match the update",
            ));
        }
        replace_atomically(&path, text.as_bytes())?;
        if read_text_if_exists(&path)?.as_deref() != Some(text.as_str()) {
            return Err(Error::verify(
                &path,
                "the snapshot read back differs from what was written",
            ));
        }
        Ok(SnapshotChange {
            previous: Some(old.map(|o| o.text)),
            path,
        })
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
