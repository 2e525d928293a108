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

use super::convert::{self, describe, usize_from_f64};
use crate::client::options;
use crate::engine::apply::{page_bounds, page_envelope, select_any};
use crate::engine::sort::{
    effective_keys, is_id, not_a_document, order_rows, read_value_rows, SortKey,
};
use crate::error::{Error, Result};
use crate::num::u32_from_usize;
use crate::query::selection::Selection;
use crate::query::sort::{Direction, FieldKey};
use crate::query::Query;

#[wasm_bindgen(module = "/src/js/local.js")]
extern "C" {
    #[wasm_bindgen(js_name = listDocuments)]
    fn list_documents(value: &JsValue) -> JsValue;
    #[wasm_bindgen(catch, js_name = sortRows)]
    fn sort_rows(documents: &JsValue, paths: &JsValue) -> Result<JsValue, JsValue>;
    fn permute(documents: &JsValue, order: Vec<u32>) -> JsValue;
    #[wasm_bindgen(catch, js_name = listJson)]
    fn list_json(value: &JsValue, order: Option<Vec<u32>>) -> Result<JsValue, JsValue>;
}

/// Parses JSON text into plain JavaScript objects and arrays.
pub(crate) fn from_json_text(text: &str) -> Result<JsValue> {
    js_sys::JSON::parse(text)
        .map_err(|_| Error::invalid_argument("the result could not be read as JSON"))
}

fn not_serializable(error: &JsValue) -> Error {
    let reason = js_sys::Error::from(error.clone()).message();
    Error::invalid_argument(format!(
        "documents must be JSON values ({})",
        String::from(reason)
    ))
}

fn not_a_list(value: &JsValue) -> Error {
    Error::invalid_argument(format!(
        "expected a list: an array of documents or {{ data: Document[] }}, got {}",
        describe(value)
    ))
}

/// The key paths `[scope, name]` as a JavaScript array.
fn paths(keys: &[(FieldKey, Direction)]) -> JsValue {
    let paths = js_sys::Array::new();
    for (key, _) in keys {
        let path = js_sys::Array::new();
        path.push(&JsValue::from_str(key.scope.as_str()));
        path.push(&JsValue::from_str(&key.name));
        paths.push(&path);
    }
    paths.into()
}

/// Reads the sort keys of `documents` (a JavaScript array), one row per
/// document.
fn read_rows(documents: &JsValue, keys: &[(FieldKey, Direction)]) -> Result<Vec<Vec<SortKey>>> {
    let rows = sort_rows(documents, &paths(keys)).map_err(|error| not_serializable(&error))?;
    if let Some(index) = rows.as_f64() {
        return Err(not_a_document(usize_from_f64(index)));
    }
    let text = rows
        .as_string()
        .ok_or_else(|| Error::invalid_argument("the sort keys could not be read"))?;
    let ids: Vec<bool> = keys.iter().map(|(key, _)| is_id(key)).collect();
    read_value_rows(&text, &ids)
}

/// The JSON text of a list (or a document), with only the documents at
/// `order` when given.
fn read_list(value: &JsValue, order: Option<Vec<u32>>) -> Result<String> {
    let text = list_json(value, order).map_err(|error| not_serializable(&error))?;
    if let Some(index) = text.as_f64() {
        return Err(if index < 0.0 {
            not_a_document_or_list(value)
        } else {
            not_a_document(usize_from_f64(index))
        });
    }
    text.as_string()
        .ok_or_else(|| Error::invalid_argument("the documents could not be read"))
}

fn directions(keys: &[(FieldKey, Direction)]) -> Vec<Direction> {
    keys.iter().map(|(_, direction)| *direction).collect()
}

fn sorting_of(query: &JsValue) -> Result<Query> {
    Ok(options::query(&convert::query(query))?.unwrap_or_default())
}

/// Returns a new array of the same documents, sorted by the query's sort
/// keys as the service sorts (SPEC section 2): each key in turn, missing and
/// `null` values last in both directions, then `meta.createdAt` descending
/// and `meta.id` descending, then the input order (stable). Without a query
/// (or without sort keys), the default order. The query's other parameters
/// are ignored. The documents themselves are not copied.
///
/// Throws `invalid_argument` if `documents` is not an array of documents,
/// or a query string is invalid.
#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_name = sortDocuments, skip_typescript, unchecked_return_type = "Document[]")]
pub fn sort_documents(
    #[wasm_bindgen(unchecked_param_type = "Document[]")] documents: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
) -> Result<JsValue, JsValue> {
    if !documents.is_array() {
        return Err(not_a_list(&documents).into());
    }
    let query = sorting_of(&query)?;
    let keys = effective_keys(query.sorting());
    let rows = read_rows(&documents, &keys)?;
    let order: Vec<u32> = order_rows(&rows, &directions(&keys), None)
        .into_iter()
        // Positions in a JavaScript array are below 2^32.
        .map(u32_from_usize)
        .collect();
    Ok(permute(&documents, order))
}

/// Applies a field selection such as `"title, author/name"` (SPEC section
/// 3) to one document, an array of documents, or a list envelope (each
/// element of `data`; the `includes` scope to its `includes`; other keys
/// kept). Returns new objects; the input is not changed. `"*"` returns the
/// input as it is.
///
/// Throws `invalid_selection` (with `position`) for an invalid selection,
/// `invalid_argument` for something that is not a document or a list.
#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_name = selectFields, skip_typescript, unchecked_return_type = "Document | Document[] | ListResponse")]
pub fn select_fields(
    #[wasm_bindgen(unchecked_param_type = "Document | DocumentList")] document_or_list: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] selection: JsValue,
) -> Result<JsValue, JsValue> {
    let Some(selection) = selection_arg(&document_or_list, &selection)? else {
        return Ok(document_or_list);
    };
    let text = read_list(&document_or_list, None)?;
    Ok(from_json_text(&select_any(&text, &selection)?)?)
}

/// The parsed selection of `selectFields` (`None` for `*`), after checking
/// both arguments.
fn selection_arg(document_or_list: &JsValue, selection: &JsValue) -> Result<Option<Selection>> {
    let text = selection.as_string().ok_or_else(|| {
        Error::invalid_argument(format!(
            "the selection must be a string such as \"title, author/name\", got {}",
            describe(selection)
        ))
    })?;
    let selection = Selection::parse(&text)?;
    if !document_or_list.is_object() {
        return Err(not_a_document_or_list(document_or_list));
    }
    Ok((selection != Selection::All).then_some(selection))
}

fn not_a_document_or_list(value: &JsValue) -> Error {
    Error::invalid_argument(format!(
        "expected a document or a list of documents, got {}",
        describe(value)
    ))
}

/// Applies a query to documents in hand, as the service would: its sorting
/// (see `sortDocuments`), then `offset` and `limit`, then its field
/// selection. Returns a list envelope `{ data, meta: { count, limit,
/// offset, total } }`; a list envelope's other keys (such as `includes`)
/// are kept. Filters, search and the other parameters are not applied.
///
/// Like the service, a query without `limit` returns a page of 25, so the
/// same query gives the same answer locally as online.
#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_name = applyQuery, skip_typescript, unchecked_return_type = "ListResponse")]
pub fn apply_query(
    #[wasm_bindgen(unchecked_param_type = "DocumentList")] list_or_documents: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
) -> Result<JsValue, JsValue> {
    let documents = list_documents(&list_or_documents);
    if documents.is_undefined() {
        return Err(not_a_list(&list_or_documents).into());
    }
    let query = sorting_of(&query)?;
    let keys = effective_keys(query.sorting());
    let rows = read_rows(&documents, &keys)?;
    let total = rows.len();
    let (offset, count) = page_bounds(&query, total);
    let order: Vec<u32> = order_rows(&rows, &directions(&keys), Some(offset + count))
        .into_iter()
        .skip(offset)
        // Positions in a JavaScript array are below 2^32.
        .map(u32_from_usize)
        .collect();
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
