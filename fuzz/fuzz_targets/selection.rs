//! The selection parser on any text: a selection whose canonical form reads
//! back as itself and compiles, or an error positioned inside the input.
#![no_main]

use content_repo::engine::select::Plan;
use content_repo::Selection;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match Selection::parse(text) {
        Ok(selection) => {
            let canonical = selection.to_string();
            assert_eq!(Selection::parse(&canonical).ok().as_ref(), Some(&selection));
            if let Err(error) = Plan::compile(&selection) {
                assert_eq!(error.code(), "invalid_selection");
            }
            assert!(Selection::covers(Some(&selection), Some(&selection)));
        }
        Err(error) => {
            assert_eq!(error.code(), "invalid_selection");
            let position = error.position().unwrap_or(usize::MAX);
            assert!(position <= text.encode_utf16().count());
        }
    }
});
