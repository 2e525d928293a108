//! Property tests: round trips of the selection's canonical form and of the
//! query string, and the encoder against its decoder.
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

#[path = "common/harness.rs"]
mod harness;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use content_repo::query::encode::{form_decode, form_pairs, form_urlencode};
use content_repo::{Direction, Filter, Join, Query, Selection};
use proptest::prelude::*;

/// A name from a small pool, so that duplicates and merges happen.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["a", "b", "title", "author", "x-y", "_z", "9"]).prop_map(String::from),
        1 => Just("*".to_string()),
        1 => prop::sample::select(vec!["fields", "meta", "includes"]).prop_map(String::from),
    ]
}

fn space() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "\t", "\r\n", "  "])
}

/// Generates selection text from the grammar, with whitespace.
fn selection_text(depth: u32) -> BoxedStrategy<String> {
    let leaf_item = (prop::collection::vec(name(), 1..4), space())
        .prop_map(|(path, s)| format!("{s}{}{s}", path.join("/")))
        .boxed();
    if depth == 0 {
        return prop::collection::vec(leaf_item, 1..4)
            .prop_map(|items| items.join(","))
            .boxed();
    }
    let item = prop_oneof![
        2 => leaf_item,
        1 => (prop::collection::vec(name(), 1..3), selection_text(depth - 1), space())
            .prop_map(|(path, sub, s)| format!("{}{s}({sub}){s}", path.join("/"))),
    ];
    prop::collection::vec(item, 1..4)
        .prop_map(|items| items.join(","))
        .boxed()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}",
        any::<String>().prop_filter("non-empty", |s| !s.is_empty()),
        prop::sample::select(vec!["a b", "a+b", "a&b=c", "%41", "[x]", "é😀", "100%"])
            .prop_map(String::from),
    ]
}

fn field_name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_-]{1,6}"
}

fn query() -> impl Strategy<Value = Query> {
    (
        prop::collection::vec((prop::bool::ANY, field_name(), prop::bool::ANY), 0..4),
        prop::option::of(selection_text(2)),
        prop::option::of(1u32..=1000),
        prop::option::of(0u64..=(1 << 53) - 1),
        prop::option::of("[A-Za-z_]{1,6}"),
        prop::option::of(prop_oneof![
            (1u8..=5).prop_map(Ok),
            prop::collection::vec(
                (
                    prop_oneof![Just("*".to_string()), field_name()],
                    field_name()
                ),
                1..3
            )
            .prop_map(Err),
        ]),
        prop::bool::ANY,
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(text(), 0..3),
        prop::option::of(text()),
        prop::collection::vec(
            (
                prop::bool::ANY,
                field_name(),
                "[A-Za-z]{1,8}",
                any::<String>(),
                prop::bool::ANY,
                prop_oneof![Just("*".to_string()), field_name()],
            ),
            0..3,
        ),
    )
        .prop_filter_map(
            "valid query",
            |(
                sorts,
                selection,
                limit,
                offset,
                locale,
                includes,
                embed,
                include,
                exclude,
                search,
                filters,
            )| {
                let mut query = Query::new();
                for (meta, name, desc) in sorts {
                    let key = format!("{}.{name}", if meta { "meta" } else { "fields" });
                    query
                        .sort(
                            &key,
                            if desc {
                                Direction::Desc
                            } else {
                                Direction::Asc
                            },
                        )
                        .ok()?;
                }
                if let Some(selection) = selection {
                    query.fields(&selection).ok()?;
                }
                if let Some(limit) = limit {
                    query.limit(limit).ok()?;
                }
                if let Some(offset) = offset {
                    query.offset(offset).ok()?;
                }
                if let Some(locale) = locale {
                    query.locale(&locale).ok()?;
                }
                match includes {
                    Some(Ok(levels)) => drop(query.include_levels(levels).ok()?),
                    Some(Err(fields)) => {
                        let fields: Vec<String> = fields
                            .iter()
                            .map(|(ct, f)| format!("{ct}.fields.{f}"))
                            .collect();
                        query.include_fields(&fields).ok()?;
                    }
                    None => {}
                }
                query.embed_assets(embed);
                query.include_tags(include).ok()?;
                query.exclude_tags(exclude).ok()?;
                if let Some(search) = search {
                    query.search(&search).ok()?;
                }
                for (meta, name, op, value, or, content_type) in filters {
                    let field = format!("{}.{name}", if meta { "meta" } else { "fields" });
                    let join = if or { Join::Or } else { Join::And };
                    query.filter(Filter::new(&field, &op, value, join, &content_type).ok()?);
                }
                Some(query)
            },
        )
}

proptest! {
    #![proptest_config(harness::config(512))]

    #[test]
    fn canonical_form_parses_back_to_the_same_tree(text in selection_text(3)) {
        // Generated text may be invalid (e.g. `*/a` at the top); then the
        // error must be positioned inside the input.
        match Selection::parse(&text) {
            Ok(selection) => {
                let canonical = selection.to_string();
                let again = Selection::parse(&canonical);
                prop_assert_eq!(again.as_ref().ok(), Some(&selection), "{} -> {}", text, canonical);
                prop_assert_eq!(again.map(|s| s.to_string()).ok(), Some(canonical));
            }
            Err(error) => {
                let position = error.position().unwrap_or(usize::MAX);
                prop_assert!(position <= text.encode_utf16().count());
            }
        }
    }

    #[test]
    fn any_input_gives_a_selection_or_a_positioned_error(text in any::<String>()) {
        match Selection::parse(&text) {
            Ok(selection) => prop_assert_eq!(Selection::parse(&selection.to_string()).ok(), Some(selection)),
            Err(error) => {
                prop_assert_eq!(error.code(), "invalid_selection");
                prop_assert!(error.position().unwrap_or(usize::MAX) <= text.encode_utf16().count());
            }
        }
    }

    #[test]
    fn query_string_round_trips(query in query()) {
        let text = query.to_string();
        let parsed = Query::parse(&text);
        prop_assert_eq!(parsed.as_ref().ok(), Some(&query), "{}", text);
        // Canonical: writing the parsed query gives the same bytes.
        prop_assert_eq!(parsed.map(|q| q.to_string()).ok(), Some(text));
    }

    #[test]
    fn form_encoding_round_trips(text in any::<String>()) {
        let encoded = form_urlencode(&text);
        prop_assert!(encoded.bytes().all(|b| b.is_ascii_alphanumeric() || b"*-._+%".contains(&b)));
        prop_assert_eq!(form_decode(&encoded), text.clone());
        let pairs = form_pairs(&format!("{encoded}={encoded}"));
        prop_assert_eq!(pairs, vec![(text.clone(), text)]);
    }
}
