// require() of the package (require(esm): the entry has no top-level await).
const sdk = require("content-repo");
import("../check.mjs").then(async ({ check }) => {
  console.log(JSON.stringify({ ...(await check(sdk, sdk.ready)), keys: Object.keys(sdk).sort() }));
});
