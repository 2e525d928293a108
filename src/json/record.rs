//! Small JSON records the crate writes and reads itself (the offline
//! cache's entry headers and lists): a writer that escapes strings as
//! `JSON.stringify` does, and a reader of one object's top-level fields on
//! the scanner. No serialization framework is compiled in for them.
//!
//! ```
//! use content_repo::json::record::{Record, Writer};
//!
//! let mut writer = Writer::new();
//! writer.string("url", "a\"b").number("at", 1_700_000_000_000.0).strings("ids", ["1", "2"]);
//! let text = writer.finish();
//! assert_eq!(text, r#"{"url":"a\"b","at":1700000000000,"ids":["1","2"]}"#);
//! let record = Record::parse(&text).unwrap();
//! assert_eq!(record.string("url").as_deref(), Some("a\"b"));
//! assert_eq!(record.number("at"), Some(1_700_000_000_000.0));
//! assert_eq!(record.strings("ids"), Some(vec!["1".to_owned(), "2".to_owned()]));
//! ```

use std::fmt::Write as _;
use std::ops::Range;

use super::{skip_space, string_at, Syntax};
use crate::engine::list::{entries, frame, Shape};

/// `text` as a JSON string, as error messages quote what they refuse.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    out
}

/// Appends `text` as a JSON string.
pub(crate) fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes one JSON object, field by field.
#[derive(Debug)]
pub struct Writer {
    out: String,
}

impl Default for Writer {
    fn default() -> Self {
        Writer::new()
    }
}

impl Writer {
    /// An empty object.
    pub fn new() -> Self {
        Writer {
            out: String::from("{"),
        }
    }

    fn name(&mut self, name: &str) {
        if self.out.len() > 1 {
            self.out.push(',');
        }
        write_string(&mut self.out, name);
        self.out.push(':');
    }

    /// A string field.
    pub fn string(&mut self, name: &str, value: &str) -> &mut Self {
        self.name(name);
        write_string(&mut self.out, value);
        self
    }

    /// A string field, or `null`.
    pub fn optional(&mut self, name: &str, value: Option<&str>) -> &mut Self {
        match value {
            Some(value) => self.string(name, value),
            None => self.raw(name, "null"),
        }
    }

    /// A number field (a non-finite number is written as `0`).
    pub fn number(&mut self, name: &str, value: f64) -> &mut Self {
        self.name(name);
        if value.is_finite() {
            crate::num::write_f64(&mut self.out, value);
        } else {
            self.out.push('0');
        }
        self
    }

    /// A field whose value is already JSON text.
    pub fn raw(&mut self, name: &str, json: &str) -> &mut Self {
        self.name(name);
        self.out.push_str(json);
        self
    }

    /// An array of strings.
    pub fn strings<'a>(
        &mut self,
        name: &str,
        values: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        self.name(name);
        self.out.push('[');
        for (index, value) in values.into_iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            write_string(&mut self.out, value);
        }
        self.out.push(']');
        self
    }

    /// The object's text.
    pub fn finish(mut self) -> String {
        self.out.push('}');
        self.out
    }
}

/// One JSON object's top-level fields (the last of a repeated name).
#[derive(Debug)]
pub struct Record<'a> {
    text: &'a str,
    fields: Vec<(Vec<u8>, Range<usize>)>,
}

impl<'a> Record<'a> {
    /// Reads the object `text` (checked as JSON).
    pub fn parse(text: &'a str) -> Result<Record<'a>, Syntax> {
        if !matches!(frame(text)?, Shape::Object | Shape::Envelope { .. }) {
            return Err(Syntax {
                position: 0,
                expected: "an object",
            });
        }
        let bytes = text.as_bytes();
        let mut fields = Vec::new();
        entries(bytes, skip_space(bytes, 0), |name, _, value| {
            let end = super::value_end(bytes, value)?;
            fields.push((name.to_vec(), value..end));
            Ok(end)
        })?;
        Ok(Record { text, fields })
    }

    /// The text of field `name`'s value.
    pub fn raw(&self, name: &str) -> Option<&'a str> {
        let (_, range) = self
            .fields
            .iter()
            .rev()
            .find(|(known, _)| known == name.as_bytes())?;
        self.text.get(range.clone())
    }

    /// A string field (lone surrogates become U+FFFD).
    pub fn string(&self, name: &str) -> Option<String> {
        decode(self.raw(name)?)
    }

    /// A number field.
    pub fn number(&self, name: &str) -> Option<f64> {
        let raw = self.raw(name)?;
        // A JSON number starts so (the text is valid JSON).
        if !matches!(raw.as_bytes().first(), Some(b'-' | b'0'..=b'9')) {
            return None;
        }
        Some(crate::num::parse_f64(raw))
    }

    /// An array of strings.
    pub fn strings(&self, name: &str) -> Option<Vec<String>> {
        let raw = self.raw(name)?;
        let Shape::Array(items) = frame(raw).ok()? else {
            return None;
        };
        items
            .into_iter()
            .map(|range| decode(raw.get(range)?))
            .collect()
    }

    /// The entries of an object field: name (decoded) and value text.
    pub fn object(&self, name: &str) -> Option<Vec<(String, &'a str)>> {
        let raw = self.raw(name)?;
        let bytes = raw.as_bytes();
        if bytes.first() != Some(&b'{') {
            return None;
        }
        let mut out = Vec::new();
        entries(bytes, 0, |key, _, value| {
            let end = super::value_end(bytes, value)?;
            out.push((
                String::from_utf8_lossy(key).into_owned(),
                raw.get(value..end).unwrap_or("null"),
            ));
            Ok(end)
        })
        .ok()?;
        Some(out)
    }
}

/// The decoded text of a JSON string's text.
fn decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut scratch = Vec::new();
    let (text, _) = string_at(bytes, 0, &mut scratch).ok()?;
    Some(String::from_utf8_lossy(text).into_owned())
}
