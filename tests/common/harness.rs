//! What lets a native test file run compiled to `wasm32-unknown-unknown`
//! too, under wasm-bindgen-test in Node (`scripts/test.sh`, the step "core
//! tests and doctests on wasm32"), with 32-bit `usize`, the 1 MiB wasm stack and
//! wasm's floats:
//!
//! - each test file writes, next to its `#[test]`s,
//!   `#[cfg(target_arch = "wasm32")] use wasm_bindgen_test::wasm_bindgen_test as test;`
//!   so that every `#[test]` (also inside `proptest!`) is a wasm-bindgen
//!   test there;
//! - [`config`]: proptest settings that work on both (no failure files on
//!   wasm32, a fixed seed there, `PROPTEST_CASES` read on both);
//! - [`guard`]: one call into the core with a panic turned into a failure
//!   that names the call and its input;
//! - [`Stopwatch`], [`on_small_stack`]: a clock and a small native stack,
//!   which wasm32 provides differently.
#![allow(dead_code)]

use proptest::test_runner::{Config, TestCaseError};

/// An environment variable on wasm32: Node's `process.env` (the runner
/// starts Node with the environment of `cargo test`; `std::env` sees none
/// there); `None` when unset or not text.
#[cfg(target_arch = "wasm32")]
pub fn env(name: &str) -> Option<String> {
    use js_sys::Reflect;
    use wasm_bindgen::JsValue;
    let process = Reflect::get(&js_sys::global(), &JsValue::from_str("process")).ok()?;
    let variables = Reflect::get(&process, &JsValue::from_str("env")).ok()?;
    Reflect::get(&variables, &JsValue::from_str(name))
        .ok()?
        .as_string()
}

/// The seed of every proptest run on wasm32 unless `PROPTEST_RNG_SEED` says
/// otherwise: the wasm32 runs are reproducible (there is no failure file to
/// replay from there), natively every run draws a new seed.
pub const WASM_SEED: u64 = 0x00C0_47E7_5EED;

/// The proptest settings of a suite of `cases` cases.
///
/// `PROPTEST_CASES` replaces `cases` on both targets (natively proptest
/// reads it itself), so `PROPTEST_CASES=100000 cargo test --test fuzz` is a
/// long fuzz session. On wasm32 failures are not persisted (no file system)
/// and the seed is [`WASM_SEED`] or `PROPTEST_RNG_SEED`; natively failures go
/// to `tests/*.proptest-regressions` as usual.
pub fn config(cases: u32) -> Config {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Config {
            cases,
            ..Config::default()
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let number = |name: &str| env(name).and_then(|value| value.trim().parse::<u64>().ok());
        Config {
            cases: number("PROPTEST_CASES")
                .and_then(|value| u32::try_from(value).ok())
                .unwrap_or(cases),
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(
                number("PROPTEST_RNG_SEED").unwrap_or(WASM_SEED),
            ),
            ..Config::default()
        }
    }
}

/// Milliseconds since it was started (`std::time::Instant` panics on
/// wasm32-unknown-unknown; there it is JavaScript's `Date.now()`).
pub struct Stopwatch {
    #[cfg(not(target_arch = "wasm32"))]
    started: std::time::Instant,
    #[cfg(target_arch = "wasm32")]
    started: f64,
}

impl Stopwatch {
    /// Starts it.
    pub fn start() -> Stopwatch {
        Stopwatch {
            #[cfg(not(target_arch = "wasm32"))]
            started: std::time::Instant::now(),
            #[cfg(target_arch = "wasm32")]
            started: js_sys::Date::now(),
        }
    }

    /// Milliseconds since [`Stopwatch::start`].
    pub fn elapsed_ms(&self) -> f64 {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.started.elapsed().as_secs_f64() * 1000.0
        }
        #[cfg(target_arch = "wasm32")]
        {
            js_sys::Date::now() - self.started
        }
    }
}

/// Runs `run` on a stack of `bytes`: natively a thread of that stack size
/// (a test of "no recursion" must not pass thanks to a big main stack); on
/// wasm32, where there are no threads, on the module's own stack (1 MiB by
/// default, the stack the package runs on).
pub fn on_small_stack(bytes: usize, run: impl FnOnce() + Send + 'static) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::Builder::new()
            .stack_size(bytes)
            .spawn(run)
            .expect("a test thread")
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = bytes;
        run();
    }
}

/// How much of an input a failure shows (proptest shows all of a failing
/// case; a corpus case is named by its file).
const SHOWN: usize = 300;

fn describe(entry: &str, input: &str) -> String {
    let shown: String = input.chars().take(SHOWN).collect();
    let more = if shown.len() < input.len() {
        format!("… ({} bytes in all)", input.len())
    } else {
        String::new()
    };
    format!("{entry} panicked on {shown:?}{more}")
}

/// Calls `run`, one entry of the core (`entry` names it) on `input`: a
/// panic is a test failure naming the entry and the input, never an abort
/// of the suite. Natively the panic is caught (`catch_unwind`); on wasm32,
/// where a panic aborts the module (`panic = abort`), the entry and input
/// are logged by the panic hook before the test fails.
pub fn guard<T>(entry: &str, input: &str, run: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).map_err(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            TestCaseError::fail(format!("{}: {message}", describe(entry, input)))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        use std::cell::RefCell;
        thread_local! {
            static CURRENT: RefCell<Option<String>> = const { RefCell::new(None) };
        }
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if let Some(what) = CURRENT.with(|current| current.borrow().clone()) {
                    wasm_bindgen_test::console_log!("{what}");
                }
                previous(info);
            }));
        });
        CURRENT.with(|current| *current.borrow_mut() = Some(describe(entry, input)));
        let out = run();
        CURRENT.with(|current| *current.borrow_mut() = None);
        Ok(out)
    }
}

/// [`config`] for the fuzz suites: failures are not written to a
/// `.proptest-regressions` file on either target; a failing input is kept
/// in `tests/corpus/` instead, where every target replays it.
pub fn fuzz_config(cases: u32) -> Config {
    Config {
        failure_persistence: None,
        ..config(cases)
    }
}
