// The offline cache figures (issue 10): a Client as a new user sets it up, with an
// injected `fetch` serving the bench's generated documents as pages of 1000
// (`{ data, meta: { count, limit, offset, total } }` texts, built once; the fetch
// returns `new Response(text)`), so no network is involved. Every figure is a ratio
// against a baseline measured in the same run, with its target.
//
// Pure ECMAScript apart from the storage helpers (IndexedDB in the browser); the
// environment comes in through `hooks` (see runOffline). Used by suite.mjs, and by
// offline-memory.mjs (the memory probe in a fresh process / browser context).

import { PAGE, SEL_W3, SORT_W2, structuralHash } from "./peers.mjs";

export const OFFLINE_PAGE_SIZE = 1000;
export const BASE_URL = "http://bench.invalid";
export const REPOSITORY = "bench";
/** The IndexedDB database of a client of `baseUrl` (the SDK names it so: src/wasm/client.rs). */
export const dbName = (baseUrl = BASE_URL) => `content-repo:${baseUrl}/v1/${REPOSITORY}`;

/**
 * The figures, in report order. `ratio` is SDK / baseline except for `fullList`, where it
 * is the fastest peer's time / the SDK's time (a speed-up, like the other tables). `op`
 * and `target` say when the target holds; `approx` (≈ 1×): ratio <= 1.25 and at most
 * one fetch call (an offline network-first request is not retried).
 */
export const OFFLINE_FIGURES = [
  { key: "prefetch", label: "prefetch time / (fetch + JSON.parse of the same pages)", op: "<=", target: 2 },
  { key: "network", label: "every page as client.documents (no cache) / (fetch + JSON.parse of the same pages); the SDK's own bar, no issue's", op: "<=", target: 1.5 },
  { key: "stored", label: "stored characters / response characters", op: "<=", target: 1.1 },
  { key: "memory", label: "memory growth during prefetch / response characters (Node: process RSS; Chromium: wasm memory + JS heap)", op: "<=", target: 4, unit: "bytes/char" },
  { key: "memoryRss", label: "Chromium only: renderer process RSS growth during prefetch / response characters", op: "<=", target: 4, unit: "bytes/char", browserOnly: true },
  { key: "warm", label: "warm offline page (W4 query, cache-only) / DocumentStore.query", op: "<=", target: 3 },
  { key: "reload", label: "first offline answer after a reload (cache-only) / JSON.parse of the pages", op: "<=", target: 2, browserTarget: 3 },
  { key: "networkFirst", label: "network-first offline, first answer / cache-only first answer", op: "approx", target: 1 },
  { key: "fullList", label: "W3 on all documents from the store, the selection queried before: fastest peer's W3 / SDK", op: ">=", target: 1 },
  { key: "fullListCold", label: "W3 on all documents from a fresh store (its sort index built, nothing selected before): fastest peer's W3 / SDK", op: ">=", target: 1 },
  { key: "fullListClient", label: "W3 on all documents via client.all (cache-only): fastest peer's W3 / SDK", op: ">=", target: 1 },
];

/** Checks that a full list (of an untimed warm-up call) has every document. */
function wholeList(list, size) {
  if (list.length !== size) throw new Error(`a full list has ${list.length} documents, not ${size}`);
}

export function targetOf(figure, envName) {
  return envName !== "node" && figure.browserTarget !== undefined ? figure.browserTarget : figure.target;
}

export function meets(figure, ratio, envName, extra = {}) {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return false;
  const t = targetOf(figure, envName);
  if (figure.op === "<=") return ratio <= t;
  if (figure.op === ">=") return ratio >= t;
  if (figure.op === "approx") return ratio <= 1.25 && (extra.fetchCalls === undefined || extra.fetchCalls <= 1);
  return false;
}

/** The pages of `docs` as response texts, and their total length in characters. */
export function buildPages(docs, pageSize = OFFLINE_PAGE_SIZE) {
  const texts = [];
  const total = docs.length;
  for (let offset = 0; offset < total || (offset === 0 && total === 0); offset += pageSize) {
    const data = docs.slice(offset, offset + pageSize);
    texts.push(JSON.stringify({ data, meta: { count: data.length, limit: pageSize, offset, total } }));
    if (total === 0) break;
  }
  let chars = 0;
  for (const t of texts) chars += t.length;
  return { texts, chars, pageSize, total };
}

/** The URL of page `i`, as the SDK asks for it (checked at run time). */
export const pageUrl = (i, pageSize = OFFLINE_PAGE_SIZE, baseUrl = BASE_URL) => `${baseUrl}/v1/${REPOSITORY}/documents?limit=${pageSize}&offset=${i * pageSize}`;

/** An injected fetch serving `pages`: `new Response(text)` for `?limit=<pageSize>&offset=<k * pageSize>`. */
export function pageFetch(pages) {
  const f = async (input) => {
    f.calls++;
    const url = new URL(String(input));
    const limit = Number(url.searchParams.get("limit") || 100);
    const offset = Number(url.searchParams.get("offset") || 0);
    const text = limit === pages.pageSize && offset % limit === 0 ? pages.texts[offset / limit] : undefined;
    if (text === undefined) return new Response(JSON.stringify({ message: `bench fetch: no page for ${url.search}` }), { status: 404 });
    return new Response(text);
  };
  f.calls = 0;
  return f;
}

/** A fetch that fails like an offline browser's (`TypeError: Failed to fetch`). */
export function offlineFetch() {
  const f = async () => {
    f.calls++;
    throw new TypeError("Failed to fetch");
  };
  f.calls = 0;
  return f;
}

/**
 * A storage (`load`, `write`, `clear`) like the SDK's MemoryStorage, counting what it
 * holds: `chars` is the sum of key + value lengths of the entries present.
 */
export function countingStorage() {
  const entries = new Map();
  const s = {
    entries,
    chars: 0,
    writes: 0,
    async load() {
      return [...entries];
    },
    async write(puts, deletes) {
      s.writes++;
      for (const key of deletes) {
        const old = entries.get(key);
        if (old !== undefined) {
          s.chars -= key.length + old.length;
          entries.delete(key);
        }
      }
      for (const [key, value] of puts) {
        const old = entries.get(key);
        if (old !== undefined) s.chars -= key.length + old.length;
        entries.set(key, value);
        s.chars += key.length + value.length;
      }
    },
    async clear() {
      entries.clear();
      s.chars = 0;
    },
  };
  return s;
}

// --- IndexedDB (browser) ---------------------------------------------------------------

function idbRequest(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Deletes the database `name` (open connections of the SDK close on `versionchange`). */
export function deleteDatabase(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(name);
    req.onsuccess = () => resolve();
    req.onerror = () => reject(req.error);
    // blocked: a connection did not close on versionchange; success follows when it does
  });
}

/** { entries, chars }: what the database `name` holds (key + value lengths), read back. */
/** Reads every entry of the SDK's database `name` (keys and values), as a reload's load() does: how many. */
export async function readDatabase(name) {
  const db = await idbRequest(indexedDB.open(name));
  try {
    const store = db.transaction("entries", "readonly").objectStore("entries");
    const [keys, values] = await Promise.all([idbRequest(store.getAllKeys()), idbRequest(store.getAll())]);
    return keys.length + values.length;
  } finally {
    db.close();
  }
}

export async function countDatabase(name) {
  const dbs = indexedDB.databases ? await indexedDB.databases() : [{ name }];
  if (!dbs.some((d) => d.name === name)) return { entries: 0, chars: 0, missing: true };
  const db = await idbRequest(indexedDB.open(name));
  try {
    const stores = [...db.objectStoreNames];
    let entries = 0;
    let chars = 0;
    for (const storeName of stores) {
      const tx = db.transaction(storeName, "readonly");
      const store = tx.objectStore(storeName);
      const [keys, values] = await Promise.all([idbRequest(store.getAllKeys()), idbRequest(store.getAll())]);
      entries += keys.length;
      // The SDK keeps texts as UTF-8 bytes: counted as the characters they hold.
      const text = (value) => (typeof value === "string" ? value : value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value));
      for (let i = 0; i < keys.length; i++) chars += String(keys[i]).length + text(values[i]).length;
    }
    return { entries, chars, stores };
  } finally {
    db.close();
  }
}

// --- queries -----------------------------------------------------------------------------

function buildQuery(Query, limit, offset) {
  let q = new Query();
  for (const [k, dir] of SORT_W2) q = q.sort(k, dir);
  return q.fields(SEL_W3).limit(limit).offset(offset);
}

const errText = (err) => String(err && err.message ? err.message : err).split("\n")[0].slice(0, 300);

// --- the memory probe (run in a fresh process or browser context) -------------------------

/**
 * Memory growth of one prefetch in this (fresh) SDK instance. `hooks`: gc(), heapUsed(),
 * memoryBytes() (wasm), and either rss() (Node: this process, read synchronously, also
 * at every onProgress) or processRss() + rssWatch { start, stop } (browser: the renderer
 * processes' RSS, read and sampled every 5 ms by run.mjs). Storage: "memory" (Node) or
 * "indexeddb". Returns { ok, responseChars, rssBefore, rssPeak, wasmBefore, wasmAfter,
 * heapBefore, heapAfter, heapAfterGc, growthBytes, method, ... } (what the environment has).
 */
export async function prefetchMemoryProbe({ api, pages, storage, hooks }) {
  const baseUrl = BASE_URL + "/memory-probe";
  if (storage === "indexeddb") await deleteDatabase(dbName(baseUrl));
  const fetch = pageFetch(pages);
  const out = { ok: true, storage, responseChars: pages.chars, pages: pages.texts.length };
  const gc = async () => {
    if (hooks.gc) await hooks.gc();
  };
  {
    // Warm-up (not measured): a prefetch of 10 documents loads what a first request
    // loads once per process (Node's fetch/Response implementation, compiled code), so
    // the growth below is the prefetch's own.
    const few = JSON.parse(pages.texts[0]).data.slice(0, 10);
    const tiny = buildPages(few, 10);
    const warmBase = BASE_URL + "/memory-probe-warm-up";
    const c = new api.Client({ baseUrl: warmBase, repository: REPOSITORY, apiKey: "bench-key", fetch: pageFetch(tiny), cache: { storage, policy: "cache-only" } });
    await c.prefetch("documents", { pageSize: 10 });
    await c.documents(buildQuery(api.Query, PAGE, 0));
    c.free();
    if (storage === "indexeddb") await deleteDatabase(dbName(warmBase));
  }
  if (hooks.processRss && hooks.heapUsed) {
    // Chromium moves a long string's characters out of the JS heap the first time it is
    // handed to a web API (here: new Response(text)); do it for every page text now, so
    // the JS heap figure below does not drop by the input's size during the prefetch.
    await gc();
    const h0 = await hooks.heapUsed();
    for (const t of pages.texts) new Response(t);
    await gc();
    out.pagesMovedOffHeapBytes = h0 - (await hooks.heapUsed());
  }
  await gc();
  await gc();
  const sampleRss = hooks.rss || null;
  if (sampleRss) out.rssBefore = sampleRss();
  if (hooks.heapUsed) out.heapBefore = await hooks.heapUsed();
  if (hooks.memoryBytes) out.wasmBefore = hooks.memoryBytes();
  if (hooks.processRss) {
    const r = await hooks.processRss();
    if (r) {
      out.rssBefore = r.rss;
      out.rendererProcesses = r.pids;
    }
  }
  if (hooks.rssWatch && out.rssBefore !== undefined) await hooks.rssWatch.start();
  let rssPeak = out.rssBefore || 0;
  const client = new api.Client({ baseUrl, repository: REPOSITORY, apiKey: "bench-key", fetch, cache: { storage, policy: "cache-only" } });
  const t0 = performance.now();
  const r = await client.prefetch("documents", {
    onProgress: () => {
      if (sampleRss) rssPeak = Math.max(rssPeak, sampleRss());
    },
  });
  out.prefetchMs = performance.now() - t0;
  out.loaded = r.loaded;
  if (sampleRss) out.rssPeak = Math.max(rssPeak, sampleRss());
  if (hooks.rssWatch && out.rssBefore !== undefined) out.rssPeak = await hooks.rssWatch.stop();
  if (hooks.heapUsed) out.heapAfter = await hooks.heapUsed();
  if (hooks.memoryBytes) out.wasmAfter = hooks.memoryBytes();
  // (the page texts stay alive until here: a dead local may be collected early, and the
  // input's release must not count against the prefetch's growth)
  out.pagesKept = pages.texts.length;
  await gc();
  if (sampleRss) out.rssAfterGc = sampleRss();
  if (hooks.heapUsed) out.heapAfterGc = await hooks.heapUsed();
  const cache = client.cache;
  out.cacheBytes = cache.bytes;
  out.cacheSize = cache.size;
  cache.free();
  if (out.wasmAfter !== undefined && out.heapAfter !== undefined) out.wasmPlusHeapBytes = out.wasmAfter - out.wasmBefore + (out.heapAfter - out.heapBefore);
  if (out.rssPeak !== undefined) out.rssGrowthBytes = out.rssPeak - out.rssBefore;
  if (sampleRss) {
    out.growthBytes = out.rssGrowthBytes;
    out.method = "process RSS: peak (sampled at every onProgress and at the end) - before (after a full GC), in a fresh process after a 10-document warm-up prefetch";
  } else {
    out.growthBytes = out.wasmPlusHeapBytes;
    out.method = "wasm memory growth + JS heap growth (CDP Runtime.getHeapUsage right after the prefetch, before GC), in a fresh browser context after a 10-document warm-up prefetch";
    if (out.rssGrowthBytes !== undefined) out.rssMethod = "renderer process RSS (/proc, sampled every 5 ms): peak - before";
  }
  client.free();
  if (storage === "indexeddb") await deleteDatabase(dbName(baseUrl));
  out.pagesChars = pages.chars;
  return out;
}

// --- the figures ---------------------------------------------------------------------------

/**
 * Runs the offline cache figures at one size; returns { size, storage, rows, details }.
 *   ctx.api           the SDK module (Client, Query, DocumentStore)
 *   ctx.input         { docs }: the generated documents (released here once the pages
 *                     and the reference are built, so they do not weigh on the timings)
 *   ctx.env           "node" | "chromium"
 *   ctx.storage       "memory" (Node) | "indexeddb" (browser)
 *   ctx.measure       suite.measure(fn, opt, before, awaitResult)
 *   ctx.opt           measure options (quick or full)
 *   ctx.quick
 *   ctx.peerW3        [{ impl, medianMs }] the peers' W3 at this size (fastest is taken)
 *   ctx.hooks         { gc, log, offlineMemory(size): Promise<probe result> }
 */
export async function runOffline(ctx) {
  const { api, env, storage, measure, opt, quick } = ctx;
  const log = ctx.hooks.log || (() => {});
  const gc = async () => {
    if (ctx.hooks.gc) await ctx.hooks.gc();
  };
  const size = ctx.input.docs.length;
  const { Client, Query, DocumentStore } = api;
  const pages = buildPages(ctx.input.docs);
  // the full list's reference: (e)'s W3
  const fullRef = ctx.checkFull && ctx.checkFull.w3 ? structuralHash(ctx.checkFull.w3(ctx.input.docs)) : null;
  ctx.input.docs = null;
  const details = { size, storage, responseChars: pages.chars, pages: pages.texts.length, pageSize: pages.pageSize };
  const values = {}; // key -> { sdk, baseline, ratio, ...extra }
  const free = (o) => {
    if (o && typeof o.free === "function") o.free();
  };
  const q4 = buildQuery(Query, PAGE, 0);
  const newClient = (cacheStorage, policy, fetch) => new Client({ baseUrl: BASE_URL, repository: REPOSITORY, apiKey: "bench-key", fetch, cache: { storage: cacheStorage, policy } });
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const nSamples = quick ? 3 : size >= 100000 ? 3 : 5;
  const warmups = size >= 100000 ? 0 : 1;

  // 1. prefetch vs fetch + JSON.parse of the same pages (alternating samples) ---------------
  const baseFetch = pageFetch(pages);
  const baseline = async () => {
    const parsed = [];
    for (let i = 0; i < pages.texts.length; i++) {
      const res = await baseFetch(pageUrl(i));
      parsed.push(JSON.parse(await res.text()));
    }
    return parsed.length;
  };
  let client = null;
  let shared = null; // Node: the counting storage the reload clients share
  const prefetchOnce = async () => {
    free(client);
    client = null;
    let cacheStorage = storage;
    if (storage === "indexeddb") await deleteDatabase(dbName());
    await gc();
    const fetch = pageFetch(pages);
    const t0 = performance.now();
    client = newClient(cacheStorage, "cache-only", fetch);
    const r = await client.prefetch("documents", {});
    const ms = performance.now() - t0;
    if (r.loaded !== size || fetch.calls !== pages.texts.length) throw new Error(`prefetch loaded ${r.loaded} of ${size} in ${fetch.calls} fetch calls`);
    return ms;
  };
  const baseOnce = async () => {
    await gc();
    const t0 = performance.now();
    await baseline();
    return performance.now() - t0;
  };
  /** `sdkOnce` against `baseOnce`, in alternating samples after the warm-ups: medians and samples. */
  const paired = async (sdkOnce) => {
    for (let i = 0; i < warmups; i++) {
      await baseOnce();
      await sdkOnce();
    }
    const sdk = [];
    const base = [];
    for (let i = 0; i < nSamples; i++) {
      base.push(await baseOnce());
      sdk.push(await sdkOnce());
    }
    return { sdk: median(sdk), baseline: median(base), sdkSamples: sdk, baselineSamples: base };
  };
  values.prefetch = await paired(prefetchOnce);
  log(`   offline ${size}: prefetch ${values.prefetch.sdk.toFixed(1)} ms (${storage}) vs fetch+JSON.parse ${values.prefetch.baseline.toFixed(1)} ms`);

  // 1b. network answers: the same pages through client.documents without a cache, against
  // the same baseline (alternating samples): checking, URL building, retries' bookkeeping
  {
    const fetch = pageFetch(pages);
    const plain = new Client({ baseUrl: BASE_URL, repository: REPOSITORY, apiKey: "bench-key", fetch });
    const queries = pages.texts.map((_, i) => new Query().limit(OFFLINE_PAGE_SIZE).offset(i * OFFLINE_PAGE_SIZE));
    const sdkOnce = async () => {
      await gc();
      const t0 = performance.now();
      let n = 0;
      for (const q of queries) n += (await plain.documents(q)).data.length;
      const ms = performance.now() - t0;
      if (n !== size) throw new Error(`client.documents read ${n} of ${size} documents`);
      return ms;
    };
    values.network = await paired(sdkOnce);
    for (const q of queries) free(q);
    free(plain);
  }

  // 2. stored characters ------------------------------------------------------------------------
  if (storage === "indexeddb") {
    const c = await countDatabase(dbName());
    if (c.missing) throw new Error(`IndexedDB database ${dbName()} not found after the prefetch`);
    values.stored = { sdk: c.chars, baseline: pages.chars, entries: c.entries, method: "IndexedDB read back after the prefetch: sum of key + value lengths" };
  } else {
    // one more prefetch, into a counting storage (a Map like the SDK's MemoryStorage);
    // the reload figures below share it
    free(client);
    shared = countingStorage();
    await gc();
    const fetch = pageFetch(pages);
    const t0 = performance.now();
    client = newClient(shared, "cache-only", fetch);
    await client.prefetch("documents", {});
    details.prefetchCountingStorageMs = performance.now() - t0;
    values.stored = { sdk: shared.chars, baseline: pages.chars, entries: shared.entries.size, writes: shared.writes, method: "counting storage: sum of key + value lengths written and still present" };
  }
  {
    const cache = client.cache;
    details.cacheBytes = cache.bytes;
    details.cacheSize = cache.size;
    cache.free();
  }

  // 3. memory growth during a prefetch (fresh process / browser context) ---------------------
  if (ctx.hooks.offlineMemory) {
    try {
      const m = await ctx.hooks.offlineMemory(size);
      if (m && m.ok) {
        values.memory = { sdk: m.growthBytes, baseline: m.responseChars, unit: "bytes/char", method: m.method, probe: m };
        if (env !== "node" && m.rssGrowthBytes !== undefined) values.memoryRss = { sdk: m.rssGrowthBytes, baseline: m.responseChars, unit: "bytes/char", method: m.rssMethod };
      }
      else log(`   offline ${size}: memory probe failed: ${m && m.reason}`);
    } catch (err) {
      log(`   offline ${size}: memory probe failed: ${errText(err)}`);
    }
  }

  // 4. warm offline page: client.documents(W4 query) under cache-only vs DocumentStore.query ---
  const store = new DocumentStore();
  for (const t of pages.texts) store.putJson(t);
  {
    const a = await client.documents(q4);
    const b = store.query(q4);
    if (a.source !== "cache") throw new Error(`the warm offline page came from ${a.source}`);
    details.warmAgrees = structuralHash({ data: a.data, meta: a.meta }) === structuralHash({ data: b.data, meta: b.meta });
    if (!details.warmAgrees) log(`   offline ${size}: client.documents and DocumentStore.query answer differently`);
  }
  await gc();
  const mStore = await measure(() => store.query(q4), opt);
  await gc();
  const mClient = await measure(() => client.documents(q4), opt, null, true);
  values.warm = { sdk: mClient.medianMs, baseline: mStore.medianMs, sdkMeasure: mClient, baselineMeasure: mStore };

  // 5. full list: W3 on every document from the store (pages of 1000: Query's limit is at most 1000)
  const fullQueries = [];
  for (let offset = 0; offset < size; offset += OFFLINE_PAGE_SIZE) fullQueries.push(buildQuery(Query, OFFLINE_PAGE_SIZE, offset));
  const storeFull = () => {
    const all = [];
    for (const q of fullQueries) {
      const data = store.query(q).data;
      for (let i = 0; i < data.length; i++) all.push(data[i]);
    }
    return all;
  };
  const peer = (ctx.peerW3 || []).reduce((a, b) => (a === null || b.medianMs < a.medianMs ? b : a), null);
  // The state timed (the index built, the selections kept) is reached untimed first: the
  // measuring's own warm-up may stop after one call that long.
  for (let call = 0; call < 3; call++) wholeList(storeFull(), size);
  await gc();
  const mFull = await measure(storeFull, opt);
  if (peer) values.fullList = { sdk: mFull.medianMs, baseline: peer.medianMs, peer: peer.impl, sdkMeasure: mFull, speedUp: true };
  // Cold: a fresh store each time (its ingest untimed), so the sort index is
  // built and every document selected within the timed call, as a peer does.
  {
    const colds = [];
    for (let run = 0; run < (quick ? 2 : 3); run++) {
      const fresh = new DocumentStore();
      for (const t of pages.texts) fresh.putJson(t);
      await gc();
      const t0 = performance.now();
      let n = 0;
      for (const q of fullQueries) n += fresh.query(q).data.length;
      colds.push(performance.now() - t0);
      if (n !== size) throw new Error(`the cold full list has ${n} documents`);
      free(fresh);
    }
    // One more fresh store (untimed) whose answers are checked against the reference.
    if (fullRef !== null) {
      const fresh = new DocumentStore();
      for (const t of pages.texts) fresh.putJson(t);
      const all = [];
      for (const q of fullQueries) for (const doc of fresh.query(q).data) all.push(doc);
      details.fullListColdAgrees = structuralHash(all) === fullRef;
      free(fresh);
    }
    colds.sort((a, b) => a - b);
    const coldMs = colds[colds.length >> 1];
    if (peer) values.fullListCold = { sdk: coldMs, baseline: peer.medianMs, peer: peer.impl, speedUp: true, runs: colds };
  }
  // The floor of this design: the answers reach JavaScript as JSON text, and
  // JSON.parse of those texts alone (the same characters) is measured here.
  const answerTexts = fullQueries.map((q) => JSON.stringify(store.query(q)));
  await gc();
  const mFloor = await measure(() => {
    let n = 0;
    for (const text of answerTexts) n += JSON.parse(text).data.length;
    return n;
  }, opt);
  details.fullListParseMs = mFloor.medianMs;
  details.fullListAnswerChars = answerTexts.reduce((n, text) => n + text.length, 0);
  if (peer) {
    details.fullListParseFloor = peer.medianMs / mFloor.medianMs;
    log(`   offline ${size}: JSON.parse of the full list's answer texts alone (${details.fullListAnswerChars} characters): ${mFloor.medianMs.toFixed(1)} ms, so the design's ceiling is fastest peer / parse = ${details.fullListParseFloor.toFixed(2)}x`);
  }
  const qAll = buildQuery(Query, OFFLINE_PAGE_SIZE, 0);
  const maxPages = Math.ceil(size / OFFLINE_PAGE_SIZE) + 1;
  for (let call = 0; call < 3; call++) wholeList((await client.all("documents", qAll, { maxPages })).data, size);
  await gc();
  const mAll = await measure(() => client.all("documents", qAll, { maxPages }), opt, null, true);
  if (peer) values.fullListClient = { sdk: mAll.medianMs, baseline: peer.medianMs, peer: peer.impl, sdkMeasure: mAll, speedUp: true };
  if (fullRef !== null) {
    const ref = fullRef;
    details.fullListAgrees = structuralHash(storeFull()) === ref;
    const viaAll = await client.all("documents", qAll, { maxPages });
    details.fullListClientAgrees = structuralHash(viaAll.data) === ref;
    if (!details.fullListAgrees || !details.fullListClientAgrees) log(`   offline ${size}: the full list differs from (e)'s W3 (store ${details.fullListAgrees}, client.all ${details.fullListClientAgrees})`);
  }
  free(store);
  free(client);
  client = null;

  // 6. first answer after a reload: a new Client on the same storage, first query ------------
  //    cache-only, and network-first with a fetch that rejects like an offline browser's
  const reloadStorage = storage === "indexeddb" ? "indexeddb" : shared;
  const firstAnswer = async (policy) => {
    await gc();
    const fetch = policy === "cache-only" ? pageFetch(pages) : offlineFetch();
    const t0 = performance.now();
    const c = newClient(reloadStorage, policy, fetch);
    const r = await c.documents(q4);
    const ms = performance.now() - t0;
    const source = r.source;
    const stale = r.stale;
    const count = r.data.length;
    free(c);
    if (source !== "cache" || count !== Math.min(PAGE, size)) throw new Error(`${policy} after a reload: source ${source}, ${count} documents`);
    return { ms, fetchCalls: fetch.calls, stale };
  };
  const parseAll = () => {
    let n = 0;
    for (const t of pages.texts) n += JSON.parse(t).data.length;
    return n;
  };
  const mParse = await measure(parseAll, opt, gc);
  for (let i = 0; i < warmups; i++) {
    await firstAnswer("cache-only");
    await firstAnswer("network-first");
  }
  const only = [];
  const netFirst = [];
  // A B B A ...: neither policy always runs right after the other
  const pairs = quick || size >= 100000 ? 2 : 3;
  for (let i = 0; i < pairs; i++) {
    only.push(await firstAnswer("cache-only"));
    netFirst.push(await firstAnswer("network-first"));
    netFirst.push(await firstAnswer("network-first"));
    only.push(await firstAnswer("cache-only"));
  }
  const onlyMs = median(only.map((x) => x.ms));
  const nfMs = median(netFirst.map((x) => x.ms));
  const fetchCalls = Math.max(...netFirst.map((x) => x.fetchCalls));
  values.reload = { sdk: onlyMs, baseline: mParse.medianMs, sdkSamples: only.map((x) => x.ms), baselineMeasure: mParse };
  if (storage === "indexeddb") {
    // How much of a reload is IndexedDB's own read of the entries.
    await gc();
    const mRead = await measure(() => readDatabase(dbName()), opt, null, true);
    details.reloadStorageReadMs = mRead.medianMs;
    log(`   offline ${size}: reading the entries from IndexedDB alone: ${mRead.medianMs.toFixed(1)} ms, ${(mRead.medianMs / mParse.medianMs).toFixed(2)}x JSON.parse of the pages`);
  }
  values.networkFirst = { sdk: nfMs, baseline: onlyMs, sdkSamples: netFirst.map((x) => x.ms), fetchCalls, stale: netFirst.every((x) => x.stale) };
  details.navigatorOnLine = typeof navigator === "object" && navigator && "onLine" in navigator ? navigator.onLine : null;
  if (storage === "indexeddb") await deleteDatabase(dbName());

  const rows = [];
  for (const f of OFFLINE_FIGURES) {
    const v = values[f.key];
    if (!v) continue;
    const ratio = v.speedUp ? v.baseline / v.sdk : v.sdk / v.baseline;
    const { sdk, baseline, ...extra } = v;
    // A figure whose answers differ from the reference's is reported, never met.
    const agrees = { warm: details.warmAgrees, fullList: details.fullListAgrees, fullListCold: details.fullListColdAgrees, fullListClient: details.fullListClientAgrees }[f.key];
    if (agrees === false) extra.agrees = false;
    rows.push({ size, figure: f.key, label: f.label, storage, sdk, baseline, unit: f.unit || "ms", ratio, op: f.op, target: targetOf(f, env), met: agrees !== false && meets(f, ratio, env, extra), ...extra });
  }
  for (const r of rows) log(`   offline ${String(size).padStart(6)} ${r.figure.padEnd(15)} ${fmtRatio(r.ratio).padStart(8)}  target ${targetText(r)}  ${r.met ? "met" : "MISSED"}${r.agrees === false ? " (its answers DIFFER from the reference's)" : ""}`);
  return { size, storage, rows, details };
}

export function fmtRatio(x) {
  return x === null || x === undefined || !Number.isFinite(x) ? "-" : x >= 10 ? x.toFixed(1) + "x" : x.toFixed(2) + "x";
}

export function targetText(r) {
  return r.op === "approx" ? `~${r.target}x` : `${r.op === "<=" ? "<=" : ">="} ${r.target}x`;
}
