//! The offline cache at the boundary: the storage adapter (IndexedDB,
//! memory, or the caller's) and `client.cache`. What to store, what to
//! answer and when are decided by [`crate::cache`]; this performs it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::convert::{describe, property, usize_from_f64};
use crate::cache::policy::{Cached, Policy, Settings};
use crate::cache::{Answer, Cache, Change};
use crate::error::{Error, Result};
use crate::num::u64_from_f64;

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeStorage)]
    fn make_storage(kind: &JsValue, name: &str) -> JsValue;
    #[wasm_bindgen(js_name = hasIndexedDb)]
    fn has_indexed_db() -> bool;
    #[wasm_bindgen(js_name = isOnline)]
    fn is_online() -> bool;
    #[wasm_bindgen(js_name = sessionId)]
    fn session_id() -> String;
    #[wasm_bindgen(js_name = readEntries)]
    fn read_entries(entries: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = onReconnect)]
    fn on_reconnect(callback: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = settleWithin)]
    fn settle_within(value: &JsValue, ms: f64) -> Promise;
}

/// The cache of one client, with its storage.
pub(crate) struct OfflineCache {
    state: RefCell<Cache>,
    storage: JsValue,
    /// What decides between cache and network.
    pub(crate) settings: Settings,
    max_age_ms: Option<f64>,
    /// The bound of one storage call (the client's `timeoutMs`; 0: none).
    timeout_ms: u64,
    /// Whether prefetched lists are refreshed on the `online` event.
    pub(crate) refresh_on_reconnect: bool,
    on_error: Option<Function>,
    loaded: Cell<bool>,
    loading: RefCell<Option<Promise>>,
    /// Settles when the last planned write has been written and applied.
    tail: RefCell<Promise>,
}

/// Calls `callback` on the runtime's `online` event; returns a function that
/// stops it (or `undefined` where there is no such event).
pub(crate) fn listen_for_reconnect(callback: &JsValue) -> JsValue {
    on_reconnect(callback)
}

/// Calls `method` of a storage object with `args`, awaiting its promise.
async fn call(storage: &JsValue, method: &str, args: &Array, timeout_ms: u64) -> Result<JsValue> {
    let function = property(storage, method)
        .dyn_into::<Function>()
        .map_err(|_| {
            Error::invalid_argument(format!("the cache storage has no {method}() method"))
        })?;
    let storage_error = |error: JsValue| {
        let message = Reflect::get(&error, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| describe(&error));
        let name = Reflect::get(&error, &"name".into())
            .ok()
            .and_then(|m| m.as_string());
        Error::Storage {
            message: format!(
                "{method}() failed: {}{message}",
                name.map(|name| format!("{name}: ")).unwrap_or_default()
            ),
        }
    };
    let result = function.apply(storage, args).map_err(storage_error)?;
    // A storage that never settles fails the call within the client's
    // timeout (0: no bound) instead of holding every request.
    let outcome = JsFuture::from(settle_within(&result, timeout_ms as f64)).await;
    match outcome {
        Ok(pair) => {
            let pair = Array::from(&pair);
            if pair.get(0).is_truthy() {
                Ok(pair.get(1))
            } else {
                Err(Error::Storage {
                    message: format!("{method}() did not settle within {timeout_ms} ms"),
                })
            }
        }
        Err(error) => Err(storage_error(error)),
    }
}

fn optional_ms(options: &JsValue, key: &str) -> Result<Option<f64>> {
    let value = property(options, key);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(ms) if ms >= 0.0 && ms.is_finite() => Ok(Some(ms)),
        _ => Err(Error::invalid_argument(format!(
            "cache.{key} must be a number >= 0, got {}",
            describe(&value)
        ))),
    }
}

impl OfflineCache {
    /// Reads the `cache` option (`true` or `{ storage, policy, maxAgeMs,
    /// networkTimeoutMs, maxBytes }`).
    pub(crate) fn from_options(
        options: &JsValue,
        name: &str,
        on_error: Option<Function>,
        timeout_ms: u64,
    ) -> Result<Option<OfflineCache>> {
        if options.is_undefined() || options.is_null() || options.as_bool() == Some(false) {
            return Ok(None);
        }
        let empty = js_sys::Object::new().into();
        let options = if options.as_bool() == Some(true) {
            &empty
        } else {
            options
        };
        if !options.is_object() {
            return Err(Error::invalid_argument(format!(
                "cache must be true or {{ storage?, policy?, maxAgeMs?, networkTimeoutMs?, maxBytes? }}, got {}",
                describe(options)
            )));
        }
        let policy_value = property(options, "policy");
        let policy = if policy_value.is_undefined() {
            Policy::NetworkFirst
        } else {
            policy_value
                .as_string()
                .as_deref()
                .and_then(Policy::parse)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "invalid cache policy {}: expected \"network-first\", \"cache-first\", \"stale-while-revalidate\" or \"cache-only\"",
                        describe(&policy_value)
                    ))
                })?
        };
        let kind = property(options, "storage");
        let kind = if kind.is_undefined() {
            JsValue::from_str(if has_indexed_db() {
                "indexeddb"
            } else {
                "memory"
            })
        } else {
            kind
        };
        if kind.as_string().as_deref() == Some("indexeddb") && !has_indexed_db() {
            return Err(Error::invalid_argument(
                "cache storage \"indexeddb\" needs IndexedDB, which this environment lacks",
            ));
        }
        let valid = match kind.as_string().as_deref() {
            Some("indexeddb" | "memory") => true,
            Some(_) => false,
            None => ["load", "write", "clear"]
                .iter()
                .all(|m| property(&kind, m).is_function()),
        };
        if !valid {
            return Err(Error::invalid_argument(format!(
                "invalid cache storage {}: expected \"indexeddb\", \"memory\" or an object with load(), write() and clear()",
                describe(&kind)
            )));
        }
        let settings = Settings {
            policy,
            network_timeout_ms: optional_ms(options, "networkTimeoutMs")?.map(u64_from_f64),
        };
        let mut state = Cache::new(&session_id());
        state.set_max_bytes(optional_ms(options, "maxBytes")?.map(usize_from_f64));
        Ok(Some(OfflineCache {
            state: RefCell::new(state),
            storage: make_storage(&kind, name),
            settings,
            max_age_ms: optional_ms(options, "maxAgeMs")?,
            timeout_ms,
            refresh_on_reconnect: property(options, "refreshOnReconnect").is_truthy(),
            on_error,
            loaded: Cell::new(false),
            loading: RefCell::new(None),
            tail: RefCell::new(Promise::resolve(&JsValue::UNDEFINED)),
        }))
    }

    /// Reports a cache failure to `onCacheError`, or the console.
    pub(crate) fn report(&self, error: Error) {
        let value = JsValue::from(error);
        match &self.on_error {
            Some(callback) => {
                let _ = callback.call1(&JsValue::UNDEFINED, &value);
            }
            None => web_log(&value),
        }
    }

    /// Loads the stored entries once; corrupt ones are skipped and reported,
    /// entries of an older schema removed.
    pub(crate) async fn ready(self: &Rc<Self>) {
        if self.loaded.get() {
            return;
        }
        let pending = self.loading.borrow().clone();
        let promise = match pending {
            Some(promise) => promise,
            None => {
                let this = self.clone();
                let promise = wasm_bindgen_futures::future_to_promise(async move {
                    match call(&this.storage, "load", &Array::new(), this.timeout_ms).await {
                        Ok(entries) => this.load(&entries).await,
                        Err(error) => this.report(error),
                    }
                    this.loaded.set(true);
                    Ok(JsValue::UNDEFINED)
                });
                *self.loading.borrow_mut() = Some(promise.clone());
                promise
            }
        };
        let _ = JsFuture::from(promise).await;
    }

    async fn load(&self, entries: &JsValue) {
        // [[key, text], ...], with what is not such a pair reported.
        let read = read_entries(entries);
        let pairs = Array::from(&property(&read, "pairs"));
        let bad = property(&read, "bad").as_f64().unwrap_or(0.0);
        if bad > 0.0 {
            let mut message = String::from("skipped ");
            crate::num::write_f64(&mut message, bad);
            message.push_str(" cache entries that are not [key, text] pairs");
            self.report(Error::Decode {
                message,
                excerpt: String::new(),
            });
        }
        let entries: Vec<(String, String)> = pairs
            .iter()
            .filter_map(|pair| {
                let pair = Array::from(&pair);
                Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
            })
            .collect();
        let (errors, stale) = self.state.borrow_mut().load(entries);
        for error in errors {
            self.report(error);
        }
        if !stale.is_empty() {
            let deletes: Array = stale.iter().map(|key| JsValue::from_str(key)).collect();
            if let Err(error) = call(
                &self.storage,
                "write",
                &Array::of2(&Array::new(), &deletes),
                self.timeout_ms,
            )
            .await
            {
                self.report(error);
            }
        }
    }

    /// Plans a change against the current state (after earlier writes),
    /// writes it, and applies it to memory only if the write succeeded; then
    /// collects what no longer needs keeping. Failures are reported.
    pub(crate) async fn record<T>(
        self: &Rc<Self>,
        plan: impl FnOnce(&mut Cache) -> Result<(Change, T)>,
    ) -> Result<T> {
        self.ready().await;
        let mut release: Option<Function> = None;
        let done = Promise::new(&mut |resolve, _| release = Some(resolve));
        let previous = self.tail.replace(done);
        let _ = JsFuture::from(previous).await;
        let planned = plan(&mut self.state.borrow_mut());
        let result = match planned {
            Ok((change, value)) => {
                let may_free = change.may_free();
                match self.write(change).await {
                    Ok(()) if may_free || self.state.borrow().over_budget() => {
                        let collect = self.state.borrow().plan_collect();
                        self.write(collect).await.map(|()| value)
                    }
                    Ok(()) => Ok(value),
                    Err(error) => {
                        if is_quota(&error) {
                            // Make room for the next writes: evict whole lists,
                            // memory and storage together.
                            let room = self.state.borrow().plan_make_room();
                            if let Err(also) = self.write(room).await {
                                self.report(also);
                            }
                        }
                        Err(error)
                    }
                }
            }
            Err(error) => Err(error),
        };
        if let Some(release) = release {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
        if let Err(error) = &result {
            if matches!(error, Error::Storage { .. }) {
                self.report(error.clone());
            }
        }
        result
    }

    /// Runs `read` on the loaded state.
    pub(crate) async fn with_state<T>(self: &Rc<Self>, read: impl FnOnce(&mut Cache) -> T) -> T {
        self.ready().await;
        let mut state = self.state.borrow_mut();
        read(&mut state)
    }

    async fn write(&self, change: Change) -> Result<()> {
        if !change.is_empty() {
            let puts: Array = change
                .puts()
                .iter()
                .map(|(key, text)| JsValue::from(Array::of2(&key.into(), &text.into())))
                .collect();
            let deletes: Array = change
                .deletes()
                .iter()
                .map(|key| JsValue::from_str(key))
                .collect();
            call(
                &self.storage,
                "write",
                &Array::of2(&puts, &deletes),
                self.timeout_ms,
            )
            .await?;
        }
        self.state.borrow_mut().apply(change);
        Ok(())
    }

    /// What the cache can answer, for the policy, and the answer.
    pub(crate) async fn lookup(
        self: &Rc<Self>,
        endpoint: &crate::query::url::Endpoint,
        answer: impl FnOnce(&mut Cache) -> Result<Answer>,
    ) -> (Cached, Option<Answer>) {
        self.ready().await;
        let mut state = self.state.borrow_mut();
        match answer(&mut state) {
            Ok(answer) => {
                let now = js_sys::Date::now();
                let cached = state.freshness(endpoint, answer.fetched_at, now, self.max_age_ms);
                (cached, Some(answer))
            }
            Err(error) => (Cached::Nothing(error), None),
        }
    }

    /// Empties memory and storage.
    pub(crate) async fn clear(self: &Rc<Self>) -> Result<()> {
        self.ready().await;
        call(&self.storage, "clear", &Array::new(), self.timeout_ms).await?;
        self.state.borrow_mut().clear();
        Ok(())
    }

    /// How many documents are cached.
    pub(crate) fn size(&self) -> usize {
        self.state.borrow().size()
    }

    /// The bytes of response text kept.
    pub(crate) fn bytes(&self) -> usize {
        self.state.borrow().bytes()
    }
}

/// Whether the runtime says it is online (`navigator.onLine`; `true` where
/// there is no such flag, as in Node).
pub(crate) fn online() -> bool {
    is_online()
}

/// Whether a storage failure is a full storage (a quota).
fn is_quota(error: &Error) -> bool {
    // A byte search: `str::contains` of a `&str` links the two-way searcher
    // (2 KB) for this one use.
    matches!(error, Error::Storage { message }
        if message.as_bytes().windows(5).any(|window| window == b"Quota" || window == b"quota"))
}

fn web_log(value: &JsValue) {
    let console = Reflect::get(&js_sys::global(), &"console".into()).unwrap_or(JsValue::UNDEFINED);
    if let Ok(warn) = Reflect::get(&console, &"warn".into()).and_then(JsCast::dyn_into::<Function>)
    {
        let _ = warn.call2(&console, &"content-repo cache:".into(), value);
    }
}

/// `client.cache`: the cache of a client.
#[wasm_bindgen(js_name = ClientCache, skip_typescript)]
pub struct JsClientCache {
    cache: Rc<OfflineCache>,
}

impl JsClientCache {
    /// Wraps a client's cache.
    pub(crate) fn new(cache: Rc<OfflineCache>) -> Self {
        JsClientCache { cache }
    }
}

#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_class = ClientCache)]
impl JsClientCache {
    /// Empties the cache, in memory and in storage.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn clear(&self) -> Promise {
        let cache = self.cache.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            cache
                .clear()
                .await
                .map(|()| JsValue::UNDEFINED)
                .map_err(JsValue::from)
        })
    }

    /// Resolves once the stored entries are loaded (corrupt ones are skipped
    /// and reported to `onCacheError`).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn ready(&self) -> Promise {
        let cache = self.cache.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            cache.ready().await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// How many documents are cached (after `ready()`), over every variant.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.cache.size()).unwrap_or(u32::MAX)
    }

    /// The bytes of response text kept (after `ready()`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> f64 {
        self.cache.bytes() as f64
    }

    /// Marks cached answers (for `endpoint`, or every one) stale: the next
    /// call for them asks the service under every policy but `cache-only`
    /// (and `stale-while-revalidate` answers from the cache while it asks).
    pub fn invalidate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec | undefined")] endpoint: JsValue,
    ) -> Result<(), JsValue> {
        let endpoint = if endpoint.is_undefined() || endpoint.is_null() {
            None
        } else {
            Some(super::client::endpoint(&endpoint)?)
        };
        self.cache
            .state
            .borrow_mut()
            .invalidate(endpoint.as_ref(), js_sys::Date::now());
        Ok(())
    }

    /// The policy in use.
    #[wasm_bindgen(getter, unchecked_return_type = "CachePolicy")]
    pub fn policy(&self) -> String {
        self.cache.settings.policy.name().into()
    }
}
