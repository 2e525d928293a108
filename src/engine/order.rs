//! The value order of SPEC.md section 2, written once: every value is read
//! from JSON text into an **order key**, bytes whose lexicographic order is
//! the value order and which are equal exactly when the values compare
//! equal. Sorting compares keys with `memcmp`, so the order is total by
//! construction (no input can make a sort fail) and deep values cost no
//! recursion.
//!
//! A key starts with its kind's rank, `number < instant < text < richtext <
//! location < other object < array < boolean < null` (`null` as an element
//! or entry; at the top of a sort key, missing and `null` have no key and
//! sort last in both directions). Within a kind:
//!
//! - number: [`number::encode`], the exact
//!   decimal as written;
//! - instant: nanoseconds since the epoch, 16 bytes;
//! - text and richtext `plain`: the code points (WTF-8 bytes, `0x00`
//!   escaped), ended by `00 01`, so a prefix is smaller;
//! - location: `lat`, then `lng`;
//! - other object: its entries sorted by key (repeated keys: the last), each
//!   `02 key value`, then `01`; a prefix is smaller;
//! - array: its elements, then `01`: shorter first on a tie;
//! - boolean: `00` or `01`.
//!
//! `meta.id` has its own key ([`id_key`]): all-digit strings as decimal
//! numbers of any length, before other strings, which compare as text.
//!
//! ```
//! use content_repo::engine::order::value_key;
//!
//! let key = |text: &str| value_key(text.as_bytes()).unwrap();
//! assert!(key("10") < key(r#""2024-01-01T00:00:00Z""#)); // number < instant
//! assert_eq!(key(r#""2024-01-01T01:00:00+01:00""#), key(r#""2024-01-01T00:00:00.000Z""#));
//! assert!(key(r#""Z""#) < key(r#""a""#) && key(r#""a""#) < key(r#""\u00c9""#));
//! assert!(key("[1, null]") > key("[1, true]")); // null elements last
//! assert_eq!(key(r#"{"b": 1, "a": 2}"#), key(r#"{"a": 2, "b": 1}"#));
//! ```

use crate::json::{self, number, skip_space, Syntax};

/// The kind ranks, as the first byte of a value's key.
pub mod rank {
    /// A number.
    pub const NUMBER: u8 = 0x10;
    /// An instant.
    pub const INSTANT: u8 = 0x20;
    /// Any other string.
    pub const TEXT: u8 = 0x30;
    /// An object with a string `plain`.
    pub const RICHTEXT: u8 = 0x40;
    /// An object with numeric `lat` and `lng`.
    pub const LOCATION: u8 = 0x50;
    /// Any other object.
    pub const OBJECT: u8 = 0x60;
    /// An array.
    pub const ARRAY: u8 = 0x70;
    /// `true` or `false`.
    pub const BOOLEAN: u8 = 0x80;
    /// `null`, nested in an array or object.
    pub const NULL: u8 = 0x90;
}

/// Ends an object's entries or an array's elements (below every rank).
const END: u8 = 0x01;
/// Starts an object entry.
const ENTRY: u8 = 0x02;

/// Appends text (WTF-8 bytes) so that byte order is code point order and no
/// key is a prefix of another: `00` escaped as `00 FF`, ended by `00 01`.
fn push_text(out: &mut Vec<u8>, text: &[u8]) {
    // Runs without a zero byte are copied whole.
    for (index, run) in text.split(|byte| *byte == 0).enumerate() {
        if index > 0 {
            out.extend_from_slice(&[0x00, 0xFF]);
        }
        out.extend_from_slice(run);
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// An instant as nanoseconds since `1970-01-01T00:00:00Z`, exactly.
type Instant = i128;

fn push_instant(out: &mut Vec<u8>, instant: Instant) {
    let biased = u128::from_be_bytes(instant.to_be_bytes()) ^ (1 << 127);
    out.extend_from_slice(&biased.to_be_bytes());
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` exactly: upper-case `T`
/// and `Z`, 1 to 9 fraction digits, a real calendar date of the proleptic
/// Gregorian calendar (years 0000 to 9999), hours 00-23, minutes and seconds
/// 00-59 (no leap second), offsets up to ±23:59. No floating point.
///
/// ```
/// use content_repo::engine::order::parse_instant;
///
/// assert_eq!(parse_instant(b"1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
/// assert_eq!(parse_instant(b"2023-02-29T00:00:00Z"), None); // not a leap year
/// assert_eq!(parse_instant(b"2024-02-29T00:00:00z"), None); // lower-case z
/// ```
pub fn parse_instant(bytes: &[u8]) -> Option<Instant> {
    if bytes.len() < 20 || bytes.len() > 35 {
        return None;
    }
    let digits = |from: usize, count: usize| -> Option<i64> {
        let mut value = 0i64;
        for &byte in bytes.get(from..from + count)? {
            if !byte.is_ascii_digit() {
                return None;
            }
            value = value * 10 + i64::from(byte - b'0');
        }
        Some(value)
    };
    let at = |index: usize| bytes.get(index).copied();
    if at(4) != Some(b'-') || at(7) != Some(b'-') || at(10) != Some(b'T') {
        return None;
    }
    if at(13) != Some(b':') || at(16) != Some(b':') {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut index = 19;
    let mut nanos: i128 = 0;
    if at(index) == Some(b'.') {
        index += 1;
        let start = index;
        while at(index).is_some_and(|byte| byte.is_ascii_digit()) {
            index += 1;
        }
        let count = index - start;
        if !(1..=9).contains(&count) {
            return None;
        }
        let scale = 10i128.pow(u32::try_from(9 - count).ok()?);
        nanos = i128::from(digits(start, count)?) * scale;
    }
    let offset_seconds: i64 = match at(index) {
        Some(b'Z') if index + 1 == bytes.len() => 0,
        Some(sign @ (b'+' | b'-')) if index + 6 == bytes.len() => {
            if at(index + 3) != Some(b':') {
                return None;
            }
            let (hours, minutes) = (digits(index + 1, 2)?, digits(index + 4, 2)?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            let seconds = hours * 3600 + minutes * 60;
            if sign == b'-' {
                -seconds
            } else {
                seconds
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds;
    Some(i128::from(seconds) * 1_000_000_000 + nanos)
}

fn is_leap_year(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// Appends the key of a decoded string: an instant, or text.
fn push_string(out: &mut Vec<u8>, text: &[u8]) {
    match parse_instant(text) {
        Some(instant) => {
            out.push(rank::INSTANT);
            push_instant(out, instant);
        }
        None => {
            out.push(rank::TEXT);
            push_text(out, text);
        }
    }
}

/// An object whose entries are being read.
#[derive(Default)]
struct Object {
    /// Decoded key, the entry's value key.
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    /// The decoded key of the entry being read.
    key: Vec<u8>,
    /// Per entry: the decoded text when the value is a string.
    strings: Vec<Option<Vec<u8>>>,
}

enum Frame {
    Array(Vec<u8>),
    Object(Object),
}

/// The key of the value of one entry, for richtext and location.
fn entry<'a>(object: &'a Object, name: &[u8]) -> Option<(usize, &'a [u8])> {
    // Repeated keys: the last one counts, as JSON.parse reads it.
    object
        .entries
        .iter()
        .enumerate()
        .rev()
        .find(|(_, (key, _))| key == name)
        .map(|(position, (_, value))| (position, value.as_slice()))
}

/// The key of a finished object: richtext, location, or entries by key.
fn finish_object(object: Object) -> Vec<u8> {
    let plain = entry(&object, b"plain")
        .and_then(|(position, _)| object.strings.get(position).cloned().flatten());
    let mut out = Vec::new();
    if let Some(plain) = plain {
        out.push(rank::RICHTEXT);
        push_text(&mut out, &plain);
        return out;
    }
    let number = |value: &[u8]| value.first() == Some(&rank::NUMBER);
    if let (Some((_, lat)), Some((_, lng))) = (entry(&object, b"lat"), entry(&object, b"lng")) {
        if number(lat) && number(lng) {
            out.push(rank::LOCATION);
            out.extend_from_slice(lat.get(1..).unwrap_or_default());
            out.extend_from_slice(lng.get(1..).unwrap_or_default());
            return out;
        }
    }
    // Entries by key; of a repeated key, the last (stable sort, last kept).
    let entries = crate::sort::sorted(object.entries, &mut |a, b| a.0.cmp(&b.0));
    out.push(rank::OBJECT);
    let mut entries = entries.into_iter().peekable();
    while let Some((key, value)) = entries.next() {
        if entries.peek().is_some_and(|next| next.0 == key) {
            continue;
        }
        out.push(ENTRY);
        push_text(&mut out, &key);
        out.extend_from_slice(&value);
    }
    out.push(END);
    out
}

/// Reads the JSON value at `start` of `bytes` and returns its order key and
/// the index after it. Iterative: any depth that [`json::value_end`]
/// accepts is read without recursion.
fn value_key_at(bytes: &[u8], start: usize) -> Result<(Vec<u8>, usize), Syntax> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut index = start;
    let mut scratch = Vec::new();
    'value: loop {
        index = skip_space(bytes, index);
        let mut finished = Vec::new();
        let mut string: Option<Vec<u8>> = None;
        match bytes.get(index).copied() {
            Some(b'{') => {
                let next = skip_space(bytes, index + 1);
                if bytes.get(next) == Some(&b'}') {
                    index = next + 1;
                    finished = finish_object(Object::default());
                } else {
                    if stack.len() >= json::MAX_DEPTH {
                        return json::syntax(index, "at most 100000 levels of nesting");
                    }
                    let (key_start, key_end, escaped, after) = json::key(bytes, next)?;
                    let key = json::string_bytes(bytes, key_start, key_end, escaped, &mut scratch);
                    stack.push(Frame::Object(Object {
                        key: key.to_vec(),
                        ..Object::default()
                    }));
                    index = after;
                    continue 'value;
                }
            }
            Some(b'[') => {
                let next = skip_space(bytes, index + 1);
                if bytes.get(next) == Some(&b']') {
                    index = next + 1;
                    finished = vec![rank::ARRAY, END];
                } else {
                    if stack.len() >= json::MAX_DEPTH {
                        return json::syntax(index, "at most 100000 levels of nesting");
                    }
                    stack.push(Frame::Array(vec![rank::ARRAY]));
                    index = next;
                    continue 'value;
                }
            }
            Some(b'"') => {
                let (text, end) = json::string_at(bytes, index, &mut scratch)?;
                push_string(&mut finished, text);
                if matches!(stack.last(), Some(Frame::Object(_))) {
                    string = Some(text.to_vec());
                }
                index = end;
            }
            Some(b't' | b'f' | b'n') => {
                let end = json::scalar_end(bytes, index)?;
                finished = match bytes.get(index) {
                    Some(b't') => vec![rank::BOOLEAN, 1],
                    Some(b'f') => vec![rank::BOOLEAN, 0],
                    _ => vec![rank::NULL],
                };
                index = end;
            }
            _ => {
                let end = json::number_end(bytes, index)?;
                finished.push(rank::NUMBER);
                number::encode(bytes.get(index..end).unwrap_or_default(), &mut finished);
                index = end;
            }
        }
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok((finished, index));
            };
            match top {
                Frame::Array(out) => out.extend_from_slice(&finished),
                Frame::Object(object) => {
                    let key = std::mem::take(&mut object.key);
                    object.entries.push((key, finished));
                    object.strings.push(string.take());
                }
            }
            index = skip_space(bytes, index);
            match (top, bytes.get(index).copied()) {
                (Frame::Object(object), Some(b',')) => {
                    let (key_start, key_end, escaped, after) = json::key(bytes, index + 1)?;
                    object.key =
                        json::string_bytes(bytes, key_start, key_end, escaped, &mut scratch)
                            .to_vec();
                    index = after;
                    continue 'value;
                }
                (Frame::Array(_), Some(b',')) => {
                    index += 1;
                    continue 'value;
                }
                (Frame::Object(_), Some(b'}')) | (Frame::Array(_), Some(b']')) => {
                    index += 1;
                    finished = match stack.pop() {
                        Some(Frame::Array(mut out)) => {
                            out.push(END);
                            out
                        }
                        Some(Frame::Object(object)) => finish_object(object),
                        None => Vec::new(),
                    };
                }
                (Frame::Object(_), _) => return json::syntax(index, "',' or '}'"),
                (Frame::Array(_), _) => return json::syntax(index, "',' or ']'"),
            }
        }
    }
}

/// The order key of one whole JSON value (`None` for invalid JSON).
pub fn value_key(text: &[u8]) -> Option<Vec<u8>> {
    let (key, end) = value_key_at(text, 0).ok()?;
    (skip_space(text, end) == text.len()).then_some(key)
}

/// The key of a sort value: `None` for `null` (missing values have none
/// either), which sorts last in both directions.
pub fn sort_key_at(bytes: &[u8], start: usize, id: bool) -> Result<Option<Vec<u8>>, Syntax> {
    let index = skip_space(bytes, start);
    match bytes.get(index) {
        Some(b'n') => {
            json::scalar_end(bytes, index)?;
            Ok(None)
        }
        Some(b'"') if id => {
            let mut scratch = Vec::new();
            let (text, _) = json::string_at(bytes, index, &mut scratch)?;
            Ok(Some(id_key(text)))
        }
        // Scalars (nearly every sort value) without the container machinery:
        // the same keys as `value_key_at` writes.
        Some(b'"') => {
            let mut scratch = Vec::new();
            let (text, _) = json::string_at(bytes, index, &mut scratch)?;
            let mut out = Vec::with_capacity(text.len() + 3);
            push_string(&mut out, text);
            Ok(Some(out))
        }
        Some(b'-' | b'0'..=b'9') => {
            let end = json::number_end(bytes, index)?;
            let mut out = vec![rank::NUMBER];
            number::encode(bytes.get(index..end).unwrap_or_default(), &mut out);
            Ok(Some(out))
        }
        _ => value_key_at(bytes, index).map(|(key, _)| Some(key)),
    }
}

/// Sub-ranks of `meta.id` strings, within the text rank.
const ID_DECIMAL: u8 = 0x01;
const ID_TEXT: u8 = 0x02;

/// The key of a `meta.id` string: an all-digit id as a decimal number of any
/// length (without leading zeros, shorter is smaller, then digit by digit;
/// equal values then as text, so `"007" < "7"`), before every other id,
/// which compares as text. Ids rank as text among other kinds.
pub fn id_key(text: &[u8]) -> Vec<u8> {
    let mut out = vec![rank::TEXT];
    if !text.is_empty() && text.iter().all(u8::is_ascii_digit) {
        let first = text
            .iter()
            .position(|byte| *byte != b'0')
            .unwrap_or(text.len());
        let digits = text.get(first..).unwrap_or_default();
        out.push(ID_DECIMAL);
        out.extend_from_slice(&(digits.len() as u64).to_be_bytes());
        out.extend_from_slice(digits);
        push_text(&mut out, text);
    } else {
        out.push(ID_TEXT);
        push_text(&mut out, text);
    }
    out
}
