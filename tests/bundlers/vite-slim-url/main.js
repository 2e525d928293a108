// A Vite app on content-repo/slim with the module's URL from Vite's own
// `?url` suffix on content-repo/wasm.
import * as sdk from "content-repo/slim";
import wasmUrl from "content-repo/wasm?url";
import { check } from "./check.mjs";

check(sdk, () => sdk.init(new URL(wasmUrl, import.meta.url))).then((result) => {
  window.__result = { ...result, wasmUrl };
});
