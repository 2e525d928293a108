//! The offline cache's rules, natively: the store per variant, revisions
//! and stale responses, completeness, coverage, persistence round trips,
//! two tabs on one storage, eviction.
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

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[path = "common/harness.rs"]
mod harness;
#[path = "common/value_api.rs"]
mod value_api;

use std::collections::BTreeMap;
use std::rc::Rc;

use content_repo::cache::{
    endpoint_key, variant_key, Cache, Change, Kind, Swept, FORGET_DELETIONS_MS,
};
use content_repo::{Direction, Endpoint, Query};
use proptest::prelude::*;
use serde_json::{json, Value};
use value_api::apply_query;

const URL: &str = "https://cms.example.com/v1/demo/collections/posts";

fn doc(id: u32, revision: u64, title: &str, created: &str) -> Value {
    json!({
        "fields": { "title": title, "price": id * 10, "author": { "name": format!("a{id}"), "email": "x" } },
        "meta": { "id": format!("{id:018}"), "revision": revision, "createdAt": created, "contentType": "post" }
    })
}

fn list(docs: Vec<Value>, total: usize) -> Value {
    json!({ "data": docs, "meta": { "count": docs.len(), "limit": 25, "offset": 0, "total": total } })
}

fn posts() -> Endpoint {
    Endpoint::Collection("posts".into())
}

/// A storage: entries by key, written all or nothing.
#[derive(Default)]
struct Storage {
    entries: BTreeMap<String, String>,
}

impl Storage {
    fn write(&mut self, change: &Change) {
        for key in change.deletes() {
            self.entries.remove(key);
        }
        for (key, text) in change.puts() {
            self.entries.insert(key.clone(), text.text().into_owned());
        }
    }

    fn load(&self, session: &str) -> Cache {
        let mut cache = Cache::new(session);
        let (errors, _) = cache.load(self.entries.clone().into_iter().collect());
        assert!(errors.is_empty(), "{errors:?}");
        cache
    }

    fn chars(&self) -> usize {
        self.entries.iter().map(|(k, v)| k.len() + v.len()).sum()
    }
}

/// Records a response as the boundary does: stamp as it arrives (at 1000 ms),
/// plan, write, apply, collect.
/// Records a newer revision of the second post with `narrow`'s selection,
/// as one page of a longer listing (it makes no list complete).
fn record_newer_narrow(cache: &mut Cache, storage: &mut Storage, narrow: &Query) {
    let newer = doc(2, 2, "a2", "2024-01-02T00:00:00.000Z");
    let page = list(vec![newer], 3);
    record(
        cache,
        storage,
        "narrow",
        &posts(),
        narrow,
        Kind::List,
        &page,
    );
}

fn record(
    cache: &mut Cache,
    storage: &mut Storage,
    url: &str,
    endpoint: &Endpoint,
    query: &Query,
    kind: Kind,
    body: &Value,
) {
    let arrived = cache.stamp(1000.0);
    let change = cache
        .plan_response(
            Some(url),
            endpoint,
            query,
            kind,
            Rc::new(body.to_string()),
            arrived,
        )
        .unwrap();
    commit(cache, storage, change);
}

/// Records the response `text` for `url`, received at `arrived`: plan,
/// write, apply, collect.
#[allow(clippy::too_many_arguments)]
fn record_at(
    cache: &mut Cache,
    storage: &mut Storage,
    url: &str,
    endpoint: &Endpoint,
    query: &Query,
    kind: Kind,
    text: Rc<String>,
    arrived: f64,
) {
    let change = cache.plan_response(Some(url), endpoint, query, kind, text, arrived);
    commit(cache, storage, change.unwrap());
}

/// Writes `change` as the boundary does: write, apply, collect.
fn commit(cache: &mut Cache, storage: &mut Storage, change: Change) {
    storage.write(&change);
    cache.apply(change);
    let collect = cache.plan_collect();
    storage.write(&collect);
    cache.apply(collect);
}

/// Plans recording the list of [`three`] at `URL`, received at `at`.
fn plan_three(cache: &mut Cache, at: f64) -> Change {
    let text = Rc::new(list(three(), 3).to_string());
    let change = cache.plan_response(Some(URL), &posts(), &Query::new(), Kind::List, text, at);
    change.unwrap()
}

/// Plans the end of a refresh of `posts` (`changes`: what it fetched, `swept`:
/// the service's list), writes and applies it; the counts.
fn refresh_posts(
    cache: &mut Cache,
    storage: &mut Storage,
    changes: Change,
    swept: &[Swept],
    at: f64,
) -> (usize, usize, usize) {
    let refresh = cache.plan_refresh(&posts(), &Query::new(), changes, swept, at);
    let (change, counts) = refresh.unwrap();
    storage.write(&change);
    cache.apply(change);
    counts
}

/// Records the list of [`three`] at `URL`: complete.
fn record_three(cache: &mut Cache, storage: &mut Storage) {
    record_whole(cache, storage, three());
}

/// Records the whole list of posts `docs` at `URL`: complete.
fn record_whole(cache: &mut Cache, storage: &mut Storage, docs: Vec<Value>) {
    let total = docs.len();
    record(
        cache,
        storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &list(docs, total),
    );
}

/// A refresh of posts at 2000 whose sweep lists the first two of [`three`]:
/// it deletes the third.
fn delete_third(cache: &mut Cache, storage: &mut Storage) {
    let counts = refresh_posts(
        cache,
        storage,
        Change::default(),
        &swept(&three()[..2]),
        2000.0,
    );
    assert_eq!(counts.1, 1, "one deleted");
}

/// What a refresh's sweep lists for `docs`: their ids, no revisions.
fn swept(docs: &[Value]) -> Vec<Swept> {
    let id = |doc: &Value| doc["meta"]["id"].as_str().unwrap().as_bytes().to_vec();
    docs.iter().map(|doc| (id(doc), None)).collect()
}

fn body(answer: &content_repo::cache::Answer) -> Value {
    serde_json::from_str(&answer.body).unwrap()
}

fn three() -> Vec<Value> {
    vec![
        doc(1, 1, "b", "2024-01-01T00:00:00.000Z"),
        doc(2, 1, "a", "2024-01-02T00:00:00.000Z"),
        doc(3, 1, "c", "2024-01-03T00:00:00.000Z"),
    ]
}

#[test]
fn a_complete_list_answers_re_sorted_and_re_projected_queries() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    assert_eq!(cache.size(), 3);
    let mut query = Query::new();
    query
        .sort("fields.title", Direction::Asc)
        .unwrap()
        .fields("title,author/name")
        .unwrap()
        .limit(2)
        .unwrap();
    let answer = cache
        .answer_list(&format!("{URL}?{query}"), &posts(), &query)
        .unwrap();
    assert_eq!(
        body(&answer),
        apply_query(&list(three(), 3), &query).unwrap()
    );
    assert_eq!(
        body(&answer)["data"][0]["fields"],
        json!({ "title": "a", "author": { "name": "a2" } })
    );
    // No limit: the service's default page size, like the service.
    let all = body(&cache.answer_list("other", &posts(), &Query::new()).unwrap());
    assert_eq!(all["meta"]["limit"], 25);
    assert_eq!(all["meta"]["total"], 3);
    // Raw and typed forms of an endpoint share the cache key.
    assert_eq!(
        endpoint_key(&Endpoint::raw("collections/posts").unwrap()),
        endpoint_key(&posts())
    );
    // Each received byte is kept once: the stored text is the response.
    let received = list(three(), 3).to_string().len();
    assert_eq!(cache.bytes(), received);
    assert!(
        storage.chars() < received + 600,
        "{} vs {received}",
        storage.chars()
    );
}

#[test]
fn an_incomplete_list_answers_only_its_exact_url() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut first_page = Query::new();
    first_page.limit(2).unwrap();
    let url = format!("{URL}?limit=2");
    record(
        &mut cache,
        &mut storage,
        &url,
        &posts(),
        &first_page,
        Kind::List,
        &list(three()[..2].to_vec(), 3),
    );
    let mut resorted = Query::new();
    resorted
        .sort("fields.title", Direction::Desc)
        .unwrap()
        .limit(2)
        .unwrap();
    let error = cache.answer_list("x", &posts(), &resorted).unwrap_err();
    assert_eq!(error.code(), "not_cached");
    assert!(error.to_string().contains("not complete"), "{error}");
    // The exact URL it was fetched with answers, as received.
    let exact = cache.answer_list(&url, &posts(), &first_page).unwrap();
    assert_eq!(body(&exact), list(three()[..2].to_vec(), 3));
}

#[test]
fn projected_documents_cannot_answer_a_wider_selection_or_unselected_sort_keys() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut query = Query::new();
    query.fields("title,meta(id,createdAt)").unwrap();
    let projected: Vec<Value> = three()
        .iter()
        .map(|d| json!({ "fields": { "title": d["fields"]["title"] }, "meta": { "id": d["meta"]["id"], "createdAt": d["meta"]["createdAt"] } }))
        .collect();
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &query,
        Kind::List,
        &list(projected, 3),
    );
    // The same or a narrower selection, sorted by a covered key: answered.
    let mut narrower = Query::new();
    narrower
        .fields("title,meta(id,createdAt)")
        .unwrap()
        .sort("fields.title", Direction::Asc)
        .unwrap();
    let answer = body(&cache.answer_list("x", &posts(), &narrower).unwrap());
    assert_eq!(answer["data"][0]["fields"]["title"], "a");
    // A wider selection, or a sort key that was not fetched: not_cached.
    for (selection, sort) in [
        ("title,author/name", None),
        ("title,meta(id,createdAt)", Some("fields.price")),
    ] {
        let mut wider = Query::new();
        wider.fields(selection).unwrap();
        if let Some(key) = sort {
            wider.sort(key, Direction::Asc).unwrap();
        }
        let error = cache.answer_list("x", &posts(), &wider).unwrap_err();
        assert_eq!(error.code(), "not_cached", "{selection} {sort:?}");
    }
}

/// A list fetched with a selection of `fields` only (meta whole) answers
/// that selection in the default order and by any meta key; without the
/// default order's meta keys (which end every order) it answers none.
#[test]
fn a_list_fetched_with_a_fields_selection_answers_the_default_order() {
    for (fetched, answers) in [("title", true), ("title,meta(id)", false)] {
        let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
        let mut query = Query::new();
        query.fields(fetched).unwrap();
        let docs = value_api::apply_query(&list(three(), 3), &query).unwrap();
        record(
            &mut cache,
            &mut storage,
            URL,
            &posts(),
            &query,
            Kind::List,
            &docs,
        );
        let sorted = |key: Option<&str>| {
            let mut asked = query.clone();
            asked.limit(2).unwrap();
            if let Some(key) = key {
                asked.sort(key, Direction::Asc).unwrap();
            }
            asked
        };
        for asked in [
            sorted(None),
            sorted(Some("meta.createdAt")),
            sorted(Some("fields.title")),
        ] {
            let answer = cache.answer_list("x", &posts(), &asked);
            // The reference: the query over the whole documents.
            let expected = value_api::apply_query(&list(three(), 3), &asked).unwrap();
            match answer {
                Ok(answer) => assert_eq!(body(&answer), expected, "{fetched}: {asked}"),
                // Every order ends with the default one (meta.createdAt).
                Err(error) => {
                    assert!(!answers, "{fetched}: {asked}: {error}");
                    assert_eq!(error.code(), "not_cached");
                }
            }
        }
    }
}

/// The titles of the cached posts of `query`'s variant, sorted by title.
fn sorted_titles(cache: &mut Cache, query: &Query, direction: Direction) -> Vec<String> {
    let mut sorted = query.clone();
    sorted.sort("fields.title", direction).unwrap();
    let answer = body(&cache.answer_list("x", &posts(), &sorted).unwrap());
    let docs = answer["data"].as_array().unwrap().iter();
    docs.map(|d| d["fields"]["title"].as_str().unwrap().to_owned())
        .collect()
}

/// `docs` with only their `title` field, as `fields=title` returns them.
fn titles(docs: &[Value]) -> Vec<Value> {
    let title = |doc: &Value| {
        let mut doc = doc.clone();
        doc["fields"] = json!({ "title": doc["fields"]["title"] });
        doc
    };
    docs.iter().map(title).collect()
}

/// The exact response of a URL never answers once the cache knows newer of
/// one of its documents: a page holding a document a refresh deleted, a
/// document whose newer revision a list with a narrower selection brought
/// (the store's copy cannot answer the whole document). Before, both were
/// served, in memory and after a reload.
#[test]
fn an_exact_response_with_a_deleted_or_older_document_does_not_answer() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut page = Query::new();
    page.limit(2).unwrap();
    let page_url = format!("{URL}?limit=2");
    let first_two = json!({ "data": [three()[2], three()[1]], "meta": { "count": 2, "limit": 2, "offset": 0, "total": 3 } });
    record(
        &mut cache,
        &mut storage,
        &page_url,
        &posts(),
        &page,
        Kind::List,
        &first_two,
    );
    let one = Endpoint::Document(format!("{:018}", 1));
    record(
        &mut cache,
        &mut storage,
        "doc-url",
        &one,
        &Query::new(),
        Kind::Document,
        &three()[0],
    );
    // Before anything newer: both exact responses answer.
    assert_eq!(
        body(&cache.answer_list(&page_url, &posts(), &page).unwrap()),
        first_two
    );
    assert_eq!(
        body(&cache.answer_single("doc-url", &one, &Query::new()).unwrap()),
        three()[0]
    );
    // The list with `title` only: document 1 at revision 2, then a refresh
    // that no longer lists document 3.
    let mut title = Query::new();
    title.fields("title").unwrap();
    let mut newer = three();
    newer[0]["meta"]["revision"] = json!(2);
    let text = Rc::new(list(titles(&newer), 3).to_string());
    let at = cache.stamp(1500.0);
    record_at(
        &mut cache,
        &mut storage,
        "titles",
        &posts(),
        &title,
        Kind::List,
        text,
        at,
    );
    let (change, counts) = cache
        .plan_refresh(
            &posts(),
            &title,
            Change::default(),
            &swept(&newer[..2]),
            2000.0,
        )
        .unwrap();
    storage.write(&change);
    cache.apply(change);
    assert_eq!(counts, (0, 1, 2));
    for (name, mut cache) in [("memory", cache), ("reload", storage.load("r"))] {
        let error = cache.answer_list(&page_url, &posts(), &page).unwrap_err();
        assert_eq!(error.code(), "not_cached", "{name}");
        let error = cache
            .answer_single("doc-url", &one, &Query::new())
            .unwrap_err();
        assert_eq!(error.code(), "not_cached", "{name}");
        // What the cache holds still answers.
        let answer = body(&cache.answer_single("x", &one, &title).unwrap());
        assert_eq!(answer["meta"]["revision"], 2, "{name}");
    }
}

#[test]
fn a_lower_revision_never_replaces_a_higher_one_and_a_stale_response_changes_nothing() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let newer = [doc(1, 5, "new", "2024-01-01T00:00:00.000Z")];
    let one = Endpoint::Document(format!("{:018}", 1));
    record(
        &mut cache,
        &mut storage,
        "u1",
        &one,
        &Query::new(),
        Kind::Document,
        &newer[0],
    );
    let before = storage.entries.clone();
    // A late response with an older revision plans nothing at all, not
    // even its other documents: its text would bring the older one back
    // at a reload once the newer one is evicted.
    let change = plan_three(&mut cache, 2000.0);
    assert!(change.is_empty());
    cache.apply(change);
    assert_eq!(storage.entries, before);
    let answer = body(&cache.answer_single("other", &one, &Query::new()).unwrap());
    assert_eq!(answer["fields"]["title"], "new");
    let two = Endpoint::Document(format!("{:018}", 2));
    assert!(cache.answer_single("other", &two, &Query::new()).is_err());
}

#[test]
fn variants_are_kept_apart_and_never_evict_each_other() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut german = Query::new();
    german.locale("de").unwrap();
    let de: Vec<Value> = three()
        .into_iter()
        .map(|mut d| {
            d["fields"]["title"] =
                json!(format!("[de] {}", d["fields"]["title"].as_str().unwrap()));
            d
        })
        .collect();
    record_three(&mut cache, &mut storage);
    record(
        &mut cache,
        &mut storage,
        &format!("{URL}?locale=de"),
        &posts(),
        &german,
        Kind::List,
        &list(de, 3),
    );
    for (query, prefix) in [(Query::new(), ""), (german.clone(), "[de] ")] {
        assert_eq!(
            sorted_titles(&mut cache, &query, Direction::Asc),
            [
                format!("{prefix}a"),
                format!("{prefix}b"),
                format!("{prefix}c")
            ]
        );
        let one = Endpoint::Document(format!("{:018}", 2));
        let single = body(&cache.answer_single("y", &one, &query).unwrap());
        assert_eq!(single["fields"]["title"], format!("{prefix}a"));
    }
    // A third variant was never fetched: not_cached, never another's documents.
    let mut french = Query::new();
    french.locale("fr").unwrap();
    assert_eq!(
        cache
            .answer_list("z", &posts(), &french)
            .unwrap_err()
            .code(),
        "not_cached"
    );
    // Both survive a reload.
    let mut reloaded = storage.load("u");
    assert_eq!(reloaded.size(), 6);
    assert!(reloaded.answer_list("x", &posts(), &german).is_ok());
}

#[test]
fn single_documents_and_aliases() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let alias = Endpoint::Alias("home".into());
    record(
        &mut cache,
        &mut storage,
        "alias-url",
        &alias,
        &Query::new(),
        Kind::Document,
        &doc(7, 1, "home", "2024-01-01T00:00:00Z"),
    );
    let mut query = Query::new();
    query.fields("title").unwrap();
    let answer = body(&cache.answer_single("other-url", &alias, &query).unwrap());
    assert_eq!(answer["fields"], json!({ "title": "home" }));
    let by_id = Endpoint::Document(format!("{:018}", 7));
    assert!(cache.answer_single("x", &by_id, &Query::new()).is_ok());
    assert_eq!(
        cache
            .answer_single("x", &Endpoint::Document("8".into()), &Query::new())
            .unwrap_err()
            .code(),
        "not_cached"
    );
}

/// An alias fetched before answers after a reload as in memory: by the
/// document it names (any covered selection, its newest revision), not
/// only by its own URL. Before, the alias was forgotten at a reload.
#[test]
fn an_alias_answers_by_its_document_after_a_reload() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let alias = Endpoint::Alias("home page".into());
    record(
        &mut cache,
        &mut storage,
        "alias-url",
        &alias,
        &Query::new(),
        Kind::Document,
        &doc(7, 1, "home", "2024-01-01T00:00:00Z"),
    );
    // A newer revision of its document, from another response.
    record(
        &mut cache,
        &mut storage,
        "doc-url",
        &Endpoint::Document(format!("{:018}", 7)),
        &Query::new(),
        Kind::Document,
        &doc(7, 2, "home v2", "2024-01-01T00:00:00Z"),
    );
    let mut query = Query::new();
    query.fields("title").unwrap();
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        for url in ["other-url", "alias-url"] {
            let answer = cache.answer_single(url, &alias, &query);
            let answer = body(&answer.unwrap_or_else(|e| panic!("{name}: {e}")));
            assert_eq!(answer["fields"], json!({ "title": "home v2" }), "{name}");
            assert_eq!(answer["meta"]["revision"], 2, "{name}");
        }
    }
}

#[test]
fn filters_search_and_tags_are_answered_only_for_the_exact_url() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let mut search = Query::new();
    search.search("b").unwrap();
    assert_eq!(
        cache
            .answer_list("x", &posts(), &search)
            .unwrap_err()
            .code(),
        "not_cached"
    );
    let url = format!("{URL}?search=b");
    record(
        &mut cache,
        &mut storage,
        &url,
        &posts(),
        &search,
        Kind::List,
        &list(three()[..1].to_vec(), 1),
    );
    assert_eq!(
        body(&cache.answer_list(&url, &posts(), &search).unwrap())["data"][0]["fields"]["title"],
        "b"
    );
}

#[test]
fn stored_entries_load_back_and_corrupt_ones_are_skipped() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let mut sorted = Query::new();
    sorted.sort("fields.price", Direction::Desc).unwrap();
    let expected = cache.answer_list("q", &posts(), &sorted).unwrap().body;
    let mut entries: Vec<(String, String)> = storage.entries.clone().into_iter().collect();
    entries.push(("s:x:1".into(), "not a header\n{}".into()));
    entries.push((
        "s:x:2".into(),
        r#"{"v":2,"url":"u","variant":"","endpoint":"e","kind":"list","fetchedAt":1,"seq":9}"#
            .to_owned()
            + "\n{\"data\": [tru",
    ));
    entries.push(("response:old".into(), "{}".into()));
    entries.push(("l:\u{1f}posts".into(), r#"{"v":1}"#.into()));
    let mut reloaded = Cache::new("u");
    let (errors, stale) = reloaded.load(entries);
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors.iter().all(|error| error.code() == "decode"));
    assert_eq!(stale.deletes(), ["response:old"]);
    assert_eq!(
        reloaded.answer_list("q", &posts(), &sorted).unwrap().body,
        expected
    );
}

/// The segment of a response that the boundary still holds is handed over
/// as its header alone; joined with a line break and the text, it is the
/// stored value, and the entries load back to the same answers.
#[test]
fn a_held_response_is_written_as_its_header_and_joins_back() {
    let mut cache = Cache::new("t");
    let text = Rc::new(list(three(), 3).to_string());
    let change = cache
        .plan_response(
            Some(URL),
            &posts(),
            &Query::new(),
            Kind::List,
            Rc::clone(&text),
            1000.0,
        )
        .unwrap();
    let whole: Vec<(String, String)> = change
        .puts()
        .iter()
        .map(|(key, value)| (key.clone(), value.text().into_owned()))
        .collect();
    // Without a held text, or with an equal text that is not the one
    // received, every value is whole.
    let copy = Rc::new(text.as_str().to_owned());
    for held in [None, Some(&copy)] {
        let got: Vec<(String, String)> = change
            .put_texts(held)
            .map(|(key, value)| (key.to_owned(), value.unwrap().into_owned()))
            .collect();
        assert_eq!(got, whole);
    }
    // With it: the segment's header alone, exactly one.
    let mut joined = Vec::new();
    let mut headers = 0;
    for (key, value) in change.put_texts(Some(&text)) {
        let value = value.map_or_else(
            |header| {
                headers += 1;
                assert!(!header.contains('\n'), "{header}");
                format!("{header}\n{text}")
            },
            std::borrow::Cow::into_owned,
        );
        joined.push((key.to_owned(), value));
    }
    assert_eq!(headers, 1);
    assert_eq!(joined, whole);
    cache.apply(change);
    let mut reloaded = Cache::new("u");
    let (errors, _) = reloaded.load(joined);
    assert!(errors.is_empty(), "{errors:?}");
    let mut sorted = Query::new();
    sorted.sort("fields.price", Direction::Desc).unwrap();
    assert_eq!(
        reloaded.answer_list("q", &posts(), &sorted).unwrap().body,
        cache.answer_list("q", &posts(), &sorted).unwrap().body
    );
}

/// Two tabs on one storage: each writes its own segments; a reload sees the
/// highest revision of every document, whatever order they wrote in.
#[test]
fn two_tabs_keep_the_revision_rule() {
    let mut storage = Storage::default();
    let (mut first, mut second) = (Cache::new("a"), Cache::new("b"));
    let newer = list(vec![doc(1, 9, "newest", "2024-01-01T00:00:00.000Z")], 1);
    record(
        &mut second,
        &mut storage,
        &format!("{URL}?x"),
        &posts(),
        &Query::new(),
        Kind::List,
        &newer,
    );
    // The first tab has not seen it, and records an older revision later.
    record(
        &mut first,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &list(three(), 3),
    );
    let mut reloaded = storage.load("c");
    let one = Endpoint::Document(format!("{:018}", 1));
    assert_eq!(
        body(&reloaded.answer_single("z", &one, &Query::new()).unwrap())["fields"]["title"],
        "newest"
    );
}

/// Two tabs share a storage. Tab B receives the whole list of posts at
/// 1500; tab A's refresh at 2000 finds a new document; B's write of its
/// earlier response lands after A's. The list that arrived last stays, in
/// storage as in memory: before, both tabs wrote one key, the last writer
/// won, and a reload lost the new document. The records of the list are one
/// again after the reload.
#[test]
fn a_list_recorded_late_never_undoes_membership_that_arrived_after_it() {
    let mut storage = Storage::default();
    let mut a = Cache::new("a");
    record_three(&mut a, &mut storage);
    let mut b = storage.load("b");
    let b_arrived = b.stamp(1500.0);
    let four = doc(4, 1, "d", "2024-01-04T00:00:00.000Z");
    let at = a.stamp(2000.0);
    let page = Rc::new(list(vec![four.clone()], 1).to_string());
    // The refresh's delta: the documents updated since the newest cached.
    let since = content_repo::cache::refresh::delta_query(&Query::new(), Some("2024-01-03"), 0);
    let delta = a.plan_response(None, &posts(), &since.unwrap(), Kind::List, page, at);
    let delta = delta.unwrap();
    let mut listed = three();
    listed.push(four);
    let counts = refresh_posts(&mut a, &mut storage, delta, &swept(&listed), at);
    assert_eq!(counts, (1, 0, 4));
    let text = Rc::new(list(three(), 3).to_string());
    record_at(
        &mut b,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        text,
        b_arrived,
    );
    let total = |cache: &mut Cache| {
        body(&cache.answer_list("q", &posts(), &Query::new()).unwrap())["meta"]["total"].clone()
    };
    assert_eq!(total(&mut a), 4);
    assert_eq!(total(&mut b), 3, "B never saw A's refresh");
    let lists = |storage: &Storage| {
        storage
            .entries
            .keys()
            .filter(|key| key.starts_with("l:"))
            .count()
    };
    assert_eq!(
        lists(&storage),
        2,
        "one record each tab wrote last: {:?}",
        storage.entries.keys().collect::<Vec<_>>()
    );
    let mut reloaded = storage.load("r");
    assert_eq!(total(&mut reloaded), 4, "after a reload");
    // The load deleted the older record; a tab that records the list later
    // again replaces its own.
    let (_, change) = Cache::new("c").load(storage.entries.clone().into_iter().collect());
    storage.write(&change);
    assert_eq!(lists(&storage), 1);
    record_three(&mut reloaded, &mut storage);
    assert_eq!(lists(&storage), 1);
    assert_eq!(total(&mut storage.load("s")), 3);
}

/// `meta.total` of the whole list of posts, in memory and after a reload.
fn posts_totals(cache: Cache, storage: &Storage) -> [u64; 2] {
    [cache, storage.load("r")].map(|mut cache| {
        let all = body(&cache.answer_list("q", &posts(), &Query::new()).unwrap());
        all["meta"]["total"].as_u64().unwrap()
    })
}

/// A refresh whose list arrived again, whole, while it ran changes nothing
/// (`not_cached`): that list is newer than what the refresh read. Before,
/// memory kept the newer list while storage got the refresh's deletions,
/// and a reload lost the list.
#[test]
fn a_refresh_older_than_its_list_changes_nothing() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let first_page = cache.stamp(1100.0);
    let again = cache.stamp(1200.0);
    let text = Rc::new(list(three(), 3).to_string());
    record_at(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        text,
        again,
    );
    let refresh = cache.plan_refresh(
        &posts(),
        &Query::new(),
        Change::default(),
        &swept(&three()[..2]),
        first_page,
    );
    assert_eq!(refresh.unwrap_err().code(), "not_cached");
    assert_eq!(
        posts_totals(cache, &storage),
        [3, 3],
        "in memory, after a reload"
    );
}

/// After a reload, answers are stamped after the lists read too: a clock
/// that went back does not make the next refresh older than its list
/// (memory and a reload refresh alike).
#[test]
fn a_reloaded_list_does_not_make_a_refresh_older_than_it() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let at = cache.stamp(5000.0);
    refresh_posts(
        &mut cache,
        &mut storage,
        Change::default(),
        &swept(&three()),
        at,
    );
    for (name, cache) in [("memory", cache), ("reload", storage.load("r"))] {
        let now = cache.stamp(3000.0);
        let refresh = cache.plan_refresh(
            &posts(),
            &Query::new(),
            Change::default(),
            &swept(&three()),
            now,
        );
        assert!(refresh.is_ok(), "{name}: {refresh:?}");
    }
}

/// Two records of one list planned before either was written, then written
/// in the other order: the later arrival is the list, in memory as after a
/// reload, and the next collection deletes the other's record.
#[test]
fn list_records_written_out_of_order_leave_the_later_arrival() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let (older, newer) = (cache.stamp(1100.0), cache.stamp(1200.0));
    let plan = |cache: &mut Cache, docs: Vec<Value>, at: f64| {
        let text = Rc::new(list(docs.clone(), docs.len()).to_string());
        cache
            .plan_response(Some(URL), &posts(), &Query::new(), Kind::List, text, at)
            .unwrap()
    };
    let late = plan(&mut cache, three()[..2].to_vec(), older);
    let early = plan(&mut cache, three(), newer);
    commit(&mut cache, &mut storage, early);
    commit(&mut cache, &mut storage, late);
    let records = storage
        .entries
        .keys()
        .filter(|key| key.starts_with("l:"))
        .count();
    assert_eq!(
        records,
        1,
        "{:?}",
        storage.entries.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        posts_totals(cache, &storage),
        [3, 3],
        "in memory, after a reload"
    );
}

#[test]
fn an_evicted_variant_leaves_no_store_behind() {
    // Each variant's documents are in a store of their own: once eviction
    // took the last of them, the store goes too (its slots and columns with
    // it), and a variant fetched again starts a new one.
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut german = Query::new();
    german.locale("de").unwrap();
    let de = list(three(), 3);
    cache.set_max_bytes(Some(de.to_string().len() + 10));
    record_three(&mut cache, &mut storage);
    assert!(cache.store_mut("").is_some());
    let url = format!("{URL}?locale=de");
    record(
        &mut cache,
        &mut storage,
        &url,
        &posts(),
        &german,
        Kind::List,
        &de,
    );
    let german_key = variant_key(&german);
    assert_eq!(cache.size(), 3, "the default variant's list was evicted");
    assert!(cache.store_mut("").is_none(), "its store with it");
    assert!(cache.store_mut(&german_key).is_some());
    record_three(&mut cache, &mut storage);
    assert!(cache.store_mut(&german_key).is_none());
    assert_eq!(
        sorted_titles(&mut cache, &Query::new(), Direction::Desc),
        ["c", "b", "a"],
        "a new store answers"
    );
}

#[test]
fn a_complete_list_with_no_documents_answers_from_the_cache() {
    // An empty list prefetched, and a list whose refresh deleted every
    // document: their variant's store has no document, and they answer.
    let empty = |cache: &mut Cache| {
        let answer = body(&cache.answer_list("x", &posts(), &Query::new()).unwrap());
        (
            answer["data"].as_array().unwrap().len(),
            answer["meta"]["total"].clone(),
        )
    };
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_whole(&mut cache, &mut storage, Vec::new());
    assert_eq!(empty(&mut cache), (0, json!(0)));
    assert_eq!(
        empty(&mut storage.load("u")),
        (0, json!(0)),
        "after a reload"
    );
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let counts = refresh_posts(&mut cache, &mut storage, Change::default(), &[], 2000.0);
    assert_eq!(counts.1, 3, "all three deleted");
    assert_eq!(empty(&mut cache), (0, json!(0)));
}

#[test]
fn max_bytes_evicts_least_recently_used_lists_whole() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let a = list(three(), 3);
    let b: Vec<Value> = (10..13)
        .map(|id| doc(id, 1, "x", "2024-01-01T00:00:00Z"))
        .collect();
    let b = list(b, 3);
    let limit = a.to_string().len() + b.to_string().len() / 2;
    cache.set_max_bytes(Some(limit));
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &a,
    );
    let others = Endpoint::Collection("others".into());
    record(
        &mut cache,
        &mut storage,
        "u2",
        &others,
        &Query::new(),
        Kind::List,
        &b,
    );
    assert!(cache.bytes() <= limit, "{} > {limit}", cache.bytes());
    assert_eq!(
        cache
            .answer_list("x", &posts(), &Query::new())
            .unwrap_err()
            .code(),
        "not_cached"
    );
    assert!(cache.answer_list("y", &others, &Query::new()).is_ok());
    assert_eq!(cache.size(), 3);
    // Storage agrees with memory.
    let mut reloaded = storage.load("u");
    assert_eq!(reloaded.size(), 3);
    assert!(reloaded.answer_list("y", &others, &Query::new()).is_ok());
}

#[test]
fn replaced_responses_are_collected() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let newer: Vec<Value> = three()
        .into_iter()
        .map(|mut d| {
            d["meta"]["revision"] = json!(2);
            d
        })
        .collect();
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &list(newer.clone(), 3),
    );
    // The first text holds no live document and answers no URL: gone.
    assert_eq!(cache.bytes(), list(newer, 3).to_string().len());
    assert_eq!(
        storage
            .entries
            .keys()
            .filter(|key| key.starts_with("s:"))
            .count(),
        1
    );
}

#[test]
fn what_a_storage_gave_is_read_and_its_failures_are_told() {
    use content_repo::cache::{is_quota, storage_error, StorageFailure};
    let mut storage = Storage::default();
    let mut cache = Cache::new("a");
    record_three(&mut cache, &mut storage);
    // As the boundary hands them over: each pair, then how many items of
    // the storage's load were not pairs.
    let mut loaded = Cache::new("b");
    for (key, text) in &storage.entries {
        loaded.load_entry(key.clone(), text.clone());
    }
    loaded.load_entry("entry-of-schema-1".into(), r#"{"v":1}"#.into());
    let (errors, stale) = loaded.load_end(Ok(2));
    assert_eq!(
        errors[0].to_string(),
        "skipped 2 cache entries that are not [key, text] pairs (body starts with \"\")"
    );
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(stale.deletes(), ["entry-of-schema-1".to_owned()]);
    assert_eq!(loaded.size(), 3);
    let (errors, stale) = Cache::new("c").load_end(Ok(0));
    assert!(errors.is_empty() && stale.is_empty());
    // The failures of a storage call.
    let threw = |message: Option<&str>, name: Option<&str>| StorageFailure::Threw {
        message: message.map(String::from),
        name: name.map(String::from),
        described: "42".into(),
    };
    let full = storage_error(
        "write",
        threw(Some("the quota was exceeded"), Some("QuotaExceededError")),
        5,
    );
    assert_eq!(
        full.to_string(),
        "cache storage failed: write() failed: QuotaExceededError: the quota was exceeded"
    );
    assert!(is_quota(&full));
    let other = storage_error("load", threw(None, None), 5);
    assert_eq!(other.to_string(), "cache storage failed: load() failed: 42");
    assert!(!is_quota(&other));
    assert_eq!(
        storage_error("clear", StorageFailure::Late, 7).to_string(),
        "cache storage failed: clear() did not settle within 7 ms"
    );
    // What a storage threw never carries a live client's key.
    let held = content_repo::Redacting::new("S3cr3t-Key");
    let leaked = storage_error(
        "write",
        threw(Some("quota exceeded for token S3cr3t-Key"), Some("Error")),
        5,
    );
    assert_eq!(
        leaked.to_string(),
        "cache storage failed: write() failed: Error: quota exceeded for token [redacted]"
    );
    let described = StorageFailure::Threw {
        message: None,
        name: None,
        described: "\"S3cr3t-Key\"".into(),
    };
    assert!(!storage_error("clear", described, 5)
        .to_string()
        .contains("S3cr3t"));
    // Nor does a corrupt entry's key, quoted in the report.
    let mut keyed = Cache::new("d");
    keyed.load_entry("x-S3cr3t-Key".into(), "not an entry".into());
    let (errors, _) = keyed.load_end(Ok(0));
    let report = errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    assert!(
        report.contains("skipped the cache entry \"x-[redacted]\""),
        "{report}"
    );
    drop(held);
    let missing = storage_error("load", StorageFailure::Missing, 7);
    assert_eq!(
        (missing.code(), missing.to_string().as_str()),
        ("invalid_argument", "the cache storage has no load() method")
    );
}

#[test]
fn after_a_write_unused_texts_are_collected_and_a_full_storage_makes_room() {
    use content_repo::Error;
    let mut cache = Cache::new("a");
    let mut storage = Storage::default();
    record_three(&mut cache, &mut storage);
    assert!(cache.plan_after_write(Ok(()), false).is_none());
    assert!(cache.plan_after_write(Ok(()), true).is_some());
    let quota = Error::Storage {
        message: "write() failed: QuotaExceededError".into(),
    };
    let room = cache.plan_after_write(Err(&quota), false).unwrap();
    assert!(
        !room.deletes().is_empty(),
        "the least recently used list goes"
    );
    let other = Error::Storage {
        message: "write() failed: disk on fire".into(),
    };
    assert!(cache.plan_after_write(Err(&other), true).is_none());
    cache.set_max_bytes(Some(1));
    assert!(
        cache.plan_after_write(Ok(()), false).is_some(),
        "over maxBytes"
    );
}

/// A cache told which query comes first reads its sort values while it
/// loads: every answer (that sorting, others, other variants) is the one
/// an uninformed cache gives.
#[test]
fn expecting_a_query_before_loading_changes_no_answer() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let docs: Vec<Value> = (0..40)
        .map(|i| {
            doc(
                i,
                1,
                &format!("t{}", (i * 7) % 5),
                &format!("2024-01-{:02}T00:00:00.000Z", 1 + i % 9),
            )
        })
        .collect();
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &list(docs, 40),
    );
    let mut first = Query::new();
    first.sort("fields.title", Direction::Asc).unwrap();
    first.sort("meta.createdAt", Direction::Desc).unwrap();
    first.limit(10).unwrap();
    let mut other = Query::new();
    other.sort("fields.price", Direction::Desc).unwrap();
    let mut german = first.clone();
    german.locale("de").unwrap();
    let entries: Vec<(String, String)> = storage.entries.clone().into_iter().collect();
    let mut plain = Cache::new("u");
    assert!(plain.load(entries.clone()).0.is_empty());
    let mut informed = Cache::new("v");
    informed.expect(&first);
    informed.expect(&german);
    assert!(informed.load(entries).0.is_empty());
    for query in [&first, &other, &Query::new()] {
        assert_eq!(
            informed.answer_list("q", &posts(), query).unwrap().body,
            plain.answer_list("q", &posts(), query).unwrap().body
        );
    }
    assert_eq!(informed.size(), plain.size());
    assert_eq!(
        informed
            .answer_list("q", &posts(), &german)
            .map(|a| a.body)
            .map_err(|e| e.code()),
        plain
            .answer_list("q", &posts(), &german)
            .map(|a| a.body)
            .map_err(|e| e.code())
    );
}

/// The records' numbers are written as `Display` writes an `f64` and read
/// back as the same `f64`, on both targets (on wasm32 the digits come from
/// JavaScript's `Number.prototype.toString` and the reading from
/// `parseFloat`: `num::write_f64`, `num::parse_f64`).
#[test]
fn record_numbers_are_written_as_display_and_read_back_exactly() {
    use content_repo::json::record::{Record, Writer};
    let mut values = vec![
        0.0,
        -0.0,
        1.0,
        0.1,
        0.5,
        1e-7,
        1.5e-7,
        1e-6,
        123.456,
        1e20,
        1e21,
        1.5e21,
        1_700_000_000_000.0,
        1_700_000_000_000.5,
        9_007_199_254_740_993.0,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..5000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        values.push(f64::from_bits(state));
    }
    for exponent in -325..310 {
        values.push(1.25 * 10f64.powi(exponent));
    }
    for value in values.into_iter().filter(|value| value.is_finite()) {
        for value in [value, -value] {
            let mut writer = Writer::new();
            writer.number("n", value);
            let text = writer.finish();
            assert_eq!(text, format!("{{\"n\":{value}}}"), "{value:e}");
            let read = Record::parse(&text).unwrap().number("n").unwrap();
            assert_eq!(read.to_bits(), value.to_bits(), "{text}");
        }
    }
}

/// Entries given one at a time, in whatever order storage gives them
/// (`load_entry`, as the boundary streams IndexedDB), load exactly what
/// `load` of all of them does: segments are stored oldest first at the end,
/// so the revision rule and "the later of equal revisions" do not depend
/// on the order of arrival.
#[test]
fn entries_loaded_one_at_a_time_in_any_order_equal_one_load() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let other_url = "https://cms.example/v1/demo/posts?page=2";
    let one_url = "https://cms.example/v1/demo/documents/000000000000000001";
    record_three(&mut cache, &mut storage);
    // A later answer: documents 2 and 3 at revision 2, document 4 new.
    let newer = vec![
        doc(2, 2, "z", "2024-01-02T00:00:00.000Z"),
        doc(3, 2, "0", "2024-01-03T00:00:00.000Z"),
        doc(4, 1, "m", "2024-01-04T00:00:00.000Z"),
    ];
    record(
        &mut cache,
        &mut storage,
        other_url,
        &posts(),
        &Query::new(),
        Kind::List,
        &list(newer, 3),
    );
    // Document 1 again, same revision, another title: the later one counts.
    let again = doc(1, 1, "bb", "2024-01-01T00:00:00.000Z");
    record(
        &mut cache,
        &mut storage,
        one_url,
        &Endpoint::Document(format!("{:018}", 1)),
        &Query::new(),
        Kind::Document,
        &again,
    );
    let mut entries: Vec<(String, String)> = storage.entries.clone().into_iter().collect();
    entries.push(("entry-of-schema-1".into(), r#"{"v":1}"#.into()));
    entries.push(("s:corrupt".into(), "no header".into()));
    let mut whole = Cache::new("w");
    let (whole_errors, whole_stale) = whole.load(entries.clone());
    assert_eq!(whole_errors.len(), 2, "{whole_errors:?}");
    let mut queries = vec![Query::new()];
    let mut by_title = Query::new();
    by_title.sort("fields.title", Direction::Asc).unwrap();
    queries.push(by_title);
    let mut projected = Query::new();
    projected
        .sort("meta.createdAt", Direction::Desc)
        .unwrap()
        .fields("title")
        .unwrap();
    queries.push(projected);
    let answers = |cache: &mut Cache| -> Vec<String> {
        let mut all: Vec<String> = queries
            .iter()
            .map(|query| {
                cache
                    .answer_list("q", &posts(), query)
                    .map(|a| a.body)
                    .unwrap_or_else(|e| e.code().to_owned())
            })
            .collect();
        for id in 1..=4 {
            let one = Endpoint::Document(format!("{id:018}"));
            all.push(
                cache
                    .answer_single("q", &one, &Query::new())
                    .map(|a| a.body)
                    .unwrap_or_else(|e| e.code().to_owned()),
            );
        }
        all
    };
    let expected = answers(&mut whole);
    assert!(
        expected[1].contains("\"z\"") && !expected[1].contains("\"c\""),
        "{}",
        expected[1]
    );
    assert!(expected[3].contains("\"bb\""), "{}", expected[3]);
    assert!(expected[4].contains("\"revision\":2"), "{}", expected[4]);
    for turn in 0..entries.len() {
        let mut order = entries.clone();
        order.rotate_left(turn);
        if turn % 2 == 1 {
            order.reverse();
        }
        let mut streamed = Cache::new("s");
        for (key, text) in order {
            streamed.load_entry(key, text);
        }
        let (errors, change) = streamed.load_end(Ok(1));
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].to_string().starts_with("skipped 1 cache entries"));
        assert_eq!(change.deletes(), whole_stale.deletes());
        assert_eq!(streamed.size(), whole.size());
        assert_eq!(answers(&mut streamed), expected, "order {turn}");
    }
    // A load that fails part way stores nothing of what it read.
    let mut failed = Cache::new("f");
    for (key, text) in entries.iter().take(3).cloned() {
        failed.load_entry(key, text);
    }
    let failure = content_repo::Error::invalid_argument("the storage failed");
    let (errors, change) = failed.load_end(Err(failure.clone()));
    assert_eq!(errors, vec![failure]);
    assert!(change.is_empty() && failed.size() == 0);
    assert_eq!(
        failed
            .answer_list("q", &posts(), &Query::new())
            .map_err(|e| e.code())
            .err(),
        Some("not_cached")
    );
}

/// The writes of a planned change (`Writing`), as the boundary performs
/// them: the change, then collection or room, each applied only once
/// written; what is the outcome and what is reported.
#[test]
fn a_writing_applies_what_was_written_and_reports_storage_failures() {
    use content_repo::cache::writing::{Next, Writing};
    use content_repo::Error;
    let plan = |cache: &mut Cache, id: u32| {
        let body = list(vec![doc(id, 1, "t", "2024-01-01T00:00:00.000Z")], 1);
        let endpoint = Endpoint::Collection(format!("c{id}"));
        let url = format!("{URL}{id}");
        cache
            .plan_response(
                Some(&url),
                &endpoint,
                &Query::new(),
                Kind::List,
                Rc::new(body.to_string()),
                1.0,
            )
            .unwrap()
    };
    let quota = || Error::Storage {
        message: "write() failed: QuotaExceededError".into(),
    };
    let fire = || Error::Storage {
        message: "write() failed: disk on fire".into(),
    };

    // Written: applied; nothing to collect.
    let mut cache = Cache::new("a");
    let mut writing = Writing::new(plan(&mut cache, 1), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert!(!writing.pending().unwrap().puts().is_empty());
    assert_eq!(
        writing.next(&mut cache, Some(Ok(()))),
        Next::Done(Ok(()), vec![])
    );
    assert_eq!(cache.size(), 1);

    // Refused (not a quota): not applied, the failure is the outcome and reported.
    let mut writing = Writing::new(plan(&mut cache, 2), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Err(fire()))),
        Next::Done(Err(fire()), vec![fire()])
    );
    assert_eq!(cache.size(), 1, "a refused change is not applied");

    // A failure other than the storage's is the outcome, not reported.
    let missing = Error::invalid_argument("the cache storage has no write() method");
    let mut writing = Writing::new(plan(&mut cache, 2), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Err(missing.clone()))),
        Next::Done(Err(missing.clone()), vec![])
    );

    // A full storage: room is made (the least recently used list goes,
    // memory and storage together); the outcome is the quota failure.
    let mut writing = Writing::new(plan(&mut cache, 3), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(writing.next(&mut cache, Some(Err(quota()))), Next::Write);
    assert!(
        !writing.pending().unwrap().deletes().is_empty(),
        "room: deletes"
    );
    assert_eq!(
        writing.next(&mut cache, Some(Ok(()))),
        Next::Done(Err(quota()), vec![quota()])
    );
    assert_eq!(cache.size(), 0, "the room was applied");
    // ... and when making room fails too, both are reported, room first.
    let mut writing = Writing::new(plan(&mut cache, 4), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    writing.next(&mut cache, Some(Ok(())));
    let mut writing = Writing::new(plan(&mut cache, 5), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(writing.next(&mut cache, Some(Err(quota()))), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Err(fire()))),
        Next::Done(Err(quota()), vec![fire(), quota()])
    );
    assert_eq!(
        cache.size(),
        1,
        "neither the change nor the room was applied"
    );

    // Over maxBytes: collection follows; its failure is the outcome.
    cache.set_max_bytes(Some(1));
    let mut writing = Writing::new(plan(&mut cache, 6), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Ok(()))),
        Next::Write,
        "collection"
    );
    assert_eq!(
        writing.next(&mut cache, Some(Err(fire()))),
        Next::Done(Err(fire()), vec![fire()])
    );
    let mut writing = Writing::new(plan(&mut cache, 7), false);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(writing.next(&mut cache, Some(Ok(()))), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Ok(()))),
        Next::Done(Ok(()), vec![])
    );

    // Alone (a load's deletes): nothing after it; any failure reported.
    let mut writing = Writing::new(plan(&mut cache, 8), true);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Err(missing.clone()))),
        Next::Done(Err(missing.clone()), vec![missing])
    );
    let mut writing = Writing::new(plan(&mut cache, 9), true);
    assert_eq!(writing.next(&mut cache, None), Next::Write);
    assert_eq!(
        writing.next(&mut cache, Some(Ok(()))),
        Next::Done(Ok(()), vec![]),
        "alone: no collection"
    );
}

#[test]
fn an_answer_recorded_in_the_millisecond_of_an_invalidation_counts_by_order() {
    use content_repo::cache::policy::Cached;
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let fetched_at = |cache: &mut Cache| {
        let answer = cache.answer_list(URL, &posts(), &Query::new()).unwrap();
        answer.fetched_at
    };
    let fresh = |cache: &Cache, fetched: f64| {
        let cached = cache.freshness(&posts(), fetched, 1000.0, None);
        matches!(cached, Cached::Fresh { .. })
    };
    // `record` records at 1000 ms: an invalidation in that millisecond, after it, makes
    // it old; the same answer recorded again in that millisecond, after the invalidation,
    // is fresh (for one endpoint, then for all).
    for endpoint in [Some(posts()), None] {
        record(
            &mut cache,
            &mut storage,
            URL,
            &posts(),
            &Query::new(),
            Kind::List,
            &list(three(), 3),
        );
        cache.invalidate(endpoint.as_ref(), 1000.0);
        let before = fetched_at(&mut cache);
        assert!(
            !fresh(&cache, before),
            "recorded before the invalidation: {before}"
        );
        record(
            &mut cache,
            &mut storage,
            URL,
            &posts(),
            &Query::new(),
            Kind::List,
            &list(three(), 3),
        );
        let after = fetched_at(&mut cache);
        assert!(
            fresh(&cache, after),
            "recorded after the invalidation: {after}"
        );
        assert!(after - 1000.0 < 0.01, "{after}");
    }
}

/// An answer that arrived before an invalidation but is recorded after it
/// (recording waits for the writes before it) counts as invalidated.
#[test]
fn an_answer_that_arrived_before_an_invalidation_stays_invalidated_when_recorded_later() {
    use content_repo::cache::policy::Cached;
    let mut cache = Cache::new("t");
    let arrived = cache.stamp(1000.0);
    cache.invalidate(Some(&posts()), 1005.0);
    let change = plan_three(&mut cache, arrived);
    cache.apply(change);
    let answer = cache.answer_list(URL, &posts(), &Query::new()).unwrap();
    assert_eq!(answer.fetched_at, 1000.0);
    let cached = cache.freshness(&posts(), answer.fetched_at, 1010.0, None);
    assert!(matches!(cached, Cached::Old { .. }), "{cached:?}");
    // One that arrived after it is fresh.
    let later = cache.stamp(1005.0);
    assert!(later > 1005.0, "{later}");
    let cached = cache.freshness(&posts(), later, 1010.0, None);
    assert!(matches!(cached, Cached::Fresh { .. }), "{cached:?}");
}

/// A prefetch's list is complete only when every document of it is held: a
/// page whose write failed leaves it incomplete (a `storage` error), never a
/// complete list thinner than the service's.
#[test]
fn a_list_is_not_complete_when_a_page_of_it_was_not_written() {
    let mut cache = Cache::new("t");
    let page = |docs: Vec<Value>| Rc::new(list(docs, 3).to_string());
    let (first, second) = (three()[..2].to_vec(), three()[2..].to_vec());
    let ids: Vec<Vec<u8>> = three()
        .iter()
        .map(|doc| doc["meta"]["id"].as_str().unwrap().as_bytes().to_vec())
        .collect();
    let query = Query::new();
    // The first page is written (applied); the second page's write failed (never applied).
    let change = cache
        .plan_response(
            Some("p1"),
            &posts(),
            &query,
            Kind::List,
            page(first),
            1000.0,
        )
        .unwrap();
    cache.apply(change);
    let _lost = cache
        .plan_response(
            Some("p2"),
            &posts(),
            &query,
            Kind::List,
            page(second.clone()),
            1001.0,
        )
        .unwrap();
    let error = cache
        .plan_complete(&posts(), &query, ids.clone(), 1000.0, None)
        .unwrap_err();
    assert_eq!(error.code(), "storage", "{error}");
    assert!(
        error.to_string().contains("1 of the 3 documents"),
        "{error}"
    );
    assert!(cache.answer_list("other", &posts(), &query).is_err());
    // Written again, the list is complete, as of its first page.
    let change = cache
        .plan_response(
            Some("p2"),
            &posts(),
            &query,
            Kind::List,
            page(second),
            1002.0,
        )
        .unwrap();
    cache.apply(change);
    let change = cache
        .plan_complete(&posts(), &query, ids, 1000.0, None)
        .unwrap();
    cache.apply(change);
    let answer = cache.answer_list("other", &posts(), &query).unwrap();
    assert_eq!(body(&answer)["data"].as_array().unwrap().len(), 3);
    assert_eq!(answer.fetched_at, 1000.0);
}

/// `changed` counts a document new to the list even when the cache held it
/// already through another list (fetched by the refresh, or only listed),
/// and not one it lists again unchanged.
#[test]
fn a_refresh_counts_a_document_new_to_the_list_as_changed() {
    for fetched in [true, false] {
        let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
        let [one, two, third] = three().try_into().unwrap();
        record_whole(&mut cache, &mut storage, vec![two.clone(), one.clone()]);
        let featured = Endpoint::Collection("featured".into());
        let both = list(vec![third.clone(), two.clone()], 2);
        record(
            &mut cache,
            &mut storage,
            "f",
            &featured,
            &Query::new(),
            Kind::List,
            &both,
        );
        // The service adds document 3 to posts; the refresh's delta holds
        // it (and 2, unchanged), or nothing.
        let at = cache.stamp(2000.0);
        let delta = fetched.then(|| both.to_string()).map(Rc::new).map(|text| {
            cache
                .plan_response(None, &posts(), &Query::new(), Kind::List, text, at)
                .unwrap()
        });
        let sweep = swept(&[third, two, one]);
        let counts = refresh_posts(
            &mut cache,
            &mut storage,
            delta.unwrap_or_default(),
            &sweep,
            at,
        );
        assert_eq!(counts, (1, 0, 3), "fetched: {fetched}");
        let answer = body(&cache.answer_list("q", &posts(), &Query::new()).unwrap());
        assert_eq!(answer["meta"]["total"], 3);
    }
}

/// A refresh whose sweep lists a document it neither holds nor fetched
/// (deleted or changed while it ran, stale, or with an id that cannot be
/// asked for) leaves the list as it was (`not_cached`): never thinner.
#[test]
fn a_refresh_that_could_not_record_a_listed_document_leaves_the_list_as_it_was() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    assert_eq!(cache.complete_lists().len(), 1);
    let held = swept(&three());
    for extra in [b"gone".to_vec(), vec![b'a', 0xED, 0xA0, 0x80]] {
        let mut swept = held.clone();
        swept.push((extra, None));
        let error = cache
            .plan_refresh(&posts(), &Query::new(), Change::default(), &swept, 2000.0)
            .unwrap_err();
        assert_eq!(error.code(), "not_cached", "{error}");
        assert!(error.to_string().contains("1 documents"), "{error}");
    }
    let answer = body(&cache.answer_list("other", &posts(), &Query::new()).unwrap());
    assert_eq!(answer["meta"]["total"], 3);
    // What it holds, it lists.
    let (change, counts) = cache
        .plan_refresh(&posts(), &Query::new(), Change::default(), &held, 3000.0)
        .unwrap();
    assert_eq!(counts, (0, 0, 3));
    cache.apply(change);
}

/// A document a refresh deleted from one list but another list of the
/// variant still holds stays, in memory and after a reload (where both lists
/// stay complete).
#[test]
fn a_document_deleted_from_one_list_stays_in_another_after_a_reload() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let featured = Endpoint::Collection("featured".into());
    record_three(&mut cache, &mut storage);
    record(
        &mut cache,
        &mut storage,
        "uf",
        &featured,
        &Query::new(),
        Kind::List,
        &list(three()[2..].to_vec(), 1),
    );
    assert_eq!(cache.complete_lists().len(), 2);
    let two = swept(&three()[..2]);
    let counts = refresh_posts(&mut cache, &mut storage, Change::default(), &two, 2000.0);
    assert_eq!(counts, (0, 1, 2));
    for cache in [&mut cache, &mut storage.load("r")] {
        assert_eq!(cache.complete_lists().len(), 2);
        let answer = body(
            &cache
                .answer_list("other", &featured, &Query::new())
                .unwrap(),
        );
        assert_eq!(answer["data"].as_array().unwrap().len(), 1);
        let answer = body(&cache.answer_list("other", &posts(), &Query::new()).unwrap());
        assert_eq!(answer["data"].as_array().unwrap().len(), 2);
    }
}

/// After a reload, responses that answer no URL (a refresh's pages) are
/// collected once no document uses them, as before the reload.
#[test]
fn pages_without_a_url_are_collected_after_a_reload_too() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let page = |revision: u64| {
        let docs: Vec<Value> = (1..=3)
            .map(|id| doc(id, revision, "t", "2024-01-01T00:00:00.000Z"))
            .collect();
        Rc::new(list(docs, 9).to_string())
    };
    for revision in [1, 2] {
        let at = cache.stamp(1000.0);
        let change = cache
            .plan_response(
                None,
                &posts(),
                &Query::new(),
                Kind::List,
                page(revision),
                at,
            )
            .unwrap();
        commit(&mut cache, &mut storage, change);
    }
    let segments = |storage: &Storage| {
        storage
            .entries
            .keys()
            .filter(|k| k.starts_with("s:"))
            .count()
    };
    assert_eq!(segments(&storage), 1, "the first page's text was collected");
    let mut reloaded = storage.load("r");
    let change = reloaded
        .plan_response(None, &posts(), &Query::new(), Kind::List, page(3), 2000.0)
        .unwrap();
    commit(&mut reloaded, &mut storage, change);
    assert_eq!(
        segments(&storage),
        1,
        "the second page's text was collected after the reload"
    );
}

/// A document a refresh deleted and the service lists again is no longer
/// deleted: a reload keeps it and the list it completes, as memory does.
#[test]
fn a_deleted_document_listed_again_survives_a_reload() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let two = swept(&three()[..2]);
    let counts = refresh_posts(&mut cache, &mut storage, Change::default(), &two, 2000.0);
    assert_eq!(counts, (0, 1, 2));
    assert_eq!(
        storage
            .load("r1")
            .answer_list("other", &posts(), &Query::new())
            .map(|a| body(&a)["meta"]["total"].clone())
            .unwrap(),
        2
    );
    // Listed again, whole: complete with three documents, in memory and after a reload.
    record(
        &mut cache,
        &mut storage,
        "u2",
        &posts(),
        &Query::new(),
        Kind::List,
        &list(three(), 3),
    );
    let total = |cache: &mut Cache| {
        let answer = body(&cache.answer_list("other", &posts(), &Query::new()).unwrap());
        (
            answer["meta"]["total"].clone(),
            answer["data"].as_array().unwrap().len(),
        )
    };
    assert_eq!(total(&mut cache), (json!(3), 3));
    assert_eq!(total(&mut storage.load("r2")), (json!(3), 3));
    // And a refresh listing it again does the same.
    let all = swept(&three());
    refresh_posts(&mut cache, &mut storage, Change::default(), &two, 3000.0);
    // (The refresh fetches it by id.)
    let third = Rc::new(list(three()[2..].to_vec(), 3).to_string());
    let fetched = cache
        .plan_response(None, &posts(), &Query::new(), Kind::List, third, 3500.0)
        .unwrap();
    let counts = refresh_posts(&mut cache, &mut storage, fetched, &all, 4000.0);
    assert_eq!(counts, (1, 0, 3));
    assert_eq!(total(&mut cache), (json!(3), 3));
    assert_eq!(total(&mut storage.load("r3")), (json!(3), 3));
}

/// Two tabs on one storage refresh two lists of one variant, each deleting
/// a document the other never saw deleted: a reload brings neither back (each
/// refresh writes an entry of its own, and none is ever rewritten).
#[test]
fn two_tabs_deleting_documents_keep_both_deletions() {
    let mut storage = Storage::default();
    let mut first = Cache::new("a");
    let featured = Endpoint::Collection("featured".into());
    // Posts holds 1, 2, 3; featured holds 4 and 5.
    record_three(&mut first, &mut storage);
    let two = vec![
        doc(4, 1, "d", "2024-01-04T00:00:00.000Z"),
        doc(5, 1, "e", "2024-01-05T00:00:00.000Z"),
    ];
    record(
        &mut first,
        &mut storage,
        "uf",
        &featured,
        &Query::new(),
        Kind::List,
        &list(two.clone(), 2),
    );
    let mut second = storage.load("b");
    // The first tab's refresh of posts deletes 3; the second's (which read the
    // storage before it) of featured deletes 5.
    refresh_posts(
        &mut first,
        &mut storage,
        Change::default(),
        &swept(&three()[..2]),
        2000.0,
    );
    let refresh = second
        .plan_refresh(
            &featured,
            &Query::new(),
            Change::default(),
            &swept(&two[..1]),
            3000.0,
        )
        .unwrap();
    storage.write(&refresh.0);
    second.apply(refresh.0);
    let single = |cache: &mut Cache, id: u32| {
        let endpoint = Endpoint::Document(format!("{id:018}"));
        cache.answer_single("z", &endpoint, &Query::new()).is_ok()
    };
    for (name, cache) in [
        ("reloaded", &mut storage.load("c")),
        ("second", &mut second),
    ] {
        assert!(!single(cache, 5), "{name}: 5 was deleted");
        assert!(single(cache, 1) && single(cache, 4), "{name}");
    }
    // Each refresh that deleted something added an entry of its own; a
    // load merges them into one.
    assert_eq!(tombstone_entries(&storage), 2);
    let mut reloaded = Cache::new("c");
    let (errors, change) = reloaded.load(storage.entries.clone().into_iter().collect());
    assert!(errors.is_empty(), "{errors:?}");
    storage.write(&change);
    reloaded.apply(change);
    assert_eq!(tombstone_entries(&storage), 1);
    assert!(
        !single(&mut reloaded, 3),
        "3 stays deleted after the second tab's refresh"
    );
    assert_eq!(reloaded.size(), 3);
    refresh_posts(
        &mut reloaded,
        &mut storage,
        Change::default(),
        &swept(&three()[..1]),
        4000.0,
    );
    assert_eq!(tombstone_entries(&storage), 2);
    let mut last = storage.load("d");
    assert_eq!(last.size(), 2);
    for id in [2, 3, 5] {
        assert!(!single(&mut last, id), "{id} stays deleted");
    }
}

/// The entries of deleted documents this version writes (`t:{variant}\u{1f}...`).
fn tombstone_entries(storage: &Storage) -> usize {
    let keys = storage.entries.keys();
    keys.filter(|k| k.starts_with("t:") && k.contains('\u{1f}'))
        .count()
}

/// Whether a deleted document comes back is decided by when responses
/// arrived, not when they were recorded: one that arrived before the
/// refresh deleted it (recorded late) does not bring it back, one that
/// arrived after does; memory and a reload agree.
#[test]
fn a_response_brings_a_deleted_document_back_only_when_it_arrived_after_the_deletion() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let three_alone = || Rc::new(list(three()[2..].to_vec(), 1).to_string());
    let before = cache.stamp(1500.0);
    delete_third(&mut cache, &mut storage);
    let single = |cache: &mut Cache| {
        let endpoint = Endpoint::Document(format!("{:018}", 3));
        cache.answer_single("z", &endpoint, &Query::new()).is_ok()
    };
    // Arrived before the refresh (stamped then, recorded after it), then
    // after it (stamped as it is recorded).
    for (url, arrived, held) in [("u-late", Some(before), false), ("u-new", None, true)] {
        let arrived = arrived.unwrap_or_else(|| cache.stamp(2500.0));
        record_at(
            &mut cache,
            &mut storage,
            url,
            &posts(),
            &Query::new(),
            Kind::List,
            three_alone(),
            arrived,
        );
        assert_eq!(single(&mut cache), held, "{url}");
        assert_eq!(single(&mut storage.load(url)), held, "{url}, reloaded");
    }
}

/// A refresh deletes what its sweep did not list as of when the sweep
/// arrived: a document that a response arriving after the sweep holds (at a
/// newer revision, or the same revision with fewer fields, recorded before
/// the refresh ends) stays in the cache, in memory and after a reload alike;
/// one that arrived before the sweep does not. Either way it left the list
/// (counted as deleted from it), whose whole list arriving during the
/// refresh makes the refresh change nothing.
#[test]
fn a_refresh_deletes_as_of_its_sweep_not_what_arrived_after_it() {
    let third = Endpoint::Document(format!("{:018}", 3));
    let mut narrow = Query::new();
    narrow.fields("title").unwrap();
    let newer = doc(3, 2, "c again", "2024-01-03T00:00:00.000Z");
    let mut title = three()[2].clone();
    title["fields"] = json!({ "title": "c" });
    for (name, text, query, after, revision) in [
        ("newer, after", &newer, &Query::new(), true, Some(2)),
        ("narrower, after", &title, &narrow, true, Some(1)),
        ("newer, before", &newer, &Query::new(), false, None),
    ] {
        let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
        record_three(&mut cache, &mut storage);
        let early = cache.stamp(1500.0);
        let (first_at, swept_at) = (cache.stamp(1900.0), cache.stamp(2000.0));
        let arrived = if after { cache.stamp(2100.0) } else { early };
        let text = Rc::new(text.to_string());
        record_at(
            &mut cache,
            &mut storage,
            "u3",
            &third,
            query,
            Kind::Document,
            text,
            arrived,
        );
        let two = swept(&three()[..2]);
        let times = (first_at, swept_at);
        let refresh =
            cache.plan_refresh_swept(&posts(), &Query::new(), Change::default(), &two, times);
        let (change, counts) = refresh.unwrap();
        storage.write(&change);
        cache.apply(change);
        assert_eq!(counts, (0, 1, 2), "{name}: it left the list");
        for (at, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
            let answer = cache.answer_single("x", &third, &Query::new());
            let held = answer
                .ok()
                .map(|answer| body(&answer)["meta"]["revision"].clone());
            assert_eq!(held, revision.map(|r| json!(r)), "{name}, {at}");
            // The list is as the sweep read it.
            let list = body(&cache.answer_list("y", &posts(), &Query::new()).unwrap());
            assert_eq!(list["meta"]["total"], 2, "{name}, {at}");
        }
    }
    // The whole list arriving after the refresh's first page, during its
    // sweep: that list is newer, and the refresh changes nothing.
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let first_at = cache.stamp(1900.0);
    let during = cache.stamp(1950.0);
    let whole = plan_three(&mut cache, during);
    commit(&mut cache, &mut storage, whole);
    let swept_at = cache.stamp(2000.0);
    let two = swept(&three()[..2]);
    let refused = cache.plan_refresh_swept(
        &posts(),
        &Query::new(),
        Change::default(),
        &two,
        (first_at, swept_at),
    );
    assert_eq!(
        refused.map(|(_, counts)| counts).unwrap_err().code(),
        "not_cached"
    );
}

/// A document a refresh deleted and a response with its title alone brought
/// back is not replaced by a whole one that arrived before the deletion
/// (recorded late): memory answers as a reload does.
#[test]
fn a_late_response_never_replaces_the_one_that_brought_a_deleted_document_back() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let before = cache.stamp(1500.0);
    delete_third(&mut cache, &mut storage);
    let endpoint = Endpoint::Document(format!("{:018}", 3));
    let mut title = Query::new();
    title.fields("title").unwrap();
    let mut narrow = three()[2].clone();
    narrow["fields"] = json!({ "title": "c" });
    let after = cache.stamp(2500.0);
    let responses = [
        ("u-title", &title, narrow, after),
        ("u-whole", &Query::new(), three()[2].clone(), before),
    ];
    for (url, query, doc, arrived) in responses {
        let text = Rc::new(doc.to_string());
        record_at(
            &mut cache,
            &mut storage,
            url,
            &endpoint,
            query,
            Kind::Document,
            text,
            arrived,
        );
    }
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        assert!(
            cache.answer_single("z", &endpoint, &title).is_ok(),
            "{name}"
        );
        let whole = cache.answer_single("z", &endpoint, &Query::new());
        assert!(whole.is_err(), "{name}: held with its title alone");
    }
}

/// A whole list that arrived before a refresh deleted one of its documents
/// (recorded late) is not complete: it would answer without that document.
#[test]
fn a_whole_list_that_arrived_before_a_deletion_is_not_complete() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let featured = Endpoint::Collection("featured".into());
    let before = cache.stamp(1500.0);
    refresh_posts(
        &mut cache,
        &mut storage,
        Change::default(),
        &swept(&three()[..1]),
        2000.0,
    );
    let four = doc(4, 1, "d", "2024-01-04T00:00:00.000Z");
    let text = Rc::new(list(vec![three()[2].clone(), four], 2).to_string());
    record_at(
        &mut cache,
        &mut storage,
        "u-featured",
        &featured,
        &Query::new(),
        Kind::List,
        text,
        before,
    );
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let answer = cache.answer_list("other", &featured, &Query::new());
        assert!(answer.is_err(), "{name}: {answer:?}");
        assert_eq!(cache.size(), 2, "{name}: 1 and 4");
    }
}

/// An entry of deleted documents written by an earlier version (`t:`, one
/// per variant) is read as deleted after every response stored with it,
/// and stored again as an entry of this version at the first load.
#[test]
fn deleted_documents_of_an_earlier_version_stay_deleted() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    // Without revisions: the earlier entry says the revision was none.
    let mut docs = three();
    for doc in &mut docs {
        doc["meta"].as_object_mut().unwrap().remove("revision");
    }
    let three = || docs.clone();
    record_whole(&mut cache, &mut storage, three());
    let id = format!("{:018}", 3);
    storage.entries.insert(
        "t:".into(),
        format!(r#"{{"v":2,"deleted":{{"{id}":null}}}}"#),
    );
    let mut reloaded = Cache::new("r");
    let (errors, change) = reloaded.load(storage.entries.clone().into_iter().collect());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(reloaded.size(), 2);
    // What the load returns to write: the entry again, as this version's.
    assert_eq!(change.deletes(), ["t:"]);
    assert!(change.puts().iter().any(|(key, _)| key.contains('\u{1f}')));
    storage.write(&change);
    reloaded.apply(change);
    assert!(
        !storage.entries.contains_key("t:"),
        "the earlier entry is replaced"
    );
    assert_eq!(tombstone_entries(&storage), 1);
    assert_eq!(
        storage.load("r2").size(),
        2,
        "still deleted at the next reload"
    );
    // A response received since brings it back, after a reload too.
    let three_alone = Rc::new(list(three()[2..].to_vec(), 1).to_string());
    let after = reloaded.stamp(5000.0);
    record_at(
        &mut reloaded,
        &mut storage,
        "u-new",
        &posts(),
        &Query::new(),
        Kind::List,
        three_alone,
        after,
    );
    assert_eq!(reloaded.size(), 3);
    assert_eq!(storage.load("r3").size(), 3);
}

/// Of two responses holding a document at the same revision and selection,
/// the one that arrived later is kept, however late the other is recorded:
/// in memory as after a reload (which stores responses in order of arrival).
#[test]
fn a_response_recorded_late_never_replaces_one_that_arrived_after_it() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let one = Endpoint::Document(format!("{:018}", 1));
    let text = |title: &str| Rc::new(doc(1, 1, title, "2024-01-01T00:00:00.000Z").to_string());
    for (url, title, arrived) in [("a", "newer", 2000.0), ("b", "older", 1000.0)] {
        record_at(
            &mut cache,
            &mut storage,
            url,
            &one,
            &Query::new(),
            Kind::Document,
            text(title),
            arrived,
        );
    }
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let answer = cache.answer_single("z", &one, &Query::new()).unwrap();
        assert_eq!(body(&answer)["fields"]["title"], "newer", "{name}");
        assert_eq!(answer.fetched_at, 2000.0, "{name}");
    }
}

/// What one step of [`deletions_across_tabs_follow_the_order_of_arrival`] does.
#[derive(Debug, Clone)]
enum Step {
    /// Tab `tab` records the response for document `id` (whole, or its
    /// title alone), which arrived `late` steps ago (0: now).
    Respond {
        tab: usize,
        id: u32,
        whole: bool,
        late: u8,
    },
    /// Tab `tab` records the whole list `featured`: the ids of mask `ids`,
    /// arrived `late` steps ago.
    Featured { tab: usize, ids: u8, late: u8 },
    /// Tab `tab` refreshes posts; the service lists the ids of mask `listed`.
    Refresh { tab: usize, listed: u8 },
    /// Tab `tab` reloads from the storage.
    Reload { tab: usize },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..2usize, 1..=5u32, any::<bool>(), 0..3u8)
            .prop_map(|(tab, id, whole, late)| Step::Respond { tab, id, whole, late }),
        1 => (0..2usize, 1..32u8, 0..3u8).prop_map(|(tab, ids, late)| Step::Featured { tab, ids, late }),
        3 => (0..2usize, 0..32u8).prop_map(|(tab, listed)| Step::Refresh { tab, listed }),
        1 => (0..2usize).prop_map(|tab| Step::Reload { tab }),
    ]
}

/// What happened to a document, when (by arrival).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    /// A response listed it: whole, or its title alone.
    Listed { whole: bool },
    /// A refresh deleted it.
    Deleted,
    /// A refresh deleted it from its list while another list held it (in
    /// the refreshing tab's memory): it counts at a load where no list
    /// stored holds it (a reload's log then has it as `Deleted`).
    Held,
}

/// The reference: an event log. A document is held when a response listing
/// it arrived after its latest deletion, whole when such a response held
/// all of it.
#[derive(Default)]
struct Events {
    log: Vec<(f64, u32, Event)>,
}

impl Events {
    fn deleted(&self, known: &[usize], id: u32) -> Option<f64> {
        let times = known.iter().map(|&at| self.log[at]);
        let deletions = times.filter(|&(_, of, event)| of == id && event == Event::Deleted);
        deletions.map(|(time, _, _)| time).reduce(f64::max)
    }

    /// Whether `id` is held (`whole`: whole) among the events `known`.
    fn held(&self, known: &[usize], id: u32, whole: bool) -> bool {
        let deleted = self.deleted(known, id).unwrap_or(f64::NEG_INFINITY);
        known
            .iter()
            .map(|&at| self.log[at])
            .any(|(time, of, event)| {
                of == id
                    && time > deleted
                    && matches!(event, Event::Listed { whole: w } if w || !whole)
            })
    }

    fn add(&mut self, known: &mut Vec<usize>, event: (f64, u32, Event)) {
        known.push(self.log.len());
        self.log.push(event);
    }
}

/// One tab: its cache, the events it knows, and the members of posts and of
/// featured it holds (none when the list is not complete in it), featured's
/// with the time it arrived.
struct Tab {
    cache: Cache,
    known: Vec<usize>,
    posts: Option<Vec<u32>>,
    featured: Option<(f64, Vec<u32>)>,
}

/// The ids of `mask` (bit 0: id 1).
fn ids_of(mask: u8) -> Vec<u32> {
    (1..=5).filter(|id| mask & (1 << (id - 1)) != 0).collect()
}

/// Document `id` as a response holds it: whole, or its title alone.
fn doc_as(id: u32, whole: bool) -> Value {
    let mut doc = doc(id, 1, "t", "2024-01-01T00:00:00.000Z");
    if !whole {
        doc["fields"] = json!({ "title": "t" });
    }
    doc
}

proptest! {
    #![proptest_config(harness::config(256))]

    /// Two tabs on one storage record responses (some recorded late, some
    /// with the title alone), record a second list whole, and refresh posts,
    /// which loses and regains documents; they reload now and then. Each
    /// tab's memory holds a document (whole) exactly when, among the events
    /// it knows, a response listing it (whole) arrived after its latest
    /// deletion, a list is complete exactly when each member is held, its
    /// members are those of the response that arrived last (whichever tab
    /// recorded it, and whenever), and a reload of the storage agrees with
    /// all events.
    #[test]
    fn deletions_across_tabs_follow_the_order_of_arrival(steps in prop::collection::vec(step(), 1..24)) {
        let mut storage = Storage::default();
        let mut events = Events::default();
        let all: Vec<u32> = (1..=5).collect();
        let featured = Endpoint::Collection("featured".into());
        let whole_list = |ids: &[u32]| {
            let docs: Vec<Value> = ids.iter().map(|&id| doc_as(id, true)).collect();
            Rc::new(list(docs, ids.len()).to_string())
        };
        // The first tab records the whole list of posts at 10; the second loads it.
        let mut first = Tab { cache: Cache::new("a0"), known: Vec::new(), posts: Some(all.clone()), featured: None };
        let change = first
            .cache
            .plan_response(Some(URL), &posts(), &Query::new(), Kind::List, whole_list(&all), 10.0)
            .unwrap();
        commit(&mut first.cache, &mut storage, change);
        for &id in &all {
            events.add(&mut first.known, (10.0, id, Event::Listed { whole: true }));
        }
        // The members of the lists as last written to the storage.
        let (mut stored_posts, mut stored_featured) = (all.clone(), None::<(f64, Vec<u32>)>);
        let known = first.known.clone();
        let second = Tab { cache: storage.load("b0"), known, posts: Some(all.clone()), featured: None };
        let mut tabs = [first, second];
        let mut title = Query::new();
        title.fields("title").unwrap();
        for (index, step) in steps.into_iter().enumerate() {
            let now = 100.0 * (index as f64 + 1.0);
            // (No two steps' arrivals at the same time.)
            let arrived = |late: u8| now - 100.0 * f64::from(late) - 50.0 + index as f64 / 1000.0;
            match step {
                Step::Respond { tab, id, whole, late } => {
                    let tab = &mut tabs[tab];
                    let arrived = arrived(late);
                    let text = Rc::new(doc_as(id, whole).to_string());
                    let endpoint = Endpoint::Document(format!("{id:018}"));
                    let query = if whole { Query::new() } else { title.clone() };
                    let url = format!("u{id}-{index}");
                    let change = tab
                        .cache
                        .plan_response(Some(&url), &endpoint, &query, Kind::Document, text, arrived)
                        .unwrap();
                    commit(&mut tab.cache, &mut storage, change);
                    events.add(&mut tab.known, (arrived, id, Event::Listed { whole }));
                }
                Step::Featured { tab, ids, late } => {
                    let tab = &mut tabs[tab];
                    let (ids, arrived) = (ids_of(ids), arrived(late));
                    let change = tab
                        .cache
                        .plan_response(Some(&format!("uf-{index}")), &featured, &Query::new(), Kind::List, whole_list(&ids), arrived)
                        .unwrap();
                    commit(&mut tab.cache, &mut storage, change);
                    // Complete unless a member was deleted after the list arrived.
                    let complete = ids.iter().all(|&id| !matches!(events.deleted(&tab.known, id), Some(at) if at >= arrived));
                    for &id in &ids {
                        events.add(&mut tab.known, (arrived, id, Event::Listed { whole: true }));
                    }
                    // The members that arrived last stay, in memory and stored.
                    let later = |list: &Option<(f64, Vec<u32>)>| list.as_ref().map_or(true, |(at, _)| *at <= arrived);
                    if complete && later(&tab.featured) {
                        tab.featured = Some((arrived, ids.clone()));
                    }
                    if complete && later(&stored_featured) {
                        stored_featured = Some((arrived, ids));
                    }
                }
                Step::Refresh { tab, listed } => {
                    let tab = &mut tabs[tab];
                    let Some(members) = tab.posts.clone() else {
                        let refused = tab.cache.plan_refresh(&posts(), &Query::new(), Change::default(), &[], now);
                        prop_assert!(refused.is_err(), "a refresh of a list that is not complete");
                        continue;
                    };
                    let listed = ids_of(listed);
                    // The documents it does not hold are fetched, in one page.
                    let fetch: Vec<u32> = listed.iter().copied().filter(|&id| !events.held(&tab.known, id, false)).collect();
                    let arrived = tab.cache.stamp(now);
                    let mut changes = Change::default();
                    if !fetch.is_empty() {
                        let docs: Vec<Value> = fetch.iter().map(|&id| doc_as(id, true)).collect();
                        let page = Rc::new(list(docs, fetch.len() + 100).to_string());
                        changes = tab.cache.plan_response(None, &posts(), &Query::new(), Kind::List, page, arrived).unwrap();
                        for &id in &fetch {
                            events.add(&mut tab.known, (arrived, id, Event::Listed { whole: true }));
                        }
                    }
                    let sweep = swept(&listed.iter().map(|&id| doc_as(id, true)).collect::<Vec<_>>());
                    let (change, _) = tab
                        .cache
                        .plan_refresh(&posts(), &Query::new(), changes, &sweep, now)
                        .map_err(|error| TestCaseError::fail(format!("refresh: {error}")))?;
                    storage.write(&change);
                    tab.cache.apply(change);
                    let collect = tab.cache.plan_collect();
                    storage.write(&collect);
                    tab.cache.apply(collect);
                    // A document another complete list holds stays.
                    let elsewhere = tab.featured.clone().map(|(_, ids)| ids).unwrap_or_default();
                    for &id in members.iter().filter(|id| !listed.contains(id)) {
                        let event = if elsewhere.contains(&id) { Event::Held } else { Event::Deleted };
                        events.add(&mut tab.known, (now + 1.0, id, event));
                    }
                    tab.posts = Some(listed.clone());
                    stored_posts = listed;
                }
                Step::Reload { tab } => {
                    sessions_reload(&mut tabs[tab], &mut storage, &mut events, index, &stored_posts, stored_featured.as_ref());
                }
            }
            let mut check = Tab { cache: Cache::new("none"), known: Vec::new(), posts: None, featured: None };
            sessions_reload(&mut check, &mut storage, &mut events, 1000 + index, &stored_posts, stored_featured.as_ref());
            let [zero, one] = &mut tabs;
            for (name, tab) in [("tab 0", zero), ("tab 1", one), ("a reload", &mut check)] {
                for &id in &all {
                    let endpoint = Endpoint::Document(format!("{id:018}"));
                    for (query, whole) in [(&Query::new(), true), (&title, false)] {
                        prop_assert_eq!(
                            tab.cache.answer_single("z", &endpoint, query).is_ok(),
                            events.held(&tab.known, id, whole),
                            "{} holds {} (whole: {}, step {})", name, id, whole, index
                        );
                    }
                }
                let answer = tab.cache.answer_list("other", &featured, &Query::new()).ok();
                let ids = answer.map(|answer| {
                    let data = body(&answer)["data"].as_array().unwrap().clone();
                    let mut ids: Vec<u32> = data.iter().map(|d| d["meta"]["id"].as_str().unwrap().parse().unwrap()).collect();
                    ids.sort_unstable();
                    ids
                });
                // A whole query: answered when every member is held whole.
                let whole = (tab.featured.clone().map(|(_, ids)| ids))
                    .filter(|ids| ids.iter().all(|&id| events.held(&tab.known, id, true)));
                prop_assert_eq!(ids, whole, "{} answers featured (step {})", name, index);
            }
        }
    }
}

/// `tab` as a reload of the storage makes it: it knows every event, and a
/// list written last is complete when each of its members is held.
fn sessions_reload(
    tab: &mut Tab,
    storage: &mut Storage,
    events: &mut Events,
    session: usize,
    posts: &[u32],
    featured: Option<&(f64, Vec<u32>)>,
) {
    // A deletion held by a list counts from the first load where no
    // complete list stored (every member held, by the other deletions)
    // holds the document.
    let all: Vec<usize> = (0..events.log.len()).collect();
    let whole = |ids: &[u32]| ids.iter().all(|&id| events.held(&all, id, false));
    let holds = |ids: &[u32], id: u32| ids.contains(&id) && whole(ids);
    let listed = |id: u32| holds(posts, id) || featured.is_some_and(|(_, ids)| holds(ids, id));
    let counted: Vec<(f64, u32, Event)> = (events.log.iter())
        .filter(|&&(_, id, event)| event == Event::Held && !listed(id))
        .map(|&(at, id, _)| (at, id, Event::Deleted))
        .collect();
    events.log.extend(counted);
    let known: Vec<usize> = (0..events.log.len()).collect();
    let complete = |ids: &[u32]| ids.iter().all(|&id| events.held(&known, id, false));
    // As the boundary does: what the load plans (a merge of the entries of
    // deleted documents) is written, then applied.
    let mut cache = Cache::new(&format!("r{session}"));
    let (errors, change) = cache.load(storage.entries.clone().into_iter().collect());
    assert!(errors.is_empty(), "{errors:?}");
    storage.write(&change);
    cache.apply(change);
    *tab = Tab {
        cache,
        posts: complete(posts).then(|| posts.to_vec()),
        featured: featured.filter(|(_, ids)| complete(ids)).cloned(),
        known,
    };
}

/// Text in a stored record (a URL with control characters) is written with
/// JSON escapes and read back exactly.
#[test]
fn control_characters_in_a_url_survive_a_reload() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let url = "https://cms.example.com/v1/demo/collections/posts?x=\u{1}\u{1f}\n\t\"\\";
    let one = list(three()[..1].to_vec(), 9);
    record(
        &mut cache,
        &mut storage,
        url,
        &posts(),
        &Query::new(),
        Kind::List,
        &one,
    );
    let stored = storage
        .entries
        .values()
        .find(|text| text.contains("\\u0001"));
    assert!(
        stored.is_some_and(|text| text.contains("\\u001f")),
        "{:?}",
        storage.entries
    );
    let mut reloaded = storage.load("r");
    assert!(reloaded.answer_list(url, &posts(), &Query::new()).is_ok());
    assert!(reloaded
        .answer_list("other", &posts(), &Query::new())
        .is_err());
}

/// A refresh whose page holds a document another refresh deleted after the
/// page arrived (two refreshes at once) cannot record it: it rejects with
/// `not_cached`, rather than keep a list that lacks it.
#[test]
fn a_refresh_whose_fetched_document_was_deleted_since_rejects() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let featured = Endpoint::Collection("featured".into());
    let four = doc(4, 1, "d", "2024-01-04T00:00:00.000Z");
    let whole = list(vec![four.clone()], 1);
    record(
        &mut cache,
        &mut storage,
        "uf",
        &featured,
        &Query::new(),
        Kind::List,
        &whole,
    );
    // The refresh of featured fetches 3 (now listed there) at 1500 ...
    let page = Rc::new(list(vec![three()[2].clone()], 9).to_string());
    let arrived = cache.stamp(1500.0);
    let fetched = cache
        .plan_response(None, &featured, &Query::new(), Kind::List, page, arrived)
        .unwrap();
    // ... while the refresh of posts deletes it, and ends first.
    delete_third(&mut cache, &mut storage);
    let listed = swept(&[three()[2].clone(), four]);
    let refresh = cache.plan_refresh(&featured, &Query::new(), fetched, &listed, 2500.0);
    let error = refresh.expect_err("rejected");
    assert_eq!(error.code(), "not_cached", "{error}");
    let answer = body(
        &cache
            .answer_list("other", &featured, &Query::new())
            .unwrap(),
    );
    assert_eq!(
        answer["data"].as_array().unwrap().len(),
        1,
        "featured as it was"
    );
}

/// A deletion counts against every response that arrived before it,
/// whatever the revision it holds: a refresh page with a newer revision of
/// a document the same refresh then deleted (edited, then unpublished while
/// it ran), or a newer revision another tab received, does not bring it
/// back at a reload.
#[test]
fn a_deletion_counts_against_newer_revisions_that_arrived_before_it() {
    let three_at = || Endpoint::Document(format!("{:018}", 3));
    let deleted = |cache: &mut Cache| {
        cache
            .answer_single("z", &three_at(), &Query::new())
            .is_err()
    };
    // One tab: the refresh's own delta page holds 3 at revision 2.
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let page = vec![
        doc(1, 2, "b2", "2024-01-01T00:00:00.000Z"),
        doc(3, 2, "c2", "2024-01-03T00:00:00.000Z"),
    ];
    let page = Rc::new(list(page, 2).to_string());
    let arrived = cache.stamp(1500.0);
    let delta = cache
        .plan_response(None, &posts(), &Query::new(), Kind::List, page, arrived)
        .unwrap();
    refresh_posts(
        &mut cache,
        &mut storage,
        delta,
        &swept(&three()[..2]),
        arrived,
    );
    commit(&mut cache, &mut storage, Change::default());
    assert!(deleted(&mut cache), "memory");
    assert!(deleted(&mut storage.load("r")), "a reload");
    // Two tabs: the second received 3 at revision 2; the first, holding
    // revision 1, deletes it.
    let (mut first, mut storage) = (Cache::new("a"), Storage::default());
    record_three(&mut first, &mut storage);
    let mut second = storage.load("b");
    let newer = list(vec![doc(3, 2, "c2", "2024-01-03T00:00:00.000Z")], 9);
    record(
        &mut second,
        &mut storage,
        "u3",
        &posts(),
        &Query::new(),
        Kind::List,
        &newer,
    );
    refresh_posts(
        &mut first,
        &mut storage,
        Change::default(),
        &swept(&three()[..2]),
        2000.0,
    );
    assert!(deleted(&mut first), "the deleting tab");
    assert!(deleted(&mut storage.load("r")), "a reload");
}

/// The response of a document's own URL does not answer for it once a
/// refresh deleted it after that response arrived, in memory and after a
/// reload; one received after the deletion does.
#[test]
fn the_url_of_a_deleted_document_does_not_answer_it() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let endpoint = Endpoint::Document(format!("{:018}", 3));
    let mut title = Query::new();
    title.fields("title").unwrap();
    let mut narrow = three()[2].clone();
    narrow["fields"] = json!({ "title": "c" });
    // Its title alone, recorded at its URL.
    let url = "https://cms.example.com/v1/demo/documents/3?fields=title";
    let record_title = |cache: &mut Cache, storage: &mut Storage| {
        let (endpoint, title) = (&endpoint, &title);
        record(
            cache,
            storage,
            url,
            endpoint,
            title,
            Kind::Document,
            &narrow,
        );
    };
    record_title(&mut cache, &mut storage);
    delete_third(&mut cache, &mut storage);
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let answer = cache.answer_single(url, &endpoint, &title);
        assert!(answer.is_err(), "{name}: {answer:?}");
    }
    record_title(&mut cache, &mut storage);
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r2"))] {
        assert!(
            cache.answer_single(url, &endpoint, &title).is_ok(),
            "{name}"
        );
    }
}

/// An entry of deleted documents that a refresh writes is one an earlier
/// version of the SDK, still running in another tab, reads without error
/// and keeps (a `t:` key, each id `null`): a rollout loses no deletion.
#[test]
fn a_refresh_writes_deleted_documents_an_earlier_version_reads() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    delete_third(&mut cache, &mut storage);
    let entries: Vec<(&String, &String)> = (storage.entries.iter())
        .filter(|(key, _)| key.starts_with("t:") && key.contains('\u{1f}'))
        .collect();
    assert_eq!(entries.len(), 1);
    let record: Value = serde_json::from_str(entries[0].1).unwrap();
    assert_eq!(record["v"], 2);
    assert_eq!(record["deleted"], json!({ format!("{:018}", 3): null }));
}

/// An alias's own URL does not answer for a document a refresh deleted
/// after that response arrived, in memory and after a reload (where the
/// alias is known by the id its response holds).
#[test]
fn the_url_of_an_alias_of_a_deleted_document_does_not_answer_it() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let alias = Endpoint::Alias("home".into());
    let third = &three()[2];
    record(
        &mut cache,
        &mut storage,
        "alias-url",
        &alias,
        &Query::new(),
        Kind::Document,
        third,
    );
    assert!(storage
        .load("r0")
        .answer_single("alias-url", &alias, &Query::new())
        .is_ok());
    delete_third(&mut cache, &mut storage);
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let answer = cache.answer_single("alias-url", &alias, &Query::new());
        assert!(answer.is_err(), "{name}: {answer:?}");
    }
}

/// A document a refresh fetched (added since the last one) but its sweep no
/// longer lists (deleted while it ran) is deleted too: not served, in
/// memory and after a reload; the counts are the list's (it was never in
/// the list: neither changed nor deleted).
#[test]
fn a_document_fetched_and_deleted_during_a_refresh_is_not_kept() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let page = Rc::new(list(vec![doc(4, 1, "d", "2024-01-04T00:00:00.000Z")], 1).to_string());
    let arrived = cache.stamp(1500.0);
    let fetched = cache
        .plan_response(None, &posts(), &Query::new(), Kind::List, page, arrived)
        .unwrap();
    let counts = refresh_posts(&mut cache, &mut storage, fetched, &swept(&three()), 1500.0);
    assert_eq!(counts, (0, 0, 3));
    let four = Endpoint::Document(format!("{:018}", 4));
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        assert!(
            cache.answer_single("x", &four, &Query::new()).is_err(),
            "{name}"
        );
        assert_eq!(cache.size(), 3, "{name}");
    }
}

/// Whether `tab` stores (and answers) the third of [`three`] as a response
/// for its own URL received at `now` (stamped by `tab`) makes it.
fn stores_third_received_at(tab: &mut Cache, storage: &mut Storage, now: f64) -> bool {
    let third = Endpoint::Document(format!("{:018}", 3));
    let text = Rc::new(three()[2].to_string());
    let at = tab.stamp(now);
    record_at(
        tab,
        storage,
        "u3",
        &third,
        &Query::new(),
        Kind::Document,
        text,
        at,
    );
    tab.answer_single("x", &third, &Query::new()).is_ok()
}

/// A load that fails part way keeps none of the deletions it read, as none
/// of the responses: a response received afterwards is stored.
#[test]
fn a_failed_load_keeps_no_deletion() {
    let mut tab = Cache::new("r");
    let id = format!("{:018}", 3);
    let entry = format!(r#"{{"v":2,"seq":1,"at":9000,"deleted":{{"{id}":null}}}}"#);
    tab.load_entry("t:\u{1f}:a:1".into(), entry);
    let failed = content_repo::Error::Storage {
        message: "late".into(),
    };
    let (errors, _) = tab.load_end(Err(failed));
    assert_eq!(errors.len(), 1);
    let mut storage = Storage::default();
    assert!(stores_third_received_at(&mut tab, &mut storage, 5000.0));
}

/// An earlier version's deletions are dated at a load, in memory at once:
/// a response received afterwards is stored even when the rewrite of the
/// entry failed (nothing written, nothing applied).
#[test]
fn an_earlier_versions_deletions_are_dated_at_the_load_even_if_the_rewrite_fails() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    let id = format!("{:018}", 3);
    let entry = format!(r#"{{"v":2,"deleted":{{"{id}":null}}}}"#);
    storage.entries.insert("t:".into(), entry);
    let mut tab = Cache::new("r");
    let (errors, unwritten) = tab.load(storage.entries.clone().into_iter().collect());
    assert!(errors.is_empty() && !unwritten.is_empty());
    assert_eq!(tab.size(), 2);
    assert!(stores_third_received_at(&mut tab, &mut storage, 5000.0));
}

/// Answers stamped after a reload come after everything it read: a clock
/// that went back (by a millisecond, here) dates a response after a
/// deletion stored before, as the tab that was not reloaded does.
#[test]
fn stamps_after_a_reload_come_after_what_it_read() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    record_three(&mut cache, &mut storage);
    delete_third(&mut cache, &mut storage);
    let third = Endpoint::Document(format!("{:018}", 3));
    let text = || Rc::new(three()[2].to_string());
    let mut reloaded = storage.load("r");
    for (name, tab) in [("the same tab", &mut cache), ("reloaded", &mut reloaded)] {
        let at = tab.stamp(1999.0);
        assert!(at > 2000.0, "{name}: {at}");
        let mut scratch = Storage::default();
        record_at(
            tab,
            &mut scratch,
            "u3",
            &third,
            &Query::new(),
            Kind::Document,
            text(),
            at,
        );
        assert!(
            tab.answer_single("x", &third, &Query::new()).is_ok(),
            "{name}"
        );
    }
}

/// Entries of deleted documents of several variants, handed over in any
/// order, become one entry a variant at a load.
#[test]
fn a_load_merges_the_deletions_of_each_variant_into_one_entry() {
    let entry =
        |id: u32, at: u32| format!(r#"{{"v":2,"seq":1,"at":{at},"deleted":{{"{id:018}":null}}}}"#);
    let mut cache = Cache::new("r");
    let (errors, change) = cache.load(vec![
        ("t:\u{1f}:a:1".into(), entry(1, 10)),
        ("t:locale=de\u{1f}:b:1".into(), entry(2, 10)),
        ("t:\u{1f}:c:1".into(), entry(3, 20)),
        ("t:locale=de\u{1f}:d:1".into(), entry(4, 10)),
    ]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(change.puts().len(), 2, "{:?}", change.puts());
    assert_eq!(change.deletes().len(), 4);
    let mut storage = Storage::default();
    storage.write(&change);
    let merged = storage.load("again");
    // Read back: the same deletions, with their own times.
    let default: Vec<&String> = storage
        .entries
        .keys()
        .filter(|k| k.starts_with("t:\u{1f}"))
        .collect();
    assert_eq!(default.len(), 1);
    let record: Value = serde_json::from_str(&storage.entries[default[0]]).unwrap();
    assert_eq!(
        record["deleted"],
        json!({ format!("{:018}", 1): 10, format!("{:018}", 3): 20 })
    );
    assert_eq!(merged.size(), 0);
}

/// A deletion is remembered for as long as a stored response received
/// before it holds the document, and otherwise for
/// [`FORGET_DELETIONS_MS`] (counted back from the latest time a load
/// reads): a load forgets the others, so deletions do not pile up in
/// storage for as long as the cache lives. Forgetting one changes no
/// answer: the document stays deleted, memory and a reload agree.
#[test]
fn a_load_forgets_deletions_that_bury_nothing_stored_after_a_week() {
    let day = 24.0 * 3600.0 * 1000.0;
    assert_eq!(FORGET_DELETIONS_MS, 7.0 * day);
    let third = Endpoint::Document(format!("{:018}", 3));
    let deletion_entries = |storage: &Storage| {
        let entries = storage
            .entries
            .iter()
            .filter(|(key, _)| key.starts_with("t:"));
        entries.map(|(_, text)| text.clone()).collect::<Vec<_>>()
    };
    // (days after the deletion that the last response arrived, whether the
    // response that held the deleted document is still stored, whether its
    // deletion is remembered after a load)
    for (days, held, remembered) in [(6.0, false, true), (8.0, false, false), (8.0, true, true)] {
        let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
        record_three(&mut cache, &mut storage);
        delete_third(&mut cache, &mut storage);
        assert_eq!(deletion_entries(&storage).len(), 1);
        let arrived = cache.stamp(2000.0 + days * day);
        // The list again: it replaces the first response (same URL), unless
        // asked at another URL, when the first one stays stored.
        let url = if held {
            "https://cms.example.com/v1/demo/collections/posts?a"
        } else {
            URL
        };
        let text = Rc::new(list(three()[..2].to_vec(), 2).to_string());
        let (endpoint, query) = (posts(), Query::new());
        record_at(
            &mut cache,
            &mut storage,
            url,
            &endpoint,
            &query,
            Kind::List,
            text,
            arrived,
        );
        let stored = storage
            .entries
            .keys()
            .filter(|key| key.starts_with("s:"))
            .count();
        assert_eq!(stored, 1 + usize::from(held), "{days} {held}");

        let mut reloaded = Cache::new("r");
        let (errors, change) = reloaded.load(storage.entries.clone().into_iter().collect());
        assert!(errors.is_empty(), "{errors:?}");
        storage.write(&change);
        reloaded.apply(change);
        let entries = deletion_entries(&storage);
        let case = format!("{days} days, held: {held}: {entries:?}");
        assert_eq!(entries.len(), usize::from(remembered), "{case}");
        if remembered {
            assert!(entries[0].contains(&format!("{:018}", 3)), "{case}");
        }
        // No answer changed: the deleted document stays deleted.
        for cache in [&mut cache, &mut reloaded, &mut storage.load("again")] {
            assert!(
                cache.answer_single("z", &third, &Query::new()).is_err(),
                "{case}"
            );
            let answer = cache.answer_list(URL, &posts(), &Query::new()).unwrap();
            assert_eq!(body(&answer)["meta"]["total"], 2, "{case}");
        }
    }
}

/// A list answer the cache computes keeps the other keys of the response
/// that made the list complete, in its order (SPEC 4: unknown extra keys are
/// kept), as the service answers any query of that list: a re-sorted page,
/// the exact URL, after a reload. Its `includes` (of that page's documents
/// alone) is not kept. A later whole response without them drops them.
/// Before, every computed answer was `{data, meta}`.
#[test]
fn a_computed_list_answer_keeps_the_envelopes_other_keys_in_order() {
    let keys = |answer: &content_repo::cache::Answer| -> Vec<String> {
        let value: serde_json::Map<String, Value> = serde_json::from_str(&answer.body).unwrap();
        value.keys().cloned().collect()
    };
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let text = format!(
        r#"{{"status":"ok","meta":{{"count":3,"limit":25,"offset":0,"total":3}},"data":{},"includes":{{}},"x":[1,{{"y":null}}]}}"#,
        serde_json::to_string(&three()).unwrap()
    );
    let (endpoint, query) = (posts(), Query::new());
    record_at(
        &mut cache,
        &mut storage,
        URL,
        &endpoint,
        &query,
        Kind::List,
        Rc::new(text),
        1000.0,
    );
    let mut sorted = Query::new();
    sorted
        .sort("fields.title", Direction::Desc)
        .unwrap()
        .limit(2)
        .unwrap();
    for cache in [&mut cache, &mut storage.load("r")] {
        for query in [&Query::new(), &sorted] {
            let answer = cache.answer_list(URL, &posts(), query).unwrap();
            assert_eq!(
                keys(&answer),
                ["status", "meta", "data", "x"],
                "{}",
                answer.body
            );
            let value = body(&answer);
            assert_eq!(value["x"], json!([1, { "y": null }]));
            assert_eq!(value["status"], "ok");
        }
        let answer = cache.answer_list(URL, &posts(), &sorted).unwrap();
        let value = body(&answer);
        let titles: Vec<&Value> = value["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| &d["fields"]["title"])
            .collect();
        assert_eq!(titles, [&json!("c"), &json!("b")]);
        assert_eq!(body(&answer)["meta"]["count"], 2);
    }
    // The list again, without other keys.
    record_whole(&mut cache, &mut storage, three());
    let answer = cache.answer_list(URL, &posts(), &sorted).unwrap();
    assert_eq!(keys(&answer), ["data", "meta"]);
    // `meta` before `data`, and nothing else: that order too (as applyQuery
    // and the service write it).
    let text = format!(
        r#"{{"meta":{{"count":3,"limit":25,"offset":0,"total":3}},"data":{}}}"#,
        serde_json::to_string(&three()).unwrap()
    );
    let at = 2000.0;
    record_at(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        Rc::new(text),
        at,
    );
    for cache in [&mut cache, &mut storage.load("r")] {
        let answer = cache.answer_list(URL, &posts(), &sorted).unwrap();
        assert_eq!(keys(&answer), ["meta", "data"], "{}", answer.body);
    }
}

/// The envelope of a complete list is that of the response(s) that made it
/// complete, kept with the list (its record): a response to another query
/// of the endpoint (a search, a refresh's delta page, which answer other
/// queries) does not change it, a refresh keeps it, and memory and a reload
/// agree. Before, the latest list response of the endpoint set it, in the
/// order changes were applied.
#[test]
fn a_complete_lists_envelope_is_its_own_responses() {
    let envelope = |docs: Vec<Value>, total: usize, extra: &str| {
        let mut value = list(docs, total);
        value[extra] = json!(extra);
        Rc::new(value.to_string())
    };
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let text = envelope(three(), 3, "status");
    record_at(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        text,
        1000.0,
    );
    // A search, answered online and recorded for its URL.
    let mut search = Query::new();
    search.search("b").unwrap();
    let text = envelope(three()[..1].to_vec(), 1, "query");
    let url = format!("{URL}?search=b");
    record_at(
        &mut cache,
        &mut storage,
        &url,
        &posts(),
        &search,
        Kind::List,
        text,
        1100.0,
    );
    // A refresh whose delta page has another key.
    let mut delta = Query::new();
    delta.search("a stand-in for the delta's filter").unwrap();
    let at = cache.stamp(1200.0);
    let text = envelope(vec![], 0, "delta");
    let changes = cache
        .plan_response(None, &posts(), &delta, Kind::List, text, at)
        .unwrap();
    refresh_posts(&mut cache, &mut storage, changes, &swept(&three()), 1200.0);
    let mut sorted = Query::new();
    sorted.sort("fields.title", Direction::Asc).unwrap();
    for cache in [&mut cache, &mut storage.load("r")] {
        let answer = body(&cache.answer_list(URL, &posts(), &sorted).unwrap());
        let keys: Vec<&String> = answer.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["data", "meta", "status"], "{answer}");
    }
}

/// A list record whose envelope is corrupt (no `data` marker, not an
/// object) is skipped and reported at a load, as any corrupt entry: the
/// list is not complete, never answered without its `data` or with text
/// that is not JSON. Before, such an envelope was used as read.
#[test]
fn a_list_record_with_a_corrupt_envelope_is_skipped_and_reported() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut value = list(three(), 3);
    value["status"] = json!("ok");
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &Query::new(),
        Kind::List,
        &value,
    );
    let key = storage
        .entries
        .keys()
        .find(|k| k.starts_with("l:"))
        .unwrap()
        .clone();
    let stored: Value = serde_json::from_str(&storage.entries[&key]).unwrap();
    let mut sorted = Query::new();
    sorted.sort("fields.title", Direction::Asc).unwrap();
    let valid = "{\"data\":\u{0},\"status\":\"ok\",\"meta\":\u{1}}";
    for envelope in [
        valid,
        r#"{"status":"ok"}"#,
        "{",
        "x",
        "",
        "{\"data\":\u{0},\"d\":\u{0}}",
    ] {
        let mut record = stored.clone();
        record["envelope"] = json!(envelope);
        let mut entries = storage.entries.clone();
        entries.insert(key.clone(), record.to_string());
        let mut reloaded = Cache::new("r");
        let (errors, _) = reloaded.load(entries.into_iter().collect());
        let answer = reloaded.answer_list("-", &posts(), &sorted);
        if envelope == valid {
            assert!(errors.is_empty(), "{errors:?}");
            let keys: Vec<String> = body(&answer.unwrap())
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            assert_eq!(keys, ["data", "status", "meta"]);
        } else {
            assert_eq!(errors.len(), 1, "{envelope:?}");
            assert_eq!(errors[0].code(), "decode");
            assert_eq!(answer.unwrap_err().code(), "not_cached", "{envelope:?}");
        }
    }
}

/// A complete list keeps the selection it was fetched with, in memory and
/// in its record: a refresh (here its last step, in a cache just loaded)
/// fetches again each member whose copy a later, narrower response
/// replaced, and no other.
#[test]
fn a_list_keeps_its_selection_for_its_refresh_across_a_reload() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let mut wide = Query::new();
    wide.fields("title,price").unwrap();
    record(
        &mut cache,
        &mut storage,
        URL,
        &posts(),
        &wide,
        Kind::List,
        &list(three(), 3),
    );
    // A newer revision of the second post, with its title alone (one page
    // of a longer listing: it makes no list complete).
    let mut narrow = Query::new();
    narrow.fields("title").unwrap().limit(1).unwrap();
    record_newer_narrow(&mut cache, &mut storage, &narrow);
    let swept: Vec<Swept> = three()
        .iter()
        .map(|doc| {
            (
                doc["meta"]["id"].as_str().unwrap().as_bytes().to_vec(),
                None,
            )
        })
        .collect();
    let second = format!("{:018}", 2).into_bytes();
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let missing = cache.refresh_missing(&posts(), &Query::new(), &Change::default(), &swept);
        assert_eq!(missing, std::slice::from_ref(&second), "{name}");
    }
}

/// A document two lists hold, deleted by two tabs each refreshing one list
/// (each found the other list still holding it, in its own memory), is
/// deleted at the next load: neither list holds it any more. When one list
/// still holds it (only the other was refreshed), it stays, and that list
/// answers with it. Before, it was served after a reload by no list's
/// account (its own URL, `document(id)`).
#[test]
fn a_document_two_tabs_each_refreshed_out_of_a_list_is_deleted_at_a_load() {
    let docs = Endpoint::Documents;
    let third = Endpoint::Document(format!("{:018}", 3));
    for both in [true, false] {
        let (mut a, mut storage) = (Cache::new("a"), Storage::default());
        record_three(&mut a, &mut storage);
        record(
            &mut a,
            &mut storage,
            "docs",
            &docs,
            &Query::new(),
            Kind::List,
            &list(three(), 3),
        );
        let mut b = storage.load("b");
        // Tab a refreshes posts; tab b, which read the storage before, the documents.
        refresh_posts(
            &mut a,
            &mut storage,
            Change::default(),
            &swept(&three()[..2]),
            2000.0,
        );
        if both {
            let refresh = b.plan_refresh(
                &docs,
                &Query::new(),
                Change::default(),
                &swept(&three()[..2]),
                2500.0,
            );
            let (change, counts) = refresh.unwrap();
            assert_eq!(counts.1, 1);
            storage.write(&change);
            b.apply(change);
        }
        let mut reloaded = storage.load("r");
        let answer = reloaded.answer_single("third-url", &third, &Query::new());
        let listed = reloaded.answer_list("docs", &docs, &Query::new());
        if both {
            assert_eq!(answer.unwrap_err().code(), "not_cached");
            assert_eq!(body(&listed.unwrap())["data"].as_array().unwrap().len(), 2);
        } else {
            assert!(answer.is_ok(), "{answer:?}");
            assert_eq!(body(&listed.unwrap())["data"].as_array().unwrap().len(), 3);
        }
    }
}

/// An alias answers with the document its latest-arriving response names,
/// in memory and after a reload alike, whatever order the responses were
/// recorded in.
#[test]
fn an_alias_answers_by_its_response_that_arrived_last() {
    let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
    let alias = Endpoint::Alias("home".into());
    let (newer, older) = (
        doc(8, 1, "newer", "2024-01-08T00:00:00Z"),
        doc(7, 1, "older", "2024-01-07T00:00:00Z"),
    );
    let responses = [
        (Rc::new(newer.to_string()), 2000.0),
        (Rc::new(older.to_string()), 1000.0),
    ];
    for (text, at) in responses {
        record_at(
            &mut cache,
            &mut storage,
            "alias-url",
            &alias,
            &Query::new(),
            Kind::Document,
            text,
            at,
        );
    }
    for (name, cache) in [("memory", &mut cache), ("reload", &mut storage.load("r"))] {
        let answer = body(
            &cache
                .answer_single("other-url", &alias, &Query::new())
                .unwrap(),
        );
        assert_eq!(answer["fields"]["title"], "newer", "{name}");
    }
}

/// A list record of an earlier version does not say what selection its
/// list was fetched with: a refresh reads it from the members (the one most
/// were fetched with), and the record it writes keeps it. A list fetched
/// with a selection fetches none of its members again for that; one
/// fetched whole fetches again a member a narrower response replaced.
/// (Before, one way or the other was wrong: every member of the first, or
/// none of the second, was fetched again.)
#[test]
fn a_list_record_without_its_selection_reads_it_from_its_members() {
    let strip = |storage: &mut Storage| {
        for (key, text) in storage.entries.iter_mut() {
            if key.starts_with("l:") {
                let mut value: Value = serde_json::from_str(text).unwrap();
                assert!(value.as_object_mut().unwrap().remove("selection").is_some());
                *text = value.to_string();
            }
        }
    };
    let mut title = Query::new();
    title.fields("title").unwrap();
    let swept = swept(&three());
    for prefetched in [title.clone(), Query::new()] {
        let (mut cache, mut storage) = (Cache::new("t"), Storage::default());
        record(
            &mut cache,
            &mut storage,
            URL,
            &posts(),
            &prefetched,
            Kind::List,
            &list(three(), 3),
        );
        // A newer copy of the second post, with its title alone.
        let mut narrow = title.clone();
        narrow.limit(1).unwrap();
        record_newer_narrow(&mut cache, &mut storage, &narrow);
        strip(&mut storage);
        let reloaded = storage.load("r");
        let missing = reloaded.refresh_missing(&posts(), &Query::new(), &Change::default(), &swept);
        let expected: Vec<Vec<u8>> = match prefetched.selection() {
            Some(_) => Vec::new(),
            None => vec![format!("{:018}", 2).into_bytes()],
        };
        assert_eq!(missing, expected, "prefetched with {prefetched}");
        // The refresh's record says it.
        let (change, _) = reloaded
            .plan_refresh(&posts(), &Query::new(), Change::default(), &swept, 5000.0)
            .unwrap();
        storage.write(&change);
        let records: Vec<Value> = (storage.entries.iter())
            .filter(|(key, _)| key.starts_with("l:"))
            .map(|(_, text)| serde_json::from_str(text).unwrap())
            .collect();
        let wanted = if prefetched.selection().is_some() {
            "fields/title,meta"
        } else {
            "*"
        };
        assert_eq!(records.len(), 1);
        assert_eq!(
            records[0]["selection"], wanted,
            "prefetched with {prefetched}"
        );
    }
}

/// A deletion held by a list counts at a load where that list is no longer
/// complete (another member was deleted since): only complete lists hold
/// documents. Before, the record of a list that could never answer again
/// kept the deleted document served after every reload.
#[test]
fn a_held_deletion_counts_when_the_list_holding_it_is_not_complete() {
    let collection = |name: &str| Endpoint::Collection(name.into());
    let docs = |ids: &[u32]| -> Vec<Value> {
        ids.iter()
            .map(|&id| doc(id, 1, "t", "2024-01-01T00:00:00.000Z"))
            .collect()
    };
    let mut storage = Storage::default();
    let mut a = Cache::new("a");
    record(
        &mut a,
        &mut storage,
        "up",
        &posts(),
        &Query::new(),
        Kind::List,
        &list(docs(&[1, 2, 3]), 3),
    );
    record(
        &mut a,
        &mut storage,
        "un",
        &collection("news"),
        &Query::new(),
        Kind::List,
        &list(docs(&[4, 5]), 2),
    );
    let mut b = storage.load("b");
    record(
        &mut a,
        &mut storage,
        "uf",
        &collection("featured"),
        &Query::new(),
        Kind::List,
        &list(docs(&[3, 4]), 2),
    );
    // 3 and 4 are deleted: tab b refreshes posts (3: deleted), tab a news
    // (4: held, as featured holds it in a's memory).
    let refresh =
        |cache: &mut Cache, storage: &mut Storage, endpoint: &Endpoint, listed: &[u32], at: f64| {
            let (change, counts) = cache
                .plan_refresh(
                    endpoint,
                    &Query::new(),
                    Change::default(),
                    &swept(&docs(listed)),
                    at,
                )
                .unwrap();
            storage.write(&change);
            cache.apply(change);
            counts.1
        };
    assert_eq!(refresh(&mut b, &mut storage, &posts(), &[1, 2], 2000.0), 1);
    assert_eq!(
        refresh(&mut a, &mut storage, &collection("news"), &[5], 3000.0),
        1
    );
    for round in 0..2 {
        let mut reloaded = storage.load(&format!("r{round}"));
        for id in [3, 4] {
            let single = reloaded.answer_single(
                "x",
                &Endpoint::Document(format!("{id:018}")),
                &Query::new(),
            );
            assert_eq!(
                single.unwrap_err().code(),
                "not_cached",
                "round {round}: {id}"
            );
        }
        let lists = reloaded.complete_lists();
        assert_eq!(lists.len(), 2, "{lists:?}");
    }
}
