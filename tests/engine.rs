//! The engine (text, iterative) against the plain recursive reference in
//! `common/json_ref.rs`, on generated JSON: repeated keys, lone surrogates,
//! numbers beyond `f64`, `__proto__`, nested arrays under `*`.
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

#[path = "common/gen.rs"]
mod gen;
#[path = "common/json_ref.rs"]
mod json_ref;

use std::cmp::Ordering;

use content_repo::engine::apply::{apply_query, select_any};
use content_repo::engine::order::value_key;
use content_repo::engine::select::{select_document, Plan};
use content_repo::engine::sort::sort_list;
use content_repo::json::{self, normalize, validate, MAX_DEPTH};
use content_repo::{Direction, Query, Selection, Sort};
use json_ref::{compare, compare_ids, read, s, text, J};
use proptest::prelude::*;

const KEYS: &[&str] = &[
    "a",
    "b",
    "x",
    "*",
    "__proto__",
    "plain",
    "lat",
    "lng",
    "é",
    "title",
];

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (-50i64..50).prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("9007199254740993".to_owned()),
        Just("9007199254740992.5".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("1e400".to_owned()),
        Just("-1E400".to_owned()),
        (0u32..1000, 0u32..100, -30i32..30).prop_map(|(i, f, e)| format!("{i}.{f:02}e{e}")),
        (1u32..100).prop_map(|n| format!("{n}.000")),
    ]
}

fn string() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        prop::collection::vec(
            prop_oneof![
                (0x20u16..0x7f),
                Just(0u16),
                Just(0xe9u16),
                Just(0xd867u16),
                Just(0xdc00u16),
                Just(0xd83du16),
                Just(0xfffdu16),
            ],
            0..5
        ),
        prop::sample::select(vec![
            "2024-01-01T00:00:00Z",
            "2024-01-01T01:00:00+01:00",
            "2023-12-31T23:59:59.999999999Z",
            "Zebra",
            "apple",
        ])
        .prop_map(s),
    ]
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        number().prop_map(J::Num),
        string().prop_map(J::Str),
    ]
}

fn value() -> impl Strategy<Value = J> {
    leaf().prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(J::Arr),
            prop::collection::vec((prop::sample::select(KEYS).prop_map(s), inner), 0..5)
                .prop_map(J::Obj),
        ]
    })
}

fn document() -> impl Strategy<Value = J> {
    (
        prop::collection::vec((prop::sample::select(KEYS).prop_map(s), value()), 0..5),
        prop_oneof![
            (0u64..40).prop_map(|n| J::Str(s(&n.to_string()))),
            Just(J::Str(s("007"))),
            Just(J::Str(s("x1"))),
            Just(J::Num("7".into())),
        ],
        prop::option::of(leaf()),
        any::<bool>(),
    )
        .prop_map(|(fields, id, created, repeat)| {
            let mut meta = vec![(s("id"), id)];
            if let Some(created) = created {
                meta.push((s("createdAt"), created));
            }
            let mut entries = vec![(s("fields"), J::Obj(fields)), (s("meta"), J::Obj(meta))];
            if repeat {
                entries.push((s("extra"), J::Num("1".into())));
            }
            J::Obj(entries)
        })
}

fn selection() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec!["a", "b", "x", "*", "__proto__", "plain", "title"]);
    let path = prop::collection::vec(name, 1..4).prop_map(|names| names.join("/"));
    let item = path.prop_recursive(3, 12, 3, |inner| {
        (
            prop::collection::vec(prop::sample::select(vec!["a", "b", "x", "*"]), 1..3),
            prop::collection::vec(inner, 1..3),
        )
            .prop_map(|(names, subs)| format!("{}({})", names.join("/"), subs.join(",")))
    });
    let scoped = (
        prop::sample::select(vec![
            "",
            "fields/",
            "meta/",
            "includes/",
            "fields(",
            "meta(",
        ]),
        item,
    )
        .prop_map(|(scope, item)| match scope {
            "fields(" | "meta(" => format!("{scope}{item})"),
            _ => format!("{scope}{item}"),
        });
    prop_oneof![
        8 => prop::collection::vec(scoped, 1..4).prop_map(|items| items.join(",")),
        1 => Just("*".to_owned()),
        1 => Just("meta".to_owned()),
    ]
}

fn parts(selection: &Selection) -> Option<&content_repo::Parts> {
    match selection {
        Selection::All => None,
        Selection::Parts(parts) => Some(parts),
    }
}

proptest! {
    #![proptest_config(harness::config(1500))]

    /// `has_replacement` finds U+FFFD wherever it is, and only it (among
    /// characters sharing its bytes: U+FEFF, U+FFFC, U+EFBD, ï).
    #[test]
    fn has_replacement_finds_exactly_u_fffd(
        chars in prop::collection::vec(
            prop::sample::select(vec!['a', '"', '\u{FFFD}', '\u{FEFF}', '\u{FFFC}', '\u{EFBD}', 'ï', '\u{1F600}']),
            0..40,
        ),
    ) {
        let text: String = chars.iter().collect();
        prop_assert_eq!(json::has_replacement(&text), chars.contains(&'\u{FFFD}'), "{:?}", text);
    }

    /// A number's order key orders and equates numbers exactly as their
    /// values do (SPEC 2), for every exponent, also beyond `i64`.
    #[test]
    fn number_keys_order_numbers_by_exact_value(
        a in prop_oneof![gen::number(), gen::beyond_exponent_bound()],
        b in prop_oneof![gen::number(), gen::beyond_exponent_bound()],
    ) {
        let (key_a, key_b) = (value_key(a.as_bytes()).unwrap(), value_key(b.as_bytes()).unwrap());
        prop_assert_eq!(key_a.cmp(&key_b), json_ref::compare_numbers(&a, &b), "{} vs {}", a, b);
    }

    /// The scanner accepts what it is given, and agrees with serde_json on
    /// texts serde_json can read (no lone surrogates, numbers in range).
    #[test]
    fn scanner_accepts_valid_json(value in value(), cut in 0usize..200) {
        let text = text(&value);
        prop_assert!(validate(&text).is_ok(), "{}", text);
        let cut = cut.min(text.len());
        if let Some(prefix) = text.get(..cut) {
            let ours = validate(prefix).is_ok();
            if serde_json::from_str::<serde_json::Value>(prefix).is_ok() {
                prop_assert!(ours, "{}", prefix);
            }
            if ours {
                prop_assert_eq!(read(prefix).is_some(), true);
            }
        }
    }

    /// normalize reads repeated keys as JSON.parse does.
    #[test]
    fn normalize_is_json_parse(value in value()) {
        let normal = normalize(&text(&value)).unwrap();
        prop_assert_eq!(read(&normal).unwrap(), value.dedup());
    }

    /// Selection: the one executor equals the recursive reference.
    #[test]
    fn selection_matches_reference(doc in document(), text_selection in selection()) {
        let Ok(selection) = Selection::parse(&text_selection) else { return Ok(()); };
        let plan = Plan::compile(&selection).unwrap();
        let input = text(&doc);
        let out = select_document(&input, &plan).unwrap();
        let expected = json_ref::select_document(&doc.dedup(), parts(&selection));
        prop_assert_eq!(read(&out).unwrap().dedup(), expected, "{} on {}", text_selection, input);
        // A list of them, as an array and as an envelope.
        let list = format!("[{input},{input}]");
        let out = select_any(&list, &selection).unwrap();
        let expected_one = json_ref::select_document(&doc.dedup(), parts(&selection));
        prop_assert_eq!(read(&out).unwrap().dedup(), J::Arr(vec![expected_one.clone(), expected_one]));
    }

    /// Value order: order keys compare as the reference compares.
    #[test]
    fn order_keys_match_reference(a in value(), b in value()) {
        let (ka, kb) = (value_key(text(&a).as_bytes()).unwrap(), value_key(text(&b).as_bytes()).unwrap());
        prop_assert_eq!(ka.cmp(&kb), compare(&a.dedup(), &b.dedup()), "{} vs {}", text(&a), text(&b));
    }

    /// Sorting a list equals a stable sort by the reference comparator.
    #[test]
    fn sort_matches_reference(
        docs in prop::collection::vec(document(), 0..12),
        keys in prop::collection::vec((prop::sample::select(vec!["fields.a", "fields.b", "fields.x", "meta.id", "meta.createdAt"]), any::<bool>()), 0..3),
    ) {
        let list = format!("[{}]", docs.iter().map(text).collect::<Vec<_>>().join(","));
        let sorting: Vec<Sort> = keys.iter().map(|(key, asc)| Sort::parse(key, if *asc { "ASC" } else { "DESC" }).unwrap()).collect();
        let order = sort_list(&list, &sorting, None).unwrap();
        let mut all: Vec<(String, bool)> = keys.iter().map(|(k, a)| ((*k).to_owned(), *a)).collect();
        for (key, asc) in [("meta.createdAt", false), ("meta.id", false)] {
            if !all.iter().any(|(k, _)| k == key) { all.push((key.to_owned(), asc)); }
        }
        let deduped: Vec<J> = docs.iter().map(J::dedup).collect();
        let value = |doc: &J, key: &str| {
            let (scope, name) = key.split_once('.').unwrap();
            doc.get(scope).and_then(|scope| scope.get(name)).filter(|v| **v != J::Null).cloned()
        };
        let mut expected: Vec<usize> = (0..docs.len()).collect();
        expected.sort_by(|&p, &q| {
            for (key, asc) in &all {
                let (x, y) = (value(&deduped[p], key), value(&deduped[q], key));
                let order = match (x, y) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Greater,
                    (Some(_), None) => Ordering::Less,
                    (Some(x), Some(y)) => {
                        let o = if key == "meta.id" { compare_ids(&x, &y) } else { compare(&x, &y) };
                        if *asc { o } else { o.reverse() }
                    }
                };
                if order != Ordering::Equal { return order; }
            }
            p.cmp(&q)
        });
        prop_assert_eq!(order, expected);
    }
}

#[test]
fn spec_star_over_arrays() {
    let cases = [
        (
            "matrix/*/*/x",
            r#"{"matrix":[[{"x":1},{"y":2}],[{"x":4}],[]]}"#,
            r#"{"matrix":[[{"x":1},{}],[{"x":4}],[]]}"#,
        ),
        (
            "sections/*/missing",
            r#"{"sections":[{"blocks":[{"a":1}]},{"b":2}]}"#,
            r#"{"sections":[{},{}]}"#,
        ),
        (
            "gallery/*/url",
            r#"{"gallery":[{"url":"u1","alt":"a"},{"alt":"b"}]}"#,
            r#"{"gallery":[{"url":"u1"},{}]}"#,
        ),
        (
            "gallery/*",
            r#"{"gallery":[1,"a",null]}"#,
            r#"{"gallery":[1,"a",null]}"#,
        ),
        ("tags/x", r#"{"tags":["a","b"]}"#, r#"{}"#),
        ("tags/x", r#"{"tags":[]}"#, r#"{"tags":[]}"#),
        (
            "a/b",
            r#"{"a":[[{"b":1,"c":2}],3]}"#,
            r#"{"a":[[{"b":1}]]}"#,
        ),
        ("a/b", r#"{"a":null}"#, r#"{}"#),
        ("a", r#"{"a":null}"#, r#"{"a":null}"#),
    ];
    for (selection, fields, expected) in cases {
        let doc = format!(r#"{{"fields":{fields},"meta":{{"id":"1"}}}}"#);
        let plan = Plan::compile(&Selection::parse(selection).unwrap()).unwrap();
        let out = select_document(&doc, &plan).unwrap();
        assert_eq!(
            out,
            format!(r#"{{"fields":{expected},"meta":{{"id":"1"}}}}"#),
            "{selection}"
        );
    }
}

#[test]
fn repeated_keys_read_as_json_parse() {
    let plan = Plan::compile(&Selection::parse("a/x, b").unwrap()).unwrap();
    let doc = r#"{"fields":{"a":{"x":1},"b":2,"a":5},"meta":{}}"#;
    // JSON.parse: a = 5 (a scalar: a/x selects nothing), at the first position.
    assert_eq!(
        select_document(doc, &plan).unwrap(),
        r#"{"fields":{"b":2},"meta":{}}"#
    );
    let doc = r#"{"fields":{"a":5,"b":2,"a":{"x":1,"y":2}},"meta":{}}"#;
    assert_eq!(
        select_document(doc, &plan).unwrap(),
        r#"{"fields":{"a":{"x":1},"b":2},"meta":{}}"#
    );
}

#[test]
fn values_are_copied_as_written() {
    // Escapes, lone surrogates, big numbers and __proto__ pass through as
    // text, so JSON.parse on the JavaScript side reads what it would have.
    let doc = r#"{"fields":{"__proto__":{"polluted":1},"s":"a\ud867b\/","n":9007199254740993,"e":1e400},"meta":{"id":"1"}}"#;
    let plan = Plan::compile(&Selection::parse("__proto__, s, n, e").unwrap()).unwrap();
    assert_eq!(select_document(doc, &plan).unwrap(), doc);
}

#[test]
fn numbers_in_exact_order() {
    let mut values = vec![
        "9007199254740993",
        "9007199254740992.5",
        "18446744073709551616",
        "-0",
        "0",
        "1E2",
        "100",
        "1e400",
        "-1e400",
        "1.7976931348623157e308",
        "5e-324",
        "-5e-324",
        "0.1",
        "1e-1",
    ];
    values.sort_by_key(|a| value_key(a.as_bytes()));
    assert_eq!(
        values,
        [
            "-1e400",
            "-5e-324",
            "-0",
            "0",
            "5e-324",
            "0.1",
            "1e-1",
            "1E2",
            "100",
            "9007199254740992.5",
            "9007199254740993",
            "18446744073709551616",
            "1.7976931348623157e308",
            "1e400"
        ]
    );
    assert_eq!(value_key(b"-0"), value_key(b"0.0e10"));
    assert_eq!(value_key(b"1"), value_key(b"1.0"));
}

/// 2,000 values mixing big integers and floats sort in exact order (the
/// old engine got 106 adjacent pairs wrong, and could panic).
#[test]
fn mixed_big_numbers_sort_exactly() {
    let mut docs = Vec::new();
    for i in 0..2000u64 {
        let number = match i % 5 {
            0 => format!("{}", 9_007_199_254_740_990u64 + i % 7),
            1 => format!("{}.5", 9_007_199_254_740_990u64 + i % 5),
            2 => format!("1844674407370955161{}", i % 10),
            3 => "-0".to_owned(),
            _ => format!("{}E2", i % 11),
        };
        docs.push(format!(
            r#"{{"fields":{{"n":{number}}},"meta":{{"id":"{i}"}}}}"#
        ));
    }
    let list = format!("[{}]", docs.join(","));
    let order = sort_list(&list, &[Sort::parse("fields.n", "ASC").unwrap()], None).unwrap();
    let numbers: Vec<String> = order
        .iter()
        .map(|&i| {
            let doc = &docs[i];
            let start = doc.find(r#""n":"#).unwrap() + 4;
            doc[start..doc.find('}').unwrap()].to_owned()
        })
        .collect();
    for pair in numbers.windows(2) {
        assert_ne!(
            json_ref::compare_numbers(&pair[0], &pair[1]),
            Ordering::Greater,
            "{pair:?}"
        );
    }
}

/// Nesting far beyond what recursion could take, on a test thread's small
/// stack (on wasm32, the module's 1 MiB stack): every reader is iterative.
#[test]
fn deep_nesting_is_read_without_recursion() {
    let depth = 50_000;
    let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let objects = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    harness::on_small_stack(256 * 1024, move || {
        for text in [&deep, &objects] {
            assert!(validate(text).is_ok());
            assert_eq!(normalize(text).unwrap(), **text);
            assert!(value_key(text.as_bytes()).is_some());
            let doc = format!(r#"{{"fields":{{"a":{text}}},"meta":{{"id":"1"}}}}"#);
            for selection in ["a", "a/a/a", "*", "a/*/*"] {
                let plan = Plan::compile(&Selection::parse(selection).unwrap()).unwrap();
                assert!(select_document(&doc, &plan).is_ok(), "{selection}");
            }
            let list = format!("[{doc},{doc}]");
            assert!(sort_list(&list, &[Sort::parse("fields.a", "ASC").unwrap()], None).is_ok());
        }
    });
    let too_deep = format!(
        "{}1{}",
        "[".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    assert!(validate(&too_deep).is_err());
    assert!(json::value_end(too_deep.as_bytes(), 0).is_err());
}

#[test]
fn apply_query_pages_and_selects() {
    let list = r#"{"data":[{"fields":{"n":2},"meta":{"id":"1"}},{"fields":{"n":1},"meta":{"id":"2"}}],"meta":{"total":2},"includes":{"a":[{"fields":{"x":1,"y":2}}]}}"#;
    let mut query = Query::new();
    query
        .sort("fields.n", Direction::Asc)
        .unwrap()
        .fields("n, includes(a/fields/x)")
        .unwrap();
    assert_eq!(
        apply_query(list, &query).unwrap(),
        r#"{"data":[{"fields":{"n":1},"meta":{"id":"2"}},{"fields":{"n":2},"meta":{"id":"1"}}],"meta":{"count":2,"limit":25,"offset":0,"total":2},"includes":{"a":[{"fields":{"x":1}}]}}"#
    );
}

/// `applyQuery` answers a list envelope with its keys in its order, as the
/// service wrote them (and as the offline cache answers): `meta` where the
/// list had it (last when it had none), an `includes` of which nothing is
/// selected left out wherever it stood.
#[test]
fn apply_query_keeps_an_envelopes_key_order() {
    let docs = r#"[{"fields":{"n":2},"meta":{"id":"1"}},{"fields":{"n":1},"meta":{"id":"2"}}]"#;
    let page = r#"[{"fields":{"n":1},"meta":{"id":"2"}},{"fields":{"n":2},"meta":{"id":"1"}}]"#;
    let meta = r#"{"count":2,"limit":25,"offset":0,"total":2}"#;
    let includes = r#"{"a":[{"fields":{"x":1}}]}"#;
    let mut query = Query::new();
    query.sort("fields.n", Direction::Asc).unwrap();
    let mut none = query.clone();
    none.fields("n, includes(b)").unwrap();
    let cases = [
        (
            format!(r#"{{"status":"ok","meta":{{"total":2}},"data":{docs}}}"#),
            &query,
            format!(r#"{{"status":"ok","meta":{meta},"data":{page}}}"#),
        ),
        (
            format!(r#"{{"data":{docs},"x":[1],"meta":null}}"#),
            &query,
            format!(r#"{{"data":{page},"x":[1],"meta":{meta}}}"#),
        ),
        (
            format!(r#"{{"includes":{includes},"x":1,"data":{docs}}}"#),
            &query,
            format!(r#"{{"includes":{includes},"x":1,"data":{page},"meta":{meta}}}"#),
        ),
        (
            format!(r#"{{"includes":5,"x":1,"data":{docs}}}"#),
            &none,
            format!(r#"{{"x":1,"data":{page},"meta":{meta}}}"#),
        ),
        (
            format!(r#"{{"meta":{{}},"data":{docs}}}"#),
            &query,
            format!(r#"{{"meta":{meta},"data":{page}}}"#),
        ),
        (
            format!(r#"{{"data":{docs},"includes":{includes},"meta":{{}}}}"#),
            &query,
            format!(r#"{{"data":{page},"includes":{includes},"meta":{meta}}}"#),
        ),
    ];
    for (list, query, expected) in cases {
        assert_eq!(apply_query(&list, query).unwrap(), expected, "{list}");
    }
}

/// A list read a piece at a time (its documents, an envelope's entries)
/// counts the levels around each piece toward `MAX_DEPTH`: every entry
/// refuses exactly what `validate` refuses. (A fuzz find: `frame`, and so
/// `check`, `put_json` and `apply_query`, accepted a list nested 100,001 or
/// 100,002 levels in all.)
#[test]
fn the_depth_limit_counts_a_lists_own_levels() {
    use content_repo::engine::list::frame;
    use content_repo::http::response::{check, Expect};
    use content_repo::store::DocumentStore;
    let deep = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    // (the text around a value nested `levels` deep, the levels around it)
    let wraps: [(&str, &str, usize); 4] = [
        (r#"[{"fields":{"a":"#, r#"},"meta":{"id":"1"}}]"#, 3),
        (
            r#"{"data":[{"fields":{"a":"#,
            r#"},"meta":{"id":"1"}}]}"#,
            4,
        ),
        (r#"{"data":[],"x":"#, "}", 1),
        ("[", "]", 1),
    ];
    for (before, after, around) in wraps {
        for total in [MAX_DEPTH, MAX_DEPTH + 1] {
            let text = format!("{before}{}{after}", deep(total - around));
            let valid = total <= MAX_DEPTH;
            assert_eq!(validate(&text).is_ok(), valid, "{before} {total}");
            assert_eq!(frame(&text).is_ok(), valid, "frame {before} {total}");
            assert_eq!(
                check(&text, Expect::Any, "k").is_ok(),
                valid,
                "check {before} {total}"
            );
            let list = before.starts_with('[') || before.contains("data");
            if list && around > 1 {
                let mut store = DocumentStore::new();
                assert_eq!(
                    store.put_json(text.clone()).is_ok(),
                    valid,
                    "put_json {before} {total}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(harness::config(500))]

    /// Answers written as ASCII read back as the same value: any strings
    /// (accents, CJK, beyond the BMP, escapes already there) in any JSON.
    #[test]
    fn ascii_answers_are_the_same_value(parts in prop::collection::vec("\\PC{0,12}", 0..6), escaped in any::<bool>()) {
        let value = serde_json::json!({ "fields": { "title": parts.join("\u{1F600}é"), "list": parts }, "meta": { "id": "1" } });
        // Characters the text holds already escaped stay as they are.
        let mut text = serde_json::to_string(&value).unwrap();
        if escaped {
            text = text.replace('é', "\\u00e9");
        }
        let mut out = Vec::new();
        json::push_ascii(&mut out, text.as_bytes());
        prop_assert!(out.is_ascii());
        let back: serde_json::Value = serde_json::from_slice(&out).unwrap();
        prop_assert_eq!(back, value);
    }
}

/// A byte that does not start a UTF-8 character is written as U+FFFD, and
/// a character cut short at the end takes what is there.
#[test]
fn ascii_of_broken_bytes_is_in_bounds() {
    let mut out = Vec::new();
    json::push_ascii(&mut out, b"\"a\x80b\xF0\x9F\"");
    assert!(out.is_ascii());
    assert!(std::str::from_utf8(&out)
        .unwrap()
        .starts_with("\"a\\ufffdb"));
}

/// The reference compares numbers exactly whatever their exponents' length
/// (the fuzz tests mutate exponents to any length): checked by hand here.
#[test]
fn the_reference_compares_exponents_of_any_length() {
    let big = format!("1{}", "0".repeat(40));
    let less = format!("9{}", "9".repeat(39));
    let cases = [
        (format!("1e{big}"), format!("10e{less}"), Ordering::Equal),
        (format!("1e{less}"), format!("1e{big}"), Ordering::Less),
        (format!("1e-{big}"), format!("1e-{less}"), Ordering::Less),
        (format!("-1e{big}"), format!("-1e{less}"), Ordering::Less),
        (format!("0.01e-{less}"), format!("1e-{big}"), Ordering::Less),
        (format!("0.1e-{less}"), format!("1e-{big}"), Ordering::Equal),
        (format!("0e{big}"), "0".to_owned(), Ordering::Equal),
        (format!("1e{big}"), format!("1e+0{big}"), Ordering::Equal),
    ];
    for (a, b, expected) in cases {
        assert_eq!(json_ref::compare_numbers(&a, &b), expected, "{a} vs {b}");
        assert_eq!(
            json_ref::compare_numbers(&b, &a),
            expected.reverse(),
            "{b} vs {a}"
        );
    }
}
