//! Turning [`Error`] into a thrown `ContentRepoError`.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::num::u32_from_usize;

#[wasm_bindgen(module = "/src/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, details: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = isContentRepoError)]
    fn is_content_repo_error_js(value: &JsValue) -> bool;
}

/// Whether `value` is an instance of this module's `ContentRepoError` class
/// (for tests of the boundary).
pub fn is_content_repo_error(value: &JsValue) -> bool {
    is_content_repo_error_js(value)
}

fn set(details: &Object, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(details, &JsValue::from_str(key), value);
}

/// The `ContentRepoError` for `error`.
fn to_js_error(error: &Error) -> JsValue {
    let details = Object::new();
    match error {
        Error::InvalidSelection {
            position, expected, ..
        } => {
            set(
                &details,
                "position",
                &JsValue::from(u32_from_usize(*position)),
            );
            set(&details, "expected", &JsValue::from_str(expected));
        }
        Error::Http { status, .. } => set(&details, "status", &JsValue::from(*status)),
        Error::Decode { excerpt, .. } => set(&details, "excerpt", &JsValue::from_str(excerpt)),
        _ => {}
    }
    make_error(error.code(), &error.to_string(), &details)
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        to_js_error(&error)
    }
}
