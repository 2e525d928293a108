//! The cache policy as a sans-IO state machine: given what the cache can
//! answer, whether the runtime says it is online, and (later) how the
//! network call ended, it says what to do next. The boundary performs the
//! steps (asks the cache, calls `fetch`, starts timers) and feeds the
//! outcomes back; every decision is here, tested natively.
//!
//! ```
//! use content_repo::cache::policy::{Cached, Machine, Policy, Settings, Step};
//!
//! let settings = Settings { policy: Policy::NetworkFirst, ..Settings::default() };
//! // Offline, with an answer in the cache: answer at once, marked stale.
//! let machine = Machine::new(settings, Cached::Fresh { age_ms: 10.0 }, false);
//! assert_eq!(machine.first(), Step::Cache { stale: true, revalidate: false });
//! ```

use crate::error::Error;

/// When a client answers from its cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// The network; the cache when the network fails (or is slower than
    /// `networkTimeoutMs`, or the runtime is offline).
    #[default]
    NetworkFirst,
    /// The cache when it can answer with a fresh answer, else the network.
    CacheFirst,
    /// The cache when it can answer, refreshed in the background.
    StaleWhileRevalidate,
    /// The cache only.
    CacheOnly,
}

impl Policy {
    /// Reads a policy name.
    pub fn parse(name: &str) -> Option<Policy> {
        match name {
            "network-first" => Some(Policy::NetworkFirst),
            "cache-first" => Some(Policy::CacheFirst),
            "stale-while-revalidate" => Some(Policy::StaleWhileRevalidate),
            "cache-only" => Some(Policy::CacheOnly),
            _ => None,
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::NetworkFirst => "network-first",
            Policy::CacheFirst => "cache-first",
            Policy::StaleWhileRevalidate => "stale-while-revalidate",
            Policy::CacheOnly => "cache-only",
        }
    }
}

/// The cache options that decide.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Settings {
    /// The policy.
    pub policy: Policy,
    /// `network-first`: answer from the cache when the network has not
    /// answered after this long (the request goes on and updates the cache).
    pub network_timeout_ms: Option<u64>,
}

/// What the cache can answer for a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Cached {
    /// Nothing: why (a `not_cached` error).
    Nothing(Error),
    /// An answer within `maxAgeMs` and not invalidated.
    Fresh {
        /// How old it is.
        age_ms: f64,
    },
    /// An answer older than `maxAgeMs`, or invalidated.
    Old {
        /// How old it is.
        age_ms: f64,
    },
}

impl Cached {
    fn available(&self) -> bool {
        !matches!(self, Cached::Nothing(_))
    }

    fn is_old(&self) -> bool {
        matches!(self, Cached::Old { .. })
    }
}

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Answer from the cache; with `revalidate`, also ask the network in
    /// the background and record its answer.
    Cache {
        /// Whether the answer is marked stale.
        stale: bool,
        /// Whether to refresh the cache in the background.
        revalidate: bool,
    },
    /// Ask the network.
    Network {
        /// Whether network errors are retried (not when the cache can answer
        /// instead: an unreachable network answers from the cache at once).
        retry_network_errors: bool,
        /// Answer from the cache if the network has not answered by then.
        cache_after_ms: Option<u64>,
    },
    /// Answer with the network's response.
    Answer,
    /// Fail with this error.
    Fail(Error),
}

/// Whether a failed request may be answered from the cache: the network
/// failed (unreachable, too slow, 429 or 5xx), not the request.
pub fn is_network_failure(error: &Error) -> bool {
    match error {
        Error::Network { .. } | Error::Timeout { .. } => true,
        Error::Http { status, .. } => *status == 429 || *status >= 500,
        _ => false,
    }
}

/// The decisions of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    settings: Settings,
    cached: Cached,
    online: bool,
}

impl Machine {
    /// A request under `settings`, the cache able to answer as `cached`,
    /// the runtime online or not (`navigator.onLine`).
    pub fn new(settings: Settings, cached: Cached, online: bool) -> Self {
        Machine {
            settings,
            cached,
            online,
        }
    }

    /// Whether the first step under `settings` depends on the runtime
    /// being online: not when the policy answers from `cached` anyway.
    pub fn asks_online(settings: Settings, cached: &Cached) -> bool {
        let (available, old) = (cached.available(), cached.is_old());
        match settings.policy {
            Policy::CacheOnly => false,
            Policy::CacheFirst => !available || old,
            Policy::StaleWhileRevalidate => !available,
            Policy::NetworkFirst => true,
        }
    }

    /// The first step.
    pub fn first(&self) -> Step {
        let available = self.cached.available();
        let old = self.cached.is_old();
        match self.settings.policy {
            Policy::CacheOnly => match &self.cached {
                Cached::Nothing(error) => Step::Fail(error.clone()),
                _ => Step::Cache {
                    stale: old,
                    revalidate: false,
                },
            },
            Policy::CacheFirst if available && !old => Step::Cache {
                stale: false,
                revalidate: false,
            },
            Policy::StaleWhileRevalidate if available => Step::Cache {
                stale: old,
                revalidate: true,
            },
            _ if !self.online && available => Step::Cache {
                stale: true,
                revalidate: false,
            },
            // Offline (by the runtime's word) or with the cache to fall back
            // on, an unreachable network is not retried.
            Policy::NetworkFirst => Step::Network {
                retry_network_errors: !available && self.online,
                cache_after_ms: self.settings.network_timeout_ms.filter(|_| available),
            },
            _ => Step::Network {
                retry_network_errors: !available && self.online,
                cache_after_ms: None,
            },
        }
    }

    /// The step after the network call ended with `outcome` (`Ok` for a
    /// response recorded), or when `cache_after_ms` ran out (`timed_out`).
    pub fn after_network(&self, outcome: Result<(), &Error>, timed_out: bool) -> Step {
        if timed_out && self.cached.available() {
            return Step::Cache {
                stale: true,
                revalidate: false,
            };
        }
        match outcome {
            Ok(()) => Step::Answer,
            Err(error) if is_network_failure(error) => match &self.cached {
                // The service answered (429, 5xx): its answer is the error,
                // with its status; `not_cached` is for a service not reached.
                Cached::Nothing(_) if matches!(error, Error::Http { .. }) => {
                    Step::Fail(error.clone())
                }
                Cached::Nothing(Error::NotCached { message }) => Step::Fail(Error::NotCached {
                    message: format!("{message} (the request failed: {error})"),
                }),
                Cached::Nothing(_) => Step::Fail(error.clone()),
                _ => Step::Cache {
                    stale: true,
                    revalidate: false,
                },
            },
            Err(error) => Step::Fail(error.clone()),
        }
    }
}
