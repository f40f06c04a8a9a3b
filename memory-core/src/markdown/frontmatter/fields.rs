//! A block's top-level values looked up by key name, as a reader of known keys needs
//! them: the entries read one by one kept in a list (a handful of keys, searched
//! without hashing), or the whole block's mapping when it had to be parsed whole.

use serde_yaml::{Mapping, Value};

use super::fast::Simple;

/// The top-level `key: value` entries of a frontmatter block, for looking values up by
/// key. [`Fields::get`] answers exactly what [`Mapping::get`] answers on the block's
/// mapping ([`super::FrontmatterKeys::mapping`]): only text keys match, and of a key
/// written twice (once quoted) the later value counts.
///
/// ```
/// use memory_core::markdown::FrontmatterKeys;
/// let text = "---\nstatus: accepted\ntags: [a, b]\n1: one\n---\n";
/// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
/// let fields = keys.fields(text).unwrap();
/// assert_eq!(fields.get("status").and_then(|v| v.as_str()), Some("accepted"));
/// assert_eq!(fields.get("1"), None, "the key 1 is a number");
/// assert_eq!(fields.len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    repr: Repr,
}

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    Pairs(Vec<(Value, Value)>),
    Mapping(Mapping),
}

impl Fields {
    /// Entries read one by one, in file order.
    pub(super) fn from_pairs(pairs: Vec<(Value, Value)>) -> Self {
        Fields {
            repr: Repr::Pairs(pairs),
        }
    }

    /// The value of the text key `key`, as [`Mapping::get`] gives it.
    ///
    /// ```
    /// use memory_core::markdown::Fields;
    /// let map: serde_yaml::Mapping = serde_yaml::from_str("a: 1\nb: [x]").unwrap();
    /// let fields = Fields::from(map);
    /// assert_eq!(fields.get("a").and_then(|v| v.as_u64()), Some(1));
    /// assert!(fields.get("c").is_none());
    /// ```
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.repr {
            // A later entry replaces an earlier one with the same key in a mapping.
            Repr::Pairs(pairs) => pairs
                .iter()
                .rev()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            Repr::Mapping(map) => map.get(key),
        }
    }

    /// How many entries the block has (a key written twice counts once).
    ///
    /// ```
    /// let fields = memory_core::markdown::Fields::from(serde_yaml::Mapping::new());
    /// assert_eq!(fields.len(), 0);
    /// assert!(fields.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Pairs(pairs) => pairs
                .iter()
                .enumerate()
                .filter(|(i, (k, _))| !pairs[i + 1..].iter().any(|(later, _)| later == k))
                .count(),
            Repr::Mapping(map) => map.len(),
        }
    }

    /// Whether the block has no entries.
    ///
    /// ```
    /// assert!(memory_core::markdown::Fields::from(serde_yaml::Mapping::new()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<Mapping> for Fields {
    fn from(map: Mapping) -> Self {
        Fields {
            repr: Repr::Mapping(map),
        }
    }
}

/// [`Fields`] with the values borrowed from the text where it holds them as they are:
/// what a typed reader of known keys reads, without building a [`Value`] for every
/// plain or simply quoted scalar. [`FieldsRef::get`] finds the entry [`Fields::get`]
/// finds, and its value is the same value (a proptest of the entity reader compares
/// both ways).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldsRef<'t> {
    repr: RefRepr<'t>,
}

#[derive(Debug, Clone, PartialEq)]
enum RefRepr<'t> {
    Pairs(Vec<(Simple<'t>, Simple<'t>)>),
    Whole(Fields),
}

/// One value of a [`FieldsRef`]: a string, a list of simple values, or a value as
/// serde_yaml reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Field<'a> {
    /// A string scalar.
    Str(&'a str),
    /// A sequence of simple values.
    List(&'a [Simple<'a>]),
    /// Any other value.
    Value(&'a Value),
}

impl<'a> Field<'a> {
    /// The field of a simple value.
    pub(crate) fn of(value: &'a Simple<'a>) -> Field<'a> {
        match value {
            Simple::Str(s) => Field::Str(s),
            Simple::List(items) => Field::List(items),
            Simple::Other(v) => Field::Value(v),
        }
    }

    /// The text of a string value, as [`Value::as_str`] gives it.
    pub(crate) fn as_str(self) -> Option<&'a str> {
        match self {
            Field::Str(s) => Some(s),
            Field::List(_) => None,
            Field::Value(v) => v.as_str(),
        }
    }
}

impl<'t> FieldsRef<'t> {
    /// Entries read one by one, in file order.
    pub(super) fn from_pairs(pairs: Vec<(Simple<'t>, Simple<'t>)>) -> Self {
        FieldsRef {
            repr: RefRepr::Pairs(pairs),
        }
    }

    /// The value of the text key `key`, as [`Fields::get`] finds it.
    pub(crate) fn get(&self, key: &str) -> Option<Field<'_>> {
        match &self.repr {
            // A later entry replaces an earlier one with the same key in a mapping.
            RefRepr::Pairs(pairs) => pairs
                .iter()
                .rev()
                .find(|(k, _)| Field::of(k).as_str() == Some(key))
                .map(|(_, v)| Field::of(v)),
            RefRepr::Whole(fields) => fields.get(key).map(Field::Value),
        }
    }
}

impl From<Fields> for FieldsRef<'_> {
    fn from(fields: Fields) -> Self {
        FieldsRef {
            repr: RefRepr::Whole(fields),
        }
    }
}
