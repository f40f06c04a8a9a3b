//! Private key data pasted without its `-----BEGIN … PRIVATE KEY-----` line: the
//! expressions of [`super::patterns`] need that line (or the `-----END` one) to see a key,
//! and a paste that lost it would otherwise be stored.
//!
//! Two shapes are recognised, neither of which ordinary text has:
//!
//! - **By its start**: a run of 64 or more standard base64 characters whose decoding
//!   begins like a private key — a DER `RSAPrivateKey` or DSA key (`SEQUENCE { INTEGER 0,
//!   INTEGER … }`), a PKCS#8 / RFC 5958 `PrivateKeyInfo` (`SEQUENCE { INTEGER 0|1,
//!   SEQUENCE { OID … } … }`), an encrypted PKCS#8 key (`SEQUENCE { SEQUENCE { OID of
//!   PKCS#5 or PKCS#12 password-based encryption } … }`), a SEC1 `ECPrivateKey`
//!   (`SEQUENCE { INTEGER 1, OCTET STRING … }`), an OpenSSH key (`openssh-key-v1\0`) or an
//!   OpenPGP secret (sub)key packet (see [`pgp_secret_key`] for its algorithms). Public keys and certificates begin otherwise
//!   (`SEQUENCE { SEQUENCE { … } }`, `SEQUENCE { INTEGER n, … }`, `\0\0\0\x07ssh-rsa`).
//! - **By its shape** (a paste that lost its first lines too): two or more consecutive
//!   lines of the same width (48 to 128 characters) holding only base64, upper- and
//!   lower-case letters on each, a digit among them, which decode to binary data under
//!   every alignment (a quarter or more of the bytes outside printable ASCII). The base64
//!   of prose decodes to text under its own alignment; hex digests have one case only;
//!   a block whose first line decodes to the start of a public key, a certificate or a
//!   file format (gzip, zip, PNG, PDF, …) is not key data, nor one that shows it is public
//!   by its end (an END line of a public label after it, an RSA public exponent or
//!   OpenPGP public packets at its end: [`super::public_key_data`]).
//!
//! Both passes go from one run of base64 long enough for them (64 characters by its
//! start, 48 by its shape) to the next, skipping the text between 64 or 48 bytes at a time
//! ([`long_run_from`]): text that cannot hold key data is hardly read.
//!
//! Lines inside a public armored block (`-----BEGIN CERTIFICATE-----`, `-----BEGIN PUBLIC
//! KEY-----`, `---- BEGIN SSH2 PUBLIC KEY ----`, `-----BEGIN PGP SIGNATURE-----`, …) up to
//! its `END` line are never key data. A match reaches over the key's following data lines
//! and its `-----END` line, so a pasted key is one finding.

use std::ops::Range;

use super::base64::{Alphabet, decode_unpadded};
use super::public_key_data::public_block;

/// What the two shapes match, for [`super::secret_kinds`] (kind, description).
pub(super) const KEY_DATA_DOCS: &[(&str, &str)] = &[
    (
        "private-key",
        "private key data without its BEGIN line: 64 or more base64 characters whose decoding starts like a DER (PKCS#1, PKCS#8, encrypted PKCS#8, SEC1, DSA), OpenSSH or OpenPGP private key",
    ),
    (
        "private-key",
        "base64 key data without its BEGIN line by its shape: two or more lines of one width (48 to 128 characters) of mixed-case base64 that decodes to binary data, outside a public `BEGIN` block (certificate, public key, signature) and not ending as a public key does (a public END line after it, an RSA public exponent or OpenPGP public packets at its end)",
    ),
];

/// The shortest run recognised by its start: one PEM line (and the whole of an Ed25519
/// PKCS#8 key).
const MIN_START_RUN: usize = 64;
/// The narrowest and widest lines recognised by their shape.
const SHAPE_WIDTHS: std::ops::RangeInclusive<usize> = 48..=128;

/// The first private key data in `text` without its BEGIN line, if any: its byte range,
/// from the first data character through the key's last data line (and its `-----END`
/// line when one follows).
pub(super) fn first_key_data(text: &str) -> Option<Range<usize>> {
    first_key_data_reading(text, true)
}

/// [`first_key_data`], passing over lines that cannot hold key data (`skip`) or reading
/// every line.
fn first_key_data_reading(text: &str, skip: bool) -> Option<Range<usize>> {
    let by_start = first_by_start(text, skip);
    let limit = by_start.as_ref().map_or(usize::MAX, |r| r.start);
    let by_shape = first_by_shape(text, limit, skip);
    let found = match (by_start, by_shape) {
        (Some(a), Some(b)) => {
            if b.start < a.start {
                b
            } else {
                a
            }
        }
        (a, b) => a.or(b)?,
    };
    Some(found.start..extend_over_key(text, found.start, found.end))
}

/// The lines of `text` (byte offset, line without its line break) outside public armored
/// blocks, from a line start on; [`OpenLines::skip_to_run`] passes over lines that cannot
/// hold key data without reading them one by one.
struct OpenLines<'a> {
    text: &'a str,
    /// Whether [`OpenLines::skip_to_run`] skips (the tests compare with reading every line).
    skip: bool,
    /// Where the next line starts.
    offset: usize,
    /// Whether that line is inside a public armored block.
    public: bool,
}

impl<'a> OpenLines<'a> {
    fn new(text: &'a str, skip: bool) -> Self {
        OpenLines {
            text,
            skip,
            offset: 0,
            public: false,
        }
    }

    /// Moves to the line holding the next run of `len` or more base64 characters, the
    /// lines before it holding none (so that neither pass can start in them), and says
    /// whether there is one. Lines passed over are read one by one only when they could
    /// change whether a public block is open (they hold `BEGIN` outside one, `END` inside),
    /// so that its BEGIN and END lines are seen.
    fn skip_to_run(&mut self, len: usize) -> bool {
        let bytes = self.text.as_bytes();
        if !self.skip {
            return self.offset < bytes.len();
        }
        // `offset` is a line start: a run may start there.
        let Some(run) = long_run_from(bytes, self.offset, len) else {
            self.offset = bytes.len();
            return false;
        };
        let line_start = self.text[..run]
            .rfind('\n')
            .map_or(0, |at| at + 1)
            .max(self.offset);
        // Only a BEGIN line opens a public block and only an END line closes one.
        let word = if self.public { "END" } else { "BEGIN" };
        if self.text[self.offset..line_start].contains(word) {
            while self.offset < line_start {
                self.line();
            }
        } else {
            self.offset = line_start;
        }
        true
    }

    /// The next line, inside a public block or not: (its start, it, whether it is outside
    /// public blocks).
    fn line(&mut self) -> Option<(usize, &'a str, bool)> {
        let rest = self.text.get(self.offset..).filter(|r| !r.is_empty())?;
        let start = self.offset;
        let raw = rest.find('\n').map_or(rest, |at| &rest[..=at]);
        self.offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim();
        if self.public {
            if armor_line(trimmed, "END").is_some() {
                self.public = false;
            }
            return Some((start, line, false));
        }
        if let Some(label) = armor_line(trimmed, "BEGIN")
            && !label.contains("PRIVATE")
        {
            self.public = true;
            return Some((start, line, false));
        }
        Some((start, line, true))
    }
}

impl<'a> Iterator for OpenLines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (start, line, open) = self.line()?;
            if open {
                return Some((start, line));
            }
        }
    }
}

/// The label of an armor line `-----BEGIN LABEL-----` (or RFC 4716's `---- BEGIN LABEL
/// ----`) with `word` `BEGIN` or `END`.
pub(super) fn armor_line<'a>(line: &'a str, word: &str) -> Option<&'a str> {
    let rest = line
        .strip_prefix("----")?
        .trim_start_matches('-')
        .trim_start();
    let rest = rest.strip_prefix(word)?.strip_prefix(' ')?;
    let label = rest.strip_suffix("----")?.trim_end_matches('-').trim_end();
    (!label.is_empty()).then_some(label)
}

pub(super) fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// The first base64 run of [`MIN_START_RUN`] or more characters that decodes to the start
/// of a private key.
fn first_by_start(text: &str, skip: bool) -> Option<Range<usize>> {
    let mut lines = OpenLines::new(text, skip);
    while lines.skip_to_run(MIN_START_RUN) {
        let Some((start, line)) = lines.next() else {
            break;
        };
        let bytes = line.as_bytes();
        // `at` is where a run may start: the line's start, or after a byte outside base64.
        let mut at = 0;
        while let Some(found) = long_run_from(bytes, at, MIN_START_RUN) {
            at = found;
            let mut run_start = at;
            while at < bytes.len() && is_base64(bytes[at]) {
                at += 1;
            }
            // `\nMIIE…` in a JSON or `.env` value: the `n` belongs to the escape.
            if run_start > 0
                && bytes[run_start - 1] == b'\\'
                && matches!(bytes[run_start], b'n' | b'r' | b't')
            {
                run_start += 1;
            }
            let mut end = at;
            while end < bytes.len() && bytes[end] == b'=' {
                end += 1;
            }
            if at - run_start >= MIN_START_RUN
                && decode(&bytes[run_start..run_start + MIN_START_RUN])
                    .is_some_and(|d| key_start(&d))
            {
                return Some(start + run_start..start + end);
            }
            at = end.max(at);
        }
    }
    None
}

/// The start of the first run of at least `len` base64 characters in `bytes` from `from`
/// on (`from` being the line's start or just after a byte outside base64). Prose is
/// skipped `len` bytes at a time: the byte `len - 1` past a possible start is looked at
/// first, and a byte outside base64 at or before it moves the start past it.
fn long_run_from(bytes: &[u8], from: usize, len: usize) -> Option<usize> {
    let mut at = from;
    while at + len <= bytes.len() {
        let probe = at + len - 1;
        match (at..=probe).rev().find(|&i| !is_base64(bytes[i])) {
            Some(outside) => at = outside + 1,
            None => return Some(at),
        }
    }
    None
}

/// A line of key data by its shape: its base64 content (after indentation and `>` quote
/// marks), or `None`.
fn data_line(line: &str) -> Option<(usize, &str)> {
    let content = line.trim_start_matches([' ', '\t', '>']).trim_end();
    let skipped = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
    let body = content.trim_end_matches('=');
    let ok = !body.is_empty() && content.len() - body.len() <= 2 && body.bytes().all(is_base64);
    ok.then_some((skipped, content))
}

/// The first block of key data recognised by its shape that starts before `limit`.
fn first_by_shape(text: &str, limit: usize, skip: bool) -> Option<Range<usize>> {
    // The current block: its start, width, full lines, and the end of its last line.
    let mut block: Option<(usize, usize, Vec<&str>, usize)> = None;
    let mut previous_end = None;
    let mut open = OpenLines::new(text, skip);
    loop {
        // Between blocks, straight to the next line that can start one: a line of data
        // as wide as the narrowest shape holds a run of that many base64 characters.
        if block.is_none() && !open.skip_to_run(*SHAPE_WIDTHS.start()) {
            return None;
        }
        // After the last line, an empty one ends the block.
        let (start, line) = match open.next() {
            Some(next) => next,
            None if block.is_some() => (text.len(), ""),
            None => return None,
        };
        if start >= limit && block.is_none() {
            return None;
        }
        let contiguous = previous_end == Some(start);
        previous_end = Some(start + line.len() + line_break_len(text, start + line.len()));
        let data = data_line(line);
        if let Some((skip, content)) = data
            && let Some((_, width, lines, end)) = block.as_mut()
            && contiguous
            && content.len() == *width
            && !content.ends_with('=')
            && mixed_case(content)
        {
            lines.push(content);
            *end = start + skip + content.len();
            continue;
        }
        // The block ends here; a shorter (last) line of data belongs to it.
        if let Some((block_start, width, lines, end)) = block.take() {
            let mut end = end;
            if let Some((skip, content)) = data
                && contiguous
                && content.len() < width
            {
                end = start + skip + content.len();
            }
            if lines.len() >= 2
                && block_start < limit
                && binary_block(&lines)
                && !public_start(lines[0])
                && !public_block(text, block_start, end)
            {
                return Some(block_start..end);
            }
        }
        if let Some((skip, content)) = data
            && SHAPE_WIDTHS.contains(&content.len())
            && !content.ends_with('=')
            && mixed_case(content)
        {
            block = Some((
                start + skip,
                content.len(),
                vec![content],
                start + skip + content.len(),
            ));
        }
    }
}

fn line_break_len(text: &str, at: usize) -> usize {
    let rest = &text.as_bytes()[at..];
    if rest.starts_with(b"\r\n") {
        2
    } else {
        usize::from(rest.first() == Some(&b'\n') || rest.first() == Some(&b'\r'))
    }
}

fn mixed_case(line: &str) -> bool {
    line.bytes().any(|b| b.is_ascii_uppercase()) && line.bytes().any(|b| b.is_ascii_lowercase())
}

/// Whether the block's lines hold a digit and decode to binary data under each of the
/// four alignments (a key whose first lines are missing starts anywhere in a group).
fn binary_block(lines: &[&str]) -> bool {
    let joined: String = lines.concat();
    if !joined.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    (0..4).all(|shift| {
        let chars = &joined.as_bytes()[shift..];
        let chars = &chars[..chars.len() / 4 * 4];
        decode(chars).is_some_and(|bytes| {
            let binary = bytes
                .iter()
                .filter(|&&b| !(0x20..=0x7e).contains(&b) && !matches!(b, b'\t' | b'\n' | b'\r'))
                .count();
            !bytes.is_empty() && binary * 4 >= bytes.len()
        })
    })
}

/// The next line after `end` (across a real or escaped line break, past indentation and
/// `>` quote marks): an `-----END … PRIVATE KEY-----` line, or a whole line of base64
/// data (a PGP checksum `=AbCd` too), with where it ends and (data) its width.
enum Next {
    End(usize),
    Data { end: usize, width: usize },
    Other,
}

fn next_line(text: &str, end: usize) -> Next {
    let bytes = text.as_bytes();
    let mut at = end;
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'=') && at - end < 8 {
        at += 1;
    }
    let rest = &text[at..];
    let Some(brk) = ["\r\n", "\n", "\\r\\n", "\\n"]
        .iter()
        .find(|b| rest.starts_with(**b))
    else {
        return Next::Other;
    };
    at += brk.len();
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'>') {
        at += 1;
    }
    if bytes[at..].starts_with(b"-----END ")
        && let Some(close) = text[at + 9..].find("-----")
        && text[at + 9..at + 9 + close].contains("PRIVATE KEY")
        && !text[at + 9..at + 9 + close].contains('\n')
    {
        return Next::End(at + 9 + close + 5);
    }
    let run_start = at;
    if bytes.get(at) == Some(&b'=') {
        at += 1;
    }
    while at < bytes.len() && is_base64(bytes[at]) {
        at += 1;
    }
    while at < bytes.len() && bytes[at] == b'=' {
        at += 1;
    }
    let mut after = at;
    while after < bytes.len() && matches!(bytes[after], b' ' | b'\t' | b'\r') {
        after += 1;
    }
    let line_ends = after == bytes.len()
        || bytes[after] == b'\n'
        || bytes[after..].starts_with(b"\\n")
        || bytes[after..].starts_with(b"\\r");
    if at == run_start || !line_ends {
        return Next::Other;
    }
    Next::Data {
        end: at,
        width: at - run_start,
    }
}

/// Where a key found from `start` up to `end` ends: over the following lines of data as
/// wide as its last one, then a shorter last line and a PGP checksum line when the
/// `-----END` line follows them, and that line. A short line after the key that no END
/// line follows (prose, an identifier) is not part of it.
fn extend_over_key(text: &str, start: usize, mut end: usize) -> usize {
    let line_start = text[..end].rfind(['\n', '\\']).map_or(0, |at| at + 1);
    let mut width = end - line_start.max(start);
    loop {
        match next_line(text, end) {
            Next::End(at) => return at,
            Next::Data { end: at, width: w } if w == width => {
                end = at;
                width = w;
            }
            Next::Data { end: at, .. } => {
                // A last line (and a checksum line) only with the END line after them.
                return match next_line(text, at) {
                    Next::End(close) => close,
                    Next::Data { end: sum, .. } => match next_line(text, sum) {
                        Next::End(close) => close,
                        _ => end,
                    },
                    Next::Other => end,
                };
            }
            Next::Other => return end,
        }
    }
}

/// Decodes standard base64 without padding (`None` on another character).
pub(super) fn decode(chars: &[u8]) -> Option<Vec<u8>> {
    decode_unpadded(chars, Alphabet::Standard).map(|(bytes, _)| bytes)
}

/// Whether a block's first line decodes to the start of something public: a certificate
/// or public key in DER, an SSH public key blob, an OpenPGP public key or signature packet
/// (the body of a public armored block pasted without its BEGIN line), or a file format
/// ([`FILE_MAGIC`]).
fn public_start(line: &str) -> bool {
    let chars = &line.as_bytes()[..line.len() / 4 * 4];
    let Some(bytes) = decode(chars) else {
        return false;
    };
    if key_start(&bytes) {
        return false;
    }
    let der = match (tlv(&bytes, 0), tlv(&bytes, 2)) {
        (Some((0x30, _, at)), _) => match tlv(&bytes, at) {
            Some((0x30, _, _)) => true,
            Some((0x02, len, _)) => len >= 48,
            _ => false,
        },
        _ => false,
    };
    let ssh = bytes.len() > 8
        && bytes[..3] == [0, 0, 0]
        && [&b"ssh-"[..], b"ecdsa-", b"sk-"]
            .iter()
            .any(|p| bytes[4..].starts_with(p));
    der || ssh || pgp_public(&bytes) || FILE_MAGIC.iter().any(|m| bytes.starts_with(m))
}

/// The first bytes of file formats whose base64 is binary data but no key (a `base64`
/// dump of an archive or an image is not a secret), three bytes or more each, so that key
/// data hardly ever starts like one: gzip, zip, zstd, xz, bzip2, PNG,
/// JPEG, GIF, PDF, ELF, WebAssembly.
const FILE_MAGIC: &[&[u8]] = &[
    &[0x1f, 0x8b, 0x08],
    b"PK\x03\x04",
    &[0x28, 0xb5, 0x2f, 0xfd],
    &[0xfd, b'7', b'z', b'X', b'Z', 0x00],
    b"BZh",
    &[0x89, b'P', b'N', b'G'],
    &[0xff, 0xd8, 0xff],
    b"GIF8",
    b"%PDF",
    b"\x7fELF",
    b"\0asm",
];

/// The public-key algorithm ids of OpenPGP.
fn pgp_algorithm(id: Option<&u8>) -> bool {
    matches!(id, Some(1..=3 | 16..=19 | 22 | 25..=28))
}

/// An OpenPGP public key or subkey packet (tags 6 and 14, see [`pgp_key_material`]) or a
/// version 4 to 6 signature (tag 2) with known algorithms.
fn pgp_public(bytes: &[u8]) -> bool {
    match pgp_packet(bytes) {
        Some((6 | 14, body)) => pgp_key_material(bytes, body),
        Some((2, body)) => {
            matches!(bytes.get(body), Some(4..=6))
                && pgp_algorithm(bytes.get(body + 2))
                && matches!(bytes.get(body + 3), Some(1..=3 | 8..=12 | 14))
        }
        _ => false,
    }
}

/// Whether `bytes` (the first bytes of decoded base64) begin a private key.
fn key_start(bytes: &[u8]) -> bool {
    bytes.starts_with(b"openssh-key-v1\0") || der_private_key(bytes) || pgp_secret_key(bytes)
}

/// A DER tag-length header at `at`: (tag, content length, content start).
fn tlv(bytes: &[u8], at: usize) -> Option<(u8, usize, usize)> {
    let tag = *bytes.get(at)?;
    let first = *bytes.get(at + 1)?;
    if first < 0x80 {
        return Some((tag, usize::from(first), at + 2));
    }
    let octets = usize::from(first & 0x7f);
    if !(1..=3).contains(&octets) {
        return None;
    }
    let mut len = 0usize;
    for i in 0..octets {
        len = (len << 8) | usize::from(*bytes.get(at + 2 + i)?);
    }
    Some((tag, len, at + 2 + octets))
}

/// The OID prefixes of PKCS#5 (`1.2.840.113549.1.5`) and PKCS#12 PBE
/// (`1.2.840.113549.1.12.1`) encryption schemes.
const PBE_OIDS: &[&[u8]] = &[
    &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05],
    &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01],
];

fn der_private_key(bytes: &[u8]) -> bool {
    let Some((0x30, outer, at)) = tlv(bytes, 0) else {
        return false;
    };
    if outer < 40 {
        return false;
    }
    match tlv(bytes, at) {
        // A version number, then the key.
        Some((0x02, 1, version_at)) => {
            let version = bytes.get(version_at).copied();
            match (version, tlv(bytes, version_at + 1)) {
                // PKCS#1 RSA (modulus) or DSA (p).
                (Some(0), Some((0x02, len, _))) => len >= 48,
                // PKCS#8 / RFC 5958: the algorithm identifier.
                (Some(0 | 1), Some((0x30, _, inner))) => {
                    matches!(tlv(bytes, inner), Some((0x06, _, _)))
                }
                // SEC1: the private scalar.
                (Some(1), Some((0x04, len, _))) => (20..=80).contains(&len),
                _ => false,
            }
        }
        // Encrypted PKCS#8: the encryption algorithm identifier.
        Some((0x30, _, inner)) => match tlv(bytes, inner) {
            Some((0x06, len, oid)) => bytes
                .get(oid..oid + len)
                .is_some_and(|oid| PBE_OIDS.iter().any(|p| oid.starts_with(p))),
            _ => false,
        },
        _ => false,
    }
}

/// An OpenPGP secret key or secret subkey packet (tags 5 and 7) whose key material
/// starts as its algorithm's does (see [`pgp_key_material`]): RSA, DSA, Elgamal, ECDSA,
/// ECDH and EdDSA (Ed25519, Curve25519 by their curve OIDs) of version 4, and X25519,
/// X448, Ed25519, Ed448 (algorithms 25 to 28) of versions 4 to 6, whose secret part is
/// protected as RFC 9580 says ([`pgp_secret_protection`]).
fn pgp_secret_key(bytes: &[u8]) -> bool {
    matches!(pgp_packet(bytes), Some((5 | 7, body))
        if pgp_key_material(bytes, body) && pgp_secret_protection(bytes, body))
}

/// The OIDs of the elliptic curves OpenPGP keys use: NIST P-256, P-384, P-521, Ed25519,
/// Curve25519, brainpoolP256r1, P384r1, P512r1.
const PGP_CURVES: &[&[u8]] = &[
    &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
    &[0x2b, 0x81, 0x04, 0x00, 0x22],
    &[0x2b, 0x81, 0x04, 0x00, 0x23],
    &[0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01],
    &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01],
    &[0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07],
    &[0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0b],
    &[0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0d],
];

/// A version 4 to 6 OpenPGP key packet body at `body` whose public key material starts as
/// its algorithm's does: an RSA, DSA or Elgamal MPI of 512 to 16384 bits whose first byte
/// has its top bit where the bit count says; an ECDSA, ECDH or EdDSA curve OID of
/// [`PGP_CURVES`]; or an X25519, X448, Ed25519 or Ed448 key (algorithms 25 to 28), of
/// its length where the version gives one (5 and 6). Random bytes (or shifted text)
/// hardly ever do.
pub(super) fn pgp_key_material(bytes: &[u8], body: usize) -> bool {
    let Some(&version) = bytes.get(body) else {
        return false;
    };
    // Version, creation time, algorithm; versions 5 and 6 then give the material's length.
    let (material, length) = match version {
        4 => (body + 6, None),
        5 | 6 => (
            body + 10,
            bytes
                .get(body + 6..body + 10)
                .map(|l| u32::from_be_bytes([l[0], l[1], l[2], l[3]])),
        ),
        _ => return false,
    };
    match bytes.get(body + 5) {
        Some(1..=3 | 16 | 17) => {
            let (Some(&hi), Some(&lo), Some(&first)) = (
                bytes.get(material),
                bytes.get(material + 1),
                bytes.get(material + 2),
            ) else {
                return false;
            };
            let bits = usize::from(u16::from_be_bytes([hi, lo]));
            (512..=16384).contains(&bits)
                && first != 0
                && (bits - 1) % 8 == 7 - first.leading_zeros() as usize
        }
        Some(18 | 19 | 22) => {
            let Some(&len) = bytes.get(material) else {
                return false;
            };
            bytes
                .get(material + 1..material + 1 + usize::from(len))
                .is_some_and(|oid| PGP_CURVES.contains(&oid))
        }
        // Version 4 gives no length: the algorithm's own is taken (RFC 9580 lets v4 keys
        // use these algorithms too).
        Some(&algorithm @ 25..=28) => {
            length.is_none_or(|l| usize::try_from(l).ok() == fixed_key_length(algorithm))
        }
        _ => false,
    }
}

/// The length of an X25519, X448, Ed25519 or Ed448 key (algorithms 25 to 28) of OpenPGP:
/// its public key and its secret key alike.
fn fixed_key_length(algorithm: u8) -> Option<usize> {
    match algorithm {
        25 | 27 => Some(32),
        26 => Some(56),
        28 => Some(57),
        _ => None,
    }
}

/// For a secret key packet body at `body` of an algorithm with a fixed key length
/// ([`fixed_key_length`]), whether the octet after the public key — how the secret part
/// is protected (S2K usage) — is one RFC 9580 defines (0 none, 253 AEAD, 254 CFB with
/// SHA-1 check, 255 CFB with checksum); true when it is past `bytes` or the algorithm's
/// public key has no fixed length.
fn pgp_secret_protection(bytes: &[u8], body: usize) -> bool {
    let Some(&version) = bytes.get(body) else {
        return false;
    };
    let material = match version {
        4 => body + 6,
        _ => body + 10,
    };
    match bytes.get(body + 5).copied().and_then(fixed_key_length) {
        Some(len) => bytes
            .get(material + len)
            .is_none_or(|usage| matches!(usage, 0 | 253..=255)),
        None => true,
    }
}

/// An OpenPGP packet header: (tag, offset of the packet body).
fn pgp_packet(bytes: &[u8]) -> Option<(u8, usize)> {
    pgp_packet_length(bytes).map(|(tag, body, _)| (tag, body))
}

/// An OpenPGP packet header, new or old format, of a definite length: (tag, offset of
/// the packet body, its length). The body may run past `bytes` (the first bytes of a
/// packet decoded from one line).
pub(super) fn pgp_packet_length(bytes: &[u8]) -> Option<(u8, usize, usize)> {
    let &first = bytes.first()?;
    let be = |from: usize, octets: usize| -> Option<usize> {
        let field = bytes.get(from..from + octets)?;
        Some(field.iter().fold(0, |n, &b| (n << 8) | usize::from(b)))
    };
    if first & 0xc0 == 0xc0 {
        let tag = first & 0x3f;
        match *bytes.get(1)? {
            len @ 0..=191 => Some((tag, 2, usize::from(len))),
            high @ 192..=223 => {
                let low = usize::from(*bytes.get(2)?);
                Some((tag, 3, ((usize::from(high) - 192) << 8) + low + 192))
            }
            255 => Some((tag, 6, be(2, 4)?)),
            // A partial body length: the packet's length is not in its header.
            _ => None,
        }
    } else if first & 0x80 == 0x80 {
        let octets = match first & 0x03 {
            0 => 1,
            1 => 2,
            2 => 4,
            // An indeterminate length.
            _ => return None,
        };
        Some(((first >> 2) & 0x0f, 1 + octets, be(1, octets)?))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`long_run_from`] as a plain scan of every byte.
    fn long_run_plainly(bytes: &[u8], from: usize, len: usize) -> Option<usize> {
        let mut at = from;
        while at < bytes.len() {
            if !is_base64(bytes[at]) {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && is_base64(bytes[at]) {
                at += 1;
            }
            if at - start >= len {
                return Some(start);
            }
        }
        None
    }

    proptest! {
        /// The skipping search finds the run a byte-by-byte scan finds, from any start
        /// the caller gives it (a line's start or after a byte outside base64).
        #[test]
        fn skipping_finds_the_first_long_run(
            bytes in prop::collection::vec(prop::sample::select(vec![b'A', b'z', b'0', b'+', b'/', b' ', b'=', b'\\', b'-']), 0..300),
            len in 1usize..80,
            from in 0usize..300,
        ) {
            let from = (0..=from.min(bytes.len()))
                .rev()
                .find(|&i| i == 0 || !is_base64(bytes[i - 1]))
                .unwrap_or(0);
            prop_assert_eq!(long_run_from(&bytes, from, len), long_run_plainly(&bytes, from, len));
        }
    }

    /// Lines of what a text holding key data can hold: prose, digests, armor lines,
    /// lines of a real private key and of a real public key, binary base64 of other widths.
    fn line() -> impl Strategy<Value = String> {
        let private = include_str!("../../tests/secrets_key_fixtures/ossl_rsa_pkcs1.pem");
        let public = include_str!("../../tests/secrets_key_fixtures/ossl_rsa_spki.pem");
        let mut lines: Vec<String> = private
            .lines()
            .chain(public.lines())
            .map(String::from)
            .collect();
        lines.extend(
            [
                "We keep the ledger in Postgres; see docs/adr/0007.md.",
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "-----BEGIN CERTIFICATE-----",
                "-----END CERTIFICATE-----",
                "---- BEGIN SSH2 PUBLIC KEY ----",
                "  > -----END PGP PUBLIC KEY BLOCK-----",
                "=AbCd",
                "",
                "  ",
                "x----y",
                "| host | role |",
                "|------|------|",
                "The BACKEND and APPEND notes; BEGIN here.",
                "q9Zk3JvP0bW7yTn2XcRm5HsLd8GfQa1VeKu4NiOp6Ej+Bw/Mz0Yt3Sx9Ur2Cl7Dh5Fg1Ak8Wb4Io6Hn==",
            ]
            .map(String::from),
        );
        prop::sample::select(lines)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Passing over the lines that hold no long base64 run finds what reading every
        /// line finds, whatever the lines and line breaks.
        #[test]
        fn skipping_lines_finds_what_reading_every_line_finds(
            lines in prop::collection::vec(line(), 0..40),
            crlf in any::<bool>(),
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            prop_assert_eq!(first_key_data_reading(&text, true), first_key_data_reading(&text, false), "{}", text);
        }
    }

    #[test]
    fn armor_lines_are_read_with_either_dash_count() {
        assert_eq!(
            armor_line("-----BEGIN CERTIFICATE-----", "BEGIN"),
            Some("CERTIFICATE")
        );
        assert_eq!(
            armor_line("---- BEGIN SSH2 PUBLIC KEY ----", "BEGIN"),
            Some("SSH2 PUBLIC KEY")
        );
        assert_eq!(armor_line("-----END RSA PRIVATE KEY-----", "BEGIN"), None);
        assert_eq!(armor_line("----- BEGIN -----", "BEGIN"), None);
    }

    #[test]
    fn der_starts() {
        // RSAPrivateKey, PKCS#8 RSA, SEC1 P-256, Ed25519 PKCS#8, encrypted PKCS#8.
        for start in [
            "MIIEowIBAAKCAQEA",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "MHcCAQEEIPN5fOTI",
            "MC4CAQAwBQYDK2VwBCIEI",
            "MIIFHDBOBgkqhkiG9w0BBQ0w",
        ] {
            let chars = &start.as_bytes()[..start.len() / 4 * 4];
            assert!(key_start(&decode(chars).unwrap()), "{start}");
        }
        // SubjectPublicKeyInfo, a certificate, an SSH public key blob.
        for start in [
            "MIIBIjANBgkqhkiG9w0BAQEFAAOC",
            "MIIDdzCCAl+gAwIBAgIE",
            "AAAAB3NzaC1yc2EAAAADAQAB",
        ] {
            let chars = &start.as_bytes()[..start.len() / 4 * 4];
            assert!(!key_start(&decode(chars).unwrap()), "{start}");
        }
    }
}
