//! Reading a document's text for the store without building it: only the
//! values the store keeps (`meta.id`, `meta.revision`, `meta.contentType`
//! and the values of indexed sort keys) become [`Value`]s; everything else
//! is parsed and dropped as it is read.
//!
//! The text is still parsed completely by serde_json's own parser, with the
//! checks of a [`Value`] parse: string escapes (lone surrogates included),
//! numbers in range, the recursion limit, trailing characters. So a text is
//! accepted exactly when `serde_json::from_str::<Value>` accepts it, and the
//! values read are the ones that parse would give (for a repeated key, the
//! last one, as a [`Value`] map keeps).
//!
//! ```
//! use content_repo::store::probe::probe;
//!
//! let text = r#"{"fields": {"n": 2, "x": [1, {"y": "\u00e9"}]}, "meta": {"id": "7"}}"#;
//! let read = probe(text, &["id"], &["n"])?;
//! assert!(read.is_object);
//! assert_eq!(read.meta, Some(vec![Some(serde_json::json!("7"))]));
//! assert_eq!(read.fields, Some(vec![Some(serde_json::json!(2))]));
//! assert!(probe(r#"{"meta": {"id": "7"}, "x": "\ud800"}"#, &["id"], &[]).is_err());
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// What [`probe`] reads of a document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probe {
    /// Whether the document is an object.
    pub is_object: bool,
    /// The values of the requested `meta` keys (`None` each when missing);
    /// `None` when the document has no `meta` object.
    pub meta: Option<Vec<Option<Value>>>,
    /// The values of the requested `fields` keys, likewise.
    pub fields: Option<Vec<Option<Value>>>,
}

/// Parses one document's text, keeping the values of `meta_names` in
/// `meta` and of `field_names` in `fields`. Errors exactly when
/// `serde_json::from_str::<Value>(text)` does.
pub fn probe(text: &str, meta_names: &[&str], field_names: &[&str]) -> serde_json::Result<Probe> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let probe = deserializer.deserialize_any(DocumentVisitor {
        meta_names,
        field_names,
    })?;
    deserializer.end()?;
    Ok(probe)
}

/// Any JSON value, parsed and dropped.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Skip, D::Error> {
        deserializer.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}

/// A map key: its position in `names`, if there.
struct KeySeed<'a> {
    names: &'a [&'a str],
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.names.iter().position(|name| *name == key))
    }
}

/// Sets `out[index]`; `out` grows (with `None`s) as needed.
fn keep(out: &mut Vec<Option<Value>>, index: usize, value: Value) {
    if out.len() <= index {
        out.resize(index + 1, None);
    }
    if let Some(place) = out.get_mut(index) {
        *place = Some(value);
    }
}

/// A scope (`meta`, `fields`): the values of `names` when it is an object.
struct ScopeSeed<'a> {
    names: &'a [&'a str],
}

impl<'de> DeserializeSeed<'de> for ScopeSeed<'_> {
    type Value = Option<Vec<Option<Value>>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ScopeSeed<'_> {
    type Value = Option<Vec<Option<Value>>>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(self.names.len());
        out.resize(self.names.len(), None);
        while let Some(key) = map.next_key_seed(KeySeed { names: self.names })? {
            match key {
                Some(index) => keep(&mut out, index, map.next_value::<Value>()?),
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Some(out))
    }
}

const SCOPES: [&str; 2] = ["meta", "fields"];

struct DocumentVisitor<'a> {
    meta_names: &'a [&'a str],
    field_names: &'a [&'a str],
}

impl<'de> Visitor<'de> for DocumentVisitor<'_> {
    type Value = Probe;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_unit<E>(self) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_none<E>(self) -> Result<Probe, E> {
        Ok(Probe::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Probe, A::Error> {
        SkipVisitor.visit_seq(seq).map(|_| Probe::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        let mut probe = Probe {
            is_object: true,
            meta: None,
            fields: None,
        };
        while let Some(key) = map.next_key_seed(KeySeed { names: &SCOPES })? {
            match key {
                Some(0) => {
                    probe.meta = map.next_value_seed(ScopeSeed {
                        names: self.meta_names,
                    })?;
                }
                Some(_) => {
                    probe.fields = map.next_value_seed(ScopeSeed {
                        names: self.field_names,
                    })?;
                }
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(probe)
    }
}
