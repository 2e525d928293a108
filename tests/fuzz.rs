//! Fuzzing in the suite: generated inputs, valid and not, through every
//! entry of the core, checked by `common/oracle.rs` (no panic; the answers
//! of the recursive reference, of `serde_json`, of `apply_query`, of the
//! service).
//!
//! Case counts are sized for `npm test`: about 16 s natively (debug) and as
//! much on wasm32 (a fixed seed there). A long session, natively optimized:
//!
//! ```sh
//! PROPTEST_CASES=20000 cargo test --release --test fuzz -- --skip deep --skip wide
//! PROPTEST_CASES=300 cargo test --release --test fuzz -- deep wide
//! ```
//!
//! A failing case is shrunk and printed (failures are not persisted to a
//! `.proptest-regressions` file): keep it in `tests/corpus/`, which
//! `tests/corpus.rs` replays on both targets.
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

use content_repo::cache::policy::{Cached, Policy, Settings};
use content_repo::http::response::{check, excerpt, http_error, next_offset, scrub, Expect, Facts};
use content_repo::http::retry::{parse_http_date, parse_retry_after, Outcome, RetryPolicy};
use content_repo::json::{normalize, validate, MAX_DEPTH};
use content_repo::{Error, Query};
use gen::Ask;
use json_ref::{s, J};
use proptest::prelude::*;

fn asks(range: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Ask>> {
    prop::collection::vec(gen::ask(), range)
}

/// `document` with `meta.id` (of its last `meta`) set to `id`.
fn with_id(document: J, id: J) -> J {
    let J::Obj(mut entries) = document else {
        return document;
    };
    match entries.iter_mut().rev().find(|(key, _)| *key == s("meta")) {
        Some((_, J::Obj(meta))) => {
            meta.retain(|(key, _)| *key != s("id"));
            meta.insert(0, (s("id"), id));
        }
        Some((_, other)) => *other = J::Obj(vec![(s("id"), id)]),
        None => entries.push((s("meta"), J::Obj(vec![(s("id"), id)]))),
    }
    J::Obj(entries)
}

/// Unique ids: digit strings of several lengths, text, non-ASCII.
const IDS: &[&str] = &[
    "1",
    "2",
    "007",
    "7",
    "10",
    "x",
    "é",
    "99999999999999999999",
    "a b",
    "0",
];

/// The id of the document at `index` of a list: unique, from [`IDS`], a
/// number, or a string holding a lone surrogate.
fn unique_id(index: usize, kind: u8) -> J {
    match kind % 8 {
        0 => J::Num(format!("{}", 70 + index)),
        1 => J::Str(vec![0x69, 0xd867, 0x30 + index as u16]),
        _ => J::Str(s(IDS[index % IDS.len()])),
    }
}

/// A request of the cache test: a selection of `pool` (or any), sort keys,
/// limit and offset.
fn cache_ask(pool: Vec<&'static str>) -> impl Strategy<Value = Ask> {
    (
        prop_oneof![
            3 => prop::sample::select(pool).prop_map(|text| (!text.is_empty()).then(|| text.to_owned())),
            1 => prop::option::of(gen::selection()),
        ],
        prop::collection::vec((gen::sort_key(), gen::direction()), 0..3),
        prop::option::weighted(0.3, prop_oneof![1u32..9, Just(1000u32)]),
        prop::option::weighted(0.2, 0u64..4),
    )
        .prop_map(|(selection, sorting, limit, offset)| Ask { selection, sorting, limit, offset })
}

/// What a list is prefetched with: whole documents, or broad selections.
fn prefetch_ask() -> impl Strategy<Value = Ask> {
    cache_ask(vec![
        "",
        "",
        "",
        "*",
        "fields,meta",
        "fields(*),meta(id,revision,createdAt,contentType)",
        "a,b,x",
        "a/*,b,meta(id,createdAt)",
        "fields/a,meta(*)",
        "meta(id)",
        "a/b,x/*/x",
        "meta(revision)",
        "a/*/x",
        "a(*/b,x)",
        "*/*",
    ])
}

/// What is asked offline: narrower selections, and any.
fn offline_ask() -> impl Strategy<Value = Ask> {
    cache_ask(vec![
        "",
        "a",
        "a/b",
        "a/*/x",
        "b,x",
        "meta(id)",
        "meta",
        "fields",
        "*",
        "a/x",
        "x/*",
        "meta(createdAt),a",
        "__proto__",
        "fields(*)",
        "*/x",
        "a/b/x",
        "a/x/b",
        "a(b,x)",
        "a/*/b",
        "x/a",
    ])
}

/// Requests with a `locale` (another variant) now and then.
fn variant_query(ask: &Ask, locale: bool) -> Result<Query, TestCaseError> {
    let mut query = oracle::build(ask)?;
    if locale {
        query
            .locale("en")
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
    }
    Ok(query)
}

/// Stored entries as the cache writes them, and as they may be found:
/// corrupt, of other schemas, under foreign keys.
fn stored_entries() -> impl Strategy<Value = Vec<(String, String)>> {
    let key = prop_oneof![
        4 => (0u32..5).prop_map(|n| format!("s:tab:{n}")),
        2 => Just("l:\u{1f}collections%2Fposts".to_owned()),
        1 => prop::sample::select(vec!["l:", "l:x", "s:", "x", "", "l:locale=en\u{1f}documents"])
            .prop_map(str::to_owned),
    ];
    let header = (
        prop::sample::select(vec!["list", "document", "other", "nope"]),
        prop::option::of(gen::selection()),
        prop::sample::select(vec!["", "locale=en"]),
        any::<u16>(),
    )
        .prop_map(|(kind, selection, variant, seq)| {
            serde_json::json!({
                "v": 2, "url": format!("u{seq}"), "variant": variant, "endpoint": "collections%2Fposts",
                "kind": kind, "selection": selection, "fetchedAt": seq, "seq": seq,
            })
            .to_string()
        });
    let segment = (header, gen::styled(gen::list()))
        .prop_map(|(header, (_, body))| format!("{header}\n{body}"));
    let list = prop::collection::vec(prop::sample::select(IDS.to_vec()), 0..4)
        .prop_map(|ids| serde_json::json!({ "v": 2, "ids": ids, "fetchedAt": 1 }).to_string());
    let mutations = prop::collection::vec(
        (any::<prop::sample::Index>(), any::<u8>(), any::<u8>()),
        0..3,
    );
    let text = (
        prop_oneof![3 => segment, 2 => list, 1 => "\\PC{0,30}"],
        mutations,
    )
        .prop_map(|(text, mutations)| {
            String::from_utf8_lossy(&gen::mutate(text.as_bytes(), &mutations)).into_owned()
        });
    prop::collection::vec((key, text), 0..6)
}

fn error() -> impl Strategy<Value = Error> {
    prop_oneof![
        Just(Error::Network {
            message: "refused".into()
        }),
        (0u64..100).prop_map(|ms| Error::Timeout { ms }),
        any::<u16>().prop_map(|status| Error::Http {
            status,
            message: None
        }),
        Just(Error::Aborted),
        Just(Error::Decode {
            message: "x".into(),
            excerpt: String::new()
        }),
        Just(Error::NotCached {
            message: "no".into()
        }),
    ]
}

fn cached() -> impl Strategy<Value = Cached> {
    prop_oneof![
        error().prop_map(Cached::Nothing),
        any::<f64>().prop_map(|age_ms| Cached::Fresh { age_ms }),
        any::<f64>().prop_map(|age_ms| Cached::Old { age_ms }),
    ]
}

proptest! {
    #![proptest_config(harness::fuzz_config(2000))]

    /// The cache policy's decisions, for every input.
    #[test]
    fn cache_policy(
        policy in prop::sample::select(vec![Policy::NetworkFirst, Policy::CacheFirst, Policy::StaleWhileRevalidate, Policy::CacheOnly]),
        network_timeout_ms in prop::option::of(any::<u64>()),
        cached in cached(),
        online in any::<bool>(),
        outcome in prop::option::of(error()),
        timed_out in any::<bool>(),
    ) {
        oracle::policy(Settings { policy, network_timeout_ms }, cached, online, outcome, timed_out)?;
    }

    /// Retries, `Retry-After`, HTTP dates and pagination: any numbers, any
    /// header text, never a panic, waits always capped.
    #[test]
    fn retries_and_pages(
        retries in 0u32..6,
        base_delay_ms in any::<u64>(),
        max_delay_ms in any::<u64>(),
        retry in any::<u32>(),
        status in prop::option::of(any::<u16>()),
        header in prop::option::of(prop_oneof!["\\PC{0,40}", "[0-9]{1,30}", "(Mon|Sun), [0-9]{1,3} (Jan|Nov|Xyz) [0-9]{1,6} [0-9]{1,3}:[0-9]{2}:[0-9]{2} GMT"]),
        now_ms in prop_oneof![any::<f64>(), Just(f64::NAN), Just(f64::INFINITY), Just(-1e300)],
        jitter in any::<f64>(),
        count in any::<usize>(),
        total in prop::option::of(any::<u64>()),
        offset in any::<u64>(),
        limit in any::<u64>(),
    ) {
        let policy = RetryPolicy { retries, base_delay_ms, max_delay_ms };
        let outcome = match status {
            Some(status) => Outcome::Status { status, retry_after: header.as_deref() },
            None => Outcome::Network,
        };
        let input = format!("{policy:?} {retry} {outcome:?} {now_ms} {jitter}");
        let delay = harness::guard("RetryPolicy::delay", &input, || policy.delay(retry, &outcome, now_ms, jitter))?;
        if let Some(delay) = delay {
            prop_assert!(delay <= max_delay_ms && retry < retries, "{}", input);
        }
        if let Some(header) = &header {
            harness::guard("retry::parse_retry_after", header, || parse_retry_after(header, now_ms))?;
            if let Some(ms) = harness::guard("retry::parse_http_date", header, || parse_http_date(header))? {
                prop_assert!(ms.is_finite(), "{}", header);
            }
        }
        let facts = Facts { count, total };
        let next = harness::guard("response::next_offset", &input, || next_offset(facts, offset, limit))?;
        if let Some(next) = next {
            prop_assert!(count > 0 && next > offset, "{:?} {} {}", facts, offset, limit);
        }
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(3000))]

    /// Texts that are mostly not JSON (random bytes, truncations and
    /// mutations of valid texts).
    #[test]
    fn invalid_texts(bytes in gen::invalid(), asks in asks(0..2)) {
        oracle::json_text(&bytes, &asks)?;
    }

    /// Query strings, valid and not: parsed, written, parsed back.
    #[test]
    fn query_strings(text in gen::query_string()) {
        oracle::query_text(&text)?;
    }

    /// Selection coverage: what a projected document still answers.
    #[test]
    fn selection_coverage(
        document in prop_oneof![gen::document(), gen::shaped_document()],
        fetched in prop_oneof![1 => prefetch_ask().prop_map(|ask| ask.selection.unwrap_or_else(|| "*".into())), 3 => gen::shaped_selection()],
        requested in prop_oneof![1 => offline_ask().prop_map(|ask| ask.selection.unwrap_or_else(|| "*".into())), 3 => gen::shaped_selection()],
    ) {
        oracle::coverage(&document, &fetched, &requested)?;
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(1000))]

    /// Any JSON value, in any white space and escaping: every entry against
    /// the reference.
    #[test]
    fn json_values(
        (_value, text) in gen::styled(prop_oneof![4 => gen::value(), 1 => gen::error_body()]),
        asks in asks(0..2),
    ) {
        oracle::json_str(&text, &asks)?;
    }

    /// Response checks and the key's scrubbing, on any body and any key.
    #[test]
    fn responses_never_show_the_key(
        key in "[ -~]{1,12}",
        before in "\\PC{0,20}",
        after in "\\PC{0,20}",
        status in any::<u16>(),
        chars in 0usize..100,
    ) {
        let text = format!("{before}{key}{after}");
        let scrubbed = harness::guard("response::scrub", &text, || scrub(&text, &key))?;
        prop_assert!(!scrubbed.contains(&key), "{:?} -> {:?}", text, scrubbed);
        let short = harness::guard("response::excerpt", &text, || excerpt(&text, &key, chars))?;
        prop_assert!(!short.contains(&key) && short.chars().count() <= chars + 1, "{:?}", short);
        let body = serde_json::json!({ "error": { "message": text } }).to_string();
        match harness::guard("response::http_error", &body, || http_error(status, &body, &key))? {
            Error::Http { status: got, message } => {
                prop_assert_eq!(got, status);
                prop_assert!(message.is_some_and(|message| !message.contains(&key)));
            }
            other => prop_assert!(false, "{:?}", other),
        }
        // The SDK's own words ("expected a document object", a syntax
        // error's position and what it expected: static texts and a number)
        // may hold a short key anyway, and are not redacted; what comes from
        // the body never shows it.
        let own = [
            "expected a list envelope with a `data` array",
            "expected a list envelope with a `data` array (and no `fields` object, which makes it a document)",
            "expected a document object",
        ];
        let syntax = |message: &str| {
            message.strip_prefix("the response is not valid JSON (expected ").is_some_and(|rest| {
                let (expected, at) = rest.rsplit_once(" at byte ").unwrap_or_default();
                !expected.is_empty() && at.trim_end_matches(')').parse::<usize>().is_ok()
            })
        };
        for expect in [Expect::List, Expect::Document, Expect::Any] {
            if let Err(Error::Decode { message, excerpt }) = harness::guard("response::check", &text, || check(&text, expect, &key))? {
                prop_assert!(own.contains(&message.as_str()) || syntax(&message) || !message.contains(&key), "{:?}: {:?}", text, message);
                prop_assert!(!excerpt.contains(&key), "{:?}: {:?}", text, excerpt);
            }
        }
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(600))]

    /// Lists and documents: framing, probing, sorting, selection,
    /// `apply_query`, the store.
    #[test]
    fn lists((_value, text) in gen::styled(gen::list()), asks in asks(1..3)) {
        oracle::json_str(&text, &asks)?;
    }

    /// Selections, valid and not: parsed, written back, compiled, applied.
    #[test]
    fn selections(text in gen::selection()) {
        oracle::selection_text(&text)?;
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(500))]

    /// The offline cache answers as the service does (offline == online),
    /// or says `not_cached`; also after evictions and a reload.
    #[test]
    fn cache_offline_is_online(
        documents in prop::collection::vec((prop_oneof![gen::document(), gen::shaped_document()], any::<u8>()), 0..7),
        first in prefetch_ask(),
        first_locale in prop::bool::weighted(0.2),
        asks in prop::collection::vec((offline_ask(), prop::bool::weighted(0.2)), 1..4),
        max_bytes in prop::option::weighted(0.3, 0usize..6000),
        pages in prop::option::weighted(0.3, 1u32..4),
    ) {
        let texts: Vec<String> = documents
            .into_iter()
            .enumerate()
            .map(|(index, (document, bits))| {
                let id = unique_id(index, bits);
                gen::styled_text(&with_id(document, id), &[bits]).trim().to_owned()
            })
            .collect();
        let first = variant_query(&first, first_locale)?;
        let queries: Vec<Query> = asks.iter().map(|(ask, locale)| variant_query(ask, *locale)).collect::<Result<_, _>>()?;
        oracle::cache_check(&texts, &first, &queries, max_bytes, pages)?;
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(400))]

    /// Several writes into one store, against the list model.
    #[test]
    fn store_writes(
        lists in prop::collection::vec(gen::styled(gen::list()), 1..4),
        deletes in prop::collection::vec(any::<usize>(), 0..6),
        asks in asks(1..3),
    ) {
        let texts: Vec<String> = lists.into_iter().map(|(_, text)| text).collect();
        oracle::store_sequence(&texts, &deletes, &asks)?;
    }

    /// Loading any stored entries: corrupt ones skipped and reported.
    #[test]
    fn cache_loads_anything(entries in stored_entries(), asks in asks(1..3)) {
        let queries: Vec<Query> = asks.iter().map(oracle::build).collect::<Result<_, _>>()?;
        oracle::load_anything(entries, &queries)?;
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(24))]

    /// Thousands of levels, about 10,000: every entry, on the 1 MiB wasm
    /// stack too; valid, and normal as written.
    #[test]
    fn deep_texts((text, levels) in gen::deep(), asks in asks(1..2)) {
        let valid = harness::guard("json::validate", &text, || validate(&text))?;
        prop_assert_eq!(valid.is_ok(), levels <= MAX_DEPTH, "{} levels", levels);
        if valid.is_ok() {
            let normal = normalize(&text).ok();
            prop_assert_eq!(normal.as_ref(), Some(&text));
        }
        oracle::json_str(&text, &asks)?;
    }

    /// Thousands of elements or entries, or one key repeated thousands of
    /// times.
    #[test]
    fn wide_texts(text in gen::wide(), asks in asks(1..3)) {
        oracle::json_str(&text, &asks)?;
    }
}

proptest! {
    #![proptest_config(harness::fuzz_config(3))]

    /// Arrays about as deep as the scanner reads (100,000 levels): valid up
    /// to `MAX_DEPTH` exactly, a syntax error beyond, never a trap.
    #[test]
    fn deepest_texts((text, levels) in gen::deepest(), asks in asks(1..2)) {
        let valid = harness::guard("json::validate", &text, || validate(&text))?;
        prop_assert_eq!(valid.is_ok(), levels <= MAX_DEPTH, "{} levels", levels);
        oracle::json_str(&text, &asks)?;
    }
}
