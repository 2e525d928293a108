//! The one JSON model of the crate: JSON text, read exactly as JavaScript's
//! `JSON.parse` reads it (SPEC.md section 4), without building a tree.
//!
//! Documents stay the text they arrived as. Everything the engine needs is
//! read from that text by a scanner:
//!
//! - [`value_end`] finds where a value ends and checks it is valid JSON, with
//!   no recursion (an explicit stack), so nesting of [`MAX_DEPTH`] levels
//!   costs a few bytes per level and never the call stack;
//! - [`decode_string`] reads a string into WTF-8 bytes: lone surrogate escapes
//!   (`"\ud867"`) are kept as their own code points, so byte order is code
//!   point order and nothing is lost;
//! - [`number`] reads a number as the exact decimal it is written as, beyond
//!   `f64` (`1e400`, `9007199254740993`);
//! - [`normalize`] rewrites a text whose objects repeat a key the way
//!   `JSON.parse` reads it (the last value, at the first key's position).
//!
//! Whatever goes back to JavaScript is JSON text copied from the input
//! (strings with their escapes, numbers as written), so `JSON.parse` on the
//! JavaScript side gives exactly what it would have given for the response:
//! lone surrogates, big integers, `__proto__` keys included.
//!
//! ```
//! use content_repo::json::{value_end, MAX_DEPTH};
//!
//! let deep = "[".repeat(20_000) + &"]".repeat(20_000);
//! assert_eq!(value_end(deep.as_bytes(), 0), Ok(deep.len()));
//! assert!(value_end(br#"{"a": "\ud867", "n": 1e400}"#, 0).is_ok());
//! assert!(value_end(b"[1,]", 0).is_err());
//! assert!(MAX_DEPTH >= 10_000);
//! ```

pub mod number;
pub mod record;

use std::fmt;

/// The deepest nesting of arrays and objects accepted (SPEC.md section 4
/// asks for at least 10,000). Deeper text is a syntax error, never a trap.
pub const MAX_DEPTH: usize = 100_000;

/// Where and why a text is not JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Syntax {
    /// The byte offset of the first byte that cannot continue valid JSON.
    pub position: usize,
    /// What was expected there.
    pub expected: &'static str,
}

impl fmt::Display for Syntax {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "expected {} at byte {}", self.expected, self.position)
    }
}

impl std::error::Error for Syntax {}

pub(crate) fn syntax<T>(position: usize, expected: &'static str) -> Result<T, Syntax> {
    Err(Syntax { position, expected })
}

/// Whether `byte` is JSON white space.
// Hot (every token of every scan): inlined even under `opt-level = "z"`.
#[inline(always)]
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first index at or after `index` that is not white space.
// Hot (every token of every scan): inlined even under `opt-level = "z"`.
#[inline(always)]
pub(crate) fn skip_space(bytes: &[u8], mut index: usize) -> usize {
    while bytes.get(index).copied().is_some_and(is_space) {
        index += 1;
    }
    index
}

/// `bytes` without the JSON white space around it.
pub(crate) fn trim_space(bytes: &[u8]) -> &[u8] {
    let start = skip_space(bytes, 0);
    let mut end = bytes.len();
    while end > start && bytes.get(end - 1).copied().is_some_and(is_space) {
        end -= 1;
    }
    bytes.get(start..end).unwrap_or_default()
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that equals `byte` (exact for the
/// lowest such byte; a byte above it may be flagged too).
// Hot (every token of every scan): inlined even under `opt-level = "z"`.
#[inline(always)]
fn byte_flags(word: u64, byte: u8) -> u64 {
    let x = word ^ (u64::from(byte) * ONES);
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Whether `text` holds U+FFFD (what a lone surrogate of a JavaScript
/// string becomes on its way into this memory), eight bytes at a time.
pub fn has_replacement(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut index = 0;
    while let Some((chunk, _)) = bytes.get(index..).and_then(<[u8]>::split_first_chunk::<8>) {
        let found = byte_flags(u64::from_le_bytes(*chunk), 0xEF);
        if found == 0 {
            index += 8;
            continue;
        }
        index += (found.trailing_zeros() / 8) as usize;
        if bytes
            .get(index..)
            .is_some_and(|rest| rest.starts_with("\u{FFFD}".as_bytes()))
        {
            return true;
        }
        index += 1;
    }
    let rest = bytes.get(index..).unwrap_or_default();
    rest.windows(3).any(|w| w == "\u{FFFD}".as_bytes())
}

/// The high bit of each byte of `word` below 0x20 (a control character;
/// exact for the lowest such byte, as [`byte_flags`]).
// Hot (every token of every scan): inlined even under `opt-level = "z"`.
#[inline(always)]
fn control_flags(word: u64) -> u64 {
    word.wrapping_sub(0x20 * ONES) & !word & HIGHS
}

/// The end of the string whose opening `"` is at `start` (the index after
/// its closing `"`), and whether it holds an escape. Checks escapes and
/// refuses raw control characters, as `JSON.parse` does.
pub(crate) fn string_end(bytes: &[u8], start: usize) -> Result<(usize, bool), Syntax> {
    let mut index = start + 1;
    let mut escaped = false;
    loop {
        // Eight bytes at a time (a plain load: `copy_from_slice` was a call
        // under `opt-level = "z"`, and most of a document is string bytes).
        while let Some((chunk, _)) = bytes.get(index..).and_then(<[u8]>::split_first_chunk::<8>) {
            let word = u64::from_le_bytes(*chunk);
            // The first quote, backslash or control character of the word
            // (the lowest flagged byte of each test is exact).
            let found = byte_flags(word, b'"') | byte_flags(word, b'\\') | control_flags(word);
            if found != 0 {
                index += (found.trailing_zeros() / 8) as usize;
                break;
            }
            index += 8;
        }
        match bytes.get(index).copied() {
            None => return syntax(index, "'\"' to end the string"),
            Some(b'"') => return Ok((index + 1, escaped)),
            Some(b'\\') => {
                escaped = true;
                match bytes.get(index + 1).copied() {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => index += 2,
                    Some(b'u') => {
                        for offset in 2..6 {
                            if !bytes.get(index + offset).is_some_and(u8::is_ascii_hexdigit) {
                                return syntax(index + offset, "four hex digits after '\\u'");
                            }
                        }
                        index += 6;
                    }
                    _ => return syntax(index + 1, "an escape ('\"', '\\', '/', b, f, n, r, t, u)"),
                }
            }
            Some(byte) if byte < 0x20 => {
                return syntax(index, "an escaped control character");
            }
            Some(_) => index += 1,
        }
    }
}

// Hot (every token of every scan): inlined even under `opt-level = "z"`.
#[inline(always)]
fn digits_end(bytes: &[u8], mut index: usize) -> usize {
    while bytes.get(index).is_some_and(u8::is_ascii_digit) {
        index += 1;
    }
    index
}

/// The end of the number starting at `start`, checked against the JSON
/// grammar `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn number_end(bytes: &[u8], start: usize) -> Result<usize, Syntax> {
    let mut index = start;
    if bytes.get(index) == Some(&b'-') {
        index += 1;
    }
    match bytes.get(index) {
        Some(b'0') => index += 1,
        Some(b'1'..=b'9') => index = digits_end(bytes, index + 1),
        _ => return syntax(index, "a digit"),
    }
    if bytes.get(index) == Some(&b'.') {
        let end = digits_end(bytes, index + 1);
        if end == index + 1 {
            return syntax(end, "a digit after '.'");
        }
        index = end;
    }
    if matches!(bytes.get(index), Some(b'e' | b'E')) {
        index += 1;
        if matches!(bytes.get(index), Some(b'+' | b'-')) {
            index += 1;
        }
        let end = digits_end(bytes, index);
        if end == index {
            return syntax(end, "a digit in the exponent");
        }
        index = end;
    }
    Ok(index)
}

fn literal_end(bytes: &[u8], start: usize, word: &'static [u8]) -> Result<usize, Syntax> {
    match bytes.get(start..start + word.len()) {
        Some(found) if found == word => Ok(start + word.len()),
        _ => syntax(start, "a value"),
    }
}

/// The end of the scalar (string, number, literal) at `start`.
#[inline]
pub(crate) fn scalar_end(bytes: &[u8], start: usize) -> Result<usize, Syntax> {
    match bytes.get(start).copied() {
        Some(b'"') => string_end(bytes, start).map(|(end, _)| end),
        Some(b'-' | b'0'..=b'9') => number_end(bytes, start),
        Some(b't') => literal_end(bytes, start, b"true"),
        Some(b'f') => literal_end(bytes, start, b"false"),
        Some(b'n') => literal_end(bytes, start, b"null"),
        _ => syntax(start, "a value"),
    }
}

/// Reads `"key"` and the `:` after it, from `index` (white space allowed
/// before each): the key's span (quotes included), whether it holds an
/// escape, and the index after the `:`.
#[inline]
pub(crate) fn key(bytes: &[u8], index: usize) -> Result<(usize, usize, bool, usize), Syntax> {
    let start = skip_space(bytes, index);
    if bytes.get(start) != Some(&b'"') {
        return syntax(start, "a key ('\"')");
    }
    let (end, escaped) = string_end(bytes, start)?;
    let colon = skip_space(bytes, end);
    if bytes.get(colon) != Some(&b':') {
        return syntax(colon, "':'");
    }
    Ok((start, end, escaped, colon + 1))
}

/// The index of the first byte of `word` (little-endian) that is `"` or
/// a backslash, if any. The lowest flagged byte of each test is exact.
// Hot (every string of a stored document): inlined even under `opt-level = "z"`.
#[inline(always)]
fn quote_or_backslash(word: u64) -> Option<usize> {
    let found = byte_flags(word, b'"') | byte_flags(word, b'\\');
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// [`string_end`] in text already checked (a stored document): finds the
/// closing quote and nothing else. On text that is not JSON it returns
/// some index up to `bytes.len()`, never panics.
#[inline(always)]
pub(crate) fn valid_string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut index = start + 1;
    let mut escaped = false;
    loop {
        while let Some((chunk, _)) = bytes.get(index..).and_then(<[u8]>::split_first_chunk::<8>) {
            match quote_or_backslash(u64::from_le_bytes(*chunk)) {
                Some(offset) => {
                    index += offset;
                    break;
                }
                None => index += 8,
            }
        }
        match bytes.get(index).copied() {
            // (An escape at the very end can take `index` past the end.)
            None => return (index.min(bytes.len()), escaped),
            Some(b'"') => return (index + 1, escaped),
            Some(b'\\') => {
                // `\u` and its four hex digits hold no quote: skipping the
                // escape's first two bytes is enough.
                escaped = true;
                index += 2;
            }
            Some(_) => index += 1,
        }
    }
}

/// [`key`] in text already checked: the key's span, whether it holds an
/// escape, and the index after the `:`.
#[inline(always)]
pub(crate) fn valid_key(bytes: &[u8], index: usize) -> (usize, usize, bool, usize) {
    let start = skip_space(bytes, index);
    let (end, escaped) = valid_string_end(bytes, start);
    (
        start,
        end,
        escaped,
        (skip_space(bytes, end) + 1).min(bytes.len()),
    )
}

/// [`value_end`] in text already checked (a stored document, validated
/// when it was stored): brackets and strings only, no checks, no stack.
/// Selecting from stored documents skips most of their bytes with it. On
/// text that is not JSON it returns some index up to `bytes.len()`, never
/// panics.
///
/// ```
/// use content_repo::json::{valid_value_end, value_end};
///
/// let text = br#"{"a": ["}", "\"]"], "b": {"c": 1e400}}, 2"#;
/// assert_eq!(Ok(valid_value_end(text, 0)), value_end(text, 0));
/// assert_eq!(valid_value_end(b" 12 ,", 0), 3);
/// ```
pub fn valid_value_end(bytes: &[u8], start: usize) -> usize {
    let mut index = skip_space(bytes, start);
    match bytes.get(index).copied() {
        Some(b'"') => return valid_string_end(bytes, index).0,
        Some(b'{' | b'[') => {}
        _ => {
            while bytes
                .get(index)
                .is_some_and(|&byte| !matches!(byte, b',' | b'}' | b']') && !is_space(byte))
            {
                index += 1;
            }
            return index;
        }
    }
    let mut depth = 0usize;
    loop {
        match bytes.get(index).copied() {
            None => return index,
            Some(b'"') => {
                index = valid_string_end(bytes, index).0;
                continue;
            }
            Some(b'{' | b'[') => depth += 1,
            Some(b'}' | b']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return index + 1;
                }
            }
            Some(_) => {}
        }
        index += 1;
    }
}

/// The end of the value at `start`: checked as [`value_end_within`] checks
/// it inside `levels` open containers, or, with `levels` `None`, scanned as
/// text already checked ([`valid_value_end`]). The one switch between the
/// two readings, for the scanners that read both.
pub(crate) fn value_end_as(
    bytes: &[u8],
    start: usize,
    levels: Option<usize>,
) -> Result<usize, Syntax> {
    match levels {
        Some(levels) => value_end_within(bytes, start, levels),
        None => Ok(valid_value_end(bytes, start)),
    }
}

/// [`key`] when `check`, else [`valid_key`] (text already checked).
pub(crate) fn key_as(
    bytes: &[u8],
    index: usize,
    check: bool,
) -> Result<(usize, usize, bool, usize), Syntax> {
    if check {
        key(bytes, index)
    } else {
        Ok(valid_key(bytes, index))
    }
}

/// The end of the JSON value that starts at `start` (after white space),
/// checked exactly as `JSON.parse` checks it, with nesting up to
/// [`MAX_DEPTH`]. Iterative: any depth costs one byte of heap per level.
pub fn value_end(bytes: &[u8], start: usize) -> Result<usize, Syntax> {
    value_end_within(bytes, start, 0)
}

/// [`value_end`] of a value inside `levels` arrays and objects that are
/// already open (a list's documents, say): they count toward
/// [`MAX_DEPTH`], so that a text read a piece at a time is refused exactly
/// when [`validate`] refuses it.
pub fn value_end_within(bytes: &[u8], start: usize, levels: usize) -> Result<usize, Syntax> {
    let mut stack = Open::default();
    let mut index = skip_space(bytes, start);
    'value: loop {
        index = skip_space(bytes, index);
        match bytes.get(index).copied() {
            Some(open @ (b'{' | b'[')) => {
                let close = if open == b'{' { b'}' } else { b']' };
                let next = skip_space(bytes, index + 1);
                if bytes.get(next) == Some(&close) {
                    index = next + 1;
                } else {
                    if stack.len() + levels >= MAX_DEPTH {
                        return syntax(index, "at most 100000 levels of nesting");
                    }
                    stack.push(open == b'{');
                    index = if open == b'{' {
                        key(bytes, next)?.3
                    } else {
                        next
                    };
                    continue 'value;
                }
            }
            _ => index = scalar_end(bytes, index)?,
        }
        // After a value: a comma continues the container, its bracket ends it.
        loop {
            let Some(object) = stack.last() else {
                return Ok(index);
            };
            let open = if object { b'{' } else { b'[' };
            index = skip_space(bytes, index);
            match (open, bytes.get(index).copied()) {
                (b'{', Some(b',')) => {
                    index = key(bytes, index + 1)?.3;
                    continue 'value;
                }
                (_, Some(b',')) => {
                    index += 1;
                    continue 'value;
                }
                (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                    stack.pop();
                    index += 1;
                }
                (b'{', _) => return syntax(index, "',' or '}'"),
                _ => return syntax(index, "',' or ']'"),
            }
        }
    }
}

/// The containers a scan is in, one bit each (set: an object): 64 levels
/// without allocating, deeper ones on the heap.
#[derive(Default)]
struct Open {
    depth: usize,
    low: u64,
    high: Vec<u64>,
}

impl Open {
    fn len(&self) -> usize {
        self.depth
    }

    fn word(&mut self, level: usize) -> Option<&mut u64> {
        match level / 64 {
            0 => Some(&mut self.low),
            word => {
                if self.high.len() < word {
                    self.high.push(0);
                }
                self.high.get_mut(word - 1)
            }
        }
    }

    fn push(&mut self, object: bool) {
        let level = self.depth;
        if let Some(word) = self.word(level) {
            let bit = 1u64 << (level % 64);
            if object {
                *word |= bit;
            } else {
                *word &= !bit;
            }
        }
        self.depth += 1;
    }

    fn last(&self) -> Option<bool> {
        let level = self.depth.checked_sub(1)?;
        let word = match level / 64 {
            0 => self.low,
            word => self.high.get(word - 1).copied().unwrap_or(0),
        };
        Some(word & (1u64 << (level % 64)) != 0)
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// Checks that `text` is one JSON value, white space around it allowed.
pub fn validate(text: &str) -> Result<(), Syntax> {
    let bytes = text.as_bytes();
    let end = value_end(bytes, 0)?;
    let rest = skip_space(bytes, end);
    if rest != bytes.len() {
        return syntax(rest, "the end of the text");
    }
    Ok(())
}

fn hex4(bytes: &[u8]) -> Option<u32> {
    let mut value = 0u32;
    for &byte in bytes.get(..4)? {
        value = value * 16 + char::from(byte).to_digit(16)?;
    }
    Some(value)
}

/// Appends code point `code` (a surrogate included) as generalized UTF-8.
fn push_code_point(out: &mut Vec<u8>, code: u32) {
    // Each shifted value is masked to its bits: the casts cannot truncate.
    let byte = |value: u32| (value & 0xFF) as u8;
    match code {
        0..=0x7F => out.push(byte(code)),
        0x80..=0x7FF => {
            out.extend_from_slice(&[byte(0xC0 | (code >> 6)), byte(0x80 | (code & 0x3F))]);
        }
        0x800..=0xFFFF => out.extend_from_slice(&[
            byte(0xE0 | (code >> 12)),
            byte(0x80 | ((code >> 6) & 0x3F)),
            byte(0x80 | (code & 0x3F)),
        ]),
        _ => out.extend_from_slice(&[
            byte(0xF0 | (code >> 18)),
            byte(0x80 | ((code >> 12) & 0x3F)),
            byte(0x80 | ((code >> 6) & 0x3F)),
            byte(0x80 | (code & 0x3F)),
        ]),
    }
}

/// Appends the JSON text `text` (valid UTF-8) with every character beyond
/// ASCII written as a `\u` escape (two for one beyond the BMP): the
/// same value for `JSON.parse`, as text that JavaScript decodes and parses
/// faster (a one-byte string; measured 12 ms against 42 ms to decode the
/// 16 MB of a 100,000-document answer). Beyond ASCII is only ever inside
/// strings, where an escape means the character. A byte that does not
/// start a UTF-8 character is written as U+FFFD.
pub fn push_ascii(out: &mut Vec<u8>, text: &[u8]) {
    let mut index = 0;
    loop {
        let start = index;
        while let Some((chunk, _)) = text.get(index..).and_then(<[u8]>::split_first_chunk::<8>) {
            if u64::from_le_bytes(*chunk) & HIGHS != 0 {
                break;
            }
            index += 8;
        }
        while text.get(index).is_some_and(u8::is_ascii) {
            index += 1;
        }
        out.extend_from_slice(text.get(start..index).unwrap_or_default());
        let Some(&lead) = text.get(index) else {
            return;
        };
        let (length, bits) = match lead {
            0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
            0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
            0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
            _ => (1, 0xFFFD),
        };
        let tail = text.get(index + 1..index + length).unwrap_or_default();
        let code = tail
            .iter()
            .fold(bits, |code, byte| (code << 6) | u32::from(byte & 0x3F));
        index += 1 + tail.len();
        let mut units = [0u16; 2];
        let units = char::from_u32(code)
            .unwrap_or(char::REPLACEMENT_CHARACTER)
            .encode_utf16(&mut units);
        for unit in units.iter() {
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(
                    HEX.get(usize::from((*unit >> shift) & 0xF))
                        .copied()
                        .unwrap_or(b'0'),
                );
            }
        }
    }
}

const HEX: [u8; 16] = *b"0123456789abcdef";

/// Decodes the inside of a valid JSON string (between its quotes) into
/// WTF-8: UTF-8, with each lone surrogate kept as its own code point. Byte
/// order of the result is code point order.
pub fn decode_string(raw: &[u8], out: &mut Vec<u8>) {
    let mut index = 0;
    while index < raw.len() {
        let run = raw
            .get(index..)
            .and_then(|rest| rest.iter().position(|byte| *byte == b'\\'))
            .map_or(raw.len(), |offset| index + offset);
        out.extend_from_slice(raw.get(index..run).unwrap_or_default());
        index = run;
        if index >= raw.len() {
            break;
        }
        let escape = raw.get(index + 1).copied().unwrap_or(b'\\');
        index += 2;
        let simple = match escape {
            b'b' => Some(0x08),
            b'f' => Some(0x0C),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            other => Some(other),
        };
        if let Some(byte) = simple {
            out.push(byte);
            continue;
        }
        let Some(code) = raw.get(index..).and_then(hex4) else {
            break;
        };
        index += 4;
        if (0xD800..0xDC00).contains(&code)
            && raw.get(index) == Some(&b'\\')
            && raw.get(index + 1) == Some(&b'u')
        {
            if let Some(low) = raw.get(index + 2..).and_then(hex4) {
                if (0xDC00..0xE000).contains(&low) {
                    push_code_point(out, 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00));
                    index += 6;
                    continue;
                }
            }
        }
        push_code_point(out, code);
    }
}

/// The decoded bytes of the string whose span (quotes included) is
/// `bytes[start..end]`: borrowed when it holds no escape.
pub(crate) fn string_bytes<'a>(
    bytes: &'a [u8],
    start: usize,
    end: usize,
    escaped: bool,
    scratch: &'a mut Vec<u8>,
) -> &'a [u8] {
    let raw = bytes
        .get(start + 1..end.saturating_sub(1))
        .unwrap_or_default();
    if !escaped {
        return raw;
    }
    scratch.clear();
    decode_string(raw, scratch);
    scratch
}

/// The decoded bytes (WTF-8) of the string whose opening `"` is at `start`,
/// and the index after its closing `"`: [`string_end`] and [`string_bytes`]
/// in one step. `scratch` holds the decoding of a string with escapes.
pub(crate) fn string_at<'a>(
    bytes: &'a [u8],
    start: usize,
    scratch: &'a mut Vec<u8>,
) -> Result<(&'a [u8], usize), Syntax> {
    let (end, escaped) = string_end(bytes, start)?;
    Ok((string_bytes(bytes, start, end, escaped, scratch), end))
}

/// One object being rewritten by [`normalize`]: its entries so far.
struct Entries {
    /// Decoded key, raw key text (with quotes), value text.
    entries: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    /// The position of each decoded key in `entries`.
    positions: crate::hash::Map<Vec<u8>, usize>,
    /// The entry whose value is being read.
    current: usize,
}

enum Level {
    Object(Entries),
    Array(Vec<u8>, usize),
}

/// Rewrites the JSON value `text` so that no object repeats a key, exactly
/// as `JSON.parse` reads it: a repeated key keeps the position of its first
/// occurrence and the value of its last. Everything else is copied as
/// written. Iterative, like [`value_end`].
pub fn normalize(text: &str) -> Result<String, Syntax> {
    let bytes = text.as_bytes();
    validate(text)?;
    let mut stack: Vec<Level> = Vec::new();
    let mut index = skip_space(bytes, 0);
    let mut finished: Vec<u8>;
    let mut scratch = Vec::new();
    'value: loop {
        index = skip_space(bytes, index);
        match bytes.get(index).copied() {
            Some(b'{') => {
                stack.push(Level::Object(Entries {
                    entries: Vec::new(),
                    positions: crate::hash::Map::default(),
                    current: 0,
                }));
                index += 1;
                if bytes.get(skip_space(bytes, index)) == Some(&b'}') {
                    index = skip_space(bytes, index) + 1;
                    finished = b"{}".to_vec();
                    stack.pop();
                } else {
                    index = open_entry(bytes, index, &mut stack, &mut scratch)?;
                    continue 'value;
                }
            }
            Some(b'[') => {
                index += 1;
                if bytes.get(skip_space(bytes, index)) == Some(&b']') {
                    index = skip_space(bytes, index) + 1;
                    finished = b"[]".to_vec();
                } else {
                    stack.push(Level::Array(vec![b'['], 0));
                    continue 'value;
                }
            }
            _ => {
                let end = scalar_end(bytes, index)?;
                finished = bytes.get(index..end).unwrap_or_default().to_vec();
                index = end;
            }
        }
        loop {
            match stack.last_mut() {
                None => {
                    return String::from_utf8(finished).map_err(|_| Syntax {
                        position: 0,
                        expected: "UTF-8 text",
                    })
                }
                Some(Level::Array(out, count)) => {
                    if *count > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&finished);
                    *count += 1;
                }
                Some(Level::Object(object)) => {
                    if let Some(entry) = object.entries.get_mut(object.current) {
                        entry.2 = std::mem::take(&mut finished);
                    }
                }
            }
            index = skip_space(bytes, index);
            match bytes.get(index).copied() {
                Some(b',') => {
                    index += 1;
                    if matches!(stack.last(), Some(Level::Object(_))) {
                        index = open_entry(bytes, index, &mut stack, &mut scratch)?;
                    }
                    continue 'value;
                }
                _ => {
                    index += 1;
                    finished = match stack.pop() {
                        Some(Level::Array(mut out, _)) => {
                            out.push(b']');
                            out
                        }
                        Some(Level::Object(object)) => {
                            let mut out = vec![b'{'];
                            for (position, (_, key, value)) in object.entries.iter().enumerate() {
                                if position > 0 {
                                    out.push(b',');
                                }
                                out.extend_from_slice(key);
                                out.push(b':');
                                out.extend_from_slice(value);
                            }
                            out.push(b'}');
                            out
                        }
                        None => Vec::new(),
                    };
                }
            }
        }
    }
}

/// Reads the key at `index` into the object on top of `stack` (a repeated
/// key reuses its first entry); returns the index of its value.
fn open_entry(
    bytes: &[u8],
    index: usize,
    stack: &mut [Level],
    scratch: &mut Vec<u8>,
) -> Result<usize, Syntax> {
    let (start, end, escaped, after) = key(bytes, index)?;
    let decoded = string_bytes(bytes, start, end, escaped, scratch).to_vec();
    if let Some(Level::Object(object)) = stack.last_mut() {
        match object.positions.get(&decoded) {
            Some(position) => object.current = *position,
            None => {
                let raw = bytes.get(start..end).unwrap_or_default().to_vec();
                object.current = object.entries.len();
                object.positions.insert(decoded.clone(), object.current);
                object.entries.push((decoded, raw, Vec::new()));
            }
        }
    }
    Ok(after)
}
