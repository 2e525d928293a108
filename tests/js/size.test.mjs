// The size budget of the module users download (gzipped, as served).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

/** The budget; raise it deliberately, with a reason in the commit. */
const BUDGET_GZIP_BYTES = 200 * 1024;

test(`pkg/web/content_repo_bg.wasm stays within ${BUDGET_GZIP_BYTES} bytes gzipped`, () => {
  const wasm = readFileSync(new URL("../../pkg/web/content_repo_bg.wasm", import.meta.url));
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  console.log(`wasm: ${wasm.length} bytes raw, ${gzipped} bytes gzipped (budget ${BUDGET_GZIP_BYTES})`);
  assert.ok(gzipped <= BUDGET_GZIP_BYTES, `${gzipped} bytes gzipped is over the budget`);
  const node = readFileSync(new URL("../../pkg/node/content_repo_bg.wasm", import.meta.url));
  assert.equal(node.length, wasm.length, "one module for both builds");
});
