// A webpack 5 app: `webpack --mode production`, no configuration file; the
// default entry is this file, the output dist/main.js.
import * as sdk from "content-repo";
import { check } from "../check.mjs";

check(sdk, sdk.ready).then((result) => {
  window.__result = result;
});
