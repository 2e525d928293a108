// DocumentStore.query copies the documents it delivered before instead of
// parsing them again (src/js/store.js `assemble`): its answers must stay
// exactly what the service's rules give, whatever the documents' keys,
// through writes, deletes and other selections, and every answer must be
// the caller's own objects. The reference is `applyQuery` over the same
// documents as JavaScript values (another engine, no store).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

import { runClient, runGated, runSeeds } from "./store-held-cases.mjs";

test("answers from held documents equal applyQuery over the same documents, whatever their keys, and are the caller's own", () => {
  const compared = runSeeds(1, 40);
  assert.ok(compared > 800, `${compared} queries compared`);
});

test("a client's cache answers a complete list from held documents: before or after a change, never a mix, and the caller's own", async () => {
  let compared = 0;
  for (let seed = 1; seed <= 6; seed++) compared += await runClient(seed, 6);
  assert.ok(compared > 500, `${compared} answers compared`);
});

test("a request answered while a change is recorded leaves the changed documents held, whatever the timing", async () => {
  let compared = 0;
  for (let seed = 1; seed <= 4; seed++) compared += await runGated(seed);
  assert.equal(compared, 4 * 16 * 3);
});

test("where the runtime forbids code from strings, answers are the same", () => {
  // Node's --disallow-code-generation-from-strings makes `new Function`
  // throw, as a Content-Security-Policy without 'unsafe-eval' does.
  const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", `
    const { runClient, runSeeds } = await import(${JSON.stringify(new URL("./store-held-cases.mjs", import.meta.url).href)});
    let threw = false;
    try { new Function("return 1"); } catch { threw = true; }
    if (!threw) throw new Error("new Function was allowed");
    let compared = runSeeds(1, 12);
    for (let seed = 1; seed <= 2; seed++) compared += await runClient(seed, 4);
    console.log(compared);
  `], { encoding: "utf8", timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.ok(Number(child.stdout.trim()) > 200, child.stdout);
});
