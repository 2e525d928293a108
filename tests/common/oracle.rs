//! The checks every fuzz input goes through (tests/fuzz.rs generates the
//! inputs, tests/corpus.rs replays the ones in tests/corpus/): each entry of
//! the core is called under [`guard`] (a panic fails with the input), and
//! its answer is held against an independent reference wherever there is
//! one:
//!
//! - the scanner, `normalize`, framing and probing, order keys, selection,
//!   sorting and `apply_query` against the plain recursive reference of
//!   `json_ref.rs` (texts up to [`REFERENCE_DEPTH`] deep; deeper ones are
//!   checked for agreement among the entries), and `validate` against
//!   `serde_json` where serde_json can read the text (no lone surrogates,
//!   numbers within `f64`, less than 128 levels);
//! - the document store against `apply_query` over a list model of its
//!   documents (insertion order, the revision rule);
//! - the offline cache's answers against `apply_query` over the whole list
//!   (offline == online), also after a reload of what it wrote;
//! - the response checks against the reference's reading of the body.
#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

use content_repo::cache::policy::{is_network_failure, Cached, Machine, Policy, Settings, Step};
use content_repo::cache::{variant_key, Cache, Change, Kind};
use content_repo::engine::apply::{apply_query, select_any};
use content_repo::engine::list::{frame, frame_valid, probe, probe_valid, Shape};
use content_repo::engine::order::{sort_key_at, value_key};
use content_repo::engine::select::{select_document, Plan};
use content_repo::engine::sort::sort_list;
use content_repo::http::response::{check, http_error, Expect, Facts, MESSAGE_CHARS};
use content_repo::json::{normalize, valid_value_end, validate, value_end, Syntax};
use content_repo::query::sort::{FieldKey, Scope};
use content_repo::store::DocumentStore;
use content_repo::{Endpoint, Error, Parts, Query, Selection, Sort};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::gen::Ask;
use crate::harness::guard;
use crate::json_ref::{self, s, wtf8, J};

/// How deep a text may be for the recursive reference to read it (on the
/// 1 MiB wasm stack too); deeper texts are checked for agreement among the
/// entries and for what their construction says.
pub const REFERENCE_DEPTH: usize = 200;

/// The API key the response checks are given.
pub const SECRET: &str = "s3cr3t-k3y";

pub type Outcome = Result<(), TestCaseError>;

/// A document of a list: its range of the text, and its value.
type Document = (std::ops::Range<usize>, J);

const META_NAMES: &[&str] = &[
    "id",
    "revision",
    "contentType",
    "createdAt",
    "__proto__",
    "é",
];
const FIELD_NAMES: &[&str] = &["a", "b", "x", "title", "__proto__", "*"];

/// Values each value's order key is compared with.
const ORDER_PROBES: &[&str] = &[
    "0",
    "-1e400",
    "9007199254740993",
    r#""a""#,
    r#""2024-01-01T00:00:00Z""#,
    r#"{"plain":"a"}"#,
    r#"{"lat":1,"lng":2}"#,
    "{}",
    r#"{"a":null}"#,
    "[]",
    "[1,null]",
    "true",
    "null",
];

fn syntax_in_bounds(result: &Result<impl Sized, Syntax>, length: usize, entry: &str) -> Outcome {
    if let Err(error) = result {
        prop_assert!(
            error.position <= length,
            "{} reported position {} of {} bytes",
            entry,
            error.position,
            length
        );
    }
    Ok(())
}

/// The one JSON value a text is, by the reference, or `None` when the text
/// is too deep for it (`Some(None)`: not JSON).
fn reference(text: &str) -> Option<Option<J>> {
    (json_ref::depth(text.as_bytes()) <= REFERENCE_DEPTH).then(|| json_ref::read(text))
}

fn reference_depth(value: &J) -> usize {
    match value {
        J::Arr(items) => 1 + items.iter().map(reference_depth).max().unwrap_or(0),
        J::Obj(entries) => {
            1 + entries
                .iter()
                .map(|(_, v)| reference_depth(v))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// Whether serde_json can read a text holding `value`: no lone
/// surrogate, numbers within `f64`, and its recursion limit (128).
fn serde_can_read(value: &J) -> bool {
    fn scalars(value: &J) -> bool {
        match value {
            J::Num(text) => text.parse::<f64>().is_ok_and(f64::is_finite),
            J::Str(units) => !json_ref::has_lone_surrogate(units),
            J::Arr(items) => items.iter().all(scalars),
            J::Obj(entries) => entries
                .iter()
                .all(|(key, item)| !json_ref::has_lone_surrogate(key) && scalars(item)),
            _ => true,
        }
    }
    reference_depth(value) < 120 && scalars(value)
}

/// The text an engine answer is read back as (it must be JSON).
fn read_answer(out: &str, entry: &str) -> Result<J, TestCaseError> {
    json_ref::read(out)
        .map(|value| value.dedup())
        .ok_or_else(|| TestCaseError::fail(format!("{entry} wrote text that is not JSON: {out:?}")))
}

fn entries(value: &J) -> &[(Vec<u16>, J)] {
    match value {
        J::Obj(entries) => entries,
        _ => &[],
    }
}

/// The last raw entry named `name` of an object (the one JSON.parse keeps).
fn last<'a>(value: &'a J, name: &str) -> Option<&'a J> {
    entries(value)
        .iter()
        .rev()
        .find(|(key, _)| *key == s(name))
        .map(|(_, item)| item)
}

// ------------------------------------------------------------------ queries

/// A query from the text of a request: each part that the setters refuse is
/// left out, after checking that it is refused with the right code.
pub fn build(ask: &Ask) -> Result<Query, TestCaseError> {
    let mut query = Query::new();
    for (key, direction) in &ask.sorting {
        let input = format!("{key:?} {direction:?}");
        match guard("Sort::parse", &input, || Sort::parse(key, direction))? {
            Ok(sort) => {
                let text = sort.key.to_string();
                prop_assert_eq!(text.parse::<FieldKey>().ok(), Some(sort.key.clone()));
                query
                    .push_sort(sort)
                    .map_err(|error| TestCaseError::fail(format!("push_sort: {error}")))?;
            }
            Err(error) => prop_assert_eq!(error.code(), "invalid_sort", "{}", input),
        }
    }
    if let Some(selection) = &ask.selection {
        let parsed = guard("Selection::parse", selection, || {
            Selection::parse(selection)
        })?;
        selection_parsed(selection, &parsed)?;
        if let Ok(selection) = parsed {
            query.set_selection(Some(selection));
        }
    }
    if let Some(limit) = ask.limit {
        let valid = (1..=1000).contains(&limit);
        prop_assert_eq!(query.limit(limit).is_ok(), valid, "limit {}", limit);
    }
    if let Some(offset) = ask.offset {
        let valid = offset < (1 << 53);
        prop_assert_eq!(query.offset(offset).is_ok(), valid, "offset {}", offset);
    }
    let text = query.to_string();
    let again = guard("Query::parse", &text, || Query::parse(&text))?;
    prop_assert_eq!(again.as_ref().ok(), Some(&query), "{}", text);
    Ok(query)
}

/// What a parsed selection must satisfy: an error is positioned inside the
/// input; a selection writes a canonical form that reads back as itself
/// and compiles (or is refused as too complex).
fn selection_parsed(text: &str, parsed: &Result<Selection, Error>) -> Outcome {
    match parsed {
        Ok(selection) => {
            let canonical = selection.to_string();
            let again = guard("Selection::parse", &canonical, || {
                Selection::parse(&canonical)
            })?;
            prop_assert_eq!(
                again.as_ref().ok(),
                Some(selection),
                "{:?} -> {:?}",
                text,
                canonical
            );
            let plan = guard("Plan::compile", text, || Plan::compile(selection))?;
            if let Err(error) = plan {
                prop_assert_eq!(error.code(), "invalid_selection");
                prop_assert!(error.to_string().contains("too many"), "{}", error);
            }
        }
        Err(error) => {
            prop_assert_eq!(error.code(), "invalid_selection", "{:?}", text);
            let length = text.encode_utf16().count();
            prop_assert!(
                error.position().is_some_and(|position| position <= length),
                "{:?}: {}",
                text,
                error
            );
        }
    }
    Ok(())
}

/// Selection text: parsed, written back, compiled, and applied to a few
/// documents (against the reference) with and without sort keys.
pub fn selection_text(text: &str) -> Outcome {
    let ask = Ask {
        selection: Some(text.to_owned()),
        sorting: vec![("fields.a".into(), "DESC".into())],
        limit: Some(3),
        offset: None,
    };
    json_text(SAMPLE_LIST.as_bytes(), &[ask])
}

/// Documents the selections of the selection fuzzer are applied to.
pub const SAMPLE_LIST: &str = r#"{"data":[
 {"fields":{"a":{"b":1,"x":[{"x":1},{"y":2},3,[{"x":4}]]},"*":{"a":2},"__proto__":{"x":0},"title":"t","x":[[{"a":1}],[]]},"meta":{"id":"2","revision":1,"createdAt":"2024-01-01T00:00:00Z","contentType":"a"}},
 {"fields":{"a":[{"b":[1,{"a":{"b":2}}]},null],"b":{"plain":"p"},"a":{"x":{"x":{"x":1}}}},"meta":{"id":"10","createdAt":"2023-01-01T00:00:00Z"},"extra":1},
 {"fields":{"x":"\ud800","b":{"lat":1,"lng":1e400}},"meta":{"id":"x","revision":2}}
],"meta":{"total":3},"includes":{"a":[{"fields":{"x":1,"y":{"a":1}}}],"b":{"fields":{"x":2}}}}"#;

/// Query strings: `Query::parse` gives a query that writes a query string
/// reading back as itself, or an error of a request code.
pub fn query_text(text: &str) -> Outcome {
    match guard("Query::parse", text, || Query::parse(text))? {
        Ok(query) => {
            let written = query.to_string();
            let again = guard("Query::parse", &written, || Query::parse(&written))?;
            prop_assert_eq!(
                again.as_ref().ok(),
                Some(&query),
                "{:?} -> {:?}",
                text,
                written
            );
            prop_assert_eq!(again.map(|q| q.to_string()).ok(), Some(written));
        }
        Err(error) => prop_assert!(
            matches!(
                error.code(),
                "invalid_argument" | "invalid_sort" | "invalid_selection"
            ),
            "{:?}: {:?}",
            text,
            error
        ),
    }
    Ok(())
}

// ------------------------------------------------------------------ texts

/// Any bytes: the scanner reads them as bytes; every entry that takes text
/// gets them as text (invalid UTF-8 replaced, as a response body is decoded).
pub fn json_text(bytes: &[u8], asks: &[Ask]) -> Outcome {
    let lossy = String::from_utf8_lossy(bytes);
    let end = guard("json::value_end", &lossy, || value_end(bytes, 0))?;
    syntax_in_bounds(&end, bytes.len(), "value_end")?;
    // The scan for checked text, on anything: in bounds, never a panic.
    let unchecked = guard("json::valid_value_end", &lossy, || {
        valid_value_end(bytes, 0)
    })?;
    prop_assert!(unchecked <= bytes.len());
    let found = guard("list::probe_valid", &lossy, || {
        probe_valid(bytes, 0..bytes.len(), META_NAMES, FIELD_NAMES)
    })?;
    if let Ok(found) = found {
        for range in found.meta.iter().chain(&found.fields).flatten() {
            prop_assert!(range.start <= range.end && range.end <= bytes.len());
        }
    }
    json_str(&lossy, asks)
}

/// The shape of a text by the reference.
enum Expected {
    Array(Vec<J>),
    Envelope(J, Vec<J>),
    Object,
    Scalar,
}

fn expected_shape(value: &J) -> Expected {
    match value {
        J::Arr(items) => Expected::Array(items.clone()),
        J::Obj(_) => {
            let deduped = value.dedup();
            // A `fields` object is a document's; any other `fields` is an
            // envelope's extra key.
            match (last(value, "data"), deduped.get("fields")) {
                (
                    Some(J::Arr(items)),
                    None | Some(J::Null | J::Bool(_) | J::Num(_) | J::Str(_) | J::Arr(_)),
                ) => Expected::Envelope(deduped.clone(), items.clone()),
                _ => Expected::Object,
            }
        }
        _ => Expected::Scalar,
    }
}

/// Text: every entry of the core, against the reference where the text is
/// shallow enough for it.
pub fn json_str(text: &str, asks: &[Ask]) -> Outcome {
    let bytes = text.as_bytes();
    let length = bytes.len();
    let valid = guard("json::validate", text, || validate(text))?;
    syntax_in_bounds(&valid, length, "validate")?;
    let end = guard("json::value_end", text, || value_end(bytes, 0))?;
    syntax_in_bounds(&end, length, "value_end")?;
    let normal = guard("json::normalize", text, || normalize(text))?;
    syntax_in_bounds(&normal, length, "normalize")?;
    let key = guard("order::value_key", text, || value_key(bytes))?;
    let framed = guard("list::frame", text, || frame(text))?;
    syntax_in_bounds(&framed, length, "frame")?;
    // Framing checked text without checking it again: the same shape on
    // JSON; on anything else, no panic.
    let unchecked = guard("list::frame_valid", text, || frame_valid(text))?;
    if valid.is_ok() {
        prop_assert_eq!(&unchecked, &framed, "frame_valid of {:?}", text);
    }
    // On checked text, the scan that checks nothing ends every value where
    // the checking scan does: the whole text, and each framed document.
    if valid.is_ok() {
        prop_assert_eq!(
            Ok(valid_value_end(bytes, 0)),
            end,
            "valid_value_end on {:?}",
            text
        );
    }
    if let Ok(Shape::Array(documents) | Shape::Envelope { documents, .. }) = &framed {
        for document in documents {
            prop_assert_eq!(
                valid_value_end(bytes, document.start),
                document.end,
                "valid_value_end of a document of {:?}",
                text
            );
        }
    }
    // The entries agree on what is JSON.
    prop_assert_eq!(normal.is_ok(), valid.is_ok(), "normalize vs validate");
    prop_assert_eq!(key.is_some(), valid.is_ok(), "value_key vs validate");
    prop_assert_eq!(framed.is_ok(), valid.is_ok(), "frame vs validate");
    if valid.is_ok() {
        prop_assert!(end.is_ok());
    }
    for id in [false, true] {
        let sort_key = guard("order::sort_key_at", text, || sort_key_at(bytes, 0, id))?;
        syntax_in_bounds(&sort_key, length, "sort_key_at")?;
        if valid.is_ok() {
            prop_assert!(sort_key.is_ok(), "sort_key_at of valid JSON");
        }
    }
    if let Ok(normal) = &normal {
        // Normal text is JSON, normal already, and orders as the original.
        prop_assert!(validate(normal).is_ok(), "normalize wrote {:?}", normal);
        let twice = guard("json::normalize", normal, || normalize(normal))?;
        prop_assert_eq!(twice.as_ref().ok(), Some(normal), "normalize is idempotent");
        prop_assert_eq!(
            value_key(normal.as_bytes()),
            key.clone(),
            "order key of normal text"
        );
    }
    for expect in [Expect::List, Expect::Document, Expect::Any] {
        let checked = guard("response::check", text, || check(text, expect, SECRET))?;
        let framed = framed.as_ref().ok();
        let fits = match expect {
            Expect::List => matches!(framed, Some(Shape::Envelope { .. })),
            Expect::Document => matches!(framed, Some(Shape::Object | Shape::Envelope { .. })),
            Expect::Any => framed.is_some(),
        };
        prop_assert_eq!(checked.is_ok(), fits, "check {:?}", expect);
        if let Err(error) = checked {
            prop_assert_eq!(error.code(), "decode");
        }
    }
    let status = 400 + u16::try_from(length % 200).unwrap_or(0);
    let error = guard("response::http_error", text, || {
        http_error(status, text, SECRET)
    })?;

    let Some(read) = reference(text) else {
        // Too deep for the reference: every entry still runs.
        return deep_entries(text, framed.ok(), asks);
    };
    prop_assert_eq!(
        valid.is_ok(),
        read.is_some(),
        "validate vs the reference on {:?}",
        text
    );
    let Some(value) = read else {
        let serde = serde_json::from_str::<serde_json::Value>(text);
        prop_assert!(serde.is_err(), "serde_json reads {:?}", text);
        let read_one = json_ref::read_value(text).map(|(_, end)| end);
        prop_assert_eq!(end.ok(), read_one, "value_end vs the reference");
        return store_text(text, None, asks);
    };
    prop_assert_eq!(
        end.ok(),
        json_ref::read_value(text).map(|(_, end)| end),
        "value_end vs the reference"
    );
    let deduped = value.dedup();
    if serde_can_read(&value) {
        let serde = serde_json::from_str::<serde_json::Value>(text);
        prop_assert!(
            serde.is_ok(),
            "serde_json refuses {:?}: {:?}",
            text,
            serde.err()
        );
    }
    // normalize is JSON.parse's reading.
    let normal = normal.unwrap_or_default();
    prop_assert_eq!(
        json_ref::read(&normal),
        Some(deduped.clone()),
        "normalize of {:?}",
        text
    );
    // Order keys: the same under rewriting, and ordered as the reference.
    let key = key.unwrap_or_default();
    prop_assert_eq!(
        value_key(json_ref::text(&value).as_bytes()),
        Some(key.clone()),
        "order key of the compact text"
    );
    for probe_text in ORDER_PROBES {
        let other = json_ref::read(probe_text).unwrap_or(J::Null);
        let other_key = value_key(probe_text.as_bytes()).unwrap_or_default();
        prop_assert_eq!(
            key.cmp(&other_key),
            json_ref::compare(&deduped, &other),
            "{:?} vs {}",
            text,
            probe_text
        );
    }
    let sort_key = sort_key_at(bytes, 0, false).ok().flatten();
    prop_assert_eq!(sort_key, (deduped != J::Null).then_some(key.clone()));
    if matches!(deduped, J::Str(_)) {
        let id_key = sort_key_at(bytes, 0, true)
            .ok()
            .flatten()
            .unwrap_or_default();
        for other in ["\"1\"", "\"007\"", "\"x\"", "\"99999999999999999999\""] {
            let other_key = sort_key_at(other.as_bytes(), 0, true)
                .ok()
                .flatten()
                .unwrap_or_default();
            let other_value = json_ref::read(other).unwrap_or(J::Null);
            prop_assert_eq!(
                id_key.cmp(&other_key),
                json_ref::compare_ids(&deduped, &other_value),
                "id {:?} vs {}",
                text,
                other
            );
        }
    }
    let facts = check(text, Expect::List, SECRET).ok();
    prop_assert_eq!(facts, facts_of(text), "the facts of a list");
    // http_error reads the service's message as JSON.parse does.
    // (Control characters are spaces in messages.)
    let message = expected_message(&deduped)
        .map(|text| {
            text.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect::<String>()
        })
        .map(|text| content_repo::http::response::excerpt(&text, SECRET, MESSAGE_CHARS));
    prop_assert_eq!(
        error,
        Error::Http { status, message },
        "http_error of {:?}",
        text
    );
    // Framing.
    let expected = expected_shape(&value);
    let framed = framed.unwrap_or(Shape::Scalar);
    let documents: Vec<Document> = match (&framed, &expected) {
        (Shape::Array(ranges), Expected::Array(items))
        | (
            Shape::Envelope {
                documents: ranges, ..
            },
            Expected::Envelope(_, items),
        ) => {
            prop_assert_eq!(ranges.len(), items.len(), "documents of {:?}", text);
            for (range, item) in ranges.iter().zip(items) {
                let slice = text.get(range.clone()).unwrap_or_default();
                prop_assert_eq!(
                    json_ref::read(slice),
                    Some(item.clone()),
                    "document text {:?}",
                    slice
                );
            }
            ranges.iter().cloned().zip(items.iter().cloned()).collect()
        }
        (Shape::Object, Expected::Object) | (Shape::Scalar, Expected::Scalar) => Vec::new(),
        _ => {
            return Err(TestCaseError::fail(format!(
                "frame of {text:?} gave {framed:?}"
            )));
        }
    };
    if let (Shape::Envelope { entries: found, .. }, Expected::Envelope(envelope, _)) =
        (&framed, &expected)
    {
        let names: Vec<Vec<u8>> = found.iter().map(|entry| entry.name.clone()).collect();
        let wanted: Vec<Vec<u8>> = entries(envelope).iter().map(|(key, _)| wtf8(key)).collect();
        prop_assert_eq!(names, wanted, "envelope entries of {:?}", text);
        for entry in found {
            let slice = text.get(entry.value.clone()).unwrap_or_default();
            let key = text.get(entry.key.clone()).unwrap_or_default();
            let name = json_ref::read(key).and_then(|key| match key {
                J::Str(units) => Some(units),
                _ => None,
            });
            let original = name.and_then(|name| {
                entries(&value)
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.clone())
            });
            prop_assert_eq!(json_ref::read(slice), original, "envelope entry {:?}", key);
        }
    }
    for (range, document) in &documents {
        let found = guard("list::probe", text, || {
            probe(bytes, range.clone(), META_NAMES, FIELD_NAMES)
        })?
        .map_err(|error| TestCaseError::fail(format!("probe: {error}")))?;
        // The probe of stored (checked) text finds exactly the same.
        let unchecked = guard("list::probe_valid", text, || {
            probe_valid(bytes, range.clone(), META_NAMES, FIELD_NAMES)
        })?;
        prop_assert_eq!(
            unchecked.as_ref().ok(),
            Some(&found),
            "probe_valid of {:?}",
            text
        );
        let document = document.dedup();
        prop_assert_eq!(found.is_object, matches!(document, J::Obj(_)));
        for (names, scope, slots) in [
            (META_NAMES, "meta", &found.meta),
            (FIELD_NAMES, "fields", &found.fields),
        ] {
            for (name, slot) in names.iter().zip(slots) {
                let got = slot
                    .clone()
                    .and_then(|range| json_ref::read(text.get(range)?))
                    .map(|v| v.dedup());
                let wanted = document
                    .get(scope)
                    .and_then(|scope| scope.get(name))
                    .cloned();
                prop_assert_eq!(got, wanted, "probe {}.{} of {:?}", scope, name, text);
            }
        }
    }
    // Queries over the list, and selections of a document.
    for ask in asks {
        let query = build(ask)?;
        engine_query(text, &query, &expected)?;
    }
    store_text(text, Some((&framed, &documents)), asks)
}

/// The service's message as `JSON.parse` reads the body: `message` if it is
/// a string that prints as more than blanks, else `error` if it is one,
/// else `error.message` if it is one.
fn expected_message(value: &J) -> Option<String> {
    let text = |value: Option<&J>| match value {
        Some(J::Str(units)) => Some(String::from_utf8_lossy(&wtf8(units)).into_owned()),
        _ => None,
    };
    // Blank: white space, control characters and the bidirectional
    // controls, all of which a message prints as spaces, and what prints as
    // nothing (Unicode's Default_Ignorable_Code_Point, as DerivedCoreProperties
    // lists it).
    let bidi = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    let ignorable = |c: char| {
        let ranges: [(u32, u32); 17] = [
            (0xAD, 0xAD),
            (0x34F, 0x34F),
            (0x61C, 0x61C),
            (0x115F, 0x1160),
            (0x17B4, 0x17B5),
            (0x180B, 0x180F),
            (0x200B, 0x200F),
            (0x202A, 0x202E),
            (0x2060, 0x206F),
            (0x3164, 0x3164),
            (0xFE00, 0xFE0F),
            (0xFEFF, 0xFEFF),
            (0xFFA0, 0xFFA0),
            (0xFFF0, 0xFFF8),
            (0x1BCA0, 0x1BCA3),
            (0x1D173, 0x1D17A),
            (0xE0000, 0xE0FFF),
        ];
        ranges
            .iter()
            .any(|&(low, high)| (low..=high).contains(&u32::from(c)))
    };
    let shown = |text: &String| {
        !text
            .chars()
            .all(|c| c.is_whitespace() || c.is_control() || bidi(c) || ignorable(c))
    };
    let error = value.get("error");
    text(value.get("message"))
        .filter(shown)
        .or_else(|| text(error).filter(shown))
        .or_else(|| match error {
            Some(error @ J::Obj(_)) => text(error.get("message")).filter(shown),
            _ => None,
        })
}

/// A text too deep for the reference: every entry runs, and agrees with
/// the others on whether it is a list.
fn deep_entries(text: &str, framed: Option<Shape>, asks: &[Ask]) -> Outcome {
    let list = matches!(framed, Some(Shape::Array(_) | Shape::Envelope { .. }));
    // An answer wraps the documents in `{"data":[...]}`: from input nested
    // up to MAX_DEPTH, JSON that the scanner itself no longer reads (and
    // JSON.parse does), so checked only with room below the limit.
    let room = json_ref::depth(text.as_bytes()) + 2 <= content_repo::json::MAX_DEPTH;
    for ask in asks {
        let query = build(ask)?;
        let applied = guard("apply::apply_query", text, || apply_query(text, &query))?;
        if !list {
            prop_assert!(applied.is_err(), "apply_query of a text that is not a list");
        }
        let sorted = guard("sort::sort_list", text, || {
            sort_list(text, query.sorting(), None)
        })?;
        prop_assert_eq!(sorted.is_ok(), applied.is_ok(), "sort_list vs apply_query");
        let selection = query.selection().cloned().unwrap_or(Selection::All);
        let selected = guard("apply::select_any", text, || select_any(text, &selection))?;
        if let (Ok(out), true) = (&selected, room) {
            prop_assert!(validate(out).is_ok(), "select_any wrote {:?}", out);
        }
        if let (Ok(out), true) = (&applied, room) {
            prop_assert!(
                validate(out).is_ok(),
                "apply_query wrote text that is not JSON"
            );
        }
    }
    store_text(text, None, asks)
}

// ------------------------------------------------------------------ engine

fn parts(selection: Option<&Selection>) -> Option<&Parts> {
    match selection {
        Some(Selection::Parts(parts)) => Some(parts),
        _ => None,
    }
}

/// The value of `key` in a (deduplicated) document: missing and `null` are
/// `None`.
fn sort_value(document: &J, key: &FieldKey) -> Option<J> {
    let scope = match key.scope {
        Scope::Fields => "fields",
        Scope::Meta => "meta",
    };
    document
        .get(scope)
        .and_then(|scope| scope.get(&key.name))
        .filter(|value| **value != J::Null)
        .cloned()
}

/// SPEC section 2 by the reference: the keys in turn (then the default
/// order), missing last in both directions, stable.
pub fn reference_order(documents: &[J], query: &Query) -> Vec<usize> {
    let keys = content_repo::engine::sort::effective_keys(query.sorting());
    let deduped: Vec<J> = documents.iter().map(J::dedup).collect();
    let mut order: Vec<usize> = (0..documents.len()).collect();
    order.sort_by(|&p, &q| {
        for (key, direction) in &keys {
            let (x, y) = (sort_value(&deduped[p], key), sort_value(&deduped[q], key));
            let order = match (x, y) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(x), Some(y)) => {
                    let id = key.scope == Scope::Meta && key.name == "id";
                    let order = if id {
                        json_ref::compare_ids(&x, &y)
                    } else {
                        json_ref::compare(&x, &y)
                    };
                    match direction {
                        content_repo::Direction::Asc => order,
                        content_repo::Direction::Desc => order.reverse(),
                    }
                }
            };
            if order != Ordering::Equal {
                return order;
            }
        }
        p.cmp(&q)
    });
    order
}

/// The includes entry of an envelope as a selection leaves it (`None`:
/// left out).
fn selected_includes(value: &J, selection: Option<&Selection>) -> Option<J> {
    match parts(selection).and_then(|parts| parts.includes.as_ref()) {
        Some(node) => json_ref::apply(value, node),
        None => Some(value.clone()),
    }
}

fn selected_document(document: &J, selection: Option<&Selection>) -> J {
    json_ref::select_document(&document.dedup(), parts(selection))
}

/// `apply_query`, `select_any` and `sort_list` of one query against the
/// reference.
fn engine_query(text: &str, query: &Query, expected: &Expected) -> Outcome {
    let input = format!("{text} with {query}");
    let selection = query.selection();
    let applied = guard("apply::apply_query", &input, || apply_query(text, query))?;
    let sorted = guard("sort::sort_list", &input, || {
        sort_list(text, query.sorting(), None)
    })?;
    let all = selection.cloned().unwrap_or(Selection::All);
    let selected = guard("apply::select_any", &input, || select_any(text, &all))?;
    let documents = match expected {
        Expected::Array(items) | Expected::Envelope(_, items) => items,
        Expected::Object => {
            prop_assert!(
                applied.is_err() && sorted.is_err(),
                "a document is not a list"
            );
            let plan =
                Plan::compile(&all).map_err(|error| TestCaseError::fail(error.to_string()))?;
            let one = guard("select::select_document", &input, || {
                select_document(text, &plan)
            })?;
            let value = json_ref::read(text).unwrap_or(J::Null);
            let wanted = selected_document(&value, selection);
            prop_assert_eq!(
                read_answer(
                    &one.map_err(|e| TestCaseError::fail(e.to_string()))?,
                    "select_document"
                )?,
                wanted.clone(),
                "{}",
                input
            );
            let out =
                selected.map_err(|error| TestCaseError::fail(format!("select_any: {error}")))?;
            prop_assert_eq!(read_answer(&out, "select_any")?, wanted, "{}", input);
            return Ok(());
        }
        Expected::Scalar => {
            prop_assert!(
                applied.is_err() && sorted.is_err() && selected.is_err(),
                "{}",
                input
            );
            return Ok(());
        }
    };
    let objects = documents
        .iter()
        .all(|document| matches!(document, J::Obj(_)));
    prop_assert_eq!(
        applied.is_ok(),
        objects,
        "apply_query of {}: {:?}",
        input,
        applied.as_ref().err()
    );
    prop_assert_eq!(sorted.is_ok(), objects, "sort_list of {}", input);
    prop_assert_eq!(selected.is_ok(), objects, "select_any of {}", input);
    if !objects {
        for error in [applied.err(), sorted.err(), selected.err()]
            .into_iter()
            .flatten()
        {
            prop_assert_eq!(error.code(), "invalid_argument");
        }
        return Ok(());
    }
    let order = reference_order(documents, query);
    prop_assert_eq!(sorted.ok(), Some(order.clone()), "sort_list of {}", input);
    let (offset, count) = content_repo::engine::apply::page_bounds(query, documents.len());
    let first = sort_list(text, query.sorting(), Some(offset + count)).ok();
    prop_assert_eq!(
        first.as_deref(),
        order.get(..offset + count),
        "sort_list first {}",
        offset + count
    );
    // apply_query: the page, its meta, the envelope's other entries.
    let page: Vec<J> = order
        .iter()
        .skip(offset)
        .take(count)
        .map(|&position| selected_document(&documents[position], selection))
        .collect();
    let page_meta = (
        s("meta"),
        J::Obj(vec![
            (s("count"), J::Num(count.to_string())),
            (
                s("limit"),
                J::Num(content_repo::engine::apply::effective_limit(query).to_string()),
            ),
            (
                s("offset"),
                J::Num(query.get_offset().unwrap_or(0).to_string()),
            ),
            (s("total"), J::Num(documents.len().to_string())),
        ]),
    );
    // An envelope's entries in its order (the page's `data` and `meta` in
    // their places, `meta` last when it has none, `includes` selected).
    let mut wanted = vec![(s("data"), J::Arr(page.clone()))];
    if let Expected::Envelope(envelope, _) = expected {
        wanted.clear();
        for (key, value) in entries(envelope) {
            if *key == s("data") {
                wanted.push((key.clone(), J::Arr(page.clone())));
            } else if *key == s("meta") {
                wanted.push(page_meta.clone());
            } else if *key == s("includes") {
                wanted
                    .extend(selected_includes(value, selection).map(|value| (key.clone(), value)));
            } else {
                wanted.push((key.clone(), value.clone()));
            }
        }
    }
    if !wanted.iter().any(|(key, _)| *key == s("meta")) {
        wanted.push(page_meta);
    }
    let out = applied.unwrap_or_default();
    prop_assert_eq!(
        read_answer(&out, "apply_query")?,
        J::Obj(wanted),
        "apply_query of {}",
        input
    );
    // select_any: every document (an envelope's other entries kept).
    let all_documents: Vec<J> = documents
        .iter()
        .map(|document| selected_document(document, selection))
        .collect();
    let wanted = match expected {
        Expected::Envelope(envelope, _) => J::Obj(
            entries(envelope)
                .iter()
                .filter_map(|(key, value)| {
                    if *key == s("data") {
                        Some((key.clone(), J::Arr(all_documents.clone())))
                    } else if *key == s("includes") {
                        selected_includes(value, selection).map(|value| (key.clone(), value))
                    } else {
                        Some((key.clone(), value.clone()))
                    }
                })
                .collect(),
        ),
        _ => J::Arr(all_documents),
    };
    let out = selected.unwrap_or_default();
    prop_assert_eq!(
        read_answer(&out, "select_any")?,
        wanted,
        "select_any of {}",
        input
    );
    Ok(())
}

/// `Selection::covers`: when `fetched` covers `requested`, selecting
/// `requested` from a document projected with `fetched` gives what it
/// gives from the whole document (what lets the cache answer offline).
pub fn coverage(document: &J, fetched: &str, requested: &str) -> Outcome {
    let (Ok(fetched), Ok(requested)) = (Selection::parse(fetched), Selection::parse(requested))
    else {
        return Ok(());
    };
    let input = format!("{fetched} covers {requested}?");
    let covers = guard("Selection::covers", &input, || {
        Selection::covers(Some(&fetched), Some(&requested))
    })?;
    let (Ok(first), Ok(second)) = (Plan::compile(&fetched), Plan::compile(&requested)) else {
        return Ok(());
    };
    let text = json_ref::text(document);
    let projected =
        select_document(&text, &first).map_err(|error| TestCaseError::fail(error.to_string()))?;
    let again = select_document(&projected, &second)
        .map_err(|error| TestCaseError::fail(error.to_string()))?;
    let direct = selected_document(document, Some(&requested));
    if covers {
        prop_assert_eq!(
            read_answer(&again, "select_document")?,
            direct,
            "{} on {}",
            input,
            text
        );
    }
    // A selection covers itself.
    prop_assert!(
        Selection::covers(Some(&requested), Some(&requested)),
        "{}",
        requested
    );
    Ok(())
}

// ------------------------------------------------------------------ store

/// A stored document of the model.
#[derive(Debug, Clone)]
struct Stored {
    id: Vec<u8>,
    revision: Option<String>,
    content_type: Option<String>,
    text: String,
}

/// The id, revision and content type the store reads from a document, or
/// `None` when it refuses it.
fn model_document(document: &J, text: &str) -> Option<Stored> {
    let document = document.dedup();
    let J::Obj(_) = document else { return None };
    let meta = document.get("meta");
    let id = match meta.and_then(|meta| meta.get("id")) {
        Some(J::Str(units)) => wtf8(units),
        Some(J::Num(number)) => number.as_bytes().to_vec(),
        _ => return None,
    };
    if id.is_empty() {
        return None;
    }
    let revision = match meta.and_then(|meta| meta.get("revision")) {
        Some(J::Num(number)) => Some(number.clone()),
        _ => None,
    };
    let content_type = match meta.and_then(|meta| meta.get("contentType")) {
        Some(J::Str(units)) => Some(String::from_utf8_lossy(&wtf8(units)).into_owned()),
        _ => None,
    };
    Some(Stored {
        id,
        revision,
        content_type,
        text: text.to_owned(),
    })
}

/// The revision rule: a lower numeric revision never replaces a higher one
/// (no revision is lower than any).
fn model_replaces(stored: &Stored, incoming: &Stored) -> bool {
    match (&incoming.revision, &stored.revision) {
        (None, Some(_)) => false,
        (Some(new), Some(old)) => json_ref::compare_numbers(new, old) != Ordering::Less,
        _ => true,
    }
}

/// Writes documents into the model; how many were written.
fn model_put(model: &mut Vec<Stored>, documents: Vec<Stored>) -> usize {
    let mut written = 0;
    for document in documents {
        match model.iter_mut().find(|stored| stored.id == document.id) {
            Some(stored) => {
                if model_replaces(stored, &document) {
                    *stored = document;
                    written += 1;
                }
            }
            None => {
                model.push(document);
                written += 1;
            }
        }
    }
    written
}

fn model_list(model: &[Stored], content_type: Option<&str>) -> String {
    let texts: Vec<&str> = model
        .iter()
        .filter(|stored| match content_type {
            Some(name) => stored.content_type.as_deref() == Some(name),
            None => true,
        })
        .map(|stored| stored.text.as_str())
        .collect();
    format!("[{}]", texts.join(","))
}

/// The store's answers equal `apply_query` over the model's list.
fn store_agrees(
    store: &mut DocumentStore,
    model: &[Stored],
    queries: &[Query],
    what: &str,
) -> Outcome {
    prop_assert_eq!(store.len(), model.len(), "{}", what);
    for query in queries {
        for content_type in [None, Some("a")] {
            let input = format!("{what}: {query}");
            let answer = guard("DocumentStore::query_json", &input, || {
                store.query_json(query, content_type)
            })?;
            let list = model_list(model, content_type);
            let wanted = apply_query(&list, query);
            prop_assert_eq!(
                answer.as_ref().ok(),
                wanted.as_ref().ok(),
                "{} (content type {:?}): store vs apply_query",
                input,
                content_type
            );
        }
    }
    Ok(())
}

/// `put_json` of a text into a store, against the model; then deletes.
/// `known`: the frame and documents by the reference (`None` for texts it
/// cannot read: then only that nothing panics and a refused text changes
/// nothing).
fn store_text(text: &str, known: Option<(&Shape, &[Document])>, asks: &[Ask]) -> Outcome {
    let queries: Vec<Query> = asks.iter().map(build).collect::<Result<_, _>>()?;
    let mut store = DocumentStore::new();
    let put = guard("DocumentStore::put_json", text, || {
        store.put_json(text.to_owned())
    })?;
    if let Err(error) = &put {
        prop_assert_eq!(error.code(), "decode", "{}", error);
        prop_assert_eq!(store.len(), 0, "a refused write leaves the store unchanged");
    }
    if validate(text).is_err() {
        prop_assert!(put.is_err(), "put_json accepted text that is not JSON");
    }
    for query in &queries {
        guard("DocumentStore::query_json", text, || {
            store.query_json(query, None)
        })?
        .map_err(|error| TestCaseError::fail(format!("query_json: {error}")))?;
    }
    let Some((shape, documents)) = known else {
        return Ok(());
    };
    let candidates: Option<Vec<Stored>> = match shape {
        Shape::Array(_) | Shape::Envelope { .. } => documents
            .iter()
            .map(|(range, document)| model_document(document, text.get(range.clone())?))
            .collect(),
        Shape::Object => {
            let value = json_ref::read(text).unwrap_or(J::Null);
            model_document(
                &value,
                text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r')),
            )
            .map(|one| vec![one])
        }
        Shape::Scalar => None,
    };
    let mut model = Vec::new();
    match candidates {
        None => prop_assert!(put.is_err(), "put_json accepted {:?}", text),
        Some(candidates) => {
            let written = model_put(&mut model, candidates.clone());
            prop_assert_eq!(put.as_ref().ok(), Some(&written), "put_json of {:?}", text);
            store_agrees(&mut store, &model, &queries, "after put_json")?;
            // The same text again: equal revisions replace, in place.
            let again = store.put_json(text.to_owned());
            let written = model_put(&mut model, candidates);
            prop_assert_eq!(again.ok(), Some(written), "put_json again");
            store_agrees(&mut store, &model, &queries, "after a second put_json")?;
        }
    }
    // Delete the first document (by an id that is text).
    if let Some(first) = model.first().cloned() {
        if let Ok(id) = String::from_utf8(first.id.clone()) {
            let deleted = guard("DocumentStore::delete", &id, || store.delete(&id))?;
            prop_assert!(deleted, "delete {:?}", id);
            model.retain(|stored| stored.id != first.id);
            store_agrees(&mut store, &model, &queries, "after delete")?;
            prop_assert!(!store.delete(&id), "a second delete finds nothing");
        }
    }
    Ok(())
}

/// Several writes into one store, deletes between them and after them,
/// against the model: the revision rule across writes, replaced documents
/// keeping their place, freed slots reused, and the indexes kept up to date
/// by every write and delete.
pub fn store_sequence(texts: &[String], deletes: &[usize], asks: &[Ask]) -> Outcome {
    let queries: Vec<Query> = asks.iter().map(build).collect::<Result<_, _>>()?;
    let mut store = DocumentStore::new();
    let mut model: Vec<Stored> = Vec::new();
    for (step, text) in texts.iter().enumerate() {
        // Query first, so that indexes exist that the write must update.
        store_agrees(
            &mut store,
            &model,
            &queries,
            &format!("before write {step}"),
        )?;
        let value = json_ref::read(text);
        let candidates: Option<Vec<Stored>> = value.as_ref().and_then(|value| {
            let (framed, documents) = match (frame(text).ok()?, expected_shape(value)) {
                (Shape::Array(ranges), Expected::Array(items))
                | (
                    Shape::Envelope {
                        documents: ranges, ..
                    },
                    Expected::Envelope(_, items),
                ) => (ranges, items),
                (Shape::Object, Expected::Object) => {
                    let trimmed = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
                    return model_document(value, trimmed).map(|one| vec![one]);
                }
                _ => return None,
            };
            framed
                .into_iter()
                .zip(documents)
                .map(|(range, document)| model_document(&document, text.get(range)?))
                .collect()
        });
        let put = guard("DocumentStore::put_json", text, || {
            store.put_json(text.clone())
        })?;
        match candidates {
            Some(candidates) => {
                let written = model_put(&mut model, candidates);
                prop_assert_eq!(put.ok(), Some(written), "write {} of {:?}", step, text);
            }
            None => prop_assert!(put.is_err(), "write {} accepted {:?}", step, text),
        }
        store_agrees(&mut store, &model, &queries, &format!("after write {step}"))?;
        // A delete between writes: the next write may reuse its slot.
        if let Some(&delete) = deletes.get(step) {
            store_delete(&mut store, &mut model, delete, &queries)?;
        }
    }
    for &delete in deletes.iter().skip(texts.len()) {
        store_delete(&mut store, &mut model, delete, &queries)?;
    }
    Ok(())
}

/// Deletes one stored document (chosen by `delete`, with an id that is
/// text) from the store and the model, and compares them.
fn store_delete(
    store: &mut DocumentStore,
    model: &mut Vec<Stored>,
    delete: usize,
    queries: &[Query],
) -> Outcome {
    if model.is_empty() {
        return Ok(());
    }
    let stored = model[delete % model.len()].clone();
    let Ok(id) = String::from_utf8(stored.id.clone()) else {
        return Ok(());
    };
    prop_assert!(store.delete(&id), "delete {:?}", id);
    model.retain(|known| known.id != stored.id);
    store_agrees(store, model, queries, &format!("after deleting {id:?}"))
}

// ------------------------------------------------------------------ cache

/// Storage as the boundary keeps it: the cache's writes applied in order.
#[derive(Default, Debug, Clone)]
pub struct Storage {
    pub entries: BTreeMap<String, String>,
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
}

const LIST_URL: &str = "https://cms.example.com/v1/demo/collections/posts?first";

fn posts() -> Endpoint {
    Endpoint::Collection("posts".into())
}

/// Whether a query needs the service (filters, search, tags, includes).
fn needs_service(query: &Query) -> bool {
    !query.filters().is_empty()
        || query.get_search().is_some()
        || !query.get_include_tags().is_empty()
        || !query.get_exclude_tags().is_empty()
        || query.get_includes().is_some()
        || parts(query.selection()).is_some_and(|parts| parts.includes.is_some())
}

/// The cache's answers to `queries`: list answers, then one per document.
fn cache_answers(
    cache: &mut Cache,
    documents: &[(Option<String>, J)],
    queries: &[Query],
) -> Result<Vec<Result<J, String>>, TestCaseError> {
    let mut answers = Vec::new();
    for (index, query) in queries.iter().enumerate() {
        let url = format!("{LIST_URL}&q={index}");
        let input = format!("{query}");
        let answer = guard("Cache::answer_list", &input, || {
            cache.answer_list(&url, &posts(), query)
        })?;
        answers.push(match answer {
            Ok(answer) => Ok(read_answer(&answer.body, "answer_list")?),
            Err(error) => Err(error.code().to_owned()),
        });
        for (id, _) in documents {
            let Some(id) = id else { continue };
            let endpoint = Endpoint::Document(id.clone());
            let answer = guard("Cache::answer_single", &input, || {
                cache.answer_single("other", &endpoint, query)
            })?;
            answers.push(match answer {
                Ok(answer) => Ok(read_answer(&answer.body, "answer_single")?),
                Err(error) => Err(error.code().to_owned()),
            });
        }
    }
    Ok(answers)
}

/// The offline cache against the service: `documents` (texts with unique
/// ids) are the whole list; the cache records the answer to `first` and
/// each document fetched with it, may evict down to `max_bytes`, and then
/// answers `queries` offline exactly as the service (`apply_query` over the
/// whole list) would online, or says `not_cached`; a reload from what it
/// wrote answers the same.
pub fn cache_check(
    documents: &[String],
    first: &Query,
    queries: &[Query],
    max_bytes: Option<usize>,
    pages: Option<u32>,
) -> Outcome {
    let list = format!("[{}]", documents.join(","));
    let values: Vec<J> = documents
        .iter()
        .map(|text| json_ref::read(text).unwrap_or(J::Null))
        .collect();
    let ids: Vec<(Option<String>, J)> = values
        .iter()
        .map(|value| {
            let id = match value.dedup().get("meta").and_then(|meta| meta.get("id")) {
                Some(J::Str(units)) => String::from_utf16(units).ok(),
                _ => None,
            };
            (id, value.clone())
        })
        .collect();
    let online = |query: &Query| apply_query(&list, query);
    let mut cache = Cache::new("a");
    cache.set_max_bytes(max_bytes);
    let mut storage = Storage::default();
    let response =
        online(first).map_err(|error| TestCaseError::fail(format!("the service: {error}")))?;
    let input = format!("{first} on {list}");
    let change = guard("Cache::plan_response", &input, || {
        cache.plan_response(
            Some(LIST_URL),
            &posts(),
            first,
            Kind::List,
            Rc::new(response.clone()),
            1000.0,
        )
    })?;
    // Documents fetched without their id cannot be recorded (`decode`).
    let recordable = Selection::covers_key(first.selection(), "meta", "id");
    let change = match change {
        Ok(change) => change,
        Err(error) => {
            prop_assert_eq!(error.code(), "decode", "{}", error);
            prop_assert!(!recordable, "plan_response refused {}: {}", input, error);
            return Ok(());
        }
    };
    storage.write(&change);
    cache.apply(change);
    // Prefetched in pages of `pages` (as client.prefetch does): every page
    // recorded, then the list marked complete with the ids of the pages.
    let mut complete = false;
    if let Some(size) = pages.filter(|_| recordable) {
        let mut page_ids = Vec::new();
        for (page, offset) in (0..documents.len()).step_by(size as usize).enumerate() {
            let mut query = first.clone();
            query
                .offset(offset as u64)
                .and_then(|query| query.limit(size))
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            let body = online(&query).map_err(|error| TestCaseError::fail(error.to_string()))?;
            page_ids.extend(content_repo::cache::page_ids(&body));
            let url = format!("{LIST_URL}&page={page}");
            let change = guard("Cache::plan_response", &body, || {
                cache.plan_response(
                    Some(&url),
                    &posts(),
                    &query,
                    Kind::List,
                    Rc::new(body.clone()),
                    999.0,
                )
            })?
            .map_err(|error| TestCaseError::fail(format!("a page: {error}")))?;
            storage.write(&change);
            cache.apply(change);
        }
        let change = guard("Cache::plan_complete", &input, || {
            cache.plan_complete(&posts(), first, page_ids, 999.5, None)
        })?
        .map_err(|error| TestCaseError::fail(format!("the list: {error}")))?;
        storage.write(&change);
        cache.apply(change);
        complete = !needs_service(first);
    }
    for (index, (id, value)) in ids.iter().enumerate() {
        let Some(id) = id else { continue };
        let text = json_ref::text(value);
        let body = match first.selection() {
            Some(selection) => select_any(&text, selection)
                .map_err(|error| TestCaseError::fail(error.to_string()))?,
            None => text,
        };
        let url = format!("https://cms.example.com/v1/demo/documents/{index}");
        let change = guard("Cache::plan_response", &body, || {
            cache.plan_response(
                Some(&url),
                &Endpoint::Document(id.clone()),
                first,
                Kind::Document,
                Rc::new(body.clone()),
                1001.0,
            )
        })?;
        match change {
            Ok(change) => {
                storage.write(&change);
                cache.apply(change);
            }
            Err(error) => {
                prop_assert_eq!(error.code(), "decode", "{}", error);
                prop_assert!(
                    !recordable,
                    "plan_response refused document {:?}: {}",
                    id,
                    error
                );
            }
        }
    }
    // A stale response (a lower revision of a document recorded above with
    // its revision) that holds nothing else is recorded not at all.
    let revisions = Selection::covers_key(first.selection(), "meta", "revision");
    let stale = ids
        .iter()
        .filter(|(id, _)| id.is_some() && recordable && revisions)
        .find_map(|(_, value)| lowered(value));
    if let Some(stale) = stale {
        let body = format!(r#"{{"data":[{stale}],"meta":{{"total":1}}}}"#);
        let change = guard("Cache::plan_response", &body, || {
            cache.plan_response(
                Some("https://cms.example.com/stale"),
                &posts(),
                first,
                Kind::List,
                Rc::new(body.clone()),
                1002.0,
            )
        })?;
        let change =
            change.map_err(|error| TestCaseError::fail(format!("a stale response: {error}")))?;
        prop_assert!(
            change.is_empty(),
            "a stale response planned writes: {:?}",
            change.puts()
        );
    }
    if max_bytes.is_some() {
        let change = guard("Cache::plan_collect", "", || cache.plan_collect())?;
        storage.write(&change);
        cache.apply(change);
    }
    let answers = cache_answers(&mut cache, &ids, queries)?;
    let available = |query: &Query| {
        max_bytes.is_none()
            && matches!(first.selection(), None | Some(Selection::All))
            && (complete
                || first.get_offset().unwrap_or(0) == 0
                    && documents.len()
                        <= content_repo::engine::apply::effective_limit(first) as usize
                    && !needs_service(first))
            && !needs_service(query)
            && variant_key(first) == variant_key(query)
    };
    offline_is_online(&answers, &ids, queries, &online, &available, first)?;
    // A reload answers from what was written: as before (after an
    // eviction, at least as safely).
    let mut reloaded = Cache::new("b");
    reloaded.set_max_bytes(max_bytes);
    let entries: Vec<(String, String)> = storage.entries.clone().into_iter().collect();
    let (errors, stale) = guard("Cache::load", "", || reloaded.load(entries))?;
    prop_assert!(
        errors.is_empty() && stale.is_empty(),
        "loading what it wrote: {:?}",
        errors
    );
    let again = cache_answers(&mut reloaded, &ids, queries)?;
    if max_bytes.is_none() {
        prop_assert_eq!(&again, &answers, "answers after a reload");
    }
    offline_is_online(&again, &ids, queries, &online, &available, first)
}

/// Each answer of the cache equals the service's (`apply_query` over the
/// whole list; the selected document), or is `not_cached`; `available`
/// says when the cache must be able to answer a list query.
fn offline_is_online(
    answers: &[Result<J, String>],
    ids: &[(Option<String>, J)],
    queries: &[Query],
    online: &dyn Fn(&Query) -> content_repo::Result<String>,
    available: &dyn Fn(&Query) -> bool,
    first: &Query,
) -> Outcome {
    let mut answers = answers.iter();
    for query in queries {
        let wanted = read_answer(
            &online(query).map_err(|error| TestCaseError::fail(error.to_string()))?,
            "apply_query",
        )?;
        match answers.next() {
            Some(Ok(answer)) => prop_assert_eq!(
                answer,
                &wanted,
                "offline != online for {} after {}",
                query,
                first
            ),
            Some(Err(code)) => {
                prop_assert_eq!(code.as_str(), "not_cached");
                prop_assert!(
                    !available(query),
                    "the cache could answer {} after {}",
                    query,
                    first
                );
            }
            None => prop_assert!(false, "an answer is missing"),
        }
        for (id, value) in ids {
            if id.is_none() {
                continue;
            }
            match answers.next() {
                Some(Ok(answer)) => {
                    let wanted = match query.selection() {
                        Some(selection) => selected_document(value, Some(selection)),
                        None => value.dedup(),
                    };
                    prop_assert_eq!(
                        answer,
                        &wanted,
                        "document {:?} offline for {} after {}",
                        id,
                        query,
                        first
                    );
                }
                Some(Err(code)) => prop_assert_eq!(code.as_str(), "not_cached"),
                None => prop_assert!(false, "an answer is missing"),
            }
        }
    }
    Ok(())
}

pub fn ids_unique(values: &[J]) -> bool {
    let ids: Vec<Option<J>> = values
        .iter()
        .map(|value| {
            value
                .dedup()
                .get("meta")
                .and_then(|meta| meta.get("id"))
                .cloned()
        })
        .collect();
    ids.iter()
        .enumerate()
        .all(|(index, id)| id.is_some() && !ids[..index].contains(id))
}

/// The document with its numeric revision lowered below what it is.
fn lowered(value: &J) -> Option<String> {
    let deduped = value.dedup();
    let J::Num(revision) = deduped.get("meta")?.get("revision")? else {
        return None;
    };
    if json_ref::compare_numbers(revision, "-1") != Ordering::Greater {
        return None;
    }
    let J::Obj(entries) = deduped else {
        return None;
    };
    let entries = entries
        .into_iter()
        .map(|(key, item)| match (key == s("meta"), item) {
            (true, J::Obj(meta)) => {
                let meta = meta
                    .into_iter()
                    .map(|(name, item)| {
                        if name == s("revision") {
                            (name, J::Num("-1".into()))
                        } else {
                            (name, item)
                        }
                    })
                    .collect();
                (key, J::Obj(meta))
            }
            (_, item) => (key, item),
        })
        .collect();
    Some(json_ref::text(&J::Obj(entries)))
}

/// Stored entries that may be anything: loading skips what is corrupt,
/// reports it, and the cache keeps answering.
pub fn load_anything(entries: Vec<(String, String)>, queries: &[Query]) -> Outcome {
    let mut cache = Cache::new("c");
    let shown = format!("{entries:?}");
    let count = entries.len();
    let (errors, _) = guard("Cache::load", &shown, || cache.load(entries))?;
    prop_assert!(errors.len() <= count);
    for error in &errors {
        prop_assert_eq!(error.code(), "decode");
    }
    for query in queries {
        let answer = guard("Cache::answer_list", &shown, || {
            cache.answer_list(LIST_URL, &posts(), query)
        })?;
        if let Err(error) = answer {
            prop_assert_eq!(error.code(), "not_cached");
        }
        let answer = guard("Cache::answer_single", &shown, || {
            cache.answer_single("x", &Endpoint::Document("1".into()), query)
        })?;
        if let Err(error) = answer {
            prop_assert_eq!(error.code(), "not_cached");
        }
    }
    let change = guard("Cache::plan_collect", &shown, || cache.plan_collect())?;
    cache.apply(change);
    Ok(())
}

// ------------------------------------------------------------------ policy

/// One request's decisions: never the cache when it has nothing, never the
/// network under `cache-only`, the answer when the network answered.
pub fn policy(
    settings: Settings,
    cached: Cached,
    online: bool,
    outcome: Option<Error>,
    timed_out: bool,
) -> Outcome {
    let input =
        format!("{settings:?} {cached:?} online={online} {outcome:?} timed_out={timed_out}");
    let machine = Machine::new(settings, cached.clone(), online);
    let available = !matches!(cached, Cached::Nothing(_));
    let first = guard("policy::Machine::first", &input, || machine.first())?;
    match &first {
        Step::Cache { .. } => prop_assert!(available, "{}", input),
        Step::Network {
            retry_network_errors,
            cache_after_ms,
        } => {
            prop_assert!(settings.policy != Policy::CacheOnly, "{}", input);
            prop_assert!(!retry_network_errors || (!available && online), "{}", input);
            prop_assert!(
                cache_after_ms.is_none() || (available && settings.policy == Policy::NetworkFirst),
                "{}",
                input
            );
        }
        Step::Fail(error) => {
            prop_assert!(
                settings.policy == Policy::CacheOnly && !available,
                "{}",
                input
            );
            prop_assert_eq!(
                Some(error),
                match &cached {
                    Cached::Nothing(error) => Some(error),
                    _ => None,
                }
            );
        }
        Step::Answer => prop_assert!(false, "Answer before the network: {}", input),
    }
    let after = guard("policy::Machine::after_network", &input, || {
        machine.after_network(outcome.as_ref().map_or(Ok(()), Err), timed_out)
    })?;
    match (&after, &outcome) {
        (Step::Cache { stale, revalidate }, _) => {
            prop_assert!(available && *stale && !*revalidate, "{}", input);
        }
        (Step::Answer, None) => prop_assert!(!(timed_out && available), "{}", input),
        (Step::Answer, Some(_)) => prop_assert!(false, "Answer after a failure: {}", input),
        (Step::Fail(error), Some(failure)) => {
            if !is_network_failure(failure) {
                prop_assert_eq!(error, failure, "{}", input);
            } else {
                prop_assert!(!available, "{}", input);
            }
        }
        (Step::Fail(_), None) | (Step::Network { .. }, _) => {
            prop_assert!(false, "{:?} after the network: {}", after, input)
        }
    }
    Ok(())
}

/// `check` of a body whose facts the reference knows: a list's count and
/// its whole-number `meta.total`.
pub fn facts_of(text: &str) -> Option<Facts> {
    let value = json_ref::read(text)?;
    let Expected::Envelope(envelope, documents) = expected_shape(&value) else {
        return None;
    };
    let total = match envelope.get("meta").and_then(|meta| meta.get("total")) {
        Some(J::Num(number)) => number.parse::<u64>().ok(),
        _ => None,
    };
    Some(Facts {
        count: documents.len(),
        total,
    })
}

/// The documents of a list text that the cache test can take as the whole
/// list of a service (an array or envelope of documents with unique ids the
/// store accepts), as texts.
pub fn cache_documents(text: &str) -> Option<Vec<String>> {
    if json_ref::depth(text.as_bytes()) > REFERENCE_DEPTH {
        return None;
    }
    let value = json_ref::read(text)?;
    let ranges = match (frame(text).ok()?, expected_shape(&value)) {
        (Shape::Array(ranges), Expected::Array(_))
        | (
            Shape::Envelope {
                documents: ranges, ..
            },
            Expected::Envelope(..),
        ) => ranges,
        _ => return None,
    };
    let documents: Vec<String> = ranges
        .into_iter()
        .map(|range| text.get(range).map(str::to_owned))
        .collect::<Option<_>>()?;
    let values: Vec<J> = documents
        .iter()
        .map(|document| json_ref::read(document))
        .collect::<Option<_>>()?;
    let stored: Vec<Stored> = values
        .iter()
        .zip(&documents)
        .map(|(value, text)| model_document(value, text))
        .collect::<Option<_>>()?;
    let unique = stored
        .iter()
        .enumerate()
        .all(|(index, one)| stored[..index].iter().all(|other| other.id != one.id));
    unique.then_some(documents)
}
