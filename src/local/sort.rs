//! Sorting documents (SPEC.md section 2): the keys in turn, missing and
//! `null` last in both directions, the default order as the final
//! tie-break, then the input position (stable).
//!
//! Sort keys are read once per document into [`SortValue`] columns; the
//! comparator never walks JSON. When only a page is needed, only that page
//! is put in order (a partial selection, not a full sort).
//!
//! ```
//! use content_repo::local::sort::sort_documents;
//! use content_repo::{Direction, Sort};
//! use serde_json::json;
//!
//! let docs = vec![
//!     json!({"fields": {"price": 5}, "meta": {"id": "1"}}),
//!     json!({"fields": {"price": null}, "meta": {"id": "2"}}),
//!     json!({"fields": {"price": 9}, "meta": {"id": "3"}}),
//! ];
//! let sorting = [Sort::parse("fields.price", "DESC")?];
//! let sorted = sort_documents(&docs, &sorting)?;
//! let ids: Vec<&str> = sorted.iter().map(|d| d["meta"]["id"].as_str().unwrap()).collect();
//! assert_eq!(ids, ["3", "1", "2"]); // null last, also descending
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::order::{
    compare_id_text, compare_numbers, compare_text, compare_values, parse_instant, Instant, Kind,
};
use crate::error::{Error, Result};
use crate::query::sort::{Direction, FieldKey, Scope, Sort};

/// A sort value read once from a document, comparable without walking JSON
/// again. Comparing two `SortValue`s gives exactly the order of
/// [`compare_values`] (or [`compare_ids`](super::order::compare_ids) for `meta.id`) on the values they
/// were read from.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// Missing or `null`: last in both directions.
    Missing,
    /// A number.
    Number(Number),
    /// An instant, in nanoseconds since the epoch.
    Instant(Instant),
    /// Any other string.
    Text(Box<str>),
    /// A `meta.id` string (decimal order, then text).
    Id(Box<str>),
    /// The `plain` of a richtext object.
    RichText(Box<str>),
    /// `lat` and `lng` of a location.
    Location(Number, Number),
    /// Any other object, compared structurally.
    Object(Box<Value>),
    /// An array, compared element by element.
    Array(Box<Value>),
    /// A boolean.
    Bool(bool),
}

impl SortValue {
    /// Reads the sort value of `value`; `id` selects the `meta.id` rules.
    pub fn of(value: Option<&Value>, id: bool) -> SortValue {
        let Some(value) = value else {
            return SortValue::Missing;
        };
        match value {
            Value::Null => SortValue::Missing,
            Value::Bool(flag) => SortValue::Bool(*flag),
            Value::Number(number) => SortValue::Number(number.clone()),
            Value::String(text) if id => SortValue::Id(text.as_str().into()),
            Value::String(text) => match parse_instant(text) {
                Some(instant) => SortValue::Instant(instant),
                None => SortValue::Text(text.as_str().into()),
            },
            Value::Array(_) => SortValue::Array(Box::new(value.clone())),
            Value::Object(map) => match super::order::kind(value) {
                Kind::RichText => match map.get("plain") {
                    Some(Value::String(plain)) => SortValue::RichText(plain.as_str().into()),
                    _ => SortValue::Object(Box::new(value.clone())),
                },
                Kind::Location => match (map.get("lat"), map.get("lng")) {
                    (Some(Value::Number(lat)), Some(Value::Number(lng))) => {
                        SortValue::Location(lat.clone(), lng.clone())
                    }
                    _ => SortValue::Object(Box::new(value.clone())),
                },
                _ => SortValue::Object(Box::new(value.clone())),
            },
        }
    }

    /// Reads the value of `key` from a document.
    pub fn of_document(document: &Value, key: &FieldKey) -> SortValue {
        SortValue::of(field(document, key), is_id(key))
    }

    /// Whether this is a missing or `null` value.
    pub fn is_missing(&self) -> bool {
        matches!(self, SortValue::Missing)
    }

    fn rank(&self) -> Kind {
        match self {
            SortValue::Missing => Kind::Null,
            SortValue::Number(_) => Kind::Number,
            SortValue::Instant(_) => Kind::Instant,
            SortValue::Text(_) | SortValue::Id(_) => Kind::Text,
            SortValue::RichText(_) => Kind::RichText,
            SortValue::Location(..) => Kind::Location,
            SortValue::Object(_) => Kind::Object,
            SortValue::Array(_) => Kind::Array,
            SortValue::Bool(_) => Kind::Boolean,
        }
    }

    /// The ascending order of two values (missing after everything).
    pub fn compare(&self, other: &SortValue) -> Ordering {
        use SortValue::*;
        match (self, other) {
            (Number(a), Number(b)) => compare_numbers(a, b),
            (Instant(a), Instant(b)) => a.cmp(b),
            (Text(a), Text(b)) | (RichText(a), RichText(b)) => compare_text(a, b),
            (Id(a), Id(b)) => compare_id_text(a, b),
            (Id(a), Text(b)) | (Text(a), Id(b)) => compare_text(a, b),
            (Location(a, b), Location(c, d)) => {
                compare_numbers(a, c).then_with(|| compare_numbers(b, d))
            }
            (Object(a), Object(b)) | (Array(a), Array(b)) => compare_values(a, b),
            (Bool(a), Bool(b)) => a.cmp(b),
            (Missing, Missing) => Ordering::Equal,
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// The order of two values under a sort key: missing and `null` last in
    /// both directions, the rest reversed for [`Direction::Desc`].
    pub fn compare_directed(&self, other: &SortValue, direction: Direction) -> Ordering {
        match (self.is_missing(), other.is_missing()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => match direction {
                Direction::Asc => self.compare(other),
                Direction::Desc => other.compare(self),
            },
        }
    }
}

/// Whether `key` is `meta.id`, which compares by the id rules.
pub fn is_id(key: &FieldKey) -> bool {
    key.scope == Scope::Meta && key.name == "id"
}

/// The value of `key` in a document (`None` when missing or when the
/// document or its scope is not an object).
pub fn field<'a>(document: &'a Value, key: &FieldKey) -> Option<&'a Value> {
    document
        .as_object()?
        .get(key.scope.as_str())?
        .as_object()?
        .get(&key.name)
}

/// The default order, also the final tie-break: `meta.createdAt`
/// descending, then `meta.id` descending.
pub fn default_order() -> [(FieldKey, Direction); 2] {
    [
        (
            FieldKey {
                scope: Scope::Meta,
                name: "createdAt".into(),
            },
            Direction::Desc,
        ),
        (
            FieldKey {
                scope: Scope::Meta,
                name: "id".into(),
            },
            Direction::Desc,
        ),
    ]
}

/// The complete key list of a sorting: its keys, then the default order's
/// keys that it does not already name (a key named earlier decides
/// completely, so a repeat could never break a tie).
pub fn effective_keys(sorting: &[Sort]) -> Vec<(FieldKey, Direction)> {
    let mut keys: Vec<(FieldKey, Direction)> = Vec::with_capacity(sorting.len() + 2);
    for sort in sorting {
        if !keys.iter().any(|(key, _)| *key == sort.key) {
            keys.push((sort.key.clone(), sort.direction));
        }
    }
    for (key, direction) in default_order() {
        if !keys.iter().any(|(known, _)| *known == key) {
            keys.push((key, direction));
        }
    }
    keys
}

/// Sort values read once, one column per key, one row per document.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    columns: Vec<(Vec<SortValue>, Direction)>,
    rows: usize,
}

impl Columns {
    /// Reads the columns of `keys` from `documents`.
    pub fn read<'a, I>(keys: &[(FieldKey, Direction)], documents: I) -> Columns
    where
        I: IntoIterator<Item = &'a Value>,
    {
        let mut columns: Vec<(Vec<SortValue>, Direction)> = keys
            .iter()
            .map(|(_, direction)| (Vec::new(), *direction))
            .collect();
        let mut rows = 0;
        for document in documents {
            for ((key, _), (column, _)) in keys.iter().zip(columns.iter_mut()) {
                column.push(SortValue::of_document(document, key));
            }
            rows += 1;
        }
        Columns { columns, rows }
    }

    /// Columns from values already read (each must have `rows` values).
    pub fn from_parts(columns: Vec<(Vec<SortValue>, Direction)>, rows: usize) -> Result<Columns> {
        if columns.iter().any(|(column, _)| column.len() != rows) {
            return Err(Error::invalid_argument(
                "every sort column must have one value per document",
            ));
        }
        Ok(Columns { columns, rows })
    }

    /// The number of documents.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Compares rows `a` and `b` by every key in turn (not by position).
    pub fn compare_rows(&self, a: usize, b: usize) -> Ordering {
        for (column, direction) in &self.columns {
            if let (Some(x), Some(y)) = (column.get(a), column.get(b)) {
                let order = x.compare_directed(y, *direction);
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
        Ordering::Equal
    }

    /// The row positions in sorted order (ties by position: stable). With
    /// `first = Some(n)`, only the first `n` positions are returned, found
    /// by a partial selection rather than a full sort.
    pub fn order(&self, first: Option<usize>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows).collect();
        let compare = |a: &usize, b: &usize| self.compare_rows(*a, *b).then(a.cmp(b));
        match first {
            Some(0) => order.clear(),
            Some(count) if count < order.len() => {
                order.select_nth_unstable_by(count - 1, compare);
                order.truncate(count);
                order.sort_unstable_by(compare);
            }
            _ => order.sort_unstable_by(compare),
        }
        order
    }
}

fn check_documents(documents: &[Value]) -> Result<()> {
    match documents.iter().position(|document| !document.is_object()) {
        Some(index) => Err(not_a_document(index)),
        None => Ok(()),
    }
}

/// The error for a list element that is not a document.
pub fn not_a_document(index: usize) -> Error {
    Error::invalid_argument(format!(
        "documents[{index}] is not a document: expected an object {{ fields, meta }}"
    ))
}

/// The positions of `documents` in sorted order; with `first`, only the
/// first positions (see [`Columns::order`]). Every element must be an object.
pub fn sorted_positions(
    documents: &[Value],
    sorting: &[Sort],
    first: Option<usize>,
) -> Result<Vec<usize>> {
    check_documents(documents)?;
    let keys = effective_keys(sorting);
    Ok(Columns::read(&keys, documents).order(first))
}

/// A sorted copy of `documents` (stable; the default order after the keys).
pub fn sort_documents(documents: &[Value], sorting: &[Sort]) -> Result<Vec<Value>> {
    let order = sorted_positions(documents, sorting, None)?;
    Ok(order
        .into_iter()
        .filter_map(|position| documents.get(position).cloned())
        .collect())
}
