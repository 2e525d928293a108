//! What one call of a client carries between its steps, sans IO: the
//! boundary's task (`src/wasm/task.rs`, performed by `src/js/client.js`)
//! keeps a [`Flow`] while JavaScript awaits. Its request, the attempts of
//! its call ([`Call`]), its course under the cache policy ([`Course`]), its
//! paging [`Machine`], and its outcome, which a task sharing another's GET
//! adopts ([`Flow::adopt`]) and a request racing its fetch reads
//! ([`Flow::after`]).
//!
//! ```
//! use content_repo::client::task::Flow;
//! use content_repo::http::call::Call;
//! use content_repo::http::retry::RetryPolicy;
//!
//! let mut flow = Flow { call: Some(Call::new(RetryPolicy::default(), 0, true, 0.0)), ..Flow::default() };
//! assert_eq!(flow.ended(503.0, Some("1"), Some(String::new()), "key", 0.0, 0.5), Ok(Some(1000)));
//! assert_eq!(flow.ended(200.0, None, Some("{}".into()), "key", 1.0, 0.5), Ok(None));
//! assert_eq!(flow.body.as_deref().map(String::as_str), Some("{}"));
//! ```

use std::rc::Rc;

use super::pager::{Pager, Paging};
use super::request::{Course, Request, Response};
use crate::cache::refresh::Refresh;
use crate::cache::{Cache, Change};
use crate::error::{Error, Result};
use crate::http::call::{Call, Ended, Next};
use crate::num::u64_from_f64;
use crate::query::url::Endpoint;
use crate::query::Query;

/// A paging machine: a [`Pager`] or a [`Refresh`].
#[derive(Debug)]
pub enum Machine {
    /// `pages`, `all`, `prefetch`.
    Pager(Box<Pager>),
    /// `refresh`.
    Refresh(Box<Refresh>),
}

impl Machine {
    /// The machine, to step.
    pub fn get(&mut self) -> &mut dyn Paging {
        match self {
            Machine::Pager(pager) => &mut **pager,
            Machine::Refresh(refresh) => &mut **refresh,
        }
    }
}

/// The state of one call of a client between its steps.
#[derive(Debug, Default)]
pub struct Flow {
    /// The request in hand.
    pub request: Option<Rc<Request>>,
    /// Its course under the cache policy, while it fetches.
    pub course: Option<Course>,
    /// The attempts of its GET.
    pub call: Option<Call>,
    /// The body of a 2xx response, until checked; the calls that shared
    /// its GET hold the same text ([`Flow::adopt`]), not a copy each.
    pub body: Option<Rc<String>>,
    /// The answer.
    pub response: Option<Response>,
    /// The failure.
    pub failed: Option<Error>,
    /// When the outcome arrived (Unix ms), for the cache.
    pub at: f64,
    /// The ids a planned record would record ([`Request::plan_record`]).
    pub ids: Option<Option<Vec<Vec<u8>>>>,
    /// The paging machine.
    pub machine: Option<Machine>,
    /// The complete list to refresh.
    pub list: Option<(Endpoint, Query)>,
    /// The complete lists left to refresh (`refreshOnReconnect`), last first.
    pub lists: Option<Vec<(Endpoint, Query)>>,
}

impl Flow {
    /// Plans recording the answer in `cache` (its ids kept for
    /// [`Flow::ids`]). An answer the cache cannot record (a document
    /// without an id) is marked so (a paging machine fails with it) and
    /// gives its error, with whether to report it (a request's answer
    /// stands: the cache tells `onCacheError`).
    pub fn plan_record(&mut self, cache: &mut Cache) -> Result<Change, (Error, bool)> {
        let (Some(request), Some(response)) = (&self.request, &mut self.response) else {
            let error = Error::invalid_argument("no answer to record");
            return Err((error, false));
        };
        match request.plan_record(cache, response, self.at) {
            Ok((change, ids)) => {
                self.ids = Some(ids);
                response.template = change.template();
                Ok(change)
            }
            Err(error) => {
                response.unrecorded = Some(error.clone());
                Err((error, self.machine.is_none()))
            }
        }
    }

    /// `error`, kept as the outcome.
    pub fn fail(&mut self, error: Error) -> Error {
        self.failed = Some(error.clone());
        error
    }

    /// An attempt ended at `now`: with a response when `status` is an HTTP
    /// status and there is a `body` (`text`: its `Retry-After`), else
    /// without one (`text`: what failed). The wait before the next attempt,
    /// or `None` when the body is in ([`Flow::body`]); the call's error is
    /// kept. See [`Call::ended`].
    pub fn ended(
        &mut self,
        status: f64,
        text: Option<&str>,
        body: Option<String>,
        secret: &str,
        now: f64,
        jitter: f64,
    ) -> Result<Option<u64>> {
        let status = u16::try_from(u64_from_f64(status));
        let ended = match (status, body) {
            (Ok(status @ 100..), Some(body)) => Ended::Response {
                status,
                retry_after: text,
                body,
            },
            _ => Ended::Network(text.unwrap_or_default()),
        };
        let next = match self.call.as_mut() {
            Some(call) => call.ended(ended, secret, now, jitter),
            None => Next::Done(Err(Error::Aborted)),
        };
        match next {
            Next::Wait(ms) => Ok(Some(ms)),
            Next::Done(Ok(body)) => {
                self.body = Some(Rc::new(body));
                Ok(None)
            }
            Next::Done(Err(error)) => Err(self.fail(error)),
        }
    }

    /// The error of a call stopped by the caller's signal (`aborted`) or
    /// its deadline, kept.
    pub fn stopped(&mut self, aborted: bool) -> Error {
        let error = self
            .call
            .as_ref()
            .map_or(Error::Aborted, |c| c.stopped(aborted));
        self.fail(error)
    }

    /// Takes the outcome of `owner`'s GET, which this call shared (its
    /// body is shared, not copied: a thousand callers of one list hold it
    /// once); when its deadline cut a retry short, when that retry was due
    /// ([`Call::cut_short`]: this call makes it if its own deadline is
    /// later).
    pub fn adopt(&mut self, owner: &Flow) -> Option<f64> {
        self.body.clone_from(&owner.body);
        self.failed.clone_from(&owner.failed);
        owner.call.as_ref().and_then(Call::cut_short)
    }

    /// Checks the body that came in at `now` as the request's answer,
    /// stamped by `cache` ([`Cache::stamp`]) as it arrives: recording it may
    /// wait for earlier writes, and it is as old as its arrival.
    pub fn answer(&mut self, secret: &str, now: f64, cache: Option<&Cache>) -> Result<()> {
        let body = self.body.take().unwrap_or_default();
        let request = self.request.as_ref().ok_or(Error::Aborted)?;
        self.at = cache.map_or(now, |cache| cache.stamp(now));
        match request.answer(body, secret) {
            Ok(response) => self.response = Some(response),
            Err(error) => return Err(self.fail(error)),
        }
        Ok(())
    }

    /// The answer of the course after the fetch of `fork`: its outcome when
    /// it is `settled`, none when the race's time ran out first.
    /// A fork that has not settled is left as it is (it goes on, and
    /// records its answer).
    pub fn after(&mut self, fork: &mut Flow, settled: bool) -> Result<()> {
        let outcome = settled.then(|| {
            let response = fork.response.take().map(Ok);
            response.or_else(|| fork.failed.clone().map(Err))
        });
        let course = self.course.take().ok_or(Error::Aborted)?;
        self.response = Some(course.after(outcome.flatten())?);
        Ok(())
    }
}
