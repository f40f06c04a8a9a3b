//! Properties of the secret pattern set: text memory holds (prose, identifiers, UUIDs,
//! hex, base64 of prose, URLs without credentials, CJK) never matches, and any true
//! positive of the corpus inserted into such text is found with its kind and range.

#[path = "secrets_corpus/corpus.rs"]
mod corpus;

#[path = "secrets_corpus/base64.rs"]
mod base64_text;
use base64_text::base64;

use std::sync::OnceLock;

use memory_core::hygiene::{check_body, find_secret, secret_kinds};
use proptest::prelude::*;

fn true_positives() -> &'static [corpus::Case] {
    static CASES: OnceLock<Vec<corpus::Case>> = OnceLock::new();
    CASES.get_or_init(|| corpus::cases("true_positives.txt"))
}

/// One piece of ordinary memory text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,12}",
        1 => "[A-Z][a-z]{1,10}",
        1 => "[a-z]{2,8}(_[a-z]{2,8}){1,3}",
        1 => "[a-z]{2,8}([A-Z][a-z]{2,8}){1,3}",
        1 => "[A-Z]{2,8}(_[A-Z]{2,8}){1,2}",
        1 => any::<u128>().prop_map(|n| {
            let h = format!("{n:032x}");
            format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
        }),
        1 => "[0-9a-f]{7,64}",
        1 => "[0-9]{1,12}",
        1 => "[a-z ]{4,60}".prop_map(|prose| base64(prose.as_bytes())),
        1 => ("[a-z]{3,10}", "[a-z]{1,10}", "(com|org|dev)").prop_map(|(host, path, tld)| format!("https://{host}.{tld}/{path}")),
        1 => "[a-z]{1,8}@[a-z]{2,8}\\.com",
        1 => "[\u{4e00}-\u{9fa5}]{1,12}(。|，)?",
        1 => "v[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9]{1,2}",
        1 => "`[a-z_]{2,12}\\(\\)`",
    ]
}

fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(" "),
        Just(" "),
        Just(", "),
        Just(". "),
        Just("\n"),
        Just("\n\n")
    ]
}

/// Ordinary memory text: pieces joined by separators.
fn prose() -> impl Strategy<Value = String> {
    prop::collection::vec((piece(), separator()), 0..40)
        .prop_map(|parts| parts.into_iter().map(|(piece, sep)| piece + sep).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn ordinary_text_never_matches(text in prose()) {
        prop_assert_eq!(find_secret(&text), None, "{:?}", text);
    }

    #[test]
    fn a_true_positive_in_ordinary_text_is_found_with_its_kind_and_range(
        before in prose(),
        after in prose(),
        index in any::<prop::sample::Index>(),
        left in prop_oneof![Just(" "), Just("\n")],
        right in prop_oneof![Just(" "), Just("\n")],
    ) {
        let case = index.get(true_positives());
        let text = format!("{before}{left}{}{right}{after}", case.text);
        let offset = before.len() + left.len();
        let found = find_secret(&text);
        prop_assert!(found.is_some(), "{}: missed in {:?}", case.at, text);
        let found = found.unwrap();
        prop_assert_eq!(found.kind, case.kind.as_str(), "{}", case.at);
        prop_assert_eq!(found.range, case.expected.start + offset..case.expected.end + offset, "{}", case.at);
        prop_assert_eq!(found.line, 1 + text[..offset + case.expected.start].matches('\n').count());
    }

    #[test]
    fn any_text_is_scanned_without_panic(text in "\\PC{0,300}", bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        for text in [text, String::from_utf8_lossy(&bytes).into_owned()] {
            if let Some(found) = find_secret(&text) {
                prop_assert!(text.get(found.range.clone()).is_some());
                prop_assert!(!found.range.is_empty());
                prop_assert!(secret_kinds().any(|(kind, _)| kind == found.kind));
            }
            let flags = check_body("body", &text).unwrap();
            prop_assert_eq!(flags.bytes, text.len());
        }
    }

    #[test]
    fn anchors_among_random_unicode_never_panic(
        parts in prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![
                    "password", "token", "secret", "api_key", "://", "@", ":", "=", ":=", "\"", "'", "`",
                    "&", "&x=", "?", "ghp_", "AKIA", "sk-", "sk-ant-", "hf_", "xoxb-", "eyJ", ".", "-----BEGIN PRIVATE KEY-----",
                    "-----END PRIVATE KEY-----", "discord", "twilio", "mailgun", "Authorization: Bearer ", "\n", "\r\n",
                ]).prop_map(str::to_string),
                "\\PC{0,12}",
                "[A-Za-z0-9+/_-]{0,40}",
            ],
            0..30,
        ),
    ) {
        let text: String = parts.concat();
        if let Some(found) = find_secret(&text) {
            prop_assert!(text.get(found.range.clone()).is_some(), "{:?} {:?}", text, found);
            prop_assert!(!found.range.is_empty());
        }
    }

    #[test]
    fn sentences_are_counted_in_any_script(
        sentences in prop::collection::vec(
            (prop::collection::vec("[a-z]{1,9}", 0..8), "(decision|ledger|postgres|rollout)", prop_oneof![Just("."), Just("!"), Just("?"), Just("。"), Just("…"), Just("?!")]),
            0..8,
        ),
    ) {
        let text: String = sentences
            .iter()
            .map(|(words, last, end)| {
                let mut s = words.join(" ");
                if !s.is_empty() {
                    s.push(' ');
                }
                format!("{s}{last}{end} ")
            })
            .collect();
        prop_assert_eq!(check_body("body", &text).unwrap().sentences, sentences.len(), "{:?}", text);
    }
}
