//! The offline cache at the boundary: the storage adapter (IndexedDB,
//! memory, or the caller's) and `client.cache`. What to store, what to
//! answer and when are decided by [`crate::cache`]; this performs it.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::convert::{describe, promise, props};
use super::store::utf8_text;
use crate::cache::{storage_error, Cache, Change, StorageFailure};
use crate::client::options::{self, CacheOptions};
use crate::error::{Error, Result};
use crate::num::usize_from_f64;

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeStorage)]
    pub(crate) fn make_storage(kind: &JsValue, name: &str) -> JsValue;
    #[wasm_bindgen(js_name = hasIndexedDb)]
    pub(crate) fn has_indexed_db() -> bool;
    /// Whether the runtime says it is online (`navigator.onLine`; `true`
    /// where there is no such flag, as in Node).
    #[wasm_bindgen(js_name = isOnline)]
    pub(crate) fn online() -> bool;
    #[wasm_bindgen(js_name = sessionId)]
    fn session_id() -> String;
    #[wasm_bindgen(js_name = callStorage)]
    fn call_storage(storage: &JsValue, method: &str, args: &Array, ms: f64) -> Promise;
    fn report(on_error: &Option<Function>, error: &JsValue);
    /// Calls `callback` on the runtime's `online` event; returns a function
    /// that stops it (or `undefined` where there is no such event).
    #[wasm_bindgen(js_name = onReconnect)]
    pub(crate) fn listen_for_reconnect(callback: &JsValue) -> JsValue;
}

/// Takes a cache's stored entries from storage.js `loadStorage`, which frees it.
#[wasm_bindgen]
pub struct LoadSink(Rc<OfflineCache>);

#[wasm_bindgen]
impl LoadSink {
    /// Reads one `[key, text]` entry (text: a string or UTF-8 bytes).
    pub fn entry(&self, key: String, value: JsValue) {
        self.0.state.borrow_mut().load_entry(key, utf8_text(value));
    }
}

/// The cache of one client, with its storage.
pub(crate) struct OfflineCache {
    pub(crate) state: RefCell<Cache>,
    storage: JsValue,
    /// The `cache` option: the policy's settings, `maxAgeMs`,
    /// `refreshOnReconnect`, the bound of one storage call.
    pub(crate) options: CacheOptions,
    on_error: Option<Function>,
    /// The load of the stored entries, once started.
    loading: OnceCell<Promise>,
    /// Settles when the last planned write has been written and applied.
    tail: RefCell<Promise>,
}

impl OfflineCache {
    /// The cache of the `cache` option, on its storage (a `makeStorage`
    /// kind or the caller's object).
    pub(crate) fn new(options: CacheOptions, storage: JsValue, on_error: Option<Function>) -> Self {
        let mut state = Cache::new(&session_id());
        state.set_max_bytes(options.max_bytes);
        OfflineCache {
            state: RefCell::new(state),
            storage,
            options,
            on_error,
            loading: OnceCell::new(),
            tail: RefCell::new(Promise::resolve(&JsValue::UNDEFINED)),
        }
    }

    /// Reports a cache failure to `onCacheError`, or the console.
    pub(crate) fn report(&self, error: Error) {
        report(&self.on_error, &JsValue::from(error));
    }

    /// Calls `method` of the storage with `args`, awaiting its promise
    /// within the client's timeout (0: no bound): a storage that never
    /// settles fails the call instead of holding every request.
    async fn call(&self, method: &str, args: &Array) -> Result<JsValue> {
        let ms = self.options.timeout_ms as f64;
        let called = JsFuture::from(call_storage(&self.storage, method, args, ms)).await;
        let outcome = Array::from(&called.unwrap_or_default());
        let failure = match outcome.get(0).as_f64() {
            Some(0.0) => return Ok(outcome.get(1)),
            Some(1.0) => StorageFailure::Threw {
                message: outcome.get(1).as_string(),
                name: outcome.get(2).as_string(),
                described: describe(&outcome.get(3)),
            },
            Some(2.0) => StorageFailure::Late,
            _ => StorageFailure::Missing,
        };
        Err(storage_error(method, failure, self.options.timeout_ms))
    }

    /// Loads the stored entries once; corrupt ones are skipped and reported,
    /// entries of an older schema removed.
    pub(crate) async fn ready(self: &Rc<Self>) {
        let this = self.clone();
        let loading = self.loading.get_or_init(|| {
            wasm_bindgen_futures::future_to_promise(async move {
                let sink = JsValue::from(LoadSink(this.clone()));
                let loaded = this.call("load", &Array::of1(&sink)).await;
                let skipped = loaded.map(|count| count.as_f64().map_or(0, usize_from_f64));
                let (errors, stale) = this.state.borrow_mut().load_end(skipped);
                for error in errors {
                    this.report(error);
                }
                if let Err(error) = this.write(stale).await {
                    this.report(error);
                }
                Ok(JsValue::UNDEFINED)
            })
        });
        let _ = JsFuture::from(loading.clone()).await;
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
        let result = self.plan_and_write(plan).await;
        if let Some(release) = release {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
        if let Err(error @ Error::Storage { .. }) = &result {
            self.report(error.clone());
        }
        result
    }

    /// [`Self::record`]'s work, once the earlier writes are done.
    async fn plan_and_write<T>(
        &self,
        plan: impl FnOnce(&mut Cache) -> Result<(Change, T)>,
    ) -> Result<T> {
        let (change, value) = plan(&mut self.state.borrow_mut())?;
        let may_free = change.may_free();
        let written = self.write(change).await;
        let next = self
            .state
            .borrow()
            .plan_after_write(written.as_ref().copied(), may_free);
        match (next, written) {
            (Some(collect), Ok(())) => self.write(collect).await.map(|()| value),
            (Some(room), Err(error)) => {
                // The storage is full: room for the next writes is made,
                // memory and storage together.
                if let Err(also) = self.write(room).await {
                    self.report(also);
                }
                Err(error)
            }
            (None, written) => written.map(|()| value),
        }
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
            self.call("write", &Array::of2(&puts, &deletes)).await?;
        }
        self.state.borrow_mut().apply(change);
        Ok(())
    }
}

/// `client.cache`: the cache of a client.
#[wasm_bindgen(js_name = ClientCache, skip_typescript)]
pub struct JsClientCache {
    pub(crate) cache: Rc<OfflineCache>,
}

#[wasm_bindgen(js_class = ClientCache)]
impl JsClientCache {
    /// Empties the cache, in memory and in storage.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn clear(&self) -> Promise {
        let cache = self.cache.clone();
        promise(Ok(async move {
            cache.ready().await;
            cache.call("clear", &Array::new()).await?;
            cache.state.borrow_mut().clear();
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// Resolves once the stored entries are loaded (corrupt ones are skipped
    /// and reported to `onCacheError`).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn ready(&self) -> Promise {
        let cache = self.cache.clone();
        promise(Ok(async move {
            cache.ready().await;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// How many documents are cached (after `ready()`), over every variant.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.cache.state.borrow().size()).unwrap_or(u32::MAX)
    }

    /// The bytes of response text kept (after `ready()`).
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> f64 {
        self.cache.state.borrow().bytes() as f64
    }

    /// Marks cached answers (for `endpoint`, or every one) stale: the next
    /// call for them asks the service under every policy but `cache-only`
    /// (and `stale-while-revalidate` answers from the cache while it asks).
    pub fn invalidate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec | undefined")] endpoint: JsValue,
    ) -> Result<(), JsValue> {
        let endpoint = options::invalidated(&props(&endpoint))?;
        self.cache
            .state
            .borrow_mut()
            .invalidate(endpoint.as_ref(), js_sys::Date::now());
        Ok(())
    }

    /// The policy in use.
    #[wasm_bindgen(getter, unchecked_return_type = "CachePolicy")]
    pub fn policy(&self) -> String {
        self.cache.options.settings.policy.name().into()
    }
}
