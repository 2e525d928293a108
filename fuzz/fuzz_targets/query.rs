//! The query-string parser on any text: a query that writes a query string
//! reading back as itself, or an error of a request code.
#![no_main]

use content_repo::Query;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match Query::parse(text) {
        Ok(query) => {
            let written = query.to_string();
            let again = Query::parse(&written);
            assert_eq!(again.as_ref().ok(), Some(&query), "{written}");
            assert_eq!(again.map(|q| q.to_string()).ok(), Some(written));
        }
        Err(error) => assert!(matches!(
            error.code(),
            "invalid_argument" | "invalid_sort" | "invalid_selection"
        )),
    }
});
