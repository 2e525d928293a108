//! `DocumentStore`: documents in wasm memory, for JavaScript.
