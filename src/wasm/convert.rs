//! Decoding JavaScript arguments into core types, with typed errors for
//! anything unexpected, and encoding results as plain objects.

use wasm_bindgen::prelude::*;

use crate::error::{Error, Result};

/// How a value is named in an error message: its type, or the value itself
/// for short primitives.
pub(crate) fn describe(value: &JsValue) -> String {
    if value.is_undefined() {
        "undefined".into()
    } else if value.is_null() {
        "null".into()
    } else if let Some(text) = value.as_string() {
        let short: String = text.chars().take(40).collect();
        format!("{short:?}")
    } else if let Some(number) = value.as_f64() {
        format!("{number}")
    } else if let Some(flag) = value.as_bool() {
        format!("{flag}")
    } else if value.is_array() {
        "an array".into()
    } else if value.is_function() {
        "a function".into()
    } else {
        "an object".into()
    }
}

/// Whether the argument is absent (`undefined` or `null`).
pub(crate) fn is_absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// A required string argument.
pub(crate) fn string(value: &JsValue, what: &str) -> Result<String> {
    value.as_string().ok_or_else(|| {
        Error::invalid_argument(format!("{what} must be a string, got {}", describe(value)))
    })
}

/// An optional string argument (`undefined` and `null` are absent).
pub(crate) fn optional_string(value: &JsValue, what: &str) -> Result<Option<String>> {
    if is_absent(value) {
        return Ok(None);
    }
    string(value, what).map(Some)
}

/// A whole number in `0..=max`.
pub(crate) fn integer(value: &JsValue, what: &str, min: u64, max: u64) -> Result<u64> {
    let range = || {
        Error::invalid_argument(format!(
            "invalid {what} {}: expected an integer from {min} to {max}",
            describe(value)
        ))
    };
    let number = value.as_f64().ok_or_else(range)?;
    if number.fract() != 0.0 || number < min as f64 || number > max as f64 {
        return Err(range());
    }
    Ok(number as u64)
}

/// An array of strings.
pub(crate) fn strings(value: &JsValue, what: &str) -> Result<Vec<String>> {
    let not_array = || {
        Error::invalid_argument(format!(
            "{what} must be an array of strings, got {}",
            describe(value)
        ))
    };
    if !value.is_array() {
        return Err(not_array());
    }
    let array = js_sys::Array::from(value);
    array
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_string().ok_or_else(|| {
                Error::invalid_argument(format!(
                    "{what}[{index}] must be a string, got {}",
                    describe(&item)
                ))
            })
        })
        .collect()
}

/// Reads `key` of an options object (absent when `object` is not one).
pub(crate) fn property(object: &JsValue, key: &str) -> JsValue {
    if !object.is_object() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}
