// pkg/node/index.js: written by scripts/entries.mjs from src/js/entry.node.js
// (with the export list of api.js filled in).
// content-repo for Node (the "." entry's node condition): the glue
// instantiates the module synchronously on import, so ready() is already
// resolved and there is no top-level await (require() of this file works on
// Node 20.19+).
export { __NAMES__ } from "./api.js";
