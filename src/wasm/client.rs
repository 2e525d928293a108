//! `Client` and `Pages`: their arguments are read by
//! [`crate::client::options`]; each call is a [`Task`] that
//! `src/js/client.js` performs (see [`super::task`]).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::cache::{has_indexed_db, make_storage, JsClientCache, OfflineCache};
use super::convert::{self, function, property, props, signal};
use super::task::{iteration, Shared, Task};
use crate::args::Arg;
use crate::client::options::{self, ClientOptions, LastRequest, ListCall, Target};
use crate::client::pager::Pager;
use crate::client::task::Machine;
use crate::error::Result;
use crate::http::ClientConfig;

#[wasm_bindgen(module = "/src/js/client.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeIo)]
    fn make_io(
        root: JsValue,
        fetch: Option<Function>,
        cached: bool,
        storage: JsValue,
        on_error: Option<Function>,
        timeout_ms: f64,
        authorization: &str,
        reconnect: bool,
    ) -> JsValue;
    #[wasm_bindgen(js_name = closeIo)]
    fn close_io(io: &JsValue);
    fn request(io: &JsValue, task: JsValue, signal: Option<AbortSignal>) -> Promise;
    fn list(
        io: &JsValue,
        task: JsValue,
        signal: Option<AbortSignal>,
        progress: Option<Function>,
        refresh: bool,
    ) -> Promise;
    fn page(io: &JsValue, task: JsValue, signal: Option<AbortSignal>) -> Promise;
}

/// The promise of `task` (`run` performs it), or a rejected one when the
/// arguments were invalid.
fn promise(task: Result<Task>, run: impl FnOnce(JsValue) -> Promise) -> Promise {
    match task {
        Ok(task) => run(task.into()),
        Err(error) => Promise::reject(&error.into()),
    }
}

/// A client of one repository of the Content Repository Read API: typed
/// methods for every endpoint, each returning a promise, with timeouts,
/// cancellation, retries and typed errors (`ContentRepoError`).
#[wasm_bindgen(js_name = Client, skip_typescript)]
pub struct JsClient {
    shared: Rc<Shared>,
    /// The client's I/O in `src/js/client.js`.
    io: JsValue,
    last: RefCell<LastRequest>,
}

impl Drop for JsClient {
    fn drop(&mut self) {
        close_io(&self.io);
        // `free()` gives the cache's memory back now: the client's I/O (a
        // JavaScript object) keeps its root task until it is collected.
        let cache = self.shared.cache.as_ref();
        if let Some(mut state) = cache.and_then(|cache| cache.state.try_borrow_mut().ok()) {
            state.clear();
        }
    }
}

impl JsClient {
    /// The client's settings.
    fn config(&self) -> &ClientConfig {
        &self.shared.options.config
    }

    /// A task of this client.
    fn task(&self) -> Task {
        Task::new(self.shared.clone())
    }

    /// Fetches a typed method's request under the cache policy; the body as
    /// a plain JavaScript value marked with its `source`.
    fn request(&self, target: Target, id: &JsValue, query: &JsValue, options: &JsValue) -> Promise {
        let (id, query, read) = (props(id), convert::query(query), props(options));
        // Out of its cell while options are read: a getter may call again.
        let mut last = self.last.take();
        let read = last.read(target, &id, &query, &read, self.config());
        self.last.replace(last);
        let (signal, _) = signals(options);
        let task = read.map(|request| {
            let mut task = self.task();
            task.flow.request = Some(request);
            task
        });
        promise(task, |task| request(&self.io, task, signal))
    }

    /// Runs a list method (`all`, `prefetch`, `refresh`) with its query
    /// argument (`options.query` for the last two).
    fn list(&self, call: ListCall, endpoint: &JsValue, query: &Arg, options: &JsValue) -> Promise {
        let cached = self.shared.cache.is_some();
        let args = options::list(call, &props(endpoint), query, &props(options), cached);
        let (signal, progress) = signals(options);
        let refresh = call == ListCall::Refresh;
        let task = args.map(|args| {
            let mut task = self.task();
            match refresh {
                true => task.flow.list = Some((args.endpoint, args.query)),
                false => task.flow.machine = Some(Machine::Pager(Box::new(Pager::new(call, args)))),
            }
            task
        });
        promise(task, |task| list(&self.io, task, signal, progress, refresh))
    }
}

/// The `signal` and `onProgress` of a call's options, if any.
fn signals(options: &JsValue) -> (Option<AbortSignal>, Option<Function>) {
    (signal(options, "signal"), function(options, "onProgress"))
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
        let (mut storage, mut on_error) = (JsValue::UNDEFINED, None);
        let cache = read.cache.clone().map(|cache| {
            let custom = || property(&property(&options, "cache"), "storage");
            let kind = cache.storage.kind().map_or_else(custom, JsValue::from_str);
            storage = make_storage(&kind, &read.storage_name());
            on_error = function(&options, "onCacheError");
            Rc::new(OfflineCache::new(cache, on_error.clone()))
        });
        let fetch = function(&options, "fetch");
        let (cached, reconnect) = match &cache {
            Some(cache) => (true, cache.options.refresh_on_reconnect),
            None => (false, false),
        };
        let (timeout_ms, authorization) = (read.timeout_ms as f64, read.config.authorization());
        let shared = Rc::new(Shared {
            _redacting: crate::Redacting::new(read.config.secret()),
            options: read,
            cache,
        });
        let root = Task::new(shared.clone()).into();
        let io = make_io(
            root,
            fetch,
            cached,
            storage,
            on_error,
            timeout_ms,
            &authorization,
            reconnect,
        );
        let last = RefCell::default();
        Ok(JsClient { shared, io, last })
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

    /// The pages of a list, one request each, from the query's `offset` in
    /// steps of its `limit`: `for await (const page of client.pages(...))`.
    #[wasm_bindgen(unchecked_return_type = "Pages")]
    pub fn pages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PageOptions | undefined")] options: JsValue,
    ) -> Result<JsPages, JsValue> {
        let query = convert::query(&query);
        let cached = self.shared.cache.is_some();
        let args = options::list(
            ListCall::Pages,
            &props(&endpoint),
            &query,
            &props(&options),
            cached,
        )?;
        let (signal, _) = signals(&options);
        let pager = Rc::new(RefCell::new(Pager::new(ListCall::Pages, args)));
        let (shared, io) = (self.shared.clone(), self.io.clone());
        Ok(JsPages {
            shared,
            io,
            signal,
            pager,
        })
    }

    /// Every page of a list collected into one list envelope (`meta.count` =
    /// `meta.limit` = the documents gathered, `meta.total` = offset + count).
    /// Rejects with `invalid_argument` when the list has more than `maxPages` pages.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn all(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PageOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.list(ListCall::All, &endpoint, &convert::query(&query), &options)
    }

    /// Fetches every page of a list endpoint, whole documents in the variant
    /// of `options.query`, into the cache (`Client.prefetch` in the `.d.ts`):
    /// resolves to `{ loaded, total }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ loaded: number; total: number }>")]
    pub fn prefetch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PrefetchOptions | undefined")] options: JsValue,
    ) -> Promise {
        let query = convert::query_at(&options, "query");
        self.list(ListCall::Prefetch, &endpoint, &query, &options)
    }

    /// Brings a prefetched list up to date for a fraction of a full
    /// prefetch's traffic (SPEC section 6; `Client.refresh` in the `.d.ts`):
    /// resolves to `{ changed, deleted, total }`, `not_cached` if unprefetched.
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
        let query = convert::query_at(&options, "query");
        self.list(ListCall::Refresh, &endpoint, &query, &options)
    }

    /// The offline cache (`undefined` when the client has none).
    #[wasm_bindgen(getter)]
    pub fn cache(&self) -> Option<JsClientCache> {
        let io = self.io.clone();
        let cache = self.shared.cache.clone();
        cache.map(|cache| JsClientCache { cache, io })
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
        let config = self.config();
        format!("Client({}/v1/{})", config.base_url(), config.repository())
    }
}

/// An async iterator over the pages of a list (from `client.pages`).
#[wasm_bindgen(js_name = Pages, skip_typescript)]
pub struct JsPages {
    shared: Rc<Shared>,
    io: JsValue,
    signal: Option<AbortSignal>,
    pager: Rc<RefCell<Pager>>,
}

#[wasm_bindgen(js_class = Pages)]
impl JsPages {
    /// The next page: `{ value: ListResponse, done: false }`, then
    /// `{ value: undefined, done: true }`. The task works on a copy of the
    /// pager (taken when it starts), kept once the page is in.
    #[wasm_bindgen(unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn next(&self) -> Promise {
        let mut task = Task::new(self.shared.clone());
        task.pages = Some(self.pager.clone());
        page(&self.io, task.into(), self.signal.clone())
    }

    /// Ends the iteration (`break` in `for await`).
    #[wasm_bindgen(js_name = return, unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn finish(&self) -> Promise {
        self.pager.borrow_mut().finish();
        Promise::resolve(&iteration(None))
    }
}
