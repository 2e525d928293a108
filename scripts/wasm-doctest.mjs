// Runs one doctest compiled to wasm32-unknown-unknown in Node: the cargo
// target runner of `cargo test --doc --target wasm32-unknown-unknown`
// (scripts/test.sh). A doctest is a plain `fn main()`, not a
// wasm-bindgen test, so wasm-bindgen-test-runner would report "no tests to
// run!" and pass without running it. Here the module is instantiated as is:
// the crate's #[wasm_bindgen] exports keep JavaScript imports in it, which a
// doctest never calls (each is a stub that throws), and `main` is called.
// A failed assertion or a panic traps (panic = abort on wasm32), an `Err`
// from the doctest returns a non-zero status: either fails the doctest.
import { readFileSync } from "node:fs";

const file = process.argv[2];
const module = new WebAssembly.Module(readFileSync(file));
const imports = {};
for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
  if (kind !== "function") {
    throw new Error(`cannot provide the ${kind} import ${from}.${name}`);
  }
  imports[from] ??= {};
  imports[from][name] = () => {
    throw new Error(`the doctest called the JavaScript import ${from}.${name}`);
  };
}
const { exports } = new WebAssembly.Instance(module, imports);
const status = exports.main(0, 0);
process.exit(status === 0 ? 0 : 1);
