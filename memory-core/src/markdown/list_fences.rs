//! The block classifier with list items as containers, as CommonMark reads them for one
//! concern: a fenced code block opened inside a list item ends with the item — at the
//! first line that is not blank and is indented less than the item's text — even when
//! its closing fence never comes. The plain [`classify`](super::classify) (what Agent
//! Memory's reader uses) keeps such a fence open to the end of the document.

use super::blocks::{BlockStart, Blocks, Classifier, Context, block_start, is_blank};

/// Every line of `text` with its context, a fence inside a list item closed by the end
/// of the item.
///
/// ```
/// use memory_core::markdown::{Context, classify_in_list_items};
/// let text = "- a\n  ```\n  code\n- b\n";
/// let blocks = classify_in_list_items(text);
/// assert_eq!(blocks.lines[3].context, Context::List, "the item ended the fence");
/// assert!(blocks.unclosed.is_none());
/// assert!(memory_core::markdown::classify(text).unclosed.is_some());
/// ```
pub fn classify_in_list_items(text: &str) -> Blocks<'_> {
    let mut classifier = Classifier::new(text);
    let mut lines = Vec::new();
    // The text columns of the list items open at the current line, innermost last.
    let mut items: Vec<usize> = Vec::new();
    // The text column of the item the open fence is in.
    let mut fence_item: Option<usize> = None;
    // Whether the last line was paragraph text inside an open item.
    let mut paragraph_in_item = false;
    while let Some(line) = classifier.next_line() {
        let t = line.text;
        let blank = is_blank(t);
        let columns = columns_of(t);
        if let Some(column) = fence_item
            && classifier.in_fence()
            && !blank
            && columns < column
        {
            classifier.end_fence();
        }
        let was_open = classifier.is_open();
        let block = classifier.classify_line(line);
        let rest = t.trim_start_matches([' ', '\t']);
        // A plain line indented less than the item's text right after paragraph text in
        // it continues that paragraph lazily: the item stays open.
        let lazy = block.lazy
            || (paragraph_in_item
                && block.context == Context::Text
                && columns < 4
                && block_start(t).is_none());
        if blank {
            paragraph_in_item = false;
        }
        if was_open && !blank && !lazy {
            while items.last().is_some_and(|&c| c > columns) {
                items.pop();
            }
            let base = items.last().copied().unwrap_or(0);
            if classifier.in_fence() {
                fence_item = items.last().copied();
            } else if columns - base < 4
                && block_start(t.trim_start_matches([' ', '\t'])) == Some(BlockStart::ListItem)
            {
                items.push(columns + marker_width(t.trim_start_matches([' ', '\t'])));
            }
        }
        if !classifier.in_fence() {
            fence_item = None;
        }
        if !blank {
            // Indented less than four columns past the item's text, an "indented" line is
            // the item's paragraph, not code.
            let in_item_text = items
                .last()
                .is_some_and(|&c| columns >= c && columns - c < 4);
            paragraph_in_item = !items.is_empty()
                && (matches!(block.context, Context::Text | Context::List)
                    || (block.context == Context::Indented && in_item_text))
                && !classifier.in_fence()
                && (lazy
                    || in_item_text && block.context == Context::Indented
                    || block_start(rest).is_none_or(|b| b == BlockStart::ListItem));
        }
        lines.push(block);
    }
    Blocks {
        lines,
        unclosed: classifier.unclosed(),
    }
}

/// The indentation of `t` in columns (a tab advances to the next multiple of 4), however
/// deep.
fn columns_of(t: &str) -> usize {
    let mut columns = 0;
    for b in t.bytes() {
        match b {
            b' ' => columns += 1,
            b'\t' => columns += 4 - columns % 4,
            _ => break,
        }
    }
    columns
}

/// The width of a list item's marker and the white space after it, up to its text
/// (`- a` → 2, `10.  a` → 5): one to four columns of white space, one when there are
/// more (the rest is indented code) or none (an empty item). Tabs count as one column
/// here (a tab after a marker is rare; CommonMark's exact rule needs the absolute column).
fn marker_width(rest: &str) -> usize {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let marker = if digits > 0 { digits + 1 } else { 1 };
    let after = rest.get(marker..).unwrap_or("");
    let spaces = after
        .bytes()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count();
    let spaces = if after.trim().is_empty() || spaces > 4 {
        1
    } else {
        spaces
    };
    marker + spaces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contexts(text: &str) -> Vec<Context> {
        classify_in_list_items(text)
            .lines
            .iter()
            .map(|l| l.context)
            .collect()
    }

    #[test]
    fn a_fence_in_an_item_ends_with_the_item() {
        use Context::*;
        assert_eq!(
            contexts("- a\n  ```\n  x\n\n  y\n- b\n"),
            [List, Fence, Fence, Fence, Fence, List]
        );
        // An ordered item's text column (3): a line indented less ends it.
        assert_eq!(
            contexts("1. a\n   ```\n   x\n  two in\n"),
            [List, Fence, Fence, Text]
        );
        // Closed normally, or at the margin with no item: unchanged.
        assert_eq!(
            contexts("- a\n  ```\n  x\n  ```\n- b\n"),
            [List, Fence, Fence, Fence, List]
        );
        assert_eq!(contexts("```\n- a\n"), [Fence, Fence]);
        assert!(classify_in_list_items("```\n- a\n").unclosed.is_some());
    }

    #[test]
    fn marker_widths() {
        assert_eq!(marker_width("- a"), 2);
        assert_eq!(marker_width("10.  a"), 5);
        assert_eq!(marker_width("-      a"), 2);
        assert_eq!(marker_width("-"), 2);
        assert_eq!(columns_of("\t  x"), 6);
    }
}
