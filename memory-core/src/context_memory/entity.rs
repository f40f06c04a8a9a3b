//! An entity file's typed fields (the seed's "Entity Schema"), read from its parsed
//! frontmatter: mandatory fields, the closed sets, optional fields by type, the diagram
//! variant, and unknown keys left alone.

use std::borrow::Cow;
use std::path::PathBuf;

use serde::Serialize;
use serde_yaml::Value;

use super::entity_keys::{EntityFields, Key};
use super::entry::{Diagram, MIN_TAGS};
use super::names::EntityName;
use super::namespace::Namespace;
use super::schema::{Category, EntryStatus};
use crate::markdown::Field;

/// The keys the seed defines, in the order memory-core writes them.
pub const ENTITY_KEYS: [&str; 16] = [
    "entity_name",
    "namespace",
    "category",
    "status",
    "tags",
    "created_at",
    "rationale",
    "supersedes",
    "confidence",
    "source_path",
    "updated_at",
    "diagram_language",
    "diagram_type",
    "diagram_subject",
    "diagram_code",
    "related_entities",
];

/// One entity as its file says, with the summary its index row shows.
///
/// ```
/// # use memory_core::context_memory::Entry;
/// fn is_current(entry: &Entry) -> bool { !entry.status.is_history() }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Entry {
    /// `entity_name`.
    pub entity_name: EntityName,
    /// `namespace`.
    pub namespace: Namespace,
    /// `category`.
    pub category: Category,
    /// `status`.
    pub status: EntryStatus,
    /// `tags`.
    pub tags: Vec<String>,
    /// The index summary (the row's, or derived from the body).
    pub summary: String,
    /// `created_at`, as written.
    pub created_at: String,
    /// `updated_at`, as written.
    pub updated_at: Option<String>,
    /// `supersedes`.
    pub supersedes: Vec<EntityName>,
    /// `rationale`.
    pub rationale: Option<String>,
    /// `confidence`.
    pub confidence: Option<f64>,
    /// `source_path`.
    pub source_path: Option<String>,
    /// `related_entities`.
    pub related_entities: Vec<EntityName>,
    /// The diagram fields of a diagram entity.
    pub diagram: Option<Diagram>,
    /// The body: the conclusion in words.
    pub body: String,
    /// The file, relative to the root.
    pub file: PathBuf,
}

/// Why a frontmatter does not make an entity: the key it concerns (for the line) and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldProblem {
    pub key: Option<&'static str>,
    pub message: String,
}

fn problem(key: &'static str, message: impl Into<String>) -> FieldProblem {
    FieldProblem {
        key: Some(key),
        message: message.into(),
    }
}

/// An entity's fields as [`read_fields`] checked them, each text borrowed from the
/// block's value where that holds it as it is: what an [`Entry`]
/// ([`EntryFields::into_entry`]) or an index row (heal's `row_of_fields`) is made of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EntryFields<'a> {
    pub entity_name: EntityName,
    pub namespace: Namespace,
    pub category: Category,
    pub status: EntryStatus,
    pub tags: Vec<String>,
    pub created_at: Cow<'a, str>,
    pub updated_at: Option<Cow<'a, str>>,
    pub supersedes: Vec<EntityName>,
    pub rationale: Option<Cow<'a, str>>,
    pub confidence: Option<f64>,
    pub source_path: Option<Cow<'a, str>>,
    pub related_entities: Vec<EntityName>,
    pub diagram: Option<Diagram>,
    /// The body after the frontmatter, as written.
    pub body: &'a str,
}

impl EntryFields<'_> {
    /// The entry of the file `file` (relative to the root), with the index row's
    /// `summary` when there is one (else the body's).
    pub(crate) fn into_entry(self, file: PathBuf, summary: Option<String>) -> Entry {
        Entry {
            summary: summary.unwrap_or_else(|| super::summary::summary_of(self.body)),
            entity_name: self.entity_name,
            namespace: self.namespace,
            category: self.category,
            status: self.status,
            tags: self.tags,
            created_at: self.created_at.into_owned(),
            updated_at: self.updated_at.map(Cow::into_owned),
            supersedes: self.supersedes,
            rationale: self.rationale.map(Cow::into_owned),
            confidence: self.confidence,
            source_path: self.source_path.map(Cow::into_owned),
            related_entities: self.related_entities,
            diagram: self.diagram,
            body: self.body.trim().to_string(),
            file,
        }
    }
}

/// Reads the entity fields of a parsed frontmatter `map`, for a file in `namespace`'s
/// directory: [`read_fields`] made an [`Entry`].
pub(crate) fn read_entry(
    map: &impl EntityFields,
    body: &str,
    namespace: &Namespace,
    file: PathBuf,
    summary: Option<String>,
) -> Result<Entry, FieldProblem> {
    read_fields(map, body, namespace).map(|fields| fields.into_entry(file, summary))
}

/// Reads and checks the entity fields of a parsed frontmatter `map` and its `body`, for
/// a file in `namespace`'s directory. The `namespace` key must name that directory's
/// namespace and `entity_name` must be `{namespace}.{category}.{short_id}` of the same
/// category: a file that says otherwise is reported, not indexed under a name it does
/// not have.
pub(crate) fn read_fields<'a, M: EntityFields>(
    map: &'a M,
    body: &'a str,
    namespace: &Namespace,
) -> Result<EntryFields<'a>, FieldProblem> {
    let entity_name = required_str(map, Key::EntityName)?;
    let entity_name =
        EntityName::parse(&entity_name).map_err(|e| problem("entity_name", e.to_string()))?;
    let ns = required_str(map, Key::Namespace)?;
    let ns = if *ns == *namespace.as_str() {
        // What `Namespace::parse` makes of the directory's own (valid) namespace.
        namespace.clone()
    } else {
        Namespace::parse(&ns).map_err(|e| problem("namespace", e.to_string()))?
    };
    if &ns != namespace {
        return Err(problem(
            "namespace",
            format!("says {ns}, but the file is in {namespace}'s directory"),
        ));
    }
    let category: Category = required_str(map, Key::Category)?
        .parse()
        .map_err(|e: crate::Error| problem("category", e.to_string()))?;
    if entity_name.namespace() != &ns || entity_name.category() != category {
        return Err(problem(
            "entity_name",
            format!("{entity_name} is not an entity of namespace {ns} and category {category}"),
        ));
    }
    let status: EntryStatus = required_str(map, Key::Status)?
        .parse()
        .map_err(|e: crate::Error| problem("status", e.to_string()))?;
    let tags = string_list(map, Key::Tags)?.unwrap_or_default();
    if tags.len() < MIN_TAGS {
        return Err(problem(
            "tags",
            format!(
                "an entity needs at least {MIN_TAGS} tags (has {})",
                tags.len()
            ),
        ));
    }
    let created_at = required_str(map, Key::CreatedAt)?;
    check_timestamp("created_at", &created_at)?;
    let updated_at = optional_str(map, Key::UpdatedAt)?;
    if let Some(at) = &updated_at {
        check_timestamp("updated_at", at)?;
    }
    let confidence = match map.field(Key::Confidence) {
        None | Some(Field::Value(Value::Null)) => None,
        Some(v) => match v {
            Field::Value(v) => v.as_f64(),
            // A string or a list is not a number.
            Field::Str(_) | Field::List(_) => None,
        }
        .filter(|c| c.is_finite() && (0.0..=1.0).contains(c))
        .map(Some)
        .ok_or_else(|| problem("confidence", "must be a number from 0 to 1"))?,
    };
    let diagram = read_diagram(map, category)?;
    Ok(EntryFields {
        entity_name,
        namespace: ns,
        category,
        status,
        tags,
        created_at,
        updated_at,
        supersedes: names(map, Key::Supersedes)?,
        rationale: optional_str(map, Key::Rationale)?,
        confidence,
        source_path: optional_str(map, Key::SourcePath)?,
        related_entities: names(map, Key::RelatedEntities)?,
        diagram,
        body,
    })
}

fn read_diagram(
    map: &impl EntityFields,
    category: Category,
) -> Result<Option<Diagram>, FieldProblem> {
    let language = optional_str(map, Key::DiagramLanguage)?;
    let diagram_type = optional_str(map, Key::DiagramType)?;
    let subject = optional_str(map, Key::DiagramSubject)?;
    let code = optional_str(map, Key::DiagramCode)?;
    let any = language.is_some() || diagram_type.is_some() || subject.is_some() || code.is_some();
    if category != Category::Diagram {
        return if any {
            Err(problem(
                "diagram_code",
                format!("a {category} entity has diagram fields; only a diagram carries them"),
            ))
        } else {
            Ok(None)
        };
    }
    let need = |key: &'static str, value: Option<Cow<'_, str>>| {
        value
            .map(Cow::into_owned)
            .ok_or_else(|| problem(key, format!("a diagram entity needs {key}")))
    };
    Ok(Some(Diagram {
        language: need("diagram_language", language)?,
        diagram_type: need("diagram_type", diagram_type)?,
        subject: need("diagram_subject", subject)?,
        code: need("diagram_code", code)?,
    }))
}

/// A key's value as text: a string, or a number or boolean written plainly (`short_id:
/// 001` reads as the number 1 in YAML; such keys are refused rather than misread).
fn scalar_text(key: &'static str, value: &Value) -> Result<Option<String>, FieldProblem> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        Value::Tagged(tagged) => scalar_text(key, &tagged.value),
        _ => Err(not_single(key)),
    }
}

fn not_single(key: &'static str) -> FieldProblem {
    problem(key, "must be a single value, not a list or mapping")
}

/// [`scalar_text`] of a field, borrowing a string the text holds as it is.
fn field_text<'a>(
    key: &'static str,
    value: Field<'a>,
) -> Result<Option<Cow<'a, str>>, FieldProblem> {
    match value {
        Field::Str(s) => Ok(Some(Cow::Borrowed(s))),
        Field::List(_) => Err(not_single(key)),
        Field::Value(v) => Ok(scalar_text(key, v)?.map(Cow::Owned)),
    }
}

/// A mandatory field's text, trimmed: borrowed from the file when it holds it as it is
/// (the name, namespace, category and status are only checked or parsed, so heal
/// copies none of them here).
fn required_str<'a, M: EntityFields>(map: &'a M, key: Key) -> Result<Cow<'a, str>, FieldProblem> {
    let (value, key) = (map.field(key), key.name());
    match value {
        None => Err(FieldProblem {
            key: None,
            message: format!("the mandatory field {key} is missing"),
        }),
        Some(v) => field_text(key, v)?
            .map(|s| match s {
                Cow::Borrowed(s) => Cow::Borrowed(s.trim()),
                Cow::Owned(s) => Cow::Owned(s.trim().to_string()),
            })
            .filter(|s| !s.is_empty())
            .ok_or_else(|| problem(key, format!("the mandatory field {key} is empty"))),
    }
}

fn optional_str<M: EntityFields>(map: &M, key: Key) -> Result<Option<Cow<'_, str>>, FieldProblem> {
    let (value, key) = (map.field(key), key.name());
    match value {
        None => Ok(None),
        Some(v) => Ok(field_text(key, v)?.filter(|s| !s.trim().is_empty())),
    }
}

/// A list of strings: a YAML sequence (`[a, b]` or `- a` lines), or one comma-separated
/// string as people write by hand (`tags: auth, security`). Empty items are dropped,
/// the same item twice is kept once.
fn string_list(map: &impl EntityFields, key: Key) -> Result<Option<Vec<String>>, FieldProblem> {
    let (value, key) = (map.field(key), key.name());
    let Some(value) = value else {
        return Ok(None);
    };
    let mut items: Vec<String> = Vec::new();
    let mut push = |item: &str| {
        let item = item.trim();
        if !item.is_empty() && !items.iter().any(|i| i == item) {
            items.push(item.to_string());
        }
    };
    match value {
        Field::Value(Value::Null) => {}
        Field::Value(Value::Sequence(seq)) => {
            for v in seq {
                if let Some(s) = scalar_text(key, v)? {
                    push(&s);
                }
            }
        }
        Field::List(list) => {
            for item in list {
                if let Some(s) = field_text(key, Field::of(item))? {
                    push(&s);
                }
            }
        }
        other => {
            if let Some(s) = field_text(key, other)? {
                for part in s.split(',') {
                    push(part);
                }
            }
        }
    }
    Ok(Some(items))
}

fn names(map: &impl EntityFields, key: Key) -> Result<Vec<EntityName>, FieldProblem> {
    let list = string_list(map, key)?;
    let key = key.name();
    list.unwrap_or_default()
        .iter()
        .map(|n| EntityName::parse(n).map_err(|e| problem(key, e.to_string())))
        .collect()
}

/// A timestamp as the seed writes it (`2026-04-03T10:00:00Z`), any RFC 3339 time, or a
/// date (`2026-04-03`).
fn check_timestamp(key: &'static str, value: &str) -> Result<(), FieldProblem> {
    // The forms people and editors write (Obsidian's date-time property is
    // `2026-04-03T10:00`): the Agent Memory reader's lenient set — a date, then `T` or a
    // space, `HH:MM[:SS[.f]]`, an optional offset — checked the same way.
    if crate::Timestamp::is_readable(value) {
        Ok(())
    } else {
        Err(problem(
            key,
            format!("{value:?} is not a timestamp (write it like 2026-04-03T10:00:00Z)"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::FieldsRef;

    fn map(yaml: &str) -> FieldsRef<'static> {
        FieldsRef::from(crate::markdown::Fields::from(
            serde_yaml::from_str::<serde_yaml::Mapping>(yaml).unwrap(),
        ))
    }

    const SEED: &str = "entity_name: org.global.decision.001\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [auth, security]\ncreated_at: 2026-04-03T10:00:00Z\nrationale: Brief explanation of why\nsupersedes: []\nconfidence: 0.9\nsource_path: docs:global/decisions/auth-flow.md\nupdated_at: 2026-04-03T10:00:00Z\n";

    #[test]
    fn timestamps_read_in_the_spellings_editors_write() {
        let ns = Namespace::org_global();
        for value in [
            "2026-04-03T10:00:00Z",
            "2026-04-03T10:00",
            "2026-04-03 10:00",
            "2026-04-03 10:00:00",
            "2026-04-03T10:00:00.123+02:00",
            "2026-04-03",
            "'2026-04-03T10:00:00Z'",
        ] {
            let yaml = SEED.replace(
                "created_at: 2026-04-03T10:00:00Z",
                &format!("created_at: {value}"),
            );
            let read = read_entry(
                &map(&yaml),
                "Body.\n",
                &ns,
                PathBuf::from("org/global/decision-001-auth-flow.md"),
                None,
            );
            assert!(read.is_ok(), "{value}: {read:?}");
        }
        for value in [
            "2026-13-03",
            "03.04.2026",
            "2026-04-03T25:00",
            "2026-04-03T10:00 tomorrow",
        ] {
            let yaml = SEED.replace(
                "created_at: 2026-04-03T10:00:00Z",
                &format!("created_at: {value}"),
            );
            let read = read_entry(
                &map(&yaml),
                "Body.\n",
                &ns,
                PathBuf::from("org/global/decision-001-auth-flow.md"),
                None,
            );
            assert!(read.is_err(), "{value}");
        }
    }

    #[test]
    fn the_seeds_entity_reads() {
        let entry = read_entry(
            &map(SEED),
            "Body text with the conclusion. 1-3 sentences.\n",
            &Namespace::org_global(),
            PathBuf::from("org/global/decision-001-auth-flow.md"),
            None,
        )
        .unwrap();
        assert_eq!(entry.entity_name.as_str(), "org.global.decision.001");
        assert_eq!(entry.tags, ["auth", "security"]);
        assert_eq!(entry.confidence, Some(0.9));
        assert!(entry.supersedes.is_empty());
        assert_eq!(entry.summary, "Body text with the conclusion.");
    }

    #[test]
    fn every_rule_names_its_key() {
        let ns = Namespace::org_global();
        for (from, to, key) in [
            ("status: accepted", "status: done", "status"),
            ("tags: [auth, security]", "tags: [auth]", "tags"),
            ("confidence: 0.9", "confidence: high", "confidence"),
            ("confidence: 0.9", "confidence: 1.5", "confidence"),
            (
                "created_at: 2026-04-03T10:00:00Z",
                "created_at: yesterday",
                "created_at",
            ),
            (
                "namespace: org.global",
                "namespace: org.security",
                "namespace",
            ),
            ("category: decision", "category: note", "category"),
            // A valid category the name does not carry: the name is what disagrees.
            ("category: decision", "category: risk", "entity_name"),
            (
                "entity_name: org.global.decision.001",
                "entity_name: org.global.decision",
                "entity_name",
            ),
            ("supersedes: []", "supersedes: [not-a-name]", "supersedes"),
            (
                "rationale: Brief explanation of why",
                "rationale: [a, b]",
                "rationale",
            ),
        ] {
            let broken = SEED.replace(from, to);
            let err = read_entry(&map(&broken), "b", &ns, PathBuf::new(), None).unwrap_err();
            assert_eq!(err.key, Some(key), "{to}: {err:?}");
        }
        let missing = SEED.replace("created_at: 2026-04-03T10:00:00Z\n", "");
        let err = read_entry(&map(&missing), "b", &ns, PathBuf::new(), None).unwrap_err();
        assert!(err.message.contains("created_at is missing"), "{err:?}");
    }

    #[test]
    fn hand_written_lists_and_unknown_keys_read() {
        let hand = SEED
            .replace("tags: [auth, security]", "tags: auth, security, auth")
            .replace(
                "supersedes: []",
                "supersedes:\n- org.global.decision.000\nowner: alice",
            );
        let entry = read_entry(
            &map(&hand),
            "b",
            &Namespace::org_global(),
            PathBuf::new(),
            None,
        )
        .unwrap();
        assert_eq!(entry.tags, ["auth", "security"]);
        assert_eq!(entry.supersedes[0].as_str(), "org.global.decision.000");
    }

    #[test]
    fn the_diagram_variant_needs_all_four_fields() {
        let diagram = "entity_name: org.global.diagram.001\nnamespace: org.global\ncategory: diagram\nstatus: accepted\ntags: [memory, flow]\ncreated_at: 2026-04-03T10:00:00Z\ndiagram_language: mermaid\ndiagram_type: flowchart\ndiagram_subject: memory-write-flow\ndiagram_code: |\n  flowchart TD\n    A[Start] --> B[Write file]\nrelated_entities: [org.global.decision.001]\n";
        let entry = read_entry(
            &map(diagram),
            "The flow.",
            &Namespace::org_global(),
            PathBuf::new(),
            None,
        )
        .unwrap();
        let d = entry.diagram.unwrap();
        assert_eq!(d.code, "flowchart TD\n  A[Start] --> B[Write file]\n");
        assert_eq!(entry.related_entities.len(), 1);
        let partial = diagram.replace("diagram_subject: memory-write-flow\n", "");
        let err = read_entry(
            &map(&partial),
            "b",
            &Namespace::org_global(),
            PathBuf::new(),
            None,
        )
        .unwrap_err();
        assert_eq!(err.key, Some("diagram_subject"));
        let stray = SEED.to_string() + "diagram_code: x\n";
        assert!(
            read_entry(
                &map(&stray),
                "b",
                &Namespace::org_global(),
                PathBuf::new(),
                None
            )
            .is_err()
        );
    }
}
