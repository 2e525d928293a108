//! A [`Selection`] compiled into a *projection plan*: a compact JSON tree
//! that a small interpreter outside Rust (`src/js/project.js`) applies to
//! documents exactly as [`project`](super::project) does. The semantics stay
//! single-sourced here: every union [`project::apply`](super::project::apply)
//! computes while it walks (a named child and `*`, an array's node and its
//! `*`) is computed once, ahead of time, and the document-level scope rules
//! are resolved.
//!
//! The plan (all node references are positions in `nodes`):
//!
//! ```text
//! {
//!   "nodes": [ null                      // a leaf: the whole value
//!            | [ {name: node, ...},      // the node of each named key
//!                star | -1,              // the node of any other key (-1: none)
//!                element ],              // the node of each non-array element of an array
//!            ... ],
//!   "fields": node | -1,                 // -1: no `fields` in the result
//!   "fieldNames": [name, ...] | null,    // the keys of `fields` read (null: every key)
//!   "meta": node,
//!   "metaNames": [name, ...] | null,
//!   "includes": node | -1                // -1: `includes` whole
//! }
//! ```
//!
//! `*` as a key of `{name: node}` is the node of a literal `*` key. The
//! `...Names` lists are the keys a scope is read with when only named keys
//! are selected, in code-point order, the order the Rust path reads them.
//!
//! ```
//! use content_repo::local::plan::compile;
//! use content_repo::Selection;
//!
//! let plan = compile(&Selection::parse("title")?).unwrap();
//! assert_eq!(
//!     plan.to_string(),
//!     r#"{"nodes":[[{"title":1},-1,0],null],"fields":0,"fieldNames":["title"],"meta":1,"metaNames":null,"includes":-1}"#
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::project::union;
use crate::query::selection::{Node, Selection};

/// The most plan nodes [`compile`] builds; a selection needing more (only
/// pathological `*` nesting can) gets no plan.
pub const MAX_PLAN_NODES: usize = 1024;

struct Compiler {
    nodes: Vec<Value>,
    known: HashMap<Node, usize>,
}

impl Compiler {
    fn node(&mut self, node: &Node) -> Option<usize> {
        if let Some(index) = self.known.get(node) {
            return Some(*index);
        }
        if self.nodes.len() >= MAX_PLAN_NODES {
            return None;
        }
        let index = self.nodes.len();
        self.nodes.push(Value::Null);
        self.known.insert(node.clone(), index);
        if node.is_leaf() {
            return Some(index);
        }
        let children = node.children();
        let star = children.get("*");
        let mut named = Map::new();
        for (name, child) in children {
            let target = match star {
                Some(star) if name != "*" => self.node(&union(child, star))?,
                _ => self.node(child)?,
            };
            named.insert(name.clone(), json!(target));
        }
        let star_index = match star {
            Some(star) => self.node(star)? as i64,
            None => -1,
        };
        let element = match star {
            Some(star) => self.node(&union(node, star))?,
            None => index,
        };
        if let Some(place) = self.nodes.get_mut(index) {
            *place = json!([named, star_index, element]);
        }
        Some(index)
    }
}

/// The keys a scope node reads when it selects only named keys (what the
/// Rust path keeps of a scope before applying it); `None` for every key.
fn names(node: &Node) -> Value {
    if node.is_leaf() || node.children().contains_key("*") {
        Value::Null
    } else {
        node.children().keys().cloned().collect()
    }
}

/// Compiles a selection of parts into its plan; `None` for [`Selection::All`]
/// (nothing to apply) and for selections beyond [`MAX_PLAN_NODES`].
pub fn compile(selection: &Selection) -> Option<Value> {
    let Selection::Parts(parts) = selection else {
        return None;
    };
    let mut compiler = Compiler {
        nodes: Vec::new(),
        known: HashMap::new(),
    };
    let fields = match &parts.fields {
        Some(node) => compiler.node(node)? as i64,
        None => -1,
    };
    let meta = compiler.node(&parts.meta)?;
    let includes = match &parts.includes {
        Some(node) => compiler.node(node)? as i64,
        None => -1,
    };
    Some(json!({
        "nodes": compiler.nodes,
        "fields": fields,
        "fieldNames": parts.fields.as_ref().map_or(Value::Null, names),
        "meta": meta,
        "metaNames": names(&parts.meta),
        "includes": includes,
    }))
}
