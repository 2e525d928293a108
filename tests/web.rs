//! The boundary cases of `tests/common`, in headless Chromium.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod common;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

boundary_tests!();
