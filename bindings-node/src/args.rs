//! Argument conversion: every JS value a method receives is converted here, and a value of
//! the wrong type is an `ERR_MEMORY_INVALID_INPUT` error naming the parameter in plain
//! words (`sessionId: expected a string, got number 5`), never napi's conversion error
//! with Rust type names.

use memory_core::Error;
use napi::bindgen_prelude::{Array, JsObjectValue, Object, Unknown};
use napi::{JsString, JsValue, ValueType};

use crate::Failure;

/// The result of a conversion.
pub type Arg<T> = std::result::Result<T, Failure>;

/// The value in plain words: `number 5`, `string "x"`, `an array`, `null`.
fn describe(value: &Unknown<'_>) -> String {
    // SAFETY (all casts below): each cast matches the type `get_type` just reported.
    match value.get_type() {
        Ok(ValueType::Undefined) => "undefined".to_string(),
        Ok(ValueType::Null) => "null".to_string(),
        Ok(ValueType::Boolean) => match unsafe { value.cast::<bool>() } {
            Ok(b) => format!("boolean {b}"),
            Err(_) => "a boolean".to_string(),
        },
        Ok(ValueType::Number) => match unsafe { value.cast::<f64>() } {
            Ok(n) => format!("number {}", number(n)),
            Err(_) => "a number".to_string(),
        },
        Ok(ValueType::String) => match utf16(value) {
            Ok(units) => format!("string {}", quoted(&units)),
            Err(_) => "a string".to_string(),
        },
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => "an array".to_string(),
        Ok(ValueType::Object) => "an object".to_string(),
        Ok(ValueType::Function) => "a function".to_string(),
        Ok(ValueType::Symbol) => "a symbol".to_string(),
        _ => "a value of another type".to_string(),
    }
}

/// A number as a message shows it: plain (`5`, `0.25`, `-3`) unless that takes more than
/// 15 digits, then in exponent form (`1e300`, `1.5e-9`); `NaN`, `Infinity`, `-Infinity`
/// as JavaScript spells them.
pub fn number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_string()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else if n != 0.0 && !(1e-6..1e15).contains(&n.abs()) {
        format!("{n:e}")
    } else {
        format!("{n}")
    }
}

fn wrong(value: &Unknown<'_>, name: &'static str, expected: &str) -> Failure {
    Failure::Core(Error::argument(
        name,
        format!("expected {expected}, got {}", describe(value)),
    ))
}

pub fn is_absent(value: &Unknown<'_>) -> bool {
    matches!(
        value.get_type(),
        Ok(ValueType::Undefined) | Ok(ValueType::Null)
    )
}

/// The UTF-16 code units of a string value (with napi's trailing NUL).
fn utf16(value: &Unknown<'_>) -> napi::Result<Vec<u16>> {
    // SAFETY: only called on values `get_type` reported as strings.
    let string = unsafe { value.cast::<JsString>() }?;
    Ok(string.into_utf16()?.as_slice().to_vec())
}

/// A string's first 40 characters as a quoted literal, lone surrogates as `\u{d800}`.
fn quoted(units: &[u16]) -> String {
    let units = units.strip_suffix(&[0]).unwrap_or(units);
    let mut out = String::from("\"");
    for (i, unit) in char::decode_utf16(units.iter().copied()).enumerate() {
        if i == 40 {
            out.push_str("\"…");
            return out;
        }
        match unit {
            Ok(c) => out.extend(c.escape_debug()),
            Err(lone) => out.push_str(&format!("\\u{{{:x}}}", lone.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}

/// UTF-16 text as a Rust string, each lone surrogate written as `\u{d800}`.
fn escaped(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|unit| match unit {
            Ok(c) => c.to_string(),
            Err(lone) => format!("\\u{{{:x}}}", lone.unpaired_surrogate()),
        })
        .collect()
}

/// A string. A JS string is UTF-16 and may hold lone surrogates, which no Rust string
/// (and no UTF-8 file) can: such a string is refused, not written with U+FFFD in their
/// place. napi's UTF-8 conversion puts U+FFFD there, so only a result holding U+FFFD
/// (a lone surrogate, or a real U+FFFD) is read again as UTF-16 to tell the two apart.
pub fn text(value: Unknown<'_>, name: &'static str) -> Arg<String> {
    match value.get_type()? {
        ValueType::String => {
            // SAFETY: the value is a string.
            let text = unsafe { value.cast::<String>() }?;
            if text.contains('\u{FFFD}')
                && char::decode_utf16(utf16(&value)?).any(|unit| unit.is_err())
            {
                return Err(Failure::Core(Error::argument(
                    name,
                    "is not valid Unicode text (it holds lone surrogates)".to_string(),
                )));
            }
            Ok(text)
        }
        _ => Err(wrong(&value, name, "a string")),
    }
}

/// A string, or `undefined`/`null`.
pub fn opt_text(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Option<String>> {
    match value {
        Some(value) if !is_absent(&value) => text(value, name).map(Some),
        _ => Ok(None),
    }
}

/// An array of strings.
pub fn texts(value: Unknown<'_>, name: &'static str) -> Arg<Vec<String>> {
    if !matches!(value.get_type()?, ValueType::Object) || !value.is_array()? {
        return Err(wrong(&value, name, "an array of strings"));
    }
    // SAFETY: the value is an array.
    let array = unsafe { value.cast::<Array>() }?;
    (0..array.len())
        .map(|i| {
            let item = array.get::<Unknown>(i)?.ok_or_else(|| {
                Failure::Core(Error::argument(
                    name,
                    format!("expected a string as item {i}, got a hole"),
                ))
            })?;
            if !matches!(item.get_type()?, ValueType::String) {
                return Err(wrong(&item, name, &format!("a string as item {i}")));
            }
            text(item, name)
        })
        .collect()
}

/// An array of strings, or `undefined`/`null`.
pub fn opt_texts(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Option<Vec<String>>> {
    match value {
        Some(value) if !is_absent(&value) => texts(value, name).map(Some),
        _ => Ok(None),
    }
}

/// A list whose default is empty.
pub fn list(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Vec<String>> {
    opt_texts(value, name).map(Option::unwrap_or_default)
}

/// A number, or `undefined`/`null`.
pub fn opt_number(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Option<f64>> {
    match value {
        Some(value) if !is_absent(&value) => match value.get_type()? {
            // SAFETY: the value is a number.
            ValueType::Number => Ok(Some(unsafe { value.cast::<f64>() }?)),
            _ => Err(wrong(&value, name, "a number")),
        },
        _ => Ok(None),
    }
}

/// A boolean, or `undefined`/`null`.
pub fn opt_bool(value: Option<Unknown<'_>>, name: &'static str) -> Arg<Option<bool>> {
    match value {
        Some(value) if !is_absent(&value) => match value.get_type()? {
            // SAFETY: the value is a boolean.
            ValueType::Boolean => Ok(Some(unsafe { value.cast::<bool>() }?)),
            _ => Err(wrong(&value, name, "a boolean")),
        },
        _ => Ok(None),
    }
}

/// A plain object (not an array or function), or `undefined`/`null`.
pub fn opt_object<'env>(
    value: Option<Unknown<'env>>,
    name: &'static str,
) -> Arg<Option<Object<'env>>> {
    match value {
        Some(value) if !is_absent(&value) => {
            if !matches!(value.get_type()?, ValueType::Object) || value.is_array()? {
                return Err(wrong(&value, name, "an object"));
            }
            // SAFETY: the value is an object.
            Ok(Some(unsafe { value.cast::<Object>() }?))
        }
        _ => Ok(None),
    }
}

/// A plain object.
pub fn object<'env>(value: Unknown<'env>, name: &'static str) -> Arg<Object<'env>> {
    let shown = describe(&value);
    opt_object(Some(value), name)?.ok_or_else(|| {
        Failure::Core(Error::argument(
            name,
            format!("expected an object, got {shown}"),
        ))
    })
}

/// Refuses every enumerable string key of `object` that is not in `keys` and whose value
/// is not `undefined` (`{ ...defaults, topic: undefined }` stays fine), with
/// `ERR_MEMORY_INVALID_INPUT` naming `<prefix>.<key>`. A misplaced `signal` gets a hint
/// naming `async_method`, whose last argument takes it.
pub fn known_keys(
    object: &Object<'_>,
    prefix: &str,
    keys: &[&str],
    async_method: Option<&str>,
) -> Arg<()> {
    let names = object.get_property_names()?;
    for i in 0..names.get_array_length()? {
        // The key itself, not its UTF-8 form: a key with a lone surrogate would not name
        // the property again (napi's UTF-8 read replaces the surrogate).
        let key = names.get_element::<JsString>(i)?;
        let units = key.into_utf16()?.as_slice().to_vec();
        let units = units.strip_suffix(&[0]).unwrap_or(&units);
        let name = String::from_utf16(units).ok();
        if name.as_deref().is_some_and(|name| keys.contains(&name)) {
            continue;
        }
        let value = object.get_property::<_, Unknown>(key)?;
        if matches!(value.get_type()?, ValueType::Undefined) {
            continue;
        }
        let shown = name.unwrap_or_else(|| escaped(units));
        let mut message = "unknown option".to_string();
        if let (Some(method), "signal") = (async_method, shown.as_str()) {
            message.push_str(&format!(
                "; pass {{ signal }} as the last argument of {method}"
            ));
        }
        return Err(Failure::Core(Error::argument(
            format!("{prefix}.{shown}"),
            message,
        )));
    }
    Ok(())
}

/// Property `key` of `object` (`None` when it is missing or `undefined`).
pub fn field<'env>(object: &Object<'env>, key: &str) -> Arg<Option<Unknown<'env>>> {
    Ok(object
        .get::<Unknown>(key)?
        .filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined))))
}

/// Whether `options.signal` of an `…Async` call is an `AbortSignal` that has fired.
/// `options` must be `undefined`, `null` or an object; `signal`, when given, an object
/// with a boolean `aborted` (an `AbortSignal`).
pub fn aborted(options: Option<Unknown<'_>>) -> Arg<bool> {
    let Some(options) = opt_object(options, "options")? else {
        return Ok(false);
    };
    known_keys(&options, "options", &["signal"], None)?;
    let Some(signal) = field(&options, "signal")? else {
        return Ok(false);
    };
    if is_absent(&signal) {
        return Ok(false);
    }
    let shown = describe(&signal);
    let not_a_signal = || {
        Failure::Core(Error::argument(
            "options.signal",
            format!("expected an AbortSignal, got {shown}"),
        ))
    };
    let signal = opt_object(Some(signal), "options.signal")?.ok_or_else(not_a_signal)?;
    match field(&signal, "aborted")? {
        Some(flag) if matches!(flag.get_type()?, ValueType::Boolean) => {
            // SAFETY: the value is a boolean.
            Ok(unsafe { flag.cast::<bool>() }?)
        }
        _ => Err(not_a_signal()),
    }
}
