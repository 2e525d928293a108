//! The offline cache (SPEC.md section 6) as plain data: the indexed
//! [`DocumentStore`], one per *variant*, holding the received response texts.
//!
//! - Every received response is kept once, as its text: a **segment**. Its
//!   documents are byte ranges of that text in the store of its variant
//!   (`locale`, `embedAssets`, `includes`: the parameters that change a
//!   document's content), and its URL answers that exact request again.
//!   Persisted entries are the segments themselves (`s:` keys: a header line,
//!   then the text), so a reload ingests texts at `putJson` speed.
//! - A document is stored by `meta.id` within its variant under the store's
//!   write rule: a lower `meta.revision` never replaces a higher one (a
//!   response holding such a document is stale and recorded not at all),
//!   and on the same revision a narrower selection never replaces a wider
//!   one, and of two on the same selection the one received later is kept.
//!   Segments are only ever added (with keys unique to this cache), so
//!   two tabs sharing a storage keep the rule: a reload ingests every
//!   segment, oldest first.
//! - A document a refresh deleted is remembered with the time of its
//!   deletion (`t:{variant}\u{1f}...` entries, one per refresh, never
//!   rewritten, so that two tabs deleting at once keep both; merged into one
//!   at a load): a response received later brings it back, one received
//!   earlier (recorded late, or read at a reload) does not. A load forgets
//!   a deletion that buries no stored response and is older than
//!   [`FORGET_DELETIONS_MS`].
//! - A list (an endpoint in a variant) is **complete** when one response
//!   held all of it or when every page of it was recorded ([`Cache::plan_complete`]):
//!   its member ids are kept (`l:` entries, a new key at each write, never
//!   rewritten: the newest by arrival is the list at a load, so that a tab
//!   writing an earlier response last cannot undo another's newer list). A
//!   query on a complete list is answered by the store, over the members,
//!   when every member covers the query's selection and sort keys; otherwise
//!   from the exact URL's response, unless the cache knows newer of one of
//!   its documents; otherwise `not_cached`: never a thinner answer.
//! - Memory is bounded by [`Cache::set_max_bytes`]: the least recently used
//!   lists (and responses that belong to none) are evicted whole. A segment
//!   no document and no URL uses any more is deleted.
//!
//! Changes are planned ([`Change`]: storage writes and what to apply),
//! written, and applied to memory only once written, so memory and storage
//! agree.

pub mod policy;
pub mod refresh;
pub mod writing;

use crate::json::record::quoted;
use std::rc::Rc;

use crate::engine::apply::select_any;
use crate::engine::list::{id_at, probe, revision_at};
use crate::engine::sort::{effective_keys, list_documents};
use crate::error::{Error, Result};
use crate::hash::{Map, Set};
use crate::json;
use crate::json::record::{Record, Writer};
use crate::num::u64_from_f64;
use crate::query::url::Endpoint;
use crate::query::Query;
use crate::sort::sorted;
use crate::store::{Batch, DocumentStore, Member, Page};
use crate::Selection;

/// The version of the stored entries; others are skipped when loading.
const SCHEMA: u64 = 2;

/// How long a deletion that buries no stored response is remembered,
/// counted back from the latest time a load reads (7 days, in ms).
pub const FORGET_DELETIONS_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

/// What a response is, for the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A list envelope (`documents`, a collection).
    List,
    /// One document (a document, an alias, an asset).
    Document,
    /// Anything else (the repository info, a raw endpoint): kept by URL.
    Other,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::List => "list",
            Kind::Document => "document",
            Kind::Other => "other",
        }
    }

    fn parse(text: &str) -> Option<Kind> {
        match text {
            "list" => Some(Kind::List),
            "document" => Some(Kind::Document),
            "other" => Some(Kind::Other),
            _ => None,
        }
    }
}

/// The variant of a query: the parameters that change a document's
/// content, in their canonical wire form (empty for the default variant).
pub fn variant_key(query: &Query) -> String {
    let mut pairs = Vec::new();
    query.variant_pairs(&mut pairs);
    let pairs = pairs
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"));
    pairs.collect::<Vec<_>>().join("&")
}

/// The cache key of an endpoint: its path after the repository.
pub fn endpoint_key(endpoint: &Endpoint) -> String {
    endpoint
        .segments()
        .iter()
        .map(|segment| crate::query::encode::encode_uri_component(segment))
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a query needs the service: filters, search, tags and `includes`
/// (the linked documents of a list) are never applied locally.
fn needs_service(query: &Query) -> Option<&'static str> {
    if !query.filters().is_empty() {
        return Some("filters");
    }
    if query.get_search().is_some() {
        return Some("search");
    }
    if !query.get_include_tags().is_empty() || !query.get_exclude_tags().is_empty() {
        return Some("tags");
    }
    if query.get_includes().is_some() {
        return Some("includes");
    }
    // The list's `includes` object is never held apart from its response.
    if matches!(query.selection(), Some(Selection::Parts(parts)) if parts.includes.is_some()) {
        return Some("an includes(...) selection item");
    }
    None
}

fn not_cached(message: impl Into<String>) -> Error {
    Error::NotCached {
        message: message.into(),
    }
}

fn corrupt(key: &str, why: impl std::fmt::Display, text: &str) -> Error {
    Error::Decode {
        // (The key is the storage's: scrubbed like the text.)
        message: crate::error::redacted(&format!("skipped the cache entry {}: {why}", quoted(key))),
        excerpt: crate::error::excerpt(text, 80),
    }
}

/// A received response, kept whole.
#[derive(Debug, Clone)]
struct Segment {
    url: String,
    variant: String,
    endpoint: String,
    kind: Kind,
    text: Rc<String>,
    fetched_at: f64,
    /// Order of arrival (`fetched_at`, then this).
    seq: u64,
    /// Whether the cache knows newer of one of its documents, as of a
    /// generation of the cache (0: not asked yet): [`Cache::exact`] asks.
    superseded: std::cell::Cell<(u64, bool)>,
}

/// A document as a sweep lists it: its id (decoded) and the order key of
/// its revision.
pub type Swept = (Vec<u8>, Option<Box<[u8]>>);

/// Documents a refresh deleted, by id: when (a [`Cache::stamp`]). A
/// response received later that holds one brings it back; one received
/// before (recorded late, or read at a reload) does not, whatever its
/// revision: the service stopped listing it after that response.
type Tombstones = Map<Vec<u8>, f64>;

/// A list of a variant: its members, when complete.
#[derive(Debug, Clone, Default)]
struct List {
    members: Set<Rc<[u8]>>,
    fetched_at: f64,
    used: u64,
    /// How it was fetched (its record keeps it).
    form: Form,
    /// The storage key of its record: a new one at each write (as a
    /// segment's), so that deleting a record read never deletes one another
    /// tab wrote meanwhile; the newest record is the list at a reload.
    key: String,
}

/// How a complete list was fetched, kept with it (and its record).
#[derive(Debug, Clone, Default)]
struct Form {
    /// The envelope of the response(s) that made it complete, unless its
    /// keys are `data` then `meta`: answers computed for the list keep its
    /// other keys, in its order.
    template: Option<crate::store::Template>,
    /// Their selection, canonical (`*`: whole documents): a refresh fetches
    /// again a member whose cached copy no longer covers it. `None` in a
    /// record of an earlier version, which did not keep it (nothing is
    /// fetched again for it).
    selection: Option<String>,
}

impl Form {
    /// The form of a list completed by responses to `query`.
    fn of(template: Option<crate::store::Template>, query: &Query) -> Self {
        let selection = selection_text(query).unwrap_or_else(|| "*".into());
        Form {
            template,
            selection: Some(selection),
        }
    }
}

/// The canonical text of a query's selection, unless it is the whole
/// document (as a document's record in the store keeps it).
fn selection_text(query: &Query) -> Option<String> {
    (query.selection())
        .filter(|selection| **selection != Selection::All)
        .map(ToString::to_string)
}

/// An answer from the cache: JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The list envelope or document, as JSON text.
    pub body: String,
    /// When the oldest data it was made from was received (Unix ms).
    pub fetched_at: f64,
    /// A list computed by the store of a variant (its key): the same
    /// answer for a caller that holds the documents it was delivered (see
    /// [`Cache::store_mut`]).
    pub page: Option<(String, Page)>,
}

/// The value of one storage write.
#[derive(Debug, Clone, PartialEq)]
pub enum Put {
    /// Text to store.
    Text(String),
    /// A response's segment: `header`, a line break, then `text`, the
    /// response as it came in. Kept in two parts, so that a boundary that
    /// still holds the response's text (JavaScript's string) joins them
    /// rather than copying the text back out of the module.
    Segment {
        /// The segment's header line.
        header: String,
        /// The response text.
        text: Rc<String>,
    },
}

impl Put {
    /// The text to store as its parts: a segment's header line (then a line
    /// break), and the rest; a text has no header.
    pub fn parts(&self) -> (Option<&str>, &str) {
        match self {
            Put::Text(text) => (None, text),
            Put::Segment { header, text } => (Some(header), text),
        }
    }

    /// The text to store (a segment's parts joined, a text as it is).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Put::Text(text) => text.as_str().into(),
            Put::Segment { header, text } => format!("{header}\n{text}").into(),
        }
    }
}

/// A response text that the boundary still holds, if any (see
/// [`Change::put_texts`]).
pub type Held<'a> = Option<&'a Rc<String>>;

/// What recording changes: storage writes first, then memory.
#[derive(Debug, Default)]
pub struct Change {
    puts: Vec<(String, Put)>,
    deletes: Vec<String>,
    /// New segments, with the documents read from them, in order.
    segments: Vec<(String, Segment, Option<Batch>)>,
    lists: Vec<(String, String, List)>,
    /// Documents that left a list: removed from their variant's store
    /// unless another list of it holds them.
    removed: Vec<(String, Vec<Rc<[u8]>>)>,
    /// Documents a refresh deleted, by variant.
    tombstones: Vec<(String, Tombstones)>,
    drop_lists: Vec<(String, String)>,
    /// Whether applying it may leave a text unused (a document or a URL
    /// replaced, a list changed): only then is collection worth planning.
    may_free: bool,
}

impl Change {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty()
    }

    /// Adds `other` after this change: one all-or-nothing write for both.
    pub fn absorb(&mut self, other: Change) {
        self.puts.extend(other.puts);
        self.deletes.extend(other.deletes);
        self.segments.extend(other.segments);
        self.lists.extend(other.lists);
        self.removed.extend(other.removed);
        self.tombstones.extend(other.tombstones);
        self.drop_lists.extend(other.drop_lists);
        self.may_free |= other.may_free;
    }

    /// The envelope of the list response this change records, when it has
    /// keys other than `data`, `meta` and `includes` (see
    /// [`crate::store::Template`]).
    pub fn template(&self) -> Option<crate::store::Template> {
        let mut batches = self
            .segments
            .iter()
            .filter_map(|(_, _, batch)| batch.as_ref());
        batches.next().and_then(|batch| batch.template().cloned())
    }

    /// The ids (decoded) of the documents this change writes.
    pub(crate) fn ids(&self) -> Vec<Vec<u8>> {
        self.segments
            .iter()
            .filter_map(|(_, _, batch)| batch.as_ref())
            .flat_map(|batch| batch.ids().map(<[u8]>::to_vec))
            .collect()
    }

    /// The storage writes: `(key, value)` pairs.
    pub fn puts(&self) -> &[(String, Put)] {
        &self.puts
    }

    /// The storage writes, each value as its text (`Ok`), except the
    /// segment of `held`, a response text that the boundary still holds:
    /// its header alone (`Err`), which the boundary joins with a line break
    /// and the text it holds, rather than copying the text out again.
    pub fn put_texts<'a>(
        &'a self,
        held: Held<'a>,
    ) -> impl Iterator<
        Item = (
            &'a str,
            std::result::Result<std::borrow::Cow<'a, str>, &'a str>,
        ),
    > {
        self.puts.iter().map(move |(key, value)| match value {
            Put::Segment { header, text } if held.is_some_and(|held| Rc::ptr_eq(held, text)) => {
                (key.as_str(), Err(header.as_str()))
            }
            value => (key.as_str(), Ok(value.text())),
        })
    }

    /// Whether collection is worth planning after it is applied.
    pub fn may_free(&self) -> bool {
        self.may_free || !self.removed.is_empty() || !self.drop_lists.is_empty()
    }

    /// The storage keys to remove.
    pub fn deletes(&self) -> &[String] {
        &self.deletes
    }
}

/// Everything the cache holds, in memory.
#[derive(Debug, Default)]
pub struct Cache {
    /// The store of each variant.
    variants: Map<String, DocumentStore>,
    /// Segments by storage key.
    segments: Map<String, Segment>,
    /// The latest segment of each URL.
    urls: Map<String, String>,
    /// Complete lists by (variant, endpoint).
    lists: Map<(String, String), List>,
    /// Documents deleted by a refresh, by variant: never served again unless
    /// a response received after the deletion holds them.
    tombstones: Map<String, Tombstones>,
    /// When answers were invalidated: by endpoint key (`""`: every endpoint).
    invalidated: Map<String, f64>,
    /// The latest time given to a record or an invalidation ([`Cache::stamp`]).
    stamped: std::cell::Cell<f64>,
    /// A prefix unique to this cache (one tab), for segment keys.
    session: String,
    /// The latest number in a storage key of this cache (`s:` and `t:`).
    next: std::cell::Cell<u64>,
    clock: u64,
    bytes: usize,
    max_bytes: Option<usize>,
    /// Whether [`Cache::load`] ran (or [`Cache::load_entry`] started).
    loaded: bool,
    /// Counts the changes applied: what a segment's `superseded` was
    /// decided at.
    generation: u64,
    /// Stored list records no list is known by (two written in an order
    /// other than their arrival's): deleted by the collection after the
    /// write ([`Cache::plan_after_write`]).
    orphans: Vec<String>,
    /// Stored entries read by [`Cache::load_entry`], for [`Cache::load_end`].
    pending: Loading,
}

/// What a load has read so far: entries are read (and their documents
/// framed and probed) one at a time, as storage gives them, and applied
/// together at the end, oldest segment first.
#[derive(Debug, Default)]
struct Loading {
    errors: Vec<Error>,
    stale: Vec<String>,
    segments: Vec<(String, Segment, Option<Batch>)>,
    lists: Vec<ListRecord>,
    /// The entries of deleted documents read: variant, key, deletions
    /// (merged into one by `load_end` when a variant has several, or one of
    /// an earlier version), and deletions that count only if no list holds
    /// the document at the load.
    tombstones: Vec<(String, String, Tombstones, Tombstones)>,
    /// Items of a storage that were not `[key, text]` pairs.
    skipped: usize,
}

/// How a call of the cache's storage failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageFailure {
    /// It threw or rejected: with the error's `message` and `name` when
    /// they are strings, and how the error is described otherwise.
    Threw {
        /// `error.message`.
        message: Option<String>,
        /// `error.name`.
        name: Option<String>,
        /// The error, described (when it has no `message`).
        described: String,
    },
    /// It did not settle within the client's timeout.
    Late,
    /// The storage has no such method.
    Missing,
}

/// The error of a failed call of the storage's `method`.
pub fn storage_error(method: &str, failure: StorageFailure, timeout_ms: u64) -> Error {
    let message = match failure {
        StorageFailure::Threw {
            message,
            name,
            described,
        } => {
            let name = name.map(|name| format!("{name}: ")).unwrap_or_default();
            // What a storage threw may hold anything, the key too.
            crate::error::redacted(&format!(
                "{method}() failed: {name}{}",
                message.unwrap_or(described)
            ))
        }
        StorageFailure::Late => format!("{method}() did not settle within {timeout_ms} ms"),
        StorageFailure::Missing => {
            return Error::invalid_argument(format!("the cache storage has no {method}() method"))
        }
    };
    Error::Storage { message }
}

/// Whether a storage failure is a full storage (a quota).
pub fn is_quota(error: &Error) -> bool {
    // A byte search: `str::contains` of a `&str` links the two-way searcher
    // (2 KB) for this one use.
    matches!(error, Error::Storage { message }
        if message.as_bytes().windows(5).any(|window| window == b"Quota" || window == b"quota"))
}

/// The ids (decoded) of the documents of a list text, in order, read as
/// the store reads them; documents without an id are skipped.
pub fn page_ids(text: &str) -> Vec<Vec<u8>> {
    let ranges = list_documents(text).unwrap_or_default();
    entries(text, ranges)
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

fn header(segment: &Segment, selection: Option<&str>) -> String {
    let mut header = Writer::new();
    header
        .number("v", SCHEMA as f64)
        .string("url", &segment.url)
        .string("variant", &segment.variant)
        .string("endpoint", &segment.endpoint)
        .string("kind", segment.kind.as_str())
        .optional("selection", selection)
        .number("fetchedAt", segment.fetched_at)
        .number("seq", segment.seq as f64);
    header.finish()
}

/// Reads a record of this schema.
fn record<'a>(key: &str, text: &'a str) -> Result<Record<'a>> {
    let record = Record::parse(text).map_err(|error| corrupt(key, error, text))?;
    if record.number("v") != Some(SCHEMA as f64) {
        return Err(corrupt(key, format!("not of schema {SCHEMA}"), text));
    }
    Ok(record)
}

impl Cache {
    /// An empty cache; `session` makes its storage keys unique among the
    /// caches sharing one storage (a random string per tab).
    pub fn new(session: &str) -> Self {
        Cache {
            session: session.to_owned(),
            ..Cache::default()
        }
    }

    /// Evict whole lists when the kept texts exceed `max` bytes.
    pub fn set_max_bytes(&mut self, max: Option<usize>) {
        self.max_bytes = max;
    }

    /// How many documents are cached, over every variant.
    pub fn size(&self) -> usize {
        self.variants.values().map(DocumentStore::len).sum()
    }

    /// The bytes of response text kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether the kept texts exceed `maxBytes`.
    pub fn over_budget(&self) -> bool {
        self.max_bytes.is_some_and(|max| self.bytes > max)
    }

    /// Says which query comes first, before [`Self::load`]: the store of its
    /// variant reads its sort values while the stored texts are ingested,
    /// so that its first answer does not read every document again. Once
    /// loaded, nothing.
    pub fn expect(&mut self, query: &Query) {
        if !self.loaded {
            // An invalid sorting is refused later, by the answer itself.
            let _ = self
                .store(&variant_key(query))
                .expect_sorting(query.sorting());
        }
    }

    /// Forgets everything (storage is cleared by the caller).
    pub fn clear(&mut self) {
        let session = std::mem::take(&mut self.session);
        let max_bytes = self.max_bytes;
        *self = Cache::new(&session);
        self.max_bytes = max_bytes;
    }

    fn store(&mut self, variant: &str) -> &mut DocumentStore {
        variant_store(&mut self.variants, variant)
    }

    fn segment_key(&self) -> (String, u64) {
        self.entry_key("s")
    }

    /// A new storage key of this cache: `{prefix}:{session}:{number}`.
    fn entry_key(&self, prefix: &str) -> (String, u64) {
        let next = self.next.get() + 1;
        self.next.set(next);
        (format!("{prefix}:{}:{next}", self.session), next)
    }

    /// Plans recording a response received for `url` (`kind` says what it
    /// is; its text must be checked JSON of that shape, as
    /// [`crate::http::response::check`] checks a response: its documents
    /// are read without checking them again), received at `now`: the time
    /// [`Cache::stamp`] gave when it arrived. A stale response (holding a
    /// document older than the cached one) plans nothing: its text would
    /// bring the older document back at a reload once the newer one is
    /// evicted.
    pub fn plan_response(
        &mut self,
        url: Option<&str>,
        endpoint: &Endpoint,
        query: &Query,
        kind: Kind,
        text: Rc<String>,
        now: f64,
    ) -> Result<Change> {
        let variant = variant_key(query);
        let selection = query.selection().cloned().filter(|s| *s != Selection::All);
        let batch = match kind {
            Kind::Other => None,
            Kind::List | Kind::Document => {
                let store = self.store(&variant);
                let fetched_with = selection.clone().map(Rc::new);
                let batch = store.prepare(&text, fetched_with.as_ref(), now, true)?;
                if store.is_stale(&batch) {
                    return Ok(Change::default());
                }
                Some(batch)
            }
        };
        let (key, seq) = self.segment_key();
        let segment = Segment {
            url: url.unwrap_or_default().to_owned(),
            variant: variant.clone(),
            endpoint: endpoint_key(endpoint),
            kind,
            text,
            fetched_at: now,
            seq,
            superseded: Default::default(),
        };
        let mut change = Change::default();
        let selection_text = selection_text(query);
        change.puts.push((
            key.clone(),
            Put::Segment {
                header: header(&segment, selection_text.as_deref()),
                text: Rc::clone(&segment.text),
            },
        ));
        if let (Kind::List, Some(batch)) = (kind, &batch) {
            // One response that holds the whole list makes it complete,
            // unless a document of it was deleted since it arrived, or it
            // lists one id twice (the cache holds one document an id).
            if query.get_offset().unwrap_or(0) == 0
                && batch.total() == Some(batch.len() as u64)
                && needs_service(query).is_none()
                && !batch.ids().any(|id| self.buried(&variant, id, now))
                && batch.ids().collect::<Set<&[u8]>>().len() == batch.len()
            {
                let ids = batch.ids().map(<[u8]>::to_vec).collect();
                let form = Form::of(batch.template().cloned(), query);
                self.plan_list(&mut change, &variant, &segment.endpoint, ids, now, form);
            }
        }
        change.may_free = url.is_some_and(|url| self.urls.contains_key(url))
            || batch.as_ref().is_some_and(|batch| {
                let store = self.variants.get(&variant);
                batch
                    .ids()
                    .any(|id| store.is_some_and(|store| store.contains(id)))
            });
        change.segments.push((key, segment, batch));
        Ok(change)
    }

    /// Plans remembering deleted documents of `variant`: an entry of their
    /// own (a `t:` key of this cache, never rewritten, so that two tabs
    /// deleting at once keep both), with one time (`at`, a refresh's) or
    /// each its own (`None`: a merge of entries).
    fn plan_tombstones(
        &self,
        change: &mut Change,
        variant: &str,
        (added, held): (Tombstones, Tombstones),
        at: Option<f64>,
    ) {
        if added.is_empty() && held.is_empty() {
            return;
        }
        let (key, seq) = self.entry_key(&format!("t:{variant}\u{1f}"));
        let text = write_tombstones(seq, at, &added, &held);
        change.puts.push((key, Put::Text(text)));
        change.tombstones.push((variant.to_owned(), added));
    }

    /// Whether a document `id` of `variant` received at `arrived` was deleted
    /// by a refresh after it arrived: then it is not stored (a response
    /// received before a deletion, recorded late or read at a reload, never
    /// brings the document back; one received after it does).
    fn buried(&self, variant: &str, id: &[u8], arrived: f64) -> bool {
        let at = self.tombstones.get(variant).and_then(|dead| dead.get(id));
        at.is_some_and(|at| arrived <= *at)
    }

    /// Stores the documents of `segment` (`batch`, read from it) in its
    /// variant, but those [`Cache::buried`], which `buried` gets.
    fn commit(&mut self, segment: &Segment, mut batch: Batch, buried: &mut Set<Vec<u8>>) {
        let variant = &segment.variant;
        if self.tombstones.contains_key(variant) {
            let arrived = segment.fetched_at;
            batch.drop_where(|id| {
                let dead = self.buried(variant, id, arrived);
                if dead {
                    buried.insert(id.to_vec());
                }
                dead
            });
        }
        self.store(variant).commit_batch(batch);
    }

    fn plan_list(
        &self,
        change: &mut Change,
        variant: &str,
        endpoint: &str,
        ids: Vec<Vec<u8>>,
        now: f64,
        form: Form,
    ) {
        let known = (variant.to_owned(), endpoint.to_owned());
        let replaced = self.lists.get(&known);
        // Membership that arrived later stays: a response that arrived
        // before it, recorded late, cannot undo it.
        if replaced.is_some_and(|list| list.fetched_at > now) {
            return;
        }
        // An id is kept as text, or (holding a lone surrogate, so not UTF-8)
        // as the array of its WTF-8 bytes: a reload must find every member
        // again, byte for byte.
        let mut stored_ids = String::from("[");
        for (position, id) in ids.iter().enumerate() {
            if position > 0 {
                stored_ids.push(',');
            }
            match std::str::from_utf8(id) {
                Ok(text) => json::record::write_string(&mut stored_ids, text),
                Err(_) => {
                    let bytes: Vec<String> = id.iter().map(u8::to_string).collect();
                    stored_ids.push('[');
                    stored_ids.push_str(&bytes.join(","));
                    stored_ids.push(']');
                }
            }
        }
        stored_ids.push(']');
        let mut record = Writer::new();
        record
            .number("v", SCHEMA as f64)
            .raw("ids", &stored_ids)
            .number("fetchedAt", now);
        if let Some(template) = &form.template {
            record.string("envelope", &String::from_utf8_lossy(template));
        }
        if let Some(selection) = &form.selection {
            record.string("selection", selection);
        }
        // `l:{variant}\u{1f}{endpoint}\u{1f}:{session}:{number}`; the record
        // it replaces goes.
        let (key, _) = self.entry_key(&format!("l:{variant}\u{1f}{endpoint}\u{1f}"));
        change.deletes.extend(replaced.map(|list| list.key.clone()));
        change.puts.push((key.clone(), Put::Text(record.finish())));
        let list = List {
            members: ids.into_iter().map(|id| Rc::from(id.as_slice())).collect(),
            fetched_at: now,
            used: 0,
            key,
            form,
        };
        change
            .lists
            .push((variant.to_owned(), endpoint.to_owned(), list));
    }

    /// Plans recording that the list `endpoint` (in `query`'s variant) holds
    /// exactly the documents `ids` (after every page of it was recorded; `now`:
    /// when the first page arrived, as [`Cache::stamp`] gave it). A `storage`
    /// error when a document of it is not held (a page's write failed, or
    /// `maxBytes` evicted it): the list is not complete, and an answer from
    /// it would be thinner than the service's.
    pub fn plan_complete(
        &self,
        endpoint: &Endpoint,
        query: &Query,
        ids: Vec<Vec<u8>>,
        now: f64,
        template: Option<crate::store::Template>,
    ) -> Result<Change> {
        let variant = variant_key(query);
        let store = self.variants.get(&variant);
        let missing = ids
            .iter()
            .filter(|id| !store.is_some_and(|store| store.contains(id)))
            .count();
        if missing > 0 {
            return Err(Error::Storage {
                message: format!(
                    "{missing} of the {} documents of the list `{}` are not held (a write failed or \
                     maxBytes evicted them): the list was not recorded as complete",
                    ids.len(),
                    endpoint_key(endpoint)
                ),
            });
        }
        let mut change = Change::default();
        let endpoint = endpoint_key(endpoint);
        let form = Form::of(template, query);
        self.plan_list(&mut change, &variant, &endpoint, ids, now, form);
        Ok(change)
    }

    /// Applies a planned change that was written.
    pub fn apply(&mut self, change: Change) {
        self.generation += 1;
        for (key, segment, batch) in change.segments {
            if let Some(batch) = batch {
                self.commit(&segment, batch, &mut Set::default());
            }
            // A response of a list is a use of it (least recently used goes first).
            self.touch(&(segment.variant.clone(), segment.endpoint.clone()));
            self.bytes += segment.text.len();
            if !segment.url.is_empty() {
                self.urls.insert(segment.url.clone(), key.clone());
            }
            self.segments.insert(key, segment);
        }
        for (variant, endpoint, mut list) in change.lists {
            let known = (variant, endpoint);
            // (Two changes planned before either was written: the later
            // arrival stays, as at a reload; the record of the other is
            // known by no list.)
            let kept = self.lists.get(&known);
            if kept.is_some_and(|kept| kept.fetched_at > list.fetched_at) {
                self.orphans.push(list.key);
                continue;
            }
            let replaced = kept.map(|kept| kept.key.clone());
            self.orphans
                .extend(replaced.filter(|key| !change.deletes.contains(key)));
            self.clock += 1;
            list.used = self.clock;
            self.lists.insert(known, list);
        }
        for (variant, ids) in change.removed {
            self.remove_unlisted(&variant, &ids);
        }
        // The latest deletion of a document counts.
        for (variant, added) in change.tombstones {
            self.tombstones.entry(variant).or_default().extend(added);
        }
        for key in change.drop_lists {
            self.drop_list(&key);
        }
        // A variant whose last document left, with no complete list (an
        // empty one answers from its store): its store goes (with the room
        // its slots and columns took), and is made anew when needed.
        let lists = &self.lists;
        self.variants.retain(|variant, store| {
            !store.is_empty() || lists.keys().any(|(listed, _)| listed == variant)
        });
        self.orphans.retain(|key| !change.deletes.contains(key));
        for key in change.deletes {
            if let Some(segment) = self.segments.remove(&key) {
                self.bytes -= segment.text.len();
                if self.urls.get(&segment.url) == Some(&key) {
                    self.urls.remove(&segment.url);
                }
            }
        }
    }

    fn drop_list(&mut self, key: &(String, String)) {
        if let Some(list) = self.lists.remove(key) {
            let ids: Vec<Rc<[u8]>> = list.members.into_iter().collect();
            self.remove_unlisted(&key.0, &ids);
        }
    }

    /// Removes the documents `ids` from the store of `variant`, except those
    /// a list of it still holds.
    fn remove_unlisted(&mut self, variant: &str, ids: &[Rc<[u8]>]) {
        let listed: Vec<&List> = self
            .lists
            .iter()
            .filter(|((known, _), _)| known == variant)
            .map(|(_, list)| list)
            .collect();
        let gone: Vec<&Rc<[u8]>> = ids
            .iter()
            .filter(|id| !listed.iter().any(|list| list.members.contains(*id)))
            .collect();
        if let Some(store) = self.variants.get_mut(variant) {
            store.remove_ids(gone.iter().map(AsRef::as_ref));
        }
    }

    /// Plans deleting the segments that neither a stored document nor a
    /// URL uses any more, and, over `max_bytes`, evicting the least recently
    /// used lists (then responses that belong to no list) whole.
    pub fn plan_collect(&self) -> Change {
        self.plan_collect_within(self.max_bytes)
    }

    /// After the storage refused a write for want of room (a quota): plans
    /// evicting the least recently used lists until a quarter of the kept
    /// texts is freed.
    pub fn plan_make_room(&self) -> Change {
        self.plan_collect_within(Some(self.bytes - self.bytes / 4))
    }

    /// What to write after a change was written (`Ok`) or refused: the
    /// texts no longer used, collected when the change `may_free` some or
    /// the kept texts exceed `maxBytes`; room, whole lists evicted, when the
    /// storage was full (a quota).
    pub fn plan_after_write(&self, written: Result<(), &Error>, may_free: bool) -> Option<Change> {
        match written {
            Ok(()) if may_free || self.over_budget() || !self.orphans.is_empty() => {
                Some(self.plan_collect())
            }
            Err(error) if is_quota(error) => Some(self.plan_make_room()),
            _ => None,
        }
    }

    fn plan_collect_within(&self, max_bytes: Option<usize>) -> Change {
        let mut change = Change::default();
        // 1. What to evict: least recently used lists whole, then the oldest
        //    responses that belong to no kept list.
        let mut dropped: Vec<(String, String)> = Vec::new();
        let mut evicted: Set<*const String> = Set::default();
        if let Some(max) = max_bytes {
            let mut bytes = self.bytes;
            let lists: Vec<(&(String, String), &List)> = self.lists.iter().collect();
            for (key, _) in sorted(lists, &mut |a, b| a.1.used.cmp(&b.1.used)) {
                if bytes <= max {
                    break;
                }
                dropped.push(key.clone());
                for segment in self.segments.values() {
                    if segment.variant == key.0
                        && segment.endpoint == key.1
                        && evicted.insert(Rc::as_ptr(&segment.text))
                    {
                        bytes = bytes.saturating_sub(segment.text.len());
                    }
                }
            }
            let rest: Vec<&Segment> = self
                .segments
                .values()
                .filter(|segment| {
                    let key = (segment.variant.clone(), segment.endpoint.clone());
                    !self.lists.contains_key(&key) || dropped.contains(&key)
                })
                .collect();
            let rest = sorted(rest, &mut |a, b| {
                a.fetched_at
                    .total_cmp(&b.fetched_at)
                    .then(a.seq.cmp(&b.seq))
            });
            for segment in rest {
                if bytes <= max {
                    break;
                }
                if evicted.insert(Rc::as_ptr(&segment.text)) {
                    bytes = bytes.saturating_sub(segment.text.len());
                }
            }
        }
        // 2. Documents that leave: of a dropped list or an evicted response,
        //    and in no list that stays.
        let mut used: Set<*const String> = Set::default();
        for (variant, store) in &self.variants {
            let kept: Vec<&List> = self
                .lists
                .iter()
                .filter(|(key, _)| key.0 == *variant && !dropped.contains(key))
                .map(|(_, list)| list)
                .collect();
            let gone: Vec<&List> = dropped
                .iter()
                .filter(|key| key.0 == *variant)
                .filter_map(|key| self.lists.get(key))
                .collect();
            let mut leaving: Vec<Rc<[u8]>> = Vec::new();
            for (id, buffer) in store.documents() {
                let listed = kept.iter().any(|list| list.members.contains(id));
                let going =
                    gone.iter().any(|list| list.members.contains(id)) || evicted.contains(&buffer);
                if going && !listed {
                    leaving.push(Rc::from(id));
                } else {
                    used.insert(buffer);
                }
            }
            if !leaving.is_empty() {
                change.removed.push((variant.clone(), leaving));
            }
        }
        // 3. Texts that answer a URL stay unless evicted.
        for key in self.urls.values() {
            if let Some(segment) = self.segments.get(key) {
                let text = Rc::as_ptr(&segment.text);
                if !evicted.contains(&text) {
                    used.insert(text);
                }
            }
        }
        // 4. Every text nothing uses any more is deleted (and its URL with it).
        for (key, segment) in &self.segments {
            if !used.contains(&Rc::as_ptr(&segment.text)) {
                change.deletes.push(key.clone());
            }
        }
        for key in &dropped {
            change
                .deletes
                .extend(self.lists.get(key).map(|list| list.key.clone()));
        }
        change.deletes.extend(self.orphans.iter().cloned());
        change.drop_lists = dropped;
        change
    }

    /// Loads the stored entries: [`Cache::load_entry`] of each, then
    /// [`Cache::load_end`]. Returns a `decode` error for each entry that is
    /// corrupt or of another schema (skipped), and the change to write (and
    /// then apply) in one write: the entries of old schemas deleted, those
    /// of an earlier version of this one written again.
    pub fn load(&mut self, entries: Vec<(String, String)>) -> (Vec<Error>, Change) {
        for (key, text) in entries {
            self.load_entry(key, text);
        }
        self.load_end(Ok(0))
    }

    /// Reads one stored entry, as storage gives it: a segment's documents
    /// are framed and probed now (the work of a load, done while storage
    /// reads the next entries), and stored by [`Cache::load_end`].
    pub fn load_entry(&mut self, key: String, text: String) {
        self.loaded = true;
        let read = if key.starts_with("s:") {
            let segment = self.prepare_segment(&key, text);
            segment.map(|segment| self.pending.segments.push(segment))
        } else if let Some(rest) = key.strip_prefix("l:") {
            read_list(&key, rest, &text).map(|list| {
                self.next.set(self.next.get().max(list.seq));
                self.pending.lists.push(list);
            })
        } else if let Some(rest) = key.strip_prefix("t:") {
            // `t:{variant}\u{1f}...`: deleted documents, an entry a refresh
            // (or a merge) wrote; `t:{variant}`: the one entry of a variant
            // that an earlier version rewrote at each refresh (its documents
            // deleted after every response stored with it: at infinity).
            let variant = rest.split('\u{1f}').next().unwrap_or_default().to_owned();
            read_tombstones(&key, &text).map(|(seq, found, held)| {
                self.next.set(self.next.get().max(seq));
                self.pending.tombstones.push((variant, key, found, held));
            })
        } else {
            let error = corrupt(&key, format!("not an entry of schema {SCHEMA}"), &text);
            self.pending.stale.push(key);
            Err(error)
        };
        if let Err(error) = read {
            self.pending.errors.push(error);
        }
    }

    /// A stored segment, its documents framed and probed for its variant's
    /// store (stored by [`Cache::load_end`]).
    fn prepare_segment(
        &mut self,
        key: &str,
        text: String,
    ) -> Result<(String, Segment, Option<Batch>)> {
        let (key, segment, selection) = read_segment(key, text)?;
        let selection = selection.as_deref().map(Selection::parse).transpose();
        let selection = selection.map_err(|error| corrupt(&key, error, &segment.url))?;
        let batch = match segment.kind {
            Kind::Other => None,
            _ => {
                let store = self.store(&segment.variant);
                let prepared = store.prepare(
                    &segment.text,
                    selection.map(Rc::new).as_ref(),
                    segment.fetched_at,
                    false,
                );
                // (Its reason: the excerpt is the entry's.)
                let reason = |error| match error {
                    Error::Decode { message, .. } => message,
                    error => error.to_string(),
                };
                Some(prepared.map_err(|error| corrupt(&key, reason(error), &segment.text))?)
            }
        };
        Ok((key, segment, batch))
    }

    /// Ends a load, given how storage's load ended: `Ok` with the number of
    /// its items that were not `[key, text]` pairs (reported as one `decode`
    /// error), or how it failed. Stores the read segments oldest first, then
    /// the deletions and the list records; returns the errors of the entries
    /// skipped, and the change that deletes the entries of old schemas. When
    /// storage failed part way, nothing read is stored (a part could hold an
    /// older revision of a document whose newer one was not read): the
    /// failure is the one error.
    pub fn load_end(&mut self, storage: Result<usize>) -> (Vec<Error>, Change) {
        self.generation += 1;
        self.loaded = true;
        match storage {
            Ok(skipped) => self.pending.skipped += skipped,
            Err(error) => {
                self.pending = Loading::default();
                return (vec![error], Change::default());
            }
        }
        let Loading {
            mut errors,
            stale,
            segments,
            lists,
            tombstones,
            skipped,
        } = std::mem::take(&mut self.pending);
        if skipped > 0 {
            errors.insert(
                0,
                Error::Decode {
                    message: format!(
                        "skipped {skipped} cache entries that are not [key, text] pairs"
                    ),
                    excerpt: String::new(),
                },
            );
        }
        let segments = sorted(segments, &mut |a, b| {
            a.1.fetched_at
                .total_cmp(&b.1.fetched_at)
                .then(a.1.seq.cmp(&b.1.seq))
        });
        // Of the records of one list (several tabs wrote it, or a write's
        // delete of the one it replaced failed), the newest is the list; the
        // others are deleted (no tab rewrites a record: none is newer).
        let mut stale = stale;
        // (A few lists: a vector, in the order read, the least recently used
        // first.)
        let mut records: Vec<ListRecord> = Vec::new();
        for record in lists {
            let order = |record: &ListRecord| (record.fetched_at, record.seq);
            let same = |kept: &&mut ListRecord| {
                kept.variant == record.variant && kept.endpoint == record.endpoint
            };
            match records.iter_mut().find(same) {
                Some(kept) if order(kept) >= order(&record) => stale.push(record.key),
                Some(kept) => stale.push(std::mem::replace(kept, record).key),
                None => records.push(record),
            }
        }
        // The deletions read (of two deletions of one document, the later
        // counts), before the segments they bury.
        let mut keys: Vec<(&String, &String)> = Vec::with_capacity(tombstones.len());
        let mut newest = 0.0_f64;
        for (variant, key, found, _) in &tombstones {
            let known = self.tombstones.entry(variant.clone()).or_default();
            for (id, at) in found {
                newest = newest.max(remember(known, id, *at));
            }
            keys.push((variant, key));
        }
        // A deletion held by a list (a refresh found another list holding
        // the document, in the memory of its tab) counts when no complete
        // list holds it: one whose every member a stored response holds,
        // not buried. (Worked out only when there is one.)
        let mut listed: Map<String, Set<Vec<u8>>> = Map::default();
        if tombstones.iter().any(|(.., held)| !held.is_empty()) {
            let mut stored: Map<String, Set<Vec<u8>>> = Map::default();
            for (_, segment, batch) in &segments {
                let variant = &segment.variant;
                let kept = batch.iter().flat_map(Batch::ids);
                let kept = kept.filter(|id| !self.buried(variant, id, segment.fetched_at));
                let ids = kept.map(<[u8]>::to_vec).collect::<Vec<_>>();
                stored.entry(variant.clone()).or_default().extend(ids);
            }
            for record in &records {
                let held = stored.get(&record.variant);
                if record
                    .ids
                    .iter()
                    .all(|id| held.is_some_and(|held| held.contains(id)))
                {
                    let ids = record.ids.iter().cloned();
                    listed
                        .entry(record.variant.clone())
                        .or_default()
                        .extend(ids);
                }
            }
        }
        // Those still held by a list (kept as they are when their entries
        // are merged), and the variants where one counted (its entry is
        // rewritten: it counts from now on, whatever a list holds later).
        // (A few variants: a vector.)
        let mut still_held: Vec<(&String, Tombstones)> = Vec::new();
        let mut counted: Vec<&String> = Vec::new();
        for (variant, _, _, held) in &tombstones {
            let known = self.tombstones.entry(variant.clone()).or_default();
            let holds = |id: &Vec<u8>| listed.get(variant).is_some_and(|ids| ids.contains(id));
            let (kept, unheld): (Vec<_>, Vec<_>) = held.iter().partition(|(id, _)| holds(id));
            if !unheld.is_empty() {
                counted.push(variant);
            }
            if !kept.is_empty() && !still_held.iter().any(|(of, _)| *of == variant) {
                still_held.push((variant, Tombstones::default()));
            }
            if let Some((_, still)) = still_held.iter_mut().find(|(of, _)| *of == variant) {
                for (id, at) in kept {
                    remember(still, id, *at);
                }
            }
            for (id, at) in unheld {
                newest = newest.max(remember(known, id, *at));
            }
        }
        let mut latest = 0.0_f64;
        // The deleted documents a stored response holds (by variant).
        let mut buried: Map<String, Set<Vec<u8>>> = Map::default();
        for (key, segment, batch) in segments {
            if let Some(batch) = batch {
                let variant = segment.variant.clone();
                self.commit(&segment, batch, buried.entry(variant).or_default());
            }
            latest = latest.max(segment.fetched_at);
            self.next.set(self.next.get().max(segment.seq));
            self.bytes += segment.text.len();
            // A later segment of the same URL replaces an earlier one (a
            // refresh's pages answer no URL).
            if !segment.url.is_empty() {
                self.urls.insert(segment.url.clone(), key.clone());
            }
            self.segments.insert(key, segment);
        }
        for record in records {
            latest = latest.max(record.fetched_at);
            let known = (record.variant, record.endpoint);
            let store = self.store(&known.0);
            // Every member must be stored for the list to be complete.
            if record.ids.iter().all(|id| store.contains(id)) {
                self.clock += 1;
                let list = List {
                    members: record
                        .ids
                        .iter()
                        .map(|id| Rc::from(id.as_slice()))
                        .collect(),
                    fetched_at: record.fetched_at,
                    used: self.clock,
                    key: record.key,
                    form: record.form,
                };
                self.lists.insert(known, list);
            }
        }
        let mut change = Change {
            deletes: stale,
            ..Change::default()
        };
        // Answers from now on are stamped after everything read: a clock that
        // went back does not date them before a deletion already stored.
        self.stamped.set(self.stamped.get().max(latest).max(newest));
        // The entries of deleted documents of a variant become one when there
        // are several, or one of an earlier version (whose deletions happened
        // after every response read with them: at the latest one, in memory at
        // once), or when some are forgotten: a deletion older than
        // [`FORGET_DELETIONS_MS`] before the latest time read that buries no
        // stored response (only a response received before it and written
        // that much later could still need it). Entries are never rewritten,
        // so deleting those read loses nothing another tab wrote meanwhile.
        let horizon = latest.max(newest) - FORGET_DELETIONS_MS;
        let variants: Vec<String> = self.tombstones.keys().cloned().collect();
        for variant in &variants {
            let read = keys.iter().filter(|(of, _)| *of == variant);
            let legacy = read.clone().any(|(_, key)| !key.contains('\u{1f}'));
            let holds = buried.get(variant);
            let Some(known) = self.tombstones.get_mut(variant) else {
                continue;
            };
            // (Memory keeps the forgotten ones until the next load: they
            // bury only what the storage no longer holds.)
            let mut dead = Tombstones::default();
            for (id, at) in known.iter_mut() {
                if at.is_infinite() {
                    *at = latest;
                }
                if *at >= horizon || holds.is_some_and(|held| held.contains(id)) {
                    dead.insert(id.clone(), *at);
                }
            }
            let rewrite = read.clone().count() > 1 || legacy || counted.contains(&variant);
            if !rewrite && dead.len() == known.len() {
                continue;
            }
            let held = still_held.iter_mut().find(|(of, _)| *of == variant);
            let held = held
                .map(|(_, held)| std::mem::take(held))
                .unwrap_or_default();
            self.plan_tombstones(&mut change, variant, (dead, held), None);
            change.deletes.extend(read.map(|(_, key)| (*key).clone()));
        }
        (errors, change)
    }

    /// The complete lists: `(variant, endpoint)` keys, for refreshing them.
    pub fn complete_lists(&self) -> Vec<(String, String)> {
        let keys: Vec<(String, String)> = self.lists.keys().cloned().collect();
        sorted(keys, &mut |a, b| a.cmp(b))
    }

    /// Marks every cached answer (for `endpoint`, or all) as of `now` old:
    /// the next call asks the network under every policy but `cache-only`.
    pub fn invalidate(&mut self, endpoint: Option<&Endpoint>, now: f64) {
        let at = self.stamp(now);
        let key = endpoint.map(endpoint_key).unwrap_or_default();
        self.invalidated.insert(key, at);
    }

    /// `now` as the time of an answer's arrival or an invalidation: later
    /// than every one before it, by a microsecond when the clock has not
    /// moved. Clocks tell milliseconds, and whether an answer counts as
    /// invalidated is decided by these times: an answer that arrived in the
    /// millisecond of an `invalidate` before it would otherwise count as
    /// invalidated (and the next call ask the network again), one that
    /// arrived just before it as not invalidated. The boundary stamps an
    /// answer when it arrives, not when it is recorded: recording waits for
    /// the writes before it, and an answer that arrived before an
    /// invalidation stays invalidated however late it is recorded.
    pub fn stamp(&self, now: f64) -> f64 {
        let last = self.stamped.get();
        let at = if now > last { now } else { last + 0.001 };
        self.stamped.set(at);
        at
    }

    /// How an answer received at `fetched_at` for `endpoint` counts for the
    /// policy: old when invalidated since, or older than `max_age_ms`.
    pub fn freshness(
        &self,
        endpoint: &Endpoint,
        fetched_at: f64,
        now: f64,
        max_age_ms: Option<f64>,
    ) -> policy::Cached {
        let age_ms = (now - fetched_at).max(0.0);
        let invalidated = [String::new(), endpoint_key(endpoint)]
            .iter()
            .filter_map(|key| self.invalidated.get(key))
            .any(|at| fetched_at <= *at);
        if invalidated || max_age_ms.is_some_and(|max| age_ms > max) {
            policy::Cached::Old { age_ms }
        } else {
            policy::Cached::Fresh { age_ms }
        }
    }

    /// Starts refreshing the complete list `endpoint` in `query`'s variant:
    /// the newest `meta.updatedAt` among its members, as written (`None`
    /// when no member has one). `not_cached` when the list is not complete.
    pub fn refresh_since(&self, endpoint: &Endpoint, query: &Query) -> Result<Option<String>> {
        let key = (variant_key(query), endpoint_key(endpoint));
        let list = self.lists.get(&key).ok_or_else(|| {
            not_cached(format!(
                "the list `{}` is not complete in the cache ({}): prefetch it before refreshing it",
                key.1,
                describe_variant(&key.0)
            ))
        })?;
        let Some(store) = self.variants.get(&key.0) else {
            return Ok(None);
        };
        let mut newest: Option<(i128, String)> = None;
        for id in &list.members {
            let Some((text, _, _)) = store.entry(id) else {
                continue;
            };
            let Some(value) = updated_at(text) else {
                continue;
            };
            let Some(instant) = crate::engine::order::parse_instant(value.as_bytes()) else {
                continue;
            };
            let better = match &newest {
                Some((best, _)) => instant > *best,
                None => true,
            };
            if better {
                newest = Some((instant, value));
            }
        }
        Ok(newest.map(|(_, text)| text))
    }

    /// Finishes a refresh of `endpoint` in `query`'s variant, after the
    /// documents changed since were planned (`fetched`, one change): `swept`
    /// holds every id of the list with the order key of its revision, as the
    /// service listed them. Returns the ids still to fetch: new, with a
    /// newer revision than what is cached (even counting `fetched`), or
    /// cached with a narrower selection than the list's (a later response
    /// with fewer fields replaced it).
    pub fn refresh_missing(
        &self,
        endpoint: &Endpoint,
        query: &Query,
        fetched: &Change,
        swept: &[Swept],
    ) -> Vec<Vec<u8>> {
        let variant = variant_key(query);
        // The newest revision fetched of each id (a map type the module
        // has already: id to the index of its revision).
        let mut coming: Map<Vec<u8>, usize> = Map::default();
        let mut revisions: Vec<Option<&[u8]>> = Vec::new();
        let batches = fetched
            .segments
            .iter()
            .filter_map(|(_, _, batch)| batch.as_ref());
        for (id, revision) in batches.flat_map(Batch::revisions) {
            match coming.get(id).and_then(|&at| revisions.get_mut(at)) {
                Some(known) => *known = (*known).max(revision),
                None => {
                    coming.insert(id.to_vec(), revisions.len());
                    revisions.push(revision);
                }
            }
        }
        let store = self.variants.get(&variant);
        let list = self.lists.get(&(variant, endpoint_key(endpoint)));
        let wanted = list.and_then(|list| list_selection(list, store));
        // Fetched documents are whole: they cover any selection.
        let narrower = |id: &[u8]| {
            let fetched_with = store.and_then(|store| store.entry(id)).map(|entry| entry.1);
            let covers = |fetched| Selection::covers(fetched, wanted.as_ref());
            wanted.is_some() && !coming.contains_key(id) && fetched_with.is_some_and(|f| !covers(f))
        };
        swept
            .iter()
            .filter(|(id, revision)| {
                let stored = store.and_then(|store| store.revision_of(id));
                let fetched = coming
                    .get(id.as_slice())
                    .and_then(|&at| revisions.get(at).copied());
                match stored.max(fetched) {
                    None => true,
                    Some(known) => known < revision.as_deref() || narrower(id),
                }
            })
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Plans the end of a refresh: `changes` (the documents fetched) and the
    /// list's new membership (`swept`) in one change; documents no longer
    /// listed leave the list (and the variant, unless another list holds
    /// them) and are remembered as deleted; the list is as of `now` (when
    /// the refresh's first page arrived, as [`Cache::stamp`] gave it), and so
    /// are the deletions ([`Cache::plan_refresh_swept`] dates them apart).
    /// Returns the change and the counts `(changed, deleted, total)`.
    pub fn plan_refresh(
        &self,
        endpoint: &Endpoint,
        query: &Query,
        changes: Change,
        swept: &[Swept],
        now: f64,
    ) -> Result<(Change, (usize, usize, usize))> {
        self.plan_refresh_swept(endpoint, query, changes, swept, (now, now))
    }

    /// [`Cache::plan_refresh`], the deletions dated `swept_at` (when the
    /// sweep's last page arrived): a document that a response arriving after
    /// that holds leaves the list (it is counted) but not the cache, in
    /// memory as at a reload; a response that arrived before it, recorded
    /// late, does not bring one back.
    pub fn plan_refresh_swept(
        &self,
        endpoint: &Endpoint,
        query: &Query,
        mut changes: Change,
        swept: &[Swept],
        (now, swept_at): (f64, f64),
    ) -> Result<(Change, (usize, usize, usize))> {
        let key = (variant_key(query), endpoint_key(endpoint));
        let list = self.lists.get(&key).ok_or_else(|| {
            not_cached(format!("the list `{}` is not complete in the cache", key.1))
        })?;
        // The whole list arrived again while the refresh ran: that list is
        // newer than what the refresh read, and stays as it is.
        if list.fetched_at > now {
            return Err(not_cached(format!(
                "the list `{}` was fetched again while the refresh ran: it is newer, and was left \
                 as it is",
                key.1
            )));
        }
        let store = self.variants.get(&key.0);
        // Changed: of the documents the list now holds, those new to it
        // (another list may have held them already) or at a newer revision
        // than cached before.
        let listed: Set<&[u8]> = swept.iter().map(|(id, _)| id.as_slice()).collect();
        let new = |id: &[u8]| !list.members.contains(id);
        let mut changed: Set<&[u8]> = Set::default();
        for (_, _, batch) in &changes.segments {
            if let Some(batch) = batch {
                for (id, revision) in batch.revisions() {
                    let newer = match store.and_then(|store| store.revision_of(id)) {
                        None => true,
                        Some(stored) => stored < revision,
                    };
                    if listed.contains(id) && newer {
                        changed.insert(id);
                    }
                }
            }
        }
        changed.extend(listed.iter().copied().filter(|id| new(id)));
        let changed = changed.len();
        // No longer listed. Such a document that a response arriving after
        // the sweep holds stays in the cache: that response is newer than
        // what the sweep read (a reload keeps it, whichever copy the store
        // holds now).
        // (Read once, and only when a document is in question.)
        let after = std::cell::OnceCell::new();
        let newer = |id: &[u8]| {
            let after = after.get_or_init(|| {
                let mut after: Set<Vec<u8>> = Set::default();
                for segment in self.segments.values() {
                    if segment.variant == key.0
                        && segment.fetched_at > swept_at
                        && segment.kind != Kind::Other
                    {
                        after.extend(segment_documents(segment).into_iter().map(|(id, _)| id));
                    }
                }
                after
            });
            after.contains(id)
        };
        let deleted: Vec<Rc<[u8]>> = list
            .members
            .iter()
            .filter(|id| !listed.contains(id.as_ref()))
            .cloned()
            .collect();
        // Fetched: in a page of the refresh, and not deleted since it arrived
        // (by another refresh).
        let mut fetched: Set<&[u8]> = Set::default();
        for (_, segment, batch) in &changes.segments {
            for id in batch.iter().flat_map(Batch::ids) {
                if !self.buried(&segment.variant, id, segment.fetched_at) {
                    fetched.insert(id);
                }
            }
        }
        // A listed document neither held nor fetched (deleted or changed again
        // while the refresh ran, in a page older than the cache, or with an
        // id that cannot be asked for: not UTF-8) leaves the list as it was:
        // never thinner than the service's.
        let held =
            |id: &[u8]| store.is_some_and(|store| store.contains(id)) || fetched.contains(id);
        let missing = swept.iter().filter(|(id, _)| !held(id)).count();
        if missing > 0 {
            return Err(not_cached(format!(
                "{missing} documents the service listed in `{}` could not be recorded (deleted \
                 or changed while the refresh ran, or older than the cached ones): the list was \
                 left as it was; refresh it again",
                key.1
            )));
        }
        let ids: Vec<Vec<u8>> = swept.iter().map(|(id, _)| id.clone()).collect();
        let total = ids.len();
        // Fetched but no longer listed (added, then deleted while the refresh
        // ran): deleted too, though the list never held it.
        let strays = fetched
            .iter()
            .filter(|id| !listed.contains(*id) && !list.members.contains(**id) && !newer(id));
        let mut gone: Vec<Rc<[u8]>> = deleted.iter().filter(|id| !newer(id)).cloned().collect();
        gone.extend(strays.map(|id| Rc::from(*id)));
        // A document another list of the variant holds stays (as in memory):
        // not remembered as deleted, or a reload would remove it from there.
        let mut elsewhere: Set<&[u8]> = Set::default();
        if !gone.is_empty() {
            for ((variant, endpoint), other) in &self.lists {
                if *variant == key.0 && *endpoint != key.1 {
                    elsewhere.extend(other.members.iter().map(AsRef::as_ref));
                }
            }
        }
        // Deleted as the sweep read the list: a response that arrived before
        // it and is recorded later does not bring one back, one that arrived
        // after it does.
        let at = swept_at;
        // (Later stamps come after it: `swept_at` is one, or an earlier tab's.)
        self.stamped.set(self.stamped.get().max(at));
        // One another list holds is deleted only if, at a load, no list
        // holds it (that list's tab, or another, may have refreshed it
        // meanwhile without seeing this deletion).
        let (mut dead, mut held) = (Tombstones::default(), Tombstones::default());
        for id in &gone {
            let into = if elsewhere.contains(id.as_ref()) {
                &mut held
            } else {
                &mut dead
            };
            into.insert(id.to_vec(), at);
        }
        self.plan_tombstones(&mut changes, &key.0, (dead, held), Some(at));
        // (Its envelope stays: the delta's pages answered other queries.)
        // (A record of an earlier version gets the selection read from its
        // members.)
        let form = self.lists.get(&key).map(|list| Form {
            selection: (list.form.selection.clone())
                .or_else(|| Some(list_selection(list, store)?.to_string())),
            ..list.form.clone()
        });
        self.plan_list(
            &mut changes,
            &key.0,
            &key.1,
            ids,
            now,
            form.unwrap_or_default(),
        );
        let count = deleted.len();
        if !gone.is_empty() {
            changes.removed.push((key.0.clone(), gone));
        }
        Ok((changes, (changed, count, total)))
    }

    fn touch(&mut self, key: &(String, String)) {
        self.clock += 1;
        if let Some(list) = self.lists.get_mut(key) {
            list.used = self.clock;
        }
    }

    /// The response received for exactly `url`, if any.
    fn exact(&self, url: &str) -> Option<Answer> {
        let segment = self.segments.get(self.urls.get(url)?)?;
        // Decided once for each state of the cache: nothing newer can have
        // come without a change applied.
        let generation = self.generation + 1;
        let (decided, superseded) = segment.superseded.get();
        let superseded = if decided == generation {
            superseded
        } else {
            let superseded = self.superseded(segment);
            segment.superseded.set((generation, superseded));
            superseded
        };
        if superseded {
            return None;
        }
        Some(Answer {
            body: segment.text.as_str().to_owned(),
            fetched_at: segment.fetched_at,
            page: None,
        })
    }

    /// Whether the cache knows newer of a document in the response of
    /// `segment` than the response itself: deleted by a refresh after it
    /// arrived, or held at a higher `meta.revision`. Such a response is not
    /// an answer: it would undo newer data.
    fn superseded(&self, segment: &Segment) -> bool {
        if segment.kind == Kind::Other {
            return false;
        }
        let variant = &segment.variant;
        let store = self.variants.get(variant);
        segment_documents(segment).iter().any(|(id, revision)| {
            self.buried(variant, id, segment.fetched_at)
                || store
                    .and_then(|store| store.revision_of(id))
                    .is_some_and(|held| revision.as_deref() < held)
        })
    }

    /// The answer to a list query: computed by the store of its variant
    /// over a complete list, or the exact URL's response.
    pub fn answer_list(&mut self, url: &str, endpoint: &Endpoint, query: &Query) -> Result<Answer> {
        let computed = self.compute_list(endpoint, query);
        match computed {
            Ok(answer) => Ok(answer),
            Err(error) => self.exact(url).ok_or(error),
        }
    }

    fn compute_list(&mut self, endpoint: &Endpoint, query: &Query) -> Result<Answer> {
        if let Some(what) = needs_service(query) {
            return Err(not_cached(format!(
                "a query with {what} is answered offline only for the exact URL fetched before"
            )));
        }
        let key = (variant_key(query), endpoint_key(endpoint));
        let Some(list) = self.lists.get(&key) else {
            let other = self.lists.keys().any(|(_, endpoint)| *endpoint == key.1);
            return Err(not_cached(if other {
                format!(
                    "the list `{}` is not complete in the cache for {} (only for another variant): prefetch it with that query",
                    key.1,
                    describe_variant(&key.0)
                )
            } else {
                format!(
                    "the list `{}` is not complete in the cache: fetch all of it (client.prefetch) to query it offline",
                    key.1
                )
            }));
        };
        let fetched_at = list.fetched_at;
        // (A list with no documents has no store until it is asked.)
        let store = variant_store(&mut self.variants, &key.0);
        check_coverage(store, list, query)?;
        let members = &list.members;
        // Every member of a complete list is stored: when the store holds as
        // many documents, it holds exactly the list, and no document needs a
        // membership test.
        let member = |id: &[u8]| members.contains(id);
        let filter = (members.len() != store.len()).then_some(&member as &Member<'_>);
        let (mut body, mut page) = store.query_members(query, filter, members.len())?;
        if let Some(template) = &list.form.template {
            body = crate::store::in_template(&body, template);
            if !page.text.is_empty() {
                page.text = crate::store::in_template(&page.text, template);
            }
        }
        self.touch(&key);
        Ok(Answer {
            body,
            fetched_at,
            page: Some((key.0, page)),
        })
    }

    /// The answer to a single-document query (document, alias, asset), or
    /// any other endpoint: the cached document of its variant when it
    /// covers the selection, or the exact URL's response.
    pub fn answer_single(
        &mut self,
        url: &str,
        endpoint: &Endpoint,
        query: &Query,
    ) -> Result<Answer> {
        let variant = variant_key(query);
        let id = match endpoint {
            Endpoint::Document(id) | Endpoint::Asset(id) => Some(id.as_bytes().to_vec()),
            Endpoint::Alias(_) => self.alias_target(&variant, &endpoint_key(endpoint)),
            _ => None,
        };
        match self.compute_single(&variant, id.as_deref(), query) {
            Ok(answer) => Ok(answer),
            // The response of this very URL, unless the cache knows newer
            // of its document.
            Err(error) => self.exact(url).ok_or(error),
        }
    }

    /// The document an alias names: that of its response that arrived last
    /// (in memory and after a reload alike, whatever order they were
    /// recorded in).
    fn alias_target(&self, variant: &str, endpoint: &str) -> Option<Vec<u8>> {
        let answers = self.segments.values().filter(|segment| {
            segment.kind == Kind::Document
                && segment.variant == variant
                && segment.endpoint == endpoint
        });
        let order = |a: &&Segment, b: &&Segment| {
            (a.fetched_at.total_cmp(&b.fetched_at)).then(a.seq.cmp(&b.seq))
        };
        let newest = answers.max_by(order)?;
        document_id(&newest.text, 0..newest.text.len())
    }

    fn compute_single(&self, variant: &str, id: Option<&[u8]>, query: &Query) -> Result<Answer> {
        let entry = id
            .as_ref()
            .and_then(|id| self.variants.get(variant)?.entry(id))
            .ok_or_else(|| not_cached("this document is not cached (for this variant)"))?;
        let (text, fetched, fetched_at) = entry;
        if !Selection::covers(fetched, query.selection()) {
            return Err(not_cached(
                "the document was cached with a narrower selection than the query's",
            ));
        }
        let body = match query.selection() {
            Some(selection) => select_any(text, selection)?,
            None => text.to_owned(),
        };
        Ok(Answer {
            body,
            fetched_at,
            page: None,
        })
    }

    /// The store of `variant`, to record what a caller holds of the
    /// [`Answer::page`] it made ([`DocumentStore::delivered`],
    /// [`DocumentStore::undeliver`]).
    pub fn store_mut(&mut self, variant: &str) -> Option<&mut DocumentStore> {
        self.variants.get_mut(variant)
    }
}

/// The store of `variant` in `variants`, made if there is none.
fn variant_store<'a>(
    variants: &'a mut Map<String, DocumentStore>,
    variant: &str,
) -> &'a mut DocumentStore {
    variants.entry(variant.to_owned()).or_insert_with(|| {
        let mut store = DocumentStore::new();
        store.keep_buffers();
        store
    })
}

fn describe_variant(variant: &str) -> String {
    if variant.is_empty() {
        "the default locale".into()
    } else {
        variant.to_owned()
    }
}

/// Remembers that `id` was deleted at `at` (of two deletions of one
/// document, the later counts); the time, or 0 for an infinite one (an
/// earlier version's entry).
fn remember(known: &mut Tombstones, id: &[u8], at: f64) -> f64 {
    match known.get_mut(id) {
        Some(stored) => *stored = stored.max(at),
        None => {
            known.insert(id.to_vec(), at);
        }
    }
    if at.is_finite() {
        at
    } else {
        0.0
    }
}

/// The selection a complete list was fetched with: its record's, or, for a
/// record of an earlier version (which did not keep it), the one most of
/// its members were fetched with.
fn list_selection(list: &List, store: Option<&DocumentStore>) -> Option<Selection> {
    if let Some(text) = &list.form.selection {
        return Selection::parse(text).ok();
    }
    let mut counts: Vec<(Option<&Selection>, usize)> = Vec::new();
    for id in &list.members {
        let Some((_, fetched, _)) = store?.entry(id) else {
            continue;
        };
        match counts.iter_mut().find(|(known, _)| *known == fetched) {
            Some((_, count)) => *count += 1,
            None => counts.push((fetched, 1)),
        }
    }
    let (most, _) = counts.into_iter().max_by_key(|(_, count)| *count)?;
    Some(most.cloned().unwrap_or(Selection::All))
}

/// Whether every member of `list` covers the query's selection and the keys
/// its order needs; `not_cached` naming what is missing.
fn check_coverage(store: &DocumentStore, list: &List, query: &Query) -> Result<()> {
    // Whole documents cover every query.
    let whole = |fetched: Option<&Selection>| Selection::covers(fetched, None);
    if store.selections().all(whole) {
        return Ok(());
    }
    // The selection asked for, and the whole value of every sort key (the
    // default order's meta keys too).
    let keys = effective_keys(query.sorting());
    let covers = |fetched: Option<&Selection>| {
        Selection::covers(fetched, query.selection())
            && (keys.iter())
                .all(|(key, _)| Selection::covers_key(fetched, key.scope.as_str(), &key.name))
    };
    // Fast: every selection in the store covers. Exact: every member's.
    if store.selections().all(covers) {
        return Ok(());
    }
    for id in &list.members {
        let fetched = store.entry(id).map(|(_, selection, _)| selection);
        match fetched {
            Some(selection) if covers(selection) => {}
            Some(_) => {
                return Err(not_cached(format!(
                    "document {} was cached with a narrower selection than the query and its order need",
                    String::from_utf8_lossy(id)
                )))
            }
            None => {
                return Err(not_cached(format!(
                    "document {} of the list is not cached",
                    String::from_utf8_lossy(id)
                )))
            }
        }
    }
    Ok(())
}

/// Reads a stored segment: its header line, then the response text. The
/// text of a list or a document is checked when the store ingests it (one
/// pass frames and reads it); any other text is checked here.
fn read_segment(key: &str, mut text: String) -> Result<(String, Segment, Option<String>)> {
    let newline = text
        .find('\n')
        .ok_or_else(|| corrupt(key, "no header line", &text))?;
    let head = text.get(..newline).unwrap_or_default();
    let header = record(key, head)?;
    let field = |name: &str| header.string(name);
    let kind = field("kind")
        .as_deref()
        .and_then(Kind::parse)
        .ok_or_else(|| corrupt(key, "no kind", head))?;
    let (Some(url), Some(variant), Some(endpoint)) =
        (field("url"), field("variant"), field("endpoint"))
    else {
        return Err(corrupt(key, "an incomplete header", head));
    };
    let selection = field("selection");
    let fetched_at = header.number("fetchedAt").unwrap_or(0.0);
    let seq = header.number("seq").map_or(0, u64_from_f64);
    // The body moves to the front of the same buffer: no second copy.
    text.drain(..=newline);
    if kind == Kind::Other {
        json::validate(&text).map_err(|error| corrupt(key, error, &text))?;
    }
    let segment = Segment {
        url,
        variant,
        endpoint,
        kind,
        text: Rc::new(text),
        fetched_at,
        seq,
        superseded: Default::default(),
    };
    Ok((key.to_owned(), segment, selection))
}

fn read_list(key: &str, rest: &str, text: &str) -> Result<ListRecord> {
    // `{variant}\u{1f}{endpoint}\u{1f}:{session}:{number}`, or an earlier
    // version's `{variant}\u{1f}{endpoint}` (number 0).
    let mut parts = rest.split('\u{1f}');
    let (Some(variant), Some(endpoint)) = (parts.next(), parts.next()) else {
        return Err(corrupt(key, "no endpoint in the key", text));
    };
    let seq = parts
        .next()
        .map_or(Some(0), |tail| tail.rsplit(':').next()?.parse().ok());
    let seq = seq.ok_or_else(|| corrupt(key, "no number in the key", text))?;
    let value = record(key, text)?;
    let ids = value
        .raw("ids")
        .and_then(read_ids)
        .ok_or_else(|| corrupt(key, "no ids", text))?;
    let fetched_at = value.number("fetchedAt").unwrap_or(0.0);
    Ok(ListRecord {
        variant: variant.to_owned(),
        endpoint: endpoint.to_owned(),
        ids,
        form: Form {
            template: value
                .string("envelope")
                .map(|envelope| read_envelope(key, envelope))
                .transpose()?,
            selection: value
                .string("selection")
                .map(|text| match Selection::parse(&text) {
                    Ok(_) => Ok(text),
                    Err(error) => Err(corrupt(key, error, &text)),
                })
                .transpose()?,
        },
        fetched_at,
        key: key.to_owned(),
        seq,
    })
}

/// A list record's envelope, checked: a JSON object once its `data` and
/// `meta` markers (0 and 1, see [`crate::store::Template`]) are values,
/// `data` once, `meta` at most once.
fn read_envelope(key: &str, envelope: String) -> Result<crate::store::Template> {
    let (mut valued, mut data, mut meta) = (Vec::with_capacity(envelope.len() + 4), 0, 0);
    for byte in envelope.bytes() {
        match byte {
            0 => {
                data += 1;
                valued.extend_from_slice(b"[]");
            }
            1 => {
                meta += 1;
                valued.extend_from_slice(b"{}");
            }
            byte => valued.push(byte),
        }
    }
    let valued = String::from_utf8(valued).unwrap_or_default();
    let object = valued.starts_with('{') && json::validate(&valued).is_ok();
    match object && data == 1 && meta <= 1 {
        true => Ok(envelope.into_bytes()),
        false => Err(corrupt(key, "an invalid envelope", &envelope)),
    }
}

/// A stored list record, as read.
#[derive(Debug)]
struct ListRecord {
    variant: String,
    endpoint: String,
    ids: Vec<Vec<u8>>,
    form: Form,
    fetched_at: f64,
    key: String,
    /// The number of its key (0 for an earlier version's).
    seq: u64,
}

/// The ids of a list record: strings, or arrays of WTF-8 bytes.
fn read_ids(raw: &str) -> Option<Vec<Vec<u8>>> {
    let crate::engine::list::Shape::Array(items) = crate::engine::list::frame(raw).ok()? else {
        return None;
    };
    let bytes = raw.as_bytes();
    let mut scratch = Vec::new();
    // Loops rather than collect()s into Option (smaller in the module).
    let mut ids = Vec::with_capacity(items.len());
    for range in items {
        let id = match bytes.get(range.start) {
            Some(b'"') => json::string_at(bytes, range.start, &mut scratch)
                .ok()?
                .0
                .to_vec(),
            Some(b'[') => {
                let inner = raw.get(range)?;
                let crate::engine::list::Shape::Array(numbers) =
                    crate::engine::list::frame(inner).ok()?
                else {
                    return None;
                };
                let mut id = Vec::with_capacity(numbers.len());
                for number in numbers {
                    id.push(inner.get(number)?.parse::<u8>().ok()?);
                }
                id
            }
            _ => return None,
        };
        ids.push(id);
    }
    Some(ids)
}

/// `meta.updatedAt` of a document's text, decoded.
fn updated_at(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let value = probe(bytes, 0..bytes.len(), &["updatedAt"], &[])
        .ok()?
        .meta(0)?;
    if bytes.get(value.start) != Some(&b'"') {
        return None;
    }
    let mut scratch = Vec::new();
    let (text, _) = json::string_at(bytes, value.start, &mut scratch).ok()?;
    String::from_utf8(text.to_vec()).ok()
}

/// The ids and revision order keys of a sweep page's documents (a list of
/// `meta(id,revision)` documents), read as the store reads them; a
/// `decode` error when one has no id.
pub fn sweep_entries(text: &str) -> Result<Vec<Swept>> {
    let ranges = list_documents(text).unwrap_or_default();
    let count = ranges.len();
    let swept = entries(text, ranges);
    // A row without an id is not a document the list no longer holds.
    match swept.len() == count {
        true => Ok(swept),
        false => Err(Error::decode(
            "a page of the list's ids held a row without an id: expected \
             { meta: { id: string, revision } } for each",
            text,
        )),
    }
}

/// The `meta.id` of the document at `range` of `text`, as the store reads it.
pub(crate) fn document_id(text: &str, range: std::ops::Range<usize>) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let found = probe(bytes, range, &["id"], &[]).ok()?;
    id_at(bytes, found.meta(0)?, &mut Vec::new()).ok()?
}

/// The ids and revisions of the documents of a response.
fn segment_documents(segment: &Segment) -> Vec<Swept> {
    let text = segment.text.as_str();
    let documents = match segment.kind {
        Kind::List => list_documents(text).unwrap_or_default(),
        // One document: the whole text.
        _ => std::iter::once(0..text.len()).collect(),
    };
    entries(text, documents)
}

/// The id and revision order key of each document of `text` at `ranges`.
fn entries(text: &str, ranges: Vec<std::ops::Range<usize>>) -> Vec<Swept> {
    let bytes = text.as_bytes();
    let mut scratch = Vec::new();
    ranges
        .into_iter()
        .filter_map(|range| {
            let found = probe(bytes, range, &["id", "revision"], &[]).ok()?;
            let id = id_at(bytes, found.meta(0)?, &mut scratch).ok()??;
            Some((
                id,
                found.meta(1).and_then(|value| revision_at(bytes, value)),
            ))
        })
        .collect()
}

/// An entry of deleted documents: their ids (as text) and, for a refresh's,
/// the time of the deletion (`at`; each id then has `null`, which an
/// earlier version reads too), or each its own time (a merge of entries).
fn write_tombstones(
    seq: u64,
    at: Option<f64>,
    tombstones: &Tombstones,
    held: &Tombstones,
) -> String {
    let ids = |tombstones: &Tombstones| {
        let mut ids = Writer::new();
        let mut time = String::new();
        for (id, when) in tombstones {
            let id = String::from_utf8_lossy(id);
            if at.is_some() {
                ids.optional(&id, None);
            } else {
                time.clear();
                crate::num::write_f64(&mut time, *when);
                ids.raw(&id, &time);
            }
        }
        ids.finish()
    };
    let mut record = Writer::new();
    record.number("v", SCHEMA as f64).number("seq", seq as f64);
    if let Some(at) = at {
        record.number("at", at);
    }
    record.raw("deleted", &ids(tombstones));
    if !held.is_empty() {
        record.raw("held", &ids(held));
    }
    record.finish()
}

/// Reads an entry of deleted documents: its number, and each id with the
/// time of its deletion (infinity in an entry of an earlier version, whose
/// values are the hex order keys of revisions, or `null`).
fn read_tombstones(key: &str, text: &str) -> Result<(u64, Tombstones, Tombstones)> {
    let value = record(key, text)?;
    let entries = value
        .object("deleted")
        .ok_or_else(|| corrupt(key, "no deleted ids", text))?;
    let at = value.number("at").unwrap_or(f64::INFINITY);
    let read = |entries: Vec<(String, &str)>| {
        let mut tombstones = Tombstones::default();
        for (id, when) in entries {
            let when = match when.as_bytes().first() {
                Some(b'-' | b'0'..=b'9') => crate::num::parse_f64(when),
                _ => at,
            };
            tombstones.insert(id.into_bytes(), when);
        }
        tombstones
    };
    let seq = value.number("seq").map_or(0, u64_from_f64);
    let held = value.object("held").map(read).unwrap_or_default();
    Ok((seq, read(entries), held))
}
