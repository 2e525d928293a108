//! Turning [`Error`] into a thrown `ContentRepoError`.

use wasm_bindgen::prelude::*;

use crate::error::Error;

#[wasm_bindgen(module = "/src/js/error.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, details: &JsValue) -> JsValue;
    /// Whether `value` is an instance of this module's `ContentRepoError`
    /// class (for tests of the boundary).
    #[wasm_bindgen(js_name = isContentRepoError)]
    pub fn is_content_repo_error(value: &JsValue) -> bool;
}

impl From<Error> for JsValue {
    /// The `ContentRepoError` for `error`, with its details
    /// ([`Error::details_json`]).
    fn from(error: Error) -> JsValue {
        let details = js_sys::JSON::parse(&error.details_json()).unwrap_or_default();
        make_error(error.code(), &error.to_string(), &details)
    }
}
