//! `hygiene::find_secret` and `refuse_secrets` on hand-written shapes: CRLF, BOM,
//! Markdown code, comments, quoting, Unicode, several secrets, empty and huge texts; and
//! the documented pattern set as a snapshot.

use memory_core::hygiene::{find_secret, refuse_secrets, secret_kinds};
use memory_core::{Error, ErrorKind};

const GITHUB: &str = "ghp_Zq8rT2mV9xK4pL7wN3bH6cJ1dF5gS0aYeUiO";
const STRIPE: &str = "sk_live_51HqLyjWDarjtT1zdp7dcXyZ9";

#[test]
fn lines_are_counted_through_crlf_and_a_bom() {
    let text = format!("\u{feff}Decision: rotate.\r\n\r\nold value {GITHUB}\r\n");
    let found = find_secret(&text).unwrap();
    assert_eq!((found.kind, found.line), ("github-token", 3));
    assert_eq!(&text[found.range], GITHUB);
}

#[test]
fn secrets_in_code_comments_quotes_and_tables_are_found() {
    let shapes = [
        format!("```sh\nexport GITHUB_TOKEN={GITHUB}\n```"),
        format!("Use `{GITHUB}` for CI."),
        format!("<!-- {GITHUB} -->"),
        format!("%% {GITHUB} %%"),
        format!("> [!note]\n> token {GITHUB}"),
        format!("| name | value |\n|---|---|\n| ci | {GITHUB} |"),
        format!("\"{GITHUB}\""),
        format!("'{GITHUB}'"),
        format!("({GITHUB})"),
        format!("令牌：{GITHUB}。"),
        format!("- [x] revoke {GITHUB}"),
        format!("tags: [ci, {GITHUB}]"),
    ];
    for text in &shapes {
        let found = find_secret(text).unwrap_or_else(|| panic!("missed in {text:?}"));
        assert_eq!(found.kind, "github-token", "{text:?}");
        assert_eq!(&text[found.range], GITHUB, "{text:?}");
    }
}

#[test]
fn a_token_glued_to_other_letters_is_another_word() {
    assert_eq!(find_secret(&format!("x{GITHUB}")), None);
    assert_eq!(
        find_secret(&format!("{STRIPE}Q")).map(|f| f.kind),
        Some("stripe-key")
    );
    assert_eq!(
        find_secret("AKIAZ7QX3RT5WVB2KMNPQ"),
        None,
        "21 characters is not an AWS key id"
    );
    assert_eq!(find_secret("MYAKIAZ7QX3RT5WVB2KMNP"), None);
}

#[test]
fn the_earliest_secret_is_reported_and_named_formats_win() {
    let text = format!("a\n{STRIPE}\n{GITHUB}");
    let found = find_secret(&text).unwrap();
    assert_eq!((found.kind, found.line), ("stripe-key", 2));
    // A generic assignment on line 1 and a token on line 2: the token is reported.
    let text = format!("password=Hunter22x\nGITHUB_TOKEN={GITHUB}");
    assert_eq!(find_secret(&text).unwrap().kind, "github-token");
    assert_eq!(
        find_secret("password=Hunter22x").unwrap().kind,
        "secret-assignment"
    );
}

#[test]
fn empty_tiny_and_huge_texts() {
    assert_eq!(find_secret(""), None);
    assert_eq!(find_secret("\u{feff}"), None);
    assert_eq!(find_secret("="), None);
    assert_eq!(find_secret("password="), None);
    assert_eq!(find_secret("-----BEGIN PRIVATE KEY-----"), None);
    let huge = "We decided to keep the ledger in Postgres. ".repeat(50_000);
    assert_eq!(find_secret(&huge), None);
    let with_secret = format!("{huge}\n{STRIPE}");
    let found = find_secret(&with_secret).unwrap();
    assert_eq!((found.kind, found.line), ("stripe-key", 2));
    // Many anchors (`token`, `password`, `://`) without a secret.
    let noisy =
        "the token: expired; see https://example.com/password for the reset. ".repeat(20_000);
    assert_eq!(find_secret(&noisy), None);
}

#[test]
fn quoted_values_with_ampersands_and_unicode_are_whole() {
    let text = "password=\"é&x=1Grüße\"";
    let found = find_secret(text).unwrap();
    assert_eq!(
        (found.kind, &text[found.range]),
        ("secret-assignment", text)
    );
    let text = "https://x.example/cb?token=Zk9q2Lm4Wp&x=1";
    let found = find_secret(text).unwrap();
    assert_eq!(&text[found.range], "token=Zk9q2Lm4Wp");
}

#[test]
fn refusal_is_a_typed_invalid_input_error() {
    let err = refuse_secrets("tags[2]", &format!("x\r\ny {GITHUB}")).unwrap_err();
    assert!(matches!(
        &err,
        Error::SecretRefused { field, kind: "github-token", line: 2 } if field == "tags[2]"
    ));
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.kind().exit_code(), 2);
    assert_eq!(err.line(), Some(2));
    assert_eq!(err.id(), None);
    assert_eq!(
        err.to_string(),
        "tags[2]: line 2 holds a secret (github-token); memory never stores secrets, so nothing was written"
    );
    assert!(
        !format!("{err:?}").contains("ghp_"),
        "Debug does not show it either"
    );
    assert!(refuse_secrets("body", "").is_ok());
}

#[test]
fn every_kind_name_is_stable_kebab_case() {
    for (kind, doc) in secret_kinds() {
        assert!(
            kind.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{kind}"
        );
        assert!(!doc.is_empty() && !doc.ends_with('.'), "{kind}: {doc}");
    }
}

#[test]
fn the_documented_pattern_set() {
    let mut table = String::from("| kind | matches |\n|---|---|\n");
    for (kind, doc) in secret_kinds() {
        table.push_str(&format!("| `{kind}` | {} |\n", doc.replace('|', "\\|")));
    }
    insta::assert_snapshot!(table);
}
