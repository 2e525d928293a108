//! Table tests for every ordering rule of SPEC.md section 2.
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

use std::cmp::Ordering::{self, Equal, Greater, Less};

#[path = "common/value_api.rs"]
mod value_api;

use content_repo::engine::order::{rank, value_key};
use content_repo::{Direction, Query, Sort};
use serde_json::{json, Value};
use value_api::{compare_ids, compare_values, parse_instant, sort_documents, sorted_positions};

/// The kind rank of a value: the first byte of its order key.
fn kind(value: &Value) -> u8 {
    value_key(value.to_string().as_bytes())
        .and_then(|key| key.first().copied())
        .unwrap_or(0)
}

fn check(cases: &[(Value, Value, Ordering)]) {
    for (a, b, expected) in cases {
        assert_eq!(compare_values(a, b), *expected, "{a} vs {b}");
        assert_eq!(compare_values(b, a), expected.reverse(), "{b} vs {a}");
    }
}

#[test]
fn kinds_rank_in_spec_order() {
    let ranked = [
        json!(1e9),
        json!("1970-01-01T00:00:00Z"),
        json!("a"),
        json!({"plain": "a"}),
        json!({"lat": 0, "lng": 0}),
        json!({"x": 1}),
        json!([1]),
        json!(false),
        Value::Null,
    ];
    let kinds = [
        rank::NUMBER,
        rank::INSTANT,
        rank::TEXT,
        rank::RICHTEXT,
        rank::LOCATION,
        rank::OBJECT,
        rank::ARRAY,
        rank::BOOLEAN,
        rank::NULL,
    ];
    for (value, expected) in ranked.iter().zip(kinds) {
        assert_eq!(kind(value), expected, "{value}");
    }
    for (i, a) in ranked.iter().enumerate() {
        for (j, b) in ranked.iter().enumerate() {
            assert_eq!(compare_values(a, b), i.cmp(&j), "{a} vs {b}");
        }
    }
}

#[test]
fn numbers() {
    check(&[
        (json!(-0.0), json!(0), Equal),
        (json!(1), json!(1.0), Equal),
        (json!(-5), json!(2), Less),
        (json!(1.5), json!(1.25), Greater),
        (
            json!(9007199254740993u64),
            json!(9007199254740992u64),
            Greater,
        ),
        (
            json!(-9223372036854775808i64),
            json!(18446744073709551615u64),
            Less,
        ),
    ]);
}

#[test]
fn instants_exactly() {
    check(&[
        (
            json!("2024-01-01T01:00:00+01:00"),
            json!("2024-01-01T00:00:00Z"),
            Equal,
        ),
        (
            json!("2024-01-01T00:00:00.000000001Z"),
            json!("2024-01-01T00:00:00Z"),
            Greater,
        ),
        (
            json!("2024-01-01T00:00:00.1Z"),
            json!("2024-01-01T00:00:00.100000000Z"),
            Equal,
        ),
        (
            json!("2023-12-31T23:59:59-00:01"),
            json!("2024-01-01T00:00:00Z"),
            Greater,
        ),
        (
            json!("0000-01-01T00:00:00Z"),
            json!("9999-12-31T23:59:59.999999999Z"),
            Less,
        ),
        (
            json!("1969-12-31T23:59:59Z"),
            json!("1970-01-01T00:00:00Z"),
            Less,
        ),
        // 18-digit precision would be lost in f64 milliseconds
        (
            json!("2024-06-01T00:00:00.123456789Z"),
            json!("2024-06-01T00:00:00.123456788Z"),
            Greater,
        ),
    ]);
    assert_eq!(parse_instant("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        parse_instant("2000-03-01T00:00:00Z"),
        Some(951_868_800_000_000_000)
    );
    for valid in [
        "2024-02-29T00:00:00Z",
        "2000-02-29T23:59:59.5+23:59",
        "1999-12-31T00:00:00.123456789-12:00",
    ] {
        assert!(parse_instant(valid).is_some(), "{valid}");
    }
    for invalid in [
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2024-04-31T00:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-00-01T00:00:00Z",
        "2024-01-00T00:00:00Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T00:60:00Z",
        "2024-12-31T23:59:60Z",
        "2024-01-01t00:00:00Z",
        "2024-01-01T00:00:00z",
        "2024-01-01T00:00:00",
        "2024-01-01 00:00:00Z",
        "2024-01-01T00:00:00.Z",
        "2024-01-01T00:00:00.1234567890Z",
        "2024-01-01T00:00:00+0100",
        "2024-01-01T00:00:00+24:00",
        "2024-01-01T00:00:00+01:60",
        "2024-1-01T00:00:00Z",
        "+2024-01-01T00:00:00Z",
        "2024-01-01T00:00:00Z ",
        "２024-01-01T00:00:00Z",
    ] {
        assert_eq!(parse_instant(invalid), None, "{invalid}");
        assert_eq!(kind(&json!(invalid)), rank::TEXT, "{invalid}");
    }
}

#[test]
fn text_by_code_point() {
    check(&[
        (json!("B"), json!("a"), Less),
        (json!("a"), json!("ab"), Less),
        (json!("Z"), json!("É"), Less),
        // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit
        (json!("\u{FF5E}"), json!("\u{1F600}"), Less),
        (json!("é"), json!("e\u{301}"), Greater),
        (json!(""), json!("a"), Less),
        // an instant-like string that is not an instant is text
        (json!("2024-13-01T00:00:00Z"), json!("a"), Less),
        (
            json!("2024-13-01T00:00:00Z"),
            json!("2024-01-01T00:00:00Z"),
            Greater,
        ),
    ]);
}

#[test]
fn richtext_location_objects() {
    check(&[
        (
            json!({"plain": "a", "html": "<b>z</b>"}),
            json!({"plain": "b", "html": "a"}),
            Less,
        ),
        // `plain` compares as text, even when it looks like a date-time.
        (
            json!({"plain": ""}),
            json!({"plain": "1998-01-01T00:00:00Z"}),
            Less,
        ),
        (
            json!({"plain": "Z"}),
            json!({"plain": "1998-01-01T00:00:00Z"}),
            Greater,
        ),
        (
            json!({"plain": "a", "lat": 1, "lng": 1}),
            json!({"lat": 0, "lng": 0}),
            Less,
        ),
        (
            json!({"lat": 1, "lng": 5}),
            json!({"lat": 2, "lng": 0}),
            Less,
        ),
        (
            json!({"lat": 1, "lng": 5}),
            json!({"lat": 1, "lng": 4, "x": 9}),
            Greater,
        ),
        (
            json!({"lat": 1, "lng": 5}),
            json!({"lat": 1.0, "lng": 5}),
            Equal,
        ),
        (
            json!({"lat": "1", "lng": 5}),
            json!({"lat": 1, "lng": 5}),
            Greater,
        ),
        (json!({"plain": 1}), json!({"plain": "a"}), Greater),
        // other objects: entries sorted by key, key first, then value
        (json!({"b": 1, "a": 2}), json!({"a": 2, "b": 1}), Equal),
        (json!({"a": 1}), json!({"b": 0}), Less),
        (json!({"a": 2}), json!({"a": 1, "b": 1}), Greater),
        (json!({"a": 1}), json!({"a": 1, "b": 1}), Less),
        (json!({}), json!({"a": 1}), Less),
        (json!({"a": null}), json!({"a": true}), Greater),
        (json!({"a": {"b": [1]}}), json!({"a": {"b": [2]}}), Less),
    ]);
}

#[test]
fn arrays_and_booleans() {
    check(&[
        (json!([1, 2]), json!([1, 3]), Less),
        (json!([1, 2]), json!([1, 2, 0]), Less),
        (json!([]), json!([0]), Less),
        (json!([null]), json!([true]), Greater),
        (json!([1, null]), json!([1, "a"]), Greater),
        (json!(["b"]), json!(["a", "z"]), Greater),
        (json!([[1]]), json!([[1, 1]]), Less),
        (json!(false), json!(true), Less),
        (json!(true), json!(true), Equal),
        (Value::Null, Value::Null, Equal),
    ]);
}

#[test]
fn ids_as_decimal_numbers() {
    let cases = [
        ("99999999999999999", "100000000000000000", Less),
        ("233046148955974153", "233046148955974154", Less),
        ("007", "7", Less),
        ("0", "00", Less),
        ("10", "9", Greater),
        ("9", "a", Less),
        ("1a", "9", Greater),
        ("a", "b", Less),
        ("2024-01-01T00:00:00Z", "a", Less),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567891",
            Less,
        ),
    ];
    for (a, b, expected) in cases {
        assert_eq!(compare_ids(&json!(a), &json!(b)), expected, "{a} vs {b}");
        assert_eq!(
            compare_ids(&json!(b), &json!(a)),
            expected.reverse(),
            "{b} vs {a}"
        );
    }
    assert_eq!(compare_ids(&json!("0001"), &json!("1")), Less);
    assert_eq!(compare_ids(&json!(5), &json!("1")), Less);
}

fn doc(id: &str, created: Value, fields: Value) -> Value {
    json!({"fields": fields, "meta": {"id": id, "createdAt": created}})
}

fn ids(docs: &[Value]) -> Vec<&str> {
    docs.iter()
        .map(|d| d["meta"]["id"].as_str().unwrap_or("?"))
        .collect()
}

fn sorted(docs: &[Value], keys: &[(&str, &str)]) -> Vec<String> {
    let sorting: Vec<Sort> = keys
        .iter()
        .map(|(k, d)| Sort::parse(k, d).unwrap())
        .collect();
    ids(&sort_documents(docs, &sorting).unwrap())
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn missing_and_null_last_in_both_directions() {
    let docs = vec![
        doc("1", json!("2024-01-01T00:00:00Z"), json!({"p": null})),
        doc("2", json!("2024-01-01T00:00:00Z"), json!({"p": 2})),
        doc("3", json!("2024-01-01T00:00:00Z"), json!({})),
        doc("4", json!("2024-01-01T00:00:00Z"), json!({"p": 1})),
    ];
    assert_eq!(sorted(&docs, &[("fields.p", "ASC")]), ["4", "2", "3", "1"]);
    assert_eq!(sorted(&docs, &[("fields.p", "DESC")]), ["2", "4", "3", "1"]);
}

#[test]
fn first_non_equal_key_decides() {
    let docs = vec![
        doc("1", json!("2024-01-01T00:00:00Z"), json!({"a": 1, "b": 1})),
        doc("2", json!("2024-01-01T00:00:00Z"), json!({"a": 0, "b": 9})),
        doc("3", json!("2024-01-01T00:00:00Z"), json!({"a": 1, "b": 2})),
    ];
    assert_eq!(
        sorted(&docs, &[("fields.a", "DESC"), ("fields.b", "ASC")]),
        ["1", "3", "2"]
    );
    assert_eq!(
        sorted(&docs, &[("fields.b", "ASC"), ("fields.a", "DESC")]),
        ["1", "3", "2"]
    );
    assert_eq!(
        sorted(&docs, &[("fields.a", "ASC"), ("fields.b", "DESC")]),
        ["2", "3", "1"]
    );
}

#[test]
fn default_order_and_tie_break() {
    let docs = vec![
        doc("9", json!("2024-01-01T00:00:00Z"), json!({"t": "x"})),
        doc("10", json!("2024-01-01T00:00:00Z"), json!({"t": "x"})),
        doc("8", json!("2024-01-02T00:00:00Z"), json!({"t": "x"})),
        doc("7", json!("2023-12-31T23:30:00-01:00"), json!({"t": "x"})),
        doc("6", Value::Null, json!({"t": "x"})),
    ];
    // createdAt DESC (the -01:00 one is 2024-01-01T00:30Z), then id DESC as numbers
    assert_eq!(sorted(&docs, &[]), ["8", "7", "10", "9", "6"]);
    assert_eq!(
        sorted(&docs, &[("fields.t", "ASC")]),
        ["8", "7", "10", "9", "6"]
    );
    assert_eq!(
        sorted(&docs, &[("meta.id", "ASC")]),
        ["6", "7", "8", "9", "10"]
    );
}

#[test]
fn stable_after_every_key() {
    let docs: Vec<Value> = (0..20)
        .map(|i| json!({"fields": {"g": i % 3}, "meta": {"n": i}}))
        .collect();
    let sorting = [Sort::parse("fields.g", "ASC").unwrap()];
    let order = sorted_positions(&docs, &sorting, None).unwrap();
    let expected: Vec<usize> = (0..20)
        .filter(|i| i % 3 == 0)
        .chain((0..20).filter(|i| i % 3 == 1))
        .chain((0..20).filter(|i| i % 3 == 2))
        .collect();
    assert_eq!(order, expected);
    // a partial sort gives the same first positions
    for first in [0, 1, 5, 7, 19, 20, 25] {
        let page = sorted_positions(&docs, &sorting, Some(first)).unwrap();
        assert_eq!(page, expected[..first.min(20)].to_vec());
    }
}

#[test]
fn mixed_kinds_under_one_key() {
    let values = [
        json!(true),
        json!([1]),
        json!({"o": 1}),
        json!({"lat": 1, "lng": 2}),
        json!({"plain": "p"}),
        json!("text"),
        json!("2024-01-01T00:00:00Z"),
        json!(3),
        Value::Null,
    ];
    let docs: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            doc(
                &i.to_string(),
                json!("2024-01-01T00:00:00Z"),
                json!({"v": v}),
            )
        })
        .collect();
    assert_eq!(
        sorted(&docs, &[("fields.v", "ASC")]),
        ["7", "6", "5", "4", "3", "2", "1", "0", "8"]
    );
    assert_eq!(
        sorted(&docs, &[("fields.v", "DESC")]),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8"]
    );
}

#[test]
fn not_documents_are_rejected() {
    let error = sort_documents(&[json!({"meta": {}}), json!(1)], &[]).unwrap_err();
    assert_eq!(error.code(), "invalid_argument");
    assert!(error.to_string().contains("documents[1]"));
}

#[test]
fn query_sorting_direction_forms() {
    let mut query = Query::new();
    query.sort("fields.a", Direction::Desc).unwrap();
    assert_eq!(query.sorting()[0].direction, Direction::Desc);
}
