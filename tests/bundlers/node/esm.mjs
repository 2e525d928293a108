import * as sdk from "content-repo";
import { check } from "../check.mjs";

console.log(JSON.stringify(await check(sdk, sdk.ready)));
