//! The document store: documents by `meta.id` (SPEC.md section 6), with
//! sorted indexes that make repeated queries cheap.
//!
//! - A document is kept as its JSON text: for [`DocumentStore::put_json`],
//!   the list text itself (each document a range of it, never re-encoded).
//!   Only the page a query returns is parsed again.
//! - A write with a lower `meta.revision` never replaces a higher one (a
//!   document without a numeric revision counts as lower than one with; an
//!   equal revision replaces, unless the stored document was fetched with a
//!   wider selection, or with the same one and received later).
//! - Each query's sort keys get an **index**: the values of its keys read
//!   once per document (columns), and the documents in sorted order (a
//!   permutation). Every write updates the indexes it touches before it
//!   returns: the changed documents leave the permutation and re-enter it by
//!   a merge, so the first query after a write is as fast as the ones
//!   before. The [`MAX_INDEXES`] most recently used indexes are kept.
//! - Stable order in the store means insertion order: a replaced document
//!   keeps the position of its first write.
//!
//! ```
//! use content_repo::store::DocumentStore;
//! use content_repo::{Direction, Query};
//!
//! let mut store = DocumentStore::new();
//! store.put_json(r#"{"data": [
//!     {"fields": {"n": 2}, "meta": {"id": "1", "revision": 1, "contentType": "a"}},
//!     {"fields": {"n": 1}, "meta": {"id": "2", "revision": 1, "contentType": "a"}}
//! ]}"#.to_owned())?;
//! // a stale write is ignored
//! store.put_json(r#"[{"fields": {"n": 9}, "meta": {"id": "1", "revision": 0}}]"#.to_owned())?;
//! let mut query = Query::new();
//! query.sort("fields.n", Direction::Asc)?.fields("n")?;
//! assert_eq!(
//!     store.query_json(&query, None)?,
//!     r#"{"data":[{"fields":{"n":1},"meta":{"id": "2", "revision": 1, "contentType": "a"}},{"fields":{"n":2},"meta":{"id": "1", "revision": 1, "contentType": "a"}}],"meta":{"count":2,"limit":25,"offset":0,"total":2}}"#
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

mod projected;
pub mod utf8;

use std::cmp::Ordering;
use std::ops::Range;
use std::rc::Rc;

use serde_json::Value;

use crate::engine::apply::{open_envelope, page_bounds};
use crate::engine::list::{envelope_total, frame_with, id_at, revision_at, Probe, Shape};
use crate::engine::select::{write_valid_ascii, Plan};
use crate::engine::sort::{compare_keys, effective_keys, KeyReader, SortKey};
use crate::error::{Error, Result};
use crate::hash::Map;
use crate::json::{self, Syntax};
use crate::num::u32_from_usize;
use crate::query::selection::Selection;
use crate::query::sort::{Direction, FieldKey, Sort};
use crate::query::Query;
use crate::sort::{sort_by, sorted};
use projected::Projected;

/// How many sort indexes a store keeps (least recently used dropped first).
pub const MAX_INDEXES: usize = 8;

/// How many sort keys an index build compares by integer prefix first.
const PREFIX_KEYS: usize = 3;

/// The bytes of a sort key an index build's prefix word holds.
const PREFIX_BYTES: u8 = 15;

/// The prefix word of a missing sort value (no key's word: their last byte
/// is at most `PREFIX_BYTES + 1`).
const MISSING: u128 = u128::MAX;

/// A document's text: a range of a shared buffer.
#[derive(Debug, Clone)]
struct Text {
    buffer: Rc<String>,
    start: usize,
    end: usize,
}

impl Text {
    fn as_str(&self) -> &str {
        self.buffer.get(self.start..self.end).unwrap_or("null")
    }

    /// [`as_str`](Self::as_str)'s bytes, without reading the text to find
    /// character boundaries (one memory access less per document of a page).
    fn as_bytes(&self) -> &[u8] {
        self.buffer
            .as_bytes()
            .get(self.start..self.end)
            .unwrap_or(b"null")
    }

    fn len(&self) -> usize {
        self.end - self.start
    }
}

#[derive(Debug)]
struct Slot {
    /// The decoded `meta.id` (WTF-8; a number id as written).
    id: Rc<[u8]>,
    /// The order key of a numeric `meta.revision`.
    revision: Option<Box<[u8]>>,
    content_type: Option<Rc<str>>,
    text: Text,
    /// The insertion position: the final tie-break (stability).
    seq: u64,
    /// The selection the document was fetched with (`None`: whole).
    selection: Option<Rc<Selection>>,
    /// When it was received (Unix ms; 0 when unknown).
    fetched_at: f64,
}

#[derive(Debug)]
struct Index {
    sorting: Vec<Sort>,
    keys: Vec<(FieldKey, Direction)>,
    /// Live slots in sorted order.
    order: Vec<u32>,
    used: u64,
}

/// A document read from a write, before it is stored.
#[derive(Debug)]
struct Incoming {
    id: Vec<u8>,
    revision: Option<Box<[u8]>>,
    content_type: Option<String>,
    text: Text,
    values: Vec<SortKey>,
    selection: Option<Rc<Selection>>,
    fetched_at: f64,
}

/// Documents read from a text by [`DocumentStore::prepare`], ready to be
/// committed once the text is safely stored elsewhere.
#[derive(Debug)]
pub(crate) struct Batch {
    incoming: Vec<Incoming>,
    /// `meta.total` of a list envelope's text.
    total: Option<u64>,
    /// The envelope's other keys, when it has some.
    template: Option<Template>,
    /// The store ([`DocumentStore::id`]) and its column layout the sort
    /// values were read for: the offline cache makes a variant's store anew
    /// while a refresh holds a batch read for the old one.
    columns: (u32, u64),
}

impl Batch {
    /// The decoded `meta.id` of each document, in order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = &[u8]> {
        self.incoming.iter().map(|document| document.id.as_slice())
    }

    /// `meta.total` of the list envelope the batch was read from.
    pub(crate) fn total(&self) -> Option<u64> {
        self.total
    }

    /// The [`Template`] of the list envelope the batch was read from, when
    /// it has keys other than `data`, `meta` and `includes`.
    pub(crate) fn template(&self) -> Option<&Template> {
        self.template.as_ref()
    }

    /// Each document's decoded id and the order key of its revision.
    pub(crate) fn revisions(&self) -> impl Iterator<Item = (&[u8], Option<&[u8]>)> {
        self.incoming
            .iter()
            .map(|document| (document.id.as_slice(), document.revision.as_deref()))
    }

    /// How many documents the batch holds.
    pub(crate) fn len(&self) -> usize {
        self.incoming.len()
    }

    /// Leaves out the documents whose id `drop` holds for.
    pub(crate) fn drop_where(&mut self, mut drop: impl FnMut(&[u8]) -> bool) {
        self.incoming.retain(|document| !drop(&document.id));
    }
}

/// A list envelope as answers computed from its list are written (SPEC 4:
/// unknown extra keys are kept): its text with its other keys as written,
/// in order, where the values of `data` and `meta` are the bytes 0 and 1
/// (never in JSON text), written anew; its `includes` (of its page alone)
/// left out.
pub(crate) type Template = Vec<u8>;

/// The [`Template`] of the envelope `entries` of `text`, unless its keys
/// are `data` then maybe `meta` (`includes` aside).
fn template_of(text: &str, entries: &[crate::engine::list::Entry]) -> Option<Template> {
    (!crate::engine::apply::plain(entries)).then(|| markers(text, entries, None))
}

/// An envelope's entries in order, `data` and `meta` as the bytes 0 and 1,
/// the others as written; `includes` as `includes` (when an object) or left
/// out (`None`).
pub(crate) fn markers(
    text: &str,
    entries: &[crate::engine::list::Entry],
    includes: Option<u8>,
) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for entry in entries {
        let value = bytes.get(entry.value.clone()).unwrap_or_default();
        let marker = match entry.name.as_slice() {
            b"data" => Some(0),
            b"meta" => Some(1),
            b"includes" if includes.is_none() => continue,
            b"includes" if value.first() == Some(&b'{') => includes,
            _ => None,
        };
        out.push(if out.is_empty() { b'{' } else { b',' });
        out.extend_from_slice(bytes.get(entry.key.clone()).unwrap_or_default());
        out.push(b':');
        match marker {
            Some(marker) => out.push(marker),
            None => out.extend_from_slice(value),
        }
    }
    out.push(b'}');
    out
}

/// Writes a list answer of the store (`{"data":[...],"meta":{...}}`) as
/// `template` (its `meta` last when it has none).
pub(crate) fn in_template(answer: &str, template: &[u8]) -> String {
    const META: &[u8] = b"],\"meta\":";
    let bytes = answer.as_bytes();
    let mut at = (0..bytes.len()).rev();
    let Some(split) = at.find(|&at| bytes.get(at..at + META.len()) == Some(META)) else {
        return answer.to_owned();
    };
    let data = bytes.get(DATA.len() - 1..=split).unwrap_or_default();
    let meta = bytes
        .get(split + META.len()..bytes.len().saturating_sub(1))
        .unwrap_or_default();
    let mut out = Vec::with_capacity(answer.len() + template.len());
    for &byte in template {
        match byte {
            0 => out.extend_from_slice(data),
            1 => out.extend_from_slice(meta),
            _ => out.push(byte),
        }
    }
    if !template.contains(&1) {
        out.pop();
        out.extend_from_slice(b",\"meta\":");
        out.extend_from_slice(meta);
        out.push(b'}');
    }
    // Whole texts and ASCII joined at their boundaries: UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Where a write came from, for its error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Response text: `decode` errors.
    Text,
    /// JavaScript values: `invalid_argument` errors.
    Argument,
}

impl Origin {
    fn error(self, message: String, text: &str) -> Error {
        match self {
            Origin::Text => Error::decode(message, text),
            Origin::Argument => Error::invalid_argument(message),
        }
    }
}

/// The error for a list element that is not a document with an id.
fn no_id(index: usize, origin: Origin, source: &str) -> Error {
    origin.error(
        format!(
            "documents[{index}] is not a document with an id: expected an object {{ fields, meta: {{ id: string, ... }} }}"
        ),
        source,
    )
}

/// Documents by `meta.id`, with cached sort indexes. See the module docs.
#[derive(Debug, Default)]
pub struct DocumentStore {
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    by_id: Map<Rc<[u8]>, u32>,
    content_types: Map<Rc<str>, usize>,
    next_seq: u64,
    column_keys: Vec<FieldKey>,
    /// One column per key of `column_keys`, one value per slot.
    columns: Vec<Vec<SortKey>>,
    indexes: Vec<Index>,
    clock: u64,
    live_bytes: usize,
    buffer_bytes: usize,
    /// Changes whenever `column_keys` does.
    columns_version: u64,
    /// How many stored documents were fetched with each selection (by its
    /// canonical form; `None`: whole documents).
    selections: Map<Option<String>, (Option<Rc<Selection>>, usize)>,
    /// Whether texts may be copied together when most of them are dead
    /// (off for the offline cache, which tracks its texts itself).
    fixed_buffers: bool,
    /// The selected texts of the latest selection queried.
    projected: Projected,
    /// The latest selection queried, its canonical form and its plan.
    plan: Option<(Selection, String, Plan)>,
    id: StoreId,
}

/// A store's identity, never another store's: what a caller holds the
/// documents of a store under.
#[derive(Debug)]
struct StoreId(u32);

impl Default for StoreId {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        StoreId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// A page of [`DocumentStore::query_page`] for a caller that holds the
/// documents it was delivered, each by its slot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The list envelope (SPEC section 4) with the documents the caller
    /// does not hold, in page order.
    pub text: String,
    /// One word per document of the page, in order: its slot shifted left
    /// by 2, with [`Page::FRESH`] when it is the next document of `text`
    /// and [`Page::KEEP`] when the caller is to hold it (as that slot's
    /// document); without `FRESH`, the caller holds it.
    pub words: Vec<u32>,
    /// For each `KEEP` word, in order, which kept text it was made from: a
    /// delivery counts only while the store keeps that very text.
    pub marks: Vec<u32>,
    /// When it differs from the epoch of the documents the caller holds,
    /// it drops them all first.
    pub epoch: u32,
}

impl Page {
    /// The document is the next one of the text's `data`.
    pub const FRESH: u32 = 1;
    /// The caller is to hold the document.
    pub const KEEP: u32 = 2;
}

/// What [`DocumentStore::answer`] wrote.
struct Answered {
    text: String,
    /// The text for a caller holding documents, when asked apart.
    page: Option<String>,
}

/// Which ids are members of a list.
pub(crate) type Member<'a> = dyn Fn(&[u8]) -> bool + 'a;

/// How a list envelope starts.
const DATA: &[u8] = b"{\"data\":[";

fn utf8_answer(out: Vec<u8>) -> Result<String> {
    String::from_utf8(out).map_err(|error| Error::Decode {
        message: format!("the result is not UTF-8: {error}"),
        excerpt: String::new(),
    })
}

impl DocumentStore {
    /// An empty store.
    pub fn new() -> DocumentStore {
        DocumentStore::default()
    }

    /// This store's identity (never another store's).
    pub fn id(&self) -> u32 {
        self.id.0
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether the store holds no document.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The number of sort indexes currently kept.
    pub fn index_count(&self) -> usize {
        self.indexes.len()
    }

    /// Stores the documents of a list response's text (an envelope with a
    /// `data` array, an array of documents, or one document), parsed one
    /// document at a time. Returns how many documents were written (stale
    /// ones, by `meta.revision`, are not). On any error (`decode`: not JSON,
    /// or not documents with a `meta.id`) the store is unchanged.
    pub fn put_json(&mut self, text: String) -> Result<usize> {
        self.put_text(text, Origin::Text)
    }

    /// [`put_json`](Self::put_json) for text that JavaScript serialized from
    /// its own values: errors are `invalid_argument`.
    pub fn put_serialized(&mut self, text: String) -> Result<usize> {
        self.put_text(text, Origin::Argument)
    }

    /// Stores the documents of a list envelope, an array of documents, or
    /// one document given as a value (`invalid_argument` errors; the store
    /// is then unchanged). Returns how many documents were written.
    pub fn put_value(&mut self, value: &Value) -> Result<usize> {
        self.put_serialized(value.to_string())
    }

    fn put_text(&mut self, text: String, origin: Origin) -> Result<usize> {
        let buffer = Rc::new(text);
        let (incoming, ..) = self.read_text(&buffer, origin, None, 0.0, false)?;
        Ok(self.commit(incoming))
    }

    /// Reads the documents of a response text (as [`put_json`](Self::put_json)
    /// does, `decode` errors) without storing them: `selection` is what they
    /// were fetched with (`None`: whole), `fetched_at` when (Unix ms).
    /// `checked`: the text is known to be JSON (a response that passed
    /// [`crate::http::response::check`]), so its documents are read without
    /// checking them again; text from storage is checked.
    pub(crate) fn prepare(
        &self,
        text: &Rc<String>,
        selection: Option<&Rc<Selection>>,
        fetched_at: f64,
        checked: bool,
    ) -> Result<Batch> {
        let (incoming, total, template) =
            self.read_text(text, Origin::Text, selection, fetched_at, checked)?;
        Ok(Batch {
            incoming,
            total,
            template,
            columns: (self.id(), self.columns_version),
        })
    }

    /// Whether a document of `batch` has a lower `meta.revision` than the
    /// stored one (a late, stale response).
    pub(crate) fn is_stale(&self, batch: &Batch) -> bool {
        batch.incoming.iter().any(|document| {
            self.by_id
                .get(document.id.as_slice())
                .and_then(|slot| self.slots.get(*slot as usize)?.as_ref())
                .is_some_and(|stored| document.revision < stored.revision)
        })
    }

    /// Stores a prepared batch under the write rule; returns how many
    /// documents were written.
    pub(crate) fn commit_batch(&mut self, mut batch: Batch) -> usize {
        if batch.columns != (self.id(), self.columns_version) {
            // Read for another store, or indexes changed since: read its
            // sort values again.
            let reader = KeyReader::new(&[], &self.column_keys);
            for document in &mut batch.incoming {
                document.values = reader
                    .stored_keys(document.text.as_bytes())
                    .unwrap_or_else(|_| vec![None; self.column_keys.len()]);
            }
        }
        self.commit(batch.incoming)
    }

    /// The stored document `id` (decoded bytes): its text, the selection it
    /// was fetched with (`None`: whole) and when it was received.
    pub(crate) fn entry(&self, id: &[u8]) -> Option<(&str, Option<&Selection>, f64)> {
        let stored = self.slots.get(*self.by_id.get(id)? as usize)?.as_ref()?;
        Some((
            stored.text.as_str(),
            stored.selection.as_deref(),
            stored.fetched_at,
        ))
    }

    /// Keeps every document in the text it arrived in: no compaction (the
    /// offline cache tracks which texts are still in use).
    pub(crate) fn keep_buffers(&mut self) {
        self.fixed_buffers = true;
    }

    /// Each stored document's id and the text it is a range of.
    pub(crate) fn documents(&self) -> impl Iterator<Item = (&[u8], *const String)> {
        self.slots
            .iter()
            .flatten()
            .map(|stored| (stored.id.as_ref(), Rc::as_ptr(&stored.text.buffer)))
    }

    /// The distinct selections the stored documents were fetched with
    /// (`None`: whole documents).
    pub(crate) fn selections(&self) -> impl Iterator<Item = Option<&Selection>> {
        self.selections
            .values()
            .filter(|(_, count)| *count > 0)
            .map(|(selection, _)| selection.as_deref())
    }

    fn count_selection(&mut self, selection: Option<&Rc<Selection>>, delta: isize) {
        let key = selection.map(ToString::to_string);
        let entry = self
            .selections
            .entry(key)
            .or_insert_with(|| (selection.cloned(), 0));
        entry.1 = entry.1.saturating_add_signed(delta);
        if entry.1 == 0 {
            let key = selection.map(ToString::to_string);
            self.selections.remove(&key);
        }
    }

    /// The order key of the stored document `id`'s numeric `meta.revision`:
    /// `Some(None)` when it has none, `None` when it is not stored.
    pub(crate) fn revision_of(&self, id: &[u8]) -> Option<Option<&[u8]>> {
        let stored = self.slots.get(*self.by_id.get(id)? as usize)?.as_ref()?;
        Some(stored.revision.as_deref())
    }

    /// Whether a document `id` (decoded bytes) is stored.
    pub(crate) fn contains(&self, id: &[u8]) -> bool {
        self.by_id.contains_key(id)
    }

    /// Reads the documents of a list text, each probed: only what the store
    /// keeps (id, revision, content type, indexed sort keys) is read.
    fn read_text(
        &self,
        buffer: &Rc<String>,
        origin: Origin,
        selection: Option<&Rc<Selection>>,
        fetched_at: f64,
        checked: bool,
    ) -> Result<(Vec<Incoming>, Option<u64>, Option<Template>)> {
        let syntax = |error: Syntax| origin.error(format!("invalid JSON: {error}"), buffer);
        let (mut total, mut template) = (None, None);
        // The probe of each document reads its id, revision and content type
        // (meta positions 0, 1, 2) and the values of the indexed sort keys,
        // in the pass that frames the list.
        let reader = KeyReader::new(&["id", "revision", "contentType"], &self.column_keys);
        let mut probes: Vec<Probe> = Vec::new();
        let shape = frame_with(buffer, &mut |bytes, start, levels| {
            let (found, end) = reader.probe_within(bytes, start, (!checked).then_some(levels))?;
            probes.push(found);
            Ok(end)
        })
        .map_err(syntax)?;
        let documents: Vec<Range<usize>> = match shape {
            Shape::Array(documents) => documents,
            Shape::Envelope { documents, entries } => {
                total = entries
                    .iter()
                    .rev()
                    .find(|entry| entry.name == b"meta")
                    .and_then(|meta| envelope_total(buffer.as_bytes(), meta.value.start));
                template = template_of(buffer, &entries);
                documents
            }
            Shape::Object => {
                let bytes = buffer.as_bytes();
                let start = json::skip_space(bytes, 0);
                let levels = (!checked).then_some(0);
                let (found, end) = reader.probe_within(bytes, start, levels).map_err(syntax)?;
                probes = vec![found];
                std::iter::once(start..end).collect()
            }
            Shape::Scalar => {
                return Err(origin.error(
                    "expected a list { data: Document[] }, an array of documents or a document"
                        .into(),
                    buffer,
                ))
            }
        };
        // A repeated `data` key: its last array's documents are the last
        // ones probed.
        let probes = probes.split_off(probes.len().saturating_sub(documents.len()));
        let bytes = buffer.as_bytes();
        let mut incoming = Vec::with_capacity(documents.len());
        let mut scratch = Vec::new();
        for (index, (range, found)) in documents.into_iter().zip(probes).enumerate() {
            let id = match found.meta(0) {
                Some(value) => id_at(bytes, value, &mut scratch).map_err(syntax)?,
                None => None,
            };
            let id = match id {
                Some(id) if found.is_object && !id.is_empty() => id,
                _ => return Err(no_id(index, origin, buffer)),
            };
            let revision = found.meta(1).and_then(|value| revision_at(bytes, value));
            let content_type = match found.meta(2) {
                Some(value) if bytes.get(value.start) == Some(&b'"') => {
                    let (text, _) =
                        json::string_at(bytes, value.start, &mut scratch).map_err(syntax)?;
                    Some(String::from_utf8_lossy(text).into_owned())
                }
                _ => None,
            };
            let values = reader.keys(bytes, &found).map_err(syntax)?;
            incoming.push(Incoming {
                id,
                revision,
                content_type,
                text: Text {
                    buffer: Rc::clone(buffer),
                    start: range.start,
                    end: range.end,
                },
                values,
                selection: selection.cloned(),
                fetched_at,
            });
        }
        Ok((incoming, total, template))
    }

    /// Stores read documents (revision rule) and updates the indexes.
    fn commit(&mut self, incoming: Vec<Incoming>) -> usize {
        let mut changed = Vec::with_capacity(incoming.len());
        let mut written = 0;
        let mut buffers: Vec<*const String> = Vec::new();
        for document in incoming {
            let pointer = Rc::as_ptr(&document.text.buffer);
            if buffers.last() != Some(&pointer) {
                buffers.push(pointer);
                self.buffer_bytes += document.text.buffer.len();
            }
            if let Some(slot) = self.write(document) {
                changed.push(slot);
                written += 1;
            }
        }
        self.reindex(changed);
        self.compact_if_sparse();
        written
    }

    /// Writes one document; `None` when a higher revision is stored.
    fn write(&mut self, document: Incoming) -> Option<u32> {
        let content_type = document
            .content_type
            .as_deref()
            .map(|name| self.intern(name));
        let slot = match self.by_id.get(document.id.as_slice()).copied() {
            Some(slot) => {
                let stored = self.slots.get_mut(slot as usize)?.as_mut()?;
                if !replaces(stored, &document) {
                    return None;
                }
                let old_selection =
                    std::mem::replace(&mut stored.selection, document.selection.clone());
                stored.fetched_at = document.fetched_at;
                let old_type = std::mem::replace(&mut stored.content_type, content_type.clone());
                stored.revision = document.revision;
                self.live_bytes = self.live_bytes + document.text.len() - stored.text.len();
                stored.text = document.text;
                if let Some(old_type) = old_type {
                    self.uncount(&old_type);
                }
                self.count_selection(old_selection.as_ref(), -1);
                self.count_selection(document.selection.as_ref(), 1);
                slot
            }
            None => {
                // A free slot, or the next one: slots are numbered with u32,
                // and a store with 2^32 of them takes no more.
                let slot = match self.free.pop() {
                    Some(slot) => slot,
                    None => u32::try_from(self.slots.len()).ok()?,
                };
                let id: Rc<[u8]> = Rc::from(document.id.as_slice());
                let seq = self.next_seq;
                self.next_seq += 1;
                self.live_bytes += document.text.len();
                self.count_selection(document.selection.as_ref(), 1);
                let stored = Slot {
                    id: Rc::clone(&id),
                    revision: document.revision,
                    content_type: content_type.clone(),
                    text: document.text,
                    seq,
                    selection: document.selection,
                    fetched_at: document.fetched_at,
                };
                match self.slots.get_mut(slot as usize) {
                    Some(place) => *place = Some(stored),
                    None => {
                        self.slots.push(Some(stored));
                        for column in &mut self.columns {
                            column.push(None);
                        }
                    }
                }
                self.by_id.insert(id, slot);
                slot
            }
        };
        if let Some(content_type) = content_type {
            *self.content_types.entry(content_type).or_insert(0) += 1;
        }
        for (column, value) in self.columns.iter_mut().zip(document.values) {
            if let Some(place) = column.get_mut(slot as usize) {
                *place = value;
            }
        }
        self.projected.forget(slot);
        Some(slot)
    }

    /// Removes the documents `ids` (decoded bytes); how many there were.
    pub(crate) fn remove_ids<'a>(&mut self, ids: impl IntoIterator<Item = &'a [u8]>) -> usize {
        let mut removed = Vec::new();
        for id in ids {
            if let Some(slot) = self.unlink(id) {
                removed.push(slot);
            }
        }
        let count = removed.len();
        self.reindex(removed);
        count
    }

    /// Takes a document out of the slots (the indexes are left to the caller).
    fn unlink(&mut self, id: &[u8]) -> Option<u32> {
        let slot = self.by_id.remove(id)?;
        self.projected.forget(slot);
        if let Some(stored) = self.slots.get_mut(slot as usize).and_then(Option::take) {
            self.live_bytes -= stored.text.len();
            if let Some(content_type) = &stored.content_type {
                self.uncount(content_type);
            }
            self.count_selection(stored.selection.as_ref(), -1);
        }
        for column in &mut self.columns {
            if let Some(place) = column.get_mut(slot as usize) {
                *place = None;
            }
        }
        self.free.push(slot);
        Some(slot)
    }

    fn intern(&self, name: &str) -> Rc<str> {
        match self.content_types.get_key_value(name) {
            Some((known, _)) => Rc::clone(known),
            None => Rc::from(name),
        }
    }

    fn uncount(&mut self, content_type: &str) {
        if let Some(count) = self.content_types.get_mut(content_type) {
            *count -= 1;
            if *count == 0 {
                self.content_types.remove(content_type);
            }
        }
    }

    /// The document stored under `id`, as its JSON text.
    pub fn get_json(&self, id: &str) -> Option<&str> {
        self.get_json_key(id.as_bytes())
    }

    /// The document stored under the id whose decoded bytes are `key`
    /// (WTF-8: an id with a lone surrogate keeps it), as its JSON text.
    pub fn get_json_key(&self, key: &[u8]) -> Option<&str> {
        let slot = *self.by_id.get(key)?;
        Some(self.slots.get(slot as usize)?.as_ref()?.text.as_str())
    }

    /// The document stored under `id`.
    pub fn get(&self, id: &str) -> Option<Value> {
        serde_json::from_str(self.get_json(id)?).ok()
    }

    /// Removes the document stored under `id`; whether there was one.
    pub fn delete(&mut self, id: &str) -> bool {
        self.delete_key(id.as_bytes())
    }

    /// Removes the document stored under the id whose decoded bytes are
    /// `key` (as [`DocumentStore::get_json_key`]); whether there was one.
    pub fn delete_key(&mut self, key: &[u8]) -> bool {
        self.remove_ids([key]) == 1
    }

    /// Removes every document. The indexes' definitions stay (empty), so
    /// the next writes keep them ready.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.free.clear();
        self.by_id.clear();
        self.content_types.clear();
        for column in &mut self.columns {
            column.clear();
        }
        for index in &mut self.indexes {
            index.order.clear();
        }
        self.live_bytes = 0;
        self.buffer_bytes = 0;
        self.selections.clear();
        self.projected.clear();
    }

    fn column_of(&self, key: &FieldKey) -> Option<usize> {
        self.column_keys.iter().position(|known| known == key)
    }

    fn compare_slots(&self, keys: &[(usize, Direction)], a: u32, b: u32) -> Ordering {
        for (column, direction) in keys {
            if let Some(values) = self.columns.get(*column) {
                if let (Some(x), Some(y)) = (values.get(a as usize), values.get(b as usize)) {
                    let order = compare_keys(x, y, *direction);
                    if order != Ordering::Equal {
                        return order;
                    }
                }
            }
        }
        self.seq(a).cmp(&self.seq(b))
    }

    fn seq(&self, slot: u32) -> u64 {
        self.slots
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map_or(u64::MAX, |stored| stored.seq)
    }

    fn is_live(&self, slot: u32) -> bool {
        matches!(self.slots.get(slot as usize), Some(Some(_)))
    }

    fn key_columns(&self, keys: &[(FieldKey, Direction)]) -> Vec<(usize, Direction)> {
        keys.iter()
            .filter_map(|(key, direction)| Some((self.column_of(key)?, *direction)))
            .collect()
    }

    /// Moves the changed slots to their new places in every index: they
    /// leave the permutation, are sorted among themselves, and merge back.
    fn reindex(&mut self, mut changed: Vec<u32>) {
        if changed.is_empty() || self.indexes.is_empty() {
            return;
        }
        sort_by(&mut changed, &mut |a, b| a.cmp(b));
        changed.dedup();
        let mut touched = vec![false; self.slots.len()];
        for slot in &changed {
            if let Some(flag) = touched.get_mut(*slot as usize) {
                *flag = true;
            }
        }
        let mut indexes = std::mem::take(&mut self.indexes);
        for index in &mut indexes {
            let keys = self.key_columns(&index.keys);
            let mut compare = |a: &u32, b: &u32| self.compare_slots(&keys, *a, *b);
            let mut fresh: Vec<u32> = changed
                .iter()
                .copied()
                .filter(|slot| self.is_live(*slot))
                .collect();
            sort_by(&mut fresh, &mut compare);
            let mut old = std::mem::take(&mut index.order);
            if fresh.len() * 16 < old.len() {
                // A few changes: drop them, then binary-search each back in
                // (no comparison per stored document).
                old.retain(|slot| !touched.get(*slot as usize).copied().unwrap_or(false));
                for slot in fresh {
                    let at = old.partition_point(|known| compare(known, &slot) == Ordering::Less);
                    old.insert(at, slot);
                }
                index.order = old;
                continue;
            }
            let mut merged = Vec::with_capacity(old.len() + fresh.len());
            let mut fresh = fresh.into_iter().peekable();
            for slot in old {
                if touched.get(slot as usize).copied().unwrap_or(false) {
                    continue;
                }
                while let Some(next) = fresh.next_if(|next| compare(next, &slot) == Ordering::Less)
                {
                    merged.push(next);
                }
                merged.push(slot);
            }
            merged.extend(fresh);
            index.order = merged;
        }
        self.indexes = indexes;
    }

    /// Copies the live documents into one buffer when most kept text
    /// belongs to replaced or deleted documents.
    fn compact_if_sparse(&mut self) {
        if self.fixed_buffers {
            return;
        }
        if self.buffer_bytes <= 2 * self.live_bytes + (1 << 20) {
            return;
        }
        let mut buffer = String::with_capacity(self.live_bytes);
        let mut ranges = Vec::with_capacity(self.by_id.len());
        for (slot, stored) in self.slots.iter().enumerate() {
            if let Some(stored) = stored {
                let start = buffer.len();
                buffer.push_str(stored.text.as_str());
                ranges.push((slot, start, buffer.len()));
            }
        }
        let buffer = Rc::new(buffer);
        for (slot, start, end) in ranges {
            if let Some(Some(stored)) = self.slots.get_mut(slot) {
                stored.text = Text {
                    buffer: Rc::clone(&buffer),
                    start,
                    end,
                };
            }
        }
        self.buffer_bytes = buffer.len();
    }

    /// The position of the index for `sorting`, created if needed.
    fn index_for(&mut self, sorting: &[Sort]) -> Result<usize> {
        self.clock += 1;
        if let Some(position) = self
            .indexes
            .iter()
            .position(|index| index.sorting == sorting)
        {
            if let Some(index) = self.indexes.get_mut(position) {
                index.used = self.clock;
            }
            return Ok(position);
        }
        let keys = effective_keys(sorting);
        self.ensure_columns(&keys)?;
        let columns = self.key_columns(&keys);
        let mut order: Vec<u32> = (0..u32_from_usize(self.slots.len()))
            .filter(|slot| self.is_live(*slot))
            .collect();
        // Most comparisons end on the first bytes of the first keys: those
        // are compared as integers, the full keys only on a tie that the
        // prefixes cannot settle.
        let prefixes = self.prefixes(&columns);
        let width = columns.len().min(PREFIX_KEYS);
        let prefix = |slot: u32| {
            let start = slot as usize * width;
            prefixes.get(start..start + width).unwrap_or_default()
        };
        let by_prefix = |a: u32, b: u32| -> Option<Ordering> {
            for ((x, y), (_, direction)) in prefix(a).iter().zip(prefix(b)).zip(&columns) {
                let order = match (*x == MISSING, *y == MISSING) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => match direction {
                        Direction::Asc => x.cmp(y),
                        Direction::Desc => y.cmp(x),
                    },
                };
                if order.is_ne() {
                    return Some(order);
                }
                if x & 0xFF == u128::from(PREFIX_BYTES) + 1 {
                    // Equal prefixes of longer keys: the keys decide.
                    return None;
                }
            }
            None
        };
        sort_by(&mut order, &mut |a, b| {
            by_prefix(*a, *b).unwrap_or_else(|| self.compare_slots(&columns, *a, *b))
        });
        self.indexes.push(Index {
            sorting: sorting.to_vec(),
            keys,
            order,
            used: self.clock,
        });
        if self.indexes.len() > MAX_INDEXES {
            self.evict();
        }
        self.indexes
            .iter()
            .position(|index| index.sorting == sorting)
            .ok_or_else(|| Error::invalid_argument("the sort index could not be kept"))
    }

    /// Reads the sort values of `sorting` as documents are stored from now
    /// on (a store about to ingest many documents for a known query reads
    /// them in the same pass).
    pub(crate) fn expect_sorting(&mut self, sorting: &[Sort]) -> Result<()> {
        self.ensure_columns(&effective_keys(sorting))
    }

    /// For every slot, a word for each of its first [`PREFIX_KEYS`] sort
    /// values (`columns`), `min(columns, PREFIX_KEYS)` words per slot: the
    /// key's first [`PREFIX_BYTES`] bytes (zero padded), then its length up
    /// to one more, so that words compare as the keys do, except that two
    /// longer keys with the same start are equal words; [`MISSING`] for no
    /// value.
    fn prefixes(&self, columns: &[(usize, Direction)]) -> Vec<u128> {
        let width = columns.len().min(PREFIX_KEYS);
        let mut out = Vec::with_capacity(self.slots.len() * width);
        for slot in 0..self.slots.len() {
            for (column, _) in columns.iter().take(width) {
                let value = self
                    .columns
                    .get(*column)
                    .and_then(|values| values.get(slot));
                out.push(match value {
                    Some(Some(key)) => {
                        let mut word = 0u128;
                        for index in 0..usize::from(PREFIX_BYTES) {
                            word = word << 8 | u128::from(key.get(index).copied().unwrap_or(0));
                        }
                        let length = key.len().min(usize::from(PREFIX_BYTES) + 1);
                        word << 8 | u128::from(u8::try_from(length).unwrap_or(u8::MAX))
                    }
                    _ => MISSING,
                });
            }
        }
        out
    }

    /// Reads the values of the sort keys `keys` that are not columns yet.
    fn ensure_columns(&mut self, keys: &[(FieldKey, Direction)]) -> Result<()> {
        let missing: Vec<FieldKey> = keys
            .iter()
            .map(|(key, _)| key.clone())
            .filter(|key| self.column_of(key).is_none())
            .collect();
        if !missing.is_empty() {
            let mut columns: Vec<Vec<SortKey>> = missing
                .iter()
                .map(|_| Vec::with_capacity(self.slots.len()))
                .collect();
            let reader = KeyReader::new(&[], &missing);
            for stored in &self.slots {
                let values = match stored {
                    Some(stored) => {
                        reader
                            .stored_keys(stored.text.as_bytes())
                            .map_err(|error| {
                                Error::decode(
                                    format!("a stored document cannot be read: {error}"),
                                    stored.text.as_str(),
                                )
                            })?
                    }
                    None => vec![None; missing.len()],
                };
                for (value, column) in values.into_iter().zip(columns.iter_mut()) {
                    column.push(value);
                }
            }
            self.column_keys.extend(missing);
            self.columns_version += 1;
            self.columns.extend(columns);
        }
        Ok(())
    }

    /// Drops the least recently used index and the columns no index needs.
    fn evict(&mut self) {
        if let Some(oldest) = self
            .indexes
            .iter()
            .enumerate()
            .min_by_key(|(_, index)| index.used)
            .map(|(position, _)| position)
        {
            self.indexes.remove(oldest);
        }
        let mut position = 0;
        while position < self.column_keys.len() {
            let used = self.column_keys.get(position).is_some_and(|key| {
                self.indexes
                    .iter()
                    .any(|index| index.keys.iter().any(|(known, _)| known == key))
            });
            if used {
                position += 1;
            } else {
                self.column_keys.remove(position);
                self.columns.remove(position);
                self.columns_version += 1;
            }
        }
    }

    /// Answers `query` from the store, as the JSON text of a list envelope
    /// `{ data, meta: { count, limit, offset, total } }`: its sorting (through
    /// a cached index), then `offset` and `limit` (without `limit`, the
    /// service's page of 25), then its selection. With `content_type`,
    /// only documents whose `meta.contentType` equals it count.
    pub fn query_json(&mut self, query: &Query, content_type: Option<&str>) -> Result<String> {
        Ok(self.answer_typed(query, content_type, None)?.text)
    }

    /// [`query_json`](Self::query_json) for a caller that holds the
    /// documents it was delivered (see [`Page`]): the documents of the page
    /// it holds are named, not written. Call [`delivered`](Self::delivered)
    /// once it holds the page.
    pub fn query_page(&mut self, query: &Query, content_type: Option<&str>) -> Result<Page> {
        let mut page = Page::default();
        page.text = self
            .answer_typed(query, content_type, Some(&mut page))?
            .text;
        Ok(page)
    }

    /// Records that the caller holds the documents `page` told it to keep
    /// (unless the store dropped every kept text since).
    pub fn delivered(&mut self, page: &Page) {
        if page.epoch != self.projected.epoch() {
            return;
        }
        let kept = page.words.iter().filter(|word| *word & Page::KEEP != 0);
        for (word, at) in kept.zip(&page.marks) {
            self.projected.deliver(word >> 2, *at);
        }
    }

    /// Takes back every delivery: for a caller that no longer holds what
    /// it was delivered (it could not make an answer from a page).
    pub fn undeliver(&mut self) {
        self.projected.undeliver();
    }

    /// The documents of `content_type`, or all of them, answering `query`.
    fn answer_typed(
        &mut self,
        query: &Query,
        content_type: Option<&str>,
        page: Option<&mut Page>,
    ) -> Result<Answered> {
        match content_type {
            Some(name) => {
                let total = self.content_types.get(name).copied().unwrap_or(0);
                let keep = |stored: &Slot| stored.content_type.as_deref() == Some(name);
                self.answer(query, total, Some(&keep), page, false)
            }
            None => self.answer(query, self.by_id.len(), None, page, false),
        }
    }

    /// [`query_json`](Self::query_json) over the documents whose ids
    /// `member` accepts (all without), `total` of them: the whole text,
    /// and the [`Page`] of it for a caller holding documents.
    pub(crate) fn query_members(
        &mut self,
        query: &Query,
        member: Option<&Member<'_>>,
        total: usize,
    ) -> Result<(String, Page)> {
        let mut page = Page::default();
        let answered = match member {
            Some(member) => {
                let keep = |stored: &Slot| member(&stored.id);
                self.answer(query, total, Some(&keep), Some(&mut page), true)?
            }
            None => self.answer(query, total, None, Some(&mut page), true)?,
        };
        page.text = answered.page.unwrap_or_default();
        Ok((answered.text, page))
    }

    /// The page of `query` over the documents `keep` accepts (all without),
    /// `total` of them. With `words`, for a caller holding documents: a
    /// word per document, and the text without the documents it holds
    /// (`whole`: the whole text, and that one as the page's).
    fn answer(
        &mut self,
        query: &Query,
        total: usize,
        keep: Option<&dyn Fn(&Slot) -> bool>,
        mut holder: Option<&mut Page>,
        whole: bool,
    ) -> Result<Answered> {
        let position = self.index_for(query.sorting())?;
        let (offset, count) = page_bounds(query, total);
        let order = match self.indexes.get(position) {
            Some(index) => &index.order,
            None => return Err(Error::invalid_argument("the sort index is missing")),
        };
        let slots = &self.slots;
        let stored = |slot: u32| slots.get(slot as usize).and_then(Option::as_ref);
        // Every document counts: the page is a slice of the index, wherever it starts.
        let page: Vec<(u32, &Slot)> = match keep {
            None => order
                .get(offset..offset.saturating_add(count).min(order.len()))
                .unwrap_or_default()
                .iter()
                .filter_map(|&slot| Some((slot, stored(slot)?)))
                .collect(),
            Some(keep) => order
                .iter()
                .filter_map(|&slot| Some((slot, stored(slot)?)))
                .filter(|(_, stored)| keep(stored))
                .skip(offset)
                .take(count)
                .collect(),
        };
        let selection = query.selection().unwrap_or(&Selection::All);
        let (_, name, plan) = &*match &mut self.plan {
            Some(last) if last.0 == *selection => last,
            slot => slot.insert((
                selection.clone(),
                selection.to_string(),
                Plan::compile(selection)?,
            )),
        };
        // The selected texts are kept for the next query of this selection
        // (within half the live text); `*` copies the documents anyway.
        let projected = &mut self.projected;
        let room = self.live_bytes / 2;
        let kept = matches!(selection, Selection::Parts(_));
        if kept {
            projected.select(name);
        }
        // For a caller holding documents, a word per document: those it
        // holds are named, and only the others are in its text.
        let mut entries = Vec::with_capacity(page.len());
        if let Some(holder) = &mut holder {
            holder.epoch = projected.epoch();
        }
        for (slot, stored) in page {
            let mut fresh = true;
            if let Some(holder) = &mut holder {
                let word = if kept && slot < 1 << 30 {
                    match (projected.delivered(slot), projected.kept_at(slot)) {
                        (true, _) => slot << 2,
                        (false, Some(at)) => {
                            holder.marks.push(at);
                            slot << 2 | Page::FRESH | Page::KEEP
                        }
                        (false, None) => slot << 2 | Page::FRESH,
                    }
                } else {
                    Page::FRESH
                };
                holder.words.push(word);
                fresh = word & Page::FRESH != 0;
            }
            if fresh || whole {
                entries.push((slot, stored, fresh));
            }
        }
        let held = holder.is_some() && whole;
        let (mut ranges, mut end) = (Vec::new(), DATA.len());
        let mut scratch = Vec::new();
        let write = |out: &mut Vec<u8>, (slot, stored, fresh): (u32, &Slot, bool)| {
            let mark = out.len();
            if let Some(text) = projected.get(slot).filter(|_| kept) {
                out.extend_from_slice(text);
            } else {
                write_valid_ascii(stored.text.as_bytes(), plan, out, &mut scratch)?;
                if kept {
                    projected.keep(slot, out.get(mark..).unwrap_or_default(), room);
                }
            }
            if held && fresh {
                ranges.push(mark..out.len());
            }
            end = out.len();
            Ok(())
        };
        let mut out = Vec::with_capacity(64 + count * 256);
        open_envelope(&mut out, entries.into_iter(), write, query, count, total)?;
        out.push(b'}');
        // The page's text for the caller: the envelope with its documents.
        let page = held.then(|| {
            let mut page = DATA.to_vec();
            for (position, range) in ranges.into_iter().enumerate() {
                if position > 0 {
                    page.push(b',');
                }
                page.extend_from_slice(out.get(range).unwrap_or_default());
            }
            page.extend_from_slice(out.get(end..).unwrap_or_default());
            page
        });
        Ok(Answered {
            text: utf8_answer(out)?,
            page: page.map(utf8_answer).transpose()?,
        })
    }

    /// [`query_json`](Self::query_json), parsed.
    pub fn query(&mut self, query: &Query, content_type: Option<&str>) -> Result<Value> {
        let text = self.query_json(query, content_type)?;
        serde_json::from_str(&text)
            .map_err(|error| Error::decode(format!("the result cannot be read: {error}"), &text))
    }

    /// The ids in the store's stable order (insertion order); an id holding
    /// a lone surrogate shows it as U+FFFD.
    pub fn ids(&self) -> Vec<String> {
        let slots: Vec<&Slot> = self.slots.iter().flatten().collect();
        sorted(slots, &mut |a, b| a.seq.cmp(&b.seq))
            .iter()
            .map(|stored| String::from_utf8_lossy(&stored.id).into_owned())
            .collect()
    }
}

/// The write rule: a lower `meta.revision` never replaces a higher one (a
/// document without a revision counts as lower than one with); on the same
/// revision, a document fetched with a narrower selection does not replace
/// one that holds more, and of two with the same selection, one received
/// earlier does not replace one received later (a response recorded late:
/// the offline cache keeps the later one, as a reload, which stores its
/// responses in the order they arrived, would).
fn replaces(stored: &Slot, incoming: &Incoming) -> bool {
    match incoming.revision.cmp(&stored.revision) {
        Ordering::Less => false,
        Ordering::Greater => true,
        Ordering::Equal => {
            let (old, new) = (stored.selection.as_deref(), incoming.selection.as_deref());
            match (Selection::covers(new, old), Selection::covers(old, new)) {
                (true, true) => incoming.fetched_at >= stored.fetched_at,
                (wider, narrower) => wider || !narrower,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DocumentStore, Page};
    use crate::Query;
    use serde_json::Value;
    use std::rc::Rc;

    /// A batch read for one store's columns and committed into another's
    /// (the offline cache makes a variant's store anew while a refresh
    /// holds a batch read for the old one) has its sort values read again,
    /// however many times each store's columns changed.
    #[test]
    fn a_batch_read_for_another_store_is_read_again() {
        let list = r#"{"data":[
            {"fields":{"title":"b","score":1},"meta":{"id":"1"}},
            {"fields":{"title":"c","score":2},"meta":{"id":"2"}},
            {"fields":{"title":"d","score":3},"meta":{"id":"3"}}]}"#;
        let by = |key: &str| -> Query {
            format!("sorting%5Bfields.{key}%5D=ASC")
                .parse()
                .unwrap_or_default()
        };
        let ids = |store: &mut DocumentStore, query: &Query| -> Vec<String> {
            let answer = store.query(query, None).unwrap_or_default();
            let data = answer["data"].as_array().cloned().unwrap_or_default();
            data.iter()
                .map(|doc| doc["meta"]["id"].as_str().unwrap_or("?").to_owned())
                .collect()
        };
        let mut first = DocumentStore::new();
        assert_eq!(first.put_json(list.to_owned()), Ok(3));
        assert_eq!(ids(&mut first, &by("title")), ["1", "2", "3"]);
        // Its title, a number, first if it were read as its score.
        let late = Rc::new(r#"{"fields":{"title":0,"score":10},"meta":{"id":"4"}}"#.to_owned());
        let batch = first.prepare(&late, None, 0.0, false).unwrap();
        let mut second = DocumentStore::new();
        assert_eq!(second.put_json(list.to_owned()), Ok(3));
        assert_eq!(ids(&mut second, &by("score")), ["1", "2", "3"]);
        assert_eq!(second.commit_batch(batch), 1);
        assert_eq!(ids(&mut second, &by("score")), ["1", "2", "3", "4"]);
    }

    /// The `data` of a list text.
    fn data(text: &str) -> Vec<Value> {
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        value["data"].as_array().cloned().unwrap_or_default()
    }

    /// The cache's answers (`query_members`): the whole text is
    /// `query_json`'s over the members, and the page's text is the same
    /// envelope with only the documents its words mark `FRESH`, in order.
    #[test]
    fn member_answers_are_whole_with_the_page_of_them() {
        let mut store = DocumentStore::new();
        for id in 0..12 {
            let text = format!(
                r#"{{"fields":{{"n":{}, "t":"{}"}},"meta":{{"id":"{id}"}}}}"#,
                id % 5,
                "x".repeat(40)
            );
            assert_eq!(store.put_json(text), Ok(1));
        }
        let query: Query = "sorting%5Bfields.n%5D=DESC&fields=n%2Cmeta(id)&limit=8"
            .parse()
            .unwrap_or_default();
        let even = |id: &[u8]| id.last().is_some_and(|digit| digit % 2 == 0);
        for round in 0..3 {
            for member in [None, Some(&even as &super::Member<'_>)] {
                let total = if member.is_some() { 6 } else { 12 };
                let (whole, page) = store
                    .query_members(&query, member, total)
                    .unwrap_or_default();
                let all = data(&whole);
                let ids: Vec<&Value> = all.iter().map(|doc| &doc["meta"]["id"]).collect();
                assert_eq!(all.len(), 8.min(total), "{whole}");
                if member.is_some() {
                    assert!(
                        ids.iter()
                            .all(|id| id.as_str().is_some_and(|id| even(id.as_bytes()))),
                        "{ids:?}"
                    );
                }
                assert_eq!(page.words.len(), all.len());
                let fresh: Vec<Value> = (all.iter().zip(&page.words))
                    .filter(|(_, word)| **word & Page::FRESH != 0)
                    .map(|(doc, _)| doc.clone())
                    .collect();
                assert_eq!(data(&page.text), fresh, "round {round}: {}", page.text);
                let envelope = |text: &str| {
                    serde_json::from_str::<Value>(text)
                        .map(|value| value["meta"].clone())
                        .ok()
                };
                assert_eq!(envelope(&page.text), envelope(&whole));
                if round == 2 {
                    assert!(
                        fresh.len() < all.len(),
                        "held documents are named the third time"
                    );
                }
                store.delivered(&page);
            }
        }
    }
}
