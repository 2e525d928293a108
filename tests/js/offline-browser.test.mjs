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
    await window.client.prefetch({ collection: "products" }, { pageSize: 60, onProgress: (p) => progress.push(p.loaded) });
    return { list: JSON.parse(JSON.stringify(list)), source: list.source, progress };
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
    return all.join("\n");
  }, `content-repo:${api.url.replace(/\/$/, "")}/v1/demo`);
  assert.ok(stored.length > 10_000, "entries are in IndexedDB");
  assert.ok(!stored.includes(apiKey), "the API key is never stored");
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
  assert.equal(result.errors.length, 3);
  assert.ok(result.errors.every((e) => e.code === "decode"), JSON.stringify(result.errors));
  await page.evaluate(() => window.client.cache.clear());
});
