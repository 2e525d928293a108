// pkg/web/index.js: written by scripts/entries.mjs from src/js/entry.web.js
// (with the export list of api.js filled in).
// content-repo for browsers, workers and bundlers (the "." entry): the module
// starts loading at import, without top-level await. Await ready() before the
// first synchronous call; until then they throw not_initialized.
import { init, ready as loaded, ContentRepoError } from "./api.js";
export { __NAMES_BUT_READY__ } from "./api.js";

// The loading error, if any, is what ready() rejects with (and what
// not_initialized errors name); it is not also an unhandled rejection.
const wasm = locate();
init(wasm).catch(() => {});

/**
 * Resolves once the module is ready; rejects with the loading error. After
 * a failed load (offline, say), each call loads the module again.
 */
export function ready() {
  return loaded().catch(() => init(wasm));
}
// (Named as exported in the minified build.)
Object.defineProperty(ready, "name", { value: "ready" });

/** Where the module is; bundlers see this `new URL` and emit the file. */
function locate() {
  let url;
  try {
    url = new URL("./content_repo_bg.wasm", import.meta.url);
  } catch (error) {
    // A bundle format without import.meta (an IIFE, a classic worker):
    // ready() rejects with this, and nothing throws at import.
    return Promise.reject(
      new ContentRepoError(
        "invalid_argument",
        `content-repo cannot locate its .wasm in this bundle format (${error.message}): ` +
          'import from "content-repo/slim" and call init() with the module instead',
      ),
    );
  }
  // Vite's dev server (up to Vite 7) serves this file pre-bundled from
  // node_modules/.vite/deps/, without the .wasm next to it; the package's own
  // copy is served from node_modules as it is.
  const prebundled = /\/node_modules\/\.vite\/deps(?:_[^/]*)?\/content_repo_bg\.wasm$/;
  if (prebundled.test(url.pathname)) {
    url = new URL(url.pathname.replace(prebundled, "/node_modules/content-repo/web/content_repo_bg.wasm"), url);
  }
  return url;
}
