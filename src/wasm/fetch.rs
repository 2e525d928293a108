//! The only code that calls `fetch`: it performs the attempts of a call as
//! [`Call`] decides (retries, waits, the deadline), under the call's `Stop`
//! (`src/js/fetch.js`: the deadline timer and the caller's `AbortSignal`),
//! and shares identical concurrent GETs. `send` reads whatever an injected
//! `fetch` gives defensively and never rejects.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::AbortSignal;

use crate::client::options::ClientOptions;
use crate::error::{Error, Result};
use crate::http::call::{shared_key, unfinished_share, Call, Ended, Next};
use crate::http::ClientConfig;
use crate::num::u64_from_f64;

#[wasm_bindgen(module = "/src/js/fetch.js")]
extern "C" {
    type Stop;
    #[wasm_bindgen(catch, constructor)]
    fn new(timeout_ms: f64, caller: Option<AbortSignal>) -> Result<Stop, JsValue>;
    #[wasm_bindgen(method)]
    fn send(this: &Stop, fetch: &Function, url: &str, authorization: &str) -> Promise;
    #[wasm_bindgen(method)]
    fn sleep(this: &Stop, ms: f64) -> Promise;
    #[wasm_bindgen(method)]
    fn dispose(this: &Stop);
    #[wasm_bindgen(js_name = globalFetch)]
    fn global_fetch() -> Option<Function>;
    /// `work`, or a promise that settles after `ms` if that comes first.
    pub(crate) fn within(work: &Promise, ms: Option<f64>) -> Promise;
}

/// The outcome of a shared GET, once it has one.
type Slot = Rc<RefCell<Option<Result<String>>>>;

/// Everything a request needs; shared by a client and its pending requests.
pub(crate) struct Transport {
    /// The client's validated options.
    pub(crate) options: ClientOptions,
    /// An injected `fetch`, or `None` for the global one.
    pub(crate) fetch: Option<Function>,
    /// Pending GETs without a signal, by URL.
    pub(crate) inflight: RefCell<HashMap<String, (Promise, Slot)>>,
}

impl Transport {
    /// The client's settings.
    pub(crate) fn config(&self) -> &ClientConfig {
        &self.options.config
    }
}

/// Disposes of a `Stop` however the call ends.
struct Disposing(Stop);

impl Drop for Disposing {
    fn drop(&mut self) {
        self.0.dispose();
    }
}

/// Performs the attempts of one call as [`Call`] decides, all under one
/// `Stop`: the deadline covers every attempt and wait, and the caller's
/// signal ends the call at any point.
async fn attempts(
    transport: Rc<Transport>,
    url: String,
    caller: Option<AbortSignal>,
    retry_network: bool,
) -> Result<String> {
    if caller.as_ref().is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let options = &transport.options;
    let network = |message: &str| Error::Network {
        message: message.into(),
    };
    let fetch = transport.fetch.clone().or_else(global_fetch);
    let missing = "this environment has no global `fetch`; pass `fetch` in the Client options";
    let fetch = fetch.ok_or_else(|| network(missing))?;
    let stop = Stop::new(options.timeout_ms as f64, caller);
    let stop = Disposing(stop.map_err(|_| network("AbortController is not available"))?);
    let now = js_sys::Date::now();
    let mut call = Call::new(options.retry, options.timeout_ms, retry_network, now);
    let (secret, authorization) = (options.config.secret(), options.config.authorization());
    loop {
        let sent = JsFuture::from(stop.0.send(&fetch, &url, &authorization)).await;
        let sent = Array::from(&sent.map_err(|reason| call.stopped(reason == "aborted"))?);
        let (text, body) = (sent.get(1).as_string(), sent.get(2).as_string());
        let status = u16::try_from(u64_from_f64(sent.get(0).as_f64().unwrap_or(0.0)));
        let ended = match (status, body) {
            (Ok(status @ 100..), Some(body)) => Ended::Response {
                status,
                retry_after: text.as_deref(),
                body,
            },
            _ => Ended::Network(text.as_deref().unwrap_or_default()),
        };
        let (now, jitter) = (js_sys::Date::now(), js_sys::Math::random());
        match call.ended(ended, secret, now, jitter) {
            Next::Done(result) => return result,
            Next::Wait(ms) => {
                let waited = JsFuture::from(stop.0.sleep(ms as f64)).await;
                waited.map_err(|reason| call.stopped(reason == "aborted"))?;
            }
        }
    }
}

/// GETs `url` and returns the body of a 2xx response. Calls without a
/// signal for the same URL while one is pending share its request. With
/// `retry_network` off, a network error is not retried (the cache answers).
pub(crate) async fn get(
    transport: Rc<Transport>,
    url: String,
    signal: Option<AbortSignal>,
    retry_network: bool,
) -> Result<String> {
    let Some(key) = shared_key(&url, signal.is_some(), retry_network) else {
        return attempts(transport, url, signal, retry_network).await;
    };
    let pending = transport.inflight.borrow().get(&key).cloned();
    let (promise, slot) = match pending {
        Some(pending) => pending,
        None => {
            let slot = Slot::default();
            let (owner, filled, entry) = (transport.clone(), slot.clone(), key.clone());
            let promise = future_to_promise(async move {
                let outcome = attempts(owner.clone(), url, None, retry_network).await;
                *filled.borrow_mut() = Some(outcome);
                // The entry goes with its task, so later calls send again.
                let mut inflight = owner.inflight.borrow_mut();
                if inflight
                    .get(&entry)
                    .is_some_and(|(_, s)| Rc::ptr_eq(s, &filled))
                {
                    inflight.remove(&entry);
                }
                Ok(JsValue::UNDEFINED)
            });
            let pending = (promise, slot);
            transport.inflight.borrow_mut().insert(key, pending.clone());
            pending
        }
    };
    let _ = JsFuture::from(promise).await;
    let outcome = slot.borrow().clone();
    outcome.unwrap_or_else(|| Err(unfinished_share()))
}
