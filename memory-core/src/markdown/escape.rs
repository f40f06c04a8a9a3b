//! The reversible encoding of free-text values (a snapshot's Current Context, list items)
//! inside a Markdown document: a value can hold any Markdown — fences, headings, list
//! markers, blank lines — and still read back as the same value without creating,
//! splitting or hiding a section or an item.
//!
//! Per line, outside fenced code, a line whose first non-blank character would start a
//! block gets a backslash before that character (`\## x`, `\- x`, `\> x`, `` \``` ``,
//! `1\. x`); a line that already starts with a backslash gets one more. CommonMark
//! renders `\` + punctuation as the punctuation, so Obsidian shows the value as typed.
//! Fenced code that the value closes stays fenced (it renders as code, and nothing in it
//! is structure); an opening fence the value never closes is escaped. Reading removes
//! exactly the backslashes writing added.

use super::lines::{closes_fence, opens_fence};
use super::marker::item_start;

/// The fence state of one line, with the rules of [`lines`](super::lines): a fence is
/// three or more `` ` `` or `~` indented by at most three spaces.
///
/// [`FenceScan::step_list`] also knows CommonMark's fences that start a list item
/// (`- ```` `): such a fence belongs to the item, closes at the item's indentation and
/// ends where the item ends (a non-blank line indented less than its text).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FenceScan {
    /// The fence character, its run length and the indentation of the item holding it.
    open: Option<(u8, usize, usize)>,
}

impl FenceScan {
    /// Whether `line` is inside a fence (fence lines included), advancing the state.
    pub fn step(&mut self, line: &str) -> bool {
        match self.open {
            Some((ch, len, _)) => {
                if closes_fence(line, ch, len) {
                    self.open = None;
                }
                true
            }
            None => match opens_fence(line) {
                Some((ch, len)) => {
                    self.open = Some((ch, len, 0));
                    true
                }
                None => false,
            },
        }
    }

    /// [`FenceScan::step`] that also reads a fence opened on a list item's first line.
    pub fn step_list(&mut self, line: &str) -> bool {
        if let Some((ch, len, base)) = self.open {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if base > 0 && indent < base && !line.trim().is_empty() {
                // The item ended, and its fence with it: the line is outside.
                self.open = None;
            } else {
                if closes_fence(&line[indent.min(base)..], ch, len) {
                    self.open = None;
                }
                return true;
            }
        }
        if let Some((ch, len)) = opens_fence(line) {
            self.open = Some((ch, len, 0));
            return true;
        }
        match item_content(line) {
            Some((content, base)) => match opens_fence(content) {
                Some((ch, len)) => {
                    self.open = Some((ch, len, base));
                    true
                }
                None => false,
            },
            None => false,
        }
    }

    /// Whether a fence is open after the lines seen.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// A line that closes the open fence, if one is open.
    pub fn closer(&self) -> Option<String> {
        self.open
            .map(|(ch, len, _)| char::from(ch).to_string().repeat(len))
    }
}

/// A list item's first line that can open a fence: its text and the indentation of
/// that text, by [`item_start`] (the reading the list reader shares); `None` when the
/// text is indented code.
pub(super) fn item_content(line: &str) -> Option<(&str, usize)> {
    item_start(line)
        .filter(|start| !start.code)
        .map(|start| (start.text, start.indent))
}

/// Where a line's first non-blank character is (spaces and tabs skipped).
fn first_char(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Whether the text from a line's first non-blank character would start a Markdown
/// block (or read back wrongly) if written as is.
fn starts_block(rest: &str) -> bool {
    let b = rest.as_bytes();
    let Some(&c) = b.first() else {
        return false;
    };
    let only = |set: &[u8]| {
        b.iter()
            .all(|x| set.contains(x) || *x == b' ' || *x == b'\t')
    };
    let spaced_after = |n: usize| b.len() == n || matches!(b[n], b' ' | b'\t');
    match c {
        b'\\' | b'>' | b'<' | b'|' => true,
        b'#' => {
            let n = b.iter().take_while(|&&x| x == b'#').count();
            n <= 6 && spaced_after(n)
        }
        b'-' | b'*' | b'+' => {
            spaced_after(1)
                || (c != b'+' && only(&[c]))
                || (c == b'-' && only(b"-|:") && b.contains(&b'|'))
        }
        b'=' => only(b"="),
        b'_' => only(b"_"),
        b':' => only(b"-|:") && b.contains(&b'-'),
        b'`' | b'~' => b.iter().take_while(|&&x| x == c).count() >= 3,
        b'&' => entity_len(rest).is_some(),
        // An Obsidian comment (`%% … %%`) hides what follows it.
        b'%' => rest.starts_with("%%"),
        b'0'..=b'9' => ordered_marker_at(rest).is_some(),
        _ => false,
    }
}

/// For `1. x` / `1) x` (also with backslashes before the `.`): where the delimiter's
/// backslashes start, right after the digits.
fn ordered_marker_at(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let digits = b.iter().take_while(|x| x.is_ascii_digit()).count();
    if !(1..=9).contains(&digits) {
        return None;
    }
    let slashes = b[digits..].iter().take_while(|&&x| x == b'\\').count();
    let at = digits + slashes;
    let delimited = matches!(b.get(at), Some(b'.' | b')'))
        && matches!(b.get(at + 1), None | Some(b' ' | b'\t'));
    delimited.then_some(digits)
}

/// The length of a numeric character reference `&#NNN;` at the start of `text`.
fn entity_len(text: &str) -> Option<(usize, char)> {
    let digits = text.strip_prefix("&#")?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    if !(1..=7).contains(&n) || digits.as_bytes().get(n) != Some(&b';') {
        return None;
    }
    let c = digits[..n].parse::<u32>().ok().and_then(char::from_u32)?;
    Some((2 + n + 1, c))
}

/// One line of a value, escaped so that it starts no block.
fn escape_line(line: &str) -> String {
    let at = first_char(line);
    let rest = &line[at..];
    if !starts_block(rest) {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 1);
    match ordered_marker_at(rest) {
        Some(digits) => {
            out.push_str(&line[..at + digits]);
            out.push('\\');
            out.push_str(&rest[digits..]);
        }
        None => {
            out.push_str(&line[..at]);
            out.push('\\');
            out.push_str(rest);
        }
    }
    out
}

/// The inverse of [`escape_line`] (also reads `&#NNN;` at a line's start, which writing
/// uses for a value that would otherwise read as a placeholder such as `None`).
fn unescape_line(line: &str) -> String {
    let at = first_char(line);
    let rest = &line[at..];
    let b = rest.as_bytes();
    if b.first() == Some(&b'\\') && b.get(1).is_some_and(u8::is_ascii_punctuation) {
        return format!("{}{}", &line[..at], &rest[1..]);
    }
    if let Some(digits) = ordered_marker_at(rest)
        && b.get(digits) == Some(&b'\\')
    {
        return format!("{}{}", &line[..at + digits], &rest[digits + 1..]);
    }
    if let Some((len, c)) = entity_len(rest) {
        return format!("{}{c}{}", &line[..at], &rest[len..]);
    }
    line.to_string()
}

/// A value's lines as they are written (without `indent`, which goes before every line
/// but the first after a bullet and blank ones). `bullet`: line 0 follows a list
/// bullet, so it cannot open a fence. `force_first`: line 0 is escaped whatever it holds
/// (a list item whose text starts like a marking, `[done] …`, `[ ]`) when it starts
/// with ASCII punctuation.
///
/// Fences are balanced first: each opening fence the value leaves open is escaped, until
/// every remaining fence closes inside the value; lines outside fences are escaped.
pub(crate) fn encode_lines(
    value: &[&str],
    indent: &str,
    bullet: bool,
    force_first: bool,
) -> Vec<String> {
    let stored = |i: usize, line: &str| {
        if (i == 0 && bullet) || line.is_empty() {
            line.to_string()
        } else {
            format!("{indent}{line}")
        }
    };
    let mut escaped = vec![false; value.len()];
    let fenced = loop {
        let mut scan = FenceScan::default();
        let mut opener = None;
        let mut fenced = vec![false; value.len()];
        for (i, line) in value.iter().enumerate() {
            if (i == 0 && bullet) || escaped[i] {
                if scan.is_open() {
                    fenced[i] = scan.step(&stored(i, line));
                }
                continue;
            }
            let was_open = scan.is_open();
            fenced[i] = scan.step(&stored(i, line));
            if !was_open && scan.is_open() {
                opener = Some(i);
            }
        }
        match (scan.is_open(), opener) {
            (true, Some(i)) => escaped[i] = true,
            _ => break fenced,
        }
    };
    value
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if fenced[i] {
                line.to_string()
            } else if i == 0
                && force_first
                && line[first_char(line)..].starts_with(|c: char| c.is_ascii_punctuation())
            {
                let at = first_char(line);
                format!("{}\\{}", &line[..at], &line[at..])
            } else {
                escape_line(line)
            }
        })
        .collect()
}

/// Which lines of a written value are inside a fence, by the same rules.
pub(crate) fn fenced_lines(stored: &[&str], bullet: bool) -> Vec<bool> {
    let mut scan = FenceScan::default();
    stored
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 && bullet {
                false
            } else {
                scan.step(line)
            }
        })
        .collect()
}

/// Reads back what [`encode_lines`] wrote (indentation already removed): lines outside
/// fences are unescaped.
pub(crate) fn decode_lines<'a>(lines: impl Iterator<Item = (&'a str, bool)>) -> String {
    let mut out = String::new();
    for (i, (line, fenced)) in lines.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if fenced {
            out.push_str(line);
        } else {
            out.push_str(&unescape_line(line));
        }
    }
    out
}

/// A value's first character written as a numeric character reference, so that the
/// value does not read as a placeholder (`None` is written `&#78;one`).
pub(crate) fn entity_first(stored: &str) -> String {
    let at = first_char(stored);
    match stored[at..].chars().next() {
        Some(c) => format!(
            "{}&#{};{}",
            &stored[..at],
            c as u32,
            &stored[at + c.len_utf8()..]
        ),
        None => stored.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn block_starts_are_escaped_and_read_back() {
        for (line, written) in [
            ("## Continues From", "\\## Continues From"),
            ("# Title", "\\# Title"),
            ("#tag", "#tag"),
            ("- x", "\\- x"),
            ("-x", "-x"),
            ("* x", "\\* x"),
            ("**bold**", "**bold**"),
            ("+ x", "\\+ x"),
            ("> quote", "\\> quote"),
            ("1. one", "1\\. one"),
            ("12) one", "12\\) one"),
            ("1.5 litres", "1.5 litres"),
            ("1\\. x", "1\\\\. x"),
            ("```rust", "\\```rust"),
            ("~~~", "\\~~~"),
            ("`code` first", "`code` first"),
            ("\\", "\\\\"),
            ("\\- x", "\\\\- x"),
            ("C:\\Users", "C:\\Users"),
            ("---", "\\---"),
            ("===", "\\==="),
            ("___", "\\___"),
            ("_em_", "_em_"),
            ("| a | b |", "\\| a | b |"),
            ("--|--", "\\--|--"),
            (":-:|--", "\\:-:|--"),
            ("<!-- hidden", "\\<!-- hidden"),
            ("&#78;one", "\\&#78;one"),
            ("&amp;", "&amp;"),
            ("%% hidden", "\\%% hidden"),
            ("50% done", "50% done"),
            ("  - nested", "  \\- nested"),
            ("\t# tab", "\t\\# tab"),
            ("None", "None"),
        ] {
            assert_eq!(escape_line(line), written, "{line:?}");
            assert_eq!(unescape_line(written), line, "{written:?}");
        }
        assert_eq!(encode_lines(&["[done] x"], "", true, true), ["\\[done] x"]);
        assert_eq!(unescape_line("\\[done] x"), "[done] x");
        assert_eq!(unescape_line("&#78;one"), "None");
    }

    #[test]
    fn closed_fences_stay_and_open_ones_are_escaped() {
        let closed = ["```", "## not a heading", "", "- not an item", "```"];
        assert_eq!(encode_lines(&closed, "", false, false), closed);
        let open = ["```", "## x"];
        assert_eq!(encode_lines(&open, "", false, false), ["\\```", "\\## x"]);
        let nested = ["~~~", "```", "~~~", "```"];
        assert_eq!(
            encode_lines(&nested, "", false, false),
            ["~~~", "```", "~~~", "\\```"]
        );
        // After a bullet the first line cannot open a fence: its closer would open one.
        let item = ["```", "code", "```"];
        assert_eq!(
            encode_lines(&item, "  ", true, false),
            ["\\```", "code", "\\```"]
        );
    }

    #[test]
    fn a_fence_on_an_item_line_belongs_to_the_item() {
        let mut scan = FenceScan::default();
        let text = [
            "- ```bash",
            "  make",
            "",
            "  ## not a heading",
            "  ```",
            "## Heading",
        ];
        let flags: Vec<bool> = text.iter().map(|l| scan.step_list(l)).collect();
        assert_eq!(flags, [true, true, true, true, true, false]);
        // The item ends at a line indented less than its text, and the fence with it.
        let mut scan = FenceScan::default();
        let text = ["1. ~~~", "   x", "## Heading", "```", "## inside"];
        let flags: Vec<bool> = text.iter().map(|l| scan.step_list(l)).collect();
        assert_eq!(flags, [true, true, false, true, true]);
        // `step` follows `lines`: no fence on an item line.
        let mut scan = FenceScan::default();
        assert!(!scan.step("- ```"));
    }

    fn line() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "## ", "# ", "- ", "* ", "+ ", "1. ", "2) ", "> ", "```", "~~~", "\\", "---", "|",
            "&#78;", "[done] ", "None", " ", "  ", "\t", "x", "é", "`", "[", "1", ".", "<",
        ]);
        prop::collection::vec(piece, 0..5).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn fence_scan_agrees_with_lines(text in prop::collection::vec(line(), 0..12)) {
            let text = text.join("\n");
            let mut scan = FenceScan::default();
            for l in super::super::lines(&text) {
                prop_assert_eq!(scan.step(l.text), l.in_fence, "{:?}", l.text);
            }
        }

        #[test]
        fn encoding_round_trips(
            value in prop::collection::vec(line(), 1..10),
            bullet: bool,
            force: bool,
        ) {
            let value: Vec<String> = value
                .into_iter()
                .map(|l| if l.trim().is_empty() { String::new() } else { l })
                .collect();
            let value: Vec<&str> = value.iter().map(String::as_str).collect();
            let stored = encode_lines(&value, "  ", bullet, force);
            let with_indent: Vec<String> = stored
                .iter()
                .enumerate()
                .map(|(i, l)| if (i == 0 && bullet) || l.is_empty() { l.clone() } else { format!("  {l}") })
                .collect();
            let refs: Vec<&str> = with_indent.iter().map(String::as_str).collect();
            let fenced = fenced_lines(&refs, bullet);
            let mut scan = FenceScan::default();
            for l in refs.iter().skip(usize::from(bullet)) {
                scan.step(l);
            }
            prop_assert!(!scan.is_open(), "a fence stays open: {:?}", refs);
            let back = decode_lines(stored.iter().map(String::as_str).zip(fenced));
            prop_assert_eq!(back, value.join("\n"));
        }
    }
}
