//! Secrets already in the memory: memory-core never writes one (every value is scanned
//! with the context-memory pattern set), but a hand edit, another tool or an older
//! version may have. `check` reports each by file and line — never the secret itself —
//! in topic files, `MEMORY.md` and the archive.

use super::check::{Violation, ViolationKind};
use crate::hygiene::find_secret;

/// Each secret in `text` (the file `file`), as a `secret` violation at its line.
pub(super) fn secrets_in(file: &str, text: &str, archive: bool) -> Vec<Violation> {
    let advice = if archive {
        "the archive is append-only for memory-core: remove it there by hand, and rotate it"
    } else {
        "remove it by hand (a write that replaces the entry would copy it into the append-only archive), and rotate it"
    };
    let mut out = Vec::new();
    let mut from = 0;
    let mut line = 1;
    let mut counted = 0;
    while let Some(found) = text.get(from..).and_then(find_secret) {
        let start = from + found.range.start;
        line += text[counted..start].matches('\n').count();
        counted = start;
        out.push(Violation {
            kind: ViolationKind::Secret,
            file: file.to_string(),
            line,
            message: format!(
                "holds what looks like a secret ({}): memory is loaded into every session; {advice}",
                found.kind
            ),
        });
        // On after the match (at least one character on).
        from += found.range.end.max(1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_is_reported_at_its_line_and_never_shown() {
        let key = "AKIAZ7QX3RT5WVB2KMNP";
        let text = format!(
            "# T\n\n- 2026-01-01 [k]: key {key}\n- 2026-01-02: ok\n- 2026-01-03: again {key} and {key}\n"
        );
        let found = secrets_in("memory-t.md", &text, false);
        let lines: Vec<usize> = found.iter().map(|v| v.line).collect();
        assert_eq!(lines, [3, 5, 5]);
        assert!(found.iter().all(|v| !v.message.contains(key)));
        assert!(secrets_in("memory-t.md", "- 2026-01-01: nothing here\n", false).is_empty());
    }
}
