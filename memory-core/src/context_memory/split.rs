//! Namespace scaling (the seed's "Namespace Scaling"): entries of a crowded project
//! namespace move to domain subdirectories, each with its own `_index.md`; cross-cutting
//! entries stay in the parent (whose index goes when none remain); moved entities are
//! renamed to their new namespace and every `supersedes` / `related_entities` link in
//! the root is rewritten, so none dangles — all in one step.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_yaml::Value;

use super::entity_file::EntityFile;
use super::heal::row_of;
use super::index_file::IndexRow;
use super::memory::ContextMemory;
use super::names::{EntityName, INDEX_FILE_NAME};
use super::namespace::{Namespace, NamespaceKind, project_segment};
use crate::durable::Transaction;
use crate::error::{Error, Result};
use crate::markdown::apply_edits;

/// How to split: by tag (the default), or by an explicit mapping of entries to domains.
///
/// ```
/// use memory_core::context_memory::SplitPlan;
/// let plan = SplitPlan::by_tag();
/// let explicit = SplitPlan::mapping([("project.app.decision.001", "api")]);
/// assert!(explicit.is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SplitPlan {
    /// Entry → domain segment; an entry not named stays in the parent. Empty: by tag.
    pub mapping: BTreeMap<EntityName, String>,
}

impl SplitPlan {
    /// Each entry goes to the domain of its most widely shared tag — a tag at least two
    /// entries carry and not every entry does (ties: the alphabetically first) — and stays
    /// in the parent when it has none (a cross-cutting entry).
    pub fn by_tag() -> Self {
        SplitPlan::default()
    }

    /// An explicit plan: each named entry goes to its domain.
    pub fn mapping<I, N, D>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (N, D)>,
        N: AsRef<str>,
        D: Into<String>,
    {
        let mut mapping = BTreeMap::new();
        for (name, domain) in pairs {
            mapping.insert(EntityName::parse(name.as_ref())?, domain.into());
        }
        Ok(SplitPlan { mapping })
    }
}

/// What a split did.
///
/// ```
/// # use memory_core::context_memory::SplitReport;
/// fn moved(report: &SplitReport) -> usize { report.moved.len() }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SplitReport {
    /// Old name → new name of every moved entry.
    pub moved: BTreeMap<EntityName, EntityName>,
    /// The domains written, with their entry counts.
    pub domains: BTreeMap<Namespace, usize>,
    /// Entries left in the parent.
    pub kept: Vec<EntityName>,
    /// Entity files elsewhere whose links were rewritten.
    pub relinked: Vec<EntityName>,
    /// Whether the parent's `_index.md` was removed (no entry left in it).
    pub removed_parent_index: bool,
}

impl ContextMemory {
    /// Splits `namespace` (a project namespace) into domains by `plan`, as one step.
    ///
    /// ```
    /// use memory_core::context_memory::{Category, ContextMemory, NewEntry, SplitPlan};
    /// let dir = tempfile::tempdir().unwrap();
    /// let memory = ContextMemory::open(dir.path()).unwrap();
    /// for (tags, body) in [(["api", "rest"], "Use REST."), (["api", "auth"], "Tokens are JWT."), (["ui", "css"], "Use CSS grid."), (["ui", "a11y"], "Contrast 4.5:1.")] {
    ///     memory.write(NewEntry::new("project.app", Category::Decision, tags, body).unwrap()).unwrap();
    /// }
    /// let ns = memory_core::context_memory::Namespace::parse("project.app").unwrap();
    /// let report = memory.split(&ns, &SplitPlan::by_tag()).unwrap();
    /// assert_eq!(report.domains.len(), 2);
    /// assert!(memory.get("project.app.api.decision.001").is_ok());
    /// let moved = memory.get("project.app.decision.001").unwrap_err();
    /// assert!(moved.to_string().contains("moved to project.app.api.decision.001"));
    /// ```
    pub fn split(&self, namespace: &Namespace, plan: &SplitPlan) -> Result<SplitReport> {
        if namespace.kind() != NamespaceKind::Project {
            return Err(Error::invalid(
                "namespace",
                namespace.as_str(),
                "only project namespaces split into domains (project.<name>.<domain>)",
            ));
        }
        let lock = self.handle.lock()?;
        let index = self.settled_index(namespace, &lock)?;
        let scan = self.scan_dir(namespace)?;
        if let Some(bad) = scan.unreadable.first() {
            return Err(Error::malformed(
                &bad.path,
                bad.line,
                format!(
                    "{}; fix it before splitting (no file is moved past one that does not read)",
                    bad.message
                ),
            ));
        }
        let files: BTreeMap<EntityName, &EntityFile> = scan
            .entries
            .iter()
            .map(|f| (f.entry.entity_name.clone(), f))
            .collect();
        let domains = assign(&files, plan)?;
        let mut report = SplitReport::default();
        let mut moved: BTreeMap<EntityName, (EntityName, Namespace)> = BTreeMap::new();
        for (name, domain) in &domains {
            let target = namespace.domain(domain)?;
            moved.insert(name.clone(), (name.in_namespace(&target)?, target));
        }
        if moved.is_empty() {
            return Err(Error::invalid(
                "split plan",
                namespace.as_str(),
                "moves no entry (by tag: no tag is shared by two entries without being on all of them)",
            ));
        }
        let renames: BTreeMap<String, String> = moved
            .iter()
            .map(|(old, (new, _))| (old.to_string(), new.to_string()))
            .collect();
        let now = self.utc_now();
        let mut tx = Transaction::new(&lock);
        // Moved entries: the file with its new name and links, in the domain's directory.
        let mut domain_rows: BTreeMap<Namespace, Vec<IndexRow>> = BTreeMap::new();
        for (old, (new, target)) in &moved {
            let file = files[old];
            let text = relinked_text(file, &renames, Some((new, target)))?;
            let name = file
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let path = self.file_in(target, &name)?;
            if path.exists() {
                return Err(Error::EntityExists {
                    name: new.to_string(),
                    path,
                });
            }
            let summary = index
                .rows
                .iter()
                .find(|r| &r.entity == old)
                .map(|r| r.summary.clone());
            let parsed = EntityFile::parse(
                &path,
                target.dir().join(&name),
                text.clone(),
                target,
                summary.clone(),
            )
            .map_err(|e| Error::unreadable_result(&path, e))?;
            domain_rows.entry(target.clone()).or_default().push(row_of(
                &parsed.entry,
                &name,
                summary,
            ));
            // A new file where none was, the old one removed only as it was read.
            tx.write_over(path, None, text.into_bytes());
            tx.expect(file.path.clone(), Some(file.text.clone().into_bytes()));
            tx.remove(file.path.clone());
            report.moved.insert(old.clone(), new.clone());
        }
        for (target, rows) in &domain_rows {
            let existing = self.settled_index(target, &lock)?;
            let mut edits: Vec<_> = rows.iter().map(|r| existing.append(r)).collect();
            for row in rows {
                if existing.rows.iter().any(|r| r.entity == row.entity) {
                    return Err(Error::EntityExists {
                        name: row.entity.to_string(),
                        path: existing.path.clone(),
                    });
                }
            }
            edits.push(existing.touch(&now));
            existing.prepare(edits)?.stage(&mut tx);
            report.domains.insert(target.clone(), rows.len());
        }
        // The parent: the moved rows go; kept entries' links are rewritten too.
        let kept: Vec<&IndexRow> = index
            .rows
            .iter()
            .filter(|r| !moved.contains_key(&r.entity))
            .collect();
        report.kept = kept.iter().map(|r| r.entity.clone()).collect();
        for file in scan
            .entries
            .iter()
            .filter(|f| !moved.contains_key(&f.entry.entity_name))
        {
            let text = relinked_text(file, &renames, None)?;
            if text != file.text {
                relink(&mut tx, file, text);
                report.relinked.push(file.entry.entity_name.clone());
            }
        }
        let parent_index = self.file_in(namespace, INDEX_FILE_NAME)?;
        if kept.is_empty() {
            if parent_index.exists() {
                index.expect_in(&mut tx);
                tx.remove(parent_index);
                report.removed_parent_index = true;
            }
        } else {
            let edits: Vec<_> = index
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| moved.contains_key(&r.entity))
                .map(|(i, _)| index.remove(i))
                .chain(std::iter::once(index.touch(&now)))
                .collect();
            index.prepare(edits)?.stage(&mut tx);
        }
        // Every other namespace's links to a moved entry — the target domains' own
        // entries too, when a domain existed before (the moved files are not there yet).
        for info in self.namespaces()? {
            if info.namespace == *namespace {
                continue;
            }
            for file in self.scan_dir(&info.namespace)?.entries {
                let text = relinked_text(&file, &renames, None)?;
                if text != file.text {
                    relink(&mut tx, &file, text);
                    report.relinked.push(file.entry.entity_name.clone());
                }
            }
        }
        tx.commit()?;
        Ok(report)
    }
}

/// Stages `text`, `file` with its links rewritten, against what was read of it.
fn relink(tx: &mut Transaction<'_>, file: &EntityFile, text: String) {
    tx.write_over(
        file.path.clone(),
        Some(file.text.clone().into_bytes()),
        text.into_bytes(),
    );
}

/// Which domain each entry goes to (entries not listed stay in the parent).
fn assign(
    files: &BTreeMap<EntityName, &EntityFile>,
    plan: &SplitPlan,
) -> Result<BTreeMap<EntityName, String>> {
    if !plan.mapping.is_empty() {
        for (name, domain) in &plan.mapping {
            if !files.contains_key(name) {
                return Err(Error::EntityNotFound {
                    name: name.to_string(),
                    path: name.namespace().dir(),
                    moved_to: None,
                });
            }
            super::namespace::check_segment(domain)
                .map_err(|why| Error::invalid("domain", domain, why))?;
        }
        return Ok(plan.mapping.clone());
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for file in files.values() {
        let tags: BTreeSet<String> = file
            .entry
            .tags
            .iter()
            .filter_map(|t| project_segment(t))
            .collect();
        for tag in tags {
            *counts.entry(tag).or_default() += 1;
        }
    }
    let total = files.len();
    let mut out = BTreeMap::new();
    for (name, file) in files {
        let best = file
            .entry
            .tags
            .iter()
            .filter_map(|t| project_segment(t))
            .filter(|t| counts[t] >= 2 && counts[t] < total)
            .max_by(|a, b| counts[a].cmp(&counts[b]).then_with(|| b.cmp(a)));
        if let Some(domain) = best {
            out.insert(name.clone(), domain);
        }
    }
    Ok(out)
}

/// `file`'s text with every link to a renamed entry rewritten (and, for a moved file,
/// its own name and namespace), changing only those keys.
fn relinked_text(
    file: &EntityFile,
    renames: &BTreeMap<String, String>,
    moved_to: Option<(&EntityName, &Namespace)>,
) -> Result<String> {
    let keys = &file.keys;
    let text = &file.text;
    let at = |issue: crate::markdown::ParseIssue| issue.at(&file.path);
    let mut edits = Vec::new();
    if let Some((name, namespace)) = moved_to {
        edits.push(
            keys.set(text, "entity_name", &Value::from(name.as_str()))
                .map_err(at)?,
        );
        edits.push(
            keys.set(text, "namespace", &Value::from(namespace.as_str()))
                .map_err(at)?,
        );
    }
    for (key, links) in [
        ("supersedes", &file.entry.supersedes),
        ("related_entities", &file.entry.related_entities),
    ] {
        if links.iter().any(|l| renames.contains_key(l.as_str())) {
            let list = Value::Sequence(
                links
                    .iter()
                    .map(|l| {
                        Value::from(renames.get(l.as_str()).map_or(l.as_str(), String::as_str))
                    })
                    .collect(),
            );
            edits.push(keys.set(text, key, &list).map_err(at)?);
        }
    }
    Ok(apply_edits(text, edits))
}
