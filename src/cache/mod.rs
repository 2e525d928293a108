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
//!   one. Segments are only ever added (with keys unique to this cache), so
//!   two tabs sharing a storage keep the rule: a reload ingests every
//!   segment, oldest first.
//! - A list (an endpoint in a variant) is **complete** when one response
//!   held all of it or when every page of it was recorded ([`Cache::plan_complete`]):
//!   its member ids are kept (`l:` entries). A query on a complete list is
//!   answered by the store, over the members, when every member covers the
//!   query's selection and sort keys; otherwise from the exact URL's
//!   response; otherwise `not_cached`: never a thinner answer.
//! - Memory is bounded by [`Cache::set_max_bytes`]: the least recently used
//!   lists (and responses that belong to none) are evicted whole. A segment
//!   no document and no URL uses any more is deleted.
//!
//! Changes are planned ([`Change`]: storage writes and what to apply),
//! written, and applied to memory only once written, so memory and storage
//! agree.

pub mod policy;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::{json, Value};

use crate::engine::apply::select_any;
use crate::engine::sort::effective_keys;
use crate::error::{Error, Result};
use crate::json;
use crate::query::selection::{Node, Parts};
use crate::query::url::Endpoint;
use crate::query::Query;
use crate::store::{Batch, DocumentStore};
use crate::Selection;

/// The version of the stored entries; others are skipped when loading.
pub const SCHEMA: u64 = 2;

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
    query
        .pairs()
        .into_iter()
        .filter(|(name, _)| {
            name == "locale" || name == "embedAssets" || name.starts_with("includes")
        })
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
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
    if query.get_includes().is_some()
        || matches!(query.selection(), Some(Selection::Parts(parts)) if parts.includes.is_some())
    {
        return Some("includes");
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
        message: format!("skipped the cache entry {key:?}: {why}"),
        excerpt: text.chars().take(80).collect(),
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
}

/// A list of a variant: its members, when complete.
#[derive(Debug, Clone, Default)]
struct List {
    members: HashSet<Rc<[u8]>>,
    fetched_at: f64,
    used: u64,
}

/// An answer from the cache: JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The list envelope or document, as JSON text.
    pub body: String,
    /// When the oldest data it was made from was received (Unix ms).
    pub fetched_at: f64,
}

/// What recording a response changes: storage writes first, then memory.
#[derive(Debug, Default)]
pub struct Change {
    puts: Vec<(String, String)>,
    deletes: Vec<String>,
    segment: Option<(String, Segment)>,
    batch: Option<Batch>,
    list: Option<(String, String, List)>,
    alias: Option<((String, String), Vec<u8>)>,
    drop_lists: Vec<(String, String)>,
    drop_urls: Vec<String>,
}

impl Change {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty()
    }

    /// The storage writes: `(key, text)` pairs.
    pub fn puts(&self) -> &[(String, String)] {
        &self.puts
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
    variants: HashMap<String, DocumentStore>,
    /// Segments by storage key.
    segments: HashMap<String, Segment>,
    /// The latest segment of each URL.
    urls: HashMap<String, String>,
    /// Complete lists by (variant, endpoint).
    lists: HashMap<(String, String), List>,
    /// Alias targets by (variant, alias api id).
    aliases: HashMap<(String, String), Vec<u8>>,
    /// A prefix unique to this cache (one tab), for segment keys.
    session: String,
    next: u64,
    clock: u64,
    bytes: usize,
    max_bytes: Option<usize>,
}

/// The ids (decoded) of the documents of a list text, in order; documents
/// without an id are skipped.
pub fn page_ids(text: &str) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let documents = match crate::engine::list::frame(text) {
        Ok(crate::engine::list::Shape::Envelope { documents, .. })
        | Ok(crate::engine::list::Shape::Array(documents)) => documents,
        _ => return Vec::new(),
    };
    let mut out = Vec::with_capacity(documents.len());
    let mut scratch = Vec::new();
    for range in documents {
        let Ok(probe) = crate::engine::list::probe(bytes, range, &["id"], &[]) else {
            continue;
        };
        let Some(value) = probe.meta.first().cloned().flatten() else {
            continue;
        };
        match bytes.get(value.start) {
            Some(b'"') => {
                if let Ok((end, escaped)) = json::string_end(bytes, value.start) {
                    out.push(
                        json::string_bytes(bytes, value.start, end, escaped, &mut scratch).to_vec(),
                    );
                }
            }
            _ => out.push(bytes.get(value).unwrap_or_default().to_vec()),
        }
    }
    out
}

fn header(segment: &Segment, selection: Option<&str>) -> String {
    json!({
        "v": SCHEMA,
        "url": segment.url,
        "variant": segment.variant,
        "endpoint": segment.endpoint,
        "kind": segment.kind.as_str(),
        "selection": selection,
        "fetchedAt": segment.fetched_at,
        "seq": segment.seq,
    })
    .to_string()
}

fn list_entry_key(variant: &str, endpoint: &str) -> String {
    format!("l:{variant}\u{1f}{endpoint}")
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

    /// Forgets everything (storage is cleared by the caller).
    pub fn clear(&mut self) {
        let session = std::mem::take(&mut self.session);
        let max_bytes = self.max_bytes;
        *self = Cache::new(&session);
        self.max_bytes = max_bytes;
    }

    fn store(&mut self, variant: &str) -> &mut DocumentStore {
        self.variants.entry(variant.to_owned()).or_insert_with(|| {
            let mut store = DocumentStore::new();
            store.keep_buffers();
            store
        })
    }

    fn segment_key(&mut self) -> (String, u64) {
        self.next += 1;
        (format!("s:{}:{}", self.session, self.next), self.next)
    }

    /// Plans recording a response received for `url` (`kind` says what it
    /// is; its text is valid JSON of that shape). A stale response (holding a
    /// document older than the cached one) plans nothing.
    pub fn plan_response(
        &mut self,
        url: &str,
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
                let batch = store.prepare(&text, selection.clone().map(Rc::new), now)?;
                if store.is_stale(&batch) {
                    return Ok(Change::default());
                }
                Some(batch)
            }
        };
        let (key, seq) = self.segment_key();
        let segment = Segment {
            url: url.to_owned(),
            variant: variant.clone(),
            endpoint: endpoint_key(endpoint),
            kind,
            text,
            fetched_at: now,
            seq,
        };
        let mut change = Change::default();
        let selection_text = selection.as_ref().map(ToString::to_string);
        change.puts.push((
            key.clone(),
            format!(
                "{}\n{}",
                header(&segment, selection_text.as_deref()),
                segment.text
            ),
        ));
        if let (Kind::List, Some(batch)) = (kind, &batch) {
            // One response that holds the whole list makes it complete.
            if query.get_offset().unwrap_or(0) == 0
                && batch.total() == Some(batch.len() as u64)
                && needs_service(query).is_none()
            {
                let ids = batch.ids().map(<[u8]>::to_vec).collect();
                self.plan_list(&mut change, &variant, &segment.endpoint, ids, now);
            }
        }
        if let (Kind::Document, Endpoint::Alias(name)) = (kind, endpoint) {
            if let Some(id) = batch.as_ref().and_then(|batch| batch.ids().next()) {
                change.alias = Some(((variant.clone(), name.clone()), id.to_vec()));
            }
        }
        change.batch = batch;
        change.segment = Some((key, segment));
        Ok(change)
    }

    fn plan_list(
        &self,
        change: &mut Change,
        variant: &str,
        endpoint: &str,
        ids: Vec<Vec<u8>>,
        now: f64,
    ) {
        // An id is kept as text, or (holding a lone surrogate, so not
        // UTF-8) as the array of its WTF-8 bytes: a reload must find every
        // member again, byte for byte.
        let stored_ids: Vec<Value> = ids
            .iter()
            .map(|id| match std::str::from_utf8(id) {
                Ok(text) => Value::from(text),
                Err(_) => Value::from(id.clone()),
            })
            .collect();
        change.puts.push((
            list_entry_key(variant, endpoint),
            json!({ "v": SCHEMA, "ids": stored_ids, "fetchedAt": now }).to_string(),
        ));
        let list = List {
            members: ids.into_iter().map(|id| Rc::from(id.as_slice())).collect(),
            fetched_at: now,
            used: 0,
        };
        change.list = Some((variant.to_owned(), endpoint.to_owned(), list));
    }

    /// Plans recording that the list `endpoint` (in `query`'s variant) holds
    /// exactly the documents `ids` (after every page of it was recorded).
    pub fn plan_complete(
        &self,
        endpoint: &Endpoint,
        query: &Query,
        ids: Vec<Vec<u8>>,
        now: f64,
    ) -> Change {
        let mut change = Change::default();
        self.plan_list(
            &mut change,
            &variant_key(query),
            &endpoint_key(endpoint),
            ids,
            now,
        );
        change
    }

    /// Applies a planned change that was written.
    pub fn apply(&mut self, change: Change) {
        if let Some((key, segment)) = change.segment {
            if let Some(batch) = change.batch {
                self.store(&segment.variant).commit_batch(batch);
            }
            self.bytes += segment.text.len();
            let url = segment.url.clone();
            self.segments.insert(key.clone(), segment);
            self.urls.insert(url, key);
        }
        if let Some((variant, endpoint, mut list)) = change.list {
            self.clock += 1;
            list.used = self.clock;
            self.lists.insert((variant, endpoint), list);
        }
        if let Some((key, id)) = change.alias {
            self.aliases.insert(key, id);
        }
        for key in change.drop_lists {
            self.drop_list(&key);
        }
        for url in change.drop_urls {
            self.urls.remove(&url);
        }
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
        let Some(list) = self.lists.remove(key) else {
            return;
        };
        // Members of no other list of the variant leave its store.
        let others: Vec<&List> = self
            .lists
            .iter()
            .filter(|((variant, _), _)| *variant == key.0)
            .map(|(_, list)| list)
            .collect();
        let gone: Vec<Rc<[u8]>> = list
            .members
            .iter()
            .filter(|id| !others.iter().any(|other| other.members.contains(*id)))
            .cloned()
            .collect();
        if let Some(store) = self.variants.get_mut(&key.0) {
            store.remove_ids(gone.iter().map(|id| id.as_ref()));
        }
    }

    /// Plans deleting the segments that neither a stored document nor a
    /// URL uses any more, and, over `max_bytes`, evicting the least recently
    /// used lists (then responses that belong to no list) whole.
    pub fn plan_collect(&self) -> Change {
        let mut change = Change::default();
        let mut bytes = self.bytes;
        let mut dropped_lists: Vec<(String, String)> = Vec::new();
        let mut dropped_urls: HashSet<&str> = HashSet::new();
        if let Some(max) = self.max_bytes {
            let mut lists: Vec<(&(String, String), &List)> = self.lists.iter().collect();
            lists.sort_by_key(|(_, list)| list.used);
            for (key, _) in lists {
                if bytes <= max {
                    break;
                }
                dropped_lists.push(key.clone());
                for (segment_key, segment) in &self.segments {
                    if segment.variant == key.0 && segment.endpoint == key.1 {
                        dropped_urls.insert(segment.url.as_str());
                        if !change.deletes.contains(segment_key) {
                            bytes = bytes.saturating_sub(segment.text.len());
                        }
                    }
                }
            }
            let mut rest: Vec<(&String, &Segment)> = self.segments.iter().collect();
            rest.sort_by(|a, b| {
                a.1.fetched_at
                    .total_cmp(&b.1.fetched_at)
                    .then(a.1.seq.cmp(&b.1.seq))
            });
            for (_, segment) in rest {
                if bytes <= max {
                    break;
                }
                if dropped_urls.insert(segment.url.as_str()) {
                    bytes = bytes.saturating_sub(segment.text.len());
                }
            }
        }
        // What stays in use: texts of documents that stay, and of URLs that stay.
        let mut used: HashSet<*const String> = HashSet::new();
        for (variant, store) in &self.variants {
            if dropped_lists.iter().any(|(dropped, _)| dropped == variant) {
                // Members of dropped lists may leave: count what remains.
                let remaining: Vec<&List> = self
                    .lists
                    .iter()
                    .filter(|(key, _)| key.0 == *variant && !dropped_lists.contains(key))
                    .map(|(_, list)| list)
                    .collect();
                let dropped: Vec<&List> = dropped_lists
                    .iter()
                    .filter(|key| key.0 == *variant)
                    .filter_map(|key| self.lists.get(key))
                    .collect();
                for (id, buffer) in store.documents() {
                    let leaving = dropped.iter().any(|list| list.members.contains(id))
                        && !remaining.iter().any(|list| list.members.contains(id));
                    if !leaving {
                        used.insert(buffer);
                    }
                }
            } else {
                used.extend(store.buffers());
            }
        }
        for (url, key) in &self.urls {
            if !dropped_urls.contains(url.as_str()) {
                if let Some(segment) = self.segments.get(key) {
                    used.insert(Rc::as_ptr(&segment.text));
                }
            }
        }
        for (key, segment) in &self.segments {
            if !used.contains(&Rc::as_ptr(&segment.text)) {
                change.deletes.push(key.clone());
            }
        }
        for key in &dropped_lists {
            change.deletes.push(list_entry_key(&key.0, &key.1));
        }
        change.drop_lists = dropped_lists;
        change.drop_urls = dropped_urls.into_iter().map(str::to_owned).collect();
        change
    }

    /// Loads the stored entries: segments are ingested oldest first, list
    /// records after them. Returns a `decode` error for each entry that is
    /// corrupt or of another schema (skipped), and the keys of entries to
    /// delete (old schemas).
    pub fn load(&mut self, entries: Vec<(String, String)>) -> (Vec<Error>, Vec<String>) {
        let mut errors = Vec::new();
        let mut stale = Vec::new();
        let mut segments: Vec<(String, Segment, Option<String>)> = Vec::new();
        let mut lists: Vec<(String, String, Vec<Vec<u8>>, f64)> = Vec::new();
        for (key, text) in entries {
            if key.starts_with("s:") {
                match read_segment(&key, &text) {
                    Ok(segment) => segments.push(segment),
                    Err(error) => errors.push(error),
                }
            } else if let Some(rest) = key.strip_prefix("l:") {
                match read_list(&key, rest, &text) {
                    Ok(list) => lists.push(list),
                    Err(error) => errors.push(error),
                }
            } else {
                errors.push(corrupt(
                    &key,
                    format!("not an entry of schema {SCHEMA}"),
                    &text,
                ));
                stale.push(key);
            }
        }
        segments.sort_by(|a, b| {
            a.1.fetched_at
                .total_cmp(&b.1.fetched_at)
                .then(a.1.seq.cmp(&b.1.seq))
        });
        for (key, segment, selection) in segments {
            let selection = match selection.as_deref().map(Selection::parse).transpose() {
                Ok(selection) => selection.map(Rc::new),
                Err(error) => {
                    errors.push(corrupt(&key, error, &segment.url));
                    continue;
                }
            };
            if segment.kind != Kind::Other {
                let store = self.store(&segment.variant);
                match store.prepare(&segment.text, selection, segment.fetched_at) {
                    Ok(batch) => {
                        store.commit_batch(batch);
                    }
                    Err(error) => {
                        errors.push(corrupt(&key, error, &segment.text));
                        continue;
                    }
                }
            }
            self.next = self.next.max(segment.seq);
            self.bytes += segment.text.len();
            // A later segment of the same URL replaces an earlier one.
            self.urls.insert(segment.url.clone(), key.clone());
            self.segments.insert(key, segment);
        }
        for (variant, endpoint, ids, fetched_at) in lists {
            let store = self.store(&variant);
            // Every member must be stored for the list to be complete.
            if ids.iter().all(|id| store.contains(id)) {
                self.clock += 1;
                let list = List {
                    members: ids.iter().map(|id| Rc::from(id.as_slice())).collect(),
                    fetched_at,
                    used: self.clock,
                };
                self.lists.insert((variant, endpoint), list);
            }
        }
        (errors, stale)
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
        Some(Answer {
            body: segment.text.as_str().to_owned(),
            fetched_at: segment.fetched_at,
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
                    "the list `{}` is cached for another variant ({})",
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
        let store = self
            .variants
            .get_mut(&key.0)
            .ok_or_else(|| not_cached("the list's documents are not cached"))?;
        check_coverage(store, list, query)?;
        let members = &list.members;
        let body = store.query_members(query, &|id| members.contains(id), members.len())?;
        self.touch(&key);
        Ok(Answer { body, fetched_at })
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
        match self.compute_single(endpoint, query) {
            Ok(answer) => Ok(answer),
            Err(error) => self.exact(url).ok_or(error),
        }
    }

    fn compute_single(&self, endpoint: &Endpoint, query: &Query) -> Result<Answer> {
        let variant = variant_key(query);
        let id = match endpoint {
            Endpoint::Document(id) | Endpoint::Asset(id) => Some(id.as_bytes().to_vec()),
            Endpoint::Alias(name) => self.aliases.get(&(variant.clone(), name.clone())).cloned(),
            _ => None,
        };
        let entry = id
            .as_ref()
            .and_then(|id| self.variants.get(&variant)?.entry(id))
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
        Ok(Answer { body, fetched_at })
    }
}

fn describe_variant(variant: &str) -> String {
    if variant.is_empty() {
        "the default locale".into()
    } else {
        variant.to_owned()
    }
}

/// Whether every member of `list` covers the query's selection and the keys
/// its order needs; `not_cached` naming what is missing.
fn check_coverage(store: &DocumentStore, list: &List, query: &Query) -> Result<()> {
    let mut needed = Node::default();
    let mut needed_meta = Node::default();
    for (key, _) in effective_keys(query.sorting()) {
        let node = match key.scope {
            crate::query::sort::Scope::Fields => &mut needed,
            crate::query::sort::Scope::Meta => &mut needed_meta,
        };
        node.insert(key.name.clone(), Node::leaf());
    }
    let order = Selection::Parts(Parts {
        fields: Some(needed),
        includes: None,
        meta: needed_meta,
    });
    let covers = |fetched: Option<&Selection>| {
        Selection::covers(fetched, query.selection()) && Selection::covers(fetched, Some(&order))
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

fn read_segment(key: &str, text: &str) -> Result<(String, Segment, Option<String>)> {
    let (head, body) = text
        .split_once('\n')
        .ok_or_else(|| corrupt(key, "no header line", text))?;
    let header: Value = serde_json::from_str(head).map_err(|error| corrupt(key, error, text))?;
    if header.get("v").and_then(Value::as_u64) != Some(SCHEMA) {
        return Err(corrupt(key, format!("not of schema {SCHEMA}"), text));
    }
    let field = |name: &str| header.get(name).and_then(Value::as_str).map(str::to_owned);
    let kind = field("kind")
        .as_deref()
        .and_then(Kind::parse)
        .ok_or_else(|| corrupt(key, "no kind", text))?;
    let (url, variant, endpoint) = match (field("url"), field("variant"), field("endpoint")) {
        (Some(url), Some(variant), Some(endpoint)) => (url, variant, endpoint),
        _ => return Err(corrupt(key, "an incomplete header", text)),
    };
    json::validate(body).map_err(|error| corrupt(key, error, body))?;
    let segment = Segment {
        url,
        variant,
        endpoint,
        kind,
        text: Rc::new(body.to_owned()),
        fetched_at: header
            .get("fetchedAt")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        seq: header.get("seq").and_then(Value::as_u64).unwrap_or(0),
    };
    Ok((key.to_owned(), segment, field("selection")))
}

fn read_list(key: &str, rest: &str, text: &str) -> Result<(String, String, Vec<Vec<u8>>, f64)> {
    let (variant, endpoint) = rest
        .split_once('\u{1f}')
        .ok_or_else(|| corrupt(key, "no endpoint in the key", text))?;
    let value: Value = serde_json::from_str(text).map_err(|error| corrupt(key, error, text))?;
    if value.get("v").and_then(Value::as_u64) != Some(SCHEMA) {
        return Err(corrupt(key, format!("not of schema {SCHEMA}"), text));
    }
    let ids = value
        .get("ids")
        .and_then(Value::as_array)
        .and_then(|ids| {
            ids.iter()
                .map(|id| match id {
                    Value::String(text) => Some(text.as_bytes().to_vec()),
                    Value::Array(bytes) => bytes
                        .iter()
                        .map(|byte| byte.as_u64().and_then(|byte| u8::try_from(byte).ok()))
                        .collect(),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| corrupt(key, "no ids", text))?;
    let fetched_at = value
        .get("fetchedAt")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    Ok((variant.to_owned(), endpoint.to_owned(), ids, fetched_at))
}
