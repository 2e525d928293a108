//! `Client`: its arguments are read by [`crate::client::options`]; it
//! performs what the core decides: one request under the cache policy
//! ([`crate::client::request`]), pages ([`crate::client::pager`]), delta
//! refreshes ([`crate::cache::refresh`]).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, spawn_local, JsFuture};
use web_sys::AbortSignal;

use super::cache::OfflineCache;
use super::cache::{has_indexed_db, listen_for_reconnect, make_storage, online, JsClientCache};
use super::convert::{self, property, props, take};
use super::fetch::{get, sleep_promise, Transport};
use crate::args::Arg;
use crate::cache::refresh::{self, complete_lists, Refresh};
use crate::client::options::{self, ClientOptions, ListArgs, ListCall, Storage, Target};
use crate::client::pager::{Done, Pager, Step};
use crate::client::request::{Action, Course, Request, Response};
use crate::error::{Error, Result};
use crate::query::url::Endpoint;
use crate::query::Query;

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = markSource)]
    fn mark_source(text: &str, source: &str, stale: bool, cached_at: JsValue) -> JsValue;
}

/// The body as plain JavaScript (read by `JSON.parse`, so every value is
/// what `JSON.parse` gives), with non-enumerable `source`, `stale` and
/// `cachedAt`.
fn to_js(response: &Response) -> JsValue {
    let cached_at = response
        .cached_at
        .map_or(JsValue::UNDEFINED, JsValue::from_f64);
    mark_source(
        &response.body,
        response.source.name(),
        response.stale,
        cached_at,
    )
}

/// A plain object of numbers.
fn counts(entries: &[(&str, f64)]) -> JsValue {
    let object = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_f64(*value));
    }
    object.into()
}

/// Calls `onProgress({ loaded, total })`, if there is one.
fn report(progress: Option<&Function>, loaded: usize, total: u64) {
    if let Some(progress) = progress {
        let value = counts(&[("loaded", loaded as f64), ("total", total as f64)]);
        let _ = progress.call1(&JsValue::UNDEFINED, &value);
    }
}

/// A promise of `work`, or a rejected one when the arguments were invalid.
fn promise<F>(work: Result<F>) -> Promise
where
    F: Future<Output = Result<JsValue>> + 'static,
{
    match work {
        Ok(work) => future_to_promise(async move { work.await.map_err(JsValue::from) }),
        Err(error) => Promise::reject(&JsValue::from(error)),
    }
}

/// What the requests of one call share: where they go, the cache, the
/// caller's signal.
#[derive(Clone)]
struct Context {
    transport: Rc<Transport>,
    cache: Option<Rc<OfflineCache>>,
    signal: Option<AbortSignal>,
}

impl Context {
    fn cache(&self) -> Result<&Rc<OfflineCache>> {
        self.cache.as_ref().ok_or_else(|| {
            Error::invalid_argument("this needs a client created with the `cache` option")
        })
    }

    /// Sends `request` and checks the body, recording a successful response
    /// in the cache, if any (a failed write is reported; the answer stands).
    async fn network(&self, request: &Request, retry_network: bool) -> Result<Response> {
        let (transport, signal) = (self.transport.clone(), self.signal.clone());
        let body = get(transport, request.url.clone(), signal, retry_network).await?;
        let mut response = request.answer(body, self.transport.config.secret())?;
        if let Some(cache) = &self.cache {
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
            return self.network(&request, true).await;
        };
        let max_age_ms = cache.max_age_ms;
        let found = cache
            .with_state(|state| request.lookup(state, js_sys::Date::now(), max_age_ms))
            .await;
        let mut course = Course::new(cache.settings, found, online());
        match course.first() {
            Action::Answer {
                response,
                revalidate,
            } => {
                if revalidate {
                    let context = self.clone();
                    spawn_local(async move {
                        let _ = context.network(&request, true).await;
                    });
                }
                response
            }
            Action::Fetch {
                retry_network,
                race_ms: None,
            } => course.after(Some(self.network(&request, retry_network).await)),
            Action::Fetch {
                retry_network,
                race_ms: Some(ms),
            } => {
                // The network's outcome, or none when `ms` passed first (the
                // request goes on in the background and records its answer).
                let slot: Rc<RefCell<Option<Result<Response>>>> = Rc::default();
                let (context, filled) = (self.clone(), slot.clone());
                let network = future_to_promise(async move {
                    *filled.borrow_mut() = Some(context.network(&request, retry_network).await);
                    Ok(JsValue::UNDEFINED)
                });
                let race = Promise::race(&Array::of2(&network, &sleep_promise(ms as f64)));
                let _ = JsFuture::from(race).await;
                let outcome = slot.borrow_mut().take();
                course.after(outcome)
            }
            Action::Fail(error) => Err(error),
        }
    }

    /// Pages through a list as `pager` says: each page under the cache
    /// policy, or (`prefetch`) from the service and recorded.
    async fn pages(
        &self,
        mut pager: Pager,
        prefetch: bool,
        progress: Option<Function>,
    ) -> Result<Done> {
        loop {
            match pager.step(&self.transport.config)? {
                Step::Fetch(request) if prefetch => {
                    let mut page = self.network(&request, true).await?;
                    if let Some((loaded, total)) = pager.receive(&mut page) {
                        report(progress.as_ref(), loaded, total);
                    }
                }
                Step::Fetch(request) => {
                    pager.receive(&mut self.resolve(*request).await?);
                }
                Step::Complete => {
                    let now = js_sys::Date::now();
                    let complete = |state: &mut _| Ok((pager.complete(state, now), ()));
                    self.cache()?.record(complete).await?;
                }
                Step::Done(done) => return Ok(done),
            }
        }
    }

    /// Refreshes the complete list `endpoint` of `query`'s variant as
    /// [`Refresh`] says: `{ changed, deleted, total }`.
    async fn refresh(
        &self,
        endpoint: Endpoint,
        query: Query,
        progress: Option<Function>,
    ) -> Result<JsValue> {
        let (cache, config) = (self.cache()?, &self.transport.config);
        let mut refresh = cache
            .with_state(|state| Refresh::start(state, endpoint, query))
            .await?;
        loop {
            match cache
                .with_state(|state| refresh.step(state, config))
                .await?
            {
                refresh::Step::Fetch(url) => {
                    let (transport, signal) = (self.transport.clone(), self.signal.clone());
                    let body = get(transport, url, signal, true).await?;
                    let now = js_sys::Date::now();
                    let receive =
                        |state: &mut _| refresh.receive(state, body, config.secret(), now);
                    if let Some((loaded, total)) = cache.with_state(receive).await? {
                        report(progress.as_ref(), loaded, total);
                    }
                }
                refresh::Step::Write => {
                    let now = js_sys::Date::now();
                    let (changed, deleted, total) =
                        cache.record(|state| refresh.finish(state, now)).await?;
                    return Ok(counts(&[
                        ("changed", changed as f64),
                        ("deleted", deleted as f64),
                        ("total", total as f64),
                    ]));
                }
            }
        }
    }
}

/// A client of one repository of the Content Repository Read API: typed
/// methods for every endpoint, each returning a promise, with timeouts,
/// cancellation, retries and typed errors (`ContentRepoError`).
#[wasm_bindgen(js_name = Client, skip_typescript)]
pub struct JsClient {
    transport: Rc<Transport>,
    cache: Option<Rc<OfflineCache>>,
    /// With `refreshOnReconnect`: the `online` listener, and what stops it.
    reconnect: Option<(Closure<dyn FnMut()>, JsValue)>,
}

impl Drop for JsClient {
    fn drop(&mut self) {
        if let Some((_, stop)) = &self.reconnect {
            if let Some(stop) = stop.dyn_ref::<Function>() {
                let _ = stop.call0(&JsValue::UNDEFINED);
            }
        }
    }
}

impl JsClient {
    fn context(&self, options: &JsValue, signal: bool) -> Context {
        Context {
            transport: self.transport.clone(),
            cache: self.cache.clone(),
            signal: signal.then(|| take(options, "signal")).flatten(),
        }
    }

    /// Fetches a typed method's request under the cache policy; the body as
    /// a plain JavaScript value marked with its `source`.
    fn request(&self, target: Target, id: &JsValue, query: &JsValue, options: &JsValue) -> Promise {
        promise((|| {
            let read =
                options::request(target, &props(id), &convert::query(query), &props(options))?;
            let context = self.context(options, read.signal);
            let config = &self.transport.config;
            let request = Request::new(config, read.endpoint, read.query, read.expect)?;
            Ok(async move { Ok(to_js(&context.resolve(request).await?)) })
        })())
    }

    /// Reads the arguments of a list method.
    fn list(
        &self,
        call: ListCall,
        endpoint: &JsValue,
        query: &Arg,
        options: &JsValue,
    ) -> Result<(Context, ListArgs)> {
        let has_cache = self.cache.is_some();
        let args = options::list(call, &props(endpoint), query, &props(options), has_cache)?;
        Ok((self.context(options, args.signal), args))
    }
}

#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// Creates a client; throws `invalid_argument` for an invalid base URL,
    /// repository, API key or option.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientOptions")] options: JsValue,
    ) -> Result<JsClient, JsValue> {
        let read = ClientOptions::read(&props(&options), has_indexed_db())?;
        let on_error = read
            .on_cache_error
            .then(|| take(&options, "onCacheError"))
            .flatten();
        let cache = read.cache.as_ref().map(|cache| {
            let storage = match cache.storage {
                Storage::IndexedDb => JsValue::from_str("indexeddb"),
                Storage::Memory => JsValue::from_str("memory"),
                Storage::Custom => property(&property(&options, "cache"), "storage"),
            };
            let storage = make_storage(&storage, &read.storage_name());
            Rc::new(OfflineCache::new(
                cache,
                &storage,
                on_error,
                read.timeout_ms,
            ))
        });
        let fetch = read.fetch.then(|| take(&options, "fetch")).flatten();
        let transport = Rc::new(Transport::new(
            read.config,
            read.retry,
            read.timeout_ms,
            fetch,
        ));
        let reconnect = cache
            .clone()
            .filter(|cache| cache.refresh_on_reconnect)
            .map(|cache| {
                let context = Context {
                    transport: transport.clone(),
                    cache: Some(cache),
                    signal: None,
                };
                // Refreshes every complete list of the cache, reporting failures.
                let callback = Closure::<dyn FnMut()>::new(move || {
                    let context = context.clone();
                    spawn_local(async move {
                        let Ok(cache) = context.cache().cloned() else {
                            return;
                        };
                        for (endpoint, query) in
                            cache.with_state(|state| complete_lists(state)).await
                        {
                            if let Err(error) = context.refresh(endpoint, query, None).await {
                                cache.report(error);
                            }
                        }
                    });
                });
                let stop = listen_for_reconnect(callback.as_ref());
                (callback, stop)
            });
        Ok(JsClient {
            transport,
            cache,
            reconnect,
        })
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
        Ok(self.transport.config.url(&endpoint, query.as_ref())?)
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
        let (context, args) = self.list(ListCall::Pages, &endpoint, &query, &options)?;
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
        let query = convert::query(&query);
        promise(self.list(ListCall::All, &endpoint, &query, &options).map(
            |(context, args)| async move {
                match context
                    .pages(Pager::new(ListCall::All, args), false, None)
                    .await?
                {
                    Done::List(list) => Ok(to_js(&list)),
                    _ => Ok(JsValue::UNDEFINED),
                }
            },
        ))
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
        let list = self.list(ListCall::Prefetch, &endpoint, &query, &options);
        promise(list.map(|(context, args)| {
            let progress = args
                .progress
                .then(|| take(&options, "onProgress"))
                .flatten();
            async move {
                let pager = Pager::new(ListCall::Prefetch, args);
                match context.pages(pager, true, progress).await? {
                    Done::Prefetched { loaded, total } => Ok(counts(&[
                        ("loaded", loaded as f64),
                        ("total", total as f64),
                    ])),
                    _ => Ok(JsValue::UNDEFINED),
                }
            }
        }))
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
        let list = self.list(ListCall::Refresh, &endpoint, &query, &options);
        promise(list.map(|(context, args)| {
            let progress = args
                .progress
                .then(|| take(&options, "onProgress"))
                .flatten();
            async move { context.refresh(args.endpoint, args.query, progress).await }
        }))
    }

    /// The offline cache (`undefined` when the client has none).
    #[wasm_bindgen(getter)]
    pub fn cache(&self) -> Option<JsClientCache> {
        self.cache.clone().map(JsClientCache::new)
    }

    /// The base URL, without trailing `/`.
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.transport.config.base_url().to_owned()
    }

    /// The repository name.
    #[wasm_bindgen(getter, js_name = repositoryName)]
    pub fn repository_name(&self) -> String {
        self.transport.config.repository().to_owned()
    }

    /// A description without the API key.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        format!(
            "Client({}/v1/{})",
            self.transport.config.base_url(),
            self.transport.config.repository()
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
            let step = pager.step(&context.transport.config)?;
            let page = match step {
                Step::Fetch(request) => Some(context.resolve(*request).await?),
                _ => None,
            };
            let result = Object::new();
            let value = page.map(|mut page| {
                pager.receive(&mut page);
                to_js(&page)
            });
            let done = JsValue::from_bool(value.is_none());
            let _ = Reflect::set(&result, &"value".into(), &value.unwrap_or_default());
            let _ = Reflect::set(&result, &"done".into(), &done);
            *state.borrow_mut() = pager;
            Ok(result.into())
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
