//! The typed read: the block (or one value) parsed by serde_yaml, with YAML errors turned
//! into [`ParseIssue`]s that name the file's line and say what is wrong in plain words.

use serde_yaml::{Mapping, Value};

use super::super::ParseIssue;
use super::fast::{self, Simple};
use super::fields::{Fields, FieldsRef};
use super::keys::{FrontmatterKeys, KeyEntry};
use super::locate::Frontmatter;

impl Frontmatter {
    /// The block as a mapping (empty for a block with no keys). A YAML error or a block
    /// that is not a mapping is a [`ParseIssue`] whose line is the file's line.
    ///
    /// ```
    /// use memory_core::markdown::Frontmatter;
    /// let text = "---\nstatus: accepted\ntags: [a, b]\n---\nBody\n";
    /// let fm = Frontmatter::locate(text).unwrap().unwrap();
    /// let map = fm.mapping(text).unwrap();
    /// assert_eq!(map["status"].as_str(), Some("accepted"));
    /// let bad = "---\na: 1\nb: [x, y\n---\n";
    /// let issue = Frontmatter::locate(bad).unwrap().unwrap().mapping(bad).unwrap_err();
    /// assert_eq!(issue.line, 4);
    /// ```
    pub fn mapping(&self, text: &str) -> Result<Mapping, ParseIssue> {
        match self.value(text)? {
            Value::Mapping(map) => Ok(map),
            Value::Null => Ok(Mapping::new()),
            other => Err(ParseIssue {
                line: self.yaml_line,
                message: format!(
                    "the frontmatter is {}, not `key: value` lines",
                    describe(&other)
                ),
            }),
        }
    }

    /// The block as any YAML value (null for an empty block).
    ///
    /// ```
    /// use memory_core::markdown::Frontmatter;
    /// let text = "---\n- a\n---\n";
    /// let fm = Frontmatter::locate(text).unwrap().unwrap();
    /// assert!(fm.value(text).unwrap().is_sequence());
    /// assert!(fm.mapping(text).is_err());
    /// ```
    pub fn value(&self, text: &str) -> Result<Value, ParseIssue> {
        parse(self.yaml(text), self.yaml_line)
    }
}

impl FrontmatterKeys {
    /// The value of `key`, parsed alone (not the whole block); `None` when the key is
    /// absent. A value that uses an alias defined by another key is read from the whole
    /// block.
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\nconfidence: 0.9 # high\ntags:\n  - a\n  - b\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// assert_eq!(keys.value(text, "confidence").unwrap().unwrap().as_f64(), Some(0.9));
    /// assert_eq!(keys.value(text, "tags").unwrap().unwrap().as_sequence().unwrap().len(), 2);
    /// assert_eq!(keys.value(text, "missing").unwrap(), None);
    /// ```
    pub fn value(&self, text: &str, key: &str) -> Result<Option<Value>, ParseIssue> {
        let Some(entry) = self.get(text, key) else {
            return Ok(None);
        };
        entry_value(&self.frontmatter, text, entry).map(Some)
    }
}

impl FrontmatterKeys {
    /// The block as a mapping built entry by entry: simple values (single-line plain
    /// and quoted scalars, flat flow lists) are read without the YAML parser, the others
    /// are parsed alone, so it equals [`Frontmatter::mapping`] at a fraction of the
    /// cost. A block that uses aliases is parsed whole.
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\nstatus: accepted\ntags: [auth, 'sso']\nconfidence: 0.9\nn: ~\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let map = keys.mapping(text).unwrap();
    /// assert_eq!(map, keys.frontmatter.mapping(text).unwrap());
    /// assert_eq!(map["tags"][1].as_str(), Some("sso"));
    /// ```
    pub fn mapping(&self, text: &str) -> Result<Mapping, ParseIssue> {
        match self.pairs(text) {
            Some(pairs) => Ok(pairs.into_iter().collect()),
            None => self.frontmatter.mapping(text),
        }
    }

    /// The block's values for looking up by key: what [`FrontmatterKeys::mapping`]
    /// reads, without building the mapping's hash table when the entries read one by
    /// one (a reader of a dozen known keys then searches a short list).
    ///
    /// ```
    /// use memory_core::markdown::FrontmatterKeys;
    /// let text = "---\nstatus: accepted\nx: &a 1\ny: *a\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let fields = keys.fields(text).unwrap();
    /// assert_eq!(fields.get("y").and_then(|v| v.as_u64()), Some(1));
    /// ```
    pub fn fields(&self, text: &str) -> Result<Fields, ParseIssue> {
        match self.pairs(text) {
            Some(pairs) => Ok(Fields::from_pairs(pairs)),
            None => self.frontmatter.mapping(text).map(Fields::from),
        }
    }

    /// [`FrontmatterKeys::fields`] with values borrowed from `text` where it holds them
    /// as they are (the entity reader's input): the same entries, the same values, the
    /// same refusals.
    pub(crate) fn fields_ref<'t>(&self, text: &'t str) -> Result<FieldsRef<'t>, ParseIssue> {
        match self.simple_pairs(text) {
            Some(pairs) => Ok(FieldsRef::from_pairs(pairs)),
            None => self
                .frontmatter
                .mapping(text)
                .map(|map| FieldsRef::from(Fields::from(map))),
        }
    }

    /// The entries read one by one, in order; `None` when the block must be parsed whole
    /// (aliases, an odd key, a value that does not parse alone).
    fn pairs(&self, text: &str) -> Option<Vec<(Value, Value)>> {
        let pairs = self.simple_pairs(text)?;
        Some(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into_value(), v.into_value()))
                .collect(),
        )
    }

    /// [`FrontmatterKeys::pairs`] with strings borrowed from `text` where it holds them
    /// as they are (what [`FrontmatterKeys::fields_ref`] keeps).
    pub(super) fn simple_pairs<'t>(&self, text: &'t str) -> Option<Vec<(Simple<'t>, Simple<'t>)>> {
        let yaml = self.frontmatter.yaml(text);
        if memchr::memchr(b'*', yaml.as_bytes()).is_some() {
            return None;
        }
        let mut pairs = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let key = if entry.quoted {
                Simple::Str(entry.name(text))
            } else {
                // An odd key (`::`, `1e3`…): serde_yaml reads the block.
                fast::plain(text.get(entry.key.clone()).unwrap_or(""))?
            };
            // What does not parse alone is judged (and its error told) in context.
            pairs.push((key, value_alone(text, entry)?));
        }
        Some(pairs)
    }
}

/// The value of one entry read alone (simple values without the YAML parser); `None`
/// when it does not parse alone.
fn value_alone<'t>(text: &'t str, entry: &KeyEntry) -> Option<Simple<'t>> {
    let raw = entry.raw_value(text);
    if raw.starts_with("---") || raw.starts_with("...") {
        // Alone, the value would start with a document marker.
        return None;
    }
    fast::simple(raw, entry.style).or_else(|| serde_yaml::from_str(raw).ok().map(Simple::Other))
}

/// The value of one entry, read alone or, when that fails (an alias, an error), from
/// the whole block, whose error names the file line.
pub(super) fn entry_value(
    fm: &Frontmatter,
    text: &str,
    entry: &KeyEntry,
) -> Result<Value, ParseIssue> {
    if let Some(value) = value_alone(text, entry) {
        return Ok(value.into_value());
    }
    let map = fm.mapping(text)?;
    let name = entry.name(text);
    Ok(map
        .get(Value::String(name.into_owned()))
        .cloned()
        .unwrap_or(Value::Null))
}

/// Parses `yaml`, whose first line is the file's line `first_line`.
pub(super) fn parse(yaml: &str, first_line: usize) -> Result<Value, ParseIssue> {
    serde_yaml::from_str::<Value>(yaml).map_err(|err| issue_of(yaml, first_line, &err))
}

/// The [`ParseIssue`] for a serde_yaml error on text starting at file line `first_line`.
fn issue_of(yaml: &str, first_line: usize, err: &serde_yaml::Error) -> ParseIssue {
    let original = err.to_string();
    let mut line = err
        .location()
        .map_or(first_line, |l| first_line + l.line().saturating_sub(1));
    if original.starts_with("control characters are not allowed")
        && let Some(at) = yaml
            .bytes()
            .position(|c| c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r') || c == 0x7f)
    {
        line = first_line + memchr::memchr_iter(b'\n', &yaml.as_bytes()[..at]).count();
    }
    ParseIssue {
        line,
        message: plain_words(&shift_lines(&original, first_line - 1)),
    }
}

/// `original` with every `line N` of a libyaml message moved down by `offset` lines, so
/// that it names the file's lines.
fn shift_lines(original: &str, offset: usize) -> String {
    let mut out = String::with_capacity(original.len() + 8);
    let mut rest = original;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(n) => out.push_str(&(n + offset).to_string()),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// The libyaml message said in plain words, the original kept after it.
fn plain_words(message: &str) -> String {
    const PLAIN: [(&str, &str); 9] = [
        (
            "mapping values are not allowed",
            "a value contains `: `; put the value in double quotes",
        ),
        (
            "found character that cannot start any token",
            "a value starts with a character YAML reserves (`@`, `` ` ``, `%`, a tab…); put \
             the value in double quotes",
        ),
        (
            "found unexpected end of stream",
            "the frontmatter ends inside an unclosed quote, list or mapping",
        ),
        (
            "did not find expected key",
            "a line is indented as if it continued the previous value; check the indentation",
        ),
        (
            "did not find expected ',' or ']'",
            "a `[` list is not closed by `]` (or an item in it needs quotes)",
        ),
        (
            "did not find expected ',' or '}'",
            "a `{` mapping is not closed by `}` (or an item in it needs quotes)",
        ),
        (
            "control characters are not allowed",
            "a control character (such as NUL or ESC) is in the frontmatter",
        ),
        (
            "duplicate entry with key",
            "the same key appears twice in one mapping",
        ),
        (
            "unknown anchor",
            "an `*alias` refers to an `&anchor` that is not defined before it",
        ),
    ];
    match PLAIN.iter().find(|(pat, _)| message.contains(pat)) {
        Some((_, plain)) => format!("invalid YAML: {plain} ({message})"),
        None => format!("invalid YAML: {message}"),
    }
}

/// A value's kind in words.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a single text",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_lines() {
        let cases = [
            ("---\na: 1\nb: c: d\n---\n", 3, "double quotes"),
            ("---\na: 1\nb: \"open\n---\n", 4, "unclosed"),
            ("---\na: 1\nb: @x\n---\n", 3, "reserves"),
            ("---\na: 1\nb: x\u{1}\n---\n", 3, "control character"),
            ("---\nx\n---\n", 2, "a single text"),
        ];
        for (text, line, words) in cases {
            let fm = Frontmatter::locate(text).unwrap().unwrap();
            let issue = fm.mapping(text).unwrap_err();
            assert_eq!(issue.line, line, "{text:?}: {issue:?}");
            assert!(issue.message.contains(words), "{text:?}: {issue:?}");
            assert!(!issue.message.contains("line 1 "), "{issue:?}");
        }
    }

    #[test]
    fn libyaml_lines_are_shifted() {
        assert_eq!(
            shift_lines("x at line 2 column 1, while y at line 1 column 4", 5),
            "x at line 7 column 1, while y at line 6 column 4"
        );
    }
}
