// The benchmark in the page: same gen.mjs / peers.mjs / suite.mjs as Node.
// Driven by run.mjs through Playwright (which exposes __benchGc, __benchHeapUsed and
// __benchReport); also works opened by hand (results are then printed in the page).

import { sort } from "../node_modules/fast-sort/dist/sort.mjs";
import { runSuite, ALL_WORKLOADS } from "./suite.mjs";
import { loadSdk } from "./sdk.mjs";
import { formatReport } from "./report.mjs";
import { SIZES } from "./gen.mjs";

const pre = document.getElementById("log");
const log = (line) => {
  console.log(line);
  if (pre) pre.textContent += line + "\n";
};

/** The SDK store's wasm memory growth for putJson(text), in a fresh instance (module Worker). */
function workerMemory(specifier, text) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./memory-worker.mjs", import.meta.url), { type: "module" });
    w.onmessage = (e) => {
      resolve(e.data);
      w.terminate();
    };
    w.onerror = (e) => {
      reject(new Error(e.message || "memory worker failed"));
      w.terminate();
    };
    w.postMessage({ specifier, text });
  });
}

async function main() {
  const q = new URLSearchParams(location.search);
  const quick = q.get("quick") === "1";
  const sizes = q.get("sizes") ? q.get("sizes").split(",").map(Number) : quick ? [1000, 10000] : SIZES;
  const seed = q.get("seed") ? Number(q.get("seed")) : 20240601;
  const workloads = q.get("workloads") ? q.get("workloads").split(",") : ALL_WORKLOADS;
  const libs = { orderBy: window._.orderBy, sort, mingo: window.mingo, mask: window.jsonMask };
  for (const [k, v] of Object.entries(libs)) if (!v) throw new Error(`library ${k} did not load`);

  const sdk = await loadSdk(new URL("../pkg/web/index.js", import.meta.url).href);
  const driven = typeof window.__benchReport === "function";
  const res = await runSuite({
    env: {
      name: "chromium",
      userAgent: navigator.userAgent,
      crossOriginIsolated: self.crossOriginIsolated === true,
      hardwareConcurrency: navigator.hardwareConcurrency,
    },
    sizes,
    quick,
    seed,
    workloads,
    libs,
    sdk,
    hooks: {
      log,
      gc: typeof window.__benchGc === "function" ? () => window.__benchGc() : null,
      heapUsed:
        typeof window.__benchHeapUsed === "function"
          ? () => window.__benchHeapUsed()
          : performance.memory
            ? () => performance.memory.usedJSHeapSize
            : null,
      yield: () => new Promise((r) => setTimeout(r, 0)),
      sdkStoreMemory: sdk.available ? (text) => workerMemory(sdk.specifier, text) : null,
      offlineMemory: sdk.available && typeof window.__benchOfflineMemory === "function" ? async (size) => JSON.parse(await window.__benchOfflineMemory(size)) : null,
      offlineStorage: "indexeddb",
    },
  });
  if (driven) await window.__benchReport(JSON.stringify(res));
  else log("\n" + formatReport(res));
}

main().catch(async (err) => {
  const msg = `benchmark failed: ${err && err.stack ? err.stack : err}`;
  log(msg);
  if (typeof window.__benchFail === "function") await window.__benchFail(msg);
});
