//! Runs the whole secrets corpus (`tests/secrets_corpus/`) and reports every miss and
//! every false alarm at once.

#[path = "secrets_corpus/corpus.rs"]
mod corpus;

use std::collections::BTreeSet;

use memory_core::ErrorKind;
use memory_core::hygiene::{find_secret, refuse_secrets, secret_kinds};

#[test]
fn every_true_positive_is_found_with_its_kind_and_range() {
    let cases = corpus::cases("true_positives.txt");
    assert!(cases.len() >= 60, "only {} true positives", cases.len());
    let mut problems = Vec::new();
    for case in &cases {
        match find_secret(&case.text) {
            None => problems.push(format!("{}: missed {}", case.at, case.kind)),
            Some(found) if found.kind != case.kind => problems.push(format!(
                "{}: expected {}, found {} at {:?}",
                case.at, case.kind, found.kind, found.range
            )),
            Some(found) if found.range != case.expected => problems.push(format!(
                "{}: {} found at {:?} ({:?}), expected {:?}",
                case.at,
                case.kind,
                found.range,
                case.text.get(found.range.clone()),
                case.expected
            )),
            Some(found) => {
                let line = 1 + case.text[..found.range.start].matches('\n').count();
                if found.line != line {
                    problems.push(format!(
                        "{}: line {} instead of {line}",
                        case.at, found.line
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} true positives failed:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}

#[test]
fn no_false_positive_is_flagged() {
    let cases = corpus::cases("false_positives.txt");
    assert!(cases.len() >= 60, "only {} false positives", cases.len());
    let alarms: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            assert_eq!(case.kind, "none", "{}", case.at);
            find_secret(&case.text).map(|found| {
                format!(
                    "{}: {} at {:?}: {:?}",
                    case.at,
                    found.kind,
                    found.range,
                    &case.text[found.range.clone()]
                )
            })
        })
        .collect();
    assert!(
        alarms.is_empty(),
        "{} of {} false positives flagged:\n{}",
        alarms.len(),
        cases.len(),
        alarms.join("\n")
    );
}

#[test]
fn every_kind_of_the_set_has_true_positives() {
    let covered: BTreeSet<String> = corpus::cases("true_positives.txt")
        .into_iter()
        .map(|c| c.kind)
        .collect();
    let kinds: BTreeSet<String> = secret_kinds().map(|(kind, _)| kind.to_string()).collect();
    let uncovered: Vec<&String> = kinds.difference(&covered).collect();
    assert!(
        uncovered.is_empty(),
        "kinds without a true positive: {uncovered:?}"
    );
    let unknown: Vec<&String> = covered.difference(&kinds).collect();
    assert!(
        unknown.is_empty(),
        "corpus kinds the set does not have: {unknown:?}"
    );
}

#[test]
fn refusals_name_field_kind_and_line_and_never_the_secret() {
    for case in corpus::cases("true_positives.txt") {
        let text = format!("Decision: keep it.\n\n{}", case.text);
        let err = refuse_secrets("body", &text).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{}", case.at);
        assert_eq!(err.field(), Some("body"));
        assert_eq!(err.secret_kind(), Some(case.kind.as_str()), "{}", case.at);
        let line = 3 + case.text[..case.expected.start].matches('\n').count();
        assert_eq!(err.line(), Some(line), "{}", case.at);
        assert_eq!(err.path(), None);
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("body: line {line} holds a secret ({})", case.kind)),
            "{message}"
        );
        let secret = &case.text[case.expected.clone()];
        // No run of 8 characters of the secret appears in the message once the kind's
        // name (`authorization-header` for `Authorization: …`) is taken out.
        let rest = message.replace(&case.kind, "");
        let chars: Vec<char> = secret.chars().collect();
        for window in chars.windows(8) {
            let piece: String = window.iter().collect();
            assert!(
                !rest.contains(&piece),
                "{}: {message} shows {piece:?}",
                case.at
            );
        }
    }
}
