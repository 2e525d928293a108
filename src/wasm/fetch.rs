//! The only code that touches `fetch`: attempts with a timeout, the
//! caller's `AbortSignal`, retries with backoff, and sharing of identical
//! concurrent GETs.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{AbortController, AbortSignal, Response};

use crate::error::Error;
use crate::http::response::http_error;
use crate::http::retry::{Outcome, RetryPolicy};
use crate::http::ClientConfig;

/// A request shared by identical concurrent GETs.
#[derive(Clone)]
struct Pending {
    settled: Promise,
    result: Rc<RefCell<Option<Result<String, Error>>>>,
}

/// Everything a request needs; shared by a client and its pending requests.
pub struct Transport {
    /// The validated settings.
    pub config: ClientConfig,
    /// When and how long to wait before retrying.
    pub policy: RetryPolicy,
    /// The budget of one call, all attempts and waits included; 0: none.
    pub timeout_ms: u64,
    /// An injected `fetch`, or `None` for the global one.
    pub fetch: Option<Function>,
    /// Pending GETs without a signal, by URL: a promise that settles when
    /// the request ends, and the slot its result is written to.
    inflight: RefCell<HashMap<String, Pending>>,
}

impl Transport {
    /// A transport with nothing in flight.
    pub fn new(
        config: ClientConfig,
        policy: RetryPolicy,
        timeout_ms: u64,
        fetch: Option<Function>,
    ) -> Self {
        Transport {
            config,
            policy,
            timeout_ms,
            fetch,
            inflight: RefCell::new(HashMap::new()),
        }
    }
}

fn global_function(name: &str) -> Result<Function, Error> {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name))
        .ok()
        .and_then(|value| value.dyn_into::<Function>().ok())
        .ok_or_else(|| Error::Network {
            message: format!(
                "this environment has no global `{name}`; pass `fetch` in the Client options"
            ),
        })
}

/// `setTimeout(callback, ms)`, returning the timer handle.
fn set_timeout(callback: &JsValue, ms: f64) -> Result<JsValue, Error> {
    global_function("setTimeout")?
        .call2(&js_sys::global(), callback, &JsValue::from_f64(ms))
        .map_err(|_| Error::Network {
            message: "setTimeout failed".into(),
        })
}

fn clear_timeout(handle: &JsValue) {
    if let Ok(clear) = global_function("clearTimeout") {
        let _ = clear.call1(&js_sys::global(), handle);
    }
}

/// Runs `on_abort` when `signal` aborts, until the guard is dropped.
struct AbortListener {
    signal: AbortSignal,
    callback: Closure<dyn FnMut()>,
}

impl AbortListener {
    fn new(signal: &AbortSignal, on_abort: impl FnMut() + 'static) -> Self {
        let callback = Closure::<dyn FnMut()>::new(on_abort);
        let _ = signal.add_event_listener_with_callback("abort", callback.as_ref().unchecked_ref());
        AbortListener {
            signal: signal.clone(),
            callback,
        }
    }
}

impl Drop for AbortListener {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.callback.as_ref().unchecked_ref());
    }
}

/// A promise that resolves after `ms` (never, if there is no timer).
pub fn sleep_promise(ms: u64) -> Promise {
    Promise::new(&mut |resolve, _| {
        let _ = set_timeout(&resolve, ms as f64);
    })
}

/// Waits `ms`, or fails with `aborted` as soon as `signal` aborts.
async fn sleep(ms: u64, signal: Option<&AbortSignal>) -> Result<(), Error> {
    if ms == 0 {
        return Ok(());
    }
    let handle: Rc<RefCell<Option<JsValue>>> = Rc::default();
    let timer = handle.clone();
    let signal_for_promise = signal.cloned();
    let listener: Rc<RefCell<Option<AbortListener>>> = Rc::default();
    let listener_slot = listener.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        let done = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        match set_timeout(&done, ms as f64) {
            Ok(id) => *timer.borrow_mut() = Some(id),
            Err(_) => {
                let _ = reject.call0(&JsValue::UNDEFINED);
            }
        }
        if let Some(signal) = &signal_for_promise {
            let reject = reject.clone();
            *listener_slot.borrow_mut() = Some(AbortListener::new(signal, move || {
                let _ = reject.call0(&JsValue::UNDEFINED);
            }));
        }
    });
    let result = JsFuture::from(promise).await;
    drop(listener.borrow_mut().take());
    if let Some(id) = handle.borrow_mut().take() {
        clear_timeout(&id);
    }
    match result {
        Ok(_) => Ok(()),
        Err(_) if signal.is_some_and(AbortSignal::aborted) => Err(Error::Aborted),
        Err(_) => Err(Error::Network {
            message: "setTimeout is not available".into(),
        }),
    }
}

/// How one attempt ended.
enum Attempt {
    /// A 2xx response and its body.
    Body(String),
    /// Another status: the status, its `Retry-After`, and its body.
    Status(u16, Option<String>, String),
    /// `fetch` or the body read failed.
    Network(String),
}

fn error_text(error: &JsValue) -> String {
    let message = Reflect::get(error, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "fetch failed".into());
    let cause = Reflect::get(error, &JsValue::from_str("cause"))
        .ok()
        .and_then(|cause| Reflect::get(&cause, &JsValue::from_str("code")).ok())
        .and_then(|code| code.as_string());
    match cause {
        Some(code) => format!("{message} ({code})"),
        None => message,
    }
}

/// One `fetch` with `signal`, reading the whole body.
async fn attempt(transport: &Transport, url: &str, signal: &AbortSignal) -> Result<Attempt, Error> {
    let fetch = match &transport.fetch {
        Some(fetch) => fetch.clone(),
        None => global_function("fetch")?,
    };
    let headers = Object::new();
    let _ = Reflect::set(
        &headers,
        &"Authorization".into(),
        &transport.config.authorization().into(),
    );
    let _ = Reflect::set(&headers, &"Accept".into(), &"application/json".into());
    let init = Object::new();
    let _ = Reflect::set(&init, &"method".into(), &"GET".into());
    let _ = Reflect::set(&init, &"headers".into(), &headers);
    let _ = Reflect::set(&init, &"signal".into(), signal);
    let started = match fetch.call2(&js_sys::global(), &JsValue::from_str(url), &init) {
        Ok(promise) => promise,
        Err(error) => return Ok(Attempt::Network(error_text(&error))),
    };
    let response = match JsFuture::from(Promise::resolve(&started)).await {
        Ok(response) => response.unchecked_into::<Response>(),
        Err(error) => return Ok(Attempt::Network(error_text(&error))),
    };
    let status = response.status();
    let retry_after = response.headers().get("Retry-After").ok().flatten();
    let body = match response.text() {
        Ok(text) => JsFuture::from(text).await,
        Err(error) => Err(error),
    };
    let body = match body {
        Ok(text) => text.as_string().unwrap_or_default(),
        Err(error) => return Ok(Attempt::Network(error_text(&error))),
    };
    if (200..300).contains(&status) {
        Ok(Attempt::Body(body))
    } else {
        Ok(Attempt::Status(status, retry_after, body))
    }
}

/// Runs the attempts of one call: each under a fresh `AbortController` that
/// the deadline and the caller's signal both abort, with retries.
async fn attempts(
    transport: Rc<Transport>,
    url: String,
    caller: Option<AbortSignal>,
    retry_network: bool,
) -> Result<String, Error> {
    let started = js_sys::Date::now();
    let deadline = (transport.timeout_ms > 0).then(|| started + transport.timeout_ms as f64);
    let timed_out = Rc::new(Cell::new(false));
    let secret = transport.config.secret().to_owned();
    let mut retry = 0;
    loop {
        if caller.as_ref().is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        let controller = AbortController::new().map_err(|_| Error::Network {
            message: "AbortController is not available".into(),
        })?;
        let timer = match deadline {
            Some(deadline) => {
                let remaining = (deadline - js_sys::Date::now()).max(0.0);
                let (controller, timed_out) = (controller.clone(), timed_out.clone());
                let on_time = Closure::once_into_js(move || {
                    timed_out.set(true);
                    controller.abort();
                });
                Some(set_timeout(&on_time, remaining)?)
            }
            None => None,
        };
        let listener = caller.as_ref().map(|signal| {
            let controller = controller.clone();
            AbortListener::new(signal, move || controller.abort())
        });
        let outcome = attempt(&transport, &url, &controller.signal()).await;
        drop(listener);
        if let Some(timer) = timer {
            clear_timeout(&timer);
        }
        if caller.as_ref().is_some_and(AbortSignal::aborted) {
            return Err(Error::Aborted);
        }
        if timed_out.get() {
            return Err(Error::Timeout {
                ms: transport.timeout_ms,
            });
        }
        let (error, retry_outcome) = match outcome? {
            Attempt::Body(body) => return Ok(body),
            Attempt::Status(status, retry_after, body) => {
                let error = http_error(status, &body, &secret);
                (error, Some((status, retry_after)))
            }
            Attempt::Network(message) => (
                Error::Network {
                    message: crate::http::response::scrub(&message, &secret),
                },
                None,
            ),
        };
        let outcome = match &retry_outcome {
            Some((status, retry_after)) => Outcome::Status {
                status: *status,
                retry_after: retry_after.as_deref(),
            },
            None if retry_network => Outcome::Network,
            // The cache answers instead: no retries for an unreachable network.
            None => return Err(error),
        };
        let now = js_sys::Date::now();
        let Some(delay) = transport
            .policy
            .delay(retry, &outcome, now, js_sys::Math::random())
        else {
            return Err(error);
        };
        // Waiting past the deadline would only end in a timeout: report the
        // failure we have instead.
        if deadline.is_some_and(|deadline| now + delay as f64 >= deadline) {
            return Err(error);
        }
        sleep(delay, caller.as_ref()).await?;
        retry += 1;
    }
}

/// GETs `url` and returns the body of a 2xx response. Calls without a
/// signal for the same URL while one is pending share its request. With
/// `retry_network` off, a network error is not retried (the cache answers).
pub async fn get(
    transport: Rc<Transport>,
    url: String,
    signal: Option<AbortSignal>,
    retry_network: bool,
) -> Result<String, Error> {
    match signal {
        Some(signal) => attempts(transport, url, Some(signal), retry_network).await,
        None => shared_body(transport, url, retry_network).await,
    }
}

/// The body of `url`, from the pending request for it or a new one.
async fn shared_body(
    transport: Rc<Transport>,
    url: String,
    retry_network: bool,
) -> Result<String, Error> {
    let key = format!("{}{url}", u8::from(retry_network));
    let existing = transport.inflight.borrow().get(&key).cloned();
    let pending = match existing {
        Some(pending) => pending,
        None => {
            let result: Rc<RefCell<Option<Result<String, Error>>>> = Rc::default();
            let (owner, slot) = (transport.clone(), result.clone());
            let (inflight_key, target) = (key.clone(), url.clone());
            let settled = future_to_promise(async move {
                let outcome = attempts(owner.clone(), target, None, retry_network).await;
                *slot.borrow_mut() = Some(outcome);
                owner.inflight.borrow_mut().remove(&inflight_key);
                Ok(JsValue::UNDEFINED)
            });
            let pending = Pending { settled, result };
            transport.inflight.borrow_mut().insert(key, pending.clone());
            pending
        }
    };
    // The shared future never rejects: its outcome is in the slot.
    let _ = JsFuture::from(pending.settled).await;
    let outcome = pending.result.borrow().clone();
    outcome.unwrap_or_else(|| {
        Err(Error::Network {
            message: "the shared request ended without a result".into(),
        })
    })
}
