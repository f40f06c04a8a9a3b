//! JSON output: one value on one line, written `{"key": "value", "list": [1, 2]}`
//! (the spacing of Python's `json.dumps`, so hooks and people read the same text).

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// Serializes `value` on one line with a space after every `:` and `,`.
///
/// Serializing memory-core's types cannot fail (no maps with non-string keys, no
/// failing `Serialize` impls); an error is still returned rather than hidden.
pub fn to_line<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    value.serialize(&mut Serializer::with_formatter(&mut out, SpacedFormatter))?;
    // serde_json writes only valid UTF-8; a lossy conversion never alters it.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// serde_json's compact output (the trait's defaults), plus one space after separators.
struct SpacedFormatter;

impl Formatter for SpacedFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::to_line;

    #[test]
    fn spaces_after_separators_only() {
        let value = serde_json::json!({"a": [1, "x, y"], "b": {"c": null}, "d": []});
        assert_eq!(
            to_line(&value).unwrap(),
            r#"{"a": [1, "x, y"], "b": {"c": null}, "d": []}"#
        );
    }
}
