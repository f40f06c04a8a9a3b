//! Reading the common simple values without the YAML parser: single-line plain and
//! quoted scalars and single-line flow lists of them, resolved exactly as serde_yaml
//! resolves them (the core schema: null, booleans, integers, floats, else a string).
//! Anything else returns `None` and is parsed by serde_yaml; a proptest compares both.
//! Strings are borrowed from the text where it holds them as they are ([`Simple`]);
//! [`simple_value`] is the same read turned into a [`Value`].

use std::borrow::Cow;

use serde_yaml::Value;

use super::keys::ValueStyle;

/// A simple value as read from the text: a string (borrowed when the text holds it as
/// it is), a list of simple values, or any other scalar as serde_yaml resolves it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Simple<'t> {
    /// A string scalar.
    Str(Cow<'t, str>),
    /// A sequence.
    List(Vec<Simple<'t>>),
    /// Any other value (null, a boolean, a number, or what serde_yaml read alone).
    Other(Value),
}

impl Simple<'_> {
    /// The value serde_yaml gives.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Simple::Str(s) => Value::String(s.into_owned()),
            Simple::List(items) => {
                Value::Sequence(items.into_iter().map(Simple::into_value).collect())
            }
            Simple::Other(v) => v,
        }
    }
}

/// The value of `raw` (a value's text, written in `style`) when it is simple.
#[cfg(test)]
pub(super) fn simple_value(raw: &str, style: ValueStyle) -> Option<Value> {
    simple(raw, style).map(Simple::into_value)
}

/// [`simple_value`], borrowing strings from `raw`.
pub(super) fn simple(raw: &str, style: ValueStyle) -> Option<Simple<'_>> {
    if let ValueStyle::BlockSequence { indent, .. } = style {
        return block_list(raw, indent);
    }
    if raw.contains('\n') {
        return None;
    }
    // A one-line value below its key starts with the line's indentation.
    let raw = raw.trim_start_matches([' ', '\t']);
    match style {
        ValueStyle::Empty if raw.is_empty() => Some(Simple::Other(Value::Null)),
        ValueStyle::Plain => plain(raw),
        ValueStyle::SingleQuoted | ValueStyle::DoubleQuoted => quoted(raw).map(Simple::Str),
        ValueStyle::FlowSequence => flow_list(raw),
        _ => None,
    }
}

/// A plain scalar resolved as serde_yaml does, for the shapes that are clear.
pub(super) fn plain(s: &str) -> Option<Simple<'_>> {
    let first = *s.as_bytes().first()?;
    let second = s.as_bytes().get(1).copied();
    // Properties, aliases and other indicators are left to the parser, as are `-`, `?`
    // and `:` where they would be indicators.
    if super::lex::starts_no_plain_scalar(first)
        || matches!(first, b'\'' | b'"')
        || matches!(first, b'-' | b'?' | b':') && second.is_none_or(|c| c == b' ' || c == b'\t')
    {
        return None;
    }
    if first.is_ascii_alphabetic() || first >= 0x80 {
        return Some(match s {
            "null" | "Null" | "NULL" => Simple::Other(Value::Null),
            "true" | "True" | "TRUE" => Simple::Other(Value::Bool(true)),
            "false" | "False" | "FALSE" => Simple::Other(Value::Bool(false)),
            // Rust's float parser reads `inf`, `infinity` and `nan`; serde_yaml keeps
            // non-finite results as strings, like every other word.
            _ => Simple::Str(Cow::Borrowed(s)),
        });
    }
    if first == b'~' && s.len() == 1 {
        return Some(Simple::Other(Value::Null));
    }
    // A byte that no number form of serde_yaml holds (`:` and `T` of a timestamp, a
    // space…) makes the scalar a string.
    let numeric = |c: u8| {
        c.is_ascii_hexdigit()
            || matches!(
                c,
                b'x' | b'X'
                    | b'o'
                    | b'O'
                    | b'.'
                    | b'+'
                    | b'-'
                    | b'i'
                    | b'I'
                    | b'n'
                    | b'N'
                    | b't'
                    | b'T'
                    | b'y'
                    | b'Y'
            )
    };
    if first != b'.' && !s.bytes().all(numeric) {
        return Some(Simple::Str(Cow::Borrowed(s)));
    }
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let int_part = digits.split('.').next().unwrap_or("");
    let simple_digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !simple_digits(int_part) || (int_part.len() > 1 && int_part.starts_with('0')) {
        return None;
    }
    let number = match digits.split_once('.') {
        None if negative => s.parse::<i64>().ok().map(Value::from),
        None => s.parse::<u64>().ok().map(Value::from),
        Some((_, frac)) if simple_digits(frac) => s
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Value::from),
        Some(_) => None,
    };
    number.map(Simple::Other)
}

/// A block list whose every line is `- item` at column `indent`, with one-line plain or
/// simply quoted items and no comments or blank lines.
fn block_list(raw: &str, indent: usize) -> Option<Simple<'_>> {
    let mut items = Vec::new();
    for line in raw.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let rest = line.get(indent..)?;
        if !line[..indent].bytes().all(|c| c == b' ') {
            return None;
        }
        let item = rest.strip_prefix("- ")?.trim_matches(' ');
        let value = match item.as_bytes().first() {
            Some(b'\'' | b'"') => Simple::Str(quoted(item)?),
            Some(_)
                if !item.contains(['#', '\t']) && !item.contains(": ") && !item.ends_with(':') =>
            {
                plain(item)?
            }
            _ => return None,
        };
        items.push(value);
    }
    Some(Simple::List(items))
}

/// A single-line quoted scalar's text: `''` is a quote in single quotes; double quotes
/// without escapes are taken as they are.
fn quoted(raw: &str) -> Option<Cow<'_, str>> {
    let b = raw.as_bytes();
    if b.len() < 2 || b[0] != b[b.len() - 1] {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    match b[0] {
        // The scalar must close at the last byte (a lone `'` inside closes it early).
        b'\'' if close_of(raw, b'\'') == Some(raw.len()) => Some(if inner.contains("''") {
            Cow::Owned(inner.replace("''", "'"))
        } else {
            Cow::Borrowed(inner)
        }),
        b'"' if !inner.contains(['\\', '"']) => Some(Cow::Borrowed(inner)),
        _ => None,
    }
}

/// A single-line flow list of plain or simply quoted scalars.
pub(super) fn flow_list(raw: &str) -> Option<Simple<'_>> {
    let inner = raw.strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(Simple::List(Vec::new()));
    }
    if inner
        .bytes()
        .any(|c| matches!(c, b'[' | b']' | b'{' | b'}' | b'#'))
    {
        return None;
    }
    let mut items = Vec::new();
    let mut rest = inner;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        let (item, after) = match rest.as_bytes().first() {
            Some(&q @ (b'\'' | b'"')) => {
                let close = close_of(rest, q)?;
                let value = quoted(&rest[..close])?;
                (
                    Simple::Str(value),
                    rest[close..].trim_start_matches([' ', '\t']),
                )
            }
            Some(_) => {
                let end = rest.find(',').unwrap_or(rest.len());
                let text = rest[..end].trim_end_matches([' ', '\t']);
                if !flow_plain_ok(text) {
                    return None;
                }
                (plain(text)?, &rest[end..])
            }
            None => return None,
        };
        items.push(item);
        match after.strip_prefix(',') {
            Some(next) if next.trim().is_empty() => break,
            Some(next) => rest = next,
            None if after.is_empty() => break,
            None => return None,
        }
    }
    Some(Simple::List(items))
}

/// Just past the quote closing the quoted scalar at the start of `s`.
fn close_of(s: &str, q: u8) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        if b[i] == q {
            if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Whether a plain item of a flow list is clearly one scalar: no indicator first, no
/// `:` (a `key: value` pair or an adjacent value), no white space inside but single spaces.
fn flow_plain_ok(s: &str) -> bool {
    let Some(first) = s.bytes().next() else {
        return false;
    };
    // Byte tests, not `str` pattern searches: every tag of every entity file goes through
    // here. The indicators no plain scalar starts with, and those that start none in a
    // flow list (`-`, `?`, `:` before anything, quotes).
    let indicator = super::lex::starts_no_plain_scalar(first)
        || matches!(first, b'-' | b'?' | b':' | b'\'' | b'"');
    !indicator
        && !s.bytes().any(|c| c == b':' || c == b'\t')
        && !s.as_bytes().windows(2).any(|w| w == b"  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_serde_yaml_on_simple_values() {
        let cases = [
            ("x", ValueStyle::Plain),
            ("2026-04-03T10:00:00Z", ValueStyle::Plain),
            ("2026-04-03", ValueStyle::Plain),
            ("1.2.3", ValueStyle::Plain),
            ("1e3", ValueStyle::Plain),
            ("0x1F", ValueStyle::Plain),
            ("1_000", ValueStyle::Plain),
            ("12 monkeys", ValueStyle::Plain),
            ("+1", ValueStyle::Plain),
            ("-.5", ValueStyle::Plain),
            ("-inf", ValueStyle::Plain),
            ("10:30", ValueStyle::Plain),
            ("&a x", ValueStyle::Plain),
            ("!!str 1", ValueStyle::Plain),
            ("-x", ValueStyle::Plain),
            ("?x", ValueStyle::Plain),
            (":x", ValueStyle::Plain),
            ("docs:global/a.md", ValueStyle::Plain),
            ("null", ValueStyle::Plain),
            ("NULL", ValueStyle::Plain),
            ("nULL", ValueStyle::Plain),
            ("~", ValueStyle::Plain),
            ("True", ValueStyle::Plain),
            ("yes", ValueStyle::Plain),
            ("inf", ValueStyle::Plain),
            ("nan", ValueStyle::Plain),
            ("0.9", ValueStyle::Plain),
            ("-12", ValueStyle::Plain),
            ("0", ValueStyle::Plain),
            ("012", ValueStyle::Plain),
            ("18446744073709551616", ValueStyle::Plain),
            ("-9223372036854775809", ValueStyle::Plain),
            ("登入", ValueStyle::Plain),
            ("'it''s'", ValueStyle::SingleQuoted),
            ("\"a: b\"", ValueStyle::DoubleQuoted),
            ("[a, 'b, c', \"d\", 1, null, x y]", ValueStyle::FlowSequence),
            ("[a, ]", ValueStyle::FlowSequence),
            ("[ ]", ValueStyle::FlowSequence),
            ("[a:b, c]", ValueStyle::FlowSequence),
        ];
        let cases = cases.into_iter().chain([
            (
                "- a\n- 'b c'\n- 1",
                ValueStyle::BlockSequence { indent: 0, gap: 1 },
            ),
            (
                "  - a\n  - \"x: y\"",
                ValueStyle::BlockSequence { indent: 2, gap: 1 },
            ),
            ("  - a: b", ValueStyle::BlockSequence { indent: 2, gap: 1 }),
            ("- - a", ValueStyle::BlockSequence { indent: 0, gap: 1 }),
        ]);
        for (raw, style) in cases {
            let expected = serde_yaml::from_str::<Value>(raw);
            if let Some(fast) = simple_value(raw, style) {
                let expected = expected.unwrap();
                assert_eq!(fast, expected, "{raw:?}");
            }
        }
        assert!(simple_value("x", ValueStyle::Plain).is_some());
        assert!(simple_value("&a x", ValueStyle::Plain).is_none());
        let list = ValueStyle::BlockSequence { indent: 2, gap: 1 };
        assert!(simple_value("  - a\n  - b", list).is_some());
        assert!(simple_value("  - a # c\n  - b", list).is_none());
        assert!(simple_value("'','", ValueStyle::SingleQuoted).is_none());
        assert!(simple_value("'a' 'b'", ValueStyle::SingleQuoted).is_none());
        assert!(simple_value("[a, b]", ValueStyle::FlowSequence).is_some());
        assert!(simple_value("\"a\\n\"", ValueStyle::DoubleQuoted).is_none());
    }
}
