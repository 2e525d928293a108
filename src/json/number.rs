//! JSON numbers as the exact decimals they are written as (SPEC.md section 2):
//! `-0 == 0`, `1 == 1.0 == 1E0`, `9007199254740993 > 9007199254740992.5`,
//! `1e400` above every finite `f64`; never a rounded `f64`.
//!
//! [`encode`] writes a number's *order key*: bytes whose lexicographic order
//! is the numeric order, and equal exactly when the values are equal. Sorting
//! compares those bytes, so the order is total by construction.
//!
//! ```
//! use content_repo::json::number::encode;
//!
//! let key = |text: &str| {
//!     let mut out = Vec::new();
//!     encode(text.as_bytes(), &mut out);
//!     out
//! };
//! assert_eq!(key("-0"), key("0.000e5"));
//! assert_eq!(key("1E2"), key("100.0"));
//! assert!(key("9007199254740993") > key("9007199254740992.5"));
//! assert!(key("1e400") > key("1.7976931348623157e308"));
//! assert!(key("-1e400") < key("-5"));
//! ```

/// Exponents are kept within ±2^62 (a number whose exponent is written with
/// more than 18 digits compares as if it were at that bound).
const EXPONENT_BOUND: i64 = 1 << 62;

/// A number read from valid JSON number text: `0.digits × 10^exponent`,
/// `digits` without leading or trailing zeros (empty for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    /// Whether the value is below zero (never for zero).
    negative: bool,
    /// The significant digits, as ASCII.
    digits: Vec<u8>,
    /// The decimal exponent of `0.digits`.
    exponent: i64,
}

/// Reads valid JSON number text (as [`super::number_end`] accepts it).
fn parse(text: &[u8]) -> Decimal {
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mantissa_end = text
        .iter()
        .position(|byte| matches!(byte, b'e' | b'E'))
        .unwrap_or(text.len());
    let (mantissa, exponent_text) = text.split_at(mantissa_end);
    let point = mantissa
        .iter()
        .position(|byte| *byte == b'.')
        .unwrap_or(mantissa.len());
    let mut written: i64 = 0;
    let mut exponent_negative = false;
    for &byte in exponent_text.iter().skip(1) {
        match byte {
            b'-' => exponent_negative = true,
            b'0'..=b'9' => {
                written = written
                    .saturating_mul(10)
                    .saturating_add(i64::from(byte - b'0'))
                    .min(EXPONENT_BOUND);
            }
            _ => {}
        }
    }
    if exponent_negative {
        written = -written;
    }
    // All digits, the point dropped: the value is 0.all × 10^point.
    let all: Vec<u8> = mantissa
        .iter()
        .copied()
        .filter(|byte| *byte != b'.')
        .collect();
    let first = all
        .iter()
        .position(|byte| *byte != b'0')
        .unwrap_or(all.len());
    let mut digits = all.get(first..).unwrap_or_default().to_vec();
    let shift = i64::try_from(point)
        .unwrap_or(i64::MAX)
        .saturating_sub(i64::try_from(first).unwrap_or(i64::MAX));
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return Decimal {
            negative: false,
            digits,
            exponent: 0,
        };
    }
    Decimal {
        negative,
        digits,
        exponent: shift
            .saturating_add(written)
            .clamp(-EXPONENT_BOUND, EXPONENT_BOUND),
    }
}

/// Sign bytes of an order key: negative < zero < positive.
const NEGATIVE: u8 = 0x00;
const ZERO: u8 = 0x01;
const POSITIVE: u8 = 0x02;

/// Appends the order key of valid JSON number text (see the module docs).
pub fn encode(text: &[u8], out: &mut Vec<u8>) {
    encode_decimal(&parse(text), out);
}

/// Appends the order key of `decimal`: a sign byte, then for non-zero
/// values the exponent (8 bytes, big-endian, sign bit flipped) and the
/// digits ended by `0x00`, all bytes inverted for negative values. Keys are
/// prefix-free, so byte order is numeric order.
fn encode_decimal(decimal: &Decimal, out: &mut Vec<u8>) {
    if decimal.digits.is_empty() {
        out.push(ZERO);
        return;
    }
    out.push(if decimal.negative { NEGATIVE } else { POSITIVE });
    let start = out.len();
    // Flipping the sign bit orders i64 values as unsigned bytes.
    let biased = u64::from_be_bytes(decimal.exponent.to_be_bytes()) ^ (1 << 63);
    out.extend_from_slice(&biased.to_be_bytes());
    out.extend_from_slice(&decimal.digits);
    out.push(0x00);
    if decimal.negative {
        for byte in out.iter_mut().skip(start) {
            *byte = !*byte;
        }
    }
}
