// Refresh traffic (issue 12): the bytes and the time of `client.refresh`
// after 18 changes (10 updated, 5 deleted, 3 added) and after none, against
// a full prefetch of the same list, measured in the same run.
//
// An injected `fetch` plays the service over the generated documents: the
// list in the default order (createdAt DESC, id DESC), `limit`/`offset`
// pages with `meta.total`, `filters[0][*.meta.updatedAt][greaterThanOrEqual]`,
// `fields=meta(id,revision)`, and `meta.id` `equal` filters joined with `or`.
// It counts the bytes of every body it sends, as written and as a server
// compresses them (gzip, level 6, each body alone), and the requests.
//
//   node bench/refresh.mjs [--sizes=10000,100000] [--seed=N]   (after npm run build)
//   refreshFigures(sdk, { sizes, seed, log }) -> [{ size, prefetch, idle, changed }]

import { gzipSync } from "node:zlib";
import { generateDocuments } from "./gen.mjs";

const encoder = new TextEncoder();
const byId = (a, b) => (a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0);
const defaultOrder = (a, b) => (a.meta.createdAt < b.meta.createdAt ? 1 : a.meta.createdAt > b.meta.createdAt ? -1 : -byId(a.meta.id, b.meta.id));

/** A fake service over `docs`; `traffic.bytes` counts what it sent. */
function service(docs) {
  const state = { docs: [...docs].sort(defaultOrder), bytes: 0, sent: [], requests: 0, clock: 0 };
  for (const doc of state.docs) state.clock = Math.max(state.clock, Date.parse(doc.meta.updatedAt));
  const fetch = async (input) => {
    const url = new URL(input);
    const params = url.searchParams;
    let list = state.docs;
    const ids = new Set();
    let since = null;
    for (const [name, value] of params) {
      if (/^filters\[\d+\]\[(and|or\]\[)?\*\.meta\.id\]\[equal\]$/.test(name) || /meta\.id\]\[equal\]$/.test(name)) ids.add(value);
      else if (/meta\.updatedAt\]\[greaterThanOrEqual\]$/.test(name)) since = value;
    }
    if (ids.size > 0) list = list.filter((d) => ids.has(d.meta.id));
    if (since !== null) list = list.filter((d) => d.meta.updatedAt >= since);
    const limit = Number(params.get("limit") ?? 25);
    const offset = Number(params.get("offset") ?? 0);
    let page = list.slice(offset, offset + limit);
    if (params.get("fields") === "meta(id,revision)") page = page.map((d) => ({ meta: { id: d.meta.id, revision: d.meta.revision } }));
    const body = JSON.stringify({ data: page, meta: { count: page.length, limit, offset, total: list.length } });
    state.bytes += encoder.encode(body).length;
    // Compressed after the timing (gzip's own time is no part of the figure).
    state.sent.push(body);
    state.requests++;
    return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  };
  /** 10 updated, 5 deleted, 3 added; every change later than every updatedAt. */
  const change = (seed) => {
    const next = () => new Date((state.clock += 1000)).toISOString();
    const pick = state.docs.filter((_, i) => i % 97 === seed % 97).slice(0, 15);
    for (const doc of pick.slice(0, 10)) {
      const i = state.docs.indexOf(doc);
      state.docs[i] = { fields: { ...doc.fields, title: `${doc.fields.title} (changed)` }, meta: { ...doc.meta, revision: doc.meta.revision + 1, updatedAt: next() } };
    }
    const gone = new Set(pick.slice(10, 15).map((d) => d.meta.id));
    state.docs = state.docs.filter((d) => !gone.has(d.meta.id));
    for (let k = 0; k < 3; k++) {
      const template = state.docs[k];
      const at = next();
      state.docs.push({ fields: { ...template.fields, title: `new ${k}` }, meta: { ...template.meta, id: `9${String(seed % 1e8).padStart(8, "0")}${String(k).padStart(9, "0")}`, revision: 1, createdAt: at, updatedAt: at } });
    }
    state.docs.sort(defaultOrder);
    // What refresh must find (fewer at small sizes, where fewer documents are picked).
    const updated = Math.min(pick.length, 10);
    return { changed: updated + 3, deleted: gone.size, added: 3 };
  };
  return { state, fetch, change };
}

/** A storage in memory that counts nothing (the bytes of interest are on the wire). */
class MemoryStorage {
  constructor() {
    this.entries = new Map();
  }
  async load() {
    return [...this.entries];
  }
  async write(puts, deletes) {
    for (const key of deletes) this.entries.delete(key);
    for (const [key, value] of puts) this.entries.set(key, value);
  }
  async clear() {
    this.entries.clear();
  }
}

export async function refreshFigures(sdk, { sizes = [10000, 100000], seed = 20240601, log = console.log } = {}) {
  const out = [];
  for (const size of sizes) {
    const fake = service(generateDocuments(size, seed));
    const client = new sdk.Client({ baseUrl: "http://bench.invalid", repository: "bench", apiKey: "bench-key", retries: 0, fetch: fake.fetch, cache: { storage: new MemoryStorage() } });
    const measure = async (run) => {
      const { bytes, requests } = fake.state;
      fake.state.sent = [];
      const started = performance.now();
      const result = await run();
      const ms = performance.now() - started;
      const gzipBytes = fake.state.sent.reduce((n, body) => n + gzipSync(encoder.encode(body), { level: 6 }).length, 0);
      fake.state.sent = [];
      return { bytes: fake.state.bytes - bytes, gzipBytes, requests: fake.state.requests - requests, ms, result };
    };
    const prefetch = await measure(() => client.prefetch("documents"));
    const idle = await measure(() => client.refresh("documents"));
    const counts = fake.change(seed);
    const changed = await measure(() => client.refresh("documents"));
    const expect = { changed: counts.changed, deleted: counts.deleted, total: size - counts.deleted + counts.added };
    const ok = JSON.stringify(changed.result) === JSON.stringify(expect) && idle.result.changed === 0 && idle.result.deleted === 0;
    const against = (run) => ({
      bytes: run.bytes,
      gzipBytes: run.gzipBytes,
      requests: run.requests,
      ms: run.ms,
      bytesRatio: run.bytes / prefetch.bytes,
      gzipRatio: run.gzipBytes / prefetch.gzipBytes,
      timeRatio: run.ms / prefetch.ms,
    });
    const row = {
      size,
      prefetch: { bytes: prefetch.bytes, gzipBytes: prefetch.gzipBytes, requests: prefetch.requests, ms: prefetch.ms },
      idle: against(idle),
      changed: { ...against(changed), counts: changed.result },
      ok,
    };
    const pct = (x) => `${(100 * x).toFixed(2)}%`;
    const met = row.idle.bytesRatio <= 0.05 && row.changed.bytesRatio <= 0.05;
    const gzipMet = row.idle.gzipRatio <= 0.05 && row.changed.gzipRatio <= 0.05;
    log(
      `refresh ${size}: prefetch ${(prefetch.bytes / 1048576).toFixed(1)} MiB (${(prefetch.gzipBytes / 1048576).toFixed(1)} MiB gzip, ${prefetch.requests} requests); ` +
        `nothing changed ${pct(row.idle.bytesRatio)} of the bytes (gzip ${pct(row.idle.gzipRatio)}, ${idle.requests} requests), ${row.idle.timeRatio.toFixed(2)}x the time; ` +
        `${counts.changed - counts.added} updated, ${counts.deleted} deleted, ${counts.added} added: ${pct(row.changed.bytesRatio)} (gzip ${pct(row.changed.gzipRatio)}, ${changed.requests} requests), ${row.changed.timeRatio.toFixed(2)}x the time ` +
        `(target <= 5% of the bytes: ${met ? "met" : "missed"} as written, ${gzipMet ? "met" : "missed"} gzipped)${ok ? "" : ` counts WRONG: ${JSON.stringify(changed.result)}, expected ${JSON.stringify(expect)}`}`,
    );
    out.push(row);
    client.free?.();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
  const sizes = arg("sizes", "10000,100000").split(",").map(Number);
  const sdk = await import(new URL("../pkg/node/index.js", import.meta.url).href);
  await sdk.ready();
  const rows = await refreshFigures(sdk, { sizes, seed: Number(arg("seed", 20240601)) });
  process.exitCode = rows.every((row) => row.ok) ? 0 : 1;
}
