//! Reading a response: the service's error message, and the JSON body with
//! the shape the endpoint promises.

use crate::engine::list::{envelope_total, frame, Shape};
use crate::json;

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

/// A top-level string of the object at `start` named `name`; `"error"` may
/// also be an object whose `message` is read.
fn message_at(bytes: &[u8], start: usize, names: &[&[u8]], depth: usize) -> Option<String> {
    let mut found = None;
    let mut scratch = Vec::new();
    crate::engine::list::entries(bytes, start, |name, _, value| {
        let end = json::value_end(bytes, value)?;
        if found.is_none() && names.contains(&name) {
            match bytes.get(value) {
                Some(b'"') => {
                    let (end, escaped) = json::string_end(bytes, value)?;
                    let text = json::string_bytes(bytes, value, end, escaped, &mut scratch);
                    found = Some(String::from_utf8_lossy(text).into_owned());
                }
                Some(b'{') if name == b"error" && depth == 0 => {
                    found = message_at(bytes, value, &[b"message"], 1);
                }
                _ => {}
            }
        }
        Ok(end)
    })
    .ok()?;
    found
}

/// The error for a non-2xx response: the status and, when the body is
/// `{message}`, `{error: {message}}` or `{error: "..."}`, the service's
/// message (shortened, without the key).
pub fn http_error(status: u16, body: &str, secret: &str) -> Error {
    let bytes = body.as_bytes();
    let start = json::skip_space(bytes, 0);
    let message = (json::validate(body).is_ok() && bytes.get(start) == Some(&b'{'))
        .then(|| {
            message_at(bytes, start, &[b"message"], 0)
                .or_else(|| message_at(bytes, start, &[b"error"], 0))
        })
        .flatten()
        .map(|text| shorten(&scrub(&text, secret), MESSAGE_CHARS));
    Error::Http { status, message }
}

/// What a checked 2xx body holds: for a list, its document count and
/// `meta.total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    /// The number of documents of a list (0 otherwise).
    pub count: usize,
    /// `meta.total` of a list, when it is a whole number.
    pub total: Option<u64>,
}

/// Checks that a 2xx body is JSON (as `JSON.parse` reads it) of the shape
/// the endpoint promises; the body stays text.
pub fn check(body: &str, expect: Expect, secret: &str) -> Result<Facts> {
    let excerpt = || shorten(&scrub(body, secret), EXCERPT_CHARS);
    let shape = frame(body).map_err(|error| Error::Decode {
        message: format!("the response is not valid JSON ({error})"),
        excerpt: excerpt(),
    })?;
    let problem = match (expect, &shape) {
        (Expect::List, Shape::Envelope { documents, entries }) => {
            let total = entries
                .iter()
                .rev()
                .find(|entry| entry.name == b"meta")
                .and_then(|meta| envelope_total(body.as_bytes(), meta.value.start));
            return Ok(Facts {
                count: documents.len(),
                total,
            });
        }
        (Expect::List, _) => Some("expected a list envelope with a `data` array"),
        (Expect::Document, Shape::Object | Shape::Envelope { .. }) => None,
        (Expect::Document, _) => Some("expected a document object"),
        (Expect::Any, _) => None,
    };
    match problem {
        Some(message) => Err(Error::Decode {
            message: message.to_owned(),
            excerpt: excerpt(),
        }),
        None => Ok(Facts::default()),
    }
}

/// Where the next page of a list starts, or `None` when the page (with
/// `facts`) was the last.
///
/// `offset` and `limit` are the ones the page was requested with; the end is
/// reached when the page is short or empty, or `meta.total` is reached.
pub fn next_offset(facts: Facts, offset: u64, limit: u64) -> Option<u64> {
    let count = facts.count as u64;
    let next = offset.saturating_add(count);
    match facts.total {
        _ if count == 0 => None,
        Some(total) if next >= total => None,
        Some(_) => Some(next),
        None if count < limit => None,
        None => Some(next),
    }
}
