// A Vite app on content-repo/slim, the module hosted by the app itself
// (public/content_repo.wasm): Vite emits no .wasm of the package's own.
import * as sdk from "content-repo/slim";
import { check } from "./check.mjs";

check(sdk, () => sdk.init("/content_repo.wasm")).then((result) => {
  window.__result = result;
});
