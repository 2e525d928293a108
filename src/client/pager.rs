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
use crate::engine::list::{frame_valid, Shape};
use crate::error::{Error, Result};
use crate::http::response::{list_facts, next_offset, Expect, Facts};
use crate::http::ClientConfig;

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
    /// `all`: the documents' text, where they came from.
    List {
        data: Vec<u8>,
        count: usize,
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
                data: b"{\"data\":[".to_vec(),
                count: 0,
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
                data,
                count,
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
                if let Some(Shape::Envelope { documents, .. }) = shape {
                    for range in documents {
                        if *count > 0 {
                            data.push(b',');
                        }
                        data.extend_from_slice(page.body.get(range).unwrap_or("null").as_bytes());
                        *count += 1;
                    }
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
                data,
                count,
                source,
                stale,
                cached_at,
            } => {
                // Slices of text and ASCII, so UTF-8: no pass that replaces.
                let mut body = String::from_utf8(data.clone())
                    .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
                let total = self.start.saturating_add(*count as u64);
                body.push_str(&format!(
                    r#"],"meta":{{"count":{count},"limit":{count},"offset":{},"total":{total}}}}}"#,
                    self.start,
                ));
                // Its facts: the documents, and `meta.total` (the offset is
                // the total less the count).
                let (count, total) = (*count, Some(total));
                Step::Done(Done::List(Response {
                    body: Rc::new(body),
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
