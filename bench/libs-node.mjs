// The peers' third-party libraries, resolved from /work/main/node_modules by Node.
// (The browser page builds the same object from classic scripts: see browser.mjs.)
import orderBy from "lodash/orderBy.js";
import { sort } from "fast-sort";
import * as mingo from "mingo";
import mask from "json-mask";

export const libs = { orderBy, sort, mingo, mask };
