//! Reading a response: the service's error message, and the JSON body with
//! the shape the endpoint promises; and keeping the API key out of both.

use crate::engine::list::{envelope_total, frame, Shape};
use crate::json;

use crate::error::{Error, Result};

/// The longest excerpt of a body that goes into an error.
const EXCERPT_CHARS: usize = 80;
/// The longest service message (or network error text) that goes into an
/// error.
pub const MESSAGE_CHARS: usize = 300;
/// What replaces the key in a text (see [`scrub`]).
pub const REDACTED: &str = "[redacted]";

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

/// One character of the secret, as the scrubber matches it. Either kind is
/// also matched as an HTML character reference ([`html_reference`]).
#[derive(Debug, Clone, Copy)]
enum Unit {
    /// An ASCII character (every character of a valid API key).
    Ascii(u8),
    /// Any other character: matched raw, fully percent-encoded (UTF-8) or
    /// as a `\uXXXX` escape (a surrogate pair outside the BMP).
    Other(char),
}

/// The character that an HTML character reference at `text[at..]` stands
/// for, and where it ends: `&#39;` or `&#x27;` (either case, up to 8
/// digits), or the named reference of a character HTML escapes (`&amp;`,
/// `&lt;`, `&gt;`, `&quot;`, `&apos;`). At most 12 bytes.
#[inline(never)]
fn html_reference(text: &[u8], at: usize) -> Option<(u32, usize)> {
    let rest = text.get(at..)?.strip_prefix(b"&")?;
    for (name, c) in [&b"amp;"[..], b"lt;", b"gt;", b"quot;", b"apos;"]
        .into_iter()
        .zip("&<>\"'".bytes())
    {
        if rest.starts_with(name) {
            return Some((u32::from(c), at + 1 + name.len()));
        }
    }
    let rest = rest.strip_prefix(b"#")?;
    let radix = if matches!(rest.first(), Some(b'x' | b'X')) {
        16
    } else {
        10
    };
    let mut end = usize::from(radix == 16);
    let mut value = 0u32;
    for &byte in rest.iter().skip(end).take(8) {
        let Some(digit) = char::from(byte).to_digit(radix) else {
            break;
        };
        value = value * radix + digit;
        end += 1;
    }
    let digits = end - usize::from(radix == 16);
    (rest.get(end) == Some(&b';') && (1..=8).contains(&digits)).then_some((value, at + 2 + end + 1))
}

fn hex_digit(byte: u8) -> Option<u32> {
    char::from(byte).to_digit(16)
}

/// The value of `count` hex digits (either case) at `text[at..]`.
fn hex_at(text: &[u8], at: usize, count: usize) -> Option<u32> {
    let digits = text.get(at..at.checked_add(count)?)?;
    digits
        .iter()
        .try_fold(0u32, |value, &byte| Some(value * 16 + hex_digit(byte)?))
}

/// The letter of a JSON two-character escape (`\"`, `\\`, `\/`, `\n`, ...).
fn short_escape(byte: u8) -> Option<u8> {
    match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        b'/' => Some(b'/'),
        0x08 => Some(b'b'),
        0x0C => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        _ => None,
    }
}

impl Unit {
    /// Pushes to `ends` every position where this unit, starting at `at`
    /// in `text`, can end.
    fn ends(self, text: &[u8], at: usize, ends: &mut Vec<usize>) {
        let byte = |offset: usize| text.get(at + offset).copied();
        let code = match self {
            Unit::Ascii(c) => u32::from(c),
            Unit::Other(c) => u32::from(c),
        };
        if let Some((_, end)) = html_reference(text, at).filter(|&(value, _)| value == code) {
            ends.push(end);
        }
        match self {
            Unit::Ascii(c) => {
                // Raw, or `+` for a space (form encoding).
                if byte(0) == Some(c) || (c == b' ' && byte(0) == Some(b'+')) {
                    ends.push(at + 1);
                }
                if byte(0) == Some(b'\\') {
                    // JSON: `\"`, `\\`, `\/` (and the control escapes).
                    if short_escape(c).is_some() && byte(1) == short_escape(c) {
                        ends.push(at + 2);
                    }
                    // JSON: `\uXXXX`, hex digits in either case.
                    if byte(1) == Some(b'u') && hex_at(text, at + 2, 4) == Some(u32::from(c)) {
                        ends.push(at + 6);
                    }
                }
                // Percent-encoding, hex digits in either case: covers
                // `encodeURIComponent`, form encoding and encoding of every
                // character.
                if byte(0) == Some(b'%') && hex_at(text, at + 1, 2) == Some(u32::from(c)) {
                    ends.push(at + 3);
                }
            }
            Unit::Other(c) => {
                let mut buffer = [0; 4];
                let utf8 = c.encode_utf8(&mut buffer).as_bytes();
                if text.get(at..).is_some_and(|rest| rest.starts_with(utf8)) {
                    ends.push(at + utf8.len());
                }
                let percent = utf8.iter().enumerate().all(|(index, &b)| {
                    byte(3 * index) == Some(b'%')
                        && hex_at(text, at + 3 * index + 1, 2) == Some(u32::from(b))
                });
                if percent {
                    ends.push(at + 3 * utf8.len());
                }
                let mut units = [0; 2];
                let utf16 = c.encode_utf16(&mut units);
                let escaped = utf16.iter().enumerate().all(|(index, &unit)| {
                    byte(6 * index) == Some(b'\\')
                        && byte(6 * index + 1) == Some(b'u')
                        && hex_at(text, at + 6 * index + 2, 4) == Some(u32::from(unit))
                });
                if escaped {
                    ends.push(at + 6 * utf16.len());
                }
            }
        }
    }
}

fn units(secret: &str) -> Vec<Unit> {
    secret
        .chars()
        .map(|c| match u8::try_from(c) {
            Ok(byte) if byte.is_ascii() => Unit::Ascii(byte),
            _ => Unit::Other(c),
        })
        .collect()
}

/// The byte ranges of `text` covered by some occurrence of the secret, in
/// any mixture of its encodings, merged where they overlap or touch.
fn occurrences(text: &[u8], units: &[Unit]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let (mut here, mut next) = (Vec::new(), Vec::new());
    for start in 0..text.len() {
        here.clear();
        here.push(start);
        for unit in units {
            next.clear();
            for &at in &here {
                unit.ends(text, at, &mut next);
            }
            crate::sort::sort_by(&mut next, &mut |a, b| a.cmp(b));
            next.dedup();
            std::mem::swap(&mut here, &mut next);
            if here.is_empty() {
                break;
            }
        }
        // Every end is reachable from `start`: the union is up to the last.
        if let Some(&end) = here.last() {
            match spans.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => spans.push((start, end)),
            }
        }
    }
    spans
}

fn replace(text: &str, spans: &[(usize, usize)], marker: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for &(start, end) in spans {
        out.extend_from_slice(bytes.get(at..start).unwrap_or_default());
        out.extend_from_slice(marker.as_bytes());
        at = end;
    }
    out.extend_from_slice(bytes.get(at..).unwrap_or_default());
    // Spans start and end on character boundaries (every unit is whole
    // characters), so this never loses anything.
    String::from_utf8(out)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Replaces every occurrence of `secret` (when non-empty) so that a text
/// echoing the key cannot carry it into a message, in any form a server or
/// a proxy may have written it: raw; JSON-escaped (`\/`, `\"`, `\\`, or
/// `\uXXXX` for any character, hex digits in either case); percent-encoded
/// (`encodeURIComponent`, form encoding with `+` for a space, or every
/// character, hex digits in either case); HTML-escaped (`&amp;`, `&quot;`,
/// `&#39;`, `&#x2F;`: a named reference of what HTML escapes, or a numeric
/// one for any character); and any mixture of these, one character at a
/// time.
///
/// Overlapping occurrences are replaced together by one `[redacted]`. The
/// result contains no occurrence in any of these forms, also where the
/// marker meets the text around it: if `[redacted]` itself could complete
/// one (a key with `]`, say), a marker outside ASCII is used instead.
///
/// ```
/// use content_repo::http::response::scrub;
///
/// assert_eq!(scrub("key=a/b c and a\\/b%20c", "a/b c"), "key=[redacted] and [redacted]");
/// assert_eq!(scrub("tok\\u0065n+x", "token x"), "[redacted]");
/// assert_eq!(scrub("<p>a&amp;b&#x3C;</p>", "a&b<"), "<p>[redacted]</p>");
/// ```
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() {
        return text.to_owned();
    }
    let units = units(secret);
    let spans = occurrences(text.as_bytes(), &units);
    if spans.is_empty() {
        return text.to_owned();
    }
    for marker in [
        REDACTED,
        "\u{2022}\u{2022}\u{2022}",
        "\u{25C6}\u{25C6}\u{25C6}",
    ] {
        let out = replace(text, &spans, marker);
        if occurrences(out.as_bytes(), &units).is_empty() {
            return out;
        }
    }
    // Only for a secret that contains both fallback markers: drop the
    // occurrences until none is left (each round makes the text shorter).
    let mut out = replace(text, &spans, "");
    loop {
        let spans = occurrences(out.as_bytes(), &units);
        if spans.is_empty() {
            return out;
        }
        out = replace(&out, &spans, "");
    }
}

/// At most `chars` characters of `text` without the key (see [`scrub`]),
/// with `…` when something was cut. Only the start of `text` is scanned.
pub fn excerpt(text: &str, secret: &str, chars: usize) -> String {
    // The longest form of one character of the secret is 12 bytes (a
    // surrogate pair of `\uXXXX`, four percent-encoded UTF-8 bytes, or an
    // HTML reference of 8 hex digits): a
    // window that much longer holds every occurrence that could reach into
    // the excerpt.
    let margin = secret.chars().count().saturating_mul(12);
    let window_end = text
        .char_indices()
        .nth(chars.saturating_add(margin))
        .map_or(text.len(), |(index, _)| index);
    // Each character that would break or reorder a line of a log is a space,
    // before the key is looked for: a key with a space, echoed with a line
    // break there, is found too.
    let window: String = text
        .get(..window_end)
        .unwrap_or(text)
        .chars()
        .map(printable)
        .collect();
    let scrubbed = scrub(&window, secret);
    let mut out: String = scrubbed.chars().take(chars).collect();
    if scrubbed.chars().nth(chars).is_some() || window_end < text.len() {
        out.push('…');
    }
    out
}

/// Whether `c` prints as nothing: Unicode's default-ignorable code points
/// (zero-width spaces and joiners, the soft hyphen, the byte order mark,
/// variation selectors, tags) but the bidirectional controls, which
/// [`printable`] makes spaces.
fn invisible(c: char) -> bool {
    const RANGES: [(u32, u32); 16] = [
        (0xAD, 0xAD),
        (0x34F, 0x34F),
        (0x61C, 0x61C),
        (0x115F, 0x1160),
        (0x17B4, 0x17B5),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
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
    RANGES
        .iter()
        .any(|&(low, high)| (low..=high).contains(&u32::from(c)))
}

/// `c`, or a space for what would break or reorder a line of a log or a
/// terminal: control characters (line breaks, escape sequences), the line
/// and paragraph separators, and the bidirectional overrides and isolates.
pub(crate) fn printable(c: char) -> char {
    match c {
        '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => ' ',
        _ if c.is_control() => ' ',
        _ => c,
    }
}

/// A top-level string of the object at `start` named `name`; `"error"` may
/// also be an object whose `message` is read. A repeated key is read as
/// `JSON.parse` reads it: the last one counts (`{"message": "a",
/// "message": 5}` has no message).
fn message_at(bytes: &[u8], start: usize, names: &[&[u8]], depth: usize) -> Option<String> {
    let mut found = None;
    let mut scratch = Vec::new();
    crate::engine::list::entries(bytes, start, |name, _, value| {
        let end = json::value_end(bytes, value)?;
        if names.contains(&name) {
            found = match bytes.get(value) {
                Some(b'"') => {
                    let (text, _) = json::string_at(bytes, value, &mut scratch)?;
                    Some(String::from_utf8_lossy(text).into_owned())
                }
                Some(b'{') if name == b"error" && depth == 0 => {
                    message_at(bytes, value, &[b"message"], 1)
                }
                _ => None,
            };
        }
        Ok(end)
    })
    .ok()?;
    found
}

/// The error for a non-2xx response: the status and, when the body is
/// `{message}`, `{error: {message}}` or `{error: "..."}`, the service's
/// message (shortened, without the key). A message that would print as
/// blanks only (`""`, `" \n"`, a zero-width space) is no message: the next
/// form is read.
pub fn http_error(status: u16, body: &str, secret: &str) -> Error {
    let bytes = body.as_bytes();
    let start = json::skip_space(bytes, 0);
    let read = |name: &[u8]| {
        message_at(bytes, start, &[name], 0).filter(|text| {
            !text
                .chars()
                .all(|c| printable(c).is_whitespace() || invisible(c))
        })
    };
    let message = (json::validate(body).is_ok() && bytes.get(start) == Some(&b'{'))
        .then(|| read(b"message").or_else(|| read(b"error")))
        .flatten()
        .map(|text| excerpt(&text, secret, MESSAGE_CHARS));
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
    let shape = frame(body).map_err(|error| Error::Decode {
        // (A syntax error names a position and what was expected: no text
        // of the body, nothing to redact.)
        message: format!("the response is not valid JSON ({error})"),
        excerpt: excerpt(body, secret, EXCERPT_CHARS),
    })?;
    let problem = match (expect, &shape) {
        (Expect::List, Shape::Envelope { .. }) => return Ok(list_facts(body, &shape)),
        (Expect::List, Shape::Object) => Some(
            "expected a list envelope with a `data` array (and no `fields` object, which makes \
             it a document)",
        ),
        (Expect::List, _) => Some("expected a list envelope with a `data` array"),
        (Expect::Document, Shape::Object | Shape::Envelope { .. }) => None,
        (Expect::Document, _) => Some("expected a document object"),
        (Expect::Any, _) => None,
    };
    match problem {
        Some(message) => Err(Error::Decode {
            message: message.to_owned(),
            excerpt: excerpt(body, secret, EXCERPT_CHARS),
        }),
        None => Ok(Facts::default()),
    }
}

/// The count and total of a list envelope framed from `body` (default
/// for any other shape).
pub fn list_facts(body: &str, shape: &Shape) -> Facts {
    let Shape::Envelope { documents, entries } = shape else {
        return Facts::default();
    };
    let total = entries
        .iter()
        .rev()
        .find(|entry| entry.name == b"meta")
        .and_then(|meta| envelope_total(body.as_bytes(), meta.value.start));
    Facts {
        count: documents.len(),
        total,
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
