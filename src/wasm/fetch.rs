//! The only code that touches `fetch`: attempts under one deadline and the
//! caller's `AbortSignal`, retries with backoff, and sharing of identical
//! concurrent GETs.
//!
//! An injected `fetch` is untrusted. It may throw, resolve to anything or to
//! nothing, reject with anything, never settle, or ignore its abort signal;
//! so may the response's `status`, `headers.get` and `text`. Hence:
//!
//! - every value it gives is read with `Reflect.get` and checked by type,
//!   never cast, and only through imports that catch JavaScript exceptions;
//! - whatever it returns is adopted by a fresh native promise (`new
//!   Promise(resolve => resolve(value))`), so a thenable that throws, or a
//!   plain value, becomes a rejection or a value, never a throw into wasm;
//! - every wait of a call (the fetch, the body, the backoff) is raced
//!   against the call's [`Stop`]: its deadline timer or the caller's signal.
//!   Stopping aborts the fetch's own signal for a `fetch` that listens, and
//!   ends the call anyway for one that does not;
//! - a shared GET's entry is removed by a guard when its task ends, so an
//!   error never leaves later calls for the same URL waiting.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, AbortSignal};

use crate::error::Error;
use crate::http::response::{excerpt, http_error, MESSAGE_CHARS};
use crate::http::retry::{Outcome, RetryPolicy};
use crate::http::ClientConfig;
use crate::num::u64_from_f64;

/// The longest delay `setTimeout` honours (2^31 - 1 ms); longer ones fire
/// at once.
const MAX_TIMER_MS: f64 = 2_147_483_647.0;

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
    inflight: RefCell<HashMap<String, Rc<Shared>>>,
}

impl Transport {
    /// A transport with nothing in flight.
    pub(crate) fn new(
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

/// What kind of value `value` is, for messages about untrusted values
/// (`undefined`, `null`, `a number`, `an object`, ...): unlike `describe`,
/// it reads nothing of the value, so it cannot throw whatever the value is
/// (a revoked `Proxy` included).
fn kind(value: &JsValue) -> String {
    if value.is_null() {
        return "null".into();
    }
    match value.js_typeof().as_string().as_deref() {
        Some("undefined") => "undefined".into(),
        Some(name @ "object") => format!("an {name}"),
        Some(name) => format!("a {name}"),
        None => "an unknown value".into(),
    }
}

/// `Reflect.get(value, key)` when `value` is an object or a function; `None`
/// for anything else and when a getter or a proxy trap throws.
fn field(value: &JsValue, key: &str) -> Option<JsValue> {
    if !(value.is_object() || value.is_function()) {
        return None;
    }
    Reflect::get(value, &JsValue::from_str(key)).ok()
}

/// A settled promise of `value`: a thenable is adopted (its `then` runs in a
/// later job, and a throw there, or from a `then` getter, rejects), any
/// other value fulfils it. Never throws into wasm.
fn adopt(value: &JsValue) -> JsFuture {
    let promise = Promise::new(&mut |resolve, _reject| {
        let _ = resolve.call1(&JsValue::UNDEFINED, value);
    });
    JsFuture::from(promise)
}

/// Awaits what a JavaScript call returned, or passes on what it threw.
async fn settle(returned: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    adopt(&returned?).await
}

/// A wake-up slot: set once, waking the task that waits for it.
struct Latch<T: Copy> {
    value: Cell<Option<T>>,
    waker: RefCell<Option<Waker>>,
}

impl<T: Copy> Latch<T> {
    fn new() -> Self {
        Latch {
            value: Cell::new(None),
            waker: RefCell::new(None),
        }
    }

    /// Sets the value unless one is set already; whether it was set.
    fn set(&self, value: T) -> bool {
        if self.value.get().is_some() {
            return false;
        }
        self.value.set(Some(value));
        true
    }

    /// Wakes the task waiting for the value, if any.
    fn wake(&self) {
        let waker = self.waker.try_borrow_mut().ok().and_then(|mut w| w.take());
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Makes `waker` the one to wake.
    fn register(&self, waker: &Waker) {
        if let Ok(mut slot) = self.waker.try_borrow_mut() {
            *slot = Some(waker.clone());
        }
    }
}

/// A `setTimeout` that is cleared when the guard is dropped (and only then
/// is its callback freed, so it can never run after).
struct Timer {
    handle: JsValue,
    _callback: Closure<dyn Fn()>,
}

impl Timer {
    fn start(ms: f64, on_fire: impl Fn() + 'static) -> Result<Timer, Error> {
        let callback = Closure::<dyn Fn()>::new(on_fire);
        let delay = JsValue::from_f64(ms.clamp(0.0, MAX_TIMER_MS));
        let handle = global_function("setTimeout")?
            .call2(&js_sys::global(), callback.as_ref(), &delay)
            .map_err(|_| Error::Network {
                message: "setTimeout failed".into(),
            })?;
        Ok(Timer {
            handle,
            _callback: callback,
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Ok(clear) = global_function("clearTimeout") {
            let _ = clear.call1(&js_sys::global(), &self.handle);
        }
    }
}

/// Waits `ms` milliseconds.
async fn sleep(ms: u64) -> Result<(), Error> {
    if ms == 0 {
        return Ok(());
    }
    let done = Rc::new(Latch::new());
    let fired = done.clone();
    let _timer = Timer::start(ms as f64, move || {
        if fired.set(()) {
            fired.wake();
        }
    })?;
    poll_fn(|cx| match done.value.get() {
        Some(()) => Poll::Ready(()),
        None => {
            done.register(cx.waker());
            Poll::Pending
        }
    })
    .await;
    Ok(())
}

/// Runs `on_abort` when `signal` aborts, until the guard is dropped.
struct AbortListener {
    signal: AbortSignal,
    callback: Closure<dyn Fn()>,
}

impl AbortListener {
    fn new(signal: &AbortSignal, on_abort: impl Fn() + 'static) -> Self {
        let callback = Closure::<dyn Fn()>::new(on_abort);
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

/// Why a call was stopped before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// The deadline (`timeoutMs`) passed.
    Timeout,
    /// The caller's signal aborted.
    Aborted,
}

/// What ends a call early: its deadline or the caller's signal, whichever
/// comes first. Firing it aborts the signal given to `fetch` and wakes the
/// call, which then ends at once whether or not `fetch` listened.
struct Stop {
    latch: Latch<Stopped>,
    controller: AbortController,
    timeout_ms: u64,
}

impl Stop {
    fn fire(&self, reason: Stopped) {
        if self.latch.set(reason) {
            // A listening `fetch` rejects; its listeners' errors are
            // reported by the event target, never thrown here.
            self.controller.abort();
            self.latch.wake();
        }
    }

    fn error(&self, reason: Stopped) -> Error {
        match reason {
            Stopped::Timeout => Error::Timeout {
                ms: self.timeout_ms,
            },
            Stopped::Aborted => Error::Aborted,
        }
    }

    /// Runs `work` until it ends or the call is stopped, whichever is first.
    async fn within<F: Future>(&self, work: F) -> Result<F::Output, Error> {
        let mut work = pin!(work);
        poll_fn(|cx| {
            if let Some(reason) = self.latch.value.get() {
                return Poll::Ready(Err(self.error(reason)));
            }
            if let Poll::Ready(output) = work.as_mut().poll(cx) {
                return Poll::Ready(Ok(output));
            }
            self.latch.register(cx.waker());
            Poll::Pending
        })
        .await
    }
}

/// How one attempt ended.
enum Attempt {
    /// A 2xx response and its body.
    Body(String),
    /// Another status: the status, its `Retry-After`, and its body.
    Status(u16, Option<String>, String),
    /// `fetch` or the body read failed, or gave something that is not a
    /// response.
    Network(String),
}

/// A readable description of a thrown or rejected value, whatever it is.
fn error_text(error: &JsValue) -> String {
    let message = field(error, "message")
        .and_then(|message| message.as_string())
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("failed with {}, not an Error", kind(error)));
    let code = field(error, "cause")
        .and_then(|cause| field(&cause, "code"))
        .and_then(|code| code.as_string());
    match code {
        Some(code) => format!("{message} ({code})"),
        None => message,
    }
}

/// What is read of a response before its body.
struct Head {
    status: u16,
    retry_after: Option<String>,
    /// What `text()` returned or threw.
    text: Result<JsValue, JsValue>,
}

/// Reads a value `fetch` resolved to as a `Response`, defensively: it must
/// be an object with an integer `status` from 100 to 599, a
/// `headers.get` function and a `text` function. The error describes what
/// was wrong.
fn read_head(response: &JsValue) -> Result<Head, String> {
    if !response.is_object() {
        return Err(format!(
            "fetch resolved to {}, not a Response",
            kind(response)
        ));
    }
    let status = Reflect::get(response, &JsValue::from_str("status")).map_err(|error| {
        format!(
            "reading the response's status failed: {}",
            error_text(&error)
        )
    })?;
    let status = status
        .as_f64()
        .filter(|status| status.fract() == 0.0 && (100.0..=599.0).contains(status))
        .and_then(|status| u16::try_from(u64_from_f64(status)).ok())
        .ok_or_else(|| match status.as_f64() {
            Some(number) => {
                let mut message = String::from("the response's status is ");
                crate::num::write_f64(&mut message, number);
                message.push_str(", not an HTTP status");
                message
            }
            None => format!("the response's status is {}, not a number", kind(&status)),
        })?;
    let headers = field(response, "headers").unwrap_or(JsValue::UNDEFINED);
    let get = field(&headers, "get")
        .and_then(|get| get.dyn_into::<Function>().ok())
        .ok_or_else(|| "the response has no headers.get function".to_owned())?;
    let retry_after = get
        .call1(&headers, &JsValue::from_str("Retry-After"))
        .map_err(|error| format!("response.headers.get failed: {}", error_text(&error)))?
        .as_string();
    let text = field(response, "text")
        .and_then(|text| text.dyn_into::<Function>().ok())
        .ok_or_else(|| "the response has no text function".to_owned())?
        .call0(response);
    Ok(Head {
        status,
        retry_after,
        text,
    })
}

/// One `fetch` with `signal`, reading the whole body. Any misbehaviour of
/// `fetch` or of what it returns is an [`Attempt::Network`].
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
    let returned = fetch.call2(&js_sys::global(), &JsValue::from_str(url), &init);
    let response = match settle(returned).await {
        Ok(response) => response,
        Err(error) => return Ok(Attempt::Network(error_text(&error))),
    };
    let head = match read_head(&response) {
        Ok(head) => head,
        Err(problem) => return Ok(Attempt::Network(problem)),
    };
    let body = match settle(head.text).await {
        Ok(body) => match body.as_string() {
            Some(body) => body,
            None => {
                return Ok(Attempt::Network(format!(
                    "response.text() gave {}, not a string",
                    kind(&body)
                )))
            }
        },
        Err(error) => {
            return Ok(Attempt::Network(format!(
                "reading the response body failed: {}",
                error_text(&error)
            )))
        }
    };
    if (200..300).contains(&head.status) {
        Ok(Attempt::Body(body))
    } else {
        Ok(Attempt::Status(head.status, head.retry_after, body))
    }
}

/// Runs the attempts of one call with retries, all under one [`Stop`]: the
/// deadline covers every attempt and wait, and the caller's signal ends the
/// call at any point.
async fn attempts(
    transport: Rc<Transport>,
    url: String,
    caller: Option<AbortSignal>,
    retry_network: bool,
) -> Result<String, Error> {
    if caller.as_ref().is_some_and(AbortSignal::aborted) {
        return Err(Error::Aborted);
    }
    let controller = AbortController::new().map_err(|_| Error::Network {
        message: "AbortController is not available".into(),
    })?;
    let signal = controller.signal();
    let stop = Rc::new(Stop {
        latch: Latch::new(),
        controller,
        timeout_ms: transport.timeout_ms,
    });
    let deadline =
        (transport.timeout_ms > 0).then(|| js_sys::Date::now() + transport.timeout_ms as f64);
    // Both guards live as long as the call: dropping them clears the timer
    // and removes the listener, however the call ends.
    let _deadline = match transport.timeout_ms {
        0 => None,
        ms => {
            let stop = stop.clone();
            Some(Timer::start(ms as f64, move || {
                stop.fire(Stopped::Timeout);
            })?)
        }
    };
    let _listener = caller.as_ref().map(|caller| {
        let stop = stop.clone();
        AbortListener::new(caller, move || stop.fire(Stopped::Aborted))
    });
    let secret = transport.config.secret().to_owned();
    let mut retry: u32 = 0;
    loop {
        let outcome = stop.within(attempt(&transport, &url, &signal)).await??;
        let (error, outcome) = match outcome {
            Attempt::Body(body) => return Ok(body),
            Attempt::Status(status, retry_after, body) => (
                http_error(status, &body, &secret),
                Some((status, retry_after)),
            ),
            Attempt::Network(message) => (
                Error::Network {
                    message: excerpt(&message, &secret, MESSAGE_CHARS),
                },
                None,
            ),
        };
        let outcome = match &outcome {
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
        stop.within(sleep(delay)).await??;
        retry = retry.saturating_add(1);
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
) -> Result<String, Error> {
    match signal {
        Some(signal) => attempts(transport, url, Some(signal), retry_network).await,
        None => shared_body(transport, url, retry_network).await,
    }
}

/// A promise that resolves after `ms` (never, where there is no timer).
pub(crate) fn sleep_promise(ms: u64) -> Promise {
    Promise::new(&mut |resolve, _| {
        if let Ok(set_timeout) = global_function("setTimeout") {
            let delay = JsValue::from_f64((ms as f64).min(MAX_TIMER_MS));
            let _ = set_timeout.call2(&js_sys::global(), &resolve, &delay);
        }
    })
}

/// The outcome of a shared request, and the calls waiting for it.
struct Shared {
    result: RefCell<Option<Result<String, Error>>>,
    waiters: RefCell<Vec<Waker>>,
}

impl Shared {
    /// Stores the outcome (the first one stays) and wakes every waiter.
    fn finish(&self, outcome: Result<String, Error>) {
        if let Ok(mut result) = self.result.try_borrow_mut() {
            if result.is_none() {
                *result = Some(outcome);
            }
        }
        let waiters = self
            .waiters
            .try_borrow_mut()
            .map(|mut waiters| std::mem::take(&mut *waiters))
            .unwrap_or_default();
        for waiter in waiters {
            waiter.wake();
        }
    }

    async fn wait(&self) -> Result<String, Error> {
        poll_fn(|cx| {
            if let Some(outcome) = self.result.try_borrow().ok().and_then(|r| r.clone()) {
                return Poll::Ready(outcome);
            }
            if let Ok(mut waiters) = self.waiters.try_borrow_mut() {
                waiters.push(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }
}

/// Owns a shared request's entry in `inflight`: dropping it (when the task
/// ends, whatever the outcome) removes the entry and, if no outcome was
/// stored, gives the waiters an error rather than leaving them waiting.
struct InflightEntry {
    transport: Rc<Transport>,
    url: String,
    shared: Rc<Shared>,
}

impl Drop for InflightEntry {
    fn drop(&mut self) {
        if let Ok(mut inflight) = self.transport.inflight.try_borrow_mut() {
            if inflight
                .get(&self.url)
                .is_some_and(|entry| Rc::ptr_eq(entry, &self.shared))
            {
                inflight.remove(&self.url);
            }
        }
        self.shared.finish(Err(Error::Network {
            message: "the shared request ended without a result".into(),
        }));
    }
}

/// The body of `url`, from the pending request for it or a new one.
async fn shared_body(
    transport: Rc<Transport>,
    url: String,
    retry_network: bool,
) -> Result<String, Error> {
    // Calls that retry an unreachable network and calls that do not are
    // not shared.
    let key = format!("{}{url}", u8::from(retry_network));
    let existing = transport
        .inflight
        .try_borrow()
        .ok()
        .and_then(|inflight| inflight.get(&key).cloned());
    let shared = match existing {
        Some(shared) => shared,
        None => {
            let shared = Rc::new(Shared {
                result: RefCell::new(None),
                waiters: RefCell::new(Vec::new()),
            });
            if let Ok(mut inflight) = transport.inflight.try_borrow_mut() {
                inflight.insert(key.clone(), shared.clone());
            }
            let entry = InflightEntry {
                transport: transport.clone(),
                url: key,
                shared: shared.clone(),
            };
            spawn_local(async move {
                let target = entry.url.get(1..).unwrap_or_default().to_owned();
                let outcome = attempts(entry.transport.clone(), target, None, retry_network).await;
                entry.shared.finish(outcome);
                drop(entry);
            });
            shared
        }
    };
    shared.wait().await
}
