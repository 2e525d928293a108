//! Paging through a list (`pages`, `all`, `prefetch`), sans IO: the pager
//! says which page to fetch next, when the list is over (a short or empty
//! page, `meta.total` reached), when it has more than `maxPages` pages (a
//! list that never ends), what to write to the cache once every page of a
//! prefetch is in, and the answer: `all`'s pages combined into one list,
//! `prefetch`'s `{ loaded, total }`.
//!
//! ```
//! use std::rc::Rc;
//! use content_repo::client::options::{ListArgs, ListCall};
//! use content_repo::client::pager::{Done, Pager, Paging, Step, Via};
//! use content_repo::client::request::Response;
//! use content_repo::http::response::{check, Expect};
//! use content_repo::{ClientConfig, Endpoint, Query};
//!
//! let config = ClientConfig::new("https://cms.example.com", "demo", "key", None)?;
//! let args = ListArgs {
//!     endpoint: Endpoint::Documents,
//!     query: Query::new(),
//!     limit: 2,
//!     max_pages: 10,
//!     signal: false,
//!     progress: false,
//! };
//! let mut pager = Pager::new(ListCall::All, args);
//! let pages = [r#"{"data":[{"a":1},{"a":2}]}"#, r#"{"data":[{"a":3}]}"#];
//! for text in pages {
//!     let Step::Fetch { request, via: Via::Policy } = pager.step(&config)? else { panic!() };
//!     assert!(request.url.ends_with("limit=2&offset=0") || request.url.ends_with("offset=2"));
//!     let facts = check(text, Expect::List, "key")?;
//!     pager.receive(None, &mut Response::network(Rc::new(text.into()), facts), 0.0)?;
//! }
//! let Step::Done(Done::List(list)) = pager.step(&config)? else { panic!() };
//! assert_eq!(
//!     list.body.as_str(),
//!     r#"{"data":[{"a":1},{"a":2},{"a":3}],"meta":{"count":3,"limit":3,"offset":0,"total":3}}"#
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::rc::Rc;

use super::options::{ListArgs, ListCall};
use super::request::{Request, Response, Source};
use crate::cache::{page_ids, Cache, Change};
use crate::engine::list::{frame_valid, Entry, Shape};
use crate::error::{Error, Result};
use crate::hash::Map;
use crate::http::response::{list_facts, next_offset, Expect, Facts};
use crate::http::ClientConfig;
use crate::json;
use std::ops::Range;

/// How to fetch a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Under the cache policy (`pages`, `all`).
    Policy,
    /// From the service, recorded in the cache (`prefetch`).
    Record,
    /// From the service only (a refresh plans what its pages change).
    Plain,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Fetch this page (checked as a list), then call [`Paging::receive`].
    Fetch {
        /// The page's request.
        request: Box<Request>,
        /// How.
        via: Via,
    },
    /// Write [`Paging::write`]'s change to the cache, then step again.
    Write,
    /// It is over.
    Done(Done),
}

/// The answer once the pages are over.
#[derive(Debug, Clone, PartialEq)]
pub enum Done {
    /// `pages`: no more pages.
    Pages,
    /// `all`: every document in one list envelope.
    List(Response),
    /// `prefetch`: the documents loaded, and the list's total.
    Prefetched {
        /// How many documents were recorded.
        loaded: usize,
        /// `meta.total` of the last page (or `loaded`).
        total: u64,
    },
    /// `refresh`: the documents changed and deleted, and the list's size.
    Refreshed {
        /// New documents, or with a newer revision.
        changed: usize,
        /// Documents no longer in the list.
        deleted: usize,
        /// The list's size afterwards.
        total: usize,
    },
}

impl Done {
    /// The numbers a `prefetch` (`loaded`, `total`) or a `refresh`
    /// (`changed`, `deleted`, `total`) resolves to, as an object's entries.
    pub fn counts(&self) -> Vec<(&'static str, f64)> {
        match *self {
            Done::Prefetched { loaded, total } => {
                vec![("loaded", loaded as f64), ("total", total as f64)]
            }
            Done::Refreshed {
                changed,
                deleted,
                total,
            } => vec![
                ("changed", changed as f64),
                ("deleted", deleted as f64),
                ("total", total as f64),
            ],
            Done::Pages | Done::List(_) => Vec::new(),
        }
    }
}

/// A sans-IO paging through a list's requests: the [`Pager`] of `pages`,
/// `all` and `prefetch`, a delta refresh ([`crate::cache::refresh::Refresh`]).
/// The boundary performs each [`Step`] and feeds the outcome back.
pub trait Paging {
    /// The next step.
    fn step(&mut self, config: &ClientConfig) -> Result<Step>;

    /// Takes in the page fetched for the last [`Step::Fetch`], which arrived
    /// at `now` (as [`Cache::stamp`] gave it; `cache`: the client's cache, if
    /// any); returns `(loaded, total)` for `onProgress` when there is
    /// progress to report.
    fn receive(
        &mut self,
        cache: Option<&mut Cache>,
        page: &mut Response,
        now: f64,
    ) -> Result<Option<(usize, u64)>>;

    /// After [`Step::Write`]: the change to write to the cache (as of when
    /// the first page arrived).
    fn write(&mut self, cache: &Cache) -> Result<Change>;
}

/// What a pager gathers from its pages.
#[derive(Debug, Clone, PartialEq)]
enum Gathered {
    /// `pages`: nothing, each page is the answer.
    Nothing,
    /// `all`: the pages' documents and envelope, where they came from.
    List {
        list: Box<Collected>,
        source: Source,
        stale: bool,
        cached_at: Option<f64>,
    },
    /// `prefetch`: the ids recorded (`None` once written), the total, the
    /// first page's `meta.total`, and why the list cannot be recorded as
    /// complete (a page the cache refused as stale, a list that changed
    /// while it was read).
    Ids {
        ids: Option<Vec<Vec<u8>>>,
        loaded: usize,
        total: u64,
        listed: Option<u64>,
        refused: Option<Error>,
        template: Option<crate::store::Template>,
    },
}

/// The linked documents of one content type in `all`'s list: its name, its
/// key as first written, the documents joined (or the value as written),
/// and whether that value is not an array.
type Linked = (Vec<u8>, Vec<u8>, Vec<u8>, bool);

/// `all`'s list so far: its pages' documents (their text, joined), the
/// first page's envelope, and the linked documents of every page.
#[derive(Debug, Clone, PartialEq, Default)]
struct Collected {
    data: Vec<u8>,
    count: usize,
    /// The first page's entries in order ([`crate::store::markers`]), with
    /// `includes` as the marker 2 (written anew).
    head: Option<Vec<u8>>,
    /// `includes`, by content type (its name, its key as first written) in
    /// the order met: the documents joined, each once (by `meta.id`); or,
    /// `true`, a value that is not an array, as first written.
    includes: Vec<Linked>,
    /// Whether the first page's `includes` is not an object: it stays as
    /// written, nothing merged.
    written: bool,
    /// The content type and id of each linked document taken (a map type
    /// the module has already).
    seen: Map<Vec<u8>, usize>,
}

impl Collected {
    /// Takes in a page: its documents, the envelope of the first, and the
    /// linked documents not taken yet.
    fn add(&mut self, text: &str, documents: &[Range<usize>], entries: &[Entry]) {
        for range in documents {
            if self.count > 0 {
                self.data.push(b',');
            }
            self.data
                .extend_from_slice(text.get(range.clone()).unwrap_or("null").as_bytes());
            self.count += 1;
        }
        let includes = entries.iter().find(|entry| entry.name == b"includes");
        let object = includes.and_then(|entry| text.get(entry.value.clone()));
        if self.head.is_none() {
            // (An `includes` other than an object stays as written.)
            self.head = Some(crate::store::markers(text, entries, Some(2)));
            self.written = object.is_some_and(|value| !value.starts_with('{'));
        }
        // Merged unless the first page's is kept as written.
        if let Some(object) = object.filter(|value| !self.written && value.starts_with('{')) {
            self.add_includes(object);
        }
    }

    /// Takes in a page's `includes` object: of each content type (its
    /// last entry, as `JSON.parse` reads it), the documents not taken yet.
    fn add_includes(&mut self, object: &str) {
        let bytes = object.as_bytes();
        // (name, key as written, value)
        let mut types: Vec<(Vec<u8>, Range<usize>, Range<usize>)> = Vec::new();
        let read = crate::engine::list::entries(bytes, 0, |name, key, value| {
            let end = json::value_end_as(bytes, value, None)?;
            match types.iter_mut().find(|(known, ..)| known == name) {
                Some(found) => found.2 = value..end,
                None => types.push((name.to_vec(), key, value..end)),
            }
            Ok(end)
        });
        if read.is_err() {
            return;
        }
        for (name, key, value) in types {
            let array = object.get(value).unwrap_or_default();
            let documents = match frame_valid(array) {
                Ok(Shape::Array(documents)) => Some(documents),
                _ => None,
            };
            let at = match self.includes.iter().position(|(known, ..)| *known == name) {
                Some(at) => at,
                None => {
                    let key = bytes.get(key).unwrap_or_default().to_vec();
                    // Not an array: as written (the first met stays).
                    let raw = documents.is_none();
                    let value = if raw {
                        array.as_bytes().to_vec()
                    } else {
                        Vec::new()
                    };
                    self.includes.push((name.clone(), key, value, raw));
                    self.includes.len() - 1
                }
            };
            let (Some((_, _, joined, false)), Some(documents)) =
                (self.includes.get_mut(at), documents)
            else {
                continue;
            };
            for range in documents {
                // Each document once, by content type and id (those
                // without an id each time).
                if let Some(id) = crate::cache::document_id(array, range.clone()) {
                    let mut seen = name.clone();
                    seen.push(0x1f);
                    seen.extend_from_slice(&id);
                    if self.seen.insert(seen, 0).is_some() {
                        continue;
                    }
                }
                if !joined.is_empty() {
                    joined.push(b',');
                }
                joined.extend_from_slice(array.get(range).unwrap_or("null").as_bytes());
            }
        }
    }

    /// The list's text, with `meta`: the first page's envelope (`meta`
    /// last when it had none, `includes` last when only later pages had
    /// some), the documents of every page, and their linked documents.
    fn body(&self, meta: &str) -> Rc<String> {
        let mut head = self
            .head
            .clone()
            .unwrap_or_else(|| b"{\"data\":\0}".to_vec());
        for (marker, name) in [(1, &b"meta"[..]), (2, b"includes")] {
            if !head.contains(&marker) && (marker == 1 || !self.includes.is_empty()) {
                head.pop();
                head.push(b',');
                head.push(b'"');
                head.extend_from_slice(name);
                head.extend_from_slice(b"\":");
                head.push(marker);
                head.push(b'}');
            }
        }
        let mut out = Vec::with_capacity(self.data.len() + head.len() + meta.len() + 64);
        for &byte in &head {
            match byte {
                0 => {
                    out.push(b'[');
                    out.extend_from_slice(&self.data);
                    out.push(b']');
                }
                1 => out.extend_from_slice(meta.as_bytes()),
                2 => {
                    out.push(b'{');
                    for (position, (_, key, joined, raw)) in self.includes.iter().enumerate() {
                        if position > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(key);
                        out.push(b':');
                        match raw {
                            true => out.extend_from_slice(joined),
                            false => {
                                out.push(b'[');
                                out.extend_from_slice(joined);
                                out.push(b']');
                            }
                        }
                    }
                    out.push(b'}');
                }
                _ => out.push(byte),
            }
        }
        // Slices of text and ASCII, so UTF-8: no pass that replaces.
        Rc::new(
            String::from_utf8(out)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
        )
    }
}

/// The state of one paging through a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Pager {
    call: ListCall,
    args: ListArgs,
    /// The offset of the first page.
    start: u64,
    /// The offset of the next page; `None` once the last page was read.
    next: Option<u64>,
    /// Pages read.
    pages: u64,
    /// When the first page arrived.
    first_at: Option<f64>,
    gathered: Gathered,
}

impl Pager {
    /// A pager for `call` (`pages`, `all` or `prefetch`), from the query's
    /// `offset` in steps of `args.limit`.
    pub fn new(call: ListCall, args: ListArgs) -> Self {
        let start = args.query.get_offset().unwrap_or(0);
        let gathered = match call {
            ListCall::All => Gathered::List {
                list: Box::default(),
                source: Source::Network,
                stale: false,
                cached_at: None,
            },
            ListCall::Prefetch => Gathered::Ids {
                ids: Some(Vec::new()),
                loaded: 0,
                total: 0,
                listed: None,
                refused: None,
                template: None,
            },
            ListCall::Pages | ListCall::Refresh => Gathered::Nothing,
        };
        Pager {
            call,
            args,
            start,
            next: Some(start),
            pages: 0,
            first_at: None,
            gathered,
        }
    }

    /// Takes in a page (a prefetch takes its recorded ids out); `(loaded,
    /// total)` for a prefetch's progress.
    fn take(&mut self, page: &mut Response) -> Option<(usize, u64)> {
        let offset = self.next?;
        // Pages are checked text (a checked response, an answer of the
        // cache): framed without checking them again, and only when a
        // cached page's count and total or the documents are needed.
        let gathers = matches!(self.gathered, Gathered::List { .. });
        let shape = (gathers || page.source == Source::Cache)
            .then(|| frame_valid(&page.body).ok())
            .flatten();
        let facts = match (page.source, &shape) {
            (Source::Cache, Some(shape)) => list_facts(&page.body, shape),
            (Source::Cache, None) => Facts::default(),
            (Source::Network, _) => page.facts,
        };
        self.pages += 1;
        self.next = next_offset(facts, offset, u64::from(self.args.limit));
        match &mut self.gathered {
            Gathered::Nothing => None,
            Gathered::List {
                list,
                source,
                stale,
                cached_at,
            } => {
                // From the cache if any page was, stale if any page was.
                if page.source == Source::Cache {
                    *source = Source::Cache;
                    *cached_at = page.cached_at;
                }
                *stale |= page.stale;
                if let Some(Shape::Envelope { documents, entries }) = shape {
                    list.add(&page.body, &documents, &entries);
                }
                None
            }
            Gathered::Ids {
                ids,
                loaded,
                total,
                listed,
                refused,
                template,
            } => {
                let ids = ids.get_or_insert_with(Vec::new);
                // The envelope of its latest page is the list's.
                *template = page.template.take();
                match page.ids.take() {
                    Some(recorded) => ids.extend(recorded),
                    None => {
                        let before = ids.len();
                        ids.extend(page_ids(&page.body));
                        // A page that recorded none of its documents was stale.
                        if ids.len() > before && refused.is_none() {
                            *refused = Some(not_complete(
                                "a page of the list held a document older than the cached one \
                                 (the service lags behind what was fetched before)",
                            ));
                        }
                    }
                }
                // Pages are read by offset: a list whose `meta.total` moved
                // between them changed while it was read, and a document may
                // have been read twice or not at all (pages without a total
                // say nothing of it).
                match (*listed, facts.total) {
                    (Some(first), Some(total)) if first != total && refused.is_none() => {
                        let why = "the list changed on the service while it was read";
                        *refused = Some(not_complete(why));
                    }
                    (None, total) => *listed = total,
                    _ => {}
                }
                *loaded = ids.len();
                *total = facts.total.unwrap_or(ids.len() as u64);
                Some((*loaded, *total))
            }
        }
    }

    /// Whether it gathers its pages into one list (`all`).
    pub fn gathers(&self) -> bool {
        matches!(self.gathered, Gathered::List { .. })
    }

    /// Ends the paging (`return()` of the iterator).
    pub fn finish(&mut self) {
        self.next = None;
    }

    /// The page size.
    pub fn limit(&self) -> u32 {
        self.args.limit
    }
}

/// A prefetch's list that cannot be recorded as complete, and why.
fn not_complete(why: &str) -> Error {
    Error::NotCached {
        message: format!("{why}: the list was not recorded as complete; prefetch it again (later)"),
    }
}

impl Paging for Pager {
    /// The next step: fetch the next page, record a complete prefetch, or
    /// done. An `invalid_argument` error when there are more pages after
    /// `maxPages`.
    fn step(&mut self, config: &ClientConfig) -> Result<Step> {
        if let Some(offset) = self.next {
            if self.pages >= self.args.max_pages {
                let advice = match self.call {
                    ListCall::Prefetch => "raise maxPages to prefetch all of it",
                    _ => "raise maxPages or narrow the query",
                };
                return Err(Error::invalid_argument(format!(
                    "the list has more than maxPages ({}) pages of {}; {advice}",
                    self.args.max_pages, self.args.limit
                )));
            }
            let mut query = self.args.query.clone();
            query.limit(self.args.limit)?.offset(offset)?;
            let endpoint = self.args.endpoint.clone();
            let request = Box::new(Request::new(config, endpoint, query, Expect::List)?);
            let via = match self.call {
                ListCall::Prefetch => Via::Record,
                _ => Via::Policy,
            };
            return Ok(Step::Fetch { request, via });
        }
        Ok(match &mut self.gathered {
            Gathered::Nothing => Step::Done(Done::Pages),
            Gathered::List {
                list,
                source,
                stale,
                cached_at,
            } => {
                let count = list.count;
                let total = self.start.saturating_add(count as u64);
                let meta = format!(
                    r#"{{"count":{count},"limit":{count},"offset":{},"total":{total}}}"#,
                    self.start,
                );
                let body = list.body(&meta);
                // Its facts: the documents, and `meta.total` (the offset is
                // the total less the count).
                let total = Some(total);
                Step::Done(Done::List(Response {
                    body,
                    facts: Facts { count, total },
                    ids: None,
                    unrecorded: None,
                    template: None,
                    source: *source,
                    stale: *stale,
                    cached_at: *cached_at,
                    page: None,
                }))
            }
            Gathered::Ids { ids: Some(_), .. } => Step::Write,
            Gathered::Ids { loaded, total, .. } => Step::Done(Done::Prefetched {
                loaded: *loaded,
                total: *total,
            }),
        })
    }

    /// Takes in a page; a prefetch fails with the error of a page the
    /// cache could not record.
    fn receive(
        &mut self,
        _cache: Option<&mut Cache>,
        page: &mut Response,
        now: f64,
    ) -> Result<Option<(usize, u64)>> {
        self.first_at.get_or_insert(now);
        if let (Gathered::Ids { .. }, Some(error)) = (&self.gathered, page.unrecorded.take()) {
            return Err(error);
        }
        Ok(self.take(page))
    }

    /// Plans recording that the list (in the query's variant) holds exactly
    /// the documents recorded from its pages (a prefetch).
    fn write(&mut self, cache: &Cache) -> Result<Change> {
        let (ids, template) = match &mut self.gathered {
            Gathered::Ids {
                refused: Some(error),
                ..
            } => return Err(error.clone()),
            Gathered::Ids { ids, template, .. } => {
                (ids.take().unwrap_or_default(), template.take())
            }
            _ => (Vec::new(), None),
        };
        // A document read twice: the list moved while it was read.
        let unique: crate::hash::Set<&[u8]> = ids.iter().map(Vec::as_slice).collect();
        if unique.len() < ids.len() {
            return Err(not_complete(
                "the list changed on the service while it was read (a document came twice)",
            ));
        }
        let first_at = self.first_at.unwrap_or_default();
        let (endpoint, query) = (&self.args.endpoint, &self.args.query);
        cache.plan_complete(endpoint, query, ids, first_at, template)
    }
}

#[cfg(test)]
mod tests {
    use super::Collected;
    use crate::engine::list::{frame_valid, Shape};

    fn add(list: &mut Collected, text: &str) {
        let Ok(Shape::Envelope { documents, entries }) = frame_valid(text) else {
            panic!("not a list: {text}");
        };
        list.add(text, &documents, &entries);
    }

    /// `all`'s list: the first page's envelope (its other keys as written,
    /// `meta` last when it had none), every page's documents, and their
    /// linked documents by content type (named alike however escaped; of a
    /// repeated key, the last, as `JSON.parse` reads it), each once by id.
    #[test]
    fn all_keeps_the_first_envelope_and_merges_the_linked_documents() {
        let mut list = Collected::default();
        add(
            &mut list,
            r#"{"status":"ok","data":[{"meta":{"id":"1"}}],"includes":{"a":[{"meta":{"id":"x"}},{"fields":{}}],"b":[{"meta":{"id":"y"}}],"b":[{"meta":{"id":"z"}}]}}"#,
        );
        add(
            &mut list,
            r#"{"data":[{"meta":{"id":"2"}}],"status":"later","includes":{"\u0061":[{"meta":{"id":"x"}},{"meta":{"id":"w"}},{"fields":{}}],"c":[]}}"#,
        );
        assert_eq!(
            list.body(r#"{"count":2}"#).as_str(),
            r#"{"status":"ok","data":[{"meta":{"id":"1"}},{"meta":{"id":"2"}}],"includes":{"a":[{"meta":{"id":"x"}},{"fields":{}},{"meta":{"id":"w"}},{"fields":{}}],"b":[{"meta":{"id":"z"}}],"c":[]},"meta":{"count":2}}"#
        );
        // Linked documents only in a later page: `includes` after the rest.
        let mut list = Collected::default();
        add(&mut list, r#"{"meta":{},"data":[]}"#);
        add(&mut list, r#"{"data":[],"includes":{"a":[]}}"#);
        assert_eq!(
            list.body("{}").as_str(),
            r#"{"meta":{},"data":[],"includes":{"a":[]}}"#
        );
        // What is not an object of arrays stays as `JSON.parse` reads it: an
        // `includes` of another kind (the first page's), a content type's
        // value that is not an array (the first met).
        for (first, later, expected) in [
            ("[]", r#"{"a":[1]}"#, "[]"),
            ("null", "null", "null"),
            (
                r#"{"a":null,"b":[{"meta":{"id":"1"}}]}"#,
                r#"{"a":[2],"b":5}"#,
                r#"{"a":null,"b":[{"meta":{"id":"1"}}]}"#,
            ),
        ] {
            let mut list = Collected::default();
            add(&mut list, &format!(r#"{{"data":[],"includes":{first}}}"#));
            add(&mut list, &format!(r#"{{"data":[],"includes":{later}}}"#));
            let expected = format!(r#"{{"data":[],"includes":{expected},"meta":{{}}}}"#);
            assert_eq!(list.body("{}").as_str(), expected, "{first} then {later}");
        }
    }
}
