//! Field selection (SPEC.md section 3), written once: a [`Selection`] is
//! compiled into a [`Plan`], and one executor applies a plan to JSON text,
//! writing the selected JSON text. Every path that selects (JavaScript
//! objects, the document store, the offline cache) runs this executor.
//!
//! Applying a plan node to a value:
//! - a leaf selects the whole value (copied as written, white space
//!   included);
//! - an object: each key selected by the node's child of that name and its
//!   `*` child (their union) is kept, under that child; the object always
//!   gives a result (`{}` when nothing of it is selected);
//! - an array: empty stays `[]`; otherwise every element is selected by the
//!   *element node*, the union of the node's `*` child (the elements
//!   themselves, with the rest of the path) and its named children (applied
//!   to each element); elements of which nothing is selected are dropped,
//!   and a non-empty array of which nothing remains is not selected;
//! - a string, number, boolean or `null` with path left: not selected.
//!
//! An object whose selected keys repeat is read as `JSON.parse` reads it (the
//! last value, at the first key's position): the executor notices the
//! repeat and runs again on [`json::normalize`]d text.
//!
//! ```
//! use content_repo::engine::select::{select_document, Plan};
//! use content_repo::Selection;
//!
//! let plan = Plan::compile(&Selection::parse("title, matrix/*/*/x")?)?;
//! let doc = r#"{"fields": {"title": "A", "body": "...", "matrix": [[{"x": 1}, {"y": 2}], [{"x": 4}], []]},
//!               "meta": {"id": "1"}}"#;
//! assert_eq!(
//!     select_document(doc, &plan)?,
//!     r#"{"fields":{"title":"A","matrix":[[{"x":1},{}],[{"x":4}],[]]},"meta":{"id": "1"}}"#
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use crate::hash::Map;

use crate::error::{Error, Result};
use crate::json::{self, skip_space, Syntax};
use crate::query::selection::{Node, Parts, Selection};

/// The most nodes a compiled plan may have. Only selections with many
/// nested `*` get near it; beyond it the selection is refused
/// (`invalid_selection`), never applied partly.
const MAX_PLAN_NODES: usize = 4096;

/// One node of a plan.
#[derive(Debug, Clone)]
struct PlanNode {
    leaf: bool,
    /// For each named child: its node, already united with the `*` child.
    named: Vec<(Box<[u8]>, u32)>,
    /// The `*` child: the node of every key not named.
    star: Option<u32>,
    /// Bit `n` (n < 63) is set when a named child's name is `n` bytes
    /// long, bit 63 for longer names: most keys that are not named are
    /// passed over without a search.
    lengths: u64,
    /// The node of each element when this node meets an array.
    element: u32,
}

/// A compiled selection. See the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    nodes: Vec<PlanNode>,
    /// The node of a whole document (`None` for `*`: documents unchanged).
    document: Option<u32>,
    /// The node of a list envelope's `includes` (`None`: kept whole).
    includes: Option<u32>,
}

struct Compiler {
    nodes: Vec<PlanNode>,
    known: Map<Node, u32>,
}

fn too_complex() -> Error {
    Error::InvalidSelection {
        expected: format!("a selection of at most {MAX_PLAN_NODES} distinct nodes"),
        found: "a selection with too many nested '*'".into(),
        position: 0,
    }
}

fn union(a: &Node, b: &Node) -> Node {
    let mut merged = a.clone();
    merged.merge(b.clone());
    merged
}

impl Compiler {
    fn node(&mut self, node: &Node) -> Result<u32> {
        if let Some(index) = self.known.get(node) {
            return Ok(*index);
        }
        if self.nodes.len() >= MAX_PLAN_NODES {
            return Err(too_complex());
        }
        let index = u32::try_from(self.nodes.len()).map_err(|_| too_complex())?;
        self.nodes.push(PlanNode {
            leaf: node.is_leaf(),
            named: Vec::new(),
            star: None,
            lengths: 0,
            element: index,
        });
        self.known.insert(node.clone(), index);
        if node.is_leaf() {
            return Ok(index);
        }
        let children = node.children();
        let star = children.get("*");
        let mut named: Vec<(Box<[u8]>, u32)> = Vec::new();
        for (name, child) in children {
            if name == "*" {
                continue;
            }
            let target = match star {
                Some(star) => self.node(&union(child, star))?,
                None => self.node(child)?,
            };
            named.push((name.as_bytes().into(), target));
        }
        let star_index = star.map(|star| self.node(star)).transpose()?;
        let element = match star {
            Some(_) => self.node(&node.element())?,
            None => index,
        };
        if let Some(place) = self.nodes.get_mut(index as usize) {
            // `children` are sorted by name bytes, so `named` is.
            place.lengths = named
                .iter()
                .fold(0, |bits, (name, _)| bits | length_bit(name.as_ref()));
            place.named = named;
            place.star = star_index;
            place.element = element;
        }
        Ok(index)
    }
}

impl Plan {
    /// Compiles a selection.
    pub fn compile(selection: &Selection) -> Result<Plan> {
        let Selection::Parts(parts) = selection else {
            return Ok(Plan {
                nodes: Vec::new(),
                document: None,
                includes: None,
            });
        };
        Plan::compile_parts(parts)
    }

    fn compile_parts(parts: &Parts) -> Result<Plan> {
        // The document is a node whose children are its scopes: `fields` as
        // selected, `meta`, and `includes` (whole without an item).
        let mut document = Node::default();
        if let Some(fields) = &parts.fields {
            document.insert("fields".into(), fields.clone());
        }
        document.insert("meta".into(), parts.meta.clone());
        document.insert(
            "includes".into(),
            parts.includes.clone().unwrap_or_else(Node::leaf),
        );
        let mut compiler = Compiler {
            nodes: Vec::new(),
            known: Map::default(),
        };
        let root = compiler.node(&document)?;
        let includes = parts
            .includes
            .as_ref()
            .map(|node| compiler.node(node))
            .transpose()?;
        Ok(Plan {
            nodes: compiler.nodes,
            document: Some(root),
            includes,
        })
    }

    fn get(&self, node: u32) -> Option<&PlanNode> {
        self.nodes.get(node as usize)
    }

    fn is_leaf(&self, node: u32) -> bool {
        match self.get(node) {
            Some(node) => node.leaf,
            None => true,
        }
    }

    fn element(&self, node: u32) -> u32 {
        self.get(node).map_or(node, |plan| plan.element)
    }

    /// The node of key `name` (decoded) of an object under `node`, and the
    /// position of the named child that selects it (`None`: the `*` child).
    fn key_node(&self, node: u32, name: &[u8]) -> Option<(u32, Option<usize>)> {
        let plan = self.get(node)?;
        if plan.lengths & length_bit(name) == 0 {
            return plan.star.map(|star| (star, None));
        }
        match plan
            .named
            .binary_search_by(|(known, _)| known.as_ref().cmp(name))
        {
            Ok(position) => plan
                .named
                .get(position)
                .map(|(_, node)| (*node, Some(position))),
            Err(_) => plan.star.map(|star| (star, None)),
        }
    }
}

/// The bit of [`PlanNode::lengths`] for a name.
fn length_bit(name: &[u8]) -> u64 {
    1 << name.len().min(63)
}

/// Why an execution stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stop {
    /// The text is not JSON.
    Syntax(Syntax),
    /// A selected key repeats in one object: run on normalized text.
    Repeated,
}

impl From<Syntax> for Stop {
    fn from(error: Syntax) -> Self {
        Stop::Syntax(error)
    }
}

/// A container being written.
struct Frame {
    node: u32,
    object: bool,
    /// Where the container's text starts in `out`.
    mark: usize,
    /// Where the current entry or element starts in `out`.
    entry: usize,
    /// Entries or elements written.
    kept: usize,
    /// The named children that selected a key so far (objects; bit `n`
    /// for position `n` < 64).
    seen: u64,
    /// The other keys selected so far (by `*`, or named beyond 64), decoded.
    seen_other: Vec<Box<[u8]>>,
}

enum Step {
    /// The next value to apply `node` to starts at `index`.
    Value(u32, usize),
    /// The container ended before `index`.
    Closed(usize),
}

/// What an execution reads: the text, the plan, and how its values are
/// read: checked (`Some(0)`), or, when the text was checked before
/// (`None`), only scanned for their ends ([`json::value_end_as`]).
struct Input<'a> {
    bytes: &'a [u8],
    plan: &'a Plan,
    levels: Option<usize>,
}

/// Moves `frame` on from `index` to its next value to apply a node to, or
/// past its end.
fn advance(
    input: &Input<'_>,
    mut index: usize,
    mut first: bool,
    frame: &mut Frame,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<Step, Stop> {
    let Input {
        bytes,
        plan,
        levels,
    } = *input;
    let close = if frame.object { b'}' } else { b']' };
    loop {
        index = skip_space(bytes, index);
        if !first {
            match bytes.get(index).copied() {
                Some(b',') => index += 1,
                Some(byte) if byte == close => return Ok(Step::Closed(index + 1)),
                _ => {
                    return Err(Stop::Syntax(Syntax {
                        position: index,
                        expected: "',' or a closing bracket",
                    }))
                }
            }
        }
        first = false;
        if !frame.object {
            frame.entry = out.len();
            if frame.kept > 0 {
                out.push(b',');
            }
            return Ok(Step::Value(plan.element(frame.node), index));
        }
        let (start, end, escaped, after) = json::key_as(bytes, index, levels.is_some())?;
        let name = json::string_bytes(bytes, start, end, escaped, scratch);
        let Some((sub, position)) = plan.key_node(frame.node, name) else {
            index = json::value_end_as(bytes, after, levels)?;
            continue;
        };
        // A selected key seen before in this object: read as `JSON.parse`
        // reads it, on normalized text.
        match position.filter(|position| *position < 64) {
            Some(position) => {
                let bit = 1u64 << position;
                if frame.seen & bit != 0 {
                    return Err(Stop::Repeated);
                }
                frame.seen |= bit;
            }
            None => {
                if frame.seen_other.iter().any(|seen| seen.as_ref() == name) {
                    return Err(Stop::Repeated);
                }
                frame.seen_other.push(name.into());
            }
        }
        frame.entry = out.len();
        if frame.kept > 0 {
            out.push(b',');
        }
        out.extend_from_slice(bytes.get(start..end).unwrap_or_default());
        out.push(b':');
        return Ok(Step::Value(sub, after));
    }
}

/// Applies `node` to the JSON value at `start`, appending the selected
/// text to `out`. Returns the index after the value and whether anything
/// was selected (when not, `out` is as it was). `trusted`: the text was
/// checked before (a stored document), so what is skipped or copied is
/// not checked again.
fn apply_at(
    bytes: &[u8],
    start: usize,
    node: u32,
    plan: &Plan,
    out: &mut Vec<u8>,
    trusted: bool,
) -> Result<(usize, bool), Stop> {
    let levels = (!trusted).then_some(0);
    let input = Input {
        bytes,
        plan,
        levels,
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut scratch = Vec::new();
    let mut index = start;
    let mut node = node;
    'value: loop {
        index = skip_space(bytes, index);
        let mut selected;
        let opened = match bytes.get(index).copied() {
            _ if plan.is_leaf(node) => None,
            Some(open @ (b'{' | b'[')) => Some(open == b'{'),
            _ => None,
        };
        match opened {
            None if plan.is_leaf(node) => {
                let end = json::value_end_as(bytes, index, levels)?;
                out.extend_from_slice(bytes.get(index..end).unwrap_or_default());
                index = end;
                selected = true;
            }
            None => {
                index = if trusted {
                    json::valid_value_end(bytes, index)
                } else {
                    json::scalar_end(bytes, index)?
                };
                selected = false;
            }
            Some(object) => {
                if stack.len() >= json::MAX_DEPTH {
                    return Err(Stop::Syntax(Syntax {
                        position: index,
                        expected: "at most 100000 levels of nesting",
                    }));
                }
                let close = if object { b'}' } else { b']' };
                let next = skip_space(bytes, index + 1);
                let mark = out.len();
                if bytes.get(next) == Some(&close) {
                    out.extend_from_slice(if object { b"{}" } else { b"[]" });
                    index = next + 1;
                    selected = true;
                } else {
                    out.push(if object { b'{' } else { b'[' });
                    let mut frame = Frame {
                        node,
                        object,
                        mark,
                        entry: out.len(),
                        kept: 0,
                        seen: 0,
                        seen_other: Vec::new(),
                    };
                    let step = advance(&input, next, true, &mut frame, out, &mut scratch)?;
                    stack.push(frame);
                    match step {
                        Step::Value(sub, at) => {
                            node = sub;
                            index = at;
                            continue 'value;
                        }
                        Step::Closed(at) => {
                            index = at;
                            selected = close_frame(&mut stack, out);
                        }
                    }
                }
            }
        }
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok((index, selected));
            };
            if selected {
                frame.kept += 1;
            } else {
                out.truncate(frame.entry);
            }
            match advance(&input, index, false, frame, out, &mut scratch)? {
                Step::Value(sub, at) => {
                    node = sub;
                    index = at;
                    continue 'value;
                }
                Step::Closed(at) => {
                    index = at;
                    selected = close_frame(&mut stack, out);
                }
            }
        }
    }
}

/// Ends the container on top of `stack`: whether it is selected.
fn close_frame(stack: &mut Vec<Frame>, out: &mut Vec<u8>) -> bool {
    let Some(frame) = stack.pop() else {
        return false;
    };
    if frame.object {
        out.push(b'}');
        true
    } else if frame.kept == 0 {
        // A non-empty array of which nothing remains is not selected.
        out.truncate(frame.mark);
        false
    } else {
        out.push(b']');
        true
    }
}

fn decode_error(error: &Syntax, text: &[u8]) -> Error {
    Error::decode(
        format!("invalid JSON: {error}"),
        &String::from_utf8_lossy(text),
    )
}

/// Runs `node` of `plan` on the value `text`, appending the selected text
/// to `out`; a repeated selected key is read as `JSON.parse` reads it.
/// Returns whether anything was selected.
fn apply_text(
    text: &[u8],
    node: u32,
    plan: &Plan,
    out: &mut Vec<u8>,
    trusted: bool,
) -> Result<bool> {
    let mark = out.len();
    let run = |text: &[u8], out: &mut Vec<u8>| -> std::result::Result<bool, Stop> {
        let (end, selected) = apply_at(text, 0, node, plan, out, trusted)?;
        if skip_space(text, end) != text.len() {
            return Err(Stop::Syntax(Syntax {
                position: end,
                expected: "the end of the value",
            }));
        }
        Ok(selected)
    };
    match run(text, out) {
        Ok(selected) => Ok(selected),
        Err(Stop::Syntax(error)) => {
            out.truncate(mark);
            Err(decode_error(&error, text))
        }
        Err(Stop::Repeated) => {
            out.truncate(mark);
            let unreadable = || {
                Error::decode(
                    "a document could not be read",
                    &String::from_utf8_lossy(text),
                )
            };
            let normal = std::str::from_utf8(text)
                .map_err(|_| unreadable())
                .and_then(|text| {
                    json::normalize(text).map_err(|error| decode_error(&error, text.as_bytes()))
                })?;
            match run(normal.as_bytes(), out) {
                Ok(selected) => Ok(selected),
                Err(_) => {
                    out.truncate(mark);
                    Err(unreadable())
                }
            }
        }
    }
}

/// Appends the selection of one document (a JSON object's text) to `out`:
/// `fields` only as selected, `meta` whole unless named, `includes` whole
/// unless an `includes` item applies, and no other key; `*` copies it.
pub fn write_document(text: &str, plan: &Plan, out: &mut Vec<u8>) -> Result<()> {
    write_any(text.as_bytes(), plan, out, false)
}

/// [`write_document`] of a document whose text was checked already (a
/// stored document, or one of a list that was framed): the bytes the
/// selection skips or copies are only scanned for their end, not checked
/// again (the fast path of every query). Written as ASCII
/// ([`json::push_ascii`]), as every answer gives documents back to
/// JavaScript: the same values, which JavaScript decodes and parses faster.
/// `scratch` is a buffer to reuse.
pub(crate) fn write_valid_ascii(
    text: &[u8],
    plan: &Plan,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let mark = out.len();
    write_any(text, plan, out, true)?;
    // Most selected text is ASCII already: only the rest is rewritten.
    if !out.get(mark..).is_some_and(<[u8]>::is_ascii) {
        scratch.clear();
        scratch.extend(out.drain(mark..));
        json::push_ascii(out, scratch);
    }
    Ok(())
}

fn write_any(text: &[u8], plan: &Plan, out: &mut Vec<u8>, trusted: bool) -> Result<()> {
    let Some(root) = plan.document else {
        out.extend_from_slice(json::trim_space(text));
        return Ok(());
    };
    let first = skip_space(text, 0);
    if text.get(first) != Some(&b'{') {
        return Err(Error::invalid_argument(
            "expected a document: an object { fields, meta }",
        ));
    }
    apply_text(text, root, plan, out, trusted).map(drop)
}

/// The selection of one document, as JSON text.
pub fn select_document(text: &str, plan: &Plan) -> Result<String> {
    let mut out = Vec::with_capacity(text.len() / 2);
    write_document(text, plan, &mut out)?;
    String::from_utf8(out).map_err(|_| Error::invalid_argument("the selection is not UTF-8"))
}

/// Appends the selection of a list envelope's `includes` value (text that
/// was checked when the list was framed).
pub(crate) fn write_includes(text: &str, plan: &Plan, out: &mut Vec<u8>) -> Result<bool> {
    match plan.includes {
        Some(node) => apply_text(text.as_bytes(), node, plan, out, true),
        None => {
            out.extend_from_slice(json::trim_space(text.as_bytes()));
            Ok(true)
        }
    }
}
