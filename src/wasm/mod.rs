//! The JavaScript boundary: the only `#[wasm_bindgen]` code. Every export
//! decodes its arguments, calls the core, and encodes the result.
//!
//! The TypeScript declarations of this API are hand-written in
//! `src/js/index.d.ts` (the package's `types`), so every export here carries
//! `skip_typescript`. The `unchecked_param_type`/`unchecked_return_type`
//! annotations only feed the JSDoc of the generated glue, where
//! `scripts/entries.mjs` reads which calls return a promise.
#![allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]

mod cache;
mod client;
mod convert;
mod error;
mod local;
mod query;
mod store;
mod task;

pub use client::{JsClient, JsPages};
pub use error::is_content_repo_error;
pub use local::{apply_query, select_fields, sort_documents, wasm_memory_bytes};
pub use query::JsQuery;
pub use store::JsDocumentStore;
pub use task::Task;
