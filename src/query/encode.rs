//! Percent-encoding exactly as the browser does it.

use std::fmt::Write;

/// Appends `%XX`, upper-case hex digits.
fn percent(out: &mut String, byte: u8) {
    // Writing to a String cannot fail.
    let _ = write!(out, "%{byte:02X}");
}

/// `application/x-www-form-urlencoded` as `URLSearchParams` writes it: ASCII
/// alphanumerics and `*-._` stay, space becomes `+`, every other byte of the
/// UTF-8 form is `%XX`.
pub fn form_urlencode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => percent(&mut out, byte),
        }
    }
    out
}

/// `encodeURIComponent`: ASCII alphanumerics and `-_.!~*'()` stay, every
/// other byte of the UTF-8 form is `%XX`.
pub(crate) fn encode_uri_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z'
            | b'A'..=b'Z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => out.push(char::from(byte)),
            _ => percent(&mut out, byte),
        }
    }
    out
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// Decodes one form-encoded name or value as `URLSearchParams` does: `+` is a
/// space, `%XX` a byte, a `%` without two hex digits stays as it is, and
/// invalid UTF-8 becomes U+FFFD.
pub fn form_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let escaped = match (byte, bytes.get(index + 1), bytes.get(index + 2)) {
            (b'%', Some(&high), Some(&low)) => hex_value(high).zip(hex_value(low)),
            _ => None,
        };
        match (byte, escaped) {
            (_, Some((high, low))) => {
                out.push(high << 4 | low);
                index += 3;
                continue;
            }
            (b'+', None) => out.push(b' '),
            (other, None) => out.push(other),
        }
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits a query string (an optional leading `?`) into decoded pairs, as
/// `new URLSearchParams(text)` does.
pub fn form_pairs(text: &str) -> Vec<(String, String)> {
    let text = text.strip_prefix('?').unwrap_or(text);
    text.split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            (form_decode(name), form_decode(value))
        })
        .collect()
}

/// Joins pairs into a query string (without `?`), form-encoding each part.
pub(crate) fn form_join<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        let _ = write!(out, "{}={}", form_urlencode(name), form_urlencode(value));
    }
    out
}
