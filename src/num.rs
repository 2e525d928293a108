//! Number conversions that say what happens at the edges. `usize` is 32
//! bits on wasm32, so no `as` may narrow an integer silently: every
//! narrowing goes through `try_from`, and the one float-to-integer `as` of
//! the crate is here, where its saturation is the documented result.

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
