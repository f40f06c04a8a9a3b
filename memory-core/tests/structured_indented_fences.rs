//! A fenced block indented under an entry — 2 to 8 columns, spaces or a tab, after a blank
//! line or straight after the entry's text — is the entry's, as CommonMark reads it (a
//! fence inside the list item, or at 4+ columns past the item's text an indented code
//! block holding the fence lines): a `- YYYY-MM-DD:` line inside it is no entry, and
//! compaction moves the whole block with its entry, to the archive and back.

use memory_core::structured_memory::{Budgets, DefaultCompactor, StructuredMemory};
use std::fs;

fn block(indent: &str, blank_before: bool) -> String {
    let mut out = String::new();
    if blank_before {
        out.push('\n');
    }
    for line in ["```sh", "- 2026-07-09: not an entry", "deploy --now", "```"] {
        out.push_str(indent);
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn an_indented_fence_is_its_entrys_and_moves_with_it() {
    for indent in ["  ", "   ", "    ", "      ", "        ", "\t", "  \t"] {
        for blank_before in [true, false] {
            let fence = block(indent, blank_before);
            let text = format!("- 2026-07-01 [s]: old\n{fence}- 2026-07-02 [s]: new\n");
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            fs::write(d.join("memory-f.md"), &text).unwrap();
            fs::write(d.join("MEMORY.md"), "- [F](memory-f.md) — f\n").unwrap();
            let m = StructuredMemory::builder(d)
                .budgets(Budgets::default().topic_lines(2))
                .open()
                .unwrap();
            let case = format!("{indent:?} blank={blank_before}");
            let topic = m.topic("memory-f.md").unwrap();
            assert_eq!(topic.entries.len(), 2, "{case}: {:?}", topic.entries);
            assert!(topic.unparsed_lines().is_empty(), "{case}");
            let lines = fence.lines().count();
            assert_eq!(topic.entries[0].end_line, 1 + lines, "{case}");
            assert!(topic.entries[0].text.contains("deploy --now"), "{case}");
            let report = m.compact(None, &DefaultCompactor, false).unwrap();
            assert_eq!(
                fs::read_to_string(d.join("memory-f.md")).unwrap(),
                "- 2026-07-02 [s]: new\n",
                "{case}"
            );
            let archive = fs::read_to_string(d.join("memory-archive.md")).unwrap();
            for line in fence.lines().filter(|l| !l.trim().is_empty()) {
                assert!(archive.contains(line), "{case}: {line:?} not archived");
            }
            m.restore(report.id.as_deref().unwrap()).unwrap();
            let back = m.topic("memory-f.md").unwrap();
            assert_eq!(back.entries.len(), 2, "{case}: {}", back.text);
            assert!(
                back.entries.iter().any(|e| e.text.contains("deploy --now")),
                "{case}: the block came back with its entry"
            );
        }
    }
}
