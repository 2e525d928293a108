//! Boundary cases shared by `tests/web.rs` (headless Chromium) and
//! `tests/node.rs` (Node): each is a plain function that panics on failure.

pub(crate) mod local;
pub(crate) use local::*;

/// Declares a `#[wasm_bindgen_test]` for every shared case, in the test file
/// that includes this module with `#[macro_use]`.
macro_rules! boundary_tests {
    () => {
        boundary_tests!(@each
            invalid_sort_keys_and_directions_throw_typed_errors,
            selection_errors_carry_a_position,
            numeric_parameters_are_checked,
            getters_return_plain_arrays_and_objects,
            parse_round_trips_through_the_boundary,
            client_builds_urls_without_the_key,
            sort_documents_orders_and_keeps_identity,
            select_fields_projects_documents_and_lists,
            apply_query_returns_a_list_envelope,
            local_engine_arguments_throw_typed_errors,
            document_store_round_trip
        );
    };
    (@each $($name:ident),*) => {
        $(
            #[wasm_bindgen_test]
            fn $name() {
                common::$name();
            }
        )*
    };
}

use content_repo::wasm::{is_content_repo_error, JsClient, JsQuery};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

/// Asserts that `result` failed with a `ContentRepoError` of `code`, and
/// returns the error.
fn thrown<T>(result: Result<T, JsValue>, code: &str) -> JsValue {
    let Err(error) = result else {
        panic!("expected a {code} error")
    };
    assert!(is_content_repo_error(&error), "not a ContentRepoError");
    assert!(error.is_instance_of::<js_sys::Error>(), "not an Error");
    assert_eq!(
        get(&error, "name").as_string().as_deref(),
        Some("ContentRepoError")
    );
    assert_eq!(get(&error, "code").as_string().as_deref(), Some(code));
    let message = get(&error, "message").as_string().unwrap_or_default();
    assert!(!message.is_empty(), "the error has a message");
    error
}

fn message(error: &JsValue) -> String {
    get(error, "message").as_string().unwrap_or_default()
}

fn s(text: &str) -> JsValue {
    JsValue::from_str(text)
}

pub(crate) fn invalid_sort_keys_and_directions_throw_typed_errors() {
    let mut query = JsQuery::new();
    let error = thrown(query.sort(s("title"), s("ASC")), "invalid_sort");
    assert!(
        message(&error).contains("did you mean `fields.title`"),
        "{}",
        message(&error)
    );
    let error = thrown(query.sort(s("fields.title"), JsValue::NULL), "invalid_sort");
    assert!(
        message(&error).contains("null"),
        "names the value: {}",
        message(&error)
    );
    thrown(
        query.sort(s("fields.title"), JsValue::UNDEFINED),
        "invalid_sort",
    );
    thrown(
        query.sort(s("fields.title"), JsValue::from(2)),
        "invalid_sort",
    );
    thrown(query.sort(JsValue::from(5), s("ASC")), "invalid_sort");
    query.sort(s("fields.title"), JsValue::from(-1)).unwrap();
    query.sort(s("meta.id"), JsValue::from(1)).unwrap();
    query.sort(s("fields.price"), s("desc")).unwrap();
    assert_eq!(
        query.to_string_js(),
        "sorting%5Bfields.title%5D=DESC&sorting%5Bmeta.id%5D=ASC&sorting%5Bfields.price%5D=DESC"
    );
}

pub(crate) fn selection_errors_carry_a_position() {
    let mut query = JsQuery::new();
    let error = thrown(query.fields(s("title,author(name")), "invalid_selection");
    assert_eq!(get(&error, "position").as_f64(), Some(17.0));
    assert!(
        message(&error).contains("expected '/', '(', ',' or ')' at 17"),
        "{}",
        message(&error)
    );
    let error = thrown(query.fields(s("a,😀")), "invalid_selection");
    assert_eq!(get(&error, "position").as_f64(), Some(2.0));
    let error = thrown(query.fields(s("a(😀b")), "invalid_selection");
    assert_eq!(get(&error, "position").as_f64(), Some(2.0), "UTF-16 index");
    thrown(query.fields(JsValue::from(1)), "invalid_argument");
    query.fields(s("title, author/name")).unwrap();
    assert_eq!(
        query.selection().as_deref(),
        Some("fields(author/name,title),meta")
    );
    query.fields(JsValue::NULL).unwrap();
    assert_eq!(query.selection(), None);
}

pub(crate) fn numeric_parameters_are_checked() {
    let mut query = JsQuery::new();
    for bad in [
        JsValue::from(0),
        JsValue::from(1001),
        JsValue::from(2.5),
        s("10"),
        JsValue::from(f64::NAN),
        JsValue::TRUE,
    ] {
        thrown(query.limit(bad), "invalid_argument");
    }
    thrown(query.offset(JsValue::from(-1)), "invalid_argument");
    thrown(query.includes(JsValue::from(6)), "invalid_argument");
    thrown(query.includes(s("author")), "invalid_argument");
    thrown(query.include_tags(s("a")), "invalid_argument");
    thrown(
        query.include_tags(Array::of1(&JsValue::from(1)).into()),
        "invalid_argument",
    );
    thrown(query.embed_assets(s("yes")), "invalid_argument");
    thrown(query.search(s("")), "invalid_argument");
    thrown(query.filter(s("x")), "invalid_argument");
    assert_eq!(query.to_string_js(), "", "failed setters change nothing");
    query.limit(JsValue::from(10)).unwrap();
    query.offset(JsValue::from(20)).unwrap();
    query.includes(JsValue::from(2)).unwrap();
    query
        .include_tags(Array::of2(&s("a"), &s("b")).into())
        .unwrap();
    assert_eq!(query.limit_value(), Some(10));
    let filter = Object::new();
    Reflect::set(&filter, &s("field"), &s("meta.id")).unwrap();
    Reflect::set(&filter, &s("op"), &s("greaterThan")).unwrap();
    Reflect::set(&filter, &s("value"), &JsValue::from(100)).unwrap();
    query.filter(filter.into()).unwrap();
    assert_eq!(
        query.to_string_js(),
        "limit=10&offset=20&includes=2&includeTags%5B0%5D=a&includeTags%5B1%5D=b\
         &filters%5B0%5D%5B*.meta.id%5D%5BgreaterThan%5D=100"
    );
}

pub(crate) fn getters_return_plain_arrays_and_objects() {
    let mut query = JsQuery::new();
    query.sort(s("fields.title"), s("asc")).unwrap();
    query.sort(s("meta.createdAt"), s("DESC")).unwrap();
    let sorting = query.sorting().unwrap();
    assert!(Array::is_array(&sorting));
    let sorting: Array = sorting.unchecked_into();
    assert_eq!(sorting.length(), 2);
    let first = sorting.get(0);
    let prototype = Object::get_prototype_of(&first);
    assert!(
        JsValue::from(prototype) == JsValue::from(Object::get_prototype_of(&Object::new())),
        "a plain object, not a Map"
    );
    assert_eq!(
        get(&first, "key").as_string().as_deref(),
        Some("fields.title")
    );
    assert_eq!(get(&first, "direction").as_string().as_deref(), Some("ASC"));
    assert_eq!(
        get(&sorting.get(1), "direction").as_string().as_deref(),
        Some("DESC")
    );
}

pub(crate) fn parse_round_trips_through_the_boundary() {
    let mut query = JsQuery::new();
    query.sort(s("fields.title"), s("ASC")).unwrap();
    query.fields(s("title,meta(id)")).unwrap();
    query.search(s("café & co")).unwrap();
    let text = query.to_string_js();
    let parsed = JsQuery::parse(s(&text)).unwrap();
    assert!(parsed.equals(&query));
    assert_eq!(parsed.to_string_js(), text);
    thrown(JsQuery::parse(s("limit=0")), "invalid_argument");
    thrown(JsQuery::parse(JsValue::UNDEFINED), "invalid_argument");
}

fn options(base: &str, key: &str) -> JsValue {
    let options = Object::new();
    Reflect::set(&options, &s("baseUrl"), &s(base)).unwrap();
    Reflect::set(&options, &s("repository"), &s("demo")).unwrap();
    Reflect::set(&options, &s("apiKey"), &s(key)).unwrap();
    options.into()
}

pub(crate) fn client_builds_urls_without_the_key() {
    let client = JsClient::new(options("http://127.0.0.1:8080/", "super-secret")).unwrap();
    let mut query = JsQuery::new();
    query.limit(JsValue::from(5)).unwrap();
    let url = client
        .url(s("collections/blog posts"), query.to_string_js().into())
        .unwrap();
    assert_eq!(
        url,
        "http://127.0.0.1:8080/v1/demo/collections/blog%20posts?limit=5"
    );
    let typed = Object::new();
    Reflect::set(&typed, &s("document"), &s("a/b")).unwrap();
    assert_eq!(
        client.url(typed.into(), JsValue::UNDEFINED).unwrap(),
        "http://127.0.0.1:8080/v1/demo/documents/a%2Fb"
    );
    assert!(!client.to_string_js().contains("super-secret"));
    thrown(
        client.url(s("a//b"), JsValue::UNDEFINED),
        "invalid_argument",
    );
    thrown(
        client.url(JsValue::from(3), JsValue::UNDEFINED),
        "invalid_argument",
    );
    thrown(JsClient::new(options("ftp://x", "k")), "invalid_argument");
    thrown(JsClient::new(JsValue::UNDEFINED), "invalid_argument");
    let error = thrown(
        JsClient::new(options("http://x", "abc\r\nInjected: 1")),
        "invalid_argument",
    );
    assert!(
        !message(&error).contains("Injected"),
        "the key is not quoted"
    );
}
