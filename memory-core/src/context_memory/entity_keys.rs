//! The seed's entity keys as places, and where the entity reader finds their values:
//! by name in a block's lookup list ([`FieldsRef`]), or by place in the slots the typed
//! scan of the usual block fills (`entity_lines.rs`), which looks no name up.

use super::entity::ENTITY_KEYS;
use crate::markdown::{Field, FieldsRef};

/// One of the seed's keys ([`ENTITY_KEYS`]), in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    EntityName,
    Namespace,
    Category,
    Status,
    Tags,
    CreatedAt,
    Rationale,
    Supersedes,
    Confidence,
    SourcePath,
    UpdatedAt,
    DiagramLanguage,
    DiagramType,
    DiagramSubject,
    DiagramCode,
    RelatedEntities,
}

impl Key {
    /// How many keys there are.
    pub(crate) const COUNT: usize = ENTITY_KEYS.len();

    /// The key's name in a file.
    pub(crate) fn name(self) -> &'static str {
        ENTITY_KEYS[self as usize]
    }

    /// The key named `name` (a plain key's bytes as written), or `None` for any other.
    pub(crate) fn of(name: &[u8]) -> Option<Key> {
        Some(match name {
            b"entity_name" => Key::EntityName,
            b"namespace" => Key::Namespace,
            b"category" => Key::Category,
            b"status" => Key::Status,
            b"tags" => Key::Tags,
            b"created_at" => Key::CreatedAt,
            b"rationale" => Key::Rationale,
            b"supersedes" => Key::Supersedes,
            b"confidence" => Key::Confidence,
            b"source_path" => Key::SourcePath,
            b"updated_at" => Key::UpdatedAt,
            b"diagram_language" => Key::DiagramLanguage,
            b"diagram_type" => Key::DiagramType,
            b"diagram_subject" => Key::DiagramSubject,
            b"diagram_code" => Key::DiagramCode,
            b"related_entities" => Key::RelatedEntities,
            _ => return None,
        })
    }
}

/// Where the entity reader ([`super::entity::read_entry`]) finds the value of a key.
pub(crate) trait EntityFields {
    /// The value of `key`, as [`FieldsRef::get`] finds it by its name.
    fn field(&self, key: Key) -> Option<Field<'_>>;
}

impl EntityFields for FieldsRef<'_> {
    fn field(&self, key: Key) -> Option<Field<'_>> {
        self.get(key.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is found by its name, in the order of [`ENTITY_KEYS`], and no other
    /// name is a key.
    #[test]
    fn each_key_is_found_by_its_name() {
        for (i, name) in ENTITY_KEYS.iter().enumerate() {
            let key = Key::of(name.as_bytes()).unwrap();
            assert_eq!((key as usize, key.name()), (i, *name));
        }
        for other in ["", "entity", "Status", "tags ", "entity_names", "x_custom"] {
            assert_eq!(Key::of(other.as_bytes()), None, "{other:?}");
        }
    }
}
