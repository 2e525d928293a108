//! Generators of fuzz inputs (proptest strategies): JSON texts of every
//! kind `JSON.parse` accepts (deep, wide, lone surrogates, numbers beyond
//! `f64`, repeated keys, `__proto__`, any white space and escaping) and
//! texts it refuses (random bytes, truncations and mutations of valid
//! texts); selections, sort keys and query strings, valid and not.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::sample::Index;

use crate::json_ref::{s, J};

// ------------------------------------------------------------------ writing

/// Choices for writing a value: white space between tokens and how each
/// character of a string is escaped, read in turn (cycling).
pub struct Style<'a> {
    bits: &'a [u8],
    at: usize,
}

impl<'a> Style<'a> {
    pub fn new(bits: &'a [u8]) -> Self {
        Style { bits, at: 0 }
    }

    fn next(&mut self) -> u8 {
        if self.bits.is_empty() {
            return 0;
        }
        let bit = self.bits[self.at % self.bits.len()];
        self.at += 1;
        bit
    }

    fn space(&mut self, out: &mut String) {
        out.push_str(match self.next() % 16 {
            10 => " ",
            11 => "\n",
            12 => "\t",
            13 => "\r\n",
            14 => "  ",
            15 => " \t\n\r ",
            _ => "",
        });
    }
}

fn escape_unit(unit: u16, upper: bool, out: &mut String) {
    if upper {
        out.push_str(&format!("\\u{unit:04X}"));
    } else {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// Writes a string, each character raw or escaped as `style` says (always
/// escaped where JSON requires it).
pub fn write_string(units: &[u16], out: &mut String, style: &mut Style<'_>) {
    out.push('"');
    for item in char::decode_utf16(units.iter().copied()) {
        let choice = style.next();
        let upper = choice & 1 == 1;
        match item {
            Err(lone) => escape_unit(lone.unpaired_surrogate(), upper, out),
            Ok(c) => {
                let short = match c {
                    '"' => Some("\\\""),
                    '\\' => Some("\\\\"),
                    '\u{8}' => Some("\\b"),
                    '\u{c}' => Some("\\f"),
                    '\n' => Some("\\n"),
                    '\r' => Some("\\r"),
                    '\t' => Some("\\t"),
                    '/' if choice % 4 == 2 => Some("\\/"),
                    _ => None,
                };
                let must = c < ' ' || c == '"' || c == '\\';
                match short {
                    Some(text) if choice % 3 != 0 || !must => out.push_str(text),
                    _ if must || choice % 5 == 4 => {
                        let mut buffer = [0u16; 2];
                        for unit in c.encode_utf16(&mut buffer) {
                            escape_unit(*unit, upper, out);
                        }
                    }
                    _ => out.push(c),
                }
            }
        }
    }
    out.push('"');
}

/// Writes `value` as JSON text with the white space and escapes of `style`.
pub fn write(value: &J, out: &mut String, style: &mut Style<'_>) {
    match value {
        J::Null => out.push_str("null"),
        J::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        J::Num(text) => out.push_str(text),
        J::Str(units) => write_string(units, out, style),
        J::Arr(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                style.space(out);
                if index > 0 {
                    out.push(',');
                    style.space(out);
                }
                write(item, out, style);
            }
            style.space(out);
            out.push(']');
        }
        J::Obj(entries) => {
            out.push('{');
            for (index, (key, item)) in entries.iter().enumerate() {
                style.space(out);
                if index > 0 {
                    out.push(',');
                    style.space(out);
                }
                write_string(key, out, style);
                style.space(out);
                out.push(':');
                style.space(out);
                write(item, out, style);
            }
            style.space(out);
            out.push('}');
        }
    }
}

/// `value` as text written with `bits` (white space around it too).
pub fn styled_text(value: &J, bits: &[u8]) -> String {
    let mut style = Style::new(bits);
    let mut out = String::new();
    style.space(&mut out);
    write(value, &mut out, &mut style);
    style.space(&mut out);
    out
}

// ------------------------------------------------------------------ values

/// Numbers as written: small, `-0`, 30-digit integers, beyond `f64` both
/// ways (`1e400`, `1E-400`), exponents beyond `i64`, long fractions.
pub fn number() -> BoxedStrategy<String> {
    prop_oneof![
        3 => (-30i64..30).prop_map(|n| n.to_string()),
        2 => prop::sample::select(vec![
            "-0", "0", "0.0", "-0.0e-0", "0e5", "1e400", "-1e400", "1E-400", "-1E-400", "1e308",
            "1.7976931348623157e308", "1.7976931348623159e308", "-1.7976931348623157E+308",
            "5e-324", "2.4703282292062328e-324", "9007199254740993", "9007199254740992.5",
            "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890",
            "1e99999999999999999999", "-1e-99999999999999999999", "0e99999999999999999999999",
            "0.000000000000000000000000000001", "1.000000000000000000000000000001", "1E2",
            "100.0", "10e1", "1e+2",
        ])
        .prop_map(str::to_owned),
        2 => (1u8..10, prop::collection::vec(0u8..10, 10..40), any::<bool>()).prop_map(
            |(first, rest, negative)| {
                let digits: String = rest.iter().map(|d| char::from(b'0' + d)).collect();
                format!("{}{first}{digits}", if negative { "-" } else { "" })
            }
        ),
        2 => (-999i32..1000, 0u32..1000, -420i32..420, any::<bool>()).prop_map(
            |(int, fraction, exponent, upper)| {
                let e = if upper { 'E' } else { 'e' };
                format!("{int}.{fraction:03}{e}{exponent}")
            }
        ),
        2 => beyond_exponent_bound(),
    ]
    .boxed()
}

/// Numbers whose exponents are near or beyond 10^17, 10^18, 2^62 and `i64`, a few apart,
/// their mantissas' points moved so that equal values are written
/// differently (`10e99999999999999999998` is `1e99999999999999999999`).
pub fn beyond_exponent_bound() -> BoxedStrategy<String> {
    let bases: [i128; 8] = [
        100_000_000_000_000_000,
        1_000_000_000_000_000_000,
        1 << 62,
        i64::MAX as i128,
        99_999_999_999_999_999_999,
        10_000_000_000_000_000_000_000,
        123_456_789_012_345_678_901_234_567_890,
        99_999_999_999_999_999_999_999_999_999_999,
    ];
    (
        prop::sample::select(bases.to_vec()),
        -3i128..4,
        any::<bool>(),
        prop::sample::select(vec![
            "1", "10", "0.1", "1.5", "15", "0.015", "-2", "-20.0", "0",
        ]),
        prop::sample::select(vec!["", "+", "0"]),
    )
        .prop_map(|(base, delta, below, mantissa, prefix)| {
            let exponent = base + delta;
            let sign = if below { "-" } else { prefix };
            format!("{mantissa}e{sign}{exponent}")
        })
        .boxed()
}

/// A string's UTF-16 units: ASCII, controls, quotes and backslashes,
/// characters outside ASCII and the BMP, lone surrogates of both halves.
pub fn units() -> BoxedStrategy<Vec<u16>> {
    prop_oneof![
        4 => prop::collection::vec(
            prop_oneof![
                6 => 0x20u16..0x7f,
                1 => 0u16..0x20,
                1 => prop::sample::select(vec![
                    0x22u16, 0x5c, 0x2f, 0x7f, 0xe9, 0x2028, 0xfffd, 0xfeff, 0xffff,
                    0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd867, 0xd83d, 0xde00,
                ]),
            ],
            0..8
        ),
        1 => prop::sample::select(vec![
            "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", "2023-12-31T23:59:59.999999999Z",
            "2024-02-30T00:00:00Z", "2024-01-01T00:00:00z", "Zebra", "apple", "😀", "é", "e\u{301}",
            "", "0", "007", "18446744073709551616",
        ])
        .prop_map(s),
    ]
    .boxed()
}

/// Object keys: a small pool (so that keys repeat), scopes, `__proto__`,
/// `*`, the empty key, one with a lone surrogate.
pub fn key() -> BoxedStrategy<Vec<u16>> {
    prop_oneof![
        8 => prop::sample::select(vec![
            "a", "b", "x", "*", "__proto__", "constructor", "", "plain", "lat", "lng", "title",
            "data", "meta", "fields", "includes", "id", "revision", "createdAt", "contentType",
            "é", "0", "10", "total", "message", "error",
        ])
        .prop_map(s),
        1 => Just(vec![0x61, 0xd800]),
        1 => units(),
    ]
    .boxed()
}

pub fn leaf() -> BoxedStrategy<J> {
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        3 => number().prop_map(J::Num),
        3 => units().prop_map(J::Str),
    ]
    .boxed()
}

/// Any value, a few levels deep (deep nesting has its own generator).
pub fn value() -> BoxedStrategy<J> {
    leaf()
        .prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
                prop::collection::vec((key(), inner), 0..6).prop_map(J::Obj),
            ]
        })
        .boxed()
}

/// A value over three keys (`a`, `b`, `x`), arrays of objects and arrays
/// often: the shapes where `*` and names read differently (SPEC.md
/// section 3), for selections over the same names.
pub fn shaped() -> BoxedStrategy<J> {
    let leaf = prop_oneof![
        Just(J::Null),
        (0u8..3).prop_map(|n| J::Num(n.to_string())),
        Just(J::Str(s("s")))
    ];
    leaf.prop_recursive(4, 48, 3, |inner| {
        let object = (prop::option::weighted(0.7, inner.clone()), prop::option::weighted(0.7, inner.clone()), prop::option::weighted(0.7, inner.clone()))
            .prop_map(|(a, b, x)| {
                J::Obj([("a", a), ("b", b), ("x", x)].into_iter().filter_map(|(key, value)| Some((s(key), value?))).collect())
            });
        prop_oneof![
            2 => prop::collection::vec(prop_oneof![3 => object.clone(), 1 => inner], 1..3).prop_map(J::Arr),
            3 => object,
        ]
    })
    .boxed()
}

/// A document whose `fields` are [`shaped`].
pub fn shaped_document() -> BoxedStrategy<J> {
    (shaped(), 0u32..5)
        .prop_map(|(fields, id)| {
            J::Obj(vec![
                (s("fields"), fields),
                (
                    s("meta"),
                    J::Obj(vec![
                        (s("id"), J::Str(s(&id.to_string()))),
                        (s("revision"), J::Num("1".into())),
                    ]),
                ),
            ])
        })
        .boxed()
}

/// A `meta.id`: digit strings of any length, text, a lone surrogate, a
/// number; rarely none that the store accepts (`""`, `null`, `true`).
pub fn id() -> BoxedStrategy<J> {
    prop_oneof![
        8 => (0u32..12).prop_map(|n| J::Str(s(&n.to_string()))),
        2 => prop::sample::select(vec!["007", "x1", "99999999999999999999", "é", "a b"])
            .prop_map(|text| J::Str(s(text))),
        1 => Just(J::Str(vec![0x69, 0xd867])),
        1 => prop::sample::select(vec!["7", "-0", "1.0", "1e400"]).prop_map(|n| J::Num(n.into())),
        1 => prop::sample::select(vec![J::Str(Vec::new()), J::Null, J::Bool(true)]),
    ]
    .boxed()
}

/// A document `{ fields, meta: { id, revision, createdAt, contentType } }`
/// with the usual oddities: repeated keys (also `fields` and `meta`),
/// `__proto__`, extra keys, a revision that is not a number.
pub fn document() -> BoxedStrategy<J> {
    let revision = prop_oneof![
        4 => (0u32..4).prop_map(|n| J::Num(n.to_string())),
        1 => prop::sample::select(vec!["1.0", "-1", "1e400", "2E0"]).prop_map(|n| J::Num(n.into())),
        1 => Just(J::Str(s("2"))),
        1 => Just(J::Null),
    ];
    let created = prop_oneof![
        3 => prop::sample::select(vec![
            "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00", "2023-06-01T00:00:00.5Z",
        ])
        .prop_map(|text| J::Str(s(text))),
        1 => leaf(),
    ];
    let content_type = prop::sample::select(vec!["a", "b"]).prop_map(|text| J::Str(s(text)));
    (
        prop::collection::vec((key(), value()), 0..6),
        id(),
        prop::option::of(revision),
        prop::option::of(created),
        prop::option::of(content_type),
        prop::collection::vec((key(), leaf()), 0..2),
        0u8..8,
    )
        .prop_map(
            |(fields, id, revision, created, content_type, extra, shape)| {
                let mut meta = vec![(s("id"), id)];
                for (name, value) in [
                    ("revision", revision),
                    ("createdAt", created),
                    ("contentType", content_type),
                ] {
                    if let Some(value) = value {
                        meta.push((s(name), value));
                    }
                }
                let meta = J::Obj(meta);
                let mut entries = vec![(s("fields"), J::Obj(fields)), (s("meta"), meta.clone())];
                match shape {
                    // `meta` written twice: the last one counts.
                    0 => {
                        entries.insert(0, (s("meta"), J::Obj(vec![(s("id"), J::Str(s("first")))])))
                    }
                    1 => {
                        entries.push((s("__proto__"), J::Obj(vec![(s("polluted"), J::Bool(true))])))
                    }
                    2 => entries.extend(extra),
                    3 => entries.reverse(),
                    _ => {}
                }
                J::Obj(entries)
            },
        )
        .boxed()
}

/// A list response: an array of documents, or an envelope `{ data, meta,
/// includes, ... }`, sometimes with repeated or misplaced keys.
pub fn list() -> BoxedStrategy<J> {
    (
        prop::collection::vec(document(), 0..8),
        0u8..10,
        prop::option::of(value()),
        prop::collection::vec(leaf(), 0..3),
    )
        .prop_map(|(documents, shape, includes, junk)| {
            let count = J::Num(documents.len().to_string());
            let data = J::Arr(documents);
            let meta = J::Obj(vec![(s("total"), count.clone()), (s("count"), count)]);
            match shape {
                0..=2 => data,
                // Elements that are not documents.
                3 => match data {
                    J::Arr(mut items) => {
                        items.extend(junk);
                        J::Arr(items)
                    }
                    other => other,
                },
                // `data` written twice; the last one counts.
                4 => J::Obj(vec![(s("data"), J::Num("1".into())), (s("data"), data)]),
                5 => J::Obj(vec![(s("data"), data), (s("data"), J::Null)]),
                // An object with `fields` is a document, not an envelope.
                6 => J::Obj(vec![(s("data"), data), (s("fields"), J::Obj(Vec::new()))]),
                _ => {
                    let mut entries = vec![(s("data"), data), (s("meta"), meta)];
                    if let Some(includes) = includes {
                        entries.push((s("includes"), includes));
                    }
                    entries.push((s("__proto__"), J::Num("1".into())));
                    J::Obj(entries)
                }
            }
        })
        .boxed()
}

/// An error body of the service: `message` and `error` (a string, or an
/// object with a `message`), of any type, repeated.
pub fn error_body() -> BoxedStrategy<J> {
    let message = prop_oneof![units().prop_map(J::Str), leaf()];
    let error = prop_oneof![
        units().prop_map(J::Str),
        prop::collection::vec(
            (
                prop::sample::select(vec!["message", "code"]).prop_map(s),
                message.clone()
            ),
            0..3
        )
        .prop_map(J::Obj),
        leaf(),
    ];
    prop::collection::vec(
        prop_oneof![
            message.prop_map(|value| (s("message"), value)),
            error.prop_map(|value| (s("error"), value)),
            leaf().prop_map(|value| (s("status"), value)),
        ],
        0..4,
    )
    .prop_map(J::Obj)
    .boxed()
}

/// `value` written in some style.
pub fn styled(value: impl Strategy<Value = J>) -> impl Strategy<Value = (J, String)> {
    (value, prop::collection::vec(any::<u8>(), 0..24)).prop_map(|(value, bits)| {
        let text = styled_text(&value, &bits);
        (value, text)
    })
}

// ------------------------------------------------------------------ texts

/// `depth` levels of nesting around `inner`: arrays, objects, or both.
pub fn nest(depth: usize, kind: u8, inner: &str) -> String {
    let (open, close): (&str, &str) = match kind % 4 {
        0 => ("[", "]"),
        1 => (r#"{"a":"#, "}"),
        2 => (r#"[{"a":"#, "}]"),
        _ => (r#"{"*":[1,"#, "]}"),
    };
    let mut out = String::with_capacity(depth * (open.len() + close.len()) + inner.len());
    for _ in 0..depth {
        out.push_str(open);
    }
    out.push_str(inner);
    for _ in 0..depth {
        out.push_str(close);
    }
    out
}

/// A depth for deep texts: shallow, thousands, about 10,000 (the depth
/// SPEC.md section 4 asks for).
pub fn depth() -> BoxedStrategy<usize> {
    prop_oneof![
        2 => 0usize..64,
        3 => 500usize..3_000,
        3 => 9_990usize..10_010,
    ]
    .boxed()
}

/// Levels of nesting each unit of [`nest`]'s depth adds, by kind.
pub fn levels_per_unit(kind: u8) -> usize {
    if kind % 4 < 2 {
        1
    } else {
        2
    }
}

/// A deep text, alone or as a field of documents in a list, and how many
/// levels of arrays and objects it nests.
pub fn deep() -> BoxedStrategy<(String, usize)> {
    deep_of(depth())
}

/// Arrays nested about as deep as the scanner reads (`MAX_DEPTH`, 100,000
/// levels), just within it and just beyond.
pub fn deepest() -> BoxedStrategy<(String, usize)> {
    (99_996usize..=100_001, 0u8..2)
        .prop_map(|(depth, wrap)| {
            let deep = nest(depth, 0, "1");
            match wrap {
                0 => (deep, depth),
                _ => (
                    format!(r#"[{{"fields":{{"a":{deep}}},"meta":{{"id":"1"}}}}]"#),
                    depth + 3,
                ),
            }
        })
        .boxed()
}

fn deep_of(depth: BoxedStrategy<usize>) -> BoxedStrategy<(String, usize)> {
    (depth, 0u8..4, prop::sample::select(vec!["1", "null", r#""x""#, "[]", "{}", "1e400"]), 0u8..3)
        .prop_map(|(depth, kind, inner, wrap)| {
            let deep = nest(depth, kind, inner);
            let levels = depth * levels_per_unit(kind);
            match wrap {
                0 => (deep, levels),
                1 => (
                    format!(r#"[{{"fields":{{"a":{deep},"b":1}},"meta":{{"id":"1"}}}},{{"fields":{{"a":0}},"meta":{{"id":"2"}}}}]"#),
                    levels + 3,
                ),
                _ => (
                    format!(r#"{{"data":[{{"fields":{{"a":{deep}}},"meta":{{"id":"1","createdAt":{deep}}}}}],"includes":{deep}}}"#),
                    levels + 4,
                ),
            }
        })
        .boxed()
}

/// A wide text: thousands of elements or entries, or one key repeated
/// thousands of times.
pub fn wide() -> BoxedStrategy<String> {
    (200usize..2_000, 0u8..4, leaf(), any::<u8>())
        .prop_map(|(count, kind, value, bits)| {
            let item = styled_text(&value, &[bits]);
            let mut out = String::new();
            match kind {
                0 => {
                    out.push('[');
                    for index in 0..count {
                        if index > 0 {
                            out.push(',');
                        }
                        out.push_str(&item);
                    }
                    out.push(']');
                }
                1 | 2 => {
                    out.push_str(r#"[{"fields":{"#);
                    for index in 0..count {
                        if index > 0 {
                            out.push(',');
                        }
                        if kind == 1 {
                            out.push_str(&format!(r#""k{index}":{item}"#));
                        } else {
                            out.push_str(&format!(r#""a":{item}"#));
                        }
                    }
                    out.push_str(r#"},"meta":{"id":"1"}}]"#);
                }
                _ => {
                    out.push('[');
                    for index in 0..count {
                        if index > 0 {
                            out.push(',');
                        }
                        out.push_str(&format!(
                            r#"{{"fields":{{"a":{item}}},"meta":{{"id":"{}"}}}}"#,
                            index % 97
                        ));
                    }
                    out.push(']');
                }
            }
            out
        })
        .boxed()
}

/// Bytes that are interesting to a JSON scanner.
const JSON_BYTES: &[u8] =
    b"{}[],:\"\\ \t\n\r0123456789.eE+-tfnrulsaxX/\x00\x1f\x7f\xc3\xa9\xed\xa0\x80\xff";

/// One change to a text: where (a fraction of its length), what, which byte.
pub type Mutation = (Index, u8, u8);

/// Applies `mutations` to `text`: truncation, deletion, insertion,
/// replacement, duplication of a slice.
pub fn mutate(text: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut out = text.to_vec();
    for (at, op, byte) in mutations {
        let byte = JSON_BYTES[usize::from(*byte) % JSON_BYTES.len()];
        let at = if out.is_empty() {
            0
        } else {
            at.index(out.len() + 1)
        };
        match op % 6 {
            0 => out.truncate(at),
            1 if at < out.len() => {
                out.remove(at);
            }
            2 if at < out.len() => out[at] = byte,
            3 => {
                let slice: Vec<u8> = out[at..].iter().take(8).copied().collect();
                out.splice(at..at, slice);
            }
            _ => out.insert(at, byte),
        }
    }
    out
}

/// Texts that are mostly not JSON: random bytes, bytes from the JSON
/// alphabet, mutations of valid texts.
pub fn invalid() -> BoxedStrategy<Vec<u8>> {
    let mutations = prop::collection::vec((any::<Index>(), any::<u8>(), any::<u8>()), 1..4);
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..48),
        2 => prop::collection::vec(prop::sample::select(JSON_BYTES.to_vec()), 0..48),
        6 => (styled(list()), mutations.clone())
            .prop_map(|((_, text), mutations)| mutate(text.as_bytes(), &mutations)),
        2 => (styled(value()), mutations)
            .prop_map(|((_, text), mutations)| mutate(text.as_bytes(), &mutations)),
    ]
    .boxed()
}

// ------------------------------------------------------------------ requests

/// A name of a selection: a small pool, scopes, `*`, and a few that are not
/// names at all.
fn selection_name() -> BoxedStrategy<String> {
    prop_oneof![
        8 => prop::sample::select(vec![
            "a", "b", "x", "*", "__proto__", "title", "plain", "id", "revision", "createdAt",
            "fields", "meta", "includes", "x-y", "_z", "9",
        ])
        .prop_map(str::to_owned),
        1 => prop::sample::select(vec!["", "é", "a.b", "$", "a b", "(", ")", ",", "/"])
            .prop_map(str::to_owned),
    ]
    .boxed()
}

fn selection_space() -> BoxedStrategy<&'static str> {
    prop::sample::select(vec!["", "", "", " ", "\t", "\r\n", "\u{a0}"]).boxed()
}

/// Selection text from the grammar, nested, with white space; sometimes
/// mutated, sometimes 33 or 40 levels deep, sometimes arbitrary text.
pub fn selection() -> BoxedStrategy<String> {
    let path = (
        prop::collection::vec(selection_name(), 1..4),
        selection_space(),
    )
        .prop_map(|(names, space)| format!("{space}{}{space}", names.join("/")));
    let item = path.prop_recursive(4, 24, 4, |inner| {
        (
            prop::collection::vec(selection_name(), 1..3),
            prop::collection::vec(inner, 1..4),
            selection_space(),
        )
            .prop_map(|(names, subs, space)| {
                format!("{}{space}({}){space}", names.join("/"), subs.join(","))
            })
    });
    let grammar = prop::collection::vec(item, 1..4).prop_map(|items| items.join(","));
    let mutations = prop::collection::vec((any::<Index>(), any::<u8>(), any::<u8>()), 1..3);
    prop_oneof![
        10 => grammar.clone(),
        2 => (grammar, mutations).prop_map(|(text, mutations)| {
            String::from_utf8_lossy(&mutate(text.as_bytes(), &mutations)).into_owned()
        }),
        1 => (28usize..42, selection_name(), any::<bool>()).prop_map(|(levels, name, nested)| {
            if nested {
                format!("{}{name}{}", "a(".repeat(levels), ")".repeat(levels))
            } else {
                vec![name; levels].join("/")
            }
        }),
        1 => (1usize..12).prop_map(|stars| format!("a/{}", vec!["*"; stars].join("/"))),
        1 => (1usize..6).prop_map(|stars| format!("{}(a,b,x)", vec!["*"; stars].join("/"))),
        1 => "\\PC{0,24}",
    ]
    .boxed()
}

/// Selections over the names of [`shaped`] values and `*`, a few levels
/// deep: where `*` and names meet.
pub fn shaped_selection() -> BoxedStrategy<String> {
    let name = prop::sample::select(vec!["a", "b", "x", "*", "*"]);
    let path = prop::collection::vec(name.clone(), 1..4).prop_map(|names| names.join("/"));
    let item = prop_oneof![
        3 => path.clone(),
        1 => (path.clone(), prop::collection::vec(path, 1..3))
            .prop_map(|(head, subs)| format!("{head}({})", subs.join(","))),
    ];
    prop::collection::vec(item, 1..3)
        .prop_map(|items| format!("fields({})", items.join(",")))
        .boxed()
}

/// A selection of [`shaped_selection`] and one narrower or equal, made by
/// putting names for some of its `*` (what a cache must tell apart).
pub fn shaped_pair() -> BoxedStrategy<(String, String)> {
    (shaped_selection(), prop::collection::vec(0u8..4, 1..8))
        .prop_map(|(wide, choices)| {
            let mut choice = choices.iter().cycle();
            let narrow: String = wide
                .chars()
                .map(|c| match (c, choice.next()) {
                    ('*', Some(0)) => 'a',
                    ('*', Some(1)) => 'b',
                    ('*', Some(2)) => 'x',
                    (c, _) => c,
                })
                .collect();
            (wide, narrow)
        })
        .boxed()
}

/// A sort key as given: valid keys of a small pool, and invalid ones.
pub fn sort_key() -> BoxedStrategy<String> {
    prop_oneof![
        8 => prop::sample::select(vec![
            "fields.a", "fields.b", "fields.x", "fields.__proto__", "fields.title", "meta.id",
            "meta.createdAt", "meta.revision", "meta.contentType",
        ])
        .prop_map(str::to_owned),
        1 => prop::sample::select(vec![
            "title", "Fields.a", "fields.a.b", "meta.", "fields.é", "", ".a", "fields", "meta.id ",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,12}",
    ]
    .boxed()
}

/// A sort direction as given.
pub fn direction() -> BoxedStrategy<String> {
    prop_oneof![
        8 => prop::sample::select(vec!["ASC", "DESC", "asc", "desc", "1", "-1", "Desc"])
            .prop_map(str::to_owned),
        1 => prop::sample::select(vec!["", "up", "0", "+1", "ASC ", "null"]).prop_map(str::to_owned),
        1 => "\\PC{0,6}",
    ]
    .boxed()
}

/// A request as text: the selection, the sort keys, `limit` and `offset`
/// (any numbers; out-of-range ones are refused).
#[derive(Debug, Clone)]
pub struct Ask {
    pub selection: Option<String>,
    pub sorting: Vec<(String, String)>,
    pub limit: Option<u32>,
    pub offset: Option<u64>,
}

pub fn ask() -> BoxedStrategy<Ask> {
    (
        prop::option::weighted(0.8, selection()),
        prop::collection::vec((sort_key(), direction()), 0..4),
        prop::option::of(
            prop_oneof![4 => 1u32..6, 1 => Just(0u32), 1 => Just(1001u32), 1 => Just(1000u32)],
        ),
        prop::option::of(
            prop_oneof![4 => 0u64..6, 1 => Just(u64::MAX), 1 => Just((1u64 << 53) - 1)],
        ),
    )
        .prop_map(|(selection, sorting, limit, offset)| Ask {
            selection,
            sorting,
            limit,
            offset,
        })
        .boxed()
}

fn percent_some(text: &str, bits: &[u8]) -> String {
    let mut out = String::new();
    for (index, c) in text.chars().enumerate() {
        let bit = bits.get(index % bits.len().max(1)).copied().unwrap_or(0);
        match (c, bit % 7) {
            (' ', 0..=2) => out.push('+'),
            (_, 0) | ('&' | '=' | '%' | '+' | '#', _) => {
                for byte in c.to_string().bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            (_, 1) => {
                for byte in c.to_string().bytes() {
                    out.push_str(&format!("%{byte:02x}"));
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Query strings: pairs of every parameter with valid and invalid values,
/// encoded in several ways, broken escapes, and arbitrary text.
pub fn query_string() -> BoxedStrategy<String> {
    let name = prop_oneof![
        8 => prop::sample::select(vec![
            "sorting[fields.a]", "sorting[meta.id]", "sorting[fields.x]", "sorting[title]",
            "sorting[fields.a.b]", "fields", "limit", "offset", "locale", "includes",
            "includes[*.fields.a]", "includes[post.fields.b]", "includes[fields.c]", "includes[a.b]",
            "embedAssets", "includeTags[0]", "includeTags[1]", "includeTags[x]", "excludeTags[0]",
            "search", "filters[0][*.fields.slug][equal]", "filters[1][or][*.meta.id][greaterThan]",
            "filters[2][and][post.fields.a][lt]", "filters[0][x][equal]", "filters[0]",
            "filters[99999999999999999999][*.fields.a][equal]", "unknown", "sorting", "limit[0]",
            "sorting[fields.a][b]", "sorting[fields.a",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,8}",
    ];
    let value = prop_oneof![
        6 => prop::sample::select(vec![
            "ASC", "DESC", "-1", "1", "0", "25", "1000", "1001", "0010", "18446744073709551616",
            "9007199254740991", "9007199254740992", "true", "false", "en_US", "all", "", "x y",
            "title, author/name", "a(b", "*", "*/a", "meta(id)", "é", "%", "%zz", "%E9", "%ED%A0%80",
            "2", "5", "6",
        ])
        .prop_map(str::to_owned),
        1 => selection(),
        1 => "\\PC{0,8}",
    ];
    let pairs = prop::collection::vec(
        (name, value, prop::collection::vec(any::<u8>(), 1..6)),
        0..6,
    )
    .prop_map(|pairs| {
        pairs
            .iter()
            .map(|(name, value, bits)| {
                format!("{}={}", percent_some(name, bits), percent_some(value, bits))
            })
            .collect::<Vec<_>>()
            .join("&")
    });
    let mutations = prop::collection::vec((any::<Index>(), any::<u8>(), any::<u8>()), 1..3);
    prop_oneof![
        6 => (any::<bool>(), pairs.clone()).prop_map(|(mark, text)| if mark { format!("?{text}") } else { text }),
        2 => (pairs, mutations).prop_map(|(text, mutations)| {
            String::from_utf8_lossy(&mutate(text.as_bytes(), &mutations)).into_owned()
        }),
        1 => "\\PC{0,40}",
    ]
    .boxed()
}
