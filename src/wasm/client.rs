//! `Client`: its arguments are read by [`crate::client::options`]; it
//! performs what the core decides: one request under the cache policy
//! ([`crate::client::request`]), pages ([`crate::client::pager`]), delta
//! refreshes ([`crate::cache::refresh`]).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, spawn_local, JsFuture};
use web_sys::AbortSignal;

use super::cache::OfflineCache;
use super::cache::{has_indexed_db, listen_for_reconnect, make_storage, online, JsClientCache};
use super::convert::{self, promise, property, props, take};
use super::fetch::{get, within, Transport};
use crate::args::Arg;
use crate::cache::refresh::{complete_lists, Refresh};
use crate::cache::Cache;
use crate::client::options::{self, ClientOptions, ListArgs, ListCall, Target};
use crate::client::pager::{Done, Pager, Paging, Step, Via};
use crate::client::request::{Action, Course, Request, Response};
use crate::error::{Error, Result};
use crate::http::ClientConfig;
use crate::query::url::Endpoint;
use crate::query::Query;

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    /// `{ value, done }` of an iterator: done without a value.
    fn iteration(value: Option<JsValue>) -> JsValue;
    #[wasm_bindgen(js_name = markSource)]
    fn mark_source(text: &str, source: &str, stale: bool, cached_at: Option<f64>) -> JsValue;
}

/// The body as plain JavaScript (read by `JSON.parse`, so every value is
/// what `JSON.parse` gives), with non-enumerable `source`, `stale` and
/// `cachedAt`.
fn to_js(response: &Response) -> JsValue {
    let (body, source, stale) = (&response.body, response.source.name(), response.stale);
    mark_source(body, source, stale, response.cached_at)
}

/// A plain object of numbers.
fn counts(entries: &[(&str, f64)]) -> JsValue {
    let object = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_f64(*value));
    }
    object.into()
}

/// What the requests of one call share: where they go, the cache, the
/// caller's signal and `onProgress`.
#[derive(Clone)]
struct Context {
    transport: Rc<Transport>,
    cache: Option<Rc<OfflineCache>>,
    signal: Option<AbortSignal>,
    progress: Option<Function>,
}

impl Context {
    fn cache(&self) -> Result<&Rc<OfflineCache>> {
        self.cache.as_ref().ok_or_else(|| {
            Error::invalid_argument("this needs a client created with the `cache` option")
        })
    }

    /// Sends `request` and checks the body; with `record`, records a
    /// successful response in the cache, if any (a failed write is
    /// reported; the answer stands).
    async fn network(&self, request: &Request, retry: bool, record: bool) -> Result<Response> {
        let (transport, signal) = (self.transport.clone(), self.signal.clone());
        let body = get(transport, request.url.clone(), signal, retry).await?;
        let mut response = request.answer(body, self.transport.config().secret())?;
        if let Some(cache) = self.cache.as_ref().filter(|_| record) {
            let now = js_sys::Date::now();
            let recorded = cache.record(|state| request.plan_record(state, &response, now));
            if let Ok(ids) = recorded.await {
                response.ids = ids;
            }
        }
        Ok(response)
    }

    /// The answer to `request` under the cache policy ([`Course`]; the
    /// network alone without a cache).
    async fn resolve(&self, request: Request) -> Result<Response> {
        let Some(cache) = &self.cache else {
            return self.network(&request, true, true).await;
        };
        let (options, now) = (&cache.options, js_sys::Date::now());
        let start = |state: &mut Cache| Course::start(&request, state, options, now, online());
        cache.state.borrow_mut().expect(&request.query);
        let mut course = cache.with_state(start).await;
        match course.first() {
            Action::Answer {
                response,
                revalidate,
            } => {
                if revalidate {
                    let context = self.clone();
                    spawn_local(async move {
                        let _ = context.network(&request, true, true).await;
                    });
                }
                response
            }
            Action::Fetch {
                retry_network,
                race_ms,
            } => {
                // The network's outcome, or none when `race_ms` passed first
                // (the request goes on in the background and records).
                let slot: Rc<RefCell<Option<Result<Response>>>> = Rc::default();
                let (context, filled) = (self.clone(), slot.clone());
                let network = future_to_promise(async move {
                    let outcome = context.network(&request, retry_network, true).await;
                    *filled.borrow_mut() = Some(outcome);
                    Ok(JsValue::UNDEFINED)
                });
                let _ = JsFuture::from(within(&network, race_ms.map(|ms| ms as f64))).await;
                let outcome = slot.borrow_mut().take();
                course.after(outcome)
            }
            Action::Fail(error) => Err(error),
        }
    }

    /// Drives `machine` (a pager, a refresh) to its answer, performing its
    /// steps.
    async fn drive(&self, machine: &mut dyn Paging) -> Result<Done> {
        loop {
            match machine.step(self.transport.config())? {
                Step::Fetch { request, via } => {
                    let mut page = match via {
                        Via::Policy => self.resolve(*request).await?,
                        via => self.network(&request, true, via == Via::Record).await?,
                    };
                    let now = js_sys::Date::now();
                    let mut receive =
                        |cache: Option<&mut Cache>| machine.receive(cache, &mut page, now);
                    let received = match &self.cache {
                        Some(cache) => cache.with_state(|state| receive(Some(state))).await,
                        None => receive(None),
                    };
                    if let (Some((loaded, total)), Some(progress)) = (received?, &self.progress) {
                        let value = counts(&[("loaded", loaded as f64), ("total", total as f64)]);
                        let _ = progress.call1(&JsValue::UNDEFINED, &value);
                    }
                }
                Step::Write => {
                    let now = js_sys::Date::now();
                    let write = |state: &mut Cache| Ok((machine.write(state, now)?, ()));
                    self.cache()?.record(write).await?;
                }
                Step::Done(done) => return Ok(done),
            }
        }
    }

    /// Refreshes the complete list `endpoint` of `query`'s variant.
    async fn refresh(&self, endpoint: Endpoint, query: Query) -> Result<Done> {
        let start = |state: &mut Cache| Refresh::start(state, endpoint, query);
        let mut refresh = self.cache()?.with_state(start).await?;
        self.drive(&mut refresh).await
    }

    /// Refreshes every complete list of the cache, reporting failures
    /// (`refreshOnReconnect`).
    async fn refresh_all(self) {
        let Ok(cache) = self.cache().cloned() else {
            return;
        };
        for (endpoint, query) in cache.with_state(|state| complete_lists(state)).await {
            if let Err(error) = self.refresh(endpoint, query).await {
                cache.report(error);
            }
        }
    }

    /// Runs a list method (`all`, `prefetch`, `refresh`) to its answer.
    async fn list(self, call: ListCall, args: ListArgs) -> Result<JsValue> {
        let done = match call {
            ListCall::Refresh => self.refresh(args.endpoint, args.query).await?,
            _ => self.drive(&mut Pager::new(call, args)).await?,
        };
        Ok(match done {
            Done::List(list) => to_js(&list),
            Done::Pages => JsValue::UNDEFINED,
            done => counts(&done.counts()),
        })
    }
}

/// A client of one repository of the Content Repository Read API: typed
/// methods for every endpoint, each returning a promise, with timeouts,
/// cancellation, retries and typed errors (`ContentRepoError`).
#[wasm_bindgen(js_name = Client, skip_typescript)]
pub struct JsClient {
    /// The transport and the cache (no signal).
    context: Context,
    /// With `refreshOnReconnect`: the `online` listener, and what stops it.
    reconnect: Option<(Closure<dyn FnMut()>, JsValue)>,
}

impl Drop for JsClient {
    fn drop(&mut self) {
        let stop = self.reconnect.as_ref().map(|(_, stop)| stop);
        if let Some(stop) = stop.and_then(JsCast::dyn_ref::<Function>) {
            let _ = stop.call0(&JsValue::UNDEFINED);
        }
    }
}

impl JsClient {
    /// The client's settings.
    fn config(&self) -> &ClientConfig {
        self.context.transport.config()
    }

    /// The context of a call with `options` (its `signal` and
    /// `onProgress`, if any).
    fn context(&self, options: &JsValue) -> Context {
        let (signal, progress) = (take(options, "signal"), take(options, "onProgress"));
        Context {
            signal,
            progress,
            ..self.context.clone()
        }
    }

    /// Fetches a typed method's request under the cache policy; the body as
    /// a plain JavaScript value marked with its `source`.
    fn request(&self, target: Target, id: &JsValue, query: &JsValue, options: &JsValue) -> Promise {
        let (id, query, read) = (props(id), convert::query(query), props(options));
        let request = options::request(target, &id, &query, &read, self.config());
        let context = self.context(options);
        promise(request.map(|request| async move { Ok(to_js(&context.resolve(request).await?)) }))
    }

    /// Runs a list method (`all`, `prefetch`, `refresh`) with its query
    /// argument (`options.query` for the last two).
    fn list(&self, call: ListCall, endpoint: &JsValue, query: &Arg, options: &JsValue) -> Promise {
        let cached = self.context.cache.is_some();
        let args = options::list(call, &props(endpoint), query, &props(options), cached);
        let context = self.context(options);
        promise(args.map(|args| context.list(call, args)))
    }
}

#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// Creates a client; throws `invalid_argument` for an invalid base URL,
    /// repository, API key or option.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientOptions")] options: JsValue,
    ) -> Result<JsClient, JsValue> {
        let read = ClientOptions::read(&props(&options), has_indexed_db())?;
        let cache = read.cache.clone().map(|cache| {
            let custom = || property(&property(&options, "cache"), "storage");
            let kind = cache.storage.kind().map_or_else(custom, JsValue::from_str);
            let storage = make_storage(&kind, &read.storage_name());
            let on_error = take(&options, "onCacheError");
            Rc::new(OfflineCache::new(cache, storage, on_error))
        });
        let (fetch, inflight) = (take(&options, "fetch"), RefCell::default());
        let transport = Rc::new(Transport {
            options: read,
            fetch,
            inflight,
        });
        let (signal, progress) = (None, None);
        let context = Context {
            transport,
            cache,
            signal,
            progress,
        };
        let cache = context.cache.as_ref();
        let reconnect = cache.filter(|cache| cache.options.refresh_on_reconnect);
        let reconnect = reconnect.map(|_| {
            let context = context.clone();
            let refresh = move || spawn_local(context.clone().refresh_all());
            let callback = Closure::<dyn FnMut()>::new(refresh);
            let stop = listen_for_reconnect(callback.as_ref());
            (callback, stop)
        });
        Ok(JsClient { context, reconnect })
    }

    /// The full URL of `endpoint` with `query`'s parameters. The API key is
    /// never part of it.
    pub fn url(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
    ) -> Result<String, JsValue> {
        let endpoint = options::endpoint(&props(&endpoint))?;
        let query = options::query(&convert::query(&query))?;
        Ok(self.config().url(&endpoint, query.as_ref())?)
    }

    /// `GET /v1/{repo}/documents`: the list of all documents.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn documents(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Documents, &JsValue::UNDEFINED, &query, &options)
    }

    /// `GET /v1/{repo}/collections/{apiId}`: the list of a collection.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn collection(
        &self,
        #[wasm_bindgen(js_name = apiId, unchecked_param_type = "string")] api_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Collection, &api_id, &query, &options)
    }

    /// `GET /v1/{repo}/documents/{id}`: one document.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn document(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Document, &id, &query, &options)
    }

    /// `GET /v1/{repo}/alias/{apiId}`: the document behind an alias.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn alias(
        &self,
        #[wasm_bindgen(js_name = apiId, unchecked_param_type = "string")] api_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Alias, &api_id, &query, &options)
    }

    /// `GET /v1/{repo}/assets/{id}`: one asset.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn asset(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Asset, &id, &query, &options)
    }

    /// `GET /v1/{repo}`: the repository info.
    #[wasm_bindgen(unchecked_return_type = "Promise<RepositoryInfo>")]
    pub fn repository(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        let none = JsValue::UNDEFINED;
        self.request(Target::Repository, &none, &none, &options)
    }

    /// `GET` any other endpoint (`"documents"`, `"collections/x"`, or a typed
    /// endpoint object); the JSON body as it is.
    #[wasm_bindgen(unchecked_return_type = "Promise<unknown>")]
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.request(Target::Any, &endpoint, &query, &options)
    }

    /// The pages of a list (`"documents"`, `"collections/<apiId>"` or
    /// `{ collection }`), one request each, from the query's `offset` in
    /// steps of its `limit` (100 when unset), until `meta.total` is reached or
    /// a page is short: `for await (const page of client.pages(...))`.
    #[wasm_bindgen(unchecked_return_type = "Pages")]
    pub fn pages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PageOptions | undefined")] options: JsValue,
    ) -> Result<JsPages, JsValue> {
        let query = convert::query(&query);
        let cached = self.context.cache.is_some();
        let args = options::list(
            ListCall::Pages,
            &props(&endpoint),
            &query,
            &props(&options),
            cached,
        )?;
        let context = self.context(&options);
        let pager = Rc::new(RefCell::new(Pager::new(ListCall::Pages, args)));
        Ok(JsPages { context, pager })
    }

    /// Every page of a list collected into one list envelope
    /// (`meta.count` = `meta.total` = the number of documents). Rejects with
    /// `invalid_argument` when the list has more than `maxPages` pages.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn all(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PageOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.list(ListCall::All, &endpoint, &convert::query(&query), &options)
    }

    /// Fetches every page of a list endpoint (whole documents, `pageSize` a
    /// page, 1000 by default, in the variant of `query`: its `locale`,
    /// `embedAssets` and `includes`) into the cache, so that any sorting and
    /// selection of it can be answered offline; `onProgress({ loaded, total })`
    /// is called after each page. Resolves to the final `{ loaded, total }`.
    /// Rejects with `invalid_argument` beyond `maxPages` (200) pages.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ loaded: number; total: number }>")]
    pub fn prefetch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PrefetchOptions | undefined")] options: JsValue,
    ) -> Promise {
        let query = convert::query(&property(&options, "query"));
        self.list(ListCall::Prefetch, &endpoint, &query, &options)
    }

    /// Brings a prefetched list up to date for a fraction of a full
    /// prefetch's traffic (SPEC section 6): it asks for the documents whose
    /// `meta.updatedAt` is at or after the newest cached one, and sweeps the
    /// list's ids and revisions (`fields=meta(id,revision)`, pages of 1000)
    /// to find deletions and changes whose `updatedAt` did not move; merges
    /// them under the revision rule, drops deleted documents from the list,
    /// and persists all of it in one write. Resolves to `{ changed, deleted,
    /// total }`. Works after a reload, per variant (`options.query`'s
    /// locale), for collections and `documents`; `not_cached` when the list
    /// was not prefetched.
    #[wasm_bindgen(
        unchecked_return_type = "Promise<{ changed: number; deleted: number; total: number }>"
    )]
    pub fn refresh(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ query?: Query | string; signal?: AbortSignal; onProgress?: (progress: { loaded: number; total: number }) => void } | undefined"
        )]
        options: JsValue,
    ) -> Promise {
        let query = convert::query(&property(&options, "query"));
        self.list(ListCall::Refresh, &endpoint, &query, &options)
    }

    /// The offline cache (`undefined` when the client has none).
    #[wasm_bindgen(getter)]
    pub fn cache(&self) -> Option<JsClientCache> {
        self.context
            .cache
            .clone()
            .map(|cache| JsClientCache { cache })
    }

    /// The base URL, without trailing `/`.
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.config().base_url().to_owned()
    }

    /// The repository name.
    #[wasm_bindgen(getter, js_name = repositoryName)]
    pub fn repository_name(&self) -> String {
        self.config().repository().to_owned()
    }

    /// A description without the API key.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        format!(
            "Client({}/v1/{})",
            self.config().base_url(),
            self.config().repository()
        )
    }
}

/// An async iterator over the pages of a list (from `client.pages`).
#[wasm_bindgen(js_name = Pages, skip_typescript)]
pub struct JsPages {
    context: Context,
    pager: Rc<RefCell<Pager>>,
}

#[wasm_bindgen(js_class = Pages)]
impl JsPages {
    /// The next page: `{ value: ListResponse, done: false }`, then
    /// `{ value: undefined, done: true }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn next(&self) -> Promise {
        let (context, state) = (self.context.clone(), self.pager.clone());
        future_to_promise(async move {
            // Work on a copy while awaiting, so no borrow is held across it.
            let mut pager = state.borrow().clone();
            let step = pager.step(context.transport.config())?;
            let mut page = match step {
                Step::Fetch { request, .. } => Some(context.resolve(*request).await?),
                _ => None,
            };
            if let Some(page) = &mut page {
                pager.receive(None, page, 0.0)?;
            }
            *state.borrow_mut() = pager;
            Ok(iteration(page.as_ref().map(to_js)))
        })
    }

    /// Ends the iteration (`break` in `for await`).
    #[wasm_bindgen(js_name = return, unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn finish(&self) -> Promise {
        self.pager.borrow_mut().finish();
        let result = Object::new();
        let _ = Reflect::set(&result, &"done".into(), &JsValue::TRUE);
        Promise::resolve(&JsValue::from(result))
    }
}
