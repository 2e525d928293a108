//! Lists and documents as text: where each document of a list response is,
//! and the few values of a document that the engine reads (its id, revision,
//! content type and sort values), found by the scanner without building
//! anything else. Repeated keys are read as `JSON.parse` reads them: the
//! last one counts.
//!
//! ```
//! use content_repo::engine::list::{frame, Shape};
//!
//! let text = r#"{"data": [{"meta": {"id": "1"}}, {"meta": {"id": "2"}}], "meta": {"total": 2}}"#;
//! let Shape::Envelope { documents, .. } = frame(text)? else { panic!() };
//! assert_eq!(&text[documents[1].clone()], r#"{"meta": {"id": "2"}}"#);
//! # Ok::<(), content_repo::json::Syntax>(())
//! ```

use crate::hash::Map;
use std::ops::Range;

use crate::json::{self, number, skip_space, Syntax};
use crate::query::sort::Scope;

/// One entry of an object, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The decoded key (WTF-8).
    pub name: Vec<u8>,
    /// The key as written, quotes included.
    pub key: Range<usize>,
    /// The value as written.
    pub value: Range<usize>,
}

/// What a JSON text holds, for the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// An array of values (documents, for a list).
    Array(Vec<Range<usize>>),
    /// A list envelope: an object with a `data` array and no `fields`
    /// object (a document's).
    /// `entries` are its entries in `JSON.parse` order (a repeated key at
    /// its first position with its last value), `data` among them.
    Envelope {
        /// The elements of `data`.
        documents: Vec<Range<usize>>,
        /// Every entry of the envelope.
        entries: Vec<Entry>,
    },
    /// Any other object (one document).
    Object,
    /// A string, number, boolean or `null`.
    Scalar,
}

/// The element ranges of the array at `start` (a `[`) and the index after
/// it; the array is `levels` deep (itself included), which the depth limit
/// of its elements counts.
fn elements(
    bytes: &[u8],
    start: usize,
    levels: usize,
    each: Each<'_>,
) -> Result<(Vec<Range<usize>>, usize), Syntax> {
    let mut out = Vec::new();
    let mut index = skip_space(bytes, start + 1);
    if bytes.get(index) == Some(&b']') {
        return Ok((out, index + 1));
    }
    loop {
        let value = skip_space(bytes, index);
        let end = each(bytes, value, levels)?;
        out.push(value..end);
        index = skip_space(bytes, end);
        match bytes.get(index) {
            Some(b',') => index += 1,
            Some(b']') => return Ok((out, index + 1)),
            _ => return json::syntax(index, "',' or ']'"),
        }
    }
}

/// Reads the entries of the object at `start` (a `{`), calling `each` for
/// every entry as written (repeats included) with its value's start; `each`
/// returns the index after the value. Returns the index after the object.
pub(crate) fn entries(
    bytes: &[u8],
    start: usize,
    each: impl FnMut(&[u8], Range<usize>, usize) -> Result<usize, Syntax>,
) -> Result<usize, Syntax> {
    entries_in(bytes, start, true, each)
}

/// [`entries`], with the keys checked (`check`) or read as in text
/// already checked ([`json::valid_key`]).
fn entries_in(
    bytes: &[u8],
    start: usize,
    check: bool,
    mut each: impl FnMut(&[u8], Range<usize>, usize) -> Result<usize, Syntax>,
) -> Result<usize, Syntax> {
    let mut index = skip_space(bytes, start + 1);
    if bytes.get(index) == Some(&b'}') {
        return Ok(index + 1);
    }
    let mut scratch = Vec::new();
    loop {
        let (key_start, key_end, escaped, after) = json::key_as(bytes, index, check)?;
        // A key without escapes is read in place (no allocation per key).
        let name = json::string_bytes(bytes, key_start, key_end, escaped, &mut scratch);
        let value = skip_space(bytes, after);
        let end = each(name, key_start..key_end, value)?;
        index = skip_space(bytes, end);
        match bytes.get(index) {
            Some(b',') => index += 1,
            Some(b'}') => return Ok(index + 1),
            _ => return json::syntax(index, "',' or '}'"),
        }
    }
}

/// Reads the document that starts at `start` inside `levels` open
/// containers, checked as [`json::value_end_within`] checks it; returns the
/// index after it.
pub(crate) type Each<'a> = &'a mut dyn FnMut(&[u8], usize, usize) -> Result<usize, Syntax>;

/// Frames a JSON text (checked to be exactly one JSON value).
pub fn frame(text: &str) -> Result<Shape, Syntax> {
    frame_with(text, &mut |bytes, start, levels| {
        json::value_end_within(bytes, start, levels)
    })
}

/// [`frame`] of text already checked (a body that passed
/// [`crate::http::response::check`], an answer of the cache): the documents
/// are skipped with [`json::valid_value_end`], not checked again. On JSON
/// it frames as [`frame`] does; on other text, some ranges within it or an
/// error, never a panic.
pub fn frame_valid(text: &str) -> Result<Shape, Syntax> {
    frame_with(text, &mut |bytes, start, _| {
        json::value_end_as(bytes, start, None)
    })
}

/// [`frame`], reading each document (each element of an array, or of a list
/// envelope's `data`) with `each`: one pass over the text frames it and
/// reads what the caller needs of its documents.
pub(crate) fn frame_with(text: &str, each: Each<'_>) -> Result<Shape, Syntax> {
    let bytes = text.as_bytes();
    let start = skip_space(bytes, 0);
    let (shape, end) = match bytes.get(start) {
        Some(b'[') => {
            let (documents, end) = elements(bytes, start, 1, each)?;
            (Shape::Array(documents), end)
        }
        Some(b'{') => {
            let mut list: Vec<Entry> = Vec::new();
            // The position of each name in `list`: a lookup per entry, so
            // that an object of many keys is framed in linear time.
            let mut positions: Map<Vec<u8>, usize> = Map::default();
            let mut data: Option<Vec<Range<usize>>> = None;
            let end = entries(bytes, start, |name, key, value| {
                let (elements, end) = match (name, bytes.get(value)) {
                    (b"data", Some(b'[')) => {
                        let (found, end) = elements(bytes, value, 2, &mut *each)?;
                        (Some(found), end)
                    }
                    _ => (None, json::value_end_within(bytes, value, 1)?),
                };
                if name == b"data" {
                    data = elements;
                }
                match positions.get(name).and_then(|at| list.get_mut(*at)) {
                    Some(entry) => entry.value = value..end,
                    None => {
                        positions.insert(name.to_vec(), list.len());
                        list.push(Entry {
                            name: name.to_vec(),
                            key,
                            value: value..end,
                        });
                    }
                }
                Ok(end)
            })?;
            // (A document's `fields` is an object: any other `fields` is
            // an extra key of an envelope.)
            let has_fields = list.iter().any(|entry| {
                entry.name == b"fields" && bytes.get(entry.value.start) == Some(&b'{')
            });
            match data {
                Some(documents) if !has_fields => (
                    Shape::Envelope {
                        documents,
                        entries: list,
                    },
                    end,
                ),
                _ => (Shape::Object, end),
            }
        }
        _ => (Shape::Scalar, json::value_end(bytes, start)?),
    };
    let rest = skip_space(bytes, end);
    if rest != bytes.len() {
        return json::syntax(rest, "the end of the text");
    }
    Ok(shape)
}

/// What [`probe`] finds in a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Probe {
    /// Whether the document is an object.
    pub is_object: bool,
    /// The value of each requested `meta` key (`None` when missing, or when
    /// `meta` is not an object).
    pub meta: Vec<Option<Range<usize>>>,
    /// The value of each requested `fields` key, likewise.
    pub fields: Vec<Option<Range<usize>>>,
}

impl Probe {
    /// The value found for the requested `meta` key at `position`.
    pub(crate) fn meta(&self, position: usize) -> Option<Range<usize>> {
        self.meta.get(position).cloned().flatten()
    }

    /// The value found for the requested key at `position` of `scope`.
    pub(crate) fn value(&self, scope: Scope, position: usize) -> Option<Range<usize>> {
        match scope {
            Scope::Meta => self.meta(position),
            Scope::Fields => self.fields.get(position).cloned().flatten(),
        }
    }
}

/// A document's `meta.id` (the value at `value` of `bytes`) as the store
/// keys documents: a string decoded (WTF-8), a number as written (SPEC §2
/// compares numeric ids as decimals of any length, never through `f64`);
/// `None` for any other value, which is no id.
pub(crate) fn id_at(
    bytes: &[u8],
    value: Range<usize>,
    scratch: &mut Vec<u8>,
) -> Result<Option<Vec<u8>>, Syntax> {
    match bytes.get(value.start) {
        Some(b'"') => Ok(Some(
            json::string_at(bytes, value.start, scratch)?.0.to_vec(),
        )),
        Some(b'-' | b'0'..=b'9') => Ok(Some(bytes.get(value).unwrap_or_default().to_vec())),
        _ => Ok(None),
    }
}

/// The order key of a numeric `meta.revision` (the value at `value` of
/// `bytes`); `None` for any other value, which counts as no revision.
pub(crate) fn revision_at(bytes: &[u8], value: Range<usize>) -> Option<Box<[u8]>> {
    if !matches!(bytes.get(value.start), Some(b'-' | b'0'..=b'9')) {
        return None;
    }
    let mut key = Vec::new();
    number::encode(bytes.get(value).unwrap_or_default(), &mut key);
    Some(key.into_boxed_slice())
}

/// The values of the `meta` keys `meta_names` and the `fields` keys
/// `field_names` of the document at `range` of `bytes` (checked as JSON).
pub fn probe(
    bytes: &[u8],
    range: Range<usize>,
    meta_names: &[&str],
    field_names: &[&str],
) -> Result<Probe, Syntax> {
    probe_within(bytes, range.start, Some(0), meta_names, field_names).map(|(probe, _)| probe)
}

/// [`probe`] of a document in text already checked (a stored document,
/// validated when it was stored): keys and values are skipped with
/// [`json::valid_key`] and [`json::valid_value_end`], nothing is checked
/// again. On JSON it finds what [`probe`] finds; on other text, some
/// ranges within `bytes` or an error, never a panic.
pub fn probe_valid(
    bytes: &[u8],
    range: Range<usize>,
    meta_names: &[&str],
    field_names: &[&str],
) -> Result<Probe, Syntax> {
    probe_within(bytes, range.start, None, meta_names, field_names).map(|(probe, _)| probe)
}

/// [`probe`] of the document at `start` inside `levels` open containers,
/// checked exactly as [`json::value_end_within`] checks it (depth
/// included), or, with `levels` `None`, read as text already checked
/// ([`probe_valid`]); also returns the index after the document.
pub(crate) fn probe_within(
    bytes: &[u8],
    start: usize,
    levels: Option<usize>,
    meta_names: &[&str],
    field_names: &[&str],
) -> Result<(Probe, usize), Syntax> {
    let start = skip_space(bytes, start);
    let mut probe = Probe {
        is_object: bytes.get(start) == Some(&b'{'),
        meta: vec![None; meta_names.len()],
        fields: vec![None; field_names.len()],
    };
    // The end of the value at `at`, `inner` levels inside the document.
    let skip = |at: usize, inner: usize| json::value_end_as(bytes, at, levels.map(|l| l + inner));
    if !probe.is_object {
        return Ok((probe, skip(start, 0)?));
    }
    // A non-empty object counts one level for what it holds, as in
    // `value_end_within`.
    let open = |at: usize, inner: usize| {
        let next = skip_space(bytes, at + 1);
        let deep = levels.is_some_and(|levels| levels + inner >= json::MAX_DEPTH);
        if bytes.get(next) != Some(&b'}') && deep {
            return json::syntax(at, "at most 100000 levels of nesting");
        }
        Ok(())
    };
    let check = levels.is_some();
    open(start, 0)?;
    let end = entries_in(bytes, start, check, |name, _, value| {
        let (names, found) = match name {
            b"meta" => (meta_names, &mut probe.meta),
            b"fields" => (field_names, &mut probe.fields),
            _ => return skip(value, 1),
        };
        // A later `meta` or `fields` replaces an earlier one whole.
        found.fill(None);
        if bytes.get(value) != Some(&b'{') {
            return skip(value, 1);
        }
        open(value, 1)?;
        entries_in(bytes, value, check, |key, _, at| {
            let end = skip(at, 2)?;
            if let Some(position) = names.iter().position(|known| known.as_bytes() == key) {
                if let Some(slot) = found.get_mut(position) {
                    *slot = Some(at..end);
                }
            }
            Ok(end)
        })
    })?;
    Ok((probe, end))
}

/// `total` of a list envelope's `meta` object at `start`, when it is a
/// whole number.
pub(crate) fn envelope_total(bytes: &[u8], start: usize) -> Option<u64> {
    if bytes.get(start) != Some(&b'{') {
        return None;
    }
    let mut total = None;
    entries(bytes, start, |name, _, value| {
        let end = json::value_end(bytes, value)?;
        if name == b"total" {
            total = std::str::from_utf8(bytes.get(value..end).unwrap_or_default())
                .ok()
                .and_then(|text| text.parse::<u64>().ok());
        }
        Ok(end)
    })
    .ok()?;
    total
}
