//! Value order (SPEC.md section 2): value kinds and their rank, exact
//! instants, code-point text order, and `meta.id` as a decimal number.
//!
//! ```
//! use content_repo::local::order::{compare_ids, compare_values, kind, Kind};
//! use serde_json::json;
//! use std::cmp::Ordering;
//!
//! // kinds rank number < instant < text < ... < boolean
//! assert_eq!(kind(&json!("2024-01-01T00:00:00Z")), Kind::Instant);
//! assert_eq!(compare_values(&json!(10), &json!("a")), Ordering::Less);
//! // the same instant written with an offset
//! assert_eq!(
//!     compare_values(&json!("2024-01-01T01:00:00+01:00"), &json!("2024-01-01T00:00:00.000Z")),
//!     Ordering::Equal
//! );
//! // 18-digit ids compare as numbers, never through f64
//! assert_eq!(
//!     compare_ids(&json!("99999999999999999"), &json!("100000000000000000")),
//!     Ordering::Less
//! );
//! ```

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

/// How deep [`compare_values`] descends into nested objects and arrays;
/// deeper levels compare equal. Parsed JSON never gets there (serde_json
/// stops at 128 levels), so this only guards hand-built values.
pub const MAX_COMPARE_DEPTH: usize = 256;

/// The kind of a value, in ascending rank order: `number < instant < text <
/// richtext < location < other object < array < boolean`. `Null` ranks after
/// every kind (the rule for `null` nested in arrays and objects; at the top
/// of a sort key, missing and `null` sort last in both directions instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A JSON number.
    Number,
    /// A string of the form `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    Instant,
    /// Any other string.
    Text,
    /// An object with a string `plain`.
    RichText,
    /// An object with numeric `lat` and `lng` (and no string `plain`).
    Location,
    /// Any other object.
    Object,
    /// An array (a multi-select value).
    Array,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

/// The kind of `value`. An object that is both richtext and location is
/// richtext.
pub fn kind(value: &Value) -> Kind {
    match value {
        Value::Null => Kind::Null,
        Value::Bool(_) => Kind::Boolean,
        Value::Number(_) => Kind::Number,
        Value::String(text) => {
            if parse_instant(text).is_some() {
                Kind::Instant
            } else {
                Kind::Text
            }
        }
        Value::Array(_) => Kind::Array,
        Value::Object(map) => object_kind(map),
    }
}

fn object_kind(map: &Map<String, Value>) -> Kind {
    if matches!(map.get("plain"), Some(Value::String(_))) {
        Kind::RichText
    } else if matches!(
        (map.get("lat"), map.get("lng")),
        (Some(Value::Number(_)), Some(Value::Number(_)))
    ) {
        Kind::Location
    } else {
        Kind::Object
    }
}

/// An instant as nanoseconds since `1970-01-01T00:00:00Z`, exactly.
pub type Instant = i128;

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` exactly: upper-case `T`
/// and `Z`, 1 to 9 fraction digits, a real calendar date of the proleptic
/// Gregorian calendar (years 0000 to 9999), hours 00-23, minutes and seconds
/// 00-59 (no leap second), offsets up to ±23:59. No floating point.
///
/// ```
/// use content_repo::local::order::parse_instant;
///
/// assert_eq!(parse_instant("1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
/// assert_eq!(parse_instant("2023-02-29T00:00:00Z"), None); // not a leap year
/// assert_eq!(parse_instant("2024-02-29T00:00:00z"), None); // lower-case z
/// ```
pub fn parse_instant(text: &str) -> Option<Instant> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 {
        return None;
    }
    let digits = |from: usize, count: usize| -> Option<i64> {
        let slice = bytes.get(from..from + count)?;
        let mut value = 0i64;
        for &byte in slice {
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
    let year = digits(0, 4)?;
    let month = digits(5, 2)?;
    let day = digits(8, 2)?;
    let hour = digits(11, 2)?;
    let minute = digits(14, 2)?;
    let second = digits(17, 2)?;
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
        nanos = i128::from(digits(start, count)?) * 10i128.pow((9 - count) as u32);
    }
    let offset_seconds: i64 = match at(index) {
        Some(b'Z') if index + 1 == bytes.len() => 0,
        Some(sign @ (b'+' | b'-')) if index + 6 == bytes.len() => {
            if at(index + 3) != Some(b':') {
                return None;
            }
            let hours = digits(index + 1, 2)?;
            let minutes = digits(index + 4, 2)?;
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

/// Text order: by Unicode code point (Rust `str` order), case-sensitive.
pub fn compare_text(a: &str, b: &str) -> Ordering {
    a.cmp(b)
}

/// Numbers numerically; integers exactly, `-0 == 0`.
pub fn compare_numbers(a: &Number, b: &Number) -> Ordering {
    if let (Some(x), Some(y)) = (integer(a), integer(b)) {
        return x.cmp(&y);
    }
    let x = a.as_f64().unwrap_or(f64::NAN);
    let y = b.as_f64().unwrap_or(f64::NAN);
    x.partial_cmp(&y)
        .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()))
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Compares two values by SPEC.md section 2, ascending: first by [`Kind`]
/// rank (`null` after every kind), then within the kind.
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    compare_at(a, b, 0)
}

fn compare_at(a: &Value, b: &Value, depth: usize) -> Ordering {
    if depth > MAX_COMPARE_DEPTH {
        return Ordering::Equal;
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => return compare_numbers(x, y),
        (Value::Bool(x), Value::Bool(y)) => return x.cmp(y),
        (Value::Null, Value::Null) => return Ordering::Equal,
        (Value::String(x), Value::String(y)) => {
            return match (parse_instant(x), parse_instant(y)) {
                (Some(i), Some(j)) => i.cmp(&j),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => compare_text(x, y),
            }
        }
        _ => {}
    }
    let (kind_a, kind_b) = (kind(a), kind(b));
    if kind_a != kind_b {
        return kind_a.cmp(&kind_b);
    }
    match (kind_a, a, b) {
        (Kind::RichText, Value::Object(x), Value::Object(y)) => {
            match (x.get("plain"), y.get("plain")) {
                (Some(Value::String(p)), Some(Value::String(q))) => compare_text(p, q),
                _ => Ordering::Equal,
            }
        }
        (Kind::Location, Value::Object(x), Value::Object(y)) => {
            compare_number_entry(x, y, "lat").then_with(|| compare_number_entry(x, y, "lng"))
        }
        (Kind::Object, Value::Object(x), Value::Object(y)) => {
            let mut left: Vec<(&String, &Value)> = x.iter().collect();
            let mut right: Vec<(&String, &Value)> = y.iter().collect();
            left.sort_by(|p, q| compare_text(p.0, q.0));
            right.sort_by(|p, q| compare_text(p.0, q.0));
            for ((key_a, value_a), (key_b, value_b)) in left.iter().zip(right.iter()) {
                let order = compare_text(key_a, key_b)
                    .then_with(|| compare_at(value_a, value_b, depth + 1));
                if order != Ordering::Equal {
                    return order;
                }
            }
            left.len().cmp(&right.len())
        }
        (Kind::Array, Value::Array(x), Value::Array(y)) => {
            for (item_a, item_b) in x.iter().zip(y.iter()) {
                let order = compare_at(item_a, item_b, depth + 1);
                if order != Ordering::Equal {
                    return order;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => Ordering::Equal,
    }
}

fn compare_number_entry(x: &Map<String, Value>, y: &Map<String, Value>, key: &str) -> Ordering {
    match (x.get(key), y.get(key)) {
        (Some(Value::Number(p)), Some(Value::Number(q))) => compare_numbers(p, q),
        _ => Ordering::Equal,
    }
}

/// Whether `text` is a non-empty run of ASCII digits.
pub fn is_decimal(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// Compares two all-digit strings as decimal numbers of any length: without
/// leading zeros, shorter is smaller, then digit by digit; equal values then
/// compare as text (`"007" < "7"`).
pub fn compare_decimal(a: &str, b: &str) -> Ordering {
    let x = a.trim_start_matches('0');
    let y = b.trim_start_matches('0');
    x.len()
        .cmp(&y.len())
        .then_with(|| x.cmp(y))
        .then_with(|| compare_text(a, b))
}

/// Compares two id strings: all-digit ids as decimal numbers, before ids
/// that are not all digits, which compare as text.
pub fn compare_id_text(a: &str, b: &str) -> Ordering {
    match (is_decimal(a), is_decimal(b)) {
        (true, true) => compare_decimal(a, b),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => compare_text(a, b),
    }
}

/// The `meta.id` order: two strings by [`compare_id_text`]; otherwise the
/// rules of [`compare_values`], with every string at the text rank (an id is
/// never an instant).
pub fn compare_ids(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::String(x), Value::String(y)) => compare_id_text(x, y),
        _ => {
            let rank = |value: &Value| match value {
                Value::String(_) => Kind::Text,
                other => kind(other),
            };
            let (kind_a, kind_b) = (rank(a), rank(b));
            if kind_a != kind_b {
                kind_a.cmp(&kind_b)
            } else {
                compare_values(a, b)
            }
        }
    }
}
