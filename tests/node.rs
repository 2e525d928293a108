//! The boundary cases of `tests/common`, in Node.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod common;

use wasm_bindgen_test::*;

boundary_tests!();
