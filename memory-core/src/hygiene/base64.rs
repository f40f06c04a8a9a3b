//! Decoding unpadded base64, as the secret checks look inside values: a token's parts,
//! a key's lines.

/// Which characters stand for 62 and 63.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Alphabet {
    /// `+` and `/` only.
    Standard,
    /// `+` or `-`, and `/` or `_` (standard and URL-safe alike).
    EitherForm,
}

/// The bytes `chars` decode to, with the bits left over after the last whole byte (0, 2
/// or 4 for text that is base64 cut anywhere; 6 when a lone character dangles); `None`
/// on a character outside `alphabet` (padding included).
pub(super) fn decode_unpadded(chars: &[u8], alphabet: Alphabet) -> Option<(Vec<u8>, u32)> {
    let mut out = Vec::with_capacity(chars.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in chars {
        let value = match (b, alphabet) {
            (b'A'..=b'Z', _) => b - b'A',
            (b'a'..=b'z', _) => b - b'a' + 26,
            (b'0'..=b'9', _) => b - b'0' + 52,
            (b'+', _) | (b'-', Alphabet::EitherForm) => 62,
            (b'/', _) | (b'_', Alphabet::EitherForm) => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            // Masked to 8 bits: the truncation is the decoding.
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some((out, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_alphabets_and_counts_the_bits_left() {
        assert_eq!(
            decode_unpadded(b"aGVsbG8", Alphabet::Standard),
            Some((b"hello".to_vec(), 2))
        );
        assert_eq!(
            decode_unpadded(b"-_8", Alphabet::EitherForm),
            Some((vec![0xfb, 0xff], 2))
        );
        assert_eq!(decode_unpadded(b"-_8", Alphabet::Standard), None);
        assert_eq!(decode_unpadded(b"aGVsbG8=", Alphabet::Standard), None);
        assert_eq!(decode_unpadded(b"a", Alphabet::Standard), Some((vec![], 6)));
    }
}
