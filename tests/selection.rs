//! Table tests for the selection grammar, its errors and its canonical form.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::pedantic,
    unreachable_pub,
    reason = "a test fails by panicking; test code is not held to the pedantic lints"
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use content_repo::{Error, Selection};

fn canonical(text: &str) -> String {
    match Selection::parse(text) {
        Ok(selection) => selection.to_string(),
        Err(error) => panic!("{text:?} should parse, got {error}"),
    }
}

fn error(text: &str) -> (usize, String, String) {
    match Selection::parse(text) {
        Ok(selection) => panic!("{text:?} should fail, parsed as {selection}"),
        Err(Error::InvalidSelection {
            position,
            expected,
            found,
        }) => (position, expected, found),
        Err(other) => panic!("{text:?}: wrong error kind {other:?}"),
    }
}

#[test]
fn canonical_forms() {
    let table = [
        // Shorthand is expanded, meta appended when it stays whole.
        ("title", "fields/title,meta"),
        ("title, author/name", "fields(author/name,title),meta"),
        ("author/name,title", "fields(author/name,title),meta"),
        // Scopes spelled out.
        ("fields", "fields,meta"),
        ("meta", "meta"),
        ("meta/id", "meta/id"),
        ("meta(id,revision)", "meta(id,revision)"),
        ("fields(title),meta(id)", "fields/title,meta/id"),
        ("includes", "includes,meta"),
        (
            "includes(author/fields/name)",
            "includes/author/fields/name,meta",
        ),
        (
            "title,includes(author)",
            "fields/title,includes/author,meta",
        ),
        // `fields=meta` returns no fields.
        ("meta(id),meta(createdAt)", "meta(createdAt,id)"),
        // Duplicates merged, a whole value absorbs its sub-paths.
        ("title,title", "fields/title,meta"),
        ("author,author/name", "fields/author,meta"),
        ("author/name,author", "fields/author,meta"),
        ("a(b),a(c)", "fields/a(b,c),meta"),
        ("a/b/c,a/b/d", "fields/a/b(c,d),meta"),
        ("fields/title,title", "fields/title,meta"),
        ("fields,title", "fields,meta"),
        ("meta,meta/id", "meta"),
        // One child `a/b`, several `a(b,c)`, nested groups.
        ("a(b)", "fields/a/b,meta"),
        ("a(b(c,d))", "fields/a/b(c,d),meta"),
        ("a(b(c),e)", "fields/a(b/c,e),meta"),
        // Siblings in code-point order: `*` < `-` < digits < upper < `_` < lower.
        ("b,a,_,Z,9,-", "fields(-,9,Z,_,a,b),meta"),
        ("gallery/*/url", "fields/gallery/*/url,meta"),
        ("a(*,b)", "fields/a/*,meta"),
        ("a(b,*)", "fields/a/*,meta"),
        ("a(*/x,b/y)", "fields/a(*/x,b/y),meta"),
        // A bare `*` selects everything and absorbs the rest.
        ("*", "*"),
        ("title,*", "*"),
        ("*,meta(id)", "*"),
    ];
    for (input, expected) in table {
        assert_eq!(canonical(input), expected, "input {input:?}");
    }
    // Whitespace around tokens is ignored.
    assert_eq!(
        canonical(" a ( b , c ) , d / e "),
        "fields(a(b,c),d/e),meta"
    );
    assert_eq!(canonical("\ta\r\n/\nb"), "fields/a/b,meta");
}

#[test]
fn canonical_form_is_a_fixed_point() {
    for input in [
        "title, author/name",
        "a(b(c),e),meta(id)",
        "includes(x/y),z",
        "*",
    ] {
        let once = canonical(input);
        assert_eq!(canonical(&once), once);
        assert_eq!(Selection::parse(&once).ok(), Selection::parse(input).ok());
    }
}

#[test]
fn errors_with_positions() {
    let table: [(&str, usize, &str); 24] = [
        ("", 0, "a name"),
        ("   ", 3, "a name"),
        ("a,,b", 2, "a name"),
        ("a,", 2, "a name"),
        (",a", 0, "a name"),
        ("a//b", 2, "a name"),
        ("//", 0, "a name"),
        ("a/", 2, "a name"),
        ("a()", 2, "a name"),
        ("a(b", 3, "')'"),
        ("a(b,c", 5, "')'"),
        ("a(b))", 4, "end of selection"),
        ("a)", 1, "end of selection"),
        (")", 0, "a name"),
        ("(a)", 0, "a name"),
        ("a b", 2, "end of selection"),
        ("titlé", 4, "end of selection"),
        ("é", 0, "a name"),
        // UTF-16 positions: the emoji is two code units.
        ("a(😀)", 2, "a name"),
        ("a,b😀", 3, "end of selection"),
        ("a.b", 1, "end of selection"),
        ("*/a", 1, "top-level '*'"),
        ("*(a)", 1, "top-level '*'"),
        ("a(b)c", 4, "end of selection"),
    ];
    for (input, position, expected) in table {
        let (at, said, _) = error(input);
        assert_eq!(at, position, "position for {input:?}");
        assert!(
            said.contains(expected),
            "{input:?}: expected {said:?} to mention {expected:?}"
        );
    }
    // A `*` inside a path or group is allowed; only the top-level one is bare.
    assert_eq!(canonical("a/*"), "fields/a/*,meta");
}

#[test]
fn error_messages_say_what_and_where() {
    let message = Selection::parse("author(name").unwrap_err().to_string();
    assert_eq!(
        message,
        "invalid selection: expected '/', '(', ',' or ')' at 11, found end of selection"
    );
    let message = Selection::parse("titlé").unwrap_err().to_string();
    assert!(message.contains("at 4"), "{message}");
    assert!(message.contains("'é'"), "{message}");
    let message = Selection::parse("a,\u{7}").unwrap_err().to_string();
    assert!(message.contains("U+0007"), "{message}");
    // After a `)` or a top-level `*`, no `/` or `(` can follow: the message
    // does not offer them.
    for (input, expected) in [
        ("a(b)/c", "expected ',' or end of selection at 4, found '/'"),
        ("x(a(b)c)", "expected ',' or ')' at 6, found name 'c'"),
        (
            "*a",
            "expected ',' or end of selection at 1, found name 'a'",
        ),
        ("*)", "expected ',' or end of selection at 1, found ')'"),
        (
            "a(b) c",
            "expected ',' or end of selection at 5, found name 'c'",
        ),
        (
            "a(b c)",
            "expected '/', '(', ',' or ')' at 4, found name 'c'",
        ),
    ] {
        let message = Selection::parse(input).unwrap_err().to_string();
        assert!(message.ends_with(expected), "{input:?}: {message}");
    }
}

#[test]
fn depth_limit_counts_document_levels() {
    // `fields` is level 1, so a shorthand path may have 31 names.
    let names = |n: usize| (0..n).map(|i| format!("n{i}")).collect::<Vec<_>>();
    let ok = names(31).join("/");
    assert!(Selection::parse(&ok).is_ok());
    let deep = names(32).join("/");
    let (position, expected, _) = error(&deep);
    assert_eq!(position, deep.rfind("n31").unwrap());
    assert!(expected.contains("32 levels"));
    // With an explicit scope, 31 names below it.
    assert!(Selection::parse(&format!("fields/{ok}")).is_ok());
    assert!(Selection::parse(&format!("fields/{deep}")).is_err());
    // Parentheses count the same way.
    let nested = format!("{}x{}", "a(".repeat(30), ")".repeat(30));
    assert!(Selection::parse(&nested).is_ok());
    let too_deep = format!("{}x{}", "a(".repeat(31), ")".repeat(31));
    let (position, _, _) = error(&too_deep);
    assert_eq!(position, 62);
    // The canonical form of the deepest valid selection parses again.
    let deepest = Selection::parse(&ok).unwrap();
    assert_eq!(Selection::parse(&deepest.to_string()).unwrap(), deepest);
    // Very long input fails fast and without overflowing the stack.
    let huge = "a(".repeat(100_000);
    assert_eq!(error(&huge).0, 62);
    let long_path = "a/".repeat(100_000);
    assert_eq!(error(&long_path).0, 62);
}

#[test]
fn document_level_meaning() {
    let Selection::Parts(parts) = Selection::parse("title,meta(id)").unwrap() else {
        panic!("not parts")
    };
    assert!(parts.fields.is_some());
    assert!(parts.includes.is_none());
    assert!(!parts.meta.is_leaf());
    let Selection::Parts(parts) = Selection::parse("meta").unwrap() else {
        panic!("not parts")
    };
    assert!(parts.fields.is_none(), "fields=meta returns no fields");
    assert!(parts.meta.is_leaf());
    let Selection::Parts(parts) = Selection::parse("title").unwrap() else {
        panic!("not parts")
    };
    assert!(parts.meta.is_leaf(), "meta stays whole when not named");
    assert_eq!(Selection::parse(" * ").unwrap(), Selection::All);
}
