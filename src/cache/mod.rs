//! The offline cache as plain data: what was received, and whether a query
//! can be answered from it (SPEC.md section 6).
//!
//! - Every response is kept under its URL (the key is never part of one).
//! - Every document is kept by `meta.id` with the selection and locale it was
//!   fetched with; a document with a lower `meta.revision` never replaces a
//!   higher one, and a response holding such a document is stale and changes
//!   nothing.
//! - A list endpoint is *complete* when one response held all of it (offset
//!   0, every document, no filters, search, tags or includes) or when
//!   [`Cache::plan_complete`] records every page of it.
//! - A query is answered from the exact URL's response; otherwise, for a
//!   complete list, by re-applying the query to the cached documents when
//!   each of them covers the requested selection and the sort keys; for one
//!   document, from the cached document when it covers the selection.
//!   Anything else is `not_cached`: never a thinner answer.
//!
//! Changes are planned first ([`Change`]), written to storage, and applied to
//! memory only once written, so memory and storage agree.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::engine::apply::{apply_query, select_any};
use crate::error::{Error, Result};
use crate::query::url::Endpoint;
use crate::query::{Includes, Query};
use crate::Selection;

/// The version of the stored entries; others are skipped when loading.
pub const SCHEMA: u32 = 1;

/// A stored response: the body exactly as received.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ResponseRecord {
    v: u32,
    body: Value,
    fetched_at: f64,
}

/// A stored document, with the selection and locale it was fetched with.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DocumentRecord {
    v: u32,
    document: Value,
    /// The canonical selection, or `None` for the whole document.
    selection: Option<String>,
    locale: Option<String>,
    fetched_at: f64,
}

/// A complete list endpoint: the ids of all its documents, in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct EndpointRecord {
    v: u32,
    ids: Vec<String>,
    locale: Option<String>,
    fetched_at: f64,
}

/// An alias and the id of its document.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct AliasRecord {
    v: u32,
    id: String,
}

/// A document in memory, with its selection parsed.
#[derive(Debug, Clone)]
struct CachedDocument {
    record: DocumentRecord,
    selection: Option<Selection>,
}

/// One entry of a planned change.
#[derive(Debug, Clone)]
enum Entry {
    Response(String, ResponseRecord),
    Document(String, CachedDocument),
    Endpoint(String, EndpointRecord),
    Alias(String, AliasRecord),
}

/// Entries to write, then to apply to memory.
#[derive(Debug, Clone, Default)]
pub struct Change {
    entries: Vec<Entry>,
}

impl Change {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The storage writes: `(key, JSON text)` pairs.
    pub fn writes(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .map(|entry| {
                let (key, text) = match entry {
                    Entry::Response(url, record) => {
                        (format!("response:{url}"), serde_json::to_string(record))
                    }
                    Entry::Document(id, doc) => {
                        (format!("document:{id}"), serde_json::to_string(&doc.record))
                    }
                    Entry::Endpoint(key, record) => {
                        (format!("endpoint:{key}"), serde_json::to_string(record))
                    }
                    Entry::Alias(name, record) => {
                        (format!("alias:{name}"), serde_json::to_string(record))
                    }
                };
                (key, text.unwrap_or_default())
            })
            .collect()
    }
}

/// An answer from the cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The list envelope or document.
    pub body: Value,
    /// When the oldest data it was made from was fetched (Unix ms).
    pub fetched_at: f64,
}

/// Everything the cache holds, in memory.
#[derive(Debug, Default)]
pub struct Cache {
    responses: HashMap<String, ResponseRecord>,
    documents: HashMap<String, CachedDocument>,
    endpoints: HashMap<String, EndpointRecord>,
    aliases: HashMap<String, AliasRecord>,
}

/// The cache key of a list endpoint: its path after the repository.
pub fn endpoint_key(endpoint: &Endpoint) -> String {
    endpoint
        .segments()
        .iter()
        .map(|segment| crate::query::encode::encode_uri_component(segment))
        .collect::<Vec<_>>()
        .join("/")
}

fn revision(document: &Value) -> Option<u64> {
    document.pointer("/meta/revision").and_then(Value::as_u64)
}

fn document_id(document: &Value) -> Option<String> {
    document
        .pointer("/meta/id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The entry saying that `endpoint` holds exactly the documents `ids`.
fn complete_entry(endpoint: &Endpoint, ids: Vec<String>, query: &Query, now: f64) -> Entry {
    Entry::Endpoint(
        endpoint_key(endpoint),
        EndpointRecord {
            v: SCHEMA,
            ids,
            locale: query.get_locale().map(str::to_owned),
            fetched_at: now,
        },
    )
}

/// Whether a query needs the service: filters, search, tags and includes
/// are never applied locally.
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
    if query.get_embed_assets() {
        return Some("embedAssets");
    }
    None
}

/// Reads the engine's JSON text back into a value.
fn from_engine(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|error| Error::Decode {
        message: format!("a cached answer cannot be read: {error}"),
        excerpt: text.chars().take(60).collect(),
    })
}

fn not_cached(message: impl Into<String>) -> Error {
    Error::NotCached {
        message: message.into(),
    }
}

/// Whether `new` may replace `old`: never a lower revision; on the same
/// revision, unless the old one covers more.
fn replaces(old: Option<&CachedDocument>, new: &CachedDocument) -> bool {
    let Some(old) = old else {
        return true;
    };
    match revision(&new.record.document).cmp(&revision(&old.record.document)) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => {
            old.record.locale != new.record.locale
                || Selection::covers(new.selection.as_ref(), old.selection.as_ref())
                || !Selection::covers(old.selection.as_ref(), new.selection.as_ref())
        }
    }
}

/// What recording a received document does to the cached one.
enum Verdict {
    /// It replaces the cached one (or there is none).
    Replace,
    /// The cached one covers more of the same revision: it stays.
    Keep,
    /// It has a lower revision: the whole response is stale.
    Stale,
}

impl Cache {
    fn verdict(&self, id: &str, doc: &CachedDocument) -> Verdict {
        let old = self.documents.get(id);
        if replaces(old, doc) {
            Verdict::Replace
        } else if revision(&doc.record.document)
            < old.and_then(|old| revision(&old.record.document))
        {
            Verdict::Stale
        } else {
            Verdict::Keep
        }
    }

    /// The response received for exactly `url`, if any.
    fn exact(&self, url: &str) -> Option<Answer> {
        self.responses.get(url).map(|record| Answer {
            body: record.body.clone(),
            fetched_at: record.fetched_at,
        })
    }

    /// An empty cache.
    pub fn new() -> Self {
        Cache::default()
    }

    /// How many documents are cached.
    pub fn size(&self) -> usize {
        self.documents.len()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Cache::default();
    }

    /// Loads one stored entry; a corrupt or old-schema entry is an error
    /// (`decode`) and leaves the cache unchanged.
    pub fn load(&mut self, key: &str, text: &str) -> Result<()> {
        let corrupt = |why: String| Error::Decode {
            message: format!("skipped the cache entry {key:?}: {why}"),
            excerpt: text.chars().take(80).collect(),
        };
        let value: Value =
            serde_json::from_str(text).map_err(|error| corrupt(error.to_string()))?;
        match value.get("v").and_then(Value::as_u64) {
            Some(v) if v == u64::from(SCHEMA) => {}
            other => return Err(corrupt(format!("schema {other:?} is not {SCHEMA}"))),
        }
        let entry = match key.split_once(':') {
            Some(("response", url)) => {
                serde_json::from_value(value).map(|r| Entry::Response(url.to_owned(), r))
            }
            Some(("document", id)) => {
                serde_json::from_value::<DocumentRecord>(value).map(|record| {
                    Entry::Document(
                        id.to_owned(),
                        CachedDocument {
                            selection: None,
                            record,
                        },
                    )
                })
            }
            Some(("endpoint", name)) => {
                serde_json::from_value(value).map(|r| Entry::Endpoint(name.to_owned(), r))
            }
            Some(("alias", name)) => {
                serde_json::from_value(value).map(|r| Entry::Alias(name.to_owned(), r))
            }
            _ => return Err(corrupt("unknown kind of entry".into())),
        }
        .map_err(|error| corrupt(error.to_string()))?;
        let entry = match entry {
            Entry::Document(id, mut doc) => {
                doc.selection = match &doc.record.selection {
                    Some(text) => {
                        Some(Selection::parse(text).map_err(|error| corrupt(error.to_string()))?)
                    }
                    None => None,
                };
                if document_id(&doc.record.document).as_deref() != Some(id.as_str()) {
                    return Err(corrupt(
                        "the document's meta.id differs from its key".into(),
                    ));
                }
                Entry::Document(id, doc)
            }
            other => other,
        };
        self.apply(Change {
            entries: vec![entry],
        });
        Ok(())
    }

    fn document_entry(
        &self,
        document: &Value,
        query: &Query,
        now: f64,
    ) -> Option<(String, CachedDocument)> {
        let id = document_id(document)?;
        let selection = query.selection().cloned();
        let record = DocumentRecord {
            v: SCHEMA,
            document: document.clone(),
            selection: selection.as_ref().map(ToString::to_string),
            locale: query.get_locale().map(str::to_owned),
            fetched_at: now,
        };
        Some((id, CachedDocument { record, selection }))
    }

    /// Plans recording a list response for `url` from `endpoint`: the
    /// response, its documents, and, when it holds the whole list (it starts
    /// at 0, holds `meta.total` documents, and has no filters, search, tags
    /// or includes), the endpoint's completeness. A stale response (a
    /// document older than the cached one) plans nothing.
    pub fn plan_list(
        &self,
        url: &str,
        endpoint: &Endpoint,
        query: &Query,
        body: &Value,
        now: f64,
    ) -> Change {
        let mut change = Change::default();
        let documents = body
            .get("data")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for document in documents {
            if let Some((id, doc)) = self.document_entry(document, query, now) {
                match self.verdict(&id, &doc) {
                    Verdict::Stale => return Change::default(),
                    Verdict::Keep => {}
                    Verdict::Replace => change.entries.push(Entry::Document(id, doc)),
                }
            }
        }
        change.entries.push(Entry::Response(
            url.to_owned(),
            ResponseRecord {
                v: SCHEMA,
                body: body.clone(),
                fetched_at: now,
            },
        ));
        let total = body.pointer("/meta/total").and_then(Value::as_u64);
        let whole = query.get_offset().unwrap_or(0) == 0
            && total == Some(documents.len() as u64)
            && needs_service(query).is_none();
        let ids: Option<Vec<String>> = documents.iter().map(document_id).collect();
        if let (true, Some(ids)) = (whole, ids) {
            change
                .entries
                .push(complete_entry(endpoint, ids, query, now));
        }
        change
    }

    /// Plans recording that `endpoint` holds exactly the documents `ids`
    /// (after every page of it was recorded).
    pub fn plan_complete(
        &self,
        endpoint: &Endpoint,
        ids: Vec<String>,
        query: &Query,
        now: f64,
    ) -> Change {
        Change {
            entries: vec![complete_entry(endpoint, ids, query, now)],
        }
    }

    /// Plans recording a single-document response (document, alias, asset)
    /// or any other body (kept under its URL only).
    pub fn plan_single(
        &self,
        url: &str,
        endpoint: &Endpoint,
        query: &Query,
        body: &Value,
        now: f64,
    ) -> Change {
        let mut change = Change::default();
        if let Some((id, doc)) = self.document_entry(body, query, now) {
            match self.verdict(&id, &doc) {
                Verdict::Stale => return Change::default(),
                Verdict::Keep => {}
                Verdict::Replace => change.entries.push(Entry::Document(id.clone(), doc)),
            }
            if let Endpoint::Alias(name) = endpoint {
                change
                    .entries
                    .push(Entry::Alias(name.clone(), AliasRecord { v: SCHEMA, id }));
            }
        }
        change.entries.push(Entry::Response(
            url.to_owned(),
            ResponseRecord {
                v: SCHEMA,
                body: body.clone(),
                fetched_at: now,
            },
        ));
        change
    }

    /// Applies a planned (and written) change, checking the revision rule
    /// again: changes planned concurrently cannot undo each other.
    pub fn apply(&mut self, change: Change) {
        for entry in change.entries {
            match entry {
                Entry::Response(url, record) => {
                    self.responses.insert(url, record);
                }
                Entry::Document(id, doc) => {
                    if replaces(self.documents.get(&id), &doc) {
                        self.documents.insert(id, doc);
                    }
                }
                Entry::Endpoint(key, record) => {
                    self.endpoints.insert(key, record);
                }
                Entry::Alias(name, record) => {
                    self.aliases.insert(name, record);
                }
            }
        }
    }

    /// The answer to a list query, from the exact URL or computed locally.
    pub fn answer_list(&self, url: &str, endpoint: &Endpoint, query: &Query) -> Result<Answer> {
        if let Some(answer) = self.exact(url) {
            return Ok(answer);
        }
        if let Some(what) = needs_service(query) {
            return Err(not_cached(format!(
                "a query with {what} is answered offline only for the exact URL fetched before"
            )));
        }
        let key = endpoint_key(endpoint);
        let complete = self.endpoints.get(&key).ok_or_else(|| {
            not_cached(format!(
                "the list `{key}` is not complete in the cache: fetch all of it (client.prefetch) to query it offline"
            ))
        })?;
        if complete.locale.as_deref() != query.get_locale() {
            return Err(not_cached(format!(
                "the list `{key}` is cached for another locale"
            )));
        }
        let mut needed: Vec<(String, String)> = query
            .sorting()
            .iter()
            .map(|sort| (sort.key.scope.as_str().to_owned(), sort.key.name.clone()))
            .collect();
        needed.push(("meta".into(), "createdAt".into()));
        needed.push(("meta".into(), "id".into()));
        let mut documents = Vec::with_capacity(complete.ids.len());
        let mut fetched_at = complete.fetched_at;
        for id in &complete.ids {
            let doc = self
                .documents
                .get(id)
                .ok_or_else(|| not_cached(format!("document {id} of `{key}` is not cached")))?;
            if !Selection::covers(doc.selection.as_ref(), query.selection()) {
                return Err(not_cached(format!(
                    "document {id} was cached with a narrower selection than the query's"
                )));
            }
            if let Some((scope, name)) = needed
                .iter()
                .find(|(scope, name)| !Selection::covers_key(doc.selection.as_ref(), scope, name))
            {
                return Err(not_cached(format!(
                    "document {id} was cached without `{scope}.{name}`, which the order needs"
                )));
            }
            fetched_at = fetched_at.min(doc.record.fetched_at);
            documents.push(doc.record.document.clone());
        }
        let text = json!({ "data": documents }).to_string();
        let body = from_engine(&apply_query(&text, query)?)?;
        Ok(Answer { body, fetched_at })
    }

    /// The answer to a single-document query (document, alias, asset), or
    /// any other endpoint, from the exact URL or the cached document.
    pub fn answer_single(&self, url: &str, endpoint: &Endpoint, query: &Query) -> Result<Answer> {
        if let Some(answer) = self.exact(url) {
            return Ok(answer);
        }
        let id = match endpoint {
            Endpoint::Document(id) | Endpoint::Asset(id) => Some(id.clone()),
            Endpoint::Alias(name) => self.aliases.get(name).map(|alias| alias.id.clone()),
            _ => None,
        };
        let doc = id
            .as_ref()
            .and_then(|id| self.documents.get(id))
            .ok_or_else(|| not_cached("this document is not cached"))?;
        if doc.record.locale.as_deref() != query.get_locale()
            || matches!(
                query.get_includes(),
                Some(Includes::Levels(_) | Includes::Fields(_))
            )
        {
            return Err(not_cached(
                "the document is cached for another locale or without includes",
            ));
        }
        if !Selection::covers(doc.selection.as_ref(), query.selection()) {
            return Err(not_cached(
                "the document was cached with a narrower selection than the query's",
            ));
        }
        let body = match query.selection() {
            Some(selection) => {
                from_engine(&select_any(&doc.record.document.to_string(), selection)?)?
            }
            None => doc.record.document.clone(),
        };
        Ok(Answer {
            body,
            fetched_at: doc.record.fetched_at,
        })
    }
}
