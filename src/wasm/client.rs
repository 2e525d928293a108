//! `Client`: the connection settings and, later, the requests.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::AbortSignal;

use super::cache::{listen_for_reconnect, online, JsClientCache, OfflineCache};
use super::convert::{describe, integer, optional_string, property, string};
use super::fetch::{get, sleep_promise, Transport};
use crate::cache::policy::{Machine, Step};
use crate::cache::refresh::{delta_query, fetch_queries, sweep_query, variant, PAGE};
use crate::cache::{sweep_entries, Answer, Change, Kind};
use crate::engine::list::{frame, Shape};
use crate::error::{Error, Result};
use crate::http::response::{check, next_offset, Expect, Facts};
use crate::http::retry::RetryPolicy;
use crate::http::ClientConfig;
use crate::query::url::Endpoint;
use crate::query::Query;

#[wasm_bindgen(module = "/src/js/storage.js")]
extern "C" {
    #[wasm_bindgen(js_name = markSource)]
    fn mark_source(text: &str, source: &str, stale: bool, cached_at: JsValue) -> JsValue;
}

/// Decodes a query argument: a `Query`, a query string, or nothing.
///
/// A `Query` cannot be borrowed across the boundary without being moved, so it
/// is read through its canonical string, which parses back to an equal query.
pub(crate) fn query_arg(value: &JsValue) -> Result<Option<Query>> {
    query_text(value)?
        .map(|text| Query::parse(&text))
        .transpose()
}

/// The query string of a query argument (a `Query` or a query string), or
/// `None` for nothing.
pub(crate) fn query_text(value: &JsValue) -> Result<Option<String>> {
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

/// Decodes an endpoint argument: a raw string or a typed object.
pub(crate) fn endpoint(value: &JsValue) -> Result<Endpoint> {
    type Make = fn(String) -> Endpoint;
    if let Some(text) = value.as_string() {
        return Endpoint::raw(&text);
    }
    if value.is_undefined() {
        return Ok(Endpoint::Repository);
    }
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
/// The default ceiling of `prefetch` (200,000 documents in pages of 1000).
const DEFAULT_PREFETCH_PAGES: u64 = 200;

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

/// The most pages a refresh reads of each kind (a bound on a service that
/// never ends a list).
const MAX_REFRESH_PAGES: u64 = 1000;

/// Refreshes the complete list `endpoint` of `query`'s variant (see
/// `Client.refresh`): `{ changed, deleted, total }`.
async fn refresh_list(
    transport: Rc<Transport>,
    cache: Rc<OfflineCache>,
    endpoint: Endpoint,
    query: Query,
    signal: Option<AbortSignal>,
    progress: Option<Function>,
) -> Result<JsValue> {
    let since = cache
        .with_state(|state| state.refresh_since(&endpoint, &query))
        .await?;
    let fetch = |page: Query| {
        let (transport, signal) = (transport.clone(), signal.clone());
        let url = transport.config.url(&endpoint, Some(&page));
        async move {
            let body = get(transport.clone(), url?, signal, true).await?;
            let facts = check(&body, Expect::List, transport.config.secret())?;
            Ok::<_, Error>((body, facts))
        }
    };
    let report = |loaded: usize, total: u64| {
        if let Some(progress) = &progress {
            let value = counts(&[("loaded", loaded as f64), ("total", total as f64)]);
            let _ = progress.call1(&JsValue::UNDEFINED, &value);
        }
    };
    // 1. What changed since the newest cached document.
    let mut changes = Change::default();
    let (mut offset, mut pages) = (0u64, 0u64);
    loop {
        let page = delta_query(&query, since.as_deref(), offset)?;
        let (body, facts) = fetch(page.clone()).await?;
        let now = js_sys::Date::now();
        let change = cache
            .with_state(|state| {
                state.plan_response(None, &endpoint, &page, Kind::List, Rc::new(body), now)
            })
            .await?;
        changes.absorb(change);
        pages += 1;
        match next_offset(facts, offset, u64::from(PAGE)) {
            Some(next) if pages < MAX_REFRESH_PAGES => offset = next,
            _ => break,
        }
    }
    // 2. Every id and revision of the list.
    let mut swept = Vec::new();
    let (mut offset, mut pages) = (0u64, 0u64);
    loop {
        let (body, facts) = fetch(sweep_query(&query, offset)?).await?;
        swept.extend(sweep_entries(&body));
        report(swept.len(), facts.total.unwrap_or(swept.len() as u64));
        pages += 1;
        match next_offset(facts, offset, u64::from(PAGE)) {
            Some(next) if pages < MAX_REFRESH_PAGES => offset = next,
            Some(_) => {
                return Err(Error::invalid_argument(format!(
                "the list has more than {MAX_REFRESH_PAGES} pages of {PAGE}: it was not refreshed"
            )))
            }
            None => break,
        }
    }
    // 3. Changes whose updatedAt did not move, by id.
    let missing = cache
        .with_state(|state| state.refresh_missing(&query, &changes, &swept))
        .await;
    for page in fetch_queries(&query, &missing)? {
        let (body, _) = fetch(page.clone()).await?;
        let now = js_sys::Date::now();
        let change = cache
            .with_state(|state| {
                state.plan_response(None, &endpoint, &page, Kind::List, Rc::new(body), now)
            })
            .await?;
        changes.absorb(change);
    }
    // 4. All of it in one write.
    let now = js_sys::Date::now();
    let (changed, deleted, total) = cache
        .record(|state| state.plan_refresh(&endpoint, &query, changes, &swept, now))
        .await?;
    Ok(counts(&[
        ("changed", changed as f64),
        ("deleted", deleted as f64),
        ("total", total as f64),
    ]))
}

/// Refreshes every complete list of `cache`, reporting failures.
fn reconnect_callback(transport: Rc<Transport>, cache: Rc<OfflineCache>) -> Closure<dyn FnMut()> {
    Closure::<dyn FnMut()>::new(move || {
        let (transport, cache) = (transport.clone(), cache.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let lists = cache.with_state(|state| state.complete_lists()).await;
            for (variant_key, endpoint_key) in lists {
                let endpoint = Endpoint::raw(&crate::query::encode::form_decode(&endpoint_key));
                let query = Query::parse(&variant_key);
                if let (Ok(endpoint), Ok(query)) = (endpoint, query) {
                    let result = refresh_list(
                        transport.clone(),
                        cache.clone(),
                        endpoint,
                        query,
                        None,
                        None,
                    )
                    .await;
                    if let Err(error) = result {
                        cache.report(error);
                    }
                }
            }
        });
    })
}

/// A plain object of numbers.
fn counts(entries: &[(&str, f64)]) -> JsValue {
    let object = js_sys::Object::new();
    for (key, value) in entries {
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_f64(*value));
    }
    object.into()
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

fn optional_integer<T>(options: &JsValue, key: &str, min: T, max: T, default: T) -> Result<T>
where
    T: Copy + std::fmt::Display + Into<u64> + TryFrom<u64>,
{
    let value = property(options, key);
    if value.is_undefined() {
        return Ok(default);
    }
    integer(&value, key, min, max)
}

fn optional_function(options: &JsValue, key: &str) -> Result<Option<Function>> {
    let value = property(options, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.dyn_into::<Function>().map(Some).map_err(|other| {
        Error::invalid_argument(format!(
            "{key} must be a function, got {}",
            describe(&other)
        ))
    })
}

/// Whether an endpoint can answer with a list.
fn check_list(endpoint: &Endpoint) -> Result<()> {
    // The endpoint as `{:?}` writes it (`Document("id")`), without linking
    // the derived Debug of every variant (3 KB, for `Raw`'s list).
    let (name, id) = match endpoint {
        Endpoint::Documents | Endpoint::Collection(_) | Endpoint::Raw(_) => return Ok(()),
        Endpoint::Repository => ("Repository", None),
        Endpoint::Document(id) => ("Document", Some(id)),
        Endpoint::Alias(id) => ("Alias", Some(id)),
        Endpoint::Asset(id) => ("Asset", Some(id)),
    };
    let got = match id {
        Some(id) => format!("{name}({id:?})"),
        None => name.to_owned(),
    };
    Err(Error::invalid_argument(format!(
        "pages, all and prefetch need a list endpoint (documents or a collection), got {got}"
    )))
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
                recorded: Rc::default(),
            };
            Ok(async move { Ok(request.resolve(cache).await?.to_js()) })
        })())
    }

    fn list_state(
        &self,
        endpoint: &JsValue,
        query: Query,
        options: &JsValue,
        limit: u32,
    ) -> Result<PageState> {
        let endpoint = self::endpoint(endpoint)?;
        check_list(&endpoint)?;
        let signal = signal_option(options)?;
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

    fn page_state(
        &self,
        endpoint: &JsValue,
        query: &JsValue,
        options: &JsValue,
    ) -> Result<PageState> {
        let query = query_arg(query)?.unwrap_or_default();
        let limit = query.get_limit().unwrap_or(DEFAULT_PAGE_LIMIT);
        self.list_state(endpoint, query, options, limit)
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
            retries: optional_integer(&options, "retries", 0, 100, defaults.retries)?,
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
        let fetch = optional_function(&options, "fetch")?;
        let on_error = optional_function(&options, "onCacheError")?;
        let name = format!(
            "content-repo:{}/v1/{}",
            config.base_url(),
            config.repository()
        );
        let cache =
            OfflineCache::from_options(&property(&options, "cache"), &name, on_error, timeout_ms)?
                .map(Rc::new);
        let transport = Rc::new(Transport::new(config, policy, timeout_ms, fetch));
        let reconnect = match &cache {
            Some(cache) if cache.refresh_on_reconnect => {
                let callback = reconnect_callback(transport.clone(), cache.clone());
                let stop = listen_for_reconnect(callback.as_ref());
                Some((callback, stop))
            }
            _ => None,
        };
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
        let state = self.page_state(&endpoint, &query, &options)?;
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
            let mut state = self.page_state(&endpoint, &query, &options)?;
            let max_pages =
                optional_integer(&options, "maxPages", 1, 1_000_000, DEFAULT_MAX_PAGES)?;
            Ok(async move {
                let start = state.next.unwrap_or(0);
                let mut data: Vec<u8> = b"{\"data\":[".to_vec();
                let (mut pages, mut count) = (0u64, 0usize);
                // From the cache if any page was, stale if any page was.
                let (mut source, mut stale, mut cached_at) = ("network", false, None);
                while let Some(page) = state.fetch_next().await? {
                    pages += 1;
                    if page.source == "cache" {
                        source = "cache";
                        cached_at = page.cached_at;
                    }
                    stale |= page.stale;
                    if let Ok(Shape::Envelope { documents, .. }) = frame(&page.body) {
                        for range in documents {
                            if count > 0 {
                                data.push(b',');
                            }
                            data.extend_from_slice(
                                page.body.get(range).unwrap_or("null").as_bytes(),
                            );
                            count += 1;
                        }
                    }
                    if state.next.is_some() && pages >= max_pages {
                        return Err(Error::invalid_argument(format!(
                            "the list has more than maxPages ({max_pages}) pages of {}; raise maxPages or narrow the query",
                            state.limit
                        )));
                    }
                }
                data.extend_from_slice(
                    format!(
                        r#"],"meta":{{"count":{count},"limit":{count},"offset":{start},"total":{}}}}}"#,
                        start.saturating_add(count as u64)
                    )
                    .as_bytes(),
                );
                let body = String::from_utf8(data)
                    .map_err(|_| Error::invalid_argument("the list is not UTF-8"))?;
                Ok(Resolved {
                    body: Rc::new(body),
                    facts: Facts::default(),
                    ids: None,
                    source,
                    stale,
                    cached_at,
                }
                .to_js())
            })
        })();
        promise(work)
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
        let work = (|| {
            let cache = self.cache.clone().ok_or_else(|| {
                Error::invalid_argument("prefetch needs a client created with the `cache` option")
            })?;
            let query = variant(&query_arg(&property(&options, "query"))?.unwrap_or_default())?;
            let page_size: u32 = optional_integer(&options, "pageSize", 1, 1000, 1000)?;
            let max_pages =
                optional_integer(&options, "maxPages", 1, 1_000_000, DEFAULT_PREFETCH_PAGES)?;
            let mut state = self.list_state(&endpoint, query.clone(), &options, page_size)?;
            state.refresh = true;
            let progress = optional_function(&options, "onProgress")?;
            Ok(async move {
                let mut ids: Vec<Vec<u8>> = Vec::new();
                let (mut total, mut pages) = (0u64, 0u64);
                while let Some(mut page) = state.fetch_next().await? {
                    pages += 1;
                    match page.ids.take() {
                        Some(recorded) => ids.extend(recorded),
                        None => ids.extend(crate::cache::page_ids(&page.body)),
                    }
                    total = page.facts.total.unwrap_or(ids.len() as u64);
                    if let Some(progress) = &progress {
                        let report = js_sys::Object::new();
                        let _ = js_sys::Reflect::set(
                            &report,
                            &"loaded".into(),
                            &(ids.len() as f64).into(),
                        );
                        let _ =
                            js_sys::Reflect::set(&report, &"total".into(), &(total as f64).into());
                        let _ = progress.call1(&JsValue::UNDEFINED, &report);
                    }
                    if state.next.is_some() && pages >= max_pages {
                        return Err(Error::invalid_argument(format!(
                            "the list has more than maxPages ({max_pages}) pages of {}; raise maxPages to prefetch all of it",
                            state.limit
                        )));
                    }
                }
                let now = js_sys::Date::now();
                let endpoint = state.endpoint.clone();
                let loaded = ids.len();
                cache
                    .record(|cache| Ok((cache.plan_complete(&endpoint, &query, ids, now), ())))
                    .await?;
                let report = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&report, &"loaded".into(), &(loaded as f64).into());
                let _ = js_sys::Reflect::set(&report, &"total".into(), &(total as f64).into());
                Ok(report.into())
            })
        })();
        promise(work)
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
        let work = (|| {
            let cache = self.cache.clone().ok_or_else(|| {
                Error::invalid_argument("refresh needs a client created with the `cache` option")
            })?;
            let endpoint = self::endpoint(&endpoint)?;
            check_list(&endpoint)?;
            let query = variant(&query_arg(&property(&options, "query"))?.unwrap_or_default())?;
            let signal = signal_option(&options)?;
            let progress = optional_function(&options, "onProgress")?;
            Ok(refresh_list(
                self.transport.clone(),
                cache,
                endpoint,
                query,
                signal,
                progress,
            ))
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
#[derive(Clone)]
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
            recorded: Rc::default(),
        };
        let page = if self.refresh {
            let (body, facts) = request.network(self.cache.as_ref(), true).await?;
            let mut page = Resolved::network(body, facts);
            page.ids = request.recorded.borrow_mut().take();
            page
        } else {
            let mut page = request.resolve(self.cache.clone()).await?;
            if page.source == "cache" {
                // Only paging needs a cached page's count and total.
                page.facts = check(&page.body, Expect::List, "").unwrap_or_default();
            }
            page
        };
        self.next = next_offset(page.facts, offset, u64::from(self.limit));
        Ok(Some(page))
    }
}

/// An async iterator over the pages of a list (from `client.pages`).
#[wasm_bindgen(js_name = Pages, skip_typescript)]
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
            let mut current = state.borrow().clone();
            let page = current.fetch_next().await;
            let next = current.next;
            state.borrow_mut().next = next;
            let result = js_sys::Object::new();
            match page.map_err(JsValue::from)? {
                Some(page) => {
                    let _ = js_sys::Reflect::set(&result, &"value".into(), &page.to_js());
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

/// One request, ready to be sent or answered from the cache.
#[derive(Clone)]
struct Request {
    transport: Rc<Transport>,
    endpoint: Endpoint,
    query: Query,
    url: String,
    expect: Expect,
    signal: Option<AbortSignal>,
    /// The ids of the documents the cache recorded from the response.
    recorded: Rc<RefCell<Option<Vec<Vec<u8>>>>>,
}

impl Request {
    fn kind(&self) -> Kind {
        match self.expect {
            Expect::List => Kind::List,
            Expect::Document => Kind::Document,
            Expect::Any => Kind::Other,
        }
    }

    /// Sends the request and checks the body, recording a successful
    /// response in `cache` (a failed write is reported; the answer stands).
    async fn network(
        &self,
        cache: Option<&Rc<OfflineCache>>,
        retry_network: bool,
    ) -> Result<(Rc<String>, Facts)> {
        let body = get(
            self.transport.clone(),
            self.url.clone(),
            self.signal.clone(),
            retry_network,
        )
        .await?;
        let facts = check(&body, self.expect, self.transport.config.secret())?;
        let body = Rc::new(body);
        if let Some(cache) = cache {
            let now = js_sys::Date::now();
            let text = body.clone();
            let recorded = cache
                .record(|state| {
                    let change = state.plan_response(
                        Some(&self.url),
                        &self.endpoint,
                        &self.query,
                        self.kind(),
                        text,
                        now,
                    )?;
                    let ids = change.ids();
                    Ok((change, ids))
                })
                .await;
            // The ids the cache read (prefetch collects them without reading
            // the page again); a stale page recorded nothing.
            if let Ok(ids) = recorded {
                if !ids.is_empty() || facts.count == 0 {
                    *self.recorded.borrow_mut() = Some(ids);
                }
            }
        }
        Ok((body, facts))
    }

    async fn lookup(
        &self,
        cache: &Rc<OfflineCache>,
    ) -> (crate::cache::policy::Cached, Option<Answer>) {
        cache
            .lookup(&self.endpoint, |state| match self.expect {
                Expect::List => state.answer_list(&self.url, &self.endpoint, &self.query),
                _ => state.answer_single(&self.url, &self.endpoint, &self.query),
            })
            .await
    }

    /// The body and where it came from, under `cache`'s policy (the
    /// network alone without a cache).
    async fn resolve(self, cache: Option<Rc<OfflineCache>>) -> Result<Resolved> {
        let Some(cache) = cache else {
            let (body, facts) = self.network(None, true).await?;
            return Ok(Resolved::network(body, facts));
        };
        let (cached, answer) = self.lookup(&cache).await;
        let machine = Machine::new(cache.settings, cached, online());
        let from_cache = |answer: Option<Answer>, stale: bool| -> Result<Resolved> {
            let answer = answer.ok_or_else(|| Error::NotCached {
                message: "the cached answer went away".into(),
            })?;
            Ok(Resolved::cached(answer, stale))
        };
        match machine.first() {
            Step::Cache { stale, revalidate } => {
                if revalidate {
                    let request = self.clone();
                    let cache = cache.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = request.network(Some(&cache), true).await;
                    });
                }
                from_cache(answer, stale)
            }
            Step::Network {
                retry_network_errors,
                cache_after_ms,
            } => {
                let outcome = match cache_after_ms {
                    None => Some(self.network(Some(&cache), retry_network_errors).await),
                    Some(ms) => {
                        self.network_or_timer(&cache, retry_network_errors, ms)
                            .await
                    }
                };
                let step = match &outcome {
                    None => machine.after_network(Ok(()), true),
                    Some(Ok(_)) => machine.after_network(Ok(()), false),
                    Some(Err(error)) => machine.after_network(Err(error), false),
                };
                match (step, outcome) {
                    (Step::Answer, Some(Ok((body, facts)))) => Ok(Resolved::network(body, facts)),
                    (Step::Cache { stale, .. }, _) => from_cache(answer, stale),
                    (Step::Fail(error), _) => Err(error),
                    (_, Some(Err(error))) => Err(error),
                    _ => Err(Error::Network {
                        message: "the request ended without an answer".into(),
                    }),
                }
            }
            Step::Answer => Err(Error::Network {
                message: "no request was made".into(),
            }),
            Step::Fail(error) => Err(error),
        }
    }

    /// The network's outcome, or `None` when `ms` passed first (the request
    /// goes on in the background and records its answer).
    async fn network_or_timer(
        &self,
        cache: &Rc<OfflineCache>,
        retry_network: bool,
        ms: u64,
    ) -> Option<Result<(Rc<String>, Facts)>> {
        type Slot = Rc<RefCell<Option<Result<(Rc<String>, Facts)>>>>;
        let slot: Slot = Rc::default();
        let (request, cache, filled) = (self.clone(), cache.clone(), slot.clone());
        let network = future_to_promise(async move {
            let outcome = request.network(Some(&cache), retry_network).await;
            *filled.borrow_mut() = Some(outcome);
            Ok(JsValue::UNDEFINED)
        });
        let race = Promise::race(&js_sys::Array::of2(&network, &sleep_promise(ms)));
        let _ = JsFuture::from(race).await;
        let outcome = slot.borrow_mut().take();
        outcome
    }
}

/// A body and where it came from.
struct Resolved {
    body: Rc<String>,
    facts: Facts,
    /// The ids the cache recorded from it (prefetch).
    ids: Option<Vec<Vec<u8>>>,
    source: &'static str,
    stale: bool,
    /// When a cached answer was received (Unix ms).
    cached_at: Option<f64>,
}

impl Resolved {
    fn network(body: Rc<String>, facts: Facts) -> Self {
        Resolved {
            body,
            facts,
            ids: None,
            source: "network",
            stale: false,
            cached_at: None,
        }
    }

    fn cached(answer: Answer, stale: bool) -> Self {
        // Paging reads a list's count and total (PageState::fetch_next);
        // a single answer needs none.
        Resolved {
            body: Rc::new(answer.body),
            facts: Facts::default(),
            ids: None,
            source: "cache",
            stale,
            cached_at: Some(answer.fetched_at),
        }
    }

    /// The body as plain JavaScript (read by `JSON.parse`, so every value is
    /// what `JSON.parse` gives), with non-enumerable `source`, `stale` and
    /// `cachedAt`.
    fn to_js(&self) -> JsValue {
        let cached_at = self.cached_at.map_or(JsValue::UNDEFINED, JsValue::from_f64);
        mark_source(&self.body, self.source, self.stale, cached_at)
    }
}
