//! Shared hygiene of every model's text: the secrets a memory must never store, and the
//! size of what it stores.
//!
//! **Secrets.** One curated pattern set ([`secret_kinds`] lists it, with what each kind
//! matches): private key blocks, cloud (AWS, Google, Azure, DigitalOcean, Vault), VCS
//! (GitHub, GitLab, Bitbucket, Atlassian), chat (Slack, Discord, Telegram), payment
//! (Stripe, Square, PayPal/Braintree, Shopify), messaging (Twilio, SendGrid, Mailgun),
//! package registry (npm, PyPI) and AI (OpenAI, Anthropic, Hugging Face) tokens, JWTs,
//! passwords in URLs, `Authorization` headers and `password=`/`secret:`/`token:`/`api_key=`
//! assignments of a literal. [`find_secret`] finds the first one; [`refuse_secrets`] turns
//! it into [`Error::SecretRefused`], which names the field, the kind and the line but
//! never shows the secret. Placeholders (`<token>`, `${TOKEN}`, `xxx`, `***`,
//! `changeme`, `REDACTED`, empty) and code references (`token=get_token()`) are not
//! secrets, nor are UUIDs, git SHAs, hashes and URLs without credentials. A private key
//! pasted without its `-----BEGIN` line is still one: its lone `-----END … PRIVATE
//! KEY-----` line, base64 that decodes to the start of a DER, OpenSSH or OpenPGP private
//! key, or lines of base64 key data by their shape (see [`secret_kinds`]).
//!
//! Matching is one `aho-corasick` pass over the literal anchors of every pattern (`ghp_`,
//! `AKIA`, `://`, `password`, …); only the expressions whose anchors occur then run, so
//! clean text costs one automaton pass.
//!
//! **Size.** [`check_body`] refuses a body past [`MAX_BODY_BYTES`] and flags one far beyond
//! the seed's "1-3 sentences": more than [`FLAG_SENTENCES`] sentences, a line over
//! [`FLAG_LINE_CHARS`] characters, a fenced code block over [`FLAG_CODE_LINES`] lines.
//!
//! ```
//! use memory_core::{Error, ErrorKind, hygiene};
//!
//! let body = "Deploys use the bot token.\nGITHUB_TOKEN=ghp_R4nd0mF4k3T0k3nV4lu3F0rT3st1ngAbCdEf";
//! let found = hygiene::find_secret(body).unwrap();
//! assert_eq!((found.kind, found.line), ("github-token", 2));
//!
//! let err = hygiene::refuse_secrets("body", body).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::InvalidInput);
//! assert!(!err.to_string().contains("ghp_"));
//!
//! assert!(hygiene::refuse_secrets("body", "Rotate the token: see the runbook.").is_ok());
//! let flags = hygiene::check_body("body", "We chose Postgres. It has row locks.")?;
//! assert!(flags.is_clean());
//! # Ok::<(), Error>(())
//! ```

mod base64;
mod checks;
mod key_data;
mod limits;
mod patterns;
mod public_key_data;
mod scanner;
mod sentences;
mod text_input;

use std::ops::Range;

pub use limits::{
    BodyFlag, BodyFlags, FLAG_CODE_LINES, FLAG_LINE_CHARS, FLAG_SENTENCES, MAX_BODY_BYTES,
    check_body,
};
pub use text_input::text_from_bytes;

use crate::error::{Error, Result};

/// A secret found in a text: its kind, where it is, and on which line.
///
/// ```
/// let text = "a\nb AKIAZ7QX3RT5WVB2KMNP c";
/// let found = memory_core::hygiene::find_secret(text).unwrap();
/// assert_eq!(found.kind, "aws-access-key");
/// assert_eq!(&text[found.range.clone()], "AKIAZ7QX3RT5WVB2KMNP");
/// assert_eq!(found.line, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecretFinding {
    /// The stable kind name (`private-key`, `aws-access-key`, `github-token`, …; see
    /// [`secret_kinds`]).
    pub kind: &'static str,
    /// The byte range of the match: the secret, with the key word that names it for the
    /// kinds recognised by context (`aws_secret_access_key = …`, `password=…`).
    pub range: Range<usize>,
    /// The 1-based line the match starts on.
    pub line: usize,
}

/// The first secret in `text`, if any: the earliest match of a named format (a token,
/// key or webhook), else the earliest generic one (a password in a URL, an
/// `Authorization` header, a `password=` assignment).
///
/// ```
/// use memory_core::hygiene::find_secret;
/// assert_eq!(find_secret("postgres://app:s3cr3t-Pw@db.internal/app").unwrap().kind, "password-in-url");
/// assert_eq!(find_secret("postgres://app@db.internal/app"), None);
/// assert_eq!(find_secret("password=${DB_PASSWORD}"), None);
/// assert_eq!(find_secret("commit 3f786850e387550fdab836ed7e6dc881de23001b"), None);
/// ```
pub fn find_secret(text: &str) -> Option<SecretFinding> {
    let hit = scanner::first_hit(text)?;
    let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..hit.range.start]).count();
    Some(SecretFinding {
        kind: hit.kind,
        range: hit.range,
        line,
    })
}

/// Refuses `text` if it carries a secret: [`Error::SecretRefused`] naming `field`, the
/// secret's kind and line, never the secret itself. Call it on every field before
/// anything is written.
///
/// ```
/// use memory_core::{Error, ErrorKind, hygiene::refuse_secrets};
/// let err = refuse_secrets("rationale", "ok\nkey: sk_live_4eC39HqLyjWDarjtT1zdp7dc").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidInput);
/// assert_eq!(err.field(), Some("rationale"));
/// assert_eq!(err.secret_kind(), Some("stripe-key"));
/// assert_eq!(err.line(), Some(2));
/// assert_eq!(
///     err.to_string(),
///     "rationale: line 2 holds a secret (stripe-key); memory never stores secrets, so nothing was written"
/// );
/// assert!(refuse_secrets("rationale", "We rotate keys monthly.").is_ok());
/// ```
pub fn refuse_secrets(field: &str, text: &str) -> Result<()> {
    match find_secret(text) {
        None => Ok(()),
        Some(found) => Err(Error::SecretRefused {
            field: field.to_string(),
            kind: found.kind,
            line: found.line,
        }),
    }
}

/// Everything a write checks on a body, in order: the size limit ([`check_body`]'s
/// [`Error::TextTooLarge`], before any scan), then secrets ([`refuse_secrets`]), then the
/// flags for the outcome.
///
/// ```
/// use memory_core::hygiene::{BodyFlag, MAX_BODY_BYTES, screen_body};
/// let flags = screen_body("body", "One. Two. Three. Four.")?;
/// assert_eq!(flags.flags, vec![BodyFlag::ManySentences { sentences: 4 }]);
/// let secret = screen_body("body", "AKIAZ7QX3RT5WVB2KMNP").unwrap_err();
/// assert_eq!(secret.secret_kind(), Some("aws-access-key"));
/// let huge = format!("{}AKIAZ7QX3RT5WVB2KMNP", "a".repeat(MAX_BODY_BYTES));
/// assert!(matches!(screen_body("body", &huge), Err(memory_core::Error::TextTooLarge { .. })));
/// # Ok::<(), memory_core::Error>(())
/// ```
pub fn screen_body(field: &str, text: &str) -> Result<BodyFlags> {
    if text.len() > MAX_BODY_BYTES {
        return check_body(field, text);
    }
    refuse_secrets(field, text)?;
    check_body(field, text)
}

/// Every kind of the pattern set with what it matches, in the set's order (a kind with
/// several formats appears once per format), then the two shapes of private key data
/// pasted without its BEGIN line.
///
/// ```
/// let kinds: Vec<&str> = memory_core::hygiene::secret_kinds().map(|(kind, _)| kind).collect();
/// assert!(kinds.contains(&"private-key") && kinds.contains(&"password-in-url"));
/// ```
pub fn secret_kinds() -> impl Iterator<Item = (&'static str, &'static str)> {
    patterns::PATTERNS
        .iter()
        .map(|p| (p.kind, p.doc))
        .chain(key_data::KEY_DATA_DOCS.iter().copied())
}
