//! A recursive-descent parser from the selection grammar to a [`Selection`].
//!
//! ```text
//! selection := item ("," item)*
//! item      := path ["(" selection ")"]
//! path      := name ("/" name)*
//! name      := "*" | [A-Za-z0-9_-]+
//! ```

use super::lex::{Lexer, Token};
use super::{Node, Parts, Selection, MAX_DEPTH};
use crate::error::{Error, Result};

/// What an item at the top level addresses.
enum Top {
    Scope(&'static str),
    Shorthand,
    Star,
}

fn classify(token: &Token<'_>) -> Top {
    match token {
        Token::Star => Top::Star,
        Token::Name("fields") => Top::Scope("fields"),
        Token::Name("meta") => Top::Scope("meta"),
        Token::Name("includes") => Top::Scope("includes"),
        _ => Top::Shorthand,
    }
}

fn error(expected: impl Into<String>, found: &Token<'_>, position: usize) -> Error {
    Error::InvalidSelection {
        expected: expected.into(),
        found: found.describe(),
        position,
    }
}

/// What may follow an item; `closer` is `')'` inside parentheses and
/// `end of selection` at the top; `open`: the item ended with a name, which
/// `/` or `(` may continue (not after its `)`, or a top-level `*`).
fn after_item_expectation(closer: &str, open: bool) -> String {
    match open {
        true => format!("'/', '(', ',' or {closer}"),
        false => format!("',' or {closer}"),
    }
}

const NAME: &str = "a name ([A-Za-z0-9_-]+ or '*')";

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// Whether the last item read ended with a name (see
    /// [`after_item_expectation`]).
    open: bool,
}

impl<'a> Parser<'a> {
    /// Reads a name token, checking that it stays within [`MAX_DEPTH`].
    fn name(&mut self, level: usize) -> Result<String> {
        let (token, position) = self.lexer.peek();
        let name = match token {
            Token::Name(name) => name.to_owned(),
            Token::Star => "*".to_owned(),
            other => return Err(error(NAME, &other, position)),
        };
        if level > MAX_DEPTH {
            return Err(error(
                format!("at most {MAX_DEPTH} levels of nesting"),
                &token,
                position,
            ));
        }
        self.lexer.bump();
        Ok(name)
    }

    /// `selection` inside parentheses whose parent is at `level`; the
    /// returned node holds the merged items as children.
    fn nested(&mut self, level: usize) -> Result<Node> {
        let mut items = Vec::new();
        loop {
            items.push(self.item(level + 1)?);
            let (token, position) = self.lexer.peek();
            match token {
                Token::Comma => self.lexer.bump(),
                Token::Close => return Ok(Node::of(items)),
                other => {
                    let expected = after_item_expectation("')'", self.open);
                    return Err(error(expected, &other, position));
                }
            }
        }
    }

    /// `item` whose first name is at `level`: returns that name and the node
    /// for the rest of the path and its sub-selection.
    fn item(&mut self, level: usize) -> Result<(String, Node)> {
        let first = self.name(level)?;
        self.rest(first, level)
    }

    /// The rest of an item after its first name, at `level`.
    fn rest(&mut self, first: String, level: usize) -> Result<(String, Node)> {
        let mut path = vec![first];
        let mut level = level;
        loop {
            let (token, _) = self.lexer.peek();
            match token {
                Token::Slash => {
                    self.lexer.bump();
                    level += 1;
                    path.push(self.name(level)?);
                }
                Token::Open => {
                    self.lexer.bump();
                    let sub = self.nested(level)?;
                    // `nested` stops only on ')'.
                    self.lexer.bump();
                    self.open = false;
                    return Ok(chain(path, sub));
                }
                _ => {
                    self.open = true;
                    return Ok(chain(path, Node::default()));
                }
            }
        }
    }

    /// The whole input: top-level items, with their document-level meaning.
    fn top(&mut self) -> Result<Selection> {
        // The scopes' nodes as read (a shorthand item `title` as `fields`
        // holding `title`), united once at the end.
        let mut scopes = Vec::new();
        let mut all = false;
        loop {
            let (token, position) = self.lexer.peek();
            match classify(&token) {
                Top::Star => {
                    self.lexer.bump();
                    all = true;
                    let (next, at) = self.lexer.peek();
                    self.open = false;
                    if matches!(next, Token::Slash | Token::Open) {
                        return Err(error(
                            "',' or end of selection after a top-level '*' (it selects the whole document)",
                            &next,
                            at,
                        ));
                    }
                }
                Top::Scope(scope) => {
                    let (_, node) = self.item(1)?;
                    scopes.push((scope.to_owned(), node));
                }
                Top::Shorthand => {
                    // `title` means `fields/title`: the name sits at level 2.
                    if !matches!(token, Token::Name(_)) {
                        return Err(error(NAME, &token, position));
                    }
                    let item = self.item(2)?;
                    scopes.push(("fields".to_owned(), Node::of(vec![item])));
                }
            }
            let (token, position) = self.lexer.peek();
            match token {
                Token::Comma => self.lexer.bump(),
                Token::End => break,
                other => {
                    return Err(error(
                        after_item_expectation("end of selection", self.open),
                        &other,
                        position,
                    ))
                }
            }
        }
        if all {
            return Ok(Selection::All);
        }
        let (mut fields, mut includes, mut meta) = (None, None, None);
        for (scope, node) in Node::of(scopes).into_children() {
            let slot = match scope.as_str() {
                "fields" => &mut fields,
                "includes" => &mut includes,
                _ => &mut meta,
            };
            *slot = Some(node);
        }
        Ok(Selection::Parts(Parts {
            fields,
            includes,
            // Not named: meta stays whole.
            meta: meta.unwrap_or_default(),
        }))
    }
}

/// Wraps `leaf` in the nodes of `path` below its first name; returns the
/// first name and the node under it.
fn chain(mut path: Vec<String>, leaf: Node) -> (String, Node) {
    let mut node = leaf;
    while path.len() > 1 {
        let name = path.pop().unwrap_or_default();
        let mut parent = Node::default();
        parent.insert(name, node);
        node = parent;
    }
    (path.pop().unwrap_or_default(), node)
}

/// Parses a selection; see the module documentation for the grammar.
pub(crate) fn parse(text: &str) -> Result<Selection> {
    let mut parser = Parser {
        lexer: Lexer::new(text),
        open: true,
    };
    parser.top()
}
