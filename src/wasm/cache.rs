//! The offline cache at the boundary: the storage adapter (IndexedDB,
//! memory, or the caller's), the cache policy around each request, and
//! `client.cache`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::convert::{describe, property};
use crate::cache::{Answer, Cache, Change};
use crate::error::{Error, Result};

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeStorage)]
    fn make_storage(kind: &JsValue, name: &str) -> JsValue;
    #[wasm_bindgen(js_name = hasIndexedDb)]
    fn has_indexed_db() -> bool;
    #[wasm_bindgen(js_name = markSource)]
    fn mark_source_js(value: &JsValue, source: &str, stale: bool) -> JsValue;
}

#[wasm_bindgen(typescript_custom_section)]
const CACHE_TS: &'static str = r#"
/** Where a result came from: a non-enumerable property of every list and document a client returns. */
export type Source = "network" | "cache";

/**
 * A storage for the offline cache: every method may reject (a full disk,
 * say); a failed `write` must change nothing.
 */
export interface CacheStorage {
  /** Every stored entry. */
  load(): Promise<Array<[string, string]>>;
  /** Writes `puts` and removes `deletes`, all or nothing. */
  write(puts: Array<[string, string]>, deletes: string[]): Promise<void>;
  /** Removes every entry. */
  clear(): Promise<void>;
}

/** When a client answers from its cache. */
export type CachePolicy = "network-first" | "cache-first" | "stale-while-revalidate" | "cache-only";

/** The offline cache of a {@link Client}. */
export interface CacheOptions {
  /**
   * Where entries are kept: `"indexeddb"` (survives a reload), `"memory"`,
   * or your own {@link CacheStorage}.
   * @defaultValue `"indexeddb"` where IndexedDB exists (browsers), else `"memory"` (Node)
   */
  storage?: "indexeddb" | "memory" | CacheStorage;
  /**
   * - `network-first`: ask the service; answer from the cache only when the
   *   network fails (a network error, a timeout, 429 or 5xx), marked `stale`.
   * - `cache-first`: answer from the cache when it can (and the answer is
   *   younger than `maxAgeMs`), else ask the service.
   * - `stale-while-revalidate`: answer from the cache when it can, and
   *   refresh it from the service in the background.
   * - `cache-only`: never ask the service.
   * @defaultValue `"network-first"`
   */
  policy?: CachePolicy;
  /**
   * Cached answers older than this are `stale`; `cache-first` then asks the
   * service first.
   * @defaultValue no limit
   */
  maxAgeMs?: number;
}
"#;

/// When to answer from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The network, then the cache if the network fails.
    NetworkFirst,
    /// The cache if it can answer (and is fresh), else the network.
    CacheFirst,
    /// The cache if it can answer, refreshed in the background.
    StaleWhileRevalidate,
    /// The cache only.
    CacheOnly,
}

/// The cache of one client, with its storage.
pub struct OfflineCache {
    state: RefCell<Cache>,
    storage: JsValue,
    /// The policy.
    pub policy: Policy,
    max_age_ms: Option<f64>,
    on_error: Option<Function>,
    loaded: Cell<bool>,
    loading: RefCell<Option<Promise>>,
    /// Settles when the last planned write has been written and applied.
    tail: RefCell<Promise>,
}

/// Calls `method` of a storage object with `args`, awaiting its promise.
async fn call(storage: &JsValue, method: &str, args: &Array) -> Result<JsValue> {
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
    JsFuture::from(Promise::resolve(&result))
        .await
        .map_err(storage_error)
}

impl OfflineCache {
    /// Reads the `cache` option (`true` or `{ storage, policy, maxAgeMs }`).
    pub fn from_options(
        options: &JsValue,
        name: &str,
        on_error: Option<Function>,
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
                "cache must be true or {{ storage?, policy?, maxAgeMs? }}, got {}",
                describe(options)
            )));
        }
        let policy_value = property(options, "policy");
        let policy = match policy_value.as_string().as_deref() {
            _ if policy_value.is_undefined() => Policy::NetworkFirst,
            Some("network-first") => Policy::NetworkFirst,
            Some("cache-first") => Policy::CacheFirst,
            Some("stale-while-revalidate") => Policy::StaleWhileRevalidate,
            Some("cache-only") => Policy::CacheOnly,
            _ => {
                return Err(Error::invalid_argument(format!(
                    "invalid cache policy {}: expected \"network-first\", \"cache-first\", \"stale-while-revalidate\" or \"cache-only\"",
                    describe(&policy_value)
                )))
            }
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
        let max_age = property(options, "maxAgeMs");
        let max_age_ms = if max_age.is_undefined() {
            None
        } else {
            match max_age.as_f64() {
                Some(ms) if ms >= 0.0 => Some(ms),
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "cache.maxAgeMs must be a number >= 0, got {}",
                        describe(&max_age)
                    )))
                }
            }
        };
        Ok(Some(OfflineCache {
            state: RefCell::new(Cache::new()),
            storage: make_storage(&kind, name),
            policy,
            max_age_ms,
            on_error,
            loaded: Cell::new(false),
            loading: RefCell::new(None),
            tail: RefCell::new(Promise::resolve(&JsValue::UNDEFINED)),
        }))
    }

    /// Reports a cache failure to `onCacheError`, or the console.
    pub fn report(&self, error: Error) {
        let value = JsValue::from(error);
        match &self.on_error {
            Some(callback) => {
                let _ = callback.call1(&JsValue::UNDEFINED, &value);
            }
            None => web_log(&value),
        }
    }

    /// Loads the stored entries once; corrupt ones are skipped and reported.
    pub async fn ready(self: &Rc<Self>) {
        if self.loaded.get() {
            return;
        }
        let pending = self.loading.borrow().clone();
        let promise = match pending {
            Some(promise) => promise,
            None => {
                let this = self.clone();
                let promise = wasm_bindgen_futures::future_to_promise(async move {
                    match call(&this.storage, "load", &Array::new()).await {
                        Ok(entries) => {
                            let mut state = this.state.borrow_mut();
                            for entry in Array::from(&entries).iter() {
                                let pair = Array::from(&entry);
                                let (key, text) =
                                    (pair.get(0).as_string(), pair.get(1).as_string());
                                let result = match (key, text) {
                                    (Some(key), Some(text)) => state.load(&key, &text),
                                    _ => Err(Error::Decode {
                                        message:
                                            "skipped a cache entry that is not a [key, text] pair"
                                                .into(),
                                        excerpt: describe(&entry),
                                    }),
                                };
                                if let Err(error) = result {
                                    drop(state);
                                    this.report(error);
                                    state = this.state.borrow_mut();
                                }
                            }
                        }
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

    /// Plans a change against the current state (after earlier writes),
    /// writes it, and applies it to memory only if the write succeeded.
    pub async fn record(self: &Rc<Self>, plan: impl FnOnce(&Cache) -> Change) -> Result<()> {
        self.ready().await;
        let mut release: Option<Function> = None;
        let done = Promise::new(&mut |resolve, _| release = Some(resolve));
        let previous = self.tail.replace(done);
        let _ = JsFuture::from(previous).await;
        let change = plan(&self.state.borrow());
        let result = if change.is_empty() {
            Ok(())
        } else {
            let puts = Array::new();
            for (key, text) in change.writes() {
                puts.push(&Array::of2(&key.into(), &text.into()));
            }
            let written = call(&self.storage, "write", &Array::of2(&puts, &Array::new())).await;
            if written.is_ok() {
                self.state.borrow_mut().apply(change);
            }
            written.map(drop)
        };
        if let Some(release) = release {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
        if let Err(error) = &result {
            self.report(error.clone());
        }
        result
    }

    /// Runs `answer` on the loaded state.
    pub async fn answer(
        self: &Rc<Self>,
        answer: impl FnOnce(&Cache) -> Result<Answer>,
    ) -> Result<Answer> {
        self.ready().await;
        let state = self.state.borrow();
        answer(&state)
    }

    /// Whether an answer fetched at `fetched_at` is older than `maxAgeMs`.
    pub fn is_old(&self, answer: &Answer) -> bool {
        self.max_age_ms
            .is_some_and(|max| js_sys::Date::now() - answer.fetched_at > max)
    }

    /// Empties memory and storage.
    pub async fn clear(self: &Rc<Self>) -> Result<()> {
        self.ready().await;
        call(&self.storage, "clear", &Array::new()).await?;
        self.state.borrow_mut().clear();
        Ok(())
    }

    /// How many documents are cached.
    pub fn size(&self) -> usize {
        self.state.borrow().size()
    }
}

fn web_log(value: &JsValue) {
    let console = Reflect::get(&js_sys::global(), &"console".into()).unwrap_or(JsValue::UNDEFINED);
    if let Ok(warn) = Reflect::get(&console, &"warn".into()).and_then(|w| w.dyn_into::<Function>())
    {
        let _ = warn.call2(&console, &"content-repo cache:".into(), value);
    }
}

/// Whether a failed request may be answered from the cache under
/// `network-first`: the network failed, not the request.
pub fn is_network_failure(error: &Error) -> bool {
    match error {
        Error::Network { .. } | Error::Timeout { .. } => true,
        Error::Http { status, .. } => *status == 429 || *status >= 500,
        _ => false,
    }
}

/// Marks a plain result with its non-enumerable `source` and `stale`.
pub fn mark_source(value: &JsValue, source: &str, stale: bool) -> JsValue {
    mark_source_js(value, source, stale)
}

/// `client.cache`: the cache of a client.
#[wasm_bindgen(js_name = ClientCache)]
pub struct JsClientCache {
    cache: Rc<OfflineCache>,
}

impl JsClientCache {
    /// Wraps a client's cache.
    pub fn new(cache: Rc<OfflineCache>) -> Self {
        JsClientCache { cache }
    }
}

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
                .map(|_| JsValue::UNDEFINED)
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

    /// How many documents are cached (after `ready()`).
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        self.cache.size() as u32
    }

    /// The policy in use.
    #[wasm_bindgen(getter, unchecked_return_type = "CachePolicy")]
    pub fn policy(&self) -> String {
        match self.cache.policy {
            Policy::NetworkFirst => "network-first",
            Policy::CacheFirst => "cache-first",
            Policy::StaleWhileRevalidate => "stale-while-revalidate",
            Policy::CacheOnly => "cache-only",
        }
        .into()
    }
}
