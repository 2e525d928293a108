//! The document store: revision rule, index upkeep on every kind of write,
//! `put_json` of malformed or truncated text.
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

use content_repo::store::DocumentStore;
use content_repo::{Direction, Query};
use serde_json::{json, Value};
use value_api::apply_query;

fn doc(id: &str, revision: i64, n: i64, content_type: &str) -> Value {
    json!({
        "fields": {"n": n, "t": format!("t{}", n % 3)},
        "meta": {"id": id, "revision": revision, "contentType": content_type,
                 "createdAt": format!("2024-01-{:02}T00:00:00Z", 1 + (n % 28))}
    })
}

/// The obviously-correct model: documents in insertion order.
#[derive(Default)]
struct Model {
    docs: Vec<Value>,
}

impl Model {
    fn put(&mut self, value: &Value) {
        let id = value["meta"]["id"].as_str().unwrap().to_owned();
        match self.docs.iter_mut().find(|d| d["meta"]["id"] == json!(id)) {
            Some(stored) => {
                let (new, old) = (&value["meta"]["revision"], &stored["meta"]["revision"]);
                if !(new.is_number() && old.is_number() && new.as_f64() < old.as_f64()) {
                    *stored = value.clone();
                }
            }
            None => self.docs.push(value.clone()),
        }
    }

    fn delete(&mut self, id: &str) {
        self.docs.retain(|d| d["meta"]["id"] != json!(id));
    }

    fn query(&self, query: &Query, content_type: Option<&str>) -> Value {
        let docs: Vec<Value> = self
            .docs
            .iter()
            .filter(|d| content_type.map_or(true, |ct| d["meta"]["contentType"] == json!(ct)))
            .cloned()
            .collect();
        apply_query(&Value::Array(docs), query).unwrap()
    }
}

fn queries() -> Vec<Query> {
    let mut out = Vec::new();
    out.push(Query::new());
    let mut q = Query::new();
    q.sort("fields.n", Direction::Asc)
        .unwrap()
        .limit(5)
        .unwrap();
    out.push(q);
    let mut q = Query::new();
    q.sort("fields.t", Direction::Desc)
        .unwrap()
        .sort("fields.n", Direction::Desc)
        .unwrap()
        .offset(3)
        .unwrap()
        .limit(4)
        .unwrap()
        .fields("t,meta(id)")
        .unwrap();
    out.push(q);
    let mut q = Query::new();
    q.sort("meta.id", Direction::Asc)
        .unwrap()
        .fields("n")
        .unwrap();
    out.push(q);
    out
}

fn check(store: &mut DocumentStore, model: &Model) {
    for query in queries() {
        for content_type in [None, Some("a"), Some("b"), Some("none")] {
            assert_eq!(
                store.query(&query, content_type).unwrap(),
                model.query(&query, content_type),
                "query {query} content type {content_type:?}"
            );
        }
    }
    assert_eq!(store.len(), model.docs.len());
}

#[test]
fn revision_rule() {
    let mut store = DocumentStore::new();
    assert_eq!(store.put_value(&doc("1", 5, 1, "a")).unwrap(), 1);
    assert_eq!(store.put_value(&doc("1", 4, 2, "a")).unwrap(), 0);
    assert_eq!(store.get("1").unwrap()["fields"]["n"], json!(1));
    assert_eq!(store.put_value(&doc("1", 5, 3, "a")).unwrap(), 1);
    assert_eq!(store.get("1").unwrap()["fields"]["n"], json!(3));
    assert_eq!(store.put_json(doc("1", 6, 4, "a").to_string()).unwrap(), 1);
    assert_eq!(store.get("1").unwrap()["fields"]["n"], json!(4));
    // stale in a list text, with a fresh one beside it
    let list = json!({"data": [doc("1", 2, 9, "a"), doc("2", 1, 9, "a")]}).to_string();
    assert_eq!(store.put_json(list).unwrap(), 1);
    assert_eq!(store.get("1").unwrap()["fields"]["n"], json!(4));
    // a document without a revision never replaces one with a revision
    let written = store
        .put_value(&json!({"fields": {}, "meta": {"id": "1"}}))
        .unwrap();
    assert_eq!(written, 0);
    assert_eq!(store.get("1").unwrap()["fields"]["n"], json!(4));
    // and is replaced by any later write without one
    store
        .put_value(&json!({"fields": {"m": 1}, "meta": {"id": "3"}}))
        .unwrap();
    store
        .put_value(&json!({"fields": {"m": 2}, "meta": {"id": "3"}}))
        .unwrap();
    assert_eq!(store.get("3").unwrap()["fields"]["m"], json!(2));
    assert_eq!(store.len(), 3);
}

#[test]
fn indexes_follow_every_kind_of_write() {
    let mut store = DocumentStore::new();
    let mut model = Model::default();
    let first: Vec<Value> = (0..40)
        .map(|i| {
            doc(
                &i.to_string(),
                1,
                (i * 17) % 23,
                if i % 3 == 0 { "a" } else { "b" },
            )
        })
        .collect();
    store
        .put_json(json!({"data": first, "meta": {"total": 40}}).to_string())
        .unwrap();
    first.iter().for_each(|d| model.put(d));
    check(&mut store, &model);
    assert!(store.index_count() >= 4);
    // put: a new document and a replacement that moves
    for d in [
        doc("100", 1, 0, "a"),
        doc("5", 2, 99, "a"),
        doc("6", 0, -5, "b"),
    ] {
        store.put_value(&d).unwrap();
        model.put(&d);
        check(&mut store, &model);
    }
    // put_json of an array, with duplicates inside one write
    let batch = vec![
        doc("7", 3, 1, "b"),
        doc("200", 1, 4, "a"),
        doc("7", 4, 2, "b"),
        doc("7", 1, 8, "b"),
    ];
    store
        .put_json(Value::Array(batch.clone()).to_string())
        .unwrap();
    batch.iter().for_each(|d| model.put(d));
    check(&mut store, &model);
    // delete
    assert!(store.delete("3"));
    assert!(!store.delete("3"));
    model.delete("3");
    check(&mut store, &model);
    // the freed slot is reused by a new document
    store.put_value(&doc("300", 1, 11, "a")).unwrap();
    model.put(&doc("300", 1, 11, "a"));
    check(&mut store, &model);
    // clear, then write again
    store.clear();
    model.docs.clear();
    check(&mut store, &model);
    let again: Vec<Value> = (0..30)
        .map(|i| doc(&(i * 7).to_string(), 1, i % 5, "a"))
        .collect();
    store.put_value(&json!({"data": again})).unwrap();
    again.iter().for_each(|d| model.put(d));
    check(&mut store, &model);
}

#[test]
fn many_indexes_are_evicted_and_rebuilt() {
    let mut store = DocumentStore::new();
    let mut model = Model::default();
    let docs: Vec<Value> = (0..25)
        .map(|i| json!({"fields": {"a": i % 2, "b": i % 3, "c": i % 5, "d": i % 7, "e": -i}, "meta": {"id": i.to_string()}}))
        .collect();
    store.put_value(&Value::Array(docs.clone())).unwrap();
    docs.iter().for_each(|d| model.put(d));
    for round in 0..3 {
        for (i, key) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            for direction in [Direction::Asc, Direction::Desc] {
                let mut q = Query::new();
                q.sort(&format!("fields.{key}"), direction).unwrap();
                if i % 2 == 0 {
                    q.sort("fields.e", Direction::Asc).unwrap();
                }
                assert_eq!(store.query(&q, None).unwrap(), model.query(&q, None));
            }
        }
        assert!(store.index_count() <= content_repo::store::MAX_INDEXES);
        let d = json!({"fields": {"a": round, "e": 100 + round}, "meta": {"id": "3"}});
        store.put_value(&d).unwrap();
        model.put(&d);
    }
}

#[test]
fn malformed_or_truncated_text_changes_nothing() {
    let mut store = DocumentStore::new();
    let mut model = Model::default();
    let docs: Vec<Value> = (0..10).map(|i| doc(&i.to_string(), 1, i, "a")).collect();
    store.put_json(json!({"data": docs}).to_string()).unwrap();
    docs.iter().for_each(|d| model.put(d));
    check(&mut store, &model);
    let good = json!({"data": [doc("1", 9, 50, "a"), doc("77", 1, 1, "b")], "meta": {"count": 2}})
        .to_string();
    for cut in 0..good.len() {
        let text = good.get(..cut).unwrap_or_default().to_owned();
        let error = store.put_json(text).unwrap_err();
        assert_eq!(error.code(), "decode", "cut at {cut}");
        check(&mut store, &model);
    }
    for bad in [
        "",
        "nope",
        "{\"data\": [1]}",
        "{\"data\": [{\"meta\": {}}]}",
        "{\"data\": [{\"fields\": {}, \"meta\": {\"id\": \"\"}}]}",
        "[{\"meta\": {\"id\": \"1\"}}, ]",
        "[{\"meta\": {\"id\": \"1\"}} {\"meta\": {\"id\": \"2\"}}]",
        "{\"data\": [{\"meta\": {\"id\": \"1\"}}], \"meta\": }",
        "{\"data\": [{\"meta\": {\"id\": \"1\"}}]} x",
        "{\"data\": [{\"meta\": {\"id\": \"1\"}}], \"\\u0064ata\": [null]}",
        "{\"data\": [{\"meta\": {\"id\": \"1\"}}], \"data\": [3]}",
        "[{\"meta\": {\"id\": \"1\", \"x\": \"\\q\"}}]",
        "42",
    ] {
        let error = store.put_json(bad.to_owned()).unwrap_err();
        assert_eq!(error.code(), "decode", "{bad}");
        check(&mut store, &model);
    }
    // nesting beyond what the engine reads is an error, not a crash
    let levels = content_repo::json::MAX_DEPTH;
    let deep = format!(
        "[{{\"meta\": {{\"id\": \"d\"}}, \"x\": {}1{}}}]",
        "[".repeat(levels),
        "]".repeat(levels)
    );
    assert_eq!(store.put_json(deep).unwrap_err().code(), "decode");
    check(&mut store, &model);
    // 10,000 levels are read, as JSON.parse reads them
    let deep = format!(
        "[{{\"meta\": {{\"id\": \"deep\"}}, \"x\": {}1{}}}]",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(store.put_json(deep).unwrap(), 1);
    assert!(store.delete("deep"));
}

#[test]
fn accepted_shapes_of_text() {
    let mut store = DocumentStore::new();
    // pretty printed envelope with extra keys, an escaped key elsewhere
    let text = "{\n  \"meta\" : {\"total\": 2},\n  \"x\\ny\": 1,\n  \"data\" : [\n    {\"meta\": {\"id\": \"1\"}, \"fields\": {\"s\": \"a]},\\\"\"}} ,\n    {\"meta\": {\"id\": 2}}\n  ]\n}\n";
    assert_eq!(store.put_json(text.to_owned()).unwrap(), 2);
    assert_eq!(store.get("1").unwrap()["fields"]["s"], json!("a]},\""));
    assert!(store.get("2").is_some());
    // one document; an empty list; an escaped data key (parsed whole)
    assert_eq!(
        store
            .put_json("{\"fields\": {}, \"meta\": {\"id\": \"3\"}}".to_owned())
            .unwrap(),
        1
    );
    assert_eq!(store.put_json("{\"data\": []}".to_owned()).unwrap(), 0);
    assert_eq!(
        store
            .put_json("{\"\\u0064ata\": [{\"meta\": {\"id\": \"4\"}}]}".to_owned())
            .unwrap(),
        1
    );
    assert_eq!(store.ids(), ["1", "2", "3", "4"]);
    assert_eq!(
        content_repo::engine::list::frame("[1, {\"a\": [2]}]").unwrap(),
        content_repo::engine::list::Shape::Array(vec![1..2, 4..14])
    );
}

#[test]
fn query_json_is_the_same_envelope() {
    let mut store = DocumentStore::new();
    store
        .put_value(&json!([doc("1", 1, 1, "a"), doc("2", 1, 2, "a")]))
        .unwrap();
    let mut q = Query::new();
    q.sort("fields.n", Direction::Desc)
        .unwrap()
        .fields("meta(id)")
        .unwrap();
    let text = store.query_json(&q, None).unwrap();
    assert_eq!(
        text,
        r#"{"data":[{"meta":{"id":"2"}},{"meta":{"id":"1"}}],"meta":{"count":2,"limit":25,"offset":0,"total":2}}"#
    );
}

/// The probe that `put_json` reads documents with accepts what `JSON.parse`
/// accepts (lone surrogates, numbers beyond f64, deep nesting included), and
/// reads the values a parse gives (the last of repeated keys).
#[test]
fn probe_reads_as_json_parse_does() {
    use content_repo::engine::list::probe;
    let deep = format!("[{{\"x\": {}1{}}}]", "[".repeat(13_000), "]".repeat(13_000));
    let accepted_beyond_serde = [
        r#"{"meta": {"id": "1"}, "x": "\ud800"}"#,
        r#"{"meta": {"id": "1"}, "x": "\udc00\u0041"}"#,
        r#"{"meta": {"id": "1"}, "x": 1e400}"#,
        r#"{"meta": {"id": "1"}, "x": -1e400}"#,
        &deep,
    ];
    for text in accepted_beyond_serde {
        assert!(
            probe(text.as_bytes(), 0..text.len(), &["id"], &[]).is_ok(),
            "{text}"
        );
    }
    let texts = [
        r#"{"meta": {"id": "1", "revision": 2, "contentType": "a"}, "fields": {"n": [1, {"a": null}]}}"#,
        r#"{"meta": {"id": "1"}, "x": 1e-400}"#,
        r#"{"meta": {"id": "1"}, "x": "\q"}"#,
        r#"{"meta": {"id": "1"}, "x": "a	b"}"#,
        r#"{"meta": {"id": "1"}, "x": 01}"#,
        r#"{"meta": {"id": "1"}, "x": [1,]}"#,
        r#"{"meta": {"id": "1"}, "meta": {"id": "2", "id": 3}, "fields": 4, "fields": {"n": 1, "n": 2}}"#,
        r#"{"meta": {"id": "1"}, "meta": 5}"#,
        r#"{"\u006deta": {"\u0069d": "é", "revision": 1.5e3}}"#,
        r#"[{"meta": {"id": "1"}}]"#,
        r#""text""#,
    ];
    for text in texts {
        let value: Result<Value, _> = serde_json::from_str(text);
        let read = probe(text.as_bytes(), 0..text.len(), &["id", "revision"], &["n"]);
        assert_eq!(read.is_ok(), value.is_ok(), "{text}");
        let (Ok(read), Ok(value)) = (read, value) else {
            continue;
        };
        assert_eq!(read.is_object, value.is_object(), "{text}");
        let scope = |name: &str, keys: &[&str]| {
            let map = value.get(name).and_then(Value::as_object);
            keys.iter()
                .map(|key| map.and_then(|map| map.get(*key)).cloned())
                .collect::<Vec<_>>()
        };
        let read_values = |ranges: &[Option<std::ops::Range<usize>>]| {
            ranges
                .iter()
                .map(|range| {
                    range
                        .clone()
                        .map(|range| serde_json::from_str::<Value>(&text[range]).unwrap())
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            read_values(&read.meta),
            scope("meta", &["id", "revision"]),
            "{text}"
        );
        assert_eq!(read_values(&read.fields), scope("fields", &["n"]), "{text}");
    }
}

// ------------------------------------------------------------ putJson's UTF-8 buffer

mod utf8 {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use content_repo::store::utf8::Utf8Buffer;
    use proptest::prelude::*;

    /// `TextEncoder.encodeInto` of `units` into `room`: whole characters
    /// while they fit (a lone surrogate as U+FFFD); `(units read, bytes
    /// written)`.
    fn encode_into(units: &[u16], room: &mut [u8]) -> (usize, usize) {
        let (mut read, mut written) = (0, 0);
        for decoded in char::decode_utf16(units.iter().copied()) {
            let (c, width) = match decoded {
                Ok(c) => (c, c.len_utf16()),
                Err(_) => (char::REPLACEMENT_CHARACTER, 1),
            };
            let mut bytes = [0; 4];
            let bytes = c.encode_utf8(&mut bytes).as_bytes();
            if written + bytes.len() > room.len() {
                break;
            }
            room[written..written + bytes.len()].copy_from_slice(bytes);
            (read, written) = (read + width, written + bytes.len());
        }
        (read, written)
    }

    /// The UTF-8 of `units` as the boundary reads it: steps of
    /// `encode_into` into the buffer's spare room.
    fn read(units: &[u16]) -> (Vec<u8>, usize) {
        let mut buffer = Utf8Buffer::new(units.len());
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps < 100, "the buffer never fills");
            let (from, room) = buffer.spare();
            let (read, written) = encode_into(&units[from..], room);
            if !buffer.advance(read, written) {
                return (buffer.finish(), steps);
            }
        }
    }

    fn unit() -> impl Strategy<Value = Vec<u16>> {
        prop_oneof![
            8 => (0x20u16..0x7f).prop_map(|u| vec![u]),
            2 => (0x80u16..0x800).prop_map(|u| vec![u]),
            2 => (0x800u16..0xd800).prop_map(|u| vec![u]),
            2 => (0xd800u16..0xdc00, 0xdc00u16..0xe000).prop_map(|(h, l)| vec![h, l]),
            1 => (0xd800u16..0xe000).prop_map(|u| vec![u]),
        ]
    }

    proptest! {
        #![proptest_config(super::harness::config(512))]

        /// Whatever the text (mostly ASCII, wide characters, pairs, lone
        /// surrogates), the buffer ends with exactly its UTF-8 as
        /// `TextEncoder` writes it, in a few steps.
        #[test]
        fn the_buffer_reads_any_text_as_text_encoder_writes_it(units in prop::collection::vec(unit(), 0..300)) {
            let units: Vec<u16> = units.concat();
            let (bytes, steps) = read(&units);
            prop_assert_eq!(bytes, String::from_utf16_lossy(&units).into_bytes());
            prop_assert!(steps <= 3, "{} steps", steps);
        }
    }
}

/// The store reads a list in one pass (framing and probing each document):
/// it refuses exactly the nesting that `json::validate` refuses, wherever
/// the deep value is (in `fields`, in `meta`, elsewhere in the document),
/// in an envelope and in a bare array.
#[test]
fn nesting_limit_is_the_validators_in_every_place() {
    let max = content_repo::json::MAX_DEPTH;
    let mut checked = 0;
    for depth in max - 6..=max {
        let nested = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let places = [
            format!("{{\"meta\": {{\"id\": \"a\"}}, \"fields\": {{\"x\": {nested}}}}}"),
            format!("{{\"meta\": {{\"id\": \"a\", \"x\": {nested}}}}}"),
            format!("{{\"meta\": {{\"id\": \"a\"}}, \"x\": {nested}}}"),
            format!("{{\"meta\": {{\"id\": \"a\"}}, \"fields\": {{\"x\": {{\"y\": {nested}}}}}}}"),
        ];
        for document in &places {
            for text in [
                format!("{{\"data\": [{document}]}}"),
                format!("[{document}]"),
            ] {
                let valid = content_repo::json::validate(&text).is_ok();
                let mut store = DocumentStore::new();
                let stored = store.put_json(text.clone());
                assert_eq!(stored.is_ok(), valid, "depth {depth}: {}", &text[..60]);
                if let Err(error) = stored {
                    assert_eq!(error.code(), "decode");
                }
                checked += usize::from(valid);
            }
        }
    }
    // both sides of the limit were met
    assert!(checked > 0 && checked < 7 * 4 * 2, "{checked}");
}

/// Index builds compare integer prefixes of the first keys before the keys:
/// values that share long starts (so that prefixes tie while keys differ),
/// differ only in length, or are missing, in every direction, sort as the
/// reference sorts them.
#[test]
fn index_builds_agree_with_the_reference_on_shared_prefixes() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let value = prop_oneof![
        Just(Value::Null),
        prop::sample::select(vec![
            "",
            "a",
            "a\u{0}",
            "aaaaaa",
            "aaaaaaa",
            "aaaaaaaa",
            "aaaaaaaa1",
            "aaaaaaaa2",
            "aaaaaaaab",
            "aaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaa1",
            "aaaaaaaaaaaaaaaa2",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00.5Z",
        ])
        .prop_map(|text| json!(text)),
        prop::sample::select(vec![0.0, 1.0, 1.5, -1.0, 10.0, 1e21, 1.0000001, 1.0000002])
            .prop_map(|number| json!(number)),
    ];
    let doc = (value.clone(), value.clone(), value, 0u32..1000);
    let key = (
        prop::sample::select(vec!["fields.a", "fields.b", "fields.c", "meta.id"]),
        any::<bool>(),
    );
    let case = (
        prop::collection::vec(doc, 1..40),
        prop::collection::vec(key, 1..4),
    );
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    runner
        .run(&case, |(docs, keys)| {
            let docs: Vec<Value> = docs
                .into_iter()
                .enumerate()
                .map(|(index, (a, b, c, id))| {
                    json!({"fields": {"a": a, "b": b, "c": c},
                           "meta": {"id": format!("{id}-{index}")}})
                })
                .collect();
            let mut query = Query::new();
            for (name, ascending) in &keys {
                let direction = if *ascending {
                    Direction::Asc
                } else {
                    Direction::Desc
                };
                if query.sort(name, direction).is_err() {
                    return Ok(());
                }
            }
            query.limit(1000).unwrap();
            let mut store = DocumentStore::new();
            store.put_value(&Value::Array(docs.clone())).unwrap();
            let expected = apply_query(&Value::Array(docs), &query).unwrap();
            prop_assert_eq!(store.query(&query, None).unwrap(), expected, "{}", query);
            Ok(())
        })
        .unwrap();
}

/// A write of the property tests, to the store and the model alike.
#[derive(Debug, Clone)]
enum Write {
    Put { id: u8, revision: i64, n: i64 },
    Delete(u8),
    Clear,
}

impl Write {
    fn strategy() -> impl proptest::strategy::Strategy<Value = Write> {
        use proptest::prelude::*;
        prop_oneof![
            6 => (0u8..12, 0i64..4, -20i64..20).prop_map(|(id, revision, n)| Write::Put { id, revision, n }),
            2 => (0u8..12).prop_map(Write::Delete),
            1 => Just(Write::Clear),
        ]
    }

    fn apply(&self, store: &mut DocumentStore, model: &mut Model) {
        match *self {
            Write::Put { id, revision, n } => {
                let value = doc(
                    &id.to_string(),
                    revision,
                    n,
                    if n % 2 == 0 { "a" } else { "b" },
                );
                store.put_json(value.to_string()).unwrap();
                model.put(&value);
            }
            Write::Delete(id) => {
                store.delete(&id.to_string());
                model.delete(&id.to_string());
            }
            Write::Clear => {
                store.clear();
                model.docs.clear();
            }
        }
    }
}

/// The selections of the property tests.
const SELECTIONS: [&str; 3] = ["t,meta(id)", "n,t", "*"];

/// A runner of `cases` cases, none of them persisted.
fn runner(cases: u32) -> proptest::test_runner::TestRunner {
    proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    })
}

/// The property tests' query: `selection`, sorted by `fields.n` or not, from `offset`.
fn selected(selection: &str, sort: bool, offset: u64) -> Query {
    let mut query = Query::new();
    if sort {
        query.sort("fields.n", Direction::Desc).unwrap();
    }
    query.offset(offset).unwrap().fields(selection).unwrap();
    query
}

/// A step of the store's property tests: a write, or a query.
#[derive(Debug, Clone)]
enum Op {
    Write(Write),
    Query(Asked),
}

/// A query of the property tests: [`selected`], of content type `a` only
/// when `typed`; for a caller holding documents, whether it records the
/// delivery, and a write after the answer was made, before it is recorded
/// (and another answer keeps its new text).
#[derive(Debug, Clone)]
struct Asked {
    selection: u8,
    sort: bool,
    offset: u64,
    typed: bool,
    delivered: bool,
    late: Option<Write>,
}

impl Asked {
    fn query(&self) -> (Query, Option<&'static str>) {
        let selection = SELECTIONS[self.selection as usize];
        let query = selected(selection, self.sort, self.offset);
        (query, self.typed.then_some("a"))
    }
}

/// Runs of up to 60 writes and queries (`queries` of each 9 writes).
fn ops(queries: u32) -> impl proptest::strategy::Strategy<Value = Vec<Op>> {
    use proptest::prelude::*;
    let asked = (
        (
            0u8..3,
            any::<bool>(),
            0u64..4,
            any::<bool>(),
            prop::bool::weighted(0.9),
        ),
        prop::option::weighted(0.2, Write::strategy()),
    )
        .prop_map(
            |((selection, sort, offset, typed, delivered), late)| Asked {
                selection,
                sort,
                offset,
                typed,
                delivered,
                late,
            },
        );
    let op = prop_oneof![
        9 => Write::strategy().prop_map(Op::Write),
        queries => asked.prop_map(Op::Query),
    ];
    prop::collection::vec(op, 1..60)
}

/// The selected texts a store keeps for the selection last queried are
/// never served stale: any run of writes, replacements, deletions and
/// clears between queries of one or two selections answers as the model.
#[test]
fn kept_selections_follow_every_write() {
    use proptest::prelude::*;

    runner(200)
        .run(&ops(6), |ops| {
            let (mut store, mut model) = (DocumentStore::new(), Model::default());
            for op in ops {
                match op {
                    Op::Write(write) => write.apply(&mut store, &mut model),
                    Op::Query(asked) => {
                        let (query, content_type) = asked.query();
                        prop_assert_eq!(
                            store.query(&query, content_type).unwrap(),
                            model.query(&query, content_type),
                            "{}",
                            query
                        );
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

/// A page recorded as delivered after one of its documents changed (and
/// another answer kept the new text) does not deliver that document: the
/// caller holds the old one.
#[test]
fn a_late_delivery_skips_documents_changed_since() {
    use content_repo::store::Page;
    let mut store = DocumentStore::new();
    for id in 0..10 {
        store.put_value(&doc(&id.to_string(), 1, id, "a")).unwrap();
    }
    let mut query = Query::new();
    query.fields("t,meta(id)").unwrap();
    store.query_json(&query, None).unwrap();
    let page = store.query_page(&query, None).unwrap();
    assert!(
        page.words.iter().all(|word| word & Page::KEEP != 0),
        "{:?}",
        page.words
    );
    store.put_value(&doc("3", 2, 30, "a")).unwrap();
    store.query_json(&query, None).unwrap();
    store.delivered(&page);
    let next = store.query_page(&query, None).unwrap();
    let fresh = next
        .words
        .iter()
        .filter(|word| *word & Page::FRESH != 0)
        .count();
    assert_eq!(fresh, 1, "only the changed document is written again");
    let text: Value = serde_json::from_str(&next.text).unwrap();
    assert_eq!(text["data"][0]["meta"]["id"], json!("3"), "{}", next.text);
}

/// A caller that holds the documents it was delivered, as
/// `src/js/store.js` does: each page's answer, made from the page's text and
/// the documents held, is the model's, whatever is written between, even
/// when a delivery is recorded after a write.
#[test]
fn pages_for_a_holder_answer_as_the_model_does() {
    use content_repo::store::Page;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// The documents held, by slot, and the epoch they belong to.
    #[derive(Default)]
    struct Holder {
        epoch: Option<u32>,
        docs: HashMap<u32, Value>,
    }

    impl Holder {
        fn answer(&mut self, page: &Page) -> Value {
            let mut answer: Value = serde_json::from_str(&page.text).unwrap();
            if self.epoch != Some(page.epoch) {
                self.epoch = Some(page.epoch);
                self.docs.clear();
            }
            let fresh = answer["data"].as_array().unwrap().clone();
            let mut next = fresh.into_iter();
            let mut data = Vec::new();
            for word in &page.words {
                if word & Page::FRESH != 0 {
                    let document = next.next().expect("a document for each FRESH word");
                    if word & Page::KEEP != 0 {
                        self.docs.insert(word >> 2, document.clone());
                    }
                    data.push(document);
                } else {
                    data.push(
                        self.docs
                            .get(&(word >> 2))
                            .expect("a held document")
                            .clone(),
                    );
                }
            }
            assert!(
                next.next().is_none(),
                "no document of the text is left over"
            );
            answer["data"] = Value::Array(data);
            answer
        }
    }

    runner(256)
        .run(&ops(8), |ops| {
            let (mut store, mut model, mut holder) =
                (DocumentStore::new(), Model::default(), Holder::default());
            for op in ops {
                let asked = match op {
                    Op::Write(write) => {
                        write.apply(&mut store, &mut model);
                        continue;
                    }
                    Op::Query(asked) => asked,
                };
                let (query, content_type) = asked.query();
                let page = store.query_page(&query, content_type).unwrap();
                prop_assert_eq!(
                    holder.answer(&page),
                    model.query(&query, content_type),
                    "{}",
                    query
                );
                if let Some(write) = asked.late {
                    write.apply(&mut store, &mut model);
                    store.query_json(&query, content_type).unwrap();
                }
                // A caller that could not make the answer records nothing.
                if !asked.delivered {
                    continue;
                }
                store.delivered(&page);
                // Asked twice more, from what is held then.
                for _ in 0..2 {
                    let page = store.query_page(&query, content_type).unwrap();
                    prop_assert_eq!(holder.answer(&page), model.query(&query, content_type));
                    store.delivered(&page);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Answers are ASCII JSON of the same values, selected or whole, from the
/// text and from the kept selection alike.
#[test]
fn answers_are_ascii_of_the_same_values() {
    let mut store = DocumentStore::new();
    let value = json!({"fields": {"title": "Ünïcödé 高品質 🎧", "n": 1}, "meta": {"id": "é1"}});
    store.put_json(value.to_string()).unwrap();
    for selection in [None, Some("title"), Some("title")] {
        let mut query = Query::new();
        if let Some(selection) = selection {
            query.fields(selection).unwrap();
        }
        let text = store.query_json(&query, None).unwrap();
        assert!(text.is_ascii(), "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            answer["data"][0]["fields"]["title"],
            value["fields"]["title"]
        );
        assert_eq!(answer["data"][0]["meta"]["id"], value["meta"]["id"]);
    }
}

/// A store's identity is never another's, even after it is dropped (a
/// caller holds each store's documents under it).
#[test]
fn every_store_has_its_own_identity() {
    let ids: Vec<u32> = (0..64).map(|_| DocumentStore::new().id()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len());
}
