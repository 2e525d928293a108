//! Boundary cases of the local engine (`sortDocuments`, `selectFields`,
//! `applyQuery`, `DocumentStore`), shared by `tests/web.rs` and
//! `tests/node.rs`: each is a plain function that panics on failure.
#![cfg(target_arch = "wasm32")]

use content_repo::wasm::{
    apply_query, is_content_repo_error, select_fields, sort_documents, wasm_memory_bytes,
    JsDocumentStore,
};
use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::JsValue;

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

fn js(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

fn json(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
}

fn s(text: &str) -> JsValue {
    JsValue::from_str(text)
}

fn code<T>(result: Result<T, JsValue>) -> String {
    let Err(error) = result else {
        panic!("expected an error")
    };
    assert!(is_content_repo_error(&error), "not a ContentRepoError");
    get(&error, "code").as_string().unwrap_or_default()
}

const DOCS: &str = r#"[
  {"fields": {"title": "b", "price": 5, "gallery": [{"url": "u1", "alt": "x"}, {"alt": "y"}]}, "meta": {"id": "2", "createdAt": "2024-01-01T00:00:00Z", "revision": 1, "contentType": "p"}},
  {"fields": {"title": "a", "price": null}, "meta": {"id": "10", "createdAt": "2024-01-01T00:00:00Z", "revision": 1, "contentType": "p"}},
  {"fields": {"title": "\uff5e", "price": 7}, "meta": {"id": "3", "createdAt": "2023-01-01T00:00:00Z", "revision": 1, "contentType": "q"}},
  {"fields": {"title": "\ud83d\ude00", "price": 7}, "meta": {"id": "4", "createdAt": "2023-01-01T00:00:00+01:00", "revision": 1, "contentType": "q"}}
]"#;

fn ids(list: &JsValue) -> Vec<String> {
    Array::from(list)
        .iter()
        .map(|doc| {
            get(&get(&doc, "meta"), "id")
                .as_string()
                .unwrap_or_default()
        })
        .collect()
}

/// `sortDocuments` returns a new array of the same objects, in SPEC order.
pub(crate) fn sort_documents_orders_and_keeps_identity() {
    let docs = js(DOCS);
    let sorted = sort_documents(docs.clone(), s("sorting%5Bfields.price%5D=DESC")).unwrap();
    // 7, 7 (createdAt DESC: "3" is later than "4"), 5, null last
    assert_eq!(ids(&sorted), ["3", "4", "2", "10"]);
    assert!(Array::from(&sorted).includes(&Array::from(&docs).get(0), 0));
    assert_eq!(
        ids(&docs),
        ["2", "10", "3", "4"],
        "the input is not changed"
    );
    // code points, not UTF-16 units: U+FF5E before U+1F600
    let sorted = sort_documents(docs.clone(), s("sorting%5Bfields.title%5D=ASC")).unwrap();
    assert_eq!(ids(&sorted), ["10", "2", "3", "4"]);
    // the default order: createdAt DESC, then id DESC as a number
    let sorted = sort_documents(docs, JsValue::UNDEFINED).unwrap();
    assert_eq!(ids(&sorted), ["10", "2", "3", "4"]);
}

/// `selectFields` projects documents, arrays and envelopes; `*` keeps all.
pub(crate) fn select_fields_projects_documents_and_lists() {
    let docs = js(DOCS);
    let one = Array::from(&docs).get(0);
    let out = select_fields(one.clone(), s("title, gallery/*/url")).unwrap();
    assert_eq!(
        json(&get(&out, "fields")),
        r#"{"title":"b","gallery":[{"url":"u1"},{}]}"#
    );
    assert_eq!(json(&get(&out, "meta")), json(&get(&one, "meta")));
    let list = js(&format!(
        r#"{{"data": {DOCS}, "includes": {{"a": []}}, "meta": {{"total": 4}}}}"#
    ));
    let out = select_fields(list.clone(), s("meta(id)")).unwrap();
    assert_eq!(
        json(&out),
        r#"{"data":[{"meta":{"id":"2"}},{"meta":{"id":"10"}},{"meta":{"id":"3"}},{"meta":{"id":"4"}}],"includes":{"a":[]},"meta":{"total":4}}"#
    );
    let out = select_fields(docs.clone(), s("meta/id")).unwrap();
    assert!(Array::is_array(&out));
    assert_eq!(select_fields(list.clone(), s("*")).unwrap(), list);
}

/// `applyQuery` sorts, pages and selects, giving a list envelope.
pub(crate) fn apply_query_returns_a_list_envelope() {
    let docs = js(DOCS);
    let query = s("sorting%5Bfields.title%5D=ASC&fields=meta%2Fid&limit=2&offset=1");
    let out = apply_query(docs.clone(), query).unwrap();
    assert_eq!(
        json(&out),
        r#"{"data":[{"meta":{"id":"2"}},{"meta":{"id":"3"}}],"meta":{"count":2,"limit":2,"offset":1,"total":4}}"#
    );
    // no limit: the service's page size of 25
    let out = apply_query(docs, JsValue::NULL).unwrap();
    assert_eq!(
        json(&get(&out, "meta")),
        r#"{"count":4,"limit":25,"offset":0,"total":4}"#
    );
}

/// Wrong arguments throw typed errors; nothing panics.
pub(crate) fn local_engine_arguments_throw_typed_errors() {
    let docs = js(DOCS);
    assert_eq!(
        code(sort_documents(s("x"), JsValue::NULL)),
        "invalid_argument"
    );
    assert_eq!(
        code(sort_documents(js("[1]"), JsValue::NULL)),
        "invalid_argument"
    );
    assert_eq!(
        code(sort_documents(docs.clone(), s("sorting%5Btitle%5D=ASC"))),
        "invalid_sort"
    );
    assert_eq!(
        code(sort_documents(docs.clone(), JsValue::from(3))),
        "invalid_argument"
    );
    assert_eq!(
        code(select_fields(docs.clone(), s("a(b"))),
        "invalid_selection"
    );
    assert_eq!(
        code(select_fields(docs.clone(), JsValue::NULL)),
        "invalid_argument"
    );
    assert_eq!(code(select_fields(s("x"), s("title"))), "invalid_argument");
    assert_eq!(
        code(select_fields(js("[null]"), s("title"))),
        "invalid_argument"
    );
    assert_eq!(
        code(apply_query(js("{}"), JsValue::NULL)),
        "invalid_argument"
    );
    // values JSON cannot hold
    let cyclic = js(r#"{"fields": {"a": {}}, "meta": {"id": "1"}}"#);
    let inner = get(&get(&cyclic, "fields"), "a");
    Reflect::set(&inner, &s("self"), &inner).unwrap();
    let list = Array::of1(&cyclic);
    assert_eq!(code(select_fields(list.into(), s("a"))), "invalid_argument");
}

/// `DocumentStore`: writes, the revision rule, queries, typed errors.
pub(crate) fn document_store_round_trip() {
    let mut store = JsDocumentStore::new();
    let text = format!(r#"{{"data": {DOCS}, "meta": {{"count": 4}}}}"#);
    assert_eq!(store.put_json(s(&text)).unwrap(), 4);
    assert_eq!(store.size(), 4);
    let page = store
        .query(
            s("sorting%5Bfields.price%5D=DESC&fields=meta%2Fid&limit=2"),
            JsValue::UNDEFINED,
        )
        .unwrap();
    assert_eq!(
        json(&page),
        r#"{"data":[{"meta":{"id":"3"}},{"meta":{"id":"4"}}],"meta":{"count":2,"limit":2,"offset":0,"total":4}}"#
    );
    let only_q = store
        .query(JsValue::NULL, js(r#"{"contentType": "q"}"#))
        .unwrap();
    assert_eq!(ids(&get(&only_q, "data")), ["3", "4"]);
    // a stale write is ignored, a newer one replaces
    let stale = js(r#"{"fields": {"price": 99}, "meta": {"id": "2", "revision": 0}}"#);
    assert_eq!(store.put(stale).unwrap(), 0);
    let newer = js(r#"[{"fields": {"price": 99}, "meta": {"id": "2", "revision": 2}}]"#);
    assert_eq!(store.put(newer).unwrap(), 1);
    let page = store
        .query(
            s("sorting%5Bfields.price%5D=DESC&limit=1"),
            JsValue::UNDEFINED,
        )
        .unwrap();
    assert_eq!(ids(&get(&page, "data")), ["2"]);
    assert_eq!(
        json(&get(&store.get(s("2")).unwrap(), "fields")),
        r#"{"price":99}"#
    );
    assert!(store.get(s("nope")).unwrap().is_undefined());
    // malformed or truncated text: decode, store unchanged
    assert_eq!(code(store.put_json(s(&text[..text.len() / 2]))), "decode");
    assert_eq!(code(store.put_json(s("[{\"meta\": {}}]"))), "decode");
    assert_eq!(code(store.put_json(JsValue::from(1))), "invalid_argument");
    assert_eq!(
        code(store.put(js("[{\"fields\": {}}]"))),
        "invalid_argument"
    );
    assert_eq!(code(store.put(s("x"))), "invalid_argument");
    assert_eq!(
        code(store.query(s("limit=0"), JsValue::UNDEFINED)),
        "invalid_argument"
    );
    assert_eq!(code(store.query(JsValue::NULL, s("q"))), "invalid_argument");
    assert_eq!(store.size(), 4);
    assert!(store.delete(s("2")).unwrap());
    assert!(!store.delete(s("2")).unwrap());
    assert_eq!(code(store.delete(JsValue::from(2))), "invalid_argument");
    store.clear();
    assert_eq!(store.size(), 0);
    assert!(wasm_memory_bytes() > 0.0);
}
