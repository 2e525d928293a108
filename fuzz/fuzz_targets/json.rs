//! The JSON scanner on any bytes: no panic, and its entries agree on what
//! is JSON (and with serde_json where serde_json reads the text).
#![no_main]

use content_repo::engine::list::frame;
use content_repo::engine::order::{sort_key_at, value_key};
use content_repo::json::{normalize, validate, value_end};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Err(error) = value_end(bytes, 0) {
        assert!(error.position <= bytes.len());
    }
    let _ = sort_key_at(bytes, 0, false);
    let _ = sort_key_at(bytes, 0, true);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let valid = validate(text).is_ok();
    assert_eq!(normalize(text).is_ok(), valid);
    assert_eq!(value_key(bytes).is_some(), valid);
    assert_eq!(frame(text).is_ok(), valid);
    if let Ok(normal) = normalize(text) {
        assert_eq!(normalize(&normal).ok().as_ref(), Some(&normal));
        assert_eq!(value_key(normal.as_bytes()), value_key(bytes));
    }
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        assert!(valid, "serde_json reads it");
    }
});
