//! `Client`: the connection settings and, later, the requests.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Promise};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;
use web_sys::AbortSignal;

use super::cache::{is_network_failure, mark_source, JsClientCache, OfflineCache, Policy};
use super::convert::{describe, integer, optional_string, property, string, to_plain};
use super::fetch::{get, Transport};
use crate::cache::Answer;
use crate::error::{Error, Result};
use crate::http::response::{next_offset, Expect};
use crate::http::retry::RetryPolicy;
use crate::http::ClientConfig;
use crate::query::url::Endpoint;
use crate::query::Query;

/// Decodes a query argument: a `Query`, a query string, or nothing.
///
/// A `Query` cannot be borrowed across the boundary without being moved, so it
/// is read through its canonical string, which parses back to an equal query.
pub fn query_arg(value: &JsValue) -> Result<Option<Query>> {
    query_text(value)?
        .map(|text| Query::parse(&text))
        .transpose()
}

/// The query string of a query argument (a `Query` or a query string), or
/// `None` for nothing.
pub fn query_text(value: &JsValue) -> Result<Option<String>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_string() {
        Some(text) => Ok(Some(text)),
        None if value.is_object() && property(value, "__wbg_ptr").as_f64().is_some() => Ok(Some(
            String::from(js_sys::Object::from(value.clone()).to_string()),
        )),
        None => Err(Error::invalid_argument(format!(
            "query must be a Query or a query string, got {}",
            describe(value)
        ))),
    }
}

#[wasm_bindgen(typescript_custom_section)]
const CLIENT_TS: &'static str = r#"
/** The settings of a {@link Client}. */
export interface ClientOptions {
  /** An absolute `http:` or `https:` URL; trailing `/` are dropped. */
  baseUrl: string;
  /** The repository name (one path segment). */
  repository: string;
  /** The API key, sent as the `Authorization` header only: never in a URL, message or log. */
  apiKey: string;
  /**
   * A prefix for the `Authorization` header, such as `"Bearer "`.
   * @defaultValue `""` (the raw key)
   */
  authScheme?: string;
  /**
   * The time budget of one call in milliseconds, every attempt and retry
   * wait included; `0` disables it. When it runs out the call rejects with
   * `timeout` and the pending `fetch` is aborted.
   * @defaultValue `30000`
   */
  timeoutMs?: number;
  /**
   * How many times a request is repeated after a network error or a 429,
   * 502, 503 or 504 response (never after another status, a timeout, or an
   * abort by the caller).
   * @defaultValue `3`
   */
  retries?: number;
  /**
   * The backoff before the first retry in milliseconds, doubled for each
   * later one, with full jitter (a random wait between 0 and that value).
   * @defaultValue `250`
   */
  retryDelayMs?: number;
  /**
   * The longest wait before a retry in milliseconds; caps both the backoff
   * and the server's `Retry-After` (seconds or an HTTP date).
   * @defaultValue `30000`
   */
  maxRetryDelayMs?: number;
  /**
   * The `fetch` to use, e.g. to add logging or for tests.
   * @defaultValue the global `fetch` (pages, web workers, service workers, Node 20+)
   */
  fetch?: (input: string, init: { method: "GET"; headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;
}

/** Options of one request. */
export interface RequestOptions {
  /** Aborts the request (and any retry wait): the call rejects with `aborted`. */
  signal?: AbortSignal;
}

/** Options of `pages` and `all`. */
export interface PageOptions extends RequestOptions {
  /**
   * `all` only: the most pages it fetches; if the list has more, it rejects
   * with `invalid_argument` rather than return a partial list.
   * @defaultValue `100`
   */
  maxPages?: number;
}

/** The repository info (`GET /v1/{repo}`): the service's object as it is. */
export type RepositoryInfo = Record<string, unknown>;

/** An async iterator over the pages of a list. */
export interface Pages extends AsyncIterableIterator<ListResponse> {}

/**
 * An endpoint: a raw path after the repository (`"documents"`,
 * `"collections/posts"`; split on `/`, each segment encoded), or a typed one
 * whose id is encoded as one segment.
 */
export type EndpointSpec =
  | string
  | { repository: true }
  | { documents: true }
  | { document: string }
  | { collection: string }
  | { alias: string }
  | { asset: string };
"#;

/// Decodes an endpoint argument: a raw string or a typed object.
pub fn endpoint(value: &JsValue) -> Result<Endpoint> {
    if let Some(text) = value.as_string() {
        return Endpoint::raw(&text);
    }
    if value.is_undefined() {
        return Ok(Endpoint::Repository);
    }
    type Make = fn(String) -> Endpoint;
    let typed: [(&str, Make); 4] = [
        ("document", Endpoint::Document),
        ("collection", Endpoint::Collection),
        ("alias", Endpoint::Alias),
        ("asset", Endpoint::Asset),
    ];
    for (key, make) in typed {
        let id = property(value, key);
        if !id.is_undefined() {
            let endpoint = make(string(&id, &format!("endpoint.{key}"))?);
            endpoint.check()?;
            return Ok(endpoint);
        }
    }
    if property(value, "documents").is_truthy() {
        return Ok(Endpoint::Documents);
    }
    if property(value, "repository").is_truthy() {
        return Ok(Endpoint::Repository);
    }
    Err(Error::invalid_argument(format!(
        "invalid endpoint {}: expected a string such as \"documents\", or {{ document | collection | alias | asset: id }}",
        describe(value)
    )))
}

/// The default page size of `pages` and `all` when the query sets no limit.
const DEFAULT_PAGE_LIMIT: u32 = 100;
/// The default ceiling of `all`.
const DEFAULT_MAX_PAGES: u64 = 100;

/// A client of one repository of the Content Repository Read API: typed
/// methods for every endpoint, each returning a promise, with timeouts,
/// cancellation, retries and typed errors (`ContentRepoError`).
#[wasm_bindgen(js_name = Client)]
pub struct JsClient {
    transport: Rc<Transport>,
    cache: Option<Rc<OfflineCache>>,
}

/// Reads `options.signal`.
fn signal_option(options: &JsValue) -> Result<Option<AbortSignal>> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(Error::invalid_argument(format!(
            "request options must be an object {{ signal? }}, got {}",
            describe(options)
        )));
    }
    let signal = property(options, "signal");
    if signal.is_undefined() || signal.is_null() {
        return Ok(None);
    }
    signal.dyn_into::<AbortSignal>().map(Some).map_err(|other| {
        Error::invalid_argument(format!(
            "options.signal must be an AbortSignal, got {}",
            describe(&other)
        ))
    })
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

fn optional_integer(options: &JsValue, key: &str, min: u64, max: u64, default: u64) -> Result<u64> {
    let value = property(options, key);
    if value.is_undefined() {
        return Ok(default);
    }
    integer(&value, key, min, max)
}

/// Whether an endpoint can answer with a list.
fn check_list(endpoint: &Endpoint) -> Result<()> {
    match endpoint {
        Endpoint::Documents | Endpoint::Collection(_) | Endpoint::Raw(_) => Ok(()),
        other => Err(Error::invalid_argument(format!(
            "pages and all need a list endpoint (documents or a collection), got {other:?}"
        ))),
    }
}

impl JsClient {
    /// Fetches `endpoint` with `query` under the cache policy and returns
    /// the body as a plain JavaScript value marked with its `source`.
    fn fetch(
        &self,
        endpoint: Result<Endpoint>,
        query: &JsValue,
        options: &JsValue,
        expect: Expect,
    ) -> Promise {
        let transport = self.transport.clone();
        let cache = self.cache.clone();
        promise((|| {
            let endpoint = endpoint?;
            let query = query_arg(query)?.unwrap_or_default();
            let signal = signal_option(options)?;
            let url = transport.config.url(&endpoint, Some(&query))?;
            let request = Request {
                transport,
                endpoint,
                query,
                url,
                expect,
                signal,
            };
            Ok(async move { request.resolve(cache).await?.to_js() })
        })())
    }

    fn list_state(
        &self,
        endpoint: &JsValue,
        query: &JsValue,
        options: &JsValue,
    ) -> Result<PageState> {
        let endpoint = self::endpoint(endpoint)?;
        check_list(&endpoint)?;
        let query = query_arg(query)?.unwrap_or_default();
        let signal = signal_option(options)?;
        let limit = query.get_limit().unwrap_or(DEFAULT_PAGE_LIMIT);
        let offset = query.get_offset().unwrap_or(0);
        Ok(PageState {
            transport: self.transport.clone(),
            cache: self.cache.clone(),
            endpoint,
            query,
            limit,
            next: Some(offset),
            refresh: false,
            signal,
        })
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
        if !options.is_object() {
            return Err(Error::invalid_argument(format!(
                "Client options must be an object {{ baseUrl, repository, apiKey }}, got {}",
                describe(&options)
            ))
            .into());
        }
        let base_url = string(&property(&options, "baseUrl"), "baseUrl")?;
        let repository = string(&property(&options, "repository"), "repository")?;
        // Never describe the key's value in a message.
        let api_key = property(&options, "apiKey")
            .as_string()
            .ok_or_else(|| Error::invalid_argument("apiKey must be a string"))?;
        let auth_scheme = optional_string(&property(&options, "authScheme"), "authScheme")?;
        let config = ClientConfig::new(&base_url, &repository, &api_key, auth_scheme.as_deref())?;
        let defaults = RetryPolicy::default();
        let policy = RetryPolicy {
            retries: optional_integer(&options, "retries", 0, 100, u64::from(defaults.retries))?
                as u32,
            base_delay_ms: optional_integer(
                &options,
                "retryDelayMs",
                0,
                3_600_000,
                defaults.base_delay_ms,
            )?,
            max_delay_ms: optional_integer(
                &options,
                "maxRetryDelayMs",
                0,
                3_600_000,
                defaults.max_delay_ms,
            )?,
        };
        let timeout_ms = optional_integer(&options, "timeoutMs", 0, 2_147_483_647, 30_000)?;
        let fetch = property(&options, "fetch");
        let fetch = if fetch.is_undefined() || fetch.is_null() {
            None
        } else {
            Some(fetch.dyn_into::<Function>().map_err(|other| {
                Error::invalid_argument(format!(
                    "fetch must be a function, got {}",
                    describe(&other)
                ))
            })?)
        };
        let on_error = property(&options, "onCacheError");
        let on_error = if on_error.is_undefined() || on_error.is_null() {
            None
        } else {
            Some(on_error.dyn_into::<Function>().map_err(|other| {
                Error::invalid_argument(format!(
                    "onCacheError must be a function, got {}",
                    describe(&other)
                ))
            })?)
        };
        let name = format!(
            "content-repo:{}/v1/{}",
            config.base_url(),
            config.repository()
        );
        let cache =
            OfflineCache::from_options(&property(&options, "cache"), &name, on_error)?.map(Rc::new);
        Ok(JsClient {
            transport: Rc::new(Transport::new(config, policy, timeout_ms, fetch)),
            cache,
        })
    }

    /// The full URL of `endpoint` with `query`'s parameters. The API key is
    /// never part of it.
    pub fn url(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
    ) -> Result<String, JsValue> {
        let endpoint = self::endpoint(&endpoint)?;
        let query = query_arg(&query)?;
        Ok(self.transport.config.url(&endpoint, query.as_ref())?)
    }

    /// `GET /v1/{repo}/documents`: the list of all documents.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn documents(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.fetch(Ok(Endpoint::Documents), &query, &options, Expect::List)
    }

    /// `GET /v1/{repo}/collections/{apiId}`: the list of a collection.
    #[wasm_bindgen(unchecked_return_type = "Promise<ListResponse>")]
    pub fn collection(
        &self,
        #[wasm_bindgen(js_name = apiId, unchecked_param_type = "string")] api_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        let endpoint = string(&api_id, "the collection api id").map(Endpoint::Collection);
        self.fetch(endpoint, &query, &options, Expect::List)
    }

    /// `GET /v1/{repo}/documents/{id}`: one document.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn document(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        let endpoint = string(&id, "the document id").map(Endpoint::Document);
        self.fetch(endpoint, &query, &options, Expect::Document)
    }

    /// `GET /v1/{repo}/alias/{apiId}`: the document behind an alias.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn alias(
        &self,
        #[wasm_bindgen(js_name = apiId, unchecked_param_type = "string")] api_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        let endpoint = string(&api_id, "the alias api id").map(Endpoint::Alias);
        self.fetch(endpoint, &query, &options, Expect::Document)
    }

    /// `GET /v1/{repo}/assets/{id}`: one asset.
    #[wasm_bindgen(unchecked_return_type = "Promise<Document>")]
    pub fn asset(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        let endpoint = string(&id, "the asset id").map(Endpoint::Asset);
        self.fetch(endpoint, &query, &options, Expect::Document)
    }

    /// `GET /v1/{repo}`: the repository info.
    #[wasm_bindgen(unchecked_return_type = "Promise<RepositoryInfo>")]
    pub fn repository(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RequestOptions | undefined")] options: JsValue,
    ) -> Promise {
        self.fetch(
            Ok(Endpoint::Repository),
            &JsValue::UNDEFINED,
            &options,
            Expect::Any,
        )
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
        self.fetch(self::endpoint(&endpoint), &query, &options, Expect::Any)
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
        let state = self.list_state(&endpoint, &query, &options)?;
        Ok(JsPages {
            state: Rc::new(RefCell::new(state)),
        })
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
        let work = (|| {
            let mut state = self.list_state(&endpoint, &query, &options)?;
            let max_pages =
                optional_integer(&options, "maxPages", 1, 1_000_000, DEFAULT_MAX_PAGES)?;
            Ok(async move {
                let start = state.next.unwrap_or(0);
                let mut data = Vec::new();
                let mut pages = 0;
                // From the cache if any page was, stale if any page was.
                let (mut source, mut stale) = ("network", false);
                while let Some(page) = state.fetch_next().await? {
                    pages += 1;
                    if page.source == "cache" {
                        source = "cache";
                    }
                    stale |= page.stale;
                    if let Some(Value::Array(items)) = page.body.get("data") {
                        data.extend(items.iter().cloned());
                    }
                    if state.next.is_some() && pages >= max_pages {
                        return Err(Error::invalid_argument(format!(
                            "the list has more than maxPages ({max_pages}) pages of {}; raise maxPages or narrow the query",
                            state.limit
                        )));
                    }
                }
                let count = data.len();
                let body = json!({
                    "data": data,
                    "meta": { "count": count, "limit": count, "offset": start, "total": start as usize + count },
                });
                Resolved {
                    body,
                    source,
                    stale,
                }
                .to_js()
            })
        })();
        promise(work)
    }

    /// Fetches every page of a list endpoint (whole documents, `pageSize` a
    /// page, 1000 by default)
    /// into the cache, so that any sorting and selection of it can be
    /// answered offline; `onProgress({ loaded, total })` is called after each
    /// page. Resolves to the final `{ loaded, total }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ loaded: number; total: number }>")]
    pub fn prefetch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ onProgress?: (progress: { loaded: number; total: number }) => void; signal?: AbortSignal; pageSize?: number } | undefined"
        )]
        options: JsValue,
    ) -> Promise {
        let work = (|| {
            let cache = self.cache.clone().ok_or_else(|| {
                Error::invalid_argument("prefetch needs a client created with the `cache` option")
            })?;
            let query = Query::new();
            let page_size = optional_integer(&options, "pageSize", 1, 1000, 1000)?;
            let page_query = JsValue::from_str(&format!("limit={page_size}"));
            let mut state = self.list_state(&endpoint, &page_query, &options)?;
            state.refresh = true;
            let progress = property(&options, "onProgress");
            let progress = if progress.is_undefined() {
                None
            } else {
                Some(progress.dyn_into::<Function>().map_err(|other| {
                    Error::invalid_argument(format!(
                        "onProgress must be a function, got {}",
                        describe(&other)
                    ))
                })?)
            };
            Ok(async move {
                let mut ids = Vec::new();
                let mut total = 0;
                while let Some(page) = state.fetch_next().await? {
                    let data = page
                        .body
                        .get("data")
                        .and_then(Value::as_array)
                        .map(Vec::as_slice)
                        .unwrap_or_default();
                    ids.extend(
                        data.iter()
                            .filter_map(|doc| doc.pointer("/meta/id").and_then(Value::as_str))
                            .map(str::to_owned),
                    );
                    total = page
                        .body
                        .pointer("/meta/total")
                        .and_then(Value::as_u64)
                        .unwrap_or(ids.len() as u64);
                    if let Some(progress) = &progress {
                        let report = to_plain(&json!({ "loaded": ids.len(), "total": total }))?;
                        let _ = progress.call1(&JsValue::UNDEFINED, &report);
                    }
                }
                let now = js_sys::Date::now();
                let endpoint = state.endpoint.clone();
                let loaded = ids.len();
                cache
                    .record(|cache| cache.plan_complete(&endpoint, ids, &query, now))
                    .await?;
                to_plain(&json!({ "loaded": loaded, "total": total }))
            })
        })();
        promise(work)
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

/// Where a page iteration stands.
struct PageState {
    transport: Rc<Transport>,
    cache: Option<Rc<OfflineCache>>,
    endpoint: Endpoint,
    query: Query,
    limit: u32,
    /// The offset of the next page; `None` once the last page was read.
    next: Option<u64>,
    /// Always ask the service (and record), whatever the cache policy.
    refresh: bool,
    signal: Option<AbortSignal>,
}

impl PageState {
    /// Fetches the next page (under the cache policy, if there is a
    /// cache), or `None` after the last one.
    async fn fetch_next(&mut self) -> Result<Option<Resolved>> {
        let Some(offset) = self.next else {
            return Ok(None);
        };
        let mut query = self.query.clone();
        query.limit(self.limit)?.offset(offset)?;
        let url = self.transport.config.url(&self.endpoint, Some(&query))?;
        let request = Request {
            transport: self.transport.clone(),
            endpoint: self.endpoint.clone(),
            query,
            url,
            expect: Expect::List,
            signal: self.signal.clone(),
        };
        let page = if self.refresh {
            Resolved::network(request.network(self.cache.as_ref()).await?)
        } else {
            request.resolve(self.cache.clone()).await?
        };
        self.next = next_offset(&page.body, offset, u64::from(self.limit));
        Ok(Some(page))
    }
}

/// An async iterator over the pages of a list (from `client.pages`).
#[wasm_bindgen(js_name = Pages)]
pub struct JsPages {
    state: Rc<RefCell<PageState>>,
}

#[wasm_bindgen(js_class = Pages)]
impl JsPages {
    /// The next page: `{ value: ListResponse, done: false }`, then
    /// `{ value: undefined, done: true }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn next(&self) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            // Work on a copy while awaiting, so no borrow is held across it.
            let mut current = clone_shell(&state.borrow());
            let page = current.fetch_next().await;
            let next = current.next;
            state.borrow_mut().next = next;
            let result = js_sys::Object::new();
            match page.map_err(JsValue::from)? {
                Some(page) => {
                    let _ = js_sys::Reflect::set(&result, &"value".into(), &page.to_js()?);
                    let _ = js_sys::Reflect::set(&result, &"done".into(), &JsValue::FALSE);
                }
                None => {
                    let _ = js_sys::Reflect::set(&result, &"value".into(), &JsValue::UNDEFINED);
                    let _ = js_sys::Reflect::set(&result, &"done".into(), &JsValue::TRUE);
                }
            }
            Ok(result.into())
        })
    }

    /// Ends the iteration (`break` in `for await`).
    #[wasm_bindgen(js_name = return, unchecked_return_type = "Promise<IteratorResult<ListResponse, undefined>>")]
    pub fn finish(&self) -> Promise {
        self.state.borrow_mut().next = None;
        let result = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&result, &"done".into(), &JsValue::TRUE);
        Promise::resolve(&JsValue::from(result))
    }
}

fn clone_shell(state: &PageState) -> PageState {
    PageState {
        transport: state.transport.clone(),
        cache: state.cache.clone(),
        endpoint: state.endpoint.clone(),
        query: state.query.clone(),
        limit: state.limit,
        next: state.next,
        refresh: state.refresh,
        signal: state.signal.clone(),
    }
}

/// One request, ready to be sent or answered from the cache.
struct Request {
    transport: Rc<Transport>,
    endpoint: Endpoint,
    query: Query,
    url: String,
    expect: Expect,
    signal: Option<AbortSignal>,
}

impl Request {
    /// Sends the request, recording a successful response in `cache`.
    async fn network(&self, cache: Option<&Rc<OfflineCache>>) -> Result<Value> {
        let body = get(
            self.transport.clone(),
            self.url.clone(),
            self.expect,
            self.signal.clone(),
        )
        .await?;
        if let Some(cache) = cache {
            let now = js_sys::Date::now();
            // A failed write is reported to onCacheError; the answer stands.
            let _ = cache
                .record(|state| match self.expect {
                    Expect::List => {
                        state.plan_list(&self.url, &self.endpoint, &self.query, &body, now)
                    }
                    _ => state.plan_single(&self.url, &self.endpoint, &self.query, &body, now),
                })
                .await;
        }
        Ok(body)
    }

    async fn cached_answer(&self, cache: &Rc<OfflineCache>) -> Result<Answer> {
        cache
            .answer(|state| match self.expect {
                Expect::List => state.answer_list(&self.url, &self.endpoint, &self.query),
                _ => state.answer_single(&self.url, &self.endpoint, &self.query),
            })
            .await
    }

    /// The body and where it came from, under `cache`'s policy (the
    /// network alone without a cache).
    async fn resolve(self, cache: Option<Rc<OfflineCache>>) -> Result<Resolved> {
        let Some(cache) = cache else {
            return Ok(Resolved::network(self.network(None).await?));
        };
        let from_cache = |answer: Answer, stale: bool| Resolved {
            body: answer.body,
            source: "cache",
            stale,
        };
        // The cache could not answer and the network failed: `not_cached`,
        // naming both reasons.
        let neither = |cache_error: Error, network_error: Error| match cache_error {
            Error::NotCached { message } if is_network_failure(&network_error) => {
                Error::NotCached {
                    message: format!("{message} (the request failed: {network_error})"),
                }
            }
            _ => network_error,
        };
        match cache.policy {
            Policy::CacheOnly => {
                let answer = self.cached_answer(&cache).await?;
                let stale = cache.is_old(&answer);
                Ok(from_cache(answer, stale))
            }
            Policy::CacheFirst => match self.cached_answer(&cache).await {
                Ok(answer) if !cache.is_old(&answer) => Ok(from_cache(answer, false)),
                Ok(old) => match self.network(Some(&cache)).await {
                    Ok(body) => Ok(Resolved::network(body)),
                    Err(error) if is_network_failure(&error) => Ok(from_cache(old, true)),
                    Err(error) => Err(error),
                },
                Err(missing) => match self.network(Some(&cache)).await {
                    Ok(body) => Ok(Resolved::network(body)),
                    Err(error) => Err(neither(missing, error)),
                },
            },
            Policy::StaleWhileRevalidate => match self.cached_answer(&cache).await {
                Ok(answer) => {
                    let stale = cache.is_old(&answer);
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = self.network(Some(&cache)).await;
                    });
                    Ok(from_cache(answer, stale))
                }
                Err(missing) => match self.network(Some(&cache)).await {
                    Ok(body) => Ok(Resolved::network(body)),
                    Err(error) => Err(neither(missing, error)),
                },
            },
            Policy::NetworkFirst => match self.network(Some(&cache)).await {
                Ok(body) => Ok(Resolved::network(body)),
                Err(error) if is_network_failure(&error) => {
                    match self.cached_answer(&cache).await {
                        Ok(answer) => Ok(from_cache(answer, true)),
                        Err(missing) => Err(neither(missing, error)),
                    }
                }
                Err(error) => Err(error),
            },
        }
    }
}

/// A body and where it came from.
struct Resolved {
    body: Value,
    source: &'static str,
    stale: bool,
}

impl Resolved {
    fn network(body: Value) -> Self {
        Resolved {
            body,
            source: "network",
            stale: false,
        }
    }

    /// The body as plain JavaScript, with non-enumerable `source` and `stale`.
    fn to_js(&self) -> Result<JsValue> {
        Ok(mark_source(&to_plain(&self.body)?, self.source, self.stale))
    }
}
