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

#[wasm_bindgen_test]
fn sort_documents_orders_and_keeps_identity() {
    common::local::sort_documents_orders_and_keeps_identity();
}

#[wasm_bindgen_test]
fn select_fields_projects_documents_and_lists() {
    common::local::select_fields_projects_documents_and_lists();
}

#[wasm_bindgen_test]
fn apply_query_returns_a_list_envelope() {
    common::local::apply_query_returns_a_list_envelope();
}

#[wasm_bindgen_test]
fn local_engine_arguments_throw_typed_errors() {
    common::local::local_engine_arguments_throw_typed_errors();
}

#[wasm_bindgen_test]
fn document_store_round_trip() {
    common::local::document_store_round_trip();
}
