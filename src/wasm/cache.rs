//! The offline cache at the boundary: the storage adapter (IndexedDB,
//! memory, or the caller's), the outcomes of its calls, and `client.cache`.
//! What to store, what to answer and when are decided by [`crate::cache`];
//! `src/js/client.js` performs the storage calls and feeds them back.

use std::cell::RefCell;

use js_sys::{Array, Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;

use super::convert::{describe, props};
use super::store::{make, utf8_text};
use crate::cache::writing::{Next, Writing};
use crate::cache::{storage_error, Cache, Change, Held, Put, StorageFailure};
use crate::client::options::{self, CacheOptions};
use crate::client::request::Response;
use crate::error::{Error, Result};
use crate::num::{u32_from_usize, usize_from_f64};

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
    fn report(on_error: &Option<Function>, error: &JsValue);
}

#[wasm_bindgen(module = "/src/js/client.js")]
extern "C" {
    #[wasm_bindgen(js_name = cacheReady)]
    fn cache_ready(io: &JsValue) -> Promise;
    #[wasm_bindgen(js_name = cacheClear)]
    fn cache_clear(io: &JsValue) -> Promise;
}

/// The cache of one client.
pub(crate) struct OfflineCache {
    pub(crate) state: RefCell<Cache>,
    /// The `cache` option: the policy's settings, `maxAgeMs`,
    /// `refreshOnReconnect`, the bound of one storage call.
    pub(crate) options: CacheOptions,
    on_error: Option<Function>,
    /// The writes under way (one at a time: `src/js/client.js` orders them).
    writing: RefCell<Option<Writing>>,
    /// The documents of each variant's store delivered to JavaScript.
    pub(crate) held: js_sys::Map,
}

impl OfflineCache {
    /// The cache of the `cache` option.
    pub(crate) fn new(options: CacheOptions, on_error: Option<Function>) -> Self {
        let mut state = Cache::new(&session_id());
        state.set_max_bytes(options.max_bytes);
        OfflineCache {
            state: RefCell::new(state),
            options,
            on_error,
            writing: RefCell::default(),
            held: js_sys::Map::new(),
        }
    }

    /// A list the cache computed, made into objects now ([`make`]); `None`
    /// for another response, or if that failed (the text is read instead).
    pub(crate) fn assemble(&self, response: &Response) -> Option<JsValue> {
        let (variant, page) = &**response.page.as_ref()?;
        let mut state = self.state.borrow_mut();
        let store = state.store_mut(variant)?;
        make(&self.held, store.id(), store, page)
    }

    /// Reports a cache failure to `onCacheError`, or the console.
    pub(crate) fn report(&self, error: Error) {
        report(&self.on_error, &JsValue::from(error));
    }

    /// What a call of the storage's `method` gave (`callStorage` of
    /// `src/js/storage.js`): its value, or the error.
    pub(crate) fn outcome(&self, method: &str, outcome: &JsValue) -> Result<JsValue> {
        let outcome = Array::from(outcome);
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

    /// Reads one stored entry as storage hands it over (`loadStorage` of
    /// `src/js/storage.js`; text as a string or UTF-8 bytes).
    pub(crate) fn load_entry(&self, key: String, text: JsValue) {
        // (Read before the state is borrowed.)
        let text = utf8_text(text);
        self.state.borrow_mut().load_entry(key, text);
    }

    /// Ends the load with how the storage's load ended (`Ok`: the number of
    /// its items that were not `[key, text]` pairs): corrupt entries are
    /// reported; the first write of the deletes of entries of an older
    /// schema (see [`Self::next`]).
    pub(crate) fn loaded(&self, outcome: &JsValue) -> JsValue {
        let skipped = self.outcome("load", outcome);
        let skipped = skipped.map(|count| count.as_f64().map_or(0, usize_from_f64));
        let (errors, stale) = self.state.borrow_mut().load_end(skipped);
        for error in errors {
            self.report(error);
        }
        self.write(stale, true, None).unwrap_or_default()
    }

    /// Starts writing `change` ([`Writing`]; `alone`: the deletes of a
    /// load; `held`: the response whose text JavaScript holds): see
    /// [`Self::next`].
    pub(crate) fn write(&self, change: Change, alone: bool, held: Held) -> Result<JsValue> {
        *self.writing.borrow_mut() = Some(Writing::new(change, alone));
        self.next(None, held)
    }

    /// After the storage's `write()` of the last batch ended with `written`
    /// (`None`: before the first): the next batch, `[puts, deletes]`, or
    /// `undefined` once done; failures are reported as the core says, and
    /// the outcome is the result.
    pub(crate) fn next(&self, written: Option<Result<()>>, held: Held) -> Result<JsValue> {
        let mut slot = self.writing.borrow_mut();
        let Some(writing) = slot.as_mut() else {
            return Ok(JsValue::UNDEFINED);
        };
        let (outcome, reports) = match writing.next(&mut self.state.borrow_mut(), written) {
            Next::Write => {
                let bytes = self.options.storage.kind() == Some("indexeddb");
                let change = writing.pending().map(|change| batch(change, held, bytes));
                return Ok(change.unwrap_or_default());
            }
            Next::Done(outcome, reports) => (outcome, reports),
        };
        *slot = None;
        drop(slot);
        for error in reports {
            self.report(error);
        }
        outcome.map(|()| JsValue::UNDEFINED)
    }
}

/// The arguments of the storage's `write(puts, deletes)` for `change`; a put of
/// `held`'s segment is `[key, header, true]` (`client.js` joins the text it holds).
/// With `bytes` (the IndexedDB storage keeps UTF-8), each value is its bytes,
/// copied from this memory: nothing decoded here to be encoded there.
fn batch(change: &Change, held: Held, bytes: bool) -> JsValue {
    let puts: Array = if bytes {
        let put = |(key, put): &(String, Put)| Array::of2(&key.into(), &utf8(put.parts()));
        change.puts().iter().map(put).map(JsValue::from).collect()
    } else {
        (change.put_texts(held))
            .map(|(key, value)| match value {
                Ok(text) => Array::of2(&key.into(), &JsValue::from_str(&text)),
                Err(header) => Array::of3(&key.into(), &header.into(), &JsValue::TRUE),
            })
            .map(JsValue::from)
            .collect()
    };
    let deletes: Array = change.deletes().iter().map(JsValue::from).collect();
    Array::of2(&puts, &deletes).into()
}

/// `header`, a line break and `text` (or `text` alone) as a `Uint8Array`.
fn utf8((header, text): (Option<&str>, &str)) -> JsValue {
    let head = u32_from_usize(header.map_or(0, |header| header.len() + 1));
    let array = Uint8Array::new_with_length(head + u32_from_usize(text.len()));
    if let Some(header) = header {
        array.subarray(0, head - 1).copy_from(header.as_bytes());
        array.set_index(head - 1, b'\n');
    }
    array
        .subarray(head, array.length())
        .copy_from(text.as_bytes());
    array.into()
}

/// `client.cache`: the cache of a client.
#[wasm_bindgen(js_name = ClientCache, skip_typescript)]
pub struct JsClientCache {
    pub(crate) cache: std::rc::Rc<OfflineCache>,
    /// The client's I/O (`src/js/client.js`).
    pub(crate) io: JsValue,
}

#[wasm_bindgen(js_class = ClientCache)]
impl JsClientCache {
    /// Empties the cache, in memory and in storage.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn clear(&self) -> Promise {
        cache_clear(&self.io)
    }

    /// Resolves once the stored entries are loaded (corrupt ones are skipped
    /// and reported to `onCacheError`).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn ready(&self) -> Promise {
        cache_ready(&self.io)
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
