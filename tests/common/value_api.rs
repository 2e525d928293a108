//! The engine's text functions seen through `serde_json` values, so that
//! table tests can be written with `json!`. Every call goes through the
//! one engine: values are written as JSON text, and results read back.
#![allow(dead_code)]

use std::cmp::Ordering;

use content_repo::engine::{apply, order, sort};
use content_repo::{Query, Result, Selection, Sort};
use serde_json::Value;

/// SPEC §2 value order of two values, ascending.
pub(crate) fn compare_values(a: &Value, b: &Value) -> Ordering {
    order::value_key(a.to_string().as_bytes()).cmp(&order::value_key(b.to_string().as_bytes()))
}

/// The `meta.id` order of two values.
pub(crate) fn compare_ids(a: &Value, b: &Value) -> Ordering {
    let key = |value: &Value| {
        let text = value.to_string();
        order::sort_key_at(text.as_bytes(), 0, true).ok().flatten()
    };
    key(a).cmp(&key(b))
}

/// An instant's nanoseconds since the epoch.
pub(crate) fn parse_instant(text: &str) -> Option<i128> {
    order::parse_instant(text.as_bytes())
}

/// The positions of `documents` in the order of `sorting`.
pub(crate) fn sorted_positions(
    documents: &[Value],
    sorting: &[Sort],
    first: Option<usize>,
) -> Result<Vec<usize>> {
    sort::sort_list(&Value::from(documents.to_vec()).to_string(), sorting, first)
}

/// A sorted copy of `documents`.
pub(crate) fn sort_documents(documents: &[Value], sorting: &[Sort]) -> Result<Vec<Value>> {
    Ok(sorted_positions(documents, sorting, None)?
        .into_iter()
        .filter_map(|position| documents.get(position).cloned())
        .collect())
}

fn read(text: &str) -> Value {
    serde_json::from_str(text).expect("the engine writes JSON")
}

/// A selection applied to a document, an array of documents or a list.
pub(crate) fn select_any(value: &Value, selection: &Selection) -> Result<Value> {
    apply::select_any(&value.to_string(), selection).map(|text| read(&text))
}

/// A selection applied to one document.
pub(crate) fn select(document: &Value, selection: &Selection) -> Result<Value> {
    if !document.is_object() {
        return Err(content_repo::Error::invalid_argument("expected a document"));
    }
    select_any(document, selection)
}

/// A whole query applied to a list.
pub(crate) fn apply_query(list: &Value, query: &Query) -> Result<Value> {
    apply::apply_query(&list.to_string(), query).map(|text| read(&text))
}
