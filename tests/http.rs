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

#[path = "common/harness.rs"]
mod harness;
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
    // Control characters cannot forge a log line or drive a terminal.
    let forged = http_error(
        400,
        r#"{"message":"bad\r\nINFO all fine\u001b[2J\u0000\u0085end"}"#,
        "k3y",
    );
    assert_eq!(forged.to_string(), "HTTP 400: bad  INFO all fine [2J  end");
    // Nor can a line or paragraph separator, or a bidirectional override, in
    // a message or a decode error's excerpt.
    let reordered = http_error(400, r#"{"message":"a\u2028b\u2029c\u202ed\u2066e"}"#, "k3y");
    assert_eq!(reordered.to_string(), "HTTP 400: a b c d e");
    let Err(content_repo::Error::Decode { excerpt, .. }) =
        check("x\r\ny\u{2028}z\u{1b}[0m", Expect::List, "k3y")
    else {
        panic!("not a decode error")
    };
    assert_eq!(excerpt, "x  y z [0m");
    // A key with a space, echoed with a line break or a separator there, is
    // still redacted (characters are made printable before the key is sought).
    for echoed in [
        r#"{"message":"key sk\nlive 1"}"#,
        r#"{"message":"key sk\u2028live 1"}"#,
    ] {
        let error = http_error(401, echoed, "sk live 1");
        assert_eq!(error.to_string(), "HTTP 401: key [redacted]", "{echoed}");
    }
    let Err(content_repo::Error::Decode { excerpt, .. }) =
        check("sk\tlive 1 <html>", Expect::List, "sk live 1")
    else {
        panic!("not a decode error")
    };
    assert_eq!(excerpt, "[redacted] <html>");
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

// ------------------------------------------------------------ one call

mod call {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use content_repo::http::call::{Call, Ended, Next};
    use content_repo::http::retry::{Outcome, RetryPolicy};
    use content_repo::Error;
    use proptest::prelude::*;

    use super::harness;

    const SECRET: &str = "k3y/With+Chars";

    /// An attempt's end as the boundary reads it: a status (0: no response,
    /// with the key in the failure's text) and its `Retry-After`.
    #[derive(Debug, Clone)]
    struct Attempt {
        status: u16,
        retry_after: Option<String>,
        /// How long the attempt took (ms).
        took: f64,
    }

    impl Attempt {
        fn ended(&self) -> Ended<'_> {
            match self.status {
                0 => Ended::Network("connect failed for k3y/With+Chars"),
                status => Ended::Response {
                    status,
                    retry_after: self.retry_after.as_deref(),
                    body: format!(r#"{{"message":"no {SECRET}"}}"#),
                },
            }
        }

        fn retryable(&self, retry_network: bool) -> bool {
            match self.status {
                0 => retry_network,
                status => [429, 502, 503, 504].contains(&status),
            }
        }
    }

    fn attempt() -> impl Strategy<Value = Attempt> {
        (
            prop::sample::select(vec![0u16, 0, 200, 204, 404, 429, 500, 502, 503, 503, 504]),
            prop::option::of(prop::sample::select(vec![
                "0".to_owned(),
                "1".to_owned(),
                "120".to_owned(),
                "Sun, 06 Nov 1994 08:49:37 GMT".to_owned(),
                "soon".to_owned(),
            ])),
            0.0f64..3000.0,
        )
            .prop_map(|(status, retry_after, took)| Attempt {
                status,
                retry_after,
                took,
            })
    }

    proptest! {
        #![proptest_config(harness::config(1024))]

        /// A call answers with the first 2xx body; fails with the typed
        /// error of its last attempt (the key scrubbed); retries only what
        /// the policy retries, at most `retries` times, never waiting
        /// longer than `maxRetryDelayMs` nor past its deadline; and ends a
        /// retryable failure early only for the deadline.
        #[test]
        fn a_call_retries_what_the_policy_allows_within_its_deadline(
            retries in 0u32..5,
            base_delay_ms in 0u64..2000,
            max_delay_ms in 0u64..5000,
            timeout_ms in prop_oneof![Just(0u64), 1u64..30_000],
            retry_network in any::<bool>(),
            attempts in prop::collection::vec(attempt(), 1..8),
            jitter in 0.0f64..1.0,
        ) {
            let policy = RetryPolicy { retries, base_delay_ms, max_delay_ms };
            let start = 784_111_777_000.0; // the HTTP date above, so it waits 0
            let mut now = start;
            let mut call = Call::new(policy, timeout_ms, retry_network, now);
            let mut made = 0usize;
            let result = loop {
                let attempt = &attempts[made % attempts.len()];
                made += 1;
                now += attempt.took;
                match call.ended(attempt.ended(), SECRET, now, jitter) {
                    Next::Done(result) => break result,
                    Next::Wait(ms) => {
                        prop_assert!(attempt.retryable(retry_network), "{attempt:?} was retried");
                        let outcome = match attempt.status {
                            0 => Outcome::Network,
                            status => Outcome::Status { status, retry_after: attempt.retry_after.as_deref() },
                        };
                        prop_assert_eq!(Some(ms), policy.delay(made as u32 - 1, &outcome, now, jitter));
                        prop_assert!(ms <= max_delay_ms);
                        prop_assert!(timeout_ms == 0 || now + (ms as f64) < start + timeout_ms as f64);
                        now += ms as f64;
                    }
                }
            };
            prop_assert!(made <= retries as usize + 1, "{made} attempts");
            prop_assert_eq!(call.retries() as usize, made - 1);
            let last = &attempts[(made - 1) % attempts.len()];
            match (last.status, result) {
                (200..=299, Ok(body)) => prop_assert!(body.contains("no")),
                (0, Err(Error::Network { message })) => {
                    prop_assert!(!message.contains(SECRET), "{message}");
                    prop_assert!(message.contains("connect failed"), "{message}");
                }
                (status, Err(Error::Http { status: got, message })) => {
                    prop_assert_eq!(status, got);
                    prop_assert!(!message.unwrap_or_default().contains(SECRET));
                }
                (status, result) => prop_assert!(false, "{status}: {result:?}"),
            }
            if last.retryable(retry_network) && made <= retries as usize {
                prop_assert!(timeout_ms > 0, "a retryable failure ended early without a deadline");
                // When the retry the deadline cut short was due.
                let outcome = match last.status {
                    0 => Outcome::Network,
                    status => Outcome::Status { status, retry_after: last.retry_after.as_deref() },
                };
                let delay = policy.delay(made as u32 - 1, &outcome, now, jitter);
                let due = delay.map(|ms| now + ms as f64);
                prop_assert!(due.is_some_and(|due| due >= start + timeout_ms as f64));
                prop_assert_eq!(call.cut_short(), due);
            } else {
                prop_assert_eq!(call.cut_short(), None);
            }
        }
    }

    #[test]
    fn a_stopped_call_says_why() {
        let call = Call::new(RetryPolicy::default(), 1500, true, 0.0);
        assert_eq!(call.stopped(true), Error::Aborted);
        assert_eq!(call.stopped(false), Error::Timeout { ms: 1500 });
    }

    #[test]
    fn network_failures_end_at_once_when_the_cache_answers_instead() {
        let mut call = Call::new(RetryPolicy::default(), 0, false, 0.0);
        let Next::Done(Err(error)) = call.ended(Ended::Network("offline"), SECRET, 0.0, 0.5) else {
            panic!()
        };
        assert_eq!(error.code(), "network");
        // A busy service is still retried.
        let busy = Ended::Response {
            status: 503,
            retry_after: Some("1"),
            body: String::new(),
        };
        assert_eq!(call.ended(busy, SECRET, 0.0, 0.5), Next::Wait(1000));
    }
}

#[test]
fn errors_carry_their_details_as_json() {
    use content_repo::Query;
    let selection = Query::new().fields("a(").unwrap_err();
    assert_eq!(
        selection.details_json(),
        r#"{"position":2,"expected":"a name ([A-Za-z0-9_-]+ or '*')"}"#
    );
    let decode = check("<p>", Expect::List, "k").unwrap_err();
    assert_eq!(decode.details_json(), r#"{"excerpt":"<p>"}"#);
    assert_eq!(Error::Aborted.details_json(), "{}");
}

/// Which GETs share one request: the same URL, no signal of the caller's,
/// and the same retry of an unreachable network.
#[test]
fn gets_are_shared_by_url_and_retry_setting_without_a_signal() {
    use content_repo::http::call::shared_key;
    let url = "https://cms.example/v1/demo/documents";
    assert_eq!(shared_key(url, false, true), shared_key(url, false, true));
    assert_ne!(shared_key(url, false, true), shared_key(url, false, false));
    assert_ne!(
        shared_key(url, false, true),
        shared_key(&format!("{url}?limit=2"), false, true)
    );
    assert_eq!(shared_key(url, true, true), None);
}
