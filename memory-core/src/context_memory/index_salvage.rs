//! What can be kept of an `_index.md` that does not read: the summary of every row whose
//! entity name still reads (only the index holds summaries), so that `heal`'s rebuild
//! loses none of them. The old text itself is kept verbatim in a backup.

use std::collections::HashMap;

use super::names::EntityName;
use crate::markdown::{lines, split_cells};

/// Each entity's summary in a broken index `text`, as far as it reads: every table line
/// (`| … |`, anywhere in the file, after blank lines too) whose Entity cell is an entity
/// name. The columns are found from the last header line above it that names `Entity`
/// and `Summary` (an extra `| Owner |` column moves nothing), else the seed's order
/// (Entity first, Summary third). The first row of an entity wins.
pub(super) fn summaries(text: &str) -> HashMap<EntityName, String> {
    let mut out = HashMap::new();
    let (mut entity_col, mut summary_col) = (0, 2);
    for line in lines(text) {
        let trimmed = line.text.trim();
        if !trimmed.starts_with('|') {
            continue;
        }
        let cells = split_cells(trimmed);
        let position = |name: &str| {
            cells
                .iter()
                .position(|c| crate::markdown::without_emphasis(c).eq_ignore_ascii_case(name))
        };
        if let (Some(e), Some(s)) = (position("Entity"), position("Summary")) {
            (entity_col, summary_col) = (e, s);
            continue;
        }
        let (Some(entity), Some(summary)) = (cells.get(entity_col), cells.get(summary_col)) else {
            continue;
        };
        let bare = crate::markdown::without_emphasis(entity.trim());
        if let Ok(name) = EntityName::parse(bare.trim_matches('`')) {
            out.entry(name)
                .or_insert_with(|| summary.trim().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> EntityName {
        EntityName::parse(s).unwrap()
    }

    #[test]
    fn rows_with_an_extra_column_a_typo_or_after_a_blank_line_keep_their_summary() {
        let text = "# Index: org.global\r\n\r\n| Entity | Owner | Category | Summary | Tags | Status | File |\r\n|---|---|---|---|---|---|---|\r\n| org.global.decision.001 | ann | decision | Auth uses JWT \\| RS256 | auth, security | accpeted | decision-001.md |\r\n\r\n| **org.global.decision.002** | bob | decision | Café ☕ rules | a, b | accepted | decision-002.md |\r\n| not-a-name | x | decision | junk | a | accepted | x.md |\r\n| org.global.decision.001 | ann | decision | a repeat | a | accepted | decision-001.md |\r\n";
        let found = summaries(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(
            found[&name("org.global.decision.001")],
            "Auth uses JWT | RS256"
        );
        assert_eq!(found[&name("org.global.decision.002")], "Café ☕ rules");
    }

    #[test]
    fn without_a_header_the_seed_s_columns_are_assumed() {
        let text =
            "| org.global.risk.001 | risk | Old SDK | sdk, auth | deprecated | risk-001.md |\n";
        assert_eq!(summaries(text)[&name("org.global.risk.001")], "Old SDK");
        assert!(summaries("").is_empty());
    }
}
