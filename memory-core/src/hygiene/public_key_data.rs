//! Public key data that lost its first lines: a block [`super::key_data`]'s shape pass
//! would take for a private key (lines of one width of mixed-case base64 decoding to
//! binary) but whose first line, the one [`super::key_data`] reads a public key's start
//! from, is gone. Three signs that a block is public, each one a private key cannot give:
//!
//! - **Its END line says so**: the block (and an OpenPGP checksum line `=AbCd`) is
//!   followed by `-----END PUBLIC KEY-----`, `---- END SSH2 PUBLIC KEY ----`, `-----END PGP
//!   PUBLIC KEY BLOCK-----` or any END line whose label has no `PRIVATE`.
//! - **It ends with an RSA public exponent**: the DER of an RSA public key
//!   (`SubjectPublicKeyInfo`, PKCS#1 `RSAPublicKey`) ends with its exponent, `INTEGER
//!   65537` (`02 03 01 00 01`); a private key's DER ends with another of its numbers
//!   (PKCS#1's coefficient), random bytes. Read from the block's end, which keeps its
//!   alignment (the last line's `=` padding) however many first lines were lost.
//! - **It ends with OpenPGP public packets**: from some byte of the decoded block, whole
//!   OpenPGP packets follow one another up to its very end, two or more, all of them
//!   packets a public key block holds (public key and subkey, user ID and attribute,
//!   signature, trust) and one a public key or subkey whose material starts as its
//!   algorithm's does. A secret key block holds secret (sub)key packets instead.
//!
//! A public key that gives none of them is still taken for key data when both its first
//! line and its END line are lost: an EC `SubjectPublicKeyInfo` (it ends with the curve
//! point, random bytes) long enough for two full lines after the first (P-521), the body
//! of an RFC 4716 `SSH2 PUBLIC KEY` (after its first line only the RSA modulus is left),
//! an OpenPGP public key without subkeys (what is left after its key packet, a user ID
//! and signatures, is what a secret key block holds too).

use super::key_data::{armor_line, decode, is_base64, pgp_key_material, pgp_packet_length};

/// Whether the block of key data from `start` to `end` in `text` (its lines, the last one
/// included) is public by one of the module's signs.
pub(super) fn public_block(text: &str, start: usize, end: usize) -> bool {
    if followed_by_public_end(text, end) {
        return true;
    }
    let chars: Vec<u8> = text.as_bytes()[start..end]
        .iter()
        .copied()
        .filter(|&b| is_base64(b) || b == b'=')
        .collect();
    let Some(bytes) = end_aligned(&chars) else {
        return false;
    };
    bytes.ends_with(RSA_EXPONENT_END) || (0..bytes.len()).any(|from| public_chain(&bytes, from))
}

/// The bytes the base64 `chars` (with their padding) decode to, read in the groups that
/// end where they end: the end is a group boundary whatever was lost before it (padding
/// fills the last group), so the characters before the first whole group counted from
/// it are left out.
fn end_aligned(chars: &[u8]) -> Option<Vec<u8>> {
    let body = &chars[..chars.iter().position(|&b| b == b'=').unwrap_or(chars.len())];
    decode(body.get(chars.len() % 4..)?)
}

/// Whether the line after the one ending at `end` (past an OpenPGP checksum line) is an
/// END armor line of a label without `PRIVATE` or `SECRET` (OpenPGP's older
/// `PGP SECRET KEY BLOCK`).
fn followed_by_public_end(text: &str, end: usize) -> bool {
    // The first of these is what is left of the block's last line.
    let mut lines = text[end..].lines().skip(1).map(|l| {
        l.trim_start_matches([' ', '\t', '>'])
            .trim_end_matches([' ', '\t', '\r'])
    });
    let mut next = lines.next();
    if next.is_some_and(|l| l.starts_with('=') && l.len() <= 6) {
        next = lines.next();
    }
    next.and_then(|l| armor_line(l, "END"))
        .is_some_and(|label| !label.contains("PRIVATE") && !label.contains("SECRET"))
}

/// The DER of `INTEGER 65537`, with which an RSA public key ends.
const RSA_EXPONENT_END: &[u8] = &[0x02, 0x03, 0x01, 0x00, 0x01];

/// Whether whole packets from `from` reach exactly the end of `bytes`: two or more, each
/// of a tag a public key block holds, one a public key or subkey of known material.
fn public_chain(bytes: &[u8], from: usize) -> bool {
    let mut at = from;
    let (mut packets, mut key) = (0, false);
    while at < bytes.len() {
        let Some((tag, body, len)) = pgp_packet_length(&bytes[at..]) else {
            return false;
        };
        match tag {
            6 | 14 => key |= pgp_key_material(&bytes[at..], body),
            2 | 12 | 13 | 17 => {}
            _ => return false,
        }
        packets += 1;
        at += body + len;
    }
    at == bytes.len() && packets >= 2 && key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_line_of_a_public_label_after_the_block_or_its_checksum() {
        for (text, public) in [
            ("AAAA\n-----END PUBLIC KEY-----\n", true),
            ("AAAA\r\n=AbCd\r\n-----END PGP PUBLIC KEY BLOCK-----", true),
            ("  AAAA\n  ---- END SSH2 PUBLIC KEY ----", true),
            ("AAAA\n-----END RSA PRIVATE KEY-----\n", false),
            ("AAAA\n\n-----END PUBLIC KEY-----\n", false),
            ("AAAA", false),
        ] {
            let end = text.find("AAAA").unwrap() + 4;
            assert_eq!(followed_by_public_end(text, end), public, "{text:?}");
        }
    }

    #[test]
    fn the_end_is_read_in_its_own_groups() {
        // `… 02 03 01 00 01` after 8, 9 or 10 bytes (the padding varies), with 0 to 3
        // characters of a group lost before.
        for chars in [
            "QUJDREVGR0gCAwEAAQ==",
            "QUJDREVGR0hJAgMBAAE=",
            "QUJDREVGR0hJSgIDAQAB",
        ] {
            for lost in 0..4 {
                let bytes = end_aligned(&chars.as_bytes()[lost..]).unwrap();
                assert!(bytes.ends_with(RSA_EXPONENT_END), "{chars} {lost}");
            }
        }
        let bytes = end_aligned(b"QUJDREVGR0hJSgIDAQAC").unwrap();
        assert!(!bytes.ends_with(RSA_EXPONENT_END));
    }
}
