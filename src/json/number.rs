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

/// A number read from valid JSON number text: `0.digits × 10^exponent`,
/// `digits` without leading or trailing zeros (empty for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    /// Whether the value is below zero (never for zero).
    negative: bool,
    /// The significant digits, as ASCII.
    digits: Vec<u8>,
    /// The decimal exponent of `0.digits`.
    exponent: Exponent,
}

/// The exponent of a [`Decimal`]: up to 18 digits, or beyond by its sign and
/// ASCII digits (no leading zero). Exponents of up to 18 digits are 8 bytes
/// of the order key; longer ones a marker (0 below, `u64::MAX` above), their
/// digit count and their digits, so that every exponent JSON can write is
/// exact.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Exponent {
    Within(i64),
    Beyond(bool, Vec<u8>),
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
    // `e`, an optional sign, the digits (leading zeros dropped).
    let exponent_negative = exponent_text.get(1) == Some(&b'-');
    let mut written: Vec<u8> = Vec::new();
    for &byte in exponent_text {
        if byte.is_ascii_digit() && (byte != b'0' || !written.is_empty()) {
            written.push(byte);
        }
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
    // |shift| is at most the text's length, far below 10^18.
    let shift = i64::try_from(point)
        .unwrap_or(0)
        .saturating_sub(i64::try_from(first).unwrap_or(0));
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    // Up to 17 written digits, the sum has at most 18; beyond, |written| ≥
    // 10^17 > |shift| (a text's length), so the sum has the written sign.
    let added = written.len() > 17;
    if added {
        add(&mut written, if exponent_negative { -shift } else { shift });
    }
    let exponent = if digits.is_empty() {
        Exponent::Within(0)
    } else if written.len() <= 18 {
        let value = written
            .iter()
            .fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0'));
        let value = if exponent_negative { -value } else { value };
        Exponent::Within(if added { value } else { value + shift })
    } else {
        Exponent::Beyond(exponent_negative, written)
    };
    Decimal {
        negative: negative && !digits.is_empty(),
        digits,
        exponent,
    }
}

/// Adds `delta` to the decimal ASCII `digits`, at least 10^17 and more
/// than `|delta|`, keeping them without leading zeros.
fn add(digits: &mut Vec<u8>, delta: i64) {
    let mut carry = delta;
    for digit in digits.iter_mut().rev() {
        let value = i64::from(*digit - b'0') + carry;
        *digit = b'0' + u8::try_from(value.rem_euclid(10)).unwrap_or(0);
        carry = value.div_euclid(10);
    }
    // |delta| < 10^17 ≤ digits: one more digit at most.
    if carry > 0 {
        digits.insert(0, b'1');
    }
    let leading = digits.iter().take_while(|digit| **digit == b'0').count();
    digits.copy_within(leading.., 0);
    digits.truncate(digits.len() - leading);
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
/// values the exponent (up to 18 digits: 8 bytes, big-endian, sign bit
/// flipped; longer: a marker, then the digit count as 8 bytes and the
/// digits, inverted below zero) and the digits ended by `0x00`, all bytes
/// inverted for negative values. Keys are prefix-free, so byte order is
/// numeric order.
fn encode_decimal(decimal: &Decimal, out: &mut Vec<u8>) {
    if decimal.digits.is_empty() {
        out.push(ZERO);
        return;
    }
    out.push(if decimal.negative { NEGATIVE } else { POSITIVE });
    let start = out.len();
    match &decimal.exponent {
        // Flipping the sign bit orders i64 values as unsigned bytes.
        Exponent::Within(exponent) => {
            let biased = u64::from_be_bytes(exponent.to_be_bytes()) ^ (1 << 63);
            out.extend_from_slice(&biased.to_be_bytes());
        }
        Exponent::Beyond(below, digits) => {
            let flip = if *below { 0xff } else { 0 };
            out.extend_from_slice(&[flip ^ 0xff; 8]);
            let count = (digits.len() as u64).to_be_bytes();
            for byte in count.iter().chain(digits) {
                out.push(byte ^ flip);
            }
        }
    }
    out.extend_from_slice(&decimal.digits);
    out.push(0x00);
    if decimal.negative {
        for byte in out.iter_mut().skip(start) {
            *byte = !*byte;
        }
    }
}
