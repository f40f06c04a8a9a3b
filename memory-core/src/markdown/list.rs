//! List items of a section body, kept with their original text for lossless re-rendering.

/// One entry of a list-shaped section: a `-`/`*`/`+`/`1.` item with its continuation
/// lines, or a stray paragraph (kept as an entry so that nothing is ever dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    /// The entry's text: bullet removed, continuation lines joined with `\n`, trimmed.
    pub text: String,
    /// The entry's original lines, exactly, joined with `\n` (no final terminator).
    pub raw: String,
    /// Whether a blank line separated the entry from the one before it.
    pub blank_before: bool,
}

/// Parses a section body into entries. Blank lines separate paragraphs; a bullet line
/// starts a new entry; other lines continue the current entry.
///
/// ```
/// use memory_core::markdown::parse_list;
/// let items = parse_list("- one\n  more\n* two\n\nloose text\n");
/// let texts: Vec<_> = items.iter().map(|i| i.text.as_str()).collect();
/// assert_eq!(texts, ["one\nmore", "two", "loose text"]);
/// assert_eq!(items[0].raw, "- one\n  more");
/// ```
pub fn parse_list(body: &str) -> Vec<ListItem> {
    let mut items: Vec<ListItem> = Vec::new();
    let mut open = false;
    let mut blank = false;
    for line in body.lines() {
        if line.trim().is_empty() {
            open = false;
            blank = true;
            continue;
        }
        let blank_before = std::mem::take(&mut blank) && !items.is_empty();
        match bullet_text(line) {
            Some(text) => {
                items.push(ListItem {
                    text: text.trim().to_string(),
                    raw: line.to_string(),
                    blank_before,
                });
                open = true;
            }
            None if open => {
                // `open` is only true right after an item was pushed, so `last_mut` exists.
                if let Some(item) = items.last_mut() {
                    item.raw.push('\n');
                    item.raw.push_str(line);
                    item.text.push('\n');
                    item.text.push_str(line.trim());
                }
            }
            None => {
                items.push(ListItem {
                    text: line.trim().to_string(),
                    raw: line.to_string(),
                    blank_before,
                });
                open = true;
            }
        }
    }
    items
}

fn bullet_text(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = trimmed.strip_prefix(bullet) {
            return Some(rest);
        }
    }
    if matches!(trimmed, "-" | "*" | "+") {
        return Some("");
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let rest = &trimmed[digits..];
        if let Some(after) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(after);
        }
    }
    None
}

/// Renders an entry as a `- ` bullet; inner line breaks become indented continuation lines.
///
/// ```
/// assert_eq!(memory_core::markdown::render_item_line("a\nb"), "- a\n  b");
/// ```
pub fn render_item_line(text: &str) -> String {
    let mut out = String::from("- ");
    for (i, part) in text.trim().lines().enumerate() {
        if i > 0 {
            out.push_str("\n  ");
        }
        out.push_str(part.trim());
    }
    out
}
