//! Sorting (SPEC.md section 2): the keys in turn, each value read once into
//! its order key ([`super::order`]); missing and `null` last in both
//! directions; the default order as the final tie-break, then the input
//! position (stable). When only a page is needed, only that page is put in
//! order.
//!
//! ```
//! use content_repo::engine::sort::sort_list;
//! use content_repo::Sort;
//!
//! let list = r#"[{"fields": {"price": 5}, "meta": {"id": "1"}},
//!                {"fields": {"price": null}, "meta": {"id": "2"}},
//!                {"fields": {"price": 9}, "meta": {"id": "3"}}]"#;
//! let order = sort_list(list, &[Sort::parse("fields.price", "DESC")?], None)?;
//! assert_eq!(order, [2, 0, 1]); // null last, also descending
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::cmp::Ordering;
use std::ops::Range;

use super::list::{frame, probe, probe_valid, probe_within, Entry, Probe, Shape};
use super::order::sort_key_at;
use crate::error::{Error, Result};
use crate::json::Syntax;
use crate::query::sort::{Direction, FieldKey, Scope, Sort};

/// A sort value's order key; `None` for missing and `null` (last in both
/// directions).
pub(crate) type SortKey = Option<Box<[u8]>>;

/// Whether `key` is `meta.id`, which has its own order.
pub(crate) fn is_id(key: &FieldKey) -> bool {
    key.scope == Scope::Meta && key.name == "id"
}

/// The default order, also the final tie-break: `meta.createdAt`
/// descending, then `meta.id` descending.
fn default_order() -> [(FieldKey, Direction); 2] {
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
    let defaults = default_order();
    for (key, direction) in sorting
        .iter()
        .map(|sort| (sort.key.clone(), sort.direction))
        .chain(defaults)
    {
        if !keys.iter().any(|(known, _)| *known == key) {
            keys.push((key, direction));
        }
    }
    keys
}

/// The order of two keys under a direction: missing last in both.
pub(crate) fn compare_keys(a: &SortKey, b: &SortKey, direction: Direction) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => match direction {
            Direction::Asc => x.cmp(y),
            Direction::Desc => y.cmp(x),
        },
    }
}

/// Compares two rows of keys, key by key.
fn compare_rows(a: &[SortKey], b: &[SortKey], directions: &[Direction]) -> Ordering {
    for ((x, y), direction) in a.iter().zip(b).zip(directions) {
        let order = compare_keys(x, y, *direction);
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// How to read the sort values of `keys` from documents with one
/// [`probe`] each: the `meta` and `fields` names to ask for (after any
/// `meta` names the caller reads as well), and where each key's value is.
pub(crate) struct KeyReader<'a> {
    meta: Vec<&'a str>,
    fields: Vec<&'a str>,
    /// For each key: its scope, its position among that scope's names, and
    /// whether it is `meta.id`.
    places: Vec<(Scope, usize, bool)>,
}

impl<'a> KeyReader<'a> {
    /// A reader of `keys`, whose probes also read the `meta` names `meta`
    /// (at their positions, before the keys' own).
    pub(crate) fn new(meta: &[&'a str], keys: &'a [FieldKey]) -> Self {
        let mut reader = KeyReader {
            meta: meta.to_vec(),
            fields: Vec::new(),
            places: Vec::with_capacity(keys.len()),
        };
        for key in keys {
            let names = match key.scope {
                Scope::Meta => &mut reader.meta,
                Scope::Fields => &mut reader.fields,
            };
            let position = match names.iter().position(|name| *name == key.name) {
                Some(position) => position,
                None => {
                    names.push(key.name.as_str());
                    names.len() - 1
                }
            };
            reader.places.push((key.scope, position, is_id(key)));
        }
        reader
    }

    /// [`Self::probe`] of the document at `start` inside `levels` open
    /// containers (checked as JSON; `None`: text already checked, read
    /// without checking it again), and the index after it.
    pub(crate) fn probe_within(
        &self,
        bytes: &[u8],
        start: usize,
        levels: Option<usize>,
    ) -> Result<(Probe, usize), Syntax> {
        probe_within(bytes, start, levels, &self.meta, &self.fields)
    }

    /// Probes the document at `range` of `bytes` for every name.
    pub(crate) fn probe(&self, bytes: &[u8], range: Range<usize>) -> Result<Probe, Syntax> {
        probe(bytes, range, &self.meta, &self.fields)
    }

    /// The sort keys, in the order of the keys, from what [`Self::probe`]
    /// found in a document of `bytes`.
    pub(crate) fn keys(&self, bytes: &[u8], found: &Probe) -> Result<Vec<SortKey>, Syntax> {
        let mut keys = Vec::with_capacity(self.places.len());
        for (scope, position, id) in &self.places {
            keys.push(match found.value(*scope, *position) {
                Some(value) => sort_key_at(bytes, value.start, *id)?.map(Vec::into_boxed_slice),
                None => None,
            });
        }
        Ok(keys)
    }

    /// The sort keys read from a stored document (text already checked:
    /// [`probe_valid`]).
    pub(crate) fn stored_keys(&self, bytes: &[u8]) -> Result<Vec<SortKey>, Syntax> {
        let found = probe_valid(bytes, 0..bytes.len(), &self.meta, &self.fields)?;
        self.keys(bytes, &found)
    }
}

/// The positions `0..rows.len()` in sorted order (ties by position:
/// stable). With `first = Some(n)`, only the first `n` positions, found by
/// a partial selection rather than a full sort.
pub fn order_rows(
    rows: &[Vec<SortKey>],
    directions: &[Direction],
    first: Option<usize>,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut compare = |a: &usize, b: &usize| {
        match (rows.get(*a), rows.get(*b)) {
            (Some(x), Some(y)) => compare_rows(x, y, directions),
            _ => Ordering::Equal,
        }
        .then(a.cmp(b))
    };
    match first {
        Some(count) => crate::sort::select_first(&mut order, count, &mut compare),
        None => crate::sort::sort_by(&mut order, &mut compare),
    }
    order
}

/// The error for a list element that is not a document.
pub(crate) fn not_a_document(index: usize) -> Error {
    Error::invalid_argument(format!(
        "documents[{index}] is not a document: expected an object {{ fields, meta }}"
    ))
}

/// The documents and the entries of a list text: an array of documents
/// (no entries) or a list envelope; `invalid_argument` for anything else.
pub(crate) fn list_parts(text: &str) -> Result<(Vec<Range<usize>>, Vec<Entry>)> {
    match frame(text).map_err(|error| invalid_json(&error))? {
        Shape::Array(documents) => Ok((documents, Vec::new())),
        Shape::Envelope { documents, entries } => Ok((documents, entries)),
        _ => Err(Error::invalid_argument(
            "expected a list: an array of documents or an object { data: Document[] }",
        )),
    }
}

/// The document ranges of a list text: an array of documents or a list
/// envelope (`invalid_argument` otherwise).
pub(crate) fn list_documents(text: &str) -> Result<Vec<Range<usize>>> {
    list_parts(text).map(|(documents, _)| documents)
}

pub(crate) fn invalid_json(error: &Syntax) -> Error {
    Error::invalid_argument(format!("not valid JSON: {error}"))
}

/// The rows of sort keys of `documents` (ranges of `text`) for `keys`;
/// every document must be an object.
pub(crate) fn read_rows(
    text: &str,
    documents: &[Range<usize>],
    keys: &[FieldKey],
) -> Result<Vec<Vec<SortKey>>> {
    let bytes = text.as_bytes();
    let reader = KeyReader::new(&[], keys);
    documents
        .iter()
        .enumerate()
        .map(|(index, range)| {
            if bytes.get(range.start) != Some(&b'{') {
                return Err(not_a_document(index));
            }
            reader
                .probe(bytes, range.clone())
                .and_then(|found| reader.keys(bytes, &found))
                .map_err(|error| invalid_json(&error))
        })
        .collect()
}

/// The positions of the documents of a list text in the order of
/// `sorting` (see [`order_rows`] for `first`).
pub fn sort_list(text: &str, sorting: &[Sort], first: Option<usize>) -> Result<Vec<usize>> {
    let documents = list_documents(text)?;
    let keys = effective_keys(sorting);
    let names: Vec<FieldKey> = keys.iter().map(|(key, _)| key.clone()).collect();
    let directions: Vec<Direction> = keys.iter().map(|(_, direction)| *direction).collect();
    let rows = read_rows(text, &documents, &names)?;
    Ok(order_rows(&rows, &directions, first))
}

/// The rows of sort keys in the text of an array of rows, each an array of
/// values, one per key (`null` for a missing value); `ids[k]` says whether
/// key `k` is `meta.id`.
pub fn read_value_rows(text: &str, ids: &[bool]) -> Result<Vec<Vec<SortKey>>> {
    let bytes = text.as_bytes();
    let Shape::Array(rows) = frame(text).map_err(|error| invalid_json(&error))? else {
        return Err(Error::invalid_argument("the sort keys could not be read"));
    };
    // Loops rather than nested `collect`s into `Result`: the same first
    // error, without an iterator adapter per level in the module.
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let values = match bytes.get(row.start) {
            Some(b'[') => row_values(bytes, row.start).map_err(|error| invalid_json(&error))?,
            _ => return Err(Error::invalid_argument("the sort keys could not be read")),
        };
        let mut keys = Vec::with_capacity(values.len().min(ids.len()));
        for (start, id) in values.into_iter().zip(ids) {
            let key = sort_key_at(bytes, start, *id).map_err(|error| invalid_json(&error))?;
            keys.push(key.map(Vec::into_boxed_slice));
        }
        out.push(keys);
    }
    Ok(out)
}

/// The start of each element of the (valid) array at `start`.
fn row_values(bytes: &[u8], start: usize) -> Result<Vec<usize>, Syntax> {
    let mut starts = Vec::new();
    let mut index = crate::json::skip_space(bytes, start + 1);
    if bytes.get(index) == Some(&b']') {
        return Ok(starts);
    }
    loop {
        let value = crate::json::skip_space(bytes, index);
        starts.push(value);
        index = crate::json::skip_space(bytes, crate::json::value_end(bytes, value)?);
        match bytes.get(index) {
            Some(b',') => index += 1,
            _ => return Ok(starts),
        }
    }
}
