//! Text a caller hands over as bytes (a command line's stdin): it must be UTF-8, as every
//! memory file is.

use crate::error::{Error, Result};

/// `bytes` as text, or [`Error::InvalidInput`] naming `source` (`stdin`) and where the
/// first byte that is not UTF-8 is (line, column and its value), so that the caller can
/// find it. Nothing is replaced or dropped.
///
/// ```
/// use memory_core::{ErrorKind, hygiene::text_from_bytes};
/// assert_eq!(text_from_bytes("stdin", b"Postgres 16\n".to_vec()).unwrap(), "Postgres 16\n");
/// let err = text_from_bytes("stdin", b"ok\nbad \xff here".to_vec()).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidInput);
/// assert_eq!(
///     err.to_string(),
///     "invalid text \"stdin\": is not UTF-8: byte 0xFF at line 2, column 5 (memory files are UTF-8 text; convert it first, for example with iconv)"
/// );
/// ```
pub fn text_from_bytes(source: &str, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        // Characters, not bytes, before it on its line (that prefix is valid UTF-8).
        let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        Error::invalid(
            "text",
            source,
            format!(
                "is not UTF-8: byte 0x{:02X} at line {line}, column {column} (memory files are UTF-8 text; convert it first, for example with iconv)",
                bytes[at]
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_bad_byte_is_refused_at_its_place() {
        for (bytes, line, column) in [
            (&b"\xff"[..], 1, 1),
            (b"\xc3", 1, 1),                 // a sequence cut short at the end
            (b"caf\xc3\xa9 \xe2\x82", 1, 6), // after a multi-byte character
            (b"a\r\nb\n\xc0\x80", 3, 1),     // an overlong encoding
            (b"\xed\xa0\x80", 1, 1),         // a surrogate
        ] {
            let err = text_from_bytes("stdin", bytes.to_vec()).unwrap_err();
            let text = err.to_string();
            assert!(
                text.contains(&format!("line {line}, column {column}")),
                "{bytes:?}: {text}"
            );
            assert!(text.contains("\"stdin\""), "{text}");
        }
        assert_eq!(text_from_bytes("stdin", Vec::new()).unwrap(), "");
    }
}
