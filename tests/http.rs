//! The pure half of the HTTP client: retry decisions, Retry-After, error
//! bodies, response decoding and pagination.
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

use content_repo::http::response::{check, http_error, next_offset, Expect, Facts};
use content_repo::http::retry::{
    days_from_civil, parse_http_date, parse_retry_after, Outcome, RetryPolicy,
};
use content_repo::Error;
use serde_json::json;

const NOW: f64 = 784_111_777_000.0; // Sun, 06 Nov 1994 08:49:37 GMT

#[test]
fn which_outcomes_are_retried() {
    let policy = RetryPolicy::default();
    for status in [429, 502, 503, 504] {
        assert!(
            policy
                .delay(
                    0,
                    &Outcome::Status {
                        status,
                        retry_after: None
                    },
                    NOW,
                    0.5
                )
                .is_some(),
            "{status}"
        );
    }
    for status in [200, 301, 400, 401, 403, 404, 409, 422, 500, 501, 505] {
        assert_eq!(
            policy.delay(
                0,
                &Outcome::Status {
                    status,
                    retry_after: Some("1")
                },
                NOW,
                0.5
            ),
            None,
            "{status}"
        );
    }
    assert!(policy.delay(0, &Outcome::Network, NOW, 0.5).is_some());
    // `retries` bounds the number of retries.
    assert!(policy.delay(2, &Outcome::Network, NOW, 0.5).is_some());
    assert_eq!(policy.delay(3, &Outcome::Network, NOW, 0.5), None);
    let none = RetryPolicy {
        retries: 0,
        ..policy
    };
    assert_eq!(none.delay(0, &Outcome::Network, NOW, 0.5), None);
}

#[test]
fn backoff_is_exponential_with_full_jitter_and_capped() {
    let policy = RetryPolicy {
        retries: 20,
        base_delay_ms: 100,
        max_delay_ms: 5_000,
    };
    for retry in 0..20 {
        let ceiling = (100u64 << retry.min(16)).min(5_000);
        assert_eq!(policy.delay(retry, &Outcome::Network, NOW, 0.0), Some(0));
        assert_eq!(
            policy.delay(retry, &Outcome::Network, NOW, 0.999_999),
            Some(ceiling),
            "retry {retry}"
        );
        let half = policy.delay(retry, &Outcome::Network, NOW, 0.5).unwrap();
        assert!(half <= ceiling && half * 2 + 1 >= ceiling);
    }
}

#[test]
fn retry_after_in_seconds_and_as_an_http_date_is_honoured_and_capped() {
    let policy = RetryPolicy {
        retries: 3,
        base_delay_ms: 100,
        max_delay_ms: 10_000,
    };
    let status = |retry_after| Outcome::Status {
        status: 503,
        retry_after: Some(retry_after),
    };
    assert_eq!(policy.delay(0, &status("2"), NOW, 0.0), Some(2_000));
    assert_eq!(policy.delay(0, &status(" 0 "), NOW, 0.9), Some(0));
    assert_eq!(
        policy.delay(0, &status("3600"), NOW, 0.0),
        Some(10_000),
        "capped"
    );
    assert_eq!(
        policy.delay(0, &status("99999999999999999999"), NOW, 0.0),
        Some(10_000)
    );
    assert_eq!(
        policy.delay(0, &status("Sun, 06 Nov 1994 08:49:40 GMT"), NOW, 0.0),
        Some(3_000)
    );
    assert_eq!(
        policy.delay(0, &status("Sunday, 06-Nov-94 08:49:42 GMT"), NOW, 0.0),
        Some(5_000)
    );
    assert_eq!(
        policy.delay(0, &status("Sun Nov  6 08:49:38 1994"), NOW, 0.0),
        Some(1_000)
    );
    assert_eq!(
        policy.delay(0, &status("Sat, 05 Nov 1994 08:49:37 GMT"), NOW, 0.0),
        Some(0),
        "past"
    );
    // Unreadable values fall back to backoff.
    assert_eq!(policy.delay(0, &status("soon"), NOW, 1.0), Some(100));
    assert_eq!(policy.delay(0, &status("-5"), NOW, 1.0), Some(100));
    assert_eq!(parse_retry_after("1.5", NOW), None);
}

#[test]
fn http_dates_against_known_instants() {
    assert_eq!(days_from_civil(1970, 1, 1), 0);
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    assert_eq!(days_from_civil(1969, 12, 31), -1);
    assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(NOW));
    assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
    assert_eq!(
        parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"),
        Some(1_835_481_599_000.0)
    );
    for bad in [
        "",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
    ] {
        assert_eq!(parse_http_date(bad), None, "{bad:?}");
    }
}

#[test]
fn error_bodies_give_the_service_message_without_the_key() {
    let cases = [
        (
            r#"{"message":"Invalid authentication credentials"}"#,
            Some("Invalid authentication credentials"),
        ),
        (
            r#"{"error":{"message":"limit must be <= 1000"}}"#,
            Some("limit must be <= 1000"),
        ),
        (r#"{"error":"Not found"}"#, Some("Not found")),
        (r#"{"status":"bad"}"#, None),
        ("<html>oops</html>", None),
        ("", None),
    ];
    for (body, message) in cases {
        match http_error(401, body, "k3y") {
            Error::Http {
                status,
                message: got,
            } => {
                assert_eq!(status, 401);
                assert_eq!(got.as_deref(), message, "{body}");
            }
            other => panic!("{other:?}"),
        }
    }
    let echoed = http_error(400, r#"{"message":"bad key k3y-secret"}"#, "k3y-secret");
    assert_eq!(echoed.to_string(), "HTTP 400: bad key [redacted]");
    let long = format!(r#"{{"message":"{}"}}"#, "x".repeat(1000));
    assert!(http_error(500, &long, "k").to_string().len() < 400);
}

#[test]
fn decoding_checks_json_and_shape() {
    let list = check(
        r#"{"data":[{"fields":{},"meta":{"id":"1"}}],"meta":{"total":1}}"#,
        Expect::List,
        "k",
    )
    .unwrap();
    assert_eq!(
        list,
        Facts {
            count: 1,
            total: Some(1)
        }
    );
    assert!(check(r#"{"fields":{}}"#, Expect::Document, "k").is_ok());
    assert!(check("[1,2]", Expect::Any, "k").is_ok());
    // What JSON.parse accepts is accepted.
    assert!(check(
        r#"{"a":"\ud867","n":1e400,"__proto__":{}}"#,
        Expect::Document,
        "k"
    )
    .is_ok());
    for (body, expect) in [
        ("not json", Expect::Any),
        (r#"{"data":[{"fields":"#, Expect::List),
        (r#"{"data":{}}"#, Expect::List),
        ("[]", Expect::Document),
        ("", Expect::Document),
    ] {
        let error = check(body, expect, "k").unwrap_err();
        assert_eq!(error.code(), "decode", "{body}");
        match &error {
            Error::Decode { excerpt, .. } => assert!(excerpt.chars().count() <= 81),
            other => panic!("{other:?}"),
        }
    }
    let secret = check("token=SECRET-123 and more", Expect::Any, "SECRET-123").unwrap_err();
    assert!(!secret.to_string().contains("SECRET-123"), "{secret}");
    let long = check(&"y".repeat(10_000), Expect::Any, "k").unwrap_err();
    assert!(long.to_string().len() < 300);
}

#[test]
fn pagination_follows_total_and_short_pages() {
    let page = |n: usize, total: Option<u64>| {
        let data: Vec<_> = (0..n).map(|i| json!({ "i": i })).collect();
        let body = match total {
            Some(total) => json!({ "data": data, "meta": { "total": total } }),
            None => json!({ "data": data }),
        };
        check(&body.to_string(), Expect::List, "k").unwrap()
    };
    assert_eq!(next_offset(page(10, Some(35)), 0, 10), Some(10));
    assert_eq!(next_offset(page(10, Some(35)), 20, 10), Some(30));
    assert_eq!(next_offset(page(5, Some(35)), 30, 10), None);
    assert_eq!(next_offset(page(10, Some(30)), 20, 10), None);
    assert_eq!(
        next_offset(page(0, Some(30)), 40, 10),
        None,
        "empty page ends"
    );
    assert_eq!(next_offset(page(10, None), 0, 10), Some(10));
    assert_eq!(next_offset(page(9, None), 0, 10), None, "short page ends");
}
