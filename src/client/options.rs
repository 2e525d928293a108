//! The arguments of `Client` and its methods, read from [`Arg`]s: which
//! option is valid, its default, and the error (in the order the checks
//! run) when it is not. The boundary converts values and takes out the
//! functions and signals these say are there.
//!
//! ```
//! use content_repo::args::Arg;
//! use content_repo::client::options::ClientOptions;
//!
//! let options = |path: &[&str]| match path {
//!     [] => Arg::Object,
//!     ["baseUrl"] => Arg::Text("https://cms.example.com".into()),
//!     ["repository"] => Arg::Text("demo".into()),
//!     ["apiKey"] => Arg::Text("key".into()),
//!     ["cache"] => Arg::Bool(true),
//!     _ => Arg::Undefined,
//! };
//! let read = ClientOptions::read(&options, false)?;
//! assert_eq!(read.timeout_ms, 30_000);
//! assert_eq!(read.storage_name(), "content-repo:https://cms.example.com/v1/demo");
//! assert!(read.cache.is_some());
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::rc::Rc;

use crate::args::{
    describe, optional_function, optional_integer, optional_ms, optional_object, optional_string,
    segment, string, Arg, Props,
};
use crate::cache::policy::{Policy, Settings};
use crate::cache::refresh::variant;
use crate::client::request::Request;
use crate::error::{Error, Result};
use crate::http::response::Expect;
use crate::http::retry::RetryPolicy;
use crate::http::ClientConfig;
use crate::json::record::quoted;
use crate::num::u64_from_f64;
use crate::query::url::Endpoint;
use crate::query::Query;

/// The default page size of `pages` and `all` when the query sets no limit.
pub const DEFAULT_PAGE_LIMIT: u32 = 100;
/// The default ceiling of `all`.
pub const DEFAULT_MAX_PAGES: u64 = 100;
/// The default ceiling of `prefetch` (200,000 documents in pages of 1000).
pub const DEFAULT_PREFETCH_PAGES: u64 = 200;

/// The options of `new Client(options)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientOptions {
    /// The validated connection settings.
    pub config: ClientConfig,
    /// `retries`, `retryDelayMs`, `maxRetryDelayMs`.
    pub retry: RetryPolicy,
    /// `timeoutMs`: the budget of one call (0: none).
    pub timeout_ms: u64,
    /// Whether `fetch` is given (a function).
    pub fetch: bool,
    /// Whether `onCacheError` is given (a function).
    pub on_cache_error: bool,
    /// The `cache` option, unless absent or `false`.
    pub cache: Option<CacheOptions>,
}

/// Where the offline cache keeps its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// IndexedDB (the default where there is one).
    IndexedDb,
    /// Memory (the default elsewhere).
    Memory,
    /// The caller's object with `load()`, `write()` and `clear()`.
    Custom,
}

impl Storage {
    /// The kind `makeStorage` makes (`None`: the caller's object).
    pub fn kind(self) -> Option<&'static str> {
        match self {
            Storage::IndexedDb => Some("indexeddb"),
            Storage::Memory => Some("memory"),
            Storage::Custom => None,
        }
    }
}

/// The `cache` option: `true` or `{ storage, policy, maxAgeMs,
/// networkTimeoutMs, maxBytes, refreshOnReconnect }`.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheOptions {
    /// `policy` and `networkTimeoutMs`.
    pub settings: Settings,
    /// `storage`.
    pub storage: Storage,
    /// `maxAgeMs`.
    pub max_age_ms: Option<f64>,
    /// `maxBytes`.
    pub max_bytes: Option<usize>,
    /// `refreshOnReconnect`.
    pub refresh_on_reconnect: bool,
    /// The bound of one storage call: the client's `timeoutMs` (0: none).
    pub timeout_ms: u64,
}

impl ClientOptions {
    /// Reads the options of a client; `has_indexed_db` says whether the
    /// environment has IndexedDB.
    pub fn read(get: Props<'_>, has_indexed_db: bool) -> Result<ClientOptions> {
        let options = get(&[]);
        if !options.is_object() {
            return Err(Error::invalid_argument(format!(
                "Client options must be an object {{ baseUrl, repository, apiKey }}, got {}",
                describe(&options)
            )));
        }
        let base_url = get(&["baseUrl"]);
        if let Arg::Unpaired(_) = base_url {
            return Err(Error::invalid_argument(
                "invalid baseUrl: it holds a lone surrogate (not well-formed Unicode)",
            ));
        }
        let base_url = string(&base_url, "baseUrl")?;
        let repository = segment(&get(&["repository"]), "repository")?;
        // Never describe the key's value in a message.
        let api_key = get(&["apiKey"]);
        let api_key = api_key
            .as_text()
            .ok_or_else(|| Error::invalid_argument("apiKey must be a string"))?;
        let auth_scheme = optional_string(&get(&["authScheme"]), "authScheme")?;
        let config = ClientConfig::new(&base_url, &repository, api_key, auth_scheme.as_deref())?;
        let defaults = RetryPolicy::default();
        let ms =
            |key: &str, default: u64| optional_integer(&get(&[key]), key, 0, 3_600_000, default);
        let retry = RetryPolicy {
            retries: optional_integer(&get(&["retries"]), "retries", 0, 100, defaults.retries)?,
            base_delay_ms: ms("retryDelayMs", defaults.base_delay_ms)?,
            max_delay_ms: ms("maxRetryDelayMs", defaults.max_delay_ms)?,
        };
        let timeout = get(&["timeoutMs"]);
        let timeout_ms = optional_integer(&timeout, "timeoutMs", 0, 2_147_483_647, 30_000)?;
        let fetch = optional_function(&get(&["fetch"]), "fetch")?;
        let on_cache_error = optional_function(&get(&["onCacheError"]), "onCacheError")?;
        let cache = CacheOptions::read(&|path| get(&[&["cache"], path].concat()), has_indexed_db)?;
        Ok(ClientOptions {
            config,
            retry,
            timeout_ms,
            fetch,
            on_cache_error,
            cache: cache.map(|cache| CacheOptions {
                timeout_ms,
                ..cache
            }),
        })
    }

    /// The name of the client's IndexedDB database.
    pub fn storage_name(&self) -> String {
        format!(
            "content-repo:{}/v1/{}",
            self.config.base_url(),
            self.config.repository()
        )
    }
}

impl CacheOptions {
    /// Reads the `cache` option (`get(&[])` is the option itself): `None`
    /// when absent, `null` or `false`. Its `timeout_ms` is 0 (no bound):
    /// [`ClientOptions::read`] sets the client's.
    pub fn read(get: Props<'_>, has_indexed_db: bool) -> Result<Option<CacheOptions>> {
        let option = get(&[]);
        if option.is_absent() || option == Arg::Bool(false) {
            return Ok(None);
        }
        if option != Arg::Bool(true) && !option.is_object() {
            return Err(Error::invalid_argument(format!(
                "cache must be true or {{ storage?, policy?, maxAgeMs?, networkTimeoutMs?, maxBytes? }}, got {}",
                describe(&option)
            )));
        }
        let policy = match get(&["policy"]) {
            Arg::Undefined => Policy::NetworkFirst,
            other => other.as_text().and_then(Policy::parse).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "invalid cache policy {}: expected \"network-first\", \"cache-first\", \"stale-while-revalidate\" or \"cache-only\"",
                    describe(&other)
                ))
            })?,
        };
        let storage = match get(&["storage"]) {
            Arg::Undefined if has_indexed_db => Some(Storage::IndexedDb),
            Arg::Undefined => Some(Storage::Memory),
            Arg::Text(kind) if kind == "indexeddb" && !has_indexed_db => {
                return Err(Error::invalid_argument(
                    "cache storage \"indexeddb\" needs IndexedDB, which this environment lacks",
                ))
            }
            Arg::Text(kind) if kind == "indexeddb" => Some(Storage::IndexedDb),
            Arg::Text(kind) if kind == "memory" => Some(Storage::Memory),
            Arg::Text(_) => None,
            _ => ["load", "write", "clear"]
                .iter()
                .all(|method| get(&["storage", method]) == Arg::Function)
                .then_some(Storage::Custom),
        };
        let storage = storage.ok_or_else(|| {
            Error::invalid_argument(format!(
                "invalid cache storage {}: expected \"indexeddb\", \"memory\" or an object with load(), write() and clear()",
                describe(&get(&["storage"]))
            ))
        })?;
        let ms = |key: &str| optional_ms(&get(&[key]), &format!("cache.{key}"));
        let settings = Settings {
            policy,
            network_timeout_ms: ms("networkTimeoutMs")?.map(u64_from_f64),
        };
        Ok(Some(CacheOptions {
            settings,
            storage,
            max_bytes: ms("maxBytes")?
                .map(|bytes| usize::try_from(u64_from_f64(bytes)).unwrap_or(usize::MAX)),
            max_age_ms: ms("maxAgeMs")?,
            refresh_on_reconnect: get(&["refreshOnReconnect"]).flag("cache.refreshOnReconnect")?,
            timeout_ms: 0,
        }))
    }
}

/// Reads an endpoint argument: a raw string, `undefined` (the repository
/// info), or a typed object `{ document | collection | alias | asset: id }`,
/// `{ documents: true }`, `{ repository: true }`.
pub fn endpoint(get: Props<'_>) -> Result<Endpoint> {
    type Make = fn(String) -> Endpoint;
    match get(&[]) {
        arg @ (Arg::Text(_) | Arg::Unpaired(_)) => {
            return Endpoint::raw(&segment(&arg, "the endpoint")?)
        }
        Arg::Undefined => return Ok(Endpoint::Repository),
        _ => {}
    }
    let typed: [(&str, Make); 4] = [
        ("document", Endpoint::Document),
        ("collection", Endpoint::Collection),
        ("alias", Endpoint::Alias),
        ("asset", Endpoint::Asset),
    ];
    for (key, make) in typed {
        let id = get(&[key]);
        if id != Arg::Undefined {
            let endpoint = make(segment(&id, &format!("endpoint.{key}"))?);
            endpoint.check()?;
            return Ok(endpoint);
        }
    }
    if get(&["documents"]).flag("endpoint.documents")? {
        return Ok(Endpoint::Documents);
    }
    if get(&["repository"]).flag("endpoint.repository")? {
        return Ok(Endpoint::Repository);
    }
    Err(Error::invalid_argument(format!(
        "invalid endpoint ({}): expected a path such as \"documents\" or \"collections/posts\", {{ documents: true }}, {{ repository: true }}, or {{ document | collection | alias | asset: id }}",
        describe(&get(&[]))
    )))
}

/// Reads the endpoint of `client.cache.invalidate(endpoint)`: `None`
/// (every endpoint) when `undefined` or `null`.
pub fn invalidated(get: Props<'_>) -> Result<Option<Endpoint>> {
    match get(&[]).is_absent() {
        true => Ok(None),
        false => endpoint(get).map(Some),
    }
}

/// Reads a query argument: a `Query` (as its canonical string), a query
/// string, or nothing (`undefined`, `null`).
pub fn query(value: &Arg) -> Result<Option<Query>> {
    query_text(value)?
        .map(|text| Query::parse(&text))
        .transpose()
}

/// The query string of a query argument, unparsed.
pub fn query_text(value: &Arg) -> Result<Option<String>> {
    match value {
        Arg::Text(text) | Arg::Unpaired(text) => Ok(Some(text.clone())),
        _ if value.is_absent() => Ok(None),
        _ => Err(Error::invalid_argument(format!(
            "query must be a Query or a query string, got {}",
            describe(value)
        ))),
    }
}

/// Whether request options (`undefined` or `{ signal? }`) hold a signal.
pub fn signal(get: Props<'_>) -> Result<bool> {
    optional_object(&get(&[]), "request options must be an object { signal? }")?;
    match get(&["signal"]) {
        Arg::Signal => Ok(true),
        Arg::Undefined | Arg::Null => Ok(false),
        other => Err(Error::invalid_argument(format!(
            "options.signal must be an AbortSignal, got {}",
            describe(&other)
        ))),
    }
}

/// The last query argument read and its parse: repeated queries (a
/// `DocumentStore` asked the same query again) skip parsing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastQuery(Option<(String, Query)>);

impl LastQuery {
    /// The query of a query argument (see [`query`]), parsed unless it is
    /// the last one read.
    pub fn read(&mut self, value: &Arg) -> Result<&Query> {
        let text = query_text(value)?.unwrap_or_default();
        let parsed = match self.0.take() {
            Some((last, parsed)) if last == text => parsed,
            _ => Query::parse(&text)?,
        };
        Ok(&self.0.insert((text, parsed)).1)
    }
}

/// Reads the options of `DocumentStore.query`: `undefined` or
/// `{ contentType? }`.
pub fn content_type(options: Props<'_>) -> Result<Option<String>> {
    optional_object(
        &options(&[]),
        "query options must be an object { contentType? }",
    )?;
    optional_string(&options(&["contentType"]), "contentType")
}

/// Which typed method of `Client` fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `documents(query)`.
    Documents,
    /// `collection(apiId, query)`.
    Collection,
    /// `document(id, query)`.
    Document,
    /// `alias(apiId, query)`.
    Alias,
    /// `asset(id, query)`.
    Asset,
    /// `repository()`.
    Repository,
    /// `get(endpoint, query)`.
    Any,
}

/// Reads the arguments of a typed method into its request (of `config`'s
/// repository): `id` is its first argument (an id, an api id or an
/// endpoint; unused by `documents` and `repository`).
pub fn request(
    target: Target,
    id: Props<'_>,
    query: &Arg,
    options: Props<'_>,
    config: &ClientConfig,
) -> Result<Request> {
    let request = LastRequest::default().read(target, id, query, options, config)?;
    Ok(Rc::unwrap_or_clone(request))
}

/// The last request a client read and its query string: the same method
/// with the same endpoint and query again (a view asking its page again)
/// skips parsing the query and writing the URL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastRequest(Option<(String, Rc<Request>)>);

impl LastRequest {
    /// [`request`], reusing the last request read when only the options
    /// differ (they are checked every time, in the same order).
    pub fn read(
        &mut self,
        target: Target,
        id: Props<'_>,
        query: &Arg,
        options: Props<'_>,
        config: &ClientConfig,
    ) -> Result<Rc<Request>> {
        let named = |what: &str, make: fn(String) -> Endpoint| segment(&id(&[]), what).map(make);
        let endpoint = match target {
            Target::Documents => Ok(Endpoint::Documents),
            Target::Collection => named("the collection api id", Endpoint::Collection),
            Target::Document => named("the document id", Endpoint::Document),
            Target::Alias => named("the alias api id", Endpoint::Alias),
            Target::Asset => named("the asset id", Endpoint::Asset),
            Target::Repository => Ok(Endpoint::Repository),
            Target::Any => endpoint(id),
        };
        let (endpoint, text) = (endpoint?, query_text(query)?.unwrap_or_default());
        let expect = expect_of(&endpoint);
        let same = |(last, request): &(String, Rc<Request>)| {
            *last == text && request.endpoint == endpoint && request.expect == expect
        };
        match self.0.as_ref().filter(|last| same(last)) {
            Some((_, request)) => {
                signal(options)?;
                Ok(request.clone())
            }
            None => {
                let query = Query::parse(&text)?;
                signal(options)?;
                let request = Rc::new(Request::new(config, endpoint, query, expect)?);
                self.0 = Some((text, request.clone()));
                Ok(request)
            }
        }
    }
}

/// What `endpoint` answers with: a list, one document, or any JSON (a raw
/// endpoint, the repository info), whichever method asked for it: `get` of
/// a typed endpoint's path is that endpoint's request, checked, answered
/// and cached as the typed method's.
fn expect_of(endpoint: &Endpoint) -> Expect {
    match endpoint {
        Endpoint::Documents | Endpoint::Collection(_) => Expect::List,
        Endpoint::Document(_) | Endpoint::Alias(_) | Endpoint::Asset(_) => Expect::Document,
        Endpoint::Repository | Endpoint::Raw(_) => Expect::Any,
    }
}

/// Which list method of `Client` pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListCall {
    /// `pages(endpoint, query, options)`: an async iterator.
    Pages,
    /// `all(endpoint, query, options)`: every page in one list.
    All,
    /// `prefetch(endpoint, options)`: every page into the cache.
    Prefetch,
    /// `refresh(endpoint, options)`: a prefetched list brought up to date.
    Refresh,
}

/// The arguments of a list method, read.
#[derive(Debug, Clone, PartialEq)]
pub struct ListArgs {
    /// The list endpoint.
    pub endpoint: Endpoint,
    /// The query (for `prefetch` and `refresh`, its variant only).
    pub query: Query,
    /// The page size.
    pub limit: u32,
    /// The most pages (`maxPages`; unbounded for `pages`).
    pub max_pages: u64,
    /// Whether `options.signal` is given.
    pub signal: bool,
    /// Whether `options.onProgress` is given.
    pub progress: bool,
}

/// Whether an endpoint can answer with a list.
fn check_list(endpoint: &Endpoint) -> Result<()> {
    match endpoint {
        Endpoint::Documents | Endpoint::Collection(_) | Endpoint::Raw(_) => Ok(()),
        other => {
            let path = other.segments().join("/");
            let got = if path.is_empty() {
                "the repository info".to_owned()
            } else {
                quoted(&path)
            };
            Err(Error::invalid_argument(format!(
                "pages, all and prefetch need a list endpoint (documents or a collection), got {got}"
            )))
        }
    }
}

/// Reads the arguments of a list method: `query` is the query argument of
/// `pages` and `all`, `options.query` of `prefetch` and `refresh`;
/// `has_cache` says whether the client has an offline cache.
pub fn list(
    call: ListCall,
    endpoint: Props<'_>,
    query: &Arg,
    options: Props<'_>,
    has_cache: bool,
) -> Result<ListArgs> {
    let list_endpoint = || {
        let endpoint = self::endpoint(endpoint)?;
        check_list(&endpoint)?;
        Ok::<_, Error>(endpoint)
    };
    let pages =
        |default| optional_integer(&options(&["maxPages"]), "maxPages", 1, 1_000_000, default);
    let cached = |what: &str| {
        if has_cache {
            return Ok(());
        }
        Err(Error::invalid_argument(format!(
            "{what} needs a client created with the `cache` option"
        )))
    };
    let progress = || optional_function(&options(&["onProgress"]), "onProgress");
    match call {
        ListCall::Pages | ListCall::All => {
            let query = self::query(query)?.unwrap_or_default();
            let limit = query.get_limit().unwrap_or(DEFAULT_PAGE_LIMIT);
            let endpoint = list_endpoint()?;
            let signal = signal(options)?;
            let max_pages = match call {
                ListCall::All => pages(DEFAULT_MAX_PAGES)?,
                _ => u64::MAX,
            };
            Ok(ListArgs {
                endpoint,
                query,
                limit,
                max_pages,
                signal,
                progress: false,
            })
        }
        ListCall::Prefetch => {
            cached("prefetch")?;
            let query = variant(&self::query(query)?.unwrap_or_default())?;
            let limit = optional_integer(&options(&["pageSize"]), "pageSize", 1, 1000, 1000)?;
            let max_pages = pages(DEFAULT_PREFETCH_PAGES)?;
            Ok(ListArgs {
                endpoint: list_endpoint()?,
                query,
                limit,
                max_pages,
                signal: signal(options)?,
                progress: progress()?,
            })
        }
        ListCall::Refresh => {
            cached("refresh")?;
            let endpoint = list_endpoint()?;
            Ok(ListArgs {
                endpoint,
                query: variant(&self::query(query)?.unwrap_or_default())?,
                limit: crate::cache::refresh::PAGE,
                max_pages: crate::cache::refresh::MAX_PAGES,
                signal: signal(options)?,
                progress: progress()?,
            })
        }
    }
}
