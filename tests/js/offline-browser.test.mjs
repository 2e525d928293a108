// The offline cache in headless Chromium with the real IndexedDB: fetch
// online, reload the page, go offline, and get the same answers; re-sorted and
// re-projected queries of a prefetched collection equal the server's online
// answers; unanswerable queries reject with not_cached; corrupt entries are
// skipped and reported.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { startStatic, launchChromium } from "./harness.mjs";
import { combinations } from "./offline-cases.mjs";

const apiKey = "idb-test-key-4242";
let api;
let site;
let browser;
let context;
let page;

before(async () => {
  api = await startServer({ port: 0, apiKey, control: true });
  site = await startStatic();
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
});

after(async () => {
  await browser?.close();
  await site?.close();
  await api?.close();
});

/** Loads the SDK into the page and makes `window.client` with an IndexedDB cache. */
async function openClient(policy = "network-first") {
  await page.goto(`${site.url}/blank.html`);
  await page.evaluate(async ({ baseUrl, apiKey, policy }) => {
    window.sdk = await import("/pkg/web/index.js");
    await window.sdk.ready();
    window.cacheErrors = [];
    window.client = new window.sdk.Client({
      baseUrl,
      repository: "demo",
      apiKey,
      retries: 0,
      timeoutMs: 3000,
      cache: { storage: "indexeddb", policy },
      onCacheError: (error) => window.cacheErrors.push({ code: error.code, message: error.message }),
    });
    await window.client.cache.ready();
  }, { baseUrl: api.url, apiKey, policy });
}

test("online, reload, offline: the same answers from IndexedDB, and generated queries equal the server's", { timeout: 60_000 }, async () => {
  await openClient();
  const fetched = await page.evaluate(async () => {
    const list = await window.client.collection("authors", "limit=5");
    const progress = [];
    // What is encoded to UTF-8 or decoded from it while the prefetch stores its pages.
    const [encode, decode] = [TextEncoder.prototype.encode, TextDecoder.prototype.decode];
    let coded = 0;
    TextEncoder.prototype.encode = function (text) {
      coded += String(text).length;
      return encode.call(this, text);
    };
    TextDecoder.prototype.decode = function (...args) {
      const text = decode.apply(this, args);
      coded += text.length;
      return text;
    };
    try {
      await window.client.prefetch({ collection: "products" }, { pageSize: 60, onProgress: (p) => progress.push(p.loaded) });
    } finally {
      [TextEncoder.prototype.encode, TextDecoder.prototype.decode] = [encode, decode];
    }
    return { list: JSON.parse(JSON.stringify(list)), source: list.source, progress, coded };
  });
  assert.equal(fetched.source, "network");
  assert.deepEqual(fetched.progress, [60, 120, 130]);

  const queries = combinations(55, 7);
  const expected = [];
  for (const text of queries) {
    const response = await fetch(`${api.url.replace(/\/$/, "")}/v1/demo/collections/products?${text}`, { headers: { Authorization: apiKey } });
    const body = await response.json();
    expected.push({ data: body.data, meta: body.meta });
  }

  await page.reload();
  await openClient();
  await context.setOffline(true);
  const offline = await page.evaluate(async ({ queries }) => {
    const out = { errors: [] };
    const again = await window.client.collection("authors", "limit=5");
    out.again = { list: JSON.parse(JSON.stringify(again)), source: again.source, stale: again.stale };
    out.answers = [];
    for (const text of queries) {
      try {
        const answer = await window.client.collection("products", text);
        out.answers.push({ data: answer.data, meta: answer.meta, source: answer.source });
      } catch (error) {
        out.answers.push({ error: `${error.code}: ${error.message}` });
      }
    }
    try {
      await window.client.collection("articles", new window.sdk.Query().sort("fields.title", "ASC"));
      out.unanswerable = "answered";
    } catch (error) {
      out.unanswerable = error.code;
    }
    try {
      await window.client.collection("authors", new window.sdk.Query().sort("fields.name", "DESC").limit(5));
      out.resortedIncomplete = "answered";
    } catch (error) {
      out.resortedIncomplete = error.code;
    }
    out.cacheErrors = window.cacheErrors;
    return out;
  }, { queries });
  await context.setOffline(false);

  assert.equal(offline.again.source, "cache");
  assert.equal(offline.again.stale, true, "network-first fell back to the cache");
  assert.deepEqual(offline.again.list, fetched.list);
  assert.equal(offline.answers.length, queries.length);
  offline.answers.forEach((answer, i) => {
    assert.equal(answer.error, undefined, `${queries[i]}: ${answer.error}`);
    assert.equal(answer.source, "cache");
    assert.deepEqual({ data: answer.data, meta: answer.meta }, expected[i], queries[i]);
  });
  assert.equal(offline.unanswerable, "not_cached");
  assert.equal(offline.resortedIncomplete, "not_cached");
  assert.deepEqual(offline.cacheErrors, []);

  const stored = await page.evaluate(async (name) => {
    const db = await new Promise((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = db.transaction("entries", "readonly");
    const all = await new Promise((resolve) => {
      const req = tx.objectStore("entries").getAll();
      req.onsuccess = () => resolve(req.result);
    });
    db.close();
    // Texts are kept as UTF-8 bytes.
    const bytes = all.every((value) => value instanceof Uint8Array);
    return { bytes, text: all.map((value) => new TextDecoder("utf-8", { fatal: true }).decode(value)).join("\n") };
  }, `content-repo:${api.url.replace(/\/$/, "")}/v1/demo`);
  assert.ok(stored.bytes, "entries are UTF-8 bytes");
  assert.ok(stored.text.length > 10_000, "entries are in IndexedDB");
  assert.ok(stored.text.includes('"data"'), "entries hold the response texts");
  // The pages reach IndexedDB as bytes copied out of the module, never encoded again.
  assert.ok(fetched.coded < stored.text.length / 10, `${fetched.coded} characters encoded or decoded for ${stored.text.length} stored`);
  assert.ok(!stored.text.includes(apiKey), "the API key is never stored");
});

test("a live client keeps using IndexedDB after the site's data is cleared (the browser closes its connection)", { timeout: 30_000 }, async () => {
  await openClient();
  await page.evaluate(() => window.client.prefetch({ collection: "authors" }));
  const cdp = await context.newCDPSession(page);
  await cdp.send("Storage.clearDataForOrigin", { origin: new URL(site.url).origin, storageTypes: "indexeddb" });
  await cdp.detach();
  const result = await page.evaluate(async ({ baseUrl, apiKey }) => {
    const prefetched = await window.client.prefetch({ collection: "products" }).then(() => "ok", (e) => `${e.code}: ${e.message}`);
    const cleared = await window.client.cache.clear().then(() => "ok", (e) => `${e.code}: ${e.message}`);
    const size = window.client.cache.size;
    await window.client.prefetch({ collection: "authors" });
    // A fresh client reads what the live one wrote after the clearing.
    const offline = new window.sdk.Client({ baseUrl, repository: "demo", apiKey, retries: 0, cache: { storage: "indexeddb", policy: "cache-only" } });
    const authors = await offline.collection("authors", "limit=2").then((list) => list.source, (e) => e.code);
    const products = await offline.collection("products", "limit=2").then((list) => list.source, (e) => e.code);
    return { prefetched, cleared, size, authors, products, errors: window.cacheErrors };
  }, { baseUrl: api.url, apiKey });
  assert.equal(result.prefetched, "ok");
  assert.equal(result.cleared, "ok");
  assert.equal(result.size, 0, "clear() emptied memory");
  assert.equal(result.authors, "cache");
  assert.equal(result.products, "not_cached", "cleared");
  assert.deepEqual(result.errors, []);
});

test("an IndexedDB write that does not settle within timeoutMs is aborted, never committed later", { timeout: 30_000 }, async () => {
  await openClient();
  const result = await page.evaluate(async ({ baseUrl, apiKey }) => {
    await window.client.cache.clear();
    // 24 MB in one response: IndexedDB takes longer than 60 ms to write it.
    const documents = Array.from({ length: 3000 }, (_, i) => ({
      fields: { name: `n${i}`, blob: "y".repeat(8000) },
      meta: { id: String(5_000_000 + i), revision: 1, createdAt: "2024-01-01T00:00:00.000Z" },
    }));
    const text = JSON.stringify({ data: documents, meta: { count: 3000, limit: 1000, offset: 0, total: 3000 } });
    const errors = [];
    const options = { baseUrl, repository: "demo", apiKey, retries: 0, onCacheError: (e) => errors.push(e.message) };
    const slow = new window.sdk.Client({ ...options, timeoutMs: 60, fetch: async () => new Response(text), cache: { storage: "indexeddb" } });
    await slow.cache.ready();
    const source = await slow.collection("big").then((list) => list.source, (e) => e.code);
    const size = slow.cache.size;
    // Long after: what a fresh client (a reload) reads from IndexedDB.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const fresh = new window.sdk.Client({ ...options, cache: { storage: "indexeddb", policy: "cache-only" } });
    const answer = await fresh.collection("big", "limit=2").then((list) => list.source, (e) => e.code);
    return { source, size, errors, answer, stored: fresh.cache.size };
  }, { baseUrl: api.url, apiKey });
  assert.equal(result.source, "network");
  assert.ok(result.errors.some((message) => /did not settle within 60 ms/.test(message)), result.errors.join("; "));
  assert.equal(result.size, 0, "memory holds nothing of the failed write");
  assert.equal(result.answer, "not_cached", "nor does IndexedDB");
  assert.equal(result.stored, 0);
});

test("an IndexedDB write already committing when timeoutMs runs out counts as written: memory and IndexedDB agree", { timeout: 60_000 }, async () => {
  await openClient();
  const trials = await page.evaluate(async () => {
    // When the SDK's write has had its last request answered (it is then
    // committing), the page writes 40 MB to a database of its own, which
    // the commit waits behind.
    const appDb = await new Promise((resolve, reject) => {
      const open = indexedDB.open("app-db", 1);
      open.onupgradeneeded = () => open.result.createObjectStore("s");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    let appMB = 0;
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args) {
      const request = put.apply(this, args);
      if (this.transaction.db.name !== "app-db") {
        request.addEventListener("success", () => {
          if (!appMB) return;
          const busy = appDb.transaction("s", "readwrite");
          for (let i = 0; i < appMB; i++) busy.objectStore("s").put(new Uint8Array(1 << 20).fill(i + 1), `k${i}`);
          appMB = 0;
        });
      }
      return request;
    };
    const id = "100000000000000001";
    const doc = { meta: { id, revision: 1, contentType: "authors" }, fields: { name: "x" } };
    const results = [];
    try {
      for (const timeoutMs of [50, 100, 200]) {
        const repository = `commit-${timeoutMs}-${Math.random()}`;
        const reports = [];
        const options = { baseUrl: "http://cms.invalid", repository, apiKey: "k", retries: 0 };
        const c = new window.sdk.Client({
          ...options,
          timeoutMs,
          fetch: async () => new Response(JSON.stringify(doc)),
          cache: { storage: "indexeddb" },
          onCacheError: (e) => reports.push(e.message),
        });
        await c.cache.ready();
        appMB = 40;
        await c.document(id);
        await new Promise((resolve) => setTimeout(resolve, 2500));
        const fresh = new window.sdk.Client({ ...options, cache: { storage: "indexeddb", policy: "cache-only" } });
        const stored = await fresh.document(id).then((answer) => answer.source, (e) => e.code);
        results.push({ timeoutMs, reports, memory: c.cache.size, stored });
      }
    } finally {
      IDBObjectStore.prototype.put = put;
      appDb.close();
    }
    return results;
  });
  for (const trial of trials) {
    // Reported failed: in neither; else in both.
    const failed = trial.reports.length > 0;
    assert.equal(trial.memory, failed ? 0 : 1, JSON.stringify(trial));
    assert.equal(trial.stored, failed ? "not_cached" : "cache", JSON.stringify(trial));
  }
});

test("an IndexedDB that cannot be opened (another connection blocks an upgrade) fails its calls at timeoutMs, never holding a request", { timeout: 60_000 }, async () => {
  await page.goto(`${site.url}/blank.html`);
  const result = await page.evaluate(async ({ baseUrl, apiKey }) => {
    const sdk = await import("/pkg/web/index.js");
    await sdk.ready();
    // A connection that stays open through a version change, and an
    // upgrade waiting on it: the SDK's open() is queued behind them.
    const name = `content-repo:${baseUrl.replace(/\/$/, "")}/v1/blocked`;
    const held = await new Promise((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => open.result.createObjectStore("entries");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    indexedDB.open(name, 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const errors = [];
    const start = performance.now();
    const client = new sdk.Client({
      baseUrl, repository: "blocked", apiKey, retries: 0, timeoutMs: 300,
      cache: { storage: "indexeddb" },
      onCacheError: (e) => errors.push(e.message),
    });
    const outcome = await client.collection("authors", "limit=3").then((list) => list.source, (e) => e.code);
    const took = performance.now() - start;
    held.close();
    return { outcome, took, errors };
  }, { baseUrl: api.url, apiKey });
  assert.ok(result.outcome === "network" || result.outcome === "http", JSON.stringify(result));
  assert.ok(result.errors.some((message) => /did not settle within 300 ms/.test(message)), JSON.stringify(result));
  // Two storage calls of 300 ms each (its load, its write), not ten seconds each.
  assert.ok(result.took < 5000, JSON.stringify(result));
});

test("corrupt and old-schema IndexedDB entries are skipped and reported, never fatal", { timeout: 30_000 }, async () => {
  await openClient();
  await page.evaluate(async () => {
    await window.client.collection("authors", "limit=3");
  });
  await page.evaluate(async (name) => {
    const db = await new Promise((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const tx = db.transaction("entries", "readwrite");
    tx.objectStore("entries").put("{broken json", "document:1");
    tx.objectStore("entries").put(JSON.stringify({ v: 99, body: {} }), "response:http://x/old");
    tx.objectStore("entries").put(42, "document:2");
    // bytes that are not UTF-8 where a segment is expected
    tx.objectStore("entries").put(new Uint8Array([0xff, 0xfe, 0x7b]), "s:x:9");
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
  }, `content-repo:${api.url.replace(/\/$/, "")}/v1/demo`);
  await page.reload();
  await openClient("cache-only");
  const result = await page.evaluate(async () => {
    const list = await window.client.collection("authors", "limit=3");
    return { source: list.source, count: list.data.length, errors: window.cacheErrors, size: window.client.cache.size };
  });
  assert.equal(result.source, "cache");
  assert.equal(result.count, 3);
  assert.equal(result.errors.length, 4);
  assert.ok(result.errors.every((e) => e.code === "decode"), JSON.stringify(result.errors));
  await page.evaluate(() => window.client.cache.clear());
});

test("two tabs on one IndexedDB keep the revision rule; refresh and locales in IndexedDB, across a reload", { timeout: 60_000 }, async () => {
  const origin = api.url.replace(/\/$/, "");
  const name = `content-repo:${origin}/v1/demo`;
  api.mutate({ reset: true });
  const open = async (target) => {
    await target.goto(`${site.url}/blank.html`);
    await target.evaluate(async ({ baseUrl, apiKey }) => {
      window.sdk = await import("/pkg/web/index.js");
      await window.sdk.ready();
      window.cacheErrors = [];
      window.make = (policy, fetch) =>
        new window.sdk.Client({
          baseUrl, repository: "demo", apiKey, retries: 0, timeoutMs: 5000,
          ...(fetch ? { fetch } : {}),
          cache: { storage: "indexeddb", policy },
          onCacheError: (error) => window.cacheErrors.push(`${error.code}: ${error.message}`),
        });
    }, { baseUrl: api.url, apiKey });
  };
  await page.evaluate((db) => new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(db);
    req.onsuccess = req.onerror = req.onblocked = () => resolve();
  }), name).catch(() => {});
  const first = await context.newPage();
  const second = await context.newPage();
  await open(first);
  await open(second);
  const [author] = api.snapshot().collections.authors;
  // Tab 1 holds the list as it was; tab 2 then sees a newer revision.
  const before = await (await fetch(`${origin}/v1/demo/collections/authors?limit=1000`, { headers: { Authorization: apiKey } })).text();
  await first.evaluate(async () => {
    window.client = window.make("network-first");
    await window.client.prefetch({ collection: "authors" });
  });
  api.mutate({ update: [{ id: author.meta.id, fields: { name: "Newest" } }] });
  await second.evaluate(async (id) => {
    window.client = window.make("network-first");
    await window.client.document(id);
  }, author.meta.id);
  // Tab 1, which has not seen it, records the old text again (a late response).
  await first.evaluate(async (text) => {
    const late = window.make("network-first", async () => new Response(text));
    await late.collection("authors", "limit=1000");
  }, before);
  // A reload reads what both tabs wrote: the highest revision wins.
  await open(first);
  const seen = await first.evaluate(async (id) => {
    const offline = window.make("cache-only");
    return { doc: (await offline.document(id)).fields.name, list: (await offline.collection("authors", "limit=1000")).data.find((d) => d.meta.id === id).fields.name };
  }, author.meta.id);
  assert.deepEqual(seen, { doc: "Newest", list: "Newest" });

  // Refresh in IndexedDB, per locale, then after a reload, offline.
  await first.evaluate(async () => {
    const c = window.make("network-first");
    await c.prefetch({ collection: "articles" });
    await c.prefetch({ collection: "articles" }, { query: new window.sdk.Query().locale("de") });
  });
  const articles = api.snapshot().collections.articles;
  api.mutate({ update: articles.slice(0, 4).map((d) => ({ id: d.meta.id, fields: { title: "Changed" } })), delete: articles.slice(4, 6).map((d) => d.meta.id) });
  const counts = await first.evaluate(async () => {
    const c = window.make("network-first");
    return [await c.refresh({ collection: "articles" }), await c.refresh({ collection: "articles" }, { query: "locale=de" })];
  });
  assert.deepEqual(counts.map((c) => [c.changed, c.deleted, c.total]), [[4, 2, articles.length - 2], [4, 2, articles.length - 2]]);
  const queries = ["sorting%5Bfields.title%5D=ASC&limit=40&fields=title,meta(id,revision)", "sorting%5Bmeta.updatedAt%5D=DESC&limit=10", "limit=1000&fields=meta(id)"];
  const expected = [];
  for (const locale of ["", "&locale=de"]) {
    for (const q of queries) {
      const body = await (await fetch(`${origin}/v1/demo/collections/articles?${q}${locale}`, { headers: { Authorization: apiKey } })).json();
      expected.push({ data: body.data, meta: body.meta });
    }
  }
  await open(first);
  await context.setOffline(true);
  const answers = await first.evaluate(async (queries) => {
    const offline = window.make("cache-only");
    const out = [];
    for (const locale of ["", "&locale=de"]) {
      for (const q of queries) {
        const answer = await offline.collection("articles", q + locale);
        out.push({ data: answer.data, meta: answer.meta, source: answer.source });
      }
    }
    return { out, errors: window.cacheErrors };
  }, queries);
  await context.setOffline(false);
  answers.out.forEach((answer, i) => {
    assert.equal(answer.source, "cache");
    assert.deepEqual({ data: answer.data, meta: answer.meta }, expected[i], String(i));
  });
  assert.deepEqual(answers.errors, []);
  await first.close();
  await second.close();
  api.mutate({ reset: true });
});

test("refreshOnReconnect refreshes the prefetched lists when the browser comes back online", { timeout: 30_000 }, async () => {
  api.mutate({ reset: true });
  const tab = await context.newPage();
  await tab.goto(`${site.url}/blank.html`);
  const [author] = api.snapshot().collections.authors;
  await tab.evaluate(async ({ baseUrl, apiKey, name }) => {
    await new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(name);
      req.onsuccess = req.onerror = req.onblocked = () => resolve();
    });
    window.sdk = await import("/pkg/web/index.js");
    await window.sdk.ready();
    const options = { baseUrl, repository: "demo", apiKey, retries: 0 };
    window.client = new window.sdk.Client({ ...options, cache: { storage: "indexeddb", refreshOnReconnect: true } });
    await window.client.prefetch({ collection: "authors" });
    /** The name a fresh cache-only client (reading IndexedDB) answers. */
    window.cachedName = async (id) => {
      const offline = new window.sdk.Client({ ...options, cache: { storage: "indexeddb", policy: "cache-only" } });
      return (await offline.document(id)).fields.name;
    };
  }, { baseUrl: api.url, apiKey, name: `content-repo:${api.url.replace(/\/$/, "")}/v1/demo` });
  api.mutate({ update: [{ id: author.meta.id, fields: { name: "Back online" } }] });
  const seen = await tab.evaluate(async (id) => {
    const before = await window.cachedName(id);
    dispatchEvent(new Event("online"));
    let after = before;
    for (let i = 0; i < 100 && after !== "Back online"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await window.cachedName(id);
    }
    return { before, after };
  }, author.meta.id);
  assert.notEqual(seen.before, "Back online");
  assert.equal(seen.after, "Back online");
  await tab.close();
  api.mutate({ reset: true });
});

test("a freed client closes its IndexedDB connection; what it wrote stays", { timeout: 60_000 }, async () => {
  await openClient();
  const cdp = await context.newCDPSession(page);
  await cdp.send("HeapProfiler.enable");
  // The IDBDatabase objects alive after a full collection: an open connection is never collected.
  const connections = async () => {
    for (let i = 0; i < 3; i++) await cdp.send("HeapProfiler.collectGarbage");
    const { result: proto } = await cdp.send("Runtime.evaluate", { expression: "IDBDatabase.prototype" });
    const { objects } = await cdp.send("Runtime.queryObjects", { prototypeObjectId: proto.objectId });
    const { result } = await cdp.send("Runtime.callFunctionOn", { objectId: objects.objectId, functionDeclaration: "function () { return this.length; }", returnByValue: true });
    return result.value;
  };
  const before = await connections();
  const made = await page.evaluate(async ({ baseUrl, apiKey }) => {
    let sizes = 0;
    for (let i = 0; i < 8; i++) {
      const c = new window.sdk.Client({ baseUrl, repository: "demo", apiKey, retries: 0, cache: { storage: "indexeddb" } });
      await c.collection("authors", `limit=${i + 1}`);
      sizes += c.cache.size;
      c.free();
    }
    return sizes;
  }, { baseUrl: api.url, apiKey });
  assert.ok(made > 0, "the clients cached documents");
  assert.equal(await connections(), before, "no connection left open by the freed clients");
  // A new client reads what they wrote, offline.
  const offline = await page.evaluate(async ({ baseUrl, apiKey }) => {
    const c = new window.sdk.Client({ baseUrl, repository: "demo", apiKey, retries: 0, cache: { storage: "indexeddb", policy: "cache-only" } });
    const list = await c.collection("authors", "limit=8");
    c.free();
    return { source: list.source, count: list.data.length };
  }, { baseUrl: api.url, apiKey });
  assert.deepEqual(offline, { source: "cache", count: 8 });
  await cdp.detach();
});
