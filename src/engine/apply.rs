//! A whole [`Query`] over a list's text: sorting, then `offset` and
//! `limit`, then the field selection, in the service's order.
//!
//! Like the service, a query without `limit` returns a page of
//! [`SERVICE_DEFAULT_LIMIT`] (25) documents, so that the same query gives the
//! same answer locally as online.
//!
//! ```
//! use content_repo::engine::apply::apply_query;
//! use content_repo::{Direction, Query};
//!
//! let list = r#"{"data": [
//!     {"fields": {"n": 2}, "meta": {"id": "1"}},
//!     {"fields": {"n": 1}, "meta": {"id": "2"}},
//!     {"fields": {"n": 3}, "meta": {"id": "3"}}
//! ]}"#;
//! let mut query = Query::new();
//! query.sort("fields.n", Direction::Asc)?.fields("meta(id)")?.limit(2)?;
//! assert_eq!(
//!     apply_query(list, &query)?,
//!     r#"{"data":[{"meta":{"id":"2"}},{"meta":{"id":"1"}}],"meta":{"count":2,"limit":2,"offset":0,"total":3}}"#
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::ops::Range;

use super::list::{frame, Entry, Shape};
use super::select::{write_includes, write_valid_ascii, Plan};
use super::sort::{
    effective_keys, invalid_json, list_parts, not_a_document, order_rows, read_rows,
};
use crate::error::{Error, Result};
use crate::query::selection::Selection;
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
    let limit = usize::try_from(effective_limit(query)).unwrap_or(usize::MAX);
    (offset, limit.min(total - offset))
}

/// Appends the list envelope's `meta`, `{count, limit, offset, total}`, as
/// the service writes it.
fn write_page_meta(out: &mut Vec<u8>, query: &Query, count: usize, total: usize) {
    out.extend_from_slice(
        format!(
            r#"{{"count":{count},"limit":{},"offset":{},"total":{total}}}"#,
            effective_limit(query),
            query.get_offset().unwrap_or(0)
        )
        .as_bytes(),
    );
}

fn utf8(out: Vec<u8>) -> Result<String> {
    String::from_utf8(out).map_err(|_| Error::invalid_argument("the result is not UTF-8"))
}

fn slice(text: &str, range: Range<usize>) -> &str {
    text.get(range).unwrap_or("null")
}

/// The text of the document at `position` of a list's `documents`
/// (ranges of `text`); `invalid_argument` when it is not an object.
fn document<'t>(text: &'t str, documents: &[Range<usize>], position: usize) -> Result<&'t [u8]> {
    let range = documents.get(position).cloned().unwrap_or(0..0);
    if text.as_bytes().get(range.start) != Some(&b'{') {
        return Err(not_a_document(position));
    }
    Ok(text.as_bytes().get(range).unwrap_or_default())
}

/// Appends `documents` (their texts, in order, checked JSON: framed or
/// stored), each selected by `plan`, as a JSON array.
fn write_documents<'t>(
    out: &mut Vec<u8>,
    documents: impl Iterator<Item = Result<&'t [u8]>>,
    plan: &Plan,
) -> Result<()> {
    let mut scratch = Vec::new();
    write_array(out, documents, |out, document| {
        write_valid_ascii(document?, plan, out, &mut scratch)
    })
}

/// Appends `items` as a JSON array, each written by `write`.
fn write_array<T>(
    out: &mut Vec<u8>,
    items: impl Iterator<Item = T>,
    mut write: impl FnMut(&mut Vec<u8>, T) -> Result<()>,
) -> Result<()> {
    out.push(b'[');
    for (count, item) in items.enumerate() {
        if count > 0 {
            out.push(b',');
        }
        write(out, item)?;
    }
    out.push(b']');
    Ok(())
}

/// Appends the start of a page's list envelope as the service writes it,
/// `{"data":[...],"meta":{"count":..,"limit":..,"offset":..,"total":..}`:
/// the page's documents (`count` of them, out of `total`), each written by
/// `write` (the selected text of the document). The caller adds any other
/// entries and the closing `}`.
pub(crate) fn open_envelope<T>(
    out: &mut Vec<u8>,
    documents: impl Iterator<Item = T>,
    write: impl FnMut(&mut Vec<u8>, T) -> Result<()>,
    query: &Query,
    count: usize,
    total: usize,
) -> Result<()> {
    out.extend_from_slice(b"{\"data\":");
    write_array(out, documents, write)?;
    out.extend_from_slice(b",\"meta\":");
    write_page_meta(out, query, count, total);
    Ok(())
}

/// Appends an envelope's entries other than `skip`: `includes` selected by
/// the plan (left out when nothing of it is), the others as written.
fn write_rest(
    out: &mut Vec<u8>,
    text: &str,
    entries: &[Entry],
    skip: &[&[u8]],
    plan: &Plan,
) -> Result<()> {
    for entry in entries {
        if skip.contains(&entry.name.as_slice()) {
            continue;
        }
        let mark = out.len();
        out.push(b',');
        out.extend_from_slice(slice(text, entry.key.clone()).as_bytes());
        out.push(b':');
        let value = slice(text, entry.value.clone());
        let kept = if entry.name == b"includes" {
            write_includes(value, plan, out)?
        } else {
            out.extend_from_slice(value.as_bytes());
            true
        };
        if !kept {
            out.truncate(mark);
        }
    }
    Ok(())
}

/// Whether a list's entries, `includes` aside, are `data` then maybe
/// `meta`: the order its answers are written in without a template.
pub(crate) fn plain(entries: &[Entry]) -> bool {
    let mut expected = [&b"data"[..], b"meta"].into_iter();
    (entries.iter())
        .filter(|entry| entry.name != b"includes")
        .all(|entry| expected.next() == Some(entry.name.as_slice()))
}

/// The list envelope of the documents at `positions` of a list text
/// (its `documents` and `entries`, from [`list_parts`]), `count` of them out of
/// `total`, selected by the query's selection: the list's entries in its
/// order (`includes` selected), with the page's `data` and `meta` (last when
/// the list has none).
fn envelope(
    text: &str,
    documents: &[Range<usize>],
    entries: &[Entry],
    positions: impl Iterator<Item = usize>,
    query: &Query,
    count: usize,
    total: usize,
) -> Result<String> {
    let plan = Plan::compile(query.selection().unwrap_or(&Selection::All))?;
    let mut out = Vec::with_capacity(64 + count * 256);
    let page = positions.map(|position| document(text, documents, position));
    let mut scratch = Vec::new();
    let write = |out: &mut Vec<u8>, document: Result<&[u8]>| {
        write_valid_ascii(document?, &plan, out, &mut scratch)
    };
    if entries.is_empty() {
        open_envelope(&mut out, page, write, query, count, total)?;
        out.push(b'}');
        return utf8(out);
    }
    // The entries in order, each after a comma (the first one dropped).
    out.push(b'{');
    let mut page = Some((page, write));
    for entry in entries {
        match entry.name.as_slice() {
            b"data" => {
                if let Some((page, write)) = page.take() {
                    out.extend_from_slice(b",\"data\":");
                    write_array(&mut out, page, write)?;
                }
            }
            b"meta" => {
                out.extend_from_slice(b",\"meta\":");
                write_page_meta(&mut out, query, count, total);
            }
            _ => write_rest(&mut out, text, std::slice::from_ref(entry), &[], &plan)?,
        }
    }
    if !entries.iter().any(|entry| entry.name == b"meta") {
        out.extend_from_slice(b",\"meta\":");
        write_page_meta(&mut out, query, count, total);
    }
    if out.get(1) == Some(&b',') {
        out.remove(1);
    }
    out.push(b'}');
    utf8(out)
}

/// Applies `query`'s sorting, `offset`, `limit` and selection to a list
/// text (an array of documents or a list envelope), giving the text of a
/// list envelope `{ data, meta: { count, limit, offset, total } }`; an
/// envelope's other keys (such as `includes`) follow (selected by an
/// `includes` item). Filters and the other parameters are not applied
/// locally.
pub fn apply_query(text: &str, query: &Query) -> Result<String> {
    let (documents, entries) = list_parts(text)?;
    let total = documents.len();
    let (offset, count) = page_bounds(query, total);
    let keys = effective_keys(query.sorting());
    let names: Vec<_> = keys.iter().map(|(key, _)| key.clone()).collect();
    let directions: Vec<_> = keys.iter().map(|(_, direction)| *direction).collect();
    let rows = read_rows(text, &documents, &names)?;
    let order = order_rows(&rows, &directions, Some(offset + count));
    let page = order.into_iter().skip(offset);
    envelope(text, &documents, &entries, page, query, count, total)
}

/// The list envelope of a page: `text` is a list (an array of documents or
/// an envelope) holding exactly the page's documents, in order, out of
/// `total`; gives `{ data, meta: { count, limit, offset, total } }` with the
/// query's selection applied and an envelope's other keys after them.
pub fn page_envelope(text: &str, query: &Query, total: usize) -> Result<String> {
    let (documents, entries) = list_parts(text)?;
    let count = documents.len();
    envelope(text, &documents, &entries, 0..count, query, count, total)
}

/// Applies a selection to the text of one document, an array of documents,
/// or a list envelope (each element of `data` as a document, `includes` by
/// the `includes` item, every other key kept as written).
pub fn select_any(text: &str, selection: &Selection) -> Result<String> {
    let plan = Plan::compile(selection)?;
    let mut out = Vec::with_capacity(text.len() / 2);
    match frame(text).map_err(|error| invalid_json(&error))? {
        Shape::Array(documents) => {
            let all = (0..documents.len()).map(|position| document(text, &documents, position));
            write_documents(&mut out, all, &plan)?;
        }
        Shape::Envelope { documents, entries } => {
            out.push(b'{');
            let mut first = true;
            for entry in &entries {
                if entry.name == b"data" {
                    if !first {
                        out.push(b',');
                    }
                    out.extend_from_slice(slice(text, entry.key.clone()).as_bytes());
                    out.push(b':');
                    let all =
                        (0..documents.len()).map(|position| document(text, &documents, position));
                    write_documents(&mut out, all, &plan)?;
                } else {
                    // write_rest starts each entry with a comma.
                    let mark = out.len();
                    write_rest(&mut out, text, std::slice::from_ref(entry), &[], &plan)?;
                    if first && out.len() > mark {
                        out.remove(mark);
                    }
                }
                first = out.len() <= 1;
            }
            out.push(b'}');
        }
        Shape::Object => write_valid_ascii(text.as_bytes(), &plan, &mut out, &mut Vec::new())?,
        Shape::Scalar => {
            return Err(Error::invalid_argument(
                "expected a document, an array of documents or a list { data: Document[] }",
            ))
        }
    }
    utf8(out)
}
