//! Field selection: the `fields` parameter as a typed tree.
//!
//! [`Selection::parse`] reads the grammar of SPEC.md section 3 and gives the
//! document-level meaning (scopes, shorthand, the `meta` rule, merging);
//! [`Selection`]'s `Display` is the canonical explicit form that is sent.
//!
//! ```
//! use content_repo::Selection;
//!
//! let selection = Selection::parse("title, author/name").unwrap();
//! assert_eq!(selection.to_string(), "fields(author/name,title),meta");
//!
//! let error = Selection::parse("a(b").unwrap_err();
//! assert_eq!(error.position(), Some(3));
//! ```

mod lex;
mod parse;

use std::fmt;

use crate::hash::Map;

use crate::error::Result;

/// The deepest level a selection may reach in a document; the scope
/// (`fields`, `meta`, `includes`) is level 1, so `title` (`fields/title`) is
/// at level 2.
const MAX_DEPTH: usize = 32;

/// A node of a selection tree. A node without children selects the whole
/// value; otherwise each child selects the key of its name (`*` every key).
///
/// Children are kept in code-point order of their names, which is the order
/// of the canonical form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Node {
    children: Children,
}

/// A node's children: `(name, node)` pairs sorted by name bytes (code-point
/// order), each name once. A sorted vector rather than a `BTreeMap`, whose
/// code was 6 KB of the module: selections have few names per level.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Children(Vec<(String, Node)>);

impl Children {
    /// The child named `name`.
    pub fn get(&self, name: &str) -> Option<&Node> {
        let at = self
            .0
            .binary_search_by(|(known, _)| known.as_str().cmp(name));
        self.0.get(at.ok()?).map(|(_, node)| node)
    }

    /// The children in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Node)> {
        self.0.iter().map(|(name, node)| (name, node))
    }

    /// How many children.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> IntoIterator for &'a Children {
    type Item = (&'a String, &'a Node);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Node)>,
        fn(&'a (String, Node)) -> (&'a String, &'a Node),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(name, node)| (name, node))
    }
}

impl Node {
    /// A node that selects the whole value.
    pub fn leaf() -> Self {
        Node::default()
    }

    /// Whether this node selects the whole value.
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// The children, by name in code-point order (`*` is a name too).
    pub fn children(&self) -> &Children {
        &self.children
    }

    /// The children, owned.
    pub(crate) fn into_children(self) -> Vec<(String, Node)> {
        self.children.0
    }

    /// Adds `node` under `name`, merging with what is there (union).
    pub fn insert(&mut self, name: String, node: Node) {
        let children = &mut self.children.0;
        match children.binary_search_by(|(known, _)| known.as_str().cmp(&name)) {
            Ok(at) => {
                if let Some((_, existing)) = children.get_mut(at) {
                    existing.merge(node);
                }
            }
            Err(at) => children.insert(at, (name, node)),
        }
        self.absorb();
    }

    /// Merges `other` into `self`: the union of both selections. A leaf
    /// absorbs any sub-selection of the same value.
    pub fn merge(&mut self, other: Node) {
        if self.is_leaf() {
            return;
        }
        if other.is_leaf() {
            self.children.0.clear();
            return;
        }
        let mut items = std::mem::take(&mut self.children.0);
        items.extend(other.children.0);
        *self = Node::of(items);
    }

    /// The node with children `items` in any order, the nodes of a repeated
    /// name united: one sort per level, so that a selection of many names,
    /// or of one name repeated many times, is read in `O(n log n)`.
    pub fn of(items: Vec<(String, Node)>) -> Node {
        // (The crate's sort: the standard library's would add its code.)
        let items = crate::sort::sorted(items, &mut |(a, _), (b, _)| a.cmp(b));
        let mut groups: Vec<(String, Vec<Node>)> = Vec::with_capacity(items.len());
        for (name, node) in items {
            match groups.last_mut() {
                Some((last, nodes)) if *last == name => nodes.push(node),
                _ => groups.push((name, vec![node])),
            }
        }
        let children = groups
            .into_iter()
            .map(|(name, mut nodes)| {
                let node = if nodes.len() == 1 {
                    nodes.pop().unwrap_or_default()
                } else if nodes.iter().any(Node::is_leaf) {
                    Node::leaf()
                } else {
                    Node::of(nodes.into_iter().flat_map(|node| node.children.0).collect())
                };
                (name, node)
            })
            .collect();
        let mut node = Node {
            children: Children(children),
        };
        node.absorb();
        node
    }

    /// A `*` that selects every key whole makes its siblings redundant.
    fn absorb(&mut self) {
        if self.children.len() > 1 && self.children.get("*").is_some_and(Node::is_leaf) {
            self.children.0 = vec![("*".to_owned(), Node::leaf())];
        }
    }

    /// Whether everything `requested` selects can be computed from what this
    /// node selected: `requested(self(value)) == requested(value)` for every
    /// value. Conservative: `false` when unsure.
    ///
    /// A value may be an object or an array, and a `*` with a sub-selection
    /// means different things on each (SPEC.md section 3): on an object it
    /// applies to every key's value, on an array to every element itself,
    /// while the other names apply to the elements' keys. So `a/*/x` does
    /// not cover `a/b/x` (on `a: [{"b": {"x": 1}}]` it keeps `[{}]`).
    pub fn covers(&self, requested: &Node) -> bool {
        self.covers_in(requested, &mut Map::default())
    }

    /// [`Node::covers`], remembering the pairs already decided: checking both
    /// readings of each `*` would otherwise repeat the same checks
    /// exponentially often (`*/*/*/...`).
    fn covers_in(&self, requested: &Node, known: &mut Map<(Node, Node), bool>) -> bool {
        if self.is_leaf() {
            return true;
        }
        if requested.is_leaf() {
            return false;
        }
        let pair = (self.clone(), requested.clone());
        if let Some(&answer) = known.get(&pair) {
            return answer;
        }
        let star = self.children.get("*");
        // On an object: key `name` gets its own node united with `*`.
        let keys = requested.children.iter().all(|(name, wanted)| {
            let named = if name == "*" {
                None
            } else {
                self.children.get(name)
            };
            match (named, star) {
                (Some(named), Some(star)) => {
                    let mut both = named.clone();
                    both.merge(star.clone());
                    both.covers_in(wanted, known)
                }
                (Some(only), None) | (None, Some(only)) => only.covers_in(wanted, known),
                (None, None) => false,
            }
        });
        // On an array: every element gets the element node. Without a `*`
        // that is the node itself, and with a `*` that selects whole
        // values it covers everything: only a `*` with a sub-selection needs
        // the check.
        let answer = keys
            && (!star.is_some_and(|star| !star.is_leaf())
                || self.element().covers_in(&requested.element(), known));
        known.insert(pair, answer);
        answer
    }

    /// The node each element of an array gets (SPEC.md section 3): the `*`
    /// child (the elements themselves, with the rest of its path) united with
    /// the other children (applied to each element); without `*`, the node.
    pub fn element(&self) -> Node {
        let Some(star) = self.children.get("*") else {
            return self.clone();
        };
        let mut element = star.clone();
        for (name, child) in &self.children {
            if name != "*" {
                let mut one = Node::default();
                one.insert(name.clone(), child.clone());
                element.merge(one);
            }
        }
        element
    }

    fn write_item(&self, name: &str, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(name)?;
        match self.children.len() {
            0 => Ok(()),
            1 => {
                out.write_str("/")?;
                self.write_children(out)
            }
            _ => {
                out.write_str("(")?;
                self.write_children(out)?;
                out.write_str(")")
            }
        }
    }

    fn write_children(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (name, child)) in self.children.iter().enumerate() {
            if index > 0 {
                out.write_str(",")?;
            }
            child.write_item(name, out)?;
        }
        Ok(())
    }
}

/// The scoped parts of a selection that is not `*`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Parts {
    /// What is returned of `fields`; `None`: no `fields` at all.
    pub fields: Option<Node>,
    /// What is returned of the list's `includes`; `None`: all of it.
    pub includes: Option<Node>,
    /// What is returned of `meta` (a leaf when meta stays whole).
    pub meta: Node,
}

/// A parsed field selection with its document-level meaning.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Selection {
    /// A bare top-level `*`: the whole document.
    All,
    /// Scopes selected item by item.
    Parts(Parts),
}

impl Selection {
    /// Parses a selection, giving a positioned
    /// [`Error::InvalidSelection`](crate::Error::InvalidSelection) for
    /// anything outside the grammar.
    pub fn parse(text: &str) -> Result<Selection> {
        parse::parse(text)
    }
}

impl Selection {
    /// Whether documents projected with `fetched` (`None`: whole documents)
    /// still hold everything `requested` (`None`: the whole document)
    /// selects. Conservative: `false` when unsure.
    pub fn covers(fetched: Option<&Selection>, requested: Option<&Selection>) -> bool {
        let fetched = match fetched {
            None | Some(Selection::All) => return true,
            Some(Selection::Parts(parts)) => parts,
        };
        let requested = match requested {
            None | Some(Selection::All) => return false,
            Some(Selection::Parts(parts)) => parts,
        };
        let scope = |have: &Option<Node>, want: &Option<Node>| match (have, want) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(have), Some(want)) => have.covers(want),
        };
        scope(&fetched.fields, &requested.fields)
            && scope(&fetched.includes, &requested.includes)
            && fetched.meta.covers(&requested.meta)
    }

    /// Whether documents projected with `fetched` still hold the whole value
    /// of `scope.name` (`scope` is `fields` or `meta`), as sorting needs.
    pub fn covers_key(fetched: Option<&Selection>, scope: &str, name: &str) -> bool {
        let parts = match fetched {
            None | Some(Selection::All) => return true,
            Some(Selection::Parts(parts)) => parts,
        };
        let node = match scope {
            "fields" => parts.fields.as_ref(),
            "meta" => Some(&parts.meta),
            _ => None,
        };
        let mut wanted = Node::default();
        wanted.insert(name.to_owned(), Node::leaf());
        node.is_some_and(|node| node.covers(&wanted))
    }
}

impl fmt::Display for Selection {
    /// The canonical explicit form: scopes spelled out, shorthand expanded,
    /// duplicates merged, `meta` always written, siblings in code-point order.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = match self {
            Selection::All => return out.write_str("*"),
            Selection::Parts(parts) => parts,
        };
        if let Some(fields) = &parts.fields {
            fields.write_item("fields", out)?;
            out.write_str(",")?;
        }
        if let Some(includes) = &parts.includes {
            includes.write_item("includes", out)?;
            out.write_str(",")?;
        }
        parts.meta.write_item("meta", out)
    }
}

impl std::str::FromStr for Selection {
    type Err = crate::Error;

    fn from_str(text: &str) -> Result<Self> {
        Selection::parse(text)
    }
}
