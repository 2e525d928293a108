//! An independent, plain recursive reference of JSON reading (as
//! `JSON.parse` reads it), field selection (SPEC.md section 3) and value
//! order (section 2), on a small tree type. Tests hold the engine (which
//! works on text, iteratively) against it.
#![allow(dead_code)]

use std::cmp::Ordering;

use content_repo::engine::order::parse_instant;
use content_repo::query::selection::Node;

/// A JSON value. Strings are UTF-16 code units (lone surrogates kept, as in
/// JavaScript); numbers keep their text.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(Vec<u16>),
    Arr(Vec<J>),
    /// Entries as written (repeats kept); see [`J::dedup`].
    Obj(Vec<(Vec<u16>, J)>),
}

pub fn s(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

impl J {
    /// The value as `JSON.parse` gives it: a repeated key keeps its first
    /// position and its last value.
    pub fn dedup(&self) -> J {
        match self {
            J::Arr(items) => J::Arr(items.iter().map(J::dedup).collect()),
            J::Obj(entries) => {
                let mut out: Vec<(Vec<u16>, J)> = Vec::new();
                for (key, value) in entries {
                    let value = value.dedup();
                    match out.iter_mut().find(|(known, _)| known == key) {
                        Some(slot) => slot.1 = value,
                        None => out.push((key.clone(), value)),
                    }
                }
                J::Obj(out)
            }
            other => other.clone(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| *k == s(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Writes a string with JSON escapes (lone surrogates as `\uXXXX`).
pub fn write_str(units: &[u16], out: &mut String, escape_all: bool) {
    out.push('"');
    for item in char::decode_utf16(units.iter().copied()) {
        match item {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok(c) if (c as u32) < 0x20 || (escape_all && !c.is_ascii_alphanumeric()) => {
                let mut buffer = [0u16; 2];
                for unit in c.encode_utf16(&mut buffer) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            Ok(c) => out.push(c),
            Err(error) => out.push_str(&format!("\\u{:04X}", error.unpaired_surrogate())),
        }
    }
    out.push('"');
}

pub fn write(value: &J, out: &mut String, spaced: bool) {
    let space = if spaced { " " } else { "" };
    match value {
        J::Null => out.push_str("null"),
        J::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        J::Num(text) => out.push_str(text),
        J::Str(units) => write_str(units, out, false),
        J::Arr(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    out.push_str(space);
                }
                write(item, out, spaced);
            }
            out.push(']');
        }
        J::Obj(entries) => {
            out.push('{');
            out.push_str(space);
            for (index, (key, item)) in entries.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    out.push_str(space);
                }
                write_str(key, out, spaced && key.len() % 3 == 0);
                out.push(':');
                out.push_str(space);
                write(item, out, spaced);
            }
            out.push_str(space);
            out.push('}');
        }
    }
}

pub fn text(value: &J) -> String {
    let mut out = String::new();
    write(value, &mut out, false);
    out
}

/// A recursive-descent reader of JSON text into [`J`], exactly the grammar
/// `JSON.parse` accepts (ECMA-404: numbers, escapes, no raw control
/// characters), for test depths only: see [`depth`].
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// The one JSON value that `text` is (white space around it allowed).
pub fn read(text: &str) -> Option<J> {
    let (value, end) = read_value(text)?;
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: end,
    };
    reader.space();
    (reader.at == reader.bytes.len()).then_some(value)
}

/// The JSON value at the start of `text` (after white space) and the index
/// after it.
pub fn read_value(text: &str) -> Option<(J, usize)> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = reader.value()?;
    Some((value, reader.at))
}

/// The deepest nesting of brackets outside strings in `bytes`, read without
/// recursion: an upper bound of how deep [`read`] and the other recursive
/// functions here go on it (they stop at the first error).
pub fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest, mut string, mut escape) = (0usize, 0usize, false, false);
    for &byte in bytes {
        match (string, escape, byte) {
            (true, true, _) => escape = false,
            (true, false, b'\\') => escape = true,
            (true, false, b'"') => string = false,
            (true, false, _) => {}
            (false, _, b'"') => string = true,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The generalized UTF-8 of UTF-16 units (a lone surrogate as its own code
/// point), as the engine decodes strings.
pub fn wtf8(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::new();
    for code in code_points(units) {
        match char::from_u32(code) {
            Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            None => out.extend_from_slice(&[
                0xE0 | (code >> 12) as u8,
                0x80 | ((code >> 6) & 0x3F) as u8,
                0x80 | (code & 0x3F) as u8,
            ]),
        }
    }
    out
}

/// Whether a string holds a surrogate without its pair.
pub fn has_lone_surrogate(units: &[u16]) -> bool {
    char::decode_utf16(units.iter().copied()).any(|item| item.is_err())
}

impl Reader<'_> {
    fn space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Option<J> {
        self.space();
        match *self.bytes.get(self.at)? {
            b'n' => self.word("null", J::Null),
            b't' => self.word("true", J::Bool(true)),
            b'f' => self.word("false", J::Bool(false)),
            b'"' => self.string().map(J::Str),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Some(J::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    match self.bytes.get(self.at)? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(J::Arr(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut entries = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Some(J::Obj(entries));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.space();
                    if self.bytes.get(self.at) != Some(&b':') {
                        return None;
                    }
                    self.at += 1;
                    entries.push((key, self.value()?));
                    self.space();
                    match self.bytes.get(self.at)? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(J::Obj(entries));
                        }
                        _ => return None,
                    }
                }
            }
            _ => self.number(),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Option<J> {
        let start = self.at;
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        let text = std::str::from_utf8(self.bytes.get(start..self.at)?).ok()?;
        Some(J::Num(text.to_owned()))
    }

    fn word(&mut self, word: &str, value: J) -> Option<J> {
        if self.bytes.get(self.at..self.at + word.len())? == word.as_bytes() {
            self.at += word.len();
            Some(value)
        } else {
            None
        }
    }

    fn string(&mut self) -> Option<Vec<u16>> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let byte = *self.bytes.get(self.at)?;
            match byte {
                b'"' => {
                    self.at += 1;
                    return Some(out);
                }
                b'\\' => {
                    let escape = *self.bytes.get(self.at + 1)?;
                    self.at += 2;
                    match escape {
                        b'u' => {
                            let hex = self.bytes.get(self.at..self.at + 4)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            let hex = std::str::from_utf8(hex).ok()?;
                            out.push(u16::from_str_radix(hex, 16).ok()?);
                            self.at += 4;
                        }
                        b'n' => out.push(10),
                        b't' => out.push(9),
                        b'r' => out.push(13),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'"' | b'\\' | b'/' => out.push(u16::from(escape)),
                        _ => return None,
                    }
                }
                0..=0x1F => return None,
                _ => {
                    let width = match byte {
                        0..=0x7F => 1,
                        0xC0..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        _ => 4,
                    };
                    let one =
                        std::str::from_utf8(self.bytes.get(self.at..self.at + width)?).ok()?;
                    let c = one.chars().next()?;
                    let mut buffer = [0u16; 2];
                    out.extend_from_slice(c.encode_utf16(&mut buffer));
                    self.at += c.len_utf8();
                }
            }
        }
    }
}

// ---------------------------------------------------------------- selection

/// The node for the elements of an array under `node` (SPEC §3): its `*`
/// child (the elements themselves, with the rest of the path) together
/// with its named children (applied to each element).
fn element_node(node: &Node) -> Node {
    match node.children().get("*") {
        None => node.clone(),
        Some(star) => {
            let mut merged = star.clone();
            for (name, child) in node.children() {
                if name != "*" {
                    let mut one = Node::default();
                    one.insert(name.clone(), child.clone());
                    merged.merge(one);
                }
            }
            merged
        }
    }
}

/// Applies a selection node to a (deduplicated) value; `None`: not selected.
pub fn apply(value: &J, node: &Node) -> Option<J> {
    if node.is_leaf() {
        return Some(value.clone());
    }
    match value {
        J::Obj(entries) => {
            let mut out = Vec::new();
            for (key, item) in entries {
                let name = String::from_utf16(key).ok();
                let named = name
                    .as_deref()
                    .and_then(|name| (name != "*").then(|| node.children().get(name)).flatten());
                let star = node.children().get("*");
                let sub = match (named, star) {
                    (Some(a), Some(b)) => {
                        let mut merged = a.clone();
                        merged.merge(b.clone());
                        merged
                    }
                    (Some(a), None) | (None, Some(a)) => a.clone(),
                    (None, None) => continue,
                };
                if let Some(selected) = apply(item, &sub) {
                    out.push((key.clone(), selected));
                }
            }
            Some(J::Obj(out))
        }
        J::Arr(items) if items.is_empty() => Some(J::Arr(Vec::new())),
        J::Arr(items) => {
            let element = element_node(node);
            let out: Vec<J> = items
                .iter()
                .filter_map(|item| apply(item, &element))
                .collect();
            (!out.is_empty()).then_some(J::Arr(out))
        }
        _ => None,
    }
}

/// Selects a document by the parts of a selection (`None`: whole).
pub fn select_document(document: &J, parts: Option<&content_repo::Parts>) -> J {
    let Some(parts) = parts else {
        return document.clone();
    };
    let J::Obj(entries) = document else {
        return document.clone();
    };
    let mut out = Vec::new();
    for (key, value) in entries {
        let selected = match String::from_utf16(key).ok().as_deref() {
            Some("fields") => parts.fields.as_ref().and_then(|node| apply(value, node)),
            Some("meta") => apply(value, &parts.meta),
            Some("includes") => match &parts.includes {
                Some(node) => apply(value, node),
                None => Some(value.clone()),
            },
            _ => None,
        };
        if let Some(selected) = selected {
            out.push((key.clone(), selected));
        }
    }
    J::Obj(out)
}

// ---------------------------------------------------------------- ordering

/// A number's exact value as `0.digits × 10^exponent` (`digits` without
/// leading or trailing zeros, empty for zero), with the exponent exact for
/// exponents written with any number of digits.
fn decimal(text: &str) -> (bool, String, Exponent) {
    let negative = text.starts_with('-');
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, "0"),
    };
    let written = Exponent::parse(exponent);
    let (int, frac) = match mantissa.find('.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, ""),
    };
    let all = format!("{int}{frac}");
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_owned();
    if digits.is_empty() {
        return (false, digits, Exponent::default());
    }
    let point = int.len() as i128 - leading as i128;
    (negative, digits, written.plus(point))
}

/// An integer of any size: a sign and its decimal digits, least significant
/// first, without leading zeros (none for zero, which is never negative).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Exponent {
    negative: bool,
    digits: Vec<u8>,
}

impl Exponent {
    /// An exponent as written (`+`/`-`, digits).
    fn parse(text: &str) -> Exponent {
        let negative = text.starts_with('-');
        let digits: Vec<u8> = text
            .trim_start_matches(['+', '-'])
            .bytes()
            .rev()
            .map(|b| b - b'0')
            .collect();
        Exponent { negative, digits }.normal()
    }

    fn normal(mut self) -> Exponent {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        self.negative &= !self.digits.is_empty();
        self
    }

    /// `self + small`, exactly.
    fn plus(self, small: i128) -> Exponent {
        let other = Exponent::parse(&small.to_string());
        if self.negative == other.negative {
            let mut digits = Vec::new();
            let mut carry = 0;
            for i in 0..self.digits.len().max(other.digits.len()) {
                let sum =
                    self.digits.get(i).unwrap_or(&0) + other.digits.get(i).unwrap_or(&0) + carry;
                digits.push(sum % 10);
                carry = sum / 10;
            }
            digits.push(carry);
            return Exponent {
                negative: self.negative,
                digits,
            }
            .normal();
        }
        // Signs differ: the larger magnitude minus the smaller, its sign.
        let (big, small) = match magnitude(&self.digits, &other.digits) {
            Ordering::Less => (other, self),
            _ => (self, other),
        };
        let mut digits = Vec::new();
        let mut borrow = 0i8;
        for i in 0..big.digits.len() {
            let mut digit = big.digits[i] as i8 - *small.digits.get(i).unwrap_or(&0) as i8 - borrow;
            borrow = i8::from(digit < 0);
            if digit < 0 {
                digit += 10;
            }
            digits.push(digit as u8);
        }
        Exponent {
            negative: big.negative,
            digits,
        }
        .normal()
    }
}

/// Compares magnitudes (least significant digit first, no leading zeros).
fn magnitude(a: &[u8], b: &[u8]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

impl Ord for Exponent {
    fn cmp(&self, other: &Exponent) -> Ordering {
        match (self.negative, other.negative) {
            (false, false) => magnitude(&self.digits, &other.digits),
            (true, true) => magnitude(&other.digits, &self.digits),
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
        }
    }
}

impl PartialOrd for Exponent {
    fn partial_cmp(&self, other: &Exponent) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// SPEC section 2: numbers by their exact value as written.
pub fn compare_numbers(a: &str, b: &str) -> Ordering {
    let (na, da, ea) = decimal(a);
    let (nb, db, eb) = decimal(b);
    let magnitude = match (da.is_empty(), db.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => ea.cmp(&eb).then_with(|| da.cmp(&db)),
    };
    let sign = |negative: bool, digits: &str| match (digits.is_empty(), negative) {
        (true, _) => 0,
        (false, true) => -1,
        (false, false) => 1,
    };
    match (sign(na, &da), sign(nb, &db)) {
        (1, 1) => magnitude,
        (-1, -1) => magnitude.reverse(),
        (x, y) => x.cmp(&y),
    }
}

pub fn code_points(units: &[u16]) -> Vec<u32> {
    char::decode_utf16(units.iter().copied())
        .map(|item| item.map_or_else(|error| u32::from(error.unpaired_surrogate()), u32::from))
        .collect()
}

fn instant(units: &[u16]) -> Option<i128> {
    let text = String::from_utf16(units).ok()?;
    parse_instant(text.as_bytes())
}

fn kind(value: &J) -> u8 {
    match value {
        J::Num(_) => 0,
        J::Str(units) if instant(units).is_some() => 1,
        J::Str(_) => 2,
        J::Obj(_) if matches!(value.get("plain"), Some(J::Str(_))) => 3,
        J::Obj(_)
            if matches!(
                (value.get("lat"), value.get("lng")),
                (Some(J::Num(_)), Some(J::Num(_)))
            ) =>
        {
            4
        }
        J::Obj(_) => 5,
        J::Arr(_) => 6,
        J::Bool(_) => 7,
        J::Null => 8,
    }
}

/// SPEC §2 value order (ascending), on deduplicated values.
pub fn compare(a: &J, b: &J) -> Ordering {
    let (ka, kb) = (kind(a), kind(b));
    if ka != kb {
        return ka.cmp(&kb);
    }
    match (a, b) {
        (J::Num(x), J::Num(y)) => compare_numbers(x, y),
        (J::Str(x), J::Str(y)) if ka == 1 => instant(x).cmp(&instant(y)),
        (J::Str(x), J::Str(y)) => code_points(x).cmp(&code_points(y)),
        (J::Bool(x), J::Bool(y)) => x.cmp(y),
        (J::Arr(x), J::Arr(y)) => {
            for (p, q) in x.iter().zip(y) {
                let order = compare(p, q);
                if order != Ordering::Equal {
                    return order;
                }
            }
            x.len().cmp(&y.len())
        }
        (J::Obj(_), J::Obj(_)) if ka == 3 => match (a.get("plain"), b.get("plain")) {
            (Some(J::Str(p)), Some(J::Str(q))) => code_points(p).cmp(&code_points(q)),
            _ => Ordering::Equal,
        },
        (J::Obj(_), J::Obj(_)) if ka == 4 => {
            let number = |value: &J, key: &str| match value.get(key) {
                Some(J::Num(text)) => text.clone(),
                _ => "0".into(),
            };
            compare_numbers(&number(a, "lat"), &number(b, "lat"))
                .then_with(|| compare_numbers(&number(a, "lng"), &number(b, "lng")))
        }
        (J::Obj(x), J::Obj(y)) => {
            let sorted = |entries: &Vec<(Vec<u16>, J)>| {
                let mut out: Vec<(Vec<u32>, J)> = entries
                    .iter()
                    .map(|(k, v)| (code_points(k), v.clone()))
                    .collect();
                out.sort_by(|p, q| p.0.cmp(&q.0));
                out
            };
            let (x, y) = (sorted(x), sorted(y));
            for ((kx, vx), (ky, vy)) in x.iter().zip(y.iter()) {
                let order = kx.cmp(ky).then_with(|| compare(vx, vy));
                if order != Ordering::Equal {
                    return order;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => Ordering::Equal,
    }
}

/// The `meta.id` order: decimal strings as numbers of any length, before
/// other strings (as text); other kinds by [`compare`], strings at the text
/// rank.
pub fn compare_ids(a: &J, b: &J) -> Ordering {
    let decimal =
        |units: &[u16]| !units.is_empty() && units.iter().all(|u| (0x30..=0x39).contains(u));
    match (a, b) {
        (J::Str(x), J::Str(y)) => match (decimal(x), decimal(y)) {
            (true, true) => {
                let strip = |u: &[u16]| {
                    u.iter()
                        .skip_while(|c| **c == 0x30)
                        .copied()
                        .collect::<Vec<u16>>()
                };
                let (p, q) = (strip(x), strip(y));
                p.len()
                    .cmp(&q.len())
                    .then_with(|| p.cmp(&q))
                    .then_with(|| code_points(x).cmp(&code_points(y)))
            }
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => code_points(x).cmp(&code_points(y)),
        },
        _ => {
            let rank = |v: &J| if matches!(v, J::Str(_)) { 2 } else { kind(v) };
            rank(a).cmp(&rank(b)).then_with(|| compare(a, b))
        }
    }
}
