//! Reading list text into the store without building the whole list as a
//! `serde_json::Value`: the text is framed into the byte ranges of its
//! documents, each document is parsed on its own (and dropped), and the
//! stored text is the input itself.
//!
//! Framing is a loose scan; validity is decided by serde_json: every
//! document range must parse, and so must the *skeleton* (the text with
//! each document replaced by `null`). A JSON value substituted for a value
//! of valid JSON keeps it valid, so both parsing means the whole text is
//! valid. When the skeleton does not have the expected shape (escaped or
//! repeated `data` keys, ...), the caller falls back to a full parse.

use std::ops::Range;

use serde_json::Value;

/// The documents of a list text: their byte ranges, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The byte range of each document.
    pub documents: Vec<Range<usize>>,
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_space(bytes: &[u8], mut index: usize) -> usize {
    while bytes.get(index).is_some_and(|byte| is_space(*byte)) {
        index += 1;
    }
    index
}

/// The index after the string starting at `index` (a `"`).
fn skip_string(bytes: &[u8], mut index: usize) -> Option<usize> {
    index += 1;
    loop {
        // Scan eight bytes at a time while none is `"` or `\`.
        while let Some(chunk) = bytes.get(index..index + 8) {
            let word = u64::from_le_bytes(chunk.try_into().ok()?);
            if has_byte(word, b'"') || has_byte(word, b'\\') {
                break;
            }
            index += 8;
        }
        match bytes.get(index)? {
            b'"' => return Some(index + 1),
            b'\\' => index += 2,
            _ => index += 1,
        }
    }
}

/// Whether any byte of `word` equals `byte` (the classic SWAR test).
fn has_byte(word: u64, byte: u8) -> bool {
    let x = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    (x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080) != 0
}

/// The index after the value starting at `index` (loosely: brackets are
/// counted, strings skipped, scalars run to a delimiter).
fn skip_value(bytes: &[u8], index: usize) -> Option<usize> {
    match bytes.get(index)? {
        b'"' => skip_string(bytes, index),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = index;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = skip_string(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            let mut at = index;
            while bytes
                .get(at)
                .is_some_and(|byte| !matches!(byte, b',' | b']' | b'}') && !is_space(*byte))
            {
                at += 1;
            }
            (at > index).then_some(at)
        }
    }
}

/// The element ranges of the array starting at `index` (a `[`), and the
/// index after it.
fn split_array(bytes: &[u8], index: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let mut elements = Vec::new();
    let mut at = skip_space(bytes, index + 1);
    if bytes.get(at) == Some(&b']') {
        return Some((elements, at + 1));
    }
    loop {
        let end = skip_value(bytes, at)?;
        elements.push(at..end);
        at = skip_space(bytes, end);
        match bytes.get(at)? {
            b',' => at = skip_space(bytes, at + 1),
            b']' => return Some((elements, at + 1)),
            _ => return None,
        }
    }
}

/// Frames a list text: a JSON array of documents or an envelope object with
/// a `data` array (and no `fields` key). `None` when the text is neither
/// (including a single document) or the scan is not conclusive.
pub fn frame(text: &str) -> Option<Frame> {
    let bytes = text.as_bytes();
    let start = skip_space(bytes, 0);
    let (documents, end) = match bytes.get(start)? {
        b'[' => split_array(bytes, start)?,
        b'{' => frame_envelope(bytes, start)?,
        _ => return None,
    };
    if skip_space(bytes, end) != bytes.len() {
        return None;
    }
    Some(Frame { documents })
}

fn frame_envelope(bytes: &[u8], start: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let mut documents = None;
    let mut at = skip_space(bytes, start + 1);
    if bytes.get(at) == Some(&b'}') {
        return None;
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(bytes, at)?;
        let key = bytes.get(at + 1..key_end - 1)?;
        if key.contains(&b'\\') {
            // An escaped key could spell `data`: let serde_json decide.
            return None;
        }
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(bytes, at + 1);
        match key {
            b"fields" => return None,
            b"data" if bytes.get(at) == Some(&b'[') => {
                if documents.is_some() {
                    return None;
                }
                let (elements, end) = split_array(bytes, at)?;
                documents = Some(elements);
                at = end;
            }
            _ => at = skip_value(bytes, at)?,
        }
        at = skip_space(bytes, at);
        match bytes.get(at)? {
            b',' => at = skip_space(bytes, at + 1),
            b'}' => return Some((documents?, at + 1)),
            _ => return None,
        }
    }
}

/// The skeleton of `text`: each range replaced by `null`.
pub fn skeleton(text: &str, documents: &[Range<usize>]) -> Option<String> {
    let mut out = String::with_capacity(64 + documents.len() * 5);
    let mut at = 0;
    for range in documents {
        out.push_str(text.get(at..range.start)?);
        out.push_str("null");
        at = range.end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
}

/// Whether the parsed skeleton has `count` `null`s exactly where the frame
/// put its documents (its `data` array, or the top-level array), so that the
/// frame and serde_json read the text the same way.
pub fn skeleton_matches(skeleton: &Value, count: usize) -> bool {
    let data = match skeleton {
        Value::Array(items) => items,
        Value::Object(map) => match map.get("data") {
            Some(Value::Array(items)) if !map.contains_key("fields") => items,
            _ => return false,
        },
        _ => return false,
    };
    data.len() == count && data.iter().all(Value::is_null)
}
