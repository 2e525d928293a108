// esbuild, `--bundle --format=esm --loader:.wasm=file`: the slim entry, and
// the module's URL as esbuild emits it.
import * as sdk from "content-repo/slim";
import wasmUrl from "content-repo/wasm";
import { check } from "../check.mjs";

check(sdk, () => sdk.init(new URL(wasmUrl, import.meta.url))).then(async (result) => {
  window.__result = { ...result, wasmUrl, readyAfterInit: await sdk.ready().then(() => true) };
});
