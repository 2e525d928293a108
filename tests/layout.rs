//! The sans-IO layout (ARCHITECTURE.md, "The boundary has no logic"):
//! `src/wasm/*.rs` converts values and calls the core (`src/js` performs the I/O), within a line
//! budget (`BOUNDARY_BUDGET`, comments included), with no inline JavaScript (JavaScript lives in
//! `src/js/`); the core never names `wasm_bindgen`, `js_sys` or `web_sys` (but
//! `src/num.rs`, twice, for a number's digits).
//!
//! It reads the source tree, so it runs natively only.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::pedantic,
    unreachable_pub,
    reason = "a test fails by panicking; test code is not held to the pedantic lints"
)]

use std::fs;
use std::path::{Path, PathBuf};

/// The most lines `src/wasm/*.rs` may have in all. Raise it only with a
/// reason; first move decisions into the core. (1,600 until answers were
/// made from the documents JavaScript holds: which documents, and when a
/// delivery counts, are decided in `src/store`; the boundary hands pages to
/// `src/js/store.js` and records what it made or takes its deliveries back
/// when JavaScript could not make it, +70 lines; 1,670 until `all` gathered
/// its pages as JavaScript holds them, objects or text, instead of parsing
/// them again as one text: +20 lines; 1,690 until every read of an argument
/// that can run the caller's code (a getter, a `Proxy`) was caught, since an
/// exception unwinding through the module corrupted it: the catching imports
/// and the readers of `src/wasm/convert.rs`, +65 lines; 1,760 until a
/// store's get and delete keyed an id with a lone surrogate as `put` does,
/// by its WTF-8 from `src/js/store.js`, and `put` named what
/// `JSON.stringify` threw: +11 lines.)
const BOUNDARY_BUDGET: usize = 1771;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn the_boundary_stays_within_its_budget_without_inline_javascript() {
    let mut files = Vec::new();
    rust_files(&src().join("wasm"), &mut files);
    files.sort();
    assert!(!files.is_empty(), "no src/wasm/*.rs found");
    let mut total = 0;
    let mut counts = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let lines = text.lines().count();
        total += lines;
        counts.push(format!(
            "{}: {lines}",
            file.file_name().unwrap().to_string_lossy()
        ));
        assert!(
            !text.contains("inline_js"),
            "{} has inline JavaScript: put it in a src/js/ file",
            file.display()
        );
    }
    assert!(
        total <= BOUNDARY_BUDGET,
        "src/wasm/*.rs has {total} lines, over its budget of {BOUNDARY_BUDGET}: \
         move what it decides into the core ({})",
        counts.join(", ")
    );
}

#[test]
fn the_core_never_names_the_javascript_bindings() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let wasm = src().join("wasm");
    // The one exception: on wasm32, src/num.rs takes a float's shortest
    // digits from JavaScript (`Number.prototype.toString`, `parseFloat`), so
    // that the module links no float formatting of its own. A computation,
    // not I/O; and only those two calls (checked below).
    let num = src().join("num.rs");
    let text = fs::read_to_string(&num).unwrap();
    assert_eq!(
        text.matches("js_sys").count(),
        2,
        "src/num.rs names js_sys only for its two digit calls"
    );
    assert!(!text.contains("wasm_bindgen") && !text.contains("web_sys"));
    for file in files
        .iter()
        .filter(|file| !file.starts_with(&wasm) && **file != num)
    {
        let text = fs::read_to_string(file).unwrap();
        for name in ["wasm_bindgen", "js_sys", "web_sys"] {
            assert!(
                !text.contains(name),
                "{} names {name}: only src/wasm may",
                file.display()
            );
        }
    }
}
