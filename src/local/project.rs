//! Field selection applied to documents and lists (SPEC.md section 3).
//!
//! - object: a name selects that key if present, `*` every key; when a
//!   named child and `*` both apply to a key, their union applies. An object
//!   always gives a result (`{}` when nothing of it is selected).
//! - array: empty stays `[]`; otherwise the selection applies to every
//!   element: an object element always gives a result (positions kept), a
//!   nested array is descended, any other element is dropped unless it is
//!   selected whole; a non-empty array of which nothing remains is not
//!   selected. A `*` child also matches the elements themselves (an array's
//!   keys are its positions), so `gallery/*/url` gives each element's `url`.
//! - a string, number, boolean or `null` with path left: not selected; a
//!   missing key: not selected; a selected `null` stays `null`.
//!
//! ```
//! use content_repo::local::project::select;
//! use content_repo::Selection;
//! use serde_json::json;
//!
//! let doc = json!({
//!     "fields": {"title": "A", "gallery": [{"url": "u1", "alt": "a"}, {"alt": "b"}]},
//!     "meta": {"id": "1", "revision": 3}
//! });
//! let selection = Selection::parse("title, gallery/*/url")?;
//! assert_eq!(
//!     select(&doc, &selection)?,
//!     json!({"fields": {"title": "A", "gallery": [{"url": "u1"}, {}]}, "meta": {"id": "1", "revision": 3}})
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::query::selection::{Node, Parts, Selection};

/// How many nested arrays [`apply`] descends without consuming selection
/// depth; deeper ones are not selected. Parsed JSON never gets there.
pub const MAX_ARRAY_NESTING: usize = 128;

/// Applies a selection node to a value: `None` when nothing is selected.
pub fn apply(value: &Value, node: &Node) -> Option<Value> {
    apply_at(value, node, 0)
}

fn apply_at(value: &Value, node: &Node, nesting: usize) -> Option<Value> {
    if node.is_leaf() {
        return Some(value.clone());
    }
    match value {
        Value::Object(map) => Some(Value::Object(apply_object(map, node, nesting))),
        Value::Array(items) => apply_array(items, node, nesting),
        _ => None,
    }
}

fn apply_object(map: &Map<String, Value>, node: &Node, nesting: usize) -> Map<String, Value> {
    let children = node.children();
    let star = children.get("*");
    let mut out = Map::new();
    for (key, value) in map {
        let sub: Cow<'_, Node> = match (children.get(key.as_str()), star) {
            (Some(named), Some(star)) if key != "*" => Cow::Owned(union(named, star)),
            (Some(named), _) => Cow::Borrowed(named),
            (None, Some(star)) => Cow::Borrowed(star),
            (None, None) => continue,
        };
        if let Some(selected) = apply_at(value, &sub, nesting) {
            out.insert(key.clone(), selected);
        }
    }
    out
}

fn apply_array(items: &[Value], node: &Node, nesting: usize) -> Option<Value> {
    if items.is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    if nesting >= MAX_ARRAY_NESTING {
        return None;
    }
    let element: Cow<'_, Node> = match node.children().get("*") {
        Some(star) => Cow::Owned(union(node, star)),
        None => Cow::Borrowed(node),
    };
    let out: Vec<Value> = items
        .iter()
        .filter_map(|item| match item {
            Value::Array(_) => apply_at(item, node, nesting + 1),
            _ => apply_at(item, &element, nesting + 1),
        })
        .collect();
    if out.is_empty() {
        None
    } else {
        Some(Value::Array(out))
    }
}

/// The union of two selection nodes.
pub fn union(a: &Node, b: &Node) -> Node {
    let mut merged = a.clone();
    merged.merge(b.clone());
    merged
}

/// Applies a selection to one document: `fields` only as selected, `meta`
/// whole unless named, the document's own `includes` (if any) whole unless an
/// `includes` item applies, and no other key. `*` returns it unchanged.
pub fn select(document: &Value, selection: &Selection) -> Result<Value> {
    let map = document.as_object().ok_or_else(|| {
        Error::invalid_argument("expected a document: an object { fields, meta }")
    })?;
    Ok(match selection {
        Selection::All => document.clone(),
        Selection::Parts(parts) => Value::Object(select_map(map, parts)),
    })
}

/// [`select`] on a document's entries.
pub fn select_map(map: &Map<String, Value>, parts: &Parts) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        let selected = match key.as_str() {
            "fields" => parts.fields.as_ref().and_then(|node| apply(value, node)),
            "meta" => apply(value, &parts.meta),
            "includes" => match &parts.includes {
                Some(node) => apply(value, node),
                None => Some(value.clone()),
            },
            _ => None,
        };
        if let Some(selected) = selected {
            out.insert(key.clone(), selected);
        }
    }
    out
}

/// Whether `value` is a list envelope: an object with a `data` array and no
/// `fields` key.
pub fn is_envelope(value: &Value) -> bool {
    value.as_object().is_some_and(|map| {
        matches!(map.get("data"), Some(Value::Array(_))) && !map.contains_key("fields")
    })
}

/// Applies a selection to a document, an array of documents, or a list
/// envelope: each element of `data` as a document, the `includes` item (if
/// any) to the envelope's `includes` object (kept whole without one), every
/// other envelope key kept. Every element must be a document.
pub fn select_any(value: &Value, selection: &Selection) -> Result<Value> {
    match value {
        Value::Array(documents) => select_documents(documents, selection).map(Value::Array),
        Value::Object(map) if is_envelope(value) => {
            let mut out = Map::new();
            for (key, item) in map {
                match (key.as_str(), item, selection) {
                    ("data", Value::Array(documents), _) => {
                        out.insert(
                            key.clone(),
                            Value::Array(select_documents(documents, selection)?),
                        );
                    }
                    (
                        "includes",
                        _,
                        Selection::Parts(Parts {
                            includes: Some(node),
                            ..
                        }),
                    ) => {
                        if let Some(selected) = apply(item, node) {
                            out.insert(key.clone(), selected);
                        }
                    }
                    _ => {
                        out.insert(key.clone(), item.clone());
                    }
                }
            }
            Ok(Value::Object(out))
        }
        _ => select(value, selection),
    }
}

/// Applies a selection to each document of a list.
pub fn select_documents(documents: &[Value], selection: &Selection) -> Result<Vec<Value>> {
    documents
        .iter()
        .enumerate()
        .map(|(index, document)| {
            select(document, selection).map_err(|_| super::sort::not_a_document(index))
        })
        .collect()
}
