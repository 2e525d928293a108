//! The client's decisions, sans IO: reading the arguments of `Client` and
//! its methods ([`options`]), one request and its course under the cache
//! policy ([`request`]), and paging through lists ([`pager`]).
//! `src/js/client.js` performs what they ask for (`fetch`, storage, timers),
//! driving the `src/wasm` task's steps, which feed the outcomes back; one call's attempts are
//! [`crate::http::call`], a delta refresh is [`crate::cache::refresh`].

pub mod options;
pub mod pager;
pub mod request;
pub mod task;
