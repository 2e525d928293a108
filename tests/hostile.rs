//! Nothing a server or a caller sends can break the core (issue 14): API
//! keys are printable ASCII, the key is scrubbed from anything echoed in
//! any of its encodings, sort keys are capped and cheap to add, and
//! `Retry-After` and the other numbers from outside cannot overflow.
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

use content_repo::http::response::{
    check, excerpt, http_error, next_offset, scrub, Expect, Facts, REDACTED,
};
use content_repo::http::retry::{
    days_from_civil, parse_http_date, parse_retry_after, Outcome, RetryPolicy,
};
use content_repo::query::MAX_SORT_KEYS;
use content_repo::{ClientConfig, Direction, Error, Query};
use proptest::prelude::*;
use serde_json::json;

// ---------------------------------------------------------------------------
// An independent matcher: it enumerates every concrete encoding of each key
// character (where `scrub` decodes the text), then searches by backtracking.

/// Every way one character of a printable-ASCII key may be written.
fn encodings(c: u8) -> Vec<String> {
    let mut out = vec![char::from(c).to_string()];
    if c == b' ' {
        out.push("+".into());
    }
    if matches!(c, b'"' | b'\\' | b'/') {
        out.push(format!("\\{}", char::from(c)));
    }
    for hex in [format!("{c:02x}"), format!("{c:02X}")] {
        out.push(format!("\\u00{hex}"));
        out.push(format!("%{hex}"));
    }
    // HTML: decimal and hex references (with a leading zero too), and the
    // named ones of what HTML escapes.
    for form in ["&#{}", "&#0{}"] {
        out.push(form.replace("{}", &format!("{c};")));
    }
    for x in ["x", "X"] {
        out.push(format!("&#{x}{c:x};"));
        out.push(format!("&#{x}{c:X};"));
        out.push(format!("&#{x}00{c:x};"));
    }
    let named = match c {
        b'&' => "&amp;",
        b'<' => "&lt;",
        b'>' => "&gt;",
        b'"' => "&quot;",
        b'\'' => "&apos;",
        _ => "",
    };
    if !named.is_empty() {
        out.push(named.to_owned());
    }
    // Below 0x80 only the last hex digit can be a letter: lower and upper
    // case above are every spelling.
    out.sort();
    out.dedup();
    out
}

fn matches_at(text: &[u8], at: usize, key: &[u8]) -> bool {
    let Some((&first, rest)) = key.split_first() else {
        return true;
    };
    encodings(first).iter().any(|form| {
        text.get(at..)
            .is_some_and(|tail| tail.starts_with(form.as_bytes()))
            && matches_at(text, at + form.len(), rest)
    })
}

/// Whether `text` holds `key` in any mixture of its encodings.
fn contains_key(text: &str, key: &str) -> bool {
    (0..text.len()).any(|at| matches_at(text.as_bytes(), at, key.as_bytes()))
}

/// `key` written with encoding `choices[i]` (an index into its encodings)
/// for its character `i`.
fn encode_with(key: &str, choices: &[usize]) -> String {
    key.bytes()
        .enumerate()
        .map(|(index, c)| {
            let forms = encodings(c);
            forms[choices.get(index).copied().unwrap_or(0) % forms.len()].clone()
        })
        .collect()
}

// ---------------------------------------------------------------------------
// 2. API key and scheme: printable ASCII only, never quoted.

#[test]
fn api_keys_and_schemes_are_printable_ascii_and_never_quoted() {
    let config = |key: &str, scheme: Option<&str>| {
        ClientConfig::new("https://cms.example.com", "demo", key, scheme)
    };
    for key in [
        "",
        "key\nInjected: yes",
        "key\r\n",
        "tab\tkey",
        "nul\0key",
        "del\u{7f}key",
        "next-line\u{85}key",
        "clé-secrète",
        "emoji-😀-key",
        "nbsp\u{a0}key",
        "\u{feff}bom-key",
    ] {
        let error = config(key, None).unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{key:?}");
        let message = error.to_string();
        assert!(message.contains("apiKey"), "{message}");
        if !key.is_empty() {
            assert!(!message.contains(key), "the key is quoted: {message}");
            // Nor any printable run of it longer than a few characters.
            for part in key.split(|c: char| !(' '..='~').contains(&c)) {
                if part.len() >= 4 {
                    assert!(!message.contains(part), "{part:?} in {message}");
                }
            }
        }
    }
    // Every printable ASCII character is accepted, space and `~` included,
    // but not a space that `fetch` would trim off the header's value.
    let all: String = (b'!'..=b'~').chain([b' ', b'!']).map(char::from).collect();
    assert!(config(&all, None).is_ok());
    for (key, scheme) in [
        (" ", None),
        (" key", None),
        ("key ", None),
        ("key ", Some("Bearer ")),
        ("key", Some(" Bearer ")),
    ] {
        let error = config(key, scheme).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("must not start or end with a space"),
            "{error}"
        );
    }
    for scheme in ["Bearer\r\n", "Bearer\n", "Béarer ", "\u{7f}", "Bearer\t"] {
        let error = config("key", Some(scheme)).unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{scheme:?}");
        assert!(error.to_string().contains("authScheme"), "{error}");
    }
    for scheme in ["", "Bearer ", "Token token=", "X ~!"] {
        let config = config("key", Some(scheme)).unwrap();
        assert_eq!(config.authorization(), format!("{scheme}key"));
    }
}

// ---------------------------------------------------------------------------
// 3. Redaction of every encoding.

const KEY: &str = "s3cr3t/Key \"q\"\\x+y%z";

#[test]
fn every_encoding_of_the_key_is_scrubbed() {
    let forms = [
        KEY.to_owned(),
        // JSON.stringify, and with `\/` as PHP writes it.
        r#"s3cr3t/Key \"q\"\\x+y%z"#.to_owned(),
        r#"s3cr3t\/Key \"q\"\\x+y%z"#.to_owned(),
        // \uXXXX for every character, lower and upper case hex.
        KEY.bytes().map(|c| format!("\\u{:04x}", c)).collect(),
        KEY.bytes().map(|c| format!("\\u{:04X}", c)).collect(),
        // encodeURIComponent, and form encoding (space as `+`).
        "s3cr3t%2FKey%20%22q%22%5Cx%2By%25z".to_owned(),
        "s3cr3t%2fKey+%22q%22%5cx%2By%25z".to_owned(),
        // Every character percent-encoded, both cases.
        KEY.bytes().map(|c| format!("%{c:02X}")).collect(),
        KEY.bytes().map(|c| format!("%{c:02x}")).collect(),
        // A mixture, one character at a time.
        r#"s\u0033cr%33t\/K%65y+\"q%22\u005cx%2by\u0025z"#.to_owned(),
        // HTML-escaped as a page or a template writes it, decimal and hex
        // references for every character, and a mixture with the others.
        "s3cr3t/Key &quot;q&quot;\\x+y%z".to_owned(),
        KEY.bytes().map(|c| format!("&#{c};")).collect(),
        KEY.bytes().map(|c| format!("&#x{c:X};")).collect(),
        r#"s&#51;cr%33t\/K&#x65;y+&quot;q%22\u005cx&#X2b;y\u0025z"#.to_owned(),
    ];
    for form in &forms {
        assert!(contains_key(form, KEY), "the test's own matcher: {form}");
        let text = format!("before {form} after");
        let out = scrub(&text, KEY);
        assert_eq!(out, format!("before {REDACTED} after"), "{form}");
        assert!(!contains_key(&out, KEY));
        for case in [out.to_lowercase(), out.to_uppercase()] {
            assert!(!case.contains("s3cr3t"), "{case}");
        }
    }
    // Unrelated text is left alone, and so are near misses.
    for text in [
        "",
        "nothing here",
        "s3cr3t/Key \"q\"\\x+y%",
        "%2 %zz \\u12 \\uZZZZ %",
        "&#; &#x; &amp &#115 &#x73 &#1151; &#000000115; &#x000000073; &quote;",
    ] {
        assert_eq!(scrub(text, KEY), text);
    }
    assert_eq!(scrub("anything", ""), "anything");
    // Overlapping occurrences become one marker.
    assert_eq!(scrub("xaaay", "aa"), format!("x{REDACTED}y"));
}

#[test]
fn the_marker_never_completes_an_occurrence() {
    // Keys made of the marker's own characters: `[redacted]` would recreate
    // them, so another marker is used.
    for key in ["]]", "d]", "[r", "act", "redacted", "]"] {
        for text in [
            format!("{key}]"),
            format!("[{key}"),
            format!("x{key}{key}y"),
        ] {
            let out = scrub(&text, key);
            assert!(
                !contains_key(&out, key),
                "{key:?} in {out:?} (from {text:?})"
            );
        }
    }
}

#[test]
fn errors_never_carry_an_echoed_key() {
    let escaped = serde_json::to_string(KEY).unwrap();
    let body = format!(
        r#"{{"message":"bad key {}"}}"#,
        &escaped[1..escaped.len() - 1]
    );
    let error = http_error(401, &body, KEY);
    assert_eq!(error.to_string(), format!("HTTP 401: bad key {REDACTED}"));
    // The service's message in JSON, itself holding a percent-encoded key.
    let body = r#"{"error":{"message":"?apiKey=s3cr3t%2FKey%20%22q%22%5Cx%2By%25z"}}"#;
    let error = http_error(400, body, KEY);
    assert!(!contains_key(&error.to_string(), KEY), "{error}");
    // Decode excerpts of bodies echoing the key in any form.
    for (index, body) in [
        format!("<p>key: {KEY}</p>"),
        format!("{{\"key\": {escaped}"),
        format!("key=s3cr3t%2fKey+%22q%22%5cx%2By%25z&x={}", "y".repeat(500)),
    ]
    .iter()
    .enumerate()
    {
        let error = check(body, Expect::Any, KEY).unwrap_err();
        let Error::Decode { excerpt, message } = &error else {
            panic!("{error:?}")
        };
        assert!(!contains_key(excerpt, KEY), "{index}: {excerpt}");
        assert!(!contains_key(message, KEY), "{index}: {message}");
        assert!(excerpt.contains(REDACTED), "{index}: {excerpt}");
    }
    // The service's message is cut after the key is removed, so a key that
    // straddles the cut leaves no whole occurrence either.
    let long = format!("{}{}", "m".repeat(290), KEY);
    let error = http_error(500, &json!({ "message": long }).to_string(), KEY);
    assert!(!contains_key(&error.to_string(), KEY), "{error}");
}

#[test]
fn a_blank_service_message_is_no_message() {
    // Not "HTTP 500: " (a message of blanks printed after a colon).
    for body in [
        r#"{"message":""}"#,
        r#"{"message":" \n\t"}"#,
        r#"{"error":{"message":"\u202e"}}"#,
        // What prints as nothing: zero-width space and joiner, the byte
        // order mark, a soft hyphen, a variation selector, a tag.
        r#"{"message":"\u200b\u200d\ufeff \u00ad\ufe0f\udb40\udc41"}"#,
    ] {
        assert_eq!(http_error(500, body, KEY).to_string(), "HTTP 500", "{body}");
    }
    // A blank form gives way to the next one.
    let error = http_error(503, r#"{"message":"", "error":"busy"}"#, KEY);
    assert_eq!(error.to_string(), "HTTP 503: busy");
    let error = http_error(503, r#"{"message":" ", "error":{"message":"later"}}"#, KEY);
    assert_eq!(error.to_string(), "HTTP 503: later");
    let error = http_error(503, r#"{"message":"\u200b", "error":"busy\u200b"}"#, KEY);
    assert_eq!(error.to_string(), "HTTP 503: busy\u{200b}");
}

#[test]
fn excerpts_are_short_and_marked_when_cut() {
    assert_eq!(excerpt("short", "k3y", 80), "short");
    assert_eq!(excerpt("abcdef", "zz", 3), "abc…");
    assert_eq!(excerpt("xk3yx", "k3y", 80), format!("x{REDACTED}x"));
    let long = format!("{}{}", "k3y".repeat(1000), "tail");
    let out = excerpt(&long, "k3y", 80);
    assert!(out.ends_with('…') && out.chars().count() <= 81, "{out}");
    assert!(!out.contains("k3y"));
}

fn text_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,12}",
        "[a-z%\\\\u0-9A-F+/\"&#;Xx]{0,12}",
        "\\PC{0,6}",
    ]
}

proptest! {
    #![proptest_config(harness::config(1024))]

    /// For any printable-ASCII key and any text with the key inserted in
    /// any mixture of its encodings, no output holds the key in any of them.
    #[test]
    fn scrub_removes_every_mixture_of_encodings(
        key in "[ -~]{1,16}",
        pieces in prop::collection::vec((text_piece(), prop::collection::vec(0usize..16, 16)), 1..5),
        tail in text_piece(),
    ) {
        let mut text = String::new();
        for (piece, choices) in &pieces {
            text.push_str(piece);
            text.push_str(&encode_with(&key, choices));
        }
        text.push_str(&tail);
        prop_assert!(contains_key(&text, &key));
        let out = scrub(&text, &key);
        prop_assert!(!contains_key(&out, &key), "{:?} -> {:?}", text, out);
        let short = excerpt(&text, &key, 40);
        prop_assert!(!contains_key(&short, &key), "{:?} -> {:?}", text, short);
        prop_assert!(short.chars().count() <= 41);
        // The service's message as it goes into the error (the SDK's own
        // words around it, `HTTP 400: `, hold a one-character key anyway).
        let error = http_error(400, &json!({ "message": text }).to_string(), &key);
        let Error::Http { message: Some(message), .. } = error else {
            panic!("{error:?}")
        };
        prop_assert!(!contains_key(&message, &key), "{:?} -> {:?}", text, message);
    }

    /// A text without the key comes back unchanged.
    #[test]
    fn scrub_changes_nothing_else(key in "[ -~]{1,8}", text in "\\PC{0,40}") {
        if !contains_key(&text, &key) {
            prop_assert_eq!(scrub(&text, &key), text);
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Sort keys: capped, and linear to build.

fn code<T: std::fmt::Debug>(result: Result<T, Error>) -> &'static str {
    match result {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(error) => error.code(),
    }
}

#[test]
fn sort_keys_are_capped() {
    assert_eq!(MAX_SORT_KEYS, 32);
    let mut query = Query::new();
    for index in 0..MAX_SORT_KEYS {
        query
            .sort(&format!("fields.k{index}"), Direction::Asc)
            .unwrap();
    }
    let before = query.clone();
    let error = query
        .sort("fields.one_more", Direction::Asc)
        .map(drop)
        .unwrap_err();
    assert_eq!(error.code(), "invalid_sort");
    let message = error.to_string();
    assert!(
        message.contains("32") && message.contains("fields.one_more"),
        "{message}"
    );
    assert_eq!(query, before, "a failed sort leaves the query unchanged");
    // At the cap, sorting again on a known key still replaces its direction.
    query.sort("fields.k7", Direction::Desc).unwrap();
    assert_eq!(query.sorting().len(), MAX_SORT_KEYS);
    assert_eq!(query.sorting()[7].direction, Direction::Desc);
    // The wire form reads back, up to the cap and not beyond.
    let text = query.to_string();
    assert_eq!(Query::parse(&text).unwrap(), query);
    let too_many = format!("{text}&sorting%5Bmeta.id%5D=ASC");
    assert_eq!(code(Query::parse(&too_many)), "invalid_sort");
    // Repeating a key in a query string is not a new key.
    let repeated = "sorting%5Bfields.a%5D=ASC&".repeat(100);
    assert_eq!(Query::parse(&repeated).unwrap().sorting().len(), 1);
}

#[test]
fn building_and_parsing_many_sort_keys_is_linear() {
    // 20,000 distinct keys took 12 s when each was a scan of all before.
    let started = harness::Stopwatch::start();
    let mut query = Query::new();
    let mut rejected = 0;
    for index in 0..20_000 {
        if query
            .sort(&format!("fields.k{index}"), Direction::Asc)
            .is_err()
        {
            rejected += 1;
        }
    }
    assert_eq!(rejected, 20_000 - MAX_SORT_KEYS);
    for index in 0..100_000 {
        let direction = if index % 2 == 0 {
            Direction::Asc
        } else {
            Direction::Desc
        };
        query
            .sort(&format!("fields.k{}", index % 32), direction)
            .unwrap();
    }
    let text: String = (0..20_000)
        .map(|index| format!("sorting%5Bfields.k{index}%5D=ASC&"))
        .collect();
    assert_eq!(code(Query::parse(&text)), "invalid_sort");
    let same = "sorting%5Bfields.k%5D=DESC&".repeat(50_000);
    assert_eq!(Query::parse(&same).unwrap().sorting().len(), 1);
    let elapsed = started.elapsed_ms();
    assert!(elapsed < 5000.0, "took {elapsed} ms");
}

// ---------------------------------------------------------------------------
// 5. Retry-After and the other numbers from outside.

const NOW: f64 = 784_111_777_000.0; // Sun, 06 Nov 1994 08:49:37 GMT

#[test]
fn hostile_retry_after_values_are_capped_or_ignored() {
    let policy = RetryPolicy {
        retries: 3,
        base_delay_ms: 100,
        max_delay_ms: 10_000,
    };
    let delay = |value: &str, now: f64| {
        policy.delay(
            0,
            &Outcome::Status {
                status: 503,
                retry_after: Some(value),
            },
            now,
            1.0,
        )
    };
    // Capped: huge numbers of seconds, far-future dates.
    for value in [
        "99999999999999999999",
        "18446744073709551615",
        "18446744073709552",
        "999999999999999999999999999999999999999999",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Friday, 31-Dec-9999 23:59:59 GMT",
        "Fri Dec 31 23:59:59 9999",
    ] {
        assert_eq!(delay(value, NOW), Some(10_000), "{value:?}");
        assert_eq!(delay(value, f64::NEG_INFINITY), Some(10_000), "{value:?}");
    }
    // Past dates, whatever `now` is: no wait.
    for now in [NOW, f64::INFINITY, f64::MAX, f64::NAN] {
        assert_eq!(delay("Thu, 01 Jan 1970 00:00:00 GMT", now), Some(0));
    }
    // Not a Retry-After at all: the backoff (ceiling 100 with jitter 1).
    for value in [
        "-1",
        "-99999999999999999999",
        "+5",
        "1e3",
        "1.5",
        "",
        "   ",
        "٣",
        "NaN",
        "Infinity",
        "Sun, 06 Nov 99999999999999 08:49:37 GMT",
        "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
        "Sun, 06 Nov -9223372036854775808 08:49:37 GMT",
        "Sunday, 06-Nov-999999999999 08:49:37 GMT",
        "Sunday, 06-Nov--1 08:49:37 GMT",
        "Sun Nov 4294967296 08:49:37 1994",
        "Sun, 06 Nov 1994 4294967296:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:99999999999 GMT",
        "Sun, 006 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 -1:49:37 GMT",
    ] {
        assert_eq!(delay(value, NOW), Some(100), "{value:?}");
    }
    // Backoff arithmetic at the extremes.
    let extreme = RetryPolicy {
        retries: u32::MAX,
        base_delay_ms: u64::MAX,
        max_delay_ms: u64::MAX,
    };
    for retry in [0, 1, 63, 64, 65, u32::MAX - 1] {
        for jitter in [0.0, 0.5, 1.0, 2.0, -1.0, f64::NAN, f64::INFINITY] {
            let _ = extreme.delay(retry, &Outcome::Network, f64::NAN, jitter);
        }
    }
    assert_eq!(extreme.delay(u32::MAX, &Outcome::Network, NOW, 0.5), None);
}

#[test]
fn civil_days_and_page_offsets_never_overflow() {
    for year in [i64::MIN, i64::MIN + 1, -1, 0, 9999, i64::MAX - 1, i64::MAX] {
        for month in [0, 1, 2, 3, 12, 13, u32::MAX] {
            for day in [0, 1, 31, u32::MAX] {
                let _ = days_from_civil(year, month, day);
            }
        }
    }
    assert_eq!(days_from_civil(i64::MAX, 12, 31), i64::MAX);
    assert_eq!(days_from_civil(i64::MIN, 1, 1), i64::MIN);
    assert_eq!(days_from_civil(9999, 12, 31), 2_932_896);
    // An offset near the top of u64 with a full page: no overflow (the
    // query rejects offsets above 2^53 - 1 before the next request).
    let facts = |body: serde_json::Value| check(&body.to_string(), Expect::List, KEY).unwrap();
    let page = facts(json!({ "data": [1, 2, 3], "meta": { "total": u64::MAX } }));
    assert_eq!(
        page,
        Facts {
            count: 3,
            total: Some(u64::MAX)
        }
    );
    assert_eq!(next_offset(page, u64::MAX - 1, 3), None);
    assert_eq!(next_offset(page, u64::MAX, 3), None);
    let page = facts(json!({ "data": [1, 2, 3] }));
    assert_eq!(next_offset(page, u64::MAX - 1, 3), Some(u64::MAX));
    // An offset beyond u32 is kept whole (wasm32 has a 32-bit usize).
    let page = facts(json!({ "data": [1, 2], "meta": { "total": 10_000_000_000u64 } }));
    assert_eq!(next_offset(page, 5_000_000_000, 2), Some(5_000_000_002));
}

fn date_like() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        "[0-9]{1,25}",
        "-[0-9]{1,25}",
        Just("9223372036854775807".to_owned()),
        Just("18446744073709551616".to_owned()),
    ];
    (
        "[A-Za-z]{0,9}",
        number.clone(),
        prop::sample::select(vec!["Jan", "Feb", "Dec", "Foo"]),
        number.clone(),
        number.clone(),
        number,
        0..3u8,
    )
        .prop_map(
            |(weekday, day, month, year, hour, minute, form)| match form {
                0 => format!("{weekday}, {day} {month} {year} {hour}:{minute}:00 GMT"),
                1 => format!("{weekday}, {day}-{month}-{year} {hour}:{minute}:00 GMT"),
                _ => format!("{weekday} {month} {day} {hour}:{minute}:00 {year}"),
            },
        )
}

proptest! {
    #![proptest_config(harness::config(2048))]

    /// No string and no `now` makes `Retry-After` handling overflow or
    /// panic, and the wait is always capped.
    #[test]
    fn retry_after_never_panics(
        value in prop_oneof!["\\PC{0,40}", "[0-9]{0,40}", "-?[0-9]{1,30}", date_like()],
        now in prop_oneof![any::<f64>(), Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY), -1e300..1e300f64],
        jitter in any::<f64>(),
        retry in any::<u32>(),
        retries in any::<u32>(),
        base in any::<u64>(),
        max in any::<u64>(),
        status in any::<u16>(),
    ) {
        let _ = parse_http_date(&value);
        let _ = parse_retry_after(&value, now);
        let policy = RetryPolicy { retries, base_delay_ms: base, max_delay_ms: max };
        for outcome in [Outcome::Status { status, retry_after: Some(&value) }, Outcome::Network] {
            if let Some(delay) = policy.delay(retry, &outcome, now, jitter) {
                prop_assert!(delay <= max);
            }
        }
    }
}
