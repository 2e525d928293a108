//! The boundary cases of `tests/common`, in Node.
#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn invalid_sort_keys_and_directions_throw_typed_errors() {
    common::invalid_sort_keys_and_directions_throw_typed_errors();
}

#[wasm_bindgen_test]
fn selection_errors_carry_a_position() {
    common::selection_errors_carry_a_position();
}

#[wasm_bindgen_test]
fn numeric_parameters_are_checked() {
    common::numeric_parameters_are_checked();
}

#[wasm_bindgen_test]
fn getters_return_plain_arrays_and_objects() {
    common::getters_return_plain_arrays_and_objects();
}

#[wasm_bindgen_test]
fn parse_round_trips_through_the_boundary() {
    common::parse_round_trips_through_the_boundary();
}

#[wasm_bindgen_test]
fn client_builds_urls_without_the_key() {
    common::client_builds_urls_without_the_key();
}
