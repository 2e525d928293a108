//! JavaScript values into [`Arg`]s, which the core reads (`crate::args`,
//! `crate::client::options`), and property reads of options objects.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use crate::args::Arg;

/// `value` as an [`Arg`]: an array with its elements (`depth` 1) or without.
fn convert(value: &JsValue, depth: u8) -> Arg {
    if value.is_undefined() {
        Arg::Undefined
    } else if value.is_null() {
        Arg::Null
    } else if let Some(text) = value.as_string() {
        Arg::text(text, || {
            value.unchecked_ref::<js_sys::JsString>().is_valid_utf16()
        })
    } else if let Some(number) = value.as_f64() {
        Arg::Number(number)
    } else if let Some(flag) = value.as_bool() {
        Arg::Bool(flag)
    } else if value.is_array() {
        let items = (depth > 0).then(|| js_sys::Array::from(value));
        let items = items.iter().flat_map(js_sys::Array::iter);
        Arg::Array(items.map(|item| convert(&item, 0)).collect())
    } else if value.is_function() {
        Arg::Function
    } else if value.is_instance_of::<AbortSignal>() {
        Arg::Signal
    } else {
        Arg::Object
    }
}

/// `value` as an [`Arg`].
pub(crate) fn arg(value: &JsValue) -> Arg {
    convert(value, 1)
}

/// How a value is named in an error message (see [`crate::args::describe`]).
pub(crate) fn describe(value: &JsValue) -> String {
    crate::args::describe(&convert(value, 0))
}

/// A query argument: one of the package's `Query` objects is read through
/// its canonical string (it cannot be borrowed across the boundary without
/// being moved), which parses back to an equal query.
pub(crate) fn query(value: &JsValue) -> Arg {
    if value.is_object() && property(value, "__wbg_ptr").as_f64().is_some() {
        return Arg::Text(js_sys::Object::from(value.clone()).to_string().into());
    }
    arg(value)
}

/// The reader of `value`'s properties by path, for the core's option
/// readers (`crate::args::Props`).
pub(crate) fn props(value: &JsValue) -> impl Fn(&[&str]) -> Arg + '_ {
    move |path| {
        arg(&path
            .iter()
            .fold(value.clone(), |at, key| property(&at, key)))
    }
}

/// Reads `key` of an options object (absent when `object` is not one).
pub(crate) fn property(object: &JsValue, key: &str) -> JsValue {
    if !object.is_object() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Reads `key` of `object` as a `T` (a function, a signal), if it is one.
pub(crate) fn take<T: JsCast>(object: &JsValue, key: &str) -> Option<T> {
    property(object, key).dyn_into().ok()
}
