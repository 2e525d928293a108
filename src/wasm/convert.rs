//! Decoding JavaScript arguments into core types, with typed errors for
//! anything unexpected, and encoding results as plain objects.

use wasm_bindgen::prelude::*;

use crate::error::{Error, Result};
use crate::num::u64_from_f64;

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
        let mut text = String::new();
        crate::num::write_f64(&mut text, number);
        text
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

/// A whole number from `min` to `max`, as the type of the bounds.
pub(crate) fn integer<T>(value: &JsValue, what: &str, min: T, max: T) -> Result<T>
where
    T: Copy + std::fmt::Display + Into<u64> + TryFrom<u64>,
{
    let range = || {
        Error::invalid_argument(format!(
            "invalid {what} {}: expected an integer from {min} to {max}",
            describe(value)
        ))
    };
    let number = value.as_f64().ok_or_else(range)?;
    // The bounds are below 2^53: as floats, they are exact.
    let (low, high): (u64, u64) = (min.into(), max.into());
    if number.fract() != 0.0 || number < low as f64 || number > high as f64 {
        return Err(range());
    }
    T::try_from(u64_from_f64(number)).map_err(|_| range())
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

/// A JavaScript number rounded toward zero to a `usize`, saturating: NaN
/// and anything below 0 give 0, anything above `usize::MAX` (`u32::MAX` on
/// wasm32) gives `usize::MAX`.
pub(crate) fn usize_from_f64(number: f64) -> usize {
    usize::try_from(u64_from_f64(number)).unwrap_or(usize::MAX)
}
