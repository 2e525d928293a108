//! The regression corpus: every file of `tests/corpus/` (inputs that once
//! failed, and hand-made hard cases) replayed through the fuzz checks of
//! `common/oracle.rs`, natively and on wasm32 (the files are compiled in).
//! The extension says what a file is:
//!
//! - `.json`: a response body, JSON or not (any bytes): every entry, with
//!   a battery of queries; a list of documents is also recorded by the
//!   offline cache and queried offline (offline == online);
//! - `.selection`: a `fields` selection; `.query`: a query string;
//! - `.cache`: a cache scenario: the query a list is fetched with (first
//!   line), the queries asked offline (the lines up to `---`), the list.
//!
//! To add a case, put its file there and a line in `corpus!` below (a
//! native test checks that no file is left out).
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

#[path = "common/gen.rs"]
mod gen;
#[path = "common/harness.rs"]
mod harness;
#[path = "common/json_ref.rs"]
mod json_ref;
#[path = "common/oracle.rs"]
mod oracle;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use content_repo::Query;
use gen::Ask;
use proptest::test_runner::TestCaseError;

/// The queries every `.json` case is asked.
fn battery() -> Vec<Ask> {
    let ask = |selection: Option<&str>,
               sorting: &[(&str, &str)],
               limit: Option<u32>,
               offset: Option<u64>| Ask {
        selection: selection.map(str::to_owned),
        sorting: sorting
            .iter()
            .map(|(key, direction)| ((*key).to_owned(), (*direction).to_owned()))
            .collect(),
        limit,
        offset,
    };
    vec![
        ask(None, &[], None, None),
        ask(Some("*"), &[("fields.a", "ASC")], Some(2), Some(1)),
        ask(Some("a/*/x, __proto__"), &[("meta.id", "DESC")], None, None),
        ask(
            Some("fields(*),meta(id)"),
            &[("fields.__proto__", "asc"), ("fields.x", "-1")],
            Some(1000),
            None,
        ),
        ask(
            Some("title, includes(a/fields/x)"),
            &[("meta.createdAt", "1")],
            None,
            Some(0),
        ),
        ask(
            Some("*/x"),
            &[("fields.b", "desc"), ("fields.a", "DESC")],
            Some(3),
            None,
        ),
        ask(
            Some("a(b),a(x),x/*/x"),
            &[("meta.revision", "ASC")],
            None,
            None,
        ),
        ask(
            Some("meta"),
            &[("fields.a", "up"), ("title", "ASC")],
            Some(1),
            Some(9_007_199_254_740_991),
        ),
    ]
}

fn query(text: &str) -> Result<Query, TestCaseError> {
    Query::parse(text).map_err(|error| TestCaseError::fail(format!("{text:?}: {error}")))
}

/// Replays one corpus file.
fn replay(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    let extension = name.rsplit('.').next().unwrap_or_default();
    match extension {
        "json" => {
            oracle::json_text(bytes, &battery())?;
            if let Some(documents) = oracle::cache_documents(&text) {
                let offline: Vec<Query> = battery()
                    .iter()
                    .map(oracle::build)
                    .collect::<Result<_, _>>()?;
                for first in [
                    "",
                    "fields=fields%28*%29%2Cmeta",
                    "fields=fields%2Fa%2Cmeta%28id%2Crevision%29",
                ] {
                    oracle::cache_check(&documents, &query(first)?, &offline, None, None)?;
                }
                oracle::cache_check(
                    &documents,
                    &Query::new(),
                    &offline,
                    Some(text.len()),
                    Some(2),
                )?;
            }
            Ok(())
        }
        "selection" => oracle::selection_text(&text),
        "query" => oracle::query_text(&text),
        "cache" => {
            let (head, list) = text.split_once("\n---\n").ok_or_else(|| {
                TestCaseError::fail("a .cache file has a line '---' before the list")
            })?;
            let mut lines = head.split('\n');
            let first = query(lines.next().unwrap_or_default())?;
            let offline: Vec<Query> = lines.map(query).collect::<Result<_, _>>()?;
            let documents = oracle::cache_documents(list).ok_or_else(|| {
                TestCaseError::fail("the list of a .cache file holds documents with unique ids")
            })?;
            oracle::cache_check(&documents, &first, &offline, None, None)?;
            oracle::cache_check(&documents, &first, &offline, None, Some(1))
        }
        other => Err(TestCaseError::fail(format!("no replay for .{other} files"))),
    }
}

fn check(file: &str, bytes: &[u8]) {
    if let Err(error) = replay(file, bytes) {
        panic!("tests/corpus/{file}: {error}");
    }
}

macro_rules! corpus {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($file, include_bytes!(concat!("corpus/", $file)));
            }
        )*

        /// Every file of tests/corpus/ has its test above (natively: there is
        /// no file system on wasm32).
        #[cfg(not(target_arch = "wasm32"))]
        #[test]
        fn every_corpus_file_is_replayed() {
            let listed = [$($file,)*];
            let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
            for entry in std::fs::read_dir(directory).expect("tests/corpus") {
                let name = entry.expect("a corpus file").file_name().to_string_lossy().into_owned();
                assert!(listed.contains(&name.as_str()), "tests/corpus/{name} is not listed in tests/corpus.rs");
            }
        }
    };
}

corpus! {
    cache_lone_surrogate_id => "cache-lone-surrogate-id.cache",
    cache_star_then_name => "cache-star-then-name.cache",
    deep_10000_document => "deep-10000-document.json",
    deep_10000_objects => "deep-10000-objects.json",
    http_repeated_message => "http-repeated-message.json",
    http_repeated_message_string => "http-repeated-message-string.json",
    invalid_escape_plus_hex => "invalid-escape-plus-hex.json",
    invalid_exponent => "invalid-exponent.json",
    invalid_leading_zero => "invalid-leading-zero.json",
    invalid_lone_escape_truncated => "invalid-lone-escape-truncated.json",
    invalid_number_dot => "invalid-number-dot.json",
    invalid_raw_control => "invalid-raw-control.json",
    invalid_trailing_comma => "invalid-trailing-comma.json",
    invalid_truncated_document => "invalid-truncated-document.json",
    invalid_two_values => "invalid-two-values.json",
    invalid_utf8 => "invalid-utf8.json",
    lone_surrogates => "lone-surrogates.json",
    numbers_beyond_exponent_bound => "numbers-beyond-exponent-bound.json",
    numbers_mixed_big => "numbers-mixed-big.json",
    proto_everywhere => "proto-everywhere.json",
    query_broken_escapes => "query-broken-escapes.query",
    query_everything => "query-everything.query",
    repeated_keys_under_star => "repeated-keys-under-star.json",
    selection_32_levels_path => "selection-32-levels-path.selection",
    selection_33_levels_nested => "selection-33-levels-nested.selection",
    selection_40_levels_path => "selection-40-levels-path.selection",
    selection_space_and_stray => "selection-space-and-stray.selection",
    selection_stars => "selection-stars.selection",
}
