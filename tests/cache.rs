//! The offline cache's rules, natively: revisions, stale responses,
//! completeness, coverage, and persistence round trips.
#![cfg(not(target_arch = "wasm32"))]

use content_repo::cache::{endpoint_key, Cache};
#[path = "common/value_api.rs"]
mod value_api;

use content_repo::{Direction, Endpoint, Query};
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

fn record(cache: &mut Cache, url: &str, query: &Query, body: &Value) {
    let change = cache.plan_list(url, &posts(), query, body, 1000.0);
    cache.apply(change);
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
    let mut cache = Cache::new();
    record(&mut cache, URL, &Query::new(), &list(three(), 3));
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
    let expected = apply_query(&list(three(), 3), &query).unwrap();
    assert_eq!(answer.body, expected);
    assert_eq!(
        answer.body["data"][0]["fields"],
        json!({ "title": "a", "author": { "name": "a2" } })
    );
    // No limit: the service's default page size, like the service.
    let all = cache.answer_list("other", &posts(), &Query::new()).unwrap();
    assert_eq!(all.body["meta"]["limit"], 25);
    assert_eq!(all.body["meta"]["total"], 3);
    // The exact URL answers with the body as received.
    assert_eq!(
        cache
            .answer_list(URL, &posts(), &Query::new())
            .unwrap()
            .body,
        list(three(), 3)
    );
    // Raw and typed forms of an endpoint share the cache key.
    assert_eq!(
        endpoint_key(&Endpoint::raw("collections/posts").unwrap()),
        endpoint_key(&posts())
    );
}

#[test]
fn an_incomplete_list_cannot_answer_a_re_sorted_query() {
    let mut cache = Cache::new();
    let mut first_page = Query::new();
    first_page.limit(2).unwrap();
    record(
        &mut cache,
        &format!("{URL}?limit=2"),
        &first_page,
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
    // But the exact URL it was fetched with still answers.
    assert!(cache
        .answer_list(&format!("{URL}?limit=2"), &posts(), &first_page)
        .is_ok());
}

#[test]
fn projected_documents_cannot_answer_a_wider_selection_or_unselected_sort_keys() {
    let mut cache = Cache::new();
    let mut narrow = Query::new();
    narrow.fields("title").unwrap();
    record(
        &mut cache,
        URL,
        &narrow,
        &apply_query(&list(three(), 3), &narrow).unwrap(),
    );
    for (selection, sort, ok) in [
        (Some("title"), None, true),
        (Some("meta(id)"), None, true),
        (Some("title,price"), None, false),
        (None, None, false),
        (Some("*"), None, false),
        (Some("title"), Some("fields.title"), true),
        (Some("title"), Some("fields.price"), false),
        (Some("title"), Some("meta.revision"), true),
    ] {
        let mut query = Query::new();
        if let Some(selection) = selection {
            query.fields(selection).unwrap();
        }
        if let Some(key) = sort {
            query.sort(key, Direction::Asc).unwrap();
        }
        let answer = cache.answer_list("x", &posts(), &query);
        assert_eq!(
            answer.is_ok(),
            ok,
            "{selection:?} sorted by {sort:?}: {answer:?}"
        );
        if let Err(error) = answer {
            assert_eq!(error.code(), "not_cached");
        }
    }
    // Meta named explicitly without the default order's keys cannot be sorted locally.
    let mut cache = Cache::new();
    let mut ids_only = Query::new();
    ids_only.fields("title,meta(id)").unwrap();
    record(
        &mut cache,
        URL,
        &ids_only,
        &apply_query(&list(three(), 3), &ids_only).unwrap(),
    );
    let error = cache.answer_list("x", &posts(), &ids_only).unwrap_err();
    assert!(error.to_string().contains("meta.createdAt"), "{error}");
}

#[test]
fn a_lower_revision_never_replaces_a_higher_one_and_a_stale_response_changes_nothing() {
    let mut cache = Cache::new();
    let newer = list(vec![doc(1, 5, "new", "2024-01-01T00:00:00.000Z")], 1);
    let older = list(vec![doc(1, 4, "old", "2024-01-01T00:00:00.000Z")], 1);
    record(&mut cache, URL, &Query::new(), &newer);
    // The late, stale response plans nothing at all.
    assert!(cache
        .plan_list(URL, &posts(), &Query::new(), &older, 2000.0)
        .is_empty());
    // Even if planned before the newer one was applied, applying it cannot undo newer data.
    let mut racing = Cache::new();
    let stale_plan = racing.plan_list(URL, &posts(), &Query::new(), &older, 1.0);
    let fresh_plan = racing.plan_list(URL, &posts(), &Query::new(), &newer, 2.0);
    racing.apply(fresh_plan);
    racing.apply(stale_plan);
    let mut by_id = Query::new();
    by_id.fields("title").unwrap();
    let single = racing
        .answer_single("y", &Endpoint::Document(format!("{:018}", 1)), &by_id)
        .unwrap();
    assert_eq!(single.body["fields"]["title"], "new");
    assert_eq!(
        cache
            .answer_list(URL, &posts(), &Query::new())
            .unwrap()
            .body,
        newer
    );
    // A document response is subject to the same rule.
    let stale_doc = doc(1, 3, "older", "2024-01-01T00:00:00.000Z");
    assert!(cache
        .plan_single(
            "d",
            &Endpoint::Document(format!("{:018}", 1)),
            &Query::new(),
            &stale_doc,
            3.0
        )
        .is_empty());
    // A higher revision replaces.
    let newest = list(vec![doc(1, 6, "newest", "2024-01-01T00:00:00.000Z")], 1);
    record(&mut cache, URL, &Query::new(), &newest);
    let answer = cache.answer_list("z", &posts(), &Query::new()).unwrap();
    assert_eq!(answer.body["data"][0]["fields"]["title"], "newest");
}

#[test]
fn single_documents_and_aliases() {
    let mut cache = Cache::new();
    let body = doc(7, 2, "seven", "2024-01-01T00:00:00.000Z");
    let alias = Endpoint::Alias("home".into());
    let change = cache.plan_single("alias-url", &alias, &Query::new(), &body, 5.0);
    cache.apply(change);
    let mut query = Query::new();
    query.fields("title").unwrap();
    let answer = cache.answer_single("other-url", &alias, &query).unwrap();
    assert_eq!(
        answer.body,
        json!({ "fields": { "title": "seven" }, "meta": body["meta"].clone() })
    );
    let by_id = cache
        .answer_single(
            "u",
            &Endpoint::Document(format!("{:018}", 7)),
            &Query::new(),
        )
        .unwrap();
    assert_eq!(by_id.body, body);
    assert_eq!(
        cache
            .answer_single("u", &Endpoint::Document("8".into()), &Query::new())
            .unwrap_err()
            .code(),
        "not_cached"
    );
    let mut other_locale = Query::new();
    other_locale.locale("de_DE").unwrap();
    assert_eq!(
        cache
            .answer_single("u", &alias, &other_locale)
            .unwrap_err()
            .code(),
        "not_cached"
    );
}

#[test]
fn filters_search_and_tags_are_answered_only_for_the_exact_url() {
    let mut cache = Cache::new();
    record(&mut cache, URL, &Query::new(), &list(three(), 3));
    for text in [
        "search=a",
        "includeTags%5B0%5D=x",
        "filters%5B0%5D%5B*.fields.title%5D%5Bequal%5D=a",
        "includes=1",
        "embedAssets=true",
    ] {
        let query = Query::parse(text).unwrap();
        assert_eq!(
            cache.answer_list("x", &posts(), &query).unwrap_err().code(),
            "not_cached",
            "{text}"
        );
    }
    // A filtered response is never taken as the complete list.
    let mut cache = Cache::new();
    let filtered = Query::parse("search=a").unwrap();
    record(
        &mut cache,
        &format!("{URL}?search=a"),
        &filtered,
        &list(three()[..1].to_vec(), 1),
    );
    assert_eq!(
        cache
            .answer_list("x", &posts(), &Query::new())
            .unwrap_err()
            .code(),
        "not_cached"
    );
    assert!(cache
        .answer_list(&format!("{URL}?search=a"), &posts(), &filtered)
        .is_ok());
}

#[test]
fn stored_entries_load_back_and_corrupt_ones_are_skipped() {
    let mut cache = Cache::new();
    let mut query = Query::new();
    query.fields("title,price").unwrap();
    let body = apply_query(&list(three(), 3), &query).unwrap();
    let change = cache.plan_list(URL, &posts(), &query, &body, 42.0);
    let writes = change.writes();
    cache.apply(change);
    assert!(writes.iter().any(|(key, _)| key.starts_with("document:")));
    assert!(writes
        .iter()
        .any(|(key, _)| key.starts_with("endpoint:collections/posts")));
    let mut loaded = Cache::new();
    for (key, text) in &writes {
        loaded.load(key, text).unwrap();
    }
    let mut sorted = Query::new();
    sorted
        .sort("fields.price", Direction::Desc)
        .unwrap()
        .fields("title")
        .unwrap();
    assert_eq!(
        loaded.answer_list("q", &posts(), &sorted).unwrap(),
        cache.answer_list("q", &posts(), &sorted).unwrap()
    );
    let mut broken = Cache::new();
    for (key, text) in [
        ("document:1", "{not json"),
        (
            "document:1",
            r#"{"v":0,"document":{},"selection":null,"locale":null,"fetched_at":1}"#,
        ),
        (
            "document:1",
            r#"{"v":1,"document":{"meta":{"id":"2"}},"selection":null,"locale":null,"fetched_at":1}"#,
        ),
        (
            "document:1",
            r#"{"v":1,"document":{"meta":{"id":"1"}},"selection":"a(","locale":null,"fetched_at":1}"#,
        ),
        ("whatever:1", r#"{"v":1}"#),
        ("endpoint:x", r#"{"v":1,"ids":"nope"}"#),
    ] {
        let error = broken.load(key, text).unwrap_err();
        assert_eq!(error.code(), "decode", "{key} {text}");
    }
    assert_eq!(broken.size(), 0, "nothing corrupt was kept");
}
