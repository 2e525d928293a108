// pkg/web/slim.js: written by scripts/entries.mjs from src/js/entry.slim.js
// (with the export list of api.js filled in).
// content-repo without the .wasm (the "./slim" entry): nothing here names the
// module file, so bundlers never emit it. Call init() with its location (or
// bytes, a Response or a compiled WebAssembly.Module) and await it before the
// first synchronous call; until then they throw not_initialized.
export { __NAMES__, init } from "./api.js";
