//! When to retry a request, and how long to wait first.
//!
//! Retried: network errors and the statuses 429, 502, 503 and 504. Never
//! retried: any other status, a timeout, or a request the caller aborted.
//! The wait is exponential backoff with full jitter, or the server's
//! `Retry-After` (seconds or an HTTP date) when it sends one, both capped.

use crate::num::u64_from_f64;

/// The retry settings of a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// How many times a failed request is repeated (so `retries + 1`
    /// attempts at most).
    pub retries: u32,
    /// The backoff before the first retry; doubled for each later one.
    pub base_delay_ms: u64,
    /// The longest wait before any retry, whatever `Retry-After` says.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            base_delay_ms: 250,
            max_delay_ms: 30_000,
        }
    }
}

/// How an attempt ended, as far as retrying is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// A response with this status and `Retry-After` header.
    Status {
        /// The HTTP status.
        status: u16,
        /// The `Retry-After` header, if any.
        retry_after: Option<&'a str>,
    },
    /// The request failed before a response (DNS, refused, reset, CORS).
    Network,
}

/// Whether a status is worth another attempt.
fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0 for the first retry) after
    /// `outcome`, or `None` when the request must not be retried.
    ///
    /// `now_ms` is the current time (Unix milliseconds, for HTTP dates) and
    /// `jitter` a random number in `[0, 1)`.
    pub fn delay(
        &self,
        retry: u32,
        outcome: &Outcome<'_>,
        now_ms: f64,
        jitter: f64,
    ) -> Option<u64> {
        if retry >= self.retries {
            return None;
        }
        let retry_after = match outcome {
            Outcome::Network => None,
            Outcome::Status { status, .. } if !is_retryable_status(*status) => return None,
            Outcome::Status { retry_after, .. } => {
                retry_after.and_then(|value| parse_retry_after(value, now_ms))
            }
        };
        let delay = match retry_after {
            Some(delay) => delay,
            None => {
                let ceiling = self
                    .base_delay_ms
                    .saturating_mul(1u64.checked_shl(retry).unwrap_or(u64::MAX))
                    .min(self.max_delay_ms);
                // Full jitter: anywhere in [0, ceiling], spreading the
                // clients that failed together. A NaN jitter counts as 0.
                let jitter = if jitter.is_nan() {
                    0.0
                } else {
                    jitter.clamp(0.0, 1.0)
                };
                u64_from_f64((ceiling as f64 * jitter).round())
            }
        };
        Some(delay.min(self.max_delay_ms))
    }
}

/// Parses `Retry-After` (RFC 9110 section 10.2.3): a number of seconds, or
/// an HTTP date, as milliseconds from `now_ms`. A date in the past is 0.
///
/// Never overflows or panics, whatever the header and `now_ms` (`NaN` and
/// infinities included): a number of seconds too large for `u64`
/// milliseconds is `u64::MAX` (the caller caps the wait), and anything that
/// is neither form (a negative number, a fraction, garbage) is `None`.
pub fn parse_retry_after(value: &str, now_ms: f64) -> Option<u64> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Too many digits for u64 is as good as forever.
        let seconds: u64 = value.parse().unwrap_or(u64::MAX);
        return Some(seconds.saturating_mul(1000));
    }
    let at = parse_http_date(value)?;
    let wait = (at - now_ms).round();
    // Saturating: a NaN or negative wait is 0.
    Some(u64_from_f64(wait))
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
///
/// Defined for every input without overflow: the last sum is done in
/// `i128` and the result saturates at the ends of `i64` (a month outside
/// 1..=12 or a day outside the month is counted on, as `mktime` would).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // The year counted from March (January and February belong to the year
    // before), as 400-year eras and the year within its era. Divisions are
    // in `i64` (an `i128` division would link a kilobyte of code).
    let (mut era, mut year_of_era) = (year.div_euclid(400), year.rem_euclid(400));
    if month <= 2 {
        year_of_era -= 1;
        if year_of_era < 0 {
            year_of_era += 400;
            era -= 1;
        }
    }
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = i128::from(era) * 146_097 + i128::from(day_of_era) - 719_468;
    i64::try_from(days).unwrap_or(if days < 0 { i64::MIN } else { i64::MAX })
}

/// Parses a year of `digits` ASCII digits exactly (RFC 9110: `4DIGIT`, or
/// `2DIGIT` in the obsolete RFC 850 form).
fn year_digits(text: &str, digits: &[usize]) -> Option<i64> {
    if !digits.contains(&text.len()) || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses an HTTP date in any of the three forms of RFC 9110 (IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`,
/// asctime `Sun Nov  6 08:49:37 1994`) into Unix milliseconds.
///
/// Years have four digits (two in the RFC 850 form), so every date it
/// accepts is between the years 0 and 9999: nothing can overflow.
pub fn parse_http_date(value: &str) -> Option<f64> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let (day, month, year, time) = match words.as_slice() {
        [_, day, month, year, time, "GMT"] => (*day, *month, year_digits(year, &[4])?, *time),
        [_, date, time, "GMT"] => {
            let mut parts = date.split('-');
            let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            let short = year.len() == 2;
            let year = match year_digits(year, &[2, 4])? {
                // RFC 850 two-digit years: RFC 9110 says a year that appears
                // to be more than 50 years in the future is in the past
                // century.
                year if short && year < 70 => 2000 + year,
                year if short => 1900 + year,
                year => year,
            };
            (day, month, year, *time)
        }
        [_, month, day, time, year] => (*day, *month, year_digits(year, &[4])?, *time),
        _ => return None,
    };
    let month = u32::try_from(MONTHS.iter().position(|name| *name == month)?).ok()? + 1;
    if day.is_empty() || day.len() > 2 || !day.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let day: u32 = day.parse().ok()?;
    let mut clock = time.split(':').map(two_digits);
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Some(seconds as f64 * 1000.0)
}

/// One or two ASCII digits of a clock.
fn two_digits(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::days_from_civil;

    /// The same count with every step in `i128`.
    fn reference(year: i64, month: u32, day: u32) -> i64 {
        let year = i128::from(year) - i128::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month = i128::from(month);
        let day_of_year =
            (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i128::from(day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        let days = era * 146_097 + day_of_era - 719_468;
        i64::try_from(days).unwrap_or(if days < 0 { i64::MIN } else { i64::MAX })
    }

    #[test]
    fn civil_days_as_in_i128() {
        let mut years = vec![
            i64::MIN,
            i64::MIN + 1,
            i64::MIN + 399,
            i64::MAX - 1,
            i64::MAX,
        ];
        years.extend(-2401..2401);
        years.extend((-50..50).map(|k| k * 63_113_904_000_000_007));
        for year in years {
            for month in [0, 1, 2, 3, 7, 12, 13, 400, u32::MAX - 9, u32::MAX] {
                for day in [0, 1, 29, 31, 1000, u32::MAX] {
                    assert_eq!(
                        days_from_civil(year, month, day),
                        reference(year, month, day),
                        "{year}-{month}-{day}"
                    );
                }
            }
        }
    }
}
