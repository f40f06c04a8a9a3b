//! Rendering new values as YAML text: a string plain when YAML reads it back as the same
//! string (for YAML 1.1 readers too), else double-quoted with escapes; flow lists and
//! mappings; literal block scalars for multi-line text.

use serde_yaml::Value;

use super::super::LineEnding;
use super::keys::ValueStyle;

/// A rendered value, before it is placed in an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Rendered {
    /// Text that goes after `key: ` on the key's line.
    Inline(String),
    /// A literal block scalar: the header (`|`, `|-`, `|2+`…) and the content lines,
    /// to be indented by `indent` spaces.
    Literal {
        header: String,
        lines: Vec<String>,
        indent: usize,
    },
    /// Block list items (each rendered inline) for `- item` lines.
    Items(Vec<String>),
}

impl Rendered {
    /// The content lines of a block scalar, each indented and followed by `le`.
    pub(super) fn body(lines: &[String], indent: usize, le: &str) -> String {
        let mut out = String::new();
        for line in lines {
            if !line.is_empty() {
                out.extend(std::iter::repeat_n(' ', indent));
                out.push_str(line);
            }
            out.push_str(le);
        }
        out
    }
}

/// Renders `value` for a value whose old text had `style`, keeping that style where the
/// new value allows it.
pub(super) fn for_style(value: &Value, style: ValueStyle) -> Rendered {
    match (value, style) {
        (Value::String(s), ValueStyle::DoubleQuoted) => Rendered::Inline(double_quoted(s)),
        (Value::String(s), ValueStyle::SingleQuoted) if single_ok(s) => {
            Rendered::Inline(single_quoted(s))
        }
        (Value::String(s), ValueStyle::BlockScalar { indent, .. }) => {
            literal(s, indent.clamp(1, 9)).unwrap_or_else(|| string(s))
        }
        (Value::String(s), _) => string(s),
        (Value::Sequence(items), ValueStyle::BlockSequence { .. }) if !items.is_empty() => {
            Rendered::Items(items.iter().map(|v| inline(v, false)).collect())
        }
        (Value::Null, ValueStyle::Empty) => Rendered::Inline(String::new()),
        _ => Rendered::Inline(inline(value, false)),
    }
}

/// A string in its default style: plain, a literal block for multi-line text, else
/// double-quoted.
fn string(s: &str) -> Rendered {
    if let Some(plain) = plain(s, false) {
        return Rendered::Inline(plain);
    }
    if s.contains('\n')
        && let Some(block) = literal(s, 2)
    {
        return block;
    }
    Rendered::Inline(double_quoted(s))
}

/// `value` on one line: scalars as [`render_scalar`] (in a flow collection, plain only
/// when no `,[]{}` is involved), lists as `[a, b]`, mappings as `{k: v}`.
pub(super) fn inline(value: &Value, flow: bool) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => plain(s, flow).unwrap_or_else(|| double_quoted(s)),
        Value::Sequence(items) => {
            let items: Vec<String> = items.iter().map(|v| inline(v, true)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Mapping(map) => {
            let pairs: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", inline(k, true), inline(v, true)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
        Value::Tagged(tagged) => format!("{} {}", tagged.tag, inline(&tagged.value, flow)),
    }
}

/// Renders a string as a YAML scalar for a `key: value` line: plain when YAML (1.2, and
/// 1.1 as PyYAML reads it) reads the plain text back as the same string, else
/// double-quoted with escapes.
///
/// ```
/// use memory_core::markdown::render_scalar;
/// assert_eq!(render_scalar("accepted"), "accepted");
/// assert_eq!(render_scalar("2026-04-03T10:00:00Z"), "2026-04-03T10:00:00Z");
/// assert_eq!(render_scalar("a: b"), "\"a: b\"");
/// assert_eq!(render_scalar("yes"), "\"yes\"");
/// assert_eq!(render_scalar("0.9"), "\"0.9\"");
/// assert_eq!(render_scalar(""), "\"\"");
/// assert_eq!(render_scalar("two\nlines"), "\"two\\nlines\"");
/// ```
pub fn render_scalar(s: &str) -> String {
    plain(s, false).unwrap_or_else(|| double_quoted(s))
}

/// Renders a list of strings as a flow list, `[a, "b, c"]`.
///
/// ```
/// use memory_core::markdown::render_flow_list;
/// assert_eq!(render_flow_list(&["auth", "security"]), "[auth, security]");
/// assert_eq!(render_flow_list(&["a,b", "[x]", "no"]), "[\"a,b\", \"[x]\", \"no\"]");
/// assert_eq!(render_flow_list::<&str>(&[]), "[]");
/// ```
pub fn render_flow_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items
        .iter()
        .map(|s| plain(s.as_ref(), true).unwrap_or_else(|| double_quoted(s.as_ref())))
        .collect();
    format!("[{}]", items.join(", "))
}

/// Renders `key: value` as frontmatter lines ending with `le`: the key plain or
/// double-quoted, a string as [`render_scalar`] or (multi-line) a literal block scalar
/// indented by two spaces, a list as a flow list, other values in flow style.
///
/// ```
/// use memory_core::markdown::{LineEnding, render_entry};
/// use serde_yaml::Value;
/// let code = Value::from("flowchart TD\n  A --> B\n");
/// assert_eq!(
///     render_entry("diagram_code", &code, LineEnding::Lf),
///     "diagram_code: |\n  flowchart TD\n    A --> B\n"
/// );
/// let tags = Value::Sequence(vec!["auth".into(), "security".into()]);
/// assert_eq!(render_entry("tags", &tags, LineEnding::CrLf), "tags: [auth, security]\r\n");
/// ```
pub fn render_entry(key: &str, value: &Value, le: LineEnding) -> String {
    let le = le.as_str();
    let key = render_key(key);
    match for_style(value, ValueStyle::Plain) {
        Rendered::Inline(s) => format!("{key}: {s}{le}"),
        Rendered::Literal {
            header,
            lines,
            indent,
        } => format!("{key}: {header}{le}{}", Rendered::body(&lines, indent, le)),
        Rendered::Items(items) => format!("{key}: [{}]{le}", items.join(", ")),
    }
}

/// Renders a whole frontmatter block (fences included) from entries in order; the
/// text of a new entity file starts with it.
///
/// ```
/// use memory_core::markdown::{LineEnding, render_frontmatter};
/// use serde_yaml::Value;
/// let block = render_frontmatter(
///     &[("status", Value::from("accepted")), ("confidence", Value::from(0.9))],
///     LineEnding::Lf,
/// );
/// assert_eq!(block, "---\nstatus: accepted\nconfidence: 0.9\n---\n");
/// ```
pub fn render_frontmatter<K: AsRef<str>>(entries: &[(K, Value)], le: LineEnding) -> String {
    let mut out = format!("---{}", le.as_str());
    for (key, value) in entries {
        out.push_str(&render_entry(key.as_ref(), value, le));
    }
    out.push_str("---");
    out.push_str(le.as_str());
    out
}

/// A key, plain when YAML reads it back as the same string key, else double-quoted.
pub(super) fn render_key(key: &str) -> String {
    if plain_rules(key, false) {
        let probe = format!("{key}: 0\n");
        if let Ok(Value::Mapping(map)) = serde_yaml::from_str::<Value>(&probe)
            && map.len() == 1
            && map.get(key).is_some()
        {
            return key.to_string();
        }
    }
    double_quoted(key)
}

/// The plain form of `s` if it is safe (`flow`: inside a flow collection).
fn plain(s: &str, flow: bool) -> Option<String> {
    if !plain_rules(s, flow) {
        return None;
    }
    let probe = if flow {
        format!("k: [{s}]\n")
    } else {
        format!("k: {s}\n")
    };
    let read = serde_yaml::from_str::<Value>(&probe).ok()?;
    let v = read.get("k")?;
    let v = if flow {
        match v.as_sequence()?.as_slice() {
            [one] => one,
            _ => return None,
        }
    } else {
        v
    };
    (v.as_str() == Some(s)).then(|| s.to_string())
}

/// The rules a plain scalar must follow beyond reading back the same: no indicator
/// first, no `: ` or ` #`, no white space at either end, printable characters only, and
/// nothing a YAML 1.1 reader takes for a boolean, null or number.
fn plain_rules(s: &str, flow: bool) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let last = s.chars().next_back().unwrap_or(first);
    if first.is_whitespace() || last.is_whitespace() || last == ':' {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`=<~".contains(first) || s.starts_with("...") {
        return false;
    }
    if s.contains(": ") || s.contains(":\t") || s.contains(" #") || s.contains("\t#") {
        return false;
    }
    if flow && s.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    if s.chars().any(needs_escape) {
        return false;
    }
    !(yaml11_word(s) || looks_numeric(s))
}

/// Booleans and nulls of YAML 1.1 and 1.2 in every spelling a reader accepts.
fn yaml11_word(s: &str) -> bool {
    const WORDS: [&str; 12] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "infinity",
    ];
    s.len() <= 8 && WORDS.iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// Whether `s` could be a number to some YAML reader (1.1 octals, `1_000`,
/// sexagesimal `1:20`, hex, binary, floats, `.inf`…).
fn looks_numeric(s: &str) -> bool {
    let rest = s.strip_prefix(['-', '+']).unwrap_or(s);
    let lower = rest.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return true;
    }
    let b = rest.as_bytes();
    let starts = match b {
        [c, ..] if c.is_ascii_digit() => true,
        [b'.', c, ..] if c.is_ascii_digit() => true,
        _ => false,
    };
    starts
        && rest
            .bytes()
            .all(|c| c.is_ascii_hexdigit() || b"_.:xXoObB+-".contains(&c))
        && exponent_sign(rest)
        && rest.bytes().filter(|&c| c == b'.').count() <= 1
}

/// Whether the only inner `+`/`-` of `s` follow an `e` (`1e-3`), as in a float.
fn exponent_sign(s: &str) -> bool {
    let b = s.as_bytes();
    (1..b.len())
        .filter(|&i| b[i] == b'-' || b[i] == b'+')
        .all(|i| matches!(b[i - 1], b'e' | b'E'))
}

/// Characters that only a double-quoted scalar can hold: control characters, the
/// YAML 1.1 line breaks, BOM and non-characters.
fn needs_escape(c: char) -> bool {
    matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// Whether `s` can be written single-quoted on one line.
fn single_ok(s: &str) -> bool {
    !s.chars().any(needs_escape)
}

/// `'s'` with `'` doubled.
fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `s` double-quoted with YAML escapes for `"`, `\`, control characters and the
/// YAML 1.1 line breaks; other characters (non-BMP ones too) stay as they are.
///
/// ```
/// use memory_core::markdown::double_quoted;
/// assert_eq!(double_quoted("say \"hi\"\\\n\t"), r#""say \"hi\"\\\n\t""#);
/// assert_eq!(double_quoted("\u{2028}\u{1}😀"), r#""\L\x01😀""#);
/// ```
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if needs_escape(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02X}"));
                } else {
                    out.push_str(&format!("\\u{n:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A literal block scalar for `s` with content indented by `indent` (1–9), if `s` has
/// a line break and no character a block scalar cannot hold (CR, control characters
/// other than tab, YAML 1.1 line breaks). The chomping indicator keeps the trailing
/// line breaks exact, and an indentation indicator is added when the first line with
/// text starts with a space.
pub(super) fn literal(s: &str, indent: usize) -> Option<Rendered> {
    if !s.contains('\n') || s.chars().any(|c| c != '\n' && c != '\t' && needs_escape(c)) {
        return None;
    }
    if s.trim_matches([' ', '\n']).is_empty() && !s.contains('\t') {
        return None;
    }
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let content = if trailing > 0 { &s[..s.len() - 1] } else { s };
    let lines: Vec<String> = content.split('\n').map(str::to_string).collect();
    // Auto-detection reads the first line with text; leading spaces there (or spaces
    // on the blank lines before it) need an explicit indicator.
    let first_text = lines
        .iter()
        .position(|l| !l.trim_start_matches(' ').is_empty());
    let needs_indicator = match first_text {
        Some(i) => lines[..=i].iter().any(|l| l.starts_with(' ')),
        None => true,
    };
    let indicator = if needs_indicator {
        indent.to_string()
    } else {
        String::new()
    };
    Some(Rendered::Literal {
        header: format!("|{indicator}{chomp}"),
        lines,
        indent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_back(rendered: &str, s: &str) {
        let v: Value = serde_yaml::from_str(&format!("k: {rendered}\n")).unwrap();
        assert_eq!(v["k"].as_str(), Some(s), "{s:?} rendered {rendered:?}");
    }

    #[test]
    fn hostile_strings_are_quoted_and_read_back() {
        let quoted = [
            "",
            " x",
            "x ",
            "a: b",
            "a #b",
            "- x",
            "-",
            "[x",
            "{x",
            "*x",
            "&x",
            "!x",
            "%x",
            "@x",
            "`x",
            "'x",
            "\"x",
            "|x",
            ">x",
            "#x",
            "?",
            "? x",
            "yes",
            "No",
            "ON",
            "off",
            "y",
            "null",
            "Null",
            "~",
            "true",
            "FALSE",
            "1",
            "-1",
            "0.9",
            "1e3",
            "012",
            "0x1F",
            "0o17",
            "0b101",
            "1_000",
            "1:20",
            ".inf",
            "-.INF",
            ".nan",
            "a\nb",
            "a\rb",
            "\t",
            "x\u{1}",
            "x\u{7f}",
            "x\u{85}",
            "x\u{2028}",
            "\u{feff}x",
            "x:",
            "<<",
            "=",
            "---",
            "...",
        ];
        for s in quoted {
            let r = render_scalar(s);
            assert!(r.starts_with('"'), "{s:?} rendered {r:?}");
            reads_back(&r, s);
        }
        let plain = [
            "accepted",
            "2026-04-03T10:00:00Z",
            "docs:global/decisions/auth-flow.md",
            "org.global.decision.001",
            "x:y",
            "a#b",
            "it's",
            "C:\\dir",
            "登入 流程",
            "😀 emoji",
            "a - b",
            "x]",
            "1.2.3",
            "v1",
        ];
        for s in plain {
            let r = render_scalar(s);
            assert_eq!(r, s);
            reads_back(&r, s);
        }
    }

    #[test]
    fn literal_blocks_keep_text_exact() {
        for s in [
            "a\nb",
            "a\nb\n",
            "a\nb\n\n\n",
            "  lead\nx\n",
            "\n  x\n",
            "x\n\n  y\n   \n",
            "tab\there\n\tstart\n",
            "# not a comment\n---\n",
        ] {
            let Some(Rendered::Literal {
                header,
                lines,
                indent,
            }) = literal(s, 2)
            else {
                panic!("{s:?} has no literal form");
            };
            let yaml = format!("k: {header}\n{}", Rendered::body(&lines, indent, "\n"));
            let v: Value = serde_yaml::from_str(&yaml).unwrap();
            assert_eq!(v["k"].as_str(), Some(s), "{yaml:?}");
        }
        assert!(literal("one line", 2).is_none());
        assert!(literal("a\r\nb", 2).is_none());
        assert!(literal("\n\n", 2).is_none());
    }

    #[test]
    fn flow_items_quote_flow_indicators() {
        for s in ["a,b", "[x]", "{y}", "a]", "x, y"] {
            let r = render_flow_list(&[s]);
            let v: Value = serde_yaml::from_str(&format!("k: {r}\n")).unwrap();
            assert_eq!(v["k"][0].as_str(), Some(s), "{r}");
        }
    }

    #[test]
    fn keys_render_plain_or_quoted() {
        assert_eq!(render_key("entity_name"), "entity_name");
        assert_eq!(render_key("key with spaces"), "key with spaces");
        assert_eq!(render_key("a: b"), "\"a: b\"");
        assert_eq!(render_key("1"), "\"1\"");
        assert_eq!(render_key(""), "\"\"");
        assert_eq!(render_key("? x"), "\"? x\"");
    }
}
