#!/usr/bin/env bash
# Every test suite: lints, native tests (fuzz suites included), the package
# build, the boundary tests in headless Chromium and Node, the core tests and
# doctests compiled to wasm32 in Node, the JavaScript tests (package, guard,
# fixture server, requests, browser) and the bundler matrix. Prints one
# summary line at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

export CHROMEDRIVER=/usr/bin/chromedriver
unset GECKODRIVER
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-120}

passed=0
failed=0
failures=()
step() {
  local name=$1
  shift
  printf '\n=== %s\n' "$name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    printf '=== %s: ok (%ss)\n' "$name" $((SECONDS - start))
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '=== %s: FAILED (%ss)\n' "$name" $((SECONDS - start))
  fi
}

step "cargo fmt --check" cargo fmt --check
step "clippy (native)" cargo clippy --quiet --all-targets -- -D warnings
step "clippy (wasm32)" cargo clippy --quiet --all-targets --target wasm32-unknown-unknown -- -D warnings
step "cargo test (native)" cargo test --quiet
step "build pkg/" bash scripts/build.sh
# Headless Chromium under chromedriver sometimes never loads the test page on
# this machine kind: the browser stays on `data:,` (measured: about 1 start
# in 6 hangs until chromedriver's 300 s renderer timeout, with or without
# extra flags; later, on a busy machine, 1 in 2, the code of an earlier
# version hanging as often). A run that works takes about 10 s. Each
# attempt is bounded and a hang is retried, at most six times, and said so.
# webdriver.json passes the flags this closed network needs.
# Every wasm32 test is built with the `wasm-test` profile (Cargo.toml: debug
# assertions and overflow checks, opt-level 1, no DWARF); one build serves
# both wasm steps.
wasm_test=(cargo test --profile wasm-test --target wasm32-unknown-unknown)
wasm_tests() {
  local attempt
  "${wasm_test[@]}" --test node --test web --no-run || return 1
  for attempt in 1 2 3 4 5 6; do
    # stdin from /dev/null: with an inherited stdin that is a pipe, the
    # runner's chromedriver session hung here before loading the module
    # (every time, on this machine); with /dev/null it starts at once.
    if timeout --kill-after=5 45 "${wasm_test[@]}" --test node --test web </dev/null; then
      return 0
    fi
    printf '[test] wasm-bindgen-test attempt %s failed\n' "$attempt"
  done
  return 1
}
step "wasm-bindgen-test (Node and headless Chromium)" wasm_tests
# The native core tests (every tests/*.rs but the boundary's node.rs and
# web.rs: unit, table, property and fuzz tests) and the doctests, compiled to
# wasm32 and run in Node: 32-bit usize, the 1 MiB wasm stack, wasm floats.
# About half a minute warm, the fuzz suites 11 to 16 s of it (every proptest
# suite runs its native case count, with a fixed seed on wasm32:
# tests/common/harness.rs). A doctest is a plain main(), run by
# scripts/wasm-doctest.mjs (wasm-bindgen-test-runner would report "no tests
# to run!" and pass).
wasm_core_tests() {
  local file targets=()
  for file in tests/*.rs; do
    file=$(basename "$file" .rs)
    [ "$file" = node ] || [ "$file" = web ] || targets+=(--test "$file")
  done
  "${wasm_test[@]}" "${targets[@]}" --no-run || return 1
  WASM_BINDGEN_TEST_ONLY_NODE=1 timeout --kill-after=5 240 "${wasm_test[@]}" "${targets[@]}" </dev/null || return 1
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="node $PWD/scripts/wasm-doctest.mjs" \
    timeout --kill-after=5 240 "${wasm_test[@]}" --doc
}
step "core tests and doctests on wasm32 (Node)" wasm_core_tests
# The bundler matrix (Vite 5-8, webpack, esbuild, an import map, workers,
# service workers, Node import/require: about half a minute) is a suite of its
# own in the summary; every other file of tests/js is the JS suite.
js_tests() {
  local files=()
  local file
  for file in tests/js/*.test.mjs; do
    [ "$file" = tests/js/bundlers.test.mjs ] || files+=("$file")
  done
  node --test --test-concurrency=1 "${files[@]}"
}
step "node --test tests/js (all but the bundler matrix)" js_tests
step "bundler matrix (tests/js/bundlers.test.mjs)" node --test --test-concurrency=1 tests/js/bundlers.test.mjs

printf '\nwasm size: '
printf '%s bytes raw, %s bytes gzipped\n' "$(stat -c %s pkg/web/content_repo_bg.wasm 2>/dev/null || echo '?')" \
  "$(gzip -9 -c pkg/web/content_repo_bg.wasm 2>/dev/null | wc -c)"
if [ "$failed" -gt 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
printf 'suites: %d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
