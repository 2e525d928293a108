//! `sortDocuments`, `selectFields`, `applyQuery`: the engine for documents
//! that live in JavaScript.
//!
//! Documents cross the boundary as JSON text, which is much cheaper than one
//! call per value and keeps every value exactly as `JSON.parse` gives it: a
//! small JavaScript helper writes only what the call needs (the sort keys'
//! values; the documents of a page) with `JSON.stringify`, the engine does
//! the work on the text, and results come back as JSON text read by
//! `JSON.parse`. `sortDocuments` returns the caller's own document objects
//! in the new order (only their sort keys are read).

use wasm_bindgen::prelude::*;

use super::convert::{self, arg, describe};
use crate::client::options;
use crate::engine::apply::{page_envelope, select_any};
use crate::engine::local::{self, list_text, not_a_list, LocalSort};
use crate::error::{Error, Result};

#[wasm_bindgen(module = "/src/js/local.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = listDocuments)]
    fn list_documents(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = sortRows)]
    fn sort_rows(documents: &JsValue, paths: Vec<String>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    fn permute(documents: &JsValue, order: Vec<u32>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = listJson)]
    fn list_json(value: &JsValue, order: Option<Vec<u32>>) -> Result<JsValue, JsValue>;
}

/// Parses JSON text into plain JavaScript objects and arrays.
pub(crate) fn from_json_text(text: &str) -> Result<JsValue> {
    js_sys::JSON::parse(text)
        .map_err(|_| Error::invalid_argument("the result could not be read as JSON"))
}

/// What `JSON.stringify` threw, as an error.
fn not_serializable(error: JsValue) -> Error {
    local::not_serializable(&convert::thrown(&error))
}

/// The JSON text of a list (or a document), with only the documents at
/// `order` when given.
fn read_list(value: &JsValue, order: Option<Vec<u32>>) -> Result<String> {
    let written = list_json(value, order).map_err(not_serializable)?;
    list_text(arg(&written), || describe(value))
}

/// Returns a new array of the same documents (not copied), sorted by the
/// query's sort keys as the service sorts (SPEC section 2), stable; without
/// sort keys, the default order. Throws `invalid_argument` for what is not an
/// array of documents, or the query string's own error (`invalid_sort`, ...).
#[wasm_bindgen(js_name = sortDocuments, skip_typescript, unchecked_return_type = "Document[]")]
pub fn sort_documents(
    #[wasm_bindgen(unchecked_param_type = "Document[]")] documents: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
) -> Result<JsValue, JsValue> {
    if !convert::array(&documents) {
        return Err(local::not_an_array(&describe(&documents)).into());
    }
    let sort = LocalSort::new(&options::query(&convert::query(&query))?.unwrap_or_default());
    let rows = sort_rows(&documents, sort.paths()).map_err(not_serializable)?;
    permute(&documents, sort.order(&arg(&rows))?).map_err(|error| not_serializable(error).into())
}

/// Applies a field selection such as `"title, author/name"` (SPEC section
/// 3) to one document, an array of documents, or a list envelope, as new
/// objects (`"*"`: the input as it is). Throws `invalid_selection` (with
/// `position`), or `invalid_argument` for what is not a document or a list.
#[wasm_bindgen(js_name = selectFields, skip_typescript, unchecked_return_type = "Document | Document[] | ListResponse")]
pub fn select_fields(
    #[wasm_bindgen(unchecked_param_type = "Document | DocumentList")] document_or_list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] selection: JsValue,
) -> Result<JsValue, JsValue> {
    let is_object = document_or_list.is_object();
    let selection = local::selection(&arg(&selection), is_object, || describe(&document_or_list))?;
    let Some(selection) = selection else {
        return Ok(document_or_list);
    };
    let text = read_list(&document_or_list, None)?;
    Ok(from_json_text(&select_any(&text, &selection)?)?)
}

/// Applies a query to documents in hand as the service would (sorting, then
/// `offset` and `limit`, 25 without one, then the selection): a list envelope
/// `{ data, meta }` keeping a given envelope's other keys. Filters, search
/// and the other parameters are not applied.
#[wasm_bindgen(js_name = applyQuery, skip_typescript, unchecked_return_type = "ListResponse")]
pub fn apply_query(
    #[wasm_bindgen(unchecked_param_type = "DocumentList")] list_or_documents: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
) -> Result<JsValue, JsValue> {
    let documents = list_documents(&list_or_documents).map_err(not_serializable)?;
    if documents.is_undefined() {
        return Err(not_a_list(&describe(&list_or_documents)).into());
    }
    let query = options::query(&convert::query(&query))?.unwrap_or_default();
    let sort = LocalSort::new(&query);
    let rows = sort_rows(&documents, sort.paths()).map_err(not_serializable)?;
    let (order, total) = sort.page(&query, &arg(&rows))?;
    let page = read_list(&list_or_documents, Some(order))?;
    Ok(from_json_text(&page_envelope(&page, &query, total)?)?)
}

/// The size of the module's memory in bytes (it grows, never shrinks): what
/// the documents held in `DocumentStore`s and everything else take.
#[wasm_bindgen(js_name = wasmMemoryBytes, skip_typescript)]
pub fn wasm_memory_bytes() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let buffer: js_sys::ArrayBuffer = memory.buffer().unchecked_into();
    f64::from(buffer.byte_length())
}
