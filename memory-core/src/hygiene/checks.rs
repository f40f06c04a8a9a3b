//! The confirmations run after a pattern's expression matched: word boundaries,
//! placeholders (`xxx`, `${VAR}`, `<token>`, `changeme`, `REDACTED`, …) and code
//! references (`token=get_token()`, `password: settings.DB_PASSWORD`) are not secrets.

use std::ops::Range;

use regex::Captures;

use super::base64::{Alphabet, decode_unpadded};
use super::patterns::Check;

/// Whether the match `caps` of a pattern with check `check` in `text` is a secret, and
/// if so where it ends (an assignment in a URL query ends before the next `&name=`).
pub(super) fn confirm(check: Check, text: &str, caps: &Captures<'_>) -> Option<usize> {
    let whole = caps.get(0)?;
    let end = match check {
        Check::Assignment => caps
            .name("v")
            .map_or(whole.end(), |v| v.start() + query_value_len(v.as_str())),
        _ => whole.end(),
    };
    confirmed(check, text, caps).then_some(end)
}

/// The length of an assigned value: an unquoted value followed by `&name=` is a URL
/// query parameter and ends there, and one followed by Markdown emphasis (`**`, `__`)
/// ends before it. A quoted value is delimited by its quotes.
fn query_value_len(value: &str) -> usize {
    let bytes = value.as_bytes();
    if matches!(bytes.first(), Some(b'"' | b'\'' | b'`')) {
        return value.len();
    }
    let mut len = value.len();
    for (at, _) in value.match_indices('&') {
        let name = bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
            .count();
        if name > 0 && bytes.get(at + 1 + name) == Some(&b'=') {
            len = at;
            break;
        }
    }
    for emphasis in ["**", "__"] {
        if let Some(stripped) = value[..len].strip_suffix(emphasis)
            && !stripped.is_empty()
        {
            len = stripped.len();
        }
    }
    len
}

fn confirmed(check: Check, text: &str, caps: &Captures<'_>) -> bool {
    let Some(whole) = caps.get(0) else {
        return false;
    };
    match check {
        Check::Token | Check::Mixed | Check::DiscordId => {
            if !standalone(text, whole.range()) {
                return false;
            }
            let Some(payload) = caps.name("p").or_else(|| caps.name("q")) else {
                return true;
            };
            let payload = payload.as_str();
            if placeholder_token(payload) {
                return false;
            }
            match check {
                Check::Mixed => {
                    payload.bytes().any(|b| b.is_ascii_lowercase())
                        && payload
                            .bytes()
                            .any(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
                }
                Check::DiscordId => discord_user_id(payload),
                _ => true,
            }
        }
        Check::UrlPassword => caps
            .name("p")
            .is_some_and(|password| !url_placeholder(password.as_str())),
        Check::Assignment => caps.name("v").is_some_and(|v| {
            let equals = caps.name("s").is_some_and(|s| s.as_str() != ":");
            literal_value(&v.as_str()[..query_value_len(v.as_str())], equals)
        }),
        Check::KeyEnd => match caps.name("p") {
            Some(data) => standalone(text, whole.range()) && !placeholder_token(data.as_str()),
            None => alone_on_its_line(text, whole.range()),
        },
    }
}

/// Nothing but blanks (and `>` quote marks before it) shares the match's line: a marker
/// written in prose (`` ends with `-----END RSA PRIVATE KEY-----` ``) is not a paste.
fn alone_on_its_line(text: &str, range: Range<usize>) -> bool {
    let line_start = text[..range.start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |at| range.end + at);
    text[line_start..range.start]
        .bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'>'))
        && text[range.end..line_end]
            .bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// The match is not glued to letters or digits: `xghp_…` or `…ABC1` continuing past a
/// fixed-length token are other words. A match starting with a digit may follow a
/// letter (Telegram's `…/bot<id>:AA…`).
fn standalone(text: &str, range: Range<usize>) -> bool {
    let bytes = text.as_bytes();
    let first_digit = bytes.get(range.start).is_some_and(u8::is_ascii_digit);
    let before = range
        .start
        .checked_sub(1)
        .and_then(|i| bytes.get(i))
        .is_some_and(|b| {
            if first_digit {
                b.is_ascii_digit()
            } else {
                b.is_ascii_alphanumeric()
            }
        });
    let after = bytes.get(range.end).is_some_and(u8::is_ascii_alphanumeric);
    !before && !after
}

/// A token whose random part is a documentation placeholder: its last 16 characters (or
/// all, if shorter) are only `x`, `X`, `*`, `0`, `.`, `#`, `_` or `-`, or it holds a run of
/// eight `x` or `X`.
fn placeholder_token(payload: &str) -> bool {
    let bytes = payload.as_bytes();
    let tail = &bytes[bytes.len().saturating_sub(16)..];
    let filler = |b: &u8| matches!(b, b'x' | b'X' | b'*' | b'0' | b'.' | b'#' | b'_' | b'-');
    tail.iter().all(filler)
        || bytes
            .windows(8)
            .any(|w| w.iter().all(|b| b.eq_ignore_ascii_case(&b'x')))
}

/// The first part of a Discord bot token is the unpadded base64 of the bot's user id.
fn discord_user_id(part: &str) -> bool {
    base64_decode(part).is_some_and(|id| {
        (17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit) && id[0] != b'0'
    })
}

/// Decodes unpadded standard or URL-safe base64 (`None` on any other character or a
/// dangling sixth bit group).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    decode_unpadded(text.as_bytes(), Alphabet::EitherForm)
        .and_then(|(bytes, bits)| (bits < 6).then_some(bytes))
}

/// Words that stand for a value rather than being one (compared with everything but
/// letters and digits removed, lower-cased).
const PLACEHOLDER_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "apikey",
    "value",
    "changeme",
    "redacted",
    "removed",
    "hidden",
    "masked",
    "placeholder",
    "example",
    "sample",
    "dummy",
    "fake",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "todo",
    "tbd",
    "notset",
    "unset",
    "empty",
    "na",
    "secretkey",
    "secrettoken",
    "accesstoken",
    "authtoken",
    "mypassword",
    "mysecret",
    "mytoken",
];

/// Substrings that make any value a placeholder (lower-cased comparison).
const PLACEHOLDER_PARTS: &[&str] = &[
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "placeholder",
    "example",
    "${",
    "{{",
    "***",
    "xxx",
    "…",
    "...",
];

/// An obvious placeholder: empty, `<…>`, `${…}`, `$VAR`, `%s`, `{{ … }}`, `xxx`, `***`,
/// `changeme`, `REDACTED`, `your-token-here`, the word `password` itself, and the like.
pub(super) fn placeholder(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() {
        return true;
    }
    if value.starts_with(['<', '$', '%', '{', '[', '(']) || value.ends_with('>') {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if PLACEHOLDER_PARTS.iter().any(|part| lower.contains(part)) {
        return true;
    }
    let word: String = lower.chars().filter(char::is_ascii_alphanumeric).collect();
    if word.is_empty() {
        // Only punctuation: `--`, `??`, `••••`.
        return true;
    }
    if word.bytes().all(|b| b == b'x' || b == b'0') {
        return true;
    }
    PLACEHOLDER_WORDS.contains(&word.as_str()) || word.starts_with("your")
}

/// A URL password that stands for one: the structural placeholders of [`placeholder`]
/// (`${PASS}`, `<password>`, `***`, `xxx`, `changeme`, `REDACTED`, `%s`), but not words:
/// `user:password@host` is a password like any other.
fn url_placeholder(value: &str) -> bool {
    let value = value.trim();
    let lower = value.to_ascii_lowercase();
    value.is_empty()
        || value.starts_with(['<', '$', '%', '{', '[', '('])
        || value.ends_with('>')
        || PLACEHOLDER_PARTS.iter().any(|part| lower.contains(part))
        || lower
            .bytes()
            .all(|b| matches!(b, b'x' | b'*' | b'.' | b'-' | b'_' | b'?' | b'#'))
}

/// Whether an assigned value (quotes included, as matched) is a literal secret rather
/// than a placeholder, a code reference or prose. After `=` (`password=hunter`) a plain
/// word is a literal; after `:` (`Password: required`) it reads as prose.
fn literal_value(raw: &str, equals: bool) -> bool {
    let (value, quoted) = match raw.as_bytes().first() {
        Some(b'"' | b'\'' | b'`') if raw.len() >= 2 => (&raw[1..raw.len() - 1], true),
        _ => (raw, false),
    };
    if placeholder(value) || value.chars().any(char::is_whitespace) {
        return false;
    }
    // Operators and references: `==`, `::Token`, `=> x`, `&token`, `*ptr`, `@field`.
    if value.starts_with([':', '=', '>', '&', '*', '@', '!', '.', '/', '~', '#', '?']) {
        return false;
    }
    // Calls, generics, paths, URLs and file paths are not secrets themselves.
    if value.contains("://")
        || value.contains("::")
        || value.contains("->")
        || value.contains(['(', '[', '<'])
        || value.starts_with("./")
    {
        return false;
    }
    if quoted {
        return value.chars().count() >= 4;
    }
    if value.chars().count() < 6 || macro_call(value) {
        return false;
    }
    if equals && plain_word(value) {
        return true;
    }
    if code_reference(value) || words_or_numbers(value) {
        return false;
    }
    // After `:` (a declaration `field: TYPE_NAME`, `token: _bindgen_ty_7`), a
    // snake_case or SCREAMING_CASE identifier or a short all-capitals name is a type.
    if !equals
        && (snake_identifier(value)
            || (value.len() < 16 && !value.bytes().any(|b| b.is_ascii_lowercase())))
    {
        return false;
    }
    // An unquoted literal mixes at least two of lower case, upper case, digits and
    // symbols: prose words (`token: expired`) do not.
    let classes = [
        value.bytes().any(|b| b.is_ascii_lowercase()),
        value.bytes().any(|b| b.is_ascii_uppercase()),
        value.bytes().any(|b| b.is_ascii_digit()),
        value.chars().any(|c| !c.is_ascii_alphanumeric()),
    ];
    classes.iter().filter(|&&c| c).count() >= 2
}

/// One lower-case word (`supersecret`), not an identifier (`access_token`,
/// `accessToken`, `DB_PASSWORD`) or a class name (`Punctuation`).
fn plain_word(value: &str) -> bool {
    value.chars().all(char::is_lowercase)
}

/// A macro invocation's name: `quote!`, `vec!` (lower-case letters and `_`).
fn macro_call(value: &str) -> bool {
    value
        .strip_suffix('!')
        .is_some_and(|name| name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
}

/// Letters and digits joined by underscores: `_bindgen_ty_7`, `DOT11_DIALOG_TOKEN`.
fn snake_identifier(value: &str) -> bool {
    value.contains('_')
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Words (`rotate-monthly`, `JWT-based`), numbers, dates and times (`2026-01-01`,
/// `12:30`) and versions (`v1.2.3`): prose and metadata, not secrets.
fn words_or_numbers(value: &str) -> bool {
    let words = value
        .chars()
        .all(|c| c.is_alphabetic() || matches!(c, '-' | '_' | '.'));
    let no_letters = !value.chars().any(char::is_alphabetic);
    let timestamp = value.bytes().any(|b| b.is_ascii_digit())
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || b"-:.+/TZ".contains(&b));
    let version = value.strip_prefix(['v', 'V']).is_some_and(|rest| {
        rest.split('.').count() > 1
            && rest
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    });
    words || no_letters || timestamp || version
}

/// An identifier without digits (`accessToken`, `DB_PASSWORD`) or a dotted path of
/// identifiers (`settings.SECRET_KEY`, `os.environ`): a name, not a value.
fn code_reference(value: &str) -> bool {
    let identifier = |part: &str| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let parts: Vec<&str> = value.split('.').collect();
    if parts.len() > 1 {
        return parts.iter().all(|part| identifier(part));
    }
    identifier(value) && !value.bytes().any(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_discord_ids() {
        assert_eq!(base64_decode("MTIz").as_deref(), Some(&b"123"[..]));
        assert_eq!(base64_decode("MTI").as_deref(), Some(&b"12"[..]));
        assert_eq!(base64_decode("M"), None);
        assert_eq!(base64_decode("M!"), None);
        assert!(discord_user_id("MTIzNDU2Nzg5MDEyMzQ1Njc4"));
        assert!(!discord_user_id("MDIzNDU2Nzg5MDEyMzQ1Njc4"));
        assert!(!discord_user_id("NotAnIdButLongEnoughText"));
    }

    #[test]
    fn placeholders_are_recognised() {
        for value in [
            "",
            "  ",
            "<token>",
            "${TOKEN}",
            "$TOKEN",
            "%s",
            "{{ secrets.X }}",
            "xxx",
            "XXXXXX",
            "***",
            "changeme",
            "REDACTED",
            "[REDACTED]",
            "your-api-key-here",
            "password",
            "…",
            "...",
            "000000",
            "None",
            "null",
        ] {
            assert!(placeholder(value), "{value:?}");
        }
        for value in ["hunter22", "s3cr3t!", "Tr0ub4dor&3", "a1b2c3d4"] {
            assert!(!placeholder(value), "{value:?}");
        }
    }

    #[test]
    fn literal_values_are_told_from_references() {
        for value in [
            "hunter22",
            "\"supersecret\"",
            "'abcd'",
            "Tr0ub4dor&3",
            "Winter2026!",
            "Grüße2026",
        ] {
            assert!(literal_value(value, false), "{value:?}");
            assert!(literal_value(value, true), "{value:?}");
        }
        for value in [
            "accessToken",
            "DB_PASSWORD",
            "settings.SECRET_KEY",
            "get_token()",
            "https://auth.example.com/token",
            "/etc/secret",
            "\"see the docs\"",
            "=\"x\"",
            ":Token",
            "12345678",
            "'abc'",
            "abc1",
            "rotate-monthly",
            "JWT-based",
            "2026-01-01",
            "12:30:00",
            "v1.2.3",
        ] {
            assert!(!literal_value(value, false), "{value:?}");
            assert!(!literal_value(value, true), "{value:?}");
        }
        // A plain word after `=` is a literal, after `:` prose.
        assert!(literal_value("supersecret", true));
        assert!(!literal_value("supersecret", false));
        assert!(!literal_value("expired", false));
        assert!(!literal_value("input", true), "too short");
        // Code: class names, macros, generics, declarations.
        for value in ["Punctuation", "quote!", "Option<unsafe", "String"] {
            assert!(!literal_value(value, true), "{value:?}");
        }
        for value in [
            "_bindgen_ty_7",
            "ULONG64",
            "WBEM_128BITS",
            "DOT11_DIALOG_TOKEN",
        ] {
            assert!(!literal_value(value, false), "{value:?}");
        }
        assert!(
            literal_value("ABCDEF0123456789XYZ", false),
            "long capitals are a literal"
        );
    }

    #[test]
    fn token_placeholders_are_runs_of_filler() {
        assert!(placeholder_token("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
        assert!(placeholder_token("AKIAXXXXXXXXXXXXXXXX"));
        assert!(placeholder_token("abcXXXXXXXXdef"));
        assert!(!placeholder_token("AKIAIOSFODNN7EXAMPLE"));
        assert!(!placeholder_token(&"a".repeat(36)));
    }
}
