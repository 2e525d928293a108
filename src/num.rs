//! Number conversions that say what happens at the edges. `usize` is 32
//! bits on wasm32, so no `as` may narrow an integer silently: every
//! narrowing goes through `try_from`, and the one float-to-integer `as` of
//! the crate is here, where its saturation is the documented result.

use std::fmt::Write as _;

/// `value` rounded toward zero, saturating: NaN and anything below 0 give 0,
/// anything above `u64::MAX` gives `u64::MAX`.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a float-to-integer `as` saturates and maps NaN to 0: exactly the documented result"
)]
pub(crate) fn u64_from_f64(value: f64) -> u64 {
    value as u64
}

/// `value`, saturating at `u32::MAX`.
pub(crate) fn u32_from_usize(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// A JavaScript number rounded toward zero to a `usize`, saturating: NaN
/// and anything below 0 give 0, anything above `usize::MAX` (`u32::MAX` on
/// wasm32) gives `usize::MAX`.
pub(crate) fn usize_from_f64(number: f64) -> usize {
    usize::try_from(u64_from_f64(number)).unwrap_or(usize::MAX)
}

/// `value` as `Display` writes an `f64` (`format!("{value}")`): the
/// shortest digits that read back as `value`, never with an exponent
/// (`1e21` is `1000000000000000000000`, `1e-7` is `0.0000001`), `-0`,
/// `NaN`; but `Infinity` and `-Infinity` as JavaScript writes them.
///
/// The digits come from the platform: on wasm32 from JavaScript's
/// `Number.prototype.toString` (the same shortest digits, nearest to the
/// value, as Rust's), so that the module carries no float formatting of its
/// own (about 20 KB).
pub(crate) fn write_f64(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str("NaN");
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    let magnitude = value.abs();
    if value.is_infinite() {
        // As JavaScript writes it (messages name numbers a caller passed).
        out.push_str("Infinity");
    } else if magnitude.fract() == 0.0 && magnitude < EXACT {
        // A whole number below 2^53 (a time, a count): its digits are its
        // integer's, written here (no call out, as most numbers are these).
        let _ = write!(out, "{}", u64_from_f64(magnitude));
    } else {
        write_plain(out, &shortest(magnitude));
    }
}

/// 2^53: every whole number below it is an `f64` exactly.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// The shortest digits of a finite `value`, as JavaScript's `String(value)`
/// (`123.5`, `1.5e-7`, `1e+21`).
#[cfg(target_arch = "wasm32")]
fn shortest(value: f64) -> String {
    js_sys::Number::from(value)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// The shortest digits of a finite `value`, as `{:e}` writes them
/// (`1.5e-7`, `1e21`).
#[cfg(not(target_arch = "wasm32"))]
fn shortest(value: f64) -> String {
    format!("{value:e}")
}

/// Writes the non-negative number `text` (digits, an optional fraction and
/// an optional exponent: `123.5`, `1.5e-7`, `1e+21`, `1e21`) without an
/// exponent, as `Display` writes an `f64` with those digits.
fn write_plain(out: &mut String, text: &str) {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let exponent: i32 = exponent.trim_start_matches('+').parse().unwrap_or(0);
    let whole = mantissa.find('.').unwrap_or(mantissa.len());
    // The digits without the point, leading and trailing zeros: the value
    // is 0.<digits> times 10^point.
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0');
    let leading = digits.len() - significant.len();
    let digits = significant.trim_end_matches('0');
    if digits.is_empty() {
        out.push('0');
        return;
    }
    let length = |count: usize| i64::try_from(count).unwrap_or(i64::MAX);
    let point = i64::from(exponent) + length(whole) - length(leading);
    if point <= 0 {
        out.push_str("0.");
    }
    for _ in point..0 {
        out.push('0');
    }
    let mut at = 0;
    for digit in digits.chars() {
        if at == point && at > 0 {
            out.push('.');
        }
        out.push(digit);
        at += 1;
    }
    for _ in at..point {
        out.push('0');
    }
}

/// The JSON number `text` as `str::parse::<f64>` reads it (the nearest
/// `f64`; beyond the largest, infinite).
///
/// On wasm32, JavaScript's `parseFloat` (also the nearest `f64`), so that
/// the module carries no float parsing of its own (about 15 KB, tables
/// included).
pub(crate) fn parse_f64(text: &str) -> f64 {
    // An integer of at most 15 digits (below 2^53: exact) is read here.
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    if (1..=15).contains(&digits.len()) && digits.bytes().all(|byte| byte.is_ascii_digit()) {
        if let Ok(whole) = digits.parse::<u64>() {
            #[allow(
                clippy::cast_precision_loss,
                reason = "below 10^15 < 2^53, every integer is an f64 exactly"
            )]
            let whole = whole as f64;
            return if negative { -whole } else { whole };
        }
    }
    parse_other(text)
}

#[cfg(target_arch = "wasm32")]
fn parse_other(text: &str) -> f64 {
    js_sys::parse_float(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn parse_other(text: &str) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(value: f64) -> String {
        let mut out = String::new();
        write_f64(&mut out, value);
        out
    }

    /// A fixed pseudo-random sequence of `f64` bit patterns (xorshift).
    fn values(count: usize) -> Vec<f64> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                f64::from_bits(state)
            })
            .collect()
    }

    #[test]
    fn writes_as_display() {
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            1.5e-7,
            1e-7,
            1e-6,
            123.456,
            1e21,
            1e20,
            1.5e21,
            9_007_199_254_740_993.0,
            1_700_000_000_000.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
        ];
        for value in edges.into_iter().chain(values(20_000)) {
            assert_eq!(display(value), format!("{value}"), "{value:e}");
        }
        // Infinities as JavaScript writes them (Display writes `inf`).
        assert_eq!(display(f64::INFINITY), "Infinity");
        assert_eq!(display(f64::NEG_INFINITY), "-Infinity");
        for exponent in -330..330 {
            for mantissa in [1.0, 1.5, 9.99, 123.0] {
                let value = mantissa * 10f64.powi(exponent);
                if value.is_finite() {
                    assert_eq!(display(value), format!("{value}"), "{value:e}");
                }
            }
        }
    }

    #[test]
    fn writes_the_digits_of_javascript_without_exponent() {
        for (text, plain) in [
            ("123.5", "123.5"),
            ("0.000001", "0.000001"),
            ("1.5e-7", "0.00000015"),
            ("1e+21", "1000000000000000000000"),
            ("1.25e+22", "12500000000000000000000"),
            ("100", "100"),
            ("0.5", "0.5"),
        ] {
            let mut out = String::new();
            write_plain(&mut out, text);
            assert_eq!(out, plain, "{text}");
        }
    }

    #[test]
    fn parses_as_str_parse() {
        for value in values(20_000) {
            let text = format!("{value}");
            if value.is_finite() {
                assert_eq!(parse_f64(&text).to_bits(), value.to_bits(), "{text}");
                let text = format!("{value:e}");
                assert_eq!(parse_f64(&text).to_bits(), value.to_bits(), "{text}");
            }
        }
        for text in [
            "1e400",
            "-1e400",
            "1e-400",
            "-0",
            "0.30000000000000004",
            "9007199254740993",
        ] {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(parse_f64(text).to_bits(), expected.to_bits(), "{text}");
        }
    }
}
