import * as sdk from "content-repo";
import { check } from "./check.mjs";

check(sdk, sdk.ready).then((result) => postMessage(result));
