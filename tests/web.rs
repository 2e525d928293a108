//! The boundary cases of `tests/common`, in headless Chromium.
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
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod common;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

boundary_tests!();
