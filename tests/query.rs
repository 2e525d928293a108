//! Golden URLs, parameter validation and query-string parsing.
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

use content_repo::{ClientConfig, Direction, Endpoint, Error, Filter, Join, Query};

fn client() -> ClientConfig {
    ClientConfig::new(
        "https://cms.example.com/api//",
        "my repo",
        "s3cret-key",
        None,
    )
    .unwrap()
}

fn code(result: Result<impl std::fmt::Debug, Error>) -> &'static str {
    match result {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(error) => error.code(),
    }
}

#[test]
fn golden_urls_byte_for_byte() {
    let client = client();
    let mut query = Query::new();
    query
        .sort("fields.category", Direction::Asc)
        .unwrap()
        .sort("fields.price", Direction::Desc)
        .unwrap()
        .sort("meta.createdAt", Direction::Desc)
        .unwrap()
        .fields("title, price, author/name, meta(id,updatedAt)")
        .unwrap()
        .limit(25)
        .unwrap()
        .offset(50)
        .unwrap();
    assert_eq!(
        client.url(&Endpoint::Collection("products".into()), Some(&query)).unwrap(),
        "https://cms.example.com/api/v1/my%20repo/collections/products?\
         sorting%5Bfields.category%5D=ASC&sorting%5Bfields.price%5D=DESC&sorting%5Bmeta.createdAt%5D=DESC\
         &fields=fields%28author%2Fname%2Cprice%2Ctitle%29%2Cmeta%28id%2CupdatedAt%29&limit=25&offset=50"
    );

    let mut every = Query::new();
    every
        .filter(Filter::new("fields.slug", "equal", "a b&c", Join::Or, "*").unwrap())
        .search("café au lait")
        .unwrap()
        .exclude_tags(vec!["draft".into()])
        .unwrap()
        .include_tags(vec!["news".into(), "a+b".into()])
        .unwrap()
        .embed_assets(true)
        .include_fields(&["post.fields.author", "fields.tags"])
        .unwrap()
        .locale("en_US")
        .unwrap()
        .offset(0)
        .unwrap()
        .limit(1000)
        .unwrap()
        .fields("*")
        .unwrap()
        .sort("meta.id", Direction::Asc)
        .unwrap()
        .filter(Filter::new("meta.id", "greaterThan", "100", Join::And, "post").unwrap());
    assert_eq!(
        client.url(&Endpoint::Documents, Some(&every)).unwrap(),
        "https://cms.example.com/api/v1/my%20repo/documents?\
         sorting%5Bmeta.id%5D=ASC&fields=*&limit=1000&offset=0&locale=en_US\
         &includes%5Bpost.fields.author%5D=1&includes%5B*.fields.tags%5D=1&embedAssets=true\
         &includeTags%5B0%5D=news&includeTags%5B1%5D=a%2Bb&excludeTags%5B0%5D=draft\
         &search=caf%C3%A9+au+lait\
         &filters%5B0%5D%5B*.fields.slug%5D%5Bequal%5D=a+b%26c\
         &filters%5B1%5D%5Band%5D%5Bpost.meta.id%5D%5BgreaterThan%5D=100"
    );

    let mut levels = Query::new();
    levels.include_levels(3).unwrap();
    assert_eq!(
        client
            .url(&Endpoint::Document("12/34 ü".into()), Some(&levels))
            .unwrap(),
        "https://cms.example.com/api/v1/my%20repo/documents/12%2F34%20%C3%BC?includes=3"
    );
    assert_eq!(
        client.url(&Endpoint::Repository, None).unwrap(),
        "https://cms.example.com/api/v1/my%20repo"
    );
    assert_eq!(
        client
            .url(&Endpoint::Alias("home(1)".into()), Some(&Query::new()))
            .unwrap(),
        "https://cms.example.com/api/v1/my%20repo/alias/home(1)"
    );
    assert_eq!(
        client.url(&Endpoint::Asset("7".into()), None).unwrap(),
        "https://cms.example.com/api/v1/my%20repo/assets/7"
    );
    assert_eq!(
        client
            .url(&Endpoint::raw("/collections/a b").unwrap(), None)
            .unwrap(),
        "https://cms.example.com/api/v1/my%20repo/collections/a%20b"
    );
}

#[test]
fn the_key_is_never_in_a_url_or_debug_output() {
    let client = client();
    let url = client.url(&Endpoint::Documents, None).unwrap();
    assert!(!url.contains("s3cret"));
    assert!(!format!("{client:?}").contains("s3cret"));
    assert_eq!(client.authorization(), "s3cret-key");
    let bearer = ClientConfig::new("http://127.0.0.1:1", "r", "k", Some("Bearer ")).unwrap();
    assert_eq!(bearer.authorization(), "Bearer k");
}

#[test]
fn client_settings_are_validated() {
    for base in [
        "",
        "cms.example.com",
        "ftp://x",
        "http://",
        "https:///x",
        "http://a b",
        "http://x?q=1",
        "http://x#f",
        "//x",
    ] {
        assert_eq!(
            code(ClientConfig::new(base, "r", "k", None)),
            "invalid_argument",
            "{base:?}"
        );
    }
    // As URL parsers read them: what `new URL()` refuses, credentials, and
    // what would be fetched elsewhere than shown (a backslash, dot segments).
    for base in [
        "http://user:s3cret@h",
        "http://user@h",
        "http://@h",
        "http://h:99999",
        "http://h:abc",
        "http://h:-1",
        "http://[::1",
        "http://[x]",
        "http://[::1]x",
        "http://h\\evil",
        "http://h%2F",
        "http://h%61",
        "http://h<x>",
        "http://h^",
        "http://h|x",
        "http://h/api/../x",
        "http://h/%2e/x",
        "http://h/a/.%2E",
    ] {
        let error = ClientConfig::new(base, "r", "k", None).unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{base:?}");
        assert!(!error.to_string().contains("s3cret"), "{error}");
    }
    // Credentials in every spelling URL parsers read are never shown.
    for base in [
        "http:user:s3cret@h",
        "http:/user:s3cret@h",
        "http:///user:s3cret@h",
        "http:\\\\user:s3cret@h",
        "ftp://user:s3cret@h",
        "user:s3cret@h",
        "http://h /user:s3cret@x",
    ] {
        let error = ClientConfig::new(base, "r", "k", None).unwrap_err();
        let message = error.to_string();
        assert!(
            !message.contains("s3cret") && !message.contains("user"),
            "{message}"
        );
        assert!(message.contains("[credentials]@"), "{message}");
    }
    for (base, kept) in [
        ("http://[::1]:8080/", "http://[::1]:8080"),
        ("http://h:/", "http://h:"),
        ("https://h:443/api/v2", "https://h:443/api/v2"),
        ("http://127.0.0.1:0", "http://127.0.0.1:0"),
        (
            "http://bücher.example/a.b/..c",
            "http://bücher.example/a.b/..c",
        ),
    ] {
        let config = ClientConfig::new(base, "r", "k", None);
        assert_eq!(
            config.map(|c| c.base_url().to_owned()),
            Ok(kept.into()),
            "{base:?}"
        );
    }
    assert_eq!(
        ClientConfig::new("HTTPS://Example.com///", "r", "k", None)
            .unwrap()
            .base_url(),
        "https://Example.com"
    );
    for repository in ["", ".", ".."] {
        assert_eq!(
            code(ClientConfig::new("http://x", repository, "k", None)),
            "invalid_argument"
        );
    }
    for key in ["", "a\r\nX-Evil: 1", "tab\tkey", "nul\0"] {
        let error = ClientConfig::new("http://x", "r", key, None).unwrap_err();
        assert_eq!(error.code(), "invalid_argument");
        if !key.is_empty() {
            assert!(
                !error.to_string().contains(key),
                "the key leaks into {error}"
            );
        }
    }
    assert_eq!(
        code(ClientConfig::new("http://x", "r", "k", Some("Bearer\n"))),
        "invalid_argument"
    );
    let client = client();
    for id in ["", ".", ".."] {
        assert_eq!(
            code(client.url(&Endpoint::Document(id.into()), None)),
            "invalid_argument"
        );
        assert_eq!(
            code(client.url(&Endpoint::Collection(id.into()), None)),
            "invalid_argument"
        );
    }
    for raw in ["a//b", "a/./b", "../x", "documents/"] {
        assert_eq!(code(Endpoint::raw(raw)), "invalid_argument", "{raw:?}");
    }
}

#[test]
fn sort_keys_and_directions() {
    let mut query = Query::new();
    for (key, hint) in [
        ("title", Some("fields.title")),
        ("Fields.title", Some("fields.title")),
        ("META.id", Some("meta.id")),
        ("createdAt", Some("meta.createdAt")),
        ("fields.a.b", Some("fields.a")),
        ("fields.", None),
        ("fields.tit le", None),
        ("scope.title", None),
        ("", None),
    ] {
        let error = query.sort(key, Direction::Asc).map(drop).unwrap_err();
        assert_eq!(error.code(), "invalid_sort", "{key:?}");
        if let Some(hint) = hint {
            assert!(
                error
                    .to_string()
                    .contains(&format!("did you mean `{hint}`")),
                "{error}"
            );
        }
    }
    for (text, direction) in [
        ("ASC", Direction::Asc),
        ("asc", Direction::Asc),
        ("Asc", Direction::Asc),
        ("1", Direction::Asc),
        ("DESC", Direction::Desc),
        ("desc", Direction::Desc),
        ("-1", Direction::Desc),
    ] {
        assert_eq!(Direction::parse_for(text, "k").unwrap(), direction);
    }
    for text in ["", "up", "ascending", "0", "+1", " ASC", "-1.0"] {
        let error = Direction::parse_for(text, "fields.title").unwrap_err();
        assert_eq!(error.code(), "invalid_sort");
        assert!(
            error.to_string().contains(&format!("{text:?}")),
            "{error} names the value"
        );
    }
    // Sorting again on a key replaces its direction in place.
    query.sort("fields.a", Direction::Asc).unwrap();
    query.sort("fields.b", Direction::Asc).unwrap();
    query.sort("fields.a", Direction::Desc).unwrap();
    assert_eq!(
        query.to_string(),
        "sorting%5Bfields.a%5D=DESC&sorting%5Bfields.b%5D=ASC"
    );
}

#[test]
fn parameters_are_validated_and_replaced() {
    let mut query = Query::new();
    assert_eq!(code(query.limit(0)), "invalid_argument");
    assert_eq!(code(query.limit(1001)), "invalid_argument");
    assert_eq!(code(query.offset(1 << 53)), "invalid_argument");
    assert_eq!(code(query.include_levels(0)), "invalid_argument");
    assert_eq!(code(query.include_levels(6)), "invalid_argument");
    assert_eq!(code(query.include_fields::<&str>(&[])), "invalid_argument");
    assert_eq!(code(query.include_fields(&["author"])), "invalid_argument");
    assert_eq!(
        code(query.include_fields(&["a.meta.b"])),
        "invalid_argument"
    );
    assert_eq!(code(query.locale("")), "invalid_argument");
    assert_eq!(code(query.locale("en US")), "invalid_argument");
    assert_eq!(code(query.search("")), "invalid_argument");
    assert_eq!(
        code(query.include_tags(vec![String::new()])),
        "invalid_argument"
    );
    assert_eq!(
        code(Filter::new("slug", "equal", "x", Join::And, "*")),
        "invalid_argument"
    );
    assert_eq!(
        code(Filter::new("fields.slug", "eq-ual", "x", Join::And, "*")),
        "invalid_argument"
    );
    assert_eq!(
        code(Filter::new("fields.slug", "", "x", Join::And, "*")),
        "invalid_argument"
    );
    assert_eq!(
        code(Filter::new("fields.slug", "equal", "x", Join::And, "a.b")),
        "invalid_argument"
    );
    assert_eq!(code(query.fields("a(")), "invalid_selection");
    assert_eq!(query, Query::new(), "failed setters change nothing");
    query.limit(5).unwrap().limit(7).unwrap();
    query.fields("a").unwrap().fields("b").unwrap();
    query
        .include_tags(vec!["x".into()])
        .unwrap()
        .include_tags(vec![])
        .unwrap();
    assert_eq!(query.to_string(), "fields=fields%2Fb%2Cmeta&limit=7");
    query.embed_assets(true).embed_assets(false);
    assert_eq!(query.to_string(), "fields=fields%2Fb%2Cmeta&limit=7");
}

#[test]
fn parse_reads_the_wire_form_back() {
    let parsed = Query::parse(
        "?sorting[fields.title]=1&sorting%5Bmeta.id%5D=desc&fields=title&limit=10&offset=0\
         &includeTags[1]=b&includeTags[0]=a&filters[1][or][*.meta.id][lessThan]=5\
         &filters[0][post.fields.slug][equal]=x+y&embedAssets=true&includes=2&search=%E2%82%AC",
    )
    .unwrap();
    assert_eq!(
        parsed.to_string(),
        "sorting%5Bfields.title%5D=ASC&sorting%5Bmeta.id%5D=DESC&fields=fields%2Ftitle%2Cmeta\
         &limit=10&offset=0&includes=2&embedAssets=true&includeTags%5B0%5D=a&includeTags%5B1%5D=b\
         &search=%E2%82%AC&filters%5B0%5D%5Bpost.fields.slug%5D%5Bequal%5D=x+y\
         &filters%5B1%5D%5Bor%5D%5B*.meta.id%5D%5BlessThan%5D=5"
    );
    assert_eq!(Query::parse(&parsed.to_string()).unwrap(), parsed);
    assert_eq!(Query::parse("").unwrap(), Query::new());
    for bad in [
        "limit=0",
        "limit=abc",
        "limit=-1",
        "offset=1.5",
        "unknown=1",
        "sorting[title]=ASC",
        "sorting[fields.a]=up",
        "fields=a(",
        "includes=9",
        "filters[0][x][equal]=1",
        "filters[a][*.fields.x][equal]=1",
        "includeTags=a",
        "sorting[fields.a=ASC",
        "embedAssets=yes",
    ] {
        assert!(Query::parse(bad).is_err(), "{bad:?} should be rejected");
    }
    assert_eq!(code(Query::parse("fields=a%28")), "invalid_selection");
    assert_eq!(code(Query::parse("sorting[fields.a]=up")), "invalid_sort");
    // A filter target without its content type names what is missing (not
    // `a` as a field of content type `fields`).
    for target in ["fields.a", "meta.id"] {
        let error = Query::parse(&format!("filters[0][{target}][equal]=1")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("<contentType|*>.<fields|meta>.<field>"),
            "{message}"
        );
        assert!(message.contains(target), "{message}");
    }
}

#[test]
fn parse_replaces_as_the_setters_do_and_names_what_it_was_given() {
    let parsed = |text: &str| Query::parse(text).unwrap().to_string();
    // Levels and fields: the later replaces the earlier, either way.
    assert_eq!(
        parsed("includes=2&includes[*.fields.a]=1"),
        "includes%5B*.fields.a%5D=1"
    );
    assert_eq!(parsed("includes[*.fields.a]=1&includes=2"), "includes=2");
    assert_eq!(
        parsed("includes[*.fields.a]=1&includes=2&includes[*.fields.b]=1"),
        "includes%5B*.fields.b%5D=1"
    );
    assert_eq!(parsed("limit=5&limit=7"), "limit=7");
    // An error names the value given, not one it was narrowed to.
    for (text, shown) in [
        ("limit=99999999999", "invalid limit 99999999999:"),
        ("includes=300", "invalid includes 300:"),
        ("limit=0", "invalid limit 0:"),
    ] {
        let message = Query::parse(text).unwrap_err().to_string();
        assert!(message.starts_with(shown), "{text}: {message}");
    }
    // `Query.parse` (`Query::read`) takes the query of a whole URL (what
    // `client.url()` gives), without its fragment; a query string keeps a
    // `?` in a value.
    let read = |text: &str| Query::read(text).unwrap().to_string();
    let url = "https://cms.example.com/v1/blog/documents?limit=3&offset=6#top";
    assert_eq!(read(url), "limit=3&offset=6");
    assert_eq!(read("HTTP://h/v1/r/documents"), "");
    assert_eq!(read("/v1/r/documents?limit=2"), "limit=2");
    assert_eq!(read("search=what?&limit=2"), "limit=2&search=what%3F");
    assert_eq!(read("http://h/x#a?limit=5"), "");
    // What only looks like a URL is read as the query string it is, and
    // refused: never an empty query that drops its terms.
    for text in ["/limit=5", "https:limit=5", "/"] {
        assert!(Query::read(text).is_err(), "{text}");
    }
    // A query argument elsewhere is a query string: a URL is refused, never
    // read with its path ignored.
    assert!(Query::parse(url).is_err());
}

// ------------------------------------------------------------ the JavaScript setters

mod setters {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use content_repo::args::Arg;
    use content_repo::query::args::{number_text, Setter};
    use content_repo::{Error, Query};
    use proptest::prelude::*;

    fn text(value: &str) -> Arg {
        Arg::Text(value.into())
    }

    fn set(query: &mut Query, setter: Setter, value: Arg) -> Result<String, String> {
        query
            .set_arg(setter, &value)
            .map(|()| query.to_string())
            .map_err(|error: Error| format!("{}: {error}", error.code()))
    }

    #[test]
    fn each_setter_reads_its_argument_and_null_removes_it() {
        let mut q = Query::new();
        assert_eq!(
            set(&mut q, Setter::Limit, Arg::Number(10.0)).unwrap(),
            "limit=10"
        );
        assert_eq!(set(&mut q, Setter::Limit, Arg::Undefined).unwrap(), "");
        assert_eq!(
            set(&mut q, Setter::Limit, Arg::Number(0.0)).unwrap_err(),
            "invalid_argument: invalid limit 0: expected an integer from 1 to 1000"
        );
        assert_eq!(
            set(&mut q, Setter::Offset, text("3")).unwrap_err(),
            "invalid_argument: invalid offset \"3\": expected an integer from 0 to 9007199254740991"
        );
        assert_eq!(
            set(&mut q, Setter::Offset, Arg::Number(3.0)).unwrap(),
            "offset=3"
        );
        assert_eq!(set(&mut q, Setter::Offset, Arg::Null).unwrap(), "");
        assert_eq!(
            set(&mut q, Setter::Fields, text("title")).unwrap(),
            "fields=fields%2Ftitle%2Cmeta"
        );
        assert_eq!(set(&mut q, Setter::Fields, Arg::Null).unwrap(), "");
        assert_eq!(
            set(&mut q, Setter::Fields, Arg::Number(1.0)).unwrap_err(),
            "invalid_argument: the selection must be a string, got 1"
        );
        assert_eq!(
            set(&mut q, Setter::Includes, Arg::Number(2.0)).unwrap(),
            "includes=2"
        );
        assert_eq!(
            set(&mut q, Setter::Includes, Arg::Number(6.0)).unwrap_err(),
            "invalid_argument: invalid includes 6: expected an integer from 1 to 5"
        );
        assert_eq!(
            set(&mut q, Setter::Includes, text("fields.author")).unwrap(),
            "includes%5B*.fields.author%5D=1"
        );
        assert_eq!(
            set(
                &mut q,
                Setter::Includes,
                Arg::Array(vec![text("post.fields.a"), Arg::Number(1.0)])
            )
            .unwrap_err(),
            "invalid_argument: includes[1] must be a string, got 1"
        );
        assert_eq!(set(&mut q, Setter::Includes, Arg::Undefined).unwrap(), "");
        // An empty array removes it, as it removes `includeTags`: set, then cleared.
        set(&mut q, Setter::Includes, text("fields.author")).unwrap();
        assert_eq!(
            set(&mut q, Setter::Includes, Arg::Array(Vec::new())).unwrap(),
            ""
        );
        assert_eq!(
            set(&mut q, Setter::IncludeTags, Arg::Array(Vec::new())).unwrap(),
            ""
        );
        assert_eq!(
            set(&mut q, Setter::EmbedAssets, Arg::Undefined).unwrap(),
            "embedAssets=true"
        );
        assert_eq!(
            set(&mut q, Setter::EmbedAssets, Arg::Bool(false)).unwrap(),
            ""
        );
        assert_eq!(
            set(&mut q, Setter::EmbedAssets, text("yes")).unwrap_err(),
            "invalid_argument: embedAssets must be a boolean, got \"yes\""
        );
        assert_eq!(
            set(
                &mut q,
                Setter::IncludeTags,
                Arg::Array(vec![text("a"), text("b")])
            )
            .unwrap(),
            "includeTags%5B0%5D=a&includeTags%5B1%5D=b"
        );
        assert_eq!(set(&mut q, Setter::IncludeTags, Arg::Null).unwrap(), "");
        assert_eq!(
            set(&mut q, Setter::ExcludeTags, text("a")).unwrap_err(),
            "invalid_argument: excludeTags must be an array of strings, got \"a\""
        );
        assert_eq!(
            set(&mut q, Setter::Locale, text("de")).unwrap(),
            "locale=de"
        );
        assert_eq!(set(&mut q, Setter::Locale, Arg::Undefined).unwrap(), "");
        assert_eq!(
            set(&mut q, Setter::Search, text("x y")).unwrap(),
            "search=x+y"
        );
        assert_eq!(
            set(&mut q, Setter::Search, text(""))
                .unwrap_err()
                .split(':')
                .next(),
            Some("invalid_argument")
        );
    }

    #[test]
    fn sort_and_filter_read_their_arguments() {
        let mut q = Query::new();
        q.sort_arg(&text("fields.title"), &Arg::Number(1.0))
            .unwrap();
        q.sort_arg(&text("meta.id"), &text("desc")).unwrap();
        assert_eq!(
            q.sorting_json(),
            r#"[{"key":"fields.title","direction":"ASC"},{"key":"meta.id","direction":"DESC"}]"#
        );
        assert_eq!(Query::new().sorting_json(), "[]");
        for (key, direction, message) in [
            (
                Arg::Number(1.0),
                text("asc"),
                "invalid sort key 1: expected a string such as \"fields.title\"",
            ),
            (
                text("fields.x"),
                Arg::Number(2.0),
                "invalid sort direction 2 for `fields.x`: expected \"ASC\", \"DESC\", 1 or -1",
            ),
            (
                text("fields.x"),
                Arg::Null,
                "invalid sort direction null for `fields.x`: expected \"ASC\", \"DESC\", 1 or -1",
            ),
        ] {
            let error = q.clone().sort_arg(&key, &direction).unwrap_err();
            assert_eq!(
                (error.code(), error.to_string().as_str()),
                ("invalid_sort", message)
            );
        }
        let filter = |entries: Vec<(&'static str, Arg)>| {
            move |path: &[&str]| match path {
                [] => Arg::Object,
                [key] => entries
                    .iter()
                    .find(|(k, _)| k == key)
                    .map_or(Arg::Undefined, |(_, v)| v.clone()),
                _ => Arg::Undefined,
            }
        };
        let mut q = Query::new();
        q.filter_arg(&filter(vec![
            ("field", text("meta.id")),
            ("op", text("greaterThan")),
            ("value", Arg::Number(1e21)),
        ]))
        .unwrap();
        q.filter_arg(&filter(vec![
            ("field", text("fields.ok")),
            ("op", text("equal")),
            ("value", Arg::Bool(true)),
            ("join", text("or")),
            ("contentType", text("post")),
        ]))
        .unwrap();
        assert_eq!(
            q.to_string(),
            "filters%5B0%5D%5B*.meta.id%5D%5BgreaterThan%5D=1e%2B21&filters%5B1%5D%5Bor%5D%5Bpost.fields.ok%5D%5Bequal%5D=true"
        );
        for (entries, message) in [
            (
                vec![
                    ("field", text("meta.id")),
                    ("op", text("equal")),
                    ("value", Arg::Number(f64::NAN)),
                ],
                "filter value must be a string, a finite number or a boolean, got NaN",
            ),
            (
                vec![
                    ("field", text("meta.id")),
                    ("op", text("equal")),
                    ("value", Arg::Null),
                ],
                "filter value must be a string, a finite number or a boolean, got null",
            ),
            (
                vec![("op", text("equal")), ("value", text("x"))],
                "filter field must be a string, got undefined",
            ),
            (
                vec![
                    ("field", text("meta.id")),
                    ("op", text("equal")),
                    ("value", text("x")),
                    ("join", text("xor")),
                ],
                "invalid filter join \"xor\": expected \"and\" or \"or\"",
            ),
        ] {
            assert_eq!(
                Query::new()
                    .filter_arg(&filter(entries))
                    .unwrap_err()
                    .to_string(),
                message
            );
        }
        let not_object = |_: &[&str]| text("x");
        assert_eq!(
            Query::new()
                .filter_arg(&not_object)
                .unwrap_err()
                .to_string(),
            "a filter must be an object { field, op, value, join?, contentType? }, got \"x\""
        );
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        for (number, written) in [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (100.0, "100"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9_007_199_254_740_992.0, "9007199254740992"),
            (1e20, "100000000000000000000"),
            (123_456_789_012_345_680_000.0, "123456789012345680000"),
            (1e21, "1e+21"),
            (1.2345e21, "1.2345e+21"),
            (0.000001, "0.000001"),
            (0.0000015, "0.0000015"),
            (1e-7, "1e-7"),
            (-1.5e-7, "-1.5e-7"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ] {
            assert_eq!(number_text(number), written, "{number:e}");
        }
    }

    proptest! {
        #![proptest_config(super::harness::config(1024))]

        /// Written numbers read back to themselves, with the shortest digits
        /// (those of Rust's `{:e}`), in plain notation exactly from 1e-6 to
        /// 1e21.
        #[test]
        fn written_numbers_read_back_with_the_shortest_digits(number in any::<f64>().prop_filter("finite", |n| n.is_finite())) {
            let written = number_text(number);
            prop_assert_eq!(written.parse::<f64>().unwrap(), number, "{}", written);
            let plain = number == 0.0 || (1e-6..1e21).contains(&number.abs());
            prop_assert_eq!(!written.contains('e'), plain, "{}", written);
            let shortest = format!("{:e}", number.abs());
            let digits = |text: &str| -> String {
                let mantissa = text.split('e').next().unwrap();
                let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
                digits.trim_start_matches('0').trim_end_matches('0').to_owned()
            };
            prop_assert_eq!(digits(&written), digits(&shortest), "{} vs {}", written, shortest);
        }
    }
}
