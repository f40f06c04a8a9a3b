//! A private key pasted without its `-----BEGIN … PRIVATE KEY-----` line is still a
//! secret: its lone `-----END` line, base64 that decodes to the start of a private key,
//! or lines of key data by their shape are refused with the same typed error as a whole
//! block — and public keys, certificates, hashes, UUIDs, short base64 and the base64 of
//! text are not.
//!
//! The keys are built here (real DER, OpenSSH and OpenPGP structures around random
//! bytes), never real keys.

#[path = "secrets_corpus/base64.rs"]
mod base64_text;
use base64_text::base64;

use memory_core::hygiene::{find_secret, refuse_secrets};
use memory_core::structured_memory::{Fact, StructuredMemory};
use memory_core::{Error, ErrorKind};
use proptest::prelude::*;

fn wrap(text: &str, width: usize) -> Vec<String> {
    text.as_bytes()
        .chunks(width)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect()
}

/// A DER tag-length-value.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else if len < 0x100 {
        out.extend([0x81, len as u8]);
    } else {
        out.extend([0x82, (len >> 8) as u8, len as u8]);
    }
    out.extend_from_slice(content);
    out
}

fn int(value: &[u8]) -> Vec<u8> {
    tlv(0x02, value)
}

fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

const RSA_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const EC_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const PBES2_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d];

/// Pseudo-random bytes of `len` from `seed` (splitmix64), first byte non-zero (a
/// positive big integer): the key material of a real key is random too.
fn random(seed: &[u8], len: usize) -> Vec<u8> {
    let mut state = seed.iter().fold(0x9e37_79b9_7f4a_7c15u64, |s, &b| {
        (s ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        out.extend(z.to_le_bytes());
    }
    out.truncate(len);
    out[0] |= 0x40;
    out
}

/// The private key formats, as (name, armor label, body bytes).
fn keys(seed: &[u8]) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let r = |len| random(seed, len);
    let rsa = seq(&[
        int(&[0]),
        int(&[[0u8].as_slice(), &r(256)].concat()),
        int(&[1, 0, 1]),
        int(&r(256)),
        int(&r(128)),
        int(&r(128)),
    ]);
    let pkcs8 = seq(&[
        int(&[0]),
        seq(&[tlv(0x06, RSA_OID), vec![0x05, 0x00]]),
        tlv(0x04, &rsa),
    ]);
    let sec1 = seq(&[
        int(&[1]),
        tlv(0x04, &r(32)),
        tlv(
            0xa0,
            &tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]),
        ),
        tlv(0xa1, &tlv(0x03, &r(66))),
    ]);
    let ec_pkcs8 = seq(&[
        int(&[0]),
        seq(&[
            tlv(0x06, EC_OID),
            tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]),
        ]),
        tlv(0x04, &sec1),
    ]);
    let ed25519 = seq(&[
        int(&[0]),
        seq(&[tlv(0x06, &[0x2b, 0x65, 0x70])]),
        tlv(0x04, &tlv(0x04, &r(32))),
    ]);
    let encrypted = seq(&[
        seq(&[
            tlv(0x06, PBES2_OID),
            seq(&[seq(&[tlv(0x06, &r(9)), tlv(0x04, &r(8))])]),
        ]),
        tlv(0x04, &r(1200)),
    ]);
    let dsa = seq(&[
        int(&[0]),
        int(&[[0u8].as_slice(), &r(128)].concat()),
        int(&r(20)),
        int(&r(128)),
        int(&r(128)),
        int(&r(20)),
    ]);
    let mut openssh = b"openssh-key-v1\0".to_vec();
    for part in [&b"none"[..], b"none", b""] {
        openssh.extend((part.len() as u32).to_be_bytes());
        openssh.extend_from_slice(part);
    }
    openssh.extend([0, 0, 0, 1, 0, 0, 0, 0x33, 0, 0, 0, 0x0b]);
    openssh.extend_from_slice(b"ssh-ed25519");
    openssh.extend(r(180));
    // An OpenPGP v4 secret key packet (old format, 1-byte length), EdDSA on Ed25519.
    let mut pgp = vec![0x94, 0x58, 0x04];
    pgp.extend(&r(4));
    pgp.extend([
        22, 0x09, 0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01,
    ]);
    pgp.extend(r(200));
    vec![
        ("rsa", "RSA PRIVATE KEY", rsa),
        ("pkcs8", "PRIVATE KEY", pkcs8),
        ("sec1", "EC PRIVATE KEY", sec1),
        ("ec-pkcs8", "PRIVATE KEY", ec_pkcs8),
        ("ed25519", "PRIVATE KEY", ed25519),
        ("encrypted", "ENCRYPTED PRIVATE KEY", encrypted),
        ("dsa", "DSA PRIVATE KEY", dsa),
        ("openssh", "OPENSSH PRIVATE KEY", openssh),
        ("pgp", "PGP PRIVATE KEY BLOCK", pgp),
    ]
}

fn width(name: &str) -> usize {
    if name == "openssh" { 70 } else { 64 }
}

/// Every way a paste can lose the BEGIN line, as (shape, text).
fn headless_pastes(name: &str, label: &str, body: &[u8]) -> Vec<(String, String)> {
    let lines = wrap(&base64(body), width(name));
    let end = format!("-----END {label}-----");
    let mut out = vec![
        (
            "data and END".to_string(),
            format!("{}\n{end}\n", lines.join("\n")),
        ),
        ("data only".to_string(), lines.join("\n")),
        ("one line".to_string(), lines.concat()),
        (
            "CRLF".to_string(),
            format!("{}\r\n{end}\r\n", lines.join("\r\n")),
        ),
        (
            "indented in a bullet".to_string(),
            format!("- the deploy key:\n  {}\n  {end}", lines.join("\n  ")),
        ),
        (
            "escaped in JSON".to_string(),
            format!("{{\"key\": \"{}\\n{end}\\n\"}}", lines.join("\\n")),
        ),
        (
            "after prose".to_string(),
            format!("Here it is: {}", lines.concat()),
        ),
        ("END line alone".to_string(), format!("{end}\n")),
        (
            "quoted".to_string(),
            format!("> {}\n> {end}", lines.join("\n> ")),
        ),
    ];
    if lines.len() >= 4 {
        out.push((
            "first line lost too".to_string(),
            format!("{}\n{end}", lines[1..].join("\n")),
        ));
        out.push((
            "middle lines only".to_string(),
            lines[1..lines.len() - 1].join("\n"),
        ));
        out.push((
            "middle lines, END inline after data".to_string(),
            format!("{}\\n{end}", lines[lines.len() - 2]),
        ));
    }
    out
}

#[test]
fn every_headless_paste_of_every_key_format_is_refused_as_a_private_key() {
    let mut problems = Vec::new();
    for seed in [
        &b"seed one"[..],
        b"\x01\xfe\x80\x7f\x33",
        b"another seed of bytes",
    ] {
        for (name, label, body) in keys(seed) {
            for (shape, text) in headless_pastes(name, label, &body) {
                match find_secret(&text) {
                    Some(found) if found.kind == "private-key" => {}
                    other => problems.push(format!("{name}, {shape}: {other:?}\n{text}")),
                }
                let prefixed = format!("Decision: keep the key in the vault.\n\n{text}");
                match refuse_secrets("text", &prefixed) {
                    Err(err) => {
                        assert_eq!(err.kind(), ErrorKind::InvalidInput);
                        assert_eq!(err.secret_kind(), Some("private-key"), "{name}, {shape}");
                        assert!(err.line().unwrap() >= 3, "{name}, {shape}: {err}");
                        assert!(!err.to_string().contains(&base64(&body)[..12]));
                    }
                    Ok(()) => problems.push(format!("{name}, {shape}: not refused after prose")),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_pasted_key_is_one_finding_from_its_first_data_line_through_its_end_line() {
    let (name, label, body) = keys(b"range").swap_remove(0);
    let lines = wrap(&base64(&body), width(name));
    let text = format!(
        "Notes.\n{}\n-----END {label}-----\nAfter.\n",
        lines.join("\n")
    );
    let found = find_secret(&text).unwrap();
    assert_eq!(found.line, 2);
    assert_eq!(found.range.start, "Notes.\n".len());
    assert!(text[found.range.clone()].ends_with("-----END RSA PRIVATE KEY-----"));
    assert_eq!(find_secret(&text[found.range.end..]), None);
    // The same with the first line lost: the block is found by its shape.
    let text = format!(
        "Notes.\n{}\n-----END {label}-----\nAfter.\n",
        lines[1..].join("\n")
    );
    let found = find_secret(&text).unwrap();
    assert_eq!((found.kind, found.line), ("private-key", 2));
    assert_eq!(find_secret(&text[found.range.end..]), None);
}

/// Public armored blocks and their bodies: a certificate, a public key, an RFC 4716 SSH
/// public key, an OpenPGP public key block and signature.
fn public_blocks(seed: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let r = |len| random(seed, len);
    let spki = seq(&[
        seq(&[tlv(0x06, RSA_OID), vec![0x05, 0x00]]),
        tlv(
            0x03,
            &[[0u8].as_slice(), &seq(&[int(&r(257)), int(&[1, 0, 1])])].concat(),
        ),
    ]);
    let cert = seq(&[
        seq(&[
            tlv(0xa0, &int(&[2])),
            int(&r(20)),
            seq(&[tlv(0x06, RSA_OID)]),
            tlv(0x04, &r(400)),
        ]),
        seq(&[tlv(0x06, RSA_OID)]),
        tlv(0x03, &r(257)),
    ]);
    let rsa_public = seq(&[int(&[[0u8].as_slice(), &r(256)].concat()), int(&[1, 0, 1])]);
    let mut ssh = vec![0, 0, 0, 7];
    ssh.extend_from_slice(b"ssh-rsa");
    ssh.extend([0, 0, 0, 3, 1, 0, 1, 0, 0, 1, 1, 0]);
    ssh.extend(r(256));
    // An RSA public key packet: a 2048-bit modulus MPI.
    let mut pgp_public = vec![0x99, 0x01, 0x0d, 0x04];
    pgp_public.extend(r(4));
    pgp_public.extend([1, 0x08, 0x00, 0x80 | random(seed, 1)[0]]);
    pgp_public.extend(r(260));
    let mut pgp_signature = vec![0x88, 0x75, 0x04, 0x00, 0x16, 0x0a];
    pgp_signature.extend(r(200));
    vec![
        ("CERTIFICATE", cert),
        ("PUBLIC KEY", spki),
        ("RSA PUBLIC KEY", rsa_public),
        ("SSH2 PUBLIC KEY", ssh),
        ("PGP PUBLIC KEY BLOCK", pgp_public),
        ("PGP SIGNATURE", pgp_signature),
    ]
}

#[test]
fn public_keys_certificates_and_signatures_are_not_refused_with_or_without_armor() {
    for seed in [&b"public"[..], b"\x99\x01\x02"] {
        for (label, body) in public_blocks(seed) {
            let width = if label == "SSH2 PUBLIC KEY" { 70 } else { 64 };
            let lines = wrap(&base64(&body), width);
            let armored = if label == "SSH2 PUBLIC KEY" {
                format!(
                    "---- BEGIN {label} ----\nComment: \"ci@host\"\n{}\n---- END {label} ----\n",
                    lines.join("\n")
                )
            } else {
                format!(
                    "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
                    lines.join("\n")
                )
            };
            assert_eq!(find_secret(&armored), None, "{label}:\n{armored}");
            let headless = lines.join("\n");
            assert_eq!(
                find_secret(&headless),
                None,
                "{label} without armor:\n{headless}"
            );
            let one_line = lines.concat();
            assert_eq!(find_secret(&one_line), None, "{label} on one line");
        }
    }
    // `base64` dumps (76 wide) of archives and images: binary, but no key.
    for magic in [
        &[0x1f, 0x8b, 0x08, 0x00][..],
        b"PK\x03\x04\x14\x00",
        b"\x89PNG\r\n\x1a\n",
        b"%PDF-1.7\n",
        &[0x28, 0xb5, 0x2f, 0xfd],
    ] {
        let dump = wrap(&base64(&[magic, &random(magic, 600)].concat()), 76).join("\n");
        assert_eq!(find_secret(&dump), None, "{magic:?}:\n{dump}");
    }
    let ssh = public_blocks(b"ssh").swap_remove(3).1;
    assert_eq!(
        find_secret(&format!("ssh-rsa {} ci@host", base64(&ssh))),
        None
    );
}

#[test]
fn an_end_line_in_prose_or_code_spans_is_not_a_paste() {
    for text in [
        "The file must end with -----END RSA PRIVATE KEY----- and a newline.",
        "Check for `-----END OPENSSH PRIVATE KEY-----` before loading.",
        "- grep for `-----END PRIVATE KEY-----` in CI",
        "-----END CERTIFICATE-----",
        "-----END PUBLIC KEY-----",
    ] {
        assert_eq!(find_secret(text), None, "{text}");
    }
    for text in [
        "-----END RSA PRIVATE KEY-----",
        "  -----END PRIVATE KEY-----  \r\n",
        "> -----END PGP PRIVATE KEY BLOCK-----",
        "```\n-----END EC PRIVATE KEY-----\n```",
    ] {
        assert_eq!(
            find_secret(text).map(|f| f.kind),
            Some("private-key"),
            "{text:?}"
        );
    }
}

#[test]
fn hashes_uuids_short_base64_urls_and_wrapped_text_are_not_refused() {
    let sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let texts = [
        // Stacked digests, lower and upper case, as in a checksum file.
        format!("{sha256}\n{sha256}\n{}\n", sha256.to_uppercase()),
        format!("{sha256}  memcore-x86_64.tar.gz\n{sha256}  memcore-aarch64.tar.gz\n"),
        "3f786850e387550fdab836ed7e6dc881de23001b\n0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c\n".into(),
        "c56a4180-65aa-42ec-a945-5fd21dec0538 and 9b2e7c1a-0d3f-4e5a-8b6c-7d8e9f0a1b2c".into(),
        "The header is `MIIBIjANBgkq` for an RSA public key.".into(),
        "Encoded it as aGVsbG8gd29ybGQ= for the test.".into(),
        "https://github.com/acme/app/blob/3f786850e387550fdab836ed7e6dc881de23001b/src/main.rs".into(),
        "https://example.com/a/very/long/path/segment/with/many/parts/and/more/parts/ending/here/ok".into(),
        // SRI hashes and a data URI of an image.
        "integrity=\"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"".into(),
        format!("![dot](data:image/png;base64,{})", base64(&[&b"\x89PNG\r\n\x1a\n"[..], &[7u8; 120]].concat())),
    ];
    for text in &texts {
        assert_eq!(find_secret(text), None, "{text}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Text wrapped as base64 (MIME bodies, encoded notes) at any width decodes to text:
    /// not key data, however many lines.
    #[test]
    fn the_base64_of_text_wrapped_at_any_width_is_not_refused(
        prose in "[A-Za-z0-9 ,.;:'!?()\n-]{40,900}",
        width in 48usize..=128,
        shift in 0usize..4,
    ) {
        let encoded = base64(prose.as_bytes());
        // A paste can start anywhere in the text, not only at a group boundary.
        let encoded = &encoded[shift.min(encoded.len())..];
        let text = wrap(encoded, width).join("\n");
        prop_assert_eq!(find_secret(&text), None, "{}", text);
    }

    /// Lines of hex digests, UUIDs and identifiers never look like key data.
    #[test]
    fn stacked_hashes_and_identifiers_are_not_refused(
        lines in prop::collection::vec(
            prop_oneof![
                "[0-9a-f]{40}",
                "[0-9a-f]{64}",
                // (`EAAA…` is a Square access token's shape, another pattern's.)
                "[0-9A-F]{64}".prop_filter("a Square token", |h| !h.starts_with("EAAA")),
                "[0-9a-f]{128}",
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                "[a-z_]{48,80}",
                "[A-Z_]{48,80}",
            ],
            1..12,
        ),
    ) {
        let text = lines.join("\n");
        prop_assert_eq!(find_secret(&text), None, "{}", text);
    }

    /// Any key of any format, pasted without its BEGIN line, is refused whatever the
    /// random bytes inside it.
    #[test]
    fn any_headless_key_is_refused(seed in prop::collection::vec(any::<u8>(), 1..64), index in 0usize..9) {
        let (name, label, body) = keys(&seed).swap_remove(index);
        for (shape, text) in headless_pastes(name, label, &body) {
            prop_assert_eq!(find_secret(&text).map(|f| f.kind), Some("private-key"), "{} {}: {}", name, shape, text);
        }
    }
}

#[test]
fn remember_refuses_a_headless_key_with_the_typed_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("MEMORY.md"), "- [Ops](memory-ops.md) — deploys\n").unwrap();
    std::fs::write(
        d.join("memory-ops.md"),
        "# Ops\n\n- 2026-01-01: deploys at noon\n",
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let (name, label, body) = keys(b"remember").swap_remove(0);
    let lines = wrap(&base64(&body), width(name));
    for text in [
        format!("deploy key {}", lines.concat()),
        format!("-----END {label}-----"),
    ] {
        let err = m
            .remember(Fact::new("memory-ops.md", &text).hook("deploys"))
            .unwrap_err();
        assert!(matches!(err, Error::SecretRefused { .. }), "{err:?}");
        assert_eq!(err.secret_kind(), Some("private-key"));
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }
    assert_eq!(
        std::fs::read_to_string(d.join("memory-ops.md")).unwrap(),
        "# Ops\n\n- 2026-01-01: deploys at noon\n"
    );
    assert!(!d.join("memory-archive.md").exists());
}

#[test]
fn check_reports_a_hand_pasted_headless_key_once_at_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (name, label, body) = keys(b"check").swap_remove(1);
    let lines = wrap(&base64(&body), width(name));
    std::fs::write(d.join("MEMORY.md"), "- [Ops](memory-ops.md) — deploys\n").unwrap();
    std::fs::write(
        d.join("memory-ops.md"),
        format!(
            "# Ops\n\n- 2026-01-01: the key is\n  {}\n  -----END {label}-----\n- 2026-01-02: fine\n",
            lines[1..].join("\n  ")
        ),
    )
    .unwrap();
    let m = StructuredMemory::builder(d)
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap();
    let secrets: Vec<(String, usize)> = m
        .check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "secret")
        .inspect(|v| assert!(!v.message.contains(&lines[1][..16]), "{}", v.message))
        .map(|v| (v.file, v.line))
        .collect();
    assert_eq!(secrets, [("memory-ops.md".to_string(), 4)]);
}

/// A checked-in fixture (see `secrets_key_fixtures/README.md` for how each was made).
macro_rules! fixture {
    ($file:literal) => {
        ($file, include_str!(concat!("secrets_key_fixtures/", $file)))
    };
}

/// Real private keys, as `openssl`, `ssh-keygen` and `gpg` write them.
const PRIVATE_FIXTURES: &[(&str, &str)] = &[
    fixture!("ossl_rsa_pkcs1.pem"),
    fixture!("ossl_rsa_pkcs8.pem"),
    fixture!("ossl_ec_sec1.pem"),
    fixture!("ossl_ed25519.pem"),
    fixture!("ossl_x448.pem"),
    fixture!("ssh_ed25519.key"),
    fixture!("ssh_rsa.key"),
    fixture!("ssh_ecdsa.key"),
    fixture!("pgp_ed25519_secret.asc"),
    fixture!("pgp_rsa_secret.asc"),
];

/// Real public keys of the same tools.
const PUBLIC_FIXTURES: &[(&str, &str)] = &[
    fixture!("ossl_rsa_spki.pem"),
    fixture!("ossl_rsa_pkcs1_public.pem"),
    fixture!("ossl_ec_spki.pem"),
    fixture!("ossl_x448_spki.pem"),
    fixture!("ssh_rsa_rfc4716.pub"),
    fixture!("pgp_ed25519_public.asc"),
    fixture!("pgp_rsa_public.asc"),
];

/// A fixture's armor: (BEGIN line, header lines, data lines, checksum line, END line).
fn armor(text: &str) -> (&str, Vec<&str>, Vec<&str>, Option<&str>, &str) {
    let lines: Vec<&str> = text.lines().collect();
    let is_data = |l: &&str| {
        !l.is_empty()
            && !l.starts_with('=')
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    };
    let first = lines.iter().position(is_data).unwrap();
    let end = lines.len() - 1;
    let last = lines[..end].iter().rposition(is_data).unwrap();
    let checksum = lines[last + 1..end]
        .iter()
        .find(|l| l.starts_with('='))
        .copied();
    (
        lines[0],
        lines[1..first].to_vec(),
        lines[first..=last].to_vec(),
        checksum,
        lines[end],
    )
}

/// The ways a paste of a fixture can lose its BEGIN line: (shape, text).
fn fixture_pastes(text: &str) -> Vec<(&'static str, String)> {
    let (_, _, data, checksum, end) = armor(text);
    let tail = |from: usize| {
        let mut lines: Vec<&str> = data[from..].to_vec();
        lines.extend(checksum);
        lines.push(end);
        lines.join("\n")
    };
    let mut out = vec![
        (
            "without its BEGIN line",
            text.split_once('\n').unwrap().1.to_string(),
        ),
        ("data and END", tail(0)),
        ("data only", data.join("\n")),
        ("data on one line", data.concat()),
    ];
    if data.len() >= 4 {
        out.push(("first data line lost too", tail(1)));
        out.push(("first data line and END line lost", data[1..].join("\n")));
    }
    out
}

#[test]
fn real_private_keys_of_every_tool_are_refused_with_or_without_their_begin_line() {
    let mut problems = Vec::new();
    for (file, text) in PRIVATE_FIXTURES {
        if find_secret(text).map(|f| f.kind) != Some("private-key") {
            problems.push(format!("{file}, armored"));
        }
        for (shape, paste) in fixture_pastes(text) {
            if find_secret(&paste).map(|f| f.kind) != Some("private-key") {
                problems.push(format!("{file}, {shape}:\n{paste}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn real_public_keys_are_not_refused_with_or_without_their_begin_line() {
    let mut problems = Vec::new();
    for (file, text) in PUBLIC_FIXTURES {
        if let Some(found) = find_secret(text) {
            problems.push(format!("{file}, armored: {found:?}"));
        }
        for (shape, paste) in fixture_pastes(text) {
            // What is left of these gives no sign of a public key (hygiene/public_key_data.rs
            // says why): without their END line too, they are taken for key data.
            if shape == "first data line and END line lost"
                && [
                    "ossl_ec_spki.pem",
                    "ssh_rsa_rfc4716.pub",
                    "pgp_rsa_public.asc",
                ]
                .contains(file)
            {
                continue;
            }
            if let Some(found) = find_secret(&paste) {
                problems.push(format!("{file}, {shape}: {found:?}\n{paste}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Standard base64 decoded (padding and line breaks skipped).
fn unbase64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let chars: Vec<u8> = text
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || b"+/".contains(b))
        .map(value)
        .collect();
    let mut out = Vec::new();
    for group in chars.chunks(4) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &v)| n | (u32::from(v) << (18 - 6 * i)));
        out.extend(&n.to_be_bytes()[1..group.len()]);
    }
    out
}

/// The packets of OpenPGP data (old and new format headers of a definite length), as
/// (tag, whole packet).
fn pgp_packets(bytes: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let first = bytes[at];
        let (tag, header, len) = if first & 0x40 != 0 {
            match bytes[at + 1] {
                l @ 0..=191 => (first & 0x3f, 2, usize::from(l)),
                h @ 192..=223 => (
                    first & 0x3f,
                    3,
                    ((usize::from(h) - 192) << 8) + usize::from(bytes[at + 2]) + 192,
                ),
                other => panic!("length octet {other}"),
            }
        } else {
            let octets = [1, 2, 4][usize::from(first & 3)];
            let len = bytes[at + 1..at + 1 + octets]
                .iter()
                .fold(0, |n, &b| (n << 8) | usize::from(b));
            ((first >> 2) & 0x0f, 1 + octets, len)
        };
        out.push((tag, &bytes[at..at + header + len]));
        at += header + len;
    }
    out
}

#[test]
fn each_secret_packet_of_a_real_openpgp_key_is_refused_by_its_start() {
    // gpg's Ed25519 primary (EdDSA, algorithm 22) and Curve25519 subkey (ECDH, 18), and an
    // RSA primary: each secret packet pasted alone, as the start of a headless paste.
    for file in ["pgp_ed25519_secret.asc", "pgp_rsa_secret.asc"] {
        let (_, text) = PRIVATE_FIXTURES.iter().find(|(f, _)| *f == file).unwrap();
        let (_, _, data, _, _) = armor(text);
        let bytes = unbase64(&data.concat());
        let packets = pgp_packets(&bytes);
        let tags: Vec<u8> = packets.iter().map(|(t, _)| *t).collect();
        let expected: &[u8] = if file == "pgp_ed25519_secret.asc" {
            &[5, 13, 2, 7, 2]
        } else {
            &[5, 13, 2]
        };
        assert_eq!(tags, expected, "{file}");
        for (tag, packet) in packets.iter().filter(|(t, _)| matches!(t, 5 | 7)) {
            let encoded = base64(packet);
            // Its first line alone: only the start can tell.
            let line = &encoded[..64];
            assert_eq!(
                find_secret(line).map(|f| f.kind),
                Some("private-key"),
                "{file} tag {tag}: {line}"
            );
            assert_eq!(
                find_secret(&format!("the key: {}", wrap(&encoded, 64).join("\n"))).map(|f| f.kind),
                Some("private-key"),
                "{file} tag {tag}"
            );
        }
    }
}

/// An OpenPGP key packet (new format header) of `version` 4 or 6 and an `algorithm` of
/// RFC 9580 with a fixed key length (X25519 25, X448 26, Ed25519 27, Ed448 28): public
/// (tag 6 or 14) or secret (5 or 7, unprotected: S2K usage `usage`, then the secret key),
/// followed by other bytes as the packets after a key are.
fn fixed_length_key_packet(tag: u8, version: u8, algorithm: u8, usage: u8, seed: &[u8]) -> Vec<u8> {
    let len = match algorithm {
        25 | 27 => 32,
        26 => 56,
        _ => 57,
    };
    let r = |n| random(seed, n);
    let mut body = vec![version];
    body.extend(r(4));
    body.push(algorithm);
    if version == 6 {
        body.extend((len as u32).to_be_bytes());
    }
    body.extend(r(len));
    if matches!(tag, 5 | 7) {
        body.push(usage);
        body.extend(r(len));
    }
    let mut packet = vec![0xc0 | tag, body.len() as u8];
    packet.extend(body);
    packet.extend(r(240));
    packet
}

#[test]
fn rfc_9580_x25519_x448_ed25519_ed448_secret_keys_are_refused_public_ones_not() {
    for version in [4, 6] {
        for algorithm in 25..=28 {
            for tag in [5, 7] {
                let body =
                    fixed_length_key_packet(tag, version, algorithm, 0, &[version, algorithm, tag]);
                for (shape, text) in headless_pastes("pgp", "PGP PRIVATE KEY BLOCK", &body) {
                    assert_eq!(
                        find_secret(&text).map(|f| f.kind),
                        Some("private-key"),
                        "v{version} algorithm {algorithm} tag {tag}, {shape}: {text}"
                    );
                }
            }
            // A secret part protected otherwise than RFC 9580 says (S2K usage 0x42) does
            // not start a secret key: one line, which only the start could tell.
            let odd = fixed_length_key_packet(5, version, algorithm, 0x42, b"odd");
            let line = &base64(&odd)[..64];
            // (X448 and Ed448 keys put the usage past the line's 48 bytes.)
            let usage_in_line = 2
                + if version == 6 { 10 } else { 6 }
                + match algorithm {
                    25 | 27 => 32,
                    26 => 56,
                    _ => 57,
                }
                < 48;
            if usage_in_line {
                assert_eq!(
                    find_secret(line),
                    None,
                    "v{version} algorithm {algorithm}: {line}"
                );
            }
            for tag in [6, 14] {
                let body = fixed_length_key_packet(tag, version, algorithm, 0, &[tag, algorithm]);
                let lines = wrap(&base64(&body), 64);
                for text in [lines.join("\n"), lines.concat()] {
                    assert_eq!(
                        find_secret(&text),
                        None,
                        "v{version} public {algorithm} tag {tag}: {text}"
                    );
                }
            }
        }
    }
}
