//! One call of the client as a sans-IO state machine: its attempts, the
//! waits between them (see [`RetryPolicy`]) and its deadline. The boundary
//! sends an attempt, says how it [`Ended`], and gets told what is [`Next`]:
//! wait and send again, or done with a body or a typed error. A call is also
//! ended from outside, by its deadline or the caller's signal
//! ([`Call::stopped`]).
//!
//! ```
//! use content_repo::http::call::{Call, Ended, Next};
//! use content_repo::http::retry::RetryPolicy;
//!
//! let mut call = Call::new(RetryPolicy::default(), 30_000, true, 0.0);
//! let busy = Ended::Response { status: 503, retry_after: Some("2"), body: String::new() };
//! assert_eq!(call.ended(busy, "key", 0.0, 0.5), Next::Wait(2000));
//! let ok = Ended::Response { status: 200, retry_after: None, body: "{}".into() };
//! assert_eq!(call.ended(ok, "key", 2000.0, 0.5), Next::Done(Ok("{}".into())));
//! ```

use super::response::{excerpt, http_error, MESSAGE_CHARS};
use super::retry::{Outcome, RetryPolicy};
use crate::error::{Error, Result};

/// How one attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended<'a> {
    /// A response: its status, `Retry-After` header and body.
    Response {
        /// The HTTP status (100 to 599).
        status: u16,
        /// The `Retry-After` header, if any.
        retry_after: Option<&'a str>,
        /// The whole body.
        body: String,
    },
    /// No response: `fetch` or the body read failed (this says how).
    Network(&'a str),
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Wait this many milliseconds, then send the next attempt.
    Wait(u64),
    /// The call is over: the body of a 2xx response, or why it failed.
    Done(Result<String>),
}

/// The decisions of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    policy: RetryPolicy,
    timeout_ms: u64,
    /// When the call times out (Unix ms), if it has a timeout.
    deadline: Option<f64>,
    retry_network: bool,
    /// Retries made so far.
    retry: u32,
    /// When the retry the deadline cut short was due (Unix ms).
    cut_short: Option<f64>,
}

impl Call {
    /// A call started at `now` (Unix ms) under `policy`, with a budget of
    /// `timeout_ms` for all its attempts and waits (0: none). Without
    /// `retry_network`, a network failure ends the call at once (the
    /// offline cache answers instead).
    pub fn new(policy: RetryPolicy, timeout_ms: u64, retry_network: bool, now: f64) -> Self {
        Call {
            policy,
            timeout_ms,
            deadline: (timeout_ms > 0).then_some(now + timeout_ms as f64),
            retry_network,
            retry: 0,
            cut_short: None,
        }
    }

    /// The next step after an attempt `ended` at `now`; `secret` is
    /// scrubbed from every message, `jitter` is a random number in
    /// `[0, 1)`. A 2xx response is the answer; any other status is an
    /// `http` error, a failure without a response a `network` error; either
    /// is retried when the policy says so and the wait ends before the
    /// deadline.
    pub fn ended(&mut self, ended: Ended<'_>, secret: &str, now: f64, jitter: f64) -> Next {
        let (error, outcome) = match ended {
            Ended::Response { status, body, .. } if (200..300).contains(&status) => {
                return Next::Done(Ok(body))
            }
            Ended::Response {
                status,
                retry_after,
                body,
            } => (
                http_error(status, &body, secret),
                Outcome::Status {
                    status,
                    retry_after,
                },
            ),
            Ended::Network(message) => {
                let error = Error::Network {
                    message: excerpt(message, secret, MESSAGE_CHARS),
                };
                if !self.retry_network {
                    return Next::Done(Err(error));
                }
                (error, Outcome::Network)
            }
        };
        let Some(delay) = self.policy.delay(self.retry, &outcome, now, jitter) else {
            return Next::Done(Err(error));
        };
        // Waiting past the deadline would only end in a timeout: report the
        // failure we have instead (and when the retry was due).
        let due = now + delay as f64;
        if self.deadline.is_some_and(|deadline| due >= deadline) {
            self.cut_short = Some(due);
            return Next::Done(Err(error));
        }
        self.retry = self.retry.saturating_add(1);
        Next::Wait(delay)
    }

    /// The error of a call stopped from outside: by the caller's signal
    /// (`aborted`), else by its deadline.
    pub fn stopped(&self, aborted: bool) -> Error {
        if aborted {
            Error::Aborted
        } else {
            Error::Timeout {
                ms: self.timeout_ms,
            }
        }
    }

    /// How many retries were made.
    pub fn retries(&self) -> u32 {
        self.retry
    }

    /// When the retry was due (Unix ms) that the policy allowed but the
    /// deadline did not, if that is how the call ended: a call that shared
    /// this one's GET with a later deadline would have made it.
    pub fn cut_short(&self) -> Option<f64> {
        self.cut_short
    }
}

/// The key under which a GET of `url` is shared with the other GETs of the
/// same URL while it is pending, or `None` when it is not shared: a call
/// with the caller's signal runs alone (its abort is its own), and calls
/// that retry an unreachable network and calls that do not are not shared.
pub fn shared_key(url: &str, has_signal: bool, retry_network: bool) -> Option<String> {
    (!has_signal).then(|| format!("{}{url}", u8::from(retry_network)))
}
