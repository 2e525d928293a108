//! Table tests for every projection rule of SPEC.md section 3.
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

#[path = "common/value_api.rs"]
mod value_api;

use content_repo::{Direction, Query, Selection};
use serde_json::{json, Value};
use value_api::{apply_query, compare_values, select, select_any};

fn project(doc: &Value, selection: &str) -> Value {
    select(doc, &Selection::parse(selection).unwrap()).unwrap()
}

fn document() -> Value {
    json!({
        "fields": {
            "title": "T",
            "price": null,
            "author": {"name": "N", "email": "E"},
            "gallery": [{"url": "u1", "alt": "a1"}, {"alt": "a2"}, "loose", 7, null, [{"url": "n1"}, 3]],
            "colors": ["red", "blue"],
            "empty": [],
            "scalars": [1, 2],
            "nested": {"a": {"b": 1, "c": 2}, "d": {"b": 3}}
        },
        "meta": {"id": "1", "revision": 2, "createdAt": "2024-01-01T00:00:00Z"},
        "extra": true
    })
}

#[test]
fn scopes_and_shorthand() {
    let doc = document();
    let meta = doc["meta"].clone();
    assert_eq!(
        project(&doc, "title"),
        json!({"fields": {"title": "T"}, "meta": meta})
    );
    assert_eq!(
        project(&doc, "fields/title"),
        json!({"fields": {"title": "T"}, "meta": meta})
    );
    assert_eq!(
        project(&doc, "fields(title)"),
        json!({"fields": {"title": "T"}, "meta": meta})
    );
    assert_eq!(project(&doc, "meta/id"), json!({"meta": {"id": "1"}}));
    assert_eq!(project(&doc, "meta"), json!({"meta": meta}));
    assert_eq!(
        project(&doc, "fields"),
        json!({"fields": doc["fields"], "meta": meta})
    );
    // keys outside the scopes only without a selection
    assert_eq!(project(&doc, "*"), doc);
    assert_eq!(project(&doc, "*, title"), doc);
    assert_eq!(
        project(&doc, "title,meta(id,revision)"),
        json!({"fields": {"title": "T"}, "meta": {"id": "1", "revision": 2}})
    );
}

#[test]
fn missing_is_not_selected_null_stays() {
    let doc = document();
    assert_eq!(
        project(&doc, "meta(id),nope"),
        json!({"fields": {}, "meta": {"id": "1"}})
    );
    assert_eq!(
        project(&doc, "meta(id),price"),
        json!({"fields": {"price": null}, "meta": {"id": "1"}})
    );
    assert_eq!(
        project(&doc, "meta(id),price/x"),
        json!({"fields": {}, "meta": {"id": "1"}})
    );
    assert_eq!(
        project(&doc, "meta(id),title/x"),
        json!({"fields": {}, "meta": {"id": "1"}})
    );
    assert_eq!(project(&doc, "meta(id,nope)"), json!({"meta": {"id": "1"}}));
    // an object always gives a result
    assert_eq!(
        project(&doc, "meta(id),author/nope"),
        json!({"fields": {"author": {}}, "meta": {"id": "1"}})
    );
    // no fields scope in the document: not selected
    let bare = json!({"meta": {"id": "1"}});
    assert_eq!(project(&bare, "title"), json!({"meta": {"id": "1"}}));
}

#[test]
fn arrays_element_by_element() {
    let doc = document();
    let f = |selection: &str| project(&doc, &format!("meta(id),{selection}"))["fields"].clone();
    // objects keep their positions, scalars are dropped, nested arrays descended
    assert_eq!(
        f("gallery/url"),
        json!({"gallery": [{"url": "u1"}, {}, [{"url": "n1"}]]})
    );
    // a non-empty array of which nothing remains is not selected
    assert_eq!(f("scalars/x"), json!({}));
    assert_eq!(f("colors/x"), json!({}));
    // an empty array stays []
    assert_eq!(f("empty/x"), json!({"empty": []}));
    // selected whole: every element
    assert_eq!(f("colors"), json!({"colors": ["red", "blue"]}));
    // `*` on an array: every element
    assert_eq!(f("colors/*"), json!({"colors": ["red", "blue"]}));
    assert_eq!(
        f("gallery/*/url"),
        json!({"gallery": [{"url": "u1"}, {}, [{"url": "n1"}]]})
    );
}

#[test]
fn wildcards() {
    let doc = document();
    let f = |selection: &str| project(&doc, &format!("meta(id),{selection}"))["fields"].clone();
    assert_eq!(
        f("nested/*/b"),
        json!({"nested": {"a": {"b": 1}, "d": {"b": 3}}})
    );
    assert_eq!(
        f("nested(*/b,a/c)"),
        json!({"nested": {"a": {"b": 1, "c": 2}, "d": {"b": 3}}})
    );
    assert_eq!(
        f("author/*"),
        json!({"author": {"name": "N", "email": "E"}})
    );
    assert_eq!(project(&doc, "fields/*, meta(id)")["fields"], doc["fields"]);
}

#[test]
fn several_items_on_one_parent_merge() {
    let doc = document();
    let f = |selection: &str| project(&doc, &format!("meta(id),{selection}"))["fields"].clone();
    assert_eq!(
        f("author(name),author(email)"),
        json!({"author": {"name": "N", "email": "E"}})
    );
    assert_eq!(
        f("author/name,author"),
        json!({"author": {"name": "N", "email": "E"}})
    );
    assert_eq!(
        f("nested/a/b,nested/d"),
        json!({"nested": {"a": {"b": 1}, "d": {"b": 3}}})
    );
}

#[test]
fn deep_nesting_is_bounded() {
    let mut value = json!("x");
    for _ in 0..500 {
        value = json!([value]);
    }
    let doc = json!({"fields": {"a": value}, "meta": {}});
    let selection = Selection::parse("fields/a/b").unwrap();
    assert_eq!(
        select(&doc, &selection).unwrap(),
        json!({"fields": {}, "meta": {}})
    );
    // hand-built deep objects compare without overflowing either
    let mut deep = json!(1);
    for _ in 0..500 {
        deep = json!({"a": deep});
    }
    assert_eq!(
        compare_values(&deep, &deep.clone()),
        std::cmp::Ordering::Equal
    );
}

#[test]
fn list_envelopes_and_includes() {
    let list = json!({
        "data": [document(), {"fields": {"title": "U"}, "meta": {"id": "2"}}],
        "meta": {"count": 2, "limit": 25, "offset": 0, "total": 2},
        "includes": {"author": [{"fields": {"name": "N", "bio": "B"}, "meta": {"id": "9"}}]}
    });
    let selection = Selection::parse("title,meta(id)").unwrap();
    let out = select_any(&list, &selection).unwrap();
    assert_eq!(
        out["data"],
        json!([{"fields": {"title": "T"}, "meta": {"id": "1"}}, {"fields": {"title": "U"}, "meta": {"id": "2"}}])
    );
    assert_eq!(out["meta"], list["meta"]);
    assert_eq!(out["includes"], list["includes"]);
    let selection = Selection::parse("title,meta(id),includes(author/fields/name)").unwrap();
    let out = select_any(&list, &selection).unwrap();
    assert_eq!(
        out["includes"],
        json!({"author": [{"fields": {"name": "N"}}]})
    );
    // an array of documents
    let out = select_any(&list["data"], &Selection::parse("meta/id").unwrap()).unwrap();
    assert_eq!(out, json!([{"meta": {"id": "1"}}, {"meta": {"id": "2"}}]));
    // not documents
    assert!(select_any(&json!([1]), &selection).is_err());
    assert!(select(&json!("x"), &selection).is_err());
}

#[test]
fn json_mask_overlap() {
    // well-formed, explicit scopes, distinct paths, no nested arrays: what json-mask gives
    let doc = json!({"fields": {"g": [{"a": 1}, {"b": 2}], "o": {"a": {}}}, "meta": {"id": 1}});
    assert_eq!(
        project(&doc, "fields(g/a),meta"),
        json!({"fields": {"g": [{"a": 1}, {}]}, "meta": {"id": 1}})
    );
    assert_eq!(
        project(&doc, "fields(o/a/b),meta"),
        json!({"fields": {"o": {"a": {}}}, "meta": {"id": 1}})
    );
    assert_eq!(
        project(&doc, "fields(g/*),meta"),
        json!({"fields": {"g": [{"a": 1}, {"b": 2}]}, "meta": {"id": 1}})
    );
}

#[test]
fn apply_query_sorts_pages_and_selects() {
    let docs: Vec<Value> = (0..10)
        .map(|i| json!({"fields": {"n": (i * 7) % 10, "t": format!("t{i}")}, "meta": {"id": i.to_string()}}))
        .collect();
    let mut query = Query::new();
    query
        .sort("fields.n", Direction::Desc)
        .unwrap()
        .offset(2)
        .unwrap()
        .limit(3)
        .unwrap()
        .fields("n")
        .unwrap();
    let out = apply_query(&Value::Array(docs.clone()), &query).unwrap();
    assert_eq!(
        out["meta"],
        json!({"count": 3, "limit": 3, "offset": 2, "total": 10})
    );
    let ns: Vec<i64> = out["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["fields"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(ns, [7, 6, 5]);
    assert_eq!(
        out["data"][0],
        json!({"fields": {"n": 7}, "meta": {"id": "1"}})
    );
    // no limit: the service's page size of 25, from offset
    let mut query = Query::new();
    query.offset(8).unwrap();
    let out = apply_query(&json!({"data": docs, "includes": {}}), &query).unwrap();
    assert_eq!(
        out["meta"],
        json!({"count": 2, "limit": 25, "offset": 8, "total": 10})
    );
    let many: Vec<Value> = (0..30)
        .map(|i| json!({"fields": {"n": i}, "meta": {"id": i.to_string()}}))
        .collect();
    let page = apply_query(&Value::Array(many), &Query::new()).unwrap();
    assert_eq!(
        page["meta"],
        json!({"count": 25, "limit": 25, "offset": 0, "total": 30})
    );
    assert_eq!(out["includes"], json!({}));
    // offset past the end
    let mut query = Query::new();
    query.offset(50).unwrap().limit(5).unwrap();
    let out = apply_query(&json!([]), &query).unwrap();
    assert_eq!(
        out,
        json!({"data": [], "meta": {"count": 0, "limit": 5, "offset": 50, "total": 0}})
    );
    assert_eq!(
        apply_query(&json!(1), &Query::new()).unwrap_err().code(),
        "invalid_argument"
    );
}

#[test]
fn repeated_selected_keys_and_bad_text() {
    use content_repo::engine::select::{write_document, Plan};
    let plan = Plan::compile(&Selection::parse("title,meta(id)").unwrap()).unwrap();
    // Repeated keys are read as JSON.parse reads them: the last value.
    for (text, expected) in [
        (
            r#"{"fields":{"title":1,"title":2},"meta":{"id":"1"}}"#,
            r#"{"fields":{"title":2},"meta":{"id":"1"}}"#,
        ),
        (
            r#"{"fields":{"title":1},"fields":{"title":2},"meta":{"id":"1"}}"#,
            r#"{"fields":{"title":2},"meta":{"id":"1"}}"#,
        ),
        (
            r#"{"fields":{"x":1,"x":2,"title":"t"},"meta":{"id":"1","id2":0},"other":1,"other":2}"#,
            r#"{"fields":{"title":"t"},"meta":{"id":"1"}}"#,
        ),
    ] {
        let mut out = b"keep".to_vec();
        write_document(text, &plan, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("keep{expected}"),
            "{text}"
        );
    }
    for text in [
        r#"{"fields":{"title":1},"meta":{"id":"1"}"#,
        r#"[1,2]"#,
        r#"{"fields":{"title":1},"meta":{"id":"1"}} trailing"#,
    ] {
        let mut out = b"keep".to_vec();
        assert!(write_document(text, &plan, &mut out).is_err(), "{text}");
        assert_eq!(out, b"keep", "nothing written on refusal");
    }
}
