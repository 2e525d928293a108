//! Property tests: the local engine against a simple reference written here
//! from the SPEC text alone (naive comparator, direct recursive projection,
//! a list model of the store).
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

use std::cmp::Ordering;

#[path = "common/value_api.rs"]
mod value_api;

use content_repo::store::DocumentStore;
use content_repo::{Direction, Node, Query, Selection, Sort};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use value_api::{apply_query, compare_values, select, sort_documents, sorted_positions};

// ---------------------------------------------------------------- reference

/// Instant as (days since 0000-01-01 counted by walking the calendar, second
/// of day minus offset, nanoseconds): naive and slow on purpose.
fn reference_instant(s: &str) -> Option<(i64, i64, i64)> {
    let c: Vec<char> = s.chars().collect();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part: String = c.get(from..from + len)?.iter().collect();
        if part.chars().all(|ch| ch.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    if c.len() < 20 || c[4] != '-' || c[7] != '-' || c[10] != 'T' || c[13] != ':' || c[16] != ':' {
        return None;
    }
    let (y, mo, d, h, mi, se) = (
        num(0, 4)?,
        num(5, 2)?,
        num(8, 2)?,
        num(11, 2)?,
        num(14, 2)?,
        num(17, 2)?,
    );
    let leap = |y: i64| y % 400 == 0 || (y % 4 == 0 && y % 100 != 0);
    let month_days = [
        31,
        if leap(y) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d < 1
        || d > month_days[(mo - 1) as usize]
        || h > 23
        || mi > 59
        || se > 59
    {
        return None;
    }
    let mut rest: &[char] = &c[19..];
    let mut nanos = 0;
    if rest.first() == Some(&'.') {
        let digits: String = rest[1..]
            .iter()
            .take_while(|ch| ch.is_ascii_digit())
            .collect();
        if digits.is_empty() || digits.len() > 9 {
            return None;
        }
        nanos = format!("{digits:0<9}").parse().ok()?;
        rest = &rest[1 + digits.len()..];
    }
    let offset = match rest {
        ['Z'] => 0,
        [sign @ ('+' | '-'), a, b, ':', e, f] => {
            let oh: i64 = format!("{a}{b}")
                .parse()
                .ok()
                .filter(|_| a.is_ascii_digit() && b.is_ascii_digit())?;
            let om: i64 = format!("{e}{f}")
                .parse()
                .ok()
                .filter(|_| e.is_ascii_digit() && f.is_ascii_digit())?;
            if oh > 23 || om > 59 {
                return None;
            }
            if *sign == '-' {
                -(oh * 60 + om)
            } else {
                oh * 60 + om
            }
        }
        _ => return None,
    };
    let mut days = 0;
    for year in 0..y {
        days += if leap(year) { 366 } else { 365 };
    }
    days += month_days.iter().take((mo - 1) as usize).sum::<i64>();
    days += d - 1;
    let seconds = days * 86400 + h * 3600 + mi * 60 + se - offset * 60;
    Some((seconds.div_euclid(86400), seconds.rem_euclid(86400), nanos))
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Number(_) => 0,
        Value::String(s) if reference_instant(s).is_some() => 1,
        Value::String(_) => 2,
        Value::Object(o) if o.get("plain").is_some_and(Value::is_string) => 3,
        Value::Object(o)
            if o.get("lat").is_some_and(Value::is_number)
                && o.get("lng").is_some_and(Value::is_number) =>
        {
            4
        }
        Value::Object(_) => 5,
        Value::Array(_) => 6,
        Value::Bool(_) => 7,
        Value::Null => 8,
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn reference_compare(a: &Value, b: &Value) -> Ordering {
    if rank(a) != rank(b) {
        return rank(a).cmp(&rank(b));
    }
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => {
            num(a).partial_cmp(&num(b)).unwrap_or(Ordering::Equal)
        }
        (Value::String(x), Value::String(y)) if rank(a) == 1 => {
            reference_instant(x).cmp(&reference_instant(y))
        }
        (Value::String(x), Value::String(y)) => {
            x.chars().map(u32::from).cmp(y.chars().map(u32::from))
        }
        // Richtext compares its `plain` as text, by code point (even when it
        // looks like a date-time), as the fixture server's reference does.
        (Value::Object(x), Value::Object(y)) if rank(a) == 3 => {
            let text = |v: &Value| {
                v.as_str()
                    .unwrap_or_default()
                    .chars()
                    .map(u32::from)
                    .collect::<Vec<_>>()
            };
            text(&x["plain"]).cmp(&text(&y["plain"]))
        }
        (Value::Object(x), Value::Object(y)) if rank(a) == 4 => {
            reference_compare(&x["lat"], &y["lat"]).then(reference_compare(&x["lng"], &y["lng"]))
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut kx: Vec<&String> = x.keys().collect();
            let mut ky: Vec<&String> = y.keys().collect();
            kx.sort();
            ky.sort();
            for i in 0..kx.len().min(ky.len()) {
                let order = kx[i]
                    .cmp(ky[i])
                    .then(reference_compare(&x[kx[i]], &y[ky[i]]));
                if order != Ordering::Equal {
                    return order;
                }
            }
            kx.len().cmp(&ky.len())
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().min(y.len()) {
                let order = reference_compare(&x[i], &y[i]);
                if order != Ordering::Equal {
                    return order;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

fn reference_id_compare(a: &Value, b: &Value) -> Ordering {
    match (a.as_str(), b.as_str()) {
        (Some(x), Some(y)) => {
            let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
            match (digits(x), digits(y)) {
                (true, true) => {
                    let (sx, sy) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                    sx.len().cmp(&sy.len()).then(sx.cmp(sy)).then(x.cmp(y))
                }
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                (false, false) => x.cmp(y),
            }
        }
        _ => reference_compare(a, b),
    }
}

fn value_at<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    let (scope, name) = key.split_once('.')?;
    doc.get(scope)?.get(name).filter(|v| !v.is_null())
}

fn reference_sort(docs: &[Value], keys: &[(String, Direction)]) -> Vec<Value> {
    let mut all: Vec<(String, Direction)> = keys.to_vec();
    all.push(("meta.createdAt".into(), Direction::Desc));
    all.push(("meta.id".into(), Direction::Desc));
    let mut out = docs.to_vec();
    // Vec::sort_by is stable: equal documents keep their input order
    out.sort_by(|a, b| {
        for (key, direction) in &all {
            let order = match (value_at(a, key), value_at(b, key)) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(x), Some(y)) => {
                    let asc = if key == "meta.id" {
                        reference_id_compare(x, y)
                    } else {
                        reference_compare(x, y)
                    };
                    if *direction == Direction::Desc {
                        asc.reverse()
                    } else {
                        asc
                    }
                }
            };
            if order != Ordering::Equal {
                return order;
            }
        }
        Ordering::Equal
    });
    out
}

/// Projection by a direct recursive definition of SPEC section 3.
fn reference_apply(value: &Value, node: &Node) -> Option<Value> {
    if node.is_leaf() {
        return Some(value.clone());
    }
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                let mut sub: Option<Node> = None;
                for (name, child) in node.children() {
                    if name == key || name == "*" {
                        match &mut sub {
                            None => sub = Some(child.clone()),
                            Some(existing) => existing.merge(child.clone()),
                        }
                    }
                }
                if let Some(sub) = sub {
                    if let Some(selected) = reference_apply(item, &sub) {
                        out.insert(key.clone(), selected);
                    }
                }
            }
            Some(Value::Object(out))
        }
        Value::Array(items) if items.is_empty() => Some(json!([])),
        Value::Array(items) => {
            // `*` selects the elements themselves (the rest of its path
            // applies to each); any other name applies to each element.
            let element = match node.children().get("*") {
                Some(star) => {
                    let mut element = star.clone();
                    for (name, child) in node.children() {
                        if name != "*" {
                            let mut one = Node::default();
                            one.insert(name.clone(), child.clone());
                            element.merge(one);
                        }
                    }
                    element
                }
                None => node.clone(),
            };
            let out: Vec<Value> = items
                .iter()
                .filter_map(|item| reference_apply(item, &element))
                .collect();
            (!out.is_empty()).then_some(Value::Array(out))
        }
        _ => None,
    }
}

fn reference_select(doc: &Value, selection: &Selection) -> Value {
    let Selection::Parts(parts) = selection else {
        return doc.clone();
    };
    let mut out = Map::new();
    if let (Some(fields), Some(node)) = (doc.get("fields"), &parts.fields) {
        if let Some(v) = reference_apply(fields, node) {
            out.insert("fields".into(), v);
        }
    }
    if let Some(meta) = doc.get("meta") {
        if let Some(v) = reference_apply(meta, &parts.meta) {
            out.insert("meta".into(), v);
        }
    }
    if let Some(includes) = doc.get("includes") {
        let v = match &parts.includes {
            Some(node) => reference_apply(includes, node),
            None => Some(includes.clone()),
        };
        if let Some(v) = v {
            out.insert("includes".into(), v);
        }
    }
    Value::Object(out)
}

// ---------------------------------------------------------------- strategies

fn instant_text() -> impl Strategy<Value = String> {
    (
        1998..2002i32,
        1..14u32,
        0..32u32,
        0..25u32,
        0..61u32,
        prop::option::of(1..10usize),
        0..4u8,
    )
        .prop_map(|(y, mo, d, h, s, frac, zone)| {
            let frac = frac
                .map(|n| format!(".{}", "123456789".get(..n).unwrap_or("1")))
                .unwrap_or_default();
            let zone = ["Z", "+01:30", "-23:59", "z"][zone as usize];
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{s:02}:{s:02}{frac}{zone}")
        })
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..4).prop_map(|n| json!(n)),
        prop_oneof![Just(-0.0f64), Just(0.5), Just(2.0), Just(-1.5)].prop_map(|n| json!(n)),
        prop::sample::select(vec!["a", "B", "b", "ab", "é", "\u{FF5E}", "\u{1F600}", ""])
            .prop_map(|s| json!(s)),
        instant_text().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "b", "plain", "lat", "lng", "url", "*"]),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn id_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..30).prop_map(|n| n.to_string()),
        Just("007".to_string()),
        Just("99999999999999999".to_string()),
        Just("100000000000000000".to_string()),
        Just("x1".to_string()),
    ]
}

fn document() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c"]), value(), 0..3),
        id_text(),
        prop::option::of(prop_oneof![
            instant_text().prop_map(Value::String),
            scalar()
        ]),
    )
        .prop_map(|(fields, id, created)| {
            let fields: Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            let mut meta = Map::new();
            meta.insert("id".into(), json!(id));
            if let Some(created) = created {
                meta.insert("createdAt".into(), created);
            }
            json!({"fields": fields, "meta": meta})
        })
}

fn sort_keys() -> impl Strategy<Value = Vec<(String, Direction)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec![
                "fields.a",
                "fields.b",
                "fields.c",
                "meta.id",
                "meta.createdAt",
            ]),
            prop_oneof![Just(Direction::Asc), Just(Direction::Desc)],
        ),
        0..3,
    )
    .prop_map(|keys| {
        let mut out: Vec<(String, Direction)> = Vec::new();
        for (key, direction) in keys {
            // sorting again on a key replaces its direction in place
            match out.iter_mut().find(|(k, _)| k == key) {
                Some(known) => known.1 = direction,
                None => out.push((key.to_string(), direction)),
            }
        }
        out
    })
}

fn to_sorting(keys: &[(String, Direction)]) -> Vec<Sort> {
    keys.iter()
        .map(|(k, d)| Sort::parse(k, d.as_str()).unwrap())
        .collect()
}

fn selection_text() -> impl Strategy<Value = String> {
    let name = prop::sample::select(vec!["a", "b", "url", "*", "plain"]);
    let path = prop::collection::vec(name, 1..4).prop_map(|p| p.join("/"));
    prop::collection::vec(
        (
            path,
            prop::option::of(prop::sample::select(vec!["fields/", "meta/", ""])),
        )
            .prop_map(|(p, scope)| {
                let p = if p.starts_with('*') && scope.unwrap_or("").is_empty() {
                    format!("a/{p}")
                } else {
                    p
                };
                format!("{}{p}", scope.unwrap_or(""))
            }),
        1..4,
    )
    .prop_map(|items| items.join(","))
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(harness::config(400))]

    #[test]
    fn value_order_matches_reference(a in value(), b in value()) {
        prop_assert_eq!(compare_values(&a, &b), reference_compare(&a, &b));
        prop_assert_eq!(compare_values(&a, &b), compare_values(&b, &a).reverse());
    }

    #[test]
    fn sort_matches_reference(docs in prop::collection::vec(document(), 0..12), keys in sort_keys()) {
        let sorting = to_sorting(&keys);
        prop_assert_eq!(sort_documents(&docs, &sorting).unwrap(), reference_sort(&docs, &keys));
        // a partial sort agrees with the full one
        let full = sorted_positions(&docs, &sorting, None).unwrap();
        for first in 0..=docs.len() {
            prop_assert_eq!(sorted_positions(&docs, &sorting, Some(first)).unwrap(), full[..first].to_vec());
        }
    }

    #[test]
    fn projection_matches_reference(doc in document(), text in selection_text()) {
        let selection = Selection::parse(&text).unwrap();
        prop_assert_eq!(select(&doc, &selection).unwrap(), reference_select(&doc, &selection));
    }

    #[test]
    fn store_matches_list_model(
        writes in prop::collection::vec((prop::collection::vec(document(), 0..6), 0..3u8, prop::option::of(0..5i64)), 1..6),
        keys in sort_keys(),
        offset in 0..4u64,
        limit in prop::option::of(1..6u32),
    ) {
        let mut store = DocumentStore::new();
        let mut model: Vec<Value> = Vec::new();
        let mut query = Query::new();
        for sort in to_sorting(&keys) {
            query.push_sort(sort).unwrap();
        }
        query.offset(offset).unwrap();
        if let Some(limit) = limit {
            query.limit(limit).unwrap();
        }
        for (docs, how, revision) in writes {
            let docs: Vec<Value> = docs.into_iter().map(|mut d| {
                if let Some(r) = revision { d["meta"]["revision"] = json!(r); }
                d
            }).collect();
            match how {
                0 => { store.put_json(json!({"data": docs}).to_string()).unwrap(); }
                1 => { store.put_serialized(Value::Array(docs.clone()).to_string()).unwrap(); }
                _ => {
                    if let Some(first) = docs.first() {
                        store.delete(first["meta"]["id"].as_str().unwrap());
                        model.retain(|d| d["meta"]["id"] != first["meta"]["id"]);
                    }
                    continue;
                }
            }
            for d in docs {
                match model.iter_mut().find(|m| m["meta"]["id"] == d["meta"]["id"]) {
                    Some(m) => {
                        let (new, old) = (&d["meta"]["revision"], &m["meta"]["revision"]);
                        // No revision counts as lower than any revision.
                        if new.as_f64() >= old.as_f64() { *m = d; }
                    }
                    None => model.push(d),
                }
            }
            // every write is followed by a query, so indexes are kept up to date
            prop_assert_eq!(store.query(&query, None).unwrap(), apply_query(&Value::Array(model.clone()), &query).unwrap());
        }
    }
}

/// The rows `src/js/local.js`'s `sortRows` writes: for each document, the
/// value at each `[scope, name]` path (`null` when missing).
fn written_rows(docs: &[Value], paths: &[String]) -> String {
    let rows: Vec<Value> = docs
        .iter()
        .map(|doc| {
            let row: Vec<Value> = paths
                .chunks(2)
                .map(|path| {
                    doc.get(&path[0])
                        .filter(|scope| scope.is_object())
                        .and_then(|scope| scope.get(&path[1]))
                        .cloned()
                        .unwrap_or(Value::Null)
                })
                .collect();
            Value::Array(row)
        })
        .collect();
    Value::Array(rows).to_string()
}

proptest! {
    #![proptest_config(harness::config(400))]

    /// `sortDocuments` and `applyQuery` on JavaScript values: the order the
    /// core reads from the rows local.js writes is the reference order, and
    /// a page is its slice.
    #[test]
    fn the_local_sort_of_written_rows_matches_reference(
        docs in prop::collection::vec(document(), 0..12),
        keys in sort_keys(),
        offset in 0u64..14,
        limit in 1u32..14,
    ) {
        use content_repo::args::Arg;
        use content_repo::engine::local::LocalSort;
        let mut query = Query::new();
        for sort in to_sorting(&keys) {
            query.push_sort(sort).unwrap();
        }
        let sort = LocalSort::new(&query);
        let rows = Arg::Text(written_rows(&docs, &sort.paths()));
        let order = sort.order(&rows).unwrap();
        let sorted: Vec<Value> = order.iter().map(|&i| docs[i as usize].clone()).collect();
        prop_assert_eq!(sorted, reference_sort(&docs, &keys));
        query.offset(offset).unwrap().limit(limit).unwrap();
        let (page, total) = sort.page(&query, &rows).unwrap();
        prop_assert_eq!(total, docs.len());
        let start = (offset as usize).min(docs.len());
        let end = (start + limit as usize).min(docs.len());
        prop_assert_eq!(page, order[start..end].to_vec());
    }
}

#[test]
fn what_local_js_answers_instead_of_text_is_an_error() {
    use content_repo::args::Arg;
    use content_repo::engine::local::{list_text, selection, LocalSort};
    let sort = LocalSort::new(&Query::new());
    let error = sort.order(&Arg::Number(3.0)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "documents[3] is not a document: expected an object { fields, meta }"
    );
    assert_eq!(
        sort.order(&Arg::Undefined).unwrap_err().code(),
        "invalid_argument"
    );
    assert_eq!(
        list_text(Arg::Number(-1.0), || "42".into())
            .unwrap_err()
            .to_string(),
        "expected a document or a list of documents, got 42"
    );
    assert_eq!(
        list_text(Arg::Text("[]".into()), String::new).unwrap(),
        "[]"
    );
    assert_eq!(
        selection(&Arg::Text("*".into()), true, String::new).unwrap(),
        None
    );
    assert_eq!(
        selection(&Arg::Text("a(".into()), false, String::new)
            .unwrap_err()
            .code(),
        "invalid_selection",
        "the selection is checked first"
    );
    assert_eq!(
        selection(&Arg::Text("a".into()), false, || "5".into())
            .unwrap_err()
            .to_string(),
        "expected a document or a list of documents, got 5"
    );
}
