//! JavaScript values into [`Arg`]s, which the core reads (`crate::args`,
//! `crate::client::options`), and property reads of options objects.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use crate::args::Arg;

// Every read that may run the caller's code (src/js/read.js) is caught: an
// exception unwinding through the module's frames would leave them
// unfinished (objects borrowed, stack lost) until the module trapped.
#[wasm_bindgen(module = "/src/js/read.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch)]
    fn elements(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// (Never throws: it asks `AbortSignal`'s own getter, in a `try`.)
    #[wasm_bindgen(js_name = isSignal)]
    fn is_signal(value: &JsValue) -> bool;
    #[wasm_bindgen(catch, js_name = queryText)]
    fn query_text(value: &JsValue) -> Result<String, JsValue>;
    /// A bigint or a symbol as JavaScript writes it (never throws).
    fn written(value: &JsValue) -> String;
    /// What was thrown, for a message (`TypeError: ...`); never throws.
    pub(crate) fn thrown(error: &JsValue) -> String;
}

/// The argument whose reading threw `error`.
fn unreadable(error: &JsValue) -> Arg {
    Arg::Unreadable(format!("a value that threw when read ({})", thrown(error)))
}

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
    } else if value.is_bigint() || value.is_symbol() {
        Arg::Other(written(value))
    } else if value.is_function() {
        Arg::Function
    } else {
        match is_array(value) {
            Ok(true) if depth == 0 => Arg::Array(Vec::new()),
            Ok(true) => match elements(value) {
                Ok(items) => Arg::Array(items.iter().map(|item| convert(&item, 0)).collect()),
                Err(error) => unreadable(&error),
            },
            Ok(false) if is_signal(value) => Arg::Signal,
            Ok(false) => Arg::Object,
            Err(error) => unreadable(&error),
        }
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

/// Whether `value` is an array (`false` when reading it throws).
pub(crate) fn array(value: &JsValue) -> bool {
    is_array(value).unwrap_or(false)
}

/// A query argument: one of the package's `Query` objects is read through
/// its canonical string (it cannot be borrowed across the boundary without
/// being moved), which parses back to an equal query.
pub(crate) fn query(value: &JsValue) -> Arg {
    if !value.is_object() {
        return arg(value);
    }
    match read(value, "__wbg_ptr").map(|pointer| pointer.as_f64()) {
        Ok(Some(0.0)) => Arg::Unreadable("a freed Query".into()),
        Ok(Some(_)) => query_text(value).map_or_else(|error| unreadable(&error), Arg::Text),
        Ok(None) => arg(value),
        Err(error) => error,
    }
}

/// The query argument at `key` of an options object.
pub(crate) fn query_at(options: &JsValue, key: &str) -> Arg {
    read(options, key).map_or_else(|error| error, |value| query(&value))
}

/// The reader of `value`'s properties by path, for the core's option
/// readers (`crate::args::Props`).
pub(crate) fn props(value: &JsValue) -> impl Fn(&[&str]) -> Arg + '_ {
    move |path| {
        let mut at = value.clone();
        for key in path {
            match read(&at, key) {
                Ok(next) => at = next,
                Err(error) => return error,
            }
        }
        arg(&at)
    }
}

/// Reads `key` of an options object (absent when `object` is not one); an
/// exception is the [`Arg::Unreadable`] it makes.
fn read(object: &JsValue, key: &str) -> Result<JsValue, Arg> {
    if !object.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    js_sys::Reflect::get(object, &JsValue::from_str(key)).map_err(|error| unreadable(&error))
}

/// Reads `key` of an options object (absent when `object` is not one, or
/// reading it throws: the core's readers of the same options report that).
pub(crate) fn property(object: &JsValue, key: &str) -> JsValue {
    read(object, key).unwrap_or(JsValue::UNDEFINED)
}

/// The function at `key` of an options object, if it is one.
pub(crate) fn function(object: &JsValue, key: &str) -> Option<js_sys::Function> {
    let value = property(object, key);
    value.is_function().then(|| value.unchecked_into())
}

/// The `AbortSignal` at `key` of an options object, if it is one.
pub(crate) fn signal(object: &JsValue, key: &str) -> Option<AbortSignal> {
    let value = property(object, key);
    is_signal(&value).then(|| value.unchecked_into())
}
