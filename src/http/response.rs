//! Reading a response: the service's error message, and the JSON body with
//! the shape the endpoint promises.

use serde_json::Value;

use crate::error::{Error, Result};

/// The longest excerpt of a body that goes into an error.
pub const EXCERPT_CHARS: usize = 80;
/// The longest service message that goes into an error.
pub const MESSAGE_CHARS: usize = 300;

/// What a successful response must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A list envelope: an object with a `data` array.
    List,
    /// One document: an object.
    Document,
    /// Any JSON value (raw endpoints, the repository info).
    Any,
}

/// Replaces every occurrence of `secret` (when non-empty) so that a body
/// echoing the key cannot carry it into a message.
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() {
        text.to_owned()
    } else {
        text.replace(secret, "[redacted]")
    }
}

fn shorten(text: &str, chars: usize) -> String {
    let mut out: String = text.chars().take(chars).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The error for a non-2xx response: the status and, when the body is
/// `{message}`, `{error: {message}}` or `{error: "..."}`, the service's
/// message (shortened, without the key).
pub fn http_error(status: u16, body: &str, secret: &str) -> Error {
    let message = serde_json::from_str::<Value>(body).ok().and_then(|value| {
        let text = value
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| value.pointer("/error/message").and_then(Value::as_str))
            .or_else(|| value.get("error").and_then(Value::as_str))?;
        Some(shorten(&scrub(text, secret), MESSAGE_CHARS))
    });
    Error::Http { status, message }
}

/// Parses a 2xx body and checks its shape.
pub fn decode(body: &str, expect: Expect, secret: &str) -> Result<Value> {
    let excerpt = || shorten(&scrub(body, secret), EXCERPT_CHARS);
    let value: Value = serde_json::from_str(body).map_err(|error| Error::Decode {
        message: format!("the response is not valid JSON ({error})"),
        excerpt: excerpt(),
    })?;
    let problem = match expect {
        Expect::List if !value.get("data").is_some_and(Value::is_array) => {
            Some("expected a list envelope with a `data` array")
        }
        Expect::Document if !value.is_object() => Some("expected a document object"),
        _ => None,
    };
    match problem {
        Some(message) => Err(Error::Decode {
            message: message.to_owned(),
            excerpt: excerpt(),
        }),
        None => Ok(value),
    }
}

/// Where the next page of a list starts, or `None` when `page` was the last.
///
/// `offset` and `limit` are the ones the page was requested with; the end is
/// reached when the page is short or empty, or `meta.total` is reached.
pub fn next_offset(page: &Value, offset: u64, limit: u64) -> Option<u64> {
    let count = page
        .get("data")
        .and_then(Value::as_array)
        .map_or(0, Vec::len) as u64;
    let next = offset + count;
    let total = page.pointer("/meta/total").and_then(Value::as_u64);
    match total {
        _ if count == 0 => None,
        Some(total) if next >= total => None,
        Some(_) => Some(next),
        None if count < limit => None,
        None => Some(next),
    }
}
