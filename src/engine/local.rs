//! `sortDocuments`, `selectFields` and `applyQuery` on documents that live
//! in JavaScript, sans IO: what `src/js/local.js` is asked to write (the
//! sort keys' paths; a page's documents), what its answers mean (JSON text,
//! or the position of an element that is not a document), and the engine's
//! work on that text. The boundary only calls local.js and converts.
//!
//! ```
//! use content_repo::args::Arg;
//! use content_repo::engine::local::LocalSort;
//! use content_repo::{Direction, Query};
//!
//! let mut query = Query::new();
//! query.sort("fields.n", Direction::Asc)?;
//! let sort = LocalSort::new(&query);
//! assert_eq!(sort.paths()[..2], ["fields".to_owned(), "n".to_owned()]);
//! // What local.js wrote: one row of the paths' values per document.
//! let rows = Arg::Text(r#"[[2,null,null],[1,null,null]]"#.into());
//! assert_eq!(sort.order(&rows)?, [1, 0]);
//! # Ok::<(), content_repo::Error>(())
//! ```

use super::apply::page_bounds;
use super::sort::{effective_keys, is_id, not_a_document, order_rows, read_value_rows, SortKey};
use crate::args::Arg;
use crate::error::{Error, Result};
use crate::num::{u32_from_usize, usize_from_f64};
use crate::query::selection::Selection;
use crate::query::sort::{Direction, FieldKey};
use crate::query::Query;

/// The sorting of a query (its keys, then the default order) over
/// documents in JavaScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSort {
    keys: Vec<(FieldKey, Direction)>,
}

impl LocalSort {
    /// The sorting of `query` (its other parameters are ignored).
    pub fn new(query: &Query) -> Self {
        LocalSort {
            keys: effective_keys(query.sorting()),
        }
    }

    /// The paths of the sort keys, flat: scope, then name, of each key in
    /// turn (what local.js's `sortRows` reads of each document).
    pub fn paths(&self) -> Vec<String> {
        let path = |key: &FieldKey| [key.scope.as_str().to_owned(), key.name.clone()];
        self.keys.iter().flat_map(|(key, _)| path(key)).collect()
    }

    /// The rows `sortRows` wrote: JSON text of one row of values per
    /// document, or the position of the first element that is not one.
    fn rows(&self, written: &Arg) -> Result<Vec<Vec<SortKey>>> {
        match written {
            Arg::Number(index) => Err(not_a_document(usize_from_f64(*index))),
            Arg::Text(text) => {
                let ids: Vec<bool> = self.keys.iter().map(|(key, _)| is_id(key)).collect();
                read_value_rows(text, &ids)
            }
            _ => Err(Error::invalid_argument("the sort keys could not be read")),
        }
    }

    fn directions(&self) -> Vec<Direction> {
        self.keys.iter().map(|(_, direction)| *direction).collect()
    }

    /// The positions of the documents in sorted order, from the rows
    /// `sortRows` wrote (`sortDocuments`).
    pub fn order(&self, rows: &Arg) -> Result<Vec<u32>> {
        let order = order_rows(&self.rows(rows)?, &self.directions(), None);
        // Positions in a JavaScript array are below 2^32.
        Ok(order.into_iter().map(u32_from_usize).collect())
    }

    /// The positions of `query`'s page (its `offset` and `limit`, 25 by
    /// default), in order, and the number of documents (`applyQuery`).
    pub fn page(&self, query: &Query, rows: &Arg) -> Result<(Vec<u32>, usize)> {
        let rows = self.rows(rows)?;
        let total = rows.len();
        let (offset, count) = page_bounds(query, total);
        let order = order_rows(&rows, &self.directions(), Some(offset + count));
        let page = order.into_iter().skip(offset).map(u32_from_usize).collect();
        Ok((page, total))
    }
}

/// The JSON text local.js's `listJson` wrote, or the error of the position
/// it gave instead: of an element that is not a document, or `-1` when the
/// value (`described`) is neither a document nor a list.
pub fn list_text(written: Arg, described: impl FnOnce() -> String) -> Result<String> {
    match written {
        Arg::Text(text) => Ok(text),
        Arg::Number(index) if index < 0.0 => Err(not_a_document_or_list(&described())),
        Arg::Number(index) => Err(not_a_document(usize_from_f64(index))),
        _ => Err(Error::invalid_argument("the documents could not be read")),
    }
}

/// The selection of `selectFields` (`None` for `*`, which returns the input
/// as it is), after checking both arguments: `target` is whether the
/// document or list is an object, `described` names it.
pub fn selection(
    selection: &Arg,
    target: bool,
    described: impl FnOnce() -> String,
) -> Result<Option<Selection>> {
    let text = selection.as_text().ok_or_else(|| {
        Error::invalid_argument(format!(
            "the selection must be a string such as \"title, author/name\", got {}",
            crate::args::describe(selection)
        ))
    })?;
    let selection = Selection::parse(text)?;
    if !target {
        return Err(not_a_document_or_list(&described()));
    }
    Ok((selection != Selection::All).then_some(selection))
}

/// The error for a value that is not a list of documents (`described`).
pub fn not_a_list(described: &str) -> Error {
    Error::invalid_argument(format!(
        "expected a list: an array of documents or {{ data: Document[] }}, got {described}"
    ))
}

/// The error of `sortDocuments` for a value that is not an array of
/// documents (`described`; a list envelope too: `applyQuery` sorts one).
pub fn not_an_array(described: &str) -> Error {
    Error::invalid_argument(format!("expected an array of documents, got {described}"))
}

/// The error for a value that is neither a document nor a list of
/// documents (`described`).
pub fn not_a_document_or_list(described: &str) -> Error {
    Error::invalid_argument(format!(
        "expected a document or a list of documents, got {described}"
    ))
}

/// The error for documents that `JSON.stringify` refused (`reason`: its
/// message).
pub fn not_serializable(reason: &str) -> Error {
    Error::invalid_argument(format!("documents must be JSON values ({reason})"))
}
