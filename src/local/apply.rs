//! A whole [`Query`] applied to documents in hand: sorting, then `offset`
//! and `limit`, then the field selection, in the service's order.
//!
//! Like the service, a query without `limit` returns a page of
//! [`SERVICE_DEFAULT_LIMIT`] (25) documents, so that the same query gives the
//! same answer locally as online.
//!
//! ```
//! use content_repo::local::apply::apply_query;
//! use content_repo::{Direction, Query};
//! use serde_json::json;
//!
//! let list = json!({"data": [
//!     {"fields": {"n": 2}, "meta": {"id": "1"}},
//!     {"fields": {"n": 1}, "meta": {"id": "2"}},
//!     {"fields": {"n": 3}, "meta": {"id": "3"}}
//! ]});
//! let mut query = Query::new();
//! query.sort("fields.n", Direction::Asc)?.fields("meta(id)")?.limit(2)?;
//! assert_eq!(
//!     apply_query(&list, &query)?,
//!     json!({"data": [{"meta": {"id": "2"}}, {"meta": {"id": "1"}}],
//!            "meta": {"count": 2, "limit": 2, "offset": 0, "total": 3}})
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use serde_json::{json, Map, Value};

use super::project::{is_envelope, select_any};
use super::sort::sorted_positions;
use crate::error::{Error, Result};
use crate::query::Query;

/// The service's page size when a query sets no `limit`.
pub const SERVICE_DEFAULT_LIMIT: u32 = 25;

/// The page size of a query: its `limit`, or the service's default.
pub fn effective_limit(query: &Query) -> u32 {
    query.get_limit().unwrap_or(SERVICE_DEFAULT_LIMIT)
}

/// The page bounds of a query over `total` documents: `(offset, count)`,
/// clamped to what exists.
pub fn page_bounds(query: &Query, total: usize) -> (usize, usize) {
    let offset = usize::try_from(query.get_offset().unwrap_or(0)).unwrap_or(usize::MAX);
    let offset = offset.min(total);
    let count = (effective_limit(query) as usize).min(total - offset);
    (offset, count)
}

/// The list envelope's `meta`: `{count, limit, offset, total}`, as the
/// service writes it.
pub fn page_meta(query: &Query, count: usize, total: usize) -> Value {
    json!({
        "count": count,
        "limit": effective_limit(query),
        "offset": query.get_offset().unwrap_or(0),
        "total": total,
    })
}

/// Applies `query`'s sorting, `offset`, `limit` and selection to an array of
/// documents or a list envelope, giving a list envelope
/// `{ data, meta: { count, limit, offset, total } }`; an envelope's other
/// keys (such as `includes`) are kept (and selected by an `includes` item).
/// Filters and the other parameters are not applied locally.
pub fn apply_query(list: &Value, query: &Query) -> Result<Value> {
    let (documents, rest) = match list {
        Value::Array(documents) => (documents, None),
        Value::Object(map) if is_envelope(list) => match map.get("data") {
            Some(Value::Array(documents)) => (documents, Some(map)),
            _ => return Err(not_a_list()),
        },
        _ => return Err(not_a_list()),
    };
    let total = documents.len();
    let (offset, count) = page_bounds(query, total);
    let order = sorted_positions(documents, query.sorting(), Some(offset + count))?;
    let page: Vec<Value> = order
        .iter()
        .skip(offset)
        .filter_map(|position| documents.get(*position).cloned())
        .collect();
    let mut out = Map::new();
    out.insert("data".into(), Value::Array(page));
    out.insert("meta".into(), page_meta(query, count, total));
    if let Some(map) = rest {
        for (key, value) in map {
            if key != "data" && key != "meta" {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    let out = Value::Object(out);
    match query.selection() {
        Some(selection) => select_any(&out, selection),
        None => Ok(out),
    }
}

fn not_a_list() -> Error {
    Error::invalid_argument(
        "expected a list: an array of documents or an object { data: Document[] }",
    )
}
