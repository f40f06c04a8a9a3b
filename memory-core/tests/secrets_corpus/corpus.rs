//! Reads the secrets corpus: `true_positives.txt` and `false_positives.txt` beside this
//! file (format described at the top of each).

use std::ops::Range;

/// One case of the corpus.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file and line of its `===` header, for reports.
    pub at: String,
    /// The expected kind, or `none`.
    pub kind: String,
    /// The text, markers removed.
    pub text: String,
    /// The expected match (the whole text unless marked with ⟦ ⟧).
    pub expected: Range<usize>,
}

const OPEN: &str = "⟦";
const CLOSE: &str = "⟧";

/// Every case of corpus file `name`.
pub fn cases(name: &str) -> Vec<Case> {
    let path = format!("{}/tests/secrets_corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut cases = Vec::new();
    let mut current: Option<(String, String, Vec<&str>)> = None;
    let finish = |current: Option<(String, String, Vec<&str>)>, cases: &mut Vec<Case>| {
        if let Some((at, kind, lines)) = current {
            let raw = lines.join("\n");
            let (text, expected) = match (raw.find(OPEN), raw.find(CLOSE)) {
                (Some(open), Some(close)) => {
                    let text = raw.replacen(OPEN, "", 1).replacen(CLOSE, "", 1);
                    (text, open..close - OPEN.len())
                }
                _ => (raw.clone(), 0..raw.len()),
            };
            cases.push(Case {
                at,
                kind,
                text,
                expected,
            });
        }
    };
    for (number, line) in text.split('\n').enumerate() {
        if let Some(header) = line.strip_prefix("=== ") {
            finish(current.take(), &mut cases);
            let kind = header.split(" -- ").next().unwrap().trim().to_string();
            current = Some((format!("{name}:{}", number + 1), kind, Vec::new()));
        } else if let Some((_, _, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some((_, _, lines)) = current.as_mut() {
        // The file's final line break.
        if lines.last() == Some(&"") {
            lines.pop();
        }
    }
    finish(current, &mut cases);
    cases
}
