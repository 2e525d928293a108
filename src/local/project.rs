//! Field selection applied to documents and lists (SPEC.md section 3).
//!
//! - object: a name selects that key if present, `*` every key; when a
//!   named child and `*` both apply to a key, their union applies. An object
//!   always gives a result (`{}` when nothing of it is selected).
//! - array: empty stays `[]`; otherwise the selection applies to every
//!   element: an object element always gives a result (positions kept), a
//!   nested array is descended, any other element is dropped unless it is
//!   selected whole; a non-empty array of which nothing remains is not
//!   selected. A `*` child also matches the elements themselves (an array's
//!   keys are its positions), so `gallery/*/url` gives each element's `url`.
//! - a string, number, boolean or `null` with path left: not selected; a
//!   missing key: not selected; a selected `null` stays `null`.
//!
//! ```
//! use content_repo::local::project::select;
//! use content_repo::Selection;
//! use serde_json::json;
//!
//! let doc = json!({
//!     "fields": {"title": "A", "gallery": [{"url": "u1", "alt": "a"}, {"alt": "b"}]},
//!     "meta": {"id": "1", "revision": 3}
//! });
//! let selection = Selection::parse("title, gallery/*/url")?;
//! assert_eq!(
//!     select(&doc, &selection)?,
//!     json!({"fields": {"title": "A", "gallery": [{"url": "u1"}, {}]}, "meta": {"id": "1", "revision": 3}})
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::query::selection::{Node, Parts, Selection};

/// How many nested arrays [`apply`] descends without consuming selection
/// depth; deeper ones are not selected. Parsed JSON never gets there.
pub const MAX_ARRAY_NESTING: usize = 128;

/// Applies a selection node to a value: `None` when nothing is selected.
pub fn apply(value: &Value, node: &Node) -> Option<Value> {
    apply_at(value, node, 0)
}

fn apply_at(value: &Value, node: &Node, nesting: usize) -> Option<Value> {
    if node.is_leaf() {
        return Some(value.clone());
    }
    match value {
        Value::Object(map) => Some(Value::Object(apply_object(map, node, nesting))),
        Value::Array(items) => apply_array(items, node, nesting),
        _ => None,
    }
}

fn apply_object(map: &Map<String, Value>, node: &Node, nesting: usize) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        let Some(sub) = key_node(node, key) else {
            continue;
        };
        if let Some(selected) = apply_at(value, &sub, nesting) {
            out.insert(key.clone(), selected);
        }
    }
    out
}

fn apply_array(items: &[Value], node: &Node, nesting: usize) -> Option<Value> {
    if items.is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    if nesting >= MAX_ARRAY_NESTING {
        return None;
    }
    let element: Cow<'_, Node> = match node.children().get("*") {
        Some(star) => Cow::Owned(union(node, star)),
        None => Cow::Borrowed(node),
    };
    let out: Vec<Value> = items
        .iter()
        .filter_map(|item| match item {
            Value::Array(_) => apply_at(item, node, nesting + 1),
            _ => apply_at(item, &element, nesting + 1),
        })
        .collect();
    if out.is_empty() {
        None
    } else {
        Some(Value::Array(out))
    }
}

/// The node that selects `key` of an object under `node`: the child named
/// `key`, the `*` child, or the union of both; `None` when neither exists.
pub fn key_node<'n>(node: &'n Node, key: &str) -> Option<Cow<'n, Node>> {
    let children = node.children();
    match (children.get(key), children.get("*")) {
        (Some(named), Some(star)) if key != "*" => Some(Cow::Owned(union(named, star))),
        (Some(named), _) => Some(Cow::Borrowed(named)),
        (None, Some(star)) => Some(Cow::Borrowed(star)),
        (None, None) => None,
    }
}

/// The union of two selection nodes.
pub fn union(a: &Node, b: &Node) -> Node {
    let mut merged = a.clone();
    merged.merge(b.clone());
    merged
}

/// Applies a selection to one document: `fields` only as selected, `meta`
/// whole unless named, the document's own `includes` (if any) whole unless an
/// `includes` item applies, and no other key. `*` returns it unchanged.
pub fn select(document: &Value, selection: &Selection) -> Result<Value> {
    let map = document.as_object().ok_or_else(|| {
        Error::invalid_argument("expected a document: an object { fields, meta }")
    })?;
    Ok(match selection {
        Selection::All => document.clone(),
        Selection::Parts(parts) => Value::Object(select_map(map, parts)),
    })
}

/// [`select`] on a document's entries.
pub fn select_map(map: &Map<String, Value>, parts: &Parts) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        let selected = match key.as_str() {
            "fields" => parts.fields.as_ref().and_then(|node| apply(value, node)),
            "meta" => apply(value, &parts.meta),
            "includes" => match &parts.includes {
                Some(node) => apply(value, node),
                None => Some(value.clone()),
            },
            _ => None,
        };
        if let Some(selected) = selected {
            out.insert(key.clone(), selected);
        }
    }
    out
}

/// Whether `value` is a list envelope: an object with a `data` array and no
/// `fields` key.
pub fn is_envelope(value: &Value) -> bool {
    value.as_object().is_some_and(|map| {
        matches!(map.get("data"), Some(Value::Array(_))) && !map.contains_key("fields")
    })
}

/// Applies a selection to a document, an array of documents, or a list
/// envelope: each element of `data` as a document, the `includes` item (if
/// any) to the envelope's `includes` object (kept whole without one), every
/// other envelope key kept. Every element must be a document.
pub fn select_any(value: &Value, selection: &Selection) -> Result<Value> {
    match value {
        Value::Array(documents) => select_documents(documents, selection).map(Value::Array),
        Value::Object(map) if is_envelope(value) => {
            let mut out = Map::new();
            for (key, item) in map {
                match (key.as_str(), item, selection) {
                    ("data", Value::Array(documents), _) => {
                        out.insert(
                            key.clone(),
                            Value::Array(select_documents(documents, selection)?),
                        );
                    }
                    (
                        "includes",
                        _,
                        Selection::Parts(Parts {
                            includes: Some(node),
                            ..
                        }),
                    ) => {
                        if let Some(selected) = apply(item, node) {
                            out.insert(key.clone(), selected);
                        }
                    }
                    _ => {
                        out.insert(key.clone(), item.clone());
                    }
                }
            }
            Ok(Value::Object(out))
        }
        _ => select(value, selection),
    }
}

/// Applies a selection to each document of a list.
pub fn select_documents(documents: &[Value], selection: &Selection) -> Result<Vec<Value>> {
    documents
        .iter()
        .enumerate()
        .map(|(index, document)| {
            select(document, selection).map_err(|_| super::sort::not_a_document(index))
        })
        .collect()
}

/// Parses a document's JSON text keeping only what `parts` can select, so
/// that `select_map(parse_selected(text)?, parts)` equals
/// `select_map(parse(text), parts)` while skipping everything else.
///
/// Pruning follows [`apply`] exactly: on an object, a key is kept (pruned by
/// the union of its named and `*` children) when one of them names it; on an
/// array, each element is pruned by the node (nested arrays) or by the node's
/// union with its `*` child (other elements); a leaf keeps the whole value.
pub fn parse_selected(text: &str, parts: &Parts) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = serde::de::DeserializeSeed::deserialize(DocumentSeed { parts }, &mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

mod prune {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};

    use super::{key_node, union};
    use crate::query::selection::{Node, Parts};

    /// The document: only its scopes, each pruned by its node.
    pub struct DocumentSeed<'a> {
        pub parts: &'a Parts,
    }

    impl<'de> DeserializeSeed<'de> for DocumentSeed<'_> {
        type Value = Value;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
            deserializer.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for DocumentSeed<'_> {
        type Value = Value;

        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a document object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let whole = Node::leaf();
            let mut out = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                let node = match key.as_str() {
                    "fields" => self.parts.fields.as_ref(),
                    "meta" => Some(&self.parts.meta),
                    "includes" => Some(self.parts.includes.as_ref().unwrap_or(&whole)),
                    _ => None,
                };
                match node {
                    Some(node) => {
                        let value = map.next_value_seed(NodeSeed { node })?;
                        out.insert(key, value);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(Value::Object(out))
        }
    }

    /// A value pruned by `node`.
    pub struct NodeSeed<'a> {
        pub node: &'a Node,
    }

    impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
        type Value = Value;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
            if self.node.is_leaf() {
                return Value::deserialize_whole(deserializer);
            }
            deserializer.deserialize_any(NodeVisitor {
                node: self.node,
                element: None,
            })
        }
    }

    /// Deserializes a whole value.
    trait Whole {
        fn deserialize_whole<'de, D: Deserializer<'de>>(deserializer: D)
            -> Result<Value, D::Error>;
    }

    impl Whole for Value {
        fn deserialize_whole<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Value, D::Error> {
            serde::Deserialize::deserialize(deserializer)
        }
    }

    /// Visits a value under `node`; `element` is the node for array elements
    /// that are not arrays (the node's union with its `*` child), computed
    /// once per array.
    struct NodeVisitor<'a> {
        node: &'a Node,
        element: Option<&'a Node>,
    }

    impl<'de> Visitor<'de> for NodeVisitor<'_> {
        type Value = Value;

        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a JSON value")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let node = self.element.unwrap_or(self.node);
            if node.is_leaf() {
                return serde::Deserialize::deserialize(
                    serde::de::value::MapAccessDeserializer::new(map),
                );
            }
            let mut out = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                match key_node(node, &key) {
                    Some(sub) => {
                        let value = map.next_value_seed(NodeSeed { node: &sub })?;
                        out.insert(key, value);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(Value::Object(out))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            // Elements of a nested array keep the array's node.
            let element: Cow<'_, Node> = match self.node.children().get("*") {
                Some(star) => Cow::Owned(union(self.node, star)),
                None => Cow::Borrowed(self.node),
            };
            let mut out = Vec::new();
            while let Some(value) = seq.next_element_seed(ElementSeed {
                node: self.node,
                element: &element,
            })? {
                out.push(value);
            }
            Ok(Value::Array(out))
        }

        fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
            Ok(Value::Bool(value))
        }

        fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
            Ok(Value::from(value))
        }

        fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
            Ok(Value::from(value))
        }

        fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
            Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
        }

        fn visit_str<E>(self, value: &str) -> Result<Value, E> {
            Ok(Value::String(value.to_owned()))
        }

        fn visit_string<E>(self, value: String) -> Result<Value, E> {
            Ok(Value::String(value))
        }

        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }

        fn visit_none<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    }

    /// An array element: a nested array under the array's node, anything
    /// else under the element node.
    struct ElementSeed<'a> {
        node: &'a Node,
        element: &'a Node,
    }

    impl<'de> DeserializeSeed<'de> for ElementSeed<'_> {
        type Value = Value;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
            deserializer.deserialize_any(NodeVisitor {
                node: self.node,
                element: Some(self.element),
            })
        }
    }
}

use prune::DocumentSeed;

/// Writes the JSON text of `select_map(parse(text), parts)` straight from
/// the document's text, parsing only what the selection reaches and building
/// no tree for the rest. Returns `Err` (and leaves `out` as it was) for any
/// text it does not handle exactly as the tree path would (invalid JSON, a
/// repeated key among the selected ones): callers then use that path.
pub fn write_selected_json(text: &str, parts: &Parts, out: &mut Vec<u8>) -> serde_json::Result<()> {
    let start = out.len();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let result = serde::de::DeserializeSeed::deserialize(
        stream::DocumentWriter {
            parts,
            out: &mut *out,
        },
        &mut deserializer,
    )
    .and_then(|()| deserializer.end());
    if result.is_err() {
        out.truncate(start);
    }
    result
}

mod stream {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{
        self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
    };
    use serde_json::Value;

    use super::{key_node, union};
    use crate::query::selection::{Node, Parts};

    fn write_value<E: de::Error>(out: &mut Vec<u8>, value: &Value) -> Result<(), E> {
        serde_json::to_writer(out, value).map_err(E::custom)
    }

    fn write_key<E: de::Error>(out: &mut Vec<u8>, key: &str) -> Result<(), E> {
        serde_json::to_writer(&mut *out, key).map_err(E::custom)?;
        out.push(b':');
        Ok(())
    }

    /// A key, borrowed from the text when it has no escapes.
    struct Key<'de>(Cow<'de, str>);

    impl<'de> de::Deserialize<'de> for Key<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl<'de> Visitor<'de> for KeyVisitor {
                type Value = Key<'de>;
                fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
                    out.write_str("a key")
                }
                fn visit_borrowed_str<E>(self, value: &'de str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Borrowed(value)))
                }
                fn visit_str<E>(self, value: &str) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Owned(value.to_owned())))
                }
                fn visit_string<E>(self, value: String) -> Result<Key<'de>, E> {
                    Ok(Key(Cow::Owned(value)))
                }
            }
            deserializer.deserialize_str(KeyVisitor)
        }
    }

    /// The keys of one object that a selection names, to refuse repeated
    /// ones (the tree path keeps the last value at the first position; this
    /// path cannot).
    #[derive(Default)]
    struct Seen<'de> {
        keys: Vec<Cow<'de, str>>,
    }

    impl<'de> Seen<'de> {
        fn add<E: de::Error>(&mut self, key: Cow<'de, str>) -> Result<(), E> {
            if self.keys.contains(&key) {
                return Err(E::custom("a repeated key"));
            }
            self.keys.push(key);
            Ok(())
        }
    }

    /// Writes `"key":value` (after a comma when `count` > 0) for the next
    /// value under `node`, and takes it back when nothing is selected.
    fn entry<'de, A: MapAccess<'de>>(
        map: &mut A,
        out: &mut Vec<u8>,
        key: Cow<'de, str>,
        node: &Node,
        seen: &mut Seen<'de>,
        count: &mut usize,
    ) -> Result<(), A::Error> {
        let mark = out.len();
        if *count > 0 {
            out.push(b',');
        }
        write_key::<A::Error>(out, &key)?;
        seen.add::<A::Error>(key)?;
        if map.next_value_seed(ValueWriter {
            node,
            out: &mut *out,
        })? {
            *count += 1;
        } else {
            out.truncate(mark);
        }
        Ok(())
    }

    pub struct DocumentWriter<'p, 'o> {
        pub parts: &'p Parts,
        pub out: &'o mut Vec<u8>,
    }

    impl<'de> DeserializeSeed<'de> for DocumentWriter<'_, '_> {
        type Value = ();

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_map(self)
        }
    }

    impl<'de> Visitor<'de> for DocumentWriter<'_, '_> {
        type Value = ();

        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a document object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let whole = Node::leaf();
            let out = self.out;
            out.push(b'{');
            let (mut seen, mut count) = (Seen::default(), 0usize);
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                let node = match key.as_ref() {
                    "fields" => self.parts.fields.as_ref(),
                    "meta" => Some(&self.parts.meta),
                    "includes" => Some(self.parts.includes.as_ref().unwrap_or(&whole)),
                    _ => None,
                };
                let Some(node) = node else {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                };
                entry(&mut map, out, key, node, &mut seen, &mut count)?;
            }
            out.push(b'}');
            Ok(())
        }
    }

    /// Writes a value under `node`; `true` when it is selected.
    struct ValueWriter<'n, 'o> {
        node: &'n Node,
        out: &'o mut Vec<u8>,
    }

    impl<'de> DeserializeSeed<'de> for ValueWriter<'_, '_> {
        type Value = bool;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
            if self.node.is_leaf() {
                let value = <Value as de::Deserialize>::deserialize(deserializer)?;
                write_value::<D::Error>(self.out, &value)?;
                return Ok(true);
            }
            deserializer.deserialize_any(Writer {
                node: self.node,
                element: None,
                out: self.out,
            })
        }
    }

    /// An array element: a nested array under the array's node, anything
    /// else under the element node.
    struct ElementWriter<'n, 'o> {
        node: &'n Node,
        element: &'n Node,
        out: &'o mut Vec<u8>,
    }

    impl<'de> DeserializeSeed<'de> for ElementWriter<'_, '_> {
        type Value = bool;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
            deserializer.deserialize_any(Writer {
                node: self.node,
                element: Some(self.element),
                out: self.out,
            })
        }
    }

    struct Writer<'n, 'o> {
        node: &'n Node,
        element: Option<&'n Node>,
        out: &'o mut Vec<u8>,
    }

    impl Writer<'_, '_> {
        /// A scalar: selected only as an array element whose node is a leaf.
        fn scalar<E: de::Error>(self, value: Value) -> Result<bool, E> {
            match self.element {
                Some(element) if element.is_leaf() => {
                    write_value::<E>(self.out, &value)?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        }
    }

    impl<'de> Visitor<'de> for Writer<'_, '_> {
        type Value = bool;

        fn expecting(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
            out.write_str("a JSON value")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let node = self.element.unwrap_or(self.node);
            let out = self.out;
            if node.is_leaf() {
                let value = <Value as de::Deserialize>::deserialize(
                    de::value::MapAccessDeserializer::new(map),
                )?;
                write_value::<A::Error>(out, &value)?;
                return Ok(true);
            }
            out.push(b'{');
            let (mut seen, mut count) = (Seen::default(), 0usize);
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                let Some(sub) = key_node(node, &key) else {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                };
                entry(&mut map, out, key, &sub, &mut seen, &mut count)?;
            }
            out.push(b'}');
            Ok(true)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let out = self.out;
            let element: Cow<'_, Node> = match self.node.children().get("*") {
                Some(star) => Cow::Owned(union(self.node, star)),
                None => Cow::Borrowed(self.node),
            };
            let start = out.len();
            out.push(b'[');
            let (mut any, mut kept) = (false, 0usize);
            loop {
                let mark = out.len();
                if kept > 0 {
                    out.push(b',');
                }
                let seed = ElementWriter {
                    node: self.node,
                    element: &element,
                    out: &mut *out,
                };
                match seq.next_element_seed(seed)? {
                    None => {
                        out.truncate(mark);
                        break;
                    }
                    Some(true) => {
                        any = true;
                        kept += 1;
                    }
                    Some(false) => {
                        any = true;
                        out.truncate(mark);
                    }
                }
            }
            // A non-empty array of which nothing remains is not selected.
            if any && kept == 0 {
                out.truncate(start);
                return Ok(false);
            }
            out.push(b']');
            Ok(true)
        }

        fn visit_bool<E: de::Error>(self, value: bool) -> Result<bool, E> {
            self.scalar(Value::Bool(value))
        }

        fn visit_i64<E: de::Error>(self, value: i64) -> Result<bool, E> {
            self.scalar(Value::from(value))
        }

        fn visit_u64<E: de::Error>(self, value: u64) -> Result<bool, E> {
            self.scalar(Value::from(value))
        }

        fn visit_f64<E: de::Error>(self, value: f64) -> Result<bool, E> {
            self.scalar(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<bool, E> {
            self.scalar(Value::String(value.to_owned()))
        }

        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            self.scalar(Value::Null)
        }
    }
}
