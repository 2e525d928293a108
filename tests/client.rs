//! The client's sans-IO core, driven without any I/O against a simulated
//! service: the pager (`pages`, `all`, `prefetch`) over generated lists
//! with random page sizes, offsets and `maxPages`, lists that never end,
//! cached pages; a delta refresh after random changes; a request's course
//! under the cache policy; the options readers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::pedantic,
    unreachable_pub,
    reason = "a test fails by panicking; test code is not held to the pedantic lints"
)]

#[path = "common/harness.rs"]
mod harness;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use content_repo::args::Arg;
use content_repo::cache::policy::{Cached, Machine, Policy, Settings};
use content_repo::cache::refresh::{complete_lists, Refresh};
use content_repo::cache::{Answer, Cache};
use content_repo::client::options::{
    self, CacheOptions, ClientOptions, LastRequest, ListArgs, ListCall, Storage, Target,
};
use content_repo::client::pager::{Done, Pager, Paging, Step, Via};
use content_repo::client::request::{Action, Course, Request, Response, Source};
use content_repo::engine::apply::select_any;
use content_repo::http::response::{check, Expect};
use content_repo::{ClientConfig, Endpoint, Error, Join, Query, Scope};
use proptest::prelude::*;
use serde_json::{json, Value};

const KEY: &str = "s3cr3t-key";

fn config() -> ClientConfig {
    ClientConfig::new("https://cms.example.com", "demo", KEY, None).unwrap()
}

/// The service: a list of documents, answering the pager's and the
/// refresh's requests as the Read API does (`limit`, `offset`, the
/// `meta.updatedAt` and `meta.id` filters, field selection).
struct Service {
    docs: Vec<Value>,
    /// Whether pages carry `meta.total`.
    total: bool,
    /// A list that never ends: every page is full.
    endless: bool,
    /// How many documents `meta.total` counts beyond those listed.
    overstated: usize,
}

fn meta<'a>(doc: &'a Value, key: &str) -> &'a str {
    doc["meta"][key].as_str().unwrap_or("")
}

impl Service {
    fn new(docs: Vec<Value>) -> Self {
        Service {
            docs,
            total: true,
            endless: false,
            overstated: 0,
        }
    }

    fn matches(doc: &Value, query: &Query) -> bool {
        let mut result = true;
        for (index, filter) in query.filters().iter().enumerate() {
            assert_eq!(
                filter.field.scope,
                Scope::Meta,
                "only meta filters are sent"
            );
            let value = match filter.field.name.as_str() {
                "revision" => doc["meta"]["revision"].to_string(),
                name => meta(doc, name).to_owned(),
            };
            let holds = match filter.op.as_str() {
                "equal" => value == filter.value,
                "greaterThanOrEqual" => value.as_str() >= filter.value.as_str(),
                "greaterThan" => value.as_str() > filter.value.as_str(),
                op => panic!("unexpected operator {op}"),
            };
            result = match (index, filter.join) {
                (0, _) => holds,
                (_, Join::And) => result && holds,
                (_, Join::Or) => result || holds,
            };
        }
        result
    }

    /// The body for `url`.
    fn get(&self, url: &str) -> String {
        let (_, query) = url.split_once('?').unwrap_or((url, ""));
        let query = Query::parse(query).unwrap();
        let limit = query.get_limit().unwrap_or(25) as usize;
        let offset = query.get_offset().unwrap_or(0) as usize;
        let listed: Vec<&Value> = self
            .docs
            .iter()
            .filter(|doc| Self::matches(doc, &query))
            .collect();
        let page: Vec<&Value> = if self.endless {
            (0..limit)
                .map(|i| listed[(offset + i) % listed.len()])
                .collect()
        } else {
            listed.iter().skip(offset).take(limit).copied().collect()
        };
        let mut meta = json!({ "count": page.len(), "limit": limit, "offset": offset });
        if self.total {
            let total = if self.endless {
                offset + 2 * limit
            } else {
                listed.len() + self.overstated
            };
            meta["total"] = json!(total);
        }
        let text = json!({ "data": page, "meta": meta }).to_string();
        match query.selection() {
            Some(selection) => select_any(&text, selection).unwrap(),
            None => text,
        }
    }
}

/// What a drive did: the URLs requested and the progress reported.
#[derive(Debug, Default)]
struct Trace {
    urls: Vec<String>,
    progress: Vec<(usize, u64)>,
}

/// Performs `machine`'s steps as the boundary does, with `service` for the
/// network and `cache` in memory (every page fetched from the service; no
/// cache policy in between), each answer stamped as it arrives at `now`.
fn drive(
    machine: &mut dyn Paging,
    service: &Service,
    cache: &mut Cache,
    now: f64,
) -> (Result<Done, Error>, Trace) {
    drive_losing(machine, service, cache, now, None)
}

/// [`drive`], where the write of the record of the `lost`-th fetch (from 0)
/// fails: its change is never applied.
fn drive_losing(
    machine: &mut dyn Paging,
    service: &Service,
    cache: &mut Cache,
    now: f64,
    lost: Option<usize>,
) -> (Result<Done, Error>, Trace) {
    let mut trace = Trace::default();
    let config = config();
    let result = (|| loop {
        match machine.step(&config)? {
            Step::Fetch { request, via } => {
                assert!(trace.urls.len() < 10_000, "the machine never stops");
                trace.urls.push(request.url.clone());
                let mut page = request.answer(service.get(&request.url), KEY)?;
                let at = cache.stamp(now);
                // As the boundary: a record that cannot be planned is told
                // to the machine, with the page.
                if via == Via::Record {
                    match request.plan_record(cache, &page, at) {
                        Ok((change, ids)) => {
                            page.template = change.template();
                            if lost != Some(trace.urls.len() - 1) {
                                cache.apply(change);
                            }
                            page.ids = ids;
                        }
                        Err(error) => page.unrecorded = Some(error),
                    }
                }
                if let Some(progress) = machine.receive(Some(cache), &mut page, at)? {
                    trace.progress.push(progress);
                }
            }
            Step::Write => {
                let change = machine.write(cache)?;
                cache.apply(change);
            }
            Step::Done(done) => return Ok(done),
        }
    })();
    (result, trace)
}

fn docs(count: usize) -> Vec<Value> {
    (1..=count)
        .map(|i| {
            json!({
                "fields": { "title": format!("t{i}"), "n": i },
                "meta": {
                    "id": format!("{i}"),
                    "revision": 1,
                    "createdAt": format!("2024-01-01T00:00:{:02}.000Z", i % 60),
                    "updatedAt": format!("2024-02-01T00:{:02}:00.000Z", i % 60),
                    "contentType": "post"
                }
            })
        })
        .collect()
}

fn args(query: Query, limit: u32, max_pages: u64) -> ListArgs {
    ListArgs {
        endpoint: Endpoint::Collection("posts".into()),
        query,
        limit,
        max_pages,
        signal: false,
        progress: false,
    }
}

/// The requests a list of `remaining` documents needs in pages of `limit`:
/// the last page is short or empty, or reaches `meta.total`.
fn pages_needed(remaining: usize, limit: usize, total: bool) -> usize {
    match (total, remaining) {
        (true, 0) => 1,
        (true, _) => remaining.div_ceil(limit),
        (false, _) => remaining / limit + 1,
    }
}

proptest! {
    #![proptest_config(harness::config(256))]

    /// `all` yields exactly the documents from the query's offset, in the
    /// service's order, with one request per page, and stops at the list's
    /// end; beyond `maxPages` it fails after `maxPages` requests.
    #[test]
    fn all_yields_every_document_once_in_order_and_stops(
        count in 0usize..40,
        limit in 1u32..9,
        start in 0u64..6,
        max_pages in 1u64..14,
        total in any::<bool>(),
    ) {
        let mut service = Service::new(docs(count));
        service.total = total;
        let mut query = Query::new();
        query.offset(start).unwrap();
        let mut pager = Pager::new(ListCall::All, args(query, limit, max_pages));
        let (result, trace) = drive(&mut pager, &service, &mut Cache::new("t"), 0.0);
        let remaining = count.saturating_sub(start as usize);
        let needed = pages_needed(remaining, limit as usize, total);
        let offsets: Vec<String> = (0..trace.urls.len())
            .map(|page| format!("offset={}", start + page as u64 * u64::from(limit)))
            .collect();
        for (url, offset) in trace.urls.iter().zip(&offsets) {
            prop_assert!(url.contains(&format!("limit={limit}&{offset}")), "{url}");
        }
        if needed as u64 <= max_pages {
            prop_assert_eq!(trace.urls.len(), needed);
            let Ok(Done::List(list)) = result else { panic!("{result:?}") };
            let got: Value = serde_json::from_str(&list.body).unwrap();
            let expected: Vec<Value> = service.docs.iter().skip(start as usize).cloned().collect();
            prop_assert_eq!(&got["data"], &json!(expected));
            prop_assert_eq!(
                &got["meta"],
                &json!({ "count": remaining, "limit": remaining, "offset": start, "total": start as usize + remaining })
            );
            prop_assert_eq!(list.source, Source::Network);
            // Its facts: what the boundary gathers held pages into.
            prop_assert_eq!(list.facts.count, remaining);
            prop_assert_eq!(list.facts.total, Some(start + remaining as u64));
        } else {
            prop_assert_eq!(trace.urls.len() as u64, max_pages);
            let error = result.unwrap_err();
            prop_assert_eq!(error.code(), "invalid_argument");
            prop_assert!(error.to_string().contains(&format!("maxPages ({max_pages})")), "{error}");
        }
    }

    /// A list that never ends (every page full, `meta.total` always ahead,
    /// or none) stops at `maxPages` in `all` and `prefetch`, and a prefetch
    /// that stops so leaves no complete list behind.
    #[test]
    fn a_list_that_never_ends_stops_at_max_pages(
        count in 1usize..6,
        limit in 1u32..5,
        max_pages in 1u64..9,
        total in any::<bool>(),
        prefetch in any::<bool>(),
    ) {
        let service = Service { docs: docs(count), total, endless: true, overstated: 0 };
        let call = if prefetch { ListCall::Prefetch } else { ListCall::All };
        let mut pager = Pager::new(call, args(Query::new(), limit, max_pages));
        let mut cache = Cache::new("t");
        let (result, trace) = drive(&mut pager, &service, &mut cache, 0.0);
        prop_assert_eq!(trace.urls.len() as u64, max_pages);
        prop_assert_eq!(result.unwrap_err().code(), "invalid_argument");
        prop_assert!(complete_lists(&cache).is_empty());
    }

    /// `prefetch` records every page and then the list as complete: the
    /// cache answers the whole list; progress counts up to the total.
    #[test]
    fn prefetch_records_a_complete_list(count in 0usize..40, limit in 1u32..9, total in any::<bool>()) {
        let mut service = Service::new(docs(count));
        service.total = total;
        let mut pager = Pager::new(ListCall::Prefetch, args(Query::new(), limit, 100));
        let mut cache = Cache::new("t");
        let (result, trace) = drive(&mut pager, &service, &mut cache, 5.0);
        prop_assert_eq!(result.unwrap(), Done::Prefetched { loaded: count, total: count as u64 });
        prop_assert_eq!(trace.urls.len(), pages_needed(count, limit as usize, total));
        let loaded: Vec<usize> = trace.progress.iter().map(|(loaded, _)| *loaded).collect();
        let expected: Vec<usize> = (1..=trace.urls.len()).map(|page| (page * limit as usize).min(count)).collect();
        prop_assert_eq!(&loaded, &expected);
        // The list's total, or (without `meta.total`) what is loaded so far.
        for (loaded, reported) in &trace.progress {
            prop_assert_eq!(*reported, if total { count as u64 } else { *loaded as u64 });
        }
        prop_assert_eq!(complete_lists(&cache).len(), 1);
        let mut query = Query::new();
        query.limit(1000).unwrap();
        let endpoint = Endpoint::Collection("posts".into());
        let url = config().url(&endpoint, Some(&query)).unwrap();
        let answer = cache.answer_list(&url, &endpoint, &query).unwrap();
        let mut ids: Vec<String> = serde_json::from_str::<Value>(&answer.body).unwrap()["data"]
            .as_array().unwrap().iter().map(|doc| meta(doc, "id").to_owned()).collect();
        ids.sort();
        let mut expected: Vec<String> = (1..=count).map(|i| i.to_string()).collect();
        expected.sort();
        prop_assert_eq!(ids, expected);
    }

    /// A prefetch from a service that lags behind the cache (a page holds a
    /// document older than the cached one: the page is not recorded) fails
    /// with `not_cached` and leaves no complete list, the newer revision
    /// kept: never a list thinner than the service's.
    #[test]
    fn a_prefetch_with_a_stale_page_leaves_no_complete_list(
        count in 1usize..30,
        limit in 1u32..9,
        newer in any::<prop::sample::Index>(),
    ) {
        let service = Service::new(docs(count));
        let newer = newer.index(count) + 1;
        let mut cache = Cache::new("t");
        let mut current = docs(count)[newer - 1].clone();
        current["meta"]["revision"] = json!(2);
        current["fields"]["title"] = json!("newer");
        let one = Endpoint::Document(newer.to_string());
        let at = cache.stamp(1.0);
        let change = cache
            .plan_response(None, &one, &Query::new(), content_repo::cache::Kind::Document, std::rc::Rc::new(current.to_string()), at)
            .unwrap();
        cache.apply(change);
        let mut pager = Pager::new(ListCall::Prefetch, args(Query::new(), limit, 100));
        let (result, trace) = drive(&mut pager, &service, &mut cache, 5.0);
        prop_assert_eq!(trace.urls.len(), count.div_ceil(limit as usize));
        let error = result.unwrap_err();
        prop_assert_eq!(error.code(), "not_cached", "{}", error);
        prop_assert!(error.to_string().contains("older than the cached one"), "{}", error);
        prop_assert!(complete_lists(&cache).is_empty());
        let kept: Value = serde_json::from_str(&cache.answer_single("x", &one, &Query::new()).unwrap().body).unwrap();
        prop_assert_eq!(&kept["fields"]["title"], "newer");
    }

    /// A prefetch where the write of one page failed fails with `storage`
    /// and leaves no complete list: the cache never answers the whole list
    /// thinner than the service (a page's documents missing).
    #[test]
    fn a_prefetch_with_a_page_not_written_leaves_no_complete_list(
        count in 1usize..40,
        limit in 1u32..9,
        lost in any::<prop::sample::Index>(),
    ) {
        let service = Service::new(docs(count));
        let pages = count.div_ceil(limit as usize);
        let lost = lost.index(pages);
        let mut pager = Pager::new(ListCall::Prefetch, args(Query::new(), limit, 100));
        let mut cache = Cache::new("t");
        let (result, trace) = drive_losing(&mut pager, &service, &mut cache, 5.0, Some(lost));
        prop_assert_eq!(trace.urls.len(), pages);
        let error = result.unwrap_err();
        prop_assert_eq!(error.code(), "storage", "{}", error);
        prop_assert!(complete_lists(&cache).is_empty());
    }

    /// `pages` reads the count and total of pages answered from the cache
    /// (which come without them) from their text: cached pages page as the
    /// network's do.
    #[test]
    fn cached_pages_page_like_network_pages(count in 0usize..30, limit in 1u32..7, cached in prop::collection::vec(any::<bool>(), 12)) {
        let service = Service::new(docs(count));
        let mut pager = Pager::new(ListCall::Pages, args(Query::new(), limit, u64::MAX));
        let config = config();
        let mut seen = Vec::new();
        loop {
            match pager.step(&config).unwrap() {
                Step::Fetch { request, via } => {
                    prop_assert_eq!(via, Via::Policy);
                    let body = service.get(&request.url);
                    let mut page = if cached[seen.len() % cached.len()] {
                        Response::cached(Answer { body, fetched_at: 1.0, page: None }, false)
                    } else {
                        request.answer(body, KEY).unwrap()
                    };
                    prop_assert_eq!(pager.receive(None, &mut page, 0.0).unwrap(), None);
                    let page: Value = serde_json::from_str(&page.body).unwrap();
                    seen.extend(page["data"].as_array().unwrap().iter().map(|doc| meta(doc, "id").to_owned()));
                }
                Step::Done(done) => {
                    prop_assert_eq!(done, Done::Pages);
                    break;
                }
                Step::Write => panic!("pages writes nothing"),
            }
        }
        let expected: Vec<String> = (1..=count).map(|i| i.to_string()).collect();
        prop_assert_eq!(seen, expected);
    }
}

#[test]
fn a_finished_pager_is_done() {
    let service = Service::new(docs(10));
    let mut pager = Pager::new(ListCall::Pages, args(Query::new(), 3, u64::MAX));
    let Step::Fetch { request, .. } = pager.step(&config()).unwrap() else {
        panic!()
    };
    let mut page = request.answer(service.get(&request.url), KEY).unwrap();
    pager.receive(None, &mut page, 0.0).unwrap();
    pager.finish();
    assert_eq!(pager.step(&config()).unwrap(), Step::Done(Done::Pages));
}

// ------------------------------------------------------------ refresh

/// A document's `(id, revision)`.
fn key(doc: &Value) -> (String, u64) {
    (
        meta(doc, "id").to_owned(),
        doc["meta"]["revision"].as_u64().unwrap(),
    )
}

fn list_keys(cache: &mut Cache) -> BTreeMap<String, u64> {
    let mut query = Query::new();
    query.limit(1000).unwrap();
    let endpoint = Endpoint::Collection("posts".into());
    let url = config().url(&endpoint, Some(&query)).unwrap();
    let answer = cache.answer_list(&url, &endpoint, &query).unwrap();
    serde_json::from_str::<Value>(&answer.body).unwrap()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(key)
        .collect()
}

/// A change to the service's list: `0` updated (a newer revision and
/// `updatedAt`), `1` changed without moving `updatedAt`, `2` deleted,
/// anything else unchanged.
fn mutate(service: &mut Service, kinds: &[u8], added: usize) -> (usize, usize) {
    let (mut changed, mut deleted) = (0, 0);
    let mut kept = Vec::new();
    for (doc, kind) in service.docs.drain(..).zip(kinds.iter().cycle()) {
        let mut doc = doc;
        match kind {
            0 | 1 => {
                let revision = doc["meta"]["revision"].as_u64().unwrap();
                doc["meta"]["revision"] = json!(revision + 1);
                doc["fields"]["title"] = json!("changed");
                if *kind == 0 {
                    doc["meta"]["updatedAt"] = json!("2024-03-01T00:00:00.000Z");
                }
                changed += 1;
            }
            2 => {
                deleted += 1;
                continue;
            }
            _ => {}
        }
        kept.push(doc);
    }
    for i in 0..added {
        let mut doc = docs(1).remove(0);
        doc["meta"]["id"] = json!(format!("{}", 1000 + i));
        doc["meta"]["updatedAt"] = json!("2024-03-02T00:00:00.000Z");
        kept.push(doc);
        changed += 1;
    }
    service.docs = kept;
    (changed, deleted)
}

proptest! {
    #![proptest_config(harness::config(128))]

    /// After random changes (updates, updates whose `updatedAt` did not
    /// move, deletions, additions), a refresh brings the complete list to
    /// exactly the service's documents and revisions, counts the changes,
    /// and asks far less than a prefetch would.
    #[test]
    fn a_refresh_brings_a_prefetched_list_up_to_date(
        count in 1usize..40,
        limit in 1u32..12,
        kinds in prop::collection::vec(0u8..6, 1..8),
        added in 0usize..5,
    ) {
        let mut service = Service::new(docs(count));
        let mut cache = Cache::new("t");
        let mut prefetch = Pager::new(ListCall::Prefetch, args(Query::new(), limit, 100));
        drive(&mut prefetch, &service, &mut cache, 10.0).0.unwrap();
        let (changed, deleted) = mutate(&mut service, &kinds, added);
        let lists = complete_lists(&cache);
        prop_assert_eq!(lists.len(), 1);
        // Read back from the cache's keys (as `refreshOnReconnect` does).
        let (endpoint, query) = lists[0].clone();
        prop_assert_eq!(
            config().url(&endpoint, None).unwrap(),
            "https://cms.example.com/v1/demo/collections/posts"
        );
        let mut refresh = Refresh::start(&cache, endpoint, query).unwrap();
        let (result, trace) = drive(&mut refresh, &service, &mut cache, 20.0);
        let total = service.docs.len();
        prop_assert_eq!(result.unwrap(), Done::Refreshed { changed, deleted, total });
        let expected: BTreeMap<String, u64> = service.docs.iter().map(key).collect();
        prop_assert_eq!(list_keys(&mut cache), expected);
        // The delta, one page of ids, and the silent changes by id.
        prop_assert!(trace.urls.len() <= 2 + changed.div_ceil(40) + 1, "{:?}", trace.urls);
        prop_assert!(trace.urls[0].contains("updatedAt%5D%5BgreaterThanOrEqual%5D"), "{}", trace.urls[0]);
        prop_assert_eq!(trace.progress, vec![(total, total as u64)]);
    }
}

/// Every document of the complete list of posts, by id (pages of 1000).
fn all_keys(cache: &mut Cache) -> BTreeMap<String, u64> {
    let endpoint = Endpoint::Collection("posts".into());
    let mut keys = BTreeMap::new();
    for offset in [0, 1000, 2000] {
        let mut query = Query::new();
        query.limit(1000).unwrap().offset(offset).unwrap();
        let answer = cache.answer_list("-", &endpoint, &query).unwrap();
        let body: Value = serde_json::from_str(&answer.body).unwrap();
        keys.extend(body["data"].as_array().unwrap().iter().map(key));
    }
    keys
}

/// A refresh of the prefetched posts, driven as [`drive`] does, where
/// `change` may change `service` before each request (its URL given).
fn refresh_changing(
    service: &mut Service,
    cache: &mut Cache,
    change: impl FnMut(&str, &mut Service),
) -> Result<Done, Error> {
    let (endpoint, query) = complete_lists(cache)[0].clone();
    let mut refresh = Refresh::start(cache, endpoint, query)?;
    drive_changing(&mut refresh, service, cache, change)
}

/// Drives `machine` as [`drive`] does (at 20 ms), where `change` may change
/// `service` before each request (its URL given).
fn drive_changing(
    machine: &mut dyn Paging,
    service: &mut Service,
    cache: &mut Cache,
    mut change: impl FnMut(&str, &mut Service),
) -> Result<Done, Error> {
    let config = config();
    loop {
        match machine.step(&config)? {
            Step::Fetch { request, via } => {
                change(&request.url, service);
                let mut page = request.answer(service.get(&request.url), KEY)?;
                let at = cache.stamp(20.0);
                if via == Via::Record {
                    match request.plan_record(cache, &page, at) {
                        Ok((change, ids)) => {
                            page.template = change.template();
                            cache.apply(change);
                            page.ids = ids;
                        }
                        Err(error) => page.unrecorded = Some(error),
                    }
                }
                machine.receive(Some(cache), &mut page, at)?;
            }
            Step::Write => {
                let change = machine.write(cache)?;
                cache.apply(change);
            }
            Step::Done(done) => return Ok(done),
        }
    }
}

/// The prefetched posts of `count` documents (pages of 1000).
fn prefetched(count: usize) -> (Service, Cache) {
    let service = Service::new(docs(count));
    let mut cache = Cache::new("t");
    let mut prefetch = Pager::new(ListCall::Prefetch, args(Query::new(), 1000, 100));
    drive(&mut prefetch, &service, &mut cache, 10.0).0.unwrap();
    (service, cache)
}

/// The sweep reads the list's ids by offset, a page of 1000 at a time: a
/// document deleted on the service before its second page moves the next
/// one back onto the first, where it would never be read. Each page after
/// the first starts at the last id read; when the page does not hold it, the
/// sweep starts over, so the refresh deletes the right document, whether
/// another was added meanwhile (the same total) or not. A list that moves
/// back under every sweep fails the refresh (`not_cached`) and stays as it
/// was. Documents added at the head move the ids forward: those read again
/// are skipped, nothing starts over. Before, the unread document was
/// deleted from the cache and the deleted one kept.
#[test]
fn a_list_changed_while_its_ids_are_read_is_swept_again() {
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Change {
        /// The first document goes; a new one comes at the end, or none.
        Delete { added: bool },
        /// New documents come at the head.
        Insert(usize),
    }
    let cases = [
        (1, Change::Delete { added: false }),
        (1, Change::Delete { added: true }),
        (3, Change::Delete { added: true }),
        (3, Change::Insert(1)),
        (3, Change::Insert(40)),
    ];
    for (moves, change) in cases {
        let (mut service, mut cache) = prefetched(1001);
        let before = all_keys(&mut cache);
        let (mut sweeps, mut moved, mut added) = (0, 0, 0);
        let result = refresh_changing(&mut service, &mut cache, |url, service| {
            let sweep = url.contains("fields=meta");
            sweeps += usize::from(sweep && url.contains("offset=0"));
            if !sweep || url.contains("offset=0") || moved >= moves {
                return;
            }
            let mut new = || {
                let mut new = docs(1).remove(0);
                new["meta"]["id"] = json!(format!("{}", 5000 + added));
                added += 1;
                new
            };
            match change {
                Change::Delete { added } => {
                    service.docs.remove(0);
                    if added {
                        service.docs.push(new());
                    }
                }
                Change::Insert(count) => {
                    for _ in 0..count {
                        service.docs.insert(0, new());
                    }
                }
            }
            moved += 1;
        });
        let service_keys: BTreeMap<String, u64> = service.docs.iter().map(key).collect();
        match change {
            Change::Delete { added } if moves == 1 => {
                let (changed, total) = (usize::from(added), service_keys.len());
                let done = Done::Refreshed {
                    changed,
                    deleted: 1,
                    total,
                };
                assert_eq!(result.unwrap(), done, "{change:?}");
                assert_eq!(sweeps, 2, "the sweep started over once");
                assert_eq!(all_keys(&mut cache), service_keys);
            }
            Change::Delete { .. } => {
                let error = result.unwrap_err();
                assert_eq!(error.code(), "not_cached", "{error}");
                assert_eq!(sweeps, 3, "the sweep started over twice");
                assert_eq!(all_keys(&mut cache), before, "the list as it was");
            }
            // Added at the head after the sweep's first page (which they
            // would have been on): not read, as if added after the refresh
            // (the next one finds them); nothing deleted, nothing started over.
            Change::Insert(_) => {
                let done = Done::Refreshed {
                    changed: 0,
                    deleted: 0,
                    total: 1001,
                };
                assert_eq!(result.unwrap(), done, "{change:?}");
                assert_eq!(sweeps, 1, "{change:?}: no sweep started over");
                assert_eq!(all_keys(&mut cache), before);
                assert_eq!(service_keys.len(), before.len() + added);
            }
        }
    }
}

/// 999 documents added at the head between two pages of the sweep move the
/// last id read to the end of the next page, which is full: the sweep goes
/// on (before, it ended there and deleted the 1500 documents after it).
/// They are not read (as if added after the refresh); nothing is deleted.
#[test]
fn a_full_page_that_adds_no_id_does_not_end_the_sweep() {
    let (mut service, mut cache) = prefetched(2500);
    let before = all_keys(&mut cache);
    let mut inserted = false;
    let done = refresh_changing(&mut service, &mut cache, |url, service| {
        if url.contains("fields=meta") && !url.contains("offset=0") && !inserted {
            inserted = true;
            for i in 0..999 {
                let mut new = docs(1).remove(0);
                new["meta"]["id"] = json!(format!("{}", 9000 + i));
                service.docs.insert(0, new);
            }
        }
    });
    assert_eq!(
        done.unwrap(),
        Done::Refreshed {
            changed: 0,
            deleted: 0,
            total: 2500
        }
    );
    assert_eq!(all_keys(&mut cache), before);
}

/// A document the delta fetched that the service no longer lists when the
/// sweep reads it (added, then deleted) is not counted as changed.
#[test]
fn a_fetched_document_the_sweep_does_not_list_is_not_changed() {
    let (mut service, mut cache) = prefetched(5);
    let mut added = docs(1).remove(0);
    added["meta"]["id"] = json!("900");
    added["meta"]["updatedAt"] = json!("2025-01-01T00:00:00.000Z");
    service.docs.push(added);
    let done = refresh_changing(&mut service, &mut cache, |url, service| {
        if url.contains("fields=meta") {
            service.docs.retain(|doc| meta(doc, "id") != "900");
        }
    });
    assert_eq!(
        done.unwrap(),
        Done::Refreshed {
            changed: 0,
            deleted: 0,
            total: 5
        }
    );
}

/// A service whose `meta.total` counts more documents than its pages hold:
/// the sweep ends at the page that adds no id (as the pages of a list end
/// at an empty page), rather than ask its last id again up to the page
/// limit.
#[test]
fn a_sweep_ends_where_the_ids_end_whatever_the_total_says() {
    for count in [5, 1000, 1001] {
        let (mut service, mut cache) = prefetched(count);
        service.overstated = 1;
        let mut sweeps = 0;
        let done = refresh_changing(&mut service, &mut cache, |url, _| {
            sweeps += usize::from(url.contains("fields=meta"));
        });
        assert!(sweeps <= 3, "{count}: {sweeps} sweep requests");
        let expected = Done::Refreshed {
            changed: 0,
            deleted: 0,
            total: count,
        };
        assert_eq!(done.unwrap(), expected, "{count}");
    }
}

#[test]
fn refreshing_a_list_that_is_not_complete_is_not_cached() {
    let cache = Cache::new("t");
    let error =
        Refresh::start(&cache, Endpoint::Collection("posts".into()), Query::new()).unwrap_err();
    assert_eq!(error.code(), "not_cached");
}

// ------------------------------------------------------------ the course of a request

fn answer() -> Answer {
    Answer {
        body: r#"{"data":[]}"#.into(),
        fetched_at: 7.0,
        page: None,
    }
}

fn network() -> Response {
    let request = Request::new(&config(), Endpoint::Documents, Query::new(), Expect::List).unwrap();
    request
        .answer(r#"{"data":[{"a":1}]}"#.to_owned(), KEY)
        .unwrap()
}

fn course(policy: Policy, cached: Cached, online: bool) -> Course {
    let settings = Settings {
        policy,
        network_timeout_ms: Some(50),
    };
    let answer = (!matches!(cached, Cached::Nothing(_))).then(answer);
    Course::new(settings, (cached, answer), online)
}

fn not_cached() -> Cached {
    Cached::Nothing(Error::NotCached {
        message: "nothing".into(),
    })
}

fn down() -> Error {
    Error::Network {
        message: "down".into(),
    }
}

#[test]
fn a_course_answers_from_the_cache_or_the_network_as_the_policy_says() {
    let fresh = || Cached::Fresh { age_ms: 1.0 };
    let old = || Cached::Old { age_ms: 1e9 };
    // cache-first with a fresh answer: the cache, not stale.
    let mut c = course(Policy::CacheFirst, fresh(), true);
    let Action::Answer {
        response,
        revalidate: false,
    } = c.first()
    else {
        panic!()
    };
    let response = response.unwrap();
    assert_eq!(
        (response.source, response.stale, response.cached_at),
        (Source::Cache, false, Some(7.0))
    );
    assert_eq!(response.body.as_str(), r#"{"data":[]}"#);
    // stale-while-revalidate with an old answer: stale, and revalidated.
    let mut c = course(Policy::StaleWhileRevalidate, old(), true);
    let Action::Answer {
        response,
        revalidate: true,
    } = c.first()
    else {
        panic!()
    };
    assert!(response.unwrap().stale);
    // network-first with a cached answer: the network raced against
    // networkTimeoutMs, network errors not retried.
    let mut c = course(Policy::NetworkFirst, fresh(), true);
    assert_eq!(
        c.first(),
        Action::Fetch {
            retry_network: false,
            race_ms: Some(50)
        }
    );
    // ...the network answers: its answer.
    assert_eq!(c.clone().after(Some(Ok(network()))).unwrap(), network());
    // ...the network fails: the cache, stale.
    let fallback = c.clone().after(Some(Err(down()))).unwrap();
    assert_eq!((fallback.source, fallback.stale), (Source::Cache, true));
    // ...a 404 is the answer, not the cache.
    let missing = Error::Http {
        status: 404,
        message: None,
    };
    assert_eq!(c.clone().after(Some(Err(missing.clone()))), Err(missing));
    // ...the race is lost: the cache, stale.
    assert!(c.after(None).unwrap().stale);
    // Nothing cached, online: the network, retried; a failure says why the
    // cache could not answer either.
    let mut c = course(Policy::NetworkFirst, not_cached(), true);
    assert_eq!(
        c.first(),
        Action::Fetch {
            retry_network: true,
            race_ms: None
        }
    );
    let error = c.clone().after(Some(Err(down()))).unwrap_err();
    assert_eq!(error.code(), "not_cached");
    assert!(error.to_string().contains("down"), "{error}");
    // ...a service that answered (503, 429) is no offline: its error, with
    // its status, whatever the cache lacks.
    for status in [429, 503] {
        let answered = Error::Http {
            status,
            message: Some("busy".into()),
        };
        assert_eq!(c.clone().after(Some(Err(answered.clone()))), Err(answered));
    }
    // cache-only with nothing: fails at once with not_cached.
    let mut c = course(Policy::CacheOnly, not_cached(), true);
    let Action::Fail(error) = c.first() else {
        panic!()
    };
    assert_eq!(error.code(), "not_cached");
    // Offline with an answer: the cache, stale, under network-first.
    let mut c = course(Policy::NetworkFirst, fresh(), false);
    let Action::Answer {
        response,
        revalidate: false,
    } = c.first()
    else {
        panic!()
    };
    assert!(response.unwrap().stale);
}

proptest! {
    #![proptest_config(harness::config(512))]

    /// Whatever the policy, the cache and the network do, a course ends in
    /// an answer or an error, never a panic; an answer from the cache is
    /// the cache's, marked; a network answer is the network's.
    /// Whether the runtime is online is asked exactly where it changes
    /// the first step (not where the policy answers from the cache anyway).
    #[test]
    fn online_is_asked_only_where_it_changes_the_first_step(
        policy in prop::sample::select(vec![Policy::NetworkFirst, Policy::CacheFirst, Policy::StaleWhileRevalidate, Policy::CacheOnly]),
        cached in 0u8..3,
        timeout in prop::option::of(0u64..100),
    ) {
        let cached = match cached {
            0 => not_cached(),
            1 => Cached::Fresh { age_ms: 1.0 },
            _ => Cached::Old { age_ms: 1.0 },
        };
        let settings = Settings { policy, network_timeout_ms: timeout };
        let [on, off] = [true, false].map(|online| Machine::new(settings, cached.clone(), online).first());
        // Asked exactly where it matters.
        prop_assert_eq!(Machine::asks_online(settings, &cached), on != off);
    }

    #[test]
    fn a_course_always_ends_with_the_right_source(
        policy in prop::sample::select(vec![Policy::NetworkFirst, Policy::CacheFirst, Policy::StaleWhileRevalidate, Policy::CacheOnly]),
        cached in 0u8..3,
        online in any::<bool>(),
        outcome in 0u8..4,
    ) {
        let cached = match cached {
            0 => not_cached(),
            1 => Cached::Fresh { age_ms: 1.0 },
            _ => Cached::Old { age_ms: 1.0 },
        };
        let available = !matches!(cached, Cached::Nothing(_));
        let mut c = course(policy, cached, online);
        let result = match c.first() {
            Action::Answer { response, .. } => response,
            Action::Fetch { .. } => c.after(match outcome {
                0 => Some(Ok(network())),
                1 => Some(Err(down())),
                2 => Some(Err(Error::Http { status: 400, message: None })),
                _ => None,
            }),
            Action::Fail(error) => Err(error),
        };
        match result {
            Ok(response) if response.source == Source::Cache => {
                prop_assert!(available);
                prop_assert_eq!(response.cached_at, Some(7.0));
            }
            Ok(response) => prop_assert_eq!(response, network()),
            Err(error) => prop_assert!(
                ["network", "http", "not_cached"].contains(&error.code()),
                "{error}"
            ),
        }
    }
}

// ------------------------------------------------------------ options

/// A getter over a JSON-like options object (`Arg`s at paths).
fn options_of<'a>(entries: &'a [(&'a str, Arg)]) -> impl Fn(&[&str]) -> Arg + 'a {
    move |path: &[&str]| {
        if path.is_empty() {
            return Arg::Object;
        }
        let path = path.join(".");
        let direct = entries.iter().find(|(key, _)| *key == path);
        match direct {
            Some((_, value)) => value.clone(),
            // Below a value that is not an object: undefined.
            None if entries
                .iter()
                .any(|(key, value)| path.starts_with(&format!("{key}.")) && !value.is_object()) =>
            {
                Arg::Undefined
            }
            None if entries
                .iter()
                .any(|(key, _)| key.starts_with(&format!("{path}."))) =>
            {
                Arg::Object
            }
            None => Arg::Undefined,
        }
    }
}

fn text(value: &str) -> Arg {
    Arg::Text(value.into())
}

fn base() -> Vec<(&'static str, Arg)> {
    vec![
        ("baseUrl", text("https://cms.example.com/")),
        ("repository", text("demo")),
        ("apiKey", text(KEY)),
    ]
}

fn read(extra: Vec<(&'static str, Arg)>, indexed_db: bool) -> Result<ClientOptions, Error> {
    let mut entries = base();
    entries.extend(extra);
    let read = ClientOptions::read(&options_of(&entries), indexed_db);
    read
}

#[test]
fn client_options_have_defaults_and_checked_ranges() {
    let options = read(vec![], false).unwrap();
    assert_eq!(options.timeout_ms, 30_000);
    assert_eq!(options.retry.retries, 3);
    assert_eq!(options.cache, None);
    assert!(!options.fetch && !options.on_cache_error);
    assert_eq!(
        options.storage_name(),
        "content-repo:https://cms.example.com/v1/demo"
    );
    let options = read(
        vec![
            ("retries", Arg::Number(0.0)),
            ("timeoutMs", Arg::Number(0.0)),
            ("fetch", Arg::Function),
        ],
        false,
    )
    .unwrap();
    assert_eq!((options.retry.retries, options.timeout_ms), (0, 0));
    assert!(options.fetch);
    for (entry, message) in [
        (("retries", Arg::Number(101.0)), "invalid retries 101: expected an integer from 0 to 100"),
        (("retries", Arg::Null), "invalid retries null: expected an integer from 0 to 100"),
        (("retryDelayMs", Arg::Number(1.5)), "invalid retryDelayMs 1.5: expected an integer from 0 to 3600000"),
        (("timeoutMs", text("5")), "invalid timeoutMs \"5\": expected an integer from 0 to 2147483647"),
        (("fetch", Arg::Number(1.0)), "fetch must be a function, got 1"),
        (("onCacheError", Arg::Object), "onCacheError must be a function, got an object"),
        (("apiKey", Arg::Number(5.0)), "apiKey must be a string"),
        (("baseUrl", Arg::Undefined), "baseUrl must be a string, got undefined"),
        (("cache", text("memory")), "cache must be true or { storage?, policy?, maxAgeMs?, networkTimeoutMs?, maxBytes? }, got \"memory\""),
        (("cache.policy", text("sometimes")), "invalid cache policy \"sometimes\": expected \"network-first\", \"cache-first\", \"stale-while-revalidate\" or \"cache-only\""),
        (("cache.maxAgeMs", Arg::Number(-1.0)), "cache.maxAgeMs must be a number >= 0, got -1"),
        (("cache.storage", text("disk")), "invalid cache storage \"disk\": expected \"indexeddb\", \"memory\" or an object with load(), write() and clear()"),
        (("cache.storage", text("indexeddb")), "cache storage \"indexeddb\" needs IndexedDB, which this environment lacks"),
    ] {
        let mut entries = base();
        entries.retain(|(key, _)| *key != entry.0);
        entries.push(entry.clone());
        let error = ClientOptions::read(&options_of(&entries), false)
            .map(|_| panic!("{entry:?} was accepted"))
            .unwrap_err();
        assert_eq!((error.code(), error.to_string()), ("invalid_argument", message.to_owned()), "{entry:?}");
    }
    // The key is never quoted.
    let mut entries = base();
    entries[2].1 = text("bad\nkey");
    let error = ClientOptions::read(&options_of(&entries), false).unwrap_err();
    assert!(!error.to_string().contains("bad"), "{error}");
}

#[test]
fn cache_options_read_storage_policy_and_bounds() {
    let cache =
        |extra: Vec<(&'static str, Arg)>, indexed_db: bool| read(extra, indexed_db).unwrap().cache;
    assert_eq!(cache(vec![("cache", Arg::Bool(false))], true), None);
    assert_eq!(cache(vec![("cache", Arg::Null)], true), None);
    let default = cache(vec![("cache", Arg::Bool(true))], true).unwrap();
    assert_eq!(default.storage, Storage::IndexedDb);
    assert_eq!(default.settings.policy, Policy::NetworkFirst);
    assert_eq!(
        default.timeout_ms, 30_000,
        "the client's timeout bounds storage calls"
    );
    assert_eq!(
        cache(vec![("cache", Arg::Bool(true))], false)
            .unwrap()
            .storage,
        Storage::Memory
    );
    let custom = cache(
        vec![
            ("cache.storage.load", Arg::Function),
            ("cache.storage.write", Arg::Function),
            ("cache.storage.clear", Arg::Function),
            ("cache.policy", text("cache-only")),
            ("cache.maxBytes", Arg::Number(1e30)),
            ("cache.networkTimeoutMs", Arg::Number(12.9)),
            ("cache.maxAgeMs", Arg::Number(5.0)),
            ("cache.refreshOnReconnect", Arg::Number(1.0)),
        ],
        false,
    )
    .unwrap();
    assert_eq!(
        custom,
        CacheOptions {
            settings: Settings {
                policy: Policy::CacheOnly,
                network_timeout_ms: Some(12)
            },
            storage: Storage::Custom,
            max_age_ms: Some(5.0),
            max_bytes: Some(usize::MAX),
            refresh_on_reconnect: true,
            timeout_ms: 30_000,
        }
    );
    assert_eq!(custom.storage.kind(), None);
    assert_eq!(Storage::Memory.kind(), Some("memory"));
    // An object without write() is not a storage.
    let error = read(
        vec![
            ("cache.storage.load", Arg::Function),
            ("cache.storage.clear", Arg::Function),
        ],
        false,
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid cache storage an object"),
        "{error}"
    );
}

#[test]
fn endpoints_queries_and_signals_are_read() {
    let endpoint = |entries: &[(&str, Arg)]| options::endpoint(&options_of(entries));
    assert_eq!(
        endpoint(&[("document", text("42"))]).unwrap(),
        Endpoint::Document("42".into())
    );
    assert_eq!(
        endpoint(&[("documents", Arg::Bool(true))]).unwrap(),
        Endpoint::Documents
    );
    assert_eq!(
        endpoint(&[("repository", Arg::Number(1.0))]).unwrap(),
        Endpoint::Repository
    );
    assert_eq!(
        endpoint(&[("collection", Arg::Number(1.0))])
            .unwrap_err()
            .to_string(),
        "endpoint.collection must be a string, got 1"
    );
    assert_eq!(
        endpoint(&[("alias", text(".."))]).unwrap_err().code(),
        "invalid_argument"
    );
    // The message names every form, the typed ones included.
    let message = endpoint(&[("collections", text("x"))])
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("invalid endpoint (an object): "),
        "{message}"
    );
    for form in [
        "\"documents\"",
        "{ documents: true }",
        "{ repository: true }",
        "collection",
    ] {
        assert!(message.contains(form), "{message}");
    }
    let raw = |value: Arg| {
        options::endpoint(&move |path: &[&str]| match path {
            [] => value.clone(),
            _ => Arg::Undefined,
        })
    };
    // The path of a typed endpoint is that endpoint; any other path is raw.
    let cases = [
        ("collections/a b", Endpoint::Collection("a b".into())),
        ("/documents", Endpoint::Documents),
        ("documents/1", Endpoint::Document("1".into())),
        ("alias/home", Endpoint::Alias("home".into())),
        ("assets/7", Endpoint::Asset("7".into())),
        ("collections", Endpoint::Raw(vec!["collections".into()])),
        (
            "documents/1/x",
            Endpoint::Raw(vec!["documents".into(), "1".into(), "x".into()]),
        ),
        ("tags/a", Endpoint::Raw(vec!["tags".into(), "a".into()])),
    ];
    for (path, expected) in cases {
        assert_eq!(raw(text(path)).unwrap(), expected, "{path}");
    }
    assert_eq!(raw(Arg::Undefined).unwrap(), Endpoint::Repository);
    assert_eq!(options::invalidated(&|_: &[&str]| Arg::Null).unwrap(), None);
    assert_eq!(options::query(&Arg::Null).unwrap(), None);
    assert_eq!(
        options::query(&text("limit=5"))
            .unwrap()
            .unwrap()
            .get_limit(),
        Some(5)
    );
    assert_eq!(
        options::query(&Arg::Number(5.0)).unwrap_err().to_string(),
        "query must be a Query or a query string, got 5"
    );
    let signal = |entries: &[(&str, Arg)]| options::signal(&options_of(entries));
    assert_eq!(signal(&[("signal", Arg::Signal)]), Ok(true));
    assert_eq!(signal(&[]), Ok(false));
    assert_eq!(
        signal(&[("signal", Arg::Object)]).unwrap_err().to_string(),
        "options.signal must be an AbortSignal, got an object"
    );
    assert_eq!(
        options::signal(&|_: &[&str]| Arg::Number(3.0))
            .unwrap_err()
            .to_string(),
        "request options must be an object { signal? }, got 3"
    );
}

proptest! {
    #![proptest_config(harness::config(256))]

    /// A client's last request is reused only when it is the same: over
    /// any sequence of typed calls (valid and invalid ids, queries and
    /// options, repeated or not), each read gives what a fresh read gives,
    /// error or request.
    #[test]
    fn a_client_reads_each_request_as_a_fresh_read_would(
        calls in prop::collection::vec((0usize..7, 0usize..4, 0usize..7, 0usize..3), 1..24),
    ) {
        const TARGETS: [Target; 7] = [
            Target::Documents,
            Target::Collection,
            Target::Document,
            Target::Alias,
            Target::Asset,
            Target::Repository,
            Target::Any,
        ];
        let ids = [text("posts"), text("collections/posts"), text(".."), Arg::Null];
        let queries = [
            Arg::Undefined,
            text(""),
            text("limit=5"),
            text("limit=5&locale=de"),
            text("sorting[fields.title]=desc&fields=title"),
            text("limit=0"),
            Arg::Number(1.0),
        ];
        let signals = [Arg::Undefined, Arg::Signal, Arg::Object];
        let mut last = LastRequest::default();
        for (target, id, query, signal) in calls {
            let id_value = ids[id].clone();
            let id = move |path: &[&str]| match path {
                [] => id_value.clone(),
                _ => Arg::Undefined,
            };
            let entries = [("signal", signals[signal].clone())];
            let options = options_of(&entries);
            let (target, query) = (TARGETS[target], &queries[query]);
            prop_assert_eq!(
                last.read(target, &id, query, &options, &config()).map(|read| (*read).clone()),
                options::request(target, &id, query, &options, &config())
            );
        }
    }
}

#[test]
fn typed_requests_and_list_calls_are_read_in_order() {
    let none = |_: &[&str]| Arg::Undefined;
    let id = |value: Arg| {
        move |path: &[&str]| {
            if path.is_empty() {
                value.clone()
            } else {
                Arg::Undefined
            }
        }
    };
    let request = options::request(
        Target::Alias,
        &id(text("home")),
        &text("locale=de"),
        &none,
        &config(),
    )
    .unwrap();
    assert_eq!(
        request.url,
        "https://cms.example.com/v1/demo/alias/home?locale=de"
    );
    assert_eq!(request.expect, Expect::Document);
    // `get` of a typed endpoint's path, or of its object, is that typed
    // method's request (the same URL, checked and cached alike); any other
    // path is any JSON.
    let typed = [
        (
            Target::Collection,
            text("posts"),
            "collections/posts",
            Expect::List,
        ),
        (Target::Documents, Arg::Undefined, "documents", Expect::List),
        (Target::Document, text("7"), "documents/7", Expect::Document),
        (Target::Asset, text("7"), "assets/7", Expect::Document),
        (Target::Alias, text("home"), "alias/home", Expect::Document),
    ];
    for (target, name, path, expect) in typed {
        let query = text("limit=5");
        let method = options::request(target, &id(name), &query, &none, &config()).unwrap();
        let get = options::request(Target::Any, &id(text(path)), &query, &none, &config());
        assert_eq!(get.unwrap(), method, "{path}");
        assert_eq!(method.expect, expect, "{path}");
    }
    let object = |path: &[&str]| match path {
        [] => Arg::Object,
        ["collection"] => text("posts"),
        _ => Arg::Undefined,
    };
    let get = options::request(Target::Any, &object, &Arg::Undefined, &none, &config());
    assert_eq!(get.unwrap().expect, Expect::List);
    let other = options::request(
        Target::Any,
        &id(text("tags")),
        &Arg::Undefined,
        &none,
        &config(),
    );
    assert_eq!(other.unwrap().expect, Expect::Any);
    // The id is checked before the query, the query before the options.
    let error = options::request(
        Target::Document,
        &id(Arg::Null),
        &Arg::Number(1.0),
        &none,
        &config(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the document id must be a string, got null"
    );
    // The query before the options, whether the request is read again or not.
    let bad = |_: &[&str]| Arg::Number(3.0);
    let options_error = "request options must be an object { signal? }, got 3";
    let mut last = LastRequest::default();
    let mut read = |query: &str, options: &dyn Fn(&[&str]) -> Arg| {
        let read = last.read(Target::Documents, &none, &text(query), options, &config());
        read.map(|request| request.url.clone())
            .map_err(|error| error.to_string())
    };
    let limit_error = read("limit=0", &bad).unwrap_err();
    assert!(limit_error.contains("limit"), "{limit_error}");
    assert_eq!(
        options::request(Target::Documents, &none, &text("limit=0"), &bad, &config())
            .unwrap_err()
            .to_string(),
        limit_error
    );
    assert_eq!(read("limit=5", &bad), Err(options_error.to_owned()));
    assert!(read("limit=5", &none).unwrap().ends_with("?limit=5"));
    assert_eq!(read("limit=5", &bad), Err(options_error.to_owned()));
    assert_eq!(read("limit=0", &bad), Err(limit_error));
    let error =
        options::request(Target::Asset, &id(text("..")), &Arg::Null, &none, &config()).unwrap_err();
    assert_eq!(error.to_string(), "an asset id must not be \"..\"");
    // List calls: pages and all default to 100 a page; prefetch needs a
    // cache, keeps only the variant, pages of 1000.
    let list = |call, endpoint: Arg, query: Arg, entries: &[(&str, Arg)], cached| {
        options::list(call, &id(endpoint), &query, &options_of(entries), cached)
    };
    let pages = list(
        ListCall::Pages,
        text("documents"),
        text("offset=5&locale=fr"),
        &[],
        false,
    )
    .unwrap();
    assert_eq!((pages.limit, pages.max_pages), (100, u64::MAX));
    let all = list(
        ListCall::All,
        text("documents"),
        Arg::Undefined,
        &[("maxPages", Arg::Number(3.0))],
        false,
    )
    .unwrap();
    assert_eq!(all.max_pages, 3);
    assert_eq!(
        list(
            ListCall::All,
            text("documents"),
            Arg::Undefined,
            &[("maxPages", Arg::Number(0.0))],
            false
        )
        .unwrap_err()
        .to_string(),
        "invalid maxPages 0: expected an integer from 1 to 1000000"
    );
    assert_eq!(
        list(ListCall::Pages, Arg::Undefined, Arg::Undefined, &[], false)
            .unwrap_err()
            .to_string(),
        "pages, all and prefetch need a list endpoint (documents or a collection), got the repository info"
    );
    assert_eq!(
        list(
            ListCall::Prefetch,
            text("documents"),
            Arg::Undefined,
            &[],
            false
        )
        .unwrap_err()
        .to_string(),
        "prefetch needs a client created with the `cache` option"
    );
    let prefetch = list(
        ListCall::Prefetch,
        text("documents"),
        text("limit=5&locale=fr&fields=title"),
        &[
            ("onProgress", Arg::Function),
            ("pageSize", Arg::Number(10.0)),
        ],
        true,
    )
    .unwrap();
    assert_eq!(
        (prefetch.limit, prefetch.max_pages, prefetch.progress),
        (10, 200, true)
    );
    assert_eq!(prefetch.query.to_string(), "locale=fr");
    assert_eq!(
        list(
            ListCall::Refresh,
            text("documents"),
            Arg::Undefined,
            &[("onProgress", Arg::Number(1.0))],
            true
        )
        .unwrap_err()
        .to_string(),
        "onProgress must be a function, got 1"
    );
}

#[test]
fn a_store_reads_its_query_once_and_checks_its_options() {
    let mut last = options::LastQuery::default();
    assert_eq!(last.read(&text("limit=2")).unwrap().get_limit(), Some(2));
    assert_eq!(last.read(&text("limit=2")).unwrap().get_limit(), Some(2));
    assert_eq!(last.read(&Arg::Undefined).unwrap(), &Query::new());
    assert_eq!(
        last.read(&text("limit=0")).unwrap_err().code(),
        "invalid_argument"
    );
    assert_eq!(
        options::content_type(&options_of(&[("contentType", text("post"))])).unwrap(),
        Some("post".into())
    );
    assert_eq!(
        options::content_type(&|_: &[&str]| text("x"))
            .unwrap_err()
            .to_string(),
        "query options must be an object { contentType? }, got \"x\""
    );
}

#[test]
fn a_response_is_checked_and_what_the_cache_records_is_counted() {
    let request = Request::new(&config(), Endpoint::Documents, Query::new(), Expect::List).unwrap();
    let error = request.answer(format!("<p>{KEY}</p>"), KEY).unwrap_err();
    assert_eq!(error.code(), "decode");
    assert!(!error.to_string().contains(KEY));
    let page = r#"{"data":[{"meta":{"id":"1","revision":2}}],"meta":{"total":1}}"#;
    let mut cache = Cache::new("t");
    let response = request.answer(page.to_owned(), KEY).unwrap();
    assert_eq!(response.facts, check(page, Expect::List, KEY).unwrap());
    let (change, ids) = request.plan_record(&mut cache, &response, 1.0).unwrap();
    assert_eq!(ids, Some(vec![b"1".to_vec()]));
    cache.apply(change);
    // A stale copy of the list records nothing (not even its other document).
    let stale = r#"{"data":[{"meta":{"id":"1","revision":1}},{"meta":{"id":"2","revision":1}}]}"#;
    let response = request.answer(stale.to_owned(), KEY).unwrap();
    let (change, ids) = request.plan_record(&mut cache, &response, 2.0).unwrap();
    assert!(
        change.is_empty() && ids.is_none(),
        "nothing of it is recorded"
    );
    // A stale copy of one document records nothing.
    let one = Request::new(
        &config(),
        Endpoint::Document("1".into()),
        Query::new(),
        Expect::Document,
    )
    .unwrap();
    let response = one
        .answer(r#"{"meta":{"id":"1","revision":1}}"#.to_owned(), KEY)
        .unwrap();
    let (change, ids) = one.plan_record(&mut cache, &response, 2.0).unwrap();
    assert!(change.is_empty() && ids.unwrap_or_default().is_empty());
    // What the cache answers, and how fresh it is.
    let (cached, found) = request.lookup(&mut cache, 11.0, Some(5.0));
    assert_eq!(cached, Cached::Old { age_ms: 10.0 });
    // One response held all of the list: it is complete, and answered so.
    let found: Value = serde_json::from_str(&found.unwrap().body).unwrap();
    assert_eq!(
        found["data"],
        json!([{ "meta": { "id": "1", "revision": 2 } }])
    );
    let (cached, _) = request.lookup(&mut cache, 3.0, None);
    assert_eq!(cached, Cached::Fresh { age_ms: 2.0 });
}

/// A call's flow between its steps (`Flow`, what the boundary's task
/// keeps while JavaScript awaits): attempts read as the call decides, the
/// body kept until checked, outcomes shared and raced.
#[test]
fn a_flow_keeps_a_calls_outcome_between_steps() {
    use content_repo::client::task::Flow;
    use content_repo::http::call::Call;
    use content_repo::http::retry::RetryPolicy;
    let request = Request::new(&config(), Endpoint::Documents, Query::new(), Expect::List).unwrap();
    let started = |retry: bool| Flow {
        request: Some(std::rc::Rc::new(request.clone())),
        call: Some(Call::new(RetryPolicy::default(), 10_000, retry, 0.0)),
        ..Flow::default()
    };

    // A 503 with Retry-After waits; a 200 keeps its body until checked.
    let mut flow = started(true);
    assert_eq!(
        flow.ended(503.0, Some("2"), Some(String::new()), KEY, 0.0, 0.5),
        Ok(Some(2000))
    );
    let body = r#"{"data":[{"a":1}]}"#;
    assert_eq!(
        flow.ended(200.0, None, Some(body.into()), KEY, 2000.0, 0.5),
        Ok(None)
    );
    assert_eq!(flow.body.as_deref().map(String::as_str), Some(body));
    flow.answer(KEY, 5.0, None).unwrap();
    assert_eq!(
        (flow.body.as_deref(), flow.at),
        (None, 5.0),
        "checked: taken"
    );
    assert_eq!(flow.response.as_ref().unwrap().body.as_str(), body);
    assert!(flow.response.as_ref().unwrap().crossed_whole());
    // With a cache, the answer is stamped as it arrives: after an
    // invalidation in the same millisecond.
    let mut cache = content_repo::cache::Cache::new("t");
    cache.invalidate(None, 5.0);
    let mut stamped = started(false);
    stamped.body = Some(std::rc::Rc::new(format!(
        "{{\"data\":[],\"x\":\"{}\"}}",
        '\u{FFFD}'
    )));
    stamped.answer(KEY, 5.0, Some(&cache)).unwrap();
    assert!(stamped.at > 5.0 && stamped.at < 5.01, "{}", stamped.at);
    assert!(!stamped.response.as_ref().unwrap().crossed_whole());

    // No status, or no body: a network failure (not retried here), kept,
    // without the key.
    let mut flow = started(false);
    let failed = flow.ended(0.0, Some("refused s3cr3t-key"), None, KEY, 0.0, 0.5);
    let Err(Error::Network { message }) = &failed else {
        panic!("{failed:?}")
    };
    assert!(!message.contains(KEY), "{message}");
    assert_eq!(flow.failed, failed.clone().err());
    let mut flow = started(false);
    let failed = flow.ended(200.0, Some("no body"), None, KEY, 0.0, 0.5);
    assert!(matches!(failed, Err(Error::Network { .. })), "{failed:?}");
    // An HTTP error that is not retried: the status, kept.
    let mut flow = started(true);
    let failed = flow.ended(404.0, None, Some("{}".into()), KEY, 0.0, 0.5);
    assert!(
        matches!(failed, Err(Error::Http { status: 404, .. })),
        "{failed:?}"
    );
    // A body that is not the list promised: a decode error, kept.
    let mut flow = started(true);
    flow.ended(200.0, None, Some("[]".into()), KEY, 0.0, 0.5)
        .unwrap();
    let failed = flow.answer(KEY, 1.0, None);
    assert!(matches!(failed, Err(Error::Decode { .. })), "{failed:?}");
    assert_eq!(flow.failed, failed.err());

    // Stopped from outside: by the caller, else by the deadline.
    assert_eq!(started(true).stopped(true), Error::Aborted);
    let mut flow = started(true);
    assert_eq!(flow.stopped(false), Error::Timeout { ms: 10_000 });
    assert_eq!(flow.failed, Some(Error::Timeout { ms: 10_000 }));
    assert_eq!(
        Flow::default().stopped(false),
        Error::Aborted,
        "no call yet: aborted"
    );

    // A flow that shared another's GET adopts its outcome, body or failure.
    let mut owner = started(true);
    owner
        .ended(200.0, None, Some(body.into()), KEY, 0.0, 0.5)
        .unwrap();
    let mut sharer = Flow {
        request: Some(std::rc::Rc::new(request.clone())),
        ..Flow::default()
    };
    sharer.adopt(&owner);
    // The same text, not a copy (a thousand callers of one list hold it
    // once in the module's memory).
    assert!(std::rc::Rc::ptr_eq(
        sharer.body.as_ref().unwrap(),
        owner.body.as_ref().unwrap()
    ));
    sharer.answer(KEY, 1.0, None).unwrap();
    owner.answer(KEY, 1.0, None).unwrap();
    assert_eq!(sharer.response, owner.response);
    assert!(std::rc::Rc::ptr_eq(
        &sharer.response.as_ref().unwrap().body,
        &owner.response.as_ref().unwrap().body
    ));
    assert_eq!(sharer.adopt(&owner), None, "not cut short");
    let mut owner = started(false);
    let _ = owner.stopped(true);
    assert_eq!(sharer.adopt(&owner), None);
    assert_eq!(
        (sharer.body.as_deref(), sharer.failed.clone()),
        (None, Some(Error::Aborted))
    );
    // A 503 whose Retry-After ends past the owner's deadline (10 s): the
    // owner fails with it, and the sharer learns when the retry was due.
    let mut owner = started(true);
    let busy = owner.ended(503.0, Some("9"), Some(String::new()), KEY, 2_000.0, 0.5);
    assert!(matches!(busy, Err(Error::Http { status: 503, .. })));
    assert_eq!(sharer.adopt(&owner), Some(11_000.0));
    assert!(matches!(
        sharer.failed,
        Some(Error::Http { status: 503, .. })
    ));

    // The race of network-first's networkTimeoutMs, with a cached answer:
    // the network's answer when it settled first, the cache's when not, the
    // cache's (stale) when the network failed.
    let fresh = Cached::Fresh { age_ms: 1.0 };
    let raced = |fork: &mut Flow, settled: bool| {
        let mut main = Flow {
            course: Some(course(Policy::NetworkFirst, fresh.clone(), true)),
            ..Flow::default()
        };
        main.after(fork, settled).map(|()| main.response.unwrap())
    };
    let mut fork = Flow {
        response: Some(network()),
        ..Flow::default()
    };
    assert_eq!(raced(&mut fork, true).unwrap().source, Source::Network);
    let mut fork = Flow {
        response: Some(network()),
        ..Flow::default()
    };
    let late = raced(&mut fork, false).unwrap();
    assert_eq!((late.source, late.stale), (Source::Cache, true));
    assert!(
        fork.response.is_some(),
        "a fork that lost the race keeps its answer (to record)"
    );
    let mut fork = Flow {
        failed: Some(down()),
        ..Flow::default()
    };
    assert_eq!(raced(&mut fork, true).unwrap().source, Source::Cache);
    // Without a cached answer, the network's failure is the answer.
    let mut main = Flow {
        course: Some(course(Policy::NetworkFirst, not_cached(), true)),
        ..Flow::default()
    };
    let mut fork = Flow {
        failed: Some(Error::Http {
            status: 404,
            message: None,
        }),
        ..Flow::default()
    };
    assert_eq!(
        main.after(&mut fork, true),
        Err(Error::Http {
            status: 404,
            message: None
        })
    );
}

/// A document listed by the sweep but deleted before the refresh asked for
/// it by id makes the refresh fail (`not_cached`) and leaves the list as it
/// was (never a total above its documents); the next refresh, which no
/// longer sees it, succeeds.
#[test]
fn a_document_deleted_between_the_sweep_and_its_fetch_fails_the_refresh() {
    let mut service = Service::new(docs(5));
    let mut cache = Cache::new("t");
    let mut prefetch = Pager::new(ListCall::Prefetch, args(Query::new(), 10, 100));
    drive(&mut prefetch, &service, &mut cache, 10.0).0.unwrap();
    // New, with an `updatedAt` before the newest cached one: found by the
    // sweep, then fetched by id.
    let mut added = docs(1).remove(0);
    added["meta"]["id"] = json!("900");
    added["meta"]["updatedAt"] = json!("2024-01-01T00:00:00.000Z");
    service.docs.push(added);
    let (endpoint, query) = complete_lists(&cache)[0].clone();
    let mut refresh = Refresh::start(&cache, endpoint.clone(), query.clone()).unwrap();
    let (config, mut by_id) = (config(), 0);
    let failed = loop {
        match refresh.step(&config).unwrap() {
            Step::Fetch { request, .. } => {
                if request.url.contains("meta.id") {
                    by_id += 1;
                    service.docs.retain(|doc| meta(doc, "id") != "900");
                }
                let mut page = request.answer(service.get(&request.url), KEY).unwrap();
                let at = cache.stamp(20.0);
                refresh.receive(Some(&mut cache), &mut page, at).unwrap();
            }
            Step::Write => break refresh.write(&cache).unwrap_err(),
            Step::Done(done) => panic!("the refresh ended: {done:?}"),
        }
    };
    assert_eq!(by_id, 1, "the new document was asked for by id");
    assert_eq!(failed.code(), "not_cached", "{failed}");
    assert_eq!(list_keys(&mut cache).len(), 5);
    let mut refresh = Refresh::start(&cache, endpoint, query).unwrap();
    let (done, _) = drive(&mut refresh, &service, &mut cache, 30.0);
    assert_eq!(
        done.unwrap(),
        Done::Refreshed {
            changed: 0,
            deleted: 0,
            total: 5
        }
    );
}

/// The sweep reads up to `MAX_PAGES` pages' worth of ids (1,000,000),
/// whether its pages carry `meta.total` or not: its pages after the first
/// overlap by one id, so a list of a million ids takes one page more than
/// the limit counts, and without a total one more to see it end. Before,
/// the limit counted requests, and a list of 999,001 to 1,000,000 ids failed
/// with `invalid_argument`. A list one id longer still fails.
#[test]
fn the_sweep_reads_a_million_ids() {
    use content_repo::cache::refresh::{MAX_PAGES, PAGE};
    let limit = MAX_PAGES as usize * PAGE as usize;
    let cases = [
        (limit, true, true),
        (limit + 1, false, true),
        (limit, true, false),
        (limit + 1, false, false),
    ];
    for (count, reads, with_total) in cases {
        let (_, mut cache) = prefetched(5);
        let (endpoint, query) = complete_lists(&cache)[0].clone();
        let mut refresh = Refresh::start(&cache, endpoint, query).unwrap();
        let config = config();
        let mut sweeps = 0;
        let outcome = loop {
            let request = match refresh.step(&config) {
                Ok(Step::Fetch { request, .. }) => request,
                Ok(_) => break Ok(()),
                Err(error) => break Err(error),
            };
            let url = request.url.clone();
            let (offset, limit) = (query_number(&url, "offset"), query_number(&url, "limit"));
            let body = if url.contains("fields=meta") {
                sweeps += 1;
                let ids = offset..(offset + limit).min(count);
                let data: Vec<String> = ids
                    .map(|i| format!(r#"{{"meta":{{"id":"s{i}","revision":1}}}}"#))
                    .collect();
                let total = with_total.then(|| format!(r#","total":{count}"#));
                let meta = format!(r#""count":{},"offset":{offset}"#, data.len());
                let meta = meta + &total.unwrap_or_default();
                format!(r#"{{"data":[{}],"meta":{{{meta}}}}}"#, data.join(","))
            } else if url.contains("updatedAt") {
                r#"{"data":[]}"#.to_owned()
            } else {
                // The sweep ended: the documents it found new are asked by id.
                break Ok(());
            };
            let mut page = request.answer(body, KEY).unwrap();
            let at = cache.stamp(20.0);
            if let Err(error) = refresh.receive(Some(&mut cache), &mut page, at) {
                break Err(error);
            }
        };
        let case = format!("{count} ids, total: {with_total}");
        match outcome {
            Ok(()) => {
                assert!(reads, "{case}");
                // Without a total, the page after the last full one ends it.
                let pages = MAX_PAGES as usize + 1 + usize::from(!with_total);
                assert_eq!(sweeps, pages, "{case}");
            }
            Err(error) => {
                assert!(!reads, "{case}: {error}");
                assert_eq!(error.code(), "invalid_argument", "{error}");
            }
        }
    }
}

/// The number of the query parameter `name` in `url`.
fn query_number(url: &str, name: &str) -> usize {
    let value = url
        .split(['?', '&'])
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")));
    value.map_or(0, |value| value.parse().unwrap())
}

/// A row of the sweep without an id is not a document the list no longer
/// holds: the refresh rejects with `decode` and changes nothing (before, it
/// deleted the cached document the service still listed).
#[test]
fn a_sweep_row_without_an_id_fails_the_refresh_and_deletes_nothing() {
    let (mut service, mut cache) = prefetched(5);
    let before = all_keys(&mut cache);
    let result = refresh_changing(&mut service, &mut cache, |url, service| {
        if url.contains("fields=meta") {
            service.docs[2]["meta"]["id"] = Value::Null;
        }
    });
    let error = result.unwrap_err();
    assert_eq!(error.code(), "decode", "{error}");
    assert_eq!(all_keys(&mut cache), before);
}

/// A prefetch records a list as complete only when it read it whole and
/// unchanged: a page the cache cannot record (a document without an id)
/// fails it with that page's `decode` error (before, a list of such rows
/// was recorded complete and empty); a list with an id twice, or whose
/// `meta.total` moved between its pages (a document deleted or added
/// meanwhile, so one was read twice or not at all), is not recorded
/// (`not_cached`), never a list the service did not have.
#[test]
fn a_prefetch_records_only_a_list_it_read_whole_and_unchanged() {
    type Edit = fn(&mut Vec<Value>);
    let cases: [(&str, Edit, bool, &str); 5] = [
        (
            "no id",
            |docs| docs[1]["meta"]["id"] = Value::Null,
            false,
            "decode",
        ),
        (
            "no meta",
            |docs| docs[0] = json!({ "fields": {} }),
            false,
            "decode",
        ),
        (
            "an id twice",
            |docs| docs[4] = docs[1].clone(),
            false,
            "not_cached",
        ),
        (
            "deleted at the head",
            |docs| drop(docs.remove(0)),
            true,
            "not_cached",
        ),
        (
            "added at the head",
            |docs| docs.insert(0, docs[3].clone()),
            true,
            "not_cached",
        ),
    ];
    for (case, edit, between_pages, code) in cases {
        let mut service = Service::new(docs(6));
        if !between_pages {
            edit(&mut service.docs);
        }
        let mut cache = Cache::new("t");
        let mut prefetch = Pager::new(ListCall::Prefetch, args(Query::new(), 2, 100));
        let result = drive_changing(&mut prefetch, &mut service, &mut cache, |url, service| {
            if between_pages && url.contains("offset=2") {
                edit(&mut service.docs);
            }
        });
        let error = result.unwrap_err();
        assert_eq!(error.code(), code, "{case}: {error}");
        assert!(complete_lists(&cache).is_empty(), "{case}");
    }
    // Unchanged: complete, also when some pages carry no total (they say
    // nothing of a change).
    for totals in [[true; 3], [true, false, false], [false, true, true]] {
        let mut service = Service::new(docs(6));
        let mut cache = Cache::new("t");
        let mut prefetch = Pager::new(ListCall::Prefetch, args(Query::new(), 2, 100));
        let mut page = 0;
        let done = drive_changing(&mut prefetch, &mut service, &mut cache, |_, service| {
            service.total = totals.get(page).copied().unwrap_or(false);
            page += 1;
        });
        let done = done.unwrap();
        assert!(
            matches!(done, Done::Prefetched { loaded: 6, .. }),
            "{totals:?}: {done:?}"
        );
        assert_eq!(complete_lists(&cache).len(), 1, "{totals:?}");
    }
}

/// One response that lists an id twice does not make its list complete:
/// the cache holds one document an id, and would answer one fewer.
#[test]
fn a_list_with_an_id_twice_is_not_complete() {
    let mut listed = docs(3);
    listed[2] = listed[0].clone();
    let mut service = Service::new(listed);
    let mut cache = Cache::new("t");
    let mut all = Pager::new(ListCall::Prefetch, args(Query::new(), 1000, 100));
    let error = drive_changing(&mut all, &mut service, &mut cache, |_, _| {}).unwrap_err();
    assert_eq!(error.code(), "not_cached", "{error}");
    let posts = Endpoint::Collection("posts".into());
    let request = Request::new(&config(), posts, Query::new(), Expect::List).unwrap();
    let page = request.answer(service.get(&request.url), KEY).unwrap();
    let (change, _) = request.plan_record(&mut cache, &page, 30.0).unwrap();
    cache.apply(change);
    assert!(complete_lists(&cache).is_empty());
}

/// A document changed again between the refresh's delta page and its sweep:
/// the sweep lists a newer revision than the one the delta fetched, which
/// is then fetched by id. Before, an id the delta had fetched was never
/// fetched again, and the cache kept the older revision until the next
/// refresh.
#[test]
fn a_revision_newer_than_the_delta_fetched_is_fetched_by_id() {
    let (mut service, mut cache) = prefetched(5);
    let edit = |doc: &mut Value, revision: u64| {
        doc["meta"]["revision"] = json!(revision);
        doc["meta"]["updatedAt"] = json!("2024-03-01T00:00:00.000Z");
        doc["fields"]["title"] = json!(format!("v{revision}"));
    };
    edit(&mut service.docs[2], 2);
    let mut requests = Vec::new();
    let done = refresh_changing(&mut service, &mut cache, |url, service| {
        requests.push(url.to_owned());
        if url.contains("fields=meta") && service.docs[2]["meta"]["revision"] == json!(2) {
            edit(&mut service.docs[2], 3);
        }
    })
    .unwrap();
    assert_eq!(all_keys(&mut cache)["3"], 3, "{requests:#?}");
    assert!(
        matches!(done, Done::Refreshed { changed: 1, .. }),
        "{done:?}"
    );
}

/// A member of a complete list replaced by a newer revision fetched with a
/// narrower selection (a list view asking for a few fields) is fetched
/// again, whole, by the next refresh, although neither its `updatedAt` nor
/// its revision is newer than what is cached: the list answers its queries
/// again. A list prefetched with a selection keeps members fetched with it.
/// Before, the list stayed `not_cached` for every query needing another
/// field, refresh after refresh.
#[test]
fn a_refresh_fetches_again_a_member_cached_narrower_than_its_list() {
    use content_repo::cache::Kind;
    use std::rc::Rc;
    for prefetch_fields in [None, Some("title,n")] {
        let sorted = || {
            let mut query = Query::new();
            query
                .sort("fields.n", content_repo::query::sort::Direction::Desc)
                .unwrap();
            if let Some(fields) = prefetch_fields {
                query.fields(fields).unwrap();
            }
            query
        };
        let mut query = Query::new();
        if let Some(fields) = prefetch_fields {
            query.fields(fields).unwrap();
        }
        let mut service = Service::new(docs(5));
        let mut cache = Cache::new("t");
        let mut prefetch = Pager::new(ListCall::Prefetch, args(query, 1000, 100));
        drive(&mut prefetch, &service, &mut cache, 10.0).0.unwrap();
        // The third document changes; a response with its title alone brings it.
        service.docs[2]["meta"]["revision"] = json!(2);
        service.docs[2]["fields"]["title"] = json!("v2");
        let mut narrow = Query::new();
        narrow.fields("title").unwrap().limit(1).unwrap();
        let text = json!({ "data": [service.docs[2].clone()], "meta": { "total": 5 } });
        let at = cache.stamp(30.0);
        let posts = Endpoint::Collection("posts".into());
        let change = cache
            .plan_response(
                None,
                &posts,
                &narrow,
                Kind::List,
                Rc::new(text.to_string()),
                at,
            )
            .unwrap();
        cache.apply(change);
        let before = cache.answer_list("-", &posts, &sorted());
        assert_eq!(before.unwrap_err().code(), "not_cached");
        let mut requests = Vec::new();
        refresh_changing(&mut service, &mut cache, |url, _| {
            requests.push(url.to_owned())
        })
        .unwrap();
        let fetched_by_id = requests
            .iter()
            .filter(|url| url.contains("meta.id"))
            .count();
        let answer = cache.answer_list("-", &posts, &sorted());
        match prefetch_fields {
            None => {
                let body: Value = serde_json::from_str(&answer.unwrap().body).unwrap();
                assert_eq!(body["data"][2]["fields"]["title"], "v2");
                assert_eq!(fetched_by_id, 1, "{requests:#?}");
            }
            // Its members hold `title` and `n`: what they were fetched with.
            Some(_) => {
                let body: Value = serde_json::from_str(&answer.unwrap().body).unwrap();
                assert_eq!(body["data"][2]["fields"], json!({ "n": 3, "title": "v2" }));
                assert_eq!(fetched_by_id, 1, "{requests:#?}");
            }
        }
    }
}
