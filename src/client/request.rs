//! One request of the client and how it is answered, sans IO: its URL, the
//! checks of its response, what the cache records of it, what the cache
//! can answer, and its course under the cache policy ([`Course`], driving
//! [`Machine`]). The boundary fetches, reads and writes the cache, and
//! races timers when told to.
//!
//! ```
//! use content_repo::cache::policy::{Cached, Policy, Settings};
//! use content_repo::cache::Answer;
//! use content_repo::client::request::{Action, Course, Source};
//!
//! let settings = Settings { policy: Policy::CacheFirst, ..Settings::default() };
//! let answer = Answer { body: "{\"data\":[]}".into(), fetched_at: 5.0, page: None };
//! let mut course = Course::new(settings, (Cached::Fresh { age_ms: 1.0 }, Some(answer)), true);
//! let Action::Answer { response, revalidate: false } = course.first() else { panic!() };
//! let response = response?;
//! assert_eq!((response.source, response.cached_at), (Source::Cache, Some(5.0)));
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::rc::Rc;

use crate::cache::policy::{Cached, Machine, Settings, Step};
use crate::cache::{Answer, Cache, Change, Kind};
use crate::client::options::CacheOptions;
use crate::error::{Error, Result};
use crate::http::response::{check, Expect, Facts};
use crate::http::ClientConfig;
use crate::query::url::Endpoint;
use crate::query::Query;
use crate::store::Page;

/// Where an answer came from (results say `"network"` or `"cache"` in
/// `source`: `markSource` of `src/js/storage.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The service.
    Network,
    /// The offline cache.
    Cache,
}

/// A body ready for JavaScript, and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The JSON text.
    pub body: Rc<String>,
    /// A list's count and total (for a cached answer: unread, default).
    pub facts: Facts,
    /// The ids of the documents the cache recorded from it.
    pub ids: Option<Vec<Vec<u8>>>,
    /// Why the cache could not record it (a document without an id, say).
    pub unrecorded: Option<Error>,
    /// The envelope the cache recorded it with, when it has other keys
    /// ([`Change::template`]): a prefetch's list keeps it.
    pub template: Option<crate::store::Template>,
    /// Where it came from.
    pub source: Source,
    /// Whether it is marked stale.
    pub stale: bool,
    /// When a cached answer was received (Unix ms, whole: the cache's
    /// stamps tell apart answers of one millisecond by fractions).
    pub cached_at: Option<f64>,
    /// A list the cache computed: the same answer for a caller that holds
    /// the documents it was delivered ([`Answer::page`]).
    pub page: Option<Rc<(String, Page)>>,
}

impl Response {
    /// A checked body from the service.
    pub fn network(body: Rc<String>, facts: Facts) -> Self {
        Response {
            body,
            facts,
            ids: None,
            unrecorded: None,
            template: None,
            source: Source::Network,
            stale: false,
            cached_at: None,
            page: None,
        }
    }

    /// Whether the body holds no U+FFFD: JavaScript's string of it is then
    /// the same text. A lone surrogate of that string crosses into the
    /// module as U+FFFD, and the answer must be what the cache keeps
    /// (SPEC 4: the same online and offline).
    pub fn crossed_whole(&self) -> bool {
        !crate::json::has_replacement(&self.body)
    }

    /// An answer of the cache.
    pub fn cached(answer: Answer, stale: bool) -> Self {
        Response {
            body: Rc::new(answer.body),
            facts: Facts::default(),
            ids: None,
            unrecorded: None,
            template: None,
            source: Source::Cache,
            stale,
            cached_at: Some(answer.fetched_at.floor()),
            page: answer.page.map(Rc::new),
        }
    }
}

/// One request: where it goes and what its body must be.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The query.
    pub query: Query,
    /// The full URL (never with the key).
    pub url: String,
    /// What a 2xx body must hold.
    pub expect: Expect,
}

impl Request {
    /// The request of `endpoint` with `query` (its URL checked).
    pub fn new(
        config: &ClientConfig,
        endpoint: Endpoint,
        query: Query,
        expect: Expect,
    ) -> Result<Request> {
        let url = config.url(&endpoint, Some(&query))?;
        Ok(Request {
            endpoint,
            query,
            url,
            expect,
        })
    }

    /// What the response is, for the cache.
    pub fn kind(&self) -> Kind {
        match self.expect {
            Expect::List => Kind::List,
            Expect::Document => Kind::Document,
            Expect::Any => Kind::Other,
        }
    }

    /// A 2xx body as the answer: checked for the shape the endpoint
    /// promises (a `decode` error otherwise, `secret` scrubbed).
    pub fn answer(&self, body: impl Into<Rc<String>>, secret: &str) -> Result<Response> {
        let body = body.into();
        let facts = check(&body, self.expect, secret)?;
        Ok(Response::network(body, facts))
    }

    /// Plans recording `response` (from the service) in the cache at `now`;
    /// with the change, the ids of the documents it records (`None` when a
    /// stale list recorded none of its documents).
    pub fn plan_record(
        &self,
        cache: &mut Cache,
        response: &Response,
        now: f64,
    ) -> Result<(Change, Option<Vec<Vec<u8>>>)> {
        let change = cache.plan_response(
            Some(&self.url),
            &self.endpoint,
            &self.query,
            self.kind(),
            response.body.clone(),
            now,
        )?;
        let ids = change.ids();
        let recorded = !ids.is_empty() || response.facts.count == 0;
        Ok((change, recorded.then_some(ids)))
    }

    /// What `cache` can answer at `now` (answers older than `max_age_ms`, or
    /// invalidated, are old), and the answer.
    pub fn lookup(
        &self,
        cache: &mut Cache,
        now: f64,
        max_age_ms: Option<f64>,
    ) -> (Cached, Option<Answer>) {
        let answer = match self.expect {
            Expect::List => cache.answer_list(&self.url, &self.endpoint, &self.query),
            _ => cache.answer_single(&self.url, &self.endpoint, &self.query),
        };
        match answer {
            Ok(answer) => {
                let cached = cache.freshness(&self.endpoint, answer.fetched_at, now, max_age_ms);
                (cached, Some(answer))
            }
            Err(error) => (Cached::Nothing(error), None),
        }
    }
}

/// What to do for a request with a cache.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Answer from the cache; with `revalidate`, also fetch (and record)
    /// in the background.
    Answer {
        /// The answer.
        response: Result<Response>,
        /// Whether to refresh the cache in the background.
        revalidate: bool,
    },
    /// Fetch (retrying network errors or not) and record, then call
    /// [`Course::after`]; with `race_ms`, call it with `None` if the
    /// network has not answered by then (the fetch goes on and records).
    Fetch {
        /// Whether network errors are retried.
        retry_network: bool,
        /// The network's head start over the cache.
        race_ms: Option<u64>,
    },
    /// Fail with this error.
    Fail(Error),
}

/// The course of one request under the cache policy: the policy
/// [`Machine`] with the cache's answer in hand.
#[derive(Debug, Clone, PartialEq)]
pub struct Course {
    machine: Machine,
    answer: Option<Answer>,
}

fn went_away() -> Error {
    Error::NotCached {
        message: "the cached answer went away".into(),
    }
}

impl Course {
    /// A request under `settings`, with what the cache can answer
    /// ([`Request::lookup`]) and whether the runtime is online.
    pub fn new(settings: Settings, found: (Cached, Option<Answer>), online: bool) -> Self {
        Course {
            machine: Machine::new(settings, found.0, online),
            answer: found.1,
        }
    }

    /// The course of `request` under the `cache` option, with what `cache`
    /// can answer at `now` ([`Request::lookup`]); `online` is asked only
    /// when the policy's first step depends on it.
    pub fn start(
        request: &Request,
        cache: &mut Cache,
        options: &CacheOptions,
        now: f64,
        online: impl FnOnce() -> bool,
    ) -> Self {
        let found = request.lookup(cache, now, options.max_age_ms);
        let asks = Machine::asks_online(options.settings, &found.0);
        Course::new(options.settings, found, !asks || online())
    }

    /// The first action.
    pub fn first(&mut self) -> Action {
        match self.machine.first() {
            Step::Cache { stale, revalidate } => Action::Answer {
                response: self.cached(stale),
                revalidate,
            },
            Step::Network {
                retry_network_errors,
                cache_after_ms,
            } => Action::Fetch {
                retry_network: retry_network_errors,
                race_ms: cache_after_ms,
            },
            Step::Answer => Action::Fail(Error::Network {
                message: "no request was made".into(),
            }),
            Step::Fail(error) => Action::Fail(error),
        }
    }

    /// The answer after [`Action::Fetch`]: the network's outcome, or `None`
    /// when `race_ms` passed first.
    pub fn after(mut self, outcome: Option<Result<Response>>) -> Result<Response> {
        let step = match &outcome {
            None => self.machine.after_network(Ok(()), true),
            Some(Ok(_)) => self.machine.after_network(Ok(()), false),
            Some(Err(error)) => self.machine.after_network(Err(error), false),
        };
        match (step, outcome) {
            (Step::Answer, Some(Ok(response))) => Ok(response),
            (Step::Cache { stale, .. }, _) => self.cached(stale),
            (Step::Fail(error), _) | (_, Some(Err(error))) => Err(error),
            _ => Err(Error::Network {
                message: "the request ended without an answer".into(),
            }),
        }
    }

    fn cached(&mut self, stale: bool) -> Result<Response> {
        let answer = self.answer.take().ok_or_else(went_away)?;
        Ok(Response::cached(answer, stale))
    }
}
