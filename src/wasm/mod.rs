//! The JavaScript boundary: the only `#[wasm_bindgen]` code. Every export
//! decodes its arguments, calls the core, and encodes the result.

mod client;
mod convert;
mod error;
mod query;

pub use client::JsClient;
pub use error::to_js_error;
pub use query::JsQuery;
