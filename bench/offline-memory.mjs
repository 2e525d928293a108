// The memory probe of the offline figures: one prefetch in a fresh SDK instance, so
// that memory grown by earlier workloads (wasm memory never shrinks) cannot hide the
// prefetch's growth. Node: run as a child process by run.mjs
//   node --expose-gc bench/offline-memory.mjs <sdk specifier> <size> <seed>
// (prints one JSON line). Browser: loaded by offline-memory.html in a new browser
// context (its own renderer process and JS heap), driven by run.mjs through the
// exposed __benchGc, __benchHeapUsed and __benchReport.
import { generateDocuments } from "./gen.mjs";
import { loadSdk } from "./sdk.mjs";
import { buildPages, prefetchMemoryProbe } from "./offline.mjs";

const fail = (err) => ({ ok: false, reason: String(err && err.stack ? err.stack : err).slice(0, 500) });

async function probe({ specifier, size, seed, storage, hooks }) {
  const sdk = await loadSdk(specifier);
  if (!sdk.available) return { ok: false, reason: sdk.reason };
  if (!sdk.api.Client) return { ok: false, reason: "the SDK has no Client" };
  let pages = buildPages(generateDocuments(size, seed));
  return prefetchMemoryProbe({ api: sdk.api, pages, storage, hooks: { ...hooks, memoryBytes: sdk.memoryBytes } });
}

if (typeof window === "undefined" && typeof process !== "undefined" && process.versions && process.versions.node) {
  const [specifier, size, seed] = process.argv.slice(2);
  const gc = typeof globalThis.gc === "function" ? () => globalThis.gc() : null;
  const r = await probe({
    specifier,
    size: Number(size),
    seed: Number(seed),
    storage: "memory",
    hooks: { gc, rss: () => process.memoryUsage.rss(), heapUsed: () => process.memoryUsage().heapUsed },
  }).catch(fail);
  r.gcExposed = !!gc;
  process.stdout.write(JSON.stringify(r) + "\n");
} else {
  const q = new URLSearchParams(location.search);
  const report = (r) => (typeof window.__benchReport === "function" ? window.__benchReport(JSON.stringify(r)) : (document.body.textContent = JSON.stringify(r)));
  probe({
    specifier: new URL("../pkg/web/index.js", import.meta.url).href,
    size: Number(q.get("size") || 1000),
    seed: Number(q.get("seed") || 20240601),
    storage: "indexeddb",
    hooks: {
      gc: typeof window.__benchGc === "function" ? () => window.__benchGc() : null,
      heapUsed: typeof window.__benchHeapUsed === "function" ? () => window.__benchHeapUsed() : null,
      // the renderer processes' RSS, read by run.mjs from /proc (sampled every 5 ms while watched)
      processRss: typeof window.__benchRss === "function" ? async () => window.__benchRss() : null,
      rssWatch: typeof window.__benchRssWatch === "function" ? { start: () => window.__benchRssWatch(true), stop: () => window.__benchRssWatch(false) } : null,
    },
  })
    .catch(fail)
    .then(report);
}
