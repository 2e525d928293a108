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

use crate::error::{Error, Result};
use crate::http::call::{Call, Ended, Next};
use crate::http::retry::RetryPolicy;
use crate::http::ClientConfig;
use crate::num::u64_from_f64;

#[wasm_bindgen(module = "/src/js/fetch.js")]
extern "C" {
    type Stop;
    #[wasm_bindgen(catch, constructor)]
    fn new(timeout_ms: f64, caller: Option<AbortSignal>) -> Result<Stop, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn signal(this: &Stop) -> AbortSignal;
    #[wasm_bindgen(method)]
    fn run(this: &Stop, work: &Promise) -> Promise;
    #[wasm_bindgen(method)]
    fn sleep(this: &Stop, ms: f64) -> Promise;
    #[wasm_bindgen(method)]
    fn dispose(this: &Stop);
    fn send(fetch: &Function, url: &str, authorization: &str, signal: &AbortSignal) -> Promise;
    #[wasm_bindgen(js_name = globalFetch)]
    fn global_fetch() -> Option<Function>;
    /// A promise that resolves after `ms`.
    #[wasm_bindgen(js_name = sleep)]
    pub(crate) fn sleep_promise(ms: f64) -> Promise;
}

/// The outcome of a shared GET, once it has one.
type Slot = Rc<RefCell<Option<Result<String>>>>;

/// Everything a request needs; shared by a client and its pending requests.
pub(crate) struct Transport {
    /// The validated settings.
    pub(crate) config: ClientConfig,
    /// When and how long to wait before retrying.
    pub(crate) policy: RetryPolicy,
    /// The budget of one call, all attempts and waits included; 0: none.
    pub(crate) timeout_ms: u64,
    /// An injected `fetch`, or `None` for the global one.
    pub(crate) fetch: Option<Function>,
    /// Pending GETs without a signal, by URL.
    inflight: RefCell<HashMap<String, (Promise, Slot)>>,
}

impl Transport {
    /// A transport with nothing in flight.
    pub(crate) fn new(
        config: ClientConfig,
        policy: RetryPolicy,
        timeout_ms: u64,
        fetch: Option<Function>,
    ) -> Self {
        let inflight = RefCell::new(HashMap::new());
        Transport {
            config,
            policy,
            timeout_ms,
            fetch,
            inflight,
        }
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
    let fetch = transport
        .fetch
        .clone()
        .or_else(global_fetch)
        .ok_or_else(|| Error::Network {
            message: "this environment has no global `fetch`; pass `fetch` in the Client options"
                .into(),
        })?;
    let stop = Stop::new(transport.timeout_ms as f64, caller).map_err(|_| Error::Network {
        message: "AbortController is not available".into(),
    })?;
    let stop = Disposing(stop);
    let (policy, timeout_ms) = (transport.policy, transport.timeout_ms);
    let mut call = Call::new(policy, timeout_ms, retry_network, js_sys::Date::now());
    let (secret, authorization) = (transport.config.secret(), transport.config.authorization());
    let stopped = |call: &Call, reason: JsValue| {
        call.stopped(reason.as_string().as_deref() == Some("aborted"))
    };
    loop {
        let sent = send(&fetch, &url, &authorization, &stop.0.signal());
        let sent = match JsFuture::from(stop.0.run(&sent)).await {
            Ok(sent) => Array::from(&sent),
            Err(reason) => return Err(stopped(&call, reason)),
        };
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
                if let Err(reason) = JsFuture::from(stop.0.sleep(ms as f64)).await {
                    return Err(stopped(&call, reason));
                }
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
    if signal.is_some() {
        return attempts(transport, url, signal, retry_network).await;
    }
    // Calls that retry an unreachable network and calls that do not are
    // not shared.
    let key = format!("{}{url}", u8::from(retry_network));
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
    outcome.unwrap_or_else(|| {
        Err(Error::Network {
            message: "the shared request ended without a result".into(),
        })
    })
}
