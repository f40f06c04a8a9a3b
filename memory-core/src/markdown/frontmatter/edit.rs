//! One-key edits: replace a key's value (keeping its style where the new value allows),
//! add a missing key, remove a key. Each is one [`Edit`] inside that key's entry (or an
//! insertion between entries); every other byte of the file stays as it is.

use serde_yaml::Value;

use super::super::{Edit, ParseIssue};
use super::keys::{FrontmatterKeys, KeyEntry, ValueStyle};
use super::locate::line_at;
use super::render::{self, Rendered};

impl FrontmatterKeys {
    /// The edit that sets `key` to `value`: its value is replaced when the key exists,
    /// else a `key: value` line is added at the end of the block, before the closing
    /// fence. Refused when the old value defines an `&anchor` that another key uses.
    ///
    /// ```
    /// use memory_core::markdown::{FrontmatterKeys, apply_edits};
    /// use serde_yaml::Value;
    /// let text = "---\r\nstatus: \"experimental\" # was draft\r\nx-custom: 1\r\n---\r\nBody\r\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let edit = keys.set(text, "status", &Value::from("superseded")).unwrap();
    /// let text = apply_edits(text, vec![edit]);
    /// assert_eq!(text, "---\r\nstatus: \"superseded\" # was draft\r\nx-custom: 1\r\n---\r\nBody\r\n");
    /// let keys = FrontmatterKeys::read(&text).unwrap().unwrap();
    /// let edit = keys.set(&text, "updated_at", &Value::from("2026-04-03T10:00:00Z")).unwrap();
    /// assert_eq!(
    ///     apply_edits(&text, vec![edit]),
    ///     "---\r\nstatus: \"superseded\" # was draft\r\nx-custom: 1\r\nupdated_at: 2026-04-03T10:00:00Z\r\n---\r\nBody\r\n"
    /// );
    /// ```
    pub fn set(&self, text: &str, key: &str, value: &Value) -> Result<Edit, ParseIssue> {
        match self.position(text, key) {
            Some(i) => self.replace(text, &self.entries[i], value),
            None => Ok(self.add_at(text, self.frontmatter.yaml.end, key, value)),
        }
    }

    /// Like [`FrontmatterKeys::set`], but a missing key is added just after the entry of
    /// `after` (at the end of the block when `after` is missing too).
    ///
    /// ```
    /// use memory_core::markdown::{FrontmatterKeys, apply_edits};
    /// use serde_yaml::Value;
    /// let text = "---\nstatus: accepted\ntags: [a, b]\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let supersedes = Value::Sequence(vec!["org.global.decision.001".into()]);
    /// let edit = keys.set_after(text, "supersedes", &supersedes, "status").unwrap();
    /// assert_eq!(
    ///     apply_edits(text, vec![edit]),
    ///     "---\nstatus: accepted\nsupersedes: [org.global.decision.001]\ntags: [a, b]\n---\n"
    /// );
    /// ```
    pub fn set_after(
        &self,
        text: &str,
        key: &str,
        value: &Value,
        after: &str,
    ) -> Result<Edit, ParseIssue> {
        if let Some(i) = self.position(text, key) {
            return self.replace(text, &self.entries[i], value);
        }
        let at = self
            .get(text, after)
            .map_or(self.frontmatter.yaml.end, |e| e.entry.end);
        Ok(self.add_at(text, at, key, value))
    }

    /// The edit that removes `key`'s whole entry with its line ending (`None` when the
    /// key is absent); comment and blank lines after it stay. Refused when the value
    /// defines an `&anchor` that another key uses.
    ///
    /// ```
    /// use memory_core::markdown::{FrontmatterKeys, apply_edits};
    /// let text = "---\na: 1\ndiagram_code: |\n  flowchart TD\n# kept\nb: 2\n---\n";
    /// let keys = FrontmatterKeys::read(text).unwrap().unwrap();
    /// let edit = keys.remove(text, "diagram_code").unwrap().unwrap();
    /// assert_eq!(apply_edits(text, vec![edit]), "---\na: 1\n# kept\nb: 2\n---\n");
    /// ```
    pub fn remove(&self, text: &str, key: &str) -> Result<Option<Edit>, ParseIssue> {
        let Some(i) = self.position(text, key) else {
            return Ok(None);
        };
        let entry = &self.entries[i];
        self.check_anchors(text, entry)?;
        let mut end = entry.entry.end;
        // Lines after the entry that would join a block scalar ending the entry before
        // it (indented comments; blank lines for `|+`) go with the entry.
        if let Some(keep) = i.checked_sub(1).and_then(|p| self.entries[p].block_tail) {
            let tail = quiet_tail(text, end, self.frontmatter.yaml.end);
            if tail.indented || keep && tail.blank {
                end = tail.end;
            }
        }
        Ok(Some(Edit {
            range: entry.entry.start..end,
            replacement: String::new(),
        }))
    }

    /// The edit inserting a new `key: value` entry at `at` (a line start in the block).
    fn add_at(&self, text: &str, at: usize, key: &str, value: &Value) -> Edit {
        let le = self.frontmatter.line_ending;
        let mut replacement = render::render_entry(key, value, le);
        if let (Some(s), Some(header)) = (value.as_str(), block_header(&replacement)) {
            let tail = quiet_tail(text, at, self.frontmatter.yaml.end);
            if tail.indented || header.ends_with('+') && tail.blank {
                let key = render::render_key(key);
                replacement = format!("{key}: {}{}", render::double_quoted(s), le.as_str());
            }
        }
        Edit {
            range: at..at,
            replacement,
        }
    }

    /// Refuses to drop an entry whose text defines an anchor used outside it.
    fn check_anchors(&self, text: &str, entry: &KeyEntry) -> Result<(), ParseIssue> {
        let yaml = self.frontmatter.yaml.clone();
        let (Some(own), Some(before), Some(after)) = (
            text.get(entry.entry.clone()),
            text.get(yaml.start..entry.entry.start),
            text.get(entry.entry.end..yaml.end),
        ) else {
            return Ok(());
        };
        for (i, _) in own.match_indices('&') {
            let name: &str = anchor_name(&own[i + 1..]);
            if name.is_empty() {
                continue;
            }
            if uses_alias(before, name) || uses_alias(after, name) {
                return Err(ParseIssue {
                    line: entry.line,
                    message: format!(
                        "`{}` defines the anchor `&{name}` that `*{name}` elsewhere refers to; \
                         change this key by hand",
                        entry.name(text)
                    ),
                });
            }
        }
        Ok(())
    }

    /// The edit replacing `entry`'s value by `value`.
    fn replace(&self, text: &str, entry: &KeyEntry, value: &Value) -> Result<Edit, ParseIssue> {
        self.check_anchors(text, entry)?;
        let b = text.as_bytes();
        let (key_line_end, key_line_next) = line_at(b, entry.entry.start);
        let le = match key_line_next - key_line_end {
            2 => "\r\n",
            1 => "\n",
            _ => self.frontmatter.line_ending.as_str(),
        };
        let colon = entry.colon;
        let below = !entry.inline && entry.style != ValueStyle::Empty;
        let ends_at_line_start = entry.value.end > 0 && b.get(entry.value.end - 1) == Some(&b'\n');
        // The text after the value on its last line (a comment), kept where it can be.
        let last_line_end = if ends_at_line_start {
            entry.value.end
        } else {
            line_at(b, entry.value.end).0
        };
        let after_value = if ends_at_line_start && entry.inline {
            // A block scalar's header line: keep the comment after the header.
            header_comment(text, entry.value.start, key_line_end)
        } else {
            text.get(entry.value.end..last_line_end).unwrap_or("")
        };
        let key_rest = text.get(colon..key_line_end).unwrap_or("");
        let edit = |range: std::ops::Range<usize>, replacement: String| Edit { range, replacement };
        let mut rendered = render::for_style(value, entry.style);
        if let Rendered::Literal { header, .. } = &rendered {
            // A block scalar would take in indented comment lines after the entry (and
            // with `+` chomping, blank lines): write the text double-quoted then.
            let tail = quiet_tail(text, entry.entry.end, self.frontmatter.yaml.end);
            if tail.indented || header.ends_with('+') && tail.blank {
                let s = value.as_str().unwrap_or_default();
                rendered = Rendered::Inline(render::double_quoted(s));
            }
        }
        Ok(match rendered {
            Rendered::Inline(s) if entry.style == ValueStyle::Empty => {
                if s.is_empty() {
                    edit(colon..colon, String::new())
                } else {
                    edit(colon..colon, format!(" {s}"))
                }
            }
            Rendered::Inline(s) if below => {
                let kept = text.get(colon..entry.value.start).unwrap_or("");
                edit(colon..entry.entry.end, format!(" {s}{kept}"))
            }
            Rendered::Inline(s) if ends_at_line_start => {
                edit(entry.value.clone(), format!("{s}{after_value}{le}"))
            }
            Rendered::Inline(s) => edit(entry.value.clone(), s),
            Rendered::Literal {
                header,
                lines,
                indent,
            } => {
                let body = Rendered::body(&lines, indent, le);
                if entry.style == ValueStyle::Empty || below {
                    edit(
                        colon..entry.entry.end,
                        format!(" {header}{key_rest}{le}{body}"),
                    )
                } else {
                    edit(
                        entry.value.start..entry.entry.end,
                        format!("{header}{after_value}{le}{body}"),
                    )
                }
            }
            Rendered::Items(items) => {
                let ValueStyle::BlockSequence { indent, gap } = entry.style else {
                    // `for_style` renders items only for a block sequence.
                    return Ok(edit(entry.value.clone(), format!("[{}]", items.join(", "))));
                };
                let pad = " ".repeat(indent);
                let gap = " ".repeat(gap.max(1));
                let lines: Vec<String> =
                    items.iter().map(|it| format!("{pad}-{gap}{it}")).collect();
                let mut lines = lines.join(le);
                if ends_at_line_start {
                    lines.push_str(le);
                }
                let starts_line = entry.value.start > 0 && b[entry.value.start - 1] == b'\n';
                if starts_line {
                    edit(entry.value.clone(), lines)
                } else {
                    edit(colon..entry.value.end, format!("{le}{lines}"))
                }
            }
        })
    }
}

/// The white space and comment after the token(s) starting at `from` on a line ending
/// at `end` (empty when there is no comment).
fn header_comment(text: &str, from: usize, end: usize) -> &str {
    let line = text.get(from..end).unwrap_or("");
    let b = line.as_bytes();
    let comment =
        (0..b.len()).find(|&i| b[i] == b'#' && i > 0 && (b[i - 1] == b' ' || b[i - 1] == b'\t'));
    match comment {
        Some(c) => {
            let start = line[..c].trim_end_matches([' ', '\t']).len();
            &line[start..]
        }
        None => "",
    }
}

/// The block scalar header of a rendered `key: |…` entry, if it is one.
fn block_header(entry: &str) -> Option<&str> {
    let first = entry.lines().next()?;
    let header = first.rsplit(": ").next()?;
    header.starts_with('|').then_some(header)
}

/// The blank and indented lines from `from` (a line start) up to the first line that
/// starts with a character at column 0.
struct Tail {
    /// Whether one of them starts with white space (an indented comment, or white space
    /// a block scalar would read as content).
    indented: bool,
    /// Whether one of them is blank.
    blank: bool,
    /// Where they end.
    end: usize,
}

fn quiet_tail(text: &str, from: usize, until: usize) -> Tail {
    let b = text.as_bytes();
    let mut tail = Tail {
        indented: false,
        blank: false,
        end: from,
    };
    while tail.end < until {
        let (end, next) = line_at(b, tail.end);
        let line = &b[tail.end..end];
        match line.first() {
            Some(b' ' | b'\t') => tail.indented = true,
            None => tail.blank = true,
            Some(_) => break,
        }
        tail.end = next;
    }
    tail
}

/// The anchor name at the start of `s` (up to white space or a flow indicator).
fn anchor_name(s: &str) -> &str {
    let end = s
        .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
        .unwrap_or(s.len());
    &s[..end]
}

/// Whether `text` holds the alias `*name` (not a longer name).
fn uses_alias(text: &str, name: &str) -> bool {
    text.match_indices('*')
        .any(|(i, _)| anchor_name(&text[i + 1..]) == name)
}

#[cfg(test)]
mod tests {
    use super::super::super::apply_edits;
    use super::*;

    fn set(text: &str, key: &str, value: Value) -> String {
        let keys = FrontmatterKeys::read(text).unwrap().unwrap();
        apply_edits(text, vec![keys.set(text, key, &value).unwrap()])
    }

    fn strings(items: &[&str]) -> Value {
        Value::Sequence(items.iter().map(|s| Value::from(*s)).collect())
    }

    #[test]
    fn styles_are_kept() {
        let cases: [(&str, &str, Value, &str); 12] = [
            (
                "---\na: \"x\"\n---\n",
                "a",
                "y: z".into(),
                "---\na: \"y: z\"\n---\n",
            ),
            (
                "---\na: 'x' # c\n---\n",
                "a",
                "it's".into(),
                "---\na: 'it''s' # c\n---\n",
            ),
            (
                "---\na: x\n---\n",
                "a",
                "yes".into(),
                "---\na: \"yes\"\n---\n",
            ),
            (
                "---\na: [x, y]\n---\n",
                "a",
                strings(&["p", "q r"]),
                "---\na: [p, q r]\n---\n",
            ),
            (
                "---\na:\n  -  x # last\nb: 1\n---\n",
                "a",
                strings(&["p", "q"]),
                "---\na:\n  -  p\n  -  q # last\nb: 1\n---\n",
            ),
            (
                "---\na:\n- x\n- y\n---\n",
                "a",
                strings(&["z"]),
                "---\na:\n- z\n---\n",
            ),
            (
                "---\na:\n- x\n---\n",
                "a",
                strings(&[]),
                "---\na: []\n---\n",
            ),
            (
                "---\na: # c\n  b: 1\n---\n",
                "a",
                Value::from(2),
                "---\na: 2 # c\n---\n",
            ),
            ("---\na:\n---\n", "a", Value::Null, "---\na:\n---\n"),
            (
                "---\na: # c\n---\n",
                "a",
                Value::from(true),
                "---\na: true # c\n---\n",
            ),
            (
                "---\ncode: |\n    old\nb: 1\n---\n",
                "code",
                "x\n  y\n".into(),
                "---\ncode: |\n    x\n      y\nb: 1\n---\n",
            ),
            (
                "---\ncode: x # c\n---\n",
                "code",
                "l1\nl2".into(),
                "---\ncode: |- # c\n  l1\n  l2\n---\n",
            ),
        ];
        for (text, key, value, expected) in cases {
            assert_eq!(set(text, key, value), expected, "{text:?}");
        }
    }

    #[test]
    fn block_scalar_to_inline_and_back() {
        let text = "---\r\ncode: |+\r\n  x\r\n\r\nnext: 1\r\n---\r\n";
        assert_eq!(
            set(text, "code", Value::from(5)),
            "---\r\ncode: 5\r\nnext: 1\r\n---\r\n"
        );
        let text = "---\r\ncode:\r\n  - a\r\nnext: 1\r\n---\r\n";
        assert_eq!(
            set(text, "code", "a\nb\n".into()),
            "---\r\ncode: |\r\n  a\r\n  b\r\nnext: 1\r\n---\r\n"
        );
    }

    #[test]
    fn anchors_in_use_are_refused() {
        let text = "---\na: &x 1\nb: *x\n---\n";
        let keys = FrontmatterKeys::read(text).unwrap().unwrap();
        assert_eq!(keys.set(text, "a", &Value::from(2)).unwrap_err().line, 2);
        assert_eq!(keys.remove(text, "a").unwrap_err().line, 2);
        assert!(keys.set(text, "b", &Value::from(2)).is_ok());
        let text = "---\na: &x 1\nb: *xy\n---\n";
        let keys = FrontmatterKeys::read(text).unwrap().unwrap();
        assert!(keys.remove(text, "a").unwrap().is_some());
    }
}
